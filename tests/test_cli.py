"""The CLI, through Typer's runner and once through the installed console script."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinanon import __version__
from clinanon import io as cio
from clinanon.cli import app
from clinanon.document import Document, Span

runner = CliRunner()
NAME = "Eustaquio"
TEXT = f"Paciente {NAME} Ribera ingresó el 03/04/2020.\nSexo: H."


@pytest.fixture()
def gold_jsonl(tmp_path: Path) -> Path:
    doc = Document("n1", TEXT, (Span(9, 25, "NAME.PATIENT"), Span(37, 47, "DATE"), Span(55, 56, "SEX")))
    path = tmp_path / "gold.jsonl"
    cio.write([doc], path, "jsonl")
    return path


@pytest.fixture()
def gold_config(tmp_path: Path) -> Path:
    path = tmp_path / "gold.toml"
    # the notes are Spanish (given: "hola" alone is too short for the language to be identified)
    path.write_text('language = "es"\n[detectors]\nuse = ["gold"]\npropagate_names = false\n', encoding="utf-8")
    return path


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and __version__ in result.stdout


def test_deidentify_with_operator_and_config(tmp_path: Path, gold_jsonl: Path, gold_config: Path) -> None:
    out = tmp_path / "out.jsonl"
    result = runner.invoke(app, ["deidentify", str(gold_jsonl), "--out", str(out), "--config", str(gold_config),
                                 "--operator", "redact"])
    assert result.exit_code == 0, result.output
    [doc] = list(cio.read(out))
    assert doc.text == "Paciente XXXX ingresó el XXXX.\nSexo: XXXX."
    assert NAME not in result.output
    assert len(doc.meta["replacements"]) == 3
    errors = out.parent / "out.jsonl.errors.jsonl"
    assert errors.exists() and errors.read_text() == ""


def test_deidentify_folder_to_folder_and_overwrite(tmp_path: Path, gold_jsonl: Path, gold_config: Path) -> None:
    out = tmp_path / "deid"
    args = ["deidentify", str(gold_jsonl), "--out", str(out), "--out-format", "text", "--config", str(gold_config)]
    assert runner.invoke(app, args).exit_code == 0
    # without a key the outputs are named by their record number (the input ids may be PHI: clinanon.metadata)
    assert (out / "record-000001.txt").read_text(encoding="utf-8").startswith("Paciente [NAME] ingresó el [DATE].")
    again = runner.invoke(app, args)
    assert again.exit_code == 2 and "--overwrite" in again.output
    assert runner.invoke(app, [*args, "--overwrite"]).exit_code == 0


def test_detect_writes_spans(tmp_path: Path, gold_jsonl: Path, gold_config: Path) -> None:
    out = tmp_path / "spans.jsonl"
    result = runner.invoke(app, ["detect", str(gold_jsonl), "--out", str(out), "--config", str(gold_config),
                                 "--scheme", "meddocan"])
    assert result.exit_code == 0, result.output
    [doc] = list(cio.read(out))
    assert doc.text == TEXT
    assert [s.label for s in doc.spans] == ["NOMBRE_SUJETO_ASISTENCIA", "FECHAS", "SEXO_SUJETO_ASISTENCIA"]


def test_bad_document_goes_to_errors_report(tmp_path: Path, gold_config: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "ok", "text": "hola"}) + "\n{broken\n", encoding="utf-8")
    out = tmp_path / "o.jsonl"
    result = runner.invoke(app, ["deidentify", str(src), "--out", str(out), "--config", str(gold_config)])
    assert result.exit_code == 1
    assert "1 processed" in result.output and "1 errors" in result.output
    [err] = [json.loads(x) for x in (tmp_path / "o.jsonl.errors.jsonl").read_text().splitlines()]
    assert err["line"] == 2


def test_evaluate_gold_vs_gold_and_known_errors(tmp_path: Path, gold_jsonl: Path) -> None:
    result = runner.invoke(app, ["evaluate", "--gold", str(gold_jsonl), "--pred", str(gold_jsonl), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["measures"]["entity_exact"]["micro"]["f1"] == 1.0
    # prediction: name found, date missed, sex found with the wrong label
    pred = Document("n1", TEXT, (Span(9, 25, "NAME.PATIENT"), Span(55, 56, "AGE")))
    pred_path = tmp_path / "pred.jsonl"
    cio.write([pred], pred_path, "jsonl")
    result = runner.invoke(app, ["evaluate", "--gold", str(gold_jsonl), "--pred", str(pred_path), "--json"])
    data = json.loads(result.stdout)
    exact = data["measures"]["entity_exact"]["micro"]
    assert (exact["tp"], exact["fp"], exact["fn"]) == (1, 1, 2)
    assert exact["precision"] == pytest.approx(0.5) and exact["recall"] == pytest.approx(1 / 3)
    span = data["measures"]["entity_span"]["micro"]  # subtask 2 ignores the label: 2 of 3 found, both predictions right
    assert (span["tp"], span["fp"], span["fn"]) == (2, 0, 1)
    table = runner.invoke(app, ["evaluate", "--gold", str(gold_jsonl), "--pred", str(pred_path)])
    assert table.exit_code == 0 and "0.5" in table.stdout


def test_evaluate_needs_pred_or_config(gold_jsonl: Path) -> None:
    result = runner.invoke(app, ["evaluate", "--gold", str(gold_jsonl)])
    assert result.exit_code == 2 and "--pred" in result.output


def test_labels_and_init_config(tmp_path: Path) -> None:
    result = runner.invoke(app, ["labels"])
    assert result.exit_code == 0 and "meddocan" in result.stdout
    result = runner.invoke(app, ["labels", "meddocan"])
    assert "NOMBRE_SUJETO_ASISTENCIA" in result.stdout and "NAME.PATIENT" in result.stdout
    assert runner.invoke(app, ["labels", "nope"]).exit_code == 2
    cfg = tmp_path / "c.toml"
    assert runner.invoke(app, ["init-config", str(cfg)]).exit_code == 0
    assert runner.invoke(app, ["init-config", str(cfg)]).exit_code == 2
    assert "language" in cfg.read_text()


def test_bad_config_is_a_clear_error(tmp_path: Path, gold_jsonl: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text('language = "fr"\n', encoding="utf-8")
    result = runner.invoke(app, ["deidentify", str(gold_jsonl), "--out", str(tmp_path / "o"), "--config", str(cfg)])
    assert result.exit_code == 2 and "language" in result.output


def test_installed_console_script(tmp_path: Path, gold_jsonl: Path, gold_config: Path) -> None:
    exe = shutil.which("clinanon")
    if exe is None:
        pytest.skip("the clinanon console script is not on PATH (package not installed)")
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True)
    assert __version__ in version.stdout
    out = tmp_path / "o.jsonl"
    subprocess.run([exe, "deidentify", str(gold_jsonl), "--out", str(out), "--config", str(gold_config)],
                   capture_output=True, text=True, check=True)
    assert NAME not in out.read_text(encoding="utf-8")


def test_evaluate_runs_a_pipeline_from_config(gold_jsonl: Path, gold_config: Path) -> None:
    result = runner.invoke(app, ["evaluate", "--gold", str(gold_jsonl), "--config", str(gold_config), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert all(m["micro"]["f1"] == 1.0 for m in data["measures"].values())


def test_evaluate_rules_pipeline_on_meddocan_slice(meddocan_dir: Path, tmp_path: Path) -> None:
    """The shipped rules pipeline, scored through the CLI on 20 MEDDOCAN dev documents (a regression floor)."""
    src = meddocan_dir / "dev" / "brat"
    slice_dir = tmp_path / "gold"
    cio.write(list(cio.read(src, "brat"))[:20], slice_dir, "brat")
    cfg = tmp_path / "rules.toml"
    # the rules alone: the default detector's shipped CRF was trained on dev too, so it would not measure them
    cfg.write_text('language = "es"\nlabel_scheme = "meddocan"\n[detectors]\nuse = ["rules"]\n', encoding="utf-8")
    result = runner.invoke(app, ["evaluate", "--gold", str(slice_dir), "--config", str(cfg), "--json"])
    assert result.exit_code == 0, result.output
    binary = json.loads(result.stdout)["measures"]["token_binary"]["micro"]
    assert binary["recall"] >= 0.85 and binary["precision"] >= 0.90


def test_reader_options_from_the_command_line(tmp_path: Path, gold_config: Path) -> None:
    src = tmp_path / "notes"
    src.mkdir()
    (src / "a.txt").write_text("Nota\x00 con NUL", encoding="utf-8")
    out = tmp_path / "o.jsonl"
    failed = runner.invoke(app, ["detect", str(src), "--out", str(out), "--config", str(gold_config)])
    assert failed.exit_code == 1 and "1 errors" in failed.output
    ok = runner.invoke(app, ["detect", str(src), "--out", str(out), "--config", str(gold_config), "--overwrite",
                             "-O", "control_chars=strip"])
    assert ok.exit_code == 0, ok.output
    assert [d.text for d in cio.read(out)] == ["Nota con NUL"]
    bad = runner.invoke(app, ["detect", str(src), "--out", str(out), "-O", "novalue", "--overwrite"])
    assert bad.exit_code == 2 and "KEY=VALUE" in bad.output


def test_train_then_use_the_model(meddocan_dir: Path, tmp_path: Path) -> None:
    """`clinanon train` on a 12-document slice, then the model as the pipeline's detector via the config."""
    docs = list(cio.read(meddocan_dir / "train" / "brat", "brat"))[:12]
    cio.write(docs[:10], tmp_path / "train", "brat")
    cio.write(docs[10:], tmp_path / "dev", "brat")
    cfg = tmp_path / "train.toml"
    cfg.write_text(
        'detector = "crf"\nlanguage = "es"\nlabel_scheme = "meddocan"\noutput = "model"\n'
        '[data]\ntrain = "train"\ntrain_format = "brat"\ndev = "dev"\ndev_format = "brat"\n'
        "[crf]\nmax_iterations = 15\ndev_each_iteration = false\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["train", str(cfg), "--no-progress", "--set", "crf.max_iterations=10"])
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "model" / "meta.json").read_text())
    assert "subtask1" in meta["scores"]["dev"] and "subtask1" in result.stdout
    use = tmp_path / "use.toml"
    use.write_text('label_scheme = "meddocan"\n[detectors]\nuse = ["crf"]\nmodels = { crf = "model" }\n',
                   encoding="utf-8")
    out = tmp_path / "pred.jsonl"
    ran = runner.invoke(app, ["detect", str(tmp_path / "dev"), "--out", str(out), "--config", str(use)])
    assert ran.exit_code == 0, ran.output
    assert sum(len(d.spans) for d in cio.read(out)) > 0
    missing = tmp_path / "missing.toml"
    missing.write_text('[detectors]\nuse = ["crf"]\n', encoding="utf-8")
    err = runner.invoke(app, ["detect", str(tmp_path / "dev"), "--out", str(tmp_path / "x.jsonl"), "--config",
                              str(missing)])
    assert err.exit_code == 2 and "detectors.models.crf" in err.output


