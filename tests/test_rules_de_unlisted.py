"""German letters (issue 16): names and places that no list holds, found by the letter's own cues
(:class:`clinanon.detect.rules.letters.GermanLetterCueRecognizer`, the address block's name line, hyphenated
streets). Every name, town and hospital here is invented (no gazetteer holds them; no string of the GraSCCo
letters); expected surfaces written by hand."""

from __future__ import annotations

import time
from functools import cache

import pytest

from clinanon.config import Config
from clinanon.detect.rules.detector import RulesDetector
from clinanon.detect.rules.letters import GermanLetterCueRecognizer, _de_word_ok
from clinanon.document import Document
from clinanon.pipeline import Pipeline


@cache
def _nlp() -> Pipeline:
    return Pipeline(Config.from_dict({"language": "de", "label_scheme": "canonical", "detectors": {"use": ["rules"]}}))


def _found(text: str) -> list[tuple[str, str]]:
    doc = next(iter(_nlp().pipe([Document("t", text)], deidentify=False)))
    assert isinstance(doc, Document)
    return [(text[s.start:s.end], s.label) for s in doc.spans]


def _covered(text: str, surface: str) -> bool:
    """Whether every character of ``surface`` (its first occurrence) lies inside a resolved span."""
    a = text.index(surface)
    doc = next(iter(_nlp().pipe([Document("t", text)], deidentify=False)))
    assert isinstance(doc, Document)
    return all(any(s.start <= i < s.end for s in doc.spans) for i in range(a, a + len(surface)) if not
               text[i].isspace() and text[i] not in ",")


def test_invented_words_are_no_common_words() -> None:
    for w in ("Treaculey", "Zoekolow", "Brimoutt", "Wafeloson"):
        assert _de_word_ok(w, strict=True)
    for w in ("Leber", "Aufnahme", "Kinderärztin", "Fallnummer", "Dermatologie", "Mamma"):
        assert not _de_word_ok(w, strict=True)


# --- patients ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "name"), [
    ("Wir berichten über Ihre Patientin Treaculey Chuvais (* 4.4.1997), die sich", "Treaculey Chuvais"),
    ("wir berichten über den Patienten KOUPUTT, Driprurean, Fallnummer: 100200", "KOUPUTT, Driprurean"),
    ("wir berichten über Frau WOUCESON, Laistour, Fall-Nr. 12345, *3.3.1950", "WOUCESON, Laistour"),
    ("Ambulanz vom 2.3.2024\nPatientin: Thocien, Focreson geb. am 1.10.1975\n", "Thocien, Focreson"),
    ("Definitiver Arztbrief\nZimeley Kamithien * 13.08.1948\n2021-05-27", "Zimeley Kamithien"),
    ("Brimoutt, Wafeloson, geb. am 03.02.1966\n\nSehr geehrte Frau Kollegin,", "Brimoutt, Wafeloson"),
    ("Sie ist die Tochter von Frau Zoekolow geb. Drausiell und lebt allein.", "Drausiell"),
])
def test_patient_names_by_cue(text: str, name: str) -> None:
    assert _covered(text, name)


@pytest.mark.parametrize("text", [
    "Wir konnten Herrn W. am 22.12.2033 in gutem Zustand entlassen.",
    "AUFNAHMEBEURTEILUNG:\nFrau I. ist eine 82-jährige Patientin in gutem AZ.",
])
def test_initial_after_herr_frau(text: str) -> None:
    init = "W." if "W." in text else "I."
    assert (init, "NAME.PATIENT") in _found(text)


def test_initial_that_starts_a_sentence_before_a_verb() -> None:
    assert ("K.", "NAME.PATIENT") in _found("Erstvorstellung:\nK. wird vorgestellt mit Rückenschmerzen.")


def test_name_line_of_an_address_block() -> None:
    text = "Zur Vorlage bei Ihrem Arzt\n\nGouther Sacrouson\nBirkenweg 3a\nA-3337 Obertrauling\n"
    assert ("Gouther Sacrouson", "NAME.PATIENT") in _found(text)


