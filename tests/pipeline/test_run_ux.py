"""What a person sees while `siterag run` works: the real CLI in a subprocess, real wget against loopback servers.

A crawl failure is one line with its cause, one failing site never stops the others, progress shows as plain
lines when stdout is not a terminal, Ctrl-C is one line and exit 130 — and never a traceback."""

from __future__ import annotations

import http.server
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from siterag.acquire.mirror import error_warnings, failure_cause
from siterag.layout import SiteLayout
from siterag.pipeline import corpus_docs
from tests.conftest import free_port, write_config
from tests.fake_servers import FakeLLM


def siterag(tmp_path: Path, cfg: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect-home")}
    env.pop("PREFECT_LOGGING_LEVEL", None)
    return subprocess.run([sys.executable, "-m", "siterag.cli", "--config", str(cfg), "run", *args], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=timeout)


def no_traceback(proc: subprocess.CompletedProcess) -> None:
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out and "Crash detected" not in out, out[-4000:]


def site_block(name: str, url: str, extra: str = "") -> str:
    return f'[[site]]\nname = "{name}"\nstart_urls = ["{url}/index.html"]\nextract_mode = "heuristic"\n{extra}\n'


@pytest.mark.bad_input
def test_a_site_whose_host_is_down_is_one_line_and_the_next_site_is_archived(tmp_path, served_example):
    www, url = served_example
    index = www / "index.html"  # a broken image link: a file gone, not a page gone
    index.write_bytes(index.read_bytes().replace(b"</body>", b'<img src="missing.gif"></body>'))
    down = f"http://127.0.0.1:{free_port()}"
    cfg = write_config(tmp_path, '[defaults]\ndata_dir = "data"\nbatch_size = 2\n' + site_block("down", down)
                       + site_block("good", url).replace('/index.html"]', '/index.html", "' + url + '/frames.html"]'))
    proc = siterag(tmp_path, cfg)
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    # one line, with the cause wget logged and where the details are
    assert proc.stderr.splitlines() == [
        f"siterag: error: down: wget fetched nothing from {down}/index.html: Connection refused "
        "(see data/logs/down/wget.log)"], proc.stderr[-3000:]
    # the good site after it was archived
    assert len(corpus_docs(SiteLayout(tmp_path / "data", "good"))) == 4
    summary = proc.stdout[proc.stdout.index("== summary"):].splitlines()
    assert summary[1].startswith("   down: failed: wget fetched nothing") and "Connection refused" in summary[1]
    assert summary[2] == "   good: ok"
    # progress, as plain lines (stdout is a pipe): pages of extract+enrich, documents of the index
    assert re.search(r"^   good extract\+enrich: 0/6 pages \(0%\)$", proc.stdout, re.M), proc.stdout
    assert re.search(r"^   good extract\+enrich: 6/6 pages \(100%\), [\d.]+ pages/s, \d+s$", proc.stdout, re.M)
    assert re.search(r"^   good extract\+enrich: 3/6 pages \(50%\), .*ETA \d+s$", proc.stdout, re.M)
    assert re.search(r"^   good index: 4/4 docs \(100%\)", proc.stdout, re.M)
    assert re.search(r"^   good enrich: 4/4 docs \(100%\)", proc.stdout, re.M)
    assert "\x1b[" not in proc.stdout  # no terminal control codes in a pipe
    # the crawl's warnings: printed once, the missing image is not a "page gone"
    warnings = [line for line in proc.stdout.splitlines() if "warning:" in line]
    assert warnings == [f"   warning: 1 linked file that is not a page is missing (HTTP 404/410: images, downloads, "
                        f"...), e.g. {url}/missing.gif (see wget.log)"], proc.stdout


@pytest.mark.bad_input
def test_wget_failure_causes_and_non_page_404s(tmp_path):
    log = ("--2026-12-03 08:16:49--  http://nosuch.invalid/\n"
           "Resolving nosuch.invalid (nosuch.invalid)... failed: Name or service not known.\n"
           "wget: unable to resolve host address ‘nosuch.invalid’\n")
    assert failure_cause(log, 4) == ("http://nosuch.invalid/", "unable to resolve host address nosuch.invalid",
                                     False)
    assert failure_cause("wget: unrecognized option '--foo'\nUsage: wget [OPTION]... [URL]...\n", 2) == (
        "", "unrecognized option '--foo'", False)
    assert failure_cause("--2026-12-03 08:16:49--  http://h/\n2026-12-03 08:16:49 ERROR 503: Busy.\n", 8) == (
        "http://h/", "HTTP 503 Busy", True)  # a server error may heal: retried
    assert failure_cause("", -1, 30)[2] is True
    (tmp_path / "e.css").write_text("a { }", encoding="utf-8")  # an earlier crawl's copy
    lines = error_warnings({"http://h/a.html": 404, "http://h/b/": 410, "http://h/c.gif": 404, "http://h/d.ZIP": 404,
                            "http://h/e.css": 500, "http://h/f.html": 503}, dest=tmp_path)
    assert lines == ["HTTP 404 for http://h/a.html (page gone)", "HTTP 410 for http://h/b/ (page gone)",
                     "HTTP 500 for http://h/e.css (kept the earlier copy)",
                     "HTTP 503 for http://h/f.html (not archived: no earlier copy)",
                     "2 linked files that are not pages are missing (HTTP 404/410: images, downloads, ...), e.g. "
                     "http://h/c.gif (see wget.log)"]


class _Missing(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_error(404)


@pytest.mark.bad_input
def test_a_404_start_page_is_one_line_and_not_retried(tmp_path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Missing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    cfg = write_config(tmp_path, '[defaults]\ndata_dir = "data"\n' + site_block("gone", url))
    try:
        proc = siterag(tmp_path, cfg)
    finally:
        server.shutdown()
    no_traceback(proc)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        f"siterag: error: gone: wget fetched nothing from {url}/index.html: HTTP 404 Not Found "
        "(see data/logs/gone/wget.log)"], proc.stderr[-3000:]
    assert _Missing.hits == ["/index.html"]  # a 404 cannot heal: the mirror task was not retried
    assert "== summary" not in proc.stdout  # one site: its error line is the summary


@pytest.mark.bad_input
def test_ctrl_c_during_extraction_is_one_line_exit_130_and_a_rerun_completes(tmp_path, served_example):
    _, url = served_example
    llm = FakeLLM(delay=0.4)  # each LLM answer takes 0.4 s: Ctrl-C lands while pages are being extracted
    cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "data"\nbatch_size = 2\n[llm]\nbase_url = "{llm.url}"\n'
                                 f'model = "fake"\ntimeout = 30\nretries = 1\n'
                       + site_block("example", url).replace('"heuristic"', '"llm"')
                       .replace('/index.html"]', '/index.html", "' + url + '/frames.html"]'))
    layout = SiteLayout(tmp_path / "data", "example")
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect-home")}
    env.pop("PREFECT_LOGGING_LEVEL", None)
    cmd = [sys.executable, "-m", "siterag.cli", "--config", str(cfg), "run"]
    try:
        proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            if layout.corpus.exists() and corpus_docs(layout):
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole foreground group
        pressed = time.monotonic()
        out, err = proc.communicate(timeout=120)
        # Prompt: the stopped temporary server is not retried with back-off (that took 80-120 s)
        assert time.monotonic() - pressed < 30, f"exit took {time.monotonic() - pressed:.0f} s"
        assert proc.returncode == 130, out[-3000:] + err[-3000:]
        assert err.splitlines() == [
            "siterag: error: interrupted; rerun the same command to continue (nothing done is lost)"], err[-4000:]
        assert "Traceback" not in out + err and "Crash detected" not in out + err
        kept = len(corpus_docs(layout))
        assert 1 <= kept < 4  # stopped mid-extraction, the pages done are kept

        rerun = siterag(tmp_path, cfg)
    finally:
        llm.stop()
    no_traceback(rerun)
    assert rerun.returncode == 0, rerun.stdout[-3000:] + rerun.stderr[-3000:]
    assert rerun.stderr == ""
    assert "failed 0" in rerun.stdout and len(corpus_docs(layout)) == 4
