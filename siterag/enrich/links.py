"""Links of the archive, as pure functions shared by the corpus and the web reader: where a link of an archived
page leads inside its site (page_target), the corpus bodies' links rewritten to the `.md` documents and the
mirror's files (rewrite_links, so a Markdown viewer opened on data/ follows them), the reverse for the reader
(corpus_target), and a page's original address under a site's `origin` (origin_url).

In the corpus a link to a page of the site with a document is the relative path of that `.md` file (with its
`#fragment`); a link to another file of the mirror (an image, a PDF, a page without a document) is the relative
path of the file in data/mirror/<site>/; a link to a page not archived stays as it was, or becomes its absolute
original URL when the site's `origin` is known. Every target is computed from archive-relative paths checked as
siterag.layout.safe_path checks them, so none leaves data/; a link whose target would leave the site's folder
(`../../../../etc/passwd`, `%2e%2e/`, `..\\..\\`) or runs code (`javascript:`, `data:`) is dropped (its text
stays)."""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote, urljoin, urlsplit

KEPT_SCHEMES = ("http", "https", "ftp", "mailto", "news")  # links to the web or mail: left as they are


def page_target(base_path: str, href: str, origins: tuple[str, ...] = ()) -> tuple[str, str] | None:
    """Where a link `href` on the archived page `base_path` (a site-relative path) leads inside the site:
    (site-relative path, #fragment), or None for a link out of the archive (another host, mailto:,
    javascript:, above the site's root). `origins`: the site's own base URLs (`http://host/~user/`), whose
    absolute links are the site's pages. The query string is dropped (wget saved no such variants here). A
    backslash is a slash, as browsers read it in an http URL (`img\\a.gif` is `img/a.gif`)."""
    href = href.strip().replace("\\", "/")
    if not href:
        return None
    parts = urlsplit(href)
    fragment = f"#{parts.fragment}" if parts.fragment else ""
    if parts.scheme or parts.netloc:
        absolute = href if parts.scheme else f"http:{href}"
        for origin in origins:
            o = urlsplit(origin)
            a = urlsplit(absolute)
            prefix = o.path if o.path.endswith("/") else posixpath.dirname(o.path) + "/"
            if a.scheme in ("http", "https") and a.netloc.lower() == o.netloc.lower() and \
                    (a.path or "/").startswith(prefix):
                path = _clean((a.path or "/")[len(prefix):] or "index.html")
                return (path, fragment) if path else None
        return None
    if not parts.path:
        return (base_path, fragment) if fragment else None
    joined = parts.path.lstrip("/") if parts.path.startswith("/") else \
        posixpath.join(posixpath.dirname(base_path), parts.path)
    path = _clean(joined)
    return (path, fragment) if path else None


def _clean(path: str) -> str | None:
    """A site-relative path with `.`/`..` resolved and percent escapes decoded; None above the site's root."""
    path = unquote(path).replace("\\", "/")
    if path.endswith("/"):
        path += "index.html"
    norm = posixpath.normpath(path)
    return None if norm in (".", "..") or norm.startswith(("../", "/")) else norm


def corpus_target(site: str, corpus_rel: str, href: str) -> tuple[str, str, str] | None:
    """A relative link as rewrite_links writes it in the document `corpus_rel` of `site`: ("doc", corpus path,
    #fragment) for a `.md` of the site's corpus, ("file", site path, #fragment) for a file of its mirror; None
    for anything else (an absolute URL, a link as the page had it)."""
    parts = urlsplit(href.strip().replace("\\", "/"))
    if parts.scheme or parts.netloc or not parts.path or parts.path.startswith("/"):
        return None
    fragment = f"#{parts.fragment}" if parts.fragment else ""
    here = posixpath.join("corpus", site, posixpath.dirname(corpus_rel))
    norm = posixpath.normpath(posixpath.join(here, unquote(parts.path)))
    for kind, root in (("doc", f"corpus/{site}/"), ("file", f"mirror/{site}/")):
        if norm.startswith(root) and (kind == "file" or norm.endswith(".md")):
            return kind, norm[len(root):], fragment
    return None


_DEST_RE = re.compile(r'\]\(((?:[^()\s]|\([^()\s]*\))*)((?:\s+"[^"]*")?)\)')  # CommonMark: balanced parens
_DROP = "\x00drop\x00"
_DROPPED_IMAGE_RE = re.compile(r'!\[[^\]]*\]\(\x00drop\x00(?:\s+"[^"]*")?\)')
_DROPPED_LINK_RE = re.compile(r'\[((?:\\.|[^\[\]\\]|!\[[^\]]*\]\([^)]*\))*)\]\(\x00drop\x00(?:\s+"[^"]*")?\)')


