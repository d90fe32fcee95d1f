"""English nursing notes, general fixes that should carry to unseen patients: devices, procedures, nationalities
and languages are no names without a person cue (and names after a cue stay); a weekday alone is no date under
``hipaa`` (it stays one under ``gdpr-strict``); an abbreviated month keeps no sentence-ending dot; a month and day
right after an event ("stroke 4-8"); ranges of settings and vitals are no phone numbers.

Every text here is written for the test (no string comes from a corpus)."""

from __future__ import annotations

import time

import pytest

from _rules import found as _found
from _rules import rules_pipeline
from clinanon.config import Config
from clinanon.detect.allowlist import device_guard, not_name_words
from clinanon.document import Document, Span
from clinanon.pipeline import Pipeline
from clinanon.profiles import get_profile, is_weekday


@pytest.fixture(scope="module")
def nlp() -> Pipeline:
    return rules_pipeline("en")


def _names(nlp: Pipeline, text: str) -> list[str]:
    return [t for t, lab in _found(nlp, text) if lab.startswith(("NAME", "LOCATION"))]


@pytest.mark.parametrize("text", [
    "Bilateral lower extremities with Ted hose, heels floated.",
    "TEDS AND PNEUMOBOOTS ON BILAT.",
    "Teds on, skin intact.",
    "R Hickman line flushed without difficulty.",
    "Salem sump to low intermittent wall suction.",
    "Miami J collar maintained, log roll only.",
    "Jackson-Pratt drain x2 with serosang output; JP drain stripped.",
    "Posey vest on overnight for safety.",
    "Swan pulled back to 50 cm, wedge 14.",
    "US shows fluid in the Douglas pouch.",
    "House officer aware of low urine output.",
    "s/p Nissen fundoplication, tolerating sips.",
])
def test_devices_and_procedures_are_no_names(nlp: Pipeline, text: str) -> None:
    assert _names(nlp, text) == []


@pytest.mark.parametrize("text", [
    "Pt speaks Russian only; Russian interpreter requested for rounds.",
    "Agitated, speaking in Portuguese, pointing at the T.V. Portuguese interpreter paged.",
    "Haitian Creole speaking, son translating.",
    "Pt speaks Arabic and French, limited English.",
    "Pt is Irish, lives alone.",
])
def test_languages_and_nationalities_are_no_names(nlp: Pipeline, text: str) -> None:
    found = _found(nlp, text)
    assert [t for t, lab in found if lab.startswith("NAME")] == []
    assert {lab for _, lab in found} <= {"LOCATION.COUNTRY"}  # a nationality: kept under hipaa, not a name
    cfg = {"language": "en", "label_scheme": "canonical", "detectors": {"use": ["rules"]}, "profile": "hipaa"}
    assert Pipeline(Config.from_dict(cfg)).detect_spans(Document(id="t", text=text)) == []


@pytest.mark.parametrize(("text", "name"), [
    ("Discussed plan with Dr. Foley at 3pm.", "Foley"),
    ("Son Ted at bedside, updated on plan.", "Ted"),
    ("Plan reviewed with Dr. Penrose, will repeat CT.", "Penrose"),
    ("Report given to Marta Swan, RN.", "Marta Swan"),
    ("wife Irish called for update", "Irish"),
    ("Dr. Whipple paged re: hypotension", "Whipple"),
])
def test_names_after_a_person_cue_stay(nlp: Pipeline, text: str, name: str) -> None:
    assert name in _names(nlp, text)


def test_device_guard_reads_its_table() -> None:
    table = not_name_words("en")
    assert table["foley"] == (frozenset(), False, False)
    assert table["russian"] == (frozenset(), False, True)
    assert "hose" in table["ted"][0] and table["ted"][1]  # "Ted hose"; "TED" in capitals alone
    assert not_name_words("de") == {}  # no table: nothing changes
    text = "Ted hose on. Ted visited."
    spans = [Span(0, 3, "NAME", "t", 0.6), Span(13, 16, "NAME", "t", 0.6)]
    assert device_guard(text, spans, "en") == [spans[1]]  # "Ted" before "visited" is a person
    assert device_guard(text, spans, "de") == spans
    text = "speaks Russian, son Ted"
    spans = [Span(7, 14, "NAME", "t", 0.6), Span(20, 23, "NAME", "t", 0.6)]
    assert device_guard(text, spans, "en") == [Span(7, 14, "LOCATION.COUNTRY", "t", 0.6), spans[1]]


