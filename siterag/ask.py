"""`siterag ask`: an answer from the archive's own pages, citing `site/path` for what it says.

1. Retrieve the best passages (hybrid search at passage level, at most two per page).
2. Gate: when even the best passage is far from the question (cosine similarity under MIN_SIMILARITY) the
   archive holds no answer, and the LLM is not asked at all.
3. One generation: the passages, numbered and labelled with their `site/path`, and the question; the model
   must answer only from them as JSON `{"found", "answer", "citations"}` — temperature 0, explicit max_tokens
   and stop, and a JSON schema whose `citations` enum is the retrieved paths (llama-server enforces it as a
   grammar). The answer is validated against a looser schema, so an endpoint that ignores grammars cannot
   slip in a path it made up: citations that are not among the passages are dropped (and reported).
4. `found: false`, an empty answer, an answer with no valid citation left, or one with a figure (a number, a
   date) that its cited passages do not contain → "no answer in the archive" (the model's words are kept in
   `model_answer` / --json).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from siterag.llm import LLMClient
from siterag.search_api import Hit, Searcher
from siterag.store import IndexStore

NO_ANSWER = "The archive holds no answer to this question."
# Calibrated with benchmarks/retrieval.py on its question set: the best passage of the 56 questions the archive
# answers has a cosine similarity of 0.21-0.79 (median 0.48; one keyword query under 0.25), that of the 6 it
# cannot answer 0.00-0.20. BM25 is no signal here: a question with no answer reached 24, an answerable one 2.8.
MIN_SIMILARITY = 0.25
ANSWER_CHARS = 300
ANSWER_MAX_TOKENS = 512

SYSTEM = """You answer questions using only the numbered passages below, taken from an archive of old web pages.
Write a JSON object with three keys:
"found": true if the passages contain the answer, otherwise false.
"answer": the answer in one or two sentences, in the language of the question, with facts from the passages only
(empty when found is false).
"citations": the site/path of each passage the answer uses, exactly as written after the passage number.
Example: for the passage "[1] tea/farms.html — Tea farms" saying "Most of Japan's tea grows in Shizuoka." and the
question "Where does most Japanese tea come from?", write
{"found": true, "answer": "Most of it comes from Shizuoka.", "citations": ["tea/farms.html"]}"""


@dataclass
class Answer:
    """What `ask` found: the answer and its citations, or why there is none."""

    question: str
    found: bool
    answer: str
    citations: list[str]
    passages: list[Hit]
    # why there is no answer: no_passages | low_retrieval | model_no_answer | no_valid_citation | unsupported_numbers
    reason: str = ""
    dropped: list[str] = field(default_factory=list)  # citations that were not among the passages
    model_answer: str = ""  # the model's own words, also when they are not used

    def to_dict(self) -> dict:
        return {"question": self.question, "found": self.found, "answer": self.answer,
                "citations": self.citations, "reason": self.reason, "dropped_citations": self.dropped,
                "model_answer": self.model_answer,
                "passages": [{"ref": h.ref, "title": h.title, "heading": h.heading, "similarity": h.similarity,
                              "bm25": h.bm25, "snippet": h.snippet} for h in self.passages]}


def answer_schema(refs: list[str], answer_chars: int = ANSWER_CHARS, strict: bool = True) -> dict:
    """The answer's JSON schema; strict: citations restricted to `refs` (the grammar the server enforces)."""
    item: dict = {"type": "string", "enum": refs} if strict and refs else {"type": "string"}
    return {"type": "object",
            "properties": {"found": {"type": "boolean"},
                           "answer": {"type": "string", "maxLength": answer_chars},
                           "citations": {"type": "array", "items": item, "maxItems": max(1, len(refs))}},
            "required": ["found", "answer", "citations"], "additionalProperties": False}


def select_passages(hits: list[Hit], k: int, per_doc: int = 2) -> list[Hit]:
    """The best `k` passages, at most `per_doc` from one page."""
    out: list[Hit] = []
    count: dict[str, int] = {}
    for h in hits:
        if count.get(h.doc_id, 0) < per_doc:
            out.append(h)
            count[h.doc_id] = count.get(h.doc_id, 0) + 1
        if len(out) == k:
            break
    return out


def passes_gate(passages: list[Hit], min_similarity: float = MIN_SIMILARITY) -> bool:
    """Whether retrieval found anything close enough to be worth asking the model about."""
    return any(h.similarity >= min_similarity for h in passages)


