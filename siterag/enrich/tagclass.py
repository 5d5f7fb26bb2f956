"""Which candidate terms are sure enough to be tags: a tag is a whole name, a compound or the page's repeated
subject; a single common word, a code identifier, a fragment of a longer name or a word of a sentence is not.

A term's class comes from the term alone (Sudachi's part of speech, English capitals, wordfreq's Zipf scale);
whether it is a fragment from the text around each of its occurrences on the page.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from siterag.enrich.dates import ENTRY_HEADING_RE
from siterag.enrich.markdown import MD_IMAGE_RE
from siterag.enrich.tagterms import JA_RE, NAME_TITLES, general_zipf, misspelt

SUBJECT_TF = 3  # a single common word is the page's subject when said this often (or in its title or headings)
COMMON_PART_ZIPF = 3.5  # a compound all of whose nouns are this common (設置方法, 画面左) is generic when said once
COMPOUND_TF = 2
RARE_ZIPF = 3.0  # a katakana word rarer than this is a specific thing (セイタカアワダチソウ, マザーボード)
VERY_COMMON_ZIPF = 5.0  # a single word this common (開発 5.2, project 5.3) is no tag anywhere
NAME_COMMON_ZIPF = 5.5  # a capitalised word this common (School 5.7, Team 5.7) is a word, whatever its capital
EN_COMMON_PHRASE_ZIPF = 4.8  # two English words both this common (Team Member, Blood Type) name no one thing
EN_COMMON_ZIPF = 4.5  # a capitalised single word this common (Death, Photo, School) names nothing
EN_WORD_ZIPF = 2.5  # a capitalised known word found only where a sentence starts is a word, not a name
PHRASE_TF = 5  # a lowercase phrase (`direct hit`, `flower beds`) said this often is the page's subject
DOMINANT_TF = 6  # a single common noun said this often is the page's subject
MAX_CONFIDENT = 4  # tags kept at most (a 5th and a 6th were good 4 times in 10, read blind)
# Characters of body from which a term outside the title and headings must be said two, three times to be more
# than a mention (a name in a year of diary entries)
LONG_PAGES = (3000, 10000)
NUMBER_DIGITS = 7  # a term with this many digits is a number (a phone's, a part's), not a name
RELATIVE_SCORE = 0.45  # a tag scoring below this share of the page's best one is a guess

_NO_WORD_START = frozenset("ーンァィゥェォッャュョヮヵヶ")
_KANJI_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_KATAKANA_RE = re.compile(r"^[ァ-ヺー・]+$")
_SENTENCE_PUNCT_RE = re.compile(r"[、。，．,;；!?！？()（）［］＜＞<>＋+＝=]")  # and brackets: a name with a note
_IDENTIFIER_RE = re.compile(r"^[a-z]{2,}[A-Z]|^[a-z]+[A-Z][a-z]+[A-Z]|_|^[a-z]+\d|\d[a-z]{3,}$")
_ORDINAL_RE = re.compile(r"\b\d+(?:st|nd|rd|th)s?\b|^\d+[A-Z]$"
                         r"|^\d+(?:mm|cm|m|kg|g|rpm|mhz|ghz|khz|hz|kb|mb|gb|v|w|ah)$", re.IGNORECASE)  # 400RPM, 25mm
_QUESTION_COUNT_RE = re.compile(r"何[回本人個枚度年月日時分件台冊杯匹頭羽]")  # how many …? (not 幾何学)
_POSSESSIVE_RE = re.compile(r"['’]s?$")
_JOIN_CHARS_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u30a0-\u30ffA-Za-z0-9Ａ-Ｚａ-ｚ０-９ー･]")
_VERB_FORM_RE = re.compile(r"..(?:ly|ed|ing)$")
_DOMAIN_RE = re.compile(r"^[a-z0-9-]+(?:\.[a-z0-9-]+)+$")
_ADDRESS_RE = re.compile(r"^\S*(?:[\\@]|/\S*\.|\.\S*/|\w\.[A-Za-z0-9]{2,4}$)\S*$")  # a file, path, host, address
_SMALL_WORDS = frozenset("the a an of in on at to and or for by with from as is was i we he she it this that".split())
_LATIN_WORD_RE = re.compile(r"[A-Za-z]+")
_SALUTATIONS = frozenset("dear hello hi hey greetings thanks congratulations".split())
_ROMAN_RE = re.compile(r"^[IVXLC]{2,}$")
_PLACEHOLDER_RE = re.compile(r"^(?:x{2,}|○{2,}|●{2,}|×{2,}|〇{2,}|△{2,}|□{2,}|\*{2,})$")  # (folded: ＸＸＸＸ = xxxx)
_TITLE_ABBR_RE = re.compile(r"^(?:St|Mr|Mrs|Dr|Mt|Sr|Jr|Ms)\.?$")


def fold(term: str) -> str:
    """Width- and case-folded: ﾊﾟﾗﾒｰﾀ = パラメータ, LTE = ＬＴＥ."""
    return unicodedata.normalize("NFKC", term).casefold()


@lru_cache(maxsize=65536)
def _mode_c(term: str) -> tuple[tuple[str, bool, bool], ...]:
    """(word, is proper, out of the dictionary) of each word of a Japanese term as Sudachi reads it alone (mode C;
    width-folded first)."""
    from siterag.enrich.keywords import _is_proper, _tokenizer

    _, tokenizer = _tokenizer()
    return tuple((m.surface(), _is_proper(m.part_of_speech_id()), m.is_oov())
                 for m in tokenizer.tokenize(unicodedata.normalize("NFKC", term)) if m.surface().strip())


@lru_cache(maxsize=65536)
def ja_parts(term: str) -> tuple[tuple[str, bool], ...]:
    """(noun, is proper) of a Japanese term as Sudachi reads it alone (mode C; width-folded first)."""
    return tuple((word, proper) for word, proper, _ in _mode_c(term))


@lru_cache(maxsize=65536)
def ja_morphemes(term: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(surface, part of speech) of each short unit of a Japanese term (Sudachi mode A: 実用性 -> 実用 + 性)."""
    from siterag.enrich.keywords import _dictionary, short_tokenizer

    dictionary = _dictionary()
    return tuple((m.surface(), dictionary.pos_of(m.part_of_speech_id()))
                 for m in short_tokenizer().tokenize(unicodedata.normalize("NFKC", term)) if m.surface().strip())


# What a compound ending in one of these is: a state (メーカー不明, ナレーションなし, 保証期間外, 廃棄予定,
# 自宅療養中), a scope (対象外, 以下) or an abstract quality or manner (実用性, 出し方, 問題点) — a predicate about
# something, never the thing a person files the page under. A closed class of Japanese status words and suffixes;
# 中 only after a verbal noun (療養中, 開催中: in progress; 黒浜中 is a school).
_STATE_HEADS = frozenset("なし 無し 不明 不要 不可 可能 必要 予定 略 済み 済 以外 未満 以上 以下 程度 等 次第".split())
_ABSTRACT_SUFFIXES = frozenset("性 方 点 的 外".split())
# A note about something (Android覚書, ヤフオク補足, iPhoneまとめ): its subject is the something; alone, no tag
# (keywords.JA_STOP holds them).
NOTE_WORDS = frozenset("覚書 覚え書き 補足 メモ まとめ".split())
_NOTE_HEADS = NOTE_WORDS | {"向け"}
# The words of working a screen: what one does (クリック, 表示, 削除, 設定: a manual's step, never its subject)
# and the generic parts one does it on (画面, メニュー, ウィンドウ: the subject only of the page about that part,
# FontForge's ファイルメニュー). The rubric's UI words.
_UI_ACTIONS = frozenset("クリック ダブルクリック 押下 タップ ドラッグ スクロール 表示 選択 入力 削除 追加 変更 設定"
                        " 貼り付け".split())
