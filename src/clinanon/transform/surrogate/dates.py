"""Date surrogates: parse the original format (:mod:`.date_formats`), shift by the scope's offset, render in the
same format.

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
moved by the year offset; text without any date stays unchanged. (Ages: :mod:`.ages`.)
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from clinanon.caches import memo
from clinanon.lang.holidays import holiday_surrogates, holiday_words
from clinanon.transform.surrogate._choice import pick
from clinanon.transform.surrogate.date_formats import ParsedDate, _find_name, parse_date, render_date
from clinanon.transform.surrogate.scope import GenContext

__all__ = ["Offsets", "date_offsets", "is_full_date", "scope_offsets", "shift_parsed", "surrogate_date"]


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
    return render_date(parsed, *_shift_values(parsed, days, months, years), lang=lang)


#: a numeric date with a 4-digit year (``2013-06-08``, ``08.06.2013``, ``06/08/2013``, ``23.04 2029``,
#: ``20130608``), in brackets or not
_FULL_NUMERIC = re.compile(r"[(\[]?(?:\d{4}[/.\-]\d{1,2}[/.\-]\d{1,2}|\d{1,2} ?[/.\- ] ?\d{1,2} ?[/.\- ] ?\d{4}"
                           r"|(?:19|20)\d{6})[)\]]?[.,;]?")


@memo(maxsize=4096, kind="text")
def is_full_date(text: str, lang: str) -> bool:
    """Whether ``text`` (stripped) is a numeric full date with a 4-digit year from 1900 to 2099 (what an identifier
    or a phone number span holding a date must stay: :func:`surrogate_date` gives it a valid date of the same
    shape, where keyed digits would write ``"1366-08-60"``)."""
    t = text.strip()
    if not _FULL_NUMERIC.fullmatch(t):
        return False
    parsed = parse_date(t, lang)
    return parsed is not None and parsed.kind == "full" and 1900 <= parsed.year <= 2099  # type: ignore[operator]


_ORDINAL = re.compile(r"(\d{1,2})(st|nd|rd|th)", re.IGNORECASE)
_TWO_DIGITS = re.compile(r"\d\d")


def _ordinal_suffix(day: int) -> str:
    return "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def _bare_day_or_year(text: str, off: Offsets) -> str | None:
    """A day alone as an ordinal ("14th": moved by the offset's days within a 28-day cycle, which every month
    has) or a two-digit year alone ("98" of "CABG '98": moved by the offset's years); None for other text."""
    t = text.strip()
    m = _ORDINAL.fullmatch(t)
    if m is not None and 1 <= int(m.group(1)) <= 31:
        day = (int(m.group(1)) - 1 + (off.days % 28 or 1)) % 28 + 1
        suffix = _ordinal_suffix(day)
        return text.replace(t, f"{day}{suffix.upper() if m.group(2).isupper() else suffix}")
    if _TWO_DIGITS.fullmatch(t):
        return text.replace(t, f"{(int(t) + (off.years % 100 or 1)) % 100:02d}")
    return None


def surrogate_date(text: str, ctx: GenContext) -> str:
    """The shifted date (see the module docstring). A holiday's name ("over Christmas", which no offset can
    shift) becomes a keyed holiday of the language, never itself; other text with no date in it ("ayer") is
    returned as it is."""
    # the holiday words of every language, looser than the date rules' forms (clinanon.lang.holidays); a
    # holiday is replaced whole, before any month word in it is shifted ("annandag jul" is no July)
    holiday = holiday_words().search(text) is not None
    if holiday and not any(c.isdigit() for c in text):
        return pick(ctx, holiday_surrogates(ctx.lang), "date:holiday", " ".join(text.lower().split()))
    off = date_offsets(ctx)
    out = _surrogate_date_with(text, ctx.lang, off)
    if out == text:
        bare = _bare_day_or_year(text, off)
        if bare is not None:
            return bare
    if out == text and holiday:  # "1. Weihnachtsfeiertag": nothing shifted, the holiday goes
        return pick(ctx, holiday_surrogates(ctx.lang), "date:holiday", " ".join(text.lower().split()))
    return out


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
