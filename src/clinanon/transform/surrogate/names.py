"""Person-name surrogates that keep gender, shape and part-wise consistency.

A name span is split into tokens and each word gets a role:

* ``title`` (``Dr.``, ``Dra.``, ``Sr.``, ``Mrs.``, ``dhr.``, ``Frau``...) and ``particle`` (``de``, ``del``,
  ``la``, ``y``, ``i``, ``van``, ``der``, ``von``...) are kept verbatim;
* ``initial`` — a single letter (``J.``): becomes the scope's keyed *target letter* for that initial; every given
  name is drawn among names starting with the target letter of its own initial, so ``"Juan García"`` and
  ``"J. García"`` become ``"Pedro Ruiz"`` and ``"P. Ruiz"`` in any document of the scope, with no shared state;
* ``given`` — the leading words that the gazetteer knows as first names; ``surname`` — the rest.

Every given name and surname is replaced **part by part**, each by a keyed function of (key, scope, role,
normalized part) — a given name also of the person's gender — so ``"Juan García López"``, ``"García"`` and
``"J. García"`` share their surrogate parts. The gender is that of the first given name in the gazetteer
(``F``/``M``/``N``; neutral stays neutral); surrogates come from the note's Faker locale. Shape is kept: the
number of parts, initials, titles, particles, hyphens, punctuation, UPPER/lower case, and missing accents
(``"Garcia"`` -> an unaccented surrogate).

A surrogate part never equals its original part, a word of another name or place, or a whole original span of the
same document (it is re-drawn with a counter), so no original can appear in the output through a name surrogate.
"""

from __future__ import annotations

import re
import string
from bisect import bisect_right
from dataclasses import dataclass

from clinanon.caches import memo
from clinanon.lang.fold import fold
from clinanon.lang.lexicon import trigger_words
from clinanon.transform.surrogate._data import (
    first_name_gender,
    given_names,
    given_names_by_letter,
    initial_letters,
    known_surnames,
    surnames,
)
from clinanon.transform.surrogate._text import _normalize_unicode, apply_shape, normalize
from clinanon.transform.surrogate.scope import GenContext

__all__ = ["NamePart", "ParsedName", "looks_like_name", "parse_name", "surrogate_name"]

TITLES = frozenset({
    "dr", "dra", "doctor", "doctora", "dr.a", "sr", "sra", "srta", "don", "dona", "dña", "dna", "d.ª", "prof",
    "profa", "profesor", "profesora", "mr", "mrs", "ms", "miss", "mx", "sir", "dame", "mister", "dhr", "mevr",
    "mw", "mej", "drs", "ir", "herr", "frau", "hr", "fr", "fru", "froken", "fröken", "prof.dr", "lic", "enf",
})
PARTICLES = frozenset({
    "de", "del", "la", "las", "los", "y", "i", "e", "van", "der", "den", "ter", "te", "ten", "von", "zu", "zum",
    "zur", "af", "av", "da", "di", "do", "dos", "das", "du", "le", "lo", "'t", "het",
    "bin", "ben", "al", "el",
})
_TOKEN = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d+|\s+|.", re.UNICODE)
_MAX_ATTEMPTS = 40


@dataclass(frozen=True, slots=True)
class NamePart:
    text: str
    role: str  # given | surname | initial | title | particle | lit


@dataclass(frozen=True, slots=True)
class ParsedName:
    parts: tuple[NamePart, ...]
    gender: str | None

    @property
    def givens(self) -> list[str]:
        return [p.text for p in self.parts if p.role == "given"]

    @property
    def surname_keys(self) -> frozenset[str]:
        return frozenset(normalize(p.text) for p in self.parts if p.role == "surname")


def _is_word(tok: str) -> bool:
    return tok[:1].isalpha()


def _is_first(word: str, lang: str) -> bool:
    return first_name_gender(word, lang) is not None


def _is_surname(word: str, lang: str) -> bool:
    return normalize(word) in known_surnames(lang)


