"""Hybrid search over the index and `ask`, an answer that cites its pages.

The package is callable: `siterag.search("query", "data", k=5)` is `siterag.search.search_api.search(...)`
(a function of that name in `siterag/__init__.py` would be replaced by this package as soon as one of its modules
is imported)."""

from __future__ import annotations

import sys
import types


class _CallablePackage(types.ModuleType):
    def __call__(self, *args: object, **kwargs: object) -> object:
        from siterag.search.search_api import search

        return search(*args, **kwargs)


def __getattr__(name: str) -> object:  # `from siterag.search import search, Searcher` without importing lancedb
    if name in {"search", "Searcher", "Hit"}:
        from siterag.search import search_api

        return getattr(search_api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


sys.modules[__name__].__class__ = _CallablePackage
