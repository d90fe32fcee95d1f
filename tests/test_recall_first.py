"""Safe by default (issue 15, findings 3 and 5).

Finding 3: the default Spanish pipeline (rules + the shipped CRF) must not leak a name that the rules alone hide.
Its per-label strategies were chosen for F1 on MEDDOCAN dev and made names need the CRF's vote; on notes in other
styles (``tests/data/es-varied``: invented referral letters, nursing notes, discharge summaries, one-line
sentences) most names then stayed in clear.

Finding 5: an address or field value stops at a sentence end and at the next field label of its line, in the five
languages ("Adress: Storgatan 5, Stockholm. Inkom med bröstsmärta" is no street up to the line end).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from clinanon import io as cio
from clinanon.config import Config
from clinanon.document import Document, Span
from clinanon.evaluate import evaluate
from clinanon.pipeline import Pipeline
from clinanon.taxonomy import category_matches, get_scheme

VARIED = Path(__file__).parent / "data" / "es-varied"


@pytest.fixture(scope="module")
def varied() -> list[Document]:
    docs = sorted(cio.read(VARIED, "brat"), key=lambda d: d.id)
    assert len(docs) >= 30
    return docs


@pytest.fixture(scope="module")
def default_es() -> Pipeline:
    pytest.importorskip("pycrfsuite")
    from clinanon.models import default_model

    if default_model("es") is None:
        pytest.skip("the Spanish model is not built (scripts/build_shipped_model.py)")
    return Pipeline(Config.from_dict({"language": "es"}))


@pytest.fixture(scope="module")
def rules_es() -> Pipeline:
    return Pipeline(Config.from_dict({"language": "es", "detectors": {"use": ["rules"]}}))


def _covered(spans: list[Span], start: int, end: int) -> bool:
    """Every non-blank character of [start, end) lies in one of ``spans``."""
    return all(any(s.start <= i < s.end for s in spans) for i in range(start, end))


def _names(doc: Document) -> list[Span]:
    meddocan = get_scheme("meddocan")
    return [s for s in doc.spans if category_matches(meddocan.category(s.label), "NAME")]


def test_the_default_pipeline_leaks_no_name_the_rules_hide(varied: list[Document], default_es: Pipeline,
                                                           rules_es: Pipeline) -> None:
    leaked: list[tuple[str, int]] = []  # (document id, offset): no text in the message
    hidden_by_rules = 0
    for doc in varied:
        by_rules = rules_es.detect_spans(doc)
        by_default = default_es.detect_spans(doc)
        for name in _names(doc):
            if _covered(by_rules, name.start, name.end):
                hidden_by_rules += 1
                if not _covered(by_default, name.start, name.end):
                    leaked.append((doc.id, name.start))
    assert hidden_by_rules >= 60  # the test means something: the rules hide most names of these notes
    assert leaked == []


def test_the_default_pipelines_token_recall_is_at_least_the_rules(varied: list[Document], default_es: Pipeline,
                                                                  rules_es: Pipeline) -> None:
    def recall(nlp: Pipeline) -> float:
        pred = [d.with_spans(nlp.detect_spans(d)) for d in varied]
        return evaluate(varied, pred, lang="es", scheme="meddocan", label_map="canonical").token_binary.micro.recall

    assert recall(default_es) >= recall(rules_es)


@pytest.mark.parametrize(("text", "name"), [
    ("Acude a consulta D. Manuel García López, de 67 años.", "Manuel García López"),
    ("Atendida por la Dra. Isabel Martín en urgencias.", "Isabel Martín"),
    ("La paciente Carmen refiere dolor torácico desde ayer.", "Carmen"),
    ("Informe remitido al Dr. Javier Ruiz Serrano, servicio de Cardiología.", "Javier Ruiz Serrano"),
    ("Se avisa a su hija Lucía Fernández por teléfono.", "Lucía Fernández"),
    ("Visto en planta por la enfermera Rosario Gil.", "Rosario Gil"),
])
def test_short_sentences_keep_no_name_in_clear(default_es: Pipeline, text: str, name: str) -> None:
    doc = Document("s", text)
    start = text.index(name)
    assert _covered(default_es.detect_spans(doc), start, start + len(name))


@pytest.mark.parametrize(("text", "name", "age", "duration"), [
    ("Paciente Juan García López, 45 años, ingresó el 3 de marzo de 2021 en el Hospital La Paz.",
     "Juan García López", "45 años", None),
    ("Paciente Luis Fernández, edad 60 años, con HTA de 10 años de evolución.", "Luis Fernández", "60 años",
     "10 años"),
    ("Ingresa la Sra. Carmen Ruiz Torres, 82 años, que acude desde hace 3 años a revisión.", "Carmen Ruiz Torres",
     "82 años", "3 años"),
])
def test_a_named_patient_with_an_age_in_apposition(default_es: Pipeline, text: str, name: str, age: str,
                                                   duration: str | None) -> None:
    """The rules' name (a patient cue, a known first name and surnames) keeps its label where the model, unsure,
    calls it a street; the age in apposition is the patient's (MEDDOCAN's convention), a duration is not."""
    spans = default_es.detect_spans(Document("s", text))
    got = {text[s.start:s.end]: s.label for s in spans}
    assert category_matches(got.get(name, ""), "NAME"), got
    assert got.get(age) == "AGE", got
    if duration is not None:
        assert duration not in got


# --- finding 5: address and field values stop where they should -----------------------------------------------

#: (language, note, the street, the first words after it that are clinical text or another field)
STOPS = [
    ("sv", "Adress: Storgatan 5, Stockholm. Inkom med bröstsmärta sedan igår.", "Storgatan 5", "Inkom med"),
    ("sv", "Adress: Storgatan 5 Telefon: 08-123 456 78", "Storgatan 5", "Telefon"),
    ("es", "Domicilio: Calle Mayor 12, Madrid. Ingresa por dolor torácico de dos horas.", "Calle Mayor 12",
     "Ingresa por"),
    ("es", "Dirección: Avda. de la Constitución 45, Sevilla. Refiere disnea de esfuerzo.",
     "Avda. de la Constitución 45", "Refiere disnea"),
    ("en", "Address: 12 Oak Street, Springfield. Admitted with chest pain since yesterday.", "12 Oak Street",
     "Admitted with"),
    ("en", "Address: 12 Oak Street Phone: 555-123-4567", "12 Oak Street", "Phone"),
    ("de", "Anschrift: Hauptstraße 5, Berlin. Aufnahme wegen Thoraxschmerzen seit gestern.", "Hauptstraße 5",
     "Aufnahme wegen"),
    ("de", "Anschrift: Hauptstraße 5 Telefon: 030 1234567", "Hauptstraße 5", "Telefon"),
    ("nl", "Adres: Kerkstraat 12, Utrecht. Opgenomen met pijn op de borst sinds gisteren.", "Kerkstraat 12",
     "Opgenomen met"),
    ("nl", "Adres: Kerkstraat 12 Telefoon: 030-1234567", "Kerkstraat 12", "Telefoon"),
]


@pytest.mark.parametrize(("lang", "text", "street", "after"), STOPS)
def test_an_address_stops_at_the_sentence_end_or_the_next_label(lang: str, text: str, street: str,
                                                                 after: str) -> None:
    from clinanon.detect.rules.detector import RulesDetector

    doc = Document("a", text, meta={"lang": lang})
    raw = RulesDetector(lang).detect(doc)
    s0 = text.index(street)
    a0 = text.index(after)
    streets = [s for s in raw if s.label.startswith("LOCATION.STREET")]
    assert any(s.start <= s0 and s0 + len(street) <= s.end for s in streets)  # the street is found
    assert not any(s.end > a0 for s in streets)  # and no street candidate runs into what follows
    nlp = Pipeline(Config.from_dict({"language": lang, "detectors": {"use": ["rules"]}}))
    out = nlp.detect_spans(doc)
    assert _covered(out, s0, s0 + len(street))
    assert not any(s.start < a0 + len(after) and a0 < s.end and s.label.startswith("LOCATION") for s in out)


@pytest.mark.parametrize(("lang", "text", "value"), [
    ("es", "Domicilio: C/ Dr. Fleming 5, 3º B. Teléfono 612 345 678", "C/ Dr. Fleming 5, 3º B"),
    ("es", "Domicilio: Pza. Sta. Ana 3, 1. Bajo A", "Pza. Sta. Ana 3, 1. Bajo A"),
    ("de", "Anschrift: Hauptstraße 5, 3. OG, Berlin", "Hauptstraße 5, 3. OG, Berlin"),
    ("en", "Address: 5 St. James Road, Leeds", "5 St. James Road, Leeds"),
])
def test_abbreviations_and_floors_do_not_end_an_address(lang: str, text: str, value: str) -> None:
    from clinanon.detect.rules.detector import RulesDetector

    raw = RulesDetector(lang).detect(Document("a", text, meta={"lang": lang}))
    v0 = text.index(value)
    assert any(s.start <= v0 and v0 + len(value) <= s.end for s in raw if s.label == "LOCATION.STREET")


def test_a_place_field_stops_at_the_sentence_end() -> None:
    from clinanon.detect.rules.detector import RulesDetector

    text = "Ciudad: Zaragoza. Refiere cefalea intensa."
    raw = RulesDetector("es").detect(Document("c", text))
    assert not any(s.end > text.index("Refiere") for s in raw if s.label.startswith("LOCATION"))
    assert any(text[s.start:s.end] == "Zaragoza" for s in raw)
