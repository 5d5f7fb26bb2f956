"""Past VECTOR_INDEX_MIN_ROWS the chunks get an IVF_HNSW_SQ index: search through it must rank and score as flat
search does (its own distances are not cosine distances; the candidates are re-scored exactly)."""

import itertools

import pytest

import siterag.index.index as index_module
from siterag.index.chunking import chunk_markdown
from siterag.index.embedding import get_embedder
from siterag.index.index import IndexedDoc, connect, has_vector_index, sync_site
from siterag.search.search_api import Searcher

SUBJECTS = ["green tea", "a spinning disc robot", "an outline font editor", "the digital city project",
            "a steam locomotive", "a mountain hut", "お茶の産地", "ロボットの武器", "フォントの編集", "温泉旅館",
            "the school festival", "a vintage bicycle", "庭の桜", "川の釣り", "a jazz record"]
FACTS = ["was made in Shizuoka in 1998", "weighs 80 kilograms", "was shown at the exhibition in Kyoto",
         "broke down during the first test", "の話を日記に書いた", "は2003年に始まった", "costs more than expected",
         "won the second prize", "について友人と話した", "was photographed at dawn", "needs a new bearing",
         "を写真で紹介します", "was repaired by Steve", "の歴史を調べた", "is open every weekend",
         "appeared in a magazine", "の地図を作った", "runs on batteries", "は雨で中止になった", "smells of cedar"]
QUERIES = ["Where is green tea grown?", "お茶の産地はどこですか", "robot weapon that spins", "フォントを編集する",
           "what broke during testing", "2003年に始まったこと", "jazz magazine", "桜の写真"]


def _doc(n: int, subject: str, fact: str) -> IndexedDoc:
    body = f"{subject} {fact}. " + f"Page {n} tells the story of {subject}: it {fact}."
    return IndexedDoc(doc_id=f"s/p{n}.md", site="s", path=f"p{n}.md", source="", title=f"{subject} ({n})",
                      category="c", tags=[], date="", summary="", content_hash=str(n),
                      chunks=chunk_markdown(body, max_tokens=60))


@pytest.fixture(scope="module")
def ann_index(tmp_path_factory):
    """A data dir whose chunks table (300 rows) is past a lowered threshold, so sync_site built the ANN index."""
    data = tmp_path_factory.mktemp("ann")
    docs = [_doc(n, s, f) for n, (s, f) in enumerate(itertools.product(SUBJECTS, FACTS))]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(index_module, "VECTOR_INDEX_MIN_ROWS", 200)
        sync_site(data / "lancedb", "s", docs, get_embedder("use-multilingual-v3"))
    chunks = connect(data / "lancedb").open_table("chunks")
    assert chunks.count_rows() >= 200 and has_vector_index(chunks)
    return data


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
@pytest.mark.parametrize("group", [True, False])
def test_search_through_the_ann_index_ranks_and_scores_as_flat_search(ann_index, mode, group):
    ann, flat = Searcher(ann_index), Searcher(ann_index, exact=True)
    for query in QUERIES:
        got = ann.search(query, k=10, mode=mode, group=group)
        want = flat.search(query, k=10, mode=mode, group=group)
        assert [(h.doc_id, h.chunk_no) for h in got] == [(h.doc_id, h.chunk_no) for h in want], query
        for a, b in zip(got, want, strict=True):
            assert a.score == pytest.approx(b.score, abs=2e-3), query
            assert a.similarity == pytest.approx(b.similarity, abs=2e-3), query
        assert 0.2 < want[0].similarity <= 1.0  # a real cosine similarity, not a distance of another kind


def test_ann_candidates_carry_exact_cosine_similarities(ann_index):
    ann, flat = Searcher(ann_index), Searcher(ann_index, exact=True)
    for query in QUERIES:
        vector = flat.embed(query)
        got = ann.candidates(query, depth=20, mode="vector", vector=vector)["chunk"]
        want = flat.candidates(query, depth=20, mode="vector", vector=vector)["chunk"]
        assert got.vec_rank[:10] == want.vec_rank[:10], query
        for key in want.vec_rank[:10]:
            assert got.cos[key] == pytest.approx(want.cos[key], abs=1e-4), query


def test_status_says_which_tables_have_an_ann_index(ann_index):
    from siterag.index.index import vector_index_states

    states = {s.table: s for s in vector_index_states(ann_index / "lancedb")}
    assert states["chunks"].indexed and states["chunks"].rows >= 200 and states["chunks"].unindexed == 0
    assert not states["documents"].indexed and states["documents"].rows == len(SUBJECTS) * len(FACTS)
