"""``clinanon train`` with ``detector = "spacy"``: the model directory, its meta.json, reloading, determinism."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

spacy = pytest.importorskip("spacy")

from clinanon import io as cio  # noqa: E402
from clinanon.detect.spacy_ner import ClinanonTokenizer, SpacyNERDetector  # noqa: E402
from clinanon.errors import ConfigError  # noqa: E402
from clinanon.train import TrainConfig, train  # noqa: E402
from test_spacy_ner import TINY, notes  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def _config(tmp_path: Path, extra: str = "") -> Path:
    data = tmp_path / "corpus"
    data.mkdir()
    cio.write(notes(16), data / "train.jsonl", "jsonl")
    cio.write(notes(4, seed=50), data / "dev.jsonl", "jsonl")
    (data / "LICENSE").write_text("CC-BY 4.0 test licence\n", encoding="utf-8")
    overrides = ", ".join(f'"{k}" = {json.dumps(v)}' for k, v in TINY.items())
    cfg = tmp_path / "train.toml"
    cfg.write_text(
        'detector = "spacy"\nlanguage = "es"\nlabel_scheme = "meddocan"\nseed = 3\noutput = "model"\n'
        '[data]\ntrain = "corpus/train.jsonl"\ndev = "corpus/dev.jsonl"\nattribution = "Synthetic test notes."\n'
        f"[spacy]\nmax_steps = 60\neval_frequency = 30\noverrides = {{ {overrides} }}\n{extra}", encoding="utf-8")
    return cfg


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    tmp = tmp_path_factory.mktemp("spacy-train")
    lines: list[str] = []
    result = train(TrainConfig.load(_config(tmp)), progress=False, log=lines.append)
    return tmp, (result, lines)


def test_train_writes_a_spacy_model_directory(trained: tuple[Path, object]) -> None:
    tmp, (result, lines) = trained  # type: ignore[misc]
    out = tmp / "model"
    assert result.model_dir == out
    assert {p.name for p in out.iterdir()} >= {"config.cfg", "meta.json", "tokenizer", "vocab", "tok2vec", "ner",
                                               "LICENSE", "ATTRIBUTION.txt"}
    assert (out / "LICENSE").read_text(encoding="utf-8") == "CC-BY 4.0 test licence\n"
    meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    assert meta == result.meta
    assert meta["detector"] == "spacy" and meta["label_scheme"] == "meddocan" and meta["tagging"] == "BILUO"
    labels = ["EDAD_SUJETO_ASISTENCIA", "FECHAS", "NOMBRE_SUJETO_ASISTENCIA"]
    assert meta["labels"]["ner"] == labels and meta["entity_labels"] == labels
    assert meta["seed"] == 3 and meta["params"]["seed"] == 3 and meta["clinanon_version"]
    assert meta["lang"] == "es" and meta["pipeline"] == ["tok2vec", "ner"]  # spaCy's own keys are kept
    assert meta["data"]["train"]["documents"] == 16 and meta["data"]["dev"]["documents"] == 4
    assert meta["data"]["train"]["digest"].startswith("sha256:")
    dev = meta["scores"]["dev"]
    assert set(dev) >= {"subtask1", "subtask2", "token_binary", "per_label", "chars_per_s"}
    assert dev["subtask1"]["f1"] > 0.9
    training = meta["training"]
    assert training["steps"] == 61 and training["epochs"] >= 1 and training["keep"] == "last"
    assert [e["step"] for e in training["evaluations"]] == [0, 30, 60]
    assert training["dev_f1_per_evaluation"] == [e["ents_f"] for e in training["evaluations"]]
    # spaCy's own score of the last evaluation; with aligned gold it equals ours
    perf = training["spacy_performance"]
    assert perf["ents_f"] == pytest.approx(perf["clinanon_ents_f"], abs=1e-4)
    assert training["evaluations"][-1]["ents_f"] == pytest.approx(dev["subtask1"]["f1"], abs=1e-4)
    assert training["misaligned_count"] == 0 and training["total_seconds"] > 0
    assert meta["config"]["spacy"]["max_steps"] == 60
    assert any("model written" in line for line in lines) and any("dev F1" in line for line in lines)
    text = (out / "meta.json").read_text(encoding="utf-8") + (out / "config.cfg").read_text(encoding="utf-8")
    assert "Nombre" not in text and "clinanon-spacy-" not in text  # no document text, no temporary paths


def test_trained_model_reloads(trained: tuple[Path, object]) -> None:
    tmp, (result, _) = trained  # type: ignore[misc]
    loaded = SpacyNERDetector.load(tmp / "model")
    docs = notes(6, seed=77)
    assert loaded.predict(docs) == result.detector.predict(docs)
    assert isinstance(spacy.load(tmp / "model").tokenizer, ClinanonTokenizer)


def test_same_config_same_weights(trained: tuple[Path, object], tmp_path: Path) -> None:
    tmp, (result, _) = trained  # type: ignore[misc]
    again = train(TrainConfig.load(tmp / "train.toml"), output=tmp_path / "again", progress=False)
    for name in ("ner", "tok2vec"):
        assert (tmp / "model" / name / "model").read_bytes() == (again.model_dir / name / "model").read_bytes()
    assert again.meta["scores"]["dev"]["subtask1"] == result.meta["scores"]["dev"]["subtask1"]


def test_spacy_section_validation(tmp_path: Path) -> None:
    path = _config(tmp_path)
    cfg = TrainConfig.load(path, {"spacy.max_steps": 5, "spacy.keep": "best"})
    assert cfg.detector == "spacy" and cfg.spacy.max_steps == 5 and cfg.spacy.keep == "best"
    with pytest.raises(ConfigError, match=r"spacy\.keep"):
        TrainConfig.load(path, {"spacy.keep": "first"})
    with pytest.raises(ConfigError, match=r"spacy\.eval_frequency"):
        TrainConfig.load(path, {"spacy.eval_frequency": 0})
    with pytest.raises(ConfigError, match="cannot read the spaCy config"):
        train(TrainConfig.load(path, {"spacy.config": "missing.cfg"}), progress=False)


def test_shipped_spacy_meddocan_config_is_valid() -> None:
    cfg = TrainConfig.load(REPO / "configs" / "train_spacy_meddocan.toml")
    assert cfg.detector == "spacy" and cfg.language == "es" and cfg.label_scheme == "meddocan"
    assert cfg.resolve(cfg.data.train).parts[-3:] == ("meddocan", "train", "brat")
    assert cfg.spacy.config is not None and cfg.resolve(cfg.spacy.config).is_file()
    assert cfg.spacy.keep == "last" and cfg.spacy.patience == 0 and cfg.spacy.max_steps
