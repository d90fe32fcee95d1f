"""Bad input: every case gives an InputError that names the file and the line/offset and never quotes the text;
iter_records yields the error in place of the bad document and goes on."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from clinanon import io as cio
from clinanon.document import Document, Span
from clinanon.errors import InputError

SECRET = "Zebulon Quixtable"  # planted document text: must never appear in an error
S = SECRET.encode()


def check(err: object, path: Path, *, line: int | None = None, offset: int | None = None) -> InputError:
    assert isinstance(err, InputError), err
    msg = str(err)
    assert str(path) in msg
    if line is not None:
        assert err.line == line and f"line {line}" in msg, msg
    if offset is not None:
        assert err.offset == offset and f"offset {offset}" in msg, msg
    for text in (msg, repr(err), json.dumps(err.to_record())):
        for piece in SECRET.split():
            assert piece not in text, text
    return err


def only(path: Path, fmt: str | None = None, **options: object) -> InputError:
    records = list(cio.iter_records(path, fmt, **options))
    assert len(records) == 1, records
    with pytest.raises(InputError):
        list(cio.read(path, fmt, **options))
    return records[0]  # type: ignore[return-value]


# --- decoding ------------------------------------------------------------------------------------------------------

BAD_UTF8 = S + b"\nab\xffcd " + S  # invalid byte on line 2, at byte offset len(S) + 3
BAD_AT = len(S) + 3


def test_non_utf8_text_file(tmp_path: Path) -> None:
    p = tmp_path / "d.txt"
    p.write_bytes(BAD_UTF8)
    check(only(p), p, line=2, offset=BAD_AT)
    doc = next(cio.read(p, errors="replace"))
    assert doc.text == f"{SECRET}\nab\ufffdcd {SECRET}"
    assert next(cio.read(p, encoding="latin-1")).text.endswith(SECRET)


def test_non_utf8_with_bom_counts_file_bytes(tmp_path: Path) -> None:
    p = tmp_path / "d.txt"
    p.write_bytes(b"\xef\xbb\xbf" + BAD_UTF8)
    check(only(p), p, line=2, offset=BAD_AT + 3)


def test_non_utf8_brat_ann(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_bytes(S)
    (tmp_path / "d.ann").write_bytes(b"T1\tNAME 0 7\tZeb\xe9\n")
    check(only(tmp_path), tmp_path / "d.ann", line=1, offset=15)


def test_non_utf8_jsonl_line_is_one_error(tmp_path: Path) -> None:
    p = tmp_path / "a.jsonl"
    good = json.dumps({"id": "a", "text": SECRET}).encode() + b"\n"
    p.write_bytes(good + b'{"id": "b", "text": "\xff' + S + b'"}\n' + good.replace(b'"a"', b'"c"'))
    recs = list(cio.iter_records(p))
    assert [type(r).__name__ for r in recs] == ["Document", "InputError", "Document"]
    check(recs[1], p, line=2, offset=len(good) + 21)


def test_non_utf8_csv_and_presidio_and_xml(tmp_path: Path) -> None:
    c = tmp_path / "a.csv"
    c.write_bytes(b"id,text\n1," + S + b"\n2,x\xff\n")
    check(only(c), c, line=3, offset=10 + len(S) + 4)
    j = tmp_path / "a.json"
    j.write_bytes(b'[{"full_text": "' + S + b'\xfe", "spans": []}]')
    check(only(j), j, line=1, offset=16 + len(S))
    x = tmp_path / "a.xml"
    x.write_bytes(b"<deIdi2b2>\n<TEXT><![CDATA[" + S + b"\xff]]></TEXT><TAGS/></deIdi2b2>")
    check(only(x), x, line=2, offset=11 + 15 + len(S))


# --- control characters -------------------------------------------------------------------------------------------

def test_control_characters(tmp_path: Path) -> None:
    p = tmp_path / "d.txt"
    p.write_text(f"{SECRET}\nab\x00c\x1b", encoding="utf-8")
    err = check(only(p), p, line=2, offset=len(SECRET) + 3)
    assert "U+0000" in err.reason
    stats = cio.ReadStats()
    assert next(cio.read(p, control_chars="strip", stats=stats)).text == f"{SECRET}\nabc"
    assert stats.control_chars_stripped == 2
    assert next(cio.read(p, control_chars="keep")).text == f"{SECRET}\nab\x00c\x1b"
    tab = tmp_path / "ok.txt"
    tab.write_text("a\tb\fc\r\n", encoding="utf-8")
    assert next(cio.read(tab)).text == "a\tb\fc\r\n"


def test_control_strip_remaps_spans(tmp_path: Path) -> None:
    p = tmp_path / "a.jsonl"
    text = "ab\x00\x01cd Ana"
    p.write_text(json.dumps({"id": "a", "text": text, "spans": [{"start": 7, "end": 10, "label": "N"},
                                                                 {"start": 2, "end": 4, "label": "C"}]}) + "\n",
                 encoding="utf-8")
    check(only(p), p, line=1, offset=2)
    stats = cio.ReadStats()
    doc = next(cio.read(p, control_chars="strip", stats=stats))
    assert doc.text == "abcd Ana" and [s.key for s in doc.spans] == [(5, 8, "N")]
    assert stats.spans_dropped == 1  # the span that covered only control characters
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "d.txt").write_bytes(b"\xef\xbb\xbfx\x00 Ana")
    (tmp_path / "b" / "d.ann").write_text("T1\tN 4 7\tAna\n", encoding="utf-8")
    assert [s.key for s in next(cio.read(tmp_path / "b", control_chars="strip")).spans] == [(2, 5, "N")]


# --- BRAT ---------------------------------------------------------------------------------------------------------

def brat(tmp_path: Path, ann: str, text: str = f"Paciente {SECRET} ingresa.\n") -> Path:
    (tmp_path / "d.txt").write_text(text, encoding="utf-8")
    (tmp_path / "d.ann").write_text(ann, encoding="utf-8")
    return tmp_path / "d.ann"


def test_brat_offsets_past_text(tmp_path: Path) -> None:
    ann = brat(tmp_path, f"T1\tNAME 9 26\t{SECRET}\nT2\tNAME 30 90\t{SECRET}\n")
    err = check(only(tmp_path), ann, line=2, offset=30)
    assert "past the text" in err.reason and "length 36" in err.reason


def test_brat_span_text_mismatch(tmp_path: Path) -> None:
    ann = brat(tmp_path, f"T1\tNAME 10 27\t{SECRET}\n")
    err = check(only(tmp_path), ann, line=1, offset=10)
    assert "10 27" in err.reason
    assert [s.key for s in next(cio.read(tmp_path, check_text=False)).spans] == [(10, 27, "NAME")]


def test_brat_unknown_label(tmp_path: Path) -> None:
    ann = brat(tmp_path, f"T1\tNOMBRE_SUJETO_ASISTENCIA 9 26\t{SECRET}\nT2\tPERSONA 9 16\tZebulon\n")
    err = check(only(tmp_path, scheme="meddocan"), ann, line=2)
    assert "'PERSONA'" in err.reason and "meddocan" in err.reason
    assert len(next(cio.read(tmp_path)).spans) == 2  # no scheme: any label


def test_brat_discontinuous_error_and_other_lines(tmp_path: Path) -> None:
    ann = brat(tmp_path, f"T1\tNAME 9 16;17 26\t{SECRET}\nA1\tNegated T1\nR1\tRel Arg1:T1 Arg2:T1\n"
                         f"E1\tEv:T1\nN1\tReference T1 Wiki:1\t{SECRET}\n#1\tAnnotatorNotes T1\t{SECRET}\n")
    stats = cio.ReadStats()
    doc = next(cio.read(tmp_path, stats=stats))
    assert [s.key for s in doc.spans] == [(9, 16, "NAME"), (17, 26, "NAME")]
    assert stats.discontinuous_spans == 1 and sum(stats.ignored_lines.values()) == 5
    check(only(tmp_path, discontinuous="error"), ann, line=1, offset=9)


def test_brat_malformed_lines(tmp_path: Path) -> None:
    for line in (f"T1\tNAME nine 26\t{SECRET}", f"T1 NAME 9 26 {SECRET}", f"X1\t{SECRET}", f"T1\tNAME 26 9\t{SECRET}"):
        ann = brat(tmp_path, f"\n{line}\n")
        check(only(tmp_path), ann, line=2)


def test_brat_ann_past_empty_text_and_missing_txt(tmp_path: Path) -> None:
    ann = brat(tmp_path, "T1\tNAME 0 3\tabc\n", text="")
    check(only(tmp_path), ann, line=1, offset=0)
    (tmp_path / "d.txt").unlink()
    check(only(tmp_path), ann)


# --- XML --------------------------------------------------------------------------------------------------------

def test_malformed_xml(tmp_path: Path) -> None:
    p = tmp_path / "d.xml"
    p.write_text(f"<deIdi2b2>\n<TEXT><![CDATA[{SECRET}]]></TEXT>\n<TAGS>\n<NAME start='1' end='2'>\n</TAGS>\n"
                 "</deIdi2b2>", encoding="utf-8")
    err = check(only(p), p, line=5)
    assert "malformed XML" in err.reason and "mismatched tag" in err.reason and "column 3" in err.reason


def test_xml_dtd_refused(tmp_path: Path) -> None:
    p = tmp_path / "d.xml"
    p.write_text(f'<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY a "{SECRET}">]>\n<r><TEXT>&a;</TEXT></r>',
                 encoding="utf-8")
    assert "DTD" in check(only(p), p, line=2).reason


def test_xml_structure_errors(tmp_path: Path) -> None:
    p = tmp_path / "d.xml"
    text = f"<![CDATA[Paciente {SECRET}.]]>"
    cases = {
        "<TAGS/>": None,
        '<TAGS>\n<NAME end="3" TYPE="P"/></TAGS>': 2,
        '<TAGS>\n\n<NAME start="9" end="99" TYPE="P"/></TAGS>': 3,
        f'<TAGS>\n<NAME start="10" end="26" text="{SECRET}" TYPE="P"/></TAGS>': 2,
        '<TAGS>\n<NAME start="a" end="3"/></TAGS>': 2,
    }
    for tags, line in cases.items():
        body = f"<deIdi2b2>{'' if line is None else '<TEXT>' + text + '</TEXT>'}{tags}</deIdi2b2>"
        p.write_text(body, encoding="utf-8")
        check(only(p), p, line=line)


def test_xml_control_character_is_malformed(tmp_path: Path) -> None:
    p = tmp_path / "d.xml"
    p.write_text(f"<r>\n<TEXT>{SECRET}\x00</TEXT></r>", encoding="utf-8")
    check(only(p), p, line=2)


# --- JSONL / CSV / presidio --------------------------------------------------------------------------------------

def test_jsonl_bad_lines(tmp_path: Path) -> None:
    p = tmp_path / "a.jsonl"
    lines = [
        {"id": "ok", "text": SECRET},
        f'{{"id": "x", "text": "{SECRET}"',  # truncated
        {"id": "y"},  # no text
        {"id": "z", "text": SECRET, "spans": [{"start": 0, "end": 99, "label": "N"}]},
        {"id": "w", "text": SECRET, "spans": [{"start": 0, "label": "N"}]},
        [SECRET],
        {"id": "v", "text": SECRET, "meta": SECRET},
    ]
    p.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    recs = list(cio.iter_records(p))
    assert isinstance(recs[0], Document) and len(recs) == len(lines)
    for i, rec in enumerate(recs[1:], 2):
        check(rec, p, line=i)


def test_csv_wrong_cells_and_missing_column(tmp_path: Path) -> None:
    p = tmp_path / "a.csv"
    p.write_text(f'id,text\n1,"{SECRET}\n{SECRET}"\n2,{SECRET},extra\n3,ok\n', encoding="utf-8")
    recs = list(cio.iter_records(p))
    assert [type(r).__name__ for r in recs] == ["Document", "InputError", "Document"]
    assert "3 cells" in check(recs[1], p, line=4).reason
    q = tmp_path / "b.csv"
    q.write_text(f"id,body\n1,{SECRET}\n", encoding="utf-8")
    check(only(q), q, line=1)
    r = tmp_path / "c.csv"
    r.write_text(f'id,text,spans\n1,{SECRET},"[{{""start"": 0}}]"\n', encoding="utf-8")
    check(only(r), r, line=2)


def test_presidio_bad_records(tmp_path: Path) -> None:
    p = tmp_path / "a.json"
    recs = [
        {"full_text": SECRET, "spans": [{"entity_type": "P", "entity_value": "Zebulon", "start_position": 0,
                                         "end_position": 7}]},
        {"full_text": SECRET, "spans": [{"entity_type": "P", "entity_value": "Quixtable", "start_position": 0,
                                         "end_position": 7}]},
        {"spans": []},
        {"full_text": SECRET, "spans": [{"entity_type": "P", "start_position": 3, "end_position": 99}]},
    ]
    p.write_text("[\n" + ",\n".join(json.dumps(r) for r in recs) + "\n]\n", encoding="utf-8")
    out = list(cio.iter_records(p))
    assert isinstance(out[0], Document) and out[0].spans == (Span(0, 7, "P"),)
    for i, rec in enumerate(out[1:], 3):
        check(rec, p, line=i)
    q = tmp_path / "b.json"
    q.write_text(f'[\n{{"full_text": "{SECRET}"}},\n{{"full_text": \n', encoding="utf-8")
    out = list(cio.iter_records(q))
    assert isinstance(out[0], Document)
    check(out[1], q, line=4)
    r = tmp_path / "c.json"
    r.write_text(json.dumps({"full_text": SECRET}), encoding="utf-8")
    check(only(r), r, line=1)


# --- batch behaviour -----------------------------------------------------------------------------------------------

def test_iter_records_goes_on_after_bad_documents(tmp_path: Path) -> None:
    for name, data in (("a", b"fine"), ("b", b"bad \xff " + S), ("c", b"ok"), ("d", S + b"\x00")):
        (tmp_path / f"{name}.txt").write_bytes(data)
    recs = list(cio.iter_records(tmp_path))
    assert [(type(r).__name__, r.id if isinstance(r, Document) else r.doc_id) for r in recs] == [
        ("Document", "a"), ("InputError", "b"), ("Document", "c"), ("InputError", "d")]
    check(recs[1], tmp_path / "b.txt", line=1, offset=4)
    check(recs[3], tmp_path / "d.txt", line=1, offset=len(SECRET))
    docs = cio.read(tmp_path)
    assert next(docs).id == "a"
    with pytest.raises(InputError):
        next(docs)


def test_unreadable_path_is_one_error(tmp_path: Path) -> None:
    for fmt in ("text", "brat", "xml", "jsonl", "csv", "presidio"):
        rec = list(cio.iter_records(tmp_path / "missing.x", fmt))
        assert len(rec) == 1 and isinstance(rec[0], InputError), fmt


# --- size ----------------------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_50mb_single_document(tmp_path: Path) -> None:
    """~50 MB in one document: BRAT, JSONL and XML read it in linear time (about 0.4 s, 1.1 s, 0.8 s here)."""
    unit = "Paciente de 70 años, NHC 368503.\tControl\r\n"
    text = unit * (50_000_000 // len(unit.encode()))
    age_at = len(text) - len(unit) + 12
    (tmp_path / "big").mkdir()
    (tmp_path / "big" / "d.txt").write_text(text, encoding="utf-8", newline="")
    (tmp_path / "big" / "d.ann").write_text(f"T1\tEDAD {age_at} {age_at + 7}\t70 años\n", encoding="utf-8")
    jl = tmp_path / "big.jsonl"
    jl.write_text(json.dumps({"id": "d", "text": text}, ensure_ascii=False) + "\n", encoding="utf-8")
    xml = tmp_path / "big.xml"
    xml.write_text(f"<r><TEXT><![CDATA[{text}]]></TEXT><TAGS/></r>", encoding="utf-8", newline="")
    for path, fmt, expected in ((tmp_path / "big", "brat", text), (jl, "jsonl", text),
                                (xml, "xml", text.replace("\r\n", "\n"))):  # XML parsers normalise line ends
        t0 = time.process_time()
        doc = next(cio.read(path, fmt))
        elapsed = time.process_time() - t0
        assert doc.text == expected and elapsed < 5, (fmt, elapsed)
        if fmt == "brat":
            assert [s.key for s in doc.spans] == [(age_at, age_at + 7, "EDAD")]
