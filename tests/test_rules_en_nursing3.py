"""English ICU nursing notes, the round after the third blind set (``tests/data/en-notes-3``): month/day dates after
verbs of onset and after "to start", dates of the same days that corroborate each other, internal extensions
("x4-4172", "charge x3388"), signatures that end a note ("-- ellie", "--kp", "... 0600. jm",
"GJ RN", "A. Roe RN CM"), kinship words that are not names ("SON TERRENCE", "Dtr lives on"), titles with their
dot ("Br. Tomasz"), one unlisted word after a comma that is no name of a list, dwellings that are no town,
countries after a place cue (kept under ``hipaa``) and organisation heads (counselling, supply, freight, oncology).

Every text here is written for the test (no string comes from a corpus or from the blind notes)."""

from __future__ import annotations

import time

import pytest

from _rules import found as _found
from _rules import rules_pipeline
from clinanon.detect.rules import addresses, care_sites, contacts, dates, names, organizations
from clinanon.document import Document
from clinanon.pipeline import Pipeline


@pytest.fixture(scope="module")
def nlp() -> Pipeline:
    return rules_pipeline("en")


@pytest.fixture(scope="module")
def hipaa() -> Pipeline:
    return rules_pipeline("en", "hipaa")


def _of(nlp: Pipeline, text: str, prefix: str) -> list[str]:
    return [t for t, lab in _found(nlp, text) if lab.startswith(prefix)]


# --- dates ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "date"), [
    ("Per EMS, SOB began 9/27 while mowing, came in by car.", "9/27"),  # a verb of onset; "SOB" no measure here
    ("abd pain, onset 2/14 after meal", "2/14"),
    ("Elmwood VNA to start 8/19, RN for dressing changes.", "8/19"),  # "to start": a verb's "to", no setting
    ("COPY OF CULTURES FROM 6/6. FOLEY REMAINS (CHANGED 6/8).", "6/6"),  # score-shaped, dated by each other
    ("COPY OF CULTURES FROM 6/6. FOLEY REMAINS (CHANGED 6/8).", "6/8"),
])
def test_month_day_dates_with_verb_cues(nlp: Pipeline, text: str, date: str) -> None:
    assert date in _of(nlp, text, "DATE")


@pytest.mark.parametrize("text", [
    "PSV weaned to 5/5 this am, tol well.",
    "strength 4/5 bilat uppers, pulses 2/4 pedal, grips 4/6.",
    "changed to PS 8/5 at 1400, RR 18.",
    "pain 4/6 after dilaudid, was 6/6 before.",
    "plan to wean to 10/5 in am",
    "D5 1/2 NS at 100/hr, to start 1/2 strength TF",
])
def test_scores_settings_and_fractions_stay(nlp: Pipeline, text: str) -> None:
    assert _of(nlp, text, "DATE") == []


# --- extensions -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "number"), [
    ("numbers: resident pager 6-4402, charge x3381.", "x3381"),  # the "x" in the span, as the PhysioNet gold has it
    ("Will cont to follow.\nB. Quillan RN CM x4-4193", "x4-4193"),
    ("Questions to CM Tess x6-2288.", "x6-2288"),  # the shape of an internal extension
    ("will follow.\nh. marlowe, licsw x5517", "x5517"),
])
def test_extensions(nlp: Pipeline, text: str, number: str) -> None:
    assert number in _of(nlp, text, "CONTACT")


@pytest.mark.parametrize("text", ["wound 3 cm x4 cm, packed", "abx x10 days", "repeat lytes x2, K 3.9",
                                  "sacral wound 4 x 3 x 1 cm", "desk staff aware, charge nurse updated"])
def test_no_extension_without_its_shape_or_cue(nlp: Pipeline, text: str) -> None:
    assert _of(nlp, text, "CONTACT") == []


# --- signatures that end a note ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "name"), [
    ("plan: f/u am labs.\n-- maddie", "maddie"),
    ("likely d/c tomorrow.\n--rv", "rv"),
    ("voiding trial in am. --dq", "dq"),
    ("will reassess restraints at 0600. wq", "wq"),  # initials alone after the last sentence
    ("NEXT DOSE DUE 1800. QJ RN", "QJ"),  # initials and a credential
    ("BELONGINGS W/ PT.\n-MARY BETH T.", "MARY BETH T"),
    ("Will cont to follow.\nB. Quillan RN CM x4-4193", "B. Quillan"),  # two credentials, the initial kept
    ("if secretions improve.\nT. Okorafor, RRT  beeper 2-6690", "T. Okorafor"),
])
def test_end_of_note_signatures(nlp: Pipeline, text: str, name: str) -> None:
    assert name in _of(nlp, text, "NAME")


