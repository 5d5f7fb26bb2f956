"""The quality gate: mojibake by evidence of a wrong decode, short pages apart from lost content, and pages
that are byte-for-byte copies of another (wget's query-string names) left out of the working set."""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path

import pytest

from siterag.enrich.corpus import corpus_paths, write_doc
from siterag.enrich.quality import (
    MOJIBAKE_RUN,
    check_page,
    log_lines,
    mojibake_score,
    mojibake_signs,
    text_chars,
)
from siterag.layout import SiteLayout
from siterag.normalize.encoding import to_utf8
from siterag.pipeline import PageOutcome, quality_report, remove_vanished, select_pages
from tests.conftest import ROOT

# Real Japanese prose (the example site's front page) and real European text.
JAPANESE = ("このサイトは、日本茶が大好きな管理人が、お茶の歴史や産地の話、道具の選び方などを気ままに書いている"
            "ホームページです。煎茶、玉露、ほうじ茶、番茶など、いろいろなお茶を紹介しています。"
            "おいしいお茶をいれるコツは、お湯の温度と時間です。煎茶なら七十度から八十度のお湯で一分ほど待つのがよいでしょう。")
EUROPEAN = "Our café in Müller’s old house serves a naïve crème brûlée — “the best in town”, says the résumé."


codecs.register_error("c1-controls", lambda e: (chr(e.object[e.start]), e.start + 1))


def windows_1252(data: bytes) -> str:
    """Decode as Windows and browsers do: cp1252, its five undefined bytes as C1 controls."""
    return data.decode("cp1252", errors="c1-controls")


def misdecode(text: str, wrote: str, read: str) -> str:
    data = text.encode(wrote, errors="replace")
    return windows_1252(data) if read == "windows-1252" else data.decode(read, errors="replace")


def without_hard_signs(text: str) -> str:
    """The mis-decoded text less U+FFFD, C1 controls and cp932's stray-byte characters: only runs are left."""
    return "".join(c for c in text if c != "\ufffd" and not 0x80 <= ord(c) <= 0x9F and not 0xF8F0 <= ord(c) <= 0xF8F3)


WRONG_DECODES = [
    ("utf-8", "cp932"),  # 縺薙・繧ｵ繧､繝...
    ("utf-8", "shift_jis"),
    ("utf-8", "windows-1252"),  # ã‚µã‚¤ãƒˆ...
    ("cp932", "windows-1252"),  # ‚±‚ÌƒTƒCƒg...
]


@pytest.mark.parametrize("wrote,read", WRONG_DECODES)
def test_japanese_decoded_with_the_wrong_codec_is_mojibake(wrote, read):
    garbled = misdecode(JAPANESE, wrote, read)
    assert mojibake_score(garbled).found and mojibake_signs(garbled) > 0
    # Not only by U+FFFD or C1 controls: the runs of repairable characters are the evidence.
    bare = without_hard_signs(garbled)
    score = mojibake_score(bare)
    assert score.hard == 0 and score.found and score.longest >= MOJIBAKE_RUN, score
    # One mis-decoded BBS post inside a long, genuine page is found too.
    post = without_hard_signs(misdecode("今日は新茶を飲みました。", wrote, read))
    assert mojibake_score(JAPANESE * 20 + "\n\n" + post + "\n\n" + JAPANESE).found


@pytest.mark.parametrize("wrote", ["utf-8", "cp932"])
def test_japanese_read_as_latin_1_is_mojibake(wrote):
    """Latin-1 reads bytes 0x80-0x9F as C1 controls, which no correct decode gives; the runs repair as well."""
    score = mojibake_score(misdecode(JAPANESE, wrote, "latin-1"))
    assert score.found and score.hard > 0 and score.longest >= MOJIBAKE_RUN, score


def test_european_utf8_read_as_cp1252_is_mojibake():
    garbled = misdecode(EUROPEAN, "utf-8", "windows-1252")  # cafÃ©, MÃ¼ller, â€™
    score = mojibake_score(without_hard_signs(garbled))
    assert score.found and "utf-8 read as latin-1" in score.kinds
    assert mojibake_score("A nice cafÃ© here.").found  # one word, all of the text's non-ASCII


def test_replacement_character_is_mojibake_by_itself():
    assert mojibake_signs("文字化け\ufffd") == 1
    assert mojibake_score("前半は正しい\ufffd後半も正しい").found


