"""`siterag` command line: run, search, ask, status, reindex, forget, serve."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from collections import Counter
from pathlib import Path

from siterag.printable import printable, printable_json

# Offline defaults for Prefect, set before it is imported. A PREFECT_LOGGING_LEVEL that siterag set itself (in this
# process or a parent that imported siterag.cli) is not the person's: marked so that a child does not take it as theirs.
_OWN_LEVEL = "SITERAG_DEFAULT_PREFECT_LOGGING_LEVEL"
_USER_LOG_LEVEL = None if os.environ.get(_OWN_LEVEL) else os.environ.get("PREFECT_LOGGING_LEVEL")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
if "PREFECT_LOGGING_LEVEL" not in os.environ or os.environ.get(_OWN_LEVEL):
    os.environ["PREFECT_LOGGING_LEVEL"] = os.environ[_OWN_LEVEL] = "WARNING"


def _fail(message: str) -> int:
    print(f"siterag: error: {printable(message)}", file=sys.stderr)  # it may quote a page's name or title
    return 2


def _not_prefect(record) -> bool:  # noqa: ANN001 - a logging.LogRecord
    """Not a line of Prefect's: by logger name, or logged from Prefect's code (its background services log under
    their class name, e.g. `EventsWorker - Still processing items` as a refused run exits)."""
    return not (record.name.startswith("prefect") or f"{os.sep}prefect{os.sep}" in (record.pathname or ""))


def _quiet_prefect_console(every_stream: bool = False) -> None:
    """Keep Prefect's own log lines (engine tracebacks, "Crash detected!", task warnings) off the terminal of
    `siterag run`: they stay in the flow run's logs, and the CLI says what matters once. Not when the person set
    PREFECT_LOGGING_LEVEL: then they asked for Prefect's lines. `every_stream`: also Prefect's internal
    stderr lines (after Ctrl-C, which stops the ephemeral server too, its services complain about it)."""
    if _USER_LOG_LEVEL and not every_stream:
        return
    import logging

    from prefect.logging.handlers import PrefectConsoleHandler

    kind = logging.StreamHandler if every_stream else PrefectConsoleHandler
    loggers = [logging.getLogger()] + [lg for lg in logging.root.manager.loggerDict.values()
                                        if isinstance(lg, logging.Logger)]
    for logger in loggers:
        for handler in logger.handlers:
            if isinstance(handler, kind) and _not_prefect not in handler.filters:
                handler.addFilter(_not_prefect)


_REAL_STDERR = None  # the terminal's stderr once Ctrl-C has put Prefect's stderr aside


class _CtrlC:
    """SIGINT handler of `siterag run`: Ctrl-C stops Prefect's ephemeral server too (same process group), so what
    the flow raises next may be a connection error; remember that it was Ctrl-C and keep the complaints of
    Prefect's background threads about the stopped server off the terminal."""

    def __init__(self) -> None:
        self.seen = False

    def __call__(self, signum: int, frame: object) -> None:
        global _REAL_STDERR
        if not self.seen:
            self.seen = True
            _quiet_prefect_console(every_stream=True)
            _REAL_STDERR = sys.stderr
            sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - Prefect writes "Error logging to API" there
            _no_client_retries()
            threading.Thread(target=_exit_when_stuck, args=(CTRL_C_GRACE_S,), daemon=True).start()
        raise KeyboardInterrupt


CTRL_C_GRACE_S = 10.0  # after Ctrl-C, the most time the run's unwinding may take before the process just exits
_INTERRUPT_LINE = "siterag: error: interrupted; rerun the same command to continue (nothing done is lost)"
_told_interrupt = threading.Event()


def _tell_interrupted() -> None:
    if not _told_interrupt.is_set():
        _told_interrupt.set()
        print(_INTERRUPT_LINE, file=_REAL_STDERR or sys.stderr, flush=True)


def _no_client_retries() -> None:
    """Ctrl-C stopped Prefect's temporary server too: its client would retry each call to it with back-off
    (2 + 4 + ... + 32 s, per call, while the run unwinds and records the crash). Fail those calls at once."""
    try:
        from prefect.settings import get_current_settings

        get_current_settings().client.max_retries = 0
    except Exception:  # noqa: BLE001 - a Prefect without this setting: the grace timer still ends the run
        pass


