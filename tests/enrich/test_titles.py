"""Page titles without the site's banner, but never two pages' doubles (issue 24 item 4)."""

from siterag.enrich.metadata import plain_titles


def test_a_banner_that_tells_two_parts_of_a_site_apart_stays():
    """Two books of one site title their chapters `Hosea -- chapter 1`, `Britain in Prophecy -- chapter 1`: with
    the book's name cut, both would be `chapter 1`; the names stay where the rest is shared, and go where the
    rest is the page's alone and names something without the book (`Hosea -- The Prophet and his Times`); a book's
    part by what it is (`introduction`) keeps the book's name (read blind, seed 1270)."""
    titles = [f"{book} -- {part}" for book in ("Hosea", "Britain in Prophecy")
              for part in ("chapter 1", "chapter 2", "contents & publication details")]
    titles += ["Hosea -- introduction", "Britain in Prophecy -- appendix 1", "Hosea -- The Prophet and his Times"]
    plain = plain_titles(titles)
    assert plain["Hosea -- chapter 1"] == "Hosea -- chapter 1"
    assert plain["Britain in Prophecy -- contents & publication details"] == \
        "Britain in Prophecy -- contents & publication details"
    assert plain["Hosea -- introduction"] == "Hosea -- introduction"
    assert plain["Hosea -- The Prophet and his Times"] == "The Prophet and his Times"
    assert plain["Britain in Prophecy -- appendix 1"] == "Britain in Prophecy -- appendix 1"  # a part's number


def test_a_site_banner_on_distinct_pages_is_cut():
    titles = ["Team | Gyrobot", "Gallery | Gyrobot", "Links | Gyrobot", "Team | Gyrobot"]
    assert plain_titles(titles) == {"Team | Gyrobot": "Team", "Gallery | Gyrobot": "Gallery",
                                    "Links | Gyrobot": "Links"}


def test_a_page_without_a_title_is_named_by_the_sites_links_to_it(tmp_path):
    """A page with no <title>, no heading and a sentence for its first line (`※ 画像を自由に…楽しめます。`) is not
    titled by that sentence: the site's links name it (`素材集`)."""
    from siterag.enrich.corpus import read_doc
    from siterag.enrich.enrich import enrich_site
    from siterag.enrich.metadata import fallback_metadata
    from tests.enrich.test_enrich import site_config
    from tests.enrich.test_sections import make_html_site

    body = "※ 画像を自由に組み合わせをして楽しめます。\n\n![](a.gif) ![](b.gif)\n\n素材の使い方の説明です。"
    assert fallback_metadata("", body)["title"] == "untitled"
    menu = '<a href="sozai.htm">素材集</a> <a href="index.htm">ホーム</a>'
    pages = {"index.htm": (f"<title>ホーム</title>{menu}", "ようこそ。"),
             "about.htm": (f"<title>紹介</title>{menu}", "教室の紹介です。"),
             "sozai.htm": ("<title>untitled</title>", body)}
    layout = make_html_site(tmp_path, pages)
    enrich_site(layout, site_config(), {"index.md", "about.md", "sozai.md"})
    fields, _ = read_doc(layout.corpus / "sozai.md")
    assert fields["title"] == "素材集"


def test_a_part_number_keeps_the_name_of_the_work_it_belongs_to():
    """Where only one book has a `chapter 8`, cutting its name would still leave `chapter 8`, which names no page;
    a chapter the site holds once keeps its book's name, and so does its `introduction` (a part by what it is)."""
    titles = [f"Hosea -- chapter {n}" for n in range(1, 9)] + ["Hosea -- introduction", "Hosea -- 第3章"]
    titles += [f"Britain in Prophecy -- chapter {n}" for n in range(1, 4)]
    plain = plain_titles(titles)
    assert plain["Hosea -- chapter 8"] == "Hosea -- chapter 8"
    assert plain["Hosea -- 第3章"] == "Hosea -- 第3章"
    assert plain["Hosea -- introduction"] == "Hosea -- introduction"


def test_a_button_beside_a_heading_in_a_table_row_is_no_part_of_the_title():
    from siterag.enrich.metadata import fallback_metadata

    row = ("|  |  | cSTDクラス 関数 |  | [戻る](cws_index.html) |  |\n"
           "|---|---|---|---|---|---|\n|  | Public Function X |")
    assert fallback_metadata("", row)["title"] == "cSTDクラス 関数"
    # a link that is part of the title's words stays
    assert fallback_metadata("", "**[生きものがたり目次](a.htm)(投稿日順)**\n\n本文。")["title"] == \
        "生きものがたり目次(投稿日順)"


