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
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from extraction import visible_text  # noqa: E402

from siterag.config import SiteConfig  # noqa: E402
from siterag.enrich.corpus import corpus_paths, read_doc  # noqa: E402
from siterag.extract.blocks import normalise  # noqa: E402
from siterag.extract.template import site_template  # noqa: E402
from siterag.layout import SiteLayout  # noqa: E402
from siterag.pipeline import normalize_pages, process_batch, select_pages  # noqa: E402

SHARED = ROOT.parent / "shared" / "sites"
SITES = ("crest-digitalcity", "fontforge-ja", "gyrobot", "nanatsumori")
SHARE = 0.3


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
    return {"site": name, "pages": len(select.pages), "documents": len(docs), "template_lines": len(template),
            "holding": holding, "leftovers": [(template[k], n) for k, n in leftovers.most_common(5)],
            "content_share": content / max(1, visible)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sites", default=",".join(SITES))
    ap.add_argument("--keep", type=Path, help="write the corpus here instead of a temp folder")
    args = ap.parse_args(argv)
    if not SHARED.exists():
        raise SystemExit(f"{SHARED} is missing: the benchmark needs ../shared/sites")
    with tempfile.TemporaryDirectory() as tmp:
        data = args.keep or Path(tmp)
        rows = [run_site(name.strip(), data) for name in args.sites.split(",") if name.strip()]
    print(f"{'site':18} {'pages':>5} {'docs':>5} {'template lines':>14} {'docs holding one':>16} "
          f"{'kept of visible':>15}")
    for r in rows:
        share = r["holding"] / max(1, r["documents"])
        print(f"{r['site']:18} {r['pages']:5d} {r['documents']:5d} {r['template_lines']:14d} "
              f"{r['holding']:7d} ({100 * share:4.1f}%) {100 * r['content_share']:14.1f}%")
        for text, n in r["leftovers"]:
            print(f"    left in {n:4d} documents: {text[:80]}")
    docs = sum(r["documents"] for r in rows)
    holding = sum(r["holding"] for r in rows)
    print(f"all sites: {holding} of {docs} documents ({100 * holding / max(1, docs):.1f}%) hold a template line "
          f"(a line on >= {SHARE:.0%} of its site's pages)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
