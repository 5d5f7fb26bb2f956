"""Dates of pages and of diary entries: from file names, from date lines in the text.

Pure functions over strings. Three sources, in the order a page's front matter `date` prefers them:

* **entry**: a diary page's entries (`mark_entries`): a short paragraph that is a date line (`2003.6.29(日)`,
  `2001年12月9日(日)`, `■2003/05/20`, `7月31日`, `July 31, 2003`, `17/04/03` on an English page, …) becomes a
  Markdown heading and the page's date is its first entry's date;
* **name**: the page's file or folder names (`date_from_name`): `2009-05-20`, `20090520`, `nikki0107`, …;
* **content**: the first full date that starts a line among the first CONTENT_LINES lines of the body.

Years must be plausible: MIN_YEAR (1990, before personal web pages) up to the current year.

Short numeric dates are read only where the page itself says in which order (`numeric_order`): British and
American pages write `17/04/03` and `4/17/03` with the year last, day or month first; a Japanese page's
`03.04.17` is year first.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import PurePosixPath

from siterag.codehash import code_hash

MIN_YEAR = 1990
EARLIEST_YEAR = 1900  # the earliest year of entry headings that recur on a page (a transcribed old diary)
INDUCE_MIN = 3  # date lines of one shape opening blocks of a page that make them entry headings, whatever the shape
CONTENT_LINES = 20  # a page's content date is looked for in this many non-empty lines from the top
MAX_TITLE_CHARS = 40  # a date line may carry a short title; more text after the date makes it a sentence
ENTRY_HEADING_DEFAULT = 2  # entry headings' level on a page without a heading before its first entry


def dates_key() -> str:
    """The part of a corpus document's extract key that this module decides: its code (a change redoes pages)."""
    return "+dates-" + code_hash(sys.modules[__name__])[:8]


def _max_year() -> int:
    return date.today().year


def _plausible(year: int, earliest: int = MIN_YEAR) -> bool:
    return earliest <= year <= _max_year()


def _iso(year: int, month: int, day: int | None = None, earliest: int = MIN_YEAR) -> str | None:
    """'YYYY-MM-DD' ('YYYY-MM' without a day) for a real date of a year in earliest..this year; None otherwise."""
    if not _plausible(year, earliest) or not 1 <= month <= 12:
        return None
    if day is None:
        return f"{year:04d}-{month:02d}"
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def _year2(yy: int) -> int | None:
    """A two-digit year: 90..99 → 1990s, 00..(this year) → 2000s; other values are no year."""
    full = 1900 + yy if yy >= 90 else 2000 + yy
    return full if _plausible(full) else None


# ---- names ------------------------------------------------------------------------------------------------

# Month ranges in names: `tsurezure2003-1-6` (January to June), `2001.1-4`: one-digit M, M < N <= 12.
_RANGE_RE = re.compile(r"(?<!\d)((?:19|20)\d\d)[-_.]([1-9])-([1-9]|1[0-2])(?!\d)")
_PATH_PATTERNS = (
    re.compile(r"(?<!\d)((?:19|20)\d\d)[-_./]([01]?\d)[-_./]([0-3]?\d)(?!\d)"),  # 2009-05-20, 2009/05/20
    re.compile(r"(?<!\d)((?:19|20)\d\d)([01]\d)([0-3]\d)(?:\d\d)?(?!\d)"),  # 20090520, 2004062001 (+ serial)
    re.compile(r"(?<!\d)((?:19|20)\d\d)[-_./]([01]?\d)(?=[/_\-.]|$)(?![-_./]\d)"),  # 2009-05/, 2002-1.htm
    re.compile(r"(?<!\d)((?:19|20)\d\d)([01]\d)(?=[_\-/.])"),  # 200110_dckm
)
# Stems that number images and layout parts, never dates: logo110, image11, bg0102, P01-S200, DSC0107.
_PARTS_RE = re.compile(r"^(logo|image|img|pic|photo|icon|button|btn|banner|bg|back|bar|line|title|top|dsc[nf]?|"
                       r"p|s|t|no|page|vol|part|sample|mov|cimg|pict?)[-_]?\d", re.IGNORECASE)


def _stem_date(stem: str) -> str | None:
    """Dates only a whole file-name stem can give: its single digit run read as YYYY, YYMM, YYYYMM or YYMMDD."""
    runs = re.findall(r"\d+", stem)
    if len(runs) != 1:
        return None
    digits = runs[0]
    if len(digits) == 4:
        year = int(digits)
        if _plausible(year):
            return f"{year:04d}"  # nikki2005.htm: a year (2005 beats the YYMM reading 2020-05)
        if _PARTS_RE.match(stem):
            return None
        yy = _year2(int(digits[:2]))
        return _iso(yy, int(digits[2:])) if yy else None  # nikki0107.htm = 2001-07
    if len(digits) == 6:
        found = _iso(int(digits[:4]), int(digits[4:]))  # 200107 = 2001-07 (before the YYMMDD reading)
        if found or _PARTS_RE.match(stem):
            return found
        yy = _year2(int(digits[:2]))
        return _iso(yy, int(digits[2:4]), int(digits[4:])) if yy else None  # 010731 = 2001-07-31
    return None


def date_from_name(path: str) -> str | None:
    """The date a page's path gives: 'YYYY-MM-DD', 'YYYY-MM', 'YYYY', or None.

    Read anywhere in the path (first match wins, file name and folders alike):
    `2009-05-20`, `2009/05/20/`, `2003.6.29` (full dates, any of - _ . / between), `20090520` and
    `2004062001` (YYYYMMDD + a 2-digit serial: pic2004062001.htm = 2004-06-20), `2009-05/`, `2002-1.htm`,
    `200110_x/`. A month range `2003-1-6` / `2001.1-4` / `2003-7-12` (a one-digit first month M, then N with
    M < N <= 12, as in diary-tsurezure2003-1-6.htm = January to June) gives its first month, 'YYYY-MM';
    `2003-01-06`, `2003-10-12` and `2003-6-1` are days.
    Read only from a file-name stem whose one digit run is the whole number: `nikki2005` = '2005' (a plausible
    year), `nikki0107` = 2001-07 (YYMM), `log200107` = 2001-07 (YYYYMM), `010731` = 2001-07-31 (YYMMDD). Two-
    digit years are 90..99 → 199x, 00.. → 20xx. The two-digit-year readings are refused for stems that number
    images and parts (`logo1107`, `image0107`, `P0107`, `DSC0107`); `logo110`, `image11`, `P01-S200` (runs of
    other lengths, several runs) give nothing. Every year must lie in MIN_YEAR..this year.
    """
    for match in _RANGE_RE.finditer(path):
        found = _iso(int(match.group(1)), int(match.group(2)))
        if found and int(match.group(2)) < int(match.group(3)):
            return found
    for pattern in _PATH_PATTERNS:
        for match in pattern.finditer(path):
            parts = [int(p) for p in match.groups()]
            found = _iso(*parts) if len(parts) == 3 else _iso(parts[0], parts[1])
            if found:
                return found
    name = PurePosixPath(path).name
    stem = name.split(".")[0] if "." in name else name
    return _stem_date(stem)


# ---- date lines ---------------------------------------------------------------------------------------------

_WIDE = str.maketrans("０１２３４５６７８９（）．／－：，　〜~", "0123456789()./-:, ～～")
_MARKS = "■□◆◇●○★☆◎※・▼▽▲△♪◇†＊*>〔【「『[<＜"
_CLOSERS = "】〕」』]>＞"
_WEEKDAYS_JA = "日月火水木金土祝休"
_MONTHS = {m: n for n, names in enumerate(
    [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
     ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
     ("dec", "december")], 1) for m in names}
_MONTH_RE = r"(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_EN_WEEKDAY = r"(?:(?:sun|mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?)(?:day)?\.?,?\s+)?"
_ERA = {"平成": 1988, "令和": 2018}
_EN_DAY_RANGE = r"(?:\s*(?:-|–|to)\s*\d{1,2}(?:st|nd|rd|th)?)?"  # `October 19-20, 2001`: its first day

