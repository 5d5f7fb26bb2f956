"""A page's own distinctive words: candidate terms (Japanese nouns by Sudachi, English noun phrases by
stopwords), scored TF-IDF-like against the other pages of the same site.

Japanese: Sudachi (mode C) nouns — proper nouns and common nouns, not numbers, counters or adverb-like nouns
(今日, ため) — with 2–3 consecutive nouns joined into one compound (京都 デジタル シティ → 京都デジタルシティ).
English: maximal runs of 1–3 words none of which is a stopword ("Digital City Kyoto", "robot"); longer runs
give their single words. Markdown links count by their labels; URLs, code, markup, numbers, dates, single
letters or kana are never terms.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from siterag.enrich.tagclass import (
    MAX_CONFIDENT,
    NOTE_WORDS,
    RELATIVE_SCORE,
    _mode_c,
    fold,
    fragment,
    in_subject,
    title_listed,
    weak_in_text,
    weak_name,
    weak_term,
)
from siterag.enrich.tagterms import JA_RE, general_weight, generic_term

_MD_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_LINK_RE = re.compile(r"(?<!!)\[[^\]]*\]\(")
_FENCE_RE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
# A file's extension: a path or file name is no word of the page (`audio/04_fait_accompli/01.mp3`).
_FILE_EXT = (r"(?:s?html?|jpe?g|gif|png|bmp|cgi|php|asp|mp3|mp4|wma|wav|midi?|mov|avi|flv|swf|pdf|zip|lzh|txt|exe"
             r"|js|css)")
_URL_RE = re.compile(rf"(?:https?|ftp|mailto):\S+|www\.\S+|[\w.+-]+@[\w-]+\.[\w.-]+|\S+\.{_FILE_EXT}\b",
                     re.IGNORECASE)
# Where _URL_RE can match: every match lies inside one whitespace-free run holding one of these, so runs without
# are skipped (_URL_RE alone is quadratic on a long run: Japanese text has no spaces).
_URL_RUN_RE = re.compile(rf"(?<!\S)\S*?(?::|@|www\.|\.{_FILE_EXT}\b)\S*", re.IGNORECASE)
_MARKUP_RE = re.compile(r"</?[A-Za-z][^>\n]*>|&[a-z]+;|[*#|>`\\_~=\[\]{}()<]")
_LATIN = "A-Za-zÀ-ÖØ-öø-ÿ"  # (Nadège, Zürich: an accented letter is no word's end)
_EN_WORD = (rf"(?:(?:St|Mt)\.(?= [A-Z])|[{_LATIN}0-9]*[{_LATIN}][{_LATIN}0-9]*(?:['’-][{_LATIN}0-9]+)*)")  # St. Mary’s
_EN_RUN_RE = re.compile(rf"(?<![\w.])(?:{_EN_WORD})(?: {_EN_WORD})*")
_ALNUM_RE = re.compile(r"[A-Za-z0-9]")
_HIRAGANA_RE = re.compile(r"^[\u3040-\u309f]+$")
_NUMBERISH_RE = re.compile(r"^[\d０-９.,:/\-年月日時分秒]+$")
_KANA_ROW_RE = re.compile(r"^[あかさたなはまやらわアカサタナハマヤラワ]行$")  # an index's row headings: あ行, か行
_PAST_RE = re.compile(r"[^e]ed$")
_POSSESSIVE_RE = re.compile(r"(?<=\w)['’]s$")
_ADJECTIVE_RE = re.compile(r"..(?:able|ible|ous|ful)$")  # removable, useable, famous: what a thing is like, no topic
_SURU = frozenset("し さ す する せ すれ しろ せよ".split())  # する as it follows a verbal noun (開始した)
_SUDACHI_CHUNK = 12_000  # characters per call: Sudachi refuses inputs over 49,149 bytes
_MAX_COMPOUND = 4  # nouns joined into one term
_MAX_TERM_CHARS = 16
# Japanese nouns that say nothing about a page (formal nouns, vague words); pronouns are not nouns in Sudachi.
JA_STOP = frozenset("""こと もの ため よう ところ とき ほう わけ はず まま うち ほか など
方 事 物 時 中 上 下 前 後 他 等 場合 感じ 気 人 皆 みんな 自分
本当 以上 以下 一部 全部 部分 関係 内容 情報 ページ ホームページ
サイト トップ 更新 最終更新 リンク 戻る 次 前へ 次へ 目次 メニュー
一覧 お知らせ 今回 次回 前回 最近 以前 以後 問題 方法 理由 結果 必要
可能 大丈夫 ん そう ここ そこ あそこ これ それ あれ どれ 何 なに 的
化 性 用 者 さん 様 ちゃん くん 君 氏 年 月 日 頃 画像 クリック
ダウンロード メール 掲示板 カウンター ゲストブック
Eメール 電子メール 申込書 申込み 申し込み 申込 問い合わせ 問合せ 連絡先 送信 受付 注意 詳細 案内
管理人 管理者 転載 無断転載 転送 訂正 印刷用 トップページ メール送信 相互リンク リンクフリー
メールアドレス 工事中 準備中 作成中 作業中 調べ中""".split()) | NOTE_WORDS
EN_STOP = frozenset("""a about above across after again against all almost along already also although always am
among an and another any anyone anything are around as at back be became because become been before being below
between both but by can cannot could did do does doing done down during each either else enough etc even ever every
few for from further get gets getting give given go goes going gone got had has have having he her here hers herself
him himself his how however i if in into is it its itself just keep last least less let like made make makes many
may me might more most much must my myself need never new next no nor not now of off often old on once one only or
other others our ours ourselves out over own per please put quite rather really said same say says see seem seems
several shall she should show shown since so some something still such take than that the their theirs them
themselves then there these they thing things this those though through thus to too under until up upon us use used
uses using very via was way we well were what whatever when where whether which while who whom whose why will with
within without would yes yet you your yours yourself yourselves click here home page top back next previous prev
link links menu site website web copyright reserved rights contact email mail update updated last index welcome
html http https www com net org jan feb mar apr may jun jul aug sep sept oct nov dec january february march april
june july august september october november december monday tuesday wednesday thursday friday saturday sunday
mon tue tues wed thu thur thurs fri gmt utc today
yesterday tomorrow year years month months day days time times first second third two three four five six seven
eight nine ten hundred thousand lot lots good great best better many much little big small large part parts include
includes including included following follows follow example see shows number numbers set sets each kind kinds
figure figures fig table tables chapter chapters section sections
write writes wrote written come comes came take takes took taken find finds found know knows knew known think
thinks thought tell tells told bring brings brought buy bought begin began begun leave leaves left feel felt hold
held stand stood run ran sit sat meet met pay paid send sent spend spent lose lost win won hear heard read let
put cut try tried want wants look looks help helps start starts work works call calls ask asks mean means seen
saw went sure able true false full sorry thanks thank hope anyone everyone someone nothing everything around
fig figs fax tel phone pdf ps doc ppt zip lzh kb mb gb pp vol ed eds ibid cf
somewhere anywhere everywhere nowhere soon info name names it's that's there's here's what's let's i'm i've i'd
i'll you're you've we're we've they're they've he's she's don't doesn't didn't can't couldn't won't wouldn't isn't
aren't wasn't weren't haven't hasn't shouldn't webmaster thy thee thou thine unto ye hath doth
ctrl alt shift enter esc del backspace guestbook
mammy mam mummy mum mom mommy daddy dad papa mama granny grannie gran granma grandma grandmother grandpa grandad
granddad grandfather nana nanna
""".split())
# (The last lines: reference and contact abbreviations, file kinds — a paper list's "Fig", "pdf", "Fax" —, vague
# words and contractions: "somewhere", "it's paces"; what a family calls its own: "Mammy", "Grannie".)


@lru_cache(maxsize=1)
def _dictionary():  # noqa: ANN202 - a sudachipy Dictionary
    from sudachipy import Dictionary

    return Dictionary()  # sudachidict_core


_local = threading.local()


def _tokenizer():  # noqa: ANN202 - (Dictionary, Tokenizer)
    """The dictionary and this thread's tokenizer (a Sudachi tokenizer refuses concurrent calls)."""
    if not hasattr(_local, "tokenizer"):
        from sudachipy import SplitMode

        _local.tokenizer = _dictionary().tokenizer(mode=SplitMode.C, fields={"pos"})  # surface + POS only: faster
    return _dictionary(), _local.tokenizer


