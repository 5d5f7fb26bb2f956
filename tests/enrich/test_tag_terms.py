"""Issue 24, item 1: tags are whole names (quoted titles, names joined by `of`), the subject a page keeps coming back
to (a noun inside many compounds), and no common word said once (関与, 贅沢, cheer)."""

from __future__ import annotations

import re

import pytest

from siterag.enrich.enrich import machine_fields, page_facts
from siterag.enrich.keywords import english_terms, japanese_terms, page_terms, recurring_parts
from siterag.enrich.tagterms import general_zipf, generic_term, quoted_names
from tests.conftest import SHARED_SITES
from tests.enrich.test_tags_summaries import _stats

OTHERS = ["## 盆栽の手入れ\n\n盆栽の松は春に芽を摘みます。松の盆栽は水やりが大切です。\n",
          "## 熱帯魚の水槽\n\nグッピーの水槽は水温が大切です。グッピーは毎日餌をやります。\n",
          "## 鈴鹿山脈\n\n鈴鹿山脈の御在所岳に登りました。御在所岳のロープウェイは混んでいました。\n"]

SKI = ("## 冬休みの思い出\n\n家族でスキー場に行きました。午前中はスキー教室でボーゲンを習いました。"
       "午後は初めて一人でスキーをしました。転んでも楽しかったです。\n")


def _tags(body: str, title: str = "") -> list[str]:
    stats = _stats([body, *OTHERS])
    return machine_fields(body, title, stats, page_facts(body))["tags"]


def test_the_noun_a_page_keeps_using_in_compounds_is_its_subject():
    tags = _tags(SKI, "冬休みの思い出")
    assert "スキー" in tags[:2], tags  # three times, twice in a compound (old code: スキー場, スキー教室, no スキー)
    assert not {"スキー場", "スキー教室"} & set(tags)
    assert page_terms(SKI).counts["スキー"] == 3
    # a noun only ever inside one compound is that compound's part, not a term of its own
    assert "デジタル" not in page_terms("京都デジタルシティの会議。京都デジタルシティの報告。").counts


REVIEW = ("## 読書メモ\n\n『エンジェル/ダスト』を読みました。主人公の少女が天使に出会う物語です。"
          "天使の羽の描写が美しく、作者の贅沢な文章に積極的に関与したくなりました。\n\n"
          "『エンジェル/ダスト』の続編も楽しみです。\n")


def test_a_quoted_title_is_one_tag_and_common_words_said_once_are_none():
    tags = _tags(REVIEW, "読書メモ")
    assert "エンジェル/ダスト" in tags, tags
    assert not {"エンジェル", "ダスト"} & set(tags)  # no fragment of the title
    assert not {"贅沢", "関与", "積極的"} & set(tags), tags  # common words, once each
    assert all(t in REVIEW for t in tags)


def test_quoted_names_are_titles_not_quoted_sentences():
    found = quoted_names("『エンジェル/ダスト』と「七つ森」を観た。「そうですね、また行きたいです」と言った。"
                         "He played “Pet Sounds” and said \"That was a long night, I think.\"")
    assert found == ["エンジェル/ダスト", "七つ森", "Pet Sounds"]
    claims = quoted_names("『演劇は論理ではない』と言う。『演劇には伝えたいことなどいらない』。"
                          "『ヴィトゲンシュタインの哲学から』について。『降るような星空』と『星に願いを』を観た。")
    assert claims == ["降るような星空", "星に願いを"]  # a claim or a post's title quoted is no work's name


def test_generic_words_are_told_from_topical_ones_by_general_frequency():
    if general_zipf("要素") == 0:
        pytest.skip("wordfreq is absent")
    assert generic_term("要素", 1, False) and generic_term("cheer", 1, False)
    assert generic_term("要素", 3, False)  # very common: a subject only when said often
    assert not generic_term("要素", 5, False) and not generic_term("要素", 1, True)  # repeated, or the subject
    assert not generic_term("台本", 2, False)  # less common: said twice is enough
    assert not generic_term("百合小説", 1, False) and not generic_term("Gyrobot", 1, False)


def test_english_names_are_not_cut_at_their_small_words():
    terms = english_terms("We saw HOUSE OF EDGE live, then read The Lord of the Rings again.")
    assert "HOUSE OF EDGE" in terms and "Lord of the Rings" in terms, terms
    assert not {"HOUSE", "EDGE", "Lord", "Rings"} & set(terms)
    assert "history" in english_terms("the history of the town")  # lowercase: no name, no joining
    terms = english_terms("The armour plates are removable and the kit is useable")
    assert "armour plates" in terms and not {"removable", "useable"} & set(terms), terms  # adjectives: no topic
    assert english_terms("We met Goodden’s sister. Then Gyrobot's.")[-1] == "Gyrobot"  # the name, not its genitive


