"""JSON Lines: one document per line, ``{"id", "text", "meta", "spans": [{"start", "end", "label", "source"?,
"score"?}]}``.

Reading streams the file line by line (so one bad line is one error record and the rest are read). Blank lines
are skipped. A missing ``id`` becomes ``line-<n>``; a numeric id becomes its decimal string. Top-level keys other
than ``id``/``text``/``meta``/``spans`` go into the metadata (``meta`` wins on a clash). Spans default to
``source="gold"``, ``score=1.0``. Each line is decoded on its own: an invalid byte, invalid JSON (also nesting
too deep for the parser, or an integer too long to convert), a lone surrogate escape (``"\\ud800"``: not valid
Unicode, it could never be written out) or a control character in ``text`` is an error of that line, with the
line number and the byte / character offset, and reading goes on. A file that starts with a UTF-16 or UTF-32
byte-order mark (or an ``encoding=`` of that family) is read as text line by line; an undecodable byte then
stops the reading there with one error record.

The writer writes ``Document.to_dict()`` per line (UTF-8, not ASCII-escaped); metadata must be JSON-serialisable.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from clinanon.document import Document
from clinanon.errors import InputError
from clinanon.io.base import (
    FormatError,
    ReadStats,
    Record,
    ascii_compatible,
    atomic_open,
    check_read_options,
    clean_text,
    decode_bytes,
    make_document,
    open_text,
    os_error,
    sniff_bom,
    spans_from_dicts,
)

__all__ = ["read_jsonl", "write_jsonl"]

_KNOWN = ("id", "text", "meta", "spans")


def read_jsonl(
    path: str | Path,
    *,
    encoding: str | None = None,
    errors: str = "strict",
    control_chars: str = "error",
    stats: ReadStats | None = None,
) -> Iterator[Record]:
    """Documents from a JSONL file, one per non-blank line; a bad line yields an :class:`InputError` (with its
    line number) and reading goes on."""
    check_read_options(encoding, errors, control_chars)
    st = stats if stats is not None else ReadStats()
    return _read(Path(path), encoding, errors, control_chars, st)


def _read(path: Path, encoding: str | None, errors: str, control_chars: str, st: ReadStats) -> Iterator[Record]:
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below, generator
    except OSError as e:
        yield st.count(os_error(path, e))
        return
    with f:
        text_mode = sniff_bom(f.peek(4)[:4]) is not None if encoding is None else not ascii_compatible(encoding)
        if text_mode:
            f.close()
            yield from _read_text_lines(path, encoding, errors, control_chars, st)
            return
        offset = 0
        for lineno, raw in enumerate(f, 1):
            start, offset = offset, offset + len(raw)
            try:
                line, bom = decode_bytes(raw, path=path, encoding=encoding, errors=errors, byte_base=start,
                                         line_base=lineno)
                if bom:
                    st.boms_stripped += 1
                record = _parse_line(line, lineno, path, errors, control_chars, st)
            except InputError as e:
                record = e
            if record is not None:
                yield st.count(record, path=path, line=lineno)


def _read_text_lines(path: Path, encoding: str | None, errors: str, control_chars: str,
                     st: ReadStats) -> Iterator[Record]:
    """A file in an encoding that is not ASCII-compatible (UTF-16, UTF-32): decoded as a stream, line by line."""
    try:
        f = open_text(path, encoding=encoding, errors=errors)
    except InputError as e:
        yield st.count(e)
        return
    with f:
        lineno = 0
        try:
            for lineno, line in enumerate(f, 1):
                try:
                    record = _parse_line(line, lineno, path, errors, control_chars, st)
                except InputError as e:
                    record = e
                if record is not None:
                    yield st.count(record, path=path, line=lineno)
        except InputError as e:  # undecodable bytes (from the stream)
            yield st.count(InputError(f"{e.reason}; reading stopped: no line after line {lineno} was read",
                                      path=path, line=e.line, offset=e.offset))


def _parse_line(line: str, lineno: int, path: Path, errors: str, control_chars: str,
                st: ReadStats) -> Document | None:
    """The document of one decoded line, ``None`` for a blank line; :class:`InputError` for a bad one."""
    if not line.strip():
        return None
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise InputError(f"invalid JSON: {e.msg} (column {e.colno})", path=path, line=lineno) from None
    except ValueError:  # e.g. an integer with more digits than int() converts
        raise InputError("invalid JSON: a number that cannot be converted", path=path, line=lineno) from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply", path=path, line=lineno) from None
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, got {type(obj).__name__}", path=path, line=lineno)
    text = obj.get("text")
    if not isinstance(text, str):
        raise InputError("'text' is missing or not a string", path=path, line=lineno)
    doc_id = obj.get("id")
    if doc_id is None or doc_id == "":
        doc_id = f"line-{lineno}"
    elif isinstance(doc_id, int) and not isinstance(doc_id, bool):
        doc_id = str(doc_id)
    elif not isinstance(doc_id, str):
        raise InputError("'id' must be a string or an integer", path=path, line=lineno)
    meta = obj.get("meta")
    if meta is not None and not isinstance(meta, dict):
        raise InputError("'meta' must be an object", path=path, line=lineno)
    extra = {k: v for k, v in obj.items() if k not in _KNOWN}
    src = clean_text(text, control_chars, path=path, line=lineno, doc_id=doc_id, stats=st)
    spans = spans_from_dicts(obj.get("spans"), src, path=path, line=lineno, stats=st)
    return make_document(doc_id, src.text, spans, {**extra, **(meta or {})}, path=path, line=lineno, errors=errors,
                         stats=st)


def doc_to_json(doc: Document) -> str:
    """One JSONL line (without the newline) for ``doc``."""
    try:
        return json.dumps(doc.to_dict(), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise FormatError(f"document {doc.id!r}: metadata is not JSON-serialisable ({type(e).__name__})") from None


def write_jsonl(docs: Iterable[Document], path: str | Path) -> None:
    """Write one JSON object per line (atomically)."""
    with atomic_open(path) as f:
        for doc in docs:
            f.write(doc_to_json(doc))
            f.write("\n")

