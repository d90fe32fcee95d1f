"""Distributional word clusters learned without labels (features for the CRF).

:func:`learn_clusters` reads raw texts (the training documents' text; their annotations are not used) and
groups word types that occur in similar contexts:

1. words are :func:`clinanon.text.tokenize` tokens, lower-cased, with every digit mapped to ``0``;
2. a co-occurrence matrix counts, for each *target* word (seen ``min_count`` times in ``min_docs`` documents or
   more), the *context* words (the ``max_contexts`` most frequent types) at distance 1..``window`` on the left
   and, separately, on the right (weight ``1 / distance``);
3. positive pointwise mutual information (context distribution smoothed with exponent 0.75), then a truncated
   SVD (randomised range finder with a fixed seed, numpy only) to ``dim`` dimensions, rows L2-normalised;
4. k-means (k-means++ seeding from ``seed``, cosine geometry) once per size in ``sizes``: every word gets one
   cluster id per size, coarse to fine.

Guarantees: a deterministic function of (texts in order, parameters) on one machine (fixed seeds, stable
sorting, no hash order); the table holds only words that occur in at least ``min_docs`` documents (a word of a
single document -- typically a person's name -- is never stored); nothing is logged. The table is saved as a
small TSV file (``word<TAB>id<TAB>id...``) next to the CRF model.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from clinanon.errors import InputError
from clinanon.lang import check_language
from clinanon.text import tokenize

__all__ = ["CLUSTER_FILE", "WordClusters", "cluster_key", "learn_clusters"]

CLUSTER_FILE = "clusters.tsv"
_HEADER = "#clinanon-word-clusters\t1"


def cluster_key(word: str) -> str:
    """The form a word is looked up under: lower-cased, every digit replaced by ``0``."""
    w = word.lower()
    if any(c.isdigit() for c in w):
        w = "".join("0" if c.isdigit() else c for c in w)
    return w


class WordClusters:
    """A word -> cluster ids table (one id per granularity in ``sizes``, coarse to fine)."""

    def __init__(self, table: Mapping[str, tuple[int, ...]], sizes: tuple[int, ...]) -> None:
        self.sizes = tuple(int(s) for s in sizes)
        self.table: dict[str, tuple[int, ...]] = dict(table)
        for ids in self.table.values():
            if len(ids) != len(self.sizes):
                raise ValueError("every word needs one cluster id per size")

    def __len__(self) -> int:
        return len(self.table)

    def __repr__(self) -> str:
        return f"WordClusters(words={len(self.table)}, sizes={self.sizes})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WordClusters) and self.sizes == other.sizes and self.table == other.table

    def get(self, word: str) -> tuple[int, ...] | None:
        """The cluster ids of ``word`` (looked up by :func:`cluster_key`), or ``None`` when it is not in the table."""
        return self.table.get(cluster_key(word))

    def dumps(self) -> str:
        """The TSV text :meth:`save` writes (words sorted, so equal tables give equal files)."""
        lines = [_HEADER, "#sizes\t" + "\t".join(map(str, self.sizes))]
        lines += [w + "\t" + "\t".join(map(str, ids)) for w, ids in sorted(self.table.items())]
        return "\n".join(lines) + "\n"

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.dumps(), encoding="utf-8")

    @classmethod
    def loads(cls, text: str, *, path: str | Path = "<clusters>") -> WordClusters:
        lines = text.split("\n")
        if not lines or lines[0] != _HEADER or len(lines) < 2 or not lines[1].startswith("#sizes\t"):
            raise InputError("not a clinanon word-cluster file", path=path)
        try:
            sizes = tuple(int(x) for x in lines[1].split("\t")[1:])
        except ValueError:
            raise InputError("bad cluster sizes", path=path, line=2) from None
        table: dict[str, tuple[int, ...]] = {}
        for no, line in enumerate(lines[2:], start=3):
            if not line:
                continue
            parts = line.split("\t")
            if len(parts) != len(sizes) + 1:
                raise InputError(f"expected a word and {len(sizes)} cluster ids", path=path, line=no)
            try:
                table[parts[0]] = tuple(int(x) for x in parts[1:])
            except ValueError:
                raise InputError("cluster ids must be integers", path=path, line=no) from None
        return cls(table, sizes)

    @classmethod
    def load(cls, path: str | Path) -> WordClusters:
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as e:
            raise InputError(f"cannot read the word clusters ({type(e).__name__})", path=p) from None
        return cls.loads(text, path=p)


def _kmeans(x: np.ndarray, k: int, rng: np.random.Generator, iterations: int = 25) -> np.ndarray:
    """Cluster ids of the rows of ``x`` (unit vectors): k-means++ seeding, Lloyd iterations on cosine distance."""
    n = x.shape[0]
    k = min(k, n)
    centers = np.empty((k, x.shape[1]), dtype=x.dtype)
    first = int(rng.integers(n))
    centers[0] = x[first]
    d2 = np.maximum(0.0, 2.0 - 2.0 * (x @ centers[0]))
    for c in range(1, k):
        total = float(d2.sum())
        if total <= 0:
            idx = int(rng.integers(n))
        else:
            idx = int(np.searchsorted(np.cumsum(d2), rng.random() * total))
            idx = min(idx, n - 1)
        centers[c] = x[idx]
        d2 = np.minimum(d2, np.maximum(0.0, 2.0 - 2.0 * (x @ centers[c])))
    assign = np.full(n, -1, dtype=np.int64)
    for _ in range(iterations):
        new = np.argmax(x @ centers.T, axis=1)
        if np.array_equal(new, assign):
            break
        assign = new
        for c in range(k):
            members = x[assign == c]
            if len(members):
                v = members.sum(axis=0)
                norm = float(np.linalg.norm(v))
                if norm > 0:
                    centers[c] = v / norm
    # number clusters by their first word (stable ids for equal partitions)
    order: dict[int, int] = {}
    for a in assign.tolist():
        if a not in order:
            order[a] = len(order)
    return np.array([order[a] for a in assign.tolist()], dtype=np.int64)


def learn_clusters(
    texts: Iterable[str],
    lang: str = "es",
    *,
    sizes: tuple[int, ...] = (16, 64, 256),
    dim: int = 100,
    window: int = 2,
    min_count: int = 3,
    min_docs: int = 2,
    max_contexts: int = 1500,
    seed: int = 0,
) -> WordClusters:
    """Word clusters of ``texts`` (see the module docstring). Raises ``ValueError`` for bad parameters; an input
    with too few words gives a small (possibly empty) table."""
    lang = check_language(lang)
    if not sizes or any(s < 2 for s in sizes) or dim < 2 or window < 1 or min_count < 1 or min_docs < 1:
        raise ValueError("sizes >= 2, dim >= 2, window >= 1, min_count >= 1 and min_docs >= 1 are required")
    docs: list[list[str]] = []
    count: Counter[str] = Counter()
    df: Counter[str] = Counter()
    for text in texts:
        words = [cluster_key(text[t.start:t.end]) for t in tokenize(text, lang)]
        docs.append(words)
        count.update(words)
        df.update(set(words))
    targets = sorted((w for w, c in count.items() if c >= min_count and df[w] >= min_docs),
                     key=lambda w: (-count[w], w))
    contexts = sorted(count, key=lambda w: (-count[w], w))[:max_contexts]
    if len(targets) < 2 or not contexts:
        return WordClusters({}, sizes)
    t_id = {w: i for i, w in enumerate(targets)}
    c_id = {w: i for i, w in enumerate(contexts)}
    nc = len(contexts)
    m = np.zeros((len(targets), 2 * nc), dtype=np.float64)
    for words in docs:
        ti = np.array([t_id.get(w, -1) for w in words], dtype=np.int64)
        ci = np.array([c_id.get(w, -1) for w in words], dtype=np.int64)
        n = len(words)
        for d in range(1, window + 1):
            if n <= d:
                break
            wgt = 1.0 / d
            # context on the left of the target: words[i - d]
            t, c = ti[d:], ci[:-d]
            ok = (t >= 0) & (c >= 0)
            np.add.at(m, (t[ok], c[ok]), wgt)
            # context on the right: words[i + d]
            t, c = ti[:-d], ci[d:]
            ok = (t >= 0) & (c >= 0)
            np.add.at(m, (t[ok], c[ok] + nc), wgt)
    total = m.sum()
    if total <= 0:
        return WordClusters({}, sizes)
    pw = m.sum(axis=1, keepdims=True) / total
    pc = m.sum(axis=0, keepdims=True) ** 0.75
    pc = pc / pc.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log((m / total) / (pw * pc))
    pmi[~np.isfinite(pmi)] = 0.0
    np.maximum(pmi, 0.0, out=pmi)
    rng = np.random.default_rng(seed)
    k = min(dim, min(pmi.shape) - 1) if min(pmi.shape) > 2 else 1
    omega = rng.standard_normal((pmi.shape[1], k + 10))
    q, _ = np.linalg.qr(pmi @ omega)
    for _ in range(2):  # power iterations sharpen the leading subspace
        q, _ = np.linalg.qr(pmi.T @ q)
        q, _ = np.linalg.qr(pmi @ q)
    u_b, s, _ = np.linalg.svd(q.T @ pmi, full_matrices=False)
    emb = (q @ u_b[:, :k]) * np.sqrt(s[:k])
    emb = np.round(emb, 8)  # insensitive to the last bits of BLAS arithmetic
    norms = np.linalg.norm(emb, axis=1, keepdims=True)
    emb = emb / np.where(norms > 0, norms, 1.0)
    ids = [_kmeans(emb, size, np.random.default_rng(seed + 1 + j)) for j, size in enumerate(sizes)]
    table = {w: tuple(int(a[i]) for a in ids) for i, w in enumerate(targets)}
    return WordClusters(table, sizes)
