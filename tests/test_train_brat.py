"""``clinanon train --brat DIR --lang LANG --out DIR``: a CRF from a user's own annotated notes in any language,
used by the default pipeline with the rules of that language."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinanon import io as cio
from clinanon.cli import app
from clinanon.config import Config
from clinanon.detect.crf import CRFDetector
from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.pipeline import Pipeline
from clinanon.train import brat_config, choose_labels, guess_category, relabel, train

pytest.importorskip("pycrfsuite")

runner = CliRunner()

# invented for the test (not from any corpus)
FIRST = ["Ansel", "Brielle", "Corwin", "Delphine", "Evander", "Fenna", "Gideon", "Hollis", "Ione", "Jasper"]
LAST = ["Quillfeather", "Marrowby", "Tensley", "Oakhurst", "Pellworth", "Hasketh", "Durnley", "Vantreece"]
WARDS = ["Larkspur 4", "Bellmont 2", "Cedarfall 7"]


def _notes(n: int, seed: int = 0) -> list[Document]:
    rnd = random.Random(seed)
    docs = []
    for i in range(n):
        parts: list[tuple[str, str | None]] = [
            ("Nursing note. Pt ", None), (f"{rnd.choice(FIRST)} {rnd.choice(LAST)}", "PTName"),
            (" transferred to ", None), (rnd.choice(WARDS), "Ward"), (" on ", None),
            (f"{rnd.randint(1, 12)}/{rnd.randint(1, 28)}", "Date"), (". Son ", None),
            (rnd.choice(FIRST).lower(), "RelativeProxyName"), (" called, tel ", None),
            (f"({rnd.randint(200, 999)}) {rnd.randint(200, 999)}-{rnd.randint(1000, 9999)}", "Phone"),
            (". BP stable, lungs clear. Plan: continue current meds.\n", None)]
        text, spans = "", []
        for chunk, label in parts:
            if label is not None:
                spans.append(Span(len(text), len(text) + len(chunk), label))
            text += chunk
        docs.append(Document(f"note{i:03d}", text, tuple(spans)))
    return docs


def _brat(tmp_path: Path, n: int = 30, name: str = "notes", seed: int = 0) -> Path:
    folder = tmp_path / name
    cio.write(_notes(n, seed), folder, "brat")
    return folder


def test_guessed_categories_and_label_choice() -> None:
    assert guess_category("PTName") == "NAME.PATIENT" and guess_category("HCPName") == "NAME.DOCTOR"
    assert guess_category("RelativeProxyName") == "NAME.RELATIVE" and guess_category("DateYear") == "DATE"
    assert guess_category("LOCATION_CITY") == "LOCATION.CITY" and guess_category("Ward") == "LOCATION.DEPARTMENT"
    assert guess_category("NAME_TITLE") is None and guess_category("Foo") is None
    assert choose_labels(["FECHAS", "CALLE"]) == ("meddocan", {})  # a registered scheme's labels stay native
    assert choose_labels(["DATE", "NAME.DOCTOR"]) == ("canonical", {})
    scheme, mapping = choose_labels(["PTName", "Date", "Foo"], label_map={"Foo": "OTHER"})
    assert scheme == "canonical" and mapping == {"PTName": "NAME.PATIENT", "Date": "DATE", "Foo": "OTHER"}
    with pytest.raises(ConfigError, match=r"label\(s\) Foo: map each with --label-map"):
        choose_labels(["PTName", "Foo"])
    with pytest.raises(ConfigError, match="not canonical categories: NOPE"):
        choose_labels(["Foo"], label_map={"Foo": "NOPE"})
    [doc] = relabel([Document("d", "ab cd", (Span(0, 2, "X"), Span(3, 5, "Y")))], {"X": "NAME", "Y": "-"})
    assert [(s.start, s.label) for s in doc.spans] == [(0, "NAME")]


def test_brat_config_trains_a_canonical_english_model(tmp_path: Path) -> None:
    data = _brat(tmp_path)
    cfg = brat_config(data, language="en", output=tmp_path / "m", data_format="brat", max_iterations=15,
                      dev=_brat(tmp_path, 6, "dev", seed=9))
    assert (cfg.language, cfg.label_scheme) == ("en", "canonical")
    assert cfg.data.label_map["Ward"] == "LOCATION.DEPARTMENT"
    result = train(cfg, progress=False)
    meta = json.loads((result.model_dir / "meta.json").read_text(encoding="utf-8"))
    assert meta["language"] == "en" and meta["label_scheme"] == "canonical"
    assert set(meta["labels"]) == {"NAME.PATIENT", "NAME.RELATIVE", "LOCATION.DEPARTMENT", "DATE", "CONTACT.PHONE"}
    assert meta["scores"]["dev"]["token_binary"]["f1"] > 0.9  # a pattern this regular is learnt
    assert meta["config"]["data"]["label_map"]["PTName"] == "NAME.PATIENT"


def test_cli_train_brat_then_the_default_pipeline_uses_it(tmp_path: Path) -> None:
    data = _brat(tmp_path)
    out = tmp_path / "models" / "my-crf"
    result = runner.invoke(app, ["train", "--brat", str(data), "--lang", "en", "--out", str(out),
                                 "--max-iterations", "15", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "Ward -> LOCATION.DEPARTMENT" in result.output
    assert CRFDetector.load(out).lang == "en"
    listed = json.loads(runner.invoke(app, ["models", "--dir", str(out.parent), "--json"]).stdout)
    assert [(m["name"], m["language"], m["origin"]) for m in listed if m["origin"] == "user"] == [
        ("my-crf", "en", "user")]
    # the configuration written next to the model: the default pipeline, rules + this CRF for English notes
    cfg = Config.load(out / "clinanon.toml")
    nlp = Pipeline(cfg)
    plan = nlp.plan("en").describe()
    assert plan["detectors"] == ["rules", "crf"] and plan["steps"][:3] == ["select", "propagate", "repair"]
    # other languages keep their own default: the Dutch rules alone (the English model is not run on them)
    assert nlp.plan("nl").describe()["detectors"] == ["rules"]
    [note] = _notes(1, seed=123)
    found = nlp.detect(note)
    assert "crf" in {s.source for s in found.spans}
    [ward] = [g for g in note.spans if g.label == "Ward"]  # an invented ward name: learnt from the notes
    assert any(s.start == ward.start and s.end == ward.end and s.label == "LOCATION.DEPARTMENT" for s in found.spans)
    covered = {(s.start, s.end) for s in found.spans}
    assert all(any(a <= g.start and g.end <= b for a, b in covered) for g in note.spans
               if g.label in ("PTName", "Date", "Phone"))
    # and through the CLI with that configuration
    notes = tmp_path / "new"
    cio.write([note], notes, "brat")
    done = runner.invoke(app, ["deidentify", str(notes), "--out", str(tmp_path / "deid"), "--config",
                               str(out / "clinanon.toml")])
    assert done.exit_code == 0, done.output
    [text] = [p.read_text(encoding="utf-8") for p in (tmp_path / "deid").iterdir() if p.suffix == ".txt"]
    for g in note.spans:
        if g.label in ("PTName", "Phone"):
            assert note.text[g.start:g.end] not in text


def test_cli_train_brat_errors(tmp_path: Path) -> None:
    data = tmp_path / "odd"
    cio.write([Document("d1", "Seen by Quillfeather today.", (Span(8, 20, "Mystery"),))], data, "brat")
    result = runner.invoke(app, ["train", "--brat", str(data), "--lang", "en", "--out", str(tmp_path / "m")])
    assert result.exit_code == 2
    assert "Mystery" in result.output and "--label-map" in result.output
    assert not (tmp_path / "m").exists()
    assert "--lang" in runner.invoke(app, ["train", "--brat", str(data), "--out", str(tmp_path / "m")]).output
    assert runner.invoke(app, ["train"]).exit_code == 2
    bad = runner.invoke(app, ["train", "--brat", str(data), "--lang", "en", "--out", str(tmp_path / "m"),
                              "--label-map", "Mystery"])
    assert bad.exit_code == 2 and "LABEL=CATEGORY" in bad.output


def test_default_detector_refuses_a_models_crf_that_is_not_a_model(tmp_path: Path) -> None:
    cfg = Config.from_dict({"language": "en", "detectors": {"models": {"crf": str(tmp_path / "nothing")}}})
    with pytest.raises(ConfigError, match=r"detectors\.models\.crf: no model directory"):
        Pipeline(cfg)
