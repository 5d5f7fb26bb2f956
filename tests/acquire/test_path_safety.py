"""Nothing escapes the data folder (issue 28): one check (siterag.layout.safe_path) before every write and delete
by a name that came from a URL, a WARC record, a local folder or a file saved by an earlier run.

The WARC cases run the real CLI over WARC files made with warcio; the victim files sit next to the data folder."""

from __future__ import annotations

import json
import os

import pytest

from siterag.acquire import warc
from siterag.layout import SiteLayout, UnsafePath, safe_path, sweep_temp_files
from siterag.pipeline import MANIFEST, normalize_pages, select_pages
from tests.acquire.test_warc import ingest, page, record, siterag, warc_gz

UNSAFE = ["../x.html", "a/../../x.html", "/etc/passwd", "a//b.html", "./a.html", "a/./b.html", "a\\..\\b.html",
          "C:/x.html", "c:x.html", "a\x00b.html", "", "a/", ".."]


@pytest.mark.bad_input
@pytest.mark.parametrize("rel", UNSAFE)
def test_safe_path_refuses_every_way_out(tmp_path, rel):
    with pytest.raises(UnsafePath):
        safe_path(tmp_path, rel)


def test_safe_path_takes_plain_names_and_refuses_symlinks(tmp_path):
    assert safe_path(tmp_path, "dir/page.html") == tmp_path / "dir" / "page.html"
    assert safe_path(tmp_path, ".tmp-999999-notes.html") == tmp_path / ".tmp-999999-notes.html"
    assert safe_path(tmp_path, "%2e%2e/x.html") == tmp_path / "%2e%2e" / "x.html"  # a literal name, not `..`
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (tmp_path / "link").symlink_to(outside)
    with pytest.raises(UnsafePath):
        safe_path(tmp_path, "link/x.html")
    (tmp_path / "file-link").symlink_to(outside / "victim")
    with pytest.raises(UnsafePath):
        safe_path(tmp_path, "file-link")


@pytest.mark.parametrize("url, rel", [
    ("http://example.jp/../../../X.html", "X.html"),
    ("http://example.jp/a/%2e%2e/%2E%2e/%2e./X.html", "X.html"),
    ("http://example.jp/a/%2e%2e%2f%2e%2e%2fX.html", "a/..%2F..%2FX.html"),
    ("http://example.jp/a/..%5c..%5cX.html", "a/..%5C..%5CX.html"),
    ("http://example.jp/" + "../" * 30 + "tmp/victim", "tmp/victim"),
    ("http://example.jp/a/b/..", "a/index.html"),
    ("http://example.jp//a//b.html", "a/b.html"),
    ("http://example.jp/x.cgi?p=/../../etc/passwd", "x.cgi@p=%2F..%2F..%2Fetc%2Fpasswd.html"),
    ("http://example.jp/%252e%252e/x.html", "%2e%2e/x.html"),
])
def test_warc_paths_resolve_dot_segments_like_a_browser(tmp_path, url, rel):
    got = warc.wget_rel(url, is_html=url.endswith((".html", "..")) or "?" in url)
    assert got == rel
    assert safe_path(tmp_path, got).resolve().is_relative_to(tmp_path.resolve())


@pytest.mark.bad_input
def test_warc_records_cannot_write_or_delete_outside_the_mirror(tmp_path):
    data = tmp_path / "data"
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious")
    hostile = warc_gz(tmp_path / "hostile.warc.gz",
                      record("http://example.jp/index.html", page("Top")),
                      record("http://example.jp/" + "../" * 30 + str(victim).lstrip("/"), b"overwritten",
                             ctype="text/plain"),
                      record("http://example.jp/%2e%2e/%2e%2e/%2e%2e/X.html", page("Escaped")),
                      record("http://example.jp/../../corpus/other/_index.md", b"planted", ctype="text/plain"))
    cfg = tmp_path / "sites.toml"
    cfg.write_text(f'[defaults]\ndata_dir = "data"\n[[site]]\nname = "w"\nwarc_files = ["{hostile}"]\n'
                   f'hosts = ["example.jp/taro"]\n[[site]]\nname = "w2"\nwarc_files = ["{hostile}"]\n',
                   encoding="utf-8")
    done = siterag(tmp_path, cfg, "run", "w2")
    assert done.returncode == 0, done.stderr
    assert victim.read_bytes() == b"precious"
    assert not (tmp_path / "X.html").exists() and not (data / "X.html").exists()
    assert not (data / "corpus" / "other").exists()
    inside = {p.relative_to(data / "mirror" / "w2").as_posix() for p in (data / "mirror" / "w2").rglob("*")
              if p.is_file()}
    assert inside == {"index.html", victim.as_posix().lstrip("/"), "X.html", "corpus/other/_index.md"}
    # a captures.json naming paths outside (written by an earlier version, or by hand) deletes nothing outside
    captures = data / "logs" / "w2" / warc.CAPTURES
    saved = json.loads(captures.read_text(encoding="utf-8"))
    saved["../../../victim.txt"] = saved["index.html"]
    captures.write_text(json.dumps(saved), encoding="utf-8")
    again = siterag(tmp_path, cfg, "run", "w2")
    assert again.returncode == 0, again.stderr
    assert victim.read_bytes() == b"precious"


