"""Extraction benchmark: every mode over aeb-dev (90 news pages) and the hand-written Japanese gold set.

    .venv/bin/python benchmarks/extraction.py                       # all modes, both sets (starts llama-server)
    .venv/bin/python benchmarks/extraction.py --modes heuristic,trafilatura,readability --sets ja
    .venv/bin/python benchmarks/extraction.py --llm-url http://127.0.0.1:8080/v1 --model qwen2.5-7b

Prints, per set and mode: shingle F1 / precision / recall (the scoring of ../shared/benchmarks/score.py),
pages/s, LLM calls and prompt tokens per page, prompt tokens as a share of the raw HTML's tokens, pages
whose LLM answer failed so the heuristic's was used ("fallback"), and
"novel": the share of output tokens (words; characters for CJK) that occur nowhere in the page (its text
or its markup), i.e. text the extractor invented.
Predictions are written under --out for inspection or rescoring with score.py.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import importlib.util
import json
import re
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import trafilatura  # noqa: E402

from siterag.config import LLMConfig  # noqa: E402
from siterag.extract.blocks import html_to_blocks, parse_html  # noqa: E402
from siterag.extract.extract import estimate_tokens, extract_page  # noqa: E402
from siterag.extract.heuristics import readability_text  # noqa: E402
from siterag.extract.template import folder_template  # noqa: E402
from siterag.llm.client import DEFAULT_STOP, LLMClient, LLMError  # noqa: E402
from siterag.normalize.encoding import to_utf8  # noqa: E402

SHARED = ROOT.parent / "shared"
MODES = ("all-visible", "trafilatura", "trafilatura-precision", "readability", "heuristic", "hybrid", "llm", "retype")
LLM_MODES = {"hybrid", "llm", "retype"}
SITERAG_MODES = {"heuristic", "hybrid", "llm"}  # they write Markdown (ordered lists as `1. `)
FALLBACKS: dict[str, int] = {}  # pages whose LLM answer was not used (the heuristic's was), per mode
RETYPE_PROMPT = ("Here is a web page's HTML. Write its main content (the article) as Markdown. "
                 "Leave out navigation, menus, ads and footers.\n\n")


@dataclass
class Page:
    id: str
    html: str  # UTF-8 text
    truth: str
    template: frozenset[str] = frozenset()  # keys of the site's template lines on this page (siterag.extract.template)


@dataclass
class Dataset:
    name: str
    pages: list[Page]
    tokenizer: str
    nfkc: bool


def load_score_module():
    path = SHARED / "benchmarks" / "score.py"
    if not path.exists():
        raise SystemExit(f"{path} is missing: the benchmark needs ../shared/benchmarks")
    spec = importlib.util.spec_from_file_location("score", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_aeb() -> Dataset:
    base = SHARED / "benchmarks" / "aeb-dev"
    truth = {k: v["articleBody"] for k, v in json.loads((base / "ground-truth.json").read_text()).items()}
    pages = []
    for path in sorted((base / "html").glob("*.html.gz")):
        page_id = path.name.removesuffix(".html.gz")
        pages.append(Page(page_id, gzip.decompress(path.read_bytes()).decode("utf-8", "replace"), truth[page_id]))
    return Dataset("aeb-dev", pages, "benchmark", False)


def load_ja() -> Dataset:
    base = ROOT / "benchmarks" / "gold-ja"
    pages = []
    templates: dict[str, dict[str, list[str]]] = {}
    with open(base / "pages.tsv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if row["site"] not in templates:
                templates[row["site"]] = folder_template(SHARED / "sites" / row["site"])
            html, _ = to_utf8((SHARED / "sites" / row["site"] / row["path"]).read_bytes())
            pages.append(Page(row["id"], html, (base / f"{row['id']}.txt").read_text(encoding="utf-8"),
                              frozenset(templates[row["site"]].get(row["path"], []))))
    return Dataset("gold-ja", pages, "cjk", True)


_LIST_NUMBER_RE = re.compile(r"^(\s*)\d{1,3}\.[ \t]", re.MULTILINE)


def strip_list_numbers(markdown: str) -> str:
    """Drop ordered-list markers (`3. `) before scoring: Markdown syntax that score.strip_markdown leaves in,
    like the URLs and image sources it removes; the gold texts hold list items without their numbers."""
    return _LIST_NUMBER_RE.sub(r"\1", markdown)


def visible_text(html: str) -> str:
    """The trivial baseline: all visible text, one line per block (comments, script, style, <head> and hidden
    elements dropped; no alt text), by an lxml pass of its own."""
    import lxml.html

    root = parse_html(html)
    head = root.find("head")
    if head is not None:
        head.getparent().remove(head)
    for br in root.iter("br"):
        br.tail = "\n" + (br.tail or "")
    blocky = {"p", "div", "table", "tr", "td", "th", "li", "ul", "ol", "dl", "dt", "dd", "pre", "blockquote",
              "h1", "h2", "h3", "h4", "h5", "h6", "hr", "center", "section", "article", "header", "footer", "nav",
              "form", "address", "caption", "figure", "figcaption", "body"}
    for el in root.iter():
        if isinstance(el.tag, str) and el.tag in blocky:
            el.tail = "\n" + (el.tail or "")
            el.text = "\n" + (el.text or "")
    text = lxml.html.tostring(root, method="text", encoding="unicode")
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def simplified_html(html: str, budget_tokens: int) -> str:
    """The page without scripts, styles, comments and attributes, cut to fit the budget (for `retype`)."""
    import lxml.html

    root = parse_html(html)
    for el in root.iter():
        if isinstance(el.tag, str):
            el.attrib.clear()
    text = lxml.html.tostring(root, encoding="unicode")
    return text[: budget_tokens * 3]


def retype(client: LLMClient, html: str, max_tokens: int) -> str:
    """The seeds' original approach: the model reads the HTML and retypes the article as Markdown."""
    budget = client.config.context_tokens - max_tokens - 100
    body = {"model": client.config.model, "temperature": 0, "max_tokens": max_tokens, "stop": DEFAULT_STOP,
            "messages": [{"role": "user", "content": RETYPE_PROMPT + simplified_html(html, budget)}]}
    try:
        data = client._post(body)
    except LLMError:
        return ""
    client.stats.add(data.get("usage"))
    return data["choices"][0]["message"].get("content") or ""


