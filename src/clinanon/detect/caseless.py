"""Caseless (ALL-CAPS) text for the rules detector: region detection, re-casing and a common-word guard.

The rules read capitals as evidence ("Izquierdo" after a noun is a surname, "Clínica Rotger" a hospital) and
their cue phrases are written in the case of ordinary text ("my name is", "lives at"). In text typed in capitals
(nursing notes, old systems) every word is capitalised, so common words turn into names and places
(``RIÑÓN IZQUIERDO``, ``CLÍNICA OBSTRUCTIVA``, ``ROCK AND ROLL``) and lower-case cues stop matching. This module:

* :func:`caseless_regions` (:mod:`clinanon.lang.casing`) -- finds the caseless parts of a text: runs of lines in
  which at least :data:`UPPER_SHARE` of the cased letters are upper case. A run counts when it holds at least
  :data:`MIN_LETTERS` cased letters, or when it is the whole text (then :data:`MIN_LETTERS_WHOLE`): an
  upper-case heading inside mixed-case text is not a caseless region. Mixed-case text has none, and the check
  is two C-speed regex counts per line (after a whole-text count of capitals that rejects most texts at once).
* :func:`recase` -- a copy of the text, the same length, in which every word of a caseless region is written in
  its usual case: common words of the language (:func:`clinanon.lang.lexicon.common_lexicon`: the lexicon below,
  spaCy stop words and :func:`clinanon.lang.lexicon.common_words`) in lower case (German nouns capitalised), every
  other word capitalised (``GARCÍA`` -> ``García``), one-letter words and words with digits as they are. A common
  word that is also a gazetteer name or place (``ROSA``, ``LEÓN``, ``ROCK``) is capitalised only with context: a
  title or honorific before it (``DR.``, ``SRA.``, ``MR.``), a name-field label (``NOMBRE:``, ``PATIENT:``), or a
  neighbouring name word that is not common (``ROSA GARCÍA``). The rules run on this copy as on mixed-case text,
  so lower-case cues match (``MY NAME IS`` -> ``my name is``).
* :func:`guard` -- the rules also run on the original text (proper names made of common words,
  ``HOSPITAL VIRGEN DE LA ARRIXACA``, keep their capitals there); inside caseless regions their name, place
  and organisation candidates are kept only when a word of the candidate is not a common word, or when a word
  is a gazetteer name or place and the candidate has context (a cue pattern found it, or a title, label or
  name word is next to it). Candidates of other kinds (dates, ages, contacts, identifiers, postcodes) and
  street addresses with a number pass unchanged.
* :func:`merge` -- the spans of both runs, guarded: outside caseless regions the original run's spans as they
  are.

The common-word lexicon is built at build time from spacy-lookups-data (``scripts/build_lexicons.py``) and read
lazily per language from ``clinanon/data/lexicons/common/<lang>.txt.xz`` by :mod:`clinanon.lang.lexicon`.
Nothing here logs or raises with document text.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Sequence
from importlib import resources

from clinanon.caches import memo
from clinanon.detect.gazetteer import en_name_alone_ok
from clinanon.document import Span
from clinanon.lang.casing import MIN_LETTERS, MIN_LETTERS_WHOLE, UPPER_SHARE, caseless_regions
from clinanon.lang.fold import fold as _fold
from clinanon.lang.lexicon import WORD_RX as _WORD_RX
from clinanon.lang.lexicon import common_lexicon, name_words
from clinanon.text import stop_words

__all__ = [
    "MIN_LETTERS",
    "MIN_LETTERS_WHOLE",
    "UPPER_SHARE",
    "caseless_regions",
    "guard",
    "merge",
    "recase",
    "titlecase",
]

def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# --- regions --------------------------------------------------------------------------------------------

def _inside(regions: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    """Whether ``[start, end)`` overlaps a region."""
    return any(a < end and start < b for a, b in regions)


# --- the lexicon ----------------------------------------------------------------------------------------

#: titles and honorifics before a name (folded, no dot), all languages
_TITLES = _set(
    "dr dra drs dres doctor doctora dokter doktor prof profa profesor profesora professor sr sra srta don dona dna "
    "mr mrs ms miss mx mister madam sir lady dhr mevr mw mevrouw meneer mej herr herrn frau hr fr fru froken frk "
    "lic med"
)
#: titles of other languages that are common abbreviations of English clinical notes (heart rate, French
#: gauge, DNA, medication, senior)
_NOT_TITLES_EN = _set("hr fr fru frk dna don dona dhr mw med lic sr sra dra")
#: field labels whose value is a person's name (folded)
_NAME_LABELS = _set(
    "nombre nombres apellido apellidos paciente name names patient surname firstname lastname naam achternaam "
    "voornaam patient patiente namn efternamn fornamn patienten vorname nachname patientin medico medica doctor "
    "doctora enfermera enfermero arts lakare arzt arztin physician nurse"
)


# --- re-casing ------------------------------------------------------------------------------------------

def _cased(word: str, title: bool) -> str:
    """``word`` in lower case, or capitalised when ``title``, character by character (same length)."""
    first = word[0].upper() if title else word[0].lower()
    rest = word[1:].lower()
    if len(first) != 1 or len(rest) != len(word) - 1:  # a character whose case form has another length
        chars = [c.lower() if len(c.lower()) == 1 else c for c in word]
        if title and len(word[0].upper()) == 1:
            chars[0] = word[0].upper()
        return "".join(chars)
    return first + rest


def _context_before(text: str, start: int, lang: str) -> bool:
    """A title / honorific or a name-field label right before ``start`` on the same line."""
    left = text[max(0, start - 40):start]
    left = left.rsplit("\n", 1)[-1]
    m = re.search(r"([^\W\d_]+)\.?[ \t]{0,3}(:?)[ \t]{0,3}\Z", left)
    if m is None:
        return False
    w = _fold(m.group(1))
    if lang == "en" and w in _NOT_TITLES_EN:
        return False  # "HR CLEAR" (heart rate), "FR" (French gauge), "DNA", "MED": not titles in English notes
    return (w in _NAME_LABELS and m.group(2) == ":") or (w in _TITLES and not m.group(2))


def _word_plan(text: str, lang: str, regions: Sequence[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """The words of the regions with their kind: ``"c"`` common (lower case), ``"t"`` common, usually
    capitalised, ``"a"`` common and a gazetteer name or place, ``"n"`` a gazetteer name that is not common,
    ``"u"`` another word, ``"k"`` keep as is (one letter)."""
    lex = common_lexicon(lang)
    names, every = name_words(lang)
    out: list[tuple[int, int, str]] = []
    for a, b in regions:
        for m in _WORD_RX.finditer(text, a, b):
            w = m.group()
            if len(w) < 2:
                out.append((m.start(), m.end(), "k"))
                continue
            f = _fold(w)
            cap = lex.get(f)
            if cap is None:
                out.append((m.start(), m.end(), "n" if f in names else "u"))
            elif f in every:
                out.append((m.start(), m.end(), "a"))
            else:
                out.append((m.start(), m.end(), "t" if cap else "c"))
    return out


def _adjacent(text: str, e: int, s: int) -> bool:
    """Two words separated by one or two spaces (or a hyphen) only."""
    gap = text[e:s]
    return 0 < len(gap) <= 2 and (gap.strip(" \t") == "" or gap == "-")


def _with_context(text: str, lang: str, plan: list[tuple[int, int, str]]) -> list[bool]:
    """For each planned word: whether it is a word that needs context (an ambiguous word, ``"a"``, or a name of
    three letters or fewer, ``ANA``) and has it (see :func:`recase`)."""
    n = len(plan)
    needs = [k == "a" or (k == "n" and e - s <= 3) for s, e, k in plan]
    named = [k == "n" and not x for (_, _, k), x in zip(plan, needs, strict=True)]
    ctx = [False] * n
    for i, (s, _e, _k) in enumerate(plan):
        if needs[i] and _context_before(text, s, lang):
            ctx[i] = named[i] = True
    changed = True
    rounds = 0
    while changed and rounds < 4:  # "ROSA PAZ GARCÍA": the name spreads to ambiguous neighbours
        changed = False
        rounds += 1
        for i, (s, e, _k) in enumerate(plan):
            if not needs[i] or ctx[i]:
                continue
            left = i > 0 and named[i - 1] and _adjacent(text, plan[i - 1][1], s)
            right = i + 1 < n and named[i + 1] and _adjacent(text, e, plan[i + 1][0])
            if left or right:
                ctx[i] = named[i] = changed = True
    return ctx


def recase(text: str, lang: str, regions: Sequence[tuple[int, int]] | None = None) -> str:
    """``text`` with the words of its caseless regions in their usual case (see the module docstring).

    Guarantees: the result has the same length as ``text``, differs from it only inside ``regions`` (default:
    :func:`caseless_regions`) and only in the case of letters; ``text`` itself when there is no region.
    """
    if regions is None:
        regions = caseless_regions(text)
    if not regions:
        return text
    plan = _word_plan(text, lang, regions)
    ctx = _with_context(text, lang, plan)
    parts: list[str] = []
    pos = 0
    for (s, e, k), c in zip(plan, ctx, strict=True):
        w = text[s:e]
        if k == "k":
            if s > 0 and e < len(text) and text[s - 1].isdigit() and text[e].isdigit():
                new = w.lower() if len(w.lower()) == 1 else w  # "3560X4587": an extension mark, "5X3": a size
            else:
                continue
        elif k in ("n", "u") and e - s <= 3 and not c:
            continue  # "VCI", "CEA": an acronym more often than a name
        else:
            title = k in ("n", "u", "t") or (k == "a" and c)
            new = _cased(w, title)
        if new != w:
            parts.append(text[pos:s])
            parts.append(new)
            pos = e
    parts.append(text[pos:])
    out = "".join(parts)
    return out if len(out) == len(text) else text


def titlecase(text: str, lang: str, regions: Sequence[tuple[int, int]] | None = None) -> str:
    """``text`` with the words of its caseless regions capitalised, except the language's stop words (lower
    case) and one-letter words (as they are): the shape of names and titles in mixed-case text
    (``HOSPITAL VIRGEN DE LA ARRIXACA`` -> ``Hospital Virgen de la Arrixaca``, ``2450 CROWN ST`` ->
    ``2450 Crown St``). The same length as ``text``; ``text`` itself when there is no region."""
    if regions is None:
        regions = caseless_regions(text)
    if not regions:
        return text
    stop = _stop_words(lang)
    lex = common_lexicon(lang)
    parts: list[str] = []
    pos = 0
    for a, b in regions:
        for m in _WORD_RX.finditer(text, a, b):
            w = m.group()
            if len(w) < 2 or (len(w) <= 3 and _fold(w) not in lex):
                continue  # one letter, or an acronym ("VCI", "CEA")
            new = _cased(w, _fold(w) not in stop)
            if new != w:
                parts.append(text[pos:m.start()])
                parts.append(new)
                pos = m.end()
    parts.append(text[pos:])
    out = "".join(parts)
    return out if len(out) == len(text) else text


@memo
def _stop_words(lang: str) -> frozenset[str]:
    """Folded spaCy stop words of ``lang`` (function words: articles, prepositions, pronouns ...)."""
    return frozenset(_fold(w) for w in stop_words(lang))


# --- the guard ------------------------------------------------------------------------------------------

#: labels whose candidates the guard checks (names, places, organisations); postcodes are numbers
_GUARDED = ("NAME", "LOCATION", "PROFESSION", "OTHER")
_UNGUARDED_LABELS = frozenset({"LOCATION.ZIP"})
#: sources whose evidence includes a cue (a title, an honorific, a field label, "my name is"): their
#: candidates have context
_CUE_SOURCE = re.compile(r"(?:^field|:honorific|:name_is|:closing|:title|:cue|:speaker)")
_DIGIT = re.compile(r"\d")


def _guarded(span: Span) -> bool:
    return span.label not in _UNGUARDED_LABELS and span.label.startswith(_GUARDED)


@memo
def _heads(lang: str) -> frozenset[str]:
    """Folded head words of institution, hospital, care-centre, company and department names of ``lang`` (the
    trigger lexicon ``clinanon/data/lexicons/<lang>.tsv``, categories org / hosp / care / comp / dept)."""
    out: set[str] = set()
    path = resources.files("clinanon") / "data" / "lexicons" / f"{lang}.tsv"
    with contextlib.suppress(FileNotFoundError):
        for line in path.read_text(encoding="utf-8").splitlines():
            cols = line.split("\t")
            if len(cols) >= 2 and cols[0] in ("org", "hosp", "care", "comp", "dept"):
                out.add(_fold(cols[1].strip()))
    return frozenset(out | _STREET_TYPES)


#: street-type words (folded), which head or end a street's name as the head words above do an institution's
_STREET_TYPES = _set(
    "street st road rd avenue ave lane ln drive dr place pl court ct terrace boulevard blvd way square sq highway "
    "calle c avenida av avda paseo plaza pza carretera ctra camino ronda rua via carrer straat laan weg plein "
    "gracht kade singel gatan gata vagen vag torget strasse str platz allee gasse ring damm ufer"
)


def _keep(text: str, lang: str, span: Span, lex: dict[str, bool], original: bool) -> bool:
    """Whether a guarded candidate inside a caseless region has evidence beyond capitals (module docstring)."""
    words = [_fold(w) for w in _WORD_RX.findall(text, span.start, span.end) if len(w) > 1]
    if not words or span.source.endswith((":acronym", ":university")):
        return True  # an acronym after a movement cue ("TRANSFERRED TO GH"), "UNIVERSITY OF ...": context
    if (original and span.label == "LOCATION.STREET" and _DIGIT.search(text, span.start, span.end)
            and not span.source.endswith("num_name_num")):
        return True  # "CALLE MAYOR 5": a street type and a number, not capitals
    names, every = name_words(lang)
    stop = _stop_words(lang)
    heads = _heads(lang)
    if lang == "en" and span.source.endswith(":signature") and words[0] in every:
        return True  # a signature line, a listed first name first ("ROSEMARY STREET, RN"): a word surname too
    unknown = common = known = 0
    for w in words:
        if w not in lex:
            unknown += 1
        elif w in stop or w in heads or (lang == "en" and w in _EN_NAME_SUFFIXES):
            continue
        elif w in every:
            known += 1
        else:
            common += 1
    if unknown:
        return unknown > common  # "JUAN IZQUIERDO", "MICROBILT CORPORATION"; not "DILATACIÓN URETEROPIELOCALICIAL"
    if common or not known:
        return False  # common words only ("RIÑÓN IZQUIERDO", "EL")
    # names or places that are also common words ("ROSA", "LEÓN"): only with context
    if _CUE_SOURCE.search(span.source) or _context_before(text, span.start, lang):
        return True
    left = re.search(r"([^\W\d_]{2,})[ \t]{1,2}\Z", text[max(0, span.start - 40):span.start])
    right = re.match(r"[ \t]{1,2}([^\W\d_]{2,})", text[span.end:span.end + 40])
    for m in (left, right):
        if m is not None:
            f = _fold(m.group(1))
            if f in names and f not in lex:
                return True  # a neighbouring name word that is not common ("ROSA GARCÍA" found as "ROSA")
    return False


def guard(text: str, lang: str, regions: Sequence[tuple[int, int]], spans: Iterable[Span], *,
          original: bool = True) -> list[Span]:
    """``spans`` without the name / place / organisation candidates inside ``regions`` that rest on capitals
    alone (see the module docstring). Spans outside the regions are kept as they are, in their order.
    ``original``: the spans were found on ``text`` itself (not on a capitalised copy), so a street type and a
    house number are evidence."""
    if not regions:
        return list(spans)
    lex = common_lexicon(lang)
    out = []
    for s in spans:
        if _guarded(s) and _inside(regions, s.start, s.end):
            # an English signature line's name ends at its credential ("ROSEMARY STREET, RN"): not trimmed
            trimmed = (_name_tail(text, lang, s, lex) if s.label.startswith("NAME")
                       and not (lang == "en" and s.source.endswith(":signature")) else s)
            if trimmed is None or not _keep(text, lang, trimmed, lex, original):
                continue
            s = trimmed
        out.append(s)
    return out


_LAST_WORD_RX = re.compile(r"[ \t]+([^\W\d_]+)\Z")
#: English generational suffixes, which end a name in capitals ("ROBERT JR", "JOHN LANE SR")
_EN_NAME_SUFFIXES = frozenset(("jr", "sr", "ii", "iii", "iv"))


def _name_tail(text: str, lang: str, span: Span, lex: dict[str, bool]) -> Span | None:
    """``span`` (a name in capitals) without the common words at its end, which a pattern that reads capitals as
    name words took along: "DR SULLIVAN MADE AWARE", "DR. GERTRUDE INTO SEE" (a stop word or a common word that
    no name list holds ends no name)."""
    _, every = name_words(lang)
    stop = _stop_words(lang)
    end = span.end
    while True:
        m = _LAST_WORD_RX.search(text, span.start, end)
        if m is None:
            break
        w = _fold(m.group(1))
        if not (w in stop or (w in lex and w not in every)) or (lang == "en" and w in _EN_NAME_SUFFIXES):
            break  # "ROBERT JR", "LANE SR": a generational suffix is part of the name, not a common word
        end = m.start()
    if end == span.end:
        return span
    if not any(len(w) > 1 for w in _WORD_RX.findall(text, span.start, end)):
        return None  # "S. REMAINS INTUBATED": an initial is all that is left
    return Span(span.start, end, span.label, span.source, span.score)


def _en_recased_ok(text: str, span: Span) -> bool:
    """English: a run of capitalised words around a listed name (``name_neighbour``) in the re-cased copy rests on
    capitals that :func:`recase` gave it, so a listed name word that is no common word must be among its words
    ("RXED W PROCAN", "ORAL AMNIODARONE": unknown words and a name that is also a word are no name); a listed name
    alone needs what it needs in capitals (:func:`clinanon.detect.gazetteer.en_name_alone_ok`)."""
    if span.source.startswith(("gazetteer:first_name", "gazetteer:surname")):
        # a listed name alone in the re-cased copy: its capital was given by recase ("MAE'S" -> "Mae's")
        return " " in text[span.start:span.end] or en_name_alone_ok(text, span.start, span.end)
    if not span.source.startswith("name_neighbour:") or span.source.endswith((":cue", ":caseless")):
        return True
    names, _ = name_words("en")
    lex = common_lexicon("en")
    return any(w in names and w not in lex for w in map(_fold, _WORD_RX.findall(text, span.start, span.end)))


def merge(text: str, lang: str, regions: Sequence[tuple[int, int]], original: Iterable[Span],
          recased: Iterable[Span], guarded: Iterable[Iterable[Span]] = ()) -> list[Span]:
    """The candidates of a text with caseless ``regions``: those of the run on the original text, guarded, plus
    those of the run on the re-cased text (:func:`recase`) and, guarded, those of further runs (``guarded``,
    e.g. on :func:`titlecase`) that overlap a region. Duplicates once, first seen first."""
    out: list[Span] = []
    seen: set[tuple[int, int, str, str, float]] = set()

    def add(spans: Iterable[Span], inside_only: bool) -> None:
        for s in spans:
            if inside_only and not _inside(regions, s.start, s.end):
                continue
            key = (s.start, s.end, s.label, s.source, s.score)
            if key not in seen:
                seen.add(key)
                out.append(s)

    add(guard(text, lang, regions, original), False)
    add(recased if lang != "en" else [s for s in recased if _en_recased_ok(text, s)], True)
    for run in guarded:
        kept = guard(text, lang, regions, run, original=False)
        add(kept if lang != "en" else [s for s in kept if _en_recased_ok(text, s)], True)
    return out