@pytest.mark.parametrize("text", ["Sunday", "sunday.", "on Monday", "Wed", "lunes"])
def test_weekday_alone_is_no_date_under_hipaa(text: str) -> None:
    assert is_weekday(text)
    assert not get_profile("hipaa").is_phi("DATE", text)
    assert get_profile("gdpr-strict").is_phi("DATE", text)  # a weekday can single a person out: kept there


@pytest.mark.parametrize("text", ["Monday 10/19", "10/19", "Christmas", "Sundays at noon"])
def test_dates_with_a_weekday_stay_dates_under_hipaa(text: str) -> None:
    assert not is_weekday(text)
    assert get_profile("hipaa").is_phi("DATE", text)


def test_hipaa_pipeline_keeps_the_weekday_and_replaces_the_date() -> None:
    cfg = {"language": "en", "label_scheme": "canonical", "detectors": {"use": ["rules"]}}
    text = "Last BM on Sunday. Extubated on 10/19."
    hipaa = Pipeline(Config.from_dict({**cfg, "profile": "hipaa"}))
    strict = Pipeline(Config.from_dict({**cfg, "profile": "gdpr-strict"}))
    got = [text[s.start:s.end] for s in hipaa.detect_spans(Document(id="t", text=text))]
    assert got == ["10/19"]
    got = [text[s.start:s.end] for s in strict.detect_spans(Document(id="t", text=text))]
    assert got == ["Sunday", "10/19"]  # no sentence dot in the weekday's span


@pytest.mark.parametrize(("text", "date"), [
    ("Pt admitted 24-Sep. Transferred from OSH.", "24-Sep"),  # the dot ends the sentence
    ("PT ADMITTED 24-SEP. PT TRANSFERRED FROM OSH.", "24-SEP"),  # also in capitals
    ("Extubated Sep. 24 without difficulty.", "Sep. 24"),  # the dot of the abbreviation
    ("PMH: stroke 4-8, HTN, DM2.", "4-8"),
    ("PMH notable for CABG 10-19 and HTN.", "10-19"),
    ("PMH: MI 3/4, CHF.", "3/4"),
])
def test_date_forms(nlp: Pipeline, text: str, date: str) -> None:
    assert (date, "DATE") in _found(nlp, text)


@pytest.mark.parametrize("text", [
    "Old rib fx 4-8 on CXR.",  # ribs four to eight
    "stroke volume 60-80 ml.",
    "seizure 2-3 min, resolved.",
    "strength 4/5 bilat, pulses 2/4.",
])
def test_event_words_do_not_date_measures(nlp: Pipeline, text: str) -> None:
    assert [t for t, lab in _found(nlp, text) if lab == "DATE"] == []


@pytest.mark.parametrize("text", [
    "Decreased PS to 12 with VT 700-900 20 minutes later.",
    "UO 600-800 cc/hr, 800-1000 15 min later.",
    "VT 550-1212 on AC overnight.",
])
def test_ranges_of_settings_are_no_phones(nlp: Pipeline, text: str) -> None:
    assert [t for t, lab in _found(nlp, text) if lab.startswith("CONTACT")] == []


@pytest.mark.parametrize(("text", "phone"), [
    ("Wife can be reached at 617-555-1212 after 5pm.", "617-555-1212"),
    ("Daughter's cell 555-1234.", "555-1234"),
])
def test_phones_stay(nlp: Pipeline, text: str, phone: str) -> None:
    assert (phone, "CONTACT.PHONE") in _found(nlp, text)


# --- the invented English notes (tests/data/en-notes, written and annotated blind, hipaa convention) -----------