def _exit_when_stuck(grace_s: float) -> None:
    """Backstop after Ctrl-C: whatever still waits (a call to the stopped server, Prefect's exit handlers) is not
    worth more than `grace_s`; what was done is on disk (atomic writes, cached batches, kernel-released locks)."""
    import time

    time.sleep(grace_s)
    _tell_interrupted()
    os._exit(130)


def _site_failure(data_dir: Path, name: str, exc: Exception) -> str:
    """One line saying why a site's run failed; an unexpected error's traceback goes to logs/<site>/failure.log."""
    from siterag.acquire.mirror import MirrorError, shown_path
    from siterag.config import ConfigError
    from siterag.llm.client import LLMError
    from siterag.llm.llama_server import ServerError

    if isinstance(exc, (ConfigError, MirrorError, ServerError, LLMError, OSError)):
        return str(exc)
    import traceback

    log = data_dir / "logs" / name / "failure.log"
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("".join(traceback.format_exception(exc)), encoding="utf-8")
    except OSError:
        return f"{type(exc).__name__}: {exc}"
    return f"{type(exc).__name__}: {exc} (traceback in {shown_path(log)})"


def cmd_run(args: argparse.Namespace) -> int:
    from siterag.config import load_config

    cfg = load_config(args.config)
    names = args.sites or [s.name for s in cfg.sites]
    for name in names:
        cfg.site(name)
    from siterag.prefect_status import use_running_server

    server = use_running_server()  # else Prefect starts a temporary server for this run (15-30 s)
    if server:
        print(f"Prefect server: {server}", flush=True)
    from flows.site import site_flow
    from siterag import progress

    _quiet_prefect_console()
    progress.use(progress.Reporter())
    ctrl_c = _CtrlC()
    main_thread = threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGINT, ctrl_c) if main_thread else None
    try:
        return _run_sites(cfg, names, str(args.config), site_flow, ctrl_c)
    finally:
        progress.use(None)
        if main_thread and not ctrl_c.seen:  # after Ctrl-C it stays: Prefect's exit handlers run after main()
            signal.signal(signal.SIGINT, before)


def _run_sites(cfg, names: list[str], config: str, site_flow, ctrl_c: _CtrlC) -> int:  # noqa: ANN001
    """Run the flow of each site, one after another; a failing site is one line and never stops the others."""
    results: dict[str, str] = {}  # site -> "ok ..." | "failed: why"
    for name in names:
        print(f"== {name}: mirror -> normalize -> extract -> enrich -> quality -> index", flush=True)
        try:
            report = site_flow(name, config)
        except Exception as exc:  # noqa: BLE001 - one failing site never stops the others
            if ctrl_c.seen:
                raise KeyboardInterrupt from None
            why = _site_failure(cfg.data_dir, name, exc)
            print(f"siterag: error: {name}: {printable(why)}", file=sys.stderr, flush=True)
            results[name] = f"failed: {why}"
            continue
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
        for warning in report.get("mirror_warnings", []) + idx.get("warnings", []):
            print(f"   warning: {printable(warning)}")  # they quote page names
        unfetched = sum("(not archived: no earlier copy)" in w for w in report.get("mirror_warnings", []))
        log = cfg.data_dir / "logs" / name / "error.log"
        results[name] = (f"failed: {report['failed']} pages could not be processed (see {log})" if report["failed"]
                         else f"failed: pages answered with a server error and have no earlier copy (see {log})"
                         if unfetched else "ok")
    if len(names) > 1:
        print("== summary")
        for name, result in results.items():
            print(f"   {name}: {printable(result)}")
    return 1 if any(r.startswith("failed") for r in results.values()) else 0


K_MAX = 100  # results `search -k` may ask for


