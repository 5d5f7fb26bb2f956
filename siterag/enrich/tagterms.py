"""What tells a topical term from a generic one, and the names a page quotes whole.

General-language frequency (wordfreq's Zipf scale, Japanese looked up as a whole word, no tokenizer needed):
a word common everywhere (要素, 関与, 贅沢, cheer) said once on a page, outside its title and headings, is not
what the page is about. Quoted titles (『エンジェル/ダスト』, “Pet Sounds”) are names and stay whole.
"""

from __future__ import annotations

import math
import re
import unicodedata
from functools import lru_cache

# A word at least this common in general text (Zipf: 3 = once per million words) is generic when the page says
# it once and not in its title or headings: 要素 4.8, 関与 4.3, 積極的 4.6, 贅沢 4.2, cheer 4.1 — a rare word of the
# page (百合小説, 雨水タンク, Fait Accompli) is not in the lists at all (0).
COMMON_ZIPF = 3.5
COMMON_TF = 2  # (3 was tried: it drops chassis, armour, 役者 with お子さん, 椅子; no better on the tuned sites)
VERY_COMMON_ZIPF = 4.5  # 変更 5.1, 可能性 5.6, minutes 5.3, photo 5.0: the subject only if the page says it often
VERY_COMMON_TF = 5
# The titles written before a name, abbreviated (Mr. Whalley, Rev. Hooper, Capt. Carlsen): no sentence ends at them
# (summary) and no first name is one (tagclass).
NAME_TITLES = ("Mr", "Mrs", "Ms", "Dr", "St", "Rev", "Revd", "Gen", "Bro", "Capt", "Col", "Lt", "Sgt", "Prof", "Supt",
               "Gov", "Sen", "Hon", "Fr")
QUOTE_CHARS = 24  # a quoted name is at most this long; a longer quotation is a sentence
_JA_QUOTE_RE = re.compile(r"『([^『』\n]{2,40})』|「([^「」\n]{2,40})」|【([^【】\n]{2,40})】")
_EN_QUOTE_RE = re.compile(r"[“\"]([A-Z][\w'’.&-]*(?: [\w'’.&-]+){0,4})[”\"]")
_SENTENCE_END_RE = re.compile(r"[。！？!?、,]|[ぁ-ん]{4,}|(?:です|ます|ました|だった|でした)")
_HIRAGANA_RE = re.compile(r"[ぁ-ゖ]")
JA_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")  # a Japanese letter: kana or kanji
_JA_SUFFIXES = frozenset("的性化さ")
_PARTICLE_RE = re.compile(r"[をにがではへも]")
_MARKUP_RE = re.compile(r"[*_`#|\[\]<>{}]")


@lru_cache(maxsize=1)
def _ja_frequencies() -> dict[str, float]:
    try:
        from wordfreq import get_frequency_dict
    except ImportError:
        return {}
    return get_frequency_dict("ja")


_CAPITALS_JOINED_RE = re.compile(r"[A-Z0-9]+(?:-[A-Z0-9]+)+")


@lru_cache(maxsize=65536)
def general_zipf(term: str) -> float:
    """wordfreq's Zipf frequency of a whole term in general text (0 when unknown, or without wordfreq): Japanese
    by a look-up of the term as one word (a compound the lists lack is rare), English by wordfreq."""
    written = unicodedata.normalize("NFKC", term)
    word = written.casefold()
    if word.isascii():
        if " " in word or _CAPITALS_JOINED_RE.fullmatch(written):
            return 0.0  # a phrase; a name of capitals joined by hyphens (CPU-Z, DVD-R), which wordfreq reads as words
        try:
            from wordfreq import zipf_frequency
        except ImportError:
            return 0.0
        return zipf_frequency(word, "en")
    freq = _ja_frequencies().get(word, 0.0)
    if not freq and len(word) > 2 and word[-1] in _JA_SUFFIXES:  # 積極的: the lists hold 積極 and 的
        freq = _ja_frequencies().get(word[:-1], 0.0)
    return round(math.log10(freq) + 9, 2) if freq > 0 else 0.0


def generic_term(term: str, tf: int, in_subject: bool) -> bool:
    """A word any page could use, not in the title or headings and not repeated as a subject is: said once when
    common (関与, 積極的, cheer), fewer than VERY_COMMON_TF times when very common (変更, 可能性, minutes, photo)."""
    if in_subject:
        return False
    zipf = general_zipf(term)
    return (zipf >= COMMON_ZIPF and tf < COMMON_TF) or (zipf >= VERY_COMMON_ZIPF and tf < VERY_COMMON_TF)


def general_weight(term: str) -> float:
    """How much a term can say about one page, by how common it is everywhere: 1 for a rare word (Zipf < 3),
    down to 0.4 for one as common as 変更 or minutes (Zipf ≥ 5)."""
    zipf = general_zipf(term)
    return 1.0 if zipf < 3 else max(0.4, 1.0 - 0.3 * (zipf - 3))


