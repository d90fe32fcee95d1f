"""Keyed streams, the leak check's fast paths, the engine's span-category table and the per-document caches."""

from __future__ import annotations

import collections
import hashlib
import hmac
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinanon.document import Document, Span
from clinanon.transform import Anonymizer
from clinanon.transform.engine import SpanCategories
from clinanon.transform.surrogate import GenContext, KeyedRandom, Settings, SurrogateOperator, parse_key
from clinanon.transform.surrogate._text import normalize
from clinanon.transform.surrogate.keys import KeyedStream

KEY = "3c" * 32
SEED = bytes(range(32))


def test_stream_is_a_mixed_radix_reading_of_its_seed() -> None:
    # hand-computed: the seed as one big-endian integer, read digit by digit in the radices asked for
    v = int.from_bytes(SEED, "big")
    expected = []
    for n in (10, 26, 7, 1000):
        v, r = divmod(v, n)
        expected.append(r)
    s = KeyedStream(SEED)
    assert [s.below(10), s.below(26), s.below(7), s.below(1000)] == expected
    t = KeyedStream(SEED)
    assert t.randrange(3, 13) == 3 + expected[0] and t.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == chr(65 + expected[1])


def test_stream_refills_deterministically_and_stays_in_range() -> None:
    a, b = KeyedStream(SEED), KeyedStream(SEED)
    xs = [a.below(1 << 100) for _ in range(20)]  # a draw needs 64 spare bits: one such draw per 256-bit block
    assert xs == [b.below(1 << 100) for _ in range(20)]
    assert all(0 <= x < 1 << 100 for x in xs) and len(set(xs)) == 20
    # the second draw comes from the first refill block: keyed BLAKE2b of the block counter under the seed
    assert xs[0] == int.from_bytes(SEED, "big") % (1 << 100)
    block = hashlib.blake2b((1).to_bytes(8, "big"), key=SEED, digest_size=32).digest()
    assert xs[1] == int.from_bytes(block, "big") % (1 << 100)
    with pytest.raises(ValueError):
        KeyedStream(SEED).below(0)
    with pytest.raises(ValueError):
        KeyedStream(b"short")


def test_stream_draws_are_close_to_uniform() -> None:
    r = KeyedRandom(parse_key(KEY), "corpus")
    counts = collections.Counter(r.stream("u", i).below(10) for i in range(5000))
    assert set(counts) == set(range(10)) and all(400 <= c <= 600 for c in counts.values())
    units = [r.stream("v", i).unit() for i in range(2000)]
    assert all(0.0 <= u < 1.0 for u in units) and 0.45 < sum(units) / len(units) < 0.55


def test_shuffle_and_sample_are_keyed_permutations() -> None:
    items = list(range(30))
    a, b = items[:], items[:]
    KeyedStream(SEED).shuffle(a)
    KeyedStream(SEED).shuffle(b)
    assert a == b and sorted(a) == items and a != items
    full = KeyedStream(SEED).sample(items, 30)
    assert sorted(full) == items
    part = KeyedStream(SEED).sample(items, 5)
    assert part == full[:5] and len(set(part)) == 5
    assert KeyedStream(SEED).sample(items, 99) == full


def test_stream_seed_derivation_known_answer() -> None:
    # seed = BLAKE2b-256(b"s" + NUL-joined parts, key = HMAC-SHA256(key, enc(scope) + enc("stream-key")))
    raw = bytes.fromhex(KEY)
    enc = b"\x00\x00\x00\x0apatient:42" + b"\x00\x00\x00\x0astream-key"
    stream_key = hmac.new(raw, enc, hashlib.sha256).digest()
    seed = hashlib.blake2b(b"s" + b"surname\x00garcia\x003", key=stream_key, digest_size=32).digest()
    got = KeyedRandom(parse_key(KEY), "patient:42").stream("surname", "garcia", 3).below(1 << 64)
    assert got == int.from_bytes(seed, "big") % (1 << 64)


