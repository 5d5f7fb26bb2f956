"""Diary benchmark: are a diary's entries headings of the corpus, with the right dates, and are its chunks dated
by their own entry? On every shared site with dated entries, and on one without (a negative control).

    .venv/bin/python benchmarks/diary.py                 # every site below: the pipeline's page functions
    .venv/bin/python benchmarks/diary.py brianwilliams   # one site
    .venv/bin/python benchmarks/diary.py --flow          # whole sites (siterag run, local_path) in a temp data dir
    .venv/bin/python benchmarks/diary.py -v              # per page; missed entries, chunks dated otherwise

Sites (../shared/sites/*, see each SOURCE.txt; skipped when absent):
* brianwilliams: diary/*.html|htm (an English diary, 1935..2007, ~4,000 entries): `<h3>WEDNESDAY 31st JULY 1935`,
  then `<h3>TUESDAY 2nd JANUARY` (the year only on a year's first entry), `<p class=date>` in a Word export;
* nanatsumori: diary/diary-tsurezure*.htm and diary-shzen2000.1*.htm ("徒然なるままに", "自然日記", ~750 entries):
  `<p class="border3"><a name="2003.6.29(日)">…`, `<P class="border1">2001年12月9日(日)`;
* leftyuncle: blog/*/*.html (one post a page): `2012-10-25 Windows8への切り替え準備<BR>` in the first table cell;
* hrtaj: every page; no diary at all — every date heading found there is a false entry.

Ground truth, read from the raw HTML alone by a small reader per site (lxml and this file's own regexes, nothing
of siterag): the entry elements above and their dates (brianwilliams: a heading without a year takes the year of
the entry before, rolling over after December, else the page's <h1> year or its file name's). An entry's text is
everything from its heading to the next entry's.

Corpus: the pages are normalized (siterag.pipeline.normalize_pages) and run through siterag.pipeline.process_page
(heuristic extraction, no LLM, the site's template found over all its pages) into a temp data dir — or, with
--flow, the whole site is archived by `siterag run` and its corpus read.

Figures, per site (per page with -v):
* entries: entry headings of the raw pages;
* dated headings: entries whose heading is a heading of the corpus document (text equal but for spaces and its
  anchor) whose date (siterag.enrich.dates.entry_dates, as the chunker reads it) is the entry's date (target 98%);
* extra: date headings of the document that are no entry of the page (false entries on hrtaj);
* chunks by own entry: of the chunks (siterag.index.chunking.chunk_markdown, as the index cuts them) that lie in
  an entry (their longest line, 8+ characters, occurs in exactly one entry's text), the share whose date is that
  entry's date.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from datetime import date
from fnmatch import fnmatch
from pathlib import Path

import lxml.html
from lxml import etree

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from siterag.config import SiteConfig  # noqa: E402
from siterag.enrich.corpus import corpus_paths, read_doc  # noqa: E402
from siterag.enrich.dates import entry_dates  # noqa: E402
from siterag.extract.template import folder_template  # noqa: E402
from siterag.index.chunking import chunk_markdown, markdown_lines  # noqa: E402
from siterag.layout import SiteLayout  # noqa: E402
from siterag.pipeline import normalize_pages, process_page  # noqa: E402

SHARED = Path(os.environ.get("SITERAG_SHARED", ROOT.parent / "shared")) / "sites"
_HEADING_RE = re.compile(r"^#{1,6}\s+(.*?)\s*$")
_ANCHOR_RE = re.compile(r"\s*\{#[^\s{}]+\}\s*$")  # an entry heading's anchor, left out when texts are compared
MIN_LINE = 8


def squash(text: str) -> str:
    """Text compared without spaces, Markdown escapes and emphasis."""
    return re.sub(r"[\s\\*]+", "", text)


def decode(raw: bytes, *codecs: str) -> str:
    """The bytes decoded by the first codec that takes them."""
    for codec in codecs[:-1]:
        try:
            return raw.decode(codec)
        except UnicodeDecodeError:
            continue
    return raw.decode(codecs[-1], "replace")


def walk_entries(root: etree._Element, at_element, at_text=None) -> list[dict]:  # noqa: ANN001
    """The entries of a page in document order: an element for which `at_element(el)` gives an entry
    ({"text", "date"}) or a text node for which `at_text(text)` does starts one; an entry's "body" (squashed) is
    all text from it to the next entry's start."""
    entries: list[dict] = []
    texts: list[list[str]] = [[]]  # texts[0]: before the first entry

    def add(text: str | None) -> None:
        if not text:
            return
        entry = at_text(text) if at_text else None
        if entry:
            entries.append(entry)
            texts.append([])
        texts[-1].append(text)

    def walk(el: etree._Element) -> None:
        if isinstance(el.tag, str) and el.tag not in ("script", "style"):  # comments: only their tails count
            entry = at_element(el)
            if entry:
                entries.append(entry)
                texts.append([])
            add(el.text)
            for child in el:
                walk(child)
        add(el.tail)

    walk(root)
    for entry, parts in zip(entries, texts[1:], strict=True):
        entry["body"] = squash("".join(parts))
    return entries


