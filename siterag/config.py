"""Load and validate `sites.toml`: which sites to archive and how."""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from siterag.store import REMOTE_SCHEMES, IndexStore

EXTRACT_MODES = ("llm", "heuristic", "hybrid")
TASK_RUNNERS = ("thread", "dask")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class ConfigError(ValueError):
    """A user mistake in the configuration; shown without a traceback."""


@dataclass(frozen=True)
class LLMConfig:
    """An OpenAI-compatible chat endpoint (llama.cpp's llama-server by default)."""

    base_url: str = ""  # e.g. http://127.0.0.1:8080/v1 ; "" = no LLM
    base_urls: tuple[str, ...] = ()  # several endpoints: requests spread over them (siterag/llm_pool.py)
    model: str = "local"
    embedded: bool = False  # start llama-server with the packaged Gemma 3 270M ourselves
    embedded_port: int = 8089
    timeout: float = 120.0
    max_tokens: int = 256
    retries: int = 2
    context_tokens: int = 2048
    max_concurrent: int = 1  # LLM requests at once over all site flows (Prefect global concurrency limit)
    # LLM-written title/category/tags/summary. load_config defaults it to true only for a user's endpoint
    # (base_url / base_urls): the packaged 270M model never passes the checks and costs ~9 s a page.
    enrich: bool = True

    @property
    def enabled(self) -> bool:
        return bool(self.base_url) or bool(self.base_urls) or self.embedded

    def url(self) -> str:
        return self.urls()[0]

    def urls(self) -> tuple[str, ...]:
        """Every endpoint: `base_urls`, else `base_url`, else the embedded server."""
        if self.base_urls:
            return tuple(u.rstrip("/") for u in self.base_urls)
        if self.base_url:
            return (self.base_url.rstrip("/"),)
        return (f"http://127.0.0.1:{self.embedded_port}/v1",)


