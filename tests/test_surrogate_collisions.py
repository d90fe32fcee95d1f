"""Date and age shifts that avoid collisions: no surrogate reproduces another original of the document, while
every interval inside the document (document scope) or the patient (patient scope) stays unchanged."""

from __future__ import annotations

import datetime as dt
import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from clinanon.document import Document, Span
from clinanon.lang import checksums as cs
from clinanon.transform import Anonymizer
from clinanon.transform.surrogate import GenContext, Settings, SurrogateOperator, parse_key
from clinanon.transform.surrogate._text import normalize
from clinanon.transform.surrogate.ages import age_offset
from clinanon.transform.surrogate.date_formats import parse_date
from clinanon.transform.surrogate.dates import Offsets, _DateSearch, date_offsets, scope_offsets
from clinanon.transform.surrogate.identifiers import id_kind, surrogate_identifier

KEYS = ["3c" * 32, "c3" * 32, "5a" * 32, "a5" * 32]
MONTHS = ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre",
          "noviembre", "diciembre"]


def _doc(parts: list[tuple[str, str | None]], doc_id: str = "d1", pid: str | None = None) -> Document:
    text, spans, pos = "", [], 0
    for piece, cat in parts:
        if cat is not None:
            spans.append(Span(pos, pos + len(piece), cat))
        text += piece
        pos += len(piece)
    return Document(doc_id, text, tuple(spans), {"patient_id": pid} if pid else {})


def _series(texts: list[str], cat: str = "DATE", doc_id: str = "d1", pid: str | None = None) -> Document:
    parts: list[tuple[str, str | None]] = [("Control ", None)]
    for t in texts:
        parts += [(t, cat), ("; ", None)]
    return _doc(parts, doc_id, pid)


def _run(doc: Document, key: str = KEYS[0], scope: str = "document", **kw: object):
    return Anonymizer({"*": SurrogateOperator(key=key, scope=scope, **kw)}, lang="es").anonymize(doc)


def _pairs(doc: Document, out) -> list[tuple[str, str]]:
    return [(doc.text[r.start:r.end], out.text[r.out_start:r.out_end]) for r in out.replacements]


def _no_collision(doc: Document, out) -> None:
    originals = {normalize(doc.text[s.start:s.end]) for s in doc.spans}
    for _, new in _pairs(doc, out):
        for o in originals:
            assert not re.search(r"(?<!\w)" + re.escape(o) + r"(?!\w)", normalize(new))


def _ctx(doc: Document, key: str = KEYS[0], avoid: bool = True) -> GenContext:
    c = GenContext.simple(parse_key(key), f"document:{doc.id}", "es", Settings(avoid_collisions=avoid))
    c.doc, c.spans, c.categories = doc, doc.spans, {s: s.label for s in doc.spans}
    return c


def test_monthly_series_moves_past_itself() -> None:
    # five consecutive months: every default month offset (+-1, +-2) lands on another original
    texts = [f"{m} de 2016" for m in MONTHS[:5]]
    doc = _series(texts)
    for key in KEYS:
        out = _run(doc, key)
        _no_collision(doc, out)
        pairs = _pairs(doc, out)
        moves = set()
        for a, b in pairs:
            pa, pb = parse_date(a, "es"), parse_date(b, "es")
            moves.add((pb.year * 12 + pb.month) - (pa.year * 12 + pa.month))
        assert len(moves) == 1 and abs(moves.pop()) >= 5  # one month offset for the document, past the series


def test_daily_and_weekly_series() -> None:
    start = dt.date(2015, 3, 1)
    daily = [(start + dt.timedelta(days=i)).strftime("%d/%m/%Y") for i in range(20)]  # 20 days in a row
    weekly = [(start + dt.timedelta(days=7 * i)).strftime("%d/%m/%Y") for i in range(4)]  # 7, 14 collide
    for texts in (daily, weekly):
        doc = _series(texts)
        for key in KEYS:
            out = _run(doc, key)
            _no_collision(doc, out)
            shifts = {(parse_date(b, "es").date - parse_date(a, "es").date).days for a, b in _pairs(doc, out)}
            assert len(shifts) == 1  # every interval of the document is kept
            shift = abs(shifts.pop())
            assert shift >= 20 if texts is daily else shift not in (7, 14, 21)


def test_age_series_uses_wider_offsets() -> None:
    ages = [f"{n} años" for n in range(14, 21)]  # 14..20: every offset below 7 years collides
    doc = _series(ages, "AGE")
    for key in KEYS:
        out = _run(doc, key)
        _no_collision(doc, out)
        moves = {int(b.split()[0]) - int(a.split()[0]) for a, b in _pairs(doc, out)}
        assert len(moves) == 1 and 7 <= abs(moves.pop()) <= 10


