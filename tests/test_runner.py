"""clinanon.runner: a configured pipeline over a corpus through the batch runner, without the CLI."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from clinanon import io as cio
from clinanon.config import Config
from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.runner import BatchJob, PipelineFactory, count_inputs, output_format, prepare_batch, run_pipeline

TEXT = "Paciente Eustaquio Ribera ingresó el 03/04/2020."
GOLD = (Span(9, 25, "NAME.PATIENT"), Span(37, 47, "DATE"))


@pytest.fixture()
def notes(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    cio.write([Document(f"n{i}", TEXT, GOLD) for i in range(3)], path, "jsonl")
    return path


def _gold(**overrides: object) -> Config:
    return Config.from_dict({"detectors": {"use": ["gold"], "propagate_names": False}, **overrides})


def test_run_pipeline_deidentifies_with_progress(notes: Path, tmp_path: Path) -> None:
    seen: list[int] = []
    out = tmp_path / "out.jsonl"
    result = run_pipeline(notes, out, _gold(operators={"*": {"operator": "redact"}}), progress=seen.append)
    assert (result.processed, result.resumed, result.errors) == (3, 0, 0) and seen == [1, 2, 3]
    assert [d.text for d in cio.read(out)] == ["Paciente XXXX ingresó el XXXX."] * 3
    assert result.errors_path == tmp_path / "out.jsonl.errors.jsonl" and result.errors_path.read_text() == ""


def test_prepare_then_run_detect_only(notes: Path, tmp_path: Path) -> None:
    out = tmp_path / "spans"
    job = prepare_batch(notes, out, _gold(label_scheme="meddocan"), deidentify=False, out_format="brat")
    assert isinstance(job, BatchJob) and (job.in_format, job.out_format) == ("jsonl", "brat")
    assert job.description == "detecting (jsonl → brat)" and job.count_inputs() == 3
    result = job.run(workers=2)
    assert result.processed == 3
    assert {s.label for d in cio.read(out, "brat") for s in d.spans} == {"NOMBRE_SUJETO_ASISTENCIA", "FECHAS"}


def test_a_bad_config_fails_before_the_output_is_touched(notes: Path, tmp_path: Path) -> None:
    out = tmp_path / "o.jsonl"
    with pytest.raises(ConfigError, match=r"detectors\.models\.crf"):
        prepare_batch(notes, out, Config.from_dict({"detectors": {"use": ["crf"]}}))
    assert not out.exists() and not list(tmp_path.glob(".o.jsonl*"))


def test_a_user_scheme_of_the_config_is_registered_by_the_runner(notes: Path, tmp_path: Path) -> None:
    cfg = _gold(label_scheme="test-runner-scheme",
                schemes=[{"name": "test-runner-scheme", "labels": {"PACIENTE": "NAME.PATIENT", "FECHA": "DATE"}}])
    out = tmp_path / "o.jsonl"
    assert run_pipeline(notes, out, cfg, deidentify=False).processed == 3
    assert {s.label for d in cio.read(out) for s in d.spans} == {"PACIENTE", "FECHA"}


def test_formats_and_counts(notes: Path, tmp_path: Path) -> None:
    assert output_format(tmp_path / "x.jsonl", None, "brat") == "jsonl"
    assert output_format(tmp_path / "x.jsonl", "conll", "brat") == "conll"
    assert output_format(tmp_path / "folder", None, "brat") == "brat"
    assert count_inputs(notes, "jsonl") == 3 and count_inputs(tmp_path / "missing.jsonl", "jsonl") is None


def test_the_factory_pickles_and_builds_a_batch_processor() -> None:
    factory = pickle.loads(pickle.dumps(PipelineFactory(_gold(), True)))
    proc = factory()
    doc = Document("d", TEXT, GOLD)
    assert proc(doc).text == "Paciente [NAME] ingresó el [DATE]."
    assert [r.text for r in proc.many([doc, doc])] == ["Paciente [NAME] ingresó el [DATE]."] * 2
