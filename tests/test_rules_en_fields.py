"""English notes of other types (headers, forms, reports, letters, terse calls), brief en_fix4b: identifiers after
a label word, years and months of a history, names on signature lines and form columns, eponyms before a scale
word, phones after a sign-off, ages with "he's".

Every text here is written for the test (no string comes from a corpus); positives and the negatives that must
stay untouched, and time budgets for the new patterns."""

from __future__ import annotations

import time

import pytest

from _rules import rules_pipeline
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


def _found(nlp: Pipeline, text: str) -> list[tuple[str, str]]:
    return [(text[s.start:s.end], s.label) for s in _spans(nlp, text)]


def _exact(nlp: Pipeline, text: str, value: str) -> str | None:
    """The label of a span that is exactly ``value`` (its first occurrence), or None."""
    start = text.index(value)
    return next((s.label for s in _spans(nlp, text) if (s.start, s.end) == (start, start + len(value))), None)


def _touched(nlp: Pipeline, text: str, value: str) -> bool:
    start = text.index(value)
    end = start + len(value)
    return any(s.start < end and start < s.end for s in _spans(nlp, text))


# --- 1. identifiers after a label word ---------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "value", "label"), [
    ("Accession #: XR25-0048817        Exam date: 02/14/2025", "XR25-0048817", "ID.IDNUM"),
    ("ACC: US-77120456   REFERRING: DR. PELL", "US-77120456", "ID.IDNUM"),
    ("Case: P25-20417      Received: 5/6/2025", "P25-20417", "ID.IDNUM"),
    ("work injury, WORKERS COMP CLAIM WC-2025-440912.", "WC-2025-440912", "ID.IDNUM"),
    ("Claim # OH-WC-55019283   Employer: a roofing firm", "OH-WC-55019283", "ID.IDNUM"),
    ("Msg ID 90214477\nSubject: refill", "90214477", "ID.IDNUM"),
    ("via video interpreter (ID 5128), mother at bedside", "5128", "ID.IDNUM"),
    ("officer at bedside (badge 2290) requesting a blood alcohol level", "2290", "ID.IDNUM"),
    ("INCIDENT # 25-011742   UNIT MEDIC 4", "25-011742", "ID.IDNUM"),
    ("organ bank notified, ref #409912-31; not a candidate", "409912-31", "ID.IDNUM"),
    ("images on the PACS server, study UID 1.2.840.10008.5.1.4.1.1.2.7731.", "1.2.840.10008.5.1.4.1.1.2.7731",
     "ID.IDNUM"),
    ("loop recorder (serial RLA-993104) interrogated", "RLA-993104", "ID.DEVICE"),
    ("insulin pump S/N PX-0044719 changed", "PX-0044719", "ID.DEVICE"),
    ("prescriber on file (DEA MK8830194)", "MK8830194", "ID.LICENSE"),
    ("has not driven since (CDL # D4471902).", "D4471902", "ID.LICENSE"),
    ("renewal arrived for license R550-81-3307.", "R550-81-3307", "ID.LICENSE"),
    ("CREW: M. ORTIZ PARAMEDIC #P-51208, EMT-B", "P-51208", "ID.LICENSE"),
    ("rental oxygen (account 5520-1187-40).", "5520-1187-40", "ID.ACCOUNT"),
    ("insurance changed, sub ID QXP-40077310-02.", "QXP-40077310-02", "ID.HEALTHPLAN"),
    ("Policy: 7720-41-88\nCode status: full", "7720-41-88", "ID.HEALTHPLAN"),
    ("Patient: A   MRN QTR 0711846   Age 70", "QTR 0711846", "ID.MEDICALRECORD"),
    ("sedan, TN plate KPW 2208. Driver", "KPW 2208", "ID.VEHICLE"),
])
def test_identifier_after_label_word(rules: Pipeline, text: str, value: str, label: str) -> None:
    assert _exact(rules, text, value) == label


def test_plate_state_is_not_part_of_the_plate(rules: Pipeline) -> None:
    text = "SPOUSE FOLLOWED IN CAR (PLATE NH 7XRW52)."
    assert _exact(rules, text, "7XRW52") == "ID.VEHICLE"
    assert not _touched(rules, text, "NH ")


@pytest.mark.parametrize(("text", "value"), [
    ("serial troponins 0.04, 0.05", "0.04"),
    ("serial CXR 10/12/23 unchanged", "CXR"),
    ("serial CK 1200 then 900", "1200"),
    ("claim 2019 was denied", "2019"),
    ("on account of 120 mg of furosemide", "120"),
    ("license 3 months ago", "3"),
    ("case 1 of 3 today", "1"),
    ("per ACC/AHA 2017 guidelines", "2017"),
    ("DEA schedule II drug", "II"),
    ("interpreter used for 45 min", "45"),
])
def test_label_words_before_quantities_are_no_identifiers(rules: Pipeline, text: str, value: str) -> None:
    assert not any(lab.startswith("ID.") for _t, lab in _found(rules, text)), text


