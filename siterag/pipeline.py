"""The page-level work of each stage, as plain functions over files (Prefect tasks wrap these)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import posixpath
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from urllib.parse import quote, unquote, urlparse

from siterag.acquire.mirror import guess_url_path, redact_url, saved_urls, utf8_name
from siterag.acquire.purge import is_binary, looks_like_html
from siterag.config import SiteConfig
from siterag.enrich.corpus import corpus_paths, read_doc, write_doc
from siterag.enrich.dates import dates_key, mark_entries, numeric_order, stamp_date
from siterag.enrich.links import origin_url
from siterag.enrich.metadata import content_hash, date_from_path, fallback_metadata, llm_metadata, metadata_key
from siterag.enrich.quality import check_page, find_duplicates, log_lines
from siterag.extract.blocks import normalise
from siterag.extract.extract import extract_page, extraction_key
from siterag.index.chunking import plain_text
from siterag.index.index import DocHead, IndexedDoc, doc_head
from siterag.layout import SiteLayout, UnsafePath, append_log, atomic_write, is_temp_file, read_saved, safe_path
from siterag.llm.client import LLMClient
from siterag.normalize.encoding import to_utf8
from siterag.normalize.sanitize import prepare_html
from siterag.printable import printable

MANIFEST = ".siterag-manifest.json"
# Failures worth retrying on every run: the server was down, slow or answered an HTTP error.
TRANSIENT = {"down", "timeout", "http"}
# Bad answers (not JSON, cut off at max_tokens, off-schema) come from a misbehaving server as often as from
# the model: retried on the next run too, but a page that fails so on RETRY_RUNS runs in a row keeps its
# fallback until the page, the mode or the model changes (at temperature 0 it would fail the same way).
BAD_ANSWER = {"invalid_json", "length", "schema"}
RETRY_RUNS = 2
MAX_PAGE_BYTES = 20 * 1024 * 1024
# Copies that HTML editors leave next to a page (Homepage Builder's .bak, FrontPage's .htm_, .orig, .old): served
# as files to download, not as pages, so not pages of the site even when they hold HTML.
BACKUP_SUFFIXES = {".bak", ".htm_", ".html_", ".orig", ".old", ".swp"}
# Folders HTML editors keep beside the pages: FrontPage's metadata (_vti_cnf, _vti_pvt, …) and the parts it
# includes into every page (_borders, _derived, _overlay, _themes), Word's "page.files/" (header.htm, filelist).
EDITOR_PART_FOLDERS = {"_borders", "_derived", "_overlay", "_themes", "_fpclass", "_private"}


def is_editor_part(rel: str) -> bool:
    """A file in a folder that an HTML editor keeps for itself rather than as pages of the site."""
    folders = rel.split("/")[:-1]
    return any(f.startswith("_vti_") or f in EDITOR_PART_FOLDERS or f.lower().endswith(".files") for f in folders)


# Served with a type a browser does not render as a page (wget's --adjust-extension names text/html ".html").
NOT_PAGE_SUFFIXES = {".txt", ".css", ".js", ".json", ".csv"}


@dataclass
class SelectResult:
    """The working set of a crawl: HTML pages, and what was left out."""

    pages: list[str] = field(default_factory=list)
    binaries: list[str] = field(default_factory=list)
    other_text: int = 0
    stale: list[str] = field(default_factory=list)  # on disk but not reached by this crawl
    warnings: list[str] = field(default_factory=list)
    duplicates: dict[str, str] = field(default_factory=dict)  # left out: page -> the byte-identical page kept
    included: dict[str, str] = field(default_factory=dict)  # left out: part -> a page that includes it


def select_pages(mirror: Path, log_dir: Path, seen: set[str] | None = None) -> SelectResult:
    """Sort the mirror's files into HTML pages, binaries (logged) and other text, by content."""
    result = SelectResult()
    lines = []
    for path in sorted(p for p in mirror.rglob("*") if p.is_file() and not p.is_symlink()):
        rel = path.relative_to(mirror).as_posix()
        if rel.startswith(".") and "/" in rel or "/." in rel.rsplit("/", 1)[0] or is_temp_file(rel):
            continue  # hidden folders (.git, .well-known) and our own temp files; a page may start with a dot
        if utf8_name(rel) != rel:  # e.g. a Shift_JIS name in a local folder: no document path can hold it
            shown = rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            result.warnings.append(f"file name is not UTF-8, left out: {shown} (rename it to UTF-8)")
            continue
        with path.open("rb") as fh:
            head = fh.read(8192)
        if is_binary(head):
            result.binaries.append(rel)
            lines.append(f"binary\t{path.stat().st_size}\t{printable(rel)}")
        elif is_editor_part(rel):
            result.other_text += 1  # FrontPage's private folders, Word's page.files/: parts of pages, not pages
        elif path.suffix.lower() in BACKUP_SUFFIXES or path.name.endswith("~"):
            result.other_text += 1  # an editor's backup copy: a web server does not serve it as a page
            lines.append(f"backup\t{path.stat().st_size}\t{printable(rel)}")
        elif path.suffix.lower() in NOT_PAGE_SUFFIXES:
            result.other_text += 1  # served as text/plain, CSS, script: never shown as a page, tags or not
        elif looks_like_html(head) or (not head and path.suffix.lower() in (".html", ".htm")):
            if seen and rel not in seen:
                result.stale.append(rel)
            else:
                result.pages.append(rel)
        else:
            result.other_text += 1
    atomic_write(log_dir / "binaries.log", "\n".join(lines) + ("\n" if lines else ""))
    if result.stale and len(result.stale) > len(result.pages):
        # A crawl that reached under half the pages is more likely broken than the site gone: keep them all.
        result.warnings.append(f"crawl reached only {len(result.pages)} of {len(result.pages) + len(result.stale)}"
                               " pages; not removing any")
        result.pages = sorted(result.pages + result.stale)
        result.stale = []
    result.duplicates = byte_duplicates(mirror, result.pages)
    result.pages = [rel for rel in result.pages if rel not in result.duplicates]
    result.included = included_parts(mirror, result.pages)
    result.pages = [rel for rel in result.pages if rel not in result.included]
    return result


