"""The BiLSTM-CRF detector (clinanon.detect.neural.bilstm_crf): a tiny model trained in seconds on invented notes,
save/load, character offsets, the CRF layer against brute force, and a clear error without PyTorch."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from clinanon import io as cio
from clinanon.document import Document, Span
from clinanon.errors import ConfigError

FIRST = ["José", "María", "Ángel", "Lucía", "Íñigo", "Carmen", "Álvaro", "Nuria", "Sofía", "Raúl", "Begoña", "Óscar"]
LAST = ["García", "López", "Núñez", "Fernández", "Sáez", "Ruiz", "Muñoz", "Peña", "Ibáñez", "Gómez", "Martín"]
CITIES = ["Madrid", "Sevilla", "Cádiz", "Bilbao", "Logroño", "Málaga", "Córdoba", "León", "Ávila", "Jaén"]


def notes(n: int, seed: int = 0, *, crlf: bool = False) -> list[Document]:
    """Invented notes with gold MEDDOCAN labels; accents, runs of spaces and (``crlf``) Windows line ends."""
    rng = random.Random(seed)
    nl = "\r\n" if crlf else "\n"
    docs = []
    for k in range(n):
        first, last, city = rng.choice(FIRST), rng.choice(LAST), rng.choice(CITIES)
        age = str(rng.randint(18, 95))
        date = f"{rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/{rng.randint(1990, 2020)}"
        parts: list[tuple[str, str | None]] = [
            ("Nombre:   ", None), (f"{first} {last}", "NOMBRE_SUJETO_ASISTENCIA"), (f"{nl}Edad:  ", None),
            (age, "EDAD_SUJETO_ASISTENCIA"), (f" años{nl}Fecha de ingreso: ", None), (date, "FECHAS"),
            (f".{nl}Vive en   ", None), (city, "TERRITORIO"),
            (f" y acude por dolor  abdominal de {rng.randint(2, 9)} días.{nl}{nl}El paciente ", None),
            (first, "NOMBRE_SUJETO_ASISTENCIA"), (f" refiere fiebre.{nl}", None)]
        text, spans = "", []
        for piece, label in parts:
            if label is not None:
                spans.append(Span(len(text), len(text) + len(piece), label))
            text += piece
        docs.append(Document(f"note-{seed}-{k:03d}", text, tuple(spans)))
    return docs


def _keys(spans: Any) -> set[tuple[int, int, str]]:
    return {(s.start, s.end, s.label) for s in spans}


# --- without PyTorch ------------------------------------------------------------------------------------------

def test_importing_the_package_does_not_import_torch() -> None:
    code = ("import sys, clinanon, clinanon.detect.neural, clinanon.registry, clinanon.train; "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_clear_error_names_the_extra_when_torch_is_missing(monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    from clinanon.config import Config
    from clinanon.detect.neural._torch import require_torch, torch_available
    from clinanon.detect.neural.bilstm_crf import BiLSTMCRFDetector
    from clinanon.registry import get_detector_factory

    monkeypatch.setitem(sys.modules, "torch", None)  # "import torch" now raises ImportError
    assert not torch_available()
    with pytest.raises(ConfigError, match=r'pip install "clinanon\[neural\]"'):
        require_torch()
    with pytest.raises(ConfigError, match=r"BiLSTM-CRF detector need PyTorch.*clinanon\[neural\]"):
        BiLSTMCRFDetector("es")
    with pytest.raises(ConfigError, match=r"clinanon\[neural\]"):
        BiLSTMCRFDetector.load(tmp_path)
    cfg = Config.from_dict({"detectors": {"use": ["bilstm_crf"], "models": {"bilstm_crf": str(tmp_path)}}})
    with pytest.raises(ConfigError, match=r"clinanon\[neural\]"):
        get_detector_factory("bilstm_crf")(cfg)


def test_casing_and_vocabulary() -> None:
    from clinanon.detect.neural.vocab import CASINGS, Vocab, casing, normalize_word

    assert [CASINGS[casing(w)] for w in ("2019", "12a", "años", "UCI", "García", "pH7a", "-")] == [
        "numeric", "mainly_numeric", "all_lower", "all_upper", "initial_upper", "contains_digit", "other"]
    assert normalize_word("ÁLVARO") == "álvaro" and normalize_word("28029") == "00000"
    v = Vocab.build([["García", "llegó", "2019"]], [["B-X", "O", "O"]], extra_words=["madrid"])
    assert v.word_ids(["GARCÍA", "Madrid", "1987", "nunca"]) == [v.words.index("garcía"), v.words.index("madrid"),
                                                                 v.words.index("0000"), 1]
    assert v.tags == ["O", "B-X"] and Vocab.from_dict(v.to_dict()).words == v.words
    assert len(v.char_ids("a" * 50, 20)) == 20 and v.char_ids("zz", 20) == [1, 1]  # unknown characters


def test_chunks_pack_sentences_and_cover_every_token() -> None:
    from clinanon.detect.neural.bilstm_crf import chunk_ranges
    from clinanon.text import Sentence

    starts = list(range(0, 100, 2))  # 50 one-character tokens
    sentences = [Sentence(0, 9), Sentence(10, 19), Sentence(20, 79), Sentence(80, 99)]  # 5, 5, 30, 10 tokens
    ranges = chunk_ranges(starts, sentences, 50, 12)
    assert ranges == [(0, 10), (10, 22), (22, 34), (34, 40), (40, 50)]
    assert chunk_ranges(starts, sentences, 50, 100) == [(0, 50)]
    assert chunk_ranges([], [], 0, 10) == []


def test_embeddings_train_and_load(tmp_path: Path) -> None:
    pytest.importorskip("gensim")
    from clinanon.detect.neural.embeddings import load_vectors, train_vectors

    out = tmp_path / "vectors.vec"
    stats = train_vectors([d.text for d in notes(20)], "es", out, method="word2vec", dim=8, epochs=2)
    words, matrix = load_vectors(out)
    assert stats["words"] == len(words) == matrix.shape[0] and matrix.shape[1] == 8
    assert "nombre" in words and "00" in words and "Nombre" not in words  # normalized as the tagger looks up
    glove = tmp_path / "glove.txt"
    glove.write_text("hola 0.1 0.2\nadiós 0.3 -0.4\n", encoding="utf-8")
    words, matrix = load_vectors(glove)
    assert words == ["hola", "adiós"] and matrix.shape == (2, 2)
    from clinanon.errors import InputError

    glove.write_text("hola 0.1 0.2\nadiós 0.3\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 2") as e:
        load_vectors(glove)
    assert "adiós" not in str(e.value)


# --- with PyTorch ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def torch() -> Any:
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: threads only add overhead (and the CI machine is shared)
    yield torch
    torch.set_num_threads(threads)


TINY = {"word_dim": 16, "char_dim": 8, "char_filters": 16, "hidden": 24, "layers": 1, "lr": 0.02,
        "batch_size": 4, "max_epochs": 25, "patience": 0, "dropout_output": 0.1, "word_dropout": 0.0,
        "device": "cpu"}


@pytest.fixture(scope="module")
def fitted(torch: Any) -> Any:
    from clinanon.detect.neural.bilstm_crf import BiLSTMCRFDetector

    return BiLSTMCRFDetector("es", label_scheme="meddocan", seed=3, **TINY).fit(notes(16) + notes(8, 9, crlf=True))


def test_viterbi_and_marginals_equal_brute_force(torch: Any) -> None:
    from clinanon.detect.neural.crf_layer import CRF, bio_constraints

    tags = ["O", "B-A", "I-A", "B-B", "I-B"]
    allowed, start = bio_constraints(tags)
    assert not allowed[0, 2] and allowed[1, 2] and not allowed[3, 2] and not start[2] and start[1]
    torch.manual_seed(0)
    crf = CRF(len(tags), allowed, start)
    with torch.no_grad():
        for p in (crf.transitions, crf.start, crf.end):
            p.normal_()
    em = torch.randn(3, 4, len(tags))
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0], [1, 0, 0, 0]], dtype=torch.bool)
    trans, st = crf.transitions + crf.penalty, crf.start + crf.start_penalty
    with torch.no_grad():
        paths_out = crf.viterbi(em, mask)
        marg = crf.marginals(em, mask)
    for k in range(3):
        n = int(mask[k].sum())
        paths = list(itertools.product(range(len(tags)), repeat=n))
        scores = torch.stack([st[p[0]] + em[k, 0, p[0]] + sum((trans[p[t - 1], p[t]] + em[k, t, p[t]]
                                                               for t in range(1, n)), torch.tensor(0.0))
                              + crf.end[p[-1]] for p in paths]).detach()
        best = list(paths[int(scores.argmax())])
        assert paths_out[k] == best
        assert all(allowed[a, b] for a, b in itertools.pairwise(best)) and start[best[0]]
        probs = torch.softmax(scores, 0)
        expected = torch.zeros(n, len(tags))
        for p, w in zip(paths, probs, strict=True):
            for t, y in enumerate(p):
                expected[t, y] += w
        assert torch.allclose(marg[k, :n], expected, atol=1e-5)
        assert float(marg[k, n:].abs().sum()) == 0.0
        gold = torch.tensor([best + [0] * (4 - n)])
        nll = crf.neg_log_likelihood(em[k:k + 1], gold, mask[k:k + 1])
        assert float(nll.detach()) == pytest.approx(float(torch.logsumexp(scores, 0) - scores.max()), abs=1e-4)


def test_a_tiny_model_learns_its_training_notes(fitted: Any) -> None:
    train = notes(16) + notes(8, 9, crlf=True)
    gold = [_keys(d.spans) for d in train]
    pred = [_keys(fitted.detect(d)) for d in train]
    tp = sum(len(g & p) for g, p in zip(gold, pred, strict=True))
    precision = tp / max(1, sum(map(len, pred)))
    recall = tp / sum(map(len, gold))
    assert precision > 0.9 and recall > 0.9, (precision, recall)
    report = fitted.training_report_
    assert report.documents == 24 and report.gold_spans == sum(len(d.spans) for d in train)
    assert report.epochs[-1].loss < report.epochs[0].loss and report.stopped == "max_epochs"
    assert fitted.labels_ == ["EDAD_SUJETO_ASISTENCIA", "FECHAS", "NOMBRE_SUJETO_ASISTENCIA", "TERRITORIO"]
    assert "Nombre" not in repr(fitted) and "García" not in repr(fitted.vocab)


def test_min_batches_cycles_a_small_training_set(torch: Any) -> None:
    """With 6 notes an epoch is one or two batches; ``min_batches`` cycles the notes so that every epoch has at
    least that many updates (what early stopping on tiny subsets of a learning curve needs)."""
    from clinanon.detect.neural.bilstm_crf import BiLSTMCRFDetector

    params = {**TINY, "max_epochs": 2, "batch_size": 4}
    one_pass = BiLSTMCRFDetector("es", label_scheme="meddocan", seed=1, **params).fit(notes(6))
    per_epoch = one_pass.training_report_.updates // 2
    assert one_pass.training_report_.updates == 2 * per_epoch and 1 <= per_epoch < 7
    cycled = BiLSTMCRFDetector("es", label_scheme="meddocan", seed=1, min_batches=7, **params).fit(notes(6))
    assert 2 * 7 <= cycled.training_report_.updates < 2 * (7 + per_epoch)
    assert cycled.get_params()["min_batches"] == 7
    assert cycled.training_report_.to_dict()["updates"] == cycled.training_report_.updates
    with pytest.raises(ConfigError):
        BiLSTMCRFDetector("es", label_scheme="meddocan", min_batches=-1)


def test_embeddings_lr_fine_tunes_pretrained_vectors_slowly(torch: Any, tmp_path: Path) -> None:
    """``embeddings_lr`` gives the pretrained table its own learning rate: with train_embeddings it moves, by far
    less than at the tagger's lr; frozen (the default with vectors) it does not move at all."""
    from clinanon.detect.neural.bilstm_crf import BiLSTMCRFDetector
    from clinanon.detect.neural.embeddings import load_vectors
    from clinanon.detect.neural.vocab import normalize_word

    docs = notes(6)
    words = sorted({normalize_word(w) for d in docs for w in d.text.split()})
    rng = random.Random(0)
    vec = tmp_path / "v.vec"
    vec.write_text(f"{len(words)} 16\n" + "".join(w + " " + " ".join(f"{rng.gauss(0, 0.3):.4f}" for _ in range(16))
                                                   + "\n" for w in words), encoding="utf-8")
    params = {**TINY, "max_epochs": 2, "vectors": vec}

    def moved(**kw: Any) -> float:
        det = BiLSTMCRFDetector("es", label_scheme="meddocan", seed=1, **params, **kw)
        det.fit(docs)
        index = det.vocab.word_index()
        vw, matrix = load_vectors(vec)
        rows = torch.tensor([index[w] for w in vw])
        return float((det.net.word_embed.weight.detach()[rows] - torch.as_tensor(matrix)).abs().max())

    assert moved() == 0.0  # frozen
    full = moved(train_embeddings=True)
    slow = moved(train_embeddings=True, embeddings_lr=1e-5)
    assert full > 0.01 and 0.0 < slow < full / 20, (full, slow)
    det = BiLSTMCRFDetector("es", label_scheme="meddocan", embeddings_lr=1e-4)
    assert det.get_params()["embeddings_lr"] == 1e-4
    with pytest.raises(ConfigError):
        BiLSTMCRFDetector("es", label_scheme="meddocan", embeddings_lr=0.0)


