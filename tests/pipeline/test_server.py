"""A real `prefect server start` on 127.0.0.1 and `siterag serve` against it: one deployment per site with the
site's cron, two site flows at once (both COMPLETED, no `database is locked`), their quality-report and
progress artifacts, one LLM concurrency limit over both flows, and `siterag status` reading the last runs.

Deselect with `-m "not server"` (CI runs it: ~1.5 min on 2 cores).
"""

from __future__ import annotations

import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.conftest import EXAMPLE_SITE, ROOT, free_port, serve_dir

PREFECT = str(Path(sys.executable).parent / "prefect")
SITES = {"example": "0 3 * * *", "example-b": "30 4 * * 0"}  # site -> cron (the first from [defaults])
LLM_DELAY_S = 0.3
FIRST_HOLD_S = 8.0  # the first request waits this long for a second one, so that both flows want the LLM at once
MAX_CONCURRENT = 1  # [llm] max_concurrent: one request at a time over both flows


def stop_group(proc: subprocess.Popen, grace_s: float = 20) -> None:
    """Stop a process started with start_new_session=True and everything it started."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(grace_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # flow-run subprocesses the runner may have left
    except ProcessLookupError:
        pass


class FakeLLM(http.server.ThreadingHTTPServer):
    """An OpenAI-compatible chat endpoint on 127.0.0.1 that answers block selections slowly and records
    how many requests it was serving at once. It holds the first request until a second one comes in (no
    limit) or FIRST_HOLD_S passes (the other flow is then waiting for the slot)."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _FakeLLMHandler)
        self.lock = threading.Lock()
        self.active = 0
        self.max_active = 0
        self.calls = 0
        self.overlap = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _FakeLLMHandler(http.server.BaseHTTPRequestHandler):
    server: FakeLLM

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        fake = self.server
        with fake.lock:
            fake.active += 1
            fake.calls += 1
            first = fake.calls == 1
            fake.max_active = max(fake.max_active, fake.active)
            if fake.active > 1:
                fake.overlap.set()
        try:
            if first:
                fake.overlap.wait(FIRST_HOLD_S)
            time.sleep(LLM_DELAY_S)
            if "response_format" in body:  # block selection under a JSON schema: keep every block
                ids = body["response_format"]["json_schema"]["schema"]["properties"]["main"]["items"]["enum"]
                content, logprobs = json.dumps({"main": ids}), None
            else:  # a one-token choice ("A" = page content)
                content = "A"
                top = {"token": "A", "logprob": 0.0}
                logprobs = {"content": [{**top, "top_logprobs": [top]}]}
            answer = {"choices": [{"message": {"role": "assistant", "content": content}, "logprobs": logprobs,
                                   "finish_reason": "stop"}], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}
            data = json.dumps(answer).encode()
        finally:
            with fake.lock:
                fake.active -= 1
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class Server:
    """A running `prefect server start`: its API URL, the environment that points at it, its log."""

    def __init__(self, api_url: str, env: dict[str, str], log: Path) -> None:
        self.api_url, self.env, self.log = api_url, env, log

    def client(self):  # noqa: ANN201 - a context manager yielding a SyncPrefectClient on this server
        from prefect.client.orchestration import get_client
        from prefect.settings import PREFECT_API_URL, temporary_settings

        @contextmanager
        def _client():  # noqa: ANN202
            with temporary_settings({PREFECT_API_URL: self.api_url}), get_client(sync_client=True) as c:
                yield c

        return _client()


