"""Dates of pages and diary entries: names, date lines, entry headings, the pipeline's front matter."""

import re
from datetime import date

import lxml.html
import pytest

from siterag.enrich.dates import (
    YearContext,
    content_date,
    date_from_name,
    entry_dates,
    in_sequence,
    is_date_line,
    labelled_date,
    mark_entries,
    numeric_order,
    parse_date_line,
    signed_date,
    stamp_date,
)
from siterag.enrich.metadata import date_from_path
from tests.conftest import SHARED_SITES

NANATSUMORI = SHARED_SITES / "nanatsumori"
GYROBOT = SHARED_SITES / "gyrobot"


@pytest.mark.parametrize(("path", "expected"), [
    ("diary/2009-05-20.html", "2009-05-20"),
    ("log/20090520.htm", "2009-05-20"),
    ("2009/05/20/index.html", "2009-05-20"),
    ("blog/2009-05/entry.html", "2009-05"),
    ("conferences/200110_dckm/a.html", "2001-10"),
    ("live20150725.htm", "2015-07-25"),
    ("pic2004062001.htm", "2004-06-20"),  # YYYYMMDD + serial
    ("nikki0107.htm", "2001-07"),  # YYMM
    ("nikki9912.htm", "1999-12"),
    ("010731.htm", "2001-07-31"),  # YYMMDD
    ("log200107.html", "2001-07"),  # YYYYMM before YYMMDD
    ("diary/diary-tsurezure2003-1-6.htm", "2003-01"),  # a month range: its first month
    ("diary/diary-tsurezure2003-7-12.htm", "2003-07"),
    ("diary/diary-tsurezure2001.1-4.htm", "2001-01"),
    ("diary/diary-tsurezure2002-1.htm", "2002-01"),
    ("diary/diary-shzen2000.10.htm", "2000-10"),
    ("diary/diary-tsurezure2005.htm", "2005"),  # a year alone
    ("shisaku-shizen/okukinu2003.htm", "2003"),
    ("a/2003-10-12.htm", "2003-10-12"),  # two-digit first month: a day, not a range
    ("a/2003-6-1.htm", "2003-06-01"),  # N < M: a day
])
def test_dates_in_names(path, expected):
    assert date_from_name(path) == expected
    assert date_from_path(path) == expected  # the old name still works


@pytest.mark.parametrize("path", [
    "index.html", "logo110.gif", "logo1107.htm", "image11.jpg", "image0107.htm", "P01-S200.jpg", "P0107.htm",
    "DSC0107.htm", "daihon/daihon-akatoao1.htm", "x/20091399.html", "nikki5012.htm",  # 2050-12: not yet
    "a/1985-05-20.htm", f"a/{date.today().year + 1}0101.htm", "bbs/123456.html", "page1-2.htm",
])
def test_no_dates_from_part_numbers_or_implausible_years(path):
    assert date_from_name(path) is None


@pytest.mark.parametrize(("line", "iso", "month_day"), [
    ("2003.6.29(日)", "2003-06-29", (6, 29)),
    ("2003.12.28(日)～2003.12.30(火)", "2003-12-28", (12, 28)),  # a range: its start
    ("2005.10.2(日)②", "2005-10-02", (10, 2)),
    ("2005.9.27（火） ②", "2005-09-27", (9, 27)),
    ("■2003/05/20", "2003-05-20", (5, 20)),
    ("2001年12月9日(日)", "2001-12-09", (12, 9)),
    ("２００１年１２月９日（日）", "2001-12-09", (12, 9)),
    ("2000.10.7（土）　杉戸町古利根川～春日部内牧公園", "2000-10-07", (10, 7)),
    ("**2003.6.29(日)**  ", "2003-06-29", (6, 29)),
    ("### 2004.9.19日(日)～2004.9.20(月)", "2004-09-19", (9, 19)),
    ("2003.8.8.(金)", "2003-08-08", (8, 8)),
    ("2001.1019(金)", "2001-10-19", (10, 19)),  # glued month+day: one split is a date
    ("2002.630(日)", "2002-06-30", (6, 30)),
    ("平成15年6月29日", "2003-06-29", (6, 29)),
    ("July 31, 2003", "2003-07-31", (7, 31)),
    ("Sunday, July 31, 2005", "2005-07-31", (7, 31)),
    ("31 July 2003", "2003-07-31", (7, 31)),
    ("October 19-20, 2001", "2001-10-19", (10, 19)),  # a range of days: its first
    ("June 15 - 17 1999", "1999-06-15", (6, 15)),
    ("7月31日", None, (7, 31)),
    ("7/31(土) 晴れ", None, (7, 31)),
    ("Jul. 31", None, (7, 31)),
])
def test_date_lines(line, iso, month_day):
    found = parse_date_line(line)
    assert found is not None and found.date == iso and (found.month, found.day) == month_day
    assert is_date_line(line)


@pytest.mark.parametrize("line", [
    "7月31日に公演します。",  # a sentence that starts with a date
    "2003年6月29日、劇を見に行った。とても面白かった。",
    "2003.6.29 " + "長い本文がここから続いていて日付の後にあるのは見出しではなく文章そのものである" * 2,
    "2002.111(日)",  # 1/11 or 11/1: left undated
    "1/2 の確率",  # a fraction: M/D only before a weekday
    "03.6.29(日)",  # two-digit years are not read in text
    "1985.6.29(日)",  # before personal web pages
    "今日は 2003.6.29",  # a date not at the start
    "５月８日（土）～９日（日）の那須・塩原方面への旅。",  # a sentence after a range
    "５月８日（土）～９日（日）の二日間、那須・塩原方面に妻と旅に出かけた。",
])
def test_not_date_lines(line):
    assert not is_date_line(line)


def test_month_day_dates_take_the_year_from_before_and_follow_the_page_order_across_new_year():
    newest_first = "## 2004.1.2(金)\n\n## 1月1日\n\n## 12月31日\n\n## 12月30日\n"
    assert list(entry_dates(newest_first).values()) == ["2004-01-02", "2004-01-01", "2003-12-31", "2003-12-30"]
    oldest_first = "## 2003.12.30(火)\n\n## 12月31日\n\n## 1月1日\n"
    assert list(entry_dates(oldest_first).values()) == ["2003-12-30", "2003-12-31", "2004-01-01"]
    assert list(entry_dates("## 7月31日\n\n## 7月30日\n", "2001-07").values()) == ["2001-07-31", "2001-07-30"]
    assert list(entry_dates("## 7月31日\n\n## 7月30日\n").values()) == [None, None]  # no year anywhere
    assert list(entry_dates("# 2003年の日記\n\n## 7月31日\n", "1999").values()) == ["2003-07-31"]
    # a full-date paragraph line moves the year; a sentence that starts with a date does not
    body = "2001.5.1(火)\n\n## 7月31日\n\n2003年5月3日に上演した劇の話。\n\n## 7月30日\n"
    assert list(entry_dates(body).values()) == ["2001-07-31", "2001-07-30"]
    context = YearContext(2003)
    assert context.resolve(parse_date_line("2月29日")) is None  # 2003 has no Feb 29
    assert context.resolve(parse_date_line("2004.2.29")) == "2004-02-29"