# --- 3. dates ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "value"), [
    ("PMH: AF; pacemaker placed 2017 (dual chamber); gout.", "2017"),
    ("OB hx: NSVD 2019 at 40 wk, uncomplicated.", "2019"),
    ("Widowed 1992. Born 1934 in a small town.", "1934"),
    ("Stage 2 PI since June 2025. Born 1930 in the valley; widowed 1990.", "1930"),
    ("colon CA 1998 s/p hemicolectomy.", "1998"),
    ("ran out of torsemide around the 12th of last month", "12th"),
    ("her appointment got moved to the 23rd, please fax", "23rd"),
    ("apixaban 5 mg BID - last dose 3/4 AM", "3/4"),
    ("hold 5 days prior (last dose 2/27), then", "2/27"),
    ("cisplatin/etoposide x4 (4/2021-8/2021), then", "4/2021-8/2021"),
    ("DES to LAD after a stent in Nov. Now chest pain.", "Nov"),
    ("travel to Peru in Jan, no sick contacts", "Jan"),
    ("missed school in April and May.", "May"),
])
def test_dates_of_a_history(rules: Pipeline, text: str, value: str) -> None:
    assert _exact(rules, text, value) == "DATE"


def test_iso_date_leaves_the_clock_time_out(rules: Pipeline) -> None:
    text = "Sent: 2025-03-09 21:14   Msg ID 771"
    assert _exact(rules, text, "2025-03-09") == "DATE"
    assert not _touched(rules, text, "21:14")


@pytest.mark.parametrize(("text", "value"), [
    ("Elston grade: tubules 3, nuclei 2, mitoses 2; total 7/9.", "7/9"),
    ("may march in may and june", "june"),
    ("apixaban 1/2 tab, last dose 1/2 tab", "1/2"),
    ("CK at 1930 and 2010 trending down", "2010"),
    ("moved to the 4th floor today", "4th"),
    ("UO 2000 in 24 h", "2000"),
])
def test_scores_verbs_and_counts_are_no_dates(rules: Pipeline, text: str, value: str) -> None:
    assert not _touched(rules, text, value)


# --- 2. names ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "name", "after"), [
    ("DISCHARGE SUMMARY\nPatient: Ansel Whitcombe    Discharge date: 4/2/2025\n", "Ansel Whitcombe", "Discharge"),
    ("Procedure date: 1/7/2025\nPatient: Lorena Baptiste   MRN QX 0099102   Age 58\n", "Lorena Baptiste", "MRN"),
    # two blanks end the name only before a field label
    ("Patient: Ansel Whitcombe  Discharge date: 4/2/2025\n", "Ansel Whitcombe", "Discharge"),
    ("Patient: Ansel Whitcombe  DOB: 4/2/1950\n", "Ansel Whitcombe", "DOB"),
])
def test_a_name_stops_at_a_column_gap(rules: Pipeline, text: str, name: str, after: str) -> None:
    assert _exact(rules, text, name) is not None
    assert not _touched(rules, text, after)


def test_two_blanks_inside_a_name_are_no_column_gap() -> None:
    """A name typed with two blanks between its words stays one name, also before the next field's label
    ("Pinazo NºCol:" is a surname and a label, not a two-word label); the sentences are invented."""
    from _rules import found, rules_pipeline

    assert ("Mara  Lindqvist", "NAME.DOCTOR") in found(rules_pipeline("en", "hipaa"), "Attending: Mara  Lindqvist\n")
    text = "Servicio: Oftalmología.\nMédico: Ramiro Cuesta  Albalat NºCol: 28 28 11111.\n"
    assert ("Ramiro Cuesta  Albalat", "NAME.DOCTOR") in found(rules_pipeline("es"), text)


def test_possessive_is_outside_the_name(rules: Pipeline) -> None:
    text = "Faxed Dr. Thaddeus Wexley's office (413-555-0166), left a message."
    assert _exact(rules, text, "Thaddeus Wexley") is not None


def test_credential_after_a_listed_name_is_no_name(rules: Pipeline) -> None:
    text = "Outpatient team: PCP Dr. Imran Qadir, counselor Petra Lindahl, LMHC, last seen in the fall."
    assert _touched(rules, text, "Petra Lindahl")
    assert not _touched(rules, text, "LMHC")


