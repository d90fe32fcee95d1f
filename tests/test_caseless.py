"""Caseless (ALL-CAPS) text in the rules detector: regions, re-casing, the common-word guard, and mixed-case text
left unchanged (es, en, de, nl, sv)."""

from __future__ import annotations

import functools

import pytest

from clinanon.detect import caseless
from clinanon.detect.caseless import caseless_regions, recase, titlecase
from clinanon.detect.rules.detector import RulesDetector
from clinanon.lang.lexicon import is_common


@functools.cache
def _detector(lang: str) -> RulesDetector:
    return RulesDetector(lang)


def _found(lang: str, text: str) -> set[tuple[str, str]]:
    """(span text, label) of the name / place / organisation candidates of the rules detector."""
    return {(text[s.start:s.end], s.label) for s in _detector(lang).analyze(text)
            if s.label.startswith(("NAME", "LOCATION"))}


def _texts(lang: str, text: str) -> set[str]:
    return {t for t, _ in _found(lang, text)}


# --- regions ----------------------------------------------------------------------------------------------

def test_regions_whole_caps_text() -> None:
    text = "EL PACIENTE REFIERE DOLOR.\nNOMBRE: JUAN"
    assert caseless_regions(text) == [(0, len(text))]


def test_regions_none_in_mixed_case_text() -> None:
    assert caseless_regions("El paciente refiere dolor en el riñón izquierdo. HTA, DM, EPOC.") == []
    assert caseless_regions("") == []
    assert caseless_regions("12345 678") == []


def test_caps_heading_inside_mixed_text_is_not_a_region() -> None:
    text = "ANTECEDENTES PERSONALES\nEl paciente refiere dolor lumbar desde hace dos semanas.\n"
    assert caseless_regions(text) == []


def test_caps_block_inside_mixed_text_is_a_region() -> None:
    block = "PACIENTE DE 45 AÑOS QUE ACUDE POR DOLOR EN EL HIPOCONDRIO DERECHO.\n"
    text = "Informe de alta.\n" + block + "Firmado por el médico.\n"
    start = len("Informe de alta.\n")
    assert caseless_regions(text) == [(start, start + len(block))]


def test_a_few_lower_case_letters_keep_a_line_caseless() -> None:
    text = "SE PAUTAN 500 mg DE PARACETAMOL CADA OCHO HORAS DURANTE TRES DIAS"  # 2 of 52 letters
    assert caseless_regions(text) == [(0, len(text))]


# --- re-casing --------------------------------------------------------------------------------------------

def test_recase_keeps_length_and_letters() -> None:
    text = "MY NAME IS RUBIJA AND I LIVE AT 1668 GLYN ST. STRAẞE ß"
    out = recase(text, "en")
    assert len(out) == len(text)
    assert all(a.lower() == b.lower() for a, b in zip(out, text, strict=True))  # only the case changes
    assert out.startswith("my name is Rubija and")


def test_recase_common_word_needs_context() -> None:
    assert recase("UNA MASA EN EL POLO SUPERIOR DEL RIÑÓN", "es") == "una masa en el polo superior del riñón"
    assert recase("VISTA POR LA DRA. ROSA", "es").endswith("dra. Rosa")
    assert recase("ACUDE ROSA GARCÍA", "es").endswith("Rosa García")


def test_titlecase_lowercases_stop_words_only() -> None:
    assert titlecase("HOSPITAL VIRGEN DE LA ARRIXACA", "es") == "Hospital Virgen de la Arrixaca"
    assert titlecase("Mixed case text", "es") == "Mixed case text"


def test_lexicon_words() -> None:
    assert is_common("IZQUIERDO", "es") and is_common("polo", "es") and not is_common("García", "es")
    assert is_common("ROCK", "en") and not is_common("SMITH", "en")
    assert is_common("Schmerzen", "de") and is_common("pijn", "nl") and is_common("vänster", "sv")


# --- the guard: common words are not names; names with context are ------------------------------------------