@pytest.mark.parametrize("text", [
    "plan:\n- npo\n- abx",  # a bullet list, not a signature
    "cont to monitor. - cxr",
    "pt is DNR. RN",
    "cont current plan. ok",
    "family updated. Will f/u.",
    "plan:\n- Lasix",
    "REPORT GIVEN TO FLOOR. VSS.",  # an abbreviation ends the note
    "afebrile, will cont abx. vss",
])
def test_note_ends_that_are_no_signature(nlp: Pipeline, text: str) -> None:
    assert _of(nlp, text, "NAME") == []


# --- names: lists, kinship words, titles ------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "not_name"), [
    ("r fem sheath pulled by fellow dr. vantongeren, hemostasis w/ 20 min pressure.", "hemostasis"),
    ("DR OYEBANJI AWARE, EXTUBATED 1130 TO 50% COOL NEB.", "EXTUBATED"),
    ("CPR BY SON DESHAWN, ROSC AFTER 2 SHOCKS", "ROSC"),
])
def test_one_unlisted_word_after_a_comma_is_no_listed_name(nlp: Pipeline, text: str, not_name: str) -> None:
    names = _of(nlp, text, "NAME")
    assert names and not any(not_name in n for n in names)


@pytest.mark.parametrize(("text", "name"), [
    ("Seen by Drs Pemberly, Ostrowicz and Lee today.", "Ostrowicz"),
    ("daughters anneli, okonkwo and mary at bedside", "okonkwo"),
])
def test_names_of_lists_stay(nlp: Pipeline, text: str, name: str) -> None:
    assert name in _of(nlp, text, "NAME")


@pytest.mark.parametrize(("text", "name"), [
    ("BYSTANDER CPR BY SON DESHAWN, ROSC AFTER 2 SHOCKS", "DESHAWN"),
    ("wife rosa, son okonkwo.", "okonkwo"),
    ("Pt's wife Opal and chaplain Br. Anselmo present.", "Anselmo"),
])
def test_kin_and_titles_stay_outside_the_name(nlp: Pipeline, text: str, name: str) -> None:
    names = _of(nlp, text, "NAME")
    assert name in names
    assert not any(w in n.casefold().split() for n in names for w in ("son", "br", "br."))


def test_a_surname_son_after_a_title_stays(nlp: Pipeline) -> None:
    assert "Son" in _of(nlp, "Spoke with Dr. Son about the plan.", "NAME")


@pytest.mark.parametrize("text", ["Clive here, DNR/DNI confirmed. Dtr lives on Sycamore Ave in town.",
                                  "Dtr states pt was confused at home. SIL called."])
def test_kinship_abbreviations_are_no_names(nlp: Pipeline, text: str) -> None:
    assert not any(n.casefold() in ("dtr", "sil") for n in _of(nlp, text, "NAME"))


@pytest.mark.parametrize(("text", "name"), [
    ("anesthesia (dr alvarado-kress) paged, abg 7.36/48/71.", "alvarado-kress"),  # double-barrelled, lower case
    ("md called at home. wife june called at 0500, wants to come in.", "june"),  # a month, then a finite verb
    ("wife april came in at noon", "april"),
    ("Wife Hope made aware by phone at 1450.", "Hope"),
    ("Plan: spoke w/ ortho res Obiageli, will see in am.", "Obiageli"),  # "res": a resident
    ("Stroke team: Dr. Kaczmarczyk, NP Winters.", "Winters"),  # a listed surname that is also a word, after NP
    ("report called to priya rn on the floor at 1515.", "priya"),  # a listed first name before "rn"
])
def test_names_after_cues(nlp: Pipeline, text: str, name: str) -> None:
    assert name in _of(nlp, text, "NAME")


@pytest.mark.parametrize("text", ["wife hope to visit tomorrow", "son will call tonight", "daughter may come",
                                  "wife june 3rd visit", "dr follow-up in am", "sats improved, res improved",
                                  "O2 4L NP GOOD SATS", "NP rounds done", "NP Note: pt seen",
                                  "Lungs coarse. Noted congested np cough. Pt encouraged to cough.",  # nonproductive
                                  "report given to oncoming rn", "pt seen by charge rn, ok"])
def test_words_after_cues_stay(nlp: Pipeline, text: str) -> None:
    assert _of(nlp, text, "NAME") == []


def test_an_hour_after_until_is_no_year(nlp: Pipeline) -> None:
    assert _of(nlp, "partner is HCP, here until 2000 with his mother.", "DATE") == []
    assert "2004" in _of(nlp, "worked as a welder until 2004, then retired", "DATE")


