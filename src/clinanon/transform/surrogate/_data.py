"""Word lists the generators draw from, per language, loaded once per process.

* Person names and street/company parts come from Faker's locale providers, read as **lists** (never through
  Faker's global random state): ``faker.providers.person.es_ES.Provider.first_names_female`` ... Weighted lists
  (``OrderedDict`` name -> frequency, as in ``en_US``/``sv_SE``) keep their weights.
* Gender of a first name, cities with their region and country, regions, countries with their continent and
  hospitals come from the gazetteer files shipped in ``clinanon/data/gazetteers/<lang>/`` (read through
  :func:`clinanon.lang.wordlists.load_rows`; the hospital head words with :func:`clinanon.lang.wordlists.read_rows`).
* A few short lists with no Faker source (professions, departments, relation words) are written here.

Every list is a tuple in a fixed order, so a keyed index picks the same entry on every machine.
"""

from __future__ import annotations

import bisect
import importlib
import itertools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from clinanon.caches import memo
from clinanon.lang.wordlists import data_dir, load_rows, read_rows
from clinanon.transform.surrogate._text import normalize

__all__ = [
    "FAKER_LOCALE",
    "HOME_COUNTRY",
    "LANGS",
    "Places",
    "WeightedList",
    "first_name_gender",
    "gazetteer_rows",
    "given_names",
    "places",
    "surnames",
]

#: the languages in the order surrogate look-ups try them (Spanish first; not :data:`clinanon.lang.LANGUAGES`'s order)
LANGS: tuple[str, ...] = ("es", "en", "nl", "sv", "de")
#: the Faker locale whose lists each note language draws surrogates from
FAKER_LOCALE: Mapping[str, str] = {"es": "es_ES", "en": "en_US", "nl": "nl_NL", "sv": "sv_SE", "de": "de_DE"}
#: the country a note of each language is assumed to come from (for unknown places)
HOME_COUNTRY: Mapping[str, str] = {"es": "ES", "en": "US", "nl": "NL", "sv": "SE", "de": "DE"}


def _lang(lang: str) -> str:
    return lang if lang in FAKER_LOCALE else "en"


@memo(maxsize=64)
def gazetteer_rows(lang: str, kind: str) -> tuple[tuple[str, ...], ...]:
    """Rows (tuples of tab-separated columns) of a shipped gazetteer file (a kind of
    :data:`clinanon.lang.wordlists.LIST_FILES`, or ``"hospital_word"``); empty when there is none."""
    if kind != "hospital_word":
        return load_rows(lang, kind)
    path = data_dir(lang) / "hospital_words.txt"
    if not path.is_file():
        return ()
    return tuple(tuple(cols) for _, cols in read_rows(path))


@dataclass(frozen=True)
class WeightedList:
    """Entries with cumulative weights: ``pick(u)`` maps ``u`` in ``[0, 1)`` to an entry by weight."""

    items: tuple[str, ...]
    cumulative: tuple[float, ...]

    @classmethod
    def of(cls, items: Sequence[str] | Mapping[str, float]) -> WeightedList:
        if isinstance(items, Mapping):
            names = tuple(items)
            weights = [float(items[n]) for n in names]
        else:
            names = tuple(items)
            weights = [1.0] * len(names)
        return cls(names, tuple(itertools.accumulate(weights)))

    def __len__(self) -> int:
        return len(self.items)

    def __post_init__(self) -> None:
        # derived once (the dataclass is frozen): the total weight and the last index, read by every pick, and
        # whether every weight is 1 (cumulative weights 1.0, 2.0, ... n: exact in floating point)
        object.__setattr__(self, "_total", self.cumulative[-1] if self.cumulative else 0.0)
        object.__setattr__(self, "_last", len(self.items) - 1)
        object.__setattr__(self, "uniform", all(c == i for i, c in enumerate(self.cumulative, 1)))

    def pick(self, u: float) -> str:
        """The entry whose cumulative-weight interval holds ``u * total`` (``0 <= u < 1``).

        With equal weights that is entry ``int(u * total)``: the number of cumulative weights ``1.0, 2.0, ...`` at
        most ``u * total`` (what the binary search over them finds), without touching them."""
        x = u * self._total  # type: ignore[attr-defined]
        i = int(x) if self.uniform else bisect.bisect_right(self.cumulative, x)  # type: ignore[attr-defined]
        return self.items[min(i, self._last)]  # type: ignore[attr-defined]


