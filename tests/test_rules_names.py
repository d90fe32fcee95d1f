"""Context patterns for person names (clinanon.detect.rules.names): positives and negatives per language."""

from __future__ import annotations

import time

import pytest

from clinanon.detect.rules import names


def found(lang: str, text: str) -> list[tuple[str, str]]:
    out = []
    for r in names.recognizers(lang):
        out += [(text[s.start:s.end], s.label) for s in r.analyze(text)]
    return sorted(out)


@pytest.mark.parametrize(("lang", "text", "expected"), [
    ("en", "Mr. Fábio Barros called.", ("Fábio Barros", "NAME")),
    ("en", "For my take on Mrs. Lennox, see below.", ("Lennox", "NAME")),
    ("en", "MR. SMITH WAS SEEN TODAY.", ("SMITH", "NAME")),
    ("en", "My name is Rubija", ("Rubija", "NAME")),
    ("en", "my name is eva kleist", ("eva kleist", "NAME")),
    ("en", "Her maiden name is Chmielewski", ("Chmielewski", "NAME")),
    ("en", "She named him Frank", ("Frank", "NAME")),
    ("en", "Seen by J. Smith yesterday.", ("J. Smith", "NAME")),
    ("en", "Reviewed with Jane Roe, MD.", ("Jane Roe", "NAME.DOCTOR")),
    ("en", "Sincerely,\nJohannes Varvio", ("Johannes Varvio", "NAME.DOCTOR")),
    ("en", "Seen by Prof. Hanna Kowalski.", ("Hanna Kowalski", "NAME.DOCTOR")),
    ("es", "Acude la Sra. María Pérez con su hijo.", ("María Pérez", "NAME")),
    ("es", "Me llamo Ana.", ("Ana", "NAME")),
    ("es", "Atentamente,\nLucía Gómez", ("Lucía Gómez", "NAME.DOCTOR")),
    ("nl", "Mevr. de Vries kwam langs.", ("de Vries", "NAME")),
    ("nl", "Gesprek met dhr. Jansen.", ("Jansen", "NAME")),
    ("nl", "Mijn naam is Sanne Bakker.", ("Sanne Bakker", "NAME")),
    ("sv", "Fru Andersson kom med Herr Lindqvist.", ("Andersson", "NAME")),
    ("sv", "Med vänliga hälsningar\nAnna Svensson", ("Anna Svensson", "NAME.DOCTOR")),
    ("de", "Frau Müller wurde aufgenommen.", ("Müller", "NAME")),
    ("de", "Untersucht von Prof. Dr. med. Hans Weber.", ("Hans Weber", "NAME.DOCTOR")),
    ("de", "Mit freundlichen Grüßen\nKlaus Fischer", ("Klaus Fischer", "NAME.DOCTOR")),
])
def test_name_patterns_find(lang: str, text: str, expected: tuple[str, str]) -> None:
    assert expected in found(lang, text)


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "Dr. visit scheduled. Mr. 5 mg given."),
    ("en", "History of Parkinson's disease; Foley catheter in place."),
    ("en", "Glasgow Coma Scale 15. Started Lasix, Coumadin and Digoxin."),
    ("en", "Positive for H. pylori and E. coli. Low vitamin D. Patient tolerated it."),
    ("en", "Blood Bank notified. Support Group on Monday."),
    ("en", "Mr. and Mrs. were not given."),
    ("es", "Técnica de T. Millin. Infección por H. Pylori."),
    ("es", "Paciente varón de 70 años, Servicio de Urología."),
    ("nl", "Patiënt werd opgenomen op de afdeling."),
    ("sv", "Patienten skrevs ut från avdelningen."),
    ("de", "Der Patient wurde auf Station aufgenommen."),
])
def test_name_patterns_negatives(lang: str, text: str) -> None:
    assert found(lang, text) == []


def test_honorific_is_not_part_of_the_span() -> None:
    text = "Mrs. Lennox"
    spans = [s for r in names.recognizers("en") for s in r.analyze(text)]
    assert [(s.start, s.end) for s in spans] == [(5, 11)]


def test_neighbour_extends_known_first_name() -> None:
    assert ("Krisztián Szöllösy", "NAME") in found("en", "Dear Krisztián Szöllösy, thanks.")


def test_neighbour_list_of_names() -> None:
    assert ("Gaetane", "NAME") in found("en", "They had 6: Gaetane, Hannah, Anthony, Derek")


def test_neighbour_stops_at_a_field_label() -> None:
    # "NºCol" is a glued field label, not a surname
    spans = found("es", "Médico: Eduardo Hernández NºCol: 28 28 32")
    assert all("NºCol" not in t for t, _ in spans)


@pytest.mark.parametrize(("lang", "scale"), [("en", 1), ("es", 10), ("nl", 10), ("sv", 10), ("de", 10)])
def test_adversarial_inputs_are_fast(lang: str, scale: int) -> None:
    """100 k capitalised words, a 1 MB line and 200 k digits (a tenth of that for the other languages)."""
    caps = " ".join(["Abcdef", "Ghijk", "Jan", "Mr.", "J.", "Van", "Smith,", "and"] * (12_500 // scale))
    line = ("Mr. Smith 12 Main " * 60_000)[:1_000_000 // scale]
    digits = "1" * (200_000 // scale)
    recs = names.recognizers(lang)
    t0 = time.process_time()
    for text in (caps, line, digits):
        for r in recs:
            r.analyze(text)
    assert time.process_time() - t0 < 20.0
