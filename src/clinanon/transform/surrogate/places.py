"""Place and organisation surrogates.

* City / region (``LOCATION.CITY``, ``LOCATION.STATE``, ``LOCATION.OTHER``): another city of the same region when
  the gazetteer knows the city's region (else of the same country; an unknown place gets a city of the note's
  home country); a region gets another region with the same parent (else of the same country). Spanish
  provinces count as regions, so ``"Madrid"`` can become ``"Sevilla"``.
* Country: another country of the same continent (names in the note's language); an unknown one, a country
  of the home country's continent.
* Postcode (``LOCATION.ZIP``, or a digits-only city span): in Spanish notes a common postcode (``PP0NN``) of
  the surrogate of the nearest city in the same document (else of the province the original code belongs to),
  so postcode and city stay coherent; in other languages a format-preserving keyed code.
* Street: street-type words (``Calle``, ``C/``, ``Avda.``, ``Street``, ``-straat``, ``-straße``, ``-gatan`` ...),
  particles and floor/door words are kept; every other word becomes a keyed surname (compound street words keep
  their suffix: ``Kerkstraat`` -> ``<name>straat``); every house number gets a keyed number of the same length.
* Hospital: a hospital of the gazetteer with the same head phrase (``Hospital Universitario``, ``Clínica`` ...),
  else the head phrase + a keyed city or person name; health-care units (``Centro de Salud X``) keep their
  head; departments come from a short list; organisations become a keyed company name of the locale or keep
  an institution word (``Universidad de <city>``); professions come from a short list per language.

All choices are keyed by the normalized original, so each place maps to one surrogate in a scope.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import overload

from clinanon.caches import memo
from clinanon.document import Span
from clinanon.transform.surrogate._data import (
    DEPARTMENTS,
    HOME_COUNTRY,
    LANGS,
    PROFESSIONS,
    UNIT_HEADS,
    Place,
    WeightedList,
    faker_attr,
    gazetteer_rows,
    given_names,
    places,
    surnames,
)
from clinanon.transform.surrogate._text import _normalize_unicode, apply_shape, normalize
from clinanon.transform.surrogate.identifiers import format_preserving
from clinanon.transform.surrogate.keys import KeyedStream
from clinanon.transform.surrogate.scope import GenContext

__all__ = [
    "ES_PROVINCE_CODES",
    "surrogate_city",
    "surrogate_country",
    "surrogate_department",
    "surrogate_hospital",
    "surrogate_organization",
    "surrogate_place",
    "surrogate_profession",
    "surrogate_street",
    "surrogate_zip",
]

_MAX_ATTEMPTS = 40
_FIVE_DIGITS = re.compile(r"\d{5}")

#: Spanish province (normalized name, also co-official and older names) -> the first two digits of its postcodes
ES_PROVINCE_CODES: dict[str, str] = {normalize(k): v for k, v in {
    "Álava": "01", "Araba": "01", "Albacete": "02", "Alicante": "03", "Alacant": "03", "Almería": "04",
    "Ávila": "05", "Badajoz": "06", "Baleares": "07", "Illes Balears": "07", "Islas Baleares": "07",
    "Barcelona": "08", "Burgos": "09", "Cáceres": "10", "Cádiz": "11", "Castellón": "12", "Castelló": "12",
    "Ciudad Real": "13", "Córdoba": "14", "A Coruña": "15", "La Coruña": "15", "Coruña": "15", "Cuenca": "16",
    "Girona": "17", "Gerona": "17", "Granada": "18", "Guadalajara": "19", "Guipúzcoa": "20", "Gipuzkoa": "20",
    "Huelva": "21", "Huesca": "22", "Jaén": "23", "León": "24", "Lleida": "25", "Lérida": "25",
    "La Rioja": "26", "Rioja": "26", "Lugo": "27", "Madrid": "28", "Málaga": "29", "Murcia": "30",
    "Navarra": "31", "Nafarroa": "31", "Ourense": "32", "Orense": "32", "Asturias": "33", "Palencia": "34",
    "Las Palmas": "35", "Pontevedra": "36", "Salamanca": "37", "Santa Cruz de Tenerife": "38",
    "Cantabria": "39", "Segovia": "40", "Sevilla": "41", "Soria": "42", "Tarragona": "43", "Teruel": "44",
    "Toledo": "45", "Valencia": "46", "València": "46", "Valladolid": "47", "Vizcaya": "48", "Bizkaia": "48",
    "Zamora": "49", "Zaragoza": "50", "Ceuta": "51", "Melilla": "52",
}.items()}
_CODE_PROVINCE: dict[str, str] = {}
for _name, _code in ES_PROVINCE_CODES.items():
    _CODE_PROVINCE.setdefault(_code, _name)


def _pick(ctx: GenContext, pool: Sequence[str], purpose: str, key: str, avoid: frozenset[str] = frozenset()) -> str:
    """A keyed element of ``pool`` whose normalized form is neither ``key`` nor in ``avoid`` and that reproduces no
    original of the document (re-drawn from the item's keyed stream, at most ``_MAX_ATTEMPTS`` times)."""
    if not pool:
        return ""
    memo = ctx.memo
    memo_key = ("pick", purpose, key)  # each call site passes the same pool and avoid set for a key
    choice = memo.get(memo_key)
    if choice is not None:
        return choice  # type: ignore[no-any-return]
    below = ctx.rand.stream(purpose, key).below
    n = len(pool)
    forms = (ctx._tables or ctx._doc_tables()).leak_forms
    choice = pool[0]
    for _ in range(_MAX_ATTEMPTS):
        choice = pool[below(n)]  # stream.choice(pool)
        ck = " ".join(choice.lower().split()) if choice.isascii() else _normalize_unicode(choice)  # normalize
        # not ctx.leaks(choice): for one word (the usual case), whether it is not an original itself
        if ck != key and ck not in avoid and ((ck not in forms) if ck.isalnum() else not ctx.leaks(choice)):
            break
    memo[memo_key] = choice
    return choice


def _lookup(text: str, lang: str) -> Place | None:
    cands = places(lang).by_name.get(normalize(text))
    if not cands:
        return None
    if len(cands) == 1:
        return cands[0]
    home = HOME_COUNTRY.get(lang, "")
    return min(cands, key=lambda p: (p.country != home, p.kind != "city"))  # the first of the sorted candidates


@memo(maxsize=8192, kind="text")
def _city_choices(key: str, lang: str) -> tuple[Sequence[str], Callable[[str], Place | None]]:
    """:func:`_city_names` of the place a normalized name denotes (cached by name): the names, and the lookup of
    the place of each of them (``by.get``). A pool that is a list of the locale without the place is a view of the
    list's tables (:meth:`_PlaceList.choices_view`), not a copy of them."""
    place = _lookup(key, lang)
    if place is None:
        names, by = _unknown_place_names(lang)
        return names, by.get
    source = _city_source(place, lang)
    if isinstance(source, tuple):
        return source[0].choices_view(source[1])
    names, by = _names_of_source(source)
    return names, by.get


@memo(maxsize=4096, kind="text")
def _city_names(place: Place | None, lang: str) -> tuple[tuple[str, ...], dict[str, Place]]:
    """The sorted surrogate names for a place and the place of each name (cached): the distinct names of its pool
    (:func:`_city_source`) and, for each, its first place in the pool."""
    if place is None:
        return _unknown_place_names(lang)
    return _names_of_source(_city_source(place, lang))


@memo(maxsize=8)
def _unknown_place_names(lang: str) -> tuple[tuple[str, ...], dict[str, Place]]:
    """:func:`_city_names` of an unknown place (the home country's cities and regions): a table of the locale,
    computed once (not a memo of span texts)."""
    return _names_of_source(_city_source(None, lang))


def _names_of_source(source: list[Place] | tuple[_PlaceList, Place]) -> tuple[tuple[str, ...], dict[str, Place]]:
    """The sorted distinct names of the places of a :func:`_city_source` and the first place of each."""
    if isinstance(source, tuple):  # a list of the locale without the place: from the list's precomputed tables
        return source[0].choices_without(source[1])
    by: dict[str, Place] = {}
    for p in source:
        by.setdefault(p.name, p)
    return tuple(sorted(by)), by


class _PlaceList:
    """The cities of a region or a country (a list of the locale) with what :func:`_city_names` needs of the list
    without one place, computed once: the first place of every name, the sorted names, the places of every name."""

    __slots__ = ("first", "items", "names", "same_name")

    def __init__(self, items: Iterable[Place]) -> None:
        self.items = tuple(items)
        first: dict[str, Place] = {}
        same: dict[str, list[Place]] = {}
        for p in self.items:
            first.setdefault(p.name, p)
            same.setdefault(p.name, []).append(p)
        self.first = first
        self.names = tuple(sorted(first))
        self.same_name = same

    def size_without(self, place: Place) -> int:
        """How many of :attr:`items` are not ``place``."""
        same = self.same_name.get(place.name)
        return len(self.items) - same.count(place) if same else len(self.items)

    def choices_without(self, place: Place) -> tuple[tuple[str, ...], dict[str, Place]]:
        """The sorted distinct names of the items other than ``place`` and the first place of each (in list
        order)."""
        same = self.same_name.get(place.name, ())
        rest = [p for p in same if p != place]
        if len(rest) == len(same):  # the place is not in the list
            return self.names, dict(self.first)
        by = dict(self.first)
        if rest:
            by[place.name] = rest[0]
            return self.names, by
        del by[place.name]
        i = bisect.bisect_left(self.names, place.name)
        return self.names[:i] + self.names[i + 1:], by

    def choices_view(self, place: Place) -> tuple[Sequence[str], Callable[[str], Place | None]]:
        """:meth:`choices_without` as the names and the ``get`` of the places, without copying the list's tables:
        the names are :attr:`names` (or a view of them without the place's name), the lookup reads :attr:`first`
        (except for the place's name when other places have it)."""
        same = self.same_name.get(place.name, ())
        rest = [p for p in same if p != place]
        if len(rest) == len(same):  # the place is not in the list
            return self.names, self.first.get
        if rest:
            return self.names, _NameOverride(self.first, place.name, rest[0]).get
        # the place's name is not among the names: never looked up (first.get would give the place itself)
        return _NamesWithout(self.names, bisect.bisect_left(self.names, place.name)), self.first.get


class _NamesWithout(Sequence[str]):
    """``names[:skip] + names[skip + 1:]`` as a view of ``names`` (nothing copied)."""

    __slots__ = ("_len", "_names", "_skip")

    def __init__(self, names: tuple[str, ...], skip: int) -> None:
        self._names = names
        self._skip = skip
        self._len = len(names) - 1

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...

    def __getitem__(self, i: int | slice) -> str | Sequence[str]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._len))]
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError("index out of range")
        return self._names[i + 1 if i >= self._skip else i]


