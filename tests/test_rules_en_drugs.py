"""English drug, brand and device words are no names or places (issue 16, brief en16c): the shipped lexicon
(``clinanon/data/lexicons/drugs/en.txt.xz``, ``scripts/build_drug_lexicon.py``), its loader and the guard of the
rules detector (:func:`clinanon.detect.allowlist.drug_guard`). Every sentence here is invented; the drug and device
words are generic clinical vocabulary, the person names are invented or common US names."""

from __future__ import annotations

import lzma
import time
from importlib import resources

import pytest

from _rules import rules_pipeline
from clinanon.detect.allowlist import drug_guard
from clinanon.document import Document, Span
from clinanon.lang.fold import fold
from clinanon.lang.lexicon import drug_words, is_drug_word
from clinanon.lang.wordlists import load_rows
from clinanon.pipeline import Pipeline


@pytest.fixture(scope="module")
def rules() -> Pipeline:
    return rules_pipeline("en", "hipaa")


def _covered(nlp: Pipeline, text: str, want: str, nth: int = 0) -> bool:
    """Whether any character of the ``nth`` occurrence of ``want`` is inside a predicted name or place."""
    out = next(iter(nlp.pipe([Document("t", text)], deidentify=False)))
    a = -1
    for _ in range(nth + 1):
        a = text.index(want, a + 1)
    return any(s.start < a + len(want) and a < s.end for s in out.spans
               if s.label.startswith(("NAME", "LOCATION")))


# --- the lexicon and its loader -----------------------------------------------------------------------------


def test_loader_reads_the_shipped_lexicon() -> None:
    words = drug_words("en")
    assert len(words) > 20_000
    assert drug_words("en") is words  # memoized
    for w in ("albuterol", "cozaar", "precedex", "keppra", "zosyn", "lopressor", "heparin", "levo", "vanc",
              "dilt", "coude", "allegra"):
        assert w in words, w
    assert is_drug_word("PRECEDEX", "en") and is_drug_word("Cozaar", "en")
    assert not is_drug_word("Mary", "en") and not is_drug_word("Boston", "en")
    assert drug_words("de") == frozenset()  # no German drug lexicon (yet): nothing is guarded there


def test_shipped_file_is_small_sorted_lower_case() -> None:
    path = resources.files("clinanon") / "data" / "lexicons" / "drugs" / "en.txt.xz"
    raw = path.read_bytes()
    assert len(raw) < 400_000
    lines = [w for w in lzma.decompress(raw).decode("utf-8").splitlines() if w and not w.startswith("#")]
    assert lines == sorted(lines) and all(w == w.lower() for w in lines)


def _census(kinds: str, share: float) -> set[str]:
    """Folded names of the 1990 US Census list of ``kinds`` (F, M, S) held by ``share`` percent or more."""
    path = resources.files("clinanon") / "data" / "gazetteers" / "en" / "name_frequency.txt"
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, kind, pct = line.split("\t")[:3]
        if kind in kinds and float(pct) >= share:
            out.add(fold(name))
    return out


def test_no_common_first_name_or_surname_is_a_drug_word() -> None:
    drugs = drug_words("en")
    listed = {fold(r[0]) for kind in ("first_name", "surname") for r in load_rows("en", kind)}
    common = _census("FMS", 0.005)
    assert len(common) > 2000  # the census list is there
    assert not (drugs & listed & common)
    assert not (drugs & common)
    for name in ("ted", "mary", "james", "john", "robert", "linda", "smith", "johnson", "grace", "rose"):
        assert name not in drugs, name


def test_no_place_of_the_lists_is_a_drug_word() -> None:
    drugs = drug_words("en")
    places = {fold(r[0]) for kind in ("city", "region", "country") for r in load_rows("en", kind) if " " not in r[0]}
    assert drugs & places <= {"levo", "dapto"}  # hand-written shorthand; villages in Italy and Slovakia


# --- the guard ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "word"), [
    ("Pt restarted on Cozaar this am, BP stable.", "Cozaar"),
    ("Albuterol nebs given x2 with good effect.", "Albuterol"),
    ("PRECEDEX WEANED OFF OVERNIGHT, PT CALM.", "PRECEDEX"),
    ("Remains on Levo at 0.08 mcg/kg/min.", "Levo"),
    ("LEVO GTT TITRATED DOWN TO OFF.", "LEVO"),
    ("Started Keppra 500 mg bid per neuro.", "Keppra"),
    ("Zosyn and Vanc continued, cultures pending.", "Zosyn"),
    ("HR 90s on Lopressor 25 po bid.", "Lopressor"),
    ("Coude catheter placed by urology.", "Coude"),
    ("Pt c/o itching, Allegra given with relief.", "Allegra"),
    ("ALLEGRA 60 MG PO GIVEN FOR ITCHING.", "ALLEGRA"),
    ("Dilt drip off, now on Lopressor po.", "Dilt"),
])
def test_drug_words_are_not_names_or_places(rules: Pipeline, text: str, word: str) -> None:
    assert not _covered(rules, text, word)


@pytest.mark.parametrize(("text", "word"), [
    ("Seen by Dr. Keppra this morning, plan discussed.", "Keppra"),  # a title: a surname, whatever the word
    ("SEEN BY DR KEPPRA, AWARE OF LABS.", "KEPPRA"),
    ("Spoke with wife Allegra, updated on plan.", "Allegra"),
    ("WIFE ALLEGRA IN TO VISIT, UPDATED BY RN.", "ALLEGRA"),
    ("Called Mrs. Cozaar at home.", "Cozaar"),
    ("Note written by Allegra Keppra, RN", "Keppra"),  # a signature: two drug words, still a name
    ("Allegra Tamborini visited with her brother.", "Tamborini"),  # a name beside the drug word
])
def test_a_person_cue_keeps_a_drug_word_as_a_name(rules: Pipeline, text: str, word: str) -> None:
    assert _covered(rules, text, word)


def test_guard_keeps_real_names_next_to_drugs(rules: Pipeline) -> None:
    text = "Mr. Brown tolerating Precedex; daughter Jennifer Okonkwo updated by phone."
    assert _covered(rules, text, "Brown")
    assert _covered(rules, text, "Jennifer")
    assert not _covered(rules, text, "Precedex")


def test_guard_only_touches_names_and_places() -> None:
    text = "Cozaar 50 mg given on Cozaar Street."
    spans = [Span(0, 6, "NAME", "x", 1.0), Span(0, 6, "OTHER", "x", 1.0), Span(22, 35, "LOCATION.STREET", "x", 1.0)]
    kept = drug_guard(text, spans, "en")
    assert Span(0, 6, "OTHER", "x", 1.0) in kept
    assert Span(0, 6, "NAME", "x", 1.0) not in kept
    assert Span(22, 35, "LOCATION.STREET", "x", 1.0) in kept  # "Street" is a place word of the lists
    assert drug_guard(text, spans, "de") == spans  # no German drug lexicon: untouched


def test_guard_time_budget() -> None:
    text = ("Precedex Cozaar Keppra, " * 20_000 + "\n") * 2
    spans = [Span(i, i + 8, "NAME", "x", 1.0) for i in range(0, len(text) - 8, 24)]
    t = time.perf_counter()
    drug_guard(text, spans, "en")
    assert time.perf_counter() - t < 5.0
