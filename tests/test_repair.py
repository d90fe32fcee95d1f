"""Repairs of trained models' spans (clinanon.detect.repair) and their use in the ensemble."""

from __future__ import annotations

from clinanon.detect.ensemble import Ensemble
from clinanon.detect.repair import repair_spans
from clinanon.document import Document, Span
from clinanon.taxonomy import get_scheme

MEDDOCAN = get_scheme("meddocan")


def _cat(label: str) -> str:
    return MEDDOCAN.category(label)


def _at(text: str, word: str, label: str, nth: int = 0) -> Span:
    start = -1
    for _ in range(nth + 1):
        start = text.index(word, start + 1)
    return Span(start, start + len(word), label, "crf", 0.9)


def _texts(text: str, spans: list[Span]) -> list[tuple[str, str]]:
    return [(text[s.start:s.end], s.label) for s in spans]


def test_kinship_word_of_a_profession_or_history_is_dropped() -> None:
    text = "Su médico de familia la remitió. Antecedentes personales y familiares sin interés. Vive con su familia."
    spans = [_at(text, "familia", "FAMILIARES_SUJETO_ASISTENCIA"),
             _at(text, "familiares", "FAMILIARES_SUJETO_ASISTENCIA"),
             _at(text, "familia", "FAMILIARES_SUJETO_ASISTENCIA", nth=2)]
    out = repair_spans(text, spans, "es", _cat)
    # only the family the patient lives with stays (the third "familia", counting the one inside "familiares")
    assert out == [spans[2]]


def test_english_family_doctor_and_other_labels_untouched() -> None:
    text = "Seen by her family doctor; her family came along."
    rel = "FAMILIARES_SUJETO_ASISTENCIA"
    fam1, fam2 = _at(text, "family", rel), _at(text, "family", rel, 1)
    other = _at(text, "family", "TERRITORIO")  # not a relative: never dropped by the kinship repair
    assert repair_spans(text, [fam1, fam2, other], "en", _cat) == [fam2, other]
    assert repair_spans(text, [fam1], "de", _cat) == [fam1]  # no phrases for German: nothing changes


def test_institution_name_ends_before_street_type_floor_or_postcode_label() -> None:
    text = ("Hospital Virgen de la Arrixaca Ctra. Madrid - Cartagena s/n. "
            "Hospital Morales Meseguer 2ª planta Avda. Marqués de los Vélez. "
            "Delegación Benito Juárez Código Postal 03020.")
    a = Span(0, text.index(" Ctra") + 5, "HOSPITAL", "crf", 0.9)  # "... Arrixaca Ctra"
    b0 = text.index("Hospital Morales")
    b = Span(b0, text.index(" Avda"), "HOSPITAL", "crf", 0.9)  # "... Meseguer 2ª planta"
    c0 = text.index("Delegación")
    c = Span(c0, text.index(" 03020"), "INSTITUCION", "crf", 0.9)
    out = repair_spans(text, [a, b, c], "es", _cat)
    assert _texts(text, out) == [("Hospital Virgen de la Arrixaca", "HOSPITAL"),
                                 ("Hospital Morales Meseguer", "HOSPITAL"),
                                 ("Delegación Benito Juárez", "INSTITUCION")]
    assert all(o.source == "crf" and o.score == 0.9 for o in out)


def test_street_type_inside_a_word_and_short_leftovers_are_kept() -> None:
    text = "Clínica Avila Norte. Centro Avenida de la Paz 3"
    a = Span(0, text.index("."), "HOSPITAL", "crf", 0.8)  # "Av" inside "Avila" is no street type
    b0 = text.index("Centro")
    b = Span(b0, len(text) - 2, "INSTITUCION", "crf", 0.8)  # would leave one word: the model's span is kept
    assert repair_spans(text, [a, b], "es", _cat) == [a, b]


class _Fixed:
    """A member returning fixed spans."""

    def __init__(self, name: str, spans: list[Span]) -> None:
        self.name = name
        self._spans = spans

    def detect(self, doc: Document) -> list[Span]:
        return list(self._spans)


def test_ensemble_repairs_model_spans_also_after_propagation() -> None:
    text = "Acude con su familia. Su médico de familia pidió analítica."
    fam = _at(text, "familia", "FAMILIARES_SUJETO_ASISTENCIA")
    fam_doc = _at(text, "familia", "FAMILIARES_SUJETO_ASISTENCIA", nth=1)
    doc = Document(text=text, id="d")
    on = Ensemble({"crf": _Fixed("crf", [fam, fam_doc])}, scheme="meddocan", lang="es")
    assert [(s.start, s.end) for s in on.detect(doc)] == [(fam.start, fam.end)]
    # propagation would copy "familia" to the doctor's phrase: repaired after it too
    only_first = Ensemble({"crf": _Fixed("crf", [fam])}, scheme="meddocan", lang="es")
    assert [(s.start, s.end) for s in only_first.detect(doc)] == [(fam.start, fam.end)]
    off = Ensemble({"crf": _Fixed("crf", [fam, fam_doc])}, scheme="meddocan", lang="es", repair=False)
    assert len(off.detect(doc)) == 2
