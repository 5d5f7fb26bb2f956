"""Faults: kill -9 mid-run, a misbehaving LLM server, failing and endless crawls — against real parts
(the CLI in a subprocess, wget, Prefect, LanceDB) and small loopback servers that misbehave on purpose."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import lancedb
import pytest

from siterag.acquire.mirror import MirrorError, mirror_site, parse_wget_errors, url_to_rel
from siterag.config import load_config
from siterag.enrich.corpus import read_doc
from siterag.layout import SiteLayout, atomic_write, sweep_temp_files
from siterag.pipeline import RETRY_RUNS, corpus_docs, needs_work, remove_vanished
from tests.conftest import EXAMPLE_SITE, ROOT, write_config
from tests.fake_servers import CalendarTrap, FakeLLM, FlakySite


@pytest.fixture(scope="module")
def harness():
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield


def config(data: Path, site: str, *, llm: str = "", mode: str = "heuristic", batch: int = 25) -> str:
    return f'[defaults]\ndata_dir = "{data}"\nbatch_size = {batch}\n{llm}\n[[site]]\nname = "{site[0]}"\n' \
           f'{site[1]}\nextract_mode = "{mode}"\n'


def llm_section(url: str, timeout: float = 30, retries: int = 1) -> str:
    return f'[llm]\nbase_url = "{url}"\nmodel = "fake"\ntimeout = {timeout}\nretries = {retries}\n'


def corpus_state(layout: SiteLayout) -> dict[str, tuple[dict, str]]:
    """Every corpus document: its front matter without processed_at, and its body."""
    state = {}
    for rel, fields, body in corpus_docs(layout):
        fields = dict(fields)
        fields.pop("processed_at")
        state[rel] = (fields, body)
    return state


def index_state(db_dir: Path, site: str) -> tuple[list[tuple], list[tuple]]:
    """(documents, chunks) rows of a site: id, content hash and text, sorted."""
    db = lancedb.connect(str(db_dir))
    out = []
    for name in ("documents", "chunks"):
        rows = db.open_table(name).search().where(f"site = '{site}'").select(["id", "content_hash", "text"]) \
            .limit(None).to_arrow().to_pylist()
        out.append(sorted((r["id"], r["content_hash"], r["text"]) for r in rows))
    return out[0], out[1]


def temp_files(data: Path) -> list[Path]:
    return [p for p in data.rglob(".tmp-*") if "lancedb" not in p.parts]


# -- 1. kill -9 during extraction, then rerun ------------------------------------------------------------

@pytest.mark.bad_input
def test_kill_9_during_extraction_then_rerun_equals_an_uninterrupted_run(tmp_path, served_example, harness):
    from flows.site import site_flow

    _, url = served_example
    llm = FakeLLM(delay=0.4)  # each LLM answer takes 0.4 s: the kill lands while pages are being extracted
    site = ("example", f'start_urls = ["{url}/index.html", "{url}/frames.html"]')
    try:
        data = tmp_path / "killed" / "data"
        (tmp_path / "killed").mkdir()
        cfg = write_config(tmp_path / "killed", config(data, site, llm=llm_section(llm.url), mode="llm", batch=2))
        env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect-home")}
        cmd = [sys.executable, "-m", "siterag.cli", "--config", str(cfg), "run"]
        layout = SiteLayout(data, "example")
        with (tmp_path / "killed.log").open("w") as log:
            proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True)
            deadline = time.monotonic() + 240
            done: list[str] = []
            while time.monotonic() < deadline and proc.poll() is None:
                done = [rel for rel, _, _ in corpus_docs(layout)] if layout.corpus.exists() else []
                if done:
                    break
                time.sleep(0.02)
            assert proc.poll() is None, (tmp_path / "killed.log").read_text()[-3000:]
            os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its ephemeral Prefect server
            proc.wait(30)
        assert proc.returncode == -signal.SIGKILL
        assert 1 <= len(done) < 5 and llm.requests  # killed mid-extraction
        assert not (data / "lancedb").exists()  # the index stage had not started

        rerun = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert rerun.returncode == 0, rerun.stdout[-2000:] + rerun.stderr[-3000:]
        assert "failed 0" in rerun.stdout

        ref_data = tmp_path / "reference" / "data"
        (tmp_path / "reference").mkdir()
        ref_cfg = write_config(tmp_path / "reference", config(ref_data, site, llm=llm_section(llm.url), mode="llm"))
        ref = site_flow("example", str(ref_cfg))
    finally:
        llm.stop()
    assert ref["new"] == 4 and ref["llm_fallback"] == 0  # menu.html is only the site's template
    killed, reference = corpus_state(layout), corpus_state(SiteLayout(ref_data, "example"))
    assert sorted(killed) == sorted(reference) and len(killed) == 4
    assert killed == reference  # same bodies and front matter (hashes, titles, tags...) but processed_at
    docs, chunks = index_state(data / "lancedb", "example")
    ref_docs, ref_chunks = index_state(ref_data / "lancedb", "example")
    assert docs == ref_docs and chunks == ref_chunks and len(docs) == 4
    assert len({c[0] for c in chunks}) == len(chunks)  # no duplicate chunk ids
    assert temp_files(data) == []  # the kill's half-written files were swept
    assert not list((data / "mirror").rglob(".tmp-*"))


@pytest.mark.bad_input
def test_atomic_write_leftovers_of_a_dead_process_are_swept_and_never_read(tmp_path):
    corpus = tmp_path / "data" / "corpus" / "s"
    atomic_write(corpus / "a.md", "---\ntitle: a\n---\nbody\n")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    half = corpus / f".tmp-{dead.pid}-x1y2.siterag-tmp"
    half.write_text("---\ntitle: half")  # what a kill -9 between write and rename leaves
    mine = corpus / f".tmp-{os.getpid()}-live.siterag-tmp"  # a live writer's file: not ours to delete
    mine.write_text("---\ntitle: writing")
    layout = SiteLayout(tmp_path / "data", "s")
    assert [rel for rel, _, _ in corpus_docs(layout)] == ["a.md"]  # half-written files are never documents
    assert remove_vanished(layout, {"a.md"}) == []
    assert sweep_temp_files(corpus) == [half]
    assert mine.exists() and not half.exists() and (corpus / "a.md").exists()


# -- 2. llama-server faults ------------------------------------------------------------------------------

PAGES = {"a-ok": "ok", "b-nonjson": "nonjson", "c-length": "length", "d-slow": "slow", "e-kill": "kill",
         "f-after": "after"}


def fault_site(root: Path) -> Path:
    root.mkdir(parents=True)
    for name, word in PAGES.items():
        text = f"{word} のページです。" + "お茶の産地と歴史について書いた本文の段落です。" * 8
        (root / f"{name}.html").write_text(
            f"<html><head><title>page {word}</title></head><body><h1>page {word}</h1><p>{text}</p>"
            f"<p>二つ目の段落。{word} の話の続きです。</p></body></html>", encoding="utf-8")
    return root


@pytest.mark.bad_input
def test_llm_server_faults_fall_back_then_are_retried_when_it_is_healthy(tmp_path, harness):
    from flows.site import site_flow

    src = fault_site(tmp_path / "site")
    faults = {"nonjson": "nonjson", "length": "length", "slow": "slow", "kill": "kill"}
    sick = FakeLLM(faults=faults, slow_s=2.5)
    port = sick.port
    data = tmp_path / "data"
    cfg = write_config(tmp_path, config(data, ("faulty", f'local_path = "{src}"'),
                                        llm=llm_section(sick.url, timeout=1, retries=1), mode="llm"))
    layout = SiteLayout(data, "faulty")
    try:
        first = site_flow("faulty", str(cfg))
    finally:
        sick.stop()
    assert first["failed"] == 0 and first["new"] == 6  # the run completes
    fields = {rel: f for rel, f, _ in corpus_docs(layout)}
    assert fields["a-ok.md"]["fallback"] == "" and fields["a-ok.md"]["metadata_by"] == "llm"
    expected = {"b-nonjson.md": "invalid_json", "c-length.md": "length", "d-slow.md": "timeout",
                "e-kill.md": "down", "f-after.md": "down"}
    for rel, reason in expected.items():
        assert fields[rel]["fallback"] == reason, rel
        assert fields[rel]["extract_mode"] == "heuristic" and fields[rel]["metadata_by"] == "machine"
        assert fields[rel]["metadata_problem"]  # why the LLM's fields were refused (the machine's stayed)
        assert fields[rel]["title"].startswith("page ")  # from <title>, not lost
    bodies = {rel: body for rel, _, body in corpus_docs(layout)}
    assert all("お茶の産地と歴史" in body for body in bodies.values())  # the heuristic kept the text
    assert first["llm_fallback"] == 5 and first["metadata_fallback"] == 5
    log = (layout.logs / "error.log").read_text(encoding="utf-8")
    for rel, reason in expected.items():
        assert f"[!] LLM fallback to heuristic ({reason}): {rel}" in log
    # Retries with backoff: a non-JSON answer is asked again after ~1 s; a cut-off one is not asked again.
    tries = sick.calls("nonjson", "blocks")
    assert len(tries) == 2 and tries[1].at - tries[0].at >= 0.9
    assert len(sick.calls("length", "blocks")) == 1
    assert len(sick.calls("slow", "blocks")) == 2
    assert not sick.calls("after")  # the server was dead by then: refused, never reached

    healthy = FakeLLM(port=port)
    try:
        second = site_flow("faulty", str(cfg))
        third = site_flow("faulty", str(cfg))
    finally:
        healthy.stop()
    fields = {rel: f for rel, f, _ in corpus_docs(layout)}
    for rel in expected:
        assert fields[rel]["fallback"] == "" and fields[rel]["extract_mode"] == "llm", rel
        assert fields[rel]["metadata_by"] == "llm" and fields[rel]["tags"] == ["タグ一", "タグ二", "タグ三"]
    assert second["changed"] == 5 and second["unchanged"] == 1 and second["llm_calls"] == 10
    assert second["llm_fallback"] == 0 and "LLM fallback" not in (layout.logs / "error.log").read_text()
    assert third["llm_calls"] == 0 and third["unchanged"] == 6  # nothing left to retry
    assert third["index"]["embed_calls"] == 0


@pytest.mark.bad_input
def test_bad_answers_are_retried_on_a_bounded_number_of_runs():
    page, key = "h1", "k1"
    for reason in ("down", "timeout", "http"):  # the server's fault: retried on every run
        assert needs_work({"content_hash": page, "extract_key": key, "fallback": reason, "fallback_runs": 9},
                          page, key, llm_enabled=True)
    for reason in ("invalid_json", "length", "schema"):
        fields = {"content_hash": page, "extract_key": key, "fallback": reason, "fallback_runs": 1}
        assert needs_work(fields, page, key, llm_enabled=True)  # once more on the next run
        assert not needs_work({**fields, "fallback_runs": RETRY_RUNS}, page, key, llm_enabled=True)
        assert needs_work({**fields, "fallback_runs": RETRY_RUNS}, "h2", key, llm_enabled=True)  # page changed
        assert not needs_work(fields, page, key, llm_enabled=False)
    meta = {"content_hash": page, "extract_key": key, "fallback": "", "metadata_problem": "timeout"}
    assert needs_work(meta, page, key, llm_enabled=True)
    assert not needs_work({**meta, "metadata_problem": ""}, page, key, llm_enabled=True)
    assert not needs_work({**meta, "metadata_problem": "", "fallback": "llm chose nothing"}, page, key, True)


# -- 3. wget failures ------------------------------------------------------------------------------------

@pytest.mark.bad_input
def test_http_errors_then_host_down_keep_the_corpus(tmp_path, harness):
    from flows.site import site_flow

    www = tmp_path / "www"
    shutil.copytree(EXAMPLE_SITE, www)
    site = FlakySite(www)
    data = tmp_path / "data"
    cfg = write_config(tmp_path, config(data, ("flaky", f'start_urls = ["{site.url}/index.html", '
                                                        f'"{site.url}/frames.html"]')))
    layout = SiteLayout(data, "flaky")
    try:
        first = site_flow("flaky", str(cfg))
        assert first["documents"] == 4 and first["mirror_warnings"] == []
        tea = (layout.corpus / "tea.md").read_bytes()

        site.status.update({"tea.html": 500, "links.html": 404})  # still linked: one broken, one gone
        second = site_flow("flaky", str(cfg))
        if any("wget exited with code 4" in w for w in second["mirror_warnings"]):
            # A network error on a loaded machine makes the crawl incomplete, which keeps every page (right,
            # but not what this step checks): crawl again, once.
            second = site_flow("flaky", str(cfg))
    finally:
        site.stop()
    wget_log = (layout.logs / "wget.log").read_text(encoding="utf-8", errors="replace")[-3000:]
    warnings = second["mirror_warnings"]
    assert f"HTTP 500 for {site.url}/tea.html (kept the earlier copy)" in warnings
    assert f"HTTP 404 for {site.url}/links.html (page gone)" in warnings
    assert (layout.corpus / "tea.md").read_bytes() == tea  # a server error is not a removal
    assert second["removed"] == ["links.md"] and not (layout.corpus / "links.md").exists(), (warnings, wget_log)
    assert (layout.mirror / "links.html").exists()  # the mirror keeps it
    log = (layout.logs / "error.log").read_text(encoding="utf-8")
    assert f"[!] Crawl: HTTP 500 for {site.url}/tea.html" in log
    before = {p: p.read_bytes() for p in layout.corpus.rglob("*.md")}
    docs_before, chunks_before = index_state(data / "lancedb", "flaky")

    third = site_flow("flaky", str(cfg))  # nothing listens on the port any more
    assert any("wget exited with code 4" in w for w in third["mirror_warnings"])
    assert third["removed"] == [] and third["failed"] == 0 and third["new"] == 0
    assert {p: p.read_bytes() for p in layout.corpus.rglob("*.md")} == before  # links.md stays gone, too
    assert index_state(data / "lancedb", "flaky") == (docs_before, chunks_before)
    assert "wget exited with code 4" in (layout.logs / "error.log").read_text(encoding="utf-8")
    import json

    saved = json.loads((layout.logs / "report.json").read_text(encoding="utf-8"))
    assert saved["mirror_warnings"] == third["mirror_warnings"]


@pytest.mark.bad_input
def test_first_crawl_of_a_host_that_is_down_fails_with_a_clear_error(tmp_path):
    trap = CalendarTrap()
    url = trap.url
    trap.stop()  # the port is closed now
    cfg = load_config(write_config(tmp_path, config(tmp_path / "data", ("down", f'start_urls = ["{url}/"]'))))
    with pytest.raises(MirrorError, match="wget fetched nothing"):
        mirror_site(cfg.sites[0], tmp_path / "m", tmp_path / "logs")


def test_wget_log_errors_map_to_mirror_paths():
    log = ("--2026-12-02 15:40:22--  http://h/tea.html\nHTTP request sent, awaiting response... 500 Internal\n"
           "--2026-12-02 15:40:23--  (try: 2)  http://h/tea.html\n2026-12-02 15:40:23 ERROR 500: Internal.\n"
           "--2026-12-02 15:40:24--  http://h/a/?x=1\n2026-12-02 15:40:24 ERROR 404: Not Found.\n")
    assert parse_wget_errors(log) == {"http://h/tea.html": 500, "http://h/a/?x=1": 404}
    assert "a/index.html@x=1" in url_to_rel("http://h/a/?x=1")
    assert "%E6%97%A5.html" not in url_to_rel("http://h/%E6%97%A5.html") and "日.html" in url_to_rel(
        "http://h/%E6%97%A5.html")


def _trap_site(tmp_path: Path, url: str, extra: str) -> object:
    return load_config(write_config(tmp_path, config(tmp_path / "data", ("trap", f'start_urls = ["{url}/"]\n{extra}'))
                                    )).sites[0]


@pytest.mark.bad_input
def test_crawler_trap_is_bounded_by_depth_and_quota(tmp_path):
    trap = CalendarTrap()
    try:
        deep = mirror_site(_trap_site(tmp_path, trap.url, "max_depth = 3"), tmp_path / "m1", tmp_path / "l1")
        files = sorted(p.relative_to(tmp_path / "m1").as_posix() for p in (tmp_path / "m1").rglob("*") if p.is_file())
        assert len(files) <= 8 and "cal/2001/03/index.html" in files and "cal/2001/05/index.html" not in files
        assert deep.complete

        quota = mirror_site(_trap_site(tmp_path, trap.url, 'quota = "30k"'), tmp_path / "m2", tmp_path / "l2")
        count = sum(1 for p in (tmp_path / "m2").rglob("*") if p.is_file())
        assert 10 <= count <= 40
        assert "download quota (30k) exceeded; crawl incomplete" in quota.warnings and not quota.complete
    finally:
        trap.stop()


@pytest.mark.bad_input
def test_crawler_trap_is_bounded_by_max_pages(tmp_path):
    trap = CalendarTrap(delay=0.02)  # at most 50 pages a second: the cap is checked 5 times a second
    try:
        capped = mirror_site(_trap_site(tmp_path, trap.url, "max_pages = 12"), tmp_path / "m", tmp_path / "l")
    finally:
        trap.stop()
    pages = [p for p in (tmp_path / "m").rglob("*.html")]
    assert 12 <= len(pages) <= 40, len(pages)  # stopped soon after passing the cap
    assert not capped.complete
    assert any(w.startswith("stopped after 12 pages (max_pages)") for w in capped.warnings), capped.warnings


@pytest.mark.bad_input
def test_crawler_trap_cut_by_the_time_limit_is_reported_and_the_run_completes(tmp_path, harness):
    from flows.site import site_flow

    trap = CalendarTrap(delay=0.05)
    try:
        site = ("trap", f'start_urls = ["{trap.url}/"]\ntimeout_s = 3')
        cfg = write_config(tmp_path, config(tmp_path / "data", site))
        report = site_flow("trap", str(cfg))
    finally:
        trap.stop()
    layout = SiteLayout(tmp_path / "data", "trap")
    assert "wget stopped after 3s (time limit); crawl incomplete" in report["mirror_warnings"]
    assert "[!] Crawl: wget stopped after 3s (time limit)" in (layout.logs / "error.log").read_text(encoding="utf-8")
    assert 5 <= report["documents"] < 200 and report["failed"] == 0
    assert report["index"]["upserted"] == report["documents"]


# -- refresh correctness ---------------------------------------------------------------------------------

def test_page_changed_back_is_not_served_from_a_stale_cache(tmp_path, harness):
    from flows.site import site_flow

    src = tmp_path / "site"
    src.mkdir()
    page = src / "p.html"
    a = "<html><head><title>A</title></head><body><p>" + "版Aの本文です。" * 40 + "</p></body></html>"
    b = a.replace("版A", "版B")
    page.write_text(a, encoding="utf-8")
    cfg = write_config(tmp_path, config(tmp_path / "data", ("back", f'local_path = "{src}"')))
    layout = SiteLayout(tmp_path / "data", "back")
    site_flow("back", str(cfg))
    site_flow("back", str(cfg))  # unchanged: this run's batch result is cached under A's key
    for text, now, then, mtime in ((b, "版B", "版A", 2_000_000_000), (a, "版A", "版B", 2_000_000_100)):
        page.write_text(text, encoding="utf-8")
        os.utime(page, (mtime, mtime))
        report = site_flow("back", str(cfg))
        assert report["changed"] == 1, report
        _, body = read_doc(layout.corpus / "p.md")
        assert now in body and then not in body  # back to A: not B's document from A's old cache entry
