"""Load and validate `sites.toml`: which sites to archive and how."""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from siterag.index.store import REMOTE_SCHEMES, IndexStore

EXTRACT_MODES = ("llm", "heuristic", "hybrid")
TASK_RUNNERS = ("thread", "dask")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")  # \Z: "$" would let a final newline through


class ConfigError(ValueError):
    """A user mistake in the configuration; shown without a traceback."""


@dataclass(frozen=True)
class LLMConfig:
    """An OpenAI-compatible chat endpoint (llama.cpp's llama-server by default)."""

    base_url: str = ""  # e.g. http://127.0.0.1:8080/v1 ; "" = no LLM
    base_urls: tuple[str, ...] = ()  # several endpoints: requests spread over them (siterag/llm/pool.py)
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
    max_pages: int = 10_000  # a crawl stops after saving this many pages (0 = no limit): a calendar trap ends
    timeout_s: int = 1800
    extract_mode: str = ""
    schedule: str = "0 3 * * *"
    categories: tuple[str, ...] = ()  # when given, each page's category is the nearest of these (by the embedder)
    # WARC in and out (siterag/acquire/warc.py): WARC/WACZ files (globs, absolute) as the site's source instead of
    # start_urls/local_path; `warc`: a crawl also writes data/warc/<site>/; `hosts`: the site's (old) host names,
    # host[/path]; `capture_until`: YYYY-MM-DD, the last capture on or before it ('' = the latest).
    warc_files: tuple[str, ...] = ()
    warc: bool = False
    hosts: tuple[str, ...] = ()
    capture_until: str = ""
    # The site's original base URL (`http://www.example.ne.jp/~user/`) when it is archived from a copy (a local
    # folder, a WARC, a server on 127.0.0.1): the pages' `url` is the address under it (siterag.enrich.links).
    origin: str = ""

    @property
    def is_local(self) -> bool:
        return bool(self.local_path)

    @property
    def is_warc(self) -> bool:
        return bool(self.warc_files)

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
    dask_address: str = ""  # "tcp://HOST:PORT": a running Dask scheduler (its workers do the pages); "" = local cluster
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


class _Mistake(Exception):
    """One mistake in the file: where (table and key) and why; load_config adds the file's name."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where, self.reason = where, reason


def _show(value: object) -> str:
    """A value as TOML writes it, shortened."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, dict):
        text = "a table"
    elif isinstance(value, list):
        text = "[" + ", ".join(_show(v) for v in value) + "]"
    else:
        text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return "a date" if hasattr(value, "isoformat") else type(value).__name__


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _got(value: object, want: str) -> str:
    """`got <value>`, with its kind when that is the mistake (and how to fix a quoted number)."""
    if want == "number" and isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return f"got {_show(value)} (a string)"
        return f"got {_show(value)} (a string: write {value.strip()} without quotes)"
    fits = {"number": _is_number, "string": lambda v: isinstance(v, str), "bool": lambda v: isinstance(v, bool),
            "list": lambda v: isinstance(v, list), "table": lambda v: isinstance(v, dict)}[want]
    return f"got {_show(value)}" if fits(value) else f"got {_show(value)} ({_kind(value)})"


Check = Callable[[object, str], object]


def _whole(minimum: int, note: str = "") -> Check:
    def check(value: object, where: str) -> int:
        if isinstance(value, int) and not isinstance(value, bool) and value >= minimum:
            return value
        raise _Mistake(where, f"must be a whole number >= {minimum}{note}, {_got(value, 'number')}")
    return check


def _number(positive: bool) -> Check:
    def check(value: object, where: str) -> float:
        if _is_number(value) and (value > 0 if positive else value >= 0):
            return value
        bound = "> 0" if positive else ">= 0"
        raise _Mistake(where, f"must be a number {bound} (seconds), {_got(value, 'number')}")
    return check


def _text(value: object, where: str) -> str:
    if isinstance(value, str) and value.strip():
        return value
    raise _Mistake(where, f"must be a non-empty string, {_got(value, 'string')}")


