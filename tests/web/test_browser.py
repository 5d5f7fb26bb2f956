"""`siterag web` in a real browser: Debian's chromium (apt) driven by Playwright, against the example site archived
by a real `siterag run` (a local_path copy, one page of it given a script, a remote image and a link out).

Searches as a person does (suggestions, Enter, a facet and Back), opens a reader page and the original page
beside it, and checks that the archived page's script did not run and that no request left 127.0.0.1.
Skipped without /usr/bin/chromium or the playwright package. SITERAG_WEB_SCREENSHOTS=<folder> keeps screenshots."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.conftest import EXAMPLE_SITE, ROOT, free_port, write_config

CHROMIUM = "/usr/bin/chromium"
# axe-core's browser file (npm's `axe-core`; scripts/setup puts it under .venv/axe): the accessibility scan is
# skipped without it. SITERAG_AXE=<path to axe.min.js> names another.
AXE = next((p for p in (Path(os.environ.get("SITERAG_AXE", "/nonexistent")),
                        ROOT / ".venv" / "axe" / "node_modules" / "axe-core" / "axe.min.js",
                        Path("/tmp/axe/node_modules/axe-core/axe.min.js")) if p.is_file()), None)
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
# What the archived page tries: run a script (it would ask for /script-ran, a request this test would see), fetch
# from the live web, show a remote image, link out, and refresh to the live web.
TRAPS = (b'<meta http-equiv="refresh" content="30; url=http://203.0.113.9/refresh">'
         b'<script>document.body.setAttribute("data-ran", "yes"); new Image().src = "/script-ran";'
         b'fetch("http://203.0.113.9/beacon")</script><img src="http://203.0.113.9/remote.png" alt="remote">'
         b'<a href="http://www.example.org/outside.html">outside</a><img onerror="new Image().src=\'/handler-ran\'"'
         b' src="nothing.gif"></body>')

# More of what old sites hold: a cp1252 page, a title holding HTML, a very long title, a page with no date.
LONG_TITLE = "An extraordinarily long page title " + "that goes on and on without a break " * 8 + "end"
FIXTURE = {
    "cafe.html": ('<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
                  "<title>Caf\u00e9 na\u00efve \u2014 \u201csmart quotes\u201d</title></head><body><h1>Caf\u00e9 "
                  "notes</h1><p>Last updated 12 March 2004. A cr\u00e8me br\u00fbl\u00e9e costs \u20ac 4 at the "
                  "caf\u00e9 near the station; the na\u00efve visitor pays more.</p></body></html>").encode("cp1252"),
    "html-title.html": (b"<html><head><meta charset='utf-8'><title>&lt;b&gt;Bold&lt;/b&gt; &lt;script&gt;"
                        b"alert(1)&lt;/script&gt; title</title></head><body><h1>A title holding HTML</h1><p>Written "
                        b"on 1 April 2005 about markup in titles, which must be shown as text.</p></body></html>"),
    "long-title.html": (f"<html><head><meta charset='utf-8'><title>{LONG_TITLE}</title></head><body><h1>"
                        f"{LONG_TITLE}</h1><p>Posted 2 February 2006. A page whose title is far too long for one "
                        "line on a phone.</p></body></html>").encode(),
    "undated.html": (b"<html><head><meta charset='utf-8'><title>Undated notes</title></head><body><h1>Undated "
                     b"notes</h1><p>Some notes about kettles and cups, written at no time anyone recorded.</p>"
                     b"</body></html>"),
}


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    """The example site archived by `siterag run`, served by `siterag web`; yields its base URL."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api")
    tmp = tmp_path_factory.mktemp("web")
    www = tmp / "www"
    shutil.copytree(EXAMPLE_SITE, www)
    tea = www / "tea.html"  # EUC-JP: the traps are ASCII; a link in the text (the side menu is the site's chrome)
    see_also = "<p>ほかのお茶のサイトは<a href=\"links.html\">リンク集</a>にまとめました。</p>".encode("euc-jp")
    tea.write_bytes(tea.read_bytes().replace(b"</td></tr></table><hr>", see_also + b"</td></tr></table><hr>")
                    .replace(b"</body>", TRAPS))
    for name, data in FIXTURE.items():  # index.html is Shift_JIS and tea.html EUC-JP already
        (www / name).write_bytes(data)
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
    marks = first.locator("mark").all_inner_texts()  # the query's words marked in the snippet, nothing else
    assert marks and all(m in "お茶の産地" for m in marks) and any("お茶" in m for m in marks), marks
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


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_or_critical_accessibility_violation(web, browser, scheme):
    """axe-core (WCAG 2 A/AA rules and best practices) on the search page, a reader page, the original page and
    the time page, in light and dark mode: no violation rated serious or critical."""
    if AXE is None:
        pytest.skip("axe-core's axe.min.js is missing (scripts/setup: npm install --prefix .venv/axe axe-core)")
    context = browser.new_context(viewport={"width": 1200, "height": 820}, color_scheme=scheme,
                                  bypass_csp=True)  # the app's CSP refuses the injected script, rightly
    page = context.new_page()
    found = {}
    for url in ("/search?q=お茶", "/search?q=お茶&site=example", "/read/example/tea.html",
                "/read/example/undated.html", "/original/example/tea.html", "/time/example",
                "/time/example?month=2003-05"):
        page.goto(web + url)
        if url == "/time/example":  # a row with a cell of each level (two digits: axe-core skips the contrast of one
            # character); the example site is too small to fill them
            page.evaluate("""() => document.querySelector('.histogram tbody').insertAdjacentHTML('beforeend',
                '<tr><th scope="row">1999</th>' + [1, 2, 3, 4, 1, 2, 3, 4, 0, 0, 0, 0].map((l, i) =>
                `<td class="l${l}">${l ? `<a href="?month=1999-${10 + i}">${10 * l + 1}</a>` : ''}`
                + '</td>').join('') + '<td>20</td></tr>')""")
        page.add_script_tag(path=str(AXE))
        result = page.evaluate("""() => axe.run(document, {
            resultTypes: ['violations'],
            rules: {region: {enabled: true}}})""")  # frames too: the archived page is scanned only as a frame
        bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in result["violations"]
               if v["impact"] in ("serious", "critical")]
        if bad:
            found[url] = bad
    context.close()
    assert not found, found