def cmd_search(args: argparse.Namespace) -> int:
    # Only what a search needs is imported (no Prefect, no pipeline; lancedb once the arguments are checked):
    # benchmarks/cli_latency.py measures the start-up.
    from siterag.config import load_config
    from siterag.search.search_api import NOTHING_TO_SEARCH, check_dates, has_terms

    args.query = " ".join(args.query)  # `search 作文 添削` is one query of two words
    if not has_terms(args.query):
        return _fail(NOTHING_TO_SEARCH)
    if not 1 <= args.k <= K_MAX:
        return _fail(f"-k {args.k}: ask for 1 to {K_MAX} results")
    try:
        check_dates(args.since, args.until, ("--since", "--until"))
    except ValueError as exc:
        return _fail(str(exc))
    options = {}
    if Path(args.config).exists():
        cfg = load_config(args.config)
        where, options["embedder"] = cfg.store, cfg.embedder
        known = [s.name for s in cfg.sites]
    else:
        where, known = Path(args.data_dir), None
        if not (where / "lancedb").exists() and "://" not in str(where):
            return _fail(f"{args.config}: no such file here, and no archive in {args.data_dir}/: give --config "
                         "FILE (the archive's sites.toml) or --data-dir DIR")
    from siterag.index.store import IndexStore
    from siterag.search import daemon
    from siterag.search.search_api import Hit, provenance_line, terminal_marks

    store = where if isinstance(where, IndexStore) else IndexStore(str(Path(where) / "lancedb"))  # a data dir's
    request = {"store": {"uri": store.uri, "options": store.options}, "embedder": options.get("embedder",
               "use-multilingual-v3"), "query": args.query, "options": {
               **filters(args), "k": args.k, "mode": args.mode, "group": not args.chunks},
               "data_dir": str(cfg.data_dir if Path(args.config).exists() else args.data_dir)}  # provenance
    sock = daemon.socket_path(request["store"]) if daemon.enabled(args.no_daemon) else None
    for folder in daemon.unsafe:  # someone else's, or open to others: a worker there could be anyone's
        print(f"siterag: warning: {printable(folder)} is not a private folder of yours: searching in-process, "
              "without a warm worker (set XDG_RUNTIME_DIR to a private folder of yours to have one)", file=sys.stderr)
    if args.site and known is None:  # no config: the sites are the index's
        reply = daemon.ask_worker(sock, {**request, "op": "sites"}) if sock else None
        known = reply["sites"] if reply and "sites" in reply else _index_sites(store)
    if args.site and args.site not in known:
        return _fail(f"unknown site {args.site!r}; known sites: {', '.join(known) or '(none)'}")
    reply = daemon.ask_worker(sock, {**request, "op": "search"}) if sock else None
    if reply is None:  # no warm worker (or it failed): search here, then leave one for the next search
        from siterag.search.search_api import add_provenance, hide_pandas, search

        hide_pandas()
        hits = search(args.query, store, **request["options"], embedder=request["embedder"])
        add_provenance(hits, request["data_dir"])  # url, captured_at
        if sock:
            daemon.start_worker(sock, request["embedder"], store.uri)
    elif "error" in reply:
        return _fail(reply["error"])
    else:
        hits = [Hit(**h) for h in reply["hits"]]
    if args.json:
        print(printable_json([h.to_dict() for h in hits]))
        return 0
    if not hits:
        print("no results")
        return 1
    for n, h in enumerate(hits, 1):  # every text of a page through printable(): no escape reaches the terminal
        date = f"  {printable(h.date)}" if h.date else ""
        heading = f"  § {printable(h.heading)}" if args.chunks and h.heading else ""
        print(f"{n}. {printable(h.title)}  [{printable(h.ref)}]{date}  score {h.score:.4f}{heading}")
        if provenance_line(h):
            print(f"   {printable(provenance_line(h))}")
        print(f"   {terminal_marks(printable(h.snippet), sys.stdout.isatty())}")
    return 0


def _index_sites(store: object) -> list[str]:
    """The sites an index holds (for `search --site` without a config)."""
    from siterag.search.search_api import Searcher, hide_pandas

    hide_pandas()
    return Searcher(store).sites()


