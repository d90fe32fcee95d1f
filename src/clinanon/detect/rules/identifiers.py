"""Identifiers: values introduced by field labels, and numbers that carry a checksum.

A field label is never PHI itself; its value usually is. :class:`FieldValueRecognizer` finds a label of the
language (``NHC:``, ``NASS:``, ``NºCol:``, ``Episodio:``, ``MRN``, ``BSN``, ``personnummer``, ``Fallnummer``,
``Versichertennummer``...) and emits the value that follows it: tokens that contain a digit (letters, one or
two spaces, dashes, slashes and dots may join them), up to the line end or the next word without a digit (so
the next field label ends it). The label decides the category (``ID.MEDICALRECORD``, ``ID.HEALTHPLAN``,
``ID.LICENSE``, ``ID.ACCOUNT``, ``ID.SSN``, ``ID.IDNUM``). A short value prefix glued to the value
(``nhc-4654652``) is left out of the span, as MEDDOCAN does.

:class:`ChecksumRecognizer` finds unlabelled numbers that pass a check (:mod:`clinanon.lang.checksums`):
Spanish DNI/NIE/NASS, Dutch BSN, Swedish personnummer, German KVNR, US SSN, UK NHS number, payment cards
(Luhn) and IBANs (mod 97). A context word before the number raises its score; BSN, NHS numbers and bare
9-digit SSNs score below 0.5 without one.

:class:`SwedishPersonnummerRecognizer` finds a personnummer whose check digit fails (a typo) where the text says
whose number it is: after a personnummer label, a patient header or a person's name (scored below the valid form).

:class:`LongNumberRecognizer` finds what no check explains: a run of 13 or more digits (up to four letters
glued before it, two after) is an identifier (``ID.IDNUM``, score 0.6) — an accession, specimen, account or
record number. Nothing else in a note is that long: lab values, doses and measurements have a few digits,
phone numbers at most 12 or 13 (the phone rules score higher and keep theirs), dates 8, and a decimal's
fraction (``5.1234567890123``) is skipped; payment card numbers (13-19 digits passing Luhn) are left to the
checksum recognizer. A labelled value may be that long too (``MRN: <40 digits>``): a value token has up to 64
characters.

Speed: labels are found in two steps — a literal keyword scan over the lower-cased text, then the full label
+ value regex only in a window around each keyword. All patterns are linear (bounded quantifiers,
separators required between repeated tokens).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from clinanon.caches import memo
from clinanon.detect.base import Detector
from clinanon.detect.engine import prefix_guard
from clinanon.document import Document, Span
from clinanon.lang import check_language
from clinanon.lang import checksums as cs
from clinanon.lang.lexicon import is_common, is_name_word

__all__ = [
    "FIELD_LABELS",
    "ChecksumRecognizer",
    "FieldLabel",
    "FieldValueRecognizer",
    "LongNumberRecognizer",
    "SwedishPersonnummerRecognizer",
    "id_label_regex",
    "recognizers",
]

_WORDS = re.compile(r"\w+")


@dataclass(frozen=True)
class FieldLabel:
    """One family of field labels.

    ``regex`` matches the label (case-insensitive); ``keywords`` are lower-case literals of which every match
    contains at least one (they drive the fast scan); a weak label (``strong=False``) needs ``:``, ``#`` or
    ``=`` between label and value. A keyword written ``r"\bcip"`` must start a word (``r"\bdni\b"``: be a
    whole word); ``keyword_prefix`` / ``keyword_suffix`` (regexes matched on the lower-cased text that ends /
    starts at a hit) keep common words such as "ingreso" from triggering the full label regex.
    """

    name: str
    regex: str
    category: str
    keywords: tuple[str, ...]
    strong: bool = True
    #: a regex the lower-cased text must match just before a keyword hit (e.g. a number sign)
    keyword_prefix: str | None = None
    #: a regex the lower-cased text must match right after a keyword hit (anchored with ``^``)
    keyword_suffix: str | None = None


_NO = r"(?:n[º°o]\.?|nr\.?|no\.?|núm\.?|num\.?|número|numero|number|nummer|#)"
_L = FieldLabel

_NO_BEFORE = r"(?:n[º°o]\.?|nr\.?|núm\.?|num\.?|número|numero|number|#)\s?(?:(?:de|of)\s)?(?:la\s|the\s)?$"

FIELD_LABELS: dict[str, tuple[FieldLabel, ...]] = {
    "es": (
        _L("nhc", r"n\.?\s?h\.?\s?c", "ID.MEDICALRECORD", ("nhc", "n.h.c", r"\bn. h. c")),
        _L("cip", r"cipa?", "ID.MEDICALRECORD", (r"\bcip",)),
        _L("historia", rf"{_NO}\s?(?:de\s)?historia(?:\s(?:clínica|clinica))?|historia\s(?:clínica|clinica)"
                       rf"(?:\s{_NO})?", "ID.MEDICALRECORD", ("historia",)),
        _L("historia_weak", r"historia", "ID.MEDICALRECORD", ("historia",), False),
        _L("paciente", rf"{_NO}\s?(?:de\s)?paciente", "ID.MEDICALRECORD", ("paciente",),
           keyword_prefix=_NO_BEFORE),
        _L("id_paciente", r"id\.?\s(?:del?\s)?paciente|código\sde\spaciente", "ID.MEDICALRECORD",
           (r"\bid\b", "código de paciente")),
        _L("nass", r"n\.?\s?a\.?\s?s\.?\s?s|n\.?\s?s\.?\s?s|n\.?\s?u\.?\s?s\.?\s?s", "ID.HEALTHPLAN",
           ("nass", "nss", "nuss", "n.a.s", "n.s.s", "n.u.s", r"\bn. a. s", r"\bn. s. s")),
        _L("seguridad_social", rf"(?:{_NO}\s?(?:de\s)?(?:la\s)?)?(?:seguridad\ssocial|afiliaci[óo]n)",
           "ID.HEALTHPLAN", ("seguridad social", "afiliaci")),
        _L("tarjeta", rf"tarjeta\ssanitaria(?:\sindividual)?(?:\s{_NO})?|tsi|{_NO}\s?(?:de\s)?"
                      r"(?:póliza|poliza|asegurado)", "ID.HEALTHPLAN",
           ("tarjeta sanitaria", r"\btsi\b", "póliza", "poliza", "asegurado")),
        _L("colegiado", rf"{_NO}\s?(?:de\s)?col(?:eg(?:iad[oa])?)?\.?|col(?:egiad[oa])?\.?\s?{_NO}",
           "ID.LICENSE", ("colegiad", r"\bcol."), ),
        _L("colegiado_no", rf"{_NO}\s?(?:de\s)?col(?:eg(?:iad[oa])?)?\.?", "ID.LICENSE", ("col",),
           keyword_prefix=_NO_BEFORE),
        _L("episodio", rf"(?:{_NO}\s?(?:de\s)?)?episodio", "ID.ACCOUNT", ("episodio",)),
        _L("ingreso", rf"{_NO}\s?(?:de\s)?(?:ingreso|cuenta|factura|referencia)", "ID.ACCOUNT",
           ("ingreso", "cuenta", "factura", "referencia"), keyword_prefix=_NO_BEFORE),
        _L("dni", r"d\.?\s?n\.?\s?i|n\.?\s?i\.?\s?e|n\.?\s?i\.?\s?f|pasaporte", "ID.IDNUM",
           (r"\bdni\b", r"\bd.n.i", r"\bnie\b", r"\bnif\b", r"\bn.i.", "pasaporte")),
        _L("documento", rf"(?:{_NO}\s?(?:de\s)?)?documento(?:\sde\sidentidad)?", "ID.IDNUM", ("documento",), False),
        _L("id", r"id|código|codigo|referencia|ref\.?", "ID.IDNUM",
           (r"\bid\b", r"\bcódigo\b", r"\bcodigo\b", r"\breferencia\b", r"\bref\b"), False),
        _L("cuenta", r"cuenta|iban", "ID.ACCOUNT", (r"\bcuenta\b", "iban"), False),
    ),
    "en": (
        _L("mrn", rf"mrn|medical\srecord(?:\s{_NO})?|med\.?\srec\.?(?:\s{_NO})?|mr[ \t]?(?:#|no\.?(?=[ \t:#]))",
           "ID.MEDICALRECORD", ("mrn", "medical record", r"\bmed rec", r"\bmed. rec", r"\bmr#", r"\bmr #",
                                r"\bmr no")),
        _L("record_no", rf"(?:hospital|record|chart|unit|patient)\s(?:id|{_NO})", "ID.MEDICALRECORD",
           ("hospital", "record", "chart", r"\bunit", "patient"), keyword_prefix=None,
           keyword_suffix=rf"^\s(?:id|{_NO})"),
        _L("health_plan", rf"nhs\s{_NO}|(?:member|subscriber|beneficiary|insurance|policy)\s(?:id|{_NO})"
                          rf"|health\splan\s(?:id|{_NO})|(?:medicare|medicaid)\s(?:id|{_NO})", "ID.HEALTHPLAN",
           (r"\bnhs\b", "member", "subscriber", "beneficiary", "insurance", "policy", "health plan", "medicare",
            "medicaid"), keyword_suffix=rf"^\s(?:plan\s)?(?:id|{_NO})"),
        _L("health_plan_weak", r"nhs|health\splan|medicare|medicaid|policy", "ID.HEALTHPLAN",
           (r"\bnhs\b", "health plan", "medicare", "medicaid", "policy"), False),
        _L("ssn", rf"ssn|ss#|social\ssecurity(?:\s{_NO})?", "ID.SSN", (r"\bssn\b", r"\bss#", "social security")),
        _L("license", rf"(?:driver'?s\s)?licen[cs]e\s{_NO}|lic\.?\s?{_NO}|dea\s{_NO}|npi|gmc(?:\s{_NO})?",
           "ID.LICENSE", ("licence", "license", r"\blic\b", r"\bdea\b", r"\bnpi\b", r"\bgmc\b")),
        _L("account", rf"(?:account|acct\.?)\s{_NO}|(?:encounter|visit|admission|case|episode|billing|invoice)\s"
                      rf"(?:id|{_NO})", "ID.ACCOUNT",
           ("account", "acct", "encounter", "visit", "admission", r"\bcase", "episode", "billing", "invoice"),
           keyword_suffix=rf"^\.?\s(?:id|{_NO})"),
        _L("passport", rf"passport(?:\s{_NO})?|(?:reference|ref\.?)\s{_NO}", "ID.IDNUM",
           ("passport", "reference", r"\bref\b")),
        # numbers of reports, cases and events after their label word, without a colon ("Accession # CT24-03",
        # "WORKERS COMP CLAIM WC-2023-1188", "Msg ID 5581", "badge 1187", "serial BSX-4482", "(ID 4471)")
        _L("report_no", rf"accession(?:\s{_NO})?|claim|msg\.?\sid|message\sid|badge|interpreter\s(?:id|{_NO})"
                        rf"|(?:study\s|series\s|sop\s(?:instance\s)?)?uid|(?<=\()id", "ID.IDNUM",
           ("accession", "claim", r"\bmsg", "message id", "badge", "interpreter", r"\buid\b", r"\bid\b")),
        _L("device_serial", rf"serial(?:\s{_NO})?|s/n", "ID.DEVICE", ("serial", r"\bs/n\b")),
        _L("plate", rf"(?:licen[cs]e\s|tag\s)?plate(?:\s{_NO})?", "ID.VEHICLE", (r"\bplate\b",)),
        _L("license_word", rf"(?:driver'?s\s)?licen[cs]e|cdl(?:\s{_NO})?|dea", "ID.LICENSE",
           ("licence", "license", r"\bcdl\b", r"\bdea\b")),
        _L("account_word", r"account|acct\.?", "ID.ACCOUNT", ("account", "acct")),
        _L("plan_word", r"sub\.?\s?id", "ID.HEALTHPLAN", (r"\bsub",)),
        _L("crew_weak", r"paramedic|emt(?:-[bp])?", "ID.LICENSE", ("paramedic", r"\bemt"), False),
        # weak (a colon or number sign before the value): "Case: S24-11793", "ACC: MR-88214", "ref #2311",
        # "INCIDENT # 24-0088"; "PARAMEDIC #P-40117" (crew_weak); "Policy: 8841-22" (health_plan_weak)
        _L("report_weak", r"case|acc|ref|incident", "ID.IDNUM",
           (r"\bcase\b", r"\bacc\b", r"\bref\b", "incident"), False),
        _L("id", r"id(?:\s(?:no\.?|number|#))?|licen[cs]e|encounter|account|acct\.?|dea", "ID.IDNUM",
           (r"\bid\b", "licence", "license", "encounter", "account", "acct", r"\bdea\b"), False),
    ),
    "nl": (
        _L("patientnummer", rf"pati[eë]nt(?:en)?(?:nummer|nr\.?|-?id)|pati[eë]nt\s(?:{_NO}|id)|ziekenhuisnummer"
                            r"|zh-?nr\.?|dossiernummer|dossier\s?nr\.?|registratienummer|epd-?nummer"
                            # a GGZ client's number, the hospital information system's ("ZIS 0093381", "HiX-nr")
                            r"|cli[eë]nt(?:en)?(?:nummer|nr\.?|-?id)|zis(?:-?(?:nummer|nr\.?))?|hix(?:-?(?:nummer|nr\.?))?"
                            # "Pat.nr.: 8820417", "SEH-nummer: 2025-041873", "Z-nummer Z1283455", "Z-nr: Z0459812"
                            r"|pat\.?[ \t]?nr\.?|seh-?(?:nummer|nr\.?)|z-?(?:nummer|nr\.?)"
                            # an ambulance ride's, a pathology sample's number ("Ritnummer: 2503-118742", "PA-nummer")
                            r"|rit-?(?:nummer|nr\.?)|pa-?(?:nummer|nr\.?)",
           "ID.MEDICALRECORD", ("patient", "patiënt", "ziekenhuisnummer", r"\bzh", "dossier", "registratienummer",
                                r"\bepd", "client", "cliënt", r"\bzis", r"\bhix", r"\bpat", r"\bseh", r"\bz-",
                                r"\bznummer", r"\bznr", r"\brit", r"\bpa-?n")),
        # a court's or a youth-protection case's number ("Zaaknummer: JBO-24-08813")
        _L("zaak", r"zaaknummer|zaak\s?nr\.?|kenmerk", "ID.IDNUM", ("zaak", "kenmerk")),
        _L("big_nummer", r"big-?(?:nummer|nr\.?|registratie(?:nummer)?)", "ID.LICENSE", (r"\bbig",)),
        _L("bsn", r"bsn|burgerservicenummer|sofi-?nummer", "ID.SSN", (r"\bbsn\b", "burgerservicenummer", "sofi")),
        _L("polis", r"polisnummer|polis\s?nr\.?|verzekerings?nummer|verzekerdennummer|zorgverzekeringsnummer",
           "ID.HEALTHPLAN", ("polis", "verzeker")),
        _L("big", r"big(?:-?(?:nummer|nr\.?|registratie(?:nummer)?))?|agb(?:-?code)?", "ID.LICENSE",
           (r"\bbig", r"\bagb"), False),
        _L("opname", r"opnamenummer|opname\s?nr\.?|rekeningnummer|factuurnummer|zorgtrajectnummer|dbc-?nummer",
           "ID.ACCOUNT", ("opname", "rekeningnummer", "factuurnummer", "zorgtrajectnummer", r"\bdbc")),
        _L("id", r"paspoortnummer|documentnummer|id-?nummer|id", "ID.IDNUM",
           ("paspoortnummer", "documentnummer", r"\bid"), False),
    ),
    "sv": (
        _L("personnummer", r"personnummer|person-?nr\.?|pnr\.?|samordningsnummer|p-?nr\.?", "ID.SSN",
           ("personnummer", "person-nr", "personnr", r"\bpnr", "samordningsnummer", r"\bp-nr")),
        _L("journal", r"journalnummer|journal\s?nr\.?|patientnummer|patient-?id|reservnummer", "ID.MEDICALRECORD",
           ("journal", "patient", "reservnummer")),
        _L("forsakring", r"försäkringsnummer|försäkrings\s?nr\.?", "ID.HEALTHPLAN", ("försäkrings",)),
        _L("legitimation", r"förskrivarkod|legitimationsnummer|hsa-?id", "ID.LICENSE",
           ("förskrivarkod", "legitimationsnummer", r"\bhsa")),
        _L("vardtillfalle", r"vårdtillfälle(?:snummer)?|kontonummer|fakturanummer|remissnummer|besöksnummer",
           "ID.ACCOUNT", ("vårdtillfälle", "kontonummer", "fakturanummer", "remissnummer", "besöksnummer")),
        _L("id", r"passnummer|id-?nummer|id", "ID.IDNUM", ("passnummer", r"\bid"), False),
    ),
    "de": (
        _L("patienten_id", r"patienten-?id|patientennummer|patienten-?nr\.?|pat\.?-?(?:nr|id)\.?|pid",
           "ID.MEDICALRECORD", ("patienten", r"\bpat", r"\bpid\b")),
        _L("fallnummer", r"fallnummer|fall-?nr\.?|fall-?id|aufnahmenummer|aufnahme-?nr\.?|kontonummer"
                         r"|rechnungsnummer|auftragsnummer|besuchsnummer|aktenzeichen|einsatznummer|einsatz-?nr\.?|aufnahmezahl"
                         r"|eingangsnummer|eingangs-?nr\.?", "ID.ACCOUNT",
           (r"\bfall", "aufnahme", "kontonummer", "rechnungsnummer", "auftragsnummer", "besuchsnummer",
            "aktenzeichen", "einsatz", "eingangs")),
        # the Institutionskennzeichen of an insurer or a care provider ("IK 101097008"); an Austrian record's
        # "Zahl:" and a psychotherapy report's "Chiffre:" (weak: ":" before the value)
        _L("ik", r"ik|ik-?nr\.?|institutionskennzeichen", "ID.IDNUM", (r"\bik\b", r"\bik-", "institutionskennzeichen")),
        _L("zahl", r"zahl|chiffre", "ID.IDNUM", (r"\bzahl", "chiffre"), False),
        _L("versichertennummer", r"(?:kranken)?versichertennummer|versicherten-?nr\.?|kvnr|vers\.?-?nr\.?"
                                 r"|versicherungsnummer|mitgliedsnummer", "ID.HEALTHPLAN",
           ("versicherten", r"\bkvnr", r"\bvers", "mitgliedsnummer")),
        _L("sozialversicherung", r"sozialversicherungsnummer|sv-?nummer|rentenversicherungsnummer|steuer-?id"
                                 r"|steueridentifikationsnummer", "ID.SSN",
           ("sozialversicherungsnummer", r"\bsv-", r"\bsvnummer", "rentenversicherungsnummer", "steuer")),
        _L("arztnummer", r"lanr|bsnr|arztnummer|arzt-?nr\.?|approbationsnummer", "ID.LICENSE",
           (r"\blanr", r"\bbsnr", "arztnummer", "arzt-nr", "arztnr", "approbationsnummer")),
        _L("id", r"ausweisnummer|personalausweis(?:nummer)?|reisepass(?:nummer)?|id", "ID.IDNUM",
           ("ausweis", "reisepass", r"\bid"), False),
    ),
}

# One token of a value holds a digit; tokens are joined by one or two spaces, a dash, a slash or a dot.
_TOKEN = r"[A-Z]{0,4}\d[0-9A-Z]{0,63}"
# a value may end with one capital and a last block of digits (a German pension number "12 150385 M 123")
_VALUE = (rf"(?:[A-Z]{{1,4}}[-/])?{_TOKEN}(?:(?:[ ]{{1,2}}|[\-/.]){_TOKEN}){{0,6}}"
          r"(?:[\-/ ](?-i:[A-Z])(?:[ ]\d{1,4})?(?![\w.]))?")
_VALUE_PREFIX = r"(?:(?:nhc|hc|mrn|nr|no|n[º°])[\-/.:#]?[ \t]?(?=\d)|#[ \t]?)?"
# English values may also be a dotted object identifier (a DICOM UID, "1.2.840.113619.2.55"), start with two to
# four capitals and a space before a digit ("MRN HRM 0455187", "plate HZT 4471", "plate MA 4TRK81") or with two
# letter prefixes ("Claim # NH-WC-7710")
_VALUE_EN = (rf"(?:\d{{1,10}}\.){{5,40}}\d{{1,39}}(?!\w|\.\d)"
             rf"|(?P<caps>(?-i:[A-Z]{{2,4}})[ ](?=\d))?(?:[A-Z]{{1,4}}-(?=[A-Z]{{1,4}}[-/]))?{_VALUE}")
#: the English labels whose value may start with capitals and a space (elsewhere "serial CXR 10/12" is no serial)
_EN_CAPS_PREFIX_LABELS = frozenset(("mrn", "plate"))
#: the English labels that are ordinary words (a value after them is no dose, lab value or day of the month)
_EN_WORD_LABELS = frozenset(("report_no", "device_serial", "plate", "license_word", "account_word", "plan_word",
                             "crew_weak", "report_weak"))
_EN_YEAR = re.compile(r"(?:19|20)\d\d")
_EN_NOT_ID_VALUE = re.compile(r"\d{1,2}/\d{1,2}|\d{1,4}(?:\.\d+)?")
_EN_UNIT_AFTER = re.compile(r"[ \t]?(?:mg|mcg|ml|g|kg|l|units?|u|%|mmhg|meq|mmol|cc|x|times|days?|weeks?|wks?"
                            r"|months?|mos?|years?|yrs?|hours?|hrs?|min)(?![^\W\d_])", re.IGNORECASE)
#: US state and territory codes: a plate's state before its number ("PLATE MA 4TRK81") is not part of it
_EN_STATE_CODES = frozenset(re.findall(
    r"\w\w", "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC "
               "ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR GU VI"))
# between label and value: a colon / number sign / equals sign, a dot, a dash, a copula ("license number is
# 6940579", "es", "är", "ist") or a space
_SEP = (r"(?P<sep>[ \t]{0,3}(?:[:#=][ \t]{0,3}\n?[ \t]{0,3}|\.[ \t]{1,3}|-[ \t]{1,3}"
        r"|[ \t]{1,3}(?:is|was|es|era|är|var|ist|war)[ \t]{1,3}(?:[:#][ \t]{0,3})?|[ \t]))")
_DATE_VALUE = re.compile(r"\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}[./-]\d{1,2}[./-]\d{1,2}")


def _en_word_value_refused(name: str, value: str, m: re.Match[str]) -> bool:
    """Whether the value after an English label that is an ordinary word ("claim", "serial", "account") is a
    quantity, not a number of record: a dose or duration ("account 500 mg"), a bare year without ``:``/``#``
    ("claim 2019"), or, except after report words, a small number or a day of the month ("license 1234")."""
    if _EN_UNIT_AFTER.match(m.string, m.end("value")):
        return True
    if _EN_YEAR.fullmatch(value) and not any(c in m.group("sep") for c in ":#"):
        return True
    return not name.startswith("report") and _EN_NOT_ID_VALUE.fullmatch(value) is not None


def _en_calendar_date(value: str) -> bool:
    """Whether a date-shaped field value (:data:`_DATE_VALUE`) can be a calendar date: a month and a day in either
    order and a year of two or four digits ("03-14-2021"). A record number written in the same shape is no date
    ("MR#: 44-18-207", "Unit No: 52-19-04a")."""
    raw = re.split(r"[./-]", value)
    a, b, c = (int(p) for p in raw)
    if len(raw[0]) == 4:
        return 1 <= b <= 12 and 1 <= c <= 31
    return len(raw[2]) in (2, 4) and ((1 <= a <= 12 and 1 <= b <= 31) or (1 <= b <= 12 and 1 <= a <= 31))


#: where a label may start: an alphanumeric character or ``#`` that does not follow an alphanumeric one, or an
#: ``N`` / ``n`` before ``º`` / ``°`` (a "Nº" label glued to the previous word); ``[^\W_]`` is ``str.isalnum``
_LABEL_START = re.compile(r"(?<![^\W_])[^\W_]|(?<![^\W_])#|[Nn](?=[º°])")


def _alternation(lang: str) -> str:
    return "|".join(f"(?P<{lb.name}>{lb.regex})" for lb in FIELD_LABELS[lang])


@memo
def id_label_regex(lang: str) -> re.Pattern[str]:
    r"""A regex matching any identifier field label of ``lang`` (case-insensitive, whole words).

    The labels are preceded by their prefix guard (:func:`~clinanon.detect.engine.prefix_guard`, three
    characters): a necessary condition, so the matches are those of ``(?<!\w)(?:labels)(?!\w)``, but most
    positions are rejected without trying every label."""
    alternation = _alternation(lang)
    guard = prefix_guard(alternation, re.IGNORECASE, 3) or ""
    return re.compile(rf"(?<!\w){guard}(?:{alternation})(?!\w)", re.IGNORECASE)


def _lower_same_length(text: str) -> str | None:
    low = text.lower()
    return low if len(low) == len(text) else None


class FieldValueRecognizer:
    """Values of identifier fields (see the module docstring). Score 0.85 after a strong label, 0.7 after a
    weak one (weak labels, such as a bare ``ID``, need ``:``/``#``/``=`` before the value)."""

    def __init__(self, lang: str, *, min_digits: int = 3, strong_score: float = 0.85,
                 weak_score: float = 0.7) -> None:
        self.lang = check_language(lang, exact=True)
        self.name = f"id_field_{lang}"
        self.labels = {lb.name: lb for lb in FIELD_LABELS[lang]}
        # "Nº"-labels may be glued to the previous word ("MartínezNºCol:"). The labels' prefix guard (a necessary
        # condition: the same matches) rejects most label starts without trying every label.
        alternation = _alternation(lang)
        guard = prefix_guard(alternation, re.IGNORECASE, 3) or ""
        self._regex = re.compile(
            rf"(?:(?<!\w)|(?=n[º°])){guard}(?:{alternation})(?!\w){_SEP}{_VALUE_PREFIX}"
            rf"(?P<value>{_VALUE_EN if lang == 'en' else _VALUE})(?![\w])",
            re.IGNORECASE,
        )
        # keyword -> [(word start required, word end required, prefix regex, suffix regex)]
        self._kw: dict[str, list[tuple[bool, bool, re.Pattern[str] | None, re.Pattern[str] | None]]] = {}
        for lb in FIELD_LABELS[lang]:
            pre = re.compile(lb.keyword_prefix) if lb.keyword_prefix else None
            suf = re.compile(lb.keyword_suffix) if lb.keyword_suffix else None
            for k in lb.keywords:
                ws, we = k.startswith("\\b"), k.endswith("\\b")
                core = k[2 if ws else 0:len(k) - (2 if we else 0)]
                self._kw.setdefault(core, []).append((ws, we, pre, suf))
        self._keywords_i = re.compile("|".join(re.escape(k) for k in sorted(self._kw, key=len, reverse=True)),
                                      re.IGNORECASE)
        self.before = 32
        self.min_digits = min_digits
        self.strong_score = strong_score
        self.weak_score = weak_score

    def _hits(self, text: str) -> list[tuple[int, int]]:
        """Sorted keyword hits (``str.find`` per keyword: faster than a regex alternation over the text)."""
        low = _lower_same_length(text)
        if low is None:
            return [m.span() for m in self._keywords_i.finditer(text)]
        hits: list[tuple[int, int]] = []
        n = len(low)
        for kw, conds in self._kw.items():
            i = low.find(kw)
            while i != -1:
                j = i + len(kw)
                for ws, we, pre, suf in conds:
                    if ws and i > 0 and low[i - 1].isalnum():
                        continue
                    if we and j < n and low[j].isalnum():
                        continue
                    if pre is not None and not pre.search(low, max(0, i - 16), i):
                        continue
                    if suf is not None and not suf.search(low[j:j + 16]):
                        continue
                    hits.append((i, j))
                    break
                i = low.find(kw, j)
        hits.sort()
        return hits

    def analyze(self, text: str) -> list[Span]:
        out: list[Span] = []
        last_end = -1
        tried: set[int] = set()
        for a, _b in self._hits(text):
            if a < last_end:
                continue
            # the label starts at a word start at most `before` characters before the keyword
            for c in _LABEL_START.finditer(text, max(0, a - self.before, last_end), a + 2):  # a + 1: for "Nº"
                p = c.start()
                if p > a:
                    break
                if p in tried:
                    continue
                tried.add(p)
                m = self._regex.match(text, p)
                if m is None:
                    continue
                span = self._value_span(m)
                if span is None:
                    continue
                name, start, end = span
                label = self.labels[name]
                score = self.strong_score if label.strong else self.weak_score
                out.append(Span(start, end, label.category, f"{self.name}:{name}", score))
                last_end = end
                break
        return out

    def _value_span(self, m: re.Match[str]) -> tuple[str, int, int] | None:
        name = next((g for g in self.labels if m.group(g) is not None), None)
        if name is None:
            return None
        label = self.labels[name]
        if not label.strong and not any(c in m.group("sep") for c in ":#="):
            return None
        value = m.group("value")
        if sum(c.isdigit() for c in value) < self.min_digits or (
                _DATE_VALUE.fullmatch(value) and (self.lang != "en" or _en_calendar_date(value))):
            return None
        start = m.start("value")
        if self.lang == "en":
            if m.group("caps") and name not in _EN_CAPS_PREFIX_LABELS:
                return None
            if name in _EN_WORD_LABELS and _en_word_value_refused(name, value, m):
                return None
        if name == "plate" and value[:2] in _EN_STATE_CODES and value[2:3] == " ":
            start += 3
        return name, start, m.end("value")

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


# --- checksum recognizers ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Check:
    name: str
    label: str
    shape: re.Pattern[str]  # fullmatch on the candidate as written
    validator: Callable[[str], bool]
    score: float
    context: frozenset[str]


def _check(name: str, label: str, shape: str, validator: Callable[[str], bool], score: float,
           context: Sequence[str]) -> _Check:
    return _Check(name, label, re.compile(shape), validator, score, frozenset(w.casefold() for w in context))


_CARD_CONTEXT = ("card", "credit", "cc", "visa", "mastercard", "amex", "tarjeta", "crédito", "kaart", "creditcard",
                 "kort", "kreditkort", "karte", "kreditkarte")
_CARD = _check("credit_card", "ID.ACCOUNT",
               r"\d{12,19}|\d{4}([ \-])\d{4}\1\d{4}\1\d{1,7}|\d{4}([ \-])\d{6}\2\d{4,5}",
               cs.is_valid_credit_card, 0.5, _CARD_CONTEXT)
_CHECKS: dict[str, tuple[_Check, ...]] = {
    "es": (
        _check("dni", "ID.IDNUM", r"\d{8}[ \-]?[A-Za-z]", cs.is_valid_dni, 0.6,
               ("dni", "nif", "documento", "identidad", "pasaporte")),
        _check("nass", "ID.HEALTHPLAN", r"\d{2}([ /\-]?)\d{8}\1\d{2}", cs.is_valid_nass, 0.5,
               ("nass", "nss", "seguridad", "afiliación", "afiliacion")),
    ),
    "nl": (
        _check("bsn", "ID.SSN", r"\d{9}|\d{4}\.\d{2}\.\d{3}|\d{3}([ .])\d{3}\1\d{3}", cs.is_valid_bsn, 0.4,
               ("bsn", "burgerservicenummer", "sofinummer")),
    ),
    "sv": (
        _check("personnummer", "ID.SSN", r"(?:19|20)?\d{6}[\-+ ]?\d{4}", cs.is_valid_personnummer, 0.7,
               ("personnummer", "pnr", "samordningsnummer", "person")),
    ),
    "de": (),
    "en": (
        _check("us_ssn", "ID.SSN", r"\d{3}([\- ])\d{2}\1\d{4}", cs.is_valid_us_ssn, 0.6, ("ssn", "social", "security")),
        _check("us_ssn_compact", "ID.SSN", r"\d{9}", cs.is_valid_us_ssn, 0.2, ("ssn", "social", "security")),
        _check("nhs", "ID.HEALTHPLAN", r"\d{3}([ \-]?)\d{3}\1\d{4}", cs.is_valid_nhs_number, 0.3, ("nhs",)),
    ),
}
_LETTER_CHECKS: dict[str, tuple[_Check, ...]] = {
    "es": (_check("nie", "ID.IDNUM", r"[XYZxyz][ \-]?\d{7}[ \-]?[A-Za-z]", cs.is_valid_nie, 0.6,
                  ("nie", "nif", "documento", "identidad", "extranjero")),),
    "de": (_check("kvnr", "ID.HEALTHPLAN", r"[A-Z]\d{9}", cs.is_valid_kvnr, 0.6,
                  ("kvnr", "versichertennummer", "krankenversichertennummer", "versicherung", "krankenkasse")),),
}

# Digit groups (one separator between groups) with an optional trailing letter, starting at a digit.
_NUM_CANDIDATE = re.compile(
    r"[0-9](?=[0-9 \-/.+]{7})[0-9]*+(?:[ \-/.+][0-9]++){0,5}(?P<letter>[ \-]?[A-Za-z](?![\w]))?"
)
_GROUP_BOUNDARY = re.compile(r"[ \-/.+](?=[0-9])")
_LETTER_CANDIDATE = re.compile(r"[A-Z][ \-]?[0-9]{7,9}(?:[ \-]?[A-Za-z](?![\w]))?")
# the first letter apart: a leading character class lets the regex engine skip to the candidates (a repeat does not)
_IBAN_CANDIDATE = re.compile(r"[A-Z][A-Z][0-9]{2}(?:[ ]?[A-Z0-9]){8,32}")
_IBAN_CANDIDATE_I = re.compile(r"[A-Za-z][A-Za-z][0-9]{2}(?:[ ]?[A-Za-z0-9]){8,32}")
_IBAN_WORD = re.compile(r"(?i)iban")
#: what every match of _IBAN_WORD contains (no other character folds to b, a or n)
_BAN = re.compile(r"[bB][aA][nN]")


class ChecksumRecognizer:
    """Checksum-validated identifiers of one language, plus payment cards and IBANs (``ID.ACCOUNT``).

    One candidate scan finds digit groups; every sub-sequence of whole groups that has the shape of an
    identifier of the language is validated (longest first), so "NASS 28 12345678 40 y ..." and a card
    number written in groups are both found. Scores: see each check; +0.3 after a context word (50 chars).
    """

    def __init__(self, lang: str, *, context_chars: int = 50) -> None:
        self.lang = check_language(lang, exact=True)
        self.name = f"checksum_{lang}"
        self.checks = (*_CHECKS[lang], _CARD)
        self.letter_checks = _LETTER_CHECKS.get(lang, ())
        self.context_chars = context_chars

    def _score(self, text: str, start: int, check: _Check) -> float:
        window = text[max(0, start - self.context_chars):start].casefold()
        words = set(_WORDS.findall(window))
        return round(min(1.0, check.score + (0.3 if words & check.context else 0.0)), 4)

    def _emit(self, out: list[Span], text: str, start: int, end: int, checks: Sequence[_Check]) -> bool:
        cand = text[start:end]
        for ck in checks:
            if ck.shape.fullmatch(cand) and ck.validator(cand):
                out.append(Span(start, end, ck.label, f"{self.name}:{ck.name}", self._score(text, start, ck)))
                return True
        return False

    def analyze(self, text: str) -> list[Span]:
        out: list[Span] = []
        for m in _NUM_CANDIDATE.finditer(text):
            s, e = m.span()
            if e - s < 9 or (s > 0 and (text[s - 1].isalnum() or text[s - 1] in "_-/.+")):
                continue
            # the whole candidate, without its letter, then shorter prefixes ending at a group boundary
            core = m.start("letter") if m.group("letter") else e
            ends = [e] if e == core else [e, core]
            ends += [g.start() for g in _GROUP_BOUNDARY.finditer(text, s, core)][::-1]
            for end in ends:
                if end == e and e < len(text) and (text[e].isalnum() or text[e] == "_"):
                    continue
                if self._emit(out, text, s, end, self.checks):
                    break
        for m in _LETTER_CANDIDATE.finditer(text) if self.letter_checks else ():
            s, e = m.span()
            if s > 0 and (text[s - 1].isalnum() or text[s - 1] in "_-/."):
                continue
            if e < len(text) and (text[e].isalnum() or text[e] == "_"):
                continue
            self._emit(out, text, s, e, self.letter_checks)
        # "ban" in any case first: a case-sensitive class is found quickly, a case-insensitive word is not
        iban = _IBAN_CANDIDATE_I if _BAN.search(text) and _IBAN_WORD.search(text) else _IBAN_CANDIDATE
        for m in iban.finditer(text):
            s = m.start()
            if s > 0 and (text[s - 1].isalnum() or text[s - 1] == "_"):
                continue
            n = cs.IBAN_LENGTHS.get(text[s:s + 2].upper())
            if n is None:
                continue
            count, end = 0, 0
            for i in range(s, m.end()):
                if text[i] != " ":
                    count += 1
                    if count == n:
                        end = i + 1
                        break
            if end and not (end < len(text) and text[end].isalnum()) and cs.is_valid_iban(text[s:end]):
                out.append(Span(s, end, "ID.ACCOUNT", f"{self.name}:iban", 0.9))
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


# --- long digit runs -----------------------------------------------------------------------------------------

#: 13 digits in a row: the cheap test that a text may hold a long number at all
_THIRTEEN = re.compile(r"\d{13}")
#: a run of 13+ digits (possessive: never backtracked) with up to 4 letters glued before and 2 after it, not part
#: of a longer word, not the fraction or the integer part of a decimal number
_LONG_NUMBER = re.compile(r"(?<!\w)(?<!\d[.,])[A-Za-z]{0,4}(?P<digits>\d{13,}+)[A-Za-z]{0,2}(?!\w)(?![.,]\d)")


class LongNumberRecognizer:
    """Runs of 13 or more digits that no check explains (see the module docstring): ``ID.IDNUM`` at 0.6."""

    def __init__(self, lang: str, *, score: float = 0.6) -> None:
        self.lang = check_language(lang, exact=True)
        self.name = f"long_number_{lang}"
        if not 0.0 <= score <= 1.0:
            raise ValueError("score must be in [0, 1]")
        self.score = score

    def analyze(self, text: str) -> list[Span]:
        if _THIRTEEN.search(text) is None:
            return []
        out: list[Span] = []
        for m in _LONG_NUMBER.finditer(text):
            digits = m.group("digits")
            if m.group() == digits and len(digits) <= 19 and cs.is_valid_credit_card(digits):
                continue  # a payment card: the checksum recognizer's
            out.append(Span.trusted(m.start(), m.end(), "ID.IDNUM", self.name, self.score))
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


# --- per language --------------------------------------------------------------------------------------------

#: German numbered fields a letter writes with the number glued to the label or after "Nr." of any kind
#: ("Fall-Nr.6733340001", "Fallzahl: 103354008", "E-Nr.: 37844677", "HNr.:9334a/20", "Protokoll Nr.:099984-0163",
#: "SV Nr.: 4445311299", "Befund-Nr. 22/4711", "Eingangsnummer: E-2021-08813"): a label word ending in -nr /
#: -nummer / -zahl (not a phone or fax number's, not a house number's), the value holds three digits or more (a
#: prefix of capitals and a dash may start it)
_DE_NUMBERED = re.compile(
    r"(?<![\w-])(?P<label>(?:[A-ZÄÖÜ][A-Za-zÄÖÜäöüß]{0,24}[- ]?)?(?:Nr|NR|nr|Nummer|nummer|No|Zahl|zahl)\b\.?)"
    r"[ \t]{0,3}[:#]?[ \t]{0,3}"
    r"(?P<value>(?:[A-Z]{1,3}-(?=\d))?(?=[A-Za-z]{0,3}\d)[A-Za-z]{0,3}\d[0-9A-Za-z]{0,30}(?:[-/.][0-9A-Za-z]{1,30}){0,4})"
    r"(?![\w-])")
_DE_NOT_ID_LABEL = re.compile(r"(?i)(?:tel|telefon|fax|handy|mobil|ruf|haus|kw|zyklus|zyklen|seiten?|abb|tab|"
                              r"berufskrankheit|kapitel|anlage|punkt|stück|anzahl|gesamtzahl|zellzahl|leukozytenzahl|thrombozytenzahl|"
                              r"herzzahl|atemzahl|pulszahl|fallzahlen)")


_DE_DECIMAL = re.compile(r"\d{1,4}[.,]\d{1,3}")
#: before a bare "Nr.": an occupational disease's list ("Berufskrankheit Nr. 4103", "BK-Nr." has its own head), a
#: paragraph or an annex of a law, or "auch" / "nach" continuing such a list ("möglicherweise auch Nr. 4104")
_DE_LEGAL_NUMBER_BEFORE = re.compile(r"(?i:berufskrankheit(?:en)?(?:[ \t]{1,2}nach)?|bk|bkv|§{1,2}[ \t]?\d+\w?"
                                     r"|anlage|nach|auch|und|oder)[ \t]{1,2}\Z")


class GermanNumberedFieldRecognizer:
    """Numbers after German numbered-field labels (:data:`_DE_NUMBERED`): ``ID.IDNUM`` 0.75."""

    name = "id_numbered_de"

    def analyze(self, text: str) -> list[Span]:
        out: list[Span] = []
        if "r" not in text and "R" not in text and "ahl" not in text:
            return out
        for m in _DE_NUMBERED.finditer(text):
            label = m.group("label").rstrip(". -")
            head = re.sub(r"(?i)[- ]?(?:nr|nummer|no|zahl)$", "", label)
            if label.casefold().endswith("zahl") and not head.casefold().endswith("fall"):
                continue  # "Zellzahl 1200": a count
            if head and _DE_NOT_ID_LABEL.fullmatch(head):
                continue
            if not head and _DE_LEGAL_NUMBER_BEFORE.search(text, max(0, m.start() - 40), m.start()):
                continue  # "Berufskrankheit Nr. 4103", "nach Nr. 4104": an entry of a list of the law
            value = m.group("value")
            if head.casefold() == "i" or _DE_DECIMAL.fullmatch(value):
                continue  # "INR 0.99": a lab value
            if sum(c.isdigit() for c in value) < 3 or _DATE_VALUE.fullmatch(value):
                continue
            out.append(Span(*m.span("value"), "ID.IDNUM", self.name, 0.75))
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


class _GermanFieldValueRecognizer(FieldValueRecognizer):
    """German field values: the labelled fields of :class:`FieldValueRecognizer` and the numbered fields of
    :class:`GermanNumberedFieldRecognizer` (one detector)."""

    def __init__(self) -> None:
        super().__init__("de")
        self._numbered = GermanNumberedFieldRecognizer()

    def analyze(self, text: str) -> list[Span]:
        return [*super().analyze(text), *self._numbered.analyze(text)]


#: a Swedish personnummer / samordningsnummer as written, whatever its check digit: ``YYMMDD`` or ``YYYYMMDD``, a
#: dash or a plus (after the 100th birthday; a space may surround it), four digits; or the ten / twelve digits
#: without a separator (group ``bare``). Not part of a longer number, word, date or decimal.
_SV_PNR = re.compile(r"(?<![\w+\-/])(?<!\d[.,])(?:\d{2})?\d{6}(?:[ \t]?[-+][ \t]?\d{4}|(?P<bare>\d{4}))"
                     r"(?![\w\-+/]|[.,:]\d)")
_SV_SIX_DIGITS = re.compile(r"\d{6}")
#: a personnummer label ending where the number starts (searched in the text just before a candidate)
_SV_PNR_LABEL_BEFORE = re.compile(
    r"(?i)(?<![\w-])(?:person(?:nummer|numret|nr)|person-nr|pers\.?[ \t]?(?:nr|nummer)|p-?nr|p\.[ \t]?nr"
    r"|samordnings(?:nummer|numret|nr)|samordnings-nr)\.?"
    r"(?:[ \t]{0,3}(?:[:#=]|är|var))?[ \t]{0,3}(?:\n[ \t]{0,3})?\Z")
_SV_PARTICLES = frozenset(("af", "av", "von", "van", "de", "der", "da", "di", "el", "al"))
_SV_WORD = re.compile(r"[^\W\d_]{2,}")
_SV_NAME_WORD = r"(?:[A-ZÅÄÖÉÜ][a-zåäöéüæøß]+(?:-[A-ZÅÄÖÉÜ][a-zåäöéüæøß]+)?|[A-ZÅÄÖ]\.)"
#: two to four name words ("Anna Svensson", "Svensson, Anna", "A. Svensson", "Carl af Ugglas")
_SV_NAMES = (rf"(?P<names>{_SV_NAME_WORD}(?:,?[ \t](?:(?:af|av|von|van|de|der|da|di|el|al)[ \t])?"
             rf"{_SV_NAME_WORD}){{1,3}})")
_SV_NAME_BEFORE = re.compile(rf"(?<![\w.-]){_SV_NAMES}[ \t]{{0,2}}[,:(\-–]?[ \t]{{0,2}}(?:\n[ \t]{{0,3}})?\Z")
#: a patient header ("Patient:", "Pat.", "Namn:", "Avser:"), a name after it or not
_SV_HEADER_BEFORE = re.compile(
    rf"(?<![\w.-])(?i:patient(?:en)?|pat\.?|pt\.?|namn|avser|angående|ang\.)[ \t]{{0,3}}:?[ \t]{{0,3}}"
    rf"(?:(?:{_SV_NAME_WORD}(?:,?[ \t]{_SV_NAME_WORD}){{0,3}})[ \t]{{0,2}}[,:(\-–]?[ \t]{{0,2}})?"
    r"(?:\n[ \t]{0,3})?\Z")


class SwedishPersonnummerRecognizer:
    """Personnummer-shaped numbers with a real date whose check digit fails (a typo in a real identifier still
    identifies the patient), where the context says whose number it is: ``ID.SSN`` 0.8 right after a
    personnummer label (``personnummer``, ``pnr``, ``personnr``, ``pers.nr``, ``p-nr``, ``samordningsnummer``;
    the ten or twelve digits may then be written without a separator), 0.6 right after a patient header
    (``Patient:``, ``Pat.``, ``Namn:``) or a person's name (two to four capitalised words, one of them a
    gazetteer name or none of them a common word; ten bare digits there must not start with 0, as every
    Swedish phone number does: "0701234567" after a name is a phone number). Both score below the
    checksum-valid form (0.7, 1.0 after a context word), which :class:`ChecksumRecognizer` keeps finding
    everywhere. A date (``2020-03-12``) never has the shape; ``YYMMDD`` needs a real month and day (day + 60
    for a samordningsnummer)."""

    name = "pnr_context_sv"

    def __init__(self, *, label_score: float = 0.8, name_score: float = 0.6, window: int = 64) -> None:
        self.label_score = label_score
        self.name_score = name_score
        self.window = window

    def _names_ok(self, names: str) -> bool:
        words = [w for w in _SV_WORD.findall(names) if w not in _SV_PARTICLES]
        return any(is_name_word(w, "sv") for w in words) or not any(is_common(w, "sv") for w in words)

    def analyze(self, text: str) -> list[Span]:
        out: list[Span] = []
        if _SV_SIX_DIGITS.search(text) is None:
            return out
        for m in _SV_PNR.finditer(text):
            s, e = m.span()
            cand = m.group()
            if cs.is_valid_personnummer(cand) or not cs.is_personnummer_shaped(cand):
                continue  # the checksum recognizer's, or not a personnummer
            before = text[max(0, s - self.window):s]
            if _SV_PNR_LABEL_BEFORE.search(before):
                out.append(Span(s, e, "ID.SSN", f"{self.name}:label", self.label_score))
                continue
            if m.group("bare") is not None and len(cand) == 10 and cand[0] == "0":
                continue  # ten bare digits from 0: a Swedish phone number just as well ("0701234567")
            if _SV_HEADER_BEFORE.search(before):
                out.append(Span(s, e, "ID.SSN", f"{self.name}:header", self.name_score))
                continue
            nm = _SV_NAME_BEFORE.search(before)
            if nm is not None and self._names_ok(nm.group("names")):
                out.append(Span(s, e, "ID.SSN", f"{self.name}:name", self.name_score))
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


class _SwedishFieldValueRecognizer(FieldValueRecognizer):
    """Swedish field values: the labelled fields of :class:`FieldValueRecognizer` and the personnummer of
    :class:`SwedishPersonnummerRecognizer` (one detector). A field value cut short inside a personnummer
    (``Pnr 120312+1234``: the value stops at the plus) gives way to the whole number."""

    def __init__(self) -> None:
        super().__init__("sv")
        self._pnr = SwedishPersonnummerRecognizer()

    def analyze(self, text: str) -> list[Span]:
        fields = super().analyze(text)
        pnrs = self._pnr.analyze(text)
        if not pnrs:
            return fields
        exact = {(f.start, f.end) for f in fields}
        pnrs = [p for p in pnrs if (p.start, p.end) not in exact]
        # the personnummer spans do not overlap each other: the one starting last at or before a field is the
        # only one that can hold it
        starts = [p.start for p in pnrs]
        kept = []
        for f in fields:
            i = bisect.bisect_right(starts, f.start) - 1
            if i < 0 or pnrs[i].end < f.end:
                kept.append(f)
        return [*kept, *pnrs]


@memo
def _build(lang: str) -> tuple[Detector, ...]:
    fields: FieldValueRecognizer = (_GermanFieldValueRecognizer() if lang == "de" else _SwedishFieldValueRecognizer()
                                    if lang == "sv" else FieldValueRecognizer(lang))
    return (fields, ChecksumRecognizer(lang), LongNumberRecognizer(lang))


def recognizers(lang: str) -> list[Detector]:
    """Field-value, checksum and long-number identifier recognizers for ``lang`` (built once per language)."""
    return list(_build(check_language(lang, exact=True)))
