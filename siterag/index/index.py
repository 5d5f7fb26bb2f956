"""Stage 7c: the LanceDB store: a `documents` table (title+summary vectors) and a `chunks` table.

Each site owns its rows (`doc_id` = `<site>/<corpus path>`): syncing one site upserts, replaces and deletes
only rows of that site's documents, and tables are created with stable row ids, so another site's rows keep
their row id and version (`_row_last_updated_at_version`) — tests/index/test_index_search.py checks it.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from siterag.index.chunking import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_OVERLAP_TOKENS,
    Chunk,
    approx_tokens,
    chunk_markdown,
    plain_text,
)
from siterag.index.embed_cache import ChunkCache, chunks_key, counter_name
from siterag.index.embedding import token_counter
from siterag.index.store import IndexStore, IndexStoreError, index_problem, is_damage, lance_errors, lance_message

if TYPE_CHECKING:  # lancedb is imported where a table is opened: the extract workers use this module's records only
    import lancedb

DOCS = "documents"
CHUNKS = "chunks"
BATCH = 64  # changed documents read, chunked, embedded and written together (the most alive at once)

@dataclass(frozen=True)
class IndexSettings:
    """How documents become rows; part of each row's hash, so a change re-embeds on the next sync."""

    max_tokens: int = DEFAULT_MAX_TOKENS
    overlap_tokens: int = DEFAULT_OVERLAP_TOKENS
    # Document vector text = title + summary + the first `lead_tokens` tokens of the body, so "Universal Design of
    # Digital City" x 100 stay apart and a page's opening facts count even when its summary (sentences the machine
    # chose for a reader) passes them by.
    lead_tokens: int = 64
    lead_with_summary: bool = True
    stem: bool = True  # English stemming in the full-text index (ICU leaves Japanese words as they are)
    embed_plain: bool = True  # embed the passage as plain text (no image/link targets, table pipes, fences)

    def key(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:12]


DEFAULT_SETTINGS = IndexSettings()


def _schema(dim: int, chunk: bool) -> pa.Schema:
    fields = [
        pa.field("id", pa.string()), pa.field("doc_id", pa.string()), pa.field("site", pa.string()),
        pa.field("path", pa.string()), pa.field("source", pa.string()), pa.field("title", pa.string()),
        pa.field("category", pa.string()), pa.field("tags", pa.list_(pa.string())),
        pa.field("date", pa.string()), pa.field("content_hash", pa.string()),
    ]
    if chunk:
        fields += [pa.field("chunk_no", pa.int32()), pa.field("heading", pa.string())]
    else:
        fields += [pa.field("summary", pa.string())]
    fields += [pa.field("text", pa.string()), pa.field("vector", pa.list_(pa.float32(), dim))]
    return pa.schema(fields)


@dataclass
class IndexedDoc:
    """A corpus document ready for the index: give `body` (chunked only if the document changed) or `chunks`.

    `date` is the document's; a chunk row's date is its chunk's (its diary entry's), else the document's."""

    doc_id: str
    site: str
    path: str
    source: str
    title: str
    category: str
    tags: list[str]
    date: str
    summary: str
    content_hash: str
    chunks: list[Chunk] = field(default_factory=list)
    body: str = ""


@dataclass(frozen=True)
class DocHead:
    """What decides whether a document changed: all sync_site keeps of every document (its first pass)."""

    doc_id: str
    content_hash: str
    date: str
    has_body: bool  # text to index: chunks given, or a body that is not blank


def doc_head(doc: IndexedDoc) -> DocHead:
    """The head of a document."""
    return DocHead(doc.doc_id, doc.content_hash, doc.date, bool(doc.chunks or doc.body.strip()))


@runtime_checkable
class DocSource(Protocol):
    """Documents read in two passes: `heads()` of every document (to find what changed), then `load(ids)` of the
    changed ones, a batch at a time, so at most one batch of bodies, chunks and vectors is alive at once."""

    def heads(self) -> Iterable[DocHead]: ...

    def load(self, doc_ids: Sequence[str]) -> Iterable[IndexedDoc]: ...