DIARY = """# 徒然なるままに

[目次](mokuji.htm)

2003.6.30(月)

良寛からつながること

読売新聞夕刊のよみうり寸評に良寛について書かれていた。

**2003.6.29(日)**{BR}『さくら』をみて{BR}NHKの朝の連続ドラマの続編。

- 2003.6.28(土) 箇条書きの日付は見出しにしない
- 2003.6.27(金)

| 日付 | 場所 |
|---|---|
| 2003.6.1 | 表の日付 |

[2003.6.20(金)](#a) [2003.6.19(木)](#b)

2003年6月3日、雨の中を歩いた。長い文章はそのまま本文として残す。

6月2日(月)②

短い日。

2002.630(日)

誤記の日付。

2002.111(日)

読めない日付。
""".replace("{BR}", "  \n")


def test_mark_entries_turns_paragraph_date_lines_into_headings_below_the_page_heading():
    found = mark_entries(DIARY, "2003-01")
    lines = found.markdown.splitlines()
    headings = [ln for ln in lines if ln.startswith("#")]
    assert headings == ["# 徒然なるままに", "## 2003.6.30(月) {#2003-06-30}", "## 2003.6.29(日) {#2003-06-29}",
                        "## 6月2日(月)② {#2003-06-02}", "## 2002.630(日) {#2002-06-30}"]
    assert found.dates == ["2003-06-30", "2003-06-29", "2003-06-02", "2002-06-30"]
    assert [lines[e.line] for e in found.entries] == headings[1:]
    assert [e.heading for e in found.entries] == ["2003.6.30(月)", "2003.6.29(日)", "6月2日(月)②", "2002.630(日)"]
    # a page of several entries: `date` its earliest entry's, `lastmod` its latest
    assert (found.date, found.lastmod, found.date_from) == ("2002-06-30", "2003-06-30", "entry")
    # the rest of a paragraph that starts with a date line stays, as its own paragraph after the heading
    at = lines.index("## 2003.6.29(日) {#2003-06-29}")
    assert lines[at + 1: at + 4] == ["", "『さくら』をみて  ", "NHKの朝の連続ドラマの続編。"]
    # lists, tables, link lists, sentences and unreadable dates are left as they were
    for kept in ("- 2003.6.28(土) 箇条書きの日付は見出しにしない", "| 2003.6.1 | 表の日付 |",
                 "[2003.6.20(金)](#a) [2003.6.19(木)](#b)",
                 "2003年6月3日、雨の中を歩いた。長い文章はそのまま本文として残す。", "2002.111(日)"):
        assert kept in lines
    # the text of the page is unchanged but for the heading marks, emphasis and blank lines
    def words(md):
        return re.sub(r"[#*\s]", "", re.sub(r" \{#[^}]*\}", "", md))

    assert words(found.markdown) == words(DIARY)
    assert mark_entries(found.markdown, "2003-01").markdown == found.markdown  # marking twice changes nothing


def test_entry_level_follows_the_last_heading_before_the_first_entry():
    body = "2003.6.30(月)\n\n本文一。\n\n2003.6.29(日)\n\n本文二。\n"
    assert mark_entries(body).markdown.startswith("## 2003.6.30(月) {#2003-06-30}\n\n本文一。")  # no heading: ##
    nested = "# サイト\n\n## 日記\n\n" + body
    assert "\n### 2003.6.29(日) {#2003-06-29}\n" in mark_entries(nested).markdown
    existing = "# 日記\n\n### 7月31日\n\n暑い。\n\n7月30日\n\n雨。\n"  # a date heading counts, kept as it is
    found = mark_entries(existing, "2001")
    assert found.markdown == \
        "# 日記\n\n### 7月31日 {#2001-07-31}\n\n暑い。\n\n### 7月30日 {#2001-07-30}\n\n雨。\n"  # at their level
    assert found.dates == ["2001-07-31", "2001-07-30"]


def test_one_date_line_is_not_a_diary_and_the_date_falls_back_to_name_then_content():
    """The name's date, made precise by a content date inside it; else the content's."""
    one = "# お知らせ\n\n2003.6.30(月)\n\n公演のお知らせです。\n"
    found = mark_entries(one, "2003-06")  # the page shows the day of the name's month: the precise date
    assert found.markdown == one and found.entries == [] and (found.date, found.date_from) == ("2003-06-30", "content")
    assert (mark_entries(one, "2003-05").date, mark_entries(one, "2003-05").date_from) == ("2003-05", "name")
    assert mark_entries(one, "2003-06-01").date == "2003-06-01"  # a name's full date stays
    assert mark_entries("# 知床\n\n2002.8.9(金)～8.12(月)\n\n知床へ。\n", "2002").date == "2002-08-09"
    assert (mark_entries(one).date, mark_entries(one).date_from) == ("2003-06-30", "content")
    late = "# t\n\n" + "\n\n".join(f"段落{i}。" for i in range(25)) + "\n\n2003.6.30(月)\n"
    assert mark_entries(late).date is None and content_date(late, 40) == "2003-06-30"
    assert mark_entries("# t\n\n本文。\n").date_from is None
    dated_list = "2003.6.30 更新\n2003.6.20 更新\n\n本文。\n\n2003.5.1 更新\n2003.4.1 更新\n"
    assert mark_entries(dated_list).entries == []  # an update log (date lines in a row) is not a diary


# ---- the real diary pages of nanatsumori --------------------------------------------------------------------

# 2003.6.29 | 2004.1231 and 2002.630 (author's typos, the month glued to the day) | 2001年12月9日
_TRUTH_RE = re.compile(r"^(\d{4})(?:\.(\d{1,2})\.(\d{1,2})|\.(\d{1,2})(\d\d)(?=\()|年(\d{1,2})月(\d{1,2})日)")


def _paragraph_markdown(html_bytes: bytes) -> tuple[str, list[tuple[str, str]]]:
    """A page as plain paragraphs (one per <p>, <br> as hard breaks), with its entry date paragraphs
    (class border1/2/3 starting with a date) and their dates read by a regex of this test's own."""
    root = lxml.html.fromstring(html_bytes.decode("cp932"))
    for br in root.iter("br"):
        br.tail = "\n" + (br.tail or "")
    paragraphs, truth = [], []
    for p in root.iter("p"):
        lines = [" ".join(ln.split()) for ln in p.text_content().split("\n")]
        text = "  \n".join(ln for ln in lines if ln)
        if not text:
            continue
        paragraphs.append(text)
        match = _TRUTH_RE.match(text)
        if (p.get("class") or "").lower() in ("border1", "border2", "border3") and match:
            y, m, d = (int(g) for g in match.groups() if g)
            truth.append((text, date(y, m, d).isoformat()))
    return "\n\n".join(paragraphs) + "\n", truth


@pytest.mark.parametrize("name", ["diary-tsurezure2003-1-6.htm", "diary-tsurezure2000.htm",
                                  "diary-tsurezure2004-1-6.htm", "diary-shzen2000.10.htm", "diary-shzen2000.11.htm"])
