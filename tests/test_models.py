"""The model registry: shipped models (package data) and user models (a folder or $CLINANON_MODELS)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clinanon import models
from clinanon.errors import ConfigError, InputError


def make_model(folder: Path, name: str, **meta: object) -> Path:
    d = folder / name
    d.mkdir(parents=True)
    base = {"detector": "crf", "params": {"lang": "es", "label_scheme": "meddocan"}, "labels": ["FECHAS", "PAIS"],
            "scores": {"dev": {"subtask1": {"f1": 0.95}, "subtask2": {"f1": 0.96}}}}
    (d / "meta.json").write_text(json.dumps({**base, **meta}), encoding="utf-8")
    (d / "model.crfsuite").write_bytes(b"x" * 10)
    return d


def test_user_models_from_a_folder_and_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_model(tmp_path, "b-model")
    make_model(tmp_path, "a-model", language="en", label_scheme="i2b2-2014")
    (tmp_path / "not-a-model").mkdir()
    monkeypatch.delenv(models.ENV_VAR, raising=False)
    user = [m for m in models.list_models(tmp_path) if m.origin == "user"]
    assert [m.name for m in user] == ["a-model", "b-model"]
    a, b = user
    assert (a.language, a.label_scheme) == ("en", "i2b2-2014")
    assert (b.language, b.label_scheme, b.labels) == ("es", "meddocan", ("FECHAS", "PAIS"))
    assert b.summary_scores() == {"subtask1": 0.95, "subtask2": 0.96}
    assert b.size_bytes == len((tmp_path / "b-model" / "meta.json").read_bytes()) + 10
    monkeypatch.setenv(models.ENV_VAR, str(tmp_path))
    assert [m.name for m in models.list_models() if m.origin == "user"] == ["a-model", "b-model"]
    assert models.find_model("b-model").path == tmp_path / "b-model"
    assert models.find_model(str(tmp_path / "a-model")).language == "en"


def test_errors_name_the_folder_or_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        models.list_models(tmp_path / "missing")
    with pytest.raises(ConfigError, match="no model named"):
        models.find_model("nope", tmp_path)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "meta.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match=r"meta\.json"):
        models.list_models(tmp_path)


def test_shipped_models_and_the_default_detector() -> None:
    shipped = [m for m in models.list_models() if m.origin == "shipped"]
    assert all(m.path.parent == models.shipped_dir() for m in shipped)
    assert models.default_model("nl") is None
    from clinanon.detect.rules.detector import RulesDetector

    assert isinstance(models.default_detector("nl"), RulesDetector)
    info = models.default_model("es")
    if info is None:
        pytest.skip("the Spanish model is not built (scripts/build_shipped_model.py)")
    assert info.name == "es-meddocan-crf" and info.language == "es" and info.label_scheme == "meddocan"
    assert info.license == "CC-BY-4.0" and (info.path / "LICENSE").is_file()
    assert (info.path / "ATTRIBUTION.txt").is_file()
    assert info.size_bytes < 50 * 2**20
    pytest.importorskip("pycrfsuite")
    from clinanon.ensemble import Ensemble

    ens = models.default_detector("es", label_scheme="meddocan")
    assert isinstance(ens, Ensemble) and ens.members == ("crf", "rules")
    # recall first by default: union everywhere, the rules' names / IDs / contacts / dates protected
    assert ens.output_scheme is None and not ens.table.strategies and ens.table.default == "union"
    assert ens.protect is not None and "NAME" in ens.protect.categories
    f1 = models.default_detector("es", label_scheme="meddocan", profile="meddocan-f1")
    assert "CALLE" in f1.table.strategies and f1.protect is None  # the table chosen on MEDDOCAN dev, opt-in
    canon = models.default_detector("es")
    assert canon.scheme.name == "meddocan" and canon.output_scheme is not None
    assert canon.output_label("CALLE") == "LOCATION.STREET"
