"""English dates, years and phone numbers in the formats a US clinician or unit clerk writes, and the near misses
that must stay (ranges, decimals, scores, counts, ventilator settings, clock times): the formats that
``benchmarks/en_formats.py`` found missed (``M-D``, ``M.D``, "the 19th", "19-Oct" after "d/c", "s/p", years
after "CABGx4" or before "PTCA", seven-digit numbers after a relative, North American numbers with an unassigned
area code, "x4321" after a pager word).

Every text here is written for the test (no string comes from a corpus)."""

from __future__ import annotations

import time

import pytest

from _rules import rules_pipeline
from clinanon.detect.rules import contacts, dates
from clinanon.document import Document
from clinanon.pipeline import Pipeline
from clinanon.profiles import filter_documents


@pytest.fixture(scope="module")
def nlp() -> Pipeline:
    return rules_pipeline("en")


def _texts(nlp: Pipeline, text: str, profile: str = "hipaa") -> list[str]:
    doc = Document(id="t", text=text, spans=tuple(nlp.detect_spans(Document(id="t", text=text))))
    return [text[s.start:s.end] for s in filter_documents([doc], profile)[0].spans]


# --- month and day with a dash or a dot ---------------------------------------------------------------------

@pytest.mark.parametrize(("text", "date"), [
    ("Pt extubated 11-23 and doing well on face tent.", "11-23"),
    ("NPO since 2-14. Will start TF.", "2-14"),
    ("Blood cx from 9-6 grew GPC in clusters.", "9-6"),
    ("Lasix increased on 12-3 @ noon.", "12-3"),
    ("Reintubated 7-30 for hypercarbia.", "7-30"),
    ("Foley d/c'd 5-17 and voiding.", "5-17"),
    ("Trach placed 10.21 without complication.", "10.21"),
    ("Admitted 3.9 with chest pain.", "3.9"),
])
def test_month_day_with_dash_or_dot_after_a_date_cue(nlp: Pipeline, text: str, date: str) -> None:
    assert date in _texts(nlp, text)


@pytest.mark.parametrize("text", [
    "Pt on 2-3 L NC, sats 95%.",  # a flow range
    "Pain 3-4 after morphine.",  # a pain range
    "HR 80-90 SR, no ectopy.",
    "Had 3-4 loose stools overnight.",
    "Continues on 5-10 of levophed.",  # a dose range
    "Seen on 3-4 occasions by PT.",  # a count
    "Suctioned q 2-3 hrs for thick secretions.",
    "Extubated 1-2 days ago.",  # a duration
    "K 3.5, Mg 2.1, Phos 3.4 this am.",  # lab values
    "Started on 1.5 mg dilaudid.",
    "Admitted 1.10 liters out.",  # a decimal with its trailing zero
    "Vent settings 500x14, PEEP 5, PS 10-5.",  # a ventilator setting
    "GCS 3-4 on arrival.",
    "Pt intubated with 7.5 ETT, taped at 23 cm.",  # a tube size after an event verb
    "Post extub pH down 7.29, repeat ABG.",  # a lab value after an event word
    "Sat >95%. rr 12-20. LS clear.",  # a vital sign range ("sat" is also Saturday)
    "Remains on captopril, cvp 7-8, uo fair.",
    "K+ at 0800 5.9, treated.",  # a lab value after a clock time
    "IABP on 1:1, augmentation 8-12 and holding.",  # a weak cue three words back
])
def test_dash_and_dot_pairs_that_are_no_dates(nlp: Pipeline, text: str) -> None:
    found = _texts(nlp, text)
    assert not [t for t in found if any(c in t for c in "-.") and t[:1].isdigit()], found


# --- "the 19th" ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "date"), [
    ("Pt admitted the 2nd for chest pain.", "2nd"),
    ("Extubated the 14th, reintubated the 16th.", "14th"),
    ("Family meeting Monday the 19th at 2pm.", "19th"),
    ("Plan is to extubate today (the 23rd), if ABG ok.", "23rd"),
    ("s/p CABG the 31st, chest tubes out.", "31st"),
    ("On the 12th this eve temp spiked.", "12th"),
    ("Flash edema at 3am the 6th, diuresed.", "6th"),
    ("On trach collar since the 25th am.", "25th"),
    ("Last CO/CI (the 21st 0500) stable.", "21st"),
])
def test_ordinal_day_after_a_date_cue(nlp: Pipeline, text: str, date: str) -> None:
    assert date in _texts(nlp, text)


@pytest.mark.parametrize("text", [
    "Now on the 3rd day of antibiotics.",
    "Transferred to the 4th floor.",
    "Admitted the 2nd time this year for CHF.",
    "Gave the 2nd dose of lasix.",
    "One of the 3rd.",
    "Pulled out the 2nd and 3rd PIV.",
    "Placed for the 2nd and 3rd PIV.",
    "Chest tube at the 4th ICS.",
    "Seen for the 3rd time today.",
    "Since the 2nd dose, BP lower.",
])
def test_ordinals_that_are_no_dates(nlp: Pipeline, text: str) -> None:
    assert not [t for t in _texts(nlp, text) if t[:1].isdigit()]


