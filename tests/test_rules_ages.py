"""Age rules (clinanon.detect.rules.ages): spans, context, per-language unit convention, adversarial input."""

from __future__ import annotations

import time

import pytest

from clinanon.detect.base import Detector
from clinanon.detect.rules import ages
from clinanon.document import Document, Span
from conftest import exact_label_scores


def found(lang: str, text: str, **kw: object) -> list[str]:
    return [text[s.start:s.end] for r in ages.recognizers(lang, **kw) for s in r.analyze(text)]  # type: ignore[arg-type]


@pytest.mark.parametrize(("lang", "text", "expected"), [
    # MEDDOCAN practice: number + unit, without "de edad"
    ("es", "Paciente de 70 años de edad, minero jubilado", ["70 años"]),
    ("es", "Edad: 70 años Sexo: H.", ["70 años"]),
    ("es", "Edad: 22  Sexo: M.", ["22"]),
    ("es", "Edad: 35 A  Sexo: H.", ["35 A"]),
    ("es", "edad: 70", ["70"]),
    ("es", "Varón de 65 años, remitido desde Nefrología", ["65 años"]),
    ("es", "Lactante de 3 meses y su hermana", ["3 meses"]),
    ("es", "Niña de tres años de edad", ["tres años"]),
    ("es", "Mujer de sesenta y tres años con antecedentes", ["sesenta y tres años"]),
    ("es", "Varón de un año y cinco meses de edad", ["un año y cinco meses"]),
    ("es", "Lactante de tres meses y medio de edad", ["tres meses y medio"]),
    ("es", "A los 34 años y con la sospecha", ["34 años"]),
    ("es", "falleció a los 8 meses de edad", ["8 meses"]),
    ("es", "a la edad de 6 meses", ["6 meses"]),
    ("es", "cuando la paciente tenía 32 años", ["32 años"]),
    ("en", "A 45-year-old man", ["45"]),
    ("en", "a 45 year old woman", ["45"]),
    ("en", "She is 45 years old", ["45"]),
    ("en", "67 yo F, 45yo M, 50 y/o", ["67", "45", "50"]),
    ("en", "aged 45, age 50, Age: 61", ["45", "50", "61"]),
    ("en", "at the age of 6 months", ["6"]),
    ("en", "a 3-month-old infant", ["3"]),
    ("en", "She just turned 60", ["60"]),
    ("nl", "een 45-jarige vrouw", ["45"]),
    ("nl", "Leeftijd: 45 jaar", ["45"]),
    ("nl", "patiënt van 45 jaar", ["45"]),
    ("nl", "hij is 45 jaar oud", ["45"]),
    ("sv", "en 45-årig kvinna", ["45"]),
    ("sv", "Ålder: 45 år", ["45"]),
    ("sv", "patienten är 45 år gammal", ["45"]),
    # German: the number only, as GraSCCo marks it (issue 16, the blind German letters)
    ("de", "die 45-jährige Patientin", ["45"]),
    ("de", "Alter: 45 Jahre", ["45"]),
    ("de", "im Alter von 45 Jahren", ["45"]),
    ("de", "Patientin, 45 Jahre alt", ["45"]),
])
def test_ages_found(lang: str, text: str, expected: list[str]) -> None:
    assert found(lang, text) == expected


@pytest.mark.parametrize(("lang", "text"), [
    ("es", "desde hace 2 años refiere dolor"),
    ("es", "cuadro de 2 semanas de evolución"),
    ("es", "A los 3 meses de la cirugía"),
    ("es", "a los 3 años del trasplante"),
    ("es", "durante 6 meses"),
    ("es", "Tío materno fallecido a los 60 años de edad"),  # a relative's age: not the patient's
    ("es", "percentil 5 para su edad: 43 mmHg"),
    ("es", "2,5 años"),
    ("es", "glucemia de 169 mg/dl, 3-4 veces, grado I/IV, ECOG 1, T4 N0 M0, COVID-19"),
    ("en", "for 3 years"),
    ("en", "3 years ago"),
    ("en", "turned 5 mg"),
    ("en", "her mother died at the age of"),
    ("nl", "sinds 2 jaar klachten"),
    ("nl", "3 jaar geleden"),
    ("sv", "sedan 2 år tillbaka"),
    ("de", "seit 3 Jahren Schmerzen"),
    ("de", "vor 3 Jahren"),
])
def test_non_ages(lang: str, text: str) -> None:
    assert found(lang, text) == []


def test_unit_convention_is_configurable() -> None:
    assert found("en", "A 45-year-old man", include_unit=True) == ["45-year-old"]
    assert found("es", "Varón de 70 años", include_unit=False) == ["70"]
    assert found("es", "Niña de tres años de edad", include_unit=False) == ["tres"]


def test_relative_ages_are_kept_below_the_threshold_not_lost() -> None:
    text = "Tío materno fallecido a los 60 años de edad"
    spans = ages.recognizers("es", min_score=0.0)[0].analyze(text)
    assert [(text[s.start:s.end], s.score) for s in spans] == [("60 años", 0.2)]


def test_detector_api_and_sources() -> None:
    rec = ages.recognizers("es")[0]
    assert isinstance(rec, Detector) and rec.name == "age"
    doc = Document("d", "Edad: 70 años Sexo: H.\nVarón de 70 años.")
    assert rec.detect(doc) == [Span(6, 13, "AGE", "age:age_field", 0.95), Span(32, 39, "AGE", "age:age_unit", 0.75)]
    only = rec.only("age_unit")
    assert [p.name for p in only.patterns] == ["age_unit"]
    assert [(s.start, s.end) for s in only.analyze("Varón de 70 años")] == [(9, 16)]


