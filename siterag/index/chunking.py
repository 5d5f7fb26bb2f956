"""Stage 7a: heading-aware chunks sized in the embedder's tokens, with overlap.

A document is cut into units first — paragraphs, list blocks, tables and code fences — each under the heading
path in force. Units are packed into chunks of at most `max_tokens` tokens that never cross a heading; a long
paragraph is split at sentence ends (Japanese 。！？ as well as . ! ?), and consecutive chunks of one section
share about `overlap_tokens` tokens (whole sentences from the end of the previous chunk). A table or code fence
is never split and never used as overlap; only a giant one (over WHOLE_BLOCK_FACTOR × max_tokens: a BBS log that
is one <table>, a pasted log in <pre>) is cut between rows / lines, each piece a valid table or fence again.

Heading paths are a stack by level: a heading replaces every heading of its own or a deeper level, so a page
whose headings start at `###` gets `4月30日`, then `4月29日` (not `4月30日 > 4月29日`). Each chunk carries a date:
that of the nearest date heading in its path (a diary entry, `siterag.enrich.dates.entry_dates`, month-day headings
taking their year from the page) else the document's date, and that entry's heading text (`entry`) and anchor
(`anchor`: the heading's `{#…}`, as siterag.enrich.dates.mark_entries writes it; left out of the heading path).

Sizes are counted with the embedder's own tokenizer when it has one (USE multilingual ships its SentencePiece
model: `USEEmbedder.count_tokens`); otherwise with `approx_tokens`, an approximation calibrated against it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from siterag.enrich.dates import ANCHOR_RE, entry_dates

TokenCounter = Callable[[str], int]

DEFAULT_MAX_TOKENS = 192
DEFAULT_OVERLAP_TOKENS = 32
# A table or code block stays whole up to this many times max_tokens.
WHOLE_BLOCK_FACTOR = 4

_SENTENCE_RE = re.compile(r"(?<=[。！？!?])|(?<=\.)\s+")
_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*)$")
_CJK_RE = re.compile(r"[\u3000-\u9fff\uf900-\ufaff\uff00-\uffef]")

# USE multilingual's SentencePiece model, measured on the shared sites: about 1.9 Japanese characters and
# 3.3 other characters per token.
CJK_CHARS_PER_TOKEN = 1.9
OTHER_CHARS_PER_TOKEN = 3.3


def approx_tokens(text: str) -> int:
    """Approximate USE multilingual token count, for embedders without a tokenizer of their own."""
    cjk = len(_CJK_RE.findall(text))
    return math.ceil(cjk / CJK_CHARS_PER_TOKEN + (len(text) - cjk) / OTHER_CHARS_PER_TOKEN)


@dataclass(frozen=True)
class Chunk:
    """A passage of a document with its heading path (`A > B`), its size in tokens, its date ('' unknown) and the
    diary entry it lies in: that entry heading's text and anchor ('' outside entries)."""

    no: int
    heading: str
    text: str
    tokens: int = 0
    date: str = ""
    entry: str = ""
    anchor: str = ""


def _is_block(text: str) -> bool:
    return text.startswith(("|", "```"))


_Entry = tuple[str, str, str]  # (date, entry heading text, anchor)


