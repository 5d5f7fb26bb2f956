"""Site template detection (lines recurring across a site's pages) and the chrome rules that use it."""

from pathlib import Path

import pytest

from siterag.extract.blocks import html_to_blocks, render_blocks
from siterag.extract.chrome import is_boilerplate_line, is_counter_widget, is_navigation, is_theme_images
from siterag.extract.extract import extract_page
from siterag.extract.template import page_units, recurring_keys, site_template
from siterag.normalize.encoding import to_utf8
from siterag.pipeline import normalize_pages, select_pages

MENU = '<p><a href="index.html">ホーム</a><br><a href="diary.html">日記</a><br><a href="bbs.html">掲示板</a></p>'
FOOTER = '<p>Copyright 2003 なな</p><p><a href="index.html">BACK TO HOME PAGE OF NANA</a></p>'


def page(body: str, title: str = "t") -> str:
    return (f"<html><head><title>{title}</title></head><body><table><tr><td>{MENU}</td><td>{body}</td></tr>"
            f"</table>{FOOTER}</body></html>")


def site_pages() -> dict[str, str]:
    pages = {f"p{i}.html": page(f"<h2>第{i}話の記録</h2><h3>登場人物</h3><p>本文{i}：{'あいうえお' * (i + 3)}"
                                f"の話はここから始まる。</p><p><a href='index.html'>BACK TO HOME PAGE OF NANA</a></p>"
                                f"<p>第{i}話の続きは、また来月に書きます。{i * 7}回目の更新です。</p>")
             for i in range(1, 6)}
    # A copy of p1 (a .bak left by the editor) and a different version of it: copies are one family.
    pages["p1.bak.html"] = pages["p1.html"]
    return pages


def template_of(pages: dict[str, str]) -> set[str]:
    return recurring_keys(page_units(html) for html in pages.values())


def test_template_lines_are_dropped_and_page_text_kept():
    pages = site_pages()
    template = template_of(pages)
    result = extract_page(pages["p3.html"], "heuristic", template=template)
    md = result.markdown
    assert "第3話の記録" in md and "本文3" in md and "第3話の続き" in md
    assert "登場人物" in md, "a heading that recurs inside the body is structure, not chrome"
    for chrome in ("ホーム", "掲示板", "Copyright", "BACK TO HOME"):
        assert chrome not in md, chrome
    assert result.content_chars < result.visible_chars


def test_copies_of_a_page_do_not_make_its_text_template():
    pages = {f"copy{i}.html": site_pages()["p2.html"] for i in range(6)}
    template = template_of(pages)
    assert extract_page(pages["copy0.html"], "heuristic", template=template).markdown.count("本文2") == 1


