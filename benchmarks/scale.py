"""Scale benchmark: pages/s of the real site flow's first run over a synthetic archive built from ../shared/sites,
per stage (wall seconds, share, peak RSS), at one or more archive sizes and Dask worker counts.

    .venv/bin/python benchmarks/scale.py                                  # 5,000 pages; Dask 1 and 2 workers
    .venv/bin/python benchmarks/scale.py --pages 1000,5000,20000 --workers 2   # how cost grows
    .venv/bin/python benchmarks/scale.py --pages 1000 --workers 1,2 --thread    # + the in-process runner
    .venv/bin/python benchmarks/scale.py --llm-pages 12                   # + 1 vs 2 llama-server endpoints (hybrid)

The archive: every HTML page of the shared sites (original bytes and encodings) copied N times under
c<k>/<site>/, each copy with one ASCII paragraph naming it so that no two pages are the same, the sites' images
and other files linked in (so purge has work), and list pages linking to every page. It is served on
127.0.0.1 and mirrored by wget, like a real site. (Copies keep their titles: most of a copy's passages are the
same texts as the original's, which the embedding cache embeds once; "passages embedded" says how many were.)

Every run is a first run (fresh data folder, empty embedding cache), one Prefect flow run each (a temporary
Prefect server, started once): mirror, purge+normalize (+ site template), extract+enrich (Dask workers; they
also embed the new documents' passages into the cache), enrich (site pass), quality, index (chunk, embed what
the cache lacks, write LanceDB). Peak RSS per stage: the flow process plus the processes it started (Dask
workers, wget), sampled every 0.5 s, by the stage spans the flow reports; CPU seconds per stage likewise (user +
system, all those processes: unlike wall time, hardly moved by other work on the machine).

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
import threading
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


STAGES = ("mirror", "normalize", "extract+enrich", "enrich", "quality", "index")


class RssSampler:
    """RSS and CPU seconds of this process plus the processes it starts after `start()` (not the Prefect server),
    every 0.5 s."""

    def __init__(self) -> None:
        import psutil

        self._me = psutil.Process()
        self._before = {c.pid for c in self._me.children(recursive=True)}
        self.samples: list[tuple[float, int]] = []
        self.cpu: dict[int, list[tuple[float, float]]] = {}  # pid -> (time, CPU seconds so far)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psutil

        procs: list = []
        tick = 0
        while not self._stop.is_set():
            if tick % 5 == 0:  # the process tree is read every 2.5 s: psutil's walk of /proc costs CPU (~6% of a core
                try:           # at every 0.2 s), which the run measured would pay for
                    procs = [self._me] + [c for c in self._me.children(recursive=True) if c.pid not in self._before]
                except psutil.Error:
                    pass
            tick += 1
            total, cpu = 0, {}
            for proc in procs:
                try:
                    with proc.oneshot():
                        total += proc.memory_info().rss
                        times = proc.cpu_times()
                        cpu[proc.pid] = times.user + times.system
                except psutil.Error:
                    pass
            now = time.time()
            self.samples.append((now, total))
            for pid, seconds in cpu.items():
                self.cpu.setdefault(pid, []).append((now, seconds))
            self._stop.wait(0.5)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def cpu_s(self, start: float, end: float) -> float:
        """CPU seconds (user + system) spent between `start` and `end` by this process and its children."""
        def at(series: list[tuple[float, float]], when: float) -> float:
            return max((cpu for t, cpu in series if t <= when), default=0.0)

        return round(sum(at(series, end + 0.5) - at(series, start) for series in self.cpu.values()), 1)

    def peak_mb(self, start: float, end: float) -> float:
        inside = [rss for t, rss in self.samples if start <= t <= end + 0.5]
        return round(max(inside, default=0) / 2**20)


def cache_rows(data: Path) -> int:
    """Texts in the data folder's embedding cache (all embedded during the run: it started empty)."""
    import sqlite3

    from siterag.index.embed_cache import cache_path

    path = cache_path(data)
    if not path.exists():
        return 0
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM vectors").fetchone()[0]


