r"""Public holidays per language: the one vocabulary that the date rules and the date surrogates share.

A holiday names a day of the year ("over Christmas", "after Thanksgiving", "efter midsommarafton"): the US Safe
Harbor method counts it as an element of a date, and a de-identifier must find it and replace it. Two users read
this table, from both sides of the ``detect`` / ``transform`` wall (neither may import the other; ``lang`` is
below both):

* the date rules (``clinanon.detect.rules.dates``, pattern ``holiday``) find the written forms of the language
  (:func:`holiday_regex`: each holiday's :attr:`Holiday.form`, case-insensitive, one space or tab between
  words); a holiday that is also an ordinary word stands with its "Day" ("Labor Day", not "Labor");
* the date surrogate (``clinanon.transform.surrogate.dates``) recognises a holiday in a date span by looser
  words (:func:`holiday_words`: each holiday's :attr:`Holiday.word`, of every language, matched anywhere, so a
  gold span such as German "1. Weihnachtsfeiertag" or an English note's "Weihnachten" is one too) and replaces it
  with one of the note language's :attr:`LanguageHolidays.surrogates`, chosen by key (the order of that tuple is
  part of every surrogate already written: append, never reorder).

Adding a holiday: one :class:`Holiday` in its language's tuple (a ``word`` unless another entry's word already
covers it); adding a language: one :class:`LanguageHolidays` here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from clinanon.caches import memo

__all__ = ["HOLIDAYS", "Holiday", "LanguageHolidays", "holiday_regex", "holiday_surrogates", "holiday_words"]


@dataclass(frozen=True)
class Holiday:
    """One holiday of a language.

    ``name``: how a surrogate writes it. ``form``: a regex of the written forms the date rules find
    (case-insensitive; ``[ \t]`` between words), by default the name itself. ``word``: a looser regex by which a
    date span is known to hold a holiday (a stem: ``"pfingst"``), ``None`` where another entry's word covers it.
    """

    name: str
    form: str | None = None
    word: str | None = None

    @property
    def pattern(self) -> str:
        """:attr:`form`, or the name with ``[ \t]`` between its words."""
        if self.form is not None:
            return self.form
        return r"[ \t]".join(re.escape(w) for w in self.name.split(" "))


@dataclass(frozen=True)
class LanguageHolidays:
    """The holidays of one language, in the order the date rules try them, and the names a surrogate may write
    (each one a holiday's :attr:`~Holiday.name`; a keyed choice indexes this tuple)."""

    holidays: tuple[Holiday, ...]
    surrogates: tuple[str, ...]

    def __post_init__(self) -> None:
        names = {h.name for h in self.holidays}
        unknown = [s for s in self.surrogates if s not in names]
        if unknown:
            raise ValueError(f"surrogate holidays not in the table: {unknown}")


_H = Holiday

HOLIDAYS: dict[str, LanguageHolidays] = {
    "en": LanguageHolidays(
        (
            _H("Christmas", r"Christmas(?:[ \t](?:Day|Eve))?", "christmas"),
            _H("Xmas", word="xmas"),
            _H("New Year's Day", r"New[ \t]Year'?s(?:[ \t](?:Day|Eve))?", "new year"),
            _H("Thanksgiving", r"Thanksgiving(?:[ \t]Day)?", "thanksgiving"),
            _H("Easter", r"Easter(?:[ \t](?:Sunday|Monday))?", "easter"),
            _H("Good Friday", word="good friday"),
            _H("Halloween", word="halloween"),
            _H("Hanukkah", r"Hanukk?ah", r"hanukk?ah"),
            _H("Chanukah", word="chanukah"),
            _H("Passover", word="passover"),
            _H("Yom Kippur", word="kippur"),
            _H("Rosh Hashanah", word="hashanah"),
            _H("Eid al-Fitr", r"Eid(?:[ \t]al-(?:Fitr|Adha))", r"\beid\b"),
            _H("Diwali", word="diwali"),
            _H("Memorial Day", word="memorial day"),
            _H("Labor Day", r"(?:Labor|Labour)[ \t]Day", "labou?r day"),
            _H("Veterans Day", r"Veterans'?[ \t]Day", "veterans'? day"),
            _H("Columbus Day", word="columbus day"),
            _H("Presidents Day", r"Presidents'?[ \t]Day", "presidents'? day"),
            _H("Independence Day", word="independence day"),
            _H("Boxing Day", word="boxing day"),
            _H("Valentine's Day", r"Valentine'?s[ \t]Day", "valentine'?s day"),
            _H("Mother's Day", r"Mother'?s[ \t]Day", "mother'?s day"),
            _H("Father's Day", r"Father'?s[ \t]Day", "father'?s day"),
            _H("St. Patrick's Day", r"St\.?[ \t]Patrick'?s[ \t]Day", "patrick'?s day"),
            _H("Martin Luther King Day", r"(?:Martin[ \t]Luther[ \t]King(?:[ \t]Jr\.?)?|MLK)[ \t]Day",
               r"(?:king|mlk)(?:[ \t]jr\.?)?[ \t]day"),
            _H("Fourth of July", r"(?:the[ \t])?Fourth[ \t]of[ \t]July", "fourth of july"),
        ),
        ("Christmas", "Thanksgiving", "Easter", "New Year's Day", "Labor Day", "Memorial Day", "Independence Day",
         "Halloween", "Veterans Day", "Columbus Day"),
    ),
    "es": LanguageHolidays(
        (
            _H("Nochebuena", word="nochebuena"),
            _H("Nochevieja", word="nochevieja"),
            _H("Navidad", r"Navidad(?:es)?", "navidad"),
            _H("Año Nuevo", r"A[ñn]o[ \t]Nuevo", r"a[ñn]o nuevo"),
            _H("Día de Reyes", r"D[íi]a[ \t]de[ \t]Reyes", r"d[íi]a de reyes"),
            _H("Semana Santa", word="semana santa"),
            _H("Jueves Santo", word="jueves santo"),
            _H("Viernes Santo", word="viernes santo"),
            _H("Domingo de Resurrección", r"Domingo[ \t]de[ \t]Resurrecci[óo]n", r"resurrecci[óo]n"),
        ),
        ("Navidad", "Nochevieja", "Semana Santa", "Año Nuevo", "Día de Reyes", "Nochebuena"),
    ),
    "de": LanguageHolidays(
        (
            _H("Weihnachten", word="weihnacht"),
            _H("Heiligabend", word="heiligabend"),
            _H("Heiligem Abend", word=r"heilig\w* abend"),
            _H("Silvester", word="silvester"),
            _H("Neujahr", r"Neujahr(?:stag)?", "neujahr"),
            _H("Ostern", word="oster"),
            _H("Ostersonntag"),
            _H("Ostermontag"),
            _H("Karfreitag", word="karfreitag"),
            _H("Pfingsten", word="pfingst"),
            _H("Pfingstmontag"),
            _H("Himmelfahrt", word="himmelfahrt"),
            _H("Fronleichnam", word="fronleichnam"),
            _H("Allerheiligen", word="allerheiligen"),
            _H("Tag der Deutschen Einheit", word="deutschen einheit"),
        ),
        ("Weihnachten", "Ostern", "Pfingsten", "Silvester", "Neujahr", "Himmelfahrt"),
    ),
    "nl": LanguageHolidays(
        (
            _H("Kerstmis", word="kerst"),
            _H("Kerstavond"),
            _H("Kerstdag"),
            _H("eerste kerstdag"),
            _H("tweede kerstdag"),
            _H("Oudejaarsavond", word="oudejaars"),
            _H("Oud en Nieuw", word="oud en nieuw"),
            _H("Nieuwjaarsdag", word="nieuwjaar"),
            _H("Pasen", word="pasen"),
            _H("Paaszondag", word="paas"),
            _H("Paasmaandag"),
            _H("Goede Vrijdag", word="goede vrijdag"),
            _H("Pinksteren", word="pinkster"),
            _H("Hemelvaartsdag", word="hemelvaart"),
            _H("Koningsdag", word="koningsdag"),
            _H("Bevrijdingsdag", word="bevrijdingsdag"),
            _H("Sinterklaas", r"Sinterklaas(?:avond)?", "sinterklaas"),
            _H("eerste paasdag"),
            _H("tweede paasdag"),
            _H("eerste pinksterdag"),
            _H("tweede pinksterdag"),
            _H("Moederdag", word="moederdag"),
            _H("Vaderdag", word="vaderdag"),
            _H("Suikerfeest", word="suikerfeest"),
            _H("Offerfeest", word="offerfeest"),
            _H("Kerst"),
            _H("Carnaval", word="carnaval"),
            _H("oudejaarsnacht"),
        ),
        ("Kerstmis", "Pasen", "Pinksteren", "Koningsdag", "Oud en Nieuw", "Hemelvaartsdag"),
    ),
    "sv": LanguageHolidays(
        (
            _H("julafton", word=r"\bjul(?:afton|dag|en\b|helg)|annandag[ \t]{1,2}jul\b"),
            _H("juldagen"),
            _H("annandag jul"),
            _H("nyårsafton", word="nyår"),
            _H("nyårsdagen"),
            _H("påskafton", word="påsk"),
            _H("påskdagen"),
            _H("annandag påsk"),
            _H("långfredagen", word="långfredag"),
            _H("midsommarafton", word="midsommar"),
            _H("midsommardagen"),
            _H("Kristi himmelsfärdsdag", word="himmelsfärd"),
            _H("nationaldagen", word="nationaldag"),
            _H("trettondagen", word="trettondag"),
        ),
        ("julafton", "midsommarafton", "nyårsafton", "påskafton", "nationaldagen", "trettondagen"),
    ),
}


def holiday_regex(lang: str) -> str:
    """The alternation of the written forms of ``lang``'s holidays, in table order (no flags, no boundaries: the
    date rules add ``\\b``, case-insensitivity and a guard against a longer word)."""
    return "|".join(h.pattern for h in HOLIDAYS[lang].holidays)


@memo
def holiday_words() -> re.Pattern[str]:
    """Case-insensitive: the holiday words of every language (search it in a date span's text)."""
    return re.compile("(?i)" + "|".join(h.word for table in HOLIDAYS.values() for h in table.holidays
                                        if h.word is not None))


def holiday_surrogates(lang: str) -> tuple[str, ...]:
    """The holidays a surrogate may write in ``lang`` (English ones for a language without a table)."""
    return HOLIDAYS.get(lang, HOLIDAYS["en"]).surrogates
