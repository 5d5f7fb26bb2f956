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
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from siterag.codehash import code_hash
from siterag.config import SiteConfig
from siterag.enrich.corpus import read_doc, write_doc
from siterag.enrich.dates import HARD_BREAK_RE
from siterag.enrich.framing import page_summary
from siterag.enrich.keywords import (
    PageTerms,
    english_zipf,
    name_parts,
    page_terms,
    pick_tags,
    score_terms,
    term_key,
    without_code,
)
from siterag.enrich.kinds import (
    OTHER_KIND,
    Structure,
    guessed,
    own_titles,
    place_kind,
    site_kinds,
    structure,
    telling_title,
)
from siterag.enrich.metadata import (
    FIGURE_CAPTION_RE,
    SHARED_TITLE_DOCS,
    UNTITLED,
    banner_affixes,
    content_hash,
    file_name_title,
    is_home,
    linked_name,
    opening_lines,
    own_title,
    plain_titles,
    renamed_by_links,
    stale_title,
    title_vocabulary,
    without_banner,
)
from siterag.enrich.sections import clean_label, link_refs, resolved_links, site_categories
from siterag.enrich.summary import (  # the summary's functions; some only re-exported (tests, benchmarks)
    SUMMARY_CHARS,  # noqa: F401
    _prose_lines,
    _speaker,
    choose_summary,  # noqa: F401
    composed_summary,  # noqa: F401
    dialogue_lines,
    entry_series,
    lines_summary,  # noqa: F401
    page_sentences,
    quotable,
    substantive,  # noqa: F401
    summary_is_exact,  # noqa: F401
    summary_source,
)
from siterag.enrich.tagclass import fold, whole_name
from siterag.enrich.tagterms import JA_RE, general_zipf, name_like, quoted_in_title, quoted_names
from siterag.extract.blocks import normalise
from siterag.layout import SiteLayout, is_temp_file, safe_path

TOP_CATEGORY = "top"  # pages at the top of the site that share their file-name family with no other page
_INDEX_FAMILIES = {"index", "default", "home", "top", "main"}
_FAMILY_RE = re.compile(r"[^\W\d_]+")


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


def normalized_html(layout: SiteLayout, path: str) -> str:
    """The normalized HTML of the page at `path` ('' where it is gone): its players and scripts, which its Markdown
    body does not keep, tell its kind (kinds.structure)."""
    try:
        return safe_path(layout.normalized, path).read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError):
        return ""


def site_sections(docs: list[_Doc], banner: tuple, shared_titles: set[str],
                  link_texts: list[str] | None = None, incoming: dict[str, Counter[str]] | None = None,
                  ) -> dict[str, str]:
    """Each document's section by page path: the name its site gives its section (its menus' link texts, the
    section's index title, a folder named by a word), else '' (siterag.enrich.sections). The links are
    read from the normalized pages (_Doc.links); a page whose normalized copy is gone counts with none. A <title>
    many pages share (an editor's default, the site's name) names no section."""
    paths = {d.path for d in docs}
    links = {d.path: resolved_links(list(d.links), d.path, paths) for d in docs}
    titles = {d.path: without_banner(d.page_title, *banner) for d in docs if d.title not in shared_titles}
    if link_texts is not None:  # what the site calls its pages: the evidence of whole names (site_names)
        link_texts.extend(text for found in links.values() for _, text in found)
    if incoming is not None:  # what the site calls each page: the name of a page that has no title
        for d in docs:  # (not a link to a part of it, `page.htm#section`: its label names the part)
            whole = [ref for ref in d.links if "#" not in ref[0]]
            for target, text in resolved_links(whole, d.path, paths):
                if label := clean_label(text):
                    incoming.setdefault(target, Counter())[label] += 1
    return site_categories([d.path for d in docs], links, titles, lambda p: "")


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

    def a_word(self, term: str) -> bool:
        """Whether a capitalised English word (`Conquest`, `Circumcised`, `APPENDIX`) is a word the site writes in
        lowercase somewhere (a heading's or a sentence start's capital), not a name it always capitalises (`Tess`,
        `Swindon`, `Kyoto`, `NASA`): a known word (Zipf ≥ SITE_WORD_ZIPF) that at least 1 in LOWER_SHARE of the
        site's pages holding it write in lowercase (a name is lowercase in a stray place or two)."""
        shape = term[1:].islower() or term.isupper() and len(term) >= SHOUTED_CHARS  # `Conquest`, `APPENDIX`
        if not (term.isascii() and term.isalpha() and term[:1].isupper() and shape
                and general_zipf(term.lower()) >= SITE_WORD_ZIPF):
            return False
        lower = self.df.get(lower_key(term.lower()), 0)  # pages writing it in lowercase, of the pages holding it
        return lower >= 1 and lower * LOWER_SHARE >= self.df.get(term_key(term), 1)

    def repeated(self, lines: list[str]) -> set[str]:
        """Those of a page's short lines (PageFacts.lines) that BOILER_DOCS or more pages of the site hold: its
        menus, notices, footers (`クリックすると拡大します。`, `TOP weblog TIPS`): their words are the site's."""
        return {line for line in lines if self.sentence_df.get(line_key(line), 0) >= BOILER_DOCS}


