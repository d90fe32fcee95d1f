"""Date and age surrogates: parse the original format, shift by the scope's offset, render in the same format.

Dates
-----
:func:`parse_date` reads numeric dates (``12/03/2005``, ``12-3-05``, ``2005-03-12``, ``12.03.2005``,
``03/2005``, ``12/03``, ``20050312``), dates with month names in the five languages, wide or abbreviated, any
case (``3 de marzo de 2005``, ``March 3rd, 2005``, ``3. März 2005``, ``3 maart 2005``, ``den 3 mars 2005``,
``diciembre-99``, ``Sept. 2005``), weekday names (``lunes, 3 de marzo``) and partial dates (``marzo de 2005``,
``junio``, ``año 2005``, ``2005``). Times (``10:30``) and other words stay as they are. The result keeps a
template of the original: which token is the day, month (number or name, with its CLDR variant, case and
accents) and year (2 or 4 digits), and the zero padding of every number; :func:`render_date` writes any date
back in that template, so ``render(parse(s)) == s`` for every supported format.

Numeric order: ``Y-M-D`` when the first number has 4 digits; otherwise day first (``D/M/Y``) for es, nl, sv
and de and month first (``M/D/Y``) for en, unless the values only fit the other order. Two-digit years are
read as 2000-2030 / 1931-1999.

Shifting (:func:`surrogate_date`): one offset per scope (``settings.date_shift``, default 7-14 days earlier or
later, never 0), so intervals between full dates of a scope are kept exactly. Partial dates cannot move by days
without sometimes staying equal to the original, so they move by the scope's month offset (month-year, month
only; default 1-2) or year offset (year only; default 1-2), both in the same direction as the day offset;
day-month dates move by the day offset. With ``settings.avoid_collisions`` (the operator turns it on in document
scope) a document whose dates would land on one another's originals (``"mayo de 2002"`` -> ``"junio de 2002"``
while ``"junio de 2002"`` is also in the note; a weekly series shifted by 7 days) takes, component by component,
the first keyed offset that avoids it, widening the range when the defaults cannot (:func:`date_offsets` says
what is guaranteed); the document still has one offset triple, so its intervals are kept. In patient and corpus
scope the offset cannot depend on one document (it must be the same in all of them), so by default nothing is
avoided there. A weekday name is recomputed for the new date. A span that does not parse as a whole is split at
range words (``a``, ``al``, ``to``, ``bis`` ...) and dashes, and 4-digit years in what still does not parse are
moved by the year offset; text without any date stays unchanged.

Ages
----
:func:`surrogate_age` moves the first number of an age (digits or number words in the five languages) by the
scope's age offset (``settings.age_shift``, default 1-2, never 0; chosen per document like the date offsets when
collisions are avoided, see :func:`age_offset`). An age in years above 89 (configurable ``age_cap``, HIPAA Safe
Harbor) becomes ``"90 o más"`` / ``"90 or older"`` / ``"90 of ouder"`` / ``"90 eller
äldre"`` / ``"90 oder älter"``, the unit word kept (``"93 años"`` -> ``"90 años o más"``); an age below the cap
never shifts to or above it.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from babel.dates import get_day_names, get_month_names

from clinanon.caches import memo
from clinanon.transform.surrogate._text import apply_case, fold_accents, normalize
from clinanon.transform.surrogate.scope import GenContext

__all__ = [
    "DATE_LOCALES",
    "Offsets",
    "ParsedDate",
    "Piece",
    "age_offset",
    "date_offsets",
    "number_words",
    "parse_age",
    "parse_date",
    "render_date",
    "scope_offsets",
    "shift_parsed",
    "surrogate_age",
    "surrogate_date",
]

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
    order = _numeric_order(vals, lang)
    if order is None:
        return None
    y, m, d = _date_values(zip(vals, order))  # noqa: B905 -- same length by construction
    if not _valid(y, m, d) or (d is not None and m is None):
        return None
    roles = {2 * i: r for i, r in enumerate(order)}
    return ParsedDate(_pieces(list(enumerate(toks)), ["num" if i % 2 == 0 else "lit" for i in range(len(toks))],
                              roles, {}, False), y, m, d)


def _numeric_order(vals: list[str], lang: str) -> tuple[str, ...] | None:
    """The roles (``"year"``, ``"month"``, ``"day"``) of the 2 or 3 numbers of a numeric date, in order (see the
    module docstring), or ``None`` when their lengths fit no date."""
    a, b = int(vals[0]), int(vals[1])
    w0, w1 = len(vals[0]), len(vals[1])
    if len(vals) == 3:
        w2 = len(vals[2])
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
            order = _numeric_order(vals, lang)
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


def render_date(parsed: ParsedDate, year: int | None, month: int | None, day: int | None,
                weekday: int | None = None) -> str:
    """``parsed``'s template filled with new values (``weekday``: 0 = Monday; ``None`` keeps the original)."""
    out: list[str] = []
    for p in parsed.pieces:
        kind = p.kind
        if kind == "lit":
            out.append(p.text)
        elif kind == "year" and year is not None:
            out.append(f"{year % 100:02d}" if p.width <= 2 else str(year).zfill(p.width))
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


