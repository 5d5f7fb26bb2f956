"""Stage 3: detect a page's real encoding (never trust the declaration) and normalize to UTF-8."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from functools import cache

from charset_normalizer import from_bytes

from siterag.acquire.purge import wide_encoding

_META_CHARSET_RE = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_XML_ENC_RE = re.compile(rb"""<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_ISO2022_RE = re.compile(rb"\x1b(\$[@B]|\$\(D|\([BJI])")
# What the web's legacy labels really mean (WHATWG): shift_jis is cp932, latin-1 is cp1252.
_ALIASES = {
    "shift_jis": "cp932", "shift-jis": "cp932", "sjis": "cp932", "x-sjis": "cp932", "ms_kanji": "cp932",
    "windows-31j": "cp932", "cp932": "cp932", "euc-jp": "euc_jp", "x-euc-jp": "euc_jp", "eucjp": "euc_jp",
    "iso-2022-jp": "iso2022_jp_ext", "csiso2022jp": "iso2022_jp_ext", "iso-8859-1": "cp1252",
    "latin1": "cp1252", "latin-1": "cp1252", "us-ascii": "ascii", "ascii": "ascii", "utf-8": "utf-8",
    "utf8": "utf-8", "windows-1252": "cp1252",
}
_JAPANESE = ("cp932", "euc_jp", "euc_jis_2004", "iso2022_jp_ext")


@dataclass(frozen=True)
class Detection:
    """The encoding chosen for one page and why."""

    encoding: str
    method: str  # bom | wide | ascii | iso2022 | utf-8 | declared | japanese | damaged | detector | fallback
    declared: str | None = None


def declared_charset(data: bytes) -> str | None:
    """The charset named in a <meta> tag or XML declaration, lower-cased, if any."""
    head = data[:4096]
    match = _META_CHARSET_RE.search(head) or _XML_ENC_RE.search(head)
    return match.group(1).decode("ascii", "replace").lower() if match else None


def python_codec(label: str | None) -> str | None:
    """Map a web charset label to a Python codec name, or None when unknown."""
    if not label:
        return None
    label = label.strip().lower()
    if label in _ALIASES:
        return _ALIASES[label]
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def _is_jis_char(ch: str) -> bool:
    """True for characters of JIS X 0208 (and cp932's NEC row 13): what real Japanese text is made of."""
    try:
        raw = ch.encode("euc_jp")
        return len(raw) == 2 and raw[0] >= 0xA1
    except UnicodeEncodeError:
        try:
            return ch.encode("cp932")[0] == 0x87
        except UnicodeEncodeError:
            return False


_ASCII_RUN_RE = re.compile(r"[\x00-\x7f]+")


@cache
def _jis_table() -> dict[int, None]:
    """A str.translate table deleting every JIS character (both codecs are BMP-only, so the BMP is enough)."""
    return dict.fromkeys(cp for cp in range(0x80, 0x10000) if _is_jis_char(chr(cp)))


def _non_ascii(text: str) -> str:
    """The non-ASCII characters of `text`, in order."""
    return _ASCII_RUN_RE.sub("", text)


def japanese_score(text: str, sample: int = 20000) -> float:
    """Share of non-ASCII characters that are JIS X 0208 characters (not half-width kana or oddities)."""
    chars = _non_ascii(text)[:sample]
    if not chars:
        return 0.0
    return (len(chars) - len(chars.translate(_jis_table()))) / len(chars)


_KANA_RE = re.compile(r"[\u3041-\u3096\u30a1-\u30fa]")


def _has_kana(text: str) -> bool:
    """Japanese prose holds kana; a page whose few high bytes only happen to pair into kanji (an English page's
    cp1252 quotes and dashes read as Shift_JIS: `God\x92s` as `God壮`) holds none. Then its declared Latin
    charset is believed."""
    return len(_KANA_RE.findall(text)) >= 2


def _strict(data: bytes, codec: str) -> str | None:
    try:
        return data.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None