def _own_notes():  # type: ignore[no-untyped-def]
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import own_notes
    return own_notes


def test_en_notes_are_valid_brat_and_keep_a_floor(nlp: Pipeline) -> None:
    from clinanon.taxonomy import get_scheme
    own = _own_notes()
    docs = own.load("en")
    assert len(docs) == 40
    scheme = get_scheme("canonical")
    assert all(d.spans and all(s.label in scheme for s in d.spans) for d in docs)
    assert not any(s.label == "AGE" and int(d.text[s.start:s.end]) < 90 for d in docs for s in d.spans)
    pred = [d for d in nlp.pipe(docs, deidentify=False) if isinstance(d, Document)]
    tb = own.score_profile(docs, pred, "en", scheme, "hipaa")["token_binary"]
    # blind estimate 0.963 / 0.880 before the fixes below, 0.979 / 0.883 after, 0.979 / 0.892 after en_fix2 (ages
    # over 89, years after events, modal names, suffixes), 0.983 / 0.929 after the ninth and tenth English rounds;
    # floors just under the latter
    assert tb["precision"] >= 0.975 and tb["recall"] >= 0.92, tb


def test_date_does_not_run_over_a_blank_line(nlp: Pipeline) -> None:
    """A ward's number at a line's end, a blank line, then a letter's date: the date is "May 3, 2024"."""
    text = "Department of Surgery, Tilbury 4\n\nMay 3, 2024\n\nTo: the practice"
    dates = [t for t, lab in _found(nlp, text) if lab == "DATE"]
    assert dates == ["May 3, 2024"]
    # a day and month wrapped onto the next line are still one date
    assert [t for t, lab in _found(nlp, "seen in clinic on 6\nApril 2012 for review") if lab == "DATE"] == [
        "6\nApril 2012"]


@pytest.mark.parametrize("text", [
    # drug names no list holds (invented brand names), as new drugs are
    "ON ZOLVAREX 2 MCG/KG/MIN X 18 HRS.",
    "remains on Quinlotide 5 mcg/min, titrating.",
    "Pt on Heprazine 12 units/kg/hr per protocol.",
    "was on Veltramab 3 days before admission.",
])
def test_drug_with_a_dose_is_no_ward(nlp: Pipeline, text: str) -> None:
    assert not [t for t, lab in _found(nlp, text) if lab.startswith("LOCATION")]


def test_ward_with_a_number_is_still_a_ward(nlp: Pipeline) -> None:
    assert "Tilbury" in _names(nlp, "Pt transferred to Tilbury 4 this afternoon.")
    assert "TILBURY" in _names(nlp, "INTUBATED ON TILBURY 6 LAST NIGHT.")


@pytest.mark.parametrize(("text", "name"), [
    ("Turned q2h, skin intact.\nK. Tree RN\n", "K. Tree"),
    ("Family updated at bedside.\nM. Hope, RN\n", "M. Hope"),
    ("No events overnight.\nT. Marsh RN\n", "T. Marsh"),
])
def test_initialled_signature_with_a_common_word_surname(nlp: Pipeline, text: str, name: str) -> None:
    assert name in [t for t, lab in _found(nlp, text) if lab.startswith("NAME")]


@pytest.mark.parametrize("text", [
    "Plan reviewed.\nSee PT RN\n",
    "Plan reviewed.\nPer OT RN\n",
])
def test_signature_line_without_initial_needs_a_name(nlp: Pipeline, text: str) -> None:
    assert not [t for t, lab in _found(nlp, text) if lab.startswith("NAME")]


# --- brief en_fix2: ages over 89 without a unit, years after an operation or a disease's course, relatives' names
# that are also modal verbs, generational suffixes. Negatives: the same words as verbs ("son will call", "wife hope
# to", "daughter may come"), ages under 90, lab values, ostomy volumes, classes and stages with Roman numerals.
@pytest.fixture(scope="module")
def rules() -> Pipeline:
    return rules_pipeline("en", "hipaa")


