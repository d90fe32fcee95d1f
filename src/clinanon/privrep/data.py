"""Sentences as the representation model reads them, and the adversaries' N-neighbour pseudonymization.

No PyTorch here. A :class:`WordSpace` is the fixed word-embedding space (the words of a fastText / word2vec file,
normalized as the BiLSTM-CRF looks them up: :func:`clinanon.detect.neural.vocab.normalize_word`) with the
:class:`clinanon.transform.neighbors.EmbeddingIndex` that finds a word's N nearest neighbours. A :class:`Corpus`
holds the notes' sentences as word ids, casing ids and BIO tag ids (tokens of :func:`clinanon.text.token_table`,
sentences packed by :func:`clinanon.detect.neural.bilstm_crf.chunk_ranges`), and where each sentence sits in its
note, so predicted tags go back to character offsets and are scored by :func:`clinanon.evaluate.evaluate`.

:func:`pseudonymize_one` is the adversaries' fake: one PHI token of a sentence replaced by a random pick among its
N nearest embedding neighbours (Friedrich et al.'s N-neighbour augmentation); :func:`pseudonymize_all` replaces
every PHI token (the "train on pseudonymized notes" baseline, as the ``neighbors`` operator does to a note).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from clinanon.bio import decode_bio, encode_bio
from clinanon.detect.neural.bilstm_crf import chunk_ranges
from clinanon.detect.neural.vocab import PAD, UNK, Vocab, casing
from clinanon.document import Document
from clinanon.errors import ConfigError
from clinanon.text import split_sentences, token_table
from clinanon.transform.neighbors import EmbeddingIndex

__all__ = ["Corpus", "Sentence", "WordSpace", "encode_corpus", "oversample_phi", "phi_sentences", "pseudonymize_all",
           "pseudonymize_one", "repair_chunk_tags", "tags_to_documents"]


class WordSpace:
    """The fixed embedding space: ids (0 padding, 1 unknown, then the vector words in file order), the matrix and
    a neighbour index over the vector words (row ``r`` of the index is word id ``r + 2``)."""

    def __init__(self, words: Sequence[str], matrix: Any) -> None:
        import numpy as np

        matrix = np.asarray(matrix, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(words) or not len(words):
            raise ConfigError("word vectors: expected one row per word and at least one word")
        self.vocab = Vocab(words=[PAD, UNK, *words], chars=[PAD, UNK], tags=["O"])
        self.dim = int(matrix.shape[1])
        full = np.zeros((len(words) + 2, self.dim), dtype=np.float32)
        full[2:] = matrix
        self.matrix = full
        self.index = EmbeddingIndex(list(words), matrix.copy())
        self._near: dict[int, tuple[int, ...]] = {}

    def __repr__(self) -> str:  # sizes only: the words may be words of the notes
        return f"WordSpace(words={len(self.vocab.words) - 2}, dim={self.dim})"

    def __len__(self) -> int:
        return len(self.vocab.words)

    @classmethod
    def from_file(cls, path: Any, *, limit: int | None = None) -> WordSpace:
        from clinanon.detect.neural.embeddings import load_vectors

        words, matrix = load_vectors(path, limit=limit)
        return cls(words, matrix)

    def neighbors(self, word_id: int, n: int) -> tuple[int, ...]:
        """The ids of the ``n`` nearest words of ``word_id`` (empty for padding / unknown). The longest list asked
        for (at least 100) is kept per word and sliced: the order is deterministic, so its first ``n`` are the
        ``n`` nearest."""
        if word_id < 2:
            return ()
        near = self._near.get(word_id)
        if near is None or (len(near) < n and len(near) < len(self.index) - 1):
            near = tuple(r + 2 for r in self.index.neighbors(word_id - 2, max(n, 100)))
            self.index._cache.pop((word_id - 2, max(n, 100)), None)  # kept here instead, once per word
            self._near[word_id] = near
        return near[:n]


@dataclass(slots=True)
class Sentence:
    """One sequence: word ids, casing ids (1-7), tag ids; ``doc`` / ``first``: its note and first token there."""

    words: list[int]
    casings: list[int]
    tags: list[int]
    doc: int = 0
    first: int = 0


@dataclass
class Corpus:
    """Encoded sentences, the tag names, and (when built from notes) the notes and their token tables."""

    sentences: list[Sentence]
    tags: list[str]
    docs: list[Document] = field(default_factory=list)
    tables: list[Any] = field(default_factory=list, repr=False)

    def __repr__(self) -> str:
        return f"Corpus(sentences={len(self.sentences)}, docs={len(self.docs)}, tags={len(self.tags)})"

    @property
    def tokens(self) -> int:
        return sum(len(s.words) for s in self.sentences)


def _tag_names(encoded: Iterable[list[str]]) -> list[str]:
    names = {t for tags in encoded for t in tags} - {"O"}
    return ["O", *sorted(names, key=lambda t: (t[2:], t[:2]))]


def encode_corpus(docs: Iterable[Document], space: WordSpace, *, lang: str = "es", tags: Sequence[str] | None = None,
                  max_len: int = 60) -> Corpus:
    """The sentences of ``docs`` (their gold spans as BIO tags). ``tags``: the tag names to use (a gold tag not
    among them becomes ``O``); ``None``: those of these notes."""
    docs = list(docs)
    tables = []
    bio = []
    for d in docs:
        table = token_table(d.text)
        tables.append(table)
        bio.append(encode_bio(table.tokens, d.spans, "BIO").tags)
    names = list(tags) if tags is not None else _tag_names(bio)
    tag_index = {t: i for i, t in enumerate(names)}
    sentences: list[Sentence] = []
    vocab = space.vocab
    for k, (d, table, doc_tags) in enumerate(zip(docs, tables, bio, strict=True)):
        if not table.words:
            continue
        lang_k = str(d.meta.get("lang") or lang)
        sents = split_sentences(d.text, lang_k, tokens=table.tokens)
        ids = vocab.word_ids(table.words)
        cas = [casing(w) for w in table.words]
        tids = [tag_index.get(t, 0) for t in doc_tags]
        for i, j in chunk_ranges(table.starts, sents, len(table.words), max_len):
            sentences.append(Sentence(ids[i:j], cas[i:j], repair_chunk_tags(tids[i:j], names), k, i))
    return Corpus(sentences, names, docs, tables)


def repair_chunk_tags(tag_ids: list[int], names: Sequence[str]) -> list[int]:
    """The tag ids of one sequence made valid BIO on their own: an ``I-X`` that opens the sequence or follows
    anything but ``B-X`` / ``I-X`` becomes ``B-X`` (``O`` when there is no ``B-X`` tag).

    A sequence is a chunk of a note, and a chunk may begin inside an entity (a sentence split or a ``max_len``
    cut inside it; or, with ``tags`` given, a ``B-`` tag unknown to them). Left as it was, its gold path holds a
    transition the CRF forbids (score ``-1e4``): that sentence's loss is then about 10 000 whatever the model,
    which swamps every reported loss (two such chunks in the 120 MEDDOCAN training notes add 14 nats to the mean
    loss per sentence), and no model can ever fit it."""
    out = list(tag_ids)
    prev = "O"
    for p, t in enumerate(out):
        name = names[t]
        if name.startswith("I-") and prev[2:] != name[2:]:
            b = f"B-{name[2:]}"
            out[p] = names.index(b) if b in names else 0
            name = names[out[p]]
        prev = name
    return out


def tags_to_documents(corpus: Corpus, predicted: Sequence[Sequence[int]], source: str = "privrep") -> list[Document]:
    """The corpus's notes with the spans of ``predicted`` tag ids (one list per sentence) as their spans."""
    if not corpus.docs:
        raise ConfigError("this corpus holds no notes (built from representations): score it by tags")
    per_doc = [["O"] * len(t.words) for t in corpus.tables]
    for s, pred in zip(corpus.sentences, predicted, strict=True):
        per_doc[s.doc][s.first:s.first + len(pred)] = [corpus.tags[t] for t in pred]
    out = []
    for d, table, tags in zip(corpus.docs, corpus.tables, per_doc, strict=True):
        spans = decode_bio(table.tokens, tags, repair=True, source=source) if any(t != "O" for t in tags) else []
        out.append(d.with_spans(spans))
    return out


