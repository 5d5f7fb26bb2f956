"""Summaries (siterag.enrich.summary): central sentences on prose, a composition of the page's own facts on pages
made of entries, verse, contents; every quoted sentence the body's own."""

from __future__ import annotations

import pytest

from siterag.enrich.summary import (
    SUMMARY_CHARS,
    choose_summary,
    composed_summary,
    date_range,
    leans_back,
    lines_summary,
    overview,
    page_sentences,
    quotable,
    says_what_page_is,
    summary_is_exact,
    summary_source,
)
from tests.conftest import SHARED_SITES


def test_a_sentence_pointing_back_to_what_is_left_out_is_not_quoted():
    """Judged corpus: `こんな化け物が…` opened a summary without what it points at; `This is…`, `They…` the same."""
    body = ("![](monster.jpg)\n\nこんな化け物が夜の森に出るという話を聞いた。森の化け物は大きな目をしているという。\n\n"
            "村の古老は森の化け物を見たことがあると言う。化け物の話は村に古くから伝わっている。\n")
    summary = choose_summary(page_sentences(body), [])
    assert summary and not summary.startswith("こんな"), summary
    assert summary_is_exact(summary, body)
    en = ["This is what I found in the attic.", "My grandfather kept a diary of the war in Burma.",
          "They were never published.", "The diary of the war in Burma fills four notebooks."]
    summary = choose_summary(en, [])
    assert summary.startswith("My grandfather kept a diary"), summary
    assert "This is what" not in summary
    # with the sentence it points back to, a pointing sentence may come along
    assert leans_back("They were never published.") and not leans_back("This manual describes the menus.")
    assert not leans_back("このメニューは灰色です。", "編集メニュー") and leans_back("このメニューは灰色です。", "表示")


def test_an_english_page_is_summarised_by_its_central_sentences_not_its_first():
    body = ("I have been rather busy this spring.\n\n"
            "Our robot Gyrobot won the heavyweight final at the robot championship in Bristol. "
            "Gyrobot spins its steel rim at a high speed and throws the other robot out of the arena. "
            "The championship final in Bristol lasted three minutes.\n\n"
            "Thanks to everyone who helped.\n")
    summary = choose_summary(page_sentences(body), ["Gyrobot", "Bristol"], title="Gyrobot wins in Bristol")
    assert "busy this spring" not in summary and "Thanks" not in summary, summary
    assert summary.startswith("Our robot Gyrobot won the heavyweight final"), summary
    assert summary_is_exact(summary, body)


LYRICS = """# 森のうた

森の奥で　きみを待つ
風がささやく　なまえを呼ぶ
木々のあいだに　ひかりがさして
ぼくらはうたう　あしたのうた

夜がふけても　星はみている
ふたりの道は　どこへつづく
こたえはいつも　きみのなかに
ぼくらはうたう　あしたのうた

森の奥で　きみを待つ
ぼくらはうたう　あしたのうた
"""


def test_a_lyrics_page_is_named_with_its_lines_and_stanzas_not_quoted_line_by_line():
    """Judged corpus: a lyrics page's summary was four of its lines."""
    lead = choose_summary(page_sentences(LYRICS), [])
    summary = composed_summary(LYRICS, "森のうた", lead)
    assert summary == "森のうた: 詩・歌詞など 10行（3連）、「森の奥で きみを待つ」で始まる。", summary


TOC = """# 地球の科学

１．地球の大きさ
２．地球の内部構造
３．プレートの運動
４．大気の大循環
５．海流と気候
６．地球の歴史
"""


def test_a_table_of_contents_lists_its_headings():
    """Judged corpus: a table of contents was summarised by its debris (`…大気の大循環４．`)."""
    lead = choose_summary(page_sentences(TOC), [])
    summary = composed_summary(TOC, "地球の科学", lead)
    assert summary == "地球の科学: 目次、6項目: １．地球の大きさ / ２．地球の内部構造 / ３．プレートの運動 ほか", \
        summary


DIARY = """## 2003年9月3日 新しいパソコン {#2003-09-03}

新しいパソコンを買った。

## 2003年10月12日 夏の合宿の写真 {#2003-10-12}

合宿の写真を整理した。

## 2003年11月5日 文化祭 {#2003-11-05}

文化祭の劇は大成功だった。

## 2003年12月20日 大掃除 {#2003-12-20}

部室の大掃除をした。
"""


def test_a_diary_names_its_span_its_count_and_its_entries_titles():
    assert composed_summary(DIARY, "日記 2003") == \
        "日記 2003年9月–12月、4件: 新しいパソコン / 夏の合宿の写真 / 文化祭 / 大掃除"
    assert date_range("1940-01-03", "1940-02-28", ja=False) == "3 Jan – 28 Feb 1940"
    assert date_range("1939-12-30", "1940-01-02", ja=True) == "1939年12月–1940年1月"
    assert date_range("2003-09-03", "2003-09-28", ja=True) == "2003年9月3日–28日"
    assert date_range("1952-03-01", "1952-03-31", ja=False) == "1–31 Mar 1952"
    untitled = DIARY.replace(" 新しいパソコン", "").replace(" 夏の合宿の写真", "").replace(" 文化祭", "") \
        .replace(" 大掃除", "")
    assert composed_summary(untitled, "日記", topics=["パソコン", "文化祭"]) == \
        "日記 2003年9月–12月、4件。話題: パソコン、文化祭"