def html_tokens(client: LLMClient | None, html: str) -> int:
    """Tokens of the raw HTML: the server's own tokenizer when there is one, else an estimate."""
    if client is not None:
        try:
            root = client.config.url().rstrip("/").removesuffix("/v1")
            resp = client._http.post(root + "/tokenize", json={"content": html})
            if resp.status_code == 200:
                return len(resp.json()["tokens"])
        except Exception:  # noqa: BLE001 - a server without /tokenize: estimate instead
            pass
    return estimate_tokens(html)


def page_text(html: str) -> str:
    blocks, root = html_to_blocks(html)
    return "\n".join(b.text for b in blocks) + "\n" + " ".join(root.xpath("//title/text()"))


def extractor(mode: str, client: LLMClient | None, max_tokens: int) -> Callable[[Page], str]:
    if mode in ("heuristic", "hybrid", "llm"):
        def run(page: Page) -> str:
            result = extract_page(page.html, mode, client, template=page.template)
            if result.fallback:
                FALLBACKS[mode] = FALLBACKS.get(mode, 0) + 1
            return result.markdown
        return run
    return _on_html(_extractor(mode, client, max_tokens))


def _on_html(fn: Callable[[str], str]) -> Callable[[Page], str]:
    return lambda page: fn(page.html)


def _extractor(mode: str, client: LLMClient | None, max_tokens: int) -> Callable[[str], str]:
    if mode == "all-visible":
        return visible_text
    if mode == "trafilatura":  # the library's defaults, as published
        return lambda html: trafilatura.extract(html) or ""
    if mode == "trafilatura-precision":
        return lambda html: trafilatura.extract(html, favor_precision=True) or ""
    if mode == "readability":
        return readability_text
    if mode == "retype":
        return lambda html: retype(client, html, max_tokens)
    raise ValueError(mode)