GENUINE = [
    JAPANESE,
    EUROPEAN,
    "Hello world, this is plain English text with numbers 1, 2, 3.",
    "Café, Müller, naïve, “ÉCOLE”, CAFÉ’s, SÃO PAULO, Nº 5, 20°C, ±3, ©2003, ½ cup, Ｓｏｎｙ",
    # half-width kana: i-mode novels, BBS posts, mobile mail
    "ｱｲｳｴｵ ｶｷｸｹｺ ﾃｽﾄ",
    "今日はﾏｼﾞで疲れたｰ(ﾟдﾟ)ｳﾏｰ ﾃｽﾄ終わったらｶﾗｵｹ行こうね!!ｵﾔｽﾐ☆",
    "ｷﾀ━━━(ﾟ∀ﾟ)━━━!! ｽﾚ立て乙ｶﾚｰ 漏れもｿﾚ欲しいｗ ｷﾞｶﾞﾜﾛｽ",
    "第三話 ｢ｻﾖﾅﾗ｣ 彼はｿｯと微笑んだ｡ ｢ﾎﾞｸは､ｷﾐのことがｽｷだよ｣ ﾃﾞｰﾄの帰り道､ﾜﾀｼは何も言えなかった｡",
    "ﾃｨｯｼｭ ｼﾞｬﾝｸﾌｰﾄﾞ ｶﾞｲﾄﾞﾌﾞｯｸ ﾁｬﾝﾈﾙ ｸﾞﾗﾌｨｯｸ ﾍﾟｰｼﾞ ﾎﾞﾀﾝ ｱｸｾｽｶｳﾝﾀｰ",
    "よくある質問",  # a short title whose cp932 bytes hold two valid UTF-8 characters (E6 82 AD, E9 8E BF), apart
    # one pair that happens to repair (縺ｧ is で mis-decoded) in long genuine text is no run
    JAPANESE * 5 + "縺ｧ" + JAPANESE,
]


@pytest.mark.parametrize("text", GENUINE, ids=range(len(GENUINE)))
def test_genuine_text_is_not_mojibake(text):
    assert not mojibake_score(text).found, mojibake_score(text)
    assert mojibake_signs(text) == 0
    assert "mojibake" not in check_page("p.md", text, {"title": text[:20]}).problems


def test_half_width_kana_page_is_not_flagged_but_its_wrong_decode_is():
    novel = GENUINE[7] * 30
    assert check_page("novel.md", novel, {"title": "ｹｰﾀｲ小説"}).problems == []
    assert "mojibake" in check_page("novel.md", misdecode(novel, "utf-8", "cp932"), {}).problems


def test_the_example_site_decodes_without_mojibake():
    pages = sorted((ROOT / "examples" / "site").rglob("*.html"))
    assert pages
    for path in pages:
        data = path.read_bytes()
        if path.name == "broken.html":  # the binary pretending to be HTML
            continue
        assert not mojibake_score(to_utf8(data)[0]).found, path


@pytest.mark.shared
def test_real_legacy_sites_have_no_mojibake_and_their_wrong_decodes_do(shared_sites):
    """Every page of the shared sites, half-width kana pages included, is clean; a mis-decoded copy is not."""
    from siterag.acquire.purge import is_binary, looks_like_html

    pages = kana_pages = 0
    for n, path in enumerate(sorted(p for p in shared_sites.rglob("*") if p.is_file())):
        data = path.read_bytes()
        if is_binary(data[:8192]) or not looks_like_html(data[:8192]):
            continue
        text = re.sub(r"<[^>]+>", " ", to_utf8(data)[0])
        pages += 1
        kana_pages += any(0xFF61 <= ord(c) <= 0xFF9F for c in text)
        assert not mojibake_score(text).found, (path, mojibake_score(text))
        if n % 5 == 0 and sum(1 for c in text if 0x3040 <= ord(c) <= 0x9FFF) >= 10:
            for wrote, read in WRONG_DECODES:
                garbled = misdecode(text, wrote, read)
                assert mojibake_score(garbled).found, (path, wrote, read)
    assert pages > 1000 and kana_pages > 50


def test_body_chars_leave_out_urls_and_markup():
    md = ("# 見出し\n\n本文です。[リンク](http://example.com/a/very/long/url.html) ![写真](img/a.jpg)\n\n"
          "- **項目** one\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<http://example.com/>\n")
    assert text_chars(md) == len("見出し") + len("本文です。リンク 写真") + len("項目 one") + len("a b") + len("1 2")


def test_short_is_a_note_and_lost_content_a_problem():
    body = "本文です。" * 20  # 100 chars
    assert check_page("p.md", "短い", {}).problems == [] and check_page("p.md", "短い", {}).notes == []  # no figures
    photo = check_page("photo.md", body, {}, {"visible": 180, "content": 120})  # short in the original too
    assert photo.problems == [] and photo.notes == ["short"]
    lost = check_page("long.md", body, {}, {"visible": 6000, "content": 4000})  # kept 100 of 4000
    assert lost.problems == ["lost_content"] and lost.notes == []
    kept = check_page("long.md", body * 25, {}, {"visible": 6000, "content": 4000})  # 2500 of 4000
    assert kept.problems == [] and kept.notes == []
    tiny = check_page("tiny.md", "写真", {}, {"visible": 150, "content": 100})  # 2 of 100: under half, but
    assert tiny.problems == [] and tiny.notes == ["short"]  # too few characters missing to mean anything
    both = check_page("both.md", "写真", {"fallback": "down"}, {"visible": 450, "content": 400})
    assert both.problems == ["lost_content", "llm_fallback"] and both.notes == ["short"]
    lines = log_lines([photo, lost], [])
    assert lines == ["[!] Lost content (kept 100 of 4000 non-template chars): long.md",
                     "[i] Short page (180 visible chars): photo.md"]


