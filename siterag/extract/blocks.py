"""Split simplified HTML into numbered blocks; each renders itself to Markdown in code.

Extraction never retypes a page: a mode only chooses block ids, and the text of the
chosen blocks comes verbatim from the page.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urljoin

import lxml.html
from lxml import etree

DROP_TAGS = ("script", "style", "noscript", "iframe", "object", "embed", "applet", "map", "select",
             "textarea", "button", "input", "svg", "canvas", "template")
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
BLOCK_TAGS = {"p", "div", "table", "tr", "td", "th", "tbody", "thead", "tfoot", "ul", "ol", "li", "dl", "dt",
              "dd", "pre", "blockquote", "center", "form", "hr", "section", "article", "main", "aside",
              "header", "footer", "nav", "address", "body", "html", "caption", "fieldset", "figure",
              "figcaption", "listing", "xmp", "plaintext", "noframes", "frameset", "menu", "dir", *HEADINGS}
_WS_RE = re.compile(r"[ \t\u3000\xa0]+")
_LINK_LABEL_RE = re.compile(r"(?<!!)\[([^\]]*)\]\(")
_XML_DECL_RE = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
_NORM_RE = re.compile(r"[\W_]+")
_TAG_LIKE_RE = re.compile(r"<(?=[A-Za-z/!?])")
_EMPTY_EMPHASIS_RE = re.compile(r"(?<![^\s*])\*\*[ \t\u3000]*\*\*(?![^\s*])")  # <b> </b>; not **a** **b**
_GLUED_BOLD_RE = re.compile(r"(?<=[^*\s])\*{4}(?=[^*\s])")  # **a****b** (two <b> side by side) → **ab**
_NESTED_BOLD_RE = re.compile(r"\*{4}([^*\n]+?)\*{4}")  # <b> in a bold <dt> → ****x**** → **x**
# A line break in the page's source text is white space, as a browser shows it: only <br> (and block
# elements) break lines. Between two Japanese characters it is nothing (CSS segment-break rules), else a space.
_SOURCE_BREAK_RE = re.compile(r"[ \t\r\n\u3000\xa0]*[\r\n][ \t\r\n\u3000\xa0]*")
_CJK = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")
_PARA_BREAK_RE = re.compile(r"\n[ \t\u3000\xa0]*\n")  # two or more <br> in a row
# Hidden elements; the @style guard spares translate() on the many elements without a style.
_HIDDEN_XPATH = etree.XPath("//*[@hidden or @aria-hidden='true' or (@style and ("
                            "contains(translate(@style, ' ', ''), 'display:none')"
                            " or contains(translate(@style, ' ', ''), 'visibility:hidden')))]")
_CELLS_XPATH = etree.XPath("./td | ./th")
_WRAPPED_ITEMS_XPATH = etree.XPath("./li")
_BLOCKY_XPATH = etree.XPath(".//p | .//div | .//ul | .//ol | .//h1 | .//h2 | .//h3 | .//pre | .//blockquote")
HARD_BREAK = "  \n"  # Markdown hard line break: lines of a poem or a <br> list stay lines


def image_md(src: str, alt: str) -> str:
    """An image as Markdown. Its alt text is not text a reader sees, so it goes in the title, not the alt:
    `![](photo.jpg "alt")` keeps it for the archive without making it a line of the page's text."""
    if not src:
        return ""
    alt = alt.replace('"', "'").replace("(", "（").replace(")", "）")
    return f'![]({src} "{alt}")' if alt else f"![]({src})"


def join_lines(lines: list[str]) -> str:
    """The lines of one paragraph with hard breaks between them."""
    return HARD_BREAK.join(lines)


_BLOCK_START_RE = re.compile(r"^(\d{1,9})([.)])(?=\s|$)|^([#>+\-*])(?=\s|$)")


def escape_line_start(md: str) -> str:
    """A paragraph line that would read as Markdown syntax (`1. `, `- `, `# `, `> `) keeps its text:
    `1\\. ` is the author's number, not an ordered list."""
    if not md or not (md[0] in "#>+-*" or md[0].isdecimal()):  # \d is any Unicode decimal digit
        return md
    return _BLOCK_START_RE.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", md)


