"""Privacy-preserving representations (clinanon.privrep): tiny models, seconds on CPU."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from clinanon.document import Document, Span  # noqa: E402
from clinanon.errors import ConfigError  # noqa: E402
from clinanon.privrep.data import (  # noqa: E402
    WordSpace,
    encode_corpus,
    oversample_phi,
    phi_sentences,
    pseudonymize_all,
    pseudonymize_one,
    repair_chunk_tags,
    tags_to_documents,
)
from clinanon.privrep.model import PrivRepConfig, PrivRepModel, token_prf  # noqa: E402
from clinanon.privrep.share import export_representations, read_representations, train_pooled  # noqa: E402

NAMES = ["Zorblat", "Quenvix", "Marpolo", "Tiskane", "Brevundo", "Hollquist", "Yarrowen", "Pemberlux"]
CITIES = ["Velmora", "Ostrakan", "Duvenholt", "Carrowind"]
FILLER = ["patient", "seen", "today", "with", "fever", "and", "cough", "reports", "pain", "stable", "visited", "by"]


def _docs(n: int, seed: int) -> list[Document]:
    rng = random.Random(seed)
    docs = []
    for k in range(n):
        parts, spans = [], []
        pos = 0
        for _ in range(3):
            words = rng.sample(FILLER, 4)
            name, city = rng.choice(NAMES), rng.choice(CITIES)
            sent = f"{words[0]} {words[1]} Dr {name} in {city} {words[2]} {words[3]}."
            s = pos + len(f"{words[0]} {words[1]} Dr ")
            spans.append(Span(s, s + len(name), "NAME"))
            c = s + len(name) + len(" in ")
            spans.append(Span(c, c + len(city), "CITY"))
            parts.append(sent)
            pos += len(sent) + 1
        docs.append(Document(f"d{seed}-{k}", " ".join(parts), tuple(spans), {"lang": "en"}))
    return docs


def _space() -> WordSpace:
    gen = torch.Generator().manual_seed(0)
    words = sorted({w.lower() for w in NAMES + CITIES + FILLER + ["dr", "in", "."]})
    base = torch.randn(len(words), 12, generator=gen)
    # names close to names, cities close to cities: the neighbours of a PHI word are words of its kind
    for k, w in enumerate(words):
        if w in {n.lower() for n in NAMES}:
            base[k, 0] += 4.0
        if w in {c.lower() for c in CITIES}:
            base[k, 1] += 4.0
    return WordSpace(words, base.numpy())


def _cfg(**kw: object) -> PrivRepConfig:
    base = {"dim": 8, "hidden": 8, "adv_hidden": 6, "pretrain_epochs": 1, "adv_warm_epochs": 1, "epochs": 1,
            "n_neighbors": 3, "batch_size": 8, "seed": 0}
    base.update(kw)
    return PrivRepConfig(**base)  # type: ignore[arg-type]


@pytest.fixture(scope="module", autouse=True)
def _one_thread():
    """One torch thread: tiny models on a shared machine run faster than with threads waiting on each other."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def data() -> tuple[WordSpace, object, object]:
    space = _space()
    train = encode_corpus(_docs(12, 1), space, lang="en")
    dev = encode_corpus(_docs(4, 2), space, lang="en", tags=train.tags)
    return space, train, dev


def test_encode_corpus_tags_and_back(data) -> None:
    space, train, _ = data
    assert train.tags[0] == "O" and {"B-NAME", "B-CITY"} <= set(train.tags)
    gold = [s.tags for s in train.sentences]
    back = tags_to_documents(train, gold)
    assert [[(s.start, s.end, s.label) for s in d.spans] for d in back] == \
        [[(s.start, s.end, s.label) for s in d.spans] for d in train.docs]
    assert len(phi_sentences(train, space)) == len(train.sentences)  # every sentence holds a name