# The head of a label of a page's part, X の Y: how to do X, X's outline, list, works, contents, record
# (文書のインストール方法, プロジェクトの概要, 動画マニュアルの作品, 小泉智史の履歴; not the suffix 方 of a work's
# name, 急須の選び方)
_PART_LABELS = frozenset("方法 手順 仕方 やり方 概要 説明 紹介 一覧 作品 目次 履歴 略歴 経歴".split())
_UI_PARTS = frozenset("画面 ウィンドウ ウインドウ メニュー ボタン アイコン".split())
# Nouns that follow what they measure or bound (1時間程度, 5人以上, 3日頃): a term starting with one was glued on
# across a phrase boundary (どの程度効果がある -> 程度効果), the thing it bounds left behind.
_FOLLOWING_NOUNS = frozenset("程度 以上 以下 以外 未満 以内 以降 以来 次第 等 頃 位 くらい ぐらい 毎 同士 前後 辺り"
                             " 付近 方面 限り 通り 同様 直前 直後".split())
# 中 after a span of time is a state too (無料期間中, 営業時間中)
_SPANS = ("期間", "時間", "休暇", "会期")


def ja_phrase_kind(term: str, in_subject: bool = False, name: bool = False) -> str:
    """Why a Japanese term is a phrase about something rather than a name of it, or '': 'run-on' (it starts
    with a noun that follows what it bounds: 程度効果 of どの程度効果), 'state' (its last unit is a status word,
    an abstract suffix or a note's word: メーカー不明, 実用性, 出し方, Android覚書, even in the page's title; a
    status word that is one word of the dictionary, 行方不明, only outside its title and headings), 'modifier'
    (a unit is a determiner: 同じウィンドウ), 'ui' (it is, or ends in, a word of working a screen: ダブルクリック,
    反転表示, VSTインスツルメントの設定; a screen's part, プルダウンメニュー, unless in the page's title or
    headings), 'label' (X の Y where Y says what a part of a page does: 文書のインストール方法,
    プロジェクトの概要). A whole `name` (a title, a link's label) of the form X の Y may end in an abstract suffix:
    急須の選び方 names a page."""
    units = ja_morphemes(term)
    if not units:
        return ""
    last, last_pos = units[-1]
    if "の" in [u for u, _ in units[1:-1]] and last in _PART_LABELS:
        return "label"  # 文書のインストール方法, プロジェクトの概要: what a part does, no term to file it under
    if len(units) >= 2:
        if units[0][0] in _FOLLOWING_NOUNS:
            return "run-on"
        lexical = in_subject and len(ja_parts(term)) == 1  # 行方不明 as a heading: one word, a story's title
        suffix = last in _ABSTRACT_SUFFIXES and last_pos[0] in ("接尾辞", "名詞") and not (name and "の" in term)
        in_progress = last == "中" and (units[-2][1][2].startswith("サ変") or units[-2][0].endswith(_SPANS))
        if suffix or (not lexical and (last in _STATE_HEADS or last in _NOTE_HEADS or in_progress)):
            return "state"
        if any(pos[0] == "連体詞" for _, pos in units):
            return "modifier"
    whole = unicodedata.normalize("NFKC", term)
    heads = _UI_ACTIONS if in_subject else _UI_ACTIONS | _UI_PARTS
    if any(whole.endswith(h) for h in heads):
        return "ui"
    return ""


@lru_cache(maxsize=65536)
def _ja_verb(term: str) -> bool:
    """Whether Sudachi reads `term` alone as one verb or adjective (越え, 重い), not a noun."""
    from siterag.enrich.keywords import _tokenizer

    dictionary, tokenizer = _tokenizer()
    tokens = [m for m in tokenizer.tokenize(unicodedata.normalize("NFKC", term)) if m.surface().strip()]
    return len(tokens) == 1 and dictionary.pos_of(tokens[0].part_of_speech_id())[0] in ("動詞", "形容詞")


_JOINED_RE = r"[と、，,＋+・/／＆&]"  # what joins the things a title lists (セリフとステム, 拍子、テンポ, 紙＋筆)
_NOUN_END = r"[\u3400-\u9fff\u30a0-\u30ffA-Za-z0-9Ａ-Ｚａ-ｚ０-９]"


def title_listed(term: str, title: str) -> bool:
    """Whether a title lists `term` among the things it is about, joined to another noun (`セリフとステムの…太さ`,
    `拍子、テンポの設定`, `キーボード＋ディスプレーへ`), not a word that says something about its subject
    (`国立から我が家までのルート`, `AとBの接続`)."""
    e = re.escape(term)
    return re.search(rf"{_NOUN_END}{_JOINED_RE}{e}|{e}{_JOINED_RE}{_NOUN_END}", title) is not None


def in_subject(term: str, subject: str) -> bool:
    """Whether `term` is in `subject` (the page's title and headings, case-folded): an English term as whole words
    (`str` is not in `Structure`), a Japanese one anywhere."""
    key = term.casefold()
    if not key.isascii():  # written with or without the spaces between a name's words (田中 智子 = 田中智子)
        return key in subject or re.sub(r"\s", "", key) in re.sub(r"\s", "", subject)
    return re.search(rf"(?<![a-z0-9]){re.escape(key)}(?![a-z0-9])", subject) is not None


def weak_term(term: str, tf: int, in_subject: bool, page_chars: int = 0, built_on: int = 0,
              in_title: bool = False, named: bool = False) -> str:
    """Why `term` (said `tf` times on the page) is no sure tag, or '' when it is one. `in_subject`: the term is in
    the page's title or headings (a very common single word there still needs to be said SUBJECT_TF times; a common
    one too in a heading, not the title). `page_chars`: the length of the page's body (passing). `built_on`: how
    many of the page's other terms are compounds made on it (スキー of スキー場, スキー教室). `in_title`: in the
    page's own title. `named`: what the title names as its subject: the whole title, a work's name in it (`青空`,
    『夏休み』), one of the things it joins (`拍子、テンポの設定`: title_listed)."""
    if _SENTENCE_PUNCT_RE.search(term.rstrip(".")):
        return "sentence"
    words = term.split()
    if len(words) != len({w.casefold() for w in words}):
        return "repeated"
    if _ORDINAL_RE.search(term):
        return "ordinal"
    if _ROMAN_RE.match(term) or _PLACEHOLDER_RE.match(fold(term)):
        return "placeholder"  # `XI` of the 1st XI, `II` of a part, `ＸＸＸＸ` for a name left out: no name alone
    if sum(ch.isdigit() for ch in term) >= NUMBER_DIGITS:
        return "number"  # a phone number (`TEL-090-2132-3383`), a part number: no subject
    if passing(term, tf, in_subject, page_chars):
        return "passing"
    if any(_garbled(w) for w in words):
        return "garbled"  # `ãñYçY`: a symbol font's Hebrew read as Latin-1, not a word
    if typo(term):
        return "typo"  # `Internet Exploer`, `Potoshop`: a slip of typing, not the name it was meant to be
    if JA_RE.search(term):
        return _weak_japanese(term, tf, in_subject, built_on, in_title, named)
    if any(_IDENTIFIER_RE.search(w) for w in words):
        return "identifier"
    if len(words) > 1:
        return _weak_english_phrase(words, tf, in_subject)
    return _weak_english_word(term, tf, in_subject, in_title)


