"""`siterag web` in a real browser: Debian's chromium (apt) driven by Playwright, against the example site archived
by a real `siterag run` (a local_path copy, one page of it given a script, a remote image and a link out).

Searches as a person does (suggestions, Enter, a facet and Back), opens a reader page and the original page
beside it, and checks that the archived page's script did not run and that no request left 127.0.0.1.
Skipped without /usr/bin/chromium or the playwright package. SITERAG_WEB_SCREENSHOTS=<folder> keeps screenshots."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.conftest import EXAMPLE_SITE, ROOT, write_config

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
# What the archived page tries: run a script (it would ask for /script-ran, a request this test would see), fetch
# from the live web, show a remote image, link out, and refresh to the live web.
TRAPS = (b'<meta http-equiv="refresh" content="30; url=http://203.0.113.9/refresh">'
         b'<script>document.body.setAttribute("data-ran", "yes"); new Image().src = "/script-ran";'
         b'fetch("http://203.0.113.9/beacon")</script><img src="http://203.0.113.9/remote.png" alt="remote">'
         b'<a href="http://www.example.org/outside.html">outside</a><img onerror="new Image().src=\'/handler-ran\'"'
         b' src="nothing.gif"></body>')


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    """The example site archived by `siterag run`, served by `siterag web`; yields its base URL."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api")
    tmp = tmp_path_factory.mktemp("web")
    www = tmp / "www"
    shutil.copytree(EXAMPLE_SITE, www)
    tea = www / "tea.html"  # EUC-JP: the traps are ASCII
    tea.write_bytes(tea.read_bytes().replace(b"</body>", TRAPS))
    cfg = write_config(tmp, f'[defaults]\ndata_dir = "data"\n[[site]]\nname = "example"\nlocal_path = "{www}"\n')
    env = {**os.environ, "PREFECT_HOME": str(tmp / "prefect-home"), "SITERAG_SEARCH_DAEMON": "off"}
    run = subprocess.run([sys.executable, "-m", "siterag.cli", "--config", str(cfg), "run"], cwd=tmp, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "siterag.cli", "--config", str(cfg), "web", "--port", str(port)],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(base + "/", timeout=1).read()
                break
            except OSError:
                assert server.poll() is None, server.stdout.read()
                time.sleep(0.2)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture(scope="module")
def browser(web):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


def shoot(page, name: str) -> None:  # noqa: ANN001
    folder = os.environ.get("SITERAG_WEB_SCREENSHOTS")
    if folder:
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def test_search_read_and_the_original_page_without_a_script_or_a_request_off_the_machine(web, browser):
    context = browser.new_context(viewport={"width": 1200, "height": 820})
    requests, refused = [], []

    def guard(route) -> None:  # noqa: ANN001 - every request of every frame: anything not to 127.0.0.1 is refused
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    page = context.new_page()
    page.on("request", lambda r: requests.append(r.url))

    # search as you type: suggestions (titles first), then Enter for the hybrid search
    page.goto(web + "/")
    page.get_by_role("combobox").press_sequentially("お茶の", delay=40)
    option = page.get_by_role("option").first
    option.wait_for()
    assert "お茶の話" in option.inner_text()
    page.keyboard.press("Escape")
    page.get_by_role("combobox").fill("お茶の産地")
    page.keyboard.press("Enter")
    page.wait_for_url("**/search?q=*")
    first = page.locator(".hit").first
    assert first.locator("h2").inner_text() == "お茶の話"
    assert "お茶" in first.locator("mark").first.inner_text()
    assert first.locator(".match").inner_text() in ("matched by words", "matched by meaning")
    count = page.locator("#count").inner_text()
    shoot(page, "web-search")

    # a facet narrows the hits and goes into the URL; Back restores both
    total = page.locator(".hit").count()
    facet = next(a for a in page.locator("[data-facet] a").all() if int(a.locator(".n").inner_text()) < total)
    narrowed = int(facet.locator(".n").inner_text())
    key = facet.evaluate("a => a.closest('[data-facet]').dataset.facet")
    facet.click()
    page.wait_for_url(f"**{key}=*")
    assert page.locator(".hit").count() == narrowed and page.locator("#count").inner_text() != count
    page.go_back()
    page.wait_for_url(lambda url: f"{key}=" not in url)
    assert page.locator("#count").inner_text() == count and page.locator(".hit").count() == total

    # the reader: front matter for a person, links between documents resolved to reader pages
    page.locator(".hit h2 a", has_text="お茶の話").click()
    page.wait_for_url("**/read/example/tea.html")
    assert page.locator("#doc-title").inner_text() == "お茶の話"
    assert page.locator("article.doc").get_attribute("lang") == "ja"
    assert page.locator(".tags a").count() > 0
    hrefs = page.locator(".body a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert "/read/example/links.html" in hrefs and all(h.startswith(("/read/", "/raw/")) for h in hrefs), hrefs
    shoot(page, "web-reader")

    # the original page beside it: Japanese text intact, internal links kept in the archive, nothing run or fetched
    page.get_by_role("link", name="Original page, side by side").click()
    page.wait_for_url("**/original/example/tea.html")
    frame = page.frame_locator("iframe")
    body = frame.locator("body")
    body.locator("h1").wait_for()
    text = body.inner_text()
    assert "お茶の産地について" in text and "\ufffd" not in text
    assert frame.locator("a", has_text="日記").get_attribute("href") == "/raw/example/diary/2003-05-20.html"
    assert frame.locator("a", has_text="outside").get_attribute("href") is None
    assert body.get_attribute("data-ran") is None
    page.wait_for_timeout(1500)  # time for a script, a handler or a beacon to have tried
    shoot(page, "web-original")
    hosts = {urlsplit(u).hostname for u in requests}
    assert hosts == {"127.0.0.1"} and refused == [], (hosts, refused)
    paths = {unquote(urlsplit(u).path) for u in requests}
    assert "/script-ran" not in paths and "/handler-ran" not in paths
    assert "/raw/example/tea.html" in paths and "/raw/example/img/counter.gif" in paths  # the page and its image

    # opened on its own, the archived page is just as inert (the CSP's sandbox)
    page.goto(web + "/raw/example/tea.html")
    assert page.locator("body").get_attribute("data-ran") is None
    page.wait_for_timeout(500)
    assert refused == [] and "/script-ran" not in {urlsplit(u).path for u in requests}
    context.close()


def test_375_px_wide_without_horizontal_scroll_and_keyboard_only(web, browser):
    context = browser.new_context(viewport={"width": 375, "height": 740})
    page = context.new_page()
    for url in ("/", "/search?q=お茶", "/read/example/tea.html", "/original/example/tea.html", "/time/example"):
        page.goto(web + url)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, (url, width)
    page.goto(web + "/")
    page.keyboard.press("Tab")  # the skip link, then the search box
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.type("お茶の産地")
    page.keyboard.press("Enter")
    page.wait_for_url("**/search?q=*")
    for _ in range(40):  # Tab to the first hit and open it with Enter
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.closest('.hit h2') !== null"):
            break
    page.keyboard.press("Enter")
    page.wait_for_url("**/read/example/**")
    context.close()