def _predicted(nlp: Pipeline, text: str) -> list[Span]:
    """The spans the pipeline keeps (after its profile: ages under 90 are no PHI under ``hipaa``)."""
    return list(next(iter(nlp.pipe([Document("t", text)], deidentify=False))).spans)


def _spans(nlp: Pipeline, text: str) -> list[tuple[str, str]]:
    return [(text[s.start:s.end], s.label) for s in _predicted(nlp, text)]


def _covered(nlp: Pipeline, text: str, want: str) -> bool:
    """Whether every character of ``want`` (in ``text``) is inside a kept span."""
    spans, a = _predicted(nlp, text), text.index(want)
    return all(any(s.start <= i < s.end for s in spans) for i in range(a, a + len(want)))


def _touched(nlp: Pipeline, text: str, word: str) -> bool:
    """Whether any character of ``word`` (in ``text``) is inside a kept span."""
    spans, a = _predicted(nlp, text), text.index(word)
    return any(s.start < a + len(word) and a < s.end for s in spans)


@pytest.mark.parametrize(("text", "want"), [
    ("Mr. Quenby, 93, was admitted with a hip fracture.", "93"),
    ("Mrs. Ottilie Farrow, 101, lives alone.", "101"),
    ("Pt Marisol Vantreese, 91, presented with syncope.", "91"),
    ("lives with her husband, who is also 92 and has dementia.", "92"),
    ("She is a 91 yo woman with CHF.", "91"),
    ("Pt aged 95 with a fall at home.", "95"),
])
def test_age_over_89_without_unit(rules: Pipeline, text: str, want: str) -> None:
    assert (want, "AGE") in _spans(rules, text)


@pytest.mark.parametrize(("text", "num"), [
    ("Mr. Quenby, 67, was admitted with a hip fracture.", "67"),  # under 90: no identifier under hipaa
    ("Na 138, K 4.1, Cl 93, HCO3 24.", "93"),
    ("Metoprolol, 95, was held for low BP.", "95"),
    ("BP 93/50, HR 92, Sats, 94, on 2L.", "94"),
])
def test_age_apposition_negatives(rules: Pipeline, text: str, num: str) -> None:
    assert not _touched(rules, text, num)


@pytest.mark.parametrize(("text", "year"), [
    ("Hx: HTN, DM2, hypothyroidism, R TKR 2009, cholecystectomy 1987.", "1987"),
    ("metastatic breast ca (dx 2014, recurrence 2021), now on hospice", "2021"),
    ("PSH: TAH/BSO 1995 for fibroids", "1995"),
    ("AML, relapse in 2019, now in remission", "2019"),
    ("Pt is s/p 2003 hysterectomy.", "2003"),
    ("diagnosed 2016 with CLL", "2016"),
    ("L carotid endarterectomy 2011, CVA 2012", "2011"),
    ("hemicolectomy in 2008 for colon ca", "2008"),
])
def test_year_after_event(rules: Pipeline, text: str, year: str) -> None:
    assert (year, "DATE") in _spans(rules, text)


@pytest.mark.parametrize(("text", "num"), [
    ("ileostomy output 1900 today", "1900"),
    ("tracheostomy 2000 ml out", "2000"),
    ("s/p colostomy, vitals at 2015 and 2030 stable", "2015"),
    ("colostomy 1200 cc since noon", "1200"),
])
def test_year_after_event_negatives(rules: Pipeline, text: str, num: str) -> None:
    assert not _touched(rules, text, num)


@pytest.mark.parametrize(("text", "name"), [
    ("social: wife hope called x2, updated by rn.", "hope"),
    ("Son Will agrees with plan.", "Will"),
    ("wife Hope visited today and brought clothes", "Hope"),
    ("son will is at the bedside", "will"),
    ("DAUGHTER MAY CALLED AT 1400", "MAY"),
    ("spoke with son Will.", "Will"),
])
def test_modal_name_after_kinship(rules: Pipeline, text: str, name: str) -> None:
    assert (name, "NAME.RELATIVE") in _spans(rules, text)


