"""Scale-out benchmark: pages/s of the real site flow over a synthetic archive built from ../shared/sites, with
the extract+enrich stage on local Dask clusters of 1, 2 and 4 workers, and the cost of every stage.

    .venv/bin/python benchmarks/scale.py                          # 5,000 pages; Dask 1, 2, 4 workers
    .venv/bin/python benchmarks/scale.py --pages 1000 --workers 1,2
    .venv/bin/python benchmarks/scale.py --llm-pages 12           # + 1 vs 2 llama-server endpoints (hybrid)

The archive: every HTML page of the shared sites (original bytes and encodings) copied N times under
c<k>/<site>/, each copy with one ASCII paragraph naming it so that no two pages are the same, the sites' images
and other files linked in (so purge has work), and list pages linking to every page. It is served on
127.0.0.1 and mirrored by wget, like a real site.

Runs, one Prefect flow run each (a temporary Prefect server, started once):
1. the first run with the first worker count: mirror, purge+normalize, extract+enrich, quality, chunk+embed+index
   from scratch; its wall time is the end-to-end figure, and its stages the cost per stage;
2. then, for every worker count (and the default in-process runner), the corpus is deleted and the flow run
   again: the mirror re-crawls (wget's refresh of an unchanged site), extract+enrich redoes every page, and
   the index finds every document unchanged (0 embeddings). Its extract+enrich wall time gives pages/s per
   worker count; "end to end" adds the first run's other stages, which Dask does not spread.

`--llm-pages N` also times hybrid extraction + LLM metadata of N pages with the packaged Gemma 3 270M through
one llama-server using both cores, then through two endpoints with one core each (`[llm] base_urls`,
2 Dask workers, one request at a time per endpoint).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

from refresh import serve  # benchmarks/refresh.py: a folder served on 127.0.0.1

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED_SITES = ROOT.parent / "shared" / "sites"
HTML = {".html", ".htm"}
LINKS_PER_LIST = 100
_BODY_END = re.compile(rb"</body\s*>", re.IGNORECASE)


def build_archive(out: Path, pages: int) -> int:
    """Write the synthetic archive into `out`; returns the number of HTML pages in it."""
    originals = sorted(p for p in SHARED_SITES.rglob("*") if p.is_file() and p.name != "SOURCE.txt")
    html = [p for p in originals if p.suffix.lower() in HTML]
    copies = math.ceil(pages / len(html))
    written: list[str] = []
    for k in range(copies):
        for src in originals:
            rel = f"c{k}/{src.relative_to(SHARED_SITES).as_posix()}"
            dest = out / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            if src.suffix.lower() not in HTML:
                dest.symlink_to(src)  # images, archives, ... served as they are
                continue
            if len(written) >= pages:
                continue
            marker = f"<p>Archive copy {k} of {src.name}, kept for the scale benchmark.</p>\n".encode()
            raw = src.read_bytes()
            ends = list(_BODY_END.finditer(raw))
            raw = raw[:ends[-1].start()] + marker + raw[ends[-1].start():] if ends else raw + marker
            dest.write_bytes(raw)
            written.append(rel)
    lists = [written[i:i + LINKS_PER_LIST] for i in range(0, len(written), LINKS_PER_LIST)]
    for n, chunk in enumerate(lists):
        items = "\n".join(f'<li><a href="{quote(rel)}">{rel}</a></li>' for rel in chunk)
        (out / f"list-{n:03}.html").write_text(f"<html><body><ul>\n{items}\n</ul></body></html>\n", encoding="utf-8")
    index = "\n".join(f'<li><a href="list-{n:03}.html">list {n}</a></li>' for n in range(len(lists)))
    (out / "index.html").write_text(f"<html><body><ul>\n{index}\n</ul></body></html>\n", encoding="utf-8")
    return len(written)


def write_config(path: Path, data: Path, site: str, runner: str, workers: int, batch: int, llm: str = "") -> Path:
    path.write_text(f'[defaults]\ndata_dir = "{data}"\nbatch_size = {batch}\ntask_runner = "{runner}"\n'
                    f'dask_workers = {workers}\n{llm}\n{site}', encoding="utf-8")
    return path


def run_flow(config: Path, site: str) -> tuple[float, dict]:
    from flows.site import site_flow

    started = time.monotonic()
    report = site_flow(site, str(config))
    return time.monotonic() - started, report


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def scale_runs(work: Path, url: str, pages: int, workers: list[int], batch: int, with_thread: bool) -> dict:
    data = work / "data"
    site = f'[[site]]\nname = "archive"\nstart_urls = ["{url}/index.html"]\nextract_mode = "heuristic"\nquota = "5g"\n'
    out: dict = {"pages": pages, "runs": []}
    first = workers[0]
    cfg = write_config(work / "sites.toml", data, site, "dask", first, batch)
    wall, report = run_flow(cfg, "archive")
    out["first"] = {"workers": first, "wall_s": round(wall, 1), "seconds": report["seconds"],
                    "documents": report["documents"], "chunks": report["index"]["chunks"],
                    "binaries": report["binaries"], "pages_seen": report["pages_seen"]}
    print(f"first run ({first} Dask worker{'s' * (first > 1)}): {wall:.0f} s for {report['pages_seen']} pages "
          f"= {report['pages_seen'] / wall:.2f} pages/s; {report['documents']} documents, "
          f"{report['index']['chunks']} chunks; stages {report['seconds']}", flush=True)
    plans = [("thread", 1)] * with_thread + [("dask", w) for w in workers]
    for runner, w in plans:
        shutil.rmtree(data / "corpus" / "archive")
        cfg = write_config(work / "sites.toml", data, site, runner, w, batch)
        wall, report = run_flow(cfg, "archive")
        s = report["seconds"]
        assert report["index"]["embed_calls"] == 0, report["index"]  # the documents came out the same
        row = {"runner": runner, "workers": w, "wall_s": round(wall, 1), "seconds": s,
               "pages": report["new"], "extract_pages_per_s": round(report["new"] / s["extract+enrich"], 2)}
        out["runs"].append(row)
        print(f"{runner} x{w}: extract+enrich {s['extract+enrich']:.0f} s = {row['extract_pages_per_s']} pages/s "
              f"(page work summed {s['extract (pages)'] + s['enrich (pages)']:.0f} s); refresh crawl "
              f"{s['mirror']:.0f} s", flush=True)
    return out


def llm_runs(work: Path, n: int) -> dict:
    """Hybrid + LLM metadata over n pages: one llama-server (2 threads) vs two endpoints (1 thread each)."""
    from siterag.llm.llama_server import start_server, stop_server

    pages = work / "llm-site"
    html = sorted(p for p in SHARED_SITES.rglob("*") if p.suffix.lower() in HTML and p.stat().st_size > 3000)
    step = max(1, len(html) // n)
    for k, src in enumerate(html[::step][:n]):
        dest = pages / f"{k:03}-{src.name}"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(src.read_bytes())
    site = f'[[site]]\nname = "llm"\nlocal_path = "{pages}"\nextract_mode = "hybrid"\n'
    out = {}
    for label, threads in (("1 endpoint x 2 threads", (2,)), ("2 endpoints x 1 thread", (1, 1))):
        ports = [free_port() for _ in threads]
        procs = [start_server(p, ctx=4096, threads=t) for p, t in zip(ports, threads, strict=True)]
        try:
            urls = ", ".join(f'"http://127.0.0.1:{p}/v1"' for p in ports)
            llm = f'[llm]\nbase_urls = [{urls}]\nmax_concurrent = 1\ntimeout = 300\nretries = 0\n'
            data = work / f"llm-data-{len(ports)}"
            cfg = write_config(work / "llm.toml", data, site, "dask", 2, 1, llm)
            wall, report = run_flow(cfg, "llm")
        finally:
            for proc in procs:
                stop_server(proc)
        s = report["seconds"]
        out[label] = {"wall_s": round(wall, 1), "pages": report["new"], "llm_calls": report["llm_calls"],
                      "seconds": s, "pages_per_s": round(report["new"] / s["extract+enrich"], 3)}
        print(f"{label}: {report['new']} pages, {report['llm_calls']} LLM requests, extract+enrich "
              f"{s['extract+enrich']:.0f} s = {out[label]['pages_per_s']} pages/s", flush=True)
    return out


def summary(result: dict) -> None:
    first = result["first"]
    s = first["seconds"]
    other = sum(s[k] for k in ("mirror", "normalize", "quality", "index"))
    print(f"\nsynthetic archive: {first['pages_seen']} pages seen ({first['documents']} documents, "
          f"{first['binaries']} binaries purged, {first['chunks']} chunks)")
    print(f"first run end to end: {first['wall_s']:.0f} s = {first['pages_seen'] / first['wall_s']:.2f} pages/s")
    print("cost per stage (first run, wall s): " + ", ".join(
        f"{k} {s[k]:.0f}" for k in ("mirror", "normalize", "extract+enrich", "quality", "index")))
    print(f"  extract+enrich split (summed over workers): extract {s['extract (pages)']:.0f}, enrich "
          f"{s['enrich (pages)']:.0f}; index split: chunk {s['chunk']:.0f}, embed {s['embed']:.0f}, "
          f"write {s['write']:.0f} (the rest: embedder load, corpus read)")
    print(f"\n{'runner':8} {'workers':>7} {'extract p/s':>12} {'speed-up':>9} {'end-to-end p/s':>15}")
    base = next((r for r in result["runs"] if r["runner"] == "thread"), result["runs"][0])
    for r in result["runs"]:
        e2e = first["pages_seen"] / (other + r["seconds"]["extract+enrich"])
        print(f"{r['runner']:8} {r['workers']:>7} {r['extract_pages_per_s']:>12.2f} "
              f"{r['extract_pages_per_s'] / base['extract_pages_per_s']:>8.2f}x {e2e:>15.2f}")
    for label, row in result.get("llm", {}).items():
        print(f"LLM {label}: {row['pages_per_s']:.3f} pages/s ({row['llm_calls']} requests, {row['pages']} pages)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=5000)
    parser.add_argument("--workers", default="1,2,4", help="Dask worker counts (default 1,2,4)")
    parser.add_argument("--batch-size", type=int, default=25)
    parser.add_argument("--no-thread", action="store_true", help="skip the default in-process runner's run")
    parser.add_argument("--llm-pages", type=int, default=0, help="also time 1 vs 2 llama-server endpoints")
    parser.add_argument("--work", type=Path, help="scratch folder (default: a temporary one, removed)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "scale.json")
    args = parser.parse_args()
    if not SHARED_SITES.is_dir():
        print(f"skipped: {SHARED_SITES} is absent")
        return 0
    try:
        workers = [int(w) for w in args.workers.split(",")]
    except ValueError:
        parser.error("--workers: a comma-separated list of whole numbers, e.g. 1,2,4")
    if args.pages < 1 or min(workers) < 1:
        parser.error("--pages and --workers must be >= 1")
    work = args.work or Path(tempfile.mkdtemp(prefix="siterag-scale-"))
    os.environ.setdefault("PREFECT_HOME", str(work / "prefect"))
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "ERROR")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    from prefect.testing.utilities import prefect_test_harness

    www = work / "www"
    count = build_archive(www, args.pages)
    print(f"archive: {count} HTML pages under {www}", flush=True)
    server, url = serve(www)
    try:
        with prefect_test_harness(server_startup_timeout=120):
            result = scale_runs(work, url, count, workers, args.batch_size, not args.no_thread)
            if args.llm_pages:
                result["llm"] = llm_runs(work, args.llm_pages)
    finally:
        server.shutdown()
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    summary(result)
    print(f"\nfigures saved to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
