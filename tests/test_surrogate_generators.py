"""The surrogate generators: names, dates, ages, places, identifiers and contacts."""

from __future__ import annotations

import datetime as dt
import random
import re

import pytest
from babel.dates import get_day_names, get_month_names
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from clinanon.document import Document, Span
from clinanon.lang import checksums as cs
from clinanon.transform.surrogate import GenContext, Settings, parse_key
from clinanon.transform.surrogate._data import first_name_gender, given_names, surnames
from clinanon.transform.surrogate._text import normalize
from clinanon.transform.surrogate.ages import parse_age, surrogate_age
from clinanon.transform.surrogate.cities import MIN_PLACE_POOL
from clinanon.transform.surrogate.contacts import surrogate_email, surrogate_ip, surrogate_phone, surrogate_url
from clinanon.transform.surrogate.countries import surrogate_country
from clinanon.transform.surrogate.date_formats import parse_date, render_date
from clinanon.transform.surrogate.dates import date_offsets, surrogate_date
from clinanon.transform.surrogate.hospitals import surrogate_hospital
from clinanon.transform.surrogate.identifiers import format_preserving, id_kind, surrogate_identifier
from clinanon.transform.surrogate.names import parse_name, surrogate_name
from clinanon.transform.surrogate.places import surrogate_city
from clinanon.transform.surrogate.postcodes import surrogate_zip
from clinanon.transform.surrogate.streets import surrogate_street

KEY = parse_key("5a" * 32)
KEY2 = parse_key("a5" * 32)


def ctx(lang: str = "es", scope: str = "patient:1", key=KEY, **kw) -> GenContext:
    return GenContext.simple(key, scope, lang, Settings(**kw) if kw else None)


def doc_ctx(text: str, spans: list[tuple[int, int, str]], lang: str = "es") -> GenContext:
    d = Document("d", text, tuple(Span(a, b, c) for a, b, c in spans))
    c = ctx(lang)
    c.doc, c.spans, c.categories = d, d.spans, {s: s.label for s in d.spans}
    return c


# --- names ----------------------------------------------------------------------------------------------------

def _given_pool(lang: str, g: str) -> set[str]:
    return {normalize(n) for n in given_names(lang, g).items}


def test_gender_is_kept_per_language() -> None:
    for lang, female, male in (("es", "María", "Juan"), ("en", "Mary", "John"), ("nl", "Anna", "Jan"),
                               ("sv", "Anna", "Lars"), ("de", "Anna", "Hans")):
        c = ctx(lang)
        f = surrogate_name(f"{female} X", c).split()[0]
        m = surrogate_name(f"{male} X", c).split()[0]
        assert normalize(f) in _given_pool(lang, "F"), (lang, f)
        assert normalize(m) in _given_pool(lang, "M"), (lang, m)


def test_neutral_stays_neutral() -> None:
    assert first_name_gender("Ariel", "es") == "N"
    out = surrogate_name("Ariel", ctx("es"))
    assert normalize(out) in _given_pool("es", "N")


def test_shape_initials_titles_case_and_two_surnames() -> None:
    c = ctx("es")
    full = surrogate_name("Juan García López", c)
    given, s1, s2 = full.split()
    assert surrogate_name("García", c) == s1
    assert surrogate_name("López", c) == s2
    assert surrogate_name("Dr. García", c) == f"Dr. {s1}"
    assert surrogate_name("GARCÍA", c) == s1.upper()
    assert surrogate_name("García-López", c) == f"{s1}-{s2}"
    assert re.fullmatch(r"[A-Z]\. " + re.escape(s1), surrogate_name("J. García", c))
    assert surrogate_name("GARCÍA LÓPEZ, Juan", c) == f"{s1.upper()} {s2.upper()}, {given}"
    parsed = parse_name("Dra. María del Carmen de la Fuente", "es")
    roles = [p.role for p in parsed.parts if p.text.strip() and p.text != "."]
    assert roles == ["title", "given", "particle", "given", "particle", "particle", "surname"]


def test_initial_follows_the_full_name_in_the_same_document() -> None:
    text = "Juan García López vino. J. García firmó."
    c = doc_ctx(text, [(0, 17, "NAME.PATIENT"), (24, 34, "NAME.PATIENT")])
    full = surrogate_name("Juan García López", c)
    short = surrogate_name("J. García", c)
    assert short == f"{full[0]}. {full.split()[1]}"