def test_a_single_entrys_heading_names_a_page_whose_title_is_shared():
    """A blog's post under the blog's shared <title> (`ブログ`) is titled by its heading, less the entry's date,
    even where the heading ends like a sentence; on a page of several entries the first entry's is no title."""
    from siterag.enrich.metadata import own_title

    post = "## 2013-10-26 WordPress でブログやってます。 {#2013-10-26}\n\n最近、忙しくて。\n"
    assert own_title("ブログ", post, {"ブログ"}, set()) == "WordPress でブログやってます。"
    wide = "## 2012-11-03 pdｆの楽譜からSMFを生成する「スコアメーカー７」 {#2012-11-03}\n\n本文です。\n"
    assert own_title("ブログ", wide, {"ブログ"}, set()) == "pdｆの楽譜からSMFを生成する「スコアメーカー７」"
    diary = post + "\n## 2013-10-27 次の日です。 {#2013-10-27}\n\n本文。\n"
    assert own_title("ブログ", diary, {"ブログ"}, set()) != "WordPress でブログやってます。"
    assert own_title("untitled", "7\n\n![](ga/tizu1.jpg)\n", {"untitled"}, set()) == ""


def test_a_tables_header_and_rows_are_no_title():
    """Read blind (seed 1232): a blog's contents table titled `No Date Title` by its header row."""
    from siterag.enrich.metadata import own_title

    table = "| No | Date | Title |\n|---|---|---|\n| 58 | 2013-06-23 | [AutoCAD 覚書](a.html) |\n" \
            "| 57 | 2013-06-23 | [WordPress](b.html) |\n"
    assert own_title("ブログ", table, {"ブログ"}, set()) == ""
    assert own_title("ブログ", "## ブログの目次\n\n" + table, {"ブログ"}, set()) == "ブログの目次"


def test_the_sites_links_name_a_page_unless_the_label_is_navigation_or_a_date():
    from collections import Counter

    from siterag.enrich.metadata import linked_name

    spread = Counter({"戻る": 12, "航空写真": 1, "2013-10-26": 1, "7": 1, "TIPS": 1})
    assert linked_name(Counter({"戻る": 5, "航空写真": 1}), spread) == "航空写真"
    assert linked_name(Counter({"7": 3, "2013-10-26": 2}), spread) == ""
    assert linked_name(None, spread) == ""


def test_a_variant_of_the_sites_name_as_title_gives_way_to_what_the_sites_links_call_the_page():
    """Issue 24 (blind reading, seed 1207): a school titles its applet demos with variants of its own name
    (`パソコンクラブ四日市`, `四日市のパソコンスクール`, `ＨＴパソコン教室`); its contents page links each by what it
    shows (`蓮の開花`)."""
    from siterag.enrich.metadata import renamed_by_links, title_vocabulary

    titles = ["パソコンクラブ四日市", "四日市のパソコンスクール", "ＨＴパソコン教室", "パソコン教室四日市",
              "パソコンスクール四日市", "四日市パソコン教室", "ＨＲＴＡＪパソコン教室", "温室", "航空写真"]
    vocabulary = title_vocabulary(titles)
    assert renamed_by_links("パソコンクラブ四日市", "蓮の開花", vocabulary)
    assert renamed_by_links("ＨＴパソコン教室", "ネオンテトラの水槽", vocabulary)
    assert not renamed_by_links("温室", "我が家の温室", vocabulary)  # the page's own title: not the site's words
    assert not renamed_by_links("パソコン教室四日市", "教室システム", vocabulary)  # it shares words: a part of it
    assert not renamed_by_links("パソコン教室四日市", "Flash movie", vocabulary)  # another language
    for label in ("設定", "2004.9.17 日( 金)", "説明を書きました", "pdf"):  # common, a date, a sentence, a word
        assert not renamed_by_links("パソコン教室四日市", label, vocabulary), label
    # blind reading, seed 1217: two more of the school's titles, under half of their letter pairs the site's
    keywords = title_vocabulary([*titles, "インターネット四日市", "ｲﾝﾀｰﾈｯﾄ教室", "インターネット講座", "ネット四日市"])
    assert renamed_by_links("ｲﾝﾀｰﾈｯﾄ四日市", "産めよ増やせよ", keywords)
    assert renamed_by_links("四日市のパソコンスクール", "ディスカスの水槽", keywords)