class _NameOverride:
    """The ``get`` of ``first`` with ``name`` mapped to ``place`` instead (nothing copied)."""

    __slots__ = ("first", "name", "place")

    def __init__(self, first: Mapping[str, Place], name: str, place: Place) -> None:
        self.first, self.name, self.place = first, name, place

    def get(self, name: str) -> Place | None:
        return self.place if name == self.name else self.first.get(name)


@memo(maxsize=64)
def _country_cities(lang: str, country: str, located: bool) -> _PlaceList:
    """The cities of ``country`` in ``lang``'s gazetteer (only those with a region when ``located``)."""
    cities = places(lang).cities_by_country.get(country, ())
    return _PlaceList([p for p in cities if p.region] if located else cities)


@memo(maxsize=1024)
def _region_cities(lang: str, country: str, region: str) -> _PlaceList:
    """The cities of a region (normalized name) of ``country`` in ``lang``'s gazetteer."""
    return _PlaceList(places(lang).cities_by_region.get((country, region), ()))


@memo(maxsize=1024)
def _parent_cities(lang: str, country: str, parent: str) -> _PlaceList:
    """The cities of the regions whose parent is ``parent`` (normalized name), region by region."""
    P = places(lang)
    siblings = P.regions_by_parent.get((country, parent), ())
    return _PlaceList(c for r in siblings for c in P.cities_by_region.get((country, normalize(r.name)), ()))