@contextmanager
def running_prefect_server(home: Path, **settings: str) -> Iterator[Server]:
    """`prefect server start` on a free 127.0.0.1 port with PREFECT_HOME=home (plus `settings`), healthy."""
    port = free_port()
    api_url = f"http://127.0.0.1:{port}/api"
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_API_URL": api_url,
           "PREFECT_SERVER_API_HOST": "127.0.0.1", "PREFECT_SERVER_API_PORT": str(port),
           "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1", "PREFECT_UI_ENABLED": "false",
           "PREFECT_RUNNER_POLL_FREQUENCY": "2", **settings}
    log = home / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([PREFECT, "server", "start"], env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                pytest.fail(f"prefect server start exited {proc.returncode}: {log.read_text()[-2000:]}")
            try:
                if httpx.get(api_url + "/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"prefect server not healthy in 120 s: {log.read_text()[-2000:]}")
            time.sleep(0.5)
        yield Server(api_url, env, log)
    finally:
        stop_group(proc)


@pytest.fixture(scope="module")
def prefect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_prefect_server(tmp_path_factory.mktemp("prefect-server")) as server:
        yield server


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeLLM]:
    server = FakeLLM()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()


@pytest.fixture(scope="module")
def served_runs(prefect_server: Server, fake_llm: FakeLLM, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """`siterag serve` for two sites; one run of each deployment triggered at the same moment, finished."""
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId, TaskRunFilter, TaskRunFilterName
    from prefect.deployments import run_deployment
    from prefect.settings import PREFECT_API_URL, temporary_settings

    tmp = tmp_path_factory.mktemp("served")
    www, url = serve_dir(EXAMPLE_SITE)
    sites = "".join(f'\n[[site]]\nname = "{name}"\nstart_urls = ["{url}/index.html", "{url}/frames.html"]\n'
                    f'extract_mode = "llm"\n' + (f'schedule = "{cron}"\n' if name != "example" else "")
                    for name, cron in SITES.items())
    config = tmp / "sites.toml"
    config.write_text(f"""
[defaults]
data_dir = "{tmp / 'data'}"
batch_size = 3
schedule = "{SITES['example']}"

[llm]
base_url = "{fake_llm.url}"
model = "fake"
enrich = false
retries = 0
timeout = 60
max_concurrent = {MAX_CONCURRENT}
{sites}""", encoding="utf-8")
    serve_log = tmp / "serve.log"
    with open(serve_log, "wb") as out:
        serve = subprocess.Popen([sys.executable, "-m", "siterag.cli", "--config", str(config), "serve"],
                                 cwd=ROOT, env=prefect_server.env, stdout=out, stderr=subprocess.STDOUT,
                                 start_new_session=True)
    try:
        names = [f"site/refresh-{name}" for name in SITES]
        with prefect_server.client() as client:
            deadline = time.monotonic() + 120
            while True:
                try:
                    deployments = {n: client.read_deployment_by_name(n) for n in names}
                    break
                except Exception:  # noqa: BLE001 - not registered yet
                    if serve.poll() is not None or time.monotonic() > deadline:
                        pytest.fail(f"siterag serve did not register its deployments: {serve_log.read_text()[-3000:]}")
                    time.sleep(1)
            with temporary_settings({PREFECT_API_URL: prefect_server.api_url}):
                started = {n: run_deployment(name=n, timeout=0) for n in names}
            deadline = time.monotonic() + 300
            while True:
                runs = {n: client.read_flow_run(r.id) for n, r in started.items()}
                if all(r.state and r.state.is_final() for r in runs.values()):
                    break
                if serve.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"runs did not finish: {[r.state_name for r in runs.values()]}: "
                                f"{serve_log.read_text()[-3000:]}")
                time.sleep(1)
            ids = [r.id for r in runs.values()]
            artifacts = {n: client.read_artifacts(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[r.id])))
                         for n, r in runs.items()}
            extract_tasks = client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=ids)),
                                                  task_run_filter=TaskRunFilter(name=TaskRunFilterName(
                                                      like_="extract+enrich")))
            limit = client.read_global_concurrency_limit_by_name("siterag-llm")
        yield {"config": config, "deployments": deployments, "runs": runs, "artifacts": artifacts,
               "extract_tasks": extract_tasks, "limit": limit, "serve_log": serve_log}
    finally:
        stop_group(serve)
        www.shutdown()


@pytest.mark.server
def test_serve_creates_one_deployment_per_site_with_its_cron(served_runs):
    for name, cron in SITES.items():
        dep = served_runs["deployments"][f"site/refresh-{name}"]
        assert [s.schedule.cron for s in dep.schedules] == [cron]
        assert all(s.active for s in dep.schedules)
        assert dep.parameters["site_name"] == name
        assert Path(dep.parameters["config_path"]) == served_runs["config"]


@pytest.mark.server
def test_two_site_flows_at_once_complete_without_database_locked(served_runs, prefect_server):
    runs = list(served_runs["runs"].values())
    assert [r.state.type.value for r in runs] == ["COMPLETED", "COMPLETED"], [r.state for r in runs]
    a, b = runs
    assert a.start_time < b.end_time and b.start_time < a.end_time, "the two runs did not run at the same time"
    logs = prefect_server.log.read_text(errors="replace") + served_runs["serve_log"].read_text(errors="replace")
    assert "database is locked" not in logs


