"""Each operator alone, the operator context, and the operator registry."""

from __future__ import annotations

import pickle

import pytest

from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.taxonomy import get_scheme
from clinanon.transform import (
    Edit,
    KeepOperator,
    Operator,
    OperatorBase,
    OperatorContext,
    RedactOperator,
    SuppressOperator,
    TagOperator,
    get_operator,
    list_operators,
    operator_from_config,
    register_operator,
)
from clinanon.transform.suppress import _tidy

# offsets:          9 "Juan Pérez" 19, 21 "45 años" 28, 41 "12/03/2019" 51, 55 "Madrid" 61
TEXT = "Paciente Juan Pérez, 45 años. Ingresa el 12/03/2019 en Madrid."
NAME = Span(9, 19, "NAME.PATIENT")
AGE = Span(21, 28, "AGE")
DATE = Span(41, 51, "DATE")
CITY = Span(55, 61, "LOCATION.CITY")
DOC = Document("d1", TEXT, (NAME, AGE, DATE, CITY), {"patient_id": "p7"})


def ctx(category: str, doc: Document = DOC, **kw: object) -> OperatorContext:
    return OperatorContext(doc, category, **kw)  # type: ignore[arg-type]


# --- Edit ----------------------------------------------------------------------------------------------------

def test_edit_validates_and_hides_text() -> None:
    e = Edit(3, 7, "secret")
    assert repr(e) == "Edit(start=3, end=7, chars=6)"
    assert e.covers(Span(3, 7, "X")) and e.covers(Span(4, 5, "X")) and not e.covers(Span(2, 5, "X"))
    assert Edit(4, 4, "insert").start == 4
    with pytest.raises(ValueError):
        Edit(5, 4, "")
    with pytest.raises(ValueError):
        Edit(-1, 4, "")


# --- redact --------------------------------------------------------------------------------------------------

def test_redact_fixed_string() -> None:
    assert RedactOperator().edit(NAME, ctx("NAME.PATIENT")) == Edit(9, 19, "XXXX")
    assert RedactOperator(text="***").edit(DATE, ctx("DATE")) == Edit(41, 51, "***")
    assert RedactOperator(text="").edit(DATE, ctx("DATE")) == Edit(41, 51, "")


def test_redact_same_length_mask() -> None:
    assert RedactOperator(mask_char="*").edit(NAME, ctx("NAME.PATIENT")) == Edit(9, 19, "*" * 10)
    assert RedactOperator(mask_char="#", keep_whitespace=True).edit(NAME, ctx("NAME")) == Edit(9, 19, "#### #####")
    assert RedactOperator(mask_char="#", keep_whitespace=True).edit(AGE, ctx("AGE")) == Edit(21, 28, "## ####")


@pytest.mark.parametrize(("params", "needle"), [
    ({"mask": "*"}, "unknown parameter 'mask'"),
    ({"mask_char": "**"}, "parameter 'mask_char'"),
    ({"mask_char": ""}, "parameter 'mask_char'"),
    ({"text": "X", "mask_char": "*"}, "not both"),
    ({"keep_whitespace": "perhaps"}, "parameter 'keep_whitespace'"),
])
def test_redact_bad_params(params: dict[str, object], needle: str) -> None:
    with pytest.raises(ConfigError) as ei:
        RedactOperator(**params)  # type: ignore[arg-type]
    assert "operator 'redact'" in str(ei.value) and needle in str(ei.value)


# --- tag -----------------------------------------------------------------------------------------------------

def test_tag_default_template_is_the_category() -> None:
    assert TagOperator().edit(NAME, ctx("NAME.PATIENT")) == Edit(9, 19, "[NAME.PATIENT]")


def test_tag_placeholders() -> None:
    span = Span(9, 19, "NOMBRE_SUJETO_ASISTENCIA")
    op = TagOperator(template="{label}|{category}|{type}|{subtype}|{scheme_label}")
    c = ctx("NAME.PATIENT", scheme=get_scheme("meddocan"))
    assert op.edit(span, c).text == "NOMBRE_SUJETO_ASISTENCIA|NAME.PATIENT|NAME|PATIENT|NOMBRE_SUJETO_ASISTENCIA"
    # no scheme anywhere: {scheme_label} falls back to the type; a bare type has an empty subtype
    assert op.edit(Span(21, 28, "AGE"), ctx("AGE")).text == "AGE|AGE|AGE||AGE"
    assert TagOperator(template="{{{type}}}").edit(NAME, ctx("NAME.PATIENT")).text == "{NAME}"


