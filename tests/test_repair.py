"""Repairs of trained models' spans (clinanon.steps.repair) and their use in the ensemble."""

from __future__ import annotations

from clinanon.document import Document, Span
from clinanon.ensemble import Ensemble
from clinanon.steps.repair import repair_spans
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
    de = "Ihre Familie kam mit."  # no phrases for German: a kinship word stays
    familie = _at(de, "Familie", rel)
    assert repair_spans(de, [familie], "de", _cat) == [familie]


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


def test_relative_without_kinship_word_or_name_is_dropped() -> None:
    text = "Su padre de 30 años vive con su hermana Lucía."
    anos = _at(text, "años", "FAMILIARES_SUJETO_ASISTENCIA")
    padre = _at(text, "padre", "FAMILIARES_SUJETO_ASISTENCIA")
    lucia = _at(text, "Lucía", "FAMILIARES_SUJETO_ASISTENCIA")
    assert repair_spans(text, [padre, anos, lucia], "es", _cat) == [padre, lucia]


def test_a_relatives_name_in_lower_case_is_kept() -> None:
    """A note typed in lower case names relatives after kinship words ("son jonathan"): a listed first name or a
    word no lexicon holds is a name, not a stray word (the rules + CRF ensemble used to drop them)."""
    text = "son jonathan in to visit. wife rose called. dtr brandvold updated. pt in good spirits."
    spans = [_at(text, w, "FAMILIARES_SUJETO_ASISTENCIA") for w in ("jonathan", "rose", "brandvold", "spirits")]
    kept = [text[s.start:s.end] for s in repair_spans(text, spans, "en", _cat)]
    assert kept == ["jonathan", "rose", "brandvold"]


def test_two_relatives_joined_by_a_conjunction_become_two_spans() -> None:
    text = "Tanto su madre como su abuela fallecieron. Her mother and her sister came. La madre y el tumor."
    es = Span(text.index("madre"), text.index(" fallecieron"), "FAMILIARES_SUJETO_ASISTENCIA", "crf", 0.7)
    assert _texts(text, repair_spans(text, [es], "es", _cat)) == [("madre", "FAMILIARES_SUJETO_ASISTENCIA"),
                                                                   ("abuela", "FAMILIARES_SUJETO_ASISTENCIA")]
    en = Span(text.index("mother"), text.index(" came"), "FAMILIARES_SUJETO_ASISTENCIA", "crf", 0.7)
    assert _texts(text, repair_spans(text, [en], "en", _cat)) == [("mother", "FAMILIARES_SUJETO_ASISTENCIA"),
                                                                   ("sister", "FAMILIARES_SUJETO_ASISTENCIA")]
    # "el tumor" is no relative: the span is left as it is
    mixed = Span(text.index("madre y"), text.index(" tumor") + 6, "FAMILIARES_SUJETO_ASISTENCIA", "crf", 0.7)
    assert repair_spans(text, [mixed], "es", _cat) == [mixed]


def test_name_or_place_across_a_parenthesis_keeps_its_longer_side() -> None:
    text = "hija de padres jóvenes (madre de 28 años) y Digestivo (CHUAC) Av. As Xubias, 84 15006. Tel (91) 555 12 12"
    rel = Span(text.index("padres"), text.index(" años") + 5, "FAMILIARES_SUJETO_ASISTENCIA", "crf", 0.8)
    street = Span(text.index("CHUAC"), text.index(", 84") + 4, "CALLE", "crf", 0.8)
    phone = Span(text.index("(91)"), len(text), "NUMERO_TELEFONO", "crf", 0.8)  # contacts keep their brackets
    balanced = Span(text.index("(CHUAC)"), text.index("(CHUAC)") + 7, "HOSPITAL", "crf", 0.8)
    out = repair_spans(text, [rel, street, phone, balanced], "es", _cat)
    assert _texts(text, out) == [("padres jóvenes", "FAMILIARES_SUJETO_ASISTENCIA"),
                                 ("Av. As Xubias, 84", "CALLE"), ("(91) 555 12 12", "NUMERO_TELEFONO"),
                                 ("(CHUAC)", "HOSPITAL")]