BOILER_DOCS = 3
SITE_WORD_ZIPF = 2.0  # a word in wordfreq's English lists at least this often (a name may be rarer)
LOWER_SHARE = 2
SHOUTED_CHARS = 5  # a word in capitals this long is a heading's word (APPENDIX), a shorter one an acronym (JST)
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
    """Term keys and sentence keys of one page (its short lines' keys, line_key, among the sentence keys; the
    English words its sentences write in lowercase, lower_key, among the term keys)."""
    lowered = {lower_key(w) for s in sentences for w in _LOWER_WORD_RE.findall(_ADDRESS_RE.sub(" ", s))}
    return DocSummary(sorted(set(terms.counts) | lowered),
                      sorted({sentence_key(s) for s in sentences} | {line_key(x) for x in lines}))


_LOWER_WORD_RE = re.compile(r"(?<![\w’'./@:-])[a-z]{3,}(?![\w’'/@-]|[.:]\w)")  # a word, not a file's or host's
_ADDRESS_RE = re.compile(r"\S*(?:://|www\.|@|\.(?:com|jp|org|net|html?)\b)\S*|`[^`]*`")  # addresses, code


def lower_key(word: str) -> str:
    """What an English word written in lowercase counts by in SiteStats.df (apart from terms)."""
    return "\x00lower\x00" + word


