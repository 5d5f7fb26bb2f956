"""A corpus document's Markdown as HTML for the reader: markdown-it-py (CommonMark + tables) with raw HTML
escaped, diary entry anchors (`## 2003.6.29 {#2003-06-29}`) as heading ids, links between the archive's
pages resolved to reader pages, the site's other files and images to their copy in the mirror."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

from siterag.enrich.dates import ANCHOR_RE
from siterag.web.rewrite import page_target, route

_MD = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def lang_of(text: str) -> str:
    """`ja` for a text with kana or kanji, else `en` (what the page's `lang` says to a screen reader)."""
    return "ja" if _CJK_RE.search(text[:4000]) else "en"


def render(body: str, site: str, path: str, pages: set[str], origins: tuple[str, ...] = ()) -> str:
    """HTML of a corpus document's Markdown body. `path` is the document's page path (links are relative to
    it), `pages` the site's page paths that have a reader page."""
    tokens = _MD.parse(body)
    for n, tok in enumerate(tokens):
        if tok.type == "heading_open" and n + 1 < len(tokens) and tokens[n + 1].children:
            last = tokens[n + 1].children[-1]
            match = ANCHOR_RE.search(last.content) if last.type == "text" else None
            if match:
                tok.attrSet("id", match.group(1))
                last.content = last.content[:match.start()]
        children = tok.children or []
        for i, child in enumerate(children):
            if child.type == "link_open":
                _name_if_empty(child, children[i + 1:])
                _link(child, site, path, pages, origins)
            elif child.type == "image":
                _image(child, site, path, origins)
    return _MD.renderer.render(tokens, _MD.options, {})


def _link(tok, site: str, path: str, pages: set[str], origins: tuple[str, ...]) -> None:  # noqa: ANN001
    href = str(tok.attrGet("href") or "")
    target = page_target(path, href, origins)
    if target and target[0] in pages:
        tok.attrSet("href", route("/read", site, target[0], target[1]))
    elif target:
        tok.attrSet("href", route("/raw", site, target[0], target[1]))  # a file of the site (or not archived)
    elif href.startswith(("http://", "https://")):
        tok.attrSet("rel", "external noopener noreferrer")  # the live web: a person's choice to follow
        tok.attrSet("class", "external")
    elif not href.startswith("mailto:"):
        tok.attrs.pop("href", None)


def _name_if_empty(tok, rest: list) -> None:  # noqa: ANN001
    """A link with no text (an image with an empty alt, as old sites' buttons are) gets an aria-label, its target's
    file name: a screen reader and the keyboard otherwise meet a nameless link."""
    text = ""
    for child in rest:
        if child.type == "link_close":
            break
        text += child.content if child.type in ("text", "code_inline", "image") else ""
    if not text.strip():
        href = str(tok.attrGet("href") or "").split("#")[0].split("?")[0].rstrip("/")
        tok.attrSet("aria-label", "Link to " + (href.rsplit("/", 1)[-1] or href or "a page"))


def _image(tok, site: str, path: str, origins: tuple[str, ...]) -> None:  # noqa: ANN001
    target = page_target(path, str(tok.attrGet("src") or ""), origins)
    if target:
        tok.attrSet("src", route("/raw", site, target[0]))
        tok.attrSet("loading", "lazy")
    else:  # an image on another host: never fetched; its text stays
        tok.attrSet("src", "")
        tok.attrSet("data-not-archived", "1")
