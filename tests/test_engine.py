"""The rule engine (clinanon.detect.engine): prefix guards, one-scan recognizers, re-exports."""

from __future__ import annotations

import functools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinanon.detect import engine
from clinanon.detect.engine import (
    Context,
    RulePattern,
    RuleRecognizer,
    analyze_many,
    prefix_guard,
    words_after,
    words_before,
)
from clinanon.detect.rules import ages, dates, fields
from clinanon.document import Span

LANGS = ("en", "es", "nl", "sv", "de")

SAMPLE = {
    "es": ("Varón de 45 años, ingresa el 12 de marzo de 2016 a las 14:30 h. Sexo: H. Edad: 45. En 2015 y 2016, "
           "tras el alta (2014), control en Mayo de 2017; desde los cuarenta y dos años. Niña de 3 meses. "
           "Fecha: 03/04/2019 12-12-2019-5 1/1/1/1 el lunes 4 de julio. año 2012. DE 2 AÑOS."),
    "en": ("45-year-old woman seen on March 12, 2016 at 2:30 pm; DOB 12/03/1970, aged 45. Sex: F. In May 2019 "
           "she may come back; Dec 4th. MAR 2020. 2000 mg. Tuesday, 5 Jan 2021."),
    "nl": "45-jarige vrouw, opname op 12 maart 2016 om 14.30 uur. Geslacht: V. In 2015.",
    "sv": "45-årig kvinna, inskrivning den 12 mars 2016 kl 14.30. Kön: K. År 2015.",
    "de": "45-jährige Patientin, Aufnahme am 12. März 2016 um 14 Uhr. Geschlecht: w. Im Jahr 2015.",
}


def recognizers(lang: str) -> list[RuleRecognizer]:
    out = [*dates.recognizers(lang), *ages.recognizers(lang)]
    out += [r for r in fields.recognizers(lang) if isinstance(r, RuleRecognizer)]
    return out  # type: ignore[return-value]


def test_dates_reexports_the_engine() -> None:
    assert dates.RuleRecognizer is RuleRecognizer and dates.RulePattern is RulePattern
    assert dates.Context is Context and dates.words_before is words_before and dates.words_after is words_after
    assert ages.RuleRecognizer is RuleRecognizer


# --- guards ----------------------------------------------------------------------------------------------


def test_guard_of_literal_alternation_keeps_case_insensitivity() -> None:
    g = prefix_guard(r"\b(?:enero|febrero)\s\d", re.IGNORECASE)
    assert g is not None and g.startswith("(?=")
    rx = re.compile(g)
    # two characters by default: "en" and "fe" pass, "ma" does not
    assert [w for w in ("Enero", "FEBRERO", "en", "fe", "marzo", "e") if rx.match(w)] == ["Enero", "FEBRERO", "en",
                                                                                          "fe"]
    rx3 = re.compile(prefix_guard(r"\b(?:enero|febrero)\s\d", re.IGNORECASE, 3) or "")
    assert [w for w in ("ENE", "en", "feb", "fe ") if rx3.match(w)] == ["ENE", "feb"]


def test_guard_skips_zero_width_items_and_keeps_classes() -> None:
    g = prefix_guard(r"(?<![\w/])\b(?=\d)\d{1,2}/\d{1,2}")
    assert g is not None
    rx = re.compile(g)
    assert rx.match("12/") and rx.match("1/") and not rx.match("a1") and not rx.match("/1")


def test_guard_optional_and_repeated_items() -> None:
    rx = re.compile(prefix_guard(r"(?:Dr\.?|Dra)\s?[A-Z]", 0, 3) or "")
    assert rx.match("Dr. X") and rx.match("DraX") and rx.match("Dr X") and not rx.match("Do X")
    rx = re.compile(prefix_guard(r"a{2,5}b", 0, 3) or "")  # after the first "a" of a repeat: unknown
    assert rx.match("ab") and rx.match("aaab") and not rx.match("b")


@pytest.mark.parametrize("regex", [r"x?y?", r".abc", r"a?.", r"[^a]?", r"(a)?\1"])
def test_no_guard_when_a_match_can_start_anywhere(regex: str) -> None:
    assert prefix_guard(regex) is None


def test_negated_classes() -> None:
    rx = re.compile(prefix_guard(r"[^,;]x") or "")
    assert rx.match("ax") and not rx.match(",x") and not rx.match("ay")


