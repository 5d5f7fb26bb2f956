"""The LLM side: an OpenAI-compatible client, endpoint pools, a shared concurrency limit, the embedded llama-server."""
