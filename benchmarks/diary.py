"""Diary benchmark: are a diary's entries headings of the corpus, with the right dates, and are its chunks dated
by their own entry?

    .venv/bin/python benchmarks/diary.py            # the pipeline's page functions over the 11 dated diary pages
    .venv/bin/python benchmarks/diary.py --flow     # the whole site (siterag run, local_path) in a temp data dir
    .venv/bin/python benchmarks/diary.py -v         # also list missed entries and chunks dated otherwise

Pages: ../shared/sites/nanatsumori/diary/diary-tsurezure*.htm and diary-shzen2000.1*.htm ("徒然なるままに" and
"自然日記", ~750 entries, 2000..2005; see its SOURCE.txt, "Diary pages and entry-heading formats").

Ground truth, read from the raw HTML alone (cp932, lxml; nothing of siterag): an entry is a paragraph of class
border1/border2/border3 (`<p class="border3"><a name="2003.6.29(日)">…`, `<P class="border1">2001年12月9日(日)`)
whose text starts with a date (a stray character before it allowed, as in the author's `あ2003.8.11(月)`); its date
is read by this file's own regex (`2003.6.29`, `2001年12月9日`, and the typos `2004.1231` / `2002.630`, month glued
to day, before a weekday). An entry's text is everything from its date paragraph to the next entry's.

Corpus: the pages are normalized (siterag.pipeline.normalize_pages) and run through siterag.pipeline.process_page
(heuristic extraction, no LLM, the site's template found over all its pages)
into a temp data dir — or, with --flow, the whole site is archived by
`siterag run` (every page, site template included) and its corpus read.

Figures, per page and in all:
* entries: date paragraphs in the page;
* headings: entries whose date line is a heading of the corpus document (text equal but for spaces) whose date
  (siterag.enrich.dates.entry_dates, as the chunker reads it) is the entry's date — the target is 100%;
* extra: date headings of the document that are no entry of the page;
* chunks: of the chunks (siterag.index.chunking.chunk_markdown, as the index cuts them) that lie in an entry (their
  longest line, 8+ characters, occurs in exactly one entry's text), the share whose date is that entry's date.
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
from datetime import date
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
SITE = "nanatsumori"
PATTERNS = ("diary/diary-tsurezure*.htm", "diary/diary-shzen2000.1*.htm")
ENTRY_CLASSES = {"border1", "border2", "border3"}
# 2003.6.29 | 2004.1231, 2002.630 (typos: month glued to day, before the weekday) | 2001年12月9日
TRUTH_RE = re.compile(r"^\D?(\d{4})(?:\.(\d{1,2})\.(\d{1,2})|\.(\d{1,2})(\d\d)(?=[(（])|年(\d{1,2})月(\d{1,2})日)")
_HEADING_RE = re.compile(r"^#{1,6}\s+(.*?)\s*$")
MIN_LINE = 8


def squash(text: str) -> str:
    """Text compared without spaces, Markdown escapes and emphasis."""
    return re.sub(r"[\s\\*]+", "", text)


def truth(path: Path) -> list[dict]:
    """The entries of a page: {"text": date paragraph, "date": 'YYYY-MM-DD' | None, "body": squashed text}."""
    root = lxml.html.fromstring(path.read_bytes().decode("cp932"))
    entries: list[dict] = []
    texts: list[list[str]] = [[]]  # texts[0]: before the first entry

    def add(text: str | None) -> None:
        if text:
            texts[-1].append(text)

    def walk(el: etree._Element) -> None:
        if isinstance(el.tag, str) and el.tag not in ("script", "style"):  # comments: only their tails count
            text = " ".join(el.text_content().split()) if el.tag == "p" else ""
            match = TRUTH_RE.match(text)
            if match and (el.get("class") or "").lower() in ENTRY_CLASSES:
                y, m, d = (int(g) for g in match.groups() if g)
                try:
                    when = date(y, m, d).isoformat()
                except ValueError:
                    when = None
                entries.append({"text": text, "date": when})
                texts.append([])
            add(el.text)
            for child in el:
                walk(child)
        add(el.tail)

    walk(root)
    for entry, parts in zip(entries, texts[1:], strict=True):
        entry["body"] = squash("".join(parts))
    return entries


def build_pages(data: Path, pages: list[str]) -> SiteLayout:
    """The corpus of `pages` made by the pipeline's own page functions (normalize, then process_page)."""
    layout = SiteLayout(data, SITE)
    site = SiteConfig(name=SITE, local_path=str(SHARED / SITE), extract_mode="heuristic")
    manifest = normalize_pages(SHARED / SITE, layout.normalized, pages)
    templates = folder_template(SHARED / SITE)  # the site's template, from all its pages, as `siterag run` has it
    names = corpus_paths(pages)
    for rel in pages:
        outcome = process_page(layout, site, rel, names[rel], manifest[rel], None, False, "", templates.get(rel))
        if outcome.status == "failed":
            print(f"  failed: {rel}: {outcome.note}", flush=True)
    return layout


