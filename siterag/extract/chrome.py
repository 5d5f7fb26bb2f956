"""The lines of a page that are its chrome, not its content: the site's template and the page's own navigation.

Rules follow from how such pages are built:
* A site's header, side menu and footer are copied onto every page around the page's own text, so the lines
  of the site's template (siterag.extract.template) at the start and at the end of a page, up to its first and after
  its last line of its own, are dropped as far as they are built like a header or footer: links, images,
  copyright lines, or blocks mostly made of them. Recurring plain text there (a verse after the last entry, a
  photo credit, a label) is the page's. Inside the text a template line is dropped only when it is a menu's link,
  a counter or a copyright line: a heading that recurs inside many bodies is structure, not chrome.
* A row of links (one line, or link-only lines one after the other: a table row of buttons) before or after
  the page's own text whose links point mostly at the site's main pages (siterag.extract.template's hubs) or back
  up the site's tree (a folder above the page's, its folder's index) is its navigation bar, whatever its words
  (the current page unlinked, another button image); a row of image buttons with no words, when every one of
  them leads there (`[![](top.gif)](../index.htm) [![](008.gif)](../mokuji.htm)`).
* Counters, copyright and "last updated" lines are dropped before and after the page's own text, and wherever the
  site repeats them; inside the text they are the author's sentences.
* Images that an editor's theme generated (FrontPage writes each page's title banner, its rules and bullets into
  `_derived/`, `_themes/`, `_overlay/`, `_borders/`) are dropped where a line shows nothing else: the author drew
  none of them. Linked ones stay (a navigation bar's buttons may be the only place a page names its children:
  a team page's members); as links they are judged like any other link.
* Links that only move the reader (戻る, Top, 次へ, [Back]) and in-page tables of contents (every link points
  at an anchor of the same page, whose headings the page itself holds) are dropped; a contents list whose items
  name parts the page heads with their numbers alone (`(1)`, `(2)`) is the only place it names them: it stays.
Everything else the page shows is kept.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Collection
from dataclasses import dataclass, field
from urllib.parse import unquote

from siterag.extract.blocks import Block, normalise
from siterag.extract.template import line_key

_LINK_RE = re.compile(r"(?<!!)\[([^\]]*)\]\(([^)]*)\)")
_IMAGE_RE = re.compile(r'!\[[^\]]*\]\([^)\s]*(?:\s+"([^"]*)")?\)')  # group 1: the alt text (in the title)
_BOILERPLATE_RE = re.compile(
    r"copyright|^\s*\(c\)|\(c\)\s*(?:19|20)\d\d|©|all rights reserved|カウンター|\bcounter\b|\d{3,}\s*人目|"
    r"アクセス数|you are (the )?visitor|無断[転複]|転載[をはの]?(?:禁|しないで|ご遠慮|お断)|許可なく.{0,20}転載|"
    r"visitors? since|since \d{4}[./年]|last (modified|updated?)|最終更新|更新日\s*[:：]|update\s*[:：]", re.IGNORECASE)
_IMAGE_PARTS_RE = re.compile(r"!\[[^\]]*\]\(([^)\s]*)(?:\s+\"([^\"]*)\")?\)")  # (src, alt text in the title)
THEME_IMAGE_FOLDERS = {"_derived", "_themes", "_overlay", "_borders"}  # FrontPage's generated theme graphics
BOILERPLATE_CHARS = 100  # only a short line is a counter or a copyright line
# What a link that only moves the reader says (normalised: lower case, word characters only).
_NAV_WORDS = re.compile(
    r"(戻る|もどる|back(to)?|top|pagetop|トップ(へ|ページ)?|ホーム|home|homepage|index|目次|メニュー(に戻る)?|menu|"
    r"次(へ|のページ)?|前(へ|のページ)?|next|prev(ious)?|上へ|ページ(の)?(先頭|トップ)(へ)?|english|japanese|日本語|"
    r"英語|return|go|to|the|page|ページ|site|サイト|に|へ|戻|る)+")

# `内部ページに戻る`, `ＨＴパソコン教室のホームへ`, `Back to Internal Top Page` (not `Back to the Future`)
_BACK_RE = re.compile(r"(?:戻る|もどる|戻ります|(?:ホーム|トップ|トップページ|目次|メニュー)へ)$|"
                      r"^(?:backto|returnto).*(?:top|home|index|menu|page)$")

_NAV_TOKEN_RE = re.compile(r"(?<![A-Za-z])(?:top|home|back|index|menu)(?![A-Za-z])|"
                           r"トップ|ホーム|戻る|もどる|目次|メニュー", re.IGNORECASE)


def back_label(text: str) -> bool:
    """Whether a label only sends the reader back (`内部ページに戻る`, `…のホームへ`, `Back to Top Page`)."""
    return bool(_BACK_RE.search(normalise(text)))


@dataclass(frozen=True)
class Line:
    """One line of a block, with what decides whether it is chrome."""

    block: int
    no: int
    md: str
    text: str
    key: str  # template key ('' for a line without words)
    box: str = ""  # the element holding its block: a table cell, a div, the body (see container)


def _links(md: str) -> list[tuple[str, str]]:
    """(label, href) of a line's links; an image inside a link counts by its alt text."""
    if "](" not in md:  # neither a link nor an image
        return []
    return _LINK_RE.findall(_IMAGE_RE.sub(r"\1", md))


