"""The anonymization engine: operator selection, label schemes, the replacement log, overlaps and errors."""

from __future__ import annotations

import time

import pytest

from clinanon.document import Document, Replacement, Span
from clinanon.errors import ClinanonError, ConfigError, SpanError
from clinanon.transform import (
    Anonymizer,
    Edit,
    KeepOperator,
    OperatorContext,
    RedactOperator,
    SuppressOperator,
    TagOperator,
    anonymize,
    build_operators,
    select_operator,
)

# offsets:          9 "Juan Pérez" 19, 21 "45 años" 28, 41 "12/03/2019" 51, 55 "Madrid" 61
TEXT = "Paciente Juan Pérez, 45 años. Ingresa el 12/03/2019 en Madrid."
SPANS = (Span(9, 19, "NAME.PATIENT"), Span(21, 28, "AGE"), Span(41, 51, "DATE"), Span(55, 61, "LOCATION.CITY"))
DOC = Document("d1", TEXT, SPANS, {"patient_id": "p7"})
SECRETS = ("Juan", "Pérez", "45 años", "12/03/2019", "Madrid", "Paciente")


def test_subtype_beats_type_beats_default() -> None:
    ops = {"NAME.PATIENT": TagOperator(template="<PAT>"), "NAME": TagOperator(template="<N>"),
           "LOCATION": RedactOperator(text="L"), "*": RedactOperator()}
    doc = Document("d", "Ana, Dr Gil, Soria, 3 mayo", (Span(0, 3, "NAME.PATIENT"), Span(8, 11, "NAME.DOCTOR"),
                                                       Span(13, 18, "LOCATION.CITY"), Span(20, 26, "DATE")))
    out = anonymize(doc, operators=ops)
    assert out.text == "<PAT>, Dr <N>, L, XXXX"
    assert [r.operator for r in out.replacements] == ["tag", "tag", "redact", "redact"]
    # select_operator alone, and the default argument when there is no "*"
    assert select_operator("NAME.DOCTOR", ops) is ops["NAME"]
    keep = KeepOperator()
    assert select_operator("AGE", {"NAME": ops["NAME"]}, keep) is keep
    with pytest.raises(ConfigError, match="no operator for category 'AGE'"):
        select_operator("AGE", {"NAME": ops["NAME"]})


def test_log_has_offsets_in_both_texts() -> None:
    out = anonymize(DOC, operators={"NAME": TagOperator(template="[{type}]"), "*": RedactOperator(mask_char="*")})
    assert out.text == "Paciente [NAME], *******. Ingresa el ********** en ******."
    assert out.replacements == (
        Replacement(9, 19, 9, 15, "NAME.PATIENT", "NAME.PATIENT", "tag"),
        Replacement(21, 28, 17, 24, "AGE", "AGE", "redact"),
        Replacement(41, 51, 37, 47, "DATE", "DATE", "redact"),
        Replacement(55, 61, 51, 57, "LOCATION.CITY", "LOCATION.CITY", "redact"),
    )
    assert out.id == "d1" and out.meta == {"patient_id": "p7"} and out.original_length == len(TEXT)
    assert out.to_output(19) == 15 and out.to_output(12) == 9 and out.to_output(62) == 58
    assert out.to_original(15) == 19 and out.to_original(11) == 9


def test_no_operators_means_tag_by_category() -> None:
    assert anonymize(DOC).text == "Paciente [NAME.PATIENT], [AGE]. Ingresa el [DATE] en [LOCATION.CITY]."


def test_scheme_maps_native_labels() -> None:
    doc = Document("m", "Ana, 3 mayo", (Span(0, 3, "NOMBRE_SUJETO_ASISTENCIA"), Span(5, 11, "FECHAS")))
    out = anonymize(doc, operators={"NAME": TagOperator(template="<{scheme_label}>"), "*": RedactOperator()},
                    scheme="meddocan")
    assert out.text == "<NOMBRE_SUJETO_ASISTENCIA>, XXXX"
    assert [(r.label, r.category) for r in out.replacements] == [("NOMBRE_SUJETO_ASISTENCIA", "NAME.PATIENT"),
                                                                ("FECHAS", "DATE")]
    tagged = anonymize(doc, operators={"*": TagOperator(preset="label")}, scheme="meddocan")
    assert tagged.text == "PERSON, DATE"


def test_keep_spans_are_not_logged_and_do_not_shield() -> None:
    out = anonymize(DOC, operators={"AGE": KeepOperator(), "*": RedactOperator()})
    assert out.text == "Paciente XXXX, 45 años. Ingresa el XXXX en XXXX."
    assert [r.category for r in out.replacements] == ["NAME.PATIENT", "DATE", "LOCATION.CITY"]
    # a kept span overlapping a redacted one: the redacted region is replaced all the same
    doc = Document("k", "abcdefghij", (Span(0, 5, "SEX"), Span(3, 8, "NAME")))
    out = anonymize(doc, operators={"SEX": KeepOperator(), "NAME": RedactOperator(text="#")})
    assert out.text == "abc#ij"
    assert out.replacements == (Replacement(3, 8, 3, 4, "NAME", "NAME", "redact"),)


