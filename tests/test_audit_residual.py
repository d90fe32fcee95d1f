"""Residual PHI: exact, folded and partial survival, the unannotated split, TAB entity recall, real operators."""

from __future__ import annotations

import json

import pytest

from clinanon import Document, Span
from clinanon.audit._text import date_triples, digit_runs, fold, parse_date
from clinanon.audit.corpus import sanitize
from clinanon.audit.residual import identifier_kind, residual_phi

TEXT = "Paciente: Juan García. NHC 12.345.678. Ingreso el 03/04/2019 en Madrid. García refiere dolor."


def _span(text: str, phrase: str, label: str, nth: int = 0) -> Span:
    start = -1
    for _ in range(nth + 1):
        start = text.index(phrase, start + 1)
    return Span(start, start + len(phrase), label)


def original() -> Document:
    return Document("d1", TEXT, (
        _span(TEXT, "Juan García", "NAME.PATIENT"),
        _span(TEXT, "12.345.678", "ID.MEDICALRECORD"),
        _span(TEXT, "03/04/2019", "DATE"),
        _span(TEXT, "Madrid", "LOCATION.CITY"),
        _span(TEXT, "García", "NAME.PATIENT", nth=1),
    ))


def _levels(out_text: str) -> dict:
    return residual_phi([original()], {"d1": out_text}).to_dict()


def test_text_helpers() -> None:
    assert fold("GARCÍA Muñoz") == "garcia munoz"
    assert parse_date("3 de abril de 2019") == (2019, 4, 3) == parse_date("2019-04-03") == parse_date("03/04/2019")
    assert parse_date("April 3, 2019", "en") == (2019, 4, 3)
    assert (2019, 4, None) in date_triples("ingresó en abril de 2019")
    assert digit_runs("NHC 12.345.678-Z, tel 91 234 56 78") == ["12345678", "912345678"]
    assert identifier_kind("NAME.DOCTOR") == "direct" and identifier_kind("LOCATION.STREET") == "direct"
    assert identifier_kind("LOCATION.CITY") == "quasi" and identifier_kind("DATE") == "quasi"


def test_fully_masked_output_leaks_nothing() -> None:
    d = _levels("Paciente: [NAME]. NHC [ID]. Ingreso el [DATE] en [LOCATION]. [NAME] refiere dolor.")
    for level in ("exact", "folded", "partial"):
        assert d["overall"][level]["leaked"] == 0
    assert d["entity_recall"]["direct"]["partial"]["recall"] == 1.0
    assert d["token_recall"]["recall"] == 1.0


def test_each_level_catches_its_own_kind_of_leak() -> None:
    # the name in capitals: folded, not exact
    d = _levels("Paciente: JUAN GARCIA. NHC [ID]. Ingreso el [DATE] en [LOCATION]. [NAME] refiere dolor.")
    cat = d["by_category"]["NAME.PATIENT"]
    assert cat["exact"]["leaked"] == 0 and cat["folded"]["leaked"] == 2  # "García" survives inside "JUAN GARCIA"
    # the surname alone: partial only for the full name, exact for the single-word mention
    d = _levels("Paciente: Sr. García. NHC [ID]. Ingreso el [DATE] en [LOCATION]. [NAME] refiere dolor.")
    cat = d["by_category"]["NAME.PATIENT"]
    assert (cat["exact"]["leaked"], cat["partial"]["leaked"]) == (1, 2)
    # the digits of the ID without separators, and the date in another format
    d = _levels("Paciente: [NAME]. NHC 12345678. Ingreso el 3 de abril de 2019 en [LOCATION]. [NAME] refiere.")
    assert d["by_category"]["ID.MEDICALRECORD"]["exact"]["leaked"] == 0
    assert d["by_category"]["ID.MEDICALRECORD"]["partial"]["leaked"] == 1
    assert d["by_category"]["DATE"]["exact"]["leaked"] == 0 and d["by_category"]["DATE"]["partial"]["leaked"] == 1
    assert d["by_identifier"]["direct"]["partial"]["leaked"] == 1
    assert d["by_identifier"]["quasi"]["partial"]["leaked"] == 1


def test_a_surrogate_equal_to_the_original_is_a_leak() -> None:
    d = _levels("Paciente: Pedro Sanz. NHC 99.111.222. Ingreso el 10/05/2019 en Madrid. Sanz refiere dolor.")
    assert d["by_category"]["LOCATION.CITY"]["exact"]["leaked"] == 1
    assert d["by_category"]["LOCATION.CITY"]["exact"]["beyond_unannotated"] == 1
    assert d["by_category"]["NAME.PATIENT"]["partial"]["leaked"] == 0


def test_entity_is_protected_only_when_every_mention_is() -> None:
    # the first "García" masked, the second left: the entity "García" is not protected; "Juan García" is
    d = _levels("Paciente: [NAME]. NHC [ID]. Ingreso el [DATE] en [LOCATION]. García refiere dolor.")
    direct = d["entity_recall"]["direct"]
    assert direct["entities"] == 3  # "juan garcia", "garcia", the NHC
    # exact: only the second mention's own string survives -> one of the three entities unprotected
    assert direct["exact"]["recall"] == pytest.approx(2 / 3, abs=1e-3)
    # partial: "garcia" is also a part of "Juan García" -> two unprotected
    assert direct["partial"]["recall"] == pytest.approx(1 / 3, abs=1e-3)


def test_unannotated_repetitions_are_counted_apart() -> None:
    text = "Ana vive en Lugo. Lugo es su ciudad."  # the second "Lugo" is not annotated (a gold gap)
    doc = Document("x", text, (Span(12, 16, "LOCATION.CITY"),))
    d = residual_phi([doc], {"x": "Ana vive en [LOCATION]. Lugo es su ciudad."}).to_dict()
    lvl = d["overall"]["exact"]
    assert lvl["leaked"] == 1 and lvl["beyond_unannotated"] == 0
    d = residual_phi([doc], {"x": "Ana vive en Lugo. Lugo es su ciudad."}).to_dict()
    assert d["overall"]["exact"]["beyond_unannotated"] == 1


def test_missing_documents_are_counted_and_reports_hold_no_text() -> None:
    rep = residual_phi([original(), Document("d2", "x")], {"d1": TEXT})
    d = rep.to_dict()
    assert d["documents"] == 1 and d["missing_documents"] == 1
    dumped = json.dumps(d) + repr(rep) + "".join(repr(c) for c in rep.checks)
    for secret in ("Garc", "Juan", "Madrid", "345"):
        assert secret not in dumped


def test_real_operators_on_gold_spans() -> None:
    docs = [original()]
    tagged = sanitize(docs, "tag")
    assert residual_phi(docs, tagged).to_dict()["overall"]["partial"]["leaked"] == 0
    kept = sanitize(docs, "keep")
    d = residual_phi(docs, kept).to_dict()
    assert d["overall"]["exact"]["leaked"] == 5 and d["entity_recall"]["all"]["exact"]["recall"] == 0.0


def test_meddocan_dev_tag_leaves_only_unannotated_strings(meddocan_dir) -> None:
    from clinanon import io as cio

    docs = list(cio.read(meddocan_dir / "dev" / "brat", "brat"))[:40]
    d = residual_phi(docs, sanitize(docs, "redact", scheme="meddocan"), scheme="meddocan").to_dict()
    assert d["overall"]["folded"]["beyond_unannotated"] == 0
    assert d["overall"]["mentions"] > 500
