"""Postcode surrogates (``LOCATION.ZIP``, or a digits-only city span).

In Spanish notes a common postcode (``PP0NN``) of the surrogate of the nearest city in the same document (else of
the province the original code belongs to), so postcode and city stay coherent; in other languages a
format-preserving keyed code.
"""

from __future__ import annotations

import re

from clinanon.document import Span
from clinanon.transform.surrogate._choice import MAX_ATTEMPTS
from clinanon.transform.surrogate._data import Place
from clinanon.transform.surrogate._text import normalize
from clinanon.transform.surrogate.cities import surrogate_city_place
from clinanon.transform.surrogate.identifiers import format_preserving
from clinanon.transform.surrogate.scope import GenContext

__all__ = ["ES_PROVINCE_CODES", "surrogate_zip"]

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
        for _ in range(MAX_ATTEMPTS):
            new = f"{code}0{below(50) + 1:02d}"
            # ctx.leaks(new): a code of ASCII digits (its own normalized form) leaks when it is an original
            if new != stripped and (new not in forms if new.isascii() and new.isalnum() else not ctx.leaks(new)):
                break
        return text.replace(stripped, new, 1)
    return format_preserving(text, ctx, "zip")
