"""Summaries of one page, pure functions of its Markdown body: its sentences (page_sentences), the lead chosen from
them (choose_summary), or on a page made of entries, lists, tables or short lines, a summary composed from its
structure (composed_summary). Every quoted sentence is the body's own (summary_is_exact)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable

from siterag.enrich.dates import ENTRY_HEADING_RE, HARD_BREAK_RE, in_sequence, spans_days
from siterag.enrich.markdown import MD_IMAGE_RE, repeated_pictures, without_pictures
from siterag.enrich.tagterms import NAME_TITLES

SUMMARY_CHARS = 200
SUMMARY_SENTENCES = 3
_MD_LINK_RE = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)")  # a label in brackets: [[ENTER SITE]](home.htm)
_LIST_PREFIX_RE = re.compile(r"^(?:[-*+]|\d{1,3}[.)]|>)\s+")
_SENTENCE_RE = re.compile(r"[^。．！？!?]+(?:[。．！？!?]+[」』）)”\"]*)?")
_ENDS_SENTENCE_RE = re.compile(r"[。．！？.!?][」』）)”\"']*$")
_TERMINATOR_RE = re.compile(r"[。．！？.!?]")
_SPACE_RE = re.compile(r"(?:\\|<br\s*/?>)?\s+")
_EN_SPLIT_RE = re.compile(r"(?<=[a-z0-9)][.])\s+(?=[A-Z0-9\"“(])")
_ABBREVIATION_RE = re.compile(rf"(?:\b(?:{'|'.join(NAME_TITLES)}|al|etc|vs|cf|ca|approx|No|Vol|pp|Fig|Inc|Ltd|Co|Jr|Sr|"
                              r"Proc|Int|Intl|Conf|Symp|Trans|Univ|Dept|Assoc|Soc|Jpn|Jan|Feb|Mar|Apr|Jun|Jul|Aug|"
                              r"Sept?|Oct|Nov|Dec)"
                              r"|\b[A-Za-z]|\be\.g|\bi\.e)\.$")
# Markup, a link, an address: no prose. An editor's `[George Carey]` inside a sentence is prose.
_NOT_PROSE_RE = re.compile(r"[*`|\\<>{}]|\]\(|!\[|\[\]|https?:|www\.|@|\.html?\b", re.IGNORECASE)
_TIME = r"\d{1,2}[.:]\d{2}\s*(?:[ap]\.?m\.?)?\s*"  # a time of day: 8.31pm, 10:30 a.m.
_DATE_ONLY_RE = re.compile(rf"^[\d\s０-９年月日()（）/.:\-曜月火水木金土日〜~]+$"
                           rf"|^{_TIME}(?:[A-Z]{{2,4}})?\.?$")  # or a time: 8.31pm BST.
_TIME_STAMP_RE = re.compile(rf"^\s*({_TIME}(?:[A-Z]{{2,4}}\.)?)\s+(?=[A-Z])")
_NUMBERING_RE = re.compile(r"^[\d０-９]{1,3}[.．](?![\d０-９])\s*")
_EN_SENTENCE_RE = re.compile(r"^[\"'“(]?[A-Z0-9].*[.!?][\"'”)]?$")


def summary_source(markdown: str) -> str:
    """The body text a summary is cut from: Markdown links and images reduced to their labels, emphasis marks
    (`**強調**`, `*italic*`) dropped, a short label set as code read as its words (_LABEL_CODE_RE); a list's
    bullet and `2*3` stay."""
    return _LABEL_CODE_RE.sub(r"\1", _EMPHASIS_RE.sub("", _MD_LINK_RE.sub(r"\1", _MD_LINK_RE.sub(r"\1", markdown))))


# What a link says when it only points: the sentence around it tells the reader where to click.
POINTER_LABELS = frozenset("ここ こちら コチラ ココ here this".split()) | {"click here", "this link", "this page"}


def _sentence_source(line: str) -> str:
    """summary_source of a line of running text, but a link labelled with a pointer (`ここ`, `こちら`, `here`) stays
    a link: its sentence says where to click (`直リンクは「ここ」です`), and holding a link, it is never quoted. A
    short label set as code in a sentence (a command's or a button's name: ``情報を得る(I)`` コマンド) is read as
    its words."""
    return _LABEL_CODE_RE.sub(r"\1", _EMPHASIS_RE.sub("", _MD_LINK_RE.sub(
        lambda link: link.group() if link.group(1).strip().casefold() in POINTER_LABELS else link.group(1), line)))


# Inline code that names a label (a menu command, a dialog, a field), not a program: short, no code's marks.
_LABEL_CODE_RE = re.compile(r"(?<!`)`([^`;{}=<>$\\\n]{1,30})`(?!`)")


_EMPHASIS_RE = re.compile(r"(?<![A-Za-z0-9*\\])\*{1,3}(?=[^\s*])|(?<=[^\s*\\])\*{1,3}(?![A-Za-z0-9*])")


def _prose_lines(markdown: str) -> list[str]:
    """Units of running text: no headings, tables, code, rules or lines that are only links. The lines of a
    hard-wrapped paragraph (a `<br>` in the middle of a sentence) are joined, so that a sentence is whole;
    a paragraph without any sentence end (verse, a list of names) stays line by line."""
    units: list[str] = []
    paragraph: list[str] = []
    in_code = False
    for raw in markdown.splitlines():
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            in_code = not in_code
        prose = not (in_code or not line or line.startswith(("#", "|", "---", "***", "<", "```", "~~~"))
                     or not any(map(str.isalpha, _MD_LINK_RE.sub("", line))))  # not only links (a menu)
        if not prose or _LIST_PREFIX_RE.match(line) or _NUMBERING_RE.match(line):  # a list item: a unit of its own
            units += _unwrapped(paragraph)
            paragraph = []
            if not prose:
                continue
        paragraph.append(HARD_BREAK_RE.sub("", _LIST_PREFIX_RE.sub("", _sentence_source(line)).strip()))
    return units + _unwrapped(paragraph)


def _unwrapped(lines: list[str]) -> list[str]:
    """A paragraph's lines with each one that stops mid-sentence joined to the next (a space between two Latin
    characters, nothing between Japanese ones), when the paragraph ends a sentence anywhere."""
    if not any(_TERMINATOR_RE.search(line) for line in lines):
        return [line for line in lines if line]
    out: list[str] = []
    current = ""
    for line in lines:
        if not line:
            continue
        if current and not _goes_on(current):  # a label above its text (`MIDIポートの設定`): a unit of its own
            out.append(current)
            current = ""
        if current:
            current += (" " if current[-1].isascii() and line[0].isascii() else "") + line
        else:
            current = line
        if _ENDS_SENTENCE_RE.search(current):
            out.append(current)
            current = ""
    return out + ([current] if current else [])


WRAPPED_CHARS = 24  # a line cut by the page's width is at least this long; a shorter one is cut by its author
_GOES_ON_RE = re.compile(r"[、，,\u3041-\u309f\-–]$|[A-Za-z]$")  # a comma, a particle, a word: mid-sentence


def _goes_on(line: str) -> bool:
    """Whether a line without a sentence end goes on on the next line: a long one (wrapped by the page's width)
    or one ending on a comma, a kana (a particle, a verb's ending) or an English word; not a short label that
    ends on a noun or a bracket (`MIDIポートの設定`, `「MIDI IN」の設定、下が「MIDI OUT」`)."""
    return len(line) >= WRAPPED_CHARS or _GOES_ON_RE.search(line) is not None


# A line of a play's dialogue: the speaker's name, a space (or a colon), the words (`生徒 ここ。ここが演劇部の…`,
# `HAMLET: To be, or not to be`; a Latin name ends with a colon, or every English sentence would have a speaker).
_SPEAKER_RE = re.compile(r"^(?:([^\x00-\x7f\s、。，！？「」『』（）：…・]{1,10})[ 　]+|"  # 生徒 ここ。
                         r"([A-Za-z][^\s:：*_#|\\\[\]]{0,9}(?: [A-Za-z][^\s:：*_#|\\\[\]]{0,9})?)[:：][ 　]*)(?=\S)")
SCRIPT_SPEAKERS = 3  # speakers with at least two lines each...
SCRIPT_SHARE = 0.2  # ... and this share of the page's lines of text spoken: a script


def dialogue_lines(units: list[str]) -> set[int]:
    """The units (`_prose_lines`) of a script page that are spoken lines; empty when the page is not a script.
    A speaker is a name (no digits, not after a mark: `１月`, `■埼玉県` head a list's items) with two lines or
    more, most of them sentences (`投稿者 なな`, `タイトル Re: …` are a log's fields)."""
    speakers = [_speaker(unit) or None for unit in units]
    lines: dict[str, list[str]] = {}
    for name, unit in zip(speakers, units, strict=True):
        if name and name[0].isalpha() and not any(map(str.isdigit, name)):
            lines.setdefault(name, []).append(unit)
    cast = {name for name, said in lines.items()
            if len(said) >= 2 and 2 * sum(bool(_TERMINATOR_RE.search(u)) for u in said) >= len(said)}
    spoken = {i for i, name in enumerate(speakers) if name in cast}
    if len(cast) < SCRIPT_SPEAKERS or len(spoken) < SCRIPT_SHARE * len(units):
        return set()
    return spoken


def page_sentences(markdown: str) -> list[str]:
    """The body's sentences in order, each found in summary_source(markdown) character for character but for the
    line breaks of a hard-wrapped paragraph (see `squeezed`). A script's spoken lines are left out when it has
    prose besides them (stage directions, notes): a summary of a play quotes those, not a line of dialogue."""
    units = _prose_lines(markdown)
    spoken = dialogue_lines(units)
    if spoken and any(_TERMINATOR_RE.search(u) for i, u in enumerate(units) if i not in spoken):
        units = [u for i, u in enumerate(units) if i not in spoken]
    out = []
    for line in units:
        number = _NUMBERING_RE.match(line)  # `４．大気の大循環`: the stop after a number ends no sentence
        pieces = _bracketed(_SENTENCE_RE.findall(line[number.end():] if number else line))
        if number and pieces:
            pieces[0] = number.group() + pieces[0]
        pieces = _continued(pieces)
        for text in pieces:
            start = 0
            if stamp := _TIME_STAMP_RE.match(text):  # `8.31pm BST. We are back home…`: the entry's time apart
                out.append(stamp.group(1))
                start = stamp.end()
            for cut in _EN_SPLIT_RE.finditer(text, start):
                if not _ABBREVIATION_RE.search(text, 0, cut.start()):  # "et al. Nakazawa" is one sentence
                    out.append(text[start:cut.start()])
                    start = cut.end()
            out.append(text[start:])
    return [s for s in (piece.strip() for piece in out) if s]


def _continued(pieces: list[str]) -> list[str]:
    """Pieces cut at a `?` or `!` that ends a quotation inside an English sentence (`…speak on “Is God Green?”
    at the Town Hall.`) joined again: a sentence never starts with a small letter."""
    out: list[str] = []
    for piece in pieces:
        if out and piece[:1] == " " and piece[1:2].islower() and out[-1].rstrip()[-1:] in "”\"'’":
            out[-1] += piece
        else:
            out.append(piece)
    return out


_OPENERS, _CLOSING = "(（「『", ")）」』"
_QUOTE_GOES_ON_RE = re.compile(r"(?:と|って|という|、|，|は|が|を|に|も)")


def _bracketed(pieces: list[str]) -> list[str]:
    """Sentences split at their terminators, joined again where a terminator fell inside brackets
    (`グレイマップ (アンチエイリアス。各ピクセルが…表す) フォントを…。` is one sentence) or the sentence goes on
    after a quote (`「行こう。」と言った。`); where the brackets of a line never close, the pieces stay as they
    are."""
    out: list[str] = []
    pending: list[str] = []  # the pieces of a sentence whose brackets are still open
    depth = 0
    for piece in pieces:
        if out and not pending and out[-1][-1:] in _CLOSING and _QUOTE_GOES_ON_RE.match(piece):
            pending.append(out.pop())  # 「行こう。」と言った。: the quote is part of the sentence
        pending.append(piece)
        depth += sum(piece.count(c) for c in _OPENERS) - sum(piece.count(c) for c in _CLOSING)
        if depth <= 0:
            out.append("".join(pending))
            pending, depth = [], 0
    return out + pending


_KANA_RE = re.compile(r"[\u3041-\u309f\u30a1-\u30fa]")


def substantive(sentence: str, strict: bool = True) -> bool:
    """A sentence worth quoting: enough letters, mostly letters, not a date, a link or markup."""
    if len(sentence) > SUMMARY_CHARS or _NOT_PROSE_RE.search(sentence) or _DATE_ONLY_RE.match(sentence):
        return False
    letters = sum(map(str.isalpha, sentence))
    visible = len(sentence) - sum(map(str.isspace, sentence))
    if letters * 2 < visible or sentence.endswith((":", "：")):
        return False
    if not strict:
        return letters >= 4
    if not (sentence[0].isalnum() or sentence[0] in "「『（(\"“'"):  # a fragment: ': まず…', ') to …'
        return False
    if len(sentence.encode("ascii", "ignore")) * 2 < len(sentence) or _KANA_RE.search(sentence):
        return letters >= 10  # Japanese (or other non-Latin) text, however many product names in Latin letters
    # a whole English sentence, not a line of a hard-wrapped paragraph: capital start, 4+ words, final stop
    return (letters >= 10 and len(sentence.split()) >= 4 and _EN_SENTENCE_RE.match(sentence) is not None)


def quotable(sentences: list[str]) -> list[int]:
    """Per sentence: 2 when substantive, 1 when only substantive(strict=False) (strict implies the other), else 0."""
    return [2 if substantive(s) else int(substantive(s, strict=False)) for s in sentences]


def choose_summary(sentences: list[str], tags: list[str], common: set[str] = frozenset(),
                   quotes: list[int] | None = None, idf: Callable[[str], float] | None = None,
                   title: str = "", chars: int = SUMMARY_CHARS) -> str:
    """2-3 of the page's sentences chosen for how central they are (central_picks: nearest the page's centroid of
    terms, its title's among them), in page order, ≤ SUMMARY_CHARS in all, each a substantive sentence ending in a
    stop (a line without one is a heading, a name, an affiliation). A sentence that points back (`そして`,
    `このとき`, `こんな…`, `This…`, `They…`) comes only with the sentence right before it. Sentences in `common`
    (the site's template, a banner) are never chosen. Japanese sentences are joined as they are, others with a
    space. A page without such sentences gets the start of its first long sentence (cut after a comma), else its
    one best line of text (a caption), else ''. `quotes`: quotable(sentences), when already known; `idf`: a
    term's weight on this site (rarer: more telling), 1 for every term when not given; `chars`: the room
    left (SUMMARY_CHARS less a frame's, framing.page_frame)."""
    quotes = quotable(sentences) if quotes is None else quotes
    pool = _whole_sentences(sentences, quotes, common)
    if pool:
        picks = central_picks(sentences, pool, idf, title, chars)
        if picks:
            return _join([sentences[i] for i in picks])
    lines = [s for s, q in zip(sentences, quotes, strict=True) if q and s not in common]
    lines = [s for s in lines if not leans_back(s, title)] or lines
    return _clause(sentences, common, chars) or _best_window([[s] for s in lines], tags)


LEAD_WEIGHT = 0.6  # added to the first sentence's centrality (half of it to the second, a third to the third...):
# the opening is where an author most often says what the page is, unless it says little of the page's terms
SAYS_WHAT_WEIGHT = 1.0  # added to a sentence of the opening where the author says what the page is
OPENING_STATEMENTS = 5  # (says_what_page_is) among the page's first statements: further on, `ここで紹介するのは`,
# `This section includes` say what a part of the page is, `This book contains` what a book it advertises is
TITLE_WEIGHT = 2  # the title's terms count as often as this in the page's centroid


def central_picks(sentences: list[str], pool: list[int], idf: Callable[[str], float] | None = None,
                  title: str = "", chars: int = SUMMARY_CHARS) -> list[int]:
    """Indexes into `sentences` of the 2-3 most central of `pool` (in page order): the cosine of each sentence's
    term vector (sentence_terms, weighted by `idf`) with the rest of the page's (the others in `pool`, plus the
    title's), plus LEAD_WEIGHT / (1 + its rank): the opening wins unless it holds little of the page's terms (a
    greeting, a note), or unless the author says what the page is a little further on (says_what_page_is among
    the first OPENING_STATEMENTS: SAYS_WHAT_WEIGHT more); none sharing less than MIN_CENTRAL, none saying again
    what the chosen say (_said_already). A question or an aside in brackets is taken only when the page has
    nothing else. The best of them (with the
    sentence right before it when it points back: leans_back) grows into its neighbours in `pool`, the one before
    it first, while they fit SUMMARY_CHARS and say something new (a window never starts on a sentence that points
    back): one passage read in one go, never sentences spliced from far apart."""
    weight = idf or (lambda _t: 1.0)
    vectors = {i: Counter(sentence_terms(sentences[i])) for i in pool}
    page: Counter[str] = Counter()
    for v in vectors.values():
        page.update(v)
    for term in sentence_terms(title):
        page[term] += TITLE_WEIGHT
    w = {t: weight(t) for t in page}
    page_square = sum((n * w[t]) ** 2 for t, n in page.items())
    scores, central = {}, {}
    for i in pool:
        v = vectors[i]
        # the rest of the page is the page less this sentence: its terms' share of it, computed over them alone
        rest_square = page_square + sum(((page[t] - n) ** 2 - page[t] ** 2) * w[t] ** 2 for t, n in v.items())
        dot = sum(n * (page[t] - n) * w[t] ** 2 for t, n in v.items())
        norm = math.sqrt(sum((n * w[t]) ** 2 for t, n in v.items())) * math.sqrt(max(rest_square, 0.0))
        central[i] = dot / norm if norm else 0.0
    eligible = set(pool)
    chosen: set[int] = set()
    statements = _statements(sentences, pool) or pool
    says_what = set(_saying_what_page_is(sentences, statements))
    if any(central[i] >= MIN_CENTRAL for i in statements):  # one sharing none of the page's terms says nothing of it
        statements = [i for i in statements if central[i] >= MIN_CENTRAL or i in says_what]
    for rank, i in enumerate(statements):  # the opening: the first sentences that say something of the page
        scores[i] = central[i] + LEAD_WEIGHT / (1 + rank) + SAYS_WHAT_WEIGHT * (i in says_what)
    for i in sorted(statements, key=lambda k: (-scores[k], k)):  # the best place to start reading
        start = i
        if leans_back(sentences[i], title):
            start = i - 1
            if start not in eligible or leans_back(sentences[start], title):
                continue
        if len(_join(sentences[start:i + 1])) > chars:
            continue
        chosen = set(range(start, i + 1))
        break
    # then its neighbours, the one before it first (toward the opening), as the page says them: a summary read in
    # one go, never spliced from far apart; a neighbour that says again what is chosen, or does not fit, ends it
    saying = set(statements)  # before it: no greeting, question or aside; after it, the passage goes on
    plain = set(_statements(sentences, pool))
    while chosen and len(chosen) < SUMMARY_SENTENCES:
        before, after = min(chosen) - 1, max(chosen) + 1
        grown = False
        for k in (before, after):
            if k not in (saying if k == before else plain) or (k == before and leans_back(sentences[k], title)):
                continue
            if _said_already(vectors[k], [vectors[c] for c in chosen], w) or \
                    len(_join([sentences[c] for c in sorted(chosen | {k})])) > chars:
                continue
            chosen.add(k)
            grown = True
            break
        if not grown:
            break
    return sorted(chosen)


def own_word(sentences: list[str], quotes: list[int], common: set[str] = frozenset()) -> str:
    """The sentence where the page's author says what it is (says_what_page_is) among its first
    OPENING_STATEMENTS statements (quotable sentences ending in a stop, no question, no aside), else ''."""
    statements = _statements(sentences, _whole_sentences(sentences, quotes, common))
    return next((sentences[i] for i in _saying_what_page_is(sentences, statements)), "")


def _whole_sentences(sentences: list[str], quotes: list[int], common: set[str]) -> list[int]:
    """Indexes of the sentences a summary may quote: substantive (quotes: quotable), ending in a stop, not in
    `common`."""
    return [i for i, (s, q) in enumerate(zip(sentences, quotes, strict=True))
            if q == 2 and s not in common and _ENDS_SENTENCE_RE.search(s)]


def _statements(sentences: list[str], pool: list[int]) -> list[int]:
    """Of `pool`, the sentences that state: no question, no aside in brackets."""
    return [i for i in pool if not _QUESTION_RE.search(sentences[i]) and sentences[i][0] not in "(（"]


def _saying_what_page_is(sentences: list[str], statements: list[int]) -> list[int]:
    """Of the first OPENING_STATEMENTS `statements`, those where the author says what the page is."""
    return [i for i in statements[:OPENING_STATEMENTS] if says_what_page_is(sentences[i])]


MIN_CENTRAL = 0.05  # a sentence sharing less than this with the rest of the page (a greeting, thanks) is no summary
SAME_SAY = 0.6  # a sentence this near (cosine of terms) to one already chosen, with this share of its terms
# chosen already, adds nothing


def _said_already(terms: Counter[str], chosen: list[Counter[str]], w: dict[str, float]) -> bool:
    """Whether a sentence says again what the chosen ones say: near one of them (cosine ≥ SAME_SAY) and SAME_SAY of
    its distinct terms theirs. A short sentence that names the page's subject again and goes on to something new
    (`…Windows8での必須アプリが加わりました` after `Windows8を使い初めて…アプリも…`) adds that."""
    said = set().union(*chosen) if chosen else set()
    return any(_cosine(terms, c, w) >= SAME_SAY for c in chosen) and \
        sum(t in said for t in terms) >= SAME_SAY * len(terms)


def _cosine(a: Counter[str], b: Counter[str], w: dict[str, float]) -> float:
    dot = sum(n * b.get(t, 0) * w[t] ** 2 for t, n in a.items())
    norm = math.sqrt(sum((n * w[t]) ** 2 for t, n in a.items()) * sum((n * w[t]) ** 2 for t, n in b.items()))
    return dot / norm if norm else 0.0


_QUESTION_RE = re.compile(r"[？?][」』）)”\"']*$")
_TERM_RE = re.compile(r"[\u30a1-\u30fa\u30fc]{2,}|[\u3400-\u9fff々〆ヶ]{2,}|[A-Za-z][A-Za-z'’-]+[A-Za-z]|"
                      r"[Ａ-Ｚａ-ｚ]{2,}")
_EN_STOP = frozenset("""the and for are but not you all any can her was one our out day get has him his how man new now
old see two way who its let put say she too use that with have this will your from they know want been good much
some time very when come here just like long make many more only over such take than them well were what which
their there these those then into also would could should about after again because before being between both each
few most other same so own under until while where why did does doing had having itself myself yourself""".split())


def sentence_terms(sentence: str) -> list[str]:
    """The content terms of a sentence without a dictionary: katakana words, the character pairs of kanji runs
    (a compound `自然観察旅行` shares `旅行` with a sentence that has it alone) and English words (3+ letters, no
    stop word), case-folded."""
    out = []
    for term in _TERM_RE.findall(sentence):
        if _KANJI_RE.match(term):
            out += [term[i:i + 2] for i in range(len(term) - 1)]
        elif term.casefold() not in _EN_STOP:
            out.append(term.casefold())
    return out


_KANJI_RE = re.compile(r"[\u3400-\u9fff々〆ヶ]")


def leans_back(sentence: str, title: str = "") -> bool:
    """Whether a sentence opens by pointing back to what came before it: a connective (`そして`, `However`), a
    demonstrative or a pronoun (`こんな`, `その`, `This`, `They`), except one that names the page itself
    (`このページでは`, `This manual`, `ここで紹介するのは`: says_what_page_is) or a thing its title names
    (`このメニューは` on `編集メニュー`)."""
    if _LEANS_BACK_RE.match(sentence):
        return True
    if not _POINTS_BACK_RE.match(sentence) or _SELF_REFERENCE_RE.match(sentence) or says_what_page_is(sentence):
        return False
    named = _THIS_NOUN_RE.match(sentence)
    noun = named and (named.group(1) or named.group(2))
    return not (noun and len(noun) >= 2 and noun.casefold() in title.casefold())


# A sentence that opens on a connective or a word pointing back (`そして`, `更に`, `このとき`, `一方`, `And`, `However`)
# continues a thought begun before it, and one opening an aside (`全然関係無いけど`, `By the way`) leaves the page's
# subject: no place for a summary to start.
_LEANS_BACK_RE = re.compile(
    r"^(?:そして|しかし|しかも|だが|でも|なので|ですので|なのに|それなのに|と言うか|というか|また[、，]|さらに|それで|それから|それに|それでも|それは|ところが|ところで|"
    r"つまり|なお|一方|このとき|この時|その時|その後|そのため|そこで|だから|したがって|ただし|けれども|けれど|"
    r"または|あるいは|もしくは|例えば|たとえば|次に|最後に|さて|ちなみに|とはいえ|よって|むしろ|というのは|というのも|なぜなら|"
    r"更に|又[、，]|尚[、，]|但し|即ち|すなわち|従って|故に|加えて|因みに|おまけに|その上|"  # (written in kanji)
    r"ですが|だけど|けど|あっ[、，!！]|おっと|"  # a colloquial `but`; an afterthought's `oh,`
    r"(?:全然|全く|まったく)?関係(?:無|な)い(?:けど|けれど|が|です)|余談|話は変わ|"  # an aside: off the page's subject
    r"(?:And|But|So|Then|Also|However|Thus|Therefore|Moreover|Furthermore|Besides|Otherwise|Or|Instead|Hence|Yet|"
    r"Still|Finally|Next|Meanwhile|Indeed|Nevertheless|Nonetheless|Likewise|Similarly|For (?:example|instance)|"
    r"In (?:addition|fact|turn)|As a result|Of course|If (?:so|not)|By the way|Incidentally|Anyway|Oh|Oops)\b"
    r"|[のはがをにへや][、\u4e00-\u9fff])")  # a particle first: the sentence was cut after its noun (`の時、`)


# A demonstrative or a pronoun first: the sentence points at something said before it (`こんな化け物が…`,
# `その後…`, `This is…`, `They were…`), or shown above it (`上に示す例では…`, `The above…`).
_POINTS_BACK_RE = re.compile(
    r"^(?:こんな|こういう|こうした|こうして|この|その|それ|そこ|そんな|そういう|そうした|そう(?:して|いえば|すると|すれば|したら|なると|なれば)|こう(?:すると|すれば|したら)|すると|これ|ここ|"
    r"あの|あれ|あんな|彼[はがもらの女]|上記|前述|同じく?|同様|以上|右の|左の|上[にので]|"
    r"(?:This|That|These|Those|It|Its|He|She|They|Them|His|Her|Their|Such|Both|Another|Here|Later|Afterwards"
    r"|The (?:latter|former|same|above|following|previous)|(?:As|Like) (?:shown|seen|said|mentioned)"
    r" (?:above|below))\b)")
# `この` + a noun, `This` + a noun: the noun may be what the title names (`このメニューは…` under `編集メニュー`).
_THIS_NOUN_RE = re.compile(r"^(?:この|本|当)([\u30a1-\u30fa\u30fc\u3400-\u9fff]{1,8}?)(?:は|では|には|を|で|の|が|も)"
                           r"|^(?:This|These) ([A-Za-z]+?)s?\b")
# what a page calls itself (この記事は…, This chapter describes…)
_PAGE_NOUNS_JA = ("ページ|サイト|ホームページ|ＨＰ|HP|コーナー|文書|文章|記事|稿|論文|報告|章|節|"
                  "マニュアル|ドキュメント|ブログ|日記|本|発表|講演|研究|プロジェクト")
_PAGE_NOUNS_EN = ("page|site|website|web site|document|manual|chapter|section|article|book|booklet|guide|paper|"
                  "report|essay|diary|collection|list|tutorial|program|software|package|dialog|window|command|"
                  "presentation|talk|lecture|study|project|thesis")
# ... unless what it points at is the page itself: `このページでは…`, `This manual describes…`.
_SELF_REFERENCE_RE = re.compile(
    rf"^(?:(?:この|本|当)(?:{_PAGE_NOUNS_JA})"
    r"|ここ(?:では|には)|Here (?:you|I|we)\b|On this (?:page|site)\b"  # `ここでは…`: here, on this page
    rf"|(?:This|These) (?:{_PAGE_NOUNS_EN})s?\b)")


def says_what_page_is(sentence: str) -> bool:
    """Whether the author says here what the page (the text, the chapter, the site) is or does: a sentence whose
    subject is the page itself or `here` (`このページは`, `本章では`, `ここに書いてある文書は`, `ここで紹介するのは`,
    `This chapter describes`, `This book contains`) and whose verb presents (紹介, 説明, 述べ, 報告, …のページです;
    describes, contains, lists) — not `ここでは鳥の数は多い` (here: at a place), not `This document was generated`."""
    return bool(_PAGE_SUBJECT_JA_RE.match(sentence) and _PRESENTS_JA_RE.search(sentence)
                or _PAGE_SUBJECT_EN_RE.match(sentence))


_PAGE_SUBJECT_JA_RE = re.compile(rf"^(?:(?:この|本|当)(?:{_PAGE_NOUNS_JA})(?:で|に)?は|"
                                 r"ここ(?:で|に)(?!の)(?:は|[^。、，,]{0,16}?(?:は|のは|では|には)))")
_PRESENTS_JA_RE = re.compile(rf"紹介|説明|解説|掲載|載せ|まとめ|綴|報告|述べ|提案|取り上げ|記録|"
                             rf"(?:{_PAGE_NOUNS_JA}|もの)(?:です|である|だ)[。！]?$")
_PAGE_SUBJECT_EN_RE = re.compile(
    rf"^(?:(?:This|These|The present) (?:{_PAGE_NOUNS_EN})s? "
    r"(?:describes?|contains?|lists?|covers?|presents?|addresse?s?|proposes?|examines?|explores?|reports?|"
    r"outlines?|focus(?:es)? on|"
    r"gives?|shows?|explains?|tells?|collects?|records?|features?|includes?|introduces?|discusses?|deals?|is about|"
    r"are about|is (?:a|an|the|my|our|devoted|dedicated))\b|(?:On|In) this (?:page|site|article|chapter|section|"
    r"book|paper)\b[^.]{0,40}\b(?:describe|present|list|explain|show|discuss|introduce|collect|cover|look at|find))")


def _best_window(windows: list[list[str]], tags: list[str]) -> str:
    """The window holding the most tags plus sentences, earliest on a tie, joined."""
    best: tuple[int, int] = (-1, 0)
    chosen: list[str] = []
    held: dict[str, int] = {}  # sentence -> the tags in it, one bit each
    for n, window in enumerate(windows):
        bits = 0
        for s in window:
            if s not in held:
                held[s] = sum(1 << i for i, t in enumerate(tags) if t in s)
            bits |= held[s]
        score = (bin(bits).count("1") + len(window), -n)
        if window and score > best:
            best, chosen = score, window
    return _join(chosen)


def _clause(sentences: list[str], common: set[str], chars: int = SUMMARY_CHARS) -> str:
    """The start of the first long prose sentence, cut after a comma (、，,) or space within `chars`."""
    for sentence in sentences:
        head = sentence[:chars]
        cut = max(head.rfind(mark) for mark in ("、", "，", ", ", " "))
        if sentence in common or len(sentence) <= chars or cut < 20:
            continue
        head = head[:cut + 1].rstrip(" ,")
        if substantive(head):
            return head
    return ""


def _join(sentences: list[str]) -> str:
    out = ""
    for s in sentences:
        out += s if not out or out[-1] in "。．！？」』）" else " " + s
    return out


def squeezed(text: str) -> str:
    """Text without its whitespace and hard-break marks: how a summary's sentence is found in the body, whose
    hard-wrapped lines page_sentences joined."""
    return _SPACE_RE.sub("", text)


def summary_is_exact(summary: str, markdown: str) -> bool:
    """Whether `summary` is whole sentences of the body, each a substring of summary_source(markdown) character
    for character but for whitespace and hard breaks (`squeezed`), joined as choose_summary joins them (nothing
    or one space between)."""
    source = squeezed(summary_source(markdown))
    ends = {0, len(summary)} | {i + 1 for i, ch in enumerate(summary) if ch in "。．！？.!?」』）\"”"} \
        | {i for i, ch in enumerate(summary) if ch == " "}
    ok = [False] * (len(summary) + 1)  # ok[i]: summary[:i] is such a sequence
    ok[0] = True
    for end in sorted(ends - {0}):
        for start in sorted(e for e in ends if e < end and ok[e]):
            piece = summary[start + 1 if start and summary[start:start + 1] == " " else start:end]
            if piece and squeezed(piece) in source:
                ok[end] = True
                break
    return ok[-1]


_EN_MONTHS = ("january february march april may june july august september october november december "
              "monday tuesday wednesday thursday friday saturday sunday").split()
_JA_CHARS_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
_DURATION_RE = re.compile(r"(?<![\d:])\d{1,2}[:：]\d\d(?![\d:])")
# A track's length as a track list writes it: a cell of its own (`06:06`) or the end of an item (`Song (4:05)`), not
# a time or a verse inside a sentence or a reference (`Isaiah 11:12–13`, `” 7:2, 15`)
_DURATION_CELL_RE = re.compile(r"[(（\[]?\d{1,2}[:：]\d\d[)）\]]?")
_DURATION_END_RE = re.compile(r"(?<![\d:])[(（\[]?\d{1,2}[:：]\d\d[)）\]]?\s*$")
_ITEM_RE = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(.+)$")
_DATE_WORDS_RE = re.compile(r"^(?:[\d０-９]+(?:st|nd|rd|th)?(?![A-Za-z])|"
                            r"[年月日曜時分秒()（）,.:：\-/〜~\s■□◆◇●○◎・★☆]|(?:"
                            + "|".join(_EN_MONTHS) + r")\b)+", re.IGNORECASE)  # a date at a heading's start
LIST_SHOWN = 3  # entry or item titles quoted in a composed summary
ITEM_CHARS = 40  # a longer list item is prose, not an entry of a list


def _is_ja(text: str) -> bool:
    letters = sum(map(str.isalpha, text))
    return letters > 0 and len(_JA_CHARS_RE.findall(text)) * 5 >= letters


def _quoted(items: list[str], ja: bool) -> str:
    """The first LIST_SHOWN items, then `ほか` or `…`; all of them when one more is all there is (`ほか` would
    hide less than it says); a title said again once (`九州 / 九州 / 九州`)."""
    items = list(dict.fromkeys(items))
    shown = [_clip(x) for x in items[:LIST_SHOWN + (len(items) == LIST_SHOWN + 1)]]
    more = len(items) > len(shown)
    if ja:
        return " / ".join(shown) + (" ほか" if more else "")
    return " / ".join(shown) + (" …" if more else "")


def _clip(text: str, chars: int = ITEM_CHARS) -> str:
    """`text` cut to `chars` with `…`; between words where the cut would fall inside a Latin word (`150mm heig…`
    -> `150mm…`), when that keeps half of it."""
    if len(text) <= chars:
        return text
    cut = text[:chars - 1]
    if text[chars - 2:chars].isascii() and text[chars - 2:chars].isalnum() and (space := cut.rfind(" ")) * 2 >= chars:
        cut = cut[:space]
    return cut.rstrip(" ,;:-–—") + "…"


def _structure(body: str) -> dict:
    """The body's structural facts: entries (title, date), list items, table rows (cells), link lines (and how
    many point off the site), short lines of text without a stop, numbered lines (`４．大気の大循環`), pictures
    and their alt texts, lines of text, and the short lines' stanzas (runs between blank lines)."""
    body = without_pictures(body, repeated_pictures(body))  # bullets and rules are no pictures of the page
    entries = [(_TIME_BITS_RE.sub("", _DATE_WORDS_RE.sub("", _MARKS_RE.sub("", summary_source(t)))).strip(" :-—•・"),
                d, t) for t, d in ((m["heading"], m["date"]) for m in ENTRY_HEADING_RE.finditer(body))]
    items, rows, links, short, numbered, alts = [], [], [], [], [], []
    text = external = images = stanzas = in_cells = 0
    header: list[str] = []
    heading = table_heading = ""  # the last heading, the one above the first table
    captions: list[str] = []  # the text cells of a table with rows of pictures
    under: list[str] = []  # short lines right under a run of pictures, one a picture: their captions
    pending = 0  # pictures of the last run not captioned yet
    in_code = gap = False
    terms: list[str] = []  # the terms of a definition list: a line in bold alone, its definition under it
    described: list[str] = []  # their definitions
    term = ""
    for raw in body.splitlines():
        line = raw.strip()
        if term and line.startswith(": "):
            terms.append(term)
            described.append(" ".join(summary_source(line[2:]).split()))
        term = " ".join(summary_source(line[2:-2]).split()) if _TERM_LINE_RE.match(line) else ""
        if line.startswith(("```", "~~~")):
            in_code = not in_code
        if not line:
            gap = True
        if line.startswith("#") and not in_code:
            heading = " ".join(_MARKS_RE.sub("", summary_source(line.lstrip("#"))).split())
        if in_code or not line or line.startswith("#"):
            continue
        if line.startswith("|"):
            table_heading = table_heading if header else heading
            cells = [_plain_cell(c) for c in line.strip("|").split("|")]
            if set(line) <= set("|-: "):
                continue
            pictures = len(_MD_IMAGE_ALT_RE.findall(line))
            in_cells += pictures
            if not pictures:
                captions += [" ".join(_BR_RE.sub(" ", c).split()) for c in cells if sum(map(str.isalpha, c)) >= 2]
            (rows if header else header).extend([cells] if header else cells)
            continue
        shown = len(_MD_IMAGE_ALT_RE.findall(line))
        for picture in _MD_IMAGE_ALT_RE.finditer(line):  # its alt text, else its title (a tooltip caption)
            images += 1
            alt = picture[1] if sum(map(str.isalpha, picture[1])) >= 2 else picture[2] or ""
            if sum(map(str.isalpha, alt)) >= 2 and not _FILE_NAME_RE.search(alt):
                alts.append(alt.strip())
        plain = " ".join(HARD_BREAK_RE.sub("", summary_source(MD_IMAGE_RE.sub("", line))).split()).strip("*_ ")
        if shown:  # a line of pictures only adds to the run; one with text beside them ends it
            pending = 0 if plain else pending + shown
        if not plain:
            continue
        if not shown and pending and len(plain) <= ITEM_CHARS and not _TERMINATOR_RE.search(plain) \
                and not _worded_link(line):
            under.append(plain)
            pending -= 1
        elif not shown:
            pending = 0  # (a sentence, a link: no caption, and the run is over)
        text += 1
        item = _ITEM_RE.match(line)
        if item:
            items.append(" ".join(summary_source(item.group(1)).strip("*_ ").split()))
        if _NUMBERED_RE.match(plain) and len(plain) <= ITEM_CHARS:
            numbered.append(plain)
        if _worded_link(line) and len(_MD_LINK_RE.sub("", line).strip(" -*・|/、,")) < 20:
            links.append(_LIST_PREFIX_RE.sub("", plain))
            external += bool(_EXTERNAL_RE.search(line))
        elif not item and len(plain) <= ITEM_CHARS and not _TERMINATOR_RE.search(plain):
            stanzas += gap or not short
            short.append(plain)
        gap = False
    if in_cells > text:  # pictures laid out in a table, captions in the rows between: a gallery (kinds.structure)
        images, alts = images + in_cells, alts + captions
    return {"entries": entries, "items": items, "header": header, "rows": rows, "table_heading": table_heading,
            "links": links, "short": short,
            "text": text, "external": external, "numbered": numbered, "images": images, "alts": alts,
            "stanzas": stanzas, "under": under, "terms": terms, "described": described}


def _worded_link(line: str) -> bool:
    """Whether a line holds a link with words (not a picture button alone, whose line's text is no link's)."""
    return any(sum(map(str.isalpha, summary_source(MD_IMAGE_RE.sub("", label)))) for label in _MD_LINK_RE.findall(line))


_MARKS_RE = re.compile(r"[*_`]")
_TERM_LINE_RE = re.compile(r"^\*\*[^*]{1,60}\*\*$")  # `**次のグリフ(N)**`, a definition list's term
_BR_RE = re.compile(r"<br\s*/?>", re.IGNORECASE)
# What is left of a date in an entry's heading past its start: a weekday, a time, a date's end (`土)～12月29日(火)`,
# `火曜日 16時05分22秒`): no title of the entry.
_TIME_BITS_RE = re.compile(r"[(（][月火水木金土日](?:曜日?)?[)）]|[月火水木金土日]曜日|"
                           r"[\d０-９]+時(?:[\d０-９]+分)?(?:[\d０-９]+秒)?|[\d０-９]+[年月日]|^[月火水木金土日][)）]|[～〜~]|[\d０-９]{1,2}:[\d０-９]{2}(?::[\d０-９]{2})?")
_MD_IMAGE_ALT_RE = re.compile(r'!\[([^\]]*)\]\([^)\s]*(?:\s+"([^"]*)")?[^)]*\)')
_FILE_NAME_RE = re.compile(r"\.(?:jpe?g|gif|png|bmp)\b|^(?:image|img|photo|pic|dsc|p)[\d_ -]*$", re.IGNORECASE)
_EXTERNAL_RE = re.compile(r"\]\((?:https?:)?//", re.IGNORECASE)
# A numbered heading of a contents list: `４．大気の大循環`, `第3章 風`, `Chapter 2`, `2.1 Winds`.
_NUMBERED_RE = re.compile(r"^(?:第?[\d０-９一二三四五六七八九十]+(?:[.．、)）章節部話回]|\s)|[IVX]+\.\s|"
                          r"(?:Chapter|Part|Section)\s+\w+)", re.IGNORECASE)


def _plain_cell(cell: str) -> str:
    return " ".join(summary_source(MD_IMAGE_RE.sub("", cell)).strip("*_ ").split())


COMPOSE_ITEMS = 4  # a list, table or link list of at least this many entries makes a composed summary
VERSE_LINES = 8  # short lines without a stop, at least this many and most of the text: verse, lyrics, a roster
STANZA_LINES = 1.5  # verse runs its lines together: fewer than this many per stanza (a blank line between most
# lines) is a list of separate items, not verse
PHOTOS = 4  # at least this many pictures, with fewer lines of text than pictures: a photo page
_EN_MONTH_ABBR = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


def date_range(first: str, last: str, ja: bool) -> str:
    """Two ISO dates (YYYY, YYYY-MM or YYYY-MM-DD) as a reader writes the span: `2003年9月–12月`,
    `2003年9月3日–28日`, `3 Jan – 28 Feb 1940`, `1–31 Mar 1952`, `Jan 1939 – Feb 1940`; one date when both are
    the same."""
    a, b = [tuple(int(x) for x in d.split("-")) for d in (first, last)]

    def ja_part(d: tuple, year: bool, month: bool = True) -> str:
        out = f"{d[0]}年" if year else ""
        out += f"{d[1]}月" if len(d) > 1 and month else ""
        return out + (f"{d[2]}日" if len(d) > 2 else "")

    def en_part(d: tuple, year: bool) -> str:
        out = " ".join(([str(d[2])] if len(d) > 2 else []) + ([_EN_MONTH_ABBR[d[1] - 1]] if len(d) > 1 else []))
        return (out + (f" {d[0]}" if year else "")).strip()

    if a == b:
        return ja_part(a, True) if ja else en_part(a, True)
    if ja:
        if a[0] != b[0] or len(a) < 2 or len(b) < 2:
            return f"{ja_part(a[:2], True)}–{ja_part(b[:2], True)}"
        if a[1] == b[1] and len(a) > 2 and len(b) > 2:
            return f"{ja_part(a, True)}–{b[2]}日"
        return f"{ja_part(a[:2], True)}–{ja_part(b[:2], False)}"
    if a[0] != b[0] or len(a) < 2 or len(b) < 2:
        return f"{en_part(a, True)} – {en_part(b, True)}"
    if a[1] == b[1] and len(a) > 2 and len(b) > 2:
        return f"{a[2]}–{en_part(b, True)}"
    return f"{en_part(a, False)} – {en_part(b, True)}"


_BREAK_RE = re.compile(r"<br\s*/?>", re.IGNORECASE)


def lines_summary(body: str, ja: bool | None = None) -> str:
    """The last resort for a page with no sentence, list or entries to summarise (a line under image buttons,
    a single link): its own lines of text as they are, links and images reduced to their words (a table's row to
    its cells' words), joined by ` / `
    up to SUMMARY_CHARS; a page of pictures alone says how many (`画像 3枚`, `3 images`: in the body's language,
    or Japanese when `ja`); else ''."""
    lines, images = [], 0
    for raw in without_pictures(body, repeated_pictures(body)).splitlines():
        images += len(MD_IMAGE_RE.findall(raw))
        raw = _BREAK_RE.sub(" ", raw)  # a cell's line breaks
        if raw.lstrip().startswith("|"):  # a table's row: its cells' words, not its pipes
            raw = " ".join(cell for cell in (_plain_cell(c) for c in raw.strip().strip("|").split("|")) if cell)
        text = " ".join(_EMPHASIS_RE.sub("", summary_source(MD_IMAGE_RE.sub("", raw))).split()).strip(" #>-*|\\")
        letters = sum(map(str.isalpha, text))
        if letters >= 2 and letters * 2 >= len(text.replace(" ", "")) and text not in lines:  # no ―￣―＿ rules
            lines.append(text)
    if lines:
        out = lines[0]
        for line in lines[1:]:
            if len(out) + 3 + len(line) > SUMMARY_CHARS:
                break
            out += " / " + line
        return _clip(out, SUMMARY_CHARS)
    if images:
        return f"画像 {images}枚" if (_is_ja(body) if ja is None else ja) else f"{images} image{'s' * (images > 1)}"
    return ""


def composed_summary(body: str, title: str, lead: str = "", topics: list[str] = (), kind: str = "",
                     series: str = "") -> str:
    """_composed's summary, cut to SUMMARY_CHARS (a long title and long entry titles together may pass it)."""
    return _clip(_composed(body, title, lead, topics, kind, series), SUMMARY_CHARS)


# The words that name a run of dated entries, in a title's part that names the series (entry_series)
_SERIES_WORDS_RE = re.compile(r"\b(?:diary|diaries|journal|blog|weblog|log)\b|日記|日誌|ブログ|雑記帳", re.IGNORECASE)
_TITLE_PART_SPLIT_RE = re.compile(r"\s+[-–—|｜:：/／~～>＞»]+\s+|\s*[|｜]\s*")
SERIES_CHARS = 60


def entry_series(*titles: str) -> str:
    """What a page of dated entries belongs to, where one of its titles (its own, its <title>) has a part that
    names it: the part its separators set off (`1949 January — Diary of a Birmingham schoolboy`, `The Build Diary`)
    that holds a word for a run of entries (diary, journal, blog, 日記, ブログ) and more than that word, no figure
    and no more than SERIES_CHARS characters. ''  where none does: the summary says `Diary`."""
    for title in titles:
        for part in _TITLE_PART_SPLIT_RE.split(title or ""):
            part = part.strip(" -–—|｜:：")
            word = _SERIES_WORDS_RE.search(part)
            if word and word.group() != part and len(part) <= SERIES_CHARS and not re.search(r"\d", part):
                return part
    return ""


# What a page of dated entries is called by its kind (kinds.ENTRY_KINDS); a diary otherwise.
ENTRY_LABELS = {"bbs": ("掲示板", "BBS or guestbook"), "news": ("お知らせ", "News"), "report": ("レポート", "Report"),
                "event": ("イベント", "Events"),
                "photos": ("写真", "Photos")}


def _composed(body: str, title: str, lead: str = "", topics: list[str] = (), kind: str = "",
              series: str = "") -> str:
    """A summary composed from the page's structure, in the page's language, when its text is not prose led by
    a paragraph: entries (`日記 2003年9月–12月、12件: A / B / C ほか`, `Diary, 3 entries, 1 – 31 Mar 1952: A / B`),
    a track list (rows or items with a duration: `Track list of T: 12 titles, from 'A' to 'B'.`), a table of
    contents (numbered lines, or links within the site: `目次、15項目: A / B / C ほか`), a link list (`リンク集、
    40件: A / B / C ほか`), a list or table (`T: list of 12 items: A / B / C …`), pictures (`写真 12枚: A / B …`
    on a photos page, else `画像`), or verse (`T: 詩・歌詞 24行（4連）、「A」で始まる。`). Only the page's own
    facts: counts, dates, the titles of entries, items, rows, pictures; a diary whose entries have no titles names
    `topics` (terms of its text, when given), else its pictures' captions. `series`: what the entries are, named
    by a title (entry_series: `Diary of a Birmingham schoolboy, 31 entries, …`), said instead of `Diary`. ''
    when the page is prose, or `lead` (the chosen lead) comes from a paragraph of its own and the page is no list
    of entries (a link list under an introduction keeps the introduction)."""
    st = _structure(body)
    ja = _is_ja(summary_source(MD_IMAGE_RE.sub("", body)))  # the text's language, not its link targets
    name = title.strip()
    entries = st["entries"]
    said = overview(body) if len(entries) >= 3 else ""  # (a first heading over two days' or more)
    if said:  # what the days under it are about, not one of them
        entries = entries[1:]
    if len(entries) >= 2:
        dates = sorted(in_sequence([d for _, d, _ in entries]))  # a slip of a year is no span
        titled = [t for t, _, _ in entries if sum(map(str.isalpha, t)) >= 2]
        if len(titled) * 2 < len(entries):  # headings that are dates only: the topics under them, if any
            titled = _topics(body, name)
        span = date_range(dates[0], dates[-1], ja)
        label = series or ENTRY_LABELS.get(kind, ("日記", "Diary"))[0 if ja else 1]  # `kind`: the page's (kinds)
        # no titles, or one running feature (`Korean Diary`): then what the text names besides
        named = [t for t in topics if not any(t.casefold() in x.casefold() for x in titled)] if len(titled) < 2 else []
        if not titled and not named and len(st["alts"]) >= 2:  # a build log of photographs: what they show
            titled = list(dict.fromkeys(st["alts"]))
        named = [t for t in named if t not in said]
        shown = f": {_quoted(titled, ja)}" if titled else ""
        if ja:
            shown = f"{shown.rstrip('。')}。話題: {'、'.join(named)}" if named else shown
            return f"{label} {span}、{len(entries)}件" + (f"。{said}{shown.lstrip(':。 ')}" if said else shown)
        shown = f"{shown.rstrip('.')}; mentions {', '.join(named)}" if named else shown
        return f"{label}, {len(entries)} entries, {span}" + (f". {said} {shown.lstrip(':; ')}".rstrip() if said
                                                               else f"{shown}.")
    rows = st["rows"]
    tracks = [r[0] for r in rows if any(_DURATION_CELL_RE.fullmatch(c.strip()) for c in r[1:]) and r[0]] or [
        _DURATION_RE.sub("", i).strip(" -–—()（）") for i in st["items"] if _DURATION_END_RE.search(i)]
    if len(tracks) >= 3:
        if ja:
            return f"「{name}」の曲目: {len(tracks)}曲、「{_clip(tracks[0])}」から「{_clip(tracks[-1])}」まで。"
        return f"Track list of {name}: {len(tracks)} titles, from '{_clip(tracks[0])}' to '{_clip(tracks[-1])}'."
    fields = _field_lines(body)
    if len(fields) >= COMPOSE_ITEMS:  # a sheet of fields: what each says, not the note above them
        named = name and squeezed(fields[0].split(": ", 1)[0]) != squeezed(name)  # (a photo's caption: its title)
        return f"{name}: {_quoted(fields, ja)}" if named else _quoted(fields, ja)
    listing = _listing(body)
    if listing:  # a program's source shown as the page: what it declares, not its licence comment
        lines, declared = listing
        shown = f": {_quoted(declared, True)}" if declared else ""
        return f"{name}: ソースコード {lines}行{shown}" if _is_ja(name) else \
            f"{name}: source code, {lines} lines{shown.replace(' ほか', ' …')}."
    prose_lead = bool(lead) and not _lead_from_structure(lead, st)
    terms = st["terms"]  # a glossary, a menu's commands explained: by its terms, unless its opening says what it is
    if len(terms) >= COMPOSE_ITEMS and 3 * len(terms) >= st["text"] and not (prose_lead and _opening(lead, body)):
        return f"{name}: {len(terms)}項目の説明: {_quoted(terms, ja)}" if ja else \
            f"{name}: {len(terms)} terms explained: {_quoted(terms, ja)}."
    if prose_lead:
        return ""
    links, items, short, numbered = st["links"], st["items"], st["short"], st["numbered"]
    label = f"{name}: " if name else ""
    if len(numbered) >= COMPOSE_ITEMS and len(numbered) * 2 >= st["text"]:
        return f"{_kind_label(name, '目次')}、{len(numbered)}項目: {_quoted(numbered, ja)}" if ja else \
            f"{label}contents, {len(numbered)} headings: {_quoted(numbered, ja)}."
    if len(links) >= COMPOSE_ITEMS and len(links) * 2 >= st["text"]:
        if st["external"] * 2 < len(links):  # links within the site: its contents, a menu
            return f"{_kind_label(name, '目次')}、{len(links)}項目: {_quoted(links, ja)}" if ja else \
                f"{label}contents, {len(links)} links: {_quoted(links, ja)}."
        return f"リンク集、{len(links)}件: {_quoted(links, ja)}" if ja else \
            f"{label}list of {len(links)} links: {_quoted(links, ja)}."
    if len(rows) >= COMPOSE_ITEMS and len(rows) >= st["text"]:
        key = _named_column(rows)  # rows numbered in their first cells are named in the next
        columns = " / ".join(_clip(h, 20) for h in st["header"][key:] if h)
        firsts = _fields(rows) or [r[key] for r in rows if len(r) > key and r[key]]
        own = st["table_heading"]  # the heading above the table says what its rows are (THE BRITISH EMPIRE IN 1921)
        if own and squeezed(own) not in squeezed(name) and sum(map(str.isalpha, own)) >= 3:
            label = f"{name} — {own}: " if name else f"{own}: "
        if ja:
            return f"{label}表、{len(rows)}行" + (f"（列: {columns}）" if columns else "") + \
                (f": {_quoted(firsts, ja)}" if firsts else "")
        return f"{label}table of {len(rows)} rows" + (f" (columns: {columns})" if columns else "") + \
            (f": {_quoted(firsts, ja)}." if firsts else ".")
    if len(items) >= COMPOSE_ITEMS and len(items) * 2 >= st["text"] \
            and not (_prose_items(items) and len(items) < 2 * COMPOSE_ITEMS):  # a few sentences set as a list: prose
        return f"{label}{len(items)}項目の一覧: {_quoted(items, ja)}" if ja else \
            f"{label}list of {len(items)} items: {_quoted(items, ja)}."
    under = st["under"] if len(st["under"]) >= 2 else []  # (one short line under a picture may be anything)
    if st["images"] >= PHOTOS and st["text"] - len(under) < st["images"]:  # captions under rows of pictures
        captions = st["alts"] or list(dict.fromkeys(under)) or short  # are no text of their own
        shown = f": {_quoted(captions, ja)}" if captions else ""
        word = "写真" if kind == "photos" else "画像"  # a demo's frames, a scan: pictures, not photographs
        return f"{label}{word} {st['images']}枚{shown}" if ja else f"{label}{st['images']} pictures{shown}."
    if len(short) >= VERSE_LINES and len(short) * 3 >= st["text"] * 2 \
            and (not lead or any(squeezed(lead) in squeezed(x) for x in short)):  # no lead of a paragraph's
        if not _verse(short) or st["stanzas"] * STANZA_LINES > len(short):  # names, titles, labels: a roster, a menu,
            # a setlist; or lines each set apart (a programme's sessions, a specification's requirements)
            return f"{label}{len(short)}行の一覧: {_quoted(short, ja)}" if ja else \
                f"{label}list of {len(short)} lines: {_quoted(short, ja)}."
        stanzas = st["stanzas"]
        if ja:
            parts = f"{len(short)}行" + (f"（{stanzas}連）" if stanzas > 1 else "")
            return f"{label}詩・歌詞など {parts}、「{_clip(short[0])}」で始まる。"
        parts = f"{len(short)} lines" + (f" in {stanzas} stanzas" if stanzas > 1 else "")
        return f"{label}verse or lyrics, {parts}, beginning '{_clip(short[0])}'."
    return ""


OVERVIEW_CHARS = 160  # an overview says what the days under it are in a sentence or two


def overview(body: str) -> str:
    """The text under a page's first dated heading when that heading spans days (`2001年11月13日(火)～14日(水)`)
    and two or more dated headings follow within them: the trip's or the week's own word on what its days hold
    (`日光 小倉山森林公園～雲竜渓谷～戦場ヶ原。ヤマドリの家族そしてアオシギとの出会い。`), no entry of its own;
    '' when there is none, or it is longer than OVERVIEW_CHARS or holds no sentence."""
    found = list(ENTRY_HEADING_RE.finditer(body))
    if len(found) < 3 or not spans_days(found[0]["heading"]):
        return ""
    if any(m["date"] < found[0]["date"] for m in found[1:]):
        return ""
    text = " ".join(HARD_BREAK_RE.sub("", summary_source(MD_IMAGE_RE.sub("", body[found[0].end():found[1].start()])))
                    .split()).strip("*_ ")
    return text if len(text) <= OVERVIEW_CHARS and _ENDS_SENTENCE_RE.search(text) else ""


FIELD_CHARS = 16  # a field's name in a table of fields and their values is this short (`CPU`, `日時：`)
FIELD_SHARE = 0.8  # of the rows, this share or more a name and a value


def _fields(rows: list[list[str]]) -> list[str]:
    """A table of fields and their values (two cells a row, the first a short name: a PC's parts, a meeting's
    `日時：` and `場所：`, a profile) as `name: value` items (`CPU: Intel Core2 Duo E8200 2.66GHz`); [] for any
    other table."""
    pairs = [[c for c in r if c] for r in rows]
    named = [p for p in pairs if len(p) == 2 and len(p[0]) <= FIELD_CHARS and sum(map(str.isalpha, p[0])) >= 1]
    if len(named) < FIELD_SHARE * len(rows) or len({p[0] for p in named}) < len(named):
        return []
    return [f"{p[0].strip().rstrip(':：').strip()}: {p[1]}" for p in named]


FIELD_VALUE_CHARS = 100  # ... and half the values this short (`98kg.`, `About 20 mph.`): no subheads' paragraphs
FIELD_LINES_SHARE = 0.6  # the pairs make this share of the page's lines of text


def _field_lines(body: str) -> list[str]:
    """A table flattened into lines, each field's name on a line of its own and its value on the next
    (`Weight` / `98kg.`, a robot's specifications; a profile's `Birth Date` / `November 2, 1976`), as `name:
    value` items when such pairs make most of the page's lines of text, half the values are short and the names
    differ (not a chat log's speakers); [] otherwise."""
    lines: list[str] = []  # its paragraphs; '' for a heading, a list item, code, a link: no name nor value
    other = 0  # lines of text that are no paragraph: table rows, list items, links
    gap = True
    for raw in body.splitlines():
        line = raw.strip()
        if not line:
            gap = True
            continue
        text = " ".join(HARD_BREAK_RE.sub("", summary_source(MD_IMAGE_RE.sub("", line))).split()).strip("*_ ")
        if line.startswith(("#", "|", "```", "~~~")) or _LIST_PREFIX_RE.match(line) or "](" in line or not text:
            other += bool(text) and not line.startswith(("#", "```", "~~~")) and not set(line) <= set("|-: ")
            lines.append("")
        elif gap or not lines or not lines[-1]:
            lines.append(re.sub(r"^[:：]\s*", "", text))  # a definition list's `: …`
        else:
            lines[-1] += " " + text  # a paragraph's next line
        gap = False
    pairs, n = [], 0
    while n + 1 < len(lines):
        name, value = lines[n], lines[n + 1]
        if name and value and _field_name(name) and not _field_name(value):
            pairs.append((name.rstrip(":："), value))
            n += 2
        else:
            n += 1
    text_lines = sum(map(bool, lines)) + other  # (a table of the page's own counts: the pairs are a part of it)
    short = sum(len(v) <= FIELD_VALUE_CHARS for _, v in pairs)
    if len(pairs) * 2 < FIELD_LINES_SHARE * text_lines or short * 2 < len(pairs) \
            or len({k for k, _ in pairs}) < FIELD_SHARE * len(pairs):  # names said again: speakers, a log
        return []
    return [f"{k}: {v}" for k, v in pairs]


def _field_name(line: str) -> bool:
    """A field's name: a word or three, no sentence end, no digit (`Weight`, `Self Righting Mechanism`); in
    Japanese one word, no space (`日時`; not a speaker's `和歌山大学システム工学部 石黒浩`)."""
    words = 1 if _JA_CHARS_RE.search(line) else 3
    return (len(line) <= FIELD_CHARS * 2 and len(line.split()) <= words and not _TERMINATOR_RE.search(line)
            and not re.search(r"\d", line) and sum(map(str.isalpha, line)) >= 2)


def _named_column(rows: list[list[str]]) -> int:
    """The first column of a table whose cells are words in most rows (not a column of numbers: `1`, `2`)."""
    width = max(len(r) for r in rows)
    for n in range(width):
        cells = [r[n] for r in rows if len(r) > n and r[n]]
        if cells and sum(sum(map(str.isalpha, c)) >= 2 for c in cells) * 2 >= len(cells):
            return n
    return 0


def _kind_label(name: str, kind: str) -> str:
    """`name: kind`, or the name alone when it says the kind already (`生きものがたり目次`)."""
    return name if kind in name else f"{name}: {kind}" if name else kind


def _prose_items(items: list[str]) -> bool:
    """Whether a list's items are mostly sentences (ending in a stop): paragraphs set as a list, not entries."""
    return sum(bool(_ENDS_SENTENCE_RE.search(i)) and len(i) > ITEM_CHARS // 2 for i in items) * 2 > len(items)


_HIRAGANA_RUN_RE = re.compile(r"[\u3041-\u309f]{2}")


LISTING_LINES = 20  # a page this many lines of code or more, and little else, is a program's source
LISTING_SHARE = 0.8
_DECLARED_RE = re.compile(r"^\s*(?:typedef\s+)?(?:(?:struct|class|enum|union|interface)\s+([A-Za-z_]\w{2,})\s*"
                          r"(?:\{|:|$)|(?:def|function|sub)\s+([A-Za-z_]\w{2,})\s*\()", re.MULTILINE)
CODE_SHARE = 0.3  # a program's lines end in `;`, `{`, `}` or are directives and statements, a third of them at least
_CODE_END_RE = re.compile(r"[;{}]\s*(?:/\*.*\*/|//.*)?$|^\s*#\s*(?:include|define|if|endif)\b|"
                          r"^\s*(?:return|if|for|while|else)\b")
_TYPEDEF_NAME_RE = re.compile(r"^\}\s*([A-Za-z_]\w{2,})\s*;", re.MULTILINE)  # `} CharView;`: a C type's name


def _listing(body: str) -> tuple[int, list[str]] | None:
    """(lines of code, the names it declares: C types, else structs, classes, functions) of a page that is a program's
    source shown in a code block (LISTING_SHARE of its lines or more, at least LISTING_LINES), else None."""
    code, other, fenced = [], 0, False
    for line in body.splitlines():
        if line.strip().startswith(("```", "~~~")):
            fenced = not fenced
        elif fenced and line.strip():
            code.append(line)
        elif line.strip():
            other += 1
    if len(code) < LISTING_LINES or len(code) < LISTING_SHARE * (len(code) + other) \
            or sum(bool(_CODE_END_RE.search(line)) for line in code) < CODE_SHARE * len(code):
        return None  # (preformatted text: an announcement, a licence, a table, a directory listing)
    source = "\n".join(code)
    declared = _TYPEDEF_NAME_RE.findall(source) or [a or b for a, b in _DECLARED_RE.findall(source)]
    return len(code), list(dict.fromkeys(declared))


def _verse(lines: list[str]) -> bool:
    """Whether short lines read as verse or lyrics (most of them phrases: Japanese with kana between the words,
    English of 3+ words), not a roster, a menu or a list of titles (names and nouns)."""
    phrases = sum(bool(_HIRAGANA_RUN_RE.search(x)) if _is_ja(x) else len(x.split()) >= 3 for x in lines)
    return phrases * 2 >= len(lines)


_HEADING_LINE_RE = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.MULTILINE)
_ARTICLE_RE = re.compile(r"^[\"“']?(?:The|A|An)\s")


def _topics(body: str, title: str) -> list[str]:
    """The headings of a diary page that are not its entries' date headings nor its title: the topics the
    author set under some days (`## Death of my mother` under `### TUESDAY 13th MAY 1997`), or above them all
    (`1955: Three girls, a boy and the H-bomb`, `"The Evolution of a Design."`; not a sentence there, which
    speaks to the reader: `Re-visit often to check on latest build info.`). Headings that differ only in their
    dates (`Korean Diary for October 3rd–16th`, `… for October 17th–23rd`) are a running feature, named once by
    what they share (`Korean Diary`)."""
    out: list[str] = []
    series: dict[str, str] = {}  # a heading without its dates -> the first heading of that shape
    first = ENTRY_HEADING_RE.search(body)
    for found in _HEADING_LINE_RE.finditer(body):
        text = _MARKS_RE.sub("", found[1]).strip().rstrip(" :：—–-")  # `Korean War Diary:—` introduces what follows
        if first and found.start() < first.start() and _ENDS_SENTENCE_RE.search(text) and not _ARTICLE_RE.match(text):
            continue  # a sentence above the entries speaks to the reader (`Re-visit often to check on…`), a name
            # with its article (`The Evolution of a Design.`) names the page
        if "{#" in text or squeezed(text) == squeezed(title) or sum(map(str.isalpha, text)) < 3 \
                or (text.startswith("[") and text.endswith("]")):  # an editor's note in brackets, no topic
            continue
        stem = _undated(text)
        key = stem.casefold()
        if key in series and series[key] != text:
            if series[key] in out:
                out[out.index(series[key])] = stem
            continue
        series.setdefault(key, text)
        if text not in out:
            out.append(text)
    return out


_DATE_NAMES = sorted({*_EN_MONTHS, *(m[:3] for m in _EN_MONTHS), "sept", "tues", "thur", "thurs"}, key=len,
                     reverse=True)  # month and weekday names, whole or abbreviated (not `Mary`, `Monster`)
_DATE_BITS_RE = re.compile(r"[\d０-９]+(?:st|nd|rd|th)?(?![A-Za-z])|\b(?:" + "|".join(_DATE_NAMES)
                           + r")\b\.?|[年月日]|[-–—~〜/.,:;：、。()（）\[\]]", re.IGNORECASE)
_TRAILING_SMALL_RE = re.compile(r"(?:\s+(?:for|of|from|to|on|in|the|and|week|weeks))+\s*$", re.IGNORECASE)


def _undated(heading: str) -> str:
    """A heading without its dates and the small words left hanging (`Korean Diary for October 3rd–16th` ->
    `Korean Diary`)."""
    text = " ".join(_DATE_BITS_RE.sub(" ", heading).split())
    return _TRAILING_SMALL_RE.sub("", text).strip() or heading


def _opening(lead: str, body: str) -> bool:
    """Whether the lead starts the page's first paragraph of text (under its headings)."""
    first = next((line for line in body.splitlines() if line.strip() and not line.startswith(("#", "!["))), "")
    return squeezed(lead)[:12] in squeezed(summary_source(first))


def _lead_from_structure(lead: str, st: dict) -> bool:
    """Whether the lead's start lies in a list item, a table row, a link line, a short line or a definition list
    (not a paragraph)."""
    head = squeezed(lead)[:12]
    pieces = [*st["items"], *st["links"], *st["short"], *st["numbered"], *(c for r in st["rows"] for c in r),
              *st["terms"], *st["described"]]
    return any(head in squeezed(p) or (len(squeezed(p)) >= 4 and squeezed(p) in head) for p in pieces)


def _speaker(unit: str) -> str:
    """The speaker's name a line opens with (`生徒 ここ。`), else ''."""
    match = _SPEAKER_RE.match(_BOLD_NAME_RE.sub(r"\2", unit))
    return (match.group(1) or match.group(2)) if match else ""


_BOLD_NAME_RE = re.compile(r"^(\*\*|__)([^*_\s]{1,10})\1(?=[ 　])")  # `**知輝** 斉藤先生じゃないですか。`
