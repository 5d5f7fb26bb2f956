"""Stage 6: flag pages that need a look: too short, mojibake, LLM fallback, duplicates."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

MIN_BODY_CHARS = 500
# U+FFFD; C1 controls and the private-use characters cp932 gives stray bytes 0xA0, 0xFD-0xFF (a corrupt file);
# kanji that mis-decoded UTF-8 turns into; runs of half-width kana; UTF-8 read as Latin-1.
_MOJIBAKE_RE = re.compile(r"[\ufffd\x80-\x9f\uf8f0-\uf8f3]"
                          r"|(?:[縺繧譁蜷荳驕]{1}[\u3000-\u9fff]){3,}|[\uff61-\uff9f]{6,}|(?:Ã.|â€.){2,}")


@dataclass
class PageReport:
    """What the gate found about one page."""

    path: str
    chars: int
    problems: list[str] = field(default_factory=list)
    fallback: str = ""  # why the LLM's extraction was not used (down, timeout, invalid_json, length, ...)
    metadata_problem: str = ""  # why the LLM's title/tags/summary were not used


def mojibake_signs(text: str) -> int:
    """Count of replacement characters and typical mis-decoding patterns."""
    return len(_MOJIBAKE_RE.findall(text))


def check_page(path: str, body: str, fields: dict) -> PageReport:
    """Problems of one corpus document."""
    report = PageReport(path, len(body.strip()))
    if report.chars < MIN_BODY_CHARS:
        report.problems.append("short")
    if mojibake_signs(body) or mojibake_signs(str(fields.get("title", ""))):
        report.problems.append("mojibake")
    if fields.get("fallback"):
        report.problems.append("llm_fallback")
        report.fallback = str(fields["fallback"])
    if fields.get("metadata_by") == "fallback":
        report.problems.append("metadata_fallback")
        report.metadata_problem = str(fields.get("metadata_problem") or "")
    return report


def find_duplicates(hashes: dict[str, str]) -> list[list[str]]:
    """Groups of paths whose bodies have the same hash."""
    groups: dict[str, list[str]] = defaultdict(list)
    for path, digest in hashes.items():
        groups[digest].append(path)
    return sorted(sorted(g) for g in groups.values() if len(g) > 1)


def log_lines(reports: list[PageReport], duplicates: list[list[str]]) -> list[str]:
    """error.log lines: one per problem, '[!] Suspiciously short' first as the design asks."""
    lines = []
    for r in reports:
        for problem in r.problems:
            if problem == "short":
                lines.append(f"[!] Suspiciously short ({r.chars} chars): {r.path}")
            elif problem == "mojibake":
                lines.append(f"[!] Mojibake or U+FFFD: {r.path}")
            elif problem == "llm_fallback":
                lines.append(f"[!] LLM fallback to heuristic ({r.fallback}): {r.path}")
            elif problem == "metadata_fallback":
                why = f" ({r.metadata_problem})" if r.metadata_problem else ""
                lines.append(f"[!] LLM metadata failed{why}, title from the page: {r.path}")
    for group in duplicates:
        lines.append(f"[!] Duplicate body: {', '.join(group)}")
    return lines
