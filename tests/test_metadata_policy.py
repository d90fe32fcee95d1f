"""Issue 15, finding 2: de-identified outputs keep only the metadata that is asked for (clinanon.metadata)."""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinanon import io as cio
from clinanon.cli import app
from clinanon.config import Config
from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.metadata import MetadataPolicy
from clinanon.runner import run_pipeline

runner = CliRunner()
KEY = "0f" * 32
OTHER_KEY = "a5" * 32
NAME = "Eustaquio Ribera"
MRN = "48213377"
TEXT = f"Paciente {NAME} ingresó el 03/04/2020."
GOLD = [{"start": 9, "end": 25, "label": "NAME.PATIENT"}, {"start": 37, "end": 47, "label": "DATE"}]
HEADER = ["id", "text", "spans", "mrn", "patient_name", "dob", "ward", "patient_id", "comment"]


def _row(doc_id: str, patient: str, dob: str, comment: str) -> list[str]:
    return [doc_id, TEXT, json.dumps(GOLD), MRN, NAME, dob, "B3", patient, comment]


@pytest.fixture()
def notes_csv(tmp_path: Path) -> Path:
    path = tmp_path / "notes.csv"
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(HEADER)
        w.writerow(_row(f"MRN-{MRN}-a", "P001", "1956-03-12", "Revisado el 03/04/2020."))
        w.writerow(_row(f"MRN-{MRN}-b", "P001", "1956-03-12", "Sin cambios."))
        w.writerow(_row("note-3", "P002", "12/11/1949", ""))
    return path


def _gold(**overrides: object) -> Config:
    return Config.from_dict({"language": "es", "detectors": {"use": ["gold"], "propagate_names": False},
                             **overrides})