def short_tokenizer():  # noqa: ANN201 - a sudachipy Tokenizer
    """This thread's Sudachi tokenizer in mode A (short units: 実用性 -> 実用 + 性)."""
    if not hasattr(_local, "short"):
        from sudachipy import SplitMode

        _local.short = _dictionary().tokenizer(mode=SplitMode.A, fields={"pos"})
    return _local.short


@lru_cache(maxsize=4096)
def _pos_kind(pos_id: int) -> str:
    """'noun' for a noun that can name a topic (proper or common, not a number, counter like 年 or 回, or
    adverb-like noun like 今日 or ため), 'verbal' for such a noun that takes する (開始, 参加), 'verb' for a verb,
    else ''."""
    pos = _dictionary().pos_of(pos_id)
    if pos[0] == "動詞":
        return "verb"
    if pos[0] == "名詞" and (pos[1] == "固有名詞"
                             or (pos[1] == "普通名詞" and pos[2] not in ("副詞可能", "助数詞可能"))):
        return "verbal" if pos[2].startswith("サ変") else "noun"
    return ""


@lru_cache(maxsize=4096)
def _is_surname(pos_id: int) -> bool:
    pos = _dictionary().pos_of(pos_id)
    return pos[2] == "人名" and pos[3] == "姓"


@lru_cache(maxsize=4096)
def _is_proper(pos_id: int) -> bool:
    return _dictionary().pos_of(pos_id)[1] == "固有名詞"