@dataclass(frozen=True)
class SiteConfig:
    """One site: where its pages come from and how they are processed."""

    name: str
    start_urls: tuple[str, ...] = ()
    local_path: str = ""
    accept: tuple[str, ...] = ()
    reject: tuple[str, ...] = ()
    quota: str = "200m"
    wait: float = 0.0
    rate_limit: str = ""
    user_agent: str = "siterag/0.1 (+archiver)"
    max_depth: int = 0  # 0 = wget's default for --mirror (infinite)
    timeout_s: int = 1800
    extract_mode: str = ""
    schedule: str = "0 3 * * *"
    categories: tuple[str, ...] = ()  # when given, each page's category is the nearest of these (by the embedder)

    @property
    def is_local(self) -> bool:
        return bool(self.local_path)

    def stage_key(self, *fields: str) -> str:
        """Stable hash of the named settings, for cache keys of one stage."""
        data = asdict(self)
        picked = {f: data[f] for f in fields}
        return hashlib.sha256(json.dumps(picked, sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Config:
    """The whole configuration file."""

    data_dir: Path
    sites: tuple[SiteConfig, ...]
    llm: LLMConfig = field(default_factory=LLMConfig)
    embedder: str = "use-multilingual-v3"
    batch_size: int = 25
    task_runner: str = "thread"  # "dask": extract batches run in parallel on a local Dask cluster
    dask_workers: int = 2
    index: IndexStore | None = None  # [index] uri + storage_options; None = <data_dir>/lancedb

    @property
    def store(self) -> IndexStore:
        """Where the LanceDB index lives."""
        return self.index or IndexStore(str(self.data_dir / "lancedb"))

    def site(self, name: str) -> SiteConfig:
        for s in self.sites:
            if s.name == name:
                return s
        known = ", ".join(s.name for s in self.sites) or "(none)"
        raise ConfigError(f"unknown site {name!r}; sites in the config: {known}")


def _tuple(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ConfigError(f"{where}: expected a string or a list of strings")


def _site(raw: dict, defaults: dict, base: Path, llm: LLMConfig) -> SiteConfig:
    merged = {**defaults, **raw}
    name = merged.get("name")
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ConfigError(f"site name {name!r}: use letters, digits, '.', '_' or '-'")
    known = set(SiteConfig.__dataclass_fields__)
    unknown = set(merged) - known
    if unknown:
        raise ConfigError(f"site {name}: unknown setting(s) {', '.join(sorted(unknown))}")
    for key in ("start_urls", "accept", "reject"):
        if key in merged:
            merged[key] = _tuple(merged[key], f"site {name}.{key}")
    if "categories" in merged:
        cats = merged["categories"]
        if not isinstance(cats, list) or not all(isinstance(c, str) and c.strip() for c in cats):
            raise ConfigError(f"site {name}.categories: expected a list of non-empty strings")
        merged["categories"] = tuple(dict.fromkeys(c.strip() for c in cats))
    if bool(merged.get("start_urls")) == bool(merged.get("local_path")):
        raise ConfigError(f"site {name}: give either start_urls or local_path (exactly one)")
    for url in merged.get("start_urls", ()):
        parsed = urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ConfigError(f"site {name}: {url!r} is not an http(s) URL")
    hosts = {urlparse(u).hostname for u in merged.get("start_urls", ())}
    if len(hosts) > 1:
        raise ConfigError(f"site {name}: start_urls span several hosts ({', '.join(sorted(hosts))})")
    if merged.get("local_path"):
        path = Path(merged["local_path"]).expanduser()
        if not path.is_absolute():
            path = (base / path).resolve()
        if not path.is_dir():
            raise ConfigError(f"site {name}: local_path {str(path)!r} is not a folder")
        merged["local_path"] = str(path)
    mode = merged.get("extract_mode") or "heuristic"  # the measured best with a small model (benchmarks/)
    if mode not in EXTRACT_MODES:
        raise ConfigError(f"site {name}: extract_mode must be one of {', '.join(EXTRACT_MODES)}")
    if mode in ("llm", "hybrid") and not llm.enabled:
        raise ConfigError(f"site {name}: extract_mode {mode!r} needs an [llm] base_url or embedded = true")
    merged["extract_mode"] = mode
    try:
        return SiteConfig(**merged)
    except TypeError as exc:
        raise ConfigError(f"site {name}: {exc}") from None


def load_config(path: str | Path) -> Config:
    """Read a `sites.toml`; raise ConfigError with a readable message on any mistake."""
    path = Path(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file {str(path)!r} not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    base = path.resolve().parent
    defaults = dict(raw.get("defaults", {}))
    data_dir = Path(defaults.pop("data_dir", "data"))
    batch_size = int(defaults.pop("batch_size", 25))
    embedder = str(defaults.pop("embedder", "use-multilingual-v3"))
    task_runner = str(defaults.pop("task_runner", "thread"))
    dask_workers = defaults.pop("dask_workers", 2)
    if task_runner not in TASK_RUNNERS:
        raise ConfigError(f"[defaults]: task_runner must be one of {', '.join(TASK_RUNNERS)}")
    if not isinstance(dask_workers, int) or dask_workers < 1:
        raise ConfigError("[defaults]: dask_workers must be a whole number >= 1")
    if not data_dir.is_absolute():
        data_dir = (base / data_dir).resolve()
    llm_raw = dict(raw.get("llm", {}))
    if "base_urls" in llm_raw:
        llm_raw["base_urls"] = _tuple(llm_raw["base_urls"], "[llm] base_urls")
    llm_raw.setdefault("enrich", bool(llm_raw.get("base_url") or llm_raw.get("base_urls")))
    try:
        llm = LLMConfig(**llm_raw)
    except TypeError as exc:
        raise ConfigError(f"[llm]: {exc}") from None
    if not isinstance(llm.max_concurrent, int) or llm.max_concurrent < 1:
        raise ConfigError("[llm]: max_concurrent must be a whole number >= 1")
    index = _index(raw.get("index"), base)
    sites_raw = raw.get("site", [])
    if not isinstance(sites_raw, list) or not sites_raw:
        raise ConfigError(f"{path}: no [[site]] entries")
    sites = tuple(_site(s, defaults, base, llm) for s in sites_raw)
    names = [s.name for s in sites]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise ConfigError(f"duplicate site name(s): {', '.join(sorted(dupes))}")
    return Config(data_dir=data_dir, sites=sites, llm=llm, embedder=embedder, batch_size=batch_size,
                  task_runner=task_runner, dask_workers=dask_workers, index=index)


def _index(raw: object, base: Path) -> IndexStore | None:
    """The [index] table: `uri` (a folder, or s3:// gs:// az://) and `storage_options` (strings)."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ConfigError("[index]: expected a table with uri and storage_options")
    unknown = set(raw) - {"uri", "storage_options"}
    if unknown:
        raise ConfigError(f"[index]: unknown setting(s) {', '.join(sorted(unknown))}")
    uri = raw.get("uri", "")
    if not isinstance(uri, str) or not uri:
        raise ConfigError("[index]: uri must be a folder or an s3:// gs:// az:// URI")
    if "://" in uri:
        scheme = uri.split("://", 1)[0]
        if scheme not in REMOTE_SCHEMES:
            raise ConfigError(f"[index]: uri scheme {scheme!r} is not one of {', '.join(REMOTE_SCHEMES)}")
    else:
        path = Path(uri).expanduser()
        uri = str(path if path.is_absolute() else (base / path).resolve())
    options = raw.get("storage_options", {})
    if not isinstance(options, dict) or any(isinstance(v, (dict, list)) for v in options.values()):
        raise ConfigError("[index]: storage_options must be a table of plain values")
    # TOML true/1 become the strings the object store reads ("true", "1").
    plain = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in options.items()}
    return IndexStore(uri, tuple(sorted(plain.items())))
