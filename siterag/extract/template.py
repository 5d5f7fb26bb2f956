"""A site's template: the lines that recur across its pages (menus, back links, footers, counters, headers).

siterag sees every page of a site, which a single-page extractor does not. A line — one line of a paragraph, a
list item, a heading, a table — that appears on pages of at least MIN_FAMILIES different page *families* is
template; text unique to a page is content. A family is a page with its copies and versions (a `.bak` copy, an
older version of a script, `index.htm` next to `index.html`): pages whose longest line is the same. Counting
families rather than pages keeps a copied page from turning its own text into template.

A recurring line is template only as part of a block that recurs as a whole. A block (a list, a paragraph, a
table) whose recurring lines come together on MIN_FAMILIES families — the same menu, footer or header, give or take
one line (a menu without the current page's entry) — is the site's; a block whose recurring lines are a combination
of the page's own (a setlist, a track list, a cast list: each song recurs, the list does not) is the page's text,
and its lines are no template on that page (`page_templates`).

A site's main pages are the link targets that at least HUB_SHARE of its families link to (and MIN_FAMILIES): a row
of links to them is navigation even where its text differs from page to page (the current page unlinked, another
button image). Each page's template list names the links it holds to them (HUB + a key of the link as written).

Whether a template line is dropped is decided on the page (siterag.extract.chrome): in the page's frame (before
its own text or after it) when its block is built like a header or footer (links, images, copyright lines);
inside the text only when it is a menu's link, a counter or a copyright line, so a heading that recurs inside the
body stays.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin

from siterag.extract.blocks import Block, html_to_blocks, normalise
from siterag.layout import atomic_write, read_saved
from siterag.normalize.sanitize import prepare_html

MIN_FAMILIES = 3  # a line on pages of this many families is template: nobody writes a sentence three times
SITE_WIDE = "!"  # marks a template key on at least half of the site's page families (recurring_keys)
INSIDE = "~"  # marks a template key that sits inside the pages' text where it recurs (inside_keys)
SITE_KNOWN = "*"  # in a page's template keys: its site has a template (on other pages if not on this one)
HUB = "@"  # in a page's template keys: a link (the key of its href as written) to one of the site's main pages
HUB_SHARE = 0.2  # a link target on this share of the site's families (and MIN_FAMILIES) is one of its main pages
LIST_ITEMS = 3  # a list of pages set as a block per item, this long or longer, is compared as one block
COMBINATION_LINES = 40  # a block with more recurring lines is compared as a whole only (not one line off)
UNITS_FILE = ".siterag-units.json"  # per normalized page: its line keys and family signature (cache)
UNITS_VERSION = 2  # how block_units splits a page; a cached entry of another version is parsed again
_HREF_RE = re.compile(r"(?<!!)\[(?:!\[[^\]]*\]\([^)]*\)|[^\]])*\]\(([^)\s]*)")  # a link's href in Markdown
SITE_ROOT = "http://site.invalid/"  # resolves a page's relative links to paths of its site
_INDEX_STEM_RE = re.compile(r"^(?:index|default|home|top)[^/]*$", re.IGNORECASE)


@lru_cache(maxsize=4096)  # a site's template lines recur on every page
def line_key(text: str) -> str:
    """A short key for a line's normalised text; '' for a line with no word characters (an image, a rule)."""
    return _norm_key(normalise(text))


def _norm_key(norm: str) -> str:
    """line_key of a line whose normalised text is `norm`."""
    return hashlib.blake2b(norm.encode("utf-8"), digest_size=8).hexdigest() if norm else ""


def href_key(href: str) -> str:
    """HUB + a short key of a link's href as the page writes it (in its Markdown)."""
    return HUB + hashlib.blake2b(href.encode("utf-8"), digest_size=6).hexdigest()


def hrefs(md: str) -> list[str]:
    """The hrefs of a Markdown line's links (a linked image's too), as written."""
    return _HREF_RE.findall(md) if "](" in md else []


def down_href(href: str) -> bool:
    """Whether a link as written leads down from its page: to a page of its folder or below it (`chizu/index.html`,
    `page2.html`), not up (`../`, `/`), not to its folder's index, another site or an anchor."""
    path = href.strip().split("#", 1)[0]
    return bool(path) and not path.startswith(("/", "../", "./..")) and ":" not in path.split("/", 1)[0] \
        and not ("/" not in path and _INDEX_STEM_RE.match(path))


_ONE_LINK_RE = re.compile(r"^[*_\s]*\[.*\]\([^)\s]*\)[*_\s]*$")  # a line that is one link and nothing else


def list_item(block: Block) -> bool:
    """Whether a block is one item of a list of pages set as a block each (table rows, paragraphs): one line that
    is one link, down the site (down_href)."""
    if len(block.lines) != 1:
        return False
    md = block.lines[0][0]
    found = hrefs(md)
    return len(found) == 1 and down_href(found[0]) and bool(_ONE_LINK_RE.match(md))


