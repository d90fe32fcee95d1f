"""Date and time patterns for en, es, nl, sv, de, and the one-pass rule engine the rule modules share.

Engine (:class:`RuleRecognizer`): the named :class:`RulePattern` s of a family are joined into **one**
alternation, compiled once per language and cached, so a text is scanned once per family. At each position the
first pattern (in list order) that matches wins, so the patterns are listed most specific first. Every pattern is
still testable alone (:meth:`RuleRecognizer.only`). A :class:`Context` gives a pattern words that, among the few
words before or after the match, raise or lower its score; matches below ``min_score`` are dropped.

Date spans follow MEDDOCAN practice (``FECHAS``): the date expression without articles or prepositions
(``"12 de diciembre de 2016"``, ``"marzo de 2016"``, ``"12/12/2016"``); Spanish ``"año 2012"`` keeps ``año``.
A bare 4-digit year is a date only with date context (``"en 2015"``, ``"(2014)"``, ``"desde 1983"``, a year
next to it) and never when a unit follows (``"2000 mg"``). Times are a separate recognizer (``time``) with the
same label ``DATE``, because some corpora (MEDDOCAN) do not annotate times.

English notes write a day and month without a year as ``M/D`` ("extubate on 10/19"): ``month_day_numeric``
takes such a pair (month ≤ 12, a day that the month has) and reads the words around it (``_md_adjust``): a date
cue nearer than any measure word ("on", "since", "admitted", "extubated", "d/c", a weekday, a clock time, a range
to another date, a dated line's start) raises it; a ventilator setting, a pain or other score, a murmur grade, a
culture count, a fluid or a dose ("PS 10/5", "pain 8/10", "GCS 3/15", "2/4 bottles", "D5 1/2 NS", "1/2 tab")
drops it, and a common fraction needs a cue. ``M-D`` and ``M.D`` ("extubated 10-19", "admitted 3.9") are ranges and
decimals unless a date cue stands right before them (:func:`_md_sep_adjust`; a dash also takes the cues of a slashed
pair); "the 19th" is a date after a preposition of time, an event verb, a weekday or a clock time, where no noun
makes it a count ("the 3rd day", "the 4th floor"). ``'79`` and ``1/78`` (a month and a year above 31) are dates with a
cue; a four-digit number that is a valid 24-hour time next to a time word or another time is not a year
("CK at 1015 and 1815").

All quantifiers are bounded (``{m,n}``, never ``+`` / ``*``) and a repeated or optional group cannot match the
same characters in two ways, so matching stays linear in the text length (``tests/test_rules_dates_adversarial.py``;
``benchmarks/rules_partA_probe.py --adversarial`` times 1 MB inputs).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from clinanon.caches import memo
from clinanon.detect.base import Detector
from clinanon.detect.engine import Context, RulePattern, RuleRecognizer, words_after, words_before
from clinanon.detect.rules.lexicon import (
    month_forms,
    month_number,
    month_regex,
    trie_regex,
    weekday_forms,
    weekday_regex,
    wide_month_forms,
)
from clinanon.lang import LANGUAGES
from clinanon.lang.holidays import holiday_regex

__all__ = [
    "Context",
    "RulePattern",
    "RuleRecognizer",
    "date_patterns",
    "recognizers",
    "time_patterns",
    "words_after",
    "words_before",
]

_DIGITS = re.compile(r"\d+")

# ---------------------------------------------------------------------------------------------------------
# date vocabulary per language (function words and units; month / weekday names come from lexicon.py)
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _DateLang:
    day_suffix: str  # ordinal marks after a day number
    dm_sep: str  # between day and month name
    my_sep: str  # between month name and year
    md_sep: str = ""  # between month name and day (month-first languages), "" = no month-day patterns
    and_words: str = r"y|e|o|and|or"  # month coordination ("febrero y abril de 2016")
    year_words: tuple[str, ...] = ()  # words that make a following bare year a date
    month_words: tuple[str, ...] = ()  # prepositions that make a following bare month name a date
    date_words: tuple[str, ...] = ()  # words that announce a date ("fecha", "date", "datum")
    year_prefix: str = ""  # a word kept in the span before a year ("año 2012"), "" = none
    capital_months: frozenset[str] = field(default_factory=frozenset)  # forms that need a capital letter


_UNITS = (
    "mg", "g", "gr", "kg", "mcg", "µg", "ug", "ng", "pg", "ml", "cc", "l", "dl", "mm", "cm", "m", "km", "mmol",
    "mol", "meq", "ui", "iu", "u", "ku", "mu", "uds", "unidades", "units", "einheiten", "eenheden", "enheter",
    "kcal", "cal", "h", "hrs", "min", "seg", "sec", "s", "x", "veces", "times", "mal", "keer", "gånger", "ppm",
    "rpm", "lpm", "bpm", "mmhg", "gy", "cgy", "pacientes", "patients", "patienten", "patiënten", "casos", "cases",
    "fälle", "gevallen", "fall", "células", "cells", "zellen", "cellen", "celler", "copias", "copies", "kopien",
    "kopieën", "kopior", "plaquetas", "leucocitos", "hematíes", "euros", "eur", "dólares", "dollars", "kr",
)

#: count words of :data:`_UNITS` ("12 patients"): after a month's name they begin the next phrase
_COUNT_WORDS = frozenset(("pacientes", "patients", "patienten", "patiënten", "casos", "cases", "fälle", "gevallen",
                          "fall", "veces", "times", "mal", "keer", "gånger"))
#: scores written like a short date ("Apgar 8/9/10")
_SCORE_WORDS = ("apgar", "gcs", "emv", "ecog", "nihss")

#: words before "12 de Octubre" that make it a place's name (Hospital Universitario 12 de Octubre)
_PLACE_WORDS = ("hospital", "universitario", "universitari", "calle", "avenida", "avda", "plaza", "paseo",
                "colegio", "instituto", "centro", "c", "street", "avenue", "straat", "gatan", "straße", "strasse")

_LANG: dict[str, _DateLang] = {
    "es": _DateLang(
        day_suffix=r"(?:º|°)?",
        dm_sep=r"\s{1,3}de\s{1,3}|\s{0,2}[-/.]\s{0,2}|\s{1,3}",
        my_sep=r",?\s{1,3}(?:de|del)\s{1,3}(?:año\s{1,3})?|\s{0,2}[-/.,]\s{0,2}|\s{1,3}",
        and_words=r"y|e|o|a",
        year_words=("en", "el", "año", "años", "desde", "hasta", "durante", "entre", "del", "de", "hacia",
                    "finales", "principios", "mediados", "antes", "después", "verano", "invierno", "otoño",
                    "primavera", "y", "o", "a", "al", "fecha", "nacido", "nacida", "ingreso", "since", "in"),
        month_words=("en", "desde", "hasta", "durante", "mes", "finales", "principios", "mediados", "el", "de"),
        date_words=("fecha", "fechas", "día", "el", "nacimiento", "ingreso", "alta", "desde", "hasta"),
        year_prefix=r"año\s{1,3}(?:de\s{1,3})?",
    ),
    "en": _DateLang(
        day_suffix=r"(?:st|nd|rd|th)?",
        # a blank line is no separator ("Pemberton 6\n\nApril 12": a ward's number above a letter's date)
        dm_sep=r"(?:[ \t]{1,3}|[ \t]{0,2}\n[ \t]{0,2})(?:of\s{1,3})?|\s{0,2}[-/.]\s{0,2}",
        my_sep=r",?\s{1,3}(?:of\s{1,3})?|\s{0,2}[-/.,]\s{0,2}|\s{0,2}'",
        md_sep=r"\.?\s{1,3}|\s{0,2}[-/]\s{0,2}",
        and_words=r"and|or|to|&",
        year_words=("in", "since", "from", "until", "till", "to", "during", "year", "early", "late", "mid",
                    "before", "after", "by", "and", "or", "of", "spring", "summer", "autumn", "fall", "winter",
                    "born", "date", "dated", "between", "circa", "ca", "around"),
        month_words=("in", "since", "from", "until", "till", "during", "early", "late", "mid", "by", "of",
                     "last", "next", "this", "on", "thru", "through", "til", "before", "after"),
        date_words=("date", "dated", "on", "dob", "born", "admitted", "discharged", "admission", "discharge"),
        capital_months=frozenset({"may", "mar", "dec"}),  # the modal verb, MAR (medication record), decreased
    ),
    "nl": _DateLang(
        day_suffix=r"(?:e|ste|de)?",
        dm_sep=r"\s{1,3}|\s{0,2}[-/.]\s{0,2}",
        my_sep=r",?\s{1,3}|\s{0,2}[-/.,]\s{0,2}|\s{0,2}'",
        and_words=r"en|of|tot",
        year_words=("in", "sinds", "sedert", "vanaf", "tot", "jaar", "begin", "eind", "midden", "medio", "voor",
                    "na", "en", "of", "tussen", "datum", "geboren", "rond", "omstreeks", "van"),
        month_words=("in", "sinds", "vanaf", "tot", "begin", "eind", "midden", "medio", "half", "van"),
        date_words=("datum", "op", "geboren", "opname", "ontslag", "d.d"),
    ),
    "sv": _DateLang(
        day_suffix=r"(?::?e|:?a)?",
        dm_sep=r"\s{1,3}|\s{0,2}[-/.]\s{0,2}",
        my_sep=r",?\s{1,3}|\s{0,2}[-/.,]\s{0,2}|\s{0,2}'",
        and_words=r"och|eller|till",
        year_words=("i", "år", "året", "sedan", "från", "till", "fram", "under", "början", "slutet", "mitten",
                    "före", "efter", "och", "eller", "mellan", "datum", "född", "omkring", "ca", "våren",
                    "sommaren", "hösten", "vintern"),
        month_words=("i", "sedan", "från", "till", "under", "början", "slutet", "mitten", "av"),
        date_words=("datum", "den", "född", "inskrivning", "utskrivning", "inläggning"),
    ),
    "de": _DateLang(
        day_suffix=r"\.?",
        dm_sep=r"\s{1,3}|\s{0,2}[-/.]\s{0,2}",
        my_sep=r",?\s{1,3}|\s{0,2}[-/.,]\s{0,2}|\s{0,2}'",
        and_words=r"und|oder|bis",
        year_words=("im", "in", "jahr", "jahre", "seit", "von", "bis", "ab", "anfang", "ende", "mitte", "vor",
                    "nach", "und", "oder", "zwischen", "datum", "geboren", "geb", "ca", "um", "frühjahr",
                    "sommer", "herbst", "winter"),
        month_words=("im", "in", "seit", "ab", "bis", "anfang", "ende", "mitte", "von"),
        date_words=("datum", "am", "vom", "geboren", "geb", "aufnahme", "entlassung", "den"),
    ),
}

_DAY = r"(?:0?[1-9]|[12]\d|3[01])"
_MONTH_NUM = r"(?:0?[1-9]|1[0-2])"
_YEAR4 = r"(?:1[89]\d\d|20\d\d|21\d\d)"
_YEAR2 = r"\d\d"
#: no digit, slash, letter or decimal/section dot before a numeric date
_NUM_LEFT = r"(?<![\w/.,-])"
#: nothing numeric continues after it ("1/1/1/1", "12.3.2019.4", "12-12-2019-5" are not dates)
_NUM_RIGHT = r"(?![\w/%]|[.,:-]\d)"


def _numeric_valid(lang: str) -> Callable[[str], bool]:
    """d/m/y or m/d/y (a date written in the other order is still a date), y/m/d, with a plausible year."""
    month_first = True

    def valid(s: str) -> bool:
        raw = _DIGITS.findall(s)
        parts = [int(x) for x in raw]
        if len(parts) != 3:
            return False
        if parts[0] > 31:  # year first
            y, a, b = parts
            return 1 <= a <= 12 and 1 <= b <= 31 and 1800 <= y <= 2199
        a, b, y = parts
        raw_year = raw[2]
        if len(raw_year) == 4 and not 1800 <= y <= 2199:
            return False
        if len(raw_year) not in (2, 4):
            return False
        dm = 1 <= a <= 31 and 1 <= b <= 12
        md = month_first and 1 <= a <= 12 and 1 <= b <= 31
        return dm or md

    return valid


#: weekday names and their abbreviations ("zo 8 okt 2023", "di 14-11", "fre 3/4"), before a date only
_NL_SV_WEEKDAYS: dict[str, str] = {
    "nl": r"maandag|dinsdag|woensdag|donderdag|vrijdag|zaterdag|zondag|maa|din|woe|don|vrij|zat|zon|"
          r"ma|di|wo|do|vr|za|zo",
    "sv": r"måndag|tisdag|onsdag|torsdag|fredag|lördag|söndag|mån|tis|ons|tors|tor|fre|lör|sön|må|ti|on|to|fr|lö|sö",
}
#: Swedish seasons before a year ("hösten 2023", "våren -19")
_SV_SEASONS = r"våren|sommaren|hösten|vintern|vårvintern|försommaren|sensommaren|senhösten"


#: a word between a weekday and its date ("Montag, den 3. März", "lunes, día 3 de marzo"); the languages whose
#: weekday before a date is part of the date span (English notes do not annotate it: "Friday 10/7" has the date
#: "10/7"; the surrogate operator renders such a weekday for the shifted date)
_WEEKDAY_JOINERS = {"es": r"(?:d[ií]a[ \t]{1,2})?", "de": r"(?:de[nm][ \t]{1,2})?"}


def _weekday_date_pattern(lang: str, M: str, D: str, months: str, spec: _DateLang) -> RulePattern:
    """A weekday name before a date, one span ("lunes, 3 de marzo", "Montag, den 03.03.2014", "mié 5 de marzo"),
    so that a surrogate renders the weekday of the shifted date (two spans would keep the old weekday before the
    new date). Spanish and German (Dutch and Swedish: :func:`_nl_sv_patterns`)."""
    sep = rf",?[ \t]{{1,2}}{_WEEKDAY_JOINERS.get(lang, '')}"
    names = [rf"{D}(?:{spec.dm_sep}){months}(?:(?:{spec.my_sep}){_YEAR4})?"]
    if spec.md_sep:
        names.insert(0, rf"{M}(?:{spec.md_sep}){D}(?:st|nd|rd|th)?(?:,?\s{{1,3}}{_YEAR4})?")
    numeric = rf"\d{{1,2}}[-/.]\d{{1,2}}(?:[-/.](?:{_YEAR4}|{_YEAR2}))?"
    # an abbreviation ("Wed", "mié") only before a month name: "sat 3/4 of the day" is no date
    regex = (rf"\b(?:{weekday_regex(lang)}{sep}(?:{'|'.join(names)}|{numeric})"
             rf"|{weekday_regex(lang, abbreviated=True)}{sep}(?:{'|'.join(names)}))")
    valid3 = _numeric_valid(lang)

    def valid(t: str) -> bool:
        raw = _DIGITS.findall(t)
        if len(raw) == 3:
            return valid3(t)
        if len(raw) == 2 and len(raw[1]) <= 2:  # "3/4": a day and a month, in either order
            a, b = int(raw[0]), int(raw[1])
            return (1 <= a <= 31 and 1 <= b <= 12) or (1 <= a <= 12 and 1 <= b <= 31)
        return True

    return RulePattern("weekday_date", first="letter", regex=rf"{regex}(?![\w/%]|[.,:-]\d)",
                       score=0.9, flags=re.IGNORECASE, validator=valid)


_NL_PREGNANCY = re.compile(r"(?i:zwanger|amenorroe|graviditeit|gestatie|termijn|zwangerschapsduur|\bAD\b|\becho\b)")


def _nl_pregnancy_week(text: str, start: int, end: int) -> float:
    """A week of a pregnancy ("Zwangerschapsduur 14+3 weken, echo in week 20") is no date of the calendar."""
    return -0.5 if _NL_PREGNANCY.search(text, max(0, start - 80), start) else 0.0


def _nl_sv_patterns(lang: str, M: str, D: str, months: str, spec: _DateLang) -> list[RulePattern]:
    """Dutch and Swedish date forms: a weekday (or its abbreviation) before a date ("vrijdag 9 februari 2024",
    "zo 8 okt 2023", "di 14-11"); day, month and year separated by spaces ("23 10 2011"); year, month name, day
    ("1999 jan 4"); Swedish "3/4 2022", seasons with a year ("hösten 2023") and six-digit dates after a date word
    ("inskriven 050325")."""
    IC = re.IGNORECASE
    wd = rf"\b(?:{_NL_SV_WEEKDAYS[lang]})\.?,?[ \t]{{1,2}}"
    valid = _numeric_valid(lang)
    dm_num = rf"{_DAY}[-/.]{_MONTH_NUM}(?:[-/.](?:{_YEAR4}|{_YEAR2}))?"
    full = rf"{D}(?:{spec.dm_sep}){months}(?:(?:{spec.my_sep}){_YEAR4}|[ \t]{{1,2}}['’]\d\d(?![\w'’]))?"
    out = [
        RulePattern("weekday_date", first="letter",
                    regex=rf"{wd}(?:{full}|{dm_num})(?![\w/%]|[.,:-]\d)", score=0.9, flags=IC),
        RulePattern("numeric_dmy_spaced", first="digit",
                    regex=_NUM_LEFT + rf"{_DAY}[ \t]{_MONTH_NUM}[ \t]{_YEAR4}" + _NUM_RIGHT,
                    score=0.85, validator=lambda t: valid(t.replace(" ", "-").replace("\t", "-"))),
        RulePattern("year_month_day", first="digit",
                    regex=rf"(?<![\w/.,-]){_YEAR4}[ \t]{{1,2}}{M}\.?[ \t]{{1,2}}{_DAY}(?![\w/%]|[.,:-]\d)",
                    score=0.9, flags=IC),
    ]
    if lang == "nl":
        # a week of a year, one span ("week 36 van 2024", "week 14 (2021)", "wk 3 in 2022"); a week alone is not
        # a date (a pregnancy's "week 20", "over 2 weken")
        week_year = (rf"\b(?:week|wk)\.?[ \t]{{1,2}}(?:[1-9]|[1-4]\d|5[0-3])"
                     rf"(?:[ \t]{{1,2}}(?:van|in|uit)[ \t]{{1,2}}|,[ \t]{{0,2}}|[ \t]{{0,2}}\([ \t]{{0,2}}){_YEAR4}"
                     r"(?:[ \t]{0,2}\))?(?![\w/%]|[.,:-]\d)")
        out.append(RulePattern("week_of_year", first="letter", regex=week_year, score=0.85, flags=IC))
        out += [
            # "7.1.24": day and month of one digit with a two-digit year, after a date word
            RulePattern("dmy_dots_short", first="digit", regex=_NUM_LEFT + rf"{_DAY}\.{_MONTH_NUM}\.{_YEAR2}"
                        + _NUM_RIGHT, score=0.45, validator=valid,
                        context=Context.of(before=spec.date_words, n_before=2, boost=0.3,
                                           before_rx=r"datum[ \t]{0,2}:?[ \t]{0,2}$")),
            # "08 - 05 - 2019": blanks around the separators
            RulePattern("dmy_spaced_separators", first="digit", regex=_NUM_LEFT + rf"{_DAY}[ \t]{{1,2}}[-/][ \t]{{1,2}}"
                        rf"{_MONTH_NUM}[ \t]{{1,2}}[-/][ \t]{{1,2}}{_YEAR4}" + _NUM_RIGHT, score=0.85,
                        validator=lambda t: valid(re.sub(r"[ \t]", "", t))),
            # a two-digit year after a word of time ("sinds '98", "in '05"), its apostrophe in the span
            RulePattern("apostrophe_year_nl", first="letter", regex=r"\b(?i:sinds|in|vanaf|tot|rond|na|voor)[ \t]{1,2}"
                        r"(['’]\d\d)(?![\w'’]|[.,]\d)", group=1, score=0.8),
            # a season of a year ("zomer van 2021", "voorjaar 2019")
            RulePattern("season_year_nl", first="letter", regex=rf"\b(?:voorjaar|lente|zomer|najaar|herfst|winter)"
                        rf"(?:[ \t]{{1,2}}van)?[ \t]{{1,2}}{_YEAR4}\b", score=0.85, flags=IC),
            # the first end of a range to a day and month, a bare day ("van 10 t/m 14 januari", "ma 2 t/m vr 6
            # september", "de nacht van 6 op 7 februari"), a weekday's abbreviation with it
            RulePattern("nl_day_to_month", regex=rf"\b(?:(?:{_NL_SV_WEEKDAYS['nl']})\.?[ \t]{{1,2}})?"
                        rf"{_DAY}(?=[ \t]{{0,2}}(?:-|–|t/m|tot(?:[ \t]en[ \t]met)?|(?<=van[ \t]\d)[ \t]op"
                        rf"|(?<=van[ \t]\d\d)[ \t]op)[ \t]{{0,3}}"
                        rf"(?:(?:{_NL_SV_WEEKDAYS['nl']})\.?[ \t]{{1,2}})?{_DAY}[ \t]{{1,3}}{M})", score=0.8, flags=IC),
            # a week of this year after a word of time ("terugkomen in week 12", "vanaf week 3"); not a pregnancy's
            RulePattern("week_after_word_nl", first="letter", regex=r"\b(?i:in|vanaf|tot|na|rond|uiterlijk|voor)"
                        r"[ \t]{1,2}((?i:week)[ \t]?(?:[1-9]|[1-4]\d|5[0-3]))(?![\w/%+]|[.,:-]\d)"
                        r"(?![ \t]{1,2}(?i:van[ \t]de[ \t]zwangerschap|zwangerschap|amenorroe|ad|postpartum))"
                        r"(?![ \t]{1,2}(?:van|in|uit)[ \t]{1,2}(?:19|20)\d\d|[ \t]{0,2}[,(][ \t]{0,2}(?:19|20)\d\d)",
                        group=1, score=0.75, adjust=_nl_pregnancy_week),
        ]
    if lang == "sv":
        words = "|".join(re.escape(w) for w in (*spec.date_words, "inskriven", "utskriven", "inkom", "opererad",
                                                 "besök", "återbesök", "remiss", "daterad", "undersökt"))
        out += [
            RulePattern("dm_space_year", first="digit",
                        regex=_NUM_LEFT + rf"{_DAY}/{_MONTH_NUM}[ \t]{_YEAR4}" + _NUM_RIGHT, score=0.9),
            RulePattern("season_year", first="letter", regex=rf"\b(?:{_SV_SEASONS})[ \t]{{1,2}}(?:{_YEAR4}|-\d\d)\b",
                        score=0.85, flags=IC),
            # "inskriven 050325", "den 250305": six digits after a date word, a valid yymmdd or ddmmyy
            RulePattern("six_digits", first="letter",
                        regex=rf"\b(?:{words}):?[ \t]{{1,2}}(\d{{6}})(?![\w/%-]|[.,:]\d)", group=1, score=0.8,
                        flags=IC, validator=_six_digit_date),
        ]
    return out


def _six_digit_date(s: str) -> bool:
    """``s`` (six digits) reads as yymmdd or ddmmyy."""
    a, b, c = int(s[:2]), int(s[2:4]), int(s[4:])
    return (1 <= b <= 12 and 1 <= c <= 31) or (1 <= a <= 31 and 1 <= b <= 12)


def _month_token_ok(lang: str, spec: _DateLang) -> Callable[[str], bool]:
    """Reject month forms that are ordinary words unless capitalised (English ``may``)."""
    if not spec.capital_months:
        return lambda s: True
    rx = re.compile(r"[^\W\d_]+")

    def ok(s: str) -> bool:
        for m in rx.finditer(s):
            tok = m.group()
            if month_number(tok, lang) is not None:
                return not (tok.casefold() in spec.capital_months and not tok[0].isupper())
        return True

    return ok


#: words of a past event (a diagnosis, an operation) that make a bare year later in the same line (within 50
#: characters) a date: "Z.n. Appendektomie 1978", "(ED 2009)", "status na CABG 2015", "opererad ... 2019"
_YEAR_EVENT: dict[str, re.Pattern[str]] = {
    "en": re.compile(r"(?<![\w./])(?i:s/p|status[ \t]post|diagnosed|dx|dx'd|h/o|hx|history[ \t]of|pmh|pshx?|"
                     r"cabg(?:[ \t]?x[ \t]?\d)?|quit|stopped|smoking|"
                     r"ptca|pci|stent(?:ed)?|mi|cva|resection|repair|replacement|transplant|surgery|ectomy|"
                     r"amputation|bka|aka|fracture|fx|since|admission|admitted|readmitted|hospitalized|"
                     r"hospitalization|onset|episode|born|died|passed|nsvd|svd|vbac|c-?section|cesarean|widowed|"
                     r"divorced)(?![\w/])"),
    "de": re.compile(r"(?<![\w.])(?:ED|Erstdiagnose|Erstdiagn\.|[ZS]t?\.[ \t]?n\.|Zustand[ \t]nach|(?i:diagnostiziert"
                     r"|operiert|implantiert|entfernt))(?![\w])"),
    "nl": re.compile(r"(?<![\w.])(?i:status[ \t]na|st\.[ \t]?na|s\.p\.|gediagnosticeerd|geopereerd|geïmplanteerd"
                     r"|verwijderd|[a-z]{3,}(?:ectomie|otomie|ostomie|plastiek|scopie))(?![\w])"),
    "sv": re.compile(r"(?<![\w.])(?i:opererad|opererades|diagnostiserad|diagnostiserades|genomgått|genomgick"
                     r"|st\.[ \t]?p\.)(?![\w])"),
}


#: what stands before a year that starts an item of a history (Dutch, Swedish): a line's start, a colon, a
#: comma, a semicolon or a bullet
_LIST_YEAR = {lang: re.compile(r"(?:^|\n|[:;,•\-][ \t]{0,2})[ \t]*\Z") for lang in ("nl", "sv")}
#: a year that starts an item is followed by the item's word ("2008 TURP", "2015 CABG in Isala")
_LIST_YEAR_NEXT = re.compile(r"[ \t]{1,2}[^\W\d_]{2,}|[ \t]{0,2}:[ \t]{0,2}[^\W\d_]{2,}")


def _year_adjust(lang: str) -> Callable[[str, int, int], float]:
    """Extra evidence for a bare year: ``(2014)``, a neighbouring year (``2000 y 2004``), a month before it."""
    spec = _LANG[lang]
    coord = re.compile(rf"(?i:\s{{0,2}}(?:{spec.and_words}|[-–/,])\s{{0,2}})")
    year = re.compile(r"(?<!\d)(?:1[89]\d\d|20\d\d)(?!\d)")

    event = _YEAR_EVENT.get(lang)
    listed = _LIST_YEAR.get(lang)

    def adjust(text: str, start: int, end: int) -> float:
        before = text[max(0, start - 12):start]
        after = text[end:end + 12]
        if before.rstrip().endswith(("(", "[")) and after.lstrip()[:1] in (")", "]", ",", ";"):
            return 0.4
        if listed is not None and listed.search(before) and _LIST_YEAR_NEXT.match(after):
            return 0.2  # a history's item: "Voorgeschiedenis: 2008 TURP, 2015 CABG"
        if event is not None:  # "Z.n. Appendektomie 1978", "(ED 2009)", "opererad med resektion 2019"
            lo = max(0, start - 50)
            line = text.rfind("\n", lo, start) + 1 or lo
            if event.search(text, line, start) is not None:
                return 0.4
        # a year right before ("2000 y 2004", "2010-2012") or right after ("2000 y 2004")
        mb = year.search(before)
        if mb and coord.fullmatch(before[mb.end():]):
            return 0.4
        mc = coord.match(after)
        if mc is not None and year.match(after, mc.end()) is not None:
            return 0.4
        return 0.0

    return adjust


@memo
def _month_regex_en() -> str:
    """:func:`month_regex` of English, an abbreviation's dot kept only where the date or a list of dates goes on
    after it ("Sep. 24", "24 Sep. 2019", "3 Jan. and 5 Feb."); elsewhere it ends the sentence ("admitted 24-Sep.
    Transferred", "24-SEP. PT": read the same in a note typed in capitals, whose re-cased copy has no capitals)."""
    wide = wide_month_forms("en")
    abbrevs = [f for f in month_forms("en") if f not in wide]
    cont = r"[ \t]{0,2}(?:[\d,'’\-–]|(?:and|or|to|through|thru|until|till)\b)"
    return rf"(?:{trie_regex(wide)}\b|{trie_regex(abbrevs)}(?:\.(?={cont})|\b))"


@memo
def date_patterns(lang: str) -> tuple[RulePattern, ...]:
    """The date patterns of ``lang``, most specific first (the order the engine tries them in)."""
    if lang not in _LANG:
        raise ValueError(f"unsupported language {lang!r}; expected one of: {', '.join(LANGUAGES)}")
    spec = _LANG[lang]
    M = _month_regex_en() if lang == "en" else month_regex(lang)
    D = _DAY + spec.day_suffix
    months = rf"{M}(?:\s{{1,3}}(?:{spec.and_words}|,)\s{{1,3}}{M})?"  # "febrero y abril"
    ypre = f"(?:{spec.year_prefix})?" if spec.year_prefix else ""
    space_year = "" if spec.md_sep else r"|\s{1,2}"  # "Agosto 06" unless "March 12" means a day
    IC = re.IGNORECASE
    month_ok = _month_token_ok(lang, spec)
    date_ctx = Context.of(before=spec.date_words, boost=0.15)
    # a score's name before a short d/m/y makes it no date in any language ("Apgar 8/9/10")
    short_ctx = Context.of(before=spec.date_words, neg_before=_SCORE_WORDS, boost=0.15, penalty=0.6, n_before=1)
    # English: "c" of "d/c" is no street ("C/ Mayor"), "s" of "s/p" no second ("d/c 24-Sep", "8-Sep s/p MVA")
    dm_units = tuple(u for u in _UNITS if u != "s") if lang == "en" else _UNITS
    # a count word after a month name is the next phrase's ("op 4 jan gevallen": fallen), not a count of days
    dm_month_units = tuple(u for u in dm_units if u not in _COUNT_WORDS)
    dm_places = tuple(w for w in _PLACE_WORDS if w != "c") if lang == "en" else _PLACE_WORDS
    # English: no blank line between day, month and short year (a ward's number, then a letter's date after a
    # blank line, "... 6\n\nApril 12, 2023", is no "6 April 12")
    dmy_gap = r"(?:[ \t]{1,2}|[ \t]?\n[ \t]?)" if lang == "en" else r"\s{1,2}"
    out: list[RulePattern] = [
        RulePattern("iso_datetime", first="digit", regex=
                    r"(?<![\w/.-])(?:1[89]\d\d|20\d\d)-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
                    # English (HIPAA): a clock time after a blank is no part of the date ("2024-04-08 22:47")
                    rf"(?:[T{'' if lang == 'en' else ' '}](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:[.,]\d{{1,6}})?)?"
                    r"(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?)?(?![\w/-]|[.,:]\d)",
                    score=0.95),
        RulePattern("ymd", first="digit", regex=
                    _NUM_LEFT + rf"{_YEAR4}(?:/{_MONTH_NUM}/{_DAY}|\.{_MONTH_NUM}\.{_DAY}|-{_MONTH_NUM}-{_DAY})"
                    + _NUM_RIGHT,
                    score=0.9, validator=_numeric_valid(lang)),
        # d/m/y (m/d/y in English): 4-digit years with / - . ; 2-digit years with / - or dd.mm.yy
        RulePattern("numeric_dmy", first="digit", regex=
                    _NUM_LEFT + rf"\d{{1,2}}(?: ?/ ?\d{{1,2}} ?/{{1,2}} ?|-\d{{1,2}}-|\.\d{{1,2}}\.){_YEAR4}"
                    + _NUM_RIGHT,
                    score=0.9, validator=_numeric_valid(lang), context=date_ctx),
        RulePattern("numeric_dmy_short", first="digit", regex=
                    # (the year's apostrophe kept: "03-05-'21")
                    _NUM_LEFT + r"(?:\d{1,2} ?/ ?\d{1,2} ?/ ?|\d{1,2}-\d{1,2}-['’]?|\d\d\.\d\d\.)" + _YEAR2
                    + _NUM_RIGHT,
                    score=0.7, validator=_numeric_valid(lang), context=short_ctx,
                    # German: a score's word before it ("APGAR 8/9/10") makes it no date
                    adjust=_de_month_year_adjust if lang == "de" else None),
        # written-out / abbreviated months
        RulePattern("day_month_year", first="digit", regex=
                    rf"\b{D}(?:{spec.dm_sep}){months}(?:{spec.my_sep}){ypre}{_YEAR4}\b",
                    score=0.95, flags=IC, validator=month_ok),
    ]
    if spec.md_sep:
        # a month name, a day and a year: a date whatever its case ("may 16, 2015" in a note typed in lower case)
        out.append(RulePattern("month_day_year", first="letter", regex=
                               rf"\b{M}(?:{spec.md_sep}){D}(?:,?\s{{1,3}}|\s{{0,2}}[-/,]\s{{0,2}}){_YEAR4}\b",
                               score=0.95, flags=IC))
    out += [
        RulePattern("month_year", first="letter", regex=
                    rf"\b{months}(?:{spec.my_sep}){ypre}{_YEAR4}\b",
                    score=0.85, flags=IC, validator=month_ok),
        RulePattern("day_month_year_short", first="digit", regex=
                    rf"\b{D}(?:-|/|\.|{dmy_gap}){M}(?:-|/|\.|{dmy_gap}|\s?'){_YEAR2}(?![\w.,:/-]?\d)",
                    score=0.8, flags=IC, validator=month_ok),
        RulePattern("month_year_short", first="letter", regex=
                    rf"\b{M}(?:-|/|\s?'{space_year}){_YEAR2}(?![\w.,:/-]?\d)",
                    score=0.7, flags=IC, validator=month_ok),
        RulePattern("day_month", first="digit", regex=
                    rf"\b{D}(?:{spec.dm_sep}){months}(?![\w-]?\d)",
                    score=0.75, flags=IC, validator=month_ok,
                    context=Context.of(neg_after=dm_month_units, neg_before=dm_places, n_after=1, n_before=2)),
    ]
    if spec.md_sep:
        out.append(RulePattern("month_day", first="letter", regex=
                               rf"\b{M}(?:{spec.md_sep}){_DAY}(?:st|nd|rd|th)?(?![\w.,:/-]?\d)",
                               score=0.7, flags=IC, validator=month_ok,
                               context=Context.of(neg_after=dm_units, n_after=1)))
    out += [
        RulePattern("month_year_numeric", first="digit", regex=
                    _NUM_LEFT + r"(?:0?[1-9]|1[0-2])[/.-](?:19|20)\d\d" + _NUM_RIGHT,
                    score=0.55,
                    context=Context.of(before=(*spec.date_words, *spec.year_words, *spec.month_words),
                                       neg_before=("dilución", "dilution", "verdünnung", "verdunning",
                                                   "spädning", "título", "titer", "titre", "titulo"),
                                       neg_after=_UNITS, n_after=1, boost=0.3, penalty=0.6)),
    ]
    if spec.year_prefix:
        out.append(RulePattern("year_word", first="letter", regex=rf"\b{spec.year_prefix}{_YEAR4}\b(?![.,]\d)",
                               score=0.85, flags=IC, context=Context.of(neg_after=_UNITS, n_after=1, penalty=0.6)))
    out += [
        # (not 1800-1859: a clock time, "off levo since 1800", never a year of a patient's life)
        RulePattern("year", first="digit", regex=
                    r"(?<![\w.,/-])(?:18[6-9]\d|19\d\d|20\d\d)(?![\w/]|[.,:-]\d)",
                    score=0.35,
                    context=Context.of(before=spec.year_words, neg_after=dm_units, n_before=2, n_after=1,
                                       boost=0.4, penalty=0.8),
                    adjust=(_de_year_adjust(_year_adjust(lang)) if lang == "de"
                            else _year_adjust(lang) if lang != "en"
                            else _with_clock_guard(_en_event_after(_year_adjust(lang))))),
        RulePattern("month_alone", first="letter", regex=rf"\b{month_regex(lang, wide_only=True)}",
                    score=0.3, flags=IC, validator=month_ok,
                    context=Context.of(before=spec.month_words, n_before=1, boost=0.3),
                    adjust=_month_second_adjust if lang == "en" else None),
        # public holidays name a day of the year ("over Christmas"): clinanon.lang.holidays, shared with the
        # surrogates; tried before the weekday, which a holiday may start with ("Jueves Santo", "Good Friday")
        # (with its year: "Kerstmis 2019", "Christmas 2021")
        RulePattern("holiday", first="letter", regex=rf"\b(?:{holiday_regex(lang)})(?:[ \t]{{1,2}}{_YEAR4})?(?![\w'’])",
                    score=0.7, flags=IC),
        RulePattern("weekday", first="letter", regex=  # English: a full name never keeps the sentence's dot
                    rf"\b{trie_regex(weekday_forms(lang))}\b" if lang == "en" else rf"\b{weekday_regex(lang)}",
                    score=0.4, flags=IC,  # (Dutch "op dinsdag": a weekday alone, no date)
                    context=Context.of(before=tuple(w for w in spec.date_words if (lang, w) != ("nl", "op")),
                                       boost=0.2)),
    ]
    out += _partial_date_patterns(lang, spec)
    # year, month and day in eight digits after a date word ("datum 20210403", "Datum: 20190312")
    out.append(RulePattern("compact_ymd", first="digit", regex=
                           _NUM_LEFT + r"(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?![\w/]|[.,:-]\d)",
                           score=0.2, context=Context.of(before=spec.date_words, n_before=2, boost=0.5)))
    if lang in _NL_SV_WEEKDAYS:
        out[:0] = _nl_sv_patterns(lang, M, D, months, spec)
    elif lang in _WEEKDAY_JOINERS:
        out[:0] = [_weekday_date_pattern(lang, M, D, months, spec)]
    if lang == "de":
        out[2:2] = _german_numeric_patterns(M)
    if lang == "en":
        out += _month_day_numeric_en()
    return tuple(out)


# ---------------------------------------------------------------------------------------------------------
# German letters: short and spaced numeric dates, ranges, month/year (``ED 12/17``, ``bis 03/21``), bare years
# ---------------------------------------------------------------------------------------------------------

def _de_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


#: words right before a German ``M/YY`` that make it a measure, a score, a count or a dose, not a month and year:
#: muscle strength ("Kraftgrad 4/5"), lymph nodes ("LK 2/14"), cycles ("Zyklus 3/06"), scales, titres
_DE_MY_NEG_BEFORE = _de_set(
    "kraft kraftgrad kg grad mrc lk lymphknoten zyklus zyklen gcs score punkte pkt tbl tabl tablette tabletten "
    "visus titer titre verdünnung ana stufe dosis mg ml rr blutdruck puls frequenz af hf sättigung sao2 spo2 "
    "ratio verhältnis vas nrs nas schmerz schmerzen schmerzskala gleason tnm stadium "
    "nodi nodes biopsien stanzen stanzbiopsien von "
    # scores and scales written with a slash ("GDS 4/15", "APGAR 8/9/10", "MMSE 16/30")
    "apgar gds mmse mmst moca barthel tinetti hamd bdi phq nihss ecog "
    # pain scales of people who cannot rate their pain ("BESD 3/10", "PAINAD 4/10")
    "besd painad bps zbi doloplus ecpa skala")
#: words right after it that make it a measure or a count ("4/12 LK befallen", "10/20 mg", "2/10 Stanzen")
_DE_MY_NEG_AFTER = _de_set(
    "mg ml g µg mcg ug mmol mmhg cm mm lk lymphknoten befallen tumorbefallen positiv pos negativ neg stanzen "
    "stanzbiopsien biopsien punkte pkt tbl tabl tabletten hub hübe ie i.e einheiten mal x")
_DE_WORD = re.compile(r"[^\s()\[\],;:=/]+")


def _de_words(text: str, start: int, end: int, n: int) -> tuple[list[str], list[str]]:
    """The ``n`` words before ``start`` (nearest first) and after ``end`` on the same line, case-folded, without
    trailing dots."""
    lo = max(0, start - 50)
    line = text.rfind("\n", lo, start) + 1 or lo
    before = [w.casefold().rstrip(".") for w in reversed(_DE_WORD.findall(text, line, start)[-n:])]
    stop = text.find("\n", end, end + 40)
    after = [w.casefold().rstrip(".") for w in _DE_WORD.findall(text, end, stop if stop >= 0 else end + 40)[:n]]
    return [w for w in before if w], [w for w in after if w]


def _de_month_year_adjust(text: str, start: int, end: int) -> float:
    """``M/YY`` in a German letter ("ED 12/17", "Radiojodtherapie 12/14", "bis 03/21") is a month and a year
    unless a measure, score, count or dose word stands right before or after it, or a unit follows."""
    before, after = _de_words(text, start, end, 2)
    if before and (before[0] in _DE_MY_NEG_BEFORE or before[0].replace("-", "") in _DE_MY_NEG_BEFORE):
        return -0.5
    if len(before) > 1 and before[1] in _DE_MY_NEG_BEFORE and before[0] in ("von", "bei", "in", "mit"):
        return -0.5
    if after and (after[0] in _DE_MY_NEG_AFTER or after[0] in _UNITS or after[0][:1] in "%+"):
        return -0.5
    if text[end:end + 1] in ("%", "+"):
        return -0.5
    return 0.0


def _de_year_adjust(adjust: Callable[[str, int, int], float]) -> Callable[[str, int, int], float]:
    """A bare year in a German letter ("Z.n. SHT 1995", "Cholezystektomie 2018", "1990 Tonsillektomie") is a date
    unless a measure word or a sign stands before it (a count: "Thrombozyten 2100", "+1950 ml Bilanz");
    units after it are handled by the pattern's context."""

    def adj(text: str, start: int, end: int) -> float:
        before, _after = _de_words(text, start, end, 1)
        if text[max(0, start - 1):start] in ("+", "~", "<", ">", "=") or (
                before and before[0].rstrip(":") in _DE_YEAR_NEG_BEFORE):
            return adjust(text, start, end)
        return max(adjust(text, start, end), 0.2)

    return adj


#: lab values, counts and amounts that can be four-digit numbers between 1900 and 2099
_DE_YEAR_NEG_BEFORE = _de_set(
    "leuko leukos leukozyten thrombo thrombos thrombozyten ery erys erythrozyten ck ldh ap ggt gamma-gt lipase "
    "amylase bnp nt-probnp ntprobnp ferritin crp pct trinkmenge einfuhr ausfuhr bilanz urin diurese menge "
    "volumen kalorien kcal dosis gesamtdosis max maximal ca circa etwa ungefähr über unter von "
    # identifier labels: "Nr. 2016", "NHC 2016", "Zimmer 2011"
    "nr no nhc mrn id pid fall fallnr zimmer zi station stat haus hausnr plz tel fax kw")


#: left of a German numeric date: what :data:`_NUM_LEFT` allows, or the dash (or slash) of a range right after a
#: digit ("29.09.-02.10.21", "05.11-18.11.2024", "06/07.11.2024"): the second date of a range is its own span
_DE_DASH_LEFT = r"(?:(?<![\w/.,-])|(?<=\d[-–/])|(?<=\d\.[-–]))"
#: the same for month and year ("01/97-10/18", "6-9/19"), without the slash ("3/12/19" is no month and year)
_DE_MY_LEFT = r"(?:(?<![\w/.,-])|(?<=\d[-–]))"


def _german_numeric_patterns(M: str) -> list[RulePattern]:
    """German letter dates the shared patterns leave out: day and month of one digit with a two-digit year
    ("26.1.23"), spaces after the dots ("23. 7. 1951", "30.11. 2033"), month and year ("ED 12/17", "bis 03/21",
    "4/2018"), and both ends of a range as two dates, the annotation practice ("29.09.-02.10.21",
    "05.11-18.11.2024", "06-07.11.2024", "1. - 21. Juli 2022", "01/97-10/18", "6-9/19", "4-5/2021")."""
    D = _DAY
    MO = _MONTH_NUM
    Y = rf"(?:{_YEAR4}|\d\d)"
    right = r"(?![\w/%]|[.,:-]\d)"
    # after a whole date "Fall" is a case number's label ("geb. 28.2.1958, Fall 88217634"), not a count, and "m" the
    # sex of a report's patient line ("geb. 14.12.1952, m"), not metres
    neg_dmy = Context.of(neg_after=tuple(u for u in _UNITS if u not in ("fall", "m")), n_after=1, penalty=0.6)
    return [
        # a two-letter weekday before a numeric date, one span ("Mi, 19.01.2022", "Mo., 03.04.2023", "Fr 3.3.");
        # capitalised only ("so 3.4." is no weekday), and the day and month must be valid
        # a part of a month or a season of a year, one span ("bis Ende Juni", "Anfang März 2022", "im Herbst 2021")
        # (also of a numeric month or a year: "Anfang 04/2019", "bis Ende 2022")
        RulePattern("de_part_of_month", first="letter", regex=
                    rf"\b(?-i:Anfang|Mitte|Ende)[ \t]{{1,2}}(?:{M}(?:[ \t]{{1,2}}{_YEAR4})?(?![\w])"
                    rf"|{MO}/{_YEAR4}{_NUM_RIGHT}|{_YEAR4}{_NUM_RIGHT})", score=0.85,
                    flags=re.IGNORECASE),
        # a calendar week ("in KW 14", "KW 46/2024"): a date of the letter's year
        RulePattern("de_calendar_week", first="letter", regex=
                    r"\b(?-i:KW)[ \t]?(?:0?[1-9]|[1-4]\d|5[0-3])(?:/(?:\d\d){1,2})?(?![\w/,.]\d|[\w/])", score=0.7),
        RulePattern("de_season_year", first="letter", regex=
                    rf"\b(?:Frühjahr|Frühling|Sommer|Herbst|Winter)[ \t]{{1,2}}{_YEAR4}{_NUM_RIGHT}", score=0.8),
        RulePattern("de_weekday_abbr_date", first="letter", regex=
                    rf"\b(?:Mo|Di|Mi|Do|Fr|Sa|So)\.?,?[ \t]{{1,2}}{D}\.[ \t]?{MO}\.(?:[ \t]?{Y})?{_NUM_RIGHT}",
                    score=0.9, validator=_dm_valid),
        # the first end of a range, up to the range mark (the second end is matched on its own)
        RulePattern("de_day_to_month", first="digit", regex=
                    rf"\b{D}\.(?=\s{{0,2}}(?:-|–|bis)\s{{0,3}}{D}\.\s{{0,3}}{M})", score=0.85, flags=re.IGNORECASE),
        # a bare day before a range's or a list's numeric end ("vom 12. bis 19.03.2024", "am 4., 11. und
        # 18.10.2023", "9. bis 13.1."): its own date, as annotated
        RulePattern("de_day_to_dm", first="digit", regex=
                    _NUM_LEFT + rf"{D}\.(?=\s{{0,2}}(?:-|–|bis|und|,)\s{{0,3}}"
                    rf"(?:{D}\.\s{{0,2}}(?:,|und)\s{{0,3}}){{0,8}}{D}\.{MO}\.)", score=0.8),
        # a night or a weekend written with a slash ("Nacht 1 (6./7.5.)", "am 10./11.06.2024"): two dates
        RulePattern("de_day_slash_dm", first="digit", regex=
                    _NUM_LEFT + rf"{D}\.(?=/{D}\.{MO}\.(?:{Y})?{_NUM_RIGHT})", score=0.8),
        RulePattern("de_dm_after_day_slash", first="digit", regex=
                    rf"(?<=\d\./){D}\.{MO}\.(?:{Y})?{_NUM_RIGHT}", score=0.8, validator=_dm_valid),
        RulePattern("de_dm_to_dm", first="digit", regex=
                    _NUM_LEFT + rf"{D}\.{MO}\.?(?=\s{{0,2}}[-–]\s{{0,2}}{D}\.{MO}\.)", score=0.8,
                    validator=_dm_valid),
        RulePattern("de_day_to_dmy", first="digit", regex=
                    _NUM_LEFT + rf"{D}(?=[-/]{D}\.{MO}\.{Y}{_NUM_RIGHT})", score=0.8),
        RulePattern("de_my_to_my", first="digit", regex=
                    _NUM_LEFT + rf"{MO}/\d\d(?=\s{{0,2}}[-–]\s{{0,2}}{MO}/\d\d{right})", score=0.6,
                    adjust=_de_month_year_adjust),
        # "02-04/2021": a range of two-digit months of one year, without spaces, is one date (as annotated);
        # "6-9/19" stays two (the month alone, then month and year)
        RulePattern("de_month_range_my", first="digit", regex=
                    _NUM_LEFT + rf"{_MM2}[-–]{_MM2}/{Y}{right}", score=0.6, adjust=_de_month_year_adjust),
        RulePattern("de_month_to_my", first="digit", regex=
                    _NUM_LEFT + rf"{MO}(?=\s{{0,2}}[-–]\s{{0,2}}{MO}/{Y}{right})", score=0.6,
                    adjust=_de_month_year_adjust),
        # whole dates
        RulePattern("de_dmy_loose", first="digit", regex=
                    _DE_DASH_LEFT + rf"{D}\.(?:{MO}\.{Y}|\s{{1,2}}{MO}\.\s{{0,2}}{_YEAR4}|{MO}\.\s{{1,2}}{_YEAR4})"
                    + _NUM_RIGHT,
                    score=0.85, validator=_numeric_valid("de"), context=neg_dmy),
        RulePattern("de_month_year", first="digit", regex=_DE_MY_LEFT + rf"{MO}/{Y}" + right,
                    score=0.55, adjust=_de_month_year_adjust),
        # a day of this month ("am 3. d. M.", "bis zum 20.d.M.", "d. Mts."): the day and the abbreviation
        RulePattern("de_day_this_month", first="digit", regex=
                    _NUM_LEFT + rf"{D}\.[ \t]?d\.[ \t]?(?:M|Mts?)\.", score=0.85),
    ]


_MM2 = r"(?:0[1-9]|1[0-2])"


def _dm_valid(s: str) -> bool:
    d, m = (int(x) for x in _DIGITS.findall(s)[:2])
    return 1 <= d <= 31 and 1 <= m <= 12


#: a day and month without a year right before a range word and a full date: "vom 3.5. bis 28.6.2022",
#: "14/9 – 22/9/2023"; searched at the end of a partial date
_RANGE_TO: dict[str, re.Pattern[str]] = {
    "de": re.compile(r"\s{0,2}(?:-|–|bis(?:\s{1,2}(?:zum|einschl\.?|einschließlich))?)\s{0,2}\d{1,2}\.\s?\d{1,2}\.",
                     re.IGNORECASE),
    "nl": re.compile(r"\s{0,2}(?:-|–|t/m|tot(?:\s{1,2}en\s{1,2}met)?|en)\s{0,2}\d{1,2}[/-]\d{1,2}", re.IGNORECASE),
    "sv": re.compile(r"\s{0,2}(?:-|–|till|t\.o\.m\.?)\s{0,2}\d{1,2}/\d{1,2}", re.IGNORECASE),
}
#: words before a day + month without a year that make it a date ("am 3.5.", "op 14/9", "den 15/11")
_PARTIAL_WORDS: dict[str, tuple[str, ...]] = {
    "de": ("am", "vom", "seit", "ab", "bis", "zum", "dem", "den", "datum", "zwischen", "heute", "gestern", "morgen",
           "des", "letzte", "letzten", "letztmalig", "zuletzt", "erneut"),
    "nl": ("op", "d.d", "dd", "van", "tot", "sinds", "vanaf", "datum", "t/m", "per", "opgenomen", "opgen", "opname",
           "ontslag", "ontslagen", "laatste", "volgende", "gezien", "controle", "gestart", "gestopt", "geopereerd",
           "overleden", "tm", "vóór", "uiterlijk", "bloedafname", "afname", "controle"),
    "sv": ("den", "från", "till", "sedan", "datum", "t.o.m", "fr.o.m", "opererad", "opererades", "inkom", "utskriven",
           "inskriven"),
}


def _partial_date_patterns(lang: str, spec: _DateLang) -> list[RulePattern]:
    """Day + month without a year (German ``3.5.``, Dutch / Swedish ``14/9``): a date only after a date word
    or before a range to another date (``vom 3.5. bis 28.6.2022``); German, Dutch and Swedish only."""
    if lang not in _RANGE_TO:
        return []
    rng = _RANGE_TO[lang]
    sep = r"\.?\s{0,2}(?:-|–|bis|till|tot|t/m|t\.o\.m\.?" + (r"|en" if lang == "nl" else "") + r")\s{0,2}\Z"
    rng_from = re.compile((r"\d{1,2}\.\s?\d{1,2}" if lang == "de" else r"\d{1,2}[/-]\d{1,2}") + sep, re.IGNORECASE)

    def in_range(text: str, start: int, end: int) -> float:
        if rng.match(text, end) or rng_from.search(text[max(0, start - 24):start]):
            return 0.4
        return 0.0

    shape = (r"\d{1,2}\.\s?\d{1,2}\.(?![\w.,:/-]?\d)" if lang == "de"
             else r"\d{1,2}/\d{1,2}(?![\w/]|[.,:-]\d)")
    neg = _UNITS
    if lang == "nl":  # Dutch also writes a day and month with a dash ("op 24-05", "op 23-1", "van 3-4 t/m 7-4"),
        # not before a duration or a count ("op 2-3 dagen", "1-2 keer")
        # (both of one digit only before a range's end or a punctuation mark: "van 3-4 t/m 7-4", not "op 2-3
        # momenten")
        shape = (rf"(?:{shape}|(?:\d\d-\d{{1,2}}|\d-\d\d)(?![\w/-]|[.,:]\d)"
                 rf"|\d-\d(?![\w/-]|[.,:]\d)(?=[ \t]{{0,2}}(?:t/m|tot|en[ \t]{{1,2}}\d|[.,;:)]|\r?\n|\Z)))")
        neg = (*_UNITS, "dag", "dagen", "week", "weken", "maand", "maanden", "jaar", "jaren", "uur", "uren",
               "minuten", "min", "stuks", "tabletten", "tabl", "x")
    # Dutch "t/m 9/11" (tot en met): a date word the word splitter cannot see
    # German: alone in brackets after what happened ("6. postoperativer Tag (17.10.)", "CT (23.05., 21:18 Uhr)")
    until = {"nl": r"(?<![\w/])t/m\.?[ \t]{0,2}$", "de": r"\([ \t]{0,2}$"}.get(lang)
    return [RulePattern("day_month_numeric", first="digit", regex=_NUM_LEFT + shape, score=0.3,
                        validator=_dm_valid, adjust=in_range,
                        context=Context.of(before=_PARTIAL_WORDS[lang], neg_after=neg, n_before=2, n_after=1,
                                           boost=0.4, penalty=0.8, before_rx=until))]


# ---------------------------------------------------------------------------------------------------------
# English month/day without a year ("extubated 10/19", "as of today 4/16") and clock times that look like years
# ---------------------------------------------------------------------------------------------------------

def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


#: words right before (or after) a number pair that make it a measure, a setting, a score or a fraction, not a
#: date: ventilator settings ("PS 10/5", "CPAP 5/5", "PEEP/PS 5/8"), pain and other scales ("pain 8/10", "GCS
#: 3/15"), murmur grades, muscle strength, pulses, reflexes, blood culture bottles ("cx 2/4"), fluids ("D5 1/2"),
#: doses ("1/2 tab"), and "to" (a setting weaned or changed to: "wean to 5/5"; a range "8/15 to 8/20" is a date)
_MD_NEG_BEFORE = _wordset(
    "ps psv cpap peep bipap simv imv ac prvc vent vents ventilator flowby flow settings setting fio2 pressure "
    "support pain cp score scale rated rating gcs apgar grade murmur sem strength power pulses pulse pedal rales "
    "crackles reflexes cx cxs culture cultures bottles bottle ns d5 d5w tab tabs tablet tablets dose doses bp sbp "
    "dbp map hr ratio i:e ie titer titre dilution mmhg to trial trialed trialled trialing trials sbt sprint sprints "
    "sprinted epap ipap niv mode modes mae grips grasps motor rass cpot bps ramsay "
    "riker sas braden morse total")
_MD_NEG_AFTER = _wordset(
    "ns nss normal saline strength str tab tabs tablet tablets pill pills hr hrs hour hours min mins minute minutes "
    "sec secs wk wks week weeks liter liters litre litres ml cc amp amps mg mcg units pulses pulse murmur sem pain "
    "cp bl blood cx cultures bottles bottle psv ps peep cpap fio2 rr sats sat of fraction dose doses scale gtts gtt "
    "inches cm mm")
#: words a few words before a number pair that say it is a date ("extubated 8/30", "admitted 10/12", "on 9/1")
_MD_CUES_BEFORE = _wordset(
    "on since from until till thru through of by after before dated date today yesterday tonight tomorrow "
    "admitted readmitted admit adm admission extubated extubation extub extubate reintubated intubated "
    "intubation trached d/c dc dc'd d/c'd dced discharged discharge discontinued transferred transfer xfer "
    "s/p sp started start restarted stopped held placed done performed removed inserted pulled changed cultured "
    "signed "
    "began begun onset "
    "dialysis dialyzed hd cath cabg echo cxr ct mri eeg ekg ecg tee surgery op or mi stent stented ptca ablation "
    "note notes bm last next due scheduled planned seen visited died expired arrived born birthday "
    "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun "
    "weekend am pm eve evening morning night noc")
#: cue words that say little alone: a measure word right before them wins ("PSV of 10/5")
_MD_WEAK_CUES = frozenset(("on", "of", "by", "from", "after", "before", "last", "next", "start", "changed"))
_MD_CUES_AFTER = _wordset(
    "cath echo cxr ct mri eeg ekg ecg tee surgery or cabg at @ am pm through thru to until till and admission "
    "note notes shift")
#: measure words that are also things a date is given to ("cx from 7/21", "cultures on 8/30")
_MD_DATED = frozenset(("cx", "cxs", "culture", "cultures"))
#: the same right after a pair: a culture sent that day ("8/14 blood cx grew GPC"; a count is "2/4 bottles")
_MD_DATED_AFTER = frozenset(("bl", "blood", "cx", "cxs", "culture", "cultures"))
#: a result's sign after a pair, not a grade ("2/4+" pulses, "1/2 ++"): "+" alone or with a digit
_MD_PLUS_GRADE = re.compile(r"\+{1,3}\d?\Z")
_RANGE_WORDS = frozenset(("to", "thru", "through", "until", "till", "-", "–"))
#: a common fraction ("1/2 tab", "3/4 of the bag"): a date only with a cue
_FRACTIONS = frozenset(("1/2", "1/3", "2/3", "1/4", "3/4", "1/8", "3/8", "5/8", "7/8", "1/5", "2/5", "1/6"))
_MD_WORD = re.compile(r"[^\s()\[\],;:=]+")
_MD_SHAPE = re.compile(r"(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01])\Z")
#: a clock time with a colon or an am/pm mark ("2am", "6p", "12:30", "7pm")
_CLOCK = re.compile(r"(?i)(?:[01]?\d|2[0-3])(?::[0-5]\d)?(?:a|p|am|pm|a\.m\.?|p\.m\.?)\Z|(?:[01]?\d|2[0-3]):[0-5]\d\Z")
_MILITARY = re.compile(r"(?:[01]\d|2[0-3])[0-5]\d\Z")


def _md_words_before(text: str, start: int, n: int) -> list[str]:
    """The last ``n`` words before ``start`` on the same line (nearest first), case-folded, trailing punctuation
    removed."""
    lo = max(0, start - 60)
    line = text.rfind("\n", lo, start) + 1 or lo
    words = _MD_WORD.findall(text, line, start)[-n:]
    return [w for w in (w.casefold().rstrip(".,;:!?") for w in reversed(words)) if w]


def _md_words_after(text: str, end: int, n: int) -> list[str]:
    stop = text.find("\n", end, end + 40)
    words = _MD_WORD.findall(text, end, stop if stop >= 0 else min(len(text), end + 40))[:n]
    if text[end:end + 1] == "." and text[end + 1:end + 2] in (" ", "\n", "\t", ""):
        return []  # the sentence ends with it
    return [w for w in (w.casefold().rstrip(".,;:!?") for w in words) if w]


def _md_neg(w: str) -> bool:
    return w in _MD_NEG_BEFORE or any(p in _MD_NEG_BEFORE for p in re.split(r"[/+]", w) if p and p != w)


#: a pain or other scale word earlier in the sentence: a later "N/10" is another score of it
_PAIN_BEFORE = re.compile(r"(?i:\b(?:pain|painful|score|scores|rated|rates|nrs|vas|discomfort|ache|aching)\b)"
                          r"[^.\n]{0,70}\Z")


def _md_adjust(text: str, start: int, end: int) -> float:
    """The score change of an English ``M/D``: + with a date cue nearer than any measure word (or a clock time, a
    range to another date, a dated line's start), − with a measure word, a fraction, a number before it ("1 1/2")
    or a unit after it."""
    pair = text[start:end]
    if pair.endswith("/10") and _PAIN_BEFORE.search(text, max(0, start - 80), start):
        before = _md_words_before(text, start, 1)
        if not (before and (before[0] in _MD_STRONG_CUES or before[0] in ("on", "since", "from"))):
            return -0.5  # a pain score of a list ("Pain 4/10 at 0100, 3/10 at 0400"; not "pain since 3/10")
    m, d = (int(x) for x in pair.split("/"))
    if text[start - 1:start] == "." and not text[start - 2:start - 1].isalpha():
        return -0.5  # ".5/10": a decimal, not a date
    frac = pair in _FRACTIONS
    before = _md_words_before(text, start, 3)
    # a unit or a measure word after a comma or a semicolon belongs to the next item ("bacteremia 3/16, amp thru
    # 4/2"), not to this pair
    after = [] if text[end:end + 2].lstrip()[:1] in (",", ";") else _md_words_after(text, end, 2)
    prev = text[start - 1:start]
    if prev == "#" or (prev == "(" and text[end:end + 1] == ")" and d == 10):
        return -0.5  # "#9/10", "(7/10)": a score
    if text[end:end + 1] in ("%", "+") or (after and (after[0][0] == "%" or _MD_PLUS_GRADE.match(after[0]))):
        return -0.5
    if after and after[0] in _MD_NEG_AFTER and not (
            after[0] in _MD_DATED_AFTER and (m > d or d > 6) and "bottles" not in after and "bottle" not in after):
        return -0.5
    for i, w in enumerate(before):
        if i == 0 and w.endswith("%"):
            return -0.5  # "FiO2 50% 5/5": a ventilator setting
        if i < 2 and _MD_SHAPE.match(w) and m > 2 and all(x in ("and", "&") for x in before[:i]) and w != pair:
            pm = int(w.split("/")[0])
            if _md_valid(w) and min((m - pm) % 12, (pm - m) % 12) <= 1 and not _md_score_shaped(w, 0, len(w)):
                return 0.3  # "cultures 10/12, 10/14 and 10/16": a list of dates of the same weeks
        if i == 0 and w.isdigit() and len(w) <= 2 and m < d <= 8:
            return -0.5  # "1 1/2 hr", "received 2 3/4" (not a clock time: "arrived 0710 2/4")
        if w in _RANGE_WORDS and i + 1 < len(before) and _MD_SHAPE.match(before[i + 1]):
            return 0.3  # "8/15 to 8/20"
        if w in ("dose", "doses") and i + 1 < len(before) and before[i + 1] in ("last", "first", "final", "next"):
            return 0.3  # "last dose 1/31": the day of a dose, not a dose
        if _md_neg(w) and (w != "to" or i == 0):
            if w in _MD_DATED and (m > d or d > 6):
                return 0.3  # "blood cx 10/2", "cultures 10/12": a culture's date (a count of bottles is "2/4")
            return -0.5
        if w in _MD_CUES_BEFORE or _CLOCK.match(w) or _MILITARY.match(w) or w.endswith("'d"):
            if (w in _MD_WEAK_CUES and i + 1 < len(before) and _md_neg(before[i + 1]) and before[i + 1] != "to"
                    and not (w in ("from", "on") and before[i + 1] in _MD_DATED)):
                # ("to start 11/16": a verb's "to", not a setting weaned to)
                return -0.5  # "PSV of 10/5", "on PS 5/5" (not "cultures from 8/31": a culture is dated)
            return 0.3
    if after and (after[0] in _MD_CUES_AFTER or _CLOCK.match(after[0]) or _MILITARY.match(after[0])):
        return 0.3
    lo = max(0, start - 24)
    line_start = text.rfind("\n", lo, start) + 1 or (0 if lo == 0 else -1)
    if not frac and line_start >= 0 and not text[line_start:start].strip(" \t(*-"):
        return 0.2  # a dated line: "10/13 CARDIAC CATH: ...", "4/12 CSRU 7P-7A SHIFT SUMMARY"
    return -0.3 if frac else 0.0


#: the denominators of scores and fractions ("5/5" strength, "2/6" murmur, "3/4" pulses, "1/2" NS, "4/10" pain)
_SCORE_DENOMINATORS = frozenset((2, 3, 4, 5, 6, 8, 10))
#: cue words that say a number pair is a date whatever its shape (not "on", "of", "or", "am", "ct"...: those
#: also stand before a score, a setting or a chest tube ("CT", "OR" in capitals))
_MD_STRONG_CUES = _MD_CUES_BEFORE - _wordset(
    "on of by from after before next start changed or ct am pm eve evening morning night noc done held mi op")
_MD_NEARBY = re.compile(r"(?<![\w/.,\-+:])(0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01])(?:/(?:\d\d){1,2})?(?![\w%+])")


#: words right after a dashed or dotted number pair that make it a range or a measure ("on 2-3 L", "since 3-4
#: days", "on 5-10 of levo", "1.5 mg")
_MD_SEP_NEG_AFTER = _wordset(
    "of x times time days day weeks week months month yrs years year hrs hours hour mins minutes l lpm lnc nc liters "
    "mg mcg units u ml cc amps prbc ffp plt plts bags bag beats bpm breaths episodes loose stools doses puffs "
    "tabs tab mmhg mm cm kg lbs lb inches pillows people persons visitors assist assists ppd packs cigarettes "
    "drinks beers glasses cups cans oz")
#: vital signs, lab values and tube sizes before a dashed or dotted pair ("rr 12-20", "cvp 7-8", "pH 7.29")
_MD_SEP_NEG_BEFORE = _wordset(
    "rr hr cvp sbp dbp map temp tmax t bp sat sats spo2 sao2 o2 pap pas pad pcwp wedge ci co svr k na mg ca cl phos "
    "ph pco2 po2 pao2 paco2 hco3 bs fs fsbs glucose bun cr creat hct hgb wbc plt inr ptt uo i/o gtt ett tube size "
    "fr french wt weight temp lactate lac down up")
#: cue words that do not date a dashed number pair ("on 2-4" is a range more often than a date without a unit)
_MD_SEP_WEAK = _wordset("today yesterday tonight tomorrow bm last next note notes")
#: after "on", "since" or "from" a dashed pair is a date only at a clause's end or before one of these words ("on
#: 10-19 at 4pm", "BC from 3-5 grew staph"; not "on 3-4 occasions")
_MD_SEP_OK_AFTER = _wordset(
    "and at @ with for when but until till thru through pt am pm eve evening morning afternoon night noc was were "
    "grew showed revealed is has had who which where while then w w/ c p s/p via per after before in by now - –")


#: events of a history that a month and day right after them date, with no verb between ("stroke 4-8", "CABG
#: 10-19", "MI 3/4"); not fractures ("rib fx 4-8" names ribs) nor measures (a unit or count after the pair wins)
_MD_EVENT_NOUNS = _wordset(
    "stroke strokes cva tia mi ami nstemi stemi imi nqmi cabg ptca pci stent stents stented arrest seizure seizures "
    "dvt bleed gib ugib lgib sah ich sdh bypass surgery amputation transplant resection hospitalization "
    "admission ppm pacer aicd icd avr mvr thoracotomy laparotomy ex-lap colectomy cholecystectomy appendectomy "
    "craniotomy crani vats tracheostomy fall fell injury mva accident overdose")


def _md_sep_adjust(text: str, start: int, end: int) -> float:
    """An English month and day written with a dash or a dot ("extubated 10-19", "since 4.16"): a range or a decimal
    unless a date cue (:data:`_MD_STRONG_CUES`, "on" or "since" before a dash, a clock time, a weekday) stands right
    before it (a dash: one word may stand between), no measure word (:data:`_MD_SEP_NEG_BEFORE`) nearer, and no unit,
    count, tube or further number follows."""
    dot = "." in text[start:end]
    if text[end:end + 1] in ("%", "+", "x", "X") or text[start - 1:start] in ("#", "~", "$"):
        return -0.5
    after = _md_words_after(text, end, 1)
    if after and (after[0] in _MD_NEG_AFTER or after[0] in _MD_SEP_NEG_AFTER or after[0] in _UNITS
                  or (after[0][:1].isdigit() and not (_CLOCK.match(after[0]) or _MILITARY.match(after[0])))):
        return -0.5
    if dot and text[start:end].split(".")[1].endswith("0"):
        return -0.5  # "1.10", "2.20": a decimal written with its trailing zero
    if after and after[0] in ("ett", "tube", "fr", "french", "trach", "shiley", "portex"):
        return -0.5  # "7.5 ETT": a tube's size
    for i, w in enumerate(_md_words_before(text, start, 3)):
        if _md_neg(w) or w in _MD_SEP_NEG_BEFORE:
            return -0.5
        if i == 0 and not dot and w in _MD_EVENT_NOUNS:
            return 0.3  # "stroke 4-8", "CABG 10-19": an event and its date (no unit or count after the pair)
        if i > (0 if dot else 1):
            break  # the cue right before the pair (the word before it too, for a dash)
        if not dot and w in ("on", "since", "from"):
            closed = text[end:end + 1] == ")"  # a bracket closes on it: "(was 21 on 4-3), inr 2.1"
            return 0.3 if not after or closed or after[0] in _MD_SEP_OK_AFTER or _CLOCK.match(after[0]) else -0.5
        if ((w in _MD_STRONG_CUES and w not in _MD_SEP_WEAK) or w.endswith("'d")
                or (not dot and (_CLOCK.match(w) or _MILITARY.match(w)))):
            return 0.3  # (a clock time dates a dotted pair no more: "K+ at 0800 5.9")
    if not dot and after and (_CLOCK.match(after[0]) or _MILITARY.match(after[0])):
        return 0.3
    if not dot and not (any(w in _MD_WEAK_CUES or w in ("or", "am", "pm") for w in _md_words_before(text, start, 3))
                        or (after and after[0] in ("and", "or", "to", "through", "thru", "until", "till"))):
        # the cues of a slashed pair ("extub 5-6, epi weaned 4-17", "10-13 CARDIAC CATH: ..."), not its weak ones
        # ("on", "of"; "and" after it: "unloading 8-12 and"), read in a window around it (bounded work per pair)
        lo, hi = max(0, start - 120), min(len(text), end + 120)
        window = text[lo:start] + text[start:end].replace("-", "/") + text[end:hi]
        if _md_adjust(window, start - lo, end - lo) >= 0.2:
            return 0.3
    return -0.5


def _md_score_shaped(text: str, start: int, end: int) -> bool:
    """A pair read as a score or a fraction ("5/5", "2/6", "3/4", "1/2"): numerator ≤ a common denominator, and
    neither number written with a leading zero (a score is never "09/10" or "2/02": that is a date)."""
    a, b = text[start:end].split("/")
    if (len(a) == 2 and a[0] == "0") or (len(b) == 2 and b[0] == "0"):
        return False
    m, d = int(a), int(b)
    return m <= d and d in _SCORE_DENOMINATORS


def _md_corroborated(text: str, start: int, end: int) -> bool:
    """Another date in the note near this pair (2 000 characters either side) that is not score-shaped itself,
    with a cue or a year, in the same month or the month next to it: ICU notes speak of the days of one stay."""
    month = int(text[start:end].split("/", 1)[0])
    lo, hi = max(0, start - 2000), min(len(text), end + 2000)
    for n, m in enumerate(_MD_NEARBY.finditer(text, lo, hi)):
        if n >= 40:
            break
        a, b = m.span()
        if a == start or (b - a <= 5 and _md_score_shaped(text, a, b) and not _md_strong_cue(text, a, b)):
            continue  # a score-shaped pair corroborates only with a strong cue ("cx from 4/4 ... changed 4/6")
        other = int(m.group(1))
        if min((month - other) % 12, (other - month) % 12) > 1:
            continue
        if text.count("/", a, b) == 2 or (_md_valid(text[a:b]) and _md_adjust(text, a, b) >= 0.2):
            return True
    return False


def _md_strong_cue(text: str, start: int, end: int) -> bool:
    before = _md_words_before(text, start, 3)
    after = _md_words_after(text, end, 1)
    if len(before) > 1 and before[0] in ("from", "on") and before[1] in _MD_DATED:
        return True  # "cultures from 4/4": a culture's date
    return (any(w in _MD_STRONG_CUES or _CLOCK.match(w) or _MILITARY.match(w) or w.endswith("'d") for w in before)
            or bool(after and (_CLOCK.match(after[0]) or _MILITARY.match(after[0])
                               or after[0] in ("am", "pm", "a.m", "p.m"))))  # "repeat 3/3 am": a day's morning


def _md_note_adjust(text: str, start: int, end: int) -> float:
    """:func:`_md_adjust`, lowered for a score-shaped pair ("5/5", "2/6", "3/4") that has no strong date cue
    (:data:`_MD_STRONG_CUES`, a clock time) and no other date of the same weeks near it in the note
    (:func:`_md_corroborated`): such a pair is a strength, a murmur, a pulse grade or a fraction more often than a
    date."""
    adj = _md_adjust(text, start, end)
    if adj < 0 or not _md_score_shaped(text, start, end) or _md_strong_cue(text, start, end):
        return adj
    before = _md_words_before(text, start, 1)
    if before and before[0] in _MD_EVENT_NOUNS:
        return max(adj, 0.0)  # "MI 3/4", "CABG 2/5": an event and its date, not a score
    if _md_corroborated(text, start, end):
        return adj
    return -0.3


def _my_adjust(text: str, start: int, end: int) -> float:
    """:func:`_md_adjust` for a month and a two-digit year above 31 ("fx 5/97", "CA (12/93)"), raised when the
    year is no multiple of ten: dilutions, titres and ratios are round ("1/40", "1/80")."""
    year = int(text[start:end].rsplit("/", 1)[1])
    return _md_adjust(text, start, end) + (0.3 if year % 10 else 0.0)


def _md_valid(s: str) -> bool:
    m, d = (int(x) for x in _DIGITS.findall(s)[:2])
    return 1 <= m <= 12 and 1 <= d <= 31 and not (m == 2 and d > 29) and not (m in (4, 6, 9, 11) and d > 30)


def _md_range_valid(s: str) -> bool:
    m1, d1, m2, d2 = (int(x) for x in _DIGITS.findall(s)[:4])
    return _md_valid(f"{m1}/{d1}") and _md_valid(f"{m2}/{d2}") and (m1, d1) <= (m2, d2) and m2 - m1 <= 2


#: a day of the month as an ordinal after a preposition and "the", where no noun follows ("on the 14th.", "until
#: the 3rd and"; not "on the 3rd day", "to the 4th floor", "the 2nd dose")
_ORDINAL_DAY = (r"(?i:(?<![\w])(?:on|since|until|till|til|by|before|after|from|through|thru|over)"
                r"[ \t]{1,2}the[ \t]{1,2})"
                r"((?:[12]?1st|[12]?2nd|[12]?3rd|(?:[4-9]|1\d|2[04-9]|30)th|31st)(?![\w/%-]))"
                r"(?=[ \t]{0,2}(?:[.,;:)!?\n]|\Z|(?i:and|or|at|in|when|if|with|but|pt|around|@)(?![\w])))")
#: "the" and a day's ordinal where no noun follows, dated by the word before "the" (:func:`_ordinal_cue_adjust`:
#: "admitted the 2nd for", "Monday the 19th at 4pm", "(the 16th)"; not "the 3rd day", "the 2nd dose")
_ORDINAL_DAY_CUED = (r"(?<![\w])(?i:the)[ \t]{1,2}"
                     r"((?i:[12]?1st|[12]?2nd|[12]?3rd|(?:[4-9]|1\d|2[04-9]|30)th|31st)(?![\w/%]))"
                     # no noun after it that makes it a count or a place ("the 3rd day", "the 4th floor")
                     r"(?![ \t]{1,2}(?i:days?|doses?|times?|floors?|fl|attempts?|try|tries|rounds?|cycles?|course|"
                     r"weeks?|wks?|hours?|hrs?|degree|lines?|ribs?|ics|intercostal|space|toes?|fingers?|digits?|nerves?|"
                     r"cranial|grade|trimester|generation|units?|bags?|liters?|sets?|shifts?|nights?|pills?|tabs?|"
                     r"child|baby|admission|hospitalization|episodes?|stage|level|percentile|order|years?|yrs?|"
                     r"months?|visits?|sessions?|pass|sticks?|iv|piv|lumen|port|leads?|one|place|person|party|"
                     r"of(?![ \t]{1,2}(?:last|this|next|the)[ \t]{1,2}month)|"
                     r"time|chance|opinion|step|phase|dose|bottle|set|sample|specimen|culture|unit|bed|room|"
                     r"postop|post-op|pod|hd|icu|ward|ave|avenue|st|street)(?![\w]))")
#: words before "the 2nd" that do not date it ("one of the 3rd", "or the 4th")
_ORDINAL_NOT_CUES = _wordset("of or ct am pm op or")
#: more words before "the 2nd" that date it: events and meetings ("AMI the 29th", "weaned off the 10th", "family
#: meeting the 3rd", "scheduled for the 12th")
_ORDINAL_CUES = _wordset(
    "weaned off ami stroke arrest cva emesis pancultured mtg meeting conference f/u follow for at until till since "
    "from after before by through thru over around about approximately approx to moved rescheduled arrives arriving "
    "arrive returns returning leaves leaving due expected scheduled planned")


def _ordinal_cue_adjust(text: str, start: int, end: int) -> float:
    """+ for "the <ordinal>" after a date cue (an event verb, a weekday, a preposition of time) or inside brackets
    alone ("(the 16th)"), else − (the pattern's score alone is below the threshold)."""
    head = max(text.rfind("the", max(0, start - 6), start), text.rfind("THE", max(0, start - 6), start),
               text.rfind("The", max(0, start - 6), start))
    if head < 0:
        return -0.5
    after = _md_words_after(text, end, 3)
    if (len(after) == 3 and after[0] in ("and", "or", "&") and re.fullmatch(r"\d{1,2}(?:st|nd|rd|th)", after[1])
            and after[2].isalpha() and after[2] not in ("at", "on", "pt", "when", "with", "for", "in")):
        return -0.5  # "the 2nd and 3rd PIV": counted things
    if (text[head - 1:head] == "(" and text[end:end + 1] == ")") or (
            after and (_CLOCK.match(after[0]) or _MILITARY.match(after[0]))):
        return 0.35  # "(the 16th)", "the 26th 0930"
    before = _md_words_before(text, head, 1)
    if before and ((before[0] in _MD_CUES_BEFORE and before[0] not in _ORDINAL_NOT_CUES)
                   or before[0] in _ORDINAL_CUES or before[0].endswith("'d")
                   or _CLOCK.match(before[0]) or _MILITARY.match(before[0])):
        return 0.35  # "admitted the 2nd", "at 2am the 5th"
    return -0.5


#: events of a medical history that notes date with a bare two-digit year ("s/p MI 95", "CABG 98", "09 PTCA")
_HISTORY_EVENTS = (r"(?:nq|st|nst|ns)?(?:wmi|emi)|mi|imi|ami|cabg(?:[ \t]?x[ \t]?\d)?|ptca|pci|stents?|stented|"
                   r"avr|mvr|cva|tia|lap[ \t]chole|chole|appy|cholecystectomy|appendectomy|thr|tkr|cea|aaa[ \t]repair|"
                   r"bka|aka|amputation|orif|tha|tka|lami|laminectomy|turp|mastectomy|lumpectomy|hysterectomy|"
                   r"ppm|aicd|icd|pacer|pacemaker|dx'?d|diagnosed|dx|insulin[ \t]since")
#: the event, then a two-digit year not followed by a unit, a percent or more digits
_EVENT_YEAR_AFTER = (rf"(?<![\w/])(?i:{_HISTORY_EVENTS})(?:[ \t]{{1,2}}(?i:in|on|of))?[ \t]{{1,2}}['’]?(\d\d)"
                     r"(?![\w%/'’]|[.,:-]\d|[ \t]{0,2}(?i:mm|cm|fr|french|x|%|mg|units?|hrs?|days?|min|yo|y/o)"
                     r"(?![\w])|[ \t]?[-/.][ \t]?(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))")
#: a two-digit year at the start of a history item, then the event ("09 PTCA to LCX", "13 stent to LCX")
_EVENT_YEAR_BEFORE = (rf"(?:(?<=[.:;,\n])|(?<=[.:;,\n][ \t])|(?<=[.:;,\n][ \t]{{2}}))['’]?(\d\d)[ \t]{{1,2}}"
                      rf"(?i:{_HISTORY_EVENTS})(?![\w])")


#: English month names written with a capital (a month alone is a date only so: "may", "march" are verbs); the
#: abbreviations leave out "Mar" (MAR, the medication record) and "May" (a full name)
_EN_MONTHS_CAP = r"(?-i:January|February|March|April|May|June|July|August|September|October|November|December)"
_EN_MONTH_ABBR_CAP = r"(?-i:Jan|Feb|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)"
_EN_MONTH_CUE = r"(?<![\w])(?i:in|since|from|until|till|during|early|late|mid|last|next|this|by)[ \t]{1,2}"
#: a month alone after a word of time, abbreviated ("stent in Oct.", "since Feb"), or the second of two months
#: ("in May and June", "from March to July"); no number after it (that is a month and a day or year)
_EN_MONTH_ABBR_ALONE = rf"{_EN_MONTH_CUE}({_EN_MONTH_ABBR_CAP})(?![\w'’])(?!\.?[ \t]?\d)"
#: a month in lower case after "since" / "until" ("falls since jan", "no ETOH since october"); not "mar" (the
#: medication record), "dec" (decreased) nor "may"
_EN_MONTH_LOWER_ALONE = (r"(?<![\w])(?:since|until|till|til|SINCE|UNTIL|TILL)[ \t]{1,2}"
                         r"((?-i:jan|feb|apr|jun|jul|aug|sept?|oct|nov|january|february|march|april|june|july|"
                         r"august|september|october|november|december))(?![\w'’])(?!\.?[ \t]?\d)")
#: "may", "mar" and "dec" in lower case with a day, after a word of time or of a visit, two words between at most
#: ("since mar 2", "f/u in office dec 26"; "dec" alone is "decreased", "may" the modal verb, "mar" the record)
_EN_MONTH_DAY_LOWER_CUED = (r"(?<![\w/])(?i:since|until|till|til|on|from|by|due|thru|through|appt|f/u|fu|seen|"
                            r"starting|started|before|after)[ \t]{1,2}(?:[a-z]{2,10}[ \t]{1,2}){0,2}"
                            r"((?-i:may|mar|dec)\.?[ \t]{1,2}(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?)"
                            r"(?![\w.,:/-]?\d)(?![ \t]{0,2}(?i:mg|mcg|g|gm|ml|cc|units?|u|%|pts?|points?|mm|cm|"
                            r"beats?|bpm|hrs?|hours?|days?|min|mins|x)(?![\w]))")
_EN_FIRST_MONTH_BEFORE = re.compile(rf"{_EN_MONTH_CUE}(?:{_EN_MONTHS_CAP}|{_EN_MONTH_ABBR_CAP})\.?[ \t]{{1,2}}"
                                    r"(?i:and|or|&|to|through|thru|-|–)[ \t]\Z")


def _month_second_adjust(text: str, start: int, end: int) -> float:
    """+ for the second of two months alone after a word of time ("in May and June"), else nothing."""
    return 0.5 if _EN_FIRST_MONTH_BEFORE.search(text, max(0, start - 40), start) else 0.0


#: a range of months and years ("(7/2022-9/2022)", "03/2021 – 11/2021"): one span
_EN_MONTH_YEAR_RANGE = (r"(?<![\w/.,-])(?:0?[1-9]|1[0-2])/(?:19|20)\d\d[ \t]?[-–][ \t]?(?:0?[1-9]|1[0-2])/(?:19|20)\d\d"
                        r"(?![\w/%]|[.,:-]\d)")


def _month_day_numeric_en() -> list[RulePattern]:
    """A month and a day without a year (``10/19``, ``4/16``), US order. In clinical notes such a pair is a date
    about two times in three; what else it is can be told from the words around it (:func:`_md_adjust`): a
    ventilator setting, a pain score, a fraction, a culture count."""
    md = r"(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01])"
    return [RulePattern("month_abbr_cued", first="letter", regex=_EN_MONTH_ABBR_ALONE, group=1, score=0.75),
            RulePattern("month_lower_cued", first="letter", regex=_EN_MONTH_LOWER_ALONE, group=1, score=0.7),
            RulePattern("month_day_lower_cued", first="letter", regex=_EN_MONTH_DAY_LOWER_CUED, group=1, score=0.7),
            RulePattern("month_year_range", first="digit", regex=_EN_MONTH_YEAR_RANGE, score=0.8),
            RulePattern("ordinal_day", first="letter",  # "seen on the 14th.", "visiting until the 20th and"
                        regex=_ORDINAL_DAY, group=1, score=0.6),
            RulePattern("ordinal_day_cued", first="letter",  # "admitted the 2nd for", "Monday the 19th at 4pm"
                        regex=_ORDINAL_DAY_CUED, group=1, score=0.25, adjust=_ordinal_cue_adjust),
            RulePattern("apostrophe_year", first="digit",  # "CABG '79", "'09 PTCA": a year of two digits
                        regex=r"(?<=['’])(?<![a-z\d_'’]['’])\d\d(?![\w%]|['’]\w|[.,:/-]\d)", score=0.6),  # "CA'88" too
            RulePattern("month_year_short_numeric", first="digit",  # "CABG 1/78": a month and a year > 31
                        regex=r"(?<![\w/,\-+:])(?<!\d\.)(?:0?[1-9]|1[0-2])/(?:3[2-9]|[4-9]\d)(?![\w/%+]|[.,:-]\d)",
                        score=0.25, adjust=_my_adjust),
            RulePattern("month_year_glued", first="letter",  # "hip fx4/97", "dx3/95": glued to an abbreviation
                        regex=r"(?<![\w/])[A-Za-z]{2,3}((?:0?[1-9]|1[0-2])/(?:3[2-9]|[4-9]\d))(?![\w/%+]|[.,:-]\d)",
                        group=1, score=0.25, adjust=_my_adjust),
            RulePattern("event_year", first="letter",  # "s/p MI 95", "NQWMI 13", "CABG 98": a history's year
                        regex=_EVENT_YEAR_AFTER, group=1, score=0.55),
            RulePattern("year_event", first="digit",  # "09 PTCA to LCX", "13 stent": the year before the event
                        regex=_EVENT_YEAR_BEFORE, group=1, score=0.55),
            RulePattern("month_day_range", first="digit",
                        regex=rf"(?<![\w/.,\-+:]){md}[ \t]?[-–][ \t]?{md}(?![\w/%+]|[.,:-]\d)",
                        score=0.75, validator=_md_range_valid),
            RulePattern("month_day_dash", first="digit",  # "extubated 10-19", "since 4-16": with a date cue only
                        regex=r"(?<![\w/,\-+:.])(?:0?[1-9]|1[0-2])-(?:0?[1-9]|[12]\d|3[01])(?![\w/%+]|[.,:-]\d)",
                        score=0.25, validator=_md_valid, adjust=_md_sep_adjust),
            RulePattern("month_day_dot", first="digit",  # "extubated 10.19": with a strong date cue only
                        regex=r"(?<![\w/,\-+:.])(?:[1-9]|1[0-2])\.(?:[1-9]|[12]\d|3[01])(?![\w/%+.-]|[,:]\d)",
                        score=0.25, validator=_md_valid, adjust=_md_sep_adjust),
            RulePattern("month_day_numeric", first="digit",  # "10/19", "10/18pm", "10/19/ with"
                        regex=r"(?<![\w/,\-+:])(?<![\d.]\.)(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01])"
                              r"(?:(?=(?i:am|pm)(?!\w))|(?=/(?![\w/]))|(?![\w/%+]|[.,:-]\d))",
                        score=0.55, validator=_md_valid, adjust=_md_note_adjust)]


#: an event of a history right after a year ("1975 PTCA to LCX", "2004 CABG", "1998 resection")
_EVENT_AFTER_YEAR = re.compile(rf"[ \t]{{1,2}}(?i:{_HISTORY_EVENTS}|surgery|resection|repair|transplant|dx|"
                               r"diagnosed|fracture|fx|recurrence|relapse|onset|tah(?:[ \t]?/[ \t]?bso)?|bso|turp|"
                               r"[a-z]{3,}(?:ectomy|otomy|ostomy|plasty))(?![\w])")


#: an event of a history right before a year ("cholecystectomy 1987", "recurrence in 2021", "TAH/BSO 1995",
#: "diagnosed 2019", "ICD placed 2019", "breast CA 1979"): an operation's word (-ectomy, -otomy, -ostomy, -plasty),
#: a device placed, a cancer or a word of a disease's course
_EVENT_BEFORE_YEAR = re.compile(r"(?<![\w/])(?i:[a-z]{3,}(?:ectomy|otomy|ostomy|plasty)|recurrence|recurred|relapse|"
                                r"relapsed|onset|diagnosed|dx|dx'd|tah(?:[ \t]?/[ \t]?bso)?|bso|turp|placed|implanted|"
                                r"inserted|revision|revised|delivery|delivered|cancer|carcinoma|(?-i:CA))"
                                r"[ \t]{1,2}(?:(?i:in|on)[ \t]{1,2})?\Z")


def _event_before_year(text: str, start: int) -> bool:
    return _EVENT_BEFORE_YEAR.search(text, max(0, start - 40), start) is not None


def _en_event_after(adjust: Callable[[str, int, int], float]) -> Callable[[str, int, int], float]:
    """``adjust`` for an English bare year, raised when an event of a history follows it ("1975 PTCA") or comes
    right before it ("cholecystectomy 1987", "recurrence 2021")."""

    def adj(text: str, start: int, end: int) -> float:
        base = adjust(text, start, end)
        if _EVENT_AFTER_YEAR.match(text, end) is not None or _event_before_year(text, start):
            return max(base, 0.4)
        return base

    return adj


def _with_clock_guard(adjust: Callable[[str, int, int], float]) -> Callable[[str, int, int], float]:
    """``adjust`` for bare years, lowered for a 24-hour clock time written without a colon ("CK at 1015 and 1815",
    "given at 8am and 1800", "arrived ~ 1930"): a four-digit number that is a valid time, after a time word or next
    to another time."""

    def guarded(text: str, start: int, end: int) -> float:
        num = text[start:end]
        if _MILITARY.match(num) and not _event_before_year(text, start):
            # the words of the same clause ("May 2024. Born 1931": the year before the full stop is no time)
            before = _md_words_before(text, start, 3)
            clause = re.split(r"[.;]\s", text[max(0, start - 60):start])[-1]
            before = before[:len(_MD_WORD.findall(clause))]
            after = _md_words_after(text, end, 1)
            near = text[max(0, start - 3):start]
            if ("@" in near or "~" in near
                    or any(w in ("at", "around", "approx", "about", "starting") for w in before[:1])
                    or (before[:1] and before[0] in ("until", "till", "til") and num[2:] in ("00", "15", "30", "45"))
                    # "here until 2000": an hour on the quarter (not "worked until 2004")
                    or any(_CLOCK.match(w) or _MILITARY.match(w) for w in before[:2])
                    or (after and (after[0] in ("hrs", "hr", "h", "hours", "shift", "pm", "am", "note", "notes",
                                                "assessment", "vitals", "vs", "labs", "abg", "meds", "dose", "check")
                                   or _MILITARY.match(after[0])))):
                return -0.6
        return adjust(text, start, end)

    return guarded


# ---------------------------------------------------------------------------------------------------------
# times
# ---------------------------------------------------------------------------------------------------------

_TIME_WORDS: dict[str, tuple[tuple[str, ...], str]] = {
    # words that announce a time, and the hour suffixes of the language
    "es": (("a", "las", "sobre", "hacia", "hora", "horas", "desde", "hasta", "entre"), r"h|hs|hrs?|horas?"),
    "en": (("at", "around", "about", "time", "from", "until", "till", "by", "before", "after"), r"h|hrs?|hours?"),
    "nl": (("om", "rond", "tijd", "tijdstip", "vanaf", "tot", "uur"), r"u|uur|h"),
    "sv": (("kl", "klockan", "vid", "tid", "från", "till"), r"h|tim"),
    "de": (("um", "gegen", "ab", "bis", "zeit", "uhrzeit", "von"), r"uhr|h|std"),
}


@memo
def time_patterns(lang: str) -> tuple[RulePattern, ...]:
    """Clock-time patterns of ``lang`` (label ``DATE``)."""
    if lang not in _TIME_WORDS:
        raise ValueError(f"unsupported language {lang!r}; expected one of: {', '.join(LANGUAGES)}")
    words, suffix = _TIME_WORDS[lang]
    IC = re.IGNORECASE
    H24 = r"(?:[01]?\d|2[0-3])"
    ampm = r"(?:a\.\s?m\.|p\.\s?m\.|am\b|pm\b|a\.m\b|p\.m\b)"
    ctx = Context.of(before=words, n_before=2, boost=0.4,
                     neg_before=("igg", "igm", "iga", "título", "titulo", "titer", "titre", "dilución", "dilution",
                                 "ratio", "razón", "verhältnis", "verhouding", "kvot", "ana", "escala", "scale"))
    out = [
        RulePattern("time_ampm", first="digit",
                    regex=rf"(?<![\w.:,])(?<!\d/)(?:0?[1-9]|1[0-2])(?:[:.][0-5]\d)?\s?{ampm}",  # not "8/12 AM"
                    score=0.85, flags=IC),
        # "14:30 h", "14.30 uur", "14h30": minutes required, since "24 h" / "48 horas" are durations
        RulePattern("time_suffix", first="digit",
                    regex=rf"(?<![\w.:,]){H24}[:.h][0-5]\d\s?(?:{suffix})\b(?![.,:]\d)",
                    score=0.7, flags=IC, context=ctx),
        # "14:30": two-digit hours are likely times; "1:40" is more often a titre or a ratio
        RulePattern("time_hhmm", first="digit",
                    regex=r"(?<![\w.:,/])(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?![\w:/]|[.,]\d)",
                    score=0.55, flags=IC, context=ctx),
        RulePattern("time_hmm", first="digit",
                    regex=r"(?<![\w.:,/])\d:[0-5]\d(?::[0-5]\d)?(?![\w:/]|[.,]\d)",
                    score=0.25, flags=IC, context=ctx),
    ]
    if lang == "de":  # German writes no a.m./p.m., and "am" is a preposition ("Zyklus 1 am 06.03.")
        out = [p for p in out if p.name != "time_ampm"]
    if lang == "de":  # "14 Uhr": an hour with "Uhr" is a clock time ("Stunden" is the duration)
        out.insert(1, RulePattern("time_uhr", first="digit", regex=rf"(?<![\w.:,]){H24}\s?Uhr\b", score=0.75,
                                  flags=IC))
    if lang == "sv":
        out.insert(0, RulePattern("time_kl", first="letter",
                                  regex=rf"\bkl\.?\s{{0,2}}({H24}(?:[.:][0-5]\d)?)(?![\w:/]|[.,]\d)",
                                  score=0.85, flags=IC, group=1))
    return tuple(out)


# ---------------------------------------------------------------------------------------------------------
# public factory
# ---------------------------------------------------------------------------------------------------------


@memo
def _date_recognizer(lang: str, min_score: float) -> RuleRecognizer:
    return RuleRecognizer("date", "DATE", date_patterns(lang), min_score=min_score)


@memo
def _time_recognizer(lang: str, min_score: float) -> RuleRecognizer:
    return RuleRecognizer("time", "DATE", time_patterns(lang), min_score=min_score)


def recognizers(lang: str, *, min_score: float = 0.5, times: bool = True) -> list[Detector]:
    """The date recognizer of ``lang`` and (unless ``times=False``) its clock-time recognizer.

    Recognizers are built once per ``(lang, min_score)`` and shared (they hold no per-document state).
    """
    out: list[Detector] = [_date_recognizer(lang, min_score)]
    if times:
        out.append(_time_recognizer(lang, min_score))
    return out
