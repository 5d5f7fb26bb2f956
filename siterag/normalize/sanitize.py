"""Make a page safe for libxml2 before extraction, without losing any of its text.

libxml2 (under lxml, and so under trafilatura too) gives up on a page at its resource limits and silently
drops the rest of it: nesting deeper than 256 (5,000 nested <div>s, a page of unclosed <font> tags), or one
text node, comment or attribute over 10 MB (a huge inline data: image, a pasted log). Such a page is rewritten
once: comments and script/style bodies dropped (extraction drops them anyway), giant text nodes split, tags
deeper than MAX_DEPTH unwrapped with their text kept. Inline data: URIs are never page text and are emptied on
every page, so that a base64 image does not end up in the Markdown body.
"""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser

import lxml.html
from lxml import etree

_DATA_URI_RE = re.compile(r"""(\s(?:src|href|background|data|poster)\s*=\s*)(["'])\s*data:[^"']*\2""", re.IGNORECASE)
# Characters per text run: libxml2's HTML parser loses its input buffer on runs of ~100,000 characters once a
# page passes 10 MB, and copes with any number of short ones.
MAX_TEXT = 10_000
MAX_DEPTH = 150  # well under libxml2's 256 and Python's recursion limit (the block renderer recurses per level)
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track",
        "wbr", "basefont", "bgsound", "frame", "keygen", "spacer", "isindex", "nextid"}
# Tags that a new one of the same name closes (<p>…<p>, <li>…<li>): no nesting.
SELF_CLOSING_SIBLINGS = {"p", "li", "dt", "dd", "tr", "td", "th", "option"}


def over_limits(html: str) -> bool:
    """True when libxml2 gives up on the page (and would drop the rest of it)."""
    parser = lxml.html.HTMLParser()
    try:
        lxml.html.document_fromstring(html, parser=parser)
    except (ValueError, etree.ParserError):
        return False
    return any(e.type_name == "ERR_RESOURCE_LIMIT" for e in parser.error_log)


class _Flattener(HTMLParser):
    def __init__(self, limit: int) -> None:
        super().__init__(convert_charrefs=False)
        self.limit = limit
        self.raw = ""  # inside <script>/<style>: their text is dropped
        self.out: list[str] = []
        self.stack: list[tuple[str, bool]] = []  # open tag, whether its start tag was kept
        self.open: Counter[str] = Counter()  # open tags by name: an end tag's lookup without walking the stack

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in SELF_CLOSING_SIBLINGS and self.stack and self.stack[-1][0] == tag:
            self.handle_endtag(tag)
        text = self.get_starttag_text() or f"<{tag}>"
        if tag == "wbr":  # unknown to libxml2's HTML parser, which nests it
            return
        if tag in VOID:
            self.out.append(text)
            return
        keep = len(self.stack) < self.limit
        self.stack.append((tag, keep))
        self.open[tag] += 1
        if keep:
            self.out.append(text)
        if tag in ("script", "style"):
            self.raw = tag

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        if tag != "wbr" and (len(self.stack) < self.limit or tag in VOID):
            self.out.append(self.get_starttag_text() or f"<{tag}/>")

    def handle_endtag(self, tag: str) -> None:
        if tag == self.raw:
            self.raw = ""
        if not self.open[tag]:
            return  # a stray end tag
        while self.stack:
            name, kept = self.stack.pop()
            self.open[name] -= 1
            if kept:
                self.out.append(f"</{name}>")
            if name == tag:
                break

    def handle_data(self, data: str) -> None:
        if self.raw:
            return
        for start in range(0, len(data), MAX_TEXT):  # an empty <span> splits a giant run and renders as nothing
            self.out.append(("<span></span>" if start else "") + data[start:start + MAX_TEXT])

    def handle_entityref(self, name: str) -> None:
        self.out.append(f"&{name};")

    def handle_charref(self, name: str) -> None:
        self.out.append(f"&#{name};")

    def handle_comment(self, data: str) -> None:
        pass

    def handle_decl(self, decl: str) -> None:
        self.out.append(f"<!{decl}>")

    def handle_pi(self, data: str) -> None:
        self.out.append(f"<?{data}>")

    def unknown_decl(self, data: str) -> None:
        self.out.append(f"<![{data}]>")


def flatten(html: str, limit: int = MAX_DEPTH) -> str:
    """The page without comments and script/style bodies, giant text nodes split, every tag deeper than
    `limit` unwrapped; all text is kept."""
    flattener = _Flattener(limit)
    flattener.feed(html)
    flattener.close()
    return "".join(flattener.out)


def drop_data_uris(html: str) -> str:
    """Empty every inline data: URI (src="data:image/png;base64,…" becomes src="")."""
    return _DATA_URI_RE.sub(r"\1\2\2", html) if "data:" in html else html


def prepare_html(html: str) -> str:
    """The page ready for extraction: data: URIs emptied, and flattened if libxml2 would give up on it."""
    html = drop_data_uris(html)
    if not over_limits(html):
        return html
    try:
        return flatten(html)
    except Exception:  # noqa: BLE001 - html.parser gave up too: extract what libxml2 can read
        return html