@dataclass(frozen=True)
class PageUnits:
    """A page's distinct line keys, its family signature (the key of its longest line), per block the keys of its
    lines with words, the hrefs of its links, and per run of list items (list_item) their keys."""

    keys: tuple[str, ...]
    signature: str
    blocks: tuple[tuple[str, ...], ...] = ()
    links: tuple[str, ...] = ()
    plain: tuple[str, ...] = ()  # keys of its lines without a link or an image: text, not a menu
    lists: tuple[tuple[str, ...], ...] = ()  # a list of the site's pages set as a block per item


def block_units(blocks: list[Block]) -> PageUnits:
    """The line keys of a page split into blocks."""
    keys: dict[str, None] = {}
    links: dict[str, None] = {}
    plain: dict[str, None] = {}
    per_block: list[tuple[str, ...]] = []
    lists: list[tuple[str, ...]] = []
    run: list[str] = []  # the keys of consecutive list items and the single plain lines among them
    items = 0
    longest, signature = -1, ""
    for block in blocks:
        found = []
        for md, text in block.lines:
            links.update(dict.fromkeys(hrefs(md)))
            norm = normalise(text)
            if not norm:
                continue
            key = _norm_key(norm)
            keys[key] = None
            if "](" not in md:
                plain[key] = None
            found.append(key)
            size = len(norm)
            if size > longest:
                longest, signature = size, key
        if len(found) > 1:  # only a block of several lines can be a combination of the page's own
            per_block.append(tuple(found))
        item = list_item(block)
        if not found or item or len(block.lines) == 1 and "](" not in block.lines[0][0]:
            run += found  # (an image or a rule between items, a heading or the current page's entry unlinked)
            items += item
            continue
        if items >= LIST_ITEMS:
            lists.append(tuple(run))
        run, items = [], 0
    if items >= LIST_ITEMS:
        lists.append(tuple(run))
    return PageUnits(tuple(keys), signature, tuple(per_block), tuple(links), tuple(plain), tuple(lists))


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


def link_target(page: str, href: str) -> str:
    """The path in the site that a link of `page` points at ('' for an anchor of the page, another site, mail)."""
    href = href.strip()
    if not href or href.startswith(("#", "mailto:", "javascript:")) or "://" in href and not href.startswith(
            SITE_ROOT):
        return ""
    url = urldefrag(urljoin(SITE_ROOT + page, href)).url
    return unquote(url[len(SITE_ROOT):]) if url.startswith(SITE_ROOT) else ""


def up_target(page: str, target: str) -> bool:
    """Whether a link of `page` to `target` leads back up the site's tree: to a page of a folder above the page's
    (`../index.htm`, `../../mokuji.htm` from `a/b/page.htm`), or to its own folder's index page. A link down or
    across (an album's cover to its page, a chapter to the next) is none."""
    if not target or target == page:
        return False
    folder, _, _ = page.rpartition("/")
    target_folder, _, name = target.rpartition("/")
    if target_folder == folder:
        return bool(_INDEX_STEM_RE.match(name))
    return not target_folder or folder.startswith(target_folder + "/")


def hub_targets(units: Mapping[str, PageUnits], share: float = HUB_SHARE,
                min_families: int = MIN_FAMILIES) -> set[str]:
    """The site's main pages: link targets on at least `share` of its families (and `min_families`)."""
    families: dict[str, set[str]] = {}
    for rel, page in units.items():
        for href in page.links:
            target = link_target(rel, href)
            if target and target != rel:
                families.setdefault(target, set()).add(page.signature)
    total = len({page.signature for page in units.values()})
    return {t for t, fams in families.items() if len(fams) >= max(min_families, share * total)}


def _variants(combination: frozenset[str]) -> list[frozenset[str]]:
    """The combination and each of it less one line: two blocks one line apart share one of these."""
    if len(combination) > COMBINATION_LINES:
        return [combination]
    return [combination, *(combination - {key} for key in combination)]


def own_combinations(units: Iterable[PageUnits], template: set[str], min_families: int = MIN_FAMILIES,
                     wide: Collection[str] = frozenset()) -> list[set[str]]:
    """Per page (in order), the template keys that are the page's own there: every block of the page holding the
    key is a combination of recurring lines found on fewer than `min_families` families, even one line apart
    (a setlist whose songs recur; not a menu that leaves out the current page). A list of pages set as a block per
    item (PageUnits.lists) is one block, of its lines that are not on half of the site's families (`wide`: the
    site's own menu stays its template): a section's index listing its pages, each of which repeats its name."""
    pages = list(units)
    families: dict[frozenset[str], set[str]] = {}
    combos: list[list[frozenset[str]]] = []
    for page in pages:
        found = []
        blocks = [(block, 2) for block in page.blocks]
        blocks += [([k for k in run if k not in wide], LIST_ITEMS) for run in page.lists]
        for block, least in blocks:
            combination = frozenset(k for k in block if k in template)
            if len(combination) >= least:
                found.append(combination)
                for variant in _variants(combination):
                    families.setdefault(variant, set()).add(page.signature)
        combos.append(found)
    out = []
    for found in combos:
        own: set[str] = set()
        shared: set[str] = set()
        for combination in found:
            seen = set().union(*(families.get(v, set()) for v in _variants(combination)))
            (own if len(seen) < min_families else shared).update(combination)
        out.append(own - shared)
    return out


