"""Street and postcode recognizers (clinanon.detect.rules.addresses)."""

from __future__ import annotations

import time

import pytest

from clinanon.detect.base import Detector
from clinanon.detect.rules import addresses
from clinanon.document import Document, Span


def _run(lang: str, text: str) -> list[tuple[str, str]]:
    spans: list[Span] = addresses.AddressRecognizer(lang).analyze(text)
    return [(text[s.start:s.end], s.label) for s in sorted(spans)]


def _streets(lang: str, text: str) -> list[str]:
    return [t for t, lab in _run(lang, text) if lab == "LOCATION.STREET"]


def _zips(lang: str, text: str) -> list[str]:
    return [t for t, lab in _run(lang, text) if lab == "LOCATION.ZIP"]


# --- Spanish streets (MEDDOCAN shapes) ----------------------------------------------------------------------
@pytest.mark.parametrize("text,street", [
    ("Remitido por: Ignacio Navarro Cuéllar c/ del Abedul 5-7, 2º dcha 28036 Madrid", "c/ del Abedul 5-7, 2º dcha"),
    ("Domicilio:  Calle Miguel Benitez 90.\nLocalidad/ Provincia: Madrid.", "Calle Miguel Benitez 90"),
    ("Domicilio: Av. de los Andes 22, portal F, 1ºA.\n", "Av. de los Andes 22, portal F, 1ºA"),
    ("Domicilio: Calle del Dr. Esquerdo 99, Bajo A .\n", "Calle del Dr. Esquerdo 99, Bajo A"),
    ("Domicilio: Calle Alameda Tercera, Bajo A.\n", "Calle Alameda Tercera, Bajo A"),  # no number: the field says so
    ("Hospital La Paz Paseo de la Castellana, 261 28046 Madrid", "Paseo de la Castellana, 261"),
    ("Dr. Juan Pérez. Avda. Escosura, 4 - 6° E-28015 Madrid", "Avda. Escosura, 4 - 6°"),
    ("Servicio de Urología. Plaza de la Encarnación, 32 - P1- 2B 41003 Sevilla",
     "Plaza de la Encarnación, 32 - P1- 2B"),
    ("Dra. Ana Ruiz. C/ Martín de los Heros, 80, 5º D 28008 Madrid", "C/ Martín de los Heros, 80, 5º D"),
    ("Hospital Universitario Ctra. de Colmenar, km. 9,100 28034 Madrid", "Ctra. de Colmenar, km. 9,100"),
    ("vive en la calle embajadores, 23, 2 A de Madrid", "calle embajadores, 23, 2 A"),
    ("Avda. Manuel Siurot s/n 41013-Sevilla", "Avda. Manuel Siurot s/n"),
    # no street type: a name and a house number right before a postcode; institution words are cut off
    ("Complejo Hospitalario Universitario de Albacete Hermanos Falcó, s/n - 02006 Albacete",
     "Hermanos Falcó, s/n"),
    ("Hospital General de Móstoles Río Júcar, s/n E-28935 Móstoles", "Río Júcar, s/n"),
])
def test_spanish_streets(text: str, street: str) -> None:
    assert _streets("es", text) == [street]


@pytest.mark.parametrize("text", [
    "Vivió en la calle durante 3 años.",  # lower-case type word without a proper name
    "Paseo de 30 minutos diarios; camino 2 km.",  # ambiguous type word, no capitalised name
    "Na 138 mmol/l, K sérico 4,2 mmol/l, Cl. serico 118 mmol/l",  # "Cl." is chloride here
    "Plaza 3 veces al día",
    "Se pautó Avamys 2 pulsaciones y Ventolin 100 mcg.",
    "Hb 12.5 g/dl, TA 120/80 mmHg, T4N0M0, 12/05/2019.",
])
def test_spanish_street_negatives(text: str) -> None:
    assert _streets("es", text) == []


# --- other languages ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang,text,street", [
    ("nl", "Woont aan de Prins Hendrikkade 12 bus 2 in Den Haag.", "Prins Hendrikkade 12 bus 2"),
    ("nl", "Adres: Kalverstraat 5, 1012 NX Amsterdam", "Kalverstraat 5"),
    ("nl", "Praktijk aan de Laan van Meerdervoort 112-A", "Laan van Meerdervoort 112-A"),
    ("de", "Praxis in der Berliner Straße 12, 3. OG, 60311 Frankfurt", "Berliner Straße 12, 3. OG"),
    ("de", "wohnhaft Hauptstraße 3a in Köln", "Hauptstraße 3a"),
    ("de", "Anschrift: Kaiser-Wilhelm-Ring 17, 50672 Köln", "Kaiser-Wilhelm-Ring 17"),
    ("sv", "Bor på Storgatan 12 lgh 1102, 114 55 Stockholm.", "Storgatan 12 lgh 1102"),
    ("sv", "Besök Sveavägen 44, 111 34 Stockholm.", "Sveavägen 44"),
    ("en", "Lives at 1668 Glyn St, Apt. 864, Springfield, IL 62704.", "1668 Glyn St, Apt. 864"),
    ("en", "Office: 10 Downing Street, London SW1A 2AA", "10 Downing Street"),
    ("en", "Mail to P.O. Box 1234, Austin", "P.O. Box 1234"),
    ("en", "The address of Persint is 6750 Koskikatu 25 Apt. 864", "6750 Koskikatu 25 Apt. 864"),
])
def test_streets_other_languages(lang: str, text: str, street: str) -> None:
    assert _streets(lang, text) == [street]


