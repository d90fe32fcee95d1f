"""The fast paths of the rules pipeline give what the plain ones give (tokens, folding, token sharing, filters)."""

from __future__ import annotations

import functools
import random
import re
import unicodedata
from bisect import bisect_right

from hypothesis import given, settings
from hypothesis import strategies as st

from clinanon.detect.allowlist import AllowList
from clinanon.detect.gazetteer import GazetteerDetector
from clinanon.document import Document, Span
from clinanon.lang.fold import fold, strip_accents
from clinanon.lang.phrases import PhraseIndex
from clinanon.steps.propagate import propagate
from clinanon.steps.resolve import Resolver
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


def test_token_table_is_immutable_and_tokenize_returns_new_lists() -> None:
    text = "Paciente: Ana García, 45 años."
    assert token_table(text).words == token_table(text).words  # no process-wide cache: a pipeline shares one
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
    nlp = Pipeline(Config.from_dict({"language": "es", "detectors": {"use": ["rules"]}}))
    t0 = time.process_time()
    spans = nlp.detect_spans(Document("d", text))
    assert time.process_time() - t0 < 10.0
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
    # no "J." initial: initials_surname is not tried; no Jr/Sr/III: nor is name_suffix
    assert rec._dropped("Seen by Jane Roe, MD") == frozenset({"initials_surname", "name_suffix"})  # type: ignore[attr-defined]
    assert rec._dropped("J. Smith") == frozenset({"degree", "name_suffix"})  # type: ignore[attr-defined]
    assert "name_suffix" not in rec._dropped("Robert Lane Jr. called")  # type: ignore[attr-defined]
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


# --- round three: colon-anchored field labels, deep guards, first-character scans, prefix-friendly regexes -------

_FIELD_WORDS = st.sampled_from(["Nombre", "nombre y apellidos", "Paciente", "Dr", "Dra.", "Médico", "doctora",
                                "Localidad / Provincia", "Domicilio", "Name", "Patient", "Doctor", "City",
                                "Street address", "cc", ":", "=", " : ", " ", "  ", "\n", "/", "x", "Ana",
                                "del", "Informe", "NºCol", "a:b", "==", "::"])


@settings(max_examples=150, deadline=None)
@given(st.lists(_FIELD_WORDS, max_size=16).map("".join), st.sampled_from(["es", "en", "de"]),
       st.integers(0, 8), st.integers(0, 60))
def test_colon_anchored_labels_equal_the_full_scan(text: str, lang: str, pos: int, length: int) -> None:
    """Labels are searched only before each ``:`` / ``=``: the same matches as ``finditer`` over the text,
    with any ``pos`` / ``endpos``."""
    from clinanon.detect.rules.fields import _field_recognizer

    r = _field_recognizer(lang, 0.5)
    assert r._label_width is not None
    for lo, hi in ((0, None), (pos, pos + length)):
        end = len(text) if hi is None else hi
        want = [(m.span(), m.lastindex) for m in r._labels.finditer(text, lo, end)]
        assert [(m.span(), m.lastindex) for m in r._label_matches(text, lo, hi)] == want


def test_label_width_falls_back_when_a_label_may_hold_a_colon() -> None:
    from clinanon.detect.rules.fields import FieldRecognizer, FieldSpec, _label_width

    assert _label_width([r"nombre|apellidos?"], re.IGNORECASE) == len("apellidos") + 4
    for labels in ([r"a.b"], [r"x[^y]"], [r"x\W"], [r"ref[:#]"], [r"a[9-@]"], [r"\S+"], [r"ab+"]):
        assert _label_width(labels, re.IGNORECASE) is None, labels
    r = FieldRecognizer("f", [FieldSpec(r"id[^,]?", "ID")])
    text = "id:: 4\nid= 5, ID;: 7"
    assert r._label_width is None
    assert [m.span() for m in r._label_matches(text)] == [m.span() for m in r._labels.finditer(text)]


def test_deep_guards_are_cut_back_to_few_prefixes() -> None:
    from clinanon.detect import engine

    lit = [("lit", c, False) for c in "abcdef"]
    many = {(a, b, c, d) for a in lit for b in lit for c in lit for d in lit[:2]}  # 432 four-character prefixes
    guard = engine._bounded_guard(many, "letter")
    assert guard is not None and re.match(guard, "abc") and not re.match(guard, "abk")  # cut to three
    assert engine._bounded_guard({(("set", r"\d", False),)}, "digit") is None  # weak: the dispatch tests as much
    assert engine._pattern_prefixes(r"de\s(?:nombre|la)", 0, "letter") is not None
    deep = re.compile(engine._guard_source(engine._pattern_prefixes(r"de\s(?:nombre|la)", 0, "letter") or set()))
    assert deep.match("de nombre") and deep.match("de la") and not deep.match("de su")


