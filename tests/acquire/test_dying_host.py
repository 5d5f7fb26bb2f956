"""Nothing shrinks (issue 28): a dying host's answer cut short, or an empty 200, never replaces the good copy.

Real wget against a loopback server that sends a full Content-Length and closes early, or answers 200 with no
body; the wget log lines that say so are parsed by siterag.acquire.mirror.parse_saves."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from siterag.acquire.mirror import mirror_site, parse_saves
from siterag.config import load_config
from siterag.layout import SiteLayout
from tests.acquire.test_refresh import crawl
from tests.conftest import write_config

pytestmark = pytest.mark.skipif(shutil.which("wget") is None, reason="wget is not installed")
GOOD = ("<html><body><h1>Diary</h1>" + "<p>an entry of the diary, kept since 1999.</p>" * 400
        + "</body></html>").encode()


class Dying(http.server.SimpleHTTPRequestHandler):
    """Serves a folder; paths in `faults` answer `cut` (the whole Content-Length, a quarter of the body, then the
    connection closes) or `empty` (200 with no body)."""

    faults: dict[str, str]

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        fault = self.faults.get(self.path.lstrip("/"))
        if not fault:
            super().do_GET()
            return
        body = b"" if fault == "empty" else GOOD
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Last-Modified", self.date_time_string(time.time()))
        self.end_headers()
        self.wfile.write(body[:len(body) // 4])
        self.wfile.flush()
        self.close_connection = True


@pytest.fixture
def host(tmp_path: Path):
    www = tmp_path / "www"
    www.mkdir()
    (www / "index.html").write_text('<html><body><a href="diary.html">diary</a></body></html>', encoding="utf-8")
    (www / "diary.html").write_bytes(GOOD)
    for path in www.iterdir():
        os.utime(path, (1_500_000_000, 1_500_000_000))
    faults: dict[str, str] = {}
    handler = type("Handler", (Dying,), {"faults": faults})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(www)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", faults
    server.shutdown()
    server.server_close()


@pytest.mark.bad_input
@pytest.mark.parametrize("fault", ["cut", "empty"])
def test_a_cut_or_empty_answer_on_refresh_keeps_the_good_copy(tmp_path, host, fault):
    url, faults = host
    first, layout = crawl(tmp_path, url)
    assert (layout.mirror / "diary.html").read_bytes() == GOOD
    faults["diary.html"] = fault
    again, _ = crawl(tmp_path, url)
    assert (layout.mirror / "diary.html").read_bytes() == GOOD
    assert "diary.html" in again.seen
    said = [w for w in again.warnings if "diary.html" in w]
    assert said and "kept the earlier copy" in said[0], again.warnings
    assert ("cut short" if fault == "cut" else "empty page") in said[0]


@pytest.mark.bad_input
def test_a_first_download_cut_short_is_said_to_be_partial(tmp_path, host):
    url, faults = host
    faults["diary.html"] = "cut"
    result, layout = crawl(tmp_path, url)
    said = [w for w in result.warnings if "diary.html" in w]
    assert said and "cut short" in said[0] and "part that came" in said[0], result.warnings


LOG = """--2026-12-04 17:20:45--  http://h/index.html
Connecting to h... connected.
HTTP request sent, awaiting response... 200 OK
Length: 18026 (18K) [text/html]
Saving to: ‘/d/index.html’

2026-12-04 17:20:45 (306 MB/s) - Connection closed at byte 4538. Retrying.

--2026-12-04 17:20:45--  (try: 2)  http://h/index.html
HTTP request sent, awaiting response... 200 OK
Length: 18026 (18K) [text/html]
Saving to: ‘/d/index.html’

2026-12-04 17:20:45 (400 MB/s) - Connection closed at byte 4538. Giving up.

--2026-12-04 17:20:46--  http://h/a.html
Length: 10 [text/html]
Saving to: ‘/d/a.html’

2026-12-04 17:20:46 (1 MB/s) - ‘/d/a.html’ saved [10/10]

--2026-12-04 17:20:46--  http://h/b.html
Length: unspecified [text/html]
Saving to: ‘/d/b.html’

2026-12-04 17:20:46 (1 MB/s) - ‘/d/b.html’ saved [7]

--2026-12-04 17:20:47--  http://h/c.html
Length: 900 [text/html]
Saving to: ‘/d/c.html’

     0K
