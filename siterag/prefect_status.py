"""The last Prefect flow run of each site, read from a Prefect server when one is configured and answers."""

from __future__ import annotations

from dataclasses import dataclass

import httpx


@dataclass(frozen=True)
class LastRun:
    """When the site's latest flow run started, and the state it is in."""

    start_time: str
    state: str
    flow_run_id: str


def last_runs(site_names: list[str], timeout_s: float = 3.0) -> dict[str, LastRun]:
    """site -> its latest started `site-<name>` flow run; {} when no Prefect API is set or reachable
    (this never starts a temporary server: `siterag status` must stay quick)."""
    from prefect.settings import get_current_settings

    api_url = get_current_settings().api.url
    if not api_url or not site_names:
        return {}
    try:
        if httpx.get(api_url.rstrip("/") + "/health", timeout=timeout_s).status_code != 200:
            return {}
    except httpx.HTTPError:
        return {}

    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        FlowFilter,
        FlowFilterName,
        FlowRunFilter,
        FlowRunFilterName,
        FlowRunFilterStartTime,
    )
    from prefect.client.schemas.sorting import FlowRunSort

    found: dict[str, LastRun] = {}
    try:
        with get_client(sync_client=True) as client:
            for name in site_names:
                runs = client.read_flow_runs(
                    flow_filter=FlowFilter(name=FlowFilterName(any_=["site"])),
                    flow_run_filter=FlowRunFilter(name=FlowRunFilterName(any_=[f"site-{name}"]),
                                                  start_time=FlowRunFilterStartTime(is_null_=False)),
                    sort=FlowRunSort.START_TIME_DESC, limit=1)
                if runs and runs[0].start_time:
                    run = runs[0]
                    found[name] = LastRun(run.start_time.replace(microsecond=0).isoformat(),
                                          run.state_name or "-", str(run.id))
    except Exception:  # noqa: BLE001 - the Prefect column is a bonus; files still give the status
        return found
    return found
