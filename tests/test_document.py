from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clinanon.document import Document, FrozenMeta, Replacement, SanitizedDocument, Span
from clinanon.errors import SpanError

SECRET = "Zacarías Ñúñez"


def test_span_validation() -> None:
    with pytest.raises(SpanError):
        Span(-1, 3, "NAME")
    with pytest.raises(SpanError):
        Span(3, 3, "NAME")
    with pytest.raises(SpanError):
        Span(4, 3, "NAME")
    with pytest.raises(SpanError):
        Span(0, 3, "")
    with pytest.raises(SpanError):
        Span(0, 3, "NAME", score=1.5)


def test_document_validates_span_bounds_and_sorts() -> None:
    with pytest.raises(SpanError, match="ends past the text"):
        Document("d", "abc", (Span(1, 4, "X"),))
    doc = Document("d", "abcdef", (Span(3, 5, "B"), Span(0, 2, "A")))
    assert [s.label for s in doc.spans] == ["A", "B"]
    assert doc.span_text(doc.spans[1]) == "de"


def test_document_is_immutable_and_picklable() -> None:
    doc = Document("d", "abc", (), {"patient": "p1"})
    with pytest.raises(AttributeError):
        doc.text = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        doc.meta["patient"] = "p2"  # type: ignore[index]
    again = pickle.loads(pickle.dumps(doc))
    assert again == doc and isinstance(again.meta, FrozenMeta)
    assert doc.with_meta(patient="p2").meta["patient"] == "p2"


def test_repr_never_shows_text() -> None:
    doc = Document("d", f"Paciente {SECRET}.", (Span(9, 9 + len(SECRET), "NAME"),))
    assert SECRET not in repr(doc) and SECRET not in str(doc)
    assert SECRET not in repr(doc.spans[0])


def test_dict_round_trip() -> None:
    doc = Document("d", "hola mundo", (Span(0, 4, "X", "rules", 0.75),), {"k": [1, 2]})
    assert Document.from_dict(doc.to_dict()) == doc


def test_replacement_log_maps_both_ways() -> None:
    # "Juan vino el 3/4." -> "[NAME] vino el [DATE]."
    original = "Juan vino el 3/4."
    out = "[NAME] vino el [DATE]."
    reps = (Replacement(0, 4, 0, 6, "NAME", "NAME", "tag"), Replacement(13, 16, 15, 21, "DATE", "DATE", "tag"))
    san = SanitizedDocument("d", out, len(original), reps)
    assert san.to_output(0) == 0
    assert san.to_output(2) == 0  # inside a replaced region -> start of its replacement
    assert san.to_output(4) == 6  # first char after the name
    assert san.to_output(13) == 15
    assert san.to_output(16) == 21
    assert san.to_output(17) == 22 == len(out)
    assert san.to_original(6) == 4
    assert san.to_original(3) == 0
    assert san.to_original(22) == 17
    assert [out[s.start:s.end] for s in san.output_spans()] == ["[NAME]", "[DATE]"]


def test_replacement_log_rejects_inconsistent_offsets() -> None:
    with pytest.raises(SpanError):
        SanitizedDocument("d", "xx", 5, (Replacement(0, 2, 0, 1, "A", "A", "tag"),))


@st.composite
def docs_with_spans(draw: st.DrawFn) -> Document:
    text = draw(st.text(min_size=1, max_size=60))
    n = len(text)
    spans = []
    for _ in range(draw(st.integers(0, 5))):
        a = draw(st.integers(0, n - 1))
        b = draw(st.integers(a + 1, n))
        spans.append(Span(a, b, draw(st.sampled_from(["NAME", "DATE", "ID"]))))
    return Document("h", text, tuple(spans))


@given(docs_with_spans())
def test_spans_never_cross_text_bounds(doc: Document) -> None:
    for s in doc.spans:
        assert 0 <= s.start < s.end <= len(doc.text)
    assert list(doc.spans) == sorted(doc.spans)
    assert Document.from_dict(doc.to_dict()) == doc