def cmd_ask(args: argparse.Namespace) -> int:
    from siterag.config import load_config
    from siterag.llm.client import LLMClient, LLMError
    from siterag.llm.clients import ensure_embedded
    from siterag.search.ask import ask, format_answer
    from siterag.search.search_api import Searcher, add_provenance, hide_pandas

    hide_pandas()
    cfg = load_config(args.config)
    if args.site:
        cfg.site(args.site)  # an unknown site is a mistake (exit 2), not "no answer"
    # A model answers only when one is worth asking: a configured endpoint ([llm] base_url), or --llm (the
    # packaged 270M model's answers are mostly wrong); otherwise the passages' matching sentences, in a second.
    use_llm = args.llm if args.llm is not None else bool(cfg.llm.base_url or cfg.llm.base_urls)
    if use_llm and not cfg.llm.enabled:
        return _fail("ask --llm needs an LLM: set [llm] embedded = true or base_url in the config")
    if use_llm and not (cfg.llm.base_url or cfg.llm.base_urls) and not args.json:
        print("note: answering with the packaged Gemma 3 270M model: its answers are mostly wrong or refused; "
              "set [llm] base_url to a capable model", file=sys.stderr)
    Searcher(cfg.store)  # no index: say so before starting an LLM

    def client() -> LLMClient:
        ensure_embedded(cfg.llm, cfg.data_dir / "logs")
        return LLMClient(cfg.llm)

    try:
        result = ask(args.question, cfg.store, client if use_llm else None, k=args.k, **filters(args))
        add_provenance(result.passages, cfg.data_dir)  # citations show the original URL and capture date
        urls = {h.ref: h.url for h in result.passages}
        for sentence in result.sentences:
            sentence.url = sentence.url or urls.get(sentence.ref, "")
    except LLMError as exc:
        return _fail(f"{exc} (LLM endpoint {cfg.llm.url()})")
    print(printable_json(result.to_dict()) if args.json else format_answer(result, sys.stdout.isatty()))
    return 0 if result.found else 1


REPORT_KEYS = ("finished_at", "short", "mojibake", "llm_fallback", "failed")  # what status reads of a report.json


