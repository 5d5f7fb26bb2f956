"""The index under faults, through the real CLI (a subprocess with its own Prefect), real LanceDB and the USE
embedder: two runs of one site at once, a lost table or data file, a full disk, hand-edited corpus fields of the
wrong kind, a site renamed in the config, a damaged run report, and old table versions piling up."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import frontmatter
import lancedb
import pytest

from siterag.index import index as index_module
from siterag.index.embedding import get_embedder
from siterag.index.index import IndexedDoc, sync_site
from siterag.layout import SiteLayout
from siterag.lock import site_lock
from siterag.pipeline import corpus_docs
from tests.conftest import EXAMPLE_SITE, write_config

pytestmark = pytest.mark.bad_input


def siterag(tmp_path: Path, cfg: Path, *args: str, limit_bytes: int = 0,
            popen: bool = False) -> subprocess.CompletedProcess | subprocess.Popen:
    """The CLI as a person runs it; `limit_bytes`: no file it writes may grow past this (a full disk)."""
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect-home"), "SITERAG_SEARCH_DAEMON": "off"}
    env.pop("PREFECT_LOGGING_LEVEL", None)

    def full_disk() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, resource.RLIM_INFINITY))

    cmd = [sys.executable, "-m", "siterag.cli", "--config", str(cfg), *args]
    if popen:
        return subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900,
                          preexec_fn=full_disk if limit_bytes else None)


def example_copy(tmp_path: Path, name: str = "src") -> Path:
    src = tmp_path / name
    shutil.copytree(EXAMPLE_SITE, src)
    return src


def local_site(name: str, src: Path) -> str:
    return f'[[site]]\nname = "{name}"\nlocal_path = "{src}"\nextract_mode = "heuristic"\n'


def rows(data: Path) -> dict[str, list[tuple[str, str]]]:
    """(id, site) of every row of both tables, sorted (duplicates kept)."""
    db = lancedb.connect(str(data / "lancedb"))
    return {name: sorted((r["id"], r["site"]) for r in db.open_table(name).search().select(["id", "site"])
                         .limit(None).to_arrow().to_pylist()) for name in ("documents", "chunks")}


def errors(proc: subprocess.CompletedProcess) -> list[str]:
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr[-3000:]
    return proc.stderr.splitlines()


def test_two_runs_of_one_site_at_once_leave_each_row_once(tmp_path):
    src = example_copy(tmp_path)
    data = tmp_path / "data"
    cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "{data}"\n' + local_site("example", src))
    for n in (1, 2):
        (tmp_path / f"p{n}").mkdir()
    first, second = (siterag(tmp_path / f"p{n}", cfg, "run", popen=True) for n in (1, 2))
    results = [(p, *p.communicate(timeout=900)) for p in (first, second)]
    busy = [f"siterag: error: example: site example is being archived by another run (pid {p.pid}); run it again "
            "when that one has finished" for p in (first, second)]
    for proc, out, err in results:
        assert "Traceback" not in out + err, err[-3000:]
        # Each run either archived the site or stopped at once because the other one held the site.
        assert (proc.returncode, err.strip()) in [(0, "")] + [(1, line) for line in busy], (proc.returncode, err)
    assert any(proc.returncode == 0 for proc, _, _ in results)
    documents = len(corpus_docs(SiteLayout(data, "example")))
    held = rows(data)
    assert len(held["documents"]) == len(set(held["documents"])) == documents >= 4  # each document once
    assert len(held["chunks"]) == len(set(held["chunks"])) >= documents  # each chunk once

    # A run while another process holds the site: one line naming it, nothing written; reindex says the same.
    with site_lock(data, "example"):
        blocked = siterag(tmp_path, cfg, "run")
        reindex = siterag(tmp_path, cfg, "reindex")
    line = (f"site example is being archived by another run (pid {os.getpid()}); run it again when that one has "
            "finished")
    assert blocked.returncode == 1 and errors(blocked) == [f"siterag: error: example: {line}"]
    assert reindex.returncode == 2 and errors(reindex) == [f"siterag: error: {line}"]
    assert rows(data) == held
    again = siterag(tmp_path, cfg, "run")  # the lock went with its holder
    assert again.returncode == 0 and f"0 docs upserted (0 chunks), {documents} unchanged" in again.stdout, again.stderr


def emb_docs(n: int, version: str = "v1") -> list[IndexedDoc]:
    return [IndexedDoc(doc_id=f"s/p{i}.md", site="s", path=f"p{i}.html", source="", title=f"お茶 {i}", category="",
                       tags=["tea"], date="2003-05", summary="", content_hash=f"{version}-{i}",
                       body=f"# 静岡\n\n{version}: 静岡のお茶の話です。" * 30) for i in range(n)]


def test_rows_doubled_by_an_old_race_are_healed_and_old_versions_cleaned(tmp_path, monkeypatch):
    emb = get_embedder("use-multilingual-v3")
    db_dir = tmp_path / "lancedb"
    sync_site(db_dir, "s", emb_docs(3), emb)
    db = lancedb.connect(str(db_dir))
    for name in ("documents", "chunks"):  # what two runs racing each other left: every row twice
        table = db.open_table(name)
        table.add(table.search().where("site = 's'").limit(None).to_arrow())
    doubled = rows(tmp_path)
    assert len(doubled["documents"]) == 6
    stats = sync_site(db_dir, "s", emb_docs(3), emb)
    assert sorted(stats.upserted) == ["s/p0.md", "s/p1.md", "s/p2.md"]
    healed = rows(tmp_path)
    assert healed == {name: sorted(set(r)) for name, r in doubled.items()}
    assert sync_site(db_dir, "s", emb_docs(3), emb).upserted == []  # and then left alone

    # Versions older than KEEP_VERSIONS_S go after each sync that wrote (here: all but the latest).
    monkeypatch.setattr(index_module, "KEEP_VERSIONS_S", 0)
    for version in ("v2", "v3", "v4"):
        sync_site(db_dir, "s", emb_docs(3, version), emb)
    for name in ("documents", "chunks"):
        table = lancedb.connect(str(db_dir)).open_table(name)
        assert len(table.list_versions()) <= 2, (name, len(table.list_versions()))
        texts = table.search().where("site = 's'").select(["text"]).limit(None).to_arrow()["text"].to_pylist()
        assert texts and all("v4" in t for t in texts)
    data_files = list((db_dir / "chunks.lance" / "data").iterdir())
    assert len(data_files) <= 2, data_files


def test_a_lost_table_or_data_file_is_rebuilt_and_a_full_disk_is_one_line(tmp_path):
    src = example_copy(tmp_path)
    data = tmp_path / "data"
    cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "{data}"\n' + local_site("example", src))
    first = siterag(tmp_path, cfg, "run")
    assert first.returncode == 0, first.stderr[-3000:]
    whole = rows(data)

    shutil.rmtree(data / "lancedb" / "chunks.lance")  # the chunks table is lost
    rerun = siterag(tmp_path, cfg, "run")
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert f"{len(whole['documents'])} docs upserted" in rerun.stdout
    assert rows(data) == whole

    next(iter(sorted((data / "lancedb" / "chunks.lance" / "data").iterdir()))).unlink()  # one data file lost
    for args in (("status",), ("search", "お茶")):
        proc = siterag(tmp_path, cfg, *args)
        lines = errors(proc)
        assert proc.returncode == 2 and len(lines) == 1, (args, proc.stderr)
        assert lines[0].startswith("siterag: error: ") and "cannot read it (Not found: " in lines[0], lines
        assert "run `siterag reindex` to rebuild it" in lines[0]
    broken = siterag(tmp_path, cfg, "run")
    lines = errors(broken)
    assert broken.returncode == 1 and len(lines) == 1 and "example: index " in lines[0] and "reindex" in lines[0]
    fixed = siterag(tmp_path, cfg, "reindex")
    assert fixed.returncode == 0, fixed.stderr
    assert errors(fixed)[0].startswith("warning: table chunks (Not found: ")
    assert rows(data) == whole
    status = siterag(tmp_path, cfg, "status")
    assert status.returncode == 0 and errors(status) == []

    # A disk that fills up while LanceDB writes: one line, and the index as it was.
    full = siterag(tmp_path, cfg, "reindex", limit_bytes=4096)
    lines = errors(full)
    assert full.returncode == 2 and len(lines) == 1, full.stderr
    assert lines[0].startswith("siterag: error: index ") and "write failed (File too large (os error 27))" in lines[0]
    assert rows(data) == whole
    found = siterag(tmp_path, cfg, "search", "お茶", "--json")
    assert found.returncode == 0 and json.loads(found.stdout), found.stderr


def test_hand_edited_fields_a_renamed_site_and_a_damaged_report(tmp_path):
    data = tmp_path / "data"
    m, good = example_copy(tmp_path, "m"), example_copy(tmp_path, "good")
    cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "{data}"\n' + local_site("m", m) + local_site("good", good))
    assert siterag(tmp_path, cfg, "run", "m").returncode == 0
    corpus = data / "corpus" / "m"
    for rel, tags in (("tea.md", 5), ("links.md", "tea")):  # what a person may write by hand
        post = frontmatter.load(corpus / rel)
        post.metadata["tags"] = tags
        (corpus / rel).write_text(frontmatter.dumps(post, sort_keys=False, allow_unicode=True), encoding="utf-8")
    proc = siterag(tmp_path, cfg, "run")  # m first: its bad fields must not stop good
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert errors(proc) == []
    assert f"   warning: {corpus / 'tea.md'}: tags: 5 is not a list of tags; read as ['5']" in proc.stdout
    assert f"   warning: {corpus / 'links.md'}: tags: 'tea' is not a list of tags; read as ['tea']" in proc.stdout
    assert "   good: ok" in proc.stdout and len(corpus_docs(SiteLayout(data, "good"))) >= 4
    db = lancedb.connect(str(data / "lancedb"))
    tags = {r["id"]: r["tags"] for r in db.open_table("documents").search().where("site = 'm'")
            .select(["id", "tags"]).limit(None).to_arrow().to_pylist()}
    assert tags["m/tea.md"] == ["5"] and tags["m/links.md"] == ["tea"]
    assert "[!] Corpus: " in (data / "logs" / "m" / "error.log").read_text(encoding="utf-8")
    reindex = siterag(tmp_path, cfg, "reindex", "m")
    assert reindex.returncode == 0 and "tags: 5 is not a list of tags" in reindex.stderr, reindex.stderr

    # m renamed in the config: status lists its rows as not in the config; forget removes them, keeps its files.
    held = rows(data)
    cfg.write_text(cfg.read_text(encoding="utf-8").replace('name = "m"', 'name = "m-renamed"'), encoding="utf-8")
    report = data / "logs" / "good" / "report.json"
    report.write_text(report.read_text(encoding="utf-8")[:200], encoding="utf-8")  # cut short
    status = siterag(tmp_path, cfg, "status")
    assert status.returncode == 0
    lines = errors(status)
    assert len(lines) == 1 and lines[0].startswith("siterag: warning: data/logs/good/report.json: not valid JSON ("), \
        status.stderr
    assert lines[0].endswith("; the next run of good rewrites it")
    m_docs = sum(1 for _, site in held["documents"] if site == "m")
    listed = [line for line in status.stdout.splitlines() if line.startswith("m ")]
    assert len(listed) == 1 and "not in the config" in listed[0] and "siterag forget m" in listed[0]
    assert f" {m_docs} " in listed[0]
    assert any(line.startswith("good ") and "unknown" in line for line in status.stdout.splitlines())
    report.write_text(json.dumps({"finished_at": "2026-12-03T00:00:00+00:00"}), encoding="utf-8")  # keys missing
    status = siterag(tmp_path, cfg, "status")
    assert status.returncode == 0 and errors(status) == [
        "siterag: warning: data/logs/good/report.json: not a run report: no short, mojibake, llm_fallback, failed; "
        "the next run of good rewrites it"]

    forget = siterag(tmp_path, cfg, "forget", "m")
    assert forget.returncode == 0 and errors(forget) == [], forget.stderr
    assert f"m: {m_docs} documents and" in forget.stdout and "files kept: data/mirror/m" in forget.stdout
    assert {n: [r for r in v if r[1] == "m"] for n, v in rows(data).items()} == {"documents": [], "chunks": []}
    assert {n: [r for r in v if r[1] == "good"] for n, v in rows(data).items()} == \
        {n: [r for r in v if r[1] == "good"] for n, v in held.items()}
    assert (data / "corpus" / "m").is_dir()
    assert "not in the config" not in siterag(tmp_path, cfg, "status").stdout
    nothing = siterag(tmp_path, cfg, "forget", "m")
    assert nothing.returncode == 2 and errors(nothing) == [
        "siterag: error: the index holds no rows of site 'm'; its files are still under data (--all deletes them)"]
    wiped = siterag(tmp_path, cfg, "forget", "m", "--all")
    assert wiped.returncode == 0 and not (data / "corpus" / "m").exists() and not (data / "mirror" / "m").exists()
    assert (data / "corpus" / "good").is_dir()


def test_a_retried_index_task_writes_each_corpus_problem_once(tmp_path, monkeypatch):
    """The index task is retried once; the problems its first try found are found again by the retry, and the
    error log gets them once (it got them twice)."""
    from prefect import flow

    import tasks.stages as stages
    from siterag.enrich.corpus import write_doc
    from siterag.index.store import IndexStore

    layout = SiteLayout(tmp_path / "data", "m")
    write_doc(layout.corpus / "tea.md", "# お茶\n\n緑茶を淹れた。", {"title": "お茶", "tags": 5})
    write_doc(layout.corpus / "cha.md", "# 茶畑\n\n茶畑を歩いた。", {"title": "茶畑", "tags": ["茶"]})
    real, tries = stages.sync_site, []

    def flaky(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        stats = real(*args, **kwargs)  # reads the corpus: finds tea.md's tags
        tries.append(1)
        if len(tries) == 1:
            raise OSError("the disk hiccuped")
        return stats

    monkeypatch.setattr(stages, "sync_site", flaky)

    @flow
    def index_only() -> dict:
        return stages.index_task.with_options(retry_delay_seconds=0)(
            layout, "use-multilingual-v3", IndexStore(str(tmp_path / "data" / "lancedb")))

    report = index_only()
    assert len(tries) == 2 and report["warnings"] and report["upserted"] + report["unchanged"] == 2
    logged = (layout.logs / "error.log").read_text(encoding="utf-8").splitlines()
    assert len([line for line in logged if "[!] Corpus: " in line and "tags: 5" in line]) == 1, logged
    assert len([line for line in logged if "[!] Corpus: " in line]) == len(report["warnings"]), logged
