"""CSV / TSV with a text column (the ``csv`` module, no pandas; the field size limit is raised for big texts).

Reading options: ``text_column="text"`` (required column), ``id_column="id"`` (optional; without it, or when its
cell is empty, the id is ``row-<n>`` with ``n`` the 1-based data row), ``spans_column="spans"`` (optional; a JSON
list of ``{"start", "end", "label", "source"?, "score"?}`` as in JSONL), ``delimiter`` (default: tab for
``.tsv``, else comma). Every other column goes into the metadata as a string; empty cells are left out.
The file is streamed; a row with the wrong number of cells, bad spans or a control character in its text is an
error record (with the line where the row starts) and reading goes on; a file that cannot be decoded or parsed
stops there with one error record.

The writer writes ``id, text[, spans], <metadata keys in first-seen order>``. Metadata values that are strings
round-trip; other values are written as JSON and read back as strings. It keeps the documents in memory (the
header needs every metadata key).
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from clinanon.document import Document
from clinanon.errors import ConfigError, InputError
from clinanon.io.base import (
    FormatError,
    ReadStats,
    Record,
    atomic_open,
    check_read_options,
    clean_text,
    json_cell,
    make_document,
    open_text,
    spans_from_dicts,
)

__all__ = ["read_csv", "write_csv"]


def _raise_field_limit() -> None:
    limit = sys.maxsize
    while True:
        try:
            csv.field_size_limit(limit)
            return
        except OverflowError:
            limit //= 2


def _delimiter(path: Path, delimiter: str | None) -> str:
    if delimiter is None:
        return "\t" if path.suffix.lower() == ".tsv" else ","
    if len(delimiter) != 1:
        raise ConfigError(f"option delimiter={delimiter!r} must be one character")
    return delimiter


def read_csv(
    path: str | Path,
    *,
    encoding: str | None = None,
    errors: str = "strict",
    control_chars: str = "error",
    text_column: str = "text",
    id_column: str = "id",
    spans_column: str = "spans",
    delimiter: str | None = None,
    stats: ReadStats | None = None,
) -> Iterator[Record]:
    """Documents from the rows of a CSV/TSV file; a bad row yields an :class:`InputError` in its place."""
    check_read_options(encoding, errors, control_chars)
    p = Path(path)
    delim = _delimiter(p, delimiter)
    st = stats if stats is not None else ReadStats()
    _raise_field_limit()
    return _read(p, encoding, errors, control_chars, text_column, id_column, spans_column, delim, st)


def _read(path: Path, encoding: str | None, errors: str, control_chars: str, text_column: str, id_column: str,
          spans_column: str, delim: str, st: ReadStats) -> Iterator[Record]:
    try:
        f = open_text(path, encoding=encoding, errors=errors)
    except InputError as e:
        yield st.count(e)
        return
    with f:
        reader = csv.reader(f, delimiter=delim, strict=True)
        prev_line = 0
        try:
            header = next(reader, None)
            if header is None:
                return
            if text_column not in header:
                yield st.count(InputError(f"no column {text_column!r} (reader option text_column=...; command "
                                          f"line: -O text_column=...); the header has {len(header)} columns",
                                          path=path, line=1))
                return
            if len(set(header)) != len(header):
                yield st.count(InputError("the header names a column twice", path=path, line=1))
                return
            ti = header.index(text_column)
            ii = header.index(id_column) if id_column in header else None
            si = header.index(spans_column) if spans_column in header else None
            meta_cols = [(i, h) for i, h in enumerate(header) if i not in (ti, ii, si)]
            prev_line, n = reader.line_num, 0
            for row in reader:
                line, prev_line = prev_line + 1, reader.line_num
                if not row:
                    continue
                n += 1
                try:
                    record: Record = _row(row, n, line, header, ti, ii, si, meta_cols, spans_column, path,
                                          control_chars, errors, st)
                except InputError as e:
                    record = e
                yield st.count(record, path=path, line=line)
        except InputError as e:  # undecodable bytes (from the stream)
            yield st.count(InputError(f"{e.reason}; reading stopped: no row after line {prev_line} was read",
                                      path=path, line=e.line, offset=e.offset))
        except csv.Error as e:
            yield st.count(InputError(f"malformed CSV: {e}; reading stopped: no row after line {prev_line} was "
                                      "read", path=path, line=reader.line_num))


def _row(row: list[str], n: int, line: int, header: list[str], ti: int, ii: int | None, si: int | None,
         meta_cols: list[tuple[int, str]], spans_column: str, path: Path, control_chars: str, errors: str,
         st: ReadStats) -> Document:
    if len(row) != len(header):
        raise InputError(f"row {n} has {len(row)} cells, the header has {len(header)}", path=path, line=line)
    doc_id = row[ii] if ii is not None and row[ii] else f"row-{n}"
    src = clean_text(row[ti], control_chars, path=path, line=line, doc_id=doc_id, stats=st)
    spans = []
    if si is not None and row[si].strip():
        items = json_cell(row[si], spans_column, n, path=path, line=line)
        spans = spans_from_dicts(items, src, path=path, line=line, stats=st)
    meta = {h: row[i] for i, h in meta_cols if row[i] != ""}
    return make_document(doc_id, src.text, spans, meta, path=path, line=line, errors=errors, stats=st)


def _cell(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, allow_nan=False)


def write_csv(
    docs: Iterable[Document],
    path: str | Path,
    *,
    text_column: str = "text",
    id_column: str = "id",
    spans_column: str = "spans",
    delimiter: str | None = None,
) -> None:
    """Write one row per document (atomically); the spans column only when some document has spans."""
    p = Path(path)
    delim = _delimiter(p, delimiter)
    items = list(docs)
    base = [id_column, text_column]
    with_spans = any(d.spans for d in items)
    if with_spans:
        base.append(spans_column)
    if len(set(base)) != len(base):
        raise ConfigError("the id, text and spans columns need distinct names")
    keys: dict[str, None] = {}
    for d in items:
        for k in d.meta:
            if k in base:
                raise FormatError(f"document {d.id!r}: metadata key {k!r} clashes with a column name")
            keys.setdefault(k, None)
    with atomic_open(p) as f:
        w = csv.writer(f, delimiter=delim, lineterminator="\r\n")
        w.writerow([*base, *keys])
        for d in items:
            row = [d.id, d.text]
            if with_spans:
                row.append(json.dumps([s.to_dict() for s in d.spans], ensure_ascii=False) if d.spans else "")
            try:
                row.extend(_cell(d.meta[k]) if k in d.meta else "" for k in keys)
            except (TypeError, ValueError):
                raise FormatError(f"document {d.id!r}: metadata is not JSON-serialisable") from None
            w.writerow(row)