def _provider(kind: str, lang: str) -> type | None:
    try:
        return importlib.import_module(f"faker.providers.{kind}.{FAKER_LOCALE[_lang(lang)]}").Provider  # type: ignore[no-any-return]
    except (ImportError, AttributeError):
        return None


def _single_words(items: Sequence[str] | Mapping[str, float]) -> Sequence[str] | Mapping[str, float]:
    """Keep one-word entries only (the shape of a name is kept part by part)."""
    def ok(s: str) -> bool:
        return bool(s) and " " not in s and "-" not in s and "," not in s and s[0].isupper()

    if isinstance(items, Mapping):
        return {k: v for k, v in items.items() if ok(k)}
    return [s for s in items if ok(s)]


@memo(maxsize=32)
def given_names(lang: str, gender: str) -> WeightedList:
    """Single-word first names of ``lang``'s Faker locale for ``gender`` ``"F"``, ``"M"`` or ``"N"``.

    ``"N"`` (neutral) uses the gazetteer's neutral names of ``lang`` when it has at least 20, else both lists.
    """
    p = _provider("person", lang)
    female = getattr(p, "first_names_female", ()) if p else ()
    male = getattr(p, "first_names_male", ()) if p else ()
    if gender == "F":
        return WeightedList.of(_single_words(female))
    if gender == "M":
        return WeightedList.of(_single_words(male))
    neutral = sorted({r[0] for r in gazetteer_rows(_lang(lang), "first_name")
                      if len(r) > 1 and r[1] == "N" and " " not in r[0]})
    if len(neutral) >= 20:
        return WeightedList.of(neutral)
    both = list(_single_words(female)) + list(_single_words(male))
    return WeightedList.of(sorted(set(both)))


@memo(maxsize=32)
def given_names_by_letter(lang: str, gender: str) -> dict[str, WeightedList]:
    """:func:`given_names` grouped by their accent-folded upper-case initial."""
    wl = given_names(lang, gender)
    groups: dict[str, dict[str, float]] = {}
    prev = 0.0
    for name, cum in zip(wl.items, wl.cumulative, strict=True):
        letter = normalize(name)[:1].upper()
        groups.setdefault(letter, {})[name] = cum - prev
        prev = cum
    return {k: WeightedList.of(v) for k, v in sorted(groups.items())}


@memo(maxsize=8)
def initial_letters(lang: str) -> tuple[str, ...]:
    """Initials with at least 3 female and 3 male given names in ``lang``'s lists (targets for initials)."""
    f, m = given_names_by_letter(lang, "F"), given_names_by_letter(lang, "M")
    return tuple(c for c in sorted(set(f) & set(m)) if len(f[c]) >= 3 and len(m[c]) >= 3 and c.isalpha())


@memo(maxsize=8)
def surnames(lang: str) -> WeightedList:
    """Single-word surnames of ``lang``'s Faker locale (weights kept where Faker has them)."""
    p = _provider("person", lang)
    return WeightedList.of(_single_words(getattr(p, "last_names", ()) if p else ()))


