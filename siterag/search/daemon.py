"""A warm search process, so that `siterag search` answers in a fraction of a second after the first search.

Most of a cold `siterag search` is start-up, not search: importing lancedb (with pyarrow, numpy and the pydantic
models of its REST client) costs ~1 s of CPU on a 2-core machine and the query itself ~0.05 s
(benchmarks/cli_latency.py prints both). Like Gradle's or Bazel's daemon, the first search answers in-process and
then leaves a detached worker behind that keeps those modules and the embedder loaded; later searches of the same
index send their query over a Unix socket and print what it answers (the client imports only the standard
library and siterag's own light modules).

- One worker per index (its URI and storage options), per user: the socket is `<runtime dir>/siterag-<uid>/
  <key>.sock`, in a 0700 folder; the key also covers the Python and the siterag code, so an upgrade never talks
  to an old worker.
- Every request opens the index anew, so a search right after `siterag run` sees the new pages.
- The worker exits after `SITERAG_SEARCH_DAEMON_IDLE` seconds without a request (default 600), or when its socket
  file is removed. `SITERAG_SEARCH_DAEMON=off` (or `siterag search --no-daemon`) never starts or uses one.
- Anything unexpected on the way (no worker, a dead one, a protocol error, an internal error) falls back to the
  in-process search: the answer is the same, only slower.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

IDLE_S = 600.0
CONNECT_TIMEOUT_S = 0.5
ANSWER_TIMEOUT_S = 120.0
_HEADER = struct.Struct("!I")
_CODE = ("daemon.py", "search_api.py", "../index/embedding.py", "../index/store.py", "../index/chunking.py")


def enabled(no_daemon: bool = False) -> bool:
    """Whether `siterag search` may use (and start) a worker."""
    return not no_daemon and os.environ.get("SITERAG_SEARCH_DAEMON", "on").strip().lower() not in {
        "off", "0", "no", "false"}


def _runtime_dir() -> Path:
    base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    path = Path(base) / f"siterag-{os.getuid()}"
    path.mkdir(mode=0o700, exist_ok=True)
    if path.stat().st_uid != os.getuid() or path.stat().st_mode & 0o077:
        raise OSError(f"{path}: not a private folder of this user")
    return path


def socket_path(store: dict) -> Path:
    """Where the worker of this index listens (short enough for a Unix socket name)."""
    here = Path(__file__).resolve().parent
    stamps = [sys.executable, json.dumps(store, sort_keys=True)]
    for rel in _CODE:
        try:
            st = (here / rel).stat()
            stamps.append(f"{rel}:{st.st_mtime_ns}:{st.st_size}")
        except OSError:
            stamps.append(rel)
    key = hashlib.sha256("\n".join(stamps).encode()).hexdigest()[:20]
    return _runtime_dir() / f"{key}.sock"


def _send(sock: socket.socket, message: dict) -> None:
    data = json.dumps(message, ensure_ascii=False).encode()
    sock.sendall(_HEADER.pack(len(data)) + data)


def _receive(sock: socket.socket) -> dict:
    head = _read_exactly(sock, _HEADER.size)
    return json.loads(_read_exactly(sock, _HEADER.unpack(head)[0]))


def _read_exactly(sock: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            raise ConnectionError("the search worker closed the connection")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def ask_worker(path: Path, request: dict) -> dict | None:
    """The worker's answer, or None when there is no worker (or it failed): then search in-process."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(CONNECT_TIMEOUT_S)
            sock.connect(str(path))
            sock.settimeout(ANSWER_TIMEOUT_S)
            _send(sock, request)
            answer = _receive(sock)
    except (OSError, ValueError):
        return None
    return answer if isinstance(answer, dict) and "internal" not in answer else None


