"""The LanceDB index on object storage (an S3 API on 127.0.0.1: moto's server, spoken to by lance's own
object-store client), and per-site rebuilds that leave the other sites' rows alone, on S3 and on a folder."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from siterag.cli import main
from siterag.config import ConfigError, load_config
from siterag.index.embedding import get_embedder
from siterag.index.index import connect, rebuild_site, site_counts, sync_site
from siterag.index.store import IndexStore
from siterag.search.search_api import search
from tests.conftest import EXAMPLE_SITE, write_config
from tests.index.test_index_search import FONT, JA, _snapshot, doc

BUCKET = "archive"
KEYS = {"AWS_ACCESS_KEY_ID": "siterag-test", "AWS_SECRET_ACCESS_KEY": "siterag-test-secret"}


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    moto_server = pytest.importorskip("moto.server")
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    s3_client(endpoint).create_bucket(Bucket=BUCKET)
    yield endpoint
    server.stop()


@pytest.fixture
def aws_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Credentials as a user gives them: in the environment, not in sites.toml."""
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)


def s3_client(endpoint: str):  # noqa: ANN201
    import boto3

    keys = {"aws_access_key_id": KEYS["AWS_ACCESS_KEY_ID"], "aws_secret_access_key": KEYS["AWS_SECRET_ACCESS_KEY"]}
    return boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", **keys)


def s3_objects(endpoint: str, prefix: str) -> list[str]:
    client = s3_client(endpoint)
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
    return [o["Key"] for page in pages for o in page.get("Contents", [])]


def index_section(endpoint: str, prefix: str) -> str:
    return (f'[index]\nuri = "s3://{BUCKET}/{prefix}"\n'
            f'storage_options = {{ aws_endpoint = "{endpoint}", allow_http = true, aws_region = "us-east-1" }}\n')


@pytest.fixture(scope="module")
def emb():
    return get_embedder("use-multilingual-v3")


def test_index_settings_are_checked(tmp_path):
    site = f'[[site]]\nname = "x"\nlocal_path = "{EXAMPLE_SITE}"\n'
    assert load_config(write_config(tmp_path, site)).store == IndexStore(str(tmp_path / "data" / "lancedb"))
    cfg = load_config(write_config(tmp_path, '[index]\nuri = "s3://b/p"\n'
                                             'storage_options = { allow_http = true, timeout = 30 }\n' + site))
    assert cfg.store == IndexStore("s3://b/p", (("allow_http", "true"), ("timeout", "30")))
    assert load_config(write_config(tmp_path, '[index]\nuri = "idx"\n' + site)).store.uri == str(tmp_path / "idx")
    for bad, message in (('uri = "ftp://b/p"', "scheme"), ('uri = ""', "uri"), ('url = "s3://b"', "unknown"),
                         ('uri = "s3://b"\nstorage_options = { a = { b = 1 } }', "plain values")):
        with pytest.raises(ConfigError, match=message):
            load_config(write_config(tmp_path, f"[index]\n{bad}\n" + site))


def test_site_flow_indexes_into_s3_and_search_reads_it_back(tmp_path, served_example, s3_endpoint, aws_keys,
                                                            capsys):
    _, url = served_example
    data = tmp_path / "data"
    cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "{data}"\n{index_section(s3_endpoint, "flow")}'
                                 f'[[site]]\nname = "example"\nstart_urls = ["{url}/index.html"]\n')
    assert main(["--config", str(cfg), "run"]) == 0
    assert "index: 4 docs upserted" in capsys.readouterr().out
    keys = s3_objects(s3_endpoint, "flow/")
    assert any(k.startswith("flow/chunks.lance/") for k in keys) and any(k.startswith("flow/documents.lance/")
                                                                          for k in keys)
    assert not (data / "lancedb").exists()  # nothing went to the local folder
    store = load_config(cfg).store
    assert site_counts(store)["example"][0] == 4
    hits = search("緑茶", store, mode="fts")  # full-text (ICU) index read from the bucket
    assert hits and hits[0].site == "example"
    assert main(["--config", str(cfg), "search", "green tea"]) == 0
    assert "example/" in capsys.readouterr().out
    # A refresh with nothing changed embeds nothing and writes no new table version.
    version = connect(store).open_table("chunks").version
    assert main(["--config", str(cfg), "run"]) == 0
    assert "index: 0 docs upserted (0 chunks), 4 unchanged" in capsys.readouterr().out
    assert connect(store).open_table("chunks").version == version


