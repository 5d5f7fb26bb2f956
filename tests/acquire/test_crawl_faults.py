"""Crawl faults of an adversarial pass (issue 15), each against real wget and a loopback server that misbehaves on
purpose (tests/fake_servers.py: TrickySite), through the real Prefect flow or the real CLI:

a redirect to another host name, a start URL with a user name and password, gzip answers nobody asked for, a page
name wget cuts inside a Japanese character, two long names cut to one, a query-string page wget renames, UTF-16 and
UTF-32 pages, two ports of one host, a local_path that is a symlink loop."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import lancedb
import pytest

from siterag.acquire.mirror import guess_url_path, parse_saves, settle_saves, utf8_name
from siterag.config import load_config
from siterag.layout import SiteLayout
from siterag.pipeline import corpus_docs, source_url
from tests.conftest import ROOT, write_config
from tests.fake_servers import TrickySite

LONG_JA = "あ" * 90 + ".html"  # 275 bytes: wget cuts the name at 236, inside the 79th あ (then adds .html)
LONG_A1, LONG_A2 = "a" * 250 + "1.html", "a" * 250 + "2.html"  # both cut to the same 236 a's


def page(title: str, text: str, links: str = "") -> str:
    return (f"<html><head><title>{title}</title></head><body><h1>{title}</h1>"
            f"<p>{text}。{text}の話をもう少し続けます。{text}はこのページだけの内容です。</p>{links}</body></html>")


def tricky_site() -> TrickySite:
    site = TrickySite()
    links = "".join(f'<a href="{href}">{n}</a> ' for n, href in enumerate([
        "page.html", "newpage.html", "gz.html", quote(LONG_JA), "sid/page.html?sid=7", LONG_A1, LONG_A2,
        "utf16.html", "utf16le.html", "utf32.html", "missing.html"]))
    site.page("/site/index.html", page("目次", "趣味のホームページの入り口", links))
    site.page("/site/page.html", page("GOOD PAGE", "本物のページ"))
    site.page("/site/newpage.html", b"", status=302, Location=f"{site.other}/other/evil.html")
    site.page("/other/evil.html", page("OTHER HOST PAGE", "よそのホストのページ"))
    site.page("/site/gz.html", gzip.compress(page("圧縮", "圧縮して送られたページ",
                                                  '<a href="fromgz.html">次</a>').encode()), Content_Encoding="gzip")
    site.page("/site/fromgz.html", page("圧縮の先", "圧縮ページからだけ辿れるページ"))
    site.page(f"/site/{LONG_JA}", page("長い名前", "とても長い名前のページ"))
    site.page("/site/sid/page.html?sid=7", page("セッション", "セッション番号つきのページ"))
    site.page(f"/site/{LONG_A1}", page("LONG ONE", "長い英字の名前その一"))
    site.page(f"/site/{LONG_A2}", page("LONG TWO", "長い英字の名前その二"))
    site.page("/site/utf16.html", page("UTF-16 BOM", "ユニコード十六ビットのページ").encode("utf-16"))
    site.page("/site/utf16le.html", page("UTF-16 LE", "印なしの十六ビットのページ").encode("utf-16-le"))
    site.page("/site/utf32.html", page("UTF-32 BOM", "三十二ビットのページ").encode("utf-32"))
    return site


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    """Two runs of the real site flow over the tricky site, started from a URL with a user name and password; before
    the second run page.html starts to redirect to another host name."""
    from prefect.testing.utilities import prefect_test_harness

    from flows.site import site_flow

    tmp = tmp_path_factory.mktemp("crawl")
    site = tricky_site()
    start = site.url.replace("http://", "http://alice:s3cret@") + "/site/index.html"
    cfg = write_config(tmp, f'[defaults]\ndata_dir = "{tmp / "data"}"\n[[site]]\nname = "t"\n'
                            f'start_urls = ["{start}"]\n')
    try:
        with prefect_test_harness(server_startup_timeout=120):
            first = site_flow("t", str(cfg))
            site.page("/site/page.html", b"", status=302, Location=f"{site.other}/other/evil.html")
            second = site_flow("t", str(cfg))
    finally:
        site.stop()
    layout = SiteLayout(tmp / "data", "t")
    docs = {fields["path"]: (fields, body) for _, fields, body in corpus_docs(layout)}
    return {"site": site, "layout": layout, "first": first, "second": second, "docs": docs, "data": tmp / "data"}


@pytest.mark.bad_input
def test_redirect_to_another_host_is_not_archived_and_keeps_the_good_copy(crawled):
    layout, docs, second = crawled["layout"], crawled["docs"], crawled["second"]
    assert "OTHER HOST PAGE" not in (layout.mirror / "site/page.html").read_text(encoding="utf-8")
    assert docs["site/page.html"][0]["title"] == "GOOD PAGE"
    assert not any("OTHER HOST" in fields["title"] for fields, _ in docs.values())
    assert not (layout.mirror / "site/newpage.html").exists() and "site/newpage.html" not in docs
    lines = [w for w in second["mirror_warnings"] if "another host" in w]
    assert len([w for w in lines if "/site/page.html " in w]) == 1
    assert any("/site/page.html " in w and "kept the earlier copy" in w for w in lines), lines
    assert any("/site/newpage.html " in w and "not archived" in w and "kept" not in w for w in lines), lines
    assert not second["removed"]
    assert "[!] Crawl: " in (layout.logs / "error.log").read_text(encoding="utf-8")


@pytest.mark.bad_input
def test_credentials_in_the_start_url_reach_no_document_row_or_report(crawled):
    layout, docs = crawled["layout"], crawled["docs"]
    assert docs["site/page.html"][0]["source"] == f"{crawled['site'].url}/site/page.html"
    for rel, fields, body in corpus_docs(layout):
        assert "s3cret" not in json.dumps(fields, default=str) + body and "alice" not in str(fields["source"]), rel
    texts = [(layout.logs / name).read_text(encoding="utf-8") for name in ("error.log", "report.json", "urls.json")]
    texts.append(json.dumps([crawled["first"], crawled["second"]], default=str))
    assert "HTTP 404 for http://127.0.0.1" in texts[0]  # the URLs in reports are there, without the user
    assert all("s3cret" not in t and "alice" not in t for t in texts)
    db = lancedb.connect(str(crawled["data"] / "lancedb"))
    for table in ("documents", "chunks"):
        rows = db.open_table(table).to_arrow().to_pylist()
        assert rows and "s3cret" not in json.dumps(rows, default=str, ensure_ascii=False)


@pytest.mark.bad_input
def test_gzip_answer_is_saved_decoded_and_its_links_followed(crawled):
    layout, docs = crawled["layout"], crawled["docs"]
    assert "圧縮して送られたページ" in docs["site/gz.html"][1]
    assert "圧縮ページからだけ辿れるページ" in docs["site/fromgz.html"][1]
    assert not list(layout.mirror.rglob("*.gz"))


@pytest.mark.bad_input
def test_long_japanese_url_cut_inside_a_character_is_archived_under_its_url(crawled):
    docs, second = crawled["docs"], crawled["second"]
    name = "site/" + "あ" * 78 + ".html"  # wget's 236 bytes less the two of the cut character, + .html
    assert name in docs and "とても長い名前のページ" in docs[name][1]
    assert docs[name][0]["source"] == f"{crawled['site'].url}/site/{quote(LONG_JA)}"
    assert not second["removed"] and second["stale_in_mirror"] == 0
    assert all(utf8_name(str(p)) == str(p) for p in crawled["layout"].mirror.rglob("*"))


@pytest.mark.bad_input
def test_two_long_urls_cut_to_one_file_are_reported(crawled):
    first, docs = crawled["first"], crawled["docs"]
    name = "site/" + "a" * 236 + ".html"
    line = next(w for w in first["mirror_warnings"] if "saved as one file" in w)
    assert f"{name} " in line and "236 bytes" in line
    url1, url2 = (f"{crawled['site'].url}/site/{n}" for n in (LONG_A1, LONG_A2))
    assert docs[name][0]["source"] in (url1, url2) and {url1, url2} <= set(line.replace(",", " ").split())


@pytest.mark.bad_input
def test_source_of_a_renamed_query_page_is_its_real_url(crawled):
    fields, body = crawled["docs"]["site/sid/page.html@sid=7.html"]
    assert fields["source"] == f"{crawled['site'].url}/site/sid/page.html?sid=7"
    assert "セッション番号つきのページ" in body


@pytest.mark.bad_input
def test_utf16_and_utf32_pages_are_documents(crawled):
    docs = crawled["docs"]
    for rel, text in [("site/utf16.html", "ユニコード十六ビットのページ"),
                      ("site/utf16le.html", "印なしの十六ビットのページ"), ("site/utf32.html", "三十二ビットのページ")]:
        assert rel in docs and text in docs[rel][1], rel
    assert docs["site/utf16le.html"][0]["encoding"] == "utf-16-le"


def test_wget_names_map_back_to_urls_without_a_log():
    assert guess_url_path("sid/page.html@sid=7.html") == ("sid/page.html", "sid=7")
    assert guess_url_path("list.cgi@file=a.html") == ("list.cgi", "file=a")
    assert guess_url_path("a/index.html@x=1.htm.html") == ("a/index.html", "x=1.htm.html")  # .htm: none added
    assert guess_url_path("plain.html") == ("plain.html", "")
    cfg_site = load_config_site('start_urls = ["http://bob:pw@example.com:8080/index.html"]')
    assert source_url(cfg_site, "sid/page.html@sid=7.html") == "http://example.com:8080/sid/page.html?sid=7"


def test_saves_follow_redirects_and_retries_in_the_log(tmp_path):
    log = (f"--2026-01-01 00:00:00--  http://h/a.html\nHTTP request sent, awaiting response... 302 Found\n"
           f"Location: http://x/b.html [following]\n--2026-01-01 00:00:00--  http://x/b.html\n"
           f"--2026-01-01 00:00:01--  (try: 2)  http://x/b.html\nSaving to: ‘{tmp_path}/a.html’\n"
           f"2026-01-01 00:00:01 (1 MB/s) - ‘{tmp_path}/a.html’ saved [7/7]\n"
           f"--2026-01-01 00:00:02--  http://h/c.html\nSaving to: ‘{tmp_path}/c.html’\n"
           f"2026-01-01 00:00:02 (1 MB/s) - ‘{tmp_path}/c.html’ saved [4/4]\n")
    saves = parse_saves(log, tmp_path)
    assert [(s.asked, s.got, s.rel) for s in saves] == [("http://h/a.html", "http://x/b.html", "a.html"),
                                                         ("http://h/c.html", "http://h/c.html", "c.html")]
    (tmp_path / "a.html").write_text("foreign")
    (tmp_path / "c.html").write_text("ours")
    seen, urls, warnings = settle_saves(saves, tmp_path, None, "http://h/", ["h"])
    assert seen == {"c.html"} and urls == {"c.html": "http://h/c.html"} and not (tmp_path / "a.html").exists()
    assert warnings == ["http://h/a.html answered from another host (http://x/b.html): not archived"]


def load_config_site(line: str):
    from tempfile import TemporaryDirectory

    with TemporaryDirectory() as tmp:
        return load_config(write_config(Path(tmp), f'[[site]]\nname = "s"\n{line}\n')).sites[0]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "siterag.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)


@pytest.mark.bad_input
def test_two_ports_of_one_host_are_refused_in_one_line(tmp_path):
    cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "{tmp_path / "data"}"\n[[site]]\nname = "p"\n'
                                 'start_urls = ["http://127.0.0.1:8000/index.html", "http://127.0.0.1:8001/"]\n')
    res = run_cli("--config", str(cfg), "run")
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr[-2000:]
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("siterag: error: ")
    assert "several ports of 127.0.0.1 (8000, 8001)" in res.stderr and "one site per port" in res.stderr
    # one port (the scheme's default written or not) is one site
    assert load_config_site('start_urls = ["http://h/a.html", "http://h:80/b.html", "https://h/c.html"]')


@pytest.mark.bad_input
def test_local_path_symlink_loop_is_one_line(tmp_path):
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "{tmp_path / "data"}"\n[[site]]\nname = "l"\n'
                                 f'local_path = "{tmp_path / "loop"}"\n')
    res = run_cli("--config", str(cfg), "run")
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr[-2000:]
    assert res.stderr.count("\n") == 1 and "symlink loop" in res.stderr


@pytest.mark.bad_input
def test_a_start_page_that_redirects_to_another_host_is_one_clear_error(tmp_path):
    from siterag.acquire.mirror import MirrorError, run_wget

    site = TrickySite()
    site.page("/index.html", b"", status=301, Location=f"{site.other}/new/index.html")
    site.page("/new/index.html", page("MOVED", "引っ越し先のページ"))
    cfg = load_config(write_config(tmp_path, f'[[site]]\nname = "r"\nstart_urls = ["{site.url}/index.html"]\n'))
    try:
        with pytest.raises(MirrorError) as err:
            run_wget(cfg.sites[0], tmp_path / "m", tmp_path / "logs" / "wget.log")
    finally:
        site.stop()
    assert "answered from another host" in str(err.value) and f"{site.other}/new/index.html" in str(err.value)
    assert not err.value.retryable and not [p for p in (tmp_path / "m").rglob("*") if p.is_file()]


@pytest.mark.bad_input
def test_a_file_name_that_is_not_utf8_is_one_warning_not_a_crash(tmp_path):
    from siterag.pipeline import normalize_pages, select_pages

    mirror = tmp_path / "m"
    mirror.mkdir()
    (mirror / "ok.html").write_text(page("普通", "普通の名前のページ"), encoding="utf-8")
    Path(os.fsdecode(bytes(mirror) + b"/" + "日記".encode("cp932") + b".html")).write_bytes(b"<html><p>x</p></html>")
    select = select_pages(mirror, tmp_path / "logs")
    assert select.pages == ["ok.html"] and len(select.warnings) == 1 and "not UTF-8" in select.warnings[0]
    normalize_pages(mirror, tmp_path / "n", select.pages)
    assert (tmp_path / "n" / "ok.html").exists()


@pytest.mark.bad_input
def test_a_refresh_list_of_a_site_with_credentials_keeps_its_urls_and_no_password(tmp_path):
    """wget's log writes `alice:*password*@…`: the saved list holds the URLs without user info, and a refresh asks
    them with the start URL's credentials again."""
    from siterag.acquire.mirror import asked_urls, with_credentials

    start = ["http://alice:s3cret@127.0.0.1:8000/index.html"]
    log = ("--2026-12-03 12:00:00--  http://alice:*password*@127.0.0.1:8000/index.html\n"
           "--2026-12-03 12:00:01--  http://alice:*password*@127.0.0.1:8000/deep/page.html\n"
           "--2026-12-03 12:00:02--  http://127.0.0.1:9999/other.html\n")
    asked = asked_urls(log, start)
    assert asked == ["http://127.0.0.1:8000/index.html", "http://127.0.0.1:8000/deep/page.html"]
    assert with_credentials(asked[1], start) == "http://alice:s3cret@127.0.0.1:8000/deep/page.html"
    assert with_credentials("http://127.0.0.1:9999/other.html", start) == "http://127.0.0.1:9999/other.html"
