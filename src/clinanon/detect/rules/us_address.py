"""US town lines in English text: ``<City>, <ST> <ZIP>`` and ``<City>, <State name>``.

``Springfield, IL 62704`` gives ``Springfield`` (``LOCATION.CITY``), ``IL`` (``LOCATION.STATE``) and ``62704``
(``LOCATION.ZIP``); ``from Springfield, Illinois`` gives the city and the state. The scan starts at the comma
before a USPS abbreviation followed by a ZIP code, or before a state's name; the city is read backwards from the
comma: one to three capitalised words (``St. Louis``, ``Salt Lake City``).

Which words make the city:

* the longest run of those words ending at the comma that the English city gazetteer lists (score 0.85);
* otherwise, in the ``ST ZIP`` shape only (strong evidence on its own), the last word when it is not a common
  word of the language (stop words, clinical words, street suffixes: ``Road, IL 62704`` is not a city),
  score 0.75. A state name after an unlisted word gives nothing: ``Smith, Georgia`` is a surname and a
  first name.

A state name must not continue as a capitalised word (``Virginia Mason``); an abbreviation needs the ZIP code
(``Jones, MD`` is a degree). English only: other languages get no recognizer.
"""

from __future__ import annotations

import re

from clinanon.caches import memo
from clinanon.document import Document, Span
from clinanon.lang.fold import fold
from clinanon.lang.lexicon import common_lexicon, common_words, name_words
from clinanon.lang.wordlists import load_rows

__all__ = ["US_STATE_NAMES", "USTownLineRecognizer", "recognizers"]

#: USPS abbreviation -> name: the states, DC, and the inhabited territories
US_STATE_NAMES: dict[str, str] = {
    "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California", "CO": "Colorado",
    "CT": "Connecticut", "DE": "Delaware", "DC": "District of Columbia", "FL": "Florida", "GA": "Georgia",
    "HI": "Hawaii", "ID": "Idaho", "IL": "Illinois", "IN": "Indiana", "IA": "Iowa", "KS": "Kansas",
    "KY": "Kentucky", "LA": "Louisiana", "ME": "Maine", "MD": "Maryland", "MA": "Massachusetts", "MI": "Michigan",
    "MN": "Minnesota", "MS": "Mississippi", "MO": "Missouri", "MT": "Montana", "NE": "Nebraska", "NV": "Nevada",
    "NH": "New Hampshire", "NJ": "New Jersey", "NM": "New Mexico", "NY": "New York", "NC": "North Carolina",
    "ND": "North Dakota", "OH": "Ohio", "OK": "Oklahoma", "OR": "Oregon", "PA": "Pennsylvania",
    "RI": "Rhode Island", "SC": "South Carolina", "SD": "South Dakota", "TN": "Tennessee", "TX": "Texas",
    "UT": "Utah", "VT": "Vermont", "VA": "Virginia", "WA": "Washington", "WV": "West Virginia",
    "WI": "Wisconsin", "WY": "Wyoming", "PR": "Puerto Rico", "GU": "Guam", "VI": "Virgin Islands",
    "AS": "American Samoa", "MP": "Northern Mariana Islands",
}

_NAMES_ALT = "|".join(sorted((re.escape(n) for n in US_STATE_NAMES.values()), key=len, reverse=True))
_ABBR_ALT = "|".join(sorted(US_STATE_NAMES))
#: the comma and what follows the city
_TAIL = re.compile(
    rf",[ \t]{{1,2}}(?:(?P<st>{_ABBR_ALT})\.?[ \t]{{1,2}}(?P<zip>[0-9]{{5}}(?:-[0-9]{{4}})?)(?![\w\-])"
    rf"|(?P<state>{_NAMES_ALT})(?![\w\-])(?![ \t]+[A-Z][a-z]))"
)
#: a state's abbreviation after a town without a ZIP code ("Stony Point, NY", "Huntington WV"), where the line or
#: the clause ends after it; the comma is optional only for the codes in no other common use (``_BARE_OK``)
_BARE_TAIL = re.compile(
    rf"(?P<comma>,)?[ \t]{{1,2}}(?P<st>{_ABBR_ALT})(?=[ \t]{{0,2}}(?:[,.;:)|]|\r?\n|\Z))")
