"""Chunks sized in the embedder's own tokens, with overlap, never splitting a table or a code block."""

import pytest

from siterag.index.chunking import approx_tokens, chunk_markdown, plain_text
from siterag.index.embedding import get_embedder, token_counter


@pytest.fixture(scope="module")
def count():
    return token_counter(get_embedder("use-multilingual-v3"))


JA_PARA = ("FontForge はアウトラインフォントを編集するためのエディタです。ヒントづけを行うには、ステムの位置と幅を"
           "知る必要があります。水平ステムは緑で、垂直ステムは青で表示されます。")
EN_PARA = ("Gyrobot is a Robot Wars entry from Swindon. Its weapon is a spinning steel rim driven by a Bosch motor. "
           "The robot can run upside down and has no weak side. ")


def test_the_embedder_counts_its_own_tokens_and_the_approximation_is_close(count):
    assert count("フォントのヒンティング") == 6  # USE's SentencePiece pieces ("▁" + 5), no BOS/EOS
    for text in (JA_PARA * 3, EN_PARA * 3):
        assert 0.7 < approx_tokens(text) / count(text) < 1.4


def test_chunks_stay_within_the_token_budget_and_overlap_by_whole_sentences(count):
    md = "# 題\n\n" + "\n\n".join([JA_PARA * 2, EN_PARA * 3, JA_PARA * 4])
    chunks = chunk_markdown(md, max_tokens=80, overlap_tokens=20, count_tokens=count)
    assert len(chunks) >= 5 and all(c.heading == "題" for c in chunks)
    assert all(c.tokens == count(c.text) for c in chunks)
    assert all(c.tokens <= 80 + 3 for c in chunks)  # "\n\n" joins may add a piece or two
    overlaps = [nxt.text.split("\n\n")[0] for prev, nxt in zip(chunks, chunks[1:], strict=False)
                if "\n\n" in nxt.text and prev.text.endswith(nxt.text.split("\n\n")[0])]
    assert len(overlaps) >= 3 and all(0 < count(o) <= 20 for o in overlaps)
    assert any(o.endswith("。") for o in overlaps) and any(o.endswith(".") for o in overlaps)  # whole sentences
    without = chunk_markdown(md, max_tokens=80, overlap_tokens=0, count_tokens=count)
    assert sum(c.tokens for c in without) < sum(c.tokens for c in chunks)


def test_heading_paths_and_no_overlap_across_sections(count):
    md = "# A\n\n" + EN_PARA * 3 + "\n\n## B\n\n" + JA_PARA + "\n\n### C\n\ntext c\n\n## D\n\ntext d\n"
    chunks = chunk_markdown(md, max_tokens=60, overlap_tokens=15, count_tokens=count)
    headings = [c.heading for c in chunks]
    assert headings[0] == "A" and "A > B" in headings and "A > B > C" in headings and headings[-1] == "A > D"
    first_b = next(c for c in chunks if c.heading == "A > B")
    assert "Gyrobot" not in first_b.text  # overlap never crosses a heading


def test_tables_and_code_blocks_are_never_split(count):
    table = "| 項目 | 値 |\n|---|---|\n" + "\n".join(f"| 行{i} | 値は{i}です |" for i in range(12))
    code = "```\n" + "\n".join(f"$ fontforge -script step{i}.pe font{i}.sfd" for i in range(10)) + "\n\n```"
    md = f"# 表\n\n{JA_PARA * 3}\n\n{table}\n\n{EN_PARA}\n\n{code}\n\n{JA_PARA}"
    chunks = chunk_markdown(md, max_tokens=64, overlap_tokens=16, count_tokens=count)
    assert count(table) > 64 and count(code) > 64  # bigger than a chunk, kept whole anyway
    assert any(c.text == table for c in chunks)
    assert any(c.text == code for c in chunks)
    for c in chunks:  # no other chunk holds a piece of either, and none starts with a table/code overlap
        if c.text not in (table, code):
            assert "| 行" not in c.text and "fontforge -script" not in c.text