def test_no_collision_keeps_scope_offsets() -> None:
    doc = _series(["12/03/2015", "marzo de 2010", "2001"])
    c = _ctx(doc)
    assert date_offsets(c) == scope_offsets(c)  # nothing collides: the scope's own offsets
    c2 = _ctx(_series(["45 años"], "AGE"))
    lo_hi = {1, 2}
    assert abs(age_offset(c2)) in lo_hi


def test_month_only_never_shifts_onto_itself() -> None:
    doc = _series(["junio"])
    search = _DateSearch(_ctx(doc), ["junio"])
    assert search.bad("junio", Offsets(7, 12, 1))  # +12 months: "junio" again
    assert not search.bad("junio", Offsets(7, 2, 1))


def test_choice_is_deterministic_and_keyed() -> None:
    doc = _series([f"{m} de 2016" for m in MONTHS[:5]])
    assert _run(doc).text == _run(doc).text
    assert len({_run(doc, k).text for k in KEYS}) > 1


def test_patient_scope_keeps_intervals_by_default() -> None:
    # the second note would collide; in patient scope both notes keep the patient's one offset
    d1 = _series(["01/03/2015"], doc_id="a", pid="P")
    d2 = _series(["01/03/2015", "08/03/2015", "15/03/2015", "22/03/2015"], doc_id="b", pid="P")
    op = SurrogateOperator(key=KEYS[0], scope="patient")
    anon = Anonymizer({"*": op}, lang="es")
    o1, o2 = anon.anonymize(d1), anon.anonymize(d2)
    s1 = {(parse_date(b, "es").date - parse_date(a, "es").date).days for a, b in _pairs(d1, o1)}
    s2 = {(parse_date(b, "es").date - parse_date(a, "es").date).days for a, b in _pairs(d2, o2)}
    assert s1 == s2 and len(s1) == 1


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 60), min_size=1, max_size=8, unique=True),
       st.lists(st.integers(0, 11), min_size=0, max_size=4, unique=True),
       st.sampled_from(KEYS))
def test_property_no_collision_and_intervals(days: list[int], months: list[int], key: str) -> None:
    start = dt.date(2014, 1, 10)
    full = [(start + dt.timedelta(days=d)).strftime("%d/%m/%Y") for d in days]
    partial = [f"{MONTHS[m]} de 2012" for m in months]
    doc = _series(full + partial)
    out = _run(doc, key)
    _no_collision(doc, out)
    pairs = _pairs(doc, out)
    day_moves = {(parse_date(b, "es").date - parse_date(a, "es").date).days for a, b in pairs[:len(full)]}
    assert len(day_moves) == 1 and 0 not in day_moves
    month_moves = set()
    for a, b in pairs[len(full):]:
        pa, pb = parse_date(a, "es"), parse_date(b, "es")
        month_moves.add((pb.year * 12 + pb.month) - (pa.year * 12 + pa.month))
    assert len(month_moves) <= 1 and 0 not in month_moves


# --- Swedish personnummer -------------------------------------------------------------------------------------

def _sv_ctx(seed: int) -> GenContext:
    return GenContext.simple(parse_key("5a" * 32), f"document:{seed}", "sv")


def test_personnummer_surrogates_pass_luhn() -> None:
    rng = random.Random(7)
    for i in range(200):
        original = cs.generate_personnummer(rng, coordination=i % 5 == 0, century=i % 2 == 0)
        assert cs.is_valid_personnummer(original)
        new = surrogate_identifier(original, _sv_ctx(i))
        assert new != original and cs.is_valid_personnummer(new)
        assert re.sub(r"\d", "9", new) == re.sub(r"\d", "9", original)  # same layout
        assert (int(re.sub(r"\D", "", new)[-6:-4]) > 60) == (i % 5 == 0)  # samordningsnummer kept as one


def test_personnummer_by_shape_in_swedish_note() -> None:
    # written like a personnummer but failing Luhn (a typo or made-up data): the surrogate is a valid one
    bad = "19520314-2380" if not cs.is_valid_personnummer("19520314-2380") else "19520314-2381"
    assert not cs.is_valid_personnummer(bad)
    assert id_kind(bad, "sv") == "personnummer" and id_kind(bad, "es") != "personnummer"
    for i in range(20):
        new = surrogate_identifier(bad, _sv_ctx(i))
        assert cs.is_valid_personnummer(new) and len(new) == len(bad) and new[8] == "-"
    assert id_kind("19521314-2380", "sv") is None  # month 13: not a personnummer
