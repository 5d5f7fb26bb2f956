"""Stage 1: mirror a site with real wget (or take a local folder that already is a mirror)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from siterag.config import SiteConfig
from siterag.layout import TEMP_PREFIX

# wget exit codes that still leave a usable mirror: 0 ok, 8 = some pages answered 4xx/5xx.
_USABLE_EXIT = {0, 8}
_SAVED_RE = re.compile(r"(?:Saving to:|Server file no newer than local file|File) [‘'`\"](.+?)[’'\"]")
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


@dataclass
class MirrorResult:
    """What one mirror run did."""

    root: Path
    exit_code: int = 0
    seen: set[str] = field(default_factory=set)  # relative paths this crawl reached
    warnings: list[str] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)  # URL -> HTTP status of the URLs that failed
    complete: bool = True  # False when wget failed or was cut short: unseen pages are not gone


def wget_args(site: SiteConfig, dest: Path) -> list[str]:
    """The wget argument list for one site (no shell involved). No `-k`: it breaks re-runs."""
    host = urlparse(site.start_urls[0]).hostname or ""
    args = [
        "wget", "--mirror", "--no-if-modified-since", "--adjust-extension", "--page-requisites",
        "--no-parent", "--restrict-file-names=windows", "-nH", "-e", "robots=off",
        "--domains", host, "--progress=dot:giga", "--tries=2", "--timeout=30",
        "--quota", site.quota, "--user-agent", site.user_agent, "-P", str(dest),
    ]
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


def error_warnings(errors: dict[str, int], limit: int = 10) -> list[str]:
    """Readable report lines for the URLs that failed, gone pages (404/410) apart from kept ones; gone images and
    other files that are not pages are one count."""
    files_gone = sorted(url for url, status in errors.items() if status in GONE and not is_page_url(url))
    errors = {url: status for url, status in errors.items() if url not in set(files_gone)}
    lines = []
    for url, status in sorted(errors.items())[:limit]:
        what = "page gone" if status in GONE else "kept the earlier copy"
        lines.append(f"HTTP {status} for {url} ({what})")
    if len(errors) > limit:
        lines.append(f"... and {len(errors) - limit} more URLs with HTTP errors (see wget.log)")
    if files_gone:
        what = "file that is not a page is" if len(files_gone) == 1 else "files that are not pages are"
        lines.append(f"{len(files_gone)} linked {what} missing (HTTP 404/410: images, downloads, ...), e.g. "
                     f"{files_gone[0]} (see wget.log)")
    return lines


def run_wget(site: SiteConfig, dest: Path, log_path: Path) -> MirrorResult:
    """Mirror `site` into `dest`; keep an earlier mirror if wget fails."""
    dest.mkdir(parents=True, exist_ok=True)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    if shutil.which("wget") is None:
        raise MirrorError("wget is not installed (apt-get install wget)", retryable=False)
    with log_path.open("w", encoding="utf-8", errors="replace") as log:
        try:
            proc = subprocess.run(wget_args(site, dest), stdout=log, stderr=subprocess.STDOUT,
                                  timeout=site.timeout_s, check=False)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            code = -1
    text = log_path.read_text(encoding="utf-8", errors="replace")
    result = MirrorResult(root=dest, exit_code=code, seen=parse_wget_log(text, dest),
                          errors=parse_wget_errors(text))
    cut_short = False
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
    result.warnings += error_warnings(result.errors)
    has_files = any(p.is_file() for p in dest.rglob("*"))
    if not has_files:
        url, cause, retryable = failure_cause(text, code, site.timeout_s)
        raise MirrorError(f"wget fetched nothing from {url or site.start_urls[0]}: {cause} "
                          f"(see {shown_path(log_path)})", retryable)
    # Unreliable crawl: what it reached is fresh, but a page it did not reach is not gone.
    result.complete = code in _USABLE_EXIT and bool(result.seen) and not cut_short
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
        target = dest / rel
        stat = path.stat()
        if not target.exists() or target.stat().st_size != stat.st_size or \
                target.stat().st_mtime_ns != stat.st_mtime_ns:
            _atomic_copy(path, target)
        result.seen.add(rel.as_posix())
    return result


def _atomic_copy(source: Path, target: Path) -> None:
    """copy2 via a temp file + rename: a killed copy never leaves a partial file under the real name."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f"{TEMP_PREFIX}{os.getpid()}-")
    os.close(fd)
    try:
        shutil.copy2(source, tmp)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def mirror_site(site: SiteConfig, dest: Path, log_dir: Path) -> MirrorResult:
    """Stage entry point: wget for URL sites, a checked copy for local-folder sites."""
    if site.is_local:
        return copy_local(Path(site.local_path), dest)
    return run_wget(site, dest, log_dir / "wget.log")
