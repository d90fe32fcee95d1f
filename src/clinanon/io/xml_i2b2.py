"""i2b2-2014 XML and MEDDOCAN's variant: one document per file.

::

    <deIdi2b2>                       (MEDDOCAN: <MEDDOCAN>; any root element is read)
      <TEXT><![CDATA[...]]></TEXT>
      <TAGS>
        <NAME id="P0" start="16" end="26" text="..." TYPE="PATIENT" comment=""/>
      </TAGS>
    </deIdi2b2>

The tag name is the PHI *type* (``NAME``), the ``TYPE`` attribute the native label (i2b2: the subtype such as
``PATIENT``; MEDDOCAN: its label such as ``NOMBRE_SUJETO_ASISTENCIA``). Option ``label``:

* ``"subtype"`` (default): the label is the ``TYPE`` attribute (the tag name when it has none);
* ``"type"``: the tag name;
* ``"both"``: ``"<tag>.<TYPE>"``, e.g. ``"NAME.PATIENT"`` — for i2b2 this is the canonical category.

Offsets count the characters of the ``TEXT`` content; a U+FEFF at its start is a byte-order mark copied from the
source ``.txt`` (MEDDOCAN has 22) that the offsets count: it is stripped and the offsets shifted, exactly as the
BRAT reader does, so both readers yield identical documents. ``check_text=True`` compares the ``text`` attribute
with the text at the offsets (whitespace compared as spaces, as XML attribute normalisation demands).

XML 1.0 itself decides a few things: line ends in the file are normalised to ``\\n`` by the parser (a ``\\r``
survives only as ``&#13;``, which is what the writer emits), and C0 control characters other than tab and line
breaks (and U+FFFE/U+FFFF) cannot occur — such a file is malformed XML, and the writer refuses such a text with
a :class:`~clinanon.io.base.FormatError`. DTDs (and so entity declarations) are refused. Malformed XML is an
:class:`InputError` with the parser's line and column. Unless ``encoding`` is given, the encoding declared in
the XML declaration is used (UTF-8 by default).

The writer writes ``<folder>/<id>.xml`` with root ``"deIdi2b2"`` (default) or ``"MEDDOCAN"``; the text goes into
CDATA sections (``]]>`` and ``\\r`` are written outside them, so any text round-trips), each span becomes an element
named after its type: with ``label="both"`` the part before the first dot, else the tag MEDDOCAN uses for a
MEDDOCAN label, else the parent of the label's canonical category (i2b2 labels and canonical categories), else
``OTHER``.
"""

from __future__ import annotations

import re
import xml.parsers.expat as expat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from clinanon.document import Document, Span
from clinanon.errors import ConfigError, InputError
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
    list_files,
    make_document,
    read_bytes,
    safe_filename,
    with_bom,
)
from clinanon.taxonomy import get_scheme, parent

__all__ = ["read_xml", "write_xml"]

_LABEL_MODES = ("subtype", "type", "both")
_DECL_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_XML_FORBIDDEN = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9._-]*")
_WS = re.compile("[\t\n\r]")

# the element MEDDOCAN's XML puts each of its labels in (read off the corpus)
_MEDDOCAN_TAGS = {
    "EDAD_SUJETO_ASISTENCIA": "AGE", "CORREO_ELECTRONICO": "CONTACT", "NUMERO_FAX": "CONTACT",
    "NUMERO_TELEFONO": "CONTACT", "URL_WEB": "CONTACT", "DIREC_PROT_INTERNET": "CONTACT", "FECHAS": "DATE",
    "NOMBRE_SUJETO_ASISTENCIA": "NAME", "NOMBRE_PERSONAL_SANITARIO": "NAME",
    "FAMILIARES_SUJETO_ASISTENCIA": "OTHER", "OTROS_SUJETO_ASISTENCIA": "OTHER", "SEXO_SUJETO_ASISTENCIA": "OTHER",
    "PROFESION": "PROFESSION",
}
_I2B2_TYPES = ("NAME", "PROFESSION", "LOCATION", "AGE", "DATE", "CONTACT", "ID")


