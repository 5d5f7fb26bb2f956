"""Stage 1: mirror a site with real wget (or take a local folder that already is a mirror)."""

from __future__ import annotations

import functools
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO
from urllib.parse import unquote, urlparse, urlsplit, urlunsplit

from siterag.acquire import warc
from siterag.acquire.urls import redact_url
from siterag.config import SiteConfig
from siterag.layout import TEMP_SUFFIX, UnsafePath, atomic_write, read_saved, safe_path, temp_name

# wget exit codes that still leave a usable mirror: 0 ok, 8 = some pages answered 4xx/5xx.
_USABLE_EXIT = {0, 8}
# (and "Server ignored If-Modified-Since header for file": a server that answers 200 to a conditional GET, which
# wget stops reading when the date and length match its copy)
_SAVED_RE = re.compile(r"(?:Saving to:|Server file no newer than local file|File|header for file) [‘'`\"](.+?)[’'\"]")
_REQUEST_RE = re.compile(r"^--\d{4}-\d\d-\d\d \d\d:\d\d:\d\d--\s+(?:\(try:\s*\d+\)\s+)?(\S+)\s*$")
_ERROR_RE = re.compile(r"ERROR (\d{3}):")
# Statuses that say a page is gone; any other error (5xx, 403, ...) keeps the earlier copy.
GONE = {404, 410}


# Files that are not pages: a 404 for one of them is a broken image or download link, not a page gone.
NON_PAGE_EXTENSIONS = frozenset(
    "gif jpg jpeg png bmp ico svg webp tif tiff psd css js json xml swf mid midi mp3 wav ogg wma mp4 mpg mpeg avi "
    "mov wmv flv pdf doc docx xls xlsx ppt pptx exe msi dmg bin zip lzh lha gz tgz bz2 xz 7z rar tar cab sit hqx "
    "ttf otf woff woff2 eot".split())
# Causes in wget's log, first match wins: (pattern, readable cause, worth a retry).
_CAUSES = [
    (re.compile(r"unable to resolve host address\s*[‘'`\"]?([^’'\"\s]+)"), "unable to resolve host address {0}",
     False),
    (re.compile(r"failed: (Connection timed out|Connection reset by peer|Network is unreachable)\.?"), "{0}", True),
    (re.compile(r"^(?!Resolving).*failed: ([^.]+)\.?"), "{0}", False),  # Connection refused, No route to host
    (re.compile(r"ERROR (5\d\d): ?(.*?)\.?$"), "HTTP {0} {1}", True),
    (re.compile(r"ERROR (\d{3}): ?(.*?)\.?$"), "HTTP {0} {1}", False),
    (re.compile(r"Read error .*?\((.+?)\)"), "read error ({0})", True),
    (re.compile(r"^(\d+) redirections exceeded"), "more than {0} redirects (a redirect loop)", False),
    (re.compile(r"^wget: (.+)$"), "{0}", False),  # a bad option: wget exits 2
    (re.compile(r"(Unable to establish SSL connection|ERROR: cannot verify .*)\.?$"), "{0}", False),
]