def _units(markdown: str, doc_date: str = "") -> list[tuple[list[str], str, _Entry]]:
    """Paragraph-level units with the heading path and (date, entry, anchor) in force; tables and code fences
    stay whole."""
    units: list[tuple[list[str], str, _Entry]] = []
    stack: list[tuple[int, str, _Entry | None]] = []  # (level, text, its entry if it is a date heading)
    buf: list[str] = []
    in_fence = False
    dated = entry_dates(markdown, doc_date or None)
    # The last entry heading (its place in the stack, level, units before it, entry): in force up to the next one,
    # a `#` heading, or a heading at its level or above after some text of the entry (`## あとがき`); a heading right
    # under it is its title, whatever the level (`## Death of my mother` under `### TUESDAY 13th MAY 1997`).
    last: list[tuple[int, int, int, _Entry]] = []

    def flush() -> None:
        text = "\n".join(buf).strip()
        if text:
            entries = [e for _, _, e in reversed(stack) if e] or [e for *_, e in last]
            # the nearest dated entry, else the nearest one (dated by the document)
            entry = next((e for e in entries if e[0]), None) or (doc_date, *(entries[0][1:] if entries else ("", "")))
            units.append(([h for _, h, _ in stack], text, entry))
        buf.clear()

    for n, line in enumerate(markdown.splitlines()):
        if line.startswith("```"):
            if in_fence:
                buf.append(line)
                flush()
                in_fence = False
                continue
            flush()
            in_fence = True
        if in_fence:
            buf.append(line)
            continue
        match = _HEADING_RE.match(line)
        if match:
            flush()
            level = len(match.group(1))
            text = match.group(2).strip()
            anchor = ANCHOR_RE.search(text)
            text = ANCHOR_RE.sub("", text) if anchor else text
            entry = (dated.get(n) or "", text, anchor.group(1) if anchor else "") if n in dated else None
            if entry and last:  # the headings of the last entry (its topic titles) end with it
                del stack[last[0][0]:]
            elif last and level <= last[0][1] and len(units) > last[0][2]:
                last.clear()  # a section after the entry, at its level or above
            while stack and stack[-1][0] >= level:
                stack.pop()
            if entry or level == 1:  # a new entry; a page heading ends the last one
                last[:] = [(len(stack), level, len(units), entry)] if entry else []
            stack.append((level, text, entry))
            continue
        is_table = line.startswith("|")
        if not line.strip() or (buf and is_table != buf[-1].startswith("|")):
            flush()
        if line.strip():
            buf.append(line)
    if in_fence and buf:  # an unclosed fence: close it so the chunk stays valid Markdown
        buf.append("```")
    flush()
    return units


class _Sizer:
    """Token counts, memoised (a unit is counted once, however often the packer asks)."""

    def __init__(self, count: TokenCounter) -> None:
        self._count = count
        self._memo: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        if text not in self._memo:
            self._memo[text] = self._count(text)
        return self._memo[text]


def _pack_lines(head: list[str], lines: list[str], tail: list[str], limit: int, size: _Sizer) -> list[str]:
    """Consecutive lines packed into pieces of about `limit` tokens, each wrapped in head and tail."""
    parts: list[str] = []
    current: list[str] = []
    frame = sum(size(x) for x in head + tail)
    used = frame
    for line in lines:
        n = size(line)
        if current and used + n > limit:
            parts.append("\n".join(head + current + tail))
            current, used = [], frame
        current.append(line)
        used += n
    if current:
        parts.append("\n".join(head + current + tail))
    return parts


def _split_block(text: str, limit: int, size: _Sizer) -> list[str]:
    """A table or code fence: whole, or (if giant) split between rows (header repeated) / lines (fence repeated)."""
    if size(text) <= limit * WHOLE_BLOCK_FACTOR:
        return [text]
    lines = text.split("\n")
    if text.startswith("```"):
        closed = len(lines) > 1 and lines[-1].startswith("```")
        return _pack_lines([lines[0]], lines[1:-1] if closed else lines[1:], ["```"], limit, size)
    head = lines[:2] if len(lines) > 2 and lines[1].startswith("|-") else []
    return _pack_lines(head, lines[len(head):], [], limit, size)