_SHARED_WORDS = st.sampled_from(["de", "de nombre", "con los", "con las", "se llama", "Se llama", "a los", "desde",
                                 "hasta", "años", "meses", "Edad", "Sexo", ":", " ", "\n", "12", "3", "2019",
                                 "marzo", "de 2016", "Varón", "mujer", "Dr.", "Ana", "García",
                                 "trabaja en", "Acme", "14:30", "h", "y", "la", "una", "tres", "cuarenta"])


@functools.cache
def _unguarded(lang: str) -> tuple[tuple[object, ...], tuple[object, ...]]:
    from clinanon.detect.engine import RuleRecognizer
    from clinanon.detect.rules.detector import FAMILIES, _scan_groups

    shared = _scan_groups(lang, FAMILIES)[0]
    plain = tuple(RuleRecognizer(r.name, r.label, r.patterns, min_score=r.min_score, postprocess=r.postprocess,
                                 word_start=r.word_start, guards=False) for r in shared)
    return shared, plain


@settings(max_examples=25, deadline=None)
@given(st.lists(_SHARED_WORDS, max_size=18).map(" ".join), st.just("es"))
def test_deep_guards_change_no_span(text: str, lang: str) -> None:
    """The five-character word guards (and the union guard cut back from them) change no span of the shared
    scan: the same spans as the recognizers without any guard."""
    from clinanon.detect.engine import analyze_many

    shared, plain = _unguarded(lang)
    assert analyze_many(list(shared), text) == [p.analyze(text) for p in plain]  # type: ignore[attr-defined]


def test_case_variants_include_the_special_foldings() -> None:
    from clinanon.detect.regex_tree import case_variants as _case_variants

    assert _case_variants("k") == frozenset("kK\u212a")  # KELVIN SIGN
    assert {"s", "S", "\u017f"} <= _case_variants("s")  # LONG S
    assert _case_variants("d") == frozenset("dD")


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("DdRrAaOoCcTtÖöVvEeLlKkMm .:/\n\u212a")), max_size=30))
def test_first_char_scan_equals_finditer(text: str) -> None:
    from clinanon.detect.engine import finditer_first_char, first_char_scan
    from clinanon.detect.rules.fields import _field_recognizer

    cases = [(r._titles.pattern, re.IGNORECASE) for r in (_field_recognizer(lang, 0.5) for lang in ("es", "sv", "de"))]
    cases += [(r"(?<![\w./])(?:dr|doctor)\.?", re.IGNORECASE), (r"k[ae]+", re.IGNORECASE), (r"(?<!\w)Dr\.\s?M", 0),
              (r"(?i:ö)verl|Dra", 0)]
    for regex, flags in cases:
        scan = first_char_scan(regex, flags)
        assert scan is not None, regex
        assert list(finditer_first_char(scan, text)) == [m.span() for m in re.finditer(regex, text, flags)]


def test_first_char_scan_declines_what_it_cannot_bound() -> None:
    from clinanon.detect.engine import first_char_scan

    for regex in (r"\w+", r"(a)b", r".x", r"a?", r"[^a]b", r"(?i)ab"):
        assert first_char_scan(regex) is None, regex


_OLD_PHONE = (r"(?P<num>(?:\+(?=[\d ().\-\u00a0]{6})[ \u00a0]?(?:\(\d{1,4}\)[ \u00a0]?)?\(?\d++"
              r"|\((?=[\d ().\-+\u00a0]{6})(?:\+?\d{1,4}\)[ \u00a0]?\(?)?\d++|\d(?=[\d ().\-\u00a0]{6})\d*+)")


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789+()-. \u00a0xAEFZIBN/:@٣")), max_size=40))
def test_regexes_rewritten_for_prefix_skipping_match_the_same(text: str) -> None:
    """A leading character class instead of a look-around or a repeat: the same matches."""
    from clinanon.detect.rules import contacts, identifiers

    phone = contacts._PHONE_CANDIDATE.pattern
    tail = phone[phone.index(r"\d*+)") + len(r"\d*+)"):]
    old_phone = re.compile(_OLD_PHONE + tail)
    for new, old in ((contacts._PHONE_CANDIDATE, old_phone),
                     (contacts._IPV4, re.compile(r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}")),
                     (identifiers._IBAN_CANDIDATE, re.compile(r"[A-Z]{2}[0-9]{2}(?:[ ]?[A-Z0-9]){8,32}")),
                     (identifiers._IBAN_CANDIDATE_I, re.compile(r"[A-Za-z]{2}[0-9]{2}(?:[ ]?[A-Za-z0-9]){8,32}"))):
        assert [(m.span(), m.groupdict()) for m in new.finditer(text)] == [
            (m.span(), m.groupdict()) for m in old.finditer(text)]
    from clinanon.detect.rules.fields import _GENERIC_LABEL

    old_label = re.compile(r"(?<![\w/])" + _GENERIC_LABEL.pattern.replace(r"(?<![\w/].)", "", 1))
    assert [m.span() for m in _GENERIC_LABEL.finditer(text)] == [m.span() for m in old_label.finditer(text)]


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("Nnº°#aZ9_ .-\u0301٣")), max_size=30), st.integers(0, 30),
       st.integers(0, 30))
