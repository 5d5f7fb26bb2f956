"""A page's section from what the site itself says, never from an editor's file name.

A site names its sections in its menus: the link text of the menu entry that leads to a folder or a page
(`日記`, `リンク`, `Diary`) is the word a person files the pages of that section under. The site pass
(siterag.enrich.enrich) reads each page's links from its normalized HTML and calls `site_categories`:

* a page in a folder belongs to the folder's section (the first folder below those every page shares); a page at
  the top of the site is a section of its own, and a top page linked only from one other section head (a
  Homepage Builder site, every page `newpageN.htm` at the top) belongs to that head's section, unless the site
  names that head as its map or contents (the guestbook's thank-you page is no part of `Site Map`);
* a section is named by, in this order: the most frequent link text of links from outside the section to its head
  page (the folder's index page, else its most linked page); the head page's own title; the folder's name when it
  is a word (`diary`, `books`; not `001sucript`, `kip`); else none (`kind(path)`: '' in the site pass, which
  writes it as the front matter's `section`; what the page is, is its `kind`: siterag.enrich.kinds).
  A site whose top pages would make more than MAX_SECTIONS sections (a manual whose every page is linked from
  the others by a phrase) names only the MAX_SECTIONS most linked ones.

A label is never an editor's default stem (newpage, page, index, top, untitled, digits), a navigation word
(戻る, Top, Next), a date, a file name or URL, nor longer than LABEL_CHARS.
"""

from __future__ import annotations

import html as htmllib
import posixpath
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable

from siterag.enrich.kinds import named_kind

LABEL_CHARS = 20  # a menu entry, not a sentence
MAX_SECTIONS = 12  # top pages named as sections of their own, at most: more are a table of contents
WORD_ZIPF = 3.9  # a folder name that is at least this common an English word names its section (diary, books)
_A_RE = re.compile(r"<a\b([^>]*)>(.*?)</a\s*>", re.IGNORECASE | re.DOTALL)
_HREF_RE = re.compile(r"""\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)
_ALT_RE = re.compile(r"""\balt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)
_TAG_RE = re.compile(r"<[^>]*>")
_BLOCK_RE = re.compile(r"<(?:br|/?h[1-6]|/?p|/?div|/?li|/?td|/?tr)\b[^>]*>", re.IGNORECASE)
_PAGE_EXT_RE = re.compile(r"\.(?:s?html?|php|asp|cgi)$", re.IGNORECASE)
_INDEX_NAMES = ("index.html", "index.htm", "default.htm", "default.html", "index.shtml", "index.php")
# Decoration around a menu entry's words: marks, brackets, arrows.
_CLOSER_OF = {"(": ")", "（": "）", "「": "」", "『": "』", "[": "]", "【": "】", "〔": "〕", "《": "》"}
_OPENER_OF = {v: k for k, v in _CLOSER_OF.items()}
_CLOSERS = "".join(_OPENER_OF)
_DECOR_RE = re.compile(r"^(?:(?![(（「『\[【〔《])[\s\W_])+|(?:(?![)）」』\]】〕》])[\s\W_])+$")
_ACCESS_KEY_RE = re.compile(r"\s*[(（]\s*&?[A-Za-z]\s*[)）]\s*$")
_DEFAULT_STEM_RE = re.compile(r"^(?:new_?page|page|index|top|untitled|noname|default|home|main|file|doc|document|"
                              r"無題|新しいページ|ページ)?[\s_\-]*\d*$", re.IGNORECASE)
# Words that move the reader instead of naming a place, and labels of no section.
NAV_WORDS = frozenset("""戻る もどる 前へ 次へ 前 次 前のページ 次のページ トップ トップページ トップへ ホーム ホームへ
目次 メニュー ホームページ title untitled homepage 上へ 先頭 先頭へ ここ こちら ここをクリック クリック 詳細 詳しく
続き 続きを読む もっと見る 一覧 閉じる ページトップ
back next prev previous top home index menu here more click up contents return close enter skip main
home page
""".split())
_NAV_PHRASE_RE = re.compile(r"クリック|こちら|ここを|ここから|戻る|もどる|トップへ|^(?:back|previous|next|return|go|"
                            r"enter|click|skip|add|jump)\b|\bhere$|^home page$", re.IGNORECASE)
_NUMBERISH_RE = re.compile(r"^[\d\s０-９.,:/\-年月日号第回~〜（）()]+$")
_URLISH_RE = re.compile(r"https?:|www\.|@|\.(?:s?html?|jpe?g|gif|png|cgi|php)\b", re.IGNORECASE)