def iso(y: int, m: int, d: int) -> str | None:
    try:
        return date(y, m, d).isoformat()
    except ValueError:
        return None


# ---- nanatsumori: `<p class="border3"><a name="2003.6.29(日)">…`, `<P class="border1">2001年12月9日(日)` ----------
# 2003.6.29 | 2004.1231, 2002.630 (typos: month glued to day, before the weekday) | 2001年12月9日
NANA_RE = re.compile(r"^\D?(\d{4})(?:\.(\d{1,2})\.(\d{1,2})|\.(\d{1,2})(\d\d)(?=[(（])|年(\d{1,2})月(\d{1,2})日)")


def truth_nanatsumori(path: Path) -> list[dict]:
    """Paragraphs of class border1/2/3 whose text starts with a date (a stray character before it allowed)."""
    def at(el: etree._Element) -> dict | None:
        text = " ".join(el.text_content().split()) if el.tag == "p" else ""
        match = NANA_RE.match(text)
        if match and (el.get("class") or "").lower() in {"border1", "border2", "border3"}:
            return {"text": text, "date": iso(*(int(g) for g in match.groups() if g))}
        return None

    return walk_entries(lxml.html.fromstring(path.read_bytes().decode("cp932")), at)


# ---- brianwilliams: `<h3>WEDNESDAY 31st JULY 1935`, `<h3>TUESDAY 2nd JANUARY` (the year only on a year's first
# entry), `<p class=date>FRIDAY 1st JANUARY 1954` in the Word export ----------------------------------------------
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december"]
BW_RE = re.compile(r"^(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+(\d{1,2})(?:st|nd|rd|th|h)?\s+(" + "|".join(MONTHS)
                   + r")(?:,?\s+(\d{4}))?\b", re.IGNORECASE)
_INLINE = {"a", "b", "i", "u", "em", "strong", "span", "font", "small", "big", "br", "sup", "sub"}


def own_text(el: etree._Element) -> str:
    """An element's text up to its first block child (a heading left unclosed runs on into the next table)."""
    parts = [el.text or ""]
    for child in el:
        if not isinstance(child.tag, str) or child.tag.lower() not in _INLINE:
            break
        parts += [child.text_content(), child.tail or ""]
    return " ".join("".join(parts).replace("\xa0", " ").split())


def truth_brianwilliams(path: Path) -> list[dict]:
    """<h3> (and the Word page's <p class=date>) that start weekday, day, month, maybe a year; a heading without
    a year has the year of the entry before (a month before the last one's: the next year), else the page's
    <h1> year, else its file name's (`1947b.html`; `540101.htm` = 1954)."""
    root = lxml.html.fromstring(decode(path.read_bytes(), "cp1252", "latin-1"))
    h1 = next((m.group(0) for h in root.iter("h1") if (m := re.search(r"\b(19|20)\d\d\b", h.text_content()))), None)
    named = re.match(r"^((?:19|20)\d\d)|^(\d\d)\d{4}$", path.stem)
    year = int(h1) if h1 else (int(named.group(1) or "19" + named.group(2)) if named else None)
    last = [year, 0]

    def at(el: etree._Element) -> dict | None:
        tag = el.tag.lower()
        if tag != "h3" and not (tag == "p" and (el.get("class") or "").lower() == "date"):
            return None
        text = own_text(el)
        match = BW_RE.match(text)
        if not match:
            return None
        day, month = int(match.group(1)), MONTHS.index(match.group(2).lower()) + 1
        if match.group(3):
            last[0] = int(match.group(3))
        elif last[0] is not None and month < last[1]:
            last[0] += 1  # oldest first: January after December is the next year
        last[1] = month
        return {"text": text, "date": iso(last[0], month, day) if last[0] else None}

    return walk_entries(root, at)


