"""Index write benchmark: how a first run's index writes grow with the number of documents.

    .venv/bin/python benchmarks/index_write.py                   # 1,500 and 6,000 documents
    .venv/bin/python benchmarks/index_write.py --docs 1000,4000,7000

Synthetic documents of 4 chunks each (pre-chunked, so chunking is not measured; under 30,000 chunks, so no
vector index is built) and a stand-in embedder that returns fixed random unit vectors (the embedding is measured
by benchmarks/scale.py), written by `sync_site` into a fresh LanceDB folder: a first run, every document new.
Prints wall and CPU seconds per size and per 1,000 documents; linear growth keeps the per-1,000 figure flat.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class FixedEmbedder:
    """Random 512-d unit vectors (seeded): no model, so only the writes are timed."""

    name, dim = "fixed", 512

    def __init__(self) -> None:
        self._rng = np.random.default_rng(0)

    def embed(self, texts: list[str]) -> np.ndarray:
        out = self._rng.standard_normal((len(texts), self.dim)).astype(np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def documents(n: int, chunks: int = 4) -> list:
    from siterag.index.chunking import Chunk
    from siterag.index.index import IndexedDoc

    docs = []
    for i in range(n):
        parts = [Chunk(k, f"見出し{k}", f"文書{i}の段落{k}。" * 12, 60, "2003-05-01") for k in range(chunks)]
        docs.append(IndexedDoc(doc_id=f"bench/p{i}.md", site="bench", path=f"p{i}.md", source="", title=f"文書{i}",
                               category="", tags=["t"], date="2003-05-01", summary="要約。", content_hash=f"h{i}",
                               body="x", chunks=parts))
    return docs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", default="1500,6000", help="document counts, comma-separated (default 1500,6000)")
    args = parser.parse_args()
    from siterag.index.index import sync_site

    print(f"{'documents':>10} {'chunks':>8} {'wall s':>8} {'CPU s':>7} {'wall s / 1,000 docs':>20}")
    for n in (int(x) for x in args.docs.split(",")):
        docs = documents(n)
        where = Path(tempfile.mkdtemp(prefix="siterag-index-write-"))
        try:
            wall, cpu = time.perf_counter(), time.process_time()
            stats = sync_site(where, "bench", docs, FixedEmbedder())
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        finally:
            shutil.rmtree(where, ignore_errors=True)
        print(f"{n:>10} {stats.chunks:>8} {wall:>8.1f} {cpu:>7.1f} {1000 * wall / n:>20.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