def test_a_roster_of_short_lines_is_a_list_not_verse():
    people = ["石田亨", "中西英之", "小泉智史", "神田智子", "八槇博史", "山下直美", "鳥海不二夫", "林田尚子"]
    names = "\n\n".join(f"{n} （京都大学情報学研究科）" for n in people)
    summary = composed_summary(names, "メンバー")
    assert summary.startswith("メンバー: 8行の一覧: 石田亨 （京都大学情報学研究科）"), summary
    assert len(composed_summary(names, "長い題名" * 60)) <= SUMMARY_CHARS  # never past the summary's length


def test_phrases_each_set_apart_by_blank_lines_are_a_list_not_verse():
    """Read blind (seed 1267): a symposium's programme was `verse or lyrics, 17 lines in 14 stanzas`."""
    sessions = ["Opening of the day", "Digital City Experiments", "The Challenge of Yamada-mura", "Key Note Speech",
                "Digital City Movements", "Digital City Technologies", "Demonstrations and Posters",
                "Closing of the day"]
    program = "\n\n".join(sessions)
    summary = composed_summary(program, "Symposium")
    assert summary.startswith("Symposium: list of 8 lines: Opening of the day"), summary
    verse = "\n".join(sessions[:4]) + "\n\n" + "\n".join(sessions[4:])  # the same lines run into two stanzas
    assert composed_summary(verse, "Symposium").startswith("Symposium: verse or lyrics, 8 lines in 2 stanzas")


def test_a_real_build_diary_is_composed_from_its_entries():
    """gyrobot's build diary (../shared): its dated entries, as the site flow extracts and marks them."""
    site = SHARED_SITES / "gyrobot"
    if not (site / "diary.htm").is_file():
        pytest.skip("../shared/sites/gyrobot is absent")
    from siterag.enrich.dates import mark_entries
    from siterag.extract.extract import extract_page
    from siterag.extract.template import folder_template

    template = frozenset(folder_template(site)["diary.htm"])
    html = (site / "diary.htm").read_bytes().decode("latin-1")
    body = mark_entries(extract_page(html, "heuristic", template=template).markdown).markdown
    summary = composed_summary(body, "Build Diary", topics=["Gyrobot"])
    assert summary.startswith("Diary, ") and " entries, " in summary, summary
    assert "2003" in summary and "Apr 2003" in summary  # the last entry: 17/04/03
    fontview = SHARED_SITES / "fontforge-ja" / "ja" / "fontview.html"
    if fontview.is_file():
        page = extract_page(fontview.read_bytes().decode("cp932"), "heuristic").markdown
        quoted = choose_summary(page_sentences(page), [], title="フォントビュー")
        assert "フォントビュー" in quoted and summary_is_exact(quoted, page), quoted
        assert not leans_back(quoted, "フォントビュー")


def test_a_sites_menu_is_worded_in_the_language_of_its_labels_not_of_its_link_targets():
    menu = "\n\n".join(f"**[{label}](../{target}/index_of_this_section_{n}.htm)**" for n, (label, target) in
                       enumerate([("教室案内", "kyousitu"), ("所在地", "syozaiti"), ("熟年者のページ", "jyukunen"),
                                  ("ホームページ作ります", "hosakusei")]))
    assert composed_summary(menu, "目次") == "目次、4項目: 教室案内 / 所在地 / 熟年者のページ / ホームページ作ります"
    offsite = menu.replace("](../", "](http://example.com/")
    assert composed_summary(offsite, "") == "リンク集、4件: 教室案内 / 所在地 / 熟年者のページ / ホームページ作ります"


def test_a_sentence_with_emphasis_is_quoted_without_its_marks():
    body = ("# sfddiff\n\n**sfddiff** は、FontForge の *SFD* ファイル 2 個の比較を行い、相違点をチェックします。"
            "結果は標準出力に書き出されます。\n\n* 一つ目の項目\n")
    summary = choose_summary(page_sentences(body), [], title="sfddiff")
    assert summary.startswith("sfddiff は、FontForge の SFD ファイル 2 個の比較を行い"), summary
    assert summary_is_exact(summary, body) and "*" not in summary


