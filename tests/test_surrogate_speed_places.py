"""The fast paths of the place, identifier and contact surrogates agree with the general code they skip."""

from __future__ import annotations

import random
import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from _surrogate_context import city_pool, doc_context
from clinanon.document import Span
from clinanon.lang import checksums as cs
from clinanon.transform.surrogate import (
    _data,
    cities,
    contacts,
    hospitals,
    identifiers,
    organizations,
    postcodes,
    streets,
)
from clinanon.transform.surrogate._text import _apply_shape, apply_shape, normalize
from clinanon.transform.surrogate.keys import KeyedStream

KEY = "3c" * 32
SEED = bytes(range(40, 72))
LANGS = ("es", "en", "nl", "sv", "de")


# --- identifiers -------------------------------------------------------------------------------------------------

def _written(digits: str, rng: random.Random) -> str:
    """``digits`` with separators between some of them (and around them)."""
    out = rng.choice(["", " "])
    for i, d in enumerate(digits):
        if i and rng.random() < 0.3:
            out += rng.choice([" ", "-", ".", "/", "  ", " - ", "\u00a0"])
        out += d
    return out + rng.choice(["", " ", "\t"])


def _valid_ids(rng: random.Random) -> list[str]:
    """Identifiers of every checksummed kind that can be written with digits only, written in several ways."""
    r = random.Random(rng.random())
    made = [cs.generate_nass(r), cs.generate_bsn(r), cs.generate_us_ssn(r), cs.generate_nhs_number(r),
            cs.generate_credit_card(r, r.randint(12, 19)), cs.generate_personnummer(r),
            cs.generate_personnummer(r, century=True, coordination=True)]
    out = list(made)
    for m in made:
        digits = "".join(c for c in m if c.isdigit())
        out += [digits, _written(digits, rng), f"{digits[:2]} {digits[2:10]} {digits[10:]}"]
        if len(digits) == 10:
            out.append(f"{digits[:6]}-{digits[6:]}")
    return out


def test_digit_identifiers_take_the_kind_of_every_check_in_order() -> None:
    rng = random.Random(11)
    texts = [t for _ in range(150) for t in _valid_ids(rng)]
    texts += ["2569870", "28 28", "28 28 20943", "47 39047534 02", "9764132 3", "78623791/784", "1" * 20, "0" * 9]
    kinds = set()
    for text in texts:
        t = text.strip()
        compact = cs.digits_only(t)
        assert compact.isdigit()
        for lang in LANGS:
            ref = identifiers._id_kind_checks(t, compact, lang)
            assert identifiers.id_kind.__wrapped__(text, lang) == ref
            if lang != "sv":
                assert identifiers._digits_id_kind(t, compact, lang) == ref
            kinds.add(ref)
    assert {"nass", "bsn", "ssn", "nhs", "luhn", "personnummer", None} <= kinds


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789 -./+XZax\u00a0")), max_size=22),
       st.sampled_from(LANGS))
def test_id_kind_is_the_checks_in_order_for_any_text(text: str, lang: str) -> None:
    t = text.strip()
    assert identifiers.id_kind.__wrapped__(text, lang) == identifiers._id_kind_checks(t, cs.digits_only(t), lang)


def _ref_fp_run(text: str, stream: KeyedStream) -> str:
    """The draws of ``_fp_chars``'s loop for one run of ASCII digits (at most 18)."""
    k = len(text)
    if text[0] != "0":
        return str(10 ** (k - 1) + stream.below(9 * 10 ** (k - 1)))
    return str(stream.below(10 ** k)).zfill(k)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789")), min_size=1, max_size=18))
def test_a_single_digit_run_is_one_draw_of_the_loop(text: str) -> None:
    a, b = KeyedStream(SEED), KeyedStream(SEED)
    assert identifiers._fp_chars(text, a) == _ref_fp_run(text, b)
    assert a.below(1 << 60) == b.below(1 << 60)  # the same stream state afterwards
    # and the same as a run inside a longer text (the token loop)
    assert identifiers._fp_chars(text + "-", KeyedStream(SEED)) == _ref_fp_run(text, KeyedStream(SEED)) + "-"