def build_flow(data: Path) -> SiteLayout:
    """The corpus of the whole site, archived by `siterag run` from its folder."""
    cfg = data / "diary-bench.toml"
    data.mkdir(parents=True, exist_ok=True)
    cfg.write_text(f'[defaults]\ndata_dir = "{data}"\nextract_mode = "heuristic"\n\n[[site]]\nname = "{SITE}"\n'
                   f'local_path = "{SHARED / SITE}"\n', encoding="utf-8")
    prefect_home = tempfile.mkdtemp(prefix="siterag-diary-prefect-")
    env = {**os.environ, "PREFECT_HOME": prefect_home, "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "DO_NOT_TRACK": "1"}
    try:
        subprocess.run([sys.executable, "-m", "siterag.cli", "--config", str(cfg), "run", SITE], check=True,
                       env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    finally:
        shutil.rmtree(prefect_home, ignore_errors=True)
    return SiteLayout(data, SITE)


def measure(entries: list[dict], fields: dict, body: str) -> dict:
    """The figures of one page: its entries against its corpus document."""
    lines = body.splitlines()
    dated = entry_dates(body, str(fields.get("date") or "") or None)
    headings = Counter()  # (squashed text, date) of the document's date headings
    for n, when in dated.items():
        headings[squash(_HEADING_RE.match(lines[n]).group(1)), when] += 1
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
            "chunks_right": right, "ambiguous": ambiguous}


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    -"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flow", action="store_true", help="archive the whole site with `siterag run`")
    parser.add_argument("--data", type=Path, help="data dir to build into and keep (default: a temp dir)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list missed entries, chunks dated otherwise")
    args = parser.parse_args()
    source = SHARED / SITE
    if not source.is_dir():
        print(f"no {source}: the benchmark needs ../shared/sites/{SITE}", file=sys.stderr)
        return 2
    pages = sorted({p.relative_to(source).as_posix() for pat in PATTERNS for p in source.glob(pat)})
    data = args.data or Path(tempfile.mkdtemp(prefix="siterag-diary-"))
    try:
        report(args, source, pages, data)
    finally:
        if args.data is None:
            shutil.rmtree(data, ignore_errors=True)
    return 0


def report(args: argparse.Namespace, source: Path, pages: list[str], data: Path) -> None:
    """Build the corpus into `data`, then print the figures."""
    started = time.monotonic()
    layout = build_flow(data) if args.flow else build_pages(data, pages)
    print(f"corpus: {layout.corpus} ({'siterag run' if args.flow else 'process_page'}, "
          f"{time.monotonic() - started:.0f} s)\n")
    names = corpus_paths(pages) if not args.flow else None
    total = Counter()
    print(f"{'page':40} {'date':10} {'from':7} {'entries':>7} {'headings':>16} {'extra':>5} {'chunks':>14}")
    for rel in pages:
        entries = truth(source / rel)
        doc = layout.corpus / (names[rel] if names else corpus_paths([rel])[rel])
        parsed = read_doc(doc) if doc.exists() else None
        fields, body = parsed if parsed else ({}, "")
        got = measure(entries, fields, body)
        total.update({k: v for k, v in got.items() if isinstance(v, int)})
        print(f"{rel:40} {str(fields.get('date') or '-'):10} {str(fields.get('date_from') or '-'):7} "
              f"{got['entries']:7d} {got['headings']:5d} ({pct(got['headings'], got['entries'])}) "
              f"{got['extra']:5d} {got['chunks_right']:4d}/{got['chunks']:<4d}"
              f"{pct(got['chunks_right'], got['chunks'])}")
        if args.verbose and got["missed"]:
            print("    missed: " + ", ".join(got["missed"][:40]) + (" …" if len(got["missed"]) > 40 else ""))
        if args.verbose and got["wrong"]:
            print("    chunks dated otherwise: " + "; ".join(got["wrong"][:20]))
    print(f"\n{'all':59} {total['entries']:7d} {total['headings']:5d} ({pct(total['headings'], total['entries'])}) "
          f"{total['extra']:5d} {total['chunks_right']:4d}/{total['chunks']:<4d}"
          f"{pct(total['chunks_right'], total['chunks'])}")
    print(f"\nentries with a date: {total['dated']} of {total['entries']}; "
          f"entry headings in the corpus with their date: {total['headings']} "
          f"({pct(total['headings'], total['entries'])}); chunks dated by their own entry: "
          f"{total['chunks_right']} of {total['chunks']} "
          f"({pct(total['chunks_right'], total['chunks'])}; {total['ambiguous']} chunks left out: text in several "
          "entries)")


if __name__ == "__main__":
    sys.exit(main())
