"""Evaluation measures on small hand-built documents; every expected count is computed by hand in a comment.

Texts are plain words separated by single spaces so that any reasonable tokenizer yields one token per word
(checked by ``_words``): the hand counts do not depend on tokenizer details.
"""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

import clinanon.evaluate.metrics as metrics
from clinanon import Document, Span
from clinanon.errors import ClinanonError
from clinanon.evaluate import MEASURES, PRF, EvaluationConfigError, EvaluationReport, evaluate, render_table
from clinanon.evaluate.intervals import intersect, merge, overlap_pairs
from clinanon.text import tokenize


def sp(text: str, phrase: str, label: str, nth: int = 0, shift: int = 0) -> Span:
    """The span of the ``nth`` occurrence of ``phrase`` (start moved right by ``shift``)."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(phrase, start + 1)
    return Span(start + shift, start + len(phrase), label)


def _words(text: str) -> None:
    assert [text[t.start:t.end] for t in tokenize(text, "es")] == text.split()


def prf(m: PRF) -> tuple[int, int, int]:
    return (m.tp, m.fp, m.fn)


# --- case 1: partial overlap, label confusion, spurious, miss ------------------------------------------------

T1 = "Juan Garcia vive en Madrid desde 2010 con su hijo Pedro"
GOLD1 = Document("d1", T1, (
    sp(T1, "Juan Garcia", "NAME"),  # 2 tokens, 10 chars
    sp(T1, "Madrid", "LOC"),         # 1 token, 6 chars
    sp(T1, "2010", "DATE"),          # 1 token, 4 chars
    sp(T1, "Pedro", "NAME"),         # 1 token, 5 chars
))
PRED1 = Document("d1", T1, (
    sp(T1, "Juan", "NAME"),          # partial overlap of "Juan Garcia"
    sp(T1, "Madrid", "NAME"),        # right span, wrong label
    sp(T1, "2010", "DATE"),          # exact
    sp(T1, "hijo", "NAME"),          # spurious
))                                   # "Pedro" missed


@pytest.fixture(scope="module")
def r1() -> EvaluationReport:
    _words(T1)
    return evaluate([GOLD1], [PRED1])


def test_case1_token_binary(r1: EvaluationReport) -> None:
    # gold PHI tokens {Juan, Garcia, Madrid, 2010, Pedro}; pred {Juan, Madrid, 2010, hijo}
    # tp = Juan, Madrid, 2010 = 3; fp = hijo = 1; fn = Garcia, Pedro = 2
    m = r1.token_binary.micro
    assert prf(m) == (3, 1, 2)
    assert m.precision == pytest.approx(3 / 4)
    assert m.recall == pytest.approx(3 / 5)
    assert m.f1 == pytest.approx(2 * 0.75 * 0.6 / 1.35)
    assert r1.token_binary.per_label == {} and r1.token_binary.macro is None


def test_case1_token_relaxed(r1: EvaluationReport) -> None:
    # Juan NAME/NAME tp; Garcia NAME/- fn NAME; Madrid LOC/NAME fn LOC + fp NAME; 2010 tp DATE;
    # hijo -/NAME fp NAME; Pedro NAME/- fn NAME  => tp 2, fp 2, fn 3
    m = r1.token_relaxed
    assert prf(m.micro) == (2, 2, 3)
    assert {k: prf(v) for k, v in m.per_label.items()} == {
        "DATE": (1, 0, 0), "LOC": (0, 0, 1), "NAME": (1, 2, 2)}
    # macro: NAME P = R = F = 1/3; LOC P = 0 (nothing predicted), R = 0; DATE 1  => (1/3 + 0 + 1) / 3 = 4/9
    assert m.macro is not None
    assert m.macro.precision == pytest.approx(4 / 9)
    assert m.macro.recall == pytest.approx(4 / 9)
    assert m.macro.f1 == pytest.approx(4 / 9)


def test_case1_token_strict(r1: EvaluationReport) -> None:
    # gold tags: Juan B-NAME, Garcia I-NAME, Madrid B-LOC, 2010 B-DATE, Pedro B-NAME
    # pred tags: Juan B-NAME, Madrid B-NAME, 2010 B-DATE, hijo B-NAME  => same counts as relaxed
    assert prf(r1.token_strict.micro) == (2, 2, 3)


def test_case1_entities(r1: EvaluationReport) -> None:
    # exact (start, end, label): only "2010" DATE  => tp 1, fp 3, fn 3
    assert prf(r1.entity_exact.micro) == (1, 3, 3)
    assert r1.entity_exact.precision == pytest.approx(0.25)
    assert r1.entity_exact.recall == pytest.approx(0.25)
    assert {k: prf(v) for k, v in r1.entity_exact.per_label.items()} == {
        "DATE": (1, 0, 0), "LOC": (0, 0, 1), "NAME": (0, 3, 2)}
    # exact (start, end): Madrid and 2010  => tp 2; fp Juan, hijo; fn Juan Garcia, Pedro
    assert prf(r1.entity_span.micro) == (2, 2, 2)
    # overlap, same label: gold found = Juan Garcia (by Juan), 2010 => tp 2, fn 2 (Madrid LOC, Pedro)
    # preds correct = Juan, 2010 => tp_pred 2, fp 2 (Madrid NAME, hijo)
    ov = r1.entity_overlap.micro
    assert (ov.tp, ov.tp_precision, ov.fp, ov.fn) == (2, 2, 2, 2)
    assert {k: (v.tp, v.tp_precision, v.fp, v.fn) for k, v in r1.entity_overlap.per_label.items()} == {
        "DATE": (1, 1, 0, 0), "LOC": (0, 0, 0, 1), "NAME": (1, 1, 2, 1)}
    # overlap, any label: gold found = Juan Garcia, Madrid, 2010 (3), fn Pedro; preds hit = Juan, Madrid, 2010
    ou = r1.entity_overlap_unlabeled.micro
    assert (ou.tp, ou.tp_precision, ou.fp, ou.fn) == (3, 3, 1, 1)
    assert ou.precision == pytest.approx(0.75) and ou.recall == pytest.approx(0.75)


def test_case1_chars_and_leak(r1: EvaluationReport) -> None:
    # gold chars: JuanGarcia 10 + Madrid 6 + 2010 4 + Pedro 5 = 25; pred: 4 + 6 + 4 + hijo 4 = 18
    # both: Juan 4 + Madrid 6 + 2010 4 = 14  => tp 14, fp 4, fn 11
    assert prf(r1.char_binary.micro) == (14, 4, 11)
    lk = r1.leakage
    # uncovered gold: Garcia 6 + Pedro 5 = 11; leaked spans: Juan Garcia (partly), Pedro (fully)
    assert (lk.gold_chars, lk.leak_chars, lk.gold_spans, lk.leaked_spans, lk.fully_leaked_spans) == (25, 11, 4, 2, 1)
    assert (r1.leak_chars, r1.leaked_spans, r1.fully_leaked_spans) == (11, 2, 1)
    assert lk.leak_rate == pytest.approx(11 / 25)
    per = {k: (v.gold_chars, v.leak_chars, v.gold_spans, v.leaked_spans, v.fully_leaked_spans)
           for k, v in lk.per_label.items()}
    assert per == {"NAME": (15, 11, 2, 2, 1), "LOC": (6, 0, 1, 0, 0), "DATE": (4, 0, 1, 0, 0)}


def test_case1_confusion(r1: EvaluationReport) -> None:
    c = r1.confusion
    assert c.labels == ("DATE", "LOC", "NAME", "O")
    # Juan Garcia -> Juan (NAME); Madrid LOC -> NAME; 2010 -> DATE; Pedro -> O (miss); hijo: O -> NAME (spurious)
    assert c.matrix() == [
        [1, 0, 0, 0],  # DATE
        [0, 0, 1, 0],  # LOC
        [0, 0, 1, 1],  # NAME
        [0, 0, 1, 0],  # O
    ]
    assert c["LOC", "NAME"] == 1 and c["NAME", "O"] == 1 and c["O", "NAME"] == 1 and c["DATE", "LOC"] == 0


# --- case 2: multi-token spans, B/I differences, a span starting inside a token -------------------------------

T2 = "Dr Lopez Martin ingreso el 12 de marzo"
GOLD2 = Document("d2", T2, (sp(T2, "Lopez Martin", "NAME"), sp(T2, "12 de marzo", "DATE")))
PRED2 = Document("d2", T2, (
    sp(T2, "Lopez", "NAME"), sp(T2, "Martin", "NAME"),   # one gold name split in two predictions
    sp(T2, "12 de marzo", "DATE", shift=1),              # starts inside the token "12" ("2 de marzo")
))


def test_case2() -> None:
    _words(T2)
    r = evaluate([GOLD2], [PRED2])
    # tokens Lopez Martin 12 de marzo are PHI on both sides (the "12" token is touched by "2 de marzo")
    assert prf(r.token_binary.micro) == (5, 0, 0)
    assert prf(r.token_relaxed.micro) == (5, 0, 0)
    # strict: gold B-NAME I-NAME B-DATE I-DATE I-DATE; pred B-NAME B-NAME B-DATE I-DATE I-DATE
    # Martin I-NAME vs B-NAME => fn 1 + fp 1; others tp 4
    assert prf(r.token_strict.micro) == (4, 1, 1)
    # no exact span: 3 predictions, 2 gold
    assert prf(r.entity_exact.micro) == (0, 3, 2)
    assert prf(r.entity_span.micro) == (0, 3, 2)
    # overlap: both gold spans found (tp 2); all three predictions correct (tp_pred 3) => P = R = 1
    ov = r.entity_overlap.micro
    assert (ov.tp, ov.tp_precision, ov.fp, ov.fn) == (2, 3, 0, 0)
    assert ov.precision == ov.recall == ov.f1 == 1.0
    # chars: gold LopezMartin 11 + 12demarzo 9 = 20; pred 5 + 6 + 8 = 19, all inside gold => tp 19, fn 1 ("1")
    assert prf(r.char_binary.micro) == (19, 0, 1)
    assert (r.leak_chars, r.leaked_spans, r.fully_leaked_spans) == (1, 1, 0)
    assert r.leakage.per_label["DATE"].leak_chars == 1 and r.leakage.per_label["NAME"].leak_chars == 0
    # best overlap for the name is "Martin" (6 chars > 5): NAME -> NAME
    assert r.confusion["NAME", "NAME"] == 1 and r.confusion["DATE", "DATE"] == 1
    assert r.confusion["O", "NAME"] == 0  # "Lopez" overlaps gold: not spurious


def test_span_inside_token_counts_the_whole_token() -> None:
    text = "paciente Garcia ingresa"
    gold = Document("x", text, (sp(text, "Garcia", "NAME"),))
    pred = Document("x", text, (sp(text, "Garcia", "NAME", shift=2),))  # "rcia"
    r = evaluate([gold], [pred])
    assert prf(r.token_binary.micro) == (1, 0, 0)
    assert prf(r.token_strict.micro) == (1, 0, 0)
    assert prf(r.entity_exact.micro) == (0, 1, 1)
    assert prf(r.char_binary.micro) == (4, 0, 2)  # "Ga" leaks
    assert (r.leak_chars, r.leaked_spans, r.fully_leaked_spans) == (2, 1, 0)


# --- corpus-level behaviour ---------------------------------------------------------------------------------


def test_missing_prediction_counts_as_all_missed() -> None:
    # d1 as in case 1, d2's prediction missing: d2's 2 gold spans / 5 gold tokens / 20 gold chars all missed
    r = evaluate([GOLD1, GOLD2], [PRED1])
    assert r.missing_predictions == ("d2",)
    assert r.documents == 2 and r.gold_spans == 6 and r.pred_spans == 4
    assert prf(r.entity_exact.micro) == (1, 3, 3 + 2)
    assert prf(r.token_binary.micro) == (3, 1, 2 + 5)
    assert prf(r.char_binary.micro) == (14, 4, 11 + 20)
    assert (r.leak_chars, r.leaked_spans, r.fully_leaked_spans) == (31, 4, 3)
    assert r.confusion["DATE", "O"] == 1 and r.confusion["NAME", "O"] == 2


def test_micro_sums_documents() -> None:
    r = evaluate([GOLD1, GOLD2], [PRED2, PRED1])  # prediction order does not matter
    assert r.missing_predictions == ()
    assert prf(r.entity_exact.micro) == (1 + 0, 3 + 3, 3 + 2)
    assert prf(r.token_strict.micro) == (2 + 4, 2 + 1, 3 + 1)


def test_gold_equals_pred_is_one_everywhere() -> None:
    docs = [GOLD1, GOLD2]
    r = evaluate(docs, docs)
    for name, m in r.measures.items():
        assert m.precision == m.recall == m.f1 == 1.0, name
        if m.macro is not None:
            assert tuple(m.macro) == (1.0, 1.0, 1.0), name
    assert r.leak_chars == r.leaked_spans == r.fully_leaked_spans == 0
    assert all(r.confusion[g, p] == 0 for g in r.confusion.labels for p in r.confusion.labels if g != p)


def test_nested_spans_on_one_side() -> None:
    text = "Hospital Clinico de Madrid"
    gold = Document("h", text, (Span(0, len(text), "HOSPITAL"), sp(text, "Madrid", "CITY")))
    pred = Document("h", text, (Span(0, len(text), "HOSPITAL"),))
    r = evaluate([gold], [pred])
    # BIO view: the longer HOSPITAL span is tagged, the nested CITY span dropped => 4 tokens tp
    assert prf(r.token_relaxed.micro) == (4, 0, 0)
    assert prf(r.token_strict.micro) == (4, 0, 0)
    # the nested CITY span is missed as an entity, but its characters are covered (no leak)
    assert prf(r.entity_exact.micro) == (1, 0, 1)
    assert (r.entity_overlap.micro.tp, r.entity_overlap.micro.fn) == (1, 1)
    assert (r.entity_overlap_unlabeled.micro.tp, r.entity_overlap_unlabeled.micro.fn) == (2, 0)
    assert r.leak_chars == 0 and r.leakage.per_label["CITY"].gold_chars == 6
    assert r.confusion["CITY", "HOSPITAL"] == 1  # the one overlapping prediction
    assert r.leakage.gold_chars == 23  # overlapping gold counted once


def test_token_overlapping_spans_use_the_bio_view() -> None:
    text = "uno dos tres cuatro"
    gold = Document("o", text, (sp(text, "uno dos", "NAME"), sp(text, "dos tres cuatro", "LOC")))
    pred = Document("o", text, (Span(0, len(text), "LOC"),))
    r = evaluate([gold], [pred])
    # binary (coverage): gold PHI tokens = all 4, pred all 4 => tp 4
    assert prf(r.token_binary.micro) == (4, 0, 0)
    # encode_bio keeps the longer gold span: uno O, dos B-LOC, tres I-LOC, cuatro I-LOC; pred B I I I
    # relaxed: uno fp LOC; dos, tres, cuatro tp => tp 3, fp 1
    assert prf(r.token_relaxed.micro) == (3, 1, 0)
    # strict: uno fp; dos B-LOC vs I-LOC => fn 1 + fp 1; tres, cuatro tp => tp 2, fp 2, fn 1
    assert prf(r.token_strict.micro) == (2, 2, 1)
    assert {k: prf(v) for k, v in r.token_strict.per_label.items()} == {"LOC": (2, 2, 1)}
    # entities still see both gold spans: NAME missed (fn), LOC "dos tres cuatro" != whole text
    assert prf(r.entity_exact.micro) == (0, 1, 2)
    assert r.confusion["NAME", "LOC"] == 1 and r.confusion["LOC", "LOC"] == 1


def test_duplicate_spans_are_a_multiset() -> None:
    text = "uno dos tres"
    s = sp(text, "dos", "X")
    r = evaluate([Document("m", text, (s, s))], [Document("m", text, (s,))])
    assert prf(r.entity_exact.micro) == (1, 0, 1)
    assert prf(r.entity_span.micro) == (1, 0, 1)


def test_empty_conventions() -> None:
    text = "nada que ver"
    empty = Document("e", text)
    r = evaluate([empty], [empty])
    for m in r.measures.values():
        assert m.precision == m.recall == m.f1 == 1.0
    assert r.confusion.labels == ("O",)
    # gold but no prediction: P = R = F = 0
    gold = Document("e", text, (sp(text, "ver", "X"),))
    r = evaluate([gold], [empty])
    assert (r.entity_exact.precision, r.entity_exact.recall, r.entity_exact.f1) == (0.0, 0.0, 0.0)
    # prediction but no gold: P = R = F = 0
    r = evaluate([empty], [gold])
    assert (r.entity_exact.precision, r.entity_exact.recall, r.entity_exact.f1) == (0.0, 0.0, 0.0)
    assert r.leakage.gold_chars == 0 and r.leakage.leak_rate == 0.0


def test_prf_conventions() -> None:
    assert (PRF(0, 0, 0).precision, PRF(0, 0, 0).recall, PRF(0, 0, 0).f1) == (1.0, 1.0, 1.0)
    assert (PRF(0, 0, 3).precision, PRF(0, 0, 3).recall, PRF(0, 0, 3).f1) == (0.0, 0.0, 0.0)
    assert (PRF(0, 2, 0).precision, PRF(0, 2, 0).recall, PRF(0, 2, 0).f1) == (0.0, 0.0, 0.0)
    p = PRF(3, 1, 2)
    assert (p.precision, p.recall) == (0.75, 0.6) and p.f1 == pytest.approx(2 / 3)
    # overlap-style: 2 gold found out of 4; 3 of 3 predictions correct
    q = PRF(2, 0, 2, tp_pred=3)
    assert (q.precision, q.recall) == (1.0, 0.5)
    assert (PRF(1, 1, 1) + PRF(2, 0, 0)) == PRF(3, 1, 1)
    assert (PRF(1, 1, 1, 2) + PRF(2, 0, 0)).tp_precision == 4


# --- label mapping --------------------------------------------------------------------------------------------


def test_canonical_label_map() -> None:
    text = "Ana Ruiz 45 años Lugo"
    gold = Document("c", text, (sp(text, "Ana Ruiz", "NOMBRE_SUJETO_ASISTENCIA"),
                                sp(text, "45 años", "EDAD_SUJETO_ASISTENCIA"), sp(text, "Lugo", "TERRITORIO")))
    pred = Document("c", text, (sp(text, "Ana Ruiz", "NAME.PATIENT"), sp(text, "45 años", "AGE"),
                                sp(text, "Lugo", "LOCATION")))
    with pytest.raises(EvaluationConfigError, match="--scheme meddocan"):  # two schemes: refused, with the fix
        evaluate([gold], [pred])
    native = evaluate([gold], [pred], check_labels=False)
    assert prf(native.entity_exact.micro) == (0, 3, 3)
    canon = evaluate([gold], [pred], scheme="meddocan", label_map="canonical")
    # NAME.PATIENT and AGE match; TERRITORIO -> LOCATION.CITY != LOCATION
    assert prf(canon.entity_exact.micro) == (2, 1, 1)
    assert set(canon.entity_exact.per_label) == {"AGE", "LOCATION", "LOCATION.CITY", "NAME.PATIENT"}
    typed = evaluate([gold], [pred], scheme="meddocan", label_map="type")
    assert prf(typed.entity_exact.micro) == (3, 0, 0)
    assert typed.scheme == "meddocan" and typed.label_map == "type"


def test_label_map_errors() -> None:
    text = "Ana vino"
    gold = Document("c", text, (sp(text, "Ana", "NOMBRE_SUJETO_ASISTENCIA"),))
    with pytest.raises(ClinanonError):  # the CLI turns ClinanonErrors into clean messages
        evaluate([gold], [gold], label_map="canonical")
    with pytest.raises(ValueError, match="needs a label scheme"):
        evaluate([gold], [gold], label_map="canonical")
    with pytest.raises(ValueError, match="label_map"):
        evaluate([gold], [gold], label_map="bogus")
    bad = Document("c", text, (sp(text, "Ana", "NOT_A_LABEL"),))
    with pytest.raises(ValueError, match="NOT_A_LABEL") as e:
        evaluate([gold], [bad], scheme="meddocan", label_map="canonical")
    assert "'c'" in str(e.value)


# --- input errors -----------------------------------------------------------------------------------------------


def test_prediction_without_gold_is_an_error() -> None:
    with pytest.raises(ValueError, match="'d2'"):
        evaluate([GOLD1], [PRED1, PRED2])
    with pytest.raises(ClinanonError):
        evaluate([GOLD1], [PRED1, PRED2])


def test_different_texts_name_the_offset_not_the_text() -> None:
    other = Document("d1", T1.replace("Madrid", "Madrix"), PRED1.spans)
    with pytest.raises(ValueError) as e:
        evaluate([GOLD1], [other])
    msg = str(e.value)
    assert "'d1'" in msg and f"offset {T1.index('Madrid') + 5}" in msg
    assert "Madri" not in msg and "Juan" not in msg
    shorter = Document("d1", T1[:10])
    with pytest.raises(ValueError, match="offset 10"):
        evaluate([GOLD1], [shorter])


def test_duplicate_ids_are_errors() -> None:
    with pytest.raises(ValueError, match="duplicate"):
        evaluate([GOLD1, GOLD1], [PRED1])
    with pytest.raises(ValueError, match="duplicate"):
        evaluate([GOLD1], [PRED1, PRED1])


def test_each_text_is_tokenized_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def counting(text: str, lang: str = "es"):  # type: ignore[no-untyped-def]
        calls.append(len(text))
        return tokenize(text, lang)

    monkeypatch.setattr(metrics, "tokenize", counting)
    evaluate([GOLD1, GOLD2], [PRED1, PRED2])
    assert sorted(calls) == sorted([len(T1), len(T2)])


# --- output ------------------------------------------------------------------------------------------------------


def test_to_dict_is_json_safe_and_stable(r1: EvaluationReport) -> None:
    d = json.loads(json.dumps(r1.to_dict()))
    assert list(d) == ["lang", "label_map", "scheme", "documents", "gold_spans", "pred_spans", "tokens",
                       "missing_predictions", "measures", "confusion", "leakage"]
    assert list(d["measures"]) == list(MEASURES)
    for m in d["measures"].values():
        assert set(m["micro"]) == {"tp", "tp_pred", "fp", "fn", "precision", "recall", "f1"}
    assert d["measures"]["token_binary"]["micro"]["f1"] == pytest.approx(2 / 3)  # full precision
    assert d["measures"]["token_binary"]["macro"] is None
    assert d["measures"]["entity_exact"]["per_label"]["NAME"]["fp"] == 3
    assert d["confusion"]["labels"] == ["DATE", "LOC", "NAME", "O"]
    assert d["leakage"]["leak_chars"] == 11 and d["leakage"]["per_label"]["NAME"]["fully_leaked_spans"] == 1
    assert "Juan" not in json.dumps(d) and "Juan" not in repr(r1)


def test_summary_rows(r1: EvaluationReport) -> None:
    rows = r1.summary_rows()
    assert [(r.measure, r.average) for r in rows][:5] == [
        ("char_binary", "micro"), ("token_binary", "micro"), ("token_binary_alnum", "micro"),
        ("token_relaxed", "micro"), ("token_relaxed", "macro")]
    tb = rows[1]
    assert (tb.tp, tb.fp, tb.fn, tb.precision, tb.recall) == (3, 1, 2, 0.75, 0.6)
    macro = rows[4]
    assert macro.tp is None and macro.f1 == pytest.approx(4 / 9)


def test_render_table(r1: EvaluationReport) -> None:
    buf = io.StringIO()
    render_table(r1, Console(file=buf, width=140, color_system=None), per_label=True, confusion=True)
    out = buf.getvalue()
    assert "entity_overlap_unlabeled" in out
    assert "0.6667" in out and "0.66666" not in out  # rounded to 4 decimals
    assert "0.4444" in out  # token_relaxed macro
    assert "Confusion" in out and "LOC" in out
    assert "Juan" not in out


def test_render_table_reports_missing_predictions() -> None:
    buf = io.StringIO()
    render_table(evaluate([GOLD1, GOLD2], [PRED1]), Console(file=buf, width=140, color_system=None))
    assert "1 gold document(s) had no prediction" in buf.getvalue()


# --- interval helpers ------------------------------------------------------------------------------------------


def test_interval_helpers() -> None:
    assert merge([(5, 7), (0, 3), (2, 4), (4, 5), (9, 10)]) == [(0, 7), (9, 10)]
    assert intersect([(0, 5), (8, 12)], [(3, 9), (11, 20)]) == [(3, 5), (8, 9), (11, 12)]
    a = [Span(0, 10, "A"), Span(20, 25, "A")]
    b = [Span(0, 30, "B"), Span(2, 3, "B"), Span(10, 20, "B"), Span(24, 26, "B")]
    assert overlap_pairs(a, b) == [[0, 1], [0, 3]]


# --- properties --------------------------------------------------------------------------------------------------

WORDS = ["ana", "vive", "en", "lugo", "desde", "el", "dia", "uno", "de", "mayo"]
LABELS = ["NAME", "LOC", "DATE"]


@st.composite
def doc_pair(draw: st.DrawFn) -> tuple[Document, Document]:
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=15))
    text = " ".join(words)

    def spans() -> tuple[Span, ...]:
        out = []
        for _ in range(draw(st.integers(0, 5))):
            s = draw(st.integers(0, len(text) - 1))
            e = draw(st.integers(s + 1, len(text)))
            out.append(Span(s, e, draw(st.sampled_from(LABELS))))
        return tuple(out)

    return Document("p", text, spans()), Document("p", text, spans())


@settings(max_examples=150, deadline=None)
@given(doc_pair())
def test_properties(pair: tuple[Document, Document]) -> None:
    gold, pred = pair
    r = evaluate([gold], [pred], check_labels=False)  # arbitrary labels: the scheme check is tested elsewhere
    for m in r.measures.values():
        for x in (m.precision, m.recall, m.f1):
            assert 0.0 <= x <= 1.0
        for lab in m.per_label.values():
            assert 0.0 <= lab.f1 <= 1.0
    assert r.leak_chars == r.char_binary.micro.fn
    assert r.fully_leaked_spans <= r.leaked_spans <= r.gold_spans
    swapped = evaluate([pred], [gold], check_labels=False)
    for name in ("entity_exact", "entity_span", "entity_overlap", "entity_overlap_unlabeled", "char_binary",
                 "token_binary", "token_relaxed", "token_strict"):
        m, s = r.measures[name], swapped.measures[name]
        assert (m.precision, m.recall) == pytest.approx((s.recall, s.precision)), name
        assert m.f1 == pytest.approx(s.f1), name
    same = evaluate([gold], [gold])
    for m in same.measures.values():
        assert m.precision == m.recall == m.f1 == 1.0


def _brute_force(gold: Document, pred: Document) -> dict[str, object]:
    """Character-by-character and pair-by-pair reference values for one document."""
    text = gold.text
    g_cov = [any(s.start <= i < s.end for s in gold.spans) for i in range(len(text))]
    p_cov = [any(s.start <= i < s.end for s in pred.spans) for i in range(len(text))]
    ns = [not c.isspace() for c in text]
    tp = sum(g and p and n for g, p, n in zip(g_cov, p_cov, ns, strict=True))
    fn = sum(g and not p and n for g, p, n in zip(g_cov, p_cov, ns, strict=True))
    fp = sum(p and not g and n for g, p, n in zip(g_cov, p_cov, ns, strict=True))
    leaked = fully = 0
    for s in gold.spans:
        idx = [i for i in range(s.start, s.end) if ns[i]]
        unc = [i for i in idx if not p_cov[i]]
        leaked += bool(unc)
        fully += bool(idx) and len(unc) == len(idx)
    toks = tokenize(text, "es")
    g_tok = [any(s.start < t.end and t.start < s.end for s in gold.spans) for t in toks]
    p_tok = [any(s.start < t.end and t.start < s.end for s in pred.spans) for t in toks]
    found = sum(any(g.overlaps(p) and g.label == p.label for p in pred.spans) for g in gold.spans)
    correct = sum(any(g.overlaps(p) and g.label == p.label for g in gold.spans) for p in pred.spans)
    return {
        "char": (tp, fp, fn),
        "leak": (fn, leaked, fully),
        "token": (sum(a and b for a, b in zip(g_tok, p_tok, strict=True)),
                  sum(b and not a for a, b in zip(g_tok, p_tok, strict=True)),
                  sum(a and not b for a, b in zip(g_tok, p_tok, strict=True))),
        "overlap": (found, correct, len(pred.spans) - correct, len(gold.spans) - found),
    }


@settings(max_examples=150, deadline=None)
@given(doc_pair())
def test_matches_brute_force(pair: tuple[Document, Document]) -> None:
    gold, pred = pair
    r = evaluate([gold], [pred], check_labels=False)
    ref = _brute_force(gold, pred)
    assert prf(r.char_binary.micro) == ref["char"]
    assert (r.leak_chars, r.leaked_spans, r.fully_leaked_spans) == ref["leak"]
    assert prf(r.token_binary.micro) == ref["token"]
    ov = r.entity_overlap.micro
    assert (ov.tp, ov.tp_precision, ov.fp, ov.fn) == ref["overlap"]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab \n", max_size=40), st.data())
def test_coverage_dense_equals_sparse(text: str, data: st.DataObject) -> None:
    from clinanon.evaluate.intervals import CharCounter, Coverage

    n = len(text)
    ivs = data.draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, n)).map(sorted).filter(lambda t: t[0] < t[1]),
                             max_size=6))
    union = merge(tuple(t) for t in ivs)
    start = data.draw(st.integers(0, n))
    end = data.draw(st.integers(start, n))
    expected = sum(1 for i in range(start, end) if not text[i].isspace() and any(s <= i < e for s, e in union))
    for dense in (False, True):
        cov = Coverage(union, CharCounter(text, dense=dense))
        assert cov.covered(start, end) == expected, dense


def test_token_binary_alnum_counts_no_punctuation() -> None:
    """The i2b2 2014 script's tokens (runs of letters and digits): a prediction over "K. Abrams" where the gold
    has "K" and "Abrams" apart costs a false-positive token in token_binary (the full stop), none here; a missed
    "3/14" is two tokens here ("3", "14"), three in token_binary; accented letters stay inside their word."""
    text = "Seen by K. Abrams on 3/14 with García."
    gold = Document("d", text, (Span(8, 9, "NAME"), Span(11, 17, "NAME"), Span(21, 25, "DATE"),
                                Span(31, 37, "NAME")))
    pred = Document("d", text, (Span(8, 17, "NAME"), Span(31, 37, "NAME")))
    r = evaluate([gold], [pred], lang="en")
    assert prf(r.token_binary_alnum.micro) == (3, 0, 2)
    assert prf(r.token_binary.micro) == (3, 1, 3)
