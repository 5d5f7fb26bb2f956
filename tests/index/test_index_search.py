"""The LanceDB index (real LanceDB, real USE embedder) and hybrid search over it: levels, filters, snippets."""

import json

import pytest

from siterag.cli import main
from siterag.index.chunking import chunk_markdown
from siterag.index.embedding import get_embedder
from siterag.index.index import IndexedDoc, IndexSettings, connect, open_tables, site_counts, sync_site
from siterag.search.search_api import (
    RRF_K,
    Candidates,
    NoIndexError,
    build_filter,
    fuse,
    make_snippet,
    query_terms,
    search,
)
from tests.conftest import write_config


def doc(site, path, title, body, date="", tags=("tea",), h=None, category="c", lazy=False):
    return IndexedDoc(doc_id=f"{site}/{path}", site=site, path=path, source="", title=title, category=category,
                      tags=list(tags), date=date, summary="", content_hash=h or str(hash(body)),
                      chunks=[] if lazy else chunk_markdown(body, max_tokens=60), body=body if lazy else "")


JA = doc("ja", "tea.md", "お茶の産地", "日本の代表的なお茶の産地は静岡県です。宇治茶は京都府で作られます。",
         "2003-05-20")
EN = doc("en", "robot.md", "Gyrobot build diary", "We built the robot for Robot Wars with a spinning disc weapon.",
         "2000-01", tags=("robot",))
FONT = doc("ja", "font.md", "フォントエディタ", "FontForge はアウトラインフォントを編集するためのエディタです。")


@pytest.fixture(scope="module")
def emb():
    return get_embedder("use-multilingual-v3")


def test_sync_search_update_and_delete(tmp_path, emb):
    db = tmp_path / "lancedb"
    stats = sync_site(db, "ja", [JA, FONT], emb)
    assert sorted(stats.upserted) == ["ja/font.md", "ja/tea.md"]
    sync_site(db, "en", [EN], emb)

    hits = search("静岡", tmp_path, mode="fts")
    assert hits and hits[0].doc_id == "ja/tea.md"  # ICU tokenizer finds Japanese words
    assert search("spinning disc weapon", tmp_path)[0].doc_id == "en/robot.md"
    assert search("フォントを編集", tmp_path)[0].doc_id == "ja/font.md"
    assert search("How do I edit outline fonts?", tmp_path, mode="vector")[0].doc_id == "ja/font.md"  # cross-lingual
    assert [h.doc_id for h in search("robot", tmp_path, site="ja", mode="fts")] == []
    assert [h.doc_id for h in search("お茶", tmp_path, since="2003", until="2003-12")] == ["ja/tea.md"]
    assert [h.doc_id for h in search("robot", tmp_path, tags=("robot",))] == ["en/robot.md"]

    # Unchanged: nothing embedded. Changed: its chunks replaced. Vanished: removed; other sites untouched.
    again = sync_site(db, "ja", [JA, FONT], emb)
    assert again.upserted == [] and again.embed_calls == 0
    long_body = "\n\n".join(f"段落{i}。" + "お茶の話です。" * 20 for i in range(5))
    changed = doc("ja", "tea.md", "お茶の産地", long_body, h="new")
    result = sync_site(db, "ja", [changed], emb)
    assert result.upserted == ["ja/tea.md"] and result.removed == ["ja/font.md"]
    _, chunks = open_tables(db, emb.dim)
    rows = chunks.search().where("doc_id = 'ja/tea.md'").limit(None).to_list()
    assert len(rows) == len(changed.chunks) > 1
    assert len({r["id"] for r in rows}) == len(rows)
    assert site_counts(db) == {"ja": (1, len(changed.chunks)), "en": (1, 1)}


def _snapshot(db, site):
    """Every row of one site in both tables: id -> (row id, last-updated version, content)."""
    out = {}
    for name in ("documents", "chunks"):
        table = connect(db).open_table(name)
        rows = (table.search().where(f"site = '{site}'").with_row_id(True)
                .select(["id", "text", "content_hash", "vector", "_row_last_updated_at_version"])
                .limit(None).to_list())
        for r in rows:
            out[(name, r["id"])] = (r["_rowid"], r["_row_last_updated_at_version"], r["text"], r["content_hash"],
                                    tuple(r["vector"]))
    return out


