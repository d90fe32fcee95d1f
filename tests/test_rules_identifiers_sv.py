"""Swedish personnummer whose check digit fails: tagged after a label, a patient header or a name; the
checksum-valid form unchanged; dates, phone numbers and lab values left alone."""

from __future__ import annotations

import time

import pytest

from clinanon.config import Config
from clinanon.detect.rules import identifiers as ids
from clinanon.document import Document
from clinanon.lang import checksums as cs
from clinanon.pipeline import Pipeline

# invented numbers; "-1234" / "1234" endings fail the Luhn check on these dates
_BAD = ("19500312-1234", "500312-1234", "120312+1234", "5003121234", "195003121234", "880674-2130")
_GOOD = "811218-9876"  # Luhn-valid


def test_the_numbers_fail_the_check_but_have_the_shape() -> None:
    for n in _BAD:
        assert not cs.is_valid_personnummer(n), n
        assert cs.is_personnummer_shaped(n), n
    assert cs.is_valid_personnummer(_GOOD) and cs.is_personnummer_shaped(_GOOD)
    for n in ("501312-1234", "500332-1234", "19500230-1234", "17500312-1234", "2020-03-12", "500312-123"):
        assert not cs.is_personnummer_shaped(n), n  # month 13, day 32, 30 February, 18th century at most, a date
    assert cs.is_personnummer_shaped("880674-2130")  # samordningsnummer: day 14 + 60
    assert not cs.is_personnummer_shaped("880674-2130", allow_coordination=False)


def _spans(text: str) -> list[tuple[str, str, float]]:
    return [(text[s.start:s.end], s.source.split(":")[-1], s.score) for s in ids.recognizers("sv")[0].analyze(text)
            if s.label == "ID.SSN"]


@pytest.mark.parametrize(("text", "value", "how"), [
    ("Personnummer: 19500312-1234. Söker för bröstsmärta.", "19500312-1234", "personnummer"),  # field label
    ("Pnr 120312+1234 (över 100 år)", "120312+1234", "label"),  # "+": the field value stopped at the plus
    ("Pers.nr 500312-1234", "500312-1234", "label"),
    ("pers nr: 500312-1234", "500312-1234", "label"),
    ("Personnummer:\n  500312 - 1234", "500312 - 1234", "label"),
    ("Samordningsnummer 880674-2130 angavs.", "880674-2130", "personnummer"),
    ("p-nr 5003121234", "5003121234", "personnummer"),
    ("Patient: Anna Svensson 500312-1234 inkommer", "500312-1234", "header"),
    ("Pat. Anna Svensson 195003121234", "195003121234", "header"),
    ("Patient: 500312-1234", "500312-1234", "header"),
    ("Anna Svensson, 19500312-1234, inkommer med ambulans.", "19500312-1234", "name"),
    ("Svensson, Anna 500312-1234", "500312-1234", "name"),
    ("Maja Andersson (500312-1234) kom i dag.", "500312-1234", "name"),
    ("Erik af Klint 500312-1234", "500312-1234", "name"),
    ("Johan Persson, 6607086299, 57 år.", "6607086299", "name"),  # ten bare digits, not from 0: not a phone
    ("Anna Berg\n500312-1234", "500312-1234", "name"),
])
def test_wrong_check_digit_in_context_is_an_id(text: str, value: str, how: str) -> None:
    found = _spans(text)
    assert [(v, h) for v, h, _ in found] == [(value, how)]
    score = found[0][2]
    assert score == (0.85 if how == "personnummer" else 0.8 if how == "label" else 0.6)


def test_scores_stay_below_the_checksum_valid_form() -> None:
    checks = ids.recognizers("sv")[1]
    by_name = checks.analyze(f"Anna Svensson, {_GOOD}")  # type: ignore[attr-defined]
    by_label = checks.analyze(f"Personnummer {_GOOD}")  # type: ignore[attr-defined]
    assert [s.score for s in by_name] == [0.7] and [s.score for s in by_label] == [1.0]
    assert _spans("Anna Svensson, 500312-1234")[0][2] < 0.7
    assert _spans("Pers.nr 500312-1234")[0][2] < 1.0
    # the valid one is the checksum recognizer's alone: the context recognizer adds nothing
    assert _spans(f"Anna Svensson, {_GOOD}") == []