def test_tags_of_a_real_page_of_a_shared_site():
    """nanatsumori's essay on a film director (../shared): the names it says are tags, whole; no common word
    it says once or twice (素人, 行為) is one; the site's other essays of the folder give the frequencies."""
    folder = SHARED_SITES / "nanatsumori" / "shisaku-geijutsu"
    page = folder / "shisaku-geijutsu-engeki-kecho.htm"
    if not page.is_file():
        pytest.skip("../shared/sites/nanatsumori is absent")
    from siterag.extract.extract import extract_page

    bodies = {p.name: extract_page(p.read_bytes().decode("cp932", "replace"), "heuristic").markdown
              for p in sorted(folder.glob("*.htm"))}
    body = bodies[page.name]
    tags = machine_fields(body, "「化鳥伝説」パンフレットから 自作の方向性", _stats(list(bodies.values())),
                          page_facts(body))["tags"]
    quoted = re.findall(r"「([^」。]{1,16})」", body)  # the films and prizes it names: a tag is none of them cut short
    assert not [t for t in tags if any(t in q and t != q for q in quoted)], tags
    assert "ショーレ・ゴルパリアン" in tags, tags  # a name, whole
    assert not {"素人", "行為", "７本", "キャンドル", "太東"} & set(tags), tags  # (太東 of 太東中, a school)
    assert all(t in body for t in tags)


def test_a_persons_name_written_with_a_space_is_one_term_and_no_word_is_cut_inside_katakana():
    terms = japanese_terms("登場人物\n鷺沢 隼人 …小学校五年生\n田中　智子 …先生")
    assert "鷺沢 隼人" in terms and "田中\u3000智子" in terms, terms
    assert not {"鷺沢", "隼人", "田中", "智子"} & set(terms)
    assert "田中先生" not in japanese_terms("田中 先生が来た。")  # no compound the page does not write
    # イン is a term of a page with broken text, never the start of インターネット
    assert "イン" not in recurring_parts(["インターネット", "イン", "インターネット", "インターフェース"], {})


def test_a_name_ends_where_the_sentence_goes_on_and_no_contraction_or_entity_is_a_term():
    """Read on held-out pages: `Wells Cathedral tonight`, `Helen behind`, `you’ll`, `mdash` were tags."""
    from siterag.enrich.keywords import english_terms, japanese_terms

    terms = english_terms("We sang at Wells Cathedral tonight and Helen behind us smiled. you’ll see the mdash "
                          "here. Patrick's House stands near the Lord of the Rings shop. Kyoto box jump is fun.")
    assert "Wells Cathedral" in terms and "Helen" in terms and "Patrick's House" in terms
    assert "Lord of the Rings" in terms and "Kyoto box jump" in terms  # two lower-case words: a name's own
    assert not {"Wells Cathedral tonight", "Helen behind", "you’ll", "mdash"} & set(terms)
    assert not {"管理人", "転載"} & set(japanese_terms("管理人の許可なく転載を禁止します。演奏の録音です。"))


def test_what_a_page_keeps_coming_back_to_stays_within_reach_of_a_name_said_on_it_alone():
    """The square root of the inverse document frequency: a club named on a third of a diary's months and 10 times in
    this one scores near a street said three times here and nowhere else (with the plain idf, under half of it: below
    RELATIVE_SCORE, so never a tag beside it)."""
    from collections import Counter

    from siterag.enrich.keywords import PageTerms, score_terms
    from siterag.enrich.tagclass import RELATIVE_SCORE

    terms = PageTerms(counts=Counter({"birmingham city": 10, "yardley road": 3}),
                      surface={"birmingham city": "Birmingham City", "yardley road": "Yardley Road"},
                      first={"birmingham city": 0, "yardley road": 1})
    scored = dict(score_terms(terms, Counter({"birmingham city": 60, "yardley road": 1}), docs=180))
    assert scored["Birmingham City"] > 0.7 * scored["Yardley Road"] > RELATIVE_SCORE * scored["Yardley Road"]


def test_the_sites_own_name_in_common_words_tags_none_of_its_pages():
    """gyrobot: `Official Team Gyrobot`, `Gyrobot Ltd` are the site's name (on most of its pages) dressed in common
    words; a name built on a common word the site uses everywhere (`Robot Wars`) stays."""
    from collections import Counter

    from siterag.enrich.keywords import site_name_dressed

    df = Counter({"gyrobot": 15, "robot": 14, "official": 2, "team": 6, "ltd": 1, "wars": 4, "mk": 1})
    assert site_name_dressed("Official Team Gyrobot", df, docs=17)
    assert site_name_dressed("Gyrobot Ltd", df, docs=17)
    assert not site_name_dressed("Robot Wars", df, docs=17)
    assert not site_name_dressed("Gyrobot Mk", df, docs=17)  # a word of its own: the robot's model
    assert not site_name_dressed("Gyrobot Ltd", df, docs=40)  # the name on few of the pages: no site's name
