"""Machine metadata, faithful by construction: tags are the page's own distinctive words (siterag.enrich.keywords), the
summary is 2-3 of its own sentences, the category comes from the site's folders and file names (or is the
nearest of the site's configured `categories` by the embedder). Nothing is written by a model.

The site pass (`enrich_site`) runs after extraction: term document frequencies need the whole site's corpus.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from siterag.codehash import code_hash
from siterag.config import SiteConfig
from siterag.enrich.corpus import write_doc
from siterag.enrich.keywords import PageTerms, page_terms, pick_tags, score_terms
from siterag.enrich.metadata import content_hash
from siterag.layout import SiteLayout, atomic_write, read_saved

SUMMARY_CHARS = 200
SUMMARY_SENTENCES = 3
TOP_CATEGORY = "top"  # pages at the top of the site that share their file-name family with no other page
_INDEX_FAMILIES = {"index", "default", "home", "top", "main"}
_MD_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_LIST_PREFIX_RE = re.compile(r"^(?:[-*+]|\d{1,3}[.)]|>)\s+")
_SENTENCE_RE = re.compile(r"[^。．！？!?]+(?:[。．！？!?]+[」』）)”\"]*)?")
_EN_SPLIT_RE = re.compile(r"(?<=[a-z0-9)][.])\s+(?=[A-Z0-9\"“(])")
_ABBREVIATION_RE = re.compile(r"(?:\b(?:al|etc|vs|cf|ca|approx|Dr|Mr|Mrs|Ms|Prof|St|No|Vol|pp|Fig|Inc|Ltd|Co|Jr|Sr)"
                              r"|\b[A-Za-z]|\be\.g|\bi\.e)\.$")
_NOT_PROSE_RE = re.compile(r"[*`|\\<>\[\]{}]|https?:|www\.|@|\.html?\b", re.IGNORECASE)
_DATE_ONLY_RE = re.compile(r"^[\d\s０-９年月日()（）/.:\-曜月火水木金土日〜~]+$")
_EN_SENTENCE_RE = re.compile(r"^[\"'“(]?[A-Z0-9].*[.!?][\"'”)]?$")
_FAMILY_RE = re.compile(r"[^\W\d_]+")


def summary_source(markdown: str) -> str:
    """The body text a summary is cut from: Markdown links and images reduced to their labels."""
    return _MD_LINK_RE.sub(r"\1", markdown)


def _prose_lines(markdown: str) -> list[str]:
    """Lines of running text: no headings, tables, code, rules or lines that are only links."""
    lines, in_code = [], False
    for raw in markdown.splitlines():
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code or not line or line.startswith(("#", "|", "---", "***", "<")):
            continue
        if not any(ch.isalpha() for ch in _MD_LINK_RE.sub("", line)):  # nothing but links (a menu, a link list)
            continue
        lines.append(_LIST_PREFIX_RE.sub("", summary_source(line)).strip())
    return lines


def page_sentences(markdown: str) -> list[str]:
    """The body's sentences in order, each a character-exact substring of summary_source(markdown)."""
    out = []
    for line in _prose_lines(markdown):
        for match in _SENTENCE_RE.finditer(line):
            text, start = match.group(), 0
            for cut in _EN_SPLIT_RE.finditer(text):
                if not _ABBREVIATION_RE.search(text, 0, cut.start()):  # "et al. Nakazawa" is one sentence
                    out.append(text[start:cut.start()])
                    start = cut.end()
            out.append(text[start:])
    return [s for s in (piece.strip() for piece in out) if s]


