"""clinanon.lm on a tiny synthetic corpus: the study's corpus anonymization, a byte-level BPE, a tiny RoBERTa
(seeded, resumable), mask sentences from gold names, the probe, vocabulary scrubbing and the export (seconds;
skipped without torch / transformers / tokenizers)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from clinanon.audit._text import fold
from clinanon.config import Config
from clinanon.lm.corpus import STUDY_OPERATORS, anonymize_corpus, iter_texts, study_config
from clinanon.lm.tokenizer import decode_piece

FIRST = ["María", "José", "Lucía", "Ramón", "Inés"]
LAST = ["García", "Zurbarán", "Peñalver", "Olmedo", "Quintanilla"]
TOWNS = ["Toledo", "Cáceres", "Albacete"]
#: every word of every gold name of the corpus below
NAME_WORDS = {fold(w) for w in FIRST + LAST}


def _note(rng: random.Random) -> tuple[str, list[tuple[str, int, int, str]]]:
    first, last, town = rng.choice(FIRST), rng.choice(LAST), rng.choice(TOWNS)
    doc = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
    parts: list[tuple[str, str | None]] = [
        ("Nombre: ", None), (f"{first} {last}", "NOMBRE_SUJETO_ASISTENCIA"), (".\nLocalidad: ", None),
        (town, "TERRITORIO"), (".\nFecha de ingreso: 12/03/2016.\nPaciente de 54 años que acude por dolor torácico."
                               " Exploración sin hallazgos.\nMédico: ", None), (doc, "NOMBRE_PERSONAL_SANITARIO"),
        (".\n", None)]
    text, spans, pos = "", [], 0
    for piece, label in parts:
        if label:
            spans.append((label, pos, pos + len(piece), piece))
        text += piece
        pos += len(piece)
    return text, spans


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("notes")
    rng = random.Random(7)
    for i in range(40):
        text, spans = _note(rng)
        (d / f"n{i:02d}.txt").write_text(text, encoding="utf-8")
        (d / f"n{i:02d}.ann").write_text("".join(f"T{j}\t{lab} {s} {e}\t{t}\n" for j, (lab, s, e, t) in
                                                 enumerate(spans, 1)), encoding="utf-8")
    return d


def _deps() -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")


def test_study_profile_tags_names_and_places_and_keeps_the_rest(corpus: Path, tmp_path: Path) -> None:
    cfg = study_config(Config(language="es", label_scheme="meddocan", detectors={"use": ["gold"]}))
    assert {k: v.operator for k, v in cfg.operators.items()} == {k: v["operator"] for k, v in STUDY_OPERATORS.items()}
    rep = anonymize_corpus(corpus, tmp_path / "anon.jsonl", cfg)
    d = rep.to_dict()
    assert d["documents"] == 40 and d["errors"] == 0 and d["documents_changed"] == 40
    assert d["by_replacement"] == {"PERSON": 80, "GPE": 40}
    assert set(d["by_category"]) == {"NAME.PATIENT", "NAME.DOCTOR", "LOCATION.CITY"}
    texts = list(iter_texts(tmp_path / "anon.jsonl"))
    assert len(texts) == 40
    joined = " ".join(texts)
    assert not any(n in joined for n in FIRST + LAST + TOWNS)
    assert "12/03/2016" in joined and "54 años" in joined  # the study replaces names and places only
    assert "PERSON" in texts[0] and "GPE" in texts[0]
    # the report is read back from the output (so that a resumed run reports the whole corpus): a second run
    # over the finished output gives the same counts
    rep2 = anonymize_corpus(corpus, tmp_path / "anon.jsonl", cfg, resume=True, overwrite=True)
    assert rep2.to_dict()["by_category"] == d["by_category"] and rep2.documents == 40


def test_decode_piece() -> None:
    assert decode_piece("ĠGarcÃŃa") == " García"
    assert decode_piece("Nombre") == "Nombre"
    assert decode_piece("Ã") == "Ã"  # half a character: left as it is


@pytest.fixture(scope="module")
def tiny(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    _deps()
    from clinanon.lm.pretrain import PRESETS, pretrain
    from clinanon.lm.tokenizer import train_tokenizer

    base = tmp_path_factory.mktemp("tiny-lm")
    texts = list(iter_texts(corpus))
    tok = train_tokenizer(texts, base / "tok", vocab_size=1000, min_frequency=1, max_length=32)
    res = pretrain(texts, tok, base / "run", PRESETS["tiny"], resume=False)
    return {"tok": tok, "run": base / "run", "model": res.model_dir, "base": base}


def test_tokenizer_is_byte_level_bpe_with_roberta_specials(tiny: dict[str, Path]) -> None:
    from clinanon.lm.tokenizer import is_byte_level, load_tokenizer

    tok = load_tokenizer(tiny["tok"])
    assert is_byte_level(tiny["tok"]) and 261 < len(tok) <= 1000  # the corpus is too small for 1000
    ids = [tok.bos_token_id, tok.pad_token_id, tok.eos_token_id, tok.unk_token_id, tok.mask_token_id]
    assert ids == [0, 1, 2, 3, 4]
    pieces = tok.convert_ids_to_tokens(tok("Nombre: <mask>.")["input_ids"])
    assert pieces == ["<s>", "Nombre", ":", "<mask>", ".", "</s>"]  # the mask takes the space before it
    vocab = {decode_piece(p).strip() for p in tok.get_vocab()}
    assert "García" in vocab and "Zurbarán" in vocab  # frequent names become whole entries: what scrubbing is for


def test_pretraining_is_seeded_and_resumes_to_the_same_model(corpus: Path, tiny: dict[str, Path], tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from clinanon.lm import pretrain as pt

    log = json.loads((tiny["run"] / "train_log.json").read_text(encoding="utf-8"))
    assert log["steps"] == 20 and len(log["losses"]) == 4 and log["final_loss"] < log["first_loss"]
    texts = list(iter_texts(corpus))
    real = pt._mlm_loss
    calls = {"n": 0}

    def failing(*a: object, **k: object) -> object:
        calls["n"] += 1
        if calls["n"] == 13:  # after the checkpoint of step 10
            raise RuntimeError("interrupted")
        return real(*a, **k)

    monkeypatch.setattr(pt, "_mlm_loss", failing)
    with pytest.raises(RuntimeError):
        pt.pretrain(texts, tiny["tok"], tmp_path / "run", pt.PRESETS["tiny"], resume=False)
    monkeypatch.setattr(pt, "_mlm_loss", real)
    res = pt.pretrain(texts, tiny["tok"], tmp_path / "run", pt.PRESETS["tiny"], resume=True)
    assert res.resumed_from == 10 and res.steps == 20
    assert res.losses == [tuple(x) for x in log["losses"]]
    from safetensors.torch import load_file

    a, b = load_file(str(tiny["model"] / "model.safetensors")), load_file(str(res.model_dir / "model.safetensors"))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    # another model size cannot take up this checkpoint
    with pytest.raises(Exception, match="another configuration"):
        pt.pretrain(texts, tiny["tok"], tmp_path / "run", pt.PRESETS["tiny"].with_overrides(hidden_size=16))


def test_mask_sentences_from_gold_names(corpus: Path) -> None:
    from clinanon import io as cio
    from clinanon.lm.probe import mask_sentences, name_words

    docs = list(cio.read(corpus))
    words = name_words(docs, "meddocan")
    assert words == NAME_WORDS
    sents = mask_sentences(docs, scheme="meddocan", seen_names={"maría", "garcía", "lucía", "ramón", "josé",
                                                                "inés"} | {w.lower() for w in LAST[1:]})
    assert len(sents) == 80  # the patient's and the doctor's line of each note
    assert all(s.text.count("<mask>") == 1 for s in sents)
    assert not any(n in s.text for s in sents for n in FIRST + LAST)
    assert {s.seen for s in sents} == {True}
    unseen = mask_sentences(docs, scheme="meddocan", seen_names={"maría"})
    assert not any(s.seen for s in unseen)


def test_probe_scrub_and_export(corpus: Path, tiny: dict[str, Path], tmp_path: Path) -> None:
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    from clinanon import io as cio
    from clinanon.audit.lexicon import name_lists
    from clinanon.lm.probe import mask_sentences, name_words, probe, summarize
    from clinanon.lm.scrub import leaked_names, scrub_vocabulary, tokens_from_review

    docs = list(cio.read(corpus))
    names = name_words(docs, "meddocan")
    sents = mask_sentences(docs, scheme="meddocan", seen_names=names)[:10]
    from clinanon.lm.tokenizer import load_tokenizer

    # every non-special entry: the judgement, not the barely trained weights, decides what is found
    k = len(load_tokenizer(tiny["model"])) - 5
    res = probe(tiny["model"], [s.text for s in sents], top_k=k, langs=("es",))
    d = summarize(res, sents, names)
    lists = name_lists(("es",))
    # byte-level pieces are judged as text: an accented name in the vocabulary is found
    found = {p.token for p in res.predictions if p.name_like}
    assert {"García", "María", "Lucía"} <= found
    assert all(lists.is_name(t) for t in found)
    assert d["own_original_hits"] >= len(sents) and d["training_name_predictions"] > 0
    review = tmp_path / "review.csv"
    res.write_review(review, [s.text for s in sents])
    auto, how = tokens_from_review(review)
    assert how == "automatic" and "garcia" in auto

    before = leaked_names(tiny["model"], names)
    assert {"garcia", "zurbaran"} <= before["vocabulary"]
    out = tmp_path / "export"
    scrub = scrub_vocabulary(tiny["model"], out, names | auto, seed=1)
    assert scrub.scrubbed >= len(before["vocabulary"]) and scrub.merges_dropped > 0
    assert leaked_names(out, names) == {"vocabulary": set(), "merges": set(), "files": set()}
    # plain transformers loads it; the ids are kept, the entry is renamed
    tok = AutoTokenizer.from_pretrained(str(out), local_files_only=True)
    model = AutoModelForMaskedLM.from_pretrained(str(out), local_files_only=True)
    old = AutoTokenizer.from_pretrained(str(tiny["model"]), local_files_only=True)
    gid = old.convert_tokens_to_ids("ĠGarcÃŃa")
    assert tok.convert_ids_to_tokens(gid).startswith("unk") and len(tok) == len(old)
    assert model.get_input_embeddings().weight.shape[0] == len(tok)
    enc = tok("Nombre: María García.")
    assert all(not t.startswith("unk") for t in tok.convert_ids_to_tokens(enc["input_ids"]))
    assert "García" in tok.decode(enc["input_ids"])  # a scrubbed name is spelled in pieces, the text survives
    # after scrubbing, the probe finds none of the scrubbed names
    res2 = probe(out, [s.text for s in sents], top_k=k, langs=("es",))
    assert not {p.token for p in res2.predictions if p.name_like} & {"García", "Zurbarán", "María"}
    # every file of the export was checked: nothing else holds a training name
    for p in out.iterdir():
        if p.suffix == ".json":
            text = p.read_text(encoding="utf-8")
            assert not any(n in text for n in ("Zurbarán", "Peñalver", "Quintanilla"))


def test_cli_probe_and_scrub(corpus: Path, tiny: dict[str, Path], tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from clinanon.cli import app

    r = CliRunner().invoke(app, ["lm", "probe", str(tiny["model"]), "--notes", str(corpus), "--train-notes",
                                 str(corpus), "--scheme", "meddocan", "--top-k", "5", "--out",
                                 str(tmp_path / "p.json"), "--review", str(tmp_path / "r.csv")])
    assert r.exit_code == 0, r.output
    data = json.loads((tmp_path / "p.json").read_text(encoding="utf-8"))
    assert data["all"]["sentences"] == 80 and data["seen"]["sentences"] == 80 and data["unseen"]["sentences"] == 0
    r = CliRunner().invoke(app, ["lm", "scrub-vocab", str(tiny["model"]), "-o", str(tmp_path / "x"), "--gold",
                                 str(corpus), "--scheme", "meddocan", "--report", str(tmp_path / "s.json")])
    assert r.exit_code == 0, r.output
    s = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert s["scrubbed"] > 0 and s["gold_names_spelled_after"] == {"vocabulary": 0, "merges": 0, "files": 0}
    assert not any(n in r.output for n in FIRST + LAST)  # nothing printed holds a name


def test_name_words_leave_out_common_words_that_are_no_name() -> None:
    from clinanon.document import Document, Span
    from clinanon.lm.probe import mask_sentences, name_words

    text = "Acude su padre, varón de 60 años. Nombre: Rosa Peñalver."
    s1 = text.index("varón")
    s2 = text.index("Rosa")
    doc = Document("d", text, (Span(s1, s1 + len("varón de 60 años"), "FAMILIARES_SUJETO_ASISTENCIA"),
                               Span(s2, s2 + len("Rosa Peñalver"), "NOMBRE_SUJETO_ASISTENCIA")))
    # "varón", "años" (common words in no name list) and "de" (a function word) are no one's name; "Rosa" is one
    # though a common word too
    assert name_words([doc], "meddocan") == {"rosa", "penalver"}
    sents = mask_sentences([doc], scheme="meddocan")
    assert [s.originals for s in sents] == [frozenset(), frozenset({"rosa", "penalver"})]


def test_scrubbing_keeps_lower_case_pieces_inside_words() -> None:
    from clinanon.audit.pieces import METASPACE, WORDPIECE, word_like

    assert word_like("ĠGarcÃŃa") and word_like("GarcÃŃa") and word_like("Ġana") and word_like("ĊAna")
    assert not word_like("ana") and not word_like("ÃŃa")  # "sem|ana", "d|ía": parts of common words
    assert word_like("ana", WORDPIECE) and not word_like("##ana", WORDPIECE) and word_like("##Ana", WORDPIECE)
    assert word_like("▁ana", METASPACE) and not word_like("ana", METASPACE)


def test_model_audit_finds_an_accented_name_before_scrubbing_and_not_after(tmp_path: Path) -> None:
    """The model audit and the scrubbing read a byte-level vocabulary alike: decoded, word starts and capitalised
    pieces only (one implementation, clinanon.audit.pieces)."""
    pytest.importorskip("tokenizers")
    from clinanon.audit.model import audit_model
    from clinanon.lm.scrub import leaked_names, scrub_vocabulary
    from test_audit_model import BPE_WORDS, byte_level_bpe

    src = byte_level_bpe(tmp_path / "model", BPE_WORDS)
    ref = {"maria", "ana", "garcia"}
    before = audit_model(src, langs=("es",), reference=ref)
    assert before.held["tokenizer"] == {"maria", "garcia"}  # "ana" only inside "semana": not a name's form
    assert leaked_names(src, ref)["vocabulary"] == {"maria", "garcia"}
    res = scrub_vocabulary(src, tmp_path / "export", ref)
    renamed = {text for _, text, _ in res.renamed}
    assert {"María", "García"} <= renamed and "ana" not in renamed  # "sem|ana" still needs its piece
    after = audit_model(tmp_path / "export", langs=("es",), reference=ref)
    assert after.to_dict()["reference"]["held"] == 0
    assert leaked_names(tmp_path / "export", ref) == {"vocabulary": set(), "merges": set(), "files": set()}
    vocab = json.loads((tmp_path / "export" / "tokenizer.json").read_text("utf-8"))["model"]["vocab"]
    assert "ana" in vocab and "ĠMarÃŃa" not in vocab
