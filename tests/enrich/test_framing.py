"""Summaries that say what the page is (siterag.enrich.framing): the page's title, kind, section and entry put
before a sentence that does not say it; never an empty summary; captions and chat lines not quoted."""

from __future__ import annotations

import pytest

from siterag.enrich.framing import (
    announced,
    cast_list,
    chat_summary,
    contents_summary,
    heading_picture,
    own_heading,
    page_frame,
    page_parts,
    page_summary,
    parts_note,
    posts_summary,
    says_title,
    stated_heading,
)
from siterag.enrich.summary import SUMMARY_CHARS, page_sentences, quotable, summary_is_exact
from tests.conftest import SHARED_SITES


def _summary(body: str, title: str, kind: str = "", section: str = "", sure: bool = True) -> str:
    sentences = page_sentences(body)
    return page_summary(body, sentences, quotable(sentences), [], set(), title, kind, section, sure)


CHAPTER = ("###### CHAPTER FOUR\n\n# THE ISLES AFAR OFF\n\n"
           "WHAT happened to the ten lost tribes? The Jewish people of today acknowledge that their brethren of "
           "Israel must be somewhere in existence. The tribes were carried away into Assyria in the ninth year of "
           "Hoshea.\n\nThe Assyrian records name the cities where the tribes were settled by their captors.\n")


def test_a_detail_sentence_comes_after_what_the_page_is():
    """Judged partly: `The Prophet Hosea prophesied…` on a chapter, a mid-chapter line: the page's title, its own
    heading and its section say what it is; the quoted sentences stay the body's own."""
    summary = _summary(CHAPTER, "Britain in Prophecy -- chapter 4", "essay", "Publications", sure=False)
    frame = "Britain in Prophecy -- chapter 4 — THE ISLES AFAR OFF (Publications): "
    assert summary.startswith(frame), summary
    assert summary_is_exact(summary[len(frame):], CHAPTER) and len(summary) <= SUMMARY_CHARS
    assert "essay" not in summary  # a guessed kind is not said
    sure = _summary(CHAPTER, "Britain in Prophecy -- chapter 4", "essay", "Publications")
    assert sure.startswith("Britain in Prophecy -- chapter 4 — THE ISLES AFAR OFF (essay, Publications): "), sure


def test_a_lead_that_names_the_pages_subject_is_left_as_it_is():
    body = "宇治茶は京都府南部で作られるお茶です。宇治茶の歴史は鎌倉時代にさかのぼります。\n"
    assert _summary(body, "宇治茶", "essay", "お茶") == body.strip()
    assert says_title("宇治茶は京都府南部で作られるお茶です。", "宇治茶")
    assert not says_title("The tribes were carried away.", "Britain in Prophecy")
    assert not says_title("anything", "7")  # a title without words is said by nothing


def test_a_page_whose_only_text_is_its_title_is_never_summarised_by_its_title_alone():
    """Judged no: the heading alone (`ディスカスの水槽`), an empty summary on an applet's demo page."""
    body = ("[![](top.gif)](../../index.htm)[![](008.gif)](../../mokuji.htm) **だんだんと雨が多く降ります・**\n\n"
            "![](bird6.gif)\n")
    summary = _summary(body, "だんだんと雨が多く降ります・", "other", "JAVA アプレット", sure=False)
    assert summary == "「だんだんと雨が多く降ります・」（JAVA アプレット）。", summary
    pictures = "7\n\n![](ga/tizu1.jpg)\n"
    assert _summary(pictures, "所在地の地図", "photos", "所在地") == "「所在地の地図」（写真・所在地）: 画像 1枚"


def test_a_one_entry_diary_page_says_its_date_and_the_entrys_heading():
    body = ("# 1975\n\n### WEDNESDAY 25th JUNE {#1975-06-25}\n\n## Anyone for tea?\n\n"
            "**10.16pm.** The heat-wave continues and there is no sign of a break in the weather. The knee injury "
            "I suffered several weeks ago has been much aggravated of late.\n")
    summary = _summary(body, "1975 — My life and times", "diary", "diary")
    assert summary.startswith("1975 — My life and times (diary; 25 Jun 1975 — Anyone for tea?): The "), summary
    assert page_frame("2013-01-11 モーリスのギター", "diary", "weblog", "## 2013-01-11 モーリス {#2013-01-11}\n") \
        == "「2013-01-11 モーリスのギター」（日記・weblog）"  # the title says the date already