def machine_fields(body: str, title: str, stats: SiteStats, facts: PageFacts | None = None,
                   names: dict[str, list[str]] | None = None, place: dict | None = None,
                   site_own: Collection[str] = (), page_title: str = "", site_parts: list[str] = ()) -> dict:
    """tags (≤ 6, each verbatim in the body) and summary of one page, against the site's document frequencies;
    `facts` are the page's (page_facts), when already known; `page_title`: its <title> where a title of its own
    replaces it (a diary's series named there: summary.entry_series); `names`: the site's whole names (site_names: its
    titles and link texts); `site_own`: the site's own names, folded (own_site_names), never a tag; `site_parts`: the
    site's sections, for its home page (home_parts). The tags are
    terms and whole names of the page's own text (not only in the lines the site repeats), its title's subject
    among them; the summary is the page's lead (choose_summary), or on a page
    of entries, a list, a table or short lines, one composed from its structure (composed_summary)."""
    facts = page_facts(body) if facts is None else facts
    repeated = stats.repeated(facts.lines)
    own_text = "\n".join(x for x in body.splitlines() if not repeated or _line_text(x) not in repeated)
    headings = [h for h in _HEADING_RE.findall(body)] + figure_captions(body)
    found = {}
    quoted = {q: name_parts(q) for q in quoted_names(own_text)}  # 『エンジェル/ダスト』: a work's name, whole
    for name, parts in [*(names or {}).items(), *site_names([title, *headings]).items(), *quoted.items()]:
        if name not in found and parts and all(p in facts.terms.counts for p in parts) and name in own_text:
            found[name] = parts
    subject_text = "\n".join([title, *headings]).casefold()
    # a work's page (a play, a poem): its title is the work's name, and a tag inside it is a piece of that name
    # (星空 of 降るような星空, 銀河鉄道 of 「銀河鉄道の夜」を演じている…); so is one inside a name any title quotes
    # (星空 of 「降るような星空」中学生のための脚本 感想)
    works = [*(work_names(title) if (place or {}).get("kind") in WORK_KINDS else []), *quoted_in_title(title)]
    scored = [(t, score) for t, score in score_terms(facts.terms, stats.df, stats.docs, title, found, subject_text,
                                                     len(body), works)
              if not own_name(t, site_own) and not stats.a_word(t)]
    title_keys = set(name_parts(title)) | {term_key(n) for n in site_names([title])}
    subject = [t for t, _ in scored if term_key(t) in title_keys and not _generic(t)]
    tags = pick_tags(scored, body, own_text=own_text, subject=subject, subject_text=subject_text, wholes=works)
    tags = list(dict.fromkeys(whole_name(t, own_text) for t in tags))  # Edsor -> Albert W. Edsor, ヴァイ -> …
    assert all(t in body for t in tags)
    licence_page = bool(_LICENCE_RE.search(title) or _LEGAL_SENTENCE_RE.search(title))
    common = stats.common(facts.sentences) | {s for s in facts.sentences if _UI_SENTENCE_RE.search(s)
                                              or not licence_page and _LEGAL_SENTENCE_RE.search(s)}
    place = place or {}  # the page's kind, section and category (enrich_site's `placed`), for its summary's frame
    summary = page_summary(without_code(body), facts.sentences, facts.quotes, tags, common, title,
                           place.get("kind", ""), place.get("section", ""), place.get("category") == place.get("kind"),
                           tags, entry_series(title, page_title), site_parts)  # (a diary's topics: its tags)
    return {"tags": tags, "summary": summary}


WORK_KINDS = ("fiction", "lyrics")  # a page that is a work, whose title names it
_WORK_SPLIT_RE = re.compile(r"\s+|[「」『』()（）\[\]【】〈〉《》・/／:：]")
_TRAILING_NUMBER_RE = re.compile(r"(?:第\s*)?[0-9０-９一二三四五六七八九十]+\s*(?:部|幕|話)?$")


def work_names(title: str) -> list[str]:
    """The pieces of a work's title that may be its name (`降るような星空`; `赤と青のレクイエム` of
    `赤と青のレクイエム1`): Japanese, 3-16 characters, without a part's number."""
    pieces = (_TRAILING_NUMBER_RE.sub("", p).strip() for p in _WORK_SPLIT_RE.split(title))
    return [p for p in dict.fromkeys(pieces) if JA_RE.search(p) and 3 <= len(p) <= 16]


FIGURE_PAGE_TEXT = 200  # a page with less text than this besides its figures' captions is a figure's page


def figure_captions(body: str) -> list[str]:
    """The numbered captions (metadata.FIGURE_CAPTION_RE) of a figure's page, which name what it shows as a heading
    would; none on a page with text of its own (a project's page, whose figures show parts of it)."""
    lines = [_line_text(line) for line in body.splitlines()]
    captions = [line for line in lines if FIGURE_CAPTION_RE.match(line)]
    other = sum(len(line) for line in lines if line and line not in captions)
    return captions if captions and other < FIGURE_PAGE_TEXT else []


