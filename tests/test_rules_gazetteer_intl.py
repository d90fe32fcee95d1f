"""International entries of the English gazetteer (scripts/build_gazetteers.py) and the build helpers."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from clinanon.detect.gazetteer import GazetteerDetector

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def build():
    spec = importlib.util.spec_from_file_location("build_gazetteers", ROOT / "scripts" / "build_gazetteers.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def en() -> GazetteerDetector:
    return GazetteerDetector("en")


def test_transliteration(build) -> None:
    assert build.transliterate("Ефремова") == "Yefremova"
    assert build.transliterate("Щукин") == "Shchukin"
    assert build.transliterate("Ефремова1") == "Yefremova1"
    assert build.transliterate("Ефремоваλ") == ""


def test_variants_title_case_capitals(build) -> None:
    assert build._variants("CHEN") == ["Chen"]
    assert build._variants("Иван") == ["Иван", "Ivan"]


@pytest.mark.parametrize(("text", "label"), [
    ("Seen with Mette today.", "NAME"),
    ("Referred by Lepistö.", "NAME"),
    ("Moved from SEINÄJOKI last year.", "LOCATION.CITY"),
    ("Family lives near Lappeenranta.", "LOCATION.CITY"),
])
def test_international_entries_match(en: GazetteerDetector, text: str, label: str) -> None:
    assert label in {s.label for s in en.analyze(text)}


@pytest.mark.parametrize("text", [
    "Patient plays the Piano and sang in the Arena. Reading is fine. Split dose. Nice to meet.",
    "Bot: hello. Sale price. Hope for the best.",
])
def test_common_english_words_are_not_added(en: GazetteerDetector, text: str) -> None:
    assert en.analyze(text) == []
