"""The README cannot drift: every `siterag …` command in its ```bash blocks runs, as written, against the example
site archived in a temp folder (its `sites.toml` names the site `example`), and ends without a traceback.

`web` and `serve` keep running: they pass when they are still up after START_S seconds (`web` also answers its
search page); `forget` runs last, as it removes the site's index rows."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT

README = ROOT / "README.md"
START_S = 20
_BLOCK_RE = re.compile(r"```bash\n(.*?)```", re.DOTALL)


def readme_commands() -> list[str]:
    """The `siterag …` lines of the README's bash blocks, comments cut, in order (forget last)."""
    found = []
    for block in _BLOCK_RE.findall(README.read_text(encoding="utf-8")):
        for line in block.splitlines():
            line = line.split("  #", 1)[0].strip()
            if line.startswith("siterag ") and line not in found:
                found.append(line)
    return sorted(found, key=lambda c: " forget " in f" {c} ")


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> tuple[Path, dict]:
    """A folder holding sites.toml (site `example`: examples/site as a local folder) and its archive."""
    work = tmp_path_factory.mktemp("readme")
    (work / "sites.toml").write_text(f'[defaults]\ndata_dir = "data"\n\n[[site]]\nname = "example"\n'
                                     f'local_path = "{ROOT / "examples" / "site"}"\n', encoding="utf-8")
    env = {**os.environ, "PREFECT_HOME": str(work / "prefect"), "SITERAG_SEARCH_DAEMON": "off",
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "siterag.cli", "--config", "sites.toml", "run"], cwd=work, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    return work, env


def test_the_readme_shows_commands_and_stays_short():
    commands = readme_commands()
    assert {c.split()[3] for c in commands if c.startswith("siterag --config")} >= {
        "run", "search", "ask", "status", "web"}, commands
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


@pytest.mark.parametrize("command", readme_commands())
def test_every_readme_command_runs(archive, command):
    work, env = archive
    args = [sys.executable, "-m", "siterag.cli", *shlex.split(command)[1:]]
    if " web" in command or " serve" in command:
        port = "8000" if "--port" not in command else command.split("--port", 1)[1].split()[0]
        proc = subprocess.Popen(args, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            deadline = time.monotonic() + START_S
            while time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.5)
                if " web" in command:
                    try:
                        with urllib.request.urlopen(f"http://127.0.0.1:{port}/search?q=%E3%81%8A%E8%8C%B6",
                                                    timeout=5) as answer:
                            assert answer.status == 200 and "お茶" in answer.read().decode("utf-8")
                            return
                    except OSError:
                        continue
            assert proc.poll() is None, proc.communicate()[1][-2000:]
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=30)
        return
    done = subprocess.run(args, cwd=work, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode in (0, 1), (command, done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.stdout.strip() or done.stderr.strip(), command
