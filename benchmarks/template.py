"""Template left in the corpus: the shared legacy sites through the real page stages, then per site the share of
documents that still hold a line of the site's template.

    .venv/bin/python benchmarks/template.py [--sites gyrobot,nanatsumori] [--keep DIR]

A site's template lines are found independently of the extractor: every page's visible text (one line per block,
benchmarks/extraction.py's `visible_text`) is split into lines, and a line (compared on its word characters,
at least 2 of them) that occurs on at least 30% of the site's pages is template. Each page goes through the
stages `siterag run` uses (content sniffing, decoding, site template, extract), and for every corpus document
we check whether any of its lines is one of those template lines. Prints, per site: pages, documents, template
lines found, documents still holding one (share; target < 1%), and the most frequent leftovers; and the share of
visible characters kept.

Two more figures per site, each found without the extractor's rules:
* navigation rows kept (target < 2% of documents): a document holds one when a line of its body with two links or
  more, or a run of lines that are nothing but links, points mostly (at least half of its links, two or more) at
  the site's main pages: pages that at least HUB_SHARE of the site's pages link to (found on the pages' HTML).
* content lines dropped (target 0): lines of the page (as siterag's block splitter cuts them) that carry text of
  their own — not mostly link text, no counter or copyright line —, recur on at least 3 pages of the site, and are
  missing from the page's document, except lines a gold page of the site (benchmarks/gold-ja) leaves out: those
  are the site's template by hand. A line the template rule ate is one of these.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from urllib.parse import urldefrag, urljoin

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from extraction import visible_text  # noqa: E402

from siterag.config import SiteConfig  # noqa: E402
from siterag.enrich.corpus import corpus_paths, read_doc  # noqa: E402
from siterag.extract.blocks import html_to_blocks, normalise  # noqa: E402
from siterag.extract.chrome import is_boilerplate_line  # noqa: E402
from siterag.extract.template import site_template  # noqa: E402
from siterag.layout import SiteLayout  # noqa: E402
from siterag.normalize.sanitize import prepare_html  # noqa: E402
from siterag.pipeline import normalize_pages, process_batch, select_pages  # noqa: E402

SHARED = ROOT.parent / "shared" / "sites"
SITES = ("crest-digitalcity", "fontforge-ja", "gyrobot", "nanatsumori", "leftyuncle", "hrtaj", "brianwilliams")
SHARE = 0.3
HUB_SHARE = 0.2  # a page that this share of the site's pages link to is one of its main pages
RECURS = 3  # a line on this many pages recurs
GOLD = ROOT / "benchmarks" / "gold-ja"
SITE_ROOT = "http://site.invalid/"
_MD_LINK_RE = re.compile(r"(?<!!)\[((?:!\[[^\]]*\]\([^)]*\)|[^\]])*)\]\(([^)\s]*)[^)]*\)")
_MD_IMAGE_RE = re.compile(r"!\[[^\]]*\]\([^)]*\)")


def template_lines(normalized: Path, pages: list[str]) -> dict[str, str]:
    """Normalised line -> a sample of its text, for lines on at least SHARE of the pages."""
    counts: Counter[str] = Counter()
    sample: dict[str, str] = {}
    for rel in pages:
        seen = set()
        for line in visible_text((normalized / rel).read_text(encoding="utf-8")).splitlines():
            key = normalise(line)
            if len(key) >= 2 and key not in seen:
                seen.add(key)
                sample.setdefault(key, line.strip())
        counts.update(seen)
    return {k: sample[k] for k, n in counts.items() if n >= SHARE * len(pages)}


def target(page: str, href: str) -> str:
    """A link's target as a path of the site ('' for one outside it, a mail address, an in-page anchor)."""
    href = href.strip()
    if not href or href.startswith(("#", "mailto:", "javascript:")):
        return ""
    url = urldefrag(urljoin(SITE_ROOT + page, href)).url
    return url[len(SITE_ROOT):] if url.startswith(SITE_ROOT) else ""


