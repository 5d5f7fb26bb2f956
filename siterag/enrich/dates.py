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
from dataclasses import dataclass, field
from datetime import date
from pathlib import PurePosixPath

from siterag.codehash import code_hash

MIN_YEAR = 1990
CONTENT_LINES = 20  # a page's content date is looked for in this many non-empty lines from the top
MAX_TITLE_CHARS = 40  # a date line may carry a short title; more text after the date makes it a sentence
ENTRY_HEADING_DEFAULT = 2  # entry headings' level on a page without a heading before its first entry


def dates_key() -> str:
    """The part of a corpus document's extract key that this module decides: its code (a change redoes pages)."""
    return "+dates-" + code_hash(sys.modules[__name__])[:8]


def _max_year() -> int:
    return date.today().year


def _plausible(year: int) -> bool:
    return MIN_YEAR <= year <= _max_year()


def _iso(year: int, month: int, day: int | None = None) -> str | None:
    """'YYYY-MM-DD' ('YYYY-MM' without a day) for a real, plausible date; None otherwise."""
    if not _plausible(year) or not 1 <= month <= 12:
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
    ("monthday", re.compile(_EN_WEEKDAY + _MONTH_RE + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?(?![\d:])",
                            re.IGNORECASE)),
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
_WEEKDAY_RE = re.compile(r"\s*\(\s*(?:[" + _WEEKDAYS_JA + r"](?:曜日?)?(?:\s*[・,/]\s*[" + _WEEKDAYS_JA + r"])?|"
                         r"[A-Za-z]{3,9}\.?)\s*\)|\s*[" + _WEEKDAYS_JA + r"]曜日?")
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

    @property
    def date(self) -> str | None:
        return _iso(self.year, self.month, self.day) if self.year is not None else None


def _clean(line: str) -> str:
    """A line's text for date reading: Markdown marks, emphasis and decorations off, full-width digits ASCII."""
    text = line.strip().translate(_WIDE)
    text = HARD_BREAK_RE.sub("", text).strip()
    heading = _HEADING_RE.match(text)
    if heading:
        text = heading.group(2)
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


def parse_date_line(line: str, order: str | None = None) -> DateLine | None:
    """The date a line starts with (full or month-day), with what follows it; None if it starts otherwise.

    Full dates: `2003.6.29`, `2003/05/20`, `2003-6-29`, `2001年12月9日`, `平成15年6月29日`, `July 31, 2003`,
    `October 19-20, 2001` (its first day),
    `31 July 2003`, `Sunday, July 31, 2003`, and a glued month+day `2001.1019` when just one split is a real
    date (so `2002.630` is June 30th, `2002.111` stays undated). Month-day dates: `7月31日`, `Jul. 31`, and
    `6.29` / `6/29` only before a weekday `(日)`. Leading marks (■, ◆, 【, list-free `*`), emphasis, a heading's
    `#`s and full-width digits are ignored. A weekday after the date — `(日)`, `（土）`, `(Sun)`, `日曜日` — is
    skipped; `rest` is the text after that. `order` ('dmy' / 'mdy', from `numeric_order` of the page) also
    reads `17/04/03`-style dates, day or month first as it says. A numbered event's name may come before a full
    date: `第６回自然劇場 1998年1月31日(土)` (a log of outings, meetings, performances).
    """
    if not _DIGIT_RE.search(line):  # every date has a (day) digit; most lines have none: skip them cheaply
        return None
    text = _clean(line)
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
        rest = text[match.end():]
        weekday = _WEEKDAY_RE.match(rest)
        if weekday:
            rest = rest[weekday.end():]
        return DateLine(kind, month, day, year, rest.strip(), rest[:1].strip() != "")
    return _numeric_date(text, order) if order else None


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
    rest = text[match.end():]
    weekday = _WEEKDAY_RE.match(rest)
    if weekday:
        rest = rest[weekday.end():]
    return DateLine("full", month, day, year, rest.strip(), rest[:1].strip() != "")


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


def is_date_line(line: str, order: str | None = None) -> bool:
    """Whether a line is a date line: a date at its start, then at most a weekday, a number (①, その2), a range
    end (～12.30(火)) or a short title — MAX_TITLE_CHARS characters, not the rest of a sentence (`7月31日に…`)."""
    found = parse_date_line(line, order)
    if not found:
        return False
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