def test_a_caption_beside_a_picture_is_not_quoted():
    """Judged partly: a summary ending on `左はiPhone５のiCloudの設定、右は…`."""
    body = ("iCloudのバックアップは容量が５ＧＢまで無料で使えます。写真のバックアップには向きません。\n\n![](a.jpg)\n\n"
            "左はiPhone５のiCloudの設定、右はバックアップの画面です。\n")
    summary = _summary(body, "iCloudのバックアップ")
    assert "左は" not in summary and summary.startswith("iCloudのバックアップは"), summary


def test_a_chat_log_says_who_speaks_and_when_not_a_line_glued_to_a_name():
    """Judged no: `岡崎 光記ありがとうございます。` (a speaker's name joined to the reply under it)."""
    turns = [("14:34:13", "システム", "田中 がセッションに参加しました！"),
             ("14:34:28", "田中", "この度は、お問い合わせいただき、誠にありがとうございます。"),
             ("14:35:00", "山本 光", "ノートパソコンのスペック詳細についてです。"),
             ("14:35:23", "田中", "かしこまりました。"), ("14:36:02", "山本 光", "ありがとうございます。"),
             ("14:40:10", "田中", "ほかにご質問はございますか。")]
    body = "**チャットしてみた**\n\n" + "".join(f"{t}  \n{who}  \n{said}  \n" for t, who, said in turns)
    chat = "チャットの記録 14:34–14:40、6発言（発言者: 田中 / 山本 光 / システム）"
    assert chat_summary(body, True) == chat
    assert _summary(body, "チャットしてみた", "diary", "weblog") == f"「チャットしてみた」（日記・weblog）: {chat}"
    assert chat_summary(CHAPTER, False) == ""  # prose: no chat


def test_a_real_photo_page_names_each_photo_by_its_caption_and_what_it_says():
    """Each flower's name on a line of its own over a line about it: read blind (seed 1243), its pairs beat the first
    photo's note under the page's title."""
    page = SHARED_SITES / "nanatsumori" / "photogallery" / "photo00018467" / "real.htm"
    if not page.is_file():
        pytest.skip("../shared is absent")
    from siterag.extract.extract import extract_page

    body = extract_page(page.read_bytes().decode("utf-8"), "heuristic").markdown
    summary = _summary(body, "スミレサイシン", "photos", "")
    assert summary.startswith("スミレサイシン: ") and " / タチツボスミレ: " in summary, summary
    assert len(summary) <= SUMMARY_CHARS


def test_a_tips_page_names_its_tips_instead_of_quoting_the_first():
    """Judged partly: a tips/FAQ page summarised by tip 1 of 7; its own numbered list of the tips names them."""
    tips = ["(1)メールアドレスの変更", "(2)メールサーバーの情報", "(3)iCloudってどーよ？", "(4)iCloudのプライバシー",
            "(5)プッシュ機能とアプリの振る舞い"]
    body = "iPhone5 TIPS(1)\n\n" + "  \n".join(tips) + "\n\n" + "".join(
        f"({n})  \nこれは{n}番目のヒントの本文で、設定の手順を説明しています。  \n\n" for n in range(1, 6))
    summary = _summary(body, "iPhone5 TIPS(1)", "manual", "TIPS")
    assert summary == "「iPhone5 TIPS(1)」（解説・TIPS）: 5項目: (1)メールアドレスの変更 / (2)メールサーバーの情報 / " \
                      "(3)iCloudってどーよ？ ほか", summary
    steps = "手順は次のとおりです。\n\n" + "\n".join(f"{n}. 手順{n}を行う" for n in range(1, 6)) + "\n\n以上です。\n"
    assert contents_summary(steps, True) == ""  # numbered steps that head nothing and link nowhere: no contents


