"""``clinanon ensemble-choose``: per-label strategies chosen on a dev set, written as a loadable configuration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinanon import io as cio
from clinanon.cli import app
from clinanon.config import Config
from clinanon.document import Document, Span

runner = CliRunner()

# rules find the two dates as 03/04/2020 and 05/06/2020 (11-21, 61-71) and the e-mail (33-51); the gold marks only
# the day and month of each date (11-16, 61-66) and the same e-mail.
TEXT = "Ingresó el 03/04/2020. Contacto: ana.ruiz@correo.es. Alta el 05/06/2020."
GOLD = (Span(11, 16, "DATE"), Span(33, 51, "CONTACT.EMAIL"), Span(61, 66, "DATE"))


@pytest.fixture()
def dev(tmp_path: Path) -> Path:
    path = tmp_path / "dev.jsonl"
    cio.write([Document("d1", TEXT, GOLD, {"lang": "es"})], path, "jsonl")
    return path


@pytest.fixture()
def f1_profile(tmp_path: Path) -> Path:
    """A configuration whose ensemble profile lets the strategies alone decide (no recall-first protection)."""
    path = tmp_path / "f1.toml"
    path.write_text('[detectors.ensemble]\nprofile = "meddocan-f1"\n', encoding="utf-8")
    return path


def test_chooses_per_label_prints_the_table_and_writes_a_loadable_config(dev: Path, tmp_path: Path,
                                                                        f1_profile: Path) -> None:
    from clinanon.ensemble import Ensemble
    from clinanon.pipeline import Pipeline

    out = tmp_path / "ens.toml"
    result = runner.invoke(app, ["ensemble-choose", str(dev), "--member", "rules", "--member", "gold",
                                 "--out", str(out), "--lang", "es", "-O", "control_chars=strip",
                                 "--config", str(f1_profile)])
    assert result.exit_code == 0, result.output
    # DATE: union / vote / intersection / rules all keep the rules' longer spans (rules rank first and break the
    # tie of the vote): F1 0; gold alone: F1 1. CONTACT.EMAIL: both members agree, union (the first candidate) = 1.
    rows = [line.split("│")[1:5] for line in result.stdout.splitlines() if line.startswith("│")]
    assert [[c.strip() for c in r] for r in rows] == [["CONTACT.EMAIL", "1", "union", "1.0000"],
                                                      ["DATE", "2", "gold", "1.0000"]]
    assert TEXT[33:51] not in result.output
    cfg = Config.load(out)
    assert cfg.detectors.use == ["ensemble"] and cfg.language == "es" and cfg.label_scheme == "canonical"
    assert cfg.detectors.ensemble.members == ["rules", "gold"]
    assert cfg.detectors.ensemble.strategies == {"CONTACT.EMAIL": "union", "DATE": "gold"}
    assert cfg.detectors.ensemble.default == "union" and cfg.detectors.models == {}
    assert cfg.detectors.ensemble.profile == "meddocan-f1"  # written as chosen
    [ens] = Pipeline(cfg).detectors
    assert isinstance(ens, Ensemble) and ens.members == ("rules", "gold")
    doc = Document("d1", TEXT, GOLD)
    assert [(s.start, s.end, s.label) for s in ens.detect(doc)] == [(11, 16, "DATE"), (33, 51, "CONTACT.EMAIL"),
                                                                     (61, 66, "DATE")]


def test_recall_first_keeps_the_rules_dates_whatever_the_choice(dev: Path, tmp_path: Path) -> None:
    from clinanon.pipeline import Pipeline

    out = tmp_path / "ens.toml"
    result = runner.invoke(app, ["ensemble-choose", str(dev), "-m", "rules", "-m", "gold", "-o", str(out), "--json",
                                 "--candidates", "union,rules,gold"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    # the default profile protects what the rules found of names, IDs, contacts and dates: no strategy drops the
    # rules' longer dates, so every candidate scores 0 on DATE and the first one is kept
    assert data["scores"]["DATE"] == {"union": 0.0, "rules": 0.0, "gold": 0.0}
    cfg = Config.load(out)
    assert cfg.detectors.ensemble.profile == "recall-first"
    [ens] = Pipeline(cfg).detectors
    spans = ens.detect(Document("d1", TEXT, GOLD))
    assert [(s.start, s.end) for s in spans if s.label == "DATE"] == [(11, 21), (61, 71)]


def test_json_output_has_every_candidates_score(dev: Path, tmp_path: Path, f1_profile: Path) -> None:
    out = tmp_path / "ens.toml"
    result = runner.invoke(app, ["ensemble-choose", str(dev), "-m", "rules", "-m", "gold", "-o", str(out), "--json",
                                 "--candidates", "union,rules,gold", "-c", str(f1_profile)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["members"] == ["rules", "gold"] and data["default"] == "union"
    assert data["labels"] == [{"label": "CONTACT.EMAIL", "gold": 1, "strategy": "union", "dev_f1": 1.0},
                              {"label": "DATE", "gold": 2, "strategy": "gold", "dev_f1": 1.0}]
    assert data["scores"]["DATE"] == {"union": 0.0, "rules": 0.0, "gold": 1.0}
    # the file exists now: a second run needs --overwrite
    again = runner.invoke(app, ["ensemble-choose", str(dev), "-m", "rules", "-m", "gold", "-o", str(out)])
    assert again.exit_code == 2 and "--overwrite" in again.output
    assert runner.invoke(app, ["ensemble-choose", str(dev), "-m", "rules", "-m", "gold", "-o", str(out),
                               "--overwrite"]).exit_code == 0


def test_a_model_member_by_name_is_written_with_its_directory(tmp_path: Path) -> None:
    pytest.importorskip("pycrfsuite")
    from clinanon.models import default_model

    info = default_model("es")
    if info is None:
        pytest.skip("the Spanish model is not built")
    dev = tmp_path / "dev.jsonl"
    text = "Paciente: Juan García López. Ingresa el 3 de marzo de 2019."
    cio.write([Document("d", text, (Span(10, 27, "NOMBRE_SUJETO_ASISTENCIA"), Span(40, 58, "FECHAS")))], dev, "jsonl")
    out = tmp_path / "ens.toml"
    result = runner.invoke(app, ["ensemble-choose", str(dev), "-m", "crf=es-meddocan-crf", "-m", "rules",
                                 "--scheme", "meddocan", "--tiebreak", "crf", "-o", str(out)])
    assert result.exit_code == 0, result.output
    cfg = Config.load(out)
    assert cfg.label_scheme == "meddocan" and cfg.detectors.models == {"crf": info.path.resolve()}
    assert cfg.detectors.ensemble.members == ["crf", "rules"] and cfg.detectors.ensemble.tiebreak == "crf"
    assert set(cfg.detectors.ensemble.strategies) == {"NOMBRE_SUJETO_ASISTENCIA", "FECHAS"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-m", "nope"], "unknown detector 'nope'"),
        (["-m", "rules", "-m", "rules"], "given twice"),
        (["-m", "spacy=es-meddocan-crf"], "is a 'crf' model"),
        (["-m", "crf=no-such-model"], "no model named"),
        (["-m", "rules", "-m", "gold", "--candidates", "union,best"], "--candidates: 'best'"),
        (["-m", "rules", "--scheme", "meddocan"], "gold labels not in the label scheme 'meddocan'"),
        (["-m", "rules", "-O", "no_such_option=1"], "--read-option"),
    ],
)
def test_errors(dev: Path, tmp_path: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["ensemble-choose", str(dev), "-o", str(tmp_path / "e.toml"), *args])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert not (tmp_path / "e.toml").exists()


def test_ensemble_toml_is_written_by_tomli_w_and_loads_back(tmp_path: Path) -> None:
    import tomllib

    from clinanon.cli import ensemble_toml
    from clinanon.ensemble import StrategyTable

    cfg = Config.from_dict({"language": "es", "label_scheme": "meddocan", "detectors": {
        "use": ["ensemble"], "models": {"crf": str(tmp_path / "módelo \"crf\"")},
        "ensemble": {"members": ["crf", "rules"], "tiebreak": "crf"}}})
    table = StrategyTable({"NOMBRE_SUJETO_ASISTENCIA": "union", "FECHAS": "crf"}, "vote")
    text = ensemble_toml(cfg, table, source="2 documents")
    assert text.startswith("# clinanon ensemble chosen on dev by `clinanon ensemble-choose` (2 documents).\n")
    data = tomllib.loads(text)
    assert list(data["detectors"]["ensemble"]["strategies"]) == ["FECHAS", "NOMBRE_SUJETO_ASISTENCIA"]
    path = tmp_path / "ens.toml"
    path.write_text(text, encoding="utf-8")
    back = Config.load(path)
    assert back.language == "es" and back.label_scheme == "meddocan" and back.detectors.use == ["ensemble"]
    assert back.detectors.models == cfg.detectors.models
    e = back.detectors.ensemble
    assert (e.members, e.default, e.tiebreak) == (["crf", "rules"], "vote", "crf")
    assert e.strategies == {"FECHAS": "crf", "NOMBRE_SUJETO_ASISTENCIA": "union"}
    plain = tomllib.loads(ensemble_toml(Config(), StrategyTable({}, "union")))
    assert "models" not in plain["detectors"] and "tiebreak" not in plain["detectors"]["ensemble"]
