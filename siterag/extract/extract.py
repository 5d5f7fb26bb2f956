"""Stage 4: pick the main-content blocks of a page (heuristic, LLM or hybrid) and render them.

No mode lets a model write body text: the LLM only answers with block ids.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Collection
from dataclasses import dataclass, field

from lxml import etree

from siterag.codehash import code_hash
from siterag.extract import blocks as block_splitter
from siterag.extract import chrome, heuristics
from siterag.extract import template as site_template
from siterag.extract.blocks import Block, frame_sources, html_to_blocks, normalise, page_title, render_blocks
from siterag.extract.chrome import find_chrome
from siterag.extract.heuristics import Votes, block_votes, heuristic_keep
from siterag.llm.client import LLMClient, LLMError

PROMPT_VERSION = "blocks-v2"
PREVIEW_CHARS = 60
SYSTEM_PROMPT = (
    "You read a web page split into numbered blocks and pick the blocks that are the page's main content: "
    "article text, its headings, tables, lists and images that belong to it. Do not pick navigation menus, "
    "link lists to other pages, headers, footers, counters, copyright lines or decoration. "
    'Answer with JSON: {"main": [block ids]}.'
)


@dataclass
class Extraction:
    """The result of extracting one page."""

    markdown: str
    title: str
    mode: str  # the mode that produced the body: llm | heuristic | hybrid | frameset | empty
    kept: list[int] = field(default_factory=list)
    blocks: int = 0
    llm_calls: int = 0
    fallback: str = ""  # why the LLM result was not used ("" when it was, or was not asked)
    frames: list[str] = field(default_factory=list)
    visible_chars: int = 0  # characters of all the page's visible lines
    content_chars: int = 0  # ... less the site's template and the page's own navigation (what should be kept)
    stamps: list[str] = field(default_factory=list)  # its own "last updated" / counter lines left out (dates)


def block_line(block: Block) -> str:
    """One prompt line per block: id, kind and a short preview of its text."""
    preview = block.text.replace("\n", " ")[:PREVIEW_CHARS] or block.md[:PREVIEW_CHARS]
    link = " link" if block.link_density > 0.5 else ""
    return f"[{block.id}] {block.kind}{link}: {preview}"


def estimate_tokens(text: str) -> int:
    """A rough token count: ~3 bytes of UTF-8 per token covers English and Japanese."""
    return max(1, len(text.encode("utf-8")) // 3)


def windows(blocks: list[Block], budget_tokens: int) -> list[list[Block]]:
    """Consecutive groups of blocks whose prompt lines fit the token budget."""
    out: list[list[Block]] = []
    current: list[Block] = []
    used = 0
    for block in blocks:
        cost = estimate_tokens(block_line(block)) + 2
        if current and used + cost > budget_tokens:
            out.append(current)
            current, used = [], 0
        current.append(block)
        used += cost
    if current:
        out.append(current)
    return out


def select_schema(ids: list[int]) -> dict:
    """JSON schema of the model's answer: a list of known block ids."""
    return {"type": "object", "properties": {"main": {"type": "array", "items": {"type": "integer", "enum": ids},
                                                      "maxItems": len(ids)}},
            "required": ["main"], "additionalProperties": False}


def ask_llm(client: LLMClient, title: str, blocks: list[Block]) -> tuple[set[int], int]:
    """Ask the model which of `blocks` are main content, window by window."""
    budget = max(256, client.config.context_tokens - 400 - client.config.max_tokens)
    keep: set[int] = set()
    calls = 0
    for group in windows(blocks, budget):
        ids = [b.id for b in group]
        user = f"Page title: {title}\nBlocks:\n" + "\n".join(block_line(b) for b in group)
        max_tokens = max(client.config.max_tokens, 24 + 6 * len(ids))
        answer = client.chat_json(SYSTEM_PROMPT, user, select_schema(ids), max_tokens=max_tokens)
        calls += 1
        keep |= {i for i in answer["main"] if i in ids}
    return keep, calls


JUDGE_SYSTEM = ("Is this block of a web page part of the page's own text (A), or navigation, links to other "
                "pages, ads, share buttons, bylines, dates, comments, header or footer (B)? Answer A or B.")
