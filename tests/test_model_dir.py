"""The model-directory helpers the CRF, BiLSTM-CRF and transformer detectors share (clinanon.detect.model_dir), and
the choice of the nodes the int8 ONNX export keeps in float (no torch needed)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from clinanon.detect import model_dir
from clinanon.errors import ConfigError, InputError


def _write(folder: Path, meta: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return folder


def test_read_meta_checks_detector_and_version(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a clinanon model directory") as e:
        model_dir.read_meta(tmp_path / "none", "crf")
    assert e.value.path == str(tmp_path / "none" / "meta.json")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "meta.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="JSONDecodeError"):
        model_dir.read_meta(bad, "crf")
    with pytest.raises(InputError, match="expected a 'crf' model"):
        model_dir.read_meta(_write(tmp_path / "list", [1, 2]), "crf")
    folder = _write(tmp_path / "m", {"detector": "bilstm_crf", "format": 1, "secret": "Alba Dunmore"})
    with pytest.raises(InputError, match="expected a 'crf' model") as e:
        model_dir.read_meta(folder, "crf")
    assert "Alba" not in str(e.value)
    assert model_dir.read_meta(folder, "bilstm_crf", version=1)["format"] == 1
    with pytest.raises(InputError, match=r"model format 1; this clinanon reads format 2: retrain it"):
        model_dir.read_meta(folder, "bilstm_crf", version=2, hint=": retrain it")
    with pytest.raises(InputError, match="feature version None"):
        model_dir.read_meta(folder, "bilstm_crf", version_key="feature_version", version=3)


def test_build_applies_overrides_and_names_the_file(tmp_path: Path) -> None:
    def factory(lang: str = "es", *, canonical: bool = False, device: str = "auto") -> dict:
        if lang not in ("es", "en"):
            raise ConfigError("no such language")
        return {"lang": lang, "canonical": canonical, "device": device}

    meta = {"params": {"lang": "en", "canonical": True}}
    assert model_dir.build(factory, meta, tmp_path) == {"lang": "en", "canonical": True, "device": "auto"}
    assert model_dir.build(factory, meta, tmp_path, canonical=False, device=None) == {
        "lang": "en", "canonical": False, "device": "auto"}
    for params in ({"lang": "xx"}, {"unknown": 1}):
        with pytest.raises(InputError, match="unexpected model parameters") as e:
            model_dir.build(factory, {"params": params}, tmp_path)
        assert e.value.path == str(tmp_path / "meta.json")


def test_writes_are_atomic_and_shared(tmp_path: Path) -> None:
    model_dir.write_bytes(tmp_path / "model.bin", b"\x00\x01")
    model_dir.write_bytes(tmp_path / "model.bin", b"\x02")
    model_dir.write_meta(tmp_path, {"detector": "crf", "name": "Señora"})
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "w.bin").write_bytes(b"x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["meta.json", "model.bin", "sub"]  # no temporary left
    assert (tmp_path / "model.bin").read_bytes() == b"\x02"
    text = (tmp_path / "meta.json").read_text(encoding="utf-8")
    assert json.loads(text) == {"detector": "crf", "name": "Señora"} and "Señora" in text and text.endswith("\n")
    for p in (tmp_path / "model.bin", tmp_path / "sub" / "w.bin"):
        p.chmod(0o600)
    model_dir.share(tmp_path, ["model.bin"])
    assert stat.S_IMODE((tmp_path / "model.bin").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "sub" / "w.bin").stat().st_mode) == 0o600
    model_dir.share(tmp_path)
    assert stat.S_IMODE((tmp_path / "sub" / "w.bin").stat().st_mode) == 0o644


def test_float_node_groups_of_an_exported_bert(tmp_path: Path) -> None:
    """The node names PyTorch's exporter writes for a 3-layer BERT token classifier, in a graph built by hand."""
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper

    from clinanon.detect.neural.onnx_export import float_node_names

    names = []
    for k in range(3):
        base = f"/inner/bert/encoder/layer.{k}"
        names += [f"{base}/attention/self/query/MatMul", f"{base}/attention/self/MatMul",
                  f"{base}/attention/output/dense/MatMul", f"{base}/intermediate/dense/MatMul",
                  f"{base}/output/dense/MatMul"]
    names.append("/inner/classifier/MatMul")
    nodes, prev = [], "x"
    for i, n in enumerate(names):
        nodes.append(helper.make_node("MatMul", [prev, "w"], [f"y{i}"], name=n))
        prev = f"y{i}"
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, 2])],
        [helper.make_tensor("w", TensorProto.FLOAT, [2, 2], [1.0, 0.0, 0.0, 1.0])])
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph), str(path))
    assert float_node_names(path, ["classifier"]) == ["/inner/classifier/MatMul"]
    assert float_node_names(path, ["ffn_out"]) == [f"/inner/bert/encoder/layer.{k}/output/dense/MatMul"
                                                   for k in range(3)]
    edge = float_node_names(path, ["first_last"])
    assert len(edge) == 10 and not any("layer.1/" in n for n in edge)
    assert float_node_names(path, []) == []
    with pytest.raises(ConfigError, match="unknown node groups"):
        float_node_names(path, ["embeddings"])