class DocList:
    """A DocSource over documents given whole (a list or any iterable of IndexedDoc, held as a list)."""

    def __init__(self, docs: Iterable[IndexedDoc]) -> None:
        self.docs = list(docs)
        self._by_id = {d.doc_id: d for d in self.docs}

    def heads(self) -> Iterator[DocHead]:
        return (doc_head(d) for d in self.docs)

    def load(self, doc_ids: Sequence[str]) -> list[IndexedDoc]:
        return [self._by_id[i] for i in doc_ids if i in self._by_id]


def chunk_heading(chunk: Chunk) -> str:
    """A chunk row's `heading`: the chunk's heading path, then its diary entry's anchor `{#2003-06-29}` (the
    entry's title is the path's date heading; its date the row's `date`)."""
    return chunk.heading + (f" {{#{chunk.anchor}}}" if chunk.anchor else "")


def stored_hash(content_hash: str, date: str, settings_key: str) -> str:
    """The hash a row stores: the document's hash, its date and the settings' key. The date is part of it: a page
    whose date changed is rewritten (its chunks are dated anew); rows written before chunks had dates of their
    own ("hash:key") are rewritten once."""
    return f"{content_hash}@{date}:{settings_key}"


@dataclass
class IndexStats:
    """What one sync changed."""

    upserted: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    chunks: int = 0
    embed_calls: int = 0
    chunk_s: float = 0.0  # seconds: splitting changed documents into passages
    embed_s: float = 0.0  # seconds: the embedder
    write_s: float = 0.0  # seconds: LanceDB upserts, deletes and the full-text/vector indexes