_EN_NAME_WORD_RE = re.compile(r"[A-Z][a-z]+(?:[-'’][A-Z]?[a-z]+)?|[A-Z]\.")
NAME_SURNAME_ZIPF = 3.5  # the last word of an English person's name at most this common (Scerri, not Science)


def person_name(text: str) -> bool:
    """Whether a short line is a person's name alone: Japanese written as a surname and a given name (Sudachi's
    人名: `石田 亨`, `斉藤俊雄`), English as two to four capitalised words whose last is a rare word, no function
    word (`Paul Scerri`, `Jun-ichi Akahani`; not `Kyoto University`, `The Team`)."""
    text = " ".join(text.split())
    if not text or len(text) > 40:
        return False
    if JA_RE.search(text):
        dictionary, tokenizer = _tokenizer()
        words = [m for m in tokenizer.tokenize(text.replace(" ", "")) if m.surface().strip()]
        return 2 <= len(words) <= 3 and _is_surname(words[0].part_of_speech_id()) and all(
            dictionary.pos_of(m.part_of_speech_id())[2] == "人名" for m in words)
    words = text.split()
    if not 2 <= len(words) <= 4 or not all(_EN_NAME_WORD_RE.fullmatch(w) for w in words):
        return False
    zipf = english_zipf(words[-1].lower())
    return zipf is not None and zipf < NAME_SURNAME_ZIPF and not any(w.lower() in EN_STOP for w in words)


def analysis_text(markdown: str) -> str:
    """The words of a Markdown body: links and images by their labels, without code, URLs, markup and lines
    that are nothing but links (menus)."""
    text = _FENCE_RE.sub("\n", markdown)
    text = "\n".join(line for line in text.splitlines() if not code_line(line) and (not _LINK_RE.search(line)
                     or any(map(str.isalpha, _MD_LINK_RE.sub("", line)))))
    text = _MD_LINK_RE.sub(r"\n\1\n", _MD_LINK_RE.sub(r"\n\1\n", text))  # a linked image: `[![](a.gif)](b.mp3)`
    text = _URL_RUN_RE.sub(lambda run: _URL_RE.sub("\n", run.group()), text)
    return _MARKUP_RE.sub("\n", text)


# What only program text is made of: statements ended by `;`, braces, variables ($key, @err, %in), operators.
_CODE_MARKS = (re.compile(r";(?:\s|$)"), re.compile(r"[{}]"), re.compile(r"(?<![\w$])[$@%][A-Za-z_{]"),
               re.compile(r"==|!=|=~|->|=>|&&|\|\||\+\+|::"))


CODE_SPACING = 40  # a code mark at least every this many characters: prose with a snippet in it stays prose


def code_line(line: str) -> bool:
    """Whether a line is program text (a script shown as a page, a snippet): it holds three kinds of code marks
    (statement ends, braces, variables, operators), one of them at least three times, and a mark at least every
    CODE_SPACING characters. A sports table's `P31; W5; L18` (one kind), a formula (`A=1, B=2`) or prose quoting a
    snippet is none."""
    line = _MD_LINK_RE.sub(r"\1", line)
    counts = [len(mark.findall(line)) for mark in _CODE_MARKS]
    return sum(1 for c in counts if c) >= 3 and max(counts) >= 3 and sum(counts) * CODE_SPACING >= len(line)


def without_code(markdown: str) -> str:
    """`markdown` without its lines of program text (code_line): no sentence of the page's, no summary's line."""
    return "\n".join(line for line in markdown.split("\n") if not code_line(line))


def _chunks(text: str, size: int = _SUDACHI_CHUNK) -> list[str]:
    """Pieces of at most `size` characters, cut at line ends where possible."""
    out = []
    while len(text) > size:
        cut = text.rfind("\n", 0, size)
        cut = cut + 1 if cut > 0 else size
        out.append(text[:cut])
        text = text[cut:]
    return [*out, text] if text else out