@pytest.mark.parametrize("text", [
    "Kontroll 2020-03-12, Hb 123, CRP 5.",  # an ISO date
    "Anna Svensson 2020-03-12 kontroll",
    "Anna Svensson 0701234567",  # a mobile number (ten digits from 0) after a name
    "Anna Svensson 070-123 45 67",
    "Tel 08-123 456 78",
    "Remiss avseende 500312-1234",  # no label, header or name: left to the checksum
    "Inkommer 500312-1234",  # one capitalised word is not a name
    "Blodprov Klinisk Kemi 200312-1430",  # capitalised common words, no name among them
    "Anna Svensson 501312-1234",  # month 13: not a personnummer
    "Anna Svensson 123456-7890",
    "Anna Svensson 19500312",  # a date of birth without the four digits
    "Anna Svensson 1500312-1234",  # seven digits before the dash
    "Anna Svensson 500312-12345",
    "Anna Svensson 1.500312-1234",
    "Anna Svensson 500312-1234/5",  # part of a longer number
    "LPK 12,5 Hb 140 Krea 85 Anna Svensson pO2 12.3",
])
def test_false_positives(text: str) -> None:
    assert _spans(text) == []


def test_default_pipeline_replaces_a_mistyped_personnummer() -> None:
    nlp = Pipeline(Config.from_dict({"language": "sv", "label_scheme": "canonical"}))
    text = "Patient: Karin Lindqvist, 19470312-2385, inkommer med andnöd. Kontroll 2025-03-12."
    doc = next(iter(nlp.pipe([Document("d", text, meta={"lang": "sv"})], deidentify=False)))
    got = {(text[s.start:s.end], s.label.split(".")[0]) for s in doc.spans}  # type: ignore[union-attr]
    assert ("19470312-2385", "ID") in got
    assert ("2025-03-12", "DATE") in got


def test_own_notes_with_every_check_digit_broken() -> None:
    """The invented Swedish notes (tests/data/sv-notes) with the last digit of every gold personnummer changed so
    that its check fails: each is still found, in whatever context the note wrote it (label, "Pat." header,
    name), and nothing else becomes an ID (before the context recognizer: 2 of 5)."""
    from pathlib import Path

    from clinanon import io as cio

    docs = list(cio.read(Path(__file__).parent / "data" / "sv-notes", "brat", scheme="canonical"))
    nlp = Pipeline(Config.from_dict({"language": "sv", "label_scheme": "canonical"}))
    gold: set[tuple[str, int, int]] = set()
    broken = []
    for d in docs:
        text = d.text
        for g in d.spans:
            if g.label == "ID.SSN":
                text = text[:g.end - 1] + str((int(text[g.end - 1]) + 1) % 10) + text[g.end:]
                assert not cs.is_valid_personnummer(text[g.start:g.end])
                gold.add((d.id, g.start, g.end))
        broken.append(Document(d.id, text, meta={"lang": "sv"}))
    assert len(gold) == 5
    pred = {(d.id, s.start, s.end) for d in nlp.pipe(broken, deidentify=False)
            for s in d.spans if s.label.startswith("ID")}  # type: ignore[union-attr]
    assert pred == gold


_ADVERSARIAL = {
    "capitalised words then numbers": " ".join(["Anna", "Svensson,", "Pat.", "500312-1234"][i % 4]
                                               for i in range(200_000)),
    "labels": "Personnummer: " * 70_000,
    "labelled numbers cut at the plus": "Pnr: 120312+1234 " * 60_000,  # 60 000 field values inside as many
    "pnr-shaped runs": "500312-1234-" * 80_000,
    "digits": "1" * 1_000_000,
    "six digits and pluses": "500312+" * 140_000,
    "long line of capitals": ("Anna " * 200_000) + "500312-1234",
}


@pytest.mark.parametrize("name", list(_ADVERSARIAL))
def test_adversarial_inputs_finish_quickly(name: str) -> None:
    text = _ADVERSARIAL[name]
    for det in ids.recognizers("sv"):
        t0 = time.process_time()
        det.analyze(text)  # type: ignore[attr-defined]
        assert time.process_time() - t0 < 5.0, (name, det.name)
