"""What a page is, said before what it says: a frame composed from the page's own facts (its title, its kind in
words, its section, its entry's date and heading) put before a summary that does not say it (a detail sentence,
a caption, a count of pictures, nothing at all). Pure functions; every fact is the page's or its site's."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from siterag.enrich.dates import ENTRY_HEADING_RE, parse_date_line
from siterag.enrich.keywords import EN_STOP, person_name
from siterag.enrich.kinds import KINDS, MESSAGE_HEAD_RE, WRITER_FIELD_RE, board_posts, post_line
from siterag.enrich.markdown import MD_IMAGE_RE
from siterag.enrich.metadata import UNTITLED
from siterag.enrich.summary import (
    _ENDS_SENTENCE_RE,
    ITEM_CHARS,
    LIST_SHOWN,
    POINTER_LABELS,
    SUMMARY_CHARS,
    _is_ja,
    _quoted,
    choose_summary,
    composed_summary,
    date_range,
    lines_summary,
    own_word,
    page_sentences,
    sentence_terms,
    squeezed,
    summary_source,
)
from siterag.extract.chrome import back_label

TITLE_CHARS = 48  # a longer title is clipped in a frame
TITLE_SHARE = 0.6  # a summary holding at least this share of its title's terms says what the page is already
_MARKS_RE = re.compile(r"[*_`#]")
_HEADING_RE = re.compile(r"^#{1,3}[ \t]+(.+?)[ \t]*$", re.MULTILINE)
PARAGRAPH_LETTERS = 20  # a line with this many letters (not a heading) is the page's text begun
_NO_TITLES = {"untitled", "無題", "no title", "new page", "newpage", "index"}  # an editor's default: no name
_TARGET_RE = re.compile(r"\]\([^)]*\)")


def is_japanese(text: str) -> bool:
    """Whether a text is mostly Japanese (kana and kanji are a fifth of its letters or more), link targets and
    pictures' file names aside."""
    return _is_ja(_TARGET_RE.sub("", text))


def says_title(summary: str, title: str) -> bool:
    """Whether `summary` already names the page's subject: TITLE_SHARE or more of its title's content terms
    (summary.sentence_terms) are in it; a title without such terms (`7`, `1975`) is said by nothing."""
    dated = parse_date_line(title)
    terms = set(sentence_terms(dated.rest if dated and dated.date else title))
    if not terms:
        return False
    have = set(sentence_terms(summary))
    return len(terms & have) >= TITLE_SHARE * len(terms)


def kind_words(kind: str, section: str, ja: bool, sure: bool = True, title: str = "") -> str:
    """The page's kind and section in words (`日記・weblog`, `essay, Publications`): the kind only when `sure`
    (not a default guess) and it says something, the section only when it is not the kind's own word nor the
    page's `title`."""
    word = KINDS[kind].word[0 if ja else 1] if sure and kind in KINDS else ""
    parts = [word] if word else []
    if section and section.casefold() not in (kind.casefold(), word.casefold(), title.casefold()) \
            and len(section) <= TITLE_CHARS:
        parts.append(section)
    return ("・" if ja else ", ").join(parts)


def entry_note(body: str, ja: bool, title: str = "") -> str:
    """A page of one dated entry: its date and its own heading when it has one under or in the date's
    (`25 Jun 1975 — Anyone for tea?`; not when the `title` says it already); else ''."""
    entries = list(ENTRY_HEADING_RE.finditer(body))
    if len(entries) != 1:
        return ""
    when = date_range(entries[0]["date"], entries[0]["date"], ja)
    after = body[entries[0].end():].lstrip("\n")
    heading = re.match(r"#{1,6}[ \t]+(.+)", after)
    topic = _MARKS_RE.sub("", heading.group(1)).strip() if heading and "{#" not in heading.group(1) else ""
    return f"{when} — {topic}" if topic and squeezed(topic) not in squeezed(title) else when


def _above_text(body: str) -> Iterator[tuple[str, re.Match[str] | None]]:
    """The page's lines above its text (a line that is no heading with PARAGRAPH_LETTERS letters or more begins
    it), each with its heading's match, None for a line that is no heading (levels 1-3)."""
    for line in body.splitlines():
        match = _HEADING_RE.match(line.strip())
        if not match and sum(map(str.isalpha, summary_source(MD_IMAGE_RE.sub("", line)))) >= PARAGRAPH_LETTERS:
            return  # the page's text has begun
        yield line, match


def own_heading(body: str, title: str) -> str:
    """The page's first heading (levels 1-3) above its first paragraph that says more than its title: letters in
    it, no entry's date heading, not the title nor part of it (`# THE ISLES AFAR OFF` under `Britain in Prophecy
    -- chapter 4`); a heading further down heads a part of the page, not the page. A heading drawn as a picture
    (heading_picture) where the page has no such heading of text (the words it writes come first)."""
    key = _plain(title)
    drawn = ""
    for line, match in _above_text(body):
        caption = "" if match else heading_picture(line)
        if not match and not caption:
            continue
        text = caption or " ".join(_MARKS_RE.sub("", summary_source(MD_IMAGE_RE.sub("", match.group(1)))).split())
        if (match and "{#" in match.group(1)) or sum(map(str.isalpha, text)) < 3 or len(text) > TITLE_CHARS:
            continue
        if _plain(text) in key or key in _plain(text) or back_label(text):  # (`…のホームへ`: a way back, no heading)
            continue
        if caption:
            drawn = drawn or (text if sentence_terms(text) else "")
            continue
        return text if sentence_terms(text) else ""
    return drawn


BYLINE_LINES = 8  # a byline stands among the page's first lines,
BYLINE_TEXT = 60  # above its first line of this many letters (its text)


