"""Properties of the engine on random documents (hypothesis).

Alphabets are chosen so that "the output does not contain the span's text" is meaningful: filler text is Latin
lower case, replaced spans are Greek, kept spans are Cyrillic, and every replacement an operator can produce
(``XXXX``, ``#``/``*`` masks, ``[AGE]``, ``""``) is built from none of them.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from clinanon.document import Document, SanitizedDocument, Span
from clinanon.transform import KeepOperator, RedactOperator, SuppressOperator, TagOperator, anonymize

GREEK = "αβγδε"
CYRILLIC = "абвгд"

OPERATORS = {
    "NAME": RedactOperator(),  # "XXXX"
    "DATE": RedactOperator(mask_char="#"),  # same length
    "AGE": TagOperator(template="[{type}]"),  # "[AGE]"
    "ID": RedactOperator(mask_char="*", keep_whitespace=True),
    "SEX": KeepOperator(),
}


def expected_replacement(category: str, original: str) -> str:
    if category == "NAME":
        return "XXXX"
    if category == "DATE":
        return "#" * len(original)
    if category == "AGE":
        return "[AGE]"
    if category == "ID":
        return "".join(c if c.isspace() else "*" for c in original)
    return original


filler = st.text(alphabet="ab .\n", max_size=8)
greek_words = st.lists(st.text(alphabet=GREEK, min_size=1, max_size=4), min_size=1, max_size=3).map(" ".join)
cyrillic_words = st.text(alphabet=CYRILLIC, min_size=1, max_size=6)
segment = st.one_of(
    filler.map(lambda t: ("", t)),
    st.tuples(st.sampled_from(["NAME", "DATE", "AGE", "ID"]), greek_words),
    cyrillic_words.map(lambda t: ("SEX", t)),
)


def build(segments: list[tuple[str, str]]) -> tuple[Document, str]:
    """A document from the segments, and the output expected from OPERATORS (computed independently)."""
    text, expected, spans, pos = [], [], [], 0
    for category, chunk in segments:
        text.append(chunk)
        if category:
            spans.append(Span(pos, pos + len(chunk), category))
            expected.append(expected_replacement(category, chunk))
        else:
            expected.append(chunk)
        pos += len(chunk)
    return Document("h", "".join(text), tuple(spans)), "".join(expected)


def check_log(doc: Document, out: SanitizedDocument) -> None:
    """Unchanged text is copied at the offsets the log says, and the log rebuilds both texts."""
    prev_end = prev_out = 0
    rebuilt_out, rebuilt_orig = [], []
    for r in out.replacements:
        assert doc.text[prev_end:r.start] == out.text[prev_out:r.out_start]
        rebuilt_out += [doc.text[prev_end:r.start], out.text[r.out_start:r.out_end]]
        rebuilt_orig += [out.text[prev_out:r.out_start], doc.text[r.start:r.end]]
        prev_end, prev_out = r.end, r.out_end
    assert doc.text[prev_end:] == out.text[prev_out:]
    assert "".join(rebuilt_out) + doc.text[prev_end:] == out.text
    assert "".join(rebuilt_orig) + out.text[prev_out:] == doc.text
    replaced = {i for r in out.replacements for i in range(r.start, r.end)}
    for i in range(len(doc.text) + 1):  # offsets outside replaced regions map there and back
        if i not in replaced:
            assert out.to_original(out.to_output(i)) == i


@settings(max_examples=150, deadline=None)
@given(st.lists(segment, max_size=12))
def test_output_is_original_with_span_regions_replaced(segments: list[tuple[str, str]]) -> None:
    doc, expected = build(segments)
    out = anonymize(doc, operators=OPERATORS)
    assert out.text == expected
    check_log(doc, out)
    changed = [s for s in doc.spans if s.label != "SEX"]
    assert [(r.start, r.end, r.category) for r in out.replacements] == [(s.start, s.end, s.label) for s in changed]
    for s, r in zip(changed, out.replacements, strict=True):
        assert out.text[r.out_start:r.out_end] == expected_replacement(s.label, doc.span_text(s))
        assert out.to_output(s.start) == r.out_start
        # the property: the text of a span whose operator is not keep is gone
        assert doc.span_text(s) not in out.text
    assert not set(GREEK) & set(out.text)
    for s in doc.spans:  # kept spans are still there, where the log maps them
        if s.label == "SEX":
            start = out.to_output(s.start)
            assert out.text[start:start + len(s)] == doc.span_text(s)


# --- overlapping spans, suppress, keep: the engine stays consistent ------------------------------------------

ALL_OPERATORS = {
    "NAME": RedactOperator(),
    "DATE": RedactOperator(mask_char="#"),
    "AGE": TagOperator(template="[{type}]"),
    "OTHER": SuppressOperator(),
    "ID": SuppressOperator(placeholder="[S]", tidy=False),
    "SEX": KeepOperator(),
}
REPLACEMENT_CHARS = set("X#[]AGES")


@st.composite
def messy_docs(draw: st.DrawFn) -> Document:
    text = draw(st.text(alphabet="ab αβ.\n", min_size=1, max_size=60))
    n = len(text)
    spans = []
    for _ in range(draw(st.integers(0, 8))):
        start = draw(st.integers(0, n - 1))
        end = draw(st.integers(start + 1, min(n, start + 12)))
        spans.append(Span(start, end, draw(st.sampled_from(sorted(ALL_OPERATORS)))))
    return Document("m", text, tuple(spans))


@settings(max_examples=200, deadline=None)
@given(messy_docs())
def test_overlaps_and_suppression_keep_the_log_consistent(doc: Document) -> None:
    out = anonymize(doc, operators=ALL_OPERATORS)  # SanitizedDocument validates the log's alignment
    check_log(doc, out)
    replaced = {i for r in out.replacements for i in range(r.start, r.end)}
    for s in doc.spans:
        if s.label != "SEX":  # every character of a non-kept span lies in a replaced region
            assert set(range(s.start, s.end)) <= replaced
    for r in out.replacements:  # replaced regions hold only operator output, never original text
        assert set(out.text[r.out_start:r.out_end]) <= REPLACEMENT_CHARS
        assert r.out_end - r.out_start in {0, 3, 4, 5} or r.operator == "redact"
    # deterministic whatever the order the spans come in
    assert anonymize(doc, list(reversed(doc.spans)), operators=ALL_OPERATORS) == out
