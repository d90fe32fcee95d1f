"""Age surrogates: the first number of an age moved by the scope's age offset, or capped.

:func:`surrogate_age` moves the first number of an age (digits or number words in the five languages,
:mod:`.numbers`) by the scope's age offset (``settings.age_shift``, default 1-2, never 0; chosen per document like
the date offsets when collisions are avoided, see :func:`age_offset`); an age below the cap never shifts to or
above it.

An age in years at or above ``age_cap`` (default 90, HIPAA Safe Harbor: "ages over 89 ... aggregated into a single
category of age 90 or older") is generalised in a form that reads in its sentence:

* a number with a year noun and nothing that continues the construction (``"93 años"``, ``"93 years"``, ``"Age:
  93."``) says so: ``"90 años o más"`` / ``"90 years or older"`` / ``"90 jaar of ouder"`` / ``"90 år eller äldre"``
  / ``"90 Jahre oder älter"`` (the unit word kept), ``"90 or older"`` for a number alone;
* where such a phrase would break the sentence — a compound or attached unit (``"93-year-old"``, ``"93yo"``,
  ``"93-jarige"``, ``"93-årig"``, ``"93-jährige"``), an age followed by ``old`` / ``oud`` / ``gammal`` / ``alt``
  (``"93 years old"``), or a number followed by a word outside the span (``"93"`` + ``"-year-old"``: never
  ``"90 or older-year-old"``) — the number becomes a keyed number from the cap to cap + 9 (never the original), in
  digits or words as written: a value that says no more than "at least the cap" about the original.

The text after the span is read for the second rule, so the operator keeps age surrogates by position.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from clinanon.caches import memo
from clinanon.transform.surrogate._choice import MAX_ATTEMPTS
from clinanon.transform.surrogate._text import apply_case, fold_accents, normalize
from clinanon.transform.surrogate.date_formats import DATE_LOCALES
from clinanon.transform.surrogate.dates import _MAX_DATES_CHECKED, _wider
from clinanon.transform.surrogate.numbers import _number_word_regex, _spell, number_words
from clinanon.transform.surrogate.scope import GenContext

__all__ = ["AgeMatch", "age_offset", "parse_age", "surrogate_age"]

_YEAR_UNITS = {"es": ("año", "años", "a", "anos", "ano"), "en": ("year", "years", "yr", "yrs", "y", "yo", "y/o"),
               "nl": ("jaar", "jarige", "jr"), "sv": ("år", "åring", "årig", "årige"),
               "de": ("jahr", "jahre", "jahren", "j", "jährig", "jährige", "jähriger", "jahrig")}
_OR_OLDER = {"es": "o más", "en": "or older", "nl": "of ouder", "sv": "eller äldre", "de": "oder älter"}
_UNIT_AFTER = re.compile(r"\s*-?\s*([^\W\d_]+)")


@dataclass(frozen=True, slots=True)
class AgeMatch:
    start: int
    end: int
    value: int
    words: bool
    unit: str | None  # "years" | "other" | None
    unit_end: int


@memo(maxsize=16)
def _year_unit_words(lang: str) -> frozenset[str]:
    return frozenset({normalize(u) for u in _YEAR_UNITS.get(lang, ())}
                     | {normalize(u) for us in _YEAR_UNITS.values() for u in us if len(u) > 2})


@memo(maxsize=8192, kind="text")
def parse_age(text: str, lang: str) -> AgeMatch | None:
    """The first age number in ``text`` (digits or number words) and its unit."""
    m = re.search(r"\d+", text)
    words = False
    folded = fold_accents(text.casefold())
    if m is None or len(m.group()) > 3:
        wm = _number_word_regex(lang if lang in DATE_LOCALES else "en").search(folded)
        if wm is None:
            return None
        # folding keeps lengths for the letters used in number words (NFC composed input assumed)
        start, end, value, words = wm.start(), wm.end(), number_words(lang)[wm.group(1)], True
        if len(folded) != len(text):
            return None
    else:
        start, end, value = m.start(), m.end(), int(m.group())
    unit: str | None = None
    unit_end = end
    um = _UNIT_AFTER.match(text, end)
    if um is not None:
        word = normalize(um.group(1))
        unit = "years" if word in _year_unit_words(lang) else "other"
        unit_end = um.end()
        tail = re.match(r"-[^\W\d_]+", text[unit_end:])  # "45-year-old"
        if tail is not None:
            unit_end += tail.end()
    return AgeMatch(start, end, value, words, unit, unit_end)


def age_offset(ctx: GenContext) -> int:
    """The age offset of the current document (never 0).

    Without ``settings.avoid_collisions``: the scope's own offset, the first of ``settings.age_shift``'s values
    (either sign) in the scope's keyed order. With it (document scope by default): that offset unless an age
    surrogate of the document would reproduce an original of the document (``"17 años"`` moved onto another
    span's ``"18 años"``); then the first value in keyed order — the rest of the configured range, then the
    magnitudes up to 5, then up to 10 — under which none collides, else the one with the fewest collisions.
    One offset per document; a pure function of (key, scope, the document's span texts). Cached.
    """
    memo = ctx.memo
    cached = memo.get("age_offset")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    settings = ctx.settings
    bounds = _age_bounds(*settings.age_shift)
    rand = ctx.rand

    def tier(a: int, b: int) -> list[int]:
        values = list(_age_tier_values(a, b))
        rand.stream("age-offset", str(a), str(b)).shuffle(values)  # the stream of the parts (a, b): same encoding
        return values

    first_tier = tier(*bounds[0])
    chosen = first_tier[0]
    if settings.avoid_collisions:
        counts = _age_texts(ctx)
        if counts:
            lang = ctx.lang if ctx.lang in DATE_LOCALES else "en"
            cap = settings.age_cap
            leaks = ctx.leaks

            def cost(off: int) -> int:
                total = 0
                for t, n in counts.items():
                    new = _age_with(t, lang, cap, off)
                    if new != t and leaks(new, already=t):
                        total += n
                return total

            best: tuple[int, int] | None = None
            tiers = itertools.chain(first_tier, itertools.chain.from_iterable(tier(a, b) for a, b in bounds[1:]))
            for off in tiers:
                c = cost(off)
                if best is None or c < best[0]:
                    best = (c, off)
                if c == 0:
                    break
            assert best is not None
            chosen = best[1]
    memo["age_offset"] = chosen
    return chosen


@memo(maxsize=64)
def _age_bounds(lo: int, hi: int) -> tuple[tuple[int, int], ...]:
    """The magnitude ranges :func:`age_offset` tries: the configured one, then the wider tiers."""
    bounds = [(lo, hi)]
    for upper in _wider("ages", lo, hi):
        if upper > bounds[-1][1]:
            bounds.append((bounds[-1][1] + 1, upper))
    return tuple(bounds)


@memo(maxsize=64)
def _age_tier_values(a: int, b: int) -> tuple[int, ...]:
    return tuple(sign * k for k in range(a, b + 1) for sign in (1, -1))


def _age_texts(ctx: GenContext) -> dict[str, int]:
    """How often each text a document's age offset must not collide on occurs (its first
    ``_MAX_DATES_CHECKED`` AGE spans and lower-case NAME spans holding digits), in first-occurrence order."""
    spans, doc = ctx.spans, ctx.doc
    by_type = (ctx._tables or ctx._doc_tables()).by_type
    text = doc.text if doc is not None else ""
    span_text = (lambda s: text[s.start:s.end]) if doc is not None else (lambda s: "")
    texts = [span_text(spans[i]) for i in by_type.get("AGE", ())]
    for i in by_type.get("NAME", ()):
        t = span_text(spans[i])
        if any(map(str.isdigit, t)) and not any(map(str.isupper, t)):
            texts.append(t)
    counts: dict[str, int] = {}
    for t in texts[:_MAX_DATES_CHECKED]:
        counts[t] = counts.get(t, 0) + 1
    return counts


def surrogate_age(text: str, ctx: GenContext) -> str:
    """The shifted (or capped) age (see the module docstring); ``text`` when it holds no number."""
    lang = ctx.lang if ctx.lang in DATE_LOCALES else "en"
    cap = ctx.settings.age_cap
    if cap is not None:
        am = parse_age(text, lang)
        if am is not None and am.value >= cap and am.unit in (None, "years"):
            return _capped_age(text, am, lang, cap, ctx)
    return _age_with(text, lang, cap, age_offset(ctx))


#: year nouns after which "or older" reads (``"90 years or older"``); adjectival and short units do not
_PHRASE_UNITS = {lang: frozenset(map(normalize, units)) for lang, units in {
    "es": ("año", "años"), "en": ("year", "years", "yrs", "yr"), "nl": ("jaar",), "sv": ("år",),
    "de": ("jahr", "jahre", "jahren"),
}.items()}
#: what continues an age construction: a hyphen, or an "old" word (``"93 years old"``, ``"93 jaar oud"``)
_CONTINUES = re.compile(r"\s*(?:[-‐–]|(?:old|oud|oude|gammal|gammalt|gamla|alt|alte|alter|altes|alten|of age)\b)",
                        re.IGNORECASE)
#: a bare number followed by a word or a hyphen (``"93"`` + ``" yo"``, ``"93"`` + ``"-year-old"``)
_WORD_AFTER = re.compile(r"\s*[-‐–]|[ \t]*[^\W\d_]")


def _phrase_reads(text: str, am: AgeMatch, lang: str, ctx: GenContext) -> bool:
    """Whether ``"<cap> <unit> or older"`` reads in place of the capped age ``am`` of ``text`` (see the module
    docstring); the text after the span in the document counts when ``text`` is the current span's."""
    after = text[am.unit_end:]
    span, doc = ctx.span, ctx.doc
    if span is not None and doc is not None and doc.text[span.start:span.end] == text:
        after += doc.text[span.end:span.end + 16]
    if am.unit is None:
        return _WORD_AFTER.match(after) is None
    um = _UNIT_AFTER.match(text, am.end)
    if um is None or um.end() != am.unit_end:  # "93-year-old": a tail after the unit
        return False
    if not text[am.end:um.start(1)].isspace():  # "93yo", "93-jarige": attached or hyphenated
        return False
    if normalize(um.group(1)) not in _PHRASE_UNITS.get(lang, ()):
        return False
    return _CONTINUES.match(after) is None


def _capped_age(text: str, am: AgeMatch, lang: str, cap: int, ctx: GenContext) -> str:
    """A capped age (see the module docstring): the "or older" phrase where it reads, else a keyed number from
    ``cap`` to ``cap + 9`` other than the original that reproduces no original of the document."""
    if _phrase_reads(text, am, lang, ctx):
        if am.unit is None:
            return text[:am.start] + f"{cap} {_OR_OLDER[lang]}" + text[am.end:]
        return text[:am.start] + str(cap) + text[am.end:am.unit_end] + f" {_OR_OLDER[lang]}" + text[am.unit_end:]
    key = normalize(text)
    below = ctx.rand.stream("age-cap", key).below
    new = text
    for _ in range(MAX_ATTEMPTS):
        value = cap + below(10)
        if value == am.value:
            continue
        words = am.words and value <= 99
        rendered = apply_case(text[am.start:am.end], _spell(value, lang)) if words else str(value)
        new = text[:am.start] + rendered + text[am.end:]
        if ctx.fresh(new, key):
            break
    return new


@memo(maxsize=1 << 14, kind="text")
def _age_with(text: str, lang: str, cap: int | None, off: int) -> str:
    """``text`` with its age moved by ``off`` or capped (a pure function: cached)."""
    am = parse_age(text, lang)
    if am is None:
        return text
    in_years = am.unit in (None, "years")
    if cap is not None and in_years and am.value >= cap:
        if am.unit is None:
            return text[:am.start] + f"{cap} {_OR_OLDER[lang]}" + text[am.end:]
        return text[:am.start] + str(cap) + text[am.end:am.unit_end] + f" {_OR_OLDER[lang]}" + text[am.unit_end:]
    new = am.value + off
    if new < 1 or (cap is not None and in_years and new >= cap):
        new = am.value - off
    if new < 0:
        new = am.value + abs(off)
    if am.words and 1 <= new <= 99:
        word = "un" if (lang == "es" and new == 1 and am.unit) else _spell(new, lang)
        rendered = apply_case(text[am.start:am.end], word)
    else:
        rendered = str(new)
    return text[:am.start] + rendered + text[am.end:]
