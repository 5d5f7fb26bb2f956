"""The corpus as a readable archive (issue 26 item 7): links between documents rewritten to the `.md` files, images
and other files to the mirror, hostile links dropped, the reader still resolving them, and a site's `origin` as
the pages' `url`."""

from __future__ import annotations

import json
import os
import posixpath
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from siterag.config import ConfigError, SiteConfig, load_config
from siterag.enrich.corpus import corpus_paths, read_doc, write_doc
from siterag.enrich.links import (
    SiteLinks,
    corpus_target,
    iter_links,
    link_site,
    mirror_files,
    origin_url,
    site_origins,
    start_dir,
)
from siterag.layout import SiteLayout
from siterag.pipeline import original_url
from siterag.web.reader import render
from tests.conftest import ROOT, SHARED_SITES, write_config

ORIGIN = "http://www.example.ne.jp/~user/"
DOCS = {"index.html": "_index.md", "diary/x.htm": "diary/x.md", "diary/newpage8.htm": "diary/newpage8.md",
        "a b.html": "a b.md"}
FILES = frozenset({"img/a.gif", "diary/img/b.gif", "frames.html", "doc.pdf", "diary/日記.gif", "index.html"})


def links(origin: str = "") -> SiteLinks:
    return SiteLinks("s", DOCS, FILES, site_origins((), (), origin), origin)


def resolve(md_rel: str, dest: str) -> str:
    """A relative destination of corpus/s/<md_rel> as a path under data/ (what a Markdown viewer opens)."""
    from urllib.parse import unquote

    return posixpath.normpath(posixpath.join("corpus/s", posixpath.dirname(md_rel), unquote(dest.split("#")[0])))


# ---- rewriting ---------------------------------------------------------------------------------------------

def test_links_to_documents_become_md_files_and_images_mirror_files():
    body = ('[日記](newpage8.htm) [top](../index.html#x) ![](img/b.gif "alt") [![](../img/a.gif)](../doc.pdf)\n'
            "[ab](../a%20b.html) ![](日記.gif) [frames](../frames.html) [same](#e)")
    out = links().rewrite(body, "diary/x.htm", "diary/x.md")
    assert "[日記](newpage8.md)" in out and "[top](../_index.md#x)" in out and "[ab](../a%20b.md)" in out
    assert '![](../../../mirror/s/diary/img/b.gif "alt")' in out  # the alt text (the title) stays
    assert "[![](../../../mirror/s/img/a.gif)](../../../mirror/s/doc.pdf)" in out
    assert "[frames](../../../mirror/s/frames.html)" in out  # a page without a document: its file in the mirror
    assert "[same](#e)" in out
    for dest in iter_links(out):  # every relative destination is a file of the archive, under data/
        if dest.startswith("#"):
            continue
        path = resolve("diary/x.md", dest)
        assert not path.startswith("..")
        top, site, rest = path.split("/", 2)
        assert (top, site) in (("corpus", "s"), ("mirror", "s"))
        assert rest in (DOCS.values() if top == "corpus" else FILES), dest


def test_rewriting_is_idempotent_and_leaves_code_and_the_web_alone():
    body = ("[a](newpage8.htm) ![](img/b.gif) [web](http://www.example.org/x.html) [m](mailto:me@example.jp)\n\n"
            "```\n[code](newpage8.htm)\n```\n")
    once = links().rewrite(body, "diary/x.htm", "diary/x.md")
    assert links().rewrite(once, "diary/x.htm", "diary/x.md") == once
    assert "[code](newpage8.htm)" in once and "(http://www.example.org/x.html)" in once and "(mailto:me@" in once


def test_a_page_not_archived_stays_as_it_was_or_gets_its_original_url():
    body = "[gone](gone.htm?a=1#p) [abs](http://www.example.ne.jp/~user/diary/x.htm#e)"
    assert links().rewrite(body, "diary/x.htm", "diary/x.md").startswith("[gone](gone.htm?a=1#p)")
    out = links(ORIGIN).rewrite(body, "diary/x.htm", "diary/x.md")
    assert "[gone](http://www.example.ne.jp/~user/diary/gone.htm?a=1#p)" in out
    assert "[abs](x.md#e)" in out  # an absolute link to the origin is a link to the archived page