def test_surrogate_parts_never_reproduce_document_names() -> None:
    # however the keys fall, no surrogate part equals an original name word of the document
    text = "Ana Pérez y Luis Gómez y Eva Ruiz"
    spans = [(0, 9, "NAME.PATIENT"), (12, 22, "NAME.RELATIVE"), (25, 32, "NAME.RELATIVE")]
    originals = {"ana", "perez", "luis", "gomez", "eva", "ruiz"}
    for i in range(30):
        c = doc_ctx(text, spans)
        c.rand = ctx(key=parse_key(f"{i:02x}" * 32)).rand
        for a, b, _ in spans:
            words = {normalize(w) for w in surrogate_name(text[a:b], c).split()}
            assert not words & originals


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["es", "en", "nl", "sv", "de"]), st.integers(0, 10_000))
def test_names_same_key_same_output_other_key_different(lang: str, i: int) -> None:
    pool = surnames(lang).items
    name = pool[i % len(pool)]
    a = surrogate_name(name, ctx(lang))
    assert a == surrogate_name(name, ctx(lang))
    assert normalize(a) != normalize(name)
    # a different key gives an unrelated choice: equal only by chance (checked in bulk below)


def test_other_key_rarely_equal() -> None:
    pool = surnames("es").items[:300]
    same = sum(surrogate_name(n, ctx("es")) == surrogate_name(n, ctx("es", key=KEY2)) for n in pool)
    assert same / len(pool) < 0.02


def test_relation_words_are_not_names() -> None:
    from clinanon.transform.surrogate.operator import generate

    assert generate("NAME.RELATIVE", "padre", ctx()) is None
    assert generate("NAME.RELATIVE", "pareja", ctx()) is None
    out = generate("NAME.RELATIVE", "hija de 50 años", ctx())
    assert out is not None and re.fullmatch(r"hija de (4[89]|5[12]) años", out)
    # kinship words are no evidence of a name, even capitalised or known to a first-name list ("Tia")
    for text in ("Padres", "tía materna", "Madre", "Hermanos"):
        assert generate("NAME.RELATIVE", text, ctx()) is None, text
    for text, lang in (("Mother", "en"), ("his wife", "en"), ("Mutter", "de"), ("Moeder", "nl"), ("Mamma", "sv")):
        assert generate("NAME.RELATIVE", text, ctx(lang)) is None, text
    # a name next to a kinship word is still a name, and only the name changes
    out = generate("NAME.RELATIVE", "su hija Ana", ctx())
    assert out is not None and out.startswith("su hija ") and out != "su hija Ana"


# --- dates ----------------------------------------------------------------------------------------------------

def _names(lang_loc: str, kind: str, width: str = "wide") -> dict[int, str]:
    fn = get_month_names if kind == "month" else get_day_names
    return {k: v.rstrip(".") for k, v in fn(width, "format", lang_loc).items()}


FORMATS = {
    "es": ["{d}/{m}/{Y}", "{dd}/{mm}/{Y}", "{dd}-{mm}-{yy}", "{d} de {month} de {Y}", "{d} de {Month} del {Y}",
           "{month} de {Y}", "{Y}", "año {Y}", "{dd}.{mm}.{Y}", "{Y}-{mm}-{dd}", "{d}-{m}-{yy}",
           "{weekday}, {d} de {month} de {Y}", "{MONTH}-{yy}", "{mon}-{yy}", "{dd}/{mm}", "{mm}/{Y}", "{Y}{mm}{dd}",
           "{month}", "{d} de {month}"],
    "en": ["{m}/{d}/{Y}", "{Month} {d}, {Y}", "{Month} {d}{ord}, {Y}", "{d} {Month} {Y}", "{Mon} {d}, {Y}",
           "{Month} {Y}", "{Y}-{mm}-{dd}", "{Weekday}, {Month} {d}, {Y}"],
    "nl": ["{d} {month} {Y}", "{dd}-{mm}-{Y}", "{d} {mon} {Y}", "{month} {Y}"],
    "sv": ["{Y}-{mm}-{dd}", "den {d} {month} {Y}", "{d} {month} {Y}", "{d} {mon} {Y}"],
    "de": ["{d}. {Month} {Y}", "{dd}.{mm}.{Y}", "{d}. {Mon} {Y}", "{Month} {Y}"],
}
LOC = {"es": "es_ES", "en": "en_US", "nl": "nl_NL", "sv": "sv_SE", "de": "de_DE"}


