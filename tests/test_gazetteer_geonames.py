"""Real towns from GeoNames in the city lists (scripts/build_gazetteers.py) and the US town-line rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clinanon.detect.gazetteer import GazetteerDetector
from clinanon.detect.rules.detector import RulesDetector
from clinanon.detect.rules.us_address import USTownLineRecognizer, recognizers
from clinanon.document import Document
from clinanon.lang.wordlists import load_rows

NOTES = Path(__file__).resolve().parents[1] / "examples" / "notes.jsonl"


def _places(lang: str, text: str) -> list[tuple[str, str]]:
    return [(text[s.start:s.end], s.label) for s in GazetteerDetector(lang).analyze(text)
            if s.label.startswith("LOCATION")]


def _rows(lang: str) -> dict[str, tuple[str, ...]]:
    return {r[0]: r for r in load_rows(lang, "city")}


def test_springfield_is_a_listed_us_city_with_its_state() -> None:
    row = _rows("en")["Springfield"]
    assert row[2] == "US" and row[1] == "Missouri"  # the largest Springfield gives the row
    text = "A retired machinist from Springfield, Illinois."
    assert ("Springfield", "LOCATION.CITY") in _places("en", text)


@pytest.mark.parametrize(("lang", "text", "town"), [
    ("sv", "Patienten bor i Finspång sedan 2010.", "Finspång"),
    ("sv", "Remitterad från Borgå sjukhus.", "Borgå"),  # Swedish name of Porvoo (FI)
    ("de", "Der Patient wohnt seit Jahren in Frutigen.", "Frutigen"),
    ("de", "Geboren in Üchtelhausen, Landkreis Schweinfurt.", "Üchtelhausen"),
    ("de", "Verlegt aus Köln.", "Köln"),  # GeoNames' own name; large city with a frequent name
    ("nl", "Verhuisd naar Den Haag.", "Den Haag"),  # local form of GeoNames' "The Hague"
])
def test_small_towns_of_other_languages(lang: str, text: str, town: str) -> None:
    assert (town, "LOCATION.CITY") in _places(lang, text)


@pytest.mark.parametrize(("lang", "words"), [
    ("en", ("Mobile", "Reading", "Bath", "Nice", "Born", "Of", "Normal", "Mission", "Hope")),
    ("es", ("Mayor", "Real", "Rosa", "Libertad", "Salto")),
])
def test_common_word_town_names_are_not_listed(lang: str, words: tuple[str, ...]) -> None:
    rows = _rows(lang)
    assert [w for w in words if w in rows] == []


def test_common_word_town_names_are_not_tagged_in_running_text() -> None:
    en = "Reading the chart, the Mobile team found Bath salts. Nice work. Born in 1950. Hope for the best."
    assert _places("en", en) == []
    es = "Real Decreto. El Mayor de los hermanos. Rosa de los vientos. Salto de línea."
    assert _places("es", es) == []


def test_town_line_with_state_abbreviation_and_zip() -> None:
    text = "He lives at 1427 Maple Ridge Road, Springfield, IL 62704."
    got = [(text[s.start:s.end], s.label, s.score) for s in USTownLineRecognizer().analyze(text)]
    assert got == [("Springfield", "LOCATION.CITY", 0.85), ("IL", "LOCATION.STATE", 0.85),
                   ("62704", "LOCATION.ZIP", 0.85)]
    assert (text.index("Springfield"), text.index("Springfield") + 11) == (35, 46)


@pytest.mark.parametrize(("text", "expected"), [
    ("from Springfield, Illinois, admitted", [("Springfield", "LOCATION.CITY"), ("Illinois", "LOCATION.STATE")]),
    ("St. Louis, Missouri", [("St. Louis", "LOCATION.CITY"), ("Missouri", "LOCATION.STATE")]),
    ("Salt Lake City, UT 84101-1234",
     [("Salt Lake City", "LOCATION.CITY"), ("UT", "LOCATION.STATE"), ("84101-1234", "LOCATION.ZIP")]),
    # an unlisted town in the ZIP shape: the last capitalised word, weaker
    ("Mail to Zyxwood, OR 97001", [("Zyxwood", "LOCATION.CITY"), ("OR", "LOCATION.STATE"),
                                   ("97001", "LOCATION.ZIP")]),
    ("Smith, Georgia", []),  # a surname and a first name, not a town line
    ("Dr. Lee, MD was paged", []),  # an abbreviation needs the ZIP code
    ("seen at Virginia Mason, Washington Hospital", []),  # the state name continues
    ("Maple Ridge Road, IL 62704", []),  # a street suffix is not a town
    ("springfield, illinois", []),  # the city must be capitalised
])
def test_town_line_shapes(text: str, expected: list[tuple[str, str]]) -> None:
    got = [(text[s.start:s.end], s.label) for s in USTownLineRecognizer().analyze(text)]
    assert got == expected


def test_town_line_rule_is_english_only_and_registered() -> None:
    assert recognizers("es") == [] and recognizers("de") == []
    text = "Springfield, IL 62704"
    spans = RulesDetector("en").analyze(text, "en")
    assert {(s.start, s.end, s.label) for s in spans} >= {(0, 11, "LOCATION.CITY"), (13, 15, "LOCATION.STATE"),
                                                          (16, 21, "LOCATION.ZIP")}


def test_example_note_replaces_springfield_both_times() -> None:
    from clinanon.pipeline import Pipeline

    row = next(json.loads(line) for line in NOTES.read_text(encoding="utf-8").splitlines()
               if json.loads(line)["id"] == "en-001")
    doc = Document(row["id"], row["text"], meta=row.get("meta", {}))
    assert doc.text.count("Springfield") == 2
    out = Pipeline().deidentify(doc)
    assert "Springfield" not in out.text and "62704" not in out.text
