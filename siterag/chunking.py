"""Stage 7a: heading-aware chunks that respect Japanese sentence ends and never split tables or code."""

from __future__ import annotations

import re
from dataclasses import dataclass

_SENTENCE_RE = re.compile(r"(?<=[。！？!?])|(?<=\.)\s+")
_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*)$")


@dataclass(frozen=True)
class Chunk:
    """A passage of a document with its heading path."""

    no: int
    heading: str
    text: str


def _units(markdown: str) -> list[tuple[list[str], str]]:
    """Paragraph-level units with the heading path in force; tables and code fences stay whole."""
    units: list[tuple[list[str], str]] = []
    headings: list[str] = []
    buf: list[str] = []
    in_fence = False

    def flush() -> None:
        text = "\n".join(buf).strip()
        if text:
            units.append((list(headings), text))
        buf.clear()

    for line in markdown.splitlines():
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
            headings[:] = headings[: level - 1] + [match.group(2).strip()]
            continue
        is_table = line.startswith("|")
        if not line.strip() or (buf and is_table != buf[-1].startswith("|")):
            flush()
        if line.strip():
            buf.append(line)
    flush()
    return units


def _split_long(text: str, max_chars: int) -> list[str]:
    """Split a long paragraph at sentence ends (。！？ . ! ?), hard-cut only inside a huge sentence."""
    if len(text) <= max_chars or text.startswith(("```", "|")):
        return [text]
    parts, current = [], ""
    for sentence in (s for s in _SENTENCE_RE.split(text) if s):
        while len(sentence) > max_chars:
            parts.append((current + sentence[: max_chars - len(current)]).strip())
            sentence = sentence[max_chars - len(current):]
            current = ""
        if len(current) + len(sentence) > max_chars:
            parts.append(current.strip())
            current = ""
        current += sentence
    if current.strip():
        parts.append(current.strip())
    return [p for p in parts if p]


def chunk_markdown(markdown: str, max_chars: int = 800, overlap_chars: int = 100) -> list[Chunk]:
    """Pack units into chunks of about max_chars under one heading path, with a short overlap."""
    chunks: list[Chunk] = []
    current: list[str] = []
    current_heading: list[str] | None = None

    def emit() -> None:
        if current:
            chunks.append(Chunk(len(chunks), " > ".join(current_heading or []), "\n\n".join(current)))

    for heading, unit in _units(markdown):
        for piece in _split_long(unit, max_chars):
            size = sum(len(c) for c in current)
            if current and (heading != current_heading or size + len(piece) > max_chars):
                emit()
                tail = current[-1][-overlap_chars:] if heading == current_heading and overlap_chars else ""
                current = [tail] if tail and not tail.startswith(("|", "```")) else []
            current_heading = heading
            current.append(piece)
    emit()
    return chunks