HOSTILE = ["../../../../etc/passwd", "%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "..%2f..%2f..%2f..%2fetc%2fpasswd",
           "..\\..\\..\\..\\etc\\passwd", "javascript:alert(document.cookie)", "JavaScript:alert(1)",
           "data:text/html,<b>x</b>", "file:///etc/passwd", "C:\\Windows\\win.ini", "vbscript:msgbox(1)"]


@pytest.mark.bad_input
@pytest.mark.parametrize("href", HOSTILE)
def test_a_hostile_link_is_dropped_and_its_text_kept(href):
    out = links().rewrite(f"see [this]({href}) and ![]({href}) end", "diary/x.htm", "diary/x.md")
    assert out == "see this and  end"


@pytest.mark.bad_input
@pytest.mark.parametrize("href", HOSTILE)
def test_with_an_origin_a_hostile_link_never_becomes_a_local_path(href):
    out = links(ORIGIN).rewrite(f"[this]({href})", "diary/x.htm", "diary/x.md")
    dests = list(iter_links(out))
    assert all(d.startswith("http://www.example.ne.jp/") for d in dests), out  # the web, never a file


def test_corpus_target_reads_only_the_sites_own_folders():
    assert corpus_target("s", "diary/x.md", "../../../mirror/s/img/a.gif") == ("file", "img/a.gif", "")
    assert corpus_target("s", "diary/x.md", "newpage8.md#e") == ("doc", "diary/newpage8.md", "#e")
    for href in ("../../../mirror/other/a.gif", "../../../../etc/passwd", "../../../corpus/s/../../x.md",
                 "http://x/a.md", "/etc/passwd", "newpage8.htm"):
        assert corpus_target("s", "diary/x.md", href) is None, href


def test_the_reader_resolves_rewritten_links_to_reader_pages_and_mirror_files():
    out = links().rewrite("[日記](newpage8.htm#e) ![](img/b.gif) [pdf](../doc.pdf)", "diary/x.htm", "diary/x.md")
    html = render(out, "s", "diary/x.htm", set(DOCS), (), "diary/x.md", {v: k for k, v in DOCS.items()})
    assert 'href="/read/s/diary/newpage8.htm#e"' in html
    assert 'src="/raw/s/diary/img/b.gif"' in html and 'href="/raw/s/doc.pdf"' in html


def test_the_full_text_of_a_passage_holds_no_archive_path_and_the_snippet_no_link_target():
    from siterag.index.chunking import Chunk
    from siterag.index.index import IndexedDoc, chunk_text
    from siterag.search.search_api import make_snippet

    body = links().rewrite('お茶の[日記](newpage8.htm)です ![](img/b.gif "茶畑") [web](http://www.example.org/x.html)',
                           "diary/x.htm", "diary/x.md")
    assert "mirror/s/" in body
    doc = IndexedDoc("s/diary/x.md", "s", "diary/x.htm", "", "T", "", [], "", "", "", body)
    text = chunk_text(doc, Chunk(0, "[見出し](newpage8.md)", body))
    assert "mirror" not in text and ".md" not in text and "http://www.example.org/x.html" in text
    assert "[日記]()" in text and '![]( "茶畑")' in text
    assert make_snippet(text, "お茶") == "**お茶**の日記です web"


# ---- the site pass, over files ---------------------------------------------------------------------------

def test_link_site_rewrites_bodies_keeps_body_hash_and_leaves_hand_edits(tmp_path):
    from siterag.enrich.metadata import content_hash

    layout = SiteLayout(tmp_path, "s")
    for rel in ("index.html", "img/a.gif", ".siterag-manifest.json"):
        (layout.mirror / rel).parent.mkdir(parents=True, exist_ok=True)
        (layout.mirror / rel).write_bytes(b"x")
    body = "[b](b.html) ![](img/a.gif)"
    write_doc(layout.corpus / "_index.md", body, {"title": "a", "path": "index.html", "body_hash": content_hash(body)})
    write_doc(layout.corpus / "b.md", body, {"title": "b", "path": "b.html", "body_hash": "edited"})
    site = SiteConfig(name="s", local_path=str(tmp_path))
    assert link_site(layout, site) == {"documents": 2, "rewritten": 1, "edited_by_hand": 1, "failed": 0}
    fields, new = read_doc(layout.corpus / "_index.md")
    assert new == "[b](b.md) ![](../../mirror/s/img/a.gif)" and fields["body_hash"] == content_hash(new)
    assert read_doc(layout.corpus / "b.md")[1] == body
    assert link_site(layout, site)["rewritten"] == 0
    assert mirror_files(layout.mirror) == {"index.html", "img/a.gif"}