def bootstrap_f1_std(score, triples: list, n: int = 1000) -> float:
    """Bootstrap standard deviation of the aggregate F1 over pages (as score.py's "± x")."""
    import random

    rng = random.Random(0)
    values = [score.aggregate([rng.choice(triples) for _ in triples])["f1"] for _ in range(n)] if triples else [0]
    return statistics.pstdev(values)


def run_mode(score, data: Dataset, mode: str, client: LLMClient | None, out: Path, limit: int | None,
             max_tokens: int) -> dict:
    tokenize = score.make_tokenizer(data.tokenizer, data.nfkc)
    pages = data.pages[:limit] if limit else data.pages
    fn = extractor(mode, client, max_tokens)
    folder = out / data.name / mode
    folder.mkdir(parents=True, exist_ok=True)
    triples, novel, shares = [], [], []
    calls0 = client.stats.calls if client else 0
    prompt0 = client.stats.prompt_tokens if client else 0
    elapsed = 0.0
    FALLBACKS.pop(mode, None)
    for n, page in enumerate(pages, 1):
        start = time.perf_counter()
        text = fn(page)
        elapsed += time.perf_counter() - start
        (folder / f"{page.id}.md").write_text(text, encoding="utf-8")
        plain = score.strip_markdown(strip_list_numbers(text) if mode in SITERAG_MODES else text)
        triples.append(score.match(tokenize(page.truth), tokenize(plain), 4))
        words = tokenize(plain)
        source = set(tokenize(page_text(page.html))) | set(tokenize(page.html))  # markup too: URLs, list numbers
        novel.append(sum(w not in source for w in words) / max(1, len(words)))
        if client is not None and mode in LLM_MODES:
            shares.append(html_tokens(client, page.html))
        if mode in LLM_MODES:
            print(f"  {data.name} {mode} {n}/{len(pages)}", file=sys.stderr, flush=True)
    agg = score.aggregate(triples)
    calls = (client.stats.calls - calls0) if client and mode in LLM_MODES else 0
    agg["f1_std"] = bootstrap_f1_std(score, triples)
    prompt = (client.stats.prompt_tokens - prompt0) if client and mode in LLM_MODES else 0
    return {"set": data.name, "mode": mode, "pages": len(pages), "f1": agg["f1"], "f1_std": agg["f1_std"],
            "precision": agg["precision"],
            "recall": agg["recall"], "pages_per_s": len(pages) / max(elapsed, 1e-9),
            "llm_calls_per_page": calls / len(pages), "prompt_tokens_per_page": prompt / len(pages),
            "prompt_share_of_html": (prompt / sum(shares)) if shares else 0.0,
            "novel": statistics.mean(novel) if novel else 0.0, "fallbacks": FALLBACKS.get(mode, 0)}


def rescore(score, data: Dataset, mode: str, out: Path, n: int) -> dict | None:
    """Score a mode's saved predictions on the first n pages of a set."""
    folder = out / data.name / mode
    tokenize = score.make_tokenizer(data.tokenizer, data.nfkc)
    triples = []
    for page in data.pages[:n]:
        path = folder / f"{page.id}.md"
        if not path.exists():
            return None
        text = path.read_text(encoding="utf-8")
        plain = score.strip_markdown(strip_list_numbers(text) if mode in SITERAG_MODES else text)
        triples.append(score.match(tokenize(page.truth), tokenize(plain), 4))
    agg = score.aggregate(triples)
    return {"set": data.name, "mode": f"{mode} (first {n})", "pages": n, "f1": agg["f1"],
            "precision": agg["precision"], "recall": agg["recall"], "pages_per_s": 0.0, "llm_calls_per_page": 0.0,
            "prompt_tokens_per_page": 0.0, "prompt_share_of_html": 0.0, "novel": 0.0}


