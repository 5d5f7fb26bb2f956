"""Stage 5 fields: machine facts (never asked of the LLM) and, when a configured LLM's answer passes the checks,
its title/category/tags/summary (otherwise siterag.enrich.enrich fills them from the page and the site)."""

from __future__ import annotations

import hashlib
import re
import sys
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable
from pathlib import PurePosixPath

from siterag.codehash import code_hash
from siterag.enrich.dates import ANCHOR_RE, ENTRY_HEADING_RE, date_from_name, parse_date_line
from siterag.enrich.tagterms import JA_RE, general_zipf
from siterag.extract.blocks import clean_text, normalise
from siterag.llm.client import LLMClient, LLMError

METADATA_SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "minLength": 1, "maxLength": 120},
        "category": {"type": "string", "minLength": 1, "maxLength": 40},
        "tags": {"type": "array", "minItems": 3, "maxItems": 8,
                 "items": {"type": "string", "minLength": 1, "maxLength": 30}},
        "summary": {"type": "string", "minLength": 1, "maxLength": 200},
    },
    "required": ["title", "category", "tags", "summary"],
    "additionalProperties": False,
}
METADATA_PROMPT = (
    "You catalogue pages of an archived personal website. From the page title and the start of its text, "
    "write JSON with: title (the page's real title, short, in the page's language), category (one or two "
    "words), tags (3 to 8 keywords in the page's language), summary (2 or 3 short sentences, in the page's "
    "language). Use only facts in the text."
)
BODY_PREVIEW_CHARS = 700
MAX_SUMMARY_SENTENCES = 3


def date_from_path(path: str) -> str | None:
    """A date in a file name or folder path (the old name of siterag.enrich.dates.date_from_name)."""
    return date_from_name(path)


def content_hash(data: bytes | str) -> str:
    """sha256 of a page's bytes (or text), hex."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def fallback_metadata(title: str, markdown: str) -> dict:
    """The page's own title (its <title> or first heading); category, tags and summary are left to the site pass
    (siterag.enrich.enrich), which needs the whole site. Used when no LLM is configured or its answer failed."""
    dates = [m["date"] for m in ENTRY_HEADING_RE.finditer(markdown)]
    years = sorted({d[:4] for d in dates if d})
    if years and len(dates) > 1 and not _names_something(title):
        # a page of entries under a number (`540101`): the years it holds, not its first entry's heading
        return {"title": years[0] if len(years) == 1 else f"{years[0]}–{years[-1]}", "category": "", "tags": [],
                "summary": ""}
    first_heading = next((_title_text(line) for line in markdown.splitlines() if line.startswith("#")), "")
    named = next((t for t in (title, first_heading, first_line(markdown)) if _names_something(t)), UNTITLED)
    return {"title": named[:120], "category": "", "tags": [], "summary": ""}


UNTITLED = "untitled"  # a page with no title, heading or title-like first line (the site pass may name it)


def _names_something(title: str | None) -> bool:
    """A title holds two letters at least: a stray `7` or `-` beside a button names no page."""
    return bool(title) and sum(ch.isalpha() for ch in title) >= 2


# Images first: a linked image is `[![](a.gif "t")](b.html)`.
_MD_IMAGE_RE = re.compile(r'!\[[^\]]*\]\([^)\s]*(?:\s+"[^"]*")?\)')
_MD_LINKS_RE = re.compile(r"\[[^\]]*\]\([^)]*\)")
_MD_MARKS_RE = re.compile(r"\[([^\]]*)\]\([^)]*\)|[*_`>|]|\\(?=\S)|\s{2,}$")
TITLE_LINE_CHARS = 80  # a longer first line is a sentence, not a title


def first_line(markdown: str) -> str:
    """The first line of text of a page without a title or heading (a Word export's title is a styled paragraph:
    `つばさ ～創作にチャレンジしたい人たちのための創作劇～`), when it is short enough to be one and no item of a
    menu the page opens with (two lines of links: `[所 在 地](../002syozaiti/index.htm)` names the page it leads
    to; a heading that is a link, `**[心 を 育 て る](kokoro.html)**`, stays); else ''."""
    opening = _raw_opening(markdown, 3)
    linked = [_links_only(line) for line in opening]
    menu = sum(linked[:2]) == 2  # the page opens with links, one a line: a menu, whose items name other pages
    lines = [_title_text(line) for line, link in zip(opening, linked, strict=True) if not (menu and link)]
    lines = [line for line in lines if _names_something(line)][:1]
    return lines[0] if lines and len(lines[0]) <= TITLE_LINE_CHARS and not _SENTENCE_END_RE.search(lines[0]) else ""


_SENTENCE_END_RE = re.compile(r"[。．！？!?]$|(?<=[a-z])\.$")  # a line that ends a sentence is no title


def opening_lines(markdown: str, count: int = 3) -> list[str]:
    """The first `count` lines of text of a page, without Markdown marks."""
    return [text for text, *_ in _opening(markdown, count)]


def _plain(line: str) -> str:
    """A Markdown line's text: no images, link labels only, no marks, no heading anchor (`{#2003-06-29}`)."""
    line = ANCHOR_RE.sub("", line.lstrip("#"))
    return " ".join(_MD_MARKS_RE.sub(lambda m: m.group(1) or "", _MD_IMAGE_RE.sub("", line)).split())



