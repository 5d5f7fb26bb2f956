"""Hybrid search (vector + ICU full-text, fused by RRF) over the chunks of the archive."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path

import lancedb
from lancedb.rerankers import RRFReranker

from siterag.embedding import get_embedder
from siterag.index import CHUNKS, _q, table_names

_DATE_RE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")


@dataclass
class Hit:
    """One search result (the best chunk of a document)."""

    site: str
    path: str
    title: str
    date: str
    score: float
    snippet: str
    heading: str
    doc_id: str

    def to_dict(self) -> dict:
        return asdict(self)


def build_filter(site: str | None = None, tags: tuple[str, ...] = (), category: str | None = None,
                 since: str | None = None, until: str | None = None) -> str | None:
    """A LanceDB SQL filter from the CLI options; dates are 'YYYY', 'YYYY-MM' or 'YYYY-MM-DD'."""
    parts = []
    if site:
        parts.append(f"site = {_q(site)}")
    for tag in tags:
        parts.append(f"array_has(tags, {_q(tag)})")
    if category:
        parts.append(f"category = {_q(category)}")
    for value, op in ((since, ">="), (until, "<=")):
        if value:
            if not _DATE_RE.match(value):
                raise ValueError(f"date {value!r}: use YYYY, YYYY-MM or YYYY-MM-DD")
            bound = value if op == ">=" else value + "-99"
            parts.append(f"date IS NOT NULL AND date != '' AND date {op} {_q(bound)}")
    return " AND ".join(parts) or None


def _snippet(text: str, query: str, width: int = 160) -> str:
    body = text.split("\n", 1)[-1].replace("\n", " ")
    terms = [t for t in re.split(r"\s+", query) if t]
    pos = min((body.lower().find(t.lower()) for t in terms if body.lower().find(t.lower()) >= 0), default=0)
    start = max(0, pos - width // 3)
    return ("…" if start else "") + body[start:start + width] + ("…" if start + width < len(body) else "")


def search(query: str, data_dir: str | Path = "data", *, site: str | None = None, tags: tuple[str, ...] = (),
           category: str | None = None, since: str | None = None, until: str | None = None, k: int = 10,
           mode: str = "hybrid", embedder: str = "use-multilingual-v3", group: bool = True) -> list[Hit]:
    """Top-k documents (or chunks when group=False) for `query`; mode is hybrid | vector | fts."""
    where = build_filter(site, tags, category, since, until)
    db_dir = Path(data_dir) / "lancedb"
    if not db_dir.exists():
        return []
    db = lancedb.connect(str(db_dir))
    names = table_names(db)
    if CHUNKS not in names:
        return []
    table = db.open_table(CHUNKS)
    fetch = k * 4 if group else k
    if mode == "fts":
        builder = table.search(query, query_type="fts")
    else:
        vector = get_embedder(embedder).embed([query])[0].tolist()
        if mode == "vector":
            builder = table.search(vector)
        else:
            builder = table.search(query_type="hybrid").vector(vector).text(query).rerank(RRFReranker())
    if where:
        builder = builder.where(where, prefilter=True)
    rows = builder.limit(fetch).to_list()
    hits: list[Hit] = []
    seen: set[str] = set()
    for row in rows:
        if group and row["doc_id"] in seen:
            continue
        seen.add(row["doc_id"])
        score = row.get("_relevance_score", row.get("_score", 1.0 - row.get("_distance", 0.0)))
        hits.append(Hit(row["site"], row["path"], row["title"], row["date"] or "", float(score),
                        _snippet(row["text"], query), row["heading"], row["doc_id"]))
        if len(hits) >= k:
            break
    return hits