def byline(body: str, title: str) -> str:
    """The name of the page's author or speaker on a line of its own above its text (`**Paul Scerri**`, `石田 亨`
    under a talk's title: keywords.person_name); '' when the title holds it or is a name itself (a profile), or
    the opening names several people (a script's cast, a list of members), or the page is one of dated entries."""
    key = _plain(title)
    if person_name(title) or ENTRY_HEADING_RE.search(body):  # (a diary's opening: whom its first day met)
        return ""
    names = []
    for line in [x for x in body.splitlines() if x.strip()][:BYLINE_LINES]:
        text = " ".join(_MARKS_RE.sub("", summary_source(MD_IMAGE_RE.sub("", line))).replace("\\", " ").split())
        if sum(map(str.isalpha, text)) >= BYLINE_TEXT:
            break
        names += [text] if person_name(text) and _plain(text) not in key else []
    return names[0] if len(names) == 1 else ""


def work_above_name(body: str, title: str) -> str:
    """What a page titled by a person's name is: the line right above that name among the opening lines, when it
    names something (a talk's `SmartWeb: Towards Semantic Web Services…` above `Wolfgang Wahlster` and his
    affiliation); '' when the title is no name, the name is not on a line of its own there, or the line above
    it is a date, a sentence or a link."""
    key = _plain(title)
    if not key or not person_name(title):
        return ""
    above = ""
    for line in [x for x in body.splitlines() if x.strip()][:BYLINE_LINES]:
        text = " ".join(_MARKS_RE.sub("", summary_source(MD_IMAGE_RE.sub("", line))).replace("\\", " ").split())
        if _plain(text) == key:
            dated = (found := parse_date_line(above)) and found.date
            named = len(above) <= TITLE_CHARS and sentence_terms(above) and not _ENDS_SENTENCE_RE.search(above)
            return above if above and named and not dated else ""
        if sum(map(str.isalpha, text)) >= BYLINE_TEXT:
            break
        above = text
    return ""


_PICTURE_LINE_RE = re.compile(r'^!\[[^\]]*\]\(\s*<?(?P<src>[^)\s>]*)>?\s+"(?P<caption>[^"]*)"\s*\)$')
_PHOTO_FILE_RE = re.compile(r"\.jpe?g$", re.IGNORECASE)  # a photograph; words drawn as a picture are a GIF, a PNG
_FILE_WORDS_RE = re.compile(r"\.(?:jpe?g|gif|png|bmp)\b|\d\s*kb\b|"
                            r"^(?:image|img|photo|pic|dsc|logo|title|banner)[\d_ -]*$", re.IGNORECASE)


def heading_picture(line: str) -> str:
    """The words of a heading set as a picture: a line that is one picture, linked nowhere, whose alt text (kept
    as its caption: extract.blocks) says something (`![](logo111.gif "「夏芙蓉」に届けられた感想")`); '' for a line
    of anything else, a photograph (a JPEG: `x-up.jpg "Patrick at the Kyoto box jump"`), or a picture named by its
    file (`cover.gif - 43Kb`)."""
    match = _PICTURE_LINE_RE.match(line.strip())
    if not match or _PHOTO_FILE_RE.search(match["src"].split("?")[0]):
        return ""
    text = " ".join(match["caption"].split())
    return "" if sum(map(str.isalpha, text)) < 3 or _FILE_WORDS_RE.search(text) else text


_STATED_WORDS = 6  # a heading of this many words or more, STATED_LOWER of them lower-case words that are no
_STATED_LOWER = 3  # function word (`shows`, `exiled`; not `of`, `the`), is a sentence, not a Title Case name
_QUOTE_START_RE = re.compile(r"^[“\"‘'「『(（]")  # a quoted verse or saying under the title: an epigraph
_JA_STATED_RE = re.compile(r"(?:。|です|ます|でした|ました)$")


def stated_heading(body: str, title: str) -> str:
    """A heading under the page's first heading, above its first paragraph, that is a sentence, not a name
    (`### Hosea 5 shows us the wonderful fulfilment of prophecy` under `# THE FUTURE OF ISRAEL REVEALED`,
    `…を紹介します。`): the author's own word on what the page is, ending in a stop; '' when there is none (an
    epigraph in quotes is none, nor a sentence that only says the title)."""
    key, headed = _plain(title), False
    for _, match in _above_text(body):
        if not match:
            continue
        text = " ".join(_MARKS_RE.sub("", summary_source(match.group(1))).split())
        if not headed or "{#" in match.group(1) or _QUOTE_START_RE.match(text) or text.endswith(("?", "？")) \
                or _plain(text) in key or says_title(text, title):
            headed = True
            continue
        words = [w.strip(",.;:!’'") for w in text.split()]
        lower = [w for w in words if w.isalpha() and w.islower() and w not in EN_STOP]
        if _JA_STATED_RE.search(text) if _is_ja(text) else \
                len(words) >= _STATED_WORDS and len(lower) >= _STATED_LOWER:
            return text if _ENDS_SENTENCE_RE.search(text) else f"{text}{'。' if _is_ja(text) else '.'}"
    return ""


