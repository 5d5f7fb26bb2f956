from siterag.extract.blocks import clean_text, escape_line_start, escape_text, html_to_blocks
from siterag.extract.chrome import _all_link, _links, chrome_lines, page_lines
from siterag.extract.template import block_units, line_key


def test_clean_text_collapses_spaces_and_drops_empty_lines():
    assert clean_text("  a \t b\u3000\xa0c  ") == "a b c"
    assert clean_text(" a  b \n\n \u3000\n  c\x0c \n") == "a b\nc"
    assert clean_text(" \n\t\n") == ""


def test_line_starts_that_read_as_markdown_are_escaped_including_wide_digits():
    assert escape_line_start("1. one") == "1\\. one"
    assert escape_line_start("１) wide") == "１\\) wide"
    assert escape_line_start("- item") == "\\- item"
    assert escape_line_start("-item") == "-item"
    assert escape_line_start("text 1. x") == "text 1. x"
    assert escape_line_start("") == ""
    assert escape_text("a <b> c") == "a \\<b> c" and escape_text("1 < 2") == "1 < 2"


def test_paragraph_runs_split_on_double_breaks_and_skip_empty_runs():
    html = ("<body><p>  </p><p><b> </b>\u3000</p><div>one<br>1. two<br><br>three <a href='x.html'>link</a>"
            "</div><div style='display: none'>hidden</div><span hidden>gone</span></body>")
    blocks, _ = html_to_blocks(html)
    assert [(b.kind, b.lines) for b in blocks] == [
        ("para", [("one", "one"), ("1\\. two", "1. two")]),
        ("para", [("three [link](x.html)", "three link")]),
    ]
    assert blocks[1].link_chars == 4 and blocks[0].link_chars == 0


def test_block_units_key_lines_as_line_key_does():
    blocks, _ = html_to_blocks("<body><p>Menu<br>---<br>A longer line of the page</p><h1>Menu</h1></body>")
    units = block_units(blocks)
    assert units.keys == (line_key("Menu"), line_key("A longer line of the page"))
    assert units.signature == line_key("A longer line of the page")


def test_lines_without_links_are_neither_links_nor_navigation():
    assert _links("plain [text] (x)") == [] and not _all_link("plain [text] (x)")
    assert _links('[![](a.gif "Top")](index.html)') == [("Top", "index.html")]
    assert _all_link('[![](a.gif "Top")](index.html)')
    blocks, _ = html_to_blocks("<body><p><a href='index.html'>戻る</a></p><p>Copyright 2001 me</p>"
                               "<p>Own text of the page</p></body>")
    assert chrome_lines(page_lines(blocks), set()) == {(0, 0), (1, 0)}


def test_line_breaks_in_the_source_are_white_space_as_a_browser_shows_them():
    from siterag.extract.blocks import render_blocks

    def md(html: str) -> str:
        blocks, _ = html_to_blocks(f"<html><body>{html}</body></html>")
        return render_blocks(blocks, {b.id for b in blocks}, {})

    assert md("<p>so specs may be liable\r\rto change.</p>") == "so specs may be liable to change.\n"
    assert md("<p>今日は\n山に登った。</p>") == "今日は山に登った。\n"  # nothing between Japanese characters
    assert md("<p>line one<br>\nline two<br>\n\nline three</p>") == "line one  \nline two  \nline three\n"
    assert md("<p>one<br><br>two</p>") == "one\n\ntwo\n"  # two <br> in a row: a new paragraph
    assert md("<pre>a\n  b</pre>") == "```\na\n  b\n```\n"  # <pre> keeps its lines
    # spacer GIFs and rules (at most 4 px wide or high) are layout, not pictures
    assert md('<p><img src="spacer.gif" witdh=1 height=3>Text<img src="line.gif" width="600" height="2"></p>') \
        == "Text\n"
    assert md('<p><img src="photo.jpg" width="100" height="75"></p>') == "![](photo.jpg)\n"


