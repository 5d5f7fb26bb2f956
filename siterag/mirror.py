"""Stage 1: mirror a site with real wget (or take a local folder that already is a mirror)."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from siterag.config import SiteConfig

# wget exit codes that still leave a usable mirror: 0 ok, 8 = some pages answered 4xx/5xx.
_USABLE_EXIT = {0, 8}
_SAVED_RE = re.compile(r"(?:Saving to:|Server file no newer than local file|File) [‘'`\"](.+?)[’'\"]")


class MirrorError(RuntimeError):
    """wget could not produce a mirror and there is no earlier one to keep."""


@dataclass
class MirrorResult:
    """What one mirror run did."""

    root: Path
    exit_code: int = 0
    seen: set[str] = field(default_factory=set)  # relative paths this crawl reached
    warnings: list[str] = field(default_factory=list)


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
    result = MirrorResult(root=dest, exit_code=code, seen=parse_wget_log(text, dest))
    if code == -1:
        result.warnings.append(f"wget stopped after {site.timeout_s}s (time limit)")
    elif code == 8:
        result.warnings.append("some URLs answered with an HTTP error (see wget.log)")
    elif code not in _USABLE_EXIT:
        result.warnings.append(f"wget exited with code {code} (see {log_path})")
    has_files = any(p.is_file() for p in dest.rglob("*"))
    if not has_files:
        raise MirrorError(f"wget fetched nothing for {site.name} (exit {code}); see {log_path}")
    if code not in _USABLE_EXIT or not result.seen:
        result.seen = set()  # unreliable crawl: do not treat unseen pages as removed
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
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        result.seen.add(rel.as_posix())
    return result


def mirror_site(site: SiteConfig, dest: Path, log_dir: Path) -> MirrorResult:
    """Stage entry point: wget for URL sites, a checked copy for local-folder sites."""
    if site.is_local:
        return copy_local(Path(site.local_path), dest)
    return run_wget(site, dest, log_dir / "wget.log")