# --- shifting ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Offsets:
    """A document's date offsets: days (full and day-month dates), months (month-year and month-only dates) and
    years (year-only dates), all in the same direction and never 0."""

    days: int
    months: int
    years: int


_MAX_DATES_CHECKED = 300
#: how many magnitudes of each widening tier are tried (keyed order): the whole default range, then keyed samples
#: of the wider ranges (a dense daily series needs a shift longer than the series, a monthly one more months)
_TIER_BUDGET = (None, 48, 64)
_COMBOS = 4  # per component, equally good values combined when a multi-date span (a range) still collides


def _wider(component: str, lo: int, hi: int) -> tuple[int, ...]:
    """Upper bounds of the fallback tiers of one offset component (``lo`` stays the lower bound)."""
    if component == "days":
        return (max(2 * hi, 28), max(hi, 366))
    if component == "months":
        return (max(hi, 6), max(hi, 24))
    if component == "years":
        return (max(hi, 5), max(hi, 20))
    return (max(hi, 5), max(hi, 10))  # ages


def _keyed_tiers(ctx: GenContext, component: str, lo: int, hi: int) -> Iterator[list[int]]:
    """The magnitudes of ``component`` in the scope's keyed order, tier by tier (default range first); each tier
    is drawn on first use only (cached per document: a pure function of the scope and the tier)."""
    top = lo - 1
    for i, upper in enumerate((hi, *_wider(component, lo, hi))):
        if upper <= top:
            continue
        key = f"tier:{component}:{i}"
        tier = ctx.memo.get(key)
        if tier is None:
            values = list(range(top + 1, upper + 1))
            budget = _TIER_BUDGET[min(i, len(_TIER_BUDGET) - 1)]
            stream = ctx.rand.stream("offset-tier", component, str(i))  # the parts' encoding with i an int, too
            tier = ctx.memo[key] = stream.sample(values, budget or len(values))
        top = upper
        yield tier


def scope_offsets(ctx: GenContext) -> Offsets:
    """The scope's own offsets: days (never 0), months and years in the same direction (keyed by scope only)."""
    s = ctx.settings
    stream = ctx.rand.stream("scope-offsets")
    sign = 1 if stream.below(2) else -1
    (dlo, dhi), (mlo, mhi), (ylo, yhi) = s.date_shift, s.month_shift, s.year_shift
    days = dlo + stream.below(dhi - dlo + 1)
    months = mlo + stream.below(mhi - mlo + 1)
    years = ylo + stream.below(yhi - ylo + 1)
    return Offsets(sign * days, sign * months, sign * years)


_KIND_COMPONENT = {"full": "days", "day_month": "days", "month_year": "months", "month": "months", "year": "years"}


