"""Hostile page text and a hostile machine around `siterag search` (issue 28, bugs 4, 6 and 7).

- Escape sequences in a page's title, body or path (OSC title, CSI clear screen, OSC 8 link, C1 CSI, bidi
  override) never reach the terminal from `search`, `ask`, `status` or `run`: they are shown escaped, and
  `--json` stays valid JSON with the same text.
- A missing, foreign, open (777) or symlinked socket folder for the warm worker does not make `search` fail:
  it searches in-process and never puts a socket in a folder that is not the user's own private one.
- A hung worker (stopped, or a listener that never answers) or a worker busy with another client's slow
  search costs about a second, not the old 120 s.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from siterag.index.embedding import get_embedder
from siterag.index.index import sync_site
from siterag.printable import printable, printable_json
from siterag.search import daemon
from siterag.search.ask import Answer, format_answer
from siterag.search.search_api import Hit
from tests.conftest import ROOT, write_config
from tests.index.test_index_search import EN, doc

HOSTILE = ("\x1b]0;pwned\x07\x1b[2J\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\"
           "\x9b31m\u202egnp.exe\x08\r")
# What must never reach a terminal: ESC, BEL, BS, CR, C1 CSI, the bidi override.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
EVIL = doc("en", "evil\x1b[2J.md", f"Robot {HOSTILE} title", f"The robot page. {HOSTILE} Robot wars again.")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """A config over an index holding a page whose title, body and path carry escape sequences."""
    tmp = tmp_path_factory.mktemp("hostile")
    sync_site(tmp / "data" / "lancedb", "en", [EN, EVIL], get_embedder("use-multilingual-v3"))
    return write_config(tmp, f'[defaults]\ndata_dir = "{tmp / "data"}"\n'
                             '[[site]]\nname = "en"\nstart_urls = ["http://127.0.0.1:9/"]\n')


def siterag(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "siterag.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=timeout, errors="surrogateescape")


# -- bug 4: escape sequences from pages ------------------------------------------------------------------------

@pytest.mark.bad_input
@pytest.mark.parametrize("extra", [[], ["--chunks"]])
def test_search_shows_escape_sequences_of_a_page_escaped(hostile, extra):
    proc = siterag("--config", str(hostile), "search", "robot", "--no-daemon", *extra)
    assert proc.returncode == 0, proc.stderr
    assert not RAW.search(proc.stdout), repr(proc.stdout)
    assert "\\x1b]0;pwned\\x07" in proc.stdout and "\\u202e" in proc.stdout  # shown, not dropped silently
    assert "evil\\x1b[2J.md" in proc.stdout  # the path too


@pytest.mark.bad_input
def test_search_json_stays_valid_and_keeps_the_text(hostile):
    proc = siterag("--config", str(hostile), "search", "robot", "--no-daemon", "--json")
    assert proc.returncode == 0, proc.stderr
    assert not RAW.search(proc.stdout), repr(proc.stdout)
    titles = [h["title"] for h in json.loads(proc.stdout)]
    assert f"Robot {HOSTILE} title" in titles


@pytest.mark.bad_input
def test_printable_escapes_controls_and_keeps_text():
    assert printable("お茶\x1b[2J\t絵文字🍵") == "お茶\\x1b[2J 絵文字🍵"
    assert printable("a\nb\r\nc") == "a\\nb\\r\\nc"  # one line: nothing starts a line of its own
    assert printable("a\r\nb\tc\rd\x1b", multiline=True) == "a\nb\tc\\rd\\x1b"
    assert printable("\u202eexe.txt\udcff") == "\\u202eexe.txt\\udcff"  # and print() can encode it
    value = {"t": HOSTILE + "\u2028\udcff"}
    text = printable_json(value)
    assert json.loads(text) == value and not RAW.search(text) and "\u2028" not in text


def hit(title: str, path: str = "p\x1b[2J.md") -> Hit:
    return Hit(site="en", path=path, title=title, date="", score=1.0, snippet="", heading="", doc_id=f"en/{path}",
               url=f"http://example.jp/{HOSTILE}")


@pytest.mark.bad_input
def test_ask_shows_escape_sequences_of_pages_and_model_escaped():
    found = Answer(question="q", found=True, answer=f"The robot.\n{HOSTILE}\nEnd.", citations=["en/p\x1b[2J.md"],
                   passages=[hit(f"T {HOSTILE}")], added=[f"en/{HOSTILE}"], dropped=[f"x/{HOSTILE}"])
    text = format_answer(found)
    assert not RAW.search(text), repr(text)
    assert "The robot.\n" in text and "\nEnd." in text  # the answer keeps its lines
    none = Answer(question="q", found=False, answer="", citations=[], passages=[hit("t")], reason=HOSTILE)
    assert not RAW.search(format_answer(none))


@pytest.mark.bad_input
def test_status_shows_a_hand_edited_report_escaped(tmp_path):
    cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "{tmp_path / "data"}"\n'
                                 '[[site]]\nname = "en"\nstart_urls = ["http://127.0.0.1:9/"]\n')
    logs = tmp_path / "data" / "logs" / "en"
    logs.mkdir(parents=True)
    (logs / "report.json").write_text(json.dumps({"finished_at": HOSTILE, "short": 0, "mojibake": 0,
                                                  "llm_fallback": 0, "failed": 0}), encoding="utf-8")
    proc = siterag("--config", str(cfg), "status")
    assert proc.returncode == 0, proc.stderr
    assert not RAW.search(proc.stdout + proc.stderr) and "\\x1b]0;pwned" in proc.stdout
    (logs / "report.json").write_text(f'{{"finished_at": "{HOSTILE[:4]}', encoding="utf-8")  # cut short
    proc = siterag("--config", str(cfg), "status")
    assert proc.returncode == 0 and not RAW.search(proc.stdout + proc.stderr), repr(proc.stderr)


@pytest.mark.bad_input
def test_run_shows_warnings_and_failures_quoting_pages_escaped(capsys, tmp_path):
    from siterag.cli import _CtrlC, _run_sites
    from siterag.config import load_config

    cfg = load_config(write_config(tmp_path, f'[defaults]\ndata_dir = "{tmp_path / "data"}"\n'
                                             '[[site]]\nname = "a"\nstart_urls = ["http://127.0.0.1:9/"]\n'
                                             '[[site]]\nname = "b"\nstart_urls = ["http://127.0.0.1:9/"]\n'))
    report = {"pages_seen": 1, "new": 1, "changed": 0, "unchanged": 0, "skipped": 0, "failed": 0, "removed": [],
              "binaries": 0, "short": 0, "mojibake": 0, "llm_fallback": 0, "metadata_fallback": 0,
              "duplicates": [], "llm_calls": 0, "mirror_warnings": [f"page {HOSTILE}.html: cut short"],
              "index": {"upserted": 1, "chunks": 1, "unchanged": 0, "removed": 0, "warnings": [HOSTILE]}}

    def flow(name: str, config: str) -> dict:
        if name == "b":
            raise OSError(f"cannot read {HOSTILE}.html")
        return report

    assert _run_sites(cfg, ["a", "b"], "sites.toml", flow, _CtrlC()) == 1
    out = capsys.readouterr()
    assert not RAW.search(out.out + out.err), repr(out)
    assert "\\x1b]0;pwned" in out.out and "\\x1b]0;pwned" in out.err


# -- bug 6: the socket folder ------------------------------------------------------------------------------------

def _folder_case(kind: str, run_dir: Path) -> Path:
    """Make run_dir's siterag-<uid> (or XDG_RUNTIME_DIR) hostile; returns the folder a worker must not use."""
    folder = run_dir / f"siterag-{os.getuid()}"
    if kind == "missing-runtime-dir":
        return run_dir / "nowhere" / f"siterag-{os.getuid()}"
    if kind == "symlink":
        elsewhere = run_dir / "elsewhere"
        elsewhere.mkdir(mode=0o700)
        folder.symlink_to(elsewhere)
        return elsewhere
    folder.mkdir()
    folder.chmod(0o777)
    if kind == "foreign":
        os.chown(folder, os.getuid() + 4242, -1)
        folder.chmod(0o700)
    return folder


