"""The faster paths of the surrogate step agree with the plain definitions they replace (same outputs)."""

from __future__ import annotations

import bisect
import itertools
import random
import string
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from _surrogate_context import city_pool, doc_context
from clinanon.document import Document, Span
from clinanon.transform import Anonymizer
from clinanon.transform.base import Edit, OperatorContext
from clinanon.transform.engine import SpanCategories
from clinanon.transform.surrogate import (
    GenContext,
    KeyedRandom,
    SurrogateOperator,
    _data,
    cities,
    countries,
    date_formats,
    dates,
    names,
    parse_key,
    places,
)
from clinanon.transform.surrogate._text import fold_accents, normalize, same_key
from clinanon.transform.surrogate.identifiers import _fp_chars
from clinanon.transform.surrogate.keys import KeyedStream
from clinanon.transform.surrogate.operator import clear_text_caches, generate

KEY = "7d" * 32
SEED = bytes(range(100, 132))


# --- reference definitions (the code before the fast paths) ------------------------------------------------------

def _ref_fold(s: str) -> str:
    decomposed = unicodedata.normalize("NFKD", s)
    return unicodedata.normalize("NFC", "".join(c for c in decomposed if not unicodedata.combining(c)))


def _ref_normalize(s: str) -> str:
    folded = s.casefold()
    if not folded.isascii():
        folded = _ref_fold(folded)
    return " ".join(folded.split())


class _RefStream:
    """KeyedStream as first written: the headroom kept as ``cap = 2**256 // product`` (two divisions a draw)."""

    def __init__(self, seed: bytes) -> None:
        self.seed, self.block, self.value, self.cap = seed, 0, int.from_bytes(seed, "big"), 1 << 256

    def below(self, n: int) -> int:
        if self.cap < n << 64:
            import hashlib

            self.block += 1
            blk = hashlib.blake2b(self.block.to_bytes(8, "big"), key=self.seed, digest_size=32).digest()
            self.value, self.cap = int.from_bytes(blk, "big"), 1 << 256
        self.value, r = divmod(self.value, n)
        self.cap //= n
        return r


def _ref_fp_chars(text: str, stream: KeyedStream) -> str:
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if "0" <= ch <= "9":
            j = i + 1
            while j < n and "0" <= text[j] <= "9":
                j += 1
            first = True
            for a in range(i, j, 18):
                k = min(18, j - a)
                if first and text[a] != "0":
                    out.append(str(10 ** (k - 1) + stream.below(9 * 10 ** (k - 1))))
                else:
                    out.append(str(stream.below(10 ** k)).zfill(k))
                first = False
            i = j
            continue
        if ch.isalpha():
            out.append((string.ascii_uppercase if ch.isupper() else string.ascii_lowercase)[stream.below(26)])
        else:
            out.append(ch)
        i += 1
    return "".join(out)


_TEXT = st.text(alphabet=st.sampled_from(list("aZé Ñ\u0301\u00a0\t-/.0123456789ßﬁ½²ΣçÅ_'")), max_size=24)


# --- text ----------------------------------------------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_normalize_and_fold_accents_match_their_definitions(text: str) -> None:
    assert normalize(text) == _ref_normalize(text)
    assert fold_accents(text) == _ref_fold(text)


def test_normalize_examples() -> None:
    assert normalize("  García\u00a0LÓPEZ ") == "garcia lopez"
    assert normalize("C/ Rosales  23") == "c/ rosales 23"
    assert normalize("Straße") == "strasse"


# --- keyed streams -------------------------------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([2, 9, 10, 26, 1000, 1 << 53, 1 << 100, (1 << 128) - 1]), min_size=1, max_size=40))
def test_below_matches_the_two_division_reading(radices: list[int]) -> None:
    fast, ref = KeyedStream(SEED), _RefStream(SEED)
    assert [fast.below(n) for n in radices] == [ref.below(n) for n in radices]


