"""Heuristic votes on blocks: what trafilatura and readability each call main content.

Each extractor runs on the whole page; its output is projected back onto our numbered blocks,
so the extractors vote per block and never write text of their own.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

import trafilatura
from readability import Document

from siterag.extract.blocks import Block, html_to_blocks, normalise

logging.getLogger("trafilatura").setLevel(logging.ERROR)
logging.getLogger("readability").setLevel(logging.ERROR)
VOTERS = ("trafilatura", "precision", "recall", "readability")
SHORT = 80  # weight (a CJK character counts 4): lighter blocks must match one output paragraph, not any substring
FULL_VOTE_CHARS = 2_000_000  # larger pages are judged by trafilatura alone
TRUST_SHARE = 0.7  # trafilatura alone decides on pages where it keeps at least this share of the text
HEADING_BODY = 100  # weight of the block after a heading for the heading to join the article
EXTEND_WEIGHT = 200  # a block only the recall voter keeps joins the article when it is this heavy,
EXTEND_GAP = 3  # this close to a kept block, and
EXTEND_LINKS = 0.3  # has at most this link density (an article split around an ad or a photo)
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_BOILERPLATE_RE = re.compile(r"copyright|\(c\)|©|all rights reserved|カウンター|counter|人目|アクセス数|since \d{4}|"
                             r"last (modified|updated)|最終更新", re.IGNORECASE)


def _weight(text: str) -> int:
    """Length with CJK characters counted 4 times: 20 kanji say as much as 80 Latin letters."""
    return len(text) + 3 * len(_CJK_RE.findall(text))


def _grams(text: str, n: int = 8) -> set[str]:
    return {text[i:i + n] for i in range(max(1, len(text) - n + 1))} if text else set()


def coverage(blocks: list[Block], output: str) -> list[float]:
    """For each block, how much of it an extractor's output contains (0..1).

    A long block counts as covered when it is a substring of the output, else by its share of
    character 8-grams found there. Short blocks ("Share", "Business Insider") must make up, together
    with the other short blocks found in the same output paragraph, at least half of that paragraph,
    so they are not matched by accident somewhere in the article, yet table rows and cells that an
    extractor merged into one line still match.
    """
    lines = {normalise(line) for line in output.split("\n")} - {""}
    whole = normalise(output)
    found = _grams(whole)
    texts = [normalise(b.text) for b in blocks]
    scores = [0.0] * len(blocks)
    short = []
    for i, text in enumerate(texts):
        if not text or not whole:
            continue
        if _weight(text) < SHORT:
            short.append(i)
        elif text in whole:
            scores[i] = 1.0
        else:
            grams = _grams(text)
            scores[i] = len(grams & found) / len(grams)
    for line in lines:
        inside = [i for i in short if texts[i] in line]
        if inside and 2 * sum(len(texts[i]) for i in set(inside)) >= len(line):
            for i in inside:
                scores[i] = 1.0
    return scores


def trafilatura_text(html: str, **options: bool) -> str:
    """trafilatura's main text, one paragraph per line ('' when it finds none)."""
    return trafilatura.extract(html, include_comments=False, include_tables=True, include_links=False,
                               include_images=False, deduplicate=False, **options) or ""


def readability_text(html: str) -> str:
    """readability-lxml's main content, one block per line ('' when it fails)."""
    try:
        summary = Document(html).summary(html_partial=True)
    except Exception:  # readability raises bare Exceptions on empty or odd documents
        return ""
    blocks, _ = html_to_blocks(summary)
    return "\n".join(b.text for b in blocks)


def extractor_outputs(html: str) -> dict[str, str]:
    """The text each voter calls main content. A huge page (over FULL_VOTE_CHARS) gets trafilatura alone:
    readability and the extra trafilatura passes cost minutes there and rarely change the answer."""
    if len(html) > FULL_VOTE_CHARS:
        text = trafilatura_text(html)
        return dict.fromkeys(VOTERS, text)
    return {
        "trafilatura": trafilatura_text(html),
        "precision": trafilatura_text(html, favor_precision=True),
        "recall": trafilatura_text(html, favor_recall=True),
        "readability": readability_text(html),
    }


@dataclass
class Votes:
    """Per block: which voters keep it, and whether it looks like boilerplate."""

    keep: dict[str, list[bool]]
    boilerplate: list[bool]

    def count(self, i: int) -> int:
        return sum(self.keep[name][i] for name in VOTERS)

    def agreed(self, i: int) -> bool:
        """All voters agree (keep or drop), or the block is boilerplate (always dropped)."""
        return self.boilerplate[i] or self.count(i) in (0, len(VOTERS))