def page_links(html: str, page: str) -> set[str]:
    """The site paths a page's <a href> point at (its raw HTML, by an lxml pass of its own)."""
    import lxml.html

    try:
        root = lxml.html.document_fromstring(html)
    except Exception:  # noqa: BLE001 - an empty or broken page links nowhere
        return set()
    return {t for href in root.xpath("//a/@href") if (t := target(page, str(href)))} - {page}


def hub_targets(normalized: Path, pages: list[str]) -> set[str]:
    """The site's main pages: linked from at least HUB_SHARE of its pages (and from 3)."""
    counts: Counter[str] = Counter()
    for rel in pages:
        counts.update(page_links((normalized / rel).read_text(encoding="utf-8"), rel))
    return {t for t, n in counts.items() if n >= max(RECURS, HUB_SHARE * len(pages))}


def _words(md: str) -> tuple[int, int]:
    """(word characters inside links, word characters outside links and images) of a Markdown line; an image
    shows no words (its alt text is not visible)."""
    plain = _MD_IMAGE_RE.sub("", md)
    inside = sum(len(normalise(_MD_IMAGE_RE.sub("", label))) for label, _ in _MD_LINK_RE.findall(plain))
    return inside, len(normalise(_MD_LINK_RE.sub("", plain)))


def _only_links(line: str) -> bool:
    """A body line that holds links and nothing else with words."""
    return bool(_MD_LINK_RE.search(line)) and not _words(line)[1]


def nav_rows(body: str, page: str, hubs: set[str]) -> list[str]:
    """A document's navigation rows: a line with 2+ links, or a run of link-only lines, whose links point mostly
    (at least half, two or more) at the site's main pages."""
    groups: list[list[str]] = []
    run: list[str] = []
    for line in body.splitlines() + [""]:
        if _only_links(line):
            run.append(line)
            continue
        if line.strip() or not run:  # a blank line between two link lines keeps the run
            if run:
                groups.append(run)
            run = []
            inside, outside = _words(line)
            if len(_MD_LINK_RE.findall(line)) > 1 and inside >= outside:  # mostly link text
                groups.append([line])
    rows = []
    for group in groups:
        links = [href for line in group for _, href in _MD_LINK_RE.findall(line)]
        to_hubs = sum(target(page, href) in hubs for href in links)
        if to_hubs >= 2 and 2 * to_hubs >= len(links):
            rows.append(" ".join(group))
    return rows


