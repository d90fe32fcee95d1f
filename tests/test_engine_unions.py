"""The rule engine compiles a bounded number of scans, whatever the texts (issues 16, 17).

Patterns with a trigger (``RulePattern.trigger``) are left out of a text's scan when the text lacks the trigger.
The shared scan of :func:`clinanon.detect.engine.analyze_many` used to be compiled once per set of absent
triggers (seconds each, never freed); it is now compiled once per tuple of recognizers, and the triggered
patterns a text has the triggers of are searched alone and merged in. These tests check the count of compiles
and that the spans are those of one scan without the absent patterns.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinanon import caches
from clinanon.detect import engine
from clinanon.detect.engine import RulePattern, RuleRecognizer, analyze_many, compile_counts
from clinanon.detect.rules.detector import FAMILIES, _scan_groups
from clinanon.document import Span

#: fragments that hold (or not) the triggers of the name and organization patterns, and other PHI-like text
_FRAGMENTS = ("Seen by Jane Roe, MD.", "J. Smith called.", "Works at Acme Holdings.", "Acme Corp Inc. billed",
              "Dr. van der Berg", "on 12/03/2019", "aged 45", "Tel 555-0100", "Jan Jansen MD PhD",
              "Frau Dr. med. Anna Schmidt")


def _texts() -> list[str]:
    """Many short texts: every subset of up to three fragments, in order, with a counter (all different)."""
    out = []
    for n in range(4):
        for combo in itertools.combinations(_FRAGMENTS, n):
            out.append(f"Note {len(out)}: " + " ".join(combo))
    return out


def _exact(r: RuleRecognizer, text: str, subsets: dict) -> list[Span]:
    """The reference: a recognizer with only the patterns whose triggers ``text`` has (built once per set)."""
    keep = tuple(p for p in r.patterns if p.name not in r._dropped(text))
    if keep not in subsets:
        subsets[keep] = RuleRecognizer(r.name, r.label, keep, min_score=r.min_score, postprocess=r.postprocess,
                                       word_start=r.word_start, guards=r.guards) if keep else None
    sub = subsets[keep]
    return sub.analyze(text) if sub is not None else []


@pytest.mark.parametrize("lang", ["en", "es", "de"])
def test_many_different_short_texts_compile_nothing_after_the_first(lang: str) -> None:
    shared = _scan_groups(lang, FAMILIES)[0]
    assert any(r._triggers for r in shared)  # (else this test tests nothing)
    texts = _texts()
    analyze_many(shared, "Note.")  # the first text compiles the shared scan and each scan without triggers
    before = compile_counts()
    found = [analyze_many(shared, t) for t in texts]
    assert compile_counts() == before  # not one compile for 176 texts with different sets of triggers
    # they did hit many sets of absent triggers (each one compiled a shared scan before)
    drops = {tuple(r._dropped(t) for r in shared if r._triggers) for t in texts}
    assert len(drops) >= 4
    # and the spans are those of one scan per recognizer without the patterns whose trigger is absent
    subsets: dict = {}
    for text, spans in zip(texts, found, strict=True):
        assert spans == [_exact(r, text, subsets) for r in shared], text


def test_the_shared_scans_are_a_bounded_memo_that_caches_clear_empties() -> None:
    shared = _scan_groups("en", FAMILIES)[0]
    analyze_many(shared, "J. Smith, MD")
    assert engine._plan.cache_info().currsize >= 1
    assert engine._plan.cache_info().maxsize is not None  # bounded
    assert engine._plan in caches.registered("tables")
    caches.clear("tables")
    assert engine._plan.cache_info().currsize == 0


def test_exact_subsets_are_bounded() -> None:
    pats = [RulePattern(f"w{i}", rf"w{i}[a-z]+", label="X", first="letter") for i in range(8)]
    rec = RuleRecognizer("t", "X", pats)
    for k in range(8):
        rec._without(frozenset({f"w{k}"}))
    assert len(rec._subsets) <= engine._MAX_SUBSETS


# a recognizer whose triggered patterns overlap untriggered ones, before and after them in list order
_TRIGGERED = RuleRecognizer("n", "NAME", [
    RulePattern("degree", r"[A-Z][a-z]+ [A-Z][a-z]+(?=, MD)", label="NAME", first="letter", trigger=r", MD"),
    RulePattern("two_caps", r"[A-Z][a-z]+ [A-Z][a-z]+", label="NAME", first="letter"),
    RulePattern("initials", r"[A-Z]\. ?[A-Z][a-z]+(?: [A-Z][a-z]+)?", label="NAME", first="letter",
                trigger=r"[A-Z]\."),
    RulePattern("num", r"\d+(?:\.\d+)?(?![.\w])", label="ID", first="digit"),
    RulePattern("late", r"[A-Z][a-z]+ies\b", label="NAME", first="letter", trigger="ies"),
    RulePattern("num_dot", r"\d+\.[A-Z]", label="ID", first="digit", trigger=r"\d\.[A-Z]"),
])
_OTHER = RuleRecognizer("d", "DATE", [
    RulePattern("date", r"\d+/\d+", label="DATE", first="digit"),
    RulePattern("month", r"Ma[a-z]+", label="DATE", first="letter"),
])
_ALPHABET = st.sampled_from(["Ann ", "Bo", "Ann Roe, MD", "J. Bo", "7.C", "Lies ", "Roe", ", MD", "J.", " ", "A. ",
                             "Mary", "12", "3/4", ".", "Smith ", "x", "ies", "5.B", "\n", "Ma"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, max_size=16).map("".join))
def test_merged_scan_equals_one_scan_without_the_absent_patterns(text: str) -> None:
    subsets: dict = {}
    ref = _exact(_TRIGGERED, text, subsets)
    assert _TRIGGERED.analyze(text) == ref
    assert analyze_many([_TRIGGERED, _OTHER], text) == [ref, _OTHER.analyze(text)]
    assert analyze_many([_OTHER, _TRIGGERED], text) == [_OTHER.analyze(text), ref]


def test_a_triggered_pattern_first_in_order_wins_where_both_match() -> None:
    text = "Seen by Jane Roe, MD and J. Smith Jones; Lies Ann 5.B"
    spans = analyze_many([_TRIGGERED, _OTHER], text)[0]
    assert [(text[s.start:s.end], s.source) for s in spans] == [
        ("Jane Roe", "n:degree"), ("J. Smith Jones", "n:initials"),
        ("Lies Ann", "n:two_caps"), ("5.B", "n:num_dot")]