def escape_text(text: str) -> str:
    """Page text as Markdown text: angle brackets that are text (`<CD>`) must not read as HTML tags."""
    return _TAG_LIKE_RE.sub(r"\\<", text) if "<" in text else text


@dataclass
class Block:
    """One unit of the page the extractor may keep or drop."""

    id: int
    kind: str  # heading | para | list | table | pre | quote | image
    text: str  # plain text (for previews and scoring)
    md: str  # Markdown rendering
    path: str = ""  # tag path hint such as "body>table>td" (a layout signal)
    link_chars: int = 0  # characters inside <a>: a navigation signal
    lines: list[tuple[str, str]] = field(default_factory=list)  # (md, text) per line / list item

    def __post_init__(self) -> None:
        if not self.lines:
            self.lines = [(self.md, self.text)]

    def render(self, drop: set[int] | frozenset[int] = frozenset()) -> str:
        """Markdown of the block without the lines in `drop` (a paragraph's lines keep hard breaks)."""
        if not drop:
            return self.md
        kept = [md for n, (md, _) in enumerate(self.lines) if n not in drop]
        return join_lines(kept) if self.kind == "para" else "\n".join(kept)

    @property
    def link_density(self) -> float:
        return self.link_chars / max(1, len(self.text))


def flow_text(text: str) -> str:
    """A text node's source line breaks as a browser shows them: a space, or nothing between Japanese."""
    if "\n" not in text and "\r" not in text:
        return text
    out, last = [], 0
    for m in _SOURCE_BREAK_RE.finditer(text):
        before, after = text[m.start() - 1:m.start()], text[m.end():m.end() + 1]
        out.append(text[last:m.start()])
        out.append("" if before and after and _CJK.match(before) and _CJK.match(after) else " ")
        last = m.end()
    out.append(text[last:])
    return "".join(out)


def clean_text(text: str) -> str:
    """Collapse runs of spaces; keep line breaks."""
    text = _WS_RE.sub(" ", text)  # the class holds no line break: the same as collapsing line by line
    if "\n" not in text:
        return text.strip()
    return "\n".join([line for line in [line.strip() for line in text.split("\n")] if line])


def normalise(text: str) -> str:
    """Lower-case word characters only: what texts are compared on (blocks, extractor output, titles)."""
    return _NORM_RE.sub("", text).lower()


_PAGE_END_RE = re.compile(r"</(?:body|html)\s*>", re.IGNORECASE)


def read_on(html: str) -> str:
    """HTML without its `</body>` and `</html>` tags: a browser shows what comes after them (a table after a script
    left open, `</SCRIPT` without its `>`; text pasted below the page's end), where libxml2 drops all of it."""
    return _PAGE_END_RE.sub("", html)


def parse_html(html: str) -> etree._Element:
    """Parse possibly broken HTML into an lxml tree without scripts, styles and comments (read on past its end
    tags, as a browser does: read_on)."""
    html = read_on(_XML_DECL_RE.sub("", html))
    if not html.strip():
        html = "<html><body></body></html>"
    try:
        # Comments dropped by the parser: dropping 100,000s of them one by one below is quadratic (tail joins).
        root = lxml.html.document_fromstring(html, parser=lxml.html.HTMLParser(remove_comments=True,
                                                                                remove_pis=True))
    except (etree.ParserError, ValueError):
        root = lxml.html.document_fromstring("<html><body></body></html>")
    _mend_headings(root)
    for table in _form_grids(root):
        _drop_keep_tail(table)
    for el in _SYMBOL_FONT_XPATH(root):  # Word's bullets: `l` in the Wingdings font shows ●
        if el.text and len(el.text.strip()) == 1:
            el.text = el.text.replace(el.text.strip(), _WINGDINGS.get(el.text.strip(), "・"))
    for tag in DROP_TAGS:
        for el in root.iter(tag):
            if el.getparent() is not None:
                _drop_keep_tail(el)
    for el in _HIDDEN_XPATH(root):
        if el.getparent() is not None and el.tag not in ("html", "body"):
            _drop_keep_tail(el)
    return root