# FrontPage writes an included file's content into each page that includes it, between `<!--webbot bot="Include"
# U-Include="x.htm" … startspan -->` and its endspan (a Photo Gallery: bot="PhotoAlbum", the part
# photogallery/photoNNN/real.htm, whose `<picture file-href>` names its other views real_p.htm and real_x.htm).
_INCLUDE_RE = re.compile(rb"""\bU-Include\s*=\s*["']?([^"'\s>]+)|<picture\b[^>]*?\bfile-href\s*=\s*["']?([^"'\s>]+)""",
                         re.IGNORECASE)


def included_parts(mirror: Path, pages: list[str]) -> dict[str, str]:
    """Pages that an HTML editor includes into other pages (FrontPage's webbot includes and Photo Gallery views):
    part -> the first page naming it. Their text is already in the including page, where it belongs, so they are
    no documents of their own (a Photo Gallery left 178 documents titled "This is the page" in nanatsumori)."""
    known = set(pages)
    out: dict[str, str] = {}
    for rel in pages:
        data = (mirror / rel).read_bytes()
        base = PurePosixPath(rel).parent
        for match in _INCLUDE_RE.finditer(data):
            raw = (match.group(1) or match.group(2)).decode("utf-8", "replace").split("#")[0].split("?")[0]
            target = posixpath.normpath((base / unquote(raw).replace("\\", "/")).as_posix())
            if target in known and target != rel:
                out.setdefault(target, rel)
    return out


def _plain_first(rel: str) -> tuple:
    """Which of byte-identical pages is the document: not a query-string copy (wget --restrict-file-names=windows
    saves `page.htm?x` as `page.htm@x`, often plus `.html`), fewest folders, .html before .htm (as
    corpus_paths picks a folder's section page), shortest path, then by name."""
    name = PurePosixPath(rel).name
    return ("@" in name, rel.count("/"), _SUFFIX_ORDER.get(PurePosixPath(rel).suffix.lower(), 2), len(rel), rel)


_SUFFIX_ORDER = {".html": 0, ".htm": 1}


