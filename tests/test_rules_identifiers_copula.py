"""Identifier field values after a copula ("license number is 6940579")."""

from __future__ import annotations

import pytest

from clinanon.detect.rules import identifiers


def found(lang: str, text: str) -> list[tuple[str, str]]:
    return [(text[s.start:s.end], s.label) for r in identifiers.recognizers(lang) for s in r.analyze(text)]


@pytest.mark.parametrize(("text", "expected"), [
    ("My driver's license number is 6940579", ("6940579", "ID.LICENSE")),
    ("my driver's license number is 2270-66-1551", ("2270-66-1551", "ID.LICENSE")),
    ("His passport number was X1234567.", ("X1234567", "ID.IDNUM")),
])
def test_value_after_copula(text: str, expected: tuple[str, str]) -> None:
    assert expected in found("en", text)


def test_weak_label_still_needs_a_colon() -> None:
    assert found("en", "The ID is 12345 and the license is pending.") == []