def test_stream_parts_are_unambiguous() -> None:
    r = KeyedRandom(parse_key(KEY), "corpus")

    def first(*parts: str | int | bytes) -> int:
        return r.stream(*parts).below(1 << 64)

    assert first("a\x00b") != first("a", "b")  # a NUL inside a part switches to the length-prefixed encoding
    assert first("ab", "c") != first("a", "bc")
    assert first(b"x") != first("x")
    assert first("a", "b") == first("a", "b")
    other = KeyedRandom(parse_key("c3" * 32), "corpus")
    assert other.stream("a", "b").below(1 << 64) != first("a", "b")
    assert KeyedRandom(parse_key(KEY), "document:d").stream("a", "b").below(1 << 64) != first("a", "b")


# --- the leak check --------------------------------------------------------------------------------------------

def _reference_leaks(forms: list[str], candidate: str) -> bool:
    forms = sorted({f for f in forms if len(f) >= 2}, key=len, reverse=True)
    if not forms:
        return False
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(f) for f in forms) + r")(?!\w)")
    return pattern.search(normalize(candidate)) is not None


def _ctx_with(originals: list[str], categories: list[str] | None = None) -> GenContext:
    text, spans, pos = "", [], 0
    for i, o in enumerate(originals):
        spans.append(Span(pos, pos + len(o), (categories or [])[i] if categories else "NAME.PATIENT"))
        text += o + " | "
        pos += len(o) + 3
    doc = Document("d", text, tuple(spans))
    cats = SpanCategories(doc.spans, [s.label for s in doc.spans])
    return GenContext(KeyedRandom(parse_key(KEY), "document:d"), "es", Settings(), doc, doc.spans, cats)


_ALPHABET = st.sampled_from(list("ab cé-/.1_'Ñ"))
_WORDS = st.text(alphabet=_ALPHABET, min_size=1, max_size=8).filter(lambda t: t.strip())


@settings(max_examples=200, deadline=None)
@given(st.lists(_WORDS, min_size=1, max_size=5), st.text(alphabet=_ALPHABET, max_size=14))
def test_leaks_matches_the_regex_definition(originals: list[str], candidate: str) -> None:
    ctx = _ctx_with(originals)
    assert ctx.leaks(candidate) == _reference_leaks([normalize(o) for o in originals], candidate)


def test_leaks_examples_and_ignored_categories() -> None:
    ctx = _ctx_with(["García", "12/03/2015", "varón", "Calle Mayor"],
                    ["NAME.PATIENT", "DATE", "SEX", "LOCATION.STREET"])
    assert ctx.leaks("Pedro GARCIA") and ctx.leaks("garcía")  # case and accents ignored, one word fast path
    assert not ctx.leaks("Garcíaz") and not ctx.leaks("García_2")  # not a whole word
    assert ctx.leaks("el 12/03/2015.") and not ctx.leaks("112/03/2015")
    assert ctx.leaks("en calle  mayor, 5") and not ctx.leaks("callemayor")
    assert not ctx.leaks("varón")  # SEX spans are not leaks


def test_leaks_can_ignore_what_the_replaced_text_already_held() -> None:
    # a bare unit word annotated as an age ("meses") must not make every age surrogate look like a leak
    ctx = _ctx_with(["meses", "dos meses", "tres meses"], ["AGE", "AGE", "AGE"])
    assert ctx.leaks("cuatro meses") and not ctx.leaks("cuatro meses", already="tres meses")
    assert ctx.leaks("dos meses", already="tres meses")  # a real collision still counts
    assert not ctx.leaks("cinco semanas", already="tres meses")


def test_span_categories_mapping() -> None:
    spans = (Span(0, 3, "A"), Span(4, 7, "B"))
    cats = SpanCategories(spans, ["NAME.PATIENT", "DATE"])
    assert cats.by_index == ("NAME.PATIENT", "DATE") and cats.spans is spans
    assert cats[spans[1]] == "DATE" and cats.get(Span(9, 10, "C"), "x") == "x"
    assert len(cats) == 2 and list(cats) == list(spans) and spans[0] in cats and dict(cats) == {
        spans[0]: "NAME.PATIENT", spans[1]: "DATE"}
    assert "NAME" not in repr(cats)
    with pytest.raises(ValueError):
        SpanCategories(spans, ["DATE"])