def page_frame(title: str, kind: str = "", section: str = "", body: str = "", sure: bool = True,
               ja: bool | None = None, with_heading: bool = True) -> str:
    """What the page is, from its facts: `「題名」（日記・weblog、2012年10月26日）`,
    `1975 — My life and times (diary, 25 Jun 1975 — Anyone for tea?)` or, with its own first heading,
    `chapter 4 — THE ISLES AFAR OFF (Publications)`; '' when there is no title. `with_heading`: False where
    the summary names the page's parts and its first heading is among them."""
    name = " ".join(title.split())
    if not name or name.casefold() in _NO_TITLES:
        return ""
    # an entry's heading goes with its date
    heading = "" if not with_heading or entry_note(body, False) else own_heading(body, name) or byline(body, name)
    work = "" if heading or not with_heading else work_above_name(body, name)
    if work and len(work) + len(name) <= TITLE_CHARS + 16:  # the talk, then its speaker: `SmartWeb: … — Wahlster`
        name = f"{work} — {name}"
    elif len(name) > TITLE_CHARS:
        name = _clip(name, TITLE_CHARS)  # after a whole word: `… Environmental…`, not `… Environmental Lear…`
    elif heading and len(name) + len(heading) <= TITLE_CHARS + 16:
        name = f"{name} — {heading}"
    ja = is_japanese(name + body[:2000]) if ja is None else ja
    dated = (found := parse_date_line(name)) and found.date  # `2013-01-11 モーリスのギター`: the title has its date
    notes = [x for x in (kind_words(kind, section, ja, sure, name), "" if dated else entry_note(body, ja, name)) if x]
    if ja:
        return (f"『{name}』" if "「" in name else f"「{name}」") + (f"（{'、'.join(notes)}）" if notes else "")
    return name + (f" ({'; '.join(notes)})" if notes else "")


COMMA_SHARE = 0.5  # a sentence cut at a comma keeps this share of it at least, or it is not cut


def at_comma(sentence: str, chars: int) -> str:
    """A sentence cut after its last comma (、，,) within `chars`, with `…`; '' when that leaves less than
    COMMA_SHARE of it."""
    head = sentence[:chars - 1]
    cut = max(head.rfind(mark) for mark in ("、", "，", ","))
    return f"{head[:cut]}…" if cut >= COMMA_SHARE * len(sentence) else ""


def framed(summary: str, frame: str, ja: bool) -> str:
    """`frame` before `summary` (`「題名」（日記）: 本文…`), or the frame alone (a page with nothing to quote),
    within SUMMARY_CHARS: '' when a frame and the summary do not fit together."""
    if not frame:
        return summary
    if not summary:
        return frame + ("。" if ja else ".")
    out = f"{frame}: {summary}"
    return out if len(out) <= SUMMARY_CHARS else ""


# A sentence that describes a picture beside it (`左はiPhoneの設定、右は…`, `Above: the new wheels`): a caption
_CAPTION_RE = re.compile(r"^(?:[左右上下]の?(?:写真|画像|図)?(?:は|が|[：:])|(?:写真|画像|図)[はの]?[：:]|"
                         r"(?:Left|Right|Above|Below|Top|Bottom|Pictured)\b[:,]?|\((?:left|right|above|below)\))")
_TIME_LINE_RE = re.compile(r"^\[?(\d{1,2}:\d\d)(?::\d\d)?\]?$")
CHAT_TIMES = 5  # at least this many lines that are a time alone, a quarter of the page's lines or more: a chat log


def chat_summary(body: str, ja: bool) -> str:
    """A chat log (a time on a line of its own, the speaker's name on the next, what was said after it): its
    span of times, its messages and speakers (`チャットの記録 14:34–15:10、42発言（発言者: A / B）`); else ''."""
    lines = [" ".join(re.sub(r"[*`]|\\(?=[_*])", "", x).split()).strip("\\ ") for x in body.splitlines()]
    lines = [x for x in lines if x]
    times = [(i, m.group(1)) for i, x in enumerate(lines) if (m := _TIME_LINE_RE.match(x))]
    if len(times) < CHAT_TIMES or len(times) * 4 < len(lines):
        return ""
    speakers: dict[str, int] = {}
    for i, _ in times:
        if i + 1 < len(lines) and not _TIME_LINE_RE.match(lines[i + 1]) and len(lines[i + 1]) <= 30:
            speakers[lines[i + 1]] = speakers.get(lines[i + 1], 0) + 1
    if not speakers:
        return ""
    names = " / ".join(sorted(speakers, key=lambda k: -speakers[k])[:3])
    span = f"{times[0][1]}–{times[-1][1]}"
    if ja:
        return f"チャットの記録 {span}、{len(times)}発言（発言者: {names}）"
    return f"Chat log, {span}, {len(times)} messages (speakers: {names})"


# The line that heads a play's cast (`登場人物`, `**□登場人物**`, `Cast:`), its note after it (`★は…`) aside
_CAST_LABEL_RE = re.compile(r"^[#*\s□■◆◇●○★☆]*(?:登場人物|配役|キャスト|Cast(?: of characters)?|Characters|"
                            r"Dramatis Personae)(?:\*\*)?\s*(?:[:：].*|\s.*)?$", re.IGNORECASE)
_CAST_GROUP_RE = re.compile(r"^[◆◇■□●○★☆※]")  # a group of the cast (`◆東家`) or a note, no character
_CAST_NUMBER_RE = re.compile(r"^\d+\\?[.．、)]\s*")
_CAST_NOTE_RE = re.compile(r"\s*(?:[…‥◆★\[［(（『「]|\s—|\s-\s).*$")  # what the line says of the character
_ACT_RE = re.compile(r"^[【\[［]?(?:第\s*[0-9０-９一二三四五六七八九十]+\s*[部幕場章景話]|(?:Act|Scene)\s+\w+|"
                     r"プロローグ|エピローグ|フィナーレ|Prologue|Epilogue|Finale|(?:AM|PM)?\s*\d{1,2}[:：]\d\d|"
                     r"\D{0,4}[0-9０-９]+\s*年(?:\s*[(（].*)?)[】\]］]?$", re.IGNORECASE)  # (`昭和３８年 (1963年)`)
