"""A page's kind: one slug of a small taxonomy that means the same on every site (docs/stages.md, `kind`).

The kind is decided, in this order, by:

1. the page's structure, where structure says what a page is: dated entries (`diary`, or the kind its title or
   section names when that is `news`, `report`, `event`, `bbs` or `photos`), mostly links to other pages of the site
   (`index`), mostly links elsewhere (`links`); a program or a player as its content, read from its HTML (an
   applet, a Flash movie, a video, scrolling text, a script's animation: `media`); mostly images (`photos`);
   short lines of verse (`lyrics`);
2. the words of the taxonomy (`KINDS[slug].names`: 日記, プロフィール, Links, ...) in the page's own title (not one
   the pages of several sections share), then in the name its site gives its section (siterag.enrich.sections:
   `日記` in a menu makes its pages diary pages); a script's pages (`bbs.cgi?no=2`) take its own page's kind;
3. running text (or a table) that offers something for money (amounts with the words of an offer) is `product`;
   a table that names a program's API, or running text that keeps naming a program's interface (dialogs, menus,
   buttons: `manual_like`) is `manual`, and so is all running text of a section (or of a site without sections)
   that mostly is; a page that is mostly a table, or has little text, is `other`; other running text is `essay`.
   The site's front page (`index.html`, `m.index.html`, `!home.html` at its top) is `index` unless it is a diary.

An embedder's zero-shot choice among the prose kinds (the cosine of the page's title and opening against each
kind's bilingual description; `prose_kinds`) can replace step 3 (`site_kinds(..., embedder)`); on labelled pages
it did worse (docs/measurements.md), so the site pass does not pass one. Never a file name or folder stem: a
section name only counts through the taxonomy's words.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from difflib import SequenceMatcher

import numpy as np

from siterag.enrich.dates import ENTRY_HEADING_RE
from siterag.enrich.markdown import MD_IMAGE_RE, repeated_pictures, without_pictures


@dataclass(frozen=True)
class Kind:
    """One kind: its Japanese and English description (what the embedder compares a page with), the words that
    name it in a title or a menu (matched whole in English, as a part of a Japanese name) and the kind in a word
    (Japanese, English) as a summary's frame says it (siterag.enrich.framing; `other` says nothing of a page)."""

    ja: str
    en: str
    names: tuple[str, ...] = ()
    word: tuple[str, str] = ("", "")


