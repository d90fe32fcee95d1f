"""State and province surrogates that stay what they are: ``"IL"`` -> another US postal code, ``"Texas"`` ->
another US state.

The gazetteers list regions by name only, and leave out the names that are also first names or surnames
(``Georgia``, ``Virginia``, ``Washington``, ``Texas`` ...), so a state abbreviation or such a state name is an
unknown place to :mod:`.cities`, which would give it a town. These tables hold the first-level subdivisions of the
countries whose notes write them as postal abbreviations (plain facts: the United States with the District of
Columbia, Canada, Australia): an abbreviation becomes another abbreviation of the same country and a name another
name of the same country, keyed by the normalized original, in the original's case.
"""

from __future__ import annotations

from collections.abc import Mapping

from clinanon.caches import memo
from clinanon.transform.surrogate._choice import pick
from clinanon.transform.surrogate._text import apply_case, normalize
from clinanon.transform.surrogate.scope import GenContext

__all__ = ["STATES", "is_state", "surrogate_state", "us_state_abbreviation"]

#: country -> (postal abbreviation, English name) of each first-level subdivision
STATES: Mapping[str, tuple[tuple[str, str], ...]] = {
    "US": (
        ("AL", "Alabama"), ("AK", "Alaska"), ("AZ", "Arizona"), ("AR", "Arkansas"), ("CA", "California"),
        ("CO", "Colorado"), ("CT", "Connecticut"), ("DE", "Delaware"), ("DC", "District of Columbia"),
        ("FL", "Florida"), ("GA", "Georgia"), ("HI", "Hawaii"), ("ID", "Idaho"), ("IL", "Illinois"),
        ("IN", "Indiana"), ("IA", "Iowa"), ("KS", "Kansas"), ("KY", "Kentucky"), ("LA", "Louisiana"),
        ("ME", "Maine"), ("MD", "Maryland"), ("MA", "Massachusetts"), ("MI", "Michigan"), ("MN", "Minnesota"),
        ("MS", "Mississippi"), ("MO", "Missouri"), ("MT", "Montana"), ("NE", "Nebraska"), ("NV", "Nevada"),
        ("NH", "New Hampshire"), ("NJ", "New Jersey"), ("NM", "New Mexico"), ("NY", "New York"),
        ("NC", "North Carolina"), ("ND", "North Dakota"), ("OH", "Ohio"), ("OK", "Oklahoma"), ("OR", "Oregon"),
        ("PA", "Pennsylvania"), ("RI", "Rhode Island"), ("SC", "South Carolina"), ("SD", "South Dakota"),
        ("TN", "Tennessee"), ("TX", "Texas"), ("UT", "Utah"), ("VT", "Vermont"), ("VA", "Virginia"),
        ("WA", "Washington"), ("WV", "West Virginia"), ("WI", "Wisconsin"), ("WY", "Wyoming"),
    ),
    "CA": (
        ("AB", "Alberta"), ("BC", "British Columbia"), ("MB", "Manitoba"), ("NB", "New Brunswick"),
        ("NL", "Newfoundland and Labrador"), ("NS", "Nova Scotia"), ("NT", "Northwest Territories"),
        ("NU", "Nunavut"), ("ON", "Ontario"), ("PE", "Prince Edward Island"), ("QC", "Quebec"),
        ("SK", "Saskatchewan"), ("YT", "Yukon"),
    ),
    "AU": (
        ("ACT", "Australian Capital Territory"), ("NSW", "New South Wales"), ("NT", "Northern Territory"),
        ("QLD", "Queensland"), ("SA", "South Australia"), ("TAS", "Tasmania"), ("VIC", "Victoria"),
        ("WA", "Western Australia"),
    ),
}
#: the country whose table an abbreviation or a name is looked up in first (the note's language's)
_COUNTRY_ORDER: Mapping[str, tuple[str, ...]] = {"en": ("US", "CA", "AU")}
_DEFAULT_ORDER = ("US", "CA", "AU")


@memo(maxsize=8)
def _index(lang: str) -> tuple[dict[str, str], dict[str, str]]:
    """(abbreviation -> country, normalized name -> country), the first country in the language's order winning
    (``"WA"`` is Washington before Western Australia)."""
    codes: dict[str, str] = {}
    names: dict[str, str] = {}
    for country in _COUNTRY_ORDER.get(lang, _DEFAULT_ORDER):
        for code, name in STATES[country]:
            codes.setdefault(code, country)
            names.setdefault(normalize(name), country)
    return codes, names


def _kind(text: str, lang: str) -> tuple[str, bool] | None:
    """``(country, is an abbreviation)`` of a state abbreviation (upper case, as written on an address) or a state
    name; ``None`` for anything else."""
    stripped = text.strip().rstrip(".")
    codes, names = _index(lang)
    if stripped.isupper() and stripped.isalpha() and len(stripped) <= 3:
        country = codes.get(stripped)
        return None if country is None else (country, True)
    country = names.get(normalize(stripped))
    return None if country is None else (country, False)


def us_state_abbreviation(text: str) -> str | None:
    """The postal abbreviation of a US state written as its abbreviation or its name (any case), else ``None``."""
    stripped = text.strip().rstrip(".")
    upper = stripped.upper()
    if upper in _us_codes():
        return upper
    return _us_codes().get(normalize(stripped))


@memo(maxsize=1)
def _us_codes() -> dict[str, str]:
    """US abbreviation -> itself and normalized name -> abbreviation."""
    out = {code: code for code, _ in STATES["US"]}
    out.update((normalize(name), code) for code, name in STATES["US"])
    return out


def is_state(text: str, lang: str) -> bool:
    """Whether ``text`` is a state abbreviation (upper case) or a state name of :data:`STATES`."""
    return _kind(text, lang) is not None


def surrogate_state(text: str, ctx: GenContext) -> str | None:
    """Another abbreviation (name) of the same country for a state abbreviation (name); ``None`` when ``text`` is
    neither."""
    kind = _kind(text, ctx.lang)
    if kind is None:
        return None
    country, abbreviation = kind
    stripped = text.strip()
    core = stripped.rstrip(".") if abbreviation else stripped
    key = normalize(core)
    pool = _pool(country, abbreviation)
    new = pick(ctx, pool, "state", key, ctx.avoid_words())
    if not abbreviation:
        new = apply_case(core, new) if core.isupper() or core.islower() else new
    return text.replace(core, new, 1)


@memo(maxsize=8)
def _pool(country: str, abbreviation: bool) -> tuple[str, ...]:
    return tuple(sorted(c if abbreviation else n for c, n in STATES[country]))
