"""Month and weekday names per language, derived from Babel / CLDR (never hand-typed), plus regex builders.

For each language the forms come from the CLDR locales in :data:`LOCALES` (``es_ES``, ``en_US`` + ``en_GB``,
``nl_NL``, ``sv_SE``, ``de_DE``): wide and abbreviated names, ``format`` and ``stand-alone`` contexts. Every
form is stored case-folded, without a trailing dot, and also accent-folded (``"marz"`` for ``"März"``); a
3-letter truncation of a longer CLDR abbreviation is added too (``"sep"`` for ``septiembre``, which CLDR
abbreviates ``"sept"``), never an invented prefix. Results are cached per language, so the Babel look-ups
happen once per process.

Guarantees:

* :func:`month_forms` maps every surface form to its month number 1..12; :func:`weekday_forms` maps forms to
  ISO weekday numbers 1 (Monday) .. 7 (Sunday).
* :func:`month_regex` / :func:`weekday_regex` return a non-capturing alternation (a trie, see
  :func:`trie_regex`), that
  matches a form in any case (the caller compiles with ``re.IGNORECASE``) and optionally its trailing dot. It
  contains no nested quantifiers, so it cannot backtrack catastrophically.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from babel.dates import get_day_names, get_month_names

from clinanon.caches import memo

__all__ = [
    "LOCALES",
    "fold",
    "month_forms",
    "month_number",
    "month_regex",
    "trie_regex",
    "weekday_forms",
    "weekday_regex",
    "wide_month_forms",
]

#: CLDR locales whose names each language's patterns accept.
LOCALES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "es": ("es_ES",),
    "en": ("en_US", "en_GB"),
    "nl": ("nl_NL",),
    "sv": ("sv_SE",),
    "de": ("de_DE", "de_AT"),  # Austrian letters: "Jänner", "Jän."
})

_WIDTHS = ("wide", "abbreviated")
_CONTEXTS = ("format", "stand-alone")


def fold(s: str) -> str:
    """Case-fold and strip combining accents: ``"Març"`` -> ``"marc"``, ``"März"`` -> ``"marz"``.

    ``ß`` becomes ``ss`` (case folding); ``ñ`` becomes ``n``.
    """
    decomposed = unicodedata.normalize("NFKD", s.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _locales(lang: str) -> tuple[str, ...]:
    try:
        return LOCALES[lang]
    except KeyError:
        raise ValueError(f"unsupported language {lang!r}; expected one of: {', '.join(LOCALES)}") from None


def _variants(name: str) -> set[str]:
    base = name.strip().rstrip(".").casefold()
    return {base, fold(base)} if base else set()


@memo
def month_forms(lang: str) -> Mapping[str, int]:
    """Every accepted month form of ``lang`` (case-folded, no trailing dot) -> month number 1..12."""
    out: dict[str, int] = {}
    wide: dict[int, set[str]] = {}
    for loc in _locales(lang):
        for width in _WIDTHS:
            for ctx in _CONTEXTS:
                for num, name in get_month_names(width, ctx, loc).items():
                    for v in _variants(name):
                        out.setdefault(v, int(num))
                    if width == "wide":
                        wide.setdefault(int(num), set()).update(_variants(name))
    # a 3-letter truncation of a longer CLDR abbreviation ("sept" -> "sep"), never an invented prefix; and the
    # conventional 4-letter forms of February and September ("febr.", "Sept.") where the full name starts so
    for num, names in wide.items():
        abbrevs = [f for f, n in out.items() if n == num and f not in names]
        for name in names:
            p3 = name[:3]
            if any(a.startswith(p3) for a in abbrevs):
                out.setdefault(p3, num)
            if name[:4] in ("febr", "sept") and len(name) > 4:
                out.setdefault(name[:4], num)
    if lang == "de":
        out.setdefault("feber", 2)  # Austrian, beside CLDR's "Jänner"
    return MappingProxyType(out)


@memo
def weekday_forms(lang: str, *, abbreviated: bool = False) -> Mapping[str, int]:
    """Weekday forms of ``lang`` -> ISO weekday 1 (Monday) .. 7 (Sunday).

    Wide names only by default; with ``abbreviated`` the CLDR abbreviations of 3+ letters are added (shorter
    ones such as Dutch ``"ma"`` / ``"do"`` are ordinary words and are never included).
    """
    out: dict[str, int] = {}
    widths = _WIDTHS if abbreviated else ("wide",)
    for loc in _locales(lang):
        for width in widths:
            for ctx in _CONTEXTS:
                for num, name in get_day_names(width, ctx, loc).items():
                    for v in _variants(name):
                        if width == "wide" or len(v) >= 3:
                            out.setdefault(v, int(num) + 1)  # Babel: 0 = Monday
    return MappingProxyType(out)


def month_number(token: str, lang: str) -> int | None:
    """The month number of a month form (any case, with or without accents or trailing dot), else ``None``."""
    t = token.strip().rstrip(".").casefold()
    forms = month_forms(lang)
    return forms.get(t, forms.get(fold(t)))


def _alternation(forms: Iterable[str]) -> str:
    return trie_regex(forms)


@memo
def wide_month_forms(lang: str) -> frozenset[str]:
    """The full (wide) month names of ``lang``, case-folded, with and without accents."""
    out: set[str] = set()
    for loc in _locales(lang):
        for ctx in _CONTEXTS:
            for name in get_month_names("wide", ctx, loc).values():
                out |= _variants(name)
    return frozenset(out)


@memo
def month_regex(lang: str, *, wide_only: bool = False) -> str:
    """Alternation of the month forms of ``lang``, ending at a word edge; abbreviations may keep their dot
    (``"ene."``, ``"Sept."``), full names never do (the dot after ``"agosto."`` ends the sentence).

    With ``wide_only`` only full names are matched. Compile with ``re.IGNORECASE``; no capturing groups.
    """
    wide = wide_month_forms(lang)
    full = trie_regex(wide) + r"\b"
    if wide_only:
        return full
    abbrevs = [f for f in month_forms(lang) if f not in wide]
    return f"(?:{full}|{trie_regex(abbrevs)}(?:\\.|\\b))"


@memo
def weekday_regex(lang: str, *, abbreviated: bool = False) -> str:
    """Alternation of the weekday forms of ``lang`` (see :func:`weekday_forms`), ending at a word edge."""
    return _alternation(weekday_forms(lang, abbreviated=abbreviated)) + r"(?:\.|\b)"


def trie_regex(words: Iterable[str]) -> str:
    """A non-capturing regex matching exactly ``words``, factored as a trie (``"ene(?:ro)?"``).

    Sharing prefixes keeps the number of alternatives the engine tries at each position small, which makes a
    long word list several times faster to scan than a flat ``a|b|c`` alternation. Longer words are preferred
    where one word is a prefix of another (the caller adds its own word-boundary check).
    """
    root: dict[str, dict] = {}
    for w in set(words):
        if not w:
            continue
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, dict]) -> str:
        end = "" in node
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if end:
            return "(?:" + body + ")?"
        return body

    return "(?:" + build(root) + ")"
