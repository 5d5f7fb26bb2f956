"""`siterag web` without a browser: link rewriting, path checks on every route that takes a path, facets, the
histogram, escaping, and the command's options. The app runs in-process (Starlette's TestClient)."""

from __future__ import annotations

import warnings

import pytest

from siterag.enrich.corpus import write_doc
from siterag.web import archive
from siterag.web.app import Archive, create_app, link
from siterag.web.archive import Doc
from siterag.web.reader import render
from siterag.web.rewrite import RAW_CSP, file_in, page_target, rewrite_html, snippet_html
from tests.conftest import write_config

with warnings.catch_warnings():  # Starlette 1.x would rather have httpx2; httpx does the job
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

ORIGIN = ("http://www.example.ne.jp/~user/",)


# ---- link rewriting ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("href", "want"), [
    ("tea.html", ("diary/tea.html", "")),
    ("../index.html#top", ("index.html", "#top")),
    ("./2003/../05.html", ("diary/05.html", "")),
    ("/img/a.gif", ("img/a.gif", "")),
    ("%E6%97%A5%E8%A8%98.html", ("diary/日記.html", "")),
    ("http://www.example.ne.jp/~user/links.html", ("links.html", "")),
    ("HTTP://WWW.EXAMPLE.NE.JP/~user/", ("index.html", "")),
    ("//www.example.ne.jp/~user/a/b.html?x=1", ("a/b.html", "")),
    ("#entry", ("diary/2003.html", "#entry")),
    ("sub/", ("diary/sub/index.html", "")),
])
def test_a_link_inside_the_site_is_resolved(href, want):
    assert page_target("diary/2003.html", href, ORIGIN) == want


@pytest.mark.parametrize("href", [
    "http://www.example.org/", "https://www.example.ne.jp/~other/x.html", "//evil.example/x.gif",
    "mailto:me@example.ne.jp", "javascript:alert(1)", "data:text/html,<script>alert(1)</script>",
    "../../../etc/passwd", "..%2f..%2f..%2fetc/passwd", "", "   ",
])
def test_a_link_out_of_the_archive_is_none(href):
    assert page_target("diary/2003.html", href, ORIGIN) is None


def test_the_archived_page_is_made_inert_and_kept_in_the_archive():
    page = """<html><head><meta http-equiv="refresh" content="0; url=http://www.example.org/">
    <link rel="dns-prefetch" href="//www.example.org"><link rel="stylesheet" href="style.css">
    <base href="http://www.example.org/"><script src="http://www.example.org/a.js"></script></head>
    <body onload="alert(1)" background="bg.gif"><a href="tea.html" onclick="x()">tea</a>
    <a href="http://www.example.org/out.html">out</a><a href="http://www.example.ne.jp/~user/links.html">in</a>
    <img src="http://counter.example/c.gif" srcset="http://x.example/a.png 2x"><img src="../img/a.gif">
    <script>document.title = "ran"</script><form action="http://www.example.org/post"><input></form>
    <object data="x.swf"></object><iframe src="menu.html"></iframe></body></html>"""
    out = rewrite_html(page, "s", "diary/2003.html", ORIGIN)
    for gone in ("<script", "onload", "onclick", "refresh", "rel=\"dns-prefetch", "<base", "srcset", "counter.example",
                 "<object", "www.example.org/post", 'href="http://www.example.org/out.html"'):
        assert gone not in out, gone
    for kept in ('href="/raw/s/diary/tea.html"', 'href="/raw/s/links.html"', 'src="/raw/s/img/a.gif"',
                 'href="/raw/s/diary/style.css"', 'background="/raw/s/diary/bg.gif"', 'src="/raw/s/diary/menu.html"',
                 'title="not archived: http://www.example.org/out.html"'):
        assert kept in out, kept


def test_the_archived_page_keeps_what_a_browser_shows_past_its_end_tags():
    page = "<html><body><p>top</p></body></html>\n<table><tr><td>写真加工</td><td>￥1,000</td></tr></table>"
    assert "￥1,000" in rewrite_html(page, "s", "price.html", ORIGIN)


def test_the_reader_resolves_links_escapes_html_and_keeps_entry_anchors():
    body = ("[tea](tea.html) [gone](gone.html) [img file](pic.jpg) [web](http://www.example.org/) "
            "[js](javascript:alert(1))\n\n![photo](../img/a.gif) ![far](http://counter.example/c.gif)\n\n"
            "<script>alert(1)</script> <b onclick=x>bold</b>\n\n## 2003.6.29(日) {#2003-06-29}\n\ntext\n")
    out = render(body, "s", "diary/2003.html", {"diary/tea.html"}, ORIGIN)
    assert 'href="/read/s/diary/tea.html"' in out
    assert 'href="/raw/s/diary/gone.html"' in out and 'href="/raw/s/diary/pic.jpg"' in out
    assert 'class="external"' in out and 'href="javascript' not in out
    assert 'src="/raw/s/img/a.gif"' in out and "counter.example" not in out
    assert "<script>" not in out and "&lt;script&gt;" in out and "<b " not in out
    assert '<h2 id="2003-06-29">2003.6.29(日)' in out and "{#" not in out