@pytest.mark.parametrize(("text", "name"), [
    ("PT RESTING, PAIN CONTROLLED. FULL CODE.\nSIGN-OUT GIVEN TO NIGHT RN.\nHOLLY BARNES, RN\n", "HOLLY BARNES"),
    ("Plan discussed with foster mother.\nMarisol Okoye, LICSW   x7713\n", "Marisol Okoye"),
])
def test_signature_lines(rules: Pipeline, text: str, name: str) -> None:
    assert _exact(rules, text, name) is not None


def test_extension_after_a_credential(rules: Pipeline) -> None:
    text = "Plan discussed with foster mother.\nMarisol Okoye, LICSW   x7713\n"
    assert _touched(rules, text, "7713")


@pytest.mark.parametrize(("text", "word"), [
    ("A 10 mm Hasson trocar was placed under direct vision.", "Hasson"),
    ("Barking cough, stridor at rest. Westley croup score 4.", "Westley"),
    ("Prep: Boston Bowel Prep Scale 2/2/3 = 7.", "Boston"),
    ("SAH, Hunt-Hess 2, Fisher 3. Angio tomorrow.", "Fisher"),
    ("Reassessed: no stridor, Westley 0.\nHome.", "Westley"),
    ("Meds reviewed against the Beers criteria.", "Beers"),
])
def test_eponyms_before_a_scale_word_are_no_names(rules: Pipeline, text: str, word: str) -> None:
    assert not _touched(rules, text, word)


def test_surname_does_not_spread_onto_a_scale(rules: Pipeline) -> None:
    text = "Patient: Ruth Bishop\nBishop score 4, cervix unfavorable. Ms. Bishop agrees with the plan."
    assert _touched(rules, text, "Ruth Bishop")
    start = text.index("Bishop score")
    assert not any(s.start < start + 6 and start < s.end for s in _spans(rules, text))
    assert _touched(rules, text, "Bishop agrees")


def test_a_person_before_a_scale_word_keeps_the_title(rules: Pipeline) -> None:
    assert _touched(rules, "Dr. Okafor pain score reviewed", "Okafor")


@pytest.mark.parametrize(("text", "name"), [
    ("housing pending. case mgr tomas applying for a voucher.", "tomas"),
    ("portal msg\nlabs ok? thx priya, 555-0100", "priya"),
    ("Highway patrol Sgt. Omar Whitfield at bedside", "Omar Whitfield"),
    ("last cardiology note (Dr. Young, 3/4/2024) reviewed.", "Young"),
])
def test_names_after_terse_cues(rules: Pipeline, text: str, name: str) -> None:
    assert _touched(rules, text, name)


@pytest.mark.parametrize(("text", "word"), [
    ("re pain: improved after dose.", "pain"),
    ("EXPLAINED TO PT RE: ILEUS, NPO.", "ILEUS"),
    ("thanks for the update, will call back.", "for"),
    ("caller states fever is down.", "states"),
    ("case mgr aware of the plan.", "aware"),
    ("Dr. note reviewed with the family.", "note"),
])
def test_terse_cues_before_ordinary_words(rules: Pipeline, text: str, word: str) -> None:
    assert not _touched(rules, text, word)


# --- 4. contacts and ages ----------------------------------------------------------------------------------------

def test_phone_after_a_sign_off_below_an_id_line(rules: Pipeline) -> None:
    text = "the renewal came for license T220-19-4471.\nthanks, dana, 317-555-0177, dana.r@example.com\n"
    assert _exact(rules, text, "317-555-0177") == "CONTACT.PHONE"


@pytest.mark.parametrize(("text", "value", "age"), [
    ("he's 92 and still drives at night", "92", True),
    ("she’s 96.", "96", True),
    ("he's 45 and fit", "45", False),
    ("he's 91 mg over the limit", "91", False),
])
def test_age_after_contracted_copula(rules: Pipeline, text: str, value: str, age: bool) -> None:
    assert (_exact(rules, text, value) == "AGE") is age


@pytest.mark.parametrize("text", [
    "study UID " + "1." * 20000 + "1",
    "MRN " + "AB 1" * 10000,
    "serial " + "1-" * 20000,
    "(" + "4/2021-" * 10000 + "8/2021)",
    "in " + "Jan " * 20000,
    "in May and " * 5000 + "June",
    "A" + " Bb" * 20000 + " score",
    ("ANN LEE, RN   x" + "1" * 50 + "\n") * 500,
])
def test_time_budget(rules: Pipeline, text: str) -> None:
    t0 = time.process_time()
    _spans(rules, text)
    assert time.process_time() - t0 < 5.0
