"""Street surrogates (``LOCATION.STREET``): an address of the same type and shape.

Street-type words (``Calle``, ``C/``, ``Avda.``, ``Street``, ``-straat``, ``-straße``, ``-gatan`` ...), particles and
floor/door words are kept; every other word becomes a keyed surname (compound street words keep their suffix:
``Kerkstraat`` -> ``<name>straat``); every house number gets a keyed number of the same length. Keyed by the
normalized original.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from clinanon.caches import memo
from clinanon.transform.surrogate._choice import MAX_ATTEMPTS, pick
from clinanon.transform.surrogate._data import faker_attr, given_names, surnames
from clinanon.transform.surrogate._text import apply_shape, normalize
from clinanon.transform.surrogate.identifiers import format_preserving
from clinanon.transform.surrogate.keys import KeyedStream
from clinanon.transform.surrogate.scope import GenContext

__all__ = ["surrogate_street"]

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
            for _ in range(MAX_ATTEMPTS):
                # str(stream.randrange(1, 10)) (or "0") + str(stream.below(10)) per further digit
                new = "0" + numbers.decimal(len(t) - 1) if keep_zero else numbers.decimal(len(t), True)
                if new != t and new not in numbers_avoid:
                    break
            append(new)
        elif what == _WORD_PART:
            append(apply_shape(t, pick(ctx, surnames(lang).items, "street-word", k, avoid), lang))
        else:
            stem = pick(ctx, list(_stems(lang)), "street-stem", k, avoid)
            cut = len(t) - len(suffix)
            new = stem + t[cut:]
            out.append(apply_shape(t[:cut] or t, new) if t.isupper() or t.islower() else new)
    result = "".join(out)
    # normalize(result) != normalize(text) and not ctx.leaks(result)
    return result if ctx.fresh(result, normalize(text)) else format_preserving(text, ctx, "street")
