"""Stage 1: mirror a site with real wget (or take a local folder that already is a mirror)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
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


class MirrorError(RuntimeError):
    """wget could not produce a mirror and there is no earlier one to keep."""


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
    url = ""
    for line in text.splitlines():
        request = _REQUEST_RE.match(line)
        if request:
            url = request.group(1)
            continue
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
    """Readable report lines for the URLs that failed, gone pages (404/410) apart from kept ones."""
    lines = []
    for url, status in sorted(errors.items())[:limit]:
        what = "page gone" if status in GONE else "kept the earlier copy"
        lines.append(f"HTTP {status} for {url} ({what})")
    if len(errors) > limit:
        lines.append(f"... and {len(errors) - limit} more URLs with HTTP errors (see wget.log)")
    return lines


def run_wget(site: SiteConfig, dest: Path, log_path: Path) -> MirrorResult:
    """Mirror `site` into `dest`; keep an earlier mirror if wget fails."""
    dest.mkdir(parents=True, exist_ok=True)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    if shutil.which("wget") is None:
        raise MirrorError("wget is not installed (apt-get install wget)")
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
    elif code == 8:
        result.warnings.append("some URLs answered with an HTTP error (see wget.log)")
    elif code not in _USABLE_EXIT:
        result.warnings.append(f"wget exited with code {code} (see {log_path})")
    if "Download quota of" in text and "EXCEEDED" in text:
        result.warnings.append(f"download quota ({site.quota}) exceeded; crawl incomplete")
        cut_short = True
    result.warnings += error_warnings(result.errors)
    has_files = any(p.is_file() for p in dest.rglob("*"))
    if not has_files:
        raise MirrorError(f"wget fetched nothing for {site.name} (exit {code}); see {log_path}")
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
