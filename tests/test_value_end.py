"""Where a field value or an address ends: sentence ends (not abbreviations, not floors) and the next label."""

from __future__ import annotations

import pytest

from clinanon.detect.rules.value_end import next_label, sentence_end, value_end
from clinanon.document import Document


def _cut(text: str) -> str:
    return text[:value_end(text, 0, len(text))]


@pytest.mark.parametrize(("text", "value"), [
    ("Storgatan 5, Stockholm. Inkom med bröstsmärta", "Storgatan 5, Stockholm"),
    ("Calle Mayor 12. Ingresa por dolor", "Calle Mayor 12"),
    ("Kerkstraat 12, Utrecht! Opgenomen", "Kerkstraat 12, Utrecht"),
    ("Calle Mayor 12 Teléfono: 612 345 678", "Calle Mayor 12 "),
    ("Hauptstraße 5 E-Mail: a@b.de", "Hauptstraße 5 "),
    ("Kerkstraat 12 Fecha de ingreso: 3/4", "Kerkstraat 12 "),
])
def test_a_value_stops_at_a_sentence_end_or_a_label(text: str, value: str) -> None:
    assert _cut(text) == value


@pytest.mark.parametrize("text", [
    "Avda. Reina Victoria 12, 3º B",
    "C/ Dr. Fleming 5, Madrid",
    "Pza. Sta. Ana 3, 1. Bajo A",
    "Paseo de la Castellana, 3, 2. A",
    "Hauptstraße 5, 3. OG, Berlin",
    "5 St. James Road, Leeds",
    "C/ Mayor, 12. 28001 Madrid",  # a dot before a postcode
    "Calle Mayor 5. ingresa",  # lower case after the dot: not known to be a new sentence
    "Juan P. García",
])
def test_abbreviations_initials_and_floors_do_not_end_a_value(text: str) -> None:
    assert _cut(text) == text


def test_the_scans_are_bounded_by_the_range() -> None:
    text = "Adress: Storgatan 5. Inkom"
    assert sentence_end(text, 8, 15) == 15 and sentence_end(text, 8, len(text)) == text.index(". Inkom")
    assert next_label("Telefon: 1", 0, 10) == 10  # a label at the very start of the value is its first word


def test_adversarial_lines_are_scanned_in_one_pass() -> None:
    # a 1 MB line of abbreviations and capitals, of digits, and of capitalised words: each scan is linear
    for line in ("Avda. Dr. " * 100_000, "1. A " * 200_000, "Word " * 200_000, "9" * 1_000_000):
        assert sentence_end(line, 0, len(line)) == len(line)
        assert value_end(line, 0, len(line)) <= len(line)


def test_an_address_field_on_a_long_line_stays_short() -> None:
    from clinanon.detect.rules.detector import RulesDetector

    text = "Domicilio: Calle Mayor 5. " + "Ingresa Por Dolor Torácico. " * 10_000
    spans = RulesDetector("es").detect(Document("x", text))
    assert all(s.end <= text.index(". Ingresa") for s in spans if s.label == "LOCATION.STREET")
