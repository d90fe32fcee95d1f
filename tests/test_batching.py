"""Batched detection (``Pipeline.pipe``, ``RulesDetector.pipe``) gives what one document at a time gives,
and the cue-word test that lets a recognizer skip a note never skips one where its regex matches."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinanon import io as cio
from clinanon.analysis import Analysis
from clinanon.config import Config
from clinanon.detect.base import BaseDetector
from clinanon.detect.engine import _top_branches, cue_words
from clinanon.detect.rules.addresses import _PLACE_CUES, PlaceContextRecognizer
from clinanon.detect.rules.detector import RulesDetector
from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.pipeline import Pipeline, _batches

NOTES = [
    Document(text="Paciente: Juan García López, 45 años. Vive en Tudela desde 2010. NHC: 1234567.", id="es1",
             meta={"lang": "es"}),
    Document(text="DR. ALBERTO RUIZ. PACIENTE DE 70 AÑOS, NATURAL DE SORIA.", id="es-caps", meta={"lang": "es"}),
    Document(text="Patiënt woont in Assen, geboren 3 januari 1950. BSN 111222333.", id="nl1", meta={"lang": "nl"}),
    Document(text="Mr. John Smith, 45-year-old, grew up in Oulu. MRN: 99887766.", id="en1", meta={"lang": "en"}),
    Document(text="", id="empty", meta={"lang": "es"}),
    Document(text="Herr Müller wohnt in Essen, geboren am 12.03.1961.", id="de1", meta={"lang": "de"}),
    Document(text="Hon bor i Lund sedan 2001, personnummer 19121212-1212.", id="sv1", meta={"lang": "sv"}),
]


def _analyses(docs: list[Document]) -> list[Analysis]:
    return [Analysis.of(d, "es") for d in docs]


def test_pipe_of_the_rules_equals_detect_per_document_across_languages_and_capitals() -> None:
    det = RulesDetector("es")
    one = [det.detect(d) for d in NOTES]
    assert det.pipe(_analyses(NOTES)) == one
    assert det.pipe(_analyses(list(reversed(NOTES)))) == list(reversed(one))
    assert det.pipe([]) == []
    assert any(one)  # the notes do hold PHI: the comparison is not between empty lists


@pytest.mark.parametrize("batch_size", [1, 2, 3, 32])
def test_pipe_equals_detect_and_deidentify_for_any_batch_size(batch_size: int) -> None:
    nlp = Pipeline(Config.from_dict({"language": "es", "detectors": {"use": ["rules"]}}))
    detected = [nlp.detect(d) for d in NOTES]
    assert list(nlp.pipe(NOTES, deidentify=False, batch_size=batch_size)) == detected
    redacted = [nlp.deidentify(d).text for d in NOTES]
    assert [r.text for r in nlp.pipe(NOTES, batch_size=batch_size)] == redacted
    assert sum(len(d.spans) for d in detected) > 5


def test_pipe_uses_the_batch_path_of_detectors_that_have_one() -> None:
    class Counting(BaseDetector):
        name = "counting"

        def __init__(self) -> None:
            self.batches: list[int] = []
            self.singles = 0

        def detect(self, analysis: Analysis) -> list[Span]:
            self.singles += 1
            return [Span(0, 1, "NAME", "counting", 1.0)] if analysis.text else []

        def pipe(self, analyses: list[Analysis]) -> list[list[Span]]:
            self.batches.append(len(analyses))
            return [self.detect(a) for a in analyses]

    det = Counting()
    nlp = Pipeline(Config(language="es"), detectors=[det])  # one-letter notes: no language to identify
    docs = [Document(text=f"x{i}", id=str(i)) for i in range(7)]
    out = list(nlp.pipe(docs, deidentify=False, batch_size=3))
    assert det.batches == [3, 3, 1]
    assert [len(d.spans) for d in out] == [1] * 7


def test_pipe_raises_for_the_failing_document_after_the_ones_before_it() -> None:
    class FailsOnBad:
        name = "fails"

        def detect(self, doc: Document) -> list[Span]:
            if doc.id == "bad":
                raise ValueError("document 'bad' cannot be read")
            return []

    nlp = Pipeline(Config(language="es"), detectors=[FailsOnBad()])  # one-letter notes
    docs = [Document(text="a", id="a"), Document(text="b", id="bad"), Document(text="c", id="c")]
    seen = []
    with pytest.raises(ValueError, match="'bad'"):
        for d in nlp.pipe(docs, deidentify=False, batch_size=8):
            seen.append(d.id)
    assert seen == ["a"]


def test_batches_respect_size_and_characters() -> None:
    docs = [Document(text="x" * n, id=str(i)) for i, n in enumerate([5, 5, 5, 20, 1, 1])]
    assert [[d.id for d in b] for b in _batches(docs, 2, 100)] == [["0", "1"], ["2", "3"], ["4", "5"]]
    assert [[d.id for d in b] for b in _batches(docs, 10, 12)] == [["0", "1"], ["2"], ["3"], ["4", "5"]]
    with pytest.raises(ConfigError, match="batch_size"):
        list(Pipeline(detectors=[]).pipe(docs, batch_size=0))


def test_meddocan_slice_pipe_equals_detect(meddocan_dir: Path) -> None:
    docs = list(cio.read(meddocan_dir / "dev" / "brat", "brat"))[:12]
    nlp = Pipeline(Config.from_dict({"language": "es", "label_scheme": "meddocan", "detectors": {"use": ["rules"]}}))
    one = [nlp.detect(d).spans for d in docs]
    assert [d.spans for d in nlp.pipe(docs, deidentify=False, batch_size=5)] == one
    assert sum(map(len, one)) > 50


# --- cue words ------------------------------------------------------------------------------------------

def test_top_branches_split_outside_groups_and_classes() -> None:
    assert _top_branches(r"a|(b|c)|[|x]|\|d|[]|]") == ["a", "(b|c)", "[|x]", r"\|d", "[]|]"]


def test_cue_words_list_the_first_words() -> None:
    cues = cue_words(r"(?:vive|resid[ií]a|nacid[oa])[ \t](?:en|de)|natural[ \t]de")
    assert cues is not None
    assert cues.words == {"vive", "residia", "nacido", "nacida", "natural"}
    assert cue_words(r"\w+[ \t]en") is None  # unbounded
    assert cue_words(r"covid19[ \t]en") is None  # a digit inside the word
    assert cue_words(r"[a-z]{3}[ \t]x") is None  # a class too wide to list
    for lang, cue in _PLACE_CUES.items():
        assert cue_words(cue) is not None, lang


_PIECES = ["vive", "VIVE", "Vive", "vivía", "VIVÍA", "re\u017fide", "re\u0131side", "reside", "e\u0301", "\u0301",
           "natural", "NATURAL", "x", "2", "_", " ", "\t", "\n", "en", "de", "Tudela", "-", ".", "á", "K", "\u212a"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))
def test_absent_cue_words_mean_no_match(text: str) -> None:
    cue = _PLACE_CUES["es"]
    rx = re.compile(rf"(?<![\w])(?i:{cue})")
    cues = cue_words(cue)
    assert cues is not None
    if cues.absent_from(text):
        assert rx.search(text) is None


def test_place_context_skips_notes_without_cues_and_finds_the_rest() -> None:
    r = PlaceContextRecognizer("es")
    assert r._cues is not None
    assert r._cues.absent_from("Sin antecedentes de interés.")
    assert [(s.start, s.end) for s in r.analyze("El paciente vive en Tudela.")] == [(20, 26)]
    # LONG S is a case variant of "s" for the regex engine: the word test folds it, the regex still runs
    assert not r._cues.absent_from("Paciente re\u017fide en Tudela")
    assert [(s.start, s.end) for s in r.analyze("Paciente re\u017fide en Tudela")] == [(19, 25)]
    # a combining mark ends a regex word but not a token: no skipping when the note has one
    assert not r._cues.absent_from("cafe\u0301vive en Tudela")


def test_default_pipeline_with_the_shipped_model_batches_to_the_same_spans() -> None:
    """The default Spanish pipeline (language dispatch -> ensemble of rules and the shipped CRF) and the rules
    of the other languages: the batch path gives the one-by-one spans, documents of mixed languages in order."""
    nlp = Pipeline(Config.from_dict({"language": "es"}))
    one = [nlp.detect(d) for d in NOTES]
    assert list(nlp.pipe(NOTES, deidentify=False, batch_size=4)) == one
    dispatch = nlp.detectors[0]
    assert dispatch.pipe(_analyses(NOTES)) == [dispatch.detect(d) for d in NOTES]
    assert any(d.spans for d in one)
