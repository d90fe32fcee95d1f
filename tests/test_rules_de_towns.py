"""German towns that the city list leaves out because their name is also a person's name or a common word
(``de/cities_context.txt``, built by ``scripts/build_city_context.py`` from GeoNames): found after "in" or "aus",
nowhere else ("Frau Hagen" is a person, "beim Singen" and "in der Halle" are nouns, "nach Kiel" is left to the
eponym guard). The sentences are invented."""

from __future__ import annotations

import pytest

from _rules import found, rules_pipeline
from clinanon.lang.wordlists import context_cities
from clinanon.pipeline import Pipeline


@pytest.fixture(scope="module")
def nlp() -> Pipeline:
    return rules_pipeline("de", "gdpr-strict")


def test_the_list_ships_towns_that_are_names_or_words() -> None:
    towns = set(context_cities("de"))
    assert {"Heidelberg", "Kiel", "Hagen", "Singen", "Halle", "Wiesbaden"} <= towns
    assert "Essen" not in towns  # among the most frequent German words: left out


@pytest.mark.parametrize(("text", "town"), [
    ("Sie wurde in Wiesbaden geboren und lebt allein.", "Wiesbaden"),
    ("Der Patient stammt aus Kiel, verheiratet, zwei Kinder.", "Kiel"),
    ("Wohnhaft in Singen, Rentnerin.", "Singen"),
    ("Geboren in Hagen, seit 2010 in Halle lebend.", "Hagen"),
    ("Geboren in Hagen, seit 2010 in Halle lebend.", "Halle"),
    ("Er arbeitet in Solingen als Schlosser.", "Solingen"),
])
def test_town_after_in_or_aus(nlp: Pipeline, text: str, town: str) -> None:
    assert (town, "LOCATION.CITY") in found(nlp, text)


@pytest.mark.parametrize("text", [
    "Beim Singen Luftnot, sonst beschwerdefrei.",
    "Sturz in der Halle des Seniorenheims.",
    "Das Wetter war schlecht, Kreislauf stabil.",
    "Hilfe in Essen und Trinken notwendig.",
    "Lymphom, Klassifikation nach Kiel: zentroblastisch.",
])
def test_nouns_and_eponyms_stay_untouched(nlp: Pipeline, text: str) -> None:
    assert not [f for f in found(nlp, text) if f[1].startswith("LOCATION")]


def test_a_surname_that_is_a_town_stays_a_name(nlp: Pipeline) -> None:
    assert found(nlp, "Frau Hagen kam zur Kontrolle.") == [("Hagen", "NAME")]
