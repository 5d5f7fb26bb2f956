"""Hybrid search over the archive: vector + ICU full-text search at two levels, fused.

Four searches are asked of LanceDB — chunk vectors, chunk full text (BM25, ICU tokenizer), document vectors
(title + summary, or title + the page's lead) and document full text — for DEPTH candidates each. Every
candidate gets its exact cosine similarity (the full-text hits bring their vectors along) and its BM25 (0 when
the full-text search did not reach it); the two are fused per candidate as ALPHA x cosine + (1 - ALPHA) x
BM25 / best BM25 of the query, and a document scores its best passage plus DOC_WEIGHT x its document-level
score. Results are grouped by document unless `group=False` (passages). `fusion="rrf"` fuses reciprocal ranks
instead (measured worse: benchmarks/retrieval.py). `mode="vector"` / `"fts"` use one kind of search only.
"""

from __future__ import annotations

import calendar
import datetime
import importlib.util
import re
import sys
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from siterag.enrich.dates import ANCHOR_RE, EARLIEST_YEAR, narrow, parse_date_line
from siterag.index.chunking import markdown_lines
from siterag.index.store import IndexStore

if TYPE_CHECKING:
    from types import ModuleType

    import lancedb
    import numpy as np
    import pyarrow as pa


def _defer_package_init(name: str) -> None:
    """Import package `name` without running its __init__ until one of its attributes is asked for.

    lancedb imports lance_namespace, which imports models from lance_namespace_urllib3_client, whose __init__
    also imports the REST client's nine *_api modules (pydantic validate_call wrappers built at import): about
    half of `import lancedb` (~1.2 s of CPU on the 2-core machine), for an HTTP client that a local or s3://
    index never uses. Its submodules (models) import as usual; `from lance_namespace_urllib3_client import X`
    runs the real __init__ first, so nothing that does use the client sees a difference."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or not spec.submodule_search_locations:
        return
    module = importlib.util.module_from_spec(spec)
    loaded = False

    def __getattr__(attr: str) -> object:  # noqa: N807 - the module-level __getattr__ hook (PEP 562)
        nonlocal loaded
        if loaded:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}")
        loaded = True
        spec.loader.exec_module(module)
        return getattr(module, attr)

    module.__getattr__ = __getattr__
    sys.modules[name] = module


class _PandasHidden:
    """A meta-path finder that answers "not installed" for pandas (see `hide_pandas`)."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> None:
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"No module named {name!r} (hidden from a search-only process)", name=name)


def hide_pandas() -> None:
    """For a process that only searches (the CLI's `search` and `ask`): pyarrow and lancedb import pandas when it is
    installed (~0.5 s of CPU) for DataFrame conversions a search never makes; both treat pandas as optional.
    A library user's process is left alone: only the CLI calls this, before lancedb is imported."""
    if "pandas" not in sys.modules and _PandasHidden not in sys.meta_path:
        sys.meta_path.insert(0, _PandasHidden)


def _index() -> ModuleType:
    """siterag.index.index, imported when first needed: it imports lancedb (~1 s), which a mistake on the command
    line (a bad date, an empty query) is told without."""
    _defer_package_init("lance_namespace_urllib3_client")
    import siterag.index.index

    return siterag.index.index


MODES = ("hybrid", "vector", "fts")
RRF_K = 60
_DATE_RE = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?", re.ASCII)
_COLUMNS = ["id", "doc_id", "site", "path", "title", "date", "text"]
_CHUNK_COLUMNS = [*_COLUMNS, "heading", "chunk_no"]


class NoIndexError(ValueError):
    """There is no index to search yet."""


@dataclass
class Hit:
    """One search result: a document (with its best passage) or, with group=False, one passage."""

    site: str
    path: str
    title: str
    date: str
    score: float  # fused RRF score
    snippet: str  # the passage around the query terms, terms marked **like this**
    heading: str
    doc_id: str
    chunk_no: int = -1  # -1: no chunk of the document matched (the snippet comes from its title + summary)
    similarity: float = 0.0  # best cosine similarity of the query to this document's vectors (0: not among them)
    bm25: float = 0.0  # best full-text score (0: no full-text match)
    text: str = ""  # the whole passage (for `ask`)
    url: str = ""  # the page's original URL (front matter `url`; add_provenance fills it)
    captured_at: str = ""  # WARC sites: when the page was captured (front matter `captured_at`)
    anchor: str = ""  # the diary entry the passage lies in: its heading's anchor (`2003-06-29`: `path#2003-06-29`)

    @property
    def ref(self) -> str:
        """`site/path`: how answers cite this page."""
        return f"{self.site}/{self.path}"

    def to_dict(self) -> dict:
        return asdict(self)