class _DateSearch:
    """Collision counts of one document's date spans under candidate offsets (see :func:`date_offsets`).

    A span that parses as one date depends on one component only (days, months or years), so each component is
    searched on its own spans; spans holding several dates (ranges) are checked on whole triples.
    """

    def __init__(self, ctx: GenContext, texts: list[str]) -> None:
        self.ctx = ctx
        self.groups: dict[str, dict[str, int]] = {"days": {}, "months": {}, "years": {}, "multi": {}}
        for t in texts:
            parsed = parse_date(t, ctx.lang)
            group = "multi" if parsed is None else _KIND_COMPONENT.get(parsed.kind)
            if group is not None:
                self.groups[group][t] = self.groups[group].get(t, 0) + 1
        self.cache: dict[tuple[str, int], int] = {}

    def bad(self, text: str, off: Offsets) -> bool:
        """The surrogate of ``text`` under ``off`` reproduces an original of the document (itself included)."""
        new = _surrogate_date_with(text, self.ctx.lang, off)
        return (new != text and self.ctx.leaks(new)) or (new == text and text not in self.groups["multi"])

    def component_cost(self, component: str, value: int, base: Offsets, limit: int | None = None) -> int:
        """Colliding single-date spans of ``component`` when it takes ``value`` (the other components unused).

        With ``limit``, counting may stop as soon as the count exceeds it (the result is then some number
        above ``limit``, not the exact count)."""
        hit = self.cache.get((component, value))
        if hit is None:
            days = value if component == "days" else base.days
            months = value if component == "months" else base.months
            years = value if component == "years" else base.years
            lang, leaks, multi = self.ctx.lang, self.ctx.leaks, self.groups["multi"]
            hit = 0
            for t, n in self.groups[component].items():
                new = _shift_text(t, lang, days, months, years)  # self.bad(t, Offsets(days, months, years)), inlined
                if (new != t and leaks(new)) or (new == t and t not in multi):
                    hit += n
                    if limit is not None and hit > limit:
                        return hit  # a lower bound: not cached
            self.cache[(component, value)] = hit
        return hit

    def multi_cost(self, off: Offsets) -> int:
        return sum(n for t, n in self.groups["multi"].items() if self.bad(t, off))

    def pick(self, component: str, sign: int, first: int, base: Offsets) -> tuple[int, int, list[int]]:
        """(collisions, tier, up to ``_COMBOS`` signed values with that count) of the first value of
        ``component`` in keyed order — the scope's own magnitude ``first``, then tier by tier — that collides
        least (stopping at the first with none)."""
        lo, hi = getattr(self.ctx.settings, {"days": "date_shift", "months": "month_shift",
                                             "years": "year_shift"}[component])
        if not self.groups[component] and not self.groups["multi"]:
            return 0, 0, [sign * first]
        best: tuple[int, int, list[int]] | None = None
        seen = {first}
        tiers = itertools.chain(([first],), ([m for m in tier if m not in seen]
                                             for tier in _keyed_tiers(self.ctx, component, lo, hi)))
        for ti, tier in enumerate(tiers):
            for mag in tier:
                cost = self.component_cost(component, sign * mag, base, None if best is None else best[0])
                if best is None or cost < best[0]:
                    best = (cost, max(ti - 1, 0), [sign * mag])
                elif cost == best[0] and len(best[2]) < _COMBOS:
                    best[2].append(sign * mag)
                if best[0] == 0 and (not self.groups["multi"] or len(best[2]) >= _COMBOS):
                    return best
        assert best is not None
        return best


def date_offsets(ctx: GenContext) -> Offsets:
    """The date offsets of the current document: days (never 0), months and years in the same direction.

    Without ``settings.avoid_collisions``: always the scope's offsets (:func:`scope_offsets`), so every date of
    every document of the scope moves by the same amounts.

    With it (the operator's default in document scope), the scope's offsets are kept unless a date surrogate of
    the document would reproduce an original of the document (``"mayo de 2002"`` moved onto another span's
    ``"junio de 2002"``, a shifted ``"3/5/2005"`` onto another ``"10/5/2005"``, a month-only ``"junio"`` moved
    back to itself by 12 months). Then each component is chosen on its own, in the scope's keyed order: the
    scope's magnitude, the rest of the configured range, then keyed samples of wider ranges (days up to 2x the
    maximum / 28, then 366; months up to 6, then 24; years up to 5, then 20): the first value under which none of
    the document's dates of that kind collides, else the one with the fewest collisions; the scope's direction is
    kept unless the other one collides less or stays in a narrower range. Ranges holding several dates are
    checked on the combined offsets. Guarantees: one offset triple per document (intervals between any two full
    dates of the document, and between any two month-year dates, are unchanged), a pure function of (key,
    scope, the document's span texts); no collision whenever some value in the tried ranges avoids all.
    Cached per document.
    """
    memo = ctx.memo
    cached = memo.get("date_offsets")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    chosen = scope_offsets(ctx)
    if ctx.settings.avoid_collisions:
        idx = (ctx._tables or ctx._doc_tables()).by_type.get("DATE")
        if idx:
            spans, doc = ctx.spans, ctx.doc
            text = doc.text if doc is not None else ""
            texts = [text[spans[i].start:spans[i].end] if doc is not None else "" for i in idx[:_MAX_DATES_CHECKED]]
            if _collides(ctx, texts, chosen):
                chosen = _search_offsets(_DateSearch(ctx, texts), chosen)
    memo["date_offsets"] = chosen
    return chosen


