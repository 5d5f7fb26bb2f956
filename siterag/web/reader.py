"""A corpus document's Markdown as HTML for the reader: markdown-it-py (CommonMark + tables) with raw HTML
escaped, diary entry anchors (`## 2003.6.29 {#2003-06-29}`) as heading ids, links between the archive's
pages resolved to reader pages, the site's other files and images to their copy in the mirror."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from markdown_it import MarkdownIt

from siterag.enrich.dates import ANCHOR_RE
from siterag.enrich.links import corpus_target, page_target
from siterag.web.rewrite import route

_MD = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def lang_of(text: str) -> str:
    """`ja` for a text with kana or kanji, else `en` (what the page's `lang` says to a screen reader)."""
    return "ja" if _CJK_RE.search(text[:4000]) else "en"


def render(body: str, site: str, path: str, pages: set[str], origins: tuple[str, ...] = (), rel: str = "",
           docs: Mapping[str, str] | None = None) -> str:
    """HTML of a corpus document's Markdown body. `path` is the document's page path (links as the page had them
    are relative to it), `pages` the site's page paths that have a reader page; `rel` the document's corpus path
    and `docs` corpus path -> page path of the site's documents, for the links the corpus pass rewrote to the
    `.md` files and the mirror's files (siterag.enrich.links.corpus_target)."""
    at = Where(site, path, pages, origins, rel, docs or {})
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
                _link(child, at)
            elif child.type == "image":
                _image(child, at)
    return _MD.renderer.render(tokens, _MD.options, {})


@dataclass(frozen=True)
class Where:
    """The document being rendered and its site: what its links are resolved against."""

    site: str
    path: str
    pages: set[str]
    origins: tuple[str, ...]
    rel: str
    docs: Mapping[str, str]

    def target(self, href: str) -> tuple[str, str, str] | None:
        """("/read" or "/raw", site path, #fragment) of a link inside the archive; None for one out of it."""
        own = corpus_target(self.site, self.rel, href) if self.rel else None
        if own and own[0] == "doc" and own[1] in self.docs:
            return "/read", self.docs[own[1]], own[2]
        if own and own[0] == "file":
            return "/raw", own[1], own[2]
        found = page_target(self.path, href, self.origins)
        if found is None:
            return None
        return ("/read" if found[0] in self.pages else "/raw", *found)  # /raw: a file of the site (or not archived)


def _link(tok, at: Where) -> None:  # noqa: ANN001
    href = str(tok.attrGet("href") or "")
    target = at.target(href)
    if target:
        tok.attrSet("href", route(target[0], at.site, target[1], target[2]))
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


def _image(tok, at: Where) -> None:  # noqa: ANN001
    target = at.target(str(tok.attrGet("src") or ""))
    if target:
        tok.attrSet("src", route("/raw", at.site, target[1]))
        tok.attrSet("loading", "lazy")
    else:  # an image on another host: never fetched; its text stays
        tok.attrSet("src", "")
        tok.attrSet("data-not-archived", "1")
