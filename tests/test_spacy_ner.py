"""The spaCy NER detector: tokenizer, config, character-offset scorer, fit/save/load, determinism, misaligned gold
spans, the OntoNotes / WikiNER label mapping, and a MEDDOCAN slice."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

spacy = pytest.importorskip("spacy")

from clinanon import io as cio  # noqa: E402
from clinanon.detect.spacy_ner import (  # noqa: E402
    GOLD_KEY,
    ONTONOTES_PHI_LABELS,
    ClinanonTokenizer,
    SpacyNERDetector,
    build_config,
    default_config,
    make_clinanon_ner_scorer,
)
from clinanon.document import Document, Span  # noqa: E402
from clinanon.errors import ConfigError, InputError  # noqa: E402
from clinanon.evaluate import evaluate  # noqa: E402
from clinanon.text import tokenize  # noqa: E402

#: a small network so that the tests train in about a second
TINY = {
    "components.tok2vec.model.encode.width": 32,
    "components.tok2vec.model.encode.depth": 2,
    "components.tok2vec.model.embed.rows": [2000, 500, 500, 500],
    "components.ner.model.hidden_width": 32,
    "training.optimizer.learn_rate": 0.005,
}

FIRST = ["Ana", "Luis", "Marta", "Pedro", "Lucía", "Jorge", "Elena", "Pablo", "Sara", "Diego", "Rosa", "Iván"]
LAST = ["García", "Pérez", "López", "Sánchez", "Romero", "Navarro", "Torres", "Gil", "Ruiz", "Molina", "Ortega"]


def notes(n: int, seed: int = 0) -> list[Document]:
    """Template notes with MEDDOCAN labels: a two-word patient name, an age, a date."""
    rng = random.Random(seed)
    docs = []
    for k in range(n):
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        age = str(rng.randint(18, 95))
        date = f"{rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/{rng.randint(1990, 2020)}"
        pieces = [("Nombre: ", None), (name, "NOMBRE_SUJETO_ASISTENCIA"), ("\nEdad: ", None),
                  (age, "EDAD_SUJETO_ASISTENCIA"), (" años\nFecha de ingreso: ", None), (date, "FECHAS"),
                  (".\nAcude por dolor abdominal de dos días.\n", None)]
        text, spans = "", []
        for piece, label in pieces:
            if label:
                spans.append(Span(len(text), len(text) + len(piece), label))
            text += piece
        docs.append(Document(f"note-{seed}-{k:03d}", text, tuple(spans)))
    return docs


def _fit(docs: list[Document], seed: int = 0, **kw: object) -> SpacyNERDetector:
    params = {"max_steps": 60, "eval_frequency": 1000, "overrides": TINY, **kw}
    return SpacyNERDetector(lang="es", label_scheme=params.pop("label_scheme", "meddocan"), seed=seed,
                            **params).fit(docs, notes(3, seed=90))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def trained() -> SpacyNERDetector:
    return _fit(notes(20))


# --- tokenizer and config -------------------------------------------------------------------------------------

def test_tokenizer_gives_clinanon_tokens_and_round_trips(tmp_path: Path) -> None:
    text = "Edad:62 años\n\nNHC-150679  Dr.García"
    nlp = spacy.blank("es", config={"nlp": {"tokenizer": {"@tokenizers": "clinanon.Tokenizer.v1"}}})
    assert isinstance(nlp.tokenizer, ClinanonTokenizer)
    doc = nlp(text)
    assert doc.text == text
    ours = [(t.start, t.end) for t in tokenize(text)]
    theirs = [(t.idx, t.idx + len(t)) for t in doc if not t.is_space]
    assert theirs == ours
    assert [t.text for t in doc if not t.is_space][:4] == ["Edad", ":", "62", "años"]
    nlp.to_disk(tmp_path / "blank")
    again = spacy.load(tmp_path / "blank")
    assert isinstance(again.tokenizer, ClinanonTokenizer)
    assert [t.text for t in again(text)] == [t.text for t in doc]


def test_build_config_puts_in_our_parts() -> None:
    cfg = build_config(default_config("es"), seed=7, overrides={"training.max_steps": 5})
    assert cfg["nlp"]["tokenizer"] == {"@tokenizers": "clinanon.Tokenizer.v1"}
    assert cfg["components"]["ner"]["scorer"] == {"@scorers": "clinanon.ner_scorer.v1"}
    assert cfg["training"]["logger"] == {"@loggers": "clinanon.TrainLogger.v1"}
    assert cfg["system"]["seed"] == 7 and cfg["training"]["seed"] == 7
    assert cfg["training"]["max_steps"] == 5
    assert cfg["training"]["score_weights"]["clinanon_ents_f"] == 1.0
    assert cfg["training"]["score_weights"]["ents_f"] == 0.0
    assert cfg["components"]["tok2vec"]["model"]["@architectures"] == "spacy.Tok2Vec.v2"  # CPU efficiency preset


def test_build_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        build_config(tmp_path / "missing.cfg")
    no_ner = {"nlp": {"lang": "es", "pipeline": ["tok2vec"]}}
    with pytest.raises(ConfigError, match="no 'ner' component"):
        build_config(no_ner)
    with pytest.raises(ConfigError, match="not a section"):
        build_config(default_config("es"), overrides={"training.max_steps.x": 1})


def test_shipped_spacy_config_is_the_efficiency_preset() -> None:
    repo = Path(__file__).resolve().parents[1]
    cfg = build_config(repo / "configs" / "spacy_ner_meddocan.cfg")
    assert cfg["nlp"]["lang"] == "es" and cfg["nlp"]["pipeline"] == ["tok2vec", "ner"]
    assert cfg["nlp"]["tokenizer"] == {"@tokenizers": "clinanon.Tokenizer.v1"}
    assert cfg["components"]["tok2vec"]["model"]["encode"]["@architectures"] == "spacy.MaxoutWindowEncoder.v2"


def test_char_scorer_hand_computed() -> None:
    from spacy.training import Example

    nlp = spacy.blank("es", config={"nlp": {"tokenizer": {"@tokenizers": "clinanon.Tokenizer.v1"}}})
    text = "Ana vive en Madrid desde 2010."
    ref = nlp.make_doc(text)
    ref.set_ents([ref.char_span(0, 3, "PER"), ref.char_span(12, 18, "LOC")], default="outside")
    # the original gold: a third span "201" that no token boundary allows (would be expanded to "2010")
    ref.user_data[GOLD_KEY] = [[0, 3, "PER"], [12, 18, "LOC"], [25, 28, "DATE"]]
    pred = nlp.make_doc(text)
    pred.set_ents([pred.char_span(0, 3, "PER"), pred.char_span(12, 18, "ORG"), pred.char_span(25, 29, "DATE")],
                  default="outside")
    scores = make_clinanon_ner_scorer()([Example(pred, ref)])
    # subtask 1: tp = 1 (Ana/PER) of 3 predicted and 3 gold
    assert scores["clinanon_ents_p"] == pytest.approx(1 / 3) and scores["clinanon_ents_r"] == pytest.approx(1 / 3)
    # subtask 2 (span only): Ana and Madrid match
    assert scores["clinanon_spans_f"] == pytest.approx(2 / 3)
    # spaCy's own score compares with the two reference ents on its tokens: PER right, ORG wrong, DATE extra
    assert scores["ents_p"] == pytest.approx(1 / 3) and scores["ents_r"] == pytest.approx(1 / 2)


# --- training, persistence, determinism ------------------------------------------------------------------------

def test_fit_learns_its_training_slice(trained: SpacyNERDetector) -> None:
    docs = notes(20)
    pred = trained.predict(docs)
    f1 = evaluate(docs, pred, lang="es").to_dict()["measures"]["entity_exact"]["micro"]["f1"]
    assert f1 > 0.9
    assert trained.labels_ == ["EDAD_SUJETO_ASISTENCIA", "FECHAS", "NOMBRE_SUJETO_ASISTENCIA"]
    spans = trained.detect(docs[0])
    assert spans == sorted(spans) and all(s.source == "spacy" and s.score == 1.0 for s in spans)
    report = trained.training_report_
    assert report is not None
    assert report.documents == 20 and report.gold_spans == 60 and report.misaligned == []
    assert report.steps == 61 and report.epochs > 1 and report.keep == "last" and report.kept_step == 60
    # evaluations at step 0 and at the end: ours on character offsets, spaCy's on tokens
    assert [r.step for r in report.evaluations] == [0]
    assert report.evaluations[0].ents_f is not None and report.evaluations[0].spacy_ents_f is not None


def test_canonical_predictions(trained: SpacyNERDetector) -> None:
    doc = notes(1, seed=5)[0]
    native = trained.detect(doc)
    canon = SpacyNERDetector(trained.nlp, label_scheme="meddocan", canonical=True).detect(doc)
    mapping = {"NOMBRE_SUJETO_ASISTENCIA": "NAME.PATIENT", "EDAD_SUJETO_ASISTENCIA": "AGE", "FECHAS": "DATE"}
    assert [(s.start, s.end, mapping[s.label]) for s in native] == [(s.start, s.end, s.label) for s in canon]


def test_save_load_identical_predictions(trained: SpacyNERDetector, tmp_path: Path) -> None:
    out = trained.save(tmp_path / "model", {"note": "x"})
    meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    assert meta["detector"] == "spacy" and meta["label_scheme"] == "meddocan" and meta["note"] == "x"
    assert meta["labels"]["ner"] == trained.labels_ and meta["entity_labels"] == trained.labels_
    assert "dev" not in json.dumps(meta.get("paths", {}))
    loaded = SpacyNERDetector.load(out)
    assert loaded.label_scheme == "meddocan" and loaded.canonical is False
    docs = notes(8, seed=3)
    assert loaded.predict(docs) == trained.predict(docs)
    assert [loaded.detect(d) for d in docs] == [trained.detect(d) for d in docs]
    # a plain spacy.load works too (the tokenizer is registered by importing clinanon.detect.spacy_ner)
    nlp = spacy.load(out)
    assert isinstance(nlp.tokenizer, ClinanonTokenizer)
    assert "null" in (out / "config.cfg").read_text(encoding="utf-8").split("[paths]")[1].split("[")[0]


def test_pickles_for_worker_processes(trained: SpacyNERDetector) -> None:
    import pickle

    again = pickle.loads(pickle.dumps(trained))
    assert isinstance(again.nlp.tokenizer, ClinanonTokenizer) and again.label_scheme == "meddocan"
    docs = notes(5, seed=4)
    assert again.predict(docs) == trained.predict(docs)
    assert pickle.loads(pickle.dumps(SpacyNERDetector())).nlp is None


def test_same_seed_same_model(trained: SpacyNERDetector, tmp_path: Path) -> None:
    again = _fit(notes(20))
    other = _fit(notes(20), seed=1)
    docs = notes(10, seed=11)
    # predicting sets the ner model's dropout attribute to 0 (a value saved with the weights): predict with each
    # model before comparing the files
    for det in (trained, again, other):
        det.predict(docs[:1])
    a = trained.save(tmp_path / "a")
    b = again.save(tmp_path / "b")
    c = other.save(tmp_path / "c")
    assert (a / "ner" / "model").read_bytes() == (b / "ner" / "model").read_bytes()
    assert (a / "tok2vec" / "model").read_bytes() == (b / "tok2vec" / "model").read_bytes()
    assert (a / "ner" / "model").read_bytes() != (c / "ner" / "model").read_bytes()
    assert again.predict(docs) == trained.predict(docs)


def test_misaligned_gold_spans_are_reported_not_lost() -> None:
    docs = notes(12)
    # "NHC 1234X": gold annotated "1234" inside the one token "1234X"? No: digits and letters split.
    # A misaligned span: a name annotated without its last letter ("Garcí" inside "García").
    bad = docs[0]
    name = next(s for s in bad.spans if s.label == "NOMBRE_SUJETO_ASISTENCIA")
    cut = Span(name.start, name.end - 1, name.label)
    whitespace_only = Span(bad.text.index("\n"), bad.text.index("\n") + 1, "FECHAS")
    docs[0] = bad.with_spans([cut, whitespace_only, *(s for s in bad.spans if s != name)])
    det = _fit(docs, max_steps=5)
    report = det.training_report_
    assert report is not None
    got = sorted((m["doc_id"], m["start"], m["end"], m["label"], m["reason"]) for m in report.misaligned)
    assert got == sorted([(bad.id, cut.start, cut.end, cut.label, "misaligned"),
                          (bad.id, whitespace_only.start, whitespace_only.end, "FECHAS", "no_token")])
    assert report.gold_spans == 12 * 3 + 1
    assert report.to_dict()["misaligned_count"] == 2
    assert "García" not in json.dumps(report.to_dict())  # offsets and labels only


def test_overlapping_gold_spans_are_reported() -> None:
    docs = notes(12)
    d = docs[0]
    name = next(s for s in d.spans if s.label == "NOMBRE_SUJETO_ASISTENCIA")
    inner = Span(name.start, name.start + d.text[name.start:].index(" "), "FAMILIARES_SUJETO_ASISTENCIA")
    docs[0] = d.with_spans([*d.spans, inner])
    det = _fit(docs, max_steps=2)
    report = det.training_report_
    assert report is not None
    assert report.overlapping == [{"doc_id": d.id, "start": inner.start, "end": inner.end,
                                   "label": "FAMILIARES_SUJETO_ASISTENCIA"}]


def test_fit_errors() -> None:
    with pytest.raises(ConfigError, match="not in the label scheme"):
        _fit([Document("a", "Ana", (Span(0, 3, "PERSON"),))])
    with pytest.raises(ConfigError, match="no training document has a gold span"):
        _fit([Document("a", "nada")])
    with pytest.raises(ConfigError, match="keep"):
        SpacyNERDetector(keep="first")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="canonical=True needs a label_scheme"):
        SpacyNERDetector(canonical=True)
    with pytest.raises(ConfigError, match="no pipeline"):
        SpacyNERDetector().detect(notes(1)[0])
    with pytest.raises(ConfigError, match="invalid spaCy training config"):
        _fit(notes(3), overrides={"training.optimizer.learn_rate": "fast"})


def test_keep_best_uses_spacys_best_checkpoint() -> None:
    det = _fit(notes(12), max_steps=30, eval_frequency=10, keep="best")
    report = det.training_report_
    assert report is not None
    assert [r.step for r in report.evaluations] == [0, 10, 20, 30]
    best = max(report.evaluations, key=lambda r: (r.score, r.step))  # spaCy keeps the latest of equal bests
    assert report.kept_step == best.step
    dev = notes(3, seed=90)  # the dev data of _fit: the kept model scores what the best evaluation scored
    f1 = evaluate(dev, det.predict(dev), lang="es").to_dict()["measures"]["entity_exact"]["micro"]["f1"]
    assert f1 == pytest.approx(best.ents_f)


# --- installed / general-purpose pipelines ---------------------------------------------------------------------

def _general_docs() -> list[Document]:
    rng = random.Random(4)
    cities = ["Madrid", "Sevilla", "Bilbao", "Toledo"]
    orgs = ["Telefónica", "Iberdrola", "Renfe"]
    docs = []
    for k in range(16):
        pieces = [(rng.choice(FIRST), "PERSON"), (" trabaja en ", None), (rng.choice(orgs), "ORG"),
                  (" y vive en ", None), (rng.choice(cities), "GPE"), (" desde ", None),
                  (str(rng.randint(1990, 2020)), "DATE"), (". Su hermano ", None), (rng.choice(FIRST), "PER"),
                  (" vive en ", None), (rng.choice(cities), "LOC"), (" y es ", None), ("Sevillista", "MISC"),
                  (".\n", None)]
        text, spans = "", []
        for piece, label in pieces:
            if label:
                spans.append(Span(len(text), len(text) + len(piece), label))
            text += piece
        docs.append(Document(f"gen-{k}", text, tuple(spans)))
    return docs


@pytest.fixture(scope="module")
def general_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny pipeline with OntoNotes (PERSON, GPE, ORG, DATE) and WikiNER (PER, LOC, MISC) labels, saved like an
    installed spaCy package would be (no clinanon label scheme in its meta)."""
    det = SpacyNERDetector(lang="es", seed=0, max_steps=80, eval_frequency=1000, overrides=TINY)
    det.fit(_general_docs())
    out = tmp_path_factory.mktemp("general") / "pipeline"
    det.nlp.meta.pop("label_scheme", None)  # type: ignore[union-attr]
    det.nlp.to_disk(out)  # type: ignore[union-attr]
    return out