def test_context_scores() -> None:
    rec = ages.recognizers("es", min_score=0.0)[0].only("age_unit")
    assert [s.score for s in rec.analyze("tiene 70 años")] == [0.75]  # person / verb before
    assert [s.score for s in rec.analyze("cuenta 70 años")] == [0.3]  # no context
    assert [s.score for s in rec.analyze("Varón de 70 años de edad")] == [1.0]  # both sides
    assert [s.score for s in rec.analyze("hace 2 años")] == [0.0]  # duration


def test_unknown_language() -> None:
    with pytest.raises(ValueError, match="unsupported language"):
        ages.recognizers("fr")


@pytest.mark.parametrize("text", [
    "Garcia Lopez Martinez Juan " * 25_000,
    "1" * 1_000_000,
    "70 años y " * 10_000,
    "a los " * 50_000,
    ("x" * 60 + " ") * 16_000,
])
def test_ages_linear_on_adversarial_input(text: str) -> None:
    t0 = time.process_time()
    for lang in ("es", "en"):
        ages.recognizers(lang)[0].analyze(text)
    assert time.process_time() - t0 < 5.0


# --------------------------------------------------------------------------------------------- MEDDOCAN dev


def test_meddocan_dev_edad_sujeto_asistencia(meddocan_dir) -> None:  # type: ignore[no-untyped-def]
    """Exact-match precision and recall of the rules for EDAD_SUJETO_ASISTENCIA on MEDDOCAN dev stay >= 0.95."""
    recognizers = ages.recognizers('es')
    precision, recall, n_gold = exact_label_scores(meddocan_dir, "dev", "EDAD_SUJETO_ASISTENCIA", recognizers)
    assert n_gold > 300
    assert precision >= 0.95 and recall >= 0.95


@pytest.mark.parametrize(("text", "expected"), [
    ("He turned 64 last week.", ["64"]),
    ("when he was 64 he moved to the coast", ["64"]),
    ("She is 82.", ["82"]),
    ("The patient is now 71, lives alone.", ["71"]),
    ("he was 6 when his father died", ["6"]),
    # a unit, a measurement or a non-person subject: not an age
    ("he was 5 minutes late", []),
    ("She was 3 days post-op.", []),
    ("The knee turned 90 degrees.", []),
    ("He turned 2 into the corridor", []),
    ("The pain score was 8.", []),
    ("Her pulse is 88.", []),
    ("Temperature was 38.5.", []),
])
def test_english_bare_ages_after_birthday_verbs_and_person_copulas(text: str, expected: list[str]) -> None:
    assert found("en", text) == expected


# --------------------------------------------------------------------------------------------- Spanish apposition

@pytest.mark.parametrize(("text", "expected"), [
    # MEDDOCAN convention (EDAD_SUJETO_ASISTENCIA): the patient's age after the person, number and unit
    ("Paciente Juan García López, 45 años, ingresó el 3 de marzo de 2021 en el Hospital La Paz.", ["45 años"]),
    ("Ingresa Rosa Vidal Soto, 51 años, por disnea.", ["51 años"]),  # a known first name in the run
    ("Acude la Sra. J. Ruiz, 70 años.", ["70 años"]),  # an honorific; the initial's dot ends no sentence
    ("Paciente mujer, 44 años, derivada a nuestra unidad.", ["44 años"]),
    ("PACIENTE ALBERTO GIL, 45 AÑOS, INGRESA.", ["45 AÑOS"]),
    ("Paciente mujer, edad 38 años, diagnosticada de enfermedad de Crohn.", ["38 años"]),
    ("Edad 45. Sexo: varón.", ["45"]),
    ("Varón de 45 años de edad que acude a urgencias.", ["45 años"]),
    ("Mujer de 45 a. con dolor abdominal.", ["45 a."]),
])
def test_spanish_ages_in_apposition_and_without_a_colon(text: str, expected: list[str]) -> None:
    assert found("es", text) == expected


@pytest.mark.parametrize("text", [
    "Paciente con dolor desde hace 5 años.",
    "Varón que fumó durante 2 años.",
    "Paciente que, 5 años después, sigue asintomático.",
    "En la actualidad, 16 años después, el paciente está bien.",
    "Paciente con recidiva a los 3 años de la cirugía.",
    "Paciente con cefalea de 10 años de evolución.",
    "Diabetes Mellitus, 10 años, en tratamiento con insulina.",  # capitalised words, no first name
    "El paciente refiere tos. Tras la cirugía, 5 años, recidiva.",  # the person is in another sentence
    "Paciente que acude con su madre, 70 años, y su hermano.",  # a relative's age
    "Vive en la calle Mayor 2A. Fractura de la 11a. costilla.",  # a floor, an ordinal
])
def test_spanish_durations_and_other_numbers_are_no_ages(text: str) -> None:
    assert found("es", text) == []


def test_spanish_apposition_linear_on_adversarial_input() -> None:
    t0 = time.process_time()
    # every apposition looks back at most 120 characters: the time grows with the number of matches only
    for text in ("Juan García López, 45 años, " * 10_000, "Sr. " * 250_000 + ", 45 años,",
                 ", 45 años" * 30_000, "Edad " * 200_000):
        ages.recognizers("es")[0].analyze(text)
    assert time.process_time() - t0 < 5.0
