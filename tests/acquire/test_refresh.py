"""A refresh costs what changed: real wget against a loopback server that records every request it answers.

An unchanged page is asked with If-Modified-Since and answered 304 (no body); a page changed deep in the site comes
back 200, is saved and its new link followed; a page gone answers 404 and leaves the crawl's files; an edit in the
same second as the copy we hold is still found; a server that ignores If-Modified-Since still gets the change."""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from siterag.acquire.mirror import CRAWL_FILE, mirror_site, wget_args
from siterag.config import load_config
from siterag.layout import SiteLayout
from tests.conftest import write_config

pytestmark = pytest.mark.skipif(shutil.which("wget") is None, reason="wget is not installed")
OLD = 1_500_000_000  # a Last-Modified long before any crawl


class Recorder(http.server.SimpleHTTPRequestHandler):
    """http.server (answers If-Modified-Since with 304) that records (method, path, status, If-Modified-Since)."""

    seen: list[tuple[str, str, int, str | None]]
    ignore_ims = False

    def log_message(self, *args: object) -> None:
        pass

    def parse_request(self) -> bool:
        ok = super().parse_request()
        if ok and self.ignore_ims and "If-Modified-Since" in self.headers:
            del self.headers["If-Modified-Since"]  # a server that always answers in full
        return ok

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        self.seen.append((self.command, self.path, int(getattr(code, "value", code)),
                          self.headers.get("If-Modified-Since")))


@pytest.fixture
def site(tmp_path: Path):
    """A small site with a page three folders deep, served by a Recorder; yields (www, url, requests, handler)."""
    www = tmp_path / "www"
    pages = {
        "index.html": '<html><body><a href="a/index.html">a</a> <img src="logo.gif"></body></html>',
        "a/index.html": '<html><body><a href="b/c/deep.html">deep</a> <a href="other.html">o</a></body></html>',
        "a/other.html": "<html><body><p>other page</p></body></html>",
        "a/b/c/deep.html": "<html><body><p>deep page, first version</p></body></html>",
    }
    for rel, text in pages.items():
        (www / rel).parent.mkdir(parents=True, exist_ok=True)
        (www / rel).write_text(text, encoding="utf-8")
    (www / "logo.gif").write_bytes(b"GIF89a" + bytes(40))
    for path in www.rglob("*"):
        os.utime(path, (OLD, OLD))
    requests: list = []
    handler = type("Handler", (Recorder,), {"seen": requests})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(www)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield www, f"http://127.0.0.1:{server.server_address[1]}", requests, handler
    server.shutdown()


def crawl(tmp_path: Path, url: str):  # noqa: ANN201
    cfg = load_config(write_config(tmp_path, f'[defaults]\ndata_dir = "data"\n[[site]]\nname = "s"\n'
                                               f'start_urls = ["{url}/index.html"]\n'))
    layout = SiteLayout(cfg.data_dir, "s")
    return mirror_site(cfg.sites[0], layout.mirror, layout.logs), layout


def by_path(requests: list) -> dict[str, list[tuple[str, int]]]:
    out: dict[str, list[tuple[str, int]]] = {}
    for method, path, status, _ in requests:
        out.setdefault(path, []).append((method, status))
    return out


def edit(path: Path, text: str, mtime: float) -> None:
    path.write_text(text, encoding="utf-8")
    os.utime(path, (mtime, mtime))


def test_unchanged_refresh_is_304_and_a_changed_deep_page_is_fetched_with_its_new_link(tmp_path, site):
    www, url, requests, _ = site
    first, layout = crawl(tmp_path, url)
    files = {"index.html", "logo.gif", "a/index.html", "a/other.html", "a/b/c/deep.html"}
    assert first.seen == files and first.complete
    assert all(status == 200 and ims is None for _, _, status, ims in requests)  # first crawl: plain GETs
    assert set(json.loads((layout.logs / CRAWL_FILE).read_text())["urls"]) >= {f"{url}/{f}" for f in files}

    requests.clear()
    second, _ = crawl(tmp_path, url)
    assert second.seen == files and second.complete  # nothing lost: every file counts as reached
    seen = by_path(requests)
    assert set(seen) == {f"/{f}" for f in files}
    assert all(r == [("GET", 304)] for r in seen.values()), seen  # one conditional GET each, no body, no HEAD
    assert all(ims for *_, ims in requests)

    # A page three folders down changes and links a new page; nothing else changes.
    edit(www / "a/b/c/deep.html", '<p>deep page, second version</p><a href="new.html">new</a>', OLD + 100)
    edit(www / "a/b/c/new.html", "<p>a new page</p>", OLD + 100)
    requests.clear()
    third, _ = crawl(tmp_path, url)
    seen = by_path(requests)
    assert seen["/a/b/c/deep.html"] == [("GET", 200)] and seen["/a/b/c/new.html"] == [("GET", 200)]
    assert all(r == [("GET", 304)] for p, r in seen.items() if p not in ("/a/b/c/deep.html", "/a/b/c/new.html"))
    assert "second version" in (layout.mirror / "a/b/c/deep.html").read_text()
    assert third.seen == files | {"a/b/c/new.html"} and third.complete