def test_tag_presets() -> None:
    label = TagOperator(preset="label")
    assert label.scheme == "ontonotes"
    assert [label.edit(s, ctx(s.label)).text for s in (NAME, AGE, DATE, CITY)] == ["PERSON", "DATE", "DATE", "GPE"]
    assert TagOperator(preset="angle").edit(NAME, ctx("NAME.PATIENT")).text == "<PERSON>"
    assert TagOperator(preset="type").edit(CITY, ctx("LOCATION.CITY")).text == "[LOCATION]"
    assert TagOperator(preset="category").edit(CITY, ctx("LOCATION.CITY")).text == "[LOCATION.CITY]"
    # the preset's scheme can be changed: the bare label in another vocabulary
    assert TagOperator(preset="label", scheme="tab").edit(CITY, ctx("LOCATION.CITY")).text == "LOC"


def test_tag_per_category_templates_subtype_beats_type() -> None:
    op = TagOperator(template="[{type}]", templates={"NAME": "<PERSON>", "NAME.DOCTOR": "<DOCTOR>"})
    assert op.edit(NAME, ctx("NAME.PATIENT")).text == "<PERSON>"
    assert op.edit(NAME, ctx("NAME.DOCTOR")).text == "<DOCTOR>"
    assert op.edit(DATE, ctx("DATE")).text == "[DATE]"


@pytest.mark.parametrize(("params", "needle"), [
    ({"template": "[{name}]"}, "unknown placeholder {name}"),
    ({"template": "[{label.__class__}]"}, "unknown placeholder"),
    ({"template": "[{label!r}]"}, "conversions"),
    ({"template": "[{type"}, "not a valid format string"),
    ({"template": "type}]"}, "not a valid format string"),
    ({"templates": {"PERSON": "x"}}, "'PERSON' is not a canonical category"),
    ({"templates": {"NAME": "{oops}"}}, "unknown placeholder {oops}"),
    ({"preset": "bare"}, "parameter 'preset'"),
    ({"preset": "label", "template": "x"}, "not both"),
    ({"scheme": "klingon"}, "unknown label scheme 'klingon'"),
    ({"color": "red"}, "unknown parameter 'color'"),
])
def test_tag_bad_params(params: dict[str, object], needle: str) -> None:
    with pytest.raises(ConfigError) as ei:
        get_operator("tag", **params)
    assert "operator 'tag'" in str(ei.value) and needle in str(ei.value)


# --- keep ----------------------------------------------------------------------------------------------------

def test_keep_is_identity() -> None:
    assert KeepOperator().edit(AGE, ctx("AGE")) == Edit(21, 28, "45 años")
    with pytest.raises(ConfigError, match="operator 'keep': unknown parameter 'x'"):
        KeepOperator(x=1)


# --- suppress ------------------------------------------------------------------------------------------------

SENTS = "Vive en Madrid. Tiene 45 años. Sin alergias."
#        0       8    14 16    22 25 29 31          44


def test_suppress_exact_sentence_without_tidy() -> None:
    doc = Document("s", SENTS)
    op = SuppressOperator(tidy=False)
    assert op.edit(Span(22, 29, "AGE"), ctx("AGE", doc)) == Edit(16, 30, "")
    assert op.edit(Span(8, 14, "LOCATION.CITY"), ctx("LOCATION.CITY", doc)) == Edit(0, 15, "")
    # a span across a sentence boundary takes both sentences
    assert op.edit(Span(14, 21, "OTHER"), ctx("OTHER", doc)) == Edit(0, 30, "")
    assert SuppressOperator(placeholder="[SUPPRESSED]").edit(Span(22, 29, "AGE"), ctx("AGE", doc)) == \
        Edit(16, 30, "[SUPPRESSED]")


def test_suppress_tidy_takes_the_dangling_whitespace() -> None:
    doc = Document("s", SENTS)
    op = SuppressOperator()
    assert op.edit(Span(22, 29, "AGE"), ctx("AGE", doc)) == Edit(16, 31, "")  # "Tiene 45 años. "
    assert op.edit(Span(35, 43, "OTHER"), ctx("OTHER", doc)) == Edit(30, 44, "")  # " Sin alergias."