@pytest.mark.parametrize(("text", "word"), [
    ("son will call tomorrow with questions.", "will"),
    ("wife hope to take him home friday.", "hope"),
    ("daughter may come in am.", "may"),
    ("Son will need a ride home.", "will"),
    ("wife hopes that he improves", "hopes"),
    ("DAUGHTER MAY COME TOMORROW", "MAY"),
])
def test_modal_word_after_kinship_stays(rules: Pipeline, text: str, word: str) -> None:
    assert not _touched(rules, text, word)


@pytest.mark.parametrize(("text", "want"), [
    ("Pt is Robert Quenby Jr. He lives alone.", "Robert Quenby Jr"),
    ("ROBERT QUENBY JR WAS ADMITTED FROM HOME.", "ROBERT QUENBY JR"),
    ("Seen with John Farrow III today.", "John Farrow III"),
    ("Pt Mark Vantreese Sr. here with wife.", "Mark Vantreese Sr"),
])
def test_name_suffix(rules: Pipeline, text: str, want: str) -> None:
    assert _covered(rules, text, want)


@pytest.mark.parametrize(("text", "word"), [
    ("Mobitz Type II block on tele", "II"),
    ("NYHA Class III heart failure", "III"),
    ("Grace Class IV symptoms", "IV"),
    ("Stage IV lung ca, Grade III", "IV"),
])
def test_roman_numerals_are_no_suffix(rules: Pipeline, text: str, word: str) -> None:
    assert not _touched(rules, text, word)


@pytest.mark.parametrize("text", [
    "Mr. " + "A" * 5000 + ", 93" * 2000,
    "cholecystectomy " * 3000 + "1987",
    ("wife hope " * 3000) + "called",
    "John " * 4000 + "Jr " * 2000,
    "A" + " Ab" * 5000 + " III",
])
def test_time_budget(rules: Pipeline, text: str) -> None:
    t0 = time.process_time()
    _spans(rules, text)
    assert time.process_time() - t0 < 5.0


# --- brief en_fix3: sign-out list lines, community care organisations, streets without a number after a
# preposition, towns after "lives ... in" / "from", record numbers with hyphens after MR#, phone-line markers,
# generational suffixes in capitals before a full stop, grading scales and "Br." (brother) that are no names.
# Every string is invented for the test.
@pytest.mark.parametrize(("text", "room", "name"), [
    ("Night list:\nRm 9 - Thornquist: NPO after MN\n", "9", "Thornquist"),
    ("Bed 3 Ashby, K. on heparin gtt\n", None, "Ashby"),  # (a bed's number is no room: test_rules_round6)
    ("Census\nRoom 22B: Pelletier (DNR)\n", "22B", "Pelletier"),
    ("RM 5 - MCKINNEY: CIWA Q4H\n", "5", "MCKINNEY"),
    ("Rm 18 - Delphine Oyelaran: DKA, insulin gtt\n", "18", "Oyelaran"),
])
def test_sign_out_list_line(rules: Pipeline, text: str, room: str | None, name: str) -> None:
    spans = _spans(rules, text)
    assert (room, "LOCATION.ROOM") in spans if room else not [s for s in spans if s[1] == "LOCATION.ROOM"]
    assert _covered(rules, text, name)


@pytest.mark.parametrize(("text", "word"), [
    ("Bed 3 - Empty, cleaned\n", "Empty"),
    ("Rm 2 - Isolation: contact precautions\n", "Isolation"),
    ("Room 5 - Stable, no events overnight\n", "Stable"),
    ("Bed 6: Pending admission from ED\n", "Pending"),
    ("Pt to room 4 after CT.", "after"),  # "4" is a room number now (LOCATION.ROOM)
])
def test_sign_out_list_negatives(rules: Pipeline, text: str, word: str) -> None:
    assert not _touched(rules, text, word)


