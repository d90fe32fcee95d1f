"""Place and organisation surrogates: the ``LOCATION.*`` generators, one module per kind.

* City / region (``LOCATION.CITY``, ``LOCATION.STATE``, ``LOCATION.OTHER``): :mod:`.cities` — another city of the
  same region when the gazetteer knows the city's region (else of the same country; a town alone in its country's
  list gets a town of the same continent; an unknown place gets a city of the note's home country, or a region in a
  state span); a region gets another region with the same parent (else of the same country). Spanish provinces
  count as regions, so ``"Madrid"`` can become ``"Sevilla"``. A state abbreviation (``"IL"``) or a state name the
  gazetteer lacks (``"Texas"``) gets another one of the same country (:mod:`.states`). Never an invented name.
* Country: :mod:`.countries` — another country of the same continent (names in the note's language); an unknown
  one, a country of the home country's continent.
* Postcode (``LOCATION.ZIP``, or a digits-only city span): :mod:`.postcodes` — a complete, valid code of the
  original's country and layout (Dutch ``1234 AB`` with both parts replaced, Austrian ``A-1010``, German, Swedish
  ``123 45``, US ZIP / ZIP+4); in Spanish notes a common postcode (``PP0NN``) of the surrogate of the nearest city
  in the same document (else of the province the original code belongs to), so postcode and city stay coherent.
* Street: :mod:`.streets` — street-type words (``Calle``, ``C/``, ``Avda.``, ``Street``, ``-straat``, ``-straße``,
  ``-gatan`` ...), particles and floor/door words are kept; every other word becomes a keyed surname (compound
  street words keep their suffix: ``Kerkstraat`` -> ``<name>straat``); every house number gets a keyed number of
  the same length.
* Addresses: a street, city or postcode span that holds several parts (``"Oudegracht 12, 3512 PK Utrecht"``,
  ``"28013 Madrid"``, ``"Springfield, IL 62704"``) is read by :mod:`.addresses` and each part replaced by its own
  kind: the town stays a town (never a street's surname), the postcode a whole postcode.
* Hospital: :mod:`.hospitals` — a hospital of the gazetteer with the same head phrase (``Hospital
  Universitario``, ``Clínica`` ...), else the head phrase + a keyed city or person name (a city alone when no
  phrase can be written). :mod:`.organizations`: health-care units (``Centro de Salud X``) keep their head;
  departments come from a short list; organisations become a keyed company name of the locale or keep an
  institution word (``Universidad de <city>``); professions come from a short list per language.
* A ``NAME`` span that is a known place after a locative preposition (``"firefighter in Texas"``: a place the
  name lists also know, detected as a person) gets a place (:func:`located_place`), never a person's name.

All choices are keyed by the normalized original, so each place maps to one surrogate in a scope. This module
holds the generators of city, street and postcode spans (:func:`surrogate_city`, :func:`surrogate_address_street`,
:func:`surrogate_address_zip`) and the dispatch of a ``LOCATION.*`` category (:func:`surrogate_place`).
"""

from __future__ import annotations

import re

from clinanon.transform.surrogate._data import places
from clinanon.transform.surrogate._text import normalize
from clinanon.transform.surrogate.addresses import Part, is_known_place, split_address
from clinanon.transform.surrogate.cities import surrogate_place_name
from clinanon.transform.surrogate.countries import surrogate_country
from clinanon.transform.surrogate.hospitals import surrogate_hospital
from clinanon.transform.surrogate.identifiers import format_preserving
from clinanon.transform.surrogate.organizations import surrogate_department, surrogate_organization
from clinanon.transform.surrogate.postcodes import is_postcode, surrogate_zip
from clinanon.transform.surrogate.scope import GenContext
from clinanon.transform.surrogate.states import is_state
from clinanon.transform.surrogate.streets import surrogate_street

__all__ = [
    "located_place", "surrogate_address_street", "surrogate_address_zip", "surrogate_city", "surrogate_place",
]


def _render(parts: tuple[Part, ...], ctx: GenContext, street_city: bool) -> str:
    """An address from the surrogates of its parts (see :mod:`.addresses`). ``street_city``: the span is a street,
    whose surrogate must not depend on where it is (a Spanish postcode follows the place of the same span, else
    the province of its own code; never the nearest city span)."""
    place = next((t for k, t in parts if k == "place"), None)
    # a US state written with the code ("IL" of "Springfield, IL 62704"): the ZIP code follows its surrogate
    state = next((t for k, t in reversed(parts) if k == "place" and is_state(t, ctx.lang)), None)
    out: list[str] = []
    for kind, t in parts:
        if kind == "street":
            out.append(surrogate_street(t, ctx))
        elif kind == "zip":
            out.append(surrogate_zip(t, ctx, place if place is not None or not street_city else "", state))
        elif kind == "place":
            out.append(surrogate_place_name(t, ctx))
        else:
            out.append(t)
    return "".join(out)


