"""Apache Parquet: one row per document (``pip install "clinanon[parquet]"``: pyarrow).

Reading streams record batches (``batch_size`` rows at a time), so memory does not grow with the file: the text
column, an id column (else ``row-<n>``), a spans column (a JSON string as in CSV, or a list of structs with
``start``/``end``/``label``), a ``meta`` column (a JSON object or a struct: its fields become the document's
metadata) and every other column as metadata (dates and times as ISO strings; nulls left out). A path may be one
``.parquet`` file or a folder of them (Spark writes a folder of part files), read in name order.

Writing streams too: row groups of ``row_group_size`` documents, columns ``id``, ``text``, ``spans`` (JSON, empty
when a document has none) and ``meta`` (the metadata as one JSON object, so that documents with different fields
share one schema), into a temporary file renamed over ``path`` at the end (atomic).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from clinanon.document import Document
from clinanon.errors import ConfigError, InputError
from clinanon.io.base import (
    FormatError,
    ReadStats,
    Record,
    check_read_options,
    clean_text,
    json_cell,
    make_document,
    spans_from_dicts,
)

__all__ = ["count_rows", "read_parquet", "write_parquet"]


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ConfigError('Parquet needs pyarrow: pip install "clinanon[parquet]"') from None
    return pa, pq


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.suffix.lower() in (".parquet", ".pq") and p.is_file())
    return [path]


def count_rows(path: str | Path) -> int | None:
    """The rows of a Parquet file or folder from the files' metadata (a progress bar's total), or ``None`` when
    pyarrow is missing or a file cannot be read (the reader reports that)."""
    try:
        pa, pq = _pyarrow()
    except ConfigError:
        return None
    try:
        return sum(pq.ParquetFile(f).metadata.num_rows for f in _files(Path(path)))
    except (OSError, pa.ArrowException):
        return None


def read_parquet(
    path: str | Path,
    *,
    errors: str = "strict",
    control_chars: str = "error",
    text_column: str = "text",
    id_column: str = "id",
    spans_column: str = "spans",
    batch_size: int = 1024,
    stats: ReadStats | None = None,
) -> Iterator[Record]:
    """Documents from the rows of a Parquet file (or a folder of them); a bad row yields an :class:`InputError`
    in its place (its location: the file and the row number, counted from 1 over the whole input)."""
    check_read_options(None, errors, control_chars)
    if batch_size < 1:
        raise ConfigError("option batch_size must be at least 1")
    _pyarrow()
    st = stats if stats is not None else ReadStats()
    return _read(Path(path), errors, control_chars, text_column, id_column, spans_column, batch_size, st)


def _read(path: Path, errors: str, control_chars: str, text_column: str, id_column: str, spans_column: str,
          batch_size: int, st: ReadStats) -> Iterator[Record]:
    pa, pq = _pyarrow()
    n = 0
    for file in _files(path):
        try:
            pf = pq.ParquetFile(file)
            names = pf.schema_arrow.names
        except (OSError, pa.ArrowException) as e:
            yield st.count(InputError(f"not a readable Parquet file ({type(e).__name__})", path=file))
            continue
        if text_column not in names:
            yield st.count(InputError(f"no column {text_column!r} (reader option text_column=...; command line: "
                                      f"-O text_column=...); the file has {len(names)} columns", path=file))
            continue
        try:
            for batch in pf.iter_batches(batch_size=batch_size):
                for row in batch.to_pylist():
                    n += 1
                    try:
                        record: Record = _row(row, n, file, text_column, id_column, spans_column, control_chars,
                                              errors, st)
                    except InputError as e:
                        record = e
                    yield st.count(record, path=file, line=n)
        except (OSError, pa.ArrowException) as e:
            yield st.count(InputError(f"reading stopped after row {n} ({type(e).__name__})", path=file))


def _plain(value: Any) -> Any:
    """A Parquet cell as JSON-serialisable metadata (dates and times as ISO strings, bytes left out)."""
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return value.total_seconds()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return None
    return value


def _row(row: dict[str, Any], n: int, path: Path, text_column: str, id_column: str, spans_column: str,
         control_chars: str, errors: str, st: ReadStats) -> Document:
    raw = row.get(text_column)
    if not isinstance(raw, str):
        raise InputError(f"row {n}: column {text_column!r} holds no text", path=path, line=n)
    doc_id = row.get(id_column)
    doc_id = str(doc_id) if doc_id not in (None, "") else f"row-{n}"
    src = clean_text(raw, control_chars, path=path, line=n, doc_id=doc_id, stats=st)
    spans = []
    value = row.get(spans_column)
    if isinstance(value, str) and value.strip():
        value = json_cell(value, spans_column, n, path=path, line=n)
    if value:
        spans = spans_from_dicts(_plain(value), src, path=path, line=n, stats=st)
    meta: dict[str, Any] = {}
    packed = row.get("meta")
    if isinstance(packed, str) and packed.strip():
        packed = json_cell(packed, "meta", n, path=path, line=n)
    if isinstance(packed, dict):
        meta.update(_plain(packed))
    for key, v in row.items():
        if key in (text_column, id_column, spans_column, "meta") or v is None:
            continue
        v = _plain(v)
        if v is not None and v != "":
            meta[key] = v
    return make_document(doc_id, src.text, spans, meta, path=path, line=n, errors=errors, stats=st)


def write_parquet(
    docs: Iterable[Document],
    path: str | Path,
    *,
    text_column: str = "text",
    id_column: str = "id",
    spans_column: str = "spans",
    row_group_size: int = 1000,
) -> None:
    """Write one row per document, ``row_group_size`` documents at a time (memory bounded by a row group), into
    ``path`` atomically. Columns: id, text, spans (JSON), meta (JSON object)."""
    pa, pq = _pyarrow()
    names = [id_column, text_column, spans_column, "meta"]
    if len(set(names)) != len(names):
        raise ConfigError("the id, text, spans and meta columns need distinct names")
    if row_group_size < 1:
        raise ConfigError("row_group_size must be at least 1")
    schema = pa.schema([(name, pa.string()) for name in names])
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp-{os.getpid()}")
    try:
        with pq.ParquetWriter(tmp, schema) as writer:
            rows: dict[str, list[str | None]] = {name: [] for name in names}

            def flush() -> None:
                if rows[id_column]:
                    writer.write_table(pa.table(rows, schema=schema))
                    for col in rows.values():
                        col.clear()

            for d in docs:
                try:
                    meta = json.dumps(d.meta, ensure_ascii=False, allow_nan=False) if d.meta else None
                except (TypeError, ValueError):
                    raise FormatError(f"document {d.id!r}: metadata is not JSON-serialisable") from None
                rows[id_column].append(d.id)
                rows[text_column].append(d.text)
                rows[spans_column].append(json.dumps([s.to_dict() for s in d.spans], ensure_ascii=False)
                                          if d.spans else None)
                rows["meta"].append(meta)
                if len(rows[id_column]) >= row_group_size:
                    flush()
            flush()
        os.replace(tmp, p)
    finally:
        if tmp.exists():
            tmp.unlink()
