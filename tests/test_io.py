"""Corpus formats: write -> read round-trips, MEDDOCAN BRAT == XML, detection, the registry, atomic writes."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clinanon import io as cio
from clinanon.document import Document, Span
from clinanon.errors import ConfigError, InputError
from clinanon.io.base import FormatError, atomic_write_text

# --- strategies ------------------------------------------------------------------------------------------------

_C0_BAD = "".join(chr(c) for c in range(32) if chr(c) not in "\t\n\r\f")
_SPECIALS = ["\n", "\r", "\r\n", "\t", " ", "  ", "]]>", "\ufeff", "\f", "\u2028", "\x85", "\\", '"', "&", "<"]


def texts(*, forbid: str = "", min_size: int = 0) -> st.SearchStrategy[str]:
    chars = st.characters(blacklist_categories=("Cs",), blacklist_characters=_C0_BAD + forbid)
    pieces = st.one_of(chars, st.sampled_from([s for s in _SPECIALS if not set(s) & set(forbid)]))
    return st.lists(pieces, min_size=min_size, max_size=40).map("".join)


LABELS = st.from_regex(r"[A-Z][A-Z_]{0,10}", fullmatch=True)
FILE_IDS = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,12}", fullmatch=True)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@st.composite
def documents(draw: st.DrawFn, *, text: st.SearchStrategy[str], ids: st.SearchStrategy[str] = FILE_IDS,
              spans: bool = True, rich_spans: bool = False,
              meta: st.SearchStrategy[dict[str, object]] | None = None) -> Document:
    t = draw(text)
    out = []
    if spans and t:
        for _ in range(draw(st.integers(0, 4))):
            a = draw(st.integers(0, len(t) - 1))
            b = draw(st.integers(a + 1, len(t)))
            if rich_spans:
                out.append(Span(a, b, draw(st.text(min_size=1, max_size=8)), draw(st.text(max_size=6)),
                                draw(st.floats(0, 1))))
            else:
                out.append(Span(a, b, draw(LABELS)))
    return Document(draw(ids), t, tuple(out), draw(meta) if meta is not None else {})


def corpus(doc: st.SearchStrategy[Document]) -> st.SearchStrategy[list[Document]]:
    return st.lists(doc, min_size=1, max_size=4, unique_by=lambda d: d.id)


def roundtrip(docs: list[Document], fmt: str, name: str, **read_options: object) -> list[Document]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        cio.write(docs, path, fmt)
        return list(cio.read(path, fmt, **read_options))


def by_id(docs: list[Document]) -> list[Document]:
    return sorted(docs, key=lambda d: d.id)


RT = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- round trips -------------------------------------------------------------------------------------------------

@RT
@given(corpus(documents(text=texts(), spans=False)))
def test_text_roundtrip(docs: list[Document]) -> None:
    assert by_id(roundtrip(docs, "text", "out")) == by_id(docs)


@RT
@given(corpus(documents(text=texts())))
def test_brat_roundtrip(docs: list[Document]) -> None:
    assert by_id(roundtrip(docs, "brat", "out")) == by_id(docs)


@RT
@given(corpus(documents(text=texts(forbid="\f\ufffe\uffff"))))
def test_xml_roundtrip(docs: list[Document]) -> None:
    assert by_id(roundtrip(docs, "xml", "out")) == by_id(docs)


@RT
@given(corpus(documents(text=texts(), ids=st.text(min_size=1, max_size=10), rich_spans=True,
                        meta=st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=3))))
def test_jsonl_roundtrip(docs: list[Document]) -> None:
    assert roundtrip(docs, "jsonl", "out.jsonl") == docs


@RT
@given(corpus(documents(text=texts(), ids=st.text(min_size=1, max_size=10), rich_spans=True,
                        meta=st.dictionaries(st.sampled_from(["site", "note", "patient"]),
                                             st.text(min_size=1, max_size=12), max_size=3))))
def test_csv_roundtrip(docs: list[Document]) -> None:
    assert roundtrip(docs, "csv", "out.csv") == docs
    assert roundtrip(docs, "csv", "out.tsv") == docs


@RT
@given(corpus(documents(text=texts(), ids=st.text(min_size=1, max_size=10),
                        meta=st.dictionaries(st.sampled_from(["masked", "template_id", "metadata"]),
                                             JSON_VALUES, max_size=3))))
def test_presidio_roundtrip(docs: list[Document]) -> None:
    assert roundtrip(docs, "presidio", "out.json") == docs


def test_control_chars_roundtrip_with_keep() -> None:
    doc = Document("d1", "a\x00b\x1bc\x0bd", (Span(1, 3, "X"),), {})
    for fmt, name in (("text", "o"), ("brat", "o"), ("jsonl", "o.jsonl"), ("csv", "o.csv"),
                      ("presidio", "o.json")):
        expected = doc.with_spans(()) if fmt == "text" else doc
        assert roundtrip([doc], fmt, name, control_chars="keep") == [expected], fmt


def test_xml_writer_keeps_cr_and_cdata_end() -> None:
    text = "\ufeffa]]>b\r\nc]]\r>\rend"
    doc = Document("x", text, (Span(0, 3, "NAME.PATIENT"), Span(4, 9, "DATE")), {})
    with tempfile.TemporaryDirectory() as tmp:
        cio.write([doc], tmp, "xml", root="MEDDOCAN")
        raw = (Path(tmp) / "x.xml").read_text(encoding="utf-8")
        assert raw.count("<MEDDOCAN>") == 1 and "&#13;" in raw and "\r" not in raw
        assert list(cio.read(tmp, "xml")) == [doc]
        cio.write([doc], tmp, "xml", label="both")
        back = list(cio.read(tmp, "xml", label="both"))
        assert [s.label for s in back[0].spans] == ["NAME.PATIENT", "DATE.DATE"]


def test_xml_label_modes(tmp_path: Path) -> None:
    xml = ('<?xml version="1.0" encoding="UTF-8" ?>\n<deIdi2b2>\n<TEXT><![CDATA[Mr Smith seen 2067-05-03]]></TEXT>\n'
           '<TAGS>\n<NAME id="P0" start="3" end="8" text="Smith" TYPE="PATIENT" comment="" />\n'
           '<DATE id="P1" start="14" end="24" text="2067-05-03" TYPE="DATE" comment="" />\n</TAGS>\n</deIdi2b2>\n')
    (tmp_path / "100-01.xml").write_text(xml, encoding="utf-8")
    keys = {mode: [s.key for s in next(cio.read(tmp_path, label=mode)).spans] for mode in ("subtype", "type", "both")}
    assert keys == {"subtype": [(3, 8, "PATIENT"), (14, 24, "DATE")],
                    "type": [(3, 8, "NAME"), (14, 24, "DATE")],
                    "both": [(3, 8, "NAME.PATIENT"), (14, 24, "DATE.DATE")]}
    doc = next(cio.read(tmp_path / "100-01.xml"))
    assert doc.id == "100-01" and doc.spans[0] == Span(3, 8, "PATIENT", "gold", 1.0)


def test_xml_declared_encoding(tmp_path: Path) -> None:
    body = "<?xml version='1.0' encoding='ISO-8859-1'?><deIdi2b2><TEXT>Jos\u00e9</TEXT><TAGS/></deIdi2b2>"
    (tmp_path / "a.xml").write_bytes(body.encode("latin-1"))
    assert next(cio.read(tmp_path)).text == "Jos\u00e9"


# --- MEDDOCAN ------------------------------------------------------------------------------------------------------

def test_meddocan_brat_and_xml_identical(meddocan_dir: Path) -> None:
    stats = cio.ReadStats()
    brat = list(cio.read(meddocan_dir / "train" / "brat", scheme="meddocan", stats=stats))
    xml = list(cio.read(meddocan_dir / "train" / "xml"))
    assert len(brat) == len(xml) == 500
    assert brat == xml  # ids, texts and spans (gold, score 1.0) identical
    assert stats.documents == 500 and stats.errors == 0 and stats.spans == sum(len(d.spans) for d in brat)
    assert stats.boms_stripped == 15  # 15 train files start with a BOM that the offsets count
    assert all(s.source == "gold" and s.score == 1.0 for d in brat for s in d.spans)
    assert not any(d.text.startswith("\ufeff") for d in brat)


def test_meddocan_brat_write_reproduces_txt(meddocan_dir: Path, tmp_path: Path) -> None:
    src = meddocan_dir / "train" / "brat"
    docs = list(cio.read(src))
    cio.write(docs, tmp_path / "brat", "brat")
    for d in docs:  # the .txt files come back byte for byte, less the BOM of 15 of them
        original = (src / f"{d.id}.txt").read_bytes().removeprefix(b"\xef\xbb\xbf")
        assert (tmp_path / "brat" / f"{d.id}.txt").read_bytes() == original
    assert list(cio.read(tmp_path / "brat")) == docs
    cio.write(docs, tmp_path / "xml", "xml", root="MEDDOCAN")
    assert list(cio.read(tmp_path / "xml")) == docs


def test_presidio_pii_synth(shared_data: Path, tmp_path: Path) -> None:
    path = shared_data / "pii-synth-en" / "dev.json"
    if not path.exists():
        pytest.skip("pii-synth-en not present")
    docs = list(cio.read(path))
    assert len(docs) == 750 and docs[0].id == "0" and set(docs[0].meta) == {"masked", "template_id", "metadata"}
    assert sum(len(d.spans) for d in docs) == 1402
    cio.write(docs, tmp_path / "p.json", "presidio")
    assert list(cio.read(tmp_path / "p.json")) == docs
    raw = json.loads((tmp_path / "p.json").read_text(encoding="utf-8"))
    assert raw[0]["spans"][0].keys() == {"entity_type", "entity_value", "start_position", "end_position"}


# --- exact values --------------------------------------------------------------------------------------------------

def test_brat_bom_offsets_count_the_bom(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_bytes("\ufeffHola Ana.\r\nFin".encode())
    (tmp_path / "d.ann").write_text("T1\tNOMBRE 6 9\tAna\nT2\tX 12 15\tFin\n#1\tAnnotatorNotes T1\tnote\n",
                                    encoding="utf-8")
    stats = cio.ReadStats()
    doc = next(cio.read(tmp_path, stats=stats))
    assert doc.text == "Hola Ana.\r\nFin"  # BOM gone, CRLF kept
    assert [s.key for s in doc.spans] == [(5, 8, "NOMBRE"), (11, 14, "X")]
    assert stats.boms_stripped == 1 and stats.ignored_lines == {"#": 1}
    cio.write([doc], tmp_path / "out", "brat")
    assert (tmp_path / "out" / "d.ann").read_text(encoding="utf-8") == "T1\tNOMBRE 5 8\tAna\nT2\tX 11 14\tFin\n"


def test_brat_discontinuous(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text("Juan de la Cruz", encoding="utf-8")
    (tmp_path / "d.ann").write_text("T1\tNAME 0 4;11 15\tJuan Cruz\n", encoding="utf-8")
    stats = cio.ReadStats()
    assert [s.key for s in next(cio.read(tmp_path, stats=stats)).spans] == [(0, 4, "NAME"), (11, 15, "NAME")]
    assert stats.discontinuous_spans == 1
    assert [s.key for s in next(cio.read(tmp_path, discontinuous="merge")).spans] == [(0, 15, "NAME")]
    err = next(cio.iter_records(tmp_path, discontinuous="error"))
    assert isinstance(err, InputError) and err.line == 1 and "discontinuous" in err.reason


def test_brat_missing_ann_is_document_without_spans(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x", encoding="utf-8")
    stats = cio.ReadStats()
    assert list(cio.read(tmp_path, "brat", stats=stats)) == [Document("a", "x")]
    assert stats.missing_annotations == 1


def test_jsonl_ids_extra_keys_and_defaults(tmp_path: Path) -> None:
    p = tmp_path / "a.jsonl"
    p.write_text('{"id": 7, "text": "abc", "site": "x", "spans": [{"start": 0, "end": 1, "label": "L"}]}\n\n'
                 '{"text": "", "meta": {"k": 1}}\n', encoding="utf-8")
    docs = list(cio.read(p))
    assert [d.id for d in docs] == ["7", "line-3"]
    assert dict(docs[0].meta) == {"site": "x"} and docs[0].spans == (Span(0, 1, "L", "gold", 1.0),)
    assert docs[1].text == "" and dict(docs[1].meta) == {"k": 1}


def test_csv_columns_and_ids(tmp_path: Path) -> None:
    p = tmp_path / "a.csv"
    p.write_bytes(b'\xef\xbb\xbfnote,text,site\r\nn1,"line1\r\nline2",\r\n,plain,H1\r\n')
    docs = list(cio.read(p))
    assert [(d.id, d.text, dict(d.meta)) for d in docs] == [
        ("row-1", "line1\r\nline2", {"note": "n1"}), ("row-2", "plain", {"site": "H1"})]
    q = tmp_path / "b.csv"
    q.write_text("doc,body\nA,hello\n", encoding="utf-8")
    assert [(d.id, d.text) for d in cio.read(q, text_column="body", id_column="doc")] == [("A", "hello")]


def test_empty_files(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "e.txt").write_bytes(b"")
    assert list(cio.read(tmp_path / "t")) == [Document("e", "")]
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "e.txt").write_bytes(b"")
    (tmp_path / "b" / "e.ann").write_bytes(b"")
    assert list(cio.read(tmp_path / "b")) == [Document("e", "")]
    for name in ("e.jsonl", "e.csv"):
        (tmp_path / name).write_bytes(b"")
        assert list(cio.read(tmp_path / name)) == []
    (tmp_path / "e.json").write_bytes(b"[]")
    assert list(cio.read(tmp_path / "e.json")) == []


# --- API ------------------------------------------------------------------------------------------------------------

def test_registry_and_detection(tmp_path: Path) -> None:
    assert {"text", "jsonl", "brat", "xml", "csv", "presidio"} <= set(cio.FORMATS)
    assert cio.FORMATS["csv"].suffixes == (".csv", ".tsv") and cio.get_format("i2b2").name == "xml"
    assert cio.format_for_suffix(".jsonl") == "jsonl" and cio.format_for_suffix("") is None
    with pytest.raises(ConfigError):
        cio.get_format("docx")
    for name, fmt in (("a.jsonl", "jsonl"), ("a.json", "presidio"), ("a.csv", "csv"), ("a.tsv", "csv"),
                      ("a.xml", "xml"), ("a.txt", "text")):
        (tmp_path / name).write_text("", encoding="utf-8")
        assert cio.detect_format(tmp_path / name) == fmt
    (tmp_path / "a.ann").write_text("", encoding="utf-8")
    assert cio.detect_format(tmp_path / "a.txt") == "brat"
    for folder, files, fmt in (("b", ["x.txt", "x.ann"], "brat"), ("x", ["x.xml"], "xml"), ("t", ["x.txt"], "text")):
        (tmp_path / folder).mkdir()
        for f in files:
            (tmp_path / folder / f).write_text("", encoding="utf-8")
        assert cio.detect_format(tmp_path / folder) == fmt
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="empty"):
        cio.detect_format(tmp_path / "empty")
    assert isinstance(next(cio.iter_records(tmp_path / "missing")), InputError)


def test_options_validated_eagerly(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        cio.iter_records(tmp_path, "brat", discontinuous="ignore")
    with pytest.raises(ConfigError):
        cio.read(tmp_path, "text", control_chars="drop")
    with pytest.raises(ConfigError):
        cio.read(tmp_path, "brat", scheme="no-such-scheme")
    with pytest.raises(TypeError):
        cio.read(tmp_path, "text", scheme="meddocan")


def test_atomic_write_leaves_no_partial_file(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    atomic_write_text(target, "old\n")
    bad = [Document("a", "x"), Document("b", "y", meta={"obj": object()})]
    with pytest.raises(FormatError):
        cio.write(bad, target, "jsonl")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_writer_rejects_unsafe_ids_and_duplicates(tmp_path: Path) -> None:
    with pytest.raises(FormatError):
        cio.write([Document("../evil", "x")], tmp_path / "o", "text")
    with pytest.raises(FormatError):
        cio.write([Document("a", "x"), Document("a", "y")], tmp_path / "o", "brat")
    with pytest.raises(FormatError):
        cio.write([Document("a", "x", (Span(0, 1, "TWO WORDS"),))], tmp_path / "o", "brat")
    with pytest.raises(FormatError):
        cio.write([Document("a", "x\x00")], tmp_path / "o", "xml")


def test_count_documents(tmp_path: Path) -> None:
    docs = [Document("a", "x"), Document("b", "y")]
    for fmt, name in (("text", "t"), ("brat", "b"), ("xml", "x"), ("jsonl", "a.jsonl"), ("conll", "a.conll")):
        cio.write(docs, tmp_path / name, fmt)
        assert cio.count_documents(tmp_path / name, fmt) == 2, fmt
        assert cio.count_documents(tmp_path / name) == 2, fmt
    cio.write(docs, tmp_path / "a.csv", "csv")
    assert cio.count_documents(tmp_path / "a.csv") is None