def test_a_contents_page_names_its_chapters_and_a_page_saying_here_is_quoted():
    """Judged partly: a book's contents page summarised by `The author's contact details are on the home page.`"""
    chapters = ["Hosea marries an unfaithful wife", "The Lord’s mercy", "The House of Israel redeemed",
                "God’s indictment of Israel", "The future of Israel revealed"]
    body = ("# CONTENTS\n\n" + "  \n".join(f"[Chapter {n}](ch{n}.html) {c}" for n, c in enumerate(chapters, 1)) +
            "\n\nThe author’s contact details are on the home page.\n")
    summary = _summary(body, "Hosea -- contents", "index", "Publications")
    assert summary == "Hosea -- contents (index page, Publications): 5 items: Chapter 1 Hosea marries an " \
                      "unfaithful… / Chapter 2 The Lord’s mercy / Chapter 3 The House of Israel redeemed …", summary
    assert contents_summary(body, False) == ""  # the same lines on a page that is no contents page: its text
    works = "My Works\n\nここでは管理人の演奏やソフトウェア紹介、バンドの楽曲などについて語っていく予定です。\n"
    assert _summary(works, "Works", "index", "Works") == f"「Works」（目次）: {works.split(chr(10) * 2)[1].strip()}"


def test_entries_are_named_by_the_pages_kind_and_a_weekday_or_a_time_is_no_entry_title():
    """Crest's BBS pages read `日記 …: 火曜日 16時05分22秒 / …`: a board is no diary, a time no title."""
    from siterag.enrich.summary import composed_summary

    board = "".join(f"## ■2001年09月{d}日 {w}曜日 16時05分22秒 {{#2001-09-{d}}}\n\n今日の書き込みです。\n\n"
                    for d, w in (("17", "月"), ("18", "火"), ("19", "水")))
    assert composed_summary(board, "掲示板", kind="bbs") == "掲示板 2001年9月17日–19日、3件"
    assert composed_summary(board, "") == "日記 2001年9月17日–19日、3件"
    assert page_frame("untitled", "essay", "思索") == ""  # an editor's default is no title to frame with


def test_a_heading_that_repeats_the_title_in_other_widths_or_around_pictures_adds_nothing():
    heading = "# ![](star.gif) ＨＴパソコン教室のホームへ ![](star.gif)\n\nようこそ。\n"
    assert page_frame("HTパソコン教室", "profile", "", heading) == "「HTパソコン教室」（プロフィール）"
    assert page_frame("自己紹介", "profile", "", heading) == "「自己紹介」（プロフィール）"  # (a way back: no subtitle)


def test_a_title_with_its_own_brackets_is_framed_in_double_ones_and_a_colloquial_connective_leans_back():
    from siterag.enrich.summary import leans_back

    assert page_frame("映画評「AI」", "review", "") == "『映画評「AI」』（レビュー）"
    assert leans_back("なので、自宅でパソコン触ってません。") and leans_back("と言うか、自宅で仕事してます。")
    assert not leans_back("ななかまどの実が赤くなりました。")


def test_a_contents_table_is_summed_up_by_the_pages_it_leads_to():
    """Issue 24 (blind reading, seed 1207): a contents page laid out as a table was summed up by its cells
    (`表、15行（列: 邪魔な画像をクリックして…）: HIROSHITANAKA / … / あ`), not by the pages it leads to."""
    from siterag.enrich.framing import linked_summary

    rows = ["| 邪魔な画像をクリックして目次をご覧下さい |  |  |", "|---|---|---|", "| **HIROSHITANAKA** |  | あ |",
            "| 002 | [蓮の開花](newpage002.htm) | パソコンクラブ |",
            "| 003 | [産めよ増やせよ](newpage005.htm) | 四日市 |",
            "| 004 | [渡り鳥](newpage003.htm) | [渡り鳥](newpage003.htm) |",
            "| 006 | [タイタニック](newpage006.htm) | x |",
            "| 007 | [![](a.gif)](big.jpg) [BDFgrey.html](BDFgrey.html) [外](http://e.jp/) |  |  |"]
    body = "\n".join(rows)
    assert linked_summary(body, True) == "4項目: 蓮の開花 / 産めよ増やせよ / 渡り鳥 ほか"
    summary = page_summary(body, [], [], [], set(), "きれいな雛形", "index")
    assert summary == "「きれいな雛形」（目次）: 4項目: 蓮の開花 / 産めよ増やせよ / 渡り鳥 ほか"
    assert linked_summary("\n".join(rows[:5]), True) == ""  # two pages: no contents