_CASE_PART_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def typo(term: str) -> bool:
    """Whether a Latin word of `term` is a slip of typing (tagterms.misspelt), full-width letters read as ASCII
    (`Ｗｉｎｏｄｗｓ`) and a word joined to an acronym read apart (`WindosXP`: Windos + XP)."""
    words = _LATIN_WORD_RE.findall(unicodedata.normalize("NFKC", term))
    return any(misspelt(w) or any(misspelt(p) for p in _CASE_PART_RE.findall(w) if p != w) for w in words)


def _garbled(word: str) -> bool:
    """A Latin word more than a third of whose letters are accented (`ãñYçY`): text in a symbol font or a wrong
    code page; a name has one or two (Nadège, Zürich, Société)."""
    accented = sum(0xC0 <= ord(ch) <= 0xFF for ch in word)
    return accented > 0 and 3 * accented > sum(ch.isalpha() for ch in word)


def passing(term: str, tf: int, in_subject: bool, page_chars: int) -> bool:
    """Whether a term outside the page's title and headings is only mentioned: said fewer times than the page's
    length asks (once, twice from LONG_PAGES[0] characters, three times from LONG_PAGES[1]: a name in a year of
    diary entries, a book in a list of thanks), or a Japanese compound of the dictionary's common nouns said once:
    nouns run together across a phrase (電池交換式, データ通信量), not a name (a proper noun, a word the
    dictionary lacks, katakana joined by ・, a name written with a space: ミヒャエル・エンデ, アヅマイチゲ)."""
    if in_subject:
        return False
    return tf < 1 + sum(page_chars >= n for n in LONG_PAGES) or (tf < 2 and common_run(term))


def unknown_word(term: str) -> bool:
    """Whether the dictionary lacks a Japanese word (Sudachi reads it as out of vocabulary): a name, a species, a
    brand (アヅマイチゲ, テザリング, ドスパラ), where a word it has is the language's (レジストリ, 戻り値)."""
    words = _mode_c(term)
    return len(words) == 1 and words[0][2]


def common_run(term: str) -> bool:
    """Whether a Japanese term is two or more of the dictionary's common nouns (Sudachi mode C) and nothing else."""
    if not JA_RE.search(term) or "・" in term or " " in term or "\u3000" in term:
        return False  # (a surname, a space and a name: 染谷 広之)
    words = _mode_c(term)
    return len(words) >= 2 and not any(proper or oov for _, proper, oov in words)


def _weak_english_phrase(words: list[str], tf: int, in_subject: bool) -> str:
    if words[0].casefold() in _SALUTATIONS:
        return "salutation"  # `Dear Brian`, `Hello Brian`: a letter's or a guestbook's greeting, not a name
    capitals = [w[:1].isupper() for w in words]
    if len(words[-1]) == 1 and words[-1].isupper():
        return "name cut"  # `Thomas W` of Thomas W. Phinney, `Squadron-Leader R`
    if len(words[0]) == 1 and words[0].islower():
        return "table debris"  # `x 16Ah Hawker`
    if sum(capitals) == 1 and capitals[0] and not words[0].isupper():
        return "sentence start"  # `Added interchangeable blades`: a sentence's first words, not a name
    if capitals[0] and _VERB_FORM_RE.search(words[0]) and general_zipf(words[0]) >= COMMON_PART_ZIPF:
        return "sentence start"  # `Putting Gyrobot`: a verb begins the sentence
    if any(capitals) and any(not w[:1].isupper() and w.lower() not in _SMALL_WORDS and w.isalpha() for w in words):
        return "phrase"  # `Gyrobot finished Mk I`: a lowercase word inside a name is a sentence's
    if any(capitals) or tf >= PHRASE_TF:
        return ""
    return "" if in_subject and tf >= 2 else "phrase"


def weak_in_text(term: str, text: str, in_subject: bool = False) -> str:
    """Why `term` is no sure tag by how the page `text` writes it, or '': a fragment of a longer name (fragment);
    a name said once, past the page's opening (mentioned_once); a capitalised English word that the page also
    writes in lowercase, or only where a sentence starts (a word, not a name: `Vindicated`, `Pictorial`)."""
    if fragment(term, text):
        return "fragment"
    if not in_subject and mentioned_once(term, text):
        return "mention"  # a name said once past the page's opening: one of the things it passes, not its subject
    if not in_subject and in_one_entry(term, text):
        return "one entry"  # a street of one day's walk in a month of entries: what that day passed, not the page's
    if not in_subject and label(term, text):
        return "label"  # 岡崎 光記 on a line of its own before each turn of a chat: who speaks, not what about
    if not in_subject and common_label(term, text):
        return "label"  # `Team Member` over a column, `Blood Type:` before a value: a field's name, not a name
    if not in_subject and shouted_words(term, text):
        return "shouted words"  # `MILITARY STRENGTH` in an English sentence: words in capitals for emphasis
    if not in_subject and table_code(term, text):
        return "table value"  # FOF, COG5 in the cells of a fleet list: the table's data, not the page's subject
    if not in_subject and citation(term, text):
        return "citation"  # Deuteronomy 33:27, Proverbs 3:5: the source of a quotation, not what the page is about
    if " " in term and _cut_at_abbreviation(term, text):
        return "fragment"  # `Geography Mr` of `In Geography Mr. Whalley`, `UN Gen` of `UN Gen. Ass.`
    japanese = bool(JA_RE.search(term))
    if japanese and _adjectival(term, text):
        return "adjective"  # 多趣味暇 of `多趣味暇な現在`: what someone is like, not a thing
    if japanese and not in_subject and _lone_common_noun(term) and text.count(term) < DOMINANT_TF \
            and len(_join_neighbours(term, text)) < 2:
        return "common word"  # 平面, コンクール: said a few times, never the head of the page's compounds
    if in_subject or " " in term or not term[:1].isupper() or not term.isascii():
        return ""
    if len(term) <= 4 and _always_abbreviated(term, text):
        return "abbreviation"  # `Con. 359, Lab. 243`: a table's column, not a name
    if term.isupper():
        return ""
    if general_zipf(term) >= EN_WORD_ZIPF:
        if re.search(rf"(?<![\w’']){re.escape(term.lower())}(?![\w’'])", text):
            return "word said lowercase"
        if _only_sentence_initial(term, text):
            return "sentence start"
    return ""


