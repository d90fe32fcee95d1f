"""Form-field values and sex: ``Nombre: Ernesto.`` -> ``Ernesto`` (NAME.PATIENT), ``Sexo: H`` -> ``H`` (SEX).

A field label is never PHI itself; its value usually is. :class:`FieldRecognizer` takes a table of label
patterns -> canonical category per language (:data:`FIELD_TABLES`). A value starts after ``label:`` and ends at
the end of the line, at the next field label on the same line (``"Edad: 70 años Sexo: H."`` holds two fields) or
at a sentence end (``"Adress: Storgatan 5, Stockholm. Inkom ..."``; see
:func:`clinanon.detect.rules.value_end.sentence_end`, which knows the abbreviations of addresses and titles),
without trailing punctuation (``"Ernesto."`` -> ``"Ernesto"``; street abbreviations such as ``"4 dcha."`` keep
their dot). Values are then shaped by the field's kind:

* ``name``: the leading run of name-like tokens (capitalised words, initials, particles such as ``de``, ``van``,
  ``von``), after a title (``Dr.``, ``Dra.``, ``Prof.``), at most five capitalised tokens, stopping at an institution or
  address word (``Hospital``, ``Servicio``, ``Calle``...). ``"Dr. Ignacio Navarro Cuéllar c/ del Abedul 5"``
  -> ``"Ignacio Navarro Cuéllar"``.
* ``place``: split at ``,`` ``/`` ``;`` into one span per part (``"Tolosa, Gipuzkoa"`` -> two spans; parts
  after the first of a city field are labelled ``LOCATION.STATE``).
* ``text``: the whole trimmed value (streets).

Values that are empty or say "unknown" (``"-"``, ``"desconocido"``, ``"n/a"``, ``"onbekend"``...) are skipped.
The same name shaping finds doctors after a title in running text (``"Dr. García López"`` -> NAME.DOCTOR), and in
German after a staff role (``Oberarzt``, ``Stationsärztin``, ``OA``, ``OÄ``, ``FA``: the name's first word must then
be a known name or no common word, ``"OA Fraktur"`` is none); academic titles before the name (``PD``,
``Priv.-Doz.``) are skipped, never tagged.

The sex recognizer (label ``SEX``) finds the value of sex/gender fields in five languages (``Sexo: Varón``,
``Geslacht: M``, ``Kön: K``, ``Geschlecht: w``, ``Gender: male``) and sex words next to an age
(``"45-year-old woman"``, ``"Varón de 70 años"``); for Spanish also the patient-describing sex words of running
text (``"paciente varón"``), as MEDDOCAN annotates them, with negative context for relatives (``"su mujer"``,
``"hijo varón"``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from clinanon.caches import memo
from clinanon.detect.allowlist import allowlist_for
from clinanon.detect.base import Detector
from clinanon.detect.engine import finditer_first_char, first_char_scan, prefix_guard
from clinanon.detect.regex_tree import may_consume, parse, widths
from clinanon.detect.rules.dates import Context, RulePattern, RuleRecognizer
from clinanon.detect.rules.letters import SPECIALTY
from clinanon.detect.rules.value_end import sentence_end
from clinanon.document import Document, Span
from clinanon.lang import LANGUAGES
from clinanon.lang.fold import fold
from clinanon.lang.lexicon import common_lexicon, common_words, drug_words
from clinanon.lang.wordlists import load_rows

__all__ = ["FIELD_TABLES", "FieldRecognizer", "FieldSpec", "recognizers", "sex_patterns"]


#: a street field's value up to the comma before a postcode (German, Austrian, Swiss: "Parkstraße 42, 18119 X",
#: "Koppstraße 58/3/12, 1160 Wien", "Hauptstr. 5, CH-8001 Zürich"): the postcode and town are their own spans
_STREET_BEFORE_POSTCODE = re.compile(r"([^,\n]{3,80}?)[ \t]{0,2},[ \t]{0,3}(?:[A-Z]{1,2}-)?\d{4,5}[ \t]")


@dataclass(frozen=True)
class FieldSpec:
    """One row of a field table: a label pattern (regex, no capturing groups, matched case-insensitively),
    the canonical category of its value, how the value is shaped (``name`` | ``place`` | ``text``) and the
    score of the spans it yields."""

    labels: str
    category: str
    shape: str = "text"
    score: float = 0.9


_P, _D = "NAME.PATIENT", "NAME.DOCTOR"
_ST, _CI, _SA, _CO = "LOCATION.STREET", "LOCATION.CITY", "LOCATION.STATE", "LOCATION.COUNTRY"

#: Field tables per language. Order matters only for labels that share a prefix (longest first).
FIELD_TABLES: Mapping[str, tuple[FieldSpec, ...]] = {
    "es": (
        FieldSpec(r"nombre\s{1,2}y\s{1,2}apellidos?|nombre\s{1,2}del\s{1,2}paciente|nombre|apellidos?"
                  r"|primer\s{1,2}apellido|segundo\s{1,2}apellido", _P, "name"),
        FieldSpec(r"paciente", _P, "name", 0.7),
        FieldSpec(r"m[ée]dico\s{1,2}responsable|m[ée]dico\s{1,2}remitente|responsable\s{1,2}cl[íi]nico|"
                  r"remitido\s{1,2}por|firmado\s{1,2}por|m[ée]dico|doctora?|facultativo|dra?\.?", _D, "name"),
        FieldSpec(r"localidad\s{0,2}/\s{0,2}provincia|lugar\s{1,2}de\s{1,2}nacimiento|localidad|ciudad|municipio"
                  r"|poblaci[óo]n|residencia", _CI, "place"),
        FieldSpec(r"provincia|comunidad\s{1,2}aut[óo]noma", _SA, "place"),
        FieldSpec(r"pa[íi]s\s{1,2}de\s{1,2}(?:nacimiento|origen|residencia)|pa[íi]s", _CO, "place"),
        FieldSpec(r"domicilio|direcci[óo]n|calle", _ST, "text"),
    ),
    "en": (
        FieldSpec(r"patient\s{1,2}name|full\s{1,2}name|first\s{1,2}name|last\s{1,2}name|surname|given\s{1,2}name|"
                  r"family\s{1,2}name|name", _P, "name"),
        FieldSpec(r"patient", _P, "name", 0.7),
        FieldSpec(r"attending(?:\s{1,2}physician)?|referring\s{1,2}physician|primary\s{1,2}care\s{1,2}physician|"
                  r"physician|provider|doctor|surgeon|pcp|dictated\s{1,2}by|signed\s{1,2}by|cc|"
                  r"resident|consultant", _D, "name", 0.85),
        FieldSpec(r"city|town|place\s{1,2}of\s{1,2}birth", _CI, "place"),
        FieldSpec(r"state|county|province", _SA, "place", 0.8),
        FieldSpec(r"country(?:\s{1,2}of\s{1,2}(?:birth|residence))?", _CO, "place"),
        FieldSpec(r"street\s{1,2}address|home\s{1,2}address|address|street", _ST, "text"),
    ),
    "nl": (
        FieldSpec(r"naam\s{1,2}pati[ëe]nte?|achternaam|voornamen|voornaam|naam|geboortenaam|meisjesnaam",
                  _P, "name"),
        FieldSpec(r"pati[ëe]nte?|cli[ëe]nte?", _P, "name", 0.7),
        # (care staff before a name: "Verloskundige: Geertje de Haan", "SEH-arts: F. Dekker", "Casemanager: ...")
        FieldSpec(r"behandelend\s{1,2}arts|regiebehandelaar|hoofdbehandelaar|behandelaar|huisarts|verwijzer|"
                  r"verwijzend\s{1,2}arts|verpleegkundig\s{1,2}specialist|specialist|arts-assistent|seh-arts|"
                  r"arts|dokter|ondertekend\s{1,2}door|auteur|verloskundige|wijkverpleegkundige|verpleegkundige|"
                  r"casemanager|supervisor|aios|anios|poh", _D, "name", 0.85),
        # a relative or representative ("Partner: Jelmer Postma", "Contactpersoon: ..."); not "Moeder:" / "Vader:",
        # the heads of a family history
        FieldSpec(r"partner|echtgeno(?:o)?te?|eerste\s{1,2}contactpersoon|contactpersoon|wettelijk\s{1,2}"
                  r"vertegenwoordiger|vertegenwoordiger|mentor|curator", "NAME.RELATIVE", "name", 0.75),
        FieldSpec(r"woonplaats|geboorteplaats|plaats|stad|gemeente", _CI, "place"),
        FieldSpec(r"provincie", _SA, "place"),
        FieldSpec(r"geboorteland|land", _CO, "place", 0.8),
        FieldSpec(r"adres|straat|woonadres", _ST, "text"),
    ),
    "sv": (
        FieldSpec(r"patientens\s{1,2}namn|efternamn|förnamn|namn", _P, "name"),
        FieldSpec(r"patient", _P, "name", 0.7),
        FieldSpec(r"ansvarig\s{1,2}läkare|behandlande\s{1,2}läkare|remitterande\s{1,2}läkare|husläkare|läkare|"
                  r"doktor|signerad\s{1,2}av|undertecknad|remittent", _D, "name", 0.85),
        FieldSpec(r"postort|hemort|födelseort|ort|stad|kommun", _CI, "place"),
        FieldSpec(r"län|landskap", _SA, "place"),
        FieldSpec(r"födelseland|land", _CO, "place", 0.8),
        FieldSpec(r"gatuadress|postadress|bostadsadress|adress", _ST, "text"),
    ),
    "de": (
        FieldSpec(r"name\s{1,2}des\s{1,2}patienten|patientenname|nachname|familienname|vorname|geburtsname|name",
                  _P, "name"),
        FieldSpec(r"patientin|patient", _P, "name", 0.7),
        FieldSpec(r"behandelnde[rn]?\s{1,2}(?:arzt|ärztin)|hausärztin|hausarzt|oberärztin|oberarzt|chefärztin|"
                  r"chefarzt|überweisende[rn]?\s{1,2}(?:arzt|ärztin)|ärztin|arzt|unterzeichnet|gez\.?", _D, "name",
                  0.85),
        FieldSpec(r"wohnort|geburtsort|ort|stadt|gemeinde", _CI, "place"),
        FieldSpec(r"bundesland|kanton", _SA, "place"),
        FieldSpec(r"geburtsland|land|staat", _CO, "place", 0.8),
        FieldSpec(r"anschrift|adresse|straße|strasse|wohnadresse", _ST, "street"),
    ),
}

#: Values that are not PHI (compared case-folded, after trimming).
NULL_VALUES: frozenset[str] = frozenset({
    "", "-", "--", "---", "?", "x", "xx", "xxx", "***", "...", "desconocido", "desconocida", "no consta",
    "no", "nc", "n/c", "ns/nc", "sin datos", "ninguno", "ninguna", "no aplica", "unknown", "none", "n/a", "na",
    "nil", "null", "not applicable", "not available", "onbekend", "geen", "nvt", "n.v.t.", "okänd", "okänt",
    "ingen", "saknas", "unbekannt", "keine", "k.a.", "entfällt",
})

#: German staff roles before a clinician's name ("Oberarzt Tetzlaff", "Stationsärztin Roth") and their
#: abbreviations, in capitals only and followed by a space and a capital ("OA Tetzlaff", not "OA-Fraktur", "FA:")
_DE_ROLES = (r"oberärztin|oberarzt|chefärztin|chefarzt|fachärztin|facharzt|stationsärztin|stationsarzt|"
             r"assistenzärztin|assistenzarzt|funktionsoberärztin|funktionsoberarzt|privatdozentin|privatdozent")
_DE_ROLE_ABBREVIATIONS = r"(?:OÄ|OA|CÄ|FÄ|FA|FOA)(?=[ \t]{1,2}[A-ZÄÖÜ])"

#: Titles that precede a name and are not part of it.
_TITLES = (r"(?:doctora|doctor|dokter|doktor|profesora|profesor|professor|dra|dr|dña|dn|sra|srta|sr|prof|profa|"
           r"lic|mr|mrs|ms|miss|dhr|mevr|mw|drs|dres|med|hr|fr|herr|frau|leg|läk|priv\.-doz|"
           rf"{_DE_ROLES}|(?-i:{_DE_ROLE_ABBREVIATIONS}|PD(?=[ \t]{{1,2}}Dr)))")
_TITLE_RX = re.compile(rf"(?:{_TITLES}(?:\.|:|\b)\s{{0,2}}){{1,3}}", re.IGNORECASE)

#: Words that end a name: institutions, services, address words (case-folded).
_NAME_STOP: frozenset[str] = frozenset(["hospital", "servicio", "sección", "seccion", "unidad", "centro", "clínica",
                                        "clinica", "complejo", "departamento", "instituto", "universidad", "facultad",
                                        "consultorio", "ambulatorio", "fundación", "fundacion", "apartado", "correos",
                                        "profesor", "paseo", "departament", "departamento", "grupo", "jefe", "jefa",
                                        "comunidad", "pza", "dirección", "direccion", "servei", "unitat",
                                        "universitari", "hospitalari", "paciente", "varón", "mujer", "niño", "niña",
                                        "residente", "supervisora", "supervisor", "institut", "enfermera", "enfermero",
                                        "adjunto", "adjunta", "doctor", "doctora", "dr", "dra", "calle", "c",
                                        "avenida", "avda", "av", "plaza", "paseo", "camino", "carretera", "ctra",
                                        "ronda", "pasaje", "urbanización", "glorieta", "travesía", "oncología",
                                        "urología", "cirugía", "medicina", "nefrología", "cardiología", "neurología",
                                        "pediatría", "ginecología", "radiología", "dermatología", "oftalmología",
                                        "hematología", "anatomía", "patología", "laboratorio", "área", "area",
                                        "correo", "email", "e-mail", "tel", "teléfono", "telefono", "fax", "nºcol",
                                        "colegiado", "españa", "spain", "hospitalario", "universitario", "general",
                                        "department", "service", "unit", "clinic", "center", "centre", "university",
                                        "street", "road", "avenue", "st", "rd", "ave", "boulevard", "blvd", "suite",
                                        "phone", "ziekenhuis", "afdeling", "kliniek", "polikliniek", "straat", "laan",
                                        "weg", "plein", "sjukhus", "avdelning", "klinik", "mottagning", "vårdcentral",
                                        "gatan", "vägen", "krankenhaus", "klinikum", "abteilung", "station", "praxis",
                                        "straße", "strasse", "weg", "platz", "allee"])

#: Lower-case particles allowed inside a name.
_PARTICLES: frozenset[str] = frozenset(
    ["de", "del", "la", "las", "los", "y", "i", "e", "da", "das", "do", "dos", "di", "du", "le", "van", "von", "der",
     "den", "ten", "ter", "zu", "zum", "zur", "af", "av", "bin", "al", "el", "mac", "st"])

#: German role abbreviations (as written) that start the next signature after a name ("Dr. A B OA Dr. C D")
_ROLE_AFTER_NAME = frozenset(("OA", "OÄ", "CÄ", "FÄ", "FA", "FOA"))
_NAME_TOKEN = re.compile(r"[^\W\d_][^\s,;:()\[\]]{0,40}", re.UNICODE)
_TOKEN = re.compile(r"\S{1,80}")
_NAME_CHARS = re.compile(r"[^\W\d_ºª]?[^\W\d_]{0,40}(?:['’´`.-][^\W\d_]{1,40}){0,3}\.?ª?|[^\W\d_]ª")

def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink ``[start, end)`` past surrounding spaces, leading separators and trailing punctuation.

    One final dot is the sentence's, not the value's (MEDDOCAN: ``"Ernesto."`` -> ``"Ernesto"``,
    ``"5 Der.."`` -> ``"5 Der."``).
    """
    while start < end and text[start] in " \t\r\f\v\u00a0":
        start += 1
    while start < end and text[start] in ",;:.-–|*":
        start += 1
        while start < end and text[start] in " \t\u00a0":
            start += 1
    dot_taken = False
    while end > start:
        c = text[end - 1]
        if c in " \t\r\f\v\u00a0,;:-–|*(":
            end -= 1
        elif c == "." and not dot_taken:
            end -= 1
            dot_taken = True
        else:
            break
    return start, end


