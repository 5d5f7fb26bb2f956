"""Embedding cache: each distinct text is embedded once per embedder, across documents, runs and processes.

A site's template text (menus, footers, the same heading on every page) and every unchanged passage of a page
that changed come back as the same text; their vectors are read from a SQLite table under the data folder
(`<data_dir>/cache/embeddings.sqlite`), keyed by (embedder name, SHA-256 of the text). SQLite in WAL mode lets
the flow and its Dask workers read and write it at once; a vector is stored as the embedder returned it
(float32 bytes), so a cached vector is the fresh one, bit for bit.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from pathlib import Path

import numpy as np

CACHE_FILE = Path("cache") / "embeddings.sqlite"
_LOOKUP = 500  # keys per SELECT (SQLite's variable limit is 32,766; small statements stay quick)


def cache_path(data_dir: str | Path) -> Path:
    """Where a data folder keeps its embedding cache."""
    return Path(data_dir) / CACHE_FILE


def text_key(text: str) -> bytes:
    """The cache key of a text: its SHA-256 (32 bytes)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class EmbedCache:
    """Vectors by (embedder, text hash) in one SQLite file."""

    def __init__(self, path: str | Path, embedder: str, dim: int) -> None:
        self.path, self.embedder, self.dim = Path(path), embedder, dim
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=120, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (embedder TEXT NOT NULL, key BLOB NOT NULL, "
                         "vector BLOB NOT NULL, PRIMARY KEY (embedder, key)) WITHOUT ROWID")
        self._db.commit()

    def get_many(self, keys: list[bytes]) -> dict[bytes, np.ndarray]:
        """The cached vectors of `keys` (missing keys are left out)."""
        found: dict[bytes, np.ndarray] = {}
        for start in range(0, len(keys), _LOOKUP):
            part = keys[start:start + _LOOKUP]
            rows = self._db.execute(f"SELECT key, vector FROM vectors WHERE embedder = ? AND key IN "
                                    f"({','.join('?' * len(part))})", [self.embedder, *part])
            for key, blob in rows:
                vector = np.frombuffer(blob, dtype=np.float32)
                if vector.shape == (self.dim,):
                    found[key] = vector
        return found

    def put_many(self, items: list[tuple[bytes, np.ndarray]]) -> None:
        """Store vectors (one transaction; a key already there keeps its vector)."""
        with self._db:
            self._db.executemany("INSERT OR IGNORE INTO vectors (embedder, key, vector) VALUES (?, ?, ?)",
                                 [(self.embedder, k, np.ascontiguousarray(v, dtype=np.float32).tobytes())
                                  for k, v in items])

    def __len__(self) -> int:
        return self._db.execute("SELECT count(*) FROM vectors WHERE embedder = ?", [self.embedder]).fetchone()[0]

    def close(self) -> None:
        self._db.close()


class CachedEmbedder:
    """An embedder (name, dim, embed) that computes only texts it has not seen: repeats within a call and texts
    in the cache are not embedded again. Everything else (count_tokens, calls) is the wrapped embedder's.

    Counters: `requested` texts asked for, `embedded` texts the wrapped embedder computed, `embed_s` its seconds."""

    def __init__(self, embedder: object, cache: EmbedCache) -> None:
        self.inner, self.cache = embedder, cache
        self.name, self.dim = embedder.name, embedder.dim
        self.requested = self.embedded = 0
        self.embed_s = 0.0

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        keys = [text_key(t) for t in texts]
        found = self.cache.get_many(list(dict.fromkeys(keys)))
        todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in found}  # distinct, in order
        if todo:
            started = time.perf_counter()
            vectors = np.asarray(self.inner.embed(list(todo.values())), dtype=np.float32)
            self.embed_s += time.perf_counter() - started
            self.embedded += len(todo)
            fresh = list(zip(todo, vectors, strict=True))
            self.cache.put_many(fresh)
            found.update(fresh)
        self.requested += len(texts)
        for i, key in enumerate(keys):
            out[i] = found[key]
        return out


def cached_embedder(embedder: object, data_dir: str | Path) -> CachedEmbedder:
    """`embedder` with the embedding cache of `data_dir`."""
    return CachedEmbedder(embedder, EmbedCache(cache_path(data_dir), embedder.name, embedder.dim))


def warm_cache(data_dir: str | Path, corpus: Path, docs: list[str], embedder_name: str) -> int:
    """Embed the passages of corpus documents `docs` (paths under `corpus`) into the cache, as the index stage
    will chunk and embed them (default index settings): run by the extract tasks, so on Dask the embedding is
    spread over the workers and overlaps extraction; the index stage then reads the vectors. Returns the number
    of texts embedded now. A document that changes before the index stage (enrich keeps title, date and body)
    only misses the cache."""
    from siterag.enrich.corpus import read_doc
    from siterag.index.chunking import chunk_markdown
    from siterag.index.embedding import get_embedder, token_counter
    from siterag.index.index import DEFAULT_SETTINGS, IndexedDoc, embed_text

    settings = DEFAULT_SETTINGS
    embedder = cached_embedder(get_embedder(embedder_name), data_dir)
    try:
        count = token_counter(embedder)
        texts: list[str] = []
        for rel in docs:
            parsed = read_doc(corpus / rel)
            if parsed is None:
                continue
            fields, body = parsed
            doc = IndexedDoc(doc_id=rel, site="", path=rel, source="", title=str(fields.get("title", "")),
                             category="", tags=[], date=str(fields.get("date") or ""), summary="", content_hash="")
            for chunk in chunk_markdown(body, settings.max_tokens, settings.overlap_tokens, count, doc.date):
                texts.append(embed_text(doc, chunk, settings))
        embedder.embed(texts)
        return embedder.embedded
    finally:
        embedder.cache.close()
