"""The site-template rule on small invented sites: recurring content stays, navigation rows go by their links,
and tables with rowspan / colspan keep each cell under its header."""

from siterag.extract.blocks import html_to_blocks
from siterag.extract.extract import extract_page
from siterag.extract.template import block_units, page_templates

SONGS = ["夜明けの歌", "青い鳥", "風の街", "流星群", "サヨナラ列車", "雨のワルツ", "白い坂道", "はじまりの朝"]
# six shows: every song on three pages or more, no two lists within one song of each other
SETLISTS = [[SONGS[n] for n in order] for order in (
    (1, 2, 4, 5, 6), (2, 3, 5, 6, 7), (0, 2, 3, 4, 5), (0, 1, 2, 3, 6), (0, 1, 2, 5, 7), (0, 2, 4, 6, 7))]
MENU = ('<p><a href="index.html">バンド紹介</a> <a href="live.html">ライブ情報</a> '
        '<a href="disco.html">ディスコグラフィー</a> <a href="bbs.html">掲示板</a></p>')
FOOTER = '<p>Copyright 2004 青空楽団</p>'


def units_of(pages: dict[str, str]):
    return {rel: block_units(html_to_blocks(html)[0]) for rel, html in pages.items()}


def band_site() -> dict[str, str]:
    """Six live reports: each ends with its setlist (songs linked to their lyrics pages, every song on many
    pages, each page's list its own) and a photo credit that recurs, then the site's menu and footer."""
    pages = {}
    for i in range(6):
        setlist = SETLISTS[i]
        items = "".join(f'<li><a href="lyrics/{SONGS.index(s)}.html">{s}</a></li>' for s in setlist)
        pages[f"live{i}.html"] = (
            f"<html><body>{MENU}<h2>第{i + 1}回ワンマンライブ</h2>"
            f"<p>{i + 1}月の公演は{'満員の会場で盛り上がった' * (i + 2)}。ありがとうございました。</p>"
            f"<h3>セットリスト</h3><ol>{items}</ol><p>写真：山田カメラマン</p>{MENU}{FOOTER}</body></html>")
    for i in range(8):  # the band's other pages: news, profile, discography
        pages[f"news{i}.html"] = (f"<html><body>{MENU}<p>お知らせ{i}：{'新しい曲を録音しています' * (i + 1)}。</p>"
                                  f"{MENU}{FOOTER}</body></html>")
    return pages


def test_a_setlist_whose_songs_recur_stays_with_its_label_and_credit():
    pages = band_site()
    templates = page_templates(units_of(pages))
    for rel, html in [(rel, html) for rel, html in pages.items() if rel.startswith("live")]:
        md = extract_page(html, "heuristic", template=frozenset(templates[rel])).markdown
        songs = [a for a in SONGS if f">{a}<" in html]
        assert all(song in md for song in songs), (rel, md)
        assert "セットリスト" in md and "写真：山田カメラマン" in md, (rel, md)
        assert "Copyright" not in md and "ディスコグラフィー" not in md, (rel, md)


def test_a_list_copied_onto_many_pages_is_still_template():
    """The same list of links on every page (a side menu as an <ul>) is the site's, not each page's own."""
    menu = "<ul>" + "".join(f'<li><a href="s{n}.html">{s}</a></li>' for n, s in enumerate(SONGS[:5])) + "</ul>"
    pages = {f"p{i}.html": f"<html><body>{menu}<p>本文{i}です。{'とても長い文章' * (i + 3)}。</p></body></html>"
             for i in range(5)}
    templates = page_templates(units_of(pages))
    md = extract_page(pages["p2.html"], "heuristic", template=frozenset(templates["p2.html"])).markdown
    assert "本文2" in md and not any(song in md for song in SONGS[:5]), md


def hpb_site() -> dict[str, str]:
    """A Homepage Builder style top row of buttons: the current page's cell unlinked, each button's image and
    alt text its own page's, so no two pages' rows have the same text."""
    names = [("index.html", "表紙"), ("works.html", "作品集"), ("diary.html", "日々の記録"), ("bbs.html", "伝言板"),
             ("links.html", "お気に入り")]
    pages = {}
    for n, (rel, _) in enumerate(names + [(f"diary{i}.html", "") for i in range(4)]):
        cells = "".join(
            f'<td><img src="b{k}_on.gif" alt="{label}（いまここ）"></td>' if target == rel else
            f'<td><a href="{target}"><img src="b{k}.gif" alt="{label}へ{n}"></a></td>'
            for k, (target, label) in enumerate(names))
        pages[rel] = (f"<html><body><table><tr>{cells}</tr></table>"
                      f"<p>ページ{n}の本文。{'ここにしか無い文章です' * (n + 2)}。</p></body></html>")
    return pages


