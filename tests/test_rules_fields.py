"""Form-field values and sex (clinanon.detect.rules.fields)."""

from __future__ import annotations

import time

import pytest

from clinanon.detect.base import Detector
from clinanon.detect.rules import fields
from clinanon.detect.rules.fields import FieldRecognizer, FieldSpec
from clinanon.document import Document, Span
from conftest import exact_label_scores


def found(lang: str, text: str) -> list[tuple[str, str]]:
    spans = sorted(s for r in fields.recognizers(lang) for s in r.analyze(text))
    return [(text[s.start:s.end], s.label) for s in spans]


# --------------------------------------------------------------------------------------------- form fields


def test_meddocan_style_header() -> None:
    text = ("Datos del paciente.\nNombre:  Ernesto.\nApellidos: Rivera Bueno.\nNHC: 368503.\n"
            "Domicilio:  Calle Miguel Benitez 90.\nLocalidad/ Provincia: Madrid.\nCP: 28016.\n"
            "País: España.\nEdad: 70 años Sexo: H.\n"
            "Médico:  Ignacio Navarro Cuéllar NºCol: 28 28 70973.\n"
            "Remitido por: Dr. Ignacio Navarro Cuéllar c/ del Abedul 5-7, 2º dcha 28036 Madrid\n")
    assert found("es", text) == [
        ("Ernesto", "NAME.PATIENT"), ("Rivera Bueno", "NAME.PATIENT"),
        ("Calle Miguel Benitez 90", "LOCATION.STREET"), ("Madrid", "LOCATION.CITY"),
        ("España", "LOCATION.COUNTRY"), ("H", "SEX"),
        ("Ignacio Navarro Cuéllar", "NAME.DOCTOR"), ("Ignacio Navarro Cuéllar", "NAME.DOCTOR"),
    ]


def test_label_is_never_part_of_the_span_and_offsets_are_exact() -> None:
    doc = Document("d", "Nombre: Ernesto.")
    rec = fields.recognizers("es")[1]
    assert isinstance(rec, Detector)
    assert rec.detect(doc) == [Span(8, 15, "NAME.PATIENT", "field:NAME.PATIENT", 0.9)]


@pytest.mark.parametrize(("text", "expected"), [
    ("Nombre: Juan Apellidos: Pérez García", [("Juan", "NAME.PATIENT"), ("Pérez García", "NAME.PATIENT")]),
    ("Domicilio: Calle Cristóbal Pérez Pastor, 12, 5 Der..", [("Calle Cristóbal Pérez Pastor, 12, 5 Der.",
                                                              "LOCATION.STREET")]),
    ("Domicilio: Calle Ramón y Cajal, 3, .", [("Calle Ramón y Cajal, 3", "LOCATION.STREET")]),
    ("Localidad/ Provincia: Tolosa, Gipuzkoa.", [("Tolosa", "LOCATION.CITY"), ("Gipuzkoa", "LOCATION.STATE")]),
    ("Médico: Marta Ortega MartínezNºCol: 06 06 85940.", [("Marta Ortega Martínez", "NAME.DOCTOR")]),
    ("Responsable clínico: Dra: Alejandra Domínguez Urgel. Correo: a@b.es", [("Alejandra Domínguez Urgel",
                                                                             "NAME.DOCTOR")]),
    ("Médico: Jose Luis Del Castillo Pardo de Vera NºCol: 1", [("Jose Luis Del Castillo Pardo de Vera",
                                                                 "NAME.DOCTOR")]),
    ("Médico: Nikolaos Antoniadis P..", [("Nikolaos Antoniadis P", "NAME.DOCTOR")]),
    ("NOMBRE: JUAN PEREZ GARCIA", [("JUAN PEREZ GARCIA", "NAME.PATIENT")]),
])
def test_es_field_values(text: str, expected: list[tuple[str, str]]) -> None:
    assert found("es", text) == expected


@pytest.mark.parametrize("text", [
    "Nombre: -", "Nombre: desconocido", "Domicilio: no consta.", "Nombre:", "Domicilio: 91 28065072 33.",
    "Informe clínico del paciente: Paciente varón",  # "paciente:" ends a longer heading, it is no field
    "Domicilio: .",
])
def test_empty_or_non_phi_values_are_skipped(text: str) -> None:
    assert [x for x in found("es", text) if x[1] != "SEX"] == []


