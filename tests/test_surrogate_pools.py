"""Place pools of the surrogates (city fallback, countries per continent, composed hospitals) and the engine's
batch hook that the surrogate operator uses."""

from __future__ import annotations

from clinanon.transform.surrogate import GenContext, parse_key
from clinanon.transform.surrogate._data import places
from clinanon.transform.surrogate._text import normalize
from clinanon.transform.surrogate.cities import MIN_PLACE_POOL, surrogate_city_place
from clinanon.transform.surrogate.countries import _countries_of, _country_index, surrogate_country
from clinanon.transform.surrogate.hospitals import surrogate_hospital

KEY = parse_key("5a" * 32)
KEY2 = parse_key("a5" * 32)

#: the 44 sovereign states of Europe (ISO 3166), Kosovo left out as a CLDR "territory"
EUROPE = {
    "AD", "AL", "AT", "BA", "BE", "BG", "BY", "CH", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GB", "GR", "HR", "HU",
    "IE", "IS", "IT", "LI", "LT", "LU", "LV", "MC", "MD", "ME", "MK", "MT", "NL", "NO", "PL", "PT", "RO", "RS", "RU",
    "SE", "SI", "SK", "SM", "UA", "VA",
}


def ctx(lang: str = "es", scope: str = "document:1", key=KEY) -> GenContext:
    return GenContext.simple(key, scope, lang)


def _iso(name: str, lang: str = "es") -> str:
    return _country_index(lang)[normalize(name)][0]


# --- countries ------------------------------------------------------------------------------------------------

def test_country_pool_is_one_name_per_country_and_complete() -> None:
    pool = _countries_of("es", "Europe")
    isos = [_iso(n) for n in pool]
    assert len(isos) == len(set(isos)) == 44 and set(isos) == EUROPE
    assert "España" in pool and "Reino Unido" in pool and "Países Bajos" in pool
    assert not {"Spain", "England", "Inglaterra", "Holanda", "República Checa"} & set(pool)  # aliases / English
    without_spain = _countries_of("es", "Europe", "ES")
    assert len(without_spain) == 43 and "España" not in without_spain
    for lang, spain in (("en", "Spain"), ("de", "Spanien"), ("nl", "Spanje"), ("sv", "Spanien")):
        assert spain in _countries_of(lang, "Europe") and len(_countries_of(lang, "Europe")) == 44


def test_country_surrogate_never_names_the_original_country_and_is_spread() -> None:
    seen: dict[str, int] = {}
    for i in range(400):
        out = surrogate_country("España", ctx(scope=f"document:{i}"))
        assert _iso(out) != "ES" and _country_index("es")[normalize(out)][1] == "Europe"
        seen[out] = seen.get(out, 0) + 1
    assert len(seen) >= 40 and max(seen.values()) <= 25  # 43 countries, ~9.3 each on average
    for alias in ("EE.UU.", "USA", "Estados Unidos"):
        for i in range(20):
            out = surrogate_country(alias, ctx(scope=f"document:{i}"))
            assert _country_index("es")[normalize(out)][0] != "US"
    nl = {surrogate_country("Duitsland", ctx("nl", scope=f"document:{i}")) for i in range(200)}
    assert "Nederland" in nl and "Duitsland" not in nl  # the Dutch list lacks Nederland: CLDR's name is used


# --- cities ---------------------------------------------------------------------------------------------------

def test_small_region_falls_back_to_the_country() -> None:
    P = places("es")
    burgos = {p.name for p in P.cities_by_region[("ES", "burgos")]}
    assert len(burgos) < MIN_PLACE_POOL  # neither Burgos nor Castilla y León reach the minimum
    spanish = {p.name for p in P.cities_by_country["ES"]}
    outside = 0
    for i in range(60):
        p = surrogate_city_place("Aranda de Duero", ctx(scope=f"document:{i}"))
        assert p is not None and p.country == "ES" and p.name in spanish and p.name != "Aranda de Duero"
        outside += p.name not in burgos
    assert outside >= 45  # drawn from the whole country, not from Burgos's few cities


def test_city_choices_of_two_keys_rarely_agree() -> None:
    same = sum(surrogate_city_place("Madrid", ctx(scope=f"document:{i}")) ==
               surrogate_city_place("Madrid", ctx(scope=f"document:{i}", key=KEY2)) for i in range(300))
    assert same <= 6  # ~1/379 each


def test_unknown_place_gets_a_home_country_city() -> None:
    p = surrogate_city_place("Villaquemada del Sur", ctx())
    assert p is not None and p.country == "ES"


# --- hospitals ------------------------------------------------------------------------------------------------

def test_hospital_keeps_its_kind_per_language() -> None:
    cases = [
        ("es", "Hospital Universitario La Paz", lambda o: o.startswith("Hospital Universitario ")),
        ("es", "Hospital Clínico San Carlos", lambda o: o.startswith("Hospital Clínico ")),
        ("es", "Centro de Salud Delicias",
         lambda o: o.startswith("Centro de Salud ") and not o.startswith("Centro de Salud de ")),
        ("es", "Clínica Moncloa", lambda o: o.startswith("Clínica ")),
        ("en", "Springfield General Hospital", lambda o: o.endswith(" General Hospital")),
        ("nl", "Ziekenhuis Rivierenland", lambda o: o.startswith("Ziekenhuis ")),
        ("sv", "Vårdcentralen Kungsholmen", lambda o: o.startswith("Vårdcentralen ")),
        ("sv", "Danderyds sjukhus", lambda o: o.endswith(" sjukhus")),
        ("de", "Klinikum Nürnberg", lambda o: o.startswith("Klinikum ")),
    ]
    for lang, text, ok in cases:
        for i in range(20):
            out = surrogate_hospital(text, ctx(lang, scope=f"document:{i}"))
            assert ok(out) and normalize(out) != normalize(text), (lang, i)


def test_hospital_pool_is_large() -> None:
    outs = [surrogate_hospital("Hospital Clínico San Carlos", ctx(scope=f"document:{i}")) for i in range(200)]
    assert len(set(outs)) >= 120  # one in four from the gazetteer's 4 real ones of the kind, the rest composed
    other = [surrogate_hospital("Hospital Clínico San Carlos", ctx(scope=f"document:{i}", key=KEY2))
             for i in range(200)]
    assert sum(a == b for a, b in zip(outs, other, strict=True)) <= 8  # ~1/64: both keys pick the same real one


def test_hospital_without_a_head_gets_the_default_head() -> None:
    outs = {surrogate_hospital("La Paz", ctx(scope=f"document:{i}")) for i in range(30)}
    assert all(normalize(o) != "la paz" for o in outs)
    assert sum(o.startswith("Hospital ") for o in outs) >= 20