def test_unreachable_bucket_is_a_clear_error_not_a_traceback(tmp_path, aws_keys, capsys):
    cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "{tmp_path / "data"}"\n'
                                 f'{index_section("http://127.0.0.1:9", "none")}'
                                 f'[[site]]\nname = "x"\nlocal_path = "{EXAMPLE_SITE}"\n')
    assert main(["--config", str(cfg), "search", "tea"]) == 2
    assert "siterag: error:" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["folder", "s3"])
def test_rebuilding_one_site_leaves_every_row_of_the_others_untouched(tmp_path, emb, where, request):
    if where == "s3":
        endpoint = request.getfixturevalue("s3_endpoint")
        request.getfixturevalue("aws_keys")
        store = IndexStore(f"s3://{BUCKET}/rebuild", (("allow_http", "true"), ("aws_endpoint", endpoint),
                                                      ("aws_region", "us-east-1")))
    else:
        store = IndexStore(str(tmp_path / "lancedb"))
    other = [doc("en", f"p{i}.md", f"Page {i}", f"Robot page number {i}. " * 80, lazy=True) for i in range(3)]
    sync_site(store, "en", other, emb)
    sync_site(store, "ja", [JA, FONT], emb)
    before_en, before_ja = _snapshot(store, "en"), _snapshot(store, "ja")
    stats = rebuild_site(store, "ja", [JA], emb)  # FONT left the corpus meanwhile
    assert stats.upserted == ["ja/tea.md"] and stats.embed_calls == 2
    after_ja = _snapshot(store, "ja")
    assert set(after_ja) == {("documents", "ja/tea.md"), ("chunks", "ja/tea.md#0")}
    # rewritten: new row versions, same text and hash, the same vector (up to batch-size float noise)
    for key, (_, version, text, stored_hash, vector) in after_ja.items():
        assert version > before_ja[key][1] and (text, stored_hash) == before_ja[key][2:4]
        assert np.allclose(vector, before_ja[key][4], atol=1e-4)
    assert _snapshot(store, "en") == before_en  # same row ids, versions, text and vectors
    assert site_counts(store) == {"en": (3, sum(1 for k in before_en if k[0] == "chunks")), "ja": (1, 1)}


def test_reindex_command_rebuilds_a_site_from_its_corpus(tmp_path, served_example, capsys):
    _, url = served_example
    data = tmp_path / "data"
    cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "{data}"\n'
                                 f'[[site]]\nname = "example"\nstart_urls = ["{url}/index.html"]\n'
                                 f'[[site]]\nname = "never-run"\nstart_urls = ["{url}/tea.html"]\n')
    assert main(["--config", str(cfg), "run", "example"]) == 0
    counts = site_counts(data / "lancedb")
    connect(data / "lancedb").open_table("chunks").delete("site = 'example'")  # a damaged index
    assert site_counts(data / "lancedb")["example"][1] == 0
    capsys.readouterr()
    assert main(["--config", str(cfg), "reindex", "example"]) == 0
    assert "example: 4 documents" in capsys.readouterr().out
    assert site_counts(data / "lancedb") == counts
    assert main(["--config", str(cfg), "reindex", "never-run"]) == 1
    assert "run `siterag run never-run` first" in capsys.readouterr().err
    assert main(["--config", str(cfg), "reindex", "nope"]) == 2