def read_xml(
    path: str | Path,
    *,
    encoding: str | None = None,
    errors: str = "strict",
    control_chars: str = "error",
    label: str = "subtype",
    check_text: bool = True,
    bom: str = "strip",
    stats: ReadStats | None = None,
) -> Iterator[Record]:
    """Documents from a folder of ``.xml`` files (in id order) or one ``.xml`` file; a bad file yields an
    :class:`InputError` in its place. ``control_chars`` is accepted for uniformity: XML cannot hold them.
    ``bom="keep"``: a byte-order mark at the start of the TEXT stays in the text (offsets as stored)."""
    check_read_options(encoding, errors, control_chars)
    check_choice("label", label, _LABEL_MODES)
    check_choice("bom", bom, BOM_POLICIES)
    st = stats if stats is not None else ReadStats()
    return _read(Path(path), encoding, errors, label, check_text, st, bom)


def _read(path: Path, encoding: str | None, errors: str, label: str, check_text: bool,
          st: ReadStats, bom: str = "strip") -> Iterator[Record]:
    if path.is_dir():
        files = list_files(path, ".xml")
    elif path.exists():
        files = [path]
    else:
        yield st.count(InputError("no such file or folder", path=path))
        return
    for f in files:
        yield st.count(guard(f, lambda f=f: _read_file(f, encoding, errors, label, check_text, st, bom), f.stem),  # type: ignore[misc]
                       path=f)


@dataclass
class _Tag:
    name: str
    attrs: dict[str, str]
    line: int


@dataclass
class _Collector:
    depth: int = 0
    root: str | None = None
    text_parts: list[str] = field(default_factory=list)
    in_text: bool = False
    seen_text: bool = False
    in_tags: bool = False
    tags: list[_Tag] = field(default_factory=list)


class _Doctype(Exception):
    def __init__(self, line: int) -> None:
        self.line = line


def _parse(text: str, path: Path) -> _Collector:
    c = _Collector()
    p = expat.ParserCreate()
    p.buffer_text = True
    p.buffer_size = 1 << 20

    def start(name: str, attrs: dict[str, str]) -> None:
        c.depth += 1
        if c.depth == 1:
            c.root = name
        elif c.depth == 2 and name == "TEXT":
            if c.seen_text:
                raise InputError("more than one <TEXT> element", path=path, line=p.CurrentLineNumber)
            c.in_text = c.seen_text = True
        elif c.depth == 2 and name == "TAGS":
            c.in_tags = True
        elif c.depth == 3 and c.in_tags:
            c.tags.append(_Tag(name, attrs, p.CurrentLineNumber))

    def end(name: str) -> None:
        if c.depth == 2:
            c.in_text = c.in_tags = False
        c.depth -= 1

    def data(s: str) -> None:
        if c.in_text:
            c.text_parts.append(s)

    def doctype(*_: object) -> None:
        raise _Doctype(p.CurrentLineNumber)

    p.StartElementHandler = start
    p.EndElementHandler = end
    p.CharacterDataHandler = data
    p.StartDoctypeDeclHandler = doctype
    p.EntityDeclHandler = doctype
    try:
        p.Parse(text, True)  # a str is parsed as UTF-8 whatever the declaration says: decoding was ours
    except expat.ExpatError as e:
        raise InputError(f"malformed XML: {expat.ErrorString(e.code)} (column {e.offset + 1})",
                         path=path, line=e.lineno) from None
    except _Doctype as e:
        raise InputError("a DTD (<!DOCTYPE>) is not allowed", path=path, line=e.line) from None
    return c