def test_a_page_without_a_title_is_not_called_untitled_in_its_summary():
    """Issue 24 (blind reading, seed 1215): `untitled: 画像 4枚` said "no" to both readers."""
    from siterag.enrich.framing import page_summary

    pictures = "\n\n".join(f"![]({n}.gif)" for n in "abcd")
    assert page_summary(pictures, [], [], [], set(), "untitled") == "4 pictures."
    assert page_summary(pictures, [], [], [], set(), "Birds") == "Birds: 4 pictures."


MANUAL = ("# グリフ情報\n\nこのダイアログでは、グリフの名前と Unicode の値を設定します。\n\n"
          "### 機能タグダイアログ\n\nタグの一覧から機能を選ぶと、その機能が有効になる用字系を指定できます。\n\n"
          "### 用字系ダイアログ\n\n最後の選択肢を選ぶと、このリストの変更や追加が行えます。"
          "例えば fl 合字は常に有効にするべきでしょう。\n\n"
          "### 言語ダイアログ\n\n言語を選ぶと、その言語だけに機能を適用できます。\n")


def test_a_page_of_parts_says_what_its_opening_says_and_names_its_parts():
    """Judged no / partly: FontForge's reference pages summed up by a sentence deep in one part (`最後の選択肢を
    選ぶと…`, `以下は正しくありません…`); the opening says what the page is, the headings what it holds."""
    summary = _summary(MANUAL, "グリフ情報", "manual", "")
    assert summary.startswith("「グリフ情報」（解説）: ") and summary.endswith(
        "。目次: 機能タグダイアログ / 用字系ダイアログ / 言語ダイアログ"), summary
    lead = summary.split(": ", 1)[1].split("目次")[0]
    opening = MANUAL.split("### 用字系ダイアログ")[0]  # the page's text before its second part
    assert summary_is_exact(lead, opening) and len(summary) <= SUMMARY_CHARS
    assert page_parts(MANUAL, "グリフ情報")[0] == ["機能タグダイアログ", "用字系ダイアログ", "言語ダイアログ"]


def test_a_title_and_its_subtitle_are_no_parts_and_a_label_heads_none():
    """`1994年度卒業論文概要` right above the thesis's title heads no part: no text between them."""
    abstract = "# 1994年度卒業論文概要\n\n# 空気圧式人工筋肉を用いたバランシングロボットの制御\n\n" + \
               "老人の介護問題は我々がもっとも真剣に取り組むべき問題の１つであると言える。" * 3 + "\n"
    assert page_parts(abstract, "ABSTRACT of PAPER '94") == ([], -1)
    labels = "## Overview\n\n" + "We develop agents that guide tourists around Kyoto. " * 2 + \
             "\n\n## Publications:\n\n" + "A paper in the proceedings of a workshop. " * 2 + "\n"
    assert page_parts(labels, "Conversational Agent") == ([], -1)  # one part and a label
    entries = "## 2012-12-13 Windows8 {#2012-12-13}\n\n" + "メモリを追加して使っています。" * 3 + "\n\n" + \
              "## 2012-12-14 Windows8 {#2012-12-14}\n\n" + "メトロは使いにくいです。" * 3 + "\n"
    assert page_parts(entries, "Windows8")[0] == []  # a diary's entries are entries, not parts


def test_parts_are_named_in_the_pages_language_and_a_contents_list_keeps_the_authors_word():
    assert parts_note(["Overview", "Members", "Reference", "Links"], False) == \
        "Contents: Overview / Members / Reference etc."
    assert parts_note(["ボールド", "ポイントサイズ"], True) == "目次: ボールド / ポイントサイズ"
    items = "".join(f"[({n})手順{n}の説明](#{n})  \n" for n in range(1, 6))
    body = ("DVDの複製は誰でもできます。ここではDVDの「複製」について解説します。\n\n" + items + "\n" +
            "".join(f"({n})  \n手順{n}ではソフトウェアの設定を行います。\n\n" for n in range(1, 6)))
    summary = _summary(body, "リッピングとライティング", "manual", "TIPS")
    assert summary == ("「リッピングとライティング」（解説・TIPS）: ここではDVDの「複製」について解説します。"
                       "5項目: (1)手順1の説明 / (2)手順2の説明 / (3)手順3の説明 ほか"), summary