def test_reindexing_one_site_leaves_every_row_of_the_others_untouched(tmp_path, emb):
    db = tmp_path / "lancedb"
    other = [doc("en", f"p{i}.md", f"Page {i}", f"Robot page number {i}. " * 80, lazy=True) for i in range(3)]
    sync_site(db, "en", other, emb)
    sync_site(db, "ja", [JA, FONT], emb)
    before = _snapshot(db, "en")
    assert len(before) > 6
    # Re-index "ja": one page changed (more chunks), one removed, one new; then a settings change re-embeds all.
    long_body = "\n\n".join(f"段落{i}。" + "お茶の話です。" * 20 for i in range(5))
    new = doc("ja", "new.md", "新", "新しい頁。")
    sync_site(db, "ja", [doc("ja", "tea.md", "お茶の産地", long_body, h="v2"), new], emb)
    redo = sync_site(db, "ja", [doc("ja", "tea.md", "お茶の産地", long_body, h="v2", lazy=True)], emb,
                     IndexSettings(max_tokens=40))
    assert redo.upserted == ["ja/tea.md"] and redo.removed == ["ja/new.md"]
    assert connect(db).open_table("chunks").version > 3  # the table really was written meanwhile
    assert _snapshot(db, "en") == before


def test_only_changed_documents_are_chunked_and_a_new_layout_re_embeds(tmp_path, emb):
    db = tmp_path / "lancedb"
    body = "# 見出し\n\n" + "お茶の話です。" * 60
    first = doc("ja", "tea.md", "お茶", body, lazy=True)
    stats = sync_site(db, "ja", [first], emb)
    assert stats.chunks == len(first.chunks) > 1 and all(c.heading == "見出し" for c in first.chunks)
    again = doc("ja", "tea.md", "お茶", body, lazy=True)
    assert sync_site(db, "ja", [again], emb).embed_calls == 0 and again.chunks == []  # not even chunked
    coarse = sync_site(db, "ja", [doc("ja", "tea.md", "お茶", body, lazy=True)], emb, IndexSettings(max_tokens=400))
    assert coarse.upserted == ["ja/tea.md"] and coarse.chunks < stats.chunks


def test_front_matter_fields_filter_at_both_levels(tmp_path, emb):
    db = tmp_path / "lancedb"
    docs = [doc("s", "a.md", "Green tea", "Green tea from Shizuoka.", "2003-05-20", ("tea", "green"), category="food"),
            doc("s", "b.md", "Black tea", "Black tea from Assam.", "2004-01", ("tea",), category="food"),
            doc("s", "c.md", "Tea ceremony", "The tea ceremony.", "", ("tea", "green"), category="culture")]
    sync_site(db, "s", docs, emb)
    for group in (True, False):
        def ids(group=group, **kw):
            return sorted({h.doc_id for h in search("tea", tmp_path, group=group, **kw)})

        assert ids(tags=("tea", "green")) == ["s/a.md", "s/c.md"]
        assert ids(category="food") == ["s/a.md", "s/b.md"]
        assert ids(since="2004") == ["s/b.md"]
        assert ids(until="2003-05") == ["s/a.md"]
        assert ids(since="2003-05-21", until="2004-01-31") == ["s/b.md"]


def test_passages_snippets_and_highlights(tmp_path, emb):
    nav = "[ホーム](index.html) | [目次](toc.html) | [次へ](next.html)\n\n― 前 ― 目次 ― 次 ―\n\n"
    body = (nav + "# 産地\n\n日本の代表的なお茶の産地は静岡県です。" + "茶畑が広がります。" * 30
            + "\n\n## 宇治\n\n宇治茶は京都府で作られます。" + "歴史があります。" * 30)
    sync_site(tmp_path / "lancedb", "ja", [doc("ja", "tea.md", "お茶の産地", body, lazy=True)], emb)
    docs = search("宇治茶の歴史", tmp_path)
    assert len(docs) == 1 and docs[0].heading == "産地 > 宇治"
    assert "**宇治茶**" in docs[0].snippet and "ホーム" not in docs[0].snippet
    passages = search("宇治茶の歴史", tmp_path, group=False, k=10)
    assert len(passages) > 2 and len({p.chunk_no for p in passages}) == len(passages)
    assert passages[0].heading == "産地 > 宇治" and passages[0].similarity > 0.3 and passages[0].bm25 > 0
    assert json.loads(json.dumps(passages[0].to_dict(), ensure_ascii=False))["path"] == "tea.md"