def test_a_link_to_a_part_of_a_page_does_not_name_the_page(tmp_path):
    """`essays.htm#naturalized` labels one essay of the page, not the page."""
    from siterag.enrich.corpus import read_doc
    from siterag.enrich.enrich import enrich_site
    from tests.enrich.test_enrich import site_config
    from tests.enrich.test_sections import make_html_site

    body = "一つ目の随筆です。\n\n二つ目の随筆です。"
    pages = {"index.htm": ('<title>ホーム</title><a href="essays.htm#two">帰化植物と外国人差別</a>', "ようこそ。"),
             "about.htm": ('<title>紹介</title><a href="essays.htm#two">帰化植物と外国人差別</a>', "紹介です。"),
             "essays.htm": ("<title>untitled</title>", body)}
    layout = make_html_site(tmp_path, pages)
    enrich_site(layout, site_config(), {"index.md", "about.md", "essays.md"})
    fields, _ = read_doc(layout.corpus / "essays.md")
    assert fields["title"] != "帰化植物と外国人差別"


def test_a_page_titled_with_the_sites_name_is_named_by_the_sites_links_to_it(tmp_path):
    """Issue 24 (blind reading, seed 1218): hrtaj's map page has the <title> `hrtaj`, the site's name (its folder
    on the host), where every link to it says `所在地`; the home page keeps the site's name."""
    from siterag.enrich.corpus import read_doc
    from siterag.enrich.enrich import enrich_site
    from tests.enrich.test_enrich import site_config
    from tests.enrich.test_sections import make_html_site

    menu = '<a href="map.htm">所在地</a> <a href="index.htm">ホーム</a>'
    pages = {"index.htm": (f"<title>ホーム</title>{menu}", "ようこそ。"),
             "about.htm": (f"<title>紹介</title>{menu}", "教室の紹介です。"),
             "map.htm": (f"<title>{site_config().name}</title>", "お気軽におこし下さい。")}
    layout = make_html_site(tmp_path, pages)
    enrich_site(layout, site_config(), {"index.md", "about.md", "map.md"})
    assert read_doc(layout.corpus / "map.md")[0]["title"] == "所在地"
    assert read_doc(layout.corpus / "about.md")[0]["title"] == "紹介"


def test_a_page_titled_with_the_sites_name_and_linked_from_nowhere_is_named_by_its_file(tmp_path):
    """Blind reading (seed 1223): `happy_new_year.html`, a greeting titled `Lefty Uncle Works` (the home page's
    title) that no link names, kept the site's name as its title; its file's name says what it is. A file name
    that is a code or one word (`newpage004`, `index-main`, `links`) names nothing."""
    from siterag.enrich.corpus import read_doc
    from siterag.enrich.enrich import enrich_site
    from siterag.enrich.metadata import file_name_title
    from tests.enrich.test_enrich import site_config
    from tests.enrich.test_sections import make_html_site

    pages = {"index.htm": ("<title>Lefty Uncle Works</title>", "ようこそ。"),
             "about.htm": ("<title>紹介</title>", "教室の紹介です。"),
             "happy_new_year.htm": ("<title>Lefty Uncle Works</title>", "今年もよろしくお願いします。"),
             "newpage004.htm": ("<title>Lefty Uncle Works</title>", "静かな情景が好きです。")}
    layout = make_html_site(tmp_path, pages)
    enrich_site(layout, site_config(), {"index.md", "about.md", "happy_new_year.md", "newpage004.md"})
    assert read_doc(layout.corpus / "happy_new_year.md")[0]["title"] == "Happy new year"
    assert read_doc(layout.corpus / "index.md")[0]["title"] == "Lefty Uncle Works"  # the home page: the site's
    assert read_doc(layout.corpus / "newpage004.md")[0]["title"] != "Newpage004"
    assert file_name_title("blog/password_incorrect.html") == "Password incorrect"
    assert file_name_title("crest/Q/index-main.html") == file_name_title("links.html") == ""
    assert file_name_title("002syozaiti/koukuu.htm") == ""  # a romanised word: no English