def same_pages_rows(score, datasets: list[Dataset], rows: list[dict], out: Path) -> list[dict]:
    """For each mode run on fewer pages than its set holds, the full modes' scores on those pages."""
    result = []
    for data in datasets:
        for n in sorted({r["pages"] for r in rows if r["set"] == data.name and r["pages"] < len(data.pages)}):
            for mode in ("trafilatura", "readability", "heuristic", "hybrid"):
                if any(r["set"] == data.name and r["mode"] == mode for r in rows):
                    row = rescore(score, data, mode, out, n)
                    if row:
                        result.append(row)
    return result


def start_llm(args: argparse.Namespace) -> tuple[LLMClient, object | None]:
    from siterag.llm.llama_server import start_server, stop_server

    proc = None
    url = args.llm_url
    if not url:
        print("starting the embedded llama-server (Gemma 3 270M) on 127.0.0.1:18095 ...", file=sys.stderr)
        proc = start_server(18095, ctx=args.context)
        url = "http://127.0.0.1:18095/v1"
    config = LLMConfig(base_url=url, model=args.model, context_tokens=args.context, timeout=600, retries=1)
    return LLMClient(config), (proc, stop_server)


def print_table(rows: list[dict]) -> None:
    head = (f"{'set':8} {'mode':22} {'pages':>5} {'F1':>6} {'±':>5} {'P':>6} {'R':>6} {'pages/s':>8} {'calls/p':>7} "
            f"{'prompt tok/p':>12} {'% of HTML':>9} {'novel':>6} {'fallback':>8}")
    print(head)
    print("-" * len(head))
    for r in rows:
        print(f"{r['set']:8} {r['mode']:22} {r['pages']:5d} {r['f1']:6.3f} {r.get('f1_std', 0):5.3f} "
              f"{r['precision']:6.3f} {r['recall']:6.3f} "
              f"{r['pages_per_s']:8.2f} {r['llm_calls_per_page']:7.1f} {r['prompt_tokens_per_page']:12.0f} "
              f"{100 * r['prompt_share_of_html']:8.1f}% {100 * r['novel']:5.1f}% {r.get('fallbacks', 0):8d}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, from {', '.join(MODES)}")
    ap.add_argument("--sets", default="aeb,ja", help="aeb, ja or both (comma-separated)")
    ap.add_argument("--limit", type=int, help="first N pages of each set (all modes)")
    ap.add_argument("--limit-llm", type=int, default=30, help="first N pages for the llm mode (slow on CPU)")
    ap.add_argument("--limit-retype", type=int, default=10, help="first N pages for the retype mode (slowest)")
    ap.add_argument("--llm-url", help="an OpenAI-compatible endpoint (default: start the embedded llama-server)")
    ap.add_argument("--model", default="gemma-3-270m")
    ap.add_argument("--context", type=int, default=4096)
    ap.add_argument("--retype-max-tokens", type=int, default=1024)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "extraction")
    ap.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = ap.parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = set(modes) - set(MODES)
    if unknown:
        ap.error(f"unknown mode(s): {', '.join(sorted(unknown))}")
    score = load_score_module()
    sets = {"aeb": load_aeb, "ja": load_ja}
    datasets = [sets[s.strip()]() for s in args.sets.split(",") if s.strip()]
    client, server = (None, None)
    if LLM_MODES & set(modes):
        client, server = start_llm(args)
    rows = []
    try:
        for data in datasets:
            for mode in modes:
                limit = args.limit
                if mode == "llm":
                    limit = min(filter(None, [args.limit, args.limit_llm]))
                elif mode == "retype":
                    limit = min(filter(None, [args.limit, args.limit_retype]))
                rows.append(run_mode(score, data, mode, client, args.out, limit, args.retype_max_tokens))
                print_table(rows[-1:])
    finally:
        if server and server[0] is not None:
            server[1](server[0])
    print()
    print_table(rows)
    subset_rows = same_pages_rows(score, datasets, rows, args.out)
    if subset_rows:
        print("\nOn the same pages as the limited modes (scored from the saved predictions):")
        print_table(subset_rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
