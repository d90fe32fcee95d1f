"""Word lists the audit uses to call a string name-like or place-like, and to leave common words out.

* person names: the first-name and surname gazetteers that ship with clinanon (``clinanon/data/gazetteers``) and
  Faker's person-name lists of the language's locale (a dependency of clinanon), plus user lists;
* places: the shipped city, region and country gazetteers;
* common words: the shipped common-word lexicons (``clinanon/data/lexicons/common``, from spacy-lookups-data);
* medical eponyms: :data:`EPONYMS`, a hand-written list of surnames that name diseases, signs, scores, tests and
  procedures ("Parkinson", "Glasgow", "Apgar") — a model that predicts them has learnt medicine, not a patient.

Every list is folded (:func:`clinanon.audit._text.fold`) and loaded once per language. A list that is missing
(another layout of the package data) is empty, never an error: the audit then says less, it does not fail.
"""

from __future__ import annotations

import importlib
import lzma
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from clinanon.audit._text import fold

__all__ = ["EPONYMS", "LANGUAGES", "NameLists", "common_words", "name_lists", "read_word_list"]

LANGUAGES = ("es", "en", "nl", "sv", "de")

#: surnames that name diseases, signs, scores, tests and procedures; general medical vocabulary. Eponyms that are
#: also frequent surnames ("Parkinson" stays, "Wilson", "Turner" or "Down" do not) are left out.
_EPONYM_WORDS = (
    "Addison", "Alport", "Alzheimer", "Angelman", "Apgar", "Asperger", "Auspitz", "Babinski", "Bankart", "Barr",
    "Barrett", "Barré", "Barthel", "Bechterew", "Behçet", "Bence", "Billroth", "Blumberg", "Boerhaave", "Breslow",
    "Brudzinski", "Buerger", "Burkitt", "Charcot", "Cheyne", "Churg", "Chvostek", "Colles", "Coombs", "Courvoisier",
    "Creutzfeldt", "Crohn", "Cushing", "Darier", "Doppler", "Duchenne", "Dukes", "Dupuytren", "Ellison", "Epstein",
    "Fallot", "Fanconi", "Finkelstein", "Fontaine", "Galeazzi", "Ganz", "Gaucher", "Glasgow", "Gleason",
    "Goodpasture", "Gram", "Guillain", "Gustilo", "Hashimoto", "Henoch", "Hinchey", "Hirschsprung", "Hodgkin",
    "Holter", "Homans", "Horner", "Huntington", "Hurler", "Ilizarov", "Jakob", "Kaposi", "Karnofsky", "Kartagener",
    "Kawasaki", "Kehr", "Kernig", "Killip", "Kirschner", "Klinefelter", "Kocher", "Koebner", "Korsakoff",
    "Kussmaul", "Lachman", "Lasègue", "Leriche", "Lichtenstein", "Lown", "Lyme", "Mallampati", "Mallory", "Mantoux",
    "Marfan", "McBurney", "McMurray", "Meckel", "Mohs", "Monteggia", "Moschcowitz", "Ménière", "Neer", "Niemann",
    "Nikolsky", "Nissen", "Noonan", "Paget", "Papanicolaou", "Parkinson", "Patau", "Pauwels", "Peyronie",
    "Pfannenstiel", "Phalen", "Plummer", "Prader", "Pugh", "Quetelet", "Ranson", "Raynaud", "Rett", "Rinne",
    "Romberg", "Roux", "Rovsing", "Sachs", "Schatzker", "Schatzki", "Schönlein", "Seldinger", "Sjögren",
    "Steinmann", "Sudeck", "Takayasu", "Tay", "Tietze", "Tinel", "Tourette", "Trendelenburg", "Troisier",
    "Trousseau", "Unna", "Valsalva", "Vinson", "Virchow", "Wegener", "Wernicke", "Westergren", "Whipple",
    "Willebrand", "Willi", "Wilms", "Zenker", "Zollinger"
)
EPONYMS: frozenset[str] = frozenset(fold(w) for w in _EPONYM_WORDS)


