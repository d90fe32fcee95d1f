"""The fast paths of the rules pipeline give what the plain ones give (tokens, folding, token sharing, filters)."""

from __future__ import annotations

import functools
import random
import unicodedata
from bisect import bisect_right

from hypothesis import given, settings
from hypothesis import strategies as st

from clinanon.detect.allowlist import AllowList
from clinanon.detect.gazetteer import GazetteerDetector, PhraseIndex, fold, strip_accents
from clinanon.detect.propagate import propagate
from clinanon.detect.resolve import Resolver
from clinanon.document import Document, Span
from clinanon.text import _GLUE_RE, _TOKEN_RE, IGNORABLE_CHARS, Token, TokenTable, token_table, tokenize


def reference_tokens(text: str) -> list[tuple[int, int]]:
    """The tokenizer as first written: one match object per token, then the glued-word splits."""
    tokens = [m.span() for m in _TOKEN_RE.finditer(text)]
    glue = [m.start() for m in _GLUE_RE.finditer(text)]
    if not glue:
        return tokens
    first = bisect_right([s for s, _ in tokens], glue[0]) - 1
    out = tokens[:first]
    g = 0
    for s0, e in tokens[first:]:
        s = s0
        while g < len(glue) and glue[g] < e:
            out.append((s, glue[g]))
            s = glue[g]
            g += 1
        out.append((s, e))
    return out


_CHARS = [*"aeioumnrsáéñüAEMNRSÁÑ0123456789 \t\n.,:;/-_=*()'’@#", "\u0301", "\u0300", *IGNORABLE_CHARS]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*_CHARS, "---", "___", "==", "ÑÑÑ", "Martínez", "NºCol", "DRAlberto"]),
                max_size=40).map("".join))
def test_token_table_equals_reference_tokenizer(text: str) -> None:
    table = token_table(text)
    assert list(zip(table.starts, table.ends, strict=True)) == reference_tokens(text)
    assert list(table.words) == [text[s:e] for s, e in zip(table.starts, table.ends, strict=True)]
    assert tokenize(text) == [Token(s, e) for s, e in reference_tokens(text)]


def test_punctuation_runs_and_marks() -> None:
    text = "a---b ==== x\u0301\u0301\u0301 \u0301\u0301\u0301 ..."
    table = token_table(text)
    assert list(table.words) == ["a", "---", "b", "====", "x\u0301\u0301\u0301", "\u0301\u0301\u0301", ".", ".", "."]
    assert list(zip(table.starts, table.ends, strict=True)) == reference_tokens(text)


def test_token_table_is_shared_and_tokenize_returns_new_lists() -> None:
    text = "Paciente: Ana García, 45 años."
    assert token_table(text) is token_table(text)
    a, b = tokenize(text), tokenize(text)
    assert a == b and a is not b
    a.append(Token(0, 1))
    assert tokenize(text) == b  # the cache is not changed through a returned list
    table = token_table(text)
    assert table.map_words(str.upper) is table.map_words(str.upper)
    assert table.map_words(str.upper)[:2] == ("PACIENTE", ":")
    assert TokenTable.from_tokens(text, b).words == table.words
    assert repr(table) == "TokenTable(tokens=8)"  # sizes only, never text


def _plain_fold(s: str, accents: bool = True) -> str:
    s = s.casefold()
    if not accents or s.isascii():
        return s
    return "".join(c for c in unicodedata.normalize("NFD", s) if not unicodedata.combining(c))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=12))
def test_memoised_fold_equals_plain_fold(word: str) -> None:
    assert fold(word) == _plain_fold(word) and fold(word) == fold(word)
    assert fold(word, accents=False) == word.casefold()
    assert strip_accents(word) == ("".join(c for c in unicodedata.normalize("NFD", word)
                                           if not unicodedata.combining(c)) if not word.isascii() else word)


TEXT = ("Paciente: Ignacio Navarro Cuéllar, natural de Madrid (España). Enfermedad de Parkinson. "
        "Remitido al Hospital Universitario Virgen del Rocío por la Dra. Ana García López. "
        "NAVARRO refiere dolor; Navarro Cuéllar vuelve en mayo. Niña de 3 años. Gilles de la Tourette.")


def test_gazetteer_same_spans_for_token_list_table_and_none() -> None:
    gz = GazetteerDetector("es")
    table = token_table(TEXT)
    by_table = gz.analyze(TEXT, table)
    assert by_table == gz.analyze(TEXT) == gz.analyze(TEXT, tokenize(TEXT))
    assert by_table == sorted(by_table) and len(set(by_table)) == len(by_table)
    assert any(TEXT[s.start:s.end] == "Navarro" for s in by_table)
    assert not any(TEXT[s.start:s.end] == "Parkinson" for s in by_table)


def test_a_custom_allowlist_filter_is_used() -> None:
    class NoNavarro(AllowList):
        def filter(self, text, spans, tokens=None, *, keep_sources=("hospital",)):  # type: ignore[no-untyped-def]
            return [s for s in super().filter(text, spans, tokens) if text[s.start:s.end] != "Navarro"]

    plain = GazetteerDetector("es").analyze(TEXT)
    custom = GazetteerDetector("es", allowlist=NoNavarro("es")).analyze(TEXT)
    assert custom == [s for s in plain if TEXT[s.start:s.end] != "Navarro"] and custom != plain