def _collides(ctx: GenContext, texts: list[str], off: Offsets) -> bool:
    """Whether :meth:`_DateSearch.bad` holds for some text of ``texts`` under ``off`` (the texts that parse as a
    date of a kind no component shifts are not checked), without building the search tables."""
    lang = ctx.lang
    days, months, years = off.days, off.months, off.years
    leaks = ctx.leaks
    for t in dict.fromkeys(texts):
        parsed = parse_date(t, lang)
        if parsed is not None and parsed.kind not in _KIND_COMPONENT:
            continue
        new = _shift_text(t, lang, days, months, years)
        if new == t:
            if parsed is not None:
                return True
        elif leaks(new):
            return True
    return False


def _search_offsets(search: _DateSearch, first: Offsets) -> Offsets:
    ranked: list[tuple[tuple[int, int, int], Offsets]] = []
    scope_sign = 1 if first.days > 0 else -1
    for flip, sign in enumerate((scope_sign, -scope_sign)):
        picks = {c: search.pick(c, sign, abs(getattr(first, c)), first) for c in ("days", "months", "years")}
        cost = sum(p[0] for p in picks.values())
        tier = max(p[1] for p in picks.values())
        best_off = Offsets(*(picks[c][2][0] for c in ("days", "months", "years")))
        if search.groups["multi"]:
            best_extra: int | None = None
            for o in (Offsets(d, m, y) for d in picks["days"][2] for m in picks["months"][2]
                      for y in picks["years"][2]):
                extra = search.multi_cost(o)
                if best_extra is None or extra < best_extra:  # the first combination with the fewest collisions
                    best_extra, best_off = extra, o
                    if extra == 0:
                        break
            cost += best_extra or 0
        ranked.append(((cost, tier, flip), best_off))
        if cost == 0 and tier == 0:
            break
    return min(ranked, key=lambda x: x[0])[1]


def shift_parsed(parsed: ParsedDate, off: Offsets) -> tuple[int | None, int | None, int | None, int | None]:
    """New ``(year, month, day, weekday)`` for a parsed date (see the module docstring)."""
    return _shift_values(parsed, off.days, off.months, off.years)


def _shift_values(parsed: ParsedDate, days: int, months: int, years: int
                  ) -> tuple[int | None, int | None, int | None, int | None]:
    """:func:`shift_parsed` with the offsets as numbers."""
    kind = parsed.kind
    y, m, d = parsed.year, parsed.month, parsed.day
    wd: int | None = None
    if kind == "full":
        new = dt.date(y, m, d) + dt.timedelta(days=days)  # type: ignore[arg-type]
        return new.year, new.month, new.day, new.weekday()
    if kind == "day_month":
        ref = 2000 if (m, d) == (2, 29) else 2001
        new = dt.date(ref, m, d) + dt.timedelta(days=days)  # type: ignore[arg-type]
        if any(p.kind == "weekday" for p in parsed.pieces):
            old_wd = next(_find_name(p.text, p.lang, "weekday") for p in parsed.pieces if p.kind == "weekday")
            wd = (old_wd[2] + days) % 7 if old_wd else None
        return None, new.month, new.day, wd
    if kind == "month_year":
        total = y * 12 + (m - 1) + months  # type: ignore[operator]
        return total // 12, total % 12 + 1, None, None
    if kind == "month":
        return None, (m - 1 + months) % 12 + 1, None, None  # type: ignore[operator]
    if kind == "year":
        return y + years, None, None, None  # type: ignore[operator]
    return y, m, d, None


_RANGE_SPLIT = re.compile(
    r"(\s+(?:a|al|y|e|hasta|to|and|until|till|through|bis|und|tot|en|och|tom|t\.o\.m\.)\s+|\s*[–—]\s*|\s+-\s+)",
    re.IGNORECASE,
)
_DASH_SPLIT = re.compile(r"(-)")
_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|2[01]\d\d)(?!\d)")


