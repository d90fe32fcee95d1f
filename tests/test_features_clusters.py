"""Optional CRF feature families: word clusters (learned without labels), trigger words, structure features."""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import pytest

from clinanon.detect.clusters import CLUSTER_FILE, WordClusters, cluster_key, learn_clusters
from clinanon.detect.features import FeatureExtractor
from clinanon.errors import InputError

sys.path.insert(0, str(Path(__file__).parent))


def _texts() -> list[str]:
    """Small texts where city names and kin words share contexts (so they should share clusters)."""
    cities = ["Madrid", "Sevilla", "Granada", "Bilbao", "Murcia", "Toledo"]
    kin = ["madre", "padre", "hermana", "hija", "esposa", "abuela"]
    out = []
    for k in range(24):
        c, r = cities[k % 6], kin[(k * 5) % 6]
        out.append(f"Vive en {c} con su {r}. Ingresa en {c} el día {k + 1}. Acude con su {r} a consulta.\n"
                   f"Reside en {c}; su {r} refiere dolor.")
    return out


# --- clusters -----------------------------------------------------------------------------------------------

def test_cluster_key_lowercases_and_maps_digits() -> None:
    assert cluster_key("García") == "garcía"
    assert cluster_key("C/28029-B") == "c/00000-b"


def test_learn_clusters_is_deterministic_and_groups_similar_contexts() -> None:
    a = learn_clusters(_texts(), "es", sizes=(2, 4), dim=8, min_count=2, min_docs=2, seed=0)
    b = learn_clusters(_texts(), "es", sizes=(2, 4), dim=8, min_count=2, min_docs=2, seed=0)
    assert a == b and a.dumps() == b.dumps()
    assert a.sizes == (2, 4) and len(a) > 10
    # every id is in range for its size
    assert all(0 <= i < 2 and 0 <= j < 4 for i, j in a.table.values())
    # the six cities occur in identical contexts: one fine cluster; likewise the kin words
    assert len({a.get(c) for c in ("Madrid", "Sevilla", "Granada", "Bilbao", "Murcia", "Toledo")}) == 1
    assert len({a.get(w) for w in ("madre", "padre", "hermana", "hija", "esposa", "abuela")}) == 1
    assert a.get("Madrid") != a.get("madre")
    assert a.get("unseen-word") is None


def test_words_of_a_single_document_are_never_stored() -> None:
    texts = ["Ana Zubizarreta ingresa. Ana Zubizarreta ingresa. Ana Zubizarreta ingresa.", *_texts()]
    wc = learn_clusters(texts, "es", sizes=(2,), dim=4, min_count=2, min_docs=2)
    assert wc.get("Zubizarreta") is None and wc.get("Ana") is None
    assert wc.get("Madrid") is not None


def test_tiny_input_gives_an_empty_table() -> None:
    wc = learn_clusters(["una palabra"], "es", sizes=(2,), dim=2)
    assert len(wc) == 0 and wc.get("una") is None
    with pytest.raises(ValueError):
        learn_clusters(["x"], "es", sizes=(1,))


