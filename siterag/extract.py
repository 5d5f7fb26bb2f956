"""Stage 4: pick the main-content blocks of a page (heuristic, LLM or hybrid) and render them.

No mode lets a model write body text: the LLM only answers with block ids.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field

import trafilatura

from siterag.blocks import Block, frame_sources, html_to_blocks, page_title, render_blocks
from siterag.llm import LLMClient, LLMError

logging.getLogger("trafilatura").setLevel(logging.ERROR)
PROMPT_VERSION = "blocks-v1"
PREVIEW_CHARS = 60
SYSTEM_PROMPT = (
    "You read a web page split into numbered blocks and pick the blocks that are the page's main content: "
    "article text, its headings, tables, lists and images that belong to it. Do not pick navigation menus, "
    "link lists to other pages, headers, footers, counters, copyright lines or decoration. "
    'Answer with JSON: {"main": [block ids]}.'
)
_NORM_RE = re.compile(r"[\W_]+")
_BOILERPLATE_RE = re.compile(r"copyright|\(c\)|©|all rights reserved|カウンター|counter|人目|アクセス数|since \d{4}|"
                             r"last (modified|updated)|最終更新", re.IGNORECASE)


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


def _grams(text: str, n: int = 3) -> set[str]:
    text = _NORM_RE.sub("", text)
    return {text[i:i + n] for i in range(max(1, len(text) - n + 1))} if text else set()


def heuristic_scores(html: str, blocks: list[Block]) -> list[float]:
    """For each block, the share of its character trigrams found in trafilatura's main text."""
    main = trafilatura.extract(html, include_comments=False, include_tables=True, include_links=False,
                               include_images=False, favor_recall=True, deduplicate=False) or ""
    found = _grams(main)
    scores = []
    for block in blocks:
        grams = _grams(block.text)
        scores.append(len(grams & found) / len(grams) if grams and found else 0.0)
    return scores


def is_boilerplate(block: Block) -> bool:
    """Navigation and decoration: link lists, counters, copyright lines."""
    if block.kind != "table" and block.link_density > 0.6:
        return True
    return len(block.text) < 100 and bool(_BOILERPLATE_RE.search(block.text))


def _select_heuristic(blocks: list[Block], scores: list[float]) -> set[int]:
    keep = {b.id for b, s in zip(blocks, scores, strict=True) if s >= 0.5 and not is_boilerplate(b)}
    # Images between kept text blocks belong to the article.
    for b in blocks:
        if b.kind == "image" and {b.id - 1, b.id + 1} <= keep:
            keep.add(b.id)
    return keep


def _fallback_blocks(blocks: list[Block]) -> set[int]:
    """When trafilatura finds nothing: keep text blocks that are not link lists."""
    return {b.id for b in blocks if b.text and not is_boilerplate(b)}


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


def extract_page(html: str, mode: str, client: LLMClient | None = None, base_url: str = "") -> Extraction:
    """Extract the main content of one UTF-8 page in the given mode."""
    blocks, root = html_to_blocks(html, base_url)
    title = page_title(root)
    frames = frame_sources(root)
    if frames:
        return Extraction("", title, "frameset", blocks=0, frames=frames)
    if not blocks:
        return Extraction("", title, "empty")
    result = Extraction("", title, mode, blocks=len(blocks), frames=frames)
    keep: set[int] | None = None
    if mode in ("llm", "hybrid") and client is None:
        result.fallback = "no LLM configured"
    elif mode == "llm":
        try:
            keep, result.llm_calls = ask_llm(client, title, blocks)
        except LLMError as exc:
            result.fallback = exc.reason
    if mode == "hybrid" and client is not None:
        scores = heuristic_scores(html, blocks)
        keep = _select_heuristic(blocks, scores)
        # Boilerplate stays out: a tiny model asked about a menu tends to keep it.
        uncertain = [b for b, s in zip(blocks, scores, strict=True) if 0.15 <= s < 0.85 and not is_boilerplate(b)]
        if uncertain:
            try:
                chosen, result.llm_calls = ask_llm(client, title, uncertain)
                keep = (keep - {b.id for b in uncertain}) | chosen
            except LLMError as exc:
                result.fallback = exc.reason
    if keep is None or not keep:
        if mode != "heuristic" and not result.fallback and keep is not None:
            result.fallback = "llm chose nothing"
        scores = heuristic_scores(html, blocks)
        keep = _select_heuristic(blocks, scores) or _fallback_blocks(blocks)
        result.mode = "heuristic"
    result.kept = sorted(keep)
    result.markdown = render_blocks(blocks, keep)
    return result


def extraction_key(mode: str, model: str) -> str:
    """What a cached extraction depends on besides the page: mode, prompt and model."""
    raw = f"{mode}|{PROMPT_VERSION}|{SYSTEM_PROMPT}|{PREVIEW_CHARS}|{model if mode != 'heuristic' else ''}"
    return hashlib.sha256(raw.encode()).hexdigest()[:16]
