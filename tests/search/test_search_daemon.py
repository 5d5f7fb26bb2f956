"""The warm search worker (siterag/search/daemon.py): after a first search, later searches of the same index are
answered by it (the client imports no lancedb), with the same results, seeing new pages at once; it goes away
when idle or when its index is deleted, and a dead worker costs nothing but speed."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from siterag.index.embedding import get_embedder
from siterag.index.index import sync_site
from siterag.search import daemon
from tests.conftest import ROOT, write_config
from tests.index.test_index_search import EN, FONT, JA, doc


@pytest.fixture
def index(tmp_path):
    """A config over a fresh index (sites ja, en) and an environment whose search workers are this test's own."""
    sync_site(tmp_path / "data" / "lancedb", "ja", [JA, FONT], get_embedder("use-multilingual-v3"))
    sync_site(tmp_path / "data" / "lancedb", "en", [EN], get_embedder("use-multilingual-v3"))
    cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "{tmp_path / "data"}"\n'
                                 '[[site]]\nname = "ja"\nstart_urls = ["http://127.0.0.1:9/"]\n'
                                 '[[site]]\nname = "en"\nstart_urls = ["http://127.0.0.1:9/"]\n')
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    env = {**os.environ, "SITERAG_SEARCH_DAEMON": "on", "XDG_RUNTIME_DIR": str(run_dir),
           "SITERAG_SEARCH_DAEMON_IDLE": "120"}
    yield cfg, env, run_dir
    for sock in (run_dir / f"siterag-{os.getuid()}").glob("*.sock"):
        sock.unlink()  # the worker sees its socket gone and exits


def search(cfg: Path, env: dict, *args: str, importtime: bool = False) -> subprocess.CompletedProcess:
    cmd = [sys.executable, *(["-X", "importtime"] if importtime else []), "-m", "siterag.cli", "--config",
           str(cfg), "search", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)


def wait_for_socket(run_dir: Path, timeout: float = 120) -> Path:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        socks = list((run_dir / f"siterag-{os.getuid()}").glob("*.sock"))
        if socks:
            return socks[0]
        time.sleep(0.2)
    raise AssertionError("no search worker started")


def imported(proc: subprocess.CompletedProcess) -> set[str]:
    return {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}


def test_the_second_search_is_answered_by_the_worker_with_the_same_results(index):
    cfg, env, run_dir = index
    first = search(cfg, env, "robot", "--json", importtime=True)
    assert first.returncode == 0, first.stderr
    assert "lancedb" in imported(first)  # the first search runs in-process ...
    sock = wait_for_socket(run_dir)  # ... and leaves a worker behind
    assert sock.stat().st_mode & 0o777 == 0o600
    second = search(cfg, env, "robot", "--json", importtime=True)
    assert second.returncode == 0, second.stderr
    assert "lancedb" not in imported(second) and "numpy" not in imported(second)
    assert json.loads(second.stdout) == json.loads(first.stdout) and json.loads(first.stdout)
    # mistakes the index is asked about are still one line, exit 2
    proc = search(cfg, env, "robot", "--site", "nosuch")
    assert proc.returncode == 2 and proc.stderr.startswith("siterag: error: unknown site 'nosuch'")


def test_the_worker_sees_pages_indexed_after_it_started(index, tmp_path):
    cfg, env, run_dir = index
    assert search(cfg, env, "robot").returncode == 0
    wait_for_socket(run_dir)
    new = doc("en", "tea.md", "Green tea", "Sencha is steamed green tea from Shizuoka, rolled into needles.")
    sync_site(tmp_path / "data" / "lancedb", "en", [EN, new], get_embedder("use-multilingual-v3"))
    proc = search(cfg, env, "steamed sencha", "--site", "en", "--json", "-k", "1", importtime=True)
    assert "lancedb" not in imported(proc)
    assert [h["doc_id"] for h in json.loads(proc.stdout)] == ["en/tea.md"]


def test_a_dead_workers_socket_is_replaced_and_the_search_still_answers(index, monkeypatch):
    cfg, env, run_dir = index
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run_dir))
    path = daemon.socket_path({"uri": str(cfg.parent / "data" / "lancedb"), "options": ()})
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.bind(str(path))  # the socket file of a worker killed with -9: nobody listens
    assert daemon.ask_worker(path, {"op": "sites"}) is None
    proc = search(cfg, env, "robot", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)
    deadline = time.monotonic() + 120
    while daemon.ask_worker(path, {"op": "sites", "store": {"uri": str(cfg.parent / "data" / "lancedb")},
                                   "embedder": "use-multilingual-v3"}) is None:
        assert time.monotonic() < deadline, "no new worker on the dead one's socket"
        time.sleep(0.5)


def test_the_worker_exits_when_idle_or_when_its_index_is_deleted(index, tmp_path):
    cfg, env, run_dir = index
    assert search(cfg, {**env, "SITERAG_SEARCH_DAEMON_IDLE": "1"}, "robot").returncode == 0
    sock = wait_for_socket(run_dir)
    deadline = time.monotonic() + 60
    while sock.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not sock.exists(), "the idle worker is still there"
    assert search(cfg, env, "robot").returncode == 0
    sock = wait_for_socket(run_dir)
    shutil.rmtree(tmp_path / "data" / "lancedb")
    deadline = time.monotonic() + 60
    while sock.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not sock.exists(), "the worker of a deleted index is still there"


def test_no_daemon_neither_uses_nor_leaves_a_worker(index):
    cfg, env, run_dir = index
    assert search(cfg, env, "robot", "--no-daemon").returncode == 0
    assert search(cfg, {**env, "SITERAG_SEARCH_DAEMON": "off"}, "robot").returncode == 0
    time.sleep(3)
    assert not list(run_dir.glob("siterag-*/*.sock"))