@pytest.mark.parametrize(("text", "want", "outside"), [
    ("Referred to Greater Fallbrook VNA for home visits.", "Greater Fallbrook VNA", "Referred"),
    ("Staying at St. Brigid's Shelter on weeknights.", "St. Brigid's Shelter", "Staying"),
    ("Lives at Juniper House group home, staff present.", "Juniper House", "group"),
    ("Was at Kestrel House shelter until last month.", "Kestrel House", "shelter"),
    ("Referral to Windmere Valley Hospice placed.", "Windmere Valley Hospice", "Referral"),
    ("Services from Tallow Creek Home Care resume Monday.", "Tallow Creek Home Care", "Services"),
])
def test_community_care_organisations(rules: Pipeline, text: str, want: str, outside: str) -> None:
    assert _covered(rules, text, want)
    assert not _touched(rules, text, outside)


@pytest.mark.parametrize(("text", "word"), [
    ("Referred to Inpatient Hospice.", "Hospice"),
    ("Homeless Shelter bed found for tonight.", "Shelter"),
    ("Discussed Hospice with family.", "Discussed"),
    ("Pt lives in a group home with staff.", "group"),
    ("Consider Home Hospice vs rehab.", "Home"),
])
def test_community_care_negatives(rules: Pipeline, text: str, word: str) -> None:
    assert not _touched(rules, text, word)


@pytest.mark.parametrize(("text", "street"), [
    ("Pt lives on Quillon Street with his wife.", "Quillon Street"),
    ("Found down on Harrowgate Ave near a bus stop.", "Harrowgate Ave"),
    ("Apartment is off Tamsin Road, 2nd floor.", "Tamsin Road"),
    ("Lives alone on Cobbler Terrace; nephew checks daily.", "Cobbler Terrace"),
    ("MVC at the corner of Fennel St and Bracken St.", "Fennel St"),
])
def test_street_without_number_after_preposition(rules: Pipeline, text: str, street: str) -> None:
    assert _covered(rules, text, street)


@pytest.mark.parametrize(("text", "word"), [
    ("Pt on heparin drip, street drugs denied.", "street"),
    ("Seen at St. Wulfric's for rehab.", "for"),
    ("Pt walked down the hall on RA.", "hall"),
    ("Ambulated on the unit with PT.", "unit"),
])
def test_street_negatives(rules: Pipeline, text: str, word: str) -> None:
    assert not _touched(rules, text, word)


@pytest.mark.parametrize(("text", "town"), [
    ("pt lives 30 min away in springfield with wife.", "springfield"),
    ("wife is driving in, they live near the lake from springfield", "springfield"),
    ("lives with her daughter in Pittsfield.", "Pittsfield"),
])
def test_town_after_residence_cue(rules: Pipeline, text: str, town: str) -> None:
    assert _covered(rules, text, town)


@pytest.mark.parametrize(("text", "town"), [
    ("d/c to 14 Wren Ct, apt 2, Marlowe Falls, with VNA.", "Marlowe"),
    ("Home is 77 Osprey Rd, Ketterby. Lives with son.", "Ketterby"),
])
def test_town_after_street_address(rules: Pipeline, text: str, town: str) -> None:
    assert (town, "LOCATION.CITY") in _spans(rules, text) or _covered(rules, text, town)


def test_no_town_after_street_for_common_words(rules: Pipeline) -> None:
    text = "Lives at 12 Hazel St, Apartment 3, elevator building."
    assert not any(lab == "LOCATION.CITY" for _, lab in _spans(rules, text))


@pytest.mark.parametrize(("text", "word"), [
    ("lives in fear of falling again", "fear"),
    ("came from home by ambulance", "home"),
    ("sputum from trach thick and tan", "trach"),
    ("weaned from pressors overnight", "pressors"),
    ("lives with fear in her heart", "heart"),
])
def test_town_negatives(rules: Pipeline, text: str, word: str) -> None:
    assert not _touched(rules, text, word)


@pytest.mark.parametrize(("text", "value"), [
    ("Name: Tobiah Renquist   MR#: 731-40-228", "731-40-228"),
    ("MR #: 6620913", "6620913"),
    ("Unit No: 57-33-901", "57-33-901"),
    ("MR No. 4471092 on the label", "4471092"),
])
def test_record_numbers_with_hyphens(rules: Pipeline, text: str, value: str) -> None:
    assert (value, "ID.MEDICALRECORD") in _spans(rules, text)