class MirrorError(RuntimeError):
    """wget could not produce a mirror and there is no earlier one to keep. `retryable`: False when trying again
    soon cannot help (unknown host, nothing listening, a 4xx start page, a bad wget option)."""

    def __init__(self, message: str, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable


def shown_path(path: Path) -> str:
    """`path` as the person running siterag can type it: relative to the current folder when it is inside it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def is_page_url(url: str) -> bool:
    """False for URLs of images, downloads, style sheets, scripts (by extension); True for pages."""
    name = unquote(urlparse(url).path).rsplit("/", 1)[-1]
    return "." not in name or name.rsplit(".", 1)[1].lower() not in NON_PAGE_EXTENSIONS


_PAGE_EXTENSIONS = {"html", "htm", "shtml", "xhtml", "php", "cgi", "asp", "aspx", "jsp", "pl"}


def _looks_like_page(url: str) -> bool:
    """A URL that names a page, not only "not an image": a folder, no extension, or a page extension."""
    name = unquote(urlparse(url).path).rsplit("/", 1)[-1]
    return "." not in name or name.rsplit(".", 1)[1].lower() in _PAGE_EXTENSIONS


def _lines_by_url(text: str) -> Iterator[tuple[str, str]]:
    """wget log lines that are not request lines, each with the URL of the request it belongs to ('' before any)."""
    url = ""
    for line in text.splitlines():
        request = _REQUEST_RE.match(line)
        if request:
            url = request.group(1)
            continue
        yield url, line


def failure_cause(text: str, code: int, timeout_s: int = 0) -> tuple[str, str, bool]:
    """(URL, cause, retryable) of a crawl that fetched nothing, read from wget's log; the URL is "" when the log
    names none."""
    if code == -1:
        return "", f"no answer within the time limit ({timeout_s}s)", True
    url = ""
    for url, line in _lines_by_url(text):
        for pattern, template, retryable in _CAUSES:
            match = pattern.search(line)
            if match:
                return url, template.format(*match.groups()).strip(), retryable
    return url, f"wget exited with code {code}", code not in (1, 2)


def causes_by_asked(text: str) -> dict[str, str]:
    """URL asked for (redirect hops and retries folded into it) -> the first failure cause its lines show."""
    causes: dict[str, str] = {}
    asked = ""
    following = False
    for line in text.splitlines():
        request = _REQUEST_RE.match(line)
        if request:
            if not following and "(try:" not in line:
                asked = request.group(1)
            following = False
            continue
        following = following or bool(_FOLLOWING_RE.match(line))
        if asked and asked not in causes:
            for pattern, template, _ in _CAUSES:
                if match := pattern.search(line):
                    causes[asked] = template.format(*match.groups()).strip()
                    break
    return causes


def silent_starts(saves: list[Save], text: str, start_urls: tuple[str, ...]) -> list[str]:
    """A warning line per start URL that gave no file at all (a redirect loop, an error), with its cause."""
    saved = {_same_url(save.asked) for save in saves}
    causes = {_same_url(url): cause for url, cause in causes_by_asked(text).items()}
    return [f"start URL {redact_url(url)} gave no page: {causes.get(_same_url(url), 'see wget.log')}"
            for url in start_urls if _same_url(url) not in saved]


@dataclass
class MirrorResult:
    """What one mirror run did."""

    root: Path
    exit_code: int = 0
    seen: set[str] = field(default_factory=set)  # relative paths this crawl reached
    warnings: list[str] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)  # URL -> HTTP status of the URLs that failed
    complete: bool = True  # False when wget failed or was cut short: unseen pages are not gone


@functools.cache
def _wget_has(option: str) -> bool:
    """Whether this wget knows `option` (--compression needs a wget built with zlib)."""
    try:
        return option in subprocess.run(["wget", "--help"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return False


def wget_args(site: SiteConfig, dest: Path, if_modified_since: bool = False) -> list[str]:
    """The wget argument list for one site (no shell involved). No `-k`: it breaks re-runs.

    A full crawl checks each file it already has with a HEAD request (`-N` without If-Modified-Since: wget follows
    the links of an unchanged page from its local copy); `if_modified_since`: a conditional GET instead (304 Not
    Modified, and wget 1.21 then does not follow that page's links: for refresh_urls' list of known URLs)."""
    host = urlparse(site.start_urls[0]).hostname or ""
    args = [
        "wget", "--mirror", "--if-modified-since" if if_modified_since else "--no-if-modified-since",
        # No keep-alive: after a HEAD or a 304 from an HTTP/1.0 server wget reuses the closed connection ("No data
        # received") and waits a second before its retry, for each such file.
        "--no-http-keep-alive", "--adjust-extension", "--page-requisites",
        "--no-parent", "--restrict-file-names=windows", "-nH", "-e", "robots=off",
        "--domains", host, "--progress=dot:giga", "--tries=2", "--timeout=30",
        "--quota", site.quota, "--user-agent", site.user_agent, "-P", str(dest),
    ]
    # --unlink: a file wget rewrites is a new file (the hard links snapshot_mirror made keep the earlier copy);
    # --compression=auto: a gzip-encoded answer is saved decoded and its links followed, not kept as page.html.gz.
    args += ["--unlink"] + (["--compression=auto"] if _wget_has("--compression") else [])
    if site.max_depth:
        args += ["--level", str(site.max_depth)]
    if site.wait:
        args += ["--wait", str(site.wait)]
    if site.rate_limit:
        args += ["--limit-rate", site.rate_limit]
    if site.accept:
        args += ["--accept", ",".join(site.accept)]
    if site.reject:
        args += ["--reject", ",".join(site.reject)]
    return args + list(site.start_urls)


MIN_FILE_LIMIT = 64 << 20  # one file of a crawl may grow to 4x the quota, and at least this (bytes)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def max_file_bytes(quota: str) -> int | None:
    """The most one file of a crawl may take on disk: 4x the site's quota, at least MIN_FILE_LIMIT; None for a
    quota of "inf" (or 0). wget never applies its quota to a single file, so a gzip answer it decodes
    (--compression=auto) could otherwise fill the disk."""
    match = re.match(r"^(\d+(?:\.\d+)?)([kmgt]?)$", quota.strip().lower())
    if not match or float(match.group(1)) == 0:
        return None
    return max(int(float(match.group(1)) * _UNITS[match.group(2)] * 4), MIN_FILE_LIMIT)


def limit_file_size(limit: int | None) -> None:
    """In wget's process, before it starts: a write past `limit` bytes fails (EFBIG, `Cannot write to … (File too
    large)`, the crawl stops) instead of filling the disk."""
    if limit is None:
        return
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


_PAGE_SAVED_RE = re.compile(rb"^Saving to: .*\.html?(?:'|\x22|\xe2\x80\x99)\s*$", re.MULTILINE | re.IGNORECASE)


def run_capped(args: list[str], log: IO[str], log_path: Path, site: SiteConfig) -> tuple[int, bool]:
    """Run wget (logging to `log`, the file at `log_path`) until it ends, `site.timeout_s` passes (code -1) or it
    has saved more than `site.max_pages` pages (it is stopped within 0.2 s; capped = True). Returns (exit code,
    capped)."""
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT,
                            preexec_fn=functools.partial(limit_file_size, max_file_bytes(site.quota)))
    deadline = time.monotonic() + site.timeout_s
    pages = read = 0
    while True:
        try:
            return proc.wait(timeout=0.2), False
        except subprocess.TimeoutExpired:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            return -1, False
        if site.max_pages:
            with log_path.open("rb") as fh:
                fh.seek(read)
                chunk = fh.read()
            whole = chunk[:chunk.rfind(b"\n") + 1]  # whole lines only: the rest is read next time
            read += len(whole)
            pages += len(_PAGE_SAVED_RE.findall(whole))
            if pages > site.max_pages:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                return proc.returncode, True


def parse_wget_log(text: str, dest: Path) -> set[str]:
    """Relative paths that wget saved or confirmed unchanged in this crawl."""
    seen: set[str] = set()
    dest_str = str(dest).rstrip("/") + "/"
    for match in _SAVED_RE.finditer(text):
        path = match.group(1)
        if path.startswith(dest_str):
            seen.add(path[len(dest_str):])
    return seen


def parse_wget_errors(text: str) -> dict[str, int]:
    """URL -> HTTP status for every URL whose (last) try answered with an HTTP error."""
    errors: dict[str, int] = {}
    for url, line in _lines_by_url(text):
        error = _ERROR_RE.search(line)
        if error and url:
            errors[url] = int(error.group(1))
    return errors


def url_to_rel(url: str) -> set[str]:
    """Where wget (-nH, --restrict-file-names=windows, --adjust-extension) keeps a URL: the candidates."""
    parsed = urlparse(url)
    rel = unquote(parsed.path).lstrip("/")
    if not rel or rel.endswith("/"):
        rel += "index.html"
    if parsed.query:
        rel += "@" + unquote(parsed.query)
    return {rel, rel + ".html"}


def error_warnings(errors: dict[str, int], limit: int = 10, dest: Path | None = None) -> list[str]:
    """Readable report lines for the URLs that failed, gone pages (404/410) apart from kept ones; gone images and
    other files that are not pages are one count. `dest`: the mirror, where an earlier copy is kept (or not)."""
    files_gone = sorted(url for url, status in errors.items() if status in GONE and not is_page_url(url))
    errors = {url: status for url, status in errors.items() if url not in set(files_gone)}
    lines = []
    for url, status in sorted(errors.items())[:limit]:
        kept = dest is not None and any((dest / rel).is_file() for rel in url_to_rel(url) if _safe(dest, rel))
        gone = "page gone" if _looks_like_page(url) else "gone"
        what = gone if status in GONE else "kept the earlier copy" if kept else "not archived: no earlier copy"
        lines.append(f"HTTP {status} for {url} ({what})")
    if len(errors) > limit:
        lines.append(f"... and {len(errors) - limit} more URLs with HTTP errors (see wget.log)")
    if files_gone:
        what = "file that is not a page is" if len(files_gone) == 1 else "files that are not pages are"
        lines.append(f"{len(files_gone)} linked {what} missing (HTTP 404/410: images, downloads, ...), e.g. "
                     f"{files_gone[0]} (see wget.log)")
    return lines


# A crawl keeps, per mirror file, the URL it came from (wget's names lose the query, add .html, get cut): the
# `source:` of its document. In the site's log folder; merged across runs.
URLS_FILE = "urls.json"
# How a download ends: `- ‘x.html’ saved [4538/18153]` (whole when both agree, or no length was given), or
# `- Connection closed at byte 4538. Giving up.` / `Read error at byte 4538/18153 (…). Retrying.`
_DONE_RE = re.compile(r"[’'\"] saved \[(\d+)(?:/(\d+))?\]")
_BROKEN_RE = re.compile(r"(?:Connection closed|Read error) at byte (\d+)")
_LENGTH_RE = re.compile(r"^Length: (\d+)")
_TOO_LARGE_RE = re.compile(r"^Cannot write to .*\((File too large|No space left on device)\)")
TOO_LARGE = "over the size limit of one file"
_FOLLOWING_RE = re.compile(r"^Location: .*\[following\]\s*$")
_OCTAL_RE = re.compile(rb"\\([0-3][0-7]{2})")
_HTML_NAME_RE = re.compile(r"\.html?$", re.IGNORECASE)


@dataclass(frozen=True)
class Save:
    """One file wget saved (or found unchanged): the URL asked for, the URL that answered after redirects, and
    where it went under the mirror (the bytes wget wrote, surrogate-escaped where they are not UTF-8)."""

    asked: str
    got: str
    rel: str
    cut: str = ""  # why the answer is incomplete ('' = whole): `4538 of 18153 bytes`, `the crawl stopped`


def parse_saves(text: str, dest: Path) -> list[Save]:
    """The files of a wget log in crawl order; read the log with errors="surrogateescape" so that a name wget cut
    inside a multibyte character still names the file on disk."""
    saves: list[Save] = []
    dest_str = str(dest).rstrip("/") + "/"
    asked = got = ""
    following = False
    open_at: int | None = None  # the save being written: its end line says whether it is whole
    length = ""  # the Content-Length of the answer being read
    for line in text.splitlines():
        request = _REQUEST_RE.match(line)
        if request:
            if open_at is not None:  # a new request before the save's end line
                saves[open_at] = replace(saves[open_at], cut="the download did not finish")
            got, length = request.group(1), ""
            if not following and "(try:" not in line:  # a new request, not a redirect hop or a retry
                asked = got
            following = False
        elif _FOLLOWING_RE.match(line):
            following = True
            open_at = None
        elif open_at is not None and (done := _DONE_RE.search(line)):
            whole, total = done.group(1), done.group(2)
            if total and whole != total:
                saves[open_at] = replace(saves[open_at], cut=f"{whole} of {total} bytes")
            open_at = None
        elif open_at is not None and _TOO_LARGE_RE.search(line):
            saves[open_at] = replace(saves[open_at], cut=TOO_LARGE)
            open_at = None
        elif open_at is not None and (broken := _BROKEN_RE.search(line)):
            saves[open_at] = replace(saves[open_at], cut=f"{broken.group(1)} of {length} bytes" if length
                                     else f"{broken.group(1)} bytes, then the connection broke")
            open_at = None
        else:
            if (declared := _LENGTH_RE.match(line)) is not None:
                length = declared.group(1)
            for match in _SAVED_RE.finditer(line):
                if match.group(1).startswith(dest_str):
                    saves.append(Save(asked or got, got, _log_name(match.group(1)[len(dest_str):])))
                    open_at = len(saves) - 1 if line.startswith("Saving to:") else None
    if open_at is not None:  # the log ends inside a download: wget was stopped (time limit) while saving it
        saves[open_at] = replace(saves[open_at], cut="the crawl stopped while it was saved")
    return saves


def _log_name(name: str) -> str:
    """A file name as wget's log shows it back to the name on disk: wget writes a byte that is not part of valid
    UTF-8 (a character it cut) as \\ooo; a real backslash never gets into a name (windows names: %5C)."""
    if "\\" not in name:
        return name
    raw = _OCTAL_RE.sub(lambda m: bytes([int(m.group(1), 8)]), name.encode("utf-8", "surrogateescape"))
    return raw.decode("utf-8", "surrogateescape")


def crawl_domains(site: SiteConfig, dest: Path) -> list[str]:
    """The host names the crawl may archive (wget's --domains)."""
    args = wget_args(site, dest)
    if "--domains" in args:
        return [d.strip().lower() for d in args[args.index("--domains") + 1].split(",") if d.strip()]
    return [(urlsplit(site.start_urls[0]).hostname or "").lower()]


def _explicit_port(url: str) -> int | None:
    try:
        port = urlsplit(url).port
    except ValueError:
        return -1
    return None if port in (80, 443) else port


def off_site(url: str, start_url: str, domains: list[str]) -> bool:
    """True for a URL the site's crawl must not archive: a host outside `domains` (wget follows a redirect there
    anyway), or the start host on another port (another server)."""
    host = (urlsplit(url).hostname or "").lower()
    if not any(host == d or host.endswith("." + d) for d in domains):
        return True
    return host == (urlsplit(start_url).hostname or "").lower() and _explicit_port(url) != _explicit_port(start_url)


def utf8_name(rel: str) -> str:
    """`rel` as valid UTF-8: wget cuts a long name at 236 bytes, often inside a character; the cut bytes go."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "ignore")


def _same_url(url: str) -> str:
    """A URL as the page it names: no fragment, user or %-escapes; `dir/` and `dir/index.html` are one."""
    parts = urlsplit(redact_url(url))
    path = unquote(parts.path or "/")
    return urlunsplit(parts._replace(path=path + "index.html" if path.endswith("/") else path, fragment=""))


def settle_saves(saves: list[Save], dest: Path, before: Path | None, start_url: str, domains: list[str],
                 ) -> tuple[set[str], dict[str, str], list[str]]:
    """Check what wget saved: a file that another host answered (a redirect) is put back to its earlier copy in
    `before` (or removed), a name cut inside a character is renamed to valid UTF-8, two URLs saved as one file are
    reported. Returns the files of this crawl, file -> the URL it came from, and warning lines."""
    last: dict[str, Save] = {}
    for save in saves:
        last[save.rel] = save
    seen: set[str] = set()
    urls: dict[str, str] = {}
    asked_by_rel: dict[str, dict[str, str]] = {}
    foreign: list[str] = []
    cut: list[str] = []
    for rel, save in list(last.items()):
        try:
            safe_path(dest, rel)
        except UnsafePath as exc:  # wget never writes such a name: a log that does is not to be trusted
            foreign.append(f"{redact_url(save.asked)}: refused {exc}")
            del last[rel]
            continue
        if off_site(save.got, start_url, domains) or off_site(save.asked, start_url, domains):
            kept = before is not None and (before / rel).is_file()
            if kept:
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                os.replace(before / rel, dest / rel)
                seen.add(utf8_name(rel))
            elif (dest / rel).is_file():
                (dest / rel).unlink()
            foreign.append(f"{redact_url(save.asked)} answered from another host ({redact_url(save.got)}): not "
                           "archived" + ("; kept the earlier copy" if kept else ""))
            continue
        if shrunk := _shrunk(save, dest, before):
            cut.append(shrunk)  # a dying host's cut or empty answer never replaces the good copy
        name = utf8_name(rel)
        if name != rel and not _safe(dest, name):
            name = rel
        if name != rel and (dest / rel).is_file() and name and not (dest / name).is_dir():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            os.replace(dest / rel, dest / name)
        elif name != rel and (dest / rel).is_file():
            name = rel  # cannot be renamed: select_pages reports a name that is not UTF-8
        seen.add(name)
        urls[name] = redact_url(save.asked)
    for save in saves:
        if not off_site(save.got, start_url, domains) and not off_site(save.asked, start_url, domains):
            asked_by_rel.setdefault(utf8_name(save.rel), {})[_same_url(save.asked)] = redact_url(save.asked)
    warnings = foreign[:10] + ([f"... and {len(foreign) - 10} more pages answered from another host "
                                "(see wget.log)"] if len(foreign) > 10 else [])
    warnings += cut[:10] + ([f"... and {len(cut) - 10} more answers cut short or empty (see wget.log)"]
                            if len(cut) > 10 else [])
    for rel, asked in sorted(asked_by_rel.items()):
        if len(asked) > 1 and rel in urls:
            others = sorted(u for u in asked.values() if u != urls[rel])
            warnings.append(f"{len(asked)} URLs were saved as one file {rel} (wget cuts names at 236 bytes, "
                            f"adds .html): only {urls[rel]} is archived, not {others[0]}"
                            + (f" and {len(others) - 1} more" if len(others) > 1 else ""))
    return seen, urls, warnings


def _shrunk(save: Save, dest: Path, before: Path | None) -> str:
    """A warning line when `save` is an answer cut short or an empty one ('' when it is whole). Where an earlier
    copy exists it is put back; a first download cut short keeps the part that came (wget fetches it again next
    run: its size differs from the server's)."""
    path = dest / save.rel
    empty = not save.cut and path.is_file() and path.stat().st_size == 0
    if not save.cut and not empty:
        return ""
    old = before / save.rel if before is not None else None
    why = f"was cut short ({save.cut})" if save.cut else "answered with an empty page"
    if old is not None and old.is_file() and old.stat().st_size > 0 and \
            not (path.exists() and os.path.samefile(old, path)):
        os.replace(old, path)
        return f"{redact_url(save.asked)} {why}: kept the earlier copy"
    if save.cut == TOO_LARGE:  # a decompression bomb or a huge download: none of it is archived
        path.unlink(missing_ok=True)
        return f"{redact_url(save.asked)} is {TOO_LARGE} (4x the quota); not archived, and the crawl stopped " \
               "there: add it to reject, or raise quota"
    if save.cut:
        return f"{redact_url(save.asked)} {why}: archived the part that came; the next run fetches it again"
    return ""


def _safe(root: Path, rel: str) -> bool:
    try:
        safe_path(root, rel)
    except UnsafePath:
        return False
    return True


def snapshot_mirror(dest: Path) -> Path | None:
    """Hard links of the mirror's files as they are before a crawl (wget runs with --unlink, so a file it writes is
    a new one): a page that another host answers gets its earlier copy back. None where links are not possible."""
    snap = dest.parent / f".{dest.name}.before-crawl"
    shutil.rmtree(snap, ignore_errors=True)
    try:
        shutil.copytree(dest, snap, symlinks=True, copy_function=os.link)
    except (OSError, shutil.Error):
        shutil.rmtree(snap, ignore_errors=True)
        return None
    return snap


def save_urls(log_dir: Path, dest: Path, urls: dict[str, str]) -> None:
    """Merge this crawl's file -> URL map into the saved one (files no longer in the mirror drop out)."""
    merged = {rel: url for rel, url in (read_saved(log_dir / URLS_FILE) | urls).items() if (dest / rel).is_file()}
    atomic_write(log_dir / URLS_FILE, json.dumps(merged, ensure_ascii=False, indent=0, sort_keys=True))


@functools.lru_cache(maxsize=8)
def _read_urls(path: str, stamp: int) -> dict[str, str]:
    return {k: v for k, v in read_saved(Path(path)).items() if isinstance(v, str)}


def saved_urls(log_dir: Path) -> dict[str, str]:
    """The file -> URL map of the site's crawls (empty before the first crawl); do not modify it."""
    path = log_dir / URLS_FILE
    try:
        return _read_urls(str(path), path.stat().st_mtime_ns)
    except OSError:
        return {}


def guess_url_path(rel: str) -> tuple[str, str]:
    """(path, query) of the URL wget saved as `rel`, where the log did not say: '@' back to '?', less the '.html'
    that --adjust-extension added after a query."""
    folder, _, name = rel.rpartition("/")
    if "@" not in name:
        return rel, ""
    base, query = name.split("@", 1)
    if query.lower().endswith(".html") and not _HTML_NAME_RE.search(name[:-5]):
        query = query[:-5]
    return (folder + "/" if folder else "") + base, query


# A refresh costs what changed: wget 1.21 does not follow the links of a page answered 304 Not Modified, so once the
# site has been crawled a refresh asks, with If-Modified-Since, about every URL that crawl asked for (wget -i); a page
# that changed comes back 200 and wget follows its links as usual. Every FULL_CRAWL_EVERY_S (and when there is no list
# yet) a full crawl follows every link again: it drops pages no longer linked from the list, and finds a new page
# linked only from a changed page outside that page's folder (--no-parent counts from each listed URL).
CRAWL_FILE = "crawl.json"
FULL_CRAWL_EVERY_S = 7 * 86400
_FRESH_SAVE_RE = re.compile(r"Saving to: [‘'`\"](.+?)[’'\"]")


