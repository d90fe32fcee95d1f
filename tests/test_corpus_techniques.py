"""Corpus techniques (clinanon.corpus): each does what it says, gold spans and labels follow (offsets on the new
text), the same seed gives the same output, another seed another output (stochastic ones); thesaurus files and the
MyThes / WordNet converters of scripts/build_thesauri.py. All notes here are invented."""

from __future__ import annotations

import gzip
import importlib.util
import random
import re
from collections import Counter
from pathlib import Path

import pytest

from clinanon import Document, Span
from clinanon.corpus import (
    Aggregation,
    ConceptReplacement,
    Deidentification,
    NumberMasking,
    SentenceShuffle,
    SynonymReplacement,
    WordSwap,
    make_technique,
    map_spans,
)
from clinanon.corpus.thesaurus import THESAURI_ENV, load_thesaurus, read_lexicon
from clinanon.document import Replacement, SanitizedDocument
from clinanon.errors import ConfigError
from clinanon.text import split_sentences, stop_words, tokenize

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[1]


def _doc(doc_id: str, text: str, marks: list[tuple[str, str]], **meta: object) -> Document:
    """A note with a gold span on the first occurrence of each marked string."""
    spans = []
    for s, label in marks:
        i = text.index(s)
        spans.append(Span(i, i + len(s), label))
    return Document(doc_id, text, tuple(spans), meta)


NOTES = [
    _doc("n1", "Paciente Juan Pérez García, de 62 años. Vive en Calle Mayor 19, Toledo. Ingresa el 3/4/2019 por "
               "dolor torácico agudo y fiebre alta. Se realiza electrocardiograma urgente. Tel. 612345678.",
         [("Juan Pérez García", "NOMBRE_SUJETO_ASISTENCIA"), ("62 años", "EDAD_SUJETO_ASISTENCIA"),
          ("Calle Mayor 19", "CALLE"), ("Toledo", "TERRITORIO"), ("3/4/2019", "FECHAS"),
          ("612345678", "NUMERO_TELEFONO")], label="cardio"),
    _doc("n2", "Mujer de 45 años remitida por la Dra. Ana López. Refiere tos persistente y fiebre nocturna. "
               "La radiografía muestra una condensación basal. Se pauta tratamiento antibiótico durante diez días.",
         [("45 años", "EDAD_SUJETO_ASISTENCIA"), ("Ana López", "NOMBRE_PERSONAL_SANITARIO")], label="pulmo"),
    # a span that crosses a sentence boundary (an address with a period inside)
    _doc("n3", "Domicilio: C/ Sol 4. Residencia Las Flores, Madrid. Antecedentes de asma bronquial. Sin alergias "
               "conocidas. Control en consulta el 12/05/2020.",
         [("C/ Sol 4. Residencia Las Flores", "CALLE"), ("Madrid", "TERRITORIO"), ("12/05/2020", "FECHAS")],
         label="pulmo"),
    _doc("n4", "Varón de 70 años con dolor torácico opresivo. Troponina elevada. Cateterismo con implante de "
               "stent. Evolución favorable, alta el 1/2/2018.",
         [("70 años", "EDAD_SUJETO_ASISTENCIA"), ("1/2/2018", "FECHAS")], label="cardio"),
]

LEXICON = {"dolor": ["sufrimiento", "daño"], "agudo": ["intenso"], "fiebre": ["calentura", "pirexia"],
           "tos": ["carraspera"], "persistente": ["continua"], "tratamiento": ["terapia"],
           "elevada": ["alta"], "favorable": ["buena"], "urgente": ["inmediato"], "alta": ["elevada"],
           "paciente": ["enfermo"], "juan": ["pedro"]}

MOVING = [
    {"technique": "sentence_shuffle", "fraction": 1.0},
    {"technique": "word_swap", "fraction": 0.5},
    {"technique": "word_swap", "fraction": 1.0},
    {"technique": "synonyms", "fraction": 0.5, "lexicon": LEXICON},
    {"technique": "concepts", "table": str(DATA / "concepts_tiny.tsv")},
]


def _span_texts(doc: Document) -> Counter[tuple[str, str]]:
    return Counter((doc.text[s.start:s.end], s.label) for s in doc.spans)


@pytest.mark.parametrize("spec", MOVING, ids=lambda s: f"{s['technique']}-{s.get('fraction', '')}")
def test_moving_techniques_keep_every_span_whole_with_its_label(spec: dict) -> None:
    tech = make_technique(spec)
    out = tech.transform(NOTES, random.Random(7))
    assert [d.id for d in out] == [d.id for d in NOTES]
    for before, after in zip(NOTES, out, strict=True):
        assert _span_texts(after) == _span_texts(before)  # same strings, same labels, on the new offsets
        assert dict(after.meta) == dict(before.meta)
    assert tech.stats.dropped_spans == 0
    assert tech.stats.changed >= 1


