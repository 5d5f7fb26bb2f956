"""Page kinds (issue 24, item 3): one taxonomy slug per page, from its structure, its title, its section's name."""

from __future__ import annotations

import numpy as np
import pytest

from siterag.enrich.kinds import KINDS, PROSE_KINDS, named_kind, page_kind, prose_kinds, site_kinds, structure

PROSE_JA = "今日は雨が降っていたので、家で本を読んで過ごした。とても静かな一日だった。" * 6


def test_every_kind_is_described_in_both_languages():
    assert "other" in KINDS and set(PROSE_KINDS) <= set(KINDS)
    for slug, kind in KINDS.items():
        assert slug.isascii() and slug.islower()
        assert any(ord(ch) > 0x3000 for ch in kind.ja) and kind.en.isascii()
        ja, en = kind.word  # how a summary's frame says the kind: every kind but `other` says what a page is
        assert (bool(ja) and bool(en)) == (slug != "other") and en.isascii() and not ja.isascii() if ja else True


def test_structure_decides_index_links_photos_diary_lyrics():
    assert page_kind("\n".join(f"- [第{i}章](ch{i}.html)" for i in range(8))) == "index"
    assert page_kind("\n".join(f"- [友達のサイト{i}](http://e{i}.jp/) 素敵なサイト" for i in range(8))) == "links"
    assert page_kind("\n\n".join(f"![写真{i}](p{i}.jpg)" for i in range(5)) + "\n\n夏の旅行") == "photos"
    diary = "\n\n".join(f"## 2003年9月{d}日 {{#2003-09-{d:02}}}\n\n{PROSE_JA}" for d in (1, 2, 3))
    assert page_kind(diary) == "diary"
    verse = "\n".join(["風が吹いて", "空が青くて", "君が笑った", "", "夜が来て", "星が出て", "僕は歌う", "明日へ"])
    assert page_kind(verse) == "lyrics"
    assert page_kind("短い。") == "other"
    table = "\n".join(["| 当番 | 燃えるゴミ |", "|---|---|", *(f"| 12/{d} | 井上 |" for d in range(1, 9))])
    assert page_kind(PROSE_JA + "\n\n" + table) == "other"  # mostly a table of data
    assert page_kind(PROSE_JA) == "essay"


def test_dated_entries_take_the_entry_kind_the_title_names():
    photos = "\n".join(f"## 2003-0{m}-01 {{#2003-0{m}-01}}\n\n新しい車輪をつけた。" for m in (1, 2, 3))
    assert page_kind(photos, title="Gallery") == "photos"
    news = "\n".join(f"## 2003-0{m}-01 {{#2003-0{m}-01}}\n\nページを追加しました。" for m in (1, 2, 3))
    assert page_kind(news, title="更新履歴") == "news"
    assert page_kind(news, title="What's New") == "news"
    assert page_kind(news, title="ライブレポート") == "report"
    assert page_kind(news, title="ライブスケジュール") == "diary"  # 'schedule' is the head: no kind's word
    assert page_kind(news, title="LIVE") == "event"
    assert page_kind(news) == "diary"


def test_an_events_own_pages_are_event_and_an_account_of_one_is_a_report():
    """Read blind (seed 1227): a workshop's committee page and a symposium talk's abstract are no `report`; they
    are the event's pages. An account of a trip or a concert after it is."""
    assert named_kind("会議") == "event" and named_kind("Conferences") == "event"
    assert named_kind("シンポジウム報告") == "report" and named_kind("Conference report") == "report"
    assert named_kind("ライブ") == "event" and named_kind("ライブレポート") == "report"
    assert named_kind("The Workshops") == ""  # an English workshop is also a room with lathes in it


def test_words_of_the_taxonomy_in_the_title_or_the_section():
    assert named_kind("プロフィール") == "profile" and named_kind("About me") == "profile"
    assert named_kind("Links") == "links" and named_kind("リンク集") == "links"
    assert named_kind("更新履歴") == "news" and named_kind("掲示板") == "bbs"
    assert named_kind("The Build Diary") == "diary" and named_kind("劇評「七人の部長」") == "review"
    assert named_kind("思索・エッセイ(芸術)") == "essay" and named_kind("自然紀行 トップ") == "report"
    # a Japanese name says a kind by its head (its end), not by a word inside it
    assert named_kind("プロジェクトメンバー向け 内部ページ") == "" and named_kind("プロジェクトメンバー") == "profile"
    assert named_kind("日記 演劇 自然 -徒然なるままに 目次") == "index"  # the last part that names a kind
    assert named_kind("Linksys router") == ""  # an English word counts whole
    assert named_kind("newpage3") == "" and named_kind("") == ""
    assert page_kind(PROSE_JA, section="日記") == "diary"
    assert page_kind(PROSE_JA, title="自己紹介", section="日記") == "profile"  # its own title first
    # structure that says what a page is wins over the section: the diary section's table of contents is an index
    assert page_kind("\n".join(f"- [9月{i}日](d{i}.html)" for i in range(8)), section="日記") == "index"