def test_a_page_without_sentences_is_summarised_by_its_own_lines():
    """The last resort (no sentence, list or entries): the page's own lines, links and images reduced to their
    words (a line under image buttons, a single link), or how many pictures it shows; never empty when the page
    shows something."""
    from siterag.enrich.summary import lines_summary

    assert lines_summary("[![](top.gif)](../index.htm) 画像の上でクリックしてみて下さい、**連打OK**") == \
        "画像の上でクリックしてみて下さい、連打OK"
    assert lines_summary("[夜明け](index2.htm)\n\n[朝焼け](index3.htm)") == "夜明け / 朝焼け"
    assert lines_summary("![](a.jpg)\n\n![](b.jpg)\n\n写真") == "写真"
    assert lines_summary("![](a.jpg)\n\n![](b.jpg)") == "2 images"
    assert lines_summary("") == ""


def test_a_demonstrative_adverb_points_back():
    """`そうすると…` (then, doing so) continues the sentence before it, like `そして`: never a summary's start."""
    from siterag.enrich.summary import leans_back

    assert leans_back("そうするとアルバムが削除されます。") and leans_back("するとドアが開いた。")
    assert leans_back("こうすると速くなります。") and not leans_back("祝祭日を追加するにはインストールします。")
    # what the page showed above it (seed 1227: `上に示す例では、置換は…` summed up a page without its example)
    assert leans_back("上に示す例では、置換はギリシャ文字で有効です。") and leans_back("The above example shows it.")
    assert not leans_back("以下の手順に従い、エージェントを起動します。")  # pointing ahead: what comes is there


def test_an_editors_brackets_and_a_question_inside_a_quotation_stay_in_one_quotable_sentence():
    """Held-out diaries: `…Bishop George [George Carey] speak on “Is God Green?” at the Town Hall.` was cut at the
    `?` and refused for its brackets, so a later detail sentence summarised the day."""
    body = ("**10.37pm.** We have just returned from Wells, where we went to hear Bishop George [George Carey] speak "
            "on “Is God Green?” at the Town Hall. We took Frank and Irene [Booth] with us.\n\n"
            "Before breakfast this morning I printed the notes on Ephesians 5 for the meeting.\n")
    sentences = page_sentences(body)
    assert "We have just returned from Wells, where we went to hear Bishop George [George Carey] speak on “Is God " \
           "Green?” at the Town Hall." in sentences
    summary = choose_summary(sentences, [])
    assert summary.startswith("We have just returned from Wells") and summary_is_exact(summary, body), summary
    assert choose_summary(page_sentences("See [the list](list.html) of all the pages on this site.\n"), []) == \
        "See the list of all the pages on this site."  # a link is reduced to its words, never quoted as markup


def test_a_short_label_above_its_text_is_not_glued_to_the_sentence_under_it():
    """Held-out manual page: `MIDIポートの設定「MIDI IN」の設定…MIDIトラックを作成すると…` (a label and its text)."""
    body = "MIDIポートの設定  \nMIDIトラックを作成すると一番左の列に作業ウィンドウが表示されます。\n"
    assert page_sentences(body) == ["MIDIポートの設定", body.split("\n")[1]]
    wrapped = "パソコンを仕事で使う上で一番大切なポイントを、  \nお教えしよう。\n"  # cut after a comma: one sentence
    assert page_sentences(wrapped) == ["パソコンを仕事で使う上で一番大切なポイントを、お教えしよう。"]


def test_pictures_are_photographs_only_on_a_photos_page():
    """Issue 24 (blind reading, seed 1212): a script demo's 18 animation frames read `写真 18枚`."""
    from siterag.enrich.summary import _composed

    frames = "戦闘\n\n" + "".join(f"![](ai/f{n}.gif) " for n in range(6)) + "\n"
    assert _composed(frames, "戦闘", kind="media").startswith("戦闘: 画像 6枚")
    assert _composed(frames, "戦闘", kind="photos").startswith("戦闘: 写真 6枚")


def test_verse_references_in_a_table_are_no_track_list():
    """Issue 24 (blind reading, seed 1213): a Bible commentary's table of references (`Isaiah 11:12–13`, `” 7:2, 15`)
    was summarised as `Track list of introduction: 22 titles`."""
    from siterag.enrich.summary import _composed

    refs = "\n".join(f"| {n}:1{n} | Isaiah 1{n}:12–13 |" for n in range(1, 6))
    page = "# Introduction\n\n| Hosea | Isaiah |\n|---|---|\n" + refs + "\n"
    assert not _composed(page, "introduction").startswith("Track list")
    album = "# Seasons\n\n| Title | Time |\n|---|---|\n| Morning Glass | 04:05 |\n| Cheer Up | (06:06) |\n" \
            "| Lunar Eclipse | 02:01 |\n"
    assert _composed(album, "Seasons").startswith("Track list of Seasons: 3 titles")
    items = "# Live\n\n- Morning Glass (4:05)\n- Cheer Up 6:06\n- Lunar Eclipse (2:01)\n"
    assert _composed(items, "Live").startswith("Track list of Live: 3 titles")


