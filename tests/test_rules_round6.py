"""Rules fixed in the session of 2026-11-28 (issue 16), each with invented text.

German: a unit or count word at the start of the next line no longer takes a date's span away (``neg_after``
context words count on the span's own line only: "Entlassung: 14.05.2020" above "x 2 Tbl."); a five-digit number
before a German noun after "in"/"aus" is no postcode and town ("in 12345 Fällen"), a town that is also a word
still is ("wohnhaft in 58095 Hagen")."""

from __future__ import annotations

import pytest

from _rules import found as _found
from _rules import rules_pipeline
from clinanon.detect.engine import Context
from clinanon.pipeline import Pipeline


@pytest.fixture(scope="module")
def de() -> Pipeline:
    return rules_pipeline("de")


@pytest.mark.parametrize(("text", "date"), [
    ("Entlassung: 14.05.2020\nX-Ray des Thorax unauffällig", "14.05.2020"),
    ("Aufnahme am 12.03.2019\nx 2 Tabletten täglich", "12.03.2019"),
])
def test_de_date_keeps_its_span_before_a_unit_on_the_next_line(de: Pipeline, text: str, date: str) -> None:
    assert (date, "DATE") in _found(de, text)


def test_neg_after_counts_on_the_spans_line_only() -> None:
    ctx = Context.of(neg_after=("mg",), n_after=1, penalty=0.5)
    text = "am 12.03.\nmg"
    assert ctx.adjust(text, 3, 9) == 0.0
    assert ctx.adjust("am 12.03. mg", 3, 9) == -0.5


@pytest.mark.parametrize("text", ["Dies wurde in 12345 Fällen beobachtet.", "Ergebnisse aus 20000 Proben"])
def test_de_count_before_a_noun_is_no_postcode(de: Pipeline, text: str) -> None:
    assert not [t for t, lab in _found(de, text) if lab.startswith("LOCATION")]


@pytest.mark.parametrize(("text", "town"), [
    ("Elberfelder Straße 88 – 58095 Hagen\nTelefon", "Hagen"),
    ("Die Patientin ist wohnhaft in 79100 Freiburg.", "Freiburg"),
])
def test_de_towns_after_a_postcode_kept(de: Pipeline, text: str, town: str) -> None:
    assert (town, "LOCATION.CITY") in _found(de, text)
