"""The enrich site pass split in two: per-page facts (stored by the extract tasks) and the site part."""

from __future__ import annotations

import threading
from contextlib import closing

from siterag.enrich import enrich as enrich_mod
from siterag.enrich import keywords
from siterag.enrich.corpus import read_doc, write_doc
from siterag.enrich.enrich import (
    FACTS_FILE,
    choose_summary,
    decode_facts,
    encode_facts,
    enrich_site,
    facts_db,
    page_facts,
    page_sentences,
    quotable,
    store_page_facts,
    substantive,
)
from siterag.enrich.keywords import analysis_text, page_terms
from siterag.enrich.metadata import content_hash
from tests.enrich.test_enrich import PAGES, docs, make_site, site_config


def test_facts_survive_the_round_trip():
    body = "# Robot\n\nThe Robot and the robot. ロボットコンテストに出場しました。Gyro sensor robot.\n"
    facts = page_facts(body)
    back = decode_facts(encode_facts(facts)[2])
    assert back == facts and list(back.terms.counts) == list(facts.terms.counts)


def test_page_terms_spelling_is_the_most_frequent_then_the_earliest():
    terms = page_terms("robot, Robot, ROBOT, Robot. gyro, Gyro. 宇治茶")
    assert terms.counts["robot"] == 4 and terms.surface["robot"] == "Robot"
    assert terms.surface["gyro"] == "gyro"  # a tie: the earliest spelling
    assert terms.first["宇治茶"] == 0 and terms.first["robot"] < terms.first["gyro"]  # Japanese terms come first


def test_urls_are_cut_as_the_plain_pattern_cuts_them():
    text = ("日本語の文章でhttp://example.com/a.htmlを見てください。 foo@bar.com/x.html www.example.org "
            "写真はimg/tea.JPGです。 ver.2.0 a.b:c 。。。 mail:me@host.jp end.html. x.htmlx a.gif")
    assert analysis_text(text) == keywords._MARKUP_RE.sub("\n", keywords._URL_RE.sub("\n", text))


def test_ascii_lines_give_no_japanese_terms():
    text = "宇治茶の話。\nGyro sensor & robot $$ 100% !? ...\n京都府南部"
    assert keywords.japanese_terms(text) == keywords.japanese_terms(keywords._without_ascii_lines(text))
    assert "京都府南部" in keywords.japanese_terms(text)


def test_quotable_matches_substantive_and_choose_summary():
    md = ("宇治茶は京都府南部で作られるお茶です。鎌倉時代から続く長い歴史があります。\n\n"
          "2003年5月20日\n\n短い。\n\nThe robot weighs two kilograms. it is small\n\n(a fragment\n")
    sentences = page_sentences(md)
    quotes = quotable(sentences)
    assert quotes == [2 if substantive(s) else int(substantive(s, strict=False)) for s in sentences]
    assert 0 in quotes and 2 in quotes
    for common in (set(), {sentences[0]}, set(sentences)):
        assert choose_summary(sentences, ["宇治茶"], common, quotes) == choose_summary(sentences, ["宇治茶"], common)


def test_stored_facts_are_used_and_give_the_same_fields(tmp_path, monkeypatch):
    plain = make_site(tmp_path / "plain", PAGES)
    enrich_site(plain, site_config(), set(PAGES))
    layout = make_site(tmp_path / "stored", PAGES)
    assert store_page_facts(layout, sorted(PAGES)) == len(PAGES)
    assert store_page_facts(layout, sorted(PAGES)) == 0  # already there

    def no_tokenising(body: str) -> None:
        raise AssertionError("facts were computed again")

    monkeypatch.setattr(enrich_mod, "page_facts", no_tokenising)
    enrich_site(layout, site_config(), set(PAGES))
    assert {r: (f["tags"], f["summary"], f["category"]) for r, (f, _) in docs(layout).items()} == \
        {r: (f["tags"], f["summary"], f["category"]) for r, (f, _) in docs(plain).items()}


def test_missing_or_stale_facts_are_computed_and_gone_bodies_dropped(tmp_path):
    layout = make_site(tmp_path, PAGES)
    store_page_facts(layout, ["tea.md"])
    enrich_site(layout, site_config(), set(PAGES))  # the others computed by the site pass, and kept
    with closing(facts_db(layout)) as db:
        assert db.execute("SELECT count(*) FROM pages").fetchone()[0] == len(PAGES)
    fields, body = read_doc(layout.corpus / "tea.md")
    write_doc(layout.corpus / "tea.md", body + "\n玉露は高級なお茶です。", fields)
    enrich_site(layout, site_config(), {"tea.md"})
    new_hash = content_hash(read_doc(layout.corpus / "tea.md")[1])
    with closing(facts_db(layout)) as db:
        hashes = {h for (h,) in db.execute("SELECT hash FROM pages")}
    assert len(hashes) == len(PAGES) and new_hash in hashes  # the old body's facts dropped, the new one's kept


def test_two_writers_at_once(tmp_path):
    pages = {f"p{n}.md": f"# 頁{n}\n\n第{n}番のページは宇治茶と嵐山の話です。" for n in range(12)}
    layout = make_site(tmp_path, pages)
    rels = sorted(pages)
    counts: list[int] = []
    threads = [threading.Thread(target=lambda part=part: counts.append(store_page_facts(layout, part)))
               for part in (rels[::2], rels[1::2])]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(counts) == [6, 6] and (layout.logs / FACTS_FILE).exists()


def test_an_unusable_store_is_no_error(tmp_path):
    layout = make_site(tmp_path, PAGES)
    layout.logs.mkdir(parents=True, exist_ok=True)
    (layout.logs / FACTS_FILE).write_text("not a database " * 100)
    assert store_page_facts(layout, sorted(PAGES)) == 0  # the extract task goes on
    assert enrich_site(layout, site_config(), set(PAGES))["rewritten"] == len(PAGES)  # the site pass starts afresh
    assert all(f["tags"] for f, _ in docs(layout).values())