_DATE_RES = (  # each at the start of the (cleaned) line; named groups y, m, d, md (glued month+day), mon, era
    ("full", re.compile(r"(?P<y>(?:19|20)\d\d)\s*[./-]\s*(?P<m>\d{1,2})\s*[./-]\s*(?P<d>\d{1,2})(?!\d)"
                        r"(?:日(?![記誌曜]))?\.?")),
    ("full", re.compile(r"(?P<y>(?:19|20)\d\d)\s*年\s*(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*日")),
    ("full", re.compile(r"(?P<era>平成|令和)\s*(?P<y>\d{1,2}|元)\s*年\s*(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*日")),
    ("full", re.compile(r"(?P<y>(?:19|20)\d\d)\.(?P<md>\d{3,4})(?!\d)")),  # 2001.1019(金) typo: see _glued
    ("full", re.compile(_EN_WEEKDAY + _MONTH_RE + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?" + _EN_DAY_RANGE
                        + r",?\s+(?P<y>(?:19|20)\d\d)(?!\d)", re.IGNORECASE)),
    ("full", re.compile(_EN_WEEKDAY + r"(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH_RE + r",?\s+(?P<y>(?:19|20)\d\d)"
                        r"(?!\d)", re.IGNORECASE)),
    ("monthday", re.compile(r"(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*日")),
    ("monthday", re.compile(r"(?P<m>\d{1,2})\s*[./]\s*(?P<d>\d{1,2})(?=\s*\(\s*[" + _WEEKDAYS_JA + r"])")),
    ("monthday", re.compile(_EN_WEEKDAY + _MONTH_RE + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?(?![\d:a-z])"
                            r"(?!\s*,?\s*['’]?\d)", re.IGNORECASE)),  # `July 4 1776`: a year out of range
)
# Day and month, then the year (two or four digits): `17/04/03`, `4.17.2003`, `17-04-2003`; one separator kind.
_NUMERIC_RE = re.compile(r"(?P<a>\d{1,2})\s*(?P<sep>[./-])\s*(?P<b>\d{1,2})\s*(?P=sep)\s*(?P<y>(?:19|20)\d\d|\d\d)"
                         r"(?![\d.:/-]*\d)")
# Year first, all three two digits (`03.04.17`): how Japanese pages shorten a date.
_YMD_RE = re.compile(r"(?P<y>\d\d)(?P<sep>[./])(?P<m>\d\d)(?P=sep)(?P<d>\d\d)(?![\d.:/-]*\d)")
# A numbered event's name before its date (`第６回自然劇場`, a link `[第21回自然劇場](#20)`): short, no sentence.
_NUMBERED_RE = re.compile(r"^\[?第\s*\d{1,4}\s*[回話号部章][^\s\]。、，,：:]{0,16}\]?(?:\([^)\s]*\))?\s+")
_KANA_RE = re.compile(r"[\u3041-\u30ff]")
JAPANESE_KANA_SHARE = 0.05  # Japanese prose is ~40% kana; an English page quoting a Japanese name has far less
_WD_NAME = (r"(?:sun(?:day)?|mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|"
            r"sat(?:urday)?)")
# A weekday after a date: in any bracket (`(日)`, `[Mon]`, `【水】`, `<Sun>`), `日曜日`, or `, Sunday`.
_WEEKDAY_RE = re.compile(r"\s*[(\[<【〈《]\s*(?:[" + _WEEKDAYS_JA + r"](?:曜日?)?(?:\s*[・,/]\s*[" + _WEEKDAYS_JA
                         + r"])?|[A-Za-z]{3,9}\.?)\s*[)\]>】〉》]|\s*[" + _WEEKDAYS_JA + r"]曜日?|\s*,?\s+" + _WD_NAME
                         + r"\.?(?![A-Za-z])", re.IGNORECASE)
_EMPHASIS_RE = re.compile(r"^(\*\*|__|\*|_)(.+)\1$")
_RANGE_END_RE = re.compile(r"^[.]?\s*[～-]\s*(?:\d{4}\s*[./年]\s*)?(?:\d{1,2}\s*[./月]\s*)?\d{1,2}(?:\s*日)?"
                           r"(?:\s*\(\s*[^)]{1,6}\))?")
_SENTENCE_START_RE = re.compile(r"^(?:[、，,。はにをがのへともやで]|から|まで|より)")
_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_DIGIT_RE = re.compile(r"\d")  # any decimal digit, full-width ones included
HARD_BREAK_RE = re.compile(r"(\s*<br\s*/?>|\\)$")  # a Markdown hard line break at a line's end (`\`, `<br>`)
_LINE_END_BREAK_RE = re.compile(r"(\s*<br\s*/?>|\\|\s{2,})$")  # ... or two spaces


@dataclass(frozen=True)
class DateLine:
    """A date at the start of a line: `date` is 'YYYY-MM-DD' for a full date; `month`/`day` are always set."""

    kind: str  # full | monthday
    month: int
    day: int
    year: int | None = None
    rest: str = ""  # what follows the date (and its weekday), stripped
    joined: bool = False  # the rest follows the date (or weekday) with no space: `7月31日に…`
    shape: str = ""  # the date's pattern of tokens, its year left out: `9.9` (2003.6.29, 6.29), `W9M`, `9月9日`
    earliest: int = MIN_YEAR  # the earliest year it may have (EARLIEST_YEAR: read loosely, see parse_date_line)
    weekday: int | None = None  # the weekday written with it (0 Monday … 6 Sunday), if any

    @property
    def date(self) -> str | None:
        return _iso(self.year, self.month, self.day, self.earliest) if self.year is not None else None

    @property
    def verified(self) -> bool:
        """A full date whose written weekday is its weekday: a real date line, not a number that looks like one."""
        when = self.date
        return when is not None and self.weekday == date.fromisoformat(when).weekday()


_FULL_WIDTH_RE = re.compile(r"[\uff01-\uff5e\u3000]+")  # full-width ASCII and spaces (not ①②: NFKC makes them digits)
ANCHOR_RE = re.compile(r"\s*\{#([^\s{}]+)\}\s*$")  # a heading's anchor, `## 2003.6.29(日) {#2003-06-29}`
# A diary entry's heading as mark_entries writes it, the one reader of it: `## 2003.6.29(日) 晴れ {#2003-06-29}`
# (heading: its text; anchor: `2003-06-29`, `2003-06-29-2` for a second entry of the day; date: `2003-06-29`,
# or `2003-06` / `2003` for an entry dated to its month or year).
ENTRY_HEADING_RE = re.compile(r"^#{1,6}[ \t]+(?P<heading>.*?)[ \t]*"
                              r"\{#(?P<anchor>(?P<date>\d{4}(?:-\d\d){0,2})(?:-\d+)?)\}[ \t]*$", re.MULTILINE)


def narrow(text: str) -> str:
    """Full-width letters, digits, punctuation and spaces as ASCII (NFKC on them alone), `〜`/`~` as `～`."""
    return _FULL_WIDTH_RE.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text).translate(_WIDE)


def _clean(line: str) -> str:
    """A line's text for date reading: Markdown marks, emphasis, anchor and decorations off, full-width ASCII."""
    text = narrow(line.strip())
    text = HARD_BREAK_RE.sub("", text).strip()
    heading = _HEADING_RE.match(text)
    if heading:
        text = ANCHOR_RE.sub("", heading.group(2))
    for _ in range(3):
        emphasis = _EMPHASIS_RE.match(text)
        if emphasis:
            text = emphasis.group(2).strip()
    return text.lstrip(_MARKS + " ").strip()


def _glued(year: int, digits: str) -> tuple[int, int] | None:
    """`2001.1019` → (10, 19); `2002.630` → (6, 30); None when no split, or more than one, is a real date."""
    splits = [(int(digits[:k]), int(digits[k:])) for k in (1, 2) if 1 <= len(digits) - k <= 2]
    valid = [(m, d) for m, d in splits if _iso(year, m, d)]
    return valid[0] if len(valid) == 1 else None


def _year_span(match: re.Match) -> tuple[int, int] | None:
    """Where a date match's year is (its era included); None without a year."""
    groups = match.groupdict()
    if not groups.get("y"):
        return None
    start, end = match.span("y")
    if groups.get("era"):
        start = match.start("era")
    return start, end


_SHAPE_TOKEN_RE = re.compile(r"\d+|[A-Za-z]+|[^\s,'’]")
_WD_NAME_RE = re.compile(_WD_NAME + r"\.?", re.IGNORECASE)
_YEAR_EDGE = " ,./-年'’"


def _shape(text: str, start: int, end: int, year: tuple[int, int] | None) -> str:
    """The pattern of a date's tokens (text[start:end]), its year (and the separator next to it) left out:
    digits `9`, month names `M`, weekday names `W`, ordinal suffixes and spaces dropped, other marks kept. Two
    headings of one diary have one shape whether or not they show the year: `WEDNESDAY 31st JULY 1935` and
    `TUESDAY 6th AUGUST` are both `W9M`; `2003.6.29` and `6.28` are `9.9`; `2001年12月9日` and `12月10日` `9月9日`."""
    if year:
        before, after = text[start:year[0]].rstrip(_YEAR_EDGE), text[year[1]:end].lstrip(_YEAR_EDGE)
        span = before + (" " if before and after else "") + after
    else:
        span = text[start:end]
    out: list[str] = []
    for token in _SHAPE_TOKEN_RE.findall(span):
        low = token.lower()
        if token.isdigit():
            out.append("9")
        elif low in _MONTHS:
            out.append("M")
        elif _WD_NAME_RE.fullmatch(low):
            out.append("W")
        elif low not in ("st", "nd", "rd", "th", "of") and not (low == "." and out and out[-1] in "MW"):
            out.append(low)  # a separator (`.` `/` `-` 年 月 日); not the period of `Jun.`
    return "".join(out)