def test_id_label_starts_equal_the_character_tests(text: str, lo: int, a: int) -> None:
    from clinanon.detect.rules.identifiers import _LABEL_START

    if not text:
        return
    a = min(a, len(text) - 1)

    def old(p: int) -> bool:
        c = text[p]
        return (c.isalnum() or c == "#") and not (p > 0 and text[p - 1].isalnum()
                                                  and not (c in "Nn" and text[p + 1:p + 2] in ("º", "°")))

    got = [m.start() for m in _LABEL_START.finditer(text, min(lo, a), a + 2) if m.start() <= a]
    assert got == [p for p in range(min(lo, a), a + 1) if old(p)]


_WORD_START_CHARS = list("vViIeEnNrRsSdDtTaAoOfFlLPCUMBmb ,.:;\n\t-'’0123456789\u212a\u0130\u0131é")


@functools.cache
def _word_start_cases() -> list[tuple[re.Pattern[str], re.Pattern[str] | None]]:
    from clinanon.detect.engine import word_start_scan
    from clinanon.detect.rules import addresses

    rxs = [addresses.PlaceContextRecognizer(lang)._rx for lang in ("es", "en", "de")]
    rxs += [addresses._MILITARY, re.compile(r"(?<!\w)(?:ab|Kc|in)\w?", re.IGNORECASE)]
    return [(rx, word_start_scan(rx.pattern, rx.flags)) for rx in rxs]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([*_WORD_START_CHARS, "vive en ", "Vive en ", "lives in ", "grew up in ", "Tudela",
                                 "Oulu", "de la ", "PSC 123, Box 4567", "APO AE 09123", "born in", "xlives in "]),
                max_size=25).map("".join))
def test_word_start_scan_equals_finditer(text: str) -> None:
    """finditer_word_start gives finditer's matches (spans and groups) for word-start regexes."""
    from clinanon.detect.engine import finditer_word_start

    for rx, scan in _word_start_cases():
        assert scan is not None, rx.pattern
        got = [(m.span(), m.groups()) for m in finditer_word_start(scan, rx, text)]
        assert got == [(m.span(), m.groups()) for m in rx.finditer(text)]


def test_word_start_scan_declines_what_it_cannot_bound() -> None:
    from clinanon.detect.engine import word_start_scan

    for regex in (r"abc", r"(?<![\w])\w+", r"(?<!\w)(?i:é)x", r"(?<!\w)[#a]b", r"(?<!\w)a?", r"(?<![\w.])ab"):
        assert word_start_scan(regex) is None, regex


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([*"AaBbÑñ-'’,. \t\n0123456789", "Ana", "Luis", " and ", " y ", ", ", "O'Neil",
                                 "Mary-Ann", "x" * 31]),
                max_size=25).map("".join))
def test_factored_name_list_equals_the_two_branches(text: str) -> None:
    """_LIST with the first word taken out of its two branches: the same matches."""
    from clinanon.detect.rules import names

    first = rf"{names._U}(?<![\w\-'’].){names._CAPW_REST}"
    old = re.compile(rf"{first}(?:,[ \t]{{1,2}}{names.CAPW}){{1,8}}(?:,?[ \t]{{1,2}}"
                     rf"(?:and|or|y|en|och|und|e)[ \t]{{1,2}}{names.CAPW})?(?![\w\-])"
                     rf"|{first}[ \t]{{1,2}}(?:and|y|en|och|und)[ \t]{{1,2}}{names.CAPW}(?![\w\-])")
    assert [m.span() for m in names._LIST.finditer(text)] == [m.span() for m in old.finditer(text)]


