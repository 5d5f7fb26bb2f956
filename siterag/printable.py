"""Untrusted text (page titles, snippets, paths, URLs, answers, error lines quoting them) made safe to print.

An archived page may hold terminal escape sequences (`ESC ] 0 ; title BEL` retitles the terminal, `ESC [ 2 J`
clears it, OSC 8 disguises a link), other C0/C1 controls (a lone CR overwrites the line), bidi overrides that
show text in another order than it is, or lone surrogates (bytes that are no UTF-8, which print() cannot even
encode). `printable` shows each such character as a visible escape (`\\x1b`, `\\u202e`); Japanese, emoji and
every other printable character stay as they are.
"""

from __future__ import annotations

import json
import re

# C0 and C1 controls and DEL; bidi embeddings, overrides, isolates and marks; line and paragraph separators;
# surrogates (undecodable bytes under surrogateescape).
_OTHER = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE_RE = re.compile(f"[\x00-\x1f{_OTHER}]")
_UNSAFE_LINES_RE = re.compile(f"[\x00-\x08\x0b-\x1f{_OTHER}]")  # the same, less tab and newline
_JSON_UNSAFE_RE = re.compile(f"[{_OTHER}]")  # json.dumps escapes the C0 controls itself


_NAMED = {"\n": "\\n", "\r": "\\r"}


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group())
    if match.group() in _NAMED:
        return _NAMED[match.group()]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object, multiline: bool = False) -> str:
    """`text` safe for a terminal: controls, bidi overrides and surrogates shown as `\\x1b` / `\\u202e`.

    One line (the default: a title, path, URL, warning): a tab becomes a space and a newline is shown as `\\n`,
    so that nothing can start a line of its own. `multiline` (an answer's text): tabs and newlines (LF; CR LF
    becomes LF) are kept, a lone CR is shown."""
    text = str(text)
    if multiline:
        return _UNSAFE_LINES_RE.sub(_shown, text.replace("\r\n", "\n"))
    return _UNSAFE_RE.sub(_shown, text.replace("\t", " "))


def printable_json(value: object) -> str:
    """`value` as indented JSON that is also safe for a terminal: json.dumps escapes C0 controls; C1 controls,
    bidi overrides, line separators and lone surrogates are escaped (`\\u009b`) too. Still valid JSON, same value."""
    text = json.dumps(value, ensure_ascii=False, indent=1)
    return _JSON_UNSAFE_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
