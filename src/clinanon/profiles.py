"""Profiles: which detected categories count as PHI, by law or by a corpus's convention.

Detectors find everything that *might* identify a person; a profile then says what is replaced. Three are built
in (``docs/profiles.md`` has the table, category by category, with the legal references):

* ``hipaa`` — HIPAA Safe Harbor, 45 CFR 164.514(b)(2)(i): the 18 identifiers. Names, geographic subdivisions
  smaller than a state (states and countries are not PHI), every element of a date except the year (clinanon
  also replaces years: they can reveal an age over 89), ages **only when over 89**, contacts, identifying numbers.
  Times of day, a weekday alone ("on Sunday"), sex and professions are not identifiers.
* ``gdpr-strict`` — everything that can single out a person (GDPR Art. 4(1), Recital 26): all categories,
  ages of any value, sex, professions and times of day included.
* ``meddocan`` — the convention of the MEDDOCAN corpus (Marimon et al. 2019): every category its guidelines
  annotate, ages and sex included, but no clock times.

A profile is applied after detection (:class:`clinanon.steps.profile.ApplyProfile`) and to both sides of an
evaluation (:func:`filter_documents`), so that a corpus is scored by its own convention. Decisions read only the
span's category and, for ages and dates, the span's characters (an age's number, a clock time's shape); nothing
is logged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from babel.dates import get_day_names

from clinanon.caches import memo
from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.lang.fold import fold
from clinanon.taxonomy import CANONICAL_CATEGORIES, category_matches

__all__ = [
    "DEFAULT_PROFILE",
    "PROFILES",
    "Profile",
    "age_value",
    "filter_documents",
    "get_profile",
    "is_time_of_day",
    "is_weekday",
    "list_profiles",
]


@dataclass(frozen=True)
class Profile:
    """What counts as PHI.

    ``phi``: the canonical categories (types such as ``"NAME"`` or ``TYPE.SUBTYPE`` such as
    ``"LOCATION.CITY"``) that are PHI; ``not_phi``: subtypes taken back out of a listed type
    (``"LOCATION.STATE"``). ``min_age``: ages below it are not PHI (``None``: every age is); an age whose number
    cannot be read stays PHI. ``times``: whether a clock time alone (``"4PM"``, ``"13:45"``) is a date.
    ``weekdays``: whether a weekday's name alone (``"Sunday"``, ``"on Monday"``) is a date.
    ``references``: the legal or corpus reference of each decision, for the docs.
    """

    name: str
    description: str
    phi: tuple[str, ...]
    not_phi: tuple[str, ...] = ()
    min_age: int | None = None
    times: bool = True
    weekdays: bool = True
    references: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for cat in (*self.phi, *self.not_phi):
            if cat not in CANONICAL_CATEGORIES:
                raise ConfigError(f"profile {self.name!r}: unknown canonical category {cat!r}")
        object.__setattr__(self, "references", MappingProxyType(dict(self.references)))

    @property
    def keeps_everything(self) -> bool:
        """Whether every detected span is PHI under this profile (``gdpr-strict``): its step changes nothing, so a
        pipeline leaves it out of its plan."""
        return (self.min_age is None and self.times and self.weekdays and not self.not_phi
                and all(self.covers(c) for c in CANONICAL_CATEGORIES))

    def covers(self, category: str) -> bool:
        """Whether spans of ``category`` (a canonical category) can be PHI under this profile; a category outside
        the canonical taxonomy is kept (a user's own label is never dropped silently)."""
        if category not in _CANONICAL:
            return True
        if any(category_matches(category, c) for c in self.not_phi):
            return False
        return any(category_matches(category, c) or category_matches(c, category) for c in self.phi)

    def is_phi(self, category: str, text: str) -> bool:
        """Whether a span of ``category`` whose characters are ``text`` is PHI under this profile."""
        if not self.covers(category):
            return False
        if category == "AGE" and self.min_age is not None:
            value = age_value(text)
            return value is None or value >= self.min_age
        if category == "DATE":
            if not self.times and is_time_of_day(text):
                return False
            if not self.weekdays and is_weekday(text):
                return False
        return True

    def filter(self, text: str, spans: Sequence[Span], category_of: Callable[[str], str] | None = None
               ) -> list[Span]:
        """The spans of ``text`` that are PHI under this profile (``category_of``: a span label's canonical
        category; default: the label is one)."""
        cat = category_of or _identity
        out = [s for s in spans if self.is_phi(cat(s.label), text[s.start:s.end])]
        return out if len(out) != len(spans) else list(spans)


def _identity(label: str) -> str:
    return label


_CANONICAL = frozenset(CANONICAL_CATEGORIES)

# --- reading an age ------------------------------------------------------------------------------------------

_NUMBER = re.compile(r"\d{1,3}(?!\d)")
_UNITS_EN = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
             "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
             "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
_TENS_EN = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
            "ninety": 90}