def _q(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def table_names(db: lancedb.DBConnection) -> set[str]:
    """Names of the tables in a LanceDB database."""
    return set(db.list_tables().tables) if hasattr(db, "list_tables") else set(db.table_names())


def connect(where: str | Path | IndexStore) -> lancedb.DBConnection:
    """The database (a folder or an object-store URI); tables it creates get stable row ids (kept through
    updates of other rows and compaction)."""
    return IndexStore.at(where).connect()


def open_tables(where: str | Path | IndexStore, dim: int) -> tuple[lancedb.table.Table, lancedb.table.Table]:
    """Open (creating if needed) the documents and chunks tables."""
    db = connect(where)
    names = table_names(db)
    docs = db.open_table(DOCS) if DOCS in names else db.create_table(DOCS, schema=_schema(dim, False))
    chunks = db.open_table(CHUNKS) if CHUNKS in names else db.create_table(CHUNKS, schema=_schema(dim, True))
    return docs, chunks


def indexed_hashes(docs_table: lancedb.table.Table, site: str) -> dict[str, str]:
    """doc_id -> stored hash (document hash + settings key) of what the index holds for one site."""
    return {r["doc_id"]: r["content_hash"] for r in _site_rows(docs_table, site, ["doc_id", "content_hash"])}


def _site_rows(table: lancedb.table.Table, site: str, columns: list[str]) -> list[dict]:
    return table.search().where(f"site = {_q(site)}").select(columns).limit(None).to_arrow().to_pylist()


@dataclass
class SiteRows:
    """What the index holds for one site: document rows and chunk rows per doc_id."""

    docs: dict[str, list[str]] = field(default_factory=dict)  # doc_id -> stored hash of each documents row
    chunks: dict[str, list[tuple[str, str, int]]] = field(default_factory=dict)  # doc_id -> (id, hash, chunk_no)

    def intact(self, doc_id: str, stored: str, with_chunks: bool) -> bool:
        """One documents row and a whole set of chunk rows (ids 0..n-1, once each), all with the `stored` hash."""
        chunks = self.chunks.get(doc_id, [])
        numbers = sorted(no for _, _, no in chunks)
        return (self.docs.get(doc_id) == [stored] and all(h == stored for _, h, _ in chunks)
                and len({i for i, _, _ in chunks}) == len(chunks) and numbers == list(range(len(chunks)))
                and bool(chunks) == with_chunks)

    def doubled(self, doc_id: str) -> bool:
        """More than one row for the document or for one of its chunk ids (left by runs racing each other)."""
        chunks = self.chunks.get(doc_id, [])
        return len(self.docs.get(doc_id, [])) > 1 or len({i for i, _, _ in chunks}) < len(chunks)


def site_rows(docs_table: lancedb.table.Table, chunks_table: lancedb.table.Table, site: str) -> SiteRows:
    """Every row of `site` in both tables (so a lost or doubled chunk is seen, not only a changed document)."""
    rows = SiteRows()
    for r in _site_rows(docs_table, site, ["doc_id", "content_hash"]):
        rows.docs.setdefault(r["doc_id"], []).append(r["content_hash"])
    for r in _site_rows(chunks_table, site, ["id", "doc_id", "content_hash", "chunk_no"]):
        rows.chunks.setdefault(r["doc_id"], []).append((r["id"], r["content_hash"], r["chunk_no"]))
    return rows


def _base(doc: IndexedDoc, stored_hash: str) -> dict:
    return {"doc_id": doc.doc_id, "site": doc.site, "path": doc.path, "source": doc.source, "title": doc.title,
            "category": doc.category, "tags": doc.tags, "date": doc.date, "content_hash": stored_hash}


def doc_text(doc: IndexedDoc, settings: IndexSettings, count_tokens: Callable[[str], int] | None = None) -> str:
    """What the document vector and the documents full-text index see: title + summary + the body's lead."""
    if settings.lead_tokens <= 0 or (doc.summary.strip() and not settings.lead_with_summary):
        return f"{doc.title}\n{doc.summary}".strip()
    lead = ""
    for chunk in doc.chunks:
        lead = (lead + " " + plain_text(chunk.text)).strip()
        if len(lead) > settings.lead_tokens * 4:
            break
    count = count_tokens or approx_tokens
    while lead and count(lead) > settings.lead_tokens:
        lead = lead[: int(len(lead) * 0.85)]
    return "\n".join(part for part in (doc.title, doc.summary.strip(), lead) if part)


# A link's or image's destination inside the archive (no scheme): `](../../mirror/site/img/a.gif "alt")`.
_LOCAL_TARGET_RE = re.compile(r'\]\((?![A-Za-z][A-Za-z0-9+.-]*:|//)(?:[^()\s]|\([^()\s]*\))*((?:\s+"[^"]*")?)\)')


def chunk_text(doc: IndexedDoc, chunk: Chunk) -> str:
    """A chunk as embedded and full-text indexed: `title > heading` on the first line, then the passage. Links
    inside the archive lose their destination (`[日記]()`, `![]( "alt")`): the corpus's `../../mirror/<site>/…`
    paths (siterag.enrich.links) would make `mirror` and the site's name words of every passage with an image."""
    text = f"{doc.title} > {chunk.heading}\n{chunk.text}" if chunk.heading else f"{doc.title}\n{chunk.text}"
    return _LOCAL_TARGET_RE.sub(r"](\1)", text)


def embed_text(doc: IndexedDoc, chunk: Chunk, settings: IndexSettings) -> str:
    """What the chunk's vector is computed from: its first line (title > heading) and its text."""
    if not settings.embed_plain:
        return chunk_text(doc, chunk)
    head = f"{doc.title} > {chunk.heading}" if chunk.heading else doc.title
    return f"{head}\n{plain_text(chunk.text)}"


def sync_site(where: str | Path | IndexStore, site: str, docs: Iterable[IndexedDoc] | DocSource,
              embedder,  # noqa: ANN001
              settings: IndexSettings = DEFAULT_SETTINGS,
              progress: Callable[[int, int], None] | None = None, force: bool = False,
              chunk_cache: ChunkCache | None = None) -> IndexStats:
    """Make the index hold exactly `docs` for `site`: embed only new/changed docs, drop vanished ones.
    `docs`: IndexedDocs, or a DocSource (e.g. pipeline.corpus_source) that keeps only one batch of bodies in memory.
    A document is unchanged only when both tables hold it whole and once (a lost `chunks` table, or rows doubled
    by runs racing each other, are rewritten); `force`: rewrite every document (reindex).
    `progress(done, total)`: called as the new/changed documents are chunked + embedded + written.
    `chunk_cache`: chunks the extract tasks already cut (taken from it instead of cutting them again).
    A damaged table or a failed write (disk full) raises IndexStoreError (one line, no traceback)."""
    store = IndexStore.at(where)
    with lance_errors(store, "read"):
        docs_table, chunks_table = open_tables(store, embedder.dim)
        have = site_rows(docs_table, chunks_table, site)
    with lance_errors(store, "write"):
        source = docs if isinstance(docs, DocSource) else DocList(docs)
        stats = _sync(docs_table, chunks_table, have, source, embedder, settings, progress, force, chunk_cache)
        if stats.upserted or stats.removed:
            tidy(docs_table, chunks_table)
    return stats


def _sync(docs_table: lancedb.table.Table, chunks_table: lancedb.table.Table, have: SiteRows, source: DocSource,
          embedder, settings: IndexSettings, progress: Callable[[int, int], None] | None,  # noqa: ANN001
          force: bool, chunk_cache: ChunkCache | None = None) -> IndexStats:
    stats = IndexStats()
    key = settings.key()
    wanted: set[str] = set()
    changed: list[str] = []
    for head in source.heads():  # first pass: per document only its id (and whether it changed)
        wanted.add(head.doc_id)
        if force or not have.intact(head.doc_id, stored_hash(head.content_hash, head.date, key), head.has_body):
            changed.append(head.doc_id)
        else:
            stats.unchanged += 1
    stats.removed = sorted((set(have.docs) | set(have.chunks)) - wanted)
    doubled = [i for i in changed if have.doubled(i)]
    # documents with no row in either table once the doubled ones are deleted: their rows are appended
    absent = {i for i in changed if i not in have.docs and i not in have.chunks} | set(doubled)
    for start in range(0, len(doubled), 200):  # an upsert would keep both copies: delete them, write one
        ids = ", ".join(_q(i) for i in doubled[start:start + 200])
        docs_table.delete(f"doc_id IN ({ids})")
        chunks_table.delete(f"doc_id IN ({ids})")
    count = token_counter(embedder)
    if progress and changed:
        progress(0, len(changed))
    for start in range(0, len(changed), BATCH):  # second pass: read, chunk, embed and write a batch at a time
        # (no name here holds the batch: it is released before the next one is read)
        _write_batch(docs_table, chunks_table, list(source.load(changed[start:start + BATCH])), embedder, settings,
                     count, stats, chunk_cache, absent)
        if progress:
            progress(len(stats.upserted), len(changed))
    clock = time.perf_counter()
    for start in range(0, len(stats.removed), 200):
        ids = ", ".join(_q(i) for i in stats.removed[start:start + 200])
        docs_table.delete(f"doc_id IN ({ids})")
        chunks_table.delete(f"doc_id IN ({ids})")
    if changed or stats.removed:
        build_fts(docs_table, chunks_table, settings)
        ensure_vector_index(chunks_table)
    stats.write_s += time.perf_counter() - clock
    return stats


def rows_table(rows: list[dict], vectors: np.ndarray, schema: pa.Schema) -> pa.Table:
    """Rows (all fields but `vector`) and their vectors as a table of `schema`; the vectors go from numpy into
    Arrow as they are (as Python floats, a batch's 512-d vectors took tens of MB and most of the conversion)."""
    at = schema.get_field_index("vector")
    table = pa.Table.from_pylist(rows, schema=schema.remove(at))
    dim = schema.field("vector").type.list_size
    flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1), type=pa.float32())
    return table.add_column(at, schema.field("vector"), pa.FixedSizeListArray.from_arrays(flat, dim))