def test_entries_of_the_real_diary_pages(name):
    page = NANATSUMORI / "diary" / name
    if not page.is_file():
        pytest.skip("../shared/sites/nanatsumori is absent")
    markdown, truth = _paragraph_markdown(page.read_bytes())
    found = mark_entries(markdown, date_from_name(f"diary/{name}"))
    got = [(e.heading, e.date) for e in found.entries]
    assert len(truth) > 15
    assert set(truth) <= set(got)  # every dated entry paragraph became a heading with its date
    # Other headings: the days of a trip inside an entry (`８月２6日(火) 本白根～万座温泉`) and photo dates in
    # an album, all dated within the page's span.
    extra = [g for g in got if g not in truth]
    dates = sorted(d for _, d in truth)
    assert len(extra) <= 0.05 * len(truth) and all(dates[0] <= d <= dates[-1] for _, d in extra)
    assert found.lastmod == truth[0][1] and found.date == min(d for _, d in truth) and found.date_from == "entry"


def test_the_diary_with_typos_keeps_every_readable_entry():
    page = NANATSUMORI / "diary" / "diary-tsurezure2003-7-12.htm"
    if not page.is_file():
        pytest.skip("../shared/sites/nanatsumori is absent")
    markdown, truth = _paragraph_markdown(page.read_bytes())
    found = mark_entries(markdown, "2003-07")
    by_heading = {e.heading: e.date for e in found.entries}
    assert by_heading["2003.12.28(日)～2003.12.30(火)"] == "2003-12-28"
    assert by_heading["2003.8.8.(金)"] == "2003-08-08"
    assert "あ2003.8.11(月)" not in by_heading  # a stray character before the date: not a date line
    assert by_heading["８月２6日(火) 本白根～万座温泉～芳ヶ平"] == "2003-08-26"  # a day of a trip in an entry
    assert set(truth) <= {(e.heading, e.date) for e in found.entries}


# ---- the pipeline: corpus body and front matter ------------------------------------------------------------

def test_process_page_writes_entry_headings_and_the_date_with_its_source(tmp_path):
    from siterag.config import SiteConfig
    from siterag.enrich.corpus import read_doc
    from siterag.enrich.metadata import content_hash
    from siterag.layout import SiteLayout
    from siterag.pipeline import process_page

    body = "".join(f"<p>2003.6.{d}(日)<br>{d}日の日記です。" + "今日は庭の花を見て過ごした。" * 8 + "</p>"
                   for d in (29, 28, 27))
    pages = {"diary/nikki0306.htm": f"<html><head><title>日記</title></head><body><h1>日記</h1>{body}</body></html>",
             "about/nikki0306.htm": "<html><head><title>私</title></head><body><h1>私について</h1><p>"
                                    + "自己紹介の文章です。" * 20 + "</p></body></html>",
             "about/me.htm": "<html><head><title>私</title></head><body><h1>私について</h1><p>2001.5.3(木)<br>"
                             + "自己紹介の文章です。" * 20 + "</p></body></html>"}
    layout = SiteLayout(tmp_path / "data", "s")
    site = SiteConfig(name="s", local_path=str(tmp_path / "src"))
    fields = {}
    for rel, html in pages.items():
        (layout.normalized / rel).parent.mkdir(parents=True, exist_ok=True)
        (layout.normalized / rel).write_text(html, encoding="utf-8")
        corpus_rel = rel.replace(".htm", ".md")
        process_page(layout, site, rel, corpus_rel, {"hash": content_hash(html), "encoding": "utf-8"}, None, False, "")
        fields[rel], text = read_doc(layout.corpus / corpus_rel)
        if rel.startswith("diary"):
            assert [ln for ln in text.splitlines() if ln.startswith("#")] == \
                ["# 日記", "## 2003.6.29(日) {#2003-06-29}", "## 2003.6.28(日) {#2003-06-28}",
                 "## 2003.6.27(日) {#2003-06-27}"]
    got = {rel: (f["date"], f["date_from"], f.get("lastmod")) for rel, f in fields.items()}
    assert got == {"diary/nikki0306.htm": ("2003-06-27", "entry", "2003-06-29"),
                   "about/nikki0306.htm": ("2003-06", "name", None), "about/me.htm": ("2001-05-03", "content", None)}


# ---- the index: chunk dates and --since/--until on entries --------------------------------------------------

NIKKI = """# 日記

2003.6.30(月)

学校の帰りに公園で夕焼けを見た。空が赤く染まってとてもきれいだった。

2003.3.15(土)

駅前の新しいラーメン屋で味噌ラーメンを食べた。スープが濃くておいしかった。

2003.1.2(木)

初詣に行った。神社はとても混んでいて、おみくじは大吉だった。
"""


def test_search_since_until_find_a_diary_entry_by_its_own_date(tmp_path):
    from siterag.index.embedding import get_embedder
    from siterag.index.index import IndexedDoc, IndexSettings, open_tables, sync_site
    from siterag.search.search_api import search

    emb = get_embedder("use-multilingual-v3")
    marked = mark_entries(NIKKI, "2003-01")
    assert (marked.date, marked.lastmod) == ("2003-01-02", "2003-06-30")

    def doc(date_, h="v1"):
        return IndexedDoc(doc_id="s/nikki.md", site="s", path="nikki.htm", source="", title="日記", category="",
                          tags=[], date=date_, summary="", content_hash=h, body=marked.markdown)

    db = tmp_path / "lancedb"
    sync_site(db, "s", [doc(marked.date)], emb)
    _, chunks = open_tables(db, emb.dim)
    rows = {r["heading"]: r["date"] for r in chunks.search().select(["heading", "date"]).limit(None).to_list()}
    # each chunk row: its entry's date, its heading path (the entry's title) and the entry's anchor
    assert rows == {"日記 > 2003.6.30(月) {#2003-06-30}": "2003-06-30",
                    "日記 > 2003.3.15(土) {#2003-03-15}": "2003-03-15",
                    "日記 > 2003.1.2(木) {#2003-01-02}": "2003-01-02"}
    for group in (True, False):
        hits = search("ラーメン", tmp_path, since="2003-03", until="2003-03", group=group)
        assert [(h.doc_id, h.date, h.heading, h.anchor) for h in hits] == \
            [("s/nikki.md", "2003-03-15", "日記 > 2003.3.15(土) {#2003-03-15}", "2003-03-15")]
        assert "味噌ラーメン" in hits[0].text
        # the page's latest entry (2003-06-30) is outside the range, its entry of January is not
        assert {h.date for h in search("初詣", tmp_path, until="2003-01", group=group)} == {"2003-01-02"}
        assert search("ラーメン", tmp_path, since="2003-04", until="2003-05", group=group) == []
    # A page whose date changed is rewritten though its body did not; rows written before chunks had dates of
    # their own ("hash:key", the document's date on every chunk) are rewritten once.
    assert sync_site(db, "s", [doc(marked.date)], emb).upserted == []
    assert sync_site(db, "s", [doc("2003-07-01")], emb).upserted == ["s/nikki.md"]
    docs_table, chunks = open_tables(db, emb.dim)
    for table in (docs_table, chunks):
        table.update(where="site = 's'", values={"content_hash": f"v1:{IndexSettings().key()}", "date": "2003-07-01"})
    assert sync_site(db, "s", [doc("2003-07-01")], emb).upserted == ["s/nikki.md"]
    _, chunks = open_tables(db, emb.dim)
    assert {r["date"] for r in chunks.search().select(["date"]).limit(None).to_list()} == \
        {"2003-06-30", "2003-03-15", "2003-01-02"}


