"""English relatives and places that no list holds, found by the context a clinician would read them by (issue 16,
brief en16b): "contact person (...)", "EMERGENCY CONTACT: ...", "... called from ...", "at ...'s house", "...
police", "... FIRE DEPT", "VNA of ...", a list of care sites ("screened by ... Rehab and ..."), a letter before a
hospital's name ("admitted to U ... ER"), and a chest tube or a scan that is no street ("2 MEDIASTINAL CT
DIVIDED"). Every name and place here is invented; none is in the gazetteers or the lexicons. Negatives: the same
contexts with ordinary words ("called from home", "at her daughter's house", "brought in by police")."""

from __future__ import annotations

import time

import pytest

from _rules import found as _found
from _rules import rules_pipeline
from clinanon.detect.rules.addresses import recognizers as address_recognizers
from clinanon.detect.rules.care_sites import CareSiteRecognizer
from clinanon.detect.rules.names import CaselessCueRecognizer
from clinanon.document import Document
from clinanon.pipeline import Pipeline


@pytest.fixture(scope="module")
def rules() -> Pipeline:
    return rules_pipeline("en", "hipaa")


def _covered(nlp: Pipeline, text: str, want: str) -> bool:
    """Whether every character of ``want`` (in ``text``) is inside a predicted span."""
    out = next(iter(nlp.pipe([Document("t", text)], deidentify=False)))
    a = text.index(want)
    return all(any(s.start <= i < s.end for s in out.spans) for i in range(a, a + len(want)))


@pytest.mark.parametrize(("text", "want"), [
    ("Attempt made to limit phone calls to one contact person (Bravoulet).", "Bravoulet"),
    ("EMERGENCY CONTACT: GRISTELLON, DAUGHTER.", "GRISTELLON"),
    ("primary contact: trabelle voskin, updated by phone", "trabelle voskin"),
    ("daughter (HCP) called from trelling, updated on plan.", "trelling"),
    ("Son phoned in from Quastborough, will visit tomorrow.", "Quastborough"),
    ('When asked where he was, stated "at trevolin black\'s house."', "trevolin black"),
    ("Pt found down at Drevasco's apartment by EMS.", "Drevasco"),
    ("Pt brought in by Dravington police after fall.", "Dravington"),
    ("BROUGHT IN BY CRELLEVILLE FIRE DEPT AFTER MVA.", "CRELLEVILLE"),
    ("Will be followed by VNA of Brantmoor after discharge.", "Brantmoor"),
    ("PT EVALUATED AND SCREENED BY GRAVELEY REHAB AND DROUTMORE. PT MAY BE TRANSFERED WHEN BED AVAILABLE.",
     "DROUTMORE"),
    ("Pt evaluated by Graveley Rehab and Droutmore Nursing Home.", "Droutmore"),
    ("PMHX: Pt admitted to U Vosett ER w/ ant ST elevations.", "U Vosett"),
    ("SON BREVAN FROM CRANDMOOR IN TO VISIT.", "CRANDMOOR"),
    ("daughter zovanna who lives in crandmoor called.", "crandmoor"),
    ("Pt resides at Kellsworth Manor.", "Kellsworth"),
    ("Pt is a retired teacher from Crandmoor High School.", "Crandmoor"),
    ("PCP is at Crandmoor Family Practice.", "Crandmoor"),
    ("Plan per Kovarski (cardiology fellow).", "Kovarski"),
    ("PCP Kovarski aware.", "Kovarski"),
    ("Covering MD: Kovarski.", "Kovarski"),
])
def test_context_finds_unlisted_relatives_and_places(rules: Pipeline, text: str, want: str) -> None:
    assert _covered(rules, text, want), _found(rules, text)


