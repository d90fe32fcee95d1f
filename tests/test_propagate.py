"""Document-level propagation of names."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from clinanon.document import Document, Span
from clinanon.steps.propagate import propagate


def at(text: str, word: str, label: str = "NAME", nth: int = 0, source: str = "x", score: float = 0.8) -> Span:
    start = -1
    for _ in range(nth + 1):
        start = text.index(word, start + 1)
    return Span(start, start + len(word), label, source, score)


def shown(doc: Document, spans: list[Span]) -> list[tuple[str, str, str]]:
    return [(doc.span_text(s), s.label, s.source) for s in spans]


def test_full_name_and_surname_alone() -> None:
    text = ("Médico: Ignacio Navarro Cuéllar. El Dr. Navarro Cuéllar revisa. Navarro indica reposo. "
            "Firmado: Ignacio Navarro Cuéllar. Cuéllar.")
    doc = Document("d", text)
    seed = at(text, "Ignacio Navarro Cuéllar", "NAME.DOCTOR")
    out = propagate(doc, [seed])
    assert shown(doc, out) == [
        ("Ignacio Navarro Cuéllar", "NAME.DOCTOR", "x"),
        ("Navarro Cuéllar", "NAME.DOCTOR", "propagate"),
        ("Navarro", "NAME.DOCTOR", "propagate"),
        ("Ignacio Navarro Cuéllar", "NAME.DOCTOR", "propagate"),
        ("Cuéllar", "NAME.DOCTOR", "propagate"),
    ]
    assert all(s.score == 0.72 for s in out if s.source == "propagate")
    # the first name alone is not propagated; surnames=False turns off the parts
    assert shown(doc, propagate(doc, [seed], surnames=False))[1:] == [
        ("Ignacio Navarro Cuéllar", "NAME.DOCTOR", "propagate")]


def test_case_sensitive_by_default_and_fold_option() -> None:
    text = "Paciente García. Antecedentes: GARCÍA refiere dolor. garcía. Garcia."
    doc = Document("d", text)
    seed = [at(text, "García")]
    assert len(propagate(doc, seed)) == 1
    folded = propagate(doc, seed, case="fold")
    assert [doc.span_text(s) for s in folded] == ["García", "GARCÍA", "garcía"]
    both = propagate(doc, seed, case="fold", accents="fold")
    assert [doc.span_text(s) for s in both] == ["García", "GARCÍA", "garcía", "Garcia"]


def test_whole_tokens_only_and_no_overlap_with_existing() -> None:
    text = "Rosa Pérez. Rosario. Hospital Rosa Pérez. Rosa Pérez vino."
    doc = Document("d", text)
    seed = at(text, "Rosa Pérez")
    hospital = Span(21, 40, "LOCATION.HOSPITAL", "rules")
    out = propagate(doc, [seed, hospital])
    assert shown(doc, out) == [("Rosa Pérez", "NAME", "x"), ("Hospital Rosa Pérez", "LOCATION.HOSPITAL", "rules"),
                               ("Rosa Pérez", "NAME", "propagate")]
    for a in out:
        for b in out:
            assert a is b or a == b or not a.overlaps(b)


def test_labels_prefix_predicate_and_min_len() -> None:
    text = "NOMBRE: Li. Li vino. Juan Li. Madrid y Madrid."
    doc = Document("d", text)
    seeds = [at(text, "Li", "NOMBRE_SUJETO_ASISTENCIA"), at(text, "Madrid", "TERRITORIO")]
    out = propagate(doc, seeds, labels=("NOMBRE",))
    assert [doc.span_text(s) for s in out if s.source == "propagate"] == ["Li", "Li"]
    assert [s for s in propagate(doc, seeds, labels=("NOMBRE",), min_len=3) if s.source == "propagate"] == []
    out = propagate(doc, seeds, labels=lambda lab: lab == "TERRITORIO")
    assert [doc.span_text(s) for s in out if s.source == "propagate"] == ["Madrid"]


def test_most_frequent_label_wins() -> None:
    text = "Ruiz y Ruiz. Ruiz. Ruiz"
    doc = Document("d", text)
    seeds = [at(text, "Ruiz", "NAME.PATIENT", 0), at(text, "Ruiz", "NAME.PATIENT", 1),
             at(text, "Ruiz", "NAME.DOCTOR", 2)]
    out = propagate(doc, seeds)
    assert [(doc.span_text(s), s.label) for s in out if s.source == "propagate"] == [("Ruiz", "NAME.PATIENT")]


def test_no_seed_returns_input() -> None:
    doc = Document("d", "Nada que ver.")
    assert propagate(doc, []) == []


_TEXT = "Ana Ruiz vio a Ruiz y a Ana. ANA RUIZ. Ruiz-Gil, Ana Ruiz."


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([(0, 8), (0, 3), (4, 8), (15, 19), (24, 27), (38, 46), (29, 37)]),
                max_size=5, unique=True), st.randoms(use_true_random=False))
def test_order_independent_and_non_overlapping(extents, rnd) -> None:  # type: ignore[no-untyped-def]
    doc = Document("d", _TEXT)
    spans = [Span(a, b, "NAME") for a, b in extents]
    expected = propagate(doc, spans, case="fold")
    rnd.shuffle(spans)
    assert propagate(doc, spans, case="fold") == expected
    new = [s for s in expected if s.source == "propagate"]
    for s in new:
        assert not any(s.overlaps(o) for o in expected if o is not s)


def test_function_word_of_a_name_is_not_propagated_alone() -> None:
    """A name that ran into an address ("... Ofiplaza El Retiro") must not tag every sentence-initial "El"."""
    from clinanon.document import Document, Span
    from clinanon.steps.propagate import propagate

    text = "Dr. Mauricio Mendieta Espinosa Ofiplaza El Retiro. El paciente vio a Espinosa. The Retiro."
    doc = Document(text=text, id="d")
    name = Span(4, text.index(".", 5), "NAME.DOCTOR", "x", 0.9)
    got = [(text[s.start:s.end], s.source) for s in propagate(doc, [name], lang="es")]
    assert got == [("Mauricio Mendieta Espinosa Ofiplaza El Retiro", "x"), ("Espinosa", "propagate"),
                   ("Retiro", "propagate")]