def test_a_heading_drawn_as_a_picture_says_what_the_page_is_and_a_photo_does_not():
    body = ('![](logo111.gif "「夏芙蓉」（作・越智優）に届けられた感想")\n\n## 「夏芙蓉」劇集団「幻の森」\n\n'
            "感動をありがとうございました。皆様のご努力に敬意を表します。次回を楽しみにしております。\n")
    assert own_heading(body, "「夏芙蓉」劇集団「幻の森」 感想") == "「夏芙蓉」（作・越智優）に届けられた感想"
    assert "届けられた感想" in page_frame("「夏芙蓉」劇集団「幻の森」 感想", "review", "", body)
    assert heading_picture('![](x-up.jpg "Patrick at the Kyoto box jump")') == ""  # a photograph
    assert heading_picture('![](cover.gif "cover.gif - 43Kb")') == ""  # its file's name
    assert heading_picture('[![](next.gif "Next page")](ch2.html)') == ""  # a button
    assert heading_picture("![](images/bullet.gif)") == ""


def test_a_home_page_says_what_the_site_holds_by_its_sections():
    """leftyuncle's home, its menu taken by the template, was `リンク集、6件: MyMaster / …`."""
    from siterag.enrich.enrich import home_parts

    sections = ["weblog"] * 69 + ["TIPS"] * 24 + ["axis"] * 9 + ["Works"] * 8 + ["MyMaster", ""] + ["Lefty Uncle"] * 3
    parts = home_parts(sections, {"lefty uncle"})
    assert parts == ["weblog", "TIPS", "axis", "Works"]  # most pages first; no single page; not the site's name
    assert home_parts(["Site Map", "Site Map", "Steve Wood", "Steve Wood", *"abcdefghijklm"]) == []  # no sections
    body = ("[MyMaster](mymaster.html)\n\n[パソコン支援](integreq.html)\n\nLastupdate 2013-10-26  \n"
            "「weblog」「software」を更新しました。\n")
    sentences = page_sentences(body)
    summary = page_summary(body, sentences, quotable(sentences), [], set(), "Lefty Uncle Works", "index",
                           site_parts=parts)
    assert summary.startswith("「Lefty Uncle Works」（目次）: ") and "リンク集" not in summary
    assert summary.endswith("サイトの内容: weblog / TIPS / axis / Works")
    prose = "All my life I have been a diarist, penning some 3 million words so far.\n"
    sentences = page_sentences(prose)
    summary = page_summary(prose, sentences, quotable(sentences), [], set(), "All the days of my life", "index",
                           site_parts=["diary", "Publications"])
    assert summary.endswith("so far. The site: diary / Publications")


def test_a_talks_speaker_named_under_its_title_is_in_its_frame_and_a_cast_list_is_no_byline():
    from siterag.enrich.framing import byline

    talk = ("International Workshop on Massively Multi-Agent Systems (2004.12. 10-11)\n\n"
            "Challenges in Building Very Large Teams\n\n**Paul Scerri**\n\n"
            "**Robotics Institute, Carnegie Mellon University**\n\n" + "When agents coordinate teamwork " * 5 + "\n")
    assert byline(talk, "Challenges in Building Very Large Teams") == "Paul Scerri"
    assert page_frame("Challenges in Building Very Large Teams", "event", "会議", talk) == \
        "Challenges in Building Very Large Teams — Paul Scerri (event, 会議)"
    ja = "第2回デジタルシティ京都会議 国際シンポジウム (2001.10.18)\n\n非均質さを超えて\n\n石田 亨  \n京都大学\n\n" + \
        "このプロジェクトの目的はデジタルシティを万人が利用できるものにすることである。" * 2 + "\n"
    assert byline(ja, "非均質さを超えて") == "石田 亨"
    cast = "春一番\n\n登場人物\n\n松本由美子\n\n高田一郎\n\n由美子が裕美の後を追って放送室から出て行く。" + \
        "台詞が続く。" * 20
    assert byline(cast, "春一番") == ""  # several people: a script's cast
    assert byline(ja, "石田 亨") == ""  # a page titled by the name: a profile


