"""Profiles (clinanon.profiles) and the ``profile`` step (clinanon.steps.profile)."""

from __future__ import annotations

import pytest

from clinanon.analysis import Analysis
from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.profiles import PROFILES, age_value, filter_documents, get_profile, is_time_of_day, list_profiles
from clinanon.steps.base import Step
from clinanon.steps.profile import ApplyProfile
from clinanon.taxonomy import LabelScheme


def _spans(text: str, *items: tuple[str, str]) -> list[Span]:
    """A span for the first occurrence of each ``(substring, label)``."""
    out = []
    for sub, label in items:
        i = text.index(sub)
        out.append(Span(i, i + len(sub), label, "test", 0.9))
    return out


NOTE = ("Mr. Whitaker, 67 yo male, retired teacher, seen at 4PM on 10/19; his mother, 93 years old, lives in "
        "Baltimore, Maryland, USA.")
ITEMS = (("Whitaker", "NAME.PATIENT"), ("67 yo", "AGE"), ("male", "SEX"), ("teacher", "PROFESSION"),
         ("4PM", "DATE"), ("10/19", "DATE"), ("93 years old", "AGE"), ("Baltimore", "LOCATION.CITY"),
         ("Maryland", "LOCATION.STATE"), ("USA", "LOCATION.COUNTRY"))


def _kept(profile: str) -> list[str]:
    spans = _spans(NOTE, *ITEMS)
    return [NOTE[s.start:s.end] for s in get_profile(profile).filter(NOTE, spans)]


def test_hipaa_keeps_the_safe_harbor_identifiers_only() -> None:
    assert _kept("hipaa") == ["Whitaker", "10/19", "93 years old", "Baltimore"]


def test_gdpr_strict_keeps_everything() -> None:
    assert _kept("gdpr-strict") == [sub for sub, _ in ITEMS]


def test_meddocan_keeps_ages_and_sex_but_not_clock_times() -> None:
    kept = _kept("meddocan")
    assert "4PM" not in kept
    assert {"67 yo", "male", "teacher", "93 years old", "Maryland"} <= set(kept)


@pytest.mark.parametrize(("text", "value"), [
    ("67", 67), ("67 yo", 67), ("89-year-old", 89), ("90", 90), ("in her 90s", 90), ("ninety-two", 92),
    ("noventa y dos años", 92), ("eighty", 80), ("18 months", 0), ("3 weeks old", 0), ("a hundred and one", 100),
    ("elderly", None),
])
def test_age_value(text: str, value: int | None) -> None:
    assert age_value(text) == value


def test_hipaa_age_threshold_and_unreadable_ages() -> None:
    hipaa = get_profile("hipaa")
    assert not hipaa.is_phi("AGE", "89")
    assert hipaa.is_phi("AGE", "90")
    assert hipaa.is_phi("AGE", "very old")  # cannot be read: kept, on the safe side


@pytest.mark.parametrize("text", ["4PM", "1:45pm", "13:45", "10 a.m.", "14 Uhr", "0930 h", "noon", "at 7pm"])
def test_clock_times(text: str) -> None:
    assert is_time_of_day(text)


@pytest.mark.parametrize("text", ["10/19", "10/19 4pm", "March 3", "2016", "12/03/2016 14:30"])
def test_dates_are_not_clock_times(text: str) -> None:
    assert not is_time_of_day(text)


def test_unknown_categories_are_kept_and_unknown_profiles_refused() -> None:
    assert get_profile("hipaa").is_phi("MY_LABEL", "x")
    assert set(list_profiles()) == {"hipaa", "gdpr-strict", "meddocan"}
    with pytest.raises(ConfigError):
        get_profile("ccpa")
    assert get_profile(PROFILES["hipaa"]) is PROFILES["hipaa"]


def test_filter_documents_maps_native_labels() -> None:
    scheme = LabelScheme("notes-test", "test", {"Age": "AGE", "Name": "NAME", "Date": "DATE"})
    text = "Ann, 45, seen 3/4 at 5pm"
    doc = Document("d1", text, tuple(_spans(text, ("Ann", "Name"), ("45", "Age"), ("3/4", "Date"), ("5pm", "Date"))))
    out = filter_documents([doc], "hipaa", scheme.category)
    assert [text[s.start:s.end] for s in out[0].spans] == ["Ann", "3/4"]
    untouched = Document("d2", "nothing here")
    assert filter_documents([untouched], "hipaa")[0] is untouched


def test_profile_step() -> None:
    step = ApplyProfile("hipaa")
    assert isinstance(step, Step) and step.name == "profile"
    doc = Document("n1", NOTE)
    spans = _spans(NOTE, *ITEMS)
    kept = step.process(Analysis.of(doc, "en"), spans)
    assert [NOTE[s.start:s.end] for s in kept] == ["Whitaker", "10/19", "93 years old", "Baltimore"]
    assert "Whitaker" not in repr(step)
    # labels of a model's scheme: category_of maps them
    native = [Span(s.start, s.end, "X_" + s.label, s.source, s.score) for s in spans]
    step2 = ApplyProfile("hipaa", category_of=lambda label: label[2:])
    assert len(step2.process(Analysis.of(doc, "en"), native)) == 4