@lru_cache(maxsize=65536)
def _keep_term(term: str) -> bool:
    return (len(term) >= 2 and len(term) <= _MAX_TERM_CHARS and unicodedata.normalize("NFKC", term) not in JA_STOP
            and not _NUMBERISH_RE.match(term) and not (_HIRAGANA_RE.match(term) and len(term) <= 2)
            and not _KANA_ROW_RE.match(term) and not _HONORIFIC_RE.match(term))


# A polite verbal noun (ご覧, ご利用, ご連絡, 御覧): what a page asks its reader to do, never its subject.
_HONORIFIC_RE = re.compile(r"^[ご御][\u4e00-\u9fff]{1,2}$")


_KATAKANA_RE = re.compile(r"[ァ-ヺー]+")


def japanese_terms(text: str, parts: dict[str, tuple[str, ...]] | None = None) -> list[str]:
    """Japanese noun terms in order of occurrence: runs of 2-4 consecutive nouns as one compound, else single
    nouns; katakana words joined by ・ are one (a foreign name or title: カルチュラル・スタディーズ); a verbal noun
    used as a verb (開始 in 開始した) is no term. Tokens with ASCII letters or digits break runs (the English pass
    takes them); a surname, a space and a name are one (田中 智子). `parts`, when given, gets each compound's
    nouns (京都デジタルシティ -> 京都, デジタル, シティ)."""
    if not JA_RE.search(text):
        return []
    _, tokenizer = _tokenizer()
    terms: list[str] = []

    def flush(run: list[str]) -> None:
        if len(run) == 1:
            if _keep_term(run[0]):
                terms.append(run[0])
        elif len(run) <= _MAX_COMPOUND and _keep_term("".join(run)):
            terms.append("".join(run))
            if parts is not None:
                parts["".join(run)] = tuple(run)
        else:
            terms.extend(t for t in run if _keep_term(t))

    for chunk in _chunks(_without_ascii_lines(text)):
        run: list[str] = []
        last_verbal = last_surname = False
        joining = False  # a ・ right after a katakana noun: a name in parts (ダンサー・イン・ザ・ダーク)
        space = ""  # a space right after a surname: a person's name in two parts (田中 智子)
        for m in tokenizer.tokenize(chunk):
            pos_id = m.part_of_speech_id()
            kind = _pos_kind(pos_id)
            surface = m.surface()
            if space:
                if _is_proper(pos_id) and not _ALNUM_RE.search(surface):
                    run[-1] += space + surface  # one word of the run, written as the page writes it
                    space, last_surname = "", False
                    continue
                space = ""
                flush(run)  # the space ends the run (田中 先生 is no compound)
                run = []
            if last_surname and len(run) == 1 and surface in (" ", "\u3000"):
                space = surface
                continue
            last_surname = kind == "noun" and _is_surname(pos_id)
            if surface == "・" and run and _KATAKANA_RE.fullmatch(run[-1].rpartition("・")[2]):
                joining = True
                continue
            if joining:
                joining = False
                if kind in ("noun", "verbal") and _KATAKANA_RE.fullmatch(surface):
                    run[-1] += "・" + surface  # one word of the run: the whole name is one term
                    last_verbal = False
                    continue
            if kind == "noun" or kind == "verbal":
                if not _ALNUM_RE.search(surface):
                    run.append(surface)
                    last_verbal = kind == "verbal"
                    continue
            if run and last_verbal and kind == "verb" and m.surface() in _SURU:
                run.pop()  # 開始 + した: a verb here, not a topic
            if run:
                flush(run)
                run = []
            last_verbal = False
        if run:
            flush(run)
    return terms


def _without_ascii_lines(text: str) -> str:
    """`text` with its ASCII-only lines emptied: they hold no Japanese term (their tokens are words with letters or
    digits, which break runs, or symbols, never nouns) and Sudachi reads a line as it would alone."""
    return "\n".join("" if line.isascii() else line for line in text.split("\n"))


