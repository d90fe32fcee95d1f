"""Postcode surrogates (``LOCATION.ZIP``, or a digits-only city span): a complete, valid code of the same country
and layout.

The original's format decides the surrogate's (its separators, case and country prefix kept):

======================  ======================================================================================
``1234 AB`` / ``1234AB``  Dutch: 4 digits 1000-9999 and two letters of the Dutch alphabet of postcodes (no F, I,
                        O, Q, U, Y; never SA, SD, SS); both the digits and the letters differ from the original's
``A-1010``, ``CH-8001``   a country prefix is kept and the code follows its country: Austria 1010-9992,
``D-10115``, ``S-123 45``  Switzerland 1000-9658, Germany 5 digits, Sweden ``NNN NN``, Netherlands as above ...
``12345-6789``            US ZIP+4: a ZIP code (never ``000``) and an add-on 0001-9999
``123 45``                Swedish: 100 00-984 99 (also 5 digits written together in a Swedish note)
5 digits                  Spanish notes: a common postcode (``PP0NN``) of the surrogate of the nearest city in the
                        same document (else of the province the original code belongs to), so postcode and city
                        stay coherent; German notes: a German code (its two-digit region is one in use); English
                        notes: a US ZIP code; others: 10000-99999
4 digits                  German notes: Austrian/Swiss 1010-9992; others 1000-9999
======================  ======================================================================================

Anything else (a UK postcode, a code with letters in another layout) keeps its layout with keyed digits and letters
(:func:`~clinanon.transform.surrogate.identifiers.format_preserving`). Keyed by the normalized original; a surrogate
never reproduces an original of the document.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from clinanon.caches import memo
from clinanon.document import Span
from clinanon.transform.surrogate._choice import MAX_ATTEMPTS
from clinanon.transform.surrogate._data import Place
from clinanon.transform.surrogate._text import normalize
from clinanon.transform.surrogate.cities import surrogate_city_place
from clinanon.transform.surrogate.identifiers import format_preserving
from clinanon.transform.surrogate.keys import KeyedStream
from clinanon.transform.surrogate.scope import GenContext
from clinanon.transform.surrogate.states import is_state, surrogate_state, us_state_abbreviation

__all__ = ["ES_PROVINCE_CODES", "POSTCODE", "is_postcode", "postcode_format", "surrogate_zip"]

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

#: the letters of Dutch postcodes (F, I, O, Q, U and Y are not used), and the pairs never given
_NL_LETTERS = "ABCEGHJKLMNPRSTVWXZ"
_NL_BANNED = frozenset({"SA", "SD", "SS"})
#: German two-digit postal regions not in use
_DE_UNUSED = frozenset({0, 5, 43, 62})

#: a postcode as a whole, by format (the groups of each alternative are read by :func:`postcode_format`)
POSTCODE = re.compile(
    r"(?P<prefix>(?:A|B|CH|D|DK|E|F|FI|FIN|I|L|N|NL|S|SE)\s?-\s?|(?:NL|S|SE|D|A|CH)\s)?"
    r"(?:(?P<nl>[1-9]\d{3})(?P<nlsep>\s?)(?P<nll>[A-Z]{2}|[a-z]{2})"
    r"|(?P<zip4>\d{5})-(?P<plus4>\d{4})"
    r"|(?P<se>[1-9]\d{2})(?P<sesep>\s)(?P<se2>\d{2})"
    r"|(?P<five>\d{5})"
    r"|(?P<four>\d{4}))"
)
_PREFIX_COUNTRY = {"A": "AT", "B": "BE", "CH": "CH", "D": "DE", "DK": "DK", "E": "ES", "F": "FR", "FI": "FI",
                   "FIN": "FI", "I": "IT", "L": "LU", "N": "NO", "NL": "NL", "S": "SE", "SE": "SE"}
_LANG_COUNTRY = {"es": "ES", "de": "DE", "en": "US", "sv": "SE", "nl": "NL"}


def is_postcode(text: str) -> bool:
    """Whether ``text`` (stripped) is a postcode of one of the formats of the module docstring."""
    return POSTCODE.fullmatch(text.strip()) is not None


def postcode_format(text: str, lang: str) -> str | None:
    """The format of a postcode (``text`` stripped): ``nl`` (``1234 AB``), ``us+4``, ``se`` (``123 45``), ``at``,
    ``ch``, ``de``, ``es``, ``us``, ``se5``, ``4`` or ``5`` (other 4 / 5 digit codes); ``None`` when ``text`` is
    not one of them."""
    m = POSTCODE.fullmatch(text)
    if m is None:
        return None
    prefix = m.group("prefix")
    country = _PREFIX_COUNTRY.get(prefix.strip(" -")) if prefix else None
    if m.group("nl"):
        return "nl" if country in (None, "NL") else None
    if m.group("zip4"):
        return "us+4" if country is None else None
    if m.group("se"):
        return "se" if country in (None, "SE") else None
    if m.group("five"):
        country = country or _LANG_COUNTRY.get(lang)
        return {"ES": "es", "DE": "de", "US": "us", "SE": "se5"}.get(country or "", "5")
    if (country is None and lang == "de") or country in ("AT", "CH"):
        return "ch" if country == "CH" else "at"
    return "4" if country in (None, "BE", "DK", "LU", "NO", "NL") else None


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


def _spanish(stripped: str, key: str, ctx: GenContext, city: str | None) -> str:
    """A Spanish postcode ``PP0NN`` of the province of the surrogate of ``city`` (a city or province name), else of
    the nearest city span of the document (when ``city`` is ``None`` and the current span is known), else of the
    province the original code belongs to."""
    if city is None:
        city_span = _nearest_city_span(ctx)
        city = ctx.span_text(city_span).strip() if city_span is not None else None
    if city:
        place = surrogate_city_place(city, ctx)
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
    return new


def _number(lo: int, hi: int, width: int) -> Callable[[KeyedStream], str]:
    """A keyed number in ``[lo, hi]`` written with ``width`` digits."""
    def draw(stream: KeyedStream) -> str:
        return str(lo + stream.below(hi - lo + 1)).zfill(width)

    return draw


def _german(stream: KeyedStream) -> str:
    region = 1 + stream.below(99)
    while region in _DE_UNUSED:
        region = 1 + stream.below(99)
    return f"{region:02d}{1 + stream.below(999):03d}"


def _us_zip(stream: KeyedStream) -> str:
    return str(1001 + stream.below(99950 - 1001 + 1)).zfill(5)  # 01001-99950: never a 000 prefix


#: US state (postal abbreviation) -> the ranges of the first three digits of its ZIP codes (USPS sectional
#: centers; the main ranges in use, plain facts), so that a ZIP code can follow the surrogate of its state
_US_ZIP3: dict[str, tuple[tuple[int, int], ...]] = {
    "AL": ((354, 369),), "AK": ((995, 999),), "AZ": ((850, 853), (855, 857)), "AR": ((716, 729),),
    "CA": ((900, 908), (910, 928), (930, 961)), "CO": ((800, 816),), "CT": ((60, 69),), "DE": ((197, 199),),
    "DC": ((200, 200), (202, 205)), "FL": ((320, 339),), "GA": ((300, 319),), "HI": ((967, 968),),
    "ID": ((832, 838),), "IL": ((600, 620), (622, 629)), "IN": ((460, 479),), "IA": ((500, 516), (520, 528)),
    "KS": ((660, 662), (664, 679)), "KY": ((400, 418), (420, 427)), "LA": ((700, 701), (703, 708), (710, 714)),
    "ME": ((39, 49),), "MD": ((206, 212), (214, 219)), "MA": ((10, 27),), "MI": ((480, 499),),
    "MN": ((550, 551), (553, 567)), "MS": ((386, 397),), "MO": ((630, 631), (633, 641), (644, 658)),
    "MT": ((590, 599),), "NE": ((680, 681), (683, 693)), "NV": ((889, 891), (893, 895), (897, 898)),
    "NH": ((30, 38),), "NJ": ((70, 89),), "NM": ((870, 871), (873, 884)), "NY": ((100, 149),),
    "NC": ((270, 289),), "ND": ((580, 588),), "OH": ((430, 458),), "OK": ((730, 731), (734, 741), (743, 749)),
    "OR": ((970, 979),), "PA": ((150, 196),), "RI": ((28, 29),), "SC": ((290, 299),), "SD": ((570, 577),),
    "TN": ((370, 385),), "TX": ((750, 799),), "UT": ((840, 847),), "VT": ((50, 54), (56, 59)),
    "VA": ((220, 246),), "WA": ((980, 986), (988, 994)), "WV": ((247, 268),), "WI": ((530, 532), (534, 535),
                                                                                    (537, 549)),
    "WY": ((820, 831),),
}


@memo(maxsize=64)
def _us_zip3(state: str) -> tuple[int, ...]:
    """The ZIP3 prefixes of a US state (postal abbreviation), in order; empty for anything else."""
    return tuple(p for lo, hi in _US_ZIP3.get(state, ()) for p in range(lo, hi + 1))


def _us_state_zip(state: str) -> Callable[[KeyedStream], str] | None:
    """A drawer of ZIP codes of a US ``state`` (abbreviation or name, any case), ``None`` for anything else."""
    abbreviation = us_state_abbreviation(state)
    prefixes = _us_zip3(abbreviation) if abbreviation is not None else ()
    if not prefixes:
        return None

    def draw(stream: KeyedStream) -> str:
        return f"{prefixes[stream.below(len(prefixes))]:03d}{1 + stream.below(99):02d}"

    return draw


def _surrogate_state_of(ctx: GenContext, state: str | None) -> str | None:
    """The surrogate of the state ``state`` written with the code (an address span), else of the nearest state span
    of the document (a ``LOCATION.STATE`` or city span that is a state: ``"IL"`` before ``" 62704"``); ``None``
    when there is none."""
    if state is None:
        span = _nearest_city_span(ctx)
        state = ctx.span_text(span).strip() if span is not None else None
    if not state or not is_state(state, ctx.lang):
        return None
    return surrogate_state(state, ctx)


def _dutch_letters(stream: KeyedStream) -> str:
    pair = "SA"
    while pair in _NL_BANNED:
        pair = _NL_LETTERS[stream.below(len(_NL_LETTERS))] + _NL_LETTERS[stream.below(len(_NL_LETTERS))]
    return pair


_DIGITS: dict[str, Callable[[KeyedStream], str]] = {
    "at": _number(1010, 9992, 4), "ch": _number(1000, 9658, 4), "4": _number(1000, 9999, 4), "de": _german,
    "us": _us_zip, "5": _number(10000, 99999, 5), "se5": _number(10000, 98499, 5),
}


def _draw(fmt: str, m: re.Match[str], stream: KeyedStream) -> str:
    """A new code of format ``fmt`` in the layout of match ``m`` (its prefix kept)."""
    prefix = m.group("prefix") or ""
    if fmt == "nl":
        digits = m.group("nl")
        new_digits = digits
        while new_digits == digits:
            new_digits = str(1000 + stream.below(9000))
        letters = m.group("nll")
        new_letters = letters.upper()
        while new_letters == letters.upper():
            new_letters = _dutch_letters(stream)
        return prefix + new_digits + m.group("nlsep") + (new_letters if letters.isupper() else new_letters.lower())
    if fmt == "us+4":
        return f"{_us_zip(stream)}-{1 + stream.below(9999):04d}"
    if fmt == "se":
        return f"{prefix}{100 + stream.below(885)}{m.group('sesep')}{stream.below(100):02d}"
    return prefix + _DIGITS[fmt](stream)


def surrogate_zip(text: str, ctx: GenContext, city: str | None = None, state: str | None = None) -> str:
    """A postcode of the original's country and layout (see the module docstring). ``city``: the city or province
    written with the code (an address span), which a Spanish code follows instead of the nearest city span;
    ``state``: the US state written with it (``"IL"`` of ``"Springfield, IL 62704"``), whose surrogate a US ZIP
    code follows (else the surrogate of the nearest state span): a ZIP code of the new state."""
    stripped = text.strip()
    key = normalize(stripped)
    if ctx.lang == "es" and _FIVE_DIGITS.fullmatch(stripped):  # the usual Spanish code (postcode_format: "es")
        return text.replace(stripped, _spanish(stripped, key, ctx, city), 1)
    fmt = postcode_format(stripped, ctx.lang)
    if fmt is None:
        return format_preserving(text, ctx, "zip")
    m = POSTCODE.fullmatch(stripped)
    assert m is not None
    if fmt == "es":  # "E-28013": the digits as a Spanish code, the prefix kept
        digits = m.group("five")
        return text.replace(digits, _spanish(digits, normalize(digits), ctx, city), 1)
    stream = ctx.rand.stream("zip", fmt, key)
    draw = _draw
    if fmt in ("us", "us+4") and (state is not None or ctx.lang == "en"):
        new_state = _surrogate_state_of(ctx, state if state is not None else city or None)
        in_state = _us_state_zip(new_state) if new_state is not None else None
        if in_state is not None:
            def draw(fmt: str, m: re.Match[str], stream: KeyedStream) -> str:
                code = in_state(stream)
                return f"{code}-{1 + stream.below(9999):04d}" if fmt == "us+4" else code
    new = stripped
    for _ in range(MAX_ATTEMPTS):
        new = draw(fmt, m, stream)
        if ctx.fresh(new, key):  # normalize(new) != key and not ctx.leaks(new)
            break
    return text.replace(stripped, new, 1)