def _flag(value: object, where: str) -> bool:
    if isinstance(value, bool):
        return value
    raise _Mistake(where, f"must be true or false, {_got(value, 'bool')}")


def _choice(options: tuple[str, ...], allow_empty: bool = False) -> Check:
    def check(value: object, where: str) -> str:
        if isinstance(value, str) and (value in options or allow_empty and not value):
            return value
        raise _Mistake(where, f"must be one of {' | '.join(options)}, {_got(value, 'string')}")
    return check


_BYTES_RE = re.compile(r"^(\d+(\.\d+)?[kmgt]?|inf)$", re.IGNORECASE)


def _wget_size(allow_empty: bool, unit: str, meaning: str) -> Check:
    """wget's --quota / --limit-rate syntax: a string of digits with an optional k, m or g suffix, or "inf"."""
    def check(value: object, where: str) -> str:
        if isinstance(value, str) and (_BYTES_RE.match(value.strip()) or allow_empty and not value):
            return value.strip()
        syntax = 'must be a string of digits with an optional k, m or g suffix ("200m", "500k") or "inf"'
        if _is_number(value):
            raise _Mistake(where, f'{syntax}, got {_show(value)} (a number: write "{value}{unit}" for {value} '
                                  f'{meaning}; a bare "{value}" means {value} bytes)')
        raise _Mistake(where, f"{syntax}, {_got(value, 'string')}")
    return check