def test_a_diary_is_called_by_the_series_its_title_names():
    """Issue 24 (blind readings: `Diary, 31 entries, …; mentions …` was "partly"): the part of a title that names
    the run of entries (`— Diary of a Birmingham schoolboy`, `The Build Diary`) says what the diary is."""
    from siterag.enrich.summary import entry_series

    assert entry_series("1949 January", "1949 January — Diary of a Birmingham schoolboy") == \
        "Diary of a Birmingham schoolboy"
    assert entry_series("The Build Diary") == "The Build Diary"
    assert entry_series("日記") == "" and entry_series("日記 演劇 自然 教育 徒然なるままに 2000") == ""  # a figure
    assert entry_series("changelog — Brian David Williams — All the days of my life") == ""
    diary = "## 1 March 1952 {#1952-03-01}\n\nRain.\n\n## 2 March 1952 {#1952-03-02}\n\nSun.\n"
    assert composed_summary(diary, "1952 March", series="Diary of a Birmingham schoolboy") == \
        "Diary of a Birmingham schoolboy, 2 entries, 1–2 Mar 1952."
    assert composed_summary(diary, "1952 March").startswith("Diary, 2 entries")


def test_a_list_of_one_more_than_shown_is_shown_whole_and_titles_once():
    """Issue 24 (summary reading, seed 1214): `目次、4項目: A / B / C ほか` hid the fourth of four pages; a
    report's entries all titled 九州 read `九州 / 九州 / 九州`."""
    from siterag.enrich.summary import _quoted

    assert _quoted(["A", "B", "C", "D"], True) == "A / B / C / D"
    assert _quoted(["A", "B", "C", "D", "E"], True) == "A / B / C ほか"
    assert _quoted(["九州", "九州", "九州", "九州", "九州"], True) == "九州"


def test_a_summary_goes_on_into_a_sentence_that_names_the_subject_again_and_says_more():
    """Issue 24 (summary reading, seed 1214): a post's summary stopped after its first line, its next sentence
    sharing two of that line's three words; a sentence that only says the first again still ends it."""
    from siterag.enrich.summary import choose_summary

    post = ["Windows8を使い初めて５か月になり、利用するアプリも落ち着てきました。",
            "基本的にはWindows7の時からの定番アプリは変わりませんがWindows８での必須アプリが加わりました。",
            "最近、ダウンロードのリンクが直接的ではないですね。"]
    summary = choose_summary(post, ["Windows8必須アプリ"], title="Windows8必須アプリ")
    assert summary.startswith(post[0] + post[1]), summary
    again = [post[0], "Windows8のアプリを利用しています。", post[2]]
    assert again[1] not in choose_summary(again, [], title="Windows8必須アプリ")


def test_a_title_before_a_name_ends_no_sentence_and_an_entry_time_is_no_sentence():
    """Issue 24 (blind reading, seed 1218): `[Rev. J. Valentine Dibben]` was cut after `Rev.`, and a summary began
    `J. Valentine Dibben] and now…`; a diary entry's `8.31pm BST.` was quoted with its first sentence."""
    from siterag.enrich.summary import page_sentences, substantive

    married = "We were married by Mr. Dibben [Rev. J. Valentine Dibben] and now we are at Bowness. We feel strange."
    assert page_sentences(married)[0].endswith("we are at Bowness.")
    sentences = page_sentences("8.31pm BST. We are back home at Springfields. We left at 8.30am.")
    assert sentences == ["8.31pm BST.", "We are back home at Springfields.", "We left at 8.30am."]
    assert not substantive("8.31pm BST.", strict=False) and page_sentences("We met at 10.30 and left.") == [
        "We met at 10.30 and left."]


def test_a_sentence_that_only_points_at_a_link_is_never_quoted():
    from siterag.enrich.summary import page_sentences, substantive

    md = ("便利なツール「CPU-Z」です。インストーラーの直リンクは「[ここ](http://x.example/a.exe)」です。\n"
          "See [here](http://x.example/) for more. The site is [CPUID](http://c.example/).\n")
    quotable = [s for s in page_sentences(md) if substantive(s)]
    assert quotable == ["便利なツール「CPU-Z」です。", "The site is CPUID."]


def test_an_editors_note_in_brackets_is_no_topic_of_a_diary():
    from siterag.enrich.summary import _topics

    body = ("### MONDAY 5th MARCH 1945 {#1945-03-05}\n\n##### Russia — a funny feeling\n\nText.\n\n"
            "##### [The Russian words at the top of the stamp are: “Russkaya Pochta”.]\n\nMore text.\n")
    assert _topics(body, "1945") == ["Russia — a funny feeling"]


def test_headings_that_differ_only_in_their_dates_are_one_running_feature():
    from siterag.enrich.summary import _topics, composed_summary

    days = "".join(f"### MONDAY {d}th OCTOBER 1951 {{#1951-10-{d:02d}}}\n\nText of the day.\n\n" for d in (4, 11, 18))
    body = (days + "#### Korean Diary for Sept 23rd–Oct 2nd\n\nFighting.\n\n"
            "#### Korean Diary for October 3rd–16th:—\n\nMore.\n\n#### Korean Diary for October 17th–23rd\n\nTalks.\n")
    assert _topics(body, "1951 Oct") == ["Korean Diary"]
    summary = composed_summary(body, "1951 Oct", topics=["Korean Diary", "Labour Party", "Henry Usborne"])
    assert summary.endswith(": Korean Diary; mentions Labour Party, Henry Usborne."), summary


