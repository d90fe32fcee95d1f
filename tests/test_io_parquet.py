"""Parquet input and output (clinanon.io.parquet): round trip, other columns as metadata, bad rows in place,
folders of part files, bounded row groups, and the CLI / local engine from Parquet to Parquet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clinanon import io as cio
from clinanon.document import Document, Span
from clinanon.errors import InputError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def test_round_trip_keeps_text_spans_and_metadata(tmp_path: Path) -> None:
    docs = [Document("a", "Pt Ann Lee seen 4/16.", (Span(3, 10, "NAME", "gold", 1.0),), {"ward": "3B", "n": 2}),
            Document("b", "No PHI here.\r\nSecond line.", (), {}),
            Document("c", "Dr. Roe, 555-1234.", (Span(4, 7, "NAME"), Span(9, 17, "CONTACT")), {"tags": ["x"]})]
    out = tmp_path / "notes.parquet"
    cio.write(docs, out, "parquet")
    assert cio.detect_format(out) == "parquet"
    assert cio.count_documents(out) == 3
    back = list(cio.read(out))
    assert [d.id for d in back] == ["a", "b", "c"]
    assert [d.text for d in back] == [d.text for d in docs]  # CRLF kept
    assert [[s.key for s in d.spans] for d in back] == [[s.key for s in d.spans] for d in docs]
    assert back[0].meta == {"ward": "3B", "n": 2} and back[1].meta == {} and back[2].meta == {"tags": ["x"]}


def test_other_columns_are_metadata_and_bad_rows_come_in_place(tmp_path: Path) -> None:
    import datetime as dt

    table = pa.table({"note_id": ["n1", None, "n3"], "body": ["Seen by Dr. Roe.", "Second note.", None],
                      "patient": ["P1", "P1", "P2"], "visit": [dt.date(2024, 3, 1), None, dt.date(2024, 3, 2)],
                      "spans": ['[{"start": 12, "end": 15, "label": "NAME"}]', None, None]})
    src = tmp_path / "in.parquet"
    pq.write_table(table, src)
    recs = list(cio.iter_records(src, text_column="body", id_column="note_id"))
    assert isinstance(recs[2], InputError) and "row 3" in str(recs[2]) and "Second" not in str(recs[2])
    first, second = recs[0], recs[1]
    assert isinstance(first, Document) and isinstance(second, Document)
    assert first.id == "n1" and first.meta == {"patient": "P1", "visit": "2024-03-01"}
    assert [(s.start, s.end, s.label) for s in first.spans] == [(12, 15, "NAME")]
    assert second.id == "row-2" and second.meta == {"patient": "P1"}


def test_missing_text_column_is_an_error_that_names_the_option(tmp_path: Path) -> None:
    src = tmp_path / "in.parquet"
    pq.write_table(pa.table({"x": ["a"]}), src)
    with pytest.raises(InputError, match="text_column"):
        list(cio.read(src))


def test_a_folder_of_part_files_is_one_input(tmp_path: Path) -> None:
    folder = tmp_path / "parts.parquet"
    folder.mkdir()
    for k in range(3):
        pq.write_table(pa.table({"id": [f"d{k}{i}" for i in range(4)], "text": ["Note."] * 4}),
                       folder / f"part-{k:05d}.parquet")
    (folder / "_SUCCESS").write_text("")
    assert cio.detect_format(folder) == "parquet" and cio.count_documents(folder) == 12
    assert [d.id for d in cio.read(folder)][:5] == ["d00", "d01", "d02", "d03", "d10"]


def test_writer_streams_row_groups(tmp_path: Path) -> None:
    out = tmp_path / "big.parquet"
    cio.write((Document(f"d{i}", f"note {i}") for i in range(2500)), out, "parquet", row_group_size=1000)
    meta = pq.ParquetFile(out).metadata
    assert meta.num_rows == 2500 and meta.num_row_groups == 3
    assert not list(tmp_path.glob(".big.parquet.tmp-*"))  # the temporary file was renamed


def test_cli_deidentifies_parquet_to_parquet_with_workers(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from clinanon.cli import app

    texts = [f"Patient John Smith{i} was seen on 03/17/2024 by Dr. Mary Jones." for i in range(12)]
    src = tmp_path / "notes.parquet"
    pq.write_table(pa.table({"id": [f"n{i}" for i in range(12)], "text": texts, "ward": ["A"] * 12}), src)
    out = tmp_path / "out.parquet"
    res = CliRunner().invoke(app, ["deidentify", str(src), "--out", str(out), "--lang", "en", "--workers", "2",
                                   "--keep-field", "ward"])
    assert res.exit_code == 0, res.output
    rows = pq.read_table(out).to_pylist()
    assert len(rows) == 12
    for row, text in zip(rows, texts, strict=True):
        assert "Smith" not in row["text"] and "03/17/2024" not in row["text"]
        assert json.loads(row["meta"])["ward"] == "A"
        for r in json.loads(row["meta"])["replacements"]:  # offsets into the input text
            assert 0 <= r["start"] < r["end"] <= len(text)