def page_links(html: str, path: str, pages: set[str]) -> list[tuple[str, str]]:
    """(target page path, link text) of each link of `html` (the page at `path`) to another page of `pages`;
    a link around an image counts by the image's alt text. A link to a folder leads to its index page."""
    return resolved_links(link_refs(html), path, pages)


def link_refs(html: str) -> list[tuple[str, str]]:
    """(href, link text) of each link of `html` that may lead to a page of its site (no anchor, mail, script or
    other site), its query cut (its `#fragment` kept); a link around an image counts by the image's alt text."""
    out = []
    for attrs, inner in _A_RE.findall(html):
        found = _HREF_RE.search(attrs)
        if not found:
            continue
        href = htmllib.unescape(next(g for g in found.groups() if g is not None)).strip()
        if not href or href.startswith(("#", "mailto:", "javascript:")) or re.match(r"^[a-z][a-z0-9+.-]*://", href,
                                                                                   re.IGNORECASE):
            continue
        href = re.sub(r"\?[^#]*", "", href)  # the query cut; the fragment kept (a link to a part of a page)
        lines = [htmllib.unescape(_TAG_RE.sub(" ", part)) for part in _BLOCK_RE.split(inner)]
        text = next((line for line in lines if clean_label(line)), "")  # `<h5>Publications</h5>Books, tapes…`
        if not text and not "".join(lines).strip():
            alt = _ALT_RE.search(inner)
            text = htmllib.unescape(next((g for g in alt.groups() if g is not None), "")) if alt else ""
        out.append((href, text))
    return out


def resolved_links(refs: list[tuple[str, str]], path: str, pages: set[str]) -> list[tuple[str, str]]:
    """link_refs of the page at `path` as (target page path, link text), those leading to another page of `pages`."""
    base = posixpath.dirname(path)
    return [(target, text) for href, text in refs if (target := resolve(base, href.split("#", 1)[0], pages))
            and target != path]


def resolve(base: str, href: str, pages: set[str]) -> str:
    """The page of `pages` that `href`, written on a page in folder `base`, points at; '' when none."""
    if not href:
        return ""
    rel = posixpath.normpath(href.lstrip("/") if href.startswith("/") else posixpath.join(base, href))
    if rel.startswith(".."):
        return ""
    rel = "" if rel == "." else rel
    if rel in pages:
        return rel
    for name in _INDEX_NAMES:
        candidate = posixpath.join(rel, name) if rel else name
        if candidate in pages:
            return candidate
    return ""


def clean_label(text: str) -> str:
    """A link text as a section's name: white space collapsed, decoration stripped; '' when it names no
    section (a navigation word, a number or date, a file name, a default stem, too long or too short)."""
    text = " ".join(unicodedata.normalize("NFKC", text).split())
    text = _ACCESS_KEY_RE.sub("", text)  # ファイル(F): a menu's access key
    text = _DECOR_RE.sub("", text)
    if text and text[-1] in _CLOSERS and text.count(text[-1]) > text.count(_OPENER_OF[text[-1]]):
        text = text[:-1]
    if text and text[0] in _CLOSER_OF and text[-1:] == _CLOSER_OF[text[0]] and text.count(text[0]) == 1:
        text = text[1:-1].strip()  # 「日記」
    if not (2 <= len(text) <= LABEL_CHARS) or not any(map(str.isalpha, text)):
        return ""
    if len(text) == 2 and text.isascii() and not text.isupper():
        return ""
    if re.fullmatch(r"(?:\S )+\S", text) and not text.isascii():
        text = text.replace(" ", "")  # 教 室 案 内: letters spaced out for the layout
    if (text.casefold() in NAV_WORDS or _NAV_PHRASE_RE.search(text) or _NUMBERISH_RE.match(text)
            or _URLISH_RE.search(text) or _DEFAULT_STEM_RE.match(text) or text.endswith("へ")):
        return ""
    return text


def meaningful_name(name: str) -> str:
    """A folder's name when it is a word a person would file pages under (an English word at least WORD_ZIPF
    common, or Japanese), else ''."""
    name = _PAGE_EXT_RE.sub("", name)
    if _DEFAULT_STEM_RE.match(name) or not name:
        return ""
    if any(ord(ch) > 0x2FFF for ch in name):
        return clean_label(name)
    words = re.findall(r"[A-Za-z]+", name)
    if not words or not re.fullmatch(r"[A-Za-z_\-]+", name) or len("".join(words)) < 3:
        return ""
    return name.lower() if all(_zipf(w.lower()) >= WORD_ZIPF for w in words) else ""