JUDGE_SHOTS = (
    ("Tea farms | para: Shizuoka grows 40% of Japan's tea, famous for deep-steamed sencha.", "A"),
    ("Tea farms | list, links: Home News Sports Weather Contact", "B"),
    ("お茶の部屋 | para: 宇治茶は京都府南部で作られ、鎌倉時代から続く歴史があります。", "A"),
    ("お茶の部屋 | para, links: [戻る] [トップ] [掲示板]", "B"),
)
JUDGE_CHARS = 200
JUDGE_SHARE = 0.25  # judge prompts may cost at most this share of the page's HTML tokens
DROP_BELOW = 0.05  # a block the heuristic keeps is dropped only when the model is this sure it is not content
ADD_ABOVE = 0.95  # a block the heuristic drops is added only when the model is this sure it is content


def judge_messages(title: str, block: Block) -> list[dict]:
    """Few-shot chat asking whether one block is page content (A) or not (B)."""
    messages = [{"role": "system", "content": JUDGE_SYSTEM}]
    for user, label in JUDGE_SHOTS:
        messages += [{"role": "user", "content": user}, {"role": "assistant", "content": label}]
    link = ", links" if block.link_density > 0.5 else ""
    text = (block.text[:JUDGE_CHARS] or block.md[:JUDGE_CHARS]).replace("\n", " ")
    messages.append({"role": "user", "content": f"{title[:40]} | {block.kind}{link}: {text}"})
    return messages


def judge_blocks(client: LLMClient, title: str, blocks: list[Block], budget_tokens: int | None = None,
                 ) -> dict[int, float]:
    """The model's probability that each block is page content: one one-token request per block, while
    the prompts fit `budget_tokens` (estimated); blocks past the budget are not asked about."""
    probs: dict[int, float] = {}
    used = 0
    for block in blocks:
        messages = judge_messages(title, block)
        cost = sum(estimate_tokens(m["content"]) + 8 for m in messages)  # + chat template
        if budget_tokens is not None and used + cost > budget_tokens:
            break
        used += cost
        probs[block.id] = client.choose(messages, ("A", "B"))["A"]
    return probs


def hybrid_keep(blocks: list[Block], votes: Votes, content_prob: dict[int, float],
                allowed: set[int] | None = None, base: set[int] | None = None) -> set[int]:
    """The heuristic's blocks (`base`, by default the voters' choice), changed only where the model is confident
    and the voters disagree."""
    keep = set(base) if base is not None else heuristic_keep(blocks, votes, allowed)
    for i, p in content_prob.items():
        if i in keep and p < DROP_BELOW:
            keep.discard(i)
        elif i not in keep and p >= ADD_ABOVE and (allowed is None or i in allowed):
            keep.add(i)
    return keep


def uncertain_blocks(blocks: list[Block], votes: Votes) -> list[Block]:
    """Blocks the voters disagree on (boilerplate is settled: a tiny model asked about a menu keeps it)."""
    return [b for b in blocks if not votes.agreed(b.id)]


def drop_repeats(blocks: list[Block], keep: set[int]) -> set[int]:
    """Drop kept blocks that repeat an earlier kept block word for word (print copies, teasers)."""
    seen: set[str] = set()
    out = set()
    for i in sorted(keep):
        text = normalise(blocks[i].text)
        if len(text) >= 40 and text in seen:
            continue
        seen.add(text)
        out.add(i)
    return out


