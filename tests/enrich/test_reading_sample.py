"""benchmarks/reading_sample.py: a blind A/B sample, of any pages or of only those a change touches."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import benchmark_module


def _page(root: Path, rel: str, summary: str) -> None:
    path = root / "corpus" / "site" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\ntitle: {rel}\nsummary: {summary}\npath: {rel}\n---\nbody of {rel}\n", encoding="utf-8")


def test_a_changed_sample_holds_the_pages_a_change_touches_and_only_those(tmp_path):
    rs = benchmark_module("reading_sample")
    before, after, out = tmp_path / "before", tmp_path / "after", tmp_path / "out"
    for n in range(6):
        _page(before, f"p{n}.md", "same")
        _page(after, f"p{n}.md", "changed" if n in (1, 4) else "same")
    assert rs.changed_pages(before, after, "site") == {"p1.md", "p4.md"}
    rs.sample(before, after, out, 1, ("site",), per_site=12, changed=True)
    key = json.loads((out / "key.json").read_text(encoding="utf-8"))
    assert sorted(v["rel"] for v in key.values()) == ["p1.md", "p4.md"]
    text = (out / "01.txt").read_text(encoding="utf-8")
    assert '"changed"' in text and '"same"' in text  # both versions, blind as A and B
    rs.sample(before, after, tmp_path / "all", 1, ("site",), per_site=4)
    assert len(json.loads((tmp_path / "all" / "key.json").read_text(encoding="utf-8"))) == 4