@memo(maxsize=8)
def _genders(lang: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for r in gazetteer_rows(lang, "first_name"):
        if len(r) > 1 and r[1] in ("F", "M", "N"):
            key = normalize(r[0])
            if key in out and out[key] != r[1]:
                out[key] = "N"
            else:
                out.setdefault(key, r[1])
    p = _provider("person", lang)
    if p is not None:  # Faker's own gendered lists of the locale
        for g, attr in (("F", "first_names_female"), ("M", "first_names_male")):
            for n in getattr(p, attr, ()):
                out.setdefault(normalize(n), g)
    return out


def first_name_gender(name: str, lang: str) -> str | None:
    """``"F"``, ``"M"`` or ``"N"`` for a known first name (the note's language first, then the others)."""
    return _genders_any(lang).get(normalize(name))


@memo(maxsize=8)
def _genders_any(lang: str) -> dict[str, str]:
    """The gender lists of ``lang`` and then of the other languages merged, the first list that knows a name
    winning (one lookup instead of one per language)."""
    out: dict[str, str] = {}
    for lg in (lang, *(x for x in LANGS if x != lang)):
        for k, g in _genders(_lang(lg)).items():
            out.setdefault(k, g)
    return out


@memo(maxsize=8)
def known_surnames(lang: str) -> frozenset[str]:
    """Normalized surnames of the gazetteer and of Faker's locale."""
    out = {normalize(r[0]) for r in gazetteer_rows(_lang(lang), "surname") if r}
    p = _provider("person", lang)
    if p is not None:
        out.update(normalize(n) for n in getattr(p, "last_names", ()))
    return frozenset(out)


def faker_attr(kind: str, lang: str, attr: str, default: object = ()) -> object:
    """An attribute of a Faker provider class of ``lang``'s locale (``default`` when absent)."""
    p = _provider(kind, lang)
    return getattr(p, attr, default) if p is not None else default


@memo(maxsize=8)
def _accented_keys(lang: str) -> frozenset[str]:
    out: set[str] = set()
    for kind in ("first_name", "surname", "city", "region", "country"):
        for r in gazetteer_rows(_lang(lang), kind):
            if r and not r[0].isascii():
                out.update(normalize(w) for w in r[0].split() if not w.isascii())
    p = _provider("person", lang)
    if p is not None:
        for attr in ("first_names_female", "first_names_male", "last_names"):
            out.update(normalize(n) for n in getattr(p, attr, ()) if not n.isascii())
    return frozenset(out)


def drops_accents(word: str, lang: str) -> bool:
    """True when ASCII ``word`` is a known name/place word that is normally written with accents."""
    return word.isascii() and normalize(word) in _accented_keys(lang)


# --- places ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Place:
    name: str
    region: str
    country: str
    kind: str  # "city" | "region"


@dataclass(frozen=True)
class Places:
    """The gazetteer's places of one language, indexed for surrogate choices."""

    by_name: Mapping[str, tuple[Place, ...]]
    cities_by_region: Mapping[tuple[str, str], tuple[Place, ...]]
    cities_by_country: Mapping[str, tuple[Place, ...]]
    regions_by_parent: Mapping[tuple[str, str], tuple[Place, ...]]
    regions_by_country: Mapping[str, tuple[Place, ...]]
    region_parent: Mapping[tuple[str, str], str]
    countries: tuple[tuple[str, str, str], ...]  # (name, iso, continent)
    country_by_name: Mapping[str, tuple[str, str, str]]
    hospitals: tuple[tuple[str, str, str], ...]  # (name, city, iso)
    hospital_heads: tuple[str, ...]  # head phrases that precede a hospital name, longest first
    hospital_tails: tuple[str, ...]  # phrases that follow a hospital name ("Medical Center"), longest first
    hospital_compounds: tuple[str, ...]  # compound suffixes ("ziekenhuis", "klinikum"), longest first


@memo(maxsize=8)
def places(lang: str) -> Places:
    lang = _lang(lang)
    by_name: dict[str, list[Place]] = defaultdict(list)
    by_region: dict[tuple[str, str], list[Place]] = defaultdict(list)
    by_country: dict[str, list[Place]] = defaultdict(list)
    regions_by_parent: dict[tuple[str, str], list[Place]] = defaultdict(list)
    regions_by_country: dict[str, list[Place]] = defaultdict(list)
    region_parent: dict[tuple[str, str], str] = {}
    for r in gazetteer_rows(lang, "city"):
        name, region, country = (*r, "", "", "")[:3]
        if not name:
            continue
        p = Place(name, region, country, "city")
        by_name[normalize(name)].append(p)
        by_country[country].append(p)
        if region:
            by_region[(country, normalize(region))].append(p)
    for r in gazetteer_rows(lang, "region"):
        name, parent, country = (*r, "", "", "")[:3]
        if not name:
            continue
        p = Place(name, parent, country, "region")
        by_name[normalize(name)].append(p)
        regions_by_country[country].append(p)
        regions_by_parent[(country, normalize(parent))].append(p)
        region_parent[(country, normalize(name))] = parent
    countries = tuple((r[0], r[1], r[2]) for r in gazetteer_rows(lang, "country") if len(r) >= 3 and r[2])
    country_by_name = {normalize(c[0]): c for c in countries}
    hospitals = tuple((*r, "", "")[:3] for r in gazetteer_rows(lang, "hospital") if r)
    def words(kinds: str) -> tuple[str, ...]:
        return tuple(sorted((r[0] for r in gazetteer_rows(lang, "hospital_word") if len(r) > 1 and r[1] in kinds),
                            key=lambda s: (-len(s), s)))

    def freeze(d: Mapping[object, list[Place]]) -> dict[object, tuple[Place, ...]]:
        return {k: tuple(v) for k, v in d.items()}

    return Places(freeze(by_name), freeze(by_region), freeze(by_country),  # type: ignore[arg-type]
                  freeze(regions_by_parent), freeze(regions_by_country), region_parent,  # type: ignore[arg-type]
                  countries, country_by_name, hospitals, words("RB"), words("LB"), words("C"))


# --- short hand-written lists -----------------------------------------------------------------------------------

PROFESSIONS: Mapping[str, tuple[str, ...]] = {
    "es": ("administrativo", "agricultor", "albañil", "arquitecto", "camarero", "carpintero", "cocinero",
           "conductor", "electricista", "enfermero", "fontanero", "ingeniero", "jardinero", "maestro",
           "mecánico", "panadero", "peluquero", "pintor", "profesor", "vendedor"),
    "en": ("accountant", "baker", "bus driver", "carpenter", "cashier", "chef", "cleaner", "electrician",
           "engineer", "farmer", "firefighter", "gardener", "hairdresser", "mechanic", "nurse", "painter",
           "plumber", "salesperson", "teacher", "waiter"),
    "nl": ("bakker", "boer", "buschauffeur", "kapper", "kok", "leraar", "loodgieter", "monteur", "ober",
           "schilder", "schoonmaker", "timmerman", "verkoper", "verpleegkundige", "vrachtwagenchauffeur"),
    "sv": ("bagare", "busschaufför", "elektriker", "frisör", "kock", "lantbrukare", "lärare", "målare",
           "mekaniker", "rörmokare", "sjuksköterska", "snickare", "städare", "säljare", "servitör"),
    "de": ("Bäcker", "Busfahrer", "Elektriker", "Friseur", "Gärtner", "Ingenieur", "Koch", "Kellner",
           "Landwirt", "Lehrer", "Maler", "Mechaniker", "Tischler", "Verkäufer", "Installateur"),
}

DEPARTMENTS: Mapping[str, tuple[str, ...]] = {
    "es": ("Servicio de Cardiología", "Servicio de Cirugía General", "Servicio de Dermatología",
           "Servicio de Medicina Interna", "Servicio de Nefrología", "Servicio de Neurología",
           "Servicio de Oftalmología", "Servicio de Pediatría", "Servicio de Radiología", "Servicio de Urología"),
    "en": ("Cardiology Department", "Dermatology Department", "Emergency Department", "General Surgery",
           "Internal Medicine", "Nephrology Unit", "Neurology Department", "Oncology Unit", "Pediatrics Ward",
           "Radiology Department"),
    "nl": ("afdeling Cardiologie", "afdeling Chirurgie", "afdeling Dermatologie", "afdeling Interne Geneeskunde",
           "afdeling Kindergeneeskunde", "afdeling Neurologie", "afdeling Oncologie", "afdeling Radiologie",
           "afdeling Spoedeisende Hulp", "afdeling Urologie"),
    "sv": ("akutmottagningen", "barnkliniken", "hjärtavdelningen", "hudkliniken", "kirurgkliniken",
           "medicinkliniken", "neurologkliniken", "onkologkliniken", "röntgenavdelningen", "urologkliniken"),
    "de": ("Abteilung für Kardiologie", "Abteilung für Chirurgie", "Abteilung für Dermatologie",
           "Abteilung für Innere Medizin", "Abteilung für Neurologie", "Abteilung für Onkologie",
           "Abteilung für Pädiatrie", "Abteilung für Radiologie", "Notaufnahme", "Abteilung für Urologie"),
}

#: generic words of health-care unit names that are kept when a unit name is rebuilt
UNIT_HEADS: Mapping[str, tuple[str, ...]] = {
    "es": ("Centro de Salud", "Centro de Especialidades", "Consultorio", "Ambulatorio", "Unidad de"),
    "en": ("Health Center", "Health Centre", "Medical Center", "Clinic"),
    "nl": ("Gezondheidscentrum", "Huisartsenpraktijk"),
    "sv": ("Vårdcentral", "Vårdcentralen", "Hälsocentral"),
    "de": ("Praxis", "Gesundheitszentrum", "Ärztehaus"),
}
