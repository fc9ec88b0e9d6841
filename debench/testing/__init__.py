"""Test helpers shipped with debench: a local OpenAI-compatible stub server for tests and benchmarks."""
