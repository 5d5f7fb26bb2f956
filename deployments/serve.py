"""`siterag serve`: one deployment per site with the cron from sites.toml, served by this process."""

from __future__ import annotations

from pathlib import Path

from prefect import serve

from flows.site import site_flow
from siterag.config import load_config


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
    """Serve every site's deployment until interrupted (needs a Prefect server, see README)."""
    serve(*site_deployments(config_path))