def substantive(sentence: str, strict: bool = True) -> bool:
    """A sentence worth quoting: enough letters, mostly letters, not a date, a link or markup."""
    letters = sum(ch.isalpha() for ch in sentence)
    visible = sum(not ch.isspace() for ch in sentence)
    if _NOT_PROSE_RE.search(sentence) or _DATE_ONLY_RE.match(sentence) or len(sentence) > SUMMARY_CHARS:
        return False
    if letters * 2 < visible or sentence.endswith((":", "：")):
        return False
    if not strict:
        return letters >= 4
    if not (sentence[0].isalnum() or sentence[0] in "「『（(\"“'"):  # a fragment: ': まず…', ') to …'
        return False
    if sum(ch.isascii() for ch in sentence) * 2 < len(sentence):  # Japanese (or other non-Latin) text
        return letters >= 10
    # a whole English sentence, not a line of a hard-wrapped paragraph: capital start, 4+ words, final stop
    return (letters >= 10 and len(sentence.split()) >= 4 and _EN_SENTENCE_RE.match(sentence) is not None)


def choose_summary(sentences: list[str], tags: list[str], common: set[str] = frozenset()) -> str:
    """2-3 consecutive substantive sentences (≤ SUMMARY_CHARS in all) holding the most of the page's tags,
    earliest on a tie; sentences in `common` (the site's template) are never chosen. Japanese sentences are
    joined as they are, others with a space. A page without such sentences gets the start of its first long
    sentence (cut after a comma), else its one best line of text (a caption), else ''."""
    pool = [s for s in sentences if s not in common and substantive(s)]
    if not pool:
        lines = [s for s in sentences if s not in common and substantive(s, strict=False)]
        return _clause(sentences, common) or _best_window([[s] for s in lines], tags)
    windows = []
    for start in range(len(pool)):
        window: list[str] = []
        for sentence in pool[start:start + SUMMARY_SENTENCES]:
            if len(_join([*window, sentence])) > SUMMARY_CHARS:
                break
            window.append(sentence)
        windows.append(window)
    return _best_window(windows, tags)


def _best_window(windows: list[list[str]], tags: list[str]) -> str:
    """The window holding the most tags plus sentences, earliest on a tie, joined."""
    best: tuple[int, int] = (-1, 0)
    chosen: list[str] = []
    for n, window in enumerate(windows):
        score = (sum(1 for t in tags if any(t in s for s in window)) + len(window), -n)
        if window and score > best:
            best, chosen = score, window
    return _join(chosen)


def _clause(sentences: list[str], common: set[str]) -> str:
    """The start of the first long prose sentence, cut after a comma (、，,) or space within SUMMARY_CHARS."""
    for sentence in sentences:
        head = sentence[:SUMMARY_CHARS]
        cut = max(head.rfind(mark) for mark in ("、", "，", ", ", " "))
        if sentence in common or len(sentence) <= SUMMARY_CHARS or cut < 20:
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


def summary_is_exact(summary: str, markdown: str) -> bool:
    """Whether `summary` is whole sentences of the body, each a character-exact substring of
    summary_source(markdown), joined as choose_summary joins them (nothing or one space between)."""
    source = summary_source(markdown)
    ends = {0, len(summary)} | {i + 1 for i, ch in enumerate(summary) if ch in "。．！？.!?」』）\"”"} \
        | {i for i, ch in enumerate(summary) if ch == " "}
    ok = [False] * (len(summary) + 1)  # ok[i]: summary[:i] is such a sequence
    ok[0] = True
    for end in sorted(ends - {0}):
        for start in sorted(e for e in ends if e < end and ok[e]):
            piece = summary[start + 1 if start and summary[start:start + 1] == " " else start:end]
            if piece and piece in source:
                ok[end] = True
                break
    return ok[-1]


def family(name: str) -> str:
    """A file name's family: its leading letters, lower-cased (nikki0107.html → nikki, live20150725 → live,
    daihon-yuki1.htm → daihon); '' when it starts with none."""
    match = _FAMILY_RE.match(PurePosixPath(name).name)
    return match.group().lower() if match else ""