def _title_text(line: str) -> str:
    """A title line's text; of a table row, without its cells that hold only a link (a button beside the
    heading: `| cSTDクラス 関数 | [戻る](cws_index.html) |` is titled `cSTDクラス 関数`)."""
    if line.lstrip().startswith("|"):
        cells, kept = _table_cells(line)
        if kept and len(kept) < len(cells):
            return _plain(" ".join(kept))
    return _plain(line)


def _table_cells(row: str) -> tuple[list[str], list[str]]:
    """A table row's cells with text, and those of them with words outside links (not only a button)."""
    cells = [cell for cell in row.strip().strip("|").split("|") if _plain(cell)]
    return cells, [cell for cell in cells if not _links_only(cell)]


def _links_only(text: str) -> bool:
    """Whether a line or a cell holds nothing but links and pictures (a menu's item, a button)."""
    return not normalise(_MD_LINKS_RE.sub("", _MD_IMAGE_RE.sub("", text)))


def _raw_opening(markdown: str, count: int) -> list[str]:
    """The first `count` lines of a page that hold text, as written (Markdown marks kept)."""
    return [line for line in markdown.splitlines() if _plain(line)][:count]


def _date_only(line: str) -> bool:
    """A line that is a date and little else (`October 18, 2001`, `2002.8.2(金)`), which names no page."""
    found = parse_date_line(line)
    return bool(found) and len(normalise(found.rest)) < 2


_TABLE_RULE_RE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")  # |---|---|


def _column_names(line: str, below: str) -> bool:
    """Whether a table row above the table's rule (`|---|---|`) names its columns (`| No | Date | Title |`): two
    cells or more with words, none of them only a link (a heading beside a button is a layout table's)."""
    if not _TABLE_RULE_RE.match(below):
        return False
    cells, kept = _table_cells(line)
    return len(cells) >= 2 and len(kept) == len(cells)


def _opening(markdown: str, count: int) -> list[tuple[str, bool, bool, bool]]:
    """(text, whether the next line of text continues its paragraph, whether it is links only, whether it is a
    heading) of the first `count` lines of text."""
    found: list[tuple[str, bool, bool, bool]] = []
    lines = markdown.splitlines()
    data = False  # in a table with a header row: its header names columns (`No | Date | Title`), its rows are data
    for n, line in enumerate(lines):
        if not line.strip() and found:
            found[-1] = (found[-1][0], False, *found[-1][2:])
        below = lines[n + 1] if n + 1 < len(lines) else ""
        data = line.lstrip().startswith("|") and (data or _column_names(line, below))
        text = "" if data else _plain(line)
        if text:
            if len(found) == count:
                break
            found.append((text, True, _links_only(line),
                          line.startswith("#")))
    if found:
        found[-1] = (found[-1][0], found[-1][1] and len(found) == count, *found[-1][2:])
    return found


