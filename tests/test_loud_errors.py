"""Issue 15, finding 7: errors that should be loud are loud, and one bad line never stops a run."""

from __future__ import annotations

import codecs
import inspect
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinanon import io as cio
from clinanon.batch import journal_path
from clinanon.cli import app
from clinanon.detect.rules import identifiers as ids
from clinanon.document import Document, Span
from clinanon.errors import InputError
from clinanon.evaluate import EvaluationConfigError, evaluate
from clinanon.pipeline import Pipeline

runner = CliRunner()
TEXT = "Paciente Eustaquio Ribera ingresó el 03/04/2020."


@pytest.fixture()
def rules_config(tmp_path: Path) -> Path:
    path = tmp_path / "rules.toml"
    path.write_text('language = "es"\n[detectors]\nuse = ["rules"]\n', encoding="utf-8")
    return path


# --- evaluate: labels of two schemes ------------------------------------------------------------------------

@pytest.fixture()
def meddocan_gold(tmp_path: Path) -> Path:
    doc = Document("n1", TEXT, (Span(19, 25, "NOMBRE_SUJETO_ASISTENCIA"), Span(37, 47, "FECHAS")))
    path = tmp_path / "gold.jsonl"
    cio.write([doc], path, "jsonl")
    return path


def test_evaluate_with_a_config_in_another_scheme_fails_and_names_the_fix(meddocan_gold: Path,
                                                                          rules_config: Path) -> None:
    result = runner.invoke(app, ["evaluate", "--gold", str(meddocan_gold), "--config", str(rules_config), "--json"])
    assert result.exit_code == 2
    message = " ".join(result.output.split())
    assert "none in common" in message and "--scheme meddocan" in message and "0.0" in message
    fixed = runner.invoke(app, ["evaluate", "--gold", str(meddocan_gold), "--config", str(rules_config), "--json",
                                "--scheme", "meddocan"])
    assert fixed.exit_code == 0, fixed.output
    assert json.loads(fixed.stdout)["measures"]["entity_exact"]["micro"]["f1"] > 0.0  # labels now comparable


def test_evaluate_library_refuses_disjoint_labels_unless_told() -> None:
    gold = [Document("d", TEXT, (Span(37, 47, "FECHAS"),))]
    pred = [Document("d", TEXT, (Span(37, 47, "DATE"),))]
    with pytest.raises(EvaluationConfigError, match="'meddocan'"):
        evaluate(gold, pred)
    assert evaluate(gold, pred, check_labels=False).entity_exact.f1 == 0.0
    assert evaluate(gold, pred, scheme="meddocan", label_map="canonical").entity_exact.f1 == 1.0
    wrong = [Document("d", TEXT, (Span(0, 8, "DATE"),))]  # no overlap: just a wrong prediction, no error
    assert evaluate(gold, wrong, check_labels=True).entity_exact.f1 == 0.0


# --- one bad line is one error record -----------------------------------------------------------------------

def _jsonl_with_bad_lines(path: Path) -> None:
    good = [json.dumps({"id": f"ok{i}", "text": f"nota {i}"}).encode() for i in range(3)]
    lines = [good[0],
             b'{"id": "s", "text": "lone \\ud800 surrogate"}',  # valid JSON, not valid Unicode
             b'{"id": "u", "text": "caf\xe9"}',  # Latin-1 byte
             b'{"id": "j", "text": ',  # truncated JSON
             good[1],
             b'{"id": "n", "text": "x", "meta": {"n": ' + b"9" * 5000 + b"}}",  # an int Python will not convert
             b"[" * 100_000 + b"]" * 100_000,  # nesting deeper than the parser's recursion limit
             b'{"id": "m", "text": "x", "meta": {"k": "\\udc80"}}',  # a lone surrogate in the metadata
             good[2]]
    path.write_bytes(b"\n".join(lines) + b"\n")


def test_every_bad_line_is_an_error_record_and_the_run_goes_on(tmp_path: Path, rules_config: Path) -> None:
    src = tmp_path / "in.jsonl"
    _jsonl_with_bad_lines(src)
    out = tmp_path / "out.jsonl"
    result = runner.invoke(app, ["deidentify", str(src), "--out", str(out), "--config", str(rules_config)])
    assert result.exit_code == 1, result.output  # errors reported, not a crash
    assert "3 processed, 0 resumed, 6 errors" in result.output
    assert len(list(cio.read(out))) == 3 and not journal_path(out).exists()
    errors = [json.loads(x) for x in (tmp_path / "out.jsonl.errors.jsonl").read_text().splitlines()]
    assert [e["line"] for e in errors] == [2, 3, 4, 6, 7, 8]
    assert "lone surrogate" in errors[0]["reason"] and "errors=replace" in errors[0]["reason"]
    assert "-O errors=replace" in errors[1]["reason"]


