"""Stage 5 output: one Markdown file with YAML front matter per page, under data/corpus/<site>/.

The corpus is a real static-site source (Hugo builds it as it is, tests/enrich/test_hugo.py). A folder's index page
is `_index.md`: a plain `index.md` (or `index.htm.md`) would make Hugo treat the folder as one page bundle and
drop its other pages, so a second index page of the folder becomes `index-htm.md`. `date` is always a full
`YYYY-MM-DD`: a date known only to the month or year (`2009-05` from `blog/2009-05/…`) is written as its
first day plus `date_precision: month` (or `year`), which read_doc undoes.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

import frontmatter

from siterag.layout import atomic_write

PAGE_SUFFIXES = {".html", ".htm", ".shtml", ".xhtml", ".php", ".asp", ".aspx", ".cgi", ".jsp"}
MACHINE_FIELDS = ("site", "source", "path", "date", "processed_at", "content_hash", "body_hash", "encoding",
                  "extract_mode", "extract_key", "fallback", "metadata_by")
LLM_FIELDS = ("title", "category", "tags", "summary")


def corpus_paths(rel_paths: list[str]) -> dict[str, str]:
    """Map each page path to its corpus path: the page suffix becomes .md; clashes keep the full name
    (a folder's index.html + index.htm: `_index.md` + `index-htm.md`)."""
    wanted: dict[str, list[str]] = {}
    for rel in sorted(rel_paths):
        p = PurePosixPath(rel)
        suffix = p.suffix.lower()
        short = str(p.with_suffix(".md")) if suffix in PAGE_SUFFIXES else rel + ".md"
        if PurePosixPath(short).name == "index.md":  # a folder's index page is Hugo's section page
            short = str(PurePosixPath(short).with_name("_index.md"))
        wanted.setdefault(short, []).append(rel)
    out: dict[str, str] = {}
    taken = set(wanted)
    for short, rels in wanted.items():
        if len(rels) == 1:
            out[rels[0]] = short
        elif PurePosixPath(short).name == "_index.md":
            # index.html + index.htm: the first (.html before .htm before the rest) is the section page; the others
            # may not be called index.<x>.md, which Hugo would also take for a bundle's index (hiding the folder)
            first, *others = sorted(rels, key=lambda r: (_INDEX_ORDER.get(PurePosixPath(r).suffix.lower(), 9), r))
            out[first] = short
            for rel in others:
                name = str(PurePosixPath(short).with_name(f"index-{PurePosixPath(rel).suffix.lstrip('.')}.md"))
                out[rel] = name if name not in taken else rel + ".md"
                taken.add(out[rel])
        else:
            for rel in rels:
                out[rel] = rel + ".md"
    return out


_INDEX_ORDER = {".html": 0, ".htm": 1}


_DATE_AT = MACHINE_FIELDS.index("date") + 1
_ORDER = (*LLM_FIELDS, *MACHINE_FIELDS[:_DATE_AT], "date_precision", *MACHINE_FIELDS[_DATE_AT:])
_PARTIAL_DATE_RE = re.compile(r"^(\d{4})(-(\d{2}))?$")


def _full_date(fields: dict) -> dict:
    """`date: 2009-05` → `date: 2009-05-01` + `date_precision: month` (Hugo parses only full dates)."""
    match = _PARTIAL_DATE_RE.match(str(fields.get("date") or ""))
    if not match:
        return fields
    year, month = match.group(1), match.group(3)
    return {**fields, "date": f"{year}-{month or '01'}-01", "date_precision": "month" if month else "year"}


def write_doc(path: Path, body: str, fields: dict) -> None:
    """Write a corpus document atomically; machine fields come first."""
    fields = _full_date(fields)
    ordered = {k: fields[k] for k in _ORDER if k in fields}
    ordered.update({k: v for k, v in fields.items() if k not in ordered})
    post = frontmatter.Post(body, **ordered)
    atomic_write(path, frontmatter.dumps(post, sort_keys=False, allow_unicode=True) + "\n")


def read_doc(path: Path) -> tuple[dict, str] | None:
    """Front matter and body of a corpus document, or None if missing or unreadable."""
    try:
        post = frontmatter.load(path)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    except Exception:  # noqa: BLE001 - a corrupt YAML header means "redo this page"
        return None
    fields = dict(post.metadata)
    precision = fields.pop("date_precision", None)
    if precision in ("month", "year") and isinstance(fields.get("date"), str):
        fields["date"] = fields["date"][: 7 if precision == "month" else 4]
    return fields, post.content
