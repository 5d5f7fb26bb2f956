"""Where each stage keeps its files: site-centric folders under the data dir."""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

TEMP_PREFIX = ".tmp-"
_TEMP_RE = re.compile(r"^\.tmp-(\d+)-")


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

    The temp file is named `.tmp-<pid>-…` so that a run killed mid-write leaves a file that the next run
    can tell from one a live process is still writing (sweep_temp_files)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f"{TEMP_PREFIX}{os.getpid()}-", suffix=path.suffix)
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
        for path in root.rglob(f"{TEMP_PREFIX}*"):
            match = _TEMP_RE.match(path.name)
            if match and path.is_file() and not _alive(int(match.group(1))):
                path.unlink(missing_ok=True)
                removed.append(path)
    return removed


def is_temp_file(rel: str) -> bool:
    """True for a path (relative) whose last part is an atomic_write temp file."""
    return rel.rsplit("/", 1)[-1].startswith(TEMP_PREFIX)


def append_log(path: Path, line: str) -> None:
    """Append one line to a log file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(line.rstrip("\n") + "\n")