def test_bold_is_not_doubled_and_side_by_side_bold_is_one_run():
    from siterag.extract.blocks import render_blocks

    def md(html: str) -> str:
        blocks, _ = html_to_blocks(f"<html><body>{html}</body></html>")
        return render_blocks(blocks, {b.id for b in blocks}, {})

    assert md("<dl><dt><a name=x><b>なぜ?</b></a><dd>答え</dl>") == "**なぜ?**\n: 答え\n"  # was ****なぜ?****
    assert md("<p>大会 <b>地区大会</b><b>最優秀賞</b></p>") == "大会 **地区大会最優秀賞**\n"  # two <b> side by side
    assert md("<p><b>a</b> <b>b</b></p>") == "**a** **b**\n"  # the space between two bold words stays
    assert md("<p>x <b> </b> y</p>") == "x y\n"  # an empty <b> leaves nothing


def test_a_bold_line_ending_in_br_keeps_the_paragraphs_line_breaks():
    """`<b>◆警報<br></b>`: the emphasis keeps the line break at its edge, so the paragraph's Markdown and text split
    alike and its hundreds of <br> lines stay lines (a Word-exported play was one 45,886-character line)."""
    html = ("<html><body><p>サチ　彩ちゃん、どう？<br>彩　似合うね。<br>\r\n    <br><b>◆警報<br></b>"
            "翔と航が教室に飛び込んでくる。<br>\r\n    <br>翔　緊急事態発生。<br>彩　緊急事態？<br><i>雨の音<br></i>"
            "廊下から声が聞こえてくる。</p></body></html>")
    md = "\n".join(b.md for b in html_to_blocks(html, "")[0])
    lines = [line.rstrip() for line in md.splitlines()]
    assert "**◆警報**" in lines and "翔と航が教室に飛び込んでくる。" in lines
    assert "翔 緊急事態発生。" in lines and "彩 緊急事態？" in lines and "*雨の音*" in lines, md


def test_text_in_a_list_outside_its_items_is_kept_in_place():
    """Old editors indent with a bare <ul> (crest's invitation page: `<ul>JST supports his/her airfare…</ul>`):
    loose text, <br> lines and tails between items are paragraphs in their place, items stay list lines."""
    html = ("<html><body><ul>JST supports his/her airfare to Japan.</ul><ul>Application<br>Deadline: One month"
            "<br>Send your CV</ul><ol><li>first</li>between the items<li>second</li></ol>"
            "<ul><font><li>wrapped one</li><li>wrapped two</li></font></ul></body></html>")
    blocks = html_to_blocks(html, "")[0]
    assert [(b.kind, b.md) for b in blocks] == [
        ("para", "JST supports his/her airfare to Japan."),
        ("para", "Application  \nDeadline: One month  \nSend your CV"),
        ("list", "1. first"), ("para", "between the items"), ("list", "2. second"),
        ("list", "- wrapped one\n- wrapped two")]


def test_cells_written_before_a_tables_first_row_are_a_row():
    """`<table><td>June 7</td><td>…</td><tr><td>June 21</td>…`: the parser keeps cells before (or between) the
    <tr>s outside any row; they are a row of their own, not lost (crest's CFP lost its first deadline)."""
    html = ("<html><body><table border=0><td>June 7</td><td>Extended abstract</td><tr><td>June 21</td>"
            "<td>Author notification</td><tr><td>August 31</td><td>Full papers</td></table></body></html>")
    (table,) = [b for b in html_to_blocks(html, "")[0] if b.kind == "table"]
    assert table.md.splitlines()[0] == "| June 7 | Extended abstract |"
    assert "| June 21 | Author notification |" in table.md and "| August 31 | Full papers |" in table.md


def test_an_image_link_without_alt_text_keeps_its_link():
    """`<a href><img></a>` with no alt: a button or a thumbnail; its target is kept (the play's next part)."""
    html = ('<html><body><p>第一幕の終わり。</p><p><a href="akatoao2.htm"><img src="image-back.jpg"></a>'
            '<img src="bns002.gif"> <a href="big.jpg"><img src="small.jpg" alt="森"></a></p></body></html>')
    blocks = html_to_blocks(html, "")[0]
    assert blocks[1].md == '[![](image-back.jpg)](akatoao2.htm)![](bns002.gif) [![](small.jpg "森")](big.jpg)'


def test_a_list_items_br_lines_stay_lines_under_the_item():
    """crest's Q readme writes each start-up step as one <li> of <br> lines: they stay lines (continuation
    lines indented under the item), and a line that would read as a list mark keeps its text."""
    html = "<html><body><ol><li>Start Q.<br>1. Then run the agent.<br>Then stop.</li><li>Two</li></ol></body></html>"
    blocks = html_to_blocks(html, "")[0]
    assert blocks[0].md == "1. Start Q.  \n   1\\. Then run the agent.  \n   Then stop.\n2. Two"
    assert blocks[0].lines[0][1] == "Start Q. 1. Then run the agent. Then stop."


