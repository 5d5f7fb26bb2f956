"""`siterag web`: a read-only Starlette app over the corpus, the index and the mirror.

Routes (GET only): `/` sites · `/search` hybrid search or browsing by filters, facets, all state in the URL ·
`/api/suggest` titles as you type · `/api/hits` hybrid hits as you type · `/read/<site>/<page>` a corpus
document · `/original/<site>/<page>` the reader beside the archived page · `/raw/<site>/<path>` the archived
page or file, inert (RAW_CSP) · `/time/<site>` a year/month histogram · `/site/<site>` all pages of a site.
Handlers are thin: the data is siterag.web.archive, the links siterag.web.reader and siterag.web.rewrite."""

from __future__ import annotations

import mimetypes
import re
import threading
from collections import OrderedDict
from datetime import date
from pathlib import Path
from urllib.parse import urlencode

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from siterag.enrich.corpus import read_doc
from siterag.enrich.links import site_origins
from siterag.web import archive
from siterag.web.archive import Doc
from siterag.web.reader import lang_of, render
from siterag.web.rewrite import RAW_HEADERS, file_in, rewrite_html, route, snippet_html

HERE = Path(__file__).parent
APP_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; frame-src 'self'; "
           "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'self'")
HITS = 50  # hits asked of the search (the facets count them); PAGE of them shown per page
PAGE = 10
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


class Archive:
    """The data dir of a config: its sites' documents in memory, the index opened on first search."""

    def __init__(self, data_dir: Path, sites: dict[str, tuple[str, ...]], store: object = None,
                 embedder: str = "use-multilingual-v3") -> None:
        self.data_dir, self.origins, self.store, self.embedder = Path(data_dir), sites, store, embedder
        self.docs: dict[str, list[Doc]] = {s: archive.load_site(self.data_dir / "corpus" / s, s) for s in sites}
        self.by_path = {(d.site, d.path): d for docs in self.docs.values() for d in docs}
        self.by_id = {f"{d.site}/{d.rel}": d for d in self.by_path.values()}
        self.all = [d for docs in self.docs.values() for d in docs]
        self._searcher = None
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple, list] = OrderedDict()

    @classmethod
    def from_config(cls, path: str | Path) -> Archive:
        from siterag.config import load_config

        cfg = load_config(path)
        origins = {s.name: site_origins(s.start_urls, s.hosts, s.origin) for s in cfg.sites}
        return cls(cfg.data_dir, origins, cfg.store, cfg.embedder)

    def search(self, query: str, k: int = HITS, **filters: object) -> list:
        """The `k` best hits of the hybrid search (siterag.search), the last 64 searches cached. Raises ValueError
        (also NoIndexError) as the search API does."""
        key = (query, k, tuple(sorted(filters.items())))
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
            if self._searcher is None:
                from siterag.search.search_api import Searcher

                self._searcher = Searcher(self.store or self.data_dir, self.embedder)
            hits = self._searcher.search(query, k=k, **filters)
            self._cache[key] = hits
            while len(self._cache) > 64:
                self._cache.popitem(last=False)
            return hits

    def warm(self) -> None:
        """Open the index and load the embedder before the first person searches (a background thread)."""
        try:
            self.search("warm up")
        except Exception:  # noqa: BLE001 - no index yet, or anything else: the first search says it
            pass

    def doc(self, site: str, path: str) -> Doc:
        doc = self.by_path.get((site, path))
        if doc is None:
            raise HTTPException(404, "no such document in the archive")
        return doc


# ---- templates -----------------------------------------------------------------------------------------

_ENV = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]),
                   trim_blocks=True, lstrip_blocks=True)
_ENV.globals.update(route=route, MONTHS=MONTHS)


def page(request: Request, name: str, status: int = 200, **context: object) -> HTMLResponse:
    return HTMLResponse(_ENV.get_template(name).render(request=request, **context), status_code=status)


def _filters(request: Request) -> dict:
    q = request.query_params
    return {"site": q.get("site", ""), "year": q.get("year", "")[:4], "month": q.get("month", "")[:7],
            "category": q.get("category", ""), "tag": tuple(q.getlist("tag"))}


