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
    assert set(sources) == {"tokenizer", "spacy"} and "ez" in sources["tokenizer"]
    audit = audit_model(tmp_path, langs=("es",))
    rows = {(src, cat, s) for src, cat, s in audit.rows()}
    assert ("tokenizer", "NAME", "García") in rows and ("tokenizer", "LOCATION", "Madrid") in rows
    assert ("tokenizer", "ID", "12345678") in rows and ("spacy", "CONTACT.EMAIL", "a@b.es") in rows
    assert not any(s == "Parkinson" for _, _, s in rows)  # an eponym is not a name
    with pytest.raises(InputError):
        audit_model(tmp_path / "sub" / "nothing")


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
