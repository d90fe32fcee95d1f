"""Case and accent folding: the key under which every word list, phrase index and lexicon is looked up.

``fold("García")`` is ``"garcia"``: case-folded (``ß`` -> ``ss``), then stripped of combining marks after NFD
decomposition. Words repeat a lot, so :func:`fold` and :func:`strip_accents` remember their results in bounded
tables (:data:`FOLDED`, :data:`STRIPPED`: cleared when they reach 200 000 distinct strings);
:func:`fold_uncached` is for bulk loads of word lists, which would flush the words of the texts being read.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from clinanon.text import TokenTable

__all__ = [
    "FOLDED",
    "STRIPPED",
    "fold",
    "fold_uncached",
    "folded_word_set",
    "folded_words",
    "strip_accents",
]


def _strip_accents(s: str) -> str:
    if s.isascii():
        return s
    return "".join(c for c in unicodedata.normalize("NFD", s) if not unicodedata.combining(c))


def _fold_accents(s: str) -> str:
    return _strip_accents(s.casefold())


class _Memo(dict[str, str]):
    """``memo[s]`` = ``fn(s)``, remembered for up to ``limit`` distinct strings (words repeat a lot)."""

    def __init__(self, fn: Callable[[str], str], limit: int = 200_000) -> None:
        super().__init__()
        self.fn = fn
        self.limit = limit

    def __missing__(self, key: str) -> str:
        value = self.fn(key)
        if len(self) >= self.limit:
            self.clear()
        self[key] = value
        return value


#: ``STRIPPED[s]`` is :func:`strip_accents` of ``s``, remembered (index it; never write to it)
STRIPPED = _Memo(_strip_accents)
#: ``FOLDED[s]`` is ``fold(s)`` (case and accents folded), remembered (index it; never write to it)
FOLDED = _Memo(_fold_accents)


def strip_accents(s: str) -> str:
    """Remove combining marks (``García`` -> ``Garcia``); case is kept."""
    return STRIPPED[s]


def fold(s: str, accents: bool = True) -> str:
    """Case-fold ``s`` and, when ``accents``, strip its accents: the key under which phrases are indexed."""
    return FOLDED[s] if accents else s.casefold()


def fold_uncached(s: str, accents: bool = True) -> str:
    """:func:`fold` without remembering the result: for bulk loads of word lists, which would flush the memo of
    the words of the texts being read."""
    return _fold_accents(s) if accents else s.casefold()


def folded_words(table: TokenTable, accents: bool = True) -> tuple[str, ...]:
    """``fold(w, accents)`` for every word of ``table`` (computed once per table and shared)."""
    return table.map_words(FOLDED.__getitem__ if accents else str.casefold)


def folded_word_set(table: TokenTable) -> frozenset[str]:
    """The set of :func:`folded_words` (accents stripped) of ``table`` (computed once per table and shared)."""
    return table.word_set(FOLDED.__getitem__)
