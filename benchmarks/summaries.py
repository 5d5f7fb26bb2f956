"""Summaries to read: a seeded sample of a shared site's documents, each with its machine summary, and with
--before COMMIT the summary that COMMIT's siterag/enrich/summary.py chooses from the same sentences, tags and
site statistics (judge both with ../shared/benchmarks/judging.md).

    .venv/bin/python benchmarks/summaries.py --sites gyrobot,nanatsumori --n 10 --seed 2026 --before dcff8c8
    .venv/bin/python benchmarks/summaries.py --sites leftyuncle --n 9 --seed 2612 --body 700 --data /tmp/sum

Each site is built as benchmarks/metadata.py builds it (copy, normalize, extract, the enrich site pass) into
--data/<site> unless already there (reuse the folder across runs: the build is the slow part). The sample is
`random.Random(seed).sample(corpus_docs(layout), n)`, one generator for the sites in the order given.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from metadata import SHARED_SITES, build_site  # noqa: E402

from siterag.enrich import enrich  # noqa: E402
from siterag.layout import SiteLayout  # noqa: E402
from siterag.pipeline import corpus_docs  # noqa: E402


def summary_at(commit: str):  # noqa: ANN201 - a module
    """siterag/enrich/summary.py as it was at `commit`, loaded as a module of its own."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:siterag/enrich/summary.py"],
                            capture_output=True, text=True, check=True).stdout
    path = Path(tempfile.mkdtemp(prefix="siterag-summary-")) / "summary_before.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("summary_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sites", required=True, help="comma-separated names under ../shared/sites")
    ap.add_argument("--n", type=int, default=10, help="documents per site")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", default=str(Path(tempfile.gettempdir()) / "siterag-bench" / "summaries"))
    ap.add_argument("--before", help="a commit whose summary.py gives the 'before' summaries")
    ap.add_argument("--body", type=int, default=0, help="print this many characters of each body")
    args = ap.parse_args(argv)
    before = summary_at(args.before) if args.before else None
    rng = random.Random(args.seed)
    for name in args.sites.split(","):
        layout = SiteLayout(Path(args.data), name)
        if not layout.corpus.is_dir():
            build_site(name, SHARED_SITES / name, Path(args.data))
        docs = corpus_docs(layout)
        facts = {rel: enrich.page_facts(body) for rel, _, body in docs}
        stats = enrich.SiteStats(len(docs))
        for rel, _, _ in docs:
            keys = enrich.doc_summary(facts[rel].terms, facts[rel].sentences, facts[rel].lines)
            stats.df.update(keys.terms)
            stats.sentence_df.update(keys.sentences)
        names = enrich.site_names([str(f.get("title") or "") for _, f, _ in docs])
        for rel, fields, body in rng.sample(docs, min(args.n, len(docs))):
            title = str(fields.get("title") or "")
            place = {k: str(fields.get(k) or "") for k in ("kind", "section", "category")}  # as enrich_site put them
            machine = enrich.machine_fields(body, title, stats, facts[rel], names, place)
            print(f"=== {name}/{rel}  [{fields.get('path')}]  title: {title}")
            if before:
                page = facts[rel]
                common = stats.common(page.sentences) | {s for s in page.sentences
                                                         if enrich._UI_SENTENCE_RE.search(s)}
                lead = before.choose_summary(page.sentences, machine["tags"], common, page.quotes)
                print(f"  before: {before.composed_summary(body, title, lead) or lead}")
            print(f"  now:    {machine['summary']}")
            if args.body:
                print("  body:   " + " ⏎ ".join(x for x in body.splitlines() if x.strip())[:args.body])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