def _dest(path: str) -> str:
    """A path as a Markdown link destination: kana and kanji kept as they are (readable in the file), what a
    destination or a path cannot hold percent-encoded."""
    return "".join(quote(c, safe="") if c in ' ()<>%"#?[]\\' or not c.isprintable() else c for c in path)


@dataclass(frozen=True)
class SiteLinks:
    """What rewriting a site's corpus links needs to know: `docs` page path -> corpus path of its documents,
    `files` the site paths of its mirror (mirror_files), `origins` the base URLs of the mirror's root (site_origins),
    its configured `origin` ('' when unknown) and `start_dir`, the mirror folder the origin stands for (`~user/`
    for a crawl of `http://127.0.0.1:8000/~user/`, '' for a local folder or a WARC: start_dir)."""

    site: str
    docs: Mapping[str, str]
    files: frozenset[str] = frozenset()
    origins: tuple[str, ...] = ()
    origin: str = ""
    start_dir: str = ""
    doc_rels: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "doc_rels", frozenset(self.docs.values()))

    def target(self, path: str, href: str) -> tuple[str, str] | None:
        """page_target, with the site's `origin` as one more base (its pages lie under start_dir)."""
        found = page_target(path, href, self.origins)
        if found is None and self.origin and urlsplit(href.strip()).netloc:
            tail = page_target("", href, (self.origin,))
            found = (self.start_dir + tail[0], tail[1]) if tail else None
        return found

    def original(self, site_path: str) -> str:
        """The original address of a site path under `origin` ('' without one)."""
        if not self.origin:
            return ""
        if site_path.startswith(self.start_dir):
            return self.origin + quote(site_path[len(self.start_dir):], safe="/~")
        o = urlsplit(self.origin)
        return f"{o.scheme}://{o.netloc}/" + quote(site_path, safe="/~")

    def href(self, href: str, path: str, corpus_rel: str) -> str | None:
        """The corpus's destination for the link `href` of the document `corpus_rel` (of the page `path`): see
        the module's docstring. None: drop the link (keep its text)."""
        href = href.strip()
        if not href or href.startswith("#"):
            return href
        parts = urlsplit(href.replace("\\", "/"))
        if parts.scheme and parts.scheme.lower() not in KEPT_SCHEMES:
            return None  # javascript:, data:, vbscript:, file:, a Windows drive `C:\\…`
        own = corpus_target(self.site, corpus_rel, href) if not parts.scheme else None
        if own and (own[1] in self.doc_rels if own[0] == "doc" else own[1] in self.files):
            return href  # already rewritten (an earlier run), and still there
        target = self.target(path, href)
        if target is None:
            if parts.scheme or parts.netloc or own:
                return href  # the web, mail, or a document of ours since removed
            return urljoin(self.original(path), href.replace("\\", "/")) if self.origin else None
        site_path, fragment = target
        here = posixpath.dirname(corpus_rel)
        if site_path in self.docs:
            return _dest(posixpath.relpath(self.docs[site_path], here or ".")) + fragment
        if site_path in self.files:
            mirror = posixpath.relpath(f"mirror/{self.site}/{site_path}", posixpath.join("corpus", self.site, here))
            return _dest(mirror) + fragment
        if self.origin:
            query = f"?{parts.query}" if parts.query and not parts.scheme else ""
            return self.original(site_path) + query + fragment
        return href

    def rewrite(self, body: str, path: str, corpus_rel: str) -> str:
        """The body of the document `corpus_rel` (of the page `path`) with its links rewritten (rewrite_links)."""
        return rewrite_links(body, lambda href: self.href(href, path, corpus_rel))


def rewrite_links(body: str, rewrite: Callable[[str], str | None]) -> str:
    """A corpus body with each link and image destination replaced by `rewrite(href)` (SiteLinks.href bound to
    its document); a dropped link keeps its text, a dropped image goes. Code fences are left alone."""
    out, fenced = [], False
    for line in body.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        if fenced or "](" not in line:
            out.append(line)
            continue

        def swap(match: re.Match) -> str:
            new = rewrite(match.group(1))
            return f"]({_DROP if new is None else new}{match.group(2)})"

        line = _DEST_RE.sub(swap, line)
        if _DROP in line:
            line = _DROPPED_IMAGE_RE.sub("", line)
            line = _DROPPED_LINK_RE.sub(r"\1", line)
            line = line.replace(_DROP, "")  # a shape the patterns missed: an empty destination, never the bad one
        out.append(line)
    return "\n".join(out)


def mirror_files(mirror: Path) -> set[str]:
    """The site paths of the mirror's files as the reader serves them (siterag.web.rewrite.file_in): no dot file or
    folder, nothing under a symlink."""
    found: set[str] = set()
    for root, folders, files in os.walk(mirror):
        folders[:] = [f for f in folders if not f.startswith(".") and not os.path.islink(os.path.join(root, f))]
        rel = Path(root).relative_to(mirror).as_posix()
        for name in files:
            if not name.startswith(".") and not os.path.islink(os.path.join(root, name)):
                found.add(name if rel == "." else f"{rel}/{name}")
    return found