KINDS: dict[str, Kind] = {
    "diary": Kind("日記・雑記：日付ごとの個人的な記録", "Diary or blog: dated personal entries",
                  ("日記", "日誌", "雑記", "ブログ", "つれづれ", "徒然", "近況",
                   "diary", "journal", "blog", "weblog"), word=("日記", "diary")),
    "essay": Kind("エッセイ・論考・コラム：意見や考えを述べた文章", "Essay, article or column: the author's thoughts",
                  ("エッセイ", "コラム", "随筆", "論考", "論文", "考察",
                   "essay", "essays", "column", "article", "articles", "opinion"), word=("文章", "essay")),
    "review": Kind("レビュー・感想・批評：本、映画、音楽、作品の評", "Review: a book, film, record or game reviewed",
                   ("レビュー", "感想", "批評", "書評", "評論", "劇評", "映画評",
                    "review", "reviews", "critique"), word=("レビュー", "review")),
    "fiction": Kind("小説・物語・脚本・台本：創作の文章", "Fiction: a story, novel, play or script",
                    ("小説", "物語", "創作", "脚本", "台本", "戯曲", "童話",
                     "ss", "fiction", "story", "stories", "novel", "script", "scripts", "plays"),
                    word=("創作", "fiction")),
    "lyrics": Kind("詩・歌詞・短歌・俳句", "Poetry or song lyrics",
                   ("詩", "歌詞", "短歌", "俳句",
                    "poem", "poems", "poetry", "lyrics", "verse"), word=("詩・歌詞", "poetry or lyrics")),
    "report": Kind("レポート・報告・紀行：旅行、ライブ、公演、行事に行った記録",
                   "Report: an account of a trip, a concert, a show",
                   ("レポート", "レポ", "報告", "旅行記", "紀行", "記録", "観戦記", "参加記",
                    "report", "reports", "trip", "trips", "travel", "travels", "travelogue"),
                   word=("レポート", "report")),
    "event": Kind("イベント・催し：会議、シンポジウム、ライブ、公演の案内・プログラム・講演・会場・参加登録",
                  "Event: a conference, symposium, concert or show: its programme, talks, venue, committee, "
                  "registration",
                  ("イベント", "催し", "会議", "シンポジウム", "ワークショップ", "セミナー", "講演", "講演会", "学会",
                   "研究会", "ライブ", "公演", "上演", "演奏会", "コンサート",
                   "event", "events", "conference", "conferences", "symposium", "seminar",
                   "seminars", "live", "lives", "gig", "gigs", "concert", "concerts", "tour", "tours"),
                  word=("イベント", "event")),
    "photos": Kind("写真・アルバム・ギャラリー", "Photo album or gallery",
                   ("写真", "アルバム", "ギャラリー", "フォト",
                    "photo", "photos", "pictures", "gallery", "album", "images"), word=("写真", "photos")),
    "media": Kind("動画・アニメーション・アプレット・スクリプトのデモ：プログラムやプレーヤーが中身のページ",
                  "Media or demo: an animation, a Java applet, a script demo, a Flash movie, a video or audio player",
                  ("アプレット", "フラッシュ", "アニメーション", "アニメ", "動画", "ムービー", "デモ",
                   "applet", "applets", "flash", "animation", "animations", "movie", "movies", "video", "videos",
                   "demo", "demos"), word=("動画・アプレット等", "media or demo")),
    "news": Kind("お知らせ・更新履歴・ニュース", "News, announcements and site updates",
                 ("お知らせ", "更新履歴", "更新情報", "新着", "ニュース", "告知", "記事",
                  "news", "updates", "what's new", "whats new", "announcements"), word=("お知らせ", "news")),
    "profile": Kind("プロフィール・自己紹介・サイトについて", "Profile or about page: who the author or the group is",
                    ("プロフィール", "プロファイル", "自己紹介", "管理人", "メンバー", "略歴", "経歴", "履歴", "横顔",
                     "業績", "連絡先", "お問い合わせ",
                     "profile", "about", "biography", "bio", "team", "members", "curriculum vitae", "cv",
                     "contact"), word=("プロフィール", "profile")),
    "links": Kind("リンク集：他のサイトへのリンク", "Links to other sites", ("リンク", "link", "links"),
                  word=("リンク集", "links")),
    "bbs": Kind("掲示板・ゲストブック・伝言板", "BBS or guestbook: messages from visitors",
                ("掲示板", "ゲストブック", "伝言板",
                 "bbs", "guestbook", "guest book", "forum"), word=("掲示板", "guestbook or BBS")),
    "manual": Kind("マニュアル・説明書・解説・技術文書", "Manual or documentation: how to use or build something",
                   ("マニュアル", "説明書", "解説", "使い方", "ヘルプ", "講座", "入門", "ドキュメント", "手引き",
                    "仕様",
                    "manual", "documentation", "docs", "help", "tutorial", "howto", "how to", "faq",
                    "reference", "guide"), word=("解説", "manual")),
    "product": Kind("製品・商品・通販・価格", "Product or shop: things offered, with prices or specifications",
                    ("製品", "商品", "通販", "販売", "ショップ", "価格",
                     "product", "products", "shop", "store", "specs", "specifications", "sales"),
                    word=("製品・商品", "product page")),
    "index": Kind("目次・メニュー・サイトマップ", "Index, menu or table of contents of the site",
                  ("目次", "サイトマップ", "index", "contents", "sitemap", "site map"), word=("目次", "index page")),
    "other": Kind("その他", "Anything else"),
}
SLUGS = tuple(KINDS)
OTHER_KIND = "other"  # a page none of the kinds fits
# Kinds the embedder may choose among: what running text can be; the others are decided by structure or words.
PROSE_KINDS = ("essay", "review", "fiction", "report", "event", "profile", "manual", "product", "news")
# what a page of dated entries can be: its title says
ENTRY_KINDS = ("news", "report", "event", "bbs", "photos", "diary")
PROSE_CHARS = 200  # less running text than this: no prose kind
UI_WORDS, UI_DENSITY = 4, 2  # a manual names its program's interface this often (words; per 1,000 characters)
BLURBS = 1.5  # at most this many paragraphs for each link with its blurb: an index of the site's pages
PHOTO_STORY = 4  # at least this many pictures,
CAPTION_PARAGRAPHS = 1.5  # with from half a paragraph of text to this many for each
PHOTO_STORY_CHARS = 300  # and fewer characters of text than this for each: a captioned series of pictures
IMAGE_CAPTION = 80  # a line with an image and less text than this is an image (with its caption)
VERSE_LINES = 6  # at least this many short lines without a sentence end, most of the text: lyrics
MARGIN = 0.02  # the embedder's best prose kind must beat `essay` by this much in cosine to replace it

_MD_LINK_RE = re.compile(r"(?<!!)\[([^\]]*)\]\(([^)\s]*)[^)]*\)")
_EXTERNAL_RE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)
_ITEM_RE = re.compile(r"^(?:[-*+]|\d{1,3}[.)])\s+")
_SENTENCE_END_RE = re.compile(r"[。．！？!?.]\s*[」』）)]*$|[、,]$")
UI_WORDS_RE = re.compile(r"ダイアログ|メニュー|ボタン|ウィンドウ|クリック|コマンド|オプション|"
                         r"チェックボックス|インストール|ダウンロード|ショートカット|ドラッグ|"
                         r"引数|戻り値|返り値|パラメータ|メソッド|プロパティ|"  # and a program's API, in a reference
                         r"\b(?:dialog|menu|button|window|click|command|option|checkbox|install|download|shortcut|drag|"
                         r"parameter|argument|return value|method|propert(?:y|ie))s?\b", re.IGNORECASE)
# An offer: an amount of money (¥8,000, 5,000円, $20) and the words of one (料金, 申込, 承ります, order, fee)
PRICE_RE = re.compile(r"[¥$€£]\s?\d[\d,.]*|\d[\d,]*\s?(?:円|yen\b|dollars?\b)|\b(?:us|usd)\s?\$?\s?\d", re.IGNORECASE)
OFFER_RE = re.compile(r"料金|受講料|授業料|月謝|入会金|会費|価格|値段|定価|税込|税別|送料|見積|申込|申し込|注文|"
                      r"販売|お譲り|承り|お受けします|ご依頼|"
                      r"\b(?:price|prices|fee|fees|for sale|shipping)\b", re.IGNORECASE)
OFFER_PRICES, OFFER_WORDS = 2, 3  # an offer names amounts at least this often, or its words this often and
OFFER_DENSITY = 2  # this often per 1,000 characters
# A page whose content is a program or a player: an applet, a Flash movie, a video (the file it plays)
# a player, or IE's HTML+TIME animation markup (`<t:animate>`, `<t:animateMotion>`: pictures moved on a timeline)
_PLAYER_RE = re.compile(r"<applet\b|<video\b|<(?:embed|object)\b[^>]*?(?:\.(?:swf|dcr|class|jar|avi|mpe?g|mov|wmv|"
                        r"asf|rm|mp4|flv|webm)\b|shockwave|flash|d27cdb6e|video)|<t:(?:animate\w*|set|seq|par|"
                        r"transitionfilter)\b", re.IGNORECASE | re.DOTALL)
