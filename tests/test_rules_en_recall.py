"""English recall rules (issue 3): names in person contexts, organizations by generic cues, address-block layouts,
lower-case text. Positives and negatives (eponyms, clinical services, common words that are names)."""

from __future__ import annotations

import time

import pytest

from clinanon.detect.rules import addresses, names, organizations


def _found(module: object, text: str) -> list[tuple[str, str]]:
    return sorted((text[s.start:s.end], s.label) for r in module.recognizers("en")  # type: ignore[attr-defined]
                  for s in r.analyze(text))


def person(text: str) -> set[str]:
    return {t for t, label in _found(names, text) if label.startswith("NAME")}


def orgs(text: str) -> set[str]:
    return {t for t, _ in _found(organizations, text)}


def places(text: str) -> list[tuple[str, str]]:
    return _found(addresses, text)


# --- names ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("The patient was seen by Oksana Hrytsenko in clinic.", "Oksana Hrytsenko"),
    ("Dictated By: Ngozi Adeyemi", "Ngozi Adeyemi"),
    ("Her husband Tadeusz called this morning.", "Tadeusz"),
    ("Dear Wiremu, thank you for the referral.", "Wiremu"),
    ('"We are pleased," said Oyelaran.', "Oyelaran"),
    ("Ilkka Raatikainen lives alone with his dog.", "Ilkka Raatikainen"),
    ("Afterwards Zsigmund shouted at the nurse.", "Zsigmund"),
    ("Referred to Zdenek K Hrubes for review.", "Zdenek K Hrubes"),
    ("Ayodele Okonkwo's daughter visited.", "Ayodele Okonkwo"),
    ("Kovalchuk and Smith reviewed the films.", "Kovalchuk"),
    ("follow up with maria gonzalez next week", "maria gonzalez"),
    ("seen by olga p ivanova today", "olga p ivanova"),
    ("Anna: hello\nJohn: hi\nZsigmund: ok then", "Zsigmund"),
])
def test_names_in_person_contexts(text: str, expected: str) -> None:
    assert expected in person(text)


@pytest.mark.parametrize("text", [
    "Seen by Cardiology and evaluated by Physical Therapy. Covered by Medicare.",
    "Patient Education given. Patient Safety Officer notified. Nurse Practitioner aware.",
    "Dear Colleague, thank you. Dear Sir or Madam.",
    "Hepatitis B Surface antigen negative. Vitamin D Deficiency. Factor V Leiden. Troponin I Elevated.",
    "History of Parkinson's disease and Crohn's disease. Patient lives alone. Mother lives nearby.",
    "SEEN BY ICU TEAM. PATIENT LIVES ALONE. WIFE AT BEDSIDE.",
    "will follow up in may. pain is better, mark the site.",
    "Aspirin and Plavix continued. Lasix and Coreg held.",
])
def test_no_names_in_clinical_phrases(text: str) -> None:
    assert person(text) == set()


# --- organizations ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("She studied nursing at the University of Dundee.", "University of Dundee"),
    ("Mortgage with Bank of Ireland.", "Bank of Ireland"),
    ("He works for Johnson & Johnson in sales.", "Johnson & Johnson"),
    ("She spent 10 years at Quorvex as a chemist.", "Quorvex"),
    ("The address of Brightwell is 12 Main Street.", "Brightwell"),
    ("Shipping by Veltrix International since 2019.", "Veltrix International"),
    ("He plays cello in the Harrowgate Orchestra.", "Harrowgate Orchestra"),
])
def test_organization_cues(text: str, expected: str) -> None:
    assert expected in orgs(text)


@pytest.mark.parametrize("text", [
    "School of Medicine. University of the Year. Department of Surgery.",
    "Ear, Nose & Throat clinic. Sodium & Potassium normal.",
    "He spent 2 years at the hospital. Please confirm the address of the patient.",
    "International Normalized Ratio 2.3.",
])
def test_organization_negatives(text: str) -> None:
    assert orgs(text) == set()


# --- address blocks ---------------------------------------------------------------------------------------

def test_address_block_header_lines() -> None:
    text = "> Halina W Brzeska\n> Quillon Analytics\n> Halina W Brzeska\n> 41 Harrow Road\n> Leeds\n"
    got = places(text)
    assert got.count(("Halina W Brzeska", "NAME")) == 2
    assert ("Quillon Analytics", "LOCATION.ORGANIZATION") in got
    assert ("41 Harrow Road", "LOCATION.STREET") in got


def test_header_needs_a_block() -> None:
    # a single line above a street, or a field label, is no header
    got = places("Address:\n41 Harrow Road\nLeeds")
    assert all(label not in ("NAME", "LOCATION.ORGANIZATION") for _, label in got)


def test_town_above_country_line() -> None:
    assert ("KIRKBRIDE", "LOCATION.CITY") in places("Jan Kowal\n\nKIRKBRIDE\nUnited Kingdom")
    # a person's name above the country is not a town
    assert ("Maria Lopez", "LOCATION.CITY") not in places("Maria Lopez\nSpain")


def test_region_and_postcode_lines_after_town() -> None:
    text = "Ship to: Ola Nordmann\n  12 Storgata 4\n  Tromsø\n  NO\n  9008\n"
    got = places(text)
    assert ("NO", "LOCATION.STATE") in got and ("9008", "LOCATION.ZIP") in got
    got = places("12 Kirkegata 4\nHamar NO 2317")
    assert ("NO", "LOCATION.STATE") in got and ("2317", "LOCATION.ZIP") in got
    got = places("48 Ringvej 12\nApt. 3\nNuuk\nGreenland 3900")
    assert ("3900", "LOCATION.ZIP") in got


@pytest.mark.parametrize(("text", "expected"), [
    ("Meet at the corner of Elm Street and 5th Avenue.", "the corner of Elm Street and 5th Avenue"),
    ("lives at 42 kongensgade 7, odense", "42 kongensgade 7"),
    ("She lives at 3 Filellinon Str., Patra", "3 Filellinon Str."),
])
def test_streets(text: str, expected: str) -> None:
    assert (expected, "LOCATION.STREET") in places(text)


@pytest.mark.parametrize("text", [
    "She sat in the corner of the room and cried.",
    "take 2 tablets every 6 hours",
    "pain at 7 out of 10",
])
def test_street_negatives(text: str) -> None:
    assert [t for t, label in places(text) if label == "LOCATION.STREET"] == []


def test_lower_case_place_after_cue() -> None:
    assert ("switzerland", "LOCATION.CITY") in places("i'm originally from switzerland")
    assert not [t for t, _ in places("he moved to bed and back home")]


def test_new_patterns_are_fast() -> None:
    """Long capitalised, lower-case and multi-line inputs stay linear."""
    caps = " ".join(["Abcdef", "J", "Ghijk", "lives", "by", "Dear", "Smith's", "and", "&", "Group"] * 5_000)
    lower = ("seen by maria p gonzalez at 12 main road 4 " * 10_000)[:400_000]
    lines = "\n".join(["> Abc Def", "> Ghi Jkl", "> 12 Main Street", "Spain", "NO", "1234"] * 10_000)
    recs = [*names.recognizers("en"), *organizations.recognizers("en"), *addresses.recognizers("en")]
    t0 = time.process_time()
    for text in (caps, lower, lines):
        for r in recs:
            r.analyze(text)
    assert time.process_time() - t0 < 30.0