def test_a_lone_surrogate_is_one_error_record_not_a_crash_and_a_partial_file(tmp_path: Path,
                                                                             rules_config: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_bytes(b'{"id": "s", "text": "lone \\ud800 surrogate"}\n{"id": "ok", "text": "hola"}\n')
    out = tmp_path / "out.jsonl"
    result = runner.invoke(app, ["deidentify", str(src), "--out", str(out), "--config", str(rules_config)])
    assert result.exit_code == 1, result.exception  # the errors exit code, not a traceback
    assert "1 processed, 0 resumed, 1 errors" in result.output
    assert [d.text for d in cio.read(out)] == ["hola"] and not journal_path(out).exists()


def test_an_output_that_cannot_be_written_is_an_error_record(tmp_path: Path) -> None:
    from clinanon.batch import run_batch

    src = tmp_path / "in.jsonl"
    cio.write([Document("a", "uno"), Document("b", "dos")], src, "jsonl")

    def broken(doc: Document) -> Document:  # a processor that lets a lone surrogate through
        return Document(doc.id, doc.text + ("\ud800" if doc.id == "a" else ""))

    out = tmp_path / "o.jsonl"
    result = run_batch(cio.iter_records(src), lambda: broken, out, "jsonl")
    assert (result.processed, result.errors) == (1, 1)
    [err] = [json.loads(x) for x in result.errors_path.read_text().splitlines()]
    assert err["record"] == 1 and "lone surrogate" in err["reason"]
    assert [d.id for d in cio.read(out)] == ["b"]


def test_lone_surrogates_become_replacement_characters_on_request(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_bytes(b'{"id": "s", "text": "lone \\ud800 surrogate"}\n')
    stats = cio.ReadStats()
    [doc] = list(cio.read(src, errors="replace", stats=stats))
    assert doc.text == "lone \ufffd surrogate" and stats.surrogates_replaced == 1


# --- flags named as they are --------------------------------------------------------------------------------

def test_keygen_names_its_real_flag(tmp_path: Path) -> None:
    key = tmp_path / "k.key"
    assert runner.invoke(app, ["keygen", str(key)]).exit_code == 0
    before = key.read_bytes()
    again = runner.invoke(app, ["keygen", str(key)])
    assert again.exit_code == 2 and "--force" in again.output and "pass overwrite" not in again.output
    assert key.read_bytes() == before
    assert runner.invoke(app, ["keygen", str(key), "--force"]).exit_code == 0 and key.read_bytes() != before


def test_unknown_read_option_is_a_clear_error(tmp_path: Path, rules_config: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "a", "text": "hola"}) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["deidentify", str(src), "--out", str(tmp_path / "o.jsonl"), "--config",
                                 str(rules_config), "-O", "check_txt=false"])
    assert result.exit_code == 2 and "check_txt" in result.output and "clinanon formats" in result.output


def test_formats_lists_every_reader_option() -> None:
    result = runner.invoke(app, ["formats"])
    assert result.exit_code == 0
    for name, fmt in cio.FORMATS.items():
        options = cio.reader_options(name)
        keywords = [p for p in inspect.signature(fmt.reader).parameters.values()
                    if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name != "stats"]
        assert [o.name for o in options] == [p.name for p in keywords]
        assert all(o.help for o in options), name
        for o in options:
            assert o.name in result.stdout
    assert "bad_ann" in result.stdout and "text_column" in result.stdout


# --- --overwrite starts again -------------------------------------------------------------------------------

def test_overwrite_removes_what_a_killed_run_left(tmp_path: Path, rules_config: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": f"d{i}", "text": f"nota {i}"}) + "\n" for i in range(3)),
                   encoding="utf-8")
    out = tmp_path / "o.jsonl"
    journal = journal_path(out)
    journal.write_text('{"key": "rec:1:record-000001", "ok": {"id": "rec', encoding="utf-8")  # killed mid-line
    leftover_dir, leftover_file = tmp_path / ".o.jsonl.k3x9_a0q", tmp_path / ".o.jsonl.errors.jsonl.zz81ab0c"
    leftover_dir.mkdir()
    (leftover_dir / "o.jsonl").write_text("half", encoding="utf-8")
    leftover_file.write_text("half", encoding="utf-8")
    unrelated = tmp_path / ".o.jsonl.swp"
    unrelated.write_text("an editor's", encoding="utf-8")
    args = ["deidentify", str(src), "--out", str(out), "--config", str(rules_config)]
    refused = runner.invoke(app, args)
    assert refused.exit_code == 2 and "--resume" in refused.output and "--overwrite" in refused.output
    result = runner.invoke(app, [*args, "--overwrite"])
    assert result.exit_code == 0, result.output
    assert len(list(cio.read(out))) == 3
    assert not journal.exists() and not leftover_dir.exists() and not leftover_file.exists()
    assert unrelated.exists()


