"""The ``surrogate`` operator end to end: consistency, keys, scopes, leaks, workers, configuration."""

from __future__ import annotations

import multiprocessing
import re
from pathlib import Path

import pytest

from clinanon.config import Config
from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.transform import Anonymizer
from clinanon.transform.base import get_operator
from clinanon.transform.surrogate import KEY_ENV, MissingKeyError, SurrogateOperator
from clinanon.transform.surrogate._text import normalize
from clinanon.transform.surrogate.cli_support import apply_surrogate_options
from clinanon.transform.surrogate.date_formats import parse_date
from clinanon.transform.surrogate.keys import write_key_file

KEY_A = "3c" * 32
KEY_B = "c3" * 32


def _doc(doc_id: str, pid: str | None, parts: list[tuple[str, str | None]]) -> Document:
    """A document from (text, category-or-None) pieces."""
    text, spans, pos = "", [], 0
    for piece, cat in parts:
        if cat is not None:
            spans.append(Span(pos, pos + len(piece), cat))
        text += piece
        pos += len(piece)
    return Document(doc_id, text, tuple(spans), {"patient_id": pid} if pid else {})


def corpus() -> list[Document]:
    return [
        _doc("n1", "P1", [("Paciente ", None), ("Juan García López", "NAME.PATIENT"), (", ", None),
                          ("45 años", "AGE"), (", ingresó el ", None), ("12/03/2015", "DATE"), (" en el ", None),
                          ("Hospital Universitario La Paz", "LOCATION.HOSPITAL"), (" de ", None),
                          ("Madrid", "LOCATION.CITY"), (". Tel ", None), ("913 368 000", "CONTACT.PHONE"),
                          (". DNI ", None), ("12345678Z", "ID.SSN"), (". Sexo: ", None), ("varón", "SEX"),
                          (".", None)]),
        _doc("n2", "P1", [("Control de ", None), ("J. García", "NAME.PATIENT"), (" el ", None),
                          ("20/04/2015", "DATE"), (" con la Dra. ", None), ("Ana Ruiz", "NAME.DOCTOR"),
                          (". Correo ", None), ("juan.garcia@gmail.com", "CONTACT.EMAIL"), (".", None)]),
        _doc("n3", "P2", [("La paciente ", None), ("María Pérez", "NAME.PATIENT"), (" de ", None),
                          ("93 años", "AGE"), (" vive en ", None), ("Calle Mayor, 5", "LOCATION.STREET"),
                          (", ", None), ("28013", "LOCATION.ZIP"), (" ", None), ("Madrid", "LOCATION.CITY"),
                          (" desde ", None), ("marzo de 2001", "DATE"), (".", None)]),
        _doc("n4", None, [("Visto por ", None), ("Dr. Gómez", "NAME.DOCTOR"), (" el ", None),
                          ("3 de mayo de 2010", "DATE"), (".", None)]),
    ]


def run(key: str, scope: str = "patient", docs: list[Document] | None = None, **kw: object) -> list:
    op = SurrogateOperator(key=key, scope=scope, **kw)
    anon = Anonymizer({"*": op}, lang="es")
    return [anon.anonymize(d) for d in (docs or corpus())]


def surrogates(outs: list) -> list[str]:
    return [o.text[r.out_start:r.out_end] for o in outs for r in o.replacements]


def test_same_key_same_output_and_other_key_different() -> None:
    a, a2 = run(KEY_A), run(KEY_A)
    assert [o.text for o in a] == [o.text for o in a2]
    sa = surrogates(a)
    cats = [r.category for o in a for r in o.replacements]
    assert len(sa) == len(cats) == 19
    large = [c.split(".")[0] in ("NAME", "ID", "CONTACT") or c == "LOCATION.STREET" for c in cats]
    assert sum(large) == 9
    small_equal = 0
    for other in (KEY_B, "5a" * 32, "a5" * 32, "0f" * 32):
        b = run(other)
        sb = surrogates(b)
        assert len(sb) == len(sa) and all(x.text != y.text for x, y in zip(a, b, strict=True))
        # large output spaces (names, identifiers, contacts, streets): another key never gives the same surrogate
        assert all(x != y for x, y, big in zip(sa, sb, large, strict=True) if big)
        small_equal += sum(x == y for x, y, big in zip(sa, sb, large, strict=True) if not big)
    # small pools may coincide by chance (a capped age always does; a 7-14 day shift, shared by the dates of a
    # scope, 1 in 16; a month shift 1 in 4; a city of the same province 1 in ~28): still, most of them differ
    assert small_equal <= 0.35 * 4 * (len(sa) - sum(large))


def test_patient_scope_consistency_and_intervals() -> None:
    n1, n2, n3, n4 = run(KEY_A)
    full = n1.text[n1.replacements[0].out_start:n1.replacements[0].out_end]
    given, s1, _ = full.split()
    assert f"{given[0]}. {s1}" in n2.text  # "J. García" in the other note of the patient, no shared state
    d1 = parse_date(re.search(r"\d\d/\d\d/\d{4}", n1.text).group(), "es").date
    d2 = parse_date(re.search(r"\d\d/\d\d/\d{4}", n2.text).group(), "es").date
    assert (d2 - d1).days == 39  # 12/03 -> 20/04/2015, across two documents of one patient
    assert "90 años o más" in n3.text and "varón" in n1.text  # HIPAA cap; sex kept
    assert "Dr. " in n4.text


def test_no_original_survives() -> None:
    docs = corpus()
    for d, o in zip(docs, run(KEY_A), strict=True):
        replaced = {(r.start, r.end) for r in o.replacements}
        for s in d.spans:
            if s.label == "SEX":
                continue
            assert (s.start, s.end) in replaced
            orig = normalize(d.text[s.start:s.end])
            assert not re.search(r"(?<!\w)" + re.escape(orig) + r"(?!\w)", normalize(o.text)), s.label