@pytest.mark.parametrize("lang,text", [
    ("nl", "In 2019 CT-scan gemaakt; Hb 8,1 mmol/l; opname 12 dagen."),
    ("de", "During 1971 Spring 2019; Ring 3 mal täglich; Diagnose am 12.05.2019."),
    ("sv", "Behandlingsplan 2 upprättad; Hb 135 g/l."),
    ("en", "During 1971 the patient took 2 Tylenol Extra Strength; seen by 3 Smith doctors."),
    ("en", "Billing address: Sara Schwarz"),  # an address field that holds a name
])
def test_street_negatives_other_languages(lang: str, text: str) -> None:
    assert _streets(lang, text) == []


# --- postcodes --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang,text,zips", [
    ("es", "Localidad/ Provincia: Madrid.\nCP: 28016.\n", ["28016"]),
    ("es", "C/ Seminario, 4. C.P. 02006. Albacete", ["02006"]),
    ("es", "Avda. Escosura, 4 - 6° E-28015 Madrid", ["E-28015"]),
    ("es", "Universidad de Granada, s/n 18071, Granada", ["18071"]),
    ("es", "Distrito Federal, México. CP 14080, México", ["14080"]),  # a foreign postcode after a label
    ("nl", "Adres: Kalverstraat 5, 1012 NX Amsterdam", ["1012 NX"]),
    ("nl", "Postcode: 1012 NX", ["1012 NX"]),
    ("sv", "Storgatan 12, 114 55 Stockholm", ["114 55"]),
    ("sv", "postnummer 114 55", ["114 55"]),
    ("de", "Hauptstraße 3, 10115 Berlin", ["10115"]),
    ("de", "PLZ: 10115", ["10115"]),
    ("en", "Springfield, IL 62704-1234", ["62704-1234"]),
    ("en", "London SW1A 2AA, UK", ["SW1A 2AA"]),
    ("en", "my zip code is 35350", ["35350"]),
])
def test_postcodes_in_address_context(lang: str, text: str, zips: list[str]) -> None:
    assert _zips(lang, text) == zips


@pytest.mark.parametrize("lang,text", [
    ("es", "Leucocitos 17850 Neutrófilos 86%."),  # a lab value followed by a capitalised word
    ("es", "prótesis de 475cc (modelo 20636 Polytech)"),
    ("es", "según esquema de la EORTC 22981 (European"),
    ("es", "Se administraron 28016 unidades."),
    ("nl", "In 2019 CT-scan; 1000 IE heparine."),
    ("de", "Es wurden 10000 Einheiten gegeben."),
    ("sv", "Hb 135 g/l, 120 80 mmHg"),
    ("en", "He paid 35350 dollars in 2019."),
])
def test_postcodes_without_address_context(lang: str, text: str) -> None:
    assert _zips(lang, text) == []


def test_scores_reflect_evidence() -> None:
    r = addresses.AddressRecognizer("es")
    text = "CP: 28016.\nC/ Mayor 5 28013 Madrid.\nConsulta, 28020 Madrid"
    by_text = {text[s.start:s.end]: s.score for s in r.analyze(text) if s.label == "LOCATION.ZIP"}
    assert by_text == {"28016": 0.9, "28013": 0.85, "28020": 0.6}


# --- module API -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "es", "nl", "sv", "de"])
def test_recognizers_protocol(lang: str) -> None:
    dets = addresses.recognizers(lang)
    assert dets and all(isinstance(d, Detector) for d in dets)
    assert addresses.recognizers(lang)[0] is dets[0]
    doc = Document("d", "Calle Mayor 5, 28013 Madrid. Kalverstraat 5. 1668 Glyn St.")
    for d in dets:
        assert d.detect(doc) == d.analyze(doc.text)  # type: ignore[attr-defined]


def test_meddocan_train_sample(meddocan_dir) -> None:  # type: ignore[no-untyped-def]
    """Overlap recall / precision of streets on 80 MEDDOCAN training documents."""
    rec = addresses.AddressRecognizer("es")
    found = n_gold = good_pred = n_pred = 0
    for txt in sorted((meddocan_dir / "train" / "brat").glob("*.txt"))[:80]:
        text = txt.read_text(encoding="utf-8")
        gold = []
        for line in txt.with_suffix(".ann").read_text(encoding="utf-8").splitlines():
            if line.startswith("T") and line.split("\t")[1].startswith("CALLE "):
                _, a, b = line.split("\t")[1].split()[:3]
                gold.append((int(a), int(b)))
        pred = [(s.start, s.end) for s in rec.analyze(text) if s.label == "LOCATION.STREET"]
        n_gold += len(gold)
        n_pred += len(pred)
        found += sum(1 for a, b in gold if any(p < b and a < q for p, q in pred))
        good_pred += sum(1 for p, q in pred if any(p < b and a < q for a, b in gold))
    assert n_gold > 100
    assert found / n_gold >= 0.9 and good_pred / n_pred >= 0.95


# --- adversarial input ------------------------------------------------------------------------------------------
_ADVERSARIAL = {
    "capitalised words": " ".join(["Calle", "Hospital", "Straße", "Madrid", "Avda.", "García"][i % 6]
                                  for i in range(100_000)),
    "one long line": ("Calle Mayor de la Villa " * 45_000)[:1_000_000],
    "digits": "1" * 1_000_000,
    "dashed ones": "1-" * 500_000,
    "postcodes": "28016 Madrid " * 40_000,
    "labels": "Domicilio: " * 90_000,
}


@pytest.mark.parametrize("name", list(_ADVERSARIAL))
def test_adversarial_inputs_finish_quickly(name: str) -> None:
    text = _ADVERSARIAL[name]
    for det in addresses.recognizers("es"):
        t0 = time.process_time()
        det.analyze(text)  # type: ignore[attr-defined]
        assert time.process_time() - t0 < 5.0, (name, det.name)
