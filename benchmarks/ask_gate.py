"""`ask`'s retrieval gate, calibrated: do retrieval signals separate the questions the archive answers from those
it does not?

    .venv/bin/python benchmarks/ask_gate.py                       # signals, separation, the chosen threshold
    .venv/bin/python benchmarks/ask_gate.py --llm embedded        # plus `ask` end to end with the packaged model
    .venv/bin/python benchmarks/ask_gate.py --llm http://127.0.0.1:8080/v1   # ... or with your own endpoint
    .venv/bin/python benchmarks/ask_gate.py --passages            # plus `ask` without a model (the passages' sentences)

1. Index: the shared sites' corpus and index exactly as benchmarks/retrieval.py builds them (same --bench
   folder, default $TMPDIR/siterag-bench/retrieval, reused).
2. Questions: benchmarks/questions.jsonl — answerable ones (`relevant` lists the answering pages) and
   unanswerable ones (`"relevant": []`, kind "negative": off-topic, and near-topic questions about the shared
   sites' subjects that no page answers).
3. For each question, the passages `ask` would give the model (siterag.search.ask.select_passages of the same
   passage-level search) and these signals: best passage cosine similarity (what MIN_SIMILARITY gates on),
   its margin over the mean cosine of all candidates, best BM25 and whether any passage has a full-text hit,
   and the largest share of the question's content tokens that one passage holds
   (siterag.search.ask.question_term_share, what MIN_TERM_SHARE gates on).
4. Separation per signal: ROC AUC (the chance that an answerable question scores above an unanswerable one;
   0.5 = no signal), and at thresholds: answerable kept %, unanswerable refused %.
5. The rule for the gate: it runs before the model and no later check can bring back a question it refused,
   while an unanswerable question that passes still meets the model's `found` and the support checks. So each
   threshold (MIN_SIMILARITY, MIN_TERM_SHARE) is the highest, in steps of 0.05, that alone keeps KEEP (95%) of
   the answerable questions, and a question passes on either; the benchmark prints the rule's thresholds and
   what they keep and refuse next to those siterag/search/ask.py uses.
6. --llm: `ask` on every question (k=5, gate included): how often the answerable ones get an answer citing an
   answering page, how often the unanswerable ones are refused, the refusal reasons and the support shares of
   the answers. The model's replies are kept in <bench>/ask-replies-*.jsonl by prompt: a rerun after changing
   the checks asks only what is new.
7. --passages: `ask(q, index, None, k=5)` on every question, the no-model path (siterag.search.extractive: the
   passages' sentences that match the question). An answerable question's `answer` is a short span of an answering
   page that states the answer (copied from the page by hand); it counts as shown when one shown sentence holds it
   (both NFKC-normalised, whitespace and the ** marks removed). Reported: the share of answerable questions whose
   answer span is shown (± the bootstrap std over the questions), the share shown a sentence of a `relevant` page,
   what the unanswerable questions got (nothing shown, or sentences), the median and p90 seconds per question
   (in-process, after a warm-up call), and every answerable question whose span was not shown, with what was.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import re
import statistics
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from retrieval import QUESTIONS, SHARED, build_corpus, build_index, load_questions  # noqa: E402

from siterag.config import LLMConfig  # noqa: E402
from siterag.index.index import IndexSettings  # noqa: E402
from siterag.llm.client import LLMClient  # noqa: E402
from siterag.search.ask import (  # noqa: E402
    MIN_SIMILARITY,
    MIN_SUPPORT,
    MIN_TERM_SHARE,
    ask,
    question_term_share,
    select_passages,
)
from siterag.search.search_api import Searcher  # noqa: E402

KEEP = 0.95  # share of the answerable questions the gate must let through
K = 5


def signals(searcher: Searcher, question: str) -> dict[str, float]:
    """The gate signals of one question, over the passages `ask` would use."""
    hits = searcher.search(question, k=K * 3, group=False)
    passages = select_passages(hits, K)
    best = max((h.similarity for h in passages), default=0.0)
    terms = question_term_share(question, passages)
    return {"best cosine": best,
            "cosine margin": best - statistics.fmean([h.similarity for h in hits] or [0.0]),
            "best BM25": max((h.bm25 for h in passages), default=0.0),
            "full-text hit": float(any(h.bm25 > 0 for h in passages)),
            "question terms in a passage": terms,
            "cosine + terms / 2": best + terms / 2}


def auc(pos: list[float], neg: list[float]) -> float:
    """ROC AUC by Mann-Whitney: P(answerable > unanswerable), ties half."""
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg)) if pos and neg else math.nan


def at(threshold: float, pos: list[float], neg: list[float]) -> tuple[float, float]:
    """(answerable kept, unanswerable refused) with a gate `value >= threshold`."""
    return sum(p >= threshold for p in pos) / len(pos), sum(n < threshold for n in neg) / len(neg)


def keep_threshold(pos: list[float], keep: float = KEEP, step: float = 0.05) -> float:
    """The highest multiple of `step` that keeps at least `keep` of the answerable questions."""
    need = math.ceil(keep * len(pos))
    value = sorted(pos, reverse=True)[need - 1]
    return math.floor(value / step + 1e-9) * step


def youden(pos: list[float], neg: list[float]) -> tuple[float, float]:
    """The threshold (among the observed values) maximising kept + refused - 1, and that value."""
    best = max(sorted(set(pos + neg)), key=lambda t: sum(at(t, pos, neg)))
    return best, sum(at(best, pos, neg)) - 1


def gate(row: dict, min_similarity: float, min_terms: float) -> bool:
    """siterag.search.ask.passes_gate on the signals."""
    s = row["signals"]
    return s["best cosine"] >= min_similarity or s["question terms in a passage"] >= min_terms


def report_signals(rows: list[dict]) -> None:
    pos_rows = [r for r in rows if r["answerable"]]
    neg_rows = [r for r in rows if not r["answerable"]]
    print(f"\n{len(pos_rows)} answerable, {len(neg_rows)} unanswerable questions "
          f"({sum(r['lang'] == 'ja' for r in neg_rows)} Japanese, {sum(r['lang'] == 'en' for r in neg_rows)} "
          "English among the unanswerable)\n")
    print("| signal | ROC AUC | answerable median (min) | unanswerable median (max) | Youden threshold: kept / "
          "refused |\n|---|---|---|---|---|")
    for name in rows[0]["signals"]:
        pos = [r["signals"][name] for r in pos_rows]
        neg = [r["signals"][name] for r in neg_rows]
        t, _ = youden(pos, neg)
        kept, refused = at(t, pos, neg)
        print(f"| {name} | {auc(pos, neg):.3f} | {statistics.median(pos):.3f} ({min(pos):.3f}) | "
              f"{statistics.median(neg):.3f} ({max(neg):.3f}) | >= {t:.3f}: {kept:.0%} / {refused:.0%} |")
    pos = [r["signals"]["best cosine"] for r in pos_rows]
    neg = [r["signals"]["best cosine"] for r in neg_rows]
    print("\nbest passage cosine, gate `>= t`:\n\n| t | answerable kept | unanswerable refused |\n|---|---|---|")
    for t in (0.10, 0.15, 0.20, 0.25, 0.30, 0.35, 0.40):
        kept, refused = at(t, pos, neg)
        print(f"| {t:.2f} | {kept:.0%} | {refused:.0%} |")
    terms_pos = [r["signals"]["question terms in a passage"] for r in pos_rows]
    cos_t, terms_t = keep_threshold(pos), keep_threshold(terms_pos)
    print(f"\nrule: each signal's highest threshold (steps of 0.05) that alone keeps {KEEP:.0%} of the answerable; "
          "a question passes on either")
    for label, c, t in ((f"best cosine >= {cos_t:.2f} (rule)", cos_t, math.inf),
                        (f"question terms >= {terms_t:.2f} (rule)", math.inf, terms_t),
                        (f"either (rule): MIN_SIMILARITY {cos_t:.2f}, MIN_TERM_SHARE {terms_t:.2f}", cos_t, terms_t),
                        (f"ask now: MIN_SIMILARITY {MIN_SIMILARITY:.2f}, MIN_TERM_SHARE {MIN_TERM_SHARE:.2f}",
                         MIN_SIMILARITY, MIN_TERM_SHARE)):
        kept = statistics.fmean(gate(r, c, t) for r in pos_rows)
        refused = statistics.fmean(not gate(r, c, t) for r in neg_rows)
        print(f"  {label}: answerable kept {kept:.0%}, unanswerable refused {refused:.0%}")
    print("\nunanswerable questions by best cosine (highest first):")
    for r in sorted(neg_rows, key=lambda r: -r["signals"]["best cosine"]):
        s = r["signals"]
        print(f"  {r['id']} cos {s['best cosine']:.3f} terms {s['question terms in a passage']:.2f} "
              f"bm25 {s['best BM25']:.1f}  {r['q']}")
    print("lowest answerable:")
    for r in sorted(pos_rows, key=lambda r: r["signals"]["best cosine"])[:6]:
        s = r["signals"]
        print(f"  {r['id']} cos {s['best cosine']:.3f} terms {s['question terms in a passage']:.2f} "
              f"bm25 {s['best BM25']:.1f}  {r['q']}")


class CachedClient(LLMClient):
    """An LLMClient whose replies are kept in a JSONL file by prompt, so a rerun (after changing the
    checks) asks the model only what it has not answered yet — at temperature 0 it would say the same."""

    def __init__(self, config: LLMConfig, path: Path) -> None:
        super().__init__(config)
        self.path = path
        self.cache: dict[str, dict] = {}
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                self.cache[row["key"]] = row["reply"]

    def chat_json(self, system: str, user: str, schema: dict, **kwargs) -> dict:
        key = hashlib.sha256(json.dumps([system, user, schema], ensure_ascii=False).encode()).hexdigest()
        if key not in self.cache:
            self.cache[key] = super().chat_json(system, user, schema, **kwargs)
            with self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps({"key": key, "reply": self.cache[key]}, ensure_ascii=False) + "\n")
        return self.cache[key]


def run_llm(index: Path, questions: list[dict], llm: str, bench: Path) -> None:
    """`ask` end to end on every question, gate included: what a user would get."""
    from siterag.llm.client import LLMError

    proc = None
    if llm == "embedded":
        import socket

        from siterag.llm.llama_server import start_server

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        proc = start_server(port, ctx=4096, log_path=bench / "llama-server.log")
        url = f"http://127.0.0.1:{port}/v1"
    else:
        url = llm
    cache_path = bench / f"ask-replies-{hashlib.sha256(llm.encode()).hexdigest()[:8]}.jsonl"
    client = CachedClient(LLMConfig(base_url=url, context_tokens=4096, timeout=300, retries=1), cache_path)
    outcome: dict[str, Counter] = {"answerable": Counter(), "unanswerable": Counter()}
    supports: list[float] = []
    t0 = time.monotonic()
    try:
        for n, q in enumerate(questions, 1):
            kind = "answerable" if q["relevant"] else "unanswerable"
            try:
                result = ask(q["q"], index, client, k=K)
            except LLMError as exc:
                outcome[kind][f"llm error ({exc.reason})"] += 1
                continue
            if result.support is not None:
                supports.append(result.support)
            if result.found:
                right = bool(set(result.citations) & set(q["relevant"]))
                label = "answered" if not q["relevant"] else (
                    "answered, cites an answering page" if right else "answered, cites no answering page")
                if result.added:
                    label += " (citation added)"
            else:
                label = f"refused: {result.reason}"
            outcome[kind][label] += 1
            print(f"  [{n}/{len(questions)}] {q['id']} {label}: {result.model_answer[:80]!r} "
                  f"support {result.support}", flush=True)
    finally:
        if proc is not None:
            from siterag.llm.llama_server import stop_server

            stop_server(proc)
    print(f"\n`ask` end to end with {llm} ({time.monotonic() - t0:.0f} s):\n")
    for kind, counts in outcome.items():
        total = sum(counts.values())
        print(f"{kind} ({total}): " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))
    if supports:
        print(f"support share of the model's answers: median {statistics.median(supports):.2f}, "
              f"under MIN_SUPPORT: {sum(s < MIN_SUPPORT for s in supports)}/{len(supports)}")


def squash(text: str) -> str:
    """`text` as --passages compares it: NFKC, without whitespace and without the ** marks of the shown words."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text)).replace("**", "")


