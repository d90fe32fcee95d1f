"""Multi-word phrase look-up over tokens: every entry found in one pass over a text, linear in its length.

A :class:`PhraseIndex` stores each phrase under the tuple of its folded tokens (:func:`clinanon.lang.fold.fold`
of the tokens of :func:`clinanon.text.tokenize`); a text is scanned once, and at each token whose folded form
starts an entry the few possible entry lengths are looked up. No per-entry regex, so the cost is linear in the
text length (times the longest entry, a handful of tokens). The gazetteer, the allow-list and the hospital
head words are phrase indexes.

Case policy (``case``): ``"exact"`` needs the entry's own case (a capitalised first letter is also accepted on
the first token); ``"upper_ok"`` also accepts ALL-CAPS tokens (``GARCÍA``); ``"fold"`` ignores case. Accent
policy (``accents``): ``"fold"`` lets ``Garcia`` match ``García``; ``"exact"`` does not.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from clinanon.lang.fold import STRIPPED, fold, folded_words, strip_accents
from clinanon.text import Token, TokenTable, token_table, tokenize

__all__ = ["AccentMode", "CaseMode", "PhraseIndex", "PhraseMatch", "RawMatch", "as_table", "gap_kind"]

CaseMode = Literal["fold", "exact", "upper_ok"]
AccentMode = Literal["fold", "exact"]


def as_table(text: str, tokens: Sequence[Token] | TokenTable | None) -> TokenTable:
    """``tokens`` as a :class:`~clinanon.text.TokenTable` of ``text``: the shared table of ``text``
    (:func:`clinanon.text.token_table`) when ``None``, the table itself, or a table of the given tokens."""
    if tokens is None:
        return token_table(text)
    if isinstance(tokens, TokenTable):
        return tokens
    return TokenTable.from_tokens(text, tokens)


def gap_kind(gap: str) -> int | None:
    """0 = tokens touch, 1 = separated by spaces/tabs, None = anything else (a newline, other characters)."""
    if not gap:
        return 0
    if gap.isspace() and "\n" not in gap and "\r" not in gap and len(gap) <= 3:
        return 1
    return None


#: a match as a plain tuple: (i, j, start, end, kind, attr) as in :class:`PhraseMatch`
RawMatch = tuple[int, int, int, int, str, str]
#: per first word: its one-word entries (or None) and, per second word, the lengths of longer entries (descending)
_Plan = tuple["list[_Entry] | None", "dict[str, tuple[int, ...]] | None"]


@dataclass(frozen=True, slots=True)
class _Entry:
    kind: str
    attr: str
    surface: tuple[str, ...]  # the entry's tokens, accent-folded when accents are folded, case kept
    gaps: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PhraseMatch:
    """A phrase found in a text: tokens ``[i, j)``, characters ``[start, end)``."""

    i: int
    j: int
    start: int
    end: int
    kind: str
    attr: str


class PhraseIndex:
    """Multi-token phrases keyed by their folded token tuples; a text is matched in one pass over its tokens.

    ``add`` tokenizes a phrase with :func:`clinanon.text.tokenize`; ``match`` returns every occurrence of every
    phrase (overlapping and nested ones included) whose tokens are equal after folding, whose inter-token gaps
    have the same shape (touching vs. spaces; never across a line break) and whose case passes ``case``.
    """

    def __init__(self, lang: str, *, accents: AccentMode = "fold") -> None:
        self.lang = lang
        self.fold_accents = accents == "fold"
        self._index: dict[tuple[str, ...], list[_Entry]] = {}
        self._lengths: dict[str, tuple[int, ...]] = {}
        self._plan: dict[str, _Plan] | None = None

    def __len__(self) -> int:
        return sum(len(v) for v in self._index.values())

    def add(self, phrase: str, kind: str, attr: str = "") -> bool:
        """Index ``phrase``; returns False (and indexes nothing) when it has no token or contains a newline."""
        if "\n" in phrase:
            return False
        toks = tokenize(phrase, self.lang)
        if not toks:
            return False
        words = [phrase[t.start:t.end] for t in toks]
        gaps = []
        for a, b in itertools.pairwise(toks):
            g = gap_kind(phrase[a.end:b.start])
            if g is None:
                return False
            gaps.append(g)
        key = tuple(fold(w, self.fold_accents) for w in words)
        surface = tuple(strip_accents(w) if self.fold_accents else w for w in words)
        entry = _Entry(kind, attr, surface, tuple(gaps))
        bucket = self._index.setdefault(key, [])
        if entry not in bucket:
            bucket.append(entry)
            self._plan = None
            lens = set(self._lengths.get(key[0], ()))
            lens.add(len(key))
            self._lengths[key[0]] = tuple(sorted(lens, reverse=True))
        return True

    def copy(self) -> PhraseIndex:
        """A new index with the same entries (adding to it leaves this one unchanged)."""
        other = PhraseIndex(self.lang, accents="fold" if self.fold_accents else "exact")
        other._index = {k: list(v) for k, v in self._index.items()}
        other._lengths = dict(self._lengths)
        return other

    def add_all(self, phrases: Iterable[tuple[str, str, str]]) -> None:
        """:meth:`add` every ``(phrase, kind, attr)``."""
        for phrase, kind, attr in phrases:
            self.add(phrase, kind, attr)

    def match(self, text: str, tokens: Sequence[Token] | TokenTable, *, case: CaseMode = "upper_ok",
              norm: Sequence[str] | None = None) -> list[PhraseMatch]:
        """All occurrences, in token order (longest first at a position). ``norm`` = pre-folded tokens."""
        table = as_table(text, tokens)
        if norm is None:
            norm = folded_words(table, self.fold_accents)
        return [PhraseMatch(*m) for m in self.match_tuples(text, table, norm, case)]

    def _get_plan(self) -> dict[str, _Plan]:
        """Entries by first word: the one-word entries, and the lengths of the longer ones by second word."""
        if self._plan is None:
            multi: dict[str, dict[str, set[int]]] = {}
            single: dict[str, list[_Entry]] = {}
            for key, entries in self._index.items():
                if len(key) == 1:
                    single[key[0]] = entries
                else:
                    multi.setdefault(key[0], {}).setdefault(key[1], set()).add(len(key))
            self._plan = {
                first: (single.get(first),
                        {w: tuple(sorted(sizes, reverse=True)) for w, sizes in multi[first].items()}
                        if first in multi else None)
                for first in (*single, *multi)
            }
        return self._plan

    def match_tuples(self, text: str, table: TokenTable, norm: Sequence[str], case: CaseMode) -> list[RawMatch]:
        """:meth:`match` as plain tuples ``(i, j, start, end, kind, attr)`` on a token table and its folded words
        (``norm``): fewer objects, for callers that filter most matches."""
        if not isinstance(norm, tuple):
            norm = tuple(norm)
        out: list[RawMatch] = []
        n = len(norm)
        plan = self._get_plan()
        index = self._index
        starts, ends, words = table.starts, table.ends, table.words
        fold_case = case == "fold"
        # only the positions whose folded word starts an entry (found without a Python step per token); at a
        # position the longer entries come first (as their lengths decrease), then the one-word ones
        for i in itertools.compress(itertools.count(), map(plan.__contains__, norm)):
            single, multi = plan[norm[i]]
            if multi is not None and i + 1 < n:
                for size in multi.get(norm[i + 1], ()):
                    j = i + size
                    if j > n:
                        continue
                    entries = index.get(norm[i:j])
                    if not entries:
                        continue
                    tgaps = tuple(gap_kind(text[ends[k]:starts[k + 1]]) for k in range(i, j - 1))
                    for e in entries:
                        if e.gaps != tgaps:
                            continue
                        if not fold_case and not self._case_ok(e, words, i, case):
                            continue
                        out.append((i, j, starts[i], ends[j - 1], e.kind, e.attr))
            if single is not None:
                for e in single:
                    if not fold_case and not self._case_ok(e, words, i, case):
                        continue
                    out.append((i, i + 1, starts[i], ends[i], e.kind, e.attr))
        return out

    def _case_ok(self, e: _Entry, words: Sequence[str], i: int, case: CaseMode) -> bool:
        for k, s in enumerate(e.surface):
            raw = words[i + k]
            t = STRIPPED[raw] if self.fold_accents else raw
            if t == s:
                continue
            if case == "upper_ok" and t.isupper() and t == s.upper():
                continue
            if k == 0 and t == s[:1].upper() + s[1:]:
                continue
            return False
        return True
