"""The last Prefect flow run of each site, read from a Prefect server when one is configured and answers."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

import httpx

LOCAL_SERVER = "http://127.0.0.1:4200/api"  # where `prefect server start` listens by default


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


def configured_api_url() -> str:
    """PREFECT_API_URL from the environment or the active Prefect profile ("" when neither sets it), read without
    importing Prefect (that takes seconds)."""
    if os.environ.get("PREFECT_API_URL"):
        return os.environ["PREFECT_API_URL"]
    home = Path(os.environ.get("PREFECT_HOME") or Path.home() / ".prefect").expanduser()
    path = Path(os.environ.get("PREFECT_PROFILES_PATH") or home / "profiles.toml").expanduser()
    try:
        profiles = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    active = os.environ.get("PREFECT_PROFILE") or profiles.get("active") or "ephemeral"
    profile = (profiles.get("profiles") or {}).get(active) or {}
    url = profile.get("PREFECT_API_URL") if isinstance(profile, dict) else None
    return url if isinstance(url, str) else ""


def server_answers(api_url: str, timeout_s: float = 0.5) -> bool:
    """Whether a Prefect server answers its health check at `api_url` within `timeout_s`."""
    try:
        response = httpx.get(api_url.rstrip("/") + "/health", timeout=timeout_s)
    except httpx.HTTPError:
        return False
    return response.status_code == 200 and response.text.strip() == "true"


def use_running_server(local: str = LOCAL_SERVER, timeout_s: float = 0.5) -> str:
    """Point this process's Prefect at a server already running on this machine (`prefect server start`), so that
    a run does not start a temporary one (15-30 s); set PREFECT_API_URL before Prefect is imported. Returns the URL
    now used ("" = Prefect starts its temporary server). A URL set in the environment or profile is left alone."""
    configured = configured_api_url()
    if configured:
        return configured
    if server_answers(local, timeout_s):
        os.environ["PREFECT_API_URL"] = local
        return local
    return ""