# --- clinicians --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "name"), [
    ("24.09.24 Erstvorstellung Orthopädie PD Dr. Biedeson: Befund unklar", "Biedeson"),
    ("Ein Termin in der Praxis von Dr. Dipastis wird vereinbart.", "Dipastis"),
    ("Geschrieben von Feadrun Braikiegrus\n", "Feadrun Braikiegrus"),
    ("Untersuchung durch: Priv.Doz. Dr.in Cheler Teaheasis-Braun\n", "Cheler Teaheasis-Braun"),
    ("Ass. Dr. Wotrin Kaleas\nAssistenz: DGKS Pudrutt Cheacrear\n", "Pudrutt Cheacrear"),
    ("Mit freundlichen Grüßen\nPrim. DDr. Zouvaitt Tromer\n", "Zouvaitt Tromer"),
    ("Mit freundlichen Grüßen\nDr. med. univers. Trumoupir Prerealey\n", "Trumoupir Prerealey"),
    ("Mit freundlichen kollegialen Grüßen\n\nPriv. Doz. Crifoley Pieshin\n", "Crifoley Pieshin"),
])
def test_clinician_names_after_titles_and_staff_cues(text: str, name: str) -> None:
    assert _covered(text, name)


@pytest.mark.parametrize("text", [
    "Dr. Med. univ. Befund folgt.",  # a title in capitals, no name
    "FA Innere Medizin, OA Fraktur versorgt.",
    "Pat. V. a. Appendizitis, Pat. Cholezystektomie geplant.",
    "Base Excess (BE) -2, Broteinheiten (BE) 4.",
    "Sehr geehrte Frau Kollegin, sehr geehrter Herr Kollege,",
    "Assistenz: keine. Untersuchung durch: Sonographie-Team.",
])
def test_clinical_words_after_cues_are_no_names(text: str) -> None:
    assert [x for x in _found(text) if x[1].startswith(("NAME", "LOCATION"))] == []


@pytest.mark.parametrize("text", [
    "Herr Oberarzt hat den Befund mit der Patientin besprochen.",
    "Herr Primar hat visitiert.",
    "Frau Oberärztin hat visitiert, Herr Assistenzarzt auch.",
    "Frau Kollegin, vielen Dank für die Zuweisung.",
    "PD Leber mit neuen Läsionen, PD Lunge stabil.",  # progressive disease; "Leber" is a listed surname too
    "Befund: PD Leber, SD Lunge.",
])
def test_roles_after_honorifics_and_organs_after_pd_are_no_names(text: str) -> None:
    assert [x for x in _found(text) if x[1].startswith("NAME")] == []


@pytest.mark.parametrize(("text", "names", "not_named"), [
    ("Herr Primar Zoekolow hat operiert.", ["Zoekolow"], ["Primar"]),
    ("Mit freundlichen Grüßen\nPrim. Zoekolow\n", ["Zoekolow"], ["Prim"]),
    ("Mit freundlichen Grüßen\n\nChefärztin Prof. Treaculey Chuvais\n", ["Treaculey Chuvais"], ["Chefärztin"]),
    # a tab or a role title ends a name: the next signature starts there
    ("Mit freundlichen Grüßen\n\nProf. Dr. Treaculey Chuvais\tProf. Dr. Wafeloson Kamithien\nChefarzt",
     ["Treaculey Chuvais", "Wafeloson Kamithien"], ["Prof"]),
    ("Mit freundlichen Grüßen\nDr.med. Treaculey Chuvais\t\tProf. Dr.Dr. Wafeloson Kamithien\n",
     ["Treaculey Chuvais", "Wafeloson Kamithien"], ["Prof"]),
    ("Mit freundlichen Grüßen\n\nDr. Treaculey Chuvais OA Dr. Wafeloson Kamithien\n",
     ["Treaculey Chuvais", "Wafeloson Kamithien"], ["OA"]),
])
def test_signature_titles_and_roles_stay_outside_names(text: str, names: list[str], not_named: list[str]) -> None:
    found = [w for w, lab in _found(text) if lab.startswith("NAME")]
    for n in names:
        assert n in found, n
    assert not any(r in w for w in found for r in not_named), found


