"""WARC ingest against crawling: the mirror stage of the same pages, from a live (loopback) host or from WARC.

    .venv/bin/python benchmarks/warc_ingest.py                    # the four ../shared/sites, served over HTTP
    .venv/bin/python benchmarks/warc_ingest.py --sites gyrobot    # one of them
    .venv/bin/python benchmarks/warc_ingest.py --source example   # examples/site (no ../shared needed)

Per site: each shared site is served by python's http.server on 127.0.0.1 and crawled by real wget with
`warc = true` (siterag.acquire.mirror.mirror_site: the crawl also writes data/warc/<site>/*.warc.gz + .cdx); then
a second site is laid out from only that WARC file (siterag.acquire.warc via mirror_site, `warc_files`), into a
fresh folder, and once more into the same folder (a re-run: nothing rewritten). Printed: files and HTML pages laid
out, seconds and pages/s of each, and the WARC's size. Only the mirror stage is timed: every later stage reads the
same mirror folder either way. Wall-clock figures on a shared machine are noisy: run it twice.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from siterag.acquire.mirror import mirror_site  # noqa: E402
from siterag.acquire.purge import looks_like_html  # noqa: E402
from siterag.config import SiteConfig  # noqa: E402
from tests.conftest import EXAMPLE_SITE, SHARED_SITES, serve_dir  # noqa: E402


def pages(root: Path, rels: set[str]) -> int:
    """The HTML pages among the files (by content, as the purge stage tells them)."""
    return sum(1 for rel in rels if looks_like_html((root / rel).read_bytes()[:8192]))


START = {"gyrobot": "index.htm", "fontforge-ja": "ja/index.html"}  # where SOURCE.txt says to start


def measure(name: str, folder: Path, work: Path) -> dict:
    """Crawl `folder` over HTTP with WARC output, then lay it out from the WARC twice."""
    server, url = serve_dir(folder)
    try:
        crawl = SiteConfig(name=name, start_urls=(f"{url}/{START.get(name, 'index.html')}",), warc=True,
                           quota="inf")
        started = time.perf_counter()
        crawled = mirror_site(crawl, work / "mirror" / name, work / "logs" / name)
        crawl_s = time.perf_counter() - started
    finally:
        server.shutdown()
    (warc_file,) = (work / "warc" / name).glob("*.warc.gz")
    site = SiteConfig(name=name + "-warc", warc_files=(str(warc_file),))
    times = []
    for _ in range(2):  # a fresh folder, then a re-run over the same folder
        started = time.perf_counter()
        read = mirror_site(site, work / "mirror" / site.name, work / "logs" / site.name)
        times.append(time.perf_counter() - started)
    n_pages = pages(crawled.root, crawled.seen)
    return {"site": name, "files": len(crawled.seen), "pages": n_pages, "crawl_s": crawl_s, "ingest_s": times[0],
            "rerun_s": times[1], "warc_mb": warc_file.stat().st_size / 2**20, "same": read.seen == crawled.seen,
            "renamed": len(read.seen ^ crawled.seen)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", choices=("shared", "example"), default="shared")
    parser.add_argument("--sites", nargs="*", help="shared site names (default: all)")
    args = parser.parse_args()
    if args.source == "example":
        folders = {"example": EXAMPLE_SITE}
    else:
        if not SHARED_SITES.is_dir():
            sys.exit("benchmarks/warc_ingest.py: ../shared/sites is absent; use --source example")
        folders = {p.name: p for p in sorted(SHARED_SITES.iterdir()) if p.is_dir()}
        folders = {k: v for k, v in folders.items() if not args.sites or k in args.sites}
    rows = []
    with tempfile.TemporaryDirectory(prefix="warc-bench-") as tmp:
        for name, folder in folders.items():
            rows.append(measure(name, folder, Path(tmp)))
    print(f"{'site':20} {'files':>6} {'pages':>6} {'crawl s':>8} {'pages/s':>8} {'ingest s':>9} {'pages/s':>8} "
          f"{'re-run s':>9} {'WARC MB':>8}  same files")
    for r in rows + ([total(rows)] if len(rows) > 1 else []):
        print(f"{r['site']:20} {r['files']:>6} {r['pages']:>6} {r['crawl_s']:>8.2f} {r['pages'] / r['crawl_s']:>8.0f} "
              f"{r['ingest_s']:>9.2f} {r['pages'] / r['ingest_s']:>8.0f} {r['rerun_s']:>9.2f} {r['warc_mb']:>8.1f}  "
              f"{'yes' if r['same'] else str(r['renamed']) + ' renamed (redirects)'}")


def total(rows: list[dict]) -> dict:
    out = {k: sum(r[k] for r in rows) for k in ("files", "pages", "crawl_s", "ingest_s", "rerun_s", "warc_mb",
                                                  "renamed")}
    return {**out, "site": "all", "same": all(r["same"] for r in rows)}


if __name__ == "__main__":
    main()
