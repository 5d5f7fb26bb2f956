"""Retrieval benchmark: recall@5 and MRR of vector, full-text and hybrid search over the shared legacy sites,
and query latency at the corpus size and at 100k chunks.

    .venv/bin/python benchmarks/retrieval.py                  # build (once) and measure
    .venv/bin/python benchmarks/retrieval.py --variants       # plus ablations (levels, weights, LanceDB's own hybrid)
    .venv/bin/python benchmarks/retrieval.py --max-tokens 128 --overlap 16 --lead 0   # another index layout

1. Corpus: `siterag --config <bench>/shared-sites.toml run` (heuristic extraction, like examples/shared-sites.toml)
   into <bench>/data (default $TMPDIR/siterag-bench/retrieval), once; --rebuild redoes it.
2. Index: the one `siterag run` built (default IndexSettings), or the corpus indexed with the given settings
   into <bench>/index-<settings key>/ (reused).
3. Questions: benchmarks/questions.jsonl, hand-written from the pages, Japanese and English, keyword and
   natural-language; each lists the page(s) that answer it (alternatives, e.g. the -j and -e versions).
   recall@5 = share of questions with an answering page among the first 5 documents; MRR over the first 10.
   "negative" questions (no answer in the archive) only calibrate `ask`'s retrieval gate.
4. Latency: hybrid search (query embedding included) per question, median and p95, on the real index and on
   a synthetic one of --rows chunks (copies of the real chunks, vectors jittered) in <bench>/synthetic-<rows>/,
   with flat vector search and then with the IVF_HNSW_SQ index that sync_site builds past 30k chunks.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from siterag.index.embedding import get_embedder  # noqa: E402
from siterag.index.index import (  # noqa: E402
    CHUNKS,
    DOCS,
    IndexSettings,
    build_fts,
    connect,
    ensure_vector_index,
    sync_site,
)
from siterag.layout import SiteLayout  # noqa: E402
from siterag.pipeline import indexed_docs  # noqa: E402
from siterag.search.search_api import Searcher, fuse  # noqa: E402

SITES = ("fontforge-ja", "crest-digitalcity", "gyrobot")
SHARED = Path(os.environ.get("SITERAG_SHARED", ROOT.parent / "shared")) / "sites"
QUESTIONS = ROOT / "benchmarks" / "questions.jsonl"


def build_corpus(bench: Path, rebuild: bool) -> Path:
    data = bench / "data"
    if rebuild and data.exists():
        shutil.rmtree(data)
    if all((data / "corpus" / s).is_dir() for s in SITES):
        return data
    archive_shared_sites(bench / "shared-sites.toml", data, SITES)
    return data


def archive_shared_sites(cfg: Path, data: Path, sites: tuple[str, ...] | list[str]) -> None:
    """Write a config of `../shared/sites` folders as local sites (heuristic, no LLM) and `siterag run` it into
    `data`, with a Prefect home of its own."""
    cfg.parent.mkdir(parents=True, exist_ok=True)
    body = "".join(f'\n[[site]]\nname = "{s}"\nlocal_path = "{SHARED / s}"\n' for s in sites)
    cfg.write_text(f'[defaults]\ndata_dir = "{data}"\nextract_mode = "heuristic"\n{body}', encoding="utf-8")
    env = {**os.environ, "PREFECT_HOME": tempfile.mkdtemp(prefix="siterag-bench-prefect-")}
    print(f"building the corpus: siterag --config {cfg} run", flush=True)
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-m", "siterag.cli", "--config", str(cfg), "run"], check=True, env=env,
                   cwd=ROOT, stdout=subprocess.DEVNULL)
    print(f"  built in {time.monotonic() - t0:.0f} s", flush=True)


def build_index(bench: Path, data: Path, settings: IndexSettings) -> Path:
    """<bench>/index-<key>/ holding lancedb/ for these settings (the data dir layout Searcher expects)."""
    out = bench / f"index-{settings.key()}"
    done = out / "done"
    if done.exists():
        return out
    if (data / "lancedb").is_dir():  # the index `siterag run` built, if it has these settings
        rows = connect(data / "lancedb").open_table(DOCS).search().select(["content_hash"]).limit(None).to_list()
        if rows and all(r["content_hash"].endswith(":" + settings.key()) for r in rows):
            return data
    if out.exists():
        shutil.rmtree(out)
    embedder = get_embedder("use-multilingual-v3")
    t0 = time.monotonic()
    chunks = 0
    for site in SITES:
        stats = sync_site(out / "lancedb", site, indexed_docs(SiteLayout(data, site), site), embedder, settings)
        chunks += stats.chunks
    done.write_text(json.dumps({"settings": settings.__dict__, "chunks": chunks}), encoding="utf-8")
    print(f"indexed {chunks} chunks with {settings} in {time.monotonic() - t0:.0f} s", flush=True)
    return out


def load_questions(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def first_rank(refs: list[str], relevant: set[str]) -> int | None:
    for n, ref in enumerate(dict.fromkeys(refs), 1):  # passages: a page counts once, at its best passage
        if ref in relevant:
            return n
    return None


RUNS = {"vector": {"mode": "vector"}, "full-text": {"mode": "fts"}, "hybrid": {"mode": "hybrid"}}
VARIANTS = {
    "hybrid, RRF of ranks instead of scores": {"fusion": "rrf"},
    "hybrid, passages only (no document level)": {"doc_weight": 0.0},
    "hybrid, alpha 0.3 (more BM25)": {"alpha": 0.3},
    "hybrid, alpha 0.7 (more cosine)": {"alpha": 0.7},
    "hybrid, depth 50": {"depth": 50},
    "LanceDB hybrid query on chunks (RRFReranker)": {"lancedb_hybrid": True},
    "passages for ask (group=False), page recall": {"group": False},
}


def evaluate(searcher: Searcher, questions: list[dict], runs: dict[str, dict]) -> dict[str, dict]:
    """runs: name -> fuse options (mode, fusion, alpha, doc_weight, depth, group); recall@5, MRR, misses."""
    answerable = [q for q in questions if q["relevant"]]
    vectors = {q["id"]: searcher.embed(q["q"]) for q in answerable}
    cache: dict[tuple, dict] = {}
    results: dict[str, dict] = {}
    for name, run in runs.items():
        found, rr, by_lang, misses = 0, 0.0, {}, []
        mode, depth = run.get("mode", "hybrid"), run.get("depth", 100)
        for q in answerable:
            if run.get("lancedb_hybrid"):
                refs = lancedb_hybrid(searcher, q["q"], vectors[q["id"]])
            else:
                key = (q["id"], mode, depth)
                if key not in cache:
                    cache[key] = searcher.candidates(q["q"], None, depth, mode, vectors[q["id"]])
                options = {k: v for k, v in run.items() if k in ("alpha", "doc_weight", "fusion")}
                group = run.get("group", True)
                hits = fuse(cache[key], q["q"], 10 if group else 30, group, mode=mode, searcher=searcher, **options)
                refs = [h.ref for h in hits]
            rank = first_rank(refs, set(q["relevant"]))
            ok = rank is not None and rank <= 5
            found += ok
            rr += 1.0 / rank if rank and rank <= 10 else 0.0
            lang = by_lang.setdefault(q["lang"], [0, 0])
            lang[0] += ok
            lang[1] += 1
            if not ok:
                misses.append(f"{q['id']}({rank or '-'})")
        n = len(answerable)
        results[name] = {"recall5": found / n, "mrr": rr / n, "n": n, "misses": misses,
                         "lang": {k: v[0] / v[1] for k, v in by_lang.items()}}
    return results


def lancedb_hybrid(searcher: Searcher, query: str, vector: np.ndarray) -> list[str]:
    """LanceDB's built-in hybrid query on the chunks (RRFReranker), grouped by document: the baseline."""
    from lancedb.rerankers import RRFReranker

    rows = (searcher.chunks.search(query_type="hybrid", fts_columns="text").vector(vector.tolist()).text(query)
            .rerank(RRFReranker()).select(["site", "path"]).limit(50).to_list())
    return [f"{row['site']}/{row['path']}" for row in rows]