def test_allowlist_filter_keeps_input_order_independence_and_deny() -> None:
    al = AllowList("es", deny=["Cuéllar"], deny_label="NAME")
    gz = GazetteerDetector("es", allowlist=None)
    spans = gz.analyze(TEXT)
    shuffled = spans[:]
    random.Random(3).shuffle(shuffled)
    out = al.filter(TEXT, shuffled)
    assert out == al.filter(TEXT, spans, token_table(TEXT)) == sorted(out)
    assert [TEXT[s.start:s.end] for s in out if s.source == "allowlist:deny"] == []  # a kept span has its extent
    assert any(TEXT[s.start:s.end] == "Cuéllar" for s in out)


def test_phrase_index_longest_first_and_gaps() -> None:
    idx = PhraseIndex("es")
    for phrase in ("de la Fuente", "de la", "Fuente", "Castilla-La Mancha", "Castilla"):
        idx.add(phrase, "k")
    text = "Juan de la Fuente, de\nla Fuente y Castilla-La Mancha"
    got = [(text[m.start:m.end], m.i, m.j) for m in idx.match(text, tokenize(text), case="fold")]
    assert got == [("de la Fuente", 1, 4), ("de la", 1, 3), ("Fuente", 3, 4), ("Fuente", 7, 8),
                   ("Castilla-La Mancha", 9, 13), ("Castilla", 9, 10)]


def test_resolver_and_propagate_do_not_depend_on_input_order() -> None:
    doc = Document("d", TEXT)
    cands = GazetteerDetector("es").analyze(TEXT)
    res = Resolver()
    shuffled = cands[:]
    random.Random(7).shuffle(shuffled)
    resolved = res.resolve(doc, cands)
    assert resolved == res.resolve(doc, shuffled + shuffled[:5]) == sorted(resolved)
    start = TEXT.index("Ignacio")
    seed = [Span(start, start + len("Ignacio Navarro Cuéllar"), "NAME", "x", 0.8)]
    prop = propagate(doc, seed)
    assert prop == propagate(doc, seed * 2, tokens=tokenize(TEXT)) == propagate(doc, seed, tokens=token_table(TEXT))
    # the full name is not repeated; its surnames are, once ("NAVARRO" differs in case)
    assert [(TEXT[s.start:s.end], s.label, s.score) for s in prop if s.source == "propagate"] == [
        ("Navarro Cuéllar", "NAME", 0.72)]


def test_long_runs_of_name_words_stay_fast() -> None:
    """5 000 capitalised surnames in a row are one merged name; merging and propagating it is linear (it took
    minutes when every sub-run of the name's words was propagated)."""
    import time

    from clinanon.config import Config
    from clinanon.pipeline import Pipeline

    text = " ".join(["García", "López"] * 2500)
    nlp = Pipeline(Config.from_dict({"language": "es"}))
    t0 = time.perf_counter()
    spans = nlp.detect_spans(Document("d", text))
    assert time.perf_counter() - t0 < 10.0
    assert [(s.start, s.end) for s in spans] == [(0, len(text))]


# --- round two: pattern triggers, guarded scans, trusted spans, prefilters ----------------------------------

_NAME_ALPHABET = st.sampled_from(["Jane", "Roe", "J.", "P.", "Smith", "van", "de", "MD", "PhD", "RN", "Acme",
                                  "Holdings", "Group", "S.L.", "S.A.", "Inc.", "GmbH", "AS", ",", " ", "  ", "\n",
                                  "la", "empresa", "trabaja en", "Dr.", "Sr.", "DO", "Bank", "Ltd", "A/S"])


@functools.cache
def _untriggered(lang: str) -> list[tuple[object, object]]:
    """The name and organization recognizers of ``lang`` with their triggers, and copies without."""
    import dataclasses

    from clinanon.detect.engine import RuleRecognizer
    from clinanon.detect.rules import names, organizations

    out = []
    for mod in (names, organizations):
        r = mod.recognizers(lang)[0]
        assert isinstance(r, RuleRecognizer) and r._triggers
        plain = RuleRecognizer(r.name, r.label, [dataclasses.replace(p, trigger=None) for p in r.patterns],
                               min_score=r.min_score, postprocess=r.postprocess)
        out.append((r, plain))
    return out


@settings(max_examples=30, deadline=None)
@given(st.lists(_NAME_ALPHABET, max_size=14).map("".join), st.sampled_from(["en", "es"]))
def test_triggers_change_no_span(text: str, lang: str) -> None:
    """A pattern whose trigger a text lacks cannot match in it: leaving it out changes no span, alone or in the
    shared scan."""
    from clinanon.detect.engine import analyze_many

    pairs = _untriggered(lang)
    for r, plain in pairs:
        assert r.analyze(text) == plain.analyze(text)  # type: ignore[attr-defined]
    assert analyze_many([r for r, _ in pairs], text) == [p.analyze(text) for _, p in pairs]  # type: ignore[attr-defined]