def refresh_urls(site: SiteConfig, dest: Path, log_dir: Path, now: float) -> list[str] | None:
    """The URLs a conditional refresh asks about (besides the start URLs), or None for a full crawl: no earlier
    crawl, no mirror, a `max_depth` (listed URLs would start at depth 0), WARC output (wget does not combine it with
    timestamping), a last full crawl older than FULL_CRAWL_EVERY_S, or a server that ignored If-Modified-Since
    in the last refresh of that time (each listed page it answers 200 is read for links from its own place: one
    crawl, as before, costs less)."""
    saved = read_saved(log_dir / CRAWL_FILE)
    urls = saved.get("urls")
    last_full, ignored = saved.get("full_crawl_at"), saved.get("ims_ignored_at")
    if site.max_depth or site.warc or not isinstance(urls, list) or not isinstance(last_full, (int, float)):
        return None
    if now - last_full > FULL_CRAWL_EVERY_S or not dest.is_dir() or not any(dest.iterdir()):
        return None
    if isinstance(ignored, (int, float)) and now - ignored < FULL_CRAWL_EVERY_S:
        return None
    start = {redact_url(u) for u in site.start_urls}
    return [with_credentials(u, site.start_urls) for u in urls if isinstance(u, str) and u not in start]


def _server(url: str) -> tuple[str, str | None, int | None]:
    """A URL's scheme, host and port (without a user name and password)."""
    parts = urlsplit(url)
    try:
        return parts.scheme, parts.hostname, parts.port
    except ValueError:
        return parts.scheme, parts.hostname, None


