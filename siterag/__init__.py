"""siterag: archive legacy personal websites into a searchable RAG knowledge base."""

__version__ = "0.1.0"


def search(*args, **kwargs):  # noqa: ANN002, ANN003 - thin re-export
    """Hybrid search over the archive; see `siterag.search.search_api.search`."""
    from siterag.search.search_api import search as _search

    return _search(*args, **kwargs)
