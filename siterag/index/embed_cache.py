"""Embedding cache: each distinct text is embedded once per embedder, across documents, runs and processes.

A site's template text (menus, footers, the same heading on every page) and every unchanged passage of a page
that changed come back as the same text; their vectors are read from a SQLite table under the data folder
(`<data_dir>/cache/embeddings.sqlite`), keyed by (embedder name, SHA-256 of the text). SQLite in WAL mode lets
the flow and its Dask workers read and write it at once; a vector is stored as the embedder returned it
(float32 bytes), so a cached vector is the fresh one, bit for bit.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import astuple
from functools import cache
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


@contextmanager
def best_effort() -> Iterator[None]:
    """A cache write that fails (disk full, a read-only or damaged file) is skipped: the caches save work, nothing
    needs them."""
    try:
        yield
    except sqlite3.Error:
        pass


def open_cache_db(path: Path, create: str) -> sqlite3.Connection:
    """The cache's SQLite file with the table of `create`: WAL mode, so the flow and its Dask workers read and
    write it at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=120, check_same_thread=False)
    try:
        _wal(db)
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(create)
        db.commit()
    except sqlite3.Error:
        db.close()
        raise
    return db


def _wal(db: sqlite3.Connection, tries: int = 600) -> None:
    """Switch `db` to WAL. Switching takes the file for itself, and SQLite answers "database is locked" at once,
    without waiting out the busy timeout, when another process opens the new file just then (two Dask workers
    on a site's first run): wait and try again."""
    for attempt in range(tries):
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == tries - 1:
                raise
            time.sleep(0.05)


class EmbedCache:
    """Vectors by (embedder, text hash) in one SQLite file."""

    def __init__(self, path: str | Path, embedder: str, dim: int) -> None:
        self.path, self.embedder, self.dim = Path(path), embedder, dim
        self._db = open_cache_db(self.path, "CREATE TABLE IF NOT EXISTS vectors (embedder TEXT NOT NULL, key BLOB "
                                            "NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (embedder, key)) "
                                            "WITHOUT ROWID")

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
        """Store vectors (one transaction; a key already there keeps its vector). A write that fails (disk full, a
        read-only file) only leaves them out: the cache saves work, it is never needed."""
        with best_effort():
            self._put(items)

    def _put(self, items: list[tuple[bytes, np.ndarray]]) -> None:
        with self._db:
            self._db.executemany("INSERT OR IGNORE INTO vectors (embedder, key, vector) VALUES (?, ?, ?)",
                                 [(self.embedder, k, np.ascontiguousarray(v, dtype=np.float32).tobytes())
                                  for k, v in items])

    def __len__(self) -> int:
        return self._db.execute("SELECT count(*) FROM vectors WHERE embedder = ?", [self.embedder]).fetchone()[0]

    def close(self) -> None:
        self._db.close()


class ChunkCache:
    """A document's chunks as the extract tasks cut them (to embed its passages ahead of the index), handed to the
    index stage so that it does not cut them again: keyed by `chunks_key` (body, date, index settings, token
    counter), in the embedding cache's SQLite file. The index takes an entry (reads, then deletes it) and drops
    the site's leftovers after a sync, so the table holds only what is on its way to the index."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._db = open_cache_db(self.path, "CREATE TABLE IF NOT EXISTS chunks (key BLOB PRIMARY KEY, site TEXT NOT "
                                            "NULL, chunks BLOB NOT NULL) WITHOUT ROWID")

    def put_many(self, site: str, items: list[tuple[bytes, list]]) -> None:
        """Store chunk lists (siterag.index.chunking.Chunk) by key (one transaction; nothing when it fails)."""
        with best_effort():
            self._put(site, items)

    def _put(self, site: str, items: list[tuple[bytes, list]]) -> None:
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO chunks (key, site, chunks) VALUES (?, ?, ?)",
                                 [(k, site, zlib.compress(json.dumps([astuple(c) for c in chunks],
                                                                     ensure_ascii=False).encode(), 1))
                                  for k, chunks in items])

    def take_many(self, keys: list[bytes]) -> dict[bytes, list]:
        """The chunk lists stored under `keys` (missing ones left out), removed from the table. A cache that cannot
        be read or written gives what it could (the index cuts the rest itself)."""
        try:
            return self._take(keys)
        except sqlite3.Error:
            return {}

    def _take(self, keys: list[bytes]) -> dict[bytes, list]:
        from siterag.index.chunking import Chunk

        found: dict[bytes, list] = {}
        for start in range(0, len(keys), _LOOKUP):
            part = keys[start:start + _LOOKUP]
            marks = ",".join("?" * len(part))
            for key, blob in self._db.execute(f"SELECT key, chunks FROM chunks WHERE key IN ({marks})", part):
                try:
                    found[key] = [Chunk(*row) for row in json.loads(zlib.decompress(blob))]
                except (zlib.error, ValueError, TypeError):
                    continue  # damaged: the index cuts the document itself
            with self._db:
                self._db.execute(f"DELETE FROM chunks WHERE key IN ({marks})", part)
        return found

    def drop_site(self, site: str) -> None:
        """Forget what is left of a site's entries (documents that changed again before their index)."""
        with best_effort(), self._db:  # when it fails: left for the next run's index to take or drop
            self._db.execute("DELETE FROM chunks WHERE site = ?", [site])

    def close(self) -> None:
        self._db.close()


