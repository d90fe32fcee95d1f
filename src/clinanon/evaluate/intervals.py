"""Interval helpers for evaluation: unions, intersections, overlap pairs and non-whitespace character counts.

All intervals are half-open ``(start, end)`` character offsets. Every helper is linear (up to a log factor) in
the number of intervals, the characters they cover and, for :func:`overlap_pairs`, the pairs it returns.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from itertools import accumulate

from clinanon.document import Span

__all__ = ["CharCounter", "Coverage", "intersect", "merge", "overlap_pairs"]

Interval = tuple[int, int]


class CharCounter:
    """Counts the non-whitespace characters (``not str.isspace``) of ranges of one text.

    With ``dense=True`` an ``O(len(text))`` prefix sum is built once and every count is ``O(1)``; otherwise a
    count costs the length of its range. Choose ``dense`` when the ranges to count may add up to more than the
    text (overlapping or nested spans) — either way the total cost stays linear.
    """

    __slots__ = ("_prefix", "text")

    def __init__(self, text: str, *, dense: bool = False) -> None:
        self.text = text
        self._prefix = list(accumulate((not c.isspace() for c in text), initial=0)) if dense else None

    def count(self, start: int, end: int) -> int:
        if self._prefix is not None:
            return self._prefix[end] - self._prefix[start] if end > start else 0
        return sum(map(len, self.text[start:end].split()))

    def count_in(self, intervals: Iterable[Interval]) -> int:
        """Total over ``intervals``, which must not overlap (e.g. the output of :func:`merge`)."""
        return sum(self.count(s, e) for s, e in intervals)

    @property
    def dense(self) -> bool:
        return self._prefix is not None


class Coverage:
    """A union of intervals (:func:`merge` output) that counts how many characters of a range it covers.

    With a dense :class:`CharCounter`, :meth:`covered` is ``O(log n)`` (cumulative counts per interval);
    otherwise it costs the length of the range.
    """

    __slots__ = ("_cum", "chars", "starts", "union")

    def __init__(self, union: Sequence[Interval], chars: CharCounter) -> None:
        self.union = union
        self.chars = chars
        self.starts = [s for s, _ in union]
        self._cum = list(accumulate((chars.count(s, e) for s, e in union), initial=0)) if chars.dense else None

    def covered(self, start: int, end: int) -> int:
        """Non-whitespace characters of ``[start, end)`` inside the union."""
        union, count = self.union, self.chars.count
        i = max(bisect.bisect_right(self.starts, start) - 1, 0)  # first interval that may overlap
        if self._cum is None:
            n = 0
            while i < len(union) and union[i][0] < end:
                n += count(max(union[i][0], start), min(union[i][1], end))
                i += 1
            return n
        j = bisect.bisect_left(self.starts, end)  # intervals i..j-1 start before the range ends
        if i >= j:
            return 0
        n = self._cum[j] - self._cum[i]
        first_start, first_end = union[i]
        n -= count(first_start, min(start, first_end))  # part of the first interval before the range
        last_start, last_end = union[j - 1]
        n -= count(max(end, last_start), last_end)  # part of the last interval after the range
        return n


def merge(intervals: Iterable[Interval]) -> list[Interval]:
    """The union of ``intervals`` as sorted, disjoint intervals.

    Touching intervals (``[0, 3)`` and ``[3, 5)``) are merged into one; this does not change character counts.
    """
    out: list[Interval] = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def intersect(a: Sequence[Interval], b: Sequence[Interval]) -> list[Interval]:
    """Intersection of two sorted disjoint interval lists (two-pointer sweep, linear)."""
    out: list[Interval] = []
    i = j = 0
    while i < len(a) and j < len(b):
        s = max(a[i][0], b[j][0])
        e = min(a[i][1], b[j][1])
        if s < e:
            out.append((s, e))
        if a[i][1] <= b[j][1]:
            i += 1
        else:
            j += 1
    return out


def overlap_pairs(a: Sequence[Span], b: Sequence[Span]) -> list[list[int]]:
    """For every span of ``a``, the indices (increasing) of the spans of ``b`` that share a character with it.

    ``b`` must be sorted by start (a :class:`~clinanon.document.Document` keeps its spans sorted). Every
    overlapping pair ``(x, y)`` has either ``x.start <= y.start < x.end`` or ``y.start < x.start < y.end``;
    each case is a range of starts found by bisection, so the cost is ``O((len(a) + len(b)) log) + pairs``
    even with nested or very long spans.
    """
    out: list[list[int]] = [[] for _ in a]
    b_starts = [s.start for s in b]
    for i, x in enumerate(a):  # b starting inside x
        lo = bisect.bisect_left(b_starts, x.start)
        hi = bisect.bisect_left(b_starts, x.end)
        out[i].extend(range(lo, hi))
    order = sorted(range(len(a)), key=lambda i: a[i].start)
    a_starts = [a[i].start for i in order]
    for j, y in enumerate(b):  # a starting strictly inside y
        lo = bisect.bisect_right(a_starts, y.start)
        hi = bisect.bisect_left(a_starts, y.end)
        for k in range(lo, hi):
            out[order[k]].append(j)
    for found in out:
        found.sort()
    return out
