"""Scale-out: extract batches on a local Dask cluster, and LLM requests spread over several endpoints."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from siterag.config import ConfigError, LLMConfig, load_config
from siterag.enrich.corpus import read_doc
from siterag.llm.client import LLMClient, LLMError
from tests.conftest import EXAMPLE_SITE, free_port, write_config
from tests.fake_servers import FakeLLM

SCHEMA = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}


def site_config(url: str, data: Path, runner: str) -> str:
    return f"""
[defaults]
data_dir = "{data}"
batch_size = 2
task_runner = "{runner}"
dask_workers = 2
[[site]]
name = "example"
start_urls = ["{url}/index.html", "{url}/frames.html"]
extract_mode = "heuristic"
"""


def corpus(root: Path) -> dict[str, tuple[dict, str]]:
    docs = {}
    for path in sorted(root.rglob("*.md")):
        fields, body = read_doc(path)
        fields.pop("processed_at", None)
        docs[str(path.relative_to(root))] = (fields, body)
    return docs


def test_task_runner_settings_are_checked(tmp_path):
    base = f'[[site]]\nname = "x"\nlocal_path = "{EXAMPLE_SITE}"\n'
    assert load_config(write_config(tmp_path, base)).task_runner == "thread"
    cfg = load_config(write_config(tmp_path, '[defaults]\ntask_runner = "dask"\ndask_workers = 3\n' + base))
    assert (cfg.task_runner, cfg.dask_workers) == ("dask", 3)
    with pytest.raises(ConfigError, match="task_runner"):
        load_config(write_config(tmp_path, '[defaults]\ntask_runner = "ray"\n' + base))
    with pytest.raises(ConfigError, match="dask_workers"):
        load_config(write_config(tmp_path, '[defaults]\ndask_workers = 0\n' + base))


def test_dask_task_runner_gives_the_same_corpus_as_the_default(tmp_path, served_example):
    from prefect.testing.utilities import prefect_test_harness

    from flows.site import site_flow

    _, url = served_example
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain = write_config(tmp_path / "a", site_config(url, tmp_path / "a" / "data", "thread"))
    dask = write_config(tmp_path / "b", site_config(url, tmp_path / "b" / "data", "dask"))
    with prefect_test_harness(server_startup_timeout=120):
        first = site_flow("example", str(plain))
        started = time.monotonic()
        second = site_flow("example", str(dask))
        dask_s = time.monotonic() - started
        third = site_flow("example", str(dask))  # the batches' cache works from the workers too
    print(f"dask site flow: {dask_s:.1f} s")
    assert first["new"] == second["new"] == 4 and second["skipped"] == 2  # frameset, menu (template only)
    assert second["index"]["upserted"] == 4
    assert third["unchanged"] == 4 and third["new"] == third["changed"] == 0 and third["index"]["upserted"] == 0
    a = corpus(tmp_path / "a" / "data" / "corpus" / "example")
    b = corpus(tmp_path / "b" / "data" / "corpus" / "example")
    assert a and a == b


def closed_url() -> str:
    return f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there any more


def ask(client: LLMClient, n: int) -> None:
    for i in range(n):
        assert client.chat_json("s", f"Page title: p{i}", SCHEMA)["title"] == f"p{i}"


def test_base_urls_config_keeps_base_url_working(tmp_path):
    base = f'[[site]]\nname = "x"\nlocal_path = "{EXAMPLE_SITE}"\nextract_mode = "llm"\n'
    cfg = load_config(write_config(tmp_path, '[llm]\nbase_urls = ["http://a:1/v1/", "http://b:2/v1"]\n' + base))
    assert cfg.llm.enabled and cfg.llm.urls() == ("http://a:1/v1", "http://b:2/v1")
    cfg = load_config(write_config(tmp_path, '[llm]\nbase_url = "http://a:1/v1"\n' + base))
    assert cfg.llm.urls() == ("http://a:1/v1",) and cfg.llm.url() == "http://a:1/v1"


def test_requests_are_spread_over_the_endpoints():
    servers = [FakeLLM(), FakeLLM()]
    try:
        client = LLMClient(LLMConfig(base_urls=tuple(s.url for s in servers), retries=0))
        ask(client, 10)
        assert [len(s.requests) for s in servers] == [5, 5]
        # in parallel, the least busy endpoint gets the next request
        for s in servers:
            s.delay = 0.2
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda i: client.chat_json("s", f"Page title: q{i}", SCHEMA), range(8)))
        assert [len(s.calls("q")) for s in servers] == [4, 4]
    finally:
        for s in servers:
            s.stop()


def test_a_dead_endpoint_is_skipped_and_tried_again_later():
    live = FakeLLM()
    dead = closed_url()
    try:
        client = LLMClient(LLMConfig(base_urls=(dead, live.url), retries=0, timeout=5))
        client.pool.retry_after_s = 0.5
        ask(client, 6)  # not one request lost: the refused one moves on to the live endpoint
        assert len(live.requests) == 6 and client.stats.failures == 0
        down = client.pool.endpoints[0]
        assert down.failed == 1 and down.sent == 0  # skipped while dead, not retried on every request
        time.sleep(0.6)
        ask(client, 1)
        assert down.failed == 2  # tried again once retry_after_s was up
        # the endpoint comes back on its port: it gets requests again
        port = int(dead.rsplit(":", 1)[1].split("/")[0])
        back = FakeLLM(port=port)
        try:
            time.sleep(0.6)
            ask(client, 4)
            assert len(back.requests) >= 2 and down.sent >= 2
        finally:
            back.stop()
        # every endpoint dead: the request fails as "down", like one dead base_url
        live.stop()
        client = LLMClient(LLMConfig(base_urls=(closed_url(), closed_url()), retries=0))
        with pytest.raises(LLMError) as err:
            ask(client, 1)
        assert err.value.reason == "down"
    finally:
        live.stop()


def test_timeout_moves_on_to_the_other_endpoint():
    slow, fast = FakeLLM(delay=2.0), FakeLLM()
    try:
        client = LLMClient(LLMConfig(base_urls=(slow.url, fast.url), retries=0, timeout=0.5))
        ask(client, 3)
        assert len(slow.requests) == 1 and len(fast.requests) == 3
    finally:
        slow.stop()
        fast.stop()


def test_concurrency_gate_is_per_endpoint():
    import threading
    from collections import Counter
    from concurrent.futures import ThreadPoolExecutor
    from contextlib import contextmanager

    servers = [FakeLLM(delay=0.1), FakeLLM(delay=0.1)]
    locks = {s.url: threading.Semaphore(1) for s in servers}
    inside: Counter = Counter()
    most: Counter = Counter()
    guard = threading.Lock()

    @contextmanager
    def gate(url: str):
        with locks[url]:
            with guard:
                inside[url] += 1
                most[url] = max(most[url], inside[url])
            try:
                yield
            finally:
                with guard:
                    inside[url] -= 1

    try:
        client = LLMClient(LLMConfig(base_urls=tuple(locks), retries=0), endpoint_gate=gate)
        with ThreadPoolExecutor(6) as pool:
            list(pool.map(lambda i: client.chat_json("s", f"Page title: c{i}", SCHEMA), range(12)))
        assert set(most.values()) == {1} and len(most) == 2  # one at a time on each, both used
    finally:
        for s in servers:
            s.stop()


def test_prefect_limit_per_endpoint():
    from prefect.client.orchestration import get_client
    from prefect.testing.utilities import prefect_test_harness

    from siterag.llm.limit import LIMIT_NAME, endpoint_limit_name, ensure_llm_limit, limit_names

    cfg = LLMConfig(base_urls=("http://127.0.0.1:8081/v1", "http://127.0.0.1:8082/v1"), max_concurrent=2)
    names = limit_names(cfg)
    assert names == ["siterag-llm-127-0-0-1-8081-v1", "siterag-llm-127-0-0-1-8082-v1"]
    assert limit_names(LLMConfig(base_url="http://x/v1")) == [LIMIT_NAME]
    assert endpoint_limit_name("http://127.0.0.1:8081/v1/") == names[0]
    with prefect_test_harness(server_startup_timeout=120):
        assert ensure_llm_limit(cfg)
        with get_client(sync_client=True) as client:
            limits = {lim.name: lim.limit for lim in client.read_global_concurrency_limits(limit=100)}
    assert all(limits.get(n) == 2 for n in names)


def answered(client: LLMClient, title: str) -> None:
    """One request that a server answered (a small model's answer may still miss the schema)."""
    try:
        client.chat_json("Answer in JSON.", f"Page title: {title}\nGive the title.", SCHEMA)
    except LLMError as exc:
        assert exc.reason not in ("down", "timeout"), exc


@pytest.mark.llama
def test_two_real_llama_servers_share_the_requests(llama_url):
    """One more real llama-server next to the session one: both answer, a stopped one is skipped."""

    from siterag.llm.llama_server import start_server, stop_server

    port = free_port()
    proc = start_server(port, ctx=2048, threads=1)
    second = f"http://127.0.0.1:{port}/v1"
    try:
        client = LLMClient(LLMConfig(base_urls=(llama_url, second), retries=0, max_tokens=64))
        for i in range(4):
            answered(client, f"お茶{i}")
        assert [ep.sent for ep in client.pool.endpoints] == [2, 2]
        stop_server(proc)
        for i in range(2):
            answered(client, f"茶{i}")
        assert client.pool.endpoints[0].sent == 4 and client.pool.endpoints[1].failed == 1
    finally:
        stop_server(proc)


def test_each_extract_task_carries_only_its_own_pages(tmp_path):
    """A task's parameters hold its batch's entries of the site's maps, not the whole site's (whose
    serialisation for every task grew with the square of the pages)."""
    from flows.site import extract_batches
    from siterag.layout import SiteLayout

    cfg = load_config(write_config(tmp_path, f'[defaults]\nbatch_size = 3\n[[site]]\nname = "x"\n'
                                             f'local_path = "{EXAMPLE_SITE}"\n'))
    pages = [f"p{i}.html" for i in range(8)]
    corpus_map = {p: p.replace(".html", ".md") for p in pages}
    manifest = {p: {"hash": p} for p in pages}
    templates = {p: ["k"] for p in pages[:4]}
    batches = extract_batches(SiteLayout(cfg.data_dir, "x"), cfg.site("x"), cfg, pages, corpus_map, manifest,
                              templates)
    assert [b["rels"] for b in batches] == [pages[0:3], pages[3:6], pages[6:8]]
    for b in batches:
        assert set(b["corpus_map"]) == set(b["manifest"]) == set(b["templates"].value) == set(b["rels"])
        assert all(b["corpus_map"][r] == corpus_map[r] and b["manifest"][r] == manifest[r] for r in b["rels"])
    assert batches[1]["templates"].value == {"p3.html": ["k"], "p4.html": [], "p5.html": []}


def test_template_keys_travel_sealed_so_prefect_does_not_walk_them(tmp_path):
    """Prefect visits every item of a task's parameters several times per task run; the template keys of a
    batch (thousands of strings) travel Sealed: one item to Prefect, the same dict to the task and its cache key."""
    import pickle

    from prefect.utilities.collections import visit_collection

    from siterag.layout import SiteLayout
    from tasks import Sealed
    from tasks.stages import batch_cache_key, unsealed

    keys = {f"p{i}.html": [f"line {j}" for j in range(100)] for i in range(5)}
    visited: list[object] = []
    visit_collection({"templates": Sealed(keys)}, visit_fn=visited.append)
    assert len(visited) < 5
    visited.clear()
    visit_collection({"templates": keys}, visit_fn=visited.append)
    assert len(visited) > 500  # what the flow paid per visit before
    assert unsealed(pickle.loads(pickle.dumps(Sealed(keys)))) == keys == unsealed(keys)

    # the batch's cache key is the same either way (a run with sealed keys finds the batches cached before)
    cfg = load_config(write_config(tmp_path, f'[[site]]\nname = "example"\nlocal_path = "{EXAMPLE_SITE}"\n'))
    layout = SiteLayout(cfg.data_dir, "example")
    from siterag.pipeline import normalize_pages, process_batch, select_pages

    select = select_pages(EXAMPLE_SITE, layout.logs)
    manifest = normalize_pages(EXAMPLE_SITE, layout.normalized, select.pages)
    rels = [r for r in select.pages if r.endswith("tea.html")]
    corpus_map = {r: r.replace(".html", ".md") for r in rels}
    tpl = {r: ["some line"] for r in rels}
    process_batch(layout, cfg.site("example"), rels, corpus_map, manifest, None, False, "", templates=tpl)
    params = dict(layout=layout, site=cfg.site("example"), llm=cfg.llm, rels=rels, corpus_map=corpus_map,
                  manifest=manifest)
    sealed = batch_cache_key(None, {**params, "templates": Sealed(tpl)})
    assert sealed and sealed == batch_cache_key(None, {**params, "templates": tpl})
    assert sealed != batch_cache_key(None, {**params, "templates": {r: [] for r in rels}})


def test_the_extract_workers_do_not_import_lancedb():
    """A Dask worker imports the tasks to run an extract batch; LanceDB (~7 s of a worker's CPU to import on 2 shared
    cores) is imported only where a table is opened, in the index stage."""
    import subprocess
    import sys

    code = "import sys, tasks, flows.site, siterag.pipeline; print('lancedb' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "False"


def test_dask_workers_run_without_dasks_sampling_profiler(tmp_path):
    """Dask samples every worker's threads every 10 ms for its dashboard by default; the flow's workers do not
    (a few % of the extract stage's CPU, and no dashboard is shown)."""
    from prefect import flow, task
    from prefect.testing.utilities import prefect_test_harness

    from flows.site import dask_runner

    @task
    def probe() -> tuple[bool, bool]:
        import dask
        from distributed import get_worker

        return dask.config.get("distributed.worker.profile.enabled"), "profile" in get_worker().periodic_callbacks

    @flow
    def on_dask() -> tuple[bool, bool]:
        with dask_runner(1) as runner:
            return runner.submit(probe, parameters={}).result()

    with prefect_test_harness(server_startup_timeout=120):
        assert on_dask() == (False, False)
