"""Models: the model-kind registry and every built-in kind (litellm, a direct OpenAI-compatible
client, the embedded llama.cpp server, GGUF files, vLLM, baselines, ensembles), retries, prices,
the batch APIs, the response cache (``cache``) and the one call path (``calls``).

May import: ``core``, ``task``, ``data``.
"""
