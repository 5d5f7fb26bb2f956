"""Incremental refresh benchmark: a full run, an unchanged refresh, then one changed page, through the real
site flow (Prefect, wget or the local-folder copy, the USE embedder, LanceDB, and the LLM if one is set).

    .venv/bin/python benchmarks/refresh.py                                   # ../shared/sites, heuristic
    .venv/bin/python benchmarks/refresh.py --source example                  # examples/site over HTTP + wget
    .venv/bin/python benchmarks/refresh.py --source example --llm embedded --mode hybrid   # + Gemma 3 270M
    .venv/bin/python benchmarks/refresh.py --source shared --sites gyrobot --llm http://127.0.0.1:8080/v1
    .venv/bin/python benchmarks/refresh.py --source http        # the four shared sites served over HTTP + wget

--source http serves each shared site (a copy) with python's http.server on 127.0.0.1, which answers
If-Modified-Since with 304, from the start URLs their SOURCE.txt names; after the unchanged refresh a second one
runs against the same servers made to ignore If-Modified-Since (every answer 200: wget's fallback), and the
changed page is the deepest page of the largest site. Each run prints the requests the servers answered.

The sites are copied to a scratch folder first (the change step edits the copy, never ../shared). Prefect runs
on its ephemeral server, started once before the timed runs; its start, the embedder's and llama-server's are
printed apart. Per run: wall time, time per stage (from Prefect's task runs: wget's own time is the mirror
stage), pages new / changed / unchanged, LLM requests (the report's count and the clients' own counters) and
embedding calls (the report's count and a counter on the embedder, with the number of texts embedded).
Goal: the unchanged refresh makes 0 LLM and 0 embedding calls and costs <= 5 % of the full run.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED_SITES = ROOT.parent / "shared" / "sites"
STAGES = ("mirror", "purge+normalize", "remove-vanished", "extract+enrich", "quality-gate", "chunk+embed+index")


@dataclass
class RunFigures:
    """What one pass over all the sites cost and did."""

    name: str
    wall_s: float = 0.0
    stages: Counter = field(default_factory=Counter)  # stage -> seconds
    pages: Counter = field(default_factory=Counter)  # new / changed / unchanged / skipped / failed
    llm_calls_report: int = 0
    llm_calls_client: int = 0
    embed_calls_report: int = 0
    embed_calls_counted: int = 0
    texts_embedded: int = 0
    docs_upserted: int = 0
    requests: Counter = field(default_factory=Counter)  # "GET 304" -> count, from the HTTP servers (--source http)
    reports: dict = field(default_factory=dict)

    @property
    def without_mirror_s(self) -> float:
        return self.wall_s - self.stages["mirror"]


class CountingEmbedder:
    """Counts the calls and texts of the real embedder it wraps (installed as the process's instance)."""

    def __init__(self, inner) -> None:  # noqa: ANN001
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim
        self.calls = 0
        self.texts = 0

    def embed(self, texts: list[str]):  # noqa: ANN201
        if texts:
            self.calls += 1
            self.texts += len(texts)
        return self.inner.embed(texts)

    def __getattr__(self, name: str):  # noqa: ANN204 - count_tokens and anything else the index asks for
        return getattr(self.inner, name)


# The start URLs of each shared site, from its SOURCE.txt ("Serving:").
SEEDS = {
    "crest-digitalcity": ["index.html", "~patrick/index.html", "~satoshi/index.htm", "crest/tourguide/index.html",
                          "~satoshi/TownDigitizing/index.html", "~toda/index.html", "~satoshi/index.html",
                          "~satoshi/index-j.html"],
    "fontforge-ja": ["ja/index.html", "ja/diffs.html", "ja/MacOSX.html"],
    "gyrobot": ["index.htm"],
    "nanatsumori": ["index.html", "daihon/atogaki-nanatsumori.html", "daihon/daihon-akatoao1.htm",
                    "daihon/daihon-inochi1.htm", "daihon/daihon-yuki1.htm"],
}
REQUESTS: Counter = Counter()  # "GET 304" -> requests the servers answered


class Recording(http.server.SimpleHTTPRequestHandler):
    """http.server that counts what it answers; `ignore_ims`: answer as if If-Modified-Since were not sent."""

    ignore_ims = False

    def log_message(self, *args: object) -> None:
        pass

    def parse_request(self) -> bool:
        ok = super().parse_request()
        if ok and Recording.ignore_ims and "If-Modified-Since" in self.headers:
            del self.headers["If-Modified-Since"]
        return ok

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        REQUESTS[f"{self.command} {getattr(code, 'value', code)}"] += 1


class QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # wget closes the connection of an answer it does not read (ConnectionResetError, BrokenPipeError)


def serve(path: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    server = QuietServer(("127.0.0.1", 0), functools.partial(Recording, directory=str(path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def write_config(work: Path, sites: list[str], args: argparse.Namespace) -> tuple[Path, list]:
    """Copy the sites into the scratch folder and write a sites.toml for them; returns it and the HTTP servers."""
    www = work / "www"
    lines = [f'[defaults]\ndata_dir = "{work / "data"}"\nbatch_size = 25\n']
    if args.llm == "embedded":
        lines.append('[llm]\nembedded = true\nmodel = "gemma-3-270m"\ncontext_tokens = 4096\n')
    elif args.llm != "none":
        lines.append(f'[llm]\nbase_url = "{args.llm}"\nmodel = "{args.model}"\ncontext_tokens = 4096\n')
    servers = []
    if args.source == "example":
        shutil.copytree(ROOT / "examples" / "site", www / "example")
        server, url = serve(www / "example")
        servers.append(server)
        lines.append(f'[[site]]\nname = "example"\nstart_urls = ["{url}/index.html", "{url}/frames.html"]\n'
                     f'extract_mode = "{args.mode}"\n')
    elif args.source == "http":
        for name in sites:
            shutil.copytree(SHARED_SITES / name, www / name, symlinks=True)
            server, url = serve(www / name)
            servers.append(server)
            starts = ", ".join(f'"{url}/{seed}"' for seed in SEEDS[name])
            lines.append(f'[[site]]\nname = "{name}"\nstart_urls = [{starts}]\nextract_mode = "{args.mode}"\n'
                         'quota = "1g"\n')
    else:
        for name in sites:
            shutil.copytree(SHARED_SITES / name, www / name, symlinks=True)
            lines.append(f'[[site]]\nname = "{name}"\nlocal_path = "{www / name}"\nextract_mode = "{args.mode}"\n')
    path = work / "sites.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path, servers


def task_seconds(flow_run_id) -> Counter:  # noqa: ANN001
    """Seconds per stage of one flow run, from Prefect's task runs."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    out: Counter = Counter()
    with get_client(sync_client=True) as client:
        runs = client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id])))
    for run in runs:
        stage = run.name.rsplit("-", 1)[0]
        if run.start_time and run.end_time:
            out[stage] += (run.end_time - run.start_time).total_seconds()
    return out


def run_all(name: str, cfg_path: Path, site_names: list[str], embedder: CountingEmbedder) -> RunFigures:
    from flows.site import site_flow
    from siterag.llm.clients import total_llm_calls

    figures = RunFigures(name)
    calls0, texts0, llm0 = embedder.calls, embedder.texts, total_llm_calls()
    requests0 = Counter(REQUESTS)
    start = time.perf_counter()
    for site in site_names:
        state = site_flow(site, str(cfg_path), return_state=True)
        report = state.result()
        figures.reports[site] = report
        figures.stages += task_seconds(state.state_details.flow_run_id)
        for key in ("new", "changed", "unchanged", "skipped", "failed"):
            figures.pages[key] += report[key]
        figures.llm_calls_report += report["llm_calls"]
        figures.embed_calls_report += report["index"]["embed_calls"]
        figures.docs_upserted += report["index"]["upserted"]
    figures.wall_s = time.perf_counter() - start
    figures.embed_calls_counted = embedder.calls - calls0
    figures.texts_embedded = embedder.texts - texts0
    figures.llm_calls_client = total_llm_calls() - llm0
    figures.requests = REQUESTS - requests0
    return figures


def chunk_rows(db_dir: Path, site: str) -> list[dict]:
    import lancedb

    table = lancedb.connect(str(db_dir)).open_table("chunks")
    return table.search().where(f"site = '{site}'").select(["id", "doc_id", "path", "content_hash", "text"]) \
        .limit(None).to_arrow().to_pylist()


def change_one_page(work: Path, site: str, source: str, rows: list[dict]) -> tuple[str, Path, str]:
    """Cut a page to about half, with a marker paragraph: the page with the most chunks (--source http: the deepest
    page in the site's folders, then the most chunks); returns (doc_id, file, marker)."""
    per_doc = Counter(r["doc_id"] for r in rows)
    folder = work / "www" / (site if source != "example" else "example")
    paths = {r["doc_id"]: r["path"] for r in rows if (folder / r["path"]).is_file()}
    if source == "http":
        doc_id = max(paths, key=lambda d: (paths[d].count("/"), per_doc[d]))
    else:
        doc_id, _ = per_doc.most_common(1)[0]
    rel = paths.get(doc_id) or next(r["path"] for r in rows if r["doc_id"] == doc_id)
    page = folder / rel
    data = page.read_bytes()
    cut = data.rfind(b"\n", 0, len(data) // 2)
    marker = "REFRESHMARKER benchmark edit"
    page.write_bytes(data[:cut if cut > 0 else len(data) // 2] + f"\n<p>{marker}</p></body></html>\n".encode())
    later = time.time() + 3600
    os.utime(page, (later, later))  # newer than the mirror's copy, for wget -N and the local copy alike
    return doc_id, page, marker


def corpus_fields(data: Path, site: str, name: str = "processed_at") -> dict[str, str]:
    """One front matter field of every document of a site."""
    from siterag.enrich.corpus import read_doc

    out = {}
    for path in sorted((data / "corpus" / site).rglob("*.md")):
        parsed = read_doc(path)
        if parsed:
            out[path.relative_to(data / "corpus" / site).as_posix()] = str(parsed[0].get(name))
    return out


def key_changes(data: Path, sites: list[str], before: dict[str, dict[str, str]]) -> int:
    """Documents whose extract_key changed: the extraction code was edited on disk during the benchmark."""
    return sum(1 for site in sites for rel, key in corpus_fields(data, site, "extract_key").items()
               if before[site].get(rel) not in (None, key))


def show(runs: list[RunFigures]) -> None:
    head = f"{'run':10} {'wall s':>8} {'mirror s':>9} {'w/o mirror':>10}  " + " ".join(
        f"{s[:12]:>12}" for s in STAGES[1:]) + f"  {'new/chg/same':>14} {'LLM':>5} {'embed':>6} {'texts':>6}"
    print(head)
    for r in runs:
        stages = " ".join(f"{r.stages[s]:12.2f}" for s in STAGES[1:])
        pages = f"{r.pages['new']}/{r.pages['changed']}/{r.pages['unchanged']}"
        print(f"{r.name:10} {r.wall_s:8.2f} {r.stages['mirror']:9.2f} {r.without_mirror_s:10.2f}  {stages}  "
              f"{pages:>14} {r.llm_calls_report:>5} {r.embed_calls_report:>6} {r.texts_embedded:>6}")
    for r in runs:
        if r.requests:
            answered = ", ".join(f"{k} {v}" for k, v in sorted(r.requests.items()))
            print(f"  {r.name}: HTTP requests answered: {answered}")
    for r in runs:
        if (r.llm_calls_report, r.embed_calls_report) != (r.llm_calls_client, r.embed_calls_counted):
            print(f"  note {r.name}: clients counted {r.llm_calls_client} LLM requests, "
                  f"the embedder {r.embed_calls_counted} calls")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", choices=("shared", "example", "http"), default="shared" if SHARED_SITES.is_dir()
                        else "example", help="the shared legacy sites (local folders), the example site over "
                        "HTTP, or the shared sites over HTTP")
    parser.add_argument("--sites", default="", help="shared sites to use (default: fontforge-ja,crest-digitalcity,"
                        "gyrobot; --source http: all four)")
    parser.add_argument("--llm", default="none", help="none | embedded | an OpenAI-compatible base URL")
    parser.add_argument("--model", default="local")
    parser.add_argument("--mode", default="", help="extract mode (default: heuristic without an LLM, else hybrid)")
    parser.add_argument("--work", help="scratch folder (default: a new temp folder, deleted afterwards)")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    args.mode = args.mode or ("heuristic" if args.llm == "none" else "hybrid")
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="siterag-refresh-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PREFECT_HOME", str(work / "prefect"))
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "ERROR")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    args.sites = args.sites or (",".join(SEEDS) if args.source == "http" else "fontforge-ja,crest-digitalcity,gyrobot")
    site_names = ["example"] if args.source == "example" else args.sites.split(",")
    cfg_path, servers = write_config(work, site_names, args)
    try:
        return bench(work, cfg_path, site_names, args)
    finally:
        for server in servers:
            server.shutdown()
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


def bench(work: Path, cfg_path: Path, site_names: list[str], args: argparse.Namespace) -> int:
    from prefect import flow

    from siterag.config import load_config
    from siterag.index import embedding
    from siterag.llm.clients import ensure_embedded

    cfg = load_config(cfg_path)
    t0 = time.perf_counter()
    flow(name="warm-up")(lambda: None)()  # starts Prefect's ephemeral server
    prefect_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    embedder = CountingEmbedder(embedding.get_embedder(cfg.embedder))
    embedder.inner.embed(["warm-up"])  # loads the model
    embedding._CACHE[cfg.embedder] = embedder  # the index task gets this instance
    embedder_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    if cfg.llm.enabled:
        ensure_embedded(cfg.llm, work / "logs")
    llm_s = time.perf_counter() - t0
    print(f"source: {args.source} ({', '.join(site_names)}), extract mode {args.mode}, LLM {args.llm}")
    print(f"start-up, not in the figures: Prefect server {prefect_s:.1f} s, embedder {embedder_s:.1f} s"
          + (f", llama-server {llm_s:.1f} s" if cfg.llm.enabled else ""))

    full = run_all("full", cfg_path, site_names, embedder)
    keys = {site: corpus_fields(cfg.data_dir, site, "extract_key") for site in site_names}
    refresh = run_all("refresh", cfg_path, site_names, embedder)
    ignoring = ignoring2 = None
    if args.source == "http":  # the same refresh against servers that ignore If-Modified-Since (always 200)
        Recording.ignore_ims = True
        try:
            ignoring = run_all("refresh*", cfg_path, site_names, embedder)
            ignoring2 = run_all("refresh**", cfg_path, site_names, embedder)  # the next one: a full crawl
        finally:
            Recording.ignore_ims = False
    rekeyed = key_changes(cfg.data_dir, site_names, keys)

    site = max(site_names, key=lambda s: full.reports[s]["index"]["chunks"])
    db_dir = cfg.data_dir / "lancedb"
    before_rows = chunk_rows(db_dir, site)
    stamps_before = corpus_fields(cfg.data_dir, site)
    doc_id, page, marker = change_one_page(work, site, args.source, before_rows)
    old_ids = {r["id"] for r in before_rows if r["doc_id"] == doc_id}
    old_hash = next(r["content_hash"] for r in before_rows if r["doc_id"] == doc_id)
    changed = run_all("1 changed", cfg_path, [site], embedder)
    after_rows = chunk_rows(db_dir, site)
    stamps_after = corpus_fields(cfg.data_dir, site)
    new_rows = [r for r in after_rows if r["doc_id"] == doc_id]
    stale = [r for r in after_rows if r["doc_id"] == doc_id and r["content_hash"] == old_hash]
    redone = sorted(k for k in stamps_after if stamps_after[k] != stamps_before.get(k))
    ids = [r["id"] for r in after_rows]

    print()
    show([full, refresh, *([ignoring, ignoring2] if ignoring else []), changed])
    if ignoring:
        print("  refresh*, refresh**: the servers ignored If-Modified-Since (answered every request 200); after the "
              "first such refresh siterag does full crawls (HEAD requests) for a week")
    ratio = refresh.wall_s / full.wall_s
    ratio_wo = refresh.without_mirror_s / max(1e-9, full.without_mirror_s)
    pages = full.pages["new"] + full.pages["skipped"] + full.pages["failed"]
    print(f"\npages: {pages} ({full.pages['new']} documents, {full.pages['skipped']} skipped); "
          f"chunks: {sum(r['index']['chunks'] for r in full.reports.values())}")
    print(f"unchanged refresh / full run: {ratio:.1%} of the wall time, {ratio_wo:.1%} without the mirror stage "
          f"(wget / local copy); LLM calls {refresh.llm_calls_report}, embedding calls {refresh.embed_calls_report}")
    if rekeyed:
        print(f"  note: {rekeyed} documents were re-extracted in the refresh because their extract_key changed "
              "(the extraction code was edited on disk while the benchmark ran)")
    print(f"one page changed ({site}: {page.relative_to(work / 'www')}): re-extracted {len(redone)} "
          f"({', '.join(redone)}), documents re-embedded {changed.docs_upserted}, embedding calls "
          f"{changed.embed_calls_report} ({changed.texts_embedded} texts), LLM calls {changed.llm_calls_report}")
    print(f"  its chunks: {len(old_ids)} before -> {len(new_rows)} after; rows with the old content left: "
          f"{len(stale)}; old chunk ids gone: {len(old_ids - {r['id'] for r in new_rows})}; marker indexed: "
          f"{any(marker in r['text'] for r in new_rows)}; site chunks {len(before_rows)} -> {len(after_rows)}; "
          f"duplicate ids: {len(ids) - len(set(ids))}")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "source": args.source, "sites": site_names, "mode": args.mode, "llm": args.llm,
            "startup_s": {"prefect": prefect_s, "embedder": embedder_s, "llm": llm_s},
            "runs": [{k: (dict(v) if isinstance(v, Counter) else v) for k, v in r.__dict__.items() if k != "reports"}
                     for r in (full, refresh, *([ignoring, ignoring2] if ignoring else []), changed)],
            "ratio": ratio, "ratio_without_mirror": ratio_wo,
            "changed": {"doc": doc_id, "redone": redone, "chunks_before": len(old_ids), "chunks_after": len(new_rows),
                        "stale_rows": len(stale), "site_chunks": [len(before_rows), len(after_rows)]},
        }, indent=1, default=str), encoding="utf-8")
    if ignoring:
        print(f"first run {full.wall_s:.1f} s; unchanged refresh {refresh.wall_s:.1f} s = {ratio:.1%} (server answers "
              f"If-Modified-Since: 304s); {ignoring.wall_s:.1f} s = {ignoring.wall_s / full.wall_s:.1%} (server "
              f"ignores it: 200s, wget stops reading an unchanged file), then {ignoring2.wall_s:.1f} s = "
              f"{ignoring2.wall_s / full.wall_s:.1%} (full crawl); mirror stage {refresh.stages['mirror']:.1f} s vs "
              f"{ignoring.stages['mirror']:.1f} s and {ignoring2.stages['mirror']:.1f} s (first run "
              f"{full.stages['mirror']:.1f} s)")
    ok = (refresh.llm_calls_report == refresh.embed_calls_report == 0 and ratio <= 0.05 and not stale
          and redone == [doc_id.split("/", 1)[1]])
    print("goal (refresh: 0 LLM, 0 embedding calls, <= 5 %; change: only that page, no stale chunks):",
          "met" if ok else "NOT met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
