"""Several OpenAI-compatible endpoints (`[llm] base_urls`) used as one.

Each request goes to the least busy live endpoint (ties taken in turn, round robin). An endpoint that refuses
the connection or times out is marked dead for `retry_after_s` and the request moves on to the next one; a dead
endpoint is tried again once that time is up, or at once when every endpoint is dead. Each request holds the
endpoint's gate (siterag.llm.limit.endpoint_slot: a Prefect concurrency limit per endpoint) while it is sent.
With one endpoint this is a plain HTTP client.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

import httpx


@dataclass
class Endpoint:
    url: str
    http: httpx.Client
    busy: int = 0  # requests in flight
    dead_until: float = 0.0  # monotonic time; 0 = alive
    sent: int = 0
    failed: int = 0


class EndpointPool:
    """Spread POSTs over `urls`; skip dead endpoints and come back to them later."""

    def __init__(self, urls: tuple[str, ...] | list[str], timeout: float, transport: httpx.BaseTransport | None = None,
                 gate: Callable[[str], AbstractContextManager[object]] = nullcontext,
                 retry_after_s: float = 30.0) -> None:
        if not urls:
            raise ValueError("no LLM endpoint given")
        self.endpoints = [Endpoint(u, httpx.Client(base_url=u, timeout=timeout, transport=transport)) for u in urls]
        self.gate = gate
        self.retry_after_s = retry_after_s
        self._lock = threading.Lock()
        self._turn = 0

    def close(self) -> None:
        for ep in self.endpoints:
            ep.http.close()

    def _pick(self, tried: set[int]) -> int | None:
        """Index of the endpoint for the next attempt (and count it busy), or None when all were tried."""
        with self._lock:
            now = time.monotonic()
            left = [i for i in range(len(self.endpoints)) if i not in tried]
            if not left:
                return None
            alive = [i for i in left if self.endpoints[i].dead_until <= now]
            n = len(self.endpoints)
            if alive:  # least busy; among equals, the next in turn
                choice = min(alive, key=lambda i: (self.endpoints[i].busy, (i - self._turn) % n))
            elif not tried:  # all dead: try the one that died first
                choice = min(left, key=lambda i: self.endpoints[i].dead_until)
            else:
                return None
            self._turn = (choice + 1) % n
            self.endpoints[choice].busy += 1
            return choice

    def post(self, path: str, body: dict) -> httpx.Response:
        """POST to one endpoint; a connection failure or timeout moves on to the next live one, and only when
        none answered is the last error raised (httpx.TimeoutException / httpx.TransportError)."""
        tried: set[int] = set()
        last: httpx.TransportError | None = None
        while (i := self._pick(tried)) is not None:
            tried.add(i)
            ep = self.endpoints[i]
            try:
                with self.gate(ep.url):
                    resp = ep.http.post(path, json=body)
            except httpx.TransportError as exc:
                with self._lock:
                    ep.failed += 1
                    ep.dead_until = time.monotonic() + self.retry_after_s
                last = exc
                continue
            finally:
                with self._lock:
                    ep.busy -= 1
            with self._lock:
                ep.sent += 1
                ep.dead_until = 0.0
            return resp
        assert last is not None
        raise last
