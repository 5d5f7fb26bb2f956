"""Tags to judge by reading: the machine's tags of pages drawn at random from shared sites, next to their text.

    .venv/bin/python benchmarks/tags.py --sites gyrobot,nanatsumori --data /tmp/tags-data --pages 10 --seed 7
    .venv/bin/python benchmarks/tags.py --sites hrtaj --data /tmp/tags-data --pages 8 --seed 24 --text

The first run of a site builds its corpus into --data (the flow's page work: benchmarks/metadata.build_site); a
later run reruns only the enrich site pass over it (every document, with this checkout's code) and prints, per
drawn page, `## <corpus path> | <title>`, its tags, and with --text the start of its body. Judge each tag with
../shared/benchmarks/judging.md (whole, topical, not generic, not UI, not the site's name). The same --seed draws
the same pages, so two checkouts (before / after) can be compared on one corpus copy.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from metadata import SHARED_SITES, build_site  # noqa: E402

from siterag.config import SiteConfig  # noqa: E402
from siterag.enrich.enrich import enrich_site  # noqa: E402
from siterag.layout import SiteLayout  # noqa: E402
from siterag.pipeline import corpus_docs  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sites", required=True, help="comma-separated names under ../shared/sites")
    ap.add_argument("--data", required=True, type=Path, help="data folder the corpora are built into (kept)")
    ap.add_argument("--pages", type=int, default=10, help="pages drawn per site")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--text", action="store_true", help="print the start of each page's body too")
    args = ap.parse_args(argv)
    for name in args.sites.split(","):
        layout = SiteLayout(args.data, name)
        started = time.perf_counter()
        if not layout.corpus.exists():
            build_site(name, SHARED_SITES / name, args.data)
        else:
            site = SiteConfig(name=name, local_path=str(SHARED_SITES / name), extract_mode="heuristic")
            enrich_site(layout, site, {rel for rel, _, _ in corpus_docs(layout)})
        print(f"# {name}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
        docs = sorted(corpus_docs(layout), key=lambda d: d[0])
        for rel, fields, body in random.Random(args.seed).sample(docs, min(args.pages, len(docs))):
            print(f"## {name}/{rel} | {fields.get('title')}\n  tags: {' / '.join(fields.get('tags') or [])}")
            if args.text:
                print("  " + " ".join(body.split())[:300])
    return 0


if __name__ == "__main__":
    sys.exit(main())