UK_DIARY = """# The Build Diary

17/04/03

Here are those wheels fitted.

01/04/03

Been a bit quiet over the winter.

27/10/02

New armour on.
"""


def test_year_last_numeric_dates_are_read_in_the_order_the_page_itself_shows():
    assert numeric_order(UK_DIARY) == "dmy"  # 17/04/03: 17 is no month
    found = mark_entries(UK_DIARY)
    assert [(e.heading, e.date) for e in found.entries] == [
        ("17/04/03", "2003-04-17"), ("01/04/03", "2003-04-01"), ("27/10/02", "2002-10-27")]
    assert (found.date, found.lastmod, found.date_from) == ("2002-10-27", "2003-04-17", "entry")
    assert "## 01/04/03" in found.markdown
    assert sorted(entry_dates(found.markdown).values()) == ["2002-10-27", "2003-04-01", "2003-04-17"]

    us = UK_DIARY.replace("17/04/03", "04/17/03").replace("27/10/02", "10/27/2002")
    assert numeric_order(us) == "mdy"
    assert [e.date for e in mark_entries(us).entries] == ["2003-04-17", "2003-01-04", "2002-10-27"]


@pytest.mark.parametrize("markdown", [
    UK_DIARY.replace("17/04/03", "12/04/03").replace("27/10/02", "07/10/02"),  # all fields <= 12: not settled
    UK_DIARY.replace("01/04/03", "04/17/03"),  # 17/04 and 04/17 on one page: no order fits them all
    "# 日記\n\n13/4/17\n\n今日は雨でした。ロボットの車輪を付けました。\n\n13/4/20\n\nまた雨でした。\n",  # 4: not 04
    "# 日記\n\n03.04.17\n\n今日は雨でした。ロボットの車輪を付けました。\n\n03.13.20\n\nまた雨でした。\n",  # no month 13
])
def test_numeric_dates_the_page_does_not_settle_are_not_dates(markdown):
    assert numeric_order(markdown) is None
    found = mark_entries(markdown)
    assert found.entries == [] and found.date is None
    assert not is_date_line("12/04/03") and parse_date_line("17/04/03") is None  # no order given: not read


def test_the_real_uk_build_diary_is_dated_entry_by_entry(tmp_path):
    if not GYROBOT.exists():
        pytest.skip("../shared/sites not available")
    from siterag.extract.extract import extract_page
    from siterag.extract.template import folder_template

    template = frozenset(folder_template(GYROBOT)["diary.htm"])  # as `siterag run` finds the site's template
    html = (GYROBOT / "diary.htm").read_bytes().decode("latin-1")
    found = mark_entries(extract_page(html, "heuristic", template=template).markdown)
    dates = [e.date for e in found.entries]
    assert len(dates) >= 20 and None not in dates
    assert found.lastmod == "2003-04-17" and found.date == min(dates)
    assert all("2001-01-01" <= d <= "2003-12-31" for d in dates)  # the robot's build years
    slips = sum(later > earlier for earlier, later in zip(dates, dates[1:], strict=False))
    assert slips <= 1  # newest first, as the page is (the author put 18/11/01 above 28/11/01): no day/month swapped


def test_a_japanese_page_writes_short_dates_year_first():
    diary = "# 日記\n\n13/04/17\n\n今日は雨でした。ロボットの車輪を付けました。\n\n■03.12.20(土)\n\nまた雨でした。\n"
    assert numeric_order(diary) == "ymd"
    assert [e.date for e in mark_entries(diary).entries] == ["2013-04-17", "2003-12-20"]
    assert numeric_order(UK_DIARY.replace("17/04/03", "今日は雨でした。" * 20 + "\n\n17/04/03")) is None


@pytest.mark.parametrize(("line", "expected"), [
    ("Last updated: May 31, 2001", ("2001-05-31", True)),
    ("*Last Update: July 16, 2000*", ("2000-07-16", True)),
    ("[Program](p.html)<- Click!!(Update: Sep. 15, 2003)", ("2003-09-15", True)),
    ("最終更新日：２００３／０５／０１", ("2003-05-01", True)),
    ("[日時] 2004年12月9日 17:30-19:00", ("2004-12-09", False)),
    ("作成日 平成15年6月29日", ("2003-06-29", False)),
    ("Date: 2001-02-03", ("2001-02-03", False)),
    ("Posted on March 3, 2002", ("2002-03-03", False)),
    ("webwork by Jim Nagel at Abbey Press Glastonbury — posted 2007-07-01", ("2007-07-01", False)),
    ("投稿日 ： 2003/02/03", ("2003-02-03", False)),
    ("*This list compiled 15 July 2003*", ("2003-07-15", False)),
    # a generated document's own day (read blind, seed 1270: texi2html's footer on a manual's contents page)
    ("This document was generated on 14 June 2001 using the texi2html translator", ("2001-06-14", False)),
    ("reports generated based on 2003/1/1 data", None),
    # the page's own going on the web, or an update, by its month (read blind, seed 1232: a book's page)
    ("First publication on the internet March 2007", ("2007-03", True)),
    ("Last updated: March 2007", ("2007-03", True)),
    ("Revised edition published September 1992", None),  # the printed book's edition dates no page
    ("compiled by John Smith, 2003/1/1", None),
    ("これらは 2004年12月22日に最終更新されました", None),  # the date before the label: a sentence
    ("up to date 2003/1/1", None),  # "date" is a label only with a colon
    ("updates 2003/1/1", None),
    ("日時は未定です 2003/1/1", None),
    ("更新日 タイトル", None),
])
def test_labelled_dates(line, expected):
    assert labelled_date(line) == expected


def test_a_page_is_dated_by_its_latest_update_stamp_else_its_first_labelled_date():
    sections = ["## 設定", "本文。", "*Last Update: July 16, 2000*", "## メール", "*Last Update: Aug 24, 2000*"]
    assert stamp_date(sections) == "2000-08-24"
    assert stamp_date(["[日時] 2004年12月9日", "[日時] 2004年12月10日"]) == "2004-12-09"
    assert stamp_date(["[日時] 2004年12月9日", "更新: 2005/1/2"]) == "2005-01-02"
    assert stamp_date(["本文。", "2004年12月9日に書いた。"]) is None
    # content_date: a date at a line's start near the top first, a labelled one anywhere else
    body = "# シンポジウム\n\n" + "\n\n".join(f"段落{i}。" for i in range(25)) + "\n\n[日時] 2004年12月9日\n"
    assert content_date(body) == "2004-12-09"
    assert mark_entries(body).date_from == "content"


@pytest.mark.parametrize(("body", "expected"), [
    ("# 講演\n\nInternational Symposium on Digital Cities (2001.10.18)\n\n本文。", "2001-10-18"),
    ("国際シンポジウム「デジタルシティのデザイン」 (2004.12.9)\n\n本文。", "2004-12-09"),
    ("「アンブレイカブル」を観て。手品の視点から考察する。 2001/3/29\n\n本文。", "2001-03-29"),
    ("Workshop on Agents, October 19-20, 2001\n\nText.", "2001-10-19"),
    ("本文 1999年に書いた。", None),  # a year is no date
    ("価格は 2001 円です。", None),
    ("2001/3/29 に観た映画の話を 2001/4/1 に書いた。", None),  # the day a sentence tells of: a film watched
    ("観た日 2001/3/29 と書いた日 2001/4/1 のメモ。", None),  # dates inside a sentence: not the page's
])
def test_a_full_date_ending_a_line_near_the_top_dates_the_page(body, expected):
    """A talk's, a review's date written after its title (`… (2004.12.9)`, `… 2001/3/29`) dates the page."""
    assert content_date(body) == expected