def english_terms(text: str) -> list[str]:
    """English noun-phrase terms in order of occurrence: maximal runs of 1-3 words inside a phrase (words
    separated by single spaces) with no stopword, adverb (-ly) or past participle (-ed) among them; a longer
    run gives its capitalised sequences of 2-4 words (Digital City Kyoto) and its other words one by one."""
    terms = []
    for match in _EN_RUN_RE.finditer(text):
        run: list[str] = []
        before = ""  # the stopword the run follows
        for word in [*_bridged(match.group().split(" ")), ""]:
            if word and (" " in word or not _en_stop(word)):
                if not run and before in _VERB_CUES and word.islower():
                    before = ""
                    continue  # "I believe", "will require": a verb after its subject or modal, no noun
                run.append(word)
                continue
            before = word.lower()
            while len(run) > 1 and run[-1].islower() and run[-1].endswith("ing"):
                run.pop()  # "programmer working": a participle, not part of the noun phrase
            for part in _case_parts(run):
                if len(part) > 3:
                    terms.extend(_split_long(part))
                elif part:
                    terms.append(" ".join(part))
            run = []
    terms = [_name_only(_POSSESSIVE_RE.sub("", t)) for t in terms]  # Peter Goodden’s -> Peter Goodden
    return [t for t in terms if (sum(map(str.isalpha, t)) >= 3 or (len(t) == 2 and t.isupper()))
            and not (t.islower() and _ADJECTIVE_RE.search(t) and " " not in t)
            and not _CONTRACTION_RE.search(t) and t.casefold() not in _ENTITY_NAMES]


_CONTRACTION_RE = re.compile(r"[’'](?:ll|re|ve|d|m)\b|n[’']t\b", re.IGNORECASE)  # you’ll, didn't: no names
_ENTITY_NAMES = frozenset("mdash ndash nbsp amp quot apos lsquo rsquo ldquo rdquo hellip copy reg trade".split())


def _name_only(term: str) -> str:
    """A capitalised name without the lower-case word the sentence goes on with (`Wells Cathedral tonight`,
    `Helen behind`): the words before it are the name."""
    words = term.split(" ")
    if len(words) >= 2 and words[-1].islower() and all(w[:1].isupper() for w in words[:-1]) \
            and words[-1] not in _BRIDGE_WORDS:
        return " ".join(words[:-1])
    return term


_BRIDGES = frozenset(("of", "de", "du", "del", "von", "van", "der", "la", "le", "of the", "de la", "von der",
                      "van der"))
_BRIDGE_WORDS = frozenset(w for b in _BRIDGES for w in b.split())


def _bridged(words: list[str]) -> list[str]:
    """Words with each name of two capitalised words joined by of / de / of the kept as one (`Lord of the Rings`,
    `HOUSE OF EDGE`, `University of Siena`): a name is not cut at its small words. Only where the two words stand
    alone (no capitalised word next to them: `Professor of Technische Universitaet` is no such name)."""
    if len(words) < 3 or not _BRIDGE_WORDS & {w.lower() for w in words}:
        return words
    out: list[str] = []
    i = 0
    while i < len(words):
        for size in (2, 1):
            j = i + size + 1  # the word after the bridge
            if j >= len(words) or " ".join(words[i + 1:j]).lower() not in _BRIDGES:
                continue
            left, bridge, right = words[i], words[i + 1:j], words[j]
            if (_name_word(left) and _name_word(right) and not (out and _name_word(out[-1]))
                    and not (j + 1 < len(words) and _name_word(words[j + 1]))
                    and all(w.islower() or (w.isupper() and left.isupper()) for w in bridge)):
                out.append(" ".join(words[i:j + 1]))
                i = j + 1
                break
        else:
            out.append(words[i])
            i += 1
    return out


def _name_word(word: str) -> bool:
    """A capitalised word that is no stopword: a word of a name."""
    return word[:1].isupper() and " " not in word and not _en_stop(word)


# Words after which a lowercase word is a verb: subject pronouns and modals.
_VERB_CUES = frozenset("i we you they he she it will would can could should may might must shall "
                       "don't doesn't didn't won't can't cannot".split())


def _en_stop(word: str) -> bool:
    lower = word.lower()
    return (lower in EN_STOP or word.isdigit() or glued_ui(lower)
            or (word.islower() and len(word) > 4 and (lower.endswith("ly") or bool(_PAST_RE.search(lower)))))


# The words of a page's buttons and menus, which old pages write run together (`Lastupdate`, `Backtotop`, `Homepage`)
_UI_WORDS = frozenset("last update updated back next prev previous top home page click here menu link links site new "
                      "go to return index".split())


@lru_cache(maxsize=65536)
def glued_ui(word: str) -> bool:
    """Whether a lowercase word is two or three of a menu's words run together (`lastupdate`, `backtotop`), not a
    name that starts with one (`newcastle`, `homewood`)."""
    if len(word) < 6 or not word.isalpha():
        return False
    return any(word[:i] in _UI_WORDS and (word[i:] in _UI_WORDS or any(
        word[i:j] in _UI_WORDS and word[j:] in _UI_WORDS for j in range(i + 2, len(word) - 1)))
        for i in range(2, len(word) - 1))


