"""Evaluation on MEDDOCAN dev: gold as prediction scores 1.0 everywhere; known errors give the counted values.

The BRAT files are parsed here (``T<n>\\t<LABEL> <start> <end>\\t<text>``) so the test does not depend on the
readers in ``clinanon.io``.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from clinanon import Document, Span
from clinanon.evaluate import EvaluationReport, evaluate


def _read_brat(folder: Path) -> list[Document]:
    docs = []
    for txt in sorted(folder.glob("*.txt")):
        text = txt.read_text(encoding="utf-8")
        spans = []
        for line in txt.with_suffix(".ann").read_text(encoding="utf-8").splitlines():
            if line.startswith("T"):
                label, start, end = line.split("\t")[1].split(" ")
                spans.append(Span(int(start), int(end), label))
        docs.append(Document(txt.stem, text, tuple(spans)))
    return docs


@pytest.fixture(scope="module")
def dev(meddocan_dir: Path) -> list[Document]:
    docs = _read_brat(meddocan_dir / "dev" / "brat")
    assert len(docs) == 250
    return docs


def _assert_perfect(r: EvaluationReport) -> None:
    for name, m in r.measures.items():
        assert m.precision == m.recall == m.f1 == 1.0, name
        assert m.micro.fp == m.micro.fn == 0, name
        if m.macro is not None:
            assert tuple(m.macro) == (1.0, 1.0, 1.0), name
    assert r.leak_chars == r.leaked_spans == r.fully_leaked_spans == 0
    off_diagonal = sum(r.confusion[g, p] for g in r.confusion.labels for p in r.confusion.labels if g != p)
    assert off_diagonal == 0


def test_gold_as_prediction_is_perfect(dev: list[Document]) -> None:
    t0 = time.process_time()
    r = evaluate(dev, dev, lang="es")
    elapsed = time.process_time() - t0
    _assert_perfect(r)
    n = sum(len(d.spans) for d in dev)
    assert r.documents == 250 and r.gold_spans == r.pred_spans == n == r.entity_exact.micro.tp
    assert elapsed < 3.0  # about 0.2 s on a laptop; generous for CI


def test_gold_as_prediction_canonical(dev: list[Document]) -> None:
    _assert_perfect(evaluate(dev, dev, scheme="meddocan", label_map="canonical"))


def test_known_errors(dev: list[Document]) -> None:
    # predictions = gold without any FECHAS span, and with every PAIS relabelled TERRITORIO
    pred = [d.with_spans(s.with_label("TERRITORIO") if s.label == "PAIS" else s
                         for s in d.spans if s.label != "FECHAS") for d in dev]
    n = sum(len(d.spans) for d in dev)
    n_fechas = sum(s.label == "FECHAS" for d in dev for s in d.spans)
    n_pais = sum(s.label == "PAIS" for d in dev for s in d.spans)
    n_terr = sum(s.label == "TERRITORIO" for d in dev for s in d.spans)
    fechas_chars = sum(len("".join(d.span_text(s).split())) for d in dev for s in d.spans if s.label == "FECHAS")
    assert n_fechas > 0 and n_pais > 0
    r = evaluate(dev, pred)
    # subtask 1: every dropped date is a FN; every relabelled country is one FP and one FN
    ex = r.entity_exact
    assert (ex.micro.tp, ex.micro.fp, ex.micro.fn) == (n - n_fechas - n_pais, n_pais, n_fechas + n_pais)
    assert ex.precision == pytest.approx((n - n_fechas - n_pais) / (n - n_fechas))
    assert ex.recall == pytest.approx((n - n_fechas - n_pais) / n)
    assert (ex.per_label["FECHAS"].tp, ex.per_label["FECHAS"].fn) == (0, n_fechas)
    assert (ex.per_label["PAIS"].tp, ex.per_label["PAIS"].fp, ex.per_label["PAIS"].fn) == (0, 0, n_pais)
    assert (ex.per_label["TERRITORIO"].tp, ex.per_label["TERRITORIO"].fp) == (n_terr, n_pais)
    # subtask 2 ignores labels: only the dates are missing
    sp = r.entity_span.micro
    assert (sp.tp, sp.fp, sp.fn) == (n - n_fechas, 0, n_fechas)
    assert r.entity_span.precision == 1.0
    # gold spans do not overlap each other in MEDDOCAN, so unlabelled overlap = subtask 2 here
    ou = r.entity_overlap_unlabeled.micro
    assert (ou.tp, ou.tp_precision, ou.fp, ou.fn) == (n - n_fechas, n - n_fechas, 0, n_fechas)
    # leakage: exactly the date characters, every date span fully leaked
    assert (r.leak_chars, r.leaked_spans, r.fully_leaked_spans) == (fechas_chars, n_fechas, n_fechas)
    assert r.char_binary.micro.fn == fechas_chars and r.char_binary.micro.fp == 0
    assert r.confusion["PAIS", "TERRITORIO"] == n_pais and r.confusion["FECHAS", "O"] == n_fechas
    assert r.confusion["PAIS", "PAIS"] == 0
    # binary token detection does not care about labels: no FP; recall < 1 because of the dates
    assert r.token_binary.micro.fp == 0 and r.token_binary.recall < 1.0