def byte_duplicates(mirror: Path, pages: list[str]) -> dict[str, str]:
    """Pages whose bytes equal another page's: page -> the one kept (_plain_first), e.g. a copy wget saved
    under a query-string name from a broken href, or index.htm next to the same index.html. Decided anew each
    run, so a page that stops being a copy comes back as a page of its own; a copy never costs the page kept
    its document. Empty files are left alone (they are skipped as empty anyway)."""
    by_size: dict[int, list[str]] = defaultdict(list)
    for rel in pages:
        size = (mirror / rel).stat().st_size
        if size:
            by_size[size].append(rel)
    out: dict[str, str] = {}
    for same_size in by_size.values():
        if len(same_size) < 2:
            continue
        groups: dict[str, list[str]] = defaultdict(list)
        for rel in same_size:
            groups[content_hash((mirror / rel).read_bytes())].append(rel)
        for group in groups.values():
            kept, *copies = sorted(group, key=_plain_first)
            out.update({rel: kept for rel in copies})
    return out


def _read_capped(path: Path, limit: int) -> tuple[bytes, str, int]:
    """The first `limit` bytes of a file, the sha256 of all of it and its size, read in pieces: a huge file (a
    decompression bomb a server sent) never sits in memory whole."""
    digest = hashlib.sha256()
    head = bytearray()
    size = 0
    with path.open("rb") as fh:
        while piece := fh.read(1 << 20):
            digest.update(piece)
            size += len(piece)
            if len(head) < limit:
                head += piece[:limit - len(head)]
    return bytes(head), digest.hexdigest(), size


def known_pages(normalized: Path) -> set[str]:
    """The pages of the last run (the normalize manifest's keys); empty before the first run."""
    return set(read_saved(normalized / MANIFEST))


def normalize_pages(mirror: Path, normalized: Path, pages: list[str],
                    captures: Mapping[str, Mapping] | None = None) -> dict[str, dict]:
    """Write UTF-8 copies of the pages; return rel -> {encoding, method, declared, hash} (also saved).

    `captures` (WARC sites, siterag.acquire.warc.capture_info): per page its HTTP charset, the hint encoding
    detection takes, and its original `url` and `captured_at`, kept in the page's entry."""
    manifest_path = normalized / MANIFEST
    old = read_saved(manifest_path)
    manifest: dict[str, dict] = {}
    captures = captures or {}
    for rel in pages:
        src = mirror / rel
        data, raw_hash, size = _read_capped(src, MAX_PAGE_BYTES)
        target = safe_path(normalized, rel)
        capture = captures.get(rel) or {}
        origin = {k: capture[k] for k in ("url", "captured_at") if capture.get(k)} | \
            ({"warc_file": capture["file"]} if capture.get("file") else {})
        if old.get(rel, {}).get("raw_hash") == raw_hash and target.exists() and \
                old[rel].get("http_charset", "") == capture.get("charset", ""):
            manifest[rel] = {k: v for k, v in old[rel].items() if k not in ("url", "captured_at", "warc_file")} | origin
            continue
        if size > MAX_PAGE_BYTES:  # cut at a line end, never inside a multibyte character
            cut = data.rfind(b"\n", MAX_PAGE_BYTES - 65536, MAX_PAGE_BYTES)
            data = data[:cut + 1 if cut > 0 else MAX_PAGE_BYTES]
        text, det = to_utf8(data, capture.get("charset") or None)
        atomic_write(target, text)
        manifest[rel] = {"encoding": det.encoding, "method": det.method, "declared": det.declared,
                         "raw_hash": raw_hash, "hash": content_hash(text), **origin}
        if capture.get("charset"):
            manifest[rel]["http_charset"] = capture["charset"]
        if size > MAX_PAGE_BYTES:
            manifest[rel]["truncated_from"] = size
    for rel in set(old) - set(manifest):
        with contextlib.suppress(UnsafePath):  # the manifest is a file on disk: any name may be in it
            safe_path(normalized, rel).unlink(missing_ok=True)
    atomic_write(manifest_path, json.dumps(manifest, ensure_ascii=False, indent=0, sort_keys=True))
    return manifest