@pytest.mark.bad_input
@pytest.mark.parametrize("kind", ["missing-runtime-dir", "mode-777", "foreign", "symlink"])
def test_an_unsafe_socket_folder_means_an_in_process_search(hostile, tmp_path, kind):
    if kind == "foreign" and os.getuid() != 0:
        pytest.skip("making a folder of another user needs root")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    bad = _folder_case(kind, run_dir)
    xdg = str(run_dir / "nowhere") if kind == "missing-runtime-dir" else str(run_dir)
    env = {**os.environ, "SITERAG_SEARCH_DAEMON": "on", "XDG_RUNTIME_DIR": xdg, "SITERAG_SEARCH_DAEMON_IDLE": "5",
           "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    proc = siterag("--config", str(hostile), "search", "robot", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)
    time.sleep(3)  # a worker, had one been started, would have bound its socket by now (or at least tried)
    assert not (bad.is_dir() and list(bad.glob("*.sock")))
    if kind == "missing-runtime-dir":  # XDG_RUNTIME_DIR pointing nowhere: as if unset (the temp dir)
        socks = list((tmp_path / "tmp" / f"siterag-{os.getuid()}").glob("*.sock"))
        for sock in socks:
            sock.unlink()  # the worker exits
    else:
        assert "not a private folder of yours" in proc.stderr


@pytest.mark.bad_input
def test_a_folder_made_first_by_another_user_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setattr(daemon.os, "getuid", lambda: os.geteuid() + 4242)  # it is this user's, not "ours"
    (tmp_path / f"siterag-{os.geteuid() + 4242}").mkdir(mode=0o700)
    monkeypatch.setattr(daemon, "unsafe", [])
    assert daemon.socket_path({"uri": "x"}) is None and daemon.unsafe


# -- bug 7: a hung or busy worker ----------------------------------------------------------------------------------

def _daemon_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, idle: str) -> dict:
    """An environment whose search workers live in this test's own private runtime folder."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run_dir))
    return {**os.environ, "SITERAG_SEARCH_DAEMON": "on", "XDG_RUNTIME_DIR": str(run_dir),
            "SITERAG_SEARCH_DAEMON_IDLE": idle}


def _store(cfg: Path) -> dict:
    return {"uri": str(cfg.parent / "data" / "lancedb"), "options": ()}


@pytest.mark.bad_input
def test_a_worker_that_never_answers_costs_about_a_second(hostile, tmp_path, monkeypatch):
    env = _daemon_env(tmp_path, monkeypatch, "30")
    path = daemon.socket_path(_store(hostile))
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as hung:
        hung.bind(str(path))
        hung.listen(8)  # connections queue in the kernel; nobody ever accepts them (a stopped worker)
        started = time.monotonic()
        assert daemon.ask_worker(path, {"op": "sites"}) is None
        assert time.monotonic() - started < daemon.ACK_TIMEOUT_S + 0.5
        started = time.monotonic()
        proc = siterag("--config", str(hostile), "search", "robot", "--json", env=env, timeout=100)
        took = time.monotonic() - started
        assert proc.returncode == 0 and json.loads(proc.stdout), proc.stderr
        no_worker = time.monotonic()
        proc = siterag("--config", str(hostile), "search", "robot", "--json", "--no-daemon", env=env)
        baseline = time.monotonic() - no_worker
        print(f"hung listener: search {took:.2f} s, in-process without a worker {baseline:.2f} s")
        assert took < baseline + 5, (took, baseline)  # the old client waited 120 s
        # the worker that search left behind takes the socket over from the hung one
        deadline = time.monotonic() + 60
        while daemon.ask_worker(path, {"op": "sites", "store": _store(hostile),
                                       "embedder": "use-multilingual-v3"}) is None:
            assert time.monotonic() < deadline, "no worker replaced the hung one"
            time.sleep(0.5)
    path.unlink(missing_ok=True)


def _exited(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in "ZX"
    except OSError:
        return True


def _worker_pid(path: Path) -> int:
    for proc in Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"siterag.search.daemon" in argv and str(path).encode() in argv:
            return int(proc.name)
    raise AssertionError("no worker process")


@pytest.mark.bad_input
def test_a_stopped_worker_costs_about_a_second_and_is_replaced(hostile, tmp_path, monkeypatch):
    env = _daemon_env(tmp_path, monkeypatch, "60")
    path = daemon.socket_path(_store(hostile))
    assert siterag("--config", str(hostile), "search", "robot", env=env).returncode == 0
    request = {"op": "sites", "store": _store(hostile), "embedder": "use-multilingual-v3"}
    deadline = time.monotonic() + 120
    while daemon.ask_worker(path, request) is None:
        assert time.monotonic() < deadline, "no worker"
        time.sleep(0.3)
    pid = _worker_pid(path)
    os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        proc = siterag("--config", str(hostile), "search", "robot", "--json", env=env, timeout=100)
        took = time.monotonic() - started
        assert proc.returncode == 0 and json.loads(proc.stdout), proc.stderr
        print(f"stopped worker: search {took:.2f} s")
        assert took < 20, took  # the old client waited 120 s
        deadline = time.monotonic() + 60
        while daemon.ask_worker(path, request) is None:  # a new worker took the socket over
            assert time.monotonic() < deadline, "no worker replaced the stopped one"
            time.sleep(0.5)
    finally:
        os.kill(pid, signal.SIGCONT)  # it sees its socket file replaced and exits
    deadline = time.monotonic() + 30
    while not _exited(pid):
        assert time.monotonic() < deadline, "the stopped worker did not exit once continued"
        time.sleep(0.5)
    path.unlink(missing_ok=True)


@pytest.mark.bad_input
def test_a_busy_worker_says_so_at_once(tmp_path, monkeypatch):
    """One client's slow search does not keep another waiting: that one hears `busy` and searches in-process."""
    path = tmp_path / "w.sock"
    release = threading.Event()

    def slow_answer(request: dict) -> dict:
        if request.get("query") == "slow":
            release.wait(30)
        return {"sites": ["x"]}

    monkeypatch.setattr(daemon, "answer", slow_answer)
    monkeypatch.setattr(daemon, "_warm_up", lambda embedder, busy: busy.release())
    server = threading.Thread(target=daemon.serve, args=(path, "use-multilingual-v3", None, 30), daemon=True)
    server.start()
    deadline = time.monotonic() + 30
    while daemon.ask_worker(path, {"op": "sites"}) is None:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    slow = threading.Thread(target=daemon.ask_worker, args=(path, {"op": "search", "query": "slow"}), daemon=True)
    slow.start()
    time.sleep(0.3)
    started = time.monotonic()
    assert daemon.ask_worker(path, {"op": "sites"}) is None  # busy: the client searches in-process
    took = time.monotonic() - started
    assert took < daemon.ACK_TIMEOUT_S + 0.5, took
    release.set()
    slow.join(10)
    assert daemon.ask_worker(path, {"op": "sites"}) == {"sites": ["x"]}  # free again
    path.unlink()
    server.join(15)