def _after_date(text: str, end: int) -> tuple[str, bool]:
    """What follows a date at text[end:], its weekday skipped: (rest stripped, whether it is glued to the date)."""
    rest = text[end:]
    weekday = _WEEKDAY_RE.match(rest)
    if weekday:
        rest = rest[weekday.end():]
    return rest.strip(), rest[:1].strip() != ""


_EN_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_EN_WEEKDAY_FIND_RE = re.compile(r"(?<![A-Za-z])(" + _WD_NAME + r")(?![A-Za-z])", re.IGNORECASE)
_JA_WEEKDAY_FIND_RE = re.compile(r"[(\[<【〈《]\s*([月火水木金土日])|([月火水木金土日])曜")


def _written_weekday(head: str) -> int | None:
    """The weekday a date's text names (`SATURDAY 3rd MARCH`, `2003.6.29(日)`, `[Sun]`), 0 Monday … 6 Sunday."""
    found = _EN_WEEKDAY_FIND_RE.search(head)
    if found:
        return _EN_WEEKDAYS.index(found.group(1)[:3].lower())
    found = _JA_WEEKDAY_FIND_RE.search(head)
    return "月火水木金土日".index(found.group(1) or found.group(2)) if found else None


def parse_date_line(line: str, order: str | None = None, loose: bool = False) -> DateLine | None:
    """The date a line starts with (full or month-day), with what follows it; None if it starts otherwise.

    Full dates: `2003.6.29`, `2003/05/20`, `2003-6-29`, `2001年12月9日`, `平成15年6月29日`, `H15.3.2`,
    `July 31, 2003`, `Jun. 3 '03`, `October 19-20, 2001` (its first day), `31 July 2003`, `Sunday, July 31, 2003`,
    `WEDNESDAY 31st JULY 2003`, `2003 June 5`, and a glued month+day `2001.1019` when just one split is a real
    date (so `2002.630` is June 30th, `2002.111` stays undated). Month-day dates: `7月31日`, `Jul. 31`,
    `TUESDAY 6th AUGUST`, `Dec 27th–Jan 2nd` (a range: its first day), and `6.29` / `6/29` only before a weekday
    `(日)`. Leading marks (■, ◆, 【, list-free `*`), emphasis, a heading's `#`s and anchor `{#…}` and full-width
    characters (NFKC) are ignored. A weekday after the date — `(日)`, `（土）`, `(Sun)`, `[Mon]`, `日曜日` — is
    skipped; `rest` is the text after that. `order` ('dmy' / 'mdy' / 'ymd', from `numeric_order` of the page)
    also reads `17/04/03`-style dates as it says. A numbered event's name may come before a full date:
    `第６回自然劇場 1998年1月31日(土)` (a log of outings, meetings, performances).

    `loose` (for lines that recur in one shape on a page, see mark_entries) also reads what a lone line is too
    ambiguous for: years from EARLIEST_YEAR on (a transcribed diary of the 1930s), two-digit years (`03.6.29`,
    `29/6/03` in the page's order, else where a field above 12 settles it), `6/29` without a weekday.
    `weekday`: the weekday written with the date (`verified`: it is the date's own).
    """
    if not _DIGIT_RE.search(line):  # every date has a (day) digit; most lines have none: skip them cheaply
        return None
    text = _clean(line)
    found = _parse(text, order, loose)
    if not found:
        return None
    head = text[:len(text) - len(found.rest)] if found.rest and text.endswith(found.rest) else text
    return replace(found, weekday=_written_weekday(head))


def _parse(text: str, order: str | None, loose: bool) -> DateLine | None:
    """parse_date_line on cleaned text."""
    numbered = _NUMBERED_RE.match(text)
    if numbered:  # `第６回自然劇場 1998年1月31日(土) 久喜市昭和池`: a numbered event's name, then its full date
        text = text[numbered.end():]
    for kind, pattern in _DATE_RES:
        match = pattern.match(text)
        if not match or (numbered and kind != "full"):
            continue
        groups = match.groupdict()
        year = None
        if groups.get("y"):
            raw = groups["y"]
            year = (_ERA[groups["era"]] + (1 if raw == "元" else int(raw))) if groups.get("era") else int(raw)
        if groups.get("md"):
            split = _glued(year, groups["md"])
            if not split:
                continue
            month, day = split
        else:
            month = _MONTHS[groups["mon"].lower()] if groups.get("mon") else int(groups["m"])
            day = int(groups["d"])
        if year is not None and not _iso(year, month, day):
            continue
        if year is None and not _iso(2000, month, day):  # 2000 is a leap year: 2月29日 is a month-day
            continue
        rest, joined = _after_date(text, match.end())
        return DateLine(kind, month, day, year, rest, joined, _shape(text, 0, match.end(), _year_span(match)))
    found = _numeric_date(text, order) if order else None
    return found or _scan(text, order, loose, bool(numbered))


_MONTH_ALT = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ORD = r"(?:st|nd|rd|th)?"
_YEAR_TOKEN = r"(?P<y>(?:1[89]|20)\d\d|['’]\d\d)(?![\d:])"
# A weekday before the date, a feast's name with it (`GOOD FRIDAY, 10th APRIL`, `Easter Sunday 12 April`)
_FEAST = r"(?:(?:good|easter|palm|ash|whit|shrove|maundy|holy|low|trinity|rogation)\s+)?"
_LEAD_WD = r"(?:[(\[<【]?" + _FEAST + _WD_NAME + r"\.?[)\]>】]?(?:\s*,\s*|\s+))?"
_DAY_RANGE = r"(?:\s*(?:-|–|—|～|to)\s*(?:(?:" + _MONTH_ALT + r")\.?\s*)?\d{1,2}" + _ORD + r"(?![\d:]))?"
_YEAR_AFTER = r"(?:(?:\s*,\s*|\s+)" + _YEAR_TOKEN + ")?"
_SCAN_RES = (  # the general grammar, tried after _DATE_RES: month names, then numbers in any order
    re.compile(_LEAD_WD + r"(?P<mon>" + _MONTH_ALT + r")(?![a-z])\.?,?\s*(?P<d>\d{1,2})" + _ORD + r"(?![\d:])"
               + _DAY_RANGE + _YEAR_AFTER, re.IGNORECASE),
    re.compile(_LEAD_WD + r"(?P<d>\d{1,2})" + _ORD + _DAY_RANGE + r"\s*(?:of\s+)?(?P<mon>" + _MONTH_ALT
               + r")(?![a-z])\.?" + _YEAR_AFTER, re.IGNORECASE),
    re.compile(_YEAR_TOKEN + r"[\s,./-]+(?P<mon>" + _MONTH_ALT + r")(?![a-z])\.?[\s,./-]*(?P<d>\d{1,2})" + _ORD
               + r"(?![\d:])", re.IGNORECASE),
    re.compile(r"(?P<era>明治|大正|昭和|平成|令和|[MTSHR](?=\d))?\s*(?P<a>\d{1,4}|元|['’]\d\d)\s*(?P<s1>[./-]|年)\s*"
               r"(?P<b>\d{1,2})\s*(?P<s2>[./-]|月)\s*(?P<c>\d{1,4}|['’]\d\d)(?!\d|[.:/-]\d)(?:\s*日(?![記誌曜]))?"),
    re.compile(r"(?P<a>\d{1,2})\s*(?P<s1>[./])\s*(?P<b>\d{1,2})(?!\d|[.:/-]\d)"),
)
_ERA_BASE = {"明治": 1867, "大正": 1911, "昭和": 1925, "平成": 1988, "令和": 2018,
             "M": 1867, "T": 1911, "S": 1925, "H": 1988, "R": 2018}


def _two_digit_year(raw: str, loose: bool) -> int | None:
    """`'03`, `03`: 1990..this year (see _year2); read loosely, the latest year it can be (`35` = 1935)."""
    yy = int(raw.lstrip("'’"))
    if not loose:
        return _year2(yy)
    return 2000 + yy if 2000 + yy <= _max_year() else 1900 + yy


