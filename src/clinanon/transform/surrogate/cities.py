"""City and region surrogates (``LOCATION.CITY``, ``LOCATION.STATE``, ``LOCATION.OTHER``): the gazetteer's pools.

Another city of the same region when the gazetteer knows the city's region (else of the same country; an unknown
place gets a city of the note's home country); a region gets another region with the same parent (else of the
same country). Spanish provinces count as regions, so ``"Madrid"`` can become ``"Sevilla"``. Each pool is the
narrowest with at least :data:`MIN_PLACE_POOL` candidates; the lists of the locale are built once and the pool
without the original place is a view of them, not a copy. A town alone in its country's list (``"Belgrad"`` in the
German list) gets a town of the same continent, else of the home country: a surrogate place is always a place of
the list, never keyed letters. The choice is keyed by the normalized original, so each place maps to one surrogate
in a scope. :func:`surrogate_place_name` is the surrogate of one place name (states by :mod:`.states`);
(:func:`clinanon.transform.surrogate.places.surrogate_city` is the generator of a city span: a digits-only one is
a postcode, an address is read part by part.)
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import overload

from clinanon.caches import memo
from clinanon.transform.surrogate._choice import MAX_ATTEMPTS, pick
from clinanon.transform.surrogate._data import HOME_COUNTRY, Place, places
from clinanon.transform.surrogate._text import apply_shape, normalize
from clinanon.transform.surrogate.countries import _iso_continents
from clinanon.transform.surrogate.identifiers import format_preserving
from clinanon.transform.surrogate.keys import KeyedStream
from clinanon.transform.surrogate.scope import GenContext
from clinanon.transform.surrogate.states import surrogate_state

__all__ = ["MIN_PLACE_POOL", "surrogate_city_place", "surrogate_place_name"]


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
    if last:
        return last
    if city or not (_country_cities(lang, country, False).size_without(place)):
        # a foreign town alone in the list of its country (``Belgrad`` in the German list), or a region of a country
        # without towns: towns of the same continent, else of the note's home country (never an invented name)
        return _continent_cities(lang, _iso_continents().get(country, "")), place
    return _country_cities(lang, country, False), place


@memo(maxsize=64)
def _continent_cities(lang: str, continent: str) -> _PlaceList:
    """The cities of ``lang``'s gazetteer in the countries of ``continent`` (the home country's cities when the
    continent is unknown or has none)."""
    P = places(lang)
    continents = _iso_continents()
    cities = [p for country, cs in sorted(P.cities_by_country.items())
              if continent and continents.get(country) == continent for p in cs]
    return _PlaceList(cities or P.cities_by_country.get(HOME_COUNTRY.get(lang, ""), ()))


def _location_avoid(ctx: GenContext) -> frozenset[str]:
    return ctx.avoid_words()


def surrogate_city_place(text: str, ctx: GenContext) -> Place | None:
    """The surrogate :class:`Place` of a city/region name (``None`` when no list has one)."""
    key = normalize(text)
    names, place_of = _city_choices(key, ctx.lang)
    if not names:
        return None
    return place_of(pick(ctx, names, "city", key, ctx.avoid_words()))  # _location_avoid(ctx)


def _city_off_document(ctx: GenContext, stream: KeyedStream, names: Sequence[str]) -> str:
    """A keyed choice among ``names`` (non-empty) that is no word of the document's names and places (the last draw
    when every attempt is one)."""
    avoid = ctx.avoid_words()
    city = names[0]
    for _ in range(MAX_ATTEMPTS):
        city = stream.choice(names)
        if normalize(city) not in avoid:
            break
    return city


def surrogate_place_name(stripped: str, ctx: GenContext) -> str:
    """The surrogate of one place name (stripped; not an address): another state for a state abbreviation, for a
    state name the gazetteer lacks, or for any state name in a ``LOCATION.STATE`` span (``"New York"``: the state,
    not the city) (:mod:`.states`); a region of the home country for any other unknown name in a
    ``LOCATION.STATE`` span; else the name of :func:`surrogate_city_place`, in the original's case."""
    lang = ctx.lang
    key = normalize(stripped)
    known = key in places(lang).by_name
    state_span = ctx.category == "LOCATION.STATE"
    if not known or state_span or (len(stripped) <= 4 and stripped.isupper()):
        state = surrogate_state(stripped, ctx)
        if state is not None:
            return state
        if not known and state_span:
            regions = _home_regions(lang)
            if regions:
                return apply_shape(stripped, pick(ctx, regions, "region", key, ctx.avoid_words()), lang)
    p = surrogate_city_place(stripped, ctx)
    if p is None:  # no gazetteer for the language
        return format_preserving(stripped, ctx, "city")
    return apply_shape(stripped, p.name, lang)


@memo(maxsize=8)
def _home_regions(lang: str) -> tuple[str, ...]:
    """The names of the home country's regions in ``lang``'s gazetteer, sorted."""
    return tuple(sorted({p.name for p in places(lang).regions_by_country.get(HOME_COUNTRY.get(lang, ""), ())}))