def _all_link(md: str) -> bool:
    """The line's words are all inside links."""
    if "](" not in md:  # neither a link nor an image
        return False
    plain = _IMAGE_RE.sub(r"\1", md)
    return bool(_LINK_RE.search(plain)) and not normalise(_LINK_RE.sub("", plain))


def is_boilerplate_line(text: str) -> bool:
    """A counter, copyright or 'last updated' line. (`(C)` only before a year or at the start: `複合グリフ(C)` is a
    menu item's key.)"""
    return len(text) < BOILERPLATE_CHARS and bool(_BOILERPLATE_RE.search(text))


def is_counter_widget(md: str) -> bool:
    """A line showing a counter or copyright image (its alt text or address says so: `アクセスカウンター`,
    `rays-counter.com`): a hit counter service's widget, wherever it sits."""
    if "![" not in md:
        return False
    return any(_BOILERPLATE_RE.search(alt) or "counter" in src.lower() for src, alt in _IMAGE_PARTS_RE.findall(md))


def is_theme_images(md: str) -> bool:
    """A line that shows only images an editor's theme generated (a title banner, a rule, a bullet), none of them
    a link, and no words outside their alt texts (a banner's alt is the page's title)."""
    if "![" not in md:
        return False
    srcs = [src for src, _ in _IMAGE_PARTS_RE.findall(md)]
    if not srcs or not all(THEME_IMAGE_FOLDERS & set(unquote(src).split("/")) for src in srcs):
        return False
    rest = _IMAGE_RE.sub("", md)
    return not _LINK_RE.search(rest) and not normalise(rest.lstrip("#"))


def _in_page(href: str, anchors: Collection[str]) -> bool:
    """A link to a place on the same page: `#x`, or `page.html#x` where the page has an anchor named x."""
    path, _, fragment = href.partition("#")
    return bool(fragment) and (not path or unquote(fragment) in anchors)


_ITEM_NUMBER_RE = re.compile(r"^\s*[(（]?[\d０-９]{1,3}[)）.．]?")  # `(1)`, `2.`: a contents item's number


def is_navigation(md: str, anchors: Collection[str] = (), parts_by_number: bool = False) -> bool:
    """A line of links that only move the reader: back / top / next, or an in-page table of contents
    (`anchors`: the names and ids of the page's own anchors), unless it names numbered parts on a page that heads
    its parts with their numbers alone (`parts_by_number`: heads_parts_by_number):
    `(1)「i.softbank.jp」ドメインのメールアドレス変更` above a part headed `(1)` is the only place the page names it."""
    links = _links(md)
    if not links or not _all_link(md):
        return False
    if all(_in_page(href, anchors) for _, href in links):
        return not (parts_by_number and any(_names_a_part(label) for label, _ in links))
    plain = [bool(normalise(label) and (_NAV_WORDS.fullmatch(normalise(label)) or back_label(label)))
             or _in_page(href, anchors) for label, href in links]
    if all(plain):
        return True
    # A bar with a plain HOME / TOP link whose other links name where they go (`[演劇をめぐる対話TOP(…)]
    # [HOME]`, `[TOP](#top) [Home「七つ森」]`), or three links or more around one: `― [エレメント(L) メニュー](…)
    # ― [目次](overview.html) ― [チュートリアル](…) ―`. (`[HOME] [Robot Wars 2002]` is a home link and a page's.)
    return any(plain) and len(links) > 1 and (len(links) > 2 or all(
        ok or _NAV_TOKEN_RE.search(label) for ok, (label, _) in zip(plain, links, strict=True)))


