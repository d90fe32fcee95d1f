"""Small text helpers shared by the generators: normalization keys, accent folding, case patterns."""

from __future__ import annotations

import re
import unicodedata
from itertools import filterfalse

from clinanon.caches import memo

__all__ = ["apply_case", "apply_shape", "fold_accents", "is_ascii_word", "normalize", "same_key"]

_WS = re.compile(r"\s+")
_unicode_normalize = unicodedata.normalize
_combining = unicodedata.combining


def fold_accents(s: str) -> str:
    """Remove combining accents (``"García"`` -> ``"Garcia"``); ``ñ`` -> ``n``, ``ß`` stays."""
    decomposed = _unicode_normalize("NFKD", s)
    if decomposed.isascii():  # nothing to remove, and NFC leaves ASCII as it is
        return decomposed
    return _unicode_normalize("NFC", "".join(filterfalse(_combining, decomposed)))


def normalize(s: str) -> str:
    """The consistency key of a string: case-folded, accent-folded, whitespace collapsed and stripped."""
    if s.isascii():  # casefold is lower for ASCII, and no accents: cheaper than a cache lookup
        return " ".join(s.lower().split())
    return _normalize_unicode(s)


def same_key(a: str, b: str) -> bool:
    """``normalize(a) == normalize(b)``; two ASCII texts are compared word by word (nothing joined)."""
    if a.isascii() and b.isascii():
        return a.lower().split() == b.lower().split()
    return normalize(a) == normalize(b)


@memo(maxsize=1 << 15, kind="text")
def _normalize_unicode(s: str) -> str:
    folded = s.casefold()
    if not folded.isascii():
        folded = fold_accents(folded)
    return " ".join(folded.split())  # str.split/strip and re's \s agree on whitespace (Py_UNICODE_ISSPACE)


def is_ascii_word(s: str) -> bool:
    return s.isascii()


def apply_case(template: str, new: str) -> str:
    """``new`` in the case pattern of ``template``: UPPER, lower or as-is (title-like words keep ``new``'s case)."""
    letters = template if template.isalpha() else "".join(filter(str.isalpha, template))
    if not letters:
        return new
    if len(letters) > 1 and all(map(str.isupper, letters)):
        return new.upper()
    if all(map(str.islower, letters)):
        return new.lower()
    if letters[0].isupper() and new[:1].islower():
        return new[:1].upper() + new[1:]
    return new


def apply_shape(template: str, new: str, lang: str | None = None) -> str:
    """:func:`apply_case`; accents are also removed when ``template`` lost accents its word normally has
    (``"Garcia"`` for ``"García"``: the writer types without accents, so the surrogate does too).

    The usual case is answered directly: a capitalized word (``"Carmen"``) becoming a word that does not start in
    lower case, with no accents to fold (``new`` is ASCII or ``template`` is not) is ``new`` itself; the others
    go through :func:`_apply_shape` (cached)."""
    if (template.isalpha() and template[:1].isupper() and template[1:].islower() and not new[:1].islower()
            and (new.isascii() or not template.isascii())):
        return new
    return _apply_shape(template, new, lang)


@memo(maxsize=1 << 15, kind="text")
def _apply_shape(template: str, new: str, lang: str | None = None) -> str:
    """:func:`apply_shape` of any ``template`` (a pure function: cached)."""
    out = apply_case(template, new)
    if lang is not None and template.isascii() and not out.isascii():
        from clinanon.transform.surrogate._data import drops_accents

        if drops_accents(template, lang):
            out = fold_accents(out)
    return out
