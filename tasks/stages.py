"""Prefect tasks: each wraps one stage function, returns small values (paths, counts), never payloads."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict
from typing import Generic, TypeVar

from prefect import get_run_logger, task
from prefect.artifacts import create_table_artifact
from prefect.cache_policies import CacheKeyFnPolicy
from prefect.runtime import task_run

from siterag import progress
from siterag.acquire.mirror import MirrorError, mirror_site
from siterag.acquire.warc import capture_info
from siterag.codehash import code_hash
from siterag.config import LLMConfig, SiteConfig
from siterag.enrich.corpus import read_doc
from siterag.enrich.enrich import enrich_site, store_page_facts
from siterag.enrich.links import link_site
from siterag.extract.template import site_template
from siterag.index.embed_cache import cached_embedder, open_chunk_cache, warm_cache
from siterag.index.embedding import get_embedder
from siterag.index.index import sync_site
from siterag.index.store import IndexStore
from siterag.layout import SiteLayout, append_log
from siterag.llm.clients import client_for
from siterag.pipeline import (
    MAX_PAGE_BYTES,
    PageOutcome,
    SelectResult,
    corpus_source,
    known_pages,
    moved_capture,
    normalize_pages,
    original_url,
    page_stats,
    process_batch,
    quality_report,
    remove_vanished,
    retry_due,
    select_pages,
)

T = TypeVar("T")


class Sealed(Generic[T]):
    """A task parameter Prefect hands over as it is. Prefect walks every item of a task's parameters several times
    per run, looking for futures: for the site template's keys of a batch's pages (thousands of strings) that was
    ~0.1 s of the flow's CPU per batch, all the while the workers need it. Picklable, so it travels to Dask."""

    __slots__ = ("value",)

    def __init__(self, value: T) -> None:
        self.value = value

    def __getstate__(self) -> T:
        return self.value

    def __setstate__(self, value: T) -> None:
        self.value = value


def unsealed(value: Sealed[T] | T) -> T:
    return value.value if isinstance(value, Sealed) else value


def mirror_may_heal(task, task_run, state) -> bool:  # noqa: ANN001
    """Retry the mirror only when trying again can help: not after an unknown host, a closed port, a 4xx start
    page or a bad wget option (MirrorError.retryable is False)."""
    try:
        state.result()
    except MirrorError as exc:
        return exc.retryable
    except Exception:  # noqa: BLE001 - anything else: retry as before
        return True
    return True


@task(name="mirror", retries=2, retry_delay_seconds=10, retry_condition_fn=mirror_may_heal)
def mirror_task(site: SiteConfig, layout: SiteLayout) -> dict:
    """wget (or local copy) into data/mirror/<site>/; returns the crawl's seen paths and warnings."""
    result = mirror_site(site, layout.mirror, layout.logs)
    logger = get_run_logger()
    for warning in result.warnings:
        logger.warning(warning)
    logger.info("mirror: %d files reached (exit %s)", len(result.seen), result.exit_code)
    return {"seen": sorted(result.seen), "warnings": result.warnings, "exit_code": result.exit_code,
            "complete": result.complete}


@task(name="purge+normalize")
def normalize_task(layout: SiteLayout, seen: list[str], complete: bool = True) -> tuple[SelectResult, dict[str, dict]]:
    """Purge binaries (by content), then write UTF-8 copies into data/normalized/<site>/.

    After an incomplete crawl (host down, time limit, quota) the pages are the last run's plus what this crawl
    reached: none removed because the crawl missed it, none that an earlier crawl found gone brought back."""
    keep = set(seen) if complete and seen else (set(seen) | known_pages(layout.normalized)) or None
    select = select_pages(layout.mirror, layout.logs, keep)
    manifest = normalize_pages(layout.mirror, layout.normalized, select.pages, capture_info(layout.logs))
    select.warnings += [f"{rel} is {info['truncated_from']:,} bytes: only the first {MAX_PAGE_BYTES:,} are kept"
                        for rel, info in sorted(manifest.items()) if info.get("truncated_from")]
    get_run_logger().info("normalize: %d pages, %d binaries purged, %d stale pages left out",
                          len(select.pages), len(select.binaries), len(select.stale))
    return select, manifest