def _hard_cut(sentence: str, limit: int, size: _Sizer) -> list[str]:
    """A sentence longer than `limit` tokens, cut into pieces of about `limit` (at spaces where there are any)."""
    pieces = []
    while sentence and size(sentence) > limit:
        cut = max(1, int(len(sentence) * limit / size(sentence)))
        space = sentence.rfind(" ", cut // 2, cut)
        cut = space + 1 if space > 0 else cut
        pieces.append(sentence[:cut])
        sentence = sentence[cut:]
    if sentence:
        pieces.append(sentence)
    return pieces


def _sentences(text: str, limit: int, size: _Sizer) -> list[str]:
    out = []
    for sentence in (s.strip() for s in _SENTENCE_RE.split(text)):
        if sentence:
            out += _hard_cut(sentence, limit, size)
    return out


def _join(left: str, right: str) -> str:
    """Two sentences as one text: Japanese ones touch, others are separated by a space."""
    if not left:
        return right
    return left + right if left.endswith(("。", "！", "？")) or _CJK_RE.match(right[:1]) else left + " " + right


def _split_long(text: str, limit: int, size: _Sizer) -> list[str]:
    """A unit as pieces of at most `limit` tokens: blocks whole (see _split_block), prose at sentence ends."""
    if _is_block(text):
        return _split_block(text, limit, size)
    if size(text) <= limit:
        return [text]
    parts: list[str] = []
    current, used = "", 0  # token counts add up (near enough) over sentences: no recount of the growing text
    for sentence in _sentences(text, limit, size):
        n = size(sentence)
        if current and used + n > limit:
            parts.append(current)
            current, used = "", 0
        current, used = _join(current, sentence), used + n
    if current.strip():
        parts.append(current.strip())
    return [p for p in parts if p]


def _overlap(piece: str, budget: int, size: _Sizer) -> str:
    """The last whole sentences of `piece` that fit in `budget` tokens ("" for a table or code block). Sentences
    are sized from the end and only until the budget is spent (the ones before are never counted)."""
    if budget <= 0 or _is_block(piece):
        return ""
    tail, used = "", 0
    sentences = [s.strip() for s in _SENTENCE_RE.split(piece)]
    for sentence in reversed([s for s in sentences if s]):
        for part in reversed(_hard_cut(sentence, budget, size)):
            used += size(part)
            if used > budget:
                return "" if tail == piece.strip() else tail
            tail = _join(part, tail) if tail else part
    return "" if tail == piece.strip() else tail


def chunk_markdown(markdown: str, max_tokens: int = DEFAULT_MAX_TOKENS, overlap_tokens: int = DEFAULT_OVERLAP_TOKENS,
                   count_tokens: TokenCounter | None = None, doc_date: str = "") -> list[Chunk]:
    """Chunks of at most `max_tokens` (a whole table/code block may be larger) under one heading path each,
    dated by their diary entry (the nearest date heading of their path) else by `doc_date`."""
    size = _Sizer(count_tokens or approx_tokens)
    chunks: list[Chunk] = []
    current: list[str] = []
    current_heading: list[str] | None = None
    current_entry: _Entry = ("", "", "")

    def emit() -> None:
        if current:
            text = "\n\n".join(current)
            chunks.append(Chunk(len(chunks), " > ".join(current_heading or []), text, size(text), *current_entry))

    section: tuple[list[str], _Entry] | None = None
    for heading, unit, when in _units(markdown, doc_date):
        for piece in _split_long(unit, max_tokens, size):
            used = sum(size(c) for c in current)
            same = section == (heading, when)
            if current and (not same or used + size(piece) > max_tokens):
                emit()
                tail = ""
                if same and not _is_block(piece):  # overlap within a section only
                    tail = _overlap(current[-1], min(overlap_tokens, max_tokens - size(piece)), size)
                current = [tail] if tail else []
            section = (heading, when)
            current_heading, current_entry = heading, when
            current.append(piece)
    emit()
    return chunks


_IMAGE_RE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK_RE = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_EMPHASIS_RE = re.compile(r"(\*\*|__|`)(.+?)\1")
_TABLE_RULE_RE = re.compile(r"^\|?\s*:?-{2,}.*$")
_LINE_MARK_RE = re.compile(r"^(#{1,6}\s+|[-*+]\s+|\d+\.\s+|>\s*)")


def markdown_lines(markdown: str) -> list[str]:
    """The text of each Markdown line: no images, link targets, emphasis, fences, table rules or list marks."""
    out = []
    for line in markdown.splitlines():
        if line.startswith("```") or _TABLE_RULE_RE.match(line):
            continue
        if line.startswith("#"):
            line = ANCHOR_RE.sub("", line)  # an entry heading's anchor `{#2003-06-29}`
        line = _IMAGE_RE.sub("", line)
        line = _LINK_RE.sub(r"\1", line)
        line = _EMPHASIS_RE.sub(r"\2", line).replace("<br>", " ")
        line = _LINE_MARK_RE.sub("", line.strip())
        if line.startswith("|"):
            line = " · ".join(cell.strip() for cell in line.strip("|").split("|") if cell.strip())
        line = " ".join(line.split())
        if line:
            out.append(line)
    return out


def plain_text(markdown: str) -> str:
    """Markdown as one line of plain text (for document leads and snippets)."""
    return " ".join(markdown_lines(markdown))
