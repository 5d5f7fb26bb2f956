"""Machine metadata, faithful by construction: tags are the page's own distinctive words (siterag.enrich.keywords), the
summary is 2-3 of its own sentences, the category comes from the site's folders and file names (or is the
nearest of the site's configured `categories` by the embedder). Nothing is written by a model.

The site pass (`enrich_site`) runs after extraction: term document frequencies need the whole site's corpus. Its
per-page part (PageFacts: terms, sentences) depends on one body only; the extract tasks compute it for the pages
they write (store_page_facts, on the workers) and the site pass reads it back by body hash, computing what is missing.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import sys
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from itertools import takewhile
from pathlib import PurePosixPath

from siterag.codehash import code_hash
from siterag.config import SiteConfig
from siterag.enrich.corpus import read_doc, write_doc
from siterag.enrich.dates import HARD_BREAK_RE
from siterag.enrich.keywords import PageTerms, english_zipf, name_parts, page_terms, pick_tags, score_terms, term_key
from siterag.enrich.metadata import (
    SHARED_TITLE_DOCS,
    banner_affixes,
    content_hash,
    opening_lines,
    own_title,
    stale_title,
    without_banner,
)
from siterag.enrich.sections import clean_label, page_kind, page_links, site_categories
from siterag.extract.blocks import normalise
from siterag.layout import SiteLayout, is_temp_file, safe_path

SUMMARY_CHARS = 200
SUMMARY_SENTENCES = 3
TOP_CATEGORY = "top"  # pages at the top of the site that share their file-name family with no other page
_INDEX_FAMILIES = {"index", "default", "home", "top", "main"}
_MD_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_LIST_PREFIX_RE = re.compile(r"^(?:[-*+]|\d{1,3}[.)]|>)\s+")
_SENTENCE_RE = re.compile(r"[^。．！？!?]+(?:[。．！？!?]+[」』）)”\"]*)?")
_ENDS_SENTENCE_RE = re.compile(r"[。．！？.!?][」』）)”\"']*$")
_TERMINATOR_RE = re.compile(r"[。．！？.!?]")
_SPACE_RE = re.compile(r"(?:\\|<br\s*/?>)?\s+")
_EN_SPLIT_RE = re.compile(r"(?<=[a-z0-9)][.])\s+(?=[A-Z0-9\"“(])")
_ABBREVIATION_RE = re.compile(r"(?:\b(?:al|etc|vs|cf|ca|approx|Dr|Mr|Mrs|Ms|Prof|St|No|Vol|pp|Fig|Inc|Ltd|Co|Jr|Sr|"
                              r"Proc|Int|Intl|Conf|Symp|Trans|Univ|Dept|Assoc|Soc|Jpn|Jan|Feb|Mar|Apr|Jun|Jul|Aug|"
                              r"Sept?|Oct|Nov|Dec)"
                              r"|\b[A-Za-z]|\be\.g|\bi\.e)\.$")
_NOT_PROSE_RE = re.compile(r"[*`|\\<>\[\]{}]|https?:|www\.|@|\.html?\b", re.IGNORECASE)
_DATE_ONLY_RE = re.compile(r"^[\d\s０-９年月日()（）/.:\-曜月火水木金土日〜~]+$")
_EN_SENTENCE_RE = re.compile(r"^[\"'“(]?[A-Z0-9].*[.!?][\"'”)]?$")
_FAMILY_RE = re.compile(r"[^\W\d_]+")


def summary_source(markdown: str) -> str:
    """The body text a summary is cut from: Markdown links and images reduced to their labels."""
    return _MD_LINK_RE.sub(r"\1", markdown)


def _prose_lines(markdown: str) -> list[str]:
    """Units of running text: no headings, tables, code, rules or lines that are only links. The lines of a
    hard-wrapped paragraph (a `<br>` in the middle of a sentence) are joined, so that a sentence is whole;
    a paragraph without any sentence end (verse, a list of names) stays line by line."""
    units: list[str] = []
    paragraph: list[str] = []
    in_code = False
    for raw in markdown.splitlines():
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            in_code = not in_code
        prose = not (in_code or not line or line.startswith(("#", "|", "---", "***", "<", "```", "~~~"))
                     or not any(map(str.isalpha, _MD_LINK_RE.sub("", line))))  # not only links (a menu)
        if not prose or _LIST_PREFIX_RE.match(line):  # a list item starts a unit of its own
            units += _unwrapped(paragraph)
            paragraph = []
            if not prose:
                continue
        paragraph.append(HARD_BREAK_RE.sub("", _LIST_PREFIX_RE.sub("", summary_source(line)).strip()))
    return units + _unwrapped(paragraph)


def _unwrapped(lines: list[str]) -> list[str]:
    """A paragraph's lines with each one that stops mid-sentence joined to the next (a space between two Latin
    characters, nothing between Japanese ones), when the paragraph ends a sentence anywhere."""
    if not any(_TERMINATOR_RE.search(line) for line in lines):
        return [line for line in lines if line]
    out: list[str] = []
    current = ""
    for line in lines:
        if not line:
            continue
        if current:
            current += (" " if current[-1].isascii() and line[0].isascii() else "") + line
        else:
            current = line
        if _ENDS_SENTENCE_RE.search(current):
            out.append(current)
            current = ""
    return out + ([current] if current else [])


# A line of a play's dialogue: the speaker's name, a space (or a colon), the words (`生徒 ここ。ここが演劇部の…`,
# `HAMLET: To be, or not to be`; a Latin name ends with a colon, or every English sentence would have a speaker).
_SPEAKER_RE = re.compile(r"^(?:([^\x00-\x7f\s、。，！？「」『』（）：…・]{1,10})[ 　]+|"  # 生徒 ここ。
                         r"([A-Za-z][^\s:：*_#|\\\[\]]{0,9}(?: [A-Za-z][^\s:：*_#|\\\[\]]{0,9})?)[:：][ 　]*)(?=\S)")
SCRIPT_SPEAKERS = 3  # speakers with at least two lines each...
SCRIPT_SHARE = 0.2  # ... and this share of the page's lines of text spoken: a script


def dialogue_lines(units: list[str]) -> set[int]:
    """The units (`_prose_lines`) of a script page that are spoken lines; empty when the page is not a script.
    A speaker is a name (no digits, not after a mark: `１月`, `■埼玉県` head a list's items) with two lines or
    more, most of them sentences (`投稿者 なな`, `タイトル Re: …` are a log's fields)."""
    speakers = [_speaker(unit) or None for unit in units]
    lines: dict[str, list[str]] = {}
    for name, unit in zip(speakers, units, strict=True):
        if name and name[0].isalpha() and not any(map(str.isdigit, name)):
            lines.setdefault(name, []).append(unit)
    cast = {name for name, said in lines.items()
            if len(said) >= 2 and 2 * sum(bool(_TERMINATOR_RE.search(u)) for u in said) >= len(said)}
    spoken = {i for i, name in enumerate(speakers) if name in cast}
    if len(cast) < SCRIPT_SPEAKERS or len(spoken) < SCRIPT_SHARE * len(units):
        return set()
    return spoken


def page_sentences(markdown: str) -> list[str]:
    """The body's sentences in order, each found in summary_source(markdown) character for character but for the
    line breaks of a hard-wrapped paragraph (see `squeezed`). A script's spoken lines are left out when it has
    prose besides them (stage directions, notes): a summary of a play quotes those, not a line of dialogue."""
    units = _prose_lines(markdown)
    spoken = dialogue_lines(units)
    if spoken and any(_TERMINATOR_RE.search(u) for i, u in enumerate(units) if i not in spoken):
        units = [u for i, u in enumerate(units) if i not in spoken]
    out = []
    for line in units:
        for text in _bracketed(_SENTENCE_RE.findall(line)):
            start = 0
            for cut in _EN_SPLIT_RE.finditer(text):
                if not _ABBREVIATION_RE.search(text, 0, cut.start()):  # "et al. Nakazawa" is one sentence
                    out.append(text[start:cut.start()])
                    start = cut.end()
            out.append(text[start:])
    return [s for s in (piece.strip() for piece in out) if s]


_OPENERS, _CLOSING = "(（「『", ")）」』"
_QUOTE_GOES_ON_RE = re.compile(r"(?:と|って|という|、|，|は|が|を|に|も)")


def _bracketed(pieces: list[str]) -> list[str]:
    """Sentences split at their terminators, joined again where a terminator fell inside brackets
    (`グレイマップ (アンチエイリアス。各ピクセルが…表す) フォントを…。` is one sentence) or the sentence goes on
    after a quote (`「行こう。」と言った。`); where the brackets of a line never close, the pieces stay as they
    are."""
    out: list[str] = []
    pending: list[str] = []  # the pieces of a sentence whose brackets are still open
    depth = 0
    for piece in pieces:
        if out and not pending and out[-1][-1:] in _CLOSING and _QUOTE_GOES_ON_RE.match(piece):
            pending.append(out.pop())  # 「行こう。」と言った。: the quote is part of the sentence
        pending.append(piece)
        depth += sum(piece.count(c) for c in _OPENERS) - sum(piece.count(c) for c in _CLOSING)
        if depth <= 0:
            out.append("".join(pending))
            pending, depth = [], 0
    return out + pending


def substantive(sentence: str, strict: bool = True) -> bool:
    """A sentence worth quoting: enough letters, mostly letters, not a date, a link or markup."""
    if len(sentence) > SUMMARY_CHARS or _NOT_PROSE_RE.search(sentence) or _DATE_ONLY_RE.match(sentence):
        return False
    letters = sum(map(str.isalpha, sentence))
    visible = len(sentence) - sum(map(str.isspace, sentence))
    if letters * 2 < visible or sentence.endswith((":", "：")):
        return False
    if not strict:
        return letters >= 4
    if not (sentence[0].isalnum() or sentence[0] in "「『（(\"“'"):  # a fragment: ': まず…', ') to …'
        return False
    if len(sentence.encode("ascii", "ignore")) * 2 < len(sentence):  # Japanese (or other non-Latin) text
        return letters >= 10
    # a whole English sentence, not a line of a hard-wrapped paragraph: capital start, 4+ words, final stop
    return (letters >= 10 and len(sentence.split()) >= 4 and _EN_SENTENCE_RE.match(sentence) is not None)


def quotable(sentences: list[str]) -> list[int]:
    """Per sentence: 2 when substantive, 1 when only substantive(strict=False) (strict implies the other), else 0."""
    return [2 if substantive(s) else int(substantive(s, strict=False)) for s in sentences]


def choose_summary(sentences: list[str], tags: list[str], common: set[str] = frozenset(),
                   quotes: list[int] | None = None) -> str:
    """The page's lead: the first 2-3 consecutive substantive sentences (≤ SUMMARY_CHARS in all, each ending in a
    stop: a line without one is a heading, a name, an affiliation) that do not open on a word that leans on what
    came before (`そして`, `このとき`, `However`: the middle of a thought); without such a window, the one holding
    the most of the page's tags, earliest on a tie. Sentences in `common` (the site's template, a banner) are never
    chosen. Japanese sentences are joined as they are, others with a space. A page without substantive sentences
    gets the start of its first long sentence (cut after a comma), else its one best line of text (a caption),
    else ''. `quotes`: quotable(sentences), when already known."""
    if quotes is None:
        pool = [s for s in sentences if s not in common and substantive(s)]
    else:
        pool = [s for s, q in zip(sentences, quotes, strict=True) if q == 2 and s not in common]
    if not pool:
        lines = [s for s, q in zip(sentences, quotes or quotable(sentences), strict=True) if q and s not in common]
        return _clause(sentences, common) or _best_window([[s] for s in lines], tags)
    windows = []
    for start in range(len(pool)):
        window: list[str] = []
        for sentence in pool[start:start + SUMMARY_SENTENCES]:
            if len(_join([*window, sentence])) > SUMMARY_CHARS:
                break
            window.append(sentence)
        windows.append(window)
    for window in windows:
        prose = list(takewhile(_ENDS_SENTENCE_RE.search, window))  # a line with no stop: a heading, a name
        if prose and not _LEANS_BACK_RE.match(prose[0]):
            return _join(prose)
    return _best_window(windows, tags)


# A sentence that opens on a connective or a word pointing back (`そして`, `このとき`, `一方`, `And`, `However`)
# continues a thought begun before it: no place for a summary to start.
_LEANS_BACK_RE = re.compile(
    r"^(?:そして|しかし|しかも|だが|でも|また[、，]|さらに|それで|それから|それに|それでも|それは|ところが|ところで|"
    r"つまり|なお|一方|このとき|この時|その時|その後|そのため|そこで|だから|したがって|ただし|けれども|けれど|"
    r"(?:And|But|So|Then|Also|However|Thus|Therefore|Moreover|Furthermore|Besides|Otherwise)\b"
    r"|[のはがをにへや][、\u4e00-\u9fff])")  # a particle first: the sentence was cut after its noun (`の時、`)


def _best_window(windows: list[list[str]], tags: list[str]) -> str:
    """The window holding the most tags plus sentences, earliest on a tie, joined."""
    best: tuple[int, int] = (-1, 0)
    chosen: list[str] = []
    held: dict[str, int] = {}  # sentence -> the tags in it, one bit each
    for n, window in enumerate(windows):
        bits = 0
        for s in window:
            if s not in held:
                held[s] = sum(1 << i for i, t in enumerate(tags) if t in s)
            bits |= held[s]
        score = (bin(bits).count("1") + len(window), -n)
        if window and score > best:
            best, chosen = score, window
    return _join(chosen)


def _clause(sentences: list[str], common: set[str]) -> str:
    """The start of the first long prose sentence, cut after a comma (、，,) or space within SUMMARY_CHARS."""
    for sentence in sentences:
        head = sentence[:SUMMARY_CHARS]
        cut = max(head.rfind(mark) for mark in ("、", "，", ", ", " "))
        if sentence in common or len(sentence) <= SUMMARY_CHARS or cut < 20:
            continue
        head = head[:cut + 1].rstrip(" ,")
        if substantive(head):
            return head
    return ""


def _join(sentences: list[str]) -> str:
    out = ""
    for s in sentences:
        out += s if not out or out[-1] in "。．！？」』）" else " " + s
    return out


def squeezed(text: str) -> str:
    """Text without its whitespace and hard-break marks: how a summary's sentence is found in the body, whose
    hard-wrapped lines page_sentences joined."""
    return _SPACE_RE.sub("", text)


def summary_is_exact(summary: str, markdown: str) -> bool:
    """Whether `summary` is whole sentences of the body, each a substring of summary_source(markdown) character
    for character but for whitespace and hard breaks (`squeezed`), joined as choose_summary joins them (nothing
    or one space between)."""
    source = squeezed(summary_source(markdown))
    ends = {0, len(summary)} | {i + 1 for i, ch in enumerate(summary) if ch in "。．！？.!?」』）\"”"} \
        | {i for i, ch in enumerate(summary) if ch == " "}
    ok = [False] * (len(summary) + 1)  # ok[i]: summary[:i] is such a sequence
    ok[0] = True
    for end in sorted(ends - {0}):
        for start in sorted(e for e in ends if e < end and ok[e]):
            piece = summary[start + 1 if start and summary[start:start + 1] == " " else start:end]
            if piece and squeezed(piece) in source:
                ok[end] = True
                break
    return ok[-1]


def family(name: str) -> str:
    """A file name's family: its leading letters, lower-cased (nikki0107.html → nikki, live20150725 → live,
    daihon-yuki1.htm → daihon); '' when it starts with none."""
    match = _FAMILY_RE.match(PurePosixPath(name).name)
    return match.group().lower() if match else ""


def structure_categories(paths: list[str]) -> dict[str, str]:
    """Category of each page path from the site's own structure.

    Folders every page shares (`ja/` of a one-language mirror) are skipped; then a page in a folder gets the
    folder's name (`diary/…` → diary), a page at the top gets its file-name family when at least 2 top pages
    share it (nikki0107, nikki0108 → nikki), and the remaining top pages — the home page and other singletons
    (index, links, profile) — get TOP_CATEGORY.
    """
    parts = {p: PurePosixPath(p).parts for p in paths}
    common = 0
    while parts and all(len(pp) > common + 1 for pp in parts.values()) \
            and len({pp[common] for pp in parts.values()}) == 1:
        common += 1
    families = Counter(family(pp[-1]) for pp in parts.values() if len(pp) == common + 1)
    out = {}
    for path, pp in parts.items():
        rest = pp[common:]
        if len(rest) > 1:
            out[path] = rest[0]
            continue
        fam = family(rest[0])
        out[path] = fam if fam and families[fam] >= 2 and fam not in _INDEX_FAMILIES else TOP_CATEGORY
    return out


def site_sections(layout: SiteLayout, docs: list[_Doc], banner: tuple, shared_titles: set[str],
                  link_texts: list[str] | None = None) -> dict[str, str]:
    """Each document's category by page path: the name its site gives its section (its menus' link texts, the
    section's index title, a folder named by a word), else its page kind (siterag.enrich.sections). The links are
    read from the normalized pages; a page whose normalized copy is gone counts with none. A <title> many pages
    share (an editor's default, the site's name) names no section."""
    paths = {d.path for d in docs}
    links = {}
    for d in docs:
        try:
            html = safe_path(layout.normalized, d.path).read_text(encoding="utf-8", errors="replace")
        except (OSError, ValueError):
            html = ""
        links[d.path] = page_links(html, d.path, paths) if html else []
    titles = {d.path: without_banner(d.page_title, *banner) for d in docs if d.title not in shared_titles}
    if link_texts is not None:  # what the site calls its pages: the evidence of whole names (site_names)
        link_texts.extend(text for found in links.values() for _, text in found)
    kinds = {d.path: d.kind for d in docs}
    return site_categories([d.path for d in docs], links, titles, lambda p: kinds[p] or "other")


def nearest_categories(texts: list[str], categories: tuple[str, ...], embedder) -> list[str]:  # noqa: ANN001
    """For each text, the category name nearest by cosine under `embedder` (an siterag.index.embedding Embedder)."""
    if not texts:
        return []
    names = embedder.embed(list(categories))
    vectors = embedder.embed(texts)
    return [categories[int(i)] for i in (vectors @ names.T).argmax(axis=1)]


@dataclass
class SiteStats:
    """What machine metadata needs from the whole site: term and sentence document frequencies (sentences by
    sentence_key)."""

    docs: int
    df: Counter[str] = field(default_factory=Counter)
    sentence_df: Counter[str] = field(default_factory=Counter)

    def common(self, sentences: list[str]) -> set[str]:
        """Those of `sentences` that other pages share, which say nothing of this one: on 3 or more pages (the
        site's template, a section's banner above each of its talks), or on every page of a site of 2-3 (a page
        and its copy, page.htm and page.bak, share their sentences)."""
        out = set()
        for s in sentences:
            n = self.sentence_df.get(sentence_key(s), 0)
            if n >= 3 or (n >= 2 and n == self.docs):
                out.add(s)
        return out

    def repeated(self, lines: list[str]) -> set[str]:
        """Those of a page's short lines (PageFacts.lines) that BOILER_DOCS or more pages of the site hold: its
        menus, notices, footers (`クリックすると拡大します。`, `TOP weblog TIPS`): their words are the site's."""
        return {line for line in lines if self.sentence_df.get(line_key(line), 0) >= BOILER_DOCS}


BOILER_DOCS = 3
LINE_CHARS = 80  # a longer line is a paragraph of the page's own, never the site's boilerplate


def line_key(line: str) -> str:
    """What a short line counts by in SiteStats.sentence_df (apart from sentences)."""
    return sentence_key("\x00line\x00" + line)


def short_lines(body: str) -> list[str]:
    """The body's distinct short lines of text (≤ LINE_CHARS), link targets and marks aside, in order."""
    out = {}
    for raw in body.splitlines():
        line = " ".join(_LINE_MARKS_RE.sub("", summary_source(raw)).split())
        if line and len(line) <= LINE_CHARS:
            out.setdefault(line, None)
    return list(out)


_LINE_MARKS_RE = re.compile(r"^[#>\-*+\s]+|[*_`|\\]|\{#[^}]*\}\s*$")


def sentence_key(sentence: str) -> str:
    """A short hash of a sentence: what the site's sentence document frequencies count."""
    return hashlib.blake2b(sentence.encode(), digest_size=8).hexdigest()


@dataclass
class DocSummary:
    """What the site's document frequencies need of one page: its term keys and sentence keys."""

    terms: list[str]
    sentences: list[str]


def doc_summary(terms: PageTerms, sentences: list[str], lines: list[str] = ()) -> DocSummary:
    """Term keys and sentence keys of one page (its short lines' keys, line_key, among the sentence keys)."""
    return DocSummary(sorted(terms.counts), sorted({sentence_key(s) for s in sentences} | {line_key(x) for x in lines}))


def machine_fields(body: str, title: str, stats: SiteStats, facts: PageFacts | None = None,
                   names: dict[str, list[str]] | None = None) -> dict:
    """tags (≤ 8, each verbatim in the body) and summary of one page, against the site's document frequencies;
    `facts` are the page's (page_facts), when already known; `names`: the site's whole names (site_names: its
    titles and link texts). The tags are terms and whole names of the page's own text (not only in the lines the
    site repeats), its title's subject among them; the summary is the page's lead (choose_summary), or on a page
    of entries, a list, a table or short lines, one composed from its structure (composed_summary)."""
    facts = page_facts(body) if facts is None else facts
    repeated = stats.repeated(facts.lines)
    own_text = "\n".join(x for x in body.splitlines() if not repeated or _line_text(x) not in repeated)
    headings = [h for h in _HEADING_RE.findall(body)]
    found = {}
    for name, parts in [*(names or {}).items(), *site_names([title, *headings]).items()]:
        if name not in found and parts and all(p in facts.terms.counts for p in parts) and name in own_text:
            found[name] = parts
    subject_text = "\n".join([title, *headings]).casefold()
    scored = score_terms(facts.terms, stats.df, stats.docs, title, found, subject_text)
    title_keys = set(name_parts(title)) | {term_key(n) for n in site_names([title])}
    subject = [t for t, _ in scored if term_key(t) in title_keys and not _generic(t)]
    tags = pick_tags(scored, body, own_text=own_text, subject=subject)
    assert all(t in body for t in tags)
    common = stats.common(facts.sentences) | {s for s in facts.sentences if _UI_SENTENCE_RE.search(s)}
    lead = choose_summary(facts.sentences, tags, common, facts.quotes)
    return {"tags": tags, "summary": composed_summary(body, title, lead) or lead}


SUBJECT_ZIPF = 4.5  # an English word of the title this common (`Life` of `My life and times`) is no subject


def _generic(term: str) -> bool:
    """A single English word common enough (keywords.english_zipf) to say nothing as the page's subject."""
    zipf = english_zipf(term.lower()) if term.isascii() and term.isalpha() else None
    return zipf is not None and zipf >= SUBJECT_ZIPF


_HEADING_RE = re.compile(r"^#{1,6}\s+(.+?)\s*(?:\{#[^}]*\})?\s*$", re.MULTILINE)
# A sentence that speaks to the reader about the page, not of its subject: `詳しくは…をご覧下さい。`,
# `クリックすると拡大します。`, `Click here to …`.
_UI_SENTENCE_RE = re.compile(r"ご覧|御覧|クリック|こちら(?:から|を|へ|で|です)|お問い?合わせ|ご了承|\bclick\b|\bhere\b",
                             re.IGNORECASE)


def _line_text(raw: str) -> str:
    return " ".join(_LINE_MARKS_RE.sub("", summary_source(raw)).split())


_NAME_SPLIT_RE = re.compile(r"\s+[-–—|｜/／:：~～>＞»]+\s+|[|｜／【】「」『』《》〈〉()（）\[\]<>:：]|\s{2,}|　")
_HIRAGANA_RE = re.compile(r"[\u3041-\u309f]")
_EN_SMALL = frozenset("of the and in on a an to for at by with de la le du".split())
NAME_CHARS = 30


def site_names(texts: Iterable[str]) -> dict[str, list[str]]:
    """Whole names in a site's own words, with their parts (keywords.name_parts): the pieces of titles,
    headings and link texts (split at separators and brackets) that are a name, not a phrase: Japanese with at
    most one hiragana (湖畔の宿, not インターネットでできること), English of 2-4 words in title case (Fait
    Accompli, Hedley Ward Trio), made of two parts or more; no navigation word, date or file name (clean_label)."""
    out: dict[str, list[str]] = {}
    for text in texts:
        for piece in _NAME_SPLIT_RE.split(text or ""):
            name = clean_label(piece) if len(piece.strip()) <= NAME_CHARS else ""
            if not name or name in out or len(name) > NAME_CHARS:
                continue
            if name.isascii():
                words = name.split()
                if not (2 <= len(words) <= 4 and words[0][:1].isupper() and words[-1][:1].isupper()
                        and all(w[:1].isupper() or w.lower() in _EN_SMALL for w in words)):
                    continue
            elif len(_HIRAGANA_RE.findall(name)) > 1 or " " in name:
                continue
            parts = name_parts(name)
            if len(parts) >= 2:
                out[name] = parts
    return out


_EN_MONTHS = ("january february march april may june july august september october november december "
              "monday tuesday wednesday thursday friday saturday sunday").split()
_JA_CHARS_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
_DURATION_RE = re.compile(r"(?<![\d:])\d{1,2}[:：]\d\d(?![\d:])")
_ENTRY_RE = re.compile(r"^#{1,6}\s+(.*?)\s*\{#(\d{4}(?:-\d\d){0,2})[^}]*\}\s*$", re.MULTILINE)
_ITEM_RE = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(.+)$")
_DATE_WORDS_RE = re.compile(r"^(?:[\d０-９]+(?:st|nd|rd|th)?\b|[年月日曜()（）,.\-/〜~\s]|(?:"
                            + "|".join(_EN_MONTHS) + r")\b)+", re.IGNORECASE)  # a date at a heading's start
LIST_SHOWN = 3  # entry or item titles quoted in a composed summary
ITEM_CHARS = 40  # a longer list item is prose, not an entry of a list


def _is_ja(text: str) -> bool:
    letters = sum(map(str.isalpha, text))
    return letters > 0 and len(_JA_CHARS_RE.findall(text)) * 5 >= letters


def _quoted(items: list[str], ja: bool) -> str:
    shown = [_clip(x) for x in items[:LIST_SHOWN]]
    more = len(items) > LIST_SHOWN
    if ja:
        return " / ".join(shown) + (" ほか" if more else "")
    return " / ".join(shown) + (" …" if more else "")


def _clip(text: str, chars: int = ITEM_CHARS) -> str:
    return text if len(text) <= chars else text[:chars - 1].rstrip() + "…"


def _structure(body: str) -> dict:
    """The body's structural facts: entries (title, date), list items, table rows (cells), link lines, short
    lines of text without a stop, lines of text."""
    entries = [(_DATE_WORDS_RE.sub("", _MARKS_RE.sub("", t)).strip(" :-—•・"), d, t)
               for t, d in _ENTRY_RE.findall(body)]
    items, rows, links, short, text = [], [], [], [], 0
    header: list[str] = []
    in_code = False
    for raw in body.splitlines():
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            in_code = not in_code
        if in_code or not line or line.startswith("#"):
            continue
        if line.startswith("|"):
            cells = [_plain_cell(c) for c in line.strip("|").split("|")]
            if set(line) <= set("|-: "):
                continue
            (rows if header else header).extend([cells] if header else cells)
            continue
        plain = " ".join(HARD_BREAK_RE.sub("", summary_source(_MD_IMAGE_ONLY_RE.sub("", line))).split()).strip("*_ ")
        if not plain:
            continue
        text += 1
        item = _ITEM_RE.match(line)
        if item:
            items.append(" ".join(summary_source(item.group(1)).strip("*_ ").split()))
        if _MD_LINK_RE.search(line) and len(_MD_LINK_RE.sub("", line).strip(" -*・|/、,")) < 20:
            links.append(plain)
        elif not item and len(plain) <= ITEM_CHARS and not _TERMINATOR_RE.search(plain):
            short.append(plain)
    return {"entries": entries, "items": items, "header": header, "rows": rows, "links": links, "short": short,
            "text": text}


_MARKS_RE = re.compile(r"[*_`]")
_MD_IMAGE_ONLY_RE = re.compile(r"!\[[^\]]*\]\([^)]*\)")


def _plain_cell(cell: str) -> str:
    return " ".join(summary_source(_MD_IMAGE_ONLY_RE.sub("", cell)).strip("*_ ").split())


COMPOSE_ITEMS = 4  # a list, table or link list of at least this many entries makes a composed summary
VERSE_LINES = 8  # short lines without a stop, at least this many and most of the text: verse, lyrics, a roster


def composed_summary(body: str, title: str, lead: str = "") -> str:
    """A summary composed from the page's structure, in the page's language, when its text is not prose led by
    a paragraph: entries (`Diary: 12 entries, 2002-05-18 to 2002-06-30: A / B / C …`), a track list (rows or items
    with a duration: `Track list of T: 12 titles, from 'A' to 'B'.`), a link list (`リンク集: 40 件: A / B / C ほか`),
    a list or table (`T: list of 12 items: A / B / C …`), or short lines (`T: 24 short lines (verse or lyrics),
    beginning 'A'.`). Only the page's own facts: counts, dates, the titles of entries, items and rows. '' when the
    page is prose, or `lead` (the chosen lead) comes from a paragraph of its own and the page is no list of entries
    (a link list under an introduction keeps the introduction)."""
    st = _structure(body)
    ja = _is_ja(body)
    name = title.strip()
    entries = st["entries"]
    if len(entries) >= 2:
        dates = sorted(d for _, d, _ in entries)
        titled = [t for t, _, _ in entries if sum(map(str.isalpha, t)) >= 2]
        if len(titled) * 2 < len(entries):  # headings that are dates only: the topics under them, if any
            titled = _topics(body, name)
        shown = f": {_quoted(titled, ja)}" if titled else ""
        if ja:
            return f"日記: {len(entries)}件、{dates[0]}〜{dates[-1]}{shown}"
        return f"Diary: {len(entries)} entries, {dates[0]} to {dates[-1]}{shown}."
    rows = st["rows"]
    tracks = [r[0] for r in rows if any(_DURATION_RE.search(c) for c in r[1:]) and r[0]] or [
        _DURATION_RE.sub("", i).strip(" -–—()（）") for i in st["items"] if _DURATION_RE.search(i)]
    if len(tracks) >= 3:
        if ja:
            return f"「{name}」の曲目: {len(tracks)}曲、「{_clip(tracks[0])}」から「{_clip(tracks[-1])}」まで。"
        return f"Track list of {name}: {len(tracks)} titles, from '{_clip(tracks[0])}' to '{_clip(tracks[-1])}'."
    if lead and not _lead_from_structure(lead, st):
        return ""
    links, items, short = st["links"], st["items"], st["short"]
    label = f"{name}: " if name else ""
    if len(links) >= COMPOSE_ITEMS and len(links) * 2 >= st["text"]:
        return f"リンク集: {len(links)}件: {_quoted(links, ja)}" if ja else \
            f"{label}list of {len(links)} links: {_quoted(links, ja)}."
    if len(rows) >= COMPOSE_ITEMS and len(rows) >= st["text"]:
        columns = " / ".join(_clip(h, 20) for h in st["header"] if h)
        firsts = [r[0] for r in rows if r and r[0]]
        if ja:
            return f"{label}表、{len(rows)}行" + (f"（列: {columns}）" if columns else "") + \
                (f": {_quoted(firsts, ja)}" if firsts else "")
        return f"{label}table of {len(rows)} rows" + (f" (columns: {columns})" if columns else "") + \
            (f": {_quoted(firsts, ja)}." if firsts else ".")
    if len(items) >= COMPOSE_ITEMS and len(items) * 2 >= st["text"]:
        return f"{label}{len(items)}項目の一覧: {_quoted(items, ja)}" if ja else \
            f"{label}list of {len(items)} items: {_quoted(items, ja)}."
    if not lead and len(short) >= VERSE_LINES and len(short) * 3 >= st["text"] * 2:
        if ja:
            return f"{label}短い行 {len(short)} 行（詩・歌詞など）、「{_clip(short[0])}」で始まる。"
        return f"{label}{len(short)} short lines (verse or lyrics), beginning '{_clip(short[0])}'."
    return ""


_HEADING_LINE_RE = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.MULTILINE)


def _topics(body: str, title: str) -> list[str]:
    """The headings of a diary page that are not its entries' date headings nor its title: the topics the
    author set under some days (`## Death of my mother` under `### TUESDAY 13th MAY 1997`)."""
    out = []
    for heading in _HEADING_LINE_RE.findall(body):
        text = _MARKS_RE.sub("", heading).strip()
        if "{#" in text or squeezed(text) == squeezed(title) or sum(map(str.isalpha, text)) < 3:
            continue
        if text not in out:
            out.append(text)
    return out


def _lead_from_structure(lead: str, st: dict) -> bool:
    """Whether the lead's start lies in a list item, a table row, a link line or a short line (not a paragraph)."""
    head = squeezed(lead)[:12]
    pieces = [*st["items"], *st["links"], *st["short"], *(c for r in st["rows"] for c in r)]
    return any(head in squeezed(p) or (len(squeezed(p)) >= 4 and squeezed(p) in head) for p in pieces)


def needs_machine_fields(fields: dict) -> bool:
    """A document whose machine fields are missing: written by an older run (no category, or the old
    `metadata_by: fallback`) or cut off before the site pass. LLM-written fields are left alone."""
    by = fields.get("metadata_by")
    return by != "llm" and (by == "fallback" or not fields.get("category"))


FACTS_FILE = "enrich-pages.sqlite"  # in data/logs/<site>/: each body's PageFacts, by body hash
_LEGACY_CACHE = "enrich-cache.json"  # what an older siterag kept there instead
_LOOKUP = 500  # hashes per SELECT


@dataclass
class PageFacts:
    """The per-page part of the site pass, which depends on one body only: its terms and sentences."""

    terms: PageTerms
    sentences: list[str]
    quotes: list[int]  # quotable(sentences)
    lines: list[str] = field(default_factory=list)  # short_lines(body)


def page_facts(body: str) -> PageFacts:
    """Terms and sentences of one body (the tokenising: the costly part); an epigraph's are not the page's."""
    body = without_epigraphs(body)
    sentences = page_sentences(body)
    return PageFacts(page_terms(term_source(body)), sentences, quotable(sentences), short_lines(body))


# An epigraph's attribution: a dash, then who wrote it and where (a year, a 『title』), no sentence of its own:
# `― A. A. ミルン, 1928 年`, `―『聖女ジョウン』第四場` (not an interview's `― どうしてですか。`, not `― 続く ―`).
_ATTRIBUTION_RE = re.compile(r"^[―—]{1,2}\s*(?P<who>[^―—]{1,60}?)\s*$")
_SOURCE_RE = re.compile(r"(?<!\d)(?:1[5-9]|20)\d\d(?!\d)|『")
_BLOCK_START_RE = re.compile(r"^(?:#|\||```|>|!\[|[-*+]\s|\d+[.)]\s)")
EPIGRAPH_CHARS = 1500  # a longer run of text above an attribution is the page's own text quoting, not an epigraph


def without_epigraphs(markdown: str) -> str:
    """`markdown` without its epigraphs: the paragraphs right above an attribution line (up to a heading, a
    list, a table or a picture, at most EPIGRAPH_CHARS), the attribution and the short lines under it (source,
    translator). FontForge's overview opens with Winnie-the-Pooh; its summary and tags are not Eeyore's."""
    if "―" not in markdown and "—" not in markdown:
        return markdown
    lines = markdown.splitlines()
    drop: set[int] = set()
    for i, line in enumerate(lines):
        found = _ATTRIBUTION_RE.match(HARD_BREAK_RE.sub("", line.strip()))
        who = found.group("who") if found else ""
        if not who or who.endswith(tuple("。．.？?！!")) or not _SOURCE_RE.search(who):
            continue
        top = i
        while top > 0 and not _BLOCK_START_RE.match(lines[top - 1].strip()):
            top -= 1
        if not any(lines[top:i]) or sum(len(x) for x in lines[top:i]) > EPIGRAPH_CHARS:
            continue
        end = i + 1
        while end < len(lines) and lines[end].strip() and len(lines[end].strip()) <= 40:
            end += 1
        drop.update(range(top, end))
    return "\n".join(x for n, x in enumerate(lines) if n not in drop) if drop else markdown


def term_source(body: str) -> str:
    """The text a page's tags are chosen from: the body; a play's spoken lines reduced to their speaker. Its
    characters and what the stage directions name are what the play is about; the words its characters say
    (`ハゲ`, `ママ`, `兄ちゃん`) are not. The label of a field (`投稿者 ： 越智`, `E-Mail: …`) is no word of the
    page's either: a log or a form writes it on every entry."""
    units = _prose_lines(body)
    spoken = dialogue_lines(units)
    cast = {_speaker(units[i]) for i in spoken}
    out = []
    for line in body.splitlines():
        name = _speaker(HARD_BREAK_RE.sub("", line.strip())) if cast else ""
        out.append(name if name in cast else _FIELD_LABEL_RE.sub("", line))
    return "\n".join(out) + ("\n" if body.endswith("\n") else "")


# A field's label at a line's start: `投稿者 ： `, `投稿者名：`, `E-Mail: `, `■題名：` (short, then a colon).
_FIELD_LABEL_RE = re.compile(r"^[\s*_>■□◆●・-]*[^\s\d:：*_/]{1,6}\s*[:：](?!//)\s*(?=\S)")


def _speaker(unit: str) -> str:
    """The speaker's name a line opens with (`生徒 ここ。`), else ''."""
    match = _SPEAKER_RE.match(_BOLD_NAME_RE.sub(r"\2", unit))
    return (match.group(1) or match.group(2)) if match else ""


_BOLD_NAME_RE = re.compile(r"^(\*\*|__)([^*_\s]{1,10})\1(?=[ 　])")  # `**知輝** 斉藤先生じゃないですか。`


def encode_facts(facts: PageFacts) -> tuple[str, str, bytes]:
    """(term keys, sentence keys, the facts) as JSON, the facts zlib-compressed (they hold every sentence of the
    page: ~4x smaller): the first two are what document frequencies need."""
    summary = doc_summary(facts.terms, facts.sentences, facts.lines)
    t = facts.terms
    rows = [[key, n, t.first[key], t.surface[key]] for key, n in t.counts.items()]
    return (_json(summary.terms), _json(summary.sentences),
            zlib.compress(_json({"terms": rows, "sentences": facts.sentences, "quotes": facts.quotes,
                                 "lines": facts.lines}).encode(), 1))


def decode_facts(raw: bytes | str) -> PageFacts:
    """The PageFacts that encode_facts wrote (its third value)."""
    data = json.loads(zlib.decompress(raw) if isinstance(raw, bytes) else raw)
    terms = PageTerms(Counter({k: n for k, n, _, _ in data["terms"]}), {k: s for k, _, _, s in data["terms"]},
                      {k: f for k, _, f, _ in data["terms"]})
    return PageFacts(terms, data["sentences"], data["quotes"], data.get("lines", []))


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _facts_key() -> str:
    """Facts are valid for this code of siterag.enrich.keywords and siterag.enrich.enrich."""
    from siterag.enrich import keywords

    return code_hash(keywords, sys.modules[__name__])


def facts_db(layout: SiteLayout) -> sqlite3.Connection:
    """The site's PageFacts table (SQLite in WAL mode: the Dask workers write it at once, a crash loses no more than
    the transaction it was in)."""
    from siterag.index.embed_cache import open_cache_db

    return open_cache_db(layout.logs / FACTS_FILE, "CREATE TABLE IF NOT EXISTS pages (hash TEXT PRIMARY KEY, "
                         "code TEXT NOT NULL, terms TEXT NOT NULL, sentences TEXT NOT NULL, facts TEXT NOT NULL)")


def _open_facts(layout: SiteLayout) -> sqlite3.Connection:
    """facts_db, started afresh when the file is no database (a stray or damaged file: it is only a cache)."""
    try:
        return facts_db(layout)
    except sqlite3.DatabaseError:
        for suffix in ("", "-wal", "-shm"):
            (layout.logs / (FACTS_FILE + suffix)).unlink(missing_ok=True)
        return facts_db(layout)


def _save_facts(db: sqlite3.Connection, rows: list[tuple[str, str, str, str, bytes]]) -> None:
    with db:
        db.executemany("INSERT OR REPLACE INTO pages (hash, code, terms, sentences, facts) VALUES (?, ?, ?, ?, ?)",
                       rows)


def _stored(db: sqlite3.Connection, hashes: list[str], code: str, columns: str = "terms, sentences") -> dict:
    """hash -> the stored columns of those of `hashes` with facts from this code."""
    found = {}
    for start in range(0, len(hashes), _LOOKUP):
        part = list(dict.fromkeys(hashes[start:start + _LOOKUP]))
        rows = db.execute(f"SELECT hash, {columns} FROM pages WHERE code = ? AND hash IN "  # noqa: S608 - no input
                          f"({','.join('?' * len(part))})", [code, *part])
        found.update((row[0], row[1:]) for row in rows)
    return found


def store_page_facts(layout: SiteLayout, rels: list[str]) -> int:
    """Compute and save the PageFacts of these corpus documents (new or changed: in the extract tasks, spread over
    the workers) for the site pass; returns how many were computed. Best effort: enrich_site computes what is
    missing."""
    if not rels:
        return 0
    code = _facts_key()
    try:
        with closing(facts_db(layout)) as db:
            bodies = {}
            for rel in rels:
                parsed = read_doc(layout.corpus / rel)
                if parsed is not None:
                    bodies.setdefault(content_hash(parsed[1]), parsed[1])
            known = _stored(db, list(bodies), code, "code")
            rows = [(h, code, *encode_facts(page_facts(body))) for h, body in bodies.items() if h not in known]
            _save_facts(db, rows)
    except sqlite3.Error:
        return 0
    return len(rows)


@dataclass
class _Doc:
    """What the site pass keeps of each document between reading and rewriting it."""

    rel: str
    path: str  # its page path: what categories go by
    body_hash: str
    target: bool  # to be given machine fields
    title: str  # its <title>, normalised
    opening: tuple[str, ...]  # its first lines of text, normalised
    borne_out: bool  # its text mentions most words of its title (metadata.stale_title)
    page_title: str = ""  # its <title> as written
    kind: str = ""  # what its structure says it is (sections.page_kind): the category when its site names none


def _page_title(fields: dict) -> str:
    """A document's own <title>: `page_title` where the site pass retitled it, else `title`."""
    return str(fields.get("page_title") or fields.get("title") or "")


def _shared(keys: Iterable[str], times: int = SHARED_TITLE_DOCS) -> set[str]:
    """The non-empty keys that occur `times` times or more."""
    return {key for key, n in Counter(keys).items() if key and n >= times}


def _read_docs(layout: SiteLayout) -> Iterator[tuple[str, dict, str]]:
    """(corpus path, fields, body) of each document of the site, one at a time."""
    for path in sorted(layout.corpus.rglob("*.md")) if layout.corpus.exists() else []:
        if is_temp_file(path.name):  # half-written by a run that was killed (or is writing now)
            continue
        parsed = read_doc(path)
        if parsed:
            yield path.relative_to(layout.corpus).as_posix(), *parsed


def _site_stats(layout: SiteLayout, db: sqlite3.Connection, docs: list[_Doc], code: str) -> SiteStats:
    """Document frequencies over all documents: their stored term and sentence keys, the PageFacts of those not
    stored computed (and saved) now."""
    stats = SiteStats(len(docs))
    rows: list[tuple[str, str, str, str, bytes]] = []
    for start in range(0, len(docs), _LOOKUP):
        part = docs[start:start + _LOOKUP]
        found = _stored(db, [d.body_hash for d in part], code)
        for doc in part:
            if doc.body_hash not in found:
                parsed = read_doc(layout.corpus / doc.rel)
                row = (doc.body_hash, code, *encode_facts(page_facts(parsed[1] if parsed else "")))
                rows.append(row)
                found[doc.body_hash] = row[2:4]
                if len(rows) >= 50:  # saved as it goes: a run killed here keeps what it computed
                    _save_facts(db, rows)
                    rows = []
            terms, sentences = found[doc.body_hash]
            stats.df.update(json.loads(terms))
            stats.sentence_df.update(json.loads(sentences))
    _save_facts(db, rows)
    return stats


def _prune(db: sqlite3.Connection, hashes: set[str], code: str) -> None:
    """Drop the facts of bodies no document has any more, and those of other code."""
    with db:
        db.execute("CREATE TEMP TABLE IF NOT EXISTS live (hash TEXT PRIMARY KEY)")
        db.execute("DELETE FROM live")
        db.executemany("INSERT OR IGNORE INTO live VALUES (?)", [(h,) for h in hashes])
        db.execute("DELETE FROM pages WHERE code != ? OR hash NOT IN (SELECT hash FROM live)", [code])


def enrich_site(layout: SiteLayout, site: SiteConfig, touched: set[str], embedder_name: str = "",
                progress: Callable[[int, int], None] | None = None) -> dict:
    """Give machine tags / summary / category to the corpus documents in `touched` (corpus paths new or changed
    in this run) and to any document still missing them; document frequencies are over the whole site.
    LLM-written documents and every other document keep their fields. Returns counts and seconds.

    The per-page part (PageFacts) is read from FACTS_FILE when the extract tasks stored it (store_page_facts),
    else computed here; bodies are read one at a time (again when a document is rewritten), never all held."""
    started = time.perf_counter()
    code = _facts_key()
    # A document whose machine fields an older siterag chose (another enrich_key) is done again, once.
    docs = [_Doc(rel, str(fields.get("path") or rel), content_hash(body),
                 fields.get("metadata_by") != "llm" and (rel in touched or needs_machine_fields(fields)
                                                         or fields.get("enrich_key") != code),
                 normalise(_page_title(fields)), tuple(normalise(line) for line in opening_lines(body)),
                 not stale_title(_page_title(fields), body), _page_title(fields), page_kind(body))
            for rel, fields, body in _read_docs(layout)]
    targets = [d for d in docs if d.target]
    if not targets:
        return {"documents": len(docs), "enriched": 0, "rewritten": 0,
                "seconds": round(time.perf_counter() - started, 2)}
    (layout.logs / _LEGACY_CACHE).unlink(missing_ok=True)
    shared_titles = _shared(d.title for d in docs)
    # a title two pages hold, which one's text bears out and the other's does not: copied with the page
    copied_titles = _shared((d.title for d in docs), 2) & {d.title for d in docs if d.borne_out}
    shared_lines = _shared(line for d in docs for line in set(d.opening))
    banner = banner_affixes(d.page_title for d in docs)  # `Site name - ` in many <title>s
    link_texts: list[str] = []
    categories = site_sections(layout, docs, banner, shared_titles, link_texts)
    names = site_names(dict.fromkeys([*(without_banner(d.page_title, *banner) for d in docs
                                        if d.title not in shared_titles), *link_texts]))
    new: dict[str, dict] = {}  # machine fields of the documents that wait for their category
    texts: list[str] = []
    rewritten = 0
    with closing(_open_facts(layout)) as db:
        stats = _site_stats(layout, db, docs, code)
        for n, doc in enumerate(targets, 1):
            parsed = read_doc(layout.corpus / doc.rel)
            if parsed is None:
                continue
            fields, body = parsed
            stored = _stored(db, [body_hash := content_hash(body)], code, "facts").get(body_hash)
            facts = decode_facts(stored[0]) if stored else page_facts(body)
            page_title = _page_title(fields)
            title = own_title(page_title, body, shared_titles, shared_lines, doc.path, copied_titles)
            if not title and (plain := without_banner(page_title, *banner)) != page_title:
                title = plain
            machine = {**machine_fields(body, title or page_title, stats, facts, names),
                       "category": categories[doc.path], "enrich_key": code}
            if title:  # the <title> the page shares with many others stays as page_title
                machine.update(title=title, page_title=page_title)
            if site.categories:  # the category waits for the embedder: written below
                new[doc.rel] = machine
                texts.append(f"{machine.get('title') or fields.get('title') or ''}\n{machine['summary'] or body[:300]}")
            else:
                rewritten += _rewrite(layout, doc.rel, fields, body, machine)
            if progress:
                progress(n, len(targets))
        _prune(db, {d.body_hash for d in docs}, code)
    if site.categories:
        from siterag.index.embedding import get_embedder

        chosen = nearest_categories(texts, site.categories, get_embedder(embedder_name or "use-multilingual-v3"))
        for rel, category in zip(new, chosen, strict=True):
            parsed = read_doc(layout.corpus / rel)
            if parsed is not None:
                rewritten += _rewrite(layout, rel, *parsed, {**new[rel], "category": category})
    return {"documents": len(docs), "enriched": len(targets), "rewritten": rewritten,
            "seconds": round(time.perf_counter() - started, 2)}


def _rewrite(layout: SiteLayout, rel: str, fields: dict, body: str, machine: dict) -> int:
    """Write a document's machine fields; 1 when that changed it, else 0 (not written)."""
    updated = {**fields, **machine, "metadata_by": "machine"}
    if updated == fields:
        return 0
    write_doc(layout.corpus / rel, body, updated)
    return 1