_OLD_PC_CORE = {"es": r"[0-9]{5}", "de": r"[0-9]{5}|[1-9][0-9]{3}", "sv": r"[1-9][0-9]{2}[ \t][0-9]{2}|[1-9][0-9]{4}",
                "en": r"[0-9]{5}(?:-[0-9]{4})?"}


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789 \t-aZ")), max_size=30))
def test_postcode_cores_match_as_written_before(text: str) -> None:
    from clinanon.detect.rules.addresses import _PC_CORE

    for lang, old in _OLD_PC_CORE.items():
        new = re.compile(rf"(?:{_PC_CORE[lang]})(?![\w])")
        assert [m.span() for m in new.finditer(text)] == [m.span() for m in re.finditer(rf"(?:{old})(?![\w])", text)]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([*"nNº°#:= .-\n0123456789AbZ", "NHC", "nhc", "DNI", "historia clínica", "Nº SS",
                                 "pasaporte", "MRN", "ID", "Col."]),
                max_size=20).map("".join))
def test_guarded_id_labels_match_as_unguarded(text: str) -> None:
    """The id-label regexes with the labels' prefix guard: the same matches as without it."""
    from clinanon.detect.rules.identifiers import id_label_regex

    for lang in ("es", "en"):
        plain_labels, value_rx, plain_value_rx = _id_label_cases(lang)
        assert [m.span() for m in id_label_regex(lang).finditer(text)] == [
            m.span() for m in plain_labels.finditer(text)]
        for p in range(len(text)):
            a, b = value_rx.match(text, p), plain_value_rx.match(text, p)
            assert (a and (a.span(), a.groupdict())) == (b and (b.span(), b.groupdict()))


@functools.cache
def _id_label_cases(lang: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The label regex without its guard, and the field-value regex with and without it."""
    from clinanon.detect.engine import prefix_guard
    from clinanon.detect.rules.identifiers import FieldValueRecognizer, _alternation

    guard = prefix_guard(_alternation(lang), re.IGNORECASE, 3)
    assert guard
    value_rx = FieldValueRecognizer(lang)._regex
    return (re.compile(rf"(?<!\w)(?:{_alternation(lang)})(?!\w)", re.IGNORECASE), value_rx,
            re.compile(value_rx.pattern.replace(guard, "", 1), re.IGNORECASE))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([*"aBx .\n", "Bank", "Bancorp", "Group", "Groups", "Labs", "Laboratories", "Trust",
                                 "Media", "Pharma", "Pharmaceuticals"]),
                max_size=12).map("".join))
def test_corporate_trigger_trie_finds_what_the_alternation_finds(text: str) -> None:
    from clinanon.detect.rules.organizations import _CORPORATE, organization_patterns

    pattern = next(p for p in organization_patterns("en") if p.name == "corporate_word")
    plain = re.compile(rf"(?:{'|'.join(sorted(_CORPORATE, key=len, reverse=True))})(?![\w])")
    assert (re.search(str(pattern.trigger), text) is None) == (plain.search(text) is None)


@settings(max_examples=100, deadline=None)
@given(st.sets(st.tuples(st.sampled_from(["a", "d", "k", "s", "I", "ß", "1"]), st.booleans(),
                         st.sampled_from(["e", "K", "i", " "]), st.booleans()), min_size=1, max_size=6),
       st.text(alphabet=st.sampled_from(list("adkKsSſIiİıeE ß1\u212a")), min_size=2, max_size=4))
def test_trie_source_matches_what_its_prefixes_match(prefixes: set, text: str) -> None:
    """The guard trie (case variants spelled out as case-sensitive classes) matches at the start of ``text``
    iff ``text`` starts with one of the prefixes, each literal compared with its own case-insensitivity."""
    from clinanon.detect.engine import _trie_source

    atoms = {(("lit", a, ia), ("lit", b, ib)) for a, ia, b, ib in prefixes}
    atoms.add((("set", r"\d", False),))

    def holds(atom: tuple[str, str, bool], ch: str) -> bool:
        kind, value, ic = atom
        body = re.escape(value) if kind == "lit" else value
        return re.fullmatch(f"(?{'i' if ic else '-i'}:[{body}])", ch) is not None

    expected = any(len(text) >= len(p) and all(holds(a, text[i]) for i, a in enumerate(p)) for p in atoms)
    assert (re.match(_trie_source(atoms), text) is not None) == expected
