"""`siterag tags`, `siterag categories` and `siterag kinds` (issue 24): the values `--tag` and `--category` can
take, with counts."""

from __future__ import annotations

import json

from siterag.cli import main
from siterag.enrich.corpus import write_doc
from tests.conftest import write_config


def test_tags_and_categories_are_listed_with_their_document_counts(tmp_path, capsys):
    corpus = tmp_path / "data" / "corpus"
    for site, name, tags, category in (("a", "x", ["静岡", "新茶"], "日記"), ("a", "y", ["静岡"], "日記"),
                                        ("b", "z", ["宇治"], "links")):
        write_doc(corpus / site / f"{name}.md", "本文", {"title": name, "tags": tags, "category": category})
    (tmp_path / "src").mkdir()
    cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "{tmp_path / "data"}"\n'
                                 f'[[site]]\nname = "a"\nlocal_path = "{tmp_path / "src"}"\n'
                                 f'[[site]]\nname = "b"\nlocal_path = "{tmp_path / "src"}"\n')
    assert main(["--config", str(cfg), "tags", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"value": "静岡", "documents": 2}, {"value": "新茶", "documents": 1},
                                                    {"value": "宇治", "documents": 1}]
    assert main(["--config", str(cfg), "categories", "--site", "a"]) == 0
    assert capsys.readouterr().out.split() == ["2", "日記"]
    assert main(["--config", str(cfg), "tags", "-k", "1"]) == 0
    assert "and 2 more" in capsys.readouterr().out
    assert main(["--config", str(cfg), "tags", "--site", "c"]) == 2


def test_kinds_are_listed_with_their_counts_and_descriptions(tmp_path, capsys):
    corpus = tmp_path / "data" / "corpus"
    for site, name, kind in (("a", "x", "diary"), ("a", "y", "diary"), ("a", "z", "links"), ("b", "w", "review")):
        write_doc(corpus / site / f"{name}.md", "本文", {"title": name, "kind": kind, "category": "設定した分類"})
    write_doc(corpus / "a" / "old.md", "本文", {"title": "old", "category": "newpage"})  # an older corpus: no kind
    (tmp_path / "src").mkdir()
    cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "{tmp_path / "data"}"\n'
                                 f'[[site]]\nname = "a"\nlocal_path = "{tmp_path / "src"}"\n'
                                 f'[[site]]\nname = "b"\nlocal_path = "{tmp_path / "src"}"\n')
    assert main(["--config", str(cfg), "kinds", "--site", "a"]) == 0
    assert capsys.readouterr().out.split() == ["2", "diary", "1", "links"]
    assert main(["--config", str(cfg), "kinds", "--json", "--describe"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(k["value"], k["documents"]) for k in listed] == [("diary", 2), ("links", 1), ("review", 1)]
    assert "日記" in listed[0]["description"] and "Diary" in listed[0]["description"]
    assert main(["--config", str(cfg), "kinds", "--describe", "-k", "1"]) == 0
    out = capsys.readouterr().out
    assert "diary  日記" in out and "and 2 more" in out
    assert main(["--config", str(cfg), "kinds", "--site", "c"]) == 2