@task(name="site-template")
def template_task(layout: SiteLayout, manifest: dict[str, dict]) -> dict[str, list[str]]:
    """The site's template: per page, the keys of the lines on it that recur across the site's pages."""
    templates = site_template(layout.normalized, manifest)
    lines = {k for keys in templates.values() for k in keys}
    get_run_logger().info("site template: %d recurring lines over %d pages", len(lines), len(templates))
    return templates


def batch_cache_key(context, parameters: dict) -> str | None:  # noqa: ANN001
    """Cache key of an extract batch: page hashes + stage config + code; None (no cache) when any
    output is missing, was made from other page content, or holds an LLM fallback that should be retried."""
    layout: SiteLayout = parameters["layout"]
    llm: LLMConfig = parameters["llm"]
    corpus_map: dict[str, str] = parameters["corpus_map"]
    site: SiteConfig = parameters["site"]
    hashes = []
    for rel in parameters["rels"]:
        parsed = read_doc(layout.corpus / corpus_map[rel])
        if parsed is None:
            return None
        fields = parsed[0]
        page_hash = parameters["manifest"][rel]["hash"]
        # A page that changed back to content seen before must not hit that old cache entry.
        if fields.get("content_hash") != page_hash or (llm.enabled and retry_due(fields)) or \
                moved_capture(fields, {**parameters["manifest"][rel],
                                       "url": original_url(site, rel, parameters["manifest"][rel], layout.logs)}):
            return None
        hashes.append((rel, corpus_map[rel], page_hash))
    from siterag import pipeline
    from siterag.enrich import dates, metadata
    from siterag.extract import blocks, chrome, extract, heuristics, template

    code = [code_hash(m) for m in (extract, heuristics, blocks, metadata, pipeline, chrome, template, dates)]
    stage = [site.name, site.origin, site.extract_mode, llm.model, llm.enrich, llm.enabled, llm.context_tokens]
    templates = unsealed(parameters.get("templates")) or {}
    page_templates = [pipeline.template_key(templates.get(rel)) for rel in parameters["rels"]]
    raw = json.dumps([hashes, stage, code, str(layout.data_dir), page_templates], sort_keys=True)
    return "extract-" + hashlib.sha256(raw.encode()).hexdigest()


@task(name="extract+enrich", cache_policy=CacheKeyFnPolicy(cache_key_fn=batch_cache_key), persist_result=True,
      retries=1, retry_delay_seconds=5)
def extract_batch_task(layout: SiteLayout, site: SiteConfig, llm: LLMConfig, rels: list[str],
                       corpus_map: dict[str, str], manifest: dict[str, dict],
                       templates: Sealed[dict[str, list[str]]] | dict[str, list[str]] | None = None,
                       embedder: str = "") -> list[dict]:
    """Extract + enrich a batch of pages into corpus files; up-to-date pages are not redone.
    `templates`: per page, the keys of the site's template lines on it (template_task; Sealed or not). `embedder`:
    also embed the new documents' passages into the embedding cache (on Dask: spread over the workers, the index
    reads them)."""
    templates = unsealed(templates)
    logger = get_run_logger()
    client = client_for(llm) if llm.enabled else None
    batch_manifest = {rel: manifest[rel] for rel in rels}
    outcomes = []
    for rel in rels:  # page by page (as process_batch does), so a progress bar in this process moves per page
        outcomes += process_batch(layout, site, [rel], corpus_map, batch_manifest, client, llm.enrich, llm.model,
                                  log=logger.warning, templates=templates)
        progress.advance(1)
    done = [o.corpus for o in outcomes if o.status in ("new", "changed") and o.corpus]
    store_page_facts(layout, done)  # the enrich site pass's per-page part, here on the workers
    if embedder and done:
        started = time.perf_counter()
        try:
            warm_cache(layout.data_dir, layout.corpus, done, embedder, layout.site)
        except Exception as exc:  # noqa: BLE001 - only a head start: the index stage embeds whatever is missing
            logger.warning("passages not embedded ahead of the index: %s", exc)
        share = round((time.perf_counter() - started) / len(done), 4)
        for o in outcomes:
            if o.corpus in done:
                o.embed_s = share
    return [asdict(o) for o in outcomes]


@task(name="enrich")
def enrich_site_task(layout: SiteLayout, site: SiteConfig, outcomes: list[dict], embedder_name: str) -> dict:
    """Machine tags / summary / category for the documents new or changed in this run (and any still missing
    them), with document frequencies over the whole site; other documents are not rewritten."""
    touched = {o["corpus"] for o in outcomes if o.get("status") in ("new", "changed") and o.get("corpus")}
    with progress.stage(layout.site, "enrich", "docs") as shown:
        stats = enrich_site(layout, site, touched, embedder_name, progress=shown)
    get_run_logger().info("enrich: machine metadata for %d of %d documents (%d rewritten) in %.1f s",
                          stats["enriched"], stats["documents"], stats["rewritten"], stats["seconds"])
    return stats


