"""Learning-curve subsets and outputs (tiny synthetic data; the CRF trains for a few iterations)."""

from __future__ import annotations

import itertools
import json

import pytest

from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.learning_curve import FRACTIONS, learning_curve, nested_subsets, write_json, write_plot


def docs(n: int) -> list[Document]:
    return [Document(f"d{i:03d}", f"Paciente de {20 + i} años ingresa el 3 de marzo.",
                     (Span(12, 14 + (i >= 80), "EDAD_SUJETO_ASISTENCIA"),)) for i in range(n)]


def test_subsets_are_nested_sized_and_deterministic() -> None:
    d = docs(200)
    subs = nested_subsets(d, seed=7)
    assert [len(subs[f]) for f in FRACTIONS] == [2, 10, 20, 50, 100, 200]
    ids = [[x.id for x in subs[f]] for f in FRACTIONS]
    for small, big in itertools.pairwise(ids):
        assert big[:len(small)] == small
    assert subs == nested_subsets(list(reversed(d)), seed=7)  # input order does not matter
    assert [x.id for x in nested_subsets(d, seed=8)[0.25]] != ids[3]  # the seed does


def test_at_least_one_document_and_bad_fractions() -> None:
    assert len(nested_subsets(docs(3), (0.01,))[0.01]) == 1
    with pytest.raises(ConfigError):
        nested_subsets(docs(3), (0.0,))
    with pytest.raises(ConfigError):
        nested_subsets([], (0.5,))


class Memorize:
    """Predicts the gold spans' strings seen in training (with their label) wherever they occur."""

    name = "memo"

    def __init__(self, train: list[Document]) -> None:
        self.seen = {d.text[s.start:s.end]: s.label for d in train for s in d.spans}
        self.trained_on = len(train)

    def detect(self, doc: Document) -> list[Span]:
        out = []
        for word, label in sorted(self.seen.items()):
            i = doc.text.find(word)
            if i >= 0:
                out.append(Span(i, i + len(word), label, "memo", 1.0))
        return out


class Constant(Memorize):
    def __init__(self, train: list[Document]) -> None:
        self.seen = {}
        self.calls = 0


def test_learning_curve_table_json_and_plot(tmp_path) -> None:  # type: ignore[no-untyped-def]
    train = docs(20)  # d000..d019: ages 20..39
    dev = [Document("dev1", "Paciente de 33 años ingresa.", (Span(12, 14, "EDAD_SUJETO_ASISTENCIA"),))]
    res = learning_curve(train, dev, ["memo", "const"], fractions=(0.1, 1.0),
                         trainers={"memo": Memorize, "const": Constant})
    rows = [(r["detector"], r["fraction"], r["train_documents"]) for r in res["rows"]]
    assert rows == [("memo", 0.1, 2), ("const", 0.1, 2), ("memo", 1.0, 20), ("const", 1.0, 20)]
    f1 = {(r["detector"], r["fraction"]): r["subtask1"]["f1"] for r in res["rows"]}
    # "33" (d013) is in the 100 % subset; with 2 documents it is seen only if the shuffle picked d013
    picked = {d.id for d in nested_subsets(train, (0.1,))[0.1]}
    assert f1[("memo", 1.0)] == 1.0
    assert f1[("memo", 0.1)] == (1.0 if "d013" in picked else 0.0)
    assert f1[("const", 0.1)] == f1[("const", 1.0)] == 0.0
    for r in res["rows"]:
        assert set(r["subtask1"]) >= {"precision", "recall", "f1"}
    assert res["subsets"]["0.1"] == sorted(d.id for d in nested_subsets(train, (0.1,))[0.1])
    p = write_json(res, tmp_path / "lc.json")
    assert json.loads(p.read_text())["rows"][1]["detector"] == "const"
    pytest.importorskip("matplotlib")
    png = write_plot(res, tmp_path / "lc.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