def extract_page(html: str, mode: str, client: LLMClient | None = None, base_url: str = "",
                 template: Collection[str] = frozenset()) -> Extraction:
    """Extract the main content of one UTF-8 page in the given mode.

    `template` holds the keys of the site's template lines found on this page (siterag.extract.template): with them the
    page's chrome is dropped first (siterag.extract.chrome), and the modes choose among the page's own blocks.
    """
    blocks, root = html_to_blocks(html, base_url)
    title = page_title(root)
    frames = frame_sources(root)
    if frames or root.find(".//frameset") is not None:  # an empty frameset: a script redirects (PowerPoint)
        return Extraction("", title, "frameset", blocks=0, frames=frames)
    if not blocks:
        return Extraction("", title, "empty")
    anchors = {str(a) for a in root.xpath("//a/@name | //*/@id")}
    hubs, inside = site_template.hub_links(template), site_template.inside_template(template)
    template, site_wide, site_known = site_template.split_template(template)
    chrome_found = find_chrome(blocks, template, anchors, site_wide, hubs, inside)
    drop = chrome_found.drop
    own = {b.id for b in blocks if len(drop.get(b.id, ())) < len(b.lines)}
    result = Extraction("", title, mode, blocks=len(blocks), frames=frames, visible_chars=chrome_found.visible,
                        content_chars=chrome_found.content, stamps=chrome_found.stamps)
    if not own:
        result.mode = "empty"
        return result
    own_blocks = [b for b in blocks if b.id in own]
    keep: set[int] | None = None
    votes: Votes | None = None
    if mode in ("llm", "hybrid") and client is None:
        result.fallback = "no LLM configured"
    elif mode == "llm":
        try:
            keep, result.llm_calls = ask_llm(client, title, own_blocks)
        except LLMError as exc:
            result.fallback = exc.reason
        if keep is not None and not keep:
            result.fallback, keep = "llm chose nothing", None
    elif mode == "hybrid":
        votes = block_votes(html, blocks)
        uncertain = [b for b in uncertain_blocks(blocks, votes) if b.id in own]
        try:
            calls_before = client.stats.calls
            probs = judge_blocks(client, title, uncertain, int(JUDGE_SHARE * estimate_tokens(html)))
            result.llm_calls = client.stats.calls - calls_before
            # Where the site's template is known the heuristic keeps every own block; the model may only drop.
            keep = hybrid_keep(blocks, votes, probs, own, set(own) if site_known else None)
        except LLMError as exc:
            result.fallback = exc.reason
    if keep is None and site_known and mode != "llm":
        # The site showed what its template is, and it is gone: what is left is the page's own text, all of it.
        keep = set(own)
        result.mode = "heuristic" if mode == "heuristic" or result.fallback else mode
    if keep is None:
        votes = votes or block_votes(html, blocks)
        keep = heuristic_keep(blocks, votes, own)
        result.mode = "heuristic"
    keep = drop_repeats(blocks, keep & own)
    result.kept = sorted(keep)
    result.markdown = render_blocks(blocks, keep, drop)
    if is_word_export(root):
        result.title = word_title(root, [b for b in blocks if b.id in keep], drop) or title
    return result


WORD_TITLE_CHARS = 80  # a longer opening line is a sentence, not a title


def is_word_export(root: etree._Element) -> bool:
    """A page Microsoft Word saved as HTML (its ProgId, generator or originator meta says so)."""
    return any(str(content).startswith(("Word.Document", "Microsoft Word"))
               for content in root.xpath("//meta[@name='ProgId' or @name='Generator' or @name='Originator']/@content"))


def word_title(root: etree._Element, kept: list[Block], drop: dict[int, set[int]]) -> str:
    """The title of a Word export whose <title> is empty, else ''.

    Word writes the document's Title property as <title>, empty unless someone set it. The title as the author
    wrote it is then the opening paragraph (`春一番`, `魔術`); Word's heading styles mark the sections of the text
    (`登場人物`), so the page's first <h1>/<h2> is not its title."""
    if normalise(" ".join(root.xpath("//title//text()"))):
        return ""
    opening = next((text for b in kept for n, (_, text) in enumerate(b.lines)
                    if n not in drop.get(b.id, ()) and normalise(text)), "").replace("\n", " ")
    return opening if len(opening) <= WORD_TITLE_CHARS else ""


def extraction_key(mode: str, model: str) -> str:
    """What a cached extraction depends on besides the page: mode, model, and the code with its prompts
    and thresholds (this module, the voters and the block splitter)."""
    raw = "|".join([mode, PROMPT_VERSION, model if mode != "heuristic" else "",
                    code_hash(sys.modules[__name__], heuristics, block_splitter, chrome, site_template)])
    return hashlib.sha256(raw.encode()).hexdigest()[:16]
