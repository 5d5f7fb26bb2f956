"""Start-up latency of the `siterag search` command: wall time of whole subprocess runs, as a person types them.

    .venv/bin/python benchmarks/cli_latency.py               # build (once) and measure 20 runs
    .venv/bin/python benchmarks/cli_latency.py --runs 50 --sites gyrobot

1. Index: `siterag --config <bench>/sites.toml run` over shared sites (default gyrobot + fontforge-ja, English
   and Japanese; heuristic extraction, no LLM: the real pipeline) into <bench>/data, default
   $TMPDIR/siterag-bench/cli-latency; reused once built (--rebuild redoes it).
2. Two untimed runs warm the file cache and the embedder's model cache (siterag/index/embedding.py, _ModelCache).
3. --runs timed runs of `siterag --config <bench>/sites.toml search QUERY -k 10` (the console script next to
   this Python, queries taken in turn from QUERIES), output discarded: median, p90, min, max of the wall time
   and the median CPU time (user + sys, less sensitive to other jobs on a shared machine than wall time) —
   first cold (`--no-daemon`: each run imports lancedb and loads the embedder), then warm (the default: the first
   search leaves a worker behind, siterag/search/daemon.py, and later runs ask it over a Unix socket).
4. The imports of an in-process search alone (Python, siterag.search.search_api and lancedb with what it imports:
   numpy, pyarrow; pandas hidden), run --runs / 4 times: the floor of a cold search with this stack.
5. One more run under `python -X importtime`: the slowest imports (cumulative, as imported by siterag itself
   or its first-level dependencies), and whether Prefect, trafilatura or the pipeline were imported at all.
The load average is printed with the figures: on a shared 2-core machine it moves them.

    .venv/bin/python benchmarks/cli_latency.py --run-example --runs 5   # `siterag run`, unchanged example site

--run-example measures `siterag run` instead: the example site (examples/site served on 127.0.0.1, heuristic, no
LLM) archived once, then --runs timed runs of the unchanged site, first each with Prefect's temporary server,
then with a `prefect server start` running on 127.0.0.1:4200 (the CLI finds it there; one already running is used).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("SITERAG_SHARED", ROOT.parent / "shared")) / "sites"
QUERIES = ("フォントのヒンティング", "robot wars weapon", "ポイントサイズ", "How do I edit outline fonts?", "gyrobot")
NEVER = ("prefect", "trafilatura", "flows", "siterag.pipeline", "lance_namespace_urllib3_client.api")


def build(bench: Path, sites: list[str], rebuild: bool) -> Path:
    """<bench>/sites.toml whose data dir holds an index of `sites`, built with `siterag run` unless there."""
    cfg = bench / "sites.toml"
    data = bench / "data"
    done = bench / "done"
    wanted = " ".join(sites)
    if rebuild and bench.exists():
        shutil.rmtree(bench)
    if done.exists() and done.read_text(encoding="utf-8") == wanted:
        return cfg
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from retrieval import archive_shared_sites

    archive_shared_sites(cfg, data, sites)
    done.write_text(wanted, encoding="utf-8")
    return cfg


def command() -> list[str]:
    """The `siterag` console script of this environment (what a person runs), else `python -m siterag.cli`."""
    script = Path(sys.executable).parent / "siterag"
    return [str(script)] if script.exists() else [sys.executable, "-m", "siterag.cli"]


def timed_run(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + sys) seconds of one run of `argv`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def import_breakdown(cfg: Path, top: int) -> tuple[list[tuple[float, str]], list[str]]:
    """The `top` slowest imports of one search run (cumulative seconds, name) and the NEVER modules imported."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "siterag.cli", "--config", str(cfg), "search",
                           QUERIES[0], "--no-daemon"], capture_output=True, text=True, cwd=ROOT, check=True)
    rows = []
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m and len(m.group(3)) <= 3:  # siterag's own imports and what they import directly
            rows.append((int(m.group(2)) / 1e6, m.group(4)))
    names = {name for _, name in rows} | {m.group(1) for m in re.finditer(r"\| *(\S+)$", proc.stderr, re.M)}
    seen = sorted(n for n in names if any(n == p or n.startswith(p + ".") for p in NEVER))
    return sorted(rows, reverse=True)[:top], seen


