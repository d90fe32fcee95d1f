"""English names and places that no list holds, found by their context alone (issue 16: held-back patients bring
names and places whose surface never occurs in the dev notes). The names here are invented; none is in the
gazetteers or the lexicons."""

from __future__ import annotations

import pytest

from _rules import rules_pipeline
from clinanon.detect.rules.care_sites import CareSiteRecognizer
from clinanon.detect.rules.names import CaselessCueRecognizer
from clinanon.document import Document
from clinanon.pipeline import Pipeline


@pytest.fixture(scope="module")
def rules() -> Pipeline:
    return rules_pipeline("en")


def _found(nlp: Pipeline, text: str) -> list[tuple[str, str]]:
    out = next(iter(nlp.pipe([Document("t", text)], deidentify=False)))
    return [(text[s.start:s.end], s.label.split(".")[0]) for s in out.spans]


@pytest.mark.parametrize(("text", "want", "label"), [
    ("temps throughout night md vostrikova aware tx with tylenol", "vostrikova", "NAME"),
    ("fluid bolus given w/ minimal effect. HO Brandvold notified, no other interventions", "Brandvold", "NAME"),
    ("pt pronounced at 1840 by HO Trevanian. Mother consented to post.", "Trevanian", "NAME"),
    ("wean for systolic bp 120 to 135 per d quarrington. pacing wires attached", "d quarrington", "NAME"),
    ("r dp difficult to doppler. zofia brandvold aware. < 3 sec cap refill", "zofia brandvold", "NAME"),
    ("ci<2.0. tamsin o'quarrie np aware. 1u prbc given.", "tamsin o'quarrie", "NAME"),
    ("Also, I spoke with Ilsabet Vostrikova, who will meet with family", "Ilsabet Vostrikova", "NAME"),
    ("notified wound nurse, Ilsabet Vostrikova, of decubitus", "Ilsabet Vostrikova", "NAME"),
    ("possible plan to extubate tomorrow. t. brandvold rrt\n", "t. brandvold", "NAME"),
    ("resides at rehab.\n\nilsabet quarrington, rn\n", "ilsabet quarrington", "NAME"),
    ("social: daughters ilsabet and zofia in to visit today", "zofia", "NAME"),
    ("SOCIAL: SISTER & BRANDVOLD (SIGNIFICANT OTHER) INTO VISIT", "BRANDVOLD", "NAME"),
    ("ilsabet quarrington is a 70 yr old female adm with cp", "ilsabet quarrington", "NAME"),
])
def test_unlisted_names_by_context(rules: Pipeline, text: str, want: str, label: str) -> None:
    assert (want, label) in _found(rules, text)


@pytest.mark.parametrize(("text", "want", "label"), [
    ("RI AMI, to BRANDVOLD cath lab, 3VD", "BRANDVOLD", "LOCATION"),
    ("He was recently dc'd from QUARRINGTON TCU with prolonged stay", "QUARRINGTON", "LOCATION"),
    ("PT WAS TX TO TREVANIAN FOR FOLLOW UP CARE.", "TREVANIAN", "LOCATION"),
    ("Social: Son from Vostrikova called last eve.", "Vostrikova", "LOCATION"),
    ("PHONE CONVERSATION WITH PT'S SON IN QUARRINGTON, THE DECISION", "QUARRINGTON", "LOCATION"),
    ('DAUGHTER ("FROM BRANDVOLD") AND SON IN TO VISIT', "BRANDVOLD", "LOCATION"),
    ("he is an rn, works at brandvold quarrington. pt also has a dtr", "brandvold quarrington", "LOCATION"),
    ("knows he is in TREVANIAN, that it is the afternoon", "TREVANIAN", "LOCATION"),
])
def test_unlisted_places_by_context(rules: Pipeline, text: str, want: str, label: str) -> None:
    assert (want, label) in _found(rules, text)


@pytest.mark.parametrize("text", [
    "md notifed. pt extubatd at 1400. md aware. ho aware of k 3.2",
    "arf illustrated by a creatnine of 4",
    "Blood cxs sent from pheresis line. sats sent from RA and distal port. Spec sent to BB on hold.",
    "son in law here. daughter in to visit. family in room. FAMILY IN PATIENT'S ROOM EARLY AM.",
    "pt tx to floor. went to OR. transferred to MICU. works at home. son from out of town.",
    "QTC COMING BACK DOWN TO NORM. pt to cath lab. in ER with family. dc'd from ICU.",
    "Pt is a 70 yo male. He is a 45 year old. Patient is a 60 yo.",
    "pain (so far). knows he is in pain. rn at bedside. pt alert.",
])
def test_routine_text_stays(rules: Pipeline, text: str) -> None:
    assert [f for f in _found(rules, text) if f[1] in ("NAME", "LOCATION")] == []


def test_region_label_for_relatives_abroad() -> None:
    spans = CareSiteRecognizer("en").analyze("family in the dominican republic. moving from Florida.")
    labels = {s.label for s in spans}
    assert labels == {"LOCATION.COUNTRY", "LOCATION.STATE"}


def test_unlisted_needs_two_words_or_strong_context() -> None:
    r = CaselessCueRecognizer("en")
    assert r._unlisted(["zofia", "brandvold"])
    assert r._unlisted(["t.", "brandvold"])
    assert not r._unlisted(["brandvold"])
    assert r._unlisted(["brandvold"], single=True)
    assert not r._unlisted(["notifed", "brandvold"])  # a misspelt verb is no name
    assert not r._unlisted(["cardiology", "brandvold"])  # a service


@pytest.mark.parametrize(("text", "years"), [
    ("PMH: Recently diagnosed NIDDM. 09 PTCA to LCX and ramus. 13 stent to LCX.", ["09", "13"]),
    ("PMH: CAD: NQWMI 13. HTN. s/p MI 95, CABG x3 in 98.", ["13", "95", "98"]),
    ("HR 95, MI 40%. received 2 stents. stent 18 mm. MI 2 days ago. CABG 3 vessels.", []),
])
def test_history_years(rules: Pipeline, text: str, years: list[str]) -> None:
    """A history's bare two-digit years next to the event they date ("s/p MI 95", "09 PTCA"), not sizes or counts."""
    assert [t for t, lab in _found(rules, text) if lab == "DATE"] == years


@pytest.mark.parametrize(("text", "want"), [
    ("daughter is flying in at 6am tomorrow from Quarrington.", ["Quarrington"]),
    ("DAUGHTER TO ARRIVE 9/9 @ APPROX 1900 FROM BRANDVOLD.", ["BRANDVOLD"]),
    ("QTC COMING BACK DOWN TO NORM. pt coming off vent from 100% to 50%. visiting hours from 8 to 10.", []),
])
def test_travel_from_a_town(rules: Pipeline, text: str, want: list[str]) -> None:
    """After a verb of travel, "from" a few words later names a town; times and dates may stand between."""
    assert [t for t, lab in _found(rules, text) if lab == "LOCATION"] == want


def test_a_date_between_the_movement_and_the_place(rules: Pipeline) -> None:
    """"admitted 10/19 from ...": a date or a time between the verb and its preposition (the default-path read-
    through left the hospital in clear)."""
    found = _found(rules, "Pt admitted 10/19 from Brandvold. transferred 4/16 to Quarrington. admitted 3 days ago "
                          "from home.")
    assert [t for t, lab in found if lab == "LOCATION"] == ["Brandvold", "Quarrington"]
