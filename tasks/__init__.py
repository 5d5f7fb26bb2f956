"""Thin Prefect tasks around siterag's stage functions: one module per stage group."""

from tasks.stages import (
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

__all__ = ["Sealed", "mirror_task", "normalize_task", "extract_batch_task", "enrich_site_task", "remove_vanished_task",
           "quality_task", "index_task", "template_task", "links_task"]
