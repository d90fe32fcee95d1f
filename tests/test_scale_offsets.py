"""Offsets true to the file (issue 17): through ``clinanon detect`` / ``deidentify`` (the CLI), every offset written
in a BRAT ``.ann`` or a JSONL output refers to the file on disk as decoded -- a byte-order mark counted as one
character (the MEDDOCAN / brat convention), CRLF as two, a kept NUL or other control character as one."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinanon import io as cio
from clinanon.cli import app

runner = CliRunner()

NOTE = ("Paciente: Juan García López, 45 años.\r\n"
        "Natural de Madrid. Ingresa el 12/03/2019 en el Hospital Universitario La Paz.\r\n"
        "Contacto: juan.garcia@gmail.com, teléfono 912 345 678.\r\n")
CTRL = "Nota\x00 de ingreso\x01.\r\n" + NOTE


def _files(folder: Path) -> dict[str, str]:
    """Writes the input files and returns each one *as decoded* (the mark kept as U+FEFF): what offsets count."""
    folder.mkdir()
    raw = {"bom": codecs.BOM_UTF8 + NOTE.encode(), "crlf": NOTE.encode(), "ctrl": CTRL.encode(),
           "utf16": codecs.BOM_UTF16_LE + NOTE.encode("utf-16-le")}
    for name, data in raw.items():
        (folder / f"{name}.txt").write_bytes(data)
    return {"bom": "\ufeff" + NOTE, "crlf": NOTE, "ctrl": CTRL, "utf16": "\ufeff" + NOTE}


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "clinanon.toml"
    path.write_text('language = "es"\n[detectors]\nuse = ["rules"]\n', encoding="utf-8")
    return path


def _run(*args: str) -> None:
    result = runner.invoke(app, [*args, "-O", "control_chars=keep"])
    assert result.exit_code == 0, result.output
    assert "0 errors" in result.output, result.output


def _ann(path: Path) -> list[tuple[str, int, int, str]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        _, field, text = line.split("\t")
        label, start, end = field.split(" ")
        out.append((label, int(start), int(end), text))
    return out


def test_detect_brat_and_jsonl_offsets_are_those_of_the_input_files(tmp_path: Path, config: Path) -> None:
    decoded = _files(tmp_path / "in")
    _run("detect", str(tmp_path / "in"), "-o", str(tmp_path / "brat"), "--out-format", "brat", "-c", str(config))
    _run("detect", str(tmp_path / "in"), "-o", str(tmp_path / "o.jsonl"), "-c", str(config))
    found: dict[str, list[tuple[str, int, int]]] = {}
    for name, text in decoded.items():
        # the .txt written is the input as decoded (the mark written back as UTF-8), byte for byte where UTF-8
        assert (tmp_path / "brat" / f"{name}.txt").read_bytes().decode("utf-8") == text
        if name != "utf16":
            assert (tmp_path / "brat" / f"{name}.txt").read_bytes() == (tmp_path / "in" / f"{name}.txt").read_bytes()
        spans = _ann(tmp_path / "brat" / f"{name}.ann")
        assert len(spans) >= 4, name  # the name, the city, the date, the e-mail at least
        for _, start, end, span_text in spans:
            assert text[start:end] == span_text, (name, start, end)
        found[name] = [(label, start, end) for label, start, end, _ in spans]
    # the same note with and without a mark: the same spans, one character further
    assert found["bom"] == [(label, s + 1, e + 1) for label, s, e in found["crlf"]] == found["utf16"]
    assert "Juan García López" in [decoded["bom"][s:e] for _, s, e in found["bom"]]
    assert "Juan García López" in [decoded["ctrl"][s:e] for _, s, e in found["ctrl"]]  # after the NUL and U+0001
    jsonl = {d["id"]: d for d in map(json.loads, (tmp_path / "o.jsonl").read_text(encoding="utf-8").splitlines())}
    for name, text in decoded.items():
        assert jsonl[name]["text"] == text
        assert [(s["label"], s["start"], s["end"]) for s in jsonl[name]["spans"]] == found[name]


def test_deidentify_replacements_point_into_the_input_file(tmp_path: Path, config: Path) -> None:
    decoded = _files(tmp_path / "in")
    _run("deidentify", str(tmp_path / "in"), "-o", str(tmp_path / "o.jsonl"), "-c", str(config), "--ids", "keep")
    _run("deidentify", str(tmp_path / "in"), "-o", str(tmp_path / "brat"), "--out-format", "brat", "-c", str(config),
         "--ids", "keep")
    outs = {d["id"]: d for d in map(json.loads, (tmp_path / "o.jsonl").read_text(encoding="utf-8").splitlines())}
    assert set(outs) == set(decoded)
    for name, text in decoded.items():
        out = outs[name]
        reps = out["meta"]["replacements"]
        assert len(reps) >= 4 and "García" not in out["text"] and "912 345 678" not in out["text"]
        # the replacements, applied to the file as decoded at their offsets, give the output text exactly
        rebuilt, pos = [], 0
        for r in reps:
            rebuilt += [text[pos:r["start"]], out["text"][r["out_start"]:r["out_end"]]]
            pos = r["end"]
        assert "".join([*rebuilt, text[pos:]]) == out["text"]
        assert text[reps[0]["start"]:reps[0]["end"]] == "Juan García López"
        # BRAT: the output .txt keeps the mark, and its .ann counts it
        written = (tmp_path / "brat" / f"{name}.txt").read_bytes().decode("utf-8")
        assert written == out["text"] and written.startswith("\ufeff") == text.startswith("\ufeff")
        spans = _ann(tmp_path / "brat" / f"{name}.ann")
        assert [(s, e) for _, s, e, _ in spans] == [(r["out_start"], r["out_end"]) for r in reps]
        assert all(written[s:e] == t for _, s, e, t in spans)


def test_stripping_is_explicit_and_then_true_to_the_output(tmp_path: Path, config: Path) -> None:
    """``-O bom=strip`` / ``control_chars=strip``: the output text lacks what was stripped, and its offsets are
    those of the output files (the behaviour before, on request)."""
    decoded = _files(tmp_path / "in")
    result = runner.invoke(app, ["detect", str(tmp_path / "in"), "-o", str(tmp_path / "brat"), "--out-format",
                                 "brat", "-c", str(config), "-O", "bom=strip", "-O", "control_chars=strip"])
    assert result.exit_code == 0, result.output
    for name in decoded:
        text = (tmp_path / "brat" / f"{name}.txt").read_bytes().decode("utf-8")
        assert not text.startswith("\ufeff") and "\x00" not in text and "\x01" not in text
        assert all(text[s:e] == t for _, s, e, t in _ann(tmp_path / "brat" / f"{name}.ann"))


def test_library_readers_and_writers_keep_the_mark_on_request(tmp_path: Path) -> None:
    decoded = _files(tmp_path / "in")
    (tmp_path / "in" / "bom.ann").write_text("T1\tNAME 11 28\tJuan García López\n", encoding="utf-8")
    stats = cio.ReadStats()
    docs = {d.id: d for d in cio.read(tmp_path / "in", "brat", bom="keep", control_chars="keep", stats=stats)}
    assert stats.boms_stripped == 0 and {k: d.text for k, d in docs.items()} == decoded
    assert [s.key for s in docs["bom"].spans] == [(11, 28, "NAME")]
    for fmt in ("brat", "text", "xml"):
        docs_ = [d for d in docs.values() if fmt != "xml" or d.id != "ctrl"]  # XML cannot hold a NUL
        cio.write(docs_, tmp_path / fmt, fmt, bom="keep")
        assert [d.text for d in cio.read(tmp_path / fmt, fmt, bom="keep", control_chars="keep")] == \
            [d.text for d in docs_]
    assert (tmp_path / "brat" / "bom.txt").read_bytes() == (tmp_path / "in" / "bom.txt").read_bytes()
    assert (tmp_path / "brat" / "bom.ann").read_text(encoding="utf-8") == "T1\tNAME 11 28\tJuan García López\n"
    # the default is unchanged: the mark stripped, offsets mapped, and one more mark written for a text with one
    [plain] = [d for d in cio.read(tmp_path / "in", "brat", control_chars="keep") if d.id == "bom"]
    assert plain.text == NOTE and [s.key for s in plain.spans] == [(10, 27, "NAME")]
    cio.write([docs["bom"]], tmp_path / "default", "brat")
    assert (tmp_path / "default" / "bom.txt").read_bytes().startswith(codecs.BOM_UTF8 * 2)
    with pytest.raises(Exception, match="bom"):
        list(cio.read(tmp_path / "in", "brat", bom="drop"))