def test_cluster_file_round_trip_and_errors(tmp_path: Path) -> None:
    wc = WordClusters({"b": (1, 3), "a": (0, 2)}, (2, 4))
    p = tmp_path / CLUSTER_FILE
    wc.save(p)
    assert p.read_text(encoding="utf-8").splitlines()[2:] == ["a\t0\t2", "b\t1\t3"]  # sorted
    assert WordClusters.load(p) == wc
    bad = tmp_path / "bad.tsv"
    bad.write_text("#clinanon-word-clusters\t1\n#sizes\t2\nZubizarreta\t1\t2\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        WordClusters.load(bad)
    assert "bad.tsv" in str(e.value) and "line 3" in str(e.value) and "Zubizarreta" not in str(e.value)
    (tmp_path / "x.tsv").write_text("hello\n", encoding="utf-8")
    with pytest.raises(InputError):
        WordClusters.load(tmp_path / "x.tsv")
    with pytest.raises(InputError):
        WordClusters.load(tmp_path / "missing.tsv")


# --- features -----------------------------------------------------------------------------------------------

def _feats(fx: FeatureExtractor, text: str) -> dict[str, list[str]]:
    df = fx.extract(text)
    out: dict[str, list[str]] = {}
    for t, f in zip(df.tokens, df.features, strict=True):
        out.setdefault(text[t.start:t.end], f)
    return out


def test_cluster_features_for_word_and_neighbours() -> None:
    wc = WordClusters({"su": (1, 5), "madre": (0, 7)}, (2, 8))
    f = _feats(FeatureExtractor("es", rules=False, clusters=wc), "Vino con su madre Ana")
    assert {"k2=1", "k8=5"} <= set(f["su"])
    assert {"k2=0", "k8=7", "-1k8=5", "+1k=none"} <= set(f["madre"])
    assert "-1k8=7" in f["Ana"] and "-2k2=1" in f["Ana"] and "k=none" in f["Ana"]
    plain = _feats(FeatureExtractor("es", rules=False), "Vino con su madre Ana")
    assert not any(x.startswith(("k2=", "k8=", "k=", "-1k", "+1k", "-2k")) for x in plain["madre"])


def test_trigger_window_features() -> None:
    fx = FeatureExtractor("es", rules=False, triggers=True, trigger_window=3)
    text = "Acude con su madre Ana hoy a la consulta.\nAna sola"
    f = fx.extract(text)
    words = [text[t.start:t.end] for t in f.tokens]
    ana = f.features[words.index("Ana")]
    assert "tL=kin" in ana and "tL1=kin" in ana and "tR=kin" not in ana
    assert "tw=kin" in f.features[words.index("madre")]
    su = f.features[words.index("su")]
    assert "tR=kin" in su and "tR1=kin" in su
    assert "tL=kin" not in f.features[words.index("consulta")]  # 5 tokens away: outside the window
    assert not any(x.startswith("tL") for x in f.features[-2])  # the next line's "Ana": other line
    inst = _feats(fx, "Remitido por Universidad de Granada")
    assert "tL=org" in inst["Granada"] and "tw=org" in inst["Universidad"]


def test_structure_features_parenthetical_fields_and_numbers() -> None:
    fx = FeatureExtractor("es", rules=False, structure=True)
    text = "Tratado con (Timoftol® 0,5%, MSD, Madrid). Calle Mayor, 4"
    df = fx.extract(text)
    words = [text[t.start:t.end] for t in df.tokens]
    feats = dict(zip(words, df.features, strict=False))
    assert "pa" in feats["Timoftol"] and "pf=0" in feats["Timoftol"] and "pr" not in feats["Timoftol"]
    assert "pf=1" in feats["MSD"] and "pr" in feats["MSD"]   # "0,5" is one field: its comma is a decimal point
    assert "pf=2" in feats["Madrid"] and "pr" in feats["Madrid"]
    assert "pa" not in feats["Tratado"] and "pa" not in df.features[words.index(")") + 1]
    assert "nn=2" in feats["Mayor"] and "nn=3" in feats["Calle"]
    assert all(len(f) == len(set(f)) for f in df.features)


def test_default_extractor_is_unchanged_by_the_new_families() -> None:
    text = "Acude con su madre (Timoftol®, MSD) a Madrid 4"
    base = FeatureExtractor("es").extract(text).features
    assert not any(x.startswith(("tL", "tR", "tw=", "pa", "pf=", "nn=", "k=")) for f in base for x in f)


# --- CRF with the new families ------------------------------------------------------------------------------

def test_crf_with_clusters_saves_loads_and_pickles(tmp_path: Path) -> None:
    pytest.importorskip("pycrfsuite")
    from clinanon.detect.crf import CRFDetector
    from test_crf import synthetic

    docs = synthetic(10)
    opts = {"clusters": True, "triggers": True, "structure": True}
    det = CRFDetector("es", max_iterations=10, **opts).fit(docs)
    assert det.word_clusters_ is not None and len(det.word_clusters_) > 0
    again = CRFDetector("es", max_iterations=10, **opts).fit(docs)
    assert again.model_bytes == det.model_bytes and again.word_clusters_ == det.word_clusters_
    out = det.save(tmp_path / "m")
    assert (out / CLUSTER_FILE).is_file()
    meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    assert meta["params"]["clusters"] is True and meta["cluster_file"] == CLUSTER_FILE
    assert all(meta["params"][k] is True for k in opts)
    loaded = CRFDetector.load(out)
    test = synthetic(4, seed=11)
    assert [loaded.detect(d) for d in test] == [det.detect(d) for d in test]
    clone = pickle.loads(pickle.dumps(det))
    assert [clone.detect(d) for d in test] == [det.detect(d) for d in test]
    (out / CLUSTER_FILE).unlink()
    with pytest.raises(InputError):
        CRFDetector.load(out)


def test_training_config_accepts_the_feature_families() -> None:
    from clinanon.train import TrainConfig

    cfg = TrainConfig.from_dict({"data": {"train": "x"}, "crf": {"clusters": True, "triggers": True,
                                                                  "structure": True}})
    assert (cfg.crf.clusters, cfg.crf.triggers, cfg.crf.structure) == (True, True, True)
    default = TrainConfig.from_dict({"data": {"train": "x"}})
    assert (default.crf.clusters, default.crf.triggers, default.crf.structure) == (False, False, False)
