"""Plain text: one document per ``.txt`` file (id = file stem), no spans, no metadata.

Reading takes a folder (every ``*.txt`` in it, not recursive, in id order) or a single ``.txt`` file. An empty
file is a document with empty text. The writer writes ``<folder>/<id>.txt`` for every document.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from clinanon.document import Document
from clinanon.errors import InputError
from clinanon.io.base import (
    BOM_POLICIES,
    ReadStats,
    Record,
    atomic_write_text,
    check_choice,
    check_doc_ids,
    check_read_options,
    guard,
    list_files,
    make_document,
    read_source_text,
    safe_filename,
    with_bom,
)

__all__ = ["read_text_files", "write_text_files"]


def read_text_files(
    path: str | Path,
    *,
    encoding: str | None = None,
    errors: str = "strict",
    control_chars: str = "error",
    bom: str = "strip",
    stats: ReadStats | None = None,
) -> Iterator[Record]:
    """Documents from a folder of ``.txt`` files or from one ``.txt`` file; a file that cannot be read yields an
    :class:`InputError` in its place. ``bom="keep"``: a byte-order mark stays in the text (offsets are the
    file's as decoded)."""
    check_read_options(encoding, errors, control_chars)
    check_choice("bom", bom, BOM_POLICIES)
    st = stats if stats is not None else ReadStats()
    return _read(Path(path), encoding, errors, control_chars, st, bom)


def _read(path: Path, encoding: str | None, errors: str, control_chars: str, st: ReadStats,
          bom: str = "strip") -> Iterator[Record]:
    if path.is_dir():
        files = list_files(path, ".txt")
    elif path.exists():
        files = [path]
    else:
        yield st.count(InputError("no such file or folder", path=path))
        return
    for f in files:
        def one(f: Path = f) -> Document:
            src = read_source_text(f, encoding=encoding, errors=errors, control_chars=control_chars, stats=st,
                                   bom=bom)
            return make_document(f.stem, src.text, (), None, path=f, errors=errors, stats=st)

        yield st.count(guard(f, one, f.stem), path=f)


def write_text_files(docs: Iterable[Document], path: str | Path, *, bom: str = "strip") -> None:
    """Write ``<path>/<id>.txt`` for every document (the folder is created; each file written atomically).

    The text is written exactly; a text that starts with U+FEFF gets one more (the reader strips one), unless
    ``bom="keep"`` (texts read with ``bom="keep"``: written exactly).
    """
    check_choice("bom", bom, BOM_POLICIES)
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    for doc in check_doc_ids(docs):
        name = safe_filename(doc.id, ".txt")
        atomic_write_text(folder / name, with_bom(doc.text, bom)[0])
