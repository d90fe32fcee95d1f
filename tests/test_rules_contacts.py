"""Phone/fax, e-mail, URL and IP recognizers (clinanon.detect.rules.contacts)."""

from __future__ import annotations

import time

import pytest

from clinanon.detect.base import Detector
from clinanon.detect.rules import contacts
from clinanon.document import Document, Span
from clinanon.errors import ConfigError


def _found(spans: list[Span], text: str, label: str | None = None) -> list[str]:
    return [text[s.start:s.end] for s in spans if label is None or s.label == label]


def _phone(lang: str) -> contacts.PhoneRecognizer:
    r = contacts.recognizers(lang)[0]
    assert isinstance(r, contacts.PhoneRecognizer)
    return r


# --- phones, per language -----------------------------------------------------------------------------------
@pytest.mark.parametrize("lang,text,expected", [
    ("es", "Servicio de Urología. Tel.: 913 908 121 E-mail: x@y.es", ["913 908 121"]),
    ("es", "al número de movil 618981345\n", ["618981345"]),
    ("es", "citas previas del hospital 942 56 21 60\n", ["942 56 21 60"]),
    ("es", "Tfno. 670.97.10.26 E-mail", ["670.97.10.26"]),
    ("es", "Teléfono: 986413144 ext 1530 - Fax", ["986413144 ext 1530"]),
    ("nl", "Bel de polikliniek op 020-5669111 of mobiel 06-12345678.", ["020-5669111", "06-12345678"]),
    ("sv", "Ring mottagningen på 08-123 456 78 eller 070-123 45 67.", ["08-123 456 78", "070-123 45 67"]),
    ("de", "Rückfragen unter Tel. 030 45050 oder Handy 0151 23456789.", ["030 45050", "0151 23456789"]),
    ("en", "Call the clinic at (617) 555-0123 or 020 7946 0018.", ["(617) 555-0123", "020 7946 0018"]),
    ("en", "Desk: +41 (0)96 471 07 95", ["+41 (0)96 471 07 95"]),
])
def test_phone_positive(lang: str, text: str, expected: list[str]) -> None:
    assert _found(_phone(lang).analyze(text), text) == expected


@pytest.mark.parametrize("lang,text", [
    ("es", "Hb 12.5 g/dl, TA 120/80 mmHg, plaquetas 250.000/mm3."),
    ("es", "Ingresó el 12/05/2019 y el 03-03-1946 nació; PSA de 1.16 ng/ml; 4 hematíes/campo."),
    ("es", "Se administraron 1.000.000 UI de penicilina; estadio T4N0M0; CIE-10 C61."),
    ("es", "Fecha: 2019-05-12 14:30:00"),
    ("nl", "Hb 8,1 mmol/l, bloeddruk 135/85, datum 12-05-2019."),
    ("sv", "Hb 135 g/l, blodtryck 120/80, datum 2019-05-12."),
    ("de", "Hb 13,2 g/dl, RR 130/85 mmHg am 12.05.2019, Dosis 2x 500 mg."),
    ("en", "BP 120/80, HR 72, glucose 5.6 mmol/L, seen on 2019-05-12 at 14:30."),
    ("en", "Lot 1-2-3-4-5-6-7-8 of 1.2.3.4.5.6.7."),
])
def test_phone_negative(lang: str, text: str) -> None:
    assert _phone(lang).analyze(text) == []


def test_fax_context() -> None:
    text = "Tfno: 933203624 Fax: 933203631 e-mail"
    spans = _phone("es").analyze(text)
    assert [(text[s.start:s.end], s.label) for s in spans] == [
        ("933203624", "CONTACT.PHONE"), ("933203631", "CONTACT.FAX")]
    # a shared "Tel. y Fax:" label is a phone; a trailing "fax" label marks the number before it
    text = "Tel. y Fax: 961 622 403"
    assert [s.label for s in _phone("es").analyze(text)] == ["CONTACT.PHONE"]
    text = "(579)888-3058 fax\n001-518-640-0854 mobile"
    assert [s.label for s in _phone("en").analyze(text)] == ["CONTACT.FAX", "CONTACT.PHONE"]


def test_context_raises_score_and_admits_unvalidated_numbers() -> None:
    p = _phone("es")
    no_ctx = p.analyze("llamó desde el 913 908 121 ayer")
    ctx = p.analyze("Tel.: 913 908 121")
    assert no_ctx[0].score == 0.6 and ctx[0].score == 0.9
    # a foreign number that no Spanish region validates is kept only after a phone word
    assert p.analyze("Teléfono: 55304000 correo") != []
    assert p.analyze("se midieron 55304000 copias") == []