@pytest.mark.skipif(not SHARED_SITES.is_dir(), reason="../shared/sites is absent")
@pytest.mark.parametrize("name", ["nanatsumori", "hrtaj"])
def test_real_pages_links_resolve_to_files_of_the_archive(name):
    """A real site's pages, extracted: every rewritten destination is an existing file of the mirror or a .md."""
    from siterag.extract.extract import extract_page
    from siterag.normalize.encoding import to_utf8
    from siterag.normalize.sanitize import prepare_html

    root = SHARED_SITES / name
    files = frozenset(mirror_files(root))
    pages = sorted(p for p in files if p.lower().endswith((".html", ".htm")))[:40]
    docs = corpus_paths(pages)
    site = SiteLinks(name, docs, files)
    checked = 0
    for page in pages:
        text, _ = to_utf8((root / page).read_bytes())
        body = extract_page(prepare_html(text), "heuristic", None, base_url="").markdown
        out = site.rewrite(body, page, docs[page])
        for dest in iter_links(out):
            target = corpus_target(name, docs[page], dest)
            if target is None:
                continue
            checked += 1
            if target[0] == "doc":
                assert target[1] in docs.values(), (page, dest)
            else:
                assert (root / target[1]).is_file(), (page, dest)
    assert checked > 0


# ---- origin --------------------------------------------------------------------------------------------------

def test_origin_is_checked_and_ends_in_a_slash(tmp_path):
    (tmp_path / "src").mkdir()
    cfg = write_config(tmp_path, f'[[site]]\nname = "s"\nlocal_path = "{tmp_path / "src"}"\n'
                                 'origin = "http://www.example.ne.jp/~user"\n')
    assert load_config(cfg).sites[0].origin == ORIGIN
    for bad, why in (('"ftp://x/"', "not an http(s) URL"), ("5", "original base URL"), ('""', "original base URL"),
                     ('"http://x/?a=1"', "without ?query")):
        path = write_config(tmp_path, f'[[site]]\nname = "s"\nlocal_path = "{tmp_path / "src"}"\norigin = {bad}\n')
        with pytest.raises(ConfigError, match="origin") as err:
            load_config(path)
        assert why in str(err.value) and "\n" not in str(err.value)
    path = write_config(tmp_path, f'[defaults]\norigin = "{ORIGIN}"\n[[site]]\nname = "s"\nlocal_path = "src"\n')
    with pytest.raises(ConfigError, match=r"belongs in \[\[site\]\]$"):
        load_config(path)


@pytest.mark.bad_input
def test_a_bad_origin_is_one_error_line(tmp_path):
    (tmp_path / "src").mkdir()
    path = write_config(tmp_path, f'[[site]]\nname = "s"\nlocal_path = "{tmp_path / "src"}"\norigin = "www.x.jp"\n')
    res = subprocess.run([sys.executable, "-m", "siterag.cli", "--config", str(path), "status"], capture_output=True,
                         text=True, timeout=120, cwd=ROOT)
    assert res.returncode == 2 and res.stderr.splitlines() == [
        f"siterag: error: {path}: [[site]] \"s\" origin: 'www.x.jp' is not an http(s) URL (e.g. "
        "\"http://www.example.ne.jp/~user/\")"], res.stderr


def test_the_original_url_under_an_origin_for_each_kind_of_source(tmp_path):
    local = SiteConfig(name="s", local_path=str(tmp_path), origin=ORIGIN)
    assert original_url(local, "diary/日記.html", {}) == ORIGIN + "diary/%E6%97%A5%E8%A8%98.html"
    assert original_url(SiteConfig(name="s", local_path=str(tmp_path)), "a.html", {}) == ""  # unchanged without
    crawl = SiteConfig(name="s", start_urls=("http://127.0.0.1:8000/~user/index.html",), origin=ORIGIN)
    assert original_url(crawl, "~user/d/a.html", {}) == ORIGIN + "d/a.html"
    warc = SiteConfig(name="s", warc_files=("x.warc",), hosts=("127.0.0.1:8080/~user",), origin=ORIGIN)
    assert original_url(warc, "a.html", {"url": "http://127.0.0.1:8080/~user/a.html?x=1"}) == ORIGIN + "a.html?x=1"
    assert origin_url(ORIGIN, "a.html", "http://other.host/b.html", "http://127.0.0.1/") == \
        "http://www.example.ne.jp/b.html"
    assert start_dir(("http://127.0.0.1:8000/~user/",)) == "~user/"
    assert site_origins(("http://127.0.0.1:8000/~user/",), (), ORIGIN) == ("http://127.0.0.1:8000/",
                                                                          "http://www.example.ne.jp/")