def test_pseudonymize_one_replaces_one_phi_token_by_a_neighbour(data) -> None:
    space, train, _ = data
    rng = random.Random(0)
    for s in train.sentences:
        new = pseudonymize_one(s, space, 2, rng)
        diff = [k for k, (a, b) in enumerate(zip(s.words, new, strict=True)) if a != b]
        assert len(diff) == 1
        k = diff[0]
        assert s.tags[k] != 0
        assert new[k] in space.neighbors(s.words[k], 2)
    # N = 1: always the nearest neighbour, and a name's nearest neighbour is a name
    names = {space.vocab.word_ids([n])[0] for n in NAMES}
    s = train.sentences[0]
    k = next(i for i, t in enumerate(s.tags) if train.tags[t] == "B-NAME")
    assert space.neighbors(s.words[k], 1)[0] in names
    with pytest.raises(ConfigError):
        pseudonymize_one(s, space, 0, rng)


def test_pseudonymize_all_replaces_every_phi_token(data) -> None:
    space, train, _ = data
    s = train.sentences[0]
    new = pseudonymize_all(s, space, 3, random.Random(1))
    for t, a, b in zip(s.tags, s.words, new, strict=True):
        assert (a != b) == (t != 0)


def test_grad_reverse_and_learned_noise() -> None:
    from clinanon.privrep.nets import LearnedNoise, grad_reverse

    x = torch.ones(3, requires_grad=True)
    grad_reverse(x, 0.5).sum().backward()
    assert torch.allclose(x.grad, torch.full((3,), -0.5))
    noise = LearnedNoise(4, 0.1)
    out = noise(torch.zeros(2, 5, 4))
    assert out.std() > 0
    out.pow(2).sum().backward()
    assert noise.log_sigma.grad is not None and bool((noise.log_sigma.grad > 0).all())  # the loss wants less noise


def test_config_validation() -> None:
    with pytest.raises(ConfigError):
        PrivRepConfig(strategy="fgsm")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        PrivRepConfig(dim=7)


@pytest.mark.parametrize("strategy", ["three_phase", "dann"])
def test_strategies_train_and_are_seeded(data, strategy: str) -> None:
    space, train, dev = data
    a = PrivRepModel(space, train.tags, _cfg(strategy=strategy)).fit(train)
    b = PrivRepModel(space, train.tags, _cfg(strategy=strategy)).fit(train)
    phases = [h["phase"] for h in a.history]
    assert phases[0] == "pretrain"
    assert ("three_phase:3" if strategy == "three_phase" else "dann") in phases
    if strategy == "three_phase":
        assert "three_phase:2" in phases
    ra, rb = a.represent(dev, seed=3), b.represent(dev, seed=3)
    assert all((x == y).all() for x, y in zip(ra, rb, strict=True))
    assert ra[0].shape == (len(dev.sentences[0].words), 8)
    assert a.model_id() == b.model_id()


def test_deid_learns_and_attack_reports_per_epoch(data) -> None:
    space, train, dev = data
    m = PrivRepModel(space, train.tags, _cfg(strategy="none", pretrain_epochs=15, lr=0.03, dim=16, hidden=16))
    m.fit(train)
    scores = m.evaluate_deid(dev, lang="en")
    assert scores["token_binary"]["f1"] > 0.8
    before = [p.detach().clone() for p in m.rep.parameters()]
    curve = m.attack(train, dev, epochs=2, seed=1)
    assert [c["epoch"] for c in curve] == [1, 2]
    assert all(0.0 <= c["dev_accuracy"] <= 1.0 and c["phase"] == "attack" for c in curve)
    assert all(torch.equal(x, y) for x, y in zip(before, m.rep.parameters(), strict=True))  # frozen


def test_config_validates_schedule_options() -> None:
    with pytest.raises(ConfigError):
        PrivRepConfig(deid_loss="mean")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        PrivRepConfig(adv_steps=0)
    with pytest.raises(ConfigError):
        PrivRepConfig(rep_steps=0)
    with pytest.raises(ConfigError):
        PrivRepConfig(noise_lr=0.0)
    with pytest.raises(ConfigError):
        PrivRepConfig(noise_floor=-0.1)
    with pytest.raises(ConfigError):
        PrivRepConfig(adv_reset=-1)
    with pytest.raises(ConfigError):
        PrivRepConfig(pretrain_loss="mean")  # type: ignore[arg-type]
    for bad in (0.0, -0.11):
        with pytest.raises(ConfigError):
            PrivRepConfig(phase3_clip=bad)
    assert PrivRepConfig().phase3_clip is None  # default: phase 3 clips at `clip`, the earlier behaviour
    assert PrivRepConfig(phase3_clip=0.11).phase3_clip == 0.11


