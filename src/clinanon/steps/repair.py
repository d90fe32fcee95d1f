"""Repairs of a trained model's spans that no clinician would accept, whatever corpus the model learned from.

A CRF or spaCy model labels what its training notes taught it; where those notes are silent it can make errors
that are wrong anywhere. :func:`repair_spans` fixes two such kinds, on character offsets of the original text
(nothing else changes):

* **a kinship word that names no person.** ``"familia"`` in ``"médico de familia"`` (the family physician),
  ``"familiares"`` in ``"antecedentes familiares"`` (family history), ``"family"`` in ``"family doctor"``: a span of
  category ``NAME.RELATIVE`` that lies inside such a phrase is dropped (Spanish and English; Dutch, German and
  Swedish write these as one word: "huisarts", "Familienanamnese", "familjeläkare");
* **a relative that is neither a kinship word nor a name.** A ``NAME.RELATIVE`` span with no word of the kinship
  lexicon (:func:`clinanon.lang.lexicon.trigger_words` ``"kin"``), no capitalised word and no listed first name or
  surname and no word outside the language's lexicon (``"años"`` of ``"padre de 30 años"``; not ``"jonathan"``
  of ``"son jonathan"``) is dropped;
* **two relatives in one span.** A ``NAME.RELATIVE`` span of two kinship phrases joined by a conjunction
  (``"madre como su abuela"``, ``"mother and her sister"``) becomes one span per phrase, without the leading
  function words (``"su"``, ``"her"``);
* **a name or place cut across a parenthesis.** A ``NAME`` or ``LOCATION`` span holding an unmatched ``(`` or ``)``
  (``"padres jóvenes (madre de 28 años"``, ``"CHUAC) Av. As Xubias, 84"``) keeps its longer side of it;
* **a name cut at an initial.** A ``NAME``, ``LOCATION.HOSPITAL`` or ``LOCATION.ORGANIZATION`` span of two or more
  words whose last word is a single capital letter, followed on the same line by a full stop and a capitalised
  word that can be a name (``"Hospital Universitario Dr. Carlos J"`` before ``". Finlay"``, ``"Pedro M"``
  before ``". Garamendi"``), goes on over the initial's stop and that word: a middle initial ends no name. A
  common word after it (``"Antoniadis P. Departamento"``) leaves the span as it is: a final initial of a
  surname. (Street numbers such as ``"3º A"`` are not in these categories.)
* **a hospital labelled as another organisation.** A ``LOCATION.ORGANIZATION`` span with a word that names a
  hospital (``"Fundación Hospital de Calahorra"``; "Krankenhaus", "ziekenhuis", "sjukhus") becomes a
  ``LOCATION.HOSPITAL`` span, when the caller gives ``label_of`` (category -> label of the spans' scheme). Only
  the word "hospital" and its translations count: "Clínica", "Centro" or "Instituto" name other things too;
* **an institution's acronym.** An upper-case acronym in parentheses right after a ``LOCATION.HOSPITAL`` or
  ``LOCATION.ORGANIZATION`` span (``"Complejo Hospitalario Universitario de Vigo (CHUVI)"``) becomes a span of
  the same label when it abbreviates the name (see :func:`_acronym_after`) and no other span covers it;
* **a place and its postcode in one span.** A city, region, postcode or other place span made of words and a
  postcode (``"San José Insurgentes 03900"``, ``"33690 Lugo"``) becomes two spans, the postcode labelled
  ``label_of("LOCATION.ZIP")`` (else the span's label); a postcode span goes on over a country prefix right
  before it (``"E-"`` of ``"E-23400"``, ``"D-"``, ``"NL-"``); a place that runs into a postcode label
  (``"Delegación Benito Juárez Código Postal"``) ends before it;
* **one place in two spans.** Two such place spans of the same label joined by ``de`` / ``del`` / ``de la`` /
  ``de los`` on one line (``"Lugo"`` + ``"Llanera"`` of ``"Lugo de Llanera"``) become one: a place name "X de
  Y" is written as one ("Alcalá de Henares", "San Sebastián de los Reyes");
* **an institution name that runs into the address after it.** A ``LOCATION.HOSPITAL`` or
  ``LOCATION.ORGANIZATION`` span that goes on past a street-type word (``"Hospital Virgen de la Arrixaca Ctra"``,
  before ``". Madrid - Cartagena s/n"``), a floor (``"Hospital Morales Meseguer 2ª planta"``) or a postcode label
  ends before it.

The ensemble applies it to every member but the rules (whose recognizers check this themselves), and once more
after name propagation (which copies a string to its other mentions, "familia" included).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from clinanon.analysis import Analysis
from clinanon.caches import memo
from clinanon.document import Span
from clinanon.lang.fold import fold
from clinanon.lang.lexicon import STRONG_STREET_TYPES, common_lexicon, is_common, is_name_word, trigger_words
from clinanon.steps.scheme import SchemeLabels
from clinanon.taxonomy import LabelScheme, category_matches
from clinanon.text import stop_words

__all__ = ["Repair", "repair_spans"]

#: phrases in which a kinship word names no person; group 1 is the kinship word
_NOT_A_RELATIVE: dict[str, tuple[str, ...]] = {
    "es": (
        r"\bm[ée]dic[oa]s?\s+(?:especialistas?\s+)?de\s+(familia)\b",
        r"\bmedicina\s+(familiar)\b",
        r"\bmedicina\s+de\s+(familia)\b",
        r"\bplanificaci[óo]n\s+(familiar)\b",
        r"\bantecedentes(?:\s+(?:personales|m[ée]dicos|psiqui[áa]tricos|patol[óo]gicos|oncol[óo]gicos|y|e))*"
        r"\s+(familiares)\b",
        r"\bhistoria\s+(familiar)\b",
    ),
    "en": (
        r"\b(family)\s+(?:doctor|physician|medicine|practice|practitioner|planning|history|practices)\b",
        r"\b(familial)\b",
    ),
}

#: words (folded) that make an organisation's name a hospital's, whole words; German compounds by their end
_HOSPITAL_WORDS: dict[str, frozenset[str]] = {
    "es": frozenset({"hospital", "hospitales", "hospitalario", "hospitalaria"}),
    "en": frozenset({"hospital", "hospitals"}),
    "de": frozenset({"krankenhaus", "klinikum", "spital", "hospital"}),
    "nl": frozenset({"ziekenhuis", "hospitaal"}),
    "sv": frozenset({"sjukhus", "sjukhuset", "lasarett", "lasarettet"}),
}


def _names_hospital(words: Iterable[str], lang: str) -> bool:
    heads = _HOSPITAL_WORDS.get(lang, _HOSPITAL_WORDS["en"])
    for w in words:
        f = fold(w)
        if f in heads or (lang == "de" and f.endswith(("krankenhaus", "klinikum"))):
            return True
    return False


#: a floor ("2ª planta", "4ª Planta", "planta 3") or a postcode label ("Código Postal", "C.P."), after a name
_POSTAL = r"C[óo]digo\s+[Pp]ostal\b|C\.\s?P\."
_FLOOR = rf"\d{{1,2}}\s?[ªº°]\s?(?i:planta|piso)\b|(?i:planta|piso)\s+\d{{1,2}}\b|{_POSTAL}"


@memo
def _relative_rx(lang: str) -> re.Pattern[str] | None:
    parts = _NOT_A_RELATIVE.get(lang)
    return re.compile("|".join(f"(?:{p})" for p in parts), re.IGNORECASE) if parts else None


@memo
def _tail_rx() -> re.Pattern[str]:
    types = "|".join(re.escape(t) for t in sorted(set(STRONG_STREET_TYPES), key=len, reverse=True))
    # a street type as a word of its own (not "Av" inside "Avila"), or a floor
    return re.compile(rf"(?<=\s)(?:(?:{types})(?![^\W\d_])|{_FLOOR})")


def _not_relative_regions(text: str, lang: str) -> list[tuple[int, int]]:
    rx = _relative_rx(lang)
    if rx is None:
        return []
    out = []
    for m in rx.finditer(text):
        g = next(i for i in range(1, (rx.groups or 0) + 1) if m.start(i) >= 0)
        out.append(m.span(g))
    return out


def _has_kin_or_capital(text: str, lang: str) -> bool:
    """A kinship word, a capitalised word, or, in any case (a note typed in lower case: "son jonathan", "wife
    rose", "son okonkwo"), a listed first name or surname or a word that no lexicon of the language holds."""
    kin = trigger_words(lang, "kin")
    lexicon = common_lexicon(lang)
    return any(w[:1].isupper() or fold(w) in kin or is_name_word(w, lang)
               or (len(w) >= 3 and w.isalpha() and fold(w) not in lexicon) for w in _WORDS.findall(text))


def _paren_cut(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The longer side of the first unmatched parenthesis of ``text[start:end]`` (stripped of spaces and
    punctuation), ``None`` when the span's parentheses match or nothing with a letter or digit is left."""
    inner = text[start:end]
    depth, cut = 0, -1
    for k, c in enumerate(inner):
        if c == "(":
            depth += 1
            if depth == 1:
                cut = k
        elif c == ")":
            if depth == 0:
                cut = k
                break
            depth -= 1
            cut = -1 if depth == 0 else cut
    if cut < 0 and depth == 0:
        return None
    left, right = (start, start + cut), (start + cut + 1, end)
    best = max((left, right), key=lambda ab: sum(map(str.isalnum, text[ab[0]:ab[1]])))
    a, b = best
    while a < b and not text[a].isalnum():
        a += 1
    while b > a and not (text[b - 1].isalnum() or text[b - 1] == "."):
        b -= 1
    return (a, b) if a < b else None


#: a span's last word when it is a single capital letter after another word ("Carlos J")
_LAST_INITIAL = re.compile(r"(?<=\S) [^\W\d_]$")
#: what follows a middle initial: its stop and a word ("". Finlay"")
_AFTER_INITIAL = re.compile(r"\. ?([^\W\d_]+)")


def _past_initial(text: str, start: int, end: int, lang: str) -> int:
    """``end``, moved over every ``". Word"`` that follows a middle initial ending ``text[start:end]``, when the
    word can be a name: a gazetteer name, an initial (``"J. M. Finlay"``) or no common word of ``lang``. A
    common word after the stop (``"Antoniadis P. Departamento de Cirugía"``) means the initial ended the name."""
    while _LAST_INITIAL.search(text, start, end) and text[end - 1].isupper():
        m = _AFTER_INITIAL.match(text, end)
        if m is None or not m.group(1)[0].isupper():
            break
        word = m.group(1)
        if len(word) > 1 and is_common(word, lang) and not is_name_word(word, lang):
            break
        end = m.end()
    return end


_WORDS = re.compile(r"[^\W\d_]+")
_PIECES = re.compile(r"\S+")
#: conjunctions that join two relatives ("madre y padre", "madre como su abuela")
_AND: dict[str, frozenset[str]] = {
    "es": frozenset({"y", "e", "o", "u", "como", "ni"}), "en": frozenset({"and", "or"}),
    "de": frozenset({"und", "oder"}), "nl": frozenset({"en", "of"}), "sv": frozenset({"och", "eller"}),
}


def _split_relatives(text: str, s: Span, lang: str) -> list[Span]:
    """``s`` cut at its conjunctions when every part is a relative (see the module docstring); else ``[s]``."""
    joins = _AND.get(lang, frozenset())
    parts: list[list[tuple[int, int]]] = [[]]
    for m in _PIECES.finditer(text, s.start, s.end):
        if m.group().casefold() in joins:
            parts.append([])
        else:
            parts[-1].append(m.span())
    if len(parts) < 2:
        return [s]
    stops = stop_words(lang)
    out = []
    for words in parts:
        while words and text[words[0][0]:words[0][1]].casefold() in stops:
            words = words[1:]
        if not words:
            return [s]
        a, b = words[0][0], words[-1][1]
        while b > a and not text[b - 1].isalnum():
            b -= 1
        if b <= a or not _has_kin_or_capital(text[a:b], lang):
            return [s]
        out.append(Span(a, b, s.label, s.source, s.score))
    return out


#: an acronym in parentheses right after a name: "(CHUVI)", "(HULP)", "(CBMF-HGO)"
_ACRONYM = re.compile(r" ?\( ?([^\W\d_][^\W_]*(?:-[^\W_]+)?) ?\)")


def _acronym_after(text: str, s: Span) -> Span | None:
    """The acronym in parentheses right after ``s`` as a span like ``s``, when it abbreviates ``s``'s text: upper
    case, at least two letters, its first letter the name's first, its letters in the name in order (the test
    of Schwartz and Hearst's abbreviation finder; "Hospital La Paz (UCI)" names a unit, not the hospital)."""
    m = _ACRONYM.match(text, s.end)
    if m is None:
        return None
    short = m.group(1)
    letters = [c for c in short.casefold() if c.isalpha()]
    if len(letters) < 2 or not short.replace("-", "").isupper() or len(short) > 12:
        return None
    name = text[s.start:s.end].casefold()
    if not name or letters[0] != name[0]:
        return None
    pos = 0
    for c in letters:
        pos = name.find(c, pos) + 1
        if pos == 0:
            return None
    return Span(m.start(1), m.end(1), s.label, s.source, s.score)


_PLACES = ("LOCATION.CITY", "LOCATION.STATE", "LOCATION.ZIP", "LOCATION.OTHER")
#: a postcode at either end of a place span: 4-6 digits, optionally with a country prefix ("E-28040")
_ZIP_END = re.compile(r"[ ,]+((?:[A-Z]{1,2}-)?\d{4,6})$")
_ZIP_START = re.compile(r"((?:[A-Z]{1,2}-)?\d{4,6})[ ,]+(?=[^\W\d_])")
_ZIP_ONLY = re.compile(r"\d{4,6}")
#: a country prefix right before a postcode: "E-", "D-", "NL-" after a space or the line start
_ZIP_PREFIX = re.compile(r"(?:^|(?<=[\s(]))[A-Z]{1,2}-$")
_POSTCODE_LABEL = re.compile(rf"\s+(?:{_POSTAL}|CP\b)")
#: what a place name left of or right of a postcode has: a word of three letters
_NAME_PART = re.compile(r"[^\W\d_]{3}")
_PLACE_JOIN = re.compile(r" (?:de|del|de la|de los|de las) ")


def _is_place(cat: str) -> bool:
    return any(category_matches(cat, c) for c in _PLACES)


def _place_pieces(text: str, s: Span, label_of: Callable[[str], str | None] | None) -> list[Span]:
    """A place span without a postcode label at its end, its postcode split off, its postcode's country prefix
    added (see the module docstring)."""
    m = _POSTCODE_LABEL.search(text, s.start, s.end)
    if m is not None and m.start() > s.start:
        s = Span(s.start, m.start(), s.label, s.source, s.score)
    inner = text[s.start:s.end]
    zip_label = (label_of("LOCATION.ZIP") if label_of is not None else None) or s.label
    if _ZIP_ONLY.fullmatch(inner):
        m = _ZIP_PREFIX.search(text, max(0, s.start - 3), s.start)
        return [Span(m.start(), s.end, s.label, s.source, s.score) if m is not None else s]
    m = _ZIP_END.search(inner)
    if m is not None and _NAME_PART.search(inner, 0, m.start()):  # not "E 28053": a prefix is no place
        return [Span(s.start, s.start + m.start(), s.label, s.source, s.score),
                Span(s.start + m.start(1), s.end, zip_label, s.source, s.score)]
    m = _ZIP_START.match(inner)
    if m is not None and _NAME_PART.search(inner, m.end()):
        return [Span(s.start, s.start + m.end(1), zip_label, s.source, s.score),
                Span(s.start + m.end(), s.end, s.label, s.source, s.score)]
    return [s]


def _join_places(text: str, spans: list[Span], category_of: Callable[[str], str]) -> list[Span]:
    """``spans`` with two place spans of one label joined by "de" (one line) merged into one span."""
    order = sorted(range(len(spans)), key=lambda i: (spans[i].start, spans[i].end))
    merged: dict[int, Span] = {}
    dropped: set[int] = set()
    prev = None
    for i in order:
        s = spans[i]
        if (prev is not None and spans[prev].label == s.label and _is_place(category_of(s.label))
                and _PLACE_JOIN.fullmatch(text, merged.get(prev, spans[prev]).end, s.start)):
            first = merged.get(prev, spans[prev])
            merged[prev] = Span(first.start, s.end, first.label, first.source, first.score)
            dropped.add(i)
            continue
        prev = i
    if not dropped:
        return spans
    return [merged.get(i, s) for i, s in enumerate(spans) if i not in dropped]


def repair_spans(text: str, spans: Iterable[Span], lang: str, category_of: Callable[[str], str],
                 label_of: Callable[[str], str | None] | None = None) -> list[Span]:
    """``spans`` (of ``text``) with the repairs of the module docstring; ``category_of`` maps a span label to its
    canonical category, ``label_of`` (optional) a category to a label of the spans' scheme (``None``: it has
    none), for repairs that change a label. Spans are returned in their input order; a trimmed span keeps its
    label, source and score."""
    spans = list(spans)
    relatives: list[tuple[int, int]] | None = None
    out: list[Span] = []
    for s in spans:
        cat = category_of(s.label)
        if ("(" in text[s.start:s.end] or ")" in text[s.start:s.end]) and (
                category_matches(cat, "NAME") or category_matches(cat, "LOCATION")):
            cut = _paren_cut(text, s.start, s.end)
            if cut is not None and cut != (s.start, s.end):
                s = Span(cut[0], cut[1], s.label, s.source, s.score)
        institution = category_matches(cat, "LOCATION.HOSPITAL") or category_matches(cat, "LOCATION.ORGANIZATION")
        if institution or category_matches(cat, "NAME"):
            end = _past_initial(text, s.start, s.end, lang)
            if end != s.end:
                s = Span(s.start, end, s.label, s.source, s.score)
        if category_matches(cat, "NAME.RELATIVE"):
            if relatives is None:
                relatives = _not_relative_regions(text, lang)
            if any(a <= s.start and s.end <= b for a, b in relatives):
                continue
            if not _has_kin_or_capital(text[s.start:s.end], lang):
                continue
            if lang in _AND:
                pieces = _split_relatives(text, s, lang)
                if len(pieces) > 1:
                    out.extend(pieces)
                    continue
        elif _is_place(cat):
            out.extend(_place_pieces(text, s, label_of))
            continue
        elif institution:
            if (label_of is not None and category_matches(cat, "LOCATION.ORGANIZATION")
                    and _names_hospital(_WORDS.findall(text, s.start, s.end), lang)):
                hospital = label_of("LOCATION.HOSPITAL")
                if hospital:
                    s = Span(s.start, s.end, hospital, s.source, s.score)
            m = _tail_rx().search(text, s.start + 1, min(len(text), s.end + 2))  # "Ctra." ends past the span
            if m is not None and m.start() < s.end:
                end = m.start()
                while end > s.start and (text[end - 1].isspace() or text[end - 1] in ",.;:-"):
                    end -= 1
                if end - s.start < 3 or " " not in text[s.start:end].strip():
                    out.append(s)  # nothing of a name would be left: keep the model's span
                    continue
                s = Span(s.start, end, s.label, s.source, s.score)
            acronym = _acronym_after(text, s)
            if acronym is not None and not any(q.start < acronym.end and acronym.start < q.end for q in spans):
                out.extend((s, acronym))
                continue
        out.append(s)
    return _join_places(text, out, category_of)


class Repair:
    """The ``repair`` step: :func:`repair_spans` with the categories and native labels of ``scheme`` (the scheme
    the spans' labels are in at this point)."""

    name = "repair"

    def __init__(self, scheme: LabelScheme) -> None:
        self.labels = SchemeLabels(scheme)

    def process(self, analysis: Analysis, spans: list[Span]) -> list[Span]:
        if not spans:
            return spans
        return repair_spans(analysis.text, spans, analysis.lang, self.labels.category, self.labels.native)
