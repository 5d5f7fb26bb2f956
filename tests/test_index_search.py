from siterag.chunking import chunk_markdown
from siterag.embedding import get_embedder
from siterag.index import IndexedDoc, open_tables, site_counts, sync_site
from siterag.search_api import build_filter, search


def doc(site, path, title, body, date="", tags=("tea",), h=None):
    return IndexedDoc(doc_id=f"{site}/{path}", site=site, path=path, source="", title=title, category="c",
                      tags=list(tags), date=date, summary="", content_hash=h or str(hash(body)),
                      chunks=chunk_markdown(body, max_chars=200))


JA = doc("ja", "tea.md", "お茶の産地", "日本の代表的なお茶の産地は静岡県です。宇治茶は京都府で作られます。",
         "2003-05-20")
EN = doc("en", "robot.md", "Gyrobot build diary", "We built the robot for Robot Wars with a spinning disc weapon.",
         "2000-01", tags=("robot",))
FONT = doc("ja", "font.md", "フォントエディタ", "FontForge はアウトラインフォントを編集するためのエディタです。")


def test_sync_search_update_and_delete(tmp_path):
    emb = get_embedder("use-multilingual-v3")
    db = tmp_path / "lancedb"
    stats = sync_site(db, "ja", [JA, FONT], emb)
    assert sorted(stats.upserted) == ["ja/font.md", "ja/tea.md"]
    sync_site(db, "en", [EN], emb)

    hits = search("静岡", tmp_path, mode="fts")
    assert hits and hits[0].doc_id == "ja/tea.md"  # ICU tokenizer finds Japanese words
    assert search("spinning disc weapon", tmp_path)[0].doc_id == "en/robot.md"
    assert search("フォントを編集", tmp_path)[0].doc_id == "ja/font.md"
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


def test_filter_rejects_bad_dates():
    import pytest

    with pytest.raises(ValueError):
        build_filter(since="last week")
    assert build_filter(site="a'b") == "site = 'a''b'"
