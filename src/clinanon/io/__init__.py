"""Corpus formats: a reader and a writer for each.

=========  =========================================================  ==========================================
format     input                                                      ids
=========  =========================================================  ==========================================
text       folder of ``.txt`` files, or one ``.txt`` file              file stem
jsonl      ``{"id","text","meta","spans":[...]}`` per line            the ``id`` field (else ``line-<n>``)
brat       folder of ``.txt`` + ``.ann`` (BRAT standoff)              file stem
xml        folder of i2b2-2014 / MEDDOCAN ``.xml`` files              file stem
conll      token per line, ``-DOCSTART-`` between documents           ``-DOCSTART-`` argument, else ``doc-<n>``
csv        CSV/TSV with a text column                                 id column, else ``row-<n>``
presidio   presidio-research JSON list (``full_text``, ``spans``)     ``id`` key, else the index
parquet    Parquet file or folder of them (pyarrow): a text column    id column, else ``row-<n>``
=========  =========================================================  ==========================================

* :func:`read` yields documents and raises the first :class:`~clinanon.errors.InputError`;
  :func:`iter_records` yields an :class:`~clinanon.errors.InputError` *in place of* each bad document (or one for
  a file that cannot be read at all) and goes on, so a batch run can write an errors report and account for
  every input. Options are validated before either returns (:class:`~clinanon.errors.ConfigError`).
* :func:`write` writes documents; folder formats create the folder; every file is written atomically.
* Every reader decodes UTF-8 strictly (``encoding=``, ``errors="replace"`` override), reads a file that starts
  with a UTF-16 or UTF-32 byte-order mark in that encoding, strips a BOM (offsets stay consistent: stored offsets
  count it as one character; the text, brat and xml readers and writers take ``bom="keep"``, which leaves it in
  the text as U+FEFF and writes it back: what ``clinanon deidentify`` / ``detect`` use, so that the offsets they
  write are the input file's), keeps CRLF as it is in the file, rejects lone surrogates (``"\\ud800"`` in JSON)
  and C0 control characters other than tab and line breaks unless ``control_chars="strip"`` or ``"keep"``.
  Pass ``stats=ReadStats()`` to get counters. :func:`reader_options` lists each format's options (what
  ``clinanon formats`` prints and ``--read-option`` takes).
* Errors name the file, the line or offset and what was expected, never document text.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clinanon.document import Document
from clinanon.errors import ConfigError, InputError
from clinanon.io.base import Format, FormatError, ReadStats, Record, atomic_open, atomic_write_text
from clinanon.io.brat import read_brat, write_brat
from clinanon.io.conll import read_conll, write_conll
from clinanon.io.jsonl import read_jsonl, write_jsonl
from clinanon.io.parquet import count_rows, read_parquet, write_parquet
from clinanon.io.plaintext import read_text_files, write_text_files
from clinanon.io.presidio import read_presidio, write_presidio
from clinanon.io.tabular import read_csv, write_csv
from clinanon.io.xml_i2b2 import read_xml, write_xml

__all__ = [
    "FORMATS",
    "Format",
    "FormatError",
    "ReadStats",
    "ReaderOption",
    "Record",
    "atomic_open",
    "atomic_write_text",
    "count_documents",
    "detect_format",
    "format_for_suffix",
    "get_format",
    "iter_records",
    "read",
    "reader_options",
    "write",
]

#: format name -> :class:`Format`
FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("text", read_text_files, write_text_files, (".txt",), True,
               "plain text: a folder of .txt files (or one file), one document each, no spans"),
        Format("jsonl", read_jsonl, write_jsonl, (".jsonl", ".ndjson"), False,
               'JSON Lines: {"id", "text", "meta", "spans": [{"start", "end", "label", ...}]} per line'),
        Format("brat", read_brat, write_brat, (".ann",), True,
               "BRAT standoff: a folder of .txt + .ann files"),
        Format("xml", read_xml, write_xml, (".xml",), True,
               "i2b2-2014 / MEDDOCAN XML: a folder of .xml files (TEXT in CDATA, TAGS with offsets)"),
        Format("csv", read_csv, write_csv, (".csv", ".tsv"), False,
               "CSV/TSV with a text column (id, spans as JSON, other columns are metadata)"),
        Format("presidio", read_presidio, write_presidio, (".json",), False,
               "presidio-research JSON: a list of {full_text, spans: [{entity_type, start_position, ...}]}"),
        Format("conll", read_conll, write_conll, (".conll", ".bio", ".iob", ".iob2"), False,
               "CoNLL / BIO: one token per line, blank line between sentences, -DOCSTART- between documents"),
        Format("parquet", read_parquet, write_parquet, (".parquet", ".pq"), False,
               "Apache Parquet (pyarrow: clinanon[parquet]): a text column, id, spans (JSON), meta (JSON) and other "
               "columns as metadata; a folder of part files reads as one input; streamed in batches"),
    )
}

_ALIASES = {"txt": "text", "plain": "text", "ndjson": "jsonl", "i2b2": "xml", "meddocan-xml": "xml",
            "tsv": "csv", "json": "presidio", "bio": "conll", "iob": "conll", "iob2": "conll"}



#: what each reader option does (``clinanon formats``); every keyword of a reader except ``stats`` has an entry
_OPTION_HELP: dict[str, str] = {
    "encoding": "codec of the file (default: UTF-8, or UTF-16/32 from a byte-order mark)",
    "errors": "decoding error handler: strict (default: an error record), replace, ...",
    "control_chars": "C0 control characters in a text: error (default), strip (offsets mapped) or keep",
    "bom": "a byte-order mark: strip (default for the library; offsets mapped) or keep (in the text as U+FEFF: "
           "offsets are the file's as decoded; clinanon deidentify/detect use keep)",
    "check_text": "the annotated span text must equal the text at its offsets (true/false)",
    "discontinuous": "spans with several fragments: split (default), merge or error",
    "scheme": "a label scheme; labels outside it are errors (default: any label)",
    "bad_ann": "an .ann file that cannot be read: error (default) or warn (the text is read without spans)",
    "text_column": "the column that holds the text",
    "id_column": "the column that holds the document id (else row-<n>)",
    "spans_column": "the column that holds the spans as JSON",
    "delimiter": "one character (default: tab for .tsv, else comma)",
    "label": "which XML name is the label: subtype (TYPE attribute), type (tag name) or both (TYPE.tag)",
    "repair": "ill-formed BIO sequences read as conlleval does (true) or only well-formed chunks (false)",
    "batch_size": "rows read at a time (Parquet; memory is bounded by one batch)",
}


@dataclass(frozen=True)
class ReaderOption:
    """One keyword option of a format's reader: its name, default value and what it does."""

    name: str
    default: Any
    help: str