def test_a_running_features_name_keeps_words_that_only_begin_like_a_month():
    from siterag.enrich.summary import _undated

    assert _undated("Mary’s visit for Sept. 3rd") == "Mary’s visit"  # `Mar…` of Mary is no month
    assert _undated("Monster Rally, Sunday 4th") == "Monster Rally"  # `Mon…` of Monster is no weekday


def test_where_the_author_says_what_the_page_is_the_summary_starts_there():
    """Blind reading (seed 1223): a review page's summary quoted its disclaimer while the author says further on
    what the page is (`ここに書いてある文書は…バンドの楽曲について…感想や疑問を綴ったものです`)."""
    body = ("「音楽」なんて趣味嗜好の塊であるので人に文句を言われる筋合いはない。"
            "礼儀はわきまえないとあかんと思います。\n\n"
            "ここに書いてある文書は、私の音楽の師匠が在籍していたバンドの４枚のアルバムの楽曲について感想や疑問を綴ったものです。"
            "師匠と言っているけど弟子入りを許された訳でもない。\n\n"
            "ファーストアルバムはプログレの色が濃い曲が多い。アルバムの楽曲はどれも長い。\n")
    summary = choose_summary(page_sentences(body), [], title="バンドの音楽")
    assert "ここに書いてある文書は" in summary and "礼儀" not in summary, summary
    assert summary_is_exact(summary, body)
    en = ["I have been meaning to write this for years.", "The king called the people together.",
          "The army was small and the people were afraid.",
          "This book contains a startling revelation concerning the Royal Throne.", "It exposes a conspiracy."]
    summary = choose_summary(en, [], title="Causes and Consequences of Revival")
    assert "This book contains" in summary and "meaning to write" not in summary, summary
    # further on, a sentence about a part of the page, or a book it advertises, does not outweigh the opening
    far = [*en[1:3], *(f"The king's army marched north on day {n}." for n in range(6)), *en[3:]]
    assert "This book contains" not in choose_summary(far, [], title="Causes and Consequences of Revival")


@pytest.mark.parametrize(("sentence", "says"), [
    ("このページは、Q言語に関するページである。", True),
    ("本章では MySQL のライセンスとサポート契約について述べます。", True),
    ("ここで紹介するのは、自然な会話の練習方法です。", True),
    ("This chapter describes how MySQL relates to the ANSI SQL standards.", True),
    ("ここでは鳥の数は多いが種類が少ない。", False),  # here: at a place
    ("ここでの説明は概要しか示されていません。", False),  # a note on the page's own wording
    ("ここで，背景が移動する場合のフィルタを提案する．", False),  # here, in this method
    ("このページはリンクフリーです。", False),
    ("This document was generated on 14 June 2001.", False),
    ("Here we had a look round the castle.", False),
])
def test_a_sentence_says_what_the_page_is_by_its_subject_and_its_verb(sentence: str, says: bool):
    assert says_what_page_is(sentence) is says


def test_a_picture_shown_again_and_again_is_decoration_not_a_picture_of_the_page():
    """gyrobot's home: six bullets and two headings were summed up as `6 pictures`."""
    body = "![](images/bullet.gif)\n\n" * 6 + ("# Welcome to The Official Team Gyrobot Web Site.\n\n"
                                               "# A Robot Wars entry from Swindon.\n\n[[ENTER SITE]](home.htm)\n")
    assert composed_summary(body, "Gyrobot") == ""
    assert lines_summary(body) == ("Welcome to The Official Team Gyrobot Web Site. / A Robot Wars entry from "
                                   "Swindon. / [ENTER SITE]")
    gallery = "".join(f"![](p{n}.jpg)\n\n" for n in range(6)) + "Our trip\n"
    assert "6 pictures" in composed_summary(gallery, "Trip")


def test_a_table_is_named_by_the_heading_above_it_and_its_rows_by_their_first_column_of_words():
    table = ("# THE BRITISH EMPIRE IN 1921\n\n| Country | Area | Population |\n|---|---|---|\n"
             + "".join(f"| {c} | {n} | {n * 9} |\n" for n, c in enumerate(["England", "Wales", "Scotland", "Ireland"])))
    assert composed_summary(table, "Britain in Prophecy -- appendix 1").startswith(
        "Britain in Prophecy -- appendix 1 — THE BRITISH EMPIRE IN 1921: table of 4 rows")
    numbered = "| 1 | Education |\n|---|---|\n" + "".join(
        f"| {n} | {x} |\n" for n, x in enumerate(["New School University", "Research Interests", "Skills", "Work"], 2))
    assert "New School University / Research Interests" in composed_summary(numbered, "Curriculum Vitae")


