"""Shared machinery of the corpus readers and writers.

* :class:`Format` — what the registry in :mod:`clinanon.io` holds for every format.
* :class:`ReadStats` — counters a reader fills while it runs (documents, errors, split BRAT fragments, ...).
* Text decoding shared by every reader: UTF-8 strict by default, a byte-order mark stripped, CRLF kept as it
  is in the file, invalid bytes and C0 control characters reported with file, line and offset.
* :class:`SourceText` — a text as stored in a file and the document text made from it, with the offset map
  between the two (a stripped BOM or stripped control characters shift offsets).
* :func:`atomic_write_text` / :func:`atomic_open` — write to a temporary file in the target folder, then
  ``os.replace``: a reader never sees a half-written file.

Nothing here puts document text into a message: errors name the file, the line and the offset.
"""

from __future__ import annotations

import bisect
import codecs
import contextlib
import io
import json
import os
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from clinanon.document import Document, Span
from clinanon.errors import ClinanonError, ConfigError, InputError, SpanError

__all__ = [
    "BOM_POLICIES",
    "CONTROL_CHARS",
    "Format",
    "FormatError",
    "ReadStats",
    "Record",
    "SourceText",
    "atomic_open",
    "atomic_write_text",
    "check_choice",
    "check_doc_ids",
    "decode_bytes",
    "json_cell",
    "list_files",
    "open_text",
    "read_source_text",
    "safe_filename",
]

#: What a reader yields: a document, or the error that stands in its place.
Record = Document | InputError

#: C0 control characters that are rejected by default (all of them except ``\t \n \r \f``).
CONTROL_CHARS = re.compile("[\x00-\x08\x0b\x0e-\x1f]")

_CONTROL_POLICIES = ("error", "strip", "keep")
#: what the span-text checks of the readers say
CHECK_TEXT_HINT = "(reader option check_text=false skips the check; command line: -O check_text=false)"
#: how to read a file that does not decode, as the API and the command line say it
_DECODE_HINT = ("reader option encoding=... or errors=replace reads it (command line: -O encoding=... or "
                "-O errors=replace)")
_BOM = "\ufeff"


class FormatError(ClinanonError, ValueError):
    """A writer cannot represent a document in its format (an id that is not a file name, a label with a space,
    a character XML forbids, ...). The message names the document id and the offset, never its text."""


@dataclass
class ReadStats:
    """Counters a reader fills while it runs; pass one as ``stats=`` and look at it afterwards."""

    documents: int = 0
    errors: int = 0
    spans: int = 0
    #: BRAT spans with several fragments (``0 5;7 10``) that were split (or merged) into contiguous spans
    discontinuous_spans: int = 0
    #: BRAT lines that are not text-bound annotations, by kind (``A``, ``R``, ``E``, ``N``, ``M``, ``#``)
    ignored_lines: Counter[str] = field(default_factory=Counter)
    boms_stripped: int = 0
    control_chars_stripped: int = 0
    #: spans that became empty because every character they covered was stripped
    spans_dropped: int = 0
    #: BRAT ``.txt`` files without an ``.ann`` file (read as documents without spans)
    missing_annotations: int = 0
    #: BRAT ``.ann`` files that could not be read and were left out (option ``bad_ann="warn"``)
    bad_annotations: int = 0
    #: lone surrogates (``"\\ud800"`` in JSON) replaced by U+FFFD (any ``errors=`` other than ``"strict"``)
    surrogates_replaced: int = 0
    #: where the record yielded last comes from: its file and (line-based formats) its first line. A batch run
    #: reads them to locate an error that happens later, while the document is processed.
    last_path: str | None = None
    last_line: int | None = None

    def count(self, record: Record, *, path: str | Path | None = None, line: int | None = None) -> Record:
        """Count ``record`` and remember where it comes from (``path``/``line``; an error's own location wins)."""
        if isinstance(record, InputError):
            self.errors += 1
            self.last_path = record.path if record.path is not None else (str(path) if path is not None else None)
            self.last_line = record.line if record.line is not None else line
        else:
            self.documents += 1
            self.spans += len(record.spans)
            self.last_path = str(path) if path is not None else None
            self.last_line = line
        return record