def _city_lists(lang: str, country: str, region: str, located: bool) -> Iterator[_PlaceList]:
    """The lists a city's pool is the first large one of (see :func:`_city_source`), each made when reached: the
    cities of its region (normalized name), of the region's parent region, of the country with a region (when
    ``located``: the city has a region), of the country."""
    yield _region_cities(lang, country, region)
    parent = places(lang).region_parent.get((country, region))
    if parent:
        yield _parent_cities(lang, country, normalize(parent))
    # a place with a known region gets one too, when there are enough (the GeoNames towns have none): a Spanish
    # city stays in a province, so a postcode next to it keeps the province's code
    if located:
        yield _country_cities(lang, country, True)
    yield _country_cities(lang, country, False)


@memo(maxsize=1024)
def _child_regions(lang: str, country: str, parent: str) -> _PlaceList:
    """The regions of ``country`` whose parent is ``parent`` (normalized name) in ``lang``'s gazetteer."""
    return _PlaceList(places(lang).regions_by_parent.get((country, parent), ()))


@memo(maxsize=256)
def _country_regions(lang: str, country: str, level: bool | None) -> _PlaceList:
    """The regions of ``country``: all of them (``level`` None), or those with a parent (True) or without (False)."""
    regions = places(lang).regions_by_country.get(country, ())
    return _PlaceList(regions if level is None else [p for p in regions if bool(p.region) == level])


def _region_lists(lang: str, country: str, parent: str, has_parent: bool) -> Iterator[_PlaceList]:
    """The lists a region's pool is the first large one of (see :func:`_city_source`), each made when reached: the
    regions with its parent (normalized name), the country's regions of its level (with a parent or not), all the
    country's regions."""
    yield _child_regions(lang, country, parent)
    yield _country_regions(lang, country, has_parent)
    yield _country_regions(lang, country, None)


#: a city's (region's) surrogate comes from the narrowest pool with at least this many candidates: same region,
#: then the region's parent (cities), then the same country (two keys pick the same with probability 1/pool)
MIN_PLACE_POOL = 50



def _city_source(place: Place | None, lang: str) -> list[Place] | tuple[_PlaceList, Place]:
    """The places a city or region may become (see the module docstring and :data:`MIN_PLACE_POOL`): a list, or
    ``(a list of the locale, the place)`` standing for that list without the place (not built)."""
    if place is None:
        P = places(lang)
        home = HOME_COUNTRY.get(lang, "")
        return list(P.cities_by_country.get(home, ())) + list(P.regions_by_country.get(home, ()))
    # the first of these lists with at least MIN_PLACE_POOL places other than the place, else the last one with
    # some (each measured without building the pool without the place): for a city, the same
    # region, the region's parent, the country's cities with a region (for a place with a region), the country's
    # cities; for a region, the regions with the same parent, the country's regions of its level, the country's
    # regions, else the country's cities (the place, a region, is none of them)
    country, region = place.country, normalize(place.region)
    city = place.kind == "city"
    last: list[Place] | tuple[_PlaceList, Place] = []
    for pool in (_city_lists if city else _region_lists)(lang, country, region, bool(place.region)):
        n = pool.size_without(place)
        if n >= MIN_PLACE_POOL:
            return pool, place
        if n:
            last = (pool, place)
    return last if city else last or (_country_cities(lang, country, False), place)


def _location_avoid(ctx: GenContext) -> frozenset[str]:
    return ctx.avoid_words()


def surrogate_city_place(text: str, ctx: GenContext) -> Place | None:
    """The surrogate :class:`Place` of a city/region name (``None`` when no list has one)."""
    key = normalize(text)
    names, place_of = _city_choices(key, ctx.lang)
    if not names:
        return None
    return place_of(_pick(ctx, names, "city", key, ctx.avoid_words()))  # _location_avoid(ctx)