def _names_a_part(label: str) -> bool:
    """Whether a contents item names a part by its number and words (`(1)「i.softbank.jp」ドメインのメールアドレス
    変更`; a part that starts on its number's line, `(8) iCloudを使うと…`, is named in the list too)."""
    number = _ITEM_NUMBER_RE.match(label)
    return bool(number and normalise(label[number.end():]))


def heads_parts_by_number(lines: list[Line]) -> bool:
    """Whether one of the page's lines is a number and nothing else (`(1)`, `２．`): a part headed by its number
    alone."""
    return any((number := _ITEM_NUMBER_RE.match(line.text)) and not line.text[number.end():].strip()
               for line in lines)


def _linky(line: Line) -> bool:
    """Mostly link text: a menu entry. An e-mail address is no menu: within the page's text it is the author's
    (a member page's `ishida@…`, also on the member list and the Japanese page)."""
    links = [(label, href) for label, href in _links(line.md) if not href.lower().startswith("mailto:")]
    link_chars = sum(len(label) for label, _ in links)
    return link_chars * 2 >= max(1, len(line.text))


def page_lines(blocks: list[Block]) -> list[Line]:
    """Every line of the page in order (tables, headings and <pre> are one line each)."""
    return [Line(b.id, n, md, text, line_key(text), container(b.path))
            for b in blocks for n, (md, text) in enumerate(b.lines)]


_BOXES = {"body", "div", "td", "th", "tr", "table", "form", "center", "section", "article", "main", "aside",
          "header", "footer", "nav", "blockquote", "dl", "ul", "ol", "frameset", "noframes"}


def container(path: str) -> str:
    """The element that holds a block, from its path (`body>div>div>p` → `body>div>div`): the path up to its
    last box (a cell, a div, a list); paragraphs, headings and inline wrappers (font, b, span) are no boxes."""
    parts = path.split(">")
    while parts and parts[-1] not in _BOXES:
        parts.pop()
    return ">".join(parts)


def _framed_blocks(lines: list[Line], built: list[bool]) -> set[int]:
    """Blocks built like a header or footer: at least half of their lines with words are links, images or
    copyright lines. (A block of plain lines copied onto many pages — a research project's contact — is text.)"""
    counts: dict[int, list[int]] = {}
    for line, ok in zip(lines, built, strict=True):
        if line.key:
            tally = counts.setdefault(line.block, [0, 0])
            tally[0] += ok
            tally[1] += 1
    return {block for block, (ok, total) in counts.items() if 2 * ok >= total}


def _framed_runs(lines: list[Line], built: list[bool], template: Collection[str]) -> set[int]:
    """Indexes of the lines of runs of template lines (one after the other, lines without words between them)
    built like a header or footer: at least half of their lines with words are links, images or copyright
    lines (a footer's `"Gyrobot" - … is the creation of :-` above its logo, name and links)."""
    out: set[int] = set()
    run: list[int] = []
    for i, line in enumerate(lines + [Line(-1, 0, "x", "x", "x")]):
        if not line.key:
            continue
        if line.key in template:
            run.append(i)
            continue
        if run and 2 * sum(built[j] for j in run) >= len(run):
            out.update(run)
        run = []
    return out


def _link_only(md: str) -> bool:
    """A line of links (or linked images) and nothing else with words."""
    return "](" in md and bool(_links(md)) and _all_link(md)


def _images_only(md: str) -> bool:
    """A line that shows images and no words besides their alt texts."""
    return "![" in md and not normalise(_IMAGE_RE.sub("", md))


def _buttons_only(md: str) -> bool:
    """A line of linked images and nothing else: no words, not even alt texts."""
    plain = _IMAGE_RE.sub("", md)
    links = _LINK_RE.findall(plain)
    return bool(links) and not any(normalise(label) for label, _ in links) and not normalise(_LINK_RE.sub("", plain))