def test_offsets_on_accents_crlf_and_runs_of_spaces(fitted: Any) -> None:
    for doc in notes(6, seed=41, crlf=True) + notes(6, seed=42):
        spans = fitted.detect(doc)
        assert spans == sorted(spans, key=lambda s: (s.start, s.end))
        for s in spans:
            piece = doc.text[s.start:s.end]
            assert piece == piece.strip() and "\r" not in piece and "\n" not in piece
            assert s.source == "bilstm_crf" and 0.0 <= s.score <= 1.0
        names = {doc.text[s.start:s.end] for s in spans if s.label == "NOMBRE_SUJETO_ASISTENCIA"}
        gold_names = {doc.text[s.start:s.end] for s in doc.spans if s.label == "NOMBRE_SUJETO_ASISTENCIA"}
        assert len(names & gold_names) >= 1  # accented, unseen combinations found on their exact characters


def test_pipe_batches_notes_like_detect(fitted: Any) -> None:
    from clinanon.analysis import Analysis

    docs = [*notes(5, seed=77), Document("empty", "", ()), Document("spaces", "   \r\n  ", ())]
    one_by_one = [fitted.detect(d) for d in docs]
    assert fitted.pipe([Analysis.of(d, "es", normalize=False) for d in docs]) == one_by_one
    assert one_by_one[-1] == [] and one_by_one[-2] == []