def _write_batch(docs_table: lancedb.table.Table, chunks_table: lancedb.table.Table, batch: list[IndexedDoc],
                 embedder, settings: IndexSettings, count: Callable[[str], int],  # noqa: ANN001
                 stats: IndexStats, chunk_cache: ChunkCache | None = None, absent: set[str] | None = None) -> None:
    """Chunk (those given without chunks: in place, as callers passing a list may read them), embed and upsert a
    batch of changed documents; adds to `stats`."""
    if not batch:
        return
    key = settings.key()
    clock = time.perf_counter()
    need = [d for d in batch if d.body and not d.chunks]
    cut: dict[str, list[Chunk]] = {}
    if chunk_cache is not None and need:
        keys = {d.doc_id: chunks_key(d.body, d.date, key, counter_name(embedder)) for d in need}
        found = chunk_cache.take_many(list(dict.fromkeys(keys.values())))
        cut = {doc_id: found[k] for doc_id, k in keys.items() if k in found}
    for d in need:
        d.chunks = cut.get(d.doc_id) or chunk_markdown(d.body, settings.max_tokens, settings.overlap_tokens, count,
                                                       d.date)
    stats.chunk_s += time.perf_counter() - clock
    stored = {d.doc_id: stored_hash(d.content_hash, d.date, key) for d in batch}
    doc_texts = [doc_text(d, settings, count) for d in batch]
    chunk_rows: list[dict] = []
    chunk_texts: list[str] = []
    for d in batch:
        for c in d.chunks:
            text = chunk_text(d, c)
            chunk_rows.append({**_base(d, stored[d.doc_id]), "id": f"{d.doc_id}#{c.no}", "chunk_no": c.no,
                               "heading": chunk_heading(c), "text": text, "date": c.date or d.date})
            chunk_texts.append(embed_text(d, c, settings))
    clock = time.perf_counter()
    doc_vecs = embedder.embed(doc_texts)
    chunk_vecs = embedder.embed(chunk_texts)
    stats.embed_calls += 2
    stats.embed_s += time.perf_counter() - clock
    clock = time.perf_counter()
    doc_rows = [{**_base(d, stored[d.doc_id]), "id": d.doc_id, "summary": d.summary, "text": t}
                for d, t in zip(batch, doc_texts, strict=True)]
    chunk_table = rows_table(chunk_rows, chunk_vecs, chunks_table.schema)
    doc_table = rows_table(doc_rows, doc_vecs, docs_table.schema)
    new = [d.doc_id for d in batch if absent is not None and d.doc_id in absent]
    if new:  # documents the index holds no row of (a first run): appended, as a merge reads the whole table
        ids = pa.array(new)
        for table, rows in ((chunks_table, chunk_table), (docs_table, doc_table)):
            added = rows.filter(pc.is_in(rows["doc_id"], value_set=ids))
            if added.num_rows:
                table.add(added)
    old = [d.doc_id for d in batch if d.doc_id not in set(new)]
    if old:  # replace each changed document's chunks: upsert by id, delete its chunks that are gone
        ids = pa.array(old)
        quoted = ", ".join(_q(i) for i in old)
        (chunks_table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all()
         .when_not_matched_by_source_delete(f"doc_id IN ({quoted})")
         .execute(chunk_table.filter(pc.is_in(chunk_table["doc_id"], value_set=ids))))
        docs_table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all() \
            .execute(doc_table.filter(pc.is_in(doc_table["doc_id"], value_set=ids)))
    stats.upserted += [d.doc_id for d in batch]
    stats.chunks += len(chunk_rows)
    stats.write_s += time.perf_counter() - clock