#: codes that are also words, credentials or clinical abbreviations ("OR", "IN", "MD", "PA", "MS", "CT", "NC"
#: nasal cannula, "LA" left atrium, "GA" gestational age, "SC", "DC", "ID", "CA", "PR", "AS", "GU"): never
#: without a comma before them
_BARE_OK = frozenset(US_STATE_NAMES) - {
    "IN", "OR", "ME", "MA", "PA", "MD", "MS", "CT", "DE", "OK", "HI", "AL", "CO", "GA", "ID", "IA", "LA", "MI",
    "MO", "NE", "NC", "ND", "SC", "SD", "TN", "UT", "VA", "WA", "PR", "AS", "GU", "VI", "MP", "DC", "AR", "CA",
    "OH", "NV", "NH", "MN", "IL", "KS", "FL", "RI", "WI", "MT", "NM"}
#: codes that are also a credential after a name ("Jones, MD", "Smith, PA", "Lee, MA", "Cole, MS", "Ray, DC"):
#: without a ZIP code only after a preposition of place and with a listed town ("lives in Springfield, MA")
_CREDENTIAL = frozenset(("MD", "PA", "MA", "MS", "DC", "DE", "OT", "PT", "NP", "RN"))
#: a preposition of place before a town ("from Pell City, Alabama", "to Stony Point, NY")
_PLACE_CUE = re.compile(r"(?<![\w])(?:from|in|to|near|of|at|outside|towards?)[ \t]{1,2}\Z")
#: one capitalised word of a town's name ("Springfield", "St.", "O'Fallon", "Winston-Salem")
_WORD = r"(?:[A-Z][a-z]{1,3}\.|[A-Z](?:['’][A-Z])?[a-z]+(?:-[A-Z][a-z]+)?)"
#: up to three such words ending at the comma (matched on the text before it)
_CITY_BEFORE = re.compile(rf"(?<![\w\-'’.])(?:{_WORD}[ \t]){{0,2}}{_WORD}\Z")
#: street suffixes and other words that end an address part but never a town's name
_NOT_TOWN = frozenset((
    "road", "rd", "street", "st", "avenue", "ave", "lane", "ln", "drive", "dr", "boulevard", "blvd", "court", "ct",
    "place", "pl", "way", "circle", "cir", "terrace", "ter", "highway", "hwy", "parkway", "pkwy", "trail",
    "square", "suite", "apt", "apartment", "unit", "floor", "box", "center", "centre", "hospital", "clinic",
    "university", "college", "school", "county", "state", "department", "office", "building", "hall", "md",
))


@memo
def _known_towns() -> frozenset[str]:
    """Folded names of the English city list."""
    return frozenset(fold(row[0]) for row in load_rows("en", "city"))


_STOP = frozenset(("the", "a", "an", "and", "or", "of", "to", "in", "on", "at", "from", "for", "with", "by", "per"))


@memo
def _lexicon_places() -> tuple[frozenset[str], frozenset[str]]:
    return frozenset(common_lexicon("en")), frozenset(name_words("en")[1])


def _town_word(w: str) -> bool:
    """A word that may name a town: a listed place ("Huntington"), or no word of the lexicon ("Pell")."""
    lexicon, places = _lexicon_places()
    f = fold(w)
    return f in places or (f not in lexicon and w.casefold() not in _common())


@memo
def _common() -> frozenset[str]:
    return common_words("en") | _NOT_TOWN