def with_credentials(url: str, start_urls: list[str]) -> str:
    """`url` with the user name and password of the start URL on its server (saved lists never hold them)."""
    for start in start_urls:
        netloc = urlsplit(start).netloc
        if "@" in netloc and _server(start) == _server(url):
            return urlunsplit(urlsplit(url)._replace(netloc=netloc))
    return url


def asked_urls(text: str, start_urls: list[str]) -> list[str]:
    """The URLs of a wget log's requests (retries and redirect hops too) on the start URLs' servers, in order,
    without user names and passwords (wget's log writes `*password*` for them)."""
    servers = {_server(u) for u in start_urls}
    asked: dict[str, None] = {}
    for line in text.splitlines():
        request = _REQUEST_RE.match(line)
        if request and _server(request.group(1)) in servers:
            asked[redact_url(request.group(1))] = None
    return list(asked)


def save_crawl(log_dir: Path, asked: list[str], listed: list[str] | None, complete: bool, now: float,
               text: str = "") -> None:
    """Keep the URLs the next refresh asks about: a complete full crawl's requests replace the list; a refresh or
    a crawl cut short adds its requests to it (a URL it did not reach stays on the list). A refresh whose server
    mostly ignored If-Modified-Since (wget's log) is remembered."""
    saved = read_saved(log_dir / CRAWL_FILE)
    full = listed is None and complete
    urls = asked if full else list(dict.fromkeys([*(saved.get("urls") or []), *asked]))
    last_full = now if full else saved.get("full_crawl_at")
    ignored = saved.get("ims_ignored_at")
    if listed is not None:
        ignored = now if text.count("Server ignored If-Modified-Since") > text.count("304 Not Modified") else None
    atomic_write(log_dir / CRAWL_FILE, json.dumps({"full_crawl_at": last_full, "ims_ignored_at": ignored,
                                                   "urls": urls}, ensure_ascii=False, indent=0))