def test_a_page_gone_answers_404_and_leaves_the_crawl(tmp_path, site):
    www, url, requests, _ = site
    crawl(tmp_path, url)
    (www / "a/other.html").unlink()
    requests.clear()
    again, layout = crawl(tmp_path, url)
    assert by_path(requests)["/a/other.html"] == [("GET", 404)]
    assert "a/other.html" not in again.seen and again.complete
    assert (layout.mirror / "a/other.html").exists()  # the mirror keeps its copy; the pipeline drops the page


def test_an_edit_in_the_same_second_as_our_copy_is_found(tmp_path, site):
    """Last-Modified has one-second steps: a page changed twice within the second we copied it keeps its date. The
    crawl sets back the time of such fresh copies, so the next refresh fetches them once more."""
    www, url, requests, _ = site
    same = time.time() + 30  # a Last-Modified not older than the crawl (a clock ahead, or an edit right now)
    edit(www / "a/other.html", "<p>other page, version 1</p>", same)
    crawl(tmp_path, url)
    edit(www / "a/other.html", "<p>other page, version 2</p>", same)  # same size, same second
    requests.clear()
    _, layout = crawl(tmp_path, url)
    assert by_path(requests)["/a/other.html"] == [("GET", 200)]
    assert "version 2" in (layout.mirror / "a/other.html").read_text()
    assert by_path(requests)["/index.html"] == [("GET", 304)]  # only the fresh copy is asked again


def test_a_file_an_earlier_crawl_saved_under_a_second_name_still_counts(tmp_path, site):
    """wget can save one URL under two names (a link it decoded from Shift_JIS: ‾ for ~, then the raw bytes); a
    refresh asks the URL once and both files count as reached, not one of them as gone."""
    www, url, requests, _ = site
    _, layout = crawl(tmp_path, url)
    shutil.copy2(layout.mirror / "a/other.html", layout.mirror / "a/other-2.html")
    urls = json.loads((layout.logs / "urls.json").read_text(encoding="utf-8"))
    (layout.logs / "urls.json").write_text(json.dumps({**urls, "a/other-2.html": f"{url}/a/other.html"}))
    requests.clear()
    again, _ = crawl(tmp_path, url)
    assert by_path(requests)["/a/other.html"] == [("GET", 304)] and "a/other-2.html" in again.seen


def test_a_server_that_ignores_if_modified_since_still_gets_changes_found(tmp_path, site):
    """The fallback: the server answers 200 to every request; wget compares its Last-Modified and length with the
    copy and stops reading an unchanged file; a changed one is downloaded (the later stages skip unchanged pages by
    their content hash). The crawl's requests remain: it costs a request per known URL."""
    www, url, requests, handler = site
    handler.ignore_ims = True
    crawl(tmp_path, url)
    edit(www / "a/b/c/deep.html", "<p>deep page, second version, longer</p>", OLD + 100)
    requests.clear()
    again, layout = crawl(tmp_path, url)
    assert {(method, status) for method, _, status, _ in requests} == {("GET", 200)}  # one request a file
    assert "second version" in (layout.mirror / "a/b/c/deep.html").read_text()
    assert again.seen >= {"index.html", "a/index.html", "a/other.html", "a/b/c/deep.html"} and again.complete
    # Remembered: the next refreshes (until the weekly full crawl tries again) are one full crawl, HEAD for each
    # file wget has, its pages read for links once, not from each listed URL.
    assert json.loads((layout.logs / CRAWL_FILE).read_text())["ims_ignored_at"]
    requests.clear()
    third, _ = crawl(tmp_path, url)
    assert {m for m, *_ in requests} == {"HEAD"} and third.seen == again.seen


