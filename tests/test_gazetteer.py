"""Gazetteer detector: multi-word and accented entries, case policies, eponyms, user lists, hospitals."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from clinanon.detect.gazetteer import GazetteerDetector
from clinanon.document import Document
from clinanon.errors import ConfigError, InputError
from clinanon.lang.fold import fold
from clinanon.lang.phrases import PhraseIndex
from clinanon.lang.wordlists import load_rows
from clinanon.steps.resolve import Resolver
from clinanon.text import tokenize


def found(det: GazetteerDetector, text: str) -> set[tuple[str, str]]:
    return {(text[s.start:s.end], s.label) for s in det.analyze(text)}


@pytest.fixture(scope="module")
def es() -> GazetteerDetector:
    return GazetteerDetector("es")


def test_builtin_lists_ship_and_have_columns() -> None:
    first = dict((r[0], r[1]) for r in load_rows("es", "first_name"))
    assert first["Ignacio"] == "M" and first["Carmen"] == "F"
    cities = {r[0]: r for r in load_rows("es", "city")}
    assert cities["Talavera de la Reina"][1:] == ("Toledo", "ES")
    countries = {r[0]: r for r in load_rows("es", "country")}
    assert countries["Argentina"][1:] == ("AR", "South America")
    assert countries["Alemania"][1:] == ("DE", "Europe")
    assert "Granada" not in countries  # Grenada's Spanish name is a Spanish city: left out
    for lang in ("en", "nl", "sv", "de"):
        assert len(load_rows(lang, "first_name")) > 500 and len(load_rows(lang, "country")) > 200


def test_fold() -> None:
    assert fold("GARCÍA") == "garcia" and fold("García", accents=False) == "garcía"


def test_multiword_accented_and_source(es: GazetteerDetector) -> None:
    text = "Natural de Santa Cruz de Tenerife, vive en Talavera de la Reina. Médico: Ignacio Navarro Cuéllar."
    spans = es.analyze(text)
    got = {(text[s.start:s.end], s.label, s.source) for s in spans}
    assert ("Santa Cruz de Tenerife", "LOCATION.CITY", "gazetteer:city") in got
    assert ("Talavera de la Reina", "LOCATION.CITY", "gazetteer:city") in got
    assert ("Ignacio", "NAME", "gazetteer:first_name:M") in got
    assert ("Cuéllar", "NAME", "gazetteer:surname") in got
    resolved = Resolver().resolve(text, spans)
    assert [(text[s.start:s.end], s.label) for s in resolved] == [
        ("Santa Cruz de Tenerife", "LOCATION.CITY"), ("Talavera de la Reina", "LOCATION.CITY"),
        ("Ignacio Navarro Cuéllar", "NAME")]


def test_accent_policy(tmp_path: Path) -> None:
    lst = tmp_path / "s.txt"
    lst.write_text("Pérezgíl\n", encoding="utf-8")
    text = "Paciente: Perezgil, Pérezgíl."
    folded = GazetteerDetector("es", kinds=(), user_lists={"surname": lst})
    exact = GazetteerDetector("es", kinds=(), user_lists={"surname": lst}, accents="exact")
    assert found(folded, text) == {("Perezgil", "NAME"), ("Pérezgíl", "NAME")}
    assert found(exact, text) == {("Pérezgíl", "NAME")}


def test_case_policies() -> None:
    caps = "Paciente JUAN GARCÍA LÓPEZ, ingresa."
    upper_ok = GazetteerDetector("es", kinds=("first_name", "surname"))
    exact = GazetteerDetector("es", kinds=("first_name", "surname"), case="exact")
    folded = GazetteerDetector("es", kinds=("first_name", "surname"), case="fold")
    assert {"JUAN", "GARCÍA", "LÓPEZ"} <= {t for t, _ in found(upper_ok, caps)}
    assert found(exact, caps) == set()
    lower = "trae una rosa de regalo"
    assert found(upper_ok, lower) == set()  # names need a capital unless case="fold"
    assert ("rosa", "NAME") in found(folded, lower)


def test_short_all_caps_needs_caps_neighbour(es: GazetteerDetector) -> None:
    assert ("ANA", "NAME") not in found(es, "Serología: ANA positivo, ELISA negativa.")
    assert ("ELISA", "NAME") not in found(es, "Serología: ANA positivo, ELISA negativa.")
    assert ("ANA", "NAME") in found(es, "Paciente: ANA GARCÍA.")


@pytest.mark.parametrize(("lang", "text", "word"), [
    ("es", "Intervenido de enfermedad de Dupuytren en mano derecha.", "Dupuytren"),
    ("es", "Temblor en reposo. Parkinson avanzado.", "Parkinson"),
    ("es", "Niña con síndrome de Down.", "Down"),
    ("es", "Antecedente de enfermedad de Wilson.", "Wilson"),
    ("es", "Sonda Foley y escala de Glasgow 15.", "Glasgow"),
    ("es", "Síndrome de Gilles de la Tourette.", "Gilles"),
    ("de", "Verdacht auf Morbus Crohn.", "Crohn"),
    ("de", "Cushing-Syndrom bekannt.", "Cushing"),
    ("en", "History of Parkinson's disease.", "Parkinson"),
    ("sv", "Känd Parkinsons sjukdom.", "Parkinsons"),
    ("nl", "Bekend met de ziekte van Crohn.", "Crohn"),
])
def test_eponyms_not_tagged(tmp_path: Path, lang: str, text: str, word: str) -> None:
    # put the eponyms in a user surname list so that only the allow-list can keep them out
    lst = tmp_path / "surnames.txt"
    lst.write_text("Dupuytren\nParkinson\nParkinsons\nDown\nWilson\nGlasgow\nGilles\nCrohn\nCushing\n",
                   encoding="utf-8")
    det = GazetteerDetector(lang, user_lists={"surname": lst})
    assert all(t != word and word not in t for t, _ in found(det, text))
    # without the allow-list the same word is a hit: the test is not vacuous
    raw = GazetteerDetector(lang, user_lists={"surname": lst}, allowlist=None)
    assert any(word in t for t, _ in found(raw, text))


def test_weak_eponym_is_still_a_name_outside_eponym_context(tmp_path: Path) -> None:
    lst = tmp_path / "s.txt"
    lst.write_text("Wilson\n", encoding="utf-8")
    det = GazetteerDetector("es", kinds=("surname",), user_lists={"surname": lst})
    assert ("Wilson", "NAME") in found(det, "Atendido por el Dr. Wilson.")


def test_user_lists_from_files(tmp_path: Path) -> None:
    names = tmp_path / "first.txt"
    names.write_text("# hospital staff\nZorba\tM\n\nXantippa\tF\n", encoding="utf-8")
    wards = tmp_path / "wards.txt"
    wards.write_text("Pabellón Qwerty Norte\n", encoding="utf-8")
    det = GazetteerDetector("es", kinds=("first_name",), user_lists={"first_name": names, "ward": wards},
                            labels={"ward": "LOCATION.ROOM"})
    text = "Zorba y Xantippa en el Pabellón Qwerty  Norte."
    got = {(text[s.start:s.end], s.label, s.source) for s in det.analyze(text)}
    assert ("Zorba", "NAME", "gazetteer:first_name:M") in got
    assert ("Xantippa", "NAME", "gazetteer:first_name:F") in got
    assert ("Pabellón Qwerty  Norte", "LOCATION.ROOM", "gazetteer:ward") in got


def test_user_list_errors_name_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("Zorba\tM\nSecretName\tX\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        GazetteerDetector("es", user_lists={"first_name": bad})
    assert "line 2" in str(e.value) and "bad.txt" in str(e.value) and "SecretName" not in str(e.value)
    with pytest.raises(ConfigError):
        GazetteerDetector("es", user_lists={"ward": bad})  # a new kind needs a label
    with pytest.raises(ConfigError):
        GazetteerDetector("xx")
    with pytest.raises(ConfigError):
        GazetteerDetector("es", case="lower")  # type: ignore[arg-type]


def test_no_match_across_line_breaks(es: GazetteerDetector) -> None:
    assert ("Santa Cruz de Tenerife", "LOCATION.CITY") not in found(es, "Santa Cruz\nde Tenerife")


@pytest.mark.parametrize(("text", "expected"), [
    ("Ingresa en el Hospital Universitario La Paz, Madrid.", "Hospital Universitario La Paz"),
    ("Hospital Universitario Marqués de Valdecilla. Santander", "Hospital Universitario Marqués de Valdecilla"),
    ("Servicio de Nefrología. Complejo Hospitalario de Jaén. Email: x", "Complejo Hospitalario de Jaén"),
    ("Remitido al Hospital Universitario 12 de Octubre.", "Hospital Universitario 12 de Octubre"),
    ("Hospital Clínico San Carlos Avda. Prof. Martín Lagos, s/n", "Hospital Clínico San Carlos"),
    ("Hospital Virgen del Camino 31008 Pamplona", "Hospital Virgen del Camino"),
    ("Derivada al Centro de Salud Las Fuentes.", "Centro de Salud Las Fuentes"),
])
def test_hospital_pattern(es: GazetteerDetector, text: str, expected: str) -> None:
    hosp = {text[s.start:s.end] for s in Resolver().resolve(text, es.analyze(text))
            if s.label == "LOCATION.HOSPITAL"}
    assert hosp == {expected}


@pytest.mark.parametrize("text", [
    "Se remite al hospital para estudio.", "Unidad de Nutrición Clínica y Dietética.",
    "Consulta en la clínica de la AR.", "Ingresa en el Hospital.",
])
def test_hospital_pattern_negatives(es: GazetteerDetector, text: str) -> None:
    assert not [s for s in es.analyze(text) if s.label == "LOCATION.HOSPITAL"]


@pytest.mark.parametrize(("lang", "text", "expected"), [
    ("sv", "Remitteras till Södersjukhuset i morgon.", "Södersjukhuset"),
    ("sv", "Vårdas på Danderyds sjukhus.", "Danderyds sjukhus"),
    ("nl", "Opgenomen in het Erasmus MC te Rotterdam.", "Erasmus MC"),
    ("nl", "Verwezen naar het Maasstad Ziekenhuis.", "Maasstad Ziekenhuis"),
    ("de", "Verlegung in das Klinikum Großhadern.", "Klinikum Großhadern"),
    ("en", "Transferred to Massachusetts General Hospital today.", "Massachusetts General Hospital"),
])
def test_hospitals_other_languages(lang: str, text: str, expected: str) -> None:
    det = GazetteerDetector(lang)
    hosp = {text[s.start:s.end] for s in Resolver().resolve(text, det.analyze(text))
            if s.label == "LOCATION.HOSPITAL"}
    assert hosp == {expected}


def test_detect_uses_document(es: GazetteerDetector) -> None:
    doc = Document("d1", "País: España.")
    assert [(doc.span_text(s), s.label) for s in es.detect(doc) if s.label == "LOCATION.COUNTRY"] == [
        ("España", "LOCATION.COUNTRY")]
    assert "España" not in repr(es) and "entries=" in repr(es)


def test_tokens_argument_and_phrase_index() -> None:
    idx = PhraseIndex("es")
    assert idx.add("Castilla-La Mancha", "region")
    assert not idx.add("dos\nlíneas", "region")
    text = "Vive en Castilla-La Mancha y en CASTILLA-LA MANCHA."
    toks = tokenize(text, "es")
    got = [(text[m.start:m.end]) for m in idx.match(text, toks)]
    assert got == ["Castilla-La Mancha", "CASTILLA-LA MANCHA"]
    assert [text[m.start:m.end] for m in idx.match(text, toks, case="exact")] == ["Castilla-La Mancha"]


def test_speed_on_adversarial_capitalised_text(es: GazetteerDetector) -> None:
    text = " ".join(["Juan García Hospital Universitario De La Paz"] * 6000)  # ~270 k chars, all capitalised
    t = time.process_time()
    spans = es.analyze(text)
    assert time.process_time() - t < 10.0
    assert spans