# a recording to play or a video to watch, linked from the page (`[![](speaker.jpg)](audio/01.mp3)`)
_MEDIA_FILE_RE = re.compile(r"\.(?:mp3|m4a|aac|ogg|oga|wav|wma|aiff?|au|mid|midi|ra|ram|rm|mp4|m4v|mov|avi|wmv|"
                            r"mpe?g|flv|webm|swf)$", re.IGNORECASE)
# a recording played in a player shown on the page (a size, no `hidden`): not the background music of many pages
_EMBED_TAG_RE = re.compile(r"<(?:embed|object)\b[^>]*>", re.IGNORECASE)
_AUDIO_RE = re.compile(r"\.(?:mp3|wma|wav|mid|midi|ra|ram|m4a|ogg)\b|x-mplayer2|audio/|mediaplayer", re.IGNORECASE)
_HIDDEN_RE = re.compile(r"\bhidden\s*=\s*[\"']?(?:true|yes|1)", re.IGNORECASE)
_SIZE_RE = re.compile(r"\b(?:width|height)\s*=\s*[\"']?(\d+)", re.IGNORECASE)
PLAYER_PIXELS = 20  # a player this wide and high at least is shown
# a video from a video site in a frame (`<iframe src="http://www.youtube.com/embed/…">`)
_VIDEO_FRAME_RE = re.compile(r"<iframe\b[^>]*\bsrc\s*=\s*[\"']?[^\"'>\s]*(?:youtube\.com|youtu\.be|vimeo\.com|"
                             r"nicovideo\.jp|dailymotion\.com|ustream\.tv)", re.IGNORECASE)
_MARQUEE_RE = re.compile(r"<marquee\b[^>]*>(.*?)(?:</marquee\s*>|$)", re.IGNORECASE | re.DOTALL)
_TAG_RE = re.compile(r"<[^>]*>")
_FIELD_TAG_RE = re.compile(r"<(?:textarea|select)\b|"  # what a reader fills in: not hidden fields, not buttons
                           r"<input\b(?![^>]*\btype\s*=\s*[\"']?(?:hidden|submit|reset|button|image)\b)", re.IGNORECASE)