def test_repair_chunk_tags_opens_entities_cut_by_a_chunk() -> None:
    names = ["O", "B-NAME", "I-NAME", "B-CITY", "I-CITY", "I-AGE"]
    assert repair_chunk_tags([2, 2, 0], names) == [1, 2, 0]  # the chunk opens inside a name
    assert repair_chunk_tags([0, 2, 3, 4, 4], names) == [0, 1, 3, 4, 4]  # O -> I-NAME
    assert repair_chunk_tags([1, 4, 4], names) == [1, 3, 4]  # B-NAME -> I-CITY: a new city
    assert repair_chunk_tags([5, 0], names) == [0, 0]  # no B-AGE among the tags: O
    assert repair_chunk_tags([0, 1, 2, 2, 3, 4], names) == [0, 1, 2, 2, 3, 4]  # valid BIO: unchanged


def test_oversample_phi_repeats_only_phi_chunks_and_keeps_their_notes() -> None:
    space = _space()
    text = "patient seen today with fever. Dr Zorblat visited. stable and pain today."
    start = text.index("Zorblat")
    doc = Document("o", text, (Span(start, start + len("Zorblat"), "NAME"),), {"lang": "en"})
    corpus = encode_corpus([doc], space, lang="en", max_len=4)
    phi = [k for k, s in enumerate(corpus.sentences) if any(s.tags)]
    assert phi and len(phi) < len(corpus.sentences)
    assert oversample_phi(corpus, 1) is corpus
    more = oversample_phi(corpus, 3)
    assert len(more.sentences) == len(corpus.sentences) + 2 * len(phi)
    assert sum(1 for s in more.sentences if any(s.tags)) == 3 * len(phi)
    assert [s.words for s in more.sentences if not any(s.tags)] == \
        [s.words for s in corpus.sentences if not any(s.tags)]
    assert {(s.doc, s.first) for s in more.sentences} == {(s.doc, s.first) for s in corpus.sentences}
    more.sentences[phi[0]].tags[0] = 99  # copies, not the corpus's own lists
    assert 99 not in corpus.sentences[phi[0]].tags
    with pytest.raises(ConfigError):
        oversample_phi(corpus, 0)