def surrogate_city(text: str, ctx: GenContext) -> str:
    """Another city/region (see the module docstring)."""
    stripped = text.strip()
    if stripped and sum(map(str.isdigit, stripped)) >= max(3, len(stripped) // 2):
        return surrogate_zip(text, ctx)
    p = surrogate_city_place(stripped, ctx)
    if p is None:
        return format_preserving(text, ctx, "city")
    lead = text[:len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()):]
    return lead + apply_shape(stripped, p.name, ctx.lang) + trail


#: ISO codes of dependent territories, special areas and unions: never chosen as a surrogate country
_TERRITORIES = frozenset((
    "AC", "AI", "AQ", "AS", "AW", "AX", "BL", "BM", "BQ", "BV", "CC", "CK", "CP", "CW", "CX", "DG", "EA", "EH",
    "EU", "EZ", "FK", "FO", "GF", "GG", "GI", "GL", "GP", "GS", "GU", "HK", "HM", "IC", "IM", "IO", "JE", "KY",
    "MF", "MO", "MP", "MQ", "MS", "NC", "NF", "NU", "PF", "PM", "PN", "PR", "QO", "RE", "SH", "SJ", "SX", "TA",
    "TC", "TF", "TK", "UM", "UN", "VG", "VI", "WF", "XA", "XB", "XK", "YT",
))


@memo(maxsize=1)
def _iso_continents() -> Mapping[str, str]:
    """ISO code -> continent, from the country lists of every language (one list may lack a country: the Dutch
    one has no ``Nederland``)."""
    out: dict[str, str] = {}
    for lg in LANGS:
        for r in gazetteer_rows(lg, "country"):
            if len(r) >= 3 and r[1] and r[2]:
                out.setdefault(r[1], r[2])
    return out


@memo(maxsize=8)
def _country_index(lang: str) -> Mapping[str, tuple[str, str]]:
    """Normalized country name (the gazetteer's names and aliases of ``lang``, and CLDR's) -> (ISO, continent)."""
    continents = _iso_continents()
    out: dict[str, tuple[str, str]] = {}
    for name, iso, cont in places(lang).countries:
        out.setdefault(normalize(name), (iso, cont))
    for iso, name in _territory_names(lang).items():
        if iso in continents:
            out.setdefault(normalize(name), (iso, continents[iso]))
    return out


@memo(maxsize=64)
def _countries_of(lang: str, continent: str, exclude: str = "") -> tuple[str, ...]:
    """One name per sovereign country of ``continent`` (its CLDR name in ``lang``, else the gazetteer's first name
    for it), the country with ISO code ``exclude`` left out; sorted. Aliases (``"EE. UU."``, ``"Holanda"``) and
    names in other languages (``"Spain"`` in a Spanish list) are not candidates, so every country is equally likely
    and a surrogate never names the original country in other words."""
    own = {}
    for name, iso, _ in places(lang).countries:
        own.setdefault(iso, name)
    cldr = _territory_names(lang)
    names = set()
    for iso, cont in _iso_continents().items():
        if cont == continent and iso not in _TERRITORIES and iso != exclude:
            name = cldr.get(iso) or own.get(iso)
            if name:
                names.add(name)
    return tuple(sorted(names))


@memo(maxsize=8)
def _territory_names(lang: str) -> Mapping[str, str]:
    try:
        from babel import Locale

        return {k: v for k, v in Locale.parse(lang).territories.items() if len(k) == 2 and k.isalpha()}
    except Exception:  # Babel is a dependency; without its data the gazetteer's names are used
        return {}


def surrogate_country(text: str, ctx: GenContext) -> str:
    """Another country of the same continent (uniformly among its countries, never the original country under
    another name); an unknown country: one of the home country's continent."""
    key = normalize(text)
    index = _country_index(ctx.lang)
    iso, continent = index.get(key) or ("", _iso_continents().get(HOME_COUNTRY.get(ctx.lang, ""), ""))
    pool = _countries_of(ctx.lang, continent, iso)
    if not any(normalize(x) != key for x in pool):
        return format_preserving(text, ctx, "country")
    return apply_shape(text.strip(), _pick(ctx, pool, "country", key, ctx.avoid_words()), ctx.lang)


_CITY_CATEGORIES = frozenset({"LOCATION.CITY", "LOCATION.STATE"})


def _nearest_city_span(ctx: GenContext) -> Span | None:
    """The closest non-numeric city/region span of the document within 80 characters of the current span."""
    if ctx.span is None or ctx.doc is None:
        return None
    best: tuple[int, Span] | None = None
    here = ctx.span
    for start, end, s in ctx.nearest_spans(_CITY_CATEGORIES):
        if start > here.end + 80:
            break
        dist = here.start - end if end <= here.start else start - here.end
        # (a span equal to the current one is never chosen: it ends after it starts, so its dist is negative)
        if 0 <= dist <= 80 and (best is None or dist < best[0]):
            best = (dist, s)
    return best[1] if best else None


def _province_code(place: Place | None) -> str | None:
    if place is None or place.country != "ES":
        return None
    for name in ((place.name,) if place.kind == "region" else (place.region, place.name)):
        code = ES_PROVINCE_CODES.get(normalize(name))
        if code:
            return code
    return None