@pytest.mark.server
def test_runs_publish_the_quality_report_table_and_progress_artifacts(served_runs):
    for name in SITES:
        arts = served_runs["artifacts"][f"site/refresh-{name}"]
        table = [a for a in arts if a.type == "table"]
        progress = [a for a in arts if a.type == "progress"]
        assert [a.key for a in table] == [f"quality-{name}"]
        rows = {row["measure"]: row["value"] for row in json.loads(table[0].data)}
        assert rows["pages_seen"] == 6 and rows["new"] == 4 and rows["llm_calls"] >= 4
        assert len(progress) == 1 and float(progress[0].data) == 100.0


@pytest.mark.server
def test_llm_requests_of_both_flows_never_exceed_the_concurrency_limit(served_runs, fake_llm):
    limit = served_runs["limit"]
    assert limit.limit == MAX_CONCURRENT and limit.active
    assert fake_llm.calls >= 8  # 4 documents per site (menu.html is only template), one request each
    spans = {}
    for tr in served_runs["extract_tasks"]:
        lo, hi = spans.get(tr.flow_run_id, (tr.start_time, tr.end_time))
        spans[tr.flow_run_id] = (min(lo, tr.start_time), max(hi, tr.end_time))
    (a0, a1), (b0, b1) = spans.values()
    assert a0 < b1 and b0 < a1, "the extract phases did not overlap: the limit was not put to the test"
    assert fake_llm.max_active == MAX_CONCURRENT, (fake_llm.max_active, fake_llm.calls)


@pytest.mark.server
def test_status_shows_each_sites_last_run_state_from_the_server(served_runs, prefect_server):
    res = subprocess.run([sys.executable, "-m", "siterag.cli", "--config", str(served_runs["config"]), "status"],
                         capture_output=True, text=True, timeout=120, env=prefect_server.env, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    lines = {line.split()[0]: line for line in res.stdout.splitlines()[1:]}
    for name in SITES:
        fields = lines[name].split()
        assert fields[2] == "Completed" and fields[3] == "4" and int(fields[4]) >= 4, lines[name]
        error_log = served_runs["config"].parent / "data" / "logs" / name / "error.log"
        problems = [line for line in error_log.read_text(encoding="utf-8").splitlines() if line.startswith("[!]")]
        assert fields[5] == str(len(problems))  # open problems ("[i]" lines are notes)
        assert "short pages 4" in lines[name]  # the example pages are all under 500 characters


def test_prefect_yaml_matches_the_example_config():
    """deployments/prefect.yaml (for `prefect deploy --all`) lists the sites of examples/sites.toml."""
    import yaml

    from siterag.config import load_config

    spec = yaml.safe_load((ROOT / "deployments" / "prefect.yaml").read_text(encoding="utf-8"))
    cfg_path = ROOT / "examples" / "sites.toml"
    cfg = load_config(cfg_path)
    got = {d["name"]: (d["parameters"]["site_name"], [s["cron"] for s in d["schedules"]]) for d in spec["deployments"]}
    assert got == {f"refresh-{s.name}": (s.name, [s.schedule]) for s in cfg.sites}
    assert all(d["entrypoint"] == "flows/site.py:site_flow" for d in spec["deployments"])


@pytest.mark.server
def test_prefect_yaml_deploys_to_a_process_work_pool(served_runs, prefect_server):
    """`prefect deploy --all` with deployments/prefect.yaml (runs last: it replaces the served refresh-example)."""
    run = lambda *args: subprocess.run([PREFECT, *args], capture_output=True, text=True, timeout=120,  # noqa: E731
                                       env=prefect_server.env, cwd=ROOT)
    res = run("work-pool", "create", "siterag", "--type", "process", "--overwrite")
    assert res.returncode == 0, res.stdout + res.stderr
    res = run("--no-prompt", "deploy", "--all", "--prefect-file", "deployments/prefect.yaml")
    assert res.returncode == 0, res.stdout + res.stderr
    with prefect_server.client() as client:
        dep = client.read_deployment_by_name("site/refresh-example")
    assert dep.work_pool_name == "siterag" and dep.entrypoint == "flows/site.py:site_flow"
    assert [s.schedule.cron for s in dep.schedules] == ["0 3 * * *"]
    assert dep.parameters == {"site_name": "example", "config_path": "examples/sites.toml"}