def start_worker(path: Path, embedder: str, index_uri: str) -> None:
    """Start a detached worker for the socket `path` (returns at once; nothing inherited from this terminal)."""
    local = "" if "://" in index_uri else str(Path(index_uri).resolve())  # watched: deleted index, worker gone
    subprocess.Popen(  # noqa: S603 - our own module, our own Python
        [sys.executable, "-m", "siterag.search.daemon", str(path), embedder, local], stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True, start_new_session=True,
        cwd=os.getcwd())


def answer(request: dict) -> dict:
    """What the worker answers one request with: hits as dicts, the index's sites, or a one-line error."""
    from siterag.index.store import IndexStore
    from siterag.search.search_api import Searcher, add_provenance, search

    store = IndexStore(request["store"]["uri"], tuple(tuple(kv) for kv in request["store"].get("options", ())))
    try:
        if request["op"] == "sites":
            return {"sites": Searcher(store, request["embedder"]).sites()}
        hits = search(request["query"], store, embedder=request["embedder"], **request["options"])
        if request.get("data_dir"):
            add_provenance(hits, request["data_dir"])  # url, captured_at from the corpus's front matter
        return {"hits": [h.to_dict() for h in hits]}
    except Exception as exc:  # the same one line the in-process search gives (siterag.cli.main), else in-process
        from siterag.index.store import index_problem, is_lance_error

        if not isinstance(exc, OSError) and is_lance_error(exc):
            return {"error": index_problem("", "read", exc)}
        if isinstance(exc, (ValueError, OSError)):
            return {"error": str(exc)}
        raise


def _gone(path: Path, inode: int, local: Path | None) -> bool:
    """True when the worker is no longer wanted: its socket file removed or replaced, or its local index deleted."""
    try:
        return path.stat().st_ino != inode or (local is not None and not local.exists())
    except OSError:
        return True


def _bind(server: socket.socket, path: Path) -> bool:
    """Take the socket name; False when a live worker already has it (a stale file left by a crash is replaced)."""
    try:
        server.bind(str(path))
        return True
    except OSError:
        pass
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(CONNECT_TIMEOUT_S)
        try:
            probe.connect(str(path))
            return False
        except OSError:
            path.unlink(missing_ok=True)
    try:
        server.bind(str(path))
        return True
    except OSError:
        return False


def serve(path: Path, embedder: str, local: Path | None, idle_s: float) -> None:
    """Listen on `path` until idle for `idle_s` seconds, the socket file is gone or the local index deleted."""
    from siterag.search.search_api import hide_pandas

    hide_pandas()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        if not _bind(server, path):
            return
        inode = path.stat().st_ino
        try:
            os.chmod(path, 0o600)
            server.listen(8)  # a client that comes while it warms up waits in the backlog
            from siterag.index.embedding import get_embedder
            from siterag.search.search_api import _index

            _index()
            get_embedder(embedder).embed(["warm-up"])
            _answer_until_idle(server, path, inode, local, idle_s)
        finally:
            try:
                if path.stat().st_ino == inode:
                    path.unlink()
            except OSError:
                pass


def _answer_until_idle(server: socket.socket, path: Path, inode: int, local: Path | None, idle_s: float) -> None:
    server.settimeout(min(5.0, idle_s))
    last = time.monotonic()
    while time.monotonic() - last < idle_s:
        try:
            conn, _ = server.accept()
        except TimeoutError:
            if _gone(path, inode, local):
                return
            continue
        with conn:
            conn.settimeout(ANSWER_TIMEOUT_S)
            try:
                request = _receive(conn)
                try:
                    reply = answer(request)
                except Exception as exc:  # noqa: BLE001 - the client then searches in-process
                    reply = {"internal": f"{type(exc).__name__}: {exc}"}
                _send(conn, reply)
            except (OSError, ValueError):
                pass
        last = time.monotonic()


if __name__ == "__main__":
    serve(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]) if sys.argv[3:] and sys.argv[3] else None,
          float(os.environ.get("SITERAG_SEARCH_DAEMON_IDLE", IDLE_S)))