def test_missing_key_is_a_clear_error(monkeypatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    with pytest.raises(MissingKeyError, match="keygen"):
        get_operator("surrogate")
    monkeypatch.setenv(KEY_ENV, KEY_A)
    assert get_operator("surrogate").name == "surrogate"


def test_key_never_in_repr_or_dump(tmp_path) -> None:
    op = SurrogateOperator(key=KEY_A)
    assert KEY_A not in repr(op) and KEY_A not in str(op.model_dump()) and KEY_A[:10] not in repr(op)
    f = write_key_file(tmp_path / "k")
    op2 = SurrogateOperator(key_file=f, ledger="postgresql://u:secretpw@localhost/db")
    assert f.read_text().strip() not in repr(op2) and "secretpw" not in repr(op2)


def test_patient_fallback_is_counted() -> None:
    op = SurrogateOperator(key=KEY_A, scope="patient")
    anon = Anonymizer({"*": op}, lang="es")
    for d in corpus():
        anon.anonymize(d)
    assert op.stats["patient_fallbacks"] == 1  # n4 has no patient id
    strict = Anonymizer({"*": SurrogateOperator(key=KEY_A, scope="patient", missing_patient="error")})
    with pytest.raises(ConfigError, match="n4"):
        strict.anonymize(corpus()[3])


def test_unhandled_tag_and_parameter_validation() -> None:
    out = run(KEY_A, unhandled="tag")[0]
    assert "[SEX]" in out.text
    with pytest.raises(ConfigError, match="date_shift"):
        SurrogateOperator(key=KEY_A, date_shift=(0, 5))
    with pytest.raises(ConfigError, match="unknown parameter"):
        SurrogateOperator(key=KEY_A, colour="red")


def _work(args: tuple[str, Document]) -> str:
    key, doc = args
    op = get_operator("surrogate", key=key, scope="patient")
    return Anonymizer({"*": op}, lang="es").anonymize(doc).text


def test_two_worker_processes_give_the_same_output() -> None:
    docs = corpus() * 3
    serial = [o.text for o in run(KEY_A, docs=docs)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        parallel = pool.map(_work, [(KEY_A, d) for d in docs], chunksize=1)
    assert parallel == serial


def test_config_and_cli_options(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    key = write_key_file(tmp_path / "k")
    cfg = Config.from_dict({"language": "es", "operators": {"*": {"operator": "surrogate"}}})
    with pytest.raises(MissingKeyError):
        apply_surrogate_options(cfg)
    cfg2 = apply_surrogate_options(cfg, scope="patient", key_file=key)
    params = cfg2.operators["*"].params
    assert params["scope"] == "patient" and params["key_file"] == str(key)
    plain = Config.from_dict({"operators": {"*": {"operator": "tag"}}})
    with pytest.raises(ConfigError, match="surrogate operator"):
        apply_surrogate_options(plain, scope="patient")
    from clinanon.pipeline import Pipeline

    nlp = Pipeline(cfg2, detectors=[])
    d = corpus()[0]
    out = nlp.deidentify(d, list(d.spans)).text
    assert "Juan" not in out and out == nlp.deidentify(d, list(d.spans)).text


def test_ledger_through_the_operator(tmp_path) -> None:
    from clinanon.ledger import open_ledger

    path = tmp_path / "ledger.sqlite"
    outs = run(KEY_A, ledger=str(path))
    with open_ledger(path) as led:
        entries = led.lookup(doc_id="n1")
        assert len(entries) == len(outs[0].replacements)
        r = outs[0].replacements[0]
        sur = outs[0].text[r.out_start:r.out_end]
        assert led.reverse("n1", sur) == ["Juan García López"]


@pytest.fixture(scope="module")
def meddocan_sample(meddocan_dir: Path) -> list[Document]:
    from clinanon.io.brat import read_brat

    docs = [d for d in read_brat(meddocan_dir / "dev" / "brat", scheme=None) if isinstance(d, Document)]
    return docs[:60]


def test_meddocan_consistency_and_leaks(meddocan_sample: list[Document]) -> None:
    def go(key: str) -> list:
        anon = Anonymizer({"*": SurrogateOperator(key=key, scope="document")}, scheme="meddocan", lang="es")
        return [anon.anonymize(d) for d in meddocan_sample]

    a, a2, b = go(KEY_A), go(KEY_A), go(KEY_B)
    assert [o.text for o in a] == [o.text for o in a2]
    # another key: unrelated choices. Small choice spaces (an age +-1..2, a date +-7..14 days, a city of the same
    # province, a country of the same continent) coincide by design; names, ids, contacts and streets must not.
    pairs = [(x.text[r.out_start:r.out_end], y.text[q.out_start:q.out_end])
             for x, y in zip(a, b, strict=True) for r, q in zip(x.replacements, y.replacements, strict=True)
             if r.category.split(".")[0] in ("NAME", "ID", "CONTACT") or r.category == "LOCATION.STREET"]
    assert len(pairs) > 500 and sum(p == q for p, q in pairs) / len(pairs) < 0.01
    for d, o in zip(meddocan_sample, a, strict=True):
        regions = [normalize(o.text[r.out_start:r.out_end]) for r in o.replacements]
        for r in o.replacements:
            orig = d.text[r.start:r.end]
            assert normalize(orig) != normalize(o.text[r.out_start:r.out_end])
            if r.category in ("DATE", "AGE"):  # shift collisions inside a date/age series are measured apart
                continue
            pat = re.compile(r"(?<!\w)" + re.escape(normalize(orig)) + r"(?!\w)")
            assert not any(pat.search(x) for x in regions), (d.id, r.label)