def link(state: dict, **change: object) -> str:
    """The search page's URL for `state` with `change` (None drops a key; a tag toggles in or out)."""
    new = {**state, **{k: v for k, v in change.items() if k != "tag"}}
    tags = list(state.get("tag", ()))
    if "tag" in change:
        tags = [t for t in tags if t != change["tag"]] if change["tag"] in tags else [*tags, change["tag"]]
    if "year" in change:
        new["month"] = ""
    pairs = [(k, v) for k, v in new.items() if k not in ("tag", "page") and v]
    pairs += [("tag", t) for t in tags]
    if new.get("page") and new["page"] != 1:
        pairs.append(("page", new["page"]))
    return "/search?" + urlencode(pairs) if pairs else "/search"


def _item(doc: Doc | None, hit: object = None) -> dict:
    """A result line: a hit (with its snippet and how it matched) or a document (its summary)."""
    if hit is not None:
        return {"site": hit.site, "path": hit.path, "title": hit.title, "date": hit.date or (doc.date if doc else ""),
                "snippet": Markup(snippet_html(hit.snippet)), "anchor": hit.anchor,
                "match": "words" if hit.bm25 > 0 else "meaning", "category": doc.category if doc else "",
                "tags": doc.tags if doc else (), "heading": hit.heading, "url": doc.url if doc else ""}
    return {"site": doc.site, "path": doc.path, "title": doc.title, "date": doc.date, "snippet": doc.summary,
            "anchor": "", "match": "", "category": doc.category, "tags": doc.tags, "heading": "", "url": doc.url}


# ---- handlers -----------------------------------------------------------------------------------------------

def home(request: Request) -> HTMLResponse:
    arc: Archive = request.app.state.archive
    sites = []
    for name, docs in arc.docs.items():
        dates = sorted(d.date for d in docs if d.date)
        sites.append({"name": name, "docs": len(docs), "first": dates[0] if dates else "",
                      "last": dates[-1] if dates else ""})
    return page(request, "home.html", sites=sites)


def search(request: Request) -> HTMLResponse:
    arc: Archive = request.app.state.archive
    query = request.query_params.get("q", "").strip()[:500]
    state = {"q": query, **_filters(request)}
    try:
        number = max(1, int(request.query_params.get("page", "1")))
    except ValueError:
        number = 1
    if state["site"] and state["site"] not in arc.docs:
        raise HTTPException(404, "no such site")
    error = ""
    if query:
        period = state["month"] or state["year"] or None
        try:
            hits = arc.search(query, site=state["site"] or None, tags=state["tag"],
                              category=state["category"] or None, since=period, until=period)
        except ValueError as exc:
            hits, error = [], str(exc)
        items = [_item(arc.by_id.get(h.doc_id), h) for h in hits]
    else:
        docs = [d for d in arc.all if archive.matches(d, state["site"], state["year"], state["month"],
                                                       state["category"], state["tag"])]
        items = [_item(d) for d in sorted(docs, key=lambda d: (d.date or "0", d.title), reverse=True)]
    shown = items[(number - 1) * PAGE:number * PAGE]
    return page(request, "search.html", state=state, items=shown, total=len(items), number=number,
                pages=(len(items) + PAGE - 1) // PAGE, facets=archive.facets(items, state["year"]), error=error,
                link=lambda **c: link({**state, "page": number}, **c), browsing=not query)


def suggest(request: Request) -> JSONResponse:
    arc: Archive = request.app.state.archive
    found = archive.suggest(arc.all, request.query_params.get("q", "")[:200])
    for item in found:
        item["href"] = route("/read", item["site"], item["path"]) if item["kind"] == "title" else \
            link({}, tag=item["text"])
    return JSONResponse(found)


AS_YOU_TYPE = 5  # hybrid hits shown under the title suggestions