def test_save_load_round_trip_gives_the_same_spans(fitted: Any, tmp_path: Path) -> None:
    import pickle

    from clinanon.detect.neural.bilstm_crf import META_FILE, MODEL_FILE, VOCAB_FILE, BiLSTMCRFDetector

    out = fitted.save(tmp_path / "m", {"note": "test"})
    assert {p.name for p in out.iterdir()} == {MODEL_FILE, VOCAB_FILE, META_FILE}
    meta = json.loads((out / META_FILE).read_text(encoding="utf-8"))
    assert meta["detector"] == "bilstm_crf" and meta["note"] == "test" and meta["params"]["hidden"] == 24
    loaded = BiLSTMCRFDetector.load(out)
    docs = notes(6, seed=5) + notes(3, seed=6, crlf=True)
    assert [loaded.detect(d) for d in docs] == [fitted.detect(d) for d in docs]
    again = pickle.loads(pickle.dumps(fitted))
    assert [again.detect(d) for d in docs] == [fitted.detect(d) for d in docs]
    canonical = BiLSTMCRFDetector.load(out, canonical=True)
    assert {s.label.split(".")[0] for d in docs for s in canonical.detect(d)} <= {"NAME", "AGE", "DATE", "LOCATION"}
    from clinanon.errors import InputError

    (out / META_FILE).write_text(json.dumps({**meta, "detector": "crf"}), encoding="utf-8")
    with pytest.raises(InputError, match="expected a 'bilstm_crf' model"):
        BiLSTMCRFDetector.load(out)