def own_site_names(site_name: str, home_titles: Iterable[str]) -> frozenset[str]:
    """The site's own names (folded, and as own_key): its configured name (`hrtaj`), its home pages' titles
    (`tanakahiroshi`, `Lefty Uncle Works`) and each part of a title its separators divide (`Brian David Williams`
    of `Brian David Williams — All the days of my life`: the owner's name) — the rubric's "not the site's own
    name"."""
    names = [site_name]
    for title in home_titles:
        if title and title != UNTITLED:
            names += [title, *(part.strip() for part in _NAME_SPLIT_RE.split(title) if len(part.strip()) >= 2)]
    return frozenset({own_key(name) for name in names if name} | {fold(name) for name in names if name})


def own_key(name: str) -> str:
    """A name as the site's own names compare: folded, without spaces and dots (Lefty UncleWorks = Lefty Uncle
    Works)."""
    return re.sub(r"[\s・･.]", "", fold(name))


OWN_WORD_CHARS = 4  # a site's one-word name this long, a word of a tag: the site's own name in a longer one


def own_name(term: str, site_own: Collection[str]) -> bool:
    """Whether a tag is one of the site's own names, two or more words of one (`Brian Williams` of `Brian David
    Williams`), or a name one of whose words is one (`Official Team Gyrobot`, `Gyrobot Ltd` on the site
    Gyrobot)."""
    if own_key(term) in site_own:
        return True
    words = term.split()
    if len(words) >= 2 and any(len(w) >= OWN_WORD_CHARS and own_key(w) in site_own for w in words):
        return True
    return len(words) >= 2 and term.isascii() and any(
        re.search(r"\b" + r"\b.*\b".join(map(re.escape, (fold(w) for w in words))) + r"\b", own) for own in site_own
        if " " in own)


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


# a licence's or a copyright notice's standard words (a source file's BSD header, `無断転載を禁じます`): said of
# any page
_LEGAL_SENTENCE_RE = re.compile(r"copyright\s*(?:\(c\)|©|\d)|©|redistribution and use|this software is provided|"
                                r"permission is hereby granted|all rights reserved|general public license|"
                                r"無断(?:転載|複製|使用)", re.IGNORECASE)  # (not an author's own word on his rights)
_LICENCE_RE = re.compile(r"licen[cs]e|ライセンス|利用規約|使用許諾", re.IGNORECASE)


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
            elif not name_like(name) or " " in name:  # 湖畔の宿, not フォントを出力 (a phrase: を)
                continue
            parts = name_parts(name)
            if len(parts) >= 2:
                out[name] = parts
    return out


def needs_machine_fields(fields: dict) -> bool:
    """A document whose machine fields are missing: written by an older run (no category, or the old
    `metadata_by: fallback`) or cut off before the site pass. An LLM-written one needs only its kind."""
    by = fields.get("metadata_by")
    return not fields.get("kind") if by == "llm" else (by == "fallback" or not fields.get("category")
                                                       or not fields.get("kind"))


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
    """Terms and sentences of one body (the tokenising: the costly part); an epigraph's are not the page's, nor
    are a program's lines (keywords.code_line)."""
    body = without_epigraphs(body)
    prose = without_code(body)
    sentences = page_sentences(prose)
    return PageFacts(page_terms(term_source(body)), sentences, quotable(sentences), short_lines(prose))


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
    """Facts (and the machine fields: enrich_key) are valid for this code of siterag.enrich.keywords,
    siterag.enrich.kinds, siterag.enrich.summary (and framing), siterag.enrich.tagterms and tagclass (which terms
    are tags), siterag.enrich.metadata (titles), siterag.enrich.sections, siterag.enrich.markdown (the patterns
    they share) and siterag.enrich.enrich."""
    from siterag.enrich import framing, keywords, kinds, markdown, metadata, sections, summary, tagclass, tagterms

    return code_hash(keywords, kinds, summary, framing, tagterms, tagclass, metadata, sections, markdown,
                     sys.modules[__name__])


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
    shape: Structure = Structure()  # what its body is made of (kinds.structure): its kind with its title and section
    links: tuple[tuple[str, str], ...] = ()  # (href, text) of its links (sections.link_refs): its site's names
    shown: str = ""  # the title it is shown with (its `title`), as the last run chose it