def rebuild_site(where: str | Path | IndexStore, site: str, docs: Iterable[IndexedDoc] | DocSource,
                 embedder,  # noqa: ANN001
                 settings: IndexSettings = DEFAULT_SETTINGS,
                 progress: Callable[[int, int], None] | None = None) -> IndexStats:
    """Index `docs` of `site` afresh (every row rewritten, the site's other rows dropped); the rows of other sites
    are not touched. A failure midway leaves each document's old or new rows, never none."""
    return sync_site(where, site, docs, embedder, settings, progress, force=True)


def drop_damaged(where: str | Path | IndexStore) -> list[str]:
    """Drop each table that cannot be read whole (a data file lost or corrupt); the next sync of each site
    rebuilds its rows there. Returns the tables dropped, each with why."""
    store = IndexStore.at(where)
    if not store.exists():
        return []
    db = store.connect()
    dropped = []
    for name in sorted(table_names(db) & {DOCS, CHUNKS}):
        try:
            db.open_table(name).search().select(["id", "doc_id", "content_hash"]).limit(None).to_arrow()
        except (RuntimeError, OSError, ValueError) as exc:
            if not is_damage(exc):  # e.g. a bucket that does not answer: say so, drop nothing
                raise IndexStoreError(index_problem(store, "read", exc)) from exc
            db.drop_table(name)
            dropped.append(f"{name} ({lance_message(exc)})")
    return dropped


