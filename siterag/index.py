"""Stage 7c: the LanceDB store: a `documents` table (title+summary vectors) and a `chunks` table."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import lancedb
import pyarrow as pa

from siterag.chunking import Chunk

DOCS = "documents"
CHUNKS = "chunks"


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
    """A corpus document ready for the index."""

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


@dataclass
class IndexStats:
    """What one sync changed."""

    upserted: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    chunks: int = 0
    embed_calls: int = 0


def _q(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def table_names(db: lancedb.DBConnection) -> set[str]:
    """Names of the tables in a LanceDB database."""
    return set(db.list_tables().tables) if hasattr(db, "list_tables") else set(db.table_names())


def open_tables(db_dir: Path, dim: int) -> tuple[lancedb.table.Table, lancedb.table.Table]:
    """Open (creating if needed) the documents and chunks tables."""
    db = lancedb.connect(str(db_dir))
    names = table_names(db)
    docs = db.open_table(DOCS) if DOCS in names else db.create_table(DOCS, schema=_schema(dim, False))
    chunks = db.open_table(CHUNKS) if CHUNKS in names else db.create_table(CHUNKS, schema=_schema(dim, True))
    return docs, chunks


def indexed_hashes(docs_table: lancedb.table.Table, site: str) -> dict[str, str]:
    """doc_id -> content_hash of what the index holds for one site."""
    rows = docs_table.search().where(f"site = {_q(site)}").select(["doc_id", "content_hash"]) \
        .limit(None).to_arrow().to_pylist()
    return {r["doc_id"]: r["content_hash"] for r in rows}


def _base(doc: IndexedDoc) -> dict:
    return {"doc_id": doc.doc_id, "site": doc.site, "path": doc.path, "source": doc.source, "title": doc.title,
            "category": doc.category, "tags": doc.tags, "date": doc.date, "content_hash": doc.content_hash}


def sync_site(db_dir: Path, site: str, docs: list[IndexedDoc], embedder) -> IndexStats:  # noqa: ANN001
    """Make the index hold exactly `docs` for `site`: embed only new/changed docs, drop vanished ones."""
    docs_table, chunks_table = open_tables(db_dir, embedder.dim)
    have = indexed_hashes(docs_table, site)
    stats = IndexStats()
    wanted = {d.doc_id: d for d in docs}
    changed = [d for d in docs if have.get(d.doc_id) != d.content_hash]
    stats.unchanged = len(docs) - len(changed)
    stats.removed = sorted(set(have) - set(wanted))
    for start in range(0, len(changed), 64):
        batch = changed[start:start + 64]
        doc_texts = [f"{d.title}\n{d.summary}".strip() for d in batch]
        chunk_rows: list[dict] = []
        chunk_texts: list[str] = []
        for d in batch:
            for c in d.chunks:
                text = f"{d.title} > {c.heading}\n{c.text}" if c.heading else f"{d.title}\n{c.text}"
                chunk_rows.append({**_base(d), "id": f"{d.doc_id}#{c.no}", "chunk_no": c.no,
                                   "heading": c.heading, "text": text})
                chunk_texts.append(text)
        doc_vecs = embedder.embed(doc_texts)
        chunk_vecs = embedder.embed(chunk_texts)
        stats.embed_calls += 2
        doc_rows = [{**_base(d), "id": d.doc_id, "summary": d.summary, "text": t, "vector": v.tolist()}
                    for d, t, v in zip(batch, doc_texts, doc_vecs, strict=True)]
        for row, vec in zip(chunk_rows, chunk_vecs, strict=True):
            row["vector"] = vec.tolist()
        ids = ", ".join(_q(d.doc_id) for d in batch)
        # Replace each changed document's chunks: upsert by id, delete its chunks that are gone.
        (chunks_table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all()
         .when_not_matched_by_source_delete(f"doc_id IN ({ids})")
         .execute(pa.Table.from_pylist(chunk_rows, schema=chunks_table.schema)
                  if chunk_rows else pa.Table.from_pylist([], schema=chunks_table.schema)))
        docs_table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all() \
            .execute(pa.Table.from_pylist(doc_rows, schema=docs_table.schema))
        stats.upserted += [d.doc_id for d in batch]
        stats.chunks += len(chunk_rows)
    for start in range(0, len(stats.removed), 200):
        ids = ", ".join(_q(i) for i in stats.removed[start:start + 200])
        docs_table.delete(f"doc_id IN ({ids})")
        chunks_table.delete(f"doc_id IN ({ids})")
    if changed or stats.removed:
        build_fts(docs_table, chunks_table)
    return stats


def build_fts(docs_table: lancedb.table.Table, chunks_table: lancedb.table.Table) -> None:
    """(Re)build the full-text indexes with the ICU tokenizer, which splits Japanese into words."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for table in (docs_table, chunks_table):
            if table.count_rows():
                table.create_fts_index("text", replace=True, base_tokenizer="icu", stem=False,
                                       remove_stop_words=False, ascii_folding=True, lower_case=True)


def site_counts(db_dir: Path) -> dict[str, tuple[int, int]]:
    """site -> (documents, chunks) in the index."""
    if not Path(db_dir).exists():
        return {}
    db = lancedb.connect(str(db_dir))
    names = table_names(db)
    out: dict[str, list[int]] = {}
    for name, pos in ((DOCS, 0), (CHUNKS, 1)):
        if name in names:
            col = db.open_table(name).search().select(["site"]).limit(None).to_arrow()["site"].to_pylist()
            for site in col:
                out.setdefault(site, [0, 0])[pos] += 1
    return {k: (v[0], v[1]) for k, v in out.items()}