def test_the_pipeline_dates_a_page_by_its_footers_last_updated_line(tmp_path):
    """Through the real stages (select, normalize, site template, extract + enrich): a page whose only date is the
    `Last updated:` line of its footer (template chrome, so not in the body) is dated by it ('stamp'); a page
    with a labelled date in its text by that ('content'); the others stay undated."""
    from siterag.config import SiteConfig
    from siterag.enrich.corpus import corpus_paths, read_doc
    from siterag.extract.template import site_template
    from siterag.layout import SiteLayout
    from siterag.pipeline import normalize_pages, process_batch, select_pages

    site = SiteConfig(name="lab", local_path=str(tmp_path / "src"), extract_mode="heuristic")
    layout = SiteLayout(tmp_path / "data", "lab")
    menu = "".join(f'<a href="p{i}.html">Page {i}</a><br>' for i in range(5))
    for i in range(5):
        footer = "<p>Last updated: May 31, 2001</p>" if i == 1 else ""
        text = "<p>[日時] 2004年12月9日 17:30-19:00</p>" if i == 2 else ""
        notes = f"Research notes of the laboratory, number {i}. " * (i + 3)
        layout.mirror.mkdir(parents=True, exist_ok=True)
        (layout.mirror / f"p{i}.html").write_text(
            f"<html><head><title>Page {i}</title></head><body><table><tr><td>{menu}</td><td><h1>Page {i}</h1>"
            f"<p>{notes}</p>{text}</td></tr></table>"
            f"{footer}<p>Copyright 2001 The Laboratory</p></body></html>", encoding="utf-8")
    select = select_pages(layout.mirror, layout.logs)
    manifest = normalize_pages(layout.mirror, layout.normalized, select.pages)
    templates = site_template(layout.normalized, manifest)
    process_batch(layout, site, select.pages, corpus_paths(select.pages), manifest, None, False, "",
                  templates=templates)
    docs = {rel: read_doc(layout.corpus / rel) for rel in ("p0.md", "p1.md", "p2.md")}
    fields, body = docs["p1.md"]
    assert (fields["date"], fields["date_from"]) == ("2001-05-31", "stamp") and "Last updated" not in body
    assert (docs["p2.md"][0]["date"], docs["p2.md"][0]["date_from"]) == ("2004-12-09", "content")
    assert docs["p0.md"][0]["date"] is None and "date_from" not in docs["p0.md"][0]


def test_a_page_with_no_text_is_skipped_not_an_empty_document(tmp_path):
    """A FrontPage Photo Gallery part (thumbnails linked to photos, no words) renders to nothing: it is skipped as
    empty, with no corpus file, instead of an empty document titled "This is the page"."""
    from siterag.config import SiteConfig
    from siterag.enrich.corpus import corpus_paths
    from siterag.layout import SiteLayout
    from siterag.pipeline import normalize_pages, process_batch, select_pages

    site = SiteConfig(name="gallery", local_path=str(tmp_path / "src"), extract_mode="heuristic")
    layout = SiteLayout(tmp_path / "data", "gallery")
    part = layout.mirror / "photogallery" / "photo16140" / "real.htm"
    part.parent.mkdir(parents=True)
    part.write_text('<html><head><title>This is the page</title></head><body><table><tr><td>'
                    '<a href="../../DSCN0132.JPG"><img src="DSCN0132.JPG" width="250" height="187" title=""></a>'
                    '</td></tr></table></body></html>', encoding="utf-8")
    (layout.mirror / "diary.htm").write_text("<html><head><title>日記</title></head><body><p>2003年5月1日　山へ行った。"
                                             "</p></body></html>", encoding="utf-8")
    select = select_pages(layout.mirror, layout.logs)
    manifest = normalize_pages(layout.mirror, layout.normalized, select.pages)
    corpus_map = corpus_paths(select.pages)
    outcomes = {o.path: o for o in process_batch(layout, site, select.pages, corpus_map, manifest, None, False, "")}
    gallery = outcomes["photogallery/photo16140/real.htm"]
    assert (gallery.status, gallery.note) == ("skipped", "empty (no text)")
    assert not (layout.corpus / corpus_map["photogallery/photo16140/real.htm"]).exists()
    assert outcomes["diary.htm"].status == "new"
    # on a site whose template is known every block of the page's own is kept, its linked photo too: still no text
    from siterag.extract.template import SITE_KNOWN

    known = {rel: [SITE_KNOWN] for rel in select.pages}
    outcomes = {o.path: o for o in process_batch(layout, site, select.pages, corpus_map, manifest, None, False, "",
                                                 templates=known)}
    assert outcomes["photogallery/photo16140/real.htm"].note == "empty (no text)"


def test_a_numbered_events_name_may_come_before_its_full_date():
    """A log of outings: `第６回自然劇場 1998年1月31日(土) 久喜市昭和池` opens each entry."""
    md = ("自然劇場の記録\n\n第６回自然劇場 1998年1月31日(土) 久喜市昭和池\n\n昭和池でカワセミを見た。\n\n"
          "第７回自然劇場 1998年2月21日(土) 蓮田市黒浜\n\n黒浜沼は風が強かった。\n")
    found = mark_entries(md)
    assert [(e.heading, e.date) for e in found.entries] == [
        ("第６回自然劇場 1998年1月31日(土) 久喜市昭和池", "1998-01-31"),
        ("第７回自然劇場 1998年2月21日(土) 蓮田市黒浜", "1998-02-21")]
    assert "## 第６回自然劇場 1998年1月31日(土) 久喜市昭和池 {#1998-01-31}" in found.markdown
    for line in ("第2回の会議は2003年5月4日に開かれた。", "第1回 5月4日(日)", "第１回～第５回"):
        assert parse_date_line(line) is None, line
    anchored = md.replace("第６回自然劇場 1998", "[第６回自然劇場](#20) 1998")  # its name an anchor on the page
    assert [e.date for e in mark_entries(anchored).entries] == ["1998-01-31", "1998-02-21"]
    away = md.replace("第６回自然劇場 1998", "[第６回自然劇場](kiroku01.html) 1998")  # a link away: that page's
    assert "1998-01-31" not in [e.date for e in mark_entries(away).entries]


# ---- the general grammar, induction, anchors, page dates, the quality line (issue 23) --------------------------

@pytest.mark.parametrize(("line", "iso", "month_day"), [
    ("Sat. 14th of March, 1998", "1998-03-14", (3, 14)),  # weekday, ordinal, "of", comma
    ("Mar. 3rd '99", "1999-03-03", (3, 3)),  # an apostrophe year
    ("Tue 3 Jun '97 — rain", "1997-06-03", (6, 3)),
    ("2nd-4th May 2004", "2004-05-02", (5, 2)),  # a range of days: its first
    ("2004 June 5", "2004-06-05", (6, 5)),
    ("H12.11.3", "2000-11-03", (11, 3)),  # a Japanese era year, abbreviated
    ("Ｊｕｌｙ　４，　２００２", "2002-07-04", (7, 4)),  # full-width letters and spaces (NFKC)
    ("２００２－１１－０３　［日］", "2002-11-03", (11, 3)),  # a weekday in full-width square brackets
    ("FRIDAY 13th DECEMBER", None, (12, 13)),  # a month-day: the year comes from the page
    ("Dec 27th–Jan 2nd", None, (12, 27)),  # a range across a month: its first day
])
def test_the_general_grammar_reads_dates_in_many_shapes(line, iso, month_day):
    found = parse_date_line(line)
    assert found is not None and found.date == iso and (found.month, found.day) == month_day
    assert is_date_line(line)