# A numbered figure's caption (`図1．全方位カメラと全方位画像`, `Fig. 2: …`, a part's `(a) …`): it names a picture of
# the page, whose page (a figure of a project's) keeps its <title>, the project's name
FIGURE_CAPTION_RE = re.compile(r"^(?:(?:図|表|写真)\s*[0-9０-９]+|(?:Fig(?:ure)?|Table|Photo)\.?\s*[0-9]+|"
                               r"[(（][a-zａ-ｚ][)）])", re.IGNORECASE)  # (a) of a figure's parts
SHARED_TITLE_DOCS = 3  # a <title> on this many documents of a site names the site or a section, not the page


def own_title(title: str, markdown: str, shared_titles: Collection[str], shared_lines: Collection[str],
              path: str = "", copied_titles: Collection[str] = ()) -> str:
    """The page's own title where its <title> does not name it: one many pages of its site share (`Universal
    Design of Digital City` on every talk of a symposium), or one copied from another page that the page's text
    does not bear out (a nature walk in Hokkaido saved from the Yakushima page, still titled `自然紀行 九州 屋久島
    夏`: see stale_title), or one the text does not mention at all over a page that opens with its own heading
    (a play `# とも` under `○春日高校・部室前の廊下`, a scene of the script it was made from: unmentioned_title).
    It is the first opening line that is neither a line many pages open with (the symposium's name above each
    talk) nor a date nor a numbered figure's caption, a Japanese title broken over lines joined (`デジタルシティは`
    / `エコシステム`). The site's home page (`index.html` at the top) and a page opening with its title keep it.
    Keys are siterag.extract.blocks.normalise'd (`copied_titles`: titles two pages hold, one of which bears it
    out); '' when the title stays."""
    key = normalise(title)
    if not key or is_home(path):
        return ""
    lines = _opening(markdown, 8)
    first = next((line for line in markdown.splitlines() if line.strip()), "")
    # the page opens with a heading of plain words: no link, no number (a series' `チュートリアル (その 8)` over
    # its part's own <title>), no sentence (`Welcome to …`)
    headed = first.startswith("#") and "](" not in first and not re.search(r"\d", unicodedata.normalize(
        "NFKC", first)) and not _SENTENCE_END_RE.search(first.rstrip())
    if not (key in shared_titles or key in copied_titles and stale_title(title, markdown)
            or headed and unmentioned_title(title, markdown)):
        return ""
    if len(ENTRY_HEADING_RE.findall(markdown)) > 1:  # on a page of entries, the first entry's heading is no title
        lines = [(text, more, links, False) for text, more, links, _ in lines]
    if any(key == normalise(text) and key not in shared_lines for text, *_ in lines[:3]):
        return ""  # the page itself opens with its title (a banner many pages open with does not count)
    for n, (line, *_) in enumerate(lines[:3]):
        # a heading broken by <br>: Japanese lines of one paragraph that end in no stop, each short
        while (lines[n][1] and n + 1 < len(lines) and _CJK_END_RE.search(line) and _CJK_START_RE.match(lines[n + 1][0])
               and len(line) + len(lines[n + 1][0]) <= TITLE_BREAK_CHARS and "。" not in lines[n + 1][0]):
            n += 1
            line += lines[n][0]
        if lines[n][3]:  # a heading is a title even where it ends like a sentence, less an entry's date
            line = _without_date(line)
        if (_names_something(line) and normalise(line) not in shared_lines and not _date_only(line)
                and not (_NO_TITLE_RE if not lines[n][3] else _NO_HEADING_RE).search(line) and not lines[n][2]
                and not FIGURE_CAPTION_RE.match(line)):
            return line if len(line) <= TITLE_LINE_CHARS else ""
    return ""