@settings(max_examples=60, deadline=None)
@given(st.lists(_NAME_ALPHABET, max_size=14).map("".join))
def test_triggers_are_necessary_conditions(text: str) -> None:
    import re

    for lang in ("en", "es"):
        for r, _ in _untriggered(lang):
            for p in r.patterns:  # type: ignore[attr-defined]
                if p.trigger and p.compiled.search(text):
                    triggers = (p.trigger,) if isinstance(p.trigger, str) else p.trigger
                    assert all(re.search(t, text, p.flags) for t in triggers), (p.name, text)


def test_triggers_drop_patterns_per_text() -> None:
    from clinanon.detect.rules import names, organizations

    rec = names.recognizers("en")[0]
    assert rec._dropped("Seen by Jane Roe, MD") == frozenset({"initials_surname"})  # type: ignore[attr-defined]
    assert rec._dropped("J. Smith") == frozenset({"degree"})  # type: ignore[attr-defined]
    org = organizations.recognizers("en")[0]
    assert org._dropped("works at Acme Holdings") == frozenset({"legal_suffix"})  # type: ignore[attr-defined]
    # a coarse first trigger that holds, an exact second one that does not
    assert org._dropped("a Inca trail") == frozenset({"legal_suffix", "corporate_word"})  # type: ignore[attr-defined]
    assert [s.source for s in org.analyze("Report by Acme Holdings today.")] == [  # type: ignore[attr-defined]
        "org:corporate_word"]


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("AptSuiteFlaSPN 0123456789#x_\n.")), max_size=40))
def test_finditer_guarded_equals_the_combined_pattern(text: str) -> None:
    import re

    from clinanon.detect.engine import finditer_guarded
    from clinanon.detect.rules import addresses

    guard = re.compile(r"(?<![\w])")
    combined = [m.span() for m in addresses._UNIT.finditer(text)]
    assert [m.span() for m in finditer_guarded(addresses._UNIT_BODY, guard, text)] == combined
    body = re.compile(r"Ap?t?|S\d")
    assert ([m.span() for m in finditer_guarded(body, guard, text)]
            == [m.span() for m in re.finditer(r"(?<![\w])(?:Ap?t?|S\d)", text)])


def test_trusted_span_equals_checked_span_and_document_still_validates() -> None:
    import pickle

    import pytest

    from clinanon.errors import SpanError

    s = Span.trusted(3, 7, "NAME", "x:y", 0.75)
    assert s == Span(3, 7, "NAME", "x:y", 0.75) and hash(s) == hash(Span(3, 7, "NAME", "x:y", 0.75))
    assert type(s) is Span and pickle.loads(pickle.dumps(s)) == s and repr(s) == repr(Span(3, 7, "NAME", "x:y", 0.75))
    with pytest.raises(AttributeError):
        s.start = 1  # type: ignore[misc]
    with pytest.raises(SpanError, match="ends past the text"):
        Document("d", "abc", (Span.trusted(1, 9, "X"),))
    with pytest.raises(SpanError):
        Span(5, 5, "X")  # the checked constructor still checks


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 4), st.sampled_from(["A", "B", "NAME"]),
                          st.sampled_from(["g", "r:x", "r"]), st.sampled_from([0.5, 0.75, 1.0])), max_size=12))
def test_document_orders_spans_as_the_dataclass_does(rows: list[tuple[int, int, str, str, float]]) -> None:
    spans = [Span(a, a + n, lab, src, sc) for a, n, lab, src, sc in rows]
    doc = Document("d", "x" * 10, tuple(spans))
    assert list(doc.spans) == sorted(spans)
    assert Document("d", "x" * 10, iter(spans)).spans == doc.spans  # any iterable, consumed once


def test_url_and_iban_prefilters() -> None:
    from clinanon.detect.rules.contacts import UrlRecognizer
    from clinanon.detect.rules.identifiers import _BAN, _IBAN_WORD

    url = UrlRecognizer()
    assert [s.source for s in url.analyze("ver www.example.com y HTTPS://a.org/x, ftp://f.es")] == [
        "url:scheme", "url:scheme", "url:scheme"]
    assert [s.source for s in url.analyze("ver example.com")] == ["url:domain"]
    for word in ("iban", "IBAN", "IbAn", "İBAN", "ıban", "x iBAN y"):
        if _IBAN_WORD.search(word):
            assert _BAN.search(word), word


def test_name_neighbour_kinds_are_remembered() -> None:
    from clinanon.detect.rules.names import NameNeighbourRecognizer

    r = NameNeighbourRecognizer("es")
    first = [r._kind(w) for w in ("María", "García", "Madrid", "Paciente", "Zxqwv")]
    assert first == [r._kind_of(w) for w in ("María", "García", "Madrid", "Paciente", "Zxqwv")]
    assert [r._kind(w) for w in ("María", "García", "Madrid", "Paciente", "Zxqwv")] == first
    assert first[0] == "F" and first[-1] == "U"
