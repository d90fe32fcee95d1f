"""BIO/BIOES encoding and decoding, repair of ill-formed sequences, alignment reports (clinanon.bio)."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinanon.bio import (
    BioEncoding,
    alignment_report,
    decode_bio,
    encode_bio,
    is_well_formed,
    repair_bio,
    span_token_range,
)
from clinanon.document import Document, Span
from clinanon.errors import ConfigError, SpanError
from clinanon.text import Token, tokenize

TEXT = "Sexo: H. Nombre: Ana García, CP:28029"
#       0   45678 9      1617  21    27 29 32
TOKENS = tokenize(TEXT)
#  0 Sexo  1 :  2 H  3 .  4 Nombre  5 :  6 Ana  7 García  8 ,  9 CP  10 :  11 28029


def test_encode_bio_and_bioes() -> None:
    spans = [Span(6, 7, "SEXO"), Span(17, 27, "NOMBRE"), Span(32, 37, "CP")]
    enc = encode_bio(TOKENS, spans)
    assert enc == BioEncoding(["O", "O", "B-SEXO", "O", "O", "O", "B-NOMBRE", "I-NOMBRE", "O", "O", "O", "B-CP"],
                              [], [], "BIO")
    assert enc.exact
    assert decode_bio(TOKENS, enc.tags, source="gold") == spans
    bioes = encode_bio(TOKENS, spans, scheme="bioes")
    assert bioes.tags == ["O", "O", "S-SEXO", "O", "O", "O", "B-NOMBRE", "E-NOMBRE", "O", "O", "O", "S-CP"]
    assert bioes.scheme == "BIOES"
    assert decode_bio(TOKENS, bioes.tags, source="gold") == spans
    three = [Token(0, 1), Token(2, 3), Token(4, 5)]
    assert encode_bio(three, [Span(0, 5, "X")], "BIOES").tags == ["B-X", "I-X", "E-X"]


def test_misaligned_spans_are_expanded_and_reported() -> None:
    # " H" starts on a space; "Ana Garc" ends inside a word; a span on whitespace only covers no token
    spans = [Span(5, 7, "SEXO"), Span(17, 25, "NOMBRE"), Span(8, 9, "WS")]
    enc = encode_bio(TOKENS, spans)
    assert enc.tags == ["O", "O", "B-SEXO", "O", "O", "O", "B-NOMBRE", "I-NOMBRE", "O", "O", "O", "O"]
    assert enc.misaligned == [Span(5, 7, "SEXO"), Span(8, 9, "WS"), Span(17, 25, "NOMBRE")]
    assert enc.overlapping == [] and not enc.exact
    # the expansion decodes to the covering tokens
    assert decode_bio(TOKENS, enc.tags) == [Span(6, 7, "SEXO", "bio"), Span(17, 27, "NOMBRE", "bio")]
    # "H." with its period is aligned: the period is a token
    assert encode_bio(TOKENS, [Span(6, 8, "SEXO")]).exact
    # a span that starts before a token and ends inside the same token
    assert encode_bio(TOKENS, [Span(16, 18, "X")]).misaligned == [Span(16, 18, "X")]


def test_overlapping_spans_longer_wins() -> None:
    spans = [Span(17, 20, "FIRST"), Span(17, 27, "FULL"), Span(21, 27, "LAST"), Span(32, 37, "A"),
             Span(32, 37, "B")]
    enc = encode_bio(TOKENS, spans)
    assert enc.tags[6:8] == ["B-FULL", "I-FULL"] and enc.tags[11] == "B-A"   # equal length: label order
    assert enc.overlapping == [Span(17, 20, "FIRST"), Span(21, 27, "LAST"), Span(32, 37, "B")]
    assert enc.misaligned == []


def test_encode_checks_scheme_and_tokens() -> None:
    with pytest.raises(ConfigError, match="BIO, BIOES"):
        encode_bio(TOKENS, [], scheme="IO")
    with pytest.raises(SpanError, match="tokens 0 and 1"):
        encode_bio([Token(0, 5), Token(3, 6)], [])
    assert encode_bio([], [Span(0, 3, "X")]).misaligned == [Span(0, 3, "X")]


@pytest.mark.parametrize(("tags", "repaired"), [
    (["O", "I-X", "I-X"], ["O", "B-X", "I-X"]),                 # I- without B-
    (["I-X"], ["B-X"]),
    (["B-X", "I-Y", "I-Y"], ["B-X", "B-Y", "I-Y"]),             # I-Y after B-X starts a new span
    (["B-X", "O", "I-X"], ["B-X", "O", "B-X"]),
    (["B-X", "B-X", "I-X"], ["B-X", "B-X", "I-X"]),             # well-formed stays
    (["B-X", "O"], ["B-X", "O"]),
    (["B-X", "I-X", "O", "S-Y"], ["B-X", "E-X", "O", "S-Y"]),   # BIOES: B closed by E
    (["O", "E-X", "I-X", "E-X"], ["O", "S-X", "B-X", "E-X"]),
    (["U-X", "B-Y", "L-Y"], ["S-X", "B-Y", "E-Y"]),             # BILOU read as BIOES
    ([], []),
])
def test_repair(tags: list[str], repaired: list[str]) -> None:
    assert repair_bio(tags) == repaired
    assert is_well_formed(repaired)
    assert is_well_formed(tags) == (tags == repaired)


def test_decode_repair_or_strict() -> None:
    toks = [Token(0, 1), Token(2, 3), Token(4, 5), Token(6, 7)]
    tags = ["O", "I-X", "I-X", "B-Y"]
    assert decode_bio(toks, tags) == [Span(2, 5, "X", "bio"), Span(6, 7, "Y", "bio")]
    assert decode_bio(toks, tags, repair=False) == [Span(6, 7, "Y", "bio")]
    assert decode_bio(toks, ["B-X", "I-Y", "I-Y", "O"], repair=False) == [Span(0, 1, "X", "bio")]
    assert decode_bio(toks, ["B-LOC-CITY", "I-LOC-CITY", "O", "O"]) == [Span(0, 3, "LOC-CITY", "bio")]


def test_decode_errors() -> None:
    toks = [Token(0, 1), Token(2, 3)]
    with pytest.raises(SpanError, match="1 tags for 2 tokens"):
        decode_bio(toks, ["O"])
    with pytest.raises(SpanError, match="tag 1"):
        decode_bio(toks, ["O", "X-Y"])
    with pytest.raises(SpanError, match="tag 0"):
        decode_bio(toks, ["B-", "O"])
    with pytest.raises(SpanError, match="past the text"):
        decode_bio(toks, ["O", "O"], text_len=2)
    assert decode_bio(toks, ["O", "S-A"], text_len=3) == [Span(2, 3, "A", "bio")]


def test_span_token_range() -> None:
    starts, ends = [0, 4, 8], [3, 7, 9]
    assert span_token_range(starts, ends, 4, 7) == (1, 2, True)
    assert span_token_range(starts, ends, 0, 9) == (0, 3, True)
    assert span_token_range(starts, ends, 5, 9) == (1, 3, False)
    assert span_token_range(starts, ends, 3, 4) == (1, 1, False)


def test_alignment_report() -> None:
    docs = [
        Document("d1", TEXT, (Span(5, 7, "SEXO"), Span(17, 27, "NOMBRE"), Span(32, 37, "CP"))),
        Document("d2", "Varón de 52 añosingresó", (Span(9, 16, "EDAD"),)),
        Document("d3", "sin spans"),
    ]
    rep = alignment_report(docs, "es")
    assert (rep.documents, rep.total, rep.misaligned) == (3, 4, 2)
    assert rep.ratio == 0.5
    assert rep.per_label == {"CP": {"total": 1, "misaligned": 0}, "EDAD": {"total": 1, "misaligned": 1},
                             "NOMBRE": {"total": 1, "misaligned": 0}, "SEXO": {"total": 1, "misaligned": 1}}
    assert [(c.doc_id, c.start, c.end, c.label, c.shape) for c in rep.cases] == [
        ("d1", 5, 7, "SEXO", "start:p|s"), ("d2", 9, 16, "EDAD", "end:x|x")]
    d = rep.to_dict()
    assert d["by_shape"] == {"SEXO start:p|s": 1, "EDAD end:x|x": 1} and d["ratio"] == 0.5
    assert "Ana" not in str(d) and "años" not in str(d)
    # another tokenizer: whitespace split
    import re
    ws = alignment_report(docs, "es", tokenizer=lambda t: [Token(*m.span()) for m in re.finditer(r"\S+", t)])
    assert ws.misaligned == 4
    assert alignment_report([], "es").ratio == 0.0
    with pytest.raises(ConfigError):
        alignment_report(docs, "fr")


# --- properties -------------------------------------------------------------------------------------------------

WORDS = st.lists(st.sampled_from(["Ana", "García", "25", "yo", ":", ".", "-", "CP", "28029", "nhc", "a", "B"]),
                 min_size=1, max_size=25)
SEPS = st.sampled_from(["", " ", "\n", "  "])


@st.composite
def text_and_aligned_spans(draw: st.DrawFn) -> tuple[list[Token], list[Span]]:
    ws = draw(WORDS)
    text = ""
    for w in ws:
        text += w + draw(SEPS)
    tokens = tokenize(text)
    n = len(tokens)
    cuts = sorted(set(draw(st.lists(st.integers(0, n), max_size=2 * n))))
    spans = []
    for a, b in pairwise(cuts):
        if draw(st.booleans()):
            spans.append(Span(tokens[a].start, tokens[b - 1].end, draw(st.sampled_from(["X", "Y", "A-B"]))))
    return tokens, spans


@settings(max_examples=200, deadline=None)
@given(text_and_aligned_spans(), st.sampled_from(["BIO", "BIOES"]))
def test_encode_decode_round_trip(data: tuple[list[Token], list[Span]], scheme: str) -> None:
    tokens, spans = data
    enc = encode_bio(tokens, spans, scheme)
    assert enc.exact and len(enc.tags) == len(tokens)
    assert is_well_formed(enc.tags)
    assert decode_bio(tokens, enc.tags, source="gold") == sorted(spans)
    assert decode_bio(tokens, enc.tags, source="gold", repair=False) == sorted(spans)


@settings(max_examples=200, deadline=None)
@given(WORDS, st.lists(st.tuples(st.integers(0, 80), st.integers(1, 12), st.sampled_from(["X", "Y"])),
                       max_size=8))
def test_no_span_is_dropped_silently(ws: list[str], raw: list[tuple[int, int, str]]) -> None:
    text = " ".join(ws)
    tokens = tokenize(text)
    spans = [Span(s, min(s + n, len(text)), lab) for s, n, lab in raw if s < len(text)]
    enc = encode_bio(tokens, spans)
    starts, ends = [t.start for t in tokens], [t.end for t in tokens]
    uncovered = [s for s in enc.misaligned if span_token_range(starts, ends, s.start, s.end)[:2] in
                 {(i, i) for i in range(len(tokens) + 1)}]
    decoded = decode_bio(tokens, enc.tags)
    # every span is encoded (one decoded span each), or reported as overlapping, or covers no token
    assert len(decoded) == len(spans) - len(enc.overlapping) - len(uncovered)
    for s in spans:
        exact = any(d.key == s.key for d in decoded)
        assert exact or s in enc.misaligned or s in enc.overlapping


TAGS = st.lists(st.sampled_from(["O", "B-X", "I-X", "B-Y", "I-Y", "E-X", "S-Y", "U-X", "L-Y"]), max_size=30)
BIO_TAGS = st.lists(st.sampled_from(["O", "B-X", "I-X", "B-Y", "I-Y"]), max_size=30)


@settings(max_examples=300, deadline=None)
@given(st.one_of(TAGS, BIO_TAGS))
def test_repair_makes_any_sequence_well_formed(tags: list[str]) -> None:
    fixed = repair_bio(tags)
    assert len(fixed) == len(tags)
    assert is_well_formed(fixed)
    assert repair_bio(fixed) == fixed
    # O positions are kept; BIO input stays BIO
    assert [t == "O" for t in fixed] == [t == "O" for t in tags]
    if all(t[:2] not in ("E-", "S-", "U-", "L-") for t in tags):
        assert all(t == "O" or t[:2] in ("B-", "I-") for t in fixed)
        for prev, cur in zip(["O", *fixed], fixed, strict=False):
            if cur.startswith("I-"):
                assert prev[2:] == cur[2:] and prev != "O"
    tokens = [Token(2 * k, 2 * k + 1) for k in range(len(tags))]
    assert decode_bio(tokens, tags) == decode_bio(tokens, fixed, repair=False)
