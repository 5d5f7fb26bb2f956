"""Start-up latency of the `siterag search` command: wall time of whole subprocess runs, as a person types them.

    .venv/bin/python benchmarks/cli_latency.py               # build (once) and measure 20 runs
    .venv/bin/python benchmarks/cli_latency.py --runs 50 --sites gyrobot

1. Index: `siterag --config <bench>/sites.toml run` over shared sites (default gyrobot + fontforge-ja, English
   and Japanese; heuristic extraction, no LLM: the real pipeline) into <bench>/data, default
   $TMPDIR/siterag-bench/cli-latency; reused once built (--rebuild redoes it).
2. Two untimed runs warm the file cache and the embedder's model cache (siterag/index/embedding.py, _ModelCache).
3. --runs timed runs of `siterag --config <bench>/sites.toml search QUERY -k 10` (the console script next to
   this Python, queries taken in turn from QUERIES), output discarded: median, p90, min, max of the wall time
   and the median CPU time (user + sys, less sensitive to other jobs on a shared machine than wall time).
4. The imports alone (Python, siterag.search.search_api and lancedb with what it imports: numpy, pyarrow, pandas), run
   --runs / 4 times: the floor of any search with this stack.
5. One more run under `python -X importtime`: the slowest imports (cumulative, as imported by siterag itself
   or its first-level dependencies), and whether Prefect, trafilatura or the pipeline were imported at all.
The load average is printed with the figures: on a shared 2-core machine it moves them.
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
                           QUERIES[0]], capture_output=True, text=True, cwd=ROOT, check=True)
    rows = []
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m and len(m.group(3)) <= 3:  # siterag's own imports and what they import directly
            rows.append((int(m.group(2)) / 1e6, m.group(4)))
    names = {name for _, name in rows} | {m.group(1) for m in re.finditer(r"\| *(\S+)$", proc.stderr, re.M)}
    seen = sorted(n for n in names if any(n == p or n.startswith(p + ".") for p in NEVER))
    return sorted(rows, reverse=True)[:top], seen


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", type=Path, default=Path(tempfile.gettempdir()) / "siterag-bench" / "cli-latency",
                    help="folder for the config and the index (default: $TMPDIR/siterag-bench/cli-latency)")
    ap.add_argument("--sites", nargs="+", default=["gyrobot", "fontforge-ja"], help="shared sites to index")
    ap.add_argument("--runs", type=int, default=20, help="timed runs (default: 20)")
    ap.add_argument("--top", type=int, default=12, help="slowest imports to list (default: 12)")
    ap.add_argument("--rebuild", action="store_true", help="build the index afresh")
    args = ap.parse_args()
    missing = [s for s in args.sites if not (SHARED / s).is_dir()]
    if missing:
        print(f"no {', '.join(missing)} in {SHARED}", file=sys.stderr)
        return 2
    cfg = build(args.bench, args.sites, args.rebuild)
    base = [*command(), "--config", str(cfg), "search"]
    for q in QUERIES[:2]:  # warm the file cache and the embedder's model cache
        timed_run([*base, q, "-k", "10"])
    walls, cpus = [], []
    for n in range(args.runs):
        wall, cpu = timed_run([*base, QUERIES[n % len(QUERIES)], "-k", "10"])
        walls.append(wall)
        cpus.append(cpu)
    floor = [timed_run([sys.executable, "-c", "import siterag.search.search_api as s; s._index()"])
             for _ in range(max(3, args.runs // 4))]  # the imports alone: Python, numpy, pyarrow, pandas, lancedb
    load = os.getloadavg()
    print(f"`siterag search` ({' '.join(args.sites)}), {args.runs} runs on {os.cpu_count()} cores, load average "
          f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}:")
    print(f"  wall: median {statistics.median(walls):.2f} s, p90 {pct(walls, 0.9):.2f} s, min {min(walls):.2f} s, "
          f"max {max(walls):.2f} s")
    print(f"  cpu (user + sys): median {statistics.median(cpus):.2f} s")
    print(f"  of which the imports alone (python -c 'import siterag.search.search_api; lancedb'): wall median "
          f"{statistics.median(w for w, _ in floor):.2f} s, cpu median {statistics.median(c for _, c in floor):.2f} s")
    rows, seen = import_breakdown(cfg, args.top)
    print("slowest imports of one run (cumulative; python -X importtime):")
    for seconds, name in rows:
        print(f"  {seconds:6.3f} s  {name}")
    print("never imported by search: " + ", ".join(NEVER) + (f"; BUT imported: {', '.join(seen)}" if seen else " (ok)"))
    return 1 if seen else 0


if __name__ == "__main__":
    sys.exit(main())
