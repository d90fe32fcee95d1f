"""Evaluation of PHI detection against gold spans: token, character and entity measures, leakage, confusion.

>>> report = evaluate(gold_docs, predicted_docs, lang="es")          # doctest: +SKIP
>>> report.entity_exact.f1, report.token_binary.recall, report.leak_chars  # doctest: +SKIP

See :mod:`clinanon.evaluate.metrics` for the definitions and :mod:`clinanon.evaluate.results` for the score
conventions; :func:`render_table` prints a report with Rich.
"""

from clinanon.evaluate.metrics import EvaluationConfigError, EvaluationInputError, LabelMap, evaluate
from clinanon.evaluate.report import render_table
from clinanon.evaluate.results import (
    MEASURES,
    PRF,
    Averages,
    Confusion,
    EvaluationReport,
    Leakage,
    Measure,
    SummaryRow,
)

__all__ = [
    "MEASURES",
    "PRF",
    "Averages",
    "Confusion",
    "EvaluationConfigError",
    "EvaluationInputError",
    "EvaluationReport",
    "LabelMap",
    "Leakage",
    "Measure",
    "SummaryRow",
    "evaluate",
    "render_table",
]