ReaderFn = Callable[..., Iterator[Record]]
WriterFn = Callable[..., None]


@dataclass(frozen=True)
class Format:
    """A corpus format: ``reader(path, **options)`` yields documents or :class:`InputError` records (one per
    bad document, or one for a file that cannot be read at all) and validates its options before it returns;
    ``writer(docs, path, **options)`` writes them. ``folder`` is true when the writer writes a folder."""

    name: str
    reader: ReaderFn
    writer: WriterFn
    suffixes: tuple[str, ...]
    folder: bool
    description: str


# --- options ------------------------------------------------------------------------------------------------

def check_choice(name: str, value: object, allowed: Sequence[str]) -> str:
    """``value`` if it is one of ``allowed``, else :class:`ConfigError`."""
    if value not in allowed:
        raise ConfigError(f"option {name}={value!r} is invalid; expected one of: {', '.join(map(repr, allowed))}")
    return str(value)


def check_read_options(encoding: str | None, errors: str, control_chars: str) -> None:
    """Validate the decoding options every reader takes."""
    if encoding is not None:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise ConfigError(f"option encoding={encoding!r} is not a known codec") from None
    try:
        codecs.lookup_error(errors)
    except LookupError:
        raise ConfigError(f"option errors={errors!r} is not a known error handler") from None
    check_choice("control_chars", control_chars, _CONTROL_POLICIES)


# --- decoding -----------------------------------------------------------------------------------------------

def _is_utf8(encoding: str) -> bool:
    return codecs.lookup(encoding).name in ("utf-8", "utf-8-sig")


#: byte-order marks recognised when no encoding is given, longest first (a UTF-32-LE BOM starts like UTF-16-LE's)
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def sniff_bom(head: bytes) -> tuple[str, int] | None:
    """``(codec, BOM length)`` when ``head`` (the first bytes of a file) starts with a UTF-16 or UTF-32 byte-order
    mark, else ``None`` (a UTF-8 BOM is handled by the UTF-8 path)."""
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return codec, len(bom)
    return None


def ascii_compatible(encoding: str | None) -> bool:
    """Whether ``encoding`` (``None``: UTF-8) stores ASCII text as ASCII bytes, so that files can be split into
    lines on ``b"\\n"`` (false for UTF-16 and UTF-32)."""
    if encoding is None:
        return True
    try:
        return "\n a".encode(encoding) == b"\n a"
    except (LookupError, UnicodeError):
        return False


def decode_bytes(
    data: bytes,
    *,
    path: str | Path,
    encoding: str | None = None,
    errors: str = "strict",
    byte_base: int = 0,
    line_base: int = 1,
) -> tuple[str, bool]:
    """Decode ``data`` (UTF-8 unless ``encoding`` says otherwise) and return ``(text, had_bom)``.

    A UTF-8 byte-order mark is removed. Without ``encoding``, a UTF-16 or UTF-32 byte-order mark (either byte
    order) selects that encoding and is removed too; ``had_bom`` is then true as well, so stored offsets count the
    mark as one character whatever the encoding (as they do for UTF-8). Line ends are kept exactly. Invalid bytes
    raise :class:`InputError` with the line and the byte offset in the file (``byte_base`` + offset in ``data``).
    """
    enc = encoding or "utf-8"
    bom = False
    skipped = 0
    sniffed = sniff_bom(data[:4]) if encoding is None else None
    if sniffed is not None:
        enc, skipped = sniffed
        data = data[skipped:]
        bom = True
    elif _is_utf8(enc):
        enc = "utf-8"
        if data.startswith(codecs.BOM_UTF8):
            data = data[3:]
            bom = True
            skipped = 3
    try:
        text = data.decode(enc, errors)
    except UnicodeDecodeError as e:
        at = byte_base + e.start + skipped
        if ascii_compatible(enc):
            line = line_base + data.count(b"\n", 0, e.start)
        else:
            line = line_base + data[:e.start].decode(enc, "replace").count("\n")
        raise InputError(
            f"bytes that are not valid {enc} (the offset counts bytes); {_DECODE_HINT}",
            path=path, line=line, offset=at,
        ) from None
    return text, bom


