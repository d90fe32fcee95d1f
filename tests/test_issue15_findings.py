"""The seven findings of issue 15 ("safe by default"), each as a test written against the public API that existed
before the fix (the CLI, ``Pipeline``, ``Anonymizer``, ``SurrogateOperator``), so that the same file shows the
failure on the old code and the fix on the new. Detailed tests live in test_language_id, test_metadata_policy,
test_recall_first, test_normalize, test_value_end, test_surrogate_realism, test_loud_errors and test_leak_suite."""

from __future__ import annotations

import csv
import datetime as dt
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinanon.cli import app
from clinanon.document import Document, Span
from clinanon.pipeline import Pipeline
from clinanon.transform import Anonymizer
from clinanon.transform.surrogate import SurrogateOperator

runner = CliRunner()
KEY = "3c" * 32


def _outputs(folder: Path) -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.txt"))]


# 1. no language given: identified, not assumed Spanish; an unsupported language is refused, not processed
def test_1_an_english_note_without_a_language_loses_its_phi(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text(
        "Patient Ronald Pickering was admitted to Lakeview General Hospital on 03/14/2021 with chest pain. "
        "Call his daughter at (312) 555-0143.", encoding="utf-8")
    res = runner.invoke(app, ["deidentify", str(tmp_path / "in"), "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    [text] = _outputs(tmp_path / "out")
    for phi in ("Ronald", "Pickering", "Lakeview", "03/14/2021", "555-0143"):
        assert phi not in text, phi


def test_1_a_note_in_an_unsupported_language_is_an_error_record(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "fr.txt").write_text(
        "Le patient Jean Dupont a été hospitalisé le 3 mars 2021 pour une douleur thoracique. Sa fille est "
        "joignable au 06 12 34 56 78. Il rentre chez lui demain avec un traitement par aspirine.", encoding="utf-8")
    res = runner.invoke(app, ["deidentify", str(tmp_path / "in"), "--out", str(tmp_path / "out")])
    assert _outputs(tmp_path / "out") == [] if (tmp_path / "out").exists() else True
    errors = [json.loads(line) for p in tmp_path.glob("out*errors*") for line in p.read_text().splitlines()]
    assert len(errors) == 1, res.output
    assert "Dupont" not in json.dumps(errors) and "Dupont" not in res.output


# 2. metadata columns are not copied verbatim
def test_2_csv_columns_with_phi_are_not_copied(tmp_path: Path) -> None:
    src = tmp_path / "notes.csv"
    with src.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "text", "mrn", "patient_name", "dob"])
        w.writerow(["MRN-77120934", "Paciente revisado en consulta, sin cambios.", "77120934", "Eulalia Cabrero",
                    "1950-02-11"])
    out = tmp_path / "deid.csv"
    res = runner.invoke(app, ["deidentify", str(src), "--out", str(out), "--lang", "es"])
    assert res.exit_code == 0, res.output
    written = out.read_text(encoding="utf-8")
    for value in ("77120934", "Eulalia", "Cabrero", "1950-02-11"):
        assert value not in written, value


# 3. names the rules find are not dropped by the default Spanish pipeline
@pytest.mark.parametrize("text,name", [
    ("Acude D. Manuel García López a la consulta de cardiología.", "García"),
    ("Valorada por la Dra. Isabel Martín en urgencias.", "Martín"),
    ("La paciente, Carmen Ruiz, refiere dolor abdominal.", "Carmen"),
])
def test_3_the_default_spanish_pipeline_keeps_no_name_the_rules_find(text: str, name: str) -> None:
    rules = Pipeline.from_config(language="es", detectors={"use": ["rules"]})
    assert name not in rules.deidentify(Document("r", text)).text  # the rules find it
    assert name not in Pipeline.from_config(language="es").deidentify(Document("d", text)).text


# 4. invisible and confusable characters do not let a name through
@pytest.mark.parametrize("name", ["Gar\u200bcía", "Gar\u00adcía", "G\u0430rcía"])  # ZWSP, soft hyphen, Cyrillic a
def test_4_a_name_with_an_invisible_or_confusable_character_is_replaced(name: str) -> None:
    text = f"Paciente: María {name} Ortega, ingresada el 03/02/2021."
    out = Pipeline.from_config(language="es", detectors={"use": ["rules"]}).deidentify(Document("z", text)).text
    assert "cía" not in out and "Ortega" not in out, out


# 5. an address stops at the sentence end: the clinical text after it is kept
@pytest.mark.parametrize("lang,text,street,kept", [
    ("sv", "Adress: Storgatan 12, 111 22 Stockholm. Inkom med bröstsmärta sedan två dagar.", "Storgatan",
     "bröstsmärta"),
    ("en", "Address: 12 Elm Street, Springfield. Admitted with chest pain and dyspnea.", "Elm Street", "chest pain"),
    ("es", "Domicilio: C/ Mayor 5, Toledo. Acude por dolor torácico de dos días.", "Mayor 5", "dolor torácico"),
    ("de", "Adresse: Hauptstraße 3, 10115 Berlin. Aufnahme wegen Thoraxschmerzen seit zwei Tagen.", "Hauptstraße",
     "Thoraxschmerzen"),
    ("nl", "Adres: Dorpsstraat 8, 1234 AB Hoorn. Opname wegens pijn op de borst sinds twee dagen.", "Dorpsstraat",
     "pijn op de borst"),
])
def test_5_an_address_does_not_run_to_the_end_of_the_line(lang: str, text: str, street: str, kept: str) -> None:
    out = Pipeline.from_config(language=lang, detectors={"use": ["rules"]}).deidentify(Document("a", text)).text
    assert kept in out and street not in out, out


# 6. surrogates that do not betray themselves
def _anonymize(lang: str, parts: list[tuple[str, str | None]]) -> str:
    text, spans, pos = "", [], 0
    for piece, cat in parts:
        if cat is not None:
            spans.append(Span(pos, pos + len(piece), cat))
        text += piece
        pos += len(piece)
    op = SurrogateOperator(key=KEY, scope="document")
    return Anonymizer({"*": op}, lang=lang).anonymize(Document("s", text, tuple(spans))).text


def test_6_a_swedish_date_taken_for_an_id_stays_a_valid_date() -> None:
    out = _anonymize("sv", [("Provtagning ", None), ("2013-06-08", "ID.IDNUM"), (" kl 10.", None)])
    new = out.split()[1]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", new), out
    dt.date.fromisoformat(new)  # raises on "1366-08-60"


def test_6_a_capped_age_reads_naturally() -> None:
    out = _anonymize("en", [("The ", None), ("95", "AGE"), ("-year-old man.", None)])
    assert re.fullmatch(r"The \d+-year-old man\.", out), out


def test_6_a_dutch_postcode_inside_an_address_is_replaced_whole() -> None:
    out = _anonymize("nl", [("Woont te ", None), ("Kerkstraat 14, 3512 PK Utrecht", "LOCATION.STREET"), (".", None)])
    m = re.search(r"\b(\d{4}) ?([A-Z]{2})\b", out)
    assert m is not None and m.group(2) != "PK" and "Utrecht" not in out, out


# 7. errors that must be loud
def test_7_evaluate_with_labels_of_another_scheme_is_not_a_silent_zero(tmp_path: Path) -> None:
    gold = tmp_path / "gold"
    gold.mkdir()
    (gold / "n.txt").write_text("Paciente Lucía Romero, 45 años.", encoding="utf-8")
    (gold / "n.ann").write_text("T1\tNOMBRE_SUJETO_ASISTENCIA 9 21\tLucía Romero\n", encoding="utf-8")
    cfg = tmp_path / "c.toml"
    cfg.write_text('language = "es"\n[detectors]\nuse = ["rules"]\n', encoding="utf-8")
    res = runner.invoke(app, ["evaluate", "--gold", str(gold), "--config", str(cfg)])
    assert res.exit_code != 0 or "warning" in res.output.lower(), res.output
    assert "scheme" in res.output.lower(), res.output


def test_7_a_lone_surrogate_in_a_jsonl_line_is_one_error_record(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": "a", "text": "Sin cambios."}\n{"id": "b", "text": "x\\ud800y"}\n'
                   '{"id": "c", "text": "Buena evolución."}\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["deidentify", str(src), "--out", str(out), "--lang", "es"])
    assert res.exit_code == 1 and res.exception is not None and isinstance(res.exception, SystemExit), res.output
    assert len(out.read_text(encoding="utf-8").splitlines()) == 2
    errors = Path(str(out) + ".errors.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(errors) == 1


def test_7_a_bare_long_number_is_masked() -> None:
    text = "Referencia 4417203958812 y expediente 1234567890123456789012345678901234567890."
    out = Pipeline.from_config(language="es", detectors={"use": ["rules"]}).deidentify(Document("n", text)).text
    assert "4417203958812" not in out and "12345678901234567890" not in out, out