def test_identifier_label_wins_over_phone() -> None:
    p = _phone("es")
    # 794613281 is a valid Spanish mobile number, but here it is a record number
    assert p.analyze("NHC: 794613281.\nNASS: 28 12345678 40.") == []
    assert p.analyze("Episodio: 612345678.") == []
    assert _phone("en").analyze("My card number 630427373398 is lost") == []


def test_strip_prefix_follows_meddocan() -> None:
    text = "Tel.: + 34 93 693 29 05. Fax: (5982) 487-3837"
    assert _found(_phone("es").analyze(text), text) == ["34 93 693 29 05", "5982) 487-3837"]
    en = contacts.PhoneRecognizer("en", strip_prefix=False)
    assert _found(en.analyze("Mobile: +447700 921 916"), "Mobile: +447700 921 916") == ["+447700 921 916"]


def test_phone_not_inside_email_or_words() -> None:
    text = "E-mail: 957485094@terra.es y ABC912345678"
    assert _phone("es").analyze(text) == []


# --- e-mail ---------------------------------------------------------------------------------------------------
def test_email() -> None:
    r = contacts.EmailRecognizer()
    text = ("E-mail: nnavcu@hotmail.com. Autor (ma.alayeto@gmail.com)\nE-mail-jdemiguel@geodental.com\n"
            "nora.olazabal@osakidetza.net, no@ o a@b")
    assert _found(r.analyze(text), text) == ["nnavcu@hotmail.com", "ma.alayeto@gmail.com", "jdemiguel@geodental.com",
                                             "nora.olazabal@osakidetza.net"]
    assert r.analyze("precio 3 @ 5 euros; @usuario; a@b.c1") == []
    assert r.analyze("x@intranet-host") == []
    assert _found(r.analyze("mail: jdoe@intranet"), "mail: jdoe@intranet") == ["jdoe@intranet"]


# --- URL ------------------------------------------------------------------------------------------------------
def test_url() -> None:
    r = contacts.UrlRecognizer()
    text = ("Ver https://www.sanidad.gob.es/profesionales/guia.pdf, o www.hospital.org. "
            "Web: ClinicaPerez.es y correo a@clinic.com; dosis 1.5 mg; archivo informe.pdf; http://")
    found = [(text[s.start:s.end], s.source.split(":")[1]) for s in r.analyze(text)]
    assert found == [("https://www.sanidad.gob.es/profesionales/guia.pdf", "scheme"), ("www.hospital.org", "scheme"),
                     ("ClinicaPerez.es", "domain")]
    assert [s.score for s in r.analyze("Web: ClinicaPerez.es")] == [0.8]
    assert [s.score for s in r.analyze("visto ClinicaPerez.es")] == [0.5]


# --- IP -------------------------------------------------------------------------------------------------------
def test_ip_addresses() -> None:
    r = contacts.IpRecognizer()
    text = "client 192.168.1.20 and 2001:db8::8a2e:370:7334; not 256.1.1.1, 1.2.3.4.5, 01.02.03.04 or 12:30:45"
    assert _found(r.analyze(text), text) == ["192.168.1.20", "2001:db8::8a2e:370:7334"]
    assert r.analyze("IP: 10.0.0.1")[0].score == 0.9


# --- module API -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "es", "nl", "sv", "de"])
def test_recognizers_protocol(lang: str) -> None:
    dets = contacts.recognizers(lang)
    assert dets and all(isinstance(d, Detector) for d in dets)
    assert contacts.recognizers(lang)[0] is dets[0]  # built once per language
    doc = Document("d1", "Tel. 913 908 121, mail a@b.es")
    assert all(d.detect(doc) == d.analyze(doc.text) for d in dets)  # type: ignore[attr-defined]


def test_unknown_language() -> None:
    with pytest.raises(ConfigError):
        contacts.recognizers("fr")


# --- adversarial input: every family finishes in linear time ---------------------------------------------------
_ADVERSARIAL = {
    "capitalised words": " ".join(["Calle", "Hospital", "Tel", "Fax", "García"][i % 5] for i in range(100_000)),
    "one long line": ("Tel. 91 234 Fax " * 70_000)[:1_000_000],
    "digits": "1" * 1_000_000,
    "dashed ones": "1-" * 500_000,
    "dotted ones": "1." * 500_000,
    "at signs": "a@" * 500_000,
    "colons": "ab:" * 333_333,
    "dots": "a." * 500_000 + "com",
}


@pytest.mark.parametrize("name", list(_ADVERSARIAL))
def test_adversarial_inputs_finish_quickly(name: str) -> None:
    text = _ADVERSARIAL[name]
    for det in [*contacts.recognizers("es"), contacts.recognizers("en")[0]]:
        t0 = time.process_time()
        det.analyze(text)  # type: ignore[attr-defined]
        assert time.process_time() - t0 < 5.0, (name, det.name)
