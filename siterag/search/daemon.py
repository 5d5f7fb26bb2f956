"""A warm search process, so that `siterag search` answers in a fraction of a second after the first search.

Most of a cold `siterag search` is start-up, not search: importing lancedb (with pyarrow, numpy and the pydantic
models of its REST client) costs ~1 s of CPU on a 2-core machine and the query itself ~0.05 s
(benchmarks/cli_latency.py prints both). Like Gradle's or Bazel's daemon, the first search answers in-process and
then leaves a detached worker behind that keeps those modules and the embedder loaded; later searches of the same
index send their query over a Unix socket and print what it answers (the client imports only the standard
library and siterag's own light modules).

- One worker per index (its URI and storage options), per user: the socket is `<runtime dir>/siterag-<uid>/
  <key>.sock`, in a 0700 folder; the key also covers the Python and the siterag code, so an upgrade never talks
  to an old worker. The runtime dir is $XDG_RUNTIME_DIR when that is a folder of this user, else the temp dir;
  a `siterag-<uid>` that is not this user's own private folder (made first by another user, mode 777, a
  symlink) is never used: the search then runs in-process.
- The worker answers one search at a time, and says at once whether it takes a request: `busy` when another
  search has held it for over QUEUE_S, and nothing at all when it hangs (stopped, swapped out). The client
  waits ACK_TIMEOUT_S for that first word and then searches in-process, so a hung or busy worker costs about
  a second, not a search's worth of waiting. A new worker takes over the socket of one that does not answer.
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
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

IDLE_S = 600.0
CONNECT_TIMEOUT_S = 0.5
QUEUE_S = 0.5  # how long a request waits for the search in progress before the worker answers `busy`
ACK_TIMEOUT_S = QUEUE_S + 0.5  # how long the client waits for `accepted` / `busy` (a hung worker says nothing)
ANSWER_TIMEOUT_S = 30.0  # after `accepted`: the worker is alive and searching
_HEADER = struct.Struct("!I")
_CODE = ("daemon.py", "search_api.py", "../index/embedding.py", "../index/store.py", "../index/chunking.py")


def enabled(no_daemon: bool = False) -> bool:
    """Whether `siterag search` may use (and start) a worker."""
    return not no_daemon and os.environ.get("SITERAG_SEARCH_DAEMON", "on").strip().lower() not in {
        "off", "0", "no", "false"}


unsafe: list[Path] = []  # socket folders refused (another user's, open to others, a symlink): the CLI says so


def _own_folder(path: Path, private: bool) -> bool:
    """True for a real folder (no symlink) of this user; `private`: also closed to everyone else (0700)."""
    try:
        st = path.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not (private and st.st_mode & 0o077)


def _runtime_dir() -> Path | None:
    """This user's private folder for worker sockets, made if need be; None when there is none to be had."""
    base = os.environ.get("XDG_RUNTIME_DIR", "")
    if not (base and os.path.isabs(base) and _own_folder(Path(base), private=False)):
        base = tempfile.gettempdir()  # unset, relative, missing or another user's: as if unset
    path = Path(base) / f"siterag-{os.getuid()}"
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    if _own_folder(path, private=True):
        return path
    unsafe.append(path)
    return None