def _read_report(path: Path) -> tuple[dict | None, str]:
    """A site's last run report, or None and why it cannot be read (cut short, hand-edited, missing keys)."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"cannot read it: {getattr(exc, 'strerror', None) or exc}"
    except ValueError as exc:
        return None, f"not valid JSON ({exc})"
    if not isinstance(report, dict):
        return None, "not a run report (not a JSON object)"
    missing = [key for key in REPORT_KEYS if key not in report]
    if missing:
        return None, f"not a run report: no {', '.join(missing)}"
    return report, ""


_PROBLEM_KINDS = (("[!] Crawl:", "crawl warnings"), ("[!] Lost content", "lost content"),
                  ("[!] Few diary entries", "few diary entries"), ("[!] Mojibake", "mojibake"),
                  ("[!] LLM fallback", "llm fallback"), ("[!] LLM metadata", "metadata fallback"),
                  ("[!] Duplicate", "duplicates"), ("[!] Failed", "failed"), ("[!] Edited by hand", "hand edits"),
                  ("[!] Corpus", "corpus fields"))


def _problem_kind(line: str) -> str:
    """What kind of open problem an error.log `[!]` line is (status counts them by kind, so they add up)."""
    return next((kind for prefix, kind in _PROBLEM_KINDS if line.startswith(prefix)), "other")


def cmd_status(args: argparse.Namespace) -> int:
    from siterag.acquire.mirror import shown_path
    from siterag.config import load_config
    from siterag.index.index import VECTOR_INDEX_MIN_ROWS, site_counts, vector_index_states
    from siterag.prefect_status import last_runs

    cfg = load_config(args.config)
    counts = site_counts(cfg.store)
    runs = last_runs([s.name for s in cfg.sites])  # {} unless PREFECT_API_URL names a server that answers
    print(f"{'site':24} {'last run':25} {'state':10} {'docs':>6} {'chunks':>7} {'open problems'}")
    for site in cfg.sites:
        report_path = cfg.data_dir / "logs" / site.name / "report.json"
        error_log = cfg.data_dir / "logs" / site.name / "error.log"
        last, state, problems = "never", "-", "-"
        r, why = _read_report(report_path) if report_path.exists() else (None, "")
        if why:  # one line naming the file; the site's row is still shown
            print(f"siterag: warning: {printable(shown_path(report_path))}: {printable(why)}; the next run of "
                  f"{site.name} rewrites it",
                  file=sys.stderr)
            last = "unknown"
        if r is not None:
            last = printable(r["finished_at"])  # a hand-edited report may hold anything
            lines = error_log.read_text(encoding="utf-8", errors="replace").splitlines() if error_log.exists() else []
            open_count = sum(1 for line in lines if line.startswith("[!]"))  # "[i]" lines are notes, not problems
            kinds = Counter(_problem_kind(line) for line in lines if line.startswith("[!]"))
            shown = ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items())) or "none"
            problems = (f"{open_count} ({shown}; short pages {r['short']}, a note; see "
                        f"{printable(shown_path(error_log))})")
        if site.name in runs:
            last, state = printable(runs[site.name].start_time), printable(runs[site.name].state)
        docs, chunks = counts.get(site.name, (0, 0))
        print(f"{site.name:24} {last:25} {state:10} {docs:>6} {chunks:>7} {problems}")
    known = {s.name for s in cfg.sites}
    for name in sorted(set(counts) - known):  # a site renamed or removed from the config: its rows stay until forgotten
        docs, chunks = counts[name]
        name = printable(name)
        print(f"{name:24} {'not in the config':25} {'-':10} {docs:>6} {chunks:>7} "
              f"remove its rows with `siterag forget {name}`")
    for state in vector_index_states(cfg.store):  # searched exactly below the threshold, through an ANN index above
        how = (f"ANN index ({state.unindexed} rows added since, searched exactly until the next run folds them in)"
               if state.indexed else
               f"no ANN index (flat, exact search; one is built at {VECTOR_INDEX_MIN_ROWS:,} rows)")
        print(f"index {state.table}: {state.rows:,} rows, {how}")
    if not runs:
        print("(state: the flow run's state needs a Prefect server: set PREFECT_API_URL, see docs/operations.md)")
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    from siterag.config import load_config
    from siterag.index.embed_cache import CachedEmbedder
    from siterag.index.index import drop_damaged, rebuild_site
    from siterag.layout import SiteLayout
    from siterag.lock import site_lock
    from siterag.pipeline import corpus_source

    cfg = load_config(args.config)
    names = args.sites or [s.name for s in cfg.sites]
    for name in names:
        cfg.site(name)
    from siterag import progress

    for table in drop_damaged(cfg.store):  # a lost or corrupt data file: the table is rebuilt from the corpus
        others = "" if not args.sites else "; the other sites get their rows back on their next run or reindex"
        print(f"warning: table {table} could not be read: dropped, rebuilt from the corpus{others}", file=sys.stderr)
    embedder = _reindex_embedder(cfg.embedder, cfg.data_dir)
    progress.use(progress.Reporter())
    try:
        missing = 0
        for name in names:
            layout = SiteLayout(cfg.data_dir, name)
            if not layout.corpus.is_dir():
                print(f"{name}: no corpus at {layout.corpus}: run `siterag run {name}` first", file=sys.stderr)
                missing += 1
                continue
            problems: list[str] = []
            docs = corpus_source(layout, name, problems)  # streamed: one batch of bodies in memory at a time
            with site_lock(cfg.data_dir, name), progress.stage(name, "reindex", "docs") as shown:
                stats = rebuild_site(cfg.store, name, docs, embedder, progress=shown)
            for problem in problems:
                print(f"warning: {printable(problem)}", file=sys.stderr)
            print(f"{name}: {len(stats.upserted)} documents, {stats.chunks} chunks indexed afresh in {cfg.store}")
    finally:
        progress.use(None)
        if isinstance(embedder, CachedEmbedder):
            embedder.cache.close()
    return 1 if missing else 0


def _reindex_embedder(name: str, data_dir: Path) -> object:
    """As the index stage: each distinct text embedded once across documents, sites and runs (the embedding
    cache); without the cache where its file cannot be opened (a full or read-only disk): the index write says why."""
    import sqlite3

    from siterag.index.embed_cache import cached_embedder
    from siterag.index.embedding import get_embedder

    try:
        return cached_embedder(get_embedder(name), data_dir)
    except (sqlite3.Error, OSError):
        return get_embedder(name)


def cmd_values(args: argparse.Namespace) -> int:
    """`siterag tags` / `siterag categories` / `siterag kinds`: the values of a front matter field with their
    document counts, so that `--tag` and `--category` have something to choose from (`kinds --describe`: with each
    kind's description)."""
    from siterag.config import load_config
    from siterag.layout import SiteLayout
    from siterag.pipeline import iter_corpus_docs

    if args.k < 1:
        return _fail(f"-k {args.k}: ask for 1 or more")
    cfg = load_config(args.config)
    sites = [cfg.site(args.site).name] if args.site else [s.name for s in cfg.sites]
    field = {"tags": "tags", "kinds": "kind"}.get(args.command, "category")
    counts: Counter[str] = Counter()
    for site in sites:
        for _, fields, _ in iter_corpus_docs(SiteLayout(cfg.data_dir, site)):
            value = fields.get(field)
            counts.update(dict.fromkeys(value if isinstance(value, list) else [value] if value else [], 1))
    shown = counts.most_common(args.k)
    described = getattr(args, "describe", False)
    if described:
        from siterag.enrich.kinds import KINDS, description
    about = {v: description(v) if described and v in KINDS else "" for v, _ in shown}
    if args.json:
        print(printable_json([{"value": v, "documents": n, **({"description": about[v]} if described else {})}
                              for v, n in shown]))
    else:
        for value, n in shown:
            print(f"{n:6}  {printable(str(value))}" + (f"  {about[value]}" if about[value] else ""))
        if len(counts) > len(shown):
            print(f"(and {len(counts) - len(shown)} more; -k to show more)")
    return 0 if counts else 1


def cmd_forget(args: argparse.Namespace) -> int:
    """Remove a site's rows from the index (a site renamed or dropped from the config); `--all`: its files too."""
    import shutil

    from siterag.acquire.mirror import shown_path
    from siterag.config import _NAME_RE, load_config
    from siterag.index.index import forget_site
    from siterag.layout import SiteLayout
    from siterag.lock import site_lock

    cfg = load_config(args.config)
    name = args.site
    if not _NAME_RE.match(name):
        return _fail(f"{name!r} is not a site name (letters, digits, '.', '_' or '-')")
    layout = SiteLayout(cfg.data_dir, name)
    folders = [f for f in (layout.mirror, layout.normalized, layout.corpus, layout.logs) if f.exists()]
    with site_lock(cfg.data_dir, name):
        docs, chunks = forget_site(cfg.store, name)
        if args.all:
            for folder in folders:
                shutil.rmtree(folder)
    if (docs, chunks) == (0, 0) and not (args.all and folders):
        kept = f"; its files are still under {shown_path(cfg.data_dir)} (--all deletes them)" if folders else ""
        return _fail(f"the index holds no rows of site {name!r}{kept}")
    print(f"{name}: {docs} documents and {chunks} chunks removed from the index {cfg.store}")
    shown = ", ".join(shown_path(f) for f in folders) or "(none)"
    print(f"{name}: deleted {shown}" if args.all else
          f"{name}: files kept: {shown} (`siterag forget {name} --all` deletes them)")
    if name in {s.name for s in cfg.sites}:
        print(f"{name}: still in the config: the next `siterag run` archives it again")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    # Served runs log to the Prefect UI: keep their INFO lines (set before Prefect is imported).
    os.environ["PREFECT_LOGGING_LEVEL"] = _USER_LOG_LEVEL or "INFO"
    from deployments.serve import serve_sites

    serve_sites(args.config)
    return 0


def cmd_web(args: argparse.Namespace) -> int:
    from siterag.web.app import serve

    return serve(args.config, args.host, args.port)


def filters(args: argparse.Namespace) -> dict:
    """The filters given on the command line, as keyword arguments of search() and ask()."""
    return {"site": args.site, "tags": tuple(args.tag or ()), "category": args.category, "since": args.since,
            "until": args.until}


def add_filters(parser: argparse.ArgumentParser) -> None:
    """The search filters `search` and `ask` share."""
    parser.add_argument("--site", metavar="SITE", help="only this site (a name from the config)")
    parser.add_argument("--tag", action="append", metavar="TAG",
                        help="only pages with this tag; repeat for pages with all of them")
    parser.add_argument("--category", metavar="CATEGORY", help="only pages of this category")
    parser.add_argument("--since", metavar="DATE", help="YYYY[-MM[-DD]]: passages dated on or after (a diary "
                        "entry's date, else its page's)")
    parser.add_argument("--until", metavar="DATE", help="YYYY[-MM[-DD]]: passages dated on or before")


DEFAULT_CONFIG = "sites.toml"
CONFIG_HELP = f"sites config file (default: {DEFAULT_CONFIG})"


DESCRIPTION = "Archive legacy websites (mirror, extract, enrich, check) into a searchable index; search it and ask it."
EXAMPLES = """examples:
  siterag --config sites.toml run                               # archive every site; reruns are incremental
  siterag --config sites.toml search "robot wars"               # documents, best first
  siterag --config sites.toml search "お茶" --site example --since 2003 --until 2004-06 -k 5
  siterag --config sites.toml search "hinting" --chunks --json  # passages, as JSON
  siterag --config sites.toml ask "静岡のお茶の特徴は？"        # matching passages (an answer with [llm] base_url)
  siterag --config sites.toml status                            # per site: last run, documents, open problems

Each command's options: siterag COMMAND --help"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="siterag", description=DESCRIPTION, epilog=EXAMPLES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    # --config goes before or after the subcommand; SUPPRESS: main() tells a given one from the default.
    parser.add_argument("--config", default=argparse.SUPPRESS, help=CONFIG_HELP)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                help="what to do (each one's options: siterag COMMAND --help)")
    run = sub.add_parser("run", help="archive sites: mirror, normalize, extract, enrich, check, index")
    run.add_argument("sites", nargs="*", help="site names (default: all in the config)")
    run.set_defaults(func=cmd_run)
    s = sub.add_parser("search", help="hybrid (vector + full-text) search of the archive",
                       description="Hybrid (vector + full-text) search of the archive: the best documents, each "
                       "with its best passage, query terms marked **like this**.")
    s.add_argument("query", nargs="+", help="words or a question, in any language the sites use (quotes optional)")
    add_filters(s)
    s.add_argument("-k", type=int, default=10, metavar="N", help=f"results to show, 1 to {K_MAX} (default: 10)")
    s.add_argument("--mode", choices=("hybrid", "vector", "fts"), default="hybrid",
                   help="hybrid (default): vectors and full text, fused; vector: meaning only; fts: words only")
    s.add_argument("--chunks", action="store_true", help="list passages instead of documents")
    s.add_argument("--json", action="store_true", help="print the results as JSON (scores, snippet, passage text)")
    s.add_argument("--data-dir", default="data", metavar="DIR",
                   help="data folder to search when there is no config file (default: data)")
    s.add_argument("--no-daemon", action="store_true",
                   help="search in this process only: neither use nor leave a warm search worker (also "
                   "SITERAG_SEARCH_DAEMON=off)")
    s.set_defaults(func=cmd_search)
    a = sub.add_parser("ask", help="answer a question from the archive (RAG), citing site/path")
    a.add_argument("question", help="a question, in any language the sites use")
    add_filters(a)
    a.add_argument("-k", type=int, default=5, metavar="N", help="passages given to the model (default: 5)")
    a.add_argument("--json", action="store_true", help="print the answer and its sources as JSON")
    a.add_argument("--llm", action=argparse.BooleanOptionalAction, default=None,
                   help="--llm: a model writes a checked answer (default when [llm] base_url is set); --no-llm: "
                   "the passages' sentences that match the question, no model (default otherwise)")
    a.set_defaults(func=cmd_ask)
    st = sub.add_parser("status", help="per site: last run, documents, chunks, open problems")
    st.set_defaults(func=cmd_status)
    for name, what, flag in (("tags", "tags", "--tag"), ("categories", "categories", "--category"),
                             ("kinds", "page kinds (diary, review, links, ...)", "--category")):
        values = sub.add_parser(name, help=f"the {what} of the archive with their document counts (for {flag})")
        values.add_argument("--site", metavar="SITE", help="only this site (a name from the config)")
        values.add_argument("-k", type=int, default=40, metavar="N", help="how many to show, most used first "
                            "(default: 40)")
        values.add_argument("--json", action="store_true", help="print them as JSON")
        if name == "kinds":
            values.add_argument("--describe", action="store_true", help="with each kind's description")
        values.set_defaults(func=cmd_values)
    ri = sub.add_parser("reindex", help="rebuild the index rows of sites from their corpus (others untouched)")
    ri.add_argument("sites", nargs="*", help="site names (default: all in the config)")
    ri.set_defaults(func=cmd_reindex)
    fg = sub.add_parser("forget", help="remove a site's rows from the index (a site renamed or removed from the "
                        "config); its files under the data dir are kept unless --all",
                        description="Remove every index row of SITE (e.g. a site renamed or removed from the config; "
                        "`siterag status` lists such sites). Its mirror, corpus and logs are kept unless --all.")
    fg.add_argument("site", metavar="SITE", help="the site's name, as in the index")
    fg.add_argument("--all", action="store_true", help="also delete its mirror, normalized pages, corpus and logs")
    fg.set_defaults(func=cmd_forget)
    sv = sub.add_parser("serve", help="serve one scheduled deployment per site (cron from the config)")
    sv.set_defaults(func=cmd_serve)
    wb = sub.add_parser("web", help="read, search and browse the archive in a browser (a local web app)")
    wb.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine "
                    "only; another one shares the archive, with a warning)")
    wb.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    wb.set_defaults(func=cmd_web)
    for command in sub.choices.values():
        command.add_argument("--config", default=argparse.SUPPRESS, help=CONFIG_HELP)
    return parser


# Errors a person is told in one line: (module, class). Checked only in modules already imported (an error of a
# module never imported cannot have been raised), so `search` does not import the crawler or the LLM client.
_ONE_LINE_ERRORS = (("siterag.config", "ConfigError"), ("siterag.acquire.mirror", "MirrorError"),
                    ("siterag.llm.llama_server", "ServerError"))


def _index_damage(exc: BaseException) -> str:
    """One line for a LanceDB read error that reached the CLI (a table's file lost or corrupt), else ""."""
    from siterag.index.store import index_problem, is_lance_error

    return index_problem("", "read", exc) if not isinstance(exc, OSError) and is_lance_error(exc) else ""


def _told_in_one_line(exc: BaseException) -> bool:
    """A mistake or an environmental failure (disk, bucket, host): one `siterag: error:` line, no traceback."""
    kinds: list[type] = [ValueError, OSError]
    for module, name in _ONE_LINE_ERRORS:
        if module in sys.modules:
            kinds.append(getattr(sys.modules[module], name))
    return isinstance(exc, tuple(kinds))


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    given = hasattr(args, "config")
    args.config = getattr(args, "config", DEFAULT_CONFIG)
    from siterag.config import load_config

    try:
        # Every config mistake is one line before any work starts. Only `search` without --config and
        # without ./sites.toml goes on without a config (it reads --data-dir).
        if given or args.command != "search" or Path(args.config).exists():
            load_config(args.config)
        return args.func(args)
    except Exception as exc:
        if _index_damage(exc):
            return _fail(_index_damage(exc))
        if not _told_in_one_line(exc):
            raise
        return _fail(str(exc))
    except KeyboardInterrupt:  # Ctrl-C: what is done is on disk (atomic writes, cached batches)
        _tell_interrupted()
        return 130


if __name__ == "__main__":
    sys.exit(main())