def test_site_template_caches_line_keys_and_reports_per_page(tmp_path: Path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    for name, html in site_pages().items():
        (mirror / name).write_text(html, encoding="utf-8")
    select = select_pages(mirror, tmp_path)
    manifest = normalize_pages(mirror, tmp_path / "norm", select.pages)
    templates = site_template(tmp_path / "norm", manifest)
    assert set(templates) == set(select.pages)
    assert templates["p1.html"] and templates["p1.html"] == templates["p2.html"]
    assert (tmp_path / "norm" / ".siterag-units.json").exists()
    assert site_template(tmp_path / "norm", manifest) == templates


@pytest.mark.parametrize("line,expected", [
    ("[戻る](index.html)", True), ("[▲ページトップへ](#top)", True), ("[BACK](../index.html) [NEXT](p2.html)", True),
    ("[2003.6.29(日)](#2003.6.29) [2003.6.30(月)](#2003.6.30)", True),
    ("[FontForge の本家](http://fontforge.sf.net/)", False), ("詳しくは[こちら](a.html)を見てください", False),
    ("**[演劇をめぐる対話TOP(越智優さんとの対話１.３)](dialogue-top.htm)** **[HOME](../index.html)**", True),
    ("[TOP](#top) [Home「七つ森」](../index.html)", True),
    ("[Back to the Future](film.html)", False), ("[HOME](index.html) [Robot Wars 2002](rw.html)", False),
])
def test_navigation_lines(line, expected):
    assert is_navigation(line) is expected


def test_an_in_page_contents_list_stays_where_the_parts_are_headed_by_their_numbers_alone():
    """leftyuncle's tips pages head each part `(1)`, `(2)`: the contents list above is the only place the page
    names them (judged: the summary quoted a stray note instead of the tips); where the parts' headings say their
    names, the same list only moves the reader."""
    item = "[(1)「i.softbank.jp」ドメインのメールアドレス変更](#1)  "
    assert not is_navigation(item, parts_by_number=True)
    assert is_navigation(item)  # the parts are headed by their names (no bare numbers on the page)
    assert is_navigation("[-戻る-](#0)", parts_by_number=True)  # a way back stays navigation
    assert is_navigation("[目次](#top)", parts_by_number=True)
    from siterag.extract.chrome import Line, heads_parts_by_number

    def page(*texts: str) -> list[Line]:
        return [Line(0, n, t, t, t) for n, t in enumerate(texts)]

    assert heads_parts_by_number(page("iPhone5 TIPS(1)", "(1)  ", "「i.softbank.jp」の変更は本体からしかできません。"))
    assert heads_parts_by_number(page("２．"))
    assert not heads_parts_by_number(page("(1) 設定の変更", "1234", "2003年の記録"))


@pytest.mark.parametrize("line,expected", [
    ("Copyright (C) 2003 Gyrobot Ltd.", True), ("あなたは 012345 人目のお客様です", True),
    ("最終更新日：2004/06/20", True), ("3人目の子どもが生まれた。", False),
    ("counter-strike ではなく演劇の話です。" * 5, False),
    ("近い値をまとめる(C)", False), ("(c) 2003 なな", True),  # a menu item's key is no copyright
])
def test_boilerplate_lines(line, expected):
    assert is_boilerplate_line(line) is expected


def test_markdown_keeps_poem_lines_escapes_brackets_and_drops_empty_bold():
    html = ("<html><body><p>春の海<br>ひねもすのたり<br>のたりかな</p><p>新譜 <CD> と &lt;DVD&gt; の話</p>"
            "<p><b> </b><b><b>二重</b></b></p></body></html>")
    blocks, _ = html_to_blocks(html)
    md = render_blocks(blocks, {b.id for b in blocks})
    assert "春の海  \nひねもすのたり  \nのたりかな" in md
    assert "\\<DVD>" in md and "****" not in md and "**二重**" in md
    assert blocks[0].lines[1] == ("ひねもすのたり", "ひねもすのたり")


@pytest.mark.shared
def test_shared_site_template_drops_gyrobot_footer_and_nanatsumori_diary_link(shared_sites, tmp_path: Path):
    for site, rel, gone, kept in [
        ("gyrobot", "diary.htm", "HANDS OFF OUR BOTS", None),
        ("gyrobot", "diary.htm", "_bnr.gif", "Re-visit often to check on latest build info."),  # theme banner
        ("gyrobot", "home.htm", "_themes/", None),
        ("nanatsumori", "diary/diary-shzen2000.10.htm", "タイトルの本文にジャンプできます", "2000年10月5日"),
    ]:
        select = select_pages(shared_sites / site, tmp_path / site)
        manifest = normalize_pages(shared_sites / site, tmp_path / site / "norm", select.pages)
        templates = site_template(tmp_path / site / "norm", manifest)
        html, _ = to_utf8((shared_sites / site / rel).read_bytes())
        md = extract_page(html, "heuristic", template=frozenset(templates[rel])).markdown
        assert gone not in md, (site, rel)
        assert kept is None or kept in md


@pytest.mark.parametrize(("md", "expected"), [
    ('![](_derived/diary.htm_cmp_gyrobot110_bnr.gif "The Build Diary")', True),  # FrontPage's title banner
    ("![](../_themes/gyrobot/urbhorsa.gif)", True),  # the theme's rule, seen from a subfolder
    ('[![](team/_derived/stevewood.htm_cmp_gyrobot110_vbtn.gif "Steve Wood")](team/stevewood.htm)', False),  # a link
    ("![](_themes/a/rule.gif)![](_derived/b.gif)", True),
    ("![](images/build/build84_small.jpg)", False),  # the author's photo
    ("![](_derived/b.gif)![](photo.jpg)", False),
    ("![](_themes/a/bullet.gif) Here are those wheels fitted.", False),  # words of the author's
    ("[Workshops](_derived/workshops.htm)", False),  # a link, no image
])
def test_theme_generated_images(md, expected):
    assert is_theme_images(md) is expected


def test_editor_backup_copies_are_not_pages(tmp_path: Path):
    """Homepage Builder leaves page.bak next to page.html; a server serves it as a file, not as a page."""
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "page.html").write_text("<html><body><p>今のページ</p></body></html>", encoding="utf-8")
    (tmp_path / "m" / "page.bak").write_text("<html><body><p>前のページ</p></body></html>", encoding="utf-8")
    (tmp_path / "m" / "old.htm_").write_text("<html><body><p>古い</p></body></html>", encoding="utf-8")
    select = select_pages(tmp_path / "m", tmp_path)
    assert select.pages == ["page.html"]
    assert "backup" in (tmp_path / "binaries.log").read_text(encoding="utf-8")