def page_html(text: str) -> bytes:
    return f"<html><head><title>t</title></head><body><p>{text}</p></body></html>".encode()


def make_mirror(mirror: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        (mirror / rel).parent.mkdir(parents=True, exist_ok=True)
        (mirror / rel).write_bytes(data)


def test_query_string_copy_and_byte_identical_pages_are_one_document(tmp_path):
    mirror, logs = tmp_path / "mirror", tmp_path / "logs"
    gig = page_html("ライブの予定です。")
    query_copy = "gigschedule.htm@%3F%3F%3F%3F.gif.html"  # a broken href, saved by wget
    make_mirror(mirror, {
        "gigschedule.htm": gig, query_copy: gig,
        "bbs/index.html": page_html("掲示板"), "bbs/index.htm": page_html("掲示板"),
        "read.cgi@id=1.html": page_html("一件目"), "read.cgi@id=2.html": page_html("二件目"),  # real pages
        "empty.html": b"", "empty2.html": b"",
    })
    result = select_pages(mirror, logs)
    assert result.duplicates == {query_copy: "gigschedule.htm", "bbs/index.htm": "bbs/index.html"}
    assert result.pages == ["bbs/index.html", "empty.html", "empty2.html", "gigschedule.htm",
                            "read.cgi@id=1.html", "read.cgi@id=2.html"]
    # The plain page is kept whichever sorts first, and the stale logic still applies before.
    seen = {"gigschedule.htm", query_copy, "bbs/index.html", "bbs/index.htm", "read.cgi@id=1.html",
            "read.cgi@id=2.html", "empty.html"}
    with_seen = select_pages(mirror, logs, seen)
    assert with_seen.stale == ["empty2.html"] and query_copy not in with_seen.pages
    # A copy that changes is a page of its own again.
    (mirror / query_copy).write_bytes(page_html("ライブの予定です。画像の説明。"))
    again = select_pages(mirror, logs)
    assert query_copy in again.pages and query_copy not in again.duplicates


def test_duplicates_in_the_report_and_on_refresh(tmp_path):
    layout = SiteLayout(tmp_path / "data", "s")
    gig = page_html("ライブの予定です。")
    copy = "gigschedule.htm@%3F%3F.gif.html"
    make_mirror(layout.mirror, {"gigschedule.htm": gig, copy: gig})
    # An earlier run (before copies were recognised) made a document of the copy too.
    for page in ("gigschedule.htm", copy):
        write_doc(layout.corpus / corpus_paths([page])[page], "ライブの予定です。", {"path": page})
    select = select_pages(layout.mirror, layout.logs)
    corpus_map = corpus_paths(select.pages)
    removed = remove_vanished(layout, set(corpus_map.values()))
    assert removed == [corpus_paths([copy])[copy]] and (layout.corpus / "gigschedule.md").exists()
    report = quality_report(layout, [PageOutcome("gigschedule.htm", "unchanged", "gigschedule.md")], removed,
                            select, page_chars={"gigschedule.htm": {"visible": 40, "content": 9}})
    assert {"path": copy, "note": "duplicate of gigschedule.htm"} in report["skipped_pages"]
    assert report["skipped"] == 1 and report["pages_seen"] == 2 and report["documents"] == 1
    assert report["duplicates"] == []  # the copy's document is gone: no "Duplicate body" left
    assert report["short"] == 1 and report["lost_content"] == 0 and report["problems"] == []
    assert report["short_pages"] == [{"path": "gigschedule.md", "visible": 40}]
    log = (layout.logs / "error.log").read_text(encoding="utf-8")
    assert f"[i] Duplicate page left out (same bytes as gigschedule.htm): {copy}" in log
    assert "[i] Short page (40 visible chars): gigschedule.md" in log
    assert json.loads((layout.logs / "report.json").read_text(encoding="utf-8"))["short"] == 1


def test_report_counts_lost_content_and_skips_length_checks_without_figures(tmp_path):
    layout = SiteLayout(tmp_path / "data", "s")
    make_mirror(layout.mirror, {"a.html": page_html("a"), "b.html": page_html("b")})
    write_doc(layout.corpus / "a.md", "メニュー", {"path": "a.html"})
    write_doc(layout.corpus / "b.md", "メニュー", {"path": "b.html"})
    select = select_pages(layout.mirror, layout.logs)
    outcomes = [PageOutcome("a.html", "unchanged", "a.md"), PageOutcome("b.html", "unchanged", "b.md")]
    plain = quality_report(layout, outcomes, [], select)
    assert plain["short"] == plain["lost_content"] == 0
    assert "Short" not in (layout.logs / "error.log").read_text(encoding="utf-8")
    report = quality_report(layout, outcomes, [], select, page_chars={"a.html": {"visible": 3000, "content": 2500}})
    assert report["lost_content"] == 1 and report["short"] == 0
    assert [p["path"] for p in report["problems"]] == ["a.md"]
    assert "[!] Lost content (kept 4 of 2500 non-template chars): a.md" in (layout.logs / "error.log").read_text(
        encoding="utf-8")
