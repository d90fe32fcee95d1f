"""Resolve overlapping candidate spans into one non-overlapping, sorted list.

:class:`Resolver` is deterministic: the same set of candidates gives the same output whatever order they come
in. Steps:

1. drop candidates scoring below ``min_score`` (and exact duplicates);
2. when ``merge_names``: chain *name-part* spans (label ``NAME`` or ``NAME.*``: first-name / surname
   gazetteer hits, NAME spans of any detector) that are separated by a single space, a hyphen, or a particle
   (" de ", " y ", " van ", " von ", " del ", " de la " ...) into one merged candidate
   (``source="resolve:merge"``). "Ignacio Navarro Cuéllar" becomes one span; in "Navarro Cuéllar Servicio"
   the non-name word is not absorbed, because only name-part spans are chained;
3. pick greedily by the configured priority — ``"length"`` (longer first), ``"score"`` (higher first),
   ``"source"`` (higher ``source_priority`` first) — and then by a total order on the span's fields, so ties
   are broken the same way every time; a candidate overlapping an already chosen one is dropped.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import accumulate
from operator import attrgetter

from clinanon.analysis import Analysis
from clinanon.document import Document, Span
from clinanon.errors import ConfigError

__all__ = ["DEFAULT_PARTICLES", "Resolve", "Resolver", "is_name_label", "resolved"]

#: connectors allowed between two name parts (the text between the spans, exactly)
DEFAULT_PARTICLES: tuple[str, ...] = (
    " ", "-", " - ", " de ", " del ", " de la ", " de las ", " de los ", " y ", " i ", " e ", " van ", " von ",
    " van der ", " van den ", " van de ", " von der ", " zu ", " von und zu ", " ten ", " ter ", " da ", " das ",
    " do ", " dos ", " di ", " du ", " le ", " la ", " af ", " av ", " O'", " d'", "'",
)
_KEYS = ("length", "score", "source")
#: the fields in :class:`Span`'s own order (sorting with this key = sorting the spans, without Python ``__lt__``)
_SPAN_ORDER = attrgetter("start", "end", "label", "source", "score")


def is_name_label(label: str) -> bool:
    """``NAME`` or a ``NAME.*`` subtype."""
    return label == "NAME" or label.startswith("NAME.")


def _merged_label(labels: Iterable[str]) -> str:
    specific = sorted({lab for lab in labels if lab != "NAME"})
    return specific[0] if len(specific) == 1 else "NAME"


class Resolver:
    """Non-overlapping spans from overlapping candidates (see the module docstring).

    ``priority``: the order in which ``"length"``, ``"score"`` and ``"source"`` decide (any subset, any order).
    ``source_priority``: source -> priority (higher wins); a key also matches every source that starts with
    ``key + ":"`` (``{"gazetteer": 1}`` covers ``gazetteer:city``); the longest matching key counts, others are 0.
    ``particles``: connectors between name parts (exact text between two spans).
    """

    def __init__(
        self,
        priority: Sequence[str] = ("length", "score", "source"),
        source_priority: Mapping[str, int] | None = None,
        min_score: float = 0.5,
        merge_names: bool = True,
        *,
        particles: Sequence[str] = DEFAULT_PARTICLES,
        merge_bonus: float = 0.1,
    ) -> None:
        bad = [p for p in priority if p not in _KEYS]
        if bad:
            raise ConfigError(f"unknown resolver priority {bad[0]!r}; expected some of: {', '.join(_KEYS)}")
        self.priority = tuple(priority)
        self.source_priority = dict(source_priority or {})
        self.min_score = float(min_score)
        self.merge_names = merge_names
        self.particles = frozenset(particles)
        self.merge_bonus = merge_bonus
        by_len: dict[int, set[str]] = {}
        for p in self.particles:
            by_len.setdefault(len(p), set()).add(p)
        self._particles_by_len = tuple((n, frozenset(ps)) for n, ps in sorted(by_len.items()))

    def __repr__(self) -> str:
        return (f"Resolver(priority={self.priority!r}, min_score={self.min_score}, "
                f"merge_names={self.merge_names})")

    def _source_rank(self, source: str) -> int:
        best_len, rank = -1, 0
        for key, value in self.source_priority.items():
            if (source == key or source.startswith(key + ":")) and len(key) > best_len:
                best_len, rank = len(key), value
        return rank

    def _key_function(self) -> Callable[[Span], tuple[object, ...]]:
        """:meth:`_sort_key` as a fast function (source ranks looked up once per source)."""
        if self.priority == _KEYS and not self.source_priority:
            return lambda s: (s.start - s.end, -s.score, 0, s.start, s.end, s.label, s.source, s.score)
        return self._sort_key

    def _sort_key(self, s: Span) -> tuple[object, ...]:
        parts: list[object] = []
        for p in self.priority:
            if p == "length":
                parts.append(-(s.end - s.start))
            elif p == "score":
                parts.append(-s.score)
            else:
                parts.append(-self._source_rank(s.source))
        # total order on the remaining fields: earlier first, then the span's own ordering
        parts.extend((s.start, s.end, s.label, s.source, s.score))
        return tuple(parts)

    def resolve(self, doc_or_text: Document | str, spans: Iterable[Span]) -> list[Span]:
        """Non-overlapping spans sorted by position; independent of the order of ``spans``."""
        text = doc_or_text.text if isinstance(doc_or_text, Document) else doc_or_text
        min_score = self.min_score
        # distinct candidates, keyed by their fields (hashing a tuple is cheaper than hashing a Span)
        cands = {_SPAN_ORDER(s): s for s in spans if s.score >= min_score}
        n = len(text)
        for s in cands.values():
            if s.end > n:
                raise ConfigError(f"span [{s.start}, {s.end}) ends past the text (length {n})")
        if self.merge_names:
            for s in self.merge(text, cands.values()):
                cands.setdefault(_SPAN_ORDER(s), s)
        chosen: list[Span] = []
        starts: list[int] = []  # chosen intervals never overlap: sorted by start, they are sorted by end too
        ends: list[int] = []
        for s in sorted(cands.values(), key=self._key_function()):
            k = bisect.bisect_left(starts, s.end)  # intervals starting before s ends: indexes < k
            if k and ends[k - 1] > s.start:
                continue
            starts.insert(k, s.start)
            ends.insert(k, s.end)
            chosen.append(s)
        return sorted(chosen, key=_SPAN_ORDER)

    def merge(self, text: str, spans: Iterable[Span]) -> list[Span]:
        """Merged name candidates: maximal chains of name-part spans joined by particles (two parts or more).

        A chain joins extents (distinct ``(start, end)`` of name parts) left to right: the next extent starts
        where the previous ends plus an allowed connector. " y " does not join a part that is only a first name
        (``Pedro y Juan`` are two people), so a Spanish double surname "Ortega y Gasset" merges but two first
        names do not. A chain whose every part is also a place (or other non-name candidate) scoring at least as
        high is not merged ("Madrid España" stays a city and a country), nor is a chain that a non-name candidate
        covers whole ("Talavera de la Reina" is a town). Deterministic: built from sorted
        extents only.
        """
        parts: dict[tuple[int, int], list[Span]] = {}
        others: dict[tuple[int, int], float] = {}
        for s in spans:
            if is_name_label(s.label):
                parts.setdefault((s.start, s.end), []).append(s)
            else:
                others[(s.start, s.end)] = max(others.get((s.start, s.end), 0.0), s.score)

        def contested(ext: tuple[int, int]) -> bool:
            return others.get(ext, -1.0) >= max(s.score for s in parts[ext])
        if len(parts) < 2:
            return []
        by_start: dict[int, list[tuple[int, int]]] = {}
        for ext in parts:
            by_start.setdefault(ext[0], []).append(ext)

        def only_first_name(ext: tuple[int, int]) -> bool:
            return all(":first_name" in s.source for s in parts[ext])

        succ: dict[tuple[int, int], list[tuple[int, int]]] = {}
        particles_by_len = self._particles_by_len

        def successors(ext: tuple[int, int]) -> list[tuple[int, int]]:
            out = succ.get(ext)
            if out is not None:
                return out
            out = []
            e = ext[1]
            # at most one connector of each length can equal the text after the extent
            for size, connectors in particles_by_len:
                nxt = e + size
                starting = by_start.get(nxt)
                if not starting:
                    continue
                p = text[e:nxt]
                if p not in connectors:
                    continue
                for cand in starting:
                    if p == " y " and (only_first_name(cand) or only_first_name(ext)):
                        continue
                    out.append(cand)
            out.sort()
            succ[ext] = out
            return out

        # longest chain end reachable from each extent (dynamic programming from the right); a chain is kept as
        # (end, number of extents, next extent), so that long runs of name parts stay linear
        best: dict[tuple[int, int], tuple[int, int, tuple[int, int] | None]] = {}
        for ext in sorted(parts, key=lambda e: (-e[0], -e[1])):
            end, length, link = ext[1], 1, None
            for nxt in successors(ext):
                e2, l2, _ = best[nxt]
                if e2 > end or (e2 == end and l2 + 1 > length):
                    end, length, link = e2, l2 + 1, nxt
            best[ext] = (end, length, link)
        has_pred = {nxt for ext in parts for nxt in successors(ext)}
        # "does a non-name extent cover [start, end)?" in O(log n): the other extents sorted by start, with the
        # furthest end among those starting at or before each position (a scan of all of them per chain made a
        # long note quadratic: every name chain against every place)
        cover_starts = sorted(others)
        cover_ends = list(accumulate((b for _, b in cover_starts), max))
        cover_starts_only = [a for a, _ in cover_starts]

        def covered(start: int, end: int) -> bool:
            k = bisect.bisect_right(cover_starts_only, start)
            return k > 0 and cover_ends[k - 1] >= end

        merged: list[Span] = []
        for ext in sorted(parts):
            if ext in has_pred:
                continue
            end, length, link = best[ext]
            if length < 2:
                continue
            chain = [ext]
            while link is not None:
                chain.append(link)
                link = best[link][2]
            if all(contested(e) for e in chain):
                continue
            if covered(ext[0], end):
                continue  # a place or hospital covers the whole chain: "Talavera de la Reina"
            members = [s for e in chain for s in parts[e]]
            score = min(1.0, max(s.score for s in members) + self.merge_bonus)
            merged.append(Span(ext[0], end, _merged_label(s.label for s in members), "resolve:merge",
                               round(score, 4)))
        return merged


class Resolve:
    """The ``resolve`` step: non-overlapping spans from every detector's candidates (:class:`Resolver`)."""

    name = "resolve"

    def __init__(self, resolver: Resolver | None = None) -> None:
        self.resolver = resolver or Resolver()

    def __repr__(self) -> str:
        return f"Resolve({self.resolver!r})"

    def process(self, analysis: Analysis, spans: list[Span]) -> list[Span]:
        return self.resolver.resolve(analysis.doc, spans)


def resolved(spans: Iterable[Span], text_length: int, min_score: float = 0.0) -> list[Span]:
    """Spans that already do not overlap (a tagger's), as :meth:`Resolver.resolve` orders them: those scoring at
    least ``min_score``, distinct, sorted by position. No overlap resolution and no name merging."""
    cands = {_SPAN_ORDER(s): s for s in spans if s.score >= min_score}
    for s in cands.values():
        if s.end > text_length:
            raise ConfigError(f"span [{s.start}, {s.end}) ends past the text (length {text_length})")
    return sorted(cands.values(), key=_SPAN_ORDER)
