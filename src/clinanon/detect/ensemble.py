"""Combine several detectors per label: union, majority vote, intersection, or "detector X wins for label L".

>>> ens = Ensemble({"rules": RulesDetector("es"), "crf": CRFDetector.load(path)}, scheme="meddocan",
...                strategies={"CALLE": "crf", "FECHAS": "union"}, default="vote", tiebreak="crf")  # doctest: +SKIP
>>> ens.detect(doc)                                                                                 # doctest: +SKIP

How :meth:`Ensemble.detect` works, for one document:

1. **run** every member once. A member whose ``detect`` takes ``rule_spans`` (the CRF) gets the raw candidates of
   the member named ``rules_member`` (default ``"rules"``), so the rules run once per document.
2. **prepare** each member's spans on its own: drop those scoring below the member's ``min_score`` (default
   0.5 for ``rules``, 0.0 for the others), resolve overlaps with a :class:`~clinanon.detect.resolve.Resolver`
   (which also merges adjacent name parts), and map every label into ONE target ``scheme``
   (``scheme.native(category)``: the rules' canonical ``LOCATION.STREET`` becomes MEDDOCAN's ``CALLE``).
   A label with no native counterpart in the scheme is kept as it is. The trained members' spans are repaired
   (:mod:`clinanon.detect.repair`: kinship words that name no one, institution names running into an address).
3. **select per label** ``L`` with the strategy ``strategies.get(L, default)``; a key counts a *vote* per distinct
   member proposing exactly ``(start, end, L)``:

   * ``"union"``: every member's ``L`` spans;
   * ``"vote"``: ``(start, end, L)`` proposed by a strict majority of the members (votes > n / 2). Tie rule:
     with an even number of members, exactly n / 2 votes win when the ``tiebreak`` member is among them
     (``tiebreak`` defaults to the first member). With two members, ``"vote"`` is therefore the tiebreak
     member's spans;
   * ``"intersection"``: proposed by every member;
   * a member name: only that member's ``L`` spans.
4. **resolve** the selected spans (of all labels) into non-overlapping spans, greedily and deterministically:
   more votes first, then the member order (``priority``, default the order of ``detectors``), then longer, then
   higher score, then position/label. The result does not depend on the order of the members' outputs.
5. **propagate names** (:func:`clinanon.detect.propagate.propagate`) over the labels whose category is a NAME.

Spans keep their member's ``source`` (``"crf"``, ``"dates:iso"``, ``"propagate"``) and score.
:func:`choose_strategies` picks, per label, the strategy with the best exact F1 on development data.
"""

from __future__ import annotations

import bisect
import inspect
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinanon.detect.base import Detector, detect_batch
from clinanon.detect.repair import repair_spans
from clinanon.detect.resolve import Resolver
from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.taxonomy import LabelScheme, category_matches, get_scheme

__all__ = ["BUILTIN_STRATEGIES", "Ensemble", "StrategyTable", "choose_strategies", "label_f1"]

#: strategies that are not a member name
BUILTIN_STRATEGIES: tuple[str, ...] = ("union", "vote", "intersection")


@dataclass(frozen=True)
class StrategyTable:
    """Per-label strategies plus the default for every other label; ``scores`` (optional) records the dev F1
    of each candidate strategy per label, as :func:`choose_strategies` measured it."""

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


def _takes_rule_spans(det: Any) -> bool:
    try:
        return "rule_spans" in inspect.signature(det.detect).parameters
    except (TypeError, ValueError):
        return False


