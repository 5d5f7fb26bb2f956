"""Where the LanceDB index lives: a local folder (default `data/lancedb/`) or object storage (`s3://…`, `gs://…`,
`az://…`) with the storage options of the lance object store (endpoint, region, credentials, allow_http)."""

from __future__ import annotations

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