def hits(request: Request) -> JSONResponse:
    """`/api/hits?q=`: the best hybrid hits of what is typed so far, for the suggestions list (asked after the title
    suggestions, which come back first: titles are a scan in memory, a search embeds the query). [] for a query of
    one character, without an index, or on a search error."""
    arc: Archive = request.app.state.archive
    query = request.query_params.get("q", "").strip()[:200]
    if len(archive.fold(query)) < 2:
        return JSONResponse([])
    try:
        found = arc.search(query, k=2 * AS_YOU_TYPE)  # a few more: a page's entries may take several places
    except Exception:  # noqa: BLE001 - no index yet, a bad query: the title suggestions stand alone
        return JSONResponse([])
    out = []
    for hit in found:
        href = route("/read", hit.site, hit.path, f"#{hit.anchor}" if hit.anchor else "")
        if href not in {item["href"] for item in out}:
            out.append({"kind": "hit", "text": hit.title or hit.path, "site": hit.site, "path": hit.path,
                        "date": hit.date or "", "match": "words" if hit.bm25 > 0 else "meaning", "href": href})
        if len(out) == AS_YOU_TYPE:
            break
    return JSONResponse(out)


def read(request: Request) -> HTMLResponse:
    arc: Archive = request.app.state.archive
    doc = arc.doc(request.path_params["site"], request.path_params["path"])
    return page(request, "reader.html", **_reader(arc, doc))


def _reader(arc: Archive, doc: Doc) -> dict:
    md = file_in(arc.data_dir / "corpus" / doc.site, doc.rel)
    parsed = read_doc(md) if md else None
    if parsed is None:
        raise HTTPException(404, "the document's file is gone")
    pages = {d.path for d in arc.docs[doc.site]}
    docs = {d.rel: d.path for d in arc.docs[doc.site]}
    body = Markup(render(parsed[1], doc.site, doc.path, pages, arc.origins.get(doc.site, ()), doc.rel, docs))
    prev, nxt = archive.neighbours(arc.docs[doc.site], doc)
    has_original = file_in(arc.data_dir / "normalized" / doc.site, doc.path) is not None
    return {"doc": doc, "body": body, "lang": lang_of(doc.title + parsed[1]), "prev": prev, "next": nxt,
            "has_original": has_original, "link": lambda **c: link({}, **c)}


def original(request: Request) -> HTMLResponse:
    arc: Archive = request.app.state.archive
    site, path = request.path_params["site"], request.path_params["path"]
    if site not in arc.docs or file_in(arc.data_dir / "normalized" / site, path) is None:
        raise HTTPException(404, "no archived page there")
    doc = arc.by_path.get((site, path))
    context = _reader(arc, doc) if doc else {"doc": None}
    return page(request, "original.html", site=site, path=path, **context)


def raw(request: Request) -> Response:
    """The archived page (UTF-8, from data/normalized, made inert) or a file of the mirror (an image), always
    under RAW_CSP."""
    arc: Archive = request.app.state.archive
    site, path = request.path_params["site"], request.path_params["path"]
    if site not in arc.docs:
        raise HTTPException(404, "no such site")
    normalized = file_in(arc.data_dir / "normalized" / site, path)
    if normalized is not None:
        text = normalized.read_text(encoding="utf-8", errors="replace")
        return HTMLResponse(rewrite_html(text, site, path, arc.origins.get(site, ())), headers=RAW_HEADERS)
    mirrored = file_in(arc.data_dir / "mirror" / site, path)
    if mirrored is None:
        raise HTTPException(404, "not archived")
    kind = mimetypes.guess_type(mirrored.name)[0] or "application/octet-stream"
    if kind.startswith("text/html") or "xml" in kind or "javascript" in kind:
        kind = "text/plain; charset=utf-8"  # a page that was never normalized: shown as text, never run
    return FileResponse(mirrored, media_type=kind, headers=RAW_HEADERS)


def timeline(request: Request) -> HTMLResponse:
    arc: Archive = request.app.state.archive
    site = request.path_params["site"]
    if site not in arc.docs:
        raise HTTPException(404, "no such site")
    day = request.query_params.get("day", "")[:10]
    month = day[:7] or request.query_params.get("month", "")[:7]
    docs = arc.docs[site]
    bars = archive.histogram(docs)
    peak = max((n for counts in bars.values() for n in counts), default=0)
    listed = archive.in_period(docs, month) if month else []
    days = sorted({i.date for i in listed if len(i.date) == 10})
    return page(request, "time.html", site=site, bars=bars, peak=peak, month=month, day=day, days=days,
                listed=[i for i in listed if i.date.startswith(day)] if day else listed,
                undated=sum(1 for d in docs if not d.months and not d.entries))