def _ref_fp_chars(text: str, stream: KeyedStream) -> str:
    """Every ASCII digit run drawn in chunks of 18 digits (a run's first chunk without a leading zero unless it had
    one), every letter a keyed ASCII letter of its case, character by character."""
    out, i = [], 0
    while i < len(text):
        j = i
        while j < len(text) and "0" <= text[j] <= "9":
            j += 1
        if j > i:
            for a in range(i, j, 18):
                out.append(_ref_fp_run(text[a:min(a + 18, j)], stream) if a == i else
                           str(stream.below(10 ** min(18, j - a))).zfill(min(18, j - a)))
            i = j
            continue
        ch = text[i]
        out.append((string.ascii_uppercase if ch.isupper() else string.ascii_lowercase)[stream.below(26)]
                   if ch.isalpha() else ch)
        i += 1
    return "".join(out)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["0", "7", "12", "9" * 17, "1" * 18, "05" * 10, " ", "-", "a", "Z", "é", "²"]),
                max_size=8).map("".join))
def test_format_preserving_chars_are_the_character_loop(text: str) -> None:
    assert identifiers._fp_chars(text, KeyedStream(SEED)) == _ref_fp_chars(text, KeyedStream(SEED))


def _ref_place(text: str, compact: str) -> str:
    chars = list(text)
    pos = [i for i, c in enumerate(text) if c.isalnum()]
    for i, c in zip(pos, compact, strict=True):
        chars[i] = c.lower() if (chars[i].isalpha() and chars[i].islower() and c.isalpha()) else c
    return "".join(chars)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789abXY -./é")), max_size=16), st.randoms())
def test_placing_a_surrogate_keeps_the_layout_and_the_case(text: str, rnd: random.Random) -> None:
    n = sum(c.isalnum() for c in text)
    for alphabet in (string.digits, string.digits + "ABZ"):
        compact = "".join(rnd.choice(alphabet) for _ in range(n))
        assert identifiers._place(text, compact) == _ref_place(text, compact)


# --- streets -----------------------------------------------------------------------------------------------------

_KEEP, _DIGITS_RUN, _WORD_PART, _COMPOUND_PART = 0, 1, 2, 3


def _ref_street_tokens(text: str) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    """The tokens of an address, its normalized words joined (its key) and its digit runs, as they were found
    before :func:`streets._street_plan` found them in its own pass."""
    toks = tuple(streets._TOKEN.findall(text))
    return toks, " ".join(normalize(t) for t in toks if t[:1].isalpha()), tuple(t for t in toks if t.isdigit())


def _ref_street_plan(text: str, lang: str) -> tuple[tuple[tuple[int, str, str, str], ...], str, tuple[str, ...]]:
    """The plan as it was made token by token from :func:`_ref_street_tokens`, consecutive kept tokens joined."""
    toks, name_key, digit_runs = _ref_street_tokens(text)
    plan: list[tuple[int, str, str, str]] = []
    for i, t in enumerate(toks):
        k = normalize(t)
        prev = toks[i - 1] if i else ""
        if t.isdigit():
            step = (_DIGITS_RUN, t, "", "")
        elif not t[:1].isalpha() or k in streets._STREET_TYPES or k in streets._STREET_KEEP or len(t) == 1 or (
                prev.isdigit() or (len(t) <= 2 and t.isupper())):
            step = (_KEEP, t, "", "")
        else:
            suffix = None
            if lang in ("nl", "de", "sv"):
                suffix = next((s for s in streets._COMPOUND if k.endswith(normalize(s)) and len(k) > len(s) + 2), None)
            step = (_WORD_PART, t, k, "") if suffix is None else (_COMPOUND_PART, t, k, suffix)
        if step[0] == _KEEP and plan and plan[-1][0] == _KEEP:
            plan[-1] = (_KEEP, plan[-1][1] + t, "", "")
        else:
            plan.append(step)
    return tuple(plan), name_key, digit_runs