def _zipf(word: str) -> float:
    try:
        from wordfreq import zipf_frequency
    except ImportError:  # without wordfreq no folder name is taken for a word
        return 0.0
    return zipf_frequency(word, "en")


def site_categories(paths: list[str], links: dict[str, list[tuple[str, str]]], titles: dict[str, str],
                    kind: Callable[[str], str]) -> dict[str, str]:
    """Category of each page of `paths` (see the module docstring). `links`: page -> (target, link text) of its
    links to pages of the site (page_links); `titles`: page -> its own title; `kind(path)`: its page kind."""
    parts = {p: tuple(p.split("/")) for p in paths}
    common = 0
    while parts and all(len(pp) > common + 1 for pp in parts.values()) \
            and len({pp[common] for pp in parts.values()}) == 1:
        common += 1
    section = {p: pp[common] if len(pp) > common + 1 else p for p, pp in parts.items()}  # folder or the page
    incoming: dict[str, Counter[str]] = defaultdict(Counter)  # target -> link texts from other sections
    linkers: dict[str, set[str]] = defaultdict(set)  # target -> sections linking to it
    for source, found in links.items():
        for target, text in found:
            if target in section and section[target] != section.get(source):
                linkers[target].add(section.get(source, source))
                label = clean_label(text)
                if label:
                    incoming[target][label] += 1
    # a top page linked from exactly one other top page that is itself linked from several: a sub-page of that
    # one's section (Homepage Builder's newpage7.htm under the menu entry `日記` = newpage3.htm)
    heads = {p for p in paths if section[p] == p and len(linkers[p]) >= 2 and incoming[p]}
    if len(heads) > MAX_SECTIONS:
        heads = set(sorted(heads, key=lambda p: (-len(linkers[p]), p))[:MAX_SECTIONS])
    # a head the site names as its map or contents (`Site Map`, `目次`): the pages it alone links to are no part of it
    maps = {h for h in heads if named_kind(_section_name(h, [h], common, incoming, titles)) == "index"}
    for p in paths:
        if section[p] == p and p not in heads and len(linkers[p]) == 1:
            (parent,) = linkers[p]
            if parent in heads and section.get(parent) == parent and parent not in maps:
                section[p] = parent
    members: dict[str, list[str]] = defaultdict(list)
    for p in paths:
        members[section[p]].append(p)
    names: dict[str, str] = {}
    for key, pages in members.items():
        top = key in section and section[key] == key
        names[key] = "" if top and key not in heads else _section_name(key, pages, common, incoming, titles)
    out = {}
    for p in paths:
        out[p] = names[section[p]] or kind(p)
    return out


def _index_like(path: str) -> bool:
    """A folder's own index page: index.*, default.*, or named like its folder (`axis/axis_index.html`,
    `shisaku/shisaku.html`)."""
    parts = path.split("/")
    stem = _PAGE_EXT_RE.sub("", parts[-1]).lower()
    folder = parts[-2].lower() if len(parts) > 1 else ""
    return stem.startswith(("index", "default")) or stem.endswith("index") or bool(folder) and stem == folder


def _section_name(key: str, pages: list[str], common: int, incoming: dict[str, Counter[str]],
                  titles: dict[str, str]) -> str:
    """The name of one section (its key: a folder or a top page): see the module docstring."""
    if key in pages and len(key.split("/")) == common + 1:  # a top page (and the pages under it)
        votes = incoming[key]
        return votes.most_common(1)[0][0] if votes else clean_label(titles.get(key, ""))
    depth = len(key.split("/"))
    heads = sorted((p for p in pages if len(p.split("/")) == depth + 1 and _index_like(p)),
                   key=lambda p: (-sum(incoming[p].values()), len(p), p))
    votes = Counter()
    for head in heads:
        votes.update(incoming[head])
    if not votes:  # no linked index page: the folder's most linked page, when linked twice under one name
        linked = max(pages, key=lambda p: (sum(incoming[p].values()), -len(p)))
        label, n = (incoming[linked].most_common(1) or [("", 0)])[0]
        if n >= 2:
            return label
    if votes:
        return votes.most_common(1)[0][0]
    return meaningful_name(key.split("/")[-1]) or next(
        (label for head in heads if (label := clean_label(titles.get(head, "")))), "")
