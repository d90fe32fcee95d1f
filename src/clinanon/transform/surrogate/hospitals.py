"""Hospital surrogates (``LOCATION.HOSPITAL``): another hospital of the same kind.

A hospital of the gazetteer with the same head phrase (``Hospital Universitario``, ``Clínica`` ...) or tail phrase
(``General Hospital``, ``sjukhus``), else the phrase + a keyed name part (a city of the home country, a person, a
saint or a surname, by language). When no phrase can be written (every phrase of the language is an original of
the document), the name part alone is a city: a bare surname or person would read as a person. Keyed by the
normalized original.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from clinanon.caches import memo
from clinanon.transform.surrogate._choice import pick
from clinanon.transform.surrogate._data import HOME_COUNTRY, given_names, places, surnames
from clinanon.transform.surrogate._text import apply_shape, normalize
from clinanon.transform.surrogate.cities import _city_off_document
from clinanon.transform.surrogate.identifiers import format_preserving
from clinanon.transform.surrogate.keys import KeyedStream
from clinanon.transform.surrogate.organizations import _rebuild
from clinanon.transform.surrogate.scope import GenContext

__all__ = ["surrogate_hospital"]


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


def _hospital_core_maker(phrase: str, head: bool, lang: str,
                         bare: bool = False) -> Callable[[GenContext, KeyedStream], str]:
    """The keyed core of a rebuilt hospital name after head ``phrase`` (or before tail ``phrase``). ``bare``: the
    name gets no phrase (every phrase of the language is an original of the document), so the core alone is the
    name: a city (a bare surname or person would read as a person, ``"transferred from Benjamin"``)."""
    patterns = (_HOSPITAL_HEAD_CORES if head else _HOSPITAL_TAIL_CORES).get(lang, ("{city}",))
    if bare:
        patterns = ("{city}",)
    elif head and lang == "es" and normalize(phrase) in _HEADS_WITHOUT_DE:
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


#: what may join a hospital name to a head or tail phrase written outside its span (``"Riverside Hospital"``,
#: ``"St.-Lukas-Klinikum"``)
_JOIN = (" ", "-")


def _outside_phrase(ctx: GenContext) -> tuple[str, bool, str] | None:
    """A hospital head phrase of the language written right before the current span (``"Hospital "`` + ``"La
    Paz"``) or a tail phrase right after it (``"Riverside"`` + ``" Hospital"``, ``"St.-Lukas"`` + ``"-Klinikum"``),
    as ``(phrase as written, True for a head, the joining character)``; ``None`` when there is none (or no span)."""
    span, doc = ctx.span, ctx.doc
    if span is None or doc is None:
        return None
    text, start, end = doc.text, span.start, span.end
    heads, tails = _hospital_phrases(ctx.lang)
    if start >= 2 and text[start - 1] in _JOIN:
        cut = start - 1
        for h, p in heads:
            i = cut - len(h)
            if i >= 0 and (i == 0 or not _word_char(text[i - 1])) and normalize(text[i:cut]) == p:
                return text[i:cut], True, text[cut]
    if end + 1 < len(text) and text[end] in _JOIN:
        for h, p in tails:
            j = end + 1 + len(h)
            if j <= len(text) and (j == len(text) or not _word_char(text[j])) and normalize(text[end + 1:j]) == p:
                return text[end + 1:j], False, text[end]
    return None


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def surrogate_hospital(text: str, ctx: GenContext) -> str:
    """Another hospital of the same kind (see the module docstring): with the same head phrase (``Hospital
    Universitario``, ``Clínica``, ``Centro de Salud``) or tail phrase (``General Hospital``, ``sjukhus``), and a
    keyed name part — a city of the home country, a person, a saint or a surname (one in four times, when the
    gazetteer knows at least three hospitals of that kind, a real hospital of the kind). Without a phrase (or when
    the phrase alone is an original of the document), the language's default phrase (``Hospital``).

    A span whose head or tail phrase is written outside it (``"Riverside"`` before ``" Hospital"``, ``"La Paz"``
    after ``"Hospital "``, ``"St.-Lukas"`` before ``"-Klinikum"``) gets a name without that phrase, so that the
    text does not repeat it: the surrogate of the whole name with the phrase (the same as a span holding the whole
    name gets) less the phrase, else a keyed name part alone."""
    outside = _outside_phrase(ctx)
    if outside is None:
        return _surrogate_hospital(text, ctx)
    phrase, head, _ = outside
    stripped = text.strip()
    if not stripped:
        return text
    whole = f"{phrase} {stripped}" if head else f"{stripped} {phrase}"
    new_whole = _surrogate_hospital(whole, ctx)
    k = len(phrase.split())
    words = new_whole.split(" ")
    part = words[:k] if head else words[-k:]
    rest = " ".join(words[k:] if head else words[:-k]).strip()
    if len(words) > k and normalize(" ".join(part)) == normalize(phrase) and ctx.fresh(rest, normalize(stripped)):
        new = rest  # the whole name's surrogate less the phrase
    else:
        key = normalize(whole)
        new = _rebuild(ctx, key, "hospital-part", lambda core: core,
                       _hospital_core_maker(phrase, head, ctx.lang, bare=False))
    if stripped.isupper():
        new = apply_shape(stripped, new)
    if normalize(new) == normalize(stripped):
        return format_preserving(text, ctx, "hospital")
    return text.replace(stripped, new, 1)


def _surrogate_hospital(text: str, ctx: GenContext) -> str:
    """:func:`surrogate_hospital` of a span that holds its whole name (no phrase written outside it)."""
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
        new = pick(ctx, same, "hospital", key, avoid)
    else:
        def make(core: str) -> str:
            return (f"{canon} {core}" if is_head else f"{core} {canon}").strip()

        new = _rebuild(ctx, key, "hospital", make, _hospital_core_maker(canon or "Hospital", is_head, lang,
                                                                        bare=not canon))
    if normalize(new) == key:
        return format_preserving(text, ctx, "hospital")
    return text.replace(stripped, apply_shape(stripped, new) if stripped.isupper() else new, 1)