class USTownLineRecognizer:
    """US town lines (see the module docstring): ``analyze(text)`` returns the city (``LOCATION.CITY``), the
    state (``LOCATION.STATE``, 0.85) and the ZIP code (``LOCATION.ZIP``, 0.85) spans, sorted; the city only as
    described there. Offsets are on ``text``; nothing is logged."""

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang
        self.name = f"us_town_line_{lang}"

    def __repr__(self) -> str:
        return f"USTownLineRecognizer(lang={self.lang!r})"

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)

    def _city(self, text: str, comma: int, strong: bool, cue: bool = False) -> tuple[int, float] | None:
        """Start and score of the city ending at ``comma``, or None; ``cue``: after a preposition of place, a
        town of unlisted words ("from Pell City, Alabama": no stop word, the last word no common word)."""
        m = _CITY_BEFORE.search(text, max(0, comma - 60), comma)
        if m is None:
            return None
        words = [(w.start(), w.group()) for w in re.finditer(r"\S+", m.group())]
        towns = _known_towns()
        for k, (off, _w) in enumerate(words):  # longest listed suffix first
            if fold(" ".join(w for _, w in words[k:])) in towns:
                return m.start() + off, 0.85
        off, last = words[-1]
        if strong and last.rstrip(".").casefold() not in _common() and not last.endswith("."):
            return m.start() + off, 0.75
        if cue and _PLACE_CUE.search(text, max(0, m.start() - 15), m.start()) and not last.endswith(".") and (
                any(_town_word(w) for _, w in words) and not any(w.casefold() in _STOP for _, w in words)):
            return m.start(), 0.7
        return None

    def analyze(self, text: str) -> list[Span]:
        """City, state and ZIP spans of the US town lines in ``text``."""
        out: list[Span] = []
        if "," not in text:
            return out
        src = self.name
        for m in _TAIL.finditer(text):
            strong = m.group("zip") is not None
            city = self._city(text, m.start(), strong, cue=not strong)
            if city is None:
                continue
            start, score = city
            out.append(Span(start, m.start(), "LOCATION.CITY", f"{src}:city", score))
            if strong:
                out.append(Span(*m.span("st"), "LOCATION.STATE", f"{src}:state", 0.85))
                out.append(Span(*m.span("zip"), "LOCATION.ZIP", f"{src}:zip", 0.85))
            else:
                out.append(Span(*m.span("state"), "LOCATION.STATE", f"{src}:state", 0.85))
        out += self._bare(text, {s.start for s in out if s.label == "LOCATION.STATE"})
        return sorted(out)

    def _bare(self, text: str, taken: set[int]) -> list[Span]:
        """Towns before a state's abbreviation without a ZIP code: "Stony Point, NY", "Huntington WV" (a listed
        town; or an unlisted word after a comma or a preposition of place, or before a code in ``_BARE_OK``)."""
        out: list[Span] = []
        src = self.name
        for m in _BARE_TAIL.finditer(text):
            st = m.group("st")
            if m.start("st") in taken or (m.group("comma") is None and st not in _BARE_OK):
                continue
            if m.start("st") > 0 and not text[m.start("st") - 1].isspace():
                continue
            cm = _CITY_BEFORE.search(text, max(0, m.start() - 60), m.start())
            if cm is None:
                continue
            words = [(w.start(), w.group()) for w in re.finditer(r"\S+", cm.group())]
            towns = _known_towns()
            if st in _CREDENTIAL and _PLACE_CUE.search(text, max(0, cm.start() - 15), cm.start()) is None:
                continue  # "Caleb Whitfield, MD": a degree after a name (a listed town or not)
            start = next((cm.start() + off for k, (off, _w) in enumerate(words)
                          if fold(" ".join(w for _, w in words[k:])) in towns), None)
            if start is None and st not in _CREDENTIAL:
                off, last = words[-1]
                if not last.endswith(".") and not last.isupper():
                    cue = _PLACE_CUE.search(text, max(0, cm.start() - 15), cm.start())
                    if cue is not None and not any(w.casefold() in _STOP for _, w in words) and any(
                            _town_word(w) for _, w in words):
                        start = cm.start()
                    elif _town_word(last):
                        start = cm.start() + off
            if start is None:
                continue
            out.append(Span(start, m.start(), "LOCATION.CITY", f"{src}:city", 0.7))
            out.append(Span(*m.span("st"), "LOCATION.STATE", f"{src}:state", 0.8))
        return out


def recognizers(lang: str) -> list[USTownLineRecognizer]:
    """The US town-line recognizer for English; none for the other languages."""
    return [USTownLineRecognizer(lang)] if lang == "en" else []