def test_a_track_list_of_recordings_a_short_script_notes_and_the_sites_description():
    """Issue 24 (blind reading, seed 1207): an album's track list linking its MP3s is media, not `other`; a
    redirect script shown as text and a book's footnotes are no essay; `このHPの説明` is the site's about page."""
    rows = "\n".join(f"| song {i} | 04:5{i} | [![](speaker.jpg)](audio/0{i}.mp3) |" for i in range(1, 9))
    album = f"**Released: 2012**\n\n| Title | length | play |\n|---|---|---|\n{rows}\n\n配信のみのアルバムです。"
    assert page_kind(album) == "media"
    assert page_kind(album.replace(".mp3", ".html")) != "media"  # pages, not recordings
    script = ("$(function(){ var agent = navigator.userAgent; var redirectPass = 'mobile'; if(agent.search(/iPhone/)"
              " != -1 || agent.search(/Android/) != -1){ location.href = redirectPass; } });")
    assert page_kind(script) == "other"
    notes = "# Footnotes\n\n" + "\n".join(f"{i} Genesis {i}:{i + 1}–{i + 3}  " for i in range(1, 40))
    assert page_kind(notes) == "other"
    assert page_kind(PROSE_JA) == "essay"  # running text stays an essay
    assert named_kind("このHIPの説明") == named_kind("当サイトについて") == "profile"
    assert named_kind("このソフトの説明") == ""  # a program's description is no page about the site


def test_html_time_animation_is_media_and_a_form_under_a_picture_is_no_photo():
    """Issue 24 (blind reading, seed 1208): a lotus opening animated with IE's HTML+TIME (`<t:animate>`) was
    `photos`; a contact form under its heading picture was `photos`."""
    from siterag.enrich.kinds import decide

    body = "**ゆっくりと見ていて下さい**\n\n" + " ".join(f"![](ha/hasu{i}.gif)" for i in range(6))
    html = '<t:animateMotion id=m1 from="0,0" targetElement="a"/><t:animate id=large11 attributeName="width"/>'
    assert decide(structure(body, html)) == "media"
    assert decide(structure(body)) == "photos"  # the same pictures without the animation
    form = "![](mail.gif)\n\n- お名前\n- メールアドレス\n\n送信してください。"
    fields = '<input type="text" name="name"><input type="text" name="mail"><textarea name="body"></textarea>'
    assert decide(structure(form, fields)) == "other" and decide(structure(form)) == "photos"


def test_a_video_frame_a_shown_audio_player_and_a_short_animating_script_are_media_not_background_music():
    """Issue 24 (blind reading, seed 1208): a video manual (a YouTube frame, a Windows Media player) was `other`;
    a Titanic sailing by a 900-character timer script was `photos`. A hidden BGM `<embed>` is no player."""
    from siterag.enrich.kinds import decide, program

    body = "ビデオマニュアルとか\n\nインストールマニュアル\n\n![](logo.gif)"
    video = '<iframe width="560" height="315" src="http://www.youtube.com/embed/MTDzlQHp4Kk"></iframe>'
    player = '<embed src="a/99_Bohemian.wma" width="160" height="163" type="application/x-mplayer2">'
    bgm = '<embed src="bgm.mid" hidden="true" autostart="true">'
    assert program(video)[0] == 1 and program(player)[0] == 1 and program(bgm)[0] == 0
    assert decide(structure(body, video)) == decide(structure(body, player)) == "media"
    script = "<script>function f(){ setInterval('x.phase+=10', 100); }" + " var a = 1;" * 80 + "</script>"
    assert decide(structure("![](titanic.gif)\n\nゆっくりとご覧下さい。", script)) == "media"
    entry = "## 2012-12-03 演奏動画 {#2012-12-03}\n\n弾いてみました。"
    assert decide(structure(entry, video), section="weblog") == "diary"  # a blog's entry of a video: an entry


class _Fake:
    """An embedder that knows two words: a page about a film is near the review description."""

    def embed(self, texts):
        return np.array([[1.0, 0.0] if ("Review" in t or "映画" in t) else [0.0, 1.0] for t in texts])


def test_the_embedder_chooses_among_prose_kinds_only_where_nothing_else_decides():
    assert prose_kinds(["映画を観た感想", "雨の日"], _Fake()) == ["review", "essay"]
    pages = {"a.html": (structure(PROSE_JA), "映画の話", "映画の話 " + PROSE_JA),
             "b.html": (structure(PROSE_JA), "雨", PROSE_JA),
             "c.html": (structure(PROSE_JA), "映画日記", "映画日記 " + PROSE_JA),
             "d.html": (structure("\n".join(f"- [{i}](x{i}.html)" for i in range(6))), "映画", "映画")}
    assert site_kinds(pages, {}, _Fake()) == {"a.html": "review", "b.html": "essay", "c.html": "diary",
                                              "d.html": "index"}
    assert site_kinds(pages, {}) == {"a.html": "essay", "b.html": "essay", "c.html": "diary", "d.html": "index"}