@task(name="links")
def links_task(layout: SiteLayout, site: SiteConfig) -> dict:
    """The corpus's links between documents rewritten to the `.md` files, its images and files to the mirror's
    (siterag.enrich.links): a site pass, since a link's target depends on which pages have a document."""
    stats = link_site(layout, site)
    get_run_logger().info("links: %d of %d documents rewritten (%d edited by hand, left alone)", stats["rewritten"],
                          stats["documents"], stats["edited_by_hand"])
    return stats


@task(name="remove-vanished")
def remove_vanished_task(layout: SiteLayout, keep: list[str]) -> list[str]:
    """Drop corpus documents whose pages left the site (the mirror keeps them)."""
    return remove_vanished(layout, set(keep))


@task(name="quality-gate")
def quality_task(layout: SiteLayout, outcomes: list[dict], removed: list[str], select: SelectResult,
                 crawl_warnings: list[str] | None = None, page_chars: dict[str, dict] | None = None) -> dict:
    """Run the gate, write error.log and the report, and publish it as a table artifact.
    `page_chars`: page -> {"visible", "content"} characters, for the short / lost_content checks."""
    pages = [PageOutcome(**o) for o in outcomes]
    if page_chars is None:  # this run's figures for the pages extracted now, the last run's for the others
        page_chars = page_stats(layout, pages)
    report = quality_report(layout, pages, removed, select, crawl_warnings, page_chars)
    rows = [{"measure": k, "value": v if not isinstance(v, list) else len(v)}
            for k, v in report.items() if k not in ("problems", "skipped_pages", "short_pages", "finished_at")]
    create_table_artifact(key=f"quality-{layout.site}".lower().replace("_", "-").replace(".", "-"), table=rows,
                          description=f"Quality report for {layout.site}")
    if report["lost_content"]:
        get_run_logger().warning("%d pages lost content in extraction (see %s)", report["lost_content"],
                                 layout.logs / "error.log")
    return report


@task(name="chunk+embed+index", retries=1, retry_delay_seconds=5)
def index_task(layout: SiteLayout, embedder_name: str, store: IndexStore) -> dict:
    """Chunk and embed new/changed documents into the index (data/lancedb/ or object storage); remove vanished ones."""
    # Each distinct text is embedded once across documents and runs (template passages once per site).
    embedder = cached_embedder(get_embedder(embedder_name), layout.data_dir)
    problems: list[str] = []  # hand-edited fields of the wrong kind (read as the nearest right value)
    docs = corpus_source(layout, layout.site, problems)  # streamed: one batch of bodies in memory at a time
    chunk_cache = open_chunk_cache(layout.data_dir)  # the documents the extract tasks already cut
    done = False
    try:
        with progress.stage(layout.site, "index", "docs") as shown:
            stats = sync_site(store, layout.site, docs, embedder, progress=shown, chunk_cache=chunk_cache)
        if chunk_cache is not None:
            chunk_cache.drop_site(layout.site)  # what the index did not take: documents that changed again
        done = True
    finally:
        embedder.cache.close()
        if chunk_cache is not None:
            chunk_cache.close()
        # Found as sync_site read the corpus; written once: a failed try that will be retried finds them again.
        if done or task_run.run_count > (index_task.retries or 0):
            for problem in problems:
                get_run_logger().warning("corpus: %s", problem)
                append_log(layout.logs / "error.log", f"[!] Corpus: {problem}")
    get_run_logger().info("index: %d docs upserted (%d chunks), %d unchanged, %d removed",
                          len(stats.upserted), stats.chunks, stats.unchanged, len(stats.removed))
    return {"warnings": problems, "upserted": len(stats.upserted), "chunks": stats.chunks, "unchanged": stats.unchanged,
            "removed": len(stats.removed), "embed_calls": stats.embed_calls, "chunk_s": round(stats.chunk_s, 2),
            "embed_s": round(stats.embed_s, 2), "write_s": round(stats.write_s, 2),
            "texts_embedded": embedder.embedded, "texts_indexed": embedder.requested}