@pytest.mark.parametrize("spec", [*MOVING, {"technique": "aggregate", "size": 2}, {"technique": "number_mask"},
                                  {"technique": "deidentify", "operator": "surrogate", "scheme": "meddocan"}],
                         ids=lambda s: s["technique"])
def test_same_seed_same_output_and_order_does_not_matter(spec: dict) -> None:
    a = make_technique(spec).transform(NOTES, random.Random(3))
    b = make_technique(spec).transform(NOTES, random.Random(3))
    assert [(d.id, d.text, d.spans) for d in a] == [(d.id, d.text, d.spans) for d in b]
    if spec["technique"] != "aggregate":  # a note's output depends on the seed and the note only
        c = make_technique(spec).transform(list(reversed(NOTES)), random.Random(3))
        assert {d.id: (d.text, d.spans) for d in c} == {d.id: (d.text, d.spans) for d in a}


@pytest.mark.parametrize("spec", [s for s in MOVING if s["technique"] != "concepts"]
                         + [{"technique": "deidentify", "operator": "surrogate", "scheme": "meddocan"}],
                         ids=lambda s: s["technique"])
def test_another_seed_gives_another_output(spec: dict) -> None:
    tech = make_technique(spec)
    assert tech.stochastic
    a = [d.text for d in tech.transform(NOTES, random.Random(1))]
    b = [d.text for d in tech.transform(NOTES, random.Random(2))]
    assert a != b


def test_number_mask_replaces_every_digit_and_keeps_offsets() -> None:
    tech = NumberMasking()
    assert not tech.stochastic
    out = tech.transform(NOTES, random.Random(0))
    for before, after in zip(NOTES, out, strict=True):
        assert len(after.text) == len(before.text)
        assert not any(c.isdigit() for c in after.text)
        assert after.spans == before.spans
        assert re.sub(r"\d", "X", before.text) == after.text
    assert out[0].text[out[0].spans[-1].start:out[0].spans[-1].end] in {"X" * 9, "X/X/XXXX"}
    with pytest.raises(ConfigError):
        NumberMasking(char="XX")


def _sentences(doc: Document) -> list[str]:
    return [doc.text[s.start:s.end] for s in split_sentences(doc.text, "es")]


def test_sentence_shuffle_moves_whole_sentences_and_keeps_a_span_across_sentences_in_one_block() -> None:
    out = SentenceShuffle(fraction=1.0).transform(NOTES, random.Random(5))
    assert any(a.text != b.text for a, b in zip(NOTES, out, strict=True))
    for before, after in zip(NOTES, out, strict=True):
        assert all(sentence in after.text for sentence in _sentences(before))  # every sentence moved whole
        assert Counter(before.text) == Counter(after.text)  # a permutation of pieces: same characters
    n3 = next(d for d in out if d.id == "n3")
    assert "C/ Sol 4. Residencia Las Flores" in n3.text  # the two sentences it joins stayed together
    same = SentenceShuffle(fraction=0.0).transform(NOTES, random.Random(5))
    assert [d.text for d in same] == [d.text for d in NOTES]


def test_word_swap_permutes_words_within_sentences_and_keeps_punctuation_in_place() -> None:
    out = WordSwap(fraction=1.0).transform(NOTES, random.Random(11))
    for before, after in zip(NOTES, out, strict=True):
        assert Counter(_words(before.text)) == Counter(_words(after.text))
    assert out[0].text != NOTES[0].text
    # without spans every word is a unit: the punctuation and whitespace sequence stays the same, and each sentence
    # (same region: its slots and separators did not move) holds the same words
    bare = [d.with_spans(()) for d in NOTES]
    for before, after in zip(bare, WordSwap(fraction=1.0).transform(bare, random.Random(11)), strict=True):
        assert re.sub(r"\w", "", before.text) == re.sub(r"\w", "", after.text)
        for s in split_sentences(before.text, "es"):
            assert sorted(_words(before.text[s.start:s.end])) == sorted(_words(after.text[s.start:s.end]))
    assert [d.text for d in WordSwap(fraction=0.0).transform(NOTES, random.Random(11))] == [d.text for d in NOTES]
    with pytest.raises(ConfigError):
        WordSwap(fraction=1.5)


def _words(text: str) -> list[str]:
    return [text[t.start:t.end] for t in tokenize(text, "es")]