def gold_template(site: str, normalized: Path) -> set[str]:
    """Lines the gold pages of a site leave out (normalised): its template, marked by hand."""
    out: set[str] = set()
    if not (GOLD / "pages.tsv").exists():
        return out
    with open(GOLD / "pages.tsv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            page = normalized / row["path"]
            if row["site"] != site or not page.exists():
                continue
            gold = normalise((GOLD / f"{row['id']}.txt").read_text(encoding="utf-8"))
            out |= {key for _, text in page_lines(page) if (key := normalise(text)) and key not in gold}
    return out


def page_lines(page: Path) -> list[tuple[str, str]]:
    """(md, text) of each line of a normalized page, as siterag's block splitter cuts it."""
    blocks, _ = html_to_blocks(prepare_html(page.read_text(encoding="utf-8")))
    return [line for block in blocks for line in block.lines]


def content_line(md: str, text: str) -> bool:
    """A line with text of its own: words outside links and images, more than inside links; no counter or
    copyright line."""
    inside, outside = _words(md)
    return outside >= 2 and outside > inside and not is_boilerplate_line(text)


def dropped_content(normalized: Path, docs: dict[str, str], template: set[str]) -> list[tuple[str, str]]:
    """(page, line) of the recurring content lines missing from their documents (`template`: the gold pages'
    left-out lines)."""
    lines = {rel: page_lines(normalized / rel) for rel in docs}
    counts: Counter[str] = Counter()
    for found in lines.values():
        counts.update({normalise(text) for _, text in found})
    out = []
    for rel, body in docs.items():
        plain = normalise(re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", body))
        for md, text in lines[rel]:
            key = normalise(text)
            if (content_line(md, text) and counts[key] >= RECURS and key not in template and key not in plain):
                out.append((rel, text))
    return out


def doc_lines(body: str) -> set[str]:
    import re

    plain = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", body)
    return {normalise(line) for line in plain.splitlines()} - {""}


def run_site(name: str, data: Path) -> dict:
    site = SiteConfig(name=name, local_path=str(SHARED / name), extract_mode="heuristic")
    layout = SiteLayout(data, name)
    select = select_pages(SHARED / name, layout.logs)
    manifest = normalize_pages(SHARED / name, layout.normalized, select.pages)
    templates = site_template(layout.normalized, manifest)
    corpus_map = corpus_paths(select.pages)
    outcomes = process_batch(layout, site, select.pages, corpus_map, manifest, None, False, "", templates=templates)
    template = template_lines(layout.normalized, select.pages)
    docs = [(o.corpus, read_doc(layout.corpus / o.corpus)) for o in outcomes if o.corpus]
    leftovers: Counter[str] = Counter()
    holding = 0
    for _, parsed in docs:
        found = doc_lines(parsed[1]) & set(template) if parsed else set()
        holding += bool(found)
        leftovers.update(found)
    visible = sum(o.visible_chars for o in outcomes)
    content = sum(o.content_chars for o in outcomes)
    hubs = hub_targets(layout.normalized, select.pages)
    bodies = {o.path: parsed[1] for o in outcomes if o.corpus and (parsed := read_doc(layout.corpus / o.corpus))}
    rows = {rel: found for rel, body in bodies.items() if (found := nav_rows(body, rel, hubs))}
    dropped = dropped_content(layout.normalized, bodies, gold_template(name, layout.normalized))
    return {"site": name, "pages": len(select.pages), "documents": len(docs), "template_lines": len(template),
            "holding": holding, "leftovers": [(template[k], n) for k, n in leftovers.most_common(5)],
            "content_share": content / max(1, visible), "nav_docs": rows, "dropped": dropped}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sites", default=",".join(SITES))
    ap.add_argument("--keep", type=Path, help="write the corpus here instead of a temp folder")
    ap.add_argument("--show", type=int, default=5, help="examples shown per site and figure")
    args = ap.parse_args(argv)
    if not SHARED.exists():
        raise SystemExit(f"{SHARED} is missing: the benchmark needs ../shared/sites")
    with tempfile.TemporaryDirectory() as tmp:
        data = args.keep or Path(tmp)
        rows = [run_site(name.strip(), data) for name in args.sites.split(",") if name.strip()]
    print(f"{'site':18} {'pages':>5} {'docs':>5} {'template lines':>14} {'docs holding one':>16} "
          f"{'kept of visible':>15} {'docs with nav row':>17} {'content lines dropped':>21}")
    for r in rows:
        share = r["holding"] / max(1, r["documents"])
        nav = len(r["nav_docs"])
        print(f"{r['site']:18} {r['pages']:5d} {r['documents']:5d} {r['template_lines']:14d} "
              f"{r['holding']:7d} ({100 * share:4.1f}%) {100 * r['content_share']:14.1f}% "
              f"{nav:8d} ({100 * nav / max(1, r['documents']):4.1f}%) {len(r['dropped']):21d}")
        for text, n in r["leftovers"]:
            print(f"    left in {n:4d} documents: {text[:80]}")
        for rel, found in sorted(r["nav_docs"].items())[:args.show]:
            print(f"    nav row kept in {rel}: {found[0][:100]}")
        for rel, text in r["dropped"][:args.show]:
            print(f"    content dropped from {rel}: {text[:80]}")
    docs = sum(r["documents"] for r in rows)
    holding = sum(r["holding"] for r in rows)
    print(f"all sites: {holding} of {docs} documents ({100 * holding / max(1, docs):.1f}%) hold a template line "
          f"(a line on >= {SHARE:.0%} of its site's pages)")
    nav = sum(len(r["nav_docs"]) for r in rows)
    print(f"all sites: {nav} of {docs} documents ({100 * nav / max(1, docs):.1f}%) hold a navigation row; "
          f"{sum(len(r['dropped']) for r in rows)} content lines dropped")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
