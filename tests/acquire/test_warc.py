"""WARC in and out (issue 14): real wget writes WARC on 127.0.0.1, siterag reads WARC/WACZ back into a site.

The round trip (crawl with `warc = true`, then a second site from only those WARC files) runs the real CLI; the
bad inputs read hand-made WARCs (warcio's own writer, then damaged on purpose) through the stage function."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from siterag.acquire import warc
from siterag.acquire.mirror import MirrorError, mirror_site
from siterag.config import ConfigError, SiteConfig, load_config
from siterag.layout import SiteLayout
from siterag.pipeline import corpus_docs, normalize_pages
from tests.conftest import EXAMPLE_SITE, serve_dir, write_config

PROVENANCE = {"site", "source", "url", "captured_at", "processed_at"}


def record(url: str, body: bytes, date: str = "2009-05-01T10:00:00Z", ctype: str = "text/html",
           status: str = "200 OK", version: str = "1.0", kind: str = "response", headers: tuple = ()) -> bytes:
    """One WARC record (uncompressed bytes) made by warcio's writer."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    out = io.BytesIO()
    writer = WARCWriter(out, gzip=False, warc_version=version)
    http = StatusAndHeaders(status, [("Content-Type", ctype), *headers], protocol="HTTP/1.1")
    rec = writer.create_warc_record(url, kind, payload=io.BytesIO(body), http_headers=http,
                                    warc_headers_dict={"WARC-Date": date})
    writer.write_record(rec)
    return out.getvalue()


def warc_gz(path: Path, *records: bytes) -> Path:
    """A .warc.gz: one gzip member per record, as wget and warcio write them."""
    path.write_bytes(b"".join(gzip.compress(r) for r in records))
    return path


def page(title: str, text: str = "") -> bytes:
    return (f"<html><head><title>{title}</title></head><body><h1>{title}</h1>"
            f"<p>{text or title + ' の本文です。' * 8}</p></body></html>").encode()


def ingest(tmp_path: Path, files: list[Path], hosts: tuple[str, ...] = (), until: str = "") -> warc.IngestResult:
    return warc.ingest([str(f) for f in files], hosts, until, tmp_path / "mirror", tmp_path / "logs")


