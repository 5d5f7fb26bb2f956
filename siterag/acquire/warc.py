"""WARC in and out.

In: a site made from web-archive captures (WARC files, WACZ packages), read with warcio and laid out in
data/mirror/<site>/ exactly as `wget -nH --restrict-file-names=windows --adjust-extension` lays out a crawl, so
every later stage is unchanged. What each file came from (URL, WARC-Date, HTTP charset) is kept in
data/logs/<site>/captures.json.

Out: the wget flags that make a crawl also write WARC + CDX into data/warc/<site>/, one file per run, a refresh
recording only what changed (revisit records, against every earlier CDX of the site).

Old host names (`hosts`): links to a site's earlier hosts count as the site's own (old_host_urls).
"""

from __future__ import annotations

import contextlib
import fnmatch
import glob
import hashlib
import io
import json
import re
import zipfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO
from urllib.parse import unquote, urlparse

from siterag.acquire.urls import redact_url
from siterag.layout import UnsafePath, atomic_write, read_saved, safe_path

CAPTURES = "captures.json"  # in data/logs/<site>/: rel -> where and when its bytes were captured
DEDUP_CDX = "warc-dedup.cdx"  # in data/logs/<site>/: every earlier CDX of the site, for wget --warc-dedup
_HTML_TYPES = ("text/html", "application/xhtml+xml")
MAX_PAYLOAD = 64 << 20  # bytes of one record's payload once decoded (gzip Content-Encoding): more is skipped
_HTML_NAME_RE = re.compile(r"\.html?$", re.IGNORECASE)
_CSS_NAME_RE = re.compile(r"\.css$", re.IGNORECASE)
# --restrict-file-names=windows: these characters of a path are written %XX ('?' before a query is '@').
_WINDOWS_UNSAFE = re.compile(r'[\\|:"*<>?\x00-\x1f\x7f]')
_LINK_RE = rb"""(?:href|src|background|action)\s*=\s*["']?\s*(https?://%s(?::\d+)?(?:/[^"'\s>#]*)?)"""


class WarcError(RuntimeError):
    """WARC input that yields no page at all (every file missing, unreadable or without a capture)."""


# --- configuration helpers -------------------------------------------------------------------------------------

def parse_host(entry: str) -> tuple[str, str]:
    """`www.example.ne.jp`, `example.ne.jp/~user` or `http://host:8080/dir/` -> (host[:port] lower-cased, path
    prefix without a trailing slash, '' for the whole host)."""
    entry = entry.strip()
    if "://" not in entry:
        entry = "http://" + entry
    parsed = urlparse(entry)
    host = (parsed.netloc.rsplit("@", 1)[-1]).lower()
    if host.endswith(":80"):
        host = host[:-3]
    return host, unquote(parsed.path).rstrip("/")


def input_files(patterns: Iterable[str]) -> tuple[list[Path], list[str]]:
    """The WARC/WACZ files the patterns name now (absolute patterns, globs allowed), in a stable order, and one
    warning line per pattern that names no file."""
    files: list[Path] = []
    warnings = []
    for pattern in patterns:
        found = sorted(Path(p) for p in glob.glob(pattern) if Path(p).is_file()) if glob.has_magic(pattern) \
            else [Path(pattern)] if Path(pattern).is_file() else []
        if not found:
            warnings.append(f"warc_files: no file matches {pattern}")
        files += [f for f in found if f not in files]
    return files, warnings


# --- reading -----------------------------------------------------------------------------------------------------

@dataclass
class Capture:
    """One response or revisit record of a page or file."""

    url: str
    date: str  # WARC-Date as YYYY-MM-DDTHH:MM:SSZ
    kind: str  # response | revisit
    status: int
    mime: str  # the HTTP Content-Type's media type, lower-cased ('' when none)
    charset: str  # the HTTP Content-Type's charset ('' when none)
    location: str  # a redirect's target URL (absolute)
    digest: str  # sha256 of the payload (revisits: their original's, once resolved)
    warc_digest: str  # WARC-Payload-Digest as written
    file: str  # the WARC/WACZ it came from
    order: int  # position over all records read (ties of WARC-Date: the later record wins)
    refers_uri: str = ""
    refers_date: str = ""