def test_name_cut_at_a_middle_initial_goes_on_to_the_surname() -> None:
    text = "Remitido por: Dr. Tomás Collar, Hospital Universitario Dr. Carlos J. Finlay. 114 y 31. Marianao."
    hosp = Span(text.index("Hospital"), text.index("J. Finlay") + 1, "HOSPITAL", "crf", 0.9)
    (out,) = repair_spans(text, [hosp], "es", _cat)
    assert text[out.start:out.end] == "Hospital Universitario Dr. Carlos J. Finlay"
    assert (out.label, out.source, out.score) == ("HOSPITAL", "crf", 0.9)
    # two initials in a row, and a staff name
    text = "Dra. Ana M. C. Garamendi valoró al paciente."
    name = Span(text.index("Ana"), text.index("M.") + 1, "NOMBRE_PERSONAL_SANITARIO", "crf", 0.9)
    (out,) = repair_spans(text, [name], "es", _cat)
    assert text[out.start:out.end] == "Ana M. C. Garamendi"


def test_final_initial_before_a_common_word_or_a_new_line_stays_the_end() -> None:
    rel = "NOMBRE_PERSONAL_SANITARIO"
    text = "Responsable clínico: Dr. Nikolaos Antoniadis P. Departamento de Cirugía Plástica."
    name = Span(text.index("Nikolaos"), text.index("P.") + 1, rel, "crf", 0.9)
    assert repair_spans(text, [name], "es", _cat) == [name]
    text = "Dr. Nikolaos Antoniadis P.\nFinlay 12"  # another line
    name = Span(text.index("Nikolaos"), text.index("P.") + 1, rel, "crf", 0.9)
    assert repair_spans(text, [name], "es", _cat) == [name]
    # a street ending in a letter is not a name: "3º A. Playamar" keeps its end
    text = "C/ Mayor 16, 3º A. Playamar."
    street = Span(0, text.index("A.") + 1, "CALLE", "crf", 0.9)
    assert repair_spans(text, [street], "es", _cat) == [street]


def test_organisation_named_hospital_becomes_a_hospital_when_the_scheme_has_one() -> None:
    text = "Servicio de Urología. Fundación Hospital de Calahorra. Instituto de Medicina Legal. Plaza del Hospital 3."
    org = _at(text, "Fundación Hospital de Calahorra", "INSTITUCION")
    other = _at(text, "Instituto de Medicina Legal", "INSTITUCION")
    street = _at(text, "Plaza del Hospital 3", "CALLE")
    out = repair_spans(text, [org, other, street], "es", _cat, MEDDOCAN.native)
    assert [(s.start, s.end, s.label, s.source, s.score) for s in out] == [
        (org.start, org.end, "HOSPITAL", "crf", 0.9), (other.start, other.end, "INSTITUCION", "crf", 0.9),
        (street.start, street.end, "CALLE", "crf", 0.9)]
    # without label_of the label stays (the caller's scheme may have no hospital label)
    assert repair_spans(text, [org], "es", _cat) == [org]
    # German compounds
    text = "Verlegung ins Universitätsklinikum Eppendorf."
    org = _at(text, "Universitätsklinikum Eppendorf", "LOCATION.ORGANIZATION")
    (out_de,) = repair_spans(text, [org], "de", lambda label: label, lambda cat: cat)
    assert out_de.label == "LOCATION.HOSPITAL"


def test_acronym_of_an_institution_after_its_name_gets_its_label() -> None:
    text = ("Complejo Hospitalario Universitario de Vigo (CHUVI). Ingresó en el Hospital La Paz (UCI) y luego en "
            "el Instituto Colombiano del Dolor (INCODOL) y el Hospital Clínico (Madrid).")
    vigo = _at(text, "Complejo Hospitalario Universitario de Vigo", "HOSPITAL")
    paz = _at(text, "Hospital La Paz", "HOSPITAL")
    inst = _at(text, "Instituto Colombiano del Dolor", "INSTITUCION")
    clin = _at(text, "Hospital Clínico", "HOSPITAL")
    out = repair_spans(text, [vigo, paz, inst, clin], "es", _cat)
    assert _texts(text, out) == [("Complejo Hospitalario Universitario de Vigo", "HOSPITAL"), ("CHUVI", "HOSPITAL"),
                                 ("Hospital La Paz", "HOSPITAL"),  # UCI is a unit: its first letter is not the name's
                                 ("Instituto Colombiano del Dolor", "INSTITUCION"), ("INCODOL", "INSTITUCION"),
                                 ("Hospital Clínico", "HOSPITAL")]  # "Madrid" is no acronym
    assert out[1].source == "crf" and out[1].score == 0.9
    # an acronym another span already covers is left to it; a name's acronym is not a person's
    chuvi = _at(text, "CHUVI", "TERRITORIO")
    assert _texts(text, repair_spans(text, [vigo, chuvi], "es", _cat)) == [
        ("Complejo Hospitalario Universitario de Vigo", "HOSPITAL"), ("CHUVI", "TERRITORIO")]
    text = "Dr. Carlos Pérez (CP) firma."
    name = _at(text, "Carlos Pérez", "NOMBRE_PERSONAL_SANITARIO")
    assert repair_spans(text, [name], "es", _cat) == [name]