def surrogate_zip(text: str, ctx: GenContext) -> str:
    """A postcode coherent with the surrogate city (see the module docstring)."""
    stripped = text.strip()
    key = normalize(stripped)
    if ctx.lang == "es" and _FIVE_DIGITS.fullmatch(stripped):
        city_span = _nearest_city_span(ctx)
        if city_span is not None:
            place = surrogate_city_place(ctx.span_text(city_span).strip(), ctx)
        else:
            province = _CODE_PROVINCE.get(stripped[:2])
            place = surrogate_city_place(province, ctx) if province else None
        code = _province_code(place) or f"{ctx.rand.index(52, 'zip-province', key) + 1:02d}"
        new = stripped
        below = ctx.rand.stream("zip", key).below
        forms = (ctx._tables or ctx._doc_tables()).leak_forms
        for _ in range(_MAX_ATTEMPTS):
            new = f"{code}0{below(50) + 1:02d}"
            # ctx.leaks(new): a code of ASCII digits (its own normalized form) leaks when it is an original
            if new != stripped and (new not in forms if new.isascii() and new.isalnum() else not ctx.leaks(new)):
                break
        return text.replace(stripped, new, 1)
    return format_preserving(text, ctx, "zip")


# --- streets ---------------------------------------------------------------------------------------------------

_STREET_TYPES = frozenset(normalize(w) for w in (
    # es / ca / gl / eu
    "c", "cl", "calle", "carrer", "rúa", "rua", "kalea", "avda", "avd", "av", "avenida", "avinguda", "pza", "pl",
    "plaza", "plaça", "praza", "paseo", "passeig", "pº", "po", "camino", "camí", "ctra", "carretera", "ronda",
    "travesía", "travessera", "glorieta", "urbanización", "urb", "vía", "via", "rambla", "pasaje", "ptge",
    "callejón", "alameda", "cuesta", "polígono", "pol", "barrio", "bº", "edificio", "edif", "bloque",
    # en
    "street", "st", "avenue", "ave", "road", "rd", "lane", "ln", "drive", "dr", "boulevard", "blvd", "court", "ct",
    "way", "place", "square", "sq", "terrace", "close", "crescent", "highway", "hwy", "parkway", "pkwy",
    # nl / de / sv (separate words)
    "straat", "laan", "weg", "plein", "gracht", "kade", "singel", "dijk", "str", "straße", "strasse", "platz",
    "allee", "gasse", "ring", "damm", "ufer", "gatan", "vägen", "gränd", "torget", "stigen", "allén",
))
_STREET_KEEP = frozenset(normalize(w) for w in (
    "de", "del", "la", "las", "los", "el", "y", "i", "d", "dels", "the", "of", "van", "der", "den", "het", "von",
    "am", "an", "im", "zum", "zur", "bajo", "bajos", "piso", "planta", "pta", "puerta", "esc", "escalera", "izq",
    "izda", "izquierda", "dcha", "dch", "derecha", "centro", "ctro", "nº", "n", "no", "num", "núm", "número", "s",
    "sn", "esquina", "esq", "portal", "local", "apt", "apto", "apartment", "suite", "unit", "floor", "fl", "bus",
    "hs", "huis", "tr", "lgh", "ático", "atico", "entlo", "entresuelo", "principal", "pral", "bis", "north", "south",
    "east", "west", "n", "e", "w", "nw", "ne", "sw", "se",
))
_COMPOUND = (
    "straat", "laan", "weg", "plein", "gracht", "kade", "singel", "dijk", "steeg", "hof", "dreef", "pad", "baan",
    "straße", "strasse", "str", "platz", "allee", "gasse", "ring", "damm", "ufer", "gatan", "vägen", "gränd",
    "torget", "stigen", "backen", "allén", "leden", "plan",
)
_TOKEN = re.compile(r"[^\W\d_]+|\d+|\s+|.", re.UNICODE)


def _stems(lang: str) -> Sequence[str]:
    if lang == "sv":
        return tuple(faker_attr("address", "sv", "street_prefixes", ())) or surnames(lang).items  # type: ignore[arg-type]
    if lang == "nl":
        return given_names("nl", "N").items
    return surnames(lang).items


_KEEP, _DIGITS_RUN, _WORD_PART, _COMPOUND_PART = 0, 1, 2, 3


@memo(maxsize=4096, kind="text")
def _street_plan(text: str, lang: str) -> tuple[tuple[tuple[int, str, str, str], ...], str, tuple[str, ...]]:
    """What :func:`surrogate_street` does with each token of ``text`` (a pure function: cached):
    ``(what, token, normalized token, compound suffix)``, ``what`` being kept as is (consecutive kept tokens as one
    step), a digit run, a word drawn from the surnames, or a compound whose stem is drawn (nl/de/sv); with the
    address's key (its normalized words, joined) and its digit runs, found in the same pass over the tokens."""
    plan: list[tuple[int, str, str, str]] = []
    append = plan.append
    words: list[str] = []  # the normalized words: the key
    digit_runs: list[str] = []
    compounds = lang in ("nl", "de", "sv")
    kept = ""  # the kept tokens since the last drawn one: one plan step
    prev = ""
    for t in _TOKEN.findall(text):
        if t.isdigit():
            if kept:
                append((_KEEP, kept, "", ""))
                kept = ""
            append((_DIGITS_RUN, t, "", ""))
            digit_runs.append(t)
        elif not t[:1].isalpha():
            kept += t
        else:
            k = t.lower() if t.isascii() else normalize(t)  # normalize(t): a word token has no whitespace
            words.append(k)
            if k in _STREET_TYPES or k in _STREET_KEEP or len(t) == 1 or prev.isdigit() or (
                    len(t) <= 2 and t.isupper()):
                kept += t
            else:
                if kept:
                    append((_KEEP, kept, "", ""))
                    kept = ""
                suffix = next((s for s in _COMPOUND if k.endswith(normalize(s)) and len(k) > len(s) + 2),
                              None) if compounds else None
                append((_WORD_PART, t, k, "") if suffix is None else (_COMPOUND_PART, t, k, suffix))
        prev = t
    if kept:
        append((_KEEP, kept, "", ""))
    return tuple(plan), " ".join(words), tuple(digit_runs)