def add_provenance(hits: list[Hit], data_dir: str | Path) -> list[Hit]:
    """Fill each hit's `url` and `captured_at` from its corpus document's front matter (data_dir/corpus/<doc_id>,
    read by siterag.enrich.corpus.read_doc); a hit whose document is not there keeps them empty. Runs where the
    search runs (the warm worker, or an in-process search), never in the warm worker's client."""
    from siterag.enrich.corpus import read_doc

    for hit in hits:
        parsed = read_doc(Path(data_dir) / "corpus" / hit.doc_id)
        if parsed:
            hit.url, hit.captured_at = str(parsed[0].get("url") or ""), str(parsed[0].get("captured_at") or "")
    return hits


def provenance_line(hit: Hit) -> str:
    """`<url>, captured <date>` (what there is of them) for a result or a citation; '' when neither is known."""
    parts = [hit.url] if hit.url else []
    if hit.captured_at:
        parts.append(f"captured {hit.captured_at[:10]}")
    return ", ".join(parts)


def date_bounds(value: str, name: str = "date") -> tuple[str, str]:
    """The first and last day ('YYYY-MM-DD') a date filter 'YYYY', 'YYYY-MM' or 'YYYY-MM-DD' covers.

    Raises ValueError naming `name` (e.g. "--since") for anything else, a month 13 or a 30 February included."""
    match = _DATE_RE.fullmatch(value or "")
    year, month, day = (int(g) if g else 0 for g in match.groups()) if match else (0, 0, 0)
    if not match or not 1 <= year or (match.group(2) and not 1 <= month <= 12) or \
            (match.group(3) and not 1 <= day <= calendar.monthrange(year, month)[1]):
        raise ValueError(f"{name} {value!r} is not a date: use YYYY, YYYY-MM or YYYY-MM-DD (e.g. 2003, 2003-05, "
                         f"2003-05-20)")
    first = (month or 1, day or 1)
    last = (month or 12, day or calendar.monthrange(year, month or 12)[1])
    return f"{year:04d}-{first[0]:02d}-{first[1]:02d}", f"{year:04d}-{last[0]:02d}-{last[1]:02d}"


def check_dates(since: str | None, until: str | None, names: tuple[str, str] = ("since", "until")) -> None:
    """ValueError for a date filter that is not a date, or a `since` later than `until`."""
    low = date_bounds(since, names[0])[0] if since else None
    high = date_bounds(until, names[1])[1] if until else None
    if low and high and low > high:
        raise ValueError(f"{names[0]} {since} is after {names[1]} {until}: nothing can be dated in between")


def build_filter(site: str | None = None, tags: tuple[str, ...] = (), category: str | None = None,
                 since: str | None = None, until: str | None = None) -> str | None:
    """A LanceDB SQL filter from the CLI options; dates are 'YYYY', 'YYYY-MM' or 'YYYY-MM-DD'.

    The same filter applies at both levels: a document row by the page's date, a chunk row by the chunk's own
    date (its diary entry's, else the page's), so `since`/`until` find a diary entry by its date even when its
    page is dated by another entry."""
    check_dates(since, until)
    _q = _index()._q
    parts = []
    if site:
        parts.append(f"site = {_q(site)}")
    for tag in tags:
        parts.append(f"array_has(tags, {_q(tag)})")
    if category:
        parts.append(f"category = {_q(category)}")
    for value, op in ((since, ">="), (until, "<=")):
        if value:
            bound = value if op == ">=" else value + "-99"
            parts.append(f"date IS NOT NULL AND date != '' AND date {op} {_q(bound)}")
    return " AND ".join(parts) or None


# ---- dates named in the query ----------------------------------------------------------------------------

_MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_YEAR = r"(?P<y>(?:19|20)\d\d)"
_PARTIAL_DATE_RES = (  # a year and month, or a year alone (full dates: parse_date_line)
    re.compile(_YEAR + r"\s*年\s*(?P<m>\d{1,2})\s*月(?!\s*\d)"),
    re.compile(r"(?<![\d./-])" + _YEAR + r"\s*[-/.]\s*(?P<m>\d{1,2})(?![\d./-])"),
    re.compile(r"(?<![a-z])(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,?\s+(?:of\s+)?"
               + _YEAR + r"(?!\d)", re.IGNORECASE),
    re.compile(r"(?P<era>平成|令和)\s*(?P<e>\d{1,2}|元)\s*年(?:\s*(?P<m>\d{1,2})\s*月(?!\s*\d))?"),
    re.compile(r"(?<![\d./-])" + _YEAR + r"(?![\d./-])"),
)
_ERA_START = {"平成": 1988, "令和": 2018}
_DATE_START_RE = re.compile(r"(?<![0-9A-Za-z])[0-9A-Za-z]|平成|令和")


def query_dates(query: str) -> list[tuple[str, str]]:
    """The days, months and years `query` names, as (first day, last day) spans, most specific only: in
    "2003年6月29日の日記" the day, not its year as well. Full dates are read by the diary grammar
    (siterag.enrich.dates.parse_date_line: `2003.6.29`, `2003年6月29日`, `June 29, 2003`, `平成15年6月29日`, …);
    months and years by `2003年6月`, `2003-06`, `June 2003`, `平成15年`, a lone `2003`. Years from EARLIEST_YEAR
    (a transcribed diary of the 1930s) to this year, written with four digits or an era."""
    text = narrow(query)
    spans: set[tuple[str, str]] = set()
    for start in _DATE_START_RE.finditer(text):
        found = parse_date_line(text[start.start():], loose=True)
        if found and found.kind == "full" and found.date and (str(found.year) in text or "平成" in text
                                                               or "令和" in text):
            spans.add((found.date, found.date))
    for pattern in _PARTIAL_DATE_RES:
        for match in pattern.finditer(text):
            g = match.groupdict()
            year = _ERA_START[g["era"]] + (1 if g["e"] == "元" else int(g["e"])) if g.get("era") else int(g["y"])
            month = _MONTH_NAMES.index(g["mon"][:3].lower()) + 1 if g.get("mon") else int(g.get("m") or 0)
            value = f"{year:04d}" + (f"-{month:02d}" if month else "")
            try:
                if EARLIEST_YEAR <= year <= datetime.date.today().year:
                    spans.add(date_bounds(value))
            except ValueError:
                continue
    return sorted(s for s in spans if not any(o != s and s[0] <= o[0] and o[1] <= s[1] for o in spans))


def dated_within(date: str, spans: list[tuple[str, str]]) -> bool:
    """Whether a row's date ('YYYY', 'YYYY-MM' or 'YYYY-MM-DD'; '' = undated) lies in one of the spans (a month
    or year row: overlaps one)."""
    if not date or not spans:
        return False
    try:
        first, last = date_bounds(date[:10])
    except ValueError:
        return False
    return any(first <= hi and lo <= last for lo, hi in spans)


NOTHING_TO_SEARCH = "nothing to search for: the query has no words (only spaces or punctuation)"


def has_terms(query: str) -> bool:
    """Whether `query` has anything to search for: a letter or a digit (not only spaces and punctuation)."""
    return any(unicodedata.category(ch)[0] in "LN" for ch in query)


# ---- query terms, highlighting and snippets -------------------------------------------------------------

_WORD_RE = re.compile(r"[0-9A-Za-z\u00c0-\u024f][0-9A-Za-z\u00c0-\u024f'+#.-]*")
_CJK_RUN_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uff66-\uff9f々〆ー]+")
_KANA_ONLY_RE = re.compile(r"^[\u3040-\u309f]+$")
_STOP = set("""a an and are as at be by can could did do does for from had has have how i if in into is it its me my
of on or please should so than that the their them then there these they this to was we were what when where which
who whom why will with would you your""".split())
_NAV_SEP = r"[\s\-―─|｜・/:：<>＜＞«»\[\]()（）]*"
_NAV_WORDS = r"(前|次|目次|戻る|トップ|ホーム|ページの先頭へ|top|home|back|next|prev(ious)?|index|contents|up)"
_NAV_RE = re.compile(rf"^{_NAV_SEP}({_NAV_WORDS}{_NAV_SEP})+$", re.IGNORECASE)
_LINK_TEXT_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


def _script(ch: str) -> str:
    """'hira', 'kata' or 'kanji' for a character of a Japanese run."""
    if "\u3040" <= ch <= "\u309f":
        return "hira"
    if "\u30a0" <= ch <= "\u30ff" or "\uff66" <= ch <= "\uff9f":
        return "kata"
    return "kanji"