def _without_date(line: str) -> str:
    """A heading without the date it opens with (`2013-10-26 WordPress でブログやってます。`), where a name is left."""
    found = parse_date_line(line)
    if not found or not _names_something(found.rest):
        return line
    rest = line[len(line) - len(found.rest):]  # as written: the parser's `rest` is width-folded
    same = unicodedata.normalize("NFKC", rest).strip() == unicodedata.normalize("NFKC", found.rest).strip()
    return rest.strip() if same else found.rest.strip()


def is_home(path: str) -> bool:
    """The site's home page (`index.html`, `home-j.html`, `top.htm` at the top), titled by the site's name."""
    return bool(_HOME_RE.match(path))


FILE_WORD_ZIPF = 3.0  # each word of a file's name this common in English: words, not a code (`newpage004`, `koukuu`)
_SLOT_WORDS = frozenset("index main top menu frame frames left right header footer default home page contents body "
                        "sub nav navi side bar copy test temp".split())
_FILE_WORD_SPLIT_RE = re.compile(r"[_\-+. ]+|(?<=[a-z])(?=[A-Z])")


def file_name_title(path: str) -> str:
    """A title from the page's file name where it is made of English words (`happy_new_year.html` → `Happy new
    year`, `password_incorrect.html` → `Password incorrect`): what the author named the page, for a page whose
    <title> is the site's name or a template's and which has no heading or link label of its own. '' for a name
    that is one word, a code, a number or a romanised word (`index`, `newpage004`, `koukuu`)."""
    stem = PurePosixPath(path).stem
    words = [w for w in _FILE_WORD_SPLIT_RE.split(stem) if w]
    if len(words) < 2 or not all(w.isalpha() and w.isascii() and len(w) >= 2
                                 and general_zipf(w.lower()) >= FILE_WORD_ZIPF for w in words):
        return ""  # (one word is a slot in the site more often than a name: `index`, `main`, `menu`, `left`)
    if any(w.lower() in _SLOT_WORDS for w in words):
        return ""  # `index-main.html`, `left_menu.htm`: a frame's or a template's part
    text = " ".join(w.lower() for w in words)
    return text[:1].upper() + text[1:]


NAV_LABEL_TARGETS = 3  # a link label leading to this many different pages is the site's navigation (`戻る`, `next`)


def linked_name(labels: Counter[str] | None, spread: Counter[str]) -> str:
    """What the site's links to a page call it, for a page whose <title> names none (no title, or one many
    pages share): the label most links give it that names something, is no date and is not a navigation label
    (`spread`: how many different pages each label leads to); '' when none does."""
    for label, _ in (labels or Counter()).most_common():
        if _names_something(label) and not _date_only(label) and spread[label] < NAV_LABEL_TARGETS:
            return label
    return ""


TITLE_GRAM_TITLES = 4  # a pair of letters in this many of a site's distinct <title>s is of its name or keywords
SITE_WORDED_SHARE = 0.4  # a <title> this much made of such pairs is a variant of the site's name (0.4: `ｲﾝﾀｰﾈｯﾄ四日市`)


def _letter_pairs(text: str) -> set[str]:
    """The pairs of adjacent letters of `text` (width- and case-folded; digits, spaces and marks dropped)."""
    letters = "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalpha())
    return {letters[i:i + 2] for i in range(len(letters) - 1)}


def title_vocabulary(titles: Iterable[str]) -> Counter[str]:
    """In how many of a site's distinct <title>s each pair of letters occurs (see renamed_by_links)."""
    return Counter(pair for title in set(titles) for pair in _letter_pairs(title))


def _japanese(text: str) -> bool:
    return page_language(text) == "ja"


