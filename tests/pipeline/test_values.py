"""`siterag tags` and `siterag categories` (issue 24): the values `--tag` and `--category` can take, with counts."""

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