def _site_doc(layout: SiteLayout, rel: str, fields: dict, body: str, target: bool) -> _Doc:
    """What the site pass keeps of a document, its normalized page read once (for its structure and links)."""
    path, page_title = str(fields.get("path") or rel), _page_title(fields)
    html = normalized_html(layout, path)
    return _Doc(rel, path, content_hash(body), target, normalise(page_title),
                tuple(normalise(line) for line in opening_lines(body)), not stale_title(page_title, body),
                page_title, structure(body, html, bool(fields.get("date"))),
                tuple(link_refs(html)) if html else (), str(fields.get("title") or ""))


@dataclass(frozen=True)
class _TitleContext:
    """What the site pass knows of its titles and links when it gives a page a title of its own (_retitle)."""

    shared_titles: set[str]  # <title>s (normalised) of many pages
    shared_lines: set[str]  # opening lines of many pages
    copied_titles: set[str]  # <title>s copied with a page onto another whose text does not bear them out
    unbannered: dict[str, str]  # <title> -> it without the site's banner, where that keeps titles apart
    site_whole: set[str]  # the site's own name and its home page's title (own_key)
    incoming: dict[str, Counter[str]]  # page path -> the labels of the links to it
    label_spread: Counter[str]  # label -> how many pages it leads to
    vocabulary: Counter[str]  # the words of the site's <title>s


