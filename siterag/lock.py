"""One run of a site at a time: an exclusive `flock` on `<data_dir>/locks/<site>.lock`, held while the site's flow
(or `reindex`, `forget`) works on it. A second run of the same site does not wait: it stops at once with
`site X is being archived by another run (pid N)`. The kernel releases the lock when its holder exits, however
it exits (kill -9 included), so a crash never leaves a site locked."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class SiteBusyError(OSError):
    """Another process holds the site's lock."""


def lock_path(data_dir: Path, site: str) -> Path:
    return Path(data_dir) / "locks" / f"{site}.lock"


@contextmanager
def site_lock(data_dir: Path, site: str) -> Iterator[None]:
    """Hold the site's lock for the `with` block; SiteBusyError at once when another process holds it."""
    path = lock_path(data_dir, site)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            raise SiteBusyError(f"site {site} is being archived by another run (pid {holder}); "
                                "run it again when that one has finished") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock (the file stays: removing it would race with the next run)