# Pages of the tuned shared sites, labelled by reading them (title, body): (site, path, title, the name its site's
# menu gives its section as site_categories finds it, the kind a reader files it under).
LABELLED = [
    ("gyrobot", "diary.htm", "The Build Diary", "The Build Diary", "diary"),
    ("gyrobot", "links.htm", "Links", "Links", "links"),
    ("fontforge-ja", "ja/metricsview.html", "メトリックビュー", "", "manual"),  # no section: its words say it
    ("fontforge-ja", "ja/transform.html", "変形ダイアログ", "", "manual"),
    ("nanatsumori", "impression/imp-aozora.html", "「青空」中学生のための脚本 感想", "上演劇の感想", "review"),
    ("nanatsumori", "shisaku-geijutsu/shisaku-geijutsu-hihyo-eiga-AI..htm", "映画評「AI」", "思索・エッセイ(芸術)",
     "review"),  # its own title says more than its section
    ("nanatsumori", "shisaku-kyoiku/shisaku-kyoiku-shogai-2.html", "思索(ソフィアの森で)障害", "思索・エッセイ(教育)",
     "essay"),
    ("nanatsumori", "diary/shizen-shizenkiko-hokkaido-shiretoko2002.htm",
     "自然紀行 北海道 ヒグマ、クジラ、シマフクロウ", "自然劇場の記録", "report"),
    ("crest-digitalcity", "research/kankyo/index.html",
     "Computer-Assisted System for Environmental Learning in the Suburbs", "研究", "essay"),
    ("crest-digitalcity", "research/eizoutoshi/image1-j.html", "図１．全方位カメラと全方位画像", "研究", "photos"),
    ("crest-digitalcity", "members/ishida.html", "ISHIDA Toru", "プロジェクトメンバー", "profile"),
    ("crest-digitalcity", "~patrick/pictures/kyoto/parade.html", "Mystery Parade", "Patrick at Nijo Lab", "photos"),
]


@pytest.mark.parametrize(("site", "path", "title", "section", "kind"), LABELLED,
                         ids=[f"{c[0]}:{c[1]}" for c in LABELLED])
def test_real_shared_pages_get_the_kind_a_reader_gives_them(shared_sites, site, path, title, section, kind):
    from siterag.enrich.dates import mark_entries
    from siterag.extract.extract import extract_page
    from siterag.normalize.encoding import detect_encoding

    page = shared_sites / site / path
    if not page.is_file():
        pytest.skip(f"{site}/{path} is absent")
    data = page.read_bytes()
    body = mark_entries(extract_page(data.decode(detect_encoding(data).encoding, errors="replace"),
                                     "heuristic").markdown).markdown
    assert page_kind(body, title, section) == kind, structure(body)


def test_an_older_document_without_a_kind_is_enriched_again():
    """A corpus written before kinds (its category a folder or `newpage`) gets kind, section and category anew."""
    from siterag.enrich.enrich import needs_machine_fields

    assert needs_machine_fields({"metadata_by": "machine", "category": "newpage", "tags": ["鮎"], "summary": "…"})
    assert not needs_machine_fields({"metadata_by": "machine", "category": "diary", "kind": "diary", "section": ""})


def test_an_index_by_its_links_not_its_lines_and_the_sites_front_page():
    """Links count one by one (five works on two lines are an index, not two lines among prose); thumbnails that
    lead to pages with their captions on lines of their own are an index too. The site's front page (index.* at
    its top) is what the site offers: an index, unless it is a diary."""
    works = ("My Works\n\nここでは演奏やソフトウェアについて語っていく予定です。\n\n"
             "[・演奏](01.html)[・ソフトウェア](02.html)  \n"
             "[・ギター](03.html)[・エフェクター](04.html)[・バンド](05.html)\n")
    assert page_kind(works) == "index"
    thumbs = "ジャヴァアプレットの作品です。\n\n" + "\n\n".join(
        f"[![](0{i}.jpg)](../0{i}/index.htm)" for i in range(1, 7)) + "\n\n" + "\n\n".join(
        ("雪", "花火", "海", "庭", "滝", "川"))
    assert page_kind(thumbs) == "index"
    prose = "\n\n".join(["今日は庭の手入れをした。花がたくさん咲いていて、とてもきれいだった。" * 3] * 6)
    assert page_kind(prose + "\n\n[写真](a.html) [日記](b.html)") == "essay"  # two links under prose: no index
    photos = "![](a.jpg)\n\n![](b.jpg)\n\n![](c.jpg)\n\n[mail](mailto:x@example.jp)"
    pages = {p: (structure(photos), "", "") for p in ("index.htm", "gallery/index.htm")}
    assert site_kinds(pages, {}) == {"index.htm": "index", "gallery/index.htm": "photos"}


def test_the_category_is_the_kind_or_where_the_kind_is_a_default_the_sites_section():
    """Read on held-out pages: a PC school's course page (running text, an `essay` by default) lost its section
    `教室案内` to `essay`; a script's demo (one or two pictures, `photos` by default) its `JAVA スクリプト`."""
    from siterag.enrich.enrich import page_category
    from siterag.enrich.kinds import guessed

    assert page_category("diary", "日記") == "diary"
    assert page_category("other", "JAVA スクリプト") == "JAVA スクリプト"  # a script's demo: the site says what
    assert page_category("other", "") == "other"
    prose = structure("教室では毎週パソコンの使い方を学びます。" * 20)
    two = structure("![](a.gif)\n\n![](b.gif)")
    many = structure("\n\n".join(f"![](p{i}.jpg)" for i in range(6)))
    assert guessed("essay", prose) and not guessed("essay", prose, title="随筆 春の日")
    assert guessed("photos", two) and not guessed("photos", many) and not guessed("diary", prose)
    assert page_category("essay", "教室案内", guessed("essay", prose)) == "教室案内"
    assert page_category("photos", "旅の写真", guessed("photos", many)) == "photos"


