"""Stage 5 fields: machine facts (never asked of the LLM) and LLM-written title/category/tags/summary."""

from __future__ import annotations

import hashlib
import re
from datetime import date

from siterag.blocks import clean_text
from siterag.llm import LLMClient, LLMError

_DATE_PATTERNS = (
    re.compile(r"(?<!\d)((?:19|20)\d\d)[-_./]([01]?\d)[-_./]([0-3]?\d)(?!\d)"),  # 2009-05-20, 2009/05/20
    re.compile(r"(?<!\d)((?:19|20)\d\d)([01]\d)([0-3]\d)(?!\d)"),  # 20090520
    re.compile(r"(?<!\d)((?:19|20)\d\d)[-_./]([01]?\d)(?=[/_\-.]|$)(?![-_./]\d)"),  # 2009-05/
    re.compile(r"(?<!\d)((?:19|20)\d\d)([01]\d)(?=[_\-/.])"),  # 200110_dckm
)

METADATA_SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "minLength": 1, "maxLength": 120},
        "category": {"type": "string", "minLength": 1, "maxLength": 40},
        "tags": {"type": "array", "minItems": 3, "maxItems": 8,
                 "items": {"type": "string", "minLength": 1, "maxLength": 30}},
        "summary": {"type": "string", "minLength": 1, "maxLength": 200},
    },
    "required": ["title", "category", "tags", "summary"],
    "additionalProperties": False,
}
METADATA_PROMPT = (
    "You catalogue pages of an archived personal website. From the page title and the start of its text, "
    "write JSON with: title (the page's real title, short, in the page's language), category (one or two "
    "words), tags (3 to 8 keywords in the page's language), summary (2 or 3 short sentences, in the page's "
    "language). Use only facts in the text."
)
BODY_PREVIEW_CHARS = 700


def date_from_path(path: str) -> str | None:
    """A date found in a file name or folder path: 'YYYY-MM-DD' or 'YYYY-MM'; None if there is none."""
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(path):
            parts = [int(p) for p in match.groups()]
            try:
                if len(parts) == 3:
                    return date(*parts).isoformat()
                if 1 <= parts[1] <= 12:
                    return f"{parts[0]:04d}-{parts[1]:02d}"
            except ValueError:
                continue
    return None


def content_hash(data: bytes | str) -> str:
    """sha256 of a page's bytes (or text), hex."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def fallback_metadata(title: str, markdown: str) -> dict:
    """Metadata from the page alone, used when no LLM is configured or its answer failed."""
    first_heading = next((line.lstrip("# ").strip() for line in markdown.splitlines()
                          if line.startswith("#")), "")
    return {"title": (title or first_heading or "untitled")[:120], "category": "", "tags": [], "summary": ""}


def _metadata_prompt(title: str, markdown: str) -> str:
    text = clean_text(re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", markdown))[:BODY_PREVIEW_CHARS]
    return f"Page title: {title}\nText:\n{text}"


def llm_metadata(client: LLMClient, title: str, markdown: str) -> tuple[dict, str]:
    """LLM-written fields, retried once; returns (fields, problem) with problem '' on success."""
    prompt = _metadata_prompt(title, markdown)
    problem = ""
    for _ in range(2):
        try:
            answer = client.chat_json(METADATA_PROMPT, prompt, METADATA_SCHEMA, max_tokens=400)
        except LLMError as exc:
            problem = exc.reason
            if exc.reason in ("down", "timeout"):
                break
            continue
        answer["tags"] = list(dict.fromkeys(t.strip() for t in answer["tags"]
                                            if t.strip() and t.strip().lower() not in METADATA_SCHEMA["properties"]))
        answer["summary"] = answer["summary"].strip()
        answer["title"] = answer["title"].strip()
        if len(answer["tags"]) >= 3 and answer["title"]:
            return answer, ""
        problem = "schema"
    return fallback_metadata(title, markdown), problem or "schema"