def test_a_page_titled_by_its_speaker_is_framed_with_the_talk_above_the_name():
    """Seed 1236: a symposium talk titled `Wolfgang Wahlster` (its <title>) was framed by the name alone; the line
    above his name on the page is the talk."""
    from siterag.enrich.framing import page_frame, work_above_name

    talk = ("International Symposium on Life-World Semantics (2004.12.9)\n\nSmartWeb: 環境知能のためのセマンティックWeb"
            "サービス\n\nWolfgang Wahlster  \nドイツ人工知能研究センター所長\n\n最近のモバイル通信の発達によって、"
            "革新的なインターネットサービスが可能になりつつある。")
    assert work_above_name(talk, "Wolfgang Wahlster") == "SmartWeb: 環境知能のためのセマンティックWebサービス"
    assert page_frame("Wolfgang Wahlster", "event", "会議", talk).startswith(
        "「SmartWeb: 環境知能のためのセマンティックWebサービス — Wolfgang Wahlster」")
    assert work_above_name(talk, "Life-World Semantics") == ""  # no person's name: nothing above it
    dated = "2004年12月9日\n\nWolfgang Wahlster\n\n" + "本文です。" * 20
    assert work_above_name(dated, "Wolfgang Wahlster") == ""  # a date above the name is no talk


def test_a_long_title_is_clipped_after_a_whole_word():
    frame = page_frame("Computer-Assisted System for Environmental Learning in the Suburbs", "photos", "")
    assert frame.startswith("Computer-Assisted System for Environmental…"), frame



def test_a_boards_thread_is_summed_up_by_its_writers_and_its_posts_titles():
    from tests.enrich.test_kinds import LETTERS, THREAD

    assert posts_summary(THREAD, True) == \
        "3件の投稿（越智 / 斉藤俊雄 / 大手忍）: 遅ればせの感想です。 / 感想ありがとうございます"
    assert posts_summary(LETTERS, True) == "3件の投稿: 野間大輔さんから / 斉藤からの返信 / 野間さんからの返事"
    assert posts_summary("Name: Ann\n\nhello\n\nName: Ann\n\nagain\n\nName: Ann\n\nbye", False) == ""  # one writer



def test_a_link_list_told_site_by_site_is_summed_up_by_the_sites_it_leads_to():
    names = ("Piano Diary", "ゆるゆるとぴあの", "はぴぴあの", "大人からのピアノ")
    body = "プロの演奏家さんです。（ジャズピアニスト）\n\n" + "\n\n".join(
        f"[{name}](http://{i}.example.jp/)  \n{name}さんのブログです。演奏も上手です。" for i, name in enumerate(names))
    sentences = page_sentences(body)
    summary = page_summary(body, sentences, quotable(sentences), [], set(), "リンク", "links")
    assert summary.startswith("「リンク」（リンク集）: 4項目: Piano Diary / ゆるゆるとぴあの"), summary
    more = body + "\n\n[My Master](mymaster.html)  \n師匠のページは[こちら](http://x.example.jp/)です、演奏の動画もたくさんあるのでぜひご覧ください。"
    sentences = page_sentences(more)  # a page of the site it lists counts; `こちら` names no page
    summary = page_summary(more, sentences, quotable(sentences), [], set(), "リンク", "links")
    assert summary.startswith("「リンク」（リンク集）: 5項目: Piano Diary"), summary


def test_a_sentence_announcing_what_follows_is_completed_by_the_names_that_follow():
    body = ("Contact details are as follows.\n\nSteve Wood\n\nEmail : [steve@example.org](mailto:steve@example.org)\n\n"
            "(Please remove the \"xx\" in the address.)\n\nMobile : 07941 000000\n\nNeil Solomon\n\n"
            "Email : [neil@example.org](mailto:neil@example.org)\n")
    sentences = page_sentences(body)
    assert page_summary(body, sentences, quotable(sentences), [], set(), "Contact Info", "profile") == \
        "Contact Info (profile): Contact details are as follows: Steve Wood, Neil Solomon (Email, Mobile)."
    assert announced(body, "We met Steve Wood.", False) == ""  # a sentence that announces nothing