def warc_date(value: str) -> str:
    """A WARC-Date (1.0 or 1.1: fractions of a second, any precision) as YYYY-MM-DDTHH:MM:SSZ; '' if unreadable."""
    value = (value or "").strip()
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        match = re.match(r"(\d{4})-?(\d\d)-?(\d\d)T?(\d\d):?(\d\d):?(\d\d)", value)
        if not match:
            return ""
        when = datetime(*map(int, match.groups()), tzinfo=UTC)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _content_type(value: str) -> tuple[str, str]:
    mime, _, params = (value or "").partition(";")
    charset = re.search(r"charset\s*=\s*[\"']?([A-Za-z0-9_.:-]+)", params, re.IGNORECASE)
    return mime.strip().lower(), charset.group(1).lower() if charset else ""


def _streams(path: Path, warn: Callable[[str], None]) -> Iterator[tuple[str, IO[bytes]]]:
    """(name, binary stream) of each WARC in `path`: the file itself, or a WACZ's archive/*.warc(.gz)."""
    if path.suffix.lower() != ".wacz":
        with path.open("rb") as fh:
            yield path.name, fh
        return
    try:
        package = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        warn(f"{path.name}: not a WACZ package ({exc}); skipped")
        return
    with package:
        names = package.namelist()
        warcs = sorted(n for n in names if n.startswith("archive/") and fnmatch.fnmatch(n, "*.warc*"))
        if not any(n.startswith("indexes/") for n in names):
            warn(f"{path.name}: WACZ without its index (indexes/); read all {len(warcs)} WARC files in it in full")
        if not warcs:
            warn(f"{path.name}: WACZ holds no archive/*.warc(.gz); skipped")
        for name in warcs:
            with package.open(name) as fh:
                yield f"{path.name}!{name}", io.BufferedReader(fh)  # type: ignore[arg-type]


def read_captures(paths: Iterable[Path], warn: Callable[[str], None]) -> tuple[list[Capture], dict[str, bytes]]:
    """Every response and revisit record of the files (in file order) and the payloads by sha256.

    A bad file or record costs only itself: a non-WARC file, a truncated gzip member, a record whose payload
    digest fails or whose Content-Length lies are each one warning line, and the other records are kept (in an
    uncompressed WARC, reading resumes at the next record after the one it could not get past)."""
    reader = _Reader(warn)
    for path in paths:
        try:
            for name, stream in _streams(path, warn):
                if not reader.read(name, stream) and path.suffix.lower() != ".wacz" and not _is_gzip(path):
                    reader.resync(name, path.read_bytes())
        except (OSError, zipfile.BadZipFile) as exc:  # unreadable, or a WACZ member that fails its CRC
            warn(f"{path.name}: cannot read it ({_first_line(exc)}); skipped the rest of it")
    _resolve_revisits(reader.captures, warn)
    return reader.captures, reader.payloads