#: what follows a field label's first word: a colon, or a second word and a colon ("DOB:", "Discharge date:")
_LABEL_AFTER = re.compile(r"([ \t][^\W\d_]+)?[ \t]?:")


def _label_follows(text: str, pos: int) -> bool:
    """The word ending at ``pos`` begins a field label: a colon follows, or a lower-case word and a colon
    ("Discharge date:"; not "Pinazo NºCol:", a surname before the next label)."""
    m = _LABEL_AFTER.match(text, pos)
    return m is not None and (m.group(1) is None or m.group(1).strip()[0].islower())


def _name_extent(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The name-shaped prefix of ``text[start:end]`` after any title, or ``None``."""
    m = _TITLE_RX.match(text, start, end)
    if m:
        start = m.end()
    tokens: list[tuple[int, int]] = []
    n_names = lead = 0
    for t in _TOKEN.finditer(text, start, end):
        raw = t.group()
        core = raw.rstrip(".,;)]}")  # "(Dr. Lee)": the bracket closes the name
        ends_sentence = len(core) < len(raw)
        if not core:
            break
        is_initial = len(core) == 1 and core.isalpha() and core.isupper()
        word = core.casefold()
        gap = text[tokens[-1][1]:t.start()] if tokens else ""
        if tokens and ("\t" in gap or "   " in gap or (gap == "  " and _label_follows(text, t.end()))
                       or core in _ROLE_AFTER_NAME):
            # a tab, a column gap of three blanks (a form's next field: "Patient: Otis Kimbrough    Discharge
            # date"), of two before a field label ("... Kimbrough  DOB: ..."; two blanks alone occur inside names:
            # "Roberto Gallego  Pinazo") or a role title starts the next signature: "Prof. Dr. A B<TAB>Prof. Dr. C D",
            # "A B OA Dr."
            break
        if word in _NAME_STOP or not _NAME_TOKEN.fullmatch(core) or not _NAME_CHARS.fullmatch(core):
            break
        # "de", "del", "van": inside a name, not counted; two may lead after a title ("Dr. van der Berg")
        if word in _PARTICLES and (tokens or (lead < 2 and core.islower())):
            tokens.append((t.start(), t.start() + len(core)))
            lead += not n_names
            continue
        if not core[0].isupper():
            break
        tokens.append((t.start(), t.start() + len(core)))
        n_names += 1
        if n_names >= 5 or (ends_sentence and not is_initial):
            break
    # an initial keeps its dot inside a name ("Juan P. García"), not at its end ("Antoniadis P.")
    while tokens and text[tokens[-1][0]:tokens[-1][1]].casefold() in _PARTICLES and (
            len(tokens) > 1 or text[tokens[-1][0]].islower()):  # "Dr. Le": a surname alone stays
        tokens.pop()
    if not n_names:
        return None
    if not tokens:
        return None
    return tokens[0][0], tokens[-1][1]


#: any "Label:" (one capitalised word, or "Word de Word") that ends a value: "NºCol:", "E-mail:", "Fecha de Ingreso:";
#: a label glued to the value ("MartínezNºCol:") starts at the lower-to-upper case change (_CAMEL)
_PLACE_PART = re.compile(r"[^,;/()]{1,120}")
_CLAUSE_SPLIT = re.compile(r"[.,;:\n]\s")
_COMMA_NUMBER = re.compile(r"\s{0,2},?\s{0,2}\d")
_GENERIC_LABEL = re.compile(  # (the look-behind after the first letter: the regex engine skips to capitals)
    r"(?-i:[A-ZÁÉÍÓÚÑÄÖÜÅÀÈÌÒÙÇ])(?<![\w/].)[\wº°ª.-]{0,24}"
    r"(?:\s{1,2}(?:de|del|of|van|för|der|des|von|la|el|do|da)\s{1,2}[\wº°ª.-]{1,20})?\s{0,2}:(?![\d/])")


_MAX_LOOK = 200  # how far a label looks back for its line start / a value looks ahead for its line end


def _line_end(text: str, start: int, limit: int = _MAX_LOOK) -> int:
    """The end of the line that contains ``start``, looking at most ``limit`` characters ahead."""
    end = text.find("\n", start, start + limit)
    return min(len(text), start + limit) if end < 0 else end


_CAMEL = re.compile(r"(?<=[a-záéíóúñäöüåàèìòùçß])(?=[A-ZÁÉÍÓÚÑÄÖÜÅÀÈÌÒÙÇ])")


_COLON = re.compile(r"[:=]")


def _label_width(labels: Sequence[str], flags: int) -> int | None:
    """The longest match of ``label\\s{0,3}[:=]`` for the given label regexes, or ``None`` when unbounded or
    when a label may itself contain ``:`` / ``=`` (then a match need not end at the first one)."""
    width = 0
    try:
        for src in labels:
            parsed = parse(src, flags)
            if may_consume(parsed, ":="):
                return None
            width = max(width, widths(parsed)[1])
    except Exception:  # pragma: no cover - the patterns compiled, so they parse
        return None
    return width + 4 if width < 1000 else None


def _guard(regex: str) -> str:
    """A look-ahead on the first characters any match of ``regex`` starts with (changes no match, skips fast)."""
    return prefix_guard(regex, re.IGNORECASE) or ""


class FieldRecognizer:
    """Finds the values of labelled form fields (see the module docstring).

    ``table`` lists :class:`FieldSpec` rows; a label is recognised when it is followed by ``:`` (or ``=``) and
    either starts its line or starts with a capital letter (so ``"Informe clínico del paciente:"`` is not a
    ``Paciente:`` field). Spans: ``source = "<name>:<category>"``, score = the row's score. ``titles``: a regex of
    the titles before a clinician's name in running text; with ``lang``, the name after a title that is not a
    doctor title (a staff role: "Oberarzt", "OA") must not start with a common word of that language.
    """

    def __init__(self, name: str, table: Sequence[FieldSpec], *, min_score: float = 0.5,
                 null_values: frozenset[str] = NULL_VALUES, titles: str | None = None,
                 title_score: float = 0.8, lang: str | None = None) -> None:
        if not table:
            raise ValueError(f"field recognizer {name!r} has an empty table")
        self.name = name
        self.table = tuple(table)
        self.min_score = min_score
        self.null_values = null_values
        alts = "|".join(f"({row.labels})" for row in self.table)
        label_rx = rf"(?<![/])(?:{alts})\s{{0,3}}[:=]"
        self._labels = re.compile(rf"\b(?=\w){_guard(label_rx)}{label_rx}", re.IGNORECASE)
        # every label match ends at the first ``:`` / ``=`` after its start (no label contains one) and is at most
        # this long: the labels are searched in the few characters before each ``:`` / ``=`` only
        self._label_width = _label_width([row.labels for row in self.table], re.IGNORECASE)
        title_rx = rf"(?<![\w./])(?:{titles})(?:\.|:|\b)\s{{0,2}}(?=[^\W\d_])" if titles else None
        self._titles = re.compile(_guard(title_rx) + title_rx, re.IGNORECASE) if title_rx else None
        # the same matches, found by skipping to the letters a title can start with
        self._title_scan = first_char_scan(_guard(title_rx) + title_rx, re.IGNORECASE) if title_rx else None
        self.title_score = title_score
        self.lang = lang

    def __repr__(self) -> str:
        return f"FieldRecognizer(name={self.name!r}, rows={len(self.table)})"

    def _is_label(self, text: str, m: re.Match[str]) -> bool:
        s = m.start()
        lo = max(0, s - _MAX_LOOK)
        nl = text.rfind("\n", lo, s)  # bounded look-back: linear even on a 1 MB line
        line_start = nl + 1 if nl >= 0 or lo == 0 else lo
        if (nl >= 0 or lo == 0) and not text[line_start:s].strip(" \t-*•·>\ufeff"):
            return True
        if not text[s].isupper():
            return False
        prev = text[max(line_start, s - 12):s].split()
        return not prev or prev[-1].casefold() not in {"del", "de", "la", "el", "of", "the", "van", "der", "des",
                                                       "informe", "datos", "historia", "report", "bericht"}

    def _label_matches(self, text: str, pos: int = 0, endpos: int | None = None) -> Iterator[re.Match[str]]:
        """The matches ``self._labels.finditer(text, pos, endpos)`` gives (same spans and groups), found faster.

        A match ends right after the first ``:`` / ``=`` at or after its start (the labels contain neither) and is
        at most ``_label_width`` characters long, so the matches that end after the ``:`` at ``c`` start after
        the previous ``:`` and at most that far before ``c``: each such window is searched (up to ``c + 1``; the
        pattern looks behind its start, never past its end), in text order, from the end of the last match.
        """
        end = len(text) if endpos is None else min(endpos, len(text))
        width = self._label_width
        if width is None:
            yield from self._labels.finditer(text, pos, end)
            return
        search = self._labels.search
        prev = pos - 1  # the last ``:`` / ``=`` seen (matches cannot start at or before it and end later)
        for c in _COLON.finditer(text, pos, end):
            ci = c.start()
            m = search(text, max(pos, prev + 1, ci + 1 - width), ci + 1)
            prev = ci
            if m is not None:
                yield m
                pos = m.end()

    def analyze(self, text: str) -> list[Span]:
        out: list[Span] = []
        value_end = 0
        for m in self._label_matches(text):
            if m.start() < value_end or not self._is_label(text, m):
                continue  # inside the previous field's value ("Responsable clínico: Dra: Ana"), or no label
            row = self.table[(m.lastindex or 1) - 1]
            if row.score < self.min_score:
                continue
            vstart = m.end()
            line_end = _line_end(text, vstart)
            # a title right after the label is part of the value's prefix, not a new label ("Dr: Juan")
            t = _TITLE_RX.match(text, vstart + len(text[vstart:line_end]) - len(text[vstart:line_end].lstrip()),
                                line_end)
            search_from = t.end() if t else vstart
            nxt = _GENERIC_LABEL.search(text, search_from, line_end)
            vend = line_end
            if nxt:
                glued = _CAMEL.search(text, nxt.start(), nxt.end())
                vend = glued.start() if glued else nxt.start()
            for k in self._label_matches(text, search_from, vend):
                if self._is_label(text, k):
                    vend = k.start()
                    break
            vend = sentence_end(text, search_from, vend)  # "Adress: Storgatan 5, Stockholm. Inkom ..."
            if self.lang == "nl":  # "Adres: Kerkstraat 12, Leeuwarden; thuisbevalling gepland": a clause ends
                semi = text.find(";", search_from, vend)
                vend = vend if semi == -1 else semi
            out.extend(self._value_spans(text, vstart, vend, row))
            value_end = vend
        if self._titles is not None:
            # field values are in text order and do not overlap: bisect for the one a title span could overlap
            starts = [s.start for s in out]
            ends = [s.end for s in out]
            for t in self._title_spans(text):
                i = bisect.bisect_left(starts, t.end) - 1
                if i < 0 or ends[i] <= t.start:
                    out.append(t)
        return sorted(out)

    def _value_spans(self, text: str, start: int, end: int, row: FieldSpec) -> list[Span]:
        spans: list[tuple[int, int, str]] = []
        if row.shape == "name":
            s, e = _trim(text, start, end)
            ext = _name_extent(text, s, e) if e > s else None
            if ext and not (self.lang and _drug_first(text[ext[0]:ext[1]], self.lang)):
                spans.append((*ext, row.category))
        elif row.shape == "place":
            s, e = _trim(text, start, end)
            first = True
            for part in _PLACE_PART.finditer(text[s:e]):
                ps, pe = _trim(text, s + part.start(), s + part.end())
                if pe > ps:
                    cat = row.category if first or row.category != _CI else _SA
                    spans.append((ps, pe, cat))
                    first = False
        else:
            s, e = _trim(text, start, end)
            if row.shape == "street":  # "Anschrift: Parkstraße 42, 18119 Warnemünde": the street before the postcode
                cut = _STREET_BEFORE_POSTCODE.match(text, s, e)
                if cut is not None:
                    e = cut.end(1)
            if e > s and any(c.isalpha() for c in text[s:e]):
                spans.append((s, e, row.category))
        return [Span(s, e, cat, f"{self.name}:{cat}", row.score) for s, e, cat in spans
                if text[s:e].strip().casefold() not in self.null_values and any(c.isalnum() for c in text[s:e])]

    def _title_spans(self, text: str) -> list[Span]:
        assert self._titles is not None
        out = []
        matches = (finditer_first_char(self._title_scan, text) if self._title_scan is not None
                   else (m.span() for m in self._titles.finditer(text)))
        for m_start, m_end in matches:
            # "Hospital Universitario Dr. Negrín", "Calle del Dr. Esquerdo": a place named after a doctor
            before = _CLAUSE_SPLIT.split(text[max(0, m_start - 50):m_start])[-1].split()
            if any(w.casefold().strip("\"'«(") in _NAME_STOP for w in before[-4:]):
                continue
            end = _line_end(text, m_end, 120)
            ext = _name_extent(text, m_end, end)
            if ext and _COMMA_NUMBER.match(text[ext[1]:ext[1] + 6]):  # "Dr. Esquerdo, 46": a street
                continue
            if ext and self.lang is not None and not _DOCTOR_TITLE.match(text, m_start):
                first = _LONG_WORD.search(text, ext[0], ext[1])
                if first is None or not _name_word_ok(first.group(), self.lang):
                    continue  # a role title before a common word or a specialty: "OA Fraktur", "FA Innere"
            if ext and self.lang == "en":
                ext = _en_title_name(text, *ext)
            if ext and ext[1] - ext[0] >= 2 and self.title_score >= self.min_score:
                out.append(Span(ext[0], ext[1], _D, f"{self.name}:title", self.title_score))
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


_EN_TITLE_WORD = re.compile(r"[^\s\-]+")


def _en_title_name(text: str, start: int, end: int) -> tuple[int, int] | None:
    """English: the name after "Dr" ends before a stop word or a common word after its first word ("DR SMITH IN TO
    SEE PT", "Dr. Rockwood-thinking is"), a lower-case part after a hyphen included."""
    lex = common_lexicon("en")
    stop = common_words("en")
    last = None
    for n, m in enumerate(_EN_TITLE_WORD.finditer(text, start, end)):
        w = m.group().strip(".,;")
        f = w.casefold()
        if n and f not in _PARTICLES and (f in stop or (fold(w) in lex and fold(w) not in _en_names())):
            break
        if n and text[m.start() - 1] == "-" and w[:1].islower():
            break
        last = m.start() + len(w)
    if last is None or last <= start:
        return None
    return start, last


@memo
def _en_names() -> frozenset[str]:
    return frozenset(fold(r[0]) for kind in ("first_name", "surname") for r in load_rows("en", kind))


#: titles that introduce a doctor's name in running text
_DOCTOR_TITLES: Mapping[str, str] = {
    "es": r"dra|dr|doctora|doctor",
    "en": r"dr|doctor",
    "nl": r"dr|dokter",
    "sv": r"dr|doktor|överläkare|leg\.\s{0,2}läk",
    "de": rf"dr\.\s{{0,2}}med|dr|priv\.-doz|{_DE_ROLES}|(?-i:{_DE_ROLE_ABBREVIATIONS})",
}
_LONG_WORD = re.compile(r"[^\W\d_]{2,}")
#: a doctor title proper (its name needs no further check); other titles are roles ("Oberarzt", "OA", "överläkare")
_DOCTOR_TITLE = re.compile(r"(?i:dra|dr|doctora|doctor|dokter|doktor)(?![^\W\d_])")

# ---------------------------------------------------------------------------------------------------------
# sex
# ---------------------------------------------------------------------------------------------------------

_SEX_LABELS: Mapping[str, str] = {
    "es": r"sexo|g[ée]nero",
    "en": r"sex|gender",
    "nl": r"geslacht|gender|sekse",
    "sv": r"kön|genus",
    "de": r"geschlecht",
}
_SEX_VALUES_EN = r"male|female|man|woman|m|f|x"
_SEX_VALUES: Mapping[str, str] = {
    "es": r"var[óo]n|mujer|hombre|masculino|femenino|femenina|masculina|ni[ñn]o|ni[ñn]a|h|m|f|v",
    "en": r"boy|girl",
    "nl": r"man|vrouw|mannelijk|vrouwelijk|jongen|meisje|m|v",
    "sv": r"man|kvinna|manlig|kvinnlig|pojke|flicka|m|k",
    "de": r"männlich|weiblich|mann|frau|divers|junge|mädchen|m|w|d",
}
#: sex words that follow an age ("45-year-old woman", "45-jarige vrouw") or start a case ("Varón de 70 años")
_SEX_NOUNS: Mapping[str, str] = {
    "es": r"var[óo]n|mujer|hombre|ni[ñn]o|ni[ñn]a|masculino|femenino|femenina|masculina",
    "en": r"man|woman|male|female|boy|girl|gentleman|lady",
    "nl": r"man|vrouw|jongen|meisje|heer|dame",
    "sv": r"man|kvinna|pojke|flicka",
    "de": r"mann|frau|junge|mädchen",
}
_AGE_BEFORE: Mapping[str, str] = {
    "en": r"\d{1,3}(?:-|\s{1,2})(?:years?|yrs?|months?|mos?|weeks?|wks?|days?)(?:-|\s{1,2})old|\d{1,3}\s{0,2}"
          r"(?:yo|y/o|y\.o\.)",
    "nl": r"\d{1,3}(?:-|\s)?jarige?|\d{1,3}\s{1,2}jaar\s{1,2}oude",
    "sv": r"\d{1,3}(?:-|\s)?årig(?:a|e)?",
    "de": r"\d{1,3}(?:-|\s)?jährige[rn]?",
    "es": r"\d{1,3}\s{1,2}años",
}
_ES_NUM_UNIT = (r"\s{0,3}(?:,\s{0,2})?(?:de|con)\s{1,2}(?:\d{1,3}|un|una|dos|tres|cuatro|cinco|seis|siete|ocho|"
                r"nueve|diez|once|doce|trece|catorce|quince|dieci\w{3,6}|veinti?\w{0,6}|treinta|cuarenta|cincuenta|"
                r"sesenta|setenta|ochenta|noventa)\b")
_ES_NUM_UNIT_RX = re.compile(_ES_NUM_UNIT, re.IGNORECASE)
_ES_RELATIVES = ("su", "sus", "hijo", "hija", "hijos", "hijas", "hermano", "hermana", "hermanos", "hermanas", "feto",
                 "producto", "pareja", "cuñado", "cuñada", "primo", "prima", "padre", "madre", "esposo", "esposa",
                 "marido", "fenotipo", "cariotipo", "amigos", "amigas", "otro", "otra", "nieto", "nieta", "tío",
                 "tía", "sobrino", "sobrina", "abuelo", "abuela", "donante", "recién", "gemelo", "gemela")


def _es_sex_adjust(text: str, start: int, end: int) -> float:
    """``"Varón de 70 años"``: a sex word followed by an age is about the patient."""
    return 0.3 if _ES_NUM_UNIT_RX.match(text[end:end + 40]) else 0.0


@memo
def sex_patterns(lang: str) -> tuple[RulePattern, ...]:
    """The sex patterns of ``lang`` (label ``SEX``), most specific first; the PHI group is the value only."""
    if lang not in _SEX_LABELS:
        raise ValueError(f"unsupported language {lang!r}; expected one of: {', '.join(LANGUAGES)}")
    IC = re.IGNORECASE
    values = f"{_SEX_VALUES[lang]}|{_SEX_VALUES_EN}"
    letters = "|(?-i:M|F)" if lang == "en" else ""  # "67 yo F"
    out = [
        RulePattern("sex_field", first="letter",
                    regex=rf"\b(?:{_SEX_LABELS[lang]})\s{{0,3}}[:=]\s{{0,5}}((?:{values})(?!\w))",
                    score=0.95, flags=IC, group=1),
        RulePattern("sex_after_age", first="digit",
                    regex=rf"\b(?:{_AGE_BEFORE[lang]})\s{{1,2}}((?:{_SEX_NOUNS[lang]}{letters})(?!\w))",
                    score=0.75, flags=IC, group=1),
    ]
    if lang == "es":
        out.append(RulePattern(
            "sex_word", first="letter", regex=rf"\b(?:{_SEX_NOUNS['es']})(?!\w)", score=0.55, flags=IC,
            adjust=_es_sex_adjust,
            context=Context.of(before=("paciente", "presentamos", "caso", "lactante", "adolescente", "sexo"),
                               neg_before=_ES_RELATIVES, n_before=1, boost=0.2, penalty=0.4)))
    return tuple(out)


@memo
def _sex_recognizer(lang: str, min_score: float) -> RuleRecognizer:
    return RuleRecognizer("sex", "SEX", sex_patterns(lang), min_score=min_score)


@memo
def _known_names(lang: str) -> frozenset[str]:
    """Folded first names and surnames of the gazetteer of ``lang``."""
    return frozenset(fold(r[0]) for kind in ("first_name", "surname") for r in load_rows(lang, kind))


def _drug_first(value: str, lang: str) -> bool:
    """Whether a name field's value starts with a drug (``clinanon.lang.lexicon.drug_words``, English INN and brands,
    the same in German: "laut Patientin: Insulin degludec 28 IE") that no name list holds."""
    m = re.match(r"[^\W\d_]+", value)
    return m is not None and fold(m.group()) in drug_words("en") and fold(m.group()) not in _known_names(lang)


def _name_word_ok(word: str, lang: str) -> bool:
    """Whether ``word``, after a role title ("Oberarzt", "OA"), may start a name: it is a gazetteer first name or
    surname, or it is no common word of ``lang`` (:func:`clinanon.lang.lexicon.common_lexicon`, compared folded,
    German nouns included: "OA Fraktur"; :func:`clinanon.lang.lexicon.common_words`), no allowed term, no
    specialty ("FA Allgemeinmedizin") and not in capitals (an acronym)."""
    f = fold(word.rstrip("."))
    if f in _known_names(lang):
        return True
    return not (f in common_lexicon(lang) or word.casefold() in common_words(lang) or word.isupper()
                or SPECIALTY.match(word) or allowlist_for(lang).is_allowed(word))


@memo
def _field_recognizer(lang: str, min_score: float) -> FieldRecognizer:
    return FieldRecognizer("field", FIELD_TABLES[lang], min_score=min_score, titles=_DOCTOR_TITLES[lang], lang=lang)


def recognizers(lang: str, *, min_score: float = 0.5) -> list[Detector]:
    """The sex recognizer and the form-field recognizer of ``lang`` (built once, shared)."""
    if lang not in FIELD_TABLES:
        raise ValueError(f"unsupported language {lang!r}; expected one of: {', '.join(LANGUAGES)}")
    return [_sex_recognizer(lang, min_score), _field_recognizer(lang, min_score)]
