"""Issue 15, finding 4: detection reads a view of the note without invisible characters and with look-alikes
folded; spans come back on the original text, and the operators replace the original span (the zero-width space
inside a name goes with it). The notes are written for these tests (invented names and places)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clinanon.analysis import Analysis
from clinanon.document import Document, Span
from clinanon.lang.normalize import detection_view
from clinanon.pipeline import Pipeline

ZWSP, SHY, NBSP, WJ, BOM, RLO, ZWJ = "\u200b", "\u00ad", "\u00a0", "\u2060", "\ufeff", "\u202e", "\u200d"
INVISIBLES = (ZWSP, SHY, WJ, BOM, RLO, ZWJ, "\u200c", "\u200e", "\u2066", "\ufe0f")


# --- the view ----------------------------------------------------------------------------------------------------
def test_a_text_without_such_characters_is_its_own_view() -> None:
    text = "Paciente: María García López, 45 años. Dr. Ruiz. Иванов, Ωmega, m², µg."
    view = detection_view(text)
    assert view.identity and view.text is text and view.removed == ()
    assert view.to_original(3, 9) == (3, 9) and view.to_view(3, 9) == (3, 9)


@pytest.mark.parametrize(("raw", "seen"), [
    (f"Gar{ZWSP}cía", "García"),
    (f"Gar{SHY}cía", "García"),
    (f"Ana{NBSP}Ruiz", "Ana Ruiz"),
    ("Ana\u202fRuiz\u2003Gil", "Ana Ruiz Gil"),
    (f"{BOM}María{WJ}José", "MaríaJosé"),
    (f"{RLO}Ruiz\u202c", "Ruiz"),
    ("G\u0430rc\u00eda", "García"),  # Cyrillic a
    ("\u0420\u0435\u0440\u0435 Gil", "Pepe Gil"),  # a word of look-alikes only
    ("\u039cartín", "Martín"),  # Greek capital mu
    ("Ｇａｒｃíａ", "García"),  # fullwidth
    ("𝐑𝐮𝐢𝐳", "Ruiz"),  # mathematical bold
    ("Garci\u0301a", "García"),  # a decomposed accent
    ("línea\u2028siguiente", "línea\nsiguiente"),
])
def test_the_view_removes_and_folds(raw: str, seen: str) -> None:
    view = detection_view(raw)
    assert view.text == seen and not view.identity
    assert view.to_original(0, len(view.text)) == (0 if raw[0] not in (BOM, RLO) else 1,
                                                   len(raw) if raw[-1] != "\u202c" else len(raw) - 1)
    assert "Gar" not in repr(view) and "Ruiz" not in repr(view)  # counts only


def test_cyrillic_and_greek_words_stay_as_they_are() -> None:
    for text in ("Иванов Петров", "Ωμέγα", "α-bloqueante", "β2"):
        assert detection_view(text).text == text


def test_offsets_map_both_ways() -> None:
    raw = f"Sr. Gar{ZWSP}{ZWSP}cía L{SHY}ópez ve a Dr{NBSP}Gil"
    view = detection_view(raw)
    assert view.text == "Sr. García López ve a Dr Gil"
    name = view.text.index("García López")
    start, end = view.to_original(name, name + len("García López"))
    assert raw[start:end] == f"Gar{ZWSP}{ZWSP}cía L{SHY}ópez"
    assert view.to_view(start, end) == (name, name + len("García López"))
    assert view.to_view(7, 9) == (7, 7)  # only invisible characters: empty on the view
    for v in range(len(view.text)):  # every character of the view is its original character, or its fold
        o, _ = view.to_original(v, v + 1)
        assert view.text[v] == raw[o] or (view.text[v] == " " and raw[o] == NBSP)


def test_combining_marks_stay_with_their_letter() -> None:
    raw = "Sr. Garci\u0301a Lo\u0301pez"
    view = detection_view(raw)
    assert view.text == "Sr. García López"
    assert view.to_original(4, 10) == (4, 11)  # "García": its accent after the i goes with the span
    assert view.to_original(4, 8) == (4, 8)


def test_adversarial_inputs() -> None:
    """1 MB line, 100 000 capitalised words, a long digit run, 100 000 zero-width spaces: linear scans."""
    assert detection_view("x" * 1_000_000).identity
    assert detection_view(" ".join(["García"] * 100_000)).identity
    assert detection_view("7" * 1_000_000).identity
    zw = detection_view(ZWSP.join(["Ana"] * 100_000))
    assert zw.text == "Ana" * 100_000 and zw.to_original(3 * 99_999, 3 * 100_000)[1] == len(zw.original)
    cyr = detection_view("\u0430" * 1_000_000)  # one word of look-alikes only
    assert cyr.text == "a" * 1_000_000


def test_analysis_reads_the_view_and_maps_spans_back() -> None:
    doc = Document("n1", f"Paciente: Gar{ZWSP}cía.", (Span(10, 17, "NAME"),))
    a = Analysis.of(doc, "es")
    assert a.text == "Paciente: García." and a.source is doc and a.doc.spans == (Span(10, 16, "NAME"),)
    assert a.to_source([Span(10, 16, "NAME", "rules", 0.9)]) == [Span(10, 17, "NAME", "rules", 0.9)]
    plain = Document("n2", "Paciente: García.")
    b = Analysis.of(plain, "es")
    assert b.doc is plain and b.view.identity
    spans = [Span(10, 16, "NAME")]
    assert b.to_source(spans) is spans
    # a detector called directly reads the document as it is (its offsets are the document's)
    assert Analysis.of(doc, "es", normalize=False).text == doc.text


# --- finding 4 through the pipeline --------------------------------------------------------------------------
NOTES = {
    "zwsp": f"Se comenta con su hija Carmen Fern{ZWSP}ández por teléfono. La paciente María Gar{ZWSP}cía acude.",
    "shy": f"La paciente Ma{SHY}ría Ga{SHY}rcía López acude a consulta. Vive con su esposo Jorge Mar{SHY}tínez.",
    "nbsp": f"Vive con su esposo Jorge{NBSP}Martínez en Sevilla. Remitido por el Dr.{NBSP}Antonio{NBSP}Ruiz.",
    "homoglyph": "La paciente M\u0430ría G\u0430rcía López acude. Vive con su esposo J\u043erge M\u0430rtínez.",
    "fullwidth": "La paciente Ｍaría Ｇarcía López acude a consulta. Vive con su esposo Ｊorge Ｍartínez.",
}


def _covered(doc: Document, spans: list[Span]) -> set[int]:
    return {i for s in spans for i in range(s.start, s.end)}


@pytest.fixture(scope="module")
def nlp() -> Pipeline:
    return Pipeline.from_config(language="es")


@pytest.mark.parametrize("kind", sorted(NOTES))
def test_names_with_invisible_or_lookalike_characters_are_replaced(nlp: Pipeline, kind: str) -> None:
    """Before: the names leaked (HEAD replaced none of the zero-width-space, soft-hyphen, homoglyph and fullwidth
    names here)."""
    raw = NOTES[kind]
    doc = Document(kind, raw)
    spans = nlp.detect_spans(doc)
    assert all(0 <= s.start < s.end <= len(raw) for s in spans)  # offsets on the original text
    out = nlp.deidentify(doc).text
    seen = detection_view(raw).text
    for name in ("Fernández", "García", "Martínez", "Ruiz", "María", "Jorge"):
        if name in seen:
            at = seen.index(name)
            start, end = detection_view(raw).to_original(at, at + len(name))
            assert set(range(start, end)) <= _covered(doc, spans), (kind, name)
    for ch in (ZWSP, SHY):  # the invisible characters inside the names went with them
        assert ch not in out


def test_a_span_covers_the_invisible_character_inside_a_name(nlp: Pipeline) -> None:
    raw = f"Paciente: María Gar{ZWSP}cía López, 45 años."
    spans = nlp.detect_spans(Document("z", raw))
    name = next(s for s in spans if s.start <= raw.index("Gar") < s.end)
    assert name.start <= raw.index(ZWSP) < name.end
    assert ZWSP not in nlp.deidentify(Document("z", raw)).text


# --- the property: invisible characters never reduce what is replaced ----------------------------------------
BASE = [
    "Paciente: María García López, de 45 años, ingresa en el Hospital Clínico San Carlos el 3 de marzo de 2019.",
    "Se comenta con su hija Carmen Fernández (tel. 612 345 678) que vive en Zaragoza, calle Mayor 12.",
    "Remitido por el Dr. Antonio Ruiz Gil desde el Centro de Salud Delicias. NHC: 7654321.",
]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(base=st.sampled_from(BASE),
       inserts=st.lists(st.tuples(st.floats(0, 1), st.sampled_from(INVISIBLES)), min_size=1, max_size=6))
def test_inserting_invisible_characters_never_reduces_what_is_replaced(
        nlp: Pipeline, base: str, inserts: list[tuple[float, str]]) -> None:
    raw = base
    for where, ch in sorted(inserts, reverse=True):
        i = int(where * len(raw))
        raw = raw[:i] + ch + raw[i:]
    kept = [i for i, c in enumerate(raw) if c not in INVISIBLES]  # raw position of each base character
    assert "".join(raw[i] for i in kept) == base
    before = _covered(Document("b", base), nlp.detect_spans(Document("b", base)))
    spans = nlp.detect_spans(Document("r", raw))
    assert all(0 <= s.start < s.end <= len(raw) for s in spans)
    after = _covered(Document("r", raw), spans)
    assert before and {k for k, i in enumerate(kept) if i in after} >= before

