"""`siterag` command line: run, search, ask, status, reindex, serve."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

# Offline defaults for Prefect, set before it is imported.
_USER_LOG_LEVEL = os.environ.get("PREFECT_LOGGING_LEVEL")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")


def _fail(message: str) -> int:
    print(f"siterag: error: {message}", file=sys.stderr)
    return 2


def cmd_run(args: argparse.Namespace) -> int:
    from siterag.config import load_config

    cfg = load_config(args.config)
    names = args.sites or [s.name for s in cfg.sites]
    for name in names:
        cfg.site(name)
    from flows.site import site_flow

    worst = 0
    for name in names:
        print(f"== {name}: mirror -> normalize -> extract -> enrich -> quality -> index", flush=True)
        report = site_flow(name, str(args.config))
        idx = report["index"]
        print(f"   pages {report['pages_seen']} (new {report['new']}, changed {report['changed']}, "
              f"unchanged {report['unchanged']}, skipped {report['skipped']}, failed {report['failed']}), "
              f"removed {len(report['removed'])}, binaries purged {report['binaries']}")
        print(f"   quality: lost content {report.get('lost_content', 0)}, short pages {report['short']}, "
              f"mojibake {report['mojibake']}, "
              f"llm fallback {report['llm_fallback']}, metadata fallback {report['metadata_fallback']}, "
              f"duplicate groups {len(report['duplicates'])}; llm calls {report['llm_calls']}")
        print(f"   index: {idx['upserted']} docs upserted ({idx['chunks']} chunks), {idx['unchanged']} unchanged, "
              f"{idx['removed']} removed; report: {cfg.data_dir / 'logs' / name / 'report.json'}")
        secs = report.get("seconds", {})
        print("   seconds: " + ", ".join(f"{stage} {value:g}" for stage, value in secs.items()))
        for warning in report.get("mirror_warnings", []):
            print(f"   warning: {warning}")
        worst = max(worst, 1 if report["failed"] else 0)
    return worst


def cmd_search(args: argparse.Namespace) -> int:
    from siterag.config import load_config
    from siterag.search_api import search

    where = load_config(args.config).store if Path(args.config).exists() else Path(args.data_dir)
    hits = search(args.query, where, **filters(args), k=args.k, mode=args.mode, group=not args.chunks)
    if args.json:
        print(json.dumps([h.to_dict() for h in hits], ensure_ascii=False, indent=1))
        return 0
    if not hits:
        print("no results")
        return 1
    from siterag.search_api import terminal_marks

    for n, h in enumerate(hits, 1):
        date = f"  {h.date}" if h.date else ""
        heading = f"  § {h.heading}" if args.chunks and h.heading else ""
        print(f"{n}. {h.title}  [{h.ref}]{date}  score {h.score:.4f}{heading}")
        print(f"   {terminal_marks(h.snippet, sys.stdout.isatty())}")
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    from siterag.ask import ask, format_answer
    from siterag.config import load_config
    from siterag.llm import LLMClient, LLMError
    from siterag.llm_clients import ensure_embedded
    from siterag.search_api import Searcher

    cfg = load_config(args.config)
    if not cfg.llm.enabled:
        return _fail("ask needs an LLM: set [llm] embedded = true or base_url in the config")
    Searcher(cfg.store)  # no index: say so before starting an LLM

    def client() -> LLMClient:
        ensure_embedded(cfg.llm, cfg.data_dir / "logs")
        return LLMClient(cfg.llm)

    try:
        result = ask(args.question, cfg.store, client, k=args.k, **filters(args))
    except LLMError as exc:
        return _fail(f"{exc} (LLM endpoint {cfg.llm.url()})")
    print(json.dumps(result.to_dict(), ensure_ascii=False, indent=1) if args.json else format_answer(result))
    return 0 if result.found else 1


def cmd_status(args: argparse.Namespace) -> int:
    from siterag.config import load_config
    from siterag.index import site_counts
    from siterag.prefect_status import last_runs

    cfg = load_config(args.config)
    counts = site_counts(cfg.store)
    runs = last_runs([s.name for s in cfg.sites])  # {} unless PREFECT_API_URL names a server that answers
    print(f"{'site':24} {'last run':25} {'state':10} {'docs':>6} {'chunks':>7} {'open problems'}")
    for site in cfg.sites:
        report_path = cfg.data_dir / "logs" / site.name / "report.json"
        error_log = cfg.data_dir / "logs" / site.name / "error.log"
        last, state, problems = "never", "-", "-"
        if report_path.exists():
            r = json.loads(report_path.read_text(encoding="utf-8"))
            last = r["finished_at"]
            lines = error_log.read_text(encoding="utf-8").splitlines() if error_log.exists() else []
            open_count = sum(1 for line in lines if line.startswith("[!]"))  # "[i]" lines are notes, not problems
            problems = (f"{open_count} (lost content {r.get('lost_content', 0)}, short {r['short']}, "
                        f"mojibake {r['mojibake']}, llm fallback "
                        f"{r['llm_fallback']}, metadata fallback {r.get('metadata_fallback', 0)}, duplicates "
                        f"{len(r.get('duplicates', []))}, failed {r['failed']})")
        if site.name in runs:
            last, state = runs[site.name].start_time, runs[site.name].state
        docs, chunks = counts.get(site.name, (0, 0))
        print(f"{site.name:24} {last:25} {state:10} {docs:>6} {chunks:>7} {problems}")
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    from siterag.config import load_config
    from siterag.embedding import get_embedder
    from siterag.index import rebuild_site
    from siterag.layout import SiteLayout
    from siterag.pipeline import indexed_docs

    cfg = load_config(args.config)
    names = args.sites or [s.name for s in cfg.sites]
    for name in names:
        cfg.site(name)
    embedder = get_embedder(cfg.embedder)
    missing = 0
    for name in names:
        layout = SiteLayout(cfg.data_dir, name)
        if not layout.corpus.is_dir():
            print(f"{name}: no corpus at {layout.corpus}: run `siterag run {name}` first", file=sys.stderr)
            missing += 1
            continue
        stats = rebuild_site(cfg.store, name, indexed_docs(layout, name), embedder)
        print(f"{name}: {len(stats.upserted)} documents, {stats.chunks} chunks indexed afresh in {cfg.store}")
    return 1 if missing else 0


def cmd_serve(args: argparse.Namespace) -> int:
    # Served runs log to the Prefect UI: keep their INFO lines (set before Prefect is imported).
    os.environ["PREFECT_LOGGING_LEVEL"] = _USER_LOG_LEVEL or "INFO"
    from deployments.serve import serve_sites

    serve_sites(args.config)
    return 0


def filters(args: argparse.Namespace) -> dict:
    """The filters given on the command line, as keyword arguments of search() and ask()."""
    return {"site": args.site, "tags": tuple(args.tag or ()), "category": args.category, "since": args.since,
            "until": args.until}


def add_filters(parser: argparse.ArgumentParser) -> None:
    """The search filters `search` and `ask` share."""
    parser.add_argument("--site")
    parser.add_argument("--tag", action="append", help="repeatable")
    parser.add_argument("--category")
    parser.add_argument("--since", help="YYYY[-MM[-DD]]: passages dated on or after (a diary entry's date, else "
                        "its page's)")
    parser.add_argument("--until", help="YYYY[-MM[-DD]]: passages dated on or before")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="siterag", description=__doc__)
    parser.add_argument("--config", default="sites.toml", help="sites config file (default: sites.toml)")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="archive sites: mirror, normalize, extract, enrich, check, index")
    run.add_argument("sites", nargs="*", help="site names (default: all in the config)")
    run.set_defaults(func=cmd_run)
    s = sub.add_parser("search", help="hybrid (vector + full-text) search of the archive")
    s.add_argument("query")
    add_filters(s)
    s.add_argument("-k", type=int, default=10)
    s.add_argument("--mode", choices=("hybrid", "vector", "fts"), default="hybrid")
    s.add_argument("--chunks", action="store_true", help="list passages instead of documents")
    s.add_argument("--json", action="store_true")
    s.add_argument("--data-dir", default="data", help="used when there is no config file")
    s.set_defaults(func=cmd_search)
    a = sub.add_parser("ask", help="answer a question from the archive (RAG), citing site/path")
    a.add_argument("question")
    add_filters(a)
    a.add_argument("-k", type=int, default=5, help="passages given to the model")
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=cmd_ask)
    st = sub.add_parser("status", help="per site: last run, documents, chunks, open problems")
    st.set_defaults(func=cmd_status)
    ri = sub.add_parser("reindex", help="rebuild the index rows of sites from their corpus (others untouched)")
    ri.add_argument("sites", nargs="*", help="site names (default: all in the config)")
    ri.set_defaults(func=cmd_reindex)
    sv = sub.add_parser("serve", help="serve one scheduled deployment per site (cron from the config)")
    sv.set_defaults(func=cmd_serve)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from siterag.config import ConfigError
    from siterag.llama_server import ServerError
    from siterag.mirror import MirrorError

    try:
        return args.func(args)
    except (ConfigError, MirrorError, ServerError, ValueError, OSError) as exc:  # OSError: disk, bucket
        return _fail(str(exc))
    except KeyboardInterrupt:
        return _fail("interrupted; rerun to continue where it stopped")


if __name__ == "__main__":
    sys.exit(main())
