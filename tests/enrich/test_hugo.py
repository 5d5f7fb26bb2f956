"""The corpus is a real static-site source: Hugo builds data/corpus/<site>/ as it is, every page with its title
and date. Skipped when hugo is not installed (scripts/setup installs it: apt-get install hugo)."""

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from siterag.acquire.mirror import copy_local
from siterag.config import SiteConfig
from siterag.enrich.corpus import corpus_paths, read_doc, write_doc
from siterag.layout import SiteLayout
from siterag.pipeline import normalize_pages, process_batch, select_pages
from tests.conftest import EXAMPLE_SITE

HUGO = shutil.which("hugo")

LAYOUT = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>{{ .Title }}</title></head>
<body data-source="{{ with .File }}{{ .Path }}{{ end }}"><h1>{{ .Title }}</h1>
<time>{{ if not .Date.IsZero }}{{ .Date.Format "2006-01-02" }}{{ end }}</time>
<main>{{ .Content }}</main></body></html>
"""
CONFIG = """baseURL = "http://archive.invalid/"
title = "siterag corpus"
contentDir = "{content}"
uglyURLs = true
disablePathToLower = true
disableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT", "404"]
"""
HOSTILE = {  # corpus path -> front matter the writer must make Hugo-safe
    "hostile/quotes.md": {"title": '"Quoted": colon: yes # not a comment', "date": "2009-05-20"},
    "hostile/month.md": {"title": "--- 三点 --- & <b>タグ</b>", "date": "2009-05"},
    "hostile/year.md": {"title": "{{ .Title }} 'single' \"double\"", "date": "2001"},
    "hostile/none.md": {"title": "no date: null", "date": None},
}


def build_corpus(data: Path) -> SiteLayout:
    """The example site through the real stages (local copy, purge, normalize, heuristic extraction)."""
    site = SiteConfig(name="example", local_path=str(EXAMPLE_SITE), extract_mode="heuristic")
    layout = SiteLayout(data, "example")
    copy_local(EXAMPLE_SITE, layout.mirror)
    for rel, title in (("twin/index.html", "Twin html"), ("twin/index.htm", "Twin htm"), ("twin/page.html", "Page")):
        (layout.mirror / rel).parent.mkdir(parents=True, exist_ok=True)  # two index pages in one folder
        (layout.mirror / rel).write_text(f"<html><head><title>{title}</title></head><body><h1>{title}</h1>"
                                         f"<p>{'本文の段落です。' * 20}</p></body></html>", encoding="utf-8")
    select = select_pages(layout.mirror, layout.logs)
    manifest = normalize_pages(layout.mirror, layout.normalized, select.pages)
    process_batch(layout, site, select.pages, corpus_paths(select.pages), manifest, None, False, "")
    for rel, fields in HOSTILE.items():
        write_doc(layout.corpus / rel, f"本文です: {rel}\n", {**fields, "site": "example", "path": rel})
    return layout


def rendered_pages(public: Path) -> dict[str, tuple[str, str]]:
    """content file -> (title, date) as the built site shows them."""
    pages = {}
    for page in public.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        source = re.search(r'data-source="([^"]*)"', text).group(1)
        if source:
            title = html.unescape(re.search(r"<h1>(.*?)</h1>", text, re.S).group(1))
            date = re.search(r"<time>(.*?)</time>", text, re.S).group(1)
            assert source not in pages, f"{source} rendered twice"
            pages[html.unescape(source)] = (title, date)
    return pages


def test_front_matter_round_trips_partial_dates_and_index_pages_become_sections(tmp_path):
    write_doc(tmp_path / "a.md", "x\n", {"title": "t", "date": "2009-05"})
    assert "date: '2009-05-01'\ndate_precision: month\n" in (tmp_path / "a.md").read_text(encoding="utf-8")
    assert read_doc(tmp_path / "a.md")[0] == {"title": "t", "date": "2009-05"}
    paths = corpus_paths(["index.html", "a/index.htm", "b/index.html", "b/index.htm", "c/page.html"])
    assert paths["index.html"] == "_index.md" and paths["a/index.htm"] == "a/_index.md"
    assert paths["b/index.html"] == "b/_index.md" and paths["b/index.htm"] == "b/index-htm.md"
    assert paths["c/page.html"] == "c/page.md"


@pytest.mark.skipif(HUGO is None, reason="hugo is not installed (apt-get install hugo)")
def test_hugo_builds_the_corpus_with_every_title_and_date(tmp_path):
    layout = build_corpus(tmp_path / "data")
    site = tmp_path / "hugo"
    (site / "layouts" / "_default").mkdir(parents=True)
    for name in ("single.html", "list.html", "index.html"):
        (site / "layouts" / "_default" / name).write_text(LAYOUT, encoding="utf-8")
    (site / "config.toml").write_text(CONFIG.format(content=layout.corpus.parent), encoding="utf-8")
    build = subprocess.run([HUGO, "--source", str(site), "--destination", str(site / "public")],
                           capture_output=True, text=True, timeout=120)
    assert build.returncode == 0 and "ERROR" not in build.stdout + build.stderr, build.stdout + build.stderr
    pages = rendered_pages(site / "public")

    docs = sorted(p.relative_to(layout.corpus.parent).as_posix() for p in layout.corpus.rglob("*.md"))
    assert "example/_index.md" in docs and "example/diary/2003-05-20.md" in docs and len(docs) >= 11
    assert {"example/twin/_index.md", "example/twin/index-htm.md", "example/twin/page.md"} <= set(docs)
    assert sorted(pages) == docs  # every corpus document is a page of the site, none lost to a bundle
    for rel in docs:
        fields, _ = read_doc(layout.corpus.parent / rel)
        title, date = pages[rel]
        assert title == fields["title"], rel
        want = str(fields.get("date") or "")
        if want:
            assert date == {4: f"{want}-01-01", 7: f"{want}-01", 10: want}[len(want)], rel
        else:  # an undated section page shows its newest page's date (Hugo's rule); other pages none
            assert date == "" or rel.endswith("_index.md"), rel
    assert pages["example/diary/2003-05-20.md"][1] == "2003-05-20"
    assert pages["example/hostile/month.md"] == ("--- 三点 --- & <b>タグ</b>", "2009-05-01")
    assert (site / "public" / "example" / "tea.html").exists()  # the archive keeps the site's own paths
