"""One Prefect global concurrency limit on LLM requests, shared by every site flow.

Several sites refreshing at once must not flood the one llama-server: each chat request holds one slot of
the limit `siterag-llm` (size `[llm] max_concurrent`) for as long as the HTTP request lasts. Outside a
Prefect flow or task run (unit tests, plain library use) the slot is a no-op, and a Prefect API that cannot
be reached only costs a warning, never a page.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager

from siterag.config import LLMConfig

LIMIT_NAME = "siterag-llm"
log = logging.getLogger("siterag.llm.limit")


def endpoint_limit_name(url: str) -> str:
    """The limit of one endpoint of `[llm] base_urls`: siterag-llm-127-0-0-1-8081-v1 (max_concurrent each)."""
    return f"{LIMIT_NAME}-" + re.sub(r"[^A-Za-z0-9]+", "-", url.split("://", 1)[-1]).strip("-").lower()


def limit_names(config: LLMConfig) -> list[str]:
    """One limit over all requests with one endpoint; one limit per endpoint with several."""
    urls = config.urls()
    return [LIMIT_NAME] if len(urls) == 1 else [endpoint_limit_name(u) for u in urls]


def _logger() -> logging.Logger | logging.LoggerAdapter:
    """The run's logger inside a Prefect run (its lines reach the UI), else this module's."""
    from prefect import get_run_logger
    from prefect.exceptions import MissingContextError

    try:
        return get_run_logger()
    except MissingContextError:
        return log


def _in_prefect_run() -> bool:
    from prefect.context import FlowRunContext, TaskRunContext

    return FlowRunContext.get() is not None or TaskRunContext.get() is not None


def ensure_llm_limit(config: LLMConfig) -> bool:
    """Create the global concurrency limit, or resize it to `config.max_concurrent`; False when the Prefect
    API cannot be reached (the requests then run unlimited)."""
    from prefect.client.orchestration import get_client
    from prefect.exceptions import ObjectAlreadyExists

    try:
        with get_client(sync_client=True) as client:
            for name in limit_names(config):
                try:
                    client.upsert_global_concurrency_limit_by_name(name, config.max_concurrent)
                except ObjectAlreadyExists:  # another flow created it a moment ago: resize it if need be
                    client.upsert_global_concurrency_limit_by_name(name, config.max_concurrent)
                _logger().info("LLM requests over all site flows: at most %d at once (concurrency limit %r)",
                               config.max_concurrent, name)
        return True
    except Exception as exc:  # noqa: BLE001 - any API failure only disables the limit
        _logger().warning("cannot set the Prefect concurrency limit %r (%s); LLM requests are not limited",
                          LIMIT_NAME, exc)
        return False


def endpoint_slot(url: str) -> AbstractContextManager[None]:
    """The slot of one endpoint's own limit (several `[llm] base_urls`)."""
    return llm_slot(endpoint_limit_name(url))


@contextmanager
def llm_slot(name: str = LIMIT_NAME) -> Iterator[None]:
    """Hold one slot of `siterag-llm` (or of limit `name`) while the body runs (one LLM HTTP request)."""
    if not _in_prefect_run():
        yield
        return
    from prefect.concurrency.asyncio import ConcurrencySlotAcquisitionError
    from prefect.concurrency.sync import concurrency

    with ExitStack() as stack:
        try:
            # strict=False: a missing limit is skipped with Prefect's warning instead of failing the page.
            stack.enter_context(concurrency(name, occupy=1, strict=False,
                                            raise_on_lease_renewal_failure=False))
        except (ConcurrencySlotAcquisitionError, OSError) as exc:
            _logger().warning("LLM concurrency slot not acquired (%s); sending the request anyway", exc)
        yield