def test_text_and_style_files_are_not_pages_even_with_tags(tmp_path: Path):
    """A .txt file is served as text/plain: the browser shows its tags, so it is no page (SOURCE.txt notes)."""
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "SOURCE.txt").write_text("notes: <html> pages use <table> layout", encoding="utf-8")
    (tmp_path / "m" / "index.html").write_text("<html><body><p>トップ</p></body></html>", encoding="utf-8")
    assert select_pages(tmp_path / "m", tmp_path).pages == ["index.html"]


def test_editor_part_folders_are_not_pages(tmp_path: Path):
    """FrontPage's _borders/_vti_pvt and Word's page.files/ hold parts of pages (the shared border, a header)."""
    for rel in ("index.htm", "_borders/bottom.htm", "_vti_pvt/service.htm", "essay.files/header.htm"):
        (tmp_path / "m" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "m" / rel).write_text("<html><body><p>本文</p></body></html>", encoding="utf-8")
    assert select_pages(tmp_path / "m", tmp_path).pages == ["index.htm"]


def test_files_an_editor_includes_into_pages_are_not_pages(tmp_path: Path):
    """FrontPage writes an included file (a webbot Include, a Photo Gallery's real.htm and the views its <picture>
    names) into the including page: the part is no page of its own. A gallery no page includes stays (its
    captions are nowhere else), its other views do not."""
    gallery = ('<!--webbot bot="PhotoAlbum" U-Include="../photogallery/photo01/real.htm" clientside TAG="BODY" '
               'startspan --><picture file-href="../photogallery/photo01/real_p.htm" /><p>霧の中を飛ぶダイサギ</p>'
               '<!--webbot bot="PhotoAlbum" endspan -->')
    files = {
        "diary/diary2005.htm": f"<html><body><p>2005.6.4(土) 経過報告</p>{gallery}</body></html>",
        "index.htm": '<html><body><!--webbot bot="Include" U-Include="news.htm" TAG="BODY" startspan --><p>お知らせ'
                     '</p><!--webbot bot="Include" endspan --></body></html>',
        "news.htm": "<html><body><p>お知らせ</p></body></html>",
        "photogallery/photo01/real.htm": '<html><head><title>This is the page</title></head><body>'
                                         '<picture file-href="real_p.htm" /><p>霧の中を飛ぶダイサギ</p></body></html>',
        "photogallery/photo01/real_p.htm": "<html><body><p>霧の中を飛ぶダイサギ</p></body></html>",
        "photogallery/photo02/real.htm": '<html><body><picture file-href="real_x.htm" /><p>岸辺のバン</p>'
                                         '</body></html>',
        "photogallery/photo02/real_x.htm": "<html><body><p>岸辺のバン</p></body></html>",
    }
    for rel, text in files.items():
        (tmp_path / "m" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "m" / rel).write_text(text, encoding="utf-8")
    selected = select_pages(tmp_path / "m", tmp_path)
    assert selected.pages == ["diary/diary2005.htm", "index.htm", "photogallery/photo02/real.htm"]
    assert selected.included == {"news.htm": "index.htm", "photogallery/photo01/real.htm": "diary/diary2005.htm",
                                 "photogallery/photo01/real_p.htm": "diary/diary2005.htm",
                                 "photogallery/photo02/real_x.htm": "photogallery/photo02/real.htm"}


