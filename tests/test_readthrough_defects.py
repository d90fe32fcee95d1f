"""Defects found in a read-through of surrogate and rule outputs (invented notes; none is copied from a corpus).

Each test failed before its fix: a hospital surrogate repeating the head word written after its span, a weekday
left in front of a shifted date, a phone span swallowing a closing bracket, a German hospital span swallowing the
words before it, shifted dates that read back as another date, a US ZIP code of another state than its address.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import cache

import pytest

from clinanon.config import Config
from clinanon.detect.rules import contacts
from clinanon.document import Document, Span
from clinanon.pipeline import Pipeline
from clinanon.transform import Anonymizer
from clinanon.transform.surrogate import SurrogateOperator
from clinanon.transform.surrogate._text import normalize
from clinanon.transform.surrogate.date_formats import parse_date
from clinanon.transform.surrogate.dates import _shift_text

KEYS = ["0f" * 32, "a1" * 32, "5c" * 32, "e7" * 32, "39" * 32]


@cache
def _rules(lang: str) -> Pipeline:
    return Pipeline(Config.from_dict({"language": lang, "label_scheme": "canonical", "detectors": {"use": ["rules"]}}))


def _found(lang: str, text: str) -> list[tuple[str, str]]:
    """(surface, label) of the resolved spans of the rules pipeline of ``lang``."""
    doc = next(iter(_rules(lang).pipe([Document("t", text)], deidentify=False)))
    assert isinstance(doc, Document)
    return [(text[s.start:s.end], s.label) for s in doc.spans]


def _marked(text: str, marks: list[tuple[str, str]]) -> list[Span]:
    """Spans at the first occurrences (in order) of each ``(surface, label)`` of ``marks``."""
    out, pos = [], 0
    for surface, label in marks:
        i = text.index(surface, pos)
        out.append(Span(i, i + len(surface), label))
        pos = i + len(surface)
    return out


def _anonymize(lang: str, text: str, spans: list[Span], key: str) -> tuple[str, list[tuple[int, int, str]]]:
    """The surrogate output of ``text`` with ``spans`` and each replacement ``(new start, new end, new text)``."""
    anon = Anonymizer({"*": SurrogateOperator(key=key)}, lang=lang, scheme="canonical")
    out = anon.anonymize_many([Document("n1", text)], [spans])[0]
    reps = [(r.out_start, r.out_end, out.text[r.out_start:r.out_end]) for r in out.replacements]
    return out.text, reps


# --- 1. a hospital surrogate fits the head word written around its span --------------------------------------
@pytest.mark.parametrize("key", KEYS)
def test_hospital_tail_written_after_the_span_is_not_repeated(key: str) -> None:
    text = "Transferred from Brookhaven Hospital on admission; Brookhaven Hospital records requested."
    spans = _marked(text, [("Brookhaven", "LOCATION.HOSPITAL"), ("Brookhaven", "LOCATION.HOSPITAL")])
    out, reps = _anonymize("en", text, spans, key)
    assert "hospital hospital" not in out.lower()
    for _, end, new in reps:
        assert not normalize(new).endswith(("hospital", "clinic", "medical center")), new
        assert out[end:].startswith(" Hospital")
    assert reps[0][2] == reps[1][2]  # the same hospital, both times


@pytest.mark.parametrize("key", KEYS)
def test_hospital_part_and_whole_mention_agree(key: str) -> None:
    """The name part before "Hospital" becomes the whole name's surrogate less "Hospital"."""
    text = "Seen at Brookhaven Hospital. Brookhaven Hospital called back."
    first = Span(8, 18, "LOCATION.HOSPITAL")  # "Brookhaven" (the detector left "Hospital" out)
    whole = Span(29, 48, "LOCATION.HOSPITAL")  # "Brookhaven Hospital"
    assert text[first.start:first.end] == "Brookhaven" and text[whole.start:whole.end] == "Brookhaven Hospital"
    out, reps = _anonymize("en", text, [first, whole], key)
    part, full = reps[0][2], reps[1][2]
    if full.endswith(" Hospital"):
        assert full == part + " Hospital"
    assert "Hospital Hospital" not in out


@pytest.mark.parametrize("key", KEYS)
def test_spanish_hospital_head_written_before_the_span(key: str) -> None:
    text = "Ingresa en el Hospital Nuestra Señora del Prado por disnea."
    spans = _marked(text, [("Nuestra Señora del Prado", "LOCATION.HOSPITAL")])
    out, reps = _anonymize("es", text, spans, key)
    new = reps[0][2]
    assert not normalize(new).startswith(("hospital", "clinica", "complejo", "centro")), new
    assert out.startswith("Ingresa en el Hospital ") and "Hospital Hospital" not in out