def test_place_and_postcode_in_one_span_become_two() -> None:
    text = "Flamencos 74, San José Insurgentes 03900 Benito Juárez. C/ Castanera, 26 33690 Lugo (Asturias)."
    a = _at(text, "San José Insurgentes 03900", "TERRITORIO")
    b = _at(text, "33690 Lugo", "TERRITORIO")
    assert _texts(text, repair_spans(text, [a, b], "es", _cat)) == [
        ("San José Insurgentes", "TERRITORIO"), ("03900", "TERRITORIO"),
        ("33690", "TERRITORIO"), ("Lugo", "TERRITORIO")]
    # with label_of the postcode gets the scheme's postcode label
    text = "Moved to Springfield 62704 last year."
    city = _at(text, "Springfield 62704", "LOCATION.CITY")
    assert _texts(text, repair_spans(text, [city], "en", lambda label: label, lambda cat: cat)) == [
        ("Springfield", "LOCATION.CITY"), ("62704", "LOCATION.ZIP")]


def test_postcode_takes_its_country_prefix_and_a_place_ends_before_a_postcode_label() -> None:
    text = "Hospital San Juan de la Cruz E-23400 Ubeda. Delegación Benito Juárez Código Postal 03020. Tel 2-23400."
    zip_ = _at(text, "23400", "TERRITORIO")
    deleg = _at(text, "Delegación Benito Juárez Código Postal", "TERRITORIO")
    tel = _at(text, "23400", "TERRITORIO", nth=1)  # "2-": a digit, not a country prefix
    assert _texts(text, repair_spans(text, [zip_, deleg, tel], "es", _cat)) == [
        ("E-23400", "TERRITORIO"), ("Delegación Benito Juárez", "TERRITORIO"), ("23400", "TERRITORIO")]
    text = "Colonia Narvarte C.P. 03020, México."
    col = _at(text, "Colonia Narvarte C.P.", "TERRITORIO")
    assert _texts(text, repair_spans(text, [col], "es", _cat)) == [("Colonia Narvarte", "TERRITORIO")]


def test_two_places_joined_by_de_become_one_but_not_across_labels_or_lines() -> None:
    text = "33690 Lugo de Llanera (Asturias). Paciente de Madrid de España. Vive en Lugo de\nLlanera."
    lugo, llanera = _at(text, "Lugo", "TERRITORIO"), _at(text, "Llanera", "TERRITORIO")
    madrid, spain = _at(text, "Madrid", "TERRITORIO"), _at(text, "España", "PAIS")
    lugo2, llanera2 = _at(text, "Lugo", "TERRITORIO", nth=1), _at(text, "Llanera", "TERRITORIO", nth=1)
    out = repair_spans(text, [lugo, llanera, madrid, spain, lugo2, llanera2], "es", _cat)
    assert _texts(text, out) == [("Lugo de Llanera", "TERRITORIO"), ("Madrid", "TERRITORIO"), ("España", "PAIS"),
                                 ("Lugo", "TERRITORIO"), ("Llanera", "TERRITORIO")]


def test_postcode_with_a_spaced_country_prefix_stays_one_span() -> None:
    text = "Avda. Reyes Católicos, 2. E 28040 Madrid."
    zip_ = _at(text, "E 28040", "TERRITORIO")
    assert repair_spans(text, [zip_], "es", _cat) == [zip_]