def test_a_navigation_row_that_differs_on_every_page_goes_by_its_links():
    pages = hpb_site()
    templates = page_templates(units_of(pages))
    for rel, html in pages.items():
        md = extract_page(html, "heuristic", template=frozenset(templates[rel])).markdown
        assert "の本文" in md, (rel, md)
        for label in ("作品集", "伝言板", "お気に入り"):
            assert label not in md, (rel, md)


def test_links_to_main_pages_inside_the_text_stay():
    """A sentence that links to the site's main pages is the page's text, not a navigation row."""
    pages = hpb_site()
    pages["diary9.html"] = pages["diary0.html"].replace(
        "<p>ページ", '<p>詳しくは<a href="works.html">作品集</a>と<a href="bbs.html">伝言板</a>をどうぞ。</p><p>ページ')
    templates = page_templates(units_of(pages))
    md = extract_page(pages["diary9.html"], "heuristic", template=frozenset(templates["diary9.html"])).markdown
    assert "詳しくは[作品集](works.html)と[伝言板](bbs.html)をどうぞ。" in md, md


def test_a_verse_after_each_entry_stays_also_after_the_last():
    """A diary page closes each day with a verse; the verses recur (the same verse on other days), and the one
    after the page's last entry sits where a footer would: it is the page's text all the same."""
    verses = ["主は我が牧者なり", "求めよさらば与えられん", "汝の隣人を愛せよ", "地の塩となれ"]
    pages = {}
    for i in range(6):
        days = "".join(f"<table><tr><td><p>{i}月{d}日 {'今日は畑で働いた' * (d + i + 1)}。</p></td></tr></table>"
                       f"<center><small><i>{verses[(i + d) % 4]}</i></small></center>" for d in range(1, 4))
        pages[f"d{i}.html"] = f"<html><body>{days}<p><a href='index.html'>目次へ</a></p></body></html>"
    templates = page_templates(units_of(pages))
    for rel, html in pages.items():
        md = extract_page(html, "heuristic", template=frozenset(templates[rel])).markdown
        assert md.count("\n\n") >= 5 and all(v in md for v in verses if v in html), (rel, md)


def test_rowspan_and_colspan_keep_each_cell_under_its_header():
    html = ("<table border=1><tr><th>日付</th><th>曲目</th><th>会場</th></tr>"
            "<tr><td rowspan=2>5月1日</td><td>青い鳥</td><td>渋谷</td></tr>"
            "<tr><td>風の街</td><td>新宿</td></tr>"
            "<tr><td colspan=2>休演</td><td>名古屋</td></tr>"
            "<tr><td>6月2日</td><td rowspan=3>流星群</td><td>大阪</td></tr>"
            "<tr><td>6月3日</td><td>京都</td></tr></table>")
    blocks, _ = html_to_blocks(html)
    assert blocks[0].md.splitlines() == [
        "| 日付 | 曲目 | 会場 |", "|---|---|---|", "| 5月1日 | 青い鳥 | 渋谷 |", "|  | 風の街 | 新宿 |",
        "| 休演 |  | 名古屋 |", "| 6月2日 | 流星群 | 大阪 |", "| 6月3日 |  | 京都 |"]


def test_odd_spans_are_read_as_html_reads_them():
    """rowspan="0", a span that is no number and a huge colspan do not break the table or blow it up."""
    html = ('<table border=1><tr><td rowspan="0">a</td><td colspan="x">b</td><td colspan="5000">c</td></tr>'
            "<tr><td>d</td><td>e</td></tr></table>")
    blocks, _ = html_to_blocks(html)
    lines = blocks[0].md.splitlines()
    assert lines[0].startswith("| a | b | c |  |") and lines[0].count("|") == 103, lines[0]
    assert lines[2].startswith("| d | e |  |")


