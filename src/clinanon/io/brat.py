"""BRAT standoff: ``<id>.txt`` + ``<id>.ann`` with lines ``T<n>\\t<LABEL> <start> <end>\\t<span text>``.

Offsets count the characters of the ``.txt`` file as stored: a byte-order mark counts as one character (that is
what brat and MEDDOCAN do — 22 MEDDOCAN files start with a BOM and their offsets include it) and CRLF counts as
two. The reader strips the BOM and shifts the offsets, so spans are on the document text; with ``bom="keep"`` (what
``clinanon deidentify`` / ``detect`` use) the mark stays in the text as U+FEFF and the writer writes it back, so
that offsets on the document are the file's.

Reading options (besides ``encoding``/``errors``/``control_chars``/``stats``):

* ``discontinuous="split"`` (default): ``LABEL 0 5;7 10`` becomes one span per fragment and counts in
  ``stats.discontinuous_spans``; ``"merge"``: one span from the first start to the last end; ``"error"``.
* ``check_text=True``: the span text of the ``.ann`` must equal the text at its offsets (line breaks compared as
  spaces; fragments joined by one space) — else :class:`InputError` naming the ``.ann`` file, line and offsets.
* ``scheme=None``: a label scheme name (``"meddocan"``); labels outside it are an :class:`InputError`.
* ``bad_ann="error"`` (default): an ``.ann`` file that cannot be read makes its document an :class:`InputError`;
  ``"warn"``: the document is read without spans, a warning (file, line, reason; never text) is logged and
  ``stats.bad_annotations`` counts it — for runs that only need the texts (``clinanon deidentify`` and
  ``detect`` use it unless a detector reads the gold spans).

``A``/``R``/``E``/``N``/``M``/``#`` lines are ignored and counted (``stats.ignored_lines``). A ``.txt`` without
``.ann`` is a document without spans (``stats.missing_annotations``); an ``.ann`` without ``.txt`` is an error.

The writer writes ``<id>.txt`` (exactly the text; one extra BOM if the text starts with U+FEFF) and ``<id>.ann``
with ``T1, T2, ...`` in span order; line breaks inside the span text field are written as spaces.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from clinanon.document import Document, Span
from clinanon.errors import InputError
from clinanon.io.base import (
    BOM_POLICIES,
    CHECK_TEXT_HINT,
    FormatError,
    ReadStats,
    Record,
    SourceText,
    atomic_write_text,
    check_choice,
    check_doc_ids,
    check_read_options,
    decode_bytes,
    guard,
    make_document,
    read_bytes,
    read_source_text,
    safe_filename,
    with_bom,
)
from clinanon.taxonomy import LabelScheme, get_scheme

__all__ = ["read_brat", "write_brat"]

log = logging.getLogger(__name__)

_IGNORED = frozenset("ARENM#")
# characters some tools treat as line breaks: never inside an .ann text field
_BREAKS = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_FRAGMENT = re.compile(r"(\d+) (\d+)")


def _flat(s: str) -> str:
    return _BREAKS.sub(" ", s)


def read_brat(
    path: str | Path,
    *,
    encoding: str | None = None,
    errors: str = "strict",
    control_chars: str = "error",
    discontinuous: str = "split",
    check_text: bool = True,
    scheme: str | None = None,
    bad_ann: str = "error",
    bom: str = "strip",
    stats: ReadStats | None = None,
) -> Iterator[Record]:
    """Documents from a BRAT folder (every ``.txt``/``.ann`` pair, in id order) or from one ``.txt``/``.ann``
    file; a bad document yields an :class:`InputError` in its place. ``bom="keep"``: a byte-order mark stays in
    the text as U+FEFF, so that offsets on the document are those of the ``.txt`` file as decoded."""
    check_read_options(encoding, errors, control_chars)
    check_choice("discontinuous", discontinuous, ("split", "merge", "error"))
    check_choice("bad_ann", bad_ann, ("error", "warn"))
    check_choice("bom", bom, BOM_POLICIES)
    label_scheme = get_scheme(scheme) if scheme is not None else None
    st = stats if stats is not None else ReadStats()
    opts = _Opts(encoding, errors, control_chars, discontinuous, check_text, label_scheme, st, bad_ann == "warn", bom)
    return _read(Path(path), opts)


class _Opts:
    def __init__(self, encoding: str | None, errors: str, control_chars: str, discontinuous: str,
                 check_text: bool, scheme: LabelScheme | None, stats: ReadStats, warn_bad_ann: bool,
                 bom: str = "strip") -> None:
        self.encoding, self.errors, self.control_chars = encoding, errors, control_chars
        self.discontinuous, self.check_text, self.scheme, self.stats = discontinuous, check_text, scheme, stats
        self.warn_bad_ann, self.bom = warn_bad_ann, bom


def _read(path: Path, o: _Opts) -> Iterator[Record]:
    st = o.stats
    if path.is_dir():
        stems = sorted({p.stem for p in path.iterdir() if p.suffix in (".txt", ".ann") and p.is_file()})
        pairs = [(path / f"{s}.txt", path / f"{s}.ann") for s in stems]
    elif path.suffix in (".txt", ".ann") and (path.exists() or path.with_suffix(".txt").exists()):
        pairs = [(path.with_suffix(".txt"), path.with_suffix(".ann"))]
    else:
        yield st.count(InputError("no such BRAT folder or .txt/.ann file", path=path))
        return
    for txt, ann in pairs:
        yield st.count(guard(txt, lambda txt=txt, ann=ann: _read_pair(txt, ann, o), txt.stem),  # type: ignore[misc]
                       path=txt)


def _read_pair(txt: Path, ann: Path, o: _Opts) -> Document:
    if not txt.exists():
        raise InputError("annotation file without its .txt file", path=ann)
    src = read_source_text(txt, encoding=o.encoding, errors=o.errors, control_chars=o.control_chars, stats=o.stats,
                           bom=o.bom)
    spans: list[Span] = []
    if not ann.exists():
        o.stats.missing_annotations += 1
    elif o.warn_bad_ann:
        try:
            spans = _read_ann(ann, src, o)
        except InputError as e:
            o.stats.bad_annotations += 1
            log.warning("%s; the document is read without its annotations (reader option bad_ann=warn)", e)
    else:
        spans = _read_ann(ann, src, o)
    return make_document(txt.stem, src.text, spans, None, path=ann, errors=o.errors, stats=o.stats)


def _read_ann(ann: Path, src: SourceText, o: _Opts) -> list[Span]:
    content, _ = decode_bytes(read_bytes(ann), path=ann, encoding=o.encoding, errors=o.errors)
    spans: list[Span] = []
    n = src.stored_length
    for lineno, line in enumerate(content.split("\n"), 1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        kind = line[0]
        if kind in _IGNORED:
            o.stats.ignored_lines[kind] += 1
            continue
        if kind != "T":
            raise InputError("unrecognised annotation line; expected T, A, R, E, N, M or #", path=ann, line=lineno)
        fields = line.split("\t", 2)
        if len(fields) < 2:
            raise InputError("text-bound annotation without a tab-separated 'LABEL start end' field",
                             path=ann, line=lineno)
        label, _, offsets = fields[1].partition(" ")
        frags: list[tuple[int, int]] = []
        for part in offsets.split(";"):
            m = _FRAGMENT.fullmatch(part.strip())
            if m is None:
                raise InputError("expected 'LABEL start end' (fragments separated by ';')", path=ann, line=lineno)
            s, e = int(m.group(1)), int(m.group(2))
            if e <= s:
                raise InputError(f"span [{s}, {e}) is empty or reversed", path=ann, line=lineno, offset=s)
            if e > n:
                raise InputError(f"span [{s}, {e}) ends past the text (length {n})", path=ann, line=lineno, offset=s)
            frags.append((s, e))
        if not label:
            raise InputError("empty label", path=ann, line=lineno)
        if o.scheme is not None and label not in o.scheme:
            raise InputError(f"label {label!r} is not in scheme {o.scheme.name!r}", path=ann, line=lineno)
        if o.check_text:
            if len(fields) < 3:
                raise InputError("text-bound annotation without its span text "
                                 + CHECK_TEXT_HINT, path=ann, line=lineno)
            stored = " ".join(src.stored_slice(s, e) for s, e in frags)
            if _flat(stored) != _flat(fields[2]):
                where = ";".join(f"{s} {e}" for s, e in frags)
                raise InputError(f"span text does not match the .txt file at offsets {where} "
                                 + CHECK_TEXT_HINT, path=ann, line=lineno,
                                 offset=frags[0][0])
        if len(frags) > 1:
            if o.discontinuous == "error":
                raise InputError(f"discontinuous span with {len(frags)} fragments (reader option discontinuous=split "
                                 "or merge accepts it; command line: -O discontinuous=split)", path=ann, line=lineno,
                                 offset=frags[0][0])
            o.stats.discontinuous_spans += 1
            if o.discontinuous == "merge":
                frags = [(min(s for s, _ in frags), max(e for _, e in frags))]
        for s, e in frags:
            mapped = src.span(s, e)
            if mapped is None:
                o.stats.spans_dropped += 1
                continue
            spans.append(Span(mapped[0], mapped[1], label))
    return spans


def write_brat(docs: Iterable[Document], path: str | Path, *, bom: str = "strip") -> None:
    """Write ``<path>/<id>.txt`` and ``<path>/<id>.ann`` for every document (folder created, files atomic).

    Span source and score are not stored (BRAT has no place for them). Labels must not contain whitespace or
    ``;`` (:class:`FormatError`). ``bom="keep"`` (texts read with ``bom="keep"``): a text that starts with U+FEFF
    is written as it is, offsets unshifted, instead of getting one more mark.
    """
    check_choice("bom", bom, BOM_POLICIES)
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    for doc in check_doc_ids(docs):
        safe_filename(doc.id, ".txt")
        stored, shift = with_bom(doc.text, bom)
        lines = []
        for i, sp in enumerate(doc.spans, 1):
            if not sp.label or re.search(r"[\s;]", sp.label):
                raise FormatError(f"document {doc.id!r}: span {i} has a label with whitespace or ';', "
                                  "which BRAT cannot store")
            lines.append(f"T{i}\t{sp.label} {sp.start + shift} {sp.end + shift}\t{_flat(doc.text[sp.start:sp.end])}\n")
        atomic_write_text(folder / f"{doc.id}.txt", stored)
        atomic_write_text(folder / f"{doc.id}.ann", "".join(lines))
