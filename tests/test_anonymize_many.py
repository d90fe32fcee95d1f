"""Batch anonymization (``anonymize_many``, ``Anonymizer.anonymize_many``, the ``prepare_many`` hook of batch
operators, the surrogate operator's grouped generation) gives exactly what one document at a time gives."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from clinanon import io as cio
from clinanon.config import Config
from clinanon.document import Document, SanitizedDocument, Span
from clinanon.errors import SpanError
from clinanon.pipeline import Pipeline
from clinanon.transform import (
    Anonymizer,
    BatchOperator,
    Edit,
    OperatorContext,
    RedactOperator,
    anonymize,
    anonymize_many,
)
from clinanon.transform.surrogate import SurrogateOperator
from clinanon.transform.surrogate.operator import clear_text_caches

KEY = "5e" * 32

NOTES = [
    Document(text="Paciente: Juan García López, 45 años, vive en Tudela (31500), C/ Mayor 3. Fecha: 12/03/2015.",
             id="n1", meta={"patient_id": "p1"},
             spans=(Span(10, 27, "NOMBRE_SUJETO_ASISTENCIA"), Span(29, 36, "EDAD_SUJETO_ASISTENCIA"),
                    Span(46, 52, "TERRITORIO"), Span(54, 59, "TERRITORIO"), Span(62, 72, "CALLE"),
                    Span(81, 91, "FECHAS"))),
    Document(text="Dr. García. Tudela, 19/03/2015. Juan García volvió; varón.", id="n2",
             meta={"patient_id": "p1"},
             spans=(Span(4, 10, "NOMBRE_PERSONAL_SANITARIO"), Span(12, 18, "TERRITORIO"), Span(20, 30, "FECHAS"),
                    Span(32, 43, "NOMBRE_SUJETO_ASISTENCIA"), Span(52, 57, "SEXO_SUJETO_ASISTENCIA"))),
    Document(text="Sin datos.", id="empty"),
    Document(text="Correo: ana.ruiz@example.com, tel. 612 345 678, NHC 1234567, 28012 Madrid.", id="n3",
             spans=(Span(8, 28, "CORREO_ELECTRONICO"), Span(35, 46, "NUMERO_TELEFONO"),
                    Span(52, 59, "ID_SUJETO_ASISTENCIA"), Span(61, 66, "TERRITORIO"), Span(67, 73, "TERRITORIO"))),
]


def _same(a: Sequence[SanitizedDocument], b: Sequence[SanitizedDocument]) -> None:
    assert [(d.id, d.text, d.replacements) for d in a] == [(d.id, d.text, d.replacements) for d in b]


@pytest.mark.parametrize("scope", ["document", "patient", "corpus"])
def test_surrogates_in_a_batch_equal_one_by_one(scope: str) -> None:
    def anon() -> Anonymizer:
        return Anonymizer({"*": SurrogateOperator(key=KEY, scope=scope)}, scheme="meddocan")

    one = [anon().anonymize(d) for d in NOTES]
    clear_text_caches()
    _same(anon().anonymize_many(NOTES), one)
    _same(anon().anonymize_many(list(reversed(NOTES))), list(reversed(one)))
    assert sum(len(d.replacements) for d in one) > 12  # the notes do get surrogates


def test_other_operators_and_mixed_maps_in_a_batch_equal_one_by_one() -> None:
    for ops in ({"*": "tag"}, {"*": {"operator": "redact"}},
                {"NAME": SurrogateOperator(key=KEY), "DATE": "redact", "*": {"operator": "tag"}}):
        _same(Anonymizer(ops, scheme="meddocan").anonymize_many(NOTES),
              [Anonymizer(ops, scheme="meddocan").anonymize(d) for d in NOTES])
    spans = [d.spans[:2] for d in NOTES]  # explicit span lists, and the function form
    _same(anonymize_many(NOTES, spans, scheme="meddocan"), [anonymize(d, s, scheme="meddocan")
                                                            for d, s in zip(NOTES, spans, strict=True)])
    assert anonymize_many([], scheme="meddocan") == []


def test_meddocan_slice_surrogates_in_batches_equal_one_by_one(meddocan_dir: Path) -> None:
    docs = list(cio.read(meddocan_dir / "dev" / "brat", "brat"))[:20]
    one = [Anonymizer({"*": SurrogateOperator(key=KEY)}, scheme="meddocan").anonymize(d) for d in docs]
    anon = Anonymizer({"*": SurrogateOperator(key=KEY)}, scheme="meddocan")
    batched = anon.anonymize_many(docs[:7]) + anon.anonymize_many(docs[7:])
    _same(batched, one)
    assert sum(len(d.replacements) for d in one) > 200


class _Recording:
    """A batch operator that records what it is prepared with and tags every span."""

    name = "recording"

    def __init__(self) -> None:
        self.prepared: list[list[tuple[str, int]]] = []
        self.fail = False

    def prepare_many(self, items: Sequence[tuple[Span, OperatorContext]]) -> None:
        if self.fail:
            raise RuntimeError("prepare failed")
        self.prepared.append([(ctx.doc.id, span.start) for span, ctx in items])

    def edit(self, span: Span, ctx: OperatorContext) -> Edit:
        return Edit(span.start, span.end, f"<{ctx.category}>")


def test_batch_operators_are_prepared_once_per_batch_with_every_span_in_order() -> None:
    op = _Recording()
    assert isinstance(op, BatchOperator)
    ops = {"NAME": op, "*": RedactOperator()}
    out = anonymize_many(NOTES, operators=ops, scheme="meddocan")
    names = [(d.id, s.start) for d in NOTES for s in sorted(d.spans) if s.label.startswith("NOMBRE")]
    assert op.prepared == [names]
    _same(out, [anonymize(d, operators=ops, scheme="meddocan") for d in NOTES])


def test_a_failing_prepare_falls_back_to_one_by_one() -> None:
    op = _Recording()
    op.fail = True
    out = anonymize_many(NOTES, operators={"*": op}, scheme="meddocan")
    assert out[0].text.startswith("Paciente: <NAME.PATIENT>")


def test_an_error_names_the_first_failing_document() -> None:
    bad = Document(text="corto", id="bad", spans=(Span(0, 3, "FECHAS"),))
    spans: list[Any] = [None, [Span(0, 40, "FECHAS")], None]
    with pytest.raises(SpanError, match=r"'bad'.*ends past the text"):
        anonymize_many([NOTES[0], bad, NOTES[1]], spans, operators={"*": RedactOperator()}, scheme="meddocan")
    with pytest.raises(ValueError, match="one span list"):
        anonymize_many(NOTES, [None], scheme="meddocan")


def test_surrogate_edits_after_prepare_generate_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    op = SurrogateOperator(key=KEY)
    calls: list[str] = []
    original = SurrogateOperator._generate

    def counting(self: SurrogateOperator, span: Span, category: str, state: Any, text: str) -> Any:
        calls.append(category)
        return original(self, span, category, state, text)

    monkeypatch.setattr(SurrogateOperator, "_generate", counting)
    prepared: list[int] = []
    real_prepare = SurrogateOperator.prepare_many

    def prepare(self: SurrogateOperator, items: Any) -> None:
        real_prepare(self, items)
        prepared.append(len(calls))

    monkeypatch.setattr(SurrogateOperator, "prepare_many", prepare)
    Anonymizer({"*": op}, scheme="meddocan").anonymize_many(NOTES)
    assert prepared and prepared[0] >= 10  # the surrogates were generated in the prepare step
    assert len(calls) == prepared[0]  # and only there, postcodes (which follow the nearest city) included
    assert "31500" not in "".join(d.text for d in Anonymizer({"*": op}, scheme="meddocan").anonymize_many(NOTES))


def test_pipe_anonymizes_each_batch_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    nlp = Pipeline(Config.from_dict({"language": "es", "detectors": {"use": ["rules"]}}))
    sizes: list[int] = []
    real = Anonymizer.anonymize_many

    def spy(self: Anonymizer, docs: Sequence[Document], spans: Any = None) -> list[SanitizedDocument]:
        sizes.append(len(docs))
        return real(self, docs, spans)

    monkeypatch.setattr(Anonymizer, "anonymize_many", spy)
    out = [d.text for d in nlp.pipe(NOTES, batch_size=3)]
    assert sizes == [3, 1]
    assert out == [nlp.deidentify(d).text for d in NOTES]


def test_pipe_yields_the_documents_before_one_whose_anonymization_fails() -> None:
    class FailsOnBad:
        name = "fails"

        def edit(self, span: Span, ctx: OperatorContext) -> Edit:
            if ctx.doc.id == "bad":
                raise SpanError("document 'bad' cannot be edited")
            return Edit(span.start, span.end, "X")

    class Everything:
        name = "everything"

        def detect(self, doc: Document) -> list[Span]:
            return [Span(0, 1, "NAME.PATIENT")]

    nlp = Pipeline(Config(language="es"), detectors=[Everything()])  # one-letter notes: no language to identify
    nlp.anonymizer = Anonymizer({"*": FailsOnBad()})  # type: ignore[dict-item]
    docs = [Document(text="a", id="a"), Document(text="b", id="bad"), Document(text="c", id="c")]
    seen = []
    with pytest.raises(SpanError, match="'bad'"):
        for d in nlp.pipe(docs, batch_size=8):
            seen.append(d.text)
    assert seen == ["X"]