def shouted_words(term: str, text: str) -> bool:
    """Whether `term` is two or more common English words in capitals (each COMMON_PART_ZIPF, 4 letters or more:
    `MILITARY STRENGTH`, `DWELL ALONE`), each time inside an English sentence written in lowercase: emphasis, not
    a name (not `JAZZ BASS` on a Japanese page, not `BBC TV`)."""
    words = [w for w in term.split() if w.lower() not in _SMALL_WORDS]
    if len(words) < 2 or not all(w.isupper() and w.isalpha() and len(w) >= 4 and general_zipf(w) >= COMMON_PART_ZIPF
                                 for w in words):
        return False
    lines = [line for line in text.splitlines() if term in line]
    return bool(lines) and all(len(_LOWER_WORD_RE.findall(line)) >= SENTENCE_WORDS for line in lines)


_LOWER_WORD_RE = re.compile(r"(?<![\w’'])[a-z]{2,}(?![\w’'])")
SENTENCE_WORDS = 5  # a line with this many lowercase English words is running English text


ENTRY_PAGE = 10  # a page of this many dated entries or more is a diary's month, year or blog: what it keeps
# coming back to is said in more than one of them (a trip's report of five days is about each day's place)
ENTRY_TITLE_CHARS = 80  # an entry's first line this short is its title (`サザンカにヒヨドリ`), not its story


def in_one_entry(term: str, text: str) -> bool:
    """Whether a page of ENTRY_PAGE or more dated entries (dates.mark_entries' headings) says `term` in one entry
    only, fewer than DOMINANT_TF times, and not in that entry's heading or title line: a player of one match, a
    stop on one day's journey, not what the month is about (`Birmingham City` across its Saturdays, the greyhound
    `Ginger` walked every evening), nor the subject an entry is titled by (a book read, a film seen)."""
    starts = [m.start() for m in ENTRY_HEADING_RE.finditer(text)]
    if len(starts) < ENTRY_PAGE or text.count(term) >= DOMINANT_TF or term in text[:starts[0]]:
        return False
    holding = [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True) if term in text[a:b]]
    if len(holding) != 1:
        return False
    heading, *rest = holding[0].splitlines()
    first = next((line.strip() for line in rest if line.strip()), "")
    return term not in heading and not (term in first and len(first) <= ENTRY_TITLE_CHARS)


LEAD_CHARS = 400  # the page's opening: where it says what it is about (its first paragraph, about 60 words)


def mentioned_once(term: str, text: str) -> bool:
    """Whether the page says a term once, and only after its opening (LEAD_CHARS): a thing it passes on the way
    (a street on a bus route, a program named in a list of criteria), where a page's subject is named in its
    title, its headings, its opening or more than once (`CPU-Z` in a post's first line)."""
    first = text.find(term)
    return first >= LEAD_CHARS and text.find(term, first + len(term)) < 0


CITED_SHARE = 0.75  # a name this often followed by a chapter and verse (3:16) is a reference
_REFERENCE_AFTER_RE = re.compile(r"^\s?\d+:\d+")


def citation(term: str, text: str) -> bool:
    """Whether a name stands on this page mostly (CITED_SHARE) as a reference followed by a chapter and verse
    (`Deuteronomy 33:27`, `Amos 9:9`): where a quotation comes from, not what the page is about."""
    if JA_RE.search(term):
        return False
    spots = [m.end() for m in re.finditer(rf"(?<![\w’']){re.escape(term)}(?![\w’'])", text)]
    cited = sum(bool(_REFERENCE_AFTER_RE.match(text[e:e + 12])) for e in spots)
    return bool(spots) and cited >= CITED_SHARE * len(spots)


_TITLE_BEFORE_NAME_RE = re.compile(f"(?:{'|'.join(NAME_TITLES)})")


def with_initials(term: str, text: str) -> str:
    """A surname as the page writes it whole with its initials, where it does (`Edsor` -> `Albert W. Edsor`,
    `Gess` -> `A.J. Gess`: the most frequent such spelling, then the longest; a common word before the initials is
    a title, not a first name: `Leader R.F. Jenkins` -> `R.F. Jenkins`), else the term (also where two spellings
    name two people as often: `J.E. Trevis`, `P.S. Trevis`)."""
    if not re.fullmatch(r"[A-Z][a-z]+(?:[-’'][A-Z]?[a-z]+)?", term):
        return term  # a surname's shape (not MySQL, not a phrase)
    found = [(first if general_zipf(first.strip()) < EN_COMMON_ZIPF else "") + initials for first, initials in
             re.findall(rf"(?<![\w.])((?:[A-Z][a-z]+ )?)((?:[A-Z]\. ?)+){re.escape(term)}(?![\w’'])", text)]
    if not found:
        return term
    ranked = sorted(set(found), key=lambda f: (-found.count(f), -len(f), f))
    if len(ranked) > 1 and found.count(ranked[0]) == found.count(ranked[1]) and \
            not ranked[0].endswith(ranked[1].lstrip()):
        return term  # two people of that name (J.E. Trevis, P.S. Trevis): the page names neither whole
    return ranked[0] + term


def with_given_name(term: str, text: str) -> str:
    """A katakana surname as the page writes it whole, a given name and ・ before it, where it does (`ヴァイ` ->
    `スティーブ・ヴァイ`, `ファーブル` -> `アンリ・ファーブル`: the most frequent such spelling), else the term; not
    where two whole names end in it as often (two people)."""
    if not _KATAKANA_RE.match(term) or "・" in term:
        return term
    found = [f for f in re.findall(rf"(?<![ァ-ヺー・])([ァ-ヺー]{{2,}}[・･]){re.escape(term)}(?![ァ-ヺー])", text)
             if _given_name(f[:-1], f + term, term, text)]
    if not found:
        return term
    ranked = sorted(set(found), key=lambda f: (-found.count(f), f))
    if len(ranked) > 1 and found.count(ranked[0]) == found.count(ranked[1]):
        return term
    return ranked[0] + term


def _given_name(first: str, whole: str, term: str, text: str) -> bool:
    """Whether `first` before ・ is a given name of `whole`, not the first of two things listed with ・ (ヒアデス・
    プレアデス, バックアップ・レストア): not the term again, not a word of the dictionary, never said without it."""
    if first == term or any(not proper and not oov for _, proper, oov in _mode_c(first)):
        return False
    return text.count(first) == text.count(whole)


def with_first_name(term: str, text: str) -> str:
    """An English surname as the page writes it whole with a first name never said without it (`Morissette` ->
    `Alanis Morissette`: the most frequent such spelling), else the term; not after a common word (`The`,
    `Church`), nor where a title goes with it too (`Mrs Hopkins`) or two first names as often (two people)."""
    if not re.fullmatch(r"[A-Z][a-z]+(?:[-’'][A-Z]?[a-z]+)?", term) or \
            re.search(rf"\b{_TITLE_BEFORE_NAME_RE.pattern}\.? {re.escape(term)}\b", text):
        return term  # (`Mrs Hopkins` and `Gerard Hopkins`: two people)
    found = [first for first in re.findall(rf"(?<![\w.’'])([A-Z][a-z]+) {re.escape(term)}(?![\w’'])", text)
             if general_zipf(first) < EN_COMMON_ZIPF and not _TITLE_BEFORE_NAME_RE.fullmatch(first)
             and len(re.findall(rf"(?<![\w’']){first}(?![\w’'])", text)) == text.count(f"{first} {term}")]
    if not found:
        return term
    ranked = sorted(set(found), key=lambda f: (-found.count(f), f))
    if len(ranked) > 1 and found.count(ranked[0]) == found.count(ranked[1]):
        return term
    return f"{ranked[0]} {term}"


