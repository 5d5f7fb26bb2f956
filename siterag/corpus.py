"""Stage 5 output: one Markdown file with YAML front matter per page, under data/corpus/<site>/."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import frontmatter

from siterag.layout import atomic_write

PAGE_SUFFIXES = {".html", ".htm", ".shtml", ".xhtml", ".php", ".asp", ".aspx", ".cgi", ".jsp"}
MACHINE_FIELDS = ("site", "source", "path", "date", "processed_at", "content_hash", "body_hash", "encoding",
                  "extract_mode", "extract_key", "fallback", "metadata_by")
LLM_FIELDS = ("title", "category", "tags", "summary")


def corpus_paths(rel_paths: list[str]) -> dict[str, str]:
    """Map each page path to its corpus path: the page suffix becomes .md; clashes keep the full name."""
    wanted: dict[str, list[str]] = {}
    for rel in sorted(rel_paths):
        p = PurePosixPath(rel)
        suffix = p.suffix.lower()
        short = str(p.with_suffix(".md")) if suffix in PAGE_SUFFIXES else rel + ".md"
        wanted.setdefault(short, []).append(rel)
    out: dict[str, str] = {}
    for short, rels in wanted.items():
        if len(rels) == 1:
            out[rels[0]] = short
        else:
            for rel in rels:
                out[rel] = rel + ".md"
    return out


def write_doc(path: Path, body: str, fields: dict) -> None:
    """Write a corpus document atomically; machine fields come first."""
    ordered = {k: fields[k] for k in (*LLM_FIELDS, *MACHINE_FIELDS) if k in fields}
    ordered.update({k: v for k, v in fields.items() if k not in ordered})
    post = frontmatter.Post(body, **ordered)
    atomic_write(path, frontmatter.dumps(post, sort_keys=False, allow_unicode=True) + "\n")


def read_doc(path: Path) -> tuple[dict, str] | None:
    """Front matter and body of a corpus document, or None if missing or unreadable."""
    try:
        post = frontmatter.load(path)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    except Exception:  # noqa: BLE001 - a corrupt YAML header means "redo this page"
        return None
    return dict(post.metadata), post.content