MARQUEES = 3  # scrolling text this often is an animation, not one ticker
# a script that animates or follows the mouse (not a menu's rollover images): a page's effect
_ANIMATE_RE = re.compile(r"setTimeout|setInterval|requestAnimationFrame|mousemove|clientX|pageX", re.IGNORECASE)
_SCRIPT_RE = re.compile(r"<script\b[^>]*>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)
SCRIPT_CHARS, SCRIPT_SHARE = 600, 5  # a page that is its script: this much inline script, this times its text
MEDIA_TEXT = 300  # a page with a player and less running text than this is the player's page
ANNOTATED_LINKS, ANNOTATED_CHARS = 8, 120  # a list of this many links, each with under this much text about it
LONG_TEXT = 1000  # a table beside this much running text, most of the page, is in an essay
FORM_TEXT = 600  # a form with less running text than this: the page is the form
CODE_CHARS, CODE_SHARE = 8, 3  # a program's source: this many of { } ; $, this per cent of its characters
_PAGE_FILE_RE = re.compile(r"(?:\.(?:html?|shtml|php|cgi|asp)|/|^[^.]*)$", re.IGNORECASE)  # a page, not a file
_IMAGE_FILE_RE = re.compile(r"\.(?:jpe?g|gif|png|bmp|webp|tiff?)$", re.IGNORECASE)
_LINK_TARGET_RE = re.compile(r"\]\([^)]*\)")
_ANY_TARGET_RE = re.compile(r"\]\(([^)\s]+)[^)]*\)")  # a link's (or a picture's) target
_FIELD_RE = re.compile(r"[:：|｜]|^[^\s]{1,8}\s*[-=]")
_PART_SPLIT_RE = re.compile(r"[\s・/／|｜:：\-–—~〜～,、()（）「」『』\[\]【】<>＜＞\"'“”]+")
# the site's front page, at its top (or a user's: `~name/`): `index.html`, `!home.html`, `m.index.html` (a mobile
# one), `top_page.htm`
_HOME_RE = re.compile(r"^(?:~[^/]+/)?(?:[^/]*[^a-z/])?(?:index|default|home|top)(?:[^a-z/][^/]*)?\.[a-z]+$",
                      re.IGNORECASE)
_BEGINNERS_RE = re.compile(r"初心者|入門|初級|ビギナー|\bbeginners?\b|\bfor dummies\b|\b101\b", re.IGNORECASE)
# a name that points at the site itself: its description (`このHPの説明`, `当サイトについて`) is its about page
_ABOUT_SITE_RE = re.compile(r"^(?:この|当)(?:サイト|ホームページ|ページ|ブログ|[a-z]{2,4})の?"
                            r"(?:説明|について|紹介|案内)$")
_LIST_END_RE = re.compile(r"(?:一覧|リスト|目録)表?$")  # a name ending so names a list of what comes before
_GENERIC_END_RE = re.compile(r"(?:のページ|ページ|一覧|集|コーナー|トップ|top|page|\d{2,4}年?)+$")  # (`書評2001`)


@dataclass(frozen=True)
class Structure:
    """What a page's Markdown is made of (counts of non-empty lines unless said)."""

    lines: int = 0
    entries: int = 0  # headings anchored by a date (dates.mark_entries)
    internal: int = 0  # lines that are mostly a link to another page of the site
    external: int = 0  # lines that are mostly a link elsewhere
    images: int = 0  # lines that are only images
    items: int = 0  # list items
    rows: int = 0  # table rows
    headings: int = 0
    text_chars: int = 0  # characters of running text (no tables, headings, images, link lines)
    verse: int = 0  # short text lines without a sentence end
    prose: int = 0  # text lines of running text
    ui: int = 0  # words that name the parts of a program's interface (UI_WORDS_RE: ダイアログ, menu, click)
    chars: int = 0  # characters of the body, link targets aside
    prices: int = 0  # amounts of money (PRICE_RE: ¥8,000, 5,000円)
    offers: int = 0  # words of an offer (OFFER_RE: 料金, 申込, 承ります, order)
    players: int = 0  # applets, Flash movies, videos in the page's HTML (_PLAYER_RE); recordings it links to
    script: int = 0  # characters of inline script that animates (timers, the mouse) in the page's HTML
    moving: int = 0  # characters of its text that scroll (MARQUEES or more <marquee>s): the animation's
    fields: int = 0  # the fields of its forms that a reader fills in (text, choices; not hidden ones or buttons)
    code: int = 0  # characters that program source is full of and text is not: { } ; $
    toc: int = 0  # table rows that lead to a page of the site no row before led to (a table of contents)
    blurbed: int = 0  # lines of links to the site's pages that a paragraph about them follows
    dated: bool = False  # the page has a date of its own (its entries', its file name's, a written line's)
    posts: int = 0  # headers of messages by two or more writers (board_posts)
    targets: int = 0  # the pages (a place on a page aside) and sites its link lines lead to


def program(html: str) -> tuple[int, int, int, int]:
    """(players, characters of inline script that animates, characters of scrolling text, form fields) of a
    page's HTML, which its Markdown body keeps none of: what a page whose content is a program or a player is made
    of (an applet, a Flash movie, a video, MARQUEES or more scrolling texts, a script's effect on a timer or the
    mouse), and the fields of a form."""
    marquees = _MARQUEE_RE.findall(html) if len(_MARQUEE_RE.findall(html)) >= MARQUEES else []
    shown = sum(1 for tag in _EMBED_TAG_RE.findall(html) if _AUDIO_RE.search(tag) and not _HIDDEN_RE.search(tag)
                and all(int(n) >= PLAYER_PIXELS for n in _SIZE_RE.findall(tag)))  # a player shown, not a BGM
    return (len(_PLAYER_RE.findall(html)) + len(marquees) + shown + len(_VIDEO_FRAME_RE.findall(html)),
            sum(len(m.group(1).strip()) for m in _SCRIPT_RE.finditer(html) if _ANIMATE_RE.search(m.group(1))),
            sum(len("".join(_TAG_RE.sub("", text).split())) for text in marquees), len(_FIELD_TAG_RE.findall(html)))


def structure(body: str, html: str = "", dated: bool = False) -> Structure:
    """Count what `body` (a corpus Markdown body) is made of; `html` (its normalized page, where there is one)
    adds its players and scripts; `dated`: the document has a date of its own (its front matter's)."""
    decoration = repeated_pictures(body)  # bullets and rules are no pictures of the page
    lines = [line for line in (without_pictures(raw, decoration).strip() for raw in body.splitlines()) if line]
    internal = external = images = items = rows = headings = chars = verse = prose = toc = in_cells = 0
    recordings = sum(bool(_MEDIA_FILE_RE.search(re.split(r"[?#]", href, maxsplit=1)[0]))
                     for href in _ANY_TARGET_RE.findall(body))
    listed: set[str] = set()
    targets: set[str] = set()  # where the link lines lead
    blurbed = 0  # links to a page of the site with a paragraph about it on the next line
    linked = False
    for line in lines:
        after_link, linked = linked, False
        if line.startswith("|"):
            rows += 1
            in_cells += len(MD_IMAGE_RE.findall(line))
            new = {href.split("#")[0] for _, href in _MD_LINK_RE.findall(line) if _page_href(href)} - listed
            toc += bool(new)  # a row of a table of contents leads to a page no row before it led to
            listed |= new
            continue
        if line.startswith("#"):
            headings += 1
            continue
        if _ITEM_RE.match(line):
            items += 1
            line = _ITEM_RE.sub("", line)
        if MD_IMAGE_RE.search(line):  # images with their captions; a button (an image linked to a page) or a
            line = MD_IMAGE_RE.sub("", line)  # bullet before a link text is a link
            links = _MD_LINK_RE.findall(line)
            if not any(label.strip() or not _IMAGE_FILE_RE.search(href) for label, href in links):
                rest = _MD_LINK_RE.sub("", line).strip()
                if len(rest) < IMAGE_CAPTION:
                    images += 1
                    chars += len(rest)
                    continue
        links = _MD_LINK_RE.findall(line)
        if links and len(_MD_LINK_RE.sub("", line).strip(" -–—|:;・,、/()[]（）")) < 20:  # each link counts
            targets.update(href.split("#", 1)[0] for _, href in links)
            off_site = sum(bool(_EXTERNAL_RE.match(href)) for _, href in links)
            external += off_site
            internal += len(links) - off_site
            linked = off_site < len(links)
            continue
        text = _MD_LINK_RE.sub(lambda m: m.group(1), line).strip()
        chars += len(text)
        if _verse_line(text):
            verse += 1
        elif len(text) > 30 or _SENTENCE_END_RE.search(text):
            prose += 1
            blurbed += after_link
    if not prose:  # pictures laid out in a table, with captions and no running text: a gallery (not a manual's
        images += in_cells  # screenshots in a table of steps, not a table of videos under an introduction)
    text = unicodedata.normalize("NFKC", _LINK_TARGET_RE.sub("]", body))
    code = sum(body.count(ch) for ch in "{};$")
    entries = sum(1 for _ in ENTRY_HEADING_RE.finditer(body))
    return Structure(len(lines), entries, internal, external, images, items, rows, headings, chars, verse, prose,
                     len(UI_WORDS_RE.findall(text)), len(text), len(PRICE_RE.findall(text)),
                     len(OFFER_RE.findall(text)), *_with_recordings(program(html), recordings), code, toc, blurbed,
                     dated, board_posts(lines), len(targets))


POSTS = 3  # message headers on a page of posts: a board's thread, letters and their replies
# A post's header: the field naming its writer (`投稿者 ： 越智`, `Name: …`, `Posted by …`), or a line saying whose
# message or reply follows (`◆東京大学奇術愛好会・野間大輔さんから◆`, `◆斉藤からの返信◆`, `Re: …`).
WRITER_FIELD_RE = re.compile(r"^[■◆●・\s]*(?:投稿者名?|お名前|名前|Name|Posted by|From)\s*[:：]\s*(\S.{0,30}?)\s*$",
                              re.IGNORECASE)
MESSAGE_HEAD_RE = re.compile(r"^.{0,50}(?:からの?(?:返信|返事|メッセージ|お便り|手紙|書き込み)|さんから|への返信)"
                              r"[^。]{0,30}$|^Re[:：]\s")


def post_line(line: str) -> str:
    """A line as a post's header is matched: no emphasis marks, no spaces around."""
    return line.replace("*", "").replace("_", "").strip()


def board_posts(lines: list[str]) -> int:
    """The posts of a page of messages (a board's thread kept as a page, letters and replies): its writers'
    fields, or else its message headers, when there are POSTS or more and they name two writers or more; else 0."""
    plain = [post_line(line) for line in lines]
    writers = [m[1] for line in plain if (m := WRITER_FIELD_RE.match(line))]
    heads = [line for line in plain if MESSAGE_HEAD_RE.match(line)]
    found = writers if len(writers) >= len(heads) else heads
    return len(found) if len(found) >= POSTS and len(set(found)) >= 2 else 0


def _with_recordings(found: tuple[int, int, int, int], recordings: int) -> tuple[int, int, int, int]:
    """program()'s counts with the recordings a page links to among its players."""
    return (found[0] + recordings, *found[1:])


def _page_href(href: str) -> bool:
    """Whether a link leads to a page of the site (`ch2.html`, `bbs.cgi?no=2`, `diary/`): not elsewhere, not to a
    place on the same page, not to a file to play or fetch (`01 intro.mp3`, `manual.pdf`)."""
    path = re.split(r"[?#]", href, maxsplit=1)[0]
    return bool(path) and not _EXTERNAL_RE.match(href) and bool(_PAGE_FILE_RE.search(path.rsplit("/", 1)[-1] or "/"))


def manual_like(st: Structure) -> bool:
    """Running text that keeps naming a program's interface (dialogs, menus, buttons, clicks, installs): at
    least UI_WORDS of them and UI_DENSITY per 1,000 characters."""
    return st.ui >= UI_WORDS and st.ui * 1000 >= UI_DENSITY * max(st.chars, 1)


def media_like(st: Structure) -> bool:
    """A page whose content is a program or a player: an applet, a Flash movie or a video with little text of its
    own (less than MEDIA_TEXT; twice that where the text tells how to work it, naming UI_WORDS parts of an
    interface, and links nowhere: `Press right mouse button over Gyrobot below…` over a 3D model's viewer, not a
    page of downloads with their demo videos), or inline script SCRIPT_SHARE times longer than all its text (a
    script's effect). A page that offers things for money (offer_like) has an offer of its own beside its player: a
    price list under a Flash banner."""
    text = st.text_chars - st.moving
    worked = text < 2 * MEDIA_TEXT and st.ui >= UI_WORDS and not st.internal + st.external
    return st.players > 0 and (text < MEDIA_TEXT or worked) and not offer_like(st) \
        or st.script >= SCRIPT_CHARS and st.script >= SCRIPT_SHARE * st.chars


def offer_like(st: Structure) -> bool:
    """Running text that offers something for money: amounts (OFFER_PRICES) with a word of an offer (料金, 申込),
    or the words of an offer (承ります, ご依頼, 料金) at least OFFER_WORDS times and OFFER_DENSITY per 1,000 characters
    (not a book that names a fee or two)."""
    return st.prices >= OFFER_PRICES and st.offers >= 1 \
        or st.offers >= OFFER_WORDS and st.offers * 1000 >= OFFER_DENSITY * st.chars


def _verse_line(text: str) -> bool:
    """A line as verse is written: short, no sentence end, no field (`Tel:`), few digits, no emphasis."""
    return 2 <= len(text) <= 30 and not _SENTENCE_END_RE.search(text) and not _FIELD_RE.search(text) \
        and sum(ch.isdigit() for ch in text) <= 2 and not text.startswith(("*", "_", "<", "["))


def structural_kind(st: Structure) -> str:
    """The kind `st` decides on its own: index, links, photos, diary (dated entries), bbs (posts), lyrics; '' when
    the page is running text (or a table, or too little to tell) and words or the embedder decide."""
    n = max(st.lines, 1)
    linked = st.internal + st.external
    if st.images >= 3 and (st.images * 2 >= n or st.images * 4 >= n and st.text_chars < 100 * st.images) \
            and not (manual_like(st) and st.prose >= st.images):  # screenshots in a manual's steps
        return "photos"
    if st.images and st.text_chars < 120 and not linked and not st.fields:  # one picture and its caption (not
        return "photos"  # a form's heading picture)
    if st.entries >= 2:
        return "diary"
    if st.posts:  # messages by two writers or more, each headed by who wrote it: a board's thread
        return "bbs"
    if st.images >= PHOTO_STORY and st.images <= 2 * st.prose <= 2 * CAPTION_PARAGRAPHS * st.images \
            and st.text_chars < PHOTO_STORY_CHARS * st.images and not manual_like(st):
        return "photos"  # pictures each told by a paragraph of its own under it: a captioned series, a photo story
    if linked >= 4 and (linked * 2 >= n or st.text_chars < 15 * linked) and st.text_chars < 60 * linked \
            and not text_under_links(st):
        return "index" if st.internal >= st.external else "links"  # (captions on lines of their own count as text)
    if st.external >= 2 and not st.internal and not st.text_chars and not st.images and not st.rows:
        return "links"  # nothing but links elsewhere, however few: a page of links (a manual's `other software`)
    if st.internal >= 4 and 3 * (st.items + st.internal) >= 2 * n and st.prose * 10 < n:  # the site's pages,
        return "index"  # each a link with its parts listed under it (a diary's years, each with its entries' titles)
    if st.blurbed >= 4 and st.prose <= BLURBS * st.blurbed and not st.players:
        return "index"  # the site's pages, each a link with a paragraph about it (a section's essays, dialogues)
    if st.toc >= 4 and st.toc * 3 >= st.rows and st.text_chars < 30 * st.toc:  # a table of contents laid out
        return "index"  # in a table, a page in a row (not a menu's hot keys, all into a few pages; not a track list)
    if st.verse >= VERSE_LINES and st.verse >= 4 * st.prose and not st.rows and linked * 4 < n:
        return "lyrics"
    return ""


def named_kind(name: str) -> str:
    """The kind a title or a section name says by a word of the taxonomy (`日記` → diary, `About me` → profile,
    `Links` → links, `思索・エッセイ(芸術)` → essay); '' when it says none. An English name counts as whole words, a
    Japanese one as the end of a part of the name (its head noun: `上演劇の感想`, not `メンバー向け 内部ページ`),
    after a generic ending (ページ, 一覧, 集, トップ); a name of the site itself (`このHPの説明`) is its profile.
    Where several parts name kinds, the last one says it; a name ending in a list (`斉藤俊雄・中学校演劇 脚本
    上演校一覧`: of the schools that played the scripts) only by its last part."""
    text = unicodedata.normalize("NFKC", name or "").casefold()
    found = []  # (where in the name, length of the word, slug): the last, then the longest, wins
    parts = [part for part in _PART_SPLIT_RE.split(text) if part]
    if parts and _LIST_END_RE.search(parts[-1]):
        parts = parts[-1:]  # `脚本 上演校一覧`: a list of schools; what comes before it only says whose
    for part in parts:
        part = _GENERIC_END_RE.sub("", part)
        at = text.find(part)
        if _ABOUT_SITE_RE.match(part):
            found.append((at, len(part), "profile"))
        for slug, kind in KINDS.items():
            for word in kind.names:
                if not word.isascii() and part.endswith(word):
                    found.append((at, len(word), slug))
    words = [(m.start(), m.group()) for m in re.finditer(r"(?<![a-z0-9])[a-z]+(?:'[a-z]+)?(?![a-z])", text)]
    for i, (at, word) in enumerate(words):
        pair = f"{word} {words[i + 1][1]}" if i + 1 < len(words) else ""
        for slug, kind in KINDS.items():
            if word in kind.names or pair and pair in kind.names:
                found.append((at, len(pair) if pair in kind.names else len(word), slug))
    return max(found)[2] if found else ""


def section_kind(name: str) -> str:
    """The kind a section's (or a folder's) name says of the pages in it: named_kind, less `index` (the pages
    under `目次` or `Site Map` are what it lists, not more tables of contents)."""
    said = named_kind(name)
    return "" if said == "index" else said


def named_audience(name: str) -> str:
    """`manual` where a title says whom it teaches (初心者向け…, …入門編, for beginners) wherever in the title; ''."""
    return "manual" if _BEGINNERS_RE.search(unicodedata.normalize("NFKC", name or "")) else ""


def decide(st: Structure, title: str = "", section: str = "", prose: str = "", folder: str = "",
           dated_section: bool = False) -> str:
    """The kind of one page from its Structure, its own title and its section's name (see the module docstring);
    `prose` is the embedder's choice for it ('' without); `folder`: the name of the folder the page is filed in
    (`team`, `diary`), a word of the taxonomy where its title and section say none; `dated_section`: most pages of
    its section have a date of their own (a diary's days, a blog's posts), so one without is no diary page."""
    found = structural_kind(st)
    placed = section_kind(section) or section_kind(folder)
    if placed == "diary" and dated_section and not (st.entries or st.dated):  # among the diary's days, with none
        placed = ""  # of its own: a note on the diary (its bibliography, an article), the blog's error page
    said = named_kind(title) or named_audience(title) or placed
    if found == "diary" and said in ENTRY_KINDS or found in ("index", "links") and named_kind(title) == "news":
        return said  # dated entries, or dated links, of news (`更新履歴`, `新着情報`)
    if found in ("links", "photos") and st.entries and said == "diary":
        return said  # a blog's entry that is mostly links to videos, or pictures: an entry all the same
    if found in ("index", "links", "diary"):
        return found
    if media_like(st):  # an applet, a Flash movie, a script's effect: whatever few images or words it shows
        return said if st.entries and said == "diary" else "media"  # (a blog's entry of a video: an entry)
    if found == "photos":
        return found
    if said:
        return said
    if found:
        return found
    if offer_like(st):  # a service, a course or a thing offered, with its prices
        return "product"
    if st.rows >= 3 and st.rows * 2 >= st.lines and not (st.text_chars >= LONG_TEXT and st.text_chars * 2 >= st.chars):
        return "manual" if manual_like(st) else "other"  # mostly a table: a function reference, or data (a roster)
    if st.fields and st.text_chars < FORM_TEXT:  # a form to fill in: a search, a contact, a registration
        return "other"
    if st.text_chars < PROSE_CHARS or st.code >= CODE_CHARS and st.code * 100 >= CODE_SHARE * st.chars:
        return "other"  # little text, or a program's source (a script served as it is)
    if prose or manual_like(st):
        return prose or "manual"
    if annotated_links(st):  # each link with a few lines that describe it
        return "index" if st.internal >= st.external else "links"
    if 3 * (st.prose + st.verse + st.rows + st.items + st.headings) < st.lines:
        return "other"  # mostly short lines that are no sentence, verse, table or list: notes, references, data
    return "essay"


def annotated_links(st: Structure) -> bool:
    """A list of ANNOTATED_LINKS or more links, each with under ANNOTATED_CHARS of text about it (no entries)."""
    linked = st.internal + st.external
    return linked >= ANNOTATED_LINKS and st.text_chars < ANNOTATED_CHARS * linked and not st.entries \
        and not text_under_links(st)


LINKS_PER_TARGET = 3  # links, on average, into each page a page's link lines lead to: places on a few pages


def text_under_links(st: Structure) -> bool:
    """A page of LONG_TEXT or more whose link lines lead into a few pages, LINKS_PER_TARGET or more links into each:
    a reference's text under its list of links to places on one other page (FontForge's scripting manual, 273
    procedures each a link into the alphabetical list), no index however many its links (a list of 21 sites,
    each told by a paragraph, is links)."""
    return st.text_chars >= LONG_TEXT and st.internal + st.external >= LINKS_PER_TARGET * max(st.targets, 1)


def guessed(kind: str, st: Structure, title: str = "", section: str = "") -> bool:
    """Whether `kind` is a default rather than what the page shows or says: running text taken for an `essay`,
    little text for `other`, one or two pictures for `photos` — with no word of the taxonomy in its title or
    section to bear it out."""
    if named_kind(title) or section_kind(section):
        return False
    return kind in ("essay", OTHER_KIND) or kind == "photos" and st.images < 3


def page_kind(body: str, title: str = "", section: str = "", prose: str = "") -> str:
    """The kind of a page from its Markdown body (decide on its structure)."""
    return decide(structure(body), title, section, prose)


def needs_prose(st: Structure, title: str = "", section: str = "") -> bool:
    """Whether the embedder's prose kind would decide this page (no structure or word decides it)."""
    return not structural_kind(st) and not named_kind(title) and not section_kind(section) \
        and st.text_chars >= PROSE_CHARS


def telling_title(shown: str, page_title: str, shared: bool = False, placed: str = "") -> str:
    """The title a page's kind is read from: its <title>, or the title it is shown with when that names a kind
    and the <title> is no name of its own — `計算機利用の手引き` under `Nijo Lab's Computers`, its file's name
    under `untitled`, its heading under a <title> copied from another page — unless the <title> is one `shared`
    by many pages of a section whose name `placed` (section_kind of its section or folder) says their kind: a
    conference's `Travel Support` and a blog's `Konnekt Live の威力` name a topic of its event or its entry."""
    if shown and (named_kind(shown) or named_audience(shown)) and not (shared and placed):
        return shown
    return page_title


def place_kind(section: str, path: str) -> str:
    """The kind a page's place in its site says: its section's name, else its folder's (section_kind)."""
    return section_kind(section) or section_kind(_folder(path))


def own_titles(titles: dict[str, str], sections: dict[str, str]) -> dict[str, str]:
    """Each page's <title> as evidence of its kind: '' where the pages of several sections share it (the site's
    name, `ブログ` on every page), which says nothing of the page."""
    sections_of: dict[str, set[str]] = {}
    for p, title in titles.items():
        sections_of.setdefault(title, set()).add(sections.get(p, ""))
    return {p: title if len(sections_of[title]) < 2 else "" for p, title in titles.items()}


def site_kinds(pages: dict[str, tuple[Structure, str, str]], sections: dict[str, str],
               embedder=None) -> dict[str, str]:  # noqa: ANN001 - an siterag.index.embedding Embedder or None
    """The kind of each page of a site: `pages` maps a page path to (its Structure, its own title, its title and
    opening text for the embedder); `sections`: page path -> its section's name ('' for none). With `embedder`,
    running text not decided otherwise gets the nearest prose kind (prose_kinds). A page of a script (`bbs.cgi?
    no=22`) is of the kind its script's own page names (`bbs.cgi`, titled 掲示板)."""
    own = own_titles({p: title for p, (_, title, _) in pages.items()}, sections)
    pages = {p: (st, own[p], text) for p, (st, _, text) in pages.items()}
    asked = [p for p, (st, title, _) in pages.items() if embedder is not None
             and needs_prose(st, title, sections.get(p, ""))]
    prose = dict(zip(asked, prose_kinds([pages[p][2] for p in asked], embedder), strict=True))
    dated: dict[str, list[bool]] = {}  # each section's pages: whether each has a date of its own
    for p, (st, _, _) in pages.items():
        dated.setdefault(sections.get(p, ""), []).append(bool(st.entries or st.dated))
    out = {p: decide(st, title, sections.get(p, ""), prose.get(p, ""), _folder(p),
                     2 * sum(dated[sections.get(p, "")]) > len(dated[sections.get(p, "")]))
           for p, (st, title, _) in pages.items()}
    groups: dict[str, list[str]] = {}  # the running text nothing else decides, by section
    for p, (st, title, _) in pages.items():
        if needs_prose(st, title, sections.get(p, "")) and p not in prose:
            groups.setdefault(sections.get(p, ""), []).append(p)
    for members in groups.values():  # a section whose running text is mostly a manual is a manual
        if sum(out[p] == "manual" for p in members) * 2 > len(members) >= 3:
            out.update(dict.fromkeys(members, "manual"))
    out.update(screenshots(out))
    out.update(parts_of_work(out, {p: title for p, (_, title, _) in pages.items()},
                             {p: st for p, (st, _, _) in pages.items()}))
    for p in out:
        if _HOME_RE.match(p) and out[p] not in ("diary", "news"):  # the site's front page: what it offers
            out[p] = "index"
        script = p.split("?", 1)[0]
        if script != p and script in pages and (said := named_kind(pages[script][1])):
            out[p] = said
    return out


def _folder(path: str) -> str:
    """The name of the nearest folder a page is filed in that names a kind (`team` of `team/stevewood.htm`,
    `pictures` of `~patrick/pictures/kyoto/porn.html`), else the one it is in; '' at the top."""
    folders = path.split("/")[:-1][::-1]
    return next((f for f in folders if section_kind(f)), folders[0] if folders else "")


def screenshots(kinds: dict[str, str]) -> dict[str, str]:
    """The pages of pictures (`photos`) in a folder whose other pages are mostly a manual's (3 or more): a step of
    the manual shown in screenshots (`lib/cubase/010_project.html`), -> `manual`."""
    folders: dict[str, list[str]] = {}
    for p in kinds:
        folders.setdefault(p.rpartition("/")[0], []).append(p)
    out = {}
    for members in folders.values():
        others = [p for p in members if kinds[p] not in ("photos", "index")]
        if len(others) >= 3 and sum(kinds[p] == "manual" for p in others) * 2 > len(others):
            out.update({p: "manual" for p in members if kinds[p] == "photos"})
    return out


WORK_PAGES = 3  # a folder's pages of one prose kind whose titles name one work, at least this many: its parts
WORK_NAME_CHARS = 8  # the work's name: what the titles share, at least this many characters (NFKC, case-folded)
PART_LABEL_CHARS = 16  # a part's title is the work's name and a label of at most this many (`appendix 1`)


def parts_of_work(kinds: dict[str, str], titles: dict[str, str], shapes: dict[str, Structure]) -> dict[str, str]:
    """The pages no kind fits (`other`: a table, notes, little text; not a form) titled, as WORK_PAGES or more
    other pages of its folder are, by a work's name and a short label (PART_LABEL_CHARS), most of those of one
    prose kind: parts of one work (`Britain in Prophecy -- appendix 1`, `footnotes to
    Britain in Prophecy` among its chapters) -> the work's kind."""
    folders: dict[str, list[str]] = {}
    for p in kinds:
        folders.setdefault(p.rpartition("/")[0], []).append(p)
    out = {}
    for members in folders.values():
        for p in members:
            if kinds[p] != OTHER_KIND or shapes[p].fields or not titles.get(p):
                continue
            kinds_of = Counter(kinds[q] for q in members if kinds[q] not in (OTHER_KIND, "index")
                               and _part_of(titles[p], titles.get(q, "")))
            kind, n = kinds_of.most_common(1)[0] if kinds_of else ("", 0)
            if kind in PROSE_KINDS and n >= WORK_PAGES and n * 2 > sum(kinds_of.values()):
                out[p] = kind
    return out


def _part_of(title: str, other: str) -> bool:
    """Whether two (different) titles are each a name they share, WORK_NAME_CHARS or more, and a label of
    PART_LABEL_CHARS at most (NFKC, case-folded): two parts of one work, not two works by one author (`How You Can
    Receive God's Power — by Brian Williams`, `Talks by Brian Williams`)."""
    a, b = (unicodedata.normalize("NFKC", t).casefold() for t in (title, other))
    shared = SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b)).size
    return a != b and shared >= WORK_NAME_CHARS and max(len(a), len(b)) - shared <= PART_LABEL_CHARS


def description(slug: str) -> str:
    """The bilingual description of a kind, as the embedder reads it."""
    kind = KINDS[slug]
    return f"{kind.ja} / {kind.en}"


def prose_kinds(texts: list[str], embedder) -> list[str]:  # noqa: ANN001 - an siterag.index.embedding Embedder
    """For each text (a page's title and opening), the PROSE_KINDS slug whose description is nearest by cosine;
    `essay` unless another beats it by MARGIN."""
    if not texts:
        return []
    names = np.asarray(embedder.embed([description(s) for s in PROSE_KINDS]), dtype=np.float32)
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    names /= np.linalg.norm(names, axis=1, keepdims=True) + 1e-9
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-9
    scores = vectors @ names.T
    essay = PROSE_KINDS.index("essay")
    out = []
    for row in scores:
        best = int(row.argmax())
        out.append(PROSE_KINDS[best] if row[best] - row[essay] >= MARGIN else "essay")
    return out