def nav_rows(lines: list[Line], hubs: Collection[str], first: int, last: int) -> set[int]:
    """Indexes of the lines of navigation rows before `first` or after `last` (the page's own text): a line of
    links, or link-only lines one after the other (lines without words between them), holding two links or more
    to the site's main pages or back up its tree (`hubs`: keys of hrefs, siterag.extract.template.href_key) that
    are at least half of its links; or, anywhere on the page, a row of image buttons (no words) every link of
    which is such a one."""
    if not hubs:
        return set()
    from siterag.extract.template import href_key, hrefs

    rows: list[list[int]] = []
    run: list[int] = []
    for i, line in enumerate(lines + [Line(-1, 0, "x", "x", "x")]):
        if _link_only(line.md) or (run and _images_only(line.md)):  # a button of the current page, unlinked
            run.append(i)
        elif line.key and run:
            rows.append(run)
            run = []
    out: set[int] = set()
    for row in rows:
        links = [h for i in row for h in hrefs(lines[i].md) if not h.lower().startswith("mailto:")]
        to_hubs = sum(href_key(h) in hubs for h in links)
        if all(i < first or i > last for i in row) and to_hubs >= 2 and 2 * to_hubs >= len(links):
            out.update(row)
    for i, line in enumerate(lines):  # image buttons that all lead up or to the main pages, wherever they are
        if _buttons_only(line.md) and all(href_key(h) in hubs for h in hrefs(line.md)):
            out.add(i)
    return out


def chrome_lines(lines: list[Line], template: Collection[str], anchors: Collection[str] = (),
                 site_wide: Collection[str] = (), hubs: Collection[str] = (),
                 inside: Collection[str] = ()) -> set[tuple[int, int]]:
    """(block id, line no) of the lines that are chrome (`hubs`: the page's links to the site's main pages;
    `inside`: template keys that sit inside the pages' text where they recur — as plain text on this page they
    are its own lines)."""
    if inside:
        plain = {line.key for line in lines if line.key in inside and "](" not in line.md}
        template = set(template) - plain
    drop: set[tuple[int, int]] = set()
    parts_by_number = heads_parts_by_number(lines)
    own = [i for i, line in enumerate(lines) if line.key and line.key not in template]
    boilerplate = [is_boilerplate_line(line.text) for line in lines]
    # A page's own *text* marks where its body starts and ends; a menu of links of its own (a nav bar with one
    # extra entry, "[ Up ]"), an image (its alt text is no text a reader sees) or a counter does not, unless the
    # page has nothing else (a page of links).
    text = [i for i in own if not (_all_link(lines[i].md) or boilerplate[i] or _images_only(lines[i].md))]
    own = text or own
    first, last = (own[0], own[-1]) if own else (len(lines), -1)
    lead = [i for i in range(first) if lines[i].key in template]
    tail = _footer(lines, template, boilerplate, last)
    # The edges: from the page's start to its last template line before its own text, and from the first template
    # line after its own text to the end (logos and spacer images there go with them).
    # Each edge reaches as far as the site's header or footer is built like one (see _built): recurring plain
    # lines between it and the page's own text are the page's.
    own_boxes = {lines[i].box for i in own}
    is_built = [_built(line, bp) or line.box not in own_boxes for line, bp in zip(lines, boilerplate, strict=True)]
    framed = _framed_blocks(lines, is_built)
    runs = _framed_runs(lines, is_built, template)
    # a plain line in a run built like a footer goes with it when it is on half the site's pages (the site's
    # name above its logo); a page's own credit or contact line before the footer stays
    frame = [is_built[i] or (lines[i].key in template and (lines[i].block in framed or (
        i in runs and lines[i].key in site_wide))) for i in range(len(lines))]
    head = range(lead[-1] + 1 if lead else 0)
    built = [i for i in head if frame[i]]
    edge = set(range(built[-1] + 1)) if built else set()
    foot = range(tail[0] if tail else len(lines), len(lines))
    built = [i for i in foot if frame[i]]
    edge |= set(range(built[0], len(lines))) if built else set()
    edge |= nav_rows(lines, hubs, first, last)
    if not own:
        edge = set(range(len(lines))) if template and any(line.key in template for line in lines) else set()
    block_keys: dict[int, list[str]] = {}  # per block, the keys of its lines with words
    for line in lines:
        if line.key:
            block_keys.setdefault(line.block, []).append(line.key)
    for i, line in enumerate(lines):
        recurring = bool(line.key) and line.key in template
        # a counter / copyright / "last updated" line goes in the header and the footer, or when the site
        # repeats it; inside the page's own text it is the author's ("アクセス数が２００００を越えた。", `$copyright`)
        outside = i < first or i > last or recurring
        if (i in edge or (boilerplate[i] and outside) or is_counter_widget(line.md)
                or is_navigation(line.md, anchors, parts_by_number)
                or (recurring and _linky(line) and _in_menu(lines, i, template, block_keys))
                or is_theme_images(line.md)):
            drop.add((line.block, line.no))
    # a heading of the site's template left last (`## その他のメニュー` above a menu that went) heads nothing
    for line in reversed(lines):
        if (line.block, line.no) in drop or not line.key:
            continue
        if not (line.md.startswith("#") and line.key in template):
            break
        drop.add((line.block, line.no))
    return drop