def test_models_lists_the_shipped_spanish_model() -> None:
    result = runner.invoke(app, ["models", "--json"])
    assert result.exit_code == 0, result.output
    names = {m["name"]: m for m in json.loads(result.stdout)}
    shipped = names["es-meddocan-crf"]
    assert shipped["origin"] == "shipped" and shipped["language"] == "es"
    assert "CC-BY" in (shipped["license"] or "")


def test_default_detector_uses_the_shipped_model_for_spanish(tmp_path: Path) -> None:
    from clinanon.pipeline import Pipeline

    cfg = tmp_path / "c.toml"
    cfg.write_text('language = "es"\nlabel_scheme = "meddocan"\n[detectors]\nuse = ["default"]\n', encoding="utf-8")
    nlp = Pipeline.from_config(cfg)
    doc = Document("x", "Paciente: Juan García López. Ingresa el 3 de marzo de 2019 en el Hospital La Paz.")
    found = {(doc.text[s.start:s.end], s.label) for s in nlp.detect(doc).spans}
    assert ("Juan García López", "NOMBRE_SUJETO_ASISTENCIA") in found
    assert ("3 de marzo de 2019", "FECHAS") in found


def test_learning_curve_command(meddocan_dir: Path, tmp_path: Path) -> None:
    docs = list(cio.read(meddocan_dir / "train" / "brat", "brat"))[:12]
    cio.write(docs[:8], tmp_path / "train", "brat")
    cio.write(docs[8:], tmp_path / "dev", "brat")
    out = tmp_path / "lc"
    result = runner.invoke(app, ["learning-curve", str(tmp_path / "train"), str(tmp_path / "dev"), "--out", str(out),
                                 "--detectors", "rules,crf", "--fractions", "0.5,1.0", "--crf-iterations", "5",
                                 "--no-plot"])
    assert result.exit_code == 0, result.output
    table = json.loads((out / "learning_curve.json").read_text())
    assert table["fractions"] == [0.5, 1.0] and table["train_documents"] == 8
    assert set(table["detectors"]) == {"rules", "crf"}
    bad = runner.invoke(app, ["learning-curve", str(tmp_path / "train"), str(tmp_path / "dev"), "--out", str(out),
                              "--fractions", "half"])
    assert bad.exit_code == 2 and "--fractions" in bad.output