@functools.cache
def guarded_patterns() -> list[tuple[re.Pattern[str], list[re.Pattern[str]]]]:
    """Every third pattern of the rule families (all languages) with its two- and three-character guards."""
    pats = [(p.regex, p.flags) for lang in LANGS for r in recognizers(lang) for p in r.patterns][::3]
    return [(re.compile(rx, fl), [re.compile(g) for g in (prefix_guard(rx, fl, 2), prefix_guard(rx, fl, 3)) if g])
            for rx, fl in pats]


_TEXT = st.text(alphabet=st.sampled_from(list("aeiouAEIOUdDmMsSnNlLrRtTcC ñÑáÁéÉº°-/.,:'0123456789\n")),
                max_size=40)


@settings(max_examples=25, deadline=None)
@given(_TEXT)
def test_guards_are_necessary_conditions(text: str) -> None:
    """Wherever a pattern matches, its guards (two and three characters) match too."""
    for rx, guards in guarded_patterns():
        for pos in range(len(text)):
            if rx.match(text, pos):
                assert all(g.match(text, pos) for g in guards), (rx.pattern[:60], text, pos)


@pytest.mark.parametrize("lang", LANGS)
def test_guards_change_no_span(lang: str) -> None:
    text = SAMPLE[lang]
    for r in recognizers(lang):
        plain = RuleRecognizer(r.name, r.label, r.patterns, min_score=r.min_score, postprocess=r.postprocess,
                               word_start=r.word_start, guards=False)
        assert r.analyze(text) == plain.analyze(text)
        assert "(?=" in r._regex.pattern.replace(r"\b(?=\w)", "", 1)


# --- one scan for several recognizers ----------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_analyze_many_equals_one_scan_each(lang: str) -> None:
    recs = recognizers(lang)
    text = SAMPLE[lang]
    assert analyze_many(recs, text) == [r.analyze(text) for r in recs]
    assert any(analyze_many(recs, text))


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789 /.:-aeñoAEyMmarzoEneroañosvarónh\n")), max_size=60))
def test_analyze_many_equals_one_scan_each_on_any_text(text: str) -> None:
    recs = recognizers("es")
    assert analyze_many(recs, text) == [r.analyze(text) for r in recs]


def test_analyze_many_keeps_each_recognizers_own_overlaps() -> None:
    """Two recognizers whose matches overlap each keep their own left-to-right scan."""
    a = RuleRecognizer("a", "A", [RulePattern("ab", r"ab\w", first="letter", score=0.9)])
    b = RuleRecognizer("b", "B", [RulePattern("b", r"abc", first="letter", score=0.9),
                                  RulePattern("n", r"\d\d", first="digit", score=0.9)])
    text = "abc abd 12 abcx"
    assert analyze_many([a, b], text) == [a.analyze(text), b.analyze(text)]
    assert [(s.start, s.end) for s in a.analyze(text)] == [(0, 3), (4, 7), (11, 14)]
    assert [(s.start, s.end) for s in b.analyze(text)] == [(0, 3), (8, 10), (11, 14)]


def test_analyze_many_applies_postprocess_and_falls_back() -> None:
    def drop_first(text: str, spans: list[Span]) -> list[Span]:
        return spans[1:]

    a = RuleRecognizer("a", "A", [RulePattern("w", r"x\w", first="letter", score=0.9)], postprocess=drop_first)
    anywhere = RuleRecognizer("z", "Z", [RulePattern("z", r"z", score=0.9)], word_start=False)
    text = "xa xb azb"
    assert analyze_many([a, anywhere], text) == [a.analyze(text), anywhere.analyze(text)]
    assert [(s.start, s.end) for s in a.analyze(text)] == [(3, 5)]
    assert [(s.start, s.end) for s in anywhere.analyze(text)] == [(7, 8)]
    assert not engine._can_unite(anywhere)


def test_context_words() -> None:
    text = "Fecha de Ingreso: el 12"
    assert words_before(text, len(text) - 2, 2) == ["ingreso", "el"]
    assert words_before(text, len(text) - 2, 0) == ["fecha", "de", "ingreso", "el"]  # [-0:] is everything
    assert words_after("12 de Mayo", 2, 1) == ["de"]
    ctx = Context.of(before=("Ingreso",), neg_after=("mg",), boost=0.2, penalty=0.5)
    assert ctx.adjust(text, len(text) - 2, len(text)) == pytest.approx(0.2)
    assert ctx.adjust("dosis 12 mg", 6, 8) == pytest.approx(-0.5)