def _ref_decimal(stream: KeyedStream, n: int, first_nonzero: bool) -> str:
    if n <= 0:
        return ""
    head = str(1 + stream.below(9)) if first_nonzero else str(stream.below(10))
    return head + "".join(str(stream.below(10)) for _ in range(n - 1))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 45), st.booleans(), st.sampled_from([0, 7, 1 << 100])), max_size=12))
def test_decimal_is_the_digit_by_digit_draws(ops: list[tuple[int, bool, int]]) -> None:
    a, b = KeyedStream(SEED), KeyedStream(SEED)
    for n, nonzero, extra in ops:  # extra draws move the block towards a refill between the digits
        if extra:
            assert a.below(extra) == b.below(extra)
        assert a.decimal(n, nonzero) == _ref_decimal(b, n, nonzero)
    assert a.below(1 << 60) == b.below(1 << 60)  # the same state afterwards


def test_decimal_examples() -> None:
    v = int.from_bytes(SEED, "big")
    first, v = v % 9, v // 9
    second = v % 10
    assert KeyedStream(SEED).decimal(2, True) == f"{first + 1}{second}"
    assert KeyedStream(SEED).decimal(0) == ""


def test_int_parts_and_their_decimal_strings_seed_the_same_stream() -> None:
    rand = KeyedRandom(parse_key(KEY), "document:d")
    a, b = rand.stream("age-offset", 1, 2), rand.stream("age-offset", "1", "2")
    assert [a.below(1000) for _ in range(5)] == [b.below(1000) for _ in range(5)]
    assert rand.choice("abcdef", "x", "y") == "abcdef"[rand.integer("x", "y") % 6]
    assert rand.index(7, "z") == rand.integer("z") % 7
    assert rand.unit("u") == (rand.integer("u") >> 203) / float(1 << 53)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789aZé -/·Ⅻ")), max_size=30))
def test_format_preserving_draws_match_the_character_loop(text: str) -> None:
    assert _fp_chars(text, KeyedStream(SEED)) == _ref_fp_chars(text, KeyedStream(SEED))


def test_format_preserving_long_digit_runs_are_drawn_in_chunks() -> None:
    for text in ("1234567890123456789012345", "0012345678901234567890x9", "ES91 2100 0418 4502 0005 1332", "7" * 40):
        assert _fp_chars(text, KeyedStream(SEED)) == _ref_fp_chars(text, KeyedStream(SEED))


# --- word lists and gazetteers ---------------------------------------------------------------------------------------

def test_weighted_pick_matches_the_binary_search() -> None:
    uniform = _data.WeightedList.of([f"n{i}" for i in range(1085)])
    weighted = _data.WeightedList.of({"a": 3.0, "b": 1.0, "c": 0.5, "d": 7.25})
    assert uniform.uniform and not weighted.uniform
    rng = random.Random(5)
    us = [rng.random() for _ in range(3000)] + [0.0, 1 - 2 ** -53]
    for wl in (uniform, weighted):
        for u in us:
            ref = wl.items[min(bisect.bisect_right(wl.cumulative, u * wl.cumulative[-1]), len(wl.items) - 1)]
            assert wl.pick(u) == ref


def test_merged_lookups_match_the_per_language_loops() -> None:
    for lang in ("es", "en"):
        for word in ("Juan", "maria", "Kim", "Zzyzx", "Andrea", "JEAN"):
            key = normalize(word)
            ref = next((g for lg in (lang, *(x for x in _data.LANGS if x != lang))
                        if (g := _data._genders(_data._lang(lg)).get(key)) is not None), None)
            assert _data.first_name_gender(word, lang) == ref
        for word in ("marzo", "Mar", "lunes", "Monday", "mei", "juli", "xyz"):
            key = normalize(word)
            for kind in ("month", "weekday"):
                ref_hit = next(((lg, *hit) for lg in (lang, *(x for x in date_formats._LANGS if x != lang))
                                if (hit := date_formats._name_lookup(lg, kind).get(key)) is not None), None)
                assert date_formats._find_name(word, lang, kind) == ref_hit


