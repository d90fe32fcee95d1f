"""``neighbors``: replace each PHI token with a random one of its N nearest neighbours in a word-embedding space.

The user supplies the embeddings (word2vec / fastText ``.vec`` text format, with or without the ``"V D"`` header
line — GloVe files have none — or word2vec binary format), read with numpy; nothing is downloaded. Rows are
L2-normalised once, so the cosine similarity of a token with the whole vocabulary is one matrix-vector product;
a token's neighbour list is cached per process.

For every word token of a span (``\\w+`` runs, joined by ``-`` or ``'``; punctuation and spaces are kept) the
operator looks the token up (exactly, then lower-cased when ``lowercase``), takes its ``n`` most similar other
words (words equal to the token case-insensitively are skipped) and picks one at random, in the token's case
pattern (``Madrid`` -> ``Sevilla``, ``MADRID`` -> ``SEVILLA``). A token missing from the vocabulary is replaced
by a random vocabulary word (``oov = "random"``), by ``mask`` (``"mask"``) or kept (``"keep"``).

Randomness: with ``consistent`` (default) every occurrence of a token in a document gets the same replacement
(case-insensitively). With ``seed`` set, choices are a function of (seed, document id, token) — reproducible
across runs and workers; without it they come from the operating system's random source and are remembered
per document in the engine's ``state``.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field

from clinanon.document import Span
from clinanon.errors import InputError
from clinanon.transform.base import Edit, OperatorBase, OperatorContext, register_operator

__all__ = ["EmbeddingIndex", "NeighborOperator", "load_embeddings"]

_TOKEN = re.compile(r"\w+(?:['’-]\w+)*")


@dataclass
class EmbeddingIndex:
    """Words and their L2-normalised vectors (``float32``, one row per word)."""

    words: list[str]
    vectors: np.ndarray
    _index: dict[str, int] = field(default_factory=dict, repr=False)
    _lower: dict[str, int] = field(default_factory=dict, repr=False)
    _cache: dict[tuple[int, int], tuple[int, ...]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.vectors.ndim != 2 or self.vectors.shape[0] != len(self.words):
            raise ValueError("embedding matrix must have one row per word")
        norms = np.linalg.norm(self.vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        self.vectors = (self.vectors / norms).astype(np.float32, copy=False)
        for i, w in enumerate(self.words):
            self._index.setdefault(w, i)
            self._lower.setdefault(w.casefold(), i)

    def __repr__(self) -> str:
        return f"EmbeddingIndex(words={len(self.words)}, dim={self.vectors.shape[1]})"

    def __len__(self) -> int:
        return len(self.words)

    def lookup(self, token: str, *, lowercase: bool = True) -> int | None:
        """The row of ``token`` (exact match first, then case-insensitive when ``lowercase``)."""
        i = self._index.get(token)
        if i is None and lowercase:
            i = self._lower.get(token.casefold())
        return i

    def neighbors(self, row: int, n: int) -> tuple[int, ...]:
        """The ``n`` rows most cosine-similar to ``row``, best first, skipping words equal to it case-insensitively.

        Ties are broken by row order, so the result is deterministic.
        """
        key = (row, n)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        sims = self.vectors @ self.vectors[row]
        word = self.words[row].casefold()
        k = min(len(self.words), n + 8)
        cand = np.argpartition(-sims, k - 1)[:k] if k < len(self.words) else np.arange(len(self.words))
        order = sorted(cand.tolist(), key=lambda i: (-float(sims[i]), i))
        out = tuple(i for i in order if i != row and self.words[i].casefold() != word)[:n]
        if len(out) < n and k < len(self.words):  # many case variants: fall back to a full sort
            order = sorted(range(len(self.words)), key=lambda i: (-float(sims[i]), i))
            out = tuple(i for i in order if i != row and self.words[i].casefold() != word)[:n]
        self._cache[key] = out
        return out


def _read_text(path: Path, max_words: int | None) -> EmbeddingIndex:
    words: list[str] = []
    rows: list[np.ndarray] = []
    dim: int | None = None
    with path.open("r", encoding="utf-8", errors="strict") as fh:
        for lineno, line in enumerate(fh, 1):
            parts = line.rstrip("\n\r").split(" ")
            parts = [p for p in parts if p != ""]
            if not parts:
                continue
            if lineno == 1 and len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
                dim = int(parts[1])
                continue
            if dim is None:
                dim = len(parts) - 1
            if len(parts) < dim + 1 or dim < 1:
                raise InputError(f"expected a word and {dim} numbers", path=path, line=lineno)
            try:
                vec = np.asarray(parts[len(parts) - dim:], dtype=np.float32)
            except ValueError:
                raise InputError(f"expected {dim} numbers after the word", path=path, line=lineno) from None
            words.append(" ".join(parts[:len(parts) - dim]))
            rows.append(vec)
            if max_words is not None and len(words) >= max_words:
                break
    if not words:
        raise InputError("no word vectors found", path=path)
    return EmbeddingIndex(words, np.vstack(rows))


def _read_binary(path: Path, max_words: int | None) -> EmbeddingIndex:
    data = path.read_bytes()
    nl = data.find(b"\n")
    try:
        count, dim = (int(x) for x in data[:nl].split())
    except ValueError:
        raise InputError("word2vec binary: the first line must be '<words> <dimensions>'", path=path) from None
    n = count if max_words is None else min(count, max_words)
    words: list[str] = []
    mat = np.empty((n, dim), dtype=np.float32)
    pos = nl + 1
    width = 4 * dim
    for i in range(n):
        sp = data.find(b" ", pos)
        if sp < 0 or sp + 1 + width > len(data):
            raise InputError(f"word2vec binary: truncated at vector {i + 1}", path=path, offset=pos)
        try:
            words.append(data[pos:sp].decode("utf-8").strip())
        except UnicodeDecodeError:
            raise InputError(f"word2vec binary: vector {i + 1} has a word that is not UTF-8", path=path,
                             offset=pos) from None
        mat[i] = np.frombuffer(data, dtype="<f4", count=dim, offset=sp + 1)
        pos = sp + 1 + width
        if pos < len(data) and data[pos:pos + 1] == b"\n":
            pos += 1
    return EmbeddingIndex(words, mat)


_LOADED: dict[tuple[str, float, str, int | None], EmbeddingIndex] = {}
_LOCK = threading.Lock()


def load_embeddings(path: str | Path, *, format: Literal["auto", "text", "binary"] = "auto",
                    max_words: int | None = None) -> EmbeddingIndex:
    """Read an embedding file (cached per process by path, modification time, format and ``max_words``).

    ``auto`` reads ``.bin`` files as word2vec binary and everything else as text. Errors name the file and line
    (or byte offset) and what was expected.
    """
    p = Path(path)
    try:
        mtime = p.stat().st_mtime
    except OSError as e:
        raise InputError(f"cannot read embeddings ({e.strerror or type(e).__name__})", path=p) from None
    fmt = format if format != "auto" else ("binary" if p.suffix.lower() == ".bin" else "text")
    key = (str(p.resolve()), mtime, fmt, max_words)
    with _LOCK:
        idx = _LOADED.get(key)
        if idx is None:
            try:
                idx = _read_binary(p, max_words) if fmt == "binary" else _read_text(p, max_words)
            except UnicodeDecodeError as e:
                raise InputError(f"not UTF-8 text (byte {e.start})", path=p) from None
            _LOADED[key] = idx
    return idx


def _case_like(template: str, word: str) -> str:
    letters = [c for c in template if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return word.upper()
    if letters and letters[0].isupper():
        return word[:1].upper() + word[1:]
    if letters and all(c.islower() for c in letters):
        return word.lower()
    return word


@register_operator("neighbors")
class NeighborOperator(OperatorBase):
    """Replace each word of a span by a random one of its ``n`` nearest embedding neighbours (module docstring)."""

    embeddings: Path
    format: Literal["auto", "text", "binary"] = "auto"
    n: int = Field(default=10, ge=1)
    consistent: bool = True
    seed: int | None = None
    lowercase: bool = True
    max_words: int | None = Field(default=None, ge=1)
    oov: Literal["random", "keep", "mask"] = "random"
    mask: str = "XXXX"

    def model_post_init(self, __context: Any) -> None:
        load_embeddings(self.embeddings, format=self.format, max_words=self.max_words)  # fail early

    @property
    def index(self) -> EmbeddingIndex:
        return load_embeddings(self.embeddings, format=self.format, max_words=self.max_words)

    def _rng(self, doc_id: str, token: str, occurrence: int) -> random.Random:
        if self.seed is None:
            return secrets.SystemRandom()
        parts = [str(self.seed), doc_id, token.casefold() if self.consistent else token]
        if not self.consistent:
            parts.append(str(occurrence))
        h = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
        return random.Random(int.from_bytes(h[:16], "big"))

    def replace_token(self, token: str, doc_id: str, memory: dict[str, str] | None = None,
                      occurrence: int = 0) -> str:
        """The replacement of one token (remembered in ``memory`` when ``consistent``)."""
        key = token.casefold()
        if self.consistent and memory is not None and key in memory:
            return _case_like(token, memory[key])
        idx = self.index
        row = idx.lookup(token, lowercase=self.lowercase)
        rng = self._rng(doc_id, token, occurrence)
        if row is None:
            if self.oov == "keep":
                return token
            if self.oov == "mask":
                return self.mask
            candidates = [i for i in range(min(len(idx), 1000)) if idx.words[i].casefold() != key] or [0]
            new = idx.words[rng.choice(candidates)]
        else:
            near = idx.neighbors(row, self.n)
            new = idx.words[rng.choice(near)] if near else token
        if self.consistent and memory is not None:
            memory[key] = new
        return _case_like(token, new)

    def edit(self, span: Span, ctx: OperatorContext) -> Edit:
        """An edit of exactly the span, every word token replaced."""
        text = ctx.doc.text[span.start:span.end]
        cache = ctx.state.setdefault(self.name, {})
        if cache.get("doc") is not ctx.doc:
            cache.clear()
            cache.update(doc=ctx.doc, memory={}, seen={}, pid=os.getpid())
        memory: dict[str, str] = cache["memory"]
        seen: dict[str, int] = cache["seen"]
        out, pos = [], 0
        for m in _TOKEN.finditer(text):
            tok = m.group()
            occ = seen.get(tok, 0)
            seen[tok] = occ + 1
            out.append(text[pos:m.start()])
            out.append(self.replace_token(tok, ctx.doc.id, memory, occ))
            pos = m.end()
        out.append(text[pos:])
        return Edit(span.start, span.end, "".join(out))