def test_a_list_pages_entries_stay_when_one_of_them_is_linked_elsewhere_and_a_footer_still_goes():
    footer = ('<p>"Gyrobot" - The robot and website is the creation of '
              '<a href="http://www.gyrobot.co.uk">Gyrobot Ltd.</a></p><p>HANDS OFF OUR BOTS</p>')
    entries = "".join(f'<p><a href="w{i}.html"><b>Workshop number {i} in Kyoto</b> 200{i}/6/{i}</a></p>'
                      for i in range(1, 6))
    own = "long enough to be the longest line of the page and so its family: "
    pages = {f"p{i}.html": (f"<html><body>{MENU}<h2>Page {i} of the site</h2><p>Its own text, number {i}, "
                            f"{own}{'abc ' * (i + 20)}</p>{footer}<p>[ <a href='x{i}.html'>Up {i}</a> ]</p>"
                            f"</body></html>") for i in range(1, 5)}
    # the first workshop is also linked from the news of three other pages: a template line
    for i in range(1, 4):
        pages[f"p{i}.html"] = pages[f"p{i}.html"].replace(
            "</h2>", '</h2><p><a href="w1.html"><b>Workshop number 1 in Kyoto</b> 2001/6/1</a></p>')
    pages["list.html"] = (f"<html><body>{MENU}<p>Conferences the project team organised over the years, newest "
                          f"first, with their dates and programmes</p>{entries}{footer}</body></html>")
    template = template_of(pages)
    listed = extract_page(pages["list.html"], "heuristic", template=template).markdown
    # the entries after the one linked elsewhere stay (they were all cut as a footer); that one itself, a link
    # line of the site's template, goes like any recurring link
    assert all(f"Workshop number {i} in Kyoto" in listed for i in range(2, 6)), listed
    assert "HANDS OFF" not in listed and "ホーム" not in listed
    page4 = extract_page(pages["p4.html"], "heuristic", template=template).markdown
    assert "Its own text, number 4" in page4
    assert "HANDS OFF" not in page4 and "creation of Gyrobot" not in page4  # the footer, above the page's own [ Up ]


def test_a_counter_line_in_the_authors_text_stays_and_a_counter_widget_goes():
    pages = site_pages()
    widget = '<p><img src="http://www.rays-counter.com/c.gif" alt="アクセスカウンター"></p>'
    said = "<p>アクセス数が２００００を越えた。はっきりいってうれしい。</p>"
    p3 = pages["p3.html"].replace("</h3>", f"</h3>{said}{widget}")
    md = extract_page(p3, "heuristic", template=template_of(pages)).markdown
    assert "アクセス数が２００００を越えた。" in md  # inside the text: the author's sentence
    assert "rays-counter" not in md and "Copyright" not in md  # a counter widget anywhere; the footer's copyright
    assert is_counter_widget('![](http://www.rays-counter.com/d361/ "アクセスカウンター")')
    assert not is_counter_widget('![](photo.jpg "山の写真")')