@memo(maxsize=1024, kind="text")
def _part(text: str, role: str) -> NamePart:
    """``NamePart(text, role)``, shared (names repeat their spaces, titles and particles; parts are immutable)."""
    return NamePart(text, role)


@memo(maxsize=1 << 14, kind="text")
def parse_name(text: str, lang: str) -> ParsedName:
    """Split a name into roles (see the module docstring) and find its gender (a pure function: cached)."""
    toks = _TOKEN.findall(text)
    word_idx = [i for i, t in enumerate(toks) if _is_word(t)]
    roles: dict[int, str] = {}
    content: list[int] = []
    kin = trigger_words(lang, "kin")
    is_kin = [fold(toks[i]) in kin for i in word_idx]
    if True in is_kin and all(is_kin):  # a name that is only a kinship word ("Bruder" is also a surname): a name
        is_kin = [False] * len(word_idx)
    # lower-case words before the first capitalised one ("su hija Ana", "his wife Mary") are context, not name
    first_cap = next((n for n, i in enumerate(word_idx) if toks[i][0].isupper()), 0)
    n_words = len(word_idx)
    for n, i in enumerate(word_idx):
        w = toks[i]
        if is_kin[n] or (n < first_cap and w.islower()):
            continue  # kept as it is ("lit")
        key = normalize(w)
        later_words = n + 1 < n_words  # word_idx[n + 1:] is not empty
        if not content and key in TITLES and later_words:
            nxt = toks[i + 1] if i + 1 < len(toks) else ""
            if nxt == "." or len(w) > 2 or nxt.isspace():
                roles[i] = "title"
                continue
        if key in PARTICLES and later_words and (w.islower() if len(w) == 1 else (w.islower() or content
                                                                                  or n == 0)):
            roles[i] = "particle"
        elif len(w) == 1:
            roles[i] = "initial"
        else:
            content.append(i)
    # a comma after the first content word(s) means "Surname(s), Given name(s)"
    comma_at = None
    if content and "," in toks:
        comma_at = next((i for i, t in enumerate(toks) if t == "," and i > content[0]), None)
    if comma_at is not None:
        before = [i for i in content if i < comma_at]
        after = [i for i in content if i > comma_at]
        for i in before:
            roles[i] = "surname"
        given_run = True
        for i in after:
            if given_run and _is_first(toks[i], lang):
                roles[i] = "given"
            else:
                given_run = False
                roles[i] = "surname"
    else:
        k = len(content)
        given_run = True
        for pos, i in enumerate(content):
            w = toks[i]
            if given_run and _is_first(w, lang):
                last = pos == k - 1
                if pos == 0 or not last or not _is_surname(w, lang):
                    roles[i] = "given"
                    continue
            given_run = False
            roles[i] = "surname"
    gender = None
    for i in content:
        if roles.get(i) == "given":
            gender = first_name_gender(toks[i], lang)
            break
    get = roles.get
    parts = tuple([_part(t, get(i, "lit")) for i, t in enumerate(toks)])
    return ParsedName(parts, gender)


@memo(maxsize=1 << 14, kind="text")
def looks_like_name(text: str, lang: str, relative: bool = False) -> bool:
    """True when the span looks like a person's name: a capitalised word, or a lower-case known first name.

    ``relative``: the span was labelled a relative. Relation words annotated as relatives (``"padre"``,
    ``"Padres"``, ``"tía materna"``, ``"hija de 50 años"``) are not names, even when a name list knows them or they
    start a sentence: then kinship words (the ``kin`` lexicon of the language) are no evidence of a name.
    """
    if relative:
        kin = trigger_words(lang, "kin")
        words = [t for t in _TOKEN.findall(text) if _is_word(t) and fold(t) not in kin]
    else:
        words = [t for t in _TOKEN.findall(text) if _is_word(t)]
    if not words:
        return False
    if any(w[0].isupper() for w in words):
        return True
    return any(_is_first(w, lang) for w in words if len(w) > 2)