def inside_keys(units: Iterable[PageUnits], template: set[str]) -> set[str]:
    """Template keys that sit inside the pages' own text (after a plain line of the page's own and before another)
    on at least half of the families holding them: the same verse after each day of a diary, a song in the middle of
    many setlists. A header, a menu or a footer sits in the same place, before or after the page's text, on the
    pages that share it."""
    inside: dict[str, set[str]] = {}
    edge: dict[str, set[str]] = {}
    for page in units:
        text = set(page.plain)
        own = [n for n, key in enumerate(page.keys) if key not in template and key in text]
        if not own:
            continue
        for n, key in enumerate(page.keys):
            if key in template:
                (inside if own[0] < n < own[-1] else edge).setdefault(key, set()).add(page.signature)
    return {key for key, fams in inside.items() if len(fams) >= len(edge.get(key, ()))}


def page_templates(units: Mapping[str, PageUnits], min_families: int = MIN_FAMILIES) -> dict[str, list[str]]:
    """Per page, its template keys (sorted; SITE_WIDE marks those on half of the site's families), SITE_KNOWN
    when the site has a template, and HUB keys for its links to the site's main pages, back up its tree
    (up_target) and to itself."""
    # one string per template line, shared by every page's list (memory), marked when site-wide
    canon = {k.removesuffix(SITE_WIDE): k for k in recurring_keys(units.values(), min_families)}
    for key in inside_keys(units.values(), set(canon)):
        canon[key] += INSIDE
    hubs = hub_targets(units, min_families=min_families)
    wide = {key for key, marked in canon.items() if marked.endswith(SITE_WIDE)}
    own = own_combinations(units.values(), set(canon), min_families, wide)
    known = [SITE_KNOWN] if canon or hubs else []  # every page says whether its site has a template at all
    out = {}
    for (rel, page), mine in zip(units.items(), own, strict=True):
        links = sorted({href_key(h) for h in page.links  # (a button that reloads the page goes nowhere else)
                        if (target := link_target(rel, h)) and (target in hubs or target == rel
                                                                 or up_target(rel, target))})
        out[rel] = known + sorted(canon[k] for k in page.keys if k in canon and k not in mine) + links
    return out


def split_template(template: Iterable[str]) -> tuple[set[str], set[str], bool]:
    """(every template key, the site-wide ones, whether the site has a template) of a page's template keys
    (HUB keys among them: see hub_links; INSIDE ones: see inside_template)."""
    keys, wide, known = set(), set(), False
    for key in template:
        if key == SITE_KNOWN:
            known = True
            continue
        if key.startswith(HUB):
            continue
        key = key.removesuffix(INSIDE)
        if key.endswith(SITE_WIDE):
            key = key[:-len(SITE_WIDE)]
            wide.add(key)
        keys.add(key)
    return keys, wide, known or bool(keys)


def inside_template(template: Iterable[str]) -> set[str]:
    """The template keys of a page's list that sit inside the pages' text where they recur (inside_keys)."""
    return {key.removesuffix(INSIDE).removesuffix(SITE_WIDE) for key in template if key.endswith(INSIDE)}


def hub_links(template: Iterable[str]) -> set[str]:
    """The HUB keys of a page's template keys: its links to the site's main pages and back up its tree."""
    return {key for key in template if key.startswith(HUB)}


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
        if not (isinstance(entry, dict) and entry.get("hash") == info["hash"]
                and entry.get("v") == UNITS_VERSION):
            found = page_units((normalized / rel).read_text(encoding="utf-8"))
            entry = {"v": UNITS_VERSION, "hash": info["hash"], "keys": list(found.keys), "sig": found.signature,
                     "blocks": [list(b) for b in found.blocks], "links": list(found.links),
                     "plain": list(found.plain), "lists": [list(b) for b in found.lists]}
        fresh[rel] = entry
        units[rel] = PageUnits(tuple(entry["keys"]), entry["sig"], tuple(tuple(b) for b in entry["blocks"]),
                               tuple(entry["links"]), tuple(entry["plain"]), tuple(tuple(b) for b in entry["lists"]))
    if fresh != cache:
        atomic_write(cache_path, json.dumps(fresh, separators=(",", ":")))
    return page_templates(units)


def folder_template(folder: Path) -> dict[str, list[str]]:
    """Per page, the template keys of a folder that is a site's mirror, found as `siterag run` finds them (every
    HTML page by content, decoded to UTF-8, its recurring lines counted). For benchmarks and tests."""
    import tempfile

    from siterag.pipeline import normalize_pages, select_pages

    with tempfile.TemporaryDirectory() as tmp:
        select = select_pages(folder, Path(tmp))
        manifest = normalize_pages(folder, Path(tmp) / "normalized", select.pages)
        return site_template(Path(tmp) / "normalized", manifest)