@pytest.mark.parametrize("text", [
    "Wife at bedside, updated on plan of care.",
    "Daughter called from home, updated.",
    "Son called from work and was updated. Daughter called from the ER.",
    "Pt was at her daughter's house when she fell. Found down at a friend's house.",
    "Stayed at his son's home for a week. Pt at the doctor's office yesterday.",
    "Brought in by police after fall. Fire department on scene. EMS called to the house.",
    "Brought in by ambulance from home.",
    "Emergency contact number in chart. Contact person is daughter. EMERGENCY CONTACT: DAUGHTER.",
    "Pt screened by rehab and PT, may go to rehab or home.",
    "Transferred to MICU and then to floor. Transferred to the floor, and family notified.",
    "Pt admitted to A fib clinic. Lives alone. Pt from home.",
    "VNA of the area to follow. Visiting nurse association of the county.",
    "daughter Rn at bedside. Daughter RN, will call back.",
    "Lives at home with wife. Resides at rehab. Son in to visit. Daughter in law at bedside.",
    "PATIENT EXTUBATED AT 1755. ADDED BOLUSES W ACTIVITY.",
    "DAUGHTER LIVES NEARBY, WILL VISIT TOMORROW.",
    "Shifted from S to S. Emotional support given.",
    "Pt went to medical school in the past. Daughter attends high school.",
    "PCP prophylaxis continued. Hx of PCP pneumonia. Pcp notified. CXR (portable chest) done.",
    "Social: Wife Visited Today.",
    "Pulm toilet, monitor MS. Restart lopressor when able. SEDATED WITH IV MS FOR INCISIONAL PAIN.",
])
def test_context_negatives(rules: Pipeline, text: str) -> None:
    assert _found(rules, text) == []


@pytest.mark.parametrize("text", [
    "PT PLACED ON 2 MEDIASTINAL CT DIVIDED FROM SINGLE CT.",
    "RECEIVED 3 UPRBCS. CT OUTPUT 40CC.",
    "1 pleural Ct draining serosang fluid",
])
def test_chest_tubes_and_scans_are_no_streets(rules: Pipeline, text: str) -> None:
    assert not [x for x in _found(rules, text) if x[1] == "LOCATION.STREET"]


@pytest.mark.parametrize(("text", "want"), [
    ("Lives at 14 Oak Ct with wife.", "14 Oak Ct"),
    ("lives at 22 Elm Ct apt 3 in Boston", "22 Elm Ct apt 3"),
    ("3 N. Elm St., Boston", "3 N. Elm St."),
])
def test_streets_with_ct_and_dotted_words_stay(rules: Pipeline, text: str, want: str) -> None:
    assert (want, "LOCATION.STREET") in _found(rules, text)


@pytest.mark.parametrize(("text", "want"), [
    ("Mrs. Kovarski at bedside.", "Kovarski"), ("MS. KOVARSKI CALLED.", "KOVARSKI"), ("Ms. Hope called.", "Hope"),
    ("Spoke with Mr. and Mrs. Tralloway.", "Tralloway"), ("Wife and lawyer (Wil Laberbera) aware.", "Wil Laberbera"),
])
def test_honorifics_and_capitals_still_find_names(rules: Pipeline, text: str, want: str) -> None:
    assert _covered(rules, text, want), _found(rules, text)


def test_inflections_of_lexicon_words_are_no_unlisted_names() -> None:
    from clinanon.detect.rules.names import _inflected

    assert _inflected("BOLUSES", "en") and _inflected("EXTUBATED", "en") and _inflected("Weaning", "en")
    assert not any(_inflected(w, "en") for w in ("Zefrina", "Hujunull", "Bravoulet", "Quenby", "Tralloway"))


def test_labels_of_the_new_contexts() -> None:
    sites = CareSiteRecognizer("en")
    cues = CaselessCueRecognizer("en")

    def labels(rec: CareSiteRecognizer | CaselessCueRecognizer, text: str) -> set[tuple[str, str]]:
        return {(text[s.start:s.end], s.label) for s in rec.analyze(text)}

    assert ("Dravington", "LOCATION.ORGANIZATION") in labels(sites, "brought in by Dravington police")
    assert ("trelling", "LOCATION.CITY") in labels(sites, "son called from trelling")
    assert ("florida", "LOCATION.STATE") in labels(sites, "son called from florida")  # a state: no PHI under HIPAA
    assert ("Bravoulet", "NAME.RELATIVE") in labels(cues, "one contact person (Bravoulet).")


def test_new_context_patterns_stay_linear() -> None:
    """Long runs of the cue words and of capitalised words: the new patterns are bounded (time budget)."""
    sites = CareSiteRecognizer("en")
    cues = CaselessCueRecognizer("en")
    streets = address_recognizers("en")
    texts = ["called from " * 20_000, "at Kovar Drell " * 20_000 + "'s house", "DRAVINGTON " * 50_000 + "POLICE",
             "Graveley Rehab and " * 20_000, "contact person " * 20_000, "VNA of " * 30_000,
             "2 MEDIASTINAL " * 20_000 + "CT DIVIDED", "U " * 100_000 + "Vosett ER"]
    for text in texts:
        t0 = time.process_time()
        sites.analyze(text)
        cues.analyze(text)
        for rec in streets:
            rec.detect(Document("t", text))
        assert time.process_time() - t0 < 10.0