def oversample_phi(corpus: Corpus, k: int) -> Corpus:
    """The corpus with every sentence that holds a gold PHI tag repeated ``k`` times (``k`` = 1: the corpus
    itself). A documented sampling for corpora where PHI is sparse (the English nursing notes: one chunk in ten
    holds PHI, 0.6 % of the tokens), to be applied alike to the plain tagger and the representation model. The
    copies share their note (``doc``, ``first``), so a split by note keeps them together and predictions of a
    corpus built this way still map back to the notes."""
    if k < 1:
        raise ConfigError("PHI oversampling must be >= 1")
    if k == 1:
        return corpus
    out: list[Sentence] = []
    for s in corpus.sentences:
        copies = k if any(t != 0 for t in s.tags) else 1
        out.extend(Sentence(list(s.words), list(s.casings), list(s.tags), s.doc, s.first) for _ in range(copies))
    return Corpus(out, list(corpus.tags), corpus.docs, corpus.tables)


def phi_sentences(corpus: Corpus, space: WordSpace) -> list[int]:
    """Indices of the sentences that hold a PHI token with a vector (the ones the adversaries can be shown)."""
    return [k for k, s in enumerate(corpus.sentences)
            if any(t != 0 and w >= 2 for t, w in zip(s.tags, s.words, strict=True))]


def pseudonymize_one(sentence: Sentence, space: WordSpace, n: int, rng: random.Random) -> list[int]:
    """The sentence's word ids with one PHI token (picked at random) replaced by a random one of its ``n``
    nearest neighbours; unchanged when it has no PHI token with a vector."""
    if n < 1:
        raise ConfigError("N (neighbours) must be >= 1")
    cand = [k for k, (t, w) in enumerate(zip(sentence.tags, sentence.words, strict=True)) if t != 0 and w >= 2]
    words = list(sentence.words)
    if not cand:
        return words
    k = rng.choice(cand)
    near = space.neighbors(words[k], n)
    if near:
        words[k] = rng.choice(near)
    return words


def pseudonymize_all(sentence: Sentence, space: WordSpace, n: int, rng: random.Random) -> list[int]:
    """The sentence's word ids with every PHI token replaced by a random one of its ``n`` nearest neighbours
    (the same replacement for the same word within the sentence)."""
    words = list(sentence.words)
    memory: dict[int, int] = {}
    for k, (t, w) in enumerate(zip(sentence.tags, sentence.words, strict=True)):
        if t == 0 or w < 2:
            continue
        if w not in memory:
            near = space.neighbors(w, n)
            memory[w] = rng.choice(near) if near else w
        words[k] = memory[w]
    return words