@pytest.mark.bad_input
def test_a_symlink_planted_in_the_mirror_is_not_followed_by_a_warc_write(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    mirror = tmp_path / "mirror"
    (mirror).mkdir()
    (mirror / "dir").symlink_to(outside)
    files = [warc_gz(tmp_path / "a.warc.gz", record("http://example.jp/", page("Top")),
                     record("http://example.jp/dir/page.html", page("Through a link")))]
    result = ingest(tmp_path, files)
    assert list(outside.iterdir()) == []
    assert "index.html" in result.seen and "dir/page.html" not in result.seen
    assert any("symlink" in w for w in result.warnings)


@pytest.mark.bad_input
def test_manifest_names_outside_the_folder_are_never_deleted(tmp_path):
    mirror, normalized = tmp_path / "mirror", tmp_path / "normalized"
    mirror.mkdir()
    (mirror / "a.html").write_bytes(page("A"))
    victim = tmp_path / "victim.html"
    victim.write_text("precious", encoding="utf-8")
    normalize_pages(mirror, normalized, ["a.html"])
    manifest = normalized / MANIFEST
    saved = json.loads(manifest.read_text(encoding="utf-8"))
    saved["../victim.html"] = saved["a.html"]
    manifest.write_text(json.dumps(saved), encoding="utf-8")
    normalize_pages(mirror, normalized, ["a.html"])
    assert victim.read_text(encoding="utf-8") == "precious"


@pytest.mark.bad_input
def test_a_real_page_named_like_a_temp_file_is_archived_and_never_swept(tmp_path):
    layout = SiteLayout(tmp_path / "data", "s")
    layout.mirror.mkdir(parents=True)
    real = layout.mirror / ".tmp-999999-notes.html"
    real.write_bytes(page("Notes"))
    (layout.mirror / "index.html").write_bytes(page("Top"))
    (layout.logs).mkdir(parents=True)
    assert sweep_temp_files(layout.mirror) == []
    assert real.exists()
    assert ".tmp-999999-notes.html" in select_pages(layout.mirror, layout.logs).pages
    leftover = layout.mirror / ".tmp-999999-x.siterag-tmp"  # a dead process's own temp file still goes
    leftover.write_bytes(b"half")
    assert sweep_temp_files(layout.mirror) == [leftover]
    hidden = layout.mirror / ".git" / "index.html"  # hidden folders stay out
    hidden.parent.mkdir()
    hidden.write_bytes(page("Git"))
    assert ".git/index.html" not in select_pages(layout.mirror, layout.logs).pages
    assert os.path.exists(real)


@pytest.mark.bad_input
def test_a_warc_decompression_bomb_is_skipped_without_reading_it_whole(tmp_path, monkeypatch):
    import gzip

    monkeypatch.setattr(warc, "MAX_PAYLOAD", 1 << 20)
    bomb = gzip.compress(b"<html>" + b" " * (8 << 20), 9)
    files = [warc_gz(tmp_path / "a.warc.gz", record("http://example.jp/", page("Top")),
                     record("http://example.jp/bomb.html", bomb, headers=(("Content-Encoding", "gzip"),)))]
    result = ingest(tmp_path, files)
    assert result.seen == {"index.html"}
    assert any("bomb.html" in w and "MiB" in w for w in result.warnings), result.warnings


@pytest.mark.bad_input
def test_credentials_in_warc_capture_urls_never_reach_the_mirror_records(tmp_path):
    files = [warc_gz(tmp_path / "a.warc.gz", record("http://alice:pw@example.jp/", page("Top")))]
    result = ingest(tmp_path, files)
    assert result.captures["index.html"]["url"] == "http://example.jp/"
    saved = (tmp_path / "logs" / warc.CAPTURES).read_text(encoding="utf-8")
    assert "alice" not in saved and "pw@" not in saved


@pytest.mark.bad_input
def test_a_warc_name_over_255_bytes_is_cut_as_a_crawl_cuts_it(tmp_path):
    long = "日記" * 60  # 360 bytes in UTF-8
    files = [warc_gz(tmp_path / "a.warc.gz", record("http://example.jp/", page("Top")),
                     record(f"http://example.jp/d/{long}.html", page("Long")))]
    result = ingest(tmp_path, files)
    cut = [rel for rel in result.seen if rel.startswith("d/")]
    assert len(cut) == 1 and len(cut[0].split("/")[-1].encode()) <= 236, result.warnings
    assert (tmp_path / "mirror" / cut[0]).read_bytes() == page("Long")
