"""English streets, counties, towns before a state's code and named hospital units (brief en_fix5): streets in
capitals, in lower case after a preposition, numbered roads, less common street types after a house number;
"<Name> County"; "Huntington WV", "Stony Point, NY", "from Pell City, Alabama"; "Inpatient Unit Whitcomb 4",
"Dogwood Wing".

Every text here is written for the test (no string comes from a corpus); positives, the negatives that must stay
untouched, and time budgets for the new patterns."""

from __future__ import annotations

import time

import pytest

from _rules import rules_pipeline
from clinanon.detect.rules.addresses import StreetRecognizer
from clinanon.detect.rules.care_sites import CareSiteRecognizer
from clinanon.detect.rules.us_address import USTownLineRecognizer
from clinanon.document import Document, Span
from clinanon.pipeline import Pipeline
from clinanon.profiles import filter_documents


@pytest.fixture(scope="module")
def rules() -> Pipeline:
    return rules_pipeline("en")


def _spans(nlp: Pipeline, text: str) -> list[Span]:
    """The spans of the rules pipeline after the ``hipaa`` profile (what the English notes are scored on)."""
    doc = next(d for d in nlp.pipe([Document(id="t", text=text)], deidentify=False) if isinstance(d, Document))
    return filter_documents([doc], "hipaa")[0].spans


def _covered(nlp: Pipeline, text: str, value: str) -> bool:
    """Whether every character of ``value`` (first occurrence) is inside some span."""
    start = text.index(value)
    spans = _spans(nlp, text)
    return all(any(s.start <= i < s.end for s in spans) for i in range(start, start + len(value)))


def _touched(nlp: Pipeline, text: str, value: str) -> bool:
    """Whether any character of ``value`` (first occurrence) is inside some span."""
    start = text.index(value)
    return any(s.start < start + len(value) and start < s.end for s in _spans(nlp, text))


def _street(text: str) -> list[tuple[str, str]]:
    return [(text[s.start:s.end], s.label) for s in StreetRecognizer("en").analyze(text)]


# 1. streets -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "value"), [
    ("LOCATION: 1440 OLD TURNPIKE RD, BRIDGEWATER (PRIVATE RESIDENCE)", "1440 OLD TURNPIKE RD"),
    ("RESPONDED TO 87 QUINCY SHORE PKWY\nPT FOUND SUPINE", "87 QUINCY SHORE PKWY"),
    ("ADDRESS: 9 BIRCHWOOD CROSSING APT 2", "9 BIRCHWOOD CROSSING"),
    ("lives w/ sister on mattapan ave per pt, no pcp", "mattapan ave"),
    ("found down near gorham st by police", "gorham st"),
    ("MVC vs pole on Route 128 near the exit", "Route 128"),
    ("lives in a trailer off Rte 9 with her son", "Rte 9"),
    ("labs drawn at the draw station on 3rd Ave.", "3rd Ave"),
    ("from Sunrise Assisted Living (4 Larkspur Commons, Dedham) sent for", "4 Larkspur Commons"),
    ("lives at 31 Heron Crossing, Norwood, with wife", "31 Heron Crossing"),
    ("Follow-up at 12 Medical Plaza, 2nd floor. Call with questions.", "12 Medical Plaza, 2nd floor"),
])
def test_streets_found(rules: Pipeline, text: str, value: str) -> None:
    assert _covered(rules, text, value)


@pytest.mark.parametrize(("text", "value"), [
    ("GAVE 2 PUFFS VENTOLIN ST\nRESP EASIER", "VENTOLIN"),
    ("RATE 110 SINUS TACH ST\n", "SINUS TACH"),
    ("2 MEDIASTINAL CT DRAINING SEROUS", "MEDIASTINAL"),
    ("placed on the left side rd by nursing", "left side"),
    ("pt on day 3 of route change", "route"),
    ("switched IV to PO route 2 days ago", "route 2"),
    ("on 5th day of abx, afebrile", "5th day"),
    ("continue on 2nd line therapy", "2nd line"),
])
def test_street_negatives(rules: Pipeline, text: str, value: str) -> None:
    assert not _touched(rules, text, value)


def test_street_stops_before_the_state() -> None:
    text = "lives at 22 Alder Row, Quincy, MA 02169 with her mother"
    assert ("22 Alder Row", "LOCATION.STREET") in _street(text)
    assert all("MA" not in v for v, _ in _street(text))
    text = "moved to an apartment on 7th Ave, New Hampshire last year"
    assert ("7th Ave", "LOCATION.STREET") in _street(text)


