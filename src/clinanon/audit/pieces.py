"""Tokenizer vocabularies read as text: the one place that decodes a sub-word piece and says whether it has a
word's form.

A vocabulary entry is not the text it stands for. A byte-level BPE (GPT-2's, RoBERTa's) writes " García" as
``ĠGarcÃŃa`` in GPT-2's byte-to-character alphabet; a WordPiece vocabulary marks a piece inside a word with
``##``; a SentencePiece (``Metaspace``) vocabulary marks a word start with ``▁``. A name check must read the text:

* :func:`decode_piece` — the text of one byte-level entry (``"ĠGarcÃŃa"`` -> ``" García"``);
* :func:`piece_text` — the text of an entry of any kind, without its leading space and word-piece mark;
* :func:`word_like` — whether an entry has a name's form: it begins a word (byte-level: after a space or a line
  end; SentencePiece: ``▁``; WordPiece: no ``##``) or it is capitalised. A lower-case piece inside a word ("ana"
  of "semana", "ía" of "día") spells no one;
* :func:`read_vocabulary` — the entries and merges of ``tokenizer.json``, ``vocab.json`` (+ ``merges.txt``) or
  ``vocab.txt``, with the kind of the vocabulary; :func:`vocabulary_words` — the texts of its word-like entries
  and merges.

Used by the model audit (:mod:`clinanon.audit.model`), the fill-mask probe (:mod:`clinanon.audit.probe`) and
vocabulary scrubbing (:mod:`clinanon.lm.scrub`), so that all three read a vocabulary the same way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from clinanon.errors import InputError

__all__ = ["BYTE_LEVEL", "KINDS", "METASPACE", "PLAIN", "WORDPIECE", "Vocabulary", "decode_piece", "merge_pair",
           "piece_text", "read_vocabulary", "tokenizer_kind", "vocabulary_words", "word_like"]

BYTE_LEVEL, WORDPIECE, METASPACE, PLAIN = "byte_level", "wordpiece", "metaspace", "plain"
KINDS = (BYTE_LEVEL, WORDPIECE, METASPACE, PLAIN)
#: the word-piece marks removed from an entry's text
MARKS = ("##", "Ġ", "▁", "Ċ")


@lru_cache(maxsize=1)
def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-to-unicode table, inverted (printable bytes map to themselves, the others to U+0100 …)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), 256))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs, strict=True)}


def decode_piece(piece: str) -> str:
    """The text of one byte-level BPE entry (``"ĠGarcÃŃa"`` -> ``" García"``); ``piece`` itself when it is not
    byte-level text (a character outside the alphabet, or bytes that are not UTF-8: part of a character)."""
    table = _byte_decoder()
    try:
        return bytes(table[c] for c in piece).decode("utf-8")
    except (KeyError, UnicodeDecodeError):
        return piece


def _decoded(piece: str, kind: str) -> str:
    return decode_piece(piece) if kind == BYTE_LEVEL else piece


def piece_text(piece: str, kind: str = BYTE_LEVEL) -> str:
    """The text of a vocabulary entry of a ``kind`` vocabulary (a byte-level piece decoded), surrounding spaces
    and a leading word-piece mark removed: ``"ĠGarcÃŃa"`` -> ``"García"``, ``"##ez"`` -> ``"ez"``."""
    t = _decoded(piece, kind).strip()
    for m in MARKS:
        if t.startswith(m):
            t = t[len(m):]
    return t


def word_like(piece: str, kind: str = BYTE_LEVEL) -> bool:
    """Whether a vocabulary entry has a name's form: it begins a word or is capitalised (see the module
    docstring). ``kind`` is the vocabulary's (:data:`KINDS`); :data:`PLAIN` (a word list) counts every entry."""
    if piece_text(piece, kind)[:1].isupper():
        return True
    if kind == BYTE_LEVEL:
        return decode_piece(piece)[:1].isspace() or piece.startswith(("Ġ", "Ċ"))
    if kind == WORDPIECE:
        return not piece.startswith("##")
    if kind == METASPACE:
        return piece.startswith("▁")
    return True


def tokenizer_kind(data: dict[str, Any]) -> str:
    """The kind of the vocabulary of a ``tokenizer.json`` document."""
    model = data.get("model") or {}
    if model.get("type") == "WordPiece":
        return WORDPIECE
    layout = json.dumps([data.get("pre_tokenizer"), data.get("decoder")])
    if "ByteLevel" in layout:
        return BYTE_LEVEL
    if "Metaspace" in layout:
        return METASPACE
    return PLAIN


@dataclass
class Vocabulary:
    """The entries and merges of one tokenizer vocabulary, and its kind."""

    kind: str
    entries: list[str]
    merges: list[tuple[str, str]] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Vocabulary(kind={self.kind!r}, entries={len(self.entries)}, merges={len(self.merges)})"


def merge_pair(m: Any) -> tuple[str, str]:
    """A merge of a ``tokenizer.json`` (``"a b"`` or ``["a", "b"]``) as a pair."""
    if isinstance(m, str):
        a, _, b = m.partition(" ")
        return a, b
    return str(m[0]), str(m[1])


def read_vocabulary(path: str | Path) -> Vocabulary:
    """The vocabulary of ``tokenizer.json`` (any model type), ``vocab.json`` (a byte-level BPE, with the
    ``merges.txt`` beside it) or ``vocab.txt`` (WordPiece)."""
    p = Path(path)
    try:
        if p.name == "vocab.txt":
            return Vocabulary(WORDPIECE, p.read_text(encoding="utf-8").splitlines())
        if p.name == "vocab.json":
            entries = list(json.loads(p.read_text(encoding="utf-8")).keys())
            kind = BYTE_LEVEL if any(e.startswith("Ġ") for e in entries) else PLAIN
            merges: list[tuple[str, str]] = []
            mp = p.with_name("merges.txt")
            if mp.is_file():
                merges = [merge_pair(ln) for ln in mp.read_text(encoding="utf-8").splitlines()
                          if ln and not ln.startswith("#version") and " " in ln]
            return Vocabulary(kind, entries, merges)
        data = json.loads(p.read_text(encoding="utf-8"))
        model = data.get("model", {})
        vocab = model.get("vocab", {})
        entries = list(vocab.keys()) if isinstance(vocab, dict) else [v[0] for v in vocab if v]
        return Vocabulary(tokenizer_kind(data), entries, [merge_pair(m) for m in model.get("merges") or []])
    except (OSError, json.JSONDecodeError, UnicodeDecodeError, AttributeError, TypeError, IndexError) as e:
        raise InputError(f"not a readable tokenizer vocabulary ({type(e).__name__})", path=p) from None


def vocabulary_words(vocab: Vocabulary) -> tuple[set[str], set[str]]:
    """The texts (:func:`piece_text`) of the word-like entries and of the word-like merges (the two halves put
    together) of ``vocab``: what a name check reads."""
    entries = {t for e in vocab.entries if word_like(e, vocab.kind) and (t := piece_text(e, vocab.kind))}
    merges = {t for a, b in vocab.merges if word_like(a + b, vocab.kind) and (t := piece_text(a + b, vocab.kind))}
    return entries, merges