def forget_site(where: str | Path | IndexStore, site: str) -> tuple[int, int]:
    """Delete every row of `site` from both tables; returns (documents, chunks) deleted."""
    store = IndexStore.at(where)
    counts = site_counts(store).get(site, (0, 0))
    if counts == (0, 0):
        return counts
    db = store.connect()
    with lance_errors(store, "write"):
        tables = [db.open_table(name) for name in (DOCS, CHUNKS) if name in table_names(db)]
        for table in tables:
            table.delete(f"site = {_q(site)}")
        tidy(*tables)
    return counts


# Versions of a table older than this are deleted after each sync that changed it (LanceDB keeps every version
# otherwise: 4.8 -> 19.3 MB over a sync and 3 reindexes of 300 documents, docs/faults.md). Long
# enough for a search or an `ask` that opened the table just before to finish reading the version it opened.
KEEP_VERSIONS_S = 120


def tidy(*tables: lancedb.table.Table) -> None:
    """Delete each table's versions older than KEEP_VERSIONS_S (their files too), once it has such versions; the
    latest version, and so what every search sees, is left as it is. LanceDB 0.40 cleans up only as part of
    optimize, whose compaction writes the rows anew (they keep their row ids: stable row ids): done while every
    old version is still young, it would only add files that cannot be deleted yet."""
    keep = timedelta(seconds=KEEP_VERSIONS_S)
    for table in tables:
        versions = sorted(table.list_versions(), key=lambda v: v["version"])[:-1]
        if any(v["timestamp"] <= datetime.now() - keep for v in versions):  # list_versions: local naive times
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                table.optimize(cleanup_older_than=keep)


