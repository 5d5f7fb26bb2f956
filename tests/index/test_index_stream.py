"""The index stage streams the corpus: it reads every document once to see what changed, then reads, chunks,
embeds and writes the changed ones a batch at a time, never holding more than one batch of bodies. And
`siterag reindex` embeds through the embedding cache, as the index stage does."""

from __future__ import annotations

import hashlib
import weakref

import numpy as np
import pytest

import siterag.index.index as index_mod
from siterag.cli import main
from siterag.enrich.corpus import write_doc
from siterag.index import embedding
from siterag.index.index import IndexedDoc, site_counts, sync_site
from siterag.layout import SiteLayout
from siterag.pipeline import CorpusSource, corpus_source, indexed_docs
from tests.conftest import write_config


class Counting:
    """A small deterministic embedder that records every text it computes."""

    name = "counting-test"
    dim = 8
    texts: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        Counting.texts += texts
        return np.array([np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], dtype=np.uint8) / 255.0
                         for t in texts], dtype=np.float32).reshape(len(texts), self.dim)


class Body(str):
    """A body that can be watched (a plain str takes no weak reference)."""


class Watched(CorpusSource):
    """The corpus source, counting the bodies it loaded that are still alive."""

    live = peak = 0
    live_at_load: list[int]

    def _gone(self) -> None:
        self.live -= 1

    def load(self, doc_ids):  # noqa: ANN001, ANN201
        self.live_at_load.append(self.live)
        docs = super().load(doc_ids)
        for doc in docs:
            doc.body = Body(doc.body)
            weakref.finalize(doc.body, self._gone)
            self.live += 1
        self.peak = max(self.peak, self.live)
        return docs


def write_corpus(layout: SiteLayout, n: int) -> None:
    for i in range(n):
        body = f"## 日記 {i}\n\n{i}日目は晴れ。尾根を歩いて山頂に着いた。" + "景色がよかった。" * 40
        write_doc(layout.corpus / f"p{i:02}.md", body, {"title": f"山の日記 {i}", "path": f"p{i:02}.html",
                                                         "date": "2003-05-20", "tags": ["山"]})


def test_index_holds_at_most_one_batch_of_bodies(tmp_path, monkeypatch):
    monkeypatch.setattr(index_mod, "BATCH", 4)
    layout = SiteLayout(tmp_path / "data", "s")
    write_corpus(layout, 10)
    source = Watched(layout, "s")
    source.live_at_load = []
    stats = sync_site(tmp_path / "lancedb", "s", source, Counting())
    assert sorted(stats.upserted) == [f"s/p{i:02}.md" for i in range(10)] and stats.chunks >= 10
    assert source.live_at_load == [0, 0, 0]  # each batch released before the next is read
    assert source.peak == 4 and source.live == 0
    # Streamed or given whole, the index holds the same; nothing changed: nothing read again.
    again = Watched(layout, "s")
    again.live_at_load = []
    assert sync_site(tmp_path / "lancedb", "s", again, Counting()).unchanged == 10 and again.live_at_load == []
    assert sync_site(tmp_path / "lancedb", "s", indexed_docs(layout, "s"), Counting()).unchanged == 10


def test_a_document_gone_between_the_passes_is_left_out(tmp_path):
    layout = SiteLayout(tmp_path / "data", "s")
    write_corpus(layout, 3)
    source = corpus_source(layout, "s")
    heads = list(source.heads())
    assert [h.doc_id for h in heads] == ["s/p00.md", "s/p01.md", "s/p02.md"] and all(h.has_body for h in heads)
    (layout.corpus / "p01.md").unlink()
    assert [d.doc_id for d in source.load([h.doc_id for h in heads])] == ["s/p00.md", "s/p02.md"]
    whole = {d.doc_id: d for d in indexed_docs(layout, "s")}
    assert [(h.content_hash, h.date) for h in heads[::2]] == [(whole[i].content_hash, whole[i].date)
                                                              for i in ("s/p00.md", "s/p02.md")]


def test_any_iterable_of_docs_still_indexes(tmp_path):
    docs = [IndexedDoc(doc_id=f"s/{i}.md", site="s", path=f"{i}.html", source="", title="t", category="", tags=[],
                       date="", summary="", content_hash=str(i), body=f"本文 {i}") for i in range(3)]
    stats = sync_site(tmp_path / "lancedb", "s", iter(docs), Counting())  # any iterable
    assert sorted(stats.upserted) == ["s/0.md", "s/1.md", "s/2.md"] and all(len(d.chunks) == 1 for d in docs)


def test_reindex_embeds_through_the_cache(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(embedding._EMBEDDERS, Counting.name, Counting)
    monkeypatch.setattr(embedding, "_CACHE", {})
    monkeypatch.setattr(Counting, "texts", [])
    (tmp_path / "www").mkdir()
    data = tmp_path / "data"
    cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "{data}"\nembedder = "{Counting.name}"\n'
                                 f'[[site]]\nname = "s"\nlocal_path = "{tmp_path / "www"}"\n')
    write_corpus(SiteLayout(data, "s"), 5)
    assert main(["--config", str(cfg), "reindex", "s"]) == 0
    first = len(Counting.texts)
    assert main(["--config", str(cfg), "reindex", "s"]) == 0
    assert first > 0 and len(Counting.texts) == first  # every text came from the cache: nothing embedded
    assert (data / "cache" / "embeddings.sqlite").is_file()
    assert "s: 5 documents" in capsys.readouterr().out and site_counts(data / "lancedb")["s"][0] == 5


@pytest.mark.parametrize("n", [0, 1])
def test_index_of_a_small_or_empty_corpus(tmp_path, n):
    layout = SiteLayout(tmp_path / "data", "s")
    write_corpus(layout, n)
    stats = sync_site(tmp_path / "lancedb", "s", corpus_source(layout, "s"), Counting())
    assert len(stats.upserted) == n