def _is_gzip(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


class _Reader:
    """Captures and payloads read so far, over all files."""

    def __init__(self, warn: Callable[[str], None]) -> None:
        self.warn = warn
        self.captures: list[Capture] = []
        self.payloads: dict[str, bytes] = {}
        self.ids: set[str] = set()  # WARC-Record-IDs taken (a resync reads a file again)
        self.order = 0

    def read(self, name: str, stream: IO[bytes], quiet: bool = False) -> bool:
        """Take the records of one WARC stream; False when it stopped at a record it could not get past."""
        from warcio.archiveiterator import ArchiveIterator
        from warcio.exceptions import ArchiveLoadFailed

        read = 0
        try:  # warcio writes its own notices ("Record not followed by newline ...") to stderr: ours are one line
            with contextlib.redirect_stderr(io.StringIO()):
                for record in ArchiveIterator(stream, check_digests=True):
                    read += self._take(name, record)
        except ArchiveLoadFailed as exc:
            if not quiet:
                what = "not a WARC file" if not read else f"unreadable after {read} records"
                self.warn(f"{name}: {what} ({_first_line(exc)}); skipped the rest of it")
            return False
        except Exception as exc:  # noqa: BLE001 - zlib.error, EOFError, a broken gzip member: keep what was read
            if not quiet:
                self.warn(f"{name}: damaged after {read} records ({type(exc).__name__}: {_first_line(exc)}); "
                          "the records before it are kept")
            return False
        if not read and not quiet:  # warcio takes any line of 5 words for an ARC header: no http(s) capture in it
            self.warn(f"{name}: not a WARC file (no response or revisit record of an http(s) URL in it); skipped")
        return True

    def resync(self, name: str, data: bytes) -> None:
        """Read an uncompressed WARC record by record, from each `WARC/1.x` line that starts one, so that a record
        whose Content-Length lies costs only itself."""
        starts = [m.start() for m in re.finditer(rb"WARC/1\.[01]\r\n", data)
                  if m.start() == 0 or data[m.start() - 4:m.start()] == b"\r\n\r\n"]
        if len(starts) < 2:
            return
        before = len(self.captures)
        for begin, end in zip(starts, starts[1:] + [len(data)], strict=True):
            self.read(name, io.BytesIO(data[begin:end]), quiet=True)
        self.warn(f"{name}: read again record by record: {len(self.captures) - before} more captures")

    def _take(self, name: str, record) -> int:  # noqa: ANN001 - a warcio ArcWarcRecord
        """1 when the record is a response or revisit of an http(s) URL (taken unless damaged), else 0."""
        kind = record.rec_type
        if kind not in ("response", "revisit"):
            return 0
        url = redact_url((record.rec_headers.get_header("WARC-Target-URI") or "").strip("<> "))
        if not url.startswith(("http://", "https://")):
            return 0
        record_id = record.rec_headers.get_header("WARC-Record-ID") or ""
        payload = record.content_stream().read(MAX_PAYLOAD + 1) if kind == "response" else b""
        if record_id and record_id in self.ids:
            return 1
        self.ids.add(record_id)  # taken or reported: a resync passes it by
        if len(payload) > MAX_PAYLOAD:  # decoded past the cap: a decompression bomb, or a file no page needs
            self.warn(f"{name}: the record for {url} is over {MAX_PAYLOAD >> 20} MiB once decoded; skipped")
            return 1
        missing = getattr(record.raw_stream, "limit", 0)
        if kind == "response" and missing > 0:
            self.warn(f"{name}: damaged: the record for {url} is cut short ({missing} bytes missing); skipped")
            return 1
        if record.digest_checker.passed is False:
            self.warn(f"{name}: record for {url} fails its digest (its Content-Length or body is wrong); skipped")
            return 1
        http = record.http_headers
        try:
            status = int(http.get_statuscode() or 0) if http else 0
        except ValueError:
            status = 0
        mime, charset = _content_type(http.get_header("Content-Type") if http else "")
        location = (http.get_header("Location") or "") if http else ""
        digest = ""
        if kind == "response":
            digest = hashlib.sha256(payload).hexdigest()
            self.payloads.setdefault(digest, payload)
        self.order += 1
        headers = record.rec_headers
        self.captures.append(Capture(
            url=url, date=warc_date(headers.get_header("WARC-Date") or ""), kind=kind, status=status, mime=mime,
            charset=charset, location=redact_url(_absolute(url, location)) if location else "", digest=digest,
            warc_digest=headers.get_header("WARC-Payload-Digest") or "", file=name, order=self.order,
            refers_uri=redact_url((headers.get_header("WARC-Refers-To-Target-URI") or "").strip("<> ")),
            refers_date=warc_date(headers.get_header("WARC-Refers-To-Date") or "")))
        return 1


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:120]


def _absolute(base: str, location: str) -> str:
    from urllib.parse import urljoin

    return urljoin(base, location.strip())