def _shift_one(text: str, lang: str, days: int, months: int, years: int) -> str | None:
    parsed = parse_date(text, lang)
    if parsed is None:
        return None
    return render_date(parsed, *_shift_values(parsed, days, months, years))


def surrogate_date(text: str, ctx: GenContext) -> str:
    """The shifted date (see the module docstring); ``text`` itself when it holds no date."""
    return _surrogate_date_with(text, ctx.lang, date_offsets(ctx))


def _surrogate_date_with(text: str, lang: str, off: Offsets) -> str:
    """``text`` with every date in it moved by ``off`` (a pure function: cached, so the collision check of
    :func:`date_offsets` and the surrogate itself share the work)."""
    return _shift_text(text, lang, off.days, off.months, off.years)


@memo(maxsize=1 << 15, kind="text")
def _shift_text(text: str, lang: str, days: int, months: int, years: int) -> str:
    whole = _shift_one(text, lang, days, months, years)
    if whole is not None:
        return whole
    out = []
    for piece in _RANGE_SPLIT.split(text):
        if not piece or _RANGE_SPLIT.fullmatch(piece):
            out.append(piece)
            continue
        shifted = _shift_one(piece, lang, days, months, years)
        if shifted is None and "-" in piece:
            parts = _DASH_SPLIT.split(piece)
            subs = [p if p == "-" else _shift_one(p, lang, days, months, years) for p in parts]
            if all(s is not None for s in subs):
                shifted = "".join(subs)  # type: ignore[arg-type]
        if shifted is None:
            shifted = _YEAR.sub(lambda mt: str(int(mt.group()) + years), piece)
        out.append(shifted)
    return "".join(out)


# --- ages -----------------------------------------------------------------------------------------------------

_ES_UNITS = ["cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez", "once",
             "doce", "trece", "catorce", "quince", "dieciséis", "diecisiete", "dieciocho", "diecinueve", "veinte",
             "veintiuno", "veintidós", "veintitrés", "veinticuatro", "veinticinco", "veintiséis", "veintisiete",
             "veintiocho", "veintinueve"]
_ES_TENS = {3: "treinta", 4: "cuarenta", 5: "cincuenta", 6: "sesenta", 7: "setenta", 8: "ochenta", 9: "noventa"}
_EN_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
             "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_EN_TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"}
_DE_UNITS = ["null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn", "elf",
             "zwölf", "dreizehn", "vierzehn", "fünfzehn", "sechzehn", "siebzehn", "achtzehn", "neunzehn"]
_DE_TENS = {2: "zwanzig", 3: "dreißig", 4: "vierzig", 5: "fünfzig", 6: "sechzig", 7: "siebzig", 8: "achtzig",
            9: "neunzig"}
_NL_UNITS = ["nul", "een", "twee", "drie", "vier", "vijf", "zes", "zeven", "acht", "negen", "tien", "elf",
             "twaalf", "dertien", "veertien", "vijftien", "zestien", "zeventien", "achttien", "negentien"]
_NL_TENS = {2: "twintig", 3: "dertig", 4: "veertig", 5: "vijftig", 6: "zestig", 7: "zeventig", 8: "tachtig",
            9: "negentig"}
_SV_UNITS = ["noll", "ett", "två", "tre", "fyra", "fem", "sex", "sju", "åtta", "nio", "tio", "elva", "tolv",
             "tretton", "fjorton", "femton", "sexton", "sjutton", "arton", "nitton"]
_SV_TENS = {2: "tjugo", 3: "trettio", 4: "fyrtio", 5: "femtio", 6: "sextio", 7: "sjuttio", 8: "åttio", 9: "nittio"}


def _spell(n: int, lang: str) -> str:
    if lang == "es":
        if n < 30:
            return _ES_UNITS[n]
        t, u = divmod(n, 10)
        return _ES_TENS[t] + (f" y {_ES_UNITS[u]}" if u else "")
    units, tens = {"en": (_EN_UNITS, _EN_TENS), "de": (_DE_UNITS, _DE_TENS), "nl": (_NL_UNITS, _NL_TENS),
                   "sv": (_SV_UNITS, _SV_TENS)}[lang]
    if n < 20:
        return units[n]
    t, u = divmod(n, 10)
    if not u:
        return tens[t]
    if lang == "en":
        return f"{tens[t]}-{units[u]}"
    if lang == "sv":
        return tens[t] + units[u]
    unit = "ein" if (lang == "de" and u == 1) else units[u]
    joiner = "und" if lang == "de" else ("ën" if unit.endswith("e") else "en")
    return unit + joiner + tens[t]


