"""The LLM concurrency gate without a server: held around every HTTP request, a no-op outside Prefect runs,
harmless when no Prefect API answers. (With a real server and two flows: tests/pipeline/test_server.py.)"""

from __future__ import annotations

import logging
import time
from contextlib import contextmanager

import httpx
import pytest

from siterag.config import ConfigError, LLMConfig, load_config
from siterag.llm import limit as llm_limit
from siterag.llm.client import LLMClient, LLMError
from siterag.llm.limit import ensure_llm_limit, llm_slot
from tests.conftest import EXAMPLE_SITE, free_port, write_config

ANSWER = {"choices": [{"message": {"content": '{"main": [1]}'}, "finish_reason": "stop"}]}
SCHEMA = {"type": "object", "properties": {"main": {"type": "array", "items": {"type": "integer"}}},
          "required": ["main"]}


def closed_port_url() -> str:
    return f"http://127.0.0.1:{free_port()}/api"  # nothing listens there any more


def test_every_http_attempt_is_sent_while_the_gate_is_held():
    held = {"now": False, "enters": 0}
    seen_held = []

    @contextmanager
    def gate():
        held["now"], held["enters"] = True, held["enters"] + 1
        try:
            yield
        finally:
            held["now"] = False

    replies = iter([httpx.Response(503, text="busy"), httpx.Response(200, json=ANSWER)])

    def handler(request: httpx.Request) -> httpx.Response:
        seen_held.append(held["now"])
        return next(replies)

    client = LLMClient(LLMConfig(base_url="http://llm.invalid/v1", retries=1), httpx.MockTransport(handler),
                       backoff_s=0, gate=gate)
    assert client.chat_json("s", "u", SCHEMA) == {"main": [1]}
    assert seen_held == [True, True] and held == {"now": False, "enters": 2}


def test_the_gate_is_released_when_the_request_fails():
    held = {"now": False}

    @contextmanager
    def gate():
        held["now"] = True
        try:
            yield
        finally:
            held["now"] = False

    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused")

    client = LLMClient(LLMConfig(base_url="http://llm.invalid/v1", retries=0), httpx.MockTransport(handler),
                       backoff_s=0, gate=gate)
    with pytest.raises(LLMError) as err:
        client.chat_json("s", "u", SCHEMA)
    assert err.value.reason == "down" and held["now"] is False


def test_slot_outside_a_prefect_run_never_calls_the_api():
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings({PREFECT_API_URL: closed_port_url()}):
        start = time.monotonic()
        with llm_slot():
            pass
    assert time.monotonic() - start < 1


def test_ensure_limit_reports_an_unreachable_api_instead_of_failing():
    from prefect.settings import PREFECT_API_URL, temporary_settings

    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    llm_limit.log.addHandler(handler)  # Prefect's logging setup replaces the root handlers (and caplog's)
    try:
        with temporary_settings({PREFECT_API_URL: closed_port_url()}):
            start = time.monotonic()
            assert ensure_llm_limit(LLMConfig(base_url="http://x/v1", max_concurrent=2)) is False
    finally:
        llm_limit.log.removeHandler(handler)
    assert time.monotonic() - start < 10
    assert any("not limited" in r.getMessage() for r in records)


def test_max_concurrent_is_read_and_checked(tmp_path):
    site = f'[[site]]\nname = "s"\nlocal_path = "{EXAMPLE_SITE}"\n'
    cfg = load_config(write_config(tmp_path, f'[llm]\nbase_url = "http://x/v1"\nmax_concurrent = 3\n{site}'))
    assert cfg.llm.max_concurrent == 3
    assert load_config(write_config(tmp_path, site)).llm.max_concurrent == 1
    for bad in ("0", '"2"'):
        with pytest.raises(ConfigError, match="max_concurrent"):
            load_config(write_config(tmp_path, f'[llm]\nbase_url = "http://x/v1"\nmax_concurrent = {bad}\n{site}'))
