"""Stage 2: tell text from binary by content (never by extension) and pick the HTML pages."""

from __future__ import annotations

import codecs
import re

_MAGIC = (
    b"\x89PNG", b"GIF87a", b"GIF89a", b"\xff\xd8\xff", b"%PDF", b"PK\x03\x04", b"\xd0\xcf\x11\xe0",
    b"BM", b"\x00\x00\x01\x00", b"RIFF", b"OggS", b"ID3", b"\x1f\x8b", b"MZ", b"\x7fELF", b"FWS", b"CWS",
)
_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
_HTML_RE = re.compile(rb"<\s*(!doctype\s+html|html|head|body|frameset|title|table|p|br|div|h[1-6]|meta)\b",
                      re.IGNORECASE)
SAMPLE = 8192
# UTF-32 before UTF-16: a UTF-32LE BOM starts with the UTF-16LE one.
_WIDE_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF16_LE, "utf-16"),
              (codecs.BOM_UTF16_BE, "utf-16"))
_WIDE = ("utf-32-le", "utf-32-be", "utf-16-le", "utf-16-be")


def wide_encoding(data: bytes) -> str | None:
    """UTF-16 or UTF-32 by its BOM, or without one when its start decodes (NUL-free) to HTML markup; else None."""
    head = data[:SAMPLE]
    for bom, codec in _WIDE_BOMS:
        if head.startswith(bom):
            return codec
    if b"\x00" not in head:
        return None
    for codec in _WIDE:
        unit = 4 if "32" in codec else 2
        try:
            text = head[:len(head) - len(head) % unit].decode(codec)
        except UnicodeDecodeError:
            continue
        if "\x00" not in text and _HTML_RE.search(text.encode("utf-8", "replace")):
            return codec
    return None


def is_binary(data: bytes) -> bool:
    """True for images, archives, executables and anything with NUL or many control bytes."""
    head = data[:SAMPLE]
    if not head:
        return False
    if head.startswith(_BOMS) or wide_encoding(head):  # UTF-16/32 text has NUL bytes
        return False
    if head.startswith(b"BM") and len(head) > 14 and b"<" not in head[:64]:
        return True
    if any(head.startswith(m) for m in _MAGIC if m != b"BM"):
        return True
    if b"\x00" in head:
        return True
    # ESC (0x1b) is legal: ISO-2022-JP uses it. Other C0 controls are a binary sign.
    controls = sum(1 for b in head if b < 0x20 and b not in (0x09, 0x0A, 0x0C, 0x0D, 0x1B))
    return controls / len(head) > 0.05


# A program's first statement: an interpreter line (`#!/usr/bin/perl`), a Perl package or module line
# (`package CGI::Minimal;`, `use strict;`), a C include: its text is code, whatever markup its strings hold.
_PROGRAM_START_RE = re.compile(rb"^\s*(?:#!\s*/|(?:package|use|require)\s+[\w:]+[^;\n<>]*;|#include\s*[<\"])")


def looks_like_html(data: bytes) -> bool:
    """True when the text contains HTML markup near its start (UTF-16/32 text decoded first) and does not open as a
    program's source (a Perl module printing a table from a here-document is code, not a page)."""
    wide = wide_encoding(data)
    head = data[:SAMPLE].decode(wide, "ignore").encode("utf-8", "replace") if wide else data[:SAMPLE]
    return bool(_HTML_RE.search(head)) and not _PROGRAM_START_RE.match(head.lstrip(b"\xef\xbb\xbf"))