def _scan_numbers(match: re.Match, order: str | None, loose: bool) -> tuple[int | None, int, int, str] | None:
    """(year, month, day, which group is the year) of a numeric match of _SCAN_RES; None if it is no date."""
    g = match.groupdict()
    a, b, c = g["a"], g["b"], g.get("c")
    if c is None:  # two numbers: a month-day, `6/29` (`29/6` on a page that writes the day first)
        return (None, int(b), int(a), "") if order == "dmy" else (None, int(a), int(b), "")
    if (g["s1"] == "年") != (g["s2"] == "月") or (g["s1"] != "年" and g["s1"] != g["s2"]):
        return None  # one kind of separator: `2003.6.29`, `2003年6月29日`, not `2003.6-29`
    if g.get("era"):
        if not (a == "元" or a.isdigit() and len(a) <= 2) or c is None or not c.isdigit():
            return None
        return _ERA_BASE[g["era"]] + (1 if a == "元" else int(a)), int(b), int(c), "a"
    if a == "元" or not c.lstrip("'’").isdigit():
        return None
    if len(a) == 4 and a.isdigit():
        return int(a), int(b), int(c), "a"
    if a[0] in "'’":
        year = _two_digit_year(a, loose)
        return (year, int(b), int(c), "a") if year else None
    year_last = len(c) == 4 or c[0] in "'’"
    if not year_last and not (loose and order):
        return None  # `03.6.29`: two-digit fields only loosely, in the order the page shows
    if year_last or order in ("dmy", "mdy"):
        year = int(c) if len(c) == 4 else _two_digit_year(c, loose)
        x, y = int(a), int(b)
        how = order if order in ("dmy", "mdy") else "dmy" if x > 12 else "mdy" if y > 12 else None
        if year is None or how is None:
            return None
        return (year, y, x, "c") if how == "dmy" else (year, x, y, "c")
    year = _two_digit_year(a, loose) if order == "ymd" else None
    return (year, int(b), int(c), "a") if year else None


def _scan(text: str, order: str | None, loose: bool, numbered: bool = False) -> DateLine | None:
    """The general grammar (_SCAN_RES) at the start of cleaned text; see parse_date_line."""
    earliest = EARLIEST_YEAR if loose else MIN_YEAR
    for pattern in _SCAN_RES:
        match = pattern.match(text)
        if not match:
            continue
        if "a" in match.groupdict():
            parts = _scan_numbers(match, order, loose)
            if not parts:
                continue
            year, month, day, group = parts
            if year is None and not (loose and match.group("s1") == "/") and not _WEEKDAY_RE.match(
                    text[match.end():]):
                continue  # `1.2 Scope`: a lone month-day of numbers is a date only before a weekday
            span = None
            if group:
                era = match.groupdict().get("era")
                span = (match.start("era") if era else match.start(group), match.end(group))
        else:
            raw = match.group("y")
            year = (int(raw) if raw[0] not in "'’" else _two_digit_year(raw, loose)) if raw else None
            if raw and year is None:
                continue
            month, day = _MONTHS[match.group("mon").lower().rstrip(".")], int(match.group("d"))
            span = match.span("y") if raw else None
            if not raw and re.match(r"\s*,?\s*['’]?\d", text[match.end():]):
                continue  # `July 4 1776`: a year out of range
        if numbered and year is None:
            continue
        if year is not None and not _iso(year, month, day, earliest):
            continue
        if year is None and not _iso(2000, month, day):
            continue
        rest, joined = _after_date(text, match.end())
        return DateLine("full" if year is not None else "monthday", month, day, year, rest, joined,
                        _shape(text, 0, match.end(), span), earliest)
    return None


def _numeric_parts(text: str) -> tuple[int, int, int, re.Match] | None:
    """(a, b, year) of a `a/b/yy(yy)` date at the start of cleaned text, the year plausible; None otherwise."""
    match = _NUMERIC_RE.match(text)
    if not match:
        return None
    raw = match.group("y")
    year = int(raw) if len(raw) == 4 else _year2(int(raw))
    if year is None or not _plausible(year):
        return None
    return int(match.group("a")), int(match.group("b")), year, match


def _ymd_parts(text: str) -> tuple[int, int, int, re.Match] | None:
    """(year, month, day) of a `yy.mm.dd` date at the start of cleaned text, a real date; None otherwise."""
    match = _YMD_RE.match(text)
    year = _year2(int(match.group("y"))) if match else None
    if year is None or not _iso(year, int(match.group("m")), int(match.group("d"))):
        return None
    return year, int(match.group("m")), int(match.group("d")), match


def _numeric_date(text: str, order: str) -> DateLine | None:
    if order == "ymd":
        found = _ymd_parts(text)
        if not found:
            return None
        year, month, day, match = found
    else:
        parts = _numeric_parts(text)
        if not parts:
            return None
        a, b, year, match = parts
        day, month = (a, b) if order == "dmy" else (b, a)
    if not _iso(year, month, day):
        return None
    rest, joined = _after_date(text, match.end())
    return DateLine("full", month, day, year, rest, joined, _shape(text, 0, match.end(), _year_span(match)))


def numeric_order(markdown: str) -> str | None:
    """'dmy', 'mdy' or 'ymd': how the page's short numeric dates are to be read, decided by the page itself.
    A Japanese page (kana) writes the year first: 'ymd' when lines start with `03.04.17` / `03/04/17` (two
    digits each) and every one is a real date so. Elsewhere the year is last (`17/04/03`, `4/17/2003`): every
    such date at a line's start must be a real date in one order and at least one must not be in the other (a
    day above 12). None when no line starts with one, when the page does not tell (every day and month 12 or
    less), or when no order fits all of them."""
    seen: list[tuple[int, int, int]] = []
    ymd: list[bool] = []
    for line in markdown.splitlines():
        if _DIGIT_RE.search(line):
            text = _clean(_LIST_RE.sub("", line.strip().lstrip("|").strip()))
            parts = _numeric_parts(text)
            if parts:
                seen.append(parts[:3])
            if _YMD_RE.match(text):
                ymd.append(_ymd_parts(text) is not None)
    if len(_KANA_RE.findall(markdown)) > JAPANESE_KANA_SHARE * len(markdown):
        return "ymd" if ymd and all(ymd) else None
    if not seen:
        return None
    dmy = all(_iso(y, b, a) for a, b, y in seen)
    mdy = all(_iso(y, a, b) for a, b, y in seen)
    return "dmy" if dmy and not mdy else "mdy" if mdy and not dmy else None


def is_date_line(line: str, order: str | None = None, loose: bool = False) -> bool:
    """Whether a line is a date line: a date at its start, then at most a weekday, a number (①, その2), a range
    end (～12.30(火)) or a short title — MAX_TITLE_CHARS characters, not the rest of a sentence (`7月31日に…`).
    `loose`: the date read as parse_date_line(loose=True) does."""
    found = parse_date_line(line, order, loose)
    return bool(found) and titled(found)


def titled(found: DateLine) -> bool:
    """Whether what follows a line's date is at most a short title (see is_date_line), not a sentence."""
    rest = found.rest.rstrip(_CLOSERS + " ")
    if len(rest) > MAX_TITLE_CHARS:
        return False
    joined = found.joined
    end = _RANGE_END_RE.match(rest)
    if end:  # `～９日（日）の…`: what follows a range end counts as what follows the date
        rest, joined = rest[end.end():], rest[end.end():][:1].strip() != ""
    if joined and _SENTENCE_START_RE.match(rest):
        return False
    return "。" not in rest.rstrip("。") and not ("、" in rest and rest.endswith("。"))


def spans_days(line: str) -> bool:
    """Whether a date line's date runs on to a later day (`2001年11月13日(火)～14日(水)`,
    `2003.12.28(日)～2003.12.30(火)`): its rest opens with a range's end, as titled reads it."""
    found = parse_date_line(line)
    return bool(found) and _RANGE_END_RE.match(found.rest.rstrip(_CLOSERS + " ")) is not None


class YearContext:
    """Resolves dates line by line through a document: a month-day date takes its year from the nearest
    preceding full date (or year heading), else from `fallback_year` (the page's name date or document date).
    Across a year end the year follows the page's order: in a newest-first diary `1月2日` then `12月31日`
    gives the year before, in an oldest-first one `12月31日` then `1月2日` the year after (a date more than 31
    days against the order of the dates before it turns the year; a smaller slip does not). A year taken from
    the page (a full date before, a year heading `## 1951`) may be as early as EARLIEST_YEAR."""

    def __init__(self, fallback_year: int | None = None) -> None:
        self.year = fallback_year
        self.last: tuple[int, int, int] | None = None
        self.direction = 0  # +1 oldest first, -1 newest first, 0 not known yet

    def _move(self, when: tuple[int, int, int]) -> None:
        if self.last and when != self.last:
            self.direction = 1 if when > self.last else -1
        self.last = when
        self.year = when[0]

    def see_year(self, year: int) -> None:
        """A year alone (a heading `## 2003年`) sets the year of the month-day dates after it."""
        if _plausible(year, EARLIEST_YEAR):
            self.year, self.last, self.direction = year, None, 0

    def resolve(self, found: DateLine) -> str | None:
        """The date of a date line ('YYYY-MM-DD' or None), moving the context along."""
        if found.year is not None:
            iso = found.date
            if iso:
                self._move((found.year, found.month, found.day))
            return iso
        if self.year is None:
            return None
        year = self.year
        if self.last and self.last[0] == year and _iso(year, found.month, found.day, EARLIEST_YEAR):
            # more than a month against the page's order: the year turned (a slip of a few days did not)
            gap = (date(year, found.month, found.day) - date(*self.last)).days
            if self.direction < 0 and gap > 31:
                year -= 1
            elif self.direction > 0 and gap < -31:
                year += 1
        iso = _iso(year, found.month, found.day, EARLIEST_YEAR)  # the year of a date already read
        if iso:
            self._move((year, found.month, found.day))
        return iso


