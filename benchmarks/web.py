"""Speed of `siterag web` over an existing archive: p50/p95 of its pages as a person asks for them (issue 26).

    .venv/bin/python benchmarks/web.py --config /tmp/judge/sites.toml            # in-process (TestClient)
    .venv/bin/python benchmarks/web.py --config /tmp/judge/sites.toml --http     # uvicorn on 127.0.0.1, over HTTP

The app (siterag.web.app.create_app over Archive.from_config) starts in this process; the archive must already be
built (`siterag run`). One untimed search opens the index and loads the embedder (its time is printed: the first
search after start-up). Then --n timed requests of each kind, the queries/pages taken in turn:
  search-ja / search-en  /search?q=... (hybrid search, facets, the page rendered); the app's cache of the last 64
                         searches is emptied before each request, so every one searches (--cached keeps it: the
                         time of a search asked again, e.g. Back);
  suggest                /api/suggest?q=<prefix of 1-4 characters> (titles and tags as you type);
  hits                   /api/hits?q=... (the hybrid search's best 5, as you type; asked after the titles; the
                         search cache emptied as for search-*);
  reader                 /read/<site>/<page> (the Markdown rendered, links resolved), documents in turn;
  original               /original/<site>/<page> (reader beside the frame) and /raw/<site>/<page> (the archived
                         page decoded and rewritten), pages in turn.
Targets (issue 26): search p95 < 300 ms, suggestion p95 < 100 ms on 2 cores. The load average is printed too.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote, urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

JA = ("お茶", "パソコン教室", "ホームページの作り方", "四日市", "写真 画像", "日記 旅行", "音楽", "自己紹介",
      "雛形 テンプレート", "インターネット")
EN = ("music album", "changelog", "prophecy", "books contents", "guitar", "love of life", "new year",
      "email address", "links", "biography")
PREFIXES = ("a", "ax", "axi", "b", "bo", "ch", "パ", "パソ", "ホー", "四", "l", "lo", "ne", "mu", "ｲﾝ", "き")


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", required=True, help="sites.toml of a built archive")
    ap.add_argument("--n", type=int, default=50, help="timed requests of each kind")
    ap.add_argument("--http", action="store_true", help="serve with uvicorn on 127.0.0.1 and ask over HTTP")
    ap.add_argument("--cached", action="store_true", help="keep the app's search cache (repeated searches)")
    args = ap.parse_args()
    os.environ.setdefault("SITERAG_SEARCH_DAEMON", "off")

    from siterag.web.app import Archive, create_app
    from siterag.web.rewrite import file_in

    start = time.perf_counter()
    arc = Archive.from_config(args.config)
    load = time.perf_counter() - start
    app = create_app(arc)
    if args.http:
        import httpx
        import uvicorn

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        threading.Thread(target=server.run, daemon=True).start()
        while not server.started:
            time.sleep(0.05)
        client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60)
    else:
        import warnings

        warnings.filterwarnings("ignore", message=".*httpx.*")
        from starlette.testclient import TestClient

        client = TestClient(app)

    def get(url: str) -> float:
        t = time.perf_counter()
        response = client.get(url)
        took = time.perf_counter() - t
        assert response.status_code == 200, (url, response.status_code, response.text[:300])
        return took

    start = time.perf_counter()
    get("/search?" + urlencode({"q": "warm up"}))
    first = time.perf_counter() - start

    docs = sorted(arc.all, key=lambda d: (d.site, d.path))
    originals = [d for d in docs if file_in(arc.data_dir / "normalized" / d.site, d.path)]
    kinds = {
        "search-ja": [f"/search?{urlencode({'q': JA[i % len(JA)]})}" for i in range(args.n)],
        "search-en": [f"/search?{urlencode({'q': EN[i % len(EN)]})}" for i in range(args.n)],
        "suggest": [f"/api/suggest?{urlencode({'q': PREFIXES[i % len(PREFIXES)]})}" for i in range(args.n)],
        "hits": [f"/api/hits?{urlencode({'q': (JA + EN)[i % (len(JA) + len(EN))]})}" for i in range(args.n)],
        "reader": [f"/read/{d.site}/{quote(d.path)}" for d in (docs * args.n)[:: max(1, len(docs) // args.n)]
                   ][:args.n],
        "original": [f"/original/{d.site}/{quote(d.path)}" for d in
                     (originals * args.n)[:: max(1, len(originals) // args.n)]][:args.n],
        "raw": [f"/raw/{d.site}/{quote(d.path)}" for d in
                (originals * args.n)[:: max(1, len(originals) // args.n)]][:args.n],
    }
    for urls in kinds.values():  # one untimed pass of a few of each: templates compiled, files in the page cache
        for url in urls[:3]:
            get(url)

    print(f"siterag web benchmark: {args.config}, {len(arc.all)} documents of {len(arc.docs)} sites, "
          f"{'uvicorn over HTTP' if args.http else 'in-process TestClient'}, "
          f"search cache {'kept' if args.cached else 'emptied before each search'}, {os.cpu_count()} CPUs")
    print(f"archive loaded in {load * 1000:.0f} ms; first search (index opened, embedder loaded) {first * 1000:.0f} ms")
    print(f"| {'request':<10} | {'n':>3} | {'p50 ms':>7} | {'p95 ms':>7} | {'max ms':>7} |")
    print(f"|{'-' * 12}|{'-' * 5}|{'-' * 9}|{'-' * 9}|{'-' * 9}|")
    for kind, urls in kinds.items():
        times = []
        for url in urls:
            if (kind.startswith("search") or kind == "hits") and not args.cached:
                arc._cache.clear()
            times.append(get(url) * 1000)
        print(f"| {kind:<10} | {len(times):>3} | {statistics.median(times):>7.1f} | {pct(times, 95):>7.1f} | "
              f"{max(times):>7.1f} |", flush=True)
    print("load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
