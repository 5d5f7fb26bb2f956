"""Extraction on real legacy pages, scored against the hand-written Japanese gold set."""

import csv
import importlib.util
import re
from pathlib import Path

import pytest

from siterag.extract.extract import extract_page
from siterag.extract.template import folder_template
from siterag.normalize.encoding import to_utf8

GOLD = Path(__file__).resolve().parents[2] / "benchmarks" / "gold-ja"


def gold_pages() -> list[dict]:
    with open(GOLD / "pages.tsv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


@pytest.fixture
def score(shared_sites):
    path = shared_sites.parent / "benchmarks" / "score.py"
    if not path.exists():
        pytest.skip("../shared/benchmarks/score.py is absent")
    spec = importlib.util.spec_from_file_location("score", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def f1(score, truth: str, markdown: str) -> tuple[float, float, float]:
    tokenize = score.make_tokenizer("cjk", True)
    markdown = re.sub(r"^(\s*)\d{1,3}\.[ \t]", r"\1", markdown, flags=re.MULTILINE)  # list numbers: syntax
    tp, fp, fn = score.match(tokenize(truth), tokenize(score.strip_markdown(markdown)), 4)
    p, r = score.page_precision(tp, fp, fn), score.page_recall(tp, fp, fn)
    return score.page_f1(p, r), p, r


def test_gold_set_has_the_layouts_the_issue_names():
    layouts = " ".join(row["layout"] for row in gold_pages())
    assert len(gold_pages()) >= 15
    for kind in ("table-layout", "pre", "br-text", "frame-content", "list"):
        assert kind in layouts
    for row in gold_pages():
        assert (GOLD / f"{row['id']}.txt").read_text(encoding="utf-8").strip()


_TEMPLATES: dict[str, dict[str, list[str]]] = {}


def site_template_of(shared_sites: Path, site: str) -> dict[str, list[str]]:
    if site not in _TEMPLATES:
        _TEMPLATES[site] = folder_template(shared_sites / site)
    return _TEMPLATES[site]


@pytest.mark.shared
@pytest.mark.parametrize("row", gold_pages(), ids=lambda r: r["id"][:50])
def test_legacy_pages_extract_close_to_the_gold_text(shared_sites, score, row):
    """Every gold page — table layouts, <pre> bodies, <br>-only text, content frames, diaries — comes out close
    to the hand-written text when the site's template is known, as in `siterag run` (heuristic mode)."""
    html, _ = to_utf8((shared_sites / row["site"] / row["path"]).read_bytes())
    template = frozenset(site_template_of(shared_sites, row["site"]).get(row["path"], []))
    result = extract_page(html, "heuristic", template=template)
    truth = (GOLD / f"{row['id']}.txt").read_text(encoding="utf-8")
    page_f1, precision, recall = f1(score, truth, result.markdown)
    floor = 0.8 if len(truth) < 300 else 0.9  # a page of a few lines (a saved CGI page, a booking notice): one
    # line decides
    assert page_f1 >= floor and recall >= floor, (row["id"], page_f1, precision, recall)


@pytest.mark.shared
def test_frameset_points_at_its_content_frame(shared_sites):
    html, _ = to_utf8((shared_sites / "crest-digitalcity/crest/Q/index.html").read_bytes())
    result = extract_page(html, "heuristic")
    assert result.mode == "frameset" and result.markdown == ""
    assert any(frame.endswith(".html") for frame in result.frames)


# A Homepage Builder page whose script tag is left open (`</SCRIPT` without `>`) before `</BODY></HTML>`, its price
# table after them: a browser shows the table; libxml2 alone stops at `</HTML>`.
PAST_THE_END = """<html><head><title>ホームページ作成</title></head><body>
<p><a href="../index.htm">トップ</a></p><div><script language="JavaScript">
if (document.all) document.write(Msgs)
</SCRIPT
</BODY>
</HTML></SCRIPT></div>
<table><tr><td>トップページ制作</td><td>￥10,000</td></tr><tr><td>写真加工</td><td>￥1,000</td></tr>
<tr><td>出張料</td><td>￥2,000</td></tr></table>
<p>ホームページ制作後は新鮮さを保つことが重要です。既存ページのリニューアルも低価格で承っております。</p>
</body></html>"""


def test_what_a_browser_shows_past_the_pages_end_tags_is_extracted():
    markdown = extract_page(PAST_THE_END, "heuristic").markdown
    assert "￥10,000" in markdown and "リニューアルも低価格で承っております" in markdown, markdown