def _read_file(f: Path, encoding: str | None, errors: str, label: str, check_text: bool,
               st: ReadStats, bom_policy: str = "strip") -> Document:
    data = read_bytes(f)
    if encoding is None:
        m = _DECL_ENCODING.match(data[:1024])
        if m is not None:
            encoding = m.group(1).decode("ascii")
            try:
                check_read_options(encoding, errors, "keep")
            except ConfigError:
                raise InputError(f"unknown encoding {encoding!r} in the XML declaration", path=f, line=1) from None
    content, _ = decode_bytes(data, path=f, encoding=encoding, errors=errors)
    c = _parse(content, f)
    if not c.seen_text:
        raise InputError("no <TEXT> element under the root element", path=f)
    stored = "".join(c.text_parts)
    bom = stored.startswith("\ufeff") and bom_policy != "keep"
    if bom:
        st.boms_stripped += 1
    src = SourceText(stored[1:], stored[1:], bom) if bom else SourceText(stored, stored)
    n = src.stored_length
    spans = []
    for t in c.tags:
        try:
            s, e = int(t.attrs["start"]), int(t.attrs["end"])
        except KeyError as err:
            raise InputError(f"<{t.name}> has no {err.args[0]!r} attribute", path=f, line=t.line) from None
        except ValueError:
            raise InputError(f"<{t.name}>: 'start' and 'end' must be integers", path=f, line=t.line) from None
        if not 0 <= s < e:
            raise InputError(f"<{t.name}>: span [{s}, {e}) is empty or reversed", path=f, line=t.line, offset=s)
        if e > n:
            raise InputError(f"<{t.name}>: span [{s}, {e}) ends past the text (length {n})", path=f, line=t.line,
                             offset=s)
        if check_text and "text" in t.attrs and _WS.sub(" ", src.stored_slice(s, e)) != _WS.sub(" ", t.attrs["text"]):
            raise InputError(f"<{t.name}>: the text attribute does not match the text at offsets [{s}, {e}) "
                             + CHECK_TEXT_HINT, path=f, line=t.line, offset=s)
        subtype = t.attrs.get("TYPE") or t.name
        name = {"subtype": subtype, "type": t.name, "both": f"{t.name}.{subtype}"}[label]
        mapped = src.span(s, e)
        if mapped is None:
            st.spans_dropped += 1
            continue
        spans.append(Span(mapped[0], mapped[1], name))
    return make_document(f.stem, src.text, spans, None, path=f)


# --- writing ------------------------------------------------------------------------------------------------

def _cdata(text: str) -> str:
    body = text.replace("]]>", "]]]]><![CDATA[>").replace("\r", "]]>&#13;<![CDATA[")
    return f"<![CDATA[{body}]]>"


def _attr(value: str) -> str:
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("\t", "&#9;").replace("\n", "&#10;").replace("\r", "&#13;"))


def _tag_for(label: str) -> str:
    if label in _MEDDOCAN_TAGS:
        return _MEDDOCAN_TAGS[label]
    for scheme in ("meddocan", "i2b2-2014", "canonical"):
        sch = get_scheme(scheme)
        if label in sch:
            top = parent(sch.category(label))
            return top if top in _I2B2_TYPES else "OTHER"
    return "OTHER"


def write_xml(docs: Iterable[Document], path: str | Path, *, root: str = "deIdi2b2", label: str = "subtype",
              bom: str = "strip") -> None:
    """Write ``<path>/<id>.xml`` for every document (folder created, files written atomically).

    ``label="both"`` splits each label at its first dot into tag and ``TYPE`` (the inverse of reading with
    ``label="both"``); otherwise the label is the ``TYPE`` and the tag is chosen as the module doc says.
    Span source and score are not stored. A text with a character XML 1.0 forbids raises :class:`FormatError`.
    ``bom="keep"`` (texts read with ``bom="keep"``): a text that starts with U+FEFF is stored as it is.
    """
    check_choice("label", label, ("subtype", "both"))
    check_choice("bom", bom, BOM_POLICIES)
    if not _NAME.fullmatch(root):
        raise ConfigError(f"option root={root!r} is not an XML element name")
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    for doc in check_doc_ids(docs):
        safe_filename(doc.id, ".xml")
        bad = _XML_FORBIDDEN.search(doc.text)
        if bad is not None:
            raise FormatError(f"document {doc.id!r}: character U+{ord(bad.group()):04X} at offset {bad.start()} "
                              "cannot be stored in XML 1.0")
        stored, shift = with_bom(doc.text, bom)
        out = ["<?xml version='1.0' encoding='UTF-8'?>\n", f"<{root}>\n", "  <TEXT>", _cdata(stored), "</TEXT>\n",
               "  <TAGS>\n"]
        for i, sp in enumerate(doc.spans, 1):
            if label == "both" and "." in sp.label:
                tag, subtype = sp.label.split(".", 1)
            else:
                tag, subtype = _tag_for(sp.label), sp.label
            if not _NAME.fullmatch(tag) or _XML_FORBIDDEN.search(subtype):
                raise FormatError(f"document {doc.id!r}: span {i}: label {sp.label!r} cannot be stored in XML")
            out.append(f'    <{tag} id="T{i}" start="{sp.start + shift}" end="{sp.end + shift}" '
                       f'text="{_attr(doc.text[sp.start:sp.end])}" TYPE="{_attr(subtype)}" comment=""/>\n')
        out.append(f"  </TAGS>\n</{root}>\n")
        atomic_write_text(folder / f"{doc.id}.xml", "".join(out))