def structure_categories(paths: list[str]) -> dict[str, str]:
    """Category of each page path from the site's own structure.

    Folders every page shares (`ja/` of a one-language mirror) are skipped; then a page in a folder gets the
    folder's name (`diary/…` → diary), a page at the top gets its file-name family when at least 2 top pages
    share it (nikki0107, nikki0108 → nikki), and the remaining top pages — the home page and other singletons
    (index, links, profile) — get TOP_CATEGORY.
    """
    parts = {p: PurePosixPath(p).parts for p in paths}
    common = 0
    while parts and all(len(pp) > common + 1 for pp in parts.values()) \
            and len({pp[common] for pp in parts.values()}) == 1:
        common += 1
    families = Counter(family(pp[-1]) for pp in parts.values() if len(pp) == common + 1)
    out = {}
    for path, pp in parts.items():
        rest = pp[common:]
        if len(rest) > 1:
            out[path] = rest[0]
            continue
        fam = family(rest[0])
        out[path] = fam if fam and families[fam] >= 2 and fam not in _INDEX_FAMILIES else TOP_CATEGORY
    return out


def nearest_categories(texts: list[str], categories: tuple[str, ...], embedder) -> list[str]:  # noqa: ANN001
    """For each text, the category name nearest by cosine under `embedder` (an siterag.index.embedding Embedder)."""
    if not texts:
        return []
    names = embedder.embed(list(categories))
    vectors = embedder.embed(texts)
    return [categories[int(i)] for i in (vectors @ names.T).argmax(axis=1)]


@dataclass
class SiteStats:
    """What machine metadata needs from the whole site: term and sentence document frequencies (sentences by
    sentence_key)."""

    docs: int
    df: Counter[str] = field(default_factory=Counter)
    sentence_df: Counter[str] = field(default_factory=Counter)

    def common(self, sentences: list[str]) -> set[str]:
        """Those of `sentences` that belong to the site's template: on 3 or more pages and on 5% of them, or on
        every page of a site of 2-3 (a page and its copy, page.htm and page.bak, share their sentences)."""
        out = set()
        for s in sentences:
            n = self.sentence_df.get(sentence_key(s), 0)
            if (n >= 3 and n * 20 >= self.docs) or (n >= 2 and n == self.docs):
                out.add(s)
        return out


def sentence_key(sentence: str) -> str:
    """A short hash of a sentence: what the site's sentence document frequencies count."""
    return hashlib.blake2b(sentence.encode(), digest_size=8).hexdigest()


@dataclass
class DocSummary:
    """What the site's document frequencies need of one page: its term keys and sentence keys."""

    terms: list[str]
    sentences: list[str]


def doc_summary(terms: PageTerms, sentences: list[str]) -> DocSummary:
    """Term keys and sentence keys of one page."""
    return DocSummary(sorted(terms.counts), sorted({sentence_key(s) for s in sentences}))


def site_stats(docs: list[DocSummary]) -> SiteStats:
    """Document frequencies over all the site's pages."""
    stats = SiteStats(len(docs))
    for d in docs:
        stats.df.update(d.terms)
        stats.sentence_df.update(d.sentences)
    return stats


def machine_fields(body: str, title: str, stats: SiteStats, terms: PageTerms | None = None,
                   sentences: list[str] | None = None) -> dict:
    """tags (≤ 8, each verbatim in the body) and summary (the page's own sentences) of one page, against the
    site's document frequencies; `terms` and `sentences` are the page's, when already known."""
    terms = page_terms(body) if terms is None else terms
    sentences = page_sentences(body) if sentences is None else sentences
    tags = pick_tags(score_terms(terms, stats.df, stats.docs, title), body)
    assert all(t in body for t in tags)
    return {"tags": tags, "summary": choose_summary(sentences, tags, stats.common(sentences))}


def needs_machine_fields(fields: dict) -> bool:
    """A document whose machine fields are missing: written by an older run (no category, or the old
    `metadata_by: fallback`) or cut off before the site pass. LLM-written fields are left alone."""
    by = fields.get("metadata_by")
    return by != "llm" and (by == "fallback" or not fields.get("category"))