_STREETS = [
    "Calle Carmen Romero, 23, 1D", "Av. de los Pajaros,18", "C/ Manuel Silvela nº 2, 6º A", "Manuel Siurot S/N",
    "Ctra. Colmenar Viejo Km 9,1", "Calle 15 No. 654 e/ A Vedado", "C BIZKARRETA, 1. Bajo A", "Kerkstraat 12 bis",
    "Hauptstraße 5a", "Storgatan 3\nlgh 1102", "Calle Dr. Joaquín Aznar Molina 2, 3F",
    "C/Antonio Filpo Rojas, 14 1º izda",
    "Rúa Profesor Filgueira Valverde, 10, 8G", "Avenida Melquiades Xll, 23, 4 D", "Paseo de la Castellana ²3 ½B_x",
]
_STREET_CHARS = st.sampled_from([*"aBcÁéñº ª.,/-_\n\t0123456789²½", "Calle ", "straat", " de ", "Str", "Nº"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_STREET_CHARS, max_size=14).map("".join), st.sampled_from(LANGS))
def test_street_plans_are_the_token_by_token_plans(text: str, lang: str) -> None:
    assert streets._street_plan.__wrapped__(text, lang) == _ref_street_plan(text, lang)


def test_street_plan_examples() -> None:
    for text in _STREETS:
        for lang in LANGS:
            plan = streets._street_plan.__wrapped__(text, lang)
            assert plan == _ref_street_plan(text, lang)
            assert "".join(step[1] for step in plan[0]) == text


# --- hospitals, cities, shapes -----------------------------------------------------------------------------------

def _ref_hospital_kind(name: str, lang: str) -> tuple[str | None, str | None]:
    P = _data.places(lang)
    head = next((h for h in P.hospital_heads if organizations._starts_with(name, h)), None)
    tail = None if head else next((h for h in P.hospital_tails if organizations._ends_with(name, h)), None)
    return head, tail


def test_hospital_kinds_are_the_first_matching_phrases() -> None:
    rng = random.Random(5)
    for lang in LANGS:
        P = _data.places(lang)
        phrases = [*P.hospital_heads, *P.hospital_tails]
        names = [h[0] for h in P.hospitals] + phrases
        names += [f"{rng.choice(phrases)} {rng.choice(['de Madrid', 'X', '', 'ÁVILA'])}" for _ in range(60)]
        names += [f"{rng.choice(['San Juan', 'x', ''])} {rng.choice(phrases)}" for _ in range(60)]
        names += [p.upper() for p in phrases] + [p[:-1] for p in phrases if p] + ["", " ", "Hospitalario", "La Paz"]
        for name in names:
            assert hospitals._hospital_kind.__wrapped__(name, lang) == _ref_hospital_kind(name, lang)


def test_city_names_of_region_pools_match_the_list_definition() -> None:
    for lang in ("es", "en"):
        P = _data.places(lang)
        located = [p for ps in P.cities_by_region.values() for p in ps]
        sample = random.Random(8).sample(located, min(150, len(located))) + [p for ps in P.by_name.values()
                                                                                for p in ps if p.kind == "region"][:20]
        for place in sample:
            by: dict[str, _data.Place] = {}
            for p in city_pool(place, lang):
                by.setdefault(p.name, p)
            names, got = cities._city_names.__wrapped__(place, lang)
            assert names == tuple(sorted(by)) and got == by
    for lang in LANGS:  # an unknown place: the home country's cities and regions
        by = {}
        for p in city_pool(None, lang):
            by.setdefault(p.name, p)
        assert cities._city_names.__wrapped__(None, lang) == (tuple(sorted(by)), by)


def _ref_lookup(key: str, lang: str) -> _data.Place | None:
    cands = _data.places(lang).by_name.get(normalize(key))
    if not cands:
        return None
    home = _data.HOME_COUNTRY.get(lang, "")
    return sorted(cands, key=lambda p: (p.country != home, p.kind != "city"))[0]


def test_city_choices_are_the_city_names_of_the_place_without_copies() -> None:
    for lang in ("es", "en"):
        P = _data.places(lang)
        keys = sorted(P.by_name)
        several = [k for k in keys if len(P.by_name[k]) > 1][:30]
        sample = [*random.Random(4).sample(keys, min(100, len(keys))), *several, "villaquemada del sur", ""]
        for key in sample:
            place = cities._lookup(key, lang)
            assert place == _ref_lookup(key, lang)
            names, place_of = cities._city_choices.__wrapped__(key, lang)
            ref_names, ref_by = cities._city_names.__wrapped__(place, lang)
            assert len(names) == len(ref_names) and list(names) == list(ref_names)
            assert all(place_of(n) == ref_by[n] for n in ref_names)


