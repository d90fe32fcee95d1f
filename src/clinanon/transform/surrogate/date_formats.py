"""Reading and writing dates in the format of the original: :func:`parse_date` and :func:`render_date`.

:func:`parse_date` reads numeric dates (``12/03/2005``, ``12-3-05``, ``2005-03-12``, ``12.03.2005``,
``03/2005``, ``12/03``, ``20050312``), dates with month names in the five languages, wide or abbreviated, any
case (``3 de marzo de 2005``, ``March 3rd, 2005``, ``3. März 2005``, ``3 maart 2005``, ``den 3 mars 2005``,
``diciembre-99``, ``Sept. 2005``), weekday names (``lunes, 3 de marzo``) and partial dates (``marzo de 2005``,
``junio``, ``año 2005``, ``2005``). Times (``10:30``) and other words stay as they are. The result keeps a
template of the original: which token is the day, month (number or name, with its CLDR variant, case and
accents) and year (2 or 4 digits), and the zero padding of every number; :func:`render_date` writes any date
back in that template, so ``render(parse(s)) == s`` for every supported format.

Numeric order: ``Y-M-D`` when the first number has 4 digits, and in Swedish also for three 2-digit numbers
joined by hyphens (``13-06-08``, the short ISO form); otherwise day first (``D/M/Y``) for es, nl, sv and de and
month first (``M/D/Y``) for en, unless the values only fit the other order. Two-digit years are
read as 2000-2030 / 1931-1999.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from babel.dates import get_day_names, get_month_names

from clinanon.caches import memo
from clinanon.transform.surrogate._text import apply_case, fold_accents, normalize

__all__ = ["DATE_LOCALES", "ParsedDate", "Piece", "parse_date", "render_date"]

#: CLDR locales whose month and weekday names each language reads and writes
DATE_LOCALES: Mapping[str, tuple[str, ...]] = {
    "es": ("es_ES",), "en": ("en_US", "en_GB"), "nl": ("nl_NL",), "sv": ("sv_SE",), "de": ("de_DE",),
}
_LANGS = tuple(DATE_LOCALES)
_TOKEN = re.compile(r"\d+|[^\W\d_]+|\s+|.", re.UNICODE)
_TIME = re.compile(r"(?<!\d)\d{1,2}[:h]\d{2}(?::\d{2})?(?!\d)")
_EN_ORDINALS = frozenset({"st", "nd", "rd", "th"})
_YEAR_PIVOT = 30  # two-digit years up to 30 are 20xx


# --- month and weekday names ---------------------------------------------------------------------------------

def _strip_dot(s: str) -> str:
    return s.strip().rstrip(".")


@memo(maxsize=16)
def _month_variants(lang: str) -> tuple[dict[int, str], ...]:
    """Month-name variants of ``lang`` in preference order: wide, 3-letter short, CLDR abbreviated."""
    variants: list[dict[int, str]] = []
    locs = DATE_LOCALES[lang]
    for loc in locs:
        for ctx in ("format", "stand-alone"):
            variants.append({m: _strip_dot(n) for m, n in get_month_names("wide", ctx, loc).items()})
    abbr = {m: _strip_dot(n) for m, n in get_month_names("abbreviated", "format", locs[0]).items()}
    variants.append({m: n[:3] for m, n in abbr.items()})
    for loc in locs:
        for ctx in ("format", "stand-alone"):
            variants.append({m: _strip_dot(n) for m, n in get_month_names("abbreviated", ctx, loc).items()})
    return tuple(variants)


@memo(maxsize=16)
def _weekday_variants(lang: str) -> tuple[dict[int, str], ...]:
    variants: list[dict[int, str]] = []
    for width in ("wide", "abbreviated"):
        for loc in DATE_LOCALES[lang]:
            for ctx in ("format", "stand-alone"):
                variants.append({d: _strip_dot(n) for d, n in get_day_names(width, ctx, loc).items()})
    return tuple(variants)


@memo(maxsize=16)
def _name_lookup(lang: str, kind: str) -> dict[str, tuple[int, int]]:
    """Folded name -> (variant index, value), first (preferred) variant wins."""
    variants = _month_variants(lang) if kind == "month" else _weekday_variants(lang)
    out: dict[str, tuple[int, int]] = {}
    for vi, names in enumerate(variants):
        for value, name in names.items():
            out.setdefault(normalize(name), (vi, value))
    return out


def _find_name(word: str, lang: str, kind: str) -> tuple[str, int, int] | None:
    """``(language, variant, value)`` of a month/weekday name, the note's language first, then the others."""
    return _name_lookup_any(lang, kind).get(normalize(word))