def test_a_page_whose_content_is_a_program_or_a_player_is_media():
    """The Markdown body keeps no <applet>, <embed> or <script>: the page's HTML tells that its content is an
    applet, a Flash movie, scrolling text or a script's animation (a mouse-pointer effect with a few images)."""
    from siterag.enrich.kinds import media_like, program

    few = "![](a.gif)\n\n![](b.gif)\n\n**ゆっくりとご覧下さい。**"
    applet = '<applet code="snowFX.class" width="600"><param name="image1" value="001.gif"></applet>'
    assert program(applet)[0] == 1 and page_kind_html(few, applet) == "media"
    flash = ('<object classid="clsid:D27CDB6E-AE6D-11cf-96B8-444553540000"><param name="movie" value="m.swf">'
             '<embed src="m.swf" type="application/x-shockwave-flash"></object>')
    assert page_kind_html(few, flash) == "media"
    effect = "<script>function move(e){x=e.clientX;}\nsetInterval(step, 50);" + "a[i]=b[i]+1;" * 200 + "</script>"
    assert page_kind_html(few, effect) == "media"
    rollover = "<script>function MM_swapImage(){" + "document.images[i].src=x;" * 100 + "}</script>"
    assert program(rollover)[1] == 0  # a menu's rollover images: no timer, no mouse: not the page's content
    assert page_kind_html(few, rollover) == "photos"
    assert page_kind_html(PROSE_JA * 3, applet) == "essay"  # a player beside much text of its own: not its content
    ticker = "".join(f"<marquee>{'＿―￣' * 30}</marquee>" for _ in range(12))
    lines = "\n".join("＿―￣" * 30 for _ in range(12))
    assert page_kind_html(lines, ticker) == "media"  # the scrolling text is the animation, not running text
    assert not media_like(structure(lines, ticker[:len(ticker) // 6]))  # one or two tickers: not an animation
    assert page_kind(few) == "photos"  # without its HTML
    prices = "| 科目 | 料金 |\n|---|---|\n" + "".join(f"| 制作{i} | ￥{i},000 |\n" for i in range(1, 9)) \
        + "\n料金はお問い合わせ下さい。お申し込みは教室で承ります。\n"
    assert page_kind_html(prices, flash) == "product"  # a price list under a Flash banner: its offer is its content


def page_kind_html(body: str, html: str) -> str:
    """The kind of a page from its Markdown body and its HTML."""
    from siterag.enrich.kinds import decide

    return decide(structure(body, html))


def test_an_offer_with_prices_is_a_product_and_a_program_reference_table_a_manual():
    offer = ("設置方法\n\n雨樋の途中に設置してタンクに水を入れます。\n\n"
             "コック・液面計付き 1個￥8，000 2個で￥15，000\n\n"
             "工事が必要なら見積もり致します。お早めに電話にてご連絡下さい。\n\n"
             + PROSE_JA)
    assert page_kind(offer) == "product"
    service = ("初級、中級者向けパソコン質問・相談、プログラム開発を承ります。\n\n(1) マニュアル作成を承ります。\n\n"
               "(2) 電話による質問・相談を承ります。ご依頼の方はメールで。\n\n" + PROSE_JA)
    assert page_kind(service) == "product"
    book = PROSE_JA * 40 + "\n\nThe fee was paid. " + "購入した本。" + "販売された。" + PROSE_JA * 40
    assert page_kind(book) == "essay"  # a long text that names a fee or a sale once or twice
    assert page_kind(PROSE_JA + "\n\n昼ごはんは800円だった。") == "essay"  # one amount, no offer
    reference = "\n".join(["| cSTDクラス 関数 | [戻る](index.html) |", "|---|---|", *(
        f"| ' ﾊﾟﾗﾒｰﾀ : 変数名, I/O, 型 | 戻り値, O, String{i} |" for i in range(8))])
    assert page_kind(reference) == "manual"  # a program's API in a table (half-width ﾊﾟﾗﾒｰﾀ counts)


def test_the_sites_front_page_by_its_file_name():
    from siterag.enrich.kinds import _HOME_RE

    assert all(_HOME_RE.match(p) for p in ("index.html", "m.index.html", "!home.html", "p01_index.html", "TOP.HTM"))
    assert not any(_HOME_RE.match(p) for p in ("homework.html", "stop.html", "diary/index.html", "topics.htm"))
    prose = {p: (structure(PROSE_JA), "", "") for p in ("!home.html", "essays/home.html")}
    assert site_kinds(prose, {}) == {"!home.html": "index", "essays/home.html": "essay"}


SHARED_HTML = [  # (site, path, kind): read on the original pages
    ("hrtaj", "001sucript/newpage009.htm", "media"),  # a mouse-pointer script effect, a few images
    ("hrtaj", "003appletto/001yuki/index.htm", "media"),  # a Java applet of falling snow
    ("hrtaj", "mubi/index2.htm", "media"),  # a Flash movie
    ("gyrobot", "camcad.htm", "media"),  # "Design Animation": a Flash movie
    ("hrtaj", "usuityozou/usui.htm", "product"),  # a rain-water tank: how to set it up, parts with prices
    ("leftyuncle", "integreq.html", "product"),  # PC support, manuals, programs offered (承ります)
    ("leftyuncle", "software/cstd_method.html", "manual"),  # a class's functions: parameters, return values
    ("gyrobot", "team/neilsolomon.htm", "other"),  # a short page with the site's rollover-menu scripts: no media
]


@pytest.mark.parametrize(("site", "path", "kind"), SHARED_HTML, ids=[f"{c[0]}:{c[1]}" for c in SHARED_HTML])
def test_real_shared_pages_with_their_html(shared_sites, site, path, kind):
    from siterag.enrich.dates import mark_entries
    from siterag.extract.extract import extract_page
    from siterag.normalize.encoding import detect_encoding

    page = shared_sites / site / path
    if not page.is_file():
        pytest.skip(f"{site}/{path} is absent")
    data = page.read_bytes()
    html = data.decode(detect_encoding(data).encoding, errors="replace")
    body = mark_entries(extract_page(html, "heuristic").markdown).markdown
    assert page_kind_html(body, html) == kind, structure(body, html)


def test_forms_program_sources_blog_entries_and_tables_in_essays():
    """A form with little text is the form (a search, a download's registration); a script's source served as it
    is (Perl: `$`, `;`, braces) is no essay; a blog's entry stays an entry when it is mostly links to videos; an
    essay's chronology table does not make the essay a table."""
    search = "# SEARCH\n\nType a word and press Find to search the diary. Results show the year and the entry."
    form = '<form><input type="hidden" name="id" value="1"><input type="text" name="q"><input type="submit"></form>'
    assert page_kind_html(search + "\n\n" + PROSE_JA, form) == "other"
    assert page_kind_html(search + "\n\n" + PROSE_JA, form.replace('type="text" ', 'type="hidden" ')) == "essay"
    assert page_kind_html(PROSE_JA * 4, form) == "essay"  # a search box beside an essay
    perl = "\n".join(f"my $x{i} = $q->param('f{i}'); if ($x{i}) {{ $out .= \"<p>$x{i}</p>\"; }}" for i in range(12))
    assert page_kind(perl) == "other"
    entry = "## 2013-04-17 やっぱり凄かった {#2013-04-17}\n\n" + PROSE_JA + "\n\n" + "\n".join(
        f"[演奏{i}](http://www.youtube.com/watch?v={i})" for i in range(10))
    assert page_kind(entry) == "links" and page_kind(entry, section="weblog") == "diary"
    chronology = "\n".join(["| 年 | 王 |", "|---|---|", *(f"| 7{i}0 BC | king {i} |" for i in range(9))])
    essay = "\n\n".join(["Hosea prophesied to the northern House of Israel over a very long period. " * 4] * 4)
    assert page_kind(essay + "\n\n" + chronology) == "essay" and page_kind("Kings.\n\n" + chronology) == "other"
    pages = {p: (structure(PROSE_JA), "", "") for p in ("~patrick/index.html", "~patrick/notes/index.html")}
    assert site_kinds(pages, {}) == {"~patrick/index.html": "index", "~patrick/notes/index.html": "essay"}


def test_a_table_of_contents_laid_out_in_a_table_is_an_index():
    """A page per row (Homepage Builder's tables of script demos, a blog's list of entries) is an index; a menu's
    hot keys (many rows into a few pages), a track list (links to sound files) and a price table are not."""
    toc = "\n".join(["| 番号 | 題 | 説明 |", "|---|---|---|", *(f"| 00{i} | [作品{i}](newpage{i}.htm) | 雛形 |"
                                                          for i in range(2, 10)), "| 010 |  | 工事中 |"])
    assert page_kind(toc) == "index"
    keys = "\n".join(["| Key | Command |", "|---|---|", *(f"| Ctl-{c} | [{c}を選択](editmenu.html#{c}) |"
                                                        for c in "ABCDEFGHIJKL")])
    assert page_kind(keys) != "index"
    tracks = "\n".join(["| 曲 | 時間 | 再生 |", "|---|---|---|", *(f"| 曲{i} | 0{i}:30 | [![](s.jpg)](audio/0{i}.mp3) |"
                                                             for i in range(1, 9))])
    assert page_kind(tracks) != "index"


def test_a_title_that_says_whom_it_teaches_is_a_manual():
    assert page_kind(PROSE_JA, title="初心者向けインターネット") == "manual"
    assert page_kind(PROSE_JA, title="Python for Beginners") == "manual"
    assert page_kind(PROSE_JA, title="初夏の散歩") == "essay" and page_kind(PROSE_JA, title="入門者の日記") == "diary"


def test_links_each_with_a_few_lines_about_it_are_a_links_page():
    """A page of recommended sites, each link followed by two or three lines about it, is `links`, not an essay."""
    entries = "\n\n".join(f"[ピアノのブログ{i}](http://blog{i}.example.jp/)  \nピアノの先生のブログです。  \n"
                          f"記事がとても面白くて楽しいです。" for i in range(10))
    assert page_kind(entries) == "links"
    assert page_kind("\n\n".join([PROSE_JA * 3 + f" [注{i}](http://e{i}.jp/)" for i in range(10)])) == "essay"


def test_a_contents_page_lists_each_pages_parts_under_its_link():
    """Issue 24 (blind reading, seed 1215): brianwilliams' `Diary excerpts 1935–1946` (each year a link, its
    entries' titles listed under it) read as a diary; it is the diary's contents."""
    years = "\n\n".join(f"[**{y}**]({y}.html)\n\n" + "\n".join(f"- Entry {y}-{i}" for i in range(8))
                        for y in range(1935, 1941))
    intro = "My first diary was for 1943, begun when I was only 7. I have expanded some entries since."
    assert page_kind(f"# Diary excerpts\n\n{intro}\n\n{years}", "Diary excerpts 1935–1946") == "index"
    assert page_kind(f"# Diary excerpts\n\n{intro}\n\n" + "\n".join(f"- Entry {i}" for i in range(40)),
                     "Diary excerpts") == "diary"  # a list without the pages it belongs to: what the title says


GEAR_GALLERY = """１９９０年代のギア

ベース、ギター

| ![](image4.jpg) | ![](image8.jpg) | ![](image9.jpg) | ![](image10.jpg) |
|---|---|---|---|
| メインのFender JAZZ BASS | チューンのフレットレス<br>師匠の所に出家中 | アトリエZの５弦 | バレーアーツ |
"""


def test_pictures_laid_out_in_a_table_are_a_gallery_and_its_summary_names_the_captions():
    """Issue 24 (blind reading, seed 1218): a page of four photos in a table row, their captions in the next, was
    `other` with the summary `ベース、ギター`; a manual's screenshots in a table of steps under running text stay a
    manual's."""
    from siterag.enrich.kinds import structural_kind
    from siterag.enrich.summary import composed_summary

    assert structural_kind(structure(GEAR_GALLERY)) == "photos"
    summary = composed_summary(GEAR_GALLERY, "ギター", kind="photos")
    assert summary.startswith("ギター: 写真 4枚: メインのFender JAZZ BASS / チューンのフレットレス 師匠の所に出家中")
    steps = ("パスワードを変更するには、設定アプリを開いてからプロファイルを削除します。\n\n"
             "削除といってもすべての情報が消えるのではなく、パスワードを設定し直す操作です。\n\n"
             "| ![](pd010.png) | ![](pd020.jpg) | ![](pd030.jpg) |\n|---|---|---|\n"
             "| 1.設定をタップします | 2.削除ボタンをタップします | 3.削除をタップします |\n")
    assert structural_kind(structure(steps)) != "photos"


def test_pictures_in_a_folder_of_a_manual_are_its_screenshots():
    from siterag.enrich.kinds import screenshots

    kinds = {"lib/cubase/000_index.html": "index", "lib/cubase/010_project.html": "photos",
             "lib/cubase/020_vst.html": "manual", "lib/cubase/030_midi.html": "manual",
             "lib/cubase/040_tempo.html": "manual", "album/001.html": "photos", "album/002.html": "photos",
             "album/notes.html": "essay", "album/trip.html": "diary", "album/more.html": "essay"}
    assert screenshots(kinds) == {"lib/cubase/010_project.html": "manual"}  # an album among essays stays photos


def test_pictures_each_told_by_a_paragraph_of_their_own_are_photos_and_an_illustrated_essay_is_not():
    """Patrick's `Loud Trucks`, gyrobot's workshops: a picture, then a paragraph about it, again and again."""
    story = "## Loud Trucks\n\n" + "".join(
        f"![](IMG_{n}.jpg)\n\nThis is another truck with a loud speaker on top, seen near my house in Kyoto.\n\n"
        for n in range(6))
    assert page_kind(story) == "photos"
    essay = "".join(f"![](fig{n}.png)\n\n" for n in range(4)) + "\n\n".join(
        "The study measured how people walk through a station during an evacuation drill." for _ in range(10))
    assert page_kind(essay) != "photos"


def test_links_to_the_sites_pages_each_with_a_paragraph_about_it_are_an_index():
    """nanatsumori's dialogues and essays: `●[title](page.htm)` and a line about it, again and again."""
    blurbs = "".join(f"●[越智優さんとの対話 その{n}](dialogue{n}.htm)  \n作者との対話の内容を紹介します。第{n}回。\n\n"
                     for n in range(5))
    assert page_kind(blurbs) == "index"
    tutorial = "".join(f"- [第{n}章](editexample{n}.html)\n" for n in range(10)) + "\n## 本文\n\n" + "\n\n".join(
        "多くの用字系では、あるグリフに対して異体関係にあるグリフがいくつか存在します。" for _ in range(16))
    from siterag.enrich.kinds import structural_kind

    assert structure(tutorial).blurbed == 0 and structural_kind(structure(tutorial)) == ""  # a list above the text


def test_the_folder_a_page_is_filed_in_names_its_kind_where_nothing_else_does():
    """gyrobot's `team/stevewood.htm` (`I am a 32 year old design engineer…`), titled and sectioned by a name:
    the folder `team` says it is a profile; a page's own structure and title still come first."""
    from siterag.enrich.kinds import decide

    bio = structure("I am a 32 year old design engineer who started out with an apprenticeship at Rover. " * 6)
    assert decide(bio, "Steve Wood", "Steve Wood") == "essay"
    assert decide(bio, "Steve Wood", "Steve Wood", folder="team") == "profile"
    assert decide(bio, "日記", "", folder="team") == "diary"  # the title's word first


def test_a_page_of_the_diarys_section_with_no_day_of_its_own_is_no_diary_page():
    """brianwilliams' `diary/biblio.html` (a bibliography) and `diary/barnes.html` (an article) were `diary` by their
    section alone; a page there with entries, or a date of its own (a blog post dated by its folder), still is."""
    from dataclasses import replace

    from siterag.enrich.kinds import decide, structure

    article = structure("As a schoolboy he showed great prowess as a debater, and he won the school's prize. " * 4)
    assert decide(article, "E W Barnes at King Edward's School", "diary", dated_section=True) == "essay"
    assert decide(article, "五月", "日記") == "diary"  # a section of undated pages: its pages are its entries
    assert decide(replace(article, dated=True), "Wi-Fiが原因のCS障害", "weblog", dated_section=True) == "diary"
    entries = structure("## 1 May 1997 {#1997-05-01}\n\nA day of rain and wind.\n")
    assert decide(entries, "1997", "diary", dated_section=True) == "diary"


def test_a_player_with_the_words_that_work_it_is_media():
    """Seed 1244: gyrobot's 3D model viewer (a plugin's <embed>) over four lines on how to install and turn it was
    read as a `manual`; the page is the model."""
    from siterag.enrich.kinds import decide, structure

    html = '<embed type="application/x-xview-plugin" pluginurl="http://x/SFViewerWeb.jar" ModelName="gyrobot.3D">'
    body = ("# Yes, you can actually manipulate this CAD model\n\nThe plugin needed for Internet Explorer should "
            "install automatically, you will be asked for permission to download. For other browsers try the manual "
            "download.\n\nYou can rotate, pan, zoom, cut sections, take measurements plus more.\n\nPress right mouse "
            "button over Gyrobot below (when loaded) for manipulation menu. Click and drag it to turn it around.")
    assert decide(structure(body, html), "3D CAD Model") == "media"
    assert decide(structure(body), "3D CAD Model") != "media"  # the same words without a player: a manual's
    downloads = body + "\n\n[Download the viewer](http://x/setup.exe)\n\n[The guide (PDF)](guide.pdf)"
    assert decide(structure(downloads, html), "Remote help") != "media"  # what to download, with a demo video
    essay = "The robot was built in a garage over two winters by two friends who loved engineering. " * 6
    assert decide(structure(essay, html), "Our story") != "media"  # a player under an essay's long text



def _post(title: str, writer: str) -> str:
    return f"タイトル ： {title}\n投稿者 ： {writer}\n\n{PROSE_JA}\n\n"


THREAD = "演劇をめぐる対話\n\n" + _post("遅ればせの感想です。", "越智") \
    + _post("Re: 遅ればせの感想です。", "斉藤俊雄") + _post("感想ありがとうございます", "**大手忍**")
LETTERS = "\n\n".join(f"◆{who}◆\n\n{PROSE_JA}" for who in ("野間大輔さんから", "斉藤からの返信", "野間さんからの返事"))


def test_a_boards_thread_kept_as_a_page_is_bbs_not_an_essay():
    assert page_kind(THREAD, "演劇対話 その２", "dialogue") == "bbs"
    assert page_kind(LETTERS, "対話「降るような星空」") == "bbs"
    one_writer = THREAD.replace("斉藤俊雄", "越智").replace("**大手忍**", "越智")  # one writer's notes: no thread
    assert page_kind(one_writer, "演劇対話 その２") == "essay"
    assert page_kind(THREAD, "演劇対話 その２", "日記") == "diary"  # the section's word still wins


def test_a_kinds_word_before_a_year_still_names_the_kind():
    """Issue 24 (blind reading, seeds 1246 and 1252): `芸術・書評2001`, a year's log of book reviews, was `essay`
    (its section's word) because `書評2001` does not end in `書評`."""
    from siterag.enrich.kinds import named_kind

    assert named_kind("思索 ムーサの森で 芸術・書評2001") == "review"
    assert named_kind("日記2003年") == "diary"
    assert named_kind("Windows8") == ""


def test_a_title_ending_in_a_list_names_the_kind_by_its_last_part():
    """Read on a held-out sample (seed 1255): `斉藤俊雄・中学校演劇 脚本 上演校一覧` (the schools that played the
    author's scripts) was `fiction` by its `脚本`."""
    assert named_kind("斉藤俊雄・中学校演劇 脚本 上演校一覧") == ""
    assert named_kind("日記 一覧") == "" and named_kind("日記一覧") == "diary" and named_kind("リンク集") == "links"


def test_a_name_glued_to_digits_names_no_kind_but_a_word_before_a_year_does():
    """leftyuncle's `NEC Aterm WD701CV と BUFFALO …` is no `cv` (a profile); `diary2003` is a diary."""
    assert named_kind("NEC Aterm WD701CV と BUFFALO WHR-G301N/N の接続") == ""
    assert named_kind("diary2003") == "diary" and named_kind("My CV") == "profile"


def test_the_title_a_page_is_shown_with_tells_its_kind_where_its_title_is_not_its_own():
    """crest's `計算機利用の手引き` under the <title> `Nijo Lab's Computers`, nanatsumori's `Book review drama skill`
    (its file's name) under `untitled`: the title shown names the kind; not a blog post's or a conference page's
    topic (`Konnekt Live の威力`, `Travel Support`) under the <title> its section's pages share, which names them."""
    from siterag.enrich.kinds import telling_title

    assert telling_title("計算機利用の手引き", "Nijo Lab's Computers") == "計算機利用の手引き"
    assert telling_title("Book review drama skill", "untitled") == "Book review drama skill"
    assert telling_title("北海道", "自然紀行 九州 屋久島 夏") == "自然紀行 九州 屋久島 夏"  # names none: the <title>
    assert telling_title("Konnekt Live の威力", "ブログ", shared=True, placed="diary") == "ブログ"
    assert telling_title("Q言語仕様", "Q Language", shared=True, placed="") == "Q言語仕様"  # the section says none


def test_a_works_appendix_and_footnotes_among_its_chapters_are_of_the_works_kind():
    """brianwilliams' `Britain in Prophecy -- appendix 1` (a table) and `footnotes to Britain in Prophecy` (notes)
    were `other` among the book's chapters; a list of the author's talks beside his books (`… by Brian Williams`)
    is no part of them, nor is a form."""
    from siterag.enrich.kinds import Structure, parts_of_work

    titles = {f"books/bp/ch{n}.html": f"Britain in Prophecy -- chapter {n}" for n in range(1, 5)}
    titles |= {"books/bp/chA1.html": "Britain in Prophecy -- appendix 1",
               "books/bp/foots.html": "footnotes to Britain in Prophecy",
               "books/bp/order.html": "Order Britain in Prophecy",
               "books/_index.html": "Books by Brian Williams",
               "books/rgp.html": "How You Can Receive God's Power — by Brian Williams",
               "books/cause.html": "Causes and Consequences of Revival — by Brian Williams",
               "books/printed.html": "Previously published work by Brian Williams",
               "books/talks.html": "Talks by Brian Williams"}
    kinds = {p: "essay" for p in titles} | dict.fromkeys(
        ["books/bp/chA1.html", "books/bp/foots.html", "books/bp/order.html", "books/printed.html",
         "books/talks.html"], "other")
    shapes = {p: Structure(fields=2 if p.endswith("order.html") else 0) for p in titles}
    assert parts_of_work(kinds, titles, shapes) == {"books/bp/chA1.html": "essay", "books/bp/foots.html": "essay"}


def test_nothing_but_links_elsewhere_is_a_links_page_however_few():
    """fontforge's `otherlinks.html`: two links to other software's sites, no word of its own, was `other`."""
    assert page_kind("- [Gimp](http://www.gimp.org/) [Gimp ユーザグループ](http://gug.sunsite.dk/)") == "links"
    assert page_kind("- [Gimp](http://www.gimp.org/)") != "links"  # one link: a way out
    assert page_kind("- [戻る](index.html) [次へ](page2.html)") != "links"  # the site's own pages


def test_a_references_text_under_its_list_of_links_into_one_other_page_is_no_index():
    """Read blind (seed 1261): FontForge's scripting manual (15,000 characters of text) was `index` for its list
    of 273 procedures, each a link into the alphabetical list on one other page; a contents page stays `index`."""
    procedures = "".join(f"- [Proc{n}(arg)](scripting-alpha.html#Proc{n})\n" for n in range(40))
    line = "foreach 文は、選択したグリフ群に含まれる各グリフに対して 1 回ずつ実行されます。"
    text = "\n\n".join(line for _ in range(40))
    assert page_kind(f"# スクリプト\n\n{procedures}\n{text}") != "index"
    contents = "".join(f"- [第{n}章](chapter{n}.html)\n" for n in range(40))
    assert page_kind(f"# 目次\n\n{contents}") == "index"
    assert page_kind(f"# 目次\n\n{contents}\n{text[:900]}") == "index"  # a contents page with an introduction
    sites = "".join(f"[ピアノのブログ{n}](http://piano{n}.example.jp/)  \n{line}\n{line}\n\n" for n in range(20))
    assert page_kind(f"# リンク\n\n{sites}") == "links"  # 20 sites, each told by a paragraph
