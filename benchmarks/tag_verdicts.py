"""Score a corpus's tags against tags judged by reading (benchmarks/tag-verdicts/verdicts.tsv).

    .venv/bin/python benchmarks/reading_sample.py build . /tmp/tv/after       # the held-out sites' corpus
    .venv/bin/python benchmarks/tag_verdicts.py /tmp/tv/after/corpus [--list]

verdicts.tsv holds every tag of 231 pages of the held-out sites (leftyuncle, hrtaj, brianwilliams) as built on
3c33f79, each judged good or bad by a reader with ../shared/benchmarks/judging.md (strictly: "when unsure, bad"),
and a bad one's class (generic, fragment, passing, debris, owner, ui, other), plus the tags later versions put
on those pages (judged the same way, with the lines that hold them). The score is the share of good tags among a
build's tags on those pages that have a verdict, with the judged tags it does not have (good, bad) and the tags
it puts there that have none (`--list` prints them: judge them and add them, or the figure says less).

The pages were read while tuning: a figure from them says which way a change goes, not how good the tags are on
pages nobody read (benchmarks/reading_sample.py draws those).
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from pathlib import Path

VERDICTS = Path(__file__).resolve().parent / "tag-verdicts" / "verdicts.tsv"


def load_verdicts(path: Path = VERDICTS) -> dict[tuple[str, str, str], tuple[str, str]]:
    """(site, corpus path, tag) -> (verdict, why)."""
    with path.open(encoding="utf-8", newline="") as fh:
        return {(r["site"], r["rel"], r["tag"]): (r["verdict"], r["why"]) for r in csv.DictReader(fh, delimiter="\t")}


def corpus_tags(corpus: Path, pages: set[tuple[str, str]]) -> dict[tuple[str, str], list[str]]:
    """The tags of the given (site, corpus path) documents of a corpus folder."""
    import yaml

    out = {}
    for site, rel in pages:
        path = corpus / site / rel
        if path.exists():
            _, front, _ = path.read_text(encoding="utf-8").split("---\n", 2)
            out[(site, rel)] = list((yaml.safe_load(front) or {}).get("tags") or [])
    return out


def score(verdicts: dict, tags: dict[tuple[str, str], list[str]]) -> dict:
    """good / judged among the build's tags, judged tags dropped (by verdict), tags with no verdict."""
    kept, dropped, unjudged = Counter(), Counter(), []
    for (site, rel, tag), (verdict, _) in verdicts.items():
        if (site, rel) in tags:
            (kept if tag in tags[(site, rel)] else dropped)[verdict] += 1
    for (site, rel), found in sorted(tags.items()):
        unjudged += [(site, rel, t) for t in found if (site, rel, t) not in verdicts]
    judged = kept["good"] + kept["bad"]
    return {"good": kept["good"], "judged": judged, "share": kept["good"] / judged if judged else 0.0,
            "dropped_good": dropped["good"], "dropped_bad": dropped["bad"], "unjudged": unjudged}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", type=Path, help="a corpus folder (<site>/<path>.md), e.g. /tmp/tv/after/corpus")
    ap.add_argument("--list", action="store_true", help="print the tags that have no verdict")
    args = ap.parse_args()
    verdicts = load_verdicts()
    tags = corpus_tags(args.corpus, {(s, r) for s, r, _ in verdicts})
    if not tags:
        print(f"siterag: error: no judged page found under {args.corpus}", file=sys.stderr)
        return 2
    result = score(verdicts, tags)
    print(f"{len(tags)} pages: {result['good']}/{result['judged']} judged tags good ({result['share']:.1%}); "
          f"judged tags it does not have: {result['dropped_good']} good, {result['dropped_bad']} bad; "
          f"{len(result['unjudged'])} tags without a verdict")
    if args.list:
        for site, rel, tag in result["unjudged"]:
            print(f"  {site}\t{rel}\t{tag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
