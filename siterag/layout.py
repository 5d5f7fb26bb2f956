"""Where each stage keeps its files: site-centric folders under the data dir."""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

TEMP_PREFIX = ".tmp-"
TEMP_SUFFIX = ".siterag-tmp"  # with the prefix: a name no web page has (`.tmp-9-notes.html` is a page)
_TEMP_RE = re.compile(r"^\.tmp-(\d+)-.*\.siterag-tmp$", re.DOTALL)
_DRIVE_RE = re.compile(r"^[A-Za-z]:")


class UnsafePath(ValueError):
    """A relative path from a URL, a WARC record, a page or a saved file that would leave its folder."""


def safe_path(root: Path, rel: str) -> Path:
    """`root / rel`, once `rel` is shown to stay inside `root`: a plain relative POSIX path (no `..` or `.`
    parts, no empty part, no backslash, NUL, drive or leading slash) none of whose parts under `root` is a
    symlink. Every stage that writes or deletes a file by a name it did not make itself goes through here."""
    if not rel or "\x00" in rel or "\\" in rel or rel.startswith("/") or _DRIVE_RE.match(rel):
        raise UnsafePath(f"unsafe path {rel!r}")
    parts = rel.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise UnsafePath(f"unsafe path {rel!r}")
    path = root
    for part in parts:
        path = path / part
        if path.is_symlink():
            raise UnsafePath(f"path through a symlink {rel!r}")
    return path


def temp_name(rel_or_name: str = "") -> str:
    """The name prefix + suffix of a temp file of this process (see sweep_temp_files)."""
    return f"{TEMP_PREFIX}{os.getpid()}-{rel_or_name}"


@dataclass(frozen=True)
class SiteLayout:
    """The per-stage folders of one site."""

    data_dir: Path
    site: str

    @property
    def mirror(self) -> Path:
        return self.data_dir / "mirror" / self.site

    @property
    def normalized(self) -> Path:
        return self.data_dir / "normalized" / self.site

    @property
    def corpus(self) -> Path:
        return self.data_dir / "corpus" / self.site

    @property
    def logs(self) -> Path:
        return self.data_dir / "logs" / self.site


def read_saved(path: Path) -> dict:
    """A JSON object an earlier run saved with atomic_write; {} when it is missing, unreadable or not an object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def atomic_write(path: Path, data: bytes | str) -> None:
    """Write via a temp file + rename so a crash never leaves a partial file.

    The temp file is named `.tmp-<pid>-….siterag-tmp` so that a run killed mid-write leaves a file that the next run
    can tell from one a live process is still writing (sweep_temp_files)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=temp_name(), suffix=TEMP_SUFFIX)
    try:
        os.fchmod(fd, 0o644)  # mkstemp makes 0600 files: a corpus others cannot read
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_temp_files(*roots: Path) -> list[Path]:
    """Delete temp files that a killed process left behind under `roots`; return them.

    Files of processes still alive (another run writing right now) and names without a pid are left alone."""
    removed = []
    for root in roots:
        if not root.is_dir():
            continue
        for path in root.rglob(f"{TEMP_PREFIX}*{TEMP_SUFFIX}"):
            match = _TEMP_RE.match(path.name)
            if match and path.is_file() and not _alive(int(match.group(1))):
                path.unlink(missing_ok=True)
                removed.append(path)
    return removed


def is_temp_file(rel: str) -> bool:
    """True for a path (relative) whose last part is an atomic_write temp file."""
    return bool(_TEMP_RE.match(rel.rsplit("/", 1)[-1]))


def append_log(path: Path, line: str) -> None:
    """Append one line to a log file; controls in it (a file name holding a newline) are shown escaped (`\\n`),
    so that it stays one line and cannot forge another."""
    from siterag.printable import printable

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(printable(line.rstrip("\n")) + "\n")