@pytest.mark.parametrize(("text", "region", "expected"), [
    ("A. B. C.", (3, 5), "A. C."),
    ("A. B.\nC.", (3, 5), "A.\nC."),
    ("L1\nL2\nL3", (3, 5), "L1\nL3"),
    ("L1\r\nL2\r\nL3", (4, 6), "L1\r\nL3"),
    ("L1\nL2", (3, 5), "L1"),
    ("B.", (0, 2), ""),
    ("A.  B.  \nC.", (4, 6), "A.\nC."),
])
def test_tidy_cases(text: str, region: tuple[int, int], expected: str) -> None:
    s, e = _tidy(text, *region)
    assert s <= region[0] and region[1] <= e
    assert text[:s] + text[e:] == expected


def test_context_caches_sentences_and_shares_state() -> None:
    doc = Document("s", SENTS)
    c = OperatorContext(doc, "AGE")
    assert c.sentences is c.sentences
    assert [(s.start, s.end) for s in c.sentences] == [(0, 15), (16, 30), (31, 44)]
    other = c.for_category("NAME")
    assert other.category == "NAME" and other.type == "NAME"
    assert other.sentences is c.sentences and other.state is c.state
    assert c.sentence_bounds(22, 29) == (16, 30)
    assert c.sentence_bounds(15, 16) == (15, 16)  # only whitespace between sentences
    assert "Vive" not in repr(c)


# --- registry ------------------------------------------------------------------------------------------------

def test_registry_lists_and_builds() -> None:
    assert {"keep", "redact", "suppress", "tag"} <= set(list_operators())
    op = get_operator("redact", mask_char="*")
    assert isinstance(op, RedactOperator) and isinstance(op, Operator) and op.name == "redact"
    assert operator_from_config("keep").name == "keep"
    assert operator_from_config({"operator": "tag", "template": "<PERSON>"}) == TagOperator(template="<PERSON>")
    assert operator_from_config(op) is op
    with pytest.raises(ConfigError, match=r"unknown operator 'blur'; known: .*redact"):
        get_operator("blur")
    with pytest.raises(ConfigError, match="'operator' key"):
        operator_from_config({"template": "x"})


def test_operator_from_config_object() -> None:
    class Cfg:  # the shape of clinanon.config.OperatorConfig
        operator = "redact"
        params = {"text": "[X]"}  # noqa: RUF012

    assert operator_from_config(Cfg()) == RedactOperator(text="[X]")


def test_operators_pickle() -> None:
    for op in (RedactOperator(mask_char="*"), TagOperator(preset="label"), SuppressOperator(), KeepOperator()):
        assert pickle.loads(pickle.dumps(op)) == op


def test_plugin_operator_needs_no_engine_change() -> None:
    """A surrogate-like operator: typed params, reads metadata and other spans, keeps per-document state."""
    from clinanon.transform import anonymize

    @register_operator("test-counter", overwrite=True)
    class Counter(OperatorBase):
        prefix: str = "P"

        def edit(self, span: Span, ctx: OperatorContext) -> Edit:
            seen: dict[str, int] = ctx.state.setdefault(self.name, {})
            key = ctx.doc.text[span.start:span.end]
            n = seen.setdefault(key, len(seen) + 1)
            return Edit(span.start, span.end, f"{self.prefix}{n}-{ctx.doc.meta['patient_id']}-of{len(ctx.spans)}")

    doc = Document("d", "Ana y Luis. Ana.", (Span(0, 3, "NAME"), Span(6, 10, "NAME"), Span(12, 15, "NAME")),
                   {"patient_id": "p9"})
    out = anonymize(doc, operators={"NAME": get_operator("test-counter", prefix="N")})
    assert out.text == "N1-p9-of3 y N2-p9-of3. N1-p9-of3."
    assert [r.operator for r in out.replacements] == ["test-counter"] * 3
    with pytest.raises(ConfigError, match="operator 'test-counter': unknown parameter 'key'"):
        get_operator("test-counter", key="k")
    with pytest.raises(ConfigError, match="already registered"):
        register_operator("tag")(Counter)
