"""A small client for OpenAI-compatible chat endpoints (llama.cpp's llama-server).

One request = one generation: explicit max_tokens, stop, temperature 0 and a JSON schema
that the server enforces as a grammar. Every failure becomes an LLMError with a reason.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field

import httpx
import jsonschema

from siterag.config import LLMConfig
from siterag.llm.pool import EndpointPool

DEFAULT_STOP = ["<end_of_turn>", "<|im_end|>", "</s>"]


class LLMError(RuntimeError):
    """The LLM gave no usable answer; `reason` is down | timeout | http | invalid_json | length | schema."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"LLM {reason}: {detail}" if detail else f"LLM {reason}")
        self.reason = reason


@dataclass
class LLMStats:
    """Counters a run reports: calls, failures and prompt/completion tokens."""

    calls: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, usage: dict | None, failed: bool = False) -> None:
        with self._lock:
            self.calls += 1
            self.failures += int(failed)
            if usage:
                self.prompt_tokens += int(usage.get("prompt_tokens", 0))
                self.completion_tokens += int(usage.get("completion_tokens", 0))


class LLMClient:
    """Chat completions with JSON-schema-constrained output, retries and backoff."""

    def __init__(self, config: LLMConfig, transport: httpx.BaseTransport | None = None,
                 backoff_s: float = 1.0, gate: Callable[[], AbstractContextManager[object]] = nullcontext,
                 endpoint_gate: Callable[[str], AbstractContextManager[object]] | None = None) -> None:
        self.config = config
        self.stats = LLMStats()
        self.backoff_s = backoff_s
        # Requests spread over [llm] base_urls. `gate` is held around each request (siterag.llm.limit.llm_slot, a
        # Prefect concurrency slot); endpoint_gate(url), when given, replaces it (a limit per endpoint).
        self.pool = EndpointPool(config.urls(), config.timeout, transport, endpoint_gate or (lambda _url: gate()))

    def close(self) -> None:
        self.pool.close()

    def _post(self, body: dict) -> dict:
        try:
            resp = self.pool.post("/chat/completions", body)
        except httpx.TimeoutException as exc:
            raise LLMError("timeout", str(exc)) from exc
        except httpx.TransportError as exc:
            raise LLMError("down", str(exc)) from exc
        if resp.status_code >= 400:
            raise LLMError("http", f"{resp.status_code} {resp.text[:200]}")
        try:
            return resp.json()
        except ValueError as exc:
            raise LLMError("invalid_json", "response body is not JSON") from exc

    def chat_json(self, system: str, user: str, schema: dict, max_tokens: int | None = None,
                  check: dict | None = None) -> dict:
        """Ask once (retrying transient faults) and return the schema-valid JSON answer.

        `check`: the schema the answer is validated against, when looser than the one sent as the grammar (so
        the caller can repair what an endpoint that ignores grammars got wrong); default `schema`.
        """
        body = {
            "model": self.config.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "temperature": 0,
            "max_tokens": max_tokens or self.config.max_tokens,
            "stop": DEFAULT_STOP,
            "response_format": {"type": "json_schema",
                                "json_schema": {"name": "answer", "strict": True, "schema": schema}},
        }
        return self._ask(body, lambda data: parse_answer(data, check or schema))

    def choose(self, messages: list[dict], options: tuple[str, ...]) -> dict[str, float]:
        """One-token answer among `options` (e.g. "A", "B"): the model's probability of each.

        Uses the endpoint's top logprobs when it returns them, else the one token it wrote.
        """
        body = {"model": self.config.model, "messages": messages, "temperature": 0, "max_tokens": 1,
                "stop": DEFAULT_STOP, "logprobs": True, "top_logprobs": 10}
        return self._ask(body, lambda data: parse_choice(data, options))

    def _ask(self, body: dict, parse: Callable[[dict], dict]) -> dict:
        last: LLMError | None = None
        for attempt in range(self.config.retries + 1):
            if attempt:
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
            try:
                data = self._post(body)
                answer = parse(data)
                self.stats.add(data.get("usage"))
                return answer
            except LLMError as exc:
                self.stats.add(None, failed=True)
                last = exc
                if exc.reason == "length":
                    break  # a longer retry would run out the same way
        assert last is not None
        raise last


def parse_choice(data: dict, options: tuple[str, ...]) -> dict[str, float]:
    """Probabilities of `options` from a one-token completion (normalised over the options)."""
    try:
        choice = data["choices"][0]
        text = (choice["message"].get("content") or "").strip()
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise LLMError("invalid_json", "no choices[0].message") from exc
    probs = dict.fromkeys(options, 0.0)
    try:
        for top in choice["logprobs"]["content"][0]["top_logprobs"]:
            token = str(top["token"]).strip()
            if token in probs:
                probs[token] += math.exp(float(top["logprob"]))
    except (KeyError, IndexError, TypeError, ValueError):
        pass
    if not any(probs.values()) and text in probs:
        probs[text] = 1.0
    total = sum(probs.values())
    if not total:
        raise LLMError("schema", f"answer {text[:40]!r} is none of {options}")
    return {k: v / total for k, v in probs.items()}


def parse_answer(data: dict, schema: dict) -> dict:
    """The JSON object in a chat completion, validated against `schema`."""
    try:
        choice = data["choices"][0]
        content = choice["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMError("invalid_json", "no choices[0].message.content") from exc
    if choice.get("finish_reason") == "length":
        raise LLMError("length", "output hit max_tokens")
    if not isinstance(content, str):
        raise LLMError("invalid_json", "content is not a string")
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        answer = json.loads(text)
    except ValueError as exc:
        raise LLMError("invalid_json", text[:120]) from exc
    try:
        jsonschema.validate(answer, schema)
    except jsonschema.ValidationError as exc:
        raise LLMError("schema", exc.message[:200]) from exc
    return answer