# --- places and practices -----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "surfaces"), [
    ("Albert Proudous, * 3.2.1959, wohnhaft in 9020 Trealafu, Leawealey-Stupus-Gasse 21\n",
     ["9020", "Trealafu", "Leawealey-Stupus-Gasse 21"]),
    ("Herrn Cahai Drageson, geb. am 23. 7. 1951 aus Keazotott (ZH), der sich", ["Keazotott (ZH)"]),
    ("wohnhaft Heveadre. 8, 47809 Tethur, der sich vom", ["Heveadre. 8"]),
    ("Befund elektronisch an Praxis Drevomaley Tajufur versendet!", ["Praxis Drevomaley Tajufur"]),
    ("In einem auswärts (Praxis Dr. Karafeall) durchgeführten CT", ["Praxis Dr. Karafeall"]),
    ("Trigasheson Wuwothoson, Abt. für Dermatologie\nAmbulanz vom 1.2.2024", ["Trigasheson Wuwothoson"]),
    ("Thiehoson Magilaitt, Epilepsie-Einheit\nENTLASSUNGSBERICHT", ["Thiehoson Magilaitt"]),
    ("VIBREADREALEY NOUVOZO\n\nKlinik und Poliklinik für Kinderheilkunde\n", ["VIBREADREALEY NOUVOZO"]),
    ("Weawie der barmherzigen Schwestern St. Dietresteas\nKlinik für Chirurgie\n",
     ["Weawie der barmherzigen Schwestern St. Dietresteas"]),
])
def test_places_practices_and_hospital_heads(text: str, surfaces: list[str]) -> None:
    for s in surfaces:
        assert _covered(text, s), s


@pytest.mark.parametrize("text", [
    "Definitiver Arztbrief\nSehr geehrte Frau Kollegin,",
    "Innere Medizin, Abteilung für Kardiologie\nSehr geehrte Kollegen,",
    "Kurzbericht Notaufnahme\nSehr geehrte Damen und Herren,",
    "Die Leber, Abt. für Sonographie, ohne Befund.",
])
def test_letter_heads_of_common_words_are_no_hospitals(text: str) -> None:
    assert [x for x in _found(text) if x[1].startswith(("NAME", "LOCATION"))] == []


@pytest.mark.parametrize("text", [
    "PD Leber mit neuen Läsionen, PD Lunge stabil.",  # progressive disease; "Leber" is a listed surname too
    "Herr Oberarzt hat den Befund besprochen.",
    "Pat. Sigmaresektion geplant, Patient Beschwerdefrei.",
    "wohnhaft in 2000 Metern Höhe",
    "Ibuprofen 400 * 3 täglich, Leber geb. ohne Befund",
])
def test_cue_recognizer_rejects_common_and_clinical_words(text: str) -> None:
    assert GermanLetterCueRecognizer().analyze(text) == []


# --- time budgets ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("chunk", [
    "Trealafu ", "TREALAFU ", "Dr. ", "Dr. Prof. PD ", "Herrn Zoekolow, ", "Patientin: Ab, ", "* 1 ", "geb. ",
    "wohnhaft in 1234 Ab ", "aus Ab (ZH) ", "Praxis Dr. ", "Ab Cd, Abt. ", "W. ", "Geschrieben von ",
])
def test_german_letter_cues_linear_on_adversarial_input(chunk: str) -> None:
    text = chunk * 20_000
    rec = GermanLetterCueRecognizer()
    t0 = time.process_time()
    rec.analyze(text)
    rec.analyze(text.replace(" ", "\n"))
    assert time.process_time() - t0 < 10.0


def test_german_rules_linear_on_long_capitalised_lines() -> None:
    text = ("Zoekolow Brimoutt Wafeloson " * 30_000) + "\n" + ("Herr Zoekolow, Brimoutt * 1.1.1950\n" * 2_000)
    t0 = time.process_time()
    RulesDetector("de").analyze(text)
    assert time.process_time() - t0 < 30.0