def _damaged(data: bytes, hints: list[str]) -> str | None:
    """UTF-8 or the Japanese codec that decodes all but a few stray bytes (a page with a corrupt byte or two,
    which no codec decodes cleanly): it beats a single-byte guess that turns the whole page into mojibake."""
    best: tuple[int, str] | None = None
    for codec in dict.fromkeys([h for h in hints if h in _JAPANESE] + ["utf-8", *_JAPANESE]):
        text = data.decode(codec, errors="replace")
        bad = text.count("\ufffd")
        non_ascii = len(_non_ascii(text)) - bad
        if bad * 200 > non_ascii:  # at most one stray byte per 200 good characters
            continue
        if codec != "utf-8" and japanese_score(text.replace("\ufffd", "")) < 0.8:
            continue
        if best is None or bad < best[0]:
            best = (bad, codec)
    return best[1] if best else None


def detect_encoding(data: bytes, http_charset: str | None = None) -> Detection:
    """Pick the encoding from BOM, clean decodes, Japanese plausibility, hints and charset-normalizer."""
    declared = declared_charset(data)
    if data.startswith(codecs.BOM_UTF8):
        return Detection("utf-8-sig", "bom", declared)
    wide = wide_encoding(data)  # UTF-16/32: by the BOM, or without one when it decodes to markup
    if wide:
        return Detection(wide, "bom" if wide in ("utf-16", "utf-32") else "wide", declared)
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return Detection("utf-16", "bom", declared)
    if _ISO2022_RE.search(data) and data.isascii():
        return Detection("iso2022_jp_ext", "iso2022", declared)
    if data.isascii():
        return Detection("ascii", "ascii", declared)
    if _strict(data, "utf-8") is not None:
        return Detection("utf-8", "utf-8", declared)
    hints = [c for c in (python_codec(http_charset), python_codec(declared)) if c]
    scored: dict[str, float] = {}
    for codec in dict.fromkeys([h for h in hints if h in _JAPANESE] + list(_JAPANESE)):
        text = _strict(data, codec)
        if text is not None:
            scored[codec] = japanese_score(text)
    best = max(scored, key=scored.__getitem__) if scored else None
    for hint in hints:
        # A hint counts only when it decodes cleanly and is not clearly worse than the best Japanese guess.
        if hint in scored and scored[hint] >= scored[best] - 0.02:
            return Detection(hint, "declared", declared)
    if best is not None and scored[best] >= 0.8 and (_has_kana(_strict(data, best) or "") or not any(
            h not in _JAPANESE and _strict(data, h) is not None for h in hints)):
        return Detection(best, "japanese", declared)
    for hint in hints:
        if hint not in _JAPANESE and _strict(data, hint) is not None:
            return Detection(hint, "declared", declared)
    damaged = _damaged(data, hints)
    if damaged is not None:
        return Detection(damaged, "damaged", declared)
    guess = from_bytes(data[:65536]).best()
    if guess is not None and _strict(data, guess.encoding) is not None:
        return Detection(guess.encoding, "detector", declared)
    if best is not None:
        return Detection(best, "japanese", declared)
    return Detection("cp1252", "fallback", declared)


_META_CT_RE = re.compile(r"(<meta[^>]*?charset\s*=\s*[\"']?\s*)([A-Za-z0-9_.:-]+)", re.IGNORECASE)
_XML_DECL_RE = re.compile(r"(<\?xml[^>]*encoding\s*=\s*[\"'])([A-Za-z0-9_.:-]+)", re.IGNORECASE)
_HEAD_RE = re.compile(r"<head[^>]*>", re.IGNORECASE)


def rewrite_meta_charset(html: str) -> str:
    """Declare UTF-8: rewrite every charset declaration, or add one when there is none."""
    html, count = _META_CT_RE.subn(lambda m: m.group(1) + "UTF-8", html)
    html = _XML_DECL_RE.sub(lambda m: m.group(1) + "UTF-8", html)
    if count:
        return html
    head = _HEAD_RE.search(html)
    if head:
        return html[: head.end()] + '\n<meta charset="UTF-8">' + html[head.end():]
    return '<meta charset="UTF-8">\n' + html


def to_utf8(data: bytes, http_charset: str | None = None) -> tuple[str, Detection]:
    """Decode `data` to text with LF line endings and a UTF-8 meta charset."""
    det = detect_encoding(data, http_charset)
    text = data.decode(det.encoding, errors="replace")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return rewrite_meta_charset(text), det
