"""Text helpers the audit shares: folding, word tokens, whole-word occurrence counts, digit runs and dates.

Everything here is a pure function of its arguments; nothing logs. Dates are normalised to ``(year, month, day)``
triples (``None`` for a part the text does not give) from numeric (``3/4/2019``, ``2019-04-03``, ``04.2019``) and
written forms (``3 de abril de 2019``, ``April 3, 2019``, ``3. April 2019``, ``abril de 2019``) in the five
languages, with month names from Babel (wide and abbreviated), so a date that comes back in another format is
still recognised.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["DateTriple", "count_word", "date_matches", "date_triples", "digit_runs", "digits_of", "fold", "parse_date",
           "word_tokens"]

DateTriple = tuple[int | None, int | None, int | None]

_WORD = re.compile(r"\w+")
_LANGS = ("es", "en", "nl", "sv", "de")


#: the combining-mark blocks (diacritics) that folding removes after NFD
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")


def fold(text: str) -> str:
    """Case- and accent-folded: ``casefold`` then NFD without combining marks (``"García"`` -> ``"garcia"``)."""
    s = text.casefold()
    if s.isascii():
        return s
    return _COMBINING.sub("", unicodedata.normalize("NFD", s))


def word_tokens(text: str) -> list[str]:
    """The ``\\w+`` runs of ``text``, in order."""
    return _WORD.findall(text)


@lru_cache(maxsize=65536)
def _word_pattern(phrase: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)")


def count_word(phrase: str, text: str) -> int:
    """How often ``phrase`` occurs in ``text`` as whole words (not inside a longer word); 0 for an empty phrase."""
    if not phrase.strip():
        return 0
    return sum(1 for _ in _word_pattern(phrase).finditer(text))


_DIGIT_RUN = re.compile(r"\d(?:[ .\-/]?\d)*")


def digits_of(text: str) -> str:
    """The digits of ``text`` in order (``"12.345.678-Z"`` -> ``"12345678"``)."""
    return "".join(c for c in text if c.isdigit())


def digit_runs(text: str) -> list[str]:
    """Runs of digits joined by at most one separator (space, ``.``, ``-``, ``/``), separators removed."""
    return [digits_of(m.group()) for m in _DIGIT_RUN.finditer(text)]


# --- dates ------------------------------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _months() -> dict[str, int]:
    """Folded month names and abbreviations of the five languages -> month number."""
    from babel.dates import get_month_names

    out: dict[str, int] = {}
    for lang in _LANGS:
        for width in ("wide", "abbreviated"):
            for num, name in get_month_names(width, locale=lang).items():
                key = fold(name).rstrip(".")
                if len(key) >= 3:
                    out.setdefault(key, int(num))
    out.setdefault("sept", 9)
    out.setdefault("setiembre", 9)
    return out


@lru_cache(maxsize=1)
def _date_patterns() -> tuple[re.Pattern[str], ...]:
    names = "|".join(sorted((re.escape(m) for m in _months()), key=len, reverse=True))
    month = rf"(?P<mon>{names})\.?"
    return (
        # 2019-04-03, 2019/4/3
        re.compile(r"(?<!\d)(?P<y>\d{4})[./-](?P<m>\d{1,2})[./-](?P<d>\d{1,2})(?!\d)"),
        # 3/4/2019, 03-04-19, 3.4.2019
        re.compile(r"(?<!\d)(?P<a>\d{1,2})[./-](?P<b>\d{1,2})[./-](?P<y>\d{4}|\d{2})(?!\d)"),
        # 04/2019, 4-2019
        re.compile(r"(?<![\d./-])(?P<m>\d{1,2})[./-](?P<y>\d{4})(?![\d./-])"),
        # 3 de abril de 2019, 3 April 2019, 3. April 2019, 3 april 2019
        re.compile(rf"(?<!\d)(?P<d>\d{{1,2}})\.?(?:º|o)?\s+(?:de\s+)?{month}(?:,?\s+(?:de\s+|del\s+)?(?P<y>\d{{4}}))?(?!\w)"),
        # April 3, 2019 / April 3rd 2019
        re.compile(rf"(?<!\w){month}\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?(?:\s+(?P<y>\d{{4}}))?(?!\d)"),
        # abril de 2019, April 2019
        re.compile(rf"(?<!\w){month},?\s+(?:de\s+|del\s+)?(?P<y>\d{{4}})(?!\d)"),
    )


def _year(y: str | None) -> int | None:
    if y is None:
        return None
    v = int(y)
    if len(y) == 2:
        v += 2000 if v < 50 else 1900
    return v


def _valid(t: DateTriple) -> bool:
    y, m, d = t
    return (m is None or 1 <= m <= 12) and (d is None or 1 <= d <= 31) and (y is None or 1800 <= y <= 2200)


def date_triples(text: str, lang: str = "es") -> set[DateTriple]:
    """Every date found in ``text`` as ``(year, month, day)`` (``None`` for a missing part).

    A numeric ``a/b/y`` is read day-first, and also month-first when ``lang`` is ``en`` or when only that reading
    is valid (so both readings of an ambiguous English date are kept)."""
    folded = fold(text)
    months = _months()
    found: set[DateTriple] = set()
    iso, dmy, my, d_mon, mon_d, mon_y = _date_patterns()
    for m in iso.finditer(folded):
        found.add((int(m["y"]), int(m["m"]), int(m["d"])))
    for m in dmy.finditer(folded):
        a, b, y = int(m["a"]), int(m["b"]), _year(m["y"])
        day_first = (y, b, a)
        month_first = (y, a, b)
        if _valid(day_first):
            found.add(day_first)
        if (lang == "en" or not _valid(day_first)) and _valid(month_first):
            found.add(month_first)
    for m in my.finditer(folded):
        found.add((int(m["y"]), int(m["m"]), None))
    for pat in (d_mon, mon_d):
        for m in pat.finditer(folded):
            found.add((_year(m["y"]), months[m["mon"]], int(m["d"])))
    for m in mon_y.finditer(folded):
        found.add((int(m["y"]), months[m["mon"]], None))
    return {t for t in found if _valid(t)}


def parse_date(text: str, lang: str = "es") -> DateTriple | None:
    """The most complete date of ``text`` (a gold date mention), or ``None`` when it holds none."""
    triples = date_triples(text, lang)
    if not triples:
        return None
    return max(triples, key=lambda t: (sum(x is not None for x in t), t[0] or 0, t[1] or 0, t[2] or 0))


def date_matches(gold: DateTriple, candidates: Iterable[DateTriple]) -> bool:
    """True when some candidate agrees with every part ``gold`` gives (a day and month, or a month and year at
    least: a bare year or a bare day says too little to call it the same date)."""
    y, m, d = gold
    if m is None or (y is None and d is None):
        return False
    for cy, cm, cd in candidates:
        if cm != m:
            continue
        if y is not None and cy != y:
            continue
        if d is not None and cd != d:
            continue
        return True
    return False