CACHE_FILE = "enrich-cache.json"  # in data/logs/<site>/: per document, its body hash, term and sentence keys


def cached_summaries(layout: SiteLayout, docs: list[tuple[str, dict, str]],
                     known: dict[str, DocSummary]) -> dict[str, DocSummary]:
    """DocSummary of every document: `known` ones as given, the others from the cache in
    logs/<site>/CACHE_FILE (valid for this code of siterag.enrich.keywords and siterag.enrich.enrich) when their body is
    unchanged, else tokenised now; the cache is rewritten."""
    from siterag.enrich import keywords

    key = code_hash(keywords, sys.modules[__name__])
    path = layout.logs / CACHE_FILE
    cache = read_saved(path)
    entries = cache.get("docs") if cache.get("key") == key else {}
    entries = entries if isinstance(entries, dict) else {}
    out, fresh = {}, {}
    for rel, _, body in docs:
        body_hash = content_hash(body)
        entry = entries.get(rel)
        if rel in known:
            out[rel] = known[rel]
        elif isinstance(entry, dict) and entry.get("hash") == body_hash:
            out[rel] = DocSummary(entry["terms"], entry["sentences"])
        else:
            out[rel] = doc_summary(page_terms(body), page_sentences(body))
        fresh[rel] = {"hash": body_hash, "terms": out[rel].terms, "sentences": out[rel].sentences}
    if fresh != entries:
        atomic_write(path, json.dumps({"key": key, "docs": fresh}, ensure_ascii=False, separators=(",", ":")))
    return out


def enrich_site(layout: SiteLayout, site: SiteConfig, touched: set[str], embedder_name: str = "",
                docs: list[tuple[str, dict, str]] | None = None,
                progress: Callable[[int, int], None] | None = None) -> dict:
    """Give machine tags / summary / category to the corpus documents in `touched` (corpus paths new or changed
    in this run) and to any document still missing them; document frequencies are over the whole site.
    LLM-written documents and every other document keep their fields. Returns counts and seconds."""
    from siterag.pipeline import corpus_docs

    started = time.perf_counter()
    docs = corpus_docs(layout) if docs is None else docs
    targets = [d for d in docs if d[1].get("metadata_by") != "llm" and (d[0] in touched or needs_machine_fields(d[1]))]
    if not targets:
        return {"documents": len(docs), "enriched": 0, "rewritten": 0,
                "seconds": round(time.perf_counter() - started, 2)}
    own = {rel: (page_terms(body), page_sentences(body)) for rel, _, body in targets}  # each body tokenised once
    stats = site_stats(list(cached_summaries(layout, docs, {r: doc_summary(*o) for r, o in own.items()}).values()))
    categories = structure_categories([str(f.get("path") or rel) for rel, f, _ in docs])
    new: dict[str, dict] = {}
    for n, (rel, fields, body) in enumerate(targets, 1):
        new[rel] = {**machine_fields(body, str(fields.get("title") or ""), stats, *own[rel]),
                    "category": categories[str(fields.get("path") or rel)]}
        if progress:
            progress(n, len(targets))
    if site.categories:
        from siterag.index.embedding import get_embedder

        texts = [f"{fields.get('title') or ''}\n{new[rel]['summary'] or body[:300]}" for rel, fields, body in targets]
        chosen = nearest_categories(texts, site.categories, get_embedder(embedder_name or "use-multilingual-v3"))
        for (rel, _, _), category in zip(targets, chosen, strict=True):
            new[rel]["category"] = category
    rewritten = 0
    for rel, fields, body in targets:
        updated = {**fields, **new[rel], "metadata_by": "machine"}
        if updated != fields:
            write_doc(layout.corpus / rel, body, updated)
            rewritten += 1
    return {"documents": len(docs), "enriched": len(targets), "rewritten": rewritten,
            "seconds": round(time.perf_counter() - started, 2)}