def _case_parts(run: list[str]) -> list[list[str]]:
    """A run cut where a lowercase word is followed by a capitalised one: a name starts there (`school John`);
    and around a name joined by its small words (_bridged)."""
    parts: list[list[str]] = [[]]
    for word in run:
        if parts[-1] and ((parts[-1][-1][:1].islower() and word[:1].isupper())
                          or " " in word or " " in parts[-1][-1]):  # a name joined by `of` stands alone
            parts.append([])
        parts[-1].append(word)
    return parts


def _split_long(run: list[str]) -> list[str]:
    """Capitalised sequences of 2-4 words as one term each (JSSST Special Interest Group), the other words
    alone."""
    out, caps = [], []
    for word in [*run, ""]:
        if word[:1].isupper():
            caps.append(word)
            continue
        out.extend([" ".join(caps)] if 2 <= len(caps) <= 4 else caps)
        caps = []
        if word:
            out.append(word)
    return out


def term_key(term: str) -> str:
    """What terms are counted by: case-folded (Robot = robot), same spelling otherwise."""
    return term.casefold()


@dataclass
class PageTerms:
    """A page's terms: count per key and the page's own spelling of each (its most frequent one)."""

    counts: Counter[str] = field(default_factory=Counter)
    surface: dict[str, str] = field(default_factory=dict)
    first: dict[str, int] = field(default_factory=dict)  # key -> rank of first occurrence


def page_terms(markdown: str, title: str = "") -> PageTerms:
    """Count the candidate terms of one page body (tokenises it once)."""
    text = analysis_text(markdown)
    parts: dict[str, tuple[str, ...]] = {}
    found = japanese_terms(text, parts) + english_terms(text)
    found += recurring_parts(found, parts)
    out = PageTerms()
    first_at = dict(zip(reversed(found), range(len(found) - 1, -1, -1), strict=True))  # spelling -> first rank
    best: dict[str, int] = {}  # key -> count of its most frequent spelling (the earliest on a tie)
    for term, n in Counter(found).items():  # spellings in order of first occurrence
        key = term_key(term)
        if key not in best:
            out.counts[key], out.first[key], out.surface[key], best[key] = n, first_at[term], term, n
            continue
        out.counts[key] += n
        if n > best[key]:
            out.surface[key], best[key] = term, n
    return out


def recurring_parts(found: list[str], parts: dict[str, tuple[str, ...]]) -> list[str]:
    """A noun the page keeps using inside longer terms, once more for each term it is in (スキー of スキー場,
    スキー教室 and スキー): the subject they share. A term's parts are its compound's nouns and the terms of the
    page it begins or ends with; a part counts when it is also a term of its own and in two different terms
    (鉛筆 of 鉛筆 and 鉛筆ツール is that tool's part, not the page's subject)."""
    counts = Counter(found)
    holders: dict[str, set[str]] = {}
    for term in counts:
        if not JA_RE.search(term):
            continue
        inside = {p for p in parts.get(term, ()) if _keep_term(p)}
        inside |= {term[:i] for i in range(2, len(term)) if term[:i] in counts and _word_edge(term, i)}
        inside |= {term[i:] for i in range(1, len(term) - 1) if term[i:] in counts and _word_edge(term, i)}
        for part in inside - {term}:
            holders.setdefault(part, set()).add(term)
    extra = []
    for part, terms in holders.items():
        if len(terms) >= 2 and part in counts:
            extra += [part] * sum(counts[t] for t in terms)
    return extra


def _word_edge(term: str, i: int) -> bool:
    """Whether a word can end at term[i - 1] and the next begin at term[i]: not inside a katakana word
    (イン|ターネット, スキー|ム), not before a small kana, ー or ン (…ッ|ト)."""
    left, right = term[i - 1], term[i]
    return not (_KATAKANA_RE.match(left) and _KATAKANA_RE.match(right)) and right not in _NO_WORD_START


_NO_WORD_START = frozenset("ーンんぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ")


def site_wide(df: int, docs: int) -> bool:
    """Whether a term is the site's rather than the page's: on more than half of the site's pages (and ≥ 3)."""
    return df >= 3 and df * 2 > docs


GENERIC_ZIPF = 5.5  # a lowercase English word at least this common (wordfreq) names no subject: `people`, `world`
ABBREVIATION_ZIPF = 3.0  # a lowercase word of ≤ 4 letters rarer than this is an abbreviation or a cut word: `edn`
STRAY_TF = 3  # a lowercase English phrase met fewer times on a page, not in its title, is a stray fragment
HEADING_BOOST = 1.25  # a term of the page's headings (not its title): what a part of the page is about
NAME_BOOST = 1.2  # a whole name (the site's title, heading or link text) over the words it is made of