@pytest.mark.parametrize("key", KEYS)
def test_german_hospital_tail_after_a_hyphen(key: str) -> None:
    text = "Verlegung in das St.-Gereon-Klinikum zur weiteren Therapie."
    spans = _marked(text, [("St.-Gereon", "LOCATION.HOSPITAL")])
    out, reps = _anonymize("de", text, spans, key)
    new = reps[0][2]
    assert not any(w in normalize(new) for w in ("klinikum", "klinik", "krankenhaus", "spital")), new
    assert "-Klinikum zur" in out and "Klinikum-Klinikum" not in out and "Klinikum Klinikum" not in out


def test_hospital_without_a_phrase_around_still_gets_one() -> None:
    text = "Er kam aus Brookhaven zurück."
    spans = _marked(text, [("Brookhaven", "LOCATION.HOSPITAL")])
    _, reps = _anonymize("en", text, spans, KEYS[0])
    assert normalize(reps[0][2]).split()[-1] in ("hospital", "clinic", "center", "centre", "infirmary", "college") \
        or len(reps[0][2].split()) > 1


# --- 2. a weekday before a date is part of the date, and the surrogate renders the new date's weekday ---------
@pytest.mark.parametrize("lang,text,date", [
    ("es", "Acude el lunes, 3 de marzo de 2014 a urgencias.", "lunes, 3 de marzo de 2014"),
    ("es", "Alta el mié 5 de marzo.", "mié 5 de marzo"),
    ("es", "Revisión el martes día 4 de marzo en consulta.", "martes día 4 de marzo"),
    ("de", "Aufnahme am Montag, den 3. März 2014 über die Notaufnahme.", "Montag, den 3. März 2014"),
    ("de", "Entlassung am Freitag, 07.03.2014 nach Hause.", "Freitag, 07.03.2014"),
])
def test_weekday_before_a_date_is_one_date_span(lang: str, text: str, date: str) -> None:
    assert (date, "DATE") in _found(lang, text)


def test_english_weekday_stays_outside_the_date_span() -> None:
    """English notes annotate the date without its weekday ("Friday 10/7" has the date "10/7")."""
    found = _found("en", "Family meeting Friday 10/7 with the team.")
    assert ("10/7", "DATE") in found and not any("Friday" in s and "10/7" in s for s, _ in found)


def _check_weekday(out: str, lang: str) -> None:
    """Every weekday + date of ``out`` (a weekday word, a comma or "den", the date) names the date's weekday."""
    m = re.search(r"(\w+)\.?,? (?:den )?(.+?\d{4})", out)
    assert m is not None, out
    parsed = parse_date(f"{m.group(1)}, {m.group(2)}", lang)
    assert parsed is not None and parsed.kind == "full", out
    weekday = next(p for p in parsed.pieces if p.kind == "weekday")
    assert weekday.value == dt.date(parsed.year, parsed.month, parsed.day).weekday(), out  # type: ignore[arg-type]


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("lang,text", [
    ("en", "Seen in clinic on Monday, March 3, 2014 with her son."),
    ("es", "Acude el lunes, 3 de marzo de 2014 a urgencias."),
    ("de", "Aufnahme am Montag, den 3. März 2014 über die Notaufnahme."),
])
def test_surrogate_weekday_matches_the_shifted_date(key: str, lang: str, text: str) -> None:
    """Whether the detector takes the weekday into the date span (es, de) or not (en), the output names the
    weekday of the shifted date."""
    spans = [Span(text.index(s), text.index(s) + len(s), lab) for s, lab in _found(lang, text) if lab == "DATE"]
    assert spans
    out, _ = _anonymize(lang, text, spans, key)
    _check_weekday(out, lang)


@pytest.mark.parametrize("key", KEYS)
def test_weekday_outside_gold_date_span_follows_the_shift(key: str) -> None:
    text = "Admitted Tuesday, April 8, 2014; family meeting Friday 10/7 as planned."
    spans = _marked(text, [("April 8, 2014", "DATE"), ("10/7", "DATE")])
    out, _ = _anonymize("en", text, spans, key)
    _check_weekday(out, "en")
    m = re.search(r"meeting (\w+) (\d+)/(\d+)", out)
    assert m is not None, out
    shift = (dt.date(2001, int(m.group(2)), int(m.group(3))) - dt.date(2001, 10, 7)).days
    names = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    assert m.group(1).lower() == names[(4 + shift) % 7], out