# --- places -----------------------------------------------------------------------------------------------------

def test_a_dwelling_is_no_town(nlp: Pipeline) -> None:
    assert _of(nlp, "pt is 82 yo widow, lives alone in senior housing.", "LOCATION") == []
    assert _of(nlp, "lives in public housing with son", "LOCATION") == []
    assert "white marsh" in _of(nlp, "lives alone in white marsh with dog", "LOCATION")


def test_a_country_after_a_place_cue_is_kept_under_hipaa(hipaa: Pipeline) -> None:
    text = "Pt HOH. Pt came from Portugal in 1950. Moved from Worcester to be near dtr."
    locs = _of(hipaa, text, "LOCATION")
    assert "Portugal" not in locs
    assert "Worcester" in locs


@pytest.mark.parametrize(("text", "org"), [
    ("followed by Dr. Imbert at Larkspur Oncology.", "Larkspur Oncology"),
    ("Funeral home: Mahoney & Sons. Body to morgue.", "Mahoney & Sons"),
    ("home O2 from Quillfeather Medical Supply", "Quillfeather Medical Supply"),
    ("drives for Brackwater Freight, nights", "Brackwater Freight"),
])
def test_organisation_heads(nlp: Pipeline, text: str, org: str) -> None:
    assert org in _of(nlp, text, "LOCATION")


@pytest.mark.parametrize("text", ["seen by Hematology Oncology today", "Pediatric Oncology consulted",
                                  "referred to Outpatient Counseling", "needs Medical Supply order"])
def test_generic_services_are_no_organisations(nlp: Pipeline, text: str) -> None:
    assert _of(nlp, text, "LOCATION") == []


# --- time budgets -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "ann lee rn cm " * 20_000,
    "-- " + "ab " * 50_000,
    "x4-4172 " * 50_000,
    "Kearney & Sons " * 10_000,
    "dr. roe, " * 15_000 + "hemostasis",
    "SON TERRENCE, " * 20_000,
    "began 11/3 " * 20_000,
    ("ANN LEE, RN CM   x" + "1" * 50 + "\n") * 500,
    "lives alone in senior " * 20_000,
    "came from Ireland " * 20_000,
    "cultures from 4/4 " * 20_000,
])
def test_time_budget(text: str) -> None:
    """The rule families changed here (names, contacts, dates, organisations, care sites, places) on long runs of
    their cue words: bounded work (no catastrophic backtracking)."""
    doc = Document(id="t", text=text)
    recs = [*names.recognizers("en"), *contacts.recognizers("en"), *dates.recognizers("en"),
            *organizations.recognizers("en"), *care_sites.recognizers("en"), *addresses.recognizers("en")]
    t0 = time.process_time()
    for rec in recs:
        rec.detect(doc)
    assert time.process_time() - t0 < 10.0


# --- streets without a number on more types, the town after them, lower-case months after since / until ---------

@pytest.mark.parametrize(("text", "street", "town"), [
    ("delivery to son's home on Orchard Lane. Son's cell", "Orchard Lane", None),
    ("lives alone in a walk-up on Drumlin St in Eastfield. Has been", "Drumlin St", "Eastfield"),
    ("pt was found on Memorial Way, Westbrook.", "Memorial Way", "Westbrook"),
])
def test_street_without_number_and_town_after(text: str, street: str, town: str | None) -> None:
    got = _found(rules_pipeline("en", "hipaa"), text)
    assert (street, "LOCATION.STREET") in got
    if town is not None:
        assert (town, "LOCATION.CITY") in got


@pytest.mark.parametrize("text", ["stuck on Their Way in the hall", "merged into the left lane"])
def test_determiners_and_lanes_are_no_streets(text: str) -> None:
    assert not [t for t, lab in _found(rules_pipeline("en", "hipaa"), text) if lab.startswith("LOCATION")]


@pytest.mark.parametrize(("text", "month"), [("2 falls since jan. discussed options", "jan"),
                                             ("no ETOH since october per wife", "october")])
def test_lower_case_month_after_since(text: str, month: str) -> None:
    assert (month, "DATE") in _found(rules_pipeline("en", "hipaa"), text)


@pytest.mark.parametrize("text", ["on lasix since mar, stable", "UO down since dec in rate", "ok since may be"])
def test_lower_case_mar_dec_may_stay_words(text: str) -> None:
    assert not [t for t, lab in _found(rules_pipeline("en", "hipaa"), text) if lab == "DATE"]
