"""Categories from what a site says of its sections (siterag.enrich.sections), never an editor's file names."""

from __future__ import annotations

from pathlib import Path

from siterag.enrich.corpus import read_doc, write_doc
from siterag.enrich.enrich import enrich_site
from siterag.enrich.kinds import KINDS
from siterag.enrich.sections import clean_label, link_refs, meaningful_name, page_links, resolved_links
from siterag.layout import SiteLayout
from tests.enrich.test_enrich import site_config

HPB_MENU = ('<table><tr><td><a href="index.htm">ホーム</a></td><td><a href="newpage1.htm">■ 日 記 ■</a></td>'
            '<td><a href="newpage2.htm"><img src="b2.gif" alt="リンク集"></a></td>'
            '<td><a href="newpage3.htm">釣りの記録</a></td></tr></table>')


def _page(body: str, menu: str = HPB_MENU) -> str:
    return f"<html><head><title>ホームページビルダー</title></head><body>{menu}{body}</body></html>"


def make_html_site(tmp_path: Path, pages: dict[str, tuple[str, str]]) -> SiteLayout:
    """A site of normalized pages (path -> (html, markdown body)) and their corpus documents."""
    layout = SiteLayout(tmp_path / "data", "s")
    for path, (html, body) in pages.items():
        target = layout.normalized / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")
        title = html.split("<title>")[1].split("</title>")[0]
        write_doc(layout.corpus / (path.rsplit(".", 1)[0] + ".md"), body,
                  {"title": title, "category": "", "tags": [], "summary": "", "site": "s",
                   "path": path, "metadata_by": "machine"})
    return layout


def categories(layout: SiteLayout) -> dict[str, str]:
    out = {}
    for p in layout.corpus.rglob("*.md"):
        fields, _ = read_doc(p)
        out[fields["path"]] = fields["section"]
    return out


ENTRY = "今日は川で{}を釣りました。{}はとても大きくて、家族みんなで食べました。天気も良く楽しい一日でした。"


def test_a_homepage_builder_site_is_categorised_by_its_menu_not_by_newpage(tmp_path):
    pages = {
        "index.htm": (_page("<p>ようこそ。釣りと日記のページです。</p>"), "ようこそ。釣りと日記のページです。"),
        "newpage1.htm": (_page('<p>日記の目次</p><a href="newpage4.htm">五月</a> <a href="newpage5.htm">六月</a>'),
                         "日記の目次\n\n[五月](newpage4.htm)\n\n[六月](newpage5.htm)"),
        "newpage2.htm": (_page("<ul>" + "".join(f'<li><a href="http://e{i}.jp/">友人{i}</a>' for i in range(8))
                               + "</ul>"), "\n".join(f"- [友人{i}](http://e{i}.jp/)" for i in range(8))),
        "newpage3.htm": (_page("<p>" + ENTRY.format("鮎", "鮎") + "</p>"), ENTRY.format("鮎", "鮎")),
        "newpage4.htm": (_page("<p>" + ENTRY.format("鮒", "鮒") + "</p>"), ENTRY.format("鮒", "鮒")),
        "newpage5.htm": (_page("<p>" + ENTRY.format("鯉", "鯉") + "</p>"), ENTRY.format("鯉", "鯉")),
    }
    layout = make_html_site(tmp_path, pages)
    enrich_site(layout, site_config(), {p.replace(".htm", ".md") for p in pages})
    cats = categories(layout)
    assert cats["newpage1.htm"] == "日記"  # `■ 日 記 ■`: decoration and spacing gone
    assert cats["newpage4.htm"] == cats["newpage5.htm"] == "日記"  # linked only from the 日記 page: its section
    assert cats["newpage2.htm"] == "リンク集"  # an image button's alt text
    assert cats["newpage3.htm"] == "釣りの記録"
    assert not any(c.startswith(("newpage", "top", "index")) for c in cats.values()), cats