def age_fresh_saves(text: str, since: float) -> int:
    """Set back by one second the time of each file this crawl saved whose Last-Modified is not older than the
    crawl's start: a change the server makes later in that same second keeps the same Last-Modified and would be
    answered 304; now the next refresh fetches that file once more. Returns how many."""
    aged = 0
    for match in _FRESH_SAVE_RE.finditer(text):
        path = Path(match.group(1))
        try:
            stat = path.stat()
            if stat.st_mtime >= since - 1:
                os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - 1_000_000_000))
                aged += 1
        except OSError:
            continue
    return aged


def run_wget(site: SiteConfig, dest: Path, log_path: Path) -> MirrorResult:
    """Mirror `site` into `dest`; keep an earlier mirror if wget fails."""
    dest.mkdir(parents=True, exist_ok=True)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    if shutil.which("wget") is None:
        raise MirrorError("wget is not installed (apt-get install wget)", retryable=False)
    before = snapshot_mirror(dest)  # the files as they are: a page that another host answers gets its copy back
    started = time.time()
    listed = refresh_urls(site, dest, log_path.parent, started)  # None: a full crawl
    known = dict(saved_urls(log_path.parent)) if listed is not None else {}  # file -> URL, before this crawl
    url_file = log_path.parent / (temp_name("refresh-urls.txt") + TEMP_SUFFIX)
    with log_path.open("w", encoding="utf-8", errors="replace") as log:
        try:
            warc_out = warc.warc_out_args(dest, log_path.parent) if site.warc else []  # also write WARC
            refresh = []
            if listed is not None:
                url_file.write_text("".join(u + "\n" for u in listed), encoding="utf-8")
                refresh = ["-i", str(url_file)]
            code, capped = run_capped(wget_args(site, dest, listed is not None) + warc_out + refresh, log, log_path,
                                      site)
        finally:
            url_file.unlink(missing_ok=True)
    raw = log_path.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    try:  # file names at byte level: a name wget cut inside a character must still match the file
        saves = parse_saves(raw.decode("utf-8", "surrogateescape"), dest)
        seen, urls, saved_warnings = settle_saves(saves, dest, before, site.start_urls[0], crawl_domains(site, dest))
    finally:
        if before is not None:
            shutil.rmtree(before, ignore_errors=True)
    save_urls(log_path.parent, dest, urls)
    # A refresh asks each URL once; a file an earlier crawl saved from that URL under a second name (wget retries a
    # link it decoded from Shift_JIS, ‾ for ~, with the raw bytes) is reached too when the URL answered.
    reached = set(urls.values())
    seen |= {rel for rel, url in known.items() if url in reached and (dest / rel).is_file()}
    result = MirrorResult(root=dest, exit_code=code, seen=seen,
                          errors={redact_url(url): status for url, status in parse_wget_errors(text).items()})
    cut_short = capped
    if capped:
        result.warnings.append(f"stopped after {site.max_pages} pages (max_pages); crawl incomplete: raise "
                               "max_pages, or reject the endless part (a calendar, a search) with reject")
    if code == -1:
        result.warnings.append(f"wget stopped after {site.timeout_s}s (time limit); crawl incomplete")
        cut_short = True
    elif code == 8 and any(status not in GONE or is_page_url(url) for url, status in result.errors.items()):
        result.warnings.append("some URLs answered with an HTTP error (see wget.log)")
    elif code not in _USABLE_EXIT:
        result.warnings.append(f"wget exited with code {code} (see {log_path})")
    if "Download quota of" in text and "EXCEEDED" in text:
        result.warnings.append(f"download quota ({site.quota}) exceeded; crawl incomplete")
        cut_short = True
    result.warnings += error_warnings(result.errors, dest=dest) + saved_warnings
    if listed is None and code != -1:  # a full crawl asks every start URL; a refresh asks only what it lists
        result.warnings += silent_starts(saves, text, site.start_urls)
    has_files = any(p.is_file() for p in dest.rglob("*"))
    if not has_files:
        url, cause, retryable = failure_cause(text, code, site.timeout_s)
        if saved_warnings and code in _USABLE_EXIT:  # all it got came from another host (a redirect)
            url, cause, retryable = "", saved_warnings[0], False
        raise MirrorError(f"wget fetched nothing from {redact_url(url or site.start_urls[0])}: {cause} "
                          f"(see {shown_path(log_path)})", retryable)
    if site.hosts and not cut_short:
        crawl_old_host_links(site, dest, log_path.parent, result)
    # Unreliable crawl: what it reached is fresh, but a page it did not reach is not gone.
    result.complete = code in _USABLE_EXIT and bool(result.seen) and not cut_short
    age_fresh_saves(raw.decode("utf-8", "surrogateescape"), started)
    save_crawl(log_path.parent, asked_urls(text, site.start_urls), listed, result.complete, started, text)
    # A page that failed with a server error is not gone either: keep its earlier copy (if there is one).
    for url, status in result.errors.items():
        if status not in GONE:
            result.seen |= {rel for rel in url_to_rel(url) if (dest / rel).is_file()}
    return result