def _ref_first_large(pools: list[list[_data.Place]]) -> list[_data.Place]:
    """The first pool with at least ``cities.MIN_PLACE_POOL`` places, else the last non-empty one (else [])."""
    last: list[_data.Place] = []
    for pool in pools:
        if len(pool) >= cities.MIN_PLACE_POOL:
            return pool
        if pool:
            last = pool
    return last


def _ref_city_pool(place: _data.Place | None, lang: str) -> list[_data.Place]:
    P = _data.places(lang)
    home = _data.HOME_COUNTRY.get(lang, "")
    if place is None:
        return list(P.cities_by_country.get(home, ())) + list(P.regions_by_country.get(home, ()))
    country, region = place.country, normalize(place.region)
    if place.kind == "city":
        same = [p for p in P.cities_by_region.get((country, region), ()) if p != place]
        parent = P.region_parent.get((country, region))
        wider: list[_data.Place] = []
        if parent:
            siblings = P.regions_by_parent.get((country, normalize(parent)), ())
            wider = [c for r in siblings for c in P.cities_by_region.get((country, normalize(r.name)), ())
                     if c != place]
        country_wide = [p for p in P.cities_by_country.get(country, ()) if p != place]
        located = [p for p in country_wide if p.region] if place.region else []
        return _ref_first_large([same, wider, located, country_wide]) or _ref_continent(place, lang)
    same = [p for p in P.regions_by_parent.get((country, region), ()) if p != place]
    level = [p for p in P.regions_by_country.get(country, ()) if p != place and bool(p.region) == bool(place.region)]
    pool = _ref_first_large([same, level, [p for p in P.regions_by_country.get(country, ()) if p != place]])
    return pool or list(P.cities_by_country.get(country, ())) or _ref_continent(place, lang)


def _ref_continent(place: _data.Place, lang: str) -> list[_data.Place]:
    """A place alone in its country's list: the towns of its continent (else of the home country), never none."""
    P = _data.places(lang)
    continent = countries._iso_continents().get(place.country, "")
    pool = [p for c, ps in sorted(P.cities_by_country.items()) if continent
            and countries._iso_continents().get(c) == continent for p in ps]
    pool = pool or list(P.cities_by_country.get(_data.HOME_COUNTRY.get(lang, ""), ()))
    return [p for p in pool if p != place]


def test_city_pools_and_choices_match_the_list_definitions() -> None:
    for lang, n in (("es", 120), ("en", 40)):
        everything = [p for ps in _data.places(lang).by_name.values() for p in ps]
        sample = [*random.Random(3).sample(everything, n), None]
        for place in sample:
            ref = _ref_city_pool(place, lang)
            assert city_pool(place, lang) == ref
            by: dict[str, _data.Place] = {}
            for p in ref:
                by.setdefault(p.name, p)
            got_names, got_by = cities._city_names.__wrapped__(place, lang)
            assert got_names == tuple(sorted(by)) and got_by == by


# --- the document context and the operator -------------------------------------------------------------------------

def _ctx(originals: list[str], categories: list[str]) -> GenContext:
    return doc_context(originals, categories, KEY)


_ORIGINALS = ["Juan García", "12/03/2005", "Madrid", "28012", "C/ Mayor 3", "varón", "45 años", "-5"]
_CATS = ["NAME.PATIENT", "DATE", "LOCATION.CITY", "LOCATION.ZIP", "LOCATION.STREET", "SEX", "AGE", "ID.PATIENT"]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["Juan", "garcía", "Pedro Ruiz", "12/03/2005 y 28012", "28012", "calle mayor 3 madrid",
                        "-5 x", "varón", "x-5", "Ana"]), st.sampled_from(["juan", "garcia", "28012", "zzz"]))