def test_a_pages_own_last_updated_line_is_left_out_but_kept_as_a_stamp():
    """The footer's `Last updated:` line is chrome (it goes), but it is the page's own, not the site's: the
    extraction hands its text on (`stamps`), so the page can be dated by it. The site's copyright is not one."""
    pages = site_pages()
    p2 = pages["p2.html"].replace(FOOTER, f"<p>Last updated: May 31, 2001</p>{FOOTER}")
    result = extract_page(p2, "heuristic", template=template_of(pages))
    assert "Last updated" not in result.markdown and "本文2" in result.markdown
    assert result.stamps == ["Last updated: May 31, 2001"]
    assert extract_page(pages["p3.html"], "heuristic", template=template_of(pages)).stamps == []


def test_an_email_address_in_the_text_stays_though_other_pages_show_it_too():
    """A recurring link line inside the text goes (a menu), but not an e-mail address: a member's page shows it
    like the member list and the page's translation do."""
    pages = {name: html.replace("</h3>", '</h3><p><a href="mailto:nana@example.jp">nana@example.jp</a></p>')
             for name, html in site_pages().items()}
    md = extract_page(pages["p2.html"], "heuristic", template=template_of(pages)).markdown
    assert "[nana@example.jp](mailto:nana@example.jp)" in md and "本文2" in md
    assert "ホーム" not in md  # the menu still goes


def test_a_plays_recurring_first_and_last_lines_stay_but_a_header_with_a_link_goes():
    """Scripts of one site all open with `登場人物` and close with `暗転` / `続く`, and a play's title is also
    on the site's list pages: recurring lines at the page's edges, yet written there by the author. An edge of
    plain text only is the page's; an edge holding a link (a site header with its menu) is the site's."""
    def script(i: int, header: str = "") -> str:
        cast = "".join(f"<p>人物{i}{c}</p>" for c in "ABC")
        lines = "".join(f"<p>人物{i}{c}　第{i}幕の{n}番目の台詞です、{'ああ' * (i + n)}。</p>"
                        for n in range(3) for c in "ABC")
        return (f"<html><body>{header}<p><b>春の芝居</b></p><p>登場人物</p>{cast}{lines}"
                f"<p>暗転</p><p>続く</p></body></html>")
    diary = {f"d{i}.html": f"<html><body><p>{i}月の日記です。{'さしすせそ' * (i + 2)}と書いた。</p></body></html>"
             for i in range(1, 11)}  # the site holds more than plays: their words are on a few of its pages
    pages = {**diary, **{f"s{i}.html": script(i) for i in range(1, 5)}}
    pages["list.html"] = "<html><body><p>上演した脚本の一覧です。</p><p><b>春の芝居</b></p></body></html>"
    pages["more.html"] = "<html><body><p><b>春の芝居</b></p><p>再演の記録です。</p></body></html>"
    md = extract_page(pages["s2.html"], "heuristic", template=template_of(pages)).markdown
    for line in ("春の芝居", "登場人物", "人物2A", "暗転", "続く"):
        assert line in md, line
    menu = '<p>七つ森</p><p><a href="index.html">ホーム</a> <a href="daihon.html">脚本</a></p>'
    pages = {**diary, **{f"s{i}.html": script(i, menu) for i in range(1, 5)}}
    md = extract_page(pages["s2.html"], "heuristic", template=template_of(pages)).markdown
    assert "七つ森" not in md and "ホーム" not in md and "人物2A" in md


@pytest.mark.parametrize(("line", "expected"), [
    ("許可なく、本文、写真を転載しないでください", True),
    ("無断転載を禁じます", True),
    ("この記事は新聞からの転載です。", False),
])
def test_reprint_notices_are_boilerplate(line, expected):
    assert is_boilerplate_line(line) is expected


