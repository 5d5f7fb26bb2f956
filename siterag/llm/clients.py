"""One LLM client per configuration and process; starts the embedded server when asked to."""

from __future__ import annotations

import threading
from pathlib import Path

from siterag.config import LLMConfig
from siterag.llm.client import LLMClient
from siterag.llm.limit import endpoint_slot, llm_slot
from siterag.llm.llama_server import healthy, start_server

_CLIENTS: dict[LLMConfig, LLMClient] = {}
_LOCK = threading.Lock()


def ensure_embedded(config: LLMConfig, log_dir: Path | None = None) -> None:
    """Start the packaged llama-server for an `embedded = true` config unless one already answers."""
    if config.embedded and not config.base_url and not config.base_urls and not healthy(config.url()):
        log = (log_dir / "llama-server.log") if log_dir else None
        if log:
            log.parent.mkdir(parents=True, exist_ok=True)
        start_server(config.embedded_port, ctx=config.context_tokens, log_path=log)


def client_for(config: LLMConfig) -> LLMClient:
    """The shared client for `config` (kept out of task inputs so caching never sees it)."""
    with _LOCK:
        if config not in _CLIENTS:
            ensure_embedded(config)
            several = len(config.urls()) > 1  # then one concurrency limit per endpoint
            _CLIENTS[config] = LLMClient(config, gate=llm_slot, endpoint_gate=endpoint_slot if several else None)
        return _CLIENTS[config]


def total_llm_calls() -> int:
    """LLM requests made by this process so far (all clients)."""
    return sum(c.stats.calls for c in _CLIENTS.values())