def test_synonyms_replace_the_asked_share_of_non_stop_words_outside_spans() -> None:
    tech = SynonymReplacement(fraction=1.0, lexicon=LEXICON)
    [before] = [NOTES[0]]
    [after] = tech.transform([before], random.Random(0))
    stops = stop_words("es")
    assert "Paciente" not in after.text  # capitalised word replaced in its case pattern
    assert after.text.startswith("Enfermo ")
    assert "Juan Pérez García" in after.text  # "juan" has a synonym but is inside a gold span
    assert "sufrimiento" in after.text or "daño" in after.text
    candidates = [before.text[t.start:t.end] for t in tokenize(before.text, "es")
                  if not any(s.start < t.end and t.start < s.end for s in before.spans)]
    candidates = [w for w in candidates if len(w) > 1 and w.isalpha() and w.lower() not in stops]
    assert tech.stats.eligible == len(candidates)
    in_lexicon = [w for w in candidates if w.lower() in LEXICON]
    assert tech.stats.extra["replaced"] == len(in_lexicon)  # fraction 1.0: every word that has a synonym
    half = SynonymReplacement(fraction=0.1, lexicon=LEXICON)
    [h] = half.transform([before], random.Random(0))
    assert half.stats.extra["replaced"] == min(round(0.1 * half.stats.eligible), 6)
    assert _span_texts(h) == _span_texts(before)
    for w in ("de", "el", "por", "y"):  # stop words never change
        assert _words(before.text).count(w) == _words(h.text).count(w)


def test_synonyms_from_a_user_lexicon_file_and_a_built_thesaurus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    lex = tmp_path / "mine.tsv"
    lex.write_text("# my own list\nDolor\tsufrimiento|daño\tpena\nfiebre\tcalentura\n", encoding="utf-8")
    assert read_lexicon(lex) == {"dolor": ("sufrimiento", "daño", "pena"), "fiebre": ("calentura",)}
    [out] = SynonymReplacement(fraction=1.0, thesaurus=lex).transform([NOTES[0]], random.Random(0))
    assert "dolor" not in out.text and "fiebre" not in out.text
    folder = tmp_path / "thesauri"
    folder.mkdir()
    with gzip.open(folder / "es.tsv.gz", "wt", encoding="utf-8") as fh:
        fh.write("tos\tcarraspera\n")
    monkeypatch.setenv(THESAURI_ENV, str(folder))
    assert load_thesaurus("es") == {"tos": ("carraspera",)}
    [out2] = make_technique({"technique": "synonyms", "fraction": 1.0}).transform([NOTES[1]], random.Random(0))
    assert "carraspera" in out2.text and " tos " not in out2.text
    monkeypatch.setenv(THESAURI_ENV, str(tmp_path / "none"))
    with pytest.raises(ConfigError, match="build_thesauri"):
        SynonymReplacement(thesaurus="sv")


def test_concepts_replace_terms_by_another_term_of_the_concept_outside_spans() -> None:
    tech = ConceptReplacement(table=DATA / "concepts_tiny.tsv")
    out = tech.transform(NOTES, random.Random(0))
    assert "dolor torácico" not in out[0].text
    assert "dolor en el pecho" in out[0].text or "angina" in out[0].text
    assert "fiebre" not in out[1].text and "pirexia" in out[1].text
    assert tech.stats.extra["replaced"] == tech.stats.eligible == 4  # 2 dolor torácico + 2 fiebre
    spanned = _doc("s", "Diagnóstico: fiebre. Remitido por Dr. Fiebre.", [("Fiebre", "NOMBRE_PERSONAL_SANITARIO")])
    [o] = ConceptReplacement(concepts={"C": ["fiebre", "pirexia"]}).transform([spanned], random.Random(0))
    assert o.text == "Diagnóstico: pirexia. Remitido por Dr. Fiebre."
    never = ConceptReplacement(table=DATA / "concepts_tiny.tsv", probability=0.0)
    assert [d.text for d in never.transform(NOTES, random.Random(0))] == [d.text for d in NOTES]


def test_aggregation_joins_notes_of_the_same_label_and_moves_their_spans() -> None:
    tech = Aggregation(size=2, label_field="label")
    out = tech.transform(NOTES, random.Random(0))
    assert len(out) == 2
    joined = sorted(i for d in out for i in d.meta["aggregated_from"])
    assert joined == ["n1", "n2", "n3", "n4"]
    by_id = {d.id: d for d in NOTES}
    for d in out:
        members = [by_id[i] for i in d.meta["aggregated_from"]]
        assert {m.meta["label"] for m in members} == {d.meta["label"]}
        assert d.text == "\n\n".join(m.text for m in members)
        assert _span_texts(d) == sum((_span_texts(m) for m in members), Counter())
    with pytest.raises(ConfigError, match="n9"):
        Aggregation(size=2).transform([Document("n9", "sin etiqueta")], random.Random(0))


