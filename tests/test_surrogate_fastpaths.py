"""The fast paths of the surrogate step agree with their reference definitions."""

from __future__ import annotations

import hashlib
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from _surrogate_context import doc_context
from clinanon.document import Document, Span
from clinanon.transform import Anonymizer
from clinanon.transform.surrogate import GenContext, KeyedRandom, SurrogateOperator, parse_key
from clinanon.transform.surrogate._text import normalize
from clinanon.transform.surrogate.keys import _encode_stream
from clinanon.transform.surrogate.operator import _memo_digits

KEY = "5a" * 32
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
_ALPHABET = st.sampled_from(list("ab cé-/.1_'’Ñ\t\u00a0\u2003"))


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=_ALPHABET, max_size=16))
def test_normalize_collapses_whitespace_like_the_regex(text: str) -> None:
    folded = normalize(text)
    assert folded == re.sub(r"\s+", " ", folded).strip()
    assert normalize(text.upper()) == normalize(text)


def _ctx(originals: list[str], categories: list[str]) -> GenContext:
    return doc_context(originals, categories, KEY)


_CATS = st.sampled_from(["NAME.PATIENT", "LOCATION.CITY", "DATE", "ID.PATIENT"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet=_ALPHABET, min_size=1, max_size=10).filter(str.strip), _CATS),
                min_size=1, max_size=5))
def test_place_words_are_the_regex_words_of_names_and_places(items: list[tuple[str, str]]) -> None:
    ctx = _ctx([o for o, _ in items], [c for _, c in items])
    expected = {w for o, c in items if c.split(".")[0] in ("NAME", "LOCATION") for w in _WORD.findall(normalize(o))}
    assert ctx.place_words() == expected == ctx.original_words("NAME") | ctx.original_words("LOCATION")
    assert ctx.avoid_words() == expected | {normalize(o) for o, _ in items}


def test_stream_seeds_use_the_documented_encoding_for_every_kind_of_part() -> None:
    rand = KeyedRandom(parse_key(KEY), "document:d")
    key = rand.digest("stream-key")
    for parts in (("given", "N", "juan"), ("age-offset", 1, 2), ("a\0b", "c"), ("x", b"\x00y"), ("solo",)):
        seed = hashlib.blake2b(_encode_stream(parts), key=key, digest_size=32).digest()
        assert rand.stream(*parts).below(1 << 64) == int.from_bytes(seed, "big") % (1 << 64)
    assert rand.stream("a\0b", "c").below(1 << 64) != rand.stream("a", "b\0c").below(1 << 64)


def test_only_postcode_like_places_with_digits_skip_the_per_document_memo() -> None:
    assert _memo_digits("LOCATION.STREET") and _memo_digits("ID.PATIENT") and _memo_digits("DATE")
    assert not _memo_digits("LOCATION.ZIP") and not _memo_digits("LOCATION.CITY")


def test_a_repeated_street_gets_one_surrogate_and_outputs_are_keyed() -> None:
    street = "Calle Mayor 12, 3º B"
    text = f"Vive en {street}. Domicilio: {street}."
    spans = [Span(8, 8 + len(street), "CALLE"), Span(text.rindex(street), text.rindex(street) + len(street), "CALLE")]
    doc = Document("d1", text, tuple(spans))
    out = Anonymizer({"*": SurrogateOperator(key=KEY)}, lang="es", scheme="meddocan").anonymize(doc)
    a, b = (out.text[r.out_start:r.out_end] for r in out.replacements)
    assert a == b and a != street and "Mayor" not in a and "12" not in a.split()
    again = Anonymizer({"*": SurrogateOperator(key=KEY)}, lang="es", scheme="meddocan").anonymize(doc)
    other = Anonymizer({"*": SurrogateOperator(key="6b" * 32)}, lang="es", scheme="meddocan").anonymize(doc)
    assert again.text == out.text and other.text != out.text