def source_url(site: SiteConfig, rel: str, logs: Path | None = None) -> str:
    """Where a page came from: its URL for crawled sites, its file path for local folders (WARC sites: the
    WARC file, see process_page). `logs`: the site's log folder, where the crawl saved each file's URL (wget's
    names lose the `?`, add `.html`, get cut); without it the URL is guessed from the name. Never the start URL's
    user name and password."""
    if site.is_local:
        return str(Path(site.local_path) / rel)
    if site.is_warc:
        return ""
    url = saved_urls(logs).get(rel) if logs is not None else None
    if url:
        return url
    parsed = urlparse(redact_url(site.start_urls[0]))
    path, query = guess_url_path(rel)
    return f"{parsed.scheme}://{parsed.netloc}/{quote(path)}" + \
        (f"?{quote(query, safe='=&;/:+,%')}" if query else "")


def original_url(site: SiteConfig, rel: str, info: Mapping, logs: Path | None = None) -> str:
    """A page's front matter `url`: its captured URL (WARC), its crawled URL (source_url), '' for a local folder;
    with the site's `origin`, its address under that instead (siterag.enrich.links.origin_url): the part of the
    served URL under the start URL's folder (a WARC: under its `hosts` entry), or the file's path in the folder."""
    url = info.get("url") or ("" if site.is_local else source_url(site, rel, logs))
    if not site.origin:
        return url
    if site.is_local or not url:
        return origin_url(site.origin, rel)
    parts = urlparse(url)
    if site.is_warc:
        from siterag.acquire.warc import parse_host, site_prefix

        prefix = site_prefix(url, [parse_host(h) for h in site.hosts]) or ""
        base = f"{parts.scheme}://{parts.netloc}{prefix.rstrip('/')}/"
    else:
        start = urlparse(redact_url(site.start_urls[0]))
        folder = start.path if start.path.endswith("/") else posixpath.dirname(start.path) + "/"
        base = f"{start.scheme}://{start.netloc}{folder}"
    return origin_url(site.origin, rel, url, base)


@dataclass
class PageOutcome:
    """What happened to one page in this run."""

    path: str
    status: str  # new | changed | unchanged | skipped | failed
    corpus: str = ""
    llm_calls: int = 0
    fallback: str = ""
    note: str = ""
    extract_s: float = 0.0  # seconds spent extracting (decode, blocks, voters, LLM choices)
    enrich_s: float = 0.0  # seconds spent on metadata (the LLM's fields, or the machine's)
    embed_s: float = 0.0  # its share of the seconds its batch spent embedding passages ahead of the index
    edit_kept: str = ""  # where a hand-edited document was kept before it was rewritten
    visible_chars: int = 0  # the page's visible text (when it was extracted in this run)
    content_chars: int = 0  # ... less its chrome: the site's template and its own navigation


def retry_due(fields: dict) -> bool:
    """Whether a document's LLM fallback should be retried: always for a transient failure, for a bad
    answer until it has failed RETRY_RUNS runs in a row. A fallback is never final because the LLM failed once."""
    reasons = {fields.get("fallback") or "", fields.get("metadata_problem") or ""}
    if reasons & TRANSIENT:
        return True
    return bool(reasons & BAD_ANSWER) and int(fields.get("fallback_runs") or 0) < RETRY_RUNS


def needs_work(fields: dict | None, page_hash: str, key: str, llm_enabled: bool) -> bool:
    """Whether a page must be (re)processed: new, changed, new settings, or an LLM failure to retry."""
    if fields is None:
        return True
    if fields.get("content_hash") != page_hash or fields.get("extract_key") != key:
        return True
    return llm_enabled and retry_due(fields)


def moved_capture(fields: dict | None, info: dict) -> bool:
    """Whether a WARC page's document names another capture (URL, WARC-Date) than the one its bytes come from now."""
    return bool(fields) and bool(info.get("captured_at")) and (
        fields.get("captured_at") != info.get("captured_at") or fields.get("url") != info.get("url"))


def template_key(template: list[str] | None) -> str:
    """The part of a page's extract key that its site-template lines decide ('' without any)."""
    return "+t-" + content_hash(",".join(sorted(template)))[:12] if template else ""


EDITS = "edits"  # in data/logs/<site>/: documents edited by hand, kept when their page changed


