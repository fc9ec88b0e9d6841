"""Test helpers, for tests/ and benchmarks/ only (not in the wheel): the OpenAI-compatible stub
server and its batch endpoints (``stub_server``, every public name; its parts in ``stub_*``), a
server answering one fixed status (``fixed_status``), a stand-in ``vllm serve``, headless Chromium
with the network off, and the arena's stand-in world of debaters of known strengths.

May import: nothing of debench outside ``testing``.
"""