CAST_OPENING = 12  # the cast's label is among the page's first lines
CAST_LINE_CHARS = 40  # a longer line is no cast's label nor a character's line: the play has begun
CAST_MIN = 3  # characters named under the label, at least
CAST_LINES = 40  # lines read under it


def cast_list(body: str) -> list[str]:
    """The characters a play's cast list names under its label (`登場人物`, `Cast`), one a line, each without its
    number and what the line says of it (`1. 古川里美 ◆ 二つ森小学校５年生` → `古川里美`, `鷺沢 隼人 …五年生` →
    `鷺沢 隼人`); a group's name (`◆東家`) and a note (`★は…`) skipped; [] when fewer than CAST_MIN."""
    lines = [x.strip() for x in body.splitlines()]
    opening = [n for n, x in enumerate(lines) if x][:CAST_OPENING]  # (a cast further down is a scene's example)
    at = next((n for n in opening if _CAST_LABEL_RE.match(lines[n]) and len(lines[n]) <= CAST_LINE_CHARS), -1)
    if at < 0:
        return []
    names: list[str] = []
    for raw in lines[at + 1:at + 1 + CAST_LINES]:
        line = " ".join(_MARKS_RE.sub("", summary_source(raw)).split()).strip("\\ ")
        if not line or _CAST_GROUP_RE.match(line):
            continue
        name = _CAST_NOTE_RE.sub("", _CAST_NUMBER_RE.sub("", line)).strip()
        if raw.startswith("#") or len(line) > CAST_LINE_CHARS or _ENDS_SENTENCE_RE.search(name):
            break  # the play has begun (a note on a character may end in a stop: `◆…６年生 千秋の姉。`)
        if name and not _ACT_RE.match(name):
            names.append(name)  # (not `第一部`, `昭和３８年`: a part of the play, a time its characters belong to)
    names = list(dict.fromkeys(names))
    return names if len(names) >= CAST_MIN else []


def _first_sentences(sentences: list[str], quotes: list[int], common: set[str], chars: int, most: int = 2) -> str:
    """The page's first quotable sentences ending in a stop, in order (not its template's), as many as fit `chars`
    (`most` at most): where a play opens, its stage. `quotes`: summary.quotable(sentences)."""
    chosen: list[str] = []
    for sentence, quote in zip(sentences, quotes, strict=True):
        if quote < 2 or sentence in common or not _ENDS_SENTENCE_RE.search(sentence):
            continue
        if len("".join(chosen)) + len(sentence) + len(chosen) > chars or len(chosen) >= most:
            break
        chosen.append(sentence)
    return ("" if _is_ja("".join(chosen)) else " ").join(chosen)


def cast_summary(body: str, ja: bool) -> str:
    """A play's cast in words (`登場人物 9人: 武藤 蘭 / 野原歩美 / 速瀬あざみ ほか`, `Cast of 9: A / B / C …`);
    ''."""
    names = cast_list(body)
    if not names:
        return ""
    return f"登場人物 {len(names)}人: {_quoted(names, ja)}" if ja else f"Cast of {len(names)}: {_quoted(names, ja)}"


_POST_TITLE_RE = re.compile(r"^[■◆●・\s]*(?:タイトル|題名|件名|Title|Subject)\s*[:：]\s*(\S.{0,60}?)\s*$",
                            re.IGNORECASE)
_HEAD_MARKS = " ◆◇■□●○★☆・\\"
_REPLY_RE = re.compile(r"^(?:Re(?:\^?\d+(?:-\d+)*)?\s*[:：]\s*)+", re.IGNORECASE)
POST_WRITERS = 4  # writers named at most


def posts_summary(body: str, ja: bool) -> str:
    """A board's thread kept as a page (kinds.board_posts): its posts' count, its writers and its posts' titles
    (`12件の投稿（越智 / 斉藤俊雄）: 笑いについて / 遅ればせの感想です ほか`), or its message headers where no field
    names a writer (`7件の投稿: 東京大学奇術愛好会・野間大輔さんから / 斉藤からの返信 ほか`); else ''."""
    raw = [x for x in body.splitlines() if x.strip()]
    posts = board_posts(raw)
    if not posts:
        return ""
    lines = [post_line(x) for x in raw]
    writers = list(dict.fromkeys(m[1] for x in lines if (m := WRITER_FIELD_RE.match(x))))
    titles = [_REPLY_RE.sub("", m[1]).strip(" >＞") for x in lines if (m := _POST_TITLE_RE.match(x))]  # a reply's
    # title is its thread's (`Re: 1月の公演について`)
    if not writers:
        titles = [x.strip(_HEAD_MARKS) for x in lines if MESSAGE_HEAD_RE.match(x)]
    names = " / ".join(writers[:POST_WRITERS]) + (" ほか" if ja else " …") * (len(writers) > POST_WRITERS)
    if ja:
        return f"{posts}件の投稿" + (f"（{names}）" if names else "") + (f": {_quoted(titles, ja)}" if titles else "")
    return f"{posts} posts" + (f" by {names}" if names else "") + (f": {_quoted(titles, ja)}" if titles else "")


def _above_posts(lead: str, body: str) -> str:
    """`lead` where the page says it before its first post (an introduction to the thread), else ''."""
    text = squeezed(summary_source(body))
    first = next((squeezed(x) for x in map(post_line, body.splitlines())
                  if WRITER_FIELD_RE.match(x) or MESSAGE_HEAD_RE.match(x) or _POST_TITLE_RE.match(x)), "")
    at = text.find(squeezed(lead)[:20]) if lead else -1
    return lead if 0 <= at < text.find(first) else ""


