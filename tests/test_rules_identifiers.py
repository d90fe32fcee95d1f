"""Identifier recognizers: field-label values and checksum-validated numbers."""

from __future__ import annotations

import time

import pytest

from clinanon.detect.base import Detector
from clinanon.detect.rules import identifiers as ids
from clinanon.document import Document, Span


def _field(lang: str) -> ids.FieldValueRecognizer:
    return ids.FieldValueRecognizer(lang)


def _values(spans: list[Span], text: str) -> list[tuple[str, str]]:
    return [(text[s.start:s.end], s.label) for s in spans]


# --- field values (MEDDOCAN-style header) -------------------------------------------------------------------
def test_meddocan_header() -> None:
    text = ("Datos del paciente.\nNombre:  Ernesto.\nApellidos: Rivera Bueno.\nNHC: 368503.\n"
            "NASS: 26 63514095.\nDomicilio:  Calle Miguel Benitez 90.\nCP: 28016.\n"
            "Fecha de Ingreso: 12/12/2016.\nEpisodio: 7348563.\n"
            "Médico:  Ignacio Navarro Cuéllar NºCol: 28 28 70973.\nCIPA: nhc-4654652.\n")
    assert _values(_field("es").analyze(text), text) == [
        ("368503", "ID.MEDICALRECORD"),
        ("26 63514095", "ID.HEALTHPLAN"),
        ("7348563", "ID.ACCOUNT"),
        ("28 28 70973", "ID.LICENSE"),
        ("4654652", "ID.MEDICALRECORD"),  # the "nhc-" prefix is not part of the value (MEDDOCAN)
    ]


@pytest.mark.parametrize("text,value,label", [
    ("MartínezNºCol: 28 28 98702.", "28 28 98702", "ID.LICENSE"),  # label glued to the name
    ("NºCol: 08 08  53412.", "08 08  53412", "ID.LICENSE"),  # double space inside the value
    ("Número de colegiado 282870973", "282870973", "ID.LICENSE"),
    ("Nº Historia clínica: 87293652/875", "87293652/875", "ID.MEDICALRECORD"),
    ("NHC 1234567 NASS 28 12345678 40", "1234567", "ID.MEDICALRECORD"),
    ("DNI: 12345678-Z, soltero", "12345678-Z", "ID.IDNUM"),
    ("Nº de la Seguridad Social: 28/12345678/40", "28/12345678/40", "ID.HEALTHPLAN"),
])
def test_spanish_labels(text: str, value: str, label: str) -> None:
    spans = _field("es").analyze(text)
    assert _values(spans, text)[0] == (value, label)


@pytest.mark.parametrize("lang,text,value,label", [
    ("en", "MRN: 00123456\n", "00123456", "ID.MEDICALRECORD"),
    ("en", "Medical record number 4455-221 on file", "4455-221", "ID.MEDICALRECORD"),
    ("en", "SSN: 536-22-1234", "536-22-1234", "ID.SSN"),
    ("en", "Account # 88812 7710", "88812 7710", "ID.ACCOUNT"),
    ("en", "NHS number 943 476 5919", "943 476 5919", "ID.HEALTHPLAN"),
    ("en", "DEA number AB1234563", "AB1234563", "ID.LICENSE"),
    ("nl", "Patiëntnummer: 1234567, BSN 111222333", "1234567", "ID.MEDICALRECORD"),
    ("nl", "BSN 111222333", "111222333", "ID.SSN"),
    ("nl", "polisnummer: ZK-998877", "ZK-998877", "ID.HEALTHPLAN"),
    ("sv", "Personnummer: 19121212-1212", "19121212-1212", "ID.SSN"),
    ("sv", "Journalnummer 2019-4471", "2019-4471", "ID.MEDICALRECORD"),
    ("de", "Fallnummer: 20190001234", "20190001234", "ID.ACCOUNT"),
    ("de", "Versichertennummer A123456780", "A123456780", "ID.HEALTHPLAN"),
    ("de", "Patienten-ID: 778899", "778899", "ID.MEDICALRECORD"),
])
def test_labels_other_languages(lang: str, text: str, value: str, label: str) -> None:
    assert _values(_field(lang).analyze(text), text)[0] == (value, label)


