"""AllowList: eponyms, common words, field labels, eponym contexts, user extra / deny lists."""

from __future__ import annotations

import pytest

from clinanon.detect.allowlist import AllowList
from clinanon.document import Span
from clinanon.errors import ConfigError


def test_strong_eponyms_and_labels_are_allowed() -> None:
    al = AllowList("es")
    for w in ("Parkinson", "PARKINSON", "Dupuytren", "Guillain-Barré", "guillain-barre", "Apgar", "Nombre",
              "Apellidos", "Niña"):
        assert al.is_allowed(w), w
    for w in ("García", "Wilson", "Graves", "Bell", "Rosa", "Pilar"):  # real names / weak eponyms
        assert not al.is_allowed(w), w
    assert "Parkinson" in al and 3 not in al


def test_exact_case_entries() -> None:
    al = AllowList("es")
    assert al.is_allowed("ELISA") and not al.is_allowed("Elisa")


def test_genitive_eponym_in_germanic_languages() -> None:
    assert AllowList("sv").is_allowed("Parkinsons")
    assert AllowList("en").is_allowed("Parkinson's")
    assert not AllowList("es").is_allowed("Parkinsons")


@pytest.mark.parametrize(("lang", "text", "word", "expected"), [
    ("es", "antecedente de enfermedad de Wilson", "Wilson", True),
    ("es", "síndrome de Down", "Down", True),
    ("es", "ENFERMEDAD DE Graves", "Graves", True),
    ("es", "visto por el Dr. Wilson", "Wilson", False),
    ("de", "Verdacht auf Morbus Basedow", "Basedow", True),
    ("de", "Cushing-Syndrom", "Cushing", True),
    ("en", "Graves' disease", "Graves", True),
    ("en", "Bell's palsy", "Bell", True),
    ("en", "seen by Dr Bell today", "Bell", False),
    ("nl", "ziekte van Graves", "Graves", True),
    ("sv", "Graves sjukdom", "Graves", True),
])
def test_eponym_context(lang: str, text: str, word: str, expected: bool) -> None:
    start = text.index(word)
    assert AllowList(lang).in_eponym_context(text, start, start + len(word)) is expected


def test_context_does_not_cross_lines() -> None:
    text = "Enfermedad de\nWilson"
    assert not AllowList("es").in_eponym_context(text, 14, 20)


def test_extra_and_deny() -> None:
    al = AllowList("es", extra=["Quirófano Azul"], deny={"Parkinson": "NAME", "Bob Esponja": "NAME"})
    assert al.is_allowed("quirofano azul")
    assert al.is_denied("PARKINSON") and not al.is_allowed("Parkinson")
    text = "Paciente Bob Esponja, sin Parkinson. Quirófano Azul."
    spans = [Span(26, 35, "NAME", "gazetteer:surname", 0.6), Span(37, 45, "NAME", "gazetteer:surname", 0.6)]
    out = al.filter(text, spans)
    assert [(text[s.start:s.end], s.source) for s in out] == [
        ("Bob Esponja", "allowlist:deny"), ("Parkinson", "gazetteer:surname")]
    assert "Parkinson" not in repr(al)


def test_deny_as_iterable_gets_default_label() -> None:
    al = AllowList("es", deny=["Zeta"], deny_label="OTHER")
    assert [s.label for s in al.deny_spans("el caso Zeta")] == ["OTHER"]


def test_filter_drops_spans_in_allowed_phrases_and_contexts() -> None:
    al = AllowList("es")
    text = "Síndrome de Gilles de la Tourette y enfermedad de Wilson. Dr. Wilson."
    g = text.index("Gilles")
    w1 = text.index("Wilson")
    w2 = text.rindex("Wilson")
    spans = [Span(g, g + 6, "NAME", "gazetteer:first_name:M", 0.7), Span(w1, w1 + 6, "NAME", "g:surname", 0.6),
             Span(w2, w2 + 6, "NAME", "g:surname", 0.6)]
    assert al.filter(text, spans) == [spans[2]]


def test_bad_language() -> None:
    with pytest.raises(ConfigError):
        AllowList("fr")
