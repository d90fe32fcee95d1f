"""Date / time rules (clinanon.detect.rules.dates) and the month lexicon (clinanon.detect.rules.lexicon)."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinanon.detect.base import Detector
from clinanon.detect.rules import dates
from clinanon.detect.rules.dates import Context, RulePattern, RuleRecognizer
from clinanon.detect.rules.lexicon import (
    fold,
    month_forms,
    month_number,
    month_regex,
    trie_regex,
    weekday_forms,
)
from clinanon.document import Document, Span
from conftest import exact_label_scores

LANGS = ("en", "es", "nl", "sv", "de")


def found(lang: str, text: str, *, times: bool = True) -> list[str]:
    return [text[s.start:s.end] for r in dates.recognizers(lang, times=times) for s in r.analyze(text)]


# --------------------------------------------------------------------------------------------- lexicon


def test_month_forms_come_from_cldr() -> None:
    es = month_forms("es")
    assert es["enero"] == 1 and es["ene"] == 1 and es["sept"] == 9 and es["sep"] == 9 and es["diciembre"] == 12
    assert month_forms("de")["märz"] == 3 and month_forms("de")["marz"] == 3  # accent-folded variant
    assert month_forms("nl")["mrt"] == 3 and "maa" not in month_forms("nl")  # no invented prefixes
    assert month_forms("sv")["maj"] == 5 and month_forms("en")["sept"] == 9  # en_GB abbreviation
    assert all(1 <= n <= 12 for lang in LANGS for n in month_forms(lang).values())
    assert weekday_forms("es")["miércoles"] == 3 and weekday_forms("de")["sonntag"] == 7
    assert "ma" not in weekday_forms("nl", abbreviated=True)  # 2-letter abbreviations are ordinary words


def test_month_number_and_fold() -> None:
    assert month_number("Sept.", "en") == 9
    assert month_number("MÄRZ", "de") == 3
    assert month_number("Marz", "de") == 3
    assert month_number("foo", "es") is None
    assert fold("Març") == "marc" and fold("Straße") == "strasse"


def test_unknown_language_is_an_error() -> None:
    with pytest.raises(ValueError, match="unsupported language"):
        month_forms("fr")
    with pytest.raises(ValueError, match="unsupported language"):
        dates.recognizers("fr")


def test_month_regex_dot_only_after_abbreviations() -> None:
    rx = re.compile(r"\b" + month_regex("es"), re.IGNORECASE)
    assert [m.group() for m in rx.finditer("agosto. ene. Sept diciembre")] == ["agosto", "ene.", "Sept", "diciembre"]


@settings(max_examples=60, deadline=None)
@given(st.sets(st.text(alphabet="abcdeñé", min_size=1, max_size=6), min_size=1, max_size=12))
def test_trie_regex_matches_exactly_its_words(words: set[str]) -> None:
    rx = re.compile(trie_regex(words))
    for w in words:
        assert rx.fullmatch(w)
    for w in ("zz", "q", *(w + "z" for w in words)):
        assert (rx.fullmatch(w) is not None) == (w in words)


# --------------------------------------------------------------------------------------------- positives


@pytest.mark.parametrize(("lang", "text", "expected"), [
    ("es", "Fecha de Ingreso: 12/12/2016.", ["12/12/2016"]),
    ("es", "el 12 de diciembre de 2016 ingresa", ["12 de diciembre de 2016"]),
    ("es", "en marzo de 2016 y en febrero y abril de 2016", ["marzo de 2016", "febrero y abril de 2016"]),
    ("es", "el 12 de marzo acude", ["12 de marzo"]),
    ("es", "enero de 2016, 13-abril-2017, diciembre-17, sep-17", ["enero de 2016", "13-abril-2017", "diciembre-17",
                                                                 "sep-17"]),
    ("es", "intervenido en 2015 (2014) desde 1983", ["2015", "2014", "1983"]),
    ("es", "en el año 2012 y en junio", ["año 2012", "junio"]),
    ("es", "12-3-17 y 05/25/2008", ["12-3-17", "05/25/2008"]),
    ("en", "admitted on March 3, 2019 and 3rd of March 2019", ["March 3, 2019", "3rd of March 2019"]),
    ("en", "seen in March 2019, on 3 Jan. and since 2019", ["March 2019", "3 Jan.", "2019"]),
    ("en", "DOB 12/31/1950", ["12/31/1950"]),
    ("en", "Admitted 2019-01-03T14:30:00Z", ["2019-01-03T14:30:00Z"]),
    ("de", "am 15. März 2019 und 03.01.2012, im Jahr 2019", ["15. März 2019", "03.01.2012", "2019"]),
    ("de", "März 2019", ["März 2019"]),
    ("nl", "op 3 januari 2019 en in maart 2018", ["3 januari 2019", "maart 2018"]),
    ("nl", "opname 3-1-2019", ["3-1-2019"]),
    ("sv", "den 3 januari 2019, 3 januari och 2019-01-03", ["3 januari 2019", "3 januari", "2019-01-03"]),
    ("sv", "i mars 2018", ["mars 2018"]),
])
def test_dates_found(lang: str, text: str, expected: list[str]) -> None:
    assert found(lang, text, times=False) == expected


@pytest.mark.parametrize(("lang", "text", "expected"), [
    ("es", "A las 16:00 h se da de alta", ["16:00 h"]),
    ("es", "a las 9:20 a.m. realiza", ["9:20 a.m."]),
    ("en", "seen at 2:30 pm and 14:30", ["2:30 pm", "14:30"]),
    ("de", "um 14:30 Uhr, gegen 14 Uhr", ["14:30 Uhr", "14 Uhr"]),
    ("nl", "om 14.30 uur", ["14.30 uur"]),
    ("sv", "kl. 14.30", ["14.30"]),
])
def test_times_found(lang: str, text: str, expected: list[str]) -> None:
    times = [r for r in dates.recognizers(lang) if r.name == "time"]
    assert [text[s.start:s.end] for r in times for s in r.analyze(text)] == expected


# --------------------------------------------------------------------------------------------- negatives


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("text", [
    "2.5 mg", "1/2 comprimido", "120/80 mmHg", "3-4 veces", "grado I/IV", "ECOG 1", "T4 N0 M0", "version 2.10.1",
    "v1.2.3", "COVID-19", "tel 91-234-5678", "+34 912 345 678", "555-123-4567", "IgG 1:40 e IgM 1:32",
    "2000 mg", "1500 ml", "1/1/1/1/1", "1.2.3.4", "192.168.1.10", "12.3.2019.4", "cada 24 h", "48 horas",
    "dilución 1/1000", "ratio 3:1", "NHC 2016", "12-12-1234567",
])
def test_non_dates(lang: str, text: str) -> None:
    assert found(lang, text) == []


def test_english_may_needs_a_capital() -> None:
    assert found("en", "you may 3 times") == []
    assert found("en", "on May 3") == ["May 3"]


def test_place_named_after_a_date_is_not_a_date() -> None:
    assert found("es", "Hospital Universitario 12 de Octubre, Madrid") == []


# --------------------------------------------------------------------------------------------- engine


def test_recognizers_are_detectors_with_named_sources() -> None:
    recs = dates.recognizers("es")
    assert [r.name for r in recs] == ["date", "time"]
    assert all(isinstance(r, Detector) for r in recs)
    doc = Document("d1", "Ingreso el 12/03/2016 a las 14:30 h.")
    spans = [s for r in recs for s in r.detect(doc)]
    assert spans == [Span(11, 21, "DATE", "date:numeric_dmy", 1.0), Span(28, 35, "DATE", "time:time_suffix", 1.0)]
    assert dates.recognizers("es", times=False) == recs[:1]
    assert dates.recognizers("es")[0] is recs[0]  # cached, built once


def test_each_pattern_is_testable_alone() -> None:
    rec = dates.recognizers("es")[0]
    only = rec.only("month_year")
    assert [p.name for p in only.patterns] == ["month_year"]
    text = "12 de marzo de 2016"
    assert [(s.start, s.end) for s in only.analyze(text)] == [(6, 19)]  # "marzo de 2016" alone
    assert [(s.start, s.end) for s in rec.analyze(text)] == [(0, 19)]  # the full date wins in the family
    with pytest.raises(KeyError):
        rec.pattern("nope")
    names = [p.name for p in dates.date_patterns("en")]
    assert len(names) == len(set(names)) and "month_day_year" in names
    assert "month_day_year" not in [p.name for p in dates.date_patterns("es")]


def test_context_raises_and_lowers_scores() -> None:
    year = dates.recognizers("es", min_score=0.0)[0].only("year")
    assert [s.score for s in year.analyze("en 2015")] == [0.75]
    assert [s.score for s in year.analyze("valor 2015 sin más")] == [0.35]
    assert [s.score for s in year.analyze("valor 2015 mg")] == [0.0]  # 0.35 - 0.8, clamped
    assert [s.score for s in year.analyze("(2015)")] == [0.75]
    assert [s.score for s in year.analyze("entre 2000 y 2004")] == [1.0, 1.0]  # context word + neighbour year
    assert [s.score for s in year.analyze("los 2000 y 2004")] == [0.75, 1.0]
    default = dates.recognizers("es")[0]
    assert default.analyze("valor 2015 sin más") == []  # below the default threshold 0.5


def test_context_and_custom_recognizer() -> None:
    ctx = Context.of(before=["on"], neg_after=["mg"], after_rx=r"\s?utc\b", boost=0.2, penalty=0.5)
    p = RulePattern("hhmm", r"\b\d\d:\d\d\b", score=0.5, context=ctx)
    rec = RuleRecognizer("clock", "DATE", [p], min_score=0.0)
    assert [s.score for s in rec.analyze("on 12:30 UTC")] == [0.9]
    assert [s.score for s in rec.analyze("12:30 mg")] == [0.0]
    assert repr(rec) == "RuleRecognizer(name='clock', label='DATE', patterns=1)"
    with pytest.raises(ValueError, match="named groups"):
        RuleRecognizer("x", "DATE", [RulePattern("n", r"(?P<a>\d)")])
    with pytest.raises(ValueError, match="no patterns"):
        RuleRecognizer("x", "DATE", [])


def test_spans_never_overlap_within_a_family_and_are_sorted() -> None:
    text = "12/03/2016 12 de marzo de 2016 marzo de 2016 2016 en 2016"
    spans = dates.recognizers("es")[0].analyze(text)
    assert spans == sorted(spans)
    assert all(a.end <= b.start for a, b in itertools.pairwise(spans))


def test_weekdays_score_low_unless_announced() -> None:
    rec = dates.recognizers("en", min_score=0.0)[0].only("weekday")
    assert [s.score for s in rec.analyze("last Sunday")] == [0.4]
    assert [s.score for s in rec.analyze("date Sunday")] == [0.6]


# --------------------------------------------------------------------------------------------- MEDDOCAN dev


def test_meddocan_dev_fechas(meddocan_dir) -> None:  # type: ignore[no-untyped-def]
    """Exact-match precision and recall of the rules for FECHAS on MEDDOCAN dev stay >= 0.95."""
    recognizers = dates.recognizers('es', times=False)
    precision, recall, n_gold = exact_label_scores(meddocan_dir, "dev", "FECHAS", recognizers)
    assert n_gold > 300
    assert precision >= 0.95 and recall >= 0.95
