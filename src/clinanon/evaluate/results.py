"""Result objects of an evaluation: counts and scores, with JSON-safe ``to_dict`` methods.

Conventions (see :class:`PRF`):

* ``precision = tp_pred / (tp_pred + fp)``, ``recall = tp / (tp + fn)``, ``f1`` = their harmonic mean.
  ``tp_pred`` equals ``tp`` except for the overlap measures, where the number of matched predictions and the
  number of found gold spans can differ.
* A ratio whose denominator is 0 is 0.0 — except when there is neither gold nor prediction (``tp = fp = fn = 0``):
  nothing to find and nothing wrong, so precision = recall = F1 = 1.0. Thus "gold == prediction" always scores
  1.0, and no predictions against some gold gives P = R = F1 = 0.0 (as the MEDDOCAN script does).
* Macro averages are the unweighted means of the per-label precision, recall and F1 (scikit-learn's convention),
  over the labels present in gold or prediction for that measure.

No object here holds document or span text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

__all__ = [
    "MEASURES",
    "PRF",
    "Averages",
    "Confusion",
    "EvaluationReport",
    "Leakage",
    "Measure",
    "SummaryRow",
]

#: The measures of an :class:`EvaluationReport`, in report order, with one-line descriptions.
MEASURES: Mapping[str, str] = MappingProxyType({
    "char_binary": "characters (non-whitespace): PHI or not",
    "token_binary": "tokens: PHI or not (i2b2 binary HIPAA token F1; 'detection')",
    "token_binary_alnum": "tokens as the i2b2 2014 script splits them (letters and digits, no punctuation): PHI or not",
    "token_relaxed": "tokens: category, ignoring B/I ('relaxed classification')",
    "token_strict": "tokens: BIO tag = B/I + category ('strict classification')",
    "entity_exact": "entities: exact (start, end, label) (MEDDOCAN subtask 1)",
    "entity_span": "entities: exact (start, end), label ignored (MEDDOCAN subtask 2, strict)",
    "entity_overlap": "entities: overlap with a span of the same label (i2b2 relaxed)",
    "entity_overlap_unlabeled": "entities: overlap with any span, label ignored",
})


def _ratio(num: int, den: int, empty: bool) -> float:
    if den:
        return num / den
    return 1.0 if empty else 0.0


@dataclass(frozen=True, slots=True)
class PRF:
    """Counts and precision / recall / F1 of one measure (micro, or one label).

    ``tp`` is the number of gold units found (recall side); ``tp_pred`` the number of predicted units that are
    correct (precision side). They differ only for overlap matching (one long prediction can cover two gold
    spans); ``None`` means "same as ``tp``".
    """

    tp: int
    fp: int
    fn: int
    tp_pred: int | None = None

    @property
    def tp_precision(self) -> int:
        return self.tp if self.tp_pred is None else self.tp_pred

    @property
    def gold(self) -> int:
        """Number of gold units (``tp + fn``)."""
        return self.tp + self.fn

    @property
    def predicted(self) -> int:
        """Number of predicted units (``tp_pred + fp``)."""
        return self.tp_precision + self.fp

    @property
    def _empty(self) -> bool:
        return self.gold == 0 and self.predicted == 0

    @property
    def precision(self) -> float:
        return _ratio(self.tp_precision, self.predicted, self._empty)

    @property
    def recall(self) -> float:
        return _ratio(self.tp, self.gold, self._empty)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def __add__(self, other: PRF) -> PRF:
        tp_pred = None if self.tp_pred is None and other.tp_pred is None else \
            self.tp_precision + other.tp_precision
        return PRF(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, tp_pred)

    def to_dict(self) -> dict[str, Any]:
        """``{"tp", "tp_pred", "fp", "fn", "precision", "recall", "f1"}`` (``tp_pred`` always present)."""
        return {"tp": self.tp, "tp_pred": self.tp_precision, "fp": self.fp, "fn": self.fn,
                "precision": self.precision, "recall": self.recall, "f1": self.f1}


class Averages(NamedTuple):
    """Macro averages: unweighted means over labels."""

    precision: float
    recall: float
    f1: float

    def to_dict(self) -> dict[str, float]:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1}


@dataclass(frozen=True)
class Measure:
    """One measure: micro counts/scores, and per label when the measure compares labels."""

    name: str
    micro: PRF
    per_label: Mapping[str, PRF] = field(default_factory=dict)
    labeled: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "per_label", MappingProxyType(dict(sorted(self.per_label.items()))))

    @property
    def description(self) -> str:
        return MEASURES.get(self.name, "")

    @property
    def precision(self) -> float:
        return self.micro.precision

    @property
    def recall(self) -> float:
        return self.micro.recall

    @property
    def f1(self) -> float:
        return self.micro.f1

    @property
    def macro(self) -> Averages | None:
        """Means of per-label P / R / F1; ``None`` for an unlabelled measure; 1.0 when there are no labels."""
        if not self.labeled:
            return None
        rows = list(self.per_label.values())
        if not rows:
            return Averages(1.0, 1.0, 1.0)
        n = len(rows)
        return Averages(sum(r.precision for r in rows) / n, sum(r.recall for r in rows) / n,
                        sum(r.f1 for r in rows) / n)

    def to_dict(self) -> dict[str, Any]:
        macro = self.macro
        return {"description": self.description, "micro": self.micro.to_dict(),
                "macro": macro.to_dict() if macro is not None else None,
                "per_label": {k: v.to_dict() for k, v in self.per_label.items()}}


#: The row / column name of "no span" in a :class:`Confusion` matrix.
NONE = "O"


@dataclass(frozen=True)
class Confusion:
    """Confusion counts over labels, gold in rows, prediction in columns; ``"O"`` means "no span".

    Each gold span contributes one count, to the label of the prediction that overlaps it most (``"O"`` when
    none does: a miss). Each prediction that overlaps no gold span contributes one count to row ``"O"``
    (spurious). Predictions that overlap a gold span but are not its best match are not counted.
    """

    labels: tuple[str, ...]
    counts: Mapping[tuple[str, str], int]

    def __getitem__(self, key: tuple[str, str]) -> int:
        return self.counts.get(key, 0)

    def matrix(self) -> list[list[int]]:
        """Rows and columns in the order of :attr:`labels` (``"O"`` last)."""
        return [[self[g, p] for p in self.labels] for g in self.labels]

    def to_dict(self) -> dict[str, Any]:
        return {"labels": list(self.labels), "rows": "gold", "columns": "pred", "matrix": self.matrix()}


@dataclass(frozen=True)
class Leakage:
    """Gold PHI that no prediction covers (of any label). Characters are non-whitespace characters.

    * ``leak_chars``: gold PHI characters covered by no prediction (overlapping gold spans counted once);
    * ``leaked_spans``: gold spans with at least one uncovered character;
    * ``fully_leaked_spans``: gold spans none of whose characters is covered.

    ``per_label`` holds the same counts per gold label (a character under two gold labels counts in both).
    """

    gold_chars: int
    leak_chars: int
    gold_spans: int
    leaked_spans: int
    fully_leaked_spans: int
    per_label: Mapping[str, Leakage] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "per_label", MappingProxyType(dict(sorted(self.per_label.items()))))

    @property
    def leak_rate(self) -> float:
        """``leak_chars / gold_chars`` (0.0 when there is no gold PHI)."""
        return self.leak_chars / self.gold_chars if self.gold_chars else 0.0

    def to_dict(self, *, per_label: bool = True) -> dict[str, Any]:
        """Counts and ``leak_rate``; with ``per_label``, a ``"per_label"`` dict of the same (without nesting)."""
        out: dict[str, Any] = {"gold_chars": self.gold_chars, "leak_chars": self.leak_chars,
                               "leak_rate": self.leak_rate, "gold_spans": self.gold_spans,
                               "leaked_spans": self.leaked_spans, "fully_leaked_spans": self.fully_leaked_spans}
        if per_label:
            out["per_label"] = {k: v.to_dict(per_label=False) for k, v in self.per_label.items()}
        return out


class SummaryRow(NamedTuple):
    """One row of the summary table: a measure's micro or macro scores (counts are ``None`` for macro rows)."""

    measure: str
    average: str
    tp: int | None
    fp: int | None
    fn: int | None
    precision: float
    recall: float
    f1: float


