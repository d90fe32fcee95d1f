"""``clinanon train``: the training config, the model directory and its meta.json, determinism."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clinanon import io as cio
from clinanon.detect.crf import META_FILE, MODEL_FILE, CRFDetector
from clinanon.document import Span
from clinanon.errors import ConfigError, InputError
from clinanon.train import TrainConfig, data_digest, train

pytest.importorskip("pycrfsuite")

REPO = Path(__file__).resolve().parents[1]


def _corpus(tmp_path: Path) -> tuple[Path, Path]:
    from test_crf import synthetic

    data = tmp_path / "corpus"
    data.mkdir()
    cio.write(synthetic(10), data / "train.jsonl", "jsonl")
    cio.write(synthetic(4, seed=50), data / "dev.jsonl", "jsonl")
    (data / "LICENSE").write_text("CC-BY 4.0 test licence\n", encoding="utf-8")
    return data / "train.jsonl", data / "dev.jsonl"


def _config(tmp_path: Path, extra: str = "") -> Path:
    _corpus(tmp_path)
    cfg = tmp_path / "train.toml"
    cfg.write_text(
        'detector = "crf"\nlanguage = "es"\nlabel_scheme = "meddocan"\nseed = 7\noutput = "model"\n'
        '[data]\ntrain = "corpus/train.jsonl"\ndev = "corpus/dev.jsonl"\n'
        'attribution = "Synthetic test notes."\n'
        f'[crf]\nmax_iterations = 15\n{extra}', encoding="utf-8")
    return cfg


def test_train_writes_a_model_directory(tmp_path: Path) -> None:
    cfg = TrainConfig.load(_config(tmp_path))
    lines: list[str] = []
    result = train(cfg, progress=False, log=lines.append)
    out = tmp_path / "model"
    assert result.model_dir == out
    assert {p.name for p in out.iterdir()} == {MODEL_FILE, META_FILE, "LICENSE", "ATTRIBUTION.txt"}
    assert (out / "LICENSE").read_text(encoding="utf-8") == "CC-BY 4.0 test licence\n"  # found next to the data
    assert (out / "ATTRIBUTION.txt").read_text(encoding="utf-8") == "Synthetic test notes.\n"
    meta = json.loads((out / META_FILE).read_text(encoding="utf-8"))
    assert meta["detector"] == "crf" and meta["label_scheme"] == "meddocan" and meta["tagging"] == "BIO"
    assert meta["labels"] == ["EDAD_SUJETO_ASISTENCIA", "FECHAS", "NOMBRE_SUJETO_ASISTENCIA"]
    assert meta["seed"] == 7 and meta["params"]["seed"] == 7 and meta["params"]["max_iterations"] == 15
    assert meta["clinanon_version"]
    assert meta["data"]["train"]["documents"] == 10 and meta["data"]["dev"]["documents"] == 4
    assert meta["data"]["train"]["digest"].startswith("sha256:")
    dev = meta["scores"]["dev"]
    assert set(dev) >= {"subtask1", "subtask2", "token_binary", "per_label"}
    assert dev["subtask1"]["f1"] > 0.9
    assert meta["training"]["iterations"] == 15 and meta["training"]["train_seconds"] >= 0
    assert len(meta["training"]["dev_tag_f1_per_iteration"]) == 15
    assert meta["training"]["misaligned_count"] == 0
    assert any("model written" in line for line in lines)
    # the model loads and predicts what the returned detector predicts
    loaded = CRFDetector.load(out)
    from test_crf import synthetic

    doc = synthetic(1, seed=77)[0]
    assert loaded.detect(doc) == result.detector.detect(doc)
    # no document text in the metadata
    assert "Nombre" not in (out / META_FILE).read_text(encoding="utf-8")


def test_same_config_same_model_bytes(tmp_path: Path) -> None:
    cfg = TrainConfig.load(_config(tmp_path, "dev_each_iteration = false\n"))
    a = train(cfg, output=tmp_path / "a", progress=False)
    b = train(cfg, output=tmp_path / "b", progress=False)
    assert (a.model_dir / MODEL_FILE).read_bytes() == (b.model_dir / MODEL_FILE).read_bytes()
    assert a.meta["training"]["dev_tag_f1_per_iteration"] == []


def test_overrides_and_errors_name_the_key(tmp_path: Path) -> None:
    path = _config(tmp_path)
    cfg = TrainConfig.load(path, {"crf.max_iterations": 3, "data.limit": 2, "tagging": "BIOES"})
    assert cfg.crf.max_iterations == 3 and cfg.data.limit == 2 and cfg.tagging == "BIOES"
    assert cfg.resolve(cfg.data.train) == tmp_path / "corpus" / "train.jsonl"
    with pytest.raises(ConfigError, match=r"crf\.c1"):
        TrainConfig.load(path, {"crf.c1": -1.0})
    with pytest.raises(ConfigError, match="label_scheme"):
        TrainConfig.load(path, {"label_scheme": "no-such-scheme"})
    with pytest.raises(ConfigError, match="unknown_key"):
        TrainConfig.load(path, {"crf.unknown_key": 1})
    with pytest.raises(ConfigError, match="cannot read"):
        TrainConfig.load(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("detector = \n", encoding="utf-8")
    with pytest.raises(ConfigError, match="invalid TOML"):
        TrainConfig.load(bad)


def test_missing_data_is_an_input_error(tmp_path: Path) -> None:
    cfg = TrainConfig.load(_config(tmp_path), {"data.train": "nowhere"})
    with pytest.raises(InputError, match="nowhere"):
        train(cfg, progress=False)


def test_data_digest() -> None:
    from test_crf import synthetic

    docs = synthetic(3)
    assert data_digest(docs) == data_digest(list(reversed(docs)))
    changed = [docs[0].with_spans([*docs[0].spans[1:], Span(0, 6, "FECHAS")]), *docs[1:]]
    assert data_digest(changed) != data_digest(docs)


def test_shipped_meddocan_config_is_valid() -> None:
    cfg = TrainConfig.load(REPO / "configs" / "train_crf_meddocan.toml")
    assert cfg.detector == "crf" and cfg.language == "es" and cfg.label_scheme == "meddocan"
    assert cfg.resolve(cfg.data.train).parts[-3:] == ("meddocan", "train", "brat")
    assert cfg.data.license is not None and cfg.resolve(cfg.data.license).name == "LICENSE"