def renamed_by_links(title: str, label: str, vocabulary: Counter[str]) -> bool:
    """Whether the site's own link label names a page better than its <title>: the title is a variant of the
    site's name or keywords (SITE_WORDED_SHARE of its letter pairs in TITLE_GRAM_TITLES or more of the site's
    titles: `パソコンクラブ四日市`, `四日市のパソコンスクール` over a school's applet demos), the label has nothing in
    common with it (`蓮の開花`), is written in the same language, and is no sentence (`…を書きました`), no date or
    number, no lowercase word and no common word."""
    pairs, named = _letter_pairs(title), _letter_pairs(label)
    if not pairs or not named or pairs & named or _japanese(title) != _japanese(label):
        return False
    if _NO_TITLE_RE.search(label) or _SENTENCE_END_RE.search(label) or _POLITE_END_RE.search(label) \
            or any(ch.isdigit() for ch in label) or label.isascii() and label.islower() and " " not in label \
            or general_zipf(label) >= COMMON_LABEL_ZIPF:
        return False  # a sentence, a date or number, a lowercase word (`pdf`), a common word (`設定`)
    return sum(vocabulary[pair] >= TITLE_GRAM_TITLES for pair in pairs) >= SITE_WORDED_SHARE * len(pairs)


_POLITE_END_RE = re.compile(r"(?:ました|ます|です|でした|ません)[。!！?？]?$")
COMMON_LABEL_ZIPF = 5.0  # a label this common a word (設定 5.2) names no one page


_TITLE_SEPARATORS = frozenset("-–—|｜:：/／・~～>＞»")


def _title_words(title: str) -> tuple[str, ...]:
    return tuple(title.split())


def banner_affixes(titles: Iterable[str]) -> tuple[set[tuple[str, ...]], set[tuple[str, ...]]]:
    """The word prefixes and suffixes of a site's <title>s that are its banner, set off by a separator: at least
    SHARED_TITLE_DOCS titles open with `Universal Design of Digital City -` (end with `- Gyrobot`) and go on with
    at least two different words. Without a separator, shared first words are the start of a name or a series
    (`Towards … in Digital City`, `中学 自然観察 自然劇場 第16回`) and stay."""
    counts: dict[str, Counter[tuple[str, ...]]] = {"pre": Counter(), "suf": Counter()}
    nexts: dict[str, defaultdict[tuple[str, ...], set[str]]] = {"pre": defaultdict(set), "suf": defaultdict(set)}
    for title in titles:
        words = _title_words(title)
        for k in range(1, len(words)):
            for side, affix, beyond in (("pre", words[:k], words[k]), ("suf", words[-k:], words[-k - 1])):
                edge = affix[-1][-1:] if side == "pre" else affix[0][:1]
                mark = beyond[:1] if side == "pre" else beyond[-1:]
                if edge in _TITLE_SEPARATORS or mark in _TITLE_SEPARATORS:
                    counts[side][affix] += 1
                    nexts[side][affix].add(beyond)
    return tuple({affix for affix, n in counts[side].items() if n >= SHARED_TITLE_DOCS and len(nexts[side][affix]) >= 2}
                 for side in ("pre", "suf"))  # type: ignore[return-value]


def without_banner(title: str, prefixes: Collection[tuple[str, ...]], suffixes: Collection[tuple[str, ...]]) -> str:
    """`title` without the site's banner words (banner_affixes) at its start and end, and the separators they
    leave; the longest that leaves a name (a letter besides digits, not a date alone), else `title` as it is."""
    words = _title_words(title)
    for side, affixes in (("pre", prefixes), ("suf", suffixes)):
        for k in range(len(words) - 1, 0, -1):
            affix = words[:k] if side == "pre" else words[-k:]
            if affix not in affixes:
                continue
            rest = list(words[k:] if side == "pre" else words[:-k])
            while rest and set(rest[0]) <= _TITLE_SEPARATORS:
                rest.pop(0)
            while rest and set(rest[-1]) <= _TITLE_SEPARATORS:
                rest.pop()
            if rest:
                rest[0] = rest[0].lstrip("".join(_TITLE_SEPARATORS))
                rest[-1] = rest[-1].rstrip("".join(_TITLE_SEPARATORS))
            text = " ".join(rest)
            if sum(map(str.isalpha, text)) >= 2 and not _date_only(text) and not _PART_RE.match(text) \
                    and not _BOOK_PART_RE.match(text):
                words = tuple(text.split())
                break
    return " ".join(words) if words != _title_words(title) else title