def build_prompt(question: str, passages: list[Hit], budget_chars: int) -> str:
    """The passages (trimmed to fit `budget_chars` in all), each under `[n] site/path`, then the question."""
    parts, used = [], 0
    share = max(200, budget_chars // max(1, len(passages)))
    for n, h in enumerate(passages, 1):
        body = h.text.split("\n", 1)[1] if "\n" in h.text else h.text
        body = body[:share]
        head = f"[{n}] {h.ref} — {h.title}" + (f" > {h.heading}" if h.heading else "")
        block = f"{head}\n{body}"
        if used + len(block) > budget_chars and parts:
            break
        parts.append(block)
        used += len(block)
    return "Passages:\n\n" + "\n\n".join(parts) + f"\n\nQuestion: {question}"


def prompt_budget(context_tokens: int, max_tokens: int) -> int:
    """Characters of passages that fit the model's context: one token a character (about right for Japanese,
    generous for English), less the answer and ~300 tokens of instructions."""
    return max(600, context_tokens - max_tokens - 300)


def ask(question: str, data_dir: str | Path | IndexStore, client: LLMClient | Callable[[], LLMClient], *, k: int = 5,
        site: str | None = None, tags: tuple[str, ...] = (), category: str | None = None,
        since: str | None = None, until: str | None = None, min_similarity: float = MIN_SIMILARITY,
        context_tokens: int | None = None, max_tokens: int = ANSWER_MAX_TOKENS,
        answer_chars: int = ANSWER_CHARS) -> Answer:
    """Answer `question` from the archive in `data_dir`; `client` may be a factory (called only if needed).

    Raises NoIndexError without an index and siterag.llm.LLMError when the model gives no usable reply.
    """
    searcher = Searcher(data_dir)
    hits = searcher.search(question, site=site, tags=tags, category=category, since=since, until=until,
                           k=k * 3, group=False)
    passages = select_passages(hits, k)
    if not passages:
        return Answer(question, False, NO_ANSWER, [], [], reason="no_passages")
    if not passes_gate(passages, min_similarity):
        return Answer(question, False, NO_ANSWER, [], passages, reason="low_retrieval")
    llm = client if isinstance(client, LLMClient) else client()
    refs = list(dict.fromkeys(h.ref for h in passages))
    ctx = context_tokens or llm.config.context_tokens
    user = build_prompt(question, passages, prompt_budget(ctx, max_tokens))
    reply = llm.chat_json(SYSTEM, user, answer_schema(refs, answer_chars), max_tokens=max_tokens,
                          check=answer_schema(refs, answer_chars, strict=False))
    text = reply["answer"].strip()
    if not any(ch.isalnum() for ch in text):  # "...", "" or punctuation: no answer, whatever `found` says
        text = ""
    cited = list(dict.fromkeys(reply["citations"]))
    valid = [c for c in cited if c in refs]
    dropped = [c for c in cited if c not in refs]
    result = Answer(question, True, text, valid, passages, dropped=dropped, model_answer=reply["answer"].strip())
    if not reply["found"] or not text:
        result.found, result.answer, result.citations, result.reason = False, NO_ANSWER, [], "model_no_answer"
    elif not valid:
        result.found, result.answer, result.reason = False, NO_ANSWER, "no_valid_citation"
    elif unsupported_numbers(text, [h.text for h in passages if h.ref in valid]):
        result.found, result.answer, result.reason = False, NO_ANSWER, "unsupported_numbers"
    return result


_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*")


def unsupported_numbers(answer: str, cited_texts: list[str]) -> list[str]:
    """Numbers in the answer that none of its cited passages contains (a small model's made-up figures)."""
    cited = unicodedata.normalize("NFKC", " ".join(cited_texts))
    return [n for n in _NUMBER_RE.findall(unicodedata.normalize("NFKC", answer)) if n not in cited]


_WHY = {"low_retrieval": "no passage is close to the question", "no_passages": "nothing matched",
        "model_no_answer": "the model found no answer in the passages",
        "no_valid_citation": "the model's answer cited none of the passages",
        "unsupported_numbers": "the model's answer has figures its passages do not contain"}


def format_answer(result: Answer) -> str:
    """The answer as `siterag ask` prints it: the text, then its sources (or why there is no answer)."""
    lines = [result.answer]
    if result.found:
        titles = {h.ref: h.title for h in result.passages}
        lines += ["", "Sources:"] + [f"  [{n}] {ref}  {titles.get(ref, '')}".rstrip()
                                     for n, ref in enumerate(result.citations, 1)]
    else:
        lines.append(f"({_WHY.get(result.reason, result.reason)})")
        if result.passages:
            lines += ["Closest pages:"] + [f"  {ref}" for ref in dict.fromkeys(h.ref for h in result.passages)]
    if result.dropped:
        lines.append(f"(dropped citations that are not among the passages: {', '.join(result.dropped)})")
    return "\n".join(lines)
