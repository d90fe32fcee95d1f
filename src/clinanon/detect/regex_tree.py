"""Syntax-tree analysis of Python regexes, on CPython's own regex internals (the one module that reads them).

What it answers, for the rule engine (:mod:`clinanon.detect.engine`) and the field recognizer
(:mod:`clinanon.detect.rules.fields`): the first characters any match of a regex can start with
(:func:`prefix_set`, :func:`seq_prefixes`: the guards, first-character and word-start scanners and cue words are
built from them), whether a regex may consume some character (:func:`may_consume`), how long its matches can be
(:func:`widths`), and which characters the regex engine matches case-insensitively to a given one
(:func:`char_variants`, :func:`case_variants`).

CPython internals it relies on (none is a public API):

* ``re._parser`` (``sre_parse`` before Python 3.11): ``parse(regex, flags)`` gives a ``SubPattern`` whose ``data``
  is a list of ``(opcode, argument)`` items, whose ``state.flags`` holds the global flags and whose
  ``getwidth()`` gives the shortest and longest match length;
* ``re._constants`` (``sre_constants``): the opcodes ``LITERAL``, ``NOT_LITERAL``, ``IN`` (with ``NEGATE``,
  ``RANGE``, ``CATEGORY`` and the ``CATEGORY_*`` values), ``SUBPATTERN`` (argument ``(group, add_flags,
  del_flags, sub)``), ``BRANCH`` (``(None, alternatives)``), ``MAX_REPEAT`` / ``MIN_REPEAT`` /
  ``POSSESSIVE_REPEAT`` (``(min, max, body)``), ``ATOMIC_GROUP``, ``AT``, ``ASSERT``, ``ASSERT_NOT``;
* ``_sre.unicode_tolower`` and ``re._casefix._EXTRA_CASES`` (``sre_compile._ignorecase_fixes`` before 3.11): the
  engine's lower case and the extra case-insensitive equivalences (LONG S for ``s``...).

If they change: a renamed module fails at import (loudly, never silently); an opcode this module does not know
counts as "anything may follow" (no guard, no fast scanner: slower, same spans) in the prefix analysis and as
"may consume" in :func:`may_consume`; an argument of another shape raises in the analysis, which its callers
catch as "unbounded" (again slower, same spans). A change of meaning that raises nothing could make a guard
wrong; the tests of the engine (tests/test_engine.py, tests/test_perf_equivalence.py) compare guarded scans
with the plain regexes and would show it. A candidate case variant is always checked with the regex engine
itself, so :func:`char_variants` never holds a character the engine does not match.
"""

from __future__ import annotations

import _sre
import re
from typing import Any

from clinanon.caches import memo

try:  # Python >= 3.11
    import re._constants as _sre_c
    import re._parser as _sre_parse
    from re._casefix import _EXTRA_CASES
except ImportError:  # pragma: no cover - older interpreters
    import sre_constants as _sre_c  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]
    from sre_compile import _ignorecase_fixes as _EXTRA_CASES  # type: ignore[attr-defined,no-redef]

__all__ = [
    "MAX_CLASS",
    "MAX_PREFIXES",
    "Atom",
    "Prefix",
    "Unknown",
    "case_variants",
    "char_variants",
    "ignores_case",
    "may_consume",
    "parse",
    "prefix_set",
    "seq_prefixes",
    "widths",
]

#: an atom is one character position of a prefix: ``("lit", char, ic)`` (one literal character) or
#: ``("set", class body, ic)`` / ``("neg", class body, ic)`` (a character class, e.g. ``\\s``; ``neg`` = negated),
#: with ``ic`` = matched case-insensitively
Atom = tuple[str, str, bool]
#: a prefix and whether it is open (the match goes on with unknown characters) or complete (the match ends)
Prefix = tuple[tuple[Atom, ...], bool]

#: at most this many prefixes are tracked (more: :class:`Unknown`)
MAX_PREFIXES = 256
#: a character class of at most this many characters is expanded into its literals
MAX_CLASS = 64
_ZERO_WIDTH = (_sre_c.AT, _sre_c.ASSERT, _sre_c.ASSERT_NOT)
_REPEATS = tuple(getattr(_sre_c, name) for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
                 if hasattr(_sre_c, name))
_IGNORECASE = int(re.IGNORECASE)
_CATEGORIES = {getattr(_sre_c, name): src for name, src in (
    ("CATEGORY_DIGIT", r"\d"), ("CATEGORY_NOT_DIGIT", r"\D"), ("CATEGORY_SPACE", r"\s"),
    ("CATEGORY_NOT_SPACE", r"\S"), ("CATEGORY_WORD", r"\w"), ("CATEGORY_NOT_WORD", r"\W"),
    ("CATEGORY_UNI_DIGIT", r"\d"), ("CATEGORY_UNI_NOT_DIGIT", r"\D"), ("CATEGORY_UNI_SPACE", r"\s"),
    ("CATEGORY_UNI_NOT_SPACE", r"\S"), ("CATEGORY_UNI_WORD", r"\w"), ("CATEGORY_UNI_NOT_WORD", r"\W"),
) if hasattr(_sre_c, name)}


