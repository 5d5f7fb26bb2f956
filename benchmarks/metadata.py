"""Metadata benchmark: what the LLM writes for the Japanese gold pages, before and after validation.

    .venv/bin/python benchmarks/metadata.py                 # starts the embedded llama-server (Gemma 3 270M)
    .venv/bin/python benchmarks/metadata.py --llm-url http://127.0.0.1:8080/v1 --model qwen2.5-7b

For each page of benchmarks/gold-ja the body is extracted (heuristic mode), then:
  raw    = one schema-constrained answer of the model, checked as it is;
  final  = siterag's llm_metadata (validation, one retry, fallback to the page's title with no summary).
Prints the share of faithful titles (bigrams found in the page), tags 3-8 and in the page's language,
summaries of at most 3 sentences, schema failures, fallbacks with their reasons, and seconds per page.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from extraction import load_ja, start_llm  # noqa: E402

from siterag.extract import extract_page  # noqa: E402
from siterag.llm import LLMError  # noqa: E402
from siterag.metadata import (  # noqa: E402
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


def checks(answer: dict, title: str, markdown: str) -> dict[str, bool]:
    tags = answer["tags"]
    in_lang = tags_in_language(tags, page_language(markdown or title))
    return {"title faithful": grounded(answer["title"], f"{title}\n{markdown}"),
            "tags 3-8": 3 <= len(tags) <= 8,
            "tags in page language": bool(tags) and len(in_lang) * 2 >= len(tags),
            "summary <= 3 sentences": sentences(answer["summary"]) <= MAX_SUMMARY_SENTENCES}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--llm-url")
    ap.add_argument("--model", default="gemma-3-270m")
    ap.add_argument("--context", type=int, default=4096)
    ap.add_argument("--show", action="store_true", help="print each page's final fields")
    args = ap.parse_args(argv)
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
