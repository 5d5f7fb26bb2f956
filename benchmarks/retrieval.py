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
   with flat vector search and then with the IVF_HNSW_SQ index that sync_site builds past 30k chunks (its
   candidates re-scored exactly, refine, and without).
5. Growth (--growth): the same questions over an index of their sites only, then over every shared site (the
   others are distractors), by flat search, through the ANN index with refine (the search's default) and
   without it (what search did before); recall@5 and MRR with bootstrap noise (sd over resampled questions)
   and the paired 95% interval of each row's difference to the first. The corpus of every shared site is built
   once into --growth-dir (`siterag run`, which indexes it); the ANN index is added to that index when it has
   --ann-min-rows chunks (default the search's threshold; lower it when the shared sites do not reach it).

    .venv/bin/python benchmarks/retrieval.py --growth --ann-min-rows 20000
6. Dates (--dates): benchmarks/date_questions.jsonl, questions that name the day (month, year) of a diary entry,
   over the --growth-dir index of every shared site, each answered by one entry (`site/path#anchor`): the rank of
   the first passage of that entry (group=False) and of its page (grouped), with the query's dates preferred
   (query_dates, date_weight 0.05 / 0.1 / 0.2) and without (0, no dated candidates).

    .venv/bin/python benchmarks/retrieval.py --dates
7. Cross-language (--cross): the questions whose language differs from every answering page's (an English
   question answered only by Japanese pages, or the reverse; a page's language is page_language of its indexed
   passages), recall@5 / MRR with bootstrap noise for hybrid, vector and full text, next to all questions; with
   --variants also the cross-language ideas (CROSS_VARIANTS) and their paired difference to hybrid.

    .venv/bin/python benchmarks/retrieval.py --cross --variants
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

import siterag.index.index as index_module  # noqa: E402
from siterag.enrich.metadata import page_language  # noqa: E402
from siterag.index.embed_cache import cached_embedder  # noqa: E402
from siterag.index.embedding import get_embedder  # noqa: E402
from siterag.index.index import (  # noqa: E402
    CHUNKS,
    DOCS,
    VECTOR_INDEX_MIN_ROWS,
    IndexSettings,
    build_fts,
    connect,
    ensure_vector_index,
    has_vector_index,
    sync_site,
)
from siterag.layout import SiteLayout  # noqa: E402
from siterag.pipeline import indexed_docs  # noqa: E402
from siterag.search.search_api import DEPTH, Searcher, fuse, query_dates  # noqa: E402

SITES = ("fontforge-ja", "crest-digitalcity", "gyrobot")
SHARED = Path(os.environ.get("SITERAG_SHARED", ROOT.parent / "shared")) / "sites"
QUESTIONS = ROOT / "benchmarks" / "questions.jsonl"
DATE_QUESTIONS = ROOT / "benchmarks" / "date_questions.jsonl"


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
        found, rr, by_lang, misses, ranks = 0, 0.0, {}, [], []
        mode, depth = run.get("mode", "hybrid"), run.get("depth", 100)
        for q in answerable:
            if run.get("lancedb_hybrid"):
                refs = lancedb_hybrid(searcher, q["q"], vectors[q["id"]])
            else:
                key = (q["id"], mode, depth)
                if key not in cache:
                    cache[key] = searcher.candidates(q["q"], None, depth, mode, vectors[q["id"]])
                options = {k: v for k, v in run.items() if k in ("alpha", "doc_weight", "fusion", "cross_weight")}
                group = run.get("group", True)
                hits = fuse(cache[key], q["q"], 10 if group else 30, group, mode=mode, searcher=searcher, **options)
                refs = [h.ref for h in hits]
            rank = first_rank(refs, set(q["relevant"]))
            ranks.append(rank)
            ok = rank is not None and rank <= 5
            found += ok
            rr += 1.0 / rank if rank and rank <= 10 else 0.0
            lang = by_lang.setdefault(q["lang"], [0, 0])
            lang[0] += ok
            lang[1] += 1
            if not ok:
                misses.append(f"{q['id']}({rank or '-'})")
        n = len(answerable)
        results[name] = {"recall5": found / n, "mrr": rr / n, "n": n, "misses": misses, "ranks": ranks,
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


# ---- growth: the same questions as the index grows --------------------------------------------------------

GROWTH_RUNS = {"hybrid": {"mode": "hybrid"}, "vector": {"mode": "vector"}}


def shared_sites() -> list[str]:
    """Every shared site (a folder of ../shared/sites)."""
    return sorted(d.name for d in SHARED.iterdir() if d.is_dir())


def question_scores(ranks: list[int | None]) -> tuple[np.ndarray, np.ndarray]:
    """Per question: found in the first 5 (0/1), reciprocal rank within the first 10."""
    hit5 = np.array([1.0 if r is not None and r <= 5 else 0.0 for r in ranks])
    rr = np.array([1.0 / r if r is not None and r <= 10 else 0.0 for r in ranks])
    return hit5, rr


def bootstrap(values: np.ndarray, base: np.ndarray | None = None, n: int = 2000,
              seed: int = 0) -> tuple[float, tuple[float, float] | None]:
    """Questions resampled with replacement `n` times: the sd of the mean of `values`, and (given `base`, the
    same questions' values in another setting) the 95% interval of the mean paired difference values - base."""
    picks = np.random.default_rng(seed).integers(0, len(values), size=(n, len(values)))
    sd = float(values[picks].mean(axis=1).std())
    if base is None:
        return sd, None
    diff = (values - base)[picks].mean(axis=1)
    return sd, (float(np.percentile(diff, 2.5)), float(np.percentile(diff, 97.5)))


def growth_data(growth_dir: Path, sites: list[str]) -> Path:
    """<growth_dir>/data: every shared site archived and indexed by `siterag run` (once)."""
    data = growth_dir / "data"
    if (data / "lancedb").is_dir() and all((data / "corpus" / s).is_dir() for s in sites):
        return data
    archive_shared_sites(growth_dir / "shared-sites.toml", data, sites)
    return data


def own_index(growth_dir: Path, data: Path) -> Path:
    """<growth_dir>/own/: a data dir whose index holds only the questions' sites (vectors from data's cache)."""
    out = growth_dir / "own"
    if (out / "done").exists():
        return out
    if out.exists():
        shutil.rmtree(out)
    embedder = cached_embedder(get_embedder("use-multilingual-v3"), data)
    for site in SITES:
        sync_site(out / "lancedb", site, indexed_docs(SiteLayout(data, site), site), embedder)
    (out / "done").write_text("", encoding="utf-8")
    return out


def with_ann_index(data: Path, min_rows: int) -> bool:
    """Give data's chunks table its ANN index when it has `min_rows` chunks; whether it has one."""
    chunks = connect(data / "lancedb").open_table(CHUNKS)
    if not has_vector_index(chunks) and chunks.count_rows() >= min_rows:
        t0 = time.monotonic()
        ensure_vector_index(chunks, min_rows=min_rows)
        print(f"(IVF_HNSW_SQ index built over {chunks.count_rows()} chunks in {time.monotonic() - t0:.0f} s)")
    return has_vector_index(chunks)


def vector_latency(searcher: Searcher, questions: list[dict], repeat: int = 3) -> tuple[float, float]:
    """Milliseconds (median, p95) of the chunk table's vector query alone (DEPTH rows), `repeat` runs a question."""
    vectors = [searcher.embed(q["q"]) for q in questions]
    times = []
    for _ in range(repeat):
        for vector in vectors:
            t0 = time.perf_counter()
            searcher._vector_rows(searcher.chunks, ["id"], vector, None, DEPTH)
            times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), float(np.percentile(times, 95))


def measure_growth(growth_dir: Path, questions: list[dict], ann_min_rows: int, boot: int) -> None:
    """The growth table (module docstring, 5.) and the latency of each setting."""
    sites = shared_sites()
    data = growth_data(growth_dir, sites)
    own = own_index(growth_dir, data)
    ann = with_ann_index(data, ann_min_rows)
    settings = [("own sites only", Searcher(own, exact=True), None),
                ("all shared sites, flat", Searcher(data, exact=True), None)]
    if ann:
        settings += [("all shared sites, IVF_HNSW_SQ + refine", Searcher(data), None),
                     ("all shared sites, IVF_HNSW_SQ, no refine (before)", Searcher(data), 0)]
    answerable = [q for q in questions if q["relevant"]]
    print(f"\n{len(answerable)} questions over {', '.join(SITES)}; distractors: "
          f"{', '.join(s for s in sites if s not in SITES)}; bootstrap {boot} resamples of the questions")
    print("\n| index | chunks | mode | recall@5 ± sd | Δ recall@5 [95% CI] | MRR ± sd | Δ MRR [95% CI] | "
          "hybrid search ms p50 / p95 (w/o embedding) | chunk vector query ms p50 / p95 |\n"
          "|---|---|---|---|---|---|---|---|---|")
    base: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for label, searcher, refine in settings:
        saved = index_module.REFINE_FACTOR
        if refine is not None:
            index_module.REFINE_FACTOR = refine
        try:
            results = evaluate(searcher, questions, GROWTH_RUNS)
            lat = latency(searcher, answerable)
            vec = vector_latency(searcher, answerable)
        finally:
            index_module.REFINE_FACTOR = saved
        for mode, r in results.items():
            hit5, rr = question_scores(r["ranks"])
            ref = base.setdefault(mode, (hit5, rr))
            first = ref[0] is hit5
            sd5, ci5 = bootstrap(hit5, None if first else ref[0], boot)
            sdr, cir = bootstrap(rr, None if first else ref[1], boot)
            delta5 = "—" if ci5 is None else f"{hit5.mean() - ref[0].mean():+.3f} [{ci5[0]:+.3f}, {ci5[1]:+.3f}]"
            deltar = "—" if cir is None else f"{rr.mean() - ref[1].mean():+.3f} [{cir[0]:+.3f}, {cir[1]:+.3f}]"
            timing = f"{lat['db_median']:.0f} / {lat['db_p95']:.0f} | {vec[0]:.1f} / {vec[1]:.1f}" \
                if mode == "hybrid" else " | "
            print(f"| {label} | {searcher.chunks.count_rows()} | {mode} | {hit5.mean():.3f} ± {sd5:.3f} | {delta5} | "
                  f"{rr.mean():.3f} ± {sdr:.3f} | {deltar} | {timing} |", flush=True)


def date_ranks(searcher: Searcher, questions: list[dict], weight: float) -> tuple[list, list]:
    """Per question: rank of the answering entry's first passage (group=False; `site/path#anchor`) and of its
    page (grouped), with the query's dates preferred by `weight` (0: not at all, no dated candidates)."""
    entry, page = [], []
    for q in questions:
        vector = searcher.embed(q["q"])
        dates = query_dates(q["q"]) if weight else []
        found = searcher.candidates(q["q"], None, DEPTH, "hybrid", vector, dates=dates)
        passages = fuse(found, q["q"], 30, False, searcher=searcher, dates=dates, date_weight=weight)
        pages = fuse(found, q["q"], 10, True, searcher=searcher, dates=dates, date_weight=weight)
        entry.append(first_rank([f"{h.ref}#{h.anchor}" for h in passages], set(q["relevant"])))
        page.append(first_rank([h.ref for h in pages], {r.split("#")[0] for r in q["relevant"]}))
    return entry, page


def measure_dates(growth_dir: Path, questions: list[dict], boot: int) -> None:
    """The date-question table (module docstring, 6.)."""
    data = growth_data(growth_dir, shared_sites())
    searcher = Searcher(data)
    print(f"\n{len(questions)} questions naming a date ({sum(q['lang'] == 'ja' for q in questions)} Japanese) over "
          f"{searcher.chunks.count_rows()} chunks of every shared site; hybrid; bootstrap {boot} resamples")
    print("\n| date preference | entry recall@5 ± sd | entry MRR ± sd | Δ entry MRR [95% CI] | page recall@5 | "
          "page MRR | misses (entry rank) |\n|---|---|---|---|---|---|---|")
    base = None
    for weight in (0.0, 0.05, 0.1, 0.2):
        entry, page = date_ranks(searcher, questions, weight)
        hit5, rr = question_scores(entry)
        phit5, prr = question_scores(page)
        base = rr if base is None else base
        sd5, _ = bootstrap(hit5, None, boot)
        sdr, ci = bootstrap(rr, None if weight == 0 else base, boot)
        delta = "—" if ci is None else f"{rr.mean() - base.mean():+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]"
        misses = " ".join(f"{q['id']}({r or '-'})" for q, r in zip(questions, entry, strict=True) if not r or r > 5)
        label = "none (before)" if weight == 0 else f"date_weight {weight}"
        print(f"| {label} | {hit5.mean():.3f} ± {sd5:.3f} | {rr.mean():.3f} ± {sdr:.3f} | {delta} | "
              f"{phit5.mean():.3f} | {prr.mean():.3f} | {misses} |", flush=True)


CROSS_VARIANTS = {f"hybrid, cross-script cosine {w}": {"cross_weight": w}
                  for w in ((0.0, 0.0), (0.0, 1.0), (0.5, 0.5), (1.0, 1.0))}


def page_languages(searcher: Searcher) -> dict[str, str]:
    """'site/path' -> 'ja' or 'en': page_language of the page's indexed passages together."""
    texts: dict[str, list[str]] = {}
    for row in searcher.chunks.search().select(["site", "path", "text"]).limit(None).to_arrow().to_pylist():
        texts.setdefault(f"{row['site']}/{row['path']}", []).append(row["text"])
    return {ref: "ja" if page_language("\n".join(t)) == "ja" else "en" for ref, t in texts.items()}


def cross_language(questions: list[dict], languages: dict[str, str]) -> list[dict]:
    """The answerable questions none of whose answering pages is in the question's language."""
    return [q for q in questions if q["relevant"] and all(languages.get(r) != q["lang"] for r in q["relevant"])]


def measure_cross(searcher: Searcher, questions: list[dict], variants: bool, boot: int) -> None:
    """The cross-language table (module docstring, 7.)."""
    cross = cross_language(questions, page_languages(searcher))
    answerable = [q for q in questions if q["relevant"]]
    print(f"\n{len(cross)} cross-language questions ({sum(q['lang'] == 'en' for q in cross)} English over Japanese "
          f"pages, {sum(q['lang'] == 'ja' for q in cross)} Japanese over English) of {len(answerable)}; "
          f"bootstrap {boot} resamples")
    runs = RUNS | (CROSS_VARIANTS if variants else {})
    print("\n| questions | mode | recall@5 ± sd | MRR ± sd | Δ MRR vs hybrid [95% CI] | misses (rank) |\n"
          "|---|---|---|---|---|---|")
    for label, subset in (("cross-language", cross), ("all answerable", answerable)):
        results = evaluate(searcher, subset, runs)
        base = question_scores(results["hybrid"]["ranks"])
        for name, r in results.items():
            hit5, rr = question_scores(r["ranks"])
            sd5, _ = bootstrap(hit5, None, boot)
            sdr, ci = bootstrap(rr, None if name in RUNS else base[1], boot)
            delta = "—" if ci is None else f"{rr.mean() - base[1].mean():+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]"
            misses = " ".join(r["misses"]) if label == "cross-language" else f"{len(r['misses'])} misses"
            print(f"| {label} | {name} | {hit5.mean():.3f} ± {sd5:.3f} | {rr.mean():.3f} ± {sdr:.3f} | {delta} | "
                  f"{misses} |", flush=True)


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
    p.add_argument("--growth", action="store_true", help="only the growth table (own sites vs every shared site)")
    p.add_argument("--growth-dir", type=Path, default=Path(tempfile.gettempdir()) / "siterag-bench" / "growth")
    p.add_argument("--ann-min-rows", type=int, default=VECTOR_INDEX_MIN_ROWS,
                   help="growth: give the all-sites index its ANN index from this many chunks")
    p.add_argument("--boot", type=int, default=2000, help="bootstrap resamples")
    p.add_argument("--dates", action="store_true", help="only the date-question table (over --growth-dir)")
    p.add_argument("--cross", action="store_true", help="only the cross-language table (and, with --variants, ideas)")
    args = p.parse_args()
    if not SHARED.is_dir():
        sys.exit(f"needs the shared sites in {SHARED} (or SITERAG_SHARED)")
    if args.dates:
        measure_dates(args.growth_dir, load_questions(DATE_QUESTIONS), args.boot)
    if args.growth:
        measure_growth(args.growth_dir, load_questions(args.questions), args.ann_min_rows, args.boot)
    if args.growth or args.dates:
        print(f"\n(load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
        return

    settings = IndexSettings(max_tokens=args.max_tokens, overlap_tokens=args.overlap, lead_tokens=args.lead,
                             stem=not args.no_stem, embed_plain=not args.markdown_vectors)
    if args.index:
        index = args.index
    else:
        data = build_corpus(args.bench, args.rebuild)
        index = build_index(args.bench, data, settings)
    searcher = Searcher(index)
    questions = load_questions(args.questions)
    if args.cross:
        measure_cross(searcher, questions, args.variants, args.boot)
        return
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
        for label, refine in (("synthetic, flat vector search", None),
                              ("synthetic, IVF_HNSW_SQ vector index + refine", index_module.REFINE_FACTOR),
                              ("synthetic, IVF_HNSW_SQ vector index, no refine", 0)):
            big = Searcher(big_dir, exact="flat" in label)
            saved, index_module.REFINE_FACTOR = index_module.REFINE_FACTOR, refine or 0
            try:
                lat = latency(big, answerable)
            finally:
                index_module.REFINE_FACTOR = saved
            print(f"| {label} | {big.chunks.count_rows()} | {lat['median']:.1f} | {lat['p95']:.1f} | "
                  f"{lat['db_median']:.1f} | {lat['db_p95']:.1f} |", flush=True)
    print(f"\n(load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