def with_surname(term: str, text: str) -> str:
    """An English first name as the page writes it whole with the one surname it gives it (`Helen` -> `Helen
    Walker`, `Anne` -> `Anne Vickery`: a diary names a person once in full, then by the first name), else the term:
    the surname a word rarer than EN_COMMON_ZIPF (not `River` of `Kum River`, `Theatre`) never said without the
    first name, and only one such (two people, or a list); none where the two words go on into a longer name."""
    if not re.fullmatch(r"[A-Z][a-z]+", term) or _TITLE_BEFORE_NAME_RE.fullmatch(term):
        return term
    spots = list(re.finditer(rf"(?<![\w.’']){term} ([A-Z][a-z]+(?:[-’'][A-Z]?[a-z]+)?)(?![\w’'])", text))
    if any(re.match(r"\s?[A-Z]", text[m.end():m.end() + 2]) for m in spots):
        return term  # part of a longer name: Mrs Hilda Nora Lloyd, Emperor Haile Selassie, Malawi Broadcasting Corp.
    found = {m.group(1) for m in spots if general_zipf(m.group(1)) < EN_COMMON_ZIPF
             and len(re.findall(rf"(?<![\w’']){re.escape(m.group(1))}(?![\w’'])", text))
             == text.count(f"{term} {m.group(1)}")}
    return f"{term} {found.pop()}" if len(found) == 1 else term


_NAME_PART_SPAN = 6  # characters read on either side of a Japanese name's part for the rest of the name
_NAME_GAP_RE = re.compile(r"[ \u3000]?")  # a space the page may write between a surname and a given name
_NAME_END_RE = re.compile(r"[\s()（）\[\]「」『』【】、，,・/／:：;；。.]")  # what follows a name written with a space


@lru_cache(maxsize=65536)
def _ja_name_part(term: str) -> str:
    """'姓' or '名' where a Japanese term is one word Sudachi reads as a person's surname or given name (大場,
    凉子), else ''."""
    from siterag.enrich.keywords import _dictionary, _tokenizer

    words = [m for m in _tokenizer()[1].tokenize(term) if m.surface().strip()]
    if len(words) != 1 or not JA_RE.search(term):
        return ""
    pos = _dictionary().pos_of(words[0].part_of_speech_id())
    return pos[3] if pos[2] == "人名" and pos[3] in ("姓", "名") else ""


def _joined_name(term: str, part: str, before: str, after: str) -> str:
    """The whole name a surname (`part` '姓') or given name ('名') is written in at one spot of a page, the text
    `before` and `after` it there, as Sudachi reads the term with its neighbours: a given name after a surname
    (大場|憲一, 遠野|みどり), a surname before a given name (岸|凉子), a space between them or none; '' where it
    stands alone (a play's speaker label) or Sudachi reads it otherwise there."""
    from siterag.enrich.keywords import _dictionary, _tokenizer

    dictionary, tokenizer = _dictionary(), _tokenizer()[1]
    want = ("人名", "名" if part == "姓" else "姓")
    gap = _NAME_GAP_RE.match(after if part == "姓" else before[::-1]).group()
    words = [m for m in tokenizer.tokenize(term + after if part == "姓" else before + term) if m.surface().strip()]
    if part == "名":
        words = words[::-1]
    if len(words) < 2 or words[0].surface() != term or dictionary.pos_of(words[1].part_of_speech_id())[2:4] != want:
        return ""
    other = words[1].surface()
    if any(dictionary.pos_of(m.part_of_speech_id())[2] in ("副詞可能", "数詞") for m in tokenizer.tokenize(other)):
        return ""  # 夏美|一人: a count, not a name
    rest = gap + other if part == "姓" else other + gap
    if not (after.startswith(rest) if part == "姓" else before.endswith(rest)):
        return ""  # (not across lines)
    following = after[len(rest):] if part == "姓" else after
    if gap and following[:1] and not _NAME_END_RE.match(following):
        return ""  # `斉藤 みゆきさん！…`: a play's speaker, then whom the line is said to
    return rest


def with_ja_name(term: str, text: str) -> str:
    """A Japanese surname or given name (Sudachi's 人名) as the page writes it whole, where it does: `大場` of a
    play's cast list `大場憲一` (its speaker labels say `大場`), `凉子` of `岸凉子`: the most frequent spelling, none
    where two whole names are as frequent (two people of one surname)."""
    part = _ja_name_part(term)
    if not part:
        return term
    found = []
    for m in re.finditer(re.escape(term), text):
        before, after = text[max(0, m.start() - _NAME_PART_SPAN):m.start()], text[m.end():m.end() + _NAME_PART_SPAN]
        rest = _joined_name(term, part, before, after)
        if rest:
            found.append(term + rest if part == "姓" else rest + term)
    # a name written with a space is one where its other part is never said without it (not `夏樹 雪子。`: 夏樹,
    # a play's speaker, says 雪子's name)
    found = [f for f in found if f.isalnum() or text.count(f.replace(term, "", 1).strip(" \u3000")) == text.count(f)]
    if not found:
        return term
    ranked = sorted(set(found), key=lambda f: (-found.count(f), f))
    if len(ranked) > 1 and found.count(ranked[0]) == found.count(ranked[1]):
        return term
    return ranked[0]


def whole_name(term: str, text: str) -> str:
    """A name cut short as the page writes it whole: with its initials (with_initials), its first name
    (with_first_name), its surname (with_surname), its given name (with_given_name), a Japanese name's other
    part (with_ja_name), or the Latin letters it is glued to (with_latin_prefix)."""
    whole = with_initials(term, text)
    if whole == term:
        whole = with_first_name(term, text)
    if whole == term:
        whole = with_surname(term, text)
    if whole == term:
        whole = with_ja_name(term, text)
    if whole == term:
        whole = with_latin_prefix(term, text)
    return with_given_name(whole, text)


_LATIN_RUN_END_RE = re.compile(r"(?<![A-Za-z0-9Ａ-Ｚａ-ｚ０-９._/-])"
                               r"[A-Za-zＡ-Ｚａ-ｚ][A-Za-z0-9Ａ-Ｚａ-ｚ０-９]{0,11}$")


def with_latin_prefix(term: str, text: str) -> str:
    """A Japanese term the page writes, every time, glued to the same Latin letters before it (`Q処理系` of `Q処理系
    パックソースコード`, `PCパーツ選抜`, `Windows8専用ドライバ`): that whole name, which the term finder cut where the
    script changed; else the term."""
    if not JA_RE.match(term):
        return term
    runs = {(m[0] if (m := _LATIN_RUN_END_RE.search(text[max(0, s - 12):s])) else "")
            for s in (f.start() for f in re.finditer(re.escape(term), text))}
    run = runs.pop() if len(runs) == 1 else ""
    return run + term if run else term


