"""The ``select`` step: several detectors combined per label — union, majority vote, intersection, or "detector X
wins for label L" — into one set of non-overlapping spans.

For one note, with the members' candidates in ``analysis.candidates`` (member name -> raw spans):

1. **prepare** each member's spans on its own: drop those scoring below the member's ``min_score``, resolve the
   overlaps of a member whose spans may overlap (the rules' raw candidates: :class:`~clinanon.steps.resolve.Resolver`,
   which also merges adjacent name parts; a tagger's decoded spans never overlap and are kept as they are), and
   map every label into ONE target ``scheme`` (``scheme.native(category)``: the rules' canonical
   ``LOCATION.STREET`` becomes MEDDOCAN's ``CALLE``). A label with no native counterpart is kept as it is.
2. **select per label** ``L`` with the strategy ``table.strategy(L)``; a key counts a *vote* per distinct member
   proposing exactly ``(start, end, L)``:

   * ``"union"``: every member's ``L`` spans;
   * ``"vote"``: ``(start, end, L)`` proposed by a strict majority of the members (votes > n / 2). Tie rule: with
     an even number of members, exactly n / 2 votes win when the ``tiebreak`` member is among them. With two
     members, ``"vote"`` is therefore the tiebreak member's spans;
   * ``"intersection"``: proposed by every member;
   * a member name: only that member's ``L`` spans.
3. **resolve** the selected spans (of all labels) into non-overlapping spans, greedily and deterministically: more
   votes first, then the member order (``priority``), then longer, then higher score, then position/label. The
   result does not depend on the order of the members' outputs. With a protection (recall first), spans scoring
   below its ``min_score`` come last: a guess that the pipeline's score filter drops never displaces a confident
   span of another member.
4. **protect** (recall first, when a :class:`Protection` is given): a span of a protected category (names, IDs,
   contacts, dates by default) that the protected member (the rules) proposed with at least the protection's
   ``min_score`` is never dropped. Where no selected span (scoring at least that much) covers its characters, it is
   added; where it overlaps selected spans, they and it become one span over the union of their extents (more
   text replaced protects more than a tighter guess), labelled by the best-scoring overlapping selected span of
   the same category (the model's choice between a patient and a clinician), else by the best-scoring of them all
   (``source="select:protect"``, the best score). Where selected spans of another type cover it, lie inside it and
   each score lower than it, it replaces them the same way (its label wins: "Paciente Juan García López" that the
   rules name and a model, unsure, calls a street). A span the strategies chose for F1 on one corpus can thus lose
   its exact extent, never the text it covered. A rules span of another category (a place) is never added, but
   where selected spans of its own kind cover part of it, they and it become one span the same way ("MILFORD
   MILL" is not cut to a model's "MILL").

Spans keep their member's ``source`` (``"crf"``, ``"dates:iso"``) and score. Name propagation and repairs are the
next steps of the pipeline (:mod:`clinanon.steps.propagate`, :mod:`clinanon.steps.repair`), run once per note.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinanon.analysis import Analysis
from clinanon.document import Span
from clinanon.errors import ConfigError
from clinanon.steps.resolve import Resolver, resolved
from clinanon.steps.scheme import SchemeLabels
from clinanon.taxonomy import LabelScheme, category_matches

__all__ = ["BUILTIN_STRATEGIES", "PROTECTED_CATEGORIES", "Protection", "Select", "StrategyTable"]

#: strategies that are not a member name
BUILTIN_STRATEGIES: tuple[str, ...] = ("union", "vote", "intersection")
#: the categories a recall-first selection never drops when the rules found them
PROTECTED_CATEGORIES: tuple[str, ...] = ("NAME", "ID", "CONTACT", "DATE")


@dataclass(frozen=True)
class Protection:
    """Step 4 of the selection: the spans of ``member`` whose category falls under one of ``categories`` (a type
    such as ``NAME`` covers its subtypes) and that score at least ``min_score`` are never dropped.

    The defaults protect what the rules find with high precision: names (gazetteers with context, titles, form
    fields), identifiers (field labels, check digits), contacts and dates, above the rules' own score threshold
    (0.5); on MEDDOCAN dev nearly every such rule span overlaps gold PHI (``overlap_unlabeled`` precision in
    ``benchmarks/results/rules_meddocan.json``), so keeping them costs little precision and no model can veto them.
    """

    member: str = "rules"
    categories: tuple[str, ...] = PROTECTED_CATEGORIES
    min_score: float = 0.5

    def to_dict(self) -> dict[str, Any]:
        return {"member": self.member, "categories": list(self.categories), "min_score": self.min_score}


@dataclass(frozen=True)
class StrategyTable:
    """Per-label strategies plus the default for every other label; ``scores`` (optional) records the dev F1
    of each candidate strategy per label, as :func:`clinanon.ensemble.choose_strategies` measured it."""

    strategies: Mapping[str, str] = field(default_factory=dict)
    default: str = "union"
    scores: Mapping[str, Mapping[str, float]] = field(default_factory=dict)

    def strategy(self, label: str) -> str:
        return self.strategies.get(label, self.default)

    def to_dict(self) -> dict[str, Any]:
        return {"default": self.default, "strategies": dict(sorted(self.strategies.items())),
                "scores": {k: dict(v) for k, v in sorted(self.scores.items())}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StrategyTable:
        return cls(strategies=dict(data.get("strategies") or {}), default=str(data.get("default", "union")),
                   scores={k: dict(v) for k, v in (data.get("scores") or {}).items()})

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> StrategyTable:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ConfigError(f"{path}: cannot read the strategy table ({type(e).__name__})") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: expected a JSON object with 'default' and 'strategies'")
        return cls.from_dict(data)


class Select:
    """The ``select`` step (see the module docstring).

    ``members``: member name -> whether its spans may overlap (the order is the default ``priority``).
    ``scheme``: the scheme the members vote in. ``table``: per-label strategies. ``tiebreak``: the member that
    breaks a tie of a vote among an even number of members (default: the first). ``min_score``: per member
    (missing: 0.0). ``protect``: step 4 (``None``: the strategies alone decide; a protection naming a member that
    is not one of ``members`` protects nothing, so an ensemble without rules needs no other setting).
    """

    name = "select"

    def __init__(self, members: Mapping[str, bool], scheme: LabelScheme, table: StrategyTable, *,
                 tiebreak: str | None = None, priority: Sequence[str] | None = None,
                 min_score: Mapping[str, float] | None = None, protect: Protection | None = None) -> None:
        if not members:
            raise ConfigError("an ensemble needs at least one detector")
        self.members: tuple[str, ...] = tuple(members)
        self.overlapping = dict(members)
        self.labels = SchemeLabels(scheme)
        self.table = table
        for label, strat in [*table.strategies.items(), ("(default)", table.default)]:
            self.check_strategy(label, strat)
        self.tiebreak = tiebreak if tiebreak is not None else self.members[0]
        if self.tiebreak not in self.overlapping:
            raise ConfigError(f"tiebreak {self.tiebreak!r} is not a member; members: {', '.join(self.members)}")
        order = list(priority) if priority is not None else list(self.members)
        unknown = [p for p in order if p not in self.overlapping]
        if unknown:
            raise ConfigError(f"priority names unknown member {unknown[0]!r}; members: {', '.join(self.members)}")
        order += [m for m in self.members if m not in order]
        self.rank = {m: i for i, m in enumerate(order)}
        self.min_score = {m: 0.0 for m in self.members}
        self.min_score.update(min_score or {})
        self._resolvers = {m: Resolver(min_score=self.min_score[m]) for m in self.members if self.overlapping[m]}
        self.protect = protect
        self._protected: dict[str, bool] = {}

    def __repr__(self) -> str:
        protect = (f", protect={self.protect.member}:{'+'.join(self.protect.categories)}"
                   if self.protect is not None else "")
        return (f"Select(members={list(self.members)!r}, scheme={self.labels.scheme.name!r}, "
                f"default={self.table.default!r}, per_label={len(self.table.strategies)}{protect})")

    def check_strategy(self, label: str, strat: str) -> None:
        if strat not in BUILTIN_STRATEGIES and strat not in self.overlapping:
            raise ConfigError(f"strategy for {label}: {strat!r} is neither one of {', '.join(BUILTIN_STRATEGIES)} "
                              f"nor a member ({', '.join(self.members)})")

    # --- step 1 ---------------------------------------------------------------------------------------------
    def prepare(self, analysis: Analysis) -> dict[str, list[Span]]:
        """Each member's spans, filtered by score, resolved (non-overlapping) and labelled in the target scheme."""
        out: dict[str, list[Span]] = {}
        text = analysis.text
        in_scheme = self.labels.in_scheme
        for m in self.members:
            raw = analysis.candidates.get(m, ())
            resolver = self._resolvers.get(m)
            spans = resolver.resolve(text, raw) if resolver is not None else \
                resolved(raw, len(text), self.min_score[m])
            mapped = []
            for s in spans:
                lab = in_scheme(s.label)
                mapped.append(s if lab == s.label else Span(s.start, s.end, lab, s.source, s.score))
            out[m] = mapped
        return out

    # --- steps 2-3 ------------------------------------------------------------------------------------------
    def select(self, prepared: Mapping[str, Sequence[Span]], table: StrategyTable | None = None
               ) -> list[tuple[Span, int, int]]:
        """Step 2: the selected spans with their vote count and best member rank (overlapping, unsorted)."""
        table = table or self.table
        n = len(self.members)
        votes: dict[tuple[int, int, str], list[str]] = {}
        best: dict[tuple[int, int, str], Span] = {}
        for m in sorted(self.members, key=self.rank.__getitem__):  # the best-ranked proposer's span is kept
            for s in prepared.get(m, ()):
                key = (s.start, s.end, s.label)
                voters = votes.setdefault(key, [])
                if m in voters:
                    continue
                voters.append(m)
                best.setdefault(key, s)
        out = []
        for key, voters in votes.items():
            strat = table.strategy(key[2])
            k = len(voters)
            if strat == "union":
                keep = True
            elif strat == "vote":
                keep = 2 * k > n or (2 * k == n and self.tiebreak in voters)
            elif strat == "intersection":
                keep = k == n
            else:
                keep = strat in voters
            if keep:
                span = best[key]
                if strat in self.overlapping:  # the chosen member's own span (its source and score)
                    span = next(s for s in prepared[strat] if (s.start, s.end, s.label) == key)
                out.append((span, k, self.rank[voters[0]]))
        return out

    @staticmethod
    def resolve_selected(selected: Iterable[tuple[Span, int, int]], floor: float | None = None) -> list[Span]:
        """Step 3: non-overlapping spans, greedily by (more votes, member rank, longer, higher score, position).

        ``floor`` (recall first: the protection's ``min_score``): spans scoring below it come after all others,
        so that a guess the pipeline's score filter will drop never displaces a confident span."""
        chosen: list[Span] = []
        starts: list[int] = []
        ends: list[int] = []
        low = -1.0 if floor is None else floor
        for s, _, _ in sorted(selected, key=lambda t: (t[0].score < low, -t[1], t[2], t[0].start - t[0].end,
                                                        -t[0].score, t[0].start, t[0].end, t[0].label,
                                                        t[0].source)):
            k = bisect.bisect_left(starts, s.end)
            if k and ends[k - 1] > s.start:
                continue
            starts.insert(k, s.start)
            ends.insert(k, s.end)
            chosen.append(s)
        return sorted(chosen, key=lambda s: (s.start, s.end, s.label, s.source, s.score))

    def is_protected(self, label: str) -> bool:
        """Whether spans of ``label`` (target scheme) fall under the protected categories."""
        got = self._protected.get(label)
        if got is None:
            cats = self.protect.categories if self.protect is not None else ()
            category = self.labels.category(label)
            got = self._protected[label] = any(category_matches(category, c) or label == c for c in cats)
        return got

    def protect_spans(self, prepared: Mapping[str, Sequence[Span]], chosen: Sequence[Span], text: str = ""
                      ) -> list[Span]:
        """Step 4 on the resolved spans ``chosen`` (sorted, non-overlapping): the same, with every protected span
        of the protected member kept (see the module docstring). Sorted and non-overlapping. ``text``: the note's,
        so that blanks between two selected spans count as covered (without it, they do not)."""
        if self.protect is None or self.protect.member not in self.overlapping:
            return list(chosen)
        floor = self.protect.min_score
        starts = [s.start for s in chosen]
        absorbed: set[int] = set()
        added: list[Span] = []
        for r in prepared.get(self.protect.member, ()):
            if r.score < floor:
                continue
            protected = self.is_protected(r.label)
            hi = bisect.bisect_left(starts, r.end)  # chosen[:hi] start before r ends
            lo = hi
            while lo and chosen[lo - 1].end > r.start:  # non-overlapping and sorted: only those overlapping r
                lo -= 1
            over = chosen[lo:hi]
            if not protected:
                # another category (a place): never added, but where the selection kept a span of the same kind
                # over part of it, the union of their extents ("MILL" of "MILFORD MILL")
                top = self.labels.category(r.label).split(".")[0]
                if not over or any(self.labels.category(o.label).split(".")[0] != top for o in over):
                    continue
            if (_covered(text, r, [o for o in over if o.score >= floor])
                    and not (protected and self._outranks(r, over))):
                continue
            absorbed.update(range(lo, hi))
            added.append(self._union(r, over))
        if not added:
            return list(chosen)
        merged: list[Span] = []
        for sp in sorted([*(c for i, c in enumerate(chosen) if i not in absorbed), *added],
                         key=lambda x: (x.start, x.end)):
            if merged and merged[-1].end > sp.start:  # two unions that share text become one
                prev = merged[-1]
                giver = max((prev, sp), key=lambda x: (x.score, x.end - x.start))
                merged[-1] = Span(prev.start, max(prev.end, sp.end), giver.label, "select:protect",
                                  max(prev.score, sp.score))
            else:
                merged.append(sp)
        return merged

    def _outranks(self, r: Span, over: Sequence[Span]) -> bool:
        """Whether the protected span ``r``, covered by the selected spans ``over``, gives its label to its extent:
        every one of them lies inside it, none is of its type, and each scores lower ("Paciente Juan García López"
        that a model unsure of itself calls a street). The same choice as for a union: the best score labels."""
        top = self.labels.category(r.label).split(".")[0]
        return bool(over) and all(r.start <= o.start and o.end <= r.end and o.score < r.score
                                  and self.labels.category(o.label).split(".")[0] != top for o in over)

    def _union(self, r: Span, over: Sequence[Span]) -> Span:
        """One span over ``r`` and the selected spans it overlaps (see step 4)."""
        if not over:
            return r
        start, end = min(r.start, over[0].start), max(r.end, over[-1].end)
        score = max(r.score, *(o.score for o in over))
        top = self.labels.category(r.label).split(".")[0]
        same = [o for o in over if self.labels.category(o.label).split(".")[0] == top]
        pool = same or [r, *over]
        giver = max(pool, key=lambda s: (s.score, s is r, s.end - s.start))
        if (start, end) == (giver.start, giver.end):
            return Span(start, end, giver.label, giver.source, score)
        return Span(start, end, giver.label, "select:protect", score)

    def combine(self, prepared: Mapping[str, Sequence[Span]], table: StrategyTable | None = None,
                text: str = "") -> list[Span]:
        """Steps 2-4 on prepared member spans: sorted, non-overlapping spans in the target scheme (``text``: the
        note's, for step 4's test of blank gaps; without it, gaps between selected spans count as uncovered)."""
        if self.protect is None:
            return self.resolve_selected(self.select(prepared, table))
        chosen = self.resolve_selected(self.select(prepared, table), self.protect.min_score)
        return self.protect_spans(prepared, chosen, text)

    def process(self, analysis: Analysis, spans: list[Span]) -> list[Span]:
        """The step: the members' candidates of the note (``spans``, every member's together, is not used)."""
        return self.combine(self.prepare(analysis), text=analysis.text)


def _covered(text: str, r: Span, over: Sequence[Span]) -> bool:
    """Whether every character of ``r`` but blanks lies in one of ``over`` (sorted, non-overlapping)."""
    pos = r.start
    for o in over:
        if o.start > pos and not _blank(text, pos, min(o.start, r.end)):
            return False
        pos = max(pos, o.end)
        if pos >= r.end:
            return True
    return pos >= r.end or _blank(text, pos, r.end)


def _blank(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is non-empty and blank (an empty ``text`` has no blanks)."""
    gap = text[start:end]
    return bool(gap) and not gap.strip(" \t\r\n\u00a0")
