"""Organizations (clinanon.detect.rules.organizations): corporate suffixes and employer cues per language."""

from __future__ import annotations

import time

import pytest

from clinanon.detect.rules import organizations


def found(lang: str, text: str) -> list[str]:
    return sorted(text[s.start:s.end] for r in organizations.recognizers(lang) for s in r.analyze(text))


@pytest.mark.parametrize(("lang", "text", "expected"), [
    ("en", "Dzhambek is from Civic Impulse LLC.", "Civic Impulse LLC"),
    ("en", "Streetcred Software Inc. is an Icelandic firm.", "Streetcred Software Inc."),
    ("en", "I work for Rapid Cycle Solutions", "Rapid Cycle Solutions"),
    ("en", "He works at Citigroup since 2010.", "Citigroup"),
    ("en", "Allstate Insurance Group invested heavily.", "Allstate Insurance Group"),
    ("es", "Trabaja en Renfe desde 2010.", "Renfe"),
    ("es", "Contrato con Telefónica S.A. vigente.", "Telefónica S.A."),
    ("nl", "Hij werkt bij Philips sinds 2001.", "Philips"),
    ("nl", "Werkgever: Philips B.V.", "Philips B.V."),
    ("sv", "Hon arbetar på Volvo Cars.", "Volvo Cars"),
    ("sv", "Anställd vid Ericsson AB.", "Ericsson AB"),
    ("de", "Er arbeitet bei Siemens.", "Siemens"),
    ("de", "Die Bayer AG hat ihn versichert.", "Bayer AG"),
])
def test_organizations_found(lang: str, text: str, expected: str) -> None:
    assert expected in found(lang, text)


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "Blood Bank notified. Support Group on Monday. Admission Labs pending."),
    ("en", "Glasgow Coma Scale 15. Foley catheter. Parkinson's disease. Dr. visit. Mr. 5 mg."),
    ("en", "He works at the hospital and was employed by a bakery."),
    ("es", "Trabaja en la construcción. Grupo sanguíneo A."),
    ("nl", "Hij werkt bij de gemeente."),
    ("sv", "Hon arbetar på sjukhuset."),
    ("de", "Er arbeitet bei der Post nicht mehr. Blutgruppe A."),
])
def test_organization_negatives(lang: str, text: str) -> None:
    assert found(lang, text) == []


def test_label_is_organization() -> None:
    spans = [s for r in organizations.recognizers("en") for s in r.analyze("Siemens AG")]
    assert [s.label for s in spans] == ["LOCATION.ORGANIZATION"]


def test_adversarial_inputs_are_fast() -> None:
    caps = " ".join(["Abcdef", "Ghijk", "and", "Group", "Inc", "Works", "at"] * 15_000)  # 105 k words
    line = ("Acme Group works at Foo " * 45_000)[:1_000_000]
    t0 = time.process_time()
    for text in (caps, line, "1" * 200_000):
        for r in organizations.recognizers("en"):
            r.analyze(text)
    assert time.process_time() - t0 < 20.0