_CODE_RE = re.compile(r"[A-Z0-9Ａ-Ｚ０-９]{1,6}")


def table_code(term: str, text: str) -> bool:
    """Whether a short capital code (≤ 6 letters and digits: `FOF`, `COG5`, `ICH7R`, `AVI`) stands only in the cells
    of the page's tables, a layout table's cells included (a line that is the code alone), pictures' captions
    aside: a value of its rows (a registration, a model, a column's file type), not what the page is about."""
    if not _CODE_RE.fullmatch(term):
        return False
    lines = [line.strip() for line in (MD_IMAGE_RE.sub("", raw) for raw in text.splitlines()) if term in line]
    return bool(lines) and all(line.startswith("|") or line.strip("*_ ") == term for line in lines)


LABEL_LINES = 3  # a term alone on this many lines, and nowhere else, labels the page's parts


def label(term: str, text: str) -> bool:
    """Whether a term is, wherever the page says it, a whole line of its own, on LABEL_LINES lines or more: the
    speaker of each turn of a chat or an interview, a form's field, not what the page is about."""
    lines = [line.strip(" \t*_#>-|") for line in text.splitlines() if term in line]
    return len(lines) >= LABEL_LINES and all(line == term for line in lines)


def common_label(term: str, text: str) -> bool:
    """Whether an English phrase of two common words (each at least EN_COMMON_PHRASE_ZIPF: `Team Member`,
    `Blood Type`) is, wherever the page says it, a label: a line of its own (`Team Captain.`), a table's cell, or the
    words before a colon. In a sentence such words may be a name (`South Africa`, `Google Play`)."""
    words = term.split()
    if len(words) != 2 or not all(w.isalpha() for w in words) \
            or min(general_zipf(w) for w in words) < EN_COMMON_PHRASE_ZIPF:
        return False
    said = re.compile(rf"(?:^|\|)[\s*_#>-]*{re.escape(term)}[\s*_]*(?:\.?$|\||[:：])")
    lines = [line.strip() for line in text.splitlines() if term in line]
    return bool(lines) and all(line.count(term) == len(said.findall(line)) for line in lines)


def _cut_at_abbreviation(term: str, text: str) -> bool:
    """Whether an English phrase ends, wherever the page writes it, in an abbreviated title and a full stop
    (Mr., Gen., Bro.): the name that follows was cut off (`Kyoto Univ.`, `Printing Co.` end a name and stay)."""
    if not _TITLE_BEFORE_NAME_RE.fullmatch(term.rsplit(" ", 1)[-1]):
        return False
    after = [text[m.end():m.end() + 1] for m in re.finditer(rf"(?<![\w’']){re.escape(term)}(?![\w’'])", text)]
    return bool(after) and all(a == "." for a in after)


def weak_name(name: str, in_subject: bool = True) -> str:
    """Why a whole name (a title's, a heading's, a quoted one) is no tag, or '': a sentence, a file name or an
    address outside the title and headings, a repeated word, a typo (tagterms.misspelt), a
    Japanese phrase about something (ja_phrase_kind; `in_subject`: the name is in the page's title or headings), an
    English phrase that is no name (`Gyrobot finished Mk I`, `Lathe area - Machining Workshop`)."""
    if _SENTENCE_PUNCT_RE.search(name.rstrip(".")):
        return "sentence"
    if not in_subject and _ADDRESS_RE.search(name):
        return "address"  # a link's label that is a file, a path or an address: wmpChrome.crx, ezweb.ne.jp
    words = name.split()
    if len(words) != len({w.casefold() for w in words}):
        return "repeated"
    if typo(name):
        return "typo"  # `Mster Solo Performance`
    if JA_RE.search(name) and (phrase := ja_phrase_kind(name, in_subject, name=True)):
        return phrase  # VSTインスツルメントの設定: a manual's step, whole or not
    return _weak_english_phrase(words, 3, True) if len(words) > 1 and name.isascii() else ""


def _weak_japanese(term: str, tf: int, in_subject: bool, built_on: int = 0, in_title: bool = False,
                   named: bool = False) -> str:
    if _ja_verb(term):
        return "verb"  # 越え of `80℃越えでも動作する`: a word of a sentence, however often said
    if _QUESTION_COUNT_RE.search(term):
        return "question"  # クリック何回 of `クリック何回まで出来るでしょうか`: a question's words
    if phrase := ja_phrase_kind(term, in_subject):
        return phrase
    parts = ja_parts(term)
    if len(parts) == 2 and tf < COMPOUND_TF + 1 and min(general_zipf(p) for p, _ in parts) >= EN_COMMON_ZIPF \
            and not in_subject:
        return "common compound"  # 日本映画, 米国サイト: a country's common thing, not a name
    if any(proper for _, proper in parts) or not parts or "・" in term:
        return ""  # a name: a proper noun, katakana words joined by ・
    if len(parts) == 1 and general_zipf(term) >= VERY_COMMON_ZIPF:
        return "common word"  # 開発, 情報, 写真: any page's word, even in its title
    if in_subject:  # a common word of the title said nowhere else (セッティング) is no more the subject than 方法,
        single = len(parts) == 1  # nor one of a heading said once or twice (分布, 演習: a part's word)
        if single and not named and built_on < 2 and general_zipf(term) >= COMMON_PART_ZIPF:
            return "common word"  # 接続 of `AとBの接続`, 楽譜 of `pdfの楽譜からSMFを生成する…`: what a title or a
            # heading says about its subject, in any page's words; a work's name (`青空`), one of the things the
            # title lists, or a word the page builds on stays
        common = EN_COMMON_ZIPF if in_title else COMMON_PART_ZIPF
        return "common word" if single and ((tf < SUBJECT_TF and general_zipf(term) >= common)
                                            or (tf < 2 and general_zipf(term) >= RARE_ZIPF)) else ""
    if _KATAKANA_RE.match(fold(term)) and (len(fold(term)) <= 2 or fold(term)[0] in _NO_WORD_START) \
            and tf < DOMINANT_TF:
        return "katakana piece"  # ント, ポイ of `ポイ ント` cut by a line break
    if len(parts) == 1:  # a word of the language, however rare, is a field's word (レジストリ, プロパティ, 戻り値)
        if unknown_word(term):
            return ""  # a word the dictionary lacks: a name, a species, a brand
        subject = built_on >= 2 and tf >= SUBJECT_TF and general_zipf(term) < EN_COMMON_ZIPF \
            and term not in _FOLLOWING_NOUNS  # (方面 of 京都駅方面, 四条河原町方面: which way, to anywhere)
        return "" if subject else "common word"  # unless the page keeps building on it: スキー, スキー場, スキー教室
    zipfs = [general_zipf(p) for p, _ in parts]
    if (len(parts) == 2 and tf < COMPOUND_TF + (min(zipfs) >= EN_COMMON_ZIPF) and min(zipfs) >= COMMON_PART_ZIPF
            and _KANJI_RE.search(term)):  # (two loanwords make a thing's name: ジャイロセンサー, ロボットコンテスト)
        return "common compound"
    return ""


