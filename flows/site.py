"""The pipeline of one site, as a Prefect flow that reads like the design:
mirror -> purge + normalize -> extract (+ LLM metadata) -> enrich (machine metadata) -> quality gate
-> chunk + embed + index."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from prefect import flow, get_run_logger
from prefect.artifacts import create_progress_artifact, update_progress_artifact

from siterag import progress as shown_progress
from siterag.config import Config, SiteConfig, load_config
from siterag.enrich.corpus import corpus_paths
from siterag.layout import SiteLayout, sweep_temp_files
from siterag.llm.clients import ensure_embedded
from siterag.llm.limit import ensure_llm_limit
from siterag.lock import claim_site, site_lock
from tasks import (
    Sealed,
    enrich_site_task,
    extract_batch_task,
    index_task,
    links_task,
    mirror_task,
    normalize_task,
    quality_task,
    remove_vanished_task,
    template_task,
)


@flow(name="site", flow_run_name="site-{site_name}", log_prints=True)
def site_flow(site_name: str, config_path: str = "sites.toml") -> dict:
    """Archive one site end to end; returns the run report. One run of a site at a time (siterag/lock.py)."""
    cfg = load_config(config_path)
    site = cfg.site(site_name)
    with site_lock(cfg.data_dir, site.name):
        claim_site(cfg.data_dir, site.name, Path(config_path))
        return _archive(cfg, site)


def _archive(cfg: Config, site: SiteConfig) -> dict:
    layout = SiteLayout(cfg.data_dir, site.name)
    logger = get_run_logger()
    for leftover in sweep_temp_files(layout.mirror, layout.normalized, layout.corpus, layout.logs):
        logger.warning("removed %s, left half-written by a run that was killed", leftover)

    clock = StageClock()
    with clock("mirror"):
        crawl = mirror_task(site, layout)
    with clock("normalize"):
        select, manifest = normalize_task(layout, crawl["seen"], crawl["complete"])
        templates = template_task(layout, manifest)  # lines that recur across the site's pages
    corpus_map = corpus_paths(select.pages)
    removed = remove_vanished_task(layout, sorted(corpus_map.values()))

    if cfg.llm.enabled and (site.extract_mode != "heuristic" or cfg.llm.enrich):
        ensure_embedded(cfg.llm, layout.logs)
        ensure_llm_limit(cfg.llm)  # one cap on LLM requests across all site flows
    pages = select.pages
    progress = create_progress_artifact(progress=0.0, description=f"extract+enrich {site.name}")
    outcomes: list[dict] = []
    starts = range(0, len(pages), cfg.batch_size)
    batches = extract_batches(layout, site, cfg, pages, corpus_map, manifest, templates)
    with clock("extract+enrich"), ExitStack() as stack:
        # The CLI's progress bar (a no-op without one): per page from the tasks in this process, per batch here.
        shown = stack.enter_context(shown_progress.stage(site.name, "extract+enrich", "pages"))
        if pages:
            shown(0, len(pages))
        if cfg.task_runner == "dask" and batches:  # all batches at once on Dask (local or dask_address), in order
            runner = stack.enter_context(dask_runner(cfg.dask_workers, cfg.dask_address))
            futures = [runner.submit(extract_batch_task, parameters=params) for params in batches]
            states = (_wait_state(f) for f in futures)
        else:  # one batch after another in this process (the default)
            states = (extract_batch_task(**params, return_state=True) for params in batches)
        for start, state in zip(starts, states, strict=True):
            outcomes += _batch_outcomes(state)
            done = min(len(pages), start + cfg.batch_size)
            update_progress_artifact(progress, progress=100.0 * done / max(1, len(pages)))
            shown(done, len(pages))
            logger.info("extract+enrich %s: %d/%d pages", site.name, done, len(pages))
    update_progress_artifact(progress, progress=100.0)

    with clock("enrich"):  # machine tags / summary / category: term frequencies need the whole site's corpus
        enriched = enrich_site_task(layout, site, outcomes, cfg.embedder)
    with clock("links"):  # links between documents to the .md files, images to the mirror (after enrich: see docs)
        linked = links_task(layout, site)
    with clock("quality"):
        report = quality_task(layout, outcomes, removed, select, crawl["warnings"])  # crawl warnings in the report
    report["enrich"] = enriched
    report["links"] = linked
    with clock("index"):
        report["index"] = index_task(layout, cfg.embedder, cfg.store)
    # Wall seconds per stage; then page work summed over all workers, and the index stage's parts.
    idx = report["index"]
    # (to the ms: a small site's pages take a few ms in all, which rounding to 0.01 s made 0)
    report["seconds"] = {**clock.seconds, "extract (pages)": round(sum(o.get("extract_s", 0) for o in outcomes), 3),
                         "enrich (pages)": round(sum(o.get("enrich_s", 0) for o in outcomes), 3),
                         "embed ahead (pages)": round(sum(o.get("embed_s", 0) for o in outcomes), 3),
                         "chunk": idx["chunk_s"], "embed": idx["embed_s"], "write": idx["write_s"]}
    report["stage_spans"] = clock.spans
    return report


def extract_batches(layout: SiteLayout, site: SiteConfig, cfg: Config, pages: list[str], corpus_map: dict[str, str],
                    manifest: dict[str, dict], templates: dict[str, list[str]]) -> list[dict]:
    """The parameters of each extract+enrich task: `cfg.batch_size` pages, and only those pages' entries of the
    site's maps (the whole maps in every task made the serialisation grow with the square of the pages), the
    template keys Sealed (not walked by Prefect)."""
    out = []
    for start in range(0, len(pages), cfg.batch_size):
        rels = pages[start:start + cfg.batch_size]
        out.append(dict(layout=layout, site=site, llm=cfg.llm, rels=rels, corpus_map={r: corpus_map[r] for r in rels},
                        manifest={r: manifest[r] for r in rels},
                        templates=Sealed({r: templates.get(r, []) for r in rels}),
                        embedder=cfg.embedder))  # passages embedded ahead of the index, in the extract tasks
    return out


class StageClock:
    """Wall seconds per stage: `with clock("mirror"): ...`."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.spans: dict[str, list[float]] = {}  # stage -> [first start, last end] (epoch s; benchmarks/scale.py)

    @contextmanager
    def __call__(self, stage: str) -> Iterator[None]:
        started = time.monotonic()
        self.spans.setdefault(stage, [time.time(), 0.0])
        try:
            yield
        finally:
            self.seconds[stage] = round(self.seconds.get(stage, 0.0) + time.monotonic() - started, 2)
            self.spans[stage][1] = time.time()


