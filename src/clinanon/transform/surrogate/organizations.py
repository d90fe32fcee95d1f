"""Organisation, health-care unit, department and profession surrogates, and the keyed rebuilding of institution
names that hospitals share.

Health-care units (``Centro de Salud X``) keep their head with a keyed name part (a city of the home country or a
person); departments come from a short list; organisations keep an institution word (``Universidad de <city>``)
or become a keyed company name of the locale; professions come from a short list per language. Keyed by the
normalized original.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from clinanon.transform.surrogate._choice import MAX_ATTEMPTS, pick
from clinanon.transform.surrogate._data import (
    DEPARTMENTS,
    PROFESSIONS,
    UNIT_HEADS,
    WeightedList,
    faker_attr,
    given_names,
    surnames,
)
from clinanon.transform.surrogate._text import apply_shape, normalize
from clinanon.transform.surrogate.cities import _city_names, _city_off_document
from clinanon.transform.surrogate.identifiers import format_preserving
from clinanon.transform.surrogate.keys import KeyedStream
from clinanon.transform.surrogate.scope import GenContext

__all__ = ["surrogate_department", "surrogate_organization", "surrogate_profession"]


def _starts_with(text: str, phrase: str) -> bool:
    t, p = normalize(text), normalize(phrase)
    return t == p or t.startswith(p + " ")


def _ends_with(text: str, phrase: str) -> bool:
    t, p = normalize(text), normalize(phrase)
    return t == p or t.endswith(" " + p)


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
    for _ in range(MAX_ATTEMPTS):
        new = make(core(ctx, stream))
        if ctx.fresh(new, key):  # normalize(new) != key and not ctx.leaks(new)
            break
    return new


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
        new = f"{pick(ctx, surnames(ctx.lang).items, 'org', key, ctx.avoid_words())} {suffix}"
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
        new = pick(ctx, pool, "department", key, ctx.original_strings())
    new = apply_shape(stripped, new) if stripped.isupper() else new
    return text.replace(stripped, new, 1) if normalize(new) != key else format_preserving(text, ctx, "unit")


def surrogate_profession(text: str, ctx: GenContext) -> str:
    """Another profession from the language's list."""
    stripped = text.strip()
    pool = PROFESSIONS.get(ctx.lang, PROFESSIONS["en"])
    new = pick(ctx, pool, "profession", normalize(stripped), ctx.original_strings())
    return text.replace(stripped, apply_shape(stripped, new), 1)