# What is left of a title that is only a part's number (`chapter 6`, `Part II`, `第6章`, `その2`) names no page
# without the work it is part of: the affix (`Britain in Prophecy -- `) stays.
_PART_RE = re.compile(r"^(?:[^\W\d]{1,12}\s*)?\d{1,3}(?:\s*[^\W\d]{1,2})?$|^[^\W\d]{1,12}\s+[IVXLC]{1,6}$")


# A part of a book by what it is (`introduction`, `appendix on chronology`, `Table of Contents`, `あとがき`): no page's
# name without the book's either (read blind, seed 1270: `Hosea -- introduction`, not `introduction`).
_BOOK_PART_RE = re.compile(r"^(?:(?:table of )?contents|introduction|preface|foreword|prologue|epilogue|afterword|"
                           r"appendix|appendices|footnotes|notes|bibliography|glossary|index|postscript)\b"
                           r"(?:\s+\S+){0,4}$|^(?:序章?|はじめに|まえがき|前書き|あとがき|後書き|目次|付録|索引|参考文献|終章)",
                           re.IGNORECASE)


def plain_titles(titles: Iterable[str]) -> dict[str, str]:
    """Each distinct <title> of a site without its banner (banner_affixes, without_banner), unless that would
    make it another title's double: the books of a site titled `Hosea -- chapter 1` and `Britain in Prophecy --
    chapter 1` keep their names, which tell their `chapter 1`s apart."""
    every = list(titles)
    distinct = list(dict.fromkeys(every))
    banner = banner_affixes(every)
    plain = {title: without_banner(title, *banner) for title in distinct}
    sources: defaultdict[str, set[str]] = defaultdict(set)
    for title, rest in plain.items():
        sources[rest].add(title)
    return {title: rest if len(sources[rest]) == 1 else title for title, rest in plain.items()}


# A line that is no title: an address, a sentence (`…いただきたいと思っています。`), one ending in a particle that
# opens a sentence (`お問い合わせは`), a field (`Room: 2736, …`, `会場：…`).
_NO_TITLE_RE = re.compile(r"@|://|[はをが、。]$|^(?:[A-Za-z][A-Za-z .]{0,12}|[^\s:：]{1,3})[:：]")
_NO_HEADING_RE = re.compile(r"@|://")  # a heading is no title only where it is an address
_TITLE_PARTS_RE = re.compile(r"[\s・「」『』()（）\-－―~～:：,、。!！?？/|]+")


def stale_title(title: str, markdown: str) -> bool:
    """A title most of whose words (its parts between spaces and punctuation, 2 characters or more) the page's
    text never mentions: `自然紀行 九州 屋久島 夏` over a walk in Hokkaido."""
    parts = [part for part in _TITLE_PARTS_RE.split(title) if len(part) >= 2]
    return bool(parts) and 2 * sum(part in markdown for part in parts) < len(parts)


def unmentioned_title(title: str, markdown: str) -> bool:
    """A title of which the page's text holds nothing: no two kanji or katakana of it in a row (`廊下`, `部室`),
    none of its Latin words (3 letters or more, in any case) or numbers (a year)."""
    written = unicodedata.normalize("NFKC", title).casefold()
    words = _TITLE_WORD_RE.findall(written)
    for run in _JA_RUN_RE.findall(written):
        words += [run[i:i + 2] for i in range(len(run) - 1)]
    text = unicodedata.normalize("NFKC", markdown).casefold()
    return bool(words) and not any(word in text for word in words)


_TITLE_WORD_RE = re.compile(r"[a-z]{3,}|\d{3,}")
_JA_RUN_RE = re.compile(r"[\u30a1-\u30ff\u3400-\u9fff々〆ヶ]{2,}")  # kanji and katakana