def _read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_by_default_columns_are_dropped_and_ids_replaced(notes_csv: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLINANON_SURROGATE_KEY", raising=False)
    out = tmp_path / "deid.csv"
    result = run_pipeline(notes_csv, out, _gold())
    assert (result.processed, result.errors) == (3, 0)
    raw = out.read_text(encoding="utf-8")
    for secret in (MRN, NAME, "1956", "P001", "B3", "Revisado"):
        assert secret not in raw
    rows = _read_csv(out)
    assert [r["id"] for r in rows] == ["record-000001", "record-000002", "record-000003"]
    assert set(rows[0]) == {"id", "text", "spans", "replacements"}
    assert rows[0]["text"] == "Paciente [NAME] ingresó el [DATE]."


def test_a_key_gives_stable_pseudonyms(notes_csv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLINANON_SURROGATE_KEY", KEY)
    cfg = _gold(metadata={"pseudonymize_fields": ["patient_id"]})
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    run_pipeline(notes_csv, a, cfg)
    run_pipeline(notes_csv, b, cfg, workers=2)
    assert a.read_text(encoding="utf-8") == b.read_text(encoding="utf-8")  # same key: same pseudonyms
    docs = list(cio.read(a))
    ids = [d.id for d in docs]
    assert len(set(ids)) == 3 and all(len(i) == 20 and MRN not in i for i in ids)
    pids = [d.meta["patient_id"] for d in docs]
    assert pids[0] == pids[1] != pids[2] and "P001" not in pids  # one patient, one pseudonym: tables still join
    monkeypatch.setenv("CLINANON_SURROGATE_KEY", OTHER_KEY)
    c = tmp_path / "c.jsonl"
    run_pipeline(notes_csv, c, cfg)
    assert {d.id for d in cio.read(c)}.isdisjoint(ids)  # another key: unrelated pseudonyms


def test_listed_fields_are_kept_deidentified_pseudonymized_or_generalized(notes_csv: Path, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLINANON_SURROGATE_KEY", KEY)
    cfg = Config.from_dict({"language": "es", "detectors": {"use": ["rules"]}, "metadata": {
        "ids": "sequence", "keep_fields": ["ward"], "deidentify_fields": ["comment"],
        "pseudonymize_fields": ["mrn"], "date_fields": ["dob"]}})
    out = tmp_path / "deid.jsonl"
    run_pipeline(notes_csv, out, cfg)
    docs = list(cio.read(out))
    first = docs[0].meta
    assert first["ward"] == "B3"
    assert first["comment"] == "Revisado el [DATE]."
    assert first["mrn"] != MRN and len(first["mrn"]) == 20
    assert first["dob"] == "1956"  # the DATE operator is not a surrogate in patient scope: the year only
    assert "patient_name" not in first and "patient_id" not in first
    assert docs[2].meta["dob"] == "1949" and "comment" not in docs[2].meta  # empty CSV cells are not read


def test_date_field_moves_with_the_patients_surrogate_date_shift(notes_csv: Path, tmp_path: Path) -> None:
    cfg = _gold(operators={"*": {"operator": "surrogate", "scope": "patient", "key": KEY}},
                metadata={"date_fields": ["dob"]})
    out = tmp_path / "deid.jsonl"
    run_pipeline(notes_csv, out, cfg)
    docs = list(cio.read(out))

    def shift(doc: Document) -> int:
        [rep] = [r for r in doc.meta["replacements"] if r["category"] == "DATE"]
        new = doc.text[rep["out_start"]:rep["out_end"]]
        return (dt.datetime.strptime(new, "%d/%m/%Y") - dt.datetime(2020, 4, 3)).days

    note_shift = shift(docs[0])
    assert note_shift != 0 and shift(docs[1]) == note_shift  # one patient, one offset
    dob = dt.datetime.strptime(docs[0].meta["dob"], "%Y-%m-%d")  # same format as the input
    assert (dob - dt.datetime(1956, 3, 12)).days == note_shift  # the interval between birth and the note is kept
    other = dt.datetime.strptime(docs[2].meta["dob"], "%d/%m/%Y")
    assert (other - dt.datetime(1949, 11, 12)).days == shift(docs[2])  # patient P002: its own offset


def test_a_value_that_cannot_be_handled_is_an_error_not_a_leak(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    rows = [{"id": "a", "text": "hola", "meta": {"dob": "not a date at all"}},
            {"id": "b", "text": "hola", "meta": {"dob": "2001-02-03"}}]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "o.jsonl"
    result = run_pipeline(src, out, _gold(metadata={"date_fields": ["dob"], "date_method": "year"}))
    assert (result.processed, result.errors) == (1, 1)
    [err] = [json.loads(x) for x in result.errors_path.read_text(encoding="utf-8").splitlines()]
    assert "dob" in err["reason"] and "not a date" not in err["reason"]
    assert (err["record"], err["line"], err["path"], err["doc_id"]) == (1, 1, str(src), "record-000001")
    assert [d.meta["dob"] for d in cio.read(out)] == ["2001"]


def test_errors_report_names_records_by_line_and_output_id_never_the_input_id(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    lines = [json.dumps({"id": "MRN-48213377", "text": "hola"}), "{broken",
             json.dumps({"id": "MRN-99110022", "text": "Ana vino.", "meta": {"patient_id": ""},
                         "spans": [{"start": 0, "end": 3, "label": "NAME.PATIENT"}]})]
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "o.jsonl"
    cfg = _gold(operators={"*": {"operator": "surrogate", "scope": "patient", "missing_patient": "error",
                                 "key": KEY}})
    result = run_pipeline(src, out, cfg)
    report = result.errors_path.read_text(encoding="utf-8")
    errors = [json.loads(x) for x in report.splitlines()]
    assert [(e["record"], e["line"]) for e in errors] == [(2, 2), (3, 3)]
    assert "MRN-99110022" not in report and "MRN-48213377" not in out.read_text(encoding="utf-8")
    pseudonym = errors[1]["doc_id"]  # the surrogate key names outputs by pseudonym: the report does too
    assert len(pseudonym) == 20 and f"'{pseudonym}'" in errors[1]["reason"]


def test_detect_keeps_ids_and_metadata_for_evaluation(notes_csv: Path, tmp_path: Path) -> None:
    out = tmp_path / "spans.jsonl"
    run_pipeline(notes_csv, out, _gold(), deidentify=False)
    docs = list(cio.read(out))
    assert docs[0].id == f"MRN-{MRN}-a" and docs[0].meta["mrn"] == MRN


def test_policy_needs_a_key_for_pseudonyms(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLINANON_SURROGATE_KEY", raising=False)
    with pytest.raises(ConfigError, match="--key-file"):
        MetadataPolicy.from_config(Config.from_dict({"metadata": {"pseudonymize_fields": ["patient_id"]}}))
    with pytest.raises(ConfigError, match="both keep_fields and pseudonymize_fields"):
        Config.from_dict({"metadata": {"keep_fields": ["x"], "pseudonymize_fields": ["x"]}})
    policy = MetadataPolicy.from_config(Config())
    assert policy.ids == "sequence" and policy.output_id(7, "MRN-1") == "record-000007"
    doc = Document("d", "t", (Span(0, 1, "X"),), {"lang": "es", "mrn": "1"})
    assert policy.output_meta(doc, {}) == {"lang": "es"}


def test_cli_flags_and_key_file_without_a_surrogate_operator(notes_csv: Path, tmp_path: Path) -> None:
    key = tmp_path / "k.key"
    assert runner.invoke(app, ["keygen", str(key)]).exit_code == 0
    cfg = tmp_path / "gold.toml"
    cfg.write_text('language = "es"\n[detectors]\nuse = ["gold"]\npropagate_names = false\n', encoding="utf-8")
    out = tmp_path / "o.jsonl"
    result = runner.invoke(app, ["deidentify", str(notes_csv), "--out", str(out), "--config", str(cfg),
                                 "--key-file", str(key), "--keep-field", "ward", "--pseudonymize-field",
                                 "patient_id", "--date-field", "dob", "--date-method", "year"])
    assert result.exit_code == 0, result.output
    [first, *_] = list(cio.read(out))
    assert len(first.id) == 20 and first.meta["ward"] == "B3" and first.meta["dob"] == "1956"
    assert first.meta["patient_id"] != "P001" and "mrn" not in first.meta
    template = tmp_path / "c.toml"
    assert runner.invoke(app, ["init-config", str(template)]).exit_code == 0
    text = template.read_text(encoding="utf-8")
    assert "[metadata]" in text and "pseudonymize_fields" in text
    assert Config.load(template).metadata.ids == "auto"