def fmt_date(fmt: str, d: dt.date, lang: str) -> str:
    loc = LOC[lang]
    month = _names(loc, "month")[d.month]
    abbr = {k: v for k, v in get_month_names("abbreviated", "format", loc).items()}[d.month].rstrip(".")
    wd = _names(loc, "day")[d.weekday()]
    ordsuf = "th" if 10 <= d.day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(d.day % 10, "th")
    return fmt.format(d=d.day, dd=f"{d.day:02d}", m=d.month, mm=f"{d.month:02d}", Y=d.year, yy=f"{d.year % 100:02d}",
                      month=month.lower(), Month=month[:1].upper() + month[1:], MONTH=month.upper(),
                      mon=abbr[:3].lower(), Mon=abbr[:1].upper() + abbr[1:], weekday=wd.lower(),
                      Weekday=wd[:1].upper() + wd[1:], ord=ordsuf)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([(lang, f) for lang, fs in FORMATS.items() for f in fs]),
       st.dates(dt.date(1931, 1, 1), dt.date(2030, 12, 31)))
def test_dates_round_trip_in_every_format(lang_fmt: tuple[str, str], d: dt.date) -> None:
    lang, fmt = lang_fmt
    s = fmt_date(fmt, d, lang)
    p = parse_date(s, lang)
    assert p is not None, s
    if "{d" in fmt:
        assert p.day == d.day, s
    if "{m" in fmt.lower() or "{M" in fmt:
        assert p.month == d.month, s
    if "{Y" in fmt or "{yy" in fmt:
        assert p.year == d.year, s
    assert render_date(p, p.year, p.month, p.day, d.weekday()) == s


@settings(max_examples=80, deadline=None)
@given(st.dates(dt.date(1931, 1, 1), dt.date(2030, 12, 31)), st.dates(dt.date(1931, 1, 1), dt.date(2030, 12, 31)),
       st.sampled_from(["{dd}/{mm}/{Y}", "{d} de {month} de {Y}", "{Y}-{mm}-{dd}", "{d}-{m}-{yy}"]))
def test_shift_keeps_intervals_within_a_scope(a: dt.date, b: dt.date, fmt: str) -> None:
    if "{yy}" in fmt:  # two-digit years read back within 1931-2030: keep the shifted dates inside that window
        window = (dt.date(1931, 1, 15), dt.date(2030, 12, 16))
        assume(window[0] <= a <= window[1] and window[0] <= b <= window[1])
    c = ctx("es")
    pa = parse_date(surrogate_date(fmt_date(fmt, a, "es"), c), "es")
    pb = parse_date(surrogate_date(fmt_date(fmt, b, "es"), c), "es")
    assert pa is not None and pb is not None
    assert (pb.date - pa.date) == (b - a)
    shift = (pa.date - a).days
    assert 7 <= abs(shift) <= 14 and shift == date_offsets(c).days


def test_partial_dates_move_and_never_stay_equal() -> None:
    c = ctx("es")
    for s in ("marzo de 2005", "2005", "junio", "diciembre-99", "12/03", "año 2010", "mes de abril"):
        out = surrogate_date(s, c)
        assert out != s and parse_date(out, "es") is not None and parse_date(out, "es").kind == parse_date(s, "es").kind
    assert surrogate_date("ayer", c) == "ayer"  # no date: unchanged
    ranged = surrogate_date("12/03/2005 al 15/03/2005", c)
    a, b = ranged.split(" al ")
    assert (parse_date(b, "es").date - parse_date(a, "es").date).days == 3


def test_weekday_recomputed() -> None:
    c = ctx("es")
    out = surrogate_date("lunes, 7 de marzo de 2005", c)
    p = parse_date(out, "es")
    wd = _names("es_ES", "day")[p.date.weekday()]
    assert out.startswith(wd + ",")


def test_configured_range() -> None:
    c = ctx("es", date_shift=(30, 30))
    assert abs(date_offsets(c).days) == 30


# --- ages -----------------------------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.integers(0, 130), st.sampled_from([
    ("es", "{} años", "90 años o más"), ("en", "{} years", "90 years or older"), ("nl", "{} jaar", "90 jaar of ouder"),
    ("sv", "{} år", "90 år eller äldre"), ("de", "{} Jahre", "90 Jahre oder älter"), ("es", "{}", "90 o más")]))
def test_age_shift_and_cap(v: int, case: tuple[str, str, str]) -> None:
    lang, template, capped = case
    out = surrogate_age(template.format(v), ctx(lang))
    if v >= 90:
        assert out == capped
    else:
        n = int(re.match(r"\d+", out).group())
        assert n != v and abs(n - v) <= 2 and n < 90 and n >= 0


