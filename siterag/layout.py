"""Where each stage keeps its files: site-centric folders under the data dir."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path


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

    @property
    def lancedb(self) -> Path:
        return self.data_dir / "lancedb"


def atomic_write(path: Path, data: bytes | str) -> None:
    """Write via a temp file + rename so a crash never leaves a partial file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def append_log(path: Path, line: str) -> None:
    """Append one line to a log file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(line.rstrip("\n") + "\n")