def hand_edited(fields: dict, body: str) -> bool:
    """Whether a document's body is no longer what siterag wrote (its body_hash; the file's final line break is
    not part of the body read back)."""
    written = fields.get("body_hash")
    return bool(written) and written not in (content_hash(body), content_hash(body + "\n"))


def keep_edit_aside(layout: SiteLayout, corpus_rel: str, path: Path) -> Path:
    """Copy a hand-edited document to logs/<site>/edits/<path>.<time>.md before it is rewritten (the run's
    error.log and report say where it went)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    aside = safe_path(layout.logs / EDITS, f"{corpus_rel[:-3]}.{stamp}.md")
    atomic_write(aside, path.read_bytes())
    return aside


def process_page(layout: SiteLayout, site: SiteConfig, rel: str, corpus_rel: str, info: dict,
                 client: LLMClient | None, enrich: bool, model: str, template: list[str] | None = None,
                 ) -> PageOutcome:
    """Extract + enrich one normalized page into its corpus document, unless it is up to date.

    `template`: the keys of the site's template lines on this page (siterag.extract.template.site_template)."""
    out_path = safe_path(layout.corpus, corpus_rel)
    key = extraction_key(site.extract_mode, model) + template_key(template) \
        + (f"+meta-{metadata_key()}" if enrich and client else "")
    key += dates_key()  # entry headings and dates (siterag.enrich.dates)
    existing = read_doc(out_path) if out_path.exists() else None
    old_fields = existing[0] if existing else None
    url = original_url(site, rel, info, layout.logs)
    if not needs_work(old_fields, info["hash"], key, client is not None):
        # same bytes, now from another capture, or another `origin`: only the provenance changes (nothing re-embedded)
        if moved_capture(old_fields, {**info, "url": url}) or (url and url != old_fields.get("url")):
            fields = {**old_fields, "url": url or old_fields.get("url", ""),
                      "captured_at": info.get("captured_at") or old_fields.get("captured_at")}
            if old_fields.get("date_from") == "capture" and info.get("captured_at"):
                fields["date"] = str(info["captured_at"])[:10]
            write_doc(out_path, existing[1], {k: v for k, v in fields.items() if v is not None})
        return PageOutcome(rel, "unchanged", corpus_rel)
    edit_kept = str(keep_edit_aside(layout, corpus_rel, out_path)) if existing and hand_edited(*existing) else ""
    started = time.perf_counter()
    html = prepare_html((layout.normalized / rel).read_text(encoding="utf-8"))
    calls_before = client.stats.calls if client else 0
    result = extract_page(html, site.extract_mode, client, base_url="", template=frozenset(template or ()))
    extracted = time.perf_counter()
    no_text = result.mode not in ("frameset", "empty") and not normalise(plain_text(result.markdown))
    if no_text:  # no words of its own (a photo-gallery part: thumbnails of a page shown elsewhere; a photo page)
        result.mode = "empty"
    if result.mode in ("frameset", "empty"):
        out_path.unlink(missing_ok=True)
        note = "frames: " + ", ".join(result.frames) if result.frames else \
            "only the site's template" if result.visible_chars and not no_text else "no text"
        return PageOutcome(rel, "skipped", "", note=f"{result.mode} ({note})", edit_kept=edit_kept)
    # Diary entries: date lines become headings; the page's date is its first entry's, else its name's/content's.
    dated = mark_entries(result.markdown, date_from_path(rel), rel, result.title)
    result.markdown = dated.markdown
    if not dated.date and result.stamps:  # `Last updated: May 31, 2001` in the footer left out of the body
        dated.date = stamp_date(result.stamps, numeric_order(result.markdown))
        dated.date_from = "stamp" if dated.date else None
    if not dated.date and info.get("captured_at"):  # a WARC capture: dated by it only when nothing else dates it
        dated.date, dated.date_from = str(info["captured_at"])[:10], "capture"
    problem, by = "", "machine"
    if enrich and client is not None and result.markdown.strip():
        meta, problem = llm_metadata(client, result.title, result.markdown)
        by = "machine" if problem else "llm"
    else:
        meta = fallback_metadata(result.title, result.markdown)
    enrich_s = time.perf_counter() - extracted
    same_input = bool(old_fields) and old_fields.get("content_hash") == info["hash"] \
        and old_fields.get("extract_key") == key
    failed_before = int(old_fields.get("fallback_runs") or 0) if same_input else 0
    fields = {
        **meta,
        "site": site.name,
        "source": info.get("warc_file") or source_url(site, rel, layout.logs),
        "url": url,  # the original URL (under the site's `origin` when it has one)
        **({"captured_at": info["captured_at"]} if info.get("captured_at") else {}),  # its WARC-Date
        "path": rel,
        "date": dated.date,
        **({"date_from": dated.date_from} if dated.date else {}),  # entry | name | content | stamp | capture
        **({"lastmod": dated.lastmod} if dated.lastmod else {}),  # a diary page's latest entry (date: its earliest)
        "processed_at": datetime.now(UTC).replace(microsecond=0).isoformat(),
        "content_hash": info["hash"],
        "body_hash": content_hash(result.markdown),
        "encoding": info.get("encoding", ""),
        "extract_mode": result.mode,
        "extract_key": key,
        "fallback": result.fallback,
        # "machine": tags, summary and category are filled by the site pass (siterag.enrich.enrich) after extraction;
        # metadata_problem says why a configured LLM's answer was refused.
        "metadata_by": by,
        "metadata_problem": problem,
        # Runs in a row in which the LLM failed on this unchanged page (bounds the retries of bad answers).
        "fallback_runs": failed_before + 1 if (result.fallback or problem) and client is not None else 0,
    }
    write_doc(out_path, result.markdown, fields)
    calls = (client.stats.calls - calls_before) if client else 0
    return PageOutcome(rel, "changed" if old_fields else "new", corpus_rel, calls, result.fallback,
                       extract_s=round(extracted - started, 4), enrich_s=round(enrich_s, 4), edit_kept=edit_kept,
                       visible_chars=result.visible_chars, content_chars=result.content_chars)