def test_a_link_with_no_text_gets_a_name_for_screen_readers():
    out = render("[![](../top.gif)](../index.htm) [![logo](a.gif)](b.htm) [text](c.htm)", "s", "diary/2003.html",
                 {"index.htm"}, ORIGIN)
    assert '<a href="/read/s/index.htm" aria-label="Link to index.htm">' in out  # axe-core's link-name
    assert out.count("aria-label") == 1  # an image with an alt, or text, names its link already


def test_a_snippet_is_escaped_and_its_marks_are_mark_elements():
    assert snippet_html('**<b>お茶</b>** & "x" **茶**') == \
        '<mark>&lt;b&gt;お茶&lt;/b&gt;</mark> &amp; &quot;x&quot; <mark>茶</mark>'


# ---- facets, time, suggestions --------------------------------------------------------------------------

DOCS = [Doc("a", "x.md", "x.html", "お茶の話", "2003-05-20", category="tea", tags=("静岡", "新茶"), key="お茶の話"),
        Doc("a", "y.md", "y.html", "日記 お茶", "2003-06", "2004-01-02", category="diary", tags=("静岡",),
            key="日記 お茶"),
        Doc("b", "z.md", "z.html", "Links", "", category="tea", key="links"),
        Doc("a", "w.md", "w.html", "Old", "2001", key="old")]


def test_facets_count_sites_years_months_categories_and_tags():
    items = [{"site": d.site, "date": d.date, "category": d.category, "tags": d.tags} for d in DOCS]
    found = archive.facets(items, year="2003")
    assert found["site"] == [("a", 3), ("b", 1)]
    assert found["year"] == [("2001", 1), ("2003", 2)]
    assert found["month"] == [("2003-05", 1), ("2003-06", 1)]
    assert found["category"] == [("tea", 2), ("diary", 1)]
    assert found["tag"] == [("静岡", 2), ("新茶", 1)]
    assert archive.facets(items)["month"] == []


def test_the_histogram_counts_date_and_lastmod_months_and_fills_empty_years():
    bars = archive.histogram(DOCS)
    assert list(bars) == ["2003", "2004"]  # "2001" (a year only) has no month
    assert bars["2003"][4] == 1 and bars["2003"][5] == 1 and bars["2004"][0] == 1
    assert [i.doc.path for i in archive.in_period(DOCS, "2004-01")] == ["y.html"]


def test_diary_entries_count_in_the_histogram_drill_down_to_the_day_and_recur_on_this_day():
    entries = archive.entries_of("# 日記\n\n## 6月29日(日) {#2003-06-29}\n\n晴れ\n\n## 6月29日 夜 {#2003-06-29-2}\n\n"
                                 "### 7月1日 {#2003-07-01}\n\n## 目次\n")
    assert [(e.date, e.title, e.anchor) for e in entries] == [
        ("2003-06-29", "6月29日(日)", "2003-06-29"), ("2003-06-29", "6月29日 夜", "2003-06-29-2"),
        ("2003-07-01", "7月1日", "2003-07-01")]
    diary = Doc("a", "d.md", "d.html", "日記", "2003-06-29", "2003-07-01", entries=entries)
    other = Doc("a", "o.md", "o.html", "六月の写真", "2004-06-29")
    bars = archive.histogram([diary, other])
    assert bars["2003"][5] == 2 and bars["2003"][6] == 1 and bars["2004"][5] == 1  # entries, not the page twice
    assert [i.anchor for i in archive.in_period([diary, other], "2003-06-29")] == ["2003-06-29", "2003-06-29-2"]
    assert [(i.date, i.title) for i in archive.on_this_day([diary, other], "06-29")] == [
        ("2003-06-29", "6月29日(日)"), ("2003-06-29", "6月29日 夜"), ("2004-06-29", "六月の写真")]


def test_previous_and_next_by_date_within_the_site():
    assert archive.neighbours(DOCS, DOCS[0]) == (DOCS[3], DOCS[1])
    assert archive.neighbours(DOCS, DOCS[2]) == (None, None)  # undated