TITLE_BREAK_CHARS = 40  # a Japanese title broken over lines is this short, joined
_HOME_RE = re.compile(r"^(index|default|top|home)[^/]*$", re.IGNORECASE)
_CJK_END_RE = re.compile(r"[\u3041-\u309f]$")  # a phrase left open: `デジタルシティは`, `…ネットワークを`
_CJK_START_RE = re.compile(r"^[\u3041-\u30ff\u4e00-\u9fff]")


def _metadata_prompt(title: str, markdown: str) -> str:
    text = clean_text(re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", markdown))[:BODY_PREVIEW_CHARS]
    return f"Page title: {title}\nText:\n{text}"


def page_language(text: str) -> str:
    """'ja' when a fifth or more of the letters are Japanese (kana or kanji), else 'other'."""
    letters = [ch for ch in text if ch.isalpha()]
    japanese = sum(1 for ch in letters if JA_RE.match(ch))
    return "ja" if letters and japanese >= 0.2 * len(letters) else "other"


def _bigrams(text: str) -> set[str]:
    text = normalise(text)
    return {text[i:i + 2] for i in range(len(text) - 1)} if len(text) > 1 else {text} - {""}


def grounded(claim: str, source: str, share: float = 0.8) -> bool:
    """True when at least `share` of the claim's character bigrams occur in the source (not invented)."""
    grams = _bigrams(claim)
    return not grams or len(grams & _bigrams(source)) >= share * len(grams)


def sentences(text: str) -> int:
    """Sentences in a summary: split on 。！？.!? and line breaks."""
    return len([s for s in re.split(r"[。！？!?\n]+|\.(?:\s|$)", text) if s.strip()])


def tags_in_language(tags: list[str], lang: str) -> list[str]:
    """The tags written in the page's language (`lang` from page_language)."""
    return [t for t in tags if (page_language(t) == "ja") == (lang == "ja")]


def metadata_problems(answer: dict, title: str, markdown: str) -> list[str]:
    """What is wrong with an LLM answer beyond the schema: invented title, tags in another language, run-on
    summary."""
    problems = []
    source = f"{title}\n{markdown}"
    if not grounded(answer["title"], source):
        problems.append("title_not_in_page")
    in_lang = tags_in_language(answer["tags"], page_language(markdown or title))
    if len(answer["tags"]) < 3 or len(in_lang) * 2 < len(answer["tags"]):
        problems.append("tags_language" if len(answer["tags"]) >= 3 else "tags_count")
    if sentences(answer["summary"]) > MAX_SUMMARY_SENTENCES:
        problems.append("summary_too_long")
    return problems


def clean_answer(answer: dict) -> dict:
    """Trimmed fields; duplicate tags and tags that just repeat a field name removed."""
    tags = (t.strip() for t in answer["tags"])
    names = METADATA_SCHEMA["properties"]
    return {"title": answer["title"].strip(), "category": answer["category"].strip(),
            "tags": list(dict.fromkeys(t for t in tags if t and t.lower() not in names)),
            "summary": answer["summary"].strip()}


def metadata_key() -> str:
    """What LLM-written fields depend on besides the page: this module's prompt, schema and checks."""
    return code_hash(sys.modules[__name__])[:12]


def llm_metadata(client: LLMClient, title: str, markdown: str) -> tuple[dict, str]:
    """LLM-written fields, validated and retried once; returns (fields, problem) with problem '' on success.

    On failure the fields are fallback_metadata's (the machine's, filled in by siterag.enrich.enrich), and `problem`
    says why (an LLM error reason, or e.g. 'title_not_in_page', 'tags_language', 'summary_too_long').
    """
    prompt = _metadata_prompt(title, markdown)
    problem = ""
    for _ in range(2):
        try:
            answer = clean_answer(client.chat_json(METADATA_PROMPT, prompt, METADATA_SCHEMA, max_tokens=400))
        except LLMError as exc:
            problem = exc.reason
            if exc.reason in ("down", "timeout"):
                break
            continue
        problems = metadata_problems(answer, title, markdown)
        if not problems:
            return answer, ""
        problem = ",".join(problems)
    return fallback_metadata(title, markdown), problem or "schema"
