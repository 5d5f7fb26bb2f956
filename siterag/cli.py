"""`siterag` command line: run, search, status, serve."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

# Offline defaults for Prefect, set before it is imported.
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
        print(f"   quality: short {report['short']}, mojibake {report['mojibake']}, "
              f"llm fallback {report['llm_fallback']}, metadata fallback {report['metadata_fallback']}, "
              f"duplicate groups {len(report['duplicates'])}; llm calls {report['llm_calls']}")
        print(f"   index: {idx['upserted']} docs upserted ({idx['chunks']} chunks), {idx['unchanged']} unchanged, "
              f"{idx['removed']} removed; report: {cfg.data_dir / 'logs' / name / 'report.json'}")
        for warning in report.get("mirror_warnings", []):
            print(f"   warning: {warning}")
        worst = max(worst, 1 if report["failed"] else 0)
    return worst


def cmd_search(args: argparse.Namespace) -> int:
    from siterag.config import load_config
    from siterag.search_api import search

    data_dir = load_config(args.config).data_dir if Path(args.config).exists() else Path(args.data_dir)
    hits = search(args.query, data_dir, site=args.site, tags=tuple(args.tag or ()), category=args.category,
                  since=args.since, until=args.until, k=args.k, mode=args.mode)
    if args.json:
        print(json.dumps([h.to_dict() for h in hits], ensure_ascii=False, indent=1))
        return 0
    if not hits:
        print("no results")
        return 1
    for n, h in enumerate(hits, 1):
        date = f"  {h.date}" if h.date else ""
        print(f"{n}. {h.title}  [{h.site}/{h.path}]{date}  score {h.score:.4f}")
        print(f"   {h.snippet}")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from siterag.config import load_config
    from siterag.index import site_counts

    cfg = load_config(args.config)
    counts = site_counts(cfg.data_dir / "lancedb")
    print(f"{'site':24} {'last run':22} {'docs':>6} {'chunks':>7} {'open problems'}")
    for site in cfg.sites:
        report_path = cfg.data_dir / "logs" / site.name / "report.json"
        last, problems = "never", "-"
        if report_path.exists():
            r = json.loads(report_path.read_text(encoding="utf-8"))
            last = r["finished_at"]
            problems = (f"short {r['short']}, mojibake {r['mojibake']}, fallback {r['llm_fallback']}, "
                        f"failed {r['failed']}")
        docs, chunks = counts.get(site.name, (0, 0))
        print(f"{site.name:24} {last:22} {docs:>6} {chunks:>7} {problems}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from deployments.serve import serve_sites

    serve_sites(args.config)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="siterag", description=__doc__)
    parser.add_argument("--config", default="sites.toml", help="sites config file (default: sites.toml)")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="archive sites: mirror, normalize, extract, enrich, check, index")
    run.add_argument("sites", nargs="*", help="site names (default: all in the config)")
    run.set_defaults(func=cmd_run)
    s = sub.add_parser("search", help="hybrid (vector + full-text) search of the archive")
    s.add_argument("query")
    s.add_argument("--site")
    s.add_argument("--tag", action="append", help="repeatable")
    s.add_argument("--category")
    s.add_argument("--since", help="YYYY[-MM[-DD]]")
    s.add_argument("--until", help="YYYY[-MM[-DD]]")
    s.add_argument("-k", type=int, default=10)
    s.add_argument("--mode", choices=("hybrid", "vector", "fts"), default="hybrid")
    s.add_argument("--json", action="store_true")
    s.add_argument("--data-dir", default="data", help="used when there is no config file")
    s.set_defaults(func=cmd_search)
    st = sub.add_parser("status", help="per site: last run, documents, chunks, open problems")
    st.set_defaults(func=cmd_status)
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
    except (ConfigError, MirrorError, ServerError, ValueError) as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return _fail("interrupted; rerun to continue where it stopped")


if __name__ == "__main__":
    sys.exit(main())