def test_snippets_skip_menus_and_mark_query_terms():
    text = ("Title > Heading\n[Home](index.html) [Design](design.htm) [Diary](diary.htm)\n\n"
            + "Filler words here. " * 20 + "The weapon is a **spinning** rim driven by a Bosch motor.")
    snip = make_snippet(text, "Bosch weapon")
    assert "**Bosch**" in snip and "**weapon**" in snip and "Home" not in snip and snip.startswith("…")
    assert query_terms("お茶の産地はどこですか", "日本の代表的なお茶の産地は静岡県です") == ["お茶の産地は"]
    assert "の" not in query_terms("フォントのヒンティング", "フォント と ヒンティング")


def test_fusion_scores_passages_then_groups_them_by_document():
    def row(doc_id, chunk):
        return {"id": f"{doc_id}#{chunk}" if chunk >= 0 else doc_id, "doc_id": doc_id, "site": "s", "path": doc_id,
                "title": doc_id, "date": "", "text": f"{doc_id}\nbody", "heading": "", "chunk_no": chunk}

    chunks = Candidates({r["id"]: r for r in (row("a", 0), row("a", 1), row("b", 0), row("c", 2))},
                        cos={"a#0": 0.8, "a#1": 0.6, "b#0": 0.5, "c#2": 0.2}, bm25={"b#0": 10.0, "c#2": 5.0},
                        vec_rank=["a#0", "a#1", "b#0"], fts_rank=["b#0", "c#2"])
    docs = Candidates({"c": row("c", -1)}, cos={"c": 0.9}, bm25={"c": 2.0}, vec_rank=["c"], fts_rank=["c"])
    found = {"chunk": chunks, "doc": docs}
    hits = fuse(found, "body", 10)  # a: .5*.8 = .40; b: .5*.5 + .5*1 = .75; c: .5*.2 + .25 + .3*(.45 + .5) = .635
    assert [h.doc_id for h in hits] == ["b", "c", "a"]
    assert [h.score for h in hits] == pytest.approx([0.75, 0.635, 0.4])
    assert hits[2].chunk_no == 0 and hits[2].similarity == 0.8 and hits[0].bm25 == 10.0
    assert [h.doc_id for h in fuse(found, "body", 10, mode="vector")] == ["a", "b", "c"]  # c: .2 + .3 * .9
    assert [h.doc_id for h in fuse(found, "body", 10, mode="fts")] == ["b", "c", "a"]
    passages = fuse(found, "body", 10, group=False)
    assert [p.chunk_no for p in passages] == [0, 2, 0, 1] and passages[1].doc_id == "c"
    rrf = fuse(found, "body", 10, fusion="rrf")  # b: 1/63 + 1/61; c: 1/62 + .3 * (1/61 + 1/61); a: 1/61
    assert [h.doc_id for h in rrf] == ["b", "c", "a"]
    assert rrf[0].score == pytest.approx(round(1 / (RRF_K + 3) + 1 / (RRF_K + 1), 4))


def test_filter_rejects_bad_dates():
    with pytest.raises(ValueError):
        build_filter(since="last week")
    assert build_filter(site="a'b") == "site = 'a''b'"


