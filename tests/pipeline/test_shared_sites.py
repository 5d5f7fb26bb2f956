"""The real legacy sites: every Japanese page decodes and extracts to readable Japanese."""

import pytest

from siterag.acquire.purge import is_binary, looks_like_html
from siterag.enrich.quality import mojibake_signs
from siterag.extract.extract import extract_page
from siterag.normalize.encoding import japanese_score, to_utf8


@pytest.mark.shared
@pytest.mark.parametrize("site,share", [("fontforge-ja", 0.9), ("crest-digitalcity", 0.7)])  # crest: English pages too
def test_japanese_pages_extract_to_clean_japanese(shared_sites, site, share):
    pages = japanese = 0
    for path in sorted((shared_sites / site).rglob("*")):
        if not path.is_file() or path.name == "SOURCE.txt":
            continue
        data = path.read_bytes()
        if is_binary(data) or not looks_like_html(data) or not any(b >= 0x80 for b in data):
            continue
        html, det = to_utf8(data)
        result = extract_page(html, "heuristic")
        pages += 1
        assert mojibake_signs(result.markdown + result.title) == 0, (path, det)
        text = result.markdown + result.title
        if sum(ord(c) > 0x3000 for c in text) >= 10:  # Japanese text (an English page may hold a stray `～`)
            japanese += 1
            assert japanese_score(text) > 0.6, (path, det)
    assert pages > 100 and japanese > share * pages


@pytest.mark.shared
def test_frameset_and_table_layout_pages_of_the_shared_sites(shared_sites):
    frames = extract_page(to_utf8((shared_sites / "fontforge-ja/ja/IndexFS.html").read_bytes())[0], "heuristic")
    assert frames.mode == "frameset" and frames.frames
    page = extract_page(to_utf8((shared_sites / "fontforge-ja/ja/overview.html").read_bytes())[0], "heuristic")
    assert "FontForge を使うと PostScript, TrueType および OpenType フォントの作成・編集ができます" in page.markdown
