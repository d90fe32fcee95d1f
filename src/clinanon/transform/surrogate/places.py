"""Place and organisation surrogates: the ``LOCATION.*`` generators, one module per kind.

* City / region (``LOCATION.CITY``, ``LOCATION.STATE``, ``LOCATION.OTHER``): :mod:`.cities` — another city of the
  same region when the gazetteer knows the city's region (else of the same country; an unknown place gets a city
  of the note's home country); a region gets another region with the same parent (else of the same country).
  Spanish provinces count as regions, so ``"Madrid"`` can become ``"Sevilla"``.
* Country: :mod:`.countries` — another country of the same continent (names in the note's language); an unknown
  one, a country of the home country's continent.
* Postcode (``LOCATION.ZIP``, or a digits-only city span): :mod:`.postcodes` — in Spanish notes a common postcode
  (``PP0NN``) of the surrogate of the nearest city in the same document (else of the province the original code
  belongs to), so postcode and city stay coherent; in other languages a format-preserving keyed code.
* Street: :mod:`.streets` — street-type words (``Calle``, ``C/``, ``Avda.``, ``Street``, ``-straat``, ``-straße``,
  ``-gatan`` ...), particles and floor/door words are kept; every other word becomes a keyed surname (compound
  street words keep their suffix: ``Kerkstraat`` -> ``<name>straat``); every house number gets a keyed number of
  the same length.
* Hospital: :mod:`.hospitals` — a hospital of the gazetteer with the same head phrase (``Hospital
  Universitario``, ``Clínica`` ...), else the head phrase + a keyed city or person name. :mod:`.organizations`:
  health-care units (``Centro de Salud X``) keep their head; departments come from a short list; organisations
  become a keyed company name of the locale or keep an institution word (``Universidad de <city>``); professions
  come from a short list per language.

All choices are keyed by the normalized original, so each place maps to one surrogate in a scope. This module
holds the generator of a city span (:func:`surrogate_city`) and the dispatch of a ``LOCATION.*`` category
(:func:`surrogate_place`).
"""

from __future__ import annotations

from clinanon.transform.surrogate._text import apply_shape
from clinanon.transform.surrogate.cities import surrogate_city_place
from clinanon.transform.surrogate.countries import surrogate_country
from clinanon.transform.surrogate.hospitals import surrogate_hospital
from clinanon.transform.surrogate.identifiers import format_preserving
from clinanon.transform.surrogate.organizations import surrogate_department, surrogate_organization
from clinanon.transform.surrogate.postcodes import surrogate_zip
from clinanon.transform.surrogate.scope import GenContext
from clinanon.transform.surrogate.streets import surrogate_street

__all__ = ["surrogate_city", "surrogate_place"]


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
