"""Resolver: overlaps, priorities, name merging; determinism under permutation."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.steps.resolve import Resolver


def texts(text: str, spans: list[Span]) -> list[tuple[str, str]]:
    return [(text[s.start:s.end], s.label) for s in spans]


def part(text: str, word: str, kind: str = "surname", nth: int = 0, score: float = 0.6) -> Span:
    start = -1
    for _ in range(nth + 1):
        start = text.index(word, start + 1)
    return Span(start, start + len(word), "NAME", f"gazetteer:{kind}", score)


def test_merges_adjacent_name_parts() -> None:
    text = "Médico: Ignacio Navarro Cuéllar NºCol: 28"
    spans = [part(text, "Ignacio", "first_name:M", score=0.7), part(text, "Navarro"), part(text, "Cuéllar")]
    out = Resolver().resolve(text, spans)
    assert texts(text, out) == [("Ignacio Navarro Cuéllar", "NAME")]
    assert out[0].source == "resolve:merge" and out[0].score == pytest.approx(0.8)


def test_does_not_absorb_non_name_word() -> None:
    text = "Navarro Cuéllar Servicio de Urología"
    spans = [part(text, "Navarro"), part(text, "Cuéllar")]
    assert texts(text, Resolver().resolve(text, spans)) == [("Navarro Cuéllar", "NAME")]


@pytest.mark.parametrize(("text", "words", "expected"), [
    ("Juan García de la Fuente vino", ["Juan", "García", "Fuente"], ["Juan García de la Fuente"]),
    ("José Ortega y Gasset escribió", ["José", "Ortega", "Gasset"], ["José Ortega y Gasset"]),
    ("Pieter van Dijk kwam", ["Pieter", "Dijk"], ["Pieter van Dijk"]),
    ("Ana Pérez-Gil vino", ["Ana", "Pérez", "Gil"], ["Ana Pérez-Gil"]),
    ("Juan, García", ["Juan", "García"], ["Juan", "García"]),
    ("Juan  García", ["Juan", "García"], ["Juan", "García"]),
    ("Juan\nGarcía", ["Juan", "García"], ["Juan", "García"]),
])
def test_particles(text: str, words: list[str], expected: list[str]) -> None:
    spans = [part(text, w, "first_name:M" if w in ("Juan", "José", "Pieter", "Ana") else "surname")
             for w in words]
    assert [t for t, _ in texts(text, Resolver().resolve(text, spans))] == expected


def test_y_does_not_join_two_first_names() -> None:
    text = "Pedro y Juan llegaron"
    spans = [part(text, "Pedro", "first_name:M"), part(text, "Juan", "first_name:M")]
    assert [t for t, _ in texts(text, Resolver().resolve(text, spans))] == ["Pedro", "Juan"]


def test_place_names_are_not_merged_into_a_name() -> None:
    text = "28034 Madrid España E-mail"
    spans = [part(text, "Madrid"), part(text, "España"),
             Span(6, 12, "LOCATION.CITY", "gazetteer:city", 0.75),
             Span(13, 19, "LOCATION.COUNTRY", "gazetteer:country", 0.85)]
    assert texts(text, Resolver().resolve(text, spans)) == [("Madrid", "LOCATION.CITY"),
                                                            ("España", "LOCATION.COUNTRY")]
    # but a first name before an ambiguous surname still merges: "Pedro León"
    text2 = "Dr. Pedro León"
    spans2 = [part(text2, "Pedro", "first_name:M", score=0.7), part(text2, "León"),
              Span(10, 14, "LOCATION.CITY", "gazetteer:city", 0.75)]
    assert texts(text2, Resolver().resolve(text2, spans2)) == [("Pedro León", "NAME")]


def test_merged_label_keeps_a_common_subtype() -> None:
    text = "Ana Ruiz"
    spans = [Span(0, 3, "NAME.PATIENT", "crf"), Span(4, 8, "NAME", "gazetteer:surname", 0.6)]
    assert texts(text, Resolver().resolve(text, spans)) == [("Ana Ruiz", "NAME.PATIENT")]
    spans = [Span(0, 3, "NAME.PATIENT", "crf"), Span(4, 8, "NAME.DOCTOR", "crf")]
    assert texts(text, Resolver().resolve(text, spans)) == [("Ana Ruiz", "NAME")]


def test_priorities_and_min_score() -> None:
    text = "abcdefghij"
    long_low = Span(0, 6, "A", "x", 0.55)
    short_high = Span(0, 3, "B", "y", 0.9)
    other = Span(4, 8, "C", "z", 0.8)
    assert Resolver().resolve(text, [long_low, short_high, other]) == [long_low]
    assert Resolver(priority=("score", "length")).resolve(text, [long_low, short_high, other]) == [
        short_high, other]
    assert Resolver(min_score=0.6).resolve(text, [long_low, short_high]) == [short_high]
    a, b = Span(0, 3, "A", "rules:date", 0.7), Span(0, 3, "B", "gazetteer:city", 0.7)
    assert Resolver(source_priority={"gazetteer": 2, "rules": 1}).resolve(text, [a, b]) == [b]
    assert Resolver(source_priority={"gazetteer": 1, "rules:date": 2}).resolve(text, [a, b]) == [a]
    assert Resolver(merge_names=False).resolve("Ana Ruiz", [Span(0, 3, "NAME"), Span(4, 8, "NAME")]) == [
        Span(0, 3, "NAME"), Span(4, 8, "NAME")]
    with pytest.raises(ConfigError):
        Resolver(priority=("colour",))


def test_accepts_document() -> None:
    doc = Document("d", "Ana Ruiz")
    assert Resolver().resolve(doc, [Span(0, 3, "NAME"), Span(4, 8, "NAME")]) == [Span(0, 8, "NAME", "resolve:merge")]


_TEXT = "Ana María de la Fuente y Ruiz-Gil vive en Santa Cruz de Tenerife, España."
_spans = st.builds(
    lambda a, n, lab, src, sc: Span(a, min(len(_TEXT), a + n), lab, src, sc),
    st.integers(0, len(_TEXT) - 1), st.integers(1, 12),
    st.sampled_from(["NAME", "NAME.PATIENT", "LOCATION.CITY", "DATE"]),
    st.sampled_from(["gazetteer:first_name:F", "gazetteer:surname", "gazetteer:city", "rules:x"]),
    st.sampled_from([0.4, 0.6, 0.7, 0.75, 0.9]),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_spans, max_size=14), st.randoms(use_true_random=False))
def test_deterministic_under_permutation(spans: list[Span], rnd) -> None:  # type: ignore[no-untyped-def]
    res = Resolver(source_priority={"gazetteer": 1})
    expected = res.resolve(_TEXT, spans)
    shuffled = list(spans)
    rnd.shuffle(shuffled)
    assert res.resolve(_TEXT, shuffled) == expected
    assert res.resolve(_TEXT, shuffled + shuffled[:3]) == expected  # duplicates change nothing
    for a, b in itertools.pairwise(expected):
        assert a.end <= b.start  # non-overlapping and sorted


def test_large_candidate_sets_are_fast() -> None:
    import time

    from clinanon.detect.gazetteer import GazetteerDetector
    from clinanon.steps.propagate import propagate

    text = " ".join(["Juan García Hospital Universitario De La Paz y María López"] * 3000)
    cands = GazetteerDetector("es").analyze(text)
    t = time.process_time()
    out = Resolver().resolve(text, cands)
    out = propagate(Document("d", text), out, case="fold")
    assert time.process_time() - t < 5.0
    assert all(a.end <= b.start for a, b in itertools.pairwise(out))