@memo(maxsize=8)
def number_words(lang: str) -> dict[str, int]:
    """Folded number words 1-99 of ``lang`` -> value (plus ``un``/``una``/``a``/``ein``... for 1)."""
    lang = lang if lang in DATE_LOCALES else "en"
    out = {normalize(_spell(n, lang)): n for n in range(1, 100)}
    for alias, v in {"es": {"un": 1, "una": 1}, "en": {"an": 1}, "de": {"ein": 1, "eine": 1, "einen": 1},
                     "nl": {"één": 1}, "sv": {"en": 1}}.get(lang, {}).items():
        out[normalize(alias)] = v
    return out


@memo(maxsize=8)
def _number_word_regex(lang: str) -> re.Pattern[str]:
    forms = sorted(number_words(lang), key=len, reverse=True)
    return re.compile(r"(?<![\w])(" + "|".join(re.escape(f) for f in forms) + r")(?![\w])")


_YEAR_UNITS = {"es": ("año", "años", "a", "anos", "ano"), "en": ("year", "years", "yr", "yrs", "y", "yo", "y/o"),
               "nl": ("jaar", "jarige", "jr"), "sv": ("år", "åring", "årig", "årige"),
               "de": ("jahr", "jahre", "jahren", "j", "jährig", "jährige", "jähriger", "jahrig")}
_OR_OLDER = {"es": "o más", "en": "or older", "nl": "of ouder", "sv": "eller äldre", "de": "oder älter"}
_UNIT_AFTER = re.compile(r"\s*-?\s*([^\W\d_]+)")


@dataclass(frozen=True, slots=True)
class AgeMatch:
    start: int
    end: int
    value: int
    words: bool
    unit: str | None  # "years" | "other" | None
    unit_end: int


@memo(maxsize=16)
def _year_unit_words(lang: str) -> frozenset[str]:
    return frozenset({normalize(u) for u in _YEAR_UNITS.get(lang, ())}
                     | {normalize(u) for us in _YEAR_UNITS.values() for u in us if len(u) > 2})


@memo(maxsize=8192, kind="text")
def parse_age(text: str, lang: str) -> AgeMatch | None:
    """The first age number in ``text`` (digits or number words) and its unit."""
    m = re.search(r"\d+", text)
    words = False
    folded = fold_accents(text.casefold())
    if m is None or len(m.group()) > 3:
        wm = _number_word_regex(lang if lang in DATE_LOCALES else "en").search(folded)
        if wm is None:
            return None
        # folding keeps lengths for the letters used in number words (NFC composed input assumed)
        start, end, value, words = wm.start(), wm.end(), number_words(lang)[wm.group(1)], True
        if len(folded) != len(text):
            return None
    else:
        start, end, value = m.start(), m.end(), int(m.group())
    unit: str | None = None
    unit_end = end
    um = _UNIT_AFTER.match(text, end)
    if um is not None:
        word = normalize(um.group(1))
        unit = "years" if word in _year_unit_words(lang) else "other"
        unit_end = um.end()
        tail = re.match(r"-[^\W\d_]+", text[unit_end:])  # "45-year-old"
        if tail is not None:
            unit_end += tail.end()
    return AgeMatch(start, end, value, words, unit, unit_end)