def test_ontonotes_mapping(general_model: Path) -> None:
    doc = _general_docs()[0]
    native = SpacyNERDetector.load(general_model)  # no saved scheme: OntoNotes, PHI labels only
    assert native.label_scheme == "ontonotes" and native.labels == ONTONOTES_PHI_LABELS
    spans = native.detect(doc)
    assert {s.label for s in spans} == {"PERSON", "ORG", "GPE", "DATE", "PER", "LOC"}  # MISC is not PHI
    canon = SpacyNERDetector.load(general_model, canonical=True)
    got = {(s.start, s.end, s.label) for s in canon.detect(doc)}
    expected = {"PERSON": "NAME", "PER": "NAME", "ORG": "LOCATION.ORGANIZATION", "GPE": "LOCATION.CITY",
                "LOC": "LOCATION.OTHER", "DATE": "DATE"}
    assert got == {(s.start, s.end, expected[s.label]) for s in spans}
    everything = SpacyNERDetector.load(general_model, labels=["PER", "MISC"], canonical=True)
    assert {s.label for s in everything.detect(doc)} == {"NAME", "OTHER"}


def test_unknown_labels_are_dropped_and_counted(general_model: Path) -> None:
    doc = _general_docs()[1]
    det = SpacyNERDetector.load(general_model, label_scheme="meddocan", canonical=True)
    assert det.detect(doc) == []  # none of these labels is a MEDDOCAN label
    assert sum(det.unmapped.values()) >= 6 and set(det.unmapped) <= {"PERSON", "PER", "ORG", "GPE", "LOC", "DATE",
                                                                     "MISC"}