def _resolve_revisits(captures: list[Capture], warn: Callable[[str], None]) -> None:
    """Give each revisit its original's payload digest (by WARC-Payload-Digest, else by the URI and date it refers
    to, else the latest earlier response of its URL); an unresolved revisit is dropped with one warning."""
    by_warc_digest = {c.warc_digest: c for c in captures if c.kind == "response" and c.warc_digest}
    by_url: dict[str, list[Capture]] = defaultdict(list)
    for c in captures:
        if c.kind == "response":
            by_url[c.url].append(c)
    unresolved = []
    for c in captures:
        if c.kind != "revisit":
            continue
        original = by_warc_digest.get(c.warc_digest) if c.warc_digest else None
        if original is None:
            same = by_url.get(c.refers_uri or c.url, [])
            exact = [o for o in same if c.refers_date and o.date == c.refers_date]
            original = (exact or same or [None])[-1]
        if original is None:
            unresolved.append(c)
            continue
        c.digest = original.digest
        c.status = c.status or original.status
        c.mime, c.charset = c.mime or original.mime, c.charset or original.charset
    if unresolved:
        warn(f"{len(unresolved)} revisit records name a capture that is in none of the files (e.g. "
             f"{unresolved[0].url}); left out")
    captures[:] = [c for c in captures if c.kind == "response" or c.digest]


# --- choosing and laying out -------------------------------------------------------------------------------------

def url_segments(path: str) -> list[str]:
    """A URL path's segments, each %-decoded, with `.` and `..` resolved as a browser resolves them (RFC 3986
    remove_dot_segments: never above the root, whether written `..`, `%2e%2e` or `%2E.`); a `/` or `\\` that was
    %-encoded inside a segment stays inside it (escaped again by wget_rel). The last segment is '' for a folder."""
    out: list[str] = []
    raw = path.split("/")[1:] if path.startswith("/") else path.split("/")
    for i, part in enumerate(raw):
        segment = unquote(part)
        last = i == len(raw) - 1
        if segment in (".", ".."):
            if segment == ".." and out:
                out.pop()
            if last:
                out.append("")
            continue
        out.append(segment)
    return out or [""]


MAX_NAME_BYTES = 236  # wget cuts a longer file name there (the file system allows 255)


def _escape(part: str) -> str:
    """One path segment as wget writes it: unsafe characters %XX, cut at MAX_NAME_BYTES (never inside a
    character)."""
    name = _WINDOWS_UNSAFE.sub(lambda m: f"%{ord(m.group()):02X}", part.replace("/", "%2F"))
    return name.encode("utf-8")[:MAX_NAME_BYTES].decode("utf-8", "ignore")


def wget_rel(url: str, is_html: bool, is_css: bool = False, prefix: str = "") -> str:
    """Where `wget -nH --restrict-file-names=windows --adjust-extension` saves `url` (`prefix`: a path the site's
    host prefix strips). Always a plain relative path under the mirror: dot segments are resolved first."""
    parsed = urlparse(url)
    segments = url_segments(parsed.path)
    path = "/" + "/".join(segments)
    if prefix and (path == prefix or path.startswith(prefix + "/")):
        segments = segments[len([p for p in prefix.split("/") if p]):] or [""]
    segments = [part for part in segments[:-1] if part] + [segments[-1] or "index.html"]  # `a//b` is `a/b`
    rel = "/".join(_escape(part) for part in segments)
    if parsed.query:
        rel += "@" + _escape(unquote(parsed.query))
    if is_html and not _HTML_NAME_RE.search(rel):
        rel += ".html"
    elif is_css and not _CSS_NAME_RE.search(rel):
        rel += ".css"
    folder, _, name = rel.rpartition("/")
    name = name.encode("utf-8")[:MAX_NAME_BYTES].decode("utf-8", "ignore")
    return f"{folder}/{name}" if folder else name


def site_prefix(url: str, hosts: list[tuple[str, str]]) -> str | None:
    """The path prefix of the `hosts` entry `url` belongs to ('' = the whole host), None when it is not the
    site's. Without entries every URL is the site's."""
    if not hosts:
        return ""
    parsed = urlparse(url)
    netloc = parse_host(url)[0]
    path = "/" + "/".join(url_segments(parsed.path))
    for host, prefix in sorted(hosts, key=lambda h: -len(h[1])):
        if host in (netloc, (parsed.hostname or "").lower()) and \
                (not prefix or path == prefix or path.startswith(prefix + "/")):
            return prefix
    return None


