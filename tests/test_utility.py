"""clinanon.utility: the statistics on known inputs (Mann-Whitney U against scipy and textbook values, Holm,
rank-biserial, paired bootstrap), the folds, and tiny end-to-end runs (k-fold classification with a cache that a
second run reuses; a hold-out NER run with the CRF). All notes are invented."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from clinanon import Document, Span
from clinanon import io as cio
from clinanon.errors import ConfigError
from clinanon.utility import (
    classification_scores,
    holm,
    kfold_splits,
    load_config,
    mann_whitney_u,
    mann_whitney_u_python,
    ner_scores,
    paired_bootstrap,
    rank_biserial,
    run_utility,
)

# --- statistics ---------------------------------------------------------------------------------------------------

def test_mann_whitney_u_textbook_values() -> None:
    # complete separation, n1 = n2 = 3: U = 0, exact two-sided p = 2 / C(6, 3) = 0.1
    r = mann_whitney_u_python([1, 2, 3], [4, 5, 6])
    assert r["U"] == 0 and r["method"] == "exact"
    assert r["p"] == pytest.approx(0.1)
    # n1 = n2 = 4, separated: p = 2 / C(8, 4) = 2 / 70
    assert mann_whitney_u_python([10, 11, 12, 13], [1, 2, 3, 4])["p"] == pytest.approx(2 / 70)
    assert mann_whitney_u_python([10, 11, 12, 13], [1, 2, 3, 4])["U"] == 16
    # identical samples with ties: U = n1 n2 / 2, p = 1
    r = mann_whitney_u_python([0.5] * 5, [0.5] * 5)
    assert r["U"] == 12.5 and r["p"] == 1.0


def test_mann_whitney_u_matches_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    rng = random.Random(0)
    for _ in range(200):
        n1, n2 = rng.randint(1, 12), rng.randint(1, 30)
        ties = rng.random() < 0.5
        x = [rng.randint(0, 5) if ties else rng.random() for _ in range(n1)]
        y = [rng.randint(0, 5) if ties else rng.random() + 0.2 for _ in range(n2)]
        mine = mann_whitney_u_python(x, y)
        ref = stats.mannwhitneyu(x, y, alternative="two-sided")
        assert mine["U"] == pytest.approx(ref.statistic)
        assert mine["p"] == pytest.approx(ref.pvalue, abs=1e-12)
    assert mann_whitney_u([1, 2, 3], [4, 5, 6])["p"] == pytest.approx(0.1)


def test_holm_correction() -> None:
    # sorted: 0.005 * 4 = 0.02, 0.01 * 3 = 0.03, 0.03 * 2 = 0.06, max(0.06, 0.04 * 1) = 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, None, 0.9]) == [pytest.approx(1.0), None, pytest.approx(1.0)]
    assert holm([0.2, 0.01]) == pytest.approx([0.2, 0.02])
    assert holm([]) == []


def test_rank_biserial_and_paired_bootstrap() -> None:
    assert rank_biserial(0, 3, 3) == -1.0
    assert rank_biserial(9, 3, 3) == 1.0
    assert rank_biserial(4.5, 3, 3) == 0.0
    same = paired_bootstrap(lambda idx: len(idx) / 10, lambda idx: len(idx) / 10, 10, samples=200)
    assert same["difference"] == 0 and same["p"] == 1.0
    good = [1] * 30
    bad = [1] * 10 + [0] * 20
    worse = paired_bootstrap(lambda idx: sum(bad[i] for i in idx) / len(idx),
                             lambda idx: sum(good[i] for i in idx) / len(idx), 30, samples=500, seed=1)
    assert worse["difference"] == pytest.approx(-20 / 30)
    assert worse["p"] < 0.01 and worse["ci_high"] < 0


def test_scores() -> None:
    # two notes: 2 tp + 1 fp + 1 fn; one span with a wrong label counts for subtask 2 only
    s = ner_scores([[2, 1, 1, 3, 0, 0], [0, 0, 0, 0, 0, 0]])
    assert s["precision"] == pytest.approx(2 / 3) and s["recall"] == pytest.approx(2 / 3)
    assert s["subtask2_f1"] == 1.0
    c = classification_scores(["a", "a", "b", "b"], ["a", "b", "b", "b"])
    assert c["accuracy"] == 0.75
    assert c["f1"] == pytest.approx((2 / 3 + 0.8) / 2)


def test_kfold_splits_partition_stratify_group() -> None:
    docs = [Document(f"d{i:02d}", "x", (), {"label": "ab"[i % 4 == 0], "patient": f"p{i // 3}"})
            for i in range(30)]
    folds = kfold_splits(docs, 5, seed=0)
    assert sorted(i for f in folds for i in f) == list(range(30))
    assert folds == kfold_splits(list(docs), 5, seed=0)
    assert folds != kfold_splits(docs, 5, seed=1)
    strat = kfold_splits(docs, 4, seed=0, label_field="label")
    counts = [sum(1 for i in f if docs[i].meta["label"] == "b") for f in strat]
    assert max(counts) - min(counts) <= 1  # 8 "b" notes over 4 folds: 2 each
    grouped = kfold_splits(docs, 5, seed=0, group_field="patient")
    for f in grouped:
        patients = {docs[i].meta["patient"] for i in f}
        assert all(docs[j].meta["patient"] not in patients for g in grouped if g is not f for j in g)
    with pytest.raises(ConfigError):
        kfold_splits(docs[:3], 5, seed=0)


# --- end to end ---------------------------------------------------------------------------------------------------

def _notes(n: int = 24) -> list[Document]:
    """Two classes that differ only in a number ("código 111" vs "código 222") among shared filler words: the
    original notes are perfectly separable, number-masked ones are not."""
    rng = random.Random(5)
    filler = ["paciente", "acude", "control", "refiere", "mejoría", "sin", "cambios", "tratamiento", "revisión"]
    docs = []
    for i in range(n):
        label = "A" if i % 2 else "B"
        words = [rng.choice(filler) for _ in range(6)]
        for _ in range(3):
            words.insert(rng.randrange(len(words)), "código " + ("111" if label == "A" else "222"))
        docs.append(Document(f"n{i:02d}", " ".join(words) + ".", (), {"specialty": label}))
    return docs


def test_kfold_classification_run_is_resumable_and_measures_a_loss(tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    cio.write(_notes(), tmp_path / "notes.jsonl", "jsonl")
    cfg = {"name": "toy", "language": "es", "output": str(tmp_path / "out"), "plot": True,
           "data": {"train": str(tmp_path / "notes.jsonl")},
           "task": {"type": "classification", "label_field": "specialty"},
           "protocol": {"folds": 3, "technique_seeds": 2, "workers": 1},
           "techniques": [{"technique": "original"}, {"technique": "number_mask"},
                          {"name": "swap", "technique": "word_swap", "fraction": 1.0}]}
    table = run_utility(cfg)
    rows = {r["technique"]: r for r in table["rows"]}
    assert [r["technique"] for r in table["rows"]] == ["original", "number_mask", "swap"]
    assert rows["original"]["runs"] == 3 and rows["number_mask"]["runs"] == 3 and rows["swap"]["runs"] == 6
    assert rows["original"]["mean"] == 1.0
    assert rows["swap"]["mean"] == 1.0  # a bag of words does not see word order
    assert rows["number_mask"]["delta_mean"] < -0.2  # the only signal is gone: near chance
    t = rows["number_mask"]["test"]
    assert t["name"] == "mann-whitney-u" and t["U"] == 0 and t["effect_rank_biserial"] == -1.0
    # ties among the original's scores (all 1.0): the normal approximation, as scipy does
    assert t["p"] == pytest.approx(mann_whitney_u_python(rows["number_mask"]["scores"],
                                                         rows["original"]["scores"])["p"], rel=1e-3)
    assert t["p"] < 0.1 and t["p_holm"] == pytest.approx(min(1.0, 2 * t["p"]))  # 2 tests: number_mask, swap
    assert rows["original"]["test"] is None
    assert (tmp_path / "out" / "boxplot.png").stat().st_size > 1000
    assert json.loads((tmp_path / "out" / "utility.json").read_text())["rows"][1]["technique"] == "number_mask"
    units = sorted(p.name for p in (tmp_path / "out" / "units" / "swap").iterdir())
    assert units == [f"r0_f{f}_s{s}.json" for f in range(3) for s in range(2)]
    assert table["units_computed"] == 12
    again = run_utility(cfg)
    assert again["units_computed"] == 0 and again["units_cached"] == 12
    assert again["rows"] == table["rows"]
    # a changed technique parameter recomputes that technique only
    cfg["techniques"][2] = {"name": "swap", "technique": "word_swap", "fraction": 0.5}
    third = run_utility(cfg)
    assert third["units_computed"] == 6


def test_holdout_ner_run_with_the_crf(tmp_path: Path) -> None:
    names = ["Ana Ruiz", "Luis Gómez", "Marta Sanz", "Pedro Gil", "Sara Vidal", "Jorge Mora", "Elena Cano",
             "Raúl Pardo"]
    docs = []
    for i, name in enumerate(names):
        text = f"Paciente: {name}. Edad: {30 + i} años. Acude por dolor abdominal."
        a = text.index(name)
        b = text.index(f"{30 + i} años")
        docs.append(Document(f"d{i}", text, (Span(a, a + len(name), "NOMBRE_SUJETO_ASISTENCIA"),
                                              Span(b, b + len(f"{30 + i} años"), "EDAD_SUJETO_ASISTENCIA"))))
    cio.write(docs[:6], tmp_path / "train.jsonl", "jsonl")
    cio.write(docs[6:], tmp_path / "test.jsonl", "jsonl")
    cfg = {"name": "ner", "language": "es", "output": str(tmp_path / "out"), "plot": False,
           "data": {"train": str(tmp_path / "train.jsonl"), "test": str(tmp_path / "test.jsonl")},
           "task": {"type": "ner", "label_scheme": "meddocan",
                    "crf": {"max_iterations": 30, "rules": False, "dev_each_iteration": False}},
           "protocol": {"technique_seeds": 1, "bootstrap": 200},
           "techniques": [{"technique": "original"}, {"technique": "deidentify", "operator": "tag"}]}
    table = run_utility(cfg)
    rows = {r["technique"]: r for r in table["rows"]}
    assert table["protocol"] == "hold-out"
    assert rows["original"]["mean"] > 0.5
    assert rows["deidentify-tag"]["mean"] < rows["original"]["mean"]  # trained on "[NAME]", tested on names
    assert rows["deidentify-tag"]["test"]["name"] == "paired-bootstrap"
    assert rows["deidentify-tag"]["transform"]["dropped_spans"] == 0


def test_config_errors_name_the_problem(tmp_path: Path) -> None:
    base = {"data": {"train": "x.jsonl"}, "task": {"type": "classification"}}
    with pytest.raises(ConfigError, match="unknown technique"):
        load_config({**base, "techniques": [{"technique": "nope"}]}).labelled_techniques()
    with pytest.raises(ConfigError, match="baseline"):
        load_config({**base, "techniques": [{"technique": "number_mask"}]}).labelled_techniques()
    with pytest.raises(ConfigError, match="named"):
        load_config({**base, "techniques": [{"technique": "original"}, {"technique": "original"}]}
                    ).labelled_techniques()
    toml = tmp_path / "u.toml"
    toml.write_text('output = "o"\n[data]\ntrain = "notes"\n[task]\ntype = "ner"\n[[techniques]]\n'
                    'technique = "original"\n', encoding="utf-8")
    cfg = load_config(toml)
    assert cfg.data.train == tmp_path / "notes" and cfg.output == tmp_path / "o"
    assert cfg.protocol.folds == 10 and cfg.protocol.technique_seeds == 5