def origin_url(origin: str, rel: str, served_url: str = "", served_base: str = "") -> str:
    """A page's original address under the site's `origin` (`http://www.example.ne.jp/~user/`): the part of the
    URL it was served or captured at (`served_url`) under the site's base there (`served_base`, e.g.
    `http://127.0.0.1:8000/~user/`) after the origin; a URL outside that base keeps its path on the origin's host;
    without a served URL (a local folder), the page's path under the origin."""
    if served_url:
        base = urlsplit(served_base)
        url = urlsplit(served_url)
        if served_base and url.netloc.lower() == base.netloc.lower() and url.path.startswith(base.path):
            tail = url.path[len(base.path):] + (f"?{url.query}" if url.query else "")
            return origin + tail.lstrip("/")
        o = urlsplit(origin)
        return f"{o.scheme}://{o.netloc}{url.path or '/'}" + (f"?{url.query}" if url.query else "")
    return origin + quote(rel, safe="/~!$&'()*+,;=:@")


def iter_links(body: str) -> Iterator[str]:
    """Every link and image destination of a corpus body (outside code fences)."""
    fenced = False
    for line in body.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        if not fenced:
            yield from (m.group(1) for m in _DEST_RE.finditer(line))


def site_origins(start_urls: tuple[str, ...], hosts: tuple[str, ...] = (), origin: str = "") -> tuple[str, ...]:
    """The URLs of a site's mirror root, whose absolute links are its own pages: the host of its start URLs (a crawl
    keeps host-root paths, `~user/a.html`), its (old) `hosts`, `host[/path]` (a WARC's pages lie under the path),
    and its `origin` less the start URL's folder (`http://www.example.ne.jp/` for `…/~user/` crawled as
    `http://127.0.0.1:8000/~user/`; left out when their paths differ)."""
    roots = [f"{urlsplit(u).scheme}://{urlsplit(u).netloc}/" for u in start_urls]
    roots += [f"http://{h.strip('/')}/" for h in hosts]
    folder = start_dir(start_urls)
    if origin and (not folder or urlsplit(origin).path.endswith("/" + folder)):
        roots.append(origin[:len(origin) - len(folder)])
    return tuple(dict.fromkeys(roots))


def start_dir(start_urls: tuple[str, ...]) -> str:
    """The mirror folder of a crawl's first start URL (`~user/` for `http://127.0.0.1:8000/~user/`): what the
    site's `origin` stands for; '' for a local folder or a WARC (their pages lie under the mirror's root)."""
    if not start_urls:
        return ""
    path = urlsplit(start_urls[0]).path
    folder = path if path.endswith("/") else posixpath.dirname(path) + "/"
    return unquote(folder).lstrip("/")


def link_site(layout: object, site: object) -> dict:
    """The site pass of the corpus links: rewrite every document's links (SiteLinks) where they changed, body_hash
    following, so that hand-edit detection still compares against what siterag wrote; a document edited by hand
    is left alone. `layout`: siterag.layout.SiteLayout; `site`: siterag.config.SiteConfig. Returns counts."""
    from siterag.enrich.corpus import read_doc, write_doc
    from siterag.enrich.metadata import content_hash
    from siterag.layout import is_temp_file

    paths = [p for p in sorted(layout.corpus.rglob("*.md")) if not is_temp_file(p.name)] \
        if layout.corpus.is_dir() else []
    heads = {}
    for md in paths:
        parsed = read_doc(md)
        if parsed is not None:
            heads[md.relative_to(layout.corpus).as_posix()] = str(parsed[0].get("path") or "")
    docs = {page: rel for rel, page in heads.items() if page}
    files = frozenset(mirror_files(layout.mirror)) if layout.mirror.is_dir() else frozenset()
    links = SiteLinks(site.name, docs, files, site_origins(site.start_urls, site.hosts, site.origin), site.origin,
                      start_dir(site.start_urls))
    rewritten = edited = failed = 0
    for rel, page in heads.items():
        parsed = read_doc(layout.corpus / rel)
        if parsed is None or not page:
            continue
        fields, body = parsed
        written = fields.get("body_hash")
        if written and written not in (content_hash(body), content_hash(body + "\n")):
            edited += 1
            continue
        try:
            new = links.rewrite(body, page, rel)
        except Exception:  # noqa: BLE001 - a link this code cannot read leaves its document as it was, never the run
            failed += 1
            continue
        if new != body:
            write_doc(layout.corpus / rel, new, {**fields, "body_hash": content_hash(new)})
            rewritten += 1
    return {"documents": len(heads), "rewritten": rewritten, "edited_by_hand": edited, "failed": failed}