_YEAR_HEADING_RE = re.compile(r"^(?:19|20)\d\d(?=年|\s|$)")


def _fallback_year(fallback: str | None) -> int | None:
    return int(fallback[:4]) if fallback and fallback[:4].isdigit() else None


# ---- diary entries ------------------------------------------------------------------------------------------

_LIST_RE = re.compile(r"^\s*([-*+]|\d+[.)])\s+")
_FENCE = "```"


@dataclass(frozen=True)
class Entry:
    """One diary entry: its heading's line number in the new Markdown, its text and its date (None: unknown)."""

    line: int
    heading: str
    date: str | None


@dataclass
class Entries:
    """What mark_entries found: the new Markdown, the entries, and the document's date with its source."""

    markdown: str
    entries: list[Entry] = field(default_factory=list)
    date: str | None = None
    date_from: str | None = None  # entry | name | content (None: no date); the pipeline adds stamp and capture
    lastmod: str | None = None  # the latest entry's date, when it is not `date` (the earliest entry's)

    @property
    def dates(self) -> list[str | None]:
        return [e.date for e in self.entries]


def _paragraphs(lines: list[str]) -> list[tuple[int, int]]:
    """(first, end) line ranges of the Markdown's blocks (runs of non-blank lines outside code fences)."""
    out: list[tuple[int, int]] = []
    start = None
    in_fence = False
    for n, line in enumerate(lines):
        if line.startswith(_FENCE):
            in_fence = not in_fence
        blank = not line.strip() and not in_fence
        if blank and start is not None:
            out.append((start, n))
            start = None
        elif not blank and start is None:
            start = n
    if start is not None:
        out.append((start, len(lines)))
    return out


def _plain_line(line: str) -> bool:
    """Whether a block's first line may open an entry: not a table, quote, HTML, list item, link or image. A link to
    a place on the same page (`[第21回自然劇場](#20) 2002年3月31日(日)`: an anchor that names the entry) is no link
    away."""
    linked = "](" in line and not (line.count("](") == 1 and _ANCHOR_NAME_RE.match(line))
    return not (line.lstrip().startswith(("|", ">", "<")) or _LIST_RE.match(line) or linked or "![" in line)


# A line opening with a name linked to a place on the same page, the date after it (not a date as the link: an
# in-page contents line `[2003.6.20(金)](#a) [2003.6.19(木)](#b)`)
_ANCHOR_NAME_RE = re.compile(r"^\[[^\]\d][^\]]*\]\(#[^)\s]*\)\s+\S")


def _candidate(lines: list[str], first: int, end: int, order: str | None = None, loose: bool = False) -> str | None:
    """'heading' when the block is a date-only heading, 'para' when its first line is a paragraph date line
    (`loose`: read as parse_date_line(loose=True) reads it)."""
    line = lines[first]
    if line.startswith(_FENCE):
        return None
    if _HEADING_RE.match(line):
        return "heading" if is_date_line(line, order, loose) else None
    if not _plain_line(line) or not is_date_line(line, order, loose):
        return None  # tables, quotes, HTML, list items, links and images are not entry headings
    if first + 1 < end and is_date_line(lines[first + 1], order, loose):
        return None  # several date lines in one paragraph: a dated list (an update log), not entries
    return "para"


def recurring(lines: list[str], order: str | None = None, at: list[int] | None = None,
              year: int | None = None) -> set[int]:
    """Induction: the lines (numbers; of `at`, default all) that open with a date read loosely, followed by at
    most a short title (`titled`), whose date has a shape (`DateLine.shape`) that INDUCE_MIN or more of them
    share (on as many different days), or whose weekday is the date's own (`DateLine.verified`; then also the
    other lines of its shape). Whatever the format, a page's entry headings are written alike: `WEDNESDAY 31st
    JULY 1935` … `TUESDAY 6th AUGUST`, `03.6.29(日)` …, `Dec 27 '03` …, while stray dates in the text vary.
    A date without a year is verified in `year` (the page's, from its file name or title): `SATURDAY 20th MARCH`
    alone on `diary/2004.html` is 2004-03-20, a Saturday."""
    found: dict[int, DateLine] = {}
    for n in range(len(lines)) if at is None else at:
        date_line = parse_date_line(lines[n], order, loose=True)
        if date_line and titled(date_line):
            found[n] = date_line
    # distinct days per shape: a note repeated with one date (`7/18 追加` three times) is no diary
    counts = Counter(shape for shape, _, _, _ in {(f.shape, f.year, f.month, f.day) for f in found.values()})
    proven = {f.shape for f in found.values() if _verified(f, year)}  # a shape the page writes a real date in
    return {n for n, f in found.items()
            if counts[f.shape] >= INDUCE_MIN or _verified(f, year) or (f.shape in proven and counts[f.shape] >= 2)}


def _verified(found: DateLine, year: int | None) -> bool:
    """found.verified, a date without a year read in `year`."""
    if found.year is None and year is not None and found.weekday is not None:
        found = replace(found, year=year)
    return found.verified


def _sentence(text: str) -> bool:
    """Whether text is (or holds) a sentence rather than a title: a Japanese stop, or an English one after 4+
    words (`I got up at nine o'clock this morning.`); a title may end in ? or !."""
    return "。" in text or (text.endswith(".") and len(text.split()) >= 4)


def _run_on(found: DateLine) -> bool:
    """Whether a heading's text runs on past its date into the entry (an unclosed `<h3>`): more than a title
    follows the date, or a sentence."""
    return bool(found.rest) and (not titled(found) or _sentence(found.rest))


def _split_run_on(lines: list[str], order: str | None, shapes: set[str]) -> list[str]:
    """Headings that run on past a date of one of `shapes` (the page's entry headings' shapes), split: the
    heading keeps the date (and weekday), the rest becomes the entry's first paragraph."""
    out: list[str] = []
    in_fence = False
    for line in lines:
        if line.startswith(_FENCE):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING_RE.match(line)
        found = parse_date_line(line, order, loose=True) if heading else None
        at = line.rfind(found.rest) if found and found.shape in shapes and _run_on(found) else -1
        if heading and at > len(heading.group(1)) + 1:
            out += [line[:at].rstrip(), "", line[at:].strip(), ""]
            continue
        out.append(line)
    return out


def _heading_text(line: str) -> str:
    """The text of a paragraph line as a heading: hard-break marks and whole-line emphasis off, text as is."""
    text = _LINE_END_BREAK_RE.sub("", line.rstrip("\n")).strip()
    emphasis = _EMPHASIS_RE.match(text)
    return emphasis.group(2).strip() if emphasis else text


_ANCHOR_DATE_RE = re.compile(r"^(\d{4})-(\d\d)-(\d\d)(?:-\d+)?$")


def anchor_date(line: str) -> str | None:
    """The date a heading's anchor gives (`## … {#2003-06-29}`, `{#2003-06-29-2}`); None for other anchors."""
    anchor = ANCHOR_RE.search(line) if line.startswith("#") else None
    match = _ANCHOR_DATE_RE.match(anchor.group(1)) if anchor else None
    return _iso(*(int(g) for g in match.groups()), earliest=EARLIEST_YEAR) if match else None


def entry_dates(markdown: str, fallback: str | None = None, year_hint: int | None = None) -> dict[int, str | None]:
    """line number → date of every date heading of a Markdown document: a heading (`#`…`######`) whose text is a
    date line, or one of INDUCE_MIN or more headings whose loosely read dates share a shape (`recurring`), or
    one with a date anchor (`{#2003-06-29}`, as mark_entries writes them: that date is taken as it is). Years
    resolved as YearContext does (fallback: a 'YYYY…' date for month-day dates before any full date, else
    `year_hint`). Lines in code fences are skipped. What chunking uses for each chunk's date."""
    out: dict[int, str | None] = {}
    context = YearContext(_fallback_year(fallback) or year_hint)
    order = numeric_order(markdown)
    lines = markdown.splitlines()
    in_fence = False
    visible: list[int] = []
    for n, line in enumerate(lines):
        if line.startswith(_FENCE):
            in_fence = not in_fence
        elif not in_fence and line.strip():
            visible.append(n)
    induced = recurring(lines, order, [n for n in visible if _HEADING_RE.match(lines[n])])
    for n in visible:
        line = lines[n]
        heading = _HEADING_RE.match(line)
        anchored = anchor_date(line) if heading else None
        loose = n in induced
        _see(context, line, heading is not None, order)
        if anchored:
            year, month, day = (int(p) for p in anchored.split("-"))
            out[n] = context.resolve(DateLine("full", month, day, year, earliest=EARLIEST_YEAR))
        elif heading and (loose or is_date_line(line, order)):
            found = parse_date_line(line, order, loose)
            out[n] = context.resolve(found) if found else None
        elif heading and ANCHOR_RE.search(line) and ANCHOR_RE.search(line).group(1).startswith(UNDATED_ANCHOR):
            out[n] = None  # an entry mark_entries could not date
    return out


