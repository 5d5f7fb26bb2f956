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

from siterag.config import ConfigError


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


class SiteClaimedError(ConfigError):
    """Another configuration file archives a site of the same name into the same data folder."""


def claim_site(data_dir: Path, site: str, config_path: Path) -> None:
    """Record that `config_path` archives `site` into `data_dir` (`<data_dir>/locks/<site>.owner`). When another
    config file that still exists names the same site with the same data folder, raise SiteClaimedError: each
    would remove the other's documents as vanished. A config file that moved, or no longer has the site, gives
    the site up."""
    from siterag.config import load_config

    path = Path(data_dir) / "locks" / f"{site}.owner"
    mine = str(Path(config_path).resolve())
    other = path.read_text(encoding="utf-8").strip() if path.is_file() else ""
    if other and other != mine and Path(other).is_file():
        try:
            theirs = load_config(other)
            claimed = any(s.name == site for s in theirs.sites) and \
                Path(theirs.data_dir).resolve() == Path(data_dir).resolve()
        except (ConfigError, OSError):
            claimed = False
        if claimed:
            raise SiteClaimedError(f"site {site} in {data_dir} is also archived by {other}; two configs that share "
                                   "a data_dir must not use the same site name (rename one, or give it its own "
                                   "data_dir)")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(mine + "\n", encoding="utf-8")