def first_run(work: Path, url: str, pages: int, runner: str, workers: int, batch: int) -> dict:
    """One first run of the archive (fresh data folder); per stage wall s, share and peak RSS."""
    data = work / f"data-{pages}-{runner}{workers}"
    site = (f'[[site]]\nname = "archive"\nstart_urls = ["{url}/index.html"]\nextract_mode = "heuristic"\n'
            'quota = "5g"\nmax_pages = 0\n')
    cfg = write_config(work / "sites.toml", data, site, runner, workers, batch)
    with RssSampler() as rss:
        wall, report = run_flow(cfg, "archive")
    s, idx = report["seconds"], report["index"]
    row = {"pages": pages, "runner": runner, "workers": workers, "wall_s": round(wall, 1),
           "pages_per_s": round(report["pages_seen"] / wall, 2), "pages_seen": report["pages_seen"],
           "documents": report["documents"], "chunks": idx["chunks"], "seconds": s,
           "share": {k: round(s[k] / wall, 3) for k in STAGES},
           "peak_rss_mb": {k: rss.peak_mb(*report["stage_spans"][k]) for k in STAGES},
           "cpu_s": {k: rss.cpu_s(*report["stage_spans"][k]) for k in STAGES},
           "passages_indexed": idx["chunks"] + idx["upserted"], "passages_embedded": cache_rows(data),
           "embedded_by_index": idx.get("texts_embedded")}
    print(f"{pages} pages, {runner} x{workers}: {wall:.0f} s = {row['pages_per_s']} pages/s; "
          f"{row['documents']} documents, {row['chunks']} chunks; passages indexed {row['passages_indexed']}, "
          f"embedded {row['passages_embedded']} ({row['embedded_by_index']} of them by the index stage)", flush=True)
    shutil.rmtree(data, ignore_errors=True)
    return row


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
    rows = result["runs"]
    print(f"\n{'pages':>6} {'run':>8} {'stage':>15} {'wall s':>8} {'share':>6} {'pages/s':>8} {'CPU s':>7} "
          f"{'peak RSS MB':>12}")
    for r in rows:
        run = f"{r['runner']} x{r['workers']}"
        for k in STAGES:
            sec = r["seconds"][k]
            print(f"{r['pages']:>6} {run:>8} {k:>15} {sec:>8.1f} {r['share'][k]:>6.1%} "
                  f"{r['pages_seen'] / max(sec, 1e-9):>8.1f} {r['cpu_s'][k]:>7.0f} {r['peak_rss_mb'][k]:>12}")
        print(f"{r['pages']:>6} {run:>8} {'end to end':>15} {r['wall_s']:>8.1f} {'':>6} {r['pages_per_s']:>8.2f} "
              f"{sum(r['cpu_s'].values()):>7.0f} {max(r['peak_rss_mb'].values()):>12}   (passages embedded "
              f"{r['passages_embedded']} of {r['passages_indexed']} indexed)")
    for pages in dict.fromkeys(r["pages"] for r in rows):
        same = [r for r in rows if r["pages"] == pages and r["runner"] == "dask"]
        one = next((r for r in same if r["workers"] == 1), None)
        for r in same:
            if one and r is not one:
                ups = ", ".join(f"{k} {one['seconds'][k] / max(r['seconds'][k], 1e-9):.2f}x"
                                for k in ("extract+enrich", "index"))
                print(f"{pages} pages: Dask {r['workers']} workers vs 1: {ups}, end to end "
                      f"{one['wall_s'] / r['wall_s']:.2f}x")
    for label, row in result.get("llm", {}).items():
        print(f"LLM {label}: {row['pages_per_s']:.3f} pages/s ({row['llm_calls']} requests, {row['pages']} pages)")


def _ints(text: str, parser: argparse.ArgumentParser, name: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        parser.error(f"{name}: a comma-separated list of whole numbers, e.g. 1,2")
    if min(values) < 1:
        parser.error(f"{name} must be >= 1")
    return values


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", default="5000", help="archive sizes, e.g. 1000,5000,20000 (default 5000)")
    parser.add_argument("--workers", default="1,2", help="Dask worker counts (default 1,2)")
    parser.add_argument("--batch-size", type=int, default=25)
    parser.add_argument("--thread", action="store_true", help="also a run on the default in-process runner")
    parser.add_argument("--llm-pages", type=int, default=0, help="also time 1 vs 2 llama-server endpoints")
    parser.add_argument("--work", type=Path, help="scratch folder (default: a temporary one, removed)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "scale.json")
    args = parser.parse_args()
    if not SHARED_SITES.is_dir():
        print(f"skipped: {SHARED_SITES} is absent")
        return 0
    sizes = _ints(args.pages, parser, "--pages")
    workers = _ints(args.workers, parser, "--workers")
    work = args.work or Path(tempfile.mkdtemp(prefix="siterag-scale-"))
    os.environ.setdefault("PREFECT_HOME", str(work / "prefect"))
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "ERROR")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    from prefect.testing.utilities import prefect_test_harness

    result: dict = {"cpus": len(os.sched_getaffinity(0)), "load_before": os.getloadavg(), "runs": []}
    try:
        with prefect_test_harness(server_startup_timeout=120):
            for size in sizes:
                www = work / f"www-{size}"
                count = build_archive(www, size)
                print(f"archive: {count} HTML pages under {www}", flush=True)
                server, url = serve(www)
                try:
                    plans = [("thread", 1)] * args.thread + [("dask", w) for w in workers]
                    for runner, w in plans:
                        result["runs"].append(first_run(work, url, count, runner, w, args.batch_size))
                finally:
                    server.shutdown()
                shutil.rmtree(www, ignore_errors=True)
            if args.llm_pages:
                result["llm"] = llm_runs(work, args.llm_pages)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    result["load_after"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    summary(result)
    print(f"\nload average before / after: {result['load_before'][0]:.1f} / {result['load_after'][0]:.1f} on "
          f"{result['cpus']} CPUs\nfigures saved to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