def read_word_list(path: str | Path) -> list[str]:
    """One entry per line (the first tab-separated field), ``#`` comments and blank lines skipped."""
    out = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        out.append(line.split("\t", 1)[0].strip())
    return out


def _package_file(*parts: str) -> str | None:
    try:
        res = resources.files("clinanon").joinpath("data", *parts)
        if res.is_file():
            return res.read_text(encoding="utf-8") if not parts[-1].endswith(".xz") else \
                lzma.decompress(res.read_bytes()).decode("utf-8")
    except (OSError, ModuleNotFoundError, ValueError):
        return None
    return None


def _entries(text: str | None, column: int = 0) -> list[str]:
    if not text:
        return []
    out = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) > column and cols[column].strip():
            out.append(cols[column].strip())
    return out


@lru_cache(maxsize=8)
def common_words(lang: str) -> frozenset[str]:
    """The folded common words of ``lang`` (empty when the lexicon is not there)."""
    return frozenset(fold(w) for w in _entries(_package_file("lexicons", "common", f"{lang}.txt.xz")))


_FAKER_LOCALES = {"es": "es_ES", "en": "en_US", "nl": "nl_NL", "sv": "sv_SE", "de": "de_DE"}


def _faker_names(lang: str) -> tuple[list[str], list[str]]:
    loc = _FAKER_LOCALES.get(lang)
    if loc is None:
        return [], []
    try:
        provider = importlib.import_module(f"faker.providers.person.{loc}").Provider
    except (ImportError, AttributeError):
        return [], []
    first: list[str] = []
    for attr in ("first_names", "first_names_female", "first_names_male"):
        first.extend(str(x) for x in getattr(provider, attr, ()) or ())
    last = [str(x) for x in getattr(provider, "last_names", ()) or ()]
    return first, last


@dataclass(frozen=True)
class NameLists:
    """Folded word sets for one or more languages."""

    first_names: frozenset[str]
    surnames: frozenset[str]
    places: frozenset[str]
    common: frozenset[str]

    def __repr__(self) -> str:
        return (f"NameLists(first_names={len(self.first_names)}, surnames={len(self.surnames)}, "
                f"places={len(self.places)}, common={len(self.common)})")

    def is_name(self, word: str) -> bool:
        w = fold(word)
        return w in self.first_names or w in self.surnames

    def is_place(self, word: str) -> bool:
        return fold(word) in self.places

    def is_common(self, word: str) -> bool:
        return fold(word) in self.common

    def with_names(self, names: Iterable[str]) -> NameLists:
        """The same lists with extra person names (each word of each entry)."""
        extra = {fold(w) for n in names for w in n.split() if w}
        return NameLists(self.first_names | extra, self.surnames | extra, self.places, self.common)


def _split_words(entries: Iterable[str]) -> set[str]:
    """Folded entries, and the words of multi-word entries (``"Van der Berg"`` gives ``berg`` too)."""
    out: set[str] = set()
    for e in entries:
        f = fold(e)
        out.add(f)
        parts = f.split()
        if len(parts) > 1:
            out.update(p for p in parts if len(p) >= 3)
    return out


@lru_cache(maxsize=16)
def name_lists(langs: tuple[str, ...] = LANGUAGES) -> NameLists:
    """The name, place and common-word lists of ``langs`` together."""
    first: set[str] = set()
    last: set[str] = set()
    places: set[str] = set()
    common: set[str] = set()
    for lang in langs:
        first |= _split_words(_entries(_package_file("gazetteers", lang, "first_names.txt")))
        last |= _split_words(_entries(_package_file("gazetteers", lang, "surnames.txt")))
        f, s = _faker_names(lang)
        first |= _split_words(f)
        last |= _split_words(s)
        for kind in ("cities.txt", "regions.txt", "countries.txt"):
            text = _package_file("gazetteers", lang, kind)
            places |= _split_words(_entries(text, 0)) | _split_words(_entries(text, 1))
        common |= common_words(lang)
    return NameLists(frozenset(first), frozenset(last), frozenset(places), frozenset(common))
