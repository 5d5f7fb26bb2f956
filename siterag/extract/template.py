"""A site's template: the lines that recur across its pages (menus, back links, footers, counters, headers).

siterag sees every page of a site, which a single-page extractor does not. A line — one line of a paragraph, a
list item, a heading, a table — that appears on pages of at least MIN_FAMILIES different page *families* is
template; text unique to a page is content. A family is a page with its copies and versions (a `.bak` copy, an
older version of a script, `index.htm` next to `index.html`): pages whose longest line is the same. Counting
families rather than pages keeps a copied page from turning its own text into template.

Whether a recurring line is dropped is decided on the page (siterag.extract.chrome): at the page's edges (header,
side menu, footer) as far as they are built like one (links, images, copyright lines, lines on half the site's
families — marked SITE_WIDE here —, lines outside the box of the page's text); inside the text only when it is a
menu's link, a counter or a copyright line, so a heading that recurs inside the body ("登場人物", "あらすじ")
stays.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from siterag.extract.blocks import Block, html_to_blocks, normalise
from siterag.layout import atomic_write, read_saved
from siterag.normalize.sanitize import prepare_html

MIN_FAMILIES = 3  # a line on pages of this many families is template: nobody writes a sentence three times
SITE_WIDE = "!"  # marks a template key on at least half of the site's page families (recurring_keys)
SITE_KNOWN = "*"  # in a page's template keys: its site has a template (on other pages if not on this one)
UNITS_FILE = ".siterag-units.json"  # per normalized page: its line keys and family signature (cache)


@lru_cache(maxsize=4096)  # a site's template lines recur on every page
def line_key(text: str) -> str:
    """A short key for a line's normalised text; '' for a line with no word characters (an image, a rule)."""
    return _norm_key(normalise(text))


def _norm_key(norm: str) -> str:
    """line_key of a line whose normalised text is `norm`."""
    return hashlib.blake2b(norm.encode("utf-8"), digest_size=8).hexdigest() if norm else ""


@dataclass(frozen=True)
class PageUnits:
    """A page's distinct line keys and its family signature (the key of its longest line)."""

    keys: tuple[str, ...]
    signature: str


def block_units(blocks: list[Block]) -> PageUnits:
    """The line keys of a page split into blocks."""
    keys: dict[str, None] = {}
    longest, signature = -1, ""
    for block in blocks:
        for _, text in block.lines:
            norm = normalise(text)
            if not norm:
                continue
            key = _norm_key(norm)
            keys[key] = None
            size = len(norm)
            if size > longest:
                longest, signature = size, key
    return PageUnits(tuple(keys), signature)


def page_units(html: str) -> PageUnits:
    """The line keys of one normalized page, split exactly as the extractor splits it."""
    blocks, _ = html_to_blocks(prepare_html(html))
    return block_units(blocks)


def recurring_keys(pages: Iterable[PageUnits], min_families: int = MIN_FAMILIES) -> set[str]:
    """Keys that occur on pages of at least `min_families` families; one on at least half of the site's families
    (its header, menu, footer: the site's own template, not a few pages' shared lines) carries SITE_WIDE."""
    families: dict[str, str | set[str]] = {}  # a key's one family, or its families once it has two (memory)
    signatures: set[str] = set()
    for page in pages:
        sig = page.signature
        signatures.add(sig)
        for key in page.keys:
            seen = families.get(key)
            if seen is None:
                families[key] = sig
            elif isinstance(seen, set):
                seen.add(sig)
            elif seen != sig:
                families[key] = {seen, sig}
    return {key + SITE_WIDE if 2 * len(seen) >= len(signatures) else key
            for key, seen in families.items() if isinstance(seen, set) and len(seen) >= min_families}


def split_template(template: Iterable[str]) -> tuple[set[str], set[str], bool]:
    """(every template key, the site-wide ones, whether the site has a template) of a page's template keys."""
    keys, wide, known = set(), set(), False
    for key in template:
        if key == SITE_KNOWN:
            known = True
            continue
        if key.endswith(SITE_WIDE):
            key = key[:-len(SITE_WIDE)]
            wide.add(key)
        keys.add(key)
    return keys, wide, known or bool(keys)


def site_template(normalized: Path, manifest: dict[str, dict]) -> dict[str, list[str]]:
    """Per page of the working set, the template keys found on it (sorted).

    Each page's line keys are cached in UNITS_FILE by the page's hash, so a refresh parses only new and changed
    pages; a page's list changes only when the template lines it holds change.
    """
    cache_path = normalized / UNITS_FILE
    cache = read_saved(cache_path)
    units: dict[str, PageUnits] = {}
    fresh: dict[str, dict] = {}
    for rel, info in sorted(manifest.items()):
        entry = cache.get(rel)
        if not (isinstance(entry, dict) and entry.get("hash") == info["hash"]):
            found = page_units((normalized / rel).read_text(encoding="utf-8"))
            entry = {"hash": info["hash"], "keys": list(found.keys), "sig": found.signature}
        fresh[rel] = entry
        units[rel] = PageUnits(tuple(entry["keys"]), entry["sig"])
    if fresh != cache:
        atomic_write(cache_path, json.dumps(fresh, separators=(",", ":")))
    # one string per template line, shared by every page's list (memory), marked when site-wide
    canon = {k.removesuffix(SITE_WIDE): k for k in recurring_keys(units.values())}
    known = [SITE_KNOWN] if canon else []  # every page says whether its site has a template at all
    return {rel: known + sorted(canon[k] for k in page.keys if k in canon) for rel, page in units.items()}


def folder_template(folder: Path) -> dict[str, list[str]]:
    """Per page, the template keys of a folder that is a site's mirror, found as `siterag run` finds them (every
    HTML page by content, decoded to UTF-8, its recurring lines counted). For benchmarks and tests."""
    import tempfile

    from siterag.pipeline import normalize_pages, select_pages

    with tempfile.TemporaryDirectory() as tmp:
        select = select_pages(folder, Path(tmp))
        manifest = normalize_pages(folder, Path(tmp) / "normalized", select.pages)
        return site_template(Path(tmp) / "normalized", manifest)