def test_registry_pipeline_and_ensemble_member(fitted: Any, tmp_path: Path) -> None:
    from clinanon.config import Config
    from clinanon.pipeline import Pipeline

    model = fitted.save(tmp_path / "bilstm")
    doc = notes(1, seed=99)[0]
    cfg = Config.from_dict({"language": "es", "label_scheme": "meddocan",
                            "detectors": {"use": ["bilstm_crf"], "models": {"bilstm_crf": str(model)}}})
    spans = Pipeline(cfg).detect_spans(doc)
    assert _keys(spans) == _keys(fitted.detect(doc))
    cfg = Config.from_dict({"language": "es", "label_scheme": "meddocan", "detectors": {
        "use": ["ensemble"], "models": {"bilstm_crf": str(model)},
        "ensemble": {"members": ["bilstm_crf", "rules"], "tiebreak": "bilstm_crf"}}})
    assert Pipeline(cfg).detect_spans(doc)


def test_clinanon_train_with_a_bilstm_crf_config(torch: Any, tmp_path: Path) -> None:
    from clinanon.models import list_models
    from clinanon.train import TrainConfig, train

    data = tmp_path / "corpus"
    data.mkdir()
    cio.write(notes(12), data / "train.jsonl", "jsonl")
    cio.write(notes(4, seed=50), data / "dev.jsonl", "jsonl")
    opts = "\n".join(f"{k} = {json.dumps(v)}" for k, v in TINY.items() if k not in ("char_dim", "device"))
    cfg_path = tmp_path / "train.toml"
    cfg_path.write_text('detector = "bilstm_crf"\nlanguage = "es"\nlabel_scheme = "meddocan"\nseed = 1\n'
                        'output = "models/bilstm"\n[data]\ntrain = "corpus/train.jsonl"\ndev = "corpus/dev.jsonl"\n'
                        f'[bilstm_crf]\n{opts.replace("max_epochs = 25", "max_epochs = 6")}\nthreads = 1\n',
                        encoding="utf-8")
    lines: list[str] = []
    result = train(TrainConfig.load(cfg_path), progress=False, log=lines.append)
    meta = result.meta
    assert meta["detector"] == "bilstm_crf" and meta["tagging"] == "BIO" and meta["seed"] == 1
    assert set(meta["scores"]["dev"]) >= {"subtask1", "subtask2", "token_binary", "per_label"}
    assert len(meta["training"]["dev_span_f1_per_epoch"]) == 6 and meta["training"]["best_epoch"] >= 1
    assert sum(line.startswith("epoch ") for line in lines) == 6
    [info] = [m for m in list_models(tmp_path / "models") if m.origin == "user"]
    assert info.detector == "bilstm_crf" and info.language == "es" and "subtask1" in info.summary_scores()


