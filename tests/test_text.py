"""Tokens and sentences (clinanon.text): hand-made examples in en/es/nl/sv/de and hypothesis properties."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinanon.errors import ConfigError
from clinanon.text import (
    IGNORABLE_CHARS,
    SUPPORTED_LANGUAGES,
    Sentence,
    TextView,
    Token,
    check_language,
    split_sentences,
    to_spacy_doc,
    tokenize,
)


def words(text: str, lang: str = "es") -> list[str]:
    return [text[t.start:t.end] for t in tokenize(text, lang)]


def sents(text: str, lang: str = "es", **kw: bool) -> list[str]:
    return [text[s.start:s.end] for s in split_sentences(text, lang, **kw)]


# --- tokens -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("25yo", ["25", "yo"]),
    ("70años", ["70", "años"]),
    ("Sexo: H.", ["Sexo", ":", "H", "."]),
    ("CP:28029", ["CP", ":", "28029"]),
    ("Edad:62", ["Edad", ":", "62"]),
    ("nhc-150679", ["nhc", "-", "150679"]),
    ("C/ Mayor 11A.", ["C", "/", "Mayor", "11", "A", "."]),
    ("j.doe@x.org", ["j", ".", "doe", "@", "x", ".", "org"]),
    ("12/03/2005 1,5 mg", ["12", "/", "03", "/", "2005", "1", ",", "5", "mg"]),
    ("MartínezNºCol: 28", ["Martínez", "NºCol", ":", "28"]),       # glued words split
    ("DRAlberto", ["DR", "Alberto"]),
    ("120 mmHg, IgG, pH, mEq, UCIs", ["120", "mmHg", ",", "IgG", ",", "pH", ",", "mEq", ",", "UCIs"]),
    ("-----\n___ +++ ... ))", ["-----", "___", "+++", ".", ".", ".", ")", ")"]),
    ("Jose\u0301 Gar\u00adcía", ["Jose\u0301", "Gar", "cía"]),       # combining mark kept; soft hyphen separates
    ("\ufeffNombre:\u200bAna", ["Nombre", ":", "Ana"]),
    ("a_b", ["a", "_", "b"]),
    ("", []),
    (" \n\t ", []),
])
def test_tokens_es(text: str, expected: list[str]) -> None:
    assert words(text) == expected


def test_tokens_other_languages() -> None:
    assert words("Pt is a 25yo male, MRN: 123-45.", "en") == \
        ["Pt", "is", "a", "25", "yo", "male", ",", "MRN", ":", "123", "-", "45", "."]
    assert words("Dhr. Jansen (70jr) op 3-4-2019.", "nl") == \
        ["Dhr", ".", "Jansen", "(", "70", "jr", ")", "op", "3", "-", "4", "-", "2019", "."]
    assert words("Pat. 45år, inlagd 2019-03-04.", "sv") == \
        ["Pat", ".", "45", "år", ",", "inlagd", "2019", "-", "03", "-", "04", "."]
    assert words("Hr. Müller (geb. 01.02.1950), 70J.", "de") == \
        ["Hr", ".", "Müller", "(", "geb", ".", "01", ".", "02", ".", "1950", ")", ",", "70", "J", "."]


def test_token_offsets_are_on_the_original_text() -> None:
    text = "Edad:62 años"
    assert tokenize(text) == [Token(0, 4), Token(4, 5), Token(5, 7), Token(8, 12)]


def test_languages() -> None:
    assert SUPPORTED_LANGUAGES == ("en", "es", "nl", "sv", "de")
    assert [check_language(x) for x in ("es", "ES", "es-ES", "sv_SE", "de")] == ["es", "es", "es", "sv", "de"]
    for bad in ("fr", "", "xx-es"):
        with pytest.raises(ConfigError, match="supported: en, es, nl, sv, de"):
            tokenize("hola", bad)
    with pytest.raises(ConfigError):
        split_sentences("hola", "pt")
    with pytest.raises(ConfigError):
        TextView("hola", "it")


# --- sentences --------------------------------------------------------------------------------------------------

def test_sentences_es_form_and_prose() -> None:
    text = ("Nombre: Ana.\nApellidos: García López\nSexo: H.\n\nInforme: El Dr. García la vio el 12.03.2005 a las "
            "10.30 h. La Sra. Pérez, p. ej. Nada. Nº 5 de la calle. Vive en C/ Mayor 11A. Fin de 2005. ¿Dolor? No.")
    assert sents(text) == [
        "Nombre: Ana.", "Apellidos: García López", "Sexo: H.",
        "Informe: El Dr. García la vio el 12.03.2005 a las 10.30 h. La Sra. Pérez, p. ej. Nada.",
        "Nº 5 de la calle.", "Vive en C/ Mayor 11A. Fin de 2005.", "¿Dolor?", "No.",
    ]


def test_bullets_numbered_items_and_blank_lines() -> None:
    text = "Antecedentes:\n- HTA\n* DM2\n• EPOC\n· asma\n\n1. Ingreso.\n2) Alta.\na) Control.\nIV. Fin"
    expected = ["Antecedentes:", "- HTA", "* DM2", "• EPOC", "· asma", "1. Ingreso.", "2) Alta.", "a) Control.",
                "IV. Fin"]
    assert sents(text) == expected
    # the same with newlines inside paragraphs ignored: bullets and items still start sentences
    assert sents(text, newline_ends_sentence=False) == expected
    assert sents("1. Paciente varón. 2) Otra cosa") == ["1. Paciente varón.", "2) Otra cosa"]


def test_newline_inside_paragraph() -> None:
    text = "Line one\nline two\n\nPara two. Next\n- bullet\r\n\r\nlast"
    assert sents(text, "en") == ["Line one", "line two", "Para two.", "Next", "- bullet", "last"]
    assert sents(text, "en", newline_ends_sentence=False) == \
        ["Line one\nline two", "Para two.", "Next", "- bullet", "last"]


@pytest.mark.parametrize(("lang", "text", "expected"), [
    ("en", "Dr. Smith saw him on 12/03/2005, i.e. Monday. No. 5 was sent to j.doe@x.org. He left.",
     ["Dr. Smith saw him on 12/03/2005, i.e. Monday.", "No. 5 was sent to j.doe@x.org.", "He left."]),
    ("es", "Dr. García atiende. La Dra. Ruiz y el Sr. Gómez no. Dña. Ana vino.",
     ["Dr. García atiende.", "La Dra. Ruiz y el Sr. Gómez no.", "Dña. Ana vino."]),
    ("nl", "Dhr. Jansen is opgenomen op 3-4-2019. Mevr. de Vries belde. Hij is 81 jaar.",
     ["Dhr. Jansen is opgenomen op 3-4-2019.", "Mevr. de Vries belde.", "Hij is 81 jaar."]),
    ("sv", "Pat. Berg inlagd 2019-03-04. Dr. Lind ringde, t.ex. Anna. Hon mår bra!",
     ["Pat. Berg inlagd 2019-03-04.", "Dr. Lind ringde, t.ex. Anna.", "Hon mår bra!"]),
    ("de", "Am 3. Mai kam Hr. Müller (geb. 01.02.1950) zu Dr. med. Weber. Er war 70 J. alt. Fertig.",
     ["Am 3. Mai kam Hr. Müller (geb. 01.02.1950) zu Dr. med. Weber.", "Er war 70 J. alt.", "Fertig."]),
])
def test_sentences_by_language(lang: str, text: str, expected: list[str]) -> None:
    assert sents(text, lang) == expected


def test_addresses_stay_in_one_sentence() -> None:
    text = ("Remitido por: Dra. Ruiz C/. Dalí, 14 Ctra. Málaga, km. 12.500 Avda. de la Paz 19. 4 Izq. EE. UU. Vale.\n"
            "Domicilio: Calle Mayor 63. 1A.")
    assert sents(text) == [text.split("\n")[0], text.split("\n")[1]]


def test_sentence_end_needs_upper_case_digit_or_opener() -> None:
    assert sents("dosis 1 mg. luego bien. Otra") == ["dosis 1 mg. luego bien.", "Otra"]
    assert sents('Dijo "basta." Luego (Ver nota.) Sigue') == ['Dijo "basta."', "Luego (Ver nota.)", "Sigue"]
    assert sents("¡Hola! ¿Qué tal? 3 veces.") == ["¡Hola!", "¿Qué tal?", "3 veces."]
    assert sents("Espera... Sigue") == ["Espera...", "Sigue"]


def test_sentences_are_stripped_and_empty_text() -> None:
    assert split_sentences("") == []
    assert split_sentences("  \n ") == []
    assert split_sentences("  Hola.  \n\n ") == [Sentence(2, 7)]
    assert split_sentences("\ufeffHola") == [Sentence(1, 5)]


# --- TextView and spaCy ------------------------------------------------------------------------------------------

SENTS = "Vive en Madrid. Tiene 45 años. Sin alergias."


def test_text_view() -> None:
    v = TextView(SENTS, "ES")
    assert v.lang == "es"
    assert v.tokens is v.tokens and v.sentences is v.sentences
    assert v.tokens == tokenize(SENTS) and v.sentences == split_sentences(SENTS)
    assert [(s.start, s.end) for s in v.sentences] == [(0, 15), (16, 30), (31, 44)]
    assert v.token_text(2) == "Madrid"
    assert [v.sentence_of_token(i) for i in range(len(v.tokens))] == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2]
    assert v.sentence_of_token(-1) == 2
    assert [v.sentence_tokens(k) for k in range(3)] == [(0, 4), (4, 8), (8, 11)]
    assert v.token_range(8, 14) == (2, 3)      # exactly "Madrid"
    assert v.token_range(9, 17) == (2, 5)      # "adrid. T" overlaps Madrid . Tiene
    assert v.token_range(15, 16) == (4, 4)     # whitespace only
    assert v.token_at(8) == 2 and v.token_at(15) is None and v.token_at(99) is None
    with pytest.raises(IndexError):
        v.sentence_of_token(11)
    assert "Madrid" not in repr(v)


def test_to_spacy_doc_keeps_text_and_our_tokens() -> None:
    text = " \ufeffNombre:  Ana\n\nCP:28029. "
    doc = to_spacy_doc(text, "es")
    assert doc.text == text
    for t in tokenize(text):
        span = doc.char_span(t.start, t.end)
        assert span is not None and len(span) == 1
    assert [t.text for t in doc if not t.is_space and t.text.strip(IGNORABLE_CHARS + " ")] == \
        words(text)


# --- adversarial input: linear time --------------------------------------------------------------------------------

ADVERSARIAL = {
    "dashes": "-" * 100_000, "periods": "." * 100_000, "spaces": " " * 100_000 + "a", "caps": "García " * 20_000,
    "glued": "abcDef" * 20_000, "dr": "Dr. " * 25_000, "items": "\n1. A" * 20_000, "digits": "1" * 100_000,
    "period_spaces": ". " + " " * 100_000 + "A",
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_inputs_are_fast(name: str) -> None:
    text = ADVERSARIAL[name]
    t0 = time.process_time()
    tokens = tokenize(text)
    sentences = split_sentences(text)
    assert time.process_time() - t0 < 2.0  # linear: ~0.1 s here
    assert tokens and sentences


# --- properties -------------------------------------------------------------------------------------------------

ALPHABET = st.sampled_from([*"aZñÁß0189 .,:;-/()@_'\"?!¿¡…•*\n\r\t", "\u0301", "\ufeff", "\u200b", "\u00ad", "\xa0",
                            "º", "²", "A", "b", "C", "d", "e", "\u2028", "\x0c"])
TEXTS = st.one_of(st.text(ALPHABET, max_size=80), st.text(max_size=60))
LANGS = st.sampled_from(SUPPORTED_LANGUAGES)


@settings(max_examples=300, deadline=None)
@given(TEXTS, LANGS)
def test_token_properties(text: str, lang: str) -> None:
    tokens = tokenize(text, lang)
    covered = [False] * len(text)
    prev_end = 0
    for t in tokens:
        assert prev_end <= t.start < t.end <= len(text)
        piece = text[t.start:t.end]
        assert not any(c.isspace() or c in IGNORABLE_CHARS for c in piece)
        for k in range(t.start, t.end):
            covered[k] = True
        prev_end = t.end
    for k, c in enumerate(text):
        assert covered[k] == (not c.isspace() and c not in IGNORABLE_CHARS)


@settings(max_examples=300, deadline=None)
@given(TEXTS, LANGS, st.booleans())
def test_sentence_properties(text: str, lang: str, newline: bool) -> None:
    tokens = tokenize(text, lang)
    sentences = split_sentences(text, lang, newline_ends_sentence=newline)
    starts = {t.start for t in tokens}
    ends = {t.end for t in tokens}
    prev_end = 0
    for s in sentences:
        assert prev_end <= s.start < s.end and s.start in starts and s.end in ends
        prev_end = s.end
    # every token is in exactly one sentence
    k = 0
    for t in tokens:
        while sentences[k].end < t.end:
            k += 1
        assert sentences[k].start <= t.start and t.end <= sentences[k].end
    assert bool(tokens) == bool(sentences)
    view = TextView(text, lang, newline_ends_sentence=newline)
    for i, t in enumerate(view.tokens):
        s = view.sentences[view.sentence_of_token(i)]
        assert s.start <= t.start and t.end <= s.end


def test_stop_words_read_without_importing_spacy() -> None:
    """The rules use spaCy's stop-word lists but never import spaCy (it pulls in thinc and, if installed, torch)."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from clinanon.config import Config\n"
            "from clinanon.pipeline import Pipeline\n"
            "from clinanon.document import Document\n"
            "from clinanon.text import stop_words\n"
            "assert 'y' in stop_words('es') and 'the' in stop_words('en') and 'und' in stop_words('de')\n"
            "for lang in ('es', 'en', 'nl', 'sv', 'de'):\n"
            "    Pipeline(Config.from_dict({'language': lang, 'detectors': {'use': ['rules']}})).detect(\n"
            "        Document(text='PACIENTE JUAN GARCIA. Juan vive en Madrid.', id='x'))\n"
            "print('spacy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
    import spacy.lang.es.stop_words as es_stop

    from clinanon.text import stop_words

    assert stop_words("es") == frozenset(es_stop.STOP_WORDS)
