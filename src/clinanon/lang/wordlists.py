"""The word lists shipped with clinanon, and user lists in the same format, read as rows of columns.

The lists live in ``clinanon/data/gazetteers/<lang>/`` (built by ``scripts/build_gazetteers.py`` from Faker's
locale providers, Babel/CLDR and a few hand-written tables): one entry per line, tab-separated columns
(a first name's gender, a city's region and country ...), ``#`` comments and blank lines skipped. Detectors
(gazetteer, rules, CRF features) and surrogate generators read the same rows through :func:`load_rows`.
Errors name the file and line, never an entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from clinanon.caches import memo
from clinanon.errors import ConfigError, InputError

__all__ = ["LIST_FILES", "context_cities", "data_dir", "load_rows", "read_rows", "read_user_list"]

#: kinds with a built-in list, and the file each one is read from
LIST_FILES: Mapping[str, str] = {
    "first_name": "first_names.txt",
    "surname": "surnames.txt",
    "city": "cities.txt",
    "region": "regions.txt",
    "country": "countries.txt",
    "hospital": "hospitals.txt",
}


def data_dir(lang: str) -> Path:
    """The folder of the shipped lists of ``lang`` (it may not exist)."""
    return Path(str(resources.files("clinanon") / "data" / "gazetteers" / lang))


def read_rows(path: Path) -> list[tuple[int, list[str]]]:
    """``(line number, stripped tab-separated columns)`` of every entry line of a UTF-8 list file.

    Raises :class:`~clinanon.errors.InputError` naming the file when it cannot be read or is not UTF-8."""
    try:
        raw = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text (byte {e.start})", path=path) from None
    except OSError as e:
        raise InputError(f"cannot read list file ({type(e).__name__})", path=path) from None
    rows = []
    for n, line in enumerate(raw.splitlines(), 1):
        line = line.strip("\ufeff").rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        rows.append((n, [c.strip() for c in line.split("\t")]))
    return rows


@memo(maxsize=64)
def load_rows(lang: str, kind: str) -> tuple[tuple[str, ...], ...]:
    """The built-in list of ``kind`` for ``lang`` as tuples of columns (cached; empty when none ships)."""
    if kind not in LIST_FILES:
        raise ConfigError(f"no built-in gazetteer kind {kind!r}; expected one of: {', '.join(LIST_FILES)}")
    path = data_dir(lang) / LIST_FILES[kind]
    if not path.is_file():
        return ()
    return tuple(tuple(cols) for _, cols in read_rows(path))


@memo(maxsize=8)
def context_cities(lang: str) -> tuple[str, ...]:
    """City names that the gazetteer reports only with place context (``cities_context.txt``, built by
    ``scripts/build_city_context.py``): English cities that are also people's names, German towns that are also
    people's names or common words. Empty when none ships."""
    return _first_column(lang, "cities_context.txt")


def word_towns(lang: str) -> tuple[str, ...]:
    """Town names made of common words that the rules report only after a word of residence or travel
    (``towns_words.txt``, built by ``scripts/build_city_context.py``; English: "Enterprise", "Elk City"). Empty
    when none ships."""
    return _first_column(lang, "towns_words.txt")


def _first_column(lang: str, filename: str) -> tuple[str, ...]:
    """The entries (first column) of the shipped list ``filename`` of ``lang``; empty when it does not ship."""
    path = data_dir(lang) / filename
    if not path.is_file():
        return ()
    return tuple(cols[0] for _, cols in read_rows(path) if cols and cols[0])


def read_user_list(path: str | Path, kind: str) -> list[tuple[str, str, str]]:
    """A user list: one entry per line (``#`` comments and blank lines skipped); first names may carry a
    second column ``F``/``M``/``N``. Returns ``(entry, kind, attr)`` triples. Raises :class:`InputError` naming
    the file and line on a bad line."""
    p = Path(path)
    out = []
    for n, cols in read_rows(p):
        if not cols[0]:
            raise InputError("expected an entry before the first tab", path=p, line=n)
        attr = ""
        if kind == "first_name" and len(cols) > 1 and cols[1]:
            if cols[1] not in ("F", "M", "N"):
                raise InputError("expected gender F, M or N in the second column", path=p, line=n)
            attr = cols[1]
        out.append((cols[0], kind, attr))
    return out
