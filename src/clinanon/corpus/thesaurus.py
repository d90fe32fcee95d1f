"""Synonym lexicons for :class:`~clinanon.corpus.techniques.SynonymReplacement`: one compact file per language.

Format (UTF-8, optionally gzip-compressed, ``.tsv`` or ``.tsv.gz``): lines starting with ``#`` are comments (the
build script writes the source and licence there); every other line is ``headword<TAB>synonym|synonym|...``
(more tab-separated fields are more synonyms). Headwords are matched case-insensitively; a synonym keeps its own
spelling and takes the case pattern of the word it replaces. The same format is the **user lexicon** for any
language (your own list, a terminology export, ...).

Where a language's file is looked for, when a technique names a language instead of a path:
``$CLINANON_THESAURI/<lang>.tsv.gz`` (or ``.tsv``), else ``~/.local/share/clinanon/thesauri/<lang>.tsv.gz``.
``python scripts/build_thesauri.py`` writes them from the Debian packages ``mythes-es``, ``mythes-de``,
``mythes-sv`` (LibreOffice MyThes thesauri, ``/usr/share/mythes``) and ``wordnet-base`` (Princeton WordNet 3.0,
``/usr/share/wordnet``) — they are not shipped in the package (their licences differ from the package's: LGPL for
the Spanish and German thesauri, the WordNet 3.0 licence, the Swedish thesaurus's own terms; see the header of
each built file).
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Mapping
from pathlib import Path

from clinanon.errors import ConfigError, InputError

__all__ = ["THESAURI_ENV", "default_dir", "find_thesaurus", "load_thesaurus", "read_lexicon", "write_lexicon"]

THESAURI_ENV = "CLINANON_THESAURI"


def default_dir() -> Path:
    """The folder of built thesauri: ``$CLINANON_THESAURI`` or ``~/.local/share/clinanon/thesauri``."""
    env = os.environ.get(THESAURI_ENV)
    return Path(env) if env else Path.home() / ".local" / "share" / "clinanon" / "thesauri"


def find_thesaurus(name: str | Path) -> Path:
    """A lexicon path: ``name`` itself when it is a file, else the built thesaurus of language ``name``."""
    p = Path(name)
    if p.is_file():
        return p
    folder = default_dir()
    for candidate in (folder / f"{name}.tsv.gz", folder / f"{name}.tsv"):
        if candidate.is_file():
            return candidate
    raise ConfigError(f"no synonym lexicon {str(name)!r}: not a file, and no {name}.tsv.gz in {folder} (build the "
                      f"thesauri with `python scripts/build_thesauri.py`, set ${THESAURI_ENV}, or give a lexicon "
                      f"file: headword<TAB>synonym|synonym per line)")


def read_lexicon(path: str | Path) -> dict[str, tuple[str, ...]]:
    """headword (lower-cased) -> synonyms (deduplicated, in file order, the headword itself left out)."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    out: dict[str, list[str]] = {}
    try:
        with opener(path, "rt", encoding="utf-8") as fh:  # type: ignore[operator]
            for lineno, line in enumerate(fh, 1):
                line = line.rstrip("\n")
                if not line.strip() or line.startswith("#"):
                    continue
                fields = line.split("\t")
                if len(fields) < 2:
                    raise InputError(f"{path}, line {lineno}: expected headword<TAB>synonym|synonym")
                head = fields[0].strip().lower()
                syns = out.setdefault(head, [])
                for f in fields[1:]:
                    for s in f.split("|"):
                        s = s.strip()
                        if s and s.lower() != head and s not in syns:
                            syns.append(s)
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 (byte {e.start})") from None
    return {h: tuple(s) for h, s in out.items() if s}


_CACHE: dict[tuple[str, float], dict[str, tuple[str, ...]]] = {}


def load_thesaurus(name: str | Path) -> dict[str, tuple[str, ...]]:
    """:func:`read_lexicon` of :func:`find_thesaurus` (``name``), cached per process (by path and mtime)."""
    path = find_thesaurus(name)
    key = (str(path.resolve()), path.stat().st_mtime)
    lex = _CACHE.get(key)
    if lex is None:
        lex = _CACHE[key] = read_lexicon(path)
    return lex


def write_lexicon(lexicon: Mapping[str, list[str] | tuple[str, ...]], path: str | Path,
                  header: list[str] | tuple[str, ...] = ()) -> Path:
    """Write a lexicon in the format above (gzip when ``path`` ends in ``.gz``); headwords sorted."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", encoding="utf-8") as fh:  # type: ignore[operator]
        for h in header:
            fh.write(f"# {h}\n")
        for head in sorted(lexicon):
            syns = [s for s in lexicon[head] if "\t" not in s and "|" not in s and "\n" not in s]
            if syns and "\t" not in head:
                fh.write(head + "\t" + "|".join(syns) + "\n")
    return path
