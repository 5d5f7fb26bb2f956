"""The pipeline of one site, as a Prefect flow that reads like the design:
mirror -> purge + normalize -> extract + enrich -> quality gate -> chunk + embed + index."""

from __future__ import annotations

from pathlib import Path

from prefect import flow, get_run_logger
from prefect.artifacts import create_progress_artifact, update_progress_artifact

from siterag.config import load_config
from siterag.corpus import corpus_paths
from siterag.layout import SiteLayout
from siterag.llm_clients import ensure_embedded
from tasks import (
    extract_batch_task,
    index_task,
    mirror_task,
    normalize_task,
    quality_task,
    remove_vanished_task,
)


@flow(name="site", flow_run_name="site-{site_name}", log_prints=True)
def site_flow(site_name: str, config_path: str = "sites.toml") -> dict:
    """Archive one site end to end; returns the run report."""
    cfg = load_config(config_path)
    site = cfg.site(site_name)
    layout = SiteLayout(cfg.data_dir, site.name)
    logger = get_run_logger()

    crawl = mirror_task(site, layout)
    select, manifest = normalize_task(layout, crawl["seen"])
    corpus_map = corpus_paths(select.pages)
    removed = remove_vanished_task(layout, sorted(corpus_map.values()))

    if cfg.llm.enabled and (site.extract_mode != "heuristic" or cfg.llm.enrich):
        ensure_embedded(cfg.llm, layout.logs)
    pages = select.pages
    progress = create_progress_artifact(progress=0.0, description=f"extract+enrich {site.name}")
    outcomes: list[dict] = []
    for start in range(0, len(pages), cfg.batch_size):
        rels = pages[start:start + cfg.batch_size]
        state = extract_batch_task(layout, site, cfg.llm, rels, corpus_map, manifest, return_state=True)
        batch = state.result()
        if state.name == "Cached":  # nothing was redone: report the pages as unchanged
            batch = [{**o, "status": "unchanged", "llm_calls": 0} for o in batch]
        outcomes += batch
        done = min(len(pages), start + cfg.batch_size)
        update_progress_artifact(progress, progress=100.0 * done / max(1, len(pages)))
        logger.info("extract+enrich %s: %d/%d pages", site.name, done, len(pages))
    update_progress_artifact(progress, progress=100.0)

    report = quality_task(layout, outcomes, removed, select)
    report["index"] = index_task(layout, cfg.embedder)
    report["mirror_warnings"] = crawl["warnings"] + select.warnings
    return report


@flow(name="all-sites", log_prints=True)
def all_sites_flow(config_path: str = "sites.toml", sites: list[str] | None = None) -> dict[str, dict]:
    """Run site_flow for every site of the config (or the named ones), one after another."""
    cfg = load_config(config_path)
    names = sites or [s.name for s in cfg.sites]
    for name in names:
        cfg.site(name)  # fail early on an unknown name
    return {name: site_flow(name, str(Path(config_path))) for name in names}