def test_age_words_and_units() -> None:
    c = ctx("es")
    out = surrogate_age("tres meses", c)
    assert out.endswith(" meses") and out != "tres meses" and parse_age(out, "es").words
    assert surrogate_age("Recién nacida", c) == "Recién nacida"
    assert surrogate_age("95 meses", c) != "90 o más"  # months are not capped
    capped = surrogate_age("93-year-old", ctx("en"))  # a compound: a number from the cap up, never "or older"
    assert re.fullmatch(r"9\d-year-old", capped) and capped != "93-year-old"
    assert surrogate_age("92", ctx("es", age_cap=None)) in {"90", "91", "93", "94"}


# --- places ---------------------------------------------------------------------------------------------------

def test_city_region_country() -> None:
    from clinanon.transform.surrogate._data import places

    c = ctx("es")
    P = places("es")
    jerez = surrogate_city("Jerez de la Frontera", c)
    # Cádiz has fewer than MIN_PLACE_POOL cities in the list, Andalucía (its parent) at least that many
    assert len(P.cities_by_region[("ES", "cadiz")]) < MIN_PLACE_POOL
    andalucia = {p.name for r in P.regions_by_parent[("ES", "andalucia")]
                 for p in P.cities_by_region.get(("ES", normalize(r.name)), ())}
    assert len(andalucia) >= MIN_PLACE_POOL
    assert jerez in andalucia and jerez != "Jerez de la Frontera"
    country = surrogate_country("Francia", c)
    assert P.country_by_name[normalize(country)][2] == "Europe" and country != "Francia"
    assert surrogate_country("ESPAÑA", c).isupper()


def test_postcode_follows_the_surrogate_city() -> None:
    text = "Vive en Barcelona, CP 08022."
    c = doc_ctx(text, [(8, 17, "LOCATION.CITY"), (22, 27, "LOCATION.ZIP")])
    c.span = c.spans[1]
    from clinanon.transform.surrogate.cities import surrogate_city_place
    from clinanon.transform.surrogate.postcodes import ES_PROVINCE_CODES

    city = surrogate_city_place("Barcelona", c)
    zipc = surrogate_zip("08022", c)
    assert re.fullmatch(r"\d{5}", zipc) and zipc != "08022"
    assert zipc[:2] == ES_PROVINCE_CODES[normalize(city.region or city.name)]


def test_street_keeps_type_and_shape() -> None:
    c = ctx("es")
    out = surrogate_street("C/ José Cádiz Salvatierra, 3, Bajo A", c)
    assert re.fullmatch(r"C/ \S+ \S+ \S+, [1-9], Bajo A", out) and "Salvatierra" not in out
    nl = surrogate_street("Kerkstraat 12", ctx("nl"))
    assert re.fullmatch(r"\S+straat \d\d", nl) and nl != "Kerkstraat 12"
    de = surrogate_street("Hauptstraße 5", ctx("de"))
    assert re.fullmatch(r"\S+straße \d", de)
    en = surrogate_street("123 Main Street", ctx("en"))
    assert re.fullmatch(r"[1-9]\d\d \S+ Street", en)


def test_hospital_same_kind() -> None:
    out = surrogate_hospital("Hospital Universitario La Paz", ctx("es"))
    assert out.startswith("Hospital Universitario ") and out != "Hospital Universitario La Paz"


# --- identifiers and contacts -------------------------------------------------------------------------------

VALIDATORS = {
    "dni": cs.is_valid_dni, "nie": cs.is_valid_nie, "nass": cs.is_valid_nass, "bsn": cs.is_valid_bsn,
    "personnummer": cs.is_valid_personnummer, "kvnr": cs.is_valid_kvnr, "nhs": cs.is_valid_nhs_number,
    "ssn": cs.is_valid_us_ssn, "iban": cs.is_valid_iban, "luhn": cs.is_valid_credit_card,
}
GENERATORS = [
    ("es", lambda r: cs.generate_dni(r), "dni"), ("es", lambda r: cs.generate_nie(r), "nie"),
    ("es", lambda r: cs.generate_nass(r), "nass"), ("nl", lambda r: cs.generate_bsn(r), "bsn"),
    ("sv", lambda r: cs.generate_personnummer(r), "personnummer"),
    ("sv", lambda r: cs.generate_personnummer(r, century=True), "personnummer"),
    ("de", lambda r: cs.generate_kvnr(r), "kvnr"), ("en", lambda r: cs.generate_nhs_number(r), "nhs"),
    ("en", lambda r: cs.generate_us_ssn(r), "ssn"), ("es", lambda r: cs.generate_iban(r, "ES"), "iban"),
    ("en", lambda r: cs.generate_credit_card(r), "luhn"),
]