# A numbered line: `(1)「i.softbank.jp」の変更`, `1.プチ情報`, `４．大気の大循環`, `2) Winds`.
_NUMBER_RE = re.compile(r"^[(（]?([\d０-９]{1,3})(?:[)）.．]|\s)\s*")
_LINK_LED_RE = re.compile(r"^(?:[-*+]\s+)?\**\[[^\]]+\]\((?!https?:|//|mailto:|#)[^)]+\)")  # a link within the site
CONTENTS_ITEMS = 4  # numbered lines in a row (blank lines between allowed), at least this many: a contents list
CONTENTS_CHARS = 60  # a longer numbered line is a paragraph


def contents_summary(body: str, ja: bool, index: bool = False) -> str:
    """A page that lists its own parts: CONTENTS_ITEMS or more short numbered lines in a row that link to pages
    or whose numbers head the page's sections further down (a tips page's `(1)…(7)` above tip (1)…(7)), or on an
    `index` page (kinds: a contents page), lines in a row each led by a link within the site (`[Chapter One](ch1.html)
    Hosea marries…`): the parts named (`7項目: (1)… / (2)… / (3)… ほか`, `15 items: …`); else ''."""
    lines = [x.strip() for x in body.splitlines()]
    run: list[tuple[int, str, bool]] = []
    best: list[tuple[int, str, bool]] = []
    for i, raw in enumerate(lines):
        if not raw:
            continue
        text = " ".join(summary_source(MD_IMAGE_RE.sub("", raw)).replace("\\", "").split()).lstrip("-+・ ").strip("*_ ")
        if sum(map(str.isalpha, text)) < 2:
            text = ""
        number = _NUMBER_RE.match(text)
        if number and len(text) <= CONTENTS_CHARS and len(text) > number.end():
            run.append((i, text, "](" in raw))
            continue
        if index and text and _LINK_LED_RE.match(raw) and len(text) <= 2 * CONTENTS_CHARS:
            run.append((i, text, True))
            continue
        if len(run) > len(best):
            best = run
        run = []
    best = run if len(run) > len(best) else best
    if len(best) < CONTENTS_ITEMS:
        return ""
    after = best[-1][0] + 1
    heads = {_NUMBER_RE.match(x).group(1) for x in lines[after:] if _NUMBER_RE.match(x)}
    linked = sum(link for _, _, link in best)
    numbered = sum(bool(m := _NUMBER_RE.match(t)) and m.group(1) in heads for _, t, _ in best)
    if max(linked, numbered) * 2 < len(best):
        return ""
    return _items([t for _, t, _ in best], ja)


def _items(texts: list[str], ja: bool, shown: int = LIST_SHOWN) -> str:
    """A page's parts named: their count and the first `shown` (`7項目: (1)… / (2)… / (3)… ほか`, `15 items: …`)."""
    items = [_clip(t) for t in texts]
    listed = " / ".join(items[:shown])
    if ja:
        return f"{len(items)}項目: {listed}" + (" ほか" if len(items) > shown else "")
    return f"{len(items)} items: {listed}" + (" …" if len(items) > shown else "")


_PART_HEADING_RE = re.compile(r"^(#{1,4})[ \t]+(.+?)[ \t]*$")
PARTS_SHOWN = 3  # part names quoted after a page's opening
PART_CHARS = 30  # a longer part name is clipped


def page_parts(body: str, title: str) -> tuple[list[str], int]:
    """The page's parts: the names of its headings at the shallowest level (1-4) that has two or more distinct ones
    with text under them (PARAGRAPH_LETTERS letters before the next heading as high: a subtitle right under a
    heading heads no part of its own), besides its title (no entry's date heading, no label ending in a colon),
    and the line where its second part begins (what comes before it is the page's opening); ([], -1) when it has
    fewer."""
    key = _plain(title)
    found: list[tuple[int, int, str]] = []  # (level, line, name) of every heading; name '' when it names nothing
    letters: list[int] = []  # per heading, the letters of the text under it up to the next heading
    fence = False
    for no, line in enumerate(body.splitlines()):
        if line.startswith(("```", "~~~")):
            fence = not fence
        match = None if fence else _PART_HEADING_RE.match(line)
        if not match:
            if letters:
                letters[-1] += sum(map(str.isalpha, summary_source(MD_IMAGE_RE.sub("", line))))
            continue
        text = " ".join(_MARKS_RE.sub("", summary_source(MD_IMAGE_RE.sub("", match.group(2)))).split()).strip("\\ ")
        named = "{#" not in match.group(2) and sum(map(str.isalpha, text)) >= 2 and not text.endswith((":", "：")) \
            and _plain(text) != key
        found.append((len(match.group(1)), no, text if named else ""))
        letters.append(0)
    for level in sorted({lv for lv, _, _ in found}):
        at = []
        for k, (lv, no, text) in enumerate(found):
            if lv != level or not text:
                continue
            end = next((j for j in range(k + 1, len(found)) if found[j][0] <= level), len(found))
            if sum(letters[k:end]) >= PARAGRAPH_LETTERS:  # its text, its subparts' text among it
                at.append((no, text))
        names = list(dict.fromkeys(text for _, text in at))
        if len(names) >= 2:
            return names, at[1][0]
    return [], -1


def parts_note(names: list[str], ja: bool, shown: int = PARTS_SHOWN) -> str:
    """A page's parts named (`目次: 異体関係にあるグリフ / アンカー マーク`, `Contents: Overview / Members etc.`)."""
    listed = " / ".join(_clip(x, PART_CHARS) for x in names[:shown])
    more = len(names) > shown
    if ja:
        return f"目次: {listed}" + (" ほか" if more else "")
    return f"Contents: {listed}" + (" etc." if more else "")


