"""Vocabularies of the neural taggers: words, characters, the 7-way casing feature and tags (no PyTorch here).

* Words are looked up *normalized* (:func:`normalize_word`: case-folded, every digit replaced by ``0``): the
  casing feature carries the case, and a date or an ID number shares its shape's embedding.
* :func:`casing` is the 7-way casing feature of Reimers & Gurevych (2017): ``numeric``, ``mainly_numeric``,
  ``all_lower``, ``all_upper``, ``initial_upper``, ``contains_digit``, ``other`` (index 0 is padding).
* Index 0 is padding and index 1 the unknown entry in the word and character vocabularies.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CASINGS", "PAD", "UNK", "Vocab", "casing", "normalize_word"]

PAD = "<pad>"
UNK = "<unk>"
CASINGS: tuple[str, ...] = ("<pad>", "numeric", "mainly_numeric", "all_lower", "all_upper", "initial_upper",
                            "contains_digit", "other")
_DIGITS = re.compile(r"\d")


def normalize_word(word: str) -> str:
    """The key a word's embedding is looked up by: case-folded, digits replaced by ``0``."""
    return _DIGITS.sub("0", word.casefold())


def casing(word: str) -> int:
    """The index (1-7) of ``word``'s casing class in :data:`CASINGS`."""
    if word.isdigit():
        return 1
    digits = sum(c.isdigit() for c in word)
    if digits / max(1, len(word)) > 0.5:
        return 2
    if word.islower():
        return 3
    if word.isupper():
        return 4
    if word[:1].isupper():
        return 5
    if digits:
        return 6
    return 7


@dataclass
class Vocab:
    """Words (normalized), characters and tags, each a list whose positions are the indices."""

    words: list[str] = field(default_factory=lambda: [PAD, UNK])
    chars: list[str] = field(default_factory=lambda: [PAD, UNK])
    tags: list[str] = field(default_factory=lambda: ["O"])

    def __post_init__(self) -> None:
        self._word_index = {w: i for i, w in enumerate(self.words)}
        self._char_index = {c: i for i, c in enumerate(self.chars)}
        self._tag_index = {t: i for i, t in enumerate(self.tags)}

    def __repr__(self) -> str:  # sizes only (a vocabulary holds words of the notes)
        return f"Vocab(words={len(self.words)}, chars={len(self.chars)}, tags={len(self.tags)})"

    @classmethod
    def build(cls, token_words: Iterable[Sequence[str]], tags: Iterable[Sequence[str]], *,
              extra_words: Iterable[str] = (), min_char_freq: int = 1) -> Vocab:
        """From the training tokens (raw words) and tags; ``extra_words`` (e.g. the words of a vectors file, already
        normalized) are added after the training words."""
        from collections import Counter

        word_set: dict[str, None] = {}
        char_freq: Counter[str] = Counter()
        for words in token_words:
            for w in words:
                word_set[normalize_word(w)] = None
                char_freq.update(w)
        for w in extra_words:
            word_set[w] = None
        tag_set = sorted({t for seq in tags for t in seq} - {"O"}, key=lambda t: (t[2:], t[:2]))
        words = [PAD, UNK, *sorted(w for w in word_set if w not in (PAD, UNK))]
        chars = [PAD, UNK, *sorted(c for c, n in char_freq.items() if n >= min_char_freq)]
        return cls(words, chars, ["O", *tag_set])

    def word_ids(self, words: Sequence[str]) -> list[int]:
        get = self._word_index.get
        return [get(normalize_word(w), 1) for w in words]

    def char_ids(self, word: str, max_len: int) -> list[int]:
        """Character indices of ``word``, at most ``max_len`` (the first half and the last half of a long word)."""
        if len(word) > max_len:
            half = max_len // 2
            word = word[:half] + word[len(word) - (max_len - half):]
        get = self._char_index.get
        return [get(c, 1) for c in word]

    def tag_ids(self, tags: Sequence[str]) -> list[int]:
        return [self._tag_index.get(t, 0) for t in tags]

    def word_index(self) -> Mapping[str, int]:
        return self._word_index

    def to_dict(self) -> dict[str, Any]:
        return {"words": self.words, "chars": self.chars, "tags": self.tags}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Vocab:
        return cls(list(data["words"]), list(data["chars"]), list(data["tags"]))