def _user_scheme_config(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(f'label_scheme = "{name}"\n[detectors]\nuse = ["gold"]\npropagate_names = false\n'
                    f'[[schemes]]\nname = "{name}"\n'
                    'labels = { PACIENTE = "NAME.PATIENT", FECHA = "DATE", SEXO = "SEX" }\n', encoding="utf-8")
    return path


def test_a_user_scheme_in_the_config_works_in_every_command(tmp_path: Path, gold_jsonl: Path) -> None:
    from clinanon.pipeline import Pipeline
    from clinanon.taxonomy import list_schemes

    cfg = _user_scheme_config(tmp_path, "test-cli-detect-scheme")
    out = tmp_path / "spans.jsonl"
    result = runner.invoke(app, ["detect", str(gold_jsonl), "--out", str(out), "--config", str(cfg)])
    assert result.exit_code == 0, result.output
    assert [s.label for d in cio.read(out) for s in d.spans] == ["PACIENTE", "FECHA", "SEXO"]

    labels = runner.invoke(app, ["labels", "test-cli-labels-scheme", "--config",
                                 str(_user_scheme_config(tmp_path, "test-cli-labels-scheme"))])
    assert labels.exit_code == 0 and "PACIENTE" in labels.stdout and "NAME.PATIENT" in labels.stdout

    evaluated = runner.invoke(app, ["evaluate", "--gold", str(gold_jsonl), "--config",
                                    str(_user_scheme_config(tmp_path, "test-cli-eval-scheme")), "--json",
                                    "--labels", "canonical"])
    assert evaluated.exit_code == 0, evaluated.output

    name = "test-cli-pipeline-scheme"
    assert name not in list_schemes()
    nlp = Pipeline.from_config(_user_scheme_config(tmp_path, name))
    assert nlp.scheme.name == name and name in list_schemes()