class Unknown(Exception):
    """The analysis cannot bound the prefixes (too many, or an unsupported construct)."""


# --- case variants -------------------------------------------------------------------------------------------

@memo
def _lower_preimages() -> dict[int, tuple[int, ...]]:
    """For each code point ``y``: the other code points whose lower case (the regex engine's) is ``y``, e.g.
    KELVIN SIGN and ``K`` for ``k`` (built once, from all code points)."""
    lower = _sre.unicode_tolower
    out: dict[int, list[int]] = {}
    for x, y in zip(range(0x110000), map(lower, range(0x110000)), strict=True):
        if x != y:
            out.setdefault(y, []).append(x)
    return {y: tuple(xs) for y, xs in out.items()}


@memo
def char_variants(c: str) -> frozenset[str]:
    """Every character that ``(?i:[c])`` matches.

    The regex engine matches a character case-insensitively when its lower case is ``c``'s lower case or one of
    that one's extra cases (``re._casefix``, e.g. LONG S for ``s``): the candidates are those characters and
    their upper-case forms (:func:`_lower_preimages`), each checked with the engine itself.
    """
    lo = _sre.unicode_tolower(ord(c))
    targets = {ord(c), lo, *_EXTRA_CASES.get(lo, ())}
    candidates = set(targets)
    for y in targets:
        candidates.update(_lower_preimages().get(y, ()))
    rx = re.compile(f"(?i:[{re.escape(c)}])")
    return frozenset(ch for ch in map(chr, candidates) if rx.fullmatch(ch))


def case_variants(chars: str) -> frozenset[str]:
    """Every character that ``(?i:[chars])`` matches."""
    return frozenset().union(*map(char_variants, chars))


# --- the syntax tree -----------------------------------------------------------------------------------------

def parse(regex: str, flags: int = 0) -> Any:
    """The syntax tree of ``regex`` compiled with ``flags`` (``re._parser.parse``); raises :class:`re.error`."""
    return _sre_parse.parse(regex, flags)


def ignores_case(parsed: Any) -> bool:
    """Whether a parsed regex is case-insensitive as a whole (``re.IGNORECASE`` or a global ``(?i)``)."""
    return bool(parsed.state.flags & _IGNORECASE)


def widths(parsed: Any) -> tuple[int, int]:
    """The shortest and the longest match of a parsed regex (the parser's bound for an unbounded one)."""
    return parsed.getwidth()  # type: ignore[no-any-return]


def may_consume(parsed: object, chars: str) -> bool:
    """Whether a parsed regex may consume one of ``chars`` (ASCII punctuation, which no other character
    case-folds to): conservative, any construct it does not know counts as yes."""
    codes = [ord(c) for c in chars]
    known = (_sre_c.CATEGORY_DIGIT, _sre_c.CATEGORY_SPACE, _sre_c.CATEGORY_WORD, _sre_c.CATEGORY_UNI_DIGIT,
             _sre_c.CATEGORY_UNI_SPACE, _sre_c.CATEGORY_UNI_WORD)
    for op, av in getattr(parsed, "data", parsed):  # type: ignore[union-attr]
        if op is _sre_c.LITERAL:
            if av in codes:
                return True
        elif op is _sre_c.IN:
            for iop, iav in av:  # type: ignore[union-attr]
                if iop is _sre_c.LITERAL and iav in codes:
                    return True
                if iop is _sre_c.RANGE and any(iav[0] <= c <= iav[1] for c in codes):  # type: ignore[index]
                    return True
                if iop is _sre_c.NEGATE or (iop is _sre_c.CATEGORY and iav not in known) or iop not in (
                        _sre_c.LITERAL, _sre_c.RANGE, _sre_c.CATEGORY):
                    return True
        elif op is _sre_c.SUBPATTERN:
            if may_consume(av[3], chars):  # type: ignore[index]
                return True
        elif op is _sre_c.BRANCH:
            if any(may_consume(alt, chars) for alt in av[1]):  # type: ignore[index]
                return True
        elif op in (_sre_c.MAX_REPEAT, _sre_c.MIN_REPEAT):
            if may_consume(av[2], chars):  # type: ignore[index]
                return True
        elif op not in (_sre_c.AT, _sre_c.ASSERT, _sre_c.ASSERT_NOT):  # look-arounds consume nothing
            return True
    return False


