"""Markdown patterns the enrich stage reads a corpus body with (one place for each)."""

from __future__ import annotations

import re
from collections import Counter

MD_IMAGE_RE = re.compile(r"!\[[^\]]*\]\([^)]*\)")  # a picture: its alt text, its address and caption (`"Spin up"`)
MD_IMAGE_SRC_RE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]*)")  # a picture's address


def repeated_pictures(body: str) -> frozenset[str]:
    """The addresses of pictures a page shows more than once: bullets, rules, spacers, its decoration, no
    picture of what the page is about (a gallery shows each of its pictures once)."""
    seen = Counter(MD_IMAGE_SRC_RE.findall(body))
    return frozenset(src for src, n in seen.items() if n > 1)


def without_pictures(line: str, decoration: frozenset[str]) -> str:
    """`line` without the pictures whose address is in `decoration`."""
    if not decoration:
        return line
    return MD_IMAGE_RE.sub(lambda m: "" if MD_IMAGE_SRC_RE.match(m.group(0)).group(1) in decoration
                           else m.group(0), line)