SITE_PARTS_SHOWN = 4  # the site's sections named on its home page


def site_note(parts: list[str], ja: bool, shown: int = SITE_PARTS_SHOWN) -> str:
    """What a site holds, named by its sections, most pages first (`サイトの内容: weblog / TIPS / axis ほか`,
    `The site: diary / Publications`)."""
    listed = " / ".join(_clip(x, PART_CHARS) for x in parts[:shown])
    more = len(parts) > shown
    if ja:
        return f"サイトの内容: {listed}" + (" ほか" if more else "")
    return f"The site: {listed}" + (" etc." if more else "")


def home_summary(sentences: list[str], quotes: list[int], tags: list[str], common: set[str],
                 title: str, frame: str, site_parts: list[str], ja: bool) -> str:
    """A site's home page summed up as what the site is: its frame, the page's own central sentences where it
    has some, and the site's sections (site_note): its menu leads there, its links and pictures say less (`リンク集、
    6件` of a home page whose menu the template took). '' when the site has fewer than two sections."""
    if len(site_parts) < 2:
        return ""
    for shown in range(SITE_PARTS_SHOWN, 1, -1):
        note = site_note(site_parts, ja, shown)
        room = SUMMARY_CHARS - len(frame) - len(note) - 4
        lead = choose_summary(sentences, tags, common, quotes, title=title, chars=room) if room > 40 else ""
        lead = lead if _ENDS_SENTENCE_RE.search(lead) else ""  # a label, an update stamp: the sections say more
        out = framed(f"{lead}{'' if ja or not lead else ' '}{note}", frame, ja)
        if out:
            return out
    return ""


def opening_with_parts(body: str, title: str, names: list[str], second: int, sentences: list[str],
                       quotes: list[int], tags: list[str], common: set[str], frame: str, ja: bool) -> str:
    """A page of two or more parts (`names` and the line of the `second`: page_parts): its frame, its central
    sentences and its parts named, within SUMMARY_CHARS; the sentences are its opening's (choose_summary over
    those before its second part: a sentence deep in part 5 says what part 5 is), the whole page's when its
    opening has none; '' when they do not fit."""
    opening = page_sentences("\n".join(body.splitlines()[:second]))
    if sentences[:len(opening)] != opening:  # not the page's own first sentences (a script's lines left out)
        opening = []
    head = f"{frame}: " if frame else ""
    for pool in (opening, sentences):  # the opening's sentences with fewer parts named before the whole page's
        for shown in range(min(PARTS_SHOWN, len(names)), 0, -1):
            note = parts_note(names, ja, shown)
            room = SUMMARY_CHARS - len(head) - len(note) - 1
            lead = choose_summary(pool, tags, common, quotes[:len(pool)], title=title, chars=room) \
                if pool and room >= MIN_LEAD_CHARS else ""
            if lead and _ENDS_SENTENCE_RE.search(lead):
                return f"{head}{lead}{'' if ja else ' '}{note}"
    note = parts_note(names, ja)
    return f"{head}{note}" if len(head) + len(note) <= SUMMARY_CHARS else ""


MIN_LEAD_CHARS = 40  # less room than this for the opening: the parts alone


_LINK_RE = re.compile(r"(?<!!)\[((?:[^\[\]]|\[[^\]]*\])*)\]\((?!mailto:|#)([^)\s]+)[^)]*\)")  # to a page
_OFF_SITE_RE = re.compile(r"https?:|//")
_FILE_RE = re.compile(r"\.(?:jpe?g|gif|png|bmp|mp3|mid|wav|pdf|zip|lzh|exe)$", re.IGNORECASE)


def linked_summary(body: str, ja: bool, shown: int = LIST_SHOWN, off_site: bool = False) -> str:
    """An index page laid out in a table or a paragraph: the pages it leads to, named by its links' labels
    (`9項目: 蓮の開花 / 産めよ増やせよ / 渡り鳥 ほか`; the first `shown`), CONTENTS_ITEMS or more distinct ones
    (no file's name); else ''. `off_site`: a link list, whose links lead anywhere (other sites, its members'
    pages), each told by a few lines of its own (`8項目: Ｐｉａｎｏ１００１ / Piano Diary / ゆるゆるとぴあの ほか`),
    not its first site's description."""
    labels: dict[str, None] = {}
    for label, target in _LINK_RE.findall(body):
        if not off_site and _OFF_SITE_RE.match(target):
            continue
        text = " ".join(summary_source(MD_IMAGE_RE.sub("", label)).split()).strip("*_ ").lstrip("・●○■□◆◇★☆-– ")
        if text.strip(" .。!！").casefold() in POINTER_LABELS:  # `here.`, `こちら`: where to click, no page's name
            continue
        if sum(map(str.isalpha, text)) >= 2 and len(text) <= CONTENTS_CHARS and not _FILE_RE.search(target) \
                and not _FILE_NAME_RE.search(text):
            labels[text] = None
    return _items(list(labels), ja, shown) if len(labels) >= CONTENTS_ITEMS else ""


_FILE_NAME_RE = re.compile(r"^[\w.-]+\.[a-z]{2,5}$", re.IGNORECASE)  # a label that is a file's name: BDFgrey.html


def _linked(body: str, ja: bool, frame: str, off_site: bool = False) -> str:
    """linked_summary after `frame`, with as many labels as fit; '' where it finds no list of links."""
    for shown in range(LIST_SHOWN, 0, -1):
        linked = linked_summary(body, ja, shown, off_site)
        if not linked or (out := framed(linked, frame, ja)):
            break
    return (out or linked) if linked else ""