def test_load_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="never downloads"):
        SpacyNERDetector.load("xx_no_such_pipeline_sm")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "config.cfg").write_text("[nlp]\nlang = \n", encoding="utf-8")
    with pytest.raises(InputError, match="broken"):
        SpacyNERDetector.load(tmp_path / "broken")


def test_chunks_hand_computed() -> None:
    from clinanon.detect.spacy_ner.detector import _chunks

    assert _chunks("aaaa\nbbbb\ncc", 6) == [(0, "aaaa\n"), (5, "bbbb\n"), (10, "cc")]
    assert _chunks("aaaa bbbb cc", 6) == [(0, "aaaa "), (5, "bbbb "), (10, "cc")]
    assert _chunks("abcdefghij", 4) == [(0, "abcd"), (4, "efgh"), (8, "ij")]
    assert _chunks("short", 100) == [(0, "short")]


_BLANK = spacy.blank("es", config={"nlp": {"tokenizer": {"@tokenizers": "clinanon.Tokenizer.v1"}}})


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="ab \n\t.", max_size=300), st.integers(min_value=2, max_value=50))
def test_chunks_partition_the_text(text: str, max_chars: int) -> None:
    from clinanon.detect.spacy_ner.detector import _chunks

    pieces = _chunks(text, max_chars)
    assert "".join(p for _, p in pieces) == text
    assert all(len(p) <= max_chars and p for _, p in pieces) or text == ""
    assert [off for off, _ in pieces] == [sum(len(p) for _, p in pieces[:k]) for k in range(len(pieces))]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from("aZ9 .-\n\t\u200b\u00e1/"), max_size=80))