def _retitle(doc: _Doc, body: str, ctx: _TitleContext) -> str:
    """The title a page is shown with instead of its <title> (`doc.page_title`), or '' to keep it: its own heading
    where the <title> is shared or copied (metadata.own_title), the <title> without the site's banner, what the
    site's links call it, or its file's name where the <title> is the site's name, a template's or none."""
    page_title = doc.page_title
    title = own_title(page_title, body, ctx.shared_titles, ctx.shared_lines, doc.path, ctx.copied_titles)
    if not title and (plain := ctx.unbannered.get(page_title, page_title)) != page_title:
        title = plain
    home, shared = is_home(doc.path), doc.title in ctx.shared_titles
    sites_name = own_key(page_title) in ctx.site_whole
    if not title and (page_title == UNTITLED or shared and not home):
        # what the site's links call it (not the home page: a site's name is its home page's title)
        title = linked_name(ctx.incoming.get(doc.path), ctx.label_spread)
    elif not title and not home:  # a variant of the site's name: what its links call it
        label = linked_name(ctx.incoming.get(doc.path), ctx.label_spread)
        title = label if label and (renamed_by_links(page_title, label, ctx.vocabulary) or sites_name) else ""
    if not title and not home and (page_title == UNTITLED or shared or sites_name):
        title = file_name_title(doc.path)  # the site's name or a template's: what the file is called
    return title


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
    else computed here; bodies are read one at a time (again for the titles of the documents to enrich, which
    their kinds read, and when a document is rewritten), never all held."""
    started = time.perf_counter()
    code = _facts_key()
    # A document whose machine fields an older siterag chose (another enrich_key) is done again, once.
    # An LLM-written document keeps its title, tags and summary; its kind and section are the machine's.
    docs = [_site_doc(layout, rel, fields, body, rel in touched or needs_machine_fields(fields)
                      or fields.get("enrich_key") != code)
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
    unbannered = plain_titles(d.page_title for d in docs)  # without it, where that keeps them apart
    link_texts: list[str] = []
    incoming: dict[str, Counter[str]] = {}
    sections = site_sections(docs, banner, shared_titles, link_texts, incoming)
    label_spread = Counter(label for found in incoming.values() for label in found)  # pages a label leads to
    vocabulary = title_vocabulary(d.page_title for d in docs)
    site_own = own_site_names(site.name, (without_banner(d.page_title, *banner) for d in docs if is_home(d.path)))
    site_whole = {own_key(n) for n in (site.name, *(d.page_title for d in docs if is_home(d.path))) if n}  # a page
    # titled with the site's name (`hrtaj` over its map page) is named by the site's links (`所在地`)
    context = _TitleContext(shared_titles, shared_lines, copied_titles, unbannered, site_whole, incoming,
                            label_spread, vocabulary)
    retitled = {d.rel: title for d in targets if (parsed := read_doc(layout.corpus / d.rel))
                and parsed[0].get("metadata_by") != "llm"
                and (title := _retitle(d, parsed[1], context))}
    kind_titles = own_titles({d.path: telling_title(retitled.get(d.rel, d.shown), without_banner(d.page_title, *banner),
                                                    d.title in shared_titles and d.page_title != UNTITLED,
                                                    place_kind(sections[d.path], d.path)) for d in docs}, sections)
    kinds = site_kinds({d.path: (d.shape, kind_titles[d.path], "\n".join(d.opening)) for d in docs}, sections)
    placed = {d.path: {"kind": kinds[d.path], "section": sections[d.path],
                       "category": page_category(kinds[d.path], sections[d.path],
                                                 guessed(kinds[d.path], d.shape, kind_titles[d.path],
                                                         sections[d.path]))}
              for d in docs}  # what the page is and where it sits in its site, whoever wrote its other fields
    names = site_names(dict.fromkeys([*(without_banner(d.page_title, *banner) for d in docs
                                        if d.title not in shared_titles), *link_texts]))
    contents = home_parts(sections.values(), site_own)
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
            if fields.get("metadata_by") == "llm":
                rewritten += _rewrite(layout, doc.rel, fields, body, {
                    **placed[doc.path], "enrich_key": code,
                    "category": _configured(fields.get("category"), site.categories) or placed[doc.path]["category"]},
                    by="llm")
                continue
            stored = _stored(db, [body_hash := content_hash(body)], code, "facts").get(body_hash)
            facts = decode_facts(stored[0]) if stored else page_facts(body)
            page_title, title = _page_title(fields), retitled.get(doc.rel, "")
            machine = {**machine_fields(body, title or page_title, stats, facts, names, placed[doc.path], site_own,
                                        page_title, contents if is_home(doc.path) else ()),
                       **placed[doc.path], "enrich_key": code}
            if title:  # the <title> the page shares with many others stays as page_title
                machine.update(title=title, page_title=page_title)
            elif fields.get("page_title"):  # retitled by an older siterag, no more: its own <title> again
                machine.update(title=page_title, page_title=_DROP)
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


def home_parts(sections: Iterable[str], site_own: Collection[str] = ()) -> list[str]:
    """The site's sections as its home page names what it holds: most pages first, none that is the site's own
    name (own_site_names) or holds a single page; none unless they hold half of the site's pages (a site whose
    pages are each a section of their own, or of none, has no sections to name)."""
    sections = list(sections)
    counts = Counter(s for s in sections if s and fold(s) not in site_own and own_key(s) not in site_own)
    parts = [(s, n) for s, n in counts.most_common() if n >= 2]
    return [s for s, _ in parts] if sum(n for _, n in parts) * 2 >= len(sections) else []


def page_category(kind: str, section: str, guess: bool = False) -> str:
    """What `--category` and the web's facet filter by: the page's kind, or where its kind is only a default
    (`guess`: kinds.guessed — running text taken for an essay, a script's demo for `other`) the site's own name
    for its section, when it has one: what the author called that part of the site says more."""
    return section if (guess or kind == OTHER_KIND) and section else kind


def _configured(category: object, categories: tuple[str, ...]) -> str:
    """An LLM's category when it is one of the site's configured `categories`, else ''."""
    return str(category) if categories and category in categories else ""


_DROP = object()  # a machine field set to this is removed from the document


def _rewrite(layout: SiteLayout, rel: str, fields: dict, body: str, machine: dict, by: str = "machine") -> int:
    """Write a document's machine fields; 1 when that changed it, else 0 (not written)."""
    updated = {k: v for k, v in {**fields, **machine, "metadata_by": by}.items() if v is not _DROP}
    if updated == fields:
        return 0
    write_doc(layout.corpus / rel, body, updated)
    return 1