SENTS = "Vive en Madrid. Tiene 45 años. Sin alergias."
#        0       8    14 16    22 25 29 31          44


def test_suppress_drops_exactly_the_sentence_and_maps_both_ways() -> None:
    doc = Document("s", SENTS, (Span(8, 14, "LOCATION.CITY"), Span(22, 29, "AGE")))
    out = anonymize(doc, operators={"AGE": SuppressOperator(tidy=False), "*": TagOperator(template="[{type}]")})
    assert out.text == "Vive en [LOCATION].  Sin alergias."
    assert out.replacements == (Replacement(8, 14, 8, 18, "LOCATION.CITY", "LOCATION.CITY", "tag"),
                                Replacement(16, 30, 20, 20, "AGE", "AGE", "suppress"))
    assert [out.to_output(i) for i in (0, 8, 10, 14, 15, 16, 22, 29, 30, 31, 44)] == \
        [0, 8, 8, 18, 19, 20, 20, 20, 20, 21, 34]
    assert [out.to_original(i) for i in (0, 8, 12, 18, 19, 21, 34)] == [0, 8, 8, 14, 15, 31, 44]
    assert out.output_spans() == [Span(8, 18, "LOCATION.CITY", "tag")]
    tidy = anonymize(doc, operators={"AGE": SuppressOperator(), "*": KeepOperator()})
    assert tidy.text == "Vive en Madrid. Sin alergias."
    placeholder = anonymize(doc, operators={"AGE": SuppressOperator(placeholder="[SUPPRESSED]"),
                                            "*": KeepOperator()})
    assert placeholder.text == "Vive en Madrid. [SUPPRESSED] Sin alergias."
    assert placeholder.replacements == (Replacement(16, 30, 16, 28, "AGE", "AGE", "suppress"),)


def test_two_spans_in_one_suppressed_sentence_give_one_replacement() -> None:
    doc = Document("s", SENTS, (Span(16, 21, "NAME"), Span(22, 29, "AGE")))
    out = anonymize(doc, operators={"*": SuppressOperator(tidy=False)})
    assert out.text == "Vive en Madrid.  Sin alergias."
    # equal regions: the earlier span's label goes into the log
    assert out.replacements == (Replacement(16, 30, 16, 16, "NAME", "NAME", "suppress"),)


def test_suppress_absorbs_the_tags_it_covers() -> None:
    doc = Document("o", "Uno dos. Tres cuatro.", (Span(9, 13, "NAME"), Span(14, 20, "AGE")))
    out = anonymize(doc, operators={"AGE": SuppressOperator(tidy=False), "NAME": TagOperator()})
    assert out.text == "Uno dos. "
    assert out.replacements == (Replacement(9, 21, 9, 9, "AGE", "AGE", "suppress"),)


def test_overlapping_span_edits_earlier_then_longer_wins_union_replaced() -> None:
    ops = {"NAME": TagOperator(template="<N>"), "DATE": RedactOperator(text="D")}
    out = anonymize(Document("o", "abcdefghij", (Span(2, 6, "NAME"), Span(4, 8, "DATE"))), operators=ops)
    assert out.text == "ab<N>ij"
    assert out.replacements == (Replacement(2, 8, 2, 5, "NAME", "NAME", "tag"),)
    out = anonymize(Document("o", "abcdefghij", (Span(2, 5, "NAME"), Span(2, 8, "DATE"))), operators=ops)
    assert out.text == "abDij"
    # a chain of overlaps is one region; touching edits stay separate
    out = anonymize(Document("o", "abcdefghij", (Span(0, 3, "NAME"), Span(2, 5, "DATE"), Span(4, 6, "DATE"),
                                                 Span(6, 8, "NAME"))), operators=ops)
    assert out.text == "<N><N>ij"
    assert [(r.start, r.end) for r in out.replacements] == [(0, 6), (6, 8)]


def test_explicit_spans_override_doc_spans_and_are_sorted() -> None:
    out = anonymize(DOC, [Span(55, 61, "LOCATION.CITY"), Span(9, 13, "NAME")], operators={"*": RedactOperator()})
    assert out.text == "Paciente XXXX Pérez, 45 años. Ingresa el 12/03/2019 en XXXX."
    assert anonymize(DOC, [], operators={"*": RedactOperator()}).text == TEXT