"""


def test_wget_log_says_which_saves_are_whole():
    saves = {s.rel: s.cut for s in parse_saves(LOG, Path("/d"))}
    assert saves == {"index.html": "4538 of 18026 bytes", "a.html": "", "b.html": "",
                     "c.html": "the crawl stopped while it was saved"}


class Bomb(http.server.BaseHTTPRequestHandler):
    """/index.html links to a gzip answer that decodes to 8 MiB of spaces (8 KiB on the wire)."""

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        import gzip

        if self.path.endswith("bomb.html"):
            body, extra = gzip.compress(b"<html>" + b" " * (8 << 20), 9), [("Content-Encoding", "gzip")]
        else:
            body, extra = b'<html><body><a href="bomb.html">b</a> <p>top page</p></body></html>', []
        self.send_response(200)
        for name, value in [("Content-Type", "text/html"), ("Content-Length", str(len(body))), *extra]:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


@pytest.mark.bad_input
def test_a_decompression_bomb_is_stopped_at_the_file_size_limit(tmp_path, monkeypatch):
    from siterag.acquire import mirror

    monkeypatch.setattr(mirror, "MIN_FILE_LIMIT", 1 << 20)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Bomb)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        cfg = load_config(write_config(tmp_path, '[defaults]\ndata_dir = "data"\n[[site]]\nname = "s"\n'
                                                 f'start_urls = ["http://127.0.0.1:{server.server_address[1]}'
                                                 '/index.html"]\nquota = "100k"\n'))
        layout = SiteLayout(cfg.data_dir, "s")
        result = mirror_site(cfg.sites[0], layout.mirror, layout.logs)
    finally:
        server.shutdown()
        server.server_close()
    assert max(p.stat().st_size for p in layout.mirror.rglob("*") if p.is_file()) <= 1 << 20
    assert not (layout.mirror / "bomb.html").exists()
    assert any("bomb.html" in w and "size limit" in w for w in result.warnings), result.warnings
    assert (layout.mirror / "index.html").is_file()


def test_file_size_limit_follows_the_quota():
    from siterag.acquire.mirror import MIN_FILE_LIMIT, max_file_bytes

    assert max_file_bytes("200m") == 800 << 20
    assert max_file_bytes("1m") == MIN_FILE_LIMIT
    assert max_file_bytes("inf") is None and max_file_bytes("0") is None


class Loop(http.server.BaseHTTPRequestHandler):
    """/index.html is a page; /a and /b redirect to each other for ever."""

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path in ("/a", "/b"):
            self.send_response(302)
            self.send_header("Location", "/b" if self.path == "/a" else "/a")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = b"<html><body><p>the top page of the site, with words.</p></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.mark.bad_input
def test_a_start_url_in_a_redirect_loop_is_one_warning(tmp_path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Loop)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        cfg = load_config(write_config(tmp_path, '[defaults]\ndata_dir = "data"\n[[site]]\nname = "s"\n'
                                                 f'start_urls = ["{base}/index.html", "{base}/a"]\n'))
        layout = SiteLayout(cfg.data_dir, "s")
        result = mirror_site(cfg.sites[0], layout.mirror, layout.logs)
    finally:
        server.shutdown()
        server.server_close()
    assert (layout.mirror / "index.html").is_file()
    said = [w for w in result.warnings if w.startswith(f"start URL {base}/a ")]
    assert said and "redirect loop" in said[0], result.warnings
    assert not any(w.startswith(f"start URL {base}/index.html") for w in result.warnings)


@pytest.mark.bad_input
def test_a_page_that_answers_500_on_the_first_run_makes_the_run_exit_1(tmp_path):
    """Issue 28: 500s gave exit 0. A page that could not be fetched and has no earlier copy is a page that
    failed: the run says so and exits 1 (a page gone, 404, is not a failure)."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT
    from tests.fake_servers import FlakySite

    www = tmp_path / "www"
    www.mkdir()
    (www / "index.html").write_text('<html><body><p>The top page of a small site, with its own words.</p>'
                                    '<a href="a.html">a</a></body></html>', encoding="utf-8")
    (www / "a.html").write_text("<html><body><p>A page the server fails to give.</p></body></html>",
                                encoding="utf-8")
    site = FlakySite(www)
    site.status["a.html"] = 500
    try:
        cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "data"\n[[site]]\nname = "s"\n'
                                     f'start_urls = ["{site.url}/index.html"]\n')
        done = subprocess.run([sys.executable, "-m", "siterag.cli", "--config", str(cfg), "run"], cwd=tmp_path,
                              env={**os.environ, "PREFECT_HOME": str(tmp_path / "ph"), "PYTHONPATH": str(ROOT)},
                              capture_output=True, text=True, timeout=600)
    finally:
        site.stop()
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert "a.html (not archived: no earlier copy)" in done.stdout