# A sentence that announces what follows it: `Contact details are as follows.`, `メンバーは以下の通りです。`
_POINTS_AHEAD_RE = re.compile(r"(?:\bas follows|\bthe following(?: [\w -]{1,30})?|\bbelow)[.:：]?$|"
                              r"(?:以下|次|下記)の?(?:通り|とおり)(?:です|である|だ)?[。:：]?$|"  # …は以下の通りです。
                              r"(?:以下|次|下記)の[^。、]{1,20}?(?:が|を)(?:あります|ある|挙げます|紹介します)[。:：]?$",
                              re.IGNORECASE)  # `以下のソフトウェアがあります。`
_FIELD_LINE_RE = re.compile(r"^([^:：\d]{1,16}?)\s*[:：]\s*\S")  # `Email : steve@…`, `TEL：…`
_NOTE_AFTER_RE = re.compile(r"(?<=\S)\s*[（(][^（()）]*[）)]$")
ANNOUNCED_LINES = 12  # lines after an announcing sentence read for what it announces


def announced(body: str, lead: str, ja: bool) -> str:
    """`lead` completed where its last sentence announces what follows (`Contact details are as follows.`): with
    the names on the short lines after it and the fields they give (`Contact details are as follows: Steve Wood,
    Neil Solomon, Webmaster (Email, Mobile).`); '' where it announces nothing or nothing named follows."""
    if not lead or not _POINTS_AHEAD_RE.search(lead):
        return ""
    lines = [" ".join(summary_source(x).split()).strip("*_ ") for x in body.splitlines()]
    tail = squeezed(lead)[-20:]
    at = next((n for n, x in enumerate(lines) if tail in squeezed(x)), -1)
    if at < 0:
        return ""
    names: list[str] = []
    fields: list[str] = []
    skipped = False
    for line in [x for x in lines[at + 1:] if x][:ANNOUNCED_LINES]:
        if line.startswith("#"):
            break
        if line.startswith(("(", "（")):
            continue
        line = _NOTE_AFTER_RE.sub("", line)  # a name's note (`Opera （ノルウェーの…が開発）`): the name
        if field := _FIELD_LINE_RE.match(line):
            fields.append(field[1].strip())
        elif len(line) > PART_CHARS or _ENDS_SENTENCE_RE.search(line):
            if names or skipped:
                break  # the list has ended
            skipped = True  # (a note on the list before it: `２０１２年のシェア順です。`)
        else:
            names.append(line)
    if not names:
        return ""
    fields = list(dict.fromkeys(fields))
    stem = lead.rstrip(" .:：。")
    if ja:
        return f"{stem}: {'、'.join(names)}" + (f"（{'、'.join(fields)}）" if fields else "") + "。"
    return f"{stem}: {', '.join(names)}" + (f" ({', '.join(fields)})" if fields else "") + "."


