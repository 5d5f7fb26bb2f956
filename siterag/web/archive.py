"""What the web app shows, as plain data: the corpus documents' front matter in memory, facets, a site's
year/month histogram, previous/next by date, title suggestions. Pure functions over `Doc`s; no web here."""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from siterag.enrich.corpus import read_doc
from siterag.enrich.dates import ENTRY_HEADING_RE


@dataclass(frozen=True)
class Entry:
    """A dated diary entry of a document: its heading ends in `{#YYYY-MM-DD}` (siterag.enrich.dates)."""

    date: str  # YYYY-MM-DD
    title: str  # the heading's text
    anchor: str  # `2003-06-29`, `2003-06-29-2` for the day's second entry


@dataclass(frozen=True)
class Doc:
    """One corpus document, as the web app lists it (the body is read when the document is opened)."""

    site: str
    rel: str  # the corpus file under corpus/<site>/: `diary/2003-05-20.md`
    path: str  # the archived page's path: `diary/2003-05-20.html`
    title: str
    date: str = ""  # YYYY, YYYY-MM or YYYY-MM-DD
    lastmod: str = ""
    category: str = ""  # the page's kind (diary, essay, links, ...), or the site's configured category
    section: str = ""  # the site's own name for the part of it the page is in
    tags: tuple[str, ...] = ()
    summary: str = ""
    url: str = ""
    captured_at: str = ""
    key: str = field(default="", compare=False)  # the title folded for suggestions
    entries: tuple[Entry, ...] = field(default=(), compare=False)

    @property
    def months(self) -> set[str]:
        """The months (YYYY-MM) the document is dated in: its date's and its last modification's."""
        return {d[:7] for d in (self.date, self.lastmod) if len(d) >= 7}




def entries_of(body: str) -> tuple[Entry, ...]:
    """The dated entry headings of a corpus body (`## 2003.6.29(日) {#2003-06-29}`)."""
    return tuple(Entry(m["date"], m["heading"], m["anchor"]) for m in ENTRY_HEADING_RE.finditer(body)
                 if len(m["date"]) == len("2003-06-29"))


def fold(text: str) -> str:
    """Text as suggestions compare it: NFKC (full-width Latin and digits are ASCII), case-folded."""
    return unicodedata.normalize("NFKC", text).casefold()


def _text(value: object) -> str:
    return str(value) if value not in (None, "") else ""


def load_site(corpus: Path, site: str) -> list[Doc]:
    """Every readable corpus document of a site (files under a symlink or a dot folder are left out)."""
    docs = []
    if not corpus.is_dir() or corpus.is_symlink():
        return docs
    for md in sorted(corpus.rglob("*.md")):
        rel = md.relative_to(corpus).as_posix()
        if any(part.startswith(".") for part in rel.split("/")) or md.is_symlink():
            continue
        parsed = read_doc(md)
        if parsed is None:
            continue
        fm = parsed[0]
        title = _text(fm.get("title")) or rel
        tags = tuple(t for t in (fm.get("tags") or ()) if isinstance(t, str) and t)
        docs.append(Doc(site=site, rel=rel, path=_text(fm.get("path")) or rel, title=title,
                        date=_text(fm.get("date")), lastmod=_text(fm.get("lastmod"))[:10],
                        category=_text(fm.get("category")), section=_text(fm.get("section")),
                        tags=tags, summary=_text(fm.get("summary")),
                        url=_text(fm.get("url")), captured_at=_text(fm.get("captured_at")), key=fold(title),
                        entries=entries_of(parsed[1])))
    return docs


# ---- facets ----------------------------------------------------------------------------------------------

def facets(items: list[dict], year: str = "") -> dict[str, list[tuple[str, int]]]:
    """Counts of site, year (month once a year is chosen), category and tags over `items` (hits or documents,
    each a dict with site, date, category, tags), most frequent first (years and months in order)."""
    sites, years, months, cats, tags = Counter(), Counter(), Counter(), Counter(), Counter()
    for item in items:
        sites[item["site"]] += 1
        date = item.get("date") or ""
        if len(date) >= 4:
            years[date[:4]] += 1
            if year and date[:4] == year and len(date) >= 7:
                months[date[:7]] += 1
        if item.get("category"):
            cats[item["category"]] += 1
        tags.update(set(item.get("tags") or ()))
    return {"site": sites.most_common(), "year": sorted(years.items()), "month": sorted(months.items()),
            "category": cats.most_common(), "tag": tags.most_common(30)}


