"""A hand edit of a corpus document is never lost silently (issue 28): when its page changes and the document is
written anew, the edited copy is kept in logs/<site>/edits/ and the run's error.log and report say so."""

from __future__ import annotations

from pathlib import Path

import pytest

from siterag.config import SiteConfig
from siterag.enrich.metadata import content_hash
from siterag.layout import SiteLayout
from siterag.pipeline import EDITS, process_page


def _page(layout: SiteLayout, text: str) -> dict:
    html = f"<html><head><title>お茶</title></head><body><h1>お茶の話</h1><p>{text}</p></body></html>"
    (layout.normalized / "tea.html").write_text(html, encoding="utf-8")
    return {"hash": content_hash(html), "encoding": "utf-8"}


@pytest.mark.bad_input
def test_a_hand_edit_is_kept_aside_when_the_page_changes(tmp_path: Path):
    layout = SiteLayout(tmp_path / "data", "s")
    layout.normalized.mkdir(parents=True)
    site = SiteConfig(name="s", local_path=str(tmp_path))
    first = process_page(layout, site, "tea.html", "tea.md", _page(layout, "静岡のお茶は香りがよい。"), None, False, "")
    assert first.status == "new" and not first.edit_kept
    doc = layout.corpus / "tea.md"
    doc.write_text(doc.read_text(encoding="utf-8").replace("香りがよい。", "香りがよい。（祖母の手書きメモ）"),
                   encoding="utf-8")
    second = process_page(layout, site, "tea.html", "tea.md", _page(layout, "宇治のお茶は甘い。"), None, False, "")
    assert second.status == "changed" and second.edit_kept
    kept = Path(second.edit_kept)
    assert kept.is_relative_to(layout.logs / EDITS) and "祖母の手書きメモ" in kept.read_text(encoding="utf-8")
    assert "宇治のお茶は甘い。" in doc.read_text(encoding="utf-8")
    third = process_page(layout, site, "tea.html", "tea.md", _page(layout, "狭山のお茶は濃い。"), None, False, "")
    assert third.status == "changed" and not third.edit_kept  # not edited since: nothing to keep


def test_a_run_killed_before_its_quality_stage_keeps_the_page_figures(tmp_path: Path):
    """Issue 27: after Ctrl-C and a resume the quality counts were those of fewer pages (15 vs 20 short pages):
    the resumed run found the pages unchanged and had no figures for them. A finished batch keeps them at once."""
    from siterag.pipeline import page_stats, process_batch

    layout = SiteLayout(tmp_path / "data", "s")
    layout.normalized.mkdir(parents=True)
    site = SiteConfig(name="s", local_path=str(tmp_path))
    info = _page(layout, "静岡のお茶は香りがよい。")
    first = process_batch(layout, site, ["tea.html"], {"tea.html": "tea.md"}, {"tea.html": info}, None, False, "")
    assert first[0].status == "new"  # ... and the run is killed here, before page_stats
    resumed = process_batch(layout, site, ["tea.html"], {"tea.html": "tea.md"}, {"tea.html": info}, None, False, "")
    assert resumed[0].status == "unchanged"
    stats = page_stats(layout, resumed)
    assert stats["tea.html"]["visible"] == first[0].visible_chars > 0
    assert page_stats(layout, resumed) == stats  # merged into pages.json; the batch files are gone
