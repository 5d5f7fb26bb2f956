"""A blind A/B reading sample of the corpus metadata (judging.md), for a person or a helper to read.

    # the held-out sites' corpus with one checkout's page stages (no index), e.g. a worktree of an older commit
    .venv/bin/python benchmarks/reading_sample.py build /tmp/old-checkout /tmp/judge/before
    .venv/bin/python benchmarks/reading_sample.py build . /tmp/judge/after
    # 12 documents per site, each with both versions' front matter as A and B (shuffled), its body, its page
    .venv/bin/python benchmarks/reading_sample.py sample /tmp/judge/before /tmp/judge/after /tmp/judge/s1206 --seed 1206

`build` runs benchmarks/metadata.py's build_site (copy, normalize, site template, extract, the enrich pass) of
the given checkout on each site. `sample` draws with random.Random(seed), one generator, sites in the order
given, rng.sample(sorted corpus paths of the first data dir, 12); writes NN.txt per document (the two versions'
title, date, lastmod, tags, summary, kind, category, section; the body; the original page rendered to text with
lxml from the normalized copy) and key.json (which of A/B is which: open it after judging). `--exclude
KEY.json` leaves out the pages of an earlier sample (pages read while tuning), so a new reading is of unseen ones:

    .venv/bin/python benchmarks/reading_sample.py sample B A /tmp/judge/s1208 --seed 1208 \\
        --exclude /tmp/judge/s1207/key.json

`--changed` draws only the pages whose metadata the two builds disagree on (up to `--per-site`): to read every
page a change touches, blind, next to its page.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

SITES = ("leftyuncle", "hrtaj", "brianwilliams")
FIELDS = ("title", "date", "lastmod", "tags", "summary", "kind", "category", "section")
SHARED_SITES = Path(__file__).resolve().parent.parent.parent / "shared" / "sites"
_BLOCK_TAGS = {"br", "p", "div", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table", "td", "dt", "dd", "hr",
               "title"}


def build(src: Path, out: Path, sites: tuple[str, ...]) -> None:
    """The sites' corpus into `out` with the page stages of the checkout `src`."""
    sys.path[:0] = [str(src), str(src / "benchmarks")]
    import siterag

    if not Path(siterag.__file__).resolve().is_relative_to(src.resolve()):
        sys.exit(f"siterag imported from {siterag.__file__}, not from {src}")
    from metadata import build_site

    for name in sites:
        print(name, build_site(name, SHARED_SITES / name, out)[1], flush=True)


def _front(path: Path) -> tuple[dict, str]:
    import yaml

    _, fm, body = path.read_text(encoding="utf-8").split("---\n", 2)
    return yaml.safe_load(fm) or {}, body


def render(path: Path) -> str:
    """A page's visible text, a line per block (scripts, styles and comments dropped; images by alt or src)."""
    from lxml import html as lh

    from siterag.extract.blocks import read_on

    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", path.read_bytes().decode("utf-8", "replace"))
    doc = lh.fromstring(read_on(text) or "<html/>")  # (on past `</html>`, as a browser reads)
    for bad in doc.xpath("//script|//style|//comment()"):
        if bad.getparent() is not None:
            bad.getparent().remove(bad)
    for el in doc.iter():
        if isinstance(el.tag, str) and el.tag.lower() in _BLOCK_TAGS:
            el.tail = "\n" + (el.tail or "")
    for img in doc.iter("img"):
        img.tail = f" [img {img.get('alt') or img.get('src')}]" + (img.tail or "")
    lines = [" ".join(line.split()) for line in doc.text_content().splitlines()]
    return "\n".join(line for line in lines if line)


def seen_pages(keys: list[Path]) -> set[tuple[str, str]]:
    """(site, corpus path) of every document of earlier samples (their key.json): pages the tuning has read."""
    return {(v["site"], v["rel"]) for key in keys for v in json.loads(key.read_text(encoding="utf-8")).values()}