def bootstrap_std(hits: list[bool], rounds: int = 2000, seed: int = 0) -> float:
    """The standard deviation of the share of `hits` over `rounds` resamples of the questions (with replacement)."""
    rng = random.Random(seed)
    n = len(hits)
    shares = [sum(rng.choices(hits, k=n)) / n for _ in range(rounds)]
    return statistics.pstdev(shares)


def run_passages(index: Path, questions: list[dict]) -> None:
    """`ask` without a model on every question: is the answer among the sentences shown?"""
    ask(questions[0]["q"], index, None, k=K)  # warm-up: lancedb, the embedder, the tables
    rows = []
    for q in questions:
        t0 = time.perf_counter()
        result = ask(q["q"], index, None, k=K)
        seconds = time.perf_counter() - t0
        shown = [s.text for s in result.sentences]
        row = {"q": q, "seconds": seconds, "shown": shown, "reason": result.reason, "sentences": result.sentences,
               "refs": [s.ref for s in result.sentences]}
        if q["relevant"]:
            gold = squash(q["answer"])
            row["gold shown"] = any(gold in squash(text) for text in shown)
            row["relevant shown"] = bool(set(row["refs"]) & set(q["relevant"]))
        rows.append(row)
    pos = [r for r in rows if r["q"]["relevant"]]
    neg = [r for r in rows if not r["q"]["relevant"]]
    times = sorted(r["seconds"] for r in rows)
    gold = [r["gold shown"] for r in pos]
    rel = [r["relevant shown"] for r in pos]
    print(f"\n`ask` without a model (k={K}, at most {max((len(r['shown']) for r in rows), default=0)} sentences "
          f"shown), {len(rows)} questions:\n")
    print(f"answerable ({len(pos)}): answer span among the sentences shown {sum(gold)}/{len(pos)} = "
          f"{statistics.fmean(gold):.0%} ± {bootstrap_std(gold):.0%} (bootstrap std); a sentence of an answering "
          f"page shown {sum(rel)}/{len(pos)} = {statistics.fmean(rel):.0%} ± {bootstrap_std(rel):.0%}; "
          f"nothing shown {sum(not r['shown'] for r in pos)} "
          f"({', '.join(f'{k} {v}' for k, v in Counter(r['reason'] for r in pos if not r['shown']).items()) or '-'})")
    refused = [r for r in neg if not r["shown"]]
    print(f"unanswerable ({len(neg)}): nothing shown (refused) {len(refused)}"
          f" ({', '.join(f'{k} {v}' for k, v in Counter(r['reason'] for r in refused).items()) or '-'}), "
          f"sentences shown {len(neg) - len(refused)}")
    p90 = statistics.quantiles(times, n=10, method="inclusive")[-1] if len(times) > 1 else times[0]
    print(f"seconds per question (in-process, warm): median {statistics.median(times):.2f}, p90 {p90:.2f}, "
          f"max {times[-1]:.2f}")
    print("\nanswerable questions whose answer span was not shown (gold | what was shown):")
    for r in pos:
        if not r["gold shown"]:
            q = r["q"]
            got = " / ".join(f"[{s.ref}] {s.text}" for s in r["sentences"]) or f"nothing ({r['reason']})"
            print(f"  {q['id']} {q['q']}\n     gold ({', '.join(q['relevant'])}): {q['answer']}\n     shown: {got}")
    print("unanswerable questions shown sentences:")
    for r in neg:
        if r["shown"]:
            print(f"  {r['q']['id']} {r['q']['q']}: [{r['refs'][0]}] {r['shown'][0]}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", type=Path, default=Path(tempfile.gettempdir()) / "siterag-bench" / "retrieval")
    p.add_argument("--rebuild", action="store_true", help="rebuild the corpus with `siterag run`")
    p.add_argument("--questions", type=Path, default=QUESTIONS)
    p.add_argument("--index", type=Path, help="use this data dir's index instead")
    p.add_argument("--llm", help="also run `ask` end to end: 'embedded' (packaged Gemma 3 270M) or a base_url")
    p.add_argument("--passages", action="store_true",
                   help="also run `ask` without a model: is each question's answer span among the sentences shown?")
    args = p.parse_args()
    if args.index:
        index = args.index
    else:
        if not SHARED.is_dir():
            sys.exit(f"needs the shared sites in {SHARED} (or SITERAG_SHARED)")
        index = build_index(args.bench, build_corpus(args.bench, args.rebuild), IndexSettings())
    searcher = Searcher(index)
    questions = load_questions(args.questions)
    rows = [{"id": q["id"], "q": q["q"], "lang": q["lang"], "answerable": bool(q["relevant"]),
             "signals": signals(searcher, q["q"])} for q in questions]
    print(f"index {index}: {searcher.docs.count_rows()} documents, {searcher.chunks.count_rows()} chunks")
    report_signals(rows)
    if args.passages:
        run_passages(index, questions)
    if args.llm:
        run_llm(index, questions, args.llm, args.bench)
    print(f"\n(load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
