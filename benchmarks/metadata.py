"""Metadata benchmark: machine metadata over the shared legacy sites (default), or the LLM's on the gold pages.

    .venv/bin/python benchmarks/metadata.py                 # machine metadata, no LLM, ../shared/sites/*
    .venv/bin/python benchmarks/metadata.py --sites gyrobot,nanatsumori --examples 5
    .venv/bin/python benchmarks/metadata.py --llm-url http://127.0.0.1:8080/v1 --model qwen2.5-7b
    .venv/bin/python benchmarks/metadata.py --llm-url embedded    # starts llama-server (Gemma 3 270M)

Machine mode runs the site flow's page functions (copy, purge + normalize, site template, extract, the
`enrich` site pass) on each shared site as a `local_path` site into a temporary data folder, and prints per
site: documents; the share with a date (of those with one in their name or content); with 3-8 tags; the
share of tags found verbatim in the body (target 1.00); with a summary; "comp.": of those, the share composed
from the page's structure (entries, a track list, a link list, a list or table: enrich.composed_summary); of the
others (quoted), summaries whose sentences are all in the body, and that start within the first 300 characters of
its text ("lead"); with a
category; "stem": the share whose category says nothing (empty, an editor's default stem such as newpage or
top, a file-name stem or folder that is no word; target 0); "dist.": distinct categories; the most frequent
categories; seconds of the enrich pass; below each site's row, its documents per page kind (`kinds:`, the
taxonomy of siterag.enrich.kinds). Then example front matters.

LLM mode (--llm-url): for each page of benchmarks/gold-ja the body is extracted (heuristic mode), then:
  raw    = one schema-constrained answer of the model, checked as it is;
  final  = siterag's llm_metadata (validation, one retry, fallback to the machine's fields).
Prints the share of faithful titles (bigrams found in the page), tags 3-8 and in the page's language,
summaries of at most 3 sentences, schema failures, fallbacks with their reasons, and seconds per page.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import random  # noqa: E402
import tempfile  # noqa: E402

from siterag.config import SiteConfig  # noqa: E402
from siterag.enrich.corpus import corpus_paths  # noqa: E402
from siterag.enrich.dates import content_date, date_from_name  # noqa: E402
from siterag.enrich.enrich import composed_summary, enrich_site, summary_is_exact  # noqa: E402
from siterag.enrich.metadata import (  # noqa: E402
    MAX_SUMMARY_SENTENCES,
    METADATA_PROMPT,
    METADATA_SCHEMA,
    _metadata_prompt,
    clean_answer,
    grounded,
    llm_metadata,
    page_language,
    sentences,
    tags_in_language,
)
from siterag.extract.extract import extract_page  # noqa: E402
from siterag.layout import SiteLayout  # noqa: E402
from siterag.llm.client import LLMError  # noqa: E402


def checks(answer: dict, title: str, markdown: str) -> dict[str, bool]:
    tags = answer["tags"]
    in_lang = tags_in_language(tags, page_language(markdown or title))
    return {"title faithful": grounded(answer["title"], f"{title}\n{markdown}"),
            "tags 3-8": 3 <= len(tags) <= 8,
            "tags in page language": bool(tags) and len(in_lang) * 2 >= len(tags),
            "summary <= 3 sentences": sentences(answer["summary"]) <= MAX_SUMMARY_SENTENCES}


SHARED_SITES = ROOT.parent / "shared" / "sites"


def build_site(name: str, source: Path, data: Path) -> tuple[SiteLayout, dict]:
    """The flow's page work for one local-folder site (no Prefect, no index): copy, purge + normalize, site
    template, extract, then the enrich site pass over the new documents. Returns the layout and the pass's
    counts."""
    from siterag.acquire.mirror import copy_local
    from siterag.extract.template import site_template
    from siterag.pipeline import normalize_pages, process_batch, select_pages

    site = SiteConfig(name=name, local_path=str(source), extract_mode="heuristic")
    layout = SiteLayout(data, name)
    copy_local(source, layout.mirror)
    select = select_pages(layout.mirror, layout.logs)
    manifest = normalize_pages(layout.mirror, layout.normalized, select.pages)
    templates = site_template(layout.normalized, manifest)
    corpus_map = corpus_paths(select.pages)
    outcomes = process_batch(layout, site, select.pages, corpus_map, manifest, None, False, "",
                             templates=templates)
    touched = {o.corpus for o in outcomes if o.status in ("new", "changed")}
    return layout, enrich_site(layout, site, touched)


def machine_main(args: argparse.Namespace) -> int:
    """Machine metadata over the shared sites: the shares described in the module docstring."""
    from siterag.pipeline import corpus_docs

    names = args.sites.split(",") if args.sites else sorted(p.name for p in SHARED_SITES.iterdir() if p.is_dir())
    examples: list[tuple[str, dict]] = []
    totals: Counter[str] = Counter()
    print(f"{'site':18} {'docs':>5} {'date':>6} {'tags3-8':>7} {'in body':>7} {'summary':>7} {'comp.':>6} "
          f"{'exact':>6} {'lead':>6} {'categ.':>6} {'stem':>5} {'dist.':>5} {'enrich s':>8}  categories")
    with tempfile.TemporaryDirectory(prefix="siterag-meta-") as tmp:
        for name in names:
            started = time.perf_counter()
            layout, stats = build_site(name, SHARED_SITES / name, Path(tmp))
            print(f"  {name}: built in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
            docs = corpus_docs(layout)
            c: Counter[str] = Counter()
            categories: Counter[str] = Counter()
            kinds: Counter[str] = Counter()
            for rel, fields, body in docs:
                tags = fields.get("tags") or []
                c["docs"] += 1
                if date_from_name(str(fields.get("path") or rel)) or content_date(body):
                    c["datable"] += 1
                    c["dated"] += bool(fields.get("date"))
                c["tags3-8"] += 3 <= len(tags) <= 8
                c["tags"] += len(tags)
                c["tags in body"] += sum(1 for t in tags if t in body)
                summary = str(fields.get("summary") or "")
                c["summary"] += bool(summary)
                composed = bool(summary) and summary == composed_summary(body, str(fields.get("title") or ""))
                c["composed"] += composed
                c["quoted"] += bool(summary) and not composed
                c["exact"] += bool(summary) and not composed and summary_is_exact(summary, body)
                c["lead"] += bool(summary) and not composed and _in_lead(summary, body)
                c["category"] += bool(fields.get("category"))
                c["stem"] += stem_category(str(fields.get("category") or ""), str(fields.get("path") or rel))
                categories[str(fields.get("category") or "")] += 1
                kinds[str(fields.get("kind") or "")] += 1
                examples.append((name, fields))
            c["distinct"] = len(categories)
            totals.update(c)
            totals["seconds"] += stats["seconds"]
            _row(name, c, stats["seconds"], ", ".join(f"{k} {v}" for k, v in categories.most_common(6)))
            print(f"{'':18} kinds: " + ", ".join(f"{k or '(none)'} {v}" for k, v in kinds.most_common()))
    _row("all", totals, totals["seconds"], "")
    random.Random(0).shuffle(examples)
    for name, fields in examples[:args.examples]:
        shown = {k: fields.get(k) for k in ("title", "kind", "section", "category", "tags", "summary", "path", "date",
                                            "metadata_by")}
        print(f"\n--- {name}\n" + "\n".join(f"{k}: {v}" for k, v in shown.items()))
    return 0


def stem_category(category: str, path: str) -> bool:
    """Whether a category says nothing (a page kind always says something): empty, an editor's default stem
    (newpage, index, top, a number), or a part of the page's path (its file name's stem or letters, a folder) that
    is no word (sections.meaningful_name: `001sucript`, `kip`; a folder named `diary` is a word)."""
    from siterag.enrich.enrich import family
    from siterag.enrich.kinds import KINDS
    from siterag.enrich.sections import _DEFAULT_STEM_RE, meaningful_name

    if category in KINDS:  # a page kind (`index`, `links`) says what the page is on every site
        return False
    folded = category.casefold()
    if not folded or _DEFAULT_STEM_RE.match(category) or folded in ("top", "newpage"):
        return True
    parts = path.split("/")
    stems = {re.sub(r"\.[^.]*$", "", part).casefold() for part in parts} | {family(parts[-1])}
    return folded in stems and not meaningful_name(category)


def _row(name: str, c: Counter, seconds: float, categories: str) -> None:
    def share(key: str, of: str = "docs", width: int = 7) -> str:
        return f"{c[key] / c[of]:{width}.2f}" if c[of] else f"{'-':>{width}}"

    print(f"{name:18} {c['docs']:5d} {share('dated', 'datable', 6)} {share('tags3-8')} "
          f"{share('tags in body', 'tags')} {share('summary')} {share('composed', 'summary', 6)} "
          f"{share('exact', 'quoted', 6)} {share('lead', 'quoted', 6)} {share('category', 'docs', 6)} "
          f"{share('stem', 'docs', 5)} "
          f"{c['distinct']:5d} {seconds:8.1f}  {categories}")


LEAD_CHARS = 300


def _in_lead(summary: str, body: str) -> bool:
    """Whether the summary starts within the first LEAD_CHARS characters of the body's text (its Markdown marks,
    link targets and line breaks aside): the page's opening, not a passage from its middle."""
    text = re.sub(r"\]\([^)]*\)|[#*_>|!\[\]\s]", "", body)
    head = re.sub(r"\s", "", summary)[:12]
    at = text.find(head)
    return 0 <= at < LEAD_CHARS


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--llm-url", help="LLM mode on the gold pages: an endpoint, or 'embedded' for llama-server")
    ap.add_argument("--model", default="gemma-3-270m")
    ap.add_argument("--context", type=int, default=4096)
    ap.add_argument("--show", action="store_true", help="LLM mode: print each page's final fields")
    ap.add_argument("--sites", help="machine mode: comma-separated names under ../shared/sites (default: all)")
    ap.add_argument("--examples", type=int, default=10, help="machine mode: example front matters to print")
    args = ap.parse_args(argv)
    if not args.llm_url:
        return machine_main(args)
    from extraction import load_ja, start_llm

    if args.llm_url == "embedded":
        args.llm_url = None
    pages = load_ja().pages
    client, server = start_llm(args)
    raw_ok: Counter[str] = Counter()
    final_ok: Counter[str] = Counter()
    raw_fail: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    lengths, seconds = [], []
    try:
        for page in pages:
            result = extract_page(page.html, "heuristic")
            try:
                raw = clean_answer(client.chat_json(METADATA_PROMPT, _metadata_prompt(result.title, result.markdown),
                                                    METADATA_SCHEMA, max_tokens=400))
                raw_ok.update(k for k, ok in checks(raw, result.title, result.markdown).items() if ok)
            except LLMError as exc:
                raw_fail[exc.reason] += 1
            start = time.perf_counter()
            final, problem = llm_metadata(client, result.title, result.markdown)
            seconds.append(time.perf_counter() - start)
            reasons.update(problem.split(",") if problem else ["ok"])
            final_ok.update(k for k, ok in checks(final, result.title, result.markdown).items() if ok)
            lengths.append(len(final["summary"]))
            if args.show:
                print(f"{page.id}: {final} [{problem or 'ok'}]", flush=True)
            print(f"  {len(seconds)}/{len(pages)} pages", file=sys.stderr, flush=True)
    finally:
        if server and server[0] is not None:
            server[1](server[0])
    n = len(pages)
    print(f"\nmetadata on {n} Japanese gold pages, model {args.model}")
    print(f"{'check':26} {'raw answer':>10} {'final':>8}")
    for key in ("title faithful", "tags 3-8", "tags in page language", "summary <= 3 sentences"):
        print(f"{key:26} {raw_ok[key] / n:10.2f} {final_ok[key] / n:8.2f}")
    print(f"raw answers failing the schema or the call: {sum(raw_fail.values())} {dict(raw_fail)}")
    print(f"final: LLM fields kept {reasons['ok']}/{n}; fallbacks by reason: "
          f"{ {k: v for k, v in reasons.items() if k != 'ok'} }")
    print(f"summary chars: median {statistics.median(lengths):.0f}, max {max(lengths)} (schema cap "
          f"{METADATA_SCHEMA['properties']['summary']['maxLength']}); seconds/page median "
          f"{statistics.median(seconds):.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