def process_batch(layout: SiteLayout, site: SiteConfig, rels: list[str], corpus_map: dict[str, str],
                  manifest: dict[str, dict], client: LLMClient | None, enrich: bool, model: str,
                  log: Callable[[str], None] = lambda _: None, templates: dict[str, list[str]] | None = None,
                  ) -> list[PageOutcome]:
    """process_page over a batch; one bad page is logged and never stops the batch."""
    outcomes = []
    templates = templates or {}
    for rel in rels:
        try:
            outcomes.append(process_page(layout, site, rel, corpus_map[rel], manifest[rel], client, enrich, model,
                                         templates.get(rel)))
        except Exception as exc:  # noqa: BLE001 - a broken page must not lose the others
            append_log(layout.logs / "error.log", f"[!] Failed: {rel}: {type(exc).__name__}: {exc}")
            log(f"failed {rel}: {exc}")
            outcomes.append(PageOutcome(rel, "failed", note=str(exc)[:200]))
    save_batch_stats(layout, rels, outcomes)
    return outcomes


PAGE_STATS = "pages.json"  # per page of the corpus: visible and content characters, kept across runs
BATCH_STATS = "page-stats"  # in logs/<site>/: each finished batch's figures until page_stats merges them


def save_batch_stats(layout: SiteLayout, rels: list[str], outcomes: list[PageOutcome]) -> None:
    """Keep a finished batch's page figures on disk at once: a run killed before its quality stage must not leave
    the pages it extracted without figures (a resumed run finds them unchanged and has none to check)."""
    stats = {o.path: {"visible": o.visible_chars, "content": o.content_chars}
             for o in outcomes if o.status in ("new", "changed")}
    if stats:
        name = content_hash("\n".join(rels))[:16] + ".json"
        atomic_write(layout.logs / BATCH_STATS / name, json.dumps(stats, ensure_ascii=False, sort_keys=True))


