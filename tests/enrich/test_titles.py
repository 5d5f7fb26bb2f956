"""Page titles without the site's banner, but never two pages' doubles (issue 24 item 4)."""

from siterag.enrich.metadata import plain_titles


def test_a_banner_that_tells_two_parts_of_a_site_apart_stays():
    """Two books of one site title their chapters `Hosea -- chapter 1`, `Britain in Prophecy -- chapter 1`: with
    the book's name cut, both would be `chapter 1`; the names stay where the rest is shared, and go where the
    rest is the page's alone (`Hosea -- introduction` is `introduction`)."""
    titles = [f"{book} -- {part}" for book in ("Hosea", "Britain in Prophecy")
              for part in ("chapter 1", "chapter 2", "contents & publication details")]
    titles += ["Hosea -- introduction", "Britain in Prophecy -- appendix 1"]
    plain = plain_titles(titles)
    assert plain["Hosea -- chapter 1"] == "Hosea -- chapter 1"
    assert plain["Britain in Prophecy -- contents & publication details"] == \
        "Britain in Prophecy -- contents & publication details"
    assert plain["Hosea -- introduction"] == "introduction"
    assert plain["Britain in Prophecy -- appendix 1"] == "appendix 1"


def test_a_site_banner_on_distinct_pages_is_cut():
    titles = ["Team | Gyrobot", "Gallery | Gyrobot", "Links | Gyrobot", "Team | Gyrobot"]
    assert plain_titles(titles) == {"Team | Gyrobot": "Team", "Gallery | Gyrobot": "Gallery",
                                    "Links | Gyrobot": "Links"}


def test_a_page_without_a_title_is_named_by_the_sites_links_to_it(tmp_path):
    """A page with no <title>, no heading and a sentence for its first line (`※ 画像を自由に…楽しめます。`) is not
    titled by that sentence: the site's links name it (`素材集`)."""
    from siterag.enrich.corpus import read_doc
    from siterag.enrich.enrich import enrich_site
    from siterag.enrich.metadata import fallback_metadata
    from tests.enrich.test_enrich import site_config
    from tests.enrich.test_sections import make_html_site

    body = "※ 画像を自由に組み合わせをして楽しめます。\n\n![](a.gif) ![](b.gif)\n\n素材の使い方の説明です。"
    assert fallback_metadata("", body)["title"] == "untitled"
    menu = '<a href="sozai.htm">素材集</a> <a href="index.htm">ホーム</a>'
    pages = {"index.htm": (f"<title>ホーム</title>{menu}", "ようこそ。"),
             "about.htm": (f"<title>紹介</title>{menu}", "教室の紹介です。"),
             "sozai.htm": ("<title>untitled</title>", body)}
    layout = make_html_site(tmp_path, pages)
    enrich_site(layout, site_config(), {"index.md", "about.md", "sozai.md"})
    fields, _ = read_doc(layout.corpus / "sozai.md")
    assert fields["title"] == "素材集"
