"""A date, month or year named in the query: read as spans, preferred (not required) in the ranking."""

import pytest

from siterag.index.chunking import chunk_markdown
from siterag.index.embedding import get_embedder
from siterag.index.index import IndexedDoc, sync_site
from siterag.search.search_api import dated_within, query_dates, search


@pytest.mark.parametrize(("query", "spans"), [
    ("2003年6月29日には何を食べましたか？", [("2003-06-29", "2003-06-29")]),
    ("What did he eat on June 29, 2003?", [("2003-06-29", "2003-06-29")]),
    ("平成15年6月29日の天気", [("2003-06-29", "2003-06-29")]),
    ("２００３年６月２９日", [("2003-06-29", "2003-06-29")]),
    ("2003/6/29の日記", [("2003-06-29", "2003-06-29")]),
    ("2003年6月の日記", [("2003-06-01", "2003-06-30")]),
    ("the June 2003 trip", [("2003-06-01", "2003-06-30")]),
    ("2003-06 meeting", [("2003-06-01", "2003-06-30")]),
    ("平成15年の旅行", [("2003-01-01", "2003-12-31")]),
    ("robots built in 1998 and 2001", [("1998-01-01", "1998-12-31"), ("2001-01-01", "2001-12-31")]),
    ("Bosch 750W motor", []),
    ("version 2.0.3", []),
    ("FontForge 20030629", []),
    ("6月29日", []),  # no year: every year's 29 June, not preferred
    ("the year 1850", []),
])
def test_query_dates_reads_days_months_and_years_most_specific_only(query, spans):
    assert query_dates(query) == spans


def test_dated_within_takes_coarse_row_dates_as_overlapping():
    june = [("2003-06-01", "2003-06-30")]
    assert dated_within("2003-06-29", june) and dated_within("2003", june) and dated_within("2003-06", june)
    assert not dated_within("2003-07-01", june) and not dated_within("", june) and not dated_within("x", june)


def _entry(day: int, meal: str) -> IndexedDoc:
    # the heading's shape is not the question's: only the chunk's date ties the entry to "2003年6月22日"
    body = f"## 2003.6.{day} {{#2003-06-{day:02d}}}\n\n今日の夕食は{meal}でした。とても美味しかった。"
    return IndexedDoc(doc_id=f"d/{day}.md", site="d", path=f"{day}.md", source="", title="日記", category="c",
                      tags=[], date=f"2003-06-{day:02d}", summary="", content_hash=str(day),
                      chunks=chunk_markdown(body, max_tokens=60))


def test_a_date_in_the_question_prefers_the_entry_of_that_day(tmp_path):
    meals = ["カレー", "寿司", "ラーメン", "天ぷら", "うどん", "そば", "焼き魚", "すき焼き"]
    sync_site(tmp_path / "lancedb", "d", [_entry(20 + n, m) for n, m in enumerate(meals)],
              get_embedder("use-multilingual-v3"))
    for day in (22, 27):
        for query in (f"2003年6月{day}日の夕食は何でしたか？", f"What was dinner on June {day}, 2003?"):
            hits = search(query, tmp_path, k=3)
            assert hits[0].doc_id == f"d/{day}.md", query
            assert len(hits) == 3  # a preference, not a filter: other days still come