@memo(maxsize=16)
def _name_lookup_any(lang: str, kind: str) -> dict[str, tuple[str, int, int]]:
    """The :func:`_name_lookup` tables of ``lang`` and then of the other languages merged (the first wins)."""
    out: dict[str, tuple[str, int, int]] = {}
    for lg in (lang, *(x for x in _LANGS if x != lang)):
        for key, (vi, value) in _name_lookup(lg, kind).items():
            out.setdefault(key, (lg, vi, value))
    return out


# --- parsed dates --------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Piece:
    """One token of a date template. ``kind``: lit, day, month, monthname, year, weekday, ordinal."""

    kind: str
    text: str
    width: int = 0  # numbers: zero-padded width (0: no padding); year: number of digits
    lang: str = ""  # names: language of the name
    variant: int = 0  # names: index into the language's variants
    value: int = 0  # names: the original month (1-12) or weekday (0-6)


@dataclass(frozen=True, slots=True)
class ParsedDate:
    """A date as written: its template and the values it holds (``None`` for a missing part)."""

    pieces: tuple[Piece, ...]
    year: int | None
    month: int | None
    day: int | None

    @property
    def kind(self) -> str:
        """``full``, ``day_month``, ``month_year``, ``month``, ``year`` or ``day``."""
        y, m, d = self.year is not None, self.month is not None, self.day is not None
        if y and m and d:
            return "full"
        if m and d:
            return "day_month"
        if y and m:
            return "month_year"
        if m:
            return "month"
        if y:
            return "year"
        return "day"

    def __repr__(self) -> str:
        return f"ParsedDate(kind={self.kind!r}, pieces={len(self.pieces)})"

    @property
    def date(self) -> dt.date | None:
        if self.kind != "full":
            return None
        return dt.date(self.year, self.month, self.day)  # type: ignore[arg-type]


def _valid(y: int | None, m: int | None, d: int | None) -> bool:
    if m is not None and not 1 <= m <= 12:
        return False
    if d is not None:
        if not 1 <= d <= 31:
            return False
        if m is not None:
            try:
                dt.date(y if y is not None else 2000, m, d)
            except ValueError:
                return False
    return y is None or 1000 <= y <= 2999


def _year_value(text: str) -> int:
    v = int(text)
    if len(text) <= 2:
        return 2000 + v if v <= _YEAR_PIVOT else 1900 + v
    return v


@memo(maxsize=8192, kind="text")
def parse_date(text: str, lang: str = "es") -> ParsedDate | None:
    """Parse ``text`` as one date (see the module docstring); ``None`` when it is not one."""
    if lang not in DATE_LOCALES:
        lang = "en"
    if text.isascii() and _NUMERIC_DATE.fullmatch(text):  # the usual written date: numbers and separators only
        return _parse_numeric(text, lang)
    return _parse_generic(text, lang)


#: a date of numbers and one-character separators (``12/03/2005``, ``2005-03-12``, ``3.12.05``); ASCII digits only
_NUMERIC_DATE = re.compile(r"[0-9]+(?:[/.\-][0-9]+)+")
_NUMERIC_TOKEN = re.compile(r"[0-9]+|.")


def _parse_numeric(text: str, lang: str) -> ParsedDate | None:
    """:func:`_parse_generic` for a text :data:`_NUMERIC_DATE` matches, without its tokenizer and name lookups
    (same result: every token is a number or a one-character separator, none of them a time or a name)."""
    toks = _NUMERIC_TOKEN.findall(text)
    vals = toks[::2]  # numbers and separators alternate, starting and ending with a number
    if len(vals) > 3 or any(len(v) > 4 and len(v) != 8 for v in vals):
        return None
    order = _numeric_order(vals, lang, toks[1] == "-")
    if order is None:
        return None
    y, m, d = _date_values(zip(vals, order))  # noqa: B905 -- same length by construction
    if not _valid(y, m, d) or (d is not None and m is None):
        return None
    roles = {2 * i: r for i, r in enumerate(order)}
    return ParsedDate(_pieces(list(enumerate(toks)), ["num" if i % 2 == 0 else "lit" for i in range(len(toks))],
                              roles, {}, False), y, m, d)


