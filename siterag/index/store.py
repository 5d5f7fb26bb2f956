"""Where the LanceDB index lives: a local folder (default `data/lancedb/`) or object storage (`s3://…`, `gs://…`,
`az://…`) with the storage options of the lance object store (endpoint, region, credentials, allow_http)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import lancedb

REMOTE_SCHEMES = ("s3", "s3+ddb", "gs", "az")
# Tables created through this store keep their row ids when other rows change (per-site syncs rely on it).
STABLE_ROW_IDS = {"new_table_enable_stable_row_ids": "true"}


@dataclass(frozen=True)
class IndexStore:
    """A LanceDB database URI and the storage options to open it with."""

    uri: str
    options: tuple[tuple[str, str], ...] = ()

    @classmethod
    def at(cls, where: str | Path | IndexStore) -> IndexStore:
        """The store itself, or a local folder / URI given as a string or path."""
        return where if isinstance(where, IndexStore) else cls(str(where))

    @property
    def remote(self) -> bool:
        return "://" in self.uri

    def exists(self) -> bool:
        """False only for a local folder that is not there yet (a bucket is asked when opened)."""
        return self.remote or Path(self.uri).is_dir()

    def connect(self) -> lancedb.DBConnection:
        import lancedb

        return lancedb.connect(self.uri, storage_options={**STABLE_ROW_IDS, **dict(self.options)})

    def __str__(self) -> str:
        return self.uri


class IndexStoreError(OSError):
    """The index cannot be read (a table's file lost or corrupt) or written (disk full): one line for the user."""


_LANCE_PREFIX = re.compile(r"^(?:(?:lance error|External error|LanceError\(\w+\)|Lance error):\s*)+")
_RUST_PLACE = re.compile(r",\s*(?:/\S+|\S+\.rs):\d+:\d+\s*$")


def lance_message(exc: BaseException) -> str:
    """A LanceDB error as one line: without the `lance error: LanceError(IO):` prefixes and the Rust source place."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return _RUST_PLACE.sub("", _LANCE_PREFIX.sub("", text))


def is_lance_error(exc: BaseException) -> bool:
    """Whether an exception comes from the LanceDB / lance storage layer (an I/O or format failure)."""
    if isinstance(exc, OSError):
        return True
    text = str(exc)
    if isinstance(exc, ValueError):
        return "Lance file" in text or text.startswith("Invalid input")
    return isinstance(exc, RuntimeError) and (
        text.startswith(("lance error", "External error", "LanceError")) or "os error" in text or "Not found:" in text)


# What lance says of a table whose files are lost or cut short (not of a bucket that is slow or refuses access).
_DAMAGE_RE = re.compile(r"Not found|not appear to be a Lance file|failed to fill whole buffer|sufficient data|"
                        r"corrupt|unexpected end", re.IGNORECASE)


def is_damage(exc: BaseException) -> bool:
    """Whether a read failed because the table's files are lost or corrupt (rebuilding it is the cure)."""
    return is_lance_error(exc) and bool(_DAMAGE_RE.search(str(exc)))


def index_problem(store: IndexStore | str, doing: str, exc: BaseException) -> str:
    """What a failed read or write of the index means for the user, in one line."""
    why = lance_message(exc)
    where = f"index {store}" if str(store) else "the index"
    if doing == "read":
        return f"{where}: cannot read it ({why}); run `siterag reindex` to rebuild it from the corpus"
    return f"{where}: write failed ({why}); the rows written before stay as they were: free space and rerun"


@contextmanager
def lance_errors(store: IndexStore | str, doing: str) -> Iterator[None]:
    """Turn a LanceDB I/O error while `doing` ("read" or "write") the index into an IndexStoreError."""
    try:
        yield
    except IndexStoreError:
        raise
    except (OSError, RuntimeError, ValueError) as exc:
        if not is_lance_error(exc):
            raise
        raise IndexStoreError(index_problem(store, doing, exc)) from exc