def test_suggestions_put_titles_starting_with_the_query_first_then_tags():
    found = archive.suggest(DOCS, "ｵ茶".replace("ｵ", "お"))
    assert [f["text"] for f in found[:2]] == ["お茶の話", "日記 お茶"]
    assert archive.suggest(DOCS, "静")[0] == {"kind": "tag", "text": "静岡", "count": 2}
    assert archive.suggest(DOCS, "  ") == []


def test_a_facet_link_keeps_the_other_filters_and_toggles_a_tag():
    state = {"q": "お茶", "site": "a", "year": "2003", "month": "2003-05", "category": "", "tag": ("静岡",),
             "page": 3}
    assert link(state, tag="新茶") == "/search?q=%E3%81%8A%E8%8C%B6&site=a&year=2003&month=2003-05" \
        "&tag=%E9%9D%99%E5%B2%A1&tag=%E6%96%B0%E8%8C%B6&page=3"
    assert link(state, tag="静岡", page=1) == "/search?q=%E3%81%8A%E8%8C%B6&site=a&year=2003&month=2003-05"
    assert "month" not in link(state, year="2004")


# ---- the app: routes, paths, escaping ------------------------------------------------------------------

TITLE = '<img src=x onerror=alert(1)>お茶の話'


@pytest.fixture
def client(tmp_path):
    data = tmp_path / "data"
    write_doc(data / "corpus" / "s" / "tea.md", "# 産地\n\n[日記](diary/2003.html) <script>alert(1)</script>\n",
              {"title": TITLE, "tags": ['"><b>tag', "静岡"], "summary": "<i>summary</i>", "category": "tea",
               "site": "s", "path": "tea.html", "date": "2003-05-01", "url": "http://www.example.ne.jp/~user/tea.html"})
    write_doc(data / "corpus" / "s" / "diary" / "2003.md", "## 6月29日 {#2003-06-29}\n\n晴れ\n",
              {"title": "日記", "site": "s", "path": "diary/2003.html", "date": "2003-06-29", "lastmod": "2003-07-02"})
    (data / "normalized" / "s" / "diary").mkdir(parents=True)
    (data / "normalized" / "s" / "tea.html").write_text(
        '<html><body><p>お茶</p><script>document.title="ran"</script><a href="diary/2003.html">d</a></body></html>',
        encoding="utf-8")
    (data / "normalized" / "s" / ".siterag-manifest.json").write_text("{}")
    (data / "mirror" / "s" / "img").mkdir(parents=True)
    (data / "mirror" / "s" / "img" / "a.gif").write_bytes(b"GIF89a")
    (data / "mirror" / "s" / "page.html").write_text("<script>alert(1)</script>")
    (tmp_path / "secret.txt").write_text("secret")
    (data / "normalized" / "s" / "link.html").symlink_to(tmp_path / "secret.txt")
    (data / "mirror" / "s" / "up").symlink_to(tmp_path)
    arc = Archive(data, {"s": ORIGIN})
    return TestClient(create_app(arc))


@pytest.mark.bad_input
@pytest.mark.parametrize("url", [
    "/raw/s/..%2f..%2f..%2fsecret.txt", "/raw/s/%2e%2e/%2e%2e/%2e%2e/secret.txt", "/raw/s/%252e%252e%252fsecret.txt",
    "/raw/s/..%5c..%5csecret.txt", "/raw/s//etc/passwd", "/raw/s/%2fetc%2fpasswd", "/raw/s/link.html",
    "/raw/s/up/secret.txt", "/raw/s/.siterag-manifest.json", "/raw/s/nothing.html", "/raw/nosuch/tea.html",
    "/raw/s/tea.html%00.gif", "/raw/..%2fs/tea.html", "/read/s/..%2f..%2fsecret.txt", "/read/s/nothing.html",
    "/read/nosuch/tea.html", "/original/s/..%2f..%2fsecret.txt", "/original/s/link.html", "/time/nosuch",
    "/site/nosuch", "/search?site=nosuch", "/nosuch",
])
def test_a_path_out_of_the_data_folder_or_unknown_is_404(client, url):
    response = client.get(url)
    assert response.status_code == 404, (url, response.text[:200])
    assert "secret" not in response.text and "root:" not in response.text


def test_file_in_refuses_dot_dot_symlinks_and_dot_files(tmp_path):
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "a.html").write_text("a")
    (tmp_path / "root" / "link").symlink_to(tmp_path)
    assert file_in(tmp_path / "root", "a.html") == tmp_path / "root" / "a.html"
    for rel in ("../root/a.html", "link/root/a.html", "/etc/passwd", "a.html/", ".", "", "x\\..\\a.html"):
        assert file_in(tmp_path / "root", rel) is None, rel