_TENS_ES = {"veinte": 20, "treinta": 30, "cuarenta": 40, "cincuenta": 50, "sesenta": 60, "setenta": 70,
            "ochenta": 80, "noventa": 90}
_UNITS_ES = {"un": 1, "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7,
             "ocho": 8, "nueve": 9, "diez": 10}
_WORDS = re.compile(r"[^\W\d_]+")
_MONTHS_ONLY = re.compile(r"(?i)\b(?:months?|mos?|meses|weeks?|wks?|semanas|days?|d[ií]as)\b")
_YEARS = re.compile(r"(?i)\b(?:years?|yrs?|y/?o|años?)\b")


def age_value(text: str) -> int | None:
    """The age in years that an age span states (``"67"``, ``"67 yo"``, ``"in her 90s"``, ``"ninety-two"``,
    ``"noventa y dos años"``), ``None`` when it cannot be read. An age in months, weeks or days is under one
    year (0); a hundred or more words are read as 100."""
    m = _NUMBER.search(text)
    if m is not None:
        value = int(m.group())
        return 0 if _MONTHS_ONLY.search(text) and not _YEARS.search(text) else value
    words = [w.casefold() for w in _WORDS.findall(text)]
    if any(w in ("hundred", "cien", "ciento") for w in words):
        return 100
    total = None
    for w in words:
        for table in (_TENS_EN, _TENS_ES, _UNITS_EN, _UNITS_ES):
            if w in table:
                total = (total or 0) + table[w]
                break
    return total


# --- clock times -------------------------------------------------------------------------------------------------

_TIME = re.compile(
    r"(?ix)\A\s*(?:at\s+|around\s+|@\s*)?"
    r"(?:(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?\s*(?:h|hrs?|hours?|uhr|u|uur)?\.?"  # 13:45, 13:45:10, 13:45 h
    # with a dot, only with its unit: "21.07.22" and "05.11" are dates in German and Dutch notes
    r"|(?:[01]?\d|2[0-3])\.[0-5]\d\s*(?:h|hrs?|hours?|uhr|u|uur)\.?"  # 13.45 h, 13.45 Uhr
    r"|(?:[01]?\d|2[0-3])h[0-5]\d"  # 14h30
    r"|(?:0?\d|1[0-2])(?:[:.][0-5]\d)?\s*(?:a\.?\s?m\.?|p\.?\s?m\.?|am|pm)"  # 4PM, 1:45pm, 10 a.m.
    r"|(?:[01]?\d|2[0-3])\s*(?:uhr|h|u|uur)"  # 14 Uhr, 14h
    r"|(?:[01]\d|2[0-3])[0-5]\d\s*(?:h|hrs?|hours)"  # 0930 h, 2200 hrs
    r"|noon|midnight)\s*\Z")


def is_time_of_day(text: str) -> bool:
    """Whether ``text`` is a clock time and nothing else (``"4PM"``, ``"1:45pm"``, ``"13:45"``, ``"14 Uhr"``);
    a date with a time (``"10/19 4pm"``) is not."""
    return len(text) <= 24 and _TIME.match(text) is not None


# --- weekdays --------------------------------------------------------------------------------------------------

#: the CLDR locales whose weekday names are read (the languages clinanon has rules for)
_WEEKDAY_LOCALES = ("en_US", "en_GB", "es_ES", "de_DE", "nl_NL", "sv_SE")
_WEEKDAY_SPAN = re.compile(r"(?i)\A\s*(?:on|el|am|op|på|last|next|this|pasado|próximo|letzten|vorigen|afgelopen|"
                           r"volgende)?\s*([^\W\d_]{2,12})\.?,?\s*\Z")


@memo
def _weekday_names() -> frozenset[str]:
    """Folded weekday names (wide, and abbreviations of three letters or more) of :data:`_WEEKDAY_LOCALES`, from
    Babel's CLDR data."""
    out: set[str] = set()
    for loc in _WEEKDAY_LOCALES:
        for width in ("wide", "abbreviated"):
            for ctx in ("format", "stand-alone"):
                for name in get_day_names(width, ctx, loc).values():
                    n = fold(name.strip().rstrip("."))
                    if width == "wide" or len(n) >= 3:
                        out.add(n)
    return frozenset(out)