def matches(doc: Doc, site: str = "", year: str = "", month: str = "", category: str = "",
            tags: tuple[str, ...] = ()) -> bool:
    """Whether a document passes the search page's filters (browsing without a query)."""
    return ((not site or doc.site == site) and (not year or doc.date[:4] == year)
            and (not month or doc.date[:7] == month) and (not category or doc.category == category)
            and all(t in doc.tags for t in tags))


# ---- time --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Dated:
    """One thing with a day or month to show on the time pages: a diary entry, or a page without entries."""

    date: str
    title: str
    doc: Doc
    anchor: str = ""  # an entry's: the reader opens at it


def dated_items(docs: list[Doc]) -> list[Dated]:
    """Every diary entry of the documents, and each document without entries by its date (and lastmod's month)."""
    items = []
    for doc in docs:
        if doc.entries:
            items += [Dated(e.date, e.title, doc, e.anchor) for e in doc.entries]
            continue
        items += [Dated(doc.date, doc.title, doc)] if doc.date else []
        if doc.lastmod and doc.lastmod[:7] != doc.date[:7]:
            items.append(Dated(doc.lastmod, f"{doc.title} (updated)", doc))
    return items


def histogram(docs: list[Doc]) -> dict[str, list[int]]:
    """Year → 12 monthly counts of the entries and pages dated in each month (dated_items): a diary page counts
    each of its entries; another page counts in its date's month and its last update's. Years in order, with the
    empty years between the first and the last."""
    counts: Counter[str] = Counter(item.date[:7] for item in dated_items(docs) if len(item.date) >= 7)
    if not counts:
        return {}
    years = [int(m[:4]) for m in counts]
    return {str(y): [counts.get(f"{y:04d}-{m:02d}", 0) for m in range(1, 13)] for y in range(min(years),
                                                                                       max(years) + 1)}


def in_period(docs: list[Doc], period: str) -> list[Dated]:
    """The entries and pages dated in a month (YYYY-MM) or on a day (YYYY-MM-DD), by date."""
    return sorted((i for i in dated_items(docs) if i.date.startswith(period)),
                  key=lambda i: (i.date, i.doc.path, i.anchor))


def on_this_day(docs: list[Doc], month_day: str) -> list[Dated]:
    """The entries and pages of every year dated on a day of the year (MM-DD), oldest first."""
    return sorted((i for i in dated_items(docs) if len(i.date) == 10 and i.date[5:] == month_day),
                  key=lambda i: (i.date, i.doc.site, i.doc.path, i.anchor))


def neighbours(docs: list[Doc], doc: Doc) -> tuple[Doc | None, Doc | None]:
    """The previous and next dated document of the same site by date (then path); none for an undated one."""
    dated = sorted((d for d in docs if d.site == doc.site and d.date), key=lambda d: (d.date, d.path))
    if doc not in dated:
        return None, None
    at = dated.index(doc)
    return (dated[at - 1] if at else None), (dated[at + 1] if at + 1 < len(dated) else None)


# ---- suggestions -----------------------------------------------------------------------------------------

def suggest(docs: list[Doc], query: str, limit: int = 8) -> list[dict]:
    """Titles holding the query (those starting with it first), then tags holding it; cheap: a scan of the
    in-memory titles (thousands of documents in well under 100 ms)."""
    q = fold(query.strip())
    if not q:
        return []
    starts, inside = [], []
    for doc in docs:
        at = doc.key.find(q)
        if at == 0:
            starts.append(doc)
        elif at > 0:
            inside.append(doc)
    out = [{"kind": "title", "text": d.title, "site": d.site, "path": d.path, "date": d.date}
           for d in (starts + inside)[:limit]]
    if len(out) < limit:
        seen: Counter[str] = Counter(t for d in docs for t in d.tags if q in fold(t))
        out += [{"kind": "tag", "text": t, "count": n} for t, n in seen.most_common(limit - len(out))]
    return out