def test_a_diary_of_untitled_entries_names_its_pictures_not_the_heading_above_them():
    """Held-out gyrobot (seed 1236): `The Build Diary, 23 entries, …: Re-visit often to check on latest build…` quoted
    the page's heading, a request to the visitor, as if it were a topic; the entries' photographs say what was built."""
    log = ("# Re-visit often to check on latest build info.\n\n"
           '[![](b1_small.jpg "New lightweight drive wheels")](b1.jpg)\n\n## 17/04/03 {#2003-04-17}\n\n'
           "Here are those wheels fitted.\n\n"
           '[![](b2_small.jpg "Electronics - bench testing")](b2.jpg)\n\n## 20/03/02 {#2002-03-20}\n\n'
           "Here are the drive electronics going through their bench test.\n\n"
           '[![](b3_small.jpg "build84.jpg （40199 bytes）")](b3.jpg)\n\n## 18/11/01 {#2001-11-18}\n\n'
           "Added interchangeable blades.\n")
    summary = composed_summary(log, "The Build Diary")
    assert "Re-visit" not in summary, summary
    assert summary.endswith(": New lightweight drive wheels / Electronics - bench testing."), summary
    topics = ("## 1 May 1997 {#1997-05-01}\n\nA day.\n\n## Death of my mother\n\nShe died.\n\n"
              "## 2 May 1997 {#1997-05-02}\n\nB.")
    year = composed_summary("# Three girls and the H-bomb\n\n" + topics, "1997")  # a heading, no sentence: a topic
    assert year.endswith(": Three girls and the H-bomb / Death of my mother."), year


def test_a_connective_in_kanji_or_an_aside_is_no_place_to_start():
    """Seed 1236: a thesis abstract summed up from `更に，出生率の低下…` (furthermore), a blog post about moving to
    WordPress from its aside `全然関係無いけど、最近…` (quite unrelated, but…)."""
    from siterag.enrich.summary import leans_back

    assert leans_back("更に，出生率の低下や核家族化といった諸事情がある．") and leans_back("但し、月曜は休みです。")
    assert leans_back("全然関係無いけど、最近めっちゃ忙しいです。") and leans_back("By the way, the car broke down.")
    assert not leans_back("更新履歴を載せました。") and not leans_back("関係者の皆様に感謝します。")
    # seed 1244: a three-sentence page summed up by its afterthought, `あっ、TeX でも…使っていました`
    assert leans_back("あっ、TeX でもサブフォント定義ファイルの拡張子として使っていました。")
    assert leans_back("ですが現在まったく使われていないようですので、再利用することにしたのです。")


def test_a_sheet_of_fields_is_summed_up_by_its_fields_and_values():
    """Seed 1236: gyrobot's specifications (a table flattened into `Weight` / `98kg.` lines) were summed up by the
    note above them (`Note : Gyrobot is under continuous improvement…`); a PC's parts in a table of two columns
    by their names alone."""
    specs = ("Note : Gyrobot is under continuous improvement so specs may be liable to change.\n\nSpecification\n\n"
             "Description\n\nDimensions\n\n700mm diameter x 150mm height.\n\nWeight\n\n98kg.\n\nWeapon\n\n"
             "35kg outer spinning steel rim.\n\nSpeed\n\nAbout 20 mph.\n")
    assert composed_summary(specs, "Specifications") == \
        "Specifications: Dimensions: 700mm diameter x 150mm… / Weight: 98kg. / Weapon: 35kg outer spinning " \
        "steel rim. / Speed: About 20 mph."
    essay = "\n\n".join(f"◆{h}\n\n" + "二項対立を表面化させた演劇からの脱却を試みた。" * 5
                        for h in ("構成", "表現", "主題", "演出"))  # subheads over paragraphs: prose
    assert not composed_summary(essay, "森の交響曲").startswith("森の交響曲: ◆")
    israel = ("Jeroboam", "Nadab", "Baasha", "Elah", "Zimri", "Omri")
    kings = ("In order to establish the chronology of the kings, it is vital to know how a reign was reckoned.\n\n"
             + "\n".join(f"| King {n} | {900 - n} BC |" for n in range(12))
             + "\n\n" + "\n\n".join(f"{king}\n\n{938 - n}–916" for n, king in enumerate(israel)))
    assert "Jeroboam:" not in composed_summary(kings, "Chronology")  # pairs under a table: a part of the page
    speakers = ("システム", "岡崎", "システム", "岡崎")
    chat = "\n\n".join(f"{who}\n\nこんにちは、よろしくお願いします。" for who in speakers)
    assert ": こんにちは" not in composed_summary(chat, "チャット")  # speakers said again: no fields
    parts = ("| パーツ | ブランド/スペック |\n|---|---|\n| CPU | Intel Core2 Duo E8200 |\n"
             "| マザーボード | Shuttle k48 |\n| メモリ | DDR2 2GB |\n| HDD | 500GB |\n")
    assert composed_summary(parts, "自作PC").endswith(
        ": CPU: Intel Core2 Duo E8200 / マザーボード: Shuttle k48 / メモリ: DDR2 2GB / HDD: 500GB")


