"""`siterag serve`: one deployment per site with the cron from sites.toml, served by this process."""

from __future__ import annotations

import sys
from pathlib import Path

from prefect import serve
from prefect.settings import get_current_settings

from flows.site import site_flow
from siterag.config import load_config
from siterag.llm.limit import ensure_llm_limit


def site_deployments(config_path: str | Path) -> list:
    """A RunnerDeployment per site: refresh on the site's cron schedule."""
    cfg = load_config(config_path)
    path = str(Path(config_path).resolve())
    return [
        site_flow.to_deployment(name=f"refresh-{site.name}", cron=site.schedule,
                                parameters={"site_name": site.name, "config_path": path},
                                tags=["siterag", site.name], description=f"Incremental refresh of {site.name}")
        for site in cfg.sites
    ]


def serve_sites(config_path: str | Path) -> None:
    """Serve every site's deployment until interrupted (needs a Prefect server, see README); the site
    flows run as subprocesses, at the same time when their schedules meet, and share one LLM limit."""
    cfg = load_config(config_path)
    if not get_current_settings().api.url:
        print("siterag: warning: PREFECT_API_URL is not set, so the deployments live in a temporary server that "
              "ends with this process; run `prefect server start` and export "
              "PREFECT_API_URL=http://127.0.0.1:4200/api", file=sys.stderr)
    if cfg.llm.enabled:
        ensure_llm_limit(cfg.llm)  # visible under Concurrency in the UI before the first run
    serve(*site_deployments(config_path))


if __name__ == "__main__":  # python -m deployments.serve [sites.toml]
    serve_sites(sys.argv[1] if len(sys.argv) > 1 else "sites.toml")
