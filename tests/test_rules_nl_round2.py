"""Dutch rules, second round: what the second blind Dutch set (``tests/data/nl-notes-2``) showed missing, one
test per kind of context with invented positives and negatives, a floor on that set, and time budgets for every
new pattern on adversarial input (no catastrophic backtracking).

The kinds (see ``benchmarks/own_notes.py``, row ``dutch_notes_2``): ages of relatives and infants, ordinal ages,
ages in brackets after a lower-case name; day-month dates without a year after Dutch date words (also with a
dash), a week of a year; names after person words (a surname that is also a noun: "Bos", "Post"), double surnames
with a particle, nicknames in brackets, lower-case names after an honorific, "in 't" as a particle; client,
relative and carer fields; client and information-system numbers; beds; care practices, home care, schools and
employers; hospitals' short names; Dutch street additions and leading words; a Dutch number to call starts with 0.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from _rules import found, rules_pipeline
from clinanon.detect.rules import addresses, ages, dates, fields, identifiers, letters, names, organizations
from clinanon.document import Document
from clinanon.evaluate import evaluate
from clinanon.taxonomy import get_scheme

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import own_notes

#: (precision, recall) floors of token-binary scoring on the second Dutch set, rules only (0.982 / 0.981 when set;
#: the blind first run was 0.972 / 0.849)
FLOOR = (0.96, 0.95)


def nl(text: str) -> list[tuple[str, str]]:
    return found(rules_pipeline("nl"), text)


def surfaces(text: str, label: str | None = None) -> list[str]:
    return [t for t, lab in nl(text) if label is None or lab == label or lab.startswith(label + ".")]


# --- the set -------------------------------------------------------------------------------------------------

def test_second_dutch_set_is_valid_brat() -> None:
    docs = own_notes.load("nl2")
    assert len(docs) == 20
    scheme = get_scheme("canonical")
    assert sum(len(d.spans) for d in docs) == 300
    for d in docs:
        assert all(s.label in scheme and d.text[s.start:s.end].strip() == d.text[s.start:s.end] for s in d.spans)


def test_second_dutch_set_floor() -> None:
    docs = own_notes.load("nl2")
    pred = own_notes.predict(own_notes.pipeline("nl", "rules"), docs)
    rep = evaluate(docs, pred, lang="nl", scheme=get_scheme("canonical"), label_map="type").to_dict()
    tb = rep["measures"]["token_binary"]["micro"]
    assert tb["precision"] >= FLOOR[0], tb
    assert tb["recall"] >= FLOOR[1], tb


# --- ages ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "ages_found"), [
    ("Zuigeling van 3 mnd oud, gebracht door moeder.", ["3"]),
    ("Dochter van 14 jaar komt mee naar het gesprek.", ["14"]),
    ("Kleinzoon van 19 jaar helpt met boodschappen.", ["19"]),
    ("Zoontje van 4 mnd met bronchiolitis.", ["4"]),
    ("Opa van 79 jaar woont bij hen in.", ["79"]),
    ("Sinds zijn 40e bekend met hypertensie.", ["40"]),
    ("Vanaf haar 16de rookt zij.", ["16"]),
    ("Betreft: Noor Claessens, geboren 3 april 2019 (5 jaar en 5 maanden)", ["5", "5"]),
    ("mw. bets van der meer (88), opgen. ivm delier", ["88"]),
    ("Cliënte: Wietske Dijkstra, 31 jaar, G2P1", ["31"]),
])
def test_nl_ages(text: str, ages_found: list[str]) -> None:
    assert surfaces(text, "AGE") == ages_found


@pytest.mark.parametrize("text", [
    "Dit is zijn 3e poging om te stoppen met roken.",
    "Zij is haar 2e zwangerschap ingegaan.",
    "Klachten bestaan (2 jaar en 3 maanden) al.",
    "Vader overleed 10 jaar geleden aan een CVA.",
    "Opname duurde 3 mnd en daarna revalidatie.",
    "Gewicht (88) genoteerd in de lijst.",
    "Moeder is al 3 jaar ziek.",
    "Vader rookt sinds 20 jaar.",
])
def test_nl_not_ages(text: str) -> None:
    assert surfaces(text, "AGE") == []


# --- dates ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "date"), [
    ("mw. de Boer, opgen. 4/11 ivm delier", "4/11"),
    ("Nitrofurantoïne 2 dd 100 mg t/m 9/11.", "9/11"),
    ("Laatste defecatie 5/11.", "5/11"),
    ("Op 24-05 volgde een rechterlijke machtiging.", "24-05"),
    ("Operatie gepland in week 36 van 2024.", "week 36 van 2024"),
    ("Vaccinatie in week 14 (2021) gegeven.", "week 14 (2021)"),
])
def test_nl_dates(text: str, date: str) -> None:
    assert date in surfaces(text, "DATE")


@pytest.mark.parametrize("text", [
    "Graag op 2-3 momenten per dag mobiliseren.",
    "Druk op 10-12 mmHg gehouden.",
    "Echo in week 20 gepland, AD 39+4 weken.",
    "Verhouding 1/3 van de dosis.",
    "Score 24-05 op de schaal.",
])
def test_nl_not_dates(text: str) -> None:
    assert surfaces(text, "DATE") == []


# --- names ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "name"), [
    ("Besproken met supervisor R. Bos.", "R. Bos"),
    ("Telefonisch overleg met huisarts Post over de INR.", "Post"),
    ("Patiënt Bos krijgt vanavond bloed.", "Bos"),
    ("Afspraak met dochter Ingrid Smit gemaakt.", "Ingrid Smit"),
    ("Mw. Mulder-van der Linden heeft een katheter.", "Mulder-van der Linden"),
    ("mevr. A.M. van den Bosch-de Wit is gevallen.", "A.M. van den Bosch-de Wit"),
    ("dhr. j. de vries ligt op kamer 3.", "j. de vries"),
    ("Ouders: Bart en Mirjam Claessens-de Jong.", "Mirjam Claessens-de Jong"),
    ("Betreft: dhr. G.J. (Gert) Lubbers, geb. 02-09-1951", "G.J. (Gert) Lubbers"),
    ("Patiënt: mevr. Johanna Cornelia (Anneke) Zuidema-Bakker", "Johanna Cornelia (Anneke) Zuidema-Bakker"),
    ("Pt. j. mulder vandaag niet verschenen.", "j. mulder"),
    ("mw. bets van der meer is onrustig.", "bets van der meer"),
    ("Overdracht: dhr. K. in 't Veld onrustig.", "K. in 't Veld"),
    ("Gezien door A. Post, arts-assistent.", "A. Post"),
    ("de 71-jarige heer Lubbers kwam op de poli.", "Lubbers"),
    ("Cliënte: Wietske Dijkstra, 31 jaar", "Wietske Dijkstra"),
    ("Partner: Jelmer Postma, tel. 06-19283746.", "Jelmer Postma"),
    ("Verloskundige: Geertje de Haan", "Geertje de Haan"),
])
def test_nl_names(text: str, name: str) -> None:
    assert name in surfaces(text, "NAME")


@pytest.mark.parametrize("text", [
    "VERPLEEGKUNDIGE RAPPORTAGE\nDienst: avond. Dhr. is rustig.",  # a heading in capitals above the text
    "dhr. is rustig geslapen.",
    "Pt. is misselijk na de kuur.",
    "mw. heeft pijn in de rug.",
    "Uitval van de N. ulnaris links.",
    "Injectie in de M. Deltoideus gegeven.",
    "V. Cava superior syndroom.",
    "Partner: geen",
    "Contactpersoon: zoon",
    "De huisarts Gebeld? Nee.",
])
def test_nl_not_names(text: str) -> None:
    assert surfaces(text, "NAME") == []


def test_nl_role_of_the_hospital_is_no_name() -> None:
    assert all("van het" not in s for s in surfaces("verwezen naar de kinder-MDL-arts van het Erasmus MC-Sophia"))


# --- identifiers, rooms, phones ------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "value"), [
    ("Patiënt: Rick van Wijk, ZIS 0093381", "0093381"),
    ("geb. 05-11-1994, cliëntnummer 2211348", "2211348"),
    ("HiX-nr: 1234567", "1234567"),
])
def test_nl_record_numbers(text: str, value: str) -> None:
    assert (value, "ID.MEDICALRECORD") in nl(text)


def test_nl_record_words_alone_are_no_label() -> None:
    assert nl("De zis was traag vandaag.") == []
    assert surfaces("cliënt 3 keer gezien", "ID") == []


def test_nl_bed_is_a_room() -> None:
    assert ("4", "LOCATION.ROOM") in nl("Mevr. Ouwehand, bed 4, heeft om 03:00 uur pijn.")
    assert surfaces("Ligt al 2 dagen in bed en is 3 keer gevallen.", "LOCATION") == []


def test_nl_number_to_call_starts_with_its_trunk_zero() -> None:
    assert surfaces("Artikelnummer 633021001 van het verbandmiddel.", "CONTACT") == []
    assert "0612345678" in surfaces("Tel: 0612345678", "CONTACT")
    assert "+31 6 1234 5678" in surfaces("Contact via dochter: +31 6 1234 5678.", "CONTACT")


# --- places: care sites, hospitals, employers, streets -------------------------------------------------------

@pytest.mark.parametrize(("text", "place"), [
    ("Afdeling Kindergeneeskunde, Amphia Breda", "Amphia"),
    ("Beeldvorming verricht in het St. Jansdal, CD-rom opgevraagd.", "St. Jansdal"),
    ("Verwezen naar Meander voor een MRI.", "Meander"),
    ("Pathologie van het Catharina Ziekenhuis bevestigt het.", "Catharina Ziekenhuis"),
    ("Patiënt werkt als monteur bij Tata Steel in IJmuiden.", "Tata Steel"),
    ("Verloskundigenpraktijk De Wieg, Leeuwarden", "Verloskundigenpraktijk De Wieg"),
    ("Rapportage wijkverpleging Thuiszorg West-Brabant, team Roosendaal", "Thuiszorg West-Brabant"),
    ("Huisarts Van den Broek (Praktijk Tolberg) gebeld.", "Praktijk Tolberg"),
    ("Kinderdagverblijf De Kikker meldt koorts.", "Kinderdagverblijf De Kikker"),
])
def test_nl_care_sites_and_employers(text: str, place: str) -> None:
    assert place in surfaces(text, "LOCATION")


def test_nl_school_name_is_found() -> None:
    assert any("De Regenboog" in s for s in surfaces("Zoon zit op basisschool De Regenboog in Zeist.", "LOCATION"))


@pytest.mark.parametrize("text", [
    "Praktijk gesloten wegens ziekte.",
    "Apotheek gebeld over de medicatie.",
    "Thuiszorg 3x daags voor de medicatie.",
    "Hij werkt als monteur bij de gemeente.",
])
def test_nl_care_words_alone_are_no_place(text: str) -> None:
    assert surfaces(text, "LOCATION") == []


@pytest.mark.parametrize(("text", "street"), [
    ("Woont op Burg. de Withstraat 4-II in Amsterdam.", "Burg. de Withstraat 4-II"),
    ("Thuisadres Van Limburg Stirumstraat 88 bis, 's-Hertogenbosch.", "Van Limburg Stirumstraat 88 bis"),
    ("Dokter van Thienenweg 1, 8025 AB Zwolle", "Dokter van Thienenweg 1"),
    ("Woonachtig Hoofdweg 231, Nieuwe Pekela.", "Hoofdweg 231"),
    ("Prins Hendrikkade 12 ter hoogte van de brug.", "Prins Hendrikkade 12"),
    ("Kerkstraat 3-hs, Utrecht", "Kerkstraat 3-hs"),
])
def test_nl_streets(text: str, street: str) -> None:
    assert street in surfaces(text, "LOCATION.STREET")


def test_nl_municipality_after_gemeente() -> None:
    assert ("Smallingerland", "LOCATION.CITY") in nl("Zij woont in de gemeente Smallingerland.")
    assert ("Pekela", "LOCATION.CITY") in nl("Woonachtig in Nieuwe Pekela (gemeente Pekela).")
    assert surfaces("De gemeente Regelt de Wmo-aanvraag.", "LOCATION") == []


def test_nl_address_field_ends_at_a_semicolon() -> None:
    streets = surfaces("Adres: Harlingerstraatweg 12, Leeuwarden; thuisbevalling gepland.", "LOCATION.STREET")
    assert streets and all("thuisbevalling" not in s for s in streets)


# --- time budgets --------------------------------------------------------------------------------------------

def _adversarial() -> list[str]:
    """Long runs aimed at the new patterns: repeated prefixes that almost match, 100 k-word runs, 1 MB lines."""
    n = 20_000
    return [
        "mw. " + "a. " * n + "jansen",
        "dhr. " + "bets van der " * n,
        "Mulder-van der " * n,
        "dhr. " + "G.J. (Gert) " * n,
        "Patiënt " + "R. " * n + "Bos",
        "huisarts " * n,
        "sinds zijn 40e " * n,
        "(5 jaar en " * n + "5 maanden)",
        "(" * n + "88)",
        "week 3 van " * n,
        "op 12-12-" * n,
        "t/m " * n + "9/11",
        "Burg. de " * n + "Withstraat 4-II",
        "Van der " * n + "straat 1",
        "Woonachtig " * n + "Hoofdweg 2",
        "werkt als monteur bij " * n,
        "ZIS cliëntnummer HiX-nr " * n,
        "bed " * n,
        "gemeente " * n + "Pekela",
        "Cliënte: Partner: Verloskundige: " * n,
        "Adres: " + "Kerkstraat 1, Utrecht; " * n,
        "6" * (5 * n),
        ("Abcdef Ghijk Jan Mevr. J. Van der Bos, " * 30_000)[:1_000_000],
    ]


def test_nl_new_patterns_are_linear_on_adversarial_input() -> None:
    recs = [*names.recognizers("nl"), *ages.recognizers("nl"), *dates.recognizers("nl"),
            *addresses.recognizers("nl"), *fields.recognizers("nl"), *identifiers.recognizers("nl"),
            *letters.recognizers("nl"), *organizations.recognizers("nl")]
    for text in _adversarial():
        t0 = time.process_time()
        for r in recs:
            r.detect(Document("t", text))
        assert time.process_time() - t0 < 15.0, text[:40]


def test_nl_pipeline_is_fast_on_a_long_terse_note() -> None:
    note = ("mw. bets van der meer (88), opgen. 4/11 ivm delier; zoon Henk 06-28394050; bed 4; "
            "Burg. de Withstraat 4-II; Mulder-van der Linden; dhr. G.J. (Gert) Lubbers.\n") * 2_000
    t0 = time.process_time()
    rules_pipeline("nl").detect_spans(Document(id="t", text=note))
    assert time.process_time() - t0 < 30.0


@pytest.mark.parametrize(("text", "want"), [
    ("Mevrouw woont in verpleeghuis De Koperhorst te Zwolle.", "De Koperhorst"),
    ("Opgenomen in woonzorgcentrum De Linde.", "De Linde"),
    ("Huisartsenpraktijk De Zonnehoek, Utrecht", "Huisartsenpraktijk De Zonnehoek"),
])
def test_lower_case_care_site_head_stays_out_of_the_span(text: str, want: str) -> None:
    """The convention of the Dutch sets: a lower-case head before the name is no part of it ("verpleeghuis [De
    Koperhorst]"); a capitalised one is ("[Huisartsenpraktijk De Zonnehoek]")."""
    from _rules import found, rules_pipeline

    assert (want, "LOCATION.HOSPITAL") in found(rules_pipeline("nl"), text)