def choose(captures: list[Capture], until: str = "") -> dict[str, Capture]:
    """url -> the capture that makes its file: the latest (by WARC-Date, then record order) on or before `until`
    (YYYY-MM-DD; '' = no limit). Its `date` becomes the first capture of that same payload in the run of captures
    leading up to it, so a newer file holding the same bytes changes nothing."""
    by_url: dict[str, list[Capture]] = defaultdict(list)
    for c in captures:
        if not until or c.date[:10] <= until:
            by_url[c.url].append(c)
    chosen = {}
    for url, group in by_url.items():
        group.sort(key=lambda c: (c.date, c.order))
        last = group[-1]
        first = last
        for c in reversed(group):
            if c.digest != last.digest:
                break
            first = c
        chosen[url] = Capture(**{**asdict(last), "date": first.date})
    return chosen


@dataclass
class IngestResult:
    """What one WARC ingest laid out."""

    seen: set[str]
    warnings: list[str]
    captures: dict[str, dict]  # rel -> {url, captured_at, charset, file, status, mime}
    written: int = 0  # files (re)written because their bytes changed
    removed: int = 0  # files no file holds any more


def lay_out(captures: list[Capture], payloads: dict[str, bytes], dest: Path, hosts: list[tuple[str, str]],
            until: str = "", previous: dict[str, dict] | None = None) -> IngestResult:
    """Write each chosen capture of a 200 answer into `dest` at its wget path (bytes unchanged: a file whose bytes
    are the same is not rewritten); remove the files an earlier ingest wrote that no capture holds now."""
    warnings: list[str] = []
    chosen = choose(captures, until)
    foreign = sorted({urlparse(u).netloc for u in chosen if site_prefix(u, hosts) is None})
    if foreign:
        warnings.append(f"left out captures of {len(foreign)} other hosts ({', '.join(foreign[:3])}"
                        f"{', ...' if len(foreign) > 3 else ''}); list them in hosts to merge them")
    if not hosts:
        netlocs = sorted({urlparse(u).netloc for u, c in chosen.items() if c.status == 200})
        if len(netlocs) > 1:
            warnings.append(f"captures of {len(netlocs)} hosts ({', '.join(netlocs[:3])}) merged by path; list the "
                            "site's in hosts to keep only those")
    by_rel: dict[str, Capture] = {}
    redirects = missing = 0
    clashes: list[str] = []
    for url, c in chosen.items():
        prefix = site_prefix(url, hosts)
        if prefix is None:
            continue
        if 300 <= c.status < 400:
            redirects += 1  # the page it names is laid out from its own capture
            if c.location and c.location not in chosen:
                missing += 1
            continue
        if c.status != 200:
            continue
        rel = wget_rel(url, c.mime in _HTML_TYPES, c.mime == "text/css", prefix)
        other = by_rel.get(rel)
        if other is not None:
            if other.digest != c.digest:  # `dir/` and `dir/index.html` with the same bytes are one page
                clashes.append(f"{other.url} and {url} as {rel}")
            if (other.date, other.order) > (c.date, c.order):
                continue
        by_rel[rel] = c
    if clashes:
        warnings.append(f"{len(clashes)} files hold two different captures (e.g. {clashes[0]}); kept the later one")
    if missing:
        warnings.append(f"{missing} of {redirects} redirects name a page that was never captured")
    result = IngestResult(seen=set(), warnings=warnings, captures={})
    for rel, c in sorted(by_rel.items()):
        data = payloads[c.digest]
        try:
            target = safe_path(dest, rel)
            if not target.is_file() or target.stat().st_size != len(data) or target.read_bytes() != data:
                atomic_write(target, data)
                result.written += 1
        except UnsafePath as exc:
            warnings.append(f"cannot save {c.url}: {exc}")
            continue
        except OSError as exc:  # a file where a folder must go, a name too long, ...
            warnings.append(f"cannot save {c.url} as {rel}: {exc.strerror or exc}")
            continue
        result.seen.add(rel)
        result.captures[rel] = {"url": c.url, "captured_at": c.date, "charset": c.charset, "file": c.file,
                                "status": c.status, "mime": c.mime}
    for rel in sorted(set(previous or {}) - set(result.captures)):
        try:  # captures.json is a file on disk: an earlier version or a hand may have put any name in it
            path = safe_path(dest, rel)
        except UnsafePath as exc:
            warnings.append(f"did not remove {exc}")
            continue
        if path.is_file():
            path.unlink()
            result.removed += 1
    return result