@lru_cache(maxsize=65536)
def english_zipf(word: str) -> float | None:
    """wordfreq's Zipf frequency of an English word (0 when unknown), None without wordfreq."""
    try:
        from wordfreq import zipf_frequency
    except ImportError:
        return None
    return zipf_frequency(word, "en")


def stray_term(term: str, tf: int, subject: str = "") -> bool:
    """An English term that no one files a page under: a lowercase phrase of several words met once on the page
    and not in its title or headings (`contrary unto`, `greatest manifestation`), a lowercase short word that is
    no word (`edn`), or a lowercase word as common as a function word. `subject`: the page's title and headings,
    case-folded; a term in them is the page's subject and stays."""
    if not term.isascii() or term != term.lower() or term in subject:
        return False
    if " " in term:
        return tf < STRAY_TF
    zipf = english_zipf(term)
    if zipf is None or not term.isalpha():
        return False
    return (len(term) <= 4 and zipf < ABBREVIATION_ZIPF) or zipf >= GENERIC_ZIPF


OWN_NAME_ZIPF = 3.0  # a site-wide word rarer than this in English is the site's own name (Gyrobot), no word
DRESS_ZIPF = 4.4  # the words a name is dressed in (Official, Team, Ltd, Inc) are at least this common


def site_name_dressed(term: str, df: Counter[str], docs: int) -> bool:
    """Whether an English phrase is the site's own name in common words (`Official Team Gyrobot`, `Gyrobot Ltd`):
    a word of it on most of the site's pages (site_wide) that English lacks, the rest common words. The site's
    name tags none of its pages, however it is dressed."""
    words = term.split()
    if len(words) < 2 or not term.isascii():
        return False
    zipf = {w: english_zipf(w.lower()) or 0.0 for w in words}
    own = [w for w in words if site_wide(df.get(term_key(w), 0), docs) and zipf[w] < OWN_NAME_ZIPF]
    return bool(own) and all(w in own or zipf[w] >= DRESS_ZIPF for w in words)


def name_parts(name: str) -> list[str]:
    """The term keys a name is made of (`Hedley Ward Trio` → hedley ward trio; 雨水再利用貯水タンク → its nouns)."""
    return [term_key(t) for t in japanese_terms(name) + english_terms(name)]


def score_terms(terms: PageTerms, df: Counter[str], docs: int, title: str = "",
                names: dict[str, list[str]] | None = None, subject: str = "",
                page_chars: int = 0, works: Iterable[str] = ()) -> list[tuple[str, float]]:
    """(spelling, score) of a page's terms, best first: (1 + ln tf) · √ln(1 + N/df), ×1.5 when the term is in the
    title. The square root of the inverse document frequency keeps what a month of diary entries keeps coming back
    to (a football club named on a third of the site's pages) within reach of a street said three times on this page
    alone (read blind, seed 1222). Site-wide terms and stray ones (stray_term) are left out. `names`: the site's
    whole names found in the page (a title, heading or link text of the site: `Fait Accompli`, 雨水タンク) -> their term
    keys (name_parts); each scores NAME_BOOST × the best of its parts, so it is chosen before its fragments, and a
    name whose parts are all site-wide is left out. `subject`: the title and headings, case-folded (stray_term); a
    term in them scores ×HEADING_BOOST, and a common word said once outside them is left out
    (tagterms.generic_term). `page_chars`: the body's length: on a long page a term said once or twice outside its
    title and headings is a mention (tagclass.passing); a whole name of the site's counts however often the page
    says it. A common single word of the title or a heading is left out unless the title names it (the whole title,
    a name it quotes, one of the things it lists: tagclass.title_listed) or the page builds on it. `works`: the
    names the title gives a work (a play's or a poem's title pieces, enrich.work_names; the names it quotes,
    tagterms.quoted_in_title): a common word inside one is a piece of the work's name (星空 of 降るような星空)."""
    folded_title = (title or subject).casefold()
    whole_title = term_key(title.strip())
    pieces_of = [term_key(w) for w in works]
    built_on = _built_on(terms.counts)
    scored = []
    by_key: dict[str, float] = {}
    subject = subject or folded_title
    for key, tf in terms.counts.items():
        n = max(1, df.get(key, 1))
        if (site_wide(n, docs) or stray_term(terms.surface[key], tf, subject)
                or generic_term(terms.surface[key], tf, key in subject)
                or site_name_dressed(terms.surface[key], df, docs)):
            continue
        place = 1.5 if key in folded_title else HEADING_BOOST if key in subject else 1.0
        score = (1 + math.log(tf)) * math.log(1 + docs / n) ** 0.5 * place * general_weight(terms.surface[key])
        by_key[key] = score  # a weak term still scores the whole name it is part of
        if not weak_term(terms.surface[key], tf, in_subject(terms.surface[key], subject), page_chars,
                         built_on.get(key, 0), key in folded_title,
                         key == whole_title or any(key in w for w in pieces_of)
                         or title_listed(terms.surface[key], title)):
            scored.append((terms.surface[key], score, terms.first[key]))
    for name, parts in (names or {}).items():
        key = term_key(name)
        best = max((by_key[p] for p in parts if p in by_key), default=0.0)
        if best and key not in by_key and all(p in terms.counts for p in parts) \
                and not weak_name(name, in_subject(name, subject)) and not site_name_dressed(name, df, docs):
            scored.append((name, best * NAME_BOOST, min(terms.first[p] for p in parts)))
    scored.sort(key=lambda s: (-s[1], s[2]))
    return [(s, sc) for s, sc, _ in scored]