class Ensemble:
    """Several detectors combined per label (see the module docstring).

    ``detectors``: member name -> detector (the mapping's order is the default ``priority``). ``scheme``: the
    label scheme every member's labels are mapped into (a name or a :class:`LabelScheme`). ``strategies`` /
    ``default``: per-label strategy and the strategy of every other label (or give ``table``). ``tiebreak``: the
    member that breaks a tie of a vote among an even number of members. ``min_score``: per member (missing:
    0.5 for ``rules_member``, 0.0 otherwise). ``propagate_names``: step 5. ``repair``: the other members' spans
    get :func:`clinanon.detect.repair.repair_spans` (kinship words that name no one, institution names that run
    into an address) before they are combined. ``lang``: the language given to
    propagation (a document's ``meta["lang"]`` wins). ``output_scheme``: the scheme :meth:`detect` returns
    labels in (default: ``scheme``), e.g. vote in a model's native MEDDOCAN labels, output canonical ones.
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
        self.table = table
        for label, strat in [*table.strategies.items(), ("(default)", table.default)]:
            self._check_strategy(label, strat)
        self.tiebreak = tiebreak if tiebreak is not None else self.members[0]
        if self.tiebreak not in self.detectors:
            raise ConfigError(f"tiebreak {self.tiebreak!r} is not a member; members: {', '.join(self.members)}")
        order = list(priority) if priority is not None else list(self.members)
        unknown = [p for p in order if p not in self.detectors]
        if unknown:
            raise ConfigError(f"priority names unknown member {unknown[0]!r}; members: {', '.join(self.members)}")
        order += [m for m in self.members if m not in order]
        self._rank = {m: i for i, m in enumerate(order)}
        self.min_score = {m: (0.5 if m == rules_member else 0.0) for m in self.members}
        self.min_score.update(min_score or {})
        self.rules_member = rules_member
        self.propagate_names = propagate_names
        self.repair = repair
        self.lang = lang
        self._takes_rules = {m: m != rules_member and rules_member in self.detectors and _takes_rule_spans(d)
                             for m, d in self.detectors.items()}
        self._resolvers = {m: Resolver(min_score=self.min_score[m]) for m in self.members}
        self._label_memo: dict[str, str] = {}
        self._name_memo: dict[str, bool] = {}
        self.output_scheme: LabelScheme | None = (get_scheme(output_scheme) if output_scheme is not None
                                                  and output_scheme != self.scheme.name else None)
        self._out_memo: dict[str, str] = {}

    def __repr__(self) -> str:
        return (f"Ensemble(members={list(self.members)!r}, scheme={self.scheme.name!r}, "
                f"default={self.table.default!r}, per_label={len(self.table.strategies)})")

    def _check_strategy(self, label: str, strat: str) -> None:
        if strat not in BUILTIN_STRATEGIES and strat not in self.detectors:
            raise ConfigError(f"strategy for {label}: {strat!r} is neither one of {', '.join(BUILTIN_STRATEGIES)} "
                              f"nor a member ({', '.join(self.members)})")

    # --- steps 1-2 ------------------------------------------------------------------------------------------
    def run(self, doc: Document, rule_spans: Sequence[Span] | None = None) -> dict[str, list[Span]]:
        """Every member's raw spans (the rules member runs once; its candidates feed ``rule_spans`` members).
        ``rule_spans``: the rules member's spans of ``doc`` when they are already known (see :meth:`run_many`)."""
        out: dict[str, list[Span]] = {}
        if self.rules_member in self.detectors:
            found = self.detectors[self.rules_member].detect(doc) if rule_spans is None else rule_spans
            rule_spans = out[self.rules_member] = list(found)
        for m, det in self.detectors.items():
            if m in out:
                continue
            if self._takes_rules[m]:
                out[m] = list(det.detect(doc, rule_spans=rule_spans))  # type: ignore[call-arg]
            else:
                out[m] = list(det.detect(doc))
        return out

    def run_many(self, docs: Sequence[Document]) -> list[dict[str, list[Span]]]:
        """``[self.run(d) for d in docs]``; a rules member with a ``detect_many`` runs over the whole batch."""
        rules = self.detectors.get(self.rules_member)
        if rules is None:
            return [self.run(d) for d in docs]
        return [self.run(d, rule_spans=r) for d, r in zip(docs, detect_batch(rules, docs), strict=True)]

    def to_scheme(self, label: str) -> str:
        """``label`` in the target scheme (unchanged when the scheme has no counterpart)."""
        got = self._label_memo.get(label)
        if got is None:
            got = label if label in self.scheme else self._native(label) or label
            self._label_memo[label] = got
        return got

    def prepare(self, doc: Document, raw: Mapping[str, Sequence[Span]] | None = None) -> dict[str, list[Span]]:
        """Each member's spans, filtered by score, resolved (non-overlapping) and labelled in the target scheme."""
        raw = self.run(doc) if raw is None else raw
        out: dict[str, list[Span]] = {}
        lang = str(doc.meta.get("lang") or self.lang)
        for m in self.members:
            spans = self._resolvers[m].resolve(doc, raw.get(m, ()))
            if self.repair and m != self.rules_member and spans:
                spans = repair_spans(doc.text, spans, lang, self._category, self._native)
            mapped = []
            for s in spans:
                lab = self.to_scheme(s.label)
                mapped.append(s if lab == s.label else Span(s.start, s.end, lab, s.source, s.score))
            out[m] = mapped
        return out

    def _category(self, label: str) -> str:
        try:
            return self.scheme.category(label)
        except KeyError:
            return label

    def _native(self, category: str) -> str | None:
        """The target scheme's label for ``category`` (a category or label), ``None`` when it has none."""
        try:
            return self.scheme.native(category)
        except (KeyError, ConfigError):
            return None

    # --- steps 3-5 ------------------------------------------------------------------------------------------
    def is_name(self, label: str) -> bool:
        got = self._name_memo.get(label)
        if got is None:
            cat = self._category(label)
            got = self._name_memo[label] = category_matches(cat, "NAME") or label == "NAME"
        return got

    def select(self, prepared: Mapping[str, Sequence[Span]], table: StrategyTable | None = None
               ) -> list[tuple[Span, int, int]]:
        """Step 3: the selected spans with their vote count and best member rank (overlapping, unsorted)."""
        table = table or self.table
        n = len(self.members)
        votes: dict[tuple[int, int, str], list[str]] = {}
        best: dict[tuple[int, int, str], Span] = {}
        for m in sorted(self.members, key=self._rank.__getitem__):  # the best-ranked proposer's span is kept
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
                if strat in self.detectors:  # the chosen member's own span (its source and score)
                    span = next(s for s in prepared[strat] if (s.start, s.end, s.label) == key)
                out.append((span, k, self._rank[voters[0]]))
        return out

    @staticmethod
    def resolve_selected(selected: Iterable[tuple[Span, int, int]]) -> list[Span]:
        """Step 4: non-overlapping spans, greedily by (more votes, member rank, longer, higher score, position)."""
        chosen: list[Span] = []
        starts: list[int] = []
        ends: list[int] = []
        for s, _, _ in sorted(selected, key=lambda t: (-t[1], t[2], t[0].start - t[0].end, -t[0].score,
                                                        t[0].start, t[0].end, t[0].label, t[0].source)):
            k = bisect.bisect_left(starts, s.end)
            if k and ends[k - 1] > s.start:
                continue
            starts.insert(k, s.start)
            ends.insert(k, s.end)
            chosen.append(s)
        return sorted(chosen, key=lambda s: (s.start, s.end, s.label, s.source, s.score))

    def combine(self, doc: Document, prepared: Mapping[str, Sequence[Span]], table: StrategyTable | None = None
                ) -> list[Span]:
        """Steps 3-5 on prepared member spans: sorted, non-overlapping spans in the target scheme."""
        spans = self.resolve_selected(self.select(prepared, table))
        if self.propagate_names and spans:
            from clinanon.detect.propagate import propagate

            lang = str(doc.meta.get("lang") or self.lang)
            spans = propagate(doc, spans, labels=self.is_name, lang=lang)
            if self.repair:  # propagation copies strings to every mention, "familia" of "médico de familia" too
                spans = repair_spans(doc.text, spans, lang, self._category, self._native)
        return spans

    def output_label(self, label: str) -> str:
        """``label`` (target scheme) in ``output_scheme``: its canonical category, then that scheme's native
        label for it (unchanged when there is none)."""
        got = self._out_memo.get(label)
        if got is None:
            out = self.output_scheme
            assert out is not None
            cat = self._category(label)
            got = cat if out.name == "canonical" else (out.native(cat) or label)
            self._out_memo[label] = got
        return got

    def detect(self, doc: Document) -> list[Span]:
        """The combined spans of ``doc`` (sorted; non-overlapping; labels in the target scheme, or in
        ``output_scheme`` when one was given: the members vote in ``scheme``, the caller reads ``output_scheme``)."""
        return self._output(self.combine(doc, self.prepare(doc)))

    def detect_many(self, docs: Sequence[Document]) -> list[list[Span]]:
        """``[self.detect(d) for d in docs]`` (the same spans), the rules member run over the whole batch."""
        return [self._output(self.combine(d, self.prepare(d, raw)))
                for d, raw in zip(docs, self.run_many(docs), strict=True)]

    def _output(self, spans: list[Span]) -> list[Span]:
        if self.output_scheme is None:
            return spans
        out = []
        for s in spans:
            lab = self.output_label(s.label)
            out.append(s if lab == s.label else Span(s.start, s.end, lab, s.source, s.score))
        return out

    def predict(self, docs: Iterable[Document]) -> list[Document]:
        return [d.with_spans(self.detect(d)) for d in docs]

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
) -> StrategyTable:
    """The per-label strategy with the best exact F1 on ``gold_docs``.

    ``predictions_by_detector``: member name -> one entry per gold document (same order): the member's
    *prepared* spans (:meth:`Ensemble.prepare`; labels in the target scheme) or a Document holding them.
    ``labels``: the labels to choose for (default: every gold label). ``candidates``: strategies tried (default
    the built-in ones and every member). The choice is coordinate-wise on the whole combination (steps 3-5, so
    overlaps between labels and name propagation count): starting from ``default`` everywhere, each label in
    turn gets the candidate maximising its own F1 with the others fixed, for ``rounds`` passes. Ties go to the
    earlier candidate in ``candidates`` (so ``union`` before ``vote`` before members). Deterministic.
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

    def score_all(table: StrategyTable, only: str) -> float:
        tp = fp = fn = 0
        for doc, prepared in zip(gold_docs, per_doc, strict=True):
            spans = ensemble.combine(doc, prepared, table)
            a, b, c, _ = label_f1(doc.spans, spans, only)
            tp, fp, fn = tp + a, fp + b, fn + c
        return 2 * tp / (2 * tp + fp + fn) if tp else 0.0

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

    def detect(self, doc: Document) -> list[Span]:
        return []