def ingest(patterns: Iterable[str], hosts: Iterable[str], until: str, dest: Path, log_dir: Path) -> IngestResult:
    """Stage entry point for a WARC site: read the files, lay out the mirror, save captures.json.
    Raises WarcError when not one page comes out."""
    warnings: list[str] = []
    files, missing = input_files(patterns)
    warnings += missing
    captures, payloads = read_captures(files, warnings.append)
    previous = read_saved(log_dir / CAPTURES)
    dest.mkdir(parents=True, exist_ok=True)
    result = lay_out(captures, payloads, dest, [parse_host(h) for h in hosts], until, previous)
    result.warnings[:0] = warnings
    if not result.seen:
        why = "; ".join(result.warnings[:3]) or "no response record with an HTTP 200 answer"
        raise WarcError(f"no page in the WARC files ({len(files)} read): {why}")
    atomic_write(log_dir / CAPTURES, json.dumps(result.captures, ensure_ascii=False, indent=0, sort_keys=True))
    return result


def capture_info(log_dir: Path) -> dict[str, dict]:
    """rel -> {url, captured_at, charset, ...} of a WARC site's files ({} for other sites)."""
    return read_saved(log_dir / CAPTURES)


# --- WARC out ----------------------------------------------------------------------------------------------------

def warc_dir(mirror: Path) -> Path:
    """data/warc/<site>/ for the mirror data/mirror/<site>/."""
    return mirror.parent.parent / "warc" / mirror.name


def warc_out_args(mirror: Path, log_dir: Path, suffix: str = "") -> list[str]:
    """wget flags that also write this crawl as data/warc/<site>/<UTC time><suffix>.warc.gz with its .cdx, and
    record only what changed since the site's earlier crawls (revisit records for payloads any earlier CDX
    holds)."""
    out = warc_dir(mirror)
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + suffix
    args = [f"--warc-file={out / stamp}", "--warc-cdx", "--no-warc-keep-log"]
    earlier = sorted(out.glob("*.cdx"))
    if earlier:
        lines: list[str] = []
        for cdx in earlier:
            text = cdx.read_text(encoding="utf-8", errors="replace").splitlines()
            if text and text[0].startswith(" CDX"):
                lines += [text[0]] if not lines else []
                lines += [line for line in text[1:] if line.strip()]
        if lines:
            atomic_write(log_dir / DEDUP_CDX, "\n".join(lines) + "\n")
            args.append(f"--warc-dedup={log_dir / DEDUP_CDX}")
    return args


# --- old host names ----------------------------------------------------------------------------------------------

def old_host_urls(mirror: Path, pages: Iterable[str], hosts: Iterable[str], base_url: str) -> set[str]:
    """URLs on the crawled host for the absolute links of `pages` (mirror paths) to the site's old host names:
    `http://www.example.ne.jp/~user/diary.html` -> `<base_url scheme+host>/~user/diary.html`."""
    names = [parse_host(h)[0] for h in hosts]
    if not names:
        return set()
    base = urlparse(base_url)
    alternatives = b"|".join(re.escape(n.encode()) for n in names)
    pattern = re.compile(_LINK_RE % (b"(?:" + alternatives + b")"), re.IGNORECASE)
    found: set[str] = set()
    for rel in pages:
        try:
            data = (mirror / rel).read_bytes()
        except OSError:
            continue
        for match in pattern.finditer(data):
            link = urlparse(match.group(1).decode("latin-1"))
            path = link.path or "/"
            found.add(f"{base.scheme}://{base.netloc}{path}" + (f"?{link.query}" if link.query else ""))
    return found