def test_fresh_is_unequal_and_leak_free(candidate: str, key: str) -> None:
    ctx = _ctx(_ORIGINALS, _CATS)
    assert ctx.fresh(candidate, key) == (normalize(candidate) != key and not ctx.leaks(candidate))


def test_nearest_spans_are_the_digit_free_spans_of_the_categories_in_order() -> None:
    originals = ["Madrid", "28012", "Sevilla", "Juan", "Toledo 2", "Andalucía"]
    cats = ["LOCATION.CITY", "LOCATION.ZIP", "LOCATION.CITY", "NAME.PATIENT", "LOCATION.CITY", "LOCATION.STATE"]
    ctx = _ctx(originals, cats)
    wanted = frozenset({"LOCATION.CITY", "LOCATION.STATE", "NAME.PATIENT"})
    ref = [(s.start, s.end, s) for s, c in zip(ctx.spans, cats, strict=True)
           if c in wanted and not any(ch.isdigit() for ch in ctx.span_text(s))]
    assert ctx.nearest_spans(wanted) == ref
    assert [s.start for _, _, s in ref] == sorted(s.start for _, _, s in ref)


def test_generate_dispatches_every_location_subtype_like_surrogate_place() -> None:
    texts = {"COUNTRY": "Francia", "ZIP": "28012", "STREET": "C/ Mayor 3", "HOSPITAL": "Hospital La Paz",
             "ORGANIZATION": "Universidad de Sevilla", "DEPARTMENT": "Servicio de Urología", "ROOM": "hab. 12",
             "CITY": "Madrid", "STATE": "Andalucía", "OTHER": "Burgos"}
    for sub, text in texts.items():
        category = f"LOCATION.{sub}"
        a, b = _ctx([text], [category]), _ctx([text], [category])
        a.span, b.span = a.spans[0], b.spans[0]
        assert generate(category, text, a) == places.surrogate_place(text, b, category), sub


def test_edits_are_plain_edits_and_outputs_survive_clearing_the_text_memos() -> None:
    doc = Document("d1", "Paciente Juan García, 45 años, vive en Madrid (28012) desde el 12/03/2005.", (
        Span(9, 20, "NAME.PATIENT"), Span(22, 29, "AGE"), Span(39, 45, "LOCATION.CITY"),
        Span(47, 52, "LOCATION.ZIP"), Span(63, 73, "DATE")))
    op = SurrogateOperator(key=KEY)
    ctx = OperatorContext(doc, spans=doc.spans, categories=SpanCategories(doc.spans, [s.label for s in doc.spans]))
    e = op.edit(doc.spans[0], ctx.for_category("NAME.PATIENT"))
    assert type(e) is Edit and e == Edit(9, 20, e.text) and e.text != "Juan García" and "chars=" in repr(e)
    first = Anonymizer({"*": SurrogateOperator(key=KEY)}).anonymize(doc).text
    clear_text_caches()
    assert Anonymizer({"*": SurrogateOperator(key=KEY)}).anonymize(doc).text == first
    assert names.parse_name.cache_info().currsize >= 1  # filled again by the second run


def test_parsed_pieces_are_ordinary_frozen_dataclasses() -> None:
    parsed = date_formats.parse_date("3 de marzo de 2005", "es")
    assert parsed is not None and parsed.kind == "full"
    piece = parsed.pieces[0]
    assert piece == date_formats.Piece("day", "3") and hash(piece) == hash(date_formats.Piece("day", "3"))
    name = names.parse_name("Juan García", "es")
    assert [p.role for p in name.parts] == ["given", "lit", "surname"]
    assert name.parts[0] == names.NamePart("Juan", "given")


def test_keyed_tiers_keep_their_order() -> None:
    ctx = _ctx(_ORIGINALS, _CATS)
    tiers = list(itertools.islice(dates._keyed_tiers(ctx, "days", 7, 14), 2))
    rand = KeyedRandom(parse_key(KEY), "document:d")
    assert tiers[0] == rand.stream("offset-tier", "days", 0).sample(list(range(7, 15)), 8)


