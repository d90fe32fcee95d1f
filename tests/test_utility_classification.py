"""The document-classification utility experiment (issue 19): labels read from MEDDOCAN-style SciELO ids and gold sex
spans (benchmarks/utility_classification.py), folds that are grouped and stratified at once, a unit cache that a
changed split invalidates, and aggregation of same-label notes inside a k-fold run. All notes are invented."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

import pytest

from clinanon import Document, Span, utility
from clinanon import io as cio

ROOT = Path(__file__).resolve().parents[1]


def _bench():
    spec = importlib.util.spec_from_file_location("utility_classification",
                                                  ROOT / "benchmarks" / "utility_classification.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_journal_and_article_from_a_scielo_id() -> None:
    b = _bench()
    assert b.journal_of("S0004-06142005000500011-1") == "0004-0614"
    assert b.journal_of("S1699-695X2010000300009-1") == "1699-695X"
    assert b.journal_of("s1699-695x2010000300009-1") is None  # not a PID: no "S"
    assert b.journal_of("note-17") is None
    assert b.article_of("S0210-48062009000300013-4") == "S0210-48062009000300013"
    assert b.article_of("S0210-48062009000300013-12") == "S0210-48062009000300013"


def test_sex_from_gold_spans() -> None:
    b = _bench()
    text = "Sexo: H. Varón de 40 años. Sexo: Mujer."
    h = Span(6, 7, "SEXO_SUJETO_ASISTENCIA")
    varon = Span(9, 14, "SEXO_SUJETO_ASISTENCIA")
    mujer = Span(33, 38, "SEXO_SUJETO_ASISTENCIA")
    age = Span(18, 25, "EDAD_SUJETO_ASISTENCIA")
    assert b.sex_of(text, [h, varon, age]) == "male"
    assert b.sex_of(text, [mujer]) == "female"
    assert b.sex_of(text, [h, mujer]) is None  # both: no label
    assert b.sex_of(text, [age]) is None  # none: no label


def test_labelled_notes_keep_classes_with_enough_notes() -> None:
    b = _bench()
    docs = [Document(f"S0004-0614200{i}000500011-1", "texto", ()) for i in range(4)]
    docs += [Document("S0004-06142009000500011-2", "texto", ())]
    docs += [Document(f"S0365-669120{i:02d}000500011-1", "texto", ()) for i in range(2)]
    docs += [Document("otro-1", "texto", ())]
    notes, info = b.labelled_notes(docs, "journal", min_notes=3)
    assert {d.meta["label"] for d in notes} == {"0004-0614"} and len(notes) == 5
    assert notes[-1].meta["article"] == "S0004-06142009000500011"
    assert info["unlabelled_notes"] == 1 and info["classes_below_min_notes"] == 1
    assert info["notes_in_classes_below_min_notes"] == 2 and info["articles"] == 5


def test_folds_grouped_and_stratified_at_once() -> None:
    # 60 notes in 40 groups (every 3rd group holds 3 notes), 15 "b" groups: stratification must deal them evenly
    docs = []
    for g in range(40):
        label = "b" if g % 8 in (0, 3, 5) else "a"
        for k in range(3 if g % 3 == 0 else 1):
            docs.append(Document(f"n{g:02d}-{k}", "x", (), {"label": label, "group": f"g{g}"}))
    folds = utility.kfold_splits(docs, 5, seed=0, label_field="label", group_field="group")
    assert sorted(i for f in folds for i in f) == list(range(len(docs)))
    group_fold = {}
    for n, f in enumerate(folds):
        for i in f:
            assert group_fold.setdefault(docs[i].meta["group"], n) == n  # a group in one fold
    b_groups = [len({docs[i].meta["group"] for i in f if docs[i].meta["label"] == "b"}) for f in folds]
    assert max(b_groups) - min(b_groups) <= 1  # 15 "b" groups over 5 folds: 3 each
    assert folds == utility.kfold_splits(list(docs), 5, seed=0, label_field="label", group_field="group")


def _notes(n: int = 24) -> list[Document]:
    rng = random.Random(3)
    filler = ["paciente", "acude", "control", "refiere", "mejoría", "sin", "cambios"]
    docs = []
    for i in range(n):
        label = "A" if i % 2 else "B"
        cue = "retina" if label == "A" else "riñón"
        words = [rng.choice(filler) for _ in range(5)] + [cue, cue]
        rng.shuffle(words)
        docs.append(Document(f"n{i:02d}", " ".join(words) + ".", (), {"label": label, "article": f"a{i // 2}"}))
    return docs


def _config(tmp_path: Path) -> dict:
    return {"name": "toy", "language": "es", "output": str(tmp_path / "out"), "plot": False,
            "data": {"train": str(tmp_path / "notes.jsonl")}, "task": {"type": "classification"},
            "protocol": {"folds": 3, "technique_seeds": 2, "workers": 1, "group_field": "article"},
            "techniques": [{"technique": "original"}, {"name": "agg3", "technique": "aggregate", "size": 3}]}


def test_aggregation_in_a_kfold_run_joins_same_label_training_notes(tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    cio.write(_notes(), tmp_path / "notes.jsonl", "jsonl")
    table = utility.run_utility(_config(tmp_path))
    rows = {r["technique"]: r for r in table["rows"]}
    assert rows["original"]["runs"] == 3 and rows["agg3"]["runs"] == 6  # aggregation is stochastic
    assert rows["original"]["mean"] == 1.0
    # 16 training notes per fold (8 per label) -> groups of 3: 3 notes per label, 6 per fold, 36 over 6 runs
    assert rows["agg3"]["transform"]["documents_in"] == 6 * 16
    assert rows["agg3"]["transform"]["documents_out"] == 6 * 6
    assert rows["agg3"]["test"]["name"] == "mann-whitney-u"


def test_a_changed_split_recomputes_the_cached_units(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sklearn")
    cio.write(_notes(), tmp_path / "notes.jsonl", "jsonl")
    cfg = _config(tmp_path)
    cfg["techniques"] = [{"technique": "original"}]
    first = utility.run_utility(cfg)
    assert first["units_computed"] == 3
    assert utility.run_utility(cfg)["units_cached"] == 3
    real = utility.kfold_splits

    def other_split(docs, k, seed, **kw):  # what a change of the fold code would do to the same config
        return real(docs, k, seed + 1, **kw)

    monkeypatch.setattr(utility, "kfold_splits", other_split)
    again = utility.run_utility(cfg)
    assert again["units_computed"] == 3 and again["units_cached"] == 0


def test_per_class_f1_pools_the_runs(tmp_path: Path) -> None:
    b = _bench()
    units = tmp_path / "units" / "tag"
    units.mkdir(parents=True)
    (units / "r0_f0_s0.json").write_text(json.dumps({"per_doc": [["A", "A"], ["B", "A"]]}))
    (units / "r0_f1_s0.json").write_text(json.dumps({"per_doc": [["B", "B"], ["A", "A"]]}))
    f1 = b.per_class_f1(tmp_path, ["tag"])["tag"]
    assert f1 == {"A": pytest.approx(0.8), "B": pytest.approx(2 / 3, abs=1e-4)}  # A: tp 2 fp 1; B: tp 1 fn 1