# --- day and month name after "d/c", before "s/p" -----------------------------------------------------------

@pytest.mark.parametrize(("text", "date"), [
    ("IABP d/c 24-Sep. Groin site clean.", "24-Sep"),
    ("Pt admitted 8-Sep s/p fall at home.", "8-Sep"),
    ("PMH: s/p CABG 19-Nov, HTN.", "19-Nov"),
    ("Hx MI 2-Mar, DM2.", "2-Mar"),
])
def test_day_month_after_dc_and_before_sp(nlp: Pipeline, text: str, date: str) -> None:
    assert any(date in t for t in _texts(nlp, text))


# --- years of a history -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "year"), [
    ("PMH: CAD, CABGx3 1991, GERD.", "1991"),
    ("NIDDM, 1987 PTCA to RCA.", "1987"),
    ("Quit smoking 1994, occasional ETOH.", "1994"),
    ("S/P L lung resection '02'. Hypothyroid.", "02"),
])
def test_years_of_a_history(nlp: Pipeline, text: str, year: str) -> None:
    assert year in _texts(nlp, text)


@pytest.mark.parametrize("text", [
    "CABGx3 with 1800 cc out.",  # a volume
    "Smoking 1 ppd, UO 1900 ml.",
    "Stopped at 1830 for a rest.",  # a clock time
])
def test_four_digit_numbers_near_history_words_that_are_no_years(nlp: Pipeline, text: str) -> None:
    assert not [t for t in _texts(nlp, text) if t.isdigit() and len(t) == 4]


# --- phone numbers, pagers, extensions ----------------------------------------------------------------------

@pytest.mark.parametrize(("text", "number"), [
    ("dtr Ann Pelley- 482-1937. will call in am", "482-1937"),
    ("they can be reached at 664-2081 after 5pm", "664-2081"),
    ("his wife, Jo Marks (771-3042) updated", "771-3042"),
    ("son called 358-9921 and was updated", "358-9921"),
    ("wife Dora Quill, (426) 710-8832, aware", "(426) 710-8832"),  # an unassigned area code: still a number
    ("PG (578) 649-1814 for questions", "(578) 649-1814"),
    ("niece at 637.904.1745 to be called", "637.904.1745"),
    ("Page resident at pager #x4949 prn", "x4949"),
    ("Pager #x7554", "x7554"),
])
def test_phone_numbers_in_nursing_notes(nlp: Pipeline, text: str, number: str) -> None:
    assert any(number in t for t in _texts(nlp, text)), _texts(nlp, text)


@pytest.mark.parametrize("text", [
    "wife at bedside; UO 200-1000 cc/hr over shift",  # a range of round numbers
    "son visiting. HR 110-1200 on tele?",
    "K 3.5, BUN 210-2345 (lab error), Cr 1.1",  # no phone word
    "family meeting; vent 500x14, PEEP 5",
    "son updated; BP 120/80, HR 88",
])
def test_numbers_near_relatives_that_are_no_phones(nlp: Pipeline, text: str) -> None:
    det = contacts.recognizers("en")
    found = [text[s.start:s.end] for r in det[:2] for s in r.analyze(text)]  # type: ignore[attr-defined]
    assert not found, found


def test_north_american_shape_needs_english() -> None:
    """An unassigned US area code in its written shape is a number in English notes only."""
    text = "Tel (426) 710-8832"
    assert [text[s.start:s.end] for s in contacts.PhoneRecognizer("en").analyze(text)] == ["(426) 710-8832"]
    es = [text[s.start:s.end] for s in contacts.PhoneRecognizer("es").analyze(text)]
    assert all(s.startswith(("(", "4")) for s in es)  # whatever Spanish finds, it is not a new shape rule


# --- adversarial inputs: the new patterns stay linear -------------------------------------------------------

_ADVERSARIAL = {
    "dash pairs": "1-2 " * 250_000,
    "dot pairs": "1.2 " * 250_000,
    "ordinal run": "on the 1st the " * 60_000,
    "admitted the": "admitted the " * 80_000,
    "apostrophes": "'12'" * 200_000,
    "year run": "CABGx4 1999 " * 80_000,
    "x numbers": "#x1234 " * 140_000,
    "nanp": "(617) 555-1234 " * 60_000,
}


@pytest.mark.parametrize("name", list(_ADVERSARIAL))
def test_english_patterns_linear_on_adversarial_input(name: str) -> None:
    text = _ADVERSARIAL[name]
    t0 = time.process_time()
    for r in [*dates.recognizers("en"), *contacts.recognizers("en")[:2]]:
        r.analyze(text)  # type: ignore[attr-defined]
    assert time.process_time() - t0 < 10.0, name
