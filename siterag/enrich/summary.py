"""Summaries of one page, pure functions of its Markdown body: its sentences (page_sentences), the lead chosen from
them (choose_summary), or on a page made of entries, lists, tables or short lines, a summary composed from its
structure (composed_summary). Every quoted sentence is the body's own (summary_is_exact)."""

from __future__ import annotations

import re
from itertools import takewhile

from siterag.enrich.dates import HARD_BREAK_RE

SUMMARY_CHARS = 200
SUMMARY_SENTENCES = 3
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


def _speaker(unit: str) -> str:
    """The speaker's name a line opens with (`生徒 ここ。`), else ''."""
    match = _SPEAKER_RE.match(_BOLD_NAME_RE.sub(r"\2", unit))
    return (match.group(1) or match.group(2)) if match else ""


_BOLD_NAME_RE = re.compile(r"^(\*\*|__)([^*_\s]{1,10})\1(?=[ 　])")  # `**知輝** 斉藤先生じゃないですか。`