def test_a_japanese_sentence_announcing_a_list_is_completed_by_the_names_under_it():
    """Issue 24 (blind reading, seed 1250): `…以下のソフトウェアがあります。` was the whole summary; a note on the
    list before it (`２０１２年のシェア順です。`) and each name's note in brackets are no names."""
    body = ("## 2013-05-17 Windowsで動作するブラウザーについて {#2013-05-17}\n\n"
            "現在Windowsで動作する代用的なブラウザとして以下のソフトウェアがあります。  \n"
            "[２０１２年のシェア順です。](http://example.jp/share.html)  \nMicrosoft Internet Exploer  \n"
            "Google Chrome  \nFireFox （Mozilla Foundationが開発）  \nOpera\n\n"
            "Internet Exploerのシェアが５０％付近で他の製品を大きく引き離しています。\n")
    lead = "現在Windowsで動作する代用的なブラウザとして以下のソフトウェアがあります。"
    assert announced(body, lead, True) == ("現在Windowsで動作する代用的なブラウザとして以下のソフトウェアがあります: "
                                           "Microsoft Internet Exploer、Google Chrome、FireFox、Opera。")
    assert announced(body, "現在Windowsで動作するブラウザを使っています。", True) == ""


def test_a_heading_that_is_a_sentence_under_the_pages_heading_says_what_the_page_is():
    """Issue 24 (blind reading, seed 1248): `### Hosea 5 shows us the wonderful fulfilment of prophecy` under the
    chapter's name was skipped for a verse quoted below it."""
    body = ("###### CHAPTER FIVE\n\n# THE FUTURE OF ISRAEL REVEALED\n\n"
            "### Hosea 5 shows us the wonderful fulfilment of prophecy\n\n"
            "“I know Ephraim, and Israel is not hid from Me” (v3). Priests, people and king were all guilty.\n")
    assert stated_heading(body, "Hosea -- chapter 5") == "Hosea 5 shows us the wonderful fulfilment of prophecy."
    assert _summary(body, "Hosea -- chapter 5", "essay", "Publications") == (
        "Hosea -- chapter 5 — THE FUTURE OF ISRAEL REVEALED (essay, Publications): Hosea 5 shows us the wonderful "
        "fulfilment of prophecy.")
    # a name (few lower-case words), an epigraph, the page's first heading: no statement
    for heading in ("A party at Digbeth Institute", "“Ye shall receive power, after that the Holy Ghost is come”"):
        assert stated_heading(body.replace("Hosea 5 shows us the wonderful fulfilment of prophecy", heading),
                              "Hosea -- chapter 5") == ""
    text = "\n\n本文がここから始まります。長い文章です。"
    assert stated_heading(f"# このページでは温室の様子を紹介します。{text}", "温室") == ""
    assert stated_heading(f"# 我が家\n\n## ここでは温室の中の様子を紹介します。{text}", "我が家") == \
        "ここでは温室の中の様子を紹介します。"


def test_the_authors_word_on_what_the_page_is_is_cut_at_a_comma_to_fit_its_frame():
    """Issue 24 (blind reading, seed 1250): a symposium talk's `This presentation addresses …` did not fit beside
    its frame (title, speaker), so a later detail was quoted instead."""
    body = ("Social Knowledge for Ubiquitous Environment\n\nYutaka Matsuo  \nNational Institute of Advanced "
            "Industrial Science and Technology (AIST)\n\nThis presentation addresses acquisition and utilization of "
            "semantics around us, especially that of social relation between people and function of place. "
            "Assume we can acquire a user's behaviour in a ubiquitous environment and try to utilize it for "
            "information support. We have to have knowledge behind the user's behaviour.\n")
    summary = _summary(body, "Social Knowledge for Ubiquitous Environment", "event", "会議")
    assert "This presentation addresses acquisition and utilization of semantics around us…" in summary, summary