def test_a_dates_shape_leaves_out_its_year():
    """Headings of one diary share a shape whether or not they show the year."""
    shapes = {line: parse_date_line(line, loose=True).shape for line in (
        "SATURDAY 3rd MARCH 1923", "SUNDAY 4th MARCH", "2003.6.29(日)", "6.28(土)", "2001年12月9日", "12月10日")}
    assert shapes["SATURDAY 3rd MARCH 1923"] == shapes["SUNDAY 4th MARCH"] == "W9M"
    assert shapes["2003.6.29(日)"] == shapes["6.28(土)"] == "9.9"
    assert shapes["2001年12月9日"] == shapes["12月10日"] == "9月9日"


OLD_DIARY = """# Grandfather's diary

SATURDAY 3rd MARCH 1923

Went to the market with Father. Bought a pig.

SUNDAY 4th MARCH

Chapel twice. Rain all day.

MONDAY 5th MARCH

Back to the mill.
"""


def test_recurring_date_lines_are_entries_whatever_their_years_and_format():
    """Induction: a transcribed diary of the 1920s (years before MIN_YEAR, no year after the first entry) is
    found because its date lines recur in one shape; a lone old date stays no date line."""
    found = mark_entries(OLD_DIARY)
    assert [(e.heading, e.date) for e in found.entries] == [
        ("SATURDAY 3rd MARCH 1923", "1923-03-03"), ("SUNDAY 4th MARCH", "1923-03-04"),
        ("MONDAY 5th MARCH", "1923-03-05")]
    assert "## SUNDAY 4th MARCH {#1923-03-04}" in found.markdown
    assert (found.date, found.lastmod) == ("1923-03-03", "1923-03-05")
    assert not is_date_line("SATURDAY 3rd MARCH 1923")  # alone, 1923 is no web page's date
    # the chunker reads the same dates (from the anchors) and carries entry and anchor
    from siterag.index.chunking import chunk_markdown

    chunks = chunk_markdown(found.markdown, doc_date=found.date)
    assert [(c.date, c.entry, c.anchor) for c in chunks] == [
        ("1923-03-03", "SATURDAY 3rd MARCH 1923", "1923-03-03"), ("1923-03-04", "SUNDAY 4th MARCH", "1923-03-04"),
        ("1923-03-05", "MONDAY 5th MARCH", "1923-03-05")]
    assert all("{#" not in c.heading for c in chunks)


def test_two_digit_and_era_years_recur_into_entries():
    era = "# 日誌\n\n" + "".join(f"H11.12.{d} 晴れ\n\n本文{d}。\n\n" for d in (29, 30, 31)) + "H12.1.1 雪\n\n元旦。\n"
    assert [e.date for e in mark_entries(era).entries] == ["1999-12-29", "1999-12-30", "1999-12-31", "2000-01-01"]
    apostrophes = "".join(f"{d} Jun '97\n\nText {d}.\n\n" for d in (3, 4, 5))
    assert [e.date for e in mark_entries(apostrophes).entries] == ["1997-06-03", "1997-06-04", "1997-06-05"]


def test_month_day_headings_take_the_year_of_the_file_name_and_roll_over_at_the_new_year():
    body = "".join(f"{line}\n\nText of the day.\n\n" for line in
                   ("FRIDAY 30th DECEMBER", "SATURDAY 31st DECEMBER", "SUNDAY 1st JANUARY", "MONDAY 2nd JANUARY"))
    found = mark_entries(body, None, "diary/1927b.html")
    assert found.dates == ["1927-12-30", "1927-12-31", "1928-01-01", "1928-01-02"]
    assert mark_entries(body, None, "diary/x.html", "Diary 1927").dates == found.dates  # or of the title
    assert mark_entries(body).dates == [None] * 4  # no year anywhere: entries without a date


def test_numbered_sections_and_lone_dates_are_no_entries():
    sections = "# Manual\n\n" + "".join(f"{n} {name}\n\nText.\n\n" for n, name in (
        ("1.1", "Introduction"), ("1.2", "Scope"), ("2.1", "Methods"), ("2.2", "Results")))
    assert mark_entries(sections).entries == []
    prose = "# Notes\n\nJuly 4 1776 was long ago.\n\nText.\n\n1945.8.15(水)\n\nText.\n"
    assert mark_entries(prose).entries == []


def test_entry_anchors_are_stable_and_unique():
    body = "2003.6.29(日)①\n\n朝。\n\n2003.6.29(日)②\n\n夜。\n"
    found = mark_entries(body)
    assert [ln for ln in found.markdown.splitlines() if ln.startswith("#")] == [
        "## 2003.6.29(日)① {#2003-06-29}", "## 2003.6.29(日)② {#2003-06-29-2}"]  # the day's second entry
    assert mark_entries(found.markdown).markdown == found.markdown  # marking twice changes nothing
    assert list(entry_dates(found.markdown).values()) == ["2003-06-29", "2003-06-29"]
    undated = mark_entries("7月31日\n\n暑い。\n\n7月30日\n\n雨。\n")  # no year anywhere: numbered
    assert "## 7月31日 {#entry-1}" in undated.markdown and "## 7月30日 {#entry-2}" in undated.markdown
    assert list(entry_dates(undated.markdown).values()) == [None, None]


def test_a_page_of_unread_date_lines_is_a_line_in_the_quality_report():
    from siterag.enrich.quality import check_page, log_lines

    unread = "# Log\n\n" + "".join(f"03-06-{d:02d} some notes of the day\n\nText {d}.\n\n" for d in range(1, 11))
    report = check_page("log.md", unread, {})
    assert "few_entries" in report.problems and (report.entries, report.date_lines) == (0, 10)
    assert log_lines([report], []) == ["[!] Few diary entries found (0 entry headings, 10 lines that start with a "
                                       "date): log.md"]
    assert "few_entries" not in check_page("d.md", mark_entries(OLD_DIARY * 3).markdown, {}).problems
    changelog = "# Changes\n\n" + "".join(f"- 2003.6.{d} fixed\n" for d in range(1, 20))  # a list: not counted
    assert "few_entries" not in check_page("c.md", changelog, {}).problems


def test_a_blog_post_named_by_its_day_is_one_entry():
    """A permalink page (`blog/2009-03-14/post.html`) whose text opens with a date near that day and a title."""
    post = "Mar 15, 2009 — Fixing the old bike's brakes at last, with new pads and cables\n\nThe pads came today.\n"
    found = mark_entries(post, "2009-03-14")
    assert [(e.heading, e.date) for e in found.entries] == [
        ("Mar 15, 2009 — Fixing the old bike's brakes at last, with new pads and cables", "2009-03-15")]
    assert found.markdown.startswith("## Mar 15, 2009 — Fixing the old bike's brakes at last, with new pads and "
                                     "cables {#2009-03-15}\n\nThe pads came today.")
    assert mark_entries(post, "2009-03").entries == []  # a month in the name: no post
    assert mark_entries(post, "2011-03-14").entries == []  # a day far from the text's date: not its heading
    assert mark_entries("Mar 15, 2009\n\nThe pads came today.\n", "2009-03-14").entries == []  # no title


