"""English gazetteer: the US Census name-frequency list (``gazetteers/en/name_frequency.txt``) and the rule that a
bare listed name in capitals, or one that is also a common word, needs name context or must be a specific name.

Every text here is written for the test (no string comes from a corpus)."""

from __future__ import annotations

import pytest

from clinanon.detect.gazetteer import GazetteerDetector, census_names, name_frequency
from clinanon.lang.lexicon import common_lexicon
from clinanon.lang.wordlists import data_dir


def _names(text: str) -> list[str]:
    g = GazetteerDetector("en")
    return sorted({text[s.start:s.end] for s in g.analyze(text) if s.label == "NAME"})


def test_census_frequency_list_ships_with_its_source() -> None:
    path = data_dir("en") / "name_frequency.txt"
    head = path.read_text(encoding="utf-8").splitlines()[0]
    assert "1990 US Census" in head and "build_name_frequency.py" in head
    freq = name_frequency("en")
    assert len(freq) > 15000
    first, sur = freq["jennifer"]
    assert first > 0.5 and sur == 0.0  # one of the most frequent female first names
    assert freq["kowalski"][1] > 0.0
    assert "kowalski" in census_names("en")[1] and "jennifer" in census_names("en")[0]


def test_census_list_holds_no_common_word() -> None:
    lex = common_lexicon("en")
    freq = name_frequency("en")
    assert not [k for k in freq if k in lex]
    for word in ("young", "will", "rose", "hope", "white"):
        assert word not in freq


def test_name_frequency_is_empty_for_other_languages() -> None:
    assert name_frequency("es") == {}


@pytest.mark.parametrize("text", [
    "PT MAE WELL. LE EDEMA NOTED.",        # "MAE" (moves all extremities), "LE" (lower extremity)
    "GRACE PERIOD FOR LABS, WILL RECHECK.",  # a first name that is also a word, in capitals
    "Will call back with results.",         # a Title-case common word at a sentence's start
    "Pt stable. Aline in place.",           # an arterial line at a sentence's start, not the name Aline
])
def test_bare_names_without_context_are_dropped(text: str) -> None:
    assert _names(text) == []


@pytest.mark.parametrize(("text", "name"), [
    ("SPOKE WITH DOUGLAS ABOUT THE PLAN.", "DOUGLAS"),   # a talking verb before it
    ("SEEN BY JENNIFER THIS AM.", "JENNIFER"),            # frequent as a first name, not a word
    ("JENNIFER AT BEDSIDE.", "JENNIFER"),                 # specific enough alone
    ("Mrs. Aaltonen visited.", "Aaltonen"),               # mixed case, not a common word: as before
    ("NURSE AALTONEN AT BEDSIDE.", "AALTONEN"),           # a listed surname that is rare in the US: a role
    ("WIFE - AALTONEN, RN", "AALTONEN"),                  # a credential after it
])
def test_names_with_context_or_specific_are_kept(text: str, name: str) -> None:
    assert name in _names(text)


def test_rare_listed_name_in_capitals_needs_context() -> None:
    assert _names("AALTONEN AT BEDSIDE.") == []  # listed, but not frequent in the Census: no context, no name


def test_title_case_inside_a_sentence_is_a_name() -> None:
    # mixed-case text: a capital inside a sentence is evidence even for a name that a lexicon also lists
    assert "Alma" in _names("Kevin had given Alma his address.")


def test_loose_capitals_of_a_note_are_no_evidence() -> None:
    # a note that capitalises ordinary words inside its sentences: a capital is no sign of a name there
    note = "Neo weaned, Levo cont at .5 and Lasix given. L radial Aline in place, flushes well."
    assert "Aline" not in _names(note)


def test_a_common_word_next_to_a_name_is_no_name() -> None:
    # "SON" is a listed first name; next to "ROBERT" it is still the kinship word
    assert _names("WILL CALL SON ROBERT TONIGHT.") == ["ROBERT"]


def test_hospital_name_without_its_generic_head() -> None:
    g = GazetteerDetector("en")
    text = "pt was in St Mary hospital for a week"
    spans = [text[s.start:s.end] for s in g.analyze(text) if s.source.endswith("hospital_pattern")]
    assert spans == ["St Mary"]
    caps = "TRANSFERRED FROM VAMC HOSPITAL FOR CATH"
    spans = [caps[s.start:s.end] for s in g.analyze(caps) if s.source.endswith("hospital_pattern")]
    assert spans == ["VAMC"]  # not "HOSPITAL FOR": common words after the head are no name