def test_a_play_is_summed_up_by_its_cast_and_the_stage_it_opens_on():
    """Issue 24 (blind reading, seeds 1246, 1248, 1250): a school play's summary was one stage direction from
    its middle; its cast list (`登場人物`) names who is in it."""
    body = ("**Happy Birthday**\n\n登場人物\n\n1\\. 武藤 蘭(らん)・武藤 駿(しゅん)(二年生)  \n"
            "2\\. 野原歩美 (三年生)  \n◆三年生  \n3\\. 速瀬あざみ (三年生)  \n4\\. 星野かりん …三年生  \n"
            "第一部\n\n◆第一区 謎\n\n"
            "体育祭の定番である音楽が流れ、その音楽とともに幕が上がる。舞台には平台が二列階段状に置かれている。\n\n"
            "かりん(実況放送)「青速い、青がリードです。」\n\n生徒達が祈り出す。突然、歓声が上がる。\n")
    assert cast_list(body) == ["武藤 蘭", "野原歩美", "速瀬あざみ", "星野かりん"]
    assert _summary(body, "Happy Birthday", "fiction") == (
        "「Happy Birthday」（創作）: 登場人物 4人: 武藤 蘭 / 野原歩美 / 速瀬あざみ / 星野かりん。"
        "体育祭の定番である音楽が流れ、その音楽とともに幕が上がる。舞台には平台が二列階段状に置かれている。")
    # a note on a character may end in a stop; the prologue's name is the play begun (seed 1251: 13 of 15)
    noted = body.replace("4\\. 星野かりん …三年生  \n",
                         "4\\. 星野かりん ◆三年生 千秋の姉。  \n**AM10:00**\n【第一部】\n**プロローグ**\n")
    assert cast_list(noted) == ["武藤 蘭", "野原歩美", "速瀬あざみ", "星野かりん"]
    # a cast far down the page is an example in a text about plays, not the page's
    essay = "練習方法を紹介します。\n\n" + "".join(f"練習{n}の説明です。\n\n" for n in range(12)) + body
    assert cast_list(essay) == []


def test_a_log_of_reviews_is_summed_up_by_the_works_it_reviews():
    """Issue 24 (blind reading, seeds 1246 and 1252): a year's log of some 50 book reviews was summed up by its
    first review's opening; each review is headed by the work's title in quotes and its maker or a rating."""
    from siterag.enrich.framing import works_summary

    books = (("ソクーロフの対話", "前田英樹"), ("映画狂人・小津の余白に", "蓮實重彦"),
             ("殻を破る", "ピーター・ブルック"), ("民主主義とは何なのか", "長谷川三千子"))
    body = "★は個人的な興味関心のレベル。\n\n" + "".join(
        f"１１月 **「{t}」** {a}著 (河出書房新社)★\n\n{t}を読んだ。面白かった。\n\n" for t, a in books)
    assert works_summary(body, True) == \
        "4作品: 「ソクーロフの対話」 / 「映画狂人・小津の余白に」 / 「殻を破る」 / 「民主主義とは何なのか」"
    assert _summary(body, "芸術・書評2001", "review").startswith(
        "「芸術・書評2001」（レビュー）: 4作品: 「ソクーロフの対話」")
    # quoted lines without a maker or a rating (a play's comments headed by their gist) are no works
    assert works_summary(body.replace("著 (河出書房新社)★", " さんより"), True) == ""


def test_a_heading_that_only_sends_the_reader_back_is_no_subtitle():
    """Read on a held-out sample (seed 1255): hrtaj's profile page heads its text with `# ＨＴパソコン教室のホームへ`
    (to the class's home), which the summary's frame gave as the page's subtitle; a way back heads nothing."""
    from siterag.extract.chrome import back_label

    body = "# ![](star.gif) ＨＴパソコン教室のホームへ ![](star.gif)\n\nいらっしゃいました。宜しくお願いいたします。\n"
    assert own_heading(body, "自己紹介") == ""
    welcome = "四日市のパソコン教室へようこそ"
    assert own_heading(f"# {welcome}\n\n本文です。\n", "自己紹介") == welcome
    labels = ("内部ページのトップへ", "Back to Top Page", "東京へ", "ホームページへようこそ")
    assert [back_label(t) for t in labels] == [True, True, False, False]