def _built_on(keys: Counter[str]) -> Counter[str]:
    """For each Japanese term of a page, how many of its other terms are built on it: leading them (スキー:
    スキー場, スキー教室), or after a name (トリカブト: ハコネトリカブト, エゾトリカブト; 湿原: 釧路湿原 — the named
    kinds of a thing); not after a common word (分布 of 指数分布, 記号分布; 記述 of シナリオ記述: a field's
    compounds)."""
    out: Counter[str] = Counter()
    for key in keys:
        if JA_RE.search(key):
            out.update({key[i:j] for i in range(len(key)) for j in range(i + 1, len(key) + 1)
                        if (i, j) != (0, len(key)) and key[i:j] in keys and (i == 0 or _named(key[:i]))})
    return out


def _named(text: str) -> bool:
    """Whether a Japanese text holds a name: a proper noun or a word the dictionary lacks (Sudachi, mode C)."""
    return any(proper or oov for _, proper, oov in _mode_c(text))


def _tag_key(text: str) -> str:
    """A tag as two spellings of it compare: width- and case-folded (tagclass.fold: LTE = ＬＴＥ), and a Japanese
    one without the spaces and dots written between a name's words (川口 千里 = 川口千里, ハードロック・ギター)."""
    folded = fold(text)
    return re.sub(r"[\s・･]", "", folded) if JA_RE.search(folded) else folded


_FIGURE_LABEL_RE = re.compile(r"^(?:図|表|写真|Fig(?:ure)?\.?|Table|Photo)\s*[0-9０-９]+\s*[.:：．、-]?\s*(?=\w\w)")


def pick_tags(scored: list[tuple[str, float]], body: str, limit: int = MAX_CONFIDENT, own_text: str | None = None,
              subject: list[str] = (), subject_text: str = "", wholes: list[str] = ()) -> list[str]:
    """The best terms that occur verbatim in `body`, none inside another chosen one (ロボット vs
    ロボットコンテスト: the better scored stays). `own_text`: the body without the lines the site repeats on many
    pages (menus, notices): a term only found there is the site's, not the page's. `subject`: terms of the page's
    own title or headings that its text holds, best first: when no chosen tag holds one, the first is put first.
    `wholes`: names a chosen term may be a piece of (a work's title), said whole instead where the text has them."""
    own = body if own_text is None else own_text
    tags: list[str] = []
    floor = scored[0][1] * RELATIVE_SCORE if scored else 0.0
    wholes = [s for s in [*wholes, *subject] if s in body and s in own]
    for term, score in scored:
        if len(tags) >= limit or score < floor:
            break
        term = next((s for s in wholes if term in s), term)  # 変形 of the title's 変形ダイアログ: the whole
        term = _FIGURE_LABEL_RE.sub("", term) or term  # 図5.分散全方位視覚システム: the figure's name
        folded = _tag_key(term)  # `LTE` and `ＬＴＥ` are one tag
        if term not in body or term not in own or any(folded in _tag_key(t) or _tag_key(t) in folded
                                                        for t in tags):
            continue
        if weak_in_text(term, own, in_subject(term, subject_text)):
            continue
        tags.append(term)
    subject = [t for t in subject if t in body and t in own and not fragment(t, own)]
    if subject and not any(s.casefold() in t.casefold() or t.casefold() in s.casefold()
                           for s in subject for t in tags):
        first = next((w for w in wholes if subject[0] in w and w != subject[0]), subject[0])  # (a work: whole)
        tags = [first, *(t for t in tags if first.casefold() not in t.casefold()
                         and t.casefold() not in first.casefold())][:limit]
    return tags