def test_merge_compares_each_run_with_the_plain_tagger_on_the_same_notes(tmp_path, monkeypatch) -> None:
    """Seventh pass: a full-corpus run and a reduced one (same seed) each get the plain tagger of their own notes
    as the reference, not whichever plain tagger has the most epochs."""
    import importlib.util

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("privrep_bench", root / "benchmarks" / "privrep.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)  # type: ignore[union-attr]
    monkeypatch.setattr(bench, "RESULTS", tmp_path)
    tb = {"precision": 1.0, "recall": 1.0}

    def plain(f1: float, epochs: int) -> dict:
        return {"plain": {"n_neighbors": None, "deid": {"token_binary": {**tb, "f1": f1}},
                          "per_epoch": [{"epoch": e} for e in range(epochs)]}}

    def run(f1: float, variant: str) -> dict:
        return {"strategy": "three_phase", "n_neighbors": 100, "lam": 1.0, "variant": variant,
                "deid": {"token_binary": {**tb, "f1": f1}}, "attack": [{"dev_accuracy": 0.55}]}

    def part(train: int, dev: int, **kw: object) -> dict:
        return {"train_documents": train, "dev_documents": dev, "tags_repaired": True, "settings": {"seed": 0},
                "runs": [], **kw}

    files = {"privrep_meddocan.json": part(120, 50, baselines=plain(0.95, 20)),
             "privrep_meddocan_full.json": part(500, 250, runs=[run(0.96, "full")]),
             "privrep_meddocan_full_plain.json": part(500, 250, baselines=plain(0.97, 20)),
             "privrep_meddocan_red.json": part(120, 50, runs=[run(0.94, "reduced")]),
             "privrep_meddocan_phi.json": part(500, 250, phi_oversample=4, runs=[run(0.90, "phi")])}
    for name, body in files.items():
        (tmp_path / name).write_text(json.dumps(body), encoding="utf-8")
    bench.merge()
    table = json.loads((tmp_path / "privrep.json").read_text(encoding="utf-8"))["table"]
    rows = {r["variant"]: r for r in table if r["model"] == "three_phase"}
    assert rows["full"]["plain_reference"]["file"] == "privrep_meddocan_full_plain.json"
    assert rows["full"]["f1_minus_plain_points"] == -1.0
    assert rows["reduced"]["plain_reference"]["file"] == "privrep_meddocan.json"
    assert rows["reduced"]["f1_minus_plain_points"] == -1.0
    assert rows["phi"]["plain_reference"] is None  # no plain tagger on oversampled notes: no reference


def test_encode_corpus_chunks_never_open_inside_an_entity() -> None:
    from clinanon.detect.neural.crf_layer import bio_constraints

    text = "seen by Dr Ana Maria Lopez Garcia today with fever"
    start = text.index("Ana")
    doc = Document("cut", text, (Span(start, text.index(" today"), "NAME"),), {"lang": "en"})
    space = _space()
    corpus = encode_corpus([doc], space, lang="en", max_len=4)  # 10 tokens in 3 chunks: the name is cut
    allowed, allowed_start = bio_constraints(corpus.tags)
    assert len(corpus.sentences) > 2
    tagged = [[corpus.tags[t] for t in s.tags] for s in corpus.sentences]
    assert sum(t.count("B-NAME") for t in tagged) == 2 and sum(t.count("I-NAME") for t in tagged) == 2
    for s in corpus.sentences:  # every gold path is one the CRF allows (before: I-NAME opened a chunk)
        assert bool(allowed_start[s.tags[0]])
        assert all(bool(allowed[a, b]) for a, b in zip(s.tags, s.tags[1:], strict=False))
    m = PrivRepModel(space, corpus.tags, _cfg(strategy="none"))
    w, cas, t, ln, mask = m._tensors(corpus.sentences)
    assert float(m._deid(w, cas, ln, t, mask).detach()) < 1000  # no forbidden gold transition (-1e4)


def test_pretrain_loss_sets_the_loss_of_phase_1_and_of_the_head_epochs(data) -> None:
    space, train, _ = data
    kw = {"strategy": "none", "pretrain_epochs": 2, "head_epochs": 2, "head_patience": 5}

    def fit(**extra: object) -> PrivRepModel:
        return PrivRepModel(space, train.tags, _cfg(**kw, **extra)).fit(train)

    mixed = fit(deid_loss="token", pretrain_loss="sentence")
    sent = fit(deid_loss="sentence")
    tok = fit(deid_loss="token")
    assert mixed.solo_loss == "sentence" and tok.solo_loss == "token" and mixed.config.deid_loss == "token"
    # phase 1 and the head epochs of `mixed` are those of the per-sentence model, weight for weight
    assert mixed.model_id() == sent.model_id() != tok.model_id()
    for k, v in sent.head.state_dict().items():
        assert torch.equal(mixed.head.state_dict()[k], v), k
    assert [h["loss"] for h in mixed.history if h["phase"] == "pretrain"] == ["sentence", "sentence"]
    # the per-token loss is logged per token of the epoch: below the per-sentence one by about the sentence length
    l_tok = [h["l_deid"] for h in tok.history if h["phase"] == "pretrain"]
    l_sent = [h["l_deid"] for h in sent.history if h["phase"] == "pretrain"]
    assert l_tok[0] < l_sent[0] / 3


def test_deid_loss_per_token_is_the_sentence_loss_over_tokens(data) -> None:
    space, train, _ = data
    sent = PrivRepModel(space, train.tags, _cfg(strategy="none"))
    tok = PrivRepModel(space, train.tags, _cfg(strategy="none", deid_loss="token"))
    batch = train.sentences[:5]
    w, cas, t, ln, mask = sent._tensors(batch)
    sent.head.eval()
    tok.head.eval()
    torch.manual_seed(0)
    a = sent._deid(w, cas, ln, t, mask)
    torch.manual_seed(0)
    b = tok._deid(w, cas, ln, t, mask)
    n_tokens = sum(len(s.words) for s in batch)
    assert n_tokens > len(batch)
    assert float(b.detach()) == pytest.approx(float(a.detach()) * len(batch) / n_tokens, rel=1e-5)


def test_adversary_and_representation_steps_per_round(data, monkeypatch) -> None:
    space, train, _ = data
    calls: list[bool] = []

    def count(model: PrivRepModel, cfg: PrivRepConfig) -> int:
        calls.clear()
        orig = PrivRepModel._adv_batch

        def spy(self, sents, rng, *, reverse=None, detach=False):  # type: ignore[no-untyped-def]
            calls.append(detach)
            return orig(self, sents, rng, reverse=reverse, detach=detach)

        monkeypatch.setattr(PrivRepModel, "_adv_batch", spy)
        model.train_private(train)
        monkeypatch.setattr(PrivRepModel, "_adv_batch", orig)
        return sum(calls)

    n_batches = -(-len(train.sentences) // 8)
    m = PrivRepModel(space, train.tags, _cfg(adv_warm_epochs=0))
    assert count(m, m.config) == n_batches  # one adversary step per representation step
    assert calls.count(False) == n_batches
    m = PrivRepModel(space, train.tags, _cfg(adv_warm_epochs=0, adv_steps=3, rep_steps=2))
    assert count(m, m.config) == 3 * -(-n_batches // 2)  # 3 adversary steps before every 2 representation steps
    assert calls.count(False) == n_batches


def test_phase3_clip_clips_only_the_representation_step_of_phase_3(data, monkeypatch) -> None:
    space, train, _ = data
    orig = torch.nn.utils.clip_grad_norm_

    def clips(**kw: object) -> list[tuple[float, float]]:
        seen: list[tuple[float, float]] = []

        def spy(params, max_norm, *a, **k):  # type: ignore[no-untyped-def]
            params = list(params)
            out = orig(params, max_norm, *a, **k)
            after = float(torch.norm(torch.stack([p.grad.norm() for p in params if p.grad is not None])))
            seen.append((float(max_norm), after))
            return out

        monkeypatch.setattr(torch.nn.utils, "clip_grad_norm_", spy)
        PrivRepModel(space, train.tags, _cfg(adv_warm_epochs=0, adv_steps=2, **kw)).train_private(train)
        monkeypatch.setattr(torch.nn.utils, "clip_grad_norm_", orig)
        return seen

    n_batches = -(-len(train.sentences) // 8)
    assert {c for c, _ in clips()} == {5.0}  # default: every step clipped at `clip`
    seen = clips(phase3_clip=0.01, deid_loss="token")
    assert [c for c, _ in seen].count(0.01) == n_batches  # one representation step per batch
    assert [c for c, _ in seen].count(5.0) == 2 * n_batches  # the adversaries keep `clip`
    assert all(after <= 0.01 * 1.01 for c, after in seen if c == 0.01)  # and the clip acts


def test_noise_lr_lets_the_noise_scales_move(data) -> None:
    space, train, _ = data

    def moved(**kw: object) -> float:
        m = PrivRepModel(space, train.tags, _cfg(adv_warm_epochs=0, epochs=2, **kw))
        before = m.rep.noise_out.log_sigma.detach().clone()
        m.train_private(train)
        assert "sigma_out" in m.history[-1] and "sigma_in" in m.history[-1]  # logged per epoch
        return float((m.rep.noise_out.log_sigma.detach() - before).abs().max())

    slow, fast = moved(), moved(noise_lr=0.2)
    assert slow < 0.02 * 2 * 3  # Adam: at most about lr per step (lr 0.002, 2 epochs x 2 batches)
    assert fast > 5 * slow


def test_noise_floor_bounds_the_output_noise_in_training_and_export(data, tmp_path) -> None:
    space, train, _ = data
    m = PrivRepModel(space, train.tags, _cfg(adv_warm_epochs=0, epochs=2, noise_lr=0.2))
    assert float(m.rep.noise_out.sigma.detach().min()) == pytest.approx(0.05, rel=1e-4)  # noise_init, no floor
    floored = m.copy(noise_floor=0.4)
    assert float(floored.rep.noise_out.sigma.detach().min()) == pytest.approx(0.4)  # copy() applies the new floor
    assert float(m.rep.noise_out.sigma.detach().max()) == pytest.approx(0.05, rel=1e-4)  # the original is untouched
    with torch.no_grad():
        floored.rep.noise_out.log_sigma.fill_(-20.0)  # whatever the training does to the learned scale
    floored.train_private(train)
    assert all(h["sigma_out"] >= 0.4 - 1e-6 for h in floored.history if "sigma_out" in h)
    # the noise drawn really has that scale: two draws of one sentence differ by about sqrt(2) * 0.4 per dimension
    a, b = floored.represent(train, seed=1), floored.represent(train, seed=2)
    diff = torch.cat([torch.as_tensor(x - y).flatten() for x, y in zip(a, b, strict=True)])
    assert float(diff.std()) > 0.4
    # saved and loaded with its floor (in the config), so exports of the loaded model carry it too
    back = PrivRepModel.load(floored.save(tmp_path / "m"))
    assert back.config.noise_floor == 0.4
    assert float(back.rep.noise_out.sigma.detach().min()) == pytest.approx(0.4)


def test_adv_reset_trains_against_fresh_adversaries(data) -> None:
    space, train, _ = data
    m = PrivRepModel(space, train.tags, _cfg(adv_warm_epochs=1, epochs=3, adv_reset=1))
    first = m.adv
    m.train_private(train)
    phases = [h["phase"] for h in m.history]
    # warm-up, then epoch 1; before epochs 2 and 3 new adversaries, each warmed on the frozen representation
    assert phases == ["three_phase:2", "three_phase:3", "three_phase:reset", "three_phase:3", "three_phase:reset",
                      "three_phase:3"]
    assert m.adv is not first
    never = PrivRepModel(space, train.tags, _cfg(adv_warm_epochs=1, epochs=3))
    never.train_private(train)
    assert "three_phase:reset" not in [h["phase"] for h in never.history]
    # seeded: the same run twice gives the same representation
    again = PrivRepModel(space, train.tags, _cfg(adv_warm_epochs=1, epochs=3, adv_reset=1))
    again.train_private(train)
    assert all(torch.equal(x, y) for x, y in zip(m.rep.parameters(), again.rep.parameters(), strict=True))


def test_head_epochs_train_the_head_on_the_frozen_representation(data, monkeypatch) -> None:
    space, train, dev = data
    with pytest.raises(ConfigError):
        _cfg(head_epochs=-1)
    with pytest.raises(ConfigError):
        _cfg(head_holdout=1.0)
    m = PrivRepModel(space, train.tags, _cfg(noise_floor=0.3, deid_loss="token", lr=0.03, head_holdout=0.25))
    m.pretrain(train)
    m.train_private(train)
    # the split: whole training notes held out (25 % of 12 -> 3 notes), disjoint, covering every sentence
    fit_idx, held_idx = m._head_split(train)
    assert sorted(fit_idx + held_idx) == list(range(len(train.sentences)))
    held_docs = {train.sentences[k].doc for k in held_idx}
    assert len(held_docs) == 3 and not held_docs & {train.sentences[k].doc for k in fit_idx}
    h = m.copy(head_epochs=6, head_patience=6)
    rep_before = {k: v.clone() for k, v in h.rep.state_dict().items()}
    head_before = {k: v.clone() for k, v in h.head.state_dict().items()}
    calls = []
    real = h.represent
    monkeypatch.setattr(h, "represent", lambda c, **kw: calls.append(kw) or real(c, **kw))
    out = h.train_head(train)
    # the noise drawn once, as at export (seeded), not per step
    assert calls == [{"seed": h.config.seed}]
    # the representation's parameters (noise scales included) are bit-identical; its fingerprint too
    assert all(torch.equal(v, h.rep.state_dict()[k]) for k, v in rep_before.items())
    assert h.model_id() == m.model_id()
    epochs = [e for e in h.history if e["phase"] == "head" and "epoch" in e]
    assert [e["epoch"] for e in epochs][:2] == [0, 1] and all("l_deid" in e for e in epochs[1:])
    # the undertrained head (1 + 1 epochs) gains on the held-out notes; the best epoch's head is the one kept
    assert out["selected_epoch"] >= 1 and out["holdout_f1"] > epochs[0]["holdout_f1"]
    assert out["holdout_f1"] == max(e["holdout_f1"] for e in epochs)
    assert any(not torch.equal(v, h.head.state_dict()[k]) for k, v in head_before.items())
    # the privacy figure is unaffected: a fresh adversary on the frozen representation sees exactly the same
    same = [(a["l_adv"], a["dev_accuracy"]) for a in m.attack(train, dev, epochs=2)]
    assert same == [(a["l_adv"], a["dev_accuracy"]) for a in h.attack(train, dev, epochs=2)]
    # early stopping: no gain for head_patience epochs stops the training, and the best (here the first) head is kept
    s = m.copy(head_epochs=8, head_patience=2, lr=1e-7)
    assert s.train_head(train)["selected_epoch"] == 0
    assert [e.get("epoch") for e in s.history if e["phase"] == "head"] == [0, 1, 2, None]
    assert all(torch.equal(v, s.head.state_dict()[k]) for k, v in m.head.state_dict().items())
    # 0 epochs: nothing happens; fit() runs it after the privacy training when configured
    z = m.copy()
    assert z.train_head(train, epochs=0) == {"selected_epoch": 0, "holdout_f1": None}
    assert all(torch.equal(v, z.head.state_dict()[k]) for k, v in m.head.state_dict().items())
    f = PrivRepModel(space, train.tags, _cfg(head_epochs=1)).fit(train)
    assert [e["phase"] for e in f.history][-3:] == ["head", "head", "head"]


def test_token_prf() -> None:
    assert token_prf([[0, 1, 1, 0]], [[0, 1, 0, 2]]) == {"precision": 0.5, "recall": 0.5, "f1": 0.5, "tp": 1,
                                                         "fp": 1, "fn": 1}


def test_export_holds_no_token_strings(data, tmp_path: Path) -> None:
    space, train, _ = data
    m = PrivRepModel(space, train.tags, _cfg(strategy="none"))
    m.fit(train)
    out = tmp_path / "site.npz"
    meta = export_representations(m, train, out, seed=1, site="A")
    raw = out.read_bytes()
    tokens = {w for d in train.docs for w in d.text.replace(".", " ").split() if len(w) >= 4}
    assert tokens
    for w in tokens:
        for variant in (w, w.lower(), w.upper()):
            for enc in ("utf-8", "utf-16-le", "utf-32-le"):
                assert variant.encode(enc) not in raw
    for d in train.docs:  # no document id either
        assert d.id.encode() not in raw
    import numpy as np

    with np.load(out, allow_pickle=False) as z:
        assert set(z.files) == {"representations", "lengths", "tags", "meta"}
        assert z["representations"].dtype == np.float16
        assert not any(z[k].dtype.kind in "OUS" for k in z.files)  # numbers and the JSON bytes only
    back = read_representations(out)
    assert meta["tokens"] == train.tokens == sum(len(r) for r in back.reps)
    assert sorted(map(len, back.reps)) == sorted(len(s.words) for s in train.sentences)
    assert sorted(t for seq in back.tags for t in seq) == sorted(t for s in train.sentences for t in s.tags)
    assert back.meta["model_id"] == m.model_id() and back.meta["site"] == "A"


def test_train_pooled_over_two_sites(data, tmp_path: Path) -> None:
    space, train, dev = data
    m = PrivRepModel(space, train.tags, _cfg(strategy="none", pretrain_epochs=3))
    m.fit(train)
    half = len(train.docs) // 2
    a = encode_corpus(train.docs[:half], space, lang="en", tags=train.tags)
    b = encode_corpus(train.docs[half:], space, lang="en", tags=train.tags)
    export_representations(m, a, tmp_path / "a.npz", seed=1)
    export_representations(m, b, tmp_path / "b.npz", seed=2)
    export_representations(m, dev, tmp_path / "dev.npz", seed=3)
    head = train_pooled([tmp_path / "a.npz", tmp_path / "b.npz"], dev=tmp_path / "dev.npz", epochs=2)
    assert len(head.history) == 2 and "dev_token_binary" in head.history[-1]
    head.save(tmp_path / "head")
    assert json.loads((tmp_path / "head" / "meta.json").read_text())["model_id"] == m.model_id()
    other = PrivRepModel(space, train.tags, _cfg(strategy="none", seed=5))
    export_representations(other, b, tmp_path / "c.npz")
    with pytest.raises(ConfigError):
        train_pooled([tmp_path / "a.npz", tmp_path / "c.npz"], epochs=1)


def test_save_load_round_trip(data, tmp_path: Path) -> None:
    space, train, dev = data
    m = PrivRepModel(space, train.tags, _cfg(strategy="none"))
    m.fit(train)
    m.save(tmp_path / "m")
    back = PrivRepModel.load(tmp_path / "m")
    assert back.model_id() == m.model_id()
    assert back.predict(dev, seed=4) == m.predict(dev, seed=4)


def test_cli_train_export_pooled(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from clinanon import io as cio
    from clinanon.cli import app

    space = _space()
    vec = tmp_path / "v.vec"
    words = space.vocab.words[2:]
    vec.write_text(f"{len(words)} {space.dim}\n" + "".join(
        w + " " + " ".join(f"{x:.4f}" for x in row) + "\n" for w, row in zip(words, space.matrix[2:], strict=True)),
        encoding="utf-8")
    cio.write(_docs(6, 1), tmp_path / "notes", "brat")
    runner = CliRunner()
    r = runner.invoke(app, ["privrep", "train", str(tmp_path / "notes"), "--vectors", str(vec), "--out",
                            str(tmp_path / "model"), "--pretrain-epochs", "1", "--adv-warm-epochs", "1", "--epochs",
                            "1", "--dim", "8", "-n", "2", "--lang", "en", "--deid-loss", "token", "--adv-steps", "2",
                            "--noise-lr", "0.01", "--noise-floor", "0.2", "--adv-reset", "1",
                            "--head-epochs", "2", "--pretrain-loss", "sentence", "--phase3-clip", "0.2"])
    assert r.exit_code == 0, r.output
    cfg = json.loads((tmp_path / "model" / "meta.json").read_text())["config"]
    assert (cfg["deid_loss"], cfg["adv_steps"], cfg["rep_steps"], cfg["noise_lr"]) == ("token", 2, 1, 0.01)
    assert cfg["pretrain_loss"] == "sentence" and cfg["phase3_clip"] == 0.2
    assert (cfg["noise_floor"], cfg["adv_reset"], cfg["head_epochs"]) == (0.2, 1, 2)
    history = json.loads((tmp_path / "model" / "meta.json").read_text())["history"]
    assert "head" in [h["phase"] for h in history]
    r = runner.invoke(app, ["privrep", "evaluate", str(tmp_path / "model"), str(tmp_path / "notes"), "--train",
                            str(tmp_path / "notes"), "--attack-epochs", "1", "--lang", "en", "--out",
                            str(tmp_path / "eval.json")])
    assert r.exit_code == 0, r.output
    report = json.loads((tmp_path / "eval.json").read_text())
    assert "token_binary" in report["deid"] and len(report["attack"]) == 1
    r = runner.invoke(app, ["privrep", "export", str(tmp_path / "model"), str(tmp_path / "notes"), "--out",
                            str(tmp_path / "s.npz"), "--lang", "en"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["privrep", "train-pooled", str(tmp_path / "s.npz"), "--out", str(tmp_path / "head"),
                            "--epochs", "1"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "head" / "head.pt").is_file()


def test_head_group_holds_out_a_patients_notes_together(data) -> None:
    space, train, _ = data
    with pytest.raises(ConfigError):
        _cfg(head_group="(")
    # notes d1-0 … d1-11 grouped by the first digit after the dash: "1" holds d1-1, d1-10 and d1-11
    m = PrivRepModel(space, train.tags, _cfg(head_holdout=0.25, head_group=r"^d1-(\d)"))
    fit_idx, held_idx = m._head_split(train)
    assert sorted(fit_idx + held_idx) == list(range(len(train.sentences)))
    group = {k: train.docs[train.sentences[k].doc].id[3] for k in range(len(train.sentences))}
    held_groups = {group[k] for k in held_idx}
    assert held_groups and not held_groups & {group[k] for k in fit_idx}
    assert len(held_groups) == round(10 * 0.25)  # ten groups, a quarter held out
    # without a group each note is its own unit, as before
    plain = PrivRepModel(space, train.tags, _cfg(head_holdout=0.25))
    assert len({train.sentences[k].doc for k in plain._head_split(train)[1]}) == 3