UNDATED_ANCHOR = "entry-"  # the anchor of an entry without a date: `{#entry-3}` (its number on the page)


def _see(context: YearContext, line: str, heading: bool, order: str | None = None) -> None:
    """Feed a line that is not a date heading to the context: a date line with a full date (a sentence that
    starts with a date, `2003年5月3日に上演した…`, is not one), or a year heading (`## 2003年`)."""
    found = parse_date_line(line, order)
    if found and found.year is not None and not heading and is_date_line(line, order):
        context.resolve(found)
    elif heading and not found:
        year = _YEAR_HEADING_RE.match(_clean(line))
        if year:
            context.see_year(int(year.group(0)))


# A line that opens like a date, whether or not the grammar reads it: numbers with date separators
# (`2003.6.29`, `03/6/29`, `12月9日`, `H15.3.2`; see _date_like), a month or weekday name by a number (`JULY 31`,
# `31st JULY`, `Sun 3`).
_NUM_LIKE_RE = re.compile(r"^(?:[A-Z]|明治|大正|昭和|平成|令和)?['’]?(\d{1,4})\s*([./-]|年)\s*(\d{1,2})(?!\d)"
                          r"(?:\s*([./-]|月)\s*(\d{1,4})(?!\d))?(\s*(?:日|\(|\[|【))?")
_NAME_LIKE_RE = re.compile(r"^(?:" + _MONTH_ALT + r"|" + _WD_NAME + r")\.?,?\s+\d|^\d{1,2}(?:st|nd|rd|th)?\s+(?:"
                           + _MONTH_ALT + r")(?![a-z])", re.IGNORECASE)
DATE_LIKE_CHARS = 60  # a date-like line is short: a heading's length, not a log line's or a sentence's


_OUTLINE_RE = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}")  # `4.11.12.1`: a manual's section numbers


def _date_like(text: str, outline: bool = False) -> bool:
    """Whether cleaned text opens like a date: three numbers, one of 2+ digits, with a month (1..12) among them
    and a day (`03.6.29`, not the section `1.2.1`); two before 日 or a bracket (`6.29(日)`, `12月9日`), or a
    year and month (`2003年6月`); or a month or weekday name by a number. On an `outline` page (one with
    section numbers of four levels) three numbers are a section's (`4.11.10 NetBSD notes`)."""
    if _NAME_LIKE_RE.match(text):
        return True
    match = _NUM_LIKE_RE.match(text)
    if not match:
        return False
    a, sep, b, _, c, after = match.groups()
    if c is None:
        return bool(after) or sep == "年"
    fields = [int(a), int(b), int(c)]
    return not (outline and sep == ".") and max(len(a), len(c)) >= 2 and any(1 <= f <= 12 for f in fields) \
        and all(f >= 1 for f in fields)


def diary_signs(markdown: str) -> tuple[int, int]:
    """(entry headings, short block-opening lines that open like a date): a page with many of the second and few
    of the first is a diary whose entries were not found (its dates in a format the grammar does not read).
    Lines of lists, tables and code are not counted (an update log, a table of dates), nor long ones (a log's,
    a sentence)."""
    lines = markdown.splitlines()
    openers = [_clean(lines[first]) for first, _ in _paragraphs(lines) if not lines[first].startswith(_FENCE)
               and _DIGIT_RE.search(lines[first]) and _plain_line(lines[first])]
    outline = any(_OUTLINE_RE.match(text) for text in openers)
    like = sum(len(text) <= DATE_LIKE_CHARS and _date_like(text, outline) for text in openers)
    return len(entry_dates(markdown)), like


