"""The ``default`` detector: per document language, rules + the shipped CRF for Spanish, the rules elsewhere."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinanon import io as cio
from clinanon.analysis import Analysis
from clinanon.config import Config
from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.pipeline import LanguageDispatch, Pipeline

REPO = Path(__file__).resolve().parents[1]
NOTES = REPO / "examples" / "notes.jsonl"
ES = "Paciente: Juan García López. Ingresa el 3 de marzo de 2019 en el Hospital La Paz."
EN = "Mr. Whitaker (MRN 00481236) was seen on 03/17/2024."

pytest.importorskip("pycrfsuite")


@pytest.fixture(autouse=True)
def _shipped_model() -> None:
    from clinanon.models import default_model

    if default_model("es") is None:
        pytest.skip("the Spanish model is not built (scripts/build_shipped_model.py)")


@pytest.fixture()
def crf_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the documents the CRF tags (a spy around CRFDetector.detect)."""
    from clinanon.detect.crf import CRFDetector

    calls: list[str] = []
    real = CRFDetector.detect

    def spy(self: CRFDetector, analysis: Analysis) -> list[Span]:
        calls.append(analysis.id)
        return real(self, analysis)

    monkeypatch.setattr(CRFDetector, "detect", spy)
    return calls


def test_the_default_configuration_dispatches_per_language() -> None:
    from clinanon.detect.rules.detector import RulesDetector
    from clinanon.ensemble import Ensemble

    assert Config().detectors.use == ["default"]
    nlp = Pipeline()
    [disp] = nlp.detectors
    assert isinstance(disp, LanguageDispatch) and disp.lang == "es"
    assert list(disp.built) == ["es"]  # the run's language is built at once (a broken model fails early)
    es = disp.detector_for("es")
    assert isinstance(es, Ensemble) and es.members == ("crf", "rules") and es.output_scheme is not None
    en = disp.detector_for("en")
    assert isinstance(en, RulesDetector) and en.lang == "en"
    assert disp.detector_for("en") is en and disp.detector_for("es") is es
    assert disp.detector_for("es-ES") is es and disp.detector_for("ES") is es  # regional codes share it
    assert set(disp.built) == {"es", "en", "es-ES", "ES"}


def test_spanish_documents_go_through_the_crf_and_others_do_not(crf_calls: list[str]) -> None:
    docs = list(cio.read(NOTES))
    assert [d.meta["lang"] for d in docs] == ["es", "en", "nl", "sv", "de"]
    for run_lang in ("es", "en"):  # the document's meta.lang wins over the run's language
        crf_calls.clear()
        nlp = Pipeline.from_config(language=run_lang)
        detected = {d.id: nlp.detect(d).spans for d in docs}
        assert crf_calls == ["es-001"]
        assert any(s.source == "crf" for s in detected["es-001"])
        assert all(s.source != "crf" for i, spans in detected.items() if i != "es-001" for s in spans)
    # without meta.lang the run's language decides
    crf_calls.clear()
    Pipeline.from_config(language="en").detect(Document("x", EN))
    assert crf_calls == []
    Pipeline.from_config(language="es").detect(Document("y", ES))
    assert crf_calls == ["y"]


def test_spanish_labels_in_the_configured_scheme() -> None:
    doc = Document("x", ES)
    canonical = {(ES[s.start:s.end], s.label) for s in Pipeline().detect(doc).spans}
    assert ("Juan García López", "NAME.PATIENT") in canonical and ("3 de marzo de 2019", "DATE") in canonical
    native = {(ES[s.start:s.end], s.label) for s in Pipeline.from_config(label_scheme="meddocan").detect(doc).spans}
    assert ("Juan García López", "NOMBRE_SUJETO_ASISTENCIA") in native and ("3 de marzo de 2019", "FECHAS") in native


def test_rules_stay_selectable(crf_calls: list[str]) -> None:
    from clinanon.detect.rules.detector import RulesDetector

    nlp = Pipeline(Config.from_dict({"detectors": {"use": ["rules"]}}))
    assert [type(d) for d in nlp.detectors] == [RulesDetector]
    assert nlp.detect(Document("x", ES)).spans and crf_calls == []