# ---- end to end: `siterag run` on a local folder, the corpus, search, the web reader -------------------------

GIF = bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b")


def _site(folder: Path) -> None:
    (folder / "img").mkdir(parents=True)
    (folder / "img" / "a.gif").write_bytes(GIF)
    (folder / "index.html").write_bytes(
        "<html><head><title>お茶の部屋</title></head><body><h1>お茶の部屋</h1>"
        "<p>静岡の新茶について書いた日記です。<a href='diary.html'>日記へ</a>、"
        "<a href='gone.html'>消えたページ</a>。</p>"
        "<p>茶畑の写真です。毎年五月に摘みます。<img src='img/a.gif' alt='茶畑'>"
        "今年は雨が多くて、摘むのが少し遅れました。</p>"
        "<p>それでも香りはとても良かったです。来年もまた行きたいと思います。</p></body></html>".encode("cp932"))
    (folder / "diary.html").write_bytes(
        "<html><head><title>新茶日記</title></head><body><h1>新茶日記</h1>"
        "<p>2003年5月20日、今年の新茶を飲みました。香りがとても良かったです。<a href='index.html#top'>戻る</a></p>"
        "<p>急須で淹れました。</p></body></html>".encode("cp932"))


def _run(cfg: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect")}
    return subprocess.run([sys.executable, "-m", "siterag.cli", "--config", str(cfg), *args], capture_output=True,
                          text=True, timeout=600, env=env, cwd=ROOT)


def test_siterag_run_writes_a_readable_corpus_with_original_urls(tmp_path):
    _site(tmp_path / "www")
    data = tmp_path / "data"
    body = f'[defaults]\ndata_dir = "{data}"\n[[site]]\nname = "tea"\nlocal_path = "{tmp_path / "www"}"\n'
    cfg = write_config(tmp_path, body + f'origin = "{ORIGIN}"\n')
    res = _run(cfg, tmp_path, "run")
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    corpus = data / "corpus" / "tea"
    fields, text = read_doc(corpus / "_index.md")
    assert fields["url"] == ORIGIN + "index.html"
    assert "[日記へ](diary.md)" in text and "(../../mirror/tea/img/a.gif" in text
    assert f"[消えたページ]({ORIGIN}gone.html)" in text
    for md in ("_index.md", "diary.md"):  # every relative link of the corpus opens a file
        for dest in iter_links(read_doc(corpus / md)[1]):
            if not dest.startswith("http"):
                assert (corpus / posixpath.dirname(md) / dest.split("#")[0]).resolve().is_file(), (md, dest)
    hits = json.loads(_run(cfg, tmp_path, "search", "新茶", "--json").stdout)
    assert hits and all(h["url"].startswith(ORIGIN) for h in hits), hits
    assert {h["url"] for h in hits} <= {ORIGIN + "index.html", ORIGIN + "diary.html"}

    from siterag.web.app import Archive, create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    client = TestClient(create_app(Archive.from_config(cfg)))
    page = client.get("/read/tea/index.html").text
    assert 'href="/read/tea/diary.html"' in page and 'src="/raw/tea/img/a.gif"' in page
    assert ORIGIN + "index.html" in page  # the reader's "Original URL"
    assert client.get("/raw/tea/img/a.gif").content == GIF
    found = client.get("/search", params={"q": "新茶"}).text  # a hit shows its original address
    assert ORIGIN + "diary.html" in found or ORIGIN + "index.html" in found

    # Another origin: only `url` changes; nothing is indexed or embedded again. (A link to a page not archived
    # keeps the old origin's address until its page is extracted again.)
    other = "http://members.example.com/tea/"
    cfg = write_config(tmp_path, body + f'origin = "{other}"\n')
    res = _run(cfg, tmp_path, "run")
    assert res.returncode == 0, res.stderr[-2000:]
    assert "index: 0 docs upserted" in res.stdout, res.stdout  # the index holds no url: nothing to redo
    assert read_doc(corpus / "_index.md")[1] == text
    assert read_doc(corpus / "diary.md")[0]["url"] == other + "diary.html"