TRIP = """**自然紀行**

## 2001年11月13日(火)～14日(水) {#2001-11-13}

日光 小倉山森林公園～雲竜渓谷～戦場ヶ原。ヤマドリの家族そしてアオシギとの出会い。

## 2001/11/13(火) {#2001-11-13-2}

明日が県民の日で休みということで勤務終了後、日光に向かう。ペンションに泊まる。

## 2001/11/14(水) {#2001-11-14}

朝、目が覚めると抜けるような青空がそこにあった。小倉山森林公園を散歩する。
"""


def test_a_heading_over_the_days_that_follow_gives_the_trips_own_word_not_an_entry():
    assert overview(TRIP) == "日光 小倉山森林公園～雲竜渓谷～戦場ヶ原。ヤマドリの家族そしてアオシギとの出会い。"
    assert composed_summary(TRIP, "自然紀行", kind="report") == f"レポート 2001年11月13日–14日、2件。{overview(TRIP)}"
    one_day = TRIP.replace("～14日(水)", "")  # a day's heading: an entry of its own
    assert overview(one_day) == "" and "3件" in composed_summary(one_day, "自然紀行", kind="report")
    later = TRIP.replace("{#2001-11-13-2}", "{#2001-11-12}")  # a day before it: no span over the others
    assert overview(later) == ""


def test_a_label_set_as_code_in_a_sentence_is_read_as_its_words():
    body = ("アウトラインビューでは、`情報を得る(I)` コマンドを実行すると、選択している内容によって異なる"
            " 4 種類のダイアログを生成することができます。\n\n```\nif (x) { y = 1; }\n```\n")
    sentences = page_sentences(body)
    assert sentences[0].startswith("アウトラインビューでは、情報を得る(I) コマンドを") and quotable(sentences)[0] == 2
    assert summary_is_exact(sentences[0], body)
    assert "`x = 1;`" in summary_source("set `x = 1;` first")  # a program's code stays code


def test_short_lines_under_a_row_of_pictures_are_their_captions():
    """Issue 24 (blind reading, seed 1250): a greenhouse's photos laid out as rows of four pictures, each row's
    captions on the lines under it, were summed up as `14行の一覧` of the phone numbers at the page's top."""
    from siterag.enrich.summary import _composed

    rows = "".join("".join(f"[![](0{r}{n}.jpg)](0{r}{n}.jpg)\n" for n in range(4)) +
                   "".join(f"{caption}\n" for caption in captions)
                   for r, captions in enumerate((["2階温室 1階教室", "加温無し温室", "20度設定温室", "温室内部"],
                                                 ["温室内部 滝", "温室内部胡蝶蘭", "温室内部 滝", "温室内部 めだか"])))
    body = ("ただ今の時間\nメールより電話連絡を TEL－059-000-0000\n携帯・・・０９０ ００００ ００００ この方が便利\n"
            "ただ今生徒さん募集中\n" + rows)
    assert _composed(body, "温室", kind="photos") == \
        "温室: 写真 8枚: 2階温室 1階教室 / 加温無し温室 / 20度設定温室 ほか"
    # lines under a picture that are sentences are the page's text: no photo page
    prose = body.replace("加温無し温室", "加温無しの温室で、冬でも蘭が咲きます。") \
        .replace("温室内部胡蝶蘭", "胡蝶蘭がきれいに咲きました。")
    assert not _composed(prose, "温室", kind="photos").startswith("温室: 写真")


def test_a_talk_that_says_what_it_addresses_says_what_the_page_is():
    """Issue 24 (seed 1250): `This presentation addresses …`, `本発表では…について紹介し` name the page."""
    from siterag.enrich.summary import leans_back, says_what_page_is

    assert says_what_page_is("This presentation addresses acquisition and utilization of semantics around us.")
    assert says_what_page_is("This talk discusses the possibilities of the camera network.")
    assert says_what_page_is("本発表では，我々が開発している基盤技術について紹介する．")
    assert not leans_back("This presentation addresses acquisition of semantics.")
    assert not says_what_page_is("This presentation was given in Kyoto.")