def _locate_decode_error(path: Path, encoding: str) -> tuple[int, int]:
    """(byte offset, line) of the first byte of ``path`` that does not decode: a second, linear pass."""
    if encoding == "utf-8-sig":
        encoding = "utf-8"  # a BOM decodes as U+FEFF: byte positions stay those of the file
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    ascii_lines = ascii_compatible(encoding)
    offset, line = 0, 1
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            pending = len(decoder.getstate()[0])
            try:
                text = decoder.decode(chunk)
            except UnicodeDecodeError as e:
                at = offset - pending + e.start
                if ascii_lines:
                    return at, line + chunk.count(b"\n", 0, max(at - offset, 0))
                head = codecs.getincrementaldecoder(encoding)("replace").decode(chunk[:max(at - offset, 0)])
                return at, line + head.count("\n")
            offset += len(chunk)
            line += chunk.count(b"\n") if ascii_lines else text.count("\n")
    return offset, line


class _DecodeErrors(io.TextIOBase):
    """A text stream over a file that turns a decoding error into an :class:`InputError` with its byte offset."""

    def __init__(self, path: Path, encoding: str | None, errors: str) -> None:
        raw = open(path, "rb")  # noqa: SIM115 - owned by the wrapper below
        sniffed = sniff_bom(raw.peek(4)[:4]) if encoding is None else None
        if sniffed is not None:  # "utf-16" / "utf-32" read the byte order from the BOM and drop it
            enc = "utf-32" if sniffed[0].startswith("utf-32") else "utf-16"
        else:
            enc = encoding or "utf-8"
            enc = "utf-8-sig" if _is_utf8(enc) else enc
        self._enc = enc
        self._path = path
        self._inner = io.TextIOWrapper(raw, encoding=self._enc, errors=errors, newline="")

    def _fail(self) -> InputError:
        offset, line = _locate_decode_error(self._path, self._enc)
        return InputError(
            f"bytes that are not valid {codecs.lookup(self._enc).name} (the offset counts bytes); "
            f"{_DECODE_HINT}",
            path=self._path, line=line, offset=offset,
        )

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        try:
            return self._inner.readline(-1 if size is None else size)
        except UnicodeDecodeError:
            raise self._fail() from None

    def read(self, size: int | None = -1) -> str:
        try:
            return self._inner.read(size)
        except UnicodeDecodeError:
            raise self._fail() from None

    def __iter__(self) -> Iterator[str]:
        while line := self.readline():
            yield line

    def __next__(self) -> str:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def close(self) -> None:
        self._inner.close()
        super().close()


def open_text(path: str | Path, *, encoding: str | None = None, errors: str = "strict") -> IO[str]:
    """Open ``path`` for streaming text reading: UTF-8 (BOM stripped) unless ``encoding`` says otherwise, or
    UTF-16 / UTF-32 when the file starts with their byte-order mark (no ``encoding`` given); line ends
    untranslated (``newline=""``); a decoding error raises :class:`InputError` with its byte offset."""
    try:
        return _DecodeErrors(Path(path), encoding, errors)  # type: ignore[return-value]
    except OSError as e:
        raise os_error(path, e) from None


def os_error(path: str | Path, e: OSError) -> InputError:
    """An :class:`InputError` for a file that cannot be opened (the OS reason, no content)."""
    return InputError(f"cannot read the file: {e.strerror or type(e).__name__}", path=path)