# --- a bad .ann does not block de-identification ------------------------------------------------------------

def test_a_bad_ann_does_not_block_deidentify(tmp_path: Path, rules_config: Path,
                                             caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / "brat"
    folder.mkdir()
    for stem in ("a", "b"):
        (folder / f"{stem}.txt").write_text(TEXT, encoding="utf-8")
    (folder / "a.ann").write_text("T1\tFECHAS 37 47\t03/04/2020\n", encoding="utf-8")
    (folder / "b.ann").write_text("T1\tFECHAS 37 47\tsomething else\nnot an annotation line\n", encoding="utf-8")
    out = tmp_path / "deid.jsonl"
    result = runner.invoke(app, ["deidentify", str(folder), "--out", str(out), "--config", str(rules_config)])
    assert result.exit_code == 0, result.output
    assert "2 processed, 0 resumed, 0 errors" in result.output and "1 .ann file(s)" in result.output
    assert all("[DATE]" in d.text for d in cio.read(out))
    assert any("b.ann" in r.getMessage() and "something else" not in r.getMessage() for r in caplog.records)
    with pytest.raises(InputError, match=r"b\.ann"):  # where gold is needed, it is still an error
        list(cio.read(folder))


# --- UTF-16 and UTF-32 ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("codec,bom", [("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE),
                                       ("utf-32-le", codecs.BOM_UTF32_LE), ("utf-32-be", codecs.BOM_UTF32_BE)])
def test_files_with_a_utf16_or_utf32_bom_are_read(tmp_path: Path, codec: str, bom: bytes) -> None:
    text = "Niño con fiebre\r\nsegunda línea"
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "a.txt").write_bytes(bom + text.encode(codec))
    [doc] = list(cio.read(tmp_path / "t"))
    assert doc.text == text
    # BRAT: the offsets count the BOM as one character, as they do for a UTF-8 BOM
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "a.txt").write_bytes(bom + text.encode(codec))
    (tmp_path / "b" / "a.ann").write_bytes(bom + "T1\tX 1 5\tNiño\n".encode(codec))
    [doc] = list(cio.read(tmp_path / "b"))
    assert [doc.span_text(s) for s in doc.spans] == ["Niño"]
    rows = [{"id": "a", "text": text}, {"id": "b", "text": "dos"}]
    jsonl = tmp_path / "a.jsonl"
    jsonl.write_bytes(bom + "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode(codec))
    assert [d.text for d in cio.read(jsonl)] == [text, "dos"]
    table = tmp_path / "a.csv"
    table.write_bytes(bom + 'id,text\r\na,"Niño"\r\n'.encode(codec))
    assert [d.text for d in cio.read(table)] == ["Niño"]


def test_a_utf8_bom_still_counts_in_brat_offsets(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(codecs.BOM_UTF8 + "Niño".encode())
    (tmp_path / "a.ann").write_text("T1\tX 1 5\tNiño\n", encoding="utf-8")
    [doc] = list(cio.read(tmp_path))
    assert doc.text == "Niño" and [(s.start, s.end) for s in doc.spans] == [(0, 4)]


# --- long identifiers ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang,text,value", [
    ("en", "MRN: " + "1234567890" * 4 + " seen today.", "1234567890" * 4),
    ("es", "NHC: " + "9" * 45 + ".", "9" * 45),
    ("en", "Accession 4829104738291 pending.", "4829104738291"),
    ("en", "Specimen " + "7" * 100 + " received.", "7" * 100),
    ("de", "Probe AB12345678901234 eingegangen.", "AB12345678901234"),
])
def test_long_identifiers_are_masked(lang: str, text: str, value: str) -> None:
    nlp = Pipeline.from_config(language=lang, detectors={"use": ["rules"]})
    out = nlp.deidentify(Document("d", text))
    assert value not in out.text
    assert [text[r.start:r.end] for r in out.replacements] == [value]


@pytest.mark.parametrize("text", [
    "Glucose 5.1234567890123 mmol/L",  # a fraction, however long
    "Dose 1234567890123.5 units",  # the integer part of a decimal
    "Result 123456789012 (12 digits)",  # below 13 digits: left to the other rules
])
def test_long_number_recognizer_skips_numbers_that_are_not_ids(text: str) -> None:
    assert ids.LongNumberRecognizer("en").analyze(text) == []


def test_long_number_recognizer_leaves_payment_cards_to_the_checksum() -> None:
    text = "Card 4111111111111111, ref 4111111111111112."
    spans = ids.LongNumberRecognizer("en").analyze(text)
    assert [text[s.start:s.end] for s in spans] == ["4111111111111112"]