def age_offset(ctx: GenContext) -> int:
    """The age offset of the current document (never 0).

    Without ``settings.avoid_collisions``: the scope's own offset, the first of ``settings.age_shift``'s values
    (either sign) in the scope's keyed order. With it (document scope by default): that offset unless an age
    surrogate of the document would reproduce an original of the document (``"17 años"`` moved onto another
    span's ``"18 años"``); then the first value in keyed order — the rest of the configured range, then the
    magnitudes up to 5, then up to 10 — under which none collides, else the one with the fewest collisions.
    One offset per document; a pure function of (key, scope, the document's span texts). Cached.
    """
    memo = ctx.memo
    cached = memo.get("age_offset")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    settings = ctx.settings
    bounds = _age_bounds(*settings.age_shift)
    rand = ctx.rand

    def tier(a: int, b: int) -> list[int]:
        values = list(_age_tier_values(a, b))
        rand.stream("age-offset", str(a), str(b)).shuffle(values)  # the stream of the parts (a, b): same encoding
        return values

    first_tier = tier(*bounds[0])
    chosen = first_tier[0]
    if settings.avoid_collisions:
        counts = _age_texts(ctx)
        if counts:
            lang = ctx.lang if ctx.lang in DATE_LOCALES else "en"
            cap = settings.age_cap
            leaks = ctx.leaks

            def cost(off: int) -> int:
                total = 0
                for t, n in counts.items():
                    new = _age_with(t, lang, cap, off)
                    if new != t and leaks(new, already=t):
                        total += n
                return total

            best: tuple[int, int] | None = None
            tiers = itertools.chain(first_tier, itertools.chain.from_iterable(tier(a, b) for a, b in bounds[1:]))
            for off in tiers:
                c = cost(off)
                if best is None or c < best[0]:
                    best = (c, off)
                if c == 0:
                    break
            assert best is not None
            chosen = best[1]
    memo["age_offset"] = chosen
    return chosen


@memo(maxsize=64)
def _age_bounds(lo: int, hi: int) -> tuple[tuple[int, int], ...]:
    """The magnitude ranges :func:`age_offset` tries: the configured one, then the wider tiers."""
    bounds = [(lo, hi)]
    for upper in _wider("ages", lo, hi):
        if upper > bounds[-1][1]:
            bounds.append((bounds[-1][1] + 1, upper))
    return tuple(bounds)


@memo(maxsize=64)
def _age_tier_values(a: int, b: int) -> tuple[int, ...]:
    return tuple(sign * k for k in range(a, b + 1) for sign in (1, -1))


def _age_texts(ctx: GenContext) -> dict[str, int]:
    """How often each text a document's age offset must not collide on occurs (its first
    ``_MAX_DATES_CHECKED`` AGE spans and lower-case NAME spans holding digits), in first-occurrence order."""
    spans, doc = ctx.spans, ctx.doc
    by_type = (ctx._tables or ctx._doc_tables()).by_type
    text = doc.text if doc is not None else ""
    span_text = (lambda s: text[s.start:s.end]) if doc is not None else (lambda s: "")
    texts = [span_text(spans[i]) for i in by_type.get("AGE", ())]
    for i in by_type.get("NAME", ()):
        t = span_text(spans[i])
        if any(map(str.isdigit, t)) and not any(map(str.isupper, t)):
            texts.append(t)
    counts: dict[str, int] = {}
    for t in texts[:_MAX_DATES_CHECKED]:
        counts[t] = counts.get(t, 0) + 1
    return counts


def surrogate_age(text: str, ctx: GenContext) -> str:
    """The shifted (or capped) age (see the module docstring); ``text`` when it holds no number."""
    lang = ctx.lang if ctx.lang in DATE_LOCALES else "en"
    return _age_with(text, lang, ctx.settings.age_cap, age_offset(ctx))


@memo(maxsize=1 << 14, kind="text")
def _age_with(text: str, lang: str, cap: int | None, off: int) -> str:
    """``text`` with its age moved by ``off`` or capped (a pure function: cached)."""
    am = parse_age(text, lang)
    if am is None:
        return text
    in_years = am.unit in (None, "years")
    if cap is not None and in_years and am.value >= cap:
        if am.unit is None:
            return text[:am.start] + f"{cap} {_OR_OLDER[lang]}" + text[am.end:]
        return text[:am.start] + str(cap) + text[am.end:am.unit_end] + f" {_OR_OLDER[lang]}" + text[am.unit_end:]
    new = am.value + off
    if new < 1 or (cap is not None and in_years and new >= cap):
        new = am.value - off
    if new < 0:
        new = am.value + abs(off)
    if am.words and 1 <= new <= 99:
        word = "un" if (lang == "es" and new == 1 and am.unit) else _spell(new, lang)
        rendered = apply_case(text[am.start:am.end], word)
    else:
        rendered = str(new)
    return text[:am.start] + rendered + text[am.end:]