def test_the_fixture_pages_shift_jis_found_and_marked_titles_shown_as_text(web, browser):
    context = browser.new_context(viewport={"width": 1200, "height": 820})
    page = context.new_page()
    # a Japanese query finds the Shift_JIS page (index.html), its term marked
    page.goto(web + "/search?q=" + "玉露と煎茶")
    hit = page.locator(".hit", has=page.locator('h2 a[href="/read/example/index.html"]'))
    assert hit.count() == 1
    marks = hit.locator("mark").all_inner_texts()
    assert marks and all(m in "玉露と煎茶" or m in ("玉露", "煎茶") for m in marks), marks
    # the EUC-JP and cp1252 pages, read and as archived: no U+FFFD
    for path, text in (("tea.html", "お茶"), ("cafe.html", "Café")):
        page.goto(web + f"/read/example/{path}")
        body = page.locator("main").inner_text()
        assert text in body and "\ufffd" not in body, path
        page.goto(web + f"/raw/example/{path}")
        body = page.locator("body").inner_text()
        assert text in body and "\ufffd" not in body, path
    page.goto(web + "/read/example/cafe.html")
    assert "€" in page.locator("main").inner_text()
    # a title holding HTML is text, never markup, in the listing and the reader (the pipeline keeps its text;
    # escaping of titles that still hold '<' is tests/web/test_web.py's)
    page.goto(web + "/search?site=example")
    titles = page.locator(".hit h2").all_inner_texts()
    assert any("Bold" in t and "alert(1)" in t for t in titles), titles
    assert page.locator(".hit h2 b").count() == 0 and page.locator("main script").count() == 0
    page.goto(web + "/read/example/html-title.html")
    assert "alert(1)" in page.locator("#doc-title").inner_text() and page.locator("#doc-title b").count() == 0
    # the undated page opens, without a date, and the time page counts it as undated
    page.goto(web + "/read/example/undated.html")
    assert page.locator("#doc-title").inner_text() == "Undated notes" and page.locator("time").count() == 0
    page.goto(web + "/time/example")
    undated = re.search(r"(\d+) pages undated", page.locator("caption").inner_text())
    assert undated and int(undated.group(1)) >= 1
    context.close()
    # a very long title at 375 px: no horizontal scroll
    context = browser.new_context(viewport={"width": 375, "height": 740})
    page = context.new_page()
    for url in ("/read/example/long-title.html", "/search?site=example", "/site/example"):
        page.goto(web + url)
        assert page.evaluate("document.documentElement.scrollWidth") <= 375, url
    context.close()