def surrogate_address_street(text: str, ctx: GenContext) -> str:
    """A street span's surrogate: :func:`~.streets.surrogate_street`, or, for a street written with its postcode
    or town (``"Oudegracht 12, 3512 PK Utrecht"``), the street, the postcode and the town each replaced by their
    own kind (:mod:`.addresses`)."""
    parts = split_address(text, ctx.lang, True) or split_address(text, ctx.lang, False)  # "3512 PK Utrecht"
    return surrogate_street(text, ctx) if parts is None else _render(parts, ctx, True)


def surrogate_address_zip(text: str, ctx: GenContext) -> str:
    """A postcode span's surrogate: :func:`~.postcodes.surrogate_zip`, or, for a postcode written with its town
    (``"3512 PK Utrecht"``), the postcode and the town each replaced by their own kind."""
    stripped = text.strip()
    if any(map(str.isalpha, stripped)) and not is_postcode(stripped):
        parts = split_address(stripped, ctx.lang, False)
        if parts is not None:
            return text.replace(stripped, _render(parts, ctx, False), 1)
    return surrogate_zip(text, ctx)


def surrogate_city(text: str, ctx: GenContext) -> str:
    """Another city/region (see the module docstring): a postcode for a span of digits, another state (postal
    abbreviation) for a state, a place of the gazetteer for a place, each part of its kind for an address
    (``"28013 Madrid"``, ``"Springfield, IL"``); never an invented name."""
    stripped = text.strip()
    if not stripped:
        return text
    digits = sum(map(str.isdigit, stripped))
    if digits >= max(3, len(stripped) // 2):
        return surrogate_address_zip(text, ctx)
    if (digits or "," in stripped or ";" in stripped) and normalize(stripped) not in places(ctx.lang).by_name:
        parts = split_address(stripped, ctx.lang, False)
        if parts is not None:
            return text.replace(stripped, _render(parts, ctx, False), 1)
    new = surrogate_place_name(stripped, ctx)
    return new if stripped is text else text.replace(stripped, new, 1)


#: prepositions after which a capitalised known place name is a place, not a person (``"firefighter in Texas"``)
_LOCATIVE: dict[str, re.Pattern[str]] = {lang: re.compile(r"\b(?:" + "|".join(words) + r")\s+$", re.IGNORECASE)
                                         for lang, words in {
    "en": ("in", "from", "near"), "es": ("en", "desde"), "nl": ("in", "uit", "te"), "sv": ("i", "från"),
    "de": ("in", "aus"),
}.items()}


def _located_names(ctx: GenContext) -> frozenset[str]:
    """The normalized texts of this document's ``NAME`` spans that are known place names (:func:`.addresses.
    is_known_place`) right after a locative preposition of the language (cached per document)."""
    cached = ctx.memo.get("located_names")
    if cached is None:
        doc = ctx.doc
        found: set[str] = set()
        pattern = _LOCATIVE.get(ctx.lang)
        if doc is not None and pattern is not None:
            text = doc.text
            for s in ctx.spans_of("NAME"):
                if pattern.search(text, max(0, s.start - 12), s.start) is None or text.startswith("'s", s.end):
                    continue
                name = text[s.start:s.end].strip()
                if name[:1].isupper() and is_known_place(name, ctx.lang):
                    found.add(normalize(name))
        cached = ctx.memo["located_names"] = frozenset(found)
    return cached  # type: ignore[no-any-return]


def located_place(text: str, ctx: GenContext) -> str | None:
    """For a ``NAME`` span that names a known place after a locative preposition somewhere in the document
    (``"firefighter in Texas"``, a detector's person for a place the name lists also know), the surrogate of the
    place (:func:`~.cities.surrogate_place_name`), so that a place never becomes a person; else ``None``. Decided
    per document and text, so every mention of the text gets the same surrogate."""
    located = _located_names(ctx)
    if not located or normalize(text) not in located:
        return None
    stripped = text.strip()
    return text.replace(stripped, surrogate_place_name(stripped, ctx), 1)


def surrogate_place(text: str, ctx: GenContext, category: str) -> str:
    """Dispatch a ``LOCATION.*`` category to its generator."""
    sub = category.partition(".")[2]
    if sub == "COUNTRY":
        return surrogate_country(text, ctx)
    if sub == "ZIP":
        return surrogate_address_zip(text, ctx)
    if sub == "STREET":
        return surrogate_address_street(text, ctx)
    if sub == "HOSPITAL":
        return surrogate_hospital(text, ctx)
    if sub == "ORGANIZATION":
        return surrogate_organization(text, ctx)
    if sub == "DEPARTMENT":
        return surrogate_department(text, ctx)
    if sub == "ROOM":
        return format_preserving(text, ctx, "room")
    return surrogate_city(text, ctx)