_NUMERIC = st.builds(
    lambda nums, seps: "".join(itertools.chain.from_iterable(itertools.zip_longest(nums, seps, fillvalue=""))),
    st.lists(st.text(alphabet="0123456789", min_size=1, max_size=9), min_size=2, max_size=4),
    st.lists(st.sampled_from("/-."), min_size=3, max_size=3),
).map(lambda s: s.rstrip("/-."))


@settings(max_examples=400, deadline=None)
@given(_NUMERIC, st.sampled_from(["es", "en", "nl", "sv", "de"]))
def test_numeric_dates_parse_like_the_general_parser(text: str, lang: str) -> None:
    assert date_formats._NUMERIC_DATE.fullmatch(text)
    assert date_formats._parse_numeric(text, lang) == date_formats._parse_generic(text, lang)


def test_numeric_date_examples_take_the_fast_path_and_round_trip() -> None:
    for text, lang in [("12/03/2005", "es"), ("3/12/05", "en"), ("2005-03-12", "nl"), ("12.3.2005", "de"),
                       ("03/2005", "sv"), ("12/03", "es"), ("13/25/2005", "es"), ("1/2/3/4", "es")]:
        fast = date_formats._parse_numeric(text, lang)
        assert fast == date_formats._parse_generic(text, lang) == date_formats.parse_date(text, lang)
        if fast is not None:
            assert date_formats.render_date(fast, fast.year, fast.month, fast.day) == text
    assert date_formats.parse_date("12/03/2005", "es").pieces[1] is date_formats.parse_date(
        "01/02/2005", "es").pieces[1]  # shared


def _ref_leaks(ctx: GenContext, candidate: str, already: str | None = None) -> bool:
    """The definition of :meth:`GenContext.leaks`: some original (not SEX/OTHER, >= 2 characters, normalized) occurs
    in the normalized candidate with no word character next to it, and (with ``already``) not also in ``already``."""
    def found(text: str) -> set[str]:
        out = set()
        for f, cat in zip(ctx._doc_tables().norms, ctx.span_categories(), strict=True):
            if len(f) < 2 or cat.partition(".")[0] in ("SEX", "OTHER"):
                continue
            for i in range(len(text) - len(f) + 1):
                j = i + len(f)
                if text[i:j] == f and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) and (
                        j == len(text) or not (text[j].isalnum() or text[j] == "_")):
                    out.add(f)
        return out

    return bool(found(normalize(candidate)) - (found(normalize(already)) if already is not None else set()))


_LEAK_WORDS = ["juan", "garcía", "12/03/2005", "madrid", "28012", "c/", "mayor", "3", "45", "años", "-5", "calle",
               "x", "y", "_", "-", "/", "varón", "calle mayor", "juan garcía", "c/ mayor 3"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_LEAK_WORDS), max_size=6), st.sampled_from(["", " ", "-", "/"]),
       st.one_of(st.none(), st.lists(st.sampled_from(_LEAK_WORDS), max_size=3).map(" ".join)))
def test_leaks_match_their_definition(words: list[str], sep: str, already: str | None) -> None:
    originals = [*_ORIGINALS, "calle mayor", "años", "x_y"]
    ctx = _ctx(originals, [*_CATS, "LOCATION.STREET", "AGE", "ID.PATIENT"])
    candidate = sep.join(words)
    assert ctx.leaks(candidate, already) == _ref_leaks(ctx, candidate, already)
    if already is None:
        assert ctx.fresh(candidate, "zzz") == (not _ref_leaks(ctx, candidate))


@settings(max_examples=300, deadline=None)
@given(_TEXT, _TEXT)
def test_same_key_is_equal_normalization(a: str, b: str) -> None:
    assert same_key(a, b) == (normalize(a) == normalize(b))
    assert same_key(a, a) and same_key(a, " ".join(a.upper().split()) + " ") == (normalize(a) == normalize(a.upper()))
