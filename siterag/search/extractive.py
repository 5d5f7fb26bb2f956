"""`ask` without a capable model: the sentences of the best passages that match the question, each with its page,
shown as passages, never as an answer.

A sentence is scored by the question's content tokens it holds (siterag.search.ask.content_tokens: numbers,
Latin words, kanji/katakana bigrams), weighted by how rare each token is among the candidate sentences, plus a
little for its passage's rank; the best MAX_SENTENCES (at most two from one page) are shown in passage order
with the question's words marked **like this**. No model is called, so it answers in the time a search takes.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import asdict, dataclass

from siterag.index.chunking import markdown_lines
from siterag.search.search_api import Hit

MAX_SENTENCES = 5
PER_PAGE = 2
MAX_CHARS = 240  # a sentence longer than this is cut around its first matched word
# A sentence ends at a Japanese stop, or a Latin stop followed by a space; a line is never two sentences' parts.
_SENTENCE_END_RE = re.compile(r"(?<=[。！？!?])|(?<=[.;])\s+(?=[A-Z0-9\"'(])")


@dataclass
class Sentence:
    """One sentence of a retrieved passage that holds words of the question."""

    text: str  # the question's words marked **like this**
    ref: str  # site/path of its page
    title: str
    date: str
    url: str
    anchor: str  # its diary entry's anchor ('' when none)
    score: float

    def to_dict(self) -> dict:
        return asdict(self)


def sentences_of(text: str) -> list[str]:
    """The sentences of a passage's text (its first line, the page header the chunker adds, left out), one
    Markdown line or less each, without Markdown marks."""
    body = text.split("\n", 1)[1] if "\n" in text else text
    out = []
    for line in markdown_lines(body):
        out += [s.strip() for s in _SENTENCE_END_RE.split(line) if s and s.strip()]
    return [s for s in out if sum(ch.isalnum() for ch in s) >= 4]


_LABEL_END_RE = re.compile(r"[:：]\s*$")
_STOP_RE = re.compile(r"[。．！？.!?」』)）]\s*$")


def needs_its_next(sentence: str) -> bool:
    """A label rather than a sentence: it ends in a colon, or is a few words with no stop (a table's row label,
    a heading over a value); the line after it says what it announces."""
    return bool(_LABEL_END_RE.search(sentence)) or (len(sentence) <= 24 and not _STOP_RE.search(sentence))


def fold(text: str) -> str:
    """Text compared without case or width: NFKC, lower case."""
    return unicodedata.normalize("NFKC", text).lower()


def _holds(sentence: str, token: str) -> bool:
    folded = fold(sentence)
    if re.fullmatch(r"[a-z\u00c0-\u024f]+", token):
        return re.search(rf"(?<![a-z]){re.escape(token)}", folded) is not None
    return token in folded


def mark(sentence: str, tokens: set[str]) -> str:
    """The sentence with the question's words marked **like this** (whole Latin words from their stem, kanji and
    katakana runs holding a question bigram)."""
    spans: list[tuple[int, int]] = []
    folded = fold(sentence)
    if len(folded) != len(sentence):  # NFKC changed the length: mark nothing rather than the wrong characters
        return sentence
    for token in tokens:
        for m in re.finditer(re.escape(token), folded):
            start, end = m.start(), m.end()
            while end < len(folded) and folded[end].isalnum() and folded[end].isascii() and token.isascii():
                end += 1
            spans.append((start, end))
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, last = [], 0
    for start, end in merged:
        out += [sentence[last:start], "**", sentence[start:end], "**"]
        last = end
    return "".join(out + [sentence[last:]])


def _cut(sentence: str, tokens: set[str]) -> str:
    if len(sentence) <= MAX_CHARS:
        return sentence
    folded = fold(sentence)
    first = min((folded.find(t) for t in tokens if t in folded), default=0)
    start = max(0, min(first - MAX_CHARS // 3, len(sentence) - MAX_CHARS))
    tail = "…" if start + MAX_CHARS < len(sentence) else ""
    return ("…" if start else "") + sentence[start:start + MAX_CHARS] + tail


def best_sentences(question: str, passages: list[Hit], limit: int = MAX_SENTENCES) -> list[Sentence]:
    """The sentences of `passages` (best first) that best match the question's content tokens; [] when none holds
    one of them."""
    from siterag.search.ask import content_tokens

    tokens = content_tokens(question, answer=False)
    if not tokens:
        return []
    candidates = [(rank, h, s) for rank, h in enumerate(passages) for s in sentences_of(h.text)]
    holding = {t: sum(_holds(s, t) for _, _, s in candidates) for t in tokens}
    weight = {t: math.log(1 + len(candidates) / n) for t, n in holding.items() if n}
    scored = []
    for order, (rank, hit, sentence) in enumerate(candidates):
        held = [t for t in weight if _holds(sentence, t)]
        if not held:
            continue
        score = sum(weight[t] for t in held) / math.sqrt(sum(weight.values())) + 0.3 / (1 + rank)
        scored.append((score, order, hit, sentence, held))
    chosen, per_page, seen = [], {}, set()
    for score, order, hit, sentence, held in sorted(scored, key=lambda x: (-x[0], x[1])):
        if per_page.get(hit.ref, 0) >= PER_PAGE or sentence in seen:
            continue
        per_page[hit.ref] = per_page.get(hit.ref, 0) + 1
        seen.add(sentence)
        if needs_its_next(sentence) and order + 1 < len(candidates) and candidates[order + 1][1] is hit:
            sentence = f"{sentence} {candidates[order + 1][2]}"  # a label ("Weight", "住所は：") and its value
            seen.add(candidates[order + 1][2])
        chosen.append((order, Sentence(mark(_cut(sentence, set(held)), set(held)), hit.ref, hit.title, hit.date,
                                       hit.url, hit.anchor, round(score, 3))))
        if len(chosen) == limit:
            break
    return [s for _, s in sorted(chosen, key=lambda x: x[0])]