def _numeric_order(vals: list[str], lang: str, dashes: bool = False) -> tuple[str, ...] | None:
    """The roles (``"year"``, ``"month"``, ``"day"``) of the 2 or 3 numbers of a numeric date, in order (see the
    module docstring), or ``None`` when their lengths fit no date. ``dashes``: the numbers are separated by
    hyphens (a Swedish ``YY-MM-DD``)."""
    a, b = int(vals[0]), int(vals[1])
    w0, w1 = len(vals[0]), len(vals[1])
    if len(vals) == 3:
        w2 = len(vals[2])
        if dashes and lang == "sv" and w0 == w1 == w2 == 2 and 1 <= b <= 12 and 1 <= int(vals[2]) <= 31:
            return ("year", "month", "day")
        if w0 == 4 and w1 <= 2 and w2 <= 2:
            return ("year", "month", "day")
        if w0 <= 2 and w1 <= 3 and w2 in (2, 4):
            month_first = (lang == "en" and a <= 12) or (lang != "en" and b > 12 and a <= 12)
            return ("month", "day", "year") if month_first else ("day", "month", "year")
        return None
    if w0 == 4 and w1 <= 2:
        return ("year", "month")
    if w1 == 4 and w0 <= 2:
        return ("month", "year")
    if w0 <= 2 and w1 <= 2:
        month_first = (lang == "en" and a <= 12) or (b > 12 and a <= 12)
        return ("month", "day") if month_first else ("day", "month")
    return None


def _date_values(numbers: Iterable[tuple[str, str]]) -> tuple[int | None, int | None, int | None]:
    """``(year, month, day)`` of number tokens with their roles (``"year"``, ``"month"``, ``"day"``)."""
    y = m = d = None
    for v, r in numbers:
        if r == "year":
            y = _year_value(v)
        elif r == "month":
            m = int(v)
        else:
            d = int(v)
    return y, m, d


def _parse_generic(text: str, lang: str) -> ParsedDate | None:
    """:func:`parse_date` of any text (``lang`` one of :data:`DATE_LOCALES`)."""
    times = [(m.start(), m.end()) for m in _TIME.finditer(text)]
    toks: list[tuple[int, str]] = [(m.start(), m.group()) for m in _TOKEN.finditer(text)]
    kinds: list[str] = []
    names: dict[int, tuple[str, int, int]] = {}
    for i, (pos, t) in enumerate(toks):
        if times and any(a <= pos < b for a, b in times):
            kinds.append("lit")
        elif t.isdigit() and t.isascii():
            kinds.append("num")
        elif t[0].isalpha():
            prev = toks[i - 1][1] if i else ""
            if prev.isdigit() and normalize(t) in _EN_ORDINALS:
                kinds.append("ordinal")
                continue
            hit = _find_name(t, lang, "month")
            if hit is not None and len(t) >= 3:
                kinds.append("monthname")
                names[i] = hit
                continue
            hit = _find_name(t, lang, "weekday")
            if hit is not None and len(t) >= 3:
                kinds.append("weekday")
                names[i] = hit
                continue
            kinds.append("lit")
        else:
            kinds.append("lit")
    nums = [i for i, k in enumerate(kinds) if k == "num"]
    months = [i for i, k in enumerate(kinds) if k == "monthname"]
    if len(months) > 1 or any(len(toks[i][1]) > 4 and len(toks[i][1]) != 8 for i in nums):
        return None
    roles: dict[int, str] = {}
    y = m = d = None
    if months:
        mi = months[0]
        m = names[mi][2]
        big = [i for i in nums if len(toks[i][1]) == 4]
        small = [i for i in nums if len(toks[i][1]) <= 2]
        if len(big) > 1 or len(small) > 2 or len(big) + len(small) != len(nums):
            return None
        if big:
            roles[big[0]] = "year"
            if len(small) > 1:
                return None
            if small:
                roles[small[0]] = "day"
        elif len(small) == 2:
            roles[small[0]], roles[small[1]] = "day", "year"
        elif small:
            s = small[0]
            between = "".join(toks[j][1] for j in range(mi + 1, s)) if s > mi else None
            if int(toks[s][1]) > 31 or (between is not None and between.strip() in ("-", "'", "/", "’", ", '")):
                roles[s] = "year"
            else:
                roles[s] = "day"
    else:
        vals = [toks[i][1] for i in nums]
        seps = {"".join(toks[j][1] for j in range(a + 1, b)) for a, b in itertools.pairwise(nums)}
        if any(s.strip() not in ("/", "-", ".", "") or len(s) > 3 for s in seps):
            return None
        if len(nums) in (2, 3):
            order = _numeric_order(vals, lang, seps == {"-"})
            if order is None:
                return None
            for i, r in zip(nums, order, strict=True):
                roles[i] = r
        elif len(nums) == 1:
            v = vals[0]
            if len(v) == 4 and 1000 <= int(v) <= 2999:
                roles[nums[0]] = "year"
            elif len(v) == 8:
                return _compact(text, toks, kinds, nums[0])
            else:
                return None
        else:
            return None
    y, month, d = _date_values((toks[i][1], r) for i, r in roles.items())
    if month is not None:  # a number read as the month (else the month name's, or none)
        m = month
    if not _valid(y, m, d):
        return None
    if d is not None and m is None:
        return None
    return ParsedDate(_pieces(toks, kinds, roles, names, bool(months)), y, m, d)