def _pl(name: str, region: str) -> _data.Place:
    return _data.Place(name, region, "ES", "city")


def test_place_list_views_match_its_copies() -> None:
    items = [_pl("Alba", "A"), _pl("Soria", "A"), _pl("Alba", "B"), _pl("Zafra", "C"), _pl("Alba", "A"),
             _pl("Mora", "B")]
    lst = cities._PlaceList(items)
    for place in [*items, _pl("Otra", "A"), _pl("Soria", "B")]:
        names, by = lst.choices_without(place)
        view, place_of = lst.choices_view(place)
        assert list(view) == list(names) and len(view) == len(names)
        assert all(place_of(n) == by[n] for n in names)
        assert lst.size_without(place) == len([p for p in items if p != place])
    view, _ = lst.choices_view(_pl("Soria", "A"))  # Soria is alone: a view without it
    assert isinstance(view, cities._NamesWithout)
    assert list(view) == ["Alba", "Mora", "Zafra"] and view[-1] == "Zafra" and view[-3] == "Alba"
    assert view[1:] == ["Mora", "Zafra"] and "Soria" not in view and view.index("Zafra") == 2
    for bad in (3, -4):
        try:
            view[bad]
        except IndexError:
            pass
        else:
            raise AssertionError(bad)


_WORDS = st.sampled_from(["Carmen", "CARMEN", "carmen", "García", "Garcia", "GARCÍA", "Ávila", "Avila", "de", "D",
                          "McDonald", "O'Neil", "Mª", "ªx", "Ñu", "X", "", "Sevilla", "Émile", "San Juan", "él"])


@settings(max_examples=250, deadline=None)
@given(_WORDS, _WORDS, st.sampled_from(LANGS))
def test_shape_is_apply_shape(template: str, new: str, lang: str) -> None:
    assert apply_shape(template, new, lang) == _apply_shape.__wrapped__(template, new, lang)


def test_shape_is_apply_shape_on_list_words() -> None:
    for lang in LANGS:
        words = list(_data.surnames(lang).items[:300]) + list(_data.given_names(lang, "N").items[:100])
        rng = random.Random(2)
        for w in words:
            for template in (w, w.upper(), w.lower(), rng.choice(words)):
                new = rng.choice(words)
                assert apply_shape(template, new, lang) == _apply_shape.__wrapped__(template, new, lang)


def test_nearest_city_span_is_never_the_span_itself() -> None:
    originals = ["Madrid", "Sevilla", "28012", "Toledo"]
    cats = ["LOCATION.CITY", "LOCATION.CITY", "LOCATION.ZIP", "LOCATION.CITY"]
    ctx = doc_context(originals, cats, KEY)
    for here in ctx.spans:
        ctx.span = here
        ref = None
        for start, end, s in ctx.nearest_spans(postcodes._CITY_CATEGORIES):
            dist = here.start - end if end <= here.start else start - here.end
            if 0 <= dist <= 80 and (ref is None or dist < ref[0]) and s != here:
                ref = (dist, s)
        assert postcodes._nearest_city_span(ctx) == (ref[1] if ref else None)
    ctx.span = Span(ctx.spans[0].start, ctx.spans[0].end, "LOCATION.CITY")  # equal to a city span, not the same
    assert postcodes._nearest_city_span(ctx) == ctx.spans[1]


# --- contacts ----------------------------------------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcXYZéñß-' 1İ")), max_size=10))
def test_ascii_is_ascii_word(word: str) -> None:
    assert contacts._ascii(word) == contacts._ascii_word.__wrapped__(word)


def test_ascii_is_ascii_word_on_the_lists() -> None:
    for lang in LANGS:
        for w in (*_data.surnames(lang).items, *_data.given_names(lang, "N").items):
            assert contacts._ascii(w) == contacts._ascii_word.__wrapped__(w)
            assert re.fullmatch("[a-z]+", contacts._ascii(w))