class _LazyKeep(dict):
    """voter -> its keep flag per block, each voter run when first asked (as extractor_outputs runs it): the
    heuristic never asks the precision voter, and readability only on pages trafilatura does not call mostly
    content; the hybrid mode's `Votes.count` asks them all."""

    def __init__(self, html: str, blocks: list[Block]) -> None:
        super().__init__()
        self._html, self._blocks = html, blocks

    def __missing__(self, name: str) -> list[bool]:
        if name not in VOTERS:
            raise KeyError(name)
        if len(self._html) > FULL_VOTE_CHARS:  # a huge page: trafilatura alone, for every voter
            value = list(next(iter(self.values()))) if self else \
                [s >= 0.5 for s in coverage(self._blocks, trafilatura_text(self._html))]
        else:
            run = {"trafilatura": lambda: trafilatura_text(self._html),
                   "precision": lambda: trafilatura_text(self._html, favor_precision=True),
                   "recall": lambda: trafilatura_text(self._html, favor_recall=True),
                   "readability": lambda: readability_text(self._html)}[name]
            value = [s >= 0.5 for s in coverage(self._blocks, run())]
        self[name] = value
        return value


def block_votes(html: str, blocks: list[Block]) -> Votes:
    """The voters on the page, each output projected onto the blocks (each voter run when first needed)."""
    return Votes(_LazyKeep(html, blocks), [is_boilerplate(b) for b in blocks])


def is_boilerplate(block: Block) -> bool:
    """Navigation and decoration: link lists, counters, copyright lines."""
    if block.kind != "table" and block.link_density > 0.6:
        return True
    return len(block.text) < 100 and bool(_BOILERPLATE_RE.search(block.text))


def _with_inner_images(blocks: list[Block], keep: set[int]) -> set[int]:
    """Images between kept blocks belong to the article; so does a heading right before a kept block."""
    extra = {b.id for b in blocks if b.kind == "image" and {b.id - 1, b.id + 1} <= keep}
    extra |= {b.id for b in blocks[:-1] if b.kind == "heading" and b.id + 1 in keep and not is_boilerplate(b)
              and _weight(blocks[b.id + 1].text) >= HEADING_BODY}
    return keep | extra


def _chars(blocks: list[Block], ids: set[int]) -> int:
    return sum(len(blocks[i].text) for i in ids)


def _extend(blocks: list[Block], votes: Votes, keep: set[int]) -> set[int]:
    """Grow the kept set by heavy, link-poor blocks the recall voter keeps next to it."""
    keep = set(keep)
    candidates = [b for b in blocks if votes.keep["recall"][b.id] and not votes.boilerplate[b.id]
                  and _weight(b.text) >= EXTEND_WEIGHT and b.link_density <= EXTEND_LINKS]
    grown = True
    while grown:
        grown = False
        for b in candidates:
            if b.id not in keep and any(j in keep for j in range(b.id - EXTEND_GAP, b.id + EXTEND_GAP + 1)):
                keep.add(b.id)
                grown = True
    return keep


def heuristic_keep(blocks: list[Block], votes: Votes, allowed: set[int] | None = None) -> set[int]:
    """trafilatura's blocks, cut to the ones readability agrees with on pages full of other text.

    Used on pages whose site template is unknown (a single page, a site with no recurring lines); see
    siterag.extract.extract. `allowed` are the blocks that are not chrome (by default every block). On a page where
    trafilatura keeps less than TRUST_SHARE of the text (a news page: menus, teasers, share bars), only blocks
    both trafilatura and readability keep survive. On a page that is mostly content (an old hobby page, one
    layout table) readability tends to pick a single cell, so trafilatura decides alone. Boilerplate never
    survives; when nothing is found, every allowed text block that is not boilerplate is kept.
    """
    allowed = {b.id for b in blocks} if allowed is None else allowed
    ok = [b.id in allowed and not bp for b, bp in zip(blocks, votes.boilerplate, strict=True)]
    keep = votes.keep
    traf = {b.id for b in blocks if ok[b.id] and keep["trafilatura"][b.id]}
    wide = traf | {b.id for b in blocks if ok[b.id] and keep["recall"][b.id]}
    mostly_content = _chars(blocks, wide) >= TRUST_SHARE * _chars(blocks, allowed)
    both = {i for i in traf if keep["readability"][i]} if traf and not mostly_content else set()  # else unused
    if both and not mostly_content and _chars(blocks, both) >= 0.5 * _chars(blocks, wide):
        return _with_inner_images(blocks, _extend(blocks, votes, both))
    if traf or wide:
        return _with_inner_images(blocks, _extend(blocks, votes, traf or wide))
    return {b.id for b in blocks if b.text and ok[b.id]}
