"""CoNLL / BIO: exact round trip of our dialect, foreign CoNLL files, errors."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clinanon import io as cio
from clinanon.bio import encode_bio
from clinanon.document import Document, Span
from clinanon.errors import InputError
from clinanon.io.base import FormatError
from clinanon.io.conll import escape, unescape
from clinanon.text import tokenize
from test_io import LABELS, texts
from test_io_errors import SECRET, check, only


@st.composite
def aligned_documents(draw: st.DrawFn) -> Document:
    text = draw(texts())
    tokens = tokenize(text)
    spans = []
    k = 0
    while k < len(tokens):
        k += draw(st.integers(0, 3))
        if k >= len(tokens) or not draw(st.booleans()):
            k += 1
            continue
        j = min(len(tokens), k + draw(st.integers(1, 3)))
        spans.append(Span(tokens[k].start, tokens[j - 1].end, draw(LABELS)))
        k = j
    return Document(draw(st.text(min_size=1, max_size=8)), text, tuple(spans))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(aligned_documents(), min_size=1, max_size=4), st.sampled_from(["BIO", "BIOES"]))
def test_conll_roundtrip(docs: list[Document], scheme: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "out.conll"
        cio.write(docs, path, "conll", scheme=scheme)
        assert list(cio.read(path)) == docs


@given(st.text())
def test_escape_roundtrip(s: str) -> None:
    e = escape(s)
    assert e and not any(c.isspace() for c in e)
    assert unescape(e) == s


def test_escape_examples() -> None:
    assert escape("") == "_" and escape(" ") == "\\s" and escape("\r\n\t") == "\\r\\n\\t"
    assert escape("_") == "\\_" and escape("\\") == "\\\\" and escape("\u00a0\ufeff") == "\\u00a0\\ufeff"
    with pytest.raises(ValueError):
        unescape("a\\qb")


def test_writer_output_is_plain_conll(tmp_path: Path) -> None:
    doc = Document("d 1", "  Ana García, 70 años.\nFin", (Span(2, 12, "NOMBRE"), Span(14, 21, "EDAD")))
    path = tmp_path / "a.conll"
    cio.write([doc], path, "conll")
    assert path.read_text(encoding="utf-8") == (
        "-DOCSTART-\td\\s1\t\\s\\s\n"
        "Ana\t2\t5\t\\s\tB-NOMBRE\n"
        "García\t6\t12\t_\tI-NOMBRE\n"
        ",\t12\t13\t\\s\tO\n"
        "70\t14\t16\t\\s\tB-EDAD\n"
        "años\t17\t21\t_\tI-EDAD\n"
        ".\t21\t22\t\\n\tO\n"
        "\n"
        "Fin\t23\t26\t_\tO\n"
        "\n"
    )
    assert list(cio.read(path)) == [doc]
    cio.write([doc], path, "conll", scheme="BIOES")
    assert "E-NOMBRE" in path.read_text(encoding="utf-8")
    assert list(cio.read(path)) == [doc]


def test_writer_strict_on_misaligned_and_overlapping(tmp_path: Path) -> None:
    doc = Document("d", "Ana García", (Span(0, 2, "N"),))
    with pytest.raises(FormatError, match="off token boundaries"):
        cio.write([doc], tmp_path / "a.conll", "conll")
    cio.write([doc], tmp_path / "a.conll", "conll", strict=False)
    assert next(cio.read(tmp_path / "a.conll")).spans == (Span(0, 3, "N"),)
    over = Document("d", "Ana García", (Span(0, 10, "N"), Span(4, 10, "M")))
    with pytest.raises(FormatError, match="overlapping"):
        cio.write([over], tmp_path / "b.conll", "conll")


def test_foreign_two_columns(tmp_path: Path) -> None:
    p = tmp_path / "a.bio"
    p.write_text("-DOCSTART- O\n\nPaciente O\nAna B-NOMBRE\nGarcía I-NOMBRE\n. O\n\nEdad O\n70 B-EDAD\n\n"
                 "-DOCSTART- nota7\n\nFin O\n", encoding="utf-8")
    docs = list(cio.read(p))
    assert [(d.id, d.text) for d in docs] == [("doc-1", "Paciente Ana García .\nEdad 70"), ("nota7", "Fin")]
    assert [s.key for s in docs[0].spans] == [(9, 19, "NOMBRE"), (27, 29, "EDAD")]
    assert all(s.source == "gold" and s.score == 1.0 for s in docs[0].spans)


def test_foreign_conll2003_and_no_docstart(tmp_path: Path) -> None:
    p = tmp_path / "a.conll"
    p.write_text("-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n\n"
                 "-DOCSTART- -X- -X- O\n\nPeter NNP B-NP B-PER\nBlackburn NNP I-NP I-PER\n", encoding="utf-8")
    docs = list(cio.read(p))
    assert [(d.id, d.text, [s.key for s in d.spans]) for d in docs] == [
        ("doc-1", "EU rejects", [(0, 2, "ORG")]), ("doc-2", "Peter Blackburn", [(0, 15, "PER")])]
    q = tmp_path / "b.iob"
    q.write_text("Ana\tS-N\nvino\tO\n", encoding="utf-8")
    assert [(d.id, d.text, [s.key for s in d.spans]) for d in cio.read(q)] == [("doc-1", "Ana vino", [(0, 3, "N")])]


def test_foreign_offsets_columns(tmp_path: Path) -> None:
    p = tmp_path / "a.conll"
    p.write_text("Ana\t2\t5\tB-N\nGarcía\t6\t12\tI-N\n\nFin\t15\t18\tO\n", encoding="utf-8")
    doc = next(cio.read(p))
    assert doc.text == "  Ana García\n  Fin" and [s.key for s in doc.spans] == [(2, 12, "N")]


def test_repair_option(tmp_path: Path) -> None:
    p = tmp_path / "a.conll"
    p.write_text("a O\nb I-X\nc I-X\n", encoding="utf-8")
    assert [s.key for s in next(cio.read(p)).spans] == [(2, 5, "X")]
    assert next(cio.read(p, repair=False)).spans == ()


# --- errors ------------------------------------------------------------------------------------------------------

def test_wrong_column_count_skips_to_next_document(tmp_path: Path) -> None:
    first, second = SECRET.split()
    p = tmp_path / "a.conll"
    p.write_text(f"-DOCSTART- a\n{first} O\n{second} B-N extra\n\n-DOCSTART- b\nok O\n", encoding="utf-8")
    recs = list(cio.iter_records(p))
    assert [type(r).__name__ for r in recs] == ["InputError", "Document"]
    err = check(recs[0], p, line=3)
    assert "3 columns" in err.reason and "has 2" in err.reason
    assert recs[1].id == "b"


def test_bad_tag_is_not_quoted(tmp_path: Path) -> None:
    first, second = SECRET.split()
    p = tmp_path / "a.conll"
    p.write_text(f"Ana O\nvive {first}\n", encoding="utf-8")
    check(only(p), p, line=2)
    q = tmp_path / "b.conll"
    q.write_text(f"{second}\t0\t9\t_\tO\nX\t10\t11\t_\tO\n", encoding="utf-8")
    assert "starts at 10" in check(only(q), q, line=2).reason
    r = tmp_path / "c.conll"
    r.write_text(f"-DOCSTART-\tx\t_\n{second}\t0\t9\t\\q\tO\n", encoding="utf-8")
    assert "escape" in check(only(r), r, line=2).reason


def test_conll_decoding_and_control_chars(tmp_path: Path) -> None:
    p = tmp_path / "a.conll"
    p.write_bytes(b"-DOCSTART- a\nfine O\n\n-DOCSTART- b\n" + SECRET.split()[0].encode() + b" O\nb\xffad O\n")
    recs = list(cio.iter_records(p))
    assert len(recs) == 1  # the whole file is lost at an undecodable byte
    check(recs[0], p, line=6, offset=34 + len(SECRET.split()[0]) + 4)
    q = tmp_path / "b.conll"
    q.write_text(f"{SECRET.split()[0]} O\nx\x00y O\n", encoding="utf-8")
    check(only(q), q, line=2, offset=len(SECRET.split()[0]) + 2)
    assert next(cio.read(q, control_chars="strip")).text == f"{SECRET.split()[0]} xy"


# --- MEDDOCAN ----------------------------------------------------------------------------------------------------

def test_meddocan_conll(meddocan_dir: Path, tmp_path: Path) -> None:
    docs = list(cio.read(meddocan_dir / "train" / "brat"))
    exact = [encode_bio(tokenize(d.text), d.spans).exact for d in docs]
    assert 495 <= sum(exact) < 500  # 3 train spans are not on token boundaries
    path = tmp_path / "train.conll"
    with pytest.raises(FormatError):
        cio.write([docs[exact.index(False)]], path, "conll")
    cio.write(docs, path, "conll", strict=False)
    back = list(cio.read(path))
    assert [(d.id, d.text) for d in back] == [(d.id, d.text) for d in docs]
    assert all(b == d for b, d, ok in zip(back, docs, exact, strict=True) if ok)
    with pytest.raises(InputError):  # a BRAT .ann file is no CoNLL file
        list(cio.read(meddocan_dir / "train" / "brat" / f"{docs[0].id}.ann", "conll"))


def test_empty_documents(tmp_path: Path) -> None:
    docs = [Document("e", ""), Document("w", " \n"), Document("a", "x")]
    cio.write(docs, tmp_path / "a.conll", "conll")
    assert list(cio.read(tmp_path / "a.conll")) == docs
    (tmp_path / "b.conll").write_text("-DOCSTART- -X- O\n\n-DOCSTART- -X- O\n\nx O\n", encoding="utf-8")
    assert [(d.id, d.text) for d in cio.read(tmp_path / "b.conll")] == [("doc-1", ""), ("doc-2", "x")]