# ---- leftyuncle: one post per page, `2012-10-25 Windows8への切り替え準備<BR>` in the first table cell -----------
LEFTY_RE = re.compile(r"^\s*((?:19|20)\d\d)-(\d\d)-(\d\d)\s+\S")


def truth_leftyuncle(path: Path) -> list[dict]:
    """The first text of the page that starts with an ISO date and a title: the post's heading."""
    seen: list[bool] = []

    def at_text(text: str) -> dict | None:
        match = LEFTY_RE.match(text)
        if seen or not match:
            return None
        seen.append(True)
        return {"text": " ".join(text.split()), "date": iso(*(int(g) for g in match.groups()))}

    root = lxml.html.fromstring(decode(path.read_bytes(), "utf-8", "cp932"))
    return walk_entries(root, lambda el: None, at_text)


def truth_none(path: Path) -> list[dict]:
    """A site without a diary: no entries (every date heading found is a false one)."""
    return []


@dataclass(frozen=True)
class Site:
    name: str
    patterns: tuple[str, ...]
    truth: object  # Path -> list[dict]
    exclude: tuple[str, ...] = ()


SITES = (
    Site("brianwilliams", ("diary/*.html", "diary/*.htm"), truth_brianwilliams, ("diary/!*",)),
    Site("nanatsumori", ("diary/diary-tsurezure*.htm", "diary/diary-shzen2000.1*.htm"), truth_nanatsumori),
    Site("leftyuncle", ("blog/*/*.html",), truth_leftyuncle),
    Site("hrtaj", ("**/*.htm", "**/*.html"), truth_none),
)


def build_pages(data: Path, name: str, pages: list[str]) -> SiteLayout:
    """The corpus of a site's `pages` made by the pipeline's own page functions (normalize, then process_page)."""
    layout = SiteLayout(data, name)
    site = SiteConfig(name=name, local_path=str(SHARED / name), extract_mode="heuristic")
    manifest = normalize_pages(SHARED / name, layout.normalized, pages)
    templates = folder_template(SHARED / name)  # the site's template, from all its pages, as `siterag run` has it
    names = corpus_paths(pages)
    for rel in pages:
        if rel not in manifest:
            continue
        outcome = process_page(layout, site, rel, names[rel], manifest[rel], None, False, "", templates.get(rel))
        if outcome.status == "failed":
            print(f"  failed: {rel}: {outcome.note}", flush=True)
    return layout