@pytest.mark.parametrize(("lang", "text"), [
    ("es", "EL PACIENTE PRESENTA DOLOR EN EL RIÑÓN IZQUIERDO Y UNA MASA EN EL POLO SUPERIOR, CON PAREDES FINAS."),
    ("es", "SE OBSERVA CLÍNICA OBSTRUCTIVA Y SE PAUTA UN DIURÉTICO DE ASA."),
    ("en", "GOD GAVE ROCK AND ROLL TO YOU. COULD YOU PLEASE BLOCK MY CARD? THEY ARE GOOD LISTENERS IN THE FIELD."),
    ("de", "DER PATIENT KLAGT ÜBER STARKE SCHMERZEN IM LINKEN BEIN UND WIRD MORGEN ENTLASSEN."),
    ("nl", "DE PATIËNT HEEFT PIJN IN HET LINKER BEEN EN WORDT MORGEN ONTSLAGEN UIT HET ZIEKENHUIS."),
    ("sv", "PATIENTEN HAR ONT I VÄNSTER BEN OCH SKRIVS UT I MORGON FRÅN SJUKHUSET."),
])
def test_common_words_in_caps_are_not_names(lang: str, text: str) -> None:
    assert _found(lang, text) == set()


def test_common_words_in_caps_were_names_without_the_guard() -> None:
    text = "EL PACIENTE PRESENTA DOLOR EN EL RIÑÓN IZQUIERDO Y UNA MASA EN EL POLO SUPERIOR."
    det = _detector("es")
    raw = {text[s.start:s.end] for s in det._analyze(text, "es") if s.label == "NAME"}
    assert {"IZQUIERDO", "POLO"} <= raw


@pytest.mark.parametrize(("lang", "text", "names"), [
    ("es", "NOMBRE: ROSA GARCÍA LÓPEZ. VISTA POR LA DRA. ROSA EN EL HOSPITAL VIRGEN DE LA ARRIXACA.",
     {"ROSA GARCÍA LÓPEZ", "ROSA", "HOSPITAL VIRGEN DE LA ARRIXACA"}),
    ("es", "PACIENTE: JUAN IZQUIERDO PÉREZ, VIVE EN CALLE MAYOR 5, MADRID.",
     {"JUAN IZQUIERDO PÉREZ", "IZQUIERDO", "CALLE MAYOR 5", "MADRID"}),
    ("en", "MY NAME IS RUBIJA AND I LIVE AT 1668 GLYN ST, APT. 595.", {"RUBIJA", "APT. 595"}),
    ("en", "PATIENT: JOHN BROWN WAS SEEN BY DR. ROCK.", {"JOHN BROWN", "ROCK"}),
    ("de", "PATIENT: KLAUS MÜLLER, WOHNHAFT IN DER HAUPTSTRASSE 5. BEHANDELT VON DR. WOLF.",
     {"KLAUS MÜLLER", "HAUPTSTRASSE 5", "WOLF"}),
    ("nl", "MIJN NAAM IS JAN DE VRIES. PATIËNT: PIETER JANSEN, GEZIEN DOOR DHR. BAKKER.",
     {"JAN DE VRIES", "PIETER JANSEN", "BAKKER"}),
    ("sv", "MITT NAMN ÄR ANNA SVENSSON. PATIENT: LARS BERG, BEHANDLAD AV DR. LINDQVIST.",
     {"ANNA SVENSSON", "LARS BERG", "LINDQVIST"}),
])
def test_names_in_caps_with_context_are_found(lang: str, text: str, names: set[str]) -> None:
    assert names <= _texts(lang, text)


def test_phone_extension_in_caps() -> None:
    text = "PLEASE CALL THE FRONT DESK AT 345-899-3560X4587 TOMORROW MORNING."
    det = _detector("en")
    phones = {text[s.start:s.end] for s in det.analyze(text) if s.label == "CONTACT.PHONE"}
    assert "345-899-3560X4587" in phones


# --- mixed-case text is unaffected -----------------------------------------------------------------------------

@pytest.mark.parametrize(("lang", "text"), [
    ("es", "Paciente: Rosa García López. Refiere dolor en el riñón izquierdo. HTA, DM, EPOC. Dra. Paredes."),
    ("en", "My name is Rubija and I live at 1668 Glyn St, Apt. 595. GOD GAVE ROCK AND ROLL"),
    ("de", "Patient: Klaus Müller, wohnhaft in der Hauptstraße 5 in Berlin. Behandelt von Dr. Wolf."),
    ("nl", "Mijn naam is Jan de Vries. Patiënt: Pieter Jansen, gezien door dhr. Bakker."),
    ("sv", "Mitt namn är Anna Svensson. Patient: Lars Berg, behandlad av Dr. Lindqvist."),
])
def test_mixed_case_text_is_unaffected(lang: str, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    det = _detector(lang)
    assert caseless_regions(text) == []
    with_hook = det.analyze(text)
    monkeypatch.setattr(caseless, "recase", lambda *a, **k: pytest.fail("recase called on mixed-case text"))
    assert det.analyze(text) == with_hook == det._analyze(text, lang)