def test_each_language_is_built_once(crf_calls: list[str]) -> None:
    built: list[str] = []

    class Marker:
        def __init__(self, lang: str) -> None:
            self.lang = lang

        def detect(self, doc: Document) -> list[Span]:
            return [Span(0, 1, "OTHER", f"marker:{self.lang}")]

    def build(lang: str) -> Marker:
        built.append(lang)
        return Marker(lang)

    disp = LanguageDispatch(build, "en", eager=False)
    assert built == []
    docs = [Document(f"d{i}", "x", meta={"lang": lang} if lang else {})
            for i, lang in enumerate(["es", None, "en", "es", "es-ES", "de", None, "es"])]
    sources = [disp.detect(d)[0].source for d in docs]
    assert sources == ["marker:es", "marker:en", "marker:en", "marker:es", "marker:es", "marker:de", "marker:en",
                       "marker:es"]
    assert built == ["es", "en", "de"]
    with pytest.raises(ConfigError, match="unsupported language 'fr'"):
        disp.detect(Document("f", "x", meta={"lang": "fr"}))
    with pytest.raises(ConfigError, match="unsupported language 'xx'"):
        LanguageDispatch(build, "xx")


def test_the_crf_loads_once_per_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The quick-start notes, four copies, through `clinanon detect` in two worker processes: every Spanish note
    gets CRF spans, no other does, and the model is read once per process (the parent, which checks the
    configuration before the run, and each worker), never per document."""
    from clinanon.cli import app
    from clinanon.detect.crf import CRFDetector

    log = tmp_path / "loads.log"
    real = CRFDetector.load.__func__  # type: ignore[attr-defined]

    def counting_load(cls: type[CRFDetector], path: str | Path, **kw: object) -> CRFDetector:
        with log.open("a", encoding="utf-8") as fh:
            fh.write(f"{os.getpid()}\n")
        return real(cls, path, **kw)

    monkeypatch.setattr(CRFDetector, "load", classmethod(counting_load))
    notes = list(cio.read(NOTES))
    docs = [Document(f"{d.id}-{k}", d.text, (), d.meta) for k in range(4) for d in notes]
    src = tmp_path / "in.jsonl"
    cio.write(docs, src, "jsonl")
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(app, ["detect", str(src), "--out", str(out), "--workers", "2"])
    assert result.exit_code == 0, result.output
    got = {d.id: d for d in cio.read(out)}
    assert len(got) == 20
    for i, d in got.items():
        has_crf = any(s.source == "crf" for s in d.spans)
        assert has_crf == i.startswith("es-"), i
    pids = log.read_text(encoding="utf-8").split()
    assert len(pids) == len(set(pids)) <= 3  # parent + two workers, once each


def test_quick_start_command(crf_calls: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """README: ``clinanon deidentify examples/notes.jsonl --out out/notes.deid.jsonl --overwrite``."""
    from clinanon.cli import app

    monkeypatch.chdir(tmp_path)
    args = ["deidentify", str(NOTES), "--out", "out/notes.deid.jsonl", "--overwrite"]
    for _ in range(2):  # --overwrite: the second run replaces the first
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        assert "5 processed, 0 resumed, 0 errors" in result.output
    assert crf_calls == ["es-001", "es-001"]
    rows = [json.loads(line) for line in Path("out/notes.deid.jsonl").read_text(encoding="utf-8").splitlines()]
    # the outputs are named by record number (no surrogate key: clinanon.metadata), in input order
    assert [r["id"] for r in rows] == [f"record-{n:06d}" for n in range(1, 6)]
    es = rows[0]["text"].splitlines()
    assert es[:4] == ["Datos del paciente.", "Nombre: [NAME].", "Apellidos: [NAME].", "NHC: [ID]."]
    assert all(r["meta"]["replacements"] for r in rows)
    assert Path("out/notes.deid.jsonl.errors.jsonl").read_text(encoding="utf-8") == ""