def test_only_a_giant_table_is_split_between_rows_with_its_header(count):
    table = "| a | b |\n|---|---|\n" + "\n".join(f"| {i} | 値{i} は長いセルの内容です |" for i in range(200))
    chunks = chunk_markdown(table, max_tokens=50, count_tokens=count)
    assert len(chunks) > 1
    for c in chunks:
        lines = c.text.split("\n")
        assert lines[:2] == ["| a | b |", "|---|---|"] and all(ln.startswith("|") for ln in lines)
    rows = [ln for c in chunks for ln in c.text.split("\n")[2:]]
    assert rows == table.split("\n")[2:]  # every row once, in order


def test_without_a_tokenizer_the_approximation_is_used():
    chunks = chunk_markdown("# t\n\n" + EN_PARA * 6, max_tokens=40, overlap_tokens=0)
    assert len(chunks) > 2 and all(c.tokens == approx_tokens(c.text) <= 42 for c in chunks)


def test_plain_text_drops_markup():
    md = "## 見出し\n\n![img](a.png) [リンク](b.html) **太字** と `code`\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    assert plain_text(md) == "見出し リンク 太字 と code a · b 1 · 2"


def test_same_level_headings_do_not_pile_up_when_a_page_starts_at_h3():
    md = ("### 4月30日\n\n三十日。\n\n### 4月29日\n\n二十九日。\n\n#### 午後\n\n午後の話。\n\n### 4月14日\n\n十四日。"
          "\n\n## 別の節\n\n節。")
    chunks = chunk_markdown(md, max_tokens=60, overlap_tokens=0)
    assert [c.heading for c in chunks] == ["4月30日", "4月29日", "4月29日 > 午後", "4月14日", "別の節"]
    deep = chunk_markdown("# A\n\n### C\n\nc\n\n## B\n\nb\n\n### D\n\nd\n", max_tokens=60, overlap_tokens=0)
    assert [c.heading for c in deep] == ["A > C", "A > B", "A > B > D"]


def test_each_chunk_is_dated_by_its_own_diary_entry_else_by_the_document():
    md = ("# 日記 2003\n\n前書き。\n\n## 2003.6.30(月)\n\n" + JA_PARA * 3 + "\n\n### 写真\n\n写真の説明。\n\n"
          "## 6月29日(日)\n\n二十九日。\n\n## 12月31日\n\n大晦日。\n\n## あとがき\n\n終わり。")
    chunks = chunk_markdown(md, max_tokens=60, overlap_tokens=10, doc_date="2003-06")
    by_heading = {}
    for c in chunks:
        by_heading.setdefault(c.heading, set()).add(c.date)
    assert by_heading == {"日記 2003": {"2003-06"}, "日記 2003 > 2003.6.30(月)": {"2003-06-30"},
                          "日記 2003 > 2003.6.30(月) > 写真": {"2003-06-30"},
                          "日記 2003 > 6月29日(日)": {"2003-06-29"},
                          "日記 2003 > 12月31日": {"2002-12-31"},  # newest first: the year before
                          "日記 2003 > あとがき": {"2003-06"}}
    assert len([c for c in chunks if c.date == "2003-06-30"]) > 2  # a long entry: every chunk keeps its date
    first_29 = next(c for c in chunks if c.date == "2003-06-29")
    assert "。" not in first_29.text.replace("二十九日。", "")  # no overlap from the entry before
    no_year = chunk_markdown("## 6月30日\n\n本文。\n\n## 6月29日\n\n本文。")
    assert [c.date for c in no_year] == ["", ""]  # no year anywhere: undated
    undated = chunk_markdown("## 6月30日\n\n本文。\n\n## 6月29日\n\n本文。", doc_date="2004-01-05")
    assert [c.date for c in undated] == ["2004-06-30", "2004-06-29"]  # the year from the document's date
