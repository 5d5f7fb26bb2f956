"""Stage 6: flag pages that need a look: lost content, mojibake, LLM fallback, duplicates (short pages apart).

Mojibake is judged by evidence of a wrong decode, never by what the characters look like: half-width kana
(ｱｲｳ, i-mode novels, BBS posts) are ordinary Japanese text. A wrong decode is reversible: text that is UTF-8
read as cp932 (`縺ｧ縺吶`), UTF-8 read as Latin-1/cp1252 (`Ã©`, `ã\x81\x82`, `â€™`) or Shift_JIS read as
Latin-1/cp1252 (`‚±‚ê‚Í`) turns back into real characters when it is encoded with the wrong codec and
decoded with the right one. `mojibake_score` tries each of these repairs on the runs of characters the wrong
codec can produce and counts the characters that come back. Genuine text almost never survives the round
trip: genuine cp932 text is not UTF-8 (its lead bytes 0x81-0x9F are UTF-8 continuation bytes), half-width
kana are single bytes 0xA1-0xDF that can at most pair into 2-byte Latin letters, never into Japanese, and
genuine Latin-1 accents are single bytes that UTF-8 rejects. A wrong decode, on the other hand, hits every
non-ASCII character of the text, so it shows as runs, densely. Hence the threshold (`Mojibake.found`): a
run of MOJIBAKE_RUN repaired characters in a row, or repaired characters making up MOJIBAKE_SHARE of the
text's non-ASCII characters (a short or mostly-ASCII text, `cafÃ©`); U+FFFD, C1 controls and the private-use
characters cp932 gives stray bytes are a failed decode by themselves.

Not covered: EUC-JP read as cp932 (and back). Any two half-width kana bytes (0xA1-0xDF) are a valid EUC-JP
kanji, so the round trip would "repair" every genuine half-width kana text; the encoding stage prevents this
case instead (it prefers the codec whose output is JIS X 0208 characters).
"""

from __future__ import annotations

import codecs
import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from siterag.enrich.dates import diary_signs
from siterag.printable import printable

MIN_VISIBLE_CHARS = 500  # a page whose own visible text is shorter is "short" (informational)
LOST_RATIO = 0.5  # the body keeps under half of the page's non-template text: "lost_content"
LOST_MIN_CHARS = 200  # ... and at least this many characters are missing (a caption more or less is noise)
MOJIBAKE_RUN = 3  # repaired characters in a row that make a wrong decode
MOJIBAKE_SHARE = 0.5  # or: share of the non-ASCII characters that repair (with at least 2 of them)
FEW_ENTRIES_LINES = 8  # a page with this many lines that open like a date (siterag.enrich.dates.diary_signs) ...
FEW_ENTRIES_SHARE = 0.5  # ... and entry headings for fewer than this share of them: "few_entries"

# Characters no correct decode produces: U+FFFD, C1 controls, the private-use characters Python's cp932 gives
# the stray bytes 0xA0, 0xFD-0xFF.
_HARD_RE = re.compile(r"[\ufffd\x80-\x9f\uf8f0-\uf8f3]")
_CP1252 = "€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ"
_LATIN_RUN = re.compile(f"[\x80-\xff{_CP1252}]+")
# Shift_JIS read as Latin-1: a trail byte may be ASCII 0x40-0x7E (日本 = 93 FA 96 7B = “ú–{).
_SJIS_LATIN_RUN = re.compile(f"[\x80-\xff{_CP1252}][\x40-\x7e\x80-\xff{_CP1252}]*")
_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")


# Runs of repaired characters that are evidence. Japanese: kana, CJK ideographs and punctuation, full-width
# forms (not half-width ones). Latin: what UTF-8 read as Latin-1 is likely to have been: Latin-1 and Latin
# Extended-A letters, Greek, Cyrillic, or any 3-byte character (Japanese, punctuation like ’ and —); not the
# rest of the 2-byte range (IPA, combining marks): an accented capital before a curly quote is valid UTF-8
# too (É” = C9 94 = ɔ).
_JAPANESE_RUN = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff01-\uff5e]+")
_LATIN_TEXT_RUN = re.compile(r"[\u00a0-\u017f\u0370-\u04ff\u0800-\udfff\uf900-\ufffc\U00010000-\U0010ffff]+")
_KANA_RE = re.compile(r"[\u3041-\u30fa]")