def _weak_english_word(term: str, tf: int, in_subject: bool, in_title: bool = False) -> str:
    if _POSSESSIVE_RE.search(term):
        return "possessive"  # `Husband’s`: the first half of a phrase, in a heading or not
    zipf = general_zipf(term)
    if zipf >= (NAME_COMMON_ZIPF if term[:1].isupper() else VERY_COMMON_ZIPF) and not term.isupper():
        return "common word"  # (a place's name is as common as many words: London 5.3, Paris 4.8)
    if in_subject:
        if term == term.lower() and tf < 2:
            return "lowercase word"  # `manipulate` of the title, not said again
        common = COMMON_PART_ZIPF if term == term.lower() and not in_title else EN_COMMON_ZIPF  # (an entry's
        return "common word" if tf < SUBJECT_TF and zipf >= common else ""  # `spider`, `penny`; names stay)
    if _DOMAIN_RE.match(term):
        return ""  # a domain name: ezweb.ne.jp
    if term == term.lower():
        return "lowercase word"  # tons, vestibule, fmflags: a word of a sentence or of code
    if _VERB_FORM_RE.search(term) and term[1:].islower() and (not term.endswith("ing") or zipf >= COMMON_PART_ZIPF):
        return "verb or adverb"  # `Validated`, `Affectionally`, `Putting`: a word that starts a sentence
    if term.isupper():
        return ""  # an acronym: CNC, LTE, MMS
    # a word of another language quoted (`Empereur`), not a name the page keeps using (`Bude`, a German word too)
    return "foreign word" if (tf < DOMINANT_TF or len(term) < 4) and foreign_word(term) else ""


FOREIGN_MARGIN = 1.5  # Zipf points a word is commoner in French, German, Spanish or Italian than in English


def foreign_word(word: str) -> bool:
    """A word of another European language quoted in the text (`Empereur`, `Centimes`, `Pfennig`), by wordfreq:
    at least FOREIGN_MARGIN more frequent in one of them than in English, and not rare there (Zipf ≥ 3). A name
    common to them (Paris, Pierre, Helene) is near its English frequency and stays."""
    try:
        from wordfreq import zipf_frequency
    except ImportError:
        return False
    other = max(zipf_frequency(word, lang) for lang in ("fr", "de", "es", "it"))
    return other >= 3.0 and other >= zipf_frequency(word, "en") + FOREIGN_MARGIN


def _always_abbreviated(word: str, text: str) -> bool:
    """Whether `word` is always followed by a full stop and a figure (`Con. 359`, `Con. +1%`): a table's label."""
    found = re.findall(rf"(?<![\w’']){re.escape(word)}(?![\w’'])(\. ?[\d+\-–]?)", text)
    return len(found) >= 2 and all(len(after.replace(" ", "")) == 2 for after in found) and \
        len(found) == len(re.findall(rf"(?<![\w’']){re.escape(word)}(?![\w’'])", text))


def _adjectival(term: str, text: str) -> bool:
    """Whether a Japanese term ends in a noun that can be an adjective (暇, 贅沢, 便利: Sudachi's 形状詞可能) and
    the page writes it before な every time: a description (多趣味暇な, 贅沢な), not a name."""
    units = ja_morphemes(term)
    if not units or units[-1][1][2] != "形状詞可能":
        return False
    after = [text[m.end():m.end() + 1] for m in re.finditer(re.escape(term), text)]
    return bool(after) and all(a == "な" for a in after)


def _lone_common_noun(term: str) -> bool:
    """A single common noun (one Sudachi word, no proper noun), not a rare katakana word."""
    parts = ja_parts(term)
    return (len(parts) == 1 and not parts[0][1] and "・" not in term
            and not (_KATAKANA_RE.match(fold(term)) and general_zipf(term) < RARE_ZIPF))


def _join_neighbours(term: str, text: str) -> set[str]:
    """The kanji or katakana written right after or before `term` where it is part of a compound (スキー場,
    スキー教室 -> 場, 教): the compounds the page builds on it."""
    out = set()
    for m in re.finditer(re.escape(term), text):
        for ch in (text[m.end():m.end() + 1], text[max(0, m.start() - 1):m.start()]):
            if ch and _JOIN_CHARS_RE.match(ch) and not ch.isascii():
                out.add(ch)
    return out


def _only_sentence_initial(word: str, text: str) -> bool:
    """Whether every occurrence of `word` begins a sentence or a line (where any word is capitalised)."""
    seen = False
    for m in re.finditer(rf"(?<![\w’']){re.escape(word)}(?![\w’'])", text):
        seen = True
        before = text[max(0, m.start() - 4):m.start()].rstrip(" *_\"“‘'(")
        if before and not before.endswith(("\n", ".", "!", "?", ":", "|", "#", "-", "—")):
            return False
    return seen


def fragment(term: str, text: str) -> bool:
    """Whether on this page `term` is always part of the same longer sequence: the same letter, kanji or katakana
    right before (or after) every occurrence (南浜 of 南浜田, 湖畔 of 湖畔の宿 twice), the same capitalised word
    before or after (Tribes of Ten Tribes, Mary’s Church of St. Mary’s Church)."""
    if JA_RE.search(term):  # a katakana word wrapped inside a table's cell (`パスワー<br>ド`) is one word
        text = _WRAPPED_KATAKANA_RE.sub("", text)
    spots = [m.span() for m in re.finditer(re.escape(term), text)]
    if not spots:
        return False
    if JA_RE.search(term):
        return _ja_fragment(term, text, spots)
    return _shouted_fragment(term, text, spots) or _titled_fragment(term, text, spots) or _en_fragment(text, spots)


_WRAPPED_KATAKANA_RE = re.compile(r"(?<=[ァ-ヺー])<br\s*/?>(?=[ァ-ヺー])", re.IGNORECASE)
_EMPHASIS_SPAN_RE = re.compile(r"(?<![*\w])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![*\w])|"
                               r"(?<![_\w])_(?!\s)([^_\n]+?)(?<!\s)_(?![_\w])")  # *a title*, _a title_


_ARTICLE_RE = re.compile(r"^(?:The|A|An)\s+")


def _titled_fragment(term: str, text: str, spots: list[tuple[int, int]]) -> bool:
    """Each time inside the same longer span in italics: a piece of a work's title (`Divine Key`, `Financial
    Prosperity` of `*The Divine Key to Financial Prosperity*`, `Popular Music` of `*Directory of Popular
    Music*`), cut where the term finder stops at a small word."""
    spans = [(m.start(), m.end(), (m.group(1) or m.group(2)).strip()) for m in _EMPHASIS_SPAN_RE.finditer(text)]
    inside = set()
    for s, e in spots:
        span = next((title for a, b, title in spans if a < s and e < b), None)
        if span is None or _ARTICLE_RE.sub("", span).casefold() == term.casefold():  # (*The Plain Truth*)
            return False
        inside.add(span.casefold())
    return len(inside) == 1


_CAPS_WORD_BEFORE_RE = re.compile(r"(?:^|[ \t])[A-Z][A-Z’']*[ \t]$")
_CAPS_WORD_AFTER_RE = re.compile(r"^[ \t][A-Z][A-Z’']*(?:[ \t]|$)")