def is_weekday(text: str) -> bool:
    """Whether ``text`` is a weekday's name and nothing else (``"Sunday"``, ``"sunday."``, ``"on Monday"``,
    ``"Wed"``, ``"lunes"``); a weekday with a date (``"Monday 10/19"``, ``"lunes, 3 de marzo"``) is not."""
    if len(text) > 24:
        return False
    m = _WEEKDAY_SPAN.match(text)
    return m is not None and fold(m.group(1)) in _weekday_names()


# --- the built-in profiles ---------------------------------------------------------------------------------------

_HIPAA = "45 CFR 164.514(b)(2)(i)"
_GDPR = "GDPR Art. 4(1), Recital 26"
_MEDDOCAN = "MEDDOCAN annotation guidelines (Marimon et al. 2019)"

PROFILES: Mapping[str, Profile] = MappingProxyType({p.name: p for p in (
    Profile(
        "hipaa", "HIPAA Safe Harbor: the 18 identifiers; ages only over 89; no times of day, sex or profession",
        phi=("NAME", "LOCATION", "DATE", "AGE", "CONTACT", "ID", "OTHER"),
        not_phi=("LOCATION.STATE", "LOCATION.COUNTRY"), min_age=90, times=False, weekdays=False,
        references={
            "NAME": f"{_HIPAA}(A) names",
            "LOCATION": f"{_HIPAA}(B) geographic subdivisions smaller than a state",
            "LOCATION.STATE": f"{_HIPAA}(B): a state is not a subdivision smaller than a state",
            "LOCATION.COUNTRY": f"{_HIPAA}(B): a country is larger than a state",
            "DATE": f"{_HIPAA}(C) all elements of dates except the year (clinanon replaces the year too)",
            "DATE (time of day)": f"{_HIPAA}(C) names date elements, not clock times",
            "DATE (weekday alone)": f"{_HIPAA}(C) names the elements of a date (day, month), not the day of the week",
            "AGE": f"{_HIPAA}(C) all ages over 89 (an age up to 89 is not an identifier)",
            "CONTACT": f"{_HIPAA}(D)-(F), (N), (O) telephone, fax, e-mail, URL, IP address",
            "ID": f"{_HIPAA}(G)-(M), (P), (R) numbers, codes and biometric identifiers",
            "OTHER": f"{_HIPAA}(Q)-(R) other unique identifying characteristics",
            "SEX": f"{_HIPAA}: not among the 18 identifiers",
            "PROFESSION": f"{_HIPAA}: not among the 18 identifiers",
        }),
    Profile(
        "gdpr-strict", "GDPR, strict: everything that can single out a person, ages, sex, professions and "
        "times included",
        phi=tuple(c for c in CANONICAL_CATEGORIES if "." not in c),
        references={c: f"{_GDPR}: information relating to an identifiable person"
                    for c in (*(c for c in CANONICAL_CATEGORIES if "." not in c), "DATE (time of day)",
                              "DATE (weekday alone)")}),
    Profile(
        "meddocan", "the MEDDOCAN corpus convention: all its categories, ages and sex included; no clock times",
        phi=tuple(c for c in CANONICAL_CATEGORIES if "." not in c), times=False,
        references={**{c: _MEDDOCAN for c in CANONICAL_CATEGORIES if "." not in c},
                    "DATE (time of day)": f"{_MEDDOCAN}: clock times are not annotated"}),
)})


#: the profile of a pipeline whose configuration names none: replace everything detected (a privacy tool's
#: default; a narrower legal reading such as ``hipaa`` is a choice the user makes)
DEFAULT_PROFILE = "gdpr-strict"


def get_profile(name: str | Profile) -> Profile:
    """The built-in profile called ``name`` (a :class:`Profile` passes through)."""
    if isinstance(name, Profile):
        return name
    try:
        return PROFILES[str(name).lower()]
    except KeyError:
        raise ConfigError(f"unknown profile {name!r}; known: {', '.join(PROFILES)}") from None


def list_profiles() -> list[str]:
    return list(PROFILES)


def filter_documents(docs: Iterable[Document], profile: str | Profile,
                     category_of: Callable[[str], str] | None = None) -> list[Document]:
    """``docs`` with only the spans that are PHI under ``profile`` (``category_of``: a label's canonical category,
    e.g. ``get_scheme("i2b2-2014").category``; default: labels are canonical). Apply it to the gold documents and
    to the predictions alike before :func:`clinanon.evaluate.evaluate`, so that a corpus is scored by its own
    convention."""
    prof = get_profile(profile)
    out = []
    for d in docs:
        kept = prof.filter(d.text, d.spans, category_of)
        out.append(d if len(kept) == len(d.spans) else d.with_spans(kept))
    return out
