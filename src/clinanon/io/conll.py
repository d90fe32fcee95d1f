"""CoNLL / BIO: one token per line, a blank line between sentences, ``-DOCSTART-`` between documents.

Columns are separated by tabs (or, in a line without a tab, by whitespace); the first column is the token, the
last the tag (``O``, ``B-X``, ``I-X``, or BIOES/BILOU). Every token line must have as many columns as the file's
first token line (else :class:`InputError` with the line number). A ``-DOCSTART-`` line starts a document; its
argument is the id (not when it is ``-X-`` or looks like a tag, as in ``-DOCSTART- -X- -X- O``), else the id is
``doc-<n>`` (``n`` counts documents from 1). Lines before the first ``-DOCSTART-`` form a document of their own.

How the text is rebuilt depends on the columns of the first token line:

* **clinanon dialect** (what :func:`write_conll` writes), five columns ``token start end gap tag``: ``gap`` is
  the exact text between this token and the next (or the end of the document), escaped (``\\s`` space, ``\\t``,
  ``\\n``, ``\\r``, ``\\f``, ``\\_``, ``\\\\``, ``\\uXXXX``/``\\UXXXXXXXX`` for other spaces and invisible
  characters, ``_`` for nothing); the ``-DOCSTART-`` line is ``-DOCSTART-<TAB>id<TAB>leading text``, both
  escaped the same way. Text, offsets and spans round-trip exactly (offsets are checked against the tokens).
* columns 2 and 3 are integers (``token start end ... tag``): tokens are placed at those offsets; the gaps
  between them are filled with spaces, the first gap character before a new sentence with ``\\n``.
* anything else (``token tag``, CoNLL-2003 ``token POS chunk tag``): tokens are joined by one space within a
  sentence and by ``\\n`` between sentences.

Spans come from the tags with :func:`clinanon.bio.decode_bio` (``repair=True`` reads ill-formed sequences as
conlleval does; ``repair=False`` keeps well-formed chunks only), ``source="gold"``, ``score=1.0``.

The writer tokenizes with :func:`clinanon.text.tokenize`, splits sentences with
:func:`clinanon.text.split_sentences` (option ``lang``) and tags with :func:`clinanon.bio.encode_bio` (option
``scheme="BIO"`` or ``"BIOES"``). A span that does not fall on token boundaries, or that overlaps another, cannot
be written exactly: :class:`~clinanon.io.base.FormatError` by default, or with ``strict=False`` the tags
``encode_bio`` gives (misaligned spans widened to whole tokens, the shorter of overlapping spans left out).
Metadata, span source and score are not stored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from clinanon.bio import decode_bio, encode_bio
from clinanon.document import Document
from clinanon.errors import ConfigError, InputError, SpanError
from clinanon.io.base import (
    FormatError,
    ReadStats,
    Record,
    SourceText,
    atomic_open,
    check_read_options,
    clean_text,
    make_document,
    open_text,
)
from clinanon.text import TextView, Token, check_language

__all__ = ["escape", "read_conll", "unescape", "write_conll"]

DOCSTART = "-DOCSTART-"
_TAG = re.compile(r"O|[BIESUL]-\S+")
_INT = re.compile(r"\d+")
_UNESCAPE = re.compile(r"\\(?:([stnrf_\\])|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.?))", re.DOTALL)
_SIMPLE = {"s": " ", "t": "\t", "n": "\n", "r": "\r", "f": "\f", "_": "_", "\\": "\\"}


class _EscapeTable(dict[int, str]):
    """``str.translate`` table: whitespace, invisible and non-printable characters, ``_`` and ``\\`` escaped."""

    _NAMED: ClassVar[dict[str, str]] = {" ": "\\s", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f",
                                        "_": "\\_", "\\": "\\\\"}

    def __missing__(self, cp: int) -> str:
        ch = chr(cp)
        if ch in self._NAMED:
            out = self._NAMED[ch]
        elif ch.isspace() or not ch.isprintable():
            out = f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}"
        else:
            out = ch
        self[cp] = out
        return out


_ESCAPES = _EscapeTable()


def escape(s: str) -> str:
    """``s`` as one whitespace-free column (``"_"`` for the empty string); :func:`unescape` inverts it."""
    return s.translate(_ESCAPES) if s else "_"


def unescape(s: str) -> str:
    """The inverse of :func:`escape`; ``ValueError`` on a malformed escape."""
    if s == "_":
        return ""

    def sub(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return _SIMPLE[m.group(1)]
        if m.group(4) is not None:
            raise ValueError("malformed escape")
        return chr(int(m.group(2) or m.group(3), 16))

    return _UNESCAPE.sub(sub, s) if "\\" in s else s


# --- reading ------------------------------------------------------------------------------------------------------

@dataclass
class _Doc:
    n: int
    line: int
    head: list[str] | None = None  # fields of the -DOCSTART- line
    tabbed: bool = False  # the -DOCSTART- line is tab-separated
    tokens: list[list[str]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    new_sentence: list[bool] = field(default_factory=list)
    error: InputError | None = None


@dataclass
class _FileState:
    ncols: int | None = None
    dialect: str | None = None  # "exact" | "offsets" | "plain"


def read_conll(
    path: str | Path,
    *,
    encoding: str | None = None,
    errors: str = "strict",
    control_chars: str = "error",
    repair: bool = True,
    stats: ReadStats | None = None,
) -> Iterator[Record]:
    """Documents from a CoNLL/BIO file; a bad document (wrong column count, bad tag, bad offsets) yields an
    :class:`InputError` in its place and reading goes on with the next ``-DOCSTART-``."""
    check_read_options(encoding, errors, control_chars)
    st = stats if stats is not None else ReadStats()
    return _read(Path(path), encoding, errors, control_chars, repair, st)


def _split(line: str) -> list[str]:
    return line.split("\t") if "\t" in line else line.split()


def _read(path: Path, encoding: str | None, errors: str, control_chars: str, repair: bool,
          st: ReadStats) -> Iterator[Record]:
    fs = _FileState()
    try:
        f = open_text(path, encoding=encoding, errors=errors)
    except InputError as e:
        yield st.count(e)
        return
    with f:
        doc: _Doc | None = None
        n = 0
        pending_break = False
        try:
            for lineno, raw in enumerate(f, 1):
                line = raw.rstrip("\r\n")
                if not line.strip():
                    pending_break = True
                    continue
                fields = _split(line)
                if fields[0] == DOCSTART:
                    if doc is not None:
                        yield st.count(_finish(doc, fs, path, control_chars, repair, st), path=path, line=doc.line)
                    n += 1
                    doc, pending_break = _Doc(n, lineno, fields, "\t" in line), False
                    continue
                if doc is None:
                    n += 1
                    doc = _Doc(n, lineno)
                if doc.error is not None:
                    continue
                if fs.ncols is None:
                    fs.ncols = len(fields)
                    fs.dialect = _dialect(fields)
                if len(fields) != fs.ncols:
                    doc.error = InputError(f"{len(fields)} columns where the first token line has {fs.ncols}",
                                           path=path, line=lineno)
                    continue
                doc.new_sentence.append(pending_break and bool(doc.tokens))
                pending_break = False
                doc.tokens.append(fields)
                doc.lines.append(lineno)
        except InputError as e:  # undecodable bytes: the rest of the file is lost
            start = doc.line if doc is not None else 1
            yield st.count(InputError(f"{e.reason}; reading stopped: the document that starts at line {start} "
                                      "and all after it were not read", path=path, line=e.line, offset=e.offset))
            return
        if doc is not None:
            yield st.count(_finish(doc, fs, path, control_chars, repair, st), path=path, line=doc.line)


def _dialect(fields: list[str]) -> str:
    if len(fields) >= 4 and _INT.fullmatch(fields[1]) and _INT.fullmatch(fields[2]):
        return "exact" if len(fields) == 5 else "offsets"
    return "plain"


def _doc_id(doc: _Doc, exact: bool, path: Path) -> str:
    head = doc.head
    if head is not None and len(head) > 1:
        arg = head[1]
        if exact:
            try:
                return unescape(arg)
            except ValueError:
                raise InputError("malformed escape in the document id", path=path, line=doc.line) from None
        if arg != "-X-" and not _TAG.fullmatch(arg):
            return arg
    return f"doc-{doc.n}"


def _finish(doc: _Doc, fs: _FileState, path: Path, control_chars: str, repair: bool, st: ReadStats) -> Record:
    if doc.error is not None:
        return doc.error
    try:
        return _build(doc, fs, path, control_chars, repair, st)
    except InputError as e:
        return e


def _build(doc: _Doc, fs: _FileState, path: Path, control_chars: str, repair: bool, st: ReadStats) -> Document:
    # before the first token line of the file, a tab-separated 3-field -DOCSTART- line is ours
    exact = fs.dialect == "exact" or (fs.dialect is None and doc.tabbed and doc.head is not None
                                      and len(doc.head) == 3)
    doc_id = _doc_id(doc, exact, path)
    parts: list[str] = []
    tokens: list[Token] = []
    pos = 0
    if exact and doc.head is not None and len(doc.head) >= 3:
        parts.append(_unescape(doc.head[2], path, doc.line))
        pos = len(parts[0])
    for k, (fields, lineno) in enumerate(zip(doc.tokens, doc.lines, strict=True)):
        tok = fields[0]
        if fs.dialect in ("exact", "offsets"):
            s, e = int(fields[1]), int(fields[2])
            if e - s != len(tok):
                raise InputError(f"offsets [{s}, {e}) do not fit the token's length {len(tok)}", path=path,
                                 line=lineno)
            if fs.dialect == "exact" and s != pos:
                raise InputError(f"token starts at {s}, the text so far has {pos} characters", path=path,
                                 line=lineno)
            if s < pos:
                raise InputError(f"token at [{s}, {e}) overlaps the previous one (ends at {pos})", path=path,
                                 line=lineno)
            if s > pos:
                gap = s - pos
                parts.append("\n" + " " * (gap - 1) if doc.new_sentence[k] else " " * gap)
        else:
            s = pos + (1 if k else 0)
            if k:
                parts.append("\n" if doc.new_sentence[k] else " ")
        parts.append(tok)
        tokens.append(Token(s, s + len(tok)))
        pos = s + len(tok)
        if fs.dialect == "exact":
            gap_text = _unescape(fields[3], path, lineno)
            parts.append(gap_text)
            pos += len(gap_text)
    text = "".join(parts)
    tags = [fields[-1] if fs.ncols and fs.ncols > 1 else "O" for fields in doc.tokens]
    for tag, lineno in zip(tags, doc.lines, strict=True):
        if not _TAG.fullmatch(tag):
            raise InputError("the last column is not a tag ('O' or '<B|I|E|S|U|L>-LABEL')", path=path, line=lineno)
    try:
        spans = decode_bio(tokens, tags, repair=repair, source="gold")
    except SpanError as e:  # pragma: no cover - tags were checked above
        raise InputError(f"cannot decode the tags: {e}", path=path, line=doc.line) from None
    src = _clean(text, tokens, doc, path, control_chars, doc_id, st)
    out = []
    for sp in spans:
        mapped = src.span(sp.start, sp.end)
        if mapped is None:
            st.spans_dropped += 1
            continue
        out.append(sp if mapped == (sp.start, sp.end) else type(sp)(mapped[0], mapped[1], sp.label, sp.source))
    return make_document(doc_id, src.text, out, None, path=path, line=doc.line)


def _clean(text: str, tokens: list[Token], doc: _Doc, path: Path, control_chars: str, doc_id: str,
           st: ReadStats) -> SourceText:
    try:
        return clean_text(text, control_chars, path=path, line=doc.line, doc_id=doc_id, stats=st)
    except InputError as e:
        at = e.offset or 0
        line = next((ln for t, ln in zip(tokens, doc.lines, strict=True) if t.end > at), doc.line)
        raise InputError(e.reason, path=path, line=line, offset=e.offset) from None


def _unescape(s: str, path: Path, line: int) -> str:
    try:
        return unescape(s)
    except ValueError:
        raise InputError("malformed escape in an escaped column", path=path, line=line) from None


# --- writing ------------------------------------------------------------------------------------------------------

def write_conll(docs: Iterable[Document], path: str | Path, *, lang: str = "es", scheme: str = "BIO",
                strict: bool = True) -> None:
    """Write ``docs`` in the clinanon dialect (see the module doc), atomically; exact round trip for spans on
    token boundaries that do not overlap."""
    lang = check_language(lang)
    if scheme.upper() not in ("BIO", "BIOES", "IOB2", "BILOU", "IOBES"):
        raise ConfigError(f"option scheme={scheme!r}; expected 'BIO' or 'BIOES'")
    with atomic_open(path) as f:
        for doc in docs:
            f.write("".join(_doc_lines(doc, lang, scheme, strict)))


def _doc_lines(doc: Document, lang: str, scheme: str, strict: bool) -> Iterator[str]:
    text = doc.text
    view = TextView(text, lang)
    tokens = view.tokens
    for i, sp in enumerate(doc.spans, 1):
        if re.search(r"\s", sp.label):
            raise FormatError(f"document {doc.id!r}: span {i} has a label with whitespace")
    enc = encode_bio(tokens, doc.spans, scheme)
    if strict and not enc.exact:
        raise FormatError(
            f"document {doc.id!r}: {len(enc.misaligned)} span(s) off token boundaries and {len(enc.overlapping)} "
            "overlapping span(s) cannot be written as tags exactly (option strict=False writes the nearest tags)")
    first = tokens[0].start if tokens else len(text)
    yield f"{DOCSTART}\t{escape(doc.id)}\t{escape(text[:first])}\n"
    sentence_starts = {s.start for s in view.sentences}
    n = len(tokens)
    for k, t in enumerate(tokens):
        tok = text[t.start:t.end]
        if tok == DOCSTART:  # pragma: no cover - the tokenizer splits punctuation
            raise FormatError(f"document {doc.id!r}: token {k} would read as a -DOCSTART- line")
        if k and t.start in sentence_starts:
            yield "\n"
        nxt = tokens[k + 1].start if k + 1 < n else len(text)
        yield f"{tok}\t{t.start}\t{t.end}\t{escape(text[t.end:nxt])}\t{enc.tags[k]}\n"
    yield "\n"