def changed_pages(before: Path, after: Path, site: str) -> set[str]:
    """The site's corpus paths whose metadata (FIELDS) differs between the two builds: the pages a change touches."""
    root = before / "corpus" / site
    out = set()
    for path in root.rglob("*.md"):
        rel = str(path.relative_to(root))
        new_path = after / "corpus" / site / rel
        old, new = _front(path)[0], _front(new_path)[0] if new_path.exists() else {}
        if any(old.get(k) != new.get(k) for k in FIELDS):
            out.add(rel)
    return out


def sample(before: Path, after: Path, out: Path, seed: int, sites: tuple[str, ...], per_site: int = 12,
           exclude: set[tuple[str, str]] = frozenset(), changed: bool = False) -> None:
    """Draw `per_site` pages per site (`changed`: only pages whose metadata the two builds disagree on, up to
    `per_site`) and write them for reading (the module docstring)."""
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    key: dict[str, dict] = {}
    n = 0
    for site in sites:
        root = before / "corpus" / site
        every = sorted(str(p.relative_to(root)) for p in root.rglob("*.md"))
        if changed:
            touched = changed_pages(before, after, site)
            every = [rel for rel in every if rel in touched]
        pool = [rel for rel in every if (site, rel) not in exclude]
        drawn = rng.sample(pool, min(per_site, len(pool)))
        if len(drawn) < per_site and not changed:  # a small site read before: the rest from pages read (said)
            drawn += rng.sample([rel for rel in every if (site, rel) in exclude], per_site - len(drawn))
            print(f"{site}: {len(pool)} unread pages; {per_site - len(pool)} drawn from pages read before")
        for rel in drawn:
            n += 1
            old, body = _front(root / rel)
            new_path = after / "corpus" / site / rel
            new, new_body = _front(new_path) if new_path.exists() else ({}, "")
            after_first = rng.random() < 0.5
            versions = {"A": new if after_first else old, "B": old if after_first else new}
            key[f"{n:02d}"] = {"site": site, "rel": rel, "A": "after" if after_first else "before",
                               "B": "before" if after_first else "after"}
            page = before / "normalized" / site / str(old.get("path") or rel)
            lines = [f"# document {n:02d}: site {site}, page {old.get('path')}",
                     f"# original page file (UTF-8, normalized copy): {page.resolve()}", ""]
            for name, fields in versions.items():
                lines.append(f"== version {name} ==")
                lines += [f"{k}: {json.dumps(fields[k], ensure_ascii=False)}" for k in FIELDS if k in fields]
                lines.append("")
            lines += ["== corpus body (version B's; bodies are the same or nearly) ==",
                      (body if after_first else new_body)[:6000], "",
                      "== original page rendered to text ==",
                      render(page)[:8000] if page.exists() else f"(original not found: {page})"]
            (out / f"{n:02d}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "key.json").write_text(json.dumps(key, indent=1, ensure_ascii=False), encoding="utf-8")
    print(n, "documents written to", out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("checkout", type=Path)
    b.add_argument("out", type=Path)
    s = sub.add_parser("sample")
    s.add_argument("before", type=Path)
    s.add_argument("after", type=Path)
    s.add_argument("out", type=Path)
    s.add_argument("--seed", type=int, default=1206)
    s.add_argument("--exclude", type=Path, action="append", default=[],
                   help="an earlier sample's key.json: its pages are not drawn again (repeatable)")
    s.add_argument("--changed", action="store_true",
                   help="draw only pages whose metadata differs between the builds (read every page a change touches)")
    s.add_argument("--per-site", type=int, default=12)
    for p in (b, s):
        p.add_argument("--sites", default=",".join(SITES))
    args = ap.parse_args()
    sites = tuple(args.sites.split(","))
    if args.command == "build":
        build(args.checkout.resolve(), args.out, sites)
    else:
        sample(args.before, args.after, args.out, args.seed, sites, args.per_site, seen_pages(args.exclude),
               args.changed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
