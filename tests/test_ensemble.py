"""Ensemble strategies on hand-built span sets (no models, no rules: fake members return fixed spans)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest

from clinanon.analysis import Analysis
from clinanon.document import Document, Span
from clinanon.ensemble import Ensemble, StrategyTable, choose_strategies, label_f1
from clinanon.errors import ConfigError

TEXT = "x" * 100


class Fixed:
    """A member returning the same spans for every document."""

    def __init__(self, name: str, spans: Sequence[Span]) -> None:
        self.name = name
        self.spans = list(spans)

    def detect(self, doc: Document) -> list[Span]:
        return list(self.spans)


class WantsRules(Fixed):
    def __init__(self, name: str, spans: Sequence[Span]) -> None:
        super().__init__(name, spans)
        self.got: list[Span] | None = None

    def detect(self, analysis: Analysis) -> list[Span]:  # type: ignore[override]
        rule_spans = analysis.candidates.get("rules")  # what the rules member left in the note's analysis
        self.got = None if rule_spans is None else list(rule_spans)
        return list(self.spans)


def S(start: int, end: int, label: str, source: str = "t", score: float = 0.9) -> Span:
    return Span(start, end, label, source, score)


def ens(members: dict[str, list[Span]], **kw: object) -> Ensemble:
    kw.setdefault("scheme", "meddocan")
    kw.setdefault("propagate_names", False)
    return Ensemble({m: Fixed(m, s) for m, s in members.items()}, **kw)  # type: ignore[arg-type]


def keys(spans: Sequence[Span]) -> list[tuple[int, int, str]]:
    return [(s.start, s.end, s.label) for s in spans]


DOC = Document("d1", TEXT)


def test_union_keeps_every_members_spans() -> None:
    e = ens({"a": [S(0, 5, "FECHAS")], "b": [S(10, 15, "FECHAS")]}, default="union")
    assert keys(e.detect(DOC)) == [(0, 5, "FECHAS"), (10, 15, "FECHAS")]


def test_vote_three_members_needs_two() -> None:
    members = {"a": [S(0, 5, "FECHAS"), S(20, 25, "PAIS")],
               "b": [S(0, 5, "FECHAS")],
               "c": [S(40, 45, "PAIS")]}
    assert keys(ens(members, default="vote").detect(DOC)) == [(0, 5, "FECHAS")]


def test_vote_tie_goes_to_tiebreak_member() -> None:
    members = {"a": [S(0, 5, "FECHAS")], "b": [S(10, 15, "FECHAS")]}
    assert keys(ens(members, default="vote", tiebreak="b").detect(DOC)) == [(10, 15, "FECHAS")]
    # tiebreak defaults to the first member
    assert keys(ens(members, default="vote").detect(DOC)) == [(0, 5, "FECHAS")]


def test_intersection_needs_every_member() -> None:
    members = {"a": [S(0, 5, "FECHAS"), S(10, 15, "FECHAS")], "b": [S(0, 5, "FECHAS")], "c": [S(0, 5, "FECHAS")]}
    assert keys(ens(members, default="intersection").detect(DOC)) == [(0, 5, "FECHAS")]


def test_member_wins_for_one_label_default_for_others() -> None:
    members = {"rules": [S(0, 8, "CALLE"), S(30, 35, "FECHAS")],
               "crf": [S(0, 10, "CALLE"), S(40, 45, "FECHAS")]}
    e = ens(members, strategies={"CALLE": "crf"}, default="union")
    assert keys(e.detect(DOC)) == [(0, 10, "CALLE"), (30, 35, "FECHAS"), (40, 45, "FECHAS")]
    e = ens(members, strategies={"CALLE": "rules"}, default="crf")
    assert keys(e.detect(DOC)) == [(0, 8, "CALLE"), (40, 45, "FECHAS")]


def test_overlaps_votes_then_member_rank_then_length() -> None:
    # two members agree on the short span: more votes beat the longer single-member span
    members = {"a": [S(0, 5, "CALLE")], "b": [S(0, 5, "CALLE")], "c": [S(0, 9, "CALLE")]}
    assert keys(ens(members).detect(DOC)) == [(0, 5, "CALLE")]
    # one vote each: the member ranked first wins, whatever the length
    members = {"a": [S(0, 5, "CALLE")], "b": [S(0, 9, "TERRITORIO")]}
    assert keys(ens(members).detect(DOC)) == [(0, 5, "CALLE")]
    assert keys(ens(members, priority=["b", "a"]).detect(DOC)) == [(0, 9, "TERRITORIO")]


def test_output_is_independent_of_the_order_of_member_spans() -> None:
    spans_a = [S(0, 5, "CALLE"), S(3, 12, "TERRITORIO"), S(20, 30, "FECHAS"), S(25, 28, "FECHAS", score=0.99)]
    spans_b = [S(3, 12, "TERRITORIO"), S(21, 30, "FECHAS"), S(50, 52, "EDAD_SUJETO_ASISTENCIA")]
    expected = None
    for pa in itertools.permutations(spans_a):
        got = keys(ens({"a": list(pa), "b": list(reversed(spans_b))}).detect(DOC))
        expected = expected or got
        assert got == expected
    assert expected == [(3, 12, "TERRITORIO"), (20, 30, "FECHAS"), (50, 52, "EDAD_SUJETO_ASISTENCIA")]


def test_canonical_labels_are_mapped_to_the_scheme_before_voting() -> None:
    members = {"rules": [S(0, 5, "LOCATION.STREET")], "crf": [S(0, 5, "CALLE")]}
    e = ens(members, default="intersection")
    assert keys(e.detect(DOC)) == [(0, 5, "CALLE")]


def test_rules_member_below_min_score_is_dropped_and_its_spans_feed_rule_spans_members() -> None:
    rules = Fixed("rules", [S(0, 5, "DATE", score=0.3), S(10, 15, "DATE", score=0.8)])
    crf = WantsRules("crf", [S(20, 25, "FECHAS")])
    e = Ensemble({"crf": crf, "rules": rules}, scheme="meddocan", propagate_names=False)
    assert keys(e.detect(DOC)) == [(10, 15, "FECHAS"), (20, 25, "FECHAS")]
    assert crf.got is not None and len(crf.got) == 2  # the raw rule candidates, unfiltered


def test_names_are_propagated_after_combining() -> None:
    doc = Document("d2", "Paciente Pérez ingresa. Pérez refiere dolor.")
    e = Ensemble({"a": Fixed("a", [S(9, 14, "NOMBRE_SUJETO_ASISTENCIA")])}, scheme="meddocan", lang="es")
    assert keys(e.detect(doc)) == [(9, 14, "NOMBRE_SUJETO_ASISTENCIA"), (24, 29, "NOMBRE_SUJETO_ASISTENCIA")]


def test_bad_strategy_and_tiebreak_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="neither"):
        ens({"a": []}, strategies={"CALLE": "nobody"})
    with pytest.raises(ConfigError, match="tiebreak"):
        ens({"a": []}, tiebreak="zzz")
    with pytest.raises(ConfigError):
        Ensemble({})


def test_label_f1_counts_exact_matches_of_one_label() -> None:
    gold = [S(0, 5, "A"), S(10, 15, "A"), S(20, 25, "B")]
    pred = [S(0, 5, "A"), S(10, 14, "A"), S(20, 25, "A")]
    tp, fp, fn, f1 = label_f1(gold, pred, "A")
    assert (tp, fp, fn) == (1, 2, 1)
    assert f1 == pytest.approx(2 / 5)


def test_choose_strategies_picks_the_best_member_per_label() -> None:
    gold = [Document("g1", TEXT, (S(0, 5, "CALLE"), S(10, 15, "FECHAS"), S(30, 35, "PAIS"))),
            Document("g2", TEXT, (S(0, 7, "CALLE"), S(40, 45, "FECHAS")))]
    # a: right on CALLE, wrong boundaries on FECHAS; b: the reverse; both find PAIS
    a = [[S(0, 5, "CALLE"), S(10, 16, "FECHAS"), S(30, 35, "PAIS")], [S(0, 7, "CALLE"), S(41, 45, "FECHAS")]]
    b = [[S(0, 4, "CALLE"), S(10, 15, "FECHAS"), S(30, 35, "PAIS")], [S(1, 7, "CALLE"), S(40, 45, "FECHAS")]]
    table = choose_strategies(gold, {"a": a, "b": b}, scheme="meddocan")
    # union also gets CALLE right: overlapping spans with one vote each go to the first-ranked member, a
    assert table.strategies["CALLE"] == "union"
    assert table.scores["CALLE"] == {"union": 1.0, "vote": 1.0, "intersection": 0.0, "a": 1.0, "b": 0.0}
    assert table.strategies["FECHAS"] == "b"
    assert table.strategies["PAIS"] == "union"  # every strategy ties at 1.0: the first candidate wins
    assert table.scores["FECHAS"]["b"] == 1.0 and table.scores["FECHAS"]["a"] == 0.0
    e = Ensemble({"a": Fixed("a", []), "b": Fixed("b", [])}, scheme="meddocan", table=table, propagate_names=False)
    got = [keys(e.combine(g, {"a": pa, "b": pb})) for g, pa, pb in zip(gold, a, b, strict=True)]
    assert got == [keys(g.spans) for g in gold]


def test_choose_strategies_beta_2_prefers_recall() -> None:
    # a: 2 of 4 gold spans, no false positive; b: all 4 gold spans and 3 false positives.
    # F1: a 0.667, b 0.727, intersection 0.667; F2 weighs recall: a 0.556, b 0.870 -> b (or union, its superset)
    gold = [Document("g", TEXT, (S(0, 5, "CALLE"), S(10, 15, "CALLE"), S(20, 25, "CALLE"), S(30, 35, "CALLE")))]
    a = [[S(0, 5, "CALLE"), S(10, 15, "CALLE")]]
    b = [[S(0, 5, "CALLE"), S(10, 15, "CALLE"), S(20, 25, "CALLE"), S(30, 35, "CALLE"),
          S(50, 55, "CALLE"), S(60, 65, "CALLE"), S(70, 75, "CALLE")]]
    f1 = choose_strategies(gold, {"a": a, "b": b}, scheme="meddocan", candidates=["intersection", "a"])
    f2 = choose_strategies(gold, {"a": a, "b": b}, scheme="meddocan", candidates=["intersection", "a", "b"],
                           beta=2.0)
    assert f1.strategies["CALLE"] == "intersection"  # ties with a at 0.667: the earlier candidate
    assert f1.scores["CALLE"]["a"] == pytest.approx(0.6667)
    assert f2.strategies["CALLE"] == "b"
    assert f2.scores["CALLE"]["b"] == pytest.approx(round(5 * 4 / (5 * 4 + 3), 4))
    assert f2.scores["CALLE"]["a"] == pytest.approx(round(5 * 2 / (5 * 2 + 4 * 2), 4))


def test_strategy_table_round_trips(tmp_path) -> None:  # type: ignore[no-untyped-def]
    t = StrategyTable({"CALLE": "crf"}, "vote", {"CALLE": {"crf": 0.9}})
    t.save(tmp_path / "s.json")
    assert StrategyTable.load(tmp_path / "s.json") == t
    assert t.strategy("CALLE") == "crf" and t.strategy("PAIS") == "vote"