def latency(searcher: Searcher, questions: list[dict], repeat: int = 2) -> dict[str, float]:
    """Milliseconds per hybrid search (k=10, grouped): with the query embedding, and without it."""
    times, db_times = [], []
    searcher.search("warm up", k=10)
    for _ in range(repeat):
        for q in questions:
            t0 = time.perf_counter()
            vector = searcher.embed(q["q"])
            t1 = time.perf_counter()
            fuse(searcher.candidates(q["q"], None, 100, "hybrid", vector), q["q"], 10, searcher=searcher)
            t2 = time.perf_counter()
            times.append((t2 - t0) * 1000)
            db_times.append((t2 - t1) * 1000)
    return {"median": statistics.median(times), "p95": float(np.percentile(times, 95)),
            "db_median": statistics.median(db_times), "db_p95": float(np.percentile(db_times, 95))}


def synthetic(bench: Path, source: Path, rows: int) -> Path:
    """A data dir whose index holds `rows` chunks: copies of the real chunks (and documents), vectors jittered."""
    import pyarrow as pa
    import pyarrow.compute as pc

    out = bench / f"synthetic-{rows}"
    if (out / "done").exists():
        return out
    if out.exists():
        shutil.rmtree(out)
    src = connect(source / "lancedb")
    rng = np.random.default_rng(0)
    db = connect(out / "lancedb")
    t0 = time.monotonic()
    n_chunks = src.open_table(CHUNKS).count_rows()
    copies = -(-rows // n_chunks)
    for name in (CHUNKS, DOCS):
        base = src.open_table(name).to_arrow()
        vectors = np.stack(base["vector"].to_numpy(zero_copy_only=False)).astype(np.float32)
        table = None
        left = rows if name == CHUNKS else None
        for c in range(copies):
            part = base if left is None or left >= len(base) else base.slice(0, left)
            vec = vectors[: len(part)]
            if c:
                vec = vec + rng.normal(0, 0.02, vec.shape).astype(np.float32)
                vec /= np.linalg.norm(vec, axis=1, keepdims=True)
                tag = f"~{c}"
                ids = pc.replace_substring(part["id"], "#", tag + "#") if name == CHUNKS \
                    else pc.binary_join_element_wise(part["id"], pa.scalar(tag), "")
                part = part.set_column(part.schema.get_field_index("id"), "id", ids)
                part = part.set_column(part.schema.get_field_index("doc_id"), "doc_id",
                                       pc.binary_join_element_wise(part["doc_id"], pa.scalar(tag), ""))
            flat = pa.array(vec.reshape(-1), type=pa.float32())
            part = part.set_column(part.schema.get_field_index("vector"), "vector",
                                   pa.FixedSizeListArray.from_arrays(flat, vec.shape[1]))
            if table is None:
                table = db.create_table(name, data=part)
            else:
                table.add(part)
            if left is not None:
                left -= len(part)
                if left <= 0:
                    break
    docs_table, chunks_table = db.open_table(DOCS), db.open_table(CHUNKS)
    build_fts(docs_table, chunks_table)
    (out / "done").write_text(str(chunks_table.count_rows()), encoding="utf-8")
    print(f"synthetic index: {chunks_table.count_rows()} chunks, {docs_table.count_rows()} documents "
          f"in {time.monotonic() - t0:.0f} s", flush=True)
    return out


def calibration(searcher: Searcher, questions: list[dict]) -> None:
    """Best passage similarity / BM25 for answerable vs. negative questions (for ask's retrieval gate)."""
    rows = {"answerable": [], "negative": []}
    for q in questions:
        hits = searcher.search(q["q"], k=5, group=False)
        sim = max((h.similarity for h in hits), default=0.0)
        bm = max((h.bm25 for h in hits), default=0.0)
        rows["negative" if not q["relevant"] else "answerable"].append((sim, bm, q["id"]))
    for kind, vals in rows.items():
        sims = sorted(v[0] for v in vals)
        bms = sorted(v[1] for v in vals)
        print(f"  {kind:10} n={len(vals):2}  best passage similarity min {sims[0]:.3f} median "
              f"{statistics.median(sims):.3f} max {sims[-1]:.3f}; best BM25 min {bms[0]:.2f} median "
              f"{statistics.median(bms):.2f} max {bms[-1]:.2f}")
    neg = rows["negative"]
    print("  negatives:", ", ".join(f"{i} sim {s:.3f} bm25 {b:.2f}" for s, b, i in neg))
    low = sorted(rows["answerable"])[:5]
    print("  lowest answerable:", ", ".join(f"{i} sim {s:.3f} bm25 {b:.2f}" for s, b, i in low))
    for gate in (0.25, 0.3, 0.35, 0.4):
        blocked = sum(s < gate for s, _, _ in rows["answerable"])
        passed = sum(s >= gate for s, _, _ in neg)
        print(f"  gate similarity >= {gate}: blocks {blocked}/{len(rows['answerable'])} answerable, "
              f"lets {passed}/{len(neg)} negatives through")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", type=Path, default=Path(tempfile.gettempdir()) / "siterag-bench" / "retrieval")
    p.add_argument("--rebuild", action="store_true", help="rebuild the corpus with `siterag run`")
    p.add_argument("--questions", type=Path, default=QUESTIONS)
    defaults = IndexSettings()
    p.add_argument("--max-tokens", type=int, default=defaults.max_tokens)
    p.add_argument("--overlap", type=int, default=defaults.overlap_tokens)
    p.add_argument("--lead", type=int, default=defaults.lead_tokens)
    p.add_argument("--no-stem", action="store_true")
    p.add_argument("--markdown-vectors", action="store_true", help="embed passages as Markdown, not plain text")
    p.add_argument("--index", type=Path, help="measure this data dir's index instead (e.g. an earlier layout)")
    p.add_argument("--variants", action="store_true", help="also measure ablations")
    p.add_argument("--rows", type=int, default=100_000, help="chunks in the synthetic latency index (0: skip)")
    p.add_argument("--no-calibration", action="store_true")
    args = p.parse_args()
    if not SHARED.is_dir():
        sys.exit(f"needs the shared sites in {SHARED} (or SITERAG_SHARED)")

    settings = IndexSettings(max_tokens=args.max_tokens, overlap_tokens=args.overlap, lead_tokens=args.lead,
                             stem=not args.no_stem, embed_plain=not args.markdown_vectors)
    if args.index:
        index = args.index
    else:
        data = build_corpus(args.bench, args.rebuild)
        index = build_index(args.bench, data, settings)
    searcher = Searcher(index)
    questions = load_questions(args.questions)
    n_chunks, n_docs = searcher.chunks.count_rows(), searcher.docs.count_rows()
    answerable = [q for q in questions if q["relevant"]]
    print(f"\n{len(answerable)} questions ({sum(q['lang'] == 'ja' for q in answerable)} Japanese, "
          f"{sum(q['lang'] == 'en' for q in answerable)} English) over {n_docs} documents / {n_chunks} chunks; "
          f"index {settings}")
    runs = RUNS | (VARIANTS if args.variants else {})
    results = evaluate(searcher, questions, runs)
    print("\n| mode | recall@5 | MRR | recall@5 ja | recall@5 en | misses (rank) |\n|---|---|---|---|---|---|")
    for name, r in results.items():
        print(f"| {name} | {r['recall5']:.3f} | {r['mrr']:.3f} | {r['lang'].get('ja', 0):.3f} | "
              f"{r['lang'].get('en', 0):.3f} | {' '.join(r['misses'])} |")
    if not args.no_calibration:
        print("\nask's retrieval gate (passage level):")
        calibration(searcher, questions)
    print("\n| index | chunks | median ms | p95 ms | median ms w/o embedding | p95 ms w/o embedding |\n"
          "|---|---|---|---|---|---|")
    lat = latency(searcher, answerable)
    print(f"| shared sites | {n_chunks} | {lat['median']:.1f} | {lat['p95']:.1f} | {lat['db_median']:.1f} | "
          f"{lat['db_p95']:.1f} |", flush=True)
    if args.rows:
        big_dir = synthetic(args.bench, index, args.rows)
        chunks = connect(big_dir / "lancedb").open_table(CHUNKS)
        t0 = time.monotonic()
        if ensure_vector_index(chunks, min_rows=0) == "created":
            print(f"(vector index built in {time.monotonic() - t0:.0f} s)")
        for label in ("synthetic, flat vector search", "synthetic, IVF_HNSW_SQ vector index"):
            big = Searcher(big_dir, exact="flat" in label)
            lat = latency(big, answerable)
            print(f"| {label} | {big.chunks.count_rows()} | {lat['median']:.1f} | {lat['p95']:.1f} | "
                  f"{lat['db_median']:.1f} | {lat['db_p95']:.1f} |", flush=True)
    print(f"\n(load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