def surrogate_street(text: str, ctx: GenContext) -> str:
    """A street address of the same type and shape (see the module docstring)."""
    lang = ctx.lang
    plan, name_key, digit_runs = _street_plan(text, lang)
    avoid = ctx.place_words()
    out: list[str] = []
    append = out.append
    numbers: KeyedStream | None = None  # one stream for all the numbers of the address
    numbers_avoid: frozenset[str] = frozenset()
    for what, t, k, suffix in plan:
        if what == _KEEP:
            append(t)
        elif what == _DIGITS_RUN:
            if numbers is None:
                numbers = ctx.rand.stream("street-number", name_key, *digit_runs)
                numbers_avoid = ctx.avoid_words()
            keep_zero = t[0] == "0" and len(t) > 1
            new = t
            for _ in range(_MAX_ATTEMPTS):
                # str(stream.randrange(1, 10)) (or "0") + str(stream.below(10)) per further digit
                new = "0" + numbers.decimal(len(t) - 1) if keep_zero else numbers.decimal(len(t), True)
                if new != t and new not in numbers_avoid:
                    break
            append(new)
        elif what == _WORD_PART:
            append(apply_shape(t, _pick(ctx, surnames(lang).items, "street-word", k, avoid), lang))
        else:
            stem = _pick(ctx, list(_stems(lang)), "street-stem", k, avoid)
            cut = len(t) - len(suffix)
            new = stem + t[cut:]
            out.append(apply_shape(t[:cut] or t, new) if t.isupper() or t.islower() else new)
    result = "".join(out)
    # normalize(result) != normalize(text) and not ctx.leaks(result)
    return result if ctx.fresh(result, normalize(text)) else format_preserving(text, ctx, "street")


# --- hospitals, units, organisations, professions --------------------------------------------------------------

def _starts_with(text: str, phrase: str) -> bool:
    t, p = normalize(text), normalize(phrase)
    return t == p or t.startswith(p + " ")


def _ends_with(text: str, phrase: str) -> bool:
    t, p = normalize(text), normalize(phrase)
    return t == p or t.endswith(" " + p)


def _city_off_document(ctx: GenContext, stream: KeyedStream, names: Sequence[str]) -> str:
    """A keyed choice among ``names`` (non-empty) that is no word of the document's names and places (the last draw
    when every attempt is one)."""
    avoid = ctx.avoid_words()
    city = names[0]
    for _ in range(_MAX_ATTEMPTS):
        city = stream.choice(names)
        if normalize(city) not in avoid:
            break
    return city


def _person_or_city(ctx: GenContext, stream: KeyedStream) -> str:
    """A keyed 'name part' for a rebuilt institution name: a city of the home country or a given name + surname
    (drawn from the item's stream; a city is never a word of a name or place of the document)."""
    if stream.below(2) == 0:
        names, _ = _city_names(None, ctx.lang)
        if names:
            return _city_off_document(ctx, stream, names)
    given = given_names(ctx.lang, "M" if stream.below(2) else "F")
    first = given.pick(stream.unit())
    last = surnames(ctx.lang).pick(stream.unit())
    return f"{first} {last}"


def _rebuild(ctx: GenContext, key: str, purpose: str, make: Callable[[str], str],
             core: Callable[[GenContext, KeyedStream], str] = _person_or_city) -> str:
    """``make(core)`` for the first keyed core (by default a city or a person) whose result reproduces no
    original."""
    new = ""
    stream = ctx.rand.stream(purpose, "core", key)
    for _ in range(_MAX_ATTEMPTS):
        new = make(core(ctx, stream))
        if ctx.fresh(new, key):  # normalize(new) != key and not ctx.leaks(new)
            break
    return new


@memo(maxsize=8)
def _hospital_phrases(lang: str) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """The head and the tail phrases of hospital names of ``lang`` (longest first), each with its normalized form
    (computed once)."""
    P = places(lang)
    return tuple((h, normalize(h)) for h in P.hospital_heads), tuple((h, normalize(h)) for h in P.hospital_tails)


@memo(maxsize=4096, kind="text")
def _hospital_kind(name: str, lang: str) -> tuple[str | None, str | None]:
    """The longest head phrase a hospital name starts with, else the longest tail phrase it ends with (cached):
    ``_starts_with(name, h)`` / ``_ends_with(name, h)`` over the phrases, with every text normalized once."""
    heads, tails = _hospital_phrases(lang)
    t = normalize(name)
    head = next((h for h, p in heads if t.startswith(p) and (len(t) == len(p) or t[len(p)] == " ")), None)
    if head is not None:
        return head, None
    return None, next((h for h, p in tails if t.endswith(p) and (len(t) == len(p) or t[-len(p) - 1] == " ")), None)


@memo(maxsize=8)
def _hospitals_by_kind(lang: str) -> dict[tuple[str | None, str | None], tuple[str, ...]]:
    out: dict[tuple[str | None, str | None], list[str]] = {}
    for h in places(lang).hospitals:
        out.setdefault(_hospital_kind(h[0], lang), []).append(h[0])
    return {k: tuple(sorted(v)) for k, v in out.items()}