# --- per-document caches -----------------------------------------------------------------------------------------

def _doc(parts: list[tuple[str, str | None]]) -> Document:
    text, spans, pos = "", [], 0
    for piece, cat in parts:
        if cat is not None:
            spans.append(Span(pos, pos + len(piece), cat))
        text += piece
        pos += len(piece)
    return Document("d9", text, tuple(spans))


def test_repeated_originals_share_one_surrogate_but_postcodes_follow_their_city() -> None:
    doc = _doc([("Paciente ", None), ("Juan García", "NAME.PATIENT"), (", ", None), ("28013", "LOCATION.ZIP"),
                (" ", None), ("Madrid", "LOCATION.CITY"), (". Hermano de ", None), ("Juan García", "NAME.PATIENT"),
                (", vive en ", None), ("Barcelona", "LOCATION.CITY"), (" ", None), ("28013", "LOCATION.ZIP"),
                (".", None)])
    out = Anonymizer({"*": SurrogateOperator(key=KEY)}, lang="es").anonymize(doc)
    new = [out.text[r.out_start:r.out_end] for r in out.replacements]
    assert len(new) == 6 and new[0] == new[3] and new[0] != "Juan García"
    zip_madrid, zip_barcelona = new[1], new[5]
    # each postcode follows the province of its nearest city's surrogate (a city of another province: the
    # provinces' own lists are smaller than MIN_PLACE_POOL)
    from clinanon.transform.surrogate.cities import _lookup
    from clinanon.transform.surrogate.postcodes import _province_code

    code_madrid, code_barcelona = (_province_code(_lookup(city, "es")) for city in (new[2], new[4]))
    assert code_madrid is not None and code_barcelona is not None
    assert zip_madrid[:2] == code_madrid and zip_barcelona[:2] == code_barcelona
    assert new[2] != "Madrid" and new[4] != "Barcelona"


def test_same_document_twice_same_output_and_caches_are_per_document() -> None:
    op = SurrogateOperator(key=KEY)
    anon = Anonymizer({"*": op}, lang="es")
    a = _doc([("Dr. ", None), ("Ruiz", "NAME.DOCTOR"), (" y ", None), ("Ana Ruiz", "NAME.PATIENT")])
    b = Document("d10", a.text, a.spans)
    out_a1, out_b, out_a2 = anon.anonymize(a), anon.anonymize(b), anon.anonymize(a)
    assert out_a1.text == out_a2.text and out_a1.text != out_b.text  # document scope: another document differs
    ra = [out_a1.text[r.out_start:r.out_end] for r in out_a1.replacements]
    assert ra[1].endswith(ra[0])  # "Ruiz" and "Ana Ruiz" share the surname's surrogate
    assert op.stats["replaced"] == 6 and op.stats["kept"] == 0


@pytest.mark.parametrize("key", [KEY, "c3" * 32, "5a" * 32, "0f" * 32])
def test_age_shift_avoids_collisions_despite_a_bare_unit_word(key: str) -> None:
    parts: list[tuple[str, str | None]] = [("Lactante de ", None), ("3 meses", "AGE"), (". A los ", None),
                                           ("dos meses", "AGE"), (" y a los ", None), ("tres meses", "AGE"),
                                           (" ingresó; a los ", None), ("nueve meses", "AGE"), (" (", None),
                                           ("meses", "AGE"), (").", None)]
    doc = _doc(parts)
    out = Anonymizer({"*": SurrogateOperator(key=key)}, lang="es").anonymize(doc)
    originals = {normalize(doc.text[s.start:s.end]) for s in doc.spans}
    new = [normalize(out.text[r.out_start:r.out_end]) for r in out.replacements]
    assert len(new) == 4 and not originals & set(new)  # no age moved onto another original of the note
