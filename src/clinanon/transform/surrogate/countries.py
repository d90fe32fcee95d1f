"""Country surrogates (``LOCATION.COUNTRY``): another country of the same continent, named in the note's language.

Every sovereign country of the continent is equally likely (one name per country: its CLDR name in the note's
language, else the gazetteer's), never the original country under another name; an unknown country gets one of the
home country's continent. Keyed by the normalized original.
"""

from __future__ import annotations

from collections.abc import Mapping

from clinanon.caches import memo
from clinanon.transform.surrogate._choice import pick
from clinanon.transform.surrogate._data import HOME_COUNTRY, LANGS, gazetteer_rows, places
from clinanon.transform.surrogate._text import apply_shape, normalize
from clinanon.transform.surrogate.identifiers import format_preserving
from clinanon.transform.surrogate.scope import GenContext

__all__ = ["surrogate_country"]

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
    return apply_shape(text.strip(), pick(ctx, pool, "country", key, ctx.avoid_words()), ctx.lang)