def copy_local(source: Path, dest: Path) -> MirrorResult:
    """Mirror a local folder: copy regular files, refusing symlinks and paths that escape it."""
    source = source.resolve()
    result = MirrorResult(root=dest)
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source)
        if path.is_symlink():
            result.warnings.append(f"refused symlink {rel}")
            continue
        if not path.is_file():
            continue
        if not path.resolve().is_relative_to(source):
            result.warnings.append(f"refused path outside the source {rel}")
            continue
        try:
            target = safe_path(dest, rel.as_posix())
        except UnsafePath as exc:  # a backslash or a drive in a name: no other stage could hold it safely
            result.warnings.append(f"refused {exc}")
            continue
        stat = path.stat()
        if not target.exists() or target.stat().st_size != stat.st_size or \
                target.stat().st_mtime_ns != stat.st_mtime_ns:
            _atomic_copy(path, target)
        result.seen.add(rel.as_posix())
    return result


def _atomic_copy(source: Path, target: Path) -> None:
    """copy2 via a temp file + rename: a killed copy never leaves a partial file under the real name."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=temp_name(), suffix=TEMP_SUFFIX)
    os.close(fd)
    try:
        shutil.copy2(source, tmp)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def crawl_old_host_links(site: SiteConfig, dest: Path, log_dir: Path, result: MirrorResult, rounds: int = 3) -> None:
    """Fetch from the crawled host what the pages link to under the site's old host names (`hosts`), and what those
    pages link to, until nothing new turns up (at most `rounds` more wget runs, logged to wget-hosts.log)."""
    asked: set[str] = set()
    for _ in range(rounds):
        pages = [rel for rel in result.seen if (dest / rel).suffix.lower() in (".html", ".htm")]
        urls = {u for u in warc.old_host_urls(dest, pages, site.hosts, site.start_urls[0])
                if u not in asked and not url_to_rel(u) & result.seen}
        if not urls:
            return
        asked |= urls
        log_path = log_dir / "wget-hosts.log"
        args = wget_args(site, dest)[:-len(site.start_urls)] + \
            (warc.warc_out_args(dest, log_dir, "-hosts") if site.warc else []) + sorted(urls)
        with log_path.open("w", encoding="utf-8", errors="replace") as log:
            try:
                subprocess.run(args, stdout=log, stderr=subprocess.STDOUT, timeout=site.timeout_s, check=False,
                               preexec_fn=functools.partial(limit_file_size, max_file_bytes(site.quota)))
            except subprocess.TimeoutExpired:
                result.warnings.append(f"wget stopped after {site.timeout_s}s fetching old-host links")
                return
        text = log_path.read_text(encoding="utf-8", errors="replace")
        new = parse_wget_log(text, dest) - result.seen
        result.seen |= new
        result.errors.update(parse_wget_errors(text))
        result.warnings.append(f"{len(urls)} links to the old host names ({', '.join(site.hosts)}) fetched from "
                               f"{urlparse(site.start_urls[0]).netloc}: {len(new)} more files")


def mirror_site(site: SiteConfig, dest: Path, log_dir: Path) -> MirrorResult:
    """Stage entry point: wget for URL sites, a checked copy for local-folder sites, captures for WARC sites."""
    if site.is_local:
        return copy_local(Path(site.local_path), dest)
    if site.is_warc:
        try:
            done = warc.ingest(site.warc_files, site.hosts, site.capture_until, dest, log_dir)
        except warc.WarcError as exc:
            raise MirrorError(str(exc), retryable=False) from None
        return MirrorResult(root=dest, seen=done.seen, warnings=done.warnings)
    return run_wget(site, dest, log_dir / "wget.log")