def this_day(request: Request) -> HTMLResponse:
    """`/onthisday?day=MM-DD` (default: today): the entries and pages of every site and year dated that day."""
    arc: Archive = request.app.state.archive
    wanted = request.query_params.get("day", "") or date.today().strftime("%m-%d")
    if not re.fullmatch(r"\d\d-\d\d", wanted):
        raise HTTPException(404, "no such day")
    everything = [d for docs in arc.docs.values() for d in docs]
    return page(request, "onthisday.html", day=wanted, listed=archive.on_this_day(everything, wanted))


SORTS = {"date": lambda d: (d.date or "9999", d.path), "title": lambda d: (d.title.casefold(), d.path),
         "path": lambda d: d.path}


def site_pages(request: Request) -> HTMLResponse:
    arc: Archive = request.app.state.archive
    site = request.path_params["site"]
    if site not in arc.docs:
        raise HTTPException(404, "no such site")
    sort = request.query_params.get("sort", "date")
    docs = sorted(arc.docs[site], key=SORTS.get(sort, SORTS["date"]))
    return page(request, "site.html", site=site, docs=docs, sort=sort if sort in SORTS else "date")


async def not_found(request: Request, exc: HTTPException) -> Response:
    if request.url.path.startswith(("/raw/", "/api/")):
        return Response(exc.detail, status_code=exc.status_code, media_type="text/plain; charset=utf-8",
                        headers=RAW_HEADERS)
    return page(request, "error.html", status=exc.status_code, message=exc.detail)


class Headers:
    """ASGI middleware: the app's own pages get APP_CSP and friends (the raw routes set their stricter ones)."""

    def __init__(self, app: object) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: object, send: object) -> None:
        async def sending(message: dict) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                if b"content-security-policy" in names:  # an archived file: RAW_HEADERS, nothing to add
                    names = {b"content-security-policy", b"x-content-type-options", b"referrer-policy",
                             b"x-frame-options"}
                for name, value in (("content-security-policy", APP_CSP), ("x-content-type-options", "nosniff"),
                                    ("referrer-policy", "no-referrer"), ("x-frame-options", "SAMEORIGIN")):
                    if name.encode() not in names:
                        message.setdefault("headers", []).append((name.encode(), value.encode()))
            await send(message)

        await self.app(scope, receive, sending if scope["type"] == "http" else send)


def create_app(arc: Archive) -> Starlette:
    get = ["GET", "HEAD"]
    app = Starlette(routes=[
        Route("/", home, methods=get),
        Route("/search", search, methods=get),
        Route("/api/suggest", suggest, methods=get),
        Route("/api/hits", hits, methods=get),
        Route("/read/{site}/{path:path}", read, methods=get),
        Route("/original/{site}/{path:path}", original, methods=get),
        Route("/raw/{site}/{path:path}", raw, methods=get),
        Route("/time/{site}", timeline, methods=get),
        Route("/onthisday", this_day, methods=get),
        Route("/site/{site}", site_pages, methods=get),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ], exception_handlers={HTTPException: not_found})
    app.state.archive = arc
    app.add_middleware(Headers)
    return app


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def serve(config: str | Path, host: str = "127.0.0.1", port: int = 8000) -> int:
    """Run the app until Ctrl-C (the `siterag web` command)."""
    import sys

    import uvicorn

    if host not in LOOPBACK and not host.startswith("127."):
        print(f"siterag: warning: --host {host}: anyone who can reach this machine on port {port} can read the "
              "whole archive (there is no login)", file=sys.stderr)
    arc = Archive.from_config(config)
    threading.Thread(target=arc.warm, daemon=True).start()
    shown = f"[{host}]" if ":" in host else host
    print(f"siterag web: http://{shown}:{port}/ ({len(arc.all)} documents of {len(arc.docs)} sites; Ctrl-C stops)",
          flush=True)
    uvicorn.run(create_app(arc), host=host, port=port, log_level="warning")
    return 0