def test_a_full_crawl_when_the_list_is_missing_or_old(tmp_path, site):
    """No list (a mirror from an older siterag) or a week since the last full crawl: every link is followed again
    (HEAD for each file wget has, its local copy read for links), never a 304 that would stop the crawl."""
    www, url, requests, _ = site
    first, layout = crawl(tmp_path, url)
    (layout.logs / CRAWL_FILE).unlink()
    requests.clear()
    again, _ = crawl(tmp_path, url)
    assert again.seen == first.seen and {m for m, *_ in requests} == {"HEAD"}
    saved = json.loads((layout.logs / CRAWL_FILE).read_text())
    saved["full_crawl_at"] -= 8 * 86400
    (layout.logs / CRAWL_FILE).write_text(json.dumps(saved))
    requests.clear()
    third, _ = crawl(tmp_path, url)
    assert third.seen == first.seen and {m for m, *_ in requests} == {"HEAD"}
    args = wget_args(load_config(tmp_path / "sites.toml").sites[0], tmp_path / "m", if_modified_since=True)
    assert "--if-modified-since" in args and "--no-if-modified-since" not in args and "-k" not in args


class Health(http.server.BaseHTTPRequestHandler):
    """A Prefect server's health check, and nothing else."""

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        body = b"true" if self.path == "/api/health" else b"{}"
        self.send_response(200 if self.path == "/api/health" else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_siterag_run_uses_a_prefect_server_already_running(tmp_path, monkeypatch):
    """`siterag run` skips the temporary Prefect server (15-30 s) when one answers on 127.0.0.1:4200; a URL the
    environment or the Prefect profile sets is left alone; nothing answering: Prefect starts its temporary one."""
    from siterag.prefect_status import use_running_server

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    local = f"http://127.0.0.1:{server.server_address[1]}/api"
    for name in ("PREFECT_API_URL", "PREFECT_PROFILE"):  # set, then removed: the teardown puts back what was
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect"))
    try:
        assert use_running_server(local) == local and os.environ["PREFECT_API_URL"] == local
        monkeypatch.setenv("PREFECT_API_URL", "http://10.0.0.9:4200/api")
        assert use_running_server(local) == "http://10.0.0.9:4200/api"
        monkeypatch.delenv("PREFECT_API_URL")
        (tmp_path / "prefect").mkdir()
        (tmp_path / "prefect" / "profiles.toml").write_text(
            'active = "team"\n[profiles.team]\nPREFECT_API_URL = "http://prefect.example:4200/api"\n')
        assert use_running_server(local) == "http://prefect.example:4200/api" and "PREFECT_API_URL" not in os.environ
    finally:
        server.shutdown()
        server.server_close()
    (tmp_path / "prefect" / "profiles.toml").unlink()
    assert use_running_server(local) == "" and "PREFECT_API_URL" not in os.environ  # nothing listens there now


def test_site_flow_redoes_only_the_changed_page(tmp_path):
    """The whole flow: an unchanged refresh asks every file with If-Modified-Since (all 304) and redoes nothing;
    after an edit of the page one folder down, only that page is fetched (200) and done again."""
    from prefect.testing.utilities import prefect_test_harness

    from flows.site import site_flow
    from tests.conftest import EXAMPLE_SITE

    www = tmp_path / "www"
    shutil.copytree(EXAMPLE_SITE, www)
    requests: list = []
    handler = type("Handler", (Recorder,), {"seen": requests})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(www)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "{tmp_path / "data"}"\n[[site]]\nname = "example"\n'
                                 f'start_urls = ["{url}/index.html", "{url}/frames.html"]\n'
                                 'extract_mode = "heuristic"\n')
    diary = www / "diary" / "2003-05-20.html"
    try:
        with prefect_test_harness(server_startup_timeout=120):
            first = site_flow("example", str(cfg))
            assert first["new"] == 4
            requests.clear()
            second = site_flow("example", str(cfg))
            assert second["new"] == second["changed"] == 0 and second["unchanged"] == 4
            assert second["index"]["embed_calls"] == 0
            assert {(m, s) for m, _, s, _ in requests} == {("GET", 304)}, requests

            edit(diary, diary.read_text(encoding="iso-2022-jp").replace(
                "</body>", "<p>Refresh marker: a second visit to the tea house.</p></body>"), time.time() + 60)
            requests.clear()
            third = site_flow("example", str(cfg))
    finally:
        server.shutdown()
    assert third["changed"] == 1 and third["unchanged"] == 3 and third["new"] == 0
    assert third["index"]["upserted"] == 1
    assert "second visit to the tea house" in (tmp_path / "data/corpus/example/diary/2003-05-20.md").read_text()
    seen = by_path(requests)
    assert seen.pop("/diary/2003-05-20.html") == [("GET", 200)]
    assert all(r == [("GET", 304)] for r in seen.values()), seen
