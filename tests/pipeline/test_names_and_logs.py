"""A site name ending in a newline or holding control characters is a config mistake, and a file name holding a
newline can neither split nor forge a log line (issue 28, poor cases)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from siterag.enrich.quality import PageReport, log_lines
from siterag.layout import append_log
from tests.conftest import ROOT, write_config


def siterag(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "siterag.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)


@pytest.mark.bad_input
@pytest.mark.parametrize("name", ["example\\n", "exa\\u001bmple", "ex\\tample", "example\\r", "\\u202eexample"])
def test_a_site_name_with_a_control_character_is_one_error_line(tmp_path, name):
    cfg = write_config(tmp_path, f'[[site]]\nname = "{name}"\nstart_urls = ["http://127.0.0.1:9/"]\n')
    proc = siterag("--config", str(cfg), "status")
    assert proc.returncode == 2, proc
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("siterag: error: ") and "name" in lines[0], proc.stderr
    assert "\x1b" not in proc.stderr and "\u202e" not in proc.stderr


@pytest.mark.bad_input
def test_forget_refuses_a_name_ending_in_a_newline(tmp_path):
    cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "{tmp_path / "data"}"\n'
                                 '[[site]]\nname = "example"\nstart_urls = ["http://127.0.0.1:9/"]\n')
    proc = siterag("--config", str(cfg), "forget", "example\n")
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc
    assert "is not a site name" in proc.stderr


FORGED = "a.html\n[!] Failed: index.html: forged line\r[!] also forged"


@pytest.mark.bad_input
def test_a_file_name_with_a_newline_stays_on_its_log_line(tmp_path):
    log = tmp_path / "logs" / "error.log"
    append_log(log, f"[!] Failed: {FORGED}: ValueError: boom")
    append_log(log, "[!] Failed: b.html: OSError: disk\n")
    lines = log.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and lines[0].startswith("[!] Failed: a.html\\n[!] Failed: index.html"), lines
    assert lines[1] == "[!] Failed: b.html: OSError: disk"


@pytest.mark.bad_input
def test_the_quality_gates_log_lines_are_one_per_problem_whatever_the_file_names(tmp_path):
    reports = [PageReport(path=FORGED, chars=10, problems=["mojibake"]),
               PageReport(path=f"short-{FORGED}", chars=10, notes=["short"], visible=10)]
    lines = log_lines(reports, [[FORGED, "b.html"]], {FORGED: "c.html"})
    assert len(lines) == 4 and all("\n" not in line and "\r" not in line for line in lines), lines
    assert [line[:3] for line in lines] == ["[!]", "[!]", "[i]", "[i]"]
