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
_ORDER = (*LLM_FIELDS, "page_title", *MACHINE_FIELDS[:_DATE_AT], "date_precision", *MACHINE_FIELDS[_DATE_AT:])
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


# Front matter fields and the kind of value each must hold; corpus files are the user's to edit, so read_doc
# checks them and reads a value of the wrong kind as the nearest right one (saying so), never crashing a run.
TEXT_FIELDS = ("title", "category", "summary", "site", "source", "path", "processed_at", "content_hash", "body_hash",
               "encoding", "extract_mode", "extract_key", "fallback", "metadata_by", "metadata_problem", "date_from",
               "url", "captured_at", "enrich_key", "page_title")
_DATE_RE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")
_TAG_SPLIT_RE = re.compile(r"\s*[,、，]\s*")


def _scalar(value: object) -> str | None:
    """A YAML scalar as text (a date as ISO); None for a list, a table or nothing."""
    if isinstance(value, str):
        return value
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, (bool, int, float)):
        return str(value).lower() if isinstance(value, bool) else str(value)
    return None


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def checked_fields(fields: dict) -> tuple[dict, list[str]]:
    """Front matter with each known field of the kind the pipeline needs, and what had to be changed:
    `tags: tea` -> ["tea"] (`tags: tea, green` -> two tags), `tags: 5` -> ["5"], `title: 5` -> "5";
    a list or table where text belongs, or a date that is no date, is ignored. Unknown keys are kept as they are."""
    out, problems = dict(fields), []
    for key in TEXT_FIELDS:
        value = out.get(key)
        if value is None or isinstance(value, str):
            continue
        text = _scalar(value)
        if not hasattr(value, "isoformat"):  # an unquoted date is a date the person meant as text: not a problem
            problems.append(f"{key}: {_shown(value)} is not text; " + (f"read as {text!r}" if text is not None
                                                                        else "ignored"))
        out[key] = text if text is not None else ""
    tags = out.get("tags")
    if tags is not None and not (isinstance(tags, list) and all(isinstance(t, str) for t in tags)):
        if isinstance(tags, list):
            read = [t for t in (_scalar(t) for t in tags) if t]
        else:
            text = _scalar(tags)
            read = [t for t in _TAG_SPLIT_RE.split(text.strip())] if text and text.strip() else []
        problems.append(f"tags: {_shown(tags)} is not a list of tags; read as {read}")
        out["tags"] = read
    date = out.get("date")
    if date is not None and date != "":
        text = date.isoformat()[:10] if hasattr(date, "isoformat") else _scalar(date)
        if text is None or not _DATE_RE.match(text):
            problems.append(f"date: {_shown(date)} is not a date (YYYY, YYYY-MM or YYYY-MM-DD); ignored")
            text = ""
        out["date"] = text
    runs = out.get("fallback_runs")
    if runs is not None and (isinstance(runs, bool) or not isinstance(runs, int)):
        number = int(runs) if isinstance(runs, str) and runs.strip().isdigit() else 0
        problems.append(f"fallback_runs: {_shown(runs)} is not a whole number; read as {number}")
        out["fallback_runs"] = number
    return out, problems


def read_doc(path: Path, problems: list[str] | None = None) -> tuple[dict, str] | None:
    """Front matter and body of a corpus document, or None if missing or unreadable. Fields of the wrong kind
    are read as the nearest right value (checked_fields); `problems` gets one `<path>: <field>: ...` line each."""
    try:
        post = frontmatter.load(path)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    except Exception:  # noqa: BLE001 - a corrupt YAML header means "redo this page"
        return None
    if not isinstance(post.metadata, dict):
        return None
    fields, found = checked_fields(dict(post.metadata))
    if problems is not None:
        problems.extend(f"{path}: {problem}" for problem in found)
    precision = fields.pop("date_precision", None)
    if precision in ("month", "year") and isinstance(fields.get("date"), str):
        fields["date"] = fields["date"][: 7 if precision == "month" else 4]
    return fields, post.content