def _clip(text: str, chars: int = ITEM_CHARS) -> str:
    """`text` cut to `chars` with `…`, after a whole word where it has spaces near the cut."""
    if len(text) <= chars:
        return text
    head = text[:chars - 1]
    space = head.rfind(" ")
    return (head[:space] if space > chars // 2 else head).rstrip(" ,;:、") + "…"


def _plain(text: str) -> str:
    """Text as compared with a title: no spaces, full-width letters as ASCII, case-folded."""
    return unicodedata.normalize("NFKC", squeezed(text)).strip("・.。").casefold()


# A line naming a work and its maker, as a log of reviews heads each (`１１月 **「殻を破る」** ピーター・ブルック著`,
# `“Dune” by Frank Herbert`): a date or month first perhaps, the title in quotes, then words that are no sentence
_WORK_LINE_RE = re.compile(r"^(?:[0-9０-９]{1,4}\s*[年月/.．]\s*(?:[0-9０-９]{1,2}\s*[月日]?)?\s*)?\**\s*"
                           r"[「『“\"]([^」』”\"\n]{1,40})[」』”\"]\**\s*(\S.{0,60})$")
# who made it or how good it is, after the title: `…著`, `…編`, `…監督`, `by …`, a rating `★★★`
_MAKER_RE = re.compile(r"[著編訳]|監督|作詞|作曲|脚本|出演|原作|[★☆]|\bby\b|\bdir(?:ected|\.)", re.IGNORECASE)
WORKS_MIN = 4  # lines naming works, at least, for a log of them


def works_summary(body: str, ja: bool) -> str:
    """A log of reviews (a year's books, films) in words: how many works it names on lines of their own, each with
    its maker or a rating after it (_MAKER_RE), and the first of them (`55作品: 「ソクーロフの対話」 /
    「映画狂人・小津の余白に」 / … ほか`); '' with fewer than WORKS_MIN."""
    works = []
    for raw in body.splitlines():
        line = " ".join(_MARKS_RE.sub("", summary_source(raw)).split()) if not raw.startswith("#") else ""
        match = _WORK_LINE_RE.match(line)
        if match and not _ENDS_SENTENCE_RE.search(match[2]) and _MAKER_RE.search(match[2]):
            name = match[1].strip(" 『』「」")
            works.append(f"「{name}」" if ja else f"“{name}”")
    works = list(dict.fromkeys(works))
    if len(works) < WORKS_MIN:
        return ""
    return f"{len(works)}作品: {_quoted(works, ja)}" if ja else f"{len(works)} works: {_quoted(works, ja)}"


def play_summary(body: str, sentences: list[str], quotes: list[int], common: set[str], title: str, kind: str,
                 section: str, sure: bool, ja: bool) -> str:
    """A play's summary: its frame, who is in it (cast_summary), then its opening (the stage it is set on) as far
    as it fits; the cast's label is no heading of the page's (`## 登場人物`). '' on a page without a cast list."""
    cast = cast_summary(body, ja)
    if not cast:
        return ""
    labelled = bool(_CAST_LABEL_RE.match(own_heading(body, " ".join(title.split()))))
    frame = page_frame(title, kind, section, body, sure, ja, with_heading=not labelled)
    opening = _first_sentences(sentences, quotes, common, SUMMARY_CHARS - len(frame) - len(cast) - 4)
    return framed(f"{cast}。{opening}" if ja and opening else f"{cast}. {opening}" if opening else cast, frame, ja)


def page_summary(body: str, sentences: list[str], quotes: list[int], tags: list[str], common: set[str],
                 title: str, kind: str = "", section: str = "", sure: bool = True,
                 topics: list[str] = (), series: str = "", site_parts: list[str] = ()) -> str:
    """The page's summary: composed from its structure (summary.composed_summary) on a page of entries, lists,
    verse or pictures; a thread's posts (posts_summary); a chat log's times and speakers (chat_summary); the
    author's sentence set as a heading under the page's (stated_heading); a play's cast and opening (play_summary);
    else its central sentences (choose_summary,
    never a caption) or its lines (lines_summary; never the title alone). When they do not name what the title
    names (a detail sentence, a count), the page's frame (page_frame: title, heading, kind, section, entry) comes
    first, with its parts named instead (contents_summary, after the author's own word on what the page is) on a
    page that lists them, or its opening and its parts' headings (opening_with_parts) on a page of parts, or
    alone when the page has nothing else to say. `series`: what a page of entries belongs to (summary.entry_series).
    `site_parts`: the site's sections, given for its home page (home_summary)."""
    common = set(common) | {s for s in sentences if _CAPTION_RE.match(s)}
    lead = choose_summary(sentences, tags, common, quotes, title=title)
    ja = is_japanese(f"{title}{section}{body[:2000]}")
    home_ja = ja or is_japanese(" ".join(site_parts))  # a home page of pictures: the language its sections speak
    home = home_summary(sentences, quotes, tags, common, title, page_frame(title, kind, section, body, sure, home_ja),
                        list(site_parts), home_ja) if site_parts else ""
    if home:
        return home
    frame = page_frame(title, kind, section, body, sure, ja)
    if kind == "index" and not contents_summary(body, ja, True):  # a contents table: the pages it leads to
        linked = _linked(body, ja, frame)
        if linked:
            return linked
    composed = composed_summary(body, "" if title == UNTITLED else title, lead, topics, kind, series)
    if composed:
        return composed
    if kind == "links":  # the sites it leads to, each told by a few lines: their names, not one site's blurb
        linked = _linked(body, ja, frame, off_site=True)
        if linked:
            return linked
    posts = posts_summary(body, ja)
    if posts:  # a board's thread: who wrote, and what about, not its first message's greeting; the author's own
        # word on what the page is before them (`…SHIGEさんとの「対話」を公開。`)
        own = own_word(sentences, quotes, common) or _above_posts(lead, body)
        posts = f"{own}{'' if ja else ' '}{posts}" if own else posts
        return framed(posts, frame, ja) or posts
    chat = chat_summary(body, ja)
    if chat:  # a chat's lines are its speakers' and their times: what it is, who speaks, when
        return framed(chat, frame, ja) or chat
    stated = stated_heading(body, title)
    told = stated and framed(stated, frame, ja)
    if told:  # the author's sentence on what the page is, set as a heading under its name
        return told
    works = works_summary(body, ja) if kind == "review" else ""
    told = works and framed(works, frame, ja)
    if told:  # a log of reviews: the works it reviews, not its first review's opening
        return told
    play = play_summary(body, sentences, quotes, common, title, kind, section, sure, ja)
    if play:
        return play
    summary = announced(body, lead, ja) or lead or lines_summary(body, ja)
    if _plain(summary) == _plain(title):  # the page's heading alone: its other lines, or what the page is
        lead, summary = "", lines_summary(body, ja)
        summary = summary[len(summary.split(" / ", 1)[0]) + 3:] if _plain(summary.split(" / ", 1)[0]) == \
            _plain(title) else summary
    if summary and says_title(summary, title):
        return summary
    contents = contents_summary(body, ja, kind == "index")
    if contents:  # a tips page, a contents page: its parts named, not its first part quoted; the author's own
        # word on what the page is before them (`ここでは…について解説します。10項目: …`)
        own = own_word(sentences, quotes, common)
        return own and framed(f"{own}{'' if ja else ' '}{contents}", frame, ja) or framed(contents, frame, ja) \
            or contents
    names, second = page_parts(body, title)
    if names:  # a page of parts: what its opening says, and what its parts are (its first heading among them
        # is no more the page's than the others)
        parts_frame = page_frame(title, kind, section, body, sure, ja, with_heading=False) \
            if own_heading(body, " ".join(title.split())) in names else frame
        with_parts = opening_with_parts(body, title, names, second, sentences, quotes, tags, common, parts_frame, ja)
        if with_parts:
            return with_parts
    if not frame:
        return summary
    if lead:
        room = SUMMARY_CHARS - len(frame) - 2
        own = own_word(sentences, quotes, common)
        if own and len(own) > room and (cut := at_comma(own, room)):  # the author's word on what the page is,
            return framed(cut, frame, ja)  # to its last comma that fits (`This presentation addresses …, …`)
        shorter = choose_summary(sentences, tags, common, quotes, title=title, chars=room) if room > 40 else ""
        told = announced(body, shorter, ja)  # (what a sentence announcing a list names)
        return told and framed(told, frame, ja) or framed(shorter, frame, ja) or summary
    return framed(summary, frame, ja) or summary
