"""Profiles wired into the product: ``profile`` in the configuration, ``--profile`` on the CLI, the ``profile``
step in the pipelines' plans, and ``clinanon evaluate --profile`` scoring a corpus by its convention."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
import tomli_w
from typer.testing import CliRunner

from clinanon import io as cio
from clinanon.cli import app
from clinanon.config import DEFAULT_CONFIG_TOML, Config
from clinanon.document import Document, Span
from clinanon.ensemble import Ensemble
from clinanon.errors import ConfigError
from clinanon.pipeline import Pipeline
from clinanon.profiles import DEFAULT_PROFILE, get_profile

runner = CliRunner()

NOTE = "Mr. John Smith is a 67 year old man seen at 4PM on 10/19/2021 by Dr. Jones.\n"


def _note(tmp_path: Path) -> Path:
    path = tmp_path / "notes" / "note.txt"
    path.parent.mkdir()
    path.write_text(NOTE, encoding="utf-8")
    return path


def _deidentified(tmp_path: Path, *flags: str) -> str:
    out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
    result = runner.invoke(app, ["deidentify", str(tmp_path / "notes"), "--out", str(out), "--lang", "en", *flags])
    assert result.exit_code == 0, result.output
    [text] = [p.read_text(encoding="utf-8") for p in out.iterdir() if p.suffix == ".txt"]
    return text


def test_cli_hipaa_keeps_ages_up_to_89_and_clock_times_but_replaces_names_and_dates(tmp_path: Path) -> None:
    _note(tmp_path)
    hipaa = _deidentified(tmp_path, "--profile", "hipaa")
    assert "67 year old" in hipaa and "4PM" in hipaa
    for phi in ("John", "Smith", "10/19/2021", "Jones"):
        assert phi not in hipaa
    assert hipaa.count("[NAME]") == 2 and "[DATE]" in hipaa
    # the default (gdpr-strict) replaces the age and the clock time too
    default = _deidentified(tmp_path)
    assert "67" not in default and "4PM" not in default and "John" not in default
    assert _deidentified(tmp_path, "--profile", "gdpr-strict") == default


def test_cli_detect_profile_and_the_configuration_key(tmp_path: Path) -> None:
    _note(tmp_path)
    cfg = tmp_path / "c.toml"
    cfg.write_text('language = "en"\nprofile = "hipaa"\n', encoding="utf-8")
    for flags in (["--profile", "hipaa", "--lang", "en"], ["--config", str(cfg)]):
        out = tmp_path / f"det{len(flags)}.jsonl"
        result = runner.invoke(app, ["detect", str(tmp_path / "notes"), "--out", str(out), *flags])
        assert result.exit_code == 0, result.output
        [doc] = list(cio.read(out, "jsonl"))
        found = {doc.text[s.start:s.end] for s in doc.spans}
        assert "10/19/2021" in found and "Jones" in found
        assert not any("67" in f or "4PM" in f for f in found)
    # the flag wins over the configuration
    out = tmp_path / "strict.jsonl"
    result = runner.invoke(app, ["detect", str(tmp_path / "notes"), "--out", str(out), "--config", str(cfg),
                                 "--profile", "gdpr-strict"])
    assert result.exit_code == 0, result.output
    [doc] = list(cio.read(out, "jsonl"))
    assert "4PM" in {doc.text[s.start:s.end] for s in doc.spans}


def test_unknown_profile_is_a_clear_error(tmp_path: Path) -> None:
    _note(tmp_path)
    for argv in (["deidentify", str(tmp_path / "notes"), "--out", str(tmp_path / "o"), "--profile", "hipa"],
                 ["detect", str(tmp_path / "notes"), "--out", str(tmp_path / "o.jsonl"), "--profile", "hipa"],
                 ["profiles", "hipa"]):
        result = runner.invoke(app, argv)
        assert result.exit_code == 2
        output = " ".join(result.output.split())  # the console wraps long lines
        assert "unknown profile 'hipa'" in output and "gdpr-strict" in output
    with pytest.raises(ConfigError, match=r"profile: .*unknown profile 'safe-harbor'; known: hipaa, gdpr-strict"):
        Config.from_dict({"profile": "safe-harbor"})
    with pytest.raises(ConfigError, match="unknown profile"):
        Pipeline.from_config(profile="nope")


def _gold_and_pred(tmp_path: Path) -> tuple[Path, Path]:
    text = "Pt 67 yo, seen 4PM on 10/19 by Dr. Jones; mother 93 yo."

    def sp(sub: str, label: str) -> Span:
        i = text.index(sub)
        return Span(i, i + len(sub), label)

    gold = Document("n1", text, (sp("67 yo", "AGE"), sp("4PM", "DATE"), sp("10/19", "DATE"),
                                 sp("Jones", "DOCTOR"), sp("93 yo", "AGE")))
    pred = Document("n1", text, (sp("10/19", "DATE"), sp("Jones", "DOCTOR"), sp("93 yo", "AGE")))
    cio.write([gold], tmp_path / "gold.jsonl", "jsonl")
    cio.write([pred], tmp_path / "pred.jsonl", "jsonl")
    return tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"


def _micro(output: str, measure: str = "entity_exact") -> dict:
    return json.loads(output)["measures"][measure]["micro"]


def test_evaluate_profile_scores_by_the_corpus_convention(tmp_path: Path) -> None:
    gold, pred = _gold_and_pred(tmp_path)
    base = ["evaluate", "--gold", str(gold), "--pred", str(pred), "--scheme", "i2b2-2014", "--json"]
    plain = runner.invoke(app, base)
    assert plain.exit_code == 0, plain.output
    assert (_micro(plain.stdout)["tp"], _micro(plain.stdout)["fn"]) == (3, 2)  # the age of 67 and 4PM missed
    hipaa = runner.invoke(app, [*base, "--profile", "hipaa"])
    assert hipaa.exit_code == 0, hipaa.output
    m = _micro(hipaa.stdout)
    assert (m["tp"], m["fp"], m["fn"]) == (3, 0, 0) and m["recall"] == 1.0  # not PHI under Safe Harbor
    # a prediction of what the profile does not count is not a false positive either
    both = runner.invoke(app, ["evaluate", "--gold", str(gold), "--pred", str(gold), "--scheme", "i2b2-2014",
                               "--json", "--profile", "hipaa"])
    assert _micro(both.stdout)["tp"] == 3 and _micro(both.stdout)["fp"] == 0
    # gdpr-strict counts everything: the same as no profile
    strict = runner.invoke(app, [*base, "--profile", "gdpr-strict"])
    assert _micro(strict.stdout) == _micro(plain.stdout)


def test_evaluate_profile_refuses_gold_labels_it_cannot_read(tmp_path: Path) -> None:
    gold, pred = _gold_and_pred(tmp_path)
    result = runner.invoke(app, ["evaluate", "--gold", str(gold), "--pred", str(pred), "--profile", "hipaa"])
    assert result.exit_code == 2 and "DOCTOR" in result.output and "--scheme" in result.output
    result = runner.invoke(app, ["evaluate", "--gold", str(gold), "--pred", str(pred), "--profile", "hipa"])
    assert result.exit_code == 2 and "unknown profile" in result.output


def test_evaluate_profile_with_a_pipeline(tmp_path: Path) -> None:
    text = "Seen at 4PM on 10/19/2021 by Dr. Jones, 67 year old man."
    i, j = text.index("10/19/2021"), text.index("Jones")
    cio.write([Document("n1", text, (Span(i, i + 10, "DATE"), Span(j, j + 5, "NAME.DOCTOR")))],
              tmp_path / "gold.jsonl", "jsonl")
    cfg = tmp_path / "c.toml"
    cfg.write_text('language = "en"\n', encoding="utf-8")
    result = runner.invoke(app, ["evaluate", "--gold", str(tmp_path / "gold.jsonl"), "--config", str(cfg),
                                 "--profile", "hipaa", "--json"])
    assert result.exit_code == 0, result.output
    assert _micro(result.stdout, "token_binary")["precision"] == 1.0  # 4PM, 67, man: not predicted under hipaa


def test_config_round_trip_and_defaults(tmp_path: Path) -> None:
    assert Config().profile == DEFAULT_PROFILE == "gdpr-strict"
    assert get_profile(DEFAULT_PROFILE).keeps_everything  # the default replaces everything detected
    cfg = Config.from_dict({"profile": "HIPAA", "detectors": {"ensemble": {"profile": "meddocan-f1"}}})
    assert cfg.profile == "hipaa" and cfg.detectors.ensemble.profile == "meddocan-f1"  # two different keys
    path = tmp_path / "c.toml"
    path.write_text(tomli_w.dumps(cfg.model_dump(mode="json", exclude_none=True)), encoding="utf-8")
    again = Config.load(path)
    assert again.profile == "hipaa" and again.model_dump() == cfg.model_dump()
    # the commented template names the key with its default, and tells it from the ensemble's profile
    template = tomllib.loads(DEFAULT_CONFIG_TOML)
    assert template["profile"] == DEFAULT_PROFILE
    assert "detectors.ensemble.profile" in DEFAULT_CONFIG_TOML
    out = tmp_path / "init.toml"
    assert runner.invoke(app, ["init-config", str(out)]).exit_code == 0
    assert Config.load(out).profile == DEFAULT_PROFILE


def test_plans_place_the_profile_step_before_to_scheme() -> None:
    assert Pipeline.from_config(language="en").plan("en").describe()["steps"] == ["resolve", "propagate",
                                                                                  "to_scheme"]
    steps = Pipeline.from_config(language="en", profile="hipaa").plan("en").describe()["steps"]
    assert steps == ["resolve", "propagate", "profile", "to_scheme"]

    class Nothing:
        name = "rules"

        def detect(self, analysis: object) -> list[Span]:
            return []

    ens = Ensemble({"rules": Nothing()}, scheme="meddocan")
    names = [s.name for s in ens.steps(None, 0.5, "hipaa")]
    assert names == ["select", "propagate", "repair", "profile", "min_score"]
    assert "profile" not in [s.name for s in ens.steps(None, 0.5, "gdpr-strict")]
    # the ensemble's step reads the members' labels (MEDDOCAN's): an age up to 89 is dropped, a name kept
    [step] = [s for s in ens.steps(None, 0.5, "hipaa") if s.name == "profile"]
    from clinanon.analysis import Analysis

    text = "Paciente de 67 años, Juan."
    a = Analysis.of(Document("d", text), "es")
    spans = [Span(12, 19, "EDAD_SUJETO_ASISTENCIA"), Span(21, 25, "NOMBRE_SUJETO_ASISTENCIA")]
    assert [s.label for s in step.process(a, spans)] == ["NOMBRE_SUJETO_ASISTENCIA"]


def test_profiles_command_lists_and_shows() -> None:
    result = runner.invoke(app, ["profiles", "--json"])
    assert result.exit_code == 0
    listed = json.loads(result.stdout)
    assert [p["name"] for p in listed] == ["hipaa", "gdpr-strict", "meddocan"]
    assert [p["name"] for p in listed if p["default"]] == ["gdpr-strict"]
    shown = json.loads(runner.invoke(app, ["profiles", "hipaa", "--json"]).stdout)
    rows = {r["category"]: r for r in shown["categories"]}
    assert rows["SEX"]["decision"] == "kept" and rows["NAME"]["decision"] == "replaced"
    assert rows["AGE"]["decision"].startswith("replaced from 90")
    assert rows["DATE (time of day alone)"]["decision"] == "kept" and "164.514" in rows["NAME"]["reference"]
    assert "hipaa" in runner.invoke(app, ["profiles"]).stdout
