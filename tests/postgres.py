"""A throw-away PostgreSQL cluster on 127.0.0.1 (Debian's postgresql package), for Prefect's database."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

USER = "siterag"


def bin_dir() -> Path | None:
    """Where initdb and pg_ctl are (Debian keeps them under /usr/lib/postgresql/<version>/bin)."""
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if versions:
        return Path(versions[-1]).parent
    found = shutil.which("initdb")  # other systems: on PATH with pg_ctl, createdb and psql
    return Path(found).resolve().parent if found else None


@contextmanager
def temporary_postgres(port: int, database: str = "prefect") -> Iterator[tuple[str, Callable[[str], str]]]:
    """Start a cluster with one database; yields (SQLAlchemy asyncpg URL, psql(sql) -> stdout); removes it after.

    PostgreSQL refuses to run as root: as root the cluster belongs to the `postgres` system user."""
    bindir = bin_dir()
    if bindir is None:
        raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
    root = Path(tempfile.mkdtemp(prefix="siterag-pg-"))  # not under a 0700 pytest dir the server cannot enter
    data = root / "data"
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if prefix:
        shutil.chown(root, "postgres")

    def pg(tool: str, *args: str) -> subprocess.CompletedProcess:
        res = subprocess.run([*prefix, str(bindir / tool), *args], capture_output=True, text=True, timeout=120)
        if res.returncode:
            raise RuntimeError(f"{tool} failed: {res.stdout[-1500:]}{res.stderr[-1500:]}")
        return res

    pg("initdb", "-D", str(data), "-U", USER, "-A", "trust", "-E", "UTF8", "--no-locale")
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {root} -c fsync=off -c max_connections=200"
    pg("pg_ctl", "-D", str(data), "-l", str(root / "server.log"), "-o", options, "-w", "-t", "60", "start")
    try:
        pg("createdb", "-h", "127.0.0.1", "-p", str(port), "-U", USER, database)

        def psql(sql: str) -> str:
            return pg("psql", "-h", "127.0.0.1", "-p", str(port), "-U", USER, "-d", database, "-At", "-c", sql).stdout

        yield f"postgresql+asyncpg://{USER}@127.0.0.1:{port}/{database}", psql
    finally:
        subprocess.run([*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
                       capture_output=True, timeout=120)
        shutil.rmtree(root, ignore_errors=True)