def test_folders_are_named_by_the_menu_entry_their_index_title_or_their_word(tmp_path):
    menu = ('<a href="001sucript/index.htm">JAVA スクリプト</a> <a href="kip/">戻る</a> '
            '<a href="diary/0501.htm">2005年</a>')
    body = ENTRY.format("鮎", "鮎")
    pages = {
        "index.htm": (_page("<p>トップ</p>", menu), "トップ"),
        "001sucript/index.htm": (_page("<p>スクリプト集</p>", menu), "スクリプト集"),
        "001sucript/newpage009.htm": (_page(f"<p>{body}</p>", menu), body),
        "kip/index.htm": ("<html><head><title>温室の記録</title></head><body><p>x</p></body></html>", body),
        "kip/a.htm": (_page(f"<p>{body}</p>", ""), body),
        "diary/0501.htm": (_page(f"<p>{body}</p>", menu), body),
        "diary/0502.htm": (_page(f"<p>{body}</p>", menu), body),
        "x06/a.htm": (_page(f"<p>{body}</p>", ""), body),
    }
    layout = make_html_site(tmp_path, pages)
    enrich_site(layout, site_config(), {p.replace(".htm", ".md") for p in pages})
    cats = categories(layout)
    assert cats["001sucript/index.htm"] == cats["001sucript/newpage009.htm"] == "JAVA スクリプト"
    assert cats["kip/a.htm"] == "温室の記録"  # linked only by 戻る: its index page's title
    assert cats["diary/0501.htm"] == cats["diary/0502.htm"] == "diary"  # linked by a date: the folder's word
    assert cats["x06/a.htm"] == ""  # nothing names it: no section (its kind says what it is)
    kinds = {read_doc(p)[0]["path"]: read_doc(p)[0]["kind"] for p in layout.corpus.rglob("*.md")}
    assert set(kinds.values()) <= set(KINDS) and kinds["diary/0501.htm"] == "diary"  # its section, 日記's word


def test_labels_that_name_no_section():
    for text in ("戻る", "トップへ", "ここをクリックしてください", "Back to top", "Next", "newpage12", "2005年5月",
                 "index.html", "http://example.jp/", "a", "これはリンクの文字列としてはとても長すぎる説明文です"):
        assert clean_label(text) == "", text
    assert clean_label("【 日記 】") == "日記"
    assert clean_label("教 室 案 内") == "教室案内"
    assert clean_label("思索・エッセイ(芸術)") == "思索・エッセイ(芸術)"
    assert clean_label("ファイル(F)") == "ファイル"
    assert meaningful_name("diary") == "diary" and meaningful_name("books") == "books"
    assert meaningful_name("001sucript") == meaningful_name("newpage") == meaningful_name("x06") == ""


def test_page_links_resolve_folders_and_read_the_first_line_of_a_block_link():
    html = ('<a href="../books/"><img src="c.gif" alt="cover"><h5>Publications</h5>Books, tapes</a>'
            '<a href="#top">top</a><a href="mailto:x@y">mail</a><a href="http://elsewhere/">x</a>'
            '<a href="b.htm?x=1#s">Bio</a>')
    pages = {"books/index.html", "diary/b.htm", "diary/a.htm"}
    assert page_links(html, "diary/a.htm", pages) == [("books/index.html", "Publications"), ("diary/b.htm", "Bio")]


def test_link_refs_are_read_without_the_site_and_resolved_against_it_later():
    html = '<a href="b.htm#s">Bio</a><a href="a.htm">self</a><a href="gone.htm">Gone</a><a href="//x/">Elsewhere</a>'
    refs = link_refs(html)
    assert refs == [("b.htm#s", "Bio"), ("a.htm", "self"), ("gone.htm", "Gone"), ("//x/", "Elsewhere")]
    assert resolved_links(refs, "diary/a.htm", {"diary/a.htm", "diary/b.htm"}) == [("diary/b.htm", "Bio")]




def test_a_page_linked_only_from_the_site_map_is_no_part_of_it_and_no_index(tmp_path):
    names = ["diary", "gallery", "specs", "team", "links", "contact"]
    menu = "".join(f'<a href="{n}.htm">{n.title()}</a> ' for n in names) + '<a href="sitemap.htm">Site Map</a>'
    prose = "We built the robot in the garage over the winter, and it weighs about a hundred kilograms in all."
    pages = {f"{n}.htm": (f"<html><head><title>{n.title()}</title></head><body>{menu}<p>{prose}</p></body></html>",
                          prose) for n in names}
    sitemap = menu + '<a href="thanks.htm">Thank you</a>'
    pages["sitemap.htm"] = (f"<html><head><title>Site Map</title></head><body>{menu}{sitemap}</body></html>",
                            "\n\n".join(f"[{n.title()}]({n}.htm)" for n in names) + "\n\n[Thank you](thanks.htm)")
    pages["thanks.htm"] = ("<html><head><title>Thank you</title></head><body><h3>Thank you for your scribblings, we "
                           "shall read them later.</h3></body></html>",
                           "### Thank you for your scribblings, we shall read them later.")
    layout = make_html_site(tmp_path, pages)
    enrich_site(layout, site_config(), {p.replace(".htm", ".md") for p in pages})
    assert categories(layout)["thanks.htm"] != "Site Map"
    kinds = {read_doc(p)[0]["path"]: read_doc(p)[0]["kind"] for p in layout.corpus.rglob("*.md")}
    assert kinds["thanks.htm"] != "index" and kinds["sitemap.htm"] == "index"