# --- prefixes: the first characters every match starts with ----------------------------------------------

def _class_atoms(items: list[tuple[object, object]], ic: bool) -> set[Atom] | None:
    """The atoms of a parsed character class: its literal characters when there are few, else the class itself
    (``None`` for what cannot be written back, e.g. a locale category)."""
    chars: list[int] = []
    body: list[str] = []
    negated = False
    small = True
    for iop, iav in items:
        if iop is _sre_c.NEGATE:
            negated = True
        elif iop is _sre_c.LITERAL:
            chars.append(iav)  # type: ignore[arg-type]
            body.append(re.escape(chr(iav)))  # type: ignore[call-overload]
        elif iop is _sre_c.RANGE:
            lo, hi = iav  # type: ignore[misc]
            if hi - lo < MAX_CLASS:
                chars.extend(range(lo, hi + 1))
            else:
                small = False
            body.append(f"{re.escape(chr(lo))}-{re.escape(chr(hi))}")
        elif iop is _sre_c.CATEGORY and iav in _CATEGORIES:
            small = False
            body.append(_CATEGORIES[iav])
        else:
            return None
    if not negated and small and len(chars) <= MAX_CLASS:
        return {("lit", chr(c), ic) for c in chars}
    return {("neg" if negated else "set", "".join(body), ic)}


def _item_prefixes(op: object, av: object, k: int, ic: bool) -> set[Prefix]:
    """Prefixes (at most ``k`` atoms) of what one parsed item can match."""
    if op is _sre_c.LITERAL:
        return {((("lit", chr(av), ic),), False)}  # type: ignore[call-overload]
    if op in _ZERO_WIDTH:
        return {((), False)}
    if op is _sre_c.IN:
        atoms = _class_atoms(list(av), ic)  # type: ignore[call-overload]
        if atoms is None:
            return {((), True)}
        return {((a,), False) for a in atoms}
    if op is _sre_c.NOT_LITERAL:
        return {((("neg", re.escape(chr(av)), ic),), False)}  # type: ignore[call-overload]
    if op is _sre_c.SUBPATTERN:
        _group, add_flags, del_flags, sub = av  # type: ignore[misc]
        if add_flags & _IGNORECASE:
            ic = True
        if del_flags & _IGNORECASE:
            ic = False
        return seq_prefixes(sub, k, ic)
    if op is getattr(_sre_c, "ATOMIC_GROUP", None):
        return seq_prefixes(av, k, ic)
    if op is _sre_c.BRANCH:
        out: set[Prefix] = set()
        for alt in av[1]:  # type: ignore[index]
            out |= seq_prefixes(alt, k, ic)
            if len(out) > MAX_PREFIXES:
                raise Unknown
        return out
    if op in _REPEATS:
        lo, hi, body = av  # type: ignore[misc]
        if hi == 0:
            return {((), False)}
        once = seq_prefixes(body, k, ic)
        if hi != 1:  # after the first repetition, more may follow: the rest is unknown
            once = {(p, True) for p, _ in once}
        return once | {((), False)} if lo == 0 else once
    return {((), True)}  # ANY, GROUPREF, conditionals ...: unknown


def seq_prefixes(seq: object, k: int, ic: bool) -> set[Prefix]:
    """Prefixes (at most ``k`` atoms) of what a sequence of parsed items (a parser ``SubPattern``) can match."""
    state: set[Prefix] = {((), False)}
    for op, av in getattr(seq, "data", seq):  # type: ignore[union-attr]
        if all(is_open or len(p) >= k for p, is_open in state):
            break
        new: set[Prefix] = set()
        for p, is_open in state:
            if is_open or len(p) >= k:
                new.add((p, is_open or len(p) >= k))
                continue
            for q, q_open in _item_prefixes(op, av, k - len(p), ic):
                r = p + q
                new.add((r[:k], q_open or len(r) > k))
        if len(new) > MAX_PREFIXES:
            raise Unknown
        state = new
    return state


def prefix_set(regex: str, flags: int = 0, k: int = 2) -> set[tuple[Atom, ...]] | None:
    """The prefixes (at most ``k`` atoms each) that every match of ``re.compile(regex, flags)`` starts with;
    ``None`` when they cannot be bounded (an unknown construct, more than :data:`MAX_PREFIXES`) or when a match
    may start with anything or be empty."""
    try:
        parsed = _sre_parse.parse(regex, flags)
        prefixes = seq_prefixes(parsed.data, k, bool(parsed.state.flags & _IGNORECASE))
    except (Unknown, re.error, RecursionError, TypeError, ValueError, IndexError):
        return None
    if any(not p for p, _ in prefixes):  # a match may start with anything (or be empty)
        return None
    return {p for p, _ in prefixes}