NO_WORKER_PROFILE = {"distributed.worker.profile.enabled": False}  # merged into the workers' Dask config


def dask_runner(workers: int, address: str = ""):  # noqa: ANN201
    """A Prefect task runner on the Dask scheduler at `address` (its workers need this project and the data folder
    at the same path), else on a temporary local Dask cluster of `workers` one-thread worker processes."""
    from prefect_dask import DaskTaskRunner

    if address:
        return DaskTaskRunner(address=address, client_kwargs={"timeout": "20s"})
    # Dask's own sampling profiler (every 10 ms in every worker) is off: ~2% of the workers' CPU, and no
    # dashboard here to show it.
    return DaskTaskRunner(cluster_kwargs={"n_workers": workers, "threads_per_worker": 1, "processes": True,
                                          "dashboard_address": None, "config": NO_WORKER_PROFILE})


def _wait_state(future):  # noqa: ANN001, ANN202
    future.wait()
    return future.state


def _batch_outcomes(state) -> list[dict]:  # noqa: ANN001
    batch = state.result()
    if state.name == "Cached":  # nothing was redone: report the pages as unchanged
        batch = [{**o, "status": "unchanged", "llm_calls": 0, "extract_s": 0.0, "enrich_s": 0.0,
                  "embed_s": 0.0} for o in batch]
    return batch


@flow(name="all-sites", log_prints=True)
def all_sites_flow(config_path: str = "sites.toml", sites: list[str] | None = None) -> dict[str, dict]:
    """Run site_flow for every site of the config (or the named ones), one after another."""
    cfg = load_config(config_path)
    names = sites or [s.name for s in cfg.sites]
    for name in names:
        cfg.site(name)  # fail early on an unknown name
    return {name: site_flow(name, str(Path(config_path))) for name in names}