@pytest.mark.parametrize("operator", ["tag", "redact", "surrogate"])
def test_deidentification_maps_gold_spans_onto_the_replacements(operator: str) -> None:
    tech = Deidentification(operator=operator, scheme="meddocan")
    out = tech.transform(NOTES, random.Random(0))
    for before, after in zip(NOTES, out, strict=True):
        assert [s.label for s in after.spans] == [s.label for s in before.spans]
        for s in after.spans:
            new = after.text[s.start:s.end]
            assert new.strip() == new and new
        if operator == "tag":
            assert all(after.text[s.start] == "[" and after.text[s.end - 1] == "]" for s in after.spans)
        if operator == "redact":
            assert all(after.text[s.start:s.end] == "XXXX" for s in after.spans)
    assert "Juan Pérez García" not in out[0].text
    assert tech.stats.dropped_spans == 0


def test_deidentification_through_the_pipeline_maps_gold_spans_through_its_detections() -> None:
    note = _doc("p1", "Paciente: Juan Pérez García. Teléfono 612345678. Dolor abdominal.",
                [("Juan Pérez García", "NOMBRE_SUJETO_ASISTENCIA"), ("612345678", "NUMERO_TELEFONO")])
    tech = Deidentification(operator="tag", spans="pipeline", detectors=["rules"], lang="es")
    assert tech.stochastic is False
    [out] = tech.transform([note], random.Random(0))
    assert "Juan" not in out.text and "612345678" not in out.text  # the rules found both
    assert [(out.text[s.start:s.end], s.label) for s in out.spans] == [
        ("[NAME]", "NOMBRE_SUJETO_ASISTENCIA"), ("[CONTACT.PHONE]", "NUMERO_TELEFONO")]
    assert out.text.endswith("Dolor abdominal.")


def test_map_spans_handles_partial_overlaps_and_suppressed_regions() -> None:
    # original "ab CDE fg HIJ" -> "ab [X] fg " : CDE replaced by [X], HIJ suppressed
    sd = SanitizedDocument("d", "ab [X] fg ", 13, (Replacement(3, 6, 3, 6, "A", "NAME", "tag"),
                                                   Replacement(10, 13, 10, 10, "B", "ID", "suppress")))
    spans = [Span(3, 6, "A"), Span(4, 6, "A2"), Span(0, 4, "C"), Span(10, 13, "B"), Span(7, 9, "D")]
    got = {s.label: (s.start, s.end) for s in map_spans(sd, spans)}
    assert got == {"A": (3, 6), "A2": (3, 6), "C": (0, 6), "D": (7, 9)}  # B was suppressed: dropped


def test_make_technique_rejects_unknown_names_and_parameters() -> None:
    with pytest.raises(ConfigError, match="unknown corpus technique"):
        make_technique({"technique": "nope"})
    with pytest.raises(ConfigError, match="word_swap"):
        make_technique({"technique": "word_swap", "fractoin": 0.3})
    assert "Juan" not in repr(make_technique("number_mask"))


def _script():
    spec = importlib.util.spec_from_file_location("build_thesauri", ROOT / "scripts" / "build_thesauri.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_build_thesauri_reads_mythes_and_wordnet_formats(tmp_path: Path) -> None:
    mod = _script()
    dat = tmp_path / "th_xx.dat"
    dat.write_bytes("ISO8859-1\ndolor|2\n-|daño|sufrimiento (término relacionado)\n-|pena|daño\n"
                    "a gusto|1\n-|cómodo\n".encode("latin-1"))
    assert mod.read_mythes(dat, 12) == {"dolor": ["daño", "sufrimiento", "pena"], "a gusto": ["cómodo"]}
    wn = tmp_path / "wn"
    wn.mkdir()
    for pos in ("noun", "verb", "adj", "adv"):
        (wn / f"data.{pos}").write_text("  1 This software and database is being provided\n", encoding="latin-1")
    (wn / "data.noun").write_text("  1 licence\n00001740 03 n 02 chest_pain 0 thoracic_pain 0 000 | gloss\n",
                                  encoding="latin-1")
    assert mod.read_wordnet(wn, 12) == {"chest pain": ["thoracic pain"], "thoracic pain": ["chest pain"]}
    out = tmp_path / "es.tsv.gz"
    mod.write({"dolor": ["daño"]}, out, ["x"])
    first = out.read_bytes()
    mod.write({"dolor": ["daño"]}, out, ["x"])
    assert out.read_bytes() == first  # reproducible bytes
    assert read_lexicon(out) == {"dolor": ("daño",)}
