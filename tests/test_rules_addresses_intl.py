"""International address layouts and place cues (clinanon.detect.rules.addresses)."""

from __future__ import annotations

import time

import pytest

from clinanon.detect.rules import addresses


def found(lang: str, text: str) -> list[tuple[str, str]]:
    return sorted((text[s.start:s.end], s.label) for r in addresses.recognizers(lang) for s in r.analyze(text))


@pytest.mark.parametrize(("text", "expected"), [
    ("Billing address: Sara Schwarz\n    28245 Puruntie 82 Apt. 595\n   LAPPEENRANTA\n",
     [("28245 Puruntie 82 Apt. 595", "LOCATION.STREET"), ("LAPPEENRANTA", "LOCATION.CITY")]),
    ("William Hughes\n\n20789 Allika 46\n Suite 501\n Riisa\n\n Estonia 62488",
     [("20789 Allika 46", "LOCATION.STREET"), ("Suite 501", "LOCATION.STREET"), ("Riisa", "LOCATION.CITY"),
      ("62488", "LOCATION.ZIP")]),
    ("Gregory lives at 233 Erzsébet tér 19.", [("233 Erzsébet tér 19", "LOCATION.STREET")]),
    ("Tosh Olsen lives at 172 Maneeži 75, Saareküla",
     [("172 Maneeži 75", "LOCATION.STREET"), ("Saareküla", "LOCATION.CITY")]),
    ("Caitlin lives at 846 31 Rue Al Imam Al Bakri", [("846 31 Rue Al Imam Al Bakri", "LOCATION.STREET")]),
    ("The bus station is on Villacher Strasse 89", [("Villacher Strasse 89", "LOCATION.STREET")]),
])
def test_international_layouts(text: str, expected: list[tuple[str, str]]) -> None:
    got = found("en", text)
    for e in expected:
        assert e in got


def test_military_address_is_one_street() -> None:
    text = "Meet me at PSC 1437, Box 3833\nAPO AA 66791"
    assert ("PSC 1437, Box 3833\nAPO AA 66791", "LOCATION.STREET") in found("en", text)
    text = "Please return to Unit 4719 Box 7394\nDPO AP 70942 in case of an issue."
    assert ("Unit 4719 Box 7394\nDPO AP 70942", "LOCATION.STREET") in found("en", text)


@pytest.mark.parametrize("text", [
    "Give 2 Tylenol 500 mg. Take 3 Advil 200 tablets.",
    "During 1971 Spring 2019 the ward was closed.",
    "Glasgow Coma Scale 15. Foley catheter 16 Fr. Parkinson's disease since 2001.",
    "Dr. visit at 3 pm. Mr. 5 mg.",
])
def test_international_layout_negatives(text: str) -> None:
    assert [x for x in found("en", text) if x[1] in ("LOCATION.STREET", "LOCATION.CITY")] == []


@pytest.mark.parametrize(("lang", "text", "place"), [
    ("en", "She grew up in Oulu.", "Oulu"),
    ("en", "I am in ΛΕΥΚΩΣΙΑ for a business trip", "ΛΕΥΚΩΣΙΑ"),
    ("en", "Mr. Pavlović flew to STAXROITH on Monday.", "STAXROITH"),
    ("es", "Vive en Tudela con su hija.", "Tudela"),
    ("nl", "Zij woont in Assen.", "Assen"),
    ("sv", "Han bor i Malmö.", "Malmö"),
    ("de", "Sie wohnt in Köln.", "Köln"),
])
def test_place_cues(lang: str, text: str, place: str) -> None:
    assert (place, "LOCATION.CITY") in found(lang, text)


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "Moved to ICU. Transferred to MICU. Lives in Assisted Living. Was born in 1950."),
    ("en", "Lives in a nursing home; returned to the floor on Monday."),
    ("es", "Trasladado a UCI. Vive en domicilio propio."),
    ("nl", "Woont in een verpleeghuis."),
    ("de", "Wohnt in einem Pflegeheim."),
])
def test_place_cue_negatives(lang: str, text: str) -> None:
    assert [x for x in found(lang, text) if x[1] == "LOCATION.CITY"] == []


def test_adversarial_inputs_are_fast() -> None:
    mixed = " ".join(["Mr.", "J.", "Van", "Smith", "Inc", "Group", "12", "Rua", "lives", "in"] * 12_000)
    line = ("12 Main 5 Apt. 3 " * 70_000)[:1_000_000]
    t0 = time.process_time()
    for text in (mixed, line, "1" * 200_000, "Apt. 5\n" * 50_000):
        for r in addresses.recognizers("en"):
            r.analyze(text)
    assert time.process_time() - t0 < 30.0
