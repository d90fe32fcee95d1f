"""English places and organisations in headers, letters and forms (issue 16, brief en_fix4a): a hospital's name
with its Title-case head ("... Hospital"), no title in capitals before it, a specialty's clinic as a department (no
place), organisations named by a head that says what they are ("... Family Medicine", "... Pharmacy", "...
Funeral Home", "... YMCA"), room and bed numbers (the number only), and "Took ASA" as no company. Every name here
is invented; negatives are the same heads and cues with ordinary words ("Urgent Care", "Pediatric Urgent Care",
"room air", "bed 2 days")."""

from __future__ import annotations

import time

import pytest

from _rules import found as _found
from _rules import rules_pipeline
from clinanon.detect.rules.care_sites import CareSiteRecognizer
from clinanon.detect.rules.organizations import OrgHeadRecognizer
from clinanon.pipeline import Pipeline


@pytest.fixture(scope="module")
def rules() -> Pipeline:
    return rules_pipeline("en", "hipaa")


@pytest.mark.parametrize(("text", "want", "label"), [
    # the generic head "Hospital" stays out of the span however it is written (the PhysioNet convention, which
    # the English rules follow); the words in capitals before the name stay out too
    ("To: Quillmere Valley Hospital ED", "Quillmere Valley", "LOCATION.HOSPITAL"),
    ("ED TRIAGE NOTE  Dravenport Regional Hospital Emergency Dept", "Dravenport Regional", "LOCATION.HOSPITAL"),
    ("DISCHARGE INSTRUCTIONS - Dravenport Regional Hospital", "Dravenport Regional", "LOCATION.HOSPITAL"),
    # so do the generic heads "Medical Center", "Health Center", "Infirmary" (the PhysioNet gold leaves them out too)
    ("transferred from Quillmere Medical Center. Pt is alert", "Quillmere", "LOCATION.HOSPITAL"),
    ("admitted to Dravenport Regional Medical Centre overnight", "Dravenport Regional", "LOCATION.HOSPITAL"),
    # a head that names a kind of care stays in
    ("f/u at Harwick Cancer Center next month", "Harwick Cancer Center", "LOCATION.HOSPITAL"),
])
def test_hospital_name_without_title_words(rules: Pipeline, text: str, want: str, label: str) -> None:
    assert (want, label) in _found(rules, text)


def test_shift_note_hospital_keeps_the_name_only(rules: Pipeline) -> None:
    """A shift note's lower-case head stays out (the PhysioNet convention): "harbor hosp", "quillmere hospital"."""
    assert ("Quillmere", "LOCATION.HOSPITAL") in _found(rules, "went to Quillmere hospital with her son")


@pytest.mark.parametrize("text", [
    "Nephrology Clinic Follow-up - Jan 3", "HEMATOLOGY/ONCOLOGY CLINIC NOTE", "ORTHOPAEDIC CLINIC NOTE - visit",
    "seen in Memory Clinic last week", "Took ASA 324 mg at home.",
    # the same test on both paths (gazetteer pattern, care-site heads and units), words with an apostrophe or a
    # hyphen and a sign between specialties included
    "seen in Nephrology Clinic today.", "f/u at Women's Health Clinic next wk", "Pain & Wound Clinic f/u",
    "walk in: Walk-In Clinic visit", "f/u Ob/Gyn Clinic 2 wks",
])
def test_department_clinics_and_aspirin_are_no_places(rules: Pipeline, text: str) -> None:
    assert not [f for f in _found(rules, text) if f[1].startswith("LOCATION")]


@pytest.mark.parametrize(("text", "want"), [
    ("seen at Quillmere Clinic", "Quillmere Clinic"),
    ("f/u at Brantwood Health Clinic next wk", "Brantwood Health Clinic"),
    ("referred to Dravenport Family Clinic", "Dravenport Family Clinic"),
])
def test_named_clinics_are_places(rules: Pipeline, text: str, want: str) -> None:
    """A clinic with a name word that is no specialty is a place of its own."""
    assert (want, "LOCATION.HOSPITAL") in _found(rules, text)