class YearContext:
    """Resolves dates line by line through a document: a month-day date takes its year from the nearest
    preceding full date (or year heading), else from `fallback_year` (the page's name date or document date).
    Across a year end the year follows the page's order: in a newest-first diary `1月2日` then `12月31日`
    gives the year before, in an oldest-first one `12月31日` then `1月2日` the year after (a date more than 31
    days against the order of the dates before it turns the year; a smaller slip does not)."""

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
        if _plausible(year):
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
        if self.last and self.last[0] == year and _iso(year, found.month, found.day):
            # more than a month against the page's order: the year turned (a slip of a few days did not)
            gap = (date(year, found.month, found.day) - date(*self.last)).days
            if self.direction < 0 and gap > 31:
                year -= 1
            elif self.direction > 0 and gap < -31:
                year += 1
        iso = _iso(year, found.month, found.day)
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


def _candidate(lines: list[str], first: int, end: int, order: str | None = None) -> str | None:
    """'heading' when the block is a date-only heading, 'para' when its first line is a paragraph date line."""
    line = lines[first]
    if line.startswith(_FENCE):
        return None
    if _HEADING_RE.match(line):
        return "heading" if is_date_line(line, order) else None
    if line.lstrip().startswith(("|", ">", "<")) or _LIST_RE.match(line) or "](" in line or "![" in line:
        return None  # tables, quotes, HTML, list items, links and images are not entry headings
    if not is_date_line(line, order):
        return None
    if first + 1 < end and is_date_line(lines[first + 1], order):
        return None  # several date lines in one paragraph: a dated list (an update log), not entries
    return "para"


def _heading_text(line: str) -> str:
    """The text of a paragraph line as a heading: hard-break marks and whole-line emphasis off, text as is."""
    text = _LINE_END_BREAK_RE.sub("", line.rstrip("\n")).strip()
    emphasis = _EMPHASIS_RE.match(text)
    return emphasis.group(2).strip() if emphasis else text


def entry_dates(markdown: str, fallback: str | None = None) -> dict[int, str | None]:
    """line number → date of every date heading (`#`…`######` whose text is a date line) of a Markdown
    document, years resolved as YearContext does (fallback: a 'YYYY…' date for month-day dates before any
    full date). Lines in code fences are skipped. What chunking uses for each chunk's date."""
    out: dict[int, str | None] = {}
    context = YearContext(_fallback_year(fallback))
    order = numeric_order(markdown)
    in_fence = False
    for n, line in enumerate(markdown.splitlines()):
        if line.startswith(_FENCE):
            in_fence = not in_fence
        if in_fence or not line.strip():
            continue
        heading = _HEADING_RE.match(line)
        _see(context, line, heading is not None, order)
        if heading and is_date_line(line, order):
            found = parse_date_line(line, order)
            out[n] = context.resolve(found) if found else None
    return out


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


def content_date(markdown: str, lines: int = CONTENT_LINES) -> str | None:
    """The first full date at the start of a line among the document's first `lines` non-empty lines, else the
    date of the page's labelled dates anywhere in it (`stamp_date`: `Last updated: May 31, 2001`, `[日時]
    2004年12月9日`)."""
    seen = 0
    order = numeric_order(markdown)
    all_lines = markdown.splitlines()
    for line in all_lines:
        if not line.strip() or line.startswith(_FENCE):
            continue
        seen += 1
        if seen > lines:
            break
        text = _LIST_RE.sub("", line.strip().lstrip("|").strip())
        found = parse_date_line(text, order) or _trailing_date(text, order)
        if found and found.date:
            return found.date
    return stamp_date(all_lines, order)


# Where a date may start at the end of a line: after a space or an opening bracket.
_TAIL_START_RE = re.compile(r"(?:(?<=\s)|(?<=[(（【\[]))(?=(?:19|20)\d\d|[０-９]|[A-Z][a-z]{2}|[平令])")
_TAIL_REST_RE = re.compile(r"^[\s)）】\]*_]*$")


def _trailing_date(text: str, order: str | None = None) -> DateLine | None:
    """A full date that ends the line, alone or in brackets: a talk's `国際シンポジウム (2004.12.9)`, a review's
    `…考察する。 2001/3/29` (the date the author put under the title)."""
    if not _DIGIT_RE.search(text[-24:]):
        return None
    for start in _TAIL_START_RE.finditer(text, max(0, len(text) - 40)):
        found = parse_date_line(text[start.start():], order)
        if found and found.year is not None and _TAIL_REST_RE.match(found.rest):
            return found
    return None


