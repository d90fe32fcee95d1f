"""Model audit: a CRF trained here with clinanon's trainer holds the names planted in its training notes."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from clinanon import Document, Span
from clinanon.audit.lexicon import name_lists
from clinanon.audit.model import audit_model, classify, model_strings, reference_names
from clinanon.errors import InputError

pytest.importorskip("pycrfsuite")

#: invented surnames, in no list: only the reference (the training annotations) can say they are names
PLANTED = ["Zorvanek", "Quillibert", "Brastuna", "Ollendorp", "Vexmarra", "Trindeval"]
FIRST = ["Ana", "Luis", "Marta", "Pedro"]


def training_notes(n: int = 12, seed: int = 0) -> list[Document]:
    rng = random.Random(seed)
    docs = []
    for k in range(n):
        first, last = FIRST[k % len(FIRST)], PLANTED[k % len(PLANTED)]
        text = f"Nombre: {first} {last}\nEdad: {rng.randint(20, 90)} años\nEl paciente {last} refiere dolor.\n"
        a = text.index(first)
        b = text.index(last) + len(last)
        c = text.index(last, b)
        docs.append(Document(f"t{k}", text, (Span(a, b, "NOMBRE_SUJETO_ASISTENCIA"),
                                             Span(c, c + len(last), "NOMBRE_SUJETO_ASISTENCIA"))))
    return docs


@pytest.fixture(scope="module")
def crf_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from clinanon import io as cio
    from clinanon.train import CRFSection, DataSection, TrainConfig, train

    root = tmp_path_factory.mktemp("crf")
    data = root / "train.jsonl"
    cio.write(training_notes(), data, "jsonl")
    cfg = TrainConfig(detector="crf", language="es", label_scheme="meddocan", output=root / "model",
                      data=DataSection(train=data),
                      crf=CRFSection(c1=0.0, c2=0.01, max_iterations=20, dev_each_iteration=False))
    train(cfg, progress=False)
    return root / "model"


def test_planted_names_are_all_found_with_the_training_reference(crf_dir: Path) -> None:
    docs = training_notes()
    ref = reference_names(docs, scheme="meddocan")
    assert {n.lower() for n in PLANTED} <= ref
    audit = audit_model(crf_dir, langs=("es",), reference=ref)
    d = audit.to_dict()
    assert d["kind"] == "crf" and d["reference"]["held"] == len(ref)  # every planted name and first name
    assert d["reference"]["share"] == 1.0
    held = {s for src, cat, s in audit.rows() if cat == "REFERENCE"}
    assert {n.lower() for n in PLANTED} <= held
    # the first names are in the shipped name lists: found without any reference too
    names = {s for src, cat, s in audit.rows() if cat == "NAME"}
    assert {"ana", "marta", "pedro"} <= names or {"ana", "marta", "pedro"} <= {
        s for _, cat, s in audit.rows() if cat in ("NAME", "NAME_OR_COMMON")}
    # counts only in the JSON form
    dumped = json.dumps(d)
    assert "zorvanek" not in dumped.lower() and "marta" not in dumped.lower()


def test_user_names_make_planted_names_name_like(crf_dir: Path) -> None:
    audit = audit_model(crf_dir, langs=("es",), extra_names=["Zorvanek", "Brastuna"])
    names = {s for _, cat, s in audit.rows() if cat == "NAME"}
    assert {"zorvanek", "brastuna"} <= names


def test_tokenizer_and_spacy_sources(tmp_path: Path) -> None:
    (tmp_path / "vocab.txt").write_text("[PAD]\n[UNK]\nthe\n##ez\nGarcía\nMadrid\n12345678\nParkinson\n", "utf-8")
    (tmp_path / "sub" / "vocab").mkdir(parents=True)
    (tmp_path / "sub" / "vocab" / "strings.json").write_text(json.dumps(["Pedro", "casa", "a@b.es"]), "utf-8")
    sources, _notes = model_strings(tmp_path)
    # a WordPiece piece inside a word ("##ez") is read as no word; "the" and "García" begin words
    assert set(sources) == {"tokenizer", "spacy"} and "ez" not in sources["tokenizer"]
    assert {"the", "García"} <= sources["tokenizer"]
    audit = audit_model(tmp_path, langs=("es",))
    rows = {(src, cat, s) for src, cat, s in audit.rows()}
    assert ("tokenizer", "NAME", "García") in rows and ("tokenizer", "LOCATION", "Madrid") in rows
    assert ("tokenizer", "ID", "12345678") in rows and ("spacy", "CONTACT.EMAIL", "a@b.es") in rows
    assert not any(s == "Parkinson" for _, _, s in rows)  # an eponym is not a name
    with pytest.raises(InputError):
        audit_model(tmp_path / "sub" / "nothing")


def byte_level_bpe(directory: Path, words: list[str]) -> Path:
    """A ``tokenizer.json`` of a byte-level BPE (RoBERTa's kind, ``tokenizers``) whose entries spell each of
    ``words`` (" María" is the entry ``ĠMarÃŃa``), built merge by merge; RoBERTa's special tokens first."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import decoders, models, pre_tokenizers

    from clinanon.audit.pieces import _byte_decoder

    to_char = {b: c for c, b in _byte_decoder().items()}
    vocab = {t: i for i, t in enumerate(["<s>", "<pad>", "</s>", "<unk>", "<mask>"])}
    for c in sorted(pre_tokenizers.ByteLevel.alphabet()):
        vocab.setdefault(c, len(vocab))
    merges = []
    for w in words:
        piece = "".join(to_char[b] for b in w.encode("utf-8"))
        for k in range(2, len(piece) + 1):
            if piece[:k] not in vocab:
                vocab[piece[:k]] = len(vocab)
                merges.append((piece[:k - 1], piece[k - 1]))
    tok = tokenizers.Tokenizer(models.BPE(vocab, merges, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    directory.mkdir(parents=True, exist_ok=True)
    tok.save(str(directory / "tokenizer.json"))
    return directory


#: a name with an accent, a surname, a capitalised piece at a line start, and "ana" only inside "semana"
BPE_WORDS = [" María", " García", "Lucía", " semana", "ana", " casa"]


def test_byte_level_vocabulary_is_decoded_and_word_internal_pieces_are_not_read(tmp_path: Path) -> None:
    d = byte_level_bpe(tmp_path / "tok", BPE_WORDS)
    (d / "config.json").write_text(json.dumps({"model_type": "roberta", "architectures": ["RobertaForMaskedLM"],
                                               "note": "trained for Zorvanek"}), "utf-8")
    sources, notes = model_strings(d)
    words = sources["tokenizer"]
    # decoded: "ĠMarÃŃa" is "María"; "Lucía" (capitalised, no space before it) counts too
    assert {"María", "García", "Lucía", "semana", "casa"} <= words
    assert not {"MarÃŃa", "GarcÃŃa"} & words
    # a lower-case piece inside a word is not read: the entry "ana" (as in "sem|ana") spells no one
    assert "ana" in json.loads((d / "tokenizer.json").read_text("utf-8"))["model"]["vocab"]
    assert "ana" not in words
    assert {"María", "García"} <= sources["merges"] and "ana" not in sources["merges"]
    # the configuration: data values are read, the library's names ("roberta") are not
    assert "Zorvanek" in sources["config"] and "roberta" not in {w.lower() for w in sources["config"]}
    assert any("with a word's form" in n for n in notes)
    audit = audit_model(d, langs=("es",), reference={"maria", "lucia", "ana", "zorvanek", "pedro"})
    assert audit.held["tokenizer"] == {"maria", "lucia"} and audit.held["config"] == {"zorvanek"}
    rows = set(audit.rows())
    assert ("tokenizer", "NAME", "García") in rows and ("tokenizer", "REFERENCE", "maria") in rows
    assert audit.to_dict()["reference"]["held"] == 3


def test_classify() -> None:
    lists = name_lists(("es",))
    assert classify("García", lists) == "NAME"
    assert classify("casa", lists) is None
    assert classify("03/04/2019", lists) == "DATE"
    assert classify("alzheimer", lists) is None


def test_shipped_crf_holds_meddocan_names(meddocan_dir: Path) -> None:
    from clinanon import io as cio

    shipped = Path(__file__).resolve().parents[1] / "src" / "clinanon" / "data" / "models" / "es-meddocan-crf"
    if not shipped.is_dir():
        pytest.skip("the shipped model is not there")
    docs = list(cio.read(meddocan_dir / "dev" / "brat", "brat"))[:50]
    ref = reference_names(docs, scheme="meddocan")
    d = audit_model(shipped, langs=("es",), reference=ref).to_dict()
    assert d["reference"]["held"] > 0 and set(d["sources"]) == {"crf", "clusters"}
