"""Several detectors combined per label: union, majority vote, intersection, or "detector X wins for label L".

>>> ens = Ensemble({"rules": RulesDetector("es"), "crf": CRFDetector.load(path)}, scheme="meddocan",
...                strategies={"CALLE": "crf", "FECHAS": "union"}, default="vote", tiebreak="crf")  # doctest: +SKIP
>>> ens.detect(doc)                                                                                 # doctest: +SKIP

An ensemble is a recipe: its members (detectors) and the steps that combine what they found, once per note:

1. the **members** run (the rules member first: the CRF reads the rules' raw candidates from
   ``analysis.candidates`` as features, so the rules run once per note);
2. :class:`~clinanon.steps.combine.Select` prepares each member's spans (score filter, a member whose spans may
   overlap resolved, labels in the ensemble's ``scheme``) and selects per label (``union``, ``vote``,
   ``intersection`` or a member), then makes them non-overlapping; with ``protect`` (a
   :class:`~clinanon.steps.combine.Protection`), what the rules found of the protected categories (names, IDs,
   contacts, dates) is never dropped, whatever the strategies say (recall first: see
   :mod:`clinanon.steps.combine`);
3. :class:`~clinanon.steps.propagate.Propagate` finds the names again everywhere in the note (``propagate_names``);
4. :class:`~clinanon.steps.repair.Repair` mends what is wrong in any corpus (a kinship word in "médico de
   familia" names no one, an institution's name running into an address ...) (``repair``);
5. in a pipeline, its legal profile (:mod:`clinanon.profiles`: what counts as PHI) and its ``min_score``;
6. labels go to ``output_scheme`` when one is given (the members vote in a model's labels, the caller reads
   another scheme).

A :class:`~clinanon.pipeline.Pipeline` holding an ensemble runs these steps as its own (plus its score filter and
label scheme), so each runs once per note. :func:`choose_strategies` picks, per label, the strategy with the best
exact F1 on development data.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from clinanon.analysis import Analysis
from clinanon.detect.base import BaseDetector, Detector, may_overlap, run_detector
from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.profiles import Profile, get_profile
from clinanon.steps.base import Step, run_steps
from clinanon.steps.combine import BUILTIN_STRATEGIES, Protection, Select, StrategyTable
from clinanon.steps.profile import ApplyProfile
from clinanon.steps.propagate import Propagate
from clinanon.steps.repair import Repair
from clinanon.steps.scheme import MinScore, ToScheme
from clinanon.taxonomy import LabelScheme, get_scheme

__all__ = ["BUILTIN_STRATEGIES", "Ensemble", "Protection", "StrategyTable", "choose_strategies", "label_f1"]


class Ensemble(BaseDetector):
    """Several detectors combined per label (see the module docstring).

    ``detectors``: member name -> detector (the mapping's order is the default ``priority``). ``scheme``: the
    label scheme every member's labels are mapped into (a name or a :class:`LabelScheme`). ``strategies`` /
    ``default``: per-label strategy and the strategy of every other label (or give ``table``). ``tiebreak``: the
    member that breaks a tie of a vote among an even number of members. ``min_score``: per member (missing:
    0.5 for ``rules_member``, 0.0 otherwise). ``propagate_names``, ``repair``: steps 3 and 4. ``lang``: the
    language of notes whose ``meta`` names none. ``output_scheme``: the scheme :meth:`detect` returns labels in
    (default: ``scheme``). ``protect``: the member spans no strategy drops (``None``: none; see
    :class:`~clinanon.steps.combine.Protection`).
    """

    name = "ensemble"

    def __init__(
        self,
        detectors: Mapping[str, Detector],
        *,
        scheme: str | LabelScheme = "canonical",
        strategies: Mapping[str, str] | None = None,
        default: str = "union",
        table: StrategyTable | None = None,
        tiebreak: str | None = None,
        priority: Sequence[str] | None = None,
        min_score: Mapping[str, float] | None = None,
        rules_member: str = "rules",
        propagate_names: bool = True,
        lang: str = "es",
        output_scheme: str | None = None,
        repair: bool = True,
        protect: Protection | None = None,
    ) -> None:
        if not detectors:
            raise ConfigError("an ensemble needs at least one detector")
        self.detectors: dict[str, Detector] = dict(detectors)
        self.members: tuple[str, ...] = tuple(self.detectors)
        self.scheme: LabelScheme = get_scheme(scheme) if isinstance(scheme, str) else scheme
        if table is None:
            table = StrategyTable(dict(strategies or {}), default)
        elif strategies:
            raise ConfigError("give either a strategy table or strategies, not both")
        scores = {m: (0.5 if m == rules_member else 0.0) for m in self.members}
        scores.update(min_score or {})
        self.selection = Select({m: may_overlap(d) for m, d in self.detectors.items()}, self.scheme, table,
                                tiebreak=tiebreak, priority=priority, min_score=scores, protect=protect)
        self.rules_member = rules_member
        self.propagate_names = propagate_names
        self.repair = repair
        self.lang = lang
        self.output_scheme: LabelScheme | None = (get_scheme(output_scheme) if output_scheme is not None
                                                  and output_scheme != self.scheme.name else None)
        #: the members in the order they run: the rules first (the CRF reads their candidates)
        first = [rules_member] if rules_member in self.detectors else []
        self.run_order: tuple[str, ...] = tuple(first + [m for m in self.members if m != rules_member])
        self._steps = self.steps()

    def __repr__(self) -> str:
        protect = (f", protect={'+'.join(self.protect.categories)}" if self.protect is not None else "")
        return (f"Ensemble(members={list(self.members)!r}, scheme={self.scheme.name!r}, "
                f"default={self.table.default!r}, per_label={len(self.table.strategies)}{protect})")

    @property
    def table(self) -> StrategyTable:
        return self.selection.table

    @table.setter
    def table(self, table: StrategyTable) -> None:
        for label, strat in [*table.strategies.items(), ("(default)", table.default)]:
            self.selection.check_strategy(label, strat)
        self.selection.table = table

    @property
    def protect(self) -> Protection | None:
        return self.selection.protect

    @property
    def tiebreak(self) -> str:
        return self.selection.tiebreak

    @property
    def min_score(self) -> dict[str, float]:
        return self.selection.min_score

    # --- the recipe -----------------------------------------------------------------------------------------
    def steps(self, scheme: LabelScheme | None = None, min_score: float | None = None,
              profile: str | Profile | None = None) -> list[Step]:
        """The steps after the members: select, propagate, repair, then (for a pipeline) its legal ``profile``
        (:class:`~clinanon.steps.profile.ApplyProfile`, while the labels are still the members' scheme, so an age
        is told from a date; left out when the profile keeps everything) and its ``min_score`` filter, then the
        labels in ``output_scheme`` and (for a pipeline) in its ``scheme``."""
        out: list[Step] = [self.selection]
        if self.propagate_names:
            out.append(Propagate(self.selection.labels.is_name))
        if self.repair:
            out.append(Repair(self.scheme))
        if profile is not None and not get_profile(profile).keeps_everything:
            out.append(ApplyProfile(profile, self.selection.labels.category))
        if min_score is not None:
            out.append(MinScore(min_score))
        if self.output_scheme is not None:
            out.append(ToScheme(self.output_scheme, via=self.scheme))
        if scheme is not None:
            out.append(ToScheme(scheme))
        return out

    def run_members(self, analyses: Sequence[Analysis]) -> None:
        """Every member's raw spans of each note into ``analysis.candidates[member]`` (the rules member first)."""
        for m in self.run_order:
            for a, spans in zip(analyses, run_detector(self.detectors[m], analyses), strict=True):
                a.candidates[m] = list(spans)

    # --- as a detector --------------------------------------------------------------------------------------
    def detect(self, analysis: Analysis | Document) -> list[Span]:
        """The combined spans of a note (sorted; non-overlapping; labels in the target scheme, or in
        ``output_scheme`` when one was given)."""
        return self.pipe([self.analysis(analysis)])[0]

    def pipe(self, analyses: Sequence[Analysis]) -> list[list[Span]]:
        analyses = [self.analysis(a) for a in analyses]
        self.run_members(analyses)
        return run_steps(self._steps, analyses, [[] for _ in analyses])

    def predict(self, docs: Iterable[Document]) -> list[Document]:
        return [d.with_spans(self.detect(d)) for d in docs]

    # --- the parts, for choosing strategies and for tests ---------------------------------------------------
    def run(self, doc: Document | Analysis) -> dict[str, list[Span]]:
        """Every member's raw spans of one note."""
        a = self.analysis(doc)
        self.run_members([a])
        return {m: a.candidates[m] for m in self.members}

    def prepare(self, doc: Document | Analysis, raw: Mapping[str, Sequence[Span]] | None = None
                ) -> dict[str, list[Span]]:
        """Each member's spans, filtered by score, resolved (non-overlapping) and labelled in the target scheme."""
        a = self.analysis(doc)
        if raw is None:
            self.run_members([a])
        else:
            a.candidates.update({m: list(s) for m, s in raw.items()})
        return self.selection.prepare(a)

    def to_scheme(self, label: str) -> str:
        """``label`` in the target scheme (unchanged when the scheme has no counterpart)."""
        return self.selection.labels.in_scheme(label)

    def output_label(self, label: str) -> str:
        """``label`` (target scheme) in ``output_scheme``: its canonical category, then that scheme's native label
        for it (unchanged when there is none, or when there is no ``output_scheme``)."""
        if self.output_scheme is None:
            return label
        return ToScheme(self.output_scheme, via=self.scheme).label(label)

    def is_name(self, label: str) -> bool:
        return self.selection.labels.is_name(label)

    def select(self, prepared: Mapping[str, Sequence[Span]], table: StrategyTable | None = None
               ) -> list[tuple[Span, int, int]]:
        return self.selection.select(prepared, table)

    resolve_selected = staticmethod(Select.resolve_selected)

    def combine(self, doc: Document | Analysis, prepared: Mapping[str, Sequence[Span]],
                table: StrategyTable | None = None) -> list[Span]:
        """Select, propagate and repair prepared member spans: sorted, non-overlapping, in the target scheme."""
        a = self.analysis(doc)
        spans = self.selection.combine(prepared, table, a.text)
        for step in self._steps[1:]:
            if isinstance(step, ToScheme):
                break
            spans = step.process(a, spans)
        return spans

    def choose(self, dev_docs: Sequence[Document], *, labels: Iterable[str] | None = None,
               candidates: Sequence[str] | None = None, apply: bool = True) -> StrategyTable:
        """Run the members on ``dev_docs`` once and pick the per-label strategies (:func:`choose_strategies`,
        keeping this ensemble's default); ``apply`` makes the result this ensemble's table. Gold labels must be
        in the ensemble's scheme."""
        prepared = [self.prepare(d) for d in dev_docs]
        preds = {m: [p[m] for p in prepared] for m in self.members}
        table = choose_strategies(dev_docs, preds, labels, ensemble=self, default=self.table.default,
                                  candidates=candidates)
        if apply:
            self.table = table
        return table


# --- choosing strategies on dev data -----------------------------------------------------------------------------

def label_f1(gold: Iterable[Span], pred: Iterable[Span], label: str) -> tuple[int, int, int, float]:
    """(tp, fp, fn, F1) of exact ``(start, end, label)`` matches restricted to ``label``."""
    g = {(s.start, s.end) for s in gold if s.label == label}
    p = {(s.start, s.end) for s in pred if s.label == label}
    tp = len(g & p)
    fp, fn = len(p) - tp, len(g) - tp
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return tp, fp, fn, f1


def choose_strategies(
    gold_docs: Sequence[Document],
    predictions_by_detector: Mapping[str, Sequence[Sequence[Span] | Document]],
    labels: Iterable[str] | None = None,
    *,
    ensemble: Ensemble | None = None,
    scheme: str | LabelScheme = "canonical",
    default: str = "union",
    candidates: Sequence[str] | None = None,
    tiebreak: str | None = None,
    rounds: int = 2,
    beta: float = 1.0,
) -> StrategyTable:
    """The per-label strategy with the best exact F1 on ``gold_docs`` (F-beta with ``beta``: 2 weighs recall
    twice as much as precision, a recall-first choice).

    ``predictions_by_detector``: member name -> one entry per gold document (same order): the member's
    *prepared* spans (:meth:`Ensemble.prepare`; labels in the target scheme) or a Document holding them.
    ``labels``: the labels to choose for (default: every gold label). ``candidates``: strategies tried (default
    the built-in ones and every member). The choice is coordinate-wise on the whole combination (select, propagate,
    repair, so overlaps between labels and name propagation count): starting from ``default`` everywhere, each
    label in turn gets the candidate maximising its own F1 with the others fixed, for ``rounds`` passes. Ties go to
    the earlier candidate in ``candidates`` (so ``union`` before ``vote`` before members). Deterministic.
    """
    members = list(predictions_by_detector)
    if ensemble is None:
        ensemble = Ensemble({m: _NullDetector() for m in members}, scheme=scheme, default=default, tiebreak=tiebreak)
    preds = {m: [list(p.spans) if isinstance(p, Document) else list(p) for p in predictions_by_detector[m]]
             for m in members}
    for m, p in preds.items():
        if len(p) != len(gold_docs):
            raise ConfigError(f"predictions of {m!r}: {len(p)} entries for {len(gold_docs)} gold documents")
    labels = sorted(set(labels) if labels is not None else {s.label for d in gold_docs for s in d.spans})
    cands = list(candidates) if candidates is not None else [*BUILTIN_STRATEGIES, *members]
    per_doc = [{m: preds[m][i] for m in members} for i in range(len(gold_docs))]
    analyses = [ensemble.analysis(d) for d in gold_docs]

    def score_all(table: StrategyTable, only: str) -> float:
        tp = fp = fn = 0
        for doc, a, prepared in zip(gold_docs, analyses, per_doc, strict=True):
            spans = ensemble.combine(a, prepared, table)
            x, y, z, _ = label_f1(doc.spans, spans, only)
            tp, fp, fn = tp + x, fp + y, fn + z
        b2 = beta * beta
        return (1 + b2) * tp / ((1 + b2) * tp + b2 * fn + fp) if tp else 0.0

    current: dict[str, str] = {}
    scores: dict[str, dict[str, float]] = {}
    for _ in range(max(1, rounds)):
        changed = False
        for label in labels:
            results: dict[str, float] = {}
            for c in cands:
                trial = StrategyTable({**current, label: c}, default)
                results[c] = round(score_all(trial, label), 4)
            pick = max(cands, key=lambda c: (results[c], -cands.index(c)))
            scores[label] = results
            if current.get(label, default) != pick:
                changed = True
            current[label] = pick
        if not changed:
            break
    return StrategyTable(current, default, scores)


class _NullDetector:
    """A placeholder member for :func:`choose_strategies` (it only combines given spans)."""

    name = "null"

    def detect(self, analysis: Analysis) -> list[Span]:
        return []
