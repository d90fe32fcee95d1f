"""Render an :class:`~clinanon.evaluate.results.EvaluationReport` as Rich tables (scores rounded to 4 decimals)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from clinanon.evaluate.results import EvaluationReport, Measure

__all__ = ["render_table", "summary_table"]

DIGITS = 4


def _num(x: float, digits: int) -> str:
    return f"{x:.{digits}f}"


def _count(x: int | None) -> str:
    return "" if x is None else str(x)


def summary_table(report: EvaluationReport, *, digits: int = DIGITS) -> Table:
    """One row per measure (micro) and per labelled measure (macro): tp, fp, fn, P, R, F1."""
    table = Table(title=f"Evaluation: {report.documents} documents, {report.gold_spans} gold spans, "
                        f"{report.pred_spans} predicted spans", show_edge=False)
    table.add_column("measure", no_wrap=True)
    table.add_column("avg", no_wrap=True)
    for col in ("tp", "fp", "fn", "P", "R", "F1"):
        table.add_column(col, justify="right", no_wrap=True)
    for row in report.summary_rows():
        table.add_row(row.measure, row.average, _count(row.tp), _count(row.fp), _count(row.fn),
                      _num(row.precision, digits), _num(row.recall, digits), _num(row.f1, digits))
    return table


def per_label_table(measure: Measure, *, digits: int = DIGITS) -> Table:
    """Per-label tp / fp / fn / P / R / F1 of one labelled measure."""
    table = Table(title=f"{measure.name} per label")
    table.add_column("label")
    for col in ("tp", "fp", "fn", "P", "R", "F1"):
        table.add_column(col, justify="right")
    for label, prf in measure.per_label.items():
        table.add_row(label, str(prf.tp), str(prf.fp), str(prf.fn), _num(prf.precision, digits),
                      _num(prf.recall, digits), _num(prf.f1, digits))
    return table


def confusion_table(report: EvaluationReport) -> Table:
    """The confusion matrix: gold labels in rows, predicted labels in columns, ``O`` = no span."""
    labels = report.confusion.labels
    table = Table(title="Confusion (rows: gold, columns: prediction)")
    table.add_column("gold \\ pred")
    for lab in labels:
        table.add_column(lab, justify="right")
    for g, row in zip(labels, report.confusion.matrix(), strict=True):
        table.add_row(g, *(str(c) if c else "." for c in row))
    return table


def leakage_table(report: EvaluationReport, *, digits: int = DIGITS, per_label: bool = False) -> Table:
    """Gold PHI left uncovered: characters, partly and fully leaked spans (total, and per label on request)."""
    table = Table(title="Leakage: gold PHI no prediction covers (non-whitespace characters)", show_edge=False)
    table.add_column("label", no_wrap=True)
    for col in ("gold chars", "leaked chars", "rate", "gold spans", "leaked spans", "fully leaked"):
        table.add_column(col, justify="right")
    rows = [("all", report.leakage)]
    if per_label:
        rows += list(report.leakage.per_label.items())
    for name, lk in rows:
        table.add_row(name, str(lk.gold_chars), str(lk.leak_chars), _num(lk.leak_rate, digits),
                      str(lk.gold_spans), str(lk.leaked_spans), str(lk.fully_leaked_spans))
    return table


def render_table(
    report: EvaluationReport,
    console: Console | None = None,
    *,
    per_label: bool = False,
    confusion: bool = False,
    digits: int = DIGITS,
) -> None:
    """Print the summary and leakage tables (plus per-label tables and the confusion matrix on request).

    Documents without a prediction are reported by count (their ids are in ``report.missing_predictions``).
    """
    console = console or Console()
    console.print(summary_table(report, digits=digits))
    console.print(leakage_table(report, digits=digits, per_label=per_label))
    if per_label:
        for name in ("entity_exact", "entity_overlap", "token_relaxed"):
            console.print(per_label_table(report.measures[name], digits=digits))
    if confusion:
        console.print(confusion_table(report))
    if report.missing_predictions:
        console.print(f"[yellow]{len(report.missing_predictions)} gold document(s) had no prediction "
                      f"(scored as nothing predicted)[/yellow]")