def _shouted_fragment(term: str, text: str, spots: list[tuple[int, int]]) -> bool:
    """A phrase in capitals each time next to another word in capitals, small ones included (`LOVE OF GOD` of `THE
    LOVE OF GOD FOR HIS PEOPLE`, `UNFAITHFUL WIFE` of `HOSEA MARRIES AN UNFAITHFUL WIFE`): a piece of a heading
    written in capitals, cut where the term finder stops at a small word."""
    if " " not in term or not term.isupper():
        return False
    return all(_CAPS_WORD_BEFORE_RE.search(text[max(0, s - 20):s]) or _CAPS_WORD_AFTER_RE.match(text[e:e + 20])
               for s, e in spots)


def _ja_fragment(term: str, text: str, spots: list[tuple[int, int]]) -> bool:
    nexts = [nxt for _, e in spots if (nxt := text[e:e + 3].lstrip(" \u3000\n")[:1])]
    if nexts and all(nxt in _NO_WORD_START for nxt in nexts):
        return True  # ネットニ of `ネットニ ュース`, wrapped by a space: no word starts with ュ
    for side in (0, 1):
        near = {text[s - 1] if side == 0 and s > 0 else text[e] if side == 1 and e < len(text) else ""
                for s, e in spots}
        if len(near) == 1 and (only := near.pop()):
            if side == 0 and only.isdigit() and term[0] in _COUNTERS:
                return True  # 年度卒業論文概要 of `1994年度卒業論文概要`: a number's counter, cut from its number
            if _JOIN_CHARS_RE.match(only) and not only.isascii() and not (side == 1 and only in _SUFFIXES
                                                                          and not _one_name(term)):
                return True  # (a name with a suffix each time is a longer name's piece: 太東 of 太東中, a school)
            if side == 0 and only.isascii() and only.isalnum() and len(spots) >= 2 \
                    and len({_ASCII_RUN_END_RE.search(text[max(0, s - 20):s]).group() for s, _ in spots}) == 1:
                return True  # インスツルメント of VSTインスツルメント, カードスロット of SDカードスロット each time
            if only in "のノヶ" and len(spots) >= 2:  # 湖畔の宿 each time
                nxt = {text[e + 1:e + 2] if side == 1 else text[max(0, s - 2):s - 1] for s, e in spots}
                if len(nxt) == 1 and _JOIN_CHARS_RE.match(nxt.pop() or " "):
                    return True
    return False


_ASCII_RUN_END_RE = re.compile(r"[A-Za-z0-9]+$")
_SUFFIXES = "中上下等用的後前内"  # after a word, no longer word: 作業中, 机上, 以上; after a name, part of it (太東中)


def _one_name(term: str) -> bool:
    """Whether a Japanese term is one proper noun (a place's, a person's, a school's name: 太東, 船橋)."""
    parts = ja_parts(term)
    return len(parts) == 1 and parts[0][1]


_COUNTERS = frozenset("年月日度回号期代時分秒歳才人件個枚本部章巻話号階番")  # what a number counts: 1994年度, 第3回
_EN_NEAR_RE = re.compile(r"[\w’'.-]+")
# an institution named by what it is of (`Department of Social Informatics`, `Chinese Academy of Sciences`): the
# field after `of` is the institution's name cut, not a subject of its own
_NAME_OF_RE = re.compile(r"\b(?:Department|Dept\.?|Faculty|School|Institute|University|College|Academy|Society|"
                         r"Ministry|Museum|Laboratory|Laboratories|Lab|Centre|Center|Division|Bureau|Agency|Council|"
                         r"Association|Federation|Board|Office|Church|Bank) of (?:the )?$")
_VERSION_OR_DOT_NAME_RE = re.compile(r"^(?:\d+(?:\.\d+)+[a-z]?|[vV]\d[\w.]*|\.[A-Z]\w*)$")  # 1.1, v2, .NET (not
# a count or a number: `77 Air Raids`, `#1 Science Hall`)


def _in_identifier(text: str, start: int, end: int) -> bool:
    """Whether a word at text[start:end] is glued into a file's name or a program's identifier:
    `~/.PfaEdit/Encodings.ps`, `FONTFORGE$PLUGINS`, `my_module` (not a name with a slash: `Acorn RISC/OS`)."""
    before, after = text[start - 1:start] if start else "", text[end:end + 2]
    return before in ("$", "_") or after[:1] in ("$", "_") or bool(re.fullmatch(r"\.[a-z0-9]", after))


def _en_fragment(text: str, spots: list[tuple[int, int]]) -> bool:
    if all(_in_identifier(text, s, e) for s, e in spots):
        return True  # `Encodings` of `~/.PfaEdit/Encodings.ps`, `PLUGINS` of `FONTFORGE$PLUGINS`: code, no tag
    befores, afters = set(), set()
    cut = owned = 0  # spots cut inside a dotted abbreviation (`Ph` of Ph.D.); after `<Name> of` (Department of …)
    for s, e in spots:
        if (s > 0 and (text[s - 1].isalnum() or text[s - 1] in "’'")) or (e < len(text) and text[e].isalnum()):
            continue  # inside a longer word: not this term here (counted by the tokens, not by find)
        head = text[max(0, s - 40):s]
        cut += text[e:e + 1] == "." and text[e + 1:e + 2].isupper()  # (not a file's extension: `….cidmap`)
        owned += bool(_NAME_OF_RE.search(head))
        prev = re.search(r"([\w’'.-]+) $", head)
        tail = re.match(r" ([\w’'-]+)", text[e:e + 40])
        starts = prev is not None and re.search(r"(?:^|[.!?:|#*\n]\s*)$", head[:prev.start()].rstrip("[(“\"‘'"))
        befores.add(prev.group(1) + ("\x00" if starts else "") if prev else "")
        afters.add(tail.group(1) if tail else "")
    if cut == len(spots) or owned == len(spots):
        return True  # `Researcher Ph` of `Researcher Ph.D.`; `Social Informatics` of `Department of Social …`
    # each time after the same version number or dotted name (`Language Pack` after `1.1`, `Framework Runtime`
    # after `.NET` in `.NET Framework Runtime 1.1 Language Pack`): a piece of that name
    versions = {word.rstrip("\x00") for word in befores}
    if len(spots) >= 2 and len(versions) == 1 and _VERSION_OR_DOT_NAME_RE.match(versions.pop()):
        return True
    for near, is_before in ((befores, True), (afters, False)):
        if len(near) != 1:
            continue
        word = next(iter(near))
        if not word or not word[:1].isupper() or word.lower() in _SMALL_WORDS:
            continue
        if is_before and _TITLE_ABBR_RE.match(word):
            return True  # St. Mary’s Church
        if word.endswith("\x00"):
            continue  # the word before begins a sentence (`Contact Steve Wood`): no part of the name
        if not is_before and len(spots) < 2 and general_zipf(word.rstrip(".")) >= EN_COMMON_ZIPF:
            continue  # once, followed by a common word (`Steve Wood Email`): no evidence of a longer name
        if is_before and word.endswith(".") and not _TITLE_ABBR_RE.match(word):
            continue  # a sentence ends there
        return True
    return False