def _cjk_terms(run: str, folded: str) -> list[str]:
    """The pieces of a Japanese query run (no spaces) to mark in a text (NFKC, lower-cased; "" = any text).

    Greedy, longest first: a piece is at least 2 characters, never cuts a run of kanji or of katakana (a word:
    "ポイント" is marked whole or not at all, never its "ン"), may start or end inside hiragana (particles,
    okurigana: "お茶の産地は"), and one of hiragana only must be 3 characters or more (no bare particles)."""
    scripts = [_script(ch) for ch in run]
    n = len(run)
    cuts = [p for p in range(n + 1) if p in (0, n) or scripts[p - 1] != scripts[p] or scripts[p] == "hira"]
    terms = []
    i = 0
    while i < n:
        for j in reversed([c for c in cuts if c >= i + 2]):
            piece = run[i:j]
            if _KANA_ONLY_RE.match(piece) and len(piece) <= 2:
                continue
            if not folded or piece.lower() in folded:
                terms.append(piece)
                i = j
                break
        else:
            i = next((c for c in cuts if c > i), n)
    return terms


def query_terms(query: str, text: str = "") -> list[str]:
    """The words of `query` worth marking in `text`: Latin words (not stop words) and, for a Japanese run
    (no spaces), its longest pieces that occur in `text`, made of whole kanji / katakana words (_cjk_terms)."""
    query = unicodedata.normalize("NFKC", query)
    terms = [w for w in (m.group(0).strip(".-'") for m in _WORD_RE.finditer(query))
             if len(w) > 1 and w.lower() not in _STOP]
    folded = unicodedata.normalize("NFKC", text).lower()
    for run in _CJK_RUN_RE.findall(query):
        terms += _cjk_terms(run, folded)
    seen: set[str] = set()
    out = []
    for t in sorted(terms, key=len, reverse=True):
        if t.lower() not in seen:
            seen.add(t.lower())
            out.append(t)
    return out


def _term_re(terms: list[str]) -> re.Pattern[str] | None:
    if not terms:
        return None
    parts = []
    for t in terms:
        esc = re.escape(t)
        parts.append(rf"(?<![0-9A-Za-z]){esc}" if t[:1].isascii() else esc)
    return re.compile("|".join(parts), re.IGNORECASE)


def highlight(text: str, terms: list[str]) -> str:
    """`text` with each occurrence of a term marked **like this**."""
    pattern = _term_re(terms)
    return pattern.sub(lambda m: f"**{m.group(0)}**", text) if pattern else text


def terminal_marks(snippet: str, tty: bool) -> str:
    """A snippet for the terminal: **marks** as bold on a tty, left as they are when piped."""
    return re.sub(r"\*\*(.+?)\*\*", "\033[1m\\1\033[0m", snippet) if tty else snippet


def is_nav_line(line: str) -> bool:
    """A menu / prev-next line: mostly link text, short, or a bare "― 前 ― 目次 ― 次 ―"."""
    stripped = " ".join(markdown_lines(line))
    if not stripped or _NAV_RE.match(stripped):
        return True
    links = _LINK_TEXT_RE.findall(line)
    link_chars = sum(len(t) for t in links)
    return bool(links) and link_chars >= 0.6 * len(stripped) and len(stripped) < 120 and len(links) >= 2


_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")