def test_anonymizer_from_config_dicts() -> None:
    anon = Anonymizer({"NAME": {"operator": "tag", "template": "<PERSON>"}, "AGE": "keep",
                       "*": {"operator": "redact"}})
    assert anon.anonymize(DOC).text == "Paciente <PERSON>, 45 años. Ingresa el XXXX en XXXX."
    assert anon.operator_for("NAME.DOCTOR").name == "tag"
    assert repr(anon) == "Anonymizer(NAME=tag, AGE=keep, *=redact, scheme=None, lang='es')"
    assert [o.text for o in anon.anonymize_all([DOC, DOC.with_spans([])])] == [
        "Paciente <PERSON>, 45 años. Ingresa el XXXX en XXXX.", TEXT]
    assert Anonymizer().anonymize(DOC).text == anonymize(DOC).text
    meddocan = Anonymizer({"*": {"operator": "tag", "preset": "type"}}, scheme="meddocan", lang="es")
    assert meddocan.anonymize(Document("m", "Ana", (Span(0, 3, "NOMBRE_SUJETO_ASISTENCIA"),))).text == "[NAME]"


def test_build_operators_names_the_key() -> None:
    with pytest.raises(ConfigError, match=r"operators\['NAME'\]: operator 'tag': unknown parameter 'templat'"):
        build_operators({"NAME": {"operator": "tag", "templat": "x"}})
    with pytest.raises(ConfigError, match="operator map key 'PERSON' is not a canonical category"):
        Anonymizer({"PERSON": "redact"})
    with pytest.raises(ConfigError, match="operator map key 'name'"):
        anonymize(DOC, operators={"name": RedactOperator()})
    with pytest.raises(ConfigError, match="unknown operator 'hash'"):
        Anonymizer({"*": "hash"})


def _messages_without_text(err: ClinanonError, doc: Document) -> str:
    msg = str(err)
    for s in doc.spans:
        assert doc.span_text(s) not in msg
    for word in SECRETS:
        assert word not in msg
    return msg


def test_unknown_label_errors_name_the_label_and_suggest_a_scheme() -> None:
    doc = Document("x1", TEXT, (Span(9, 19, "PATIENT_NAME"),))
    with pytest.raises(ConfigError) as ei:
        anonymize(doc, operators={"*": RedactOperator()})
    msg = _messages_without_text(ei.value, doc)
    assert "'PATIENT_NAME'" in msg and "scheme=" in msg and "meddocan" in msg and "[9, 19)" in msg
    with pytest.raises(ConfigError) as ei:
        anonymize(doc, operators={"*": RedactOperator()}, scheme="meddocan")
    msg = _messages_without_text(ei.value, doc)
    assert "'PATIENT_NAME'" in msg and "'meddocan'" in msg
    with pytest.raises(ConfigError, match="unknown label scheme 'nope'"):
        anonymize(doc, operators={"*": RedactOperator()}, scheme="nope")
    with pytest.raises(ConfigError) as ei:
        anonymize(DOC, operators={"NAME": RedactOperator()})
    _messages_without_text(ei.value, DOC)


def test_bad_operator_edits_are_rejected_without_text() -> None:
    class Shrink:
        name = "shrink"

        def edit(self, span: Span, ctx: OperatorContext) -> Edit:
            return Edit(span.start + 1, span.end, "Juan")

    class NotAnEdit:
        name = "str"

        def edit(self, span: Span, ctx: OperatorContext) -> str:
            return "Juan"

    with pytest.raises(SpanError) as ei:
        anonymize(DOC, operators={"*": Shrink()})  # type: ignore[dict-item]
    assert "operator 'shrink'" in _messages_without_text(ei.value, DOC)
    with pytest.raises(SpanError, match="operator 'str' returned a str"):
        anonymize(DOC, operators={"*": NotAnEdit()})  # type: ignore[dict-item]
    with pytest.raises(SpanError, match=r"ends past the text"):
        anonymize(DOC, [Span(60, 99, "NAME")], operators={"*": RedactOperator()})


def test_state_is_per_document_and_can_be_passed_in() -> None:
    state: dict[str, object] = {}
    anonymize(DOC, operators={"*": RedactOperator()}, state=state)
    assert state == {}  # built-in operators keep no state
    assert "Juan" not in repr(anonymize(DOC))


def test_linear_time_on_many_spans() -> None:
    words = 50_000
    text = "ab " * words
    spans = [Span(3 * i, 3 * i + 2, "NAME") for i in range(words)]
    t0 = time.process_time()
    out = anonymize(Document("big", text), spans, operators={"*": RedactOperator(text="X")})
    elapsed = time.process_time() - t0
    assert out.text == "X " * words and len(out.replacements) == words
    assert elapsed < 5.0  # ~0.3 s on the reference machine; quadratic would take minutes