@pytest.mark.parametrize(("text", "value"), [
    ("Contacts: (h) 555-0182", "555-0182"),
    ("Niece (c): 555 0164, call after 5", "555 0164"),
    ("Best number 555-0127 (w) weekdays.", "555-0127"),
])
def test_phone_line_markers(rules: Pipeline, text: str, value: str) -> None:
    assert (value, "CONTACT.PHONE") in _spans(rules, text)


@pytest.mark.parametrize(("text", "word"), [
    ("MR no change on repeat echo, EF 55%.", "no"),
    ("MRN: 03-14-2021 admission", "03-14-2021"),  # a calendar date after the label stays a date, not an ID
    ("UO 600-800 (h) since noon", "600-800"),
    ("dose 250-500 (c) q6h", "250-500"),
])
def test_record_and_phone_negatives(rules: Pipeline, text: str, word: str) -> None:
    assert not any(lab.startswith(("ID", "CONTACT")) for t, lab in _spans(rules, text) if word in t)


@pytest.mark.parametrize(("text", "want"), [
    ("CHILDREN ARE EDITH, WALTER AND HAROLD JR. FAMILY AT BEDSIDE.", "HAROLD JR"),
    ("SEEN BY DR QUENBY SR. PLAN UNCHANGED.", "QUENBY SR"),
    ("Spoke with Dale Vantreese Sr. He agrees.", "Dale Vantreese Sr"),
    ("Son is Lane Sr. He visits daily.", "Lane Sr"),
])
def test_suffix_before_full_stop(rules: Pipeline, text: str, want: str) -> None:
    assert _covered(rules, text, want)


@pytest.mark.parametrize(("text", "word"), [
    ("HR 80S SR. BP STABLE.", "SR"),
    ("RHYTHM SR, NO ECTOPY", "SR"),
])
def test_rhythm_sr_is_no_suffix(rules: Pipeline, text: str, word: str) -> None:
    assert not _touched(rules, text, word)


@pytest.mark.parametrize("text", [
    "SAH (Hunt-Hess 3, Fisher 3), EVD open at 10.",
    "HUNT HESS 2, FISHER GRADE 4 ON ADMISSION",
    "GCS 14 (Glasgow 14), Ranson 4 on day 2.",
    "Cirrhosis, Child-Pugh B, MELD 18.",
    "Airway Mallampati 2, Cormack-Lehane 1.",
    "Killip class II, modified Rankin 4 at baseline.",
])
def test_grading_scales_are_no_names(rules: Pipeline, text: str) -> None:
    assert _spans(rules, text) == []


@pytest.mark.parametrize(("text", "name"), [
    ("Discussed with Dr. Fisher, will repeat CT.", "Fisher"),
    ("Son Wells 3 visits weekly.", "Wells"),  # no grade: a person after a kinship word
])
def test_scale_words_as_names_stay(rules: Pipeline, text: str, name: str) -> None:
    assert _covered(rules, text, name)


@pytest.mark.parametrize(("text", "name", "title"), [
    ("Chaplain Br. Ignatius visited, family grateful.", "Ignatius", "Br"),
    ("chaplain fr. bartholomew prayed with family", "bartholomew", "fr"),
])
def test_religious_title_is_not_the_name(rules: Pipeline, text: str, name: str, title: str) -> None:
    assert _covered(rules, text, name)
    assert not _touched(rules, text, title + ".")


@pytest.mark.parametrize("text", [
    ("Rm 1 - " + "Ab " * 5000 + ":\n") * 3,
    "lives " + "ab " * 20000 + "in springfield",
    "from " * 20000 + "springfield",
    "Hunt-Hess " * 20000 + "3",
    ("Ab " * 3000 + "VNA ") * 20,
    "on " + "Ab " * 20000 + "Street",
])
def test_fix3_time_budget(rules: Pipeline, text: str) -> None:
    t0 = time.process_time()
    _spans(rules, text)
    assert time.process_time() - t0 < 5.0