# A label that says what the date after it is: an update stamp (`Last updated:`, `最終更新日：`, `(Update: …)`)
# or the date of the page's event or writing (`[日時]`, `Date:`, `掲載日`, `Posted on`). Japanese labels end
# at a separator or bracket; English ones are whole words ("date" and "created" need a colon: "up to date").
_UPDATE_LABEL = (r"(?:(?:last|latest)[\s-]+)?(?:updated?|modified|revised|changed)(?:\s+(?:on|at))?|"
                 r"(?:最終)?(?:更新|改訂|改定|修正)(?:日時|日付|日)?")
_OTHER_LABEL = (r"(?:date|created|written|published)\s*[:：]|(?:posted|written|published)\s+on|"
                r"(?:作成|掲載|公開|発行|執筆|記入|開催|投稿)(?:日時|日付|日)?|日時|日付|年月日")
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
    return None


def stamp_date(lines: list[str], order: str | None = None) -> str | None:
    """A page's date from its labelled dates: the latest update stamp (a page updated section by section says
    `Last Update:` under each), else the first other labelled date (an event's or posting's day)."""
    updates: list[str] = []
    other: str | None = None
    for line in lines:
        found = labelled_date(line, order)
        if found and found[1]:
            updates.append(found[0])
        elif found and other is None:
            other = found[0]
    return max(updates) if updates else other


def mark_entries(markdown: str, name_date: str | None = None) -> Entries:
    """Find a Markdown document's diary entries and make each entry's date line a heading.

    A candidate is a block that is a date-only heading (kept as it is), or a paragraph whose first line is a
    date line (`is_date_line`; not a list item, table row, quote, link or image, and not one of several date
    lines in a row). Only a document with at least two candidates is a diary. Each paragraph date line then
    becomes the heading `'#' * level + ' ' + its text` (text unchanged; only a trailing hard break and
    whole-line emphasis are dropped), on a block of its own: the rest of its paragraph follows after a blank
    line. `level` is that of the page's own date headings if it has any, else one below the last non-date
    heading before the first entry (`#` title → `##` entries, `##` section → `###`, at most 6), else 2
    (ENTRY_HEADING_DEFAULT); every entry of the page gets the same level.

    Dates: see YearContext (month-day dates take their year from the nearest preceding full date, else from
    `name_date`); a date range (`2003.12.28(日)～2003.12.30(火)`) is dated by its start; an unreadable typo
    (`2002.111(日)`) is an entry without a date. The document date is the first dated entry's (`date_from`
    'entry'), else `name_date` ('name') unless a content date makes its year or month precise, else
    `content_date` ('content'), else None.
    """
    lines = markdown.splitlines()
    blocks = _paragraphs(lines)
    order = numeric_order(markdown)
    found = [(first, end, kind) for first, end in blocks if (kind := _candidate(lines, first, end, order))]
    if len(found) < 2:
        return _without_entries(markdown, name_date)
    first_entry = found[0][0]
    level = ENTRY_HEADING_DEFAULT
    for line in lines[:first_entry]:
        heading = _HEADING_RE.match(line)
        if heading and not is_date_line(line, order):
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
    new = "\n".join(out) + ("\n" if markdown.endswith("\n") else "")
    dated = entry_dates(new, name_date)
    entries = [Entry(n, _HEADING_RE.match(out[n]).group(2), dated.get(n)) for n in heading_lines]
    first_date = next((e.date for e in entries if e.date), None)
    if first_date:
        return Entries(new, entries, first_date, "entry")
    rest = _without_entries(new, name_date)
    return Entries(new, entries, rest.date, rest.date_from)


def _without_entries(markdown: str, name_date: str | None) -> Entries:
    """The date of a page without diary entries: its name's, else its content's; a content date that makes a
    name's year or month precise (`shiretoko2002` showing `2002.8.9(金)～8.12(月)`) is taken instead."""
    found = content_date(markdown) if not name_date or len(name_date) < 10 else None
    if name_date and not (found and found.startswith(name_date)):
        return Entries(markdown, [], name_date, "name")
    return Entries(markdown, [], found, "content" if found else None)