def page_stats(layout: SiteLayout, outcomes: list[PageOutcome]) -> dict[str, dict]:
    """rel -> {"visible", "content"} for every page with a document: this run's figures for the pages extracted
    now, the last run's for the others (saved in logs/<site>/pages.json)."""
    path = layout.logs / PAGE_STATS
    old = read_saved(path)
    batches = sorted((layout.logs / BATCH_STATS).glob("*.json")) if (layout.logs / BATCH_STATS).is_dir() else []
    for batch in batches:  # this run's batches, and those of a run killed before it got here
        old.update(read_saved(batch))
    stats = {}
    for o in outcomes:
        if o.status in ("new", "changed"):
            stats[o.path] = {"visible": o.visible_chars, "content": o.content_chars}
        elif o.status == "unchanged" and isinstance(old.get(o.path), dict):
            stats[o.path] = old[o.path]
    atomic_write(path, json.dumps(stats, ensure_ascii=False, sort_keys=True, indent=0))
    for batch in batches:
        batch.unlink(missing_ok=True)
    return stats


def remove_vanished(layout: SiteLayout, keep: set[str]) -> list[str]:
    """Delete corpus documents whose page is no longer part of the site; return their corpus paths."""
    removed = []
    if not layout.corpus.exists():
        return removed
    for path in sorted(layout.corpus.rglob("*.md")):
        rel = path.relative_to(layout.corpus).as_posix()
        if rel not in keep and not is_temp_file(rel):
            path.unlink()
            removed.append(rel)
    return removed


def iter_corpus_docs(layout: SiteLayout, problems: list[str] | None = None) -> Iterator[tuple[str, dict, str]]:
    """(corpus path, fields, body) of each document of a site, read one at a time (in path order); `problems` gets
    a line for each field of the wrong kind (read_doc reads it as the nearest right value)."""
    for path in sorted(layout.corpus.rglob("*.md")) if layout.corpus.exists() else []:
        if is_temp_file(path.name):  # half-written by a run that was killed (or is writing now)
            continue
        parsed = read_doc(path, problems)
        if parsed:
            yield (path.relative_to(layout.corpus).as_posix(), *parsed)


def corpus_docs(layout: SiteLayout, problems: list[str] | None = None) -> list[tuple[str, dict, str]]:
    """(corpus path, fields, body) of every document of a site, all at once (iter_corpus_docs streams them)."""
    return list(iter_corpus_docs(layout, problems))


def quality_report(layout: SiteLayout, outcomes: list[PageOutcome], removed: list[str],
                   select: SelectResult, crawl_warnings: list[str] | None = None,
                   page_chars: Mapping[str, Mapping[str, int]] | None = None) -> dict:
    """Run the gate over the corpus, rewrite error.log, save and return the run report.

    `page_chars`: page path (as in select.pages, the document's `path:`) -> {"visible": int, "content": int},
    for the short / lost_content checks; pages without an entry skip them (quality.check_page)."""
    page_chars = page_chars or {}
    reports = []
    body_hashes = {}  # per document only its report and body hash are kept: the bodies stream past
    for rel, fields, body in iter_corpus_docs(layout):
        reports.append(check_page(rel, body, fields, page_chars.get(str(fields.get("path") or rel))))
        if fields.get("body_hash"):
            body_hashes[rel] = fields["body_hash"]
    dupes = find_duplicates(body_hashes)
    failed = [o for o in outcomes if o.status == "failed"]
    warnings = list(crawl_warnings or []) + select.warnings
    edits = [f"[!] Edited by hand: {o.corpus or o.path}: its page changed, so the document was rewritten; the "
             f"edit is kept as {o.edit_kept}" for o in outcomes if o.edit_kept]
    lines = log_lines(reports, dupes, select.duplicates) + [printable(line) for line in (
        [f"[!] Failed: {o.path}: {o.note}" for o in failed] + [f"[!] Crawl: {w}" for w in warnings] + edits)]
    atomic_write(layout.logs / "error.log", "\n".join(lines) + ("\n" if lines else ""))
    count = lambda s: sum(1 for o in outcomes if o.status == s)  # noqa: E731
    report = {
        "finished_at": datetime.now(UTC).replace(microsecond=0).isoformat(),
        "pages_seen": len(outcomes) + len(select.duplicates) + len(select.included), "new": count("new"),
        "changed": count("changed"), "unchanged": count("unchanged"),
        "skipped": count("skipped") + len(select.duplicates) + len(select.included), "failed": len(failed),
        "removed": removed, "stale_in_mirror": len(select.stale), "binaries": len(select.binaries),
        "documents": len(reports), "llm_calls": sum(o.llm_calls for o in outcomes),
        "lost_content": sum("lost_content" in r.problems for r in reports),
        "short": sum("short" in r.notes for r in reports),  # informational: the page itself is short
        "mojibake": sum("mojibake" in r.problems for r in reports),
        "few_entries": sum("few_entries" in r.problems for r in reports),
        "llm_fallback": sum("llm_fallback" in r.problems for r in reports),
        "metadata_fallback": sum("metadata_fallback" in r.problems for r in reports),
        "duplicates": dupes,
        "problems": [asdict(r) for r in reports if r.problems],
        "short_pages": [{"path": r.path, "visible": r.visible} for r in reports if "short" in r.notes],
        "skipped_pages": [{"path": o.path, "note": o.note} for o in outcomes if o.status == "skipped"]
        + [{"path": rel, "note": f"duplicate of {kept}"} for rel, kept in sorted(select.duplicates.items())]
        + [{"path": rel, "note": f"included into {page}"} for rel, page in sorted(select.included.items())],
        "mirror_warnings": warnings,
        "edits_kept": [{"path": o.corpus or o.path, "kept_as": o.edit_kept} for o in outcomes if o.edit_kept],
    }
    stamp = report["finished_at"].replace(":", "").replace("+0000", "Z")
    text = json.dumps(report, ensure_ascii=False, indent=1)
    atomic_write(layout.logs / "reports" / f"report-{stamp}.json", text)
    atomic_write(layout.logs / "report.json", text)
    return report