@memo(maxsize=8)
def _hospital_names(lang: str) -> tuple[str, ...]:
    return tuple(sorted(h[0] for h in places(lang).hospitals))


@memo(maxsize=8)
def _normalized_hospitals_by_kind(lang: str) -> dict[tuple[str | None, str | None], tuple[tuple[str, str], ...]]:
    """:func:`_hospitals_by_kind` with each name's normalized form (a list of the locale, computed once)."""
    return {k: tuple((h, normalize(h)) for h in v) for k, v in _hospitals_by_kind(lang).items()}


@memo(maxsize=8)
def _normalized_hospital_names(lang: str) -> tuple[tuple[str, str], ...]:
    """:func:`_hospital_names` with each name's normalized form (computed once)."""
    return tuple((h, normalize(h)) for h in _hospital_names(lang))


#: how the name part of a rebuilt hospital name is made, per language, after a head phrase (``Hospital
#: Universitario`` + core) and before a tail phrase (core + ``General Hospital``): keyed choice among the patterns;
#: ``{city}`` a city of the home country, ``{person}`` given name + surname, ``{saint}`` San/Santa/Sint/St. + a
#: given name, ``{surname}`` a surname
_HOSPITAL_HEAD_CORES: Mapping[str, tuple[str, ...]] = {
    "es": ("de {city}", "de {city}", "de {city}", "{person}", "{saint}", "{surname}"),
    "en": ("{city}", "{city}", "{saint}"),
    "nl": ("{city}", "{city}", "{saint}"),
    "sv": ("{city}",),
    "de": ("{city}", "{city}", "{saint}"),
}
_HOSPITAL_TAIL_CORES: Mapping[str, tuple[str, ...]] = {
    "es": ("{city}", "{surname}"),
    "en": ("{city}", "{city}", "{surname}", "{saint}'s"),
    "nl": ("{city}", "{saint}"),
    "sv": ("{city}s",),
    "de": ("{city}", "{surname}"),
}
#: heads whose name follows without a preposition (``Centro de Salud Delicias``, ``Clínica San Rafael``)
_HEADS_WITHOUT_DE = frozenset(normalize(h) for h in (
    "Ambulatorio", "Centro de Salud", "Centro Médico", "Clínica", "Clínic", "Consultorio", "Policlínica",
    "Sanatorio", "Institut", "Fundació", "Hospital Quirón",
))
_SAINTS: Mapping[str, tuple[str, str]] = {"es": ("San", "Santa"), "en": ("St", "St"), "nl": ("Sint", "Sint"),
                                          "de": ("St.", "St."), "sv": ("S:t", "S:ta")}
#: the phrase a rebuilt name gets when the original has none (``"La Paz"``): (phrase, True for a head)
_DEFAULT_HOSPITAL_PHRASE: Mapping[str, tuple[str, bool]] = {
    "es": ("Hospital", True), "en": ("Hospital", False), "nl": ("Ziekenhuis", True), "sv": ("sjukhus", False),
    "de": ("Klinikum", True),
}


@memo(maxsize=8)
def _home_cities(lang: str) -> tuple[str, ...]:
    """The names of the home country's cities (no regions), sorted."""
    return tuple(sorted({p.name for p in places(lang).cities_by_country.get(HOME_COUNTRY.get(lang, ""), ())}))


def _hospital_core_maker(phrase: str, head: bool, lang: str) -> Callable[[GenContext, KeyedStream], str]:
    """The keyed core of a rebuilt hospital name after head ``phrase`` (or before tail ``phrase``)."""
    patterns = (_HOSPITAL_HEAD_CORES if head else _HOSPITAL_TAIL_CORES).get(lang, ("{city}",))
    if head and lang == "es" and normalize(phrase) in _HEADS_WITHOUT_DE:
        patterns = ("{city}", "{saint}", "{saint}", "{surname}")

    def core(ctx: GenContext, stream: KeyedStream) -> str:
        pattern = stream.choice(patterns)
        if "{city}" in pattern:
            names = _home_cities(ctx.lang)
            if names:
                city = _city_off_document(ctx, stream, names)
                if pattern == "{city}s" and city.endswith(("s", "x", "z")):  # Swedish genitive: "Lunds", "Vaxholms"
                    return city
                return pattern.replace("{city}", city)
            pattern = "{person}"
        if "{saint}" in pattern:
            female = stream.below(2) == 0
            saint = _SAINTS.get(ctx.lang, ("St", "St"))[female]
            given = given_names(ctx.lang, "F" if female else "M").pick(stream.unit())
            return pattern.replace("{saint}", f"{saint} {given}")
        last = surnames(ctx.lang).pick(stream.unit())
        if "{surname}" in pattern:
            return pattern.replace("{surname}", last)
        given = given_names(ctx.lang, "M" if stream.below(2) else "F").pick(stream.unit())
        return pattern.replace("{person}", f"{given} {last}")

    return core