def test_cli_search_json_chunks_and_missing_index(tmp_path, emb, capsys):
    cfg = write_config(tmp_path, f'[defaults]\ndata_dir = "{tmp_path / "data"}"\n'
                                 '[[site]]\nname = "ja"\nstart_urls = ["http://127.0.0.1:9/"]\n')
    assert main(["--config", str(cfg), "search", "静岡"]) == 2
    assert "no index" in capsys.readouterr().err
    with pytest.raises(NoIndexError):
        search("静岡", tmp_path / "data")
    sync_site(tmp_path / "data" / "lancedb", "ja", [JA, FONT], emb)
    assert main(["--config", str(cfg), "search", "静岡", "--json", "-k", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [h["doc_id"] for h in out] == ["ja/tea.md"] and "**静岡**" in out[0]["snippet"]
    assert main(["--config", str(cfg), "search", "お茶の産地", "--chunks", "--mode", "fts"]) == 0
    printed = capsys.readouterr().out
    assert "[ja/tea.md]" in printed and "2003-05-20" in printed and "**" in printed
    assert main(["--config", str(cfg), "search", "robot", "--site", "ja", "--mode", "fts"]) == 1


def test_a_large_table_gets_a_vector_index_that_later_syncs_keep_up_to_date(tmp_path):
    import numpy as np
    import pyarrow as pa

    from siterag.index.index import ensure_vector_index, has_vector_index

    _, chunks = open_tables(tmp_path / "lancedb", 16)
    rng = np.random.default_rng(1)

    def rows(start, n):
        vecs = rng.normal(size=(n, 16)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        return pa.Table.from_pylist([{"id": f"s/{i}#0", "doc_id": f"s/{i}", "site": "s", "path": str(i), "source": "",
                                      "title": "", "category": "", "tags": [], "date": "", "content_hash": "",
                                      "chunk_no": 0, "heading": "", "text": "", "vector": v.tolist()}
                                     for i, v in zip(range(start, start + n), vecs, strict=True)],
                                    schema=chunks.schema), vecs

    batch, vecs = rows(0, 600)
    chunks.add(batch)
    assert ensure_vector_index(chunks, min_rows=1000) == "flat" and not has_vector_index(chunks)
    assert ensure_vector_index(chunks, min_rows=500) == "created" and has_vector_index(chunks)
    more, more_vecs = rows(600, 50)
    chunks.add(more)
    assert ensure_vector_index(chunks) == "updated"
    (index,) = [i for i in chunks.list_indices() if "vector" in i.columns]
    assert chunks.index_stats(index.name).num_unindexed_rows == 0  # the new rows are in the index too
    for i, v in ((3, vecs[3]), (620, more_vecs[20])):
        top = chunks.search(v.tolist()).distance_type("cosine").nprobes(20).limit(1).to_list()
        assert top[0]["id"] == f"s/{i}#0"


def test_the_passages_of_several_documents_in_two_queries_are_each_ones_best(tmp_path, emb):
    """fuse looks up the best passage of each document found by its title and summary only: all at once
    (best_chunks: one full-text query, one for the first passages of the rest) gives each document the passage
    it gets alone (best_chunk), the first passage where none holds the query's words. (One lookup per document
    cost ~8 ms each: 380 ms of one web search with 39 such documents.)"""
    from siterag.search.search_api import Searcher

    long_tea = doc("ja", "long.md", "長いお茶の話", "\n\n".join(
        [f"段落{i}。季節の話です。" * 8 for i in range(4)] + ["宇治の抹茶は香りが良い。" * 5]))
    sync_site(tmp_path / "lancedb", "ja", [JA, FONT, long_tea], emb)
    searcher = Searcher(tmp_path)
    ids = ["ja/tea.md", "ja/font.md", "ja/long.md", "ja/missing.md"]
    for query in ("抹茶", "フォント", "静岡", "ロボット"):
        together = searcher.best_chunks(ids, query)
        alone = {d: row for d in ids if (row := searcher.best_chunk(d, query)) is not None}
        assert {d: r["id"] for d, r in together.items()} == {d: r["id"] for d, r in alone.items()}, query
    assert searcher.best_chunks(ids, "抹茶")["ja/long.md"]["chunk_no"] > 0  # the passage that holds the word
    assert searcher.best_chunks(ids, "ロボット")["ja/tea.md"]["chunk_no"] == 0  # none does: the first one
    assert "ja/missing.md" not in searcher.best_chunks(ids, "抹茶") and searcher.best_chunks([], "抹茶") == {}