def indexed_doc(site: str, rel: str, fields: dict, body: str) -> IndexedDoc:
    """A corpus document (corpus path `rel`, its fields and body) as the index takes it."""
    return IndexedDoc(
        doc_id=f"{site}/{rel}", site=site, path=str(fields.get("path", rel)),
        source=str(fields.get("source", "")), title=str(fields.get("title", "")),
        category=str(fields.get("category", "") or ""), tags=[str(t) for t in fields.get("tags") or []],
        date=str(fields.get("date") or ""), summary=str(fields.get("summary", "") or ""),
        content_hash=content_hash(json.dumps([body, fields.get("title"), fields.get("summary"),
                                              fields.get("tags"), fields.get("category")],
                                             ensure_ascii=False, default=str)),
        body=body)


def indexed_docs(layout: SiteLayout, site: str, problems: list[str] | None = None) -> list[IndexedDoc]:
    """Corpus documents of a site for the index, all in memory (corpus_source streams them); `problems`: as
    corpus_docs (a hand-edited `tags: 5` is one line there, and the tag "5" in the index)."""
    return [indexed_doc(site, rel, fields, body) for rel, fields, body in iter_corpus_docs(layout, problems)]


@dataclass
class CorpusSource:
    """A site's corpus as sync_site's DocSource: `heads()` reads each document and keeps only its head (id, hash,
    date, whether it has a body); `load(ids)` reads those documents again, bodies and all (one batch at a time).
    `problems`: as corpus_docs, filled as heads() reads."""

    layout: SiteLayout
    site: str
    problems: list[str] | None = None

    def heads(self) -> Iterator[DocHead]:
        for rel, fields, body in iter_corpus_docs(self.layout, self.problems):
            yield doc_head(indexed_doc(self.site, rel, fields, body))

    def load(self, doc_ids: Sequence[str]) -> list[IndexedDoc]:
        """The documents `doc_ids` (a document gone since heads() is left out)."""
        out = []
        for doc_id in doc_ids:
            rel = doc_id.removeprefix(f"{self.site}/")
            parsed = read_doc(self.layout.corpus / rel)
            if parsed:
                out.append(indexed_doc(self.site, rel, *parsed))
        return out


def corpus_source(layout: SiteLayout, site: str, problems: list[str] | None = None) -> CorpusSource:
    """The corpus of a site for sync_site, streamed: at most one batch of bodies in memory."""
    return CorpusSource(layout, site, problems)


__all__ = ["corpus_paths", "select_pages", "normalize_pages", "process_batch", "remove_vanished",
           "quality_report", "indexed_docs", "corpus_source"]