def reader_options(format: str) -> list[ReaderOption]:
    """The keyword options of ``format``'s reader (from its signature), in order, with their help text."""
    fmt = get_format(format)
    out = []
    for p in inspect.signature(fmt.reader).parameters.values():
        if p.kind is not inspect.Parameter.KEYWORD_ONLY or p.name == "stats":
            continue
        out.append(ReaderOption(p.name, p.default, _OPTION_HELP.get(p.name, "")))
    return out


def get_format(name: str) -> Format:
    """The :class:`Format` called ``name`` (or an alias such as ``"i2b2"``, ``"bio"``), else ConfigError."""
    key = _ALIASES.get(name.lower(), name.lower())
    try:
        return FORMATS[key]
    except KeyError:
        raise ConfigError(f"unknown format {name!r}; known: {', '.join(FORMATS)}") from None


def format_for_suffix(suffix: str) -> str | None:
    """The format whose files end in ``suffix`` (``".jsonl"`` -> ``"jsonl"``), or ``None``."""
    s = suffix.lower()
    if not s:
        return None
    for f in FORMATS.values():
        if s in f.suffixes:
            return f.name
    return None


def detect_format(path: str | Path) -> str:
    """Guess the format of ``path``.

    A folder: ``.ann`` files -> brat, else ``.xml`` -> xml, else ``.txt`` -> text. A file: by suffix
    (``.jsonl``, ``.json`` = presidio, ``.conll``/``.bio``/``.iob``, ``.csv``/``.tsv``, ``.xml``, ``.ann``;
    ``.txt`` is brat when an ``.ann`` file of the same stem sits next to it, else text).
    Raises :class:`InputError` when nothing fits.
    """
    p = Path(path)
    if p.is_dir():
        try:
            suffixes = {c.suffix.lower() for c in p.iterdir() if c.is_file()}
        except OSError as e:
            raise InputError(f"cannot list the folder: {e.strerror}", path=p) from None
        for suffix, name in ((".ann", "brat"), (".xml", "xml"), (".txt", "text"), (".parquet", "parquet")):
            if suffix in suffixes:
                return name
        raise InputError("cannot detect the format: no .ann, .xml, .txt or .parquet files in the folder", path=p)
    if not p.exists():
        raise InputError("no such file or folder", path=p)
    suffix = p.suffix.lower()
    if suffix == ".txt":
        return "brat" if p.with_suffix(".ann").exists() else "text"
    name = format_for_suffix(suffix)
    if name is None:
        raise InputError(f"cannot detect the format of a {suffix or 'suffix-less'} file; pass format=...", path=p)
    return name


def iter_records(path: str | Path, format: str | None = None, **options: Any) -> Iterator[Record]:
    """Every document of ``path``, or an :class:`InputError` in place of each one that cannot be read.

    A path whose format cannot be detected yields one error. Bad options raise :class:`ConfigError` (or
    ``TypeError`` for an option the format does not take) before this returns.
    """
    if format is None:
        try:
            format = detect_format(path)
        except InputError as e:
            return iter((e,))
    return get_format(format).reader(path, **options)


def read(path: str | Path, format: str | None = None, **options: Any) -> Iterator[Document]:
    """Every document of ``path``; the first bad one raises its :class:`InputError`."""
    records = iter_records(path, format, **options)

    def docs() -> Iterator[Document]:
        for rec in records:
            if isinstance(rec, InputError):
                raise rec
            yield rec

    return docs()


def write(docs: Iterable[Document], path: str | Path, format: str, **options: Any) -> None:
    """Write ``docs`` to ``path`` in ``format`` (a folder for folder formats, created when missing)."""
    get_format(format).writer(docs, path, **options)


def count_documents(path: str | Path, format: str | None = None) -> int | None:
    """A cheap document count for progress bars (files in a folder, non-blank JSONL lines, ``-DOCSTART-``
    lines), or ``None`` when it would need a full parse."""
    p = Path(path)
    name = get_format(format).name if format else detect_format(p)
    if name in ("text", "xml"):
        return len(list(p.glob("*.txt" if name == "text" else "*.xml"))) if p.is_dir() else 1
    if name == "brat":
        return len({c.stem for c in p.iterdir() if c.suffix in (".txt", ".ann")}) if p.is_dir() else 1
    if name == "jsonl":
        with open(p, "rb") as f:
            return sum(1 for line in f if line.strip())
    if name == "conll":
        with open(p, "rb") as f:
            n = sum(1 for line in f if line.startswith(b"-DOCSTART-"))
        return max(n, 1)
    if name == "parquet":
        return count_rows(p)
    return None