def _compact(text: str, toks: list[tuple[int, str]], kinds: list[str], i: int) -> ParsedDate | None:
    """``YYYYMMDD`` (or ``DDMMYYYY`` when that is the only valid reading)."""
    v = toks[i][1]
    for y, m, d, layout in ((int(v[:4]), int(v[4:6]), int(v[6:]), "ymd"), (int(v[4:]), int(v[2:4]), int(v[:2]), "dmy")):
        if 1800 <= y <= 2199 and _valid(y, m, d):
            pieces = [Piece("lit", t) for _, t in toks[:i]]
            pieces.append(Piece("compact_" + layout, v, 8))
            pieces.extend(Piece("lit", t) for _, t in toks[i + 1:])
            return ParsedDate(tuple(pieces), y, m, d)
    return None


@memo(maxsize=4096, kind="text")
def _piece(kind: str, text: str, width: int = 0) -> Piece:
    """``Piece(kind, text, width)``, shared: dates repeat their days, months, years and separators, and pieces are
    immutable (a pure function: cached)."""
    return Piece(kind, text, width)


def _pieces(toks: list[tuple[int, str]], kinds: list[str], roles: dict[int, str],
            names: dict[int, tuple[str, int, int]], written: bool) -> tuple[Piece, ...]:
    dm_widths = [len(toks[i][1]) for i, r in roles.items() if r in ("day", "month")]
    out: list[Piece] = []
    for i, (_, t) in enumerate(toks):
        k = kinds[i]
        if i in roles:
            r = roles[i]
            if r == "year":
                out.append(_piece("year", t, len(t)))
            else:
                if len(t) >= 2 and t.startswith("0"):
                    width = len(t)
                elif len(t) >= 2:
                    others = [w for w in dm_widths if w != len(t)] if len(dm_widths) > 1 else []
                    width = 0 if (written or (others and min(others) == 1)) else len(t)
                else:
                    width = 0
                out.append(_piece(r, t, width))
        elif k in ("monthname", "weekday"):
            lg, vi, value = names[i]
            out.append(Piece(k, t, 0, lg, vi, value))
        elif k == "ordinal":
            out.append(_piece("ordinal", t))
        else:
            out.append(_piece("lit", t))
    return tuple(out)


@memo(maxsize=4096, kind="text")
def _shape_name(original: str, canonical: str, new: str) -> str:
    """``new`` in the case of ``original``; accents dropped only if ``original`` dropped its own (a pure function of
    a few month and weekday names: cached)."""
    out = apply_case(original, new)
    if original.isascii() and not canonical.isascii():
        out = fold_accents(out)
    return out


def _en_ordinal(day: int) -> str:
    if 10 <= day % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def _misread_order(parsed: ParsedDate, day: int | None, lang: str) -> bool:
    """Whether a numeric day and month written in ``parsed``'s order would be read back in the other one: an order
    that only the original's values forced (``"13/3/2005"`` in English, whose default is month first; ``"3/13"`` in
    the other languages) with a new day of at most 12 (``"1/3/2005"`` reads as January 3 in English)."""
    if day is None or day > 12:
        return False
    kinds = [p.kind for p in parsed.pieces if p.kind in ("day", "month", "year")]
    if kinds.count("day") != 1 or kinds.count("month") != 1 or kinds[0] == "year":  # a year first: no doubt
        return False
    return kinds[0] == ("day" if lang == "en" else "month")