def test_a_blog_posts_date_line_with_a_picture_in_it_is_its_entry_and_dates_it_over_the_file_name():
    """Issue 24 (blind reading, seed 1207): `blog/2012-11-02/2012-11-02.html` opens `2012-10-26 ![](logo.gif)
    Konnekt Live の威力`: the post's own heading date, not its folder's, is its date."""
    post = "\n2012-10-26 ![](just_logo.gif) Konnekt Live の威力\n\n僕の音楽師匠から機材を拝借しました。\n"
    found = mark_entries(post, "2012-11-02")
    assert (found.date, found.date_from) == ("2012-10-26", "entry")
    assert [e.date for e in found.entries] == ["2012-10-26"]
    assert mark_entries("![](logo.gif) 2012-10-26 題名\n\n本文です。\n", "2012-11-02").entries == []  # an image line


def test_a_lone_date_in_a_link_dates_the_page_it_leads_to_a_list_of_them_this_one():
    """Issue 24 (blind reading, seed 1207): an album page linking `[[2012.10.20]Fait Accompli](http://…)` (the
    label's date is the linked article's) was dated by it; a news list of dated links is as new as its first."""
    from siterag.enrich.dates import content_date

    album = "**Released:October 2012**\n\nオンライン配信のみ。\n[[2012.10.20]Fait Accompli](http://x.jp/a/593.html)\n"
    assert content_date(album) is None
    assert content_date("[2003.6.29](d0629.html) 日記を書きました") is None
    assert content_date("[2003.6.29](#d0629) 日記を書きました") == "2003-06-29"  # an anchor on this page: its own
    assert content_date("2003.6.29 [日記](d.html)を書きました") == "2003-06-29"  # the date is outside the link
    news = "新着情報\n\n[2004/1/28](research.html)\n[実践研究を追加](research.html)\n\n[2003/12/10](about.html)\n"
    assert content_date(news) == "2004-01-28"
    trip = "●[美ヶ原の旅](u2003.htm) **2003年8月14日(木)～8月16日(土)**\n\n草花に興味を持つ。"
    assert content_date(trip) is None  # what follows a link is no line's start


def test_headings_that_run_on_into_the_entry_are_split_at_the_date():
    """An unclosed `<h3>` runs on into the entry's text: the heading keeps the date, the text is a paragraph."""
    body = ("### TUESDAY 5th MARCH 1963\n\nSnow.\n\n### WEDNESDAY 6th MARCH I went to the bank this morning and "
            "then on to the library, where I read the papers.\n\nMore text.\n\n### THURSDAY 7th MARCH\n\nRain.\n")
    found = mark_entries(body)
    assert [(e.heading, e.date) for e in found.entries] == [
        ("TUESDAY 5th MARCH 1963", "1963-03-05"), ("WEDNESDAY 6th MARCH", "1963-03-06"),
        ("THURSDAY 7th MARCH", "1963-03-07")]
    assert "### WEDNESDAY 6th MARCH {#1963-03-06}\n\nI went to the bank this morning and then on" in found.markdown


def test_a_lone_old_date_heading_with_its_own_weekday_is_an_entry():
    """A date heading the page made, whose weekday is the date's own (1963-03-05 was a Tuesday), is a real entry
    even alone and before MIN_YEAR; with a wrong weekday it is not."""
    found = mark_entries("# 1963\n\n### TUESDAY 5th MARCH 1963\n\n## A topic\n\nSnow.\n")
    assert [(e.heading, e.date) for e in found.entries] == [("TUESDAY 5th MARCH 1963", "1963-03-05")]
    assert mark_entries("# 1963\n\n### FRIDAY 5th MARCH 1963\n\nSnow.\n").entries == []
    # the chunk under the entry's topic title (a heading above the entry's level) is the entry's
    from siterag.index.chunking import chunk_markdown

    [chunk] = chunk_markdown(found.markdown, doc_date=found.date)
    assert (chunk.heading, chunk.date, chunk.anchor) == ("1963 > A topic", "1963-03-05", "1963-03-05")


def test_a_date_of_what_the_page_talks_about_does_not_date_the_page():
    """Issue 24: a review was dated by the release of the video it reviews (`1995年6月21日発売 ＶＨＳ・ＬＤ`)."""
    from siterag.enrich.dates import content_date

    assert content_date("# レビュー\n\n1995年6月21日発売 ＶＨＳ・ＬＤ\n\n良い作品だった。") is None
    assert content_date("# Album\n\nMarch 3, 1998 release on CD\n\nNotes.") is None
    assert content_date("# 人物\n\n1965年3月12日生まれ、京都市出身。") is None
    assert content_date("# 日記\n\n1995年6月21日 晴れ\n\n良い日だった。") == "1995-06-21"  # the page's own day


def test_a_date_under_a_label_for_something_else_does_not_date_the_page():
    """Issue 24 item 5: a letter of complaint was dated by the purchase it is about (`購入日、購入店` over
    `２０１３年５月１９日 …にて。`); the writer's own time (`…19:42現在`) dates it."""
    from siterag.enrich.dates import content_date, other_label

    letter = ("# 申し入れ\n\n商品名\n\nミパット\n\n購入日、購入店\n\n２０１３年５月１９日 ニトリ 八千代店にて。\n\n"
              "本文。\n\n２０１３年８月１８日 １９：４２現在 同じ商品が販売されています。\n")
    assert content_date(letter) == "2013-08-18"
    assert content_date("# Album\n\nRelease date:\n\nMarch 3, 1998\n\nNotes.") is None
    assert [other_label(line) for line in ("購入日、購入店", "発売日", "Release date", "誕生日")] == [True] * 4
    # the day itself, an update or posting label, or a heading that is no label keep the date under them
    assert [other_label(line) for line in ("本日", "更新日", "Posted date", "日記", "今日の一枚")] == [False] * 5
    assert content_date("# 日記\n\n本日\n\n2003年5月1日 晴れ\n\n本文。") == "2003-05-01"


@pytest.mark.parametrize(("line", "expected"), [
    ("2003.5.1 更新", ("2003-05-01", True)),
    ("(2004/3/1 up)", ("2004-03-01", True)),
    ("2003年5月1日 記", ("2003-05-01", False)),
    ("２０１３年８月１８日 １９：４２現在 同じ商品が", ("2013-08-18", False)),
    ("文責 2002/10/3 作成", ("2002-10-03", False)),
    ("2003年5月1日 記録をつけた", None),  # 記録 (a record) is no stamp
    ("2003年5月1日 発売", None),
    ("古い版が出力したフォントは Windows 2000 にインストールできないと聞きました。私は、これらの問題は "
     "(2003年10月20日現在) すでに解決済みであると信じています。古い版をお使いの方はアップグレードを", None),
    ("この情報は 2013年8月18日 19:42現在のものです。", ("2013-08-18", False)),
    ("Windows 2000 で起きる問題について私が聞いたことのまとめ（2003年10月20日現在）", ("2003-10-20", False)),
    # a list true as of a month (read blind, seed 1266: a publications list `2003年9月現在`), an update's month
    ("**2003年9月現在**", ("2003-09", False)),
    ("最終更新 2003年9月", ("2003-09", True)),
    ("2003年9月 発売", None),
    ("2003年9月12日現在", ("2003-09-12", False)),
])
def test_a_stamp_label_after_the_date(line, expected):
    """Issue 24 item 5: the writing / update label after its date (`2003.5.1 更新`, `… 記`, `…現在`), at the
    start or the end of its line; inside a sentence it is the day one statement was true (a FAQ's answer)."""
    assert labelled_date(line) == expected


