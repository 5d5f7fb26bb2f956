"""siterag: archive legacy personal websites into a searchable RAG knowledge base.

`siterag.search("query", "data", site=..., k=5)` searches an archive (the `siterag.search` package is callable)."""

from __future__ import annotations

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    if name == "search":  # imported when first used: the package is light, lancedb comes with the first search
        import siterag.search

        return siterag.search
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