def test_tokenizer_keeps_text_and_our_tokens(text: str) -> None:
    doc = _BLANK(text)
    assert doc.text == text
    ours = [(t.start, t.end) for t in tokenize(text)]
    assert all(doc.char_span(a, b) is not None for a, b in ours)


def test_long_texts_are_cut_and_shifted_back(trained: SpacyNERDetector) -> None:
    doc = notes(1, seed=8)[0]
    assert doc.text.endswith("\n")
    n = len(doc.text)
    small = SpacyNERDetector(trained.nlp, label_scheme="meddocan", max_chars=n)  # one piece per copy
    got = small.analyze(doc.text * 4)
    one = [(s.start, s.end, s.label) for s in trained.detect(doc)]
    assert len(one) == 3
    assert [(s.start, s.end, s.label) for s in got] == [(a + k * n, b + k * n, lab) for k in range(4)
                                                        for a, b, lab in one]


# --- a MEDDOCAN slice ------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_meddocan_slice_learns_its_training_data(meddocan_dir: Path) -> None:
    """20 MEDDOCAN documents (51 k characters), a narrower network and 150 steps of 1000 words (~15 epochs): about
    ten seconds on one core, F1 about 0.94 on its own training slice (character offsets)."""
    docs = sorted(cio.read(meddocan_dir / "train" / "brat", "brat"), key=lambda d: d.id)[:20]
    det = SpacyNERDetector(lang="es", label_scheme="meddocan", seed=0, max_steps=150, eval_frequency=10_000,
                           overrides={"training.batcher.size.start": 1000, "training.optimizer.learn_rate": 0.003,
                                      "components.tok2vec.model.encode.width": 48,
                                      "components.tok2vec.model.encode.depth": 2,
                                      "components.ner.model.hidden_width": 48})
    det.fit(docs)
    f1 = evaluate(docs, det.predict(docs), lang="es").to_dict()["measures"]["entity_exact"]["micro"]["f1"]
    assert f1 > 0.9
    report = det.training_report_
    assert report is not None and report.steps == 151 and report.epochs > 10
    # 3 misaligned gold spans in all of MEDDOCAN train; this slice's are reported the same way
    assert all(m["reason"] == "misaligned" for m in report.misaligned)