def open_chunk_cache(data_dir: str | Path) -> ChunkCache | None:
    """The data folder's ChunkCache, or None when its file cannot be opened (the index then cuts every document)."""
    try:
        return ChunkCache(cache_path(data_dir))
    except (sqlite3.Error, OSError):
        return None


def chunks_key(body: str, date: str, settings_key: str, counter: str) -> bytes:
    """What a document's chunks depend on: its body and date, the index settings, the token counter and the code
    that cuts them."""
    return hashlib.sha256(json.dumps([body, date, settings_key, counter, _chunking_code()], ensure_ascii=False).encode(
        "utf-8", "surrogatepass")).digest()


@cache
def _chunking_code() -> str:
    from siterag.codehash import code_hash
    from siterag.enrich import dates
    from siterag.index import chunking

    return code_hash(chunking, dates)


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


def warm_cache(data_dir: str | Path, corpus: Path, docs: list[str], embedder_name: str, site: str = "") -> int:
    """Embed the passages of corpus documents `docs` (paths under `corpus`) into the cache, as the index stage
    will chunk and embed them (default index settings): run by the extract tasks, so on Dask the embedding is
    spread over the workers and overlaps extraction; the index stage then reads the vectors. Returns the number
    of texts embedded now. A document that changes before the index stage (enrich keeps title, date and body)
    only misses the cache. `site`: also leave each document's chunks for the index (ChunkCache)."""
    from siterag.enrich.corpus import read_doc
    from siterag.index.chunking import chunk_markdown
    from siterag.index.embedding import get_embedder, token_counter
    from siterag.index.index import DEFAULT_SETTINGS, IndexedDoc, embed_text

    settings = DEFAULT_SETTINGS
    embedder = cached_embedder(get_embedder(embedder_name), data_dir)
    chunk_cache = ChunkCache(cache_path(data_dir)) if site else None
    try:
        count = token_counter(embedder)
        texts: list[str] = []
        cut: list[tuple[bytes, list]] = []
        for rel in docs:
            parsed = read_doc(corpus / rel)
            if parsed is None:
                continue
            fields, body = parsed
            doc = IndexedDoc(doc_id=rel, site="", path=rel, source="", title=str(fields.get("title", "")),
                             category="", tags=[], date=str(fields.get("date") or ""), summary="", content_hash="")
            chunks = chunk_markdown(body, settings.max_tokens, settings.overlap_tokens, count, doc.date)
            cut.append((chunks_key(body, doc.date, settings.key(), counter_name(embedder)), chunks))
            texts += [embed_text(doc, chunk, settings) for chunk in chunks]
        embedder.embed(texts)
        if chunk_cache is not None:
            chunk_cache.put_many(site, cut)
        return embedder.embedded
    finally:
        embedder.cache.close()
        if chunk_cache is not None:
            chunk_cache.close()


def counter_name(embedder: object) -> str:
    """Which token counter cut a document: the embedder's own (by its name) or the approximation."""
    return getattr(embedder, "name", "") if getattr(embedder, "count_tokens", None) else "approx"