def _strings(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise _Mistake(where, f"must be a string or a list of strings, {_got(value, 'string')}")


def _http_url(url: str, where: str) -> str:
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise _Mistake(where, f"{url!r} is not an http(s) URL")
    return url


def _urls(value: object, where: str) -> tuple[str, ...]:
    urls = _strings(value, where)
    if not urls:
        raise _Mistake(where, "is empty: give at least one http(s) URL")
    return tuple(_http_url(u, where) for u in urls)


def _url_or_empty(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise _Mistake(where, f"must be an http(s) URL string, {_got(value, 'string')}")
    return _http_url(value, where) if value else value


def _origin(value: object, where: str) -> str:
    """An http(s) base URL with no query or fragment, ending in `/` (one is added)."""
    if not isinstance(value, str) or not value.strip():
        raise _Mistake(where, f'must be the site\'s original base URL, e.g. "http://www.example.ne.jp/~user/", '
                              f'{_got(value, "string")}')
    url = value.strip()
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname or " " in url:
        raise _Mistake(where, f"{url!r} is not an http(s) URL (e.g. \"http://www.example.ne.jp/~user/\")")
    if parsed.query or parsed.fragment or "#" in url or "?" in url:
        raise _Mistake(where, f"{url!r}: give the site's base URL, without ?query or #fragment")
    return url if url.endswith("/") else url + "/"


def _port(value: object, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 65535:
        return value
    raise _Mistake(where, f"must be a port number 1-65535, {_got(value, 'number')}")


def _site_name(value: object, where: str) -> str:
    if isinstance(value, str) and _NAME_RE.match(value):
        return value
    raise _Mistake(where, f"use letters, digits, '.', '_' or '-' (starting with a letter or digit), "
                          f"{_got(value, 'string')}")


def _categories(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(c, str) and c.strip() for c in value):
        raise _Mistake(where, f"expected a list of non-empty strings, {_got(value, 'list')}")
    return tuple(dict.fromkeys(c.strip() for c in value))


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_CRON_FIELDS = (("minute", 0, 59, ()), ("hour", 0, 23, ()), ("day of month", 1, 31, ()),
                ("month", 1, 12, _MONTHS), ("day of week", 0, 7, _DAYS))
_CRON_ALIASES = ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
_CRON_ITEM = re.compile(r"^(\*|(\w+)(?:-(\w+))?)(?:/(\d+))?$")


def _cron_value(token: str, names: tuple[str, ...], first: int) -> int | None:
    if token.isdigit():
        return int(token)
    return names.index(token.lower()) + first if token.lower() in names else None


def cron_problem(expr: str) -> str | None:
    """Why `expr` is not a 5-field cron expression (minute hour day month weekday), or None when it is."""
    if expr.strip().lower() in _CRON_ALIASES:
        return None
    fields = expr.split()
    if len(fields) != 5:
        return f"needs 5 fields (minute hour day-of-month month day-of-week), found {len(fields)}"
    for text, (label, low, high, names) in zip(fields, _CRON_FIELDS, strict=True):
        first = 1 if label == "month" else 0
        for item in text.split(","):
            m = _CRON_ITEM.match(item)
            if not m:
                return f"{label} {item!r}: use *, a number, a range a-b, a step */n or a-b/n, or a list a,b"
            start, end, step = m.group(2), m.group(3), m.group(4)
            values = [] if start is None else [_cron_value(t, names, first) for t in (start, end) if t]
            if None in values or any(not low <= v <= high for v in values):
                return f"{label} {item!r}: values must be {low}-{high}"
            if len(values) == 2 and values[0] > values[1]:
                return f"{label} {item!r}: the range runs backwards"
            if step is not None and int(step) < 1:
                return f"{label} {item!r}: the step must be >= 1"
    return None


def _cron(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise _Mistake(where, f'must be a cron string like "0 3 * * *", {_got(value, "string")}')
    problem = cron_problem(value)
    if problem:
        raise _Mistake(where, f'{_show(value)} is not a cron expression: {problem} (e.g. "0 3 * * *" = 03:00 daily)')
    return value


def _warc_files(value: object, where: str) -> tuple[str, ...]:
    files = _strings(value, where)
    if not files or not all(f.strip() for f in files):
        raise _Mistake(where, "is empty: give WARC or WACZ files (globs allowed), e.g. [\"captures/*.warc.gz\"]")
    return files


def _hosts(value: object, where: str) -> tuple[str, ...]:
    hosts = _strings(value, where)
    for host in hosts:
        name = urlparse(host if "://" in host else "http://" + host).hostname
        if not name or " " in host:
            raise _Mistake(where, f"{host!r} is not a host name (e.g. \"www.example.ne.jp\" or "
                                  "\"www.geocities.jp/user\")")
    return hosts


def _day(value: object, where: str) -> str:
    text = value.isoformat() if hasattr(value, "isoformat") and not isinstance(value, str) else value
    if isinstance(text, str) and re.fullmatch(r"\d{4}-\d\d-\d\d", text[:10]) and len(text) in (10, 19, 20, 25):
        return text[:10]
    raise _Mistake(where, f'must be a date "YYYY-MM-DD" (the last capture on or before it), {_got(value, "string")}')


def _dask_address(value: object, where: str) -> str:
    """A Dask scheduler address, as `dask scheduler` prints it: tcp://HOST:PORT (or tls://)."""
    m = re.fullmatch(r"(tcp|tls)://(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})", value) \
        if isinstance(value, str) else None
    if m and 0 < int(m.group(3)) < 65536:
        return value
    raise _Mistake(where, 'must be a Dask scheduler address "tcp://HOST:PORT" (as `dask scheduler` prints it, '
                          f'e.g. "tcp://127.0.0.1:8786"), {_got(value, "string")}')


GLOBAL_KEYS: dict[str, Check] = {
    "data_dir": _text, "batch_size": _whole(1), "embedder": _text, "task_runner": _choice(TASK_RUNNERS),
    "dask_workers": _whole(1), "dask_address": _dask_address,
}
SITE_KEYS: dict[str, Check] = {
    "name": _site_name, "start_urls": _urls, "local_path": _text, "accept": _strings, "reject": _strings,
    "quota": _wget_size(False, "m", "megabytes"), "wait": _number(False),
    "rate_limit": _wget_size(True, "k", "kilobytes a second"), "user_agent": _text,
    "max_depth": _whole(0, " (0 = no limit)"), "max_pages": _whole(0, " (0 = no limit)"), "timeout_s": _number(True),
    "extract_mode": _choice(EXTRACT_MODES, allow_empty=True), "schedule": _cron, "categories": _categories,
    "warc_files": _warc_files, "warc": _flag, "hosts": _hosts, "capture_until": _day,
    "origin": _origin,
}
LLM_KEYS: dict[str, Check] = {
    "base_url": _url_or_empty, "base_urls": _urls, "model": _text, "embedded": _flag, "embedded_port": _port,
    "timeout": _number(True), "max_tokens": _whole(1), "retries": _whole(0), "context_tokens": _whole(1),
    "max_concurrent": _whole(1), "enrich": _flag,
}
INDEX_KEYS = ("uri", "storage_options")
DEFAULTS_KEYS = {**GLOBAL_KEYS, **{k: v for k, v in SITE_KEYS.items() if k not in ("name", "origin")}}
TABLES = {"defaults": "[defaults]", "llm": "[llm]", "index": "[index]", "site": "[[site]]"}
assert set(SITE_KEYS) == set(SiteConfig.__dataclass_fields__)
assert set(LLM_KEYS) == set(LLMConfig.__dataclass_fields__)


def _home(key: str) -> str:
    """The table a setting belongs in ("" when none)."""
    if key in GLOBAL_KEYS:
        return "[defaults]"
    if key in SITE_KEYS:
        return "[[site]]" if key in ("name", "origin") else "[[site]] (or [defaults], for every site)"
    if key in LLM_KEYS:
        return "[llm]"
    return "[index]" if key in INDEX_KEYS else ""


def _unknown(key: str, where: str, table: str, known: Iterable[str]) -> _Mistake:
    """An unknown key: where it belongs, or the nearest known one."""
    home = _home(key)
    if home and not home.startswith(table):
        return _Mistake(f"{where} {key}", f"unknown setting in {table}; it belongs in {home}")
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}?" if close else f"known: {', '.join(sorted(known))}"
    return _Mistake(f"{where} {key}", f"unknown setting; {hint}")


def _table(raw: dict, key: str) -> dict:
    value = raw.get(key, {})
    if isinstance(value, dict):
        return value
    if isinstance(value, list):
        raise _Mistake(TABLES[key], f"write it once, as {TABLES[key]} (single brackets), not [[{key}]]")
    raise _Mistake(TABLES[key], f"must be a table (a {TABLES[key]} section), {_got(value, 'table')}")


def _checked(table: dict, keys: dict[str, Check], where: str, name: str) -> dict:
    out = {}
    for key, value in table.items():
        if key not in keys:
            raise _unknown(key, where, name, keys)
        out[key] = keys[key](value, f"{where} {key}")
    return out


def _top_level(raw: dict) -> None:
    """Only the known tables at the top; a stray setting or a misspelt table says what was meant."""
    for key, value in raw.items():
        if key in TABLES:
            continue
        is_table = isinstance(value, dict) or isinstance(value, list) and value and \
            all(isinstance(v, dict) for v in value)
        if not is_table:
            home = _home(key)
            where = "(top level)"
            raise _Mistake(f"{where} {key}", f"a setting outside any table; it belongs in {home}" if home else
                           f"unknown setting outside any table; tables: {', '.join(TABLES.values())}")
        written = f"[{key}]" if isinstance(value, dict) else f"[[{key}]]"
        close = difflib.get_close_matches(key, list(TABLES), n=1, cutoff=0.6)
        hint = f"did you mean {TABLES[close[0]]}?" if close else f"known: {', '.join(TABLES.values())}"
        raise _Mistake(written, f"unknown table; {hint}")


def _site(n: int, entry: object, defaults: dict, base: Path, data_dir: Path, index: IndexStore | None,
          llm: LLMConfig) -> SiteConfig:
    where = f"[[site]] #{n}"
    if not isinstance(entry, dict):
        raise _Mistake(where, f"must be a table, {_got(entry, 'table')}")
    if "name" not in entry:
        raise _Mistake(where, "has no name: add name = \"...\"")
    name = _site_name(entry["name"], f"{where} name")
    where = f'[[site]] "{name}"'
    own = _checked(entry, SITE_KEYS, where, "[[site]]")
    merged = {**defaults, **own}
    sources = [k for k in ("start_urls", "local_path", "warc_files") if merged.get(k)]
    if not sources:
        raise _Mistake(where, "has neither start_urls nor local_path nor warc_files: give one (exactly one)")
    if len(sources) > 1:
        raise _Mistake(where, f"has both {sources[0]} and {sources[1]}: give either start_urls, local_path or "
                              "warc_files (exactly one)")
    if own.get("warc") and not merged.get("start_urls"):
        raise _Mistake(f"{where} warc", "writes the crawl's WARC: only for a site with start_urls (a WARC source "
                                        "is warc_files)")
    if merged.get("warc_files"):
        merged["warc_files"] = tuple(str(p if (p := Path(f).expanduser()).is_absolute() else base / p)
                                     for f in merged["warc_files"])
    hosts = {urlparse(u).hostname for u in merged.get("start_urls", ())}
    if len(hosts) > 1:
        raise _Mistake(f"{where} start_urls", f"span several hosts ({', '.join(sorted(hosts))}); "
                                              "make one site per host")
    ports = {_url_port(u, f"{where} start_urls") for u in merged.get("start_urls", ())}
    if len(ports) > 1:  # another port is another web server: its pages would overwrite same-named ones
        raise _Mistake(f"{where} start_urls", f"use several ports of {next(iter(hosts))} "
                                              f"({', '.join(sorted(str(p or 'default') for p in ports))}): each "
                                              "is its own server and one site keeps one folder of pages; make one "
                                              "site per port")
    if merged.get("local_path"):
        merged["local_path"] = str(_local_path(merged["local_path"], f"{where} local_path", base, data_dir, index))
    mode = merged.get("extract_mode") or "heuristic"  # the measured best with a small model (benchmarks/)
    if mode in ("llm", "hybrid") and not llm.enabled:
        raise _Mistake(f"{where} extract_mode", f"{mode!r} needs an [llm] base_url or embedded = true")
    merged["extract_mode"] = mode
    return SiteConfig(**merged)


def _url_port(url: str, where: str) -> int | None:
    """The URL's port; None for the scheme's default (80, 443 or none given)."""
    try:
        port = urlparse(url).port
    except ValueError:
        raise _Mistake(where, f"{url!r} has a bad port number") from None
    return None if port in (80, 443) else port


def _local_path(value: str, where: str, base: Path, data_dir: Path, index: IndexStore | None) -> Path:
    """An existing folder that holds neither the archive (data_dir, a local index) nor the whole filesystem."""
    path = Path(value).expanduser()
    try:
        path = (path if path.is_absolute() else base / path).resolve()
    except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError for a symlink loop
        raise _Mistake(where, f"{value!r} is a symlink loop (a link that points back at itself)") from None
    if not path.exists():
        raise _Mistake(where, f"folder {str(path)!r} does not exist")
    if not path.is_dir():
        raise _Mistake(where, f"{str(path)!r} is not a folder")
    if path.parent == path:
        raise _Mistake(where, f"{str(path)!r} is the filesystem root: every file on the machine would be copied; "
                              "give the folder of the site itself")
    inside = [("data_dir", data_dir.resolve())]
    if index is not None and "://" not in index.uri:
        inside.append(("[index] uri", Path(index.uri).resolve()))
    for label, folder in inside:
        if folder.is_relative_to(path):
            raise _Mistake(where, f"{str(path)!r} contains the {label} ({str(folder)!r}): each run would copy the "
                                  f"archive into itself; give the site's own folder or move {label} out of it")
    return path


def _read(path: Path) -> dict:
    """The file's TOML: UTF-8 (a BOM is fine); a clear message for a missing, unreadable or broken file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found (give one with --config FILE)") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a config file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # saved with a UTF-8 BOM (Windows Notepad)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        guess = ""
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            guess = " (it looks like UTF-16)"
        else:
            try:
                data.decode("cp932")
                guess = " (it looks like Shift_JIS)"
            except UnicodeDecodeError:
                pass
        raise ConfigError(f"{path}: line {line}, column {column}: not UTF-8 text{guess}; "
                          "save the config as UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        at = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
        if at:
            message = f"line {at.group(1)}, column {at.group(2)}: invalid TOML: {message[:at.start()]}"
        else:
            message = f"invalid TOML: {message}"
        raise ConfigError(f"{path}: {message}") from None


def load_config(path: str | Path) -> Config:
    """Read a `sites.toml` and check every setting; any mistake is a ConfigError whose message is one line:
    `<file>: <table/key>: <reason>`."""
    path = Path(path)
    raw = _read(path)
    try:
        return _build(raw, path)
    except _Mistake as mistake:
        raise ConfigError(f"{path}: {mistake.where}: {mistake.reason}") from None


def _build(raw: dict, path: Path) -> Config:
    _top_level(raw)
    base = path.resolve().parent
    defaults = _checked(_table(raw, "defaults"), DEFAULTS_KEYS, "[defaults]", "[defaults]")
    data_dir = Path(defaults.pop("data_dir", "data")).expanduser()
    batch_size = defaults.pop("batch_size", 25)
    embedder = defaults.pop("embedder", "use-multilingual-v3")
    dask_address = defaults.pop("dask_address", "")
    task_runner = defaults.pop("task_runner", "dask" if dask_address else "thread")
    if dask_address and task_runner != "dask":
        raise _Mistake("[defaults]", f'dask_address is set but task_runner = "{task_runner}": remove one of them '
                                     '(dask_address alone means task_runner = "dask")')
    dask_workers = defaults.pop("dask_workers", 2)
    if not data_dir.is_absolute():
        data_dir = (base / data_dir).resolve()
    llm_raw = _checked(_table(raw, "llm"), LLM_KEYS, "[llm]", "[llm]")
    llm_raw.setdefault("enrich", bool(llm_raw.get("base_url") or llm_raw.get("base_urls")))
    llm = LLMConfig(**llm_raw)
    index = _index(raw["index"], base) if "index" in raw else None
    sites_raw = raw.get("site", [])
    if isinstance(sites_raw, dict):
        raise _Mistake("[site]", "write each site as [[site]] (double brackets)")
    if not isinstance(sites_raw, list) or not sites_raw:
        raise _Mistake("[[site]]", "no [[site]] entries: add one with a name and start_urls or local_path")
    sites = tuple(_site(n, s, defaults, base, data_dir, index, llm) for n, s in enumerate(sites_raw, 1))
    seen: set[str] = set()
    for site in sites:
        if site.name in seen:
            raise _Mistake(f'[[site]] "{site.name}"', "duplicate site name: each site needs its own name")
        seen.add(site.name)
    return Config(data_dir=data_dir, sites=sites, llm=llm, embedder=embedder, batch_size=batch_size,
                  task_runner=task_runner, dask_workers=dask_workers, dask_address=dask_address, index=index)


def _index(raw: object, base: Path) -> IndexStore:
    """The [index] table: `uri` (a folder, or s3:// gs:// az://) and `storage_options` (strings)."""
    if not isinstance(raw, dict):
        raise _Mistake("[index]", f"expected a table with uri and storage_options, {_got(raw, 'table')}")
    for key in raw:
        if key not in INDEX_KEYS:
            raise _unknown(key, "[index]", "[index]", INDEX_KEYS)
    uri = raw.get("uri", "")
    if not isinstance(uri, str) or not uri:
        raise _Mistake("[index] uri", "uri must be a folder or an s3:// gs:// az:// URI")
    if "://" in uri:
        scheme = uri.split("://", 1)[0]
        if scheme not in REMOTE_SCHEMES:
            raise _Mistake("[index] uri", f"uri scheme {scheme!r} is not one of {', '.join(REMOTE_SCHEMES)}")
    else:
        path = Path(uri).expanduser()
        uri = str(path if path.is_absolute() else (base / path).resolve())
    options = raw.get("storage_options", {})
    if not isinstance(options, dict) or any(isinstance(v, (dict, list)) for v in options.values()):
        raise _Mistake("[index] storage_options", "storage_options must be a table of plain values")
    # TOML true/1 become the strings the object store reads ("true", "1").
    plain = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in options.items()}
    return IndexStore(uri, tuple(sorted(plain.items())))