def surrogate_hospital(text: str, ctx: GenContext) -> str:
    """Another hospital of the same kind (see the module docstring): with the same head phrase (``Hospital
    Universitario``, ``Clínica``, ``Centro de Salud``) or tail phrase (``General Hospital``, ``sjukhus``), and a
    keyed name part — a city of the home country, a person, a saint or a surname (one in four times, when the
    gazetteer knows at least three hospitals of that kind, a real hospital of the kind). Without a phrase (or when
    the phrase alone is an original of the document), the language's default phrase (``Hospital``)."""
    stripped = text.strip()
    key = normalize(stripped)
    avoid = ctx.original_strings()
    lang = ctx.lang
    head, tail = _hospital_kind(stripped, lang)
    phrase = head or tail
    if phrase is not None and (normalize(phrase) == key or ctx.leaks(phrase)):
        # a bare "Hospital General" (here or elsewhere in the document): a hospital with the default phrase
        phrase = head = tail = None
    real_first = ctx.rand.index(4, "hospital-source", key) == 0
    if phrase is not None:
        candidates = _normalized_hospitals_by_kind(lang).get((head, tail), ()) if real_first else ()
        canon = phrase if stripped[:len(phrase)].lower() != phrase.lower() else (
            stripped[:len(phrase)] if head else stripped[-len(phrase):])
        is_head = head is not None
    else:
        candidates = _normalized_hospital_names(lang) if real_first else ()
        canon, is_head = _DEFAULT_HOSPITAL_PHRASE.get(lang, ("Hospital", True))
        if ctx.leaks(canon):
            canon = ""
    # the real hospitals of the kind that are neither the original nor an original of the document (only needed
    # for the one in four spans that may take a real one)
    same = [h for h, hk in candidates if hk != key and hk not in avoid]
    if real_first and len(same) >= 3:
        new = _pick(ctx, same, "hospital", key, avoid)
    else:
        def make(core: str) -> str:
            return (f"{canon} {core}" if is_head else f"{core} {canon}").strip()

        new = _rebuild(ctx, key, "hospital", make, _hospital_core_maker(canon or "Hospital", is_head, lang))
    if normalize(new) == key:
        return format_preserving(text, ctx, "hospital")
    return text.replace(stripped, apply_shape(stripped, new) if stripped.isupper() else new, 1)


_INSTITUTION_WORDS = (
    "Facultad de", "Escuela de", "Universidad de", "Universitat de", "Universidad", "University of", "University",
    "Universiteit", "Universität", "Universitet", "Fundación", "Fundació", "Foundation", "Stichting", "Stiftung",
    "Stiftelsen", "Instituto", "Institut", "Institute", "Institutet", "Centro Nacional de", "Centro",
    "Laboratorios", "Laboratorio", "Asociación", "Colegio de", "Consejería de", "Servicio", "Ministerio de",
)


def surrogate_organization(text: str, ctx: GenContext) -> str:
    """An institution keeps its institution word; a company becomes a keyed company name of the locale."""
    stripped = text.strip()
    key = normalize(stripped)
    word = next((w for w in _INSTITUTION_WORDS if _starts_with(stripped, w)), None)
    if word is not None:
        joiner = " " if word.endswith(" de") or word.endswith(" of") or ctx.lang not in ("es",) else " de "
        new = _rebuild(ctx, key, "org", lambda core: stripped[:len(word)] + joiner + core)
    else:
        raw = faker_attr("company", ctx.lang, "company_suffixes", ()) or ("S.A.",)
        suffixes = WeightedList.of(raw if isinstance(raw, Mapping) else sorted(set(raw)))  # type: ignore[arg-type]
        suffix = suffixes.pick(ctx.rand.unit("org-suffix", key))
        new = f"{_pick(ctx, surnames(ctx.lang).items, 'org', key, ctx.avoid_words())} {suffix}"
    new = apply_shape(stripped, new) if stripped.isupper() else new
    return text.replace(stripped, new, 1) if normalize(new) != key else format_preserving(text, ctx, "org")


def surrogate_department(text: str, ctx: GenContext) -> str:
    """A health-care unit keeps its head (``Centro de Salud``) with a keyed name; a department gets another."""
    stripped = text.strip()
    key = normalize(stripped)
    head = next((h for h in UNIT_HEADS.get(ctx.lang, ()) if _starts_with(stripped, h)), None)
    if head is not None:
        new = _rebuild(ctx, key, "unit", lambda core: stripped[:len(head)] + " " + core)
    else:
        pool = DEPARTMENTS.get(ctx.lang, DEPARTMENTS["en"])
        new = _pick(ctx, pool, "department", key, ctx.original_strings())
    new = apply_shape(stripped, new) if stripped.isupper() else new
    return text.replace(stripped, new, 1) if normalize(new) != key else format_preserving(text, ctx, "unit")


def surrogate_profession(text: str, ctx: GenContext) -> str:
    """Another profession from the language's list."""
    stripped = text.strip()
    pool = PROFESSIONS.get(ctx.lang, PROFESSIONS["en"])
    new = _pick(ctx, pool, "profession", normalize(stripped), ctx.original_strings())
    return text.replace(stripped, apply_shape(stripped, new), 1)


def surrogate_place(text: str, ctx: GenContext, category: str) -> str:
    """Dispatch a ``LOCATION.*`` category to its generator."""
    sub = category.partition(".")[2]
    if sub == "COUNTRY":
        return surrogate_country(text, ctx)
    if sub == "ZIP":
        return surrogate_zip(text, ctx)
    if sub == "STREET":
        return surrogate_street(text, ctx)
    if sub == "HOSPITAL":
        return surrogate_hospital(text, ctx)
    if sub == "ORGANIZATION":
        return surrogate_organization(text, ctx)
    if sub == "DEPARTMENT":
        return surrogate_department(text, ctx)
    if sub == "ROOM":
        return format_preserving(text, ctx, "room")
    return surrogate_city(text, ctx)
