"""Recall first in the ``select`` step: what the rules found of the protected categories is never dropped
(hand-built member spans, no models)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest

from clinanon.config import Config
from clinanon.document import Document, Span
from clinanon.ensemble import Ensemble, Protection, StrategyTable
from clinanon.errors import ConfigError

TEXT = "Acude D. Manuel García López con su hija, vive en la calle Mayor 5 de Madrid desde 2019. " + "x" * 40


class Fixed:
    def __init__(self, name: str, spans: Sequence[Span]) -> None:
        self.name = name
        self.spans = list(spans)

    def detect(self, doc: Document) -> list[Span]:
        return list(self.spans)


def S(start: int, end: int, label: str, source: str = "t", score: float = 0.9) -> Span:
    return Span(start, end, label, source, score)


def at(sub: str) -> tuple[int, int]:
    i = TEXT.index(sub)
    return i, i + len(sub)


RECALL_FIRST = Protection()


def ens(crf: list[Span], rules: list[Span], *, protect: Protection | None = RECALL_FIRST,
        **kw: object) -> Ensemble:
    return Ensemble({"crf": Fixed("crf", crf), "rules": Fixed("rules", rules)}, scheme="meddocan",  # type: ignore
                    tiebreak="crf", propagate_names=False, repair=False, protect=protect, **kw)


def keys(spans: Sequence[Span]) -> list[tuple[str, str]]:
    return [(TEXT[s.start:s.end], s.label) for s in spans]


DOC = Document("d", TEXT)
NAME = at("Manuel García López")
PATIENT = "NOMBRE_SUJETO_ASISTENCIA"
# the old strategy table's shape: a patient name needs the CRF's vote, staff names only the rules
F1_TABLE = StrategyTable({PATIENT: "vote", "NOMBRE_PERSONAL_SANITARIO": "rules"}, "union")


def test_a_name_only_the_rules_found_survives_a_vote_table() -> None:
    rules = [S(*NAME, "NAME.PATIENT", "names:x", 0.8)]
    assert keys(ens([], rules, protect=None, table=F1_TABLE).detect(DOC)) == []  # the old default drops it
    assert keys(ens([], rules, table=F1_TABLE).detect(DOC)) == [("Manuel García López", PATIENT)]


def test_a_name_labelled_differently_by_the_two_members_is_kept() -> None:
    crf = [S(*NAME, "NOMBRE_PERSONAL_SANITARIO", "crf", 0.95)]
    rules = [S(*NAME, "NAME", "resolve:merge", 0.8)]  # the rules' generic name: a patient in MEDDOCAN's labels
    # the old table: the staff label only from the rules, the patient label only with the CRF's vote
    assert keys(ens(crf, rules, protect=None, table=F1_TABLE).detect(DOC)) == []
    assert keys(ens(crf, rules, table=F1_TABLE).detect(DOC)) == [("Manuel García López", PATIENT)]
    # recall first (union everywhere): both labels are selected, the CRF's wins by rank
    assert keys(ens(crf, rules).detect(DOC)) == [("Manuel García López", "NOMBRE_PERSONAL_SANITARIO")]


def test_disagreeing_extents_give_the_union_with_the_models_name_label() -> None:
    crf = [S(*at("Manuel García"), "NOMBRE_PERSONAL_SANITARIO", "crf", 0.95)]
    rules = [S(*at("D. Manuel García López"), "NAME.PATIENT", "names:x", 0.7)]
    assert keys(ens(crf, rules, protect=None).detect(DOC)) == [("Manuel García", "NOMBRE_PERSONAL_SANITARIO")]
    out = ens(crf, rules).detect(DOC)
    assert keys(out) == [("D. Manuel García López", "NOMBRE_PERSONAL_SANITARIO")]
    assert out[0].source == "select:protect" and out[0].score == 0.95


def test_a_low_scoring_span_of_another_category_neither_covers_nor_displaces_a_name() -> None:
    # the CRF's unsure "street" over a name: the pipeline's score filter would drop it, and the name with it
    crf = [S(*at("Manuel García López"), "CALLE", "crf", 0.3)]
    rules = [S(*at("D. Manuel García López"), "NAME.PATIENT", "names:x", 0.75)]
    out = ens(crf, rules).detect(DOC)
    assert keys(out) == [("D. Manuel García López", PATIENT)] and out[0].score == 0.75


def test_a_low_scoring_span_does_not_displace_an_unprotected_rule_span() -> None:
    crf = [S(*at("de Madrid"), "TERRITORIO", "crf", 0.35)]
    rules = [S(*at("Madrid"), "LOCATION.CITY", "gazetteer:city", 0.75)]
    assert keys(ens(crf, rules).detect(DOC)) == [("Madrid", "TERRITORIO")]
    assert keys(ens(crf, rules, protect=None).detect(DOC)) == [("de Madrid", "TERRITORIO")]  # before


def test_a_name_covered_by_a_confident_span_is_left_as_selected() -> None:
    crf = [S(*at("Manuel García López"), "CALLE", "crf", 0.9)]
    rules = [S(*at("García López"), "NAME", "names:x", 0.8)]
    assert keys(ens(crf, rules).detect(DOC)) == [("Manuel García López", "CALLE")]


def test_blanks_between_selected_spans_count_as_covered() -> None:
    crf = [S(*at("Manuel"), PATIENT, "crf", 0.9), S(*at("García López"), PATIENT, "crf", 0.9)]
    rules = [S(*NAME, "NAME", "names:x", 0.8)]
    assert keys(ens(crf, rules).detect(DOC)) == [("Manuel", PATIENT), ("García López", PATIENT)]


def test_only_protected_categories_and_scores_are_protected() -> None:
    rules = [S(*at("2019"), "DATE", "dates:x", 0.8), S(*at("hija"), "PROFESSION", "p", 0.9),
             S(*at("calle Mayor 5"), "LOCATION.STREET", "street", 0.9), S(*NAME, "NAME", "g", 0.45)]
    table = StrategyTable({}, "crf")  # every label: the CRF's only
    out = ens([], rules, table=table, min_score={"rules": 0.4}).detect(DOC)
    assert keys(out) == [("2019", "FECHAS")]
    strict = Protection(categories=("NAME",), min_score=0.4)
    assert keys(ens([], rules, table=table, min_score={"rules": 0.4}, protect=strict).detect(DOC)) == [
        ("Manuel García López", PATIENT)]


def test_unions_that_meet_become_one_span() -> None:
    crf = [S(*at("García López con"), "CALLE", "crf", 0.3)]
    rules = [S(*at("D. Manuel García"), "NAME", "g", 0.7), S(*at("López con su hija"), "NAME", "g", 0.6)]
    out = ens(crf, rules, table=StrategyTable({}, "crf")).detect(DOC)
    assert keys(out) == [("D. Manuel García López con su hija", PATIENT)]


def test_protection_keeps_the_output_independent_of_the_order_of_member_spans() -> None:
    crf = [S(*at("Manuel García"), "NOMBRE_PERSONAL_SANITARIO", "crf", 0.95), S(*at("2019"), "FECHAS", "crf"),
           S(*at("Madrid"), "TERRITORIO", "crf", 0.2)]
    rules = [S(*at("D. Manuel García López"), "NAME", "g", 0.7), S(*at("de Madrid desde 2019"), "DATE", "d", 0.6),
             S(*at("hija"), "NAME", "g", 0.7)]
    want = keys(ens(crf, rules, table=F1_TABLE).detect(DOC))
    assert ("hija", PATIENT) in want
    for c, r in itertools.product(itertools.permutations(crf), itertools.permutations(rules)):
        assert keys(ens(list(c), list(r), table=F1_TABLE).detect(DOC)) == want


def test_a_protection_without_its_member_protects_nothing() -> None:
    e = Ensemble({"a": Fixed("a", [S(0, 5, "FECHAS", score=0.9)])}, scheme="meddocan",  # type: ignore[dict-item]
                 propagate_names=False, repair=False, protect=Protection())
    assert keys(e.detect(DOC)) == [(TEXT[0:5], "FECHAS")]


def test_the_profile_is_configured_and_checked() -> None:
    assert Config().detectors.ensemble.profile == "recall-first"
    cfg = Config.from_dict({"detectors": {"ensemble": {"profile": "meddocan-f1"}}})
    assert cfg.detectors.ensemble.profile == "meddocan-f1"
    with pytest.raises(ConfigError, match="profile"):
        Config.from_dict({"detectors": {"ensemble": {"profile": "f1"}}})
    with pytest.raises(ConfigError, match="protect"):
        Config.from_dict({"detectors": {"ensemble": {"protect": ["NAMES"]}}})


def test_the_ensemble_detector_follows_the_profile() -> None:
    from clinanon.registry import get_detector_factory

    def build(profile: str) -> Ensemble:
        cfg = Config.from_dict({"detectors": {"use": ["ensemble"], "ensemble": {
            "members": ["gold", "rules"], "profile": profile, "protect": ["NAME", "DATE"]}}})
        det = get_detector_factory("ensemble")(cfg)
        assert isinstance(det, Ensemble)
        return det

    assert build("recall-first").protect == Protection(categories=("NAME", "DATE"))
    assert build("meddocan-f1").protect is None


def test_a_place_the_selection_kept_in_part_gets_the_rules_extent() -> None:
    """Recall first for places too, without adding any: where the model's selected place covers part of the rules'
    place, the union of the two extents is kept ("MILFORD MILL" was cut to the model's "MILL"); a place only the
    rules found stays out when the strategies drop it."""
    crf = [S(*at("Mayor 5"), "CALLE", "crf", 0.95)]
    rules = [S(*at("calle Mayor 5"), "LOCATION.STREET", "street:x", 0.8)]
    assert keys(ens(crf, rules, protect=None).detect(DOC)) == [("Mayor 5", "CALLE")]  # before
    out = ens(crf, rules).detect(DOC)
    assert keys(out) == [("calle Mayor 5", "CALLE")] and out[0].source == "select:protect"
    only_rules = ens([], [S(*at("Madrid"), "LOCATION.CITY", "gazetteer:city", 0.75)],
                     table=StrategyTable({"TERRITORIO": "crf"}, "union"))
    assert keys(only_rules.detect(DOC)) == []


def test_a_protected_name_outscoring_a_models_place_over_it_gives_its_label() -> None:
    """A name the rules found ("D. Manuel García López": honorific, first name, surnames) that a model, unsure of
    itself, calls a street over the same words keeps the name's label; a confident model, or a model span that
    reaches beyond the name (a street named after a person), keeps its own."""
    rules = [S(*NAME, "NAME", "resolve:merge", 0.8)]
    unsure = ens([S(*NAME, "CALLE", "crf", 0.59)], rules).detect(DOC)
    assert keys(unsure) == [("Manuel García López", PATIENT)]
    assert keys(ens([S(*NAME, "CALLE", "crf", 0.59)], rules, protect=None).detect(DOC)) == [
        ("Manuel García López", "CALLE")]  # the strategies alone: the model's label
    # inside the name: the name's extent and label
    part = ens([S(*at("García López"), "TERRITORIO", "crf", 0.6)], rules).detect(DOC)
    assert keys(part) == [("Manuel García López", PATIENT)]
    # a confident model keeps its label
    sure = ens([S(*NAME, "CALLE", "crf", 0.95)], rules).detect(DOC)
    assert keys(sure) == [("Manuel García López", "CALLE")]
    # a model span beyond the name: the street, whatever the scores
    wide = ens([S(*at("D. Manuel García López"), "CALLE", "crf", 0.55)], rules).detect(DOC)
    assert keys(wide) == [("D. Manuel García López", "CALLE")]
    # another name label of the model is its own type: the model's choice between patient and clinician stays
    staff = ens([S(*NAME, "NOMBRE_PERSONAL_SANITARIO", "crf", 0.6)], rules).detect(DOC)
    assert keys(staff) == [("Manuel García López", "NOMBRE_PERSONAL_SANITARIO")]