def read_bytes(path: str | Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise os_error(path, e) from None


# --- source text and offset maps ----------------------------------------------------------------------------

@dataclass(frozen=True)
class SourceText:
    """A text as a file stores it, and the document text made from it.

    ``raw`` is the stored text without its BOM; ``bom`` says whether the stored text started with one (stored
    offsets then count it, as BRAT and MEDDOCAN's XML do); ``text`` is ``raw`` with the stripped control
    characters (at the ``removed`` positions of ``raw``) taken out. :meth:`to_doc` maps a stored offset onto
    ``text``; :meth:`stored_slice` returns what stored offsets cover (used to check annotated span text).
    """

    raw: str
    text: str
    bom: bool = False
    removed: tuple[int, ...] = ()

    @property
    def stored_length(self) -> int:
        return len(self.raw) + self.bom

    def stored_slice(self, start: int, end: int) -> str:
        b = int(self.bom)
        head = _BOM if self.bom and start == 0 and end > 0 else ""
        return head + self.raw[max(start - b, 0):max(end - b, 0)]

    def to_doc(self, offset: int) -> int:
        r = max(offset - int(self.bom), 0)
        return r - bisect.bisect_left(self.removed, r) if self.removed else r

    def span(self, start: int, end: int) -> tuple[int, int] | None:
        """Stored ``[start, end)`` on the document text, or ``None`` when nothing of it is left."""
        s, e = self.to_doc(start), self.to_doc(end)
        return (s, e) if e > s else None


def clean_text(
    raw: str,
    control_chars: str,
    *,
    path: str | Path,
    bom: bool = False,
    line: int | None = None,
    line_base: int = 1,
    doc_id: str | None = None,
    stats: ReadStats | None = None,
) -> SourceText:
    """Apply the control-character policy to ``raw`` and return the :class:`SourceText`.

    ``"error"``: the first C0 control character other than ``\\t \\n \\r \\f`` raises :class:`InputError` with its
    character offset and line (``line`` if given, else counted from ``line_base``); ``"strip"`` removes them
    (offsets are mapped); ``"keep"`` keeps them.
    """
    if bom and stats is not None:
        stats.boms_stripped += 1
    if control_chars == "keep":
        return SourceText(raw, raw, bom)
    m = CONTROL_CHARS.search(raw)
    if m is None:
        return SourceText(raw, raw, bom)
    if control_chars == "error":
        at = m.start()
        # the line locates the document; its id (which may itself be PHI) is named only where there is none
        where = f" of document {doc_id!r}" if doc_id is not None and line is None else ""
        raise InputError(
            f"control character U+{ord(m.group()):04X} at character offset {at}{where}; "
            "reader option control_chars=strip or keep accepts it (command line: -O control_chars=strip)",
            path=path, line=line if line is not None else line_base + raw.count("\n", 0, at), offset=at,
        )
    removed = tuple(x.start() for x in CONTROL_CHARS.finditer(raw))
    if stats is not None:
        stats.control_chars_stripped += len(removed)
    return SourceText(raw, CONTROL_CHARS.sub("", raw), bom, removed)


def read_source_text(
    path: str | Path,
    *,
    encoding: str | None,
    errors: str,
    control_chars: str,
    stats: ReadStats | None = None,
    bom: str = "strip",
) -> SourceText:
    """Read a whole text file (decode, strip a BOM, apply the control-character policy). ``bom="keep"``: a
    byte-order mark stays in the text as U+FEFF, so that the text is the file as decoded and every offset is the
    file's (the writers' option ``bom="keep"`` writes it back as it is)."""
    raw, had_bom = decode_bytes(read_bytes(path), path=path, encoding=encoding, errors=errors)
    if had_bom and bom == "keep":
        raw, had_bom = _BOM + raw, False
    return clean_text(raw, control_chars, path=path, bom=had_bom, stats=stats)


#: what the text-file readers and writers (text, brat, xml) do with a byte-order mark: option ``bom``
BOM_POLICIES = ("strip", "keep")


def json_cell(value: str, column: str, row: int, *, path: Path | None = None, line: int | None = None) -> Any:
    """The JSON value of a table cell (the spans or meta column of CSV and Parquet rows); an
    :class:`InputError` naming the row and the column, never the cell's text, when it is not JSON."""
    try:
        return json.loads(value)
    except json.JSONDecodeError as e:
        raise InputError(f"row {row}: column {column!r} is not JSON ({e.msg})", path=path, line=line) from None


def spans_from_dicts(
    items: object,
    src: SourceText,
    *,
    path: str | Path,
    line: int | None,
    what: str = "span",
    stats: ReadStats | None = None,
) -> list[Span]:
    """Spans from a JSON list of ``{"start", "end", "label", "source"?, "score"?}`` on ``src`` (JSONL, CSV)."""
    if items is None:
        return []
    if not isinstance(items, list):
        raise InputError(f"'spans' must be a list, not {type(items).__name__}", path=path, line=line)
    out: list[Span] = []
    n = src.stored_length
    for i, item in enumerate(items, 1):
        if not isinstance(item, Mapping):
            raise InputError(f"{what} {i} must be an object", path=path, line=line)
        for key in ("start", "end", "label"):
            if key not in item:
                raise InputError(f"{what} {i} has no {key!r}", path=path, line=line)
        s, e, label = item["start"], item["end"], item["label"]
        if not (_is_int(s) and _is_int(e)):
            raise InputError(f"{what} {i}: 'start' and 'end' must be integers", path=path, line=line)
        if not isinstance(label, str) or not label:
            raise InputError(f"{what} {i}: 'label' must be a non-empty string", path=path, line=line)
        if not 0 <= s < e <= n:
            raise InputError(f"{what} {i}: [{s}, {e}) is empty or outside the text (length {n})",
                             path=path, line=line)
        source = item.get("source", "gold")
        score = item.get("score", 1.0)
        if not isinstance(source, str) or not _is_number(score):
            raise InputError(f"{what} {i}: 'source' must be a string and 'score' a number", path=path, line=line)
        mapped = src.span(s, e)
        if mapped is None:
            if stats is not None:
                stats.spans_dropped += 1
            continue
        try:
            out.append(Span(mapped[0], mapped[1], label, source, float(score)))
        except SpanError as err:
            raise InputError(f"{what} {i}: {err}", path=path, line=line) from None
    return out


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


_SURROGATE = re.compile("[\ud800-\udfff]")
_REPLACEMENT = "\ufffd"


def _no_surrogates(value: str, what: str, *, errors: str, path: str | Path, line: int | None,
                   stats: ReadStats | None) -> str:
    """``value`` when it holds no lone surrogate (code points U+D800-U+DFFF, which JSON's ``"\\ud800"`` escapes
    can produce but no UTF-8 file can hold); with ``errors="strict"`` the first one is an :class:`InputError`,
    with any other ``errors`` each becomes U+FFFD (one character for one: offsets do not move)."""
    if value.isascii():
        return value
    m = _SURROGATE.search(value)
    if m is None:
        return value
    if errors == "strict":
        raise InputError(f"{what} holds a lone surrogate U+{ord(m.group()):04X} at character offset {m.start()}, "
                         "which is not valid Unicode text; reader option errors=replace (command line: "
                         "-O errors=replace) reads it as U+FFFD",
                         path=path, line=line, offset=m.start())
    if stats is not None:
        stats.surrogates_replaced += len(_SURROGATE.findall(value))
    return _SURROGATE.sub(_REPLACEMENT, value)


def _clean_meta(value: Any, key: str, *, errors: str, path: str | Path, line: int | None,
                stats: ReadStats | None) -> Any:
    if isinstance(value, str):
        return _no_surrogates(value, f"metadata {key!r}", errors=errors, path=path, line=line, stats=stats)
    if isinstance(value, list):
        return [_clean_meta(v, key, errors=errors, path=path, line=line, stats=stats) for v in value]
    if isinstance(value, dict):
        return {_no_surrogates(str(k), f"a key of metadata {key!r}", errors=errors, path=path, line=line,
                               stats=stats): _clean_meta(v, key, errors=errors, path=path, line=line, stats=stats)
                for k, v in value.items()}
    return value


def make_document(doc_id: str, text: str, spans: Iterable[Span], meta: Mapping[str, Any] | None, *,
                  path: str | Path, line: int | None = None, errors: str = "strict",
                  stats: ReadStats | None = None) -> Document:
    """A :class:`Document`; a validation failure becomes an :class:`InputError` located at ``path``/``line``.

    Lone surrogates in the text, the id or the metadata (JSON escapes such as ``"\\ud800"``; they cannot be
    written as UTF-8, so a batch run would fail on them later) are an :class:`InputError` of this document, or
    U+FFFD when ``errors`` is not ``"strict"``."""
    kw: dict[str, Any] = {"errors": errors, "path": path, "line": line, "stats": stats}
    text = _no_surrogates(text, "the text", **kw)
    doc_id = _no_surrogates(doc_id, "the id", **kw)
    spans = tuple(spans)
    if any(not s.label.isascii() and _SURROGATE.search(s.label) for s in spans):
        raise InputError("a span label holds a lone surrogate, which is not valid Unicode text", path=path, line=line)
    if meta:
        meta = {_no_surrogates(str(k), "a metadata key", **kw): _clean_meta(v, str(k), **kw) for k, v in meta.items()}
    try:
        return Document(doc_id, text, spans, meta or {})
    except SpanError as e:
        raise InputError(f"invalid document: {e}", path=path, line=line, doc_id=doc_id) from None


# --- files ----------------------------------------------------------------------------------------------------

def list_files(folder: Path, suffix: str) -> list[Path]:
    """Files of ``folder`` (not recursive) with ``suffix``, sorted by stem (the document id)."""
    return sorted((p for p in folder.iterdir() if p.suffix == suffix and p.is_file()), key=lambda p: p.stem)


_BAD_NAME = re.compile(r"[/\\\x00-\x1f]")


def safe_filename(doc_id: str, suffix: str) -> str:
    """``doc_id + suffix`` if ``doc_id`` can be a file name (no path separators, control characters, ``.``/``..``,
    not longer than 200 characters), else :class:`FormatError`."""
    if not doc_id or doc_id in (".", "..") or _BAD_NAME.search(doc_id) or len(doc_id) > 200:
        raise FormatError(f"document id {doc_id!r} cannot be used as a file name")
    return doc_id + suffix


def check_doc_ids(docs: Iterable[Document]) -> Iterator[Document]:
    """Pass documents through; a repeated id raises :class:`FormatError` (a folder writer would overwrite)."""
    seen: set[str] = set()
    for d in docs:
        if d.id in seen:
            raise FormatError(f"document id {d.id!r} occurs twice; ids name the output files")
        seen.add(d.id)
        yield d


@contextlib.contextmanager
def atomic_open(path: str | Path, *, encoding: str = "utf-8") -> Iterator[IO[str]]:
    """Open a temporary file next to ``path`` for writing text (no newline translation); on success it replaces
    ``path`` in one ``os.replace``, on an exception it is removed and ``path`` is untouched. The parent folder is
    created. The file is created with mode 0600 (outputs may hold PHI)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with open(fd, "w", encoding=encoding, newline="") as f:
            yield f
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | Path, text: str, *, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` exactly (no newline translation) and atomically (see :func:`atomic_open`)."""
    with atomic_open(path, encoding=encoding) as f:
        f.write(text)


def with_bom(text: str, bom: str = "strip") -> tuple[str, int]:
    """What a writer stores for ``text`` and the shift of stored offsets: a text that itself starts with U+FEFF
    gets one more, because readers strip one BOM (so write -> read round-trips). ``bom="keep"`` (documents read
    with the reader option ``bom="keep"``, whose text is the file as decoded): the text exactly, offsets as they
    are."""
    if bom == "keep":
        return text, 0
    return (_BOM + text, 1) if text.startswith(_BOM) else (text, 0)


def guard(path: str | Path, fn: Callable[[], Record], doc_id: str | None = None) -> Record:
    """Run ``fn``; an :class:`InputError` (or an unreadable file) becomes the record instead of propagating.
    ``doc_id`` (the id the document would have had) is set on the error when it has none."""
    try:
        return fn()
    except InputError as e:
        if doc_id is not None and e.doc_id is None:
            e.doc_id = doc_id
        return e
    except OSError as e:
        err = os_error(path, e)
        err.doc_id = doc_id
        return err