# A link to another page, its label with it: a date in the label (`[[2012.10.20]Fait Accompli](http://…)`) is the
# date of the page it leads to, not of this one; only a list of such links (news, a diary's contents, newest
# first) is as new as its first.
_AWAY_LINK_RE = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\((?!#)[^)]*\)")
_LINK_LABEL_RE = re.compile(r"^\[(.*)\]\([^)]*\)$", re.DOTALL)


def content_date(markdown: str, lines: int = CONTENT_LINES) -> str | None:
    """The first full date at the start of a line among the document's first `lines` non-empty lines, else the
    date of the page's labelled dates anywhere in it (`stamp_date`: `Last updated: May 31, 2001`, `[日時]
    2004年12月9日`); a lone date in a link to another page is that page's (_AWAY_LINK_RE), and so is one that
    signs a paragraph under such a link (an index's blurb of the page, signed with its day)."""
    seen = 0
    order = numeric_order(markdown)
    all_lines = markdown.splitlines()
    opening = [line for line in all_lines if line.strip() and not line.startswith(_FENCE)][:lines]
    dated_links = sum(any(parse_date_line(_LINK_LABEL_RE.sub(r"\1", m.group()), order) for m in
                          _AWAY_LINK_RE.finditer(line)) for line in opening)
    previous = ""
    under_link = False  # the line before links to another page: a sentence signed under it is that page's blurb
    for line in all_lines:
        if not line.strip() or line.startswith(_FENCE):
            continue
        seen += 1
        if seen > lines:
            break
        linked = bool(_AWAY_LINK_RE.search(line))
        if dated_links < 2:  # one dated link dates the page it leads to; a list of them (news, contents) this one
            line = _AWAY_LINK_RE.sub("→", line)
        text = _LIST_RE.sub("", line.strip().lstrip("|").strip())
        found = parse_date_line(text, order) or (
            None if under_link and signed_date(text, order) else _trailing_date(text, order))
        if found and found.date and not _EVENT_RE.match(found.rest) and not other_label(previous):
            return found.date
        previous, under_link = text, linked
    return stamp_date(all_lines, order)


# A line that only labels the date under it: a noun of time (`購入日、購入店`, `発売日`, `Release date:`).
_LABEL_LINE_RE = re.compile(r"^[\W_]*(?P<noun>[^\s\d。．.!?！？]{1,12}?)(?:日|日時|日付|年月日|時期|\s*date|\s*day)"
                            r"(?:[、,・/／\s][^。．.!?！？\d]{0,12})?[\W_]*$", re.IGNORECASE)
_DEICTIC_DAY = frozenset("今本昨明毎翌前同当曜休祝")  # 今日, 本日, 昨日, 曜日…: the day itself, no event
# What makes a date the page's own: its writing, posting, updating.
_OWN_TIME_RE = re.compile(r"更新|改訂|改定|修正|作成|掲載|投稿|執筆|記入|記|up|updated?|modified|written|posted|"
                          r"created|last", re.IGNORECASE)


def other_label(line: str) -> bool:
    """Whether `line` only labels the date under it as the day of something else than the page's writing: a
    purchase, a release, a birth (`購入日、購入店`, `発売日`, `Release date`); `更新日`, `Posted` and the day
    itself (`本日`) are not such labels."""
    found = _LABEL_LINE_RE.match(narrow(line.strip()))
    if not found or _OWN_TIME_RE.search(line):
        return False
    noun = found.group("noun").strip()
    return not (noun and noun[-1] in _DEICTIC_DAY)


# A date followed by what happened on it is the date of something the page talks about (a record's release, a
# birth, a broadcast), not the page's own: `1995年6月21日発売 ＶＨＳ`, `March 3, 1998 release`.
_EVENT_RE = re.compile(r"^(?:に|の)?(?:発売|発行|刊行|公開|放送|放映|上映|初演|生まれ|生|誕生|没|逝去|死去|創刊|"
                       r"創業|設立|リリース)|^(?:release[sd]?|born|died|published|premiered|aired|founded)\b|"
                       # a date that a sentence goes on from (`平成15年8月4日(月)に北教育センターで行いました`): when
                       # something the page tells of was done, not when the page was (`…に更新` stamps it)
                       r"^(?:\([^)]{1,3}\)|（[^）]{1,3}）)?\s*(?:に|から|より|まで)(?!更新|改訂|改定|修正|作成|掲載|記)",
                       re.IGNORECASE)


# Where a date may start at the end of a line: after a space or an opening bracket.
_TAIL_START_RE = re.compile(r"(?:(?<=\s)|(?<=[(（【\[]))(?=(?:19|20)\d\d|[０-９]|[A-Z][a-z]{2}|[平令])")
_TAIL_REST_RE = re.compile(r"^(?:\s*[-–~〜]\s*\d{1,2}日?)?[\s)）】\]*_]*$")  # a range of days: its first


def _trailing_date(text: str, order: str | None = None) -> DateLine | None:
    """A full date that ends the line, alone or in brackets: a talk's `国際シンポジウム (2004.12.9)`, a review's
    `…考察する。 2001/3/29` (the date the author put under the title); of a range of days its first
    (`Workshop on … (2004.12. 10-11)`)."""
    if not _DIGIT_RE.search(text[-24:]):
        return None
    for start in _TAIL_START_RE.finditer(text, max(0, len(text) - 40)):
        found = parse_date_line(text[start.start():], order)
        if found and found.year is not None and _TAIL_REST_RE.match(found.rest):
            return found
    return None


# A label that says what the date after it is: an update stamp (`Last updated:`, `最終更新日：`, `(Update: …)`)
# or the date of the page's event or writing (`[日時]`, `Date:`, `掲載日`, `Posted on`). Japanese labels end
# at a separator or bracket; English ones are whole words ("date" and "created" need a colon: "up to date"; a
# list's `compiled 15 July 2003` does not; a footer's `posted 2007-07-01` does not).
_UPDATE_LABEL = (r"(?:(?:last|latest)[\s-]+)?(?:updated?|modified|revised|changed)(?:\s+(?:on|at))?|"
                 r"(?:最終)?(?:更新|改訂|改定|修正)(?:日時|日付|日)?|"
                 # the page's own going on the web: `First publication on the internet March 2007`
                 r"(?:first\s+)?(?:publication|published|posted|put)\s+on\s+the\s+(?:internet|web|world\s+wide\s+web)")
_OTHER_LABEL = (r"(?:date|created|written|published)\s*[:：]|(?:written|published)\s+on|posted(?:\s+on)?|"
                r"compiled(?:\s+on)?|generated\s+on|"  # (`This document was generated on 14 June 2001`)
                r"(?:作成|掲載|公開|発行|執筆|記入|開催|投稿)(?:日時|日付|日)?|日時|日付|年月日")
_MONTH_YEAR_RE = re.compile(_MONTH_RE + r",?\s+(?P<year>(?:19|20)\d\d)(?!\d)", re.IGNORECASE)  # March 2007
_LABEL_RE = re.compile(r"(?<![A-Za-z])(?:(?P<update>" + _UPDATE_LABEL + r")|" + _OTHER_LABEL + r")"
                       r"(?![A-Za-z])\s*[\]】)）>＞〕]?\s*[:：]?\s*", re.IGNORECASE)


def labelled_date(line: str, order: str | None = None) -> tuple[str, bool] | None:
    """(date, is an update stamp) of a full date right after a date label in `line`; None when there is none."""
    if not _DIGIT_RE.search(line):
        return None
    text = line.translate(_WIDE)
    for label in _LABEL_RE.finditer(text):
        found = parse_date_line(text[label.end():], order)
        if found and found.date:
            return found.date, bool(label.group("update"))
        if label.group("update") and (month := _year_month(text[label.end():])):
            return month[0], True  # `Last updated: March 2007`, `最終更新 2003年9月`: the month it was updated
    for start in _SUFFIX_START_RE.finditer(text):  # the label after the date: `2003.5.1 更新`, `…19:42現在`
        found = parse_date_line(text[start.start():], order)
        when, rest = (found.date, found.rest) if found and found.date else \
            _year_month(text[start.start():]) or (None, "")  # `2003年9月現在`: the month the list was true
        after = _SUFFIX_LABEL_RE.match(rest) if when else None
        if after and not _inside_sentence(text[:start.start()], rest[after.end():]):
            return when, bool(after.group("update"))
    return None


_JA_YEAR_MONTH_RE = re.compile(r"(?P<year>(?:19|20)\d\d)\s*年\s*(?P<m>\d{1,2})\s*月(?!\s*\d)")


def _year_month(text: str) -> tuple[str, str] | None:
    """('YYYY-MM', the text after it) of a month and year that `text` opens with (`March 2007`, `2003年9月`)."""
    found = _MONTH_YEAR_RE.match(text)
    month = _MONTHS[found["mon"].casefold()] if found else None
    if not found and (found := _JA_YEAR_MONTH_RE.match(text)):
        month = int(found["m"])
    when = _iso(int(found["year"]), month) if found and month else None
    return (when, text[found.end():]) if when else None


STAMP_EDGE_CHARS = 20  # a stamp has at most this much text on one side of it in its line


def _inside_sentence(before: str, after: str) -> bool:
    """Whether a dated stamp sits inside a sentence, with text on both sides (`これらの問題は (2003年10月20日現在)
    すでに解決済み…`: the day one answer was true, not the page's), not at the line's start or end."""
    edge = " \t([（【)]）】:：、。,."
    return min(len(before.strip(edge)), len(after.strip(edge))) > STAMP_EDGE_CHARS


# A date followed by what it stamps: an update (`2003.5.1 更新`, `(2004/3/1 up)`), the writing (`2003年5月1日 記`,
# `作成`), the writer's "now" (`2013年8月18日 19:42現在`).
_SUFFIX_START_RE = re.compile(r"(?:^|(?<=[\s(（\[【*_]))(?=\d|[平令昭])")  # (in bold: `**2003年9月現在**`)
_SUFFIX_LABEL_RE = re.compile(r"^\s*(?:\d{1,2}\s*[:：時]\s*\d{1,2}分?\s*)?"
                              r"(?:(?P<update>更新|改訂|改定|修正|up(?:dated?)?)|"
                              r"作成|執筆|記(?![^\s)）\]】、。,])|現在|written)(?![A-Za-z])", re.IGNORECASE)


def stamp_date(lines: list[str], order: str | None = None) -> str | None:
    """A page's date from its labelled dates: the latest update stamp (a page updated section by section says
    `Last Update:` under each), else the first other labelled date (an event's or posting's day), else the date
    a paragraph is signed with (signed_date), not one under a link to another page (an index's blurb of it)."""
    updates: list[str] = []
    other = signed = None
    previous = ""
    for line in lines:
        found = labelled_date(line, order)
        if found and found[1]:
            updates.append(found[0])
        elif found and other is None:
            other = found[0]
        elif not found and signed is None and not _AWAY_LINK_RE.search(previous):
            signed = signed_date(line, order)  # (under a link to another page: that page's blurb, signed)
        previous = line if line.strip() else previous
    return max(updates) if updates else other or signed


_SIGNED_RE = re.compile(r"(?:[。！？]」?|[.!?][\"”’']?\s)\s*(?P<date>[^。！？!?\s][^。！？!?]{5,30})$")
SIGNATURE_CHARS = 12  # a name after the date: its writer's


def signed_date(line: str, order: str | None = None) -> str | None:
    """The date a paragraph is signed with: a full date after its last sentence, alone or before its writer's
    name (`…お祈り申し上げます。平成12年1月24日`, `…Thank you. 3 May 2001 Ken`): when it was written."""
    match = _SIGNED_RE.search(line.strip().translate(_WIDE))
    found = parse_date_line(match["date"], order) if match else None
    rest = found.rest.strip() if found else ""
    if found and found.date and found.year is not None and (not rest or _signature(rest, match["date"])):
        return found.date
    return None


_HIRAGANA_RE = re.compile(r"[\u3041-\u309f]")  # a particle, a verb's ending


def _signature(rest: str, tail: str) -> bool:
    """Whether what follows a date is its writer's name: set apart by a space, short, without a particle, a
    digit or an event's word (`1995年6月21日発売`, `…に公演` are about something else)."""
    return (len(rest) <= SIGNATURE_CHARS and tail.endswith(rest) and tail[:-len(rest)][-1:].isspace()
            and not _HIRAGANA_RE.search(rest) and not _DIGIT_RE.search(rest) and not _EVENT_RE.match(rest))


_HINT_YEAR_RE = re.compile(r"(?<!\d)(?:1[89]|20)\d\d(?!\d)")


def year_hint(path: str | None = None, title: str | None = None) -> int | None:
    """A year the page's file name or title shows alone (`diary/1947b.html`, `<title>1951</title>`), EARLIEST_YEAR
    up to this year: where the month-day entry headings before a page's first full date take their year."""
    for text in (PurePosixPath(path).stem if path else "", title or ""):
        years = {int(y) for y in _HINT_YEAR_RE.findall(text) if _plausible(int(y), EARLIEST_YEAR)}
        if len(years) == 1:
            return years.pop()
    return None


def _full_date(line: str, order: str | None) -> str | None:
    """The full date a line opens with, read loosely; None for a month-day or no date."""
    found = parse_date_line(line, order, loose=True)
    return found.date if found else None


def entry_anchor(when: str | None, number: int, taken: set[str]) -> str:
    """A stable anchor for an entry heading: its date (`2003-06-29`; `2003-06-29-2` for the day's second entry),
    else `entry-N` (N: its number on the page). `taken` holds the page's anchors so far (updated)."""
    base = when or f"{UNDATED_ANCHOR}{number}"
    anchor, k = base, 1
    while anchor in taken:
        k += 1
        anchor = f"{base}-{k}"
    taken.add(anchor)
    return anchor


POST_DAYS = 92  # a post's heading date within this many days of the date its file name gives
POST_TITLE_CHARS = 100  # a post's title after its date: one line, no sentence
_INLINE_IMAGE_RE = re.compile(r"(?<=\S)\s*!\[[^\]]*\]\([^)]*\)")  # a picture within a line (a logo by a title)


def _post(lines: list[str], blocks: list[tuple[int, int]], order: str | None,
          name_date: str | None) -> list[tuple[int, int, str]]:
    """A one-entry page (a blog post): its first block (after page headings) opens with a full date and a title
    line (`2012-10-25 Windows8への切り替え準備`, a picture in it aside), and its file name gives a day within
    POST_DAYS of that date."""
    if not name_date or len(name_date) != 10:
        return []
    for first, end in blocks:
        line = " ".join(_INLINE_IMAGE_RE.sub(" ", lines[first]).split())  # `2012-10-26 ![](logo.gif) 題名`
        heading = _HEADING_RE.match(line)
        found = parse_date_line(line, order)
        if heading and not found:
            continue  # the page's title
        if line.startswith(_FENCE) or not (heading or _plain_line(line)) or not (found and found.date):
            return []
        rest = found.rest
        if not rest or len(rest) > POST_TITLE_CHARS or "。" in rest.rstrip("。") or _sentence(rest.rstrip("。")) \
                or (first + 1 < end and is_date_line(lines[first + 1], order)):
            return []
        gap = abs((date.fromisoformat(found.date) - date.fromisoformat(name_date)).days)
        return [(first, end, "heading" if heading else "para")] if gap <= POST_DAYS else []
    return []


def mark_entries(markdown: str, name_date: str | None = None, path: str | None = None,
                 title: str | None = None) -> Entries:
    """Find a Markdown document's diary entries, make each entry's date line a heading and give it an anchor.

    A candidate is a block that is a date-only heading (kept as it is), or a paragraph whose first line is a
    date line (`is_date_line`; not a list item, table row, quote, link or image, and not one of several date
    lines in a row); or, whatever its format, one of INDUCE_MIN or more such blocks whose dates, read loosely,
    have one shape (`recurring`: `WEDNESDAY 31st JULY 1935`, `TUESDAY 6th AUGUST`, …). Only a document with at
    least two candidates is a diary, or a page whose file name gives a day and whose first block opens with a
    date near it and a title (`_post`: a blog post, one entry). Each paragraph date line then
    becomes the heading `'#' * level + ' ' + its text` (text unchanged; only a trailing hard break and
    whole-line emphasis are dropped), on a block of its own: the rest of its paragraph follows after a blank
    line. `level` is that of the page's own date headings if it has any, else one below the last non-date
    heading before the first entry (`#` title → `##` entries, `##` section → `###`, at most 6), else 2
    (ENTRY_HEADING_DEFAULT); every entry of the page gets the same level. Every entry heading ends in an anchor
    `{#…}` (entry_anchor; Hugo's heading attribute), one it has already is kept.

    Dates: see YearContext (month-day dates take their year from the nearest preceding full date, else from
    `name_date`, else from a year alone in the file name `path` or `title`, year_hint); a date range
    (`2003.12.28(日)～2003.12.30(火)`) is dated by its start; an unreadable typo (`2002.111(日)`) is an entry
    without a date. The document's `date` is its earliest dated entry's and `lastmod` its latest (`date_from`
    'entry'), else `name_date` ('name') unless a content date makes its year or month precise, else
    `content_date` ('content'), else None.
    """
    lines = markdown.splitlines()
    order = numeric_order(markdown)

    def openers() -> list[int]:
        return [first for first, _ in blocks if not lines[first].startswith(_FENCE)
                and (_HEADING_RE.match(lines[first]) or _plain_line(lines[first]))]

    blocks = _paragraphs(lines)
    page_year = int(name_date[:4]) if name_date else year_hint(path, title)  # where yearless dates are checked
    induced = recurring(lines, order, openers(), page_year)
    shapes = {f.shape for n in induced if (f := parse_date_line(lines[n], order, loose=True))}
    split = _split_run_on(lines, order, shapes)
    if split != lines:  # run-on headings split: the blocks again
        lines, blocks = split, _paragraphs(split)
        induced = recurring(lines, order, openers(), page_year)
    found = [(first, end, kind) for first, end in blocks
             if (kind := _candidate(lines, first, end, order, first in induced))]
    if len(found) == 1 and found[0][2] == "heading" and found[0][0] in induced:
        pass  # one heading the page made, its date read with its own weekday: a diary page of one entry
    elif len(found) < 2:
        found = _post(lines, blocks, order, name_date)
    if not found:
        return _without_entries(markdown, name_date)
    first_entry = found[0][0]
    level = ENTRY_HEADING_DEFAULT
    for n, line in enumerate(lines[:first_entry]):
        heading = _HEADING_RE.match(line)
        if heading and not is_date_line(line, order) and n not in induced:
            level = min(6, len(heading.group(1)) + 1)
    existing = next((_HEADING_RE.match(lines[first]) for first, _, kind in found if kind == "heading"), None)
    if existing:  # the page's own date headings set the level
        level = len(existing.group(1))
    convert = {first for first, _, kind in found if kind == "para"}
    kept = {first for first, _, kind in found if kind == "heading"}
    out: list[str] = []
    heading_lines: list[int] = []
    for n, line in enumerate(lines):
        if n in convert:
            if out and out[-1].strip():
                out.append("")
            heading_lines.append(len(out))
            out.append("#" * level + " " + _heading_text(line))
            if n + 1 < len(lines) and lines[n + 1].strip():
                out.append("")
            continue
        if n in kept:
            heading_lines.append(len(out))
        out.append(line)
    hint = None if name_date else year_hint(path, title)
    dated = entry_dates("\n".join(out), name_date, hint)
    taken = {m.group(1) for n in heading_lines if (m := ANCHOR_RE.search(out[n]))}
    entries = []
    for number, n in enumerate(heading_lines, 1):
        when = dated.get(n) or _full_date(out[n], order)  # a post's heading with a long title: its own date
        if not ANCHOR_RE.search(out[n]):
            out[n] = out[n].rstrip() + " {#" + entry_anchor(when, number, taken) + "}"
        entries.append(Entry(n, ANCHOR_RE.sub("", _HEADING_RE.match(out[n]).group(2)), when))
    new = "\n".join(out) + ("\n" if markdown.endswith("\n") else "")
    days = sorted(in_sequence([e.date for e in entries if e.date]))
    if days:
        return Entries(new, entries, days[0], "entry", days[-1] if days[-1] != days[0] else None)
    rest = _without_entries(new, name_date)
    return Entries(new, entries, rest.date, rest.date_from)


IN_SEQUENCE_SHARE = 0.75  # a page whose entry dates run this much in one order keeps that order


def in_sequence(dates: list[str]) -> list[str]:
    """The entries' dates (ISO, in the page's order) without those that break the order the rest keep: a diary
    written oldest or newest first, where `16/02/00` sits between 24/02/01 and 08/02/01 (a slip of the year,
    no entry of 2000). The longest run in one order (oldest or newest first, equal dates allowed) is kept when it
    holds IN_SEQUENCE_SHARE of the dates; else (a page in no order) all of them."""
    best: list[str] = []
    for sign in (1, -1):
        tails: list[tuple[str, ...]] = []  # the best subsequence ending at each length, by its last date
        for d in dates:
            at = bisect_right(tails, _order_key(d, sign), key=lambda run: _order_key(run[-1], sign))
            tails[at:at + 1] = [(tails[at - 1] if at else ()) + (d,)]
        if tails and len(tails[-1]) > len(best):
            best = list(tails[-1])
    return best if len(best) >= IN_SEQUENCE_SHARE * len(dates) else list(dates)


def _order_key(iso: str, sign: int) -> str:
    """An ISO date's key in the order `sign` says: as written (1), or newest first (-1: each character inverted)."""
    return iso if sign == 1 else "".join(chr(0x10FFFF - ord(ch)) for ch in iso)


def _kept_up(name_date: str, found: str) -> bool:
    """Whether a page named for a year (`request-2011`) opens with a date of a later year (`2023年1月28日…`): a
    page begun that year and kept up since, its name no longer its time."""
    return len(name_date) == 4 and found[:4] > name_date


def _without_entries(markdown: str, name_date: str | None) -> Entries:
    """The date of a page without diary entries: its name's, else its content's; a content date that makes a
    name's year or month precise (`shiretoko2002` showing `2002.8.9(金)～8.12(月)`), or that is of a later year
    than the one a page is named for (_kept_up), is taken instead."""
    found = content_date(markdown) if not name_date or len(name_date) < 10 else None
    if name_date and not (found and (found.startswith(name_date) or _kept_up(name_date, found))):
        return Entries(markdown, [], name_date, "name")
    return Entries(markdown, [], found, "content" if found else None)