def test_a_definition_list_is_summed_up_by_its_terms():
    """Read on a held-out sample (seed 1255): FontForge's View menu page, each command in bold with its
    description under it, was summed up by one command's description (`フォントビューでは、…次のグリフを選択`)."""
    commands = ["枠に揃える(F)", "縮小(O)", "拡大(I)", "次のグリフ(N)", "前のグリフ(P)"]
    body = "# 表示メニュー\n\n" + "".join(f"**{c}**\n: {c}のコマンドです。フォントビューでは使用できません。\n"
                                        for c in commands)
    assert composed_summary(body, "表示メニュー", "フォントビューでは使用できません。") == \
        "表示メニュー: 5項目の説明: 枠に揃える(F) / 縮小(O) / 拡大(I) ほか"
    # an opening paragraph that says what the menu is stays the summary (read blind, seed 1260: CID メニュー)
    opening = "CID メニューには、CID フォントを操作するための少数のコマンドがあります。"
    assert composed_summary(body.replace("\n\n", f"\n\n{opening}\n\n", 1), "表示メニュー", opening) == ""
    # a detail's paragraph further down is no word on the page (コマンドライン引数: a note on .ttc files)
    detail = "いくつかのファイルは 1 個より多くのフォントを含むことができます。"
    assert composed_summary(body + f"\n{detail}\n", "表示メニュー", detail).startswith("表示メニュー: 5項目の説明")
    # a few terms among paragraphs of prose: the prose says what the page is
    paragraphs = "\n\n".join("段落です。" for _ in range(12))
    prose = f"# 用語\n\n{'長い説明の段落です。' * 3}\n\n{paragraphs}\n\n" + "".join(
        f"**{c}**\n: 説明。\n" for c in commands[:4])
    assert composed_summary(prose, "用語") == ""


def test_a_pages_lines_as_its_summary_give_a_tables_cells_words_not_its_pipes_and_breaks():
    """Read blind (seed 1261): crest's workshop page was summed up as `会合名： | 科学技術振興機構<br>「…」<br>…`."""
    from siterag.enrich.summary import lines_summary

    body = ("第２回 ワークショップ\n\n"
            "| 会合名： | 科学技術振興機構<br>「デジタルシティ」<br>第２回 ワークショップ |\n|---|---|\n")
    out = lines_summary(body, True)
    assert out == "第２回 ワークショップ / 会合名： 科学技術振興機構 「デジタルシティ」 第２回 ワークショップ"
    assert "|" not in out and "<br>" not in out


def test_a_composed_summarys_item_is_cut_between_words_not_inside_one():
    """Read blind (seed 1264): gyrobot's specifications were summed up as `From the word Gyrate wh…`, `150mm heig…`."""
    from siterag.enrich.summary import _clip

    assert _clip("Name: Gyrobot - From the word Gyrate which means to spin") == "Name: Gyrobot - From the word Gyrate…"
    assert _clip("Dimensions: 700mm diameter x 150mm height") == "Dimensions: 700mm diameter x 150mm…"
    ja = "京都デジタルシティの研究プロジェクトについての長い説明文がここに入ります"
    assert _clip(ja, 20) == "京都デジタルシティの研究プロジェクトに…"
    assert _clip("Supercalifragilisticexpialidocious-and-more", 20) == "Supercalifragilisti…"  # one long word: cut


def test_a_programs_source_shown_as_the_page_is_named_by_what_it_declares_not_its_licence():
    """Read blind (seed 1267): FontForge's `views.h` shown as a page was summarised by its BSD licence comment."""
    licence = "/* Copyright (C) 2000-2003 by George Williams */\n/*\n * Redistribution and use in source and binary " \
              "forms, with or without\n * modification, are permitted.\n */\n"
    types = "".join(f"typedef struct {n.lower()} {{\n    int x;\n    int y;\n}} {n};\n\n" for n in
                    ("CharView", "BitmapView", "FontView", "MetricsView"))
    page = f"```\n{licence}{types}```\n"
    summary = composed_summary(page, "FontForge 用の UI データ構造")
    assert summary.startswith("FontForge 用の UI データ構造: ソースコード") and "CharView / BitmapView" in summary, \
        summary
    assert "Redistribution" not in summary
    prose = "This page explains the views.\n\n" * 10 + f"```\n{types}```\n"  # a snippet in an article: no listing
    assert "source code" not in composed_summary(prose, "Views")
    notice = "```\n" + "".join(f"会合名： 第{i}回 ワークショップ\n日時： 2002年11月{i}日\n"
                                for i in range(1, 13)) + "```\n"
    assert "ソースコード" not in composed_summary(notice, "ワークショップ")  # preformatted text, no program


def test_a_japanese_sentence_full_of_latin_product_names_is_quotable():
    """Read blind (seed 1267, 1269): a post's opening `ADSLモデムの「NEC Aterm WD701CV」と…の接続についての解説です。`
    was read as a line of English (half its characters Latin) and passed over for a side remark."""
    opening = ("ADSLモデムの「NEC Aterm WD701CV」と無線LANブロードバンドルーター「BUFFALO WHR-G301N/N」"
               "の接続についての解説です。")
    aside = "「NEC Aterm WD701CV」に拡張カード「WL54AG」を差し込むと無線LAN接続が可能ですが、これはないもののします。"
    assert choose_summary([opening, aside], [], title="NEC Aterm WD701CV と BUFFALO WHR-G301N/N の接続") \
        .startswith(opening)