def wait_for_worker(runtime: Path, timeout: float = 180) -> None:
    """Until the warm search worker listens (it warms up after the first search answered)."""
    deadline = time.perf_counter() + timeout
    while not list(runtime.glob("siterag-*/*.sock")) and time.perf_counter() < deadline:
        time.sleep(0.2)
    time.sleep(3)  # its warm-up (imports, embedder) ends before it answers; not part of the figures


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_latency(bench: Path, runs: int) -> int:
    """Wall seconds of `siterag run` on the unchanged example site: with Prefect's temporary server, then with a
    local `prefect server start` that the CLI finds on 127.0.0.1:4200."""
    import functools
    import http.server
    import threading

    sys.path.insert(0, str(ROOT))
    from siterag.prefect_status import LOCAL_SERVER, server_answers

    bench = bench / "run-example"
    shutil.rmtree(bench, ignore_errors=True)
    shutil.copytree(ROOT / "examples" / "site", bench / "www")
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(bench / "www")))
    threading.Thread(target=site.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{site.server_address[1]}"
    cfg = bench / "sites.toml"
    cfg.write_text(f'[defaults]\ndata_dir = "{bench / "data"}"\n[[site]]\nname = "example"\n'
                   f'start_urls = ["{url}/index.html", "{url}/frames.html"]\nextract_mode = "heuristic"\n',
                   encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env["PREFECT_HOME"] = str(bench / "prefect")  # no profile pointing elsewhere
    argv = [*command(), "--config", str(cfg), "run"]

    cpus: dict[str, list[float]] = {"temporary": [], "reused": []}

    def one(kind: str = "") -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=ROOT, env=env)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if kind:
            cpus[kind].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        return wall

    running = server_answers(LOCAL_SERVER)
    if running:
        print(f"a Prefect server already answers at {LOCAL_SERVER}: every run uses it")
    first = one()
    temporary = [] if running else [one("temporary") for _ in range(runs)]
    server = None
    try:
        if not running:
            server = subprocess.Popen([str(Path(sys.executable).parent / "prefect"), "server", "start", "--host",
                                       "127.0.0.1", "--port", "4200"], env=env, cwd=bench,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            t0 = time.perf_counter()
            while not server_answers(LOCAL_SERVER) and time.perf_counter() - t0 < 180:
                time.sleep(1)
            print(f"`prefect server start` answered after {time.perf_counter() - t0:.1f} s (not in the figures)")
        reused = [one("reused") for _ in range(runs)]
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=60)
        site.shutdown()
    load = os.getloadavg()
    print(f"`siterag run` of the unchanged example site, {runs} runs on {os.cpu_count()} cores, load average "
          f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (first run, archiving it: {first:.1f} s):")
    if temporary:
        print(f"  Prefect's temporary server: wall median {statistics.median(temporary):.1f} s, "
              f"min {min(temporary):.1f} s, max {max(temporary):.1f} s; cpu (user + sys) median "
              f"{statistics.median(cpus['temporary']):.1f} s")
    print(f"  a running local server (127.0.0.1:4200): wall median {statistics.median(reused):.1f} s, "
          f"min {min(reused):.1f} s, max {max(reused):.1f} s; cpu (user + sys) median "
          f"{statistics.median(cpus['reused']):.1f} s")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", type=Path, default=Path(tempfile.gettempdir()) / "siterag-bench" / "cli-latency",
                    help="folder for the config and the index (default: $TMPDIR/siterag-bench/cli-latency)")
    ap.add_argument("--sites", nargs="+", default=["gyrobot", "fontforge-ja"], help="shared sites to index")
    ap.add_argument("--runs", type=int, default=20, help="timed runs (default: 20)")
    ap.add_argument("--top", type=int, default=12, help="slowest imports to list (default: 12)")
    ap.add_argument("--rebuild", action="store_true", help="build the index afresh")
    ap.add_argument("--run-example", action="store_true", help="measure `siterag run` of the unchanged example "
                    "site (with and without a running Prefect server) instead of search")
    args = ap.parse_args()
    if args.run_example:
        return run_latency(args.bench, args.runs)
    missing = [s for s in args.sites if not (SHARED / s).is_dir()]
    if missing:
        print(f"no {', '.join(missing)} in {SHARED}", file=sys.stderr)
        return 2
    cfg = build(args.bench, args.sites, args.rebuild)
    base = [*command(), "--config", str(cfg), "search"]
    runtime = args.bench / "run"  # this benchmark's own warm worker (siterag/search/daemon.py)
    runtime.mkdir(exist_ok=True)
    os.environ.update(XDG_RUNTIME_DIR=str(runtime), SITERAG_SEARCH_DAEMON="on")
    load0 = os.getloadavg()
    results = {}
    try:
        for label, extra in (("cold (--no-daemon: every search imports lancedb and loads the embedder)",
                              ["--no-daemon"]), ("warm (the worker the first search leaves behind)", [])):
            for q in QUERIES[:2]:  # warm the file cache and the embedder's model cache (and start the worker)
                timed_run([*base, q, "-k", "10", *extra])
            if not extra:
                wait_for_worker(runtime)
            walls, cpus = [], []
            for n in range(args.runs):
                wall, cpu = timed_run([*base, QUERIES[n % len(QUERIES)], "-k", "10", *extra])
                walls.append(wall)
                cpus.append(cpu)
            results[label] = walls, cpus
    finally:
        for sock in runtime.glob("siterag-*/*.sock"):
            sock.unlink()  # the worker exits
    floor = [timed_run([sys.executable, "-c", "import siterag.search.search_api as s; s.hide_pandas(); s._index()"])
             for _ in range(max(3, args.runs // 4))]  # the imports alone: Python, numpy, pyarrow, lancedb
    load = os.getloadavg()
    print(f"`siterag search` ({' '.join(args.sites)}), {args.runs} runs each on {os.cpu_count()} cores, load average "
          f"{load0[0]:.1f} before, {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} after:")
    for label, (walls, cpus) in results.items():
        print(f"  {label}:")
        print(f"    wall: median {statistics.median(walls):.2f} s, p90 {pct(walls, 0.9):.2f} s, "
              f"min {min(walls):.2f} s, max {max(walls):.2f} s; "
              f"cpu (user + sys) median {statistics.median(cpus):.2f} s")
    print(f"  the imports of an in-process search alone (siterag.search.search_api + lancedb, pandas hidden): "
          f"wall median {statistics.median(w for w, _ in floor):.2f} s, cpu median "
          f"{statistics.median(c for _, c in floor):.2f} s")
    rows, seen = import_breakdown(cfg, args.top)
    print("slowest imports of one run (cumulative; python -X importtime):")
    for seconds, name in rows:
        print(f"  {seconds:6.3f} s  {name}")
    print("never imported by search: " + ", ".join(NEVER) + (f"; BUT imported: {', '.join(seen)}" if seen else " (ok)"))
    return 1 if seen else 0


if __name__ == "__main__":
    sys.exit(main())