def test_a_name_linked_on_many_pages_stays_in_the_pages_own_list_but_a_menu_and_a_way_back_go():
    """The project leader is linked from every research page's member list: a recurring link line. In the
    member table (one cell per line, between a lab's name and its other members) it is the page's text; the
    site's menu (recurring link lines next to each other) and a recurring `…・目次` link still go."""
    toc = '<p><a href="mokuji.html">日記・目次 タイトルの本文にジャンプできます</a></p>'
    def research(i: int) -> str:
        return (f"<html><body>{MENU}{toc}<p>研究テーマ{i}の概要です。{'かきくけこ' * (i + 3)}の研究を進めています。</p>"
                f"<p>メンバー</p><p><a href='ishida.html'>石田 亨</a></p><p>研究員{i}</p></body></html>")
    pages = {f"r{i}.html": research(i) for i in range(1, 5)}
    pages["members.html"] = ("<html><body>" + MENU + "<table><tr><td>京都大学 情報学研究科</td></tr>"
                             "<tr><td><b>石田研究室</b></td></tr><tr><td><a href='ishida.html'>石田 亨</a></td></tr>"
                             "<tr><td><a href='nakanishi.html'>中西 英之</a></td></tr>"
                             "<tr><td><b>美濃研究室</b></td></tr></table></body></html>")
    template = template_of(pages)
    md = extract_page(pages["members.html"], "heuristic", template=template).markdown
    assert "[石田 亨](ishida.html)" in md and "中西 英之" in md
    assert "ホーム" not in md and "掲示板" not in md
    md = extract_page(pages["r2.html"], "heuristic", template=template).markdown
    assert "研究テーマ2" in md and "ジャンプできます" not in md and "ホーム" not in md


def test_recurring_plain_lines_after_the_text_stay_in_its_box_and_go_in_a_box_of_their_own():
    """A research project's pages end with the same references and contact, in the box of their text: the
    page's. A BBS's notice, repeated in a table of its own below the posts, and the site's footer are not."""
    contact = "<h4>連絡先：</h4><p>京都大学 社会情報学専攻 中西英之 nakanishi at i.kyoto-u.ac.jp</p>"
    notice = "<table><tr><td>掲示板へようこそ！日本語でも英語でも書き込めます。</td></tr></table>"
    def project(i: int) -> str:
        return (f"<html><body>{MENU}<div><p>研究{i}の説明です。{'たちつてと' * (i + 3)}を調べました。</p>{contact}"
                f"</div>{notice}{FOOTER}</body></html>")
    pages = {f"p{i}.html": project(i) for i in range(1, 5)}
    pages.update({f"o{i}.html": f"<html><body>{MENU}<p>ほかのページ{i}です。{'なにぬねの' * (i + 8)}</p>{FOOTER}"
                  f"</body></html>" for i in range(1, 6)})
    md = extract_page(pages["p2.html"], "heuristic", template=template_of(pages)).markdown
    assert "研究2の説明" in md and "連絡先" in md and "nakanishi at i.kyoto-u.ac.jp" in md
    assert "掲示板へようこそ" not in md and "Copyright" not in md and "ホーム" not in md


def test_a_template_heading_left_last_goes_with_the_menu_it_headed():
    """A manual's pages end with `## その他のメニュー` over a list of the other menus' pages: the list goes as
    the site's menu, and the heading, left with nothing under it, goes too."""
    others = ('<h2>その他のメニュー</h2><ul><li><a href="file.html">ファイル</a></li>'
              '<li><a href="edit.html">編集</a></li></ul>')
    pages = {f"m{i}.html": f"<html><body><h1>メニュー{i}</h1><p>{'メニューの説明' * (i + 2)}です。</p>{others}"
                           f"</body></html>" for i in range(1, 6)}
    md = extract_page(pages["m3.html"], "heuristic", template=template_of(pages)).markdown
    assert "メニューの説明" in md and "その他のメニュー" not in md and "ファイル" not in md