# 2. counties ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "value"), [
    ("Arrived by Pulaski County EMS after a fall", "Pulaski County"),
    ("lives in Pender Co. with her husband", "Pender Co"),
    ("DEPUTY FROM OSAGE COUNTY SHERIFF ON SCENE", "OSAGE COUNTY"),
    ("Home: 3 Lot Rd, Ocala, FL 34470, Lake County.", "Lake County"),
    ("transferred from St. Landry Parish jail", "St. Landry Parish"),
])
def test_county_found(rules: Pipeline, text: str, value: str) -> None:
    assert _covered(rules, text, value)
    start = text.index(value)
    assert any(s.start == start and start + len(value) <= s.end <= start + len(value) + 1
               and s.label == "LOCATION.OTHER" for s in StreetRecognizer("en").analyze(text))


@pytest.mark.parametrize(("text", "value"), [
    ("held at the county jail overnight", "county jail"),
    ("The County sent a caseworker today", "The County"),
    ("In County records no prior visits", "County"),
    ("she works for the county as a clerk", "county"),
])
def test_county_negatives(text: str, value: str) -> None:
    assert not any(s.label == "LOCATION.OTHER" for s in StreetRecognizer("en").analyze(text))


# 3. a town before a state ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "town", "state"), [
    ("Dialysis follow-up - Ohio Valley Renal Associates, Huntington WV\nJan 3", "Huntington", "WV"),
    ("daughter will drive up to Stony Point, NY.", "Stony Point", "NY"),
    ("moved here from Pell City, Alabama in June", "Pell City", "Alabama"),
    ("his brother lives in Portland, OR.", "Portland", "OR"),
    ("she lives in Springfield, MA.", "Springfield", "MA"),
])
def test_town_before_state(rules: Pipeline, text: str, town: str, state: str) -> None:
    found = [(text[s.start:s.end], s.label) for s in USTownLineRecognizer("en").analyze(text)]
    assert (town, "LOCATION.CITY") in found
    assert (state, "LOCATION.STATE") in found
    assert _covered(rules, text, town)


@pytest.mark.parametrize("text", [
    "CXR: no CT PA\n",
    "MS MD\n",
    "Pain OR IN\n",
    "SURGEON: Harlan Whitfield, MD\nASSISTANT: none",
    "Note by Dana Kowalczyk, PA.",
    "Reviewed with Jo Smith, MS.",
    "O2 2L NC.",
    "echo: Dilated LA.",
    "Cardiology Associates, NY",
    "Smith, Georgia",
    "Springfield, MA.",
    "started Lasix TX\n",
])
def test_no_town_before_a_code_that_is_something_else(text: str) -> None:
    assert not any(s.label == "LOCATION.CITY" for s in USTownLineRecognizer("en").analyze(text))


# 4. named units and wings -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "value"), [
    ("PSYCHIATRY ADMISSION NOTE - Inpatient Unit Ellery 3\nBrightmoor", "Ellery 3"),
    ("Dispo: admit to medicine, Haskell 7.", "Haskell 7"),
    ("Unit: Larkspur Wing  Room 12", "Larkspur Wing"),
    ("OB TRIAGE NOTE    Meadowbrook Birthing Pavilion, Mercy", "Meadowbrook Birthing Pavilion"),
    ("TRANSFERRED TO ELLIS TOWER\n", "ELLIS TOWER"),
])
def test_named_units_found(text: str, value: str) -> None:
    found = [(text[s.start:s.end], s.label) for s in CareSiteRecognizer("en").analyze(text)]
    assert (value, "LOCATION.DEPARTMENT") in found


@pytest.mark.parametrize("text", [
    "transferred to the West Wing",
    "North Tower 5",
    "The Surgical Tower elevators",
    "unit 4 beds open tonight",
    "Inpatient unit: Lasix 40 mg daily",
    "Unit: ICU 4",
    "Wing ding",
    "NEW PAVILION PARKING",
])
def test_named_units_negatives(text: str) -> None:
    assert not any(s.label == "LOCATION.DEPARTMENT" for s in CareSiteRecognizer("en").analyze(text))


@pytest.mark.parametrize("text", [
    "1 " + "AB " * 20000 + "RD",
    "on " + "abc " * 20000 + "ave",
    "on Route " + "1" * 20000,
    "Aa " * 20000 + "County",
    "AAA " * 20000 + "COUNTY",
    "Aa " * 20000 + "Wing",
    "Unit " * 20000 + "Aaaa 4",
    ", " + "Aa " * 20000 + "WV\n",
    "from " + "Aa " * 20000 + ", Alabama",
])
def test_time_budget(rules: Pipeline, text: str) -> None:
    t0 = time.process_time()
    _spans(rules, text)
    assert time.process_time() - t0 < 5.0
