"""Gaps of the rules detector on German, Dutch and Swedish letters (issue 3), one block per fix.

1. one-word towns that are also common words ("Hoorn" ~ "hoorn", "Norden") need place context;
2. the common-word check compares folded forms ("Puno" ~ Spanish "puño");
3. German staff titles ("PD", "OA", "Stationsärztin") are not names, the name after them is; a region after a health
   insurer ("AOK Hessen") is no city;
4. hospital names: Swedish "<Town>s sjukhus" / "<Town> lasarett", German "Fachklinik <X>", Dutch acronyms.

Synthetic sentences only; expected spans written by hand (character offsets counted with ``str.index``).
"""

from __future__ import annotations

from functools import cache

import pytest

from clinanon.config import Config
from clinanon.detect.gazetteer import GazetteerDetector
from clinanon.detect.gazetteer_context import common_places, place_context
from clinanon.detect.rules.detector import RulesDetector
from clinanon.document import Document
from clinanon.pipeline import Pipeline
from clinanon.text import token_table


@cache
def _gaz(lang: str) -> GazetteerDetector:
    return GazetteerDetector(lang)


@cache
def _rules(lang: str) -> RulesDetector:
    return RulesDetector(lang)


def _spans(lang: str, text: str, label_prefix: str, source: str = "") -> set[tuple[int, int, str]]:
    """(start, end, surface) of the rules' candidates whose label starts with ``label_prefix`` (and whose source
    starts with ``source``)."""
    return {(s.start, s.end, text[s.start:s.end]) for s in _rules(lang).analyze(text)
            if s.label.startswith(label_prefix) and s.source.startswith(source)}