@pytest.mark.parametrize("lang,text", [
    ("es", "Fecha de ingreso: 12/12/2016."),  # "ingreso" without a number sign is not a field
    ("es", "La historia de 3 años de evolución; historia clínica sin interés."),
    ("es", "NHC: pendiente.\nEdad: 70 años."),
    ("es", "Nº de episodios: 12 en 2 meses."),
    ("es", "el cuidado del paciente 1234567 veces"),
    ("en", "Taking into account 2019 guidelines, the patient ID was not recorded."),
    ("en", "ID 1234 without a separator"),  # a weak label needs ":" / "#" / "="
    ("nl", "BSN onbekend, id-kaart niet getoond."),
    ("de", "Fallbesprechung am 12.05.2019."),
])
def test_field_negatives(lang: str, text: str) -> None:
    assert _field(lang).analyze(text) == []


def test_weak_labels_need_a_separator() -> None:
    assert _values(_field("en").analyze("ID: 884512"), "ID: 884512") == [("884512", "ID.IDNUM")]
    assert _field("en").analyze("ID 884512") == []
    weak = _field("en").analyze("ID: 884512")[0].score
    strong = _field("en").analyze("MRN: 884512")[0].score
    assert weak < strong


def test_label_regex_matches_labels_only() -> None:
    rx = ids.id_label_regex("es")
    assert [m.group() for m in rx.finditer("NHC: 1. NASS: 2. Episodio: 3. Calle Mayor 5")] == [
        "NHC", "NASS", "Episodio"]


# --- checksum recognizers --------------------------------------------------------------------------------------
def _checks(lang: str) -> ids.ChecksumRecognizer:
    return ids.ChecksumRecognizer(lang)


@pytest.mark.parametrize("lang,text,value,name", [
    ("es", "con DNI 12345678Z acude", "12345678Z", "dni"),
    ("es", "NIE X1234567L", "X1234567L", "nie"),
    ("es", "afiliado 28 12345678 40 en", "28 12345678 40", "nass"),
    ("nl", "burgerservicenummer 1234.56.782", "1234.56.782", "bsn"),
    ("sv", "pat 811218-9876 inkom", "811218-9876", "personnummer"),
    ("sv", "samordningsnummer 701063-2391", "701063-2391", "personnummer"),
    ("de", "Versicherter A123456780", "A123456780", "kvnr"),
    ("en", "SSN 536-22-1234", "536-22-1234", "us_ssn"),
    ("en", "card 4111 1111 1111 1111 expired", "4111 1111 1111 1111", "credit_card"),
    ("en", "IBAN GB82 WEST 1234 5698 7654 32 please", "GB82 WEST 1234 5698 7654 32", "iban"),
    ("es", "cuenta ES91 2100 0418 4502 0005 1332.", "ES91 2100 0418 4502 0005 1332", "iban"),
    ("en", "my iban is gb82west12345698765432", "gb82west12345698765432", "iban"),
])
def test_checksum_positive(lang: str, text: str, value: str, name: str) -> None:
    spans = _checks(lang).analyze(text)
    assert [(text[s.start:s.end], s.source.split(":")[1]) for s in spans] == [(value, name)]


@pytest.mark.parametrize("lang,text", [
    ("es", "DNI 12345678A"),  # wrong letter
    ("es", "NASS 28 12345678 41"),  # wrong control
    ("es", "Hb 12.5, TA 120/80, 1.000.000 UI, T4N0M0, C61, 12/05/2019"),
    ("nl", "nummer 123456789"),  # fails the 11-test
    ("sv", "811218-9877 och 811318-9876"),  # bad check digit, month 13
    ("de", "Code A123456781"),
    ("en", "SSN 666-12-3456 or 900-12-3456"),
    ("en", "card 4111 1111 1111 1112"),
    ("en", "IBAN GB82WEST12345698765433"),
])
def test_checksum_negative(lang: str, text: str) -> None:
    assert _checks(lang).analyze(text) == []