def build_fts(docs_table: lancedb.table.Table, chunks_table: lancedb.table.Table,
              settings: IndexSettings = DEFAULT_SETTINGS) -> None:
    """(Re)build the full-text indexes with the ICU tokenizer, which splits Japanese into words (the default
    tokenizer finds nothing in Japanese); English words are stemmed and English stop words dropped."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for table in (docs_table, chunks_table):
            if table.count_rows():
                # English stop words only: adding Japanese particles (の, です, …) measured no better
                table.create_fts_index("text", replace=True, base_tokenizer="icu", language="English",
                                       stem=settings.stem, remove_stop_words=True, ascii_folding=True,
                                       lower_case=True)


# Flat search over 512-d vectors takes ~20 ms at 7k chunks and ~110 ms at 100k on the 2-core machine
# (benchmarks/retrieval.py); past this many chunks an IVF_HNSW_SQ index answers in ~10 ms (recall@10 0.98).
VECTOR_INDEX_MIN_ROWS = 30_000
NPROBES = 20  # IVF partitions searched per query
# The IVF_HNSW_SQ index's own distances are not cosine distances (unit vectors: about 2 x the cosine distance,
# from 8-bit codes), so hybrid fusion and ask's gate would read wrong similarities past the threshold. Every
# vector query re-scores REFINE_FACTOR x its limit ANN candidates with their stored vectors: exact cosine
# distances, and the order of flat search (tests/index/test_ann_scores.py). No effect on a flat table; 0 turns
# it off (the index's own distances: benchmarks/retrieval.py --growth measures what that did).
REFINE_FACTOR = 5


def has_vector_index(table: lancedb.table.Table) -> bool:
    return any("vector" in cfg.columns for cfg in table.list_indices())


def vector_query(table: lancedb.table.Table, vector: np.ndarray | Sequence[float],
                 exact: bool = False) -> lancedb.query.LanceVectorQueryBuilder:
    """A cosine-distance query of `table`'s vectors; through the ANN index (if any) with its candidates
    re-scored exactly (refine), or by flat search when `exact`. `_distance` is 1 - cosine similarity either way."""
    query = np.asarray(vector, dtype=np.float32).tolist()
    builder = table.search(query, vector_column_name="vector").distance_type("cosine")
    if exact:
        return builder.bypass_vector_index()
    builder = builder.nprobes(NPROBES)
    return builder.refine_factor(REFINE_FACTOR) if REFINE_FACTOR else builder


def ensure_vector_index(table: lancedb.table.Table, min_rows: int | None = None) -> str:
    """Build the ANN index once the table has `min_rows` rows (default VECTOR_INDEX_MIN_ROWS, read at call time);
    afterwards fold new rows into it (optimize)."""
    if has_vector_index(table):
        table.optimize()  # compacts fragments and indexes the rows added since (row ids stay: stable row ids)
        return "updated"
    rows = table.count_rows()
    if rows < (VECTOR_INDEX_MIN_ROWS if min_rows is None else min_rows):
        return "flat"
    from lancedb.index import HnswSq

    table.create_index("vector", config=HnswSq(distance_type="cosine", num_partitions=max(1, rows // 1500)))
    return "created"


@dataclass(frozen=True)
class VectorIndexState:
    """What `status` says of a table's vectors: how many rows, and whether an ANN index serves them."""

    table: str
    rows: int
    indexed: bool
    unindexed: int  # rows added since the index was last built or updated (searched flat, exactly)


def vector_index_states(where: str | Path | IndexStore) -> list[VectorIndexState]:
    """Per table of the index, its rows and its ANN index (VECTOR_INDEX_MIN_ROWS rows or more get one)."""
    store = IndexStore.at(where)
    if not store.exists():
        return []
    out = []
    with lance_errors(store, "read"):
        db = store.connect()
        names = table_names(db)
        for name in (DOCS, CHUNKS):
            if name not in names:
                continue
            table = db.open_table(name)
            index = next((cfg.name for cfg in table.list_indices() if "vector" in cfg.columns), None)
            stats = table.index_stats(index) if index else None
            out.append(VectorIndexState(name, table.count_rows(), index is not None,
                                        int(getattr(stats, "num_unindexed_rows", 0) or 0)))
    return out


def site_counts(where: str | Path | IndexStore) -> dict[str, tuple[int, int]]:
    """site -> (documents, chunks) in the index."""
    store = IndexStore.at(where)
    if not store.exists():
        return {}
    out: dict[str, list[int]] = {}
    with lance_errors(store, "read"):
        db = store.connect()
        names = table_names(db)
        for name, pos in ((DOCS, 0), (CHUNKS, 1)):
            if name in names:
                col = db.open_table(name).search().select(["site"]).limit(None).to_arrow()["site"].to_pylist()
                for site in col:
                    out.setdefault(site, [0, 0])[pos] += 1
    return {k: (v[0], v[1]) for k, v in out.items()}