@dataclass(frozen=True)
class EvaluationReport:
    """Everything :func:`clinanon.evaluate.evaluate` measures. See :data:`MEASURES` for the measures."""

    lang: str
    label_map: str
    scheme: str | None
    documents: int
    gold_spans: int
    pred_spans: int
    tokens: int
    missing_predictions: tuple[str, ...]
    char_binary: Measure
    token_binary: Measure
    token_binary_alnum: Measure
    token_relaxed: Measure
    token_strict: Measure
    entity_exact: Measure
    entity_span: Measure
    entity_overlap: Measure
    entity_overlap_unlabeled: Measure
    confusion: Confusion
    leakage: Leakage

    @property
    def measures(self) -> dict[str, Measure]:
        """The measures by name, in :data:`MEASURES` order."""
        return {name: getattr(self, name) for name in MEASURES}

    @property
    def leak_chars(self) -> int:
        return self.leakage.leak_chars

    @property
    def leaked_spans(self) -> int:
        return self.leakage.leaked_spans

    @property
    def fully_leaked_spans(self) -> int:
        return self.leakage.fully_leaked_spans

    def summary_rows(self) -> list[SummaryRow]:
        """One micro row per measure, followed by a macro row for each labelled measure."""
        rows: list[SummaryRow] = []
        for name, m in self.measures.items():
            u = m.micro
            rows.append(SummaryRow(name, "micro", u.tp, u.fp, u.fn, u.precision, u.recall, u.f1))
            macro = m.macro
            if macro is not None:
                rows.append(SummaryRow(name, "macro", None, None, None, *macro))
        return rows

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys; numbers at full precision."""
        return {
            "lang": self.lang,
            "label_map": self.label_map,
            "scheme": self.scheme,
            "documents": self.documents,
            "gold_spans": self.gold_spans,
            "pred_spans": self.pred_spans,
            "tokens": self.tokens,
            "missing_predictions": list(self.missing_predictions),
            "measures": {name: m.to_dict() for name, m in self.measures.items()},
            "confusion": self.confusion.to_dict(),
            "leakage": self.leakage.to_dict(),
        }