def test_a_weekday_alone_is_no_full_weekday_date() -> None:
    assert not any(lab == "DATE" and "sat" in s.lower() for s, lab in _found("es", "Se sentó 3/4 del día."))
    text = "He sat 3/4 of the day; on Monday he walked."
    out, _ = _anonymize("en", text, _marked(text, [("Monday", "DATE")]), KEYS[0])
    assert "sat 3/4" in out


# --- 3. a phone span ends at its last digit ---------------------------------------------------------------------
@pytest.mark.parametrize("text,expected", [
    ("Spoke with her daughter (phone 503-555-0144), who will call back.", "503-555-0144"),
    ("Call back number (971-555-0102) left with the desk.", "(971-555-0102)"),  # the pair around it stays
    ("Reach the ward at (206) 555-0188 tonight.", "(206) 555-0188"),
    ("Cell (206-555-0177 after 5pm).", "206-555-0177"),
])
def test_phone_span_brackets(text: str, expected: str) -> None:
    r = contacts.recognizers("en")[0]
    assert isinstance(r, contacts.PhoneRecognizer)
    assert [text[s.start:s.end] for s in r.analyze(text)] == [expected]


# --- 4. a German hospital name does not take the words before it ---------------------------------------------
@pytest.mark.parametrize("text,hospital", [
    ("Zur weiteren Behandlung im St.-Gereon-Klinikum aufgenommen.", "St.-Gereon-Klinikum"),
    ("Die Nachsorge erfolgt am Marien-Krankenhaus.", "Marien-Krankenhaus"),
])
def test_german_hospital_span_starts_at_its_name(text: str, hospital: str) -> None:
    found = [s for s, lab in _found("de", text) if lab == "LOCATION.HOSPITAL"]
    assert found == [hospital]


# --- 6. shifted dates read back as the shifted date ---------------------------------------------------------
@pytest.mark.parametrize("lang,text", [
    ("es", "31/12/29"), ("es", "31/12/30"), ("es", "02/01/31"), ("en", "12/30/30"), ("sv", "30-12-31"),
    ("en", "13/3/2005"), ("en", "13/03/2005"), ("en", "28/2/2005"), ("es", "3/13/2005"), ("es", "2/13"),
    ("en", "13/3"), ("de", "13.3.2005"),
])
@pytest.mark.parametrize("days", [-14, -12, -7, 7, 12, 14, 366])
def test_shifted_numeric_date_reads_back_as_the_new_date(lang: str, text: str, days: int) -> None:
    before = parse_date(text, lang)
    assert before is not None
    new = _shift_text(text, lang, days, 1, 1)
    after = parse_date(new, lang)
    assert after is not None and after.kind == before.kind, new
    if before.kind == "full":
        want = dt.date(before.year, before.month, before.day) + dt.timedelta(days=days)  # type: ignore[arg-type]
        assert (after.year, after.month, after.day) == (want.year, want.month, want.day), new
    else:
        ref = dt.date(2001, before.month, before.day) + dt.timedelta(days=days)  # type: ignore[arg-type]
        assert (after.month, after.day) == (ref.month, ref.day), new


def _zip_state(code: str) -> str | None:
    from clinanon.transform.surrogate.postcodes import _US_ZIP3

    prefix = int(code[:3])
    return next((st for st, ranges in _US_ZIP3.items() if any(lo <= prefix <= hi for lo, hi in ranges)), None)


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("text,marks", [
    ("Home: 48 Larch Lane, Millbrook, NY 12545. Works nearby.",
     [("48 Larch Lane, Millbrook, NY 12545", "LOCATION.STREET")]),
    ("Moved to Millbrook, NY 12545 last year.", [("Millbrook, NY 12545", "LOCATION.CITY")]),
    ("Address Millbrook, NY 12545-0001.", [("Millbrook", "LOCATION.CITY"), ("NY", "LOCATION.STATE"),
                                          ("12545-0001", "LOCATION.ZIP")]),
])
def test_us_zip_follows_the_surrogate_state(key: str, text: str, marks: list[tuple[str, str]]) -> None:
    from clinanon.transform.surrogate.states import us_state_abbreviation

    out, _ = _anonymize("en", text, _marked(text, marks), key)
    m = re.search(r",?\s([A-Z]{2}) (\d{5})(?:-\d{4})?", out)
    assert m is not None, out
    state, code = m.group(1), m.group(2)
    assert us_state_abbreviation(state) == state
    assert _zip_state(code) == state, out