# --- the rule detector's spans as an input feature ------------------------------------------------------------

#: capitalised words the rules do not tag (checked below), in the same slots as the first names they do tag
INVENTED = ["Zorblat", "Quintex", "Drumvel", "Plixor", "Vantrel", "Krozen", "Fendral", "Glimbo", "Traxil", "Wulbar",
            "Snorvek", "Blentor"]


def rule_notes(names: list[str], others: list[str], n: int, seed: int) -> list[Document]:
    """Notes with one first name (gold NOMBRE_SUJETO_ASISTENCIA) and one invented word (no label) in the same two
    slots, in random order: only the rules' gazetteer tells them apart when both words are new to the model."""
    rng = random.Random(seed)
    docs = []
    for k in range(n):
        pair = [(rng.choice(names), True), (rng.choice(others), False)]
        rng.shuffle(pair)
        text, spans = "", []
        for prefix, (w, is_name) in zip(("Dato: ", " fin.\nVisto con "), pair, strict=True):
            text += prefix
            if is_name:
                spans.append(Span(len(text), len(text) + len(w), "NOMBRE_SUJETO_ASISTENCIA"))
            text += w
        docs.append(Document(f"rn-{seed}-{k:03d}", text + " ayer.\n", tuple(spans)))
    return docs


def test_rule_features_tell_apart_what_the_words_cannot(torch: Any, tmp_path: Path) -> None:
    """Test notes use names and invented words never seen in training (unknown words, same casing, same slots,
    no character CNN): with ``rule_features`` the model tags the names from the rules' label; without it, it can
    not. The option is saved; a model saved without it (before the option existed) loads unchanged."""
    from clinanon.analysis import Analysis
    from clinanon.detect.neural.bilstm_crf import META_FILE, BiLSTMCRFDetector
    from clinanon.detect.rules.detector import RulesDetector

    rules = RulesDetector("es")
    for w in FIRST + INVENTED:  # the premise: the rules tag every first name and none of the invented words
        tagged = bool(rules.analyze(f"Dato: {w} fin.", "es"))
        assert tagged == (w in FIRST), w
    train = rule_notes(FIRST[:6], INVENTED[:6], 24, seed=1)
    test = rule_notes(FIRST[6:], INVENTED[6:], 24, seed=2)
    params = {**TINY, "char_cnn": False, "max_epochs": 15}

    def f1(det: Any) -> float:
        gold = [_keys(d.spans) for d in test]
        pred = [_keys(spans) for spans in det.pipe([Analysis.of(d, "es") for d in test])]
        tp = sum(len(g & p) for g, p in zip(gold, pred, strict=True))
        n_pred, n_gold = sum(map(len, pred)), sum(map(len, gold))
        return 2 * tp / (n_pred + n_gold) if n_pred + n_gold else 0.0

    with_rules = BiLSTMCRFDetector("es", label_scheme="meddocan", seed=0, rule_features=True, **params).fit(train)
    without = BiLSTMCRFDetector("es", label_scheme="meddocan", seed=0, **params).fit(train)
    assert with_rules.rule_tags_[0] == "" and "B-NAME" in with_rules.rule_tags_ and without.rule_tags_ == []
    assert f1(with_rules) > 0.95 > 0.8 > f1(without), (f1(with_rules), f1(without))
    # the rules' spans are read from Analysis.candidates["rules"] when the rules ran before: none -> no name
    a = Analysis.of(test[0], "es")
    a.candidates["rules"] = []
    assert with_rules.pipe([a]) == [[]] and with_rules.detect(test[0])

    out = with_rules.save(tmp_path / "rules")
    meta = json.loads((out / META_FILE).read_text(encoding="utf-8"))
    assert meta["params"]["rule_features"] is True and meta["rule_tags"] == with_rules.rule_tags_
    loaded = BiLSTMCRFDetector.load(out)
    assert loaded.rule_features and [loaded.detect(d) for d in test] == [with_rules.detect(d) for d in test]
    old = without.save(tmp_path / "old")  # as written before the option existed: no key for it
    meta = json.loads((old / META_FILE).read_text(encoding="utf-8"))
    meta["params"].pop("rule_features")
    meta.pop("rule_tags")
    (old / META_FILE).write_text(json.dumps(meta), encoding="utf-8")
    loaded = BiLSTMCRFDetector.load(old)
    assert not loaded.rule_features and [loaded.detect(d) for d in test] == [without.detect(d) for d in test]