@pytest.mark.parametrize(("text", "want"), [
    ("PCP: Dr. Ames at Quillmere Family Medicine, ph 978-555-0147", "Quillmere Family Medicine"),
    ("Ordering location: Dravenbrook Manor", "Dravenbrook Manor"),
    ("works as a hygienist at Bright Smiles Dental and is worried", "Bright Smiles Dental"),
    ("Seen at Maple Grove Urgent Care yesterday", "Maple Grove Urgent Care"),
    ("To: Pool - Quillbrook Pediatrics & Adult Medicine Clinical Staff", "Quillbrook Pediatrics & Adult Medicine"),
    ("Body to be released to Hollister & Vane Funeral Home, today.", "Hollister & Vane Funeral Home"),
    ("outpatient pharmacy Dravenbriar Pharmacy (304-555-0185)", "Dravenbriar Pharmacy"),
    ("Works as a bus driver for Tri-Quill Transit.", "Tri-Quill Transit"),
    ("Pulmonary rehab at Quillmere YMCA starts the 6th", "Quillmere YMCA"),
    ("Prenatal care at Dravenbend OB/GYN with her midwife.", "Dravenbend OB/GYN"),
    ("Attends kindergarten at Quillmere Elementary School (teacher", "Quillmere Elementary School"),
    ("From: Quill Crest Rehabilitation & Nursing Center   Unit: 2", "Quill Crest Rehabilitation & Nursing Center"),
    ("CABG x3 at St. Quillan Heart Institute.", "St. Quillan Heart Institute"),
    ("ORTHOPAEDIC CLINIC NOTE - Granite Quill Orthopaedics, Concord", "Granite Quill Orthopaedics"),
])
def test_organisation_with_head(rules: Pipeline, text: str, want: str) -> None:
    assert (want, "LOCATION.ORGANIZATION") in _found(rules, text)


@pytest.mark.parametrize("text", [
    "Referred to Urgent Care. Seen in Pediatric Urgent Care. Follow up with Primary Care.",
    "Call your Home Care nurse. The School nurse called. Adult Medicine clinic tomorrow.",
    "Bank statements reviewed. Outpatient Pharmacy to fill. Family Medicine resident saw her.",
])
def test_generic_heads_are_no_organisation(rules: Pipeline, text: str) -> None:
    assert not [f for f in _found(rules, text) if f[1] == "LOCATION.ORGANIZATION"]


@pytest.mark.parametrize(("text", "want"), [
    ("Placed in room 14. Primary RN on shift.", "14"), ("Rm 5212   Allergies: sulfa", "5212"),
    ("TRANSFERRED TO MICU RM 22 FOR SHOCK.", "22"),
    ("admit to L&D room 412 for labor", "412"),
])
def test_room_numbers(rules: Pipeline, text: str, want: str) -> None:
    assert (want, "LOCATION.ROOM") in _found(rules, text)


def test_bed_numbers_are_no_rooms(rules: Pipeline) -> None:
    # a bed's number names a place in a unit, no Safe Harbor identifier (PhysioNet's gold leaves it out)
    assert not [f for f in _found(rules, "Re: consult, bed 6114-B, MRN pending") if f[1] == "LOCATION.ROOM"]


@pytest.mark.parametrize("text", [
    "on room air. bed 2 days. OR 1245. or 14 day. bed ~ 2030. OR 2 hrs. room 3x. in bed 3/10 pain.",
    "brought to OR 7 and placed supine",  # an operating room is no patient's location
    "stayed in bed x 2 days; bedrest 24 hrs; HOB 30",
])
def test_room_negatives(rules: Pipeline, text: str) -> None:
    assert not [f for f in _found(rules, text) if f[1] == "LOCATION.ROOM"]


def test_new_place_patterns_stay_linear() -> None:
    """Long runs of heads, capitalised words and room cues: the new patterns are bounded (time budget)."""
    sites = CareSiteRecognizer("en")
    orgs = OrgHeadRecognizer()
    texts = ["Quill " * 100_000 + "Pharmacy", "Pharmacy " * 50_000, "Quill & " * 50_000 + "Funeral Home",
             "room " * 50_000 + "14", "bed 1" * 50_000, "OR 7" * 50_000, "ROOM 1234567890" * 20_000,
             "QUILL " * 100_000 + "IMAGING", "A" * 1_000_000]
    for text in texts:
        t0 = time.process_time()
        sites.analyze(text)
        orgs.analyze(text)
        assert time.process_time() - t0 < 10.0
