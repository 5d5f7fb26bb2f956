"""A real Dask scheduler: `dask_address = "tcp://…"` sends the site's extract batches to a `distributed` scheduler
and worker started as separate processes on 127.0.0.1, and the pages are done by that worker."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from siterag.config import ConfigError, load_config
from tests.conftest import EXAMPLE_SITE, ROOT, free_port, write_config

DASK = Path(sys.executable).with_name("dask")
pytestmark = pytest.mark.skipif(not DASK.exists(), reason="the dask command is not installed")


@pytest.fixture
def scheduler(tmp_path: Path):
    """`dask scheduler` + one one-thread `dask worker` (named siterag-test-worker), each its own process, started
    from the project folder (the worker imports the project's tasks); yields the scheduler's address."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    logs = [open(tmp_path / f"{name}.log", "wb") for name in ("scheduler", "worker")]  # noqa: SIM115
    procs = [subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--no-dashboard"], cwd=ROOT, env=env, stdout=logs[0], stderr=subprocess.STDOUT)]
    try:
        procs.append(subprocess.Popen([str(DASK), "worker", address, "--nthreads", "1", "--nworkers", "1",
                                       "--name", "siterag-test-worker", "--no-dashboard"],
                                      cwd=ROOT, env=env, stdout=logs[1], stderr=subprocess.STDOUT))
        from distributed import Client

        with Client(address, timeout="60s") as client:
            client.wait_for_workers(1, timeout=120)
        yield address
    finally:
        for proc in reversed(procs):
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        for log in logs:
            log.close()


def config(tmp_path: Path, address: str) -> Path:
    return write_config(tmp_path, f"""
[defaults]
data_dir = "{tmp_path / 'data'}"
batch_size = 2
dask_address = "{address}"
[[site]]
name = "example"
local_path = "{EXAMPLE_SITE}"
extract_mode = "heuristic"
""")


def test_flow_runs_its_pages_on_the_scheduler_worker(tmp_path, scheduler):
    from distributed import Client
    from prefect.testing.utilities import prefect_test_harness

    from flows.site import site_flow

    cfg_path = config(tmp_path, scheduler)
    assert load_config(cfg_path).task_runner == "dask"  # dask_address alone means the Dask runner
    with prefect_test_harness(server_startup_timeout=120):
        report = site_flow("example", str(cfg_path))
    assert report["new"] == 4 and report["failed"] == 0
    assert (tmp_path / "data" / "corpus" / "example" / "tea.md").exists()

    def done_here(dask_worker) -> tuple[int, list[str]]:  # noqa: ANN001 - runs inside the worker process
        keys = {str(entry[0]) for entry in dask_worker.state.log if entry and entry[-2:-1] != ()}
        return os.getpid(), sorted(k for k in keys if "extract" in k)

    with Client(scheduler, timeout="30s") as client:
        ran = client.run(done_here)
        names = client.run(lambda dask_worker: dask_worker.name)
    (worker_addr, (pid, keys)), = ran.items()
    assert names[worker_addr] == "siterag-test-worker" and pid != os.getpid()
    assert len(keys) >= 3, keys  # the example site's pages in batches of 2: every batch on that worker


def test_bad_or_unreachable_dask_address_is_one_line(tmp_path):
    path = write_config(tmp_path, '[defaults]\ndask_address = "127.0.0.1:8786"\n[[site]]\nname = "x"\n'
                                  'start_urls = ["http://127.0.0.1:1/"]\n')
    with pytest.raises(ConfigError, match=r'dask_address: must be a Dask scheduler address "tcp://HOST:PORT"'):
        load_config(path)
    path.write_text('[defaults]\ndask_address = "tcp://127.0.0.1:8786"\ntask_runner = "thread"\n[[site]]\n'
                    'name = "x"\nstart_urls = ["http://127.0.0.1:1/"]\n')
    with pytest.raises(ConfigError, match="dask_address is set but task_runner"):
        load_config(path)
    address = f"tcp://127.0.0.1:{free_port()}"
    # Nothing listening there: the site's run fails with one line (exit 1, as any failing site), no traceback.
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "a.html").write_text("<html><body><p>" + "text " * 80 + "</p></body></html>")
    write_config(tmp_path, f'[defaults]\ndata_dir = "{tmp_path / "data"}"\n'
                           f'dask_address = "{address}"\n[[site]]\nname = "x"\n'
                           f'local_path = "{tmp_path / "site"}"\nextract_mode = "heuristic"\n')
    res = subprocess.run([sys.executable, "-m", "siterag.cli", "--config", str(tmp_path / "sites.toml"), "run"],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.strip().splitlines() == [f"siterag: error: x: Timed out trying to connect to {address} after "
                                               "20 s"], res.stderr