def socket_path(store: dict) -> Path | None:
    """Where the worker of this index listens (short enough for a Unix socket name); None when there is no safe
    folder for it (see _runtime_dir): then the search runs in-process and leaves no worker."""
    folder = _runtime_dir()
    if folder is None:
        return None
    here = Path(__file__).resolve().parent
    stamps = [sys.executable, json.dumps(store, sort_keys=True)]
    for rel in _CODE:
        try:
            st = (here / rel).stat()
            stamps.append(f"{rel}:{st.st_mtime_ns}:{st.st_size}")
        except OSError:
            stamps.append(rel)
    key = hashlib.sha256("\n".join(stamps).encode()).hexdigest()[:20]
    return folder / f"{key}.sock"


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
    """The worker's answer, or None when there is no worker, it is busy, hangs or failed: then search in-process.

    The worker first says `accepted` or `busy` (within ACK_TIMEOUT_S, else it is taken for hung), then answers."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(CONNECT_TIMEOUT_S)
            sock.connect(str(path))
            sock.settimeout(ACK_TIMEOUT_S)
            _send(sock, request)
            if _receive(sock) != {"accepted": True}:
                return None
            sock.settimeout(ANSWER_TIMEOUT_S)
            answer = _receive(sock)
    except (OSError, ValueError):
        return None
    return answer if isinstance(answer, dict) and "internal" not in answer else None


def _answers(path: Path) -> bool:
    """True when a worker listens on `path` and says so within ACK_TIMEOUT_S (a stopped one never does)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        try:
            sock.settimeout(CONNECT_TIMEOUT_S)
            sock.connect(str(path))
            sock.settimeout(ACK_TIMEOUT_S)
            _send(sock, {"op": "ping"})
            return _receive(sock) == {"alive": True}
        except (OSError, ValueError):
            return False


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
    """Take the socket name; False when a live worker already has it (the file of a crashed worker, or of one
    that does not answer, is replaced: that one exits when it sees its socket file gone)."""
    try:
        server.bind(str(path))
        return True
    except OSError:
        pass
    if _answers(path):
        return False
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
            server.listen(8)
            busy = threading.Lock()  # one search at a time; held by the warm-up first (a request waits QUEUE_S)
            busy.acquire()
            threading.Thread(target=_warm_up, args=(embedder, busy), daemon=True).start()
            _answer_until_idle(server, path, inode, local, idle_s, busy)
            busy.acquire(timeout=ANSWER_TIMEOUT_S)  # let a search in progress finish before the worker exits
        finally:
            try:
                if path.stat().st_ino == inode:
                    path.unlink()
            except OSError:
                pass


def _warm_up(embedder: str, busy: threading.Lock) -> None:
    """Load lancedb and the embedder before the first request needs them; releases `busy` when done."""
    try:
        from siterag.index.embedding import get_embedder
        from siterag.search.search_api import _index

        _index()
        get_embedder(embedder).embed(["warm-up"])
    except Exception:  # noqa: BLE001, S110 - a request then loads them itself, or fails and goes in-process
        pass
    finally:
        busy.release()


def _answer_until_idle(server: socket.socket, path: Path, inode: int, local: Path | None, idle_s: float,
                       busy: threading.Lock) -> None:
    """Accept connections until idle; each is handled in a thread, so that a hung or slow request never keeps
    the next client from hearing `busy` at once."""
    server.settimeout(min(5.0, idle_s))
    last = time.monotonic()
    while time.monotonic() - last < idle_s:
        try:
            conn, _ = server.accept()
        except TimeoutError:
            if _gone(path, inode, local):
                return
            continue
        threading.Thread(target=_handle, args=(conn, busy), daemon=True).start()
        last = time.monotonic()


def _handle(conn: socket.socket, busy: threading.Lock) -> None:
    """One connection: `alive` to a ping; else `busy`, or `accepted` and then the answer."""
    with conn:
        conn.settimeout(ACK_TIMEOUT_S)
        try:
            request = _receive(conn)
            if request.get("op") == "ping":
                _send(conn, {"alive": True})
                return
            if not busy.acquire(timeout=QUEUE_S):
                _send(conn, {"busy": True})
                return
            try:
                _send(conn, {"accepted": True})
                try:
                    reply = answer(request)
                except Exception as exc:  # noqa: BLE001 - the client then searches in-process
                    reply = {"internal": f"{type(exc).__name__}: {exc}"}
                conn.settimeout(ANSWER_TIMEOUT_S)
                _send(conn, reply)
            finally:
                busy.release()
        except (OSError, ValueError, AttributeError):
            pass


if __name__ == "__main__":
    serve(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]) if sys.argv[3:] and sys.argv[3] else None,
          float(os.environ.get("SITERAG_SEARCH_DAEMON_IDLE", IDLE_S)))