def test_image_buttons_back_up_the_site_go_and_an_albums_covers_stay():
    """A page of a small site (too small for main pages to show) opens with image buttons without words that lead
    back up its tree (`../index.htm`, `../mokuji.htm`, the page itself): navigation, wherever they sit. An index
    page's covers that lead down to its albums are its content."""
    from siterag.extract.template import href_key, hub_links, up_target

    assert up_target("a/b/page.htm", "index.htm") and up_target("a/b/page.htm", "a/x.htm")
    assert up_target("a/page.htm", "a/index.htm") and not up_target("a/index.htm", "a/index.htm")
    assert not up_target("a/index.htm", "a/01_album.htm") and not up_target("index.htm", "a/index.htm")
    pages = {
        "index.htm": '<html><body><p><a href="mokuji.htm">目次</a></p><p>教室のご案内です。</p></body></html>',
        "mokuji.htm": '<html><body><p><a href="mubi/index.htm">動画</a></p><p>目次のページです。</p></body></html>',
        "mubi/index.htm": (
            '<html><body><h1>動く画像</h1><p><a href="../index.htm"><img src="top.gif"></a> '
            '<a href="../mokuji.htm"><img src="008.gif"></a> <a href="index.htm"><img src="again.jpg"></a></p>'
            '<p>画像が動きます。ゆっくりとご覧ください。</p>'
            '<p><a href="01_album.htm"><img src="cover1.jpg"></a></p><p><a href="02_album.htm">'
            '<img src="cover2.jpg"></a></p></body></html>'),
    }
    templates = page_templates(units_of(pages))
    md = extract_page(pages["mubi/index.htm"], "heuristic", template=frozenset(templates["mubi/index.htm"])).markdown
    assert "top.gif" not in md and "008.gif" not in md and "again.jpg" not in md, md
    assert "画像が動きます" in md, md
    hubs = hub_links(templates["mubi/index.htm"])
    assert {href_key(h) for h in ("../index.htm", "../mokuji.htm", "index.htm")} <= hubs
    assert not {href_key(h) for h in ("01_album.htm", "02_album.htm")} & hubs  # covers lead down: no buttons


PROJECTS = ["地域情報検索システム", "仮想都市空間システム", "都市での危機管理", "郊外での環境学習",
            "都市のランドマーク分析"]
SIDE = ('<table><tr><td><a href="../home.html">ホーム</a></td></tr><tr><td><a href="../pubs/index.html">論文</a>'
        '</td></tr><tr><td><a href="../conf/index.html">会議</a></td></tr></table>')


def research_site() -> dict[str, str]:
    """A section index listing its projects one table row each (links down into their folders); each project's
    page and picture pages repeat its name as their heading, so every name recurs; the site's side menu, set as
    table rows too, is on every page."""
    rows = "".join(f'<tr><td><a href="p{n}/index.html">{name}</a></td></tr>' for n, name in enumerate(PROJECTS))
    pages = {"research/index.html": f"<html><body>{SIDE}<h2>研究</h2><table>{rows}</table></body></html>"}
    for n, name in enumerate(PROJECTS):
        for page in ("index", "image1", "image2"):
            pages[f"research/p{n}/{page}.html"] = (
                f"<html><body>{SIDE}<h3>{name}</h3><p>{page}: {'この研究では都市の情報を扱います' * (n + 2)}。</p>"
                f'<p><a href="../index.html">索引へ戻る</a></p></body></html>')
    for n in range(3):
        pages[f"news{n}.html"] = f"<html><body>{SIDE}<p>お知らせ{n}。{'新しい成果です' * (n + 2)}</p></body></html>"
    return pages


def test_a_section_index_set_as_table_rows_keeps_its_list():
    """Each project's name recurs (its own pages' heading), the list of them is the index's alone: the index keeps
    it; the side menu, the same rows on every page, stays the site's."""
    pages = research_site()
    templates = page_templates(units_of(pages))
    md = extract_page(pages["research/index.html"], "heuristic",
                      template=frozenset(templates["research/index.html"])).markdown
    assert all(name in md for name in PROJECTS), md
    assert "会議" not in md and "論文" not in md, md
    md = extract_page(pages["research/p1/image1.html"], "heuristic",
                      template=frozenset(templates["research/p1/image1.html"])).markdown
    assert "image1:" in md and "会議" not in md, md
