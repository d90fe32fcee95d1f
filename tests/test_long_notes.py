"""Long notes (issue 17): the resolver's cover check is not quadratic; detection in windows finds what one-piece
detection finds (names propagated over the whole note), owns each span once, and never overlaps at a border."""

from __future__ import annotations

import time
from itertools import pairwise

import pytest

from clinanon.config import Config
from clinanon.document import Document, Span
from clinanon.pipeline import Pipeline
from clinanon.steps.resolve import Resolver
from clinanon.windows import long_note_analysis, split_windows


# --- the resolver -------------------------------------------------------------------------------------------
def test_a_chain_covered_by_a_place_is_not_merged() -> None:
    text = "Vive en Talavera de la Reina con Ana Ruiz Pérez."
    t = text.index("Talavera")
    r = text.index("Reina")
    a = text.index("Ana")
    spans = [Span(t, t + 8, "NAME", "g:surname", 0.6), Span(r, r + 5, "NAME", "g:first_name", 0.6),
             Span(t, r + 5, "LOCATION.CITY", "g:city", 0.9),
             Span(a, a + 3, "NAME", "g:first_name", 0.6), Span(a + 4, a + 8, "NAME", "g:surname", 0.6),
             Span(a + 9, a + 14, "NAME", "g:surname", 0.6)]
    merged = Resolver().merge(text, spans)
    assert [(m.start, m.end) for m in merged] == [(a, a + 14)]  # Ana Ruiz Pérez; not "Talavera de la Reina"
    # a place that covers only part of the chain does not stop it
    merged = Resolver().merge(text, [*spans, Span(a + 4, a + 8, "LOCATION.CITY", "g:city", 0.3)])
    assert (a, a + 14) in [(m.start, m.end) for m in merged]


def test_merge_is_near_linear_in_names_times_places() -> None:
    """Each name chain used to be compared with every place: 8 000 chains x 8 000 places took minutes."""
    n = 8_000
    unit = "Ana Ruiz en Lugo. "
    text = unit * n
    spans = []
    for i in range(n):
        o = i * len(unit)
        spans += [Span(o, o + 3, "NAME", "g:first_name", 0.6), Span(o + 4, o + 8, "NAME", "g:surname", 0.6),
                  Span(o + 12, o + 16, "LOCATION.CITY", "g:city", 0.9)]
    t = time.process_time()
    merged = Resolver().merge(text, spans)
    assert len(merged) == n
    assert time.process_time() - t < 5.0


# --- windows --------------------------------------------------------------------------------------------------
def test_windows_cover_the_text_and_cut_at_paragraphs() -> None:
    paragraphs = [f"Párrafo {i}. " + "Texto clínico del paciente. " * (5 + i % 7) for i in range(200)]
    text = "\n\n".join(paragraphs)
    wins = split_windows(text, size=2_000, overlap=300)
    assert wins[0].core_start == 0 and wins[-1].core_end == len(text)
    for a, b in pairwise(wins):
        assert a.core_end == b.core_start  # the cores partition the text
        assert text[a.core_end - 2:a.core_end] == "\n\n"  # at a paragraph break
    for w in wins:
        assert w.start <= w.core_start < w.core_end <= w.end
        assert w.core_start - w.start <= 300 and w.end - w.core_end <= 300
        assert w.core_end - w.core_start <= 2_000
    # no paragraph, no line break, no sentence end: a space; no space at all: a hard cut
    assert all(text2[w.core_end - 1] == " " for text2 in ["palabra " * 2_000]
               for w in split_windows(text2, 1_000, 100)[:-1])
    assert [w.core_end for w in split_windows("x" * 2_500, 1_000, 100)] == [1_000, 2_000, 2_500]


def _note(paragraphs: int) -> str:
    out = []
    for i in range(paragraphs):
        out.append(f"Informe {i}. Paciente: Rosalía Etxeberria Lizarraga, de {30 + i % 50} años, natural de "
                   f"Bilbao. Ingresa el {1 + i % 28}/03/2019 en el Hospital de Cruces.\n"
                   "Exploración física sin hallazgos relevantes. Tensión arterial normal. " * 3)
    # far from every other mention (more than a window away), the surname alone: found by propagation of the
    # name over the whole note
    out += ["Evolución favorable sin incidencias durante el ingreso. " * 8] * 20
    out.append("Comentario final: Etxeberria refiere mejoría clínica.")
    return "\n\n".join(out)


@pytest.fixture(scope="module")
def rules_es() -> Pipeline:
    return Pipeline(Config.from_dict({"language": "es", "detectors": {"use": ["rules"]}}))


def test_windowed_detection_equals_one_piece(rules_es: Pipeline) -> None:
    doc = Document("long", _note(60))
    rules_es.long_note_chars = None
    whole = rules_es.detect_spans(doc)
    rules_es.long_note_chars, rules_es.window_chars = 5_000, 3_000
    try:
        windowed = rules_es.detect_spans(doc)
    finally:
        rules_es.long_note_chars, rules_es.window_chars = Pipeline.long_note_chars, Pipeline.window_chars
    assert len(split_windows(doc.text, 3_000)) > 5
    assert [(s.start, s.end, s.label) for s in windowed] == [(s.start, s.end, s.label) for s in whole]
    last = doc.text.rindex("Etxeberria")
    assert doc.text.rindex("Etxeberria", 0, last) < last - 3_000 - 2 * 2_000  # none in the last window
    assert any(s.start == last and s.source == "propagate" for s in windowed)  # propagated from window 1
    assert all(a.end <= b.start for a, b in pairwise(windowed))


def test_spans_on_window_borders_are_found_once(rules_es: Pipeline) -> None:
    """Cores that end at many different places (small windows, little overlap): one-piece spans, each once."""
    doc = Document("b", _note(12))
    rules_es.long_note_chars = None
    whole = [(s.start, s.end, s.label) for s in rules_es.detect_spans(doc)]
    try:
        for size in (700, 1_100, 1_900):
            rules_es.long_note_chars, rules_es.window_chars = 500, size
            spans = rules_es.detect_spans(doc)
            assert all(a.end <= b.start for a, b in pairwise(spans))
            assert [(s.start, s.end, s.label) for s in spans] == whole, size
    finally:
        rules_es.long_note_chars, rules_es.window_chars = Pipeline.long_note_chars, Pipeline.window_chars


def test_deidentify_a_long_note_replaces_every_name(rules_es: Pipeline) -> None:
    doc = Document("long", _note(40))
    rules_es.long_note_chars, rules_es.window_chars = 5_000, 3_000
    try:
        out = rules_es.deidentify(doc)
    finally:
        rules_es.long_note_chars, rules_es.window_chars = Pipeline.long_note_chars, Pipeline.window_chars
    assert "Etxeberria" not in out.text and "Rosalía" not in out.text


def test_the_language_of_a_long_note_is_identified_from_its_start() -> None:
    doc = Document("n", "The patient was seen in the clinic today and is doing well. " * 5_000)
    a = long_note_analysis(doc, "auto")
    assert a.lang == "en" and a.identified and a.view.identity
    assert long_note_analysis(doc.with_meta(lang="es"), "auto").lang == "es"
