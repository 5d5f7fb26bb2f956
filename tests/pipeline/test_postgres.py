"""Prefect on PostgreSQL: a real cluster (Debian's postgresql), `prefect server start` configured with it, and
two site flows (`siterag run`, one process each) at once against that server, both stored in PostgreSQL.

Skipped where PostgreSQL is not installed (scripts/setup installs it as root); deselect with `-m "not server"`.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT, serve_dir, write_config
from tests.pipeline.test_server import EXAMPLE_SITE, free_port, running_prefect_server
from tests.postgres import bin_dir, temporary_postgres

SITES = ("example", "example-b")

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(bin_dir() is None, reason="PostgreSQL not installed (apt-get install postgresql)")]


def test_two_site_flows_at_once_on_a_prefect_server_backed_by_postgresql(tmp_path):
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterName

    www, url = serve_dir(EXAMPLE_SITE)
    sites = "".join(f'[[site]]\nname = "{n}"\nstart_urls = ["{url}/index.html", "{url}/frames.html"]\n' for n in SITES)
    config = write_config(tmp_path, f'[defaults]\ndata_dir = "{tmp_path / "data"}"\nbatch_size = 2\n{sites}')
    home = tmp_path / "prefect"
    home.mkdir()
    try:
        with temporary_postgres(free_port()) as (db_url, psql), \
                running_prefect_server(home, PREFECT_API_DATABASE_CONNECTION_URL=db_url) as server:
            assert int(psql("SELECT count(*) FROM flow_run")) == 0  # Prefect made its tables here: migrated, empty
            started = time.monotonic()
            procs = {name: subprocess.Popen([sys.executable, "-m", "siterag.cli", "--config", str(config), "run", name],
                                            cwd=ROOT, env=server.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                            text=True) for name in SITES}
            outputs = {name: proc.communicate(timeout=300)[0] for name, proc in procs.items()}
            elapsed = time.monotonic() - started
            for name, proc in procs.items():
                assert proc.returncode == 0, outputs[name]
            # Both indexed into the shared tables; a write conflict with the other flow may have made Prefect
            # retry the index task, which then finds the rows already there ("0 upserted, 5 unchanged").
            from siterag.index.index import site_counts

            counts = site_counts(tmp_path / "data" / "lancedb")
            assert {n: counts[n][0] for n in SITES} == {n: 4 for n in SITES}, (counts, outputs)
            with server.client() as client:
                runs = client.read_flow_runs(flow_run_filter=FlowRunFilter(
                    name=FlowRunFilterName(any_=[f"site-{n}" for n in SITES])))
            assert sorted(r.name for r in runs) == [f"site-{n}" for n in SITES]
            assert all(r.state.is_completed() for r in runs), [r.state for r in runs]
            a, b = runs
            assert a.start_time < b.end_time and b.start_time < a.end_time, "the two flows did not run at once"
            # The server kept them in PostgreSQL: flow runs, their task runs and the quality artifacts.
            rows = psql("SELECT name || ' ' || state_type FROM flow_run ORDER BY name").split()
            assert rows == ["site-example", "COMPLETED", "site-example-b", "COMPLETED"]
            ids = ", ".join(f"'{r.id}'" for r in runs)
            assert int(psql(f"SELECT count(*) FROM task_run WHERE flow_run_id IN ({ids})")) >= 2 * 6
            keys = psql(f"SELECT key FROM artifact WHERE flow_run_id IN ({ids}) AND key IS NOT NULL ORDER BY key")
            assert keys.split() == [f"quality-{n}" for n in SITES]
            server_log = server.log.read_text(errors="replace")
            assert "Traceback" not in server_log, server_log[-3000:]
            print(f"postgres: 2 site flows at once in {elapsed:.1f} s")
    finally:
        www.shutdown()