def build_flow(data: Path, name: str) -> SiteLayout:
    """The corpus of a whole site, archived by `siterag run` from its folder."""
    cfg = data / "diary-bench.toml"
    data.mkdir(parents=True, exist_ok=True)
    cfg.write_text(f'[defaults]\ndata_dir = "{data}"\nextract_mode = "heuristic"\n\n[[site]]\nname = "{name}"\n'
                   f'local_path = "{SHARED / name}"\n', encoding="utf-8")
    prefect_home = tempfile.mkdtemp(prefix="siterag-diary-prefect-")
    env = {**os.environ, "PREFECT_HOME": prefect_home, "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "DO_NOT_TRACK": "1"}
    try:
        subprocess.run([sys.executable, "-m", "siterag.cli", "--config", str(cfg), "run", name], check=True,
                       env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    finally:
        shutil.rmtree(prefect_home, ignore_errors=True)
    return SiteLayout(data, name)


def measure(entries: list[dict], fields: dict, body: str) -> dict:
    """The figures of one page: its entries against its corpus document."""
    lines = body.splitlines()
    dated = entry_dates(body, str(fields.get("date") or "") or None)
    headings = Counter()  # (squashed text, date) of the document's date headings
    for n, when in dated.items():
        headings[squash(_ANCHOR_RE.sub("", _HEADING_RE.match(lines[n]).group(1))), when] += 1
    found, missed = 0, []
    for entry in entries:
        key = (squash(entry["text"]), entry["date"])
        if entry["date"] and headings[key] > 0:
            headings[key] -= 1
            found += 1
        else:
            missed.append(entry["text"])
    in_entry = right = ambiguous = 0
    wrong: list[str] = []
    for chunk in chunk_markdown(body, doc_date=str(fields.get("date") or "")):
        longest = max((squash(ln) for ln in markdown_lines(chunk.text)), key=len, default="")
        if len(longest) < MIN_LINE:
            continue
        owners = [e for e in entries if longest in e["body"]]
        if len(owners) != 1:
            ambiguous += len(owners) > 1
            continue
        in_entry += 1
        if chunk.date == owners[0]["date"]:
            right += 1
        else:
            wrong.append(f"{chunk.heading} [{chunk.date or '-'}, entry {owners[0]['text']}]")
    return {"entries": len(entries), "dated": sum(1 for e in entries if e["date"]), "headings": found,
            "extra": sum(headings.values()), "missed": missed, "wrong": wrong, "chunks": in_entry,
            "chunks_right": right, "ambiguous": ambiguous, "pages": 1}


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    -"


def site_pages(site: Site) -> list[str]:
    source = SHARED / site.name
    found = {p.relative_to(source).as_posix() for pat in site.patterns for p in source.glob(pat) if p.is_file()}
    return sorted(rel for rel in found if not any(fnmatch(rel, ex) for ex in site.exclude))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sites", nargs="*", help="sites to measure (default: " + ", ".join(s.name for s in SITES) + ")")
    parser.add_argument("--flow", action="store_true", help="archive the whole sites with `siterag run`")
    parser.add_argument("--data", type=Path, help="data dir to build into and keep (default: a temp dir)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="figures per page; list missed entries, chunks dated otherwise")
    args = parser.parse_args()
    chosen = [s for s in SITES if not args.sites or s.name in args.sites]
    if not SHARED.is_dir():
        print(f"skipped: no {SHARED} (the benchmark needs ../shared/sites)")
        return 0
    rows = []
    for site in chosen:
        if not (SHARED / site.name).is_dir():
            print(f"{site.name}: skipped, no {SHARED / site.name}")
            continue
        data = args.data or Path(tempfile.mkdtemp(prefix="siterag-diary-"))
        try:
            rows.append((site, report(args, site, data)))
        finally:
            if args.data is None:
                shutil.rmtree(data, ignore_errors=True)
    print(f"\n{'site':14} {'pages':>5} {'entries':>7} {'dated headings':>16} {'extra':>5} {'chunks by own entry':>22}")
    for site, total in rows:
        print(f"{site.name:14} {total['pages']:5d} {total['entries']:7d} {total['headings']:7d} "
              f"({pct(total['headings'], total['entries'])}) {total['extra']:5d} "
              f"{total['chunks_right']:6d}/{total['chunks']:<6d} ({pct(total['chunks_right'], total['chunks'])})")
    print("\nextra: date headings of the corpus that are no entry of the page (on hrtaj, a site without a diary: "
          "false entries)")
    return 0


def report(args: argparse.Namespace, site: Site, data: Path) -> Counter:
    """Build a site's corpus into `data`, print its figures (per page with -v) and return its totals."""
    source = SHARED / site.name
    pages = site_pages(site)
    started = time.monotonic()
    layout = build_flow(data, site.name) if args.flow else build_pages(data, site.name, pages)
    print(f"{site.name}: {len(pages)} pages, corpus {layout.corpus} ({'siterag run' if args.flow else 'process_page'},"
          f" {time.monotonic() - started:.0f} s)", flush=True)
    names = corpus_paths(pages)
    total: Counter = Counter()
    for rel in pages:
        entries = site.truth(source / rel)
        doc = layout.corpus / names[rel]
        parsed = read_doc(doc) if doc.exists() else None
        fields, body = parsed if parsed else ({}, "")
        got = measure(entries, fields, body)
        total.update({k: v for k, v in got.items() if isinstance(v, int)})
        if args.verbose and (got["entries"] or got["extra"]):
            print(f"  {rel:40} {str(fields.get('date') or '-'):10} {str(fields.get('lastmod') or '-'):10} "
                  f"{str(fields.get('date_from') or '-'):7} {got['entries']:5d} {got['headings']:5d} "
                  f"({pct(got['headings'], got['entries'])}) {got['extra']:4d} "
                  f"{got['chunks_right']:4d}/{got['chunks']:<4d}{pct(got['chunks_right'], got['chunks'])}")
            if got["missed"]:
                print("    missed: " + ", ".join(got["missed"][:20]) + (" …" if len(got["missed"]) > 20 else ""))
            if got["wrong"]:
                print("    chunks dated otherwise: " + "; ".join(got["wrong"][:10]))
    return total


if __name__ == "__main__":
    sys.exit(main())
