"""presidio-research JSON: a list of ``{"full_text", "spans": [{"entity_type", "entity_value",
"start_position", "end_position"}], ...}`` (as in ``pii-synth-en/dev.json``).

The id of a record is its ``"id"`` key when it has one, else its index in the list (``"0"``, ``"1"``, ...);
every other key (``masked``, ``template_id``, ``metadata``, ...) goes into the metadata. Spans are gold
(``source="gold"``, ``score=1.0``); with ``check_text=True`` (default) ``entity_value`` must equal the text at
the offsets. Records are decoded one by one, so a bad record is one error record (with its line) and the others
are read; a file that is not a JSON list at all is one error.

The writer writes the same shape, with ``"id"`` and the metadata as top-level keys (metadata keys must not be
``full_text``, ``spans`` or ``id``); span source and score are not stored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from clinanon.document import Document, Span
from clinanon.errors import InputError
from clinanon.io.base import (
    CHECK_TEXT_HINT,
    FormatError,
    ReadStats,
    Record,
    SourceText,
    atomic_open,
    check_read_options,
    clean_text,
    decode_bytes,
    make_document,
    read_bytes,
)

__all__ = ["read_presidio", "write_presidio"]

_WS = re.compile(r"[ \t\n\r]*")
_SPAN_KEYS = ("entity_type", "start_position", "end_position")


def read_presidio(
    path: str | Path,
    *,
    encoding: str | None = None,
    errors: str = "strict",
    control_chars: str = "error",
    check_text: bool = True,
    stats: ReadStats | None = None,
) -> Iterator[Record]:
    """Documents from a presidio-research JSON file; a bad record yields an :class:`InputError` in its place."""
    check_read_options(encoding, errors, control_chars)
    st = stats if stats is not None else ReadStats()
    return _read(Path(path), encoding, errors, control_chars, check_text, st)


def _read(path: Path, encoding: str | None, errors: str, control_chars: str, check_text: bool,
          st: ReadStats) -> Iterator[Record]:
    try:
        content, bom = decode_bytes(read_bytes(path), path=path, encoding=encoding, errors=errors)
    except InputError as e:
        yield st.count(e)
        return
    if bom:
        st.boms_stripped += 1
    dec = json.JSONDecoder()
    line, pos = 1, 0

    def advance(to: int) -> None:
        nonlocal line, pos
        line += content.count("\n", pos, to)
        pos = to

    def skip_ws() -> None:
        m = _WS.match(content, pos)
        advance(m.end() if m else pos)

    skip_ws()
    if not content.startswith("[", pos):
        yield st.count(InputError("expected a JSON list of records", path=path, line=line))
        return
    advance(pos + 1)
    skip_ws()
    if content.startswith("]", pos):
        return
    index = 0
    while True:
        start_line = line
        try:
            obj, end = dec.raw_decode(content, pos)
        except json.JSONDecodeError as e:
            yield st.count(InputError(f"invalid JSON: {e.msg} (column {e.colno})", path=path, line=e.lineno))
            return
        except (ValueError, RecursionError) as e:  # an integer too long to convert, nesting too deep
            what = "nested too deeply" if isinstance(e, RecursionError) else "a number that cannot be converted"
            yield st.count(InputError(f"invalid JSON: {what}; reading stopped: no record from here on was read",
                                      path=path, line=start_line))
            return
        advance(end)
        try:
            record: Record = _record(obj, index, path, start_line, control_chars, check_text, errors, st)
        except InputError as e:
            record = e
        yield st.count(record, path=path, line=start_line)
        index += 1
        skip_ws()
        if content.startswith(",", pos):
            advance(pos + 1)
            skip_ws()
            continue
        if content.startswith("]", pos):
            advance(pos + 1)
            skip_ws()
            if pos != len(content):
                yield st.count(InputError("unexpected data after the JSON list", path=path, line=line))
            return
        yield st.count(InputError("expected ',' or ']' after a record", path=path, line=line))
        return


def _record(obj: object, index: int, path: Path, line: int, control_chars: str, check_text: bool, errors: str,
            st: ReadStats) -> Document:
    if not isinstance(obj, dict):
        raise InputError(f"record {index}: expected a JSON object", path=path, line=line)
    text = obj.get("full_text")
    if not isinstance(text, str):
        raise InputError(f"record {index}: 'full_text' is missing or not a string", path=path, line=line)
    raw_id = obj.get("id", index)
    if isinstance(raw_id, bool) or not isinstance(raw_id, str | int) or raw_id == "":
        raise InputError(f"record {index}: 'id' must be a non-empty string or an integer", path=path, line=line)
    doc_id = str(raw_id)
    src = clean_text(text, control_chars, path=path, line=line, doc_id=doc_id, stats=st)
    spans = _spans(obj.get("spans"), src, index, path, line, check_text, st)
    meta = {k: v for k, v in obj.items() if k not in ("full_text", "spans", "id")}
    return make_document(doc_id, src.text, spans, meta, path=path, line=line, errors=errors, stats=st)


def _spans(items: object, src: SourceText, index: int, path: Path, line: int, check_text: bool,
           st: ReadStats) -> list[Span]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise InputError(f"record {index}: 'spans' must be a list", path=path, line=line)
    n = src.stored_length
    out = []
    for i, sp in enumerate(items, 1):
        where = f"record {index}, span {i}"
        if not isinstance(sp, Mapping) or any(k not in sp for k in _SPAN_KEYS):
            raise InputError(f"{where}: expected an object with {', '.join(_SPAN_KEYS)}", path=path, line=line)
        s, e, label = sp["start_position"], sp["end_position"], sp["entity_type"]
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (s, e)):
            raise InputError(f"{where}: positions must be integers", path=path, line=line)
        if not isinstance(label, str) or not label:
            raise InputError(f"{where}: 'entity_type' must be a non-empty string", path=path, line=line)
        if not 0 <= s < e <= n:
            raise InputError(f"{where}: [{s}, {e}) is empty or outside the text (length {n})", path=path, line=line)
        value = sp.get("entity_value")
        if check_text and value is not None and value != src.stored_slice(s, e):
            raise InputError(f"{where}: entity_value does not match the text at [{s}, {e}) "
                             + CHECK_TEXT_HINT, path=path, line=line)
        mapped = src.span(s, e)
        if mapped is None:
            st.spans_dropped += 1
            continue
        out.append(Span(mapped[0], mapped[1], label))
    return out


def _to_obj(doc: Document) -> dict[str, Any]:
    clash = {"full_text", "spans", "id"} & set(doc.meta)
    if clash:
        raise FormatError(f"document {doc.id!r}: metadata key(s) {sorted(clash)} clash with the record keys")
    return {"id": doc.id, "full_text": doc.text,
            "spans": [{"entity_type": s.label, "entity_value": doc.text[s.start:s.end],
                       "start_position": s.start, "end_position": s.end} for s in doc.spans],
            **doc.meta}


def write_presidio(docs: Iterable[Document], path: str | Path) -> None:
    """Write a JSON list of presidio-research records (atomically, one record per line)."""
    with atomic_open(path) as f:
        f.write("[")
        for i, doc in enumerate(docs):
            try:
                line = json.dumps(_to_obj(doc), ensure_ascii=False, allow_nan=False)
            except (TypeError, ValueError) as e:
                if isinstance(e, FormatError):
                    raise
                raise FormatError(f"document {doc.id!r}: metadata is not JSON-serialisable") from None
            f.write(",\n" if i else "\n")
            f.write(line)
        f.write("\n]\n")