def _layout(s: str) -> str:
    return re.sub(r"[A-Za-z]", "a", re.sub(r"\d", "9", s))


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(GENERATORS), st.integers(0, 2**32))
def test_checksummed_ids_stay_valid(gen: tuple, seed: int) -> None:
    lang, make, kind = gen
    original = make(random.Random(seed))
    assert id_kind(original, lang) == kind
    out = surrogate_identifier(original, ctx(lang))
    assert VALIDATORS[kind](out), (kind, out)
    assert out != original and len(out) == len(original)
    if kind not in ("nie", "kvnr", "iban"):
        assert _layout(out) == _layout(original)


def test_dni_lowercase_letter_and_shape() -> None:
    out = surrogate_identifier("12345678-z", ctx("es"))
    assert re.fullmatch(r"\d{8}-[a-z]", out) and cs.is_valid_dni(out)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="0123456789ABCXYZabc-/ .", min_size=1, max_size=16))
def test_format_preserving(s: str) -> None:
    assume(any(c.isalnum() for c in s))
    out = format_preserving(s, ctx())
    assert len(out) == len(s) and normalize(out) != normalize(s)
    for a, b in zip(s, out, strict=True):
        assert (a.isdigit() == b.isdigit()) and (a.isupper() == b.isupper()) and (a.islower() == b.islower())
        if not a.isalnum():
            assert a == b


def test_phone_national_format() -> None:
    c = ctx("es")
    for s in ("913 368 000", "+34 670.97.10.26", "0034 912345678", "34 93 567 22 28"):
        out = surrogate_phone(s, c)
        assert _layout(out) == _layout(s) and out != s
    assert surrogate_phone("913 368 000", c)[0] == "9"
    assert surrogate_phone("+34 670.97.10.26", c).startswith("+34 6")
    assert surrogate_phone("34 93 567 22 28", c).startswith("34 9")
    assert surrogate_phone("06-12345678", ctx("nl")).startswith("06-")
    phonenumbers = pytest.importorskip("phonenumbers")
    for i in range(20):  # a valid number keeps a valid surrogate (901 598 663 is a valid Spanish number)
        out = surrogate_phone("901 598 663", ctx("es", key=parse_key(f"{i:02x}" * 32)))
        assert phonenumbers.is_valid_number(phonenumbers.parse(out, "ES")), out


def test_email_url_ip() -> None:
    c = ctx("es")
    e = surrogate_email("juan.garcia@gmail.com", c)
    assert re.fullmatch(r"[a-z]+\.[a-z]+@gmail\.com", e) and e != "juan.garcia@gmail.com"
    inst = surrogate_email("vasensio@hmdc.sacyl.es", c)
    assert inst.endswith(".es") and "sacyl" not in inst and "vasensio" not in inst
    u = surrogate_url("https://www.hospital-x.es/citas", c)
    assert u.startswith("https://www.") and ".es/" in u and "hospital-x" not in u
    ip = surrogate_ip("192.168.1.20", c)
    assert ip.startswith("192.168.") and ip != "192.168.1.20"
    pub = surrogate_ip("8.8.8.8", c)
    import ipaddress

    assert ipaddress.IPv4Address(pub).is_global and pub != "8.8.8.8"


def test_document_leak_guard_for_places() -> None:
    # "Hospital General" must not come back inside another surrogate, nor any original city
    text = "Hospital General de Madrid, Madrid, Hospital General"
    spans = [(0, 26, "LOCATION.HOSPITAL"), (28, 34, "LOCATION.CITY"), (36, 52, "LOCATION.HOSPITAL")]
    c = doc_ctx(text, spans)
    for a, b, _ in spans:
        out = normalize(surrogate_hospital(text[a:b], c) if "Hospital" in text[a:b] else surrogate_city(text[a:b], c))
        assert "hospital general" not in out and not re.search(r"\bmadrid\b", out)


@pytest.mark.parametrize("lang", ["es", "en", "nl", "sv", "de"])
def test_locale_lists_exist(lang: str) -> None:
    assert len(given_names(lang, "F")) > 50 and len(given_names(lang, "M")) > 50 and len(surnames(lang)) > 100
