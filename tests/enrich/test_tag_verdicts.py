"""benchmarks/tag_verdicts.py: a build's tags scored against the tags judged by reading."""

from __future__ import annotations

from tests.conftest import benchmark_module


def test_the_verdicts_are_whole_and_score_a_build(tmp_path):
    tv = benchmark_module("tag_verdicts")
    verdicts = tv.load_verdicts()
    assert len(verdicts) > 1000 and {v for v, _ in verdicts.values()} == {"good", "bad"}
    assert {s for s, _, _ in verdicts} == {"leftyuncle", "hrtaj", "brianwilliams"}
    (site, rel, good_tag) = next(k for k, (v, _) in verdicts.items() if v == "good")
    bad_tag = next(t for (s, r, t), (v, _) in verdicts.items() if (s, r) == (site, rel) and v == "bad")
    page = tmp_path / site / rel
    page.parent.mkdir(parents=True)
    page.write_text(f"---\ntags:\n- {good_tag!r}\n- 'no verdict here'\n---\nbody\n", encoding="utf-8")
    tags = tv.corpus_tags(tmp_path, {(s, r) for s, r, _ in verdicts})
    assert tags == {(site, rel): [good_tag, "no verdict here"]}
    result = tv.score(verdicts, tags)
    assert (result["good"], result["judged"]) == (1, 1)
    assert result["dropped_bad"] >= 1 and bad_tag not in tags[(site, rel)]
    assert result["unjudged"] == [(site, rel, "no verdict here")]