def test_a_page_named_for_a_year_and_kept_up_since_takes_its_later_date():
    """Read on a held-out sample (seed 1255): `request/request-2011.html`, a list of performances opening with
    2023's, was dated 2011-01-01 by its name; a page named for a year and opening with that year's date stays
    named, and a date of an earlier year does not move it."""
    kept = "# 上演校一覧\n\n2023年1月28日 千葉市南部青少年センター 演劇部\n\n上演記録が残っているものを掲載します。\n"
    assert mark_entries(kept, "2011", "request/request-2011.html").date == "2023-01-28"
    same = "# 旅行\n\n2002年8月9日 知床へ\n\n本文。\n"
    assert mark_entries(same, "2002", "trip/shiretoko2002.html").date == "2002-08-09"
    older = "# 2011\n\n2009年5月1日 以前の記録より\n\n本文。\n"
    assert mark_entries(older, "2011", "log/log2011.html").date == "2011"


def test_a_lone_yearless_entry_is_checked_in_the_pages_year_and_a_feast_names_its_weekday():
    """Issue 24 item 5 (read on held-out pages): `diary/2004.html` holds one entry, `SATURDAY 20th MARCH`, which
    is a Saturday in 2004 (the year of the file name): an entry, so the page is dated by it, not 2004-01-01.
    `GOOD FRIDAY, 10th APRIL` (1998) is a Friday with its feast's name before it."""
    one = "# 2004\n\n### SATURDAY 20th MARCH\n\n## Half-a-ton of bricks\n\nThe bricks came at 8am.\n"
    found = mark_entries(one, None, "diary/2004.html")
    assert (found.date, found.date_from) == ("2004-03-20", "entry")
    assert mark_entries(one.replace("SATURDAY", "MONDAY"), None, "diary/2004.html").date_from != "entry"
    feast = ("# 1998\n\n### GOOD FRIDAY, 10th APRIL\n\nWe met Helen.\n\n### SATURDAY 11th APRIL\n\nThe family came."
             "\n\n### TUESDAY 17th NOVEMBER\n\nRain.\n")
    assert [e.date for e in mark_entries(feast, None, "diary/1998.html").entries] == \
        ["1998-04-10", "1998-04-11", "1998-11-17"]


def test_a_line_ending_in_a_range_of_days_dates_the_page_by_its_first():
    """Read blind (seed 1232): a workshop's talk pages, headed `International Workshop on … (2004.12. 10-11)`,
    were left undated."""
    body = "International Workshop on Massively Multi-Agent Systems (2004.12. 10-11)\n\nChallenges in Building " \
           "Very Large Teams\n\nWhen agents coordinate according to the principles of teamwork they succeed.\n"
    assert content_date(body) == "2004-12-10"
    assert content_date("Call me on Tel 2004.12.10-1234 today.\n") is None  # a number, not a range of days


def test_a_slip_of_the_year_in_a_diary_dates_neither_the_page_nor_its_span():
    # gyrobot's build diary, newest first: `16/02/00` and `08/02/00` sit among 2001's entries
    written = ["07/03/01", "24/02/01", "16/02/00", "08/02/00", "08/02/01", "04/02/01", "23/01/01", "18/12/00"]
    page = "\n\n".join(f"## {d}\n\nWorked on the gyro today, number {n}." for n, d in enumerate(written))
    found = mark_entries(page)
    assert [e.date for e in found.entries][2:4] == ["2000-02-16", "2000-02-08"]  # each entry keeps its own
    assert (found.date, found.lastmod) == ("2000-12-18", "2001-03-07")


def test_dates_in_no_order_are_all_kept_and_an_ordered_run_drops_what_breaks_it():
    assert in_sequence(["2010-05-08", "2002-05-08", "2010-03-06", "2010-02-14", "2010-01-30"]) == \
        ["2010-05-08", "2010-03-06", "2010-02-14", "2010-01-30"]
    assert in_sequence(["2001-01", "2001-01", "2001-02"]) == ["2001-01", "2001-01", "2001-02"]
    mixed = ["2003-01-01", "2001-01-01", "2004-01-01", "2002-01-01"]  # a page of notes in no order
    assert in_sequence(mixed) == mixed


def test_a_paragraph_signed_with_a_date_dates_the_page_and_a_date_of_something_else_does_not():
    letter = "太東中演劇部の更なる発展をお祈り申し上げます。平成12年1月24日"  # a letter among a page's comments
    assert signed_date(letter) == "2000-01-24"
    assert signed_date("ありがとう。 2002.3.4　山田太郎") == "2002-03-04"  # the writer's name after it
    assert signed_date("Thank you all. 3 May 2001 Ken") == "2001-05-03"
    assert signed_date("ビデオが出ました。1995年6月21日発売 ＶＨＳ・ＬＤ") is None  # a release
    assert signed_date("楽しかった。2003年5月1日に公演") is None  # a sentence going on about a show
    assert signed_date("It was great. See you on 3 May 2001 at the hall") is None
    page = "\n\n".join(["## 感想", "感動しました。", "とても良い舞台でした。" * 3, letter])
    assert content_date(page) == "2000-01-24"
    # an index of essays (seed 1236): the blurb under a link, signed with its essay's day, is no date of the index
    index = "\n\n".join(["**教育・エッセイ**", "●[にんげんドキュメントを見て](shogai.htm)**(２０００年)**",
                          "盲目のピアニストの挑戦から考えたこと。差別を越えた姿勢と感じた。 2000.11.16(木)"])
    assert content_date(index) is None


def test_a_date_a_sentence_goes_on_from_is_when_something_was_done_not_the_pages_date():
    """nanatsumori's essay index: `平成１５年８月４日(月)に北教育センターで行いました…` is a lecture's day."""
    assert content_date("**教育・エッセイ**\n\n平成１５年８月４日(月)に北教育センターで行いました講演の内容\n") is None
    assert content_date("タイトル\n\n2003年8月4日に更新しました\n") == "2003-08-04"
    assert content_date("タイトル\n\n2003年8月4日 晴れ\n") == "2003-08-04"


def test_a_page_written_in_katakana_is_japanese_for_its_numeric_dates():
    """`05/03/01` on a Japanese page is year/month/day; a page whose kana are katakana is Japanese too (the
    signature check's hiragana pattern once took the name of the kana pattern and hid the katakana)."""
    page = "## 05/03/01\n\nコンピュータ・アップデート・メモ\n\n## 12/03/01\n\nソフトウェア・インストール・ログ\n"
    assert numeric_order(page) == "ymd"
