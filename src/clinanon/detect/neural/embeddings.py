"""Word vectors for the neural taggers: trained with gensim on the user's own unlabelled notes, or read from a file.

>>> train_vectors(texts, "es", "vectors.vec", method="fasttext", dim=100)      # doctest: +SKIP
>>> words, matrix = load_vectors("vectors.vec")                                 # doctest: +SKIP

``clinanon embeddings train NOTES --out vectors.vec`` calls :func:`train_vectors`. The notes are tokenized with
:func:`clinanon.text.token_table` and each word is normalized as the tagger looks it up
(:func:`~clinanon.detect.neural.vocab.normalize_word`: case-folded, digits as ``0``), one sequence per sentence.
The output is the word2vec text format (a ``"<count> <dim>"`` header, then ``word v1 v2 ...`` per line), which
:func:`load_vectors` reads without gensim (GloVe files, without the header, too). Training needs gensim (the
``neural`` extra); for a corpus with a held-out test split, train on the train and dev texts only.

Determinism: gensim is seeded and runs one worker thread here; its vocabulary hashing also depends on Python's
hash seed, so set ``PYTHONHASHSEED`` for byte-identical vectors across runs.
"""

from __future__ import annotations

import gzip
import math
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from clinanon.errors import ConfigError, InputError

__all__ = ["VectorStats", "load_vectors", "sentences_of", "train_vectors"]

Method = Literal["fasttext", "word2vec"]


def sentences_of(texts: Iterable[str], lang: str) -> Iterator[list[str]]:
    """Normalized words, one list per sentence of each text."""
    from clinanon.detect.neural.vocab import normalize_word
    from clinanon.text import split_sentences, token_table

    for text in texts:
        table = token_table(text)
        starts = table.starts
        words = [normalize_word(w) for w in table.words]
        if not words:
            continue
        from bisect import bisect_left

        for s in split_sentences(text, lang):
            i = bisect_left(starts, s.start)
            j = bisect_left(starts, s.end, lo=i)
            if j > i:
                yield words[i:j]


class VectorStats(dict[str, Any]):
    """What :func:`train_vectors` did (counts and settings; no words)."""


def _gensim() -> Any:
    try:
        import gensim
    except ImportError:
        from clinanon.detect.neural._torch import INSTALL_HINT

        raise ConfigError(f"training word vectors needs gensim, which is not installed: {INSTALL_HINT}") from None
    return gensim


def train_vectors(texts: Iterable[str], lang: str, out: str | Path, *, method: Method = "fasttext",
                  dim: int = 100, window: int = 5, min_count: int = 1, epochs: int = 10, seed: int = 0,
                  workers: int = 1) -> VectorStats:
    """Train word vectors on ``texts`` (unlabelled notes) and write them to ``out`` (word2vec text format; ``.gz``
    compresses). ``method``: ``"fasttext"`` (sub-word n-grams, better for rare words) or ``"word2vec"``
    (skip-gram). Returns counts and settings."""
    import time

    _gensim()
    from gensim.models import FastText, Word2Vec

    if method not in ("fasttext", "word2vec"):
        raise ConfigError(f"unknown embedding method {method!r}; expected 'fasttext' or 'word2vec'")
    if dim < 1 or epochs < 1 or min_count < 1:
        raise ConfigError("dim, epochs and min_count must be >= 1")
    t0 = time.perf_counter()
    sentences = list(sentences_of(texts, lang))
    if not sentences:
        raise InputError("no words in the notes: nothing to train word vectors on")
    common = {"vector_size": dim, "window": window, "min_count": min_count, "epochs": epochs, "seed": seed,
              "workers": workers, "sg": 1}
    model = (FastText(sentences, **common) if method == "fasttext"  # type: ignore[arg-type]
             else Word2Vec(sentences, **common))
    kv = model.wv
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    opener: Any = gzip.open if out.suffix == ".gz" else open
    with opener(out, "wt", encoding="utf-8") as f:
        f.write(f"{len(kv.index_to_key)} {dim}\n")
        for w in kv.index_to_key:
            vec = kv[w]
            f.write(w + " " + " ".join(f"{x:.5f}" for x in vec.tolist()) + "\n")
    return VectorStats(method=method, dim=dim, window=window, min_count=min_count, epochs=epochs, seed=seed,
                       sentences=len(sentences), tokens=sum(map(len, sentences)), words=len(kv.index_to_key),
                       seconds=round(time.perf_counter() - t0, 2))


def load_vectors(path: str | Path, *, limit: int | None = None) -> tuple[list[str], Any]:
    """``(words, matrix)`` of a word2vec / fastText ``.vec`` or GloVe text file (``.gz`` too): the first
    ``limit`` words (all when ``None``) and a float32 NumPy matrix ``[len(words), dim]``.

    Errors (:class:`InputError`) name the file and the line, never its words."""
    import numpy as np

    p = Path(path)
    if not p.is_file():
        raise InputError("no such word-vectors file", path=p)
    opener: Any = gzip.open if p.suffix == ".gz" else open
    words: list[str] = []
    rows: list[list[float]] = []
    dim: int | None = None
    with opener(p, "rt", encoding="utf-8", errors="strict") as f:
        for lineno, line in enumerate(f, 1):
            parts = line.rstrip("\n").rstrip(" ").split(" ")
            if lineno == 1 and len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
                dim = int(parts[1])
                continue
            if len(parts) < 2:
                continue
            if dim is None:
                dim = len(parts) - 1
            if len(parts) - 1 != dim:
                raise InputError(f"expected {dim} numbers after the word, got {len(parts) - 1}", path=p,
                                 line=lineno)
            try:
                vec = [float(x) for x in parts[1:]]
            except ValueError:
                raise InputError("not a number in the vector", path=p, line=lineno) from None
            if not all(math.isfinite(x) for x in vec):
                raise InputError("a vector holds NaN or infinity", path=p, line=lineno)
            words.append(parts[0])
            rows.append(vec)
            if limit is not None and len(words) >= limit:
                break
    if not words or dim is None:
        raise InputError("no vectors in the file", path=p)
    return words, np.asarray(rows, dtype=np.float32)