def test_an_image_floated_beside_the_text_leaves_the_sentence_whole():
    """`<img align=left>` (or a link around one, a thumbnail opening its photo) stands beside the paragraph: it
    goes to a line of its own at the paragraph's end instead of cutting a sentence; an inline image stays."""
    html = ('<html><body><p>首から上<a href="K.JPG"><img src="K_small.JPG" align="left"></a>の部分が亜麻色に'
            '変わる。<img src="face.gif">ね。</p><p><img src="b.jpg" style="float: right"></p></body></html>')
    blocks = html_to_blocks(html, "")[0]
    assert [(b.kind, b.md) for b in blocks] == [
        ("para", "首から上の部分が亜麻色に変わる。![](face.gif)ね。  \n[![](K_small.JPG)](K.JPG)"),
        ("image", "![](b.jpg)")]
    assert blocks[0].text == "首から上の部分が亜麻色に変わる。ね。"


def test_a_forms_field_grid_is_no_text_but_a_layout_table_around_a_search_box_is():
    """A BBS's post form: a table of field labels (`■名前 || Name`) and text boxes is UI. A layout table that
    holds the page's text and a search box keeps its text."""
    grid = ('<form><table><tr><td>■名前 || Name</td><td>■題名 || Title</td></tr><tr><td><input name=a></td>'
            '<td><input name=b></td></tr><tr><td><textarea></textarea></td></tr></table></form>')
    layout = ("<table><tr><td><input name=q> 検索</td></tr><tr><td>今日は一日中、庭の草むしりをしていた。"
              "夕方には雨が降り出したので、残りは明日に回すことにした。</td></tr></table>")
    text = " ".join(b.text for b in html_to_blocks(f"<html><body>{grid}{layout}</body></html>", "")[0])
    assert "Name" not in text and "Title" not in text
    assert "草むしり" in text and "検索" in text


def test_a_word_bullet_in_wingdings_is_a_bullet_not_a_letter():
    html = ("<html><body><p class=MsoNormal><span style='font-family:Wingdings'>l<span style='font:7.0pt'>"
            "&nbsp;&nbsp; </span></span>クライアントが表示する画像データ</p></body></html>")
    assert html_to_blocks(html, "")[0][0].md == "● クライアントが表示する画像データ"


def test_a_heading_opened_inside_an_open_heading_closes_it_as_a_browser_does():
    """Issue 24 (brianwilliams, Hosea 1): `<H3>Hosea 1 shows us …<HR><H3>The role of the prophet</H3><P>…` — libxml2
    nested the next heading and every paragraph after it in the first, so the chapter's text was one heading."""
    html = ("<html><body><h1>HOSEA MARRIES</h1><h3><br>Hosea 1 shows us the destinies<hr>\n"
            "<h3>The role of the prophet</h3><p>The Word of the LORD came unto Hosea.</p>after</body></html>")
    blocks, _ = html_to_blocks(html)
    text = "\n".join(b.render(frozenset()) for b in blocks)
    assert "### Hosea 1 shows us the destinies" in text.splitlines()
    assert "### The role of the prophet" in text.splitlines()
    paragraph = next(line for line in text.splitlines() if "Word of the LORD" in line)
    assert not paragraph.startswith("#"), text  # the paragraph is a paragraph again


def test_a_heading_left_open_over_the_pages_sections_is_read_as_its_sections():
    """Issue 24 (blind reading, seed 1251): `<h1>Left Uncle Works<h1>` (a slash left out) left the second heading
    open over the home page's sections, which became one heading of 800 characters."""
    sections = "".join(f"<div><h3>{name}</h3><p>{name}について書いています。</p></div>"
                       for name in ("Weblog", "TIPS", "Works"))
    blocks, _ = html_to_blocks(f"<html><body><h1>Left Uncle Works<h1>{sections}</body></html>")
    lines = "\n".join(b.render(frozenset()) for b in blocks).splitlines()
    assert "### Weblog" in lines and "WeblogについてTIPS" not in "".join(lines)
    assert any(line.startswith("Weblogについて") for line in lines), lines