def _at(text: str, word: str, nth: int = 0) -> tuple[int, int, str]:
    """The ``nth`` occurrence of ``word`` in ``text`` as (start, end, word)."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(word, start + 1)
    return (start, start + len(word), word)


def _city_hits(lang: str, text: str) -> set[tuple[int, int, str]]:
    return {(s.start, s.end, text[s.start:s.end]) for s in _gaz(lang).analyze(text) if s.source == "gazetteer:city"}


# --- 1. towns that are common words need place context ---------------------------------------------------

def test_common_places_are_common_words_folded() -> None:
    assert {"hoorn", "doorn", "echt"} <= common_places("nl")
    assert "utrecht" not in common_places("nl") and "amsterdam" not in common_places("nl")
    assert "norden" in common_places("de") and "leipzig" not in common_places("de")  # German nouns do not count
    assert "lagan" in common_places("sv")
    assert "puno" in common_places("es")  # "puño", folded: the clash is found in both directions
    assert "madrid" not in common_places("es")


def test_dutch_town_that_is_a_word_needs_context() -> None:
    text = ("Hoorn van Ammon niet afwijkend.\n"
            "Opgenomen na val thuis in Hoorn.\n"
            "Kerkstraat 5, Hoorn\n"
            "1621 HB Hoorn\n"
            "Hoorn, 3 maart 2023\n"
            "Hoorn\n")
    found = _city_hits("nl", text)
    assert _at(text, "Hoorn", 0) not in found  # the sentence's first word: the anatomical horn
    assert {_at(text, "Hoorn", k) for k in range(1, 6)} <= found  # "in", after a comma, postcode, before a comma, alone


def test_dutch_town_that_is_no_word_needs_nothing() -> None:
    text = "Utrecht is de stad waar patiënt werkt."
    assert _city_hits("nl", text) == {_at(text, "Utrecht")}


def test_german_town_that_is_a_word_needs_context() -> None:
    text = "Im Norden der Station wurde umgebaut. Sie stammt aus Norden in Ostfriesland."
    assert _city_hits("de", text) == {_at(text, "Norden", 1)}


def test_swedish_town_that_is_a_word_needs_context() -> None:
    text = "Lagan säger att patienten får välja. Hon flyttade till Lagan i maj."
    assert _city_hits("sv", text) == {_at(text, "Lagan", 1)}


def test_spanish_accent_clash_puno() -> None:
    text = "Puño-percusión renal bilateral negativa. Puno es su ciudad natal; vive en Puno desde 1990."
    found = _city_hits("es", text)
    assert _at(text, "Puño") not in found  # a common word (folded "puno" is listed as a town)
    assert _at(text, "Puno", 0) not in found  # the town's name without context
    assert _at(text, "Puno", 1) in found  # "en Puno"


def test_place_context_after_postcode_and_town() -> None:
    text = "C/ La Dehesa s/n. 24411 Ponferrada León e-mail"
    table = token_table(text)
    i = next(k for k, w in enumerate(table.words) if w == "León")
    assert place_context(text, table, [w.casefold() for w in table.words], i, "es")
    assert _at(text, "León") in _city_hits("es", text)


# --- 3. German titles and insurers -----------------------------------------------------------------------

@cache
def _nlp(lang: str) -> Pipeline:
    return Pipeline(Config.from_dict({"language": lang, "label_scheme": "canonical", "detectors": {"use": ["rules"]}}))


def _pipeline(lang: str, text: str) -> set[tuple[int, int, str, str]]:
    doc = _nlp(lang).detect(Document("t", text))
    return {(s.start, s.end, text[s.start:s.end], s.label) for s in doc.spans}


def test_privatdozent_is_a_title_not_a_name() -> None:
    text = ("Klinik für Pneumologie\nChefärztin PD Dr. med. Carola Nussbaum\n\nMit kollegialen Grüßen\n\n"
            "PD Dr. med. C. Nussbaum\n")
    found = _pipeline("de", text)
    assert not any(surface == "PD" or surface.startswith("PD ") for _, _, surface, _ in found)
    start, end, _ = _at(text, "Carola Nussbaum")
    assert (start, end, "Carola Nussbaum", "NAME.DOCTOR") in found


@pytest.mark.parametrize("text, name", [
    ("Visite mit OA Tetzlaff. Weiter wie besprochen.", "Tetzlaff"),
    ("Rücksprache mit Oberarzt Tetzlaff erfolgt.", "Tetzlaff"),
    ("Aufklärung durch OÄ Wendland am Vortag.", "Wendland"),
    ("Stationsärztin Rieger hat die Angehörigen informiert.", "Rieger"),
    ("Befund mit FA Kowalczyk besprochen.", "Kowalczyk"),
])
def test_name_after_staff_title_is_a_doctor(text: str, name: str) -> None:
    assert _spans("de", text, "NAME.DOCTOR") == {_at(text, name)}


@pytest.mark.parametrize("text", [
    "Schmerzen OA-Fraktur links, OA Fraktur rechts ausgeschlossen.",
    "FA: Vater Herzinfarkt mit 60 Jahren.",
    "Überweisung an FA Allgemeinmedizin.",
    "Restaging: PD Lungenmetastasen.",
    "CA Mamma links, ED 2019.",
])
def test_staff_abbreviations_before_words_are_no_names(text: str) -> None:
    assert _spans("de", text, "NAME.DOCTOR") == set()


def test_region_after_health_insurer_is_no_city() -> None:
    # (a region is a LOCATION.STATE: a state, a Land, a province)
    text = "Versicherung: AOK Hessen, Versichertennummer L901396243\nSie wohnt seit Jahren in Hessen."
    regions = _spans("de", text, "LOCATION.STATE")
    assert _at(text, "Hessen", 0) not in regions
    assert _at(text, "Hessen", 1) in regions
    assert not any(surface == "Hessen" and start < 50 for start, _, surface, _ in _pipeline("de", text))


# --- 4. hospitals ------------------------------------------------------------------------------------------

def _hospitals(lang: str, text: str) -> set[tuple[int, int, str]]:
    return {(s.start, s.end, text[s.start:s.end]) for s in _gaz(lang).analyze(text) if s.label == "LOCATION.HOSPITAL"}


def test_swedish_genitive_town_and_sjukhus() -> None:
    text = "Remiss till Sundsvalls sjukhus, sedan till Visby lasarett. Inget sjukhus kunde ta emot henne."
    assert _hospitals("sv", text) == {_at(text, "Sundsvalls sjukhus"), _at(text, "Visby lasarett")}


def test_swedish_listed_hospital_still_found() -> None:
    text = "Överflyttad från Danderyds sjukhus i går."
    assert _at(text, "Danderyds sjukhus") in _hospitals("sv", text)


def test_german_fachklinik_klinikum_and_town_adjective() -> None:
    text = ("Verlegung in die Asklepios Fachklinik Bad Rodach. Zuvor im Klinikum Ingolstadt. "
            "Die Marburger Klinik hat angerufen.")
    found = _hospitals("de", text)
    assert found == {_at(text, "Fachklinik Bad Rodach"), _at(text, "Klinikum Ingolstadt"),
                     _at(text, "Marburger Klinik")}


def test_german_generic_klinik_words_are_no_hospitals() -> None:
    text = "Vorstellung in der Fachklinik für Psychiatrie. Die Augenklinik hat den Befund geschickt."
    assert _hospitals("de", text) == set()


def test_hospital_name_does_not_run_back_over_a_sentence_end() -> None:
    text = "Fachklinik für Psychiatrie. Klinikum Ingolstadt. Die Marburger Klinik. Das St. Elisabeth Krankenhaus"
    found = _hospitals("de", text)
    assert all(". " not in surface or surface.startswith("St. ") for _, _, surface in found)
    assert _at(text, "St. Elisabeth Krankenhaus") in found


def test_dutch_hospital_acronyms() -> None:
    text = "Verwezen naar het OLVG, daarna UMCG, LUMC, AMC en VUmc; controle in het Erasmus MC."
    found = _hospitals("nl", text)
    for name in ("OLVG", "UMCG", "LUMC", "AMC", "VUmc", "Erasmus MC"):
        assert _at(text, name) in found


def test_short_capitals_are_still_no_names_in_dutch() -> None:
    text = "ANA positief, EVA negatief."
    assert {s for s in _gaz("nl").analyze(text) if s.label.startswith("NAME")} == set()