def quoted_names(text: str) -> list[str]:
    """Titles the page quotes, in order, once each: 『…』 and 【…】 whole; 「…」 and “…” only when they read as a
    name, not a quoted sentence (short, no sentence ending or long kana run: 「エンジェル/ダスト」, not
    「そうですね」)."""
    out: list[str] = []
    for m in _JA_QUOTE_RE.finditer(text):
        name = (m.group(1) or m.group(2) or m.group(3) or "").strip()
        if m.group(2) and (_SENTENCE_END_RE.search(name) or len(_HIRAGANA_RE.findall(name)) > 3):
            continue
        if m.group(2) and not name_like(name) and text.count(f"「{name}」") < 2:
            continue  # 「映画を撮る」 once: a phrase quoted; a title with kana is quoted again (「あの子を探して」)
        if statement(name):
            continue
        if (2 <= len(name) <= QUOTE_CHARS and name not in out and not _SENTENCE_END_RE.search(name[-1])
                and not _MARKUP_RE.search(name)):
            out.append(name)
    for m in _EN_QUOTE_RE.finditer(text):
        name = m.group(1).strip()
        words = name.split()
        if (len(name) <= QUOTE_CHARS * 2 and 1 <= len(words) <= 5 and name not in out
                and sum(w[:1].isupper() for w in words) * 2 > len(words) and not name.endswith((".", ",", "!", "?"))):
            out.append(name)
    return out


_SOURCE_PARTICLES = frozenset("から まで より".split())


_SAID_RE = re.compile(r"[。！？!?、,]|(?:です|ます|ました|だった|でした)$")


def quoted_in_title(title: str) -> list[str]:
    """The names a title quotes (`「夏休み」選考理由`, `「降るような星空」…感想`): a work's, whole; not a quoted
    sentence (`「UPnPを使ってルータから…取得する方法」`: a sentence's end, a case particle, a statement)."""
    out = []
    for m in _JA_QUOTE_RE.finditer(title):
        name = next(g for g in m.groups() if g).strip()
        if 2 <= len(name) <= QUOTE_CHARS and not _SAID_RE.search(name) \
                and not _PARTICLE_RE.search(name) and not statement(name):
            out.append(name)
    return out


def statement(text: str) -> bool:
    """Whether a quoted Japanese phrase says something rather than names it: a topic (は, も) and a predicate at its
    end (『演劇は論理ではない』, 『演劇には伝えたいことなどいらない』), or a phrase left hanging on `from`
    (`ヴィトゲンシュタインの哲学から`): a post's title or a claim quoted, not a work's name (降るような星空)."""
    if not _HIRAGANA_RE.search(text):  # (no particle, no inflection)
        return False
    from siterag.enrich.keywords import short_tokenizer

    words = [(m.surface(), m.part_of_speech()[:2]) for m in short_tokenizer().tokenize(text)]
    if not words:
        return False
    topic = any(pos == ("助詞", "係助詞") and w in ("は", "も") for w, pos in words)
    last, pos = words[-1]
    return topic and pos[0] in ("動詞", "形容詞", "助動詞") or pos == ("助詞", "格助詞") and last in _SOURCE_PARTICLES


def name_like(text: str) -> bool:
    """At most one hiragana, and no case particle: 七つ森, 湖畔の宿 (not 映画を撮る)."""
    kana = _HIRAGANA_RE.findall(text)
    return len(kana) <= 1 and not _PARTICLE_RE.search(text)



MISSPELT_OF_ZIPF = 3.0  # a word the lists lack, one slip from a word at least this common, is a typo of it
_LATIN_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@lru_cache(maxsize=1)
def _en_frequencies() -> dict[str, float]:
    try:
        from wordfreq import get_frequency_dict
    except ImportError:
        return {}
    return get_frequency_dict("en")


def _slips(word: str) -> set[str]:
    """What `word` may have been meant as, by one slip of typing inside it: a letter left out (Exploer, Microsof),
    one doubled (Acccess), two swapped. Not a changed or an added letter, which make names of words (Minoh, Pleon,
    Netville, Corei)."""
    out = {word[:i] + c + word[i:] for i in range(1, len(word) + 1) for c in _LATIN_LETTERS}  # one left out
    out |= {word[:i] + word[i + 1:] for i in range(1, len(word) - 1) if word[i] == word[i - 1]}  # one doubled
    out |= {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(1, len(word) - 1)}  # two swapped
    return out - {word}


@lru_cache(maxsize=65536)
def misspelt(word: str) -> str:
    """The common English word that `word` misspells, or '': a word of 5+ letters, not in capitals, that
    wordfreq's lists lack, one slip (_slips) from a word they hold at Zipf ≥ MISSPELT_OF_ZIPF (Exploer → explorer,
    Mozila → mozilla, Potoshop → photoshop, Happines → happiness). A rare name the lists hold at all (Titt 1.2)
    is no typo; an acronym (EMOBILE, JAIST) neither."""
    if not (word.isascii() and word.isalpha() and len(word) >= 5) or word.isupper():
        return ""
    freqs, folded = _en_frequencies(), word.casefold()
    if not freqs or folded in freqs:
        return ""
    best = max((freqs.get(w, 0.0), w) for w in _slips(folded))
    return best[1] if best[0] >= 10 ** (MISSPELT_OF_ZIPF - 9) else ""