@memo(maxsize=256)
def _eligible_letters(lang: str, src: str) -> tuple[str, ...]:
    return tuple(c for c in initial_letters(lang) if c != src) or tuple(string.ascii_uppercase)


def _target_letter(ctx: GenContext, letter: str, key: str | None = None) -> str:
    """The initial every given name starting with ``letter`` maps to in this scope (keyed; never ``letter``).
    ``key``: ``normalize(letter)`` when the caller has it."""
    src = (normalize(letter) if key is None else key)[:1].upper()
    memo_key = ("initial-letter", src)
    target = ctx.memo.get(memo_key)
    if target is None:
        target = ctx.memo[memo_key] = ctx.rand.choice(_eligible_letters(ctx.lang, src), "initial-letter", src)
    return target  # type: ignore[no-any-return]


_2_53 = 1 << 53


def _draw(ctx: GenContext, role: str, original: str, gender: str | None) -> str:
    """The surrogate of one given name / surname (never the original, never another name word of the doc).

    A given name is drawn among the names of its gender that start with the scope's target letter for its own
    initial, so an initial (``"J."``) and the full name (``"Juan"``) get the same surrogate initial.
    """
    return apply_shape(original, _choice(ctx, "given" if role == "given" else "", original, gender), ctx.lang)


def _choice(ctx: GenContext, role: str, original: str, gender: str | None,
            avoid: frozenset[str] | None = None) -> str:
    """The list entry :func:`_draw` shapes like ``original`` (``role``: ``"given"`` or ``""`` for a surname);
    the same part in another name of the document gets the same choice (cached per document)."""
    # normalize(original), its ASCII case inlined (this runs for every part of every name)
    key = " ".join(original.lower().split()) if original.isascii() else _normalize_unicode(original)
    g = (gender or "N") if role else ""
    memo = ctx.memo
    memo_key = ("draw", g, key)
    choice = memo.get(memo_key)
    if choice is None:
        if avoid is None:
            avoid = ctx.avoid_words()
        lang = ctx.lang
        if g:
            letter = memo.get(("initial-letter", key[:1].upper()))  # _target_letter's memo, looked up here first
            if letter is None:
                letter = _target_letter(ctx, original, key)
            pool = given_names_by_letter(lang, g).get(letter)
            if pool is None or not pool.items:
                pool = given_names(lang, g)
            stream = ctx.rand.stream("given", g, key)
        else:
            pool = surnames(lang)
            stream = ctx.rand.stream("surname", key)
        below = stream.below
        items, cumulative, uniform = pool.items, pool.cumulative, pool.uniform  # type: ignore[attr-defined]
        total, last = cumulative[-1] if cumulative else 0.0, len(items) - 1
        choice = original
        for _ in range(_MAX_ATTEMPTS):
            x = below(_2_53) / 9007199254740992.0 * total  # pool.pick(stream.unit()), inlined
            choice = items[min(int(x) if uniform else bisect_right(cumulative, x), last)]
            ck = " ".join(choice.lower().split()) if choice.isascii() else _normalize_unicode(choice)
            if ck != key and ck not in avoid:
                break
        memo[memo_key] = choice
    return choice  # type: ignore[no-any-return]


def _initial(ctx: GenContext, letter: str) -> str:
    """The surrogate of an initial: the scope's target letter for it, in the original case."""
    new = _target_letter(ctx, letter)
    return new.lower() if letter.islower() else new


def surrogate_name(text: str, ctx: GenContext) -> str:
    """The surrogate of a person's name (see the module docstring)."""
    lang = ctx.lang
    parsed = parse_name(text, lang)
    gender = parsed.gender
    avoid: frozenset[str] | None = None
    out = []
    for p in parsed.parts:
        role = p.role
        if role == "given" or role == "surname":
            if avoid is None:
                avoid = ctx.avoid_words()
            part = p.text
            out.append(apply_shape(part, _choice(ctx, "given" if role == "given" else "", part, gender, avoid), lang))
        elif role == "initial":
            out.append(_initial(ctx, p.text))
        else:
            out.append(p.text)
    return "".join(out)