_SYMBOL_FONT_XPATH = etree.XPath("//*[contains(@style, 'Wingdings') or contains(@face, 'Wingdings')]")
_WINGDINGS = {"l": "●", "n": "■", "u": "◆", "q": "❑", "v": "❖", "§": "▪", "Ø": "➢", "ü": "✓", "·": "・"}
_CONTROLS_XPATH = etree.XPath("//input[not(@type) or translate(@type, 'HIDEN', 'hiden') != 'hidden'] | //textarea"
                               " | //select")
FORM_LABEL_CHARS = 40  # a form grid's rows hold field labels at most this long


_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_CONTAINERS = ("div", "p", "table", "ul", "ol", "dl", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6")
HEADING_BLOCKS = 3  # a heading holding this many blocks (paragraphs, sections, lists) holds a page's parts


def _mend_headings(root: etree._Element) -> None:
    """Headings as a browser reads them: a heading opened inside an open heading closes it, as a browser's parser
    does (`<H3>Hosea 1 shows us …<HR><H3>The role of the prophet</H3><P>…`), where libxml2 nests the second
    heading and all after it in the first; a heading that still holds HEADING_BLOCKS blocks or more is read as the
    blocks it holds."""
    for heading in list(root.iter(*_HEADINGS)):
        inner = next((c for c in heading if c.tag in _HEADINGS), None)
        if inner is None:
            continue
        moved, after = [inner, *inner.itersiblings()], heading.tail
        heading.tail = None
        anchor = heading
        for el in moved:  # (each keeps its tail: the text after it is after it still)
            anchor.addnext(el)
            anchor = el
        anchor.tail = (anchor.tail or "") + (after or "") or None
    for heading in list(root.iter(*_HEADINGS)):  # a heading left open over the page's sections holds them all:
        # a container, not a heading (`<h1>Left Uncle Works<h1>` over the home page's menu of sections)
        if sum(1 for el in heading.iterdescendants(*_CONTAINERS)) >= HEADING_BLOCKS:
            heading.tag = "div"


def _form_grids(root: etree._Element) -> list[etree._Element]:
    """Tables that lay out a form's fields: the innermost table around a visible control (a text box, a text
    area, a list) whose every row is short — labels (`■名前 || Name`) and fields, UI rather than text. A layout
    table that also holds the page's text around a search box is none."""
    grids: dict[int, etree._Element] = {}
    for control in _CONTROLS_XPATH(root):
        table = next(control.iterancestors("table"), None)
        if table is None or id(table) in grids:
            continue
        if all(len(clean_text(row.text_content())) <= FORM_LABEL_CHARS for row in table.iter("tr")):
            grids[id(table)] = table
    return list(grids.values())


def _drop_keep_tail(el: etree._Element) -> None:
    parent = el.getparent()
    if parent is None:
        return
    tail = el.tail or ""
    prev = el.getprevious()
    if tail:
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(el)


def frame_sources(root: etree._Element) -> list[str]:
    """The src of each <frame>/<iframe> of a frameset page (empty for ordinary pages)."""
    return [f.get("src", "") for f in root.iter("frame") if f.get("src")]


def table_rows(table: etree._Element) -> list[list[etree._Element]]:
    """The cells of a table, row by row: each <tr> (also in <tbody>/<thead>/<tfoot>), and cells written
    straight into the table before or between its <tr>s (`<table><td>June 7</td><td>…</td><tr>…`: the
    parser keeps them outside any row) as a row of their own."""
    rows: list[list[etree._Element]] = []
    loose: list[etree._Element] = []
    for child in table.iterchildren():
        if child.tag in ("td", "th"):
            loose.append(child)
            continue
        if child.tag not in ("tr", "tbody", "thead", "tfoot"):
            continue
        if loose:
            rows.append(loose)
            loose = []
        rows += [_CELLS_XPATH(child)] if child.tag == "tr" else table_rows(child)
    return rows + ([loose] if loose else [])


MAX_SPAN = 100  # a larger rowspan / colspan is a slip (`colspan="1000"`): read as this


def _span(cell: etree._Element, name: str) -> int:
    """A cell's rowspan or colspan: a whole number from 1 to MAX_SPAN (1 when missing or not a number); 0 (the
    rest of the table, HTML's rowspan="0") counts as 1."""
    value = (cell.get(name) or "").strip()
    digits = re.match(r"\d+", value)
    return min(MAX_SPAN, max(1, int(digits.group()))) if digits else 1


def span_grid(rows: list[list[etree._Element]]) -> list[list[etree._Element | None]]:
    """The table's rows with rowspan and colspan laid out, so that each cell stands in its own column: a cell
    is placed in its row's first free column; the places it spans below and to its right hold None. A rowspan
    reaching past the last row adds no rows."""
    grid: list[list[etree._Element | None]] = []
    taken: dict[tuple[int, int], bool] = {}  # (row, column) covered by a span from above
    for r, row in enumerate(rows):
        out: list[etree._Element | None] = []
        col = 0
        for cell in row:
            while taken.get((r, col)):
                out.append(None)
                col += 1
            out.append(cell)
            down, across = _span(cell, "rowspan"), _span(cell, "colspan")
            out.extend([None] * (across - 1))
            for dr in range(1, min(down, len(rows) - r)):
                for dc in range(across):
                    taken[(r + dr, col + dc)] = True
            col += across
        while taken.get((r, col)):  # spans from above at the row's end
            out.append(None)
            col += 1
        grid.append(out)
    return grid


def _is_data_table(table: etree._Element) -> bool:
    """A table of data (render as a table) rather than a layout grid (descend into it)."""
    if table.xpath(".//table"):
        return False
    rows = table_rows(table)
    if len(rows) < 2:
        return False
    widths = [len(r) for r in rows]
    if max(widths) < 2:
        return False
    blocky = _BLOCKY_XPATH(table)
    if blocky:
        return False
    border = (table.get("border") or "0").strip()
    if table.xpath(".//th") or (border.isdigit() and int(border) > 0):
        return True
    cells = table.xpath(".//td")
    text = sum(len(c.text_content().strip()) for c in cells)
    images = len(table.xpath(".//img"))
    return len(rows) >= 3 and images <= 1 and text / max(1, len(cells)) < 80


_PIXELS_RE = re.compile(r"\s*(\d+)\s*(?:px)?\s*$")
SPACER_PIXELS = 4  # an image this thin is layout (a spacer GIF, a rule), never a picture


_FLOAT_RE = re.compile(r"^\s*(?:left|right)\s*;|float\s*:\s*(?:left|right)", re.IGNORECASE)


def _is_floated(img: etree._Element) -> bool:
    """An image floated left or right of the text (`align`, CSS `float`)."""
    return bool(_FLOAT_RE.search(f"{img.get('align', '')};{img.get('style', '')}"))


def _floated_image(link: etree._Element) -> bool:
    """A link around nothing but one floated image (a thumbnail beside the text, opening the photo)."""
    children = [c for c in link if isinstance(c.tag, str)]
    return len(children) == 1 and children[0].tag == "img" and _is_floated(children[0]) and not (
        (link.text or "").strip() or (children[0].tail or "").strip())


def _is_spacer(img: etree._Element) -> bool:
    """A spacer or rule image: width or height of at most SPACER_PIXELS (set in its attributes)."""
    for name in ("width", "height"):
        size = _PIXELS_RE.match(img.get(name) or "")
        if size and int(size.group(1)) <= SPACER_PIXELS:
            return True
    return False


def _holds_blocks(el: etree._Element) -> bool:
    """An inline or unknown element (custom tags, <a>, <span>) that wraps paragraphs, lists or tables."""
    if not isinstance(el.tag, str) or not len(el):
        return False
    # A plain loop: iterdescendants(*BLOCK_TAGS) builds a 50-tag matcher on every call, which costs more.
    return any(d.tag in BLOCK_TAGS for d in el.iterdescendants())


class _Renderer:
    """Walks an lxml tree and emits blocks."""

    def __init__(self, base_url: str = "") -> None:
        self.base_url = base_url
        self.blocks: list[Block] = []
        self._md: list[str] = []
        self._text: list[str] = []
        self._floats: list[str] = []  # images floated beside the paragraph being read (see _inline)
        self._path = ""

    # -- inline content -------------------------------------------------
    def _url(self, url: str) -> str:
        url = (url or "").strip()
        url = urljoin(self.base_url, url) if self.base_url and url else url
        return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29")  # a valid Markdown destination

    def _inline(self, el: etree._Element, floats: list[str] | None = None) -> tuple[str, str]:
        """Markdown and plain text of an inline element (with its children). With `floats` (a paragraph's run),
        an image floated left or right (`align`, CSS `float`) goes there instead: it stands beside the text, and
        in the text it would cut a sentence (`首から上![](KOWA0227_small.JPG)の部分が亜麻色に`)."""
        tag = el.tag if isinstance(el.tag, str) else ""
        md_parts: list[str] = []
        text_parts: list[str] = []
        if tag == "br":
            return "\n", "\n"
        if tag == "img":
            if _is_spacer(el):
                return "", ""
            alt = clean_text(el.get("alt", "")).replace("\n", " ")
            src = self._url(el.get("src", ""))
            if floats is not None and _is_floated(el):
                floats.append(image_md(src, alt))
                return "", ""
            return image_md(src, alt), alt
        outer = floats
        if tag == "a":
            floats = None  # a linked image keeps its link (the link goes to `floats` when it is a floated image)
        if el.text:
            flowed = flow_text(el.text)
            md_parts.append(escape_text(flowed))
            text_parts.append(flowed)
        for child in el:
            cmd, ctext = self._inline(child, floats)
            md_parts.append(cmd)
            text_parts.append(ctext)
            if child.tail:
                flowed = flow_text(child.tail)
                md_parts.append(escape_text(flowed))
                text_parts.append(flowed)
        md = "".join(md_parts)
        text = "".join(text_parts)
        if tag == "a" and el.get("href") and (text.strip() or md.strip().startswith("![")):  # words or a button
            href = self._url(el.get("href", ""))
            label = clean_text(md).replace("\n", " ")
            text = text.replace("\n", " ")  # one line, as its label
            md = f"[{label}]({href})" if not href.lower().startswith("javascript:") else label
            if outer is not None and not text.strip() and _floated_image(el):
                outer.append(md)
                return "", ""
        elif tag in ("b", "strong") and text.strip() and md.strip() and "\n" not in md.strip():
            md = _wrapped(md, "" if md.strip().startswith("**") else "**")
        elif tag in ("i", "em") and text.strip():
            md = _wrapped(md, "*")
        elif tag in ("code", "tt", "kbd") and text.strip() and "\n" not in text:
            md = f"`{text.strip()}`"
        return md, text

    # -- paragraph runs ------------------------------------------------
    def _flush(self) -> None:
        floats, self._floats = self._floats, []
        if not self._md and not floats:
            return
        md = "".join(self._md)
        if "**" in md:
            md = _NESTED_BOLD_RE.sub(r"**\1**", _GLUED_BOLD_RE.sub("", _EMPTY_EMPHASIS_RE.sub("", md)))
        text = "".join(self._text)
        self._md, self._text = [], []
        # Two or more <br> in a row separate paragraphs in <br>-only pages.
        md_parts = _PARA_BREAK_RE.split(md) if "\n" in md else [md]
        text_parts = _PARA_BREAK_RE.split(text) if "\n" in text else [text]
        if len(md_parts) != len(text_parts):
            md_parts, text_parts = [md], [text]
        parts = [lines for part_md, part_text in zip(md_parts, text_parts, strict=True)
                 if (lines := _paired_lines(part_md, part_text))] if md.strip() else []
        if floats:  # the paragraph's floated images: a line of their own at its end, out of its sentences
            image = " ".join(floats)
            parts = parts[:-1] + [parts[-1] + [(image, "")]] if parts else [[(image, "")]]
        for lines in parts:
            ptext = "\n".join(t for _, t in lines if t)
            kind = "para" if ptext else "image"
            self._add(kind, ptext, join_lines([m for m, _ in lines]), lines)

    def _add(self, kind: str, text: str, md: str, lines: list[tuple[str, str]] | None = None) -> None:
        link_chars = sum(len(label.strip("*` ")) for label in _LINK_LABEL_RE.findall(md)) if "](" in md else 0
        self.blocks.append(Block(len(self.blocks), kind, text, md, self._path, link_chars, lines or []))

    def _run(self, el: etree._Element) -> None:
        md, text = self._inline(el, self._floats)
        self._md.append(md)
        self._text.append(text)

    def _text_run(self, s: str | None) -> None:
        if s:
            s = flow_text(s)
            self._md.append(escape_text(s))
            self._text.append(s)

    # -- block content -------------------------------------------------
    def walk(self, el: etree._Element, path: str = "") -> None:
        tag = el.tag if isinstance(el.tag, str) else ""
        here = f"{path}>{tag}" if path else tag
        if tag in ("head", "title"):
            return
        if tag in HEADINGS:
            self._flush()
            md, text = self._inline(el)
            text = clean_text(text).replace("\n", " ")
            if text:
                self._path = here
                self._add("heading", text, "#" * HEADINGS[tag] + " " + clean_text(md).replace("\n", " "))
            return
        if tag in ("pre", "listing", "xmp", "plaintext"):
            self._flush()
            raw = el.text_content().strip("\n")
            if raw.strip():
                self._path = here
                self._add("pre", raw.strip(), "```\n" + raw.rstrip() + "\n```")
            return
        if tag in ("ul", "ol", "menu", "dir"):
            self._flush()
            self._list(el, here, ordered=tag == "ol")
            return
        if tag == "dl":
            self._flush()
            self._dl(el, here)
            return
        if tag == "table" and _is_data_table(el):
            self._flush()
            self._table(el, here)
            return
        if tag == "hr":
            self._flush()
            return
        self._text_run(el.text)
        for child in el:
            ctag = child.tag if isinstance(child.tag, str) else ""
            if ctag in BLOCK_TAGS or _holds_blocks(child):
                if self._md:  # (the checks spare most calls of _flush, which has nothing to do then)
                    self._flush()
                self._path = here
                self.walk(child, here)
                if self._md:
                    self._flush()
            else:
                self._path = here
                self._run(child)
            self._text_run(child.tail)
        if tag in BLOCK_TAGS and self._md:
            self._flush()

    def _list(self, el: etree._Element, here: str, ordered: bool) -> None:
        """<li> items (also inside a wrapper: `<ul><font><li>…`) as list blocks; see _mixed_list."""
        number = 0

        def item_lines(child: etree._Element) -> list[tuple[str, str]] | None:
            nonlocal number
            items = [child] if child.tag == "li" else _WRAPPED_ITEMS_XPATH(child)
            if not items:
                return None
            lines = []
            for li in items:
                md, text = self._inline(li)
                md, text = clean_text(md), clean_text(text).replace("\n", " ")
                if md:
                    number += 1
                    mark = f"{number}. " if ordered else "- "
                    # an item's <br> lines stay lines: continuation lines indented under the item's text
                    lines.append((mark + (HARD_BREAK + " " * len(mark)).join(
                        escape_line_start(line) for line in md.split("\n")), text))
            return lines

        self._mixed_list(el, here, item_lines)

    def _dl(self, el: etree._Element, here: str) -> None:
        """<dt>/<dd> pairs as list blocks; see _mixed_list."""

        def item_lines(child: etree._Element) -> list[tuple[str, str]] | None:
            if child.tag not in ("dt", "dd"):
                return None
            md, text = self._inline(child)
            md, text = clean_text(md).replace("\n", " "), clean_text(text).replace("\n", " ")
            if not md:
                return []
            bold = md if "**" in md else f"**{md}**"  # a <dt> with its own <b> keeps that emphasis
            return [(bold if child.tag == "dt" else f": {md}", text)]

        self._mixed_list(el, here, item_lines)

    def _mixed_list(self, el: etree._Element, here: str,
                    item_lines: Callable[[etree._Element], list[tuple[str, str]] | None]) -> None:
        """A list element's items as list blocks (`item_lines(child)`: the (md, text) lines of a child that is an
        item, else None); anything else inside it (loose text, <br> lines, a <p>, a nested list: old pages indent
        with a bare <ul> or <dl>, `<ul>JST supports his/her airfare…</ul>`) is walked as ordinary content, in its
        place, so none of it is lost."""
        lines: list[tuple[str, str]] = []

        def add_list() -> None:
            if lines:
                self._path = here
                self._add("list", "\n".join(t for _, t in lines), "\n".join(m for m, _ in lines), list(lines))
                lines.clear()

        self._text_run(el.text)
        for child in el:
            found = item_lines(child)
            if found is not None:
                self._flush()
                lines += found
            else:
                add_list()
                ctag = child.tag if isinstance(child.tag, str) else ""
                if ctag in BLOCK_TAGS or _holds_blocks(child):
                    self._flush()
                    self.walk(child, here)
                    self._flush()
                else:
                    self._run(child)
            if child.tail and child.tail.strip():
                add_list()
                self._text_run(child.tail)
        self._flush()
        add_list()

    def _table(self, el: etree._Element, here: str) -> None:
        rows: list[list[str]] = []
        texts: list[str] = []
        grid = span_grid(table_rows(el))
        for row in grid:
            cells = []
            for cell in row:
                if cell is None:  # a place a cell above or to the left spans: empty, its text is written once
                    cells.append("")
                    continue
                md, text = self._inline(cell)
                cells.append(clean_text(md).replace("\n", "<br>").replace("|", "\\|"))
                texts.append(clean_text(text).replace("\n", " "))
            if any(cells):
                rows.append(cells)
        if not rows:
            return
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
        lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
        self._path = here
        self._add("table", "\n".join(t for t in texts if t), "\n".join(lines))


def html_to_blocks(html: str, base_url: str = "") -> tuple[list[Block], etree._Element]:
    """Numbered blocks of a page, plus its cleaned tree (for titles and frames)."""
    root = parse_html(html)
    renderer = _Renderer(base_url)
    body = root.find("body")
    renderer.walk(body if body is not None else root)
    renderer._flush()
    return renderer.blocks, root


def _wrapped(md: str, mark: str) -> str:
    """`md` between emphasis marks, its edge spaces dropped but not its edge line breaks: `<b>◆警報<br></b>`
    ends a line as its text does (a paragraph whose Markdown and text split into different line counts is
    read as one line)."""
    core = md.strip()
    head = "\n" * md[:len(md) - len(md.lstrip())].count("\n")
    tail = "\n" * md[len(md.rstrip()):].count("\n")
    return f"{head}{mark}{core}{mark}{tail}"


def _paired_lines(md: str, text: str) -> list[tuple[str, str]]:
    """A paragraph's (md, text) lines, cleaned; lines with no Markdown are dropped. When the two do not split
    alike (a line break inside a link label), the paragraph is one line."""
    if "\n" not in md and "\n" not in text:  # one line: the common case
        m = clean_text(md)
        return [(escape_line_start(m), clean_text(text))] if m else []
    md_lines, text_lines = md.split("\n"), text.split("\n")
    if len(md_lines) != len(text_lines):
        md_lines, text_lines = [md.replace("\n", " ")], [text.replace("\n", " ")]
    pairs = [(escape_line_start(clean_text(m)), clean_text(t)) for m, t in zip(md_lines, text_lines, strict=True)]
    return [(m, t) for m, t in pairs if m]


def page_title(root: etree._Element) -> str:
    """The page's <title>, else its first heading, else ''."""
    for xpath in ("//title", "//h1", "//h2"):
        for el in root.xpath(xpath):
            # a <title> is text even where it holds tags (`sfddiff -- …プログラム</A>`: a page's slip): they go
            text = clean_text(_TAG_RE.sub("", el.text_content())).replace("\n", " ")
            if text and not _PLACEHOLDER_TITLE_RE.fullmatch(unicodedata.normalize("NFKC", text)):
                return text
    return ""


# An editor's default title, which names no page: FrontPage's 新しいページ 1, Dreamweaver's 無題ドキュメント /
# Untitled Document, PowerPoint's スライド タイトルなし.
_PLACEHOLDER_TITLE_RE = re.compile(r"(?:新しいページ|new page)\s*\d*|無題(?:ドキュメント)?|"
                                   r"untitled(?: document)?\s*\d*|スライド\s*タイトルなし|no title|document",
                                   re.IGNORECASE)


_TAG_RE = re.compile(r"</?[A-Za-z][^<>]*>")


def render_blocks(blocks: list[Block], keep: set[int], drop_lines: dict[int, set[int]] | None = None) -> str:
    """Markdown of the kept blocks, in page order, without the dropped lines of each."""
    drop_lines = drop_lines or {}
    parts = (b.render(drop_lines.get(b.id, frozenset())) for b in blocks if b.id in keep)
    return "\n\n".join(p for p in parts if p.strip()).strip() + "\n"