def test_the_archived_page_is_served_inert_under_a_strict_policy(client):
    response = client.get("/raw/s/tea.html")
    assert response.status_code == 200 and response.headers["content-security-policy"] == RAW_CSP
    assert "sandbox" in RAW_CSP and "script-src" not in RAW_CSP and RAW_CSP.startswith("default-src 'none'")
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "お茶" in response.text and "<script" not in response.text
    assert 'href="/raw/s/diary/2003.html"' in response.text
    image = client.get("/raw/s/img/a.gif")
    assert image.status_code == 200 and image.headers["content-type"] == "image/gif"
    assert image.headers["content-security-policy"] == RAW_CSP
    mirrored_page = client.get("/raw/s/page.html")  # never normalized: shown as text, never as HTML
    assert mirrored_page.headers["content-type"].startswith("text/plain")


def test_html_in_titles_tags_summaries_and_bodies_is_escaped(client):
    for url in ("/read/s/tea.html", "/search", "/search?category=tea", "/site/s", "/time/s?month=2003-05",
                "/original/s/tea.html"):
        text = client.get(url).text
        assert "<img src=x" not in text and "<script>alert" not in text and "<i>summary" not in text, url
        assert '"><b>tag' not in text, url
    reader = client.get("/read/s/tea.html").text
    assert "&lt;img src=x onerror=alert(1)&gt;お茶の話" in reader
    assert 'href="/read/s/diary/2003.html"' in reader  # a link between documents: a reader page
    assert 'rel="next" href="/read/s/diary/2003.html"' in reader  # the next page by date
    assert client.get("/read/s/tea.html").headers["content-security-policy"].startswith("default-src 'none'")


def test_browsing_and_searching_without_an_index(client):
    page = client.get("/search?tag=静岡").text
    assert "1 hit" in page and "/read/s/tea.html" in page
    assert "no index" in client.get("/search?q=お茶").text  # told on the page, not a crash
    found = client.get("/api/suggest?q=日").json()
    assert found[0]["text"] == "日記" and found[0]["href"] == "/read/s/diary/2003.html"
    assert "2003-06" in client.get("/time/s").text and "6月29日" in client.get("/time/s?month=2003-06").text
    day = client.get("/time/s?day=2003-06-29").text
    assert 'href="/read/s/diary/2003.html#2003-06-29"' in day and "6月29日" in day  # the reader opens at the entry
    on = client.get("/onthisday?day=06-29").text
    assert "2003-06-29" in on and "/read/s/diary/2003.html#2003-06-29" in on
    assert client.get("/onthisday?day=6-29").status_code == 404


def test_hybrid_hits_as_you_type_come_deduplicated_and_never_fail(client):
    from siterag.search.search_api import Hit

    arc = client.app.state.archive
    assert client.get("/api/hits?q=お茶").json() == []  # no index: the title suggestions stand alone
    found = [Hit("s", f"p{n % 3}.html", f"<b>{n}</b>", "2003", 1.0, "", "", f"s/p{n}.md", bm25=n % 2,
                 anchor="2003-06-29" if n == 0 else "") for n in range(12)]
    arc.search = lambda query, k=50, **filters: found[:k]
    hits = client.get("/api/hits?q=お茶").json()
    assert [h["href"] for h in hits] == ["/read/s/p0.html#2003-06-29", "/read/s/p1.html", "/read/s/p2.html",
                                         "/read/s/p0.html"]  # each place once (the entry, then the page)
    assert hits[0]["text"] == "<b>0</b>" and [h["match"] for h in hits[:2]] == ["meaning", "words"]
    assert client.get("/api/hits?q=お").json() == []  # one character: titles only


def test_there_is_no_write_route(client):
    for url in ("/search", "/raw/s/tea.html", "/read/s/tea.html", "/api/suggest", "/api/hits"):
        assert client.post(url).status_code == 405, url


def test_the_web_command_warns_when_it_listens_beyond_this_machine(tmp_path, monkeypatch, capsys):
    import uvicorn

    from siterag.cli import build_parser, main

    ran = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: ran.append(kw))
    (tmp_path / "www").mkdir()
    cfg = write_config(tmp_path, f'[[site]]\nname = "s"\nlocal_path = "{tmp_path / "www"}"\n')
    assert main(["--config", str(cfg), "web", "--host", "0.0.0.0", "--port", "8123"]) == 0
    assert ran == [{"host": "0.0.0.0", "port": 8123, "log_level": "warning"}]
    assert "siterag: warning: --host 0.0.0.0" in capsys.readouterr().err
    assert main(["--config", str(cfg), "web"]) == 0
    assert ran[-1]["host"] == "127.0.0.1" and capsys.readouterr().err == ""
    assert build_parser().parse_args(["web"]).port == 8000