def make_snippet(text: str, query: str, width: int = 160) -> str:
    """A window of the passage (body, not menus) around its densest match of the query terms, terms marked."""
    body = text.split("\n", 1)[1] if "\n" in text else text  # the first line is "title > heading"
    raw_lines = [ln for ln in body.splitlines() if ln.strip()]
    kept = [ln for ln in raw_lines if not is_nav_line(ln)] or raw_lines
    lines = [" ".join(markdown_lines(ln)) for ln in kept]
    lines = [ln for ln in lines if ln]
    if not lines:  # a passage of images only (a photo page): say so, with their captions
        alts = [a.strip() for a in _IMAGE_RE.findall(body) if a.strip()]
        count = len(_IMAGE_RE.findall(body))
        return f"[{count} image{'s' if count != 1 else ''}{': ' + ', '.join(alts[:5]) if alts else ''}]" \
            if count else ""
    flat = " ".join(lines)
    terms = query_terms(query, flat)
    pattern = _term_re(terms)
    start = 0
    if pattern:
        hits = [m.start() for m in pattern.finditer(flat)]
        if hits:  # the window start that covers most matches
            best = max(hits, key=lambda h: sum(1 for x in hits if h <= x < h + width * 2 // 3))
            start = max(0, best - width // 4)
            if start:
                space = flat.rfind(" ", max(0, start - 15), start)
                start = space + 1 if space >= 0 else start
    piece = flat[start:start + width]
    return ("…" if start else "") + highlight(piece, terms) + ("…" if start + width < len(flat) else "")


# ---- retrieval ------------------------------------------------------------------------------------------

ALPHA = 0.5  # hybrid: weight of the cosine similarity; 1 - ALPHA is the weight of BM25 / the best BM25
DOC_WEIGHT = 0.3  # a document's score = its best passage's + DOC_WEIGHT x its title + summary level's
CROSS_WEIGHT = (1.0, 1.0)  # hybrid, (passage, document) level: share of BM25's weight given to the cosine of a
# candidate written in the other script than the query (English query, Japanese page, or the reverse): no BM25 there
DEPTH = 100  # candidates asked of each search (vector and full text, at both levels)
BEST_CHUNK_ROWS = 20  # full-text rows asked per document when passages of several documents are looked up at once
DATE_WEIGHT = 0.1  # added to the score of a candidate dated within a date, month or year the query names
DATED_DEPTH = 20  # candidates asked of each search among the rows dated then (query_dates)
FUSIONS = ("score", "rrf")
_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="siterag-search")


@dataclass
class Candidates:
    """What the searches of one level found: LanceDB rows by id, with cosine and BM25 (0: not matched)."""

    rows: dict[str, dict]
    cos: dict[str, float]
    bm25: dict[str, float]
    vec_rank: list[str]
    fts_rank: list[str]


class Searcher:
    """Open tables of one index; `search` as often as wanted (the index is read as of opening)."""

    def __init__(self, where: str | Path | IndexStore = "data", embedder: str = "use-multilingual-v3",
                 exact: bool = False) -> None:
        """`where`: a data dir (its lancedb/ folder is the index) or an IndexStore (a folder or s3:// URI)."""
        store = where if isinstance(where, IndexStore) else IndexStore(str(Path(where) / "lancedb"))
        if not store.exists():
            raise NoIndexError(f"no index at {store}: run `siterag run` first")
        db = store.connect()
        index = _index()
        names = index.table_names(db)
        if index.CHUNKS not in names or index.DOCS not in names:
            raise NoIndexError(f"no index at {store}: run `siterag run` first")
        self.chunks = db.open_table(index.CHUNKS)
        self.docs = db.open_table(index.DOCS)
        self.embedder_name = embedder
        self.exact = exact  # flat vector search even where there is an ANN index (benchmarks, tests)

    def sites(self) -> list[str]:
        """The sites that have documents in the index."""
        rows = self.docs.search().select(["site"]).limit(None).to_arrow()
        return sorted(set(rows["site"].to_pylist()))

    def embed(self, query: str) -> np.ndarray:
        from siterag.index.embedding import get_embedder  # numpy and the model: not for a warm search's client

        return get_embedder(self.embedder_name).embed([query])[0]

    def _vector_rows(self, table: lancedb.table.Table, columns: list[str], vector: np.ndarray, where: str | None,
                     depth: int) -> pa.Table:
        builder = _index().vector_query(table, vector, self.exact).select([*columns, "_distance"])
        if where:
            builder = builder.where(where, prefilter=True)
        return builder.limit(depth).to_arrow()

    @staticmethod
    def _fts_rows(table: lancedb.table.Table, columns: list[str], query: str, where: str | None, depth: int,
                  with_vectors: bool) -> pa.Table | None:
        builder = table.search(query, query_type="fts", fts_columns="text") \
            .select([*columns, "_score", *(["vector"] if with_vectors else [])])
        if where:
            builder = builder.where(where, prefilter=True)
        try:
            return builder.limit(depth).to_arrow()
        except (ValueError, RuntimeError, OSError):  # a query of stop words only / no full-text index yet
            return None

    @staticmethod
    def _assemble(by_vector: pa.Table | None, by_text: pa.Table | None, vector: np.ndarray | None) -> Candidates:
        found = Candidates({}, {}, {}, [], [])
        if by_vector is not None:
            for row in by_vector.to_pylist():
                found.rows[row["id"]] = row
                found.cos[row["id"]] = 1.0 - float(row.pop("_distance"))
                found.vec_rank.append(row["id"])
        if by_text is None:
            return found
        cosines = None
        if "vector" in by_text.column_names:
            if by_text.num_rows and vector is not None:
                # the exact cosine of passages the vector search did not reach (vectors are unit length)
                flat = by_text["vector"].combine_chunks().flatten().to_numpy()
                cosines = flat.reshape(by_text.num_rows, -1) @ vector
            by_text = by_text.drop_columns(["vector"])
        for n, row in enumerate(by_text.to_pylist()):
            found.bm25[row["id"]] = float(row.pop("_score"))
            found.rows.setdefault(row["id"], row)
            found.fts_rank.append(row["id"])
            if cosines is not None:
                found.cos.setdefault(row["id"], float(cosines[n]))
        return found

    def candidates(self, query: str, where: str | None = None, depth: int = DEPTH, mode: str = "hybrid",
                   vector: np.ndarray | None = None,
                   dates: list[tuple[str, str]] | tuple = ()) -> dict[str, Candidates]:
        """Both levels' candidates ("chunk", "doc") for a mode: vector, full text, or both (hybrid); with `dates`
        (query_dates spans) also the best DATED_DEPTH of the rows dated then, which a date in the question
        prefers (fuse) but the plain searches may not reach.

        The (up to) four LanceDB searches per pass run at once, on a small thread pool."""
        if mode not in MODES:
            raise ValueError(f"mode {mode!r}: use one of {', '.join(MODES)}")
        if mode != "fts" and vector is None:
            vector = self.embed(query)
        passes = [(where, depth)]
        if dates:
            passes.append((" AND ".join(f"({w})" for w in (where, date_filter(dates)) if w), DATED_DEPTH))
        futures = {}
        for n, (clause, size) in enumerate(passes):
            for level, table, columns in (("chunk", self.chunks, _CHUNK_COLUMNS), ("doc", self.docs, _COLUMNS)):
                if mode != "fts":
                    futures[n, level, "vec"] = _POOL.submit(self._vector_rows, table, columns, vector, clause, size)
                if mode != "vector":
                    futures[n, level, "fts"] = _POOL.submit(self._fts_rows, table, columns, query, clause, size,
                                                            mode == "hybrid")
        out: dict[str, Candidates] = {}
        for n in range(len(passes)):
            for level in ("chunk", "doc"):
                by_vector = futures[n, level, "vec"].result() if (n, level, "vec") in futures else None
                by_text = futures[n, level, "fts"].result() if (n, level, "fts") in futures else None
                found = self._assemble(by_vector, by_text, vector)
                out[level] = merge_candidates(out[level], found) if level in out else found
        return out

    def best_chunk(self, doc_id: str, query: str) -> dict | None:
        """The passage of one document that matches the query (for a document found by title + summary only)."""
        where = f"doc_id = {_index()._q(doc_id)}"
        found = self._assemble(None, self._fts_rows(self.chunks, _CHUNK_COLUMNS, query, where, 1, False), None)
        rows = list(found.rows.values()) or \
            self.chunks.search().where(f"{where} AND chunk_no = 0").select(_CHUNK_COLUMNS).limit(1).to_list()
        return rows[0] if rows else None

    def best_chunks(self, doc_ids: list[str], query: str) -> dict[str, dict]:
        """best_chunk of each of `doc_ids`, in two queries for all of them (one full-text, one for the first
        passage of those it finds nothing in) instead of two per document."""
        if not doc_ids:
            return {}
        q = _index()._q
        where = f"doc_id IN ({', '.join(q(d) for d in doc_ids)})"
        limit = BEST_CHUNK_ROWS * len(doc_ids)
        by_text = self._fts_rows(self.chunks, _CHUNK_COLUMNS, query, where, limit, False)
        out: dict[str, dict] = {}
        for row in (by_text.to_pylist() if by_text is not None else []):  # best first
            row.pop("_score", None)
            out.setdefault(row["doc_id"], row)
        missing = [d for d in doc_ids if d not in out]
        if missing and by_text is not None and by_text.num_rows >= limit:  # cut short: ask for each alone
            for doc_id in missing:
                if (row := self.best_chunk(doc_id, query)) is not None:
                    out[doc_id] = row
            missing = [d for d in doc_ids if d not in out]
        if missing:
            firsts = self.chunks.search().where(f"doc_id IN ({', '.join(q(d) for d in missing)}) AND chunk_no = 0") \
                .select(_CHUNK_COLUMNS).limit(len(missing)).to_list()
            for row in firsts:
                out.setdefault(row["doc_id"], row)
        return out

    def search(self, query: str, *, site: str | None = None, tags: tuple[str, ...] = (),
               category: str | None = None, since: str | None = None, until: str | None = None, k: int = 10,
               mode: str = "hybrid", group: bool = True, fusion: str = "score", depth: int = DEPTH) -> list[Hit]:
        """Top-k documents (or passages when group=False) for `query`; a date, month or year the query names
        (query_dates) is preferred, not required (DATE_WEIGHT)."""
        where = build_filter(site, tags, category, since, until)
        dates = query_dates(query)
        found = self.candidates(query, where, max(depth, k * 3), mode, dates=dates)
        return fuse(found, query, k, group, mode=mode, fusion=fusion, searcher=self, dates=dates)


def date_filter(dates: list[tuple[str, str]]) -> str:
    """A LanceDB filter of the rows dated within one of the spans (a day-dated row: within; 'YYYY-MM' or 'YYYY'
    rows sort before their first day and are left out: they get the preference only as candidates)."""
    return " OR ".join(f"(date >= '{lo}' AND date <= '{hi}')" for lo, hi in dates)


def merge_candidates(a: Candidates, b: Candidates) -> Candidates:
    """Candidates of two passes of one level: rows and scores of both (a's where both have one); ranks appended."""
    ranked = set(a.vec_rank), set(a.fts_rank)
    return Candidates({**b.rows, **a.rows}, {**b.cos, **a.cos}, {**b.bm25, **a.bm25},
                      a.vec_rank + [key for key in b.vec_rank if key not in ranked[0]],
                      a.fts_rank + [key for key in b.fts_rank if key not in ranked[1]])


_LETTER_RE = re.compile(r"[^\W\d_]")
_JA_CHAR_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uff66-\uff9f]")


def is_japanese(text: str) -> bool:
    """A fifth or more of the letters are Japanese (kana or kanji): the rule of enrich's page_language."""
    letters = len(_LETTER_RE.findall(text))
    return bool(letters) and len(_JA_CHAR_RE.findall(text)) >= 0.2 * letters


def _level_scores(c: Candidates, alpha: float, fusion: str, weights: tuple[float, float],
                  cross: float = 0.0, query_ja: bool = False) -> dict[str, float]:
    """Score of each candidate of one level: alpha x cosine + (1 - alpha) x BM25 / best BM25, or RRF of ranks;
    a candidate in the other script than the query's (query_ja) also gains cross x (1 - alpha) x cosine."""
    if fusion == "rrf":
        out: dict[str, float] = {}
        for rank_list, w in ((c.vec_rank, weights[0]), (c.fts_rank, weights[1])):
            for n, key in enumerate(rank_list, 1):
                out[key] = out.get(key, 0.0) + w / (RRF_K + n)
        return out
    best = max(c.bm25.values(), default=0.0) or 1.0
    out = {key: alpha * c.cos.get(key, 0.0) + (1 - alpha) * c.bm25.get(key, 0.0) / best for key in c.rows}
    if cross and alpha < 1:
        for key, row in c.rows.items():
            if is_japanese(row.get("title", "") + "\n" + row["text"][:300]) != query_ja:
                out[key] += cross * (1 - alpha) * c.cos.get(key, 0.0)
    return out


def _prefer_dated(scores: dict[str, float], c: Candidates, dates: list[tuple[str, str]] | tuple,
                  bonus: float) -> dict[str, float]:
    """`scores` with `bonus` added to each candidate dated within one of `dates`."""
    if not dates or not bonus:
        return scores
    return {key: v + (bonus if dated_within(c.rows[key].get("date") or "", dates) else 0.0)
            for key, v in scores.items()}


def fuse(found: dict[str, Candidates], query: str, k: int, group: bool = True, *, mode: str = "hybrid",
         alpha: float = ALPHA, doc_weight: float = DOC_WEIGHT, fusion: str = "score",
         searcher: Searcher | None = None, dates: list[tuple[str, str]] | tuple = (),
         date_weight: float = DATE_WEIGHT, cross_weight: tuple[float, float] = CROSS_WEIGHT) -> list[Hit]:
    """The top-k documents (group) or passages of both levels' candidates.

    score fusion: a passage scores alpha x cosine + (1 - alpha) x BM25/best BM25 (alpha is 1 in vector mode,
    0 in full-text mode); a document scores its best passage's score + doc_weight x the same at document level
    (title + summary), a passage (group=False) its own + doc_weight x its document's. rrf: the same with
    reciprocal ranks (1 / (RRF_K + rank)) of the vector and full-text lists instead of scores. A passage or
    document dated within one of `dates` (the query's, query_dates) gains date_weight (rrf: date_weight / RRF_K).
    cross_weight (passage, document level; hybrid score fusion): see CROSS_WEIGHT.
    """
    if fusion not in FUSIONS:
        raise ValueError(f"fusion {fusion!r}: use one of {', '.join(FUSIONS)}")
    alpha = {"vector": 1.0, "fts": 0.0}.get(mode, alpha)
    weights = (1.0 if mode != "fts" else 0.0, 1.0 if mode != "vector" else 0.0)
    chunks, docs = found["chunk"], found["doc"]
    bonus = date_weight / RRF_K if fusion == "rrf" else date_weight
    query_ja = is_japanese(query)
    chunk_score = _prefer_dated(_level_scores(chunks, alpha, fusion, weights, cross_weight[0], query_ja), chunks,
                                dates, bonus)
    doc_level = _prefer_dated(_level_scores(docs, alpha, fusion, weights, cross_weight[1], query_ja), docs, dates,
                              bonus)
    doc_of = {key: row["doc_id"] for key, row in chunks.rows.items()}
    if not group:
        scored = {key: v + doc_weight * doc_level.get(doc_of[key], 0.0) for key, v in chunk_score.items()}
        ranked = sorted(scored, key=lambda key: -scored[key])[:k]
        return [_hit(chunks.rows[key], scored[key], query, chunks.cos.get(key, 0.0), chunks.bm25.get(key, 0.0))
                for key in ranked]
    best: dict[str, str] = {}
    for key in sorted(chunk_score, key=lambda key: -chunk_score[key]):
        best.setdefault(doc_of[key], key)
    doc_score = {doc: chunk_score[key] for doc, key in best.items()}
    for doc, v in doc_level.items():
        doc_score[doc] = doc_score.get(doc, 0.0) + doc_weight * v
    hits = []
    top = sorted(doc_score, key=lambda d: -doc_score[d])[:k]
    passages = searcher.best_chunks([d for d in top if d not in best], query) if searcher is not None else {}
    for doc in top:
        if doc in best:
            key = best[doc]
            hits.append(_hit(chunks.rows[key], doc_score[doc], query, chunks.cos.get(key, 0.0),
                             chunks.bm25.get(key, 0.0)))
            continue
        hits.append(_hit(passages.get(doc) or docs.rows[doc], doc_score[doc], query, docs.cos.get(doc, 0.0),
                         docs.bm25.get(doc, 0.0)))
    return hits


def _hit(row: dict, score: float, query: str, similarity: float, bm25: float) -> Hit:
    return Hit(site=row["site"], path=row["path"], title=row["title"], date=row["date"] or "",
               score=round(score, 4), snippet=make_snippet(row["text"], query), heading=row.get("heading", "") or "",
               doc_id=row["doc_id"], chunk_no=int(row.get("chunk_no", -1)), similarity=round(similarity, 4),
               bm25=round(bm25, 4), text=row["text"], anchor=_anchor(row.get("heading") or ""))


def _anchor(heading: str) -> str:
    """The entry anchor at the end of a chunk row's heading (`日記 > 2003.6.30(月) {#2003-06-30}`), else ''."""
    match = ANCHOR_RE.search(heading)
    return match.group(1) if match else ""


def search(query: str, data_dir: str | Path | IndexStore = "data", *, site: str | None = None,
           tags: tuple[str, ...] = (), category: str | None = None, since: str | None = None,
           until: str | None = None, k: int = 10,
           mode: str = "hybrid", embedder: str = "use-multilingual-v3", group: bool = True,
           fusion: str = "score") -> list[Hit]:
    """Top-k documents (or passages when group=False) for `query`; mode is hybrid | vector | fts.

    Raises NoIndexError (a ValueError) when `data_dir` holds no index yet, ValueError for a query without
    words (only spaces or punctuation), a k below 1 or a bad date filter.
    """
    if not has_terms(query):
        raise ValueError(NOTHING_TO_SEARCH)
    if k < 1:
        raise ValueError(f"k {k}: ask for 1 result or more")
    build_filter(site, tags, category, since, until)  # a bad date is the user's first mistake to hear of
    return Searcher(data_dir, embedder).search(query, site=site, tags=tags, category=category, since=since,
                                               until=until, k=k, mode=mode, group=group, fusion=fusion)