def test_a_title_an_older_siterag_gave_goes_when_the_page_keeps_its_own(tmp_path):
    """A rerun after an upgrade: a page an older siterag retitled (its <title> kept as `page_title`) that this
    one does not retitle gets its own <title> back, and `page_title` goes (it had kept the older title)."""
    from siterag.enrich.corpus import read_doc, write_doc
    from siterag.enrich.enrich import enrich_site
    from tests.enrich.test_enrich import site_config
    from tests.enrich.test_sections import make_html_site

    pages = {"index.htm": ("<title>ホーム</title>", "ようこそ。"),
             "about.htm": ("<title>教室の紹介</title>", "教室の紹介です。毎週土曜日に開いています。")}
    layout = make_html_site(tmp_path, pages)
    enrich_site(layout, site_config(), {"index.md", "about.md"})
    fields, body = read_doc(layout.corpus / "about.md")
    assert fields["title"] == "教室の紹介" and "page_title" not in fields
    write_doc(layout.corpus / "about.md", body, {**fields, "title": "No Date Title", "page_title": "教室の紹介",
                                                 "enrich_key": "an older siterag's"})
    enrich_site(layout, site_config(), set())
    fields, _ = read_doc(layout.corpus / "about.md")
    assert fields["title"] == "教室の紹介" and "page_title" not in fields


def test_a_figures_caption_is_no_title_of_the_page_that_shows_it():
    """crest's research figures (`image1-j.html`) share their project's <title> and show one numbered figure: the
    project's name stays the title, and the caption still names the page's subject for its tags."""
    from siterag.enrich.metadata import FIGURE_CAPTION_RE, own_title

    body = "![](image1l.jpg)  \n図1．日中間共同作業で使用した非同期型多言語コラボレーションツール\n"
    shared = {"日中共同作業によるデジタル北京の構築"}
    assert own_title("日中共同作業によるデジタル北京の構築", body, shared, set()) == ""
    for caption in ("図１．全方位カメラと全方位画像", "Fig. 2 The user interface", "Figure 1. Evacuation", "(a) 質問"):
        assert FIGURE_CAPTION_RE.match(caption)
    assert not FIGURE_CAPTION_RE.match("画像０ 出産限度数：") and not FIGURE_CAPTION_RE.match("図書館の歴史")
    assert own_title("Shared", "## The Talk\n\nText.\n", {"shared"}, set()) == "The Talk"


def test_a_figures_caption_is_a_heading_of_a_figure_page_only():
    from siterag.enrich.enrich import figure_captions

    figure = "![](image2l.jpg)\n図2．ズーミングステレオ\n"
    assert figure_captions(figure) == ["図2．ズーミングステレオ"]
    project = figure + "\n" + "このシステムは全方位カメラで撮影した画像から街の立体モデルを作ります。" * 8 + "\n"
    assert figure_captions(project) == []  # a project's page: its figures show parts of it


def test_a_menus_first_link_is_no_title_of_the_page_it_is_on():
    """hrtaj's `教室案内` (no <title>) opened with `[所 在 地](…)`, a link to another page: no title of its own, so
    the site's links name it."""
    from siterag.enrich.metadata import UNTITLED, fallback_metadata

    menu = "[所 在 地](../002syozaiti/index.htm)\n\n[教室システム](001sisutemu/index.htm)\n"
    assert fallback_metadata("", menu)["title"] == UNTITLED
    assert fallback_metadata("", "**[生きものがたり目次](a.htm)(投稿日順)**\n\n本文。")["title"] == \
        "生きものがたり目次(投稿日順)"  # words beside the link: the page's own heading


def test_a_title_the_page_never_mentions_gives_way_to_its_own_opening_heading():
    """Seed 1236: a play opening `# とも` kept the <title> `○春日高校・部室前の廊下`, a scene of the script it was
    saved from; a <title> that shares a word with the text (`1965 — My life and times` over `1965` entries) stays."""
    from siterag.enrich.metadata import own_title

    play = "# とも\n\n登場人物\n\n1\\. 小林知輝\n\n2\\. 森山智花\n\n舞台は七つ森総合病院。"
    assert own_title("○春日高校・部室前の廊下", play, set(), set()) == "とも"
    assert own_title("森山智花の物語", play, set(), set()) == ""  # `森山智花` is in the text: the <title> stays
    diary = "### WEDNESDAY 9th JUNE 1965\n\nBrother Allen came on stage to rapturous applause."
    assert own_title("1965 — My life and times", diary, set(), set()) == ""
    series = "# チュートリアル (その 8)\n\nフォントに含まれるすべてのグリフを作り終えたら、チェックします。"
    assert own_title("最終的な調整", series, set(), set()) == ""  # a numbered part of a series names no page
    opening = "舞台は七つ森総合病院。\n\n# とも"  # no heading first: the <title> stays
    assert own_title("○春日高校・部室前の廊下", opening, set(), set()) == ""