def render_date(parsed: ParsedDate, year: int | None, month: int | None, day: int | None,
                weekday: int | None = None, lang: str | None = None) -> str:
    """``parsed``'s template filled with new values (``weekday``: 0 = Monday; ``None`` keeps the original).

    Written so that :func:`parse_date` reads the new values back: a two-digit year whose digits would read in
    another century (:data:`_YEAR_PIVOT`: 2031 is not ``"31"``, which reads as 1931) is written in full; with
    ``lang``, a numeric day and month whose order only the original's values forced (``"13/3/2005"`` in English)
    are written in the language's default order when the new values would be read in that order (a new 1 March
    is ``"3/1/2005"``, not ``"1/3/2005"``, January 3)."""
    # each of the day and the month written in the other's place: read back in the default order
    swapped = lang is not None and month is not None and _misread_order(parsed, day, lang)
    out: list[str] = []
    for p in parsed.pieces:
        kind = p.kind
        if swapped and kind in ("day", "month"):
            kind = "month" if kind == "day" else "day"
        if kind == "lit":
            out.append(p.text)
        elif kind == "year" and year is not None:
            if p.width > 2:
                out.append(str(year).zfill(p.width))
            elif 1900 + _YEAR_PIVOT < year <= 2000 + _YEAR_PIVOT:
                out.append(f"{year % 100:02d}")
            else:
                out.append(str(year))  # its two digits would read in another century
        elif kind == "month" and month is not None:
            out.append(str(month).zfill(p.width) if p.width else str(month))
        elif kind == "day" and day is not None:
            out.append(str(day).zfill(p.width) if p.width else str(day))
        elif kind == "monthname" and month is not None:
            names = _month_variants(p.lang)[p.variant]
            out.append(_shape_name(p.text, names[p.value], names[month]))
        elif kind == "weekday" and weekday is not None:
            names = _weekday_variants(p.lang)[p.variant]
            out.append(_shape_name(p.text, names[p.value], names[weekday]))
        elif kind == "ordinal" and day is not None:
            out.append(apply_case(p.text, _en_ordinal(day)))
        elif kind.startswith("compact_") and None not in (year, month, day):
            ymd = p.kind.endswith("ymd")
            out.append(f"{year:04d}{month:02d}{day:02d}" if ymd else f"{day:02d}{month:02d}{year:04d}")
        else:
            out.append(p.text)
    return "".join(out)


#: a word right before a date span, with an optional dot and comma ("Monday, " of "Monday, March 3")
_WORD_BEFORE = re.compile(r"(?<![\w.])([^\W\d_]{2,12})\.?,?[ \t]{1,2}\Z")


def weekday_before(text: str, start: int, lang: str, original: str, new: str) -> tuple[int, str] | None:
    """For a date span ``text[start:...]`` (``original``) becoming ``new``, written right after a weekday name
    outside the span (``"Monday, "`` + ``"March 3, 2014"``: a detector that leaves the weekday out), ``(where the
    weekday starts, the text from there to the span)`` with the weekday of the new date, in the original's shape;
    ``None`` when no weekday is there, or when its new value cannot be told (a weekday that does not fit the
    original full date is not the date's: left as it is)."""
    if start < 3 or text[start - 1] not in " \t":
        return None
    m = _WORD_BEFORE.search(text, max(0, start - 18), start)
    if m is None:
        return None
    word = m.group(1)
    hit = _find_name(word, lang, "weekday")
    if hit is None:
        return None
    old, now = parse_date(original, lang), parse_date(new, lang)
    if old is None or now is None or old.kind != now.kind or old.kind not in ("full", "day_month"):
        return None
    wd_lang, variant, value = hit
    if old.kind == "full":
        if old.date is None or now.date is None or old.date.weekday() != value:  # type: ignore[union-attr]
            return None
        new_value = now.date.weekday()  # type: ignore[union-attr]
    else:  # a day and a month: the weekday moves by the shift (the shortest way round the year)
        a = dt.date(2001, old.month, min(old.day, 28) if (old.month, old.day) == (2, 29) else old.day)  # type: ignore[arg-type]
        b = dt.date(2001, now.month, min(now.day, 28) if (now.month, now.day) == (2, 29) else now.day)  # type: ignore[arg-type]
        days = (b - a).days
        if days > 183:
            days -= 365
        elif days < -183:
            days += 365
        new_value = (value + days) % 7
    names = _weekday_variants(wd_lang)[variant]
    return m.start(1), _shape_name(word, names[value], names[new_value]) + text[m.end(1):start]