def _in_menu(lines: list[Line], i: int, template: Collection[str], block_keys: dict[int, list[str]]) -> bool:
    """A recurring link line that is a menu's: it holds several links or names a way back (`…・目次`), or it is
    among the site's template: most lines of its block (a list, a paragraph) are template too (a manual's chapter
    list, the current chapter unlinked), or — alone in its block (a table cell) — a line next to it is. A name
    linked on many pages of a site among lines of the page's own (a member list's `[石田 亨](ishida-j.html)`
    between `**石田研究室**` and the lab's other members) is the page's text."""
    links = _links(lines[i].md)
    if len(links) > 1 or any(_NAV_TOKEN_RE.search(label) for label, _ in links):
        return True
    keys = block_keys.get(lines[i].block, [])
    if len(keys) > 1:
        return 2 * sum(key in template for key in keys) > len(keys)
    for step in (-1, 1):
        j = i + step
        while 0 <= j < len(lines) and not lines[j].key:
            j += step
        if 0 <= j < len(lines) and lines[j].key in template:
            return True
    return False


def _built(line: Line, boilerplate: bool) -> bool:
    """A line that marks a site's header or footer: a link or an image (a menu, a logo, a button, a counter) or a
    copyright line. (So does one in a box that holds no line of the page's own: a BBS's notice table.) Recurring
    plain text is its author's unless its block is built of such lines."""
    return "](" in line.md or boilerplate


def _footer(lines: list[Line], template: Collection[str], boilerplate: list[bool], last: int) -> list[int]:
    """The template lines after the page's last line of text from which on the rest of the page is a footer: at
    least as many of the site's template lines as lines of the page's own (links of a list page after its one
    line of text are its own, even where one of them is also linked elsewhere)."""
    after = range(last + 1, len(lines))
    recurring = [i for i in after if lines[i].key in template]
    if not recurring:
        return []
    own_after = [i for i in after if lines[i].key and lines[i].key not in template and not boilerplate[i]]
    for n, start in enumerate(recurring):  # own_after is sorted: the own lines after `start` by bisection
        if len(recurring) - n >= len(own_after) - bisect_right(own_after, start):
            return recurring[n:]
    return []


def _own_text(line: Line, template: Collection[str]) -> bool:
    """A line of the page's own text: words, not one of the site's template lines, not links only, no counter or
    copyright line."""
    return bool(line.key) and line.key not in template and not _all_link(line.md) \
        and not is_boilerplate_line(line.text) and "](" not in line.md


@dataclass
class Chrome:
    """What of a page is chrome: per block, its chrome line numbers; and the page's size with and without it."""

    drop: dict[int, set[int]]
    visible: int  # characters of all visible lines
    content: int  # characters of the lines that are not chrome, or are the page's own text (see find_chrome)
    template_lines: int  # lines of the site's template found on the page
    stamps: list[str] = field(default_factory=list)  # its own counter / copyright / "last updated" lines dropped


def find_chrome(blocks: list[Block], template: Collection[str], anchors: Collection[str] = (),
                site_wide: Collection[str] = (), hubs: Collection[str] = (), inside: Collection[str] = ()) -> Chrome:
    """The chrome of a page split into blocks, given the site's template keys (`site_wide`: those on at least half
    of the site's pages), the page's anchor names and its links to the site's main pages (`hubs`)."""
    lines = page_lines(blocks)
    drop = chrome_lines(lines, template, anchors, site_wide, hubs, inside)
    out: dict[int, set[int]] = {}
    for block, no in drop:
        out.setdefault(block, set()).add(no)
    visible = sum(len(line.text) for line in lines)
    # What should be kept: the lines that are not chrome, and the page's own text lines even where a rule dropped
    # them (a line of the page's own that no rule should eat), so that losing them shows in the quality report
    content = sum(len(line.text) for line in lines if (line.block, line.no) not in drop or _own_text(line, template))
    stamps = [line.text for line in lines
              if (line.block, line.no) in drop and line.key not in template and is_boilerplate_line(line.text)]
    return Chrome(out, visible, content, sum(1 for line in lines if line.key and line.key in template), stamps)