def siterag(cwd: Path, cfg: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PREFECT_HOME": str(cwd / "prefect-home")}
    return subprocess.run([sys.executable, "-m", "siterag.cli", "--config", str(cfg), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900)


# --- the stage: captures laid out as wget would ------------------------------------------------------------------

def test_captures_become_the_pages_at_their_wget_paths(tmp_path):
    files = [warc_gz(tmp_path / "a.warc.gz",
                     record("http://www.example.ne.jp/", page("Top")),
                     record("http://www.example.ne.jp/diary/nikki.cgi?y=2003", page("Diary")),
                     record("http://www.example.ne.jp/about", page("About"), ctype="text/html; charset=Shift_JIS"),
                     record("http://www.example.ne.jp/img/a.gif", b"GIF89a\x01\x00", ctype="image/gif"),
                     record("http://www.example.ne.jp/old.html", b"", status="301 Moved Permanently",
                            headers=(("Location", "/about"),)),
                     record("http://www.example.ne.jp/gone.html", page("Gone"), status="404 Not Found"))]
    result = ingest(tmp_path, files)
    assert result.seen == {"index.html", "diary/nikki.cgi@y=2003.html", "about.html", "img/a.gif"}
    assert (tmp_path / "mirror" / "about.html").read_bytes() == page("About")
    saved = json.loads((tmp_path / "logs" / warc.CAPTURES).read_text())
    assert saved["about.html"]["url"] == "http://www.example.ne.jp/about"
    assert saved["about.html"]["captured_at"] == "2009-05-01T10:00:00Z"
    assert saved["about.html"]["charset"] == "shift_jis"  # the hint passed on to encoding detection


def test_latest_capture_wins_capture_until_picks_an_earlier_one_and_revisits_resolve(tmp_path):
    old, new = page("Old", "古い版の日記です。" * 6), page("New", "新しい版の日記です。" * 6)
    first = record("http://h.jp/d.html", old, date="2008-01-01T00:00:00Z")
    files = [warc_gz(tmp_path / "1.warc.gz", first),
             warc_gz(tmp_path / "2.warc.gz", record("http://h.jp/d.html", new, date="2010-06-01T00:00:00Z")),
             warc_gz(tmp_path / "3.warc.gz", revisit_of(first, "2011-01-01T00:00:00Z"))]
    ingest(tmp_path, files)  # the latest is the 2011 revisit, whose payload is the 2008 one
    assert (tmp_path / "mirror" / "d.html").read_bytes() == old
    assert warc.capture_info(tmp_path / "logs")["d.html"]["captured_at"] == "2011-01-01T00:00:00Z"
    ingest(tmp_path, files, until="2010-12-31")
    assert (tmp_path / "mirror" / "d.html").read_bytes() == new
    assert warc.capture_info(tmp_path / "logs")["d.html"]["captured_at"] == "2010-06-01T00:00:00Z"


def revisit_of(original: bytes, date: str) -> bytes:
    """A revisit record (identical-payload-digest) pointing at `original`, as wget --warc-dedup writes one."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.warcwriter import WARCWriter

    rec = next(iter(ArchiveIterator(io.BytesIO(original))))
    out = io.BytesIO()
    writer = WARCWriter(out, gzip=False)
    url = rec.rec_headers.get_header("WARC-Target-URI")
    visit = writer.create_revisit_record(url, rec.rec_headers.get_header("WARC-Payload-Digest"), url,
                                         rec.rec_headers.get_header("WARC-Date"), http_headers=rec.http_headers)
    visit.rec_headers.replace_header("WARC-Date", date)
    writer.write_record(visit)
    return out.getvalue()


def test_host_prefixes_merge_a_site_that_moved(tmp_path):
    files = [warc_gz(tmp_path / "a.warc.gz",
                     record("http://www.geocities.jp/taro/index.html", page("Top"), date="2001-01-01T00:00:00Z"),
                     record("http://www.geocities.jp/taro/a.html", page("A")),
                     record("http://www.geocities.jp/hanako/index.html", page("Someone else")),
                     record("http://taro.example.jp/b.html", page("B")),
                     record("http://taro.example.jp/index.html", page("Top, moved"), date="2005-01-01T00:00:00Z"))]
    result = ingest(tmp_path, files, hosts=("www.geocities.jp/taro", "taro.example.jp"))
    assert result.seen == {"index.html", "a.html", "b.html"}
    assert (tmp_path / "mirror" / "index.html").read_bytes() == page("Top, moved")
    assert any("other hosts" in w or "hanako" not in w for w in result.warnings)


def test_adding_a_file_rewrites_only_changed_pages_and_removing_one_removes_only_its_own(tmp_path):
    one = warc_gz(tmp_path / "one.warc.gz", record("http://h.jp/a.html", page("A")),
                  record("http://h.jp/only-in-one.html", page("Only")))
    ingest(tmp_path, [one])
    a_stat = (tmp_path / "mirror" / "a.html").stat()
    two = warc_gz(tmp_path / "two.warc.gz", record("http://h.jp/a.html", page("A"), date="2010-01-01T00:00:00Z"),
                  record("http://h.jp/b.html", page("B"), date="2010-01-01T00:00:00Z"))
    result = ingest(tmp_path, [one, two])
    assert result.written == 1  # b.html; a.html holds the same bytes
    assert (tmp_path / "mirror" / "a.html").stat().st_mtime_ns == a_stat.st_mtime_ns
    assert warc.capture_info(tmp_path / "logs")["a.html"]["captured_at"] == "2009-05-01T10:00:00Z"
    result = ingest(tmp_path, [two])
    assert result.seen == {"a.html", "b.html"} and result.removed == 1
    assert not (tmp_path / "mirror" / "only-in-one.html").exists() and (tmp_path / "mirror" / "a.html").exists()


def test_flow_refresh_redoes_only_changed_pages_and_removes_only_pages_of_a_removed_file(tmp_path):
    """The real flow over a folder of captures: a new file re-does only the pages whose payload changed; removing
    a file removes only the pages that no other file holds (and the others name the capture that holds them)."""
    from prefect.testing.utilities import prefect_test_harness

    from flows.site import site_flow

    caps = tmp_path / "captures"
    caps.mkdir()
    url = "http://www.example.ne.jp/~taro/"
    warc_gz(caps / "2009.warc.gz", record(url + "a.html", page("A"), date="2009-05-01T00:00:00Z"),
            record(url + "edited.html", page("Edited", "最初の版です。" * 9), date="2009-05-01T00:00:00Z"),
            record(url + "only.html", page("Only"), date="2009-05-01T00:00:00Z"))
    cfg = write_config(tmp_path, '[defaults]\ndata_dir = "data"\n[[site]]\nname = "w"\n'
                                 'warc_files = ["captures/*.warc.gz"]\nhosts = ["www.example.ne.jp/~taro"]\n')
    layout = SiteLayout(tmp_path / "data", "w")
    with prefect_test_harness(server_startup_timeout=120):
        first = site_flow("w", str(cfg))
        assert first["new"] == 3, first
        fields = docs(tmp_path, "w")["a.md"][0]
        assert fields["url"] == url + "a.html" and fields["captured_at"] == "2009-05-01T00:00:00Z"
        assert fields["date"] == "2009-05-01" and fields["date_from"] == "capture"
        warc_gz(caps / "2010.warc.gz", record(url + "a.html", page("A"), date="2010-01-01T00:00:00Z"),
                record(url + "edited.html", page("Edited", "二番目の版です。" * 9), date="2010-01-01T00:00:00Z"),
                record(url + "new.html", page("New"), date="2010-01-01T00:00:00Z"))
        second = site_flow("w", str(cfg))
        assert (second["new"], second["changed"], second["unchanged"]) == (1, 1, 2), second
        assert docs(tmp_path, "w")["a.md"][0]["captured_at"] == "2009-05-01T00:00:00Z"  # same bytes since 2009
        (caps / "2009.warc.gz").unlink()
        third = site_flow("w", str(cfg))
        assert third["removed"] == ["only.md"] and third["unchanged"] == 3, third
    after = docs(tmp_path, "w")
    assert sorted(after) == ["a.md", "edited.md", "new.md"]
    assert after["a.md"][0]["captured_at"] == "2010-01-01T00:00:00Z" and after["a.md"][0]["date"] == "2010-01-01"
    assert not (layout.mirror / "only.html").exists()


# --- bad input: each is one clear line, and the other records' pages all come out -------------------------------

GOOD = [("http://h.jp/good1.html", "Good one"), ("http://h.jp/good2.html", "Good two")]


def good_records() -> list[bytes]:
    return [record(url, page(title)) for url, title in GOOD]


def assert_good_pages_kept(tmp_path: Path, result: warc.IngestResult) -> None:
    for url, title in GOOD:
        rel = url.rsplit("/", 1)[1]
        assert rel in result.seen and (tmp_path / "mirror" / rel).read_bytes() == page(title)


@pytest.mark.bad_input
def test_truncated_gzip_member_keeps_the_records_before_it(tmp_path):
    whole = warc_gz(tmp_path / "cut.warc.gz", *good_records(), record("http://h.jp/last.html", page("Last")))
    whole.write_bytes(whole.read_bytes()[:-40])
    result = ingest(tmp_path, [whole])
    assert_good_pages_kept(tmp_path, result)
    lines = [w for w in result.warnings if "cut.warc.gz" in w]
    assert len(lines) == 1 and "damaged" in lines[0] and "last.html" not in result.seen, result.warnings


@pytest.mark.bad_input
def test_record_whose_content_length_lies_is_skipped(tmp_path):
    liar = record("http://h.jp/liar.html", page("Liar", "この記録の長さは嘘です。" * 10))
    length = int(liar.split(b"Content-Length: ")[1].split(b"\r\n")[0])
    liar = liar.replace(f"Content-Length: {length}".encode(), f"Content-Length: {length - 60}".encode())
    files = [warc_gz(tmp_path / "lie.warc.gz", good_records()[0], liar, good_records()[1])]
    result = ingest(tmp_path, files)
    assert_good_pages_kept(tmp_path, result)
    assert "liar.html" not in result.seen
    assert len([w for w in result.warnings if "liar.html" in w]) == 1, result.warnings


@pytest.mark.bad_input
@pytest.mark.parametrize("lie", [-60, +60])
def test_content_length_that_lies_in_an_uncompressed_warc_costs_only_its_record(tmp_path, lie, capfd):
    liar = record("http://h.jp/liar.html", page("Liar", "この記録の長さは嘘です。" * 10))
    length = int(liar.split(b"Content-Length: ")[1].split(b"\r\n")[0])
    liar = liar.replace(f"Content-Length: {length}".encode(), f"Content-Length: {length + lie}".encode())
    plain = tmp_path / "plain.warc"
    plain.write_bytes(good_records()[0] + liar + good_records()[1] + record("http://h.jp/after.html", page("After")))
    result = ingest(tmp_path, [plain])
    assert_good_pages_kept(tmp_path, result)
    assert "after.html" in result.seen and "liar.html" not in result.seen
    assert len([w for w in result.warnings if "liar.html" in w]) == 1, result.warnings
    assert "WARNING" not in capfd.readouterr().err  # warcio's own multi-line notice stays off the terminal


@pytest.mark.bad_input
def test_warc_1_1_is_read(tmp_path):
    files = [warc_gz(tmp_path / "new.warc.gz", *good_records(),
                     record("http://h.jp/v11.html", page("WARC 1.1"), date="2019-03-04T05:06:07.123456Z",
                            version="1.1"))]
    result = ingest(tmp_path, files)
    assert_good_pages_kept(tmp_path, result)
    assert warc.capture_info(tmp_path / "logs")["v11.html"]["captured_at"] == "2019-03-04T05:06:07Z"
    assert b"WARC/1.1" in gzip.decompress(files[0].read_bytes())


@pytest.mark.bad_input
def test_a_file_that_is_not_warc_is_one_line(tmp_path):
    bogus = tmp_path / "page.warc.gz"
    bogus.write_bytes(page("Not a WARC"))
    result = ingest(tmp_path, [bogus, warc_gz(tmp_path / "ok.warc.gz", *good_records())])
    assert_good_pages_kept(tmp_path, result)
    assert [w for w in result.warnings if "page.warc.gz" in w] == \
        [w for w in result.warnings if "page.warc.gz: not a WARC file" in w] != []


@pytest.mark.bad_input
def test_duplicate_captures_of_one_url_make_one_page(tmp_path):
    files = [warc_gz(tmp_path / "dup.warc.gz", *good_records(),
                     record("http://h.jp/same.html", page("First")),
                     record("http://h.jp/same.html", page("Second")))]  # same URL, same WARC-Date
    result = ingest(tmp_path, files)
    assert_good_pages_kept(tmp_path, result)
    assert (tmp_path / "mirror" / "same.html").read_bytes() == page("Second")  # the later record


@pytest.mark.bad_input
def test_wacz_without_its_index_is_read_in_full_with_one_line(tmp_path):
    body = b"".join(gzip.compress(r) for r in good_records())
    package = tmp_path / "site.wacz"
    with zipfile.ZipFile(package, "w") as z:
        z.writestr("archive/data.warc.gz", body)  # no indexes/, no datapackage.json
    result = ingest(tmp_path, [package])
    assert_good_pages_kept(tmp_path, result)
    assert len([w for w in result.warnings if "without its index" in w]) == 1


@pytest.mark.bad_input
def test_body_in_an_undeclared_charset_is_decoded(tmp_path):
    text = "日記：今日は雨でした。明日は晴れるでしょうか。" * 5
    raw = f"<html><head><title>雨</title></head><body><p>{text}</p></body></html>".encode("cp932")
    files = [warc_gz(tmp_path / "sjis.warc.gz", *good_records(), record("http://h.jp/sjis.html", raw),
                     record("http://h.jp/hinted.html", raw, ctype="text/html; charset=Shift_JIS"))]
    result = ingest(tmp_path, files)
    assert_good_pages_kept(tmp_path, result)
    manifest = normalize_pages(tmp_path / "mirror", tmp_path / "norm", sorted(result.seen),
                               warc.capture_info(tmp_path / "logs"))
    for rel in ("sjis.html", "hinted.html"):
        assert text in (tmp_path / "norm" / rel).read_text(encoding="utf-8")
        assert manifest[rel]["url"] == f"http://h.jp/{rel}"
    assert manifest["hinted.html"]["http_charset"] == "shift_jis"


@pytest.mark.bad_input
def test_no_usable_file_is_one_error_line(tmp_path):
    bogus = tmp_path / "x.warc"
    bogus.write_text("hello")
    site = SiteConfig(name="w", warc_files=(str(bogus), str(tmp_path / "missing/*.warc.gz")))
    with pytest.raises(MirrorError) as caught:
        mirror_site(site, tmp_path / "mirror", tmp_path / "logs")
    message = str(caught.value)
    assert "\n" not in message and "no page in the WARC files" in message and "x.warc: not a WARC file" in message
    assert not caught.value.retryable


def test_config_keys_are_checked_one_line_each(tmp_path):
    (tmp_path / "c").mkdir()
    base = '[[site]]\nname = "w"\n'
    cfg = load_config(write_config(tmp_path, base + 'warc_files = ["c/*.warc.gz"]\nhosts = ["www.example.ne.jp"]\n'
                                               'capture_until = 2009-12-31\n'))
    site = cfg.sites[0]
    assert site.is_warc and site.warc_files == (str(tmp_path / "c/*.warc.gz"),) and site.capture_until == "2009-12-31"
    for body, words in [('warc_files = ["a.warc"]\nstart_urls = ["http://h.jp/"]\n', "has both start_urls and"),
                        ('warc_files = ["a.warc"]\ncapture_until = "last year"\n', "capture_until: must be a date"),
                        ('warc_files = ["a.warc"]\nhosts = ["no such host"]\n', "is not a host name"),
                        ('local_path = "c"\nwarc = true\n', "only for a site with start_urls"),
                        ("warc_files = []\n", "warc_files: is empty")]:
        with pytest.raises(ConfigError) as caught:
            load_config(write_config(tmp_path, base + body))
        assert words in str(caught.value) and "\n" not in str(caught.value), str(caught.value)


# --- real wget: WARC out, old host names, and a second site from only those WARC files ---------------------------

def test_crawl_writes_warc_and_a_second_site_from_those_files_has_the_same_corpus(tmp_path):
    """The round trip through the real CLI: site `a` is crawled with `warc = true`, site `b` is only
    `warc_files = data/warc/a/*.warc.gz`; their corpora differ only in provenance. A second crawl records
    revisits, and search shows the original URL and capture date."""
    server, url = serve_dir(EXAMPLE_SITE)
    try:
        cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "data"\n'
                                     f'[[site]]\nname = "a"\nstart_urls = ["{url}/index.html", "{url}/frames.html"]\n'
                                     f'warc = true\n'
                                     f'[[site]]\nname = "b"\nwarc_files = ["data/warc/a/*.warc.gz"]\n')
        first = siterag(tmp_path, cfg, "run", "a")
        assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
        second = siterag(tmp_path, cfg, "run", "a", "b")  # a refresh of a, then b from a's two WARC files
        assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    finally:
        server.shutdown()
    warcs = sorted((tmp_path / "data" / "warc" / "a").glob("*.warc.gz"))
    assert len(warcs) == 2 and len(list(warcs[0].parent.glob("*.cdx"))) == 2
    kinds = [warc_kinds(w) for w in warcs]
    assert kinds[0].get("response", 0) >= 6 and kinds[1].get("revisit", 0) >= 6 and not kinds[1].get("response")
    a, b = (docs(tmp_path, name) for name in ("a", "b"))
    assert a.keys() == b.keys() and len(a) >= 4
    for rel, (fa, body_a) in a.items():
        fb, body_b = b[rel]
        assert body_a.replace("/mirror/a/", "/mirror/b/") == body_b, rel  # links to each site's own mirror
        assert fb["url"] == fa["url"] == f"{url}/{fa['path']}"
        assert fb["captured_at"] and "captured_at" not in fa
        if fb.get("date_from") == "capture":  # dated by its capture only where nothing else dates the page
            assert not fa["date"] and fb["date"] == fb["captured_at"][:10]
            fb = {k: v for k, v in fb.items() if k not in ("date", "date_from")}
            fa = {k: v for k, v in fa.items() if k != "date"}
        mine = {*PROVENANCE, "body_hash"}  # the body's hash: of its links to its own mirror
        assert {k: v for k, v in fa.items() if k not in mine} == {k: v for k, v in fb.items() if k not in mine}, rel
    found = siterag(tmp_path, cfg, "search", "--site", "b", "紅茶")
    assert found.returncode == 0, found.stdout + found.stderr
    assert f"{url}/" in found.stdout and "captured 20" in found.stdout


def warc_kinds(path: Path) -> dict[str, int]:
    from warcio.archiveiterator import ArchiveIterator

    counts: dict[str, int] = {}
    with path.open("rb") as fh:
        for rec in ArchiveIterator(fh):
            counts[rec.rec_type] = counts.get(rec.rec_type, 0) + 1
    return counts


def docs(tmp_path: Path, site: str) -> dict[str, tuple[dict, str]]:
    return {rel: (fields, body) for rel, fields, body in corpus_docs(SiteLayout(tmp_path / "data", site))}


def test_links_to_old_host_names_are_crawled_from_the_served_host(tmp_path):
    www = tmp_path / "www"
    shutil.copytree(EXAMPLE_SITE, www)
    (www / "hidden").mkdir()
    (www / "hidden" / "only.html").write_bytes(page("Only linked by its old host name"))
    (www / "hidden" / "next.html").write_bytes(page("Linked from the hidden page"))
    (www / "hidden" / "only.html").write_bytes(page("Hidden").replace(b"</body>", b'<a href="next.html">n</a></body>'))
    index = www / "index.html"
    index.write_bytes(index.read_bytes().replace(
        b"</body>", b'<a href="http://www.example.ne.jp/hidden/only.html">old link</a></body>'))
    server, url = serve_dir(www)
    try:
        plain = SiteConfig(name="p", start_urls=(url + "/index.html",))
        without = mirror_site(plain, tmp_path / "p", tmp_path / "plog")
        site = SiteConfig(name="h", start_urls=(url + "/index.html",), hosts=("www.example.ne.jp",))
        result = mirror_site(site, tmp_path / "h", tmp_path / "hlog")
    finally:
        server.shutdown()
    assert "hidden/only.html" not in without.seen
    assert {"hidden/only.html", "hidden/next.html"} <= result.seen and result.complete
    assert (tmp_path / "h" / "hidden" / "next.html").is_file()


def shared_site_with_pages(shared: Path) -> Path:
    """The shared site with the fewest files (the test stays short), which has HTML pages."""
    sites = sorted((sum(1 for _ in s.rglob("*")), s) for s in shared.iterdir() if (s / "index.html").is_file())
    return sites[0][1]


def test_shared_site_wget_warc_and_a_wacz_lay_out_the_same_mirror(tmp_path, shared_sites):
    """A real legacy site crawled by wget with WARC output: reading the WARC back, and a WACZ packed from it (by
    hand, to the WACZ 1.1.1 layout: archive/, indexes/index.cdx, pages/pages.jsonl, datapackage.json), lays out
    exactly the files wget saved."""
    site_dir = shared_site_with_pages(shared_sites)
    server, url = serve_dir(site_dir)
    try:
        crawl = SiteConfig(name="c", start_urls=(url + "/index.html",), warc=True, quota="inf")
        crawled = mirror_site(crawl, tmp_path / "data" / "mirror" / "c", tmp_path / "data" / "logs" / "c")
    finally:
        server.shutdown()
    (warc_file,) = (tmp_path / "data" / "warc" / "c").glob("*.warc.gz")
    (cdx,) = (tmp_path / "data" / "warc" / "c").glob("*.cdx")
    wacz = make_wacz(tmp_path / "c.wacz", warc_file, cdx)
    for name, source in (("w", warc_file), ("z", wacz)):
        read = mirror_site(SiteConfig(name=name, warc_files=(str(source),)), tmp_path / name, tmp_path / f"{name}log")
        for rel in read.seen & crawled.seen:
            assert (tmp_path / name / rel).read_bytes() == (crawled.root / rel).read_bytes(), rel
        # A page reached by a redirect: wget names it after the URL it asked for (TownDigitizing.html), siterag
        # after the URL the redirect names (TownDigitizing/index.html); the same bytes either way.
        renamed = read.seen ^ crawled.seen
        assert len(renamed) <= 0.02 * len(crawled.seen), sorted(renamed)
        ours, wgets = ({(root / rel).read_bytes() for rel in paths} for root, paths in
                       ((tmp_path / name, read.seen), (crawled.root, crawled.seen)))
        assert ours == wgets, sorted(renamed)
        assert not [w for w in read.warnings if "index" in w], read.warnings


def make_wacz(path: Path, warc_file: Path, cdx: Path) -> Path:
    """A WACZ package (a zip: archive/<warc>, indexes/index.cdx, pages/pages.jsonl, datapackage.json)."""
    data = warc_file.read_bytes()
    pages = '{"format": "json-pages-1.0", "id": "pages", "title": "All Pages"}\n'
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr(f"archive/{warc_file.name}", data)
        z.writestr("indexes/index.cdx", cdx.read_bytes())
        z.writestr("pages/pages.jsonl", pages)
        resources = [{"name": name, "path": name, "hash": "sha256:" + hashlib.sha256(body).hexdigest(),
                      "bytes": len(body)} for name, body in ((f"archive/{warc_file.name}", data),
                                                            ("indexes/index.cdx", cdx.read_bytes()),
                                                            ("pages/pages.jsonl", pages.encode()))]
        z.writestr("datapackage.json", json.dumps({"profile": "data-package", "wacz_version": "1.1.1",
                                                   "resources": resources}))
    return path


def test_search_hits_read_url_and_capture_date_from_any_front_matter(tmp_path):
    from siterag.enrich.corpus import write_doc
    from siterag.search.search_api import Hit, add_provenance, provenance_line

    odd = "http://www.example.ne.jp/~taro/日記 it's #1: \"quoted\".html"
    write_doc(tmp_path / "corpus" / "s" / "a.md", "body", {"title": "t", "url": odd,
                                                            "captured_at": "2003-05-20T01:02:03Z"})
    write_doc(tmp_path / "corpus" / "s" / "b.md", "body", {"title": "t", "url": ""})
    hits = [Hit("s", p, "t", "", 0.0, "", "", f"s/{p}.md") for p in ("a", "b", "missing")]
    add_provenance(hits, tmp_path)
    assert (hits[0].url, hits[0].captured_at) == (odd, "2003-05-20T01:02:03Z")
    assert provenance_line(hits[0]) == f"{odd}, captured 2003-05-20"
    assert provenance_line(hits[1]) == provenance_line(hits[2]) == ""