def test_checksum_context_raises_score() -> None:
    bsn = _checks("nl")
    assert bsn.analyze("nummer 111222333")[0].score == 0.4
    assert bsn.analyze("BSN 111222333")[0].score == 0.7
    ssn = _checks("en")
    assert ssn.analyze("ref 536221234")[0].score == 0.2  # a bare 9-digit number is a weak SSN
    assert ssn.analyze("social security 536221234")[0].score == 0.5


def test_named_checks_alone() -> None:
    # each check is a named, testable pattern + validator
    for lang, checks in ids._CHECKS.items():
        for ck in checks:
            assert ck.name and ck.label.startswith("ID.") and 0 < ck.score <= 1, lang
    card = ids._CARD
    assert card.shape.fullmatch("4111-1111-1111-1111") and card.validator("4111-1111-1111-1111")
    assert not card.shape.fullmatch("4111-11111-111-1111")


# --- module API -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "es", "nl", "sv", "de"])
def test_recognizers_protocol(lang: str) -> None:
    dets = ids.recognizers(lang)
    assert len(dets) == 3 and all(isinstance(d, Detector) for d in dets)
    assert ids.recognizers(lang)[0] is dets[0]
    doc = Document("d", "NHC: 1234567. MRN: 7654321. BSN 111222333.")
    for d in dets:
        assert d.detect(doc) == d.analyze(doc.text)  # type: ignore[attr-defined]


def test_meddocan_train_sample(meddocan_dir) -> None:  # type: ignore[no-untyped-def]
    """Recall and precision of the field values on 60 MEDDOCAN training documents (numeric gold ids only)."""
    labels = {"ID_SUJETO_ASISTENCIA", "ID_ASEGURAMIENTO", "ID_TITULACION_PERSONAL_SANITARIO", "ID_CONTACTO_ASISTENCIAL"}
    rec = _field("es")
    tp = n_gold = n_pred = 0
    for txt in sorted((meddocan_dir / "train" / "brat").glob("*.txt"))[:60]:
        text = txt.read_text(encoding="utf-8")
        gold = set()
        for line in txt.with_suffix(".ann").read_text(encoding="utf-8").splitlines():
            if line.startswith("T"):
                lab, a, b = line.split("\t")[1].split()[:3]
                if lab in labels and any(c.isdigit() for c in text[int(a):int(b)]):
                    gold.add((int(a), int(b)))
        pred = {(s.start, s.end) for s in rec.analyze(text)}
        tp += len(gold & pred)
        n_gold += len(gold)
        n_pred += len(pred)
    assert n_gold > 100
    assert tp / n_gold >= 0.97 and tp / n_pred >= 0.97


# --- adversarial input ------------------------------------------------------------------------------------------
_ADVERSARIAL = {
    "capitalised words": " ".join(["NHC", "Historia", "Nº", "Col", "García"][i % 5] for i in range(100_000)),
    "one long line": ("NASS: 12 34 Episodio " * 50_000)[:1_000_000],
    "digits": "1" * 1_000_000,
    "dashed ones": "1-" * 500_000,
    "spaced digits": "12 " * 333_333,
    "labels": "NHC: " * 50_000,
}


@pytest.mark.parametrize("name", list(_ADVERSARIAL))
def test_adversarial_inputs_finish_quickly(name: str) -> None:
    text = _ADVERSARIAL[name]
    for det in ids.recognizers("es") + ids.recognizers("en")[1:]:
        t0 = time.process_time()
        det.analyze(text)  # type: ignore[attr-defined]
        assert time.process_time() - t0 < 5.0, (name, det.name)
