"""Links and paths of the web app, as pure functions: a URL's path checked to stay in its folder, a link of an
archived page resolved inside the archive, the archived HTML made inert (no script, no request off the machine),
a search snippet's **marks** as escaped HTML with <mark>."""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import quote

import lxml.html

from siterag.enrich.links import page_target
from siterag.extract.blocks import read_on
from siterag.layout import UnsafePath, safe_path

__all__ = ["file_in", "page_target", "route", "rewrite_html", "snippet_html", "RAW_CSP", "RAW_HEADERS"]


def file_in(root: Path, rel: str) -> Path | None:
    """The file `rel` (a path from a URL, already percent-decoded once) under `root`, or None: a path that
    would leave it (`..`, absolute, backslash, NUL, a symlink on the way — siterag.layout.safe_path), a dot
    file or folder (`.siterag-manifest.json`), or no such file."""
    try:
        path = safe_path(root, rel)
    except UnsafePath:
        return None
    if any(part.startswith(".") for part in rel.split("/")) or not path.is_file():
        return None
    try:  # belt and braces: whatever safe_path let through still resolves under the (resolved) root
        path.resolve().relative_to(root.resolve())
    except (OSError, ValueError):
        return None
    return path


def route(prefix: str, site: str, path: str, fragment: str = "") -> str:
    """The app's URL of a site's path: `/raw/site/a%20b.html#x`."""
    return f"{prefix}/{quote(site, safe='')}/{quote(path)}{fragment}"


# ---- the archived page, made inert ---------------------------------------------------------------------

# A strict policy for every archived byte served: no script, no request to anything but this server,
# no form, no plugin; `sandbox` (no allow-*) makes the document an opaque origin even when opened directly.
RAW_CSP = ("default-src 'none'; img-src 'self'; style-src 'self' 'unsafe-inline'; frame-src 'self'; "
           "form-action 'none'; base-uri 'none'; sandbox")
RAW_HEADERS = {"Content-Security-Policy": RAW_CSP, "X-Content-Type-Options": "nosniff",
               "Referrer-Policy": "no-referrer", "X-DNS-Prefetch-Control": "off",
               "Cache-Control": "no-store"}
_LINK_ATTRS = ("href", "src", "background", "lowsrc", "longdesc", "usemap", "poster", "data", "action", "cite",
               "codebase", "archive", "dynsrc", "profile", "manifest", "formaction", "icon", "ping", "srcset",
               "imagesrcset", "xmlns")
_NAVIGATION = {"a", "area", "frame", "iframe"}
_DROP = {"script", "object", "embed", "applet", "base", "portal"}


def rewrite_html(text: str, site: str, path: str, origins: tuple[str, ...] = (), prefix: str = "/raw") -> str:
    """The archived page `text` (UTF-8 text of data/normalized/<site>/<path>) with every link and resource
    pointing at this app's copy (`/raw/<site>/<page>`) or removed: scripts, plugins, <base>, <meta refresh>,
    <link>s other than style sheets of the site, event handlers and links out of the archive are dropped (the
    link's address is kept as its title). The CSP (RAW_CSP) is the guarantee; this keeps the page usable and
    stops what a CSP does not govern (a link or refresh navigating the frame to the live web, DNS prefetch)."""
    try:
        doc = lxml.html.document_fromstring(read_on(text))  # what a browser shows past `</html>` too
    except (ValueError, lxml.etree.ParserError):
        return ""
    for el in list(doc.iter()):
        if not isinstance(el.tag, str):
            continue
        tag = el.tag.lower()
        if tag in _DROP or (tag == "meta" and (el.get("http-equiv") or "").lower() in ("refresh", "set-cookie")):
            el.drop_tree()
            continue
        if tag == "link" and (el.get("rel") or "").lower().strip() != "stylesheet":
            el.drop_tree()
            continue
        for name in list(el.attrib):
            low = name.lower()
            if low.startswith("on") or low in ("srcset", "imagesrcset", "ping", "formaction", "xmlns", "manifest"):
                del el.attrib[name]
            elif low in _LINK_ATTRS:
                target = page_target(path, el.attrib[name], origins)
                if target:
                    el.attrib[name] = route(prefix, site, target[0], target[1])
                else:
                    if tag in _NAVIGATION and low == "href":
                        el.set("title", f"not archived: {el.attrib[name]}"[:300])
                    del el.attrib[name]
    head = doc.find("head")
    if head is not None:
        head.insert(0, lxml.html.Element("meta", {"http-equiv": "x-dns-prefetch-control", "content": "off"}))
    return "<!DOCTYPE html>\n" + lxml.html.tostring(doc, encoding="unicode", method="html")


# ---- search snippets ---------------------------------------------------------------------------------------

_MARK_RE = re.compile(r"\*\*(.+?)\*\*", re.DOTALL)


def snippet_html(snippet: str) -> str:
    """A search snippet (terms marked **like this**) as HTML: everything escaped, the marks as <mark>."""
    return _MARK_RE.sub(r"<mark>\1</mark>", html.escape(snippet, quote=True))