@pytest.mark.parametrize(("lang", "text", "expected"), [
    ("en", "Name: John Smith\nAddress: 12 Main Street\nCity: Boston", [
        ("John Smith", "NAME.PATIENT"), ("12 Main Street", "LOCATION.STREET"), ("Boston", "LOCATION.CITY")]),
    ("en", "Attending: Dr. Jane Doe, MD", [("Jane Doe", "NAME.DOCTOR")]),
    ("en", "Patient: 45 yo man with chest pain", [("man", "SEX")]),  # no name; the sex recognizer finds "man"
    ("nl", "Naam: Jan de Vries\nAdres: Dorpsstraat 5\nWoonplaats: Utrecht\nHuisarts: dr. P. Jansen", [
        ("Jan de Vries", "NAME.PATIENT"), ("Dorpsstraat 5", "LOCATION.STREET"), ("Utrecht", "LOCATION.CITY"),
        ("P. Jansen", "NAME.DOCTOR")]),
    ("sv", "Namn: Anna Svensson\nAdress: Storgatan 1\nOrt: Uppsala\nLäkare: Erik Berg", [
        ("Anna Svensson", "NAME.PATIENT"), ("Storgatan 1", "LOCATION.STREET"), ("Uppsala", "LOCATION.CITY"),
        ("Erik Berg", "NAME.DOCTOR")]),
    ("de", "Name: Müller\nVorname: Hans\nAnschrift: Hauptstraße 5\nWohnort: Köln\nArzt: Dr. med. Klaus Weber", [
        ("Müller", "NAME.PATIENT"), ("Hans", "NAME.PATIENT"), ("Hauptstraße 5", "LOCATION.STREET"),
        ("Köln", "LOCATION.CITY"), ("Klaus Weber", "NAME.DOCTOR")]),
    ("de", "Name: unbekannt", []),
])
def test_fields_other_languages(lang: str, text: str, expected: list[tuple[str, str]]) -> None:
    assert found(lang, text) == expected


def test_doctor_titles_in_running_text() -> None:
    assert found("es", "Fue valorado por el Dr. García López en consulta.") == [("García López", "NAME.DOCTOR")]
    assert found("es", "Hospital Universitario Dr. Negrín, Calle del Dr. Esquerdo, 46") == []
    assert found("en", "seen by Dr. Smith today") == [("Smith", "NAME.DOCTOR")]


def test_custom_table() -> None:
    rec = FieldRecognizer("form", [FieldSpec(r"tutor", "NAME.RELATIVE", "name", 0.8)])
    text = "Tutor: Ana Ruiz.\nOtro: x"
    assert rec.analyze(text) == [Span(7, 15, "NAME.RELATIVE", "form:NAME.RELATIVE", 0.8)]
    assert repr(rec) == "FieldRecognizer(name='form', rows=1)"
    with pytest.raises(ValueError, match="empty table"):
        FieldRecognizer("x", [])


# --------------------------------------------------------------------------------------------- sex


@pytest.mark.parametrize(("lang", "text", "expected"), [
    ("es", "Sexo: H.", ["H"]), ("es", "Sexo: Varón.", ["Varón"]), ("es", "Sexo: Mujer", ["Mujer"]),
    ("es", "Edad: 70 años Sexo: M.", ["M"]), ("es", "sexo:masculino", ["masculino"]),
    ("en", "Sex: F", ["F"]), ("en", "Gender: male", ["male"]), ("en", "a 45-year-old woman", ["woman"]),
    ("en", "67 yo F with CHF", ["F"]),
    ("nl", "Geslacht: M", ["M"]), ("nl", "geslacht: vrouw", ["vrouw"]), ("nl", "een 45-jarige man", ["man"]),
    ("sv", "Kön: K", ["K"]), ("sv", "kön: man", ["man"]), ("sv", "en 45-årig kvinna", ["kvinna"]),
    ("de", "Geschlecht: w", ["w"]), ("de", "Geschlecht: männlich", ["männlich"]), ("de", "ein 45-jähriger Mann",
                                                                                   ["Mann"]),
])
def test_sex_values(lang: str, text: str, expected: list[str]) -> None:
    rec = fields.recognizers(lang)[0]
    assert rec.name == "sex"
    assert [text[s.start:s.end] for s in rec.analyze(text)] == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Varón de 70 años que consulta", ["Varón"]),
    ("Paciente mujer de 45 años", ["mujer"]),
    ("Lactante de sexo femenino", ["femenino"]),
    ("vive con su mujer invidente", []),
    ("su primer hijo varón nació", []),
    ("feto varón de 1.800 gramos", []),
    ("Sexo: desconocido", []),
    ("Sexo: 7 años", []),
])
def test_es_narrative_sex(text: str, expected: list[str]) -> None:
    rec = fields.recognizers("es")[0]
    assert [text[s.start:s.end] for s in rec.analyze(text)] == expected


def test_english_narrative_sex_words_need_an_age() -> None:
    assert found("en", "The man was seen. Male patient.") == []


# --------------------------------------------------------------------------------------------- adversarial


@pytest.mark.parametrize("text", [
    "Garcia Lopez Martinez Juan Maria " * 20_000,
    "Nombre: Edad: Sexo: " * 10_000,
    "Dr. " * 50_000,
    "Nombre: " + "Juan " * 50_000,
    ("a" * 60 + " ") * 16_000,
    "1" * 1_000_000,
])
def test_fields_linear_on_adversarial_input(text: str) -> None:
    t0 = time.process_time()
    for r in fields.recognizers("es"):
        r.analyze(text)
    assert time.process_time() - t0 < 5.0


# --------------------------------------------------------------------------------------------- MEDDOCAN dev


def test_meddocan_dev_sexo_sujeto_asistencia(meddocan_dir) -> None:  # type: ignore[no-untyped-def]
    """Exact-match precision and recall of the rules for SEXO_SUJETO_ASISTENCIA on MEDDOCAN dev stay >= 0.95."""
    recognizers = fields.recognizers('es')[:1]
    precision, recall, n_gold = exact_label_scores(meddocan_dir, "dev", "SEXO_SUJETO_ASISTENCIA", recognizers)
    assert n_gold > 300
    assert precision >= 0.95 and recall >= 0.95