def _cut(error: UnicodeError, latin: bool = False) -> tuple[bytes, int]:
    """Encoding back: a character the wrong codec cannot have produced becomes NUL, where the run is cut (runs
    never hold NUL); for cp1252, a Latin-1 character it lacks (its five undefined bytes, read as C1 controls)
    is its own byte."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    part = error.object[error.start:error.end]
    return bytes(ord(c) if latin and ord(c) < 0x100 else 0 for c in part), error.end


codecs.register_error("siterag-cut", _cut)
codecs.register_error("siterag-cut-latin", lambda error: _cut(error, latin=True))


@dataclass(frozen=True)
class _Family:
    name: str
    runs: re.Pattern
    codec: str  # the codec that misread the bytes (cp1252 stands for Latin-1 too)
    right: str  # the codec those bytes really were in
    counts: re.Pattern  # runs of repaired characters that are evidence
    needs_kana: bool = False  # repaired runs count only when kana came back too
    sparse: bool = True  # whether a lone repaired character is evidence (or only runs of them are)


# Which wrong decode, the characters it produces, and what its repair must give back. UTF-8 read as cp932
# counts only Japanese characters (3-byte UTF-8): 2-byte Latin letters come back from ordinary half-width kana
# pairs (ﾃｽ = C3 BD = ý). And only runs of them: genuine cp932 text repairs a lone character here and there
# (よくある質問 = 82 E6 82 AD 82 A0 ...: E6 82 AD is 悭), never two in a row on the real legacy sites.
# Shift_JIS read as Latin-1 needs kana: Latin words with accents (élève) decode to stray kanji, never to
# kana (kana lead bytes 0x82/0x83 read as cp1252 are ‚ and ƒ).
_FAMILIES = (
    _Family("utf-8 read as cp932", _NON_ASCII_RUN, "cp932", "utf-8", _JAPANESE_RUN, sparse=False),
    _Family("utf-8 read as latin-1", _LATIN_RUN, "cp1252", "utf-8", _LATIN_TEXT_RUN),
    _Family("shift_jis read as latin-1", _SJIS_LATIN_RUN, "cp1252", "cp932", _JAPANESE_RUN, needs_kana=True),
)


@dataclass
class Mojibake:
    """Evidence of a wrong decode in a text."""

    hard: int = 0  # U+FFFD, C1 controls, cp932's private-use stray bytes
    repaired: int = 0  # characters of the text that turned back into real characters (where a lone one counts)
    longest: int = 0  # most repaired characters in a row (any wrong decode)
    evidence: int = 0  # characters that repaired under a wrong decode that passed the threshold
    non_ascii: int = 0
    kinds: set[str] = field(default_factory=set)  # which wrong decodes were seen

    @property
    def share(self) -> float:
        return self.repaired / self.non_ascii if self.non_ascii else 0.0

    @property
    def found(self) -> bool:
        return bool(self.hard) or self.longest >= MOJIBAKE_RUN or (
            self.repaired >= 2 and self.share >= MOJIBAKE_SHARE)


def _repair(text: str, family: _Family) -> tuple[int, int]:
    """(characters of `text` that repair, longest run of repaired characters) for one wrong decode."""
    repaired = longest = 0
    latin = family.codec == "cp1252"
    back = "latin-1" if latin else family.codec  # bytes -> the characters they were read as
    cut = "siterag-cut-latin" if latin else "siterag-cut"
    for match in family.runs.finditer(text):
        for data in match.group().encode(family.codec, errors=cut).split(b"\0"):
            if not data:
                continue
            fixed = data.decode(family.right, errors="replace")
            if family.needs_kana and not _KANA_RE.search(fixed):
                continue
            good = [m.group() for m in family.counts.finditer(fixed)]
            if not good:
                continue
            longest = max(longest, *map(len, good))
            good_bytes = sum(len(g.encode(family.right)) for g in good)
            repaired += round(_non_ascii(data.decode(back, errors="replace")) * good_bytes / len(data))
    return min(repaired, _non_ascii(text)), longest


def _non_ascii(text: str) -> int:
    return len(text) - len(text.encode("ascii", errors="ignore"))


def mojibake_score(text: str) -> Mojibake:
    """How much of `text` looks like the output of a wrong decode (see the module docstring)."""
    score = Mojibake(hard=len(_HARD_RE.findall(text)), non_ascii=_non_ascii(text))
    if not score.non_ascii:
        return score
    for family in _FAMILIES:
        repaired, longest = _repair(text, family)
        sparse = repaired if family.sparse else 0
        if longest >= MOJIBAKE_RUN or (sparse >= 2 and sparse >= MOJIBAKE_SHARE * score.non_ascii):
            score.kinds.add(family.name)
            score.evidence = max(score.evidence, repaired)
        score.repaired = max(score.repaired, sparse)
        score.longest = max(score.longest, longest)
    return score


def mojibake_signs(text: str) -> int:
    """0 for clean text; else the number of characters that are evidence of a wrong decode."""
    score = mojibake_score(text)
    return score.hard + score.evidence if score.found else 0


_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK_RE = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_AUTOLINK_RE = re.compile(r"<(?:https?|ftp|mailto):[^>\s]*>")
_TAG_RE = re.compile(r"</?[A-Za-z][^>\n]*>")
# Line starts: heading, quote, list item; whole lines: code fences, table separator rows.
_LINE_MARK_RE = re.compile(r"^\s*(?:#{1,6}\s|>\s?|[-*+]\s|\d+[.)]\s|```.*$"
                           r"|\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$)", re.MULTILINE)
_MARKUP_RE = re.compile(r"[*_`|\\]")


def text_chars(markdown: str) -> int:
    """Visible characters of a Markdown body, counted as the page's own text is (siterag.extract.chrome.drop_map: per
    line, whitespace runs as one space, no leading or trailing space): link and image URLs, HTML tags and
    Markdown markup (#, >, list markers, emphasis, table pipes, fences) dropped."""
    text = _IMAGE_RE.sub(r"\1", markdown)
    text = _LINK_RE.sub(r"\1", text)
    text = _AUTOLINK_RE.sub("", text)
    text = _TAG_RE.sub("", text)
    text = _LINE_MARK_RE.sub("", text)
    text = _MARKUP_RE.sub("", text)
    return sum(len(" ".join(line.split())) for line in text.split("\n"))


@dataclass
class PageReport:
    """What the gate found about one page."""

    path: str
    chars: int  # visible characters of the body (text_chars)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # informational, not problems: "short"
    fallback: str = ""  # why the LLM's extraction was not used (down, timeout, invalid_json, length, ...)
    metadata_problem: str = ""  # why the LLM's title/tags/summary were not used
    visible: int | None = None  # visible characters of the page itself, when known
    content: int | None = None  # ... of them not the site's template
    entries: int = 0  # diary entry headings found (few_entries)
    date_lines: int = 0  # lines that open like a date (few_entries)


def check_page(path: str, body: str, fields: dict, page: Mapping[str, int] | None = None) -> PageReport:
    """Problems of one corpus document. `page` = {"visible": int, "content": int}: characters of the page's
    own visible text and of the part of it that is not the site's template; without it the length checks are
    skipped (a short body alone says nothing: many pages are short in the original too).

    lost_content: the body keeps under LOST_RATIO of `content`, and at least LOST_MIN_CHARS are missing. Half,
    because what the extractor may rightly drop beyond the template (the page's own link lists, counters,
    copyright lines, captions, markup counted differently) is a minority of a page's text, while the failures
    this is for drop most of it (one cell of a layout table kept, the article lost next to a long menu).
    short (a note, not a problem): `visible` < MIN_VISIBLE_CHARS, the page itself is short.
    few_entries: FEW_ENTRIES_LINES or more lines open like a date but under FEW_ENTRIES_SHARE of them are entry
    headings (siterag.enrich.dates.diary_signs): a diary whose date format was not read; its chunks carry
    another entry's date or the page's."""
    report = PageReport(path, text_chars(body))
    if page:
        visible, content = page.get("visible"), page.get("content")
        report.visible, report.content = visible, content
        if content is not None and report.chars < LOST_RATIO * content and content - report.chars >= LOST_MIN_CHARS:
            report.problems.append("lost_content")
        if visible is not None and visible < MIN_VISIBLE_CHARS:
            report.notes.append("short")
    report.entries, report.date_lines = diary_signs(body)
    if report.date_lines >= FEW_ENTRIES_LINES and report.entries < FEW_ENTRIES_SHARE * report.date_lines:
        report.problems.append("few_entries")
    if mojibake_score(body).found or mojibake_score(str(fields.get("title", ""))).found:
        report.problems.append("mojibake")
    if fields.get("fallback"):
        report.problems.append("llm_fallback")
        report.fallback = str(fields["fallback"])
    if fields.get("metadata_problem"):  # the LLM's fields were refused (the machine's stayed)
        report.problems.append("metadata_fallback")
        report.metadata_problem = str(fields.get("metadata_problem") or "")
    return report


def find_duplicates(hashes: dict[str, str]) -> list[list[str]]:
    """Groups of paths whose bodies have the same hash."""
    groups: dict[str, list[str]] = defaultdict(list)
    for path, digest in hashes.items():
        groups[digest].append(path)
    return sorted(sorted(g) for g in groups.values() if len(g) > 1)


def log_lines(reports: list[PageReport], duplicates: list[list[str]],
              duplicate_pages: Mapping[str, str] | None = None) -> list[str]:
    """error.log lines: one per problem ('[!] ...'), then the informational ones ('[i] ...') apart."""
    lines = []
    for r in reports:
        for problem in r.problems:
            if problem == "lost_content":
                lines.append(f"[!] Lost content (kept {r.chars} of {r.content} non-template chars): {r.path}")
            elif problem == "few_entries":
                lines.append(f"[!] Few diary entries found ({r.entries} entry headings, {r.date_lines} lines that "
                             f"start with a date): {r.path}")
            elif problem == "mojibake":
                lines.append(f"[!] Mojibake or U+FFFD: {r.path}")
            elif problem == "llm_fallback":
                lines.append(f"[!] LLM fallback to heuristic ({r.fallback}): {r.path}")
            elif problem == "metadata_fallback":
                why = f" ({r.metadata_problem})" if r.metadata_problem else ""
                lines.append(f"[!] LLM metadata failed{why}, title from the page: {r.path}")
    for group in duplicates:
        lines.append(f"[!] Duplicate body: {', '.join(group)}")
    lines += [f"[i] Short page ({r.visible} visible chars): {r.path}" for r in reports if "short" in r.notes]
    lines += [f"[i] Duplicate page left out (same bytes as {kept}): {dup}"
              for dup, kept in sorted((duplicate_pages or {}).items())]
    return [printable(line) for line in lines]  # a file name holding a newline stays on its line, forges none
