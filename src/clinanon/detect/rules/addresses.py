"""Street addresses (``LOCATION.STREET``) and postcodes (``LOCATION.ZIP``).

Streets, in order of confidence:

1. the value of an address field (``Domicilio:``, ``Dirección:``, ``Address:``, ``Adres:``, ``Adress:``,
   ``Anschrift:``...) up to the line end, a sentence end or the next field label of the line
   (:mod:`clinanon.detect.rules.value_end`: ``"Adress: Storgatan 5, Stockholm. Inkom ..."``), cut before a
   postcode (only values with a digit, ``s/n`` or a street type word count);
2. a street-type word, a name and a house number: prefix types (``Calle``, ``C/``, ``Avda.``, ``Paseo``,
   ``Plaza``, ``Rúa``, ``Carrer``, ``Rue``, ``Via``...), compound suffixes (``Kalverstraat 5``,
   ``Hauptstraße 3``, ``Storgatan 12``, ``Mellemvej 32``), separate German/Dutch type words
   (``Berliner Straße 12``) and English ``number + name + suffix`` (``1668 Glyn St``), each followed by floor
   and door parts (``2º dcha``, ``3º B``, ``bajo izq.``, ``piso 4``, ``puerta 2``, ``5-7``, ``11A``,
   ``Apt. 864``, ``bus 2``, ``lgh 1102``); post-office boxes;
3. a name and a house number (or ``s/n``) directly followed by a postcode, in the languages whose countries
   write the postcode before the city (es, de, nl, sv): ``Hermanos Falcó, s/n 02006 Albacete``. The name is
   cut after institution words and sentence breaks (``Hospital ... Doctor Peset. Gaspar Aguilar 90``).

Postcodes are emitted only in address context: after a postcode label (``CP``, ``C.P.``, ``código postal``,
``Postcode``, ``ZIP``, ``PLZ``, ``postnummer``), right after a street, or in the ``postcode City`` shape of an
address line (``28036 Madrid``, ``1012 AB Amsterdam``, ``123 45 Stockholm``) when the token before it belongs
to an address (a house number, ``s/n``, a comma, a line start); in English after a US state (``IL 62704``) or
as a UK postcode (``SW1A 1AA``).

Speed: every scan starts with a literal or a small character class; names and extras are matched only after
a street type, a suffix or a postcode was found. Repetitions are bounded and separator-delimited.
"""

from __future__ import annotations

import bisect
import re

from clinanon.caches import memo
from clinanon.detect.base import Detector
from clinanon.detect.engine import cue_words, finditer_guarded, finditer_word_start, word_start_scan
from clinanon.detect.rules import letters
from clinanon.detect.rules.lexicon import trie_regex
from clinanon.detect.rules.us_address import recognizers as us_town_lines
from clinanon.detect.rules.value_end import value_end
from clinanon.document import Document, Span
from clinanon.lang import check_language
from clinanon.lang.fold import fold
from clinanon.lang.lexicon import STRONG_STREET_TYPES, common_lexicon, common_words, name_sets, name_words
from clinanon.lang.wordlists import load_rows
from clinanon.text import TokenTable, stop_words

__all__ = ["AddressBlockRecognizer", "AddressRecognizer", "InternationalAddressRecognizer",
           "PlaceContextRecognizer", "PostcodeRecognizer", "StreetRecognizer", "recognizers"]

_UP = "A-ZÁÉÍÓÚÑÜÇÀÈÌÒÙÏÄÖÅÆØÂÊÎÔÛËŠŽČŘ"
_LO = "a-zñçáéíóúàèòïüäöåæøßâêîôûëšžčř"
_CAP = rf"(?:d[’'´])?[{_UP}][\w'´’\-]{{0,30}}\.?"
_CAP_NODOT = rf"[{_UP}][\w'´’\-]{{0,30}}"
_LOWER_WORD = rf"(?!km\b|sn\b|s[ \t]?/)[{_LO}][\w'´’\-]{{0,30}}\.?"
_CONNECTORS = ("de", "del", "la", "las", "los", "el", "y", "i", "da", "do", "dos", "das", "di", "du", "le", "les",
               "van", "von", "der", "den", "het", "'t", "ter", "ten", "op", "aan", "am", "an", "auf", "zum", "zur",
               "of", "the", "och", "vid", "en")
_CONN = rf"(?:d[’'´]|{'|'.join(_CONNECTORS)})(?![\w])"
_CONNECTOR_SET = frozenset(_CONNECTORS)

# House number, floor / door parts --------------------------------------------------------------------------
_NUM_MARK = r"(?:[nN][º°oO]\.?|[nN]\.?[ \t]?º|n\.o|número|No\.|Nr\.|nr\.|#)[ \t]?"
_HOUSE = (
    rf"(?:(?:{_NUM_MARK})?[1-9]\d{{0,3}}[ºª°]?(?:[\-/][ \t]?\d{{1,4}}[ºª°]?[A-Za-z]?|-[A-Za-z](?![\w]))?"
    r"(?:[A-Za-z]|[ \t][A-Z])?(?![\w\-'’])"
    r"|[sS][ \t]?/[ \t]?[nN]\.?|S\.?N\.?(?![\w])|sn(?![\w])|[kK]m\.?[ \t]?\d{1,3}(?:[.,]\d{1,3})?)"
)
_DOOR = r"(?:E(?![\w\-'’])(?![ \t]*\d{4})|[A-DF-Z](?![\w\-'’]))"  # not "E-28015" / "E 28053"
_SIDE = r"(?i:izq(?:uierda|da)?\.?|izda\.?|iz\.|dcha\.?|dch\.?|derecha|der\.?|dr[ao]\.?|centro|ctro\.?)"
_EXTRA = (
    r"(?:"
    rf"\d{{1,3}}\.?[ \t]?[º°ª](?:[ \t]?-?[ \t]?(?:{_SIDE}|{_DOOR}|[a-z](?![\w])|\d{{1,2}}[ª°º]?(?!\d)))?"  # 2º dcha
    rf"|\d{{1,3}}\.[oa](?:[ \t]?{_DOOR})?"  # 3.o B
    r"|[º°ª][ \t]?[A-Z](?![\w])"  # ºB
    rf"|\d{{1,2}}[ \t]?[oa][ \t]?{_DOOR}|\d{{1,2}}[oa](?![\w])"  # 3o B, 2o
    r"|\d{1,3}[A-Za-z](?![\w])|[A-Z]-?\d{1,2}(?!\d)"  # 7B, A-6, P1
    r"|\d{1,2}(?![\d\w])"  # 10 (never a postcode or a phone number)
    rf"|(?<!\.)(?<!\.[ \t])(?!.\.[A-Za-z]){_DOOR}"  # C (not "C.P.", "E-28015")
    r"|[kK]m\.?[ \t]?\d{1,3}(?:[.,]\d{1,3})?|(?:y|and|und|en|och)[ \t]\d{1,3}(?![\d\w])"  # km 539, 1 y 3
    rf"|(?i:bajo|bj\.?|entlo\.?|entresuelo|ático|atico|principal|pral\.?|sótano|semisótano|esq\.?|esquina)"
    rf"(?:[ \t]?(?:{_SIDE}|[A-Z](?![\w])))?"
    r"|(?i:piso|planta|pl\.|puerta|pta\.?|portal|escalera|esc\.?|bloque|blq\.?|local|apto\.?|apartamento|dpto\.?"
    r"|departamento|dto\.?|oficina|of\.|casa|edificio|edif\.?|edf\.?)[ \t]?\"?[\w\-]{1,4}\"?"
    rf"|{_SIDE}"
    r"|(?i:apt\.?|apartment|suite|ste\.?|unit|fl(?:oor)?\.?|rm\.?|room|bldg\.?|building|box)[ \t]?#?[\w\-]{1,6}"
    r"|(?i:bus|hs|huis|lgh|lägenhet|whg\.?|app\.?|wohnung)[ \t]?[\w\-]{1,5}|(?:EG|OG|DG|HH|VH)(?![\w])"
    r"|\d{1,2}[ \t]?(?i:tr\.?|hoog|og|stock|etage|verdieping)(?![\w])"
    r")"
)
_EXTRAS = rf"(?:[ \t]{{0,2}}[,\-–.]?[ \t]{{0,2}}{_EXTRA}){{0,5}}"

# Street types ---------------------------------------------------------------------------------------------
# Strong types (:data:`clinanon.lang.lexicon.STRONG_STREET_TYPES`) accept a lower-case name ("C/ del pez 3"); weak
# ones ("Paseo de 30 minutos") need a capitalised name word or a name that starts with a connector ("Paseo de san
# francisco 19").
_WEAK_TYPES = (
    "Paseo", "PASEO", "Plaza", "PLAZA", "Plaça", "Ronda", "Camino", "Camí", "Carretera", "Urbanización", "Urb.",
    "Pasaje", "Pje.", "Callejón", "Cuesta", "Bulevar", "Boulevard", "Rambla", "Alameda", "Polígono", "Pol.",
    "Paraje", "Gran Vía", "Vía", "Via", "Rue", "Viale", "Piazza", "Corso", "Largo", "Laan van", "Plein",
)
_LOWER_TYPES = ("calle", "c/", "avda.", "avenida", "av.", "plaza", "paseo", "pza.", "ctra.", "carretera", "rúa",
                "carrer", "passeig", "glorieta", "travesía", "ronda", "camino")


def _alt(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


# Name words are atomic and the word loop is possessive: a failed street costs one pass over its words.
_NAME = rf"(?>{_CAP}|{_CONN}|{_LOWER_WORD})"
_AFTER_TYPE = rf"(?:[ \t]*[.,][ \t]*|[ \t]+|(?<=[/\\]))(?P<name>{_NAME}(?:[ \t]+{_NAME}){{0,7}}+)"
_TAIL = rf"[ \t]*,?[ \t]*(?P<num>{_HOUSE}){_EXTRAS}"
_PREFIX_STREET = re.compile(rf"({_alt(STRONG_STREET_TYPES + _WEAK_TYPES)}){_AFTER_TYPE}{_TAIL}")
_LOWER_PREFIX_STREET = re.compile(rf"({_alt(_LOWER_TYPES)}){_AFTER_TYPE}(?P<comma>[ \t]*,)?{_TAIL}")
_STRONG_SET = frozenset(STRONG_STREET_TYPES)
_TYPE_START = re.compile(rf"(?:{_alt(STRONG_STREET_TYPES + _WEAK_TYPES + _LOWER_TYPES)})(?![\w])")

#: a Dutch street named without its number after a preposition and "de" ("op de kruising van de Stationsweg met de
#: Wethouder Klapstraat", "woont aan de Esdoornlaan"): a capitalised word that ends in a street type, perhaps a title
#: word before it; no common noun of Dutch is capitalised inside a sentence
_NL_STREET_NO_NUMBER = re.compile(
    r"(?<![\w])(?:aan|op|in|van|naar|bij|via|langs|over|met|uit|vanaf|en)[ \t]{1,2}de[ \t]{1,2}"
    rf"(?P<name>(?:[{_UP}][{_LO}]{{1,15}}\.?[ \t]{{1,2}})?[{_UP}][{_LO}]{{2,30}}"
    r"(?:straat|weg|laan|gracht|kade|singel|plein|dreef|steeg|dijk|pad))(?![\w\-])")


def _nl_streets_without_number(text: str) -> list[Span]:
    if "de " not in text:
        return []
    return [Span(*m.span("name"), "LOCATION.STREET", "street_nl:without_number", 0.6)
            for m in _NL_STREET_NO_NUMBER.finditer(text)]


_SUFFIXES = {
    "nl": "straat|str\\.|laan|weg|plein|gracht|kade|singel|dijk|steeg|dreef|plantsoen|burgwal|wal|markt|pad|hof|veld"
          "|erf|baan",
    # (a street named after a person is written with hyphens and a capitalised type word: "Max-Planck-Straße")
    "de": "straße|strasse|str\\.|allee|gasse|ring|damm|ufer|chaussee|pfad|steig|graben|stieg|weg|platz|markt"
          "|-Straße|-Strasse|-Str\\.|-Allee|-Gasse|-Ring|-Damm|-Ufer|-Weg|-Platz|-Markt",
    "sv": "gatan|vägen|väg|gränd|torget|torg|allén|stigen|backen|gången|kajen",
    "other": "vej|gade|vænget|veien|vegen|gata|stien|katu|tie|kuja|polku|tori|utca|ulica|cesta|straat|strasse"
             "|straße|gatan|vägen|weg|laan",
}
_TYPE_WORDS = "Straße|Strasse|Str\\.|Weg|Platz|Allee|Gasse|Ring|Damm|Ufer|Chaussee|Markt|Kade|Gracht|Singel"
_EN_SUFFIX = (
    "Street|St.|St|Str.|Str|Road|Rd.|Rd|Avenue|Ave.|Ave|Lane|Ln.|Ln|Drive|Dr.|Dr|Boulevard|Blvd.|Blvd|Court|Ct.|Ct|Way|Place"
    "|Pl.|Terrace|Ter.|Circle|Cir.|Square|Sq.|Highway|Hwy.|Hwy|Parkway|Pkwy.|Pkwy|Trail|Trl.|Alley|Crescent|Close"
    "|Grove|Gardens|Row|Walk|Mews|Loop|Pike|Path|Plaza|Heights|Hill|Hills|Park|Ridge|Crossing|Expressway|Freeway"
    "|Turnpike|Route|Green|View|Vista|Point|Manor|Creek|Springs|Spring|Meadows|Meadow|Valley|Estates|Estate"
    "|Forges|Forge|Mills|Mill|Harbor|Glen|Knolls|Knoll|Shoals|Shoal|Fields|Field|Falls|Ports|Port|Isle|Keys|Key"
    "|Lakes|Lake|Landing|Islands|Island|Villages|Village|Stream|Station|Summit|Underpass|Viaduct|Unions|Union"
    "|Squares|Streets|Roads|Junction|Causeway|Bypass|Brooks|Brook|Branch|Bridge|Canyon|Cape|Center|Cliffs|Cliff"
    "|Corners|Corner|Courts|Coves|Cove|Crest|Curve|Dale|Divide|Drives|Extension|Ferry|Flats|Flat|Fords|Ford"
    "|Forest|Forks|Fork|Fort|Gateway|Groves|Haven|Hollow|Inlet|Junctions|Lights|Light|Locks|Lock|Lodge|Mall"
    "|Manors|Mission|Motorway|Mount|Mountains|Mountain|Neck|Orchard|Oval|Overpass|Parks|Parkways|Pass|Passage"
    "|Pines|Pine|Plains|Plain|Prairie|Ranch|Rapids|Rapid|Rest|Ridges|River|Shores|Shore|Skyway|Spur|Stravenue"
    "|Throughway|Trace|Track|Trafficway|Tunnel|Valleys|Views|Ville|Wall|Ways|Wells|Well|Commons"
)
_EN_SUFFIX_ALT = _alt(tuple(_EN_SUFFIX.split("|")))
_EN_HIT = re.compile(rf"(?:{_EN_SUFFIX_ALT})(?![\w])")
_EN_STREET = re.compile(
    rf"(?<![\w\-.,/])(?P<num>\d{{1,6}}[A-Za-z]?(?:-\d{{1,4}})?)[ \t]+"
    rf"(?P<name>(?:(?:{_CAP}|\d{{1,3}}(?:st|nd|rd|th))[ \t]+){{1,4}}(?:{_EN_SUFFIX_ALT}))(?![\w])"
    r"(?:,?[ \t]*(?i:apt\.?|apartment|suite|ste\.?|unit|#|fl(?:oor)?\.?|rm\.?|room|bldg\.?|building)[ \t]?#?"
    r"[\w\-]{1,6}|,?[ \t]{1,2}\d{1,2}(?:st|nd|rd|th)[ \t](?i:floor|fl\.?)(?![\w]))?"
)
#: a street named without its house number after a preposition of place ("lives on Pine Street", "found down on
#: Maple Ave", "apartment off Route 9" is not one: a type word in this set must end it); ends at the type word
_EN_PREP_TYPES = frozenset(("Street", "St", "Avenue", "Ave", "Road", "Rd", "Boulevard", "Blvd", "Terrace", "Drive",
                            "Highway", "Hwy", "Parkway", "Pkwy", "Turnpike", "Pike", "Circle", "Lane", "Ln",
                            "Court", "Way", "Place"))
_EN_PREP_STREET = re.compile(
    r"(?<![\w])(?i:on|off|onto|along|near|down|at|lives[ \t]on)[ \t]{1,2}"
    r"(?P<name>(?:[A-Z][a-z'’]{1,30}[ \t]{1,2}){1,3})[A-Z][a-z]{1,10}\.?\Z")
#: an English street in capitals (a run sheet, a form): house number, one to four words in capitals, a type word in
#: capitals, then a comma, a line's end or a unit ("1440 OLD TURNPIKE RD, BRIDGEWATER", "22 ELM ST APT 4")
_EN_UPPER_TYPES = ("STREET", "ST", "ROAD", "RD", "AVENUE", "AVE", "LANE", "LN", "DRIVE", "DR", "BOULEVARD", "BLVD",
                   "COURT", "WAY", "PLACE", "PL", "TERRACE", "TER", "CIRCLE", "CIR", "HIGHWAY", "HWY", "PARKWAY",
                   "PKWY", "TURNPIKE", "TPKE", "PIKE", "TRAIL", "SQUARE", "PLAZA", "COMMONS", "CROSSING", "ROW")
_EN_UPPER_STREET = re.compile(
    rf"(?<![\w\-.,/:])\d{{1,6}}[A-Z]?[ \t]{{1,2}}(?:[A-Z][A-Z'’\-]{{1,20}}\.?[ \t]{{1,2}}){{1,4}}"
    rf"(?:{_alt(_EN_UPPER_TYPES)})\.?(?=[ \t]{{0,2}}(?:,|\r?\n|\Z|(?:APT|UNIT|SUITE|STE|#)(?![A-Z])))")
_EN_UPPER_CUE = re.compile(r"(?:^|\n|:|(?<![\w])(?i:at|to|from|lives|resides|address|on|@))[ \t]{0,3}\Z")
#: a county by its name ("Harlan County", "Marion Co.", "HARLAN COUNTY", "St. Lucie County"): one or two
#: capitalised words before "County" / "Co." / "Parish" (LOCATION.OTHER); not "the County", "county jail"
_EN_COUNTY = re.compile(
    r"(?<![\w\-'’.])(?P<name>(?:(?:St|Ste|Mt|Ft)\.?[ \t])?[A-Z][a-z'’]{2,20}(?:[ \t][A-Z][a-z'’]{2,20})?"
    r"[ \t](?:County|Co\.|Parish)"
    r"|(?:(?:ST|MT|FT)\.?[ \t])?[A-Z][A-Z'’]{2,20}(?:[ \t][A-Z][A-Z'’]{2,20})?[ \t](?:COUNTY|PARISH))(?![\w\-])")
#: words before "County" that do not name one ("The County", "This County", "Home County")
_EN_NOT_COUNTY = frozenset(("the", "this", "that", "each", "every", "our", "your", "his", "her", "their", "home",
                            "same", "other", "any", "local", "neighboring", "neighbouring", "adjacent", "whole",
                            "entire", "nearby", "rural", "urban", "native", "a", "an", "in", "of", "per", "and",
                            "to", "from", "at", "by", "for", "with"))
#: a street in lower case after a preposition of place ("lives on dorchester ave", "found near kelso sq"): one to
#: three lower-case words, one of them no word of the lexicon, then a type word
_EN_LOWER_PREP_STREET = re.compile(
    r"(?<![\w])(?:on|off|onto|along|near|at)[ \t]{1,2}(?P<name>[a-z][a-z'’]{2,20}(?:[ \t][a-z][a-z'’]{2,20}){0,2})"
    r"[ \t](?:st|street|ave|avenue|rd|road|blvd|boulevard|dr|drive|ln|lane|sq|square|pkwy|parkway|hwy|highway)"
    r"(?![\w\-'’])")
#: a numbered road after a preposition of place ("on Route 421", "off Rte 9", "along Hwy 1", "on 5th Ave")
_EN_NUMBERED_ROAD = re.compile(
    r"(?<![\w])(?i:on|off|onto|along|near|down|at|via|from|up)[ \t]{1,2}"
    r"(?P<road>(?:Route|Rte\.?|RT\.?|Rt\.?|ROUTE|RTE|Highway|HIGHWAY|Hwy\.?|HWY|Interstate|State[ \t]Route|I-)[ \t]?"
    r"\d{1,4}[A-Z]?(?![\w\-/.]\w)"
    r"|\d{1,3}(?:st|nd|rd|th|ST|ND|RD|TH)[ \t](?:Street|St|Avenue|Ave|STREET|ST|AVENUE|AVE)(?![\w]))")
#: "St" before a name is a saint ("at Mount St. Mary's")
_EN_SAINT_NEXT = re.compile(r"\.?[ \t]{1,2}[A-Z]")
#: abbreviations that may stand with their dot before a street type ("12 N. Elm St", "4 Mt. Vernon Pl")
_EN_DOTTED_OK = frozenset(("st", "mt", "ft", "pt", "n", "s", "e", "w", "ne", "nw", "se", "sw", "dr", "jr", "sr"))
#: what follows a street after its type: a comma, a line's end, a number, a unit, a town in capitals
_EN_CLINICAL_NEXT = re.compile(r"[ \t]{1,2}([A-Za-z]{2,20})(?![\w\-])")


def _en_not_street(text: str, m: re.Match[str]) -> bool:
    """An English "number + words + type" match that is clinical shorthand, not an address: a word before the type
    ends with a sentence's dot ("3 UPRBCS. CT"), or the type is "CT" (a chest tube, a scan; "Ct" once a note in
    capitals is re-cased) and a word of the lexicon that is no stop word follows it on the line ("2 MEDIASTINAL CT
    DIVIDED", "1 PLEURAL CT DRAINING"; "14 Oak Ct with wife", "22 Elm Ct apt 3" stay streets)."""
    words = m.group("name").split()
    for w in words[:-1]:
        if w.endswith(".") and w.rstrip(".").casefold() not in _EN_DOTTED_OK:
            return True
    if words[-1].rstrip(".") not in ("CT", "Ct"):
        return False
    nxt = _EN_CLINICAL_NEXT.match(text, m.end())
    if nxt is None:
        return False
    w = nxt.group(1).casefold()
    return w in _en_common() and w not in _en_places() and w not in stop_words("en")


#: the town after a street, after a comma or "in": "92 Tern St, apt 3, Halbrook, with ...", "418 Elm Ave,
#: Pell City.", "on Drumlin St in Eastfield." (one or two capitalised words, then a comma, a sentence's end, a
#: line's end or "with")
_EN_TOWN_AFTER = re.compile(r"(?:,|[ \t]in)[ \t]{1,2}(?P<town>[A-Z][a-z'’]{2,30}(?:[ \t][A-Z][a-z'’]{2,30})?)"
                            r"(?=[ \t]{0,2}(?:[,.;)]|\r?\n|\Z|[ \t](?i:with|where|and)[ \t]))")


def _en_town_words(town: str) -> bool:
    """Words that can name a town after a street: no stop word, and a listed place or a word no lexicon holds
    among them ("Halbrook", "Pell City"; not "Second floor", "Apartment")."""
    words = town.split()
    if any(w.casefold() in stop_words("en") for w in words):
        return False
    return any(fold(w) in _en_places() or w.casefold() not in _en_common() for w in words) and not all(
        w.casefold() in _en_common() for w in words)


@memo
def _en_common() -> frozenset[str]:
    return frozenset(common_lexicon("en")) | frozenset(common_words("en"))


@memo
def _en_places() -> frozenset[str]:
    return frozenset(name_words("en")[1])


_PO_BOX = re.compile(
    r"(?:P\.?[ \t]?O\.?[ \t]?Box|PO[ \t]Box|Apartado(?:[ \t]de[ \t][Cc]orreos)?|Postbus|Box|Postfach)"
    r"[ \t]+\d{1,6}(?![\w])"
    r"|(?:PSC|USNS|USNV|USS|USCGC)[ \t]+\d{3,5}(?:,[ \t]?Box[ \t]+\d{3,5})?"
)
#: every _PO_BOX match contains one of these ("US" for the ship prefixes USNS, USNV, USS, USCGC)
_PO_BOX_HINTS = ("Box", "Apartado", "Postbus", "Postfach", "PSC", "US")

# Field labels whose value is an address --------------------------------------------------------------------
_ADDRESS_LABELS: dict[str, tuple[str, ...]] = {
    "es": ("domicilio", "dirección", "direccion", "dirección postal", "residencia", "domicilio habitual"),
    "en": ("address", "home address", "street address", "mailing address", "billing address", "residence",
           "street"),
    "nl": ("adres", "woonadres", "straat", "huisadres", "postadres"),
    "sv": ("adress", "gatuadress", "bostadsadress", "hemadress", "postadress"),
    "de": ("adresse", "anschrift", "wohnanschrift", "wohnadresse", "straße", "strasse", "postanschrift"),
}

# Postcodes -------------------------------------------------------------------------------------------------
# Each starts by consuming one character class (not a repeat or an alternation), so that the regex engine skips
# to the next digit: "[0-9][0-9]{4}" = "[0-9]{5}"; a first character shared by all branches is taken out of them
# (one character: no other way to match it), "[0-9](?:[0-9]{4}|(?<=[1-9])[0-9]{3})" = "[0-9]{5}|[1-9][0-9]{3}".
_PC_CORE: dict[str, str] = {
    "es": r"[0-9][0-9]{4}",
    "de": r"[0-9](?:[0-9]{4}|(?<=[1-9])[0-9]{3})",
    "nl": r"[1-9][0-9]{3}(?:[ \t]?(?!SA|SD|SS)[A-Z]{2}(?![\w]))?",
    "sv": r"[1-9](?:[0-9]{2}[ \t][0-9]{2}|[0-9]{4})",
    "en": r"[0-9][0-9]{4}(?:-[0-9]{4})?",
}
_PC_PREFIXES: dict[str, tuple[str, ...]] = {
    "es": ("E-", "ES-"), "de": ("D-", "DE-", "A-", "AT-", "CH-"), "nl": ("NL-", "B-"), "sv": ("SE-", "S-"),
    "en": (),
}
_UK_PC = re.compile(r"(?:[A-PR-UWYZ][A-HK-Y]?[0-9][A-Z0-9]?)[ \t][0-9][ABD-HJLNP-UW-Z]{2}(?![\w])")
_PC_GENERIC = r"(?:[A-Z]{1,2}-?)?\d[0-9A-Z]{1,7}(?:[ \-]\d{2,4}|[ \t][A-Z]{2}(?![a-z]))?"
_PC_VALUE = (rf"(?:[ \t]+(?:is|es|ist|är|is:))?[ \t]*[:.]?[ \t]*(?:\n[ \t]*)?\(?(?P<pc>{_PC_GENERIC})"
             r"(?![\w\-])")
_PC_LABEL = re.compile(
    r"(?:C\.[ \t]?P\.?|CP\.?|Cp\.?|C[óo]digo[ \t][Pp]ostal|C[ÓO]DIGO[ \t]POSTAL|Cod\.?[ \t][Pp]ostal"
    r"|Post(?:code|[ \t]code|nummer|nr\.?|leitzahl)|POSTCODE|Postal[ \t]code|ZIP(?:[ \t]?[Cc]ode)?"
    rf"|Zip(?:[ \t]?[Cc]ode)?|PLZ){_PC_VALUE}"
)
# lower-case spellings: only scanned when the text contains one of _PC_LOWER_HINTS
_PC_LABEL_LOWER = re.compile(
    r"(?:c[óo]digo[ \t]postal|cod\.?[ \t]postal|post(?:code|[ \t]code|nummer|nr\.?|leitzahl)|postal[ \t]code"
    rf"|zip(?:[ \t]?code)?|c\.p\.){_PC_VALUE}"
)
_PC_LOWER_HINTS = ("digo postal", "cod postal", "cod. postal", "postcode", "post code", "postnummer", "postnr",
                   "postleitzahl", "postal code", "zip", "c.p.")
_US_STATES = frozenset((
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS",
    "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC",
    "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY",
    "PR", "AA", "AE", "AP", "GU", "VI",
))
_US_STATE_ZIP = re.compile(r"[A-Z]{2}[ \t]{1,2}(?P<pc>[0-9]{5}(?:-[0-9]{4})?)(?![\w\-])")
_CITY = re.compile(rf"[ \t]{{0,3}}[,.\-–]?[ \t]{{0,3}}\(?(?:[{_UP}][{_LO}][\w'’\-]{{1,30}}|[{_UP}]{{3,30}}(?![\w]))")

# Words that never belong to the name of a postcode-anchored street (institutions, titles).
_STOP_WORDS = frozenset(w.casefold() for w in (
    "Hospital", "Hospitalario", "Universitario", "Universitaria", "Clínico", "Clinico", "Clínica", "Clinica",
    "Complejo", "Fundación", "Fundació", "Centro", "Servicio", "Unidad", "Departamento", "Instituto", "Facultad",
    "Universidad", "Consorcio", "Sanatorio", "General", "Provincial", "Regional", "Comarcal", "Dr", "Dr.", "Dra",
    "Dra.", "Prof", "Prof.", "Sr", "Sr.", "Sra", "Sra.", "Don", "Doña", "Remitido", "por", "Correspondencia",
    "Ziekenhuis", "Klinik", "Klinikum", "Krankenhaus", "Universitätsklinikum", "Sjukhus", "Sjukhuset", "UMC",
    "Praxis", "Praktijk", "Vårdcentral", "Vårdcentralen", "Área", "Sección", "Materno", "Infantil", "Planta",
))
_DEPARTMENT = re.compile(r"(?i).*(?:log[íi]a|iatr[íi]a|cirug[íi]a|medicina|farmacia|urgencias|radiolog\w*)$")


def _trim_name(text: str, start: int, name_end: int) -> int:
    """New start of a postcode-anchored street: after the last institution word, acronym or sentence break,
    without leading lower-case connectors."""
    cut = start
    for m in re.finditer(r"\S+", text[start:name_end]):
        w = m.group()
        bare = w.rstrip(".,")
        if (w.casefold() in _STOP_WORDS or bare.casefold() in _STOP_WORDS or _DEPARTMENT.match(bare)
                or (len(bare) >= 3 and bare.isupper() and bare.isalpha())
                or (w.endswith(".") and len(bare) > 2) or w.endswith(",")):
            cut = start + m.end()
    institution = cut > start
    after_connector = False
    while True:
        m = re.match(r"[ \t,.]*(\S+)", text[cut:name_end])
        if m and m.group(1) in _CONNECTOR_SET:
            cut += m.end()
            after_connector = True
            continue
        break
    if institution and after_connector:
        # "Hospital General de Móstoles Río Júcar": the word after "de" still names the institution
        m = re.match(r"[ \t]*\S+[ \t]+(?=\S)", text[cut:name_end])
        if m:
            cut += m.end()
    while cut < name_end and text[cut] in " \t,.":
        cut += 1
    return cut


def _has_cap_word(s: str) -> bool:
    return any(w[:1].isupper() for w in s.split() if w.casefold() not in _CONNECTOR_SET)


# English street-suffix abbreviations keep their dot; Spanish door parts ("4 izq.") do not (as in MEDDOCAN)
_KEEP_DOT = frozenset(("st", "rd", "ave", "ln", "dr", "blvd", "ct", "pl", "sq", "hwy", "pkwy", "trl", "ter", "cir",
                       "str", "apt", "ste"))


def _rstrip(text: str, start: int, end: int) -> int:
    """``end`` without trailing separators; the dot of a known abbreviation ("4 izq.", "Main St.") stays."""
    while end > start and text[end - 1] in " \t,.-–;:(":
        if text[end - 1] == ".":
            j = end - 1
            while j > start and text[j - 1].isalpha():
                j -= 1
            if text[j:end - 1].lower() in _KEEP_DOT and (j == start or not text[j - 1].isalnum()):
                break
        end -= 1
    return end


#: a letter, a slash and one more letter ("C/O", "c/o", "C/V", "s/p"): an English clinical abbreviation
_SLASH_ABBR = re.compile(r"[A-Za-z][/\\][A-Za-z](?![\w'’])")


def _slash_abbreviation(text: str, start: int, end: int) -> bool:
    """The street type at ``start:end`` ("C/", "c/") begins an abbreviation such as "C/O PAIN" (complains of) or
    "c/o" (care of), not a Spanish "C/ Mayor 5"."""
    return end - start <= 3 and _SLASH_ABBR.match(text, start) is not None


_EN_SLASH_STREET = re.compile(r"[ \t]+[A-Z][a-zà-ÿ]")


def _en_slash_shorthand(text: str, start: int, end: int) -> bool:
    """In English text a slash street type ("C/", "Av/") is clinical shorthand ("C/DIFF", "C/SPINE", "CC/HR")
    unless a space and a Title-case name follow it ("C/ Mayor 5", a Spanish address)."""
    typ = text[start:end]
    return ("/" in typ or "\\" in typ) and _EN_SLASH_STREET.match(text, end) is None


def _glued(text: str, start: int) -> bool:
    return start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_/\\-")


def _overlaps(spans: list[Span], start: int, end: int) -> bool:
    return any(s.start < end and start < s.end for s in spans)


def _dedupe(spans: list[Span]) -> list[Span]:
    """Drop spans contained in an earlier-starting, longer span (keep the first of equal extents)."""
    spans = sorted(spans, key=lambda s: (s.start, -s.end, -s.score))
    out: list[Span] = []
    for s in spans:
        if out and out[-1].start <= s.start and s.end <= out[-1].end:
            continue
        out.append(s)
    return out


class _Postcodes:
    """Postcode shapes of one language: ``find(text)`` yields ``(start, end)`` of each postcode (prefix such
    as ``E-`` included), with word-boundary and range checks."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.core = re.compile(rf"(?:{_PC_CORE[lang]})(?![\w])")
        self.prefixes = _PC_PREFIXES[lang]

    def _ok(self, s: str) -> bool:
        digits = s.replace(" ", "").replace("\t", "")[:5]
        if self.lang == "es":
            return len(digits) == 5 and 1000 <= int(digits) <= 52999
        if self.lang == "de" and len(digits) == 5:
            return 1000 <= int(digits) <= 99998
        return True

    def find(self, text: str, pos: int = 0, endpos: int | None = None) -> list[tuple[int, int]]:
        out = []
        for m in self.core.finditer(text, pos, len(text) if endpos is None else endpos):
            s, e = m.span()
            if e < len(text) and text[e] == "-" and text[e + 1:e + 2].isdigit():
                continue
            start = s
            for p in self.prefixes:
                if text[max(0, s - len(p)):s] == p:
                    start = s - len(p)
                    break
            if _glued(text, start) or (start > 0 and text[start - 1] in ".,"
                                       and text[start - 2:start - 1].isdigit()):
                continue
            if self.lang == "de" and e - s == 4 and start == s:
                continue  # a 4-digit (Austrian, Swiss) postcode only with its country prefix
            if self._ok(m.group()):
                out.append((start, e))
        return out


#: words of a Dutch sentence or field before a street that the street's leading words may take in
#: ("Woonachtig Hoofdweg 231", "Thuisadres Kerkpad 3"), folded
_NL_NOT_STREET_LEAD = frozenset(("woonachtig", "wonend", "woont", "woonde", "adres", "thuisadres", "woonadres",
                                 "postadres", "bezoekadres", "correspondentieadres", "verhuisd", "naar", "op", "in",
                                 "aan", "te", "via"))
#: Dutch additions after a house number: "88 bis", "4-II", "12-III", "7 hs", "3-hs", "14 bg", "21-zw", "9 rd" (not
#: "ter", which starts "ter hoogte van")
_NL_ADDITION = re.compile(r"(?:[ \t]{1,2}|-)(?:bis|I{1,3}|IV|hs|huis|bg|zw|rd|bv|boven)(?![\w-])")


def _nl_street_edges(text: str, s: Span) -> Span:
    """A Dutch street span without a leading address word ("Woonachtig Hoofdweg 231" -> "Hoofdweg 231") and with
    the addition after its house number ("Van Limburg Stirumstraat 88 bis", "Burg. de Withstraat 4-II")."""
    start, end = s.start, s.end
    m = re.match(r"[^\W\d_]+", text[start:end])
    if m is not None and m.group().casefold() in _NL_NOT_STREET_LEAD and end - start > m.end() + 1:
        start += m.end()
        while start < end and text[start] in " \t":
            start += 1
    if end > start and text[end - 1].isalnum():
        a = _NL_ADDITION.match(text, end)
        if a is not None and (text[end - 1].isdigit() or text[end - 2:end - 1].isdigit()):
            end = a.end()  # after "88" or "12a", not after a word
    return s if (start, end) == (s.start, s.end) else Span(start, end, s.label, s.source, s.score)


#: a comma, an Austrian or Swiss four-digit postcode and a capitalised town after a German street field's street
_DE_COMMA_POSTCODE4 = re.compile(r"[ \t]{0,2},[ \t]{0,3}(?:A-|CH-)?[1-9]\d{3}[ \t]{1,2}[A-ZÄÖÜ]")


class StreetRecognizer:
    """Street addresses of one language (see the module docstring). Scores: field value 0.85, typed street
    0.8 (0.7 for ambiguous type words), suffix / type-word / English streets 0.75, P.O. boxes 0.7,
    postcode-anchored street 0.6."""

    def __init__(self, lang: str) -> None:
        self.lang = check_language(lang, exact=True)
        self.name = f"street_{lang}"
        self._labels = tuple(sorted(_ADDRESS_LABELS[lang], key=len, reverse=True))
        self.postcodes = _Postcodes(lang)
        suffix = _SUFFIXES.get(lang, _SUFFIXES["other"]) + ("|" + _SUFFIXES["other"] if lang != "en" else "")
        self._suffix_hit = None
        self._suffix_street = None
        if lang != "es":
            self._suffix_hit = re.compile(rf"(?:{suffix})(?![\w])(?=[ \t]*,?[ \t]*(?:{_NUM_MARK})?\d)")
            # Dutch (and foreign) names may have leading words ("Prins Hendrikkade"); German and Swedish
            # compounds are one word ("Hauptstraße", "Storgatan")
            lead = rf"(?:{_CAP_NODOT}[ \t]+){{0,2}}" if lang in ("nl", "en") else ""
            if lang == "nl":  # also an abbreviated title and particles: "Burg. de Withstraat", "Dokter van Thienenweg"
                lead = (rf"(?:(?:{_CAP_NODOT}|[{_UP}][a-z]{{1,6}}\.)[ \t]+(?:(?:van|de|der|den|het|'t|ter|ten)[ \t]+)"
                        rf"{{0,2}}){{0,2}}")
            # Dutch: a floor or an addition after a dash ("Burg. de Withstraat 4-II", "Kerkstraat 3-hs")
            tail = (rf"(?:{_TAIL}|[ \t]*,?[ \t]*[1-9]\d{{0,3}}[a-z]?-(?:I{{1,3}}|IV|hs|bg|zw|rd|bis)(?![\w\-'’]))"
                    if lang == "nl" else _TAIL)
            self._suffix_street = re.compile(
                rf"(?<![\w\-])(?P<name>{lead}[{_UP}][\w\-]{{2,30}}(?:{suffix}))(?![\w]){tail}"
            )
        self._type_word_street = None
        if lang in ("de", "nl", "en"):  # en: streets of German-speaking places ("Villacher Strasse 89")
            self._type_word_hit = re.compile(rf"(?:{_TYPE_WORDS})(?=[ \t]*,?[ \t]*\d)")
            self._type_word_street = re.compile(
                rf"(?<![\w\-])(?P<name>{_CAP_NODOT}[ \t]+(?:(?:{_CAP_NODOT}|{_CONN})[ \t]+){{0,2}}(?:{_TYPE_WORDS}))"
                rf"{_TAIL}"
            )
        self._anchored = None
        if lang in ("es", "de", "nl", "sv"):
            self._anchored = re.compile(
                rf"(?<![\w\-/.])(?P<name>{_CAP}(?:[ \t]+(?:{_CAP}|{_CONN})){{0,5}}){_TAIL}"
                r"[ \t]*[,.\-–]?[ \t]*\(?\Z"
            )

    # typed streets --------------------------------------------------------------------------------------
    def _typed(self, text: str) -> list[Span]:
        out: list[Span] = []
        for m in _PREFIX_STREET.finditer(text):
            if _glued(text, m.start()) or (self.lang == "en" and _slash_abbreviation(text, m.start(1), m.end(1))):
                continue
            if self.lang == "en" and _en_slash_shorthand(text, m.start(1), m.end(1)):
                continue
            typ, name = m.group(1), m.group("name")
            strong = typ in _STRONG_SET
            if not strong and not (_has_cap_word(name) or (name.split()[0] in _CONNECTOR_SET
                                                            and _has_noncon_word(name))):
                continue
            out.append(Span(m.start(), _rstrip(text, m.start(), m.end()), "LOCATION.STREET",
                            f"{self.name}:prefix", 0.8 if strong else 0.7))
        lower_hits = _LOWER_PREFIX_STREET.finditer(text) if any(t in text for t in _LOWER_TYPES) else ()
        for m in lower_hits:
            if _glued(text, m.start()) or (self.lang == "en" and _slash_abbreviation(text, m.start(1), m.end(1))):
                continue
            name = m.group("name")
            if not (_has_cap_word(name) or (m.group("comma") and len(name.split()) <= 4)):
                continue
            out.append(Span(m.start(), _rstrip(text, m.start(), m.end()), "LOCATION.STREET",
                            f"{self.name}:prefix_lower", 0.7))
        for hit_rx, street_rx, pname in ((self._suffix_hit, self._suffix_street, "suffix"),
                                         (getattr(self, "_type_word_hit", None), self._type_word_street,
                                          "type_word")):
            if hit_rx is None or street_rx is None:
                continue
            last = -1
            for h in hit_rx.finditer(text):
                if h.start() < last:
                    continue
                lo = max(0, h.start() - 100)
                for m in street_rx.finditer(text, lo, min(len(text), h.end() + 120)):
                    if m.start() <= h.start() < m.end():
                        out.append(Span(m.start(), _rstrip(text, m.start(), m.end()), "LOCATION.STREET",
                                        f"{self.name}:{pname}", 0.75))
                        last = m.end()
                        break
        if self.lang == "en":
            last = -1
            for h in _EN_HIT.finditer(text):
                if h.start() < last or not h.group()[0].isupper():
                    continue
                for m in _EN_STREET.finditer(text, max(0, h.start() - 110), min(len(text), h.end() + 40)):
                    if m.start("name") <= h.start() < m.end("name"):
                        if _en_not_street(text, m):
                            break  # "2 MEDIASTINAL CT DIVIDED", "3 UPRBCS. CT OUTPUT": a chest tube, a scan
                        out.append(Span(m.start(), _rstrip(text, m.start(), m.end()), "LOCATION.STREET",
                                        f"{self.name}:number_name_suffix", 0.75))
                        last = m.end()
                        out += self._town_after(text, m.end())
                        break
            for h in _EN_HIT.finditer(text):  # "lives on Pine Street", "found down on Maple Ave": no number
                if h.start() < last or h.group().rstrip(".") not in _EN_PREP_TYPES or (
                        h.group().startswith("St") and _EN_SAINT_NEXT.match(text, h.end())):
                    continue
                m = _EN_PREP_STREET.search(text, max(0, h.start() - 100), h.end())
                if m is not None and m.group("name").split()[0].casefold() not in stop_words("en"):  # "on Their Way"
                    out.append(Span(m.start("name"), _rstrip(text, m.start("name"), h.end()), "LOCATION.STREET",
                                    f"{self.name}:prep_street", 0.7))
                    last = h.end()
                    out += self._town_after(text, h.end() + (text[h.end():h.end() + 1] == "."))  # "St. in X"
            out += self._en_more_streets(text)
        box_hits = _PO_BOX.finditer(text) if any(h in text for h in _PO_BOX_HINTS) else ()
        for m in box_hits:
            if not _glued(text, m.start()):
                out.append(Span(m.start(), m.end(), "LOCATION.STREET", f"{self.name}:box", 0.7))
        return out

    def _town_after(self, text: str, end: int) -> list[Span]:
        """The town right after an English street that ends at ``end`` (", Halbrook", " in Eastfield"), if any."""
        town = _EN_TOWN_AFTER.match(text, end)
        if town is None or not _en_town_words(town.group("town")):
            return []
        return [Span(*town.span("town"), "LOCATION.CITY", f"{self.name}:town_after", 0.65)]

    def _en_more_streets(self, text: str) -> list[Span]:
        """English streets in capitals, in lower case after a preposition, and numbered roads."""
        out: list[Span] = []
        for m in _EN_UPPER_STREET.finditer(text):
            if not _EN_UPPER_CUE.search(text, max(0, m.start() - 30), m.start()):
                continue  # "GAVE 2 PUFFS VENTOLIN ST": only after a line's start, a field's colon or "at", "to"...
            out.append(Span(m.start(), _rstrip(text, m.start(), m.end()), "LOCATION.STREET",
                            f"{self.name}:upper_street", 0.7))
        for m in _EN_LOWER_PREP_STREET.finditer(text):
            words = m.group("name").split()
            stop = stop_words("en")
            if words[0] in stop or not any(w not in _en_common() and w not in stop for w in words):
                continue
            out.append(Span(m.start("name"), m.end(), "LOCATION.STREET", f"{self.name}:lower_prep_street", 0.65))
        if "ounty" in text or "OUNTY" in text or "Co." in text or "arish" in text or "ARISH" in text:
            for m in _EN_COUNTY.finditer(text):  # "Harlan County EMS", "Marion Co."
                words = m.group("name").split()[:-1]
                while words and words[0].casefold() in _EN_NOT_COUNTY:
                    words = words[1:]
                if not words or all(w.casefold() in stop_words("en") for w in words):
                    continue
                start = m.end("name") - len(" ".join(words)) - len(m.group("name").split()[-1]) - 1
                out.append(Span(start, m.end("name"), "LOCATION.OTHER", f"{self.name}:county", 0.7))
        for m in _EN_NUMBERED_ROAD.finditer(text):
            out.append(Span(m.start("road"), m.end("road"), "LOCATION.STREET",
                            f"{self.name}:numbered_road", 0.7))
        return out

    # address fields -------------------------------------------------------------------------------------
    def _fields(self, text: str) -> list[tuple[int, int]]:
        out = []
        i = text.find(":")
        while i != -1:
            before = text[max(0, i - 30):i].rstrip(" \t").lower()
            for lb in self._labels:
                if before.endswith(lb):
                    k = i - (len(text[max(0, i - 30):i]) - len(before)) - len(lb)
                    if k > 0 and (text[k - 1].isalpha()):
                        break
                    vs = i + 1
                    while vs < len(text) and text[vs] in " \t":
                        vs += 1
                    if vs < len(text) and text[vs] == "\n":
                        vs += 1
                        while vs < len(text) and text[vs] in " \t":
                            vs += 1
                    ve = text.find("\n", vs)
                    ve = value_end(text, vs, min(len(text) if ve == -1 else ve, vs + 120))
                    out.append((vs, ve))
                    break
            i = text.find(":", i + 1)
        return out

    def analyze(self, text: str, postcodes: list[tuple[int, int]] | None = None) -> list[Span]:
        """Street spans; ``postcodes`` (from ``self.postcodes.find(text)``) may be passed to avoid a rescan."""
        pcs_all = self.postcodes.find(text) if postcodes is None else postcodes
        typed = _dedupe(self._typed(text))
        fields: list[Span] = []
        for vs, ve in self._fields(text):
            k = bisect.bisect_left(pcs_all, (vs, -1))
            if k < len(pcs_all) and vs < pcs_all[k][0] < ve:
                ve = pcs_all[k][0]
            if self.lang == "de":  # an Austrian or Swiss postcode after the street ("Koppstraße 58/3/12, 1160 Wien")
                cut = _DE_COMMA_POSTCODE4.search(text, vs, ve)
                if cut is not None:
                    ve = cut.start()
            ve = _rstrip(text, vs, ve)
            value = text[vs:ve]
            inner = [s for s in typed if vs <= s.start < ve]
            if ve - vs < 3 or not any(c.isalpha() for c in value):
                continue
            if "@" in value or "://" in value:
                continue
            if not inner and not any(c.isdigit() for c in value) and "s/n" not in value.lower() \
                    and not _TYPE_START.match(value):
                continue
            if inner and inner[0].start == vs and inner[0].end < ve:
                rest = text[inner[0].end:ve]
                if re.search(rf",[ \t]*[{_UP}][{_LO}]{{2,}}", rest) and not re.match(
                        rf"[ \t]*[,.\-]?[ \t]*{_EXTRA}", rest):
                    ve = inner[0].end
            fields.append(Span(vs, ve, "LOCATION.STREET", f"{self.name}:field", 0.85))
        out = [s for s in typed if not _overlaps(fields, s.start, s.end)] + fields
        if self._anchored is not None:
            out += self._before_postcode(text, out, pcs_all)
        if self.lang == "nl":
            out += [s for s in _nl_streets_without_number(text) if not _overlaps(out, s.start, s.end)]
            out = [_nl_street_edges(text, s) for s in out]
        return sorted(out)

    def _before_postcode(self, text: str, found: list[Span], pcs: list[tuple[int, int]]) -> list[Span]:
        out: list[Span] = []
        assert self._anchored is not None
        for ps, _pe in pcs:
            lo = max(0, ps - 90)
            nl = text.rfind("\n", lo, ps)
            if nl != -1:
                lo = nl + 1
            m = self._anchored.search(text, lo, ps)
            if m is None:
                continue
            start = _trim_name(text, m.start(), m.end("name"))
            if start >= m.end("name"):
                continue
            end = _rstrip(text, start, m.end())
            if _overlaps(found, start, end) or _overlaps(out, start, end):
                continue
            out.append(Span(start, end, "LOCATION.STREET", f"{self.name}:before_postcode", 0.6))
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


def _has_noncon_word(s: str) -> bool:
    return any(w.casefold() not in _CONNECTOR_SET for w in s.split())


_ADDRESS_TOKEN = re.compile(r"(?i:s/n\.?|sn|[a-z])")


#: two capitals after four digits that are units, not the letters of a Dutch postcode ("1000 IE", "5000 EH")
_NL_PC_NOT = frozenset({"IE", "EH", "MG", "ML", "KG", "CC", "MM", "CM", "HZ", "KB", "MB", "GB", "UR", "PM", "AM",
                        "HB", "MS", "KM", "NO", "JR", "EU", "CT", "MR", "IC", "OK", "PA", "HD", "DM", "AF", "VT",
                        "VF", "TI", "RX", "US", "BP", "HR"})


def _prev_token_ok(text: str, start: int) -> bool:
    """The token before a ``postcode City`` candidate belongs to an address line."""
    j = start
    while j > 0 and text[j - 1] in " \t":
        j -= 1
    if j == 0 or text[j - 1] in "\n,;:(-–" or (j < start and text[j - 1] in ".)"):
        return True
    k = j
    while k > 0 and not text[k - 1].isspace():
        k -= 1
    tok = text[k:j]
    return any(c.isdigit() or c in "ºª°" for c in tok) or bool(_ADDRESS_TOKEN.fullmatch(tok))


class PostcodeRecognizer:
    """Postcodes in address context (see the module docstring). Scores: after a label 0.9, after a street 0.85,
    after a US state 0.8, UK shape 0.7, ``postcode City`` in an address line 0.6 (0.7 for ``1234 AB``)."""

    def __init__(self, lang: str, street: StreetRecognizer | None = None) -> None:
        self.lang = check_language(lang, exact=True)
        self.name = f"postcode_{lang}"
        self._street = street or StreetRecognizer(lang)
        self.postcodes = self._street.postcodes

    def analyze(self, text: str, streets: list[Span] | None = None,
                postcodes: list[tuple[int, int]] | None = None) -> list[Span]:
        """Postcode spans; ``streets`` and ``postcodes`` may be passed to avoid rescanning the text."""
        found: dict[tuple[int, int], Span] = {}

        def add(start: int, end: int, pname: str, score: float) -> None:
            old = found.get((start, end))
            if old is None or old.score < score:
                found[(start, end)] = Span(start, end, "LOCATION.ZIP", f"{self.name}:{pname}", score)

        label_hits = list(_PC_LABEL.finditer(text))
        if any(h in text for h in _PC_LOWER_HINTS):
            label_hits += _PC_LABEL_LOWER.finditer(text)
        for m in label_hits:
            if self.lang == "en" and text[m.start():m.start() + 2] in ("CP", "Cp"):
                continue  # English "CP" is chest pain ("onset CP 2245"), not the Spanish código postal
            if not _glued(text, m.start()) and sum(c.isdigit() for c in m.group("pc")) >= 3:
                add(*m.span("pc"), "label", 0.9)
        pcs = self.postcodes.find(text) if postcodes is None else postcodes
        if streets is None:
            streets = self._street.analyze(text, pcs)
        starts = {s: e for s, e in pcs}
        for st in streets:
            j = st.end
            while j < len(text) and j - st.end < 6 and text[j] in " \t,.-–(":
                j += 1
            if j in starts:
                add(j, starts[j], "after_street", 0.85)
        if self.lang in ("es", "de", "nl", "sv"):
            for s, e in pcs:
                if (s, e) in found or not _CITY.match(text, e) or not _prev_token_ok(text, s):
                    continue
                score = 0.7 if self.lang == "nl" and text[e - 1].isalpha() else 0.6
                if self.lang == "nl" and not text[e - 1].isalpha():
                    score = 0.4  # a bare 4-digit number before a capitalised word is often a year
                add(s, e, "city", score)
        if self.lang == "nl":  # "1234 AB" is the shape of a Dutch postcode wherever it stands (not "1000 IE")
            for s, e in pcs:
                if (s, e) not in found and text[e - 1].isalpha() and text[e - 2:e] not in _NL_PC_NOT \
                        and text[s].isdigit() and not _glued(text, s):
                    add(s, e, "shape", 0.6)
        if self.lang == "en":
            for m in _US_STATE_ZIP.finditer(text):
                if m.group()[:2] in _US_STATES and not _glued(text, m.start()):
                    add(*m.span("pc"), "us_state", 0.8)
            for m in _UK_PC.finditer(text):
                if not _glued(text, m.start()):
                    add(*m.span(), "uk", 0.7)
        return sorted(found.values())

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


# --- international layouts --------------------------------------------------------------------------------
# Addresses of patients from anywhere, written in the layouts of their countries inside an English (or other)
# text: "28245 Puruntie 82 Apt. 595", "233 Erzsébet tér 19.", "846 31 Rue Al Imam Al Bakri", a unit line
# ("Suite 501"), military addresses ("PSC 4011, Box 9000 / APO AA 42323"), the town line of an address block
# and the postcode after a country ("Estonia 62488").

#: upper-case letters of the Latin, Greek and Cyrillic alphabets (for names of places from anywhere)
_UPX = "A-Z" + "".join(c for c in map(chr, range(0xC0, 0x250)) if c.isupper()) + "\u0386-\u03ab\u0400-\u042f"
_LX = r"[^\W\d_ºª]"
_CAPX = rf"[{_UPX}](?:['’][{_UPX}])?{_LX}{{1,30}}(?:-{_LX}{{1,30}})?\.?"
#: lower-case street-type words and abbreviations written after (or inside) a street's name
_LOWER_STREET_WORDS = ("u.", "utca", "út", "útja", "tér", "körút", "krt.", "rkp.", "rakpart", "köz", "sor", "gate",
                       "gata", "gatan", "vej", "veien", "vegen", "tie", "katu", "kuja", "ul.", "ulica", "al.", "pl.",
                       "str.", "straße", "strasse", "trg", "cesta", "ulice", "nám.", "náměstí", "třída", "tn.",
                       "do", "da", "dos", "das", "de", "del", "di", "du", "la", "le", "van", "von", "der", "den", "al",
                       "el", "des", "of", "the", "na", "nad", "pod")
_XWORD = rf"(?:{_CAPX}|(?:{_alt(_LOWER_STREET_WORDS)})(?![\w]))"
_XNUM = r"\d{1,4}[A-Za-z]?(?:/\d{1,4})?\.?"
#: "28245 Puruntie 82", "233 Erzsébet tér 19.", "0605 Kálmán Imre u. 12."
_NUM_NAME_NUM = re.compile(
    rf"(?P<num>\d(?<![\w\-.,/:]\d)\d{{0,5}})[ \t]{{1,2}}(?P<name>{_XWORD}(?:[ \t]{{1,2}}{_XWORD}){{0,4}})"
    rf"[ \t]{{1,2}}(?P<house>{_XNUM})(?![\w\-/])"
)
#: "846 31 Rue Al Imam Al Bakri", "010 63 Avenue du Golf Arabe" (a prefix street type after the numbers)
_X_PREFIX_TYPES = ("Rue", "Rua", "Via", "Viale", "Avenue", "Avenida", "Av.", "Calle", "Piazza", "Boulevard", "Bd",
                   "Chemin", "Allée", "Place", "Strada", "Corso", "Largo", "Travessa", "Praça", "Estrada", "ul.",
                   "Ulica", "Al.", "Aleja", "Plac", "Odos", "Οδός", "Λ.", "Λεωφόρος")
_NUM_PREFIX_STREET = re.compile(
    rf"\d(?<![\w\-.,/:]\d)\d{{0,5}}(?:[ \t]\d{{1,4}})?[ \t]{{1,2}}(?:{_alt(_X_PREFIX_TYPES)})[ \t]{{1,2}}"
    rf"{_XWORD}(?:[ \t]{{1,2}}(?:{_XWORD}|\d{{1,4}}\.?)){{0,5}}"
)
#: a unit line: "Apt. 864", "Suite 501", "Apartment 3B"
_UNIT = re.compile(r"(?<![\w])(?:Apt\.?|APT\.?|Apartment|Suite|SUITE|Ste\.?|Flat)[ \t]{0,2}#?[ \t]?\d{1,5}[A-Za-z]?"
                   r"(?![\w])")
#: military and unit-box addresses: "PSC 4011, Box 9000", "Unit 5022 Box 1225", then "APO AA 42323"
#: _UNIT without its look-behind, for full scans (see clinanon.detect.engine.finditer_guarded)
_UNIT_BODY = re.compile(_UNIT.pattern[len(r"(?<![\w])"):])
_NOT_AFTER_WORD = re.compile(r"(?<![\w])")
_STREET_TAIL = re.compile(r"[ \t]{0,3}(?:$|[\r\n,;]|\.(?:[ \t]|$)|(?:Apt|APT|Suite|SUITE|Ste|Unit|Flat|St\.|Str\.)"
                          r"(?![\w]))")
_ZIP_TAIL = re.compile(r"[ \t]{0,3}(?:$|[\r\n?.!,;])")
_NON_SPACE = re.compile(r"\S+")
_MILITARY = re.compile(r"(?<![\w])(?:(?:PSC|CMR|Unit)[ \t]\d{3,5},?[ \t]Box[ \t]\d{3,5}"
                       r"(?:[ \t]{0,3}\r?\n?[ \t]{0,3}(?:APO|FPO|DPO)[ \t](?:AA|AE|AP)[ \t]\d{5})?"
                       r"|(?:APO|FPO|DPO)[ \t](?:AA|AE|AP)[ \t]\d{5})(?![\w])")
#: its word starts (finditer_word_start(_MILITARY_SCAN, _MILITARY, text) = _MILITARY.finditer(text))
_MILITARY_SCAN = word_start_scan(_MILITARY.pattern)
#: words after "NUM Name NUM" that make it a quantity, not an address ("2 Tylenol 500 mg")
_NOT_ADDRESS_AFTER = re.compile(r"[ \t]{0,2}(?:%|[a-zA-Zµμ]{1,5}/|(?i:mg|mcg|µg|g|kg|ml|l|mmol|meq|iu|units?|tabs?|"
                                r"tablets?|caps?|capsules?|puffs?|drops?|times|x|h|hrs?|min|days?|weeks?|months?|"
                                r"years?|cm|mm|m|km|mmhg|bpm)(?![\w]))")
#: a decimal comma after the "house number" of a German "NUM Name NUM" ("1 DES 2,75 x 18 mm")
_DE_DECIMAL_AFTER = re.compile(r",\d")
_LINE_START_CUES = re.compile(r"(?i:(?:^|[\n>:]|\b(?:at|is|to|address|lives|live|living|located|resides?|reside|"
                              r"moved|office|ship|sent|from|in|on|of|user:?))[ \t>?]{0,6})$")
_TOWN_CHAR = rf"(?:{_LX}|['’\-])"  # letters only: "Aalborg NO 9100" is a town, a region and a postcode
_TOWN_LINE = re.compile(rf"[ \t>?*]{{0,8}}(?P<town>[{_UPX}]{_TOWN_CHAR}{{1,30}}"
                        rf"(?:[ \t]{{1,2}}{_TOWN_CHAR}{{1,30}}){{0,3}}\.?)"
                        rf"(?:,?[ \t]{{1,2}}(?P<region>[A-Z]{{2,3}}|[a-z]{{2,3}})"
                        rf"(?:[ \t]{{1,2}}(?P<zip>\d{{4,6}}))?)?"
                        r"[ \t]{0,4}(?=\r?\n|$|\?|[ \t]{2})")
#: the lines after a town line: a region code alone ("SK"), a postcode alone ("53650", "53-320")
_REGION_ONLY = re.compile(r"\r?\n[ \t>?*]{0,8}(?P<region>[A-Z]{2,3}|[a-z]{2,3})[ \t]{0,4}(?=\r?\n|$)")
#: the last line of an address block: a country (any capitalised words) and a postcode, "Norway 64389"
_COUNTRY_ZIP_LINE = re.compile(rf"(?:\r?\n[ \t>?*]{{0,8}}){{1,2}}(?P<country>[{_UPX}]{_TOWN_CHAR}{{2,30}}"
                               rf"(?:[ \t][{_UPX}]{_TOWN_CHAR}{{1,30}}){{0,2}})[ \t]{{1,2}}"
                               r"(?P<zip>\d{3,6}(?:-\d{3,4})?)[ \t]{0,4}(?=\r?\n|$)")
_ZIP_ONLY = re.compile(r"\r?\n[ \t>?*]{0,8}(?P<zip>\d{3,6}(?:-\d{3,4})?)[ \t]{0,4}(?=\r?\n|$)")


_YEAR = re.compile(r"(?:19|20)\d\d")


class InternationalAddressRecognizer:
    """International address layouts (see the comment above). Streets 0.75 in address context (a line start,
    "at", "address", "lives"...) else 0.6; unit lines 0.7; military addresses 0.85; towns of an address block
    0.7 (``LOCATION.CITY``); postcodes after a country or a two-letter region 0.75 (``LOCATION.ZIP``)."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.name = f"intl_address_{lang}"
        self._countries: re.Pattern[str] | None = None

    def _country_zip(self) -> re.Pattern[str]:
        if self._countries is None:
            names = sorted({r[0] for r in load_rows(self.lang, "country") if len(r[0]) > 3}, key=len, reverse=True)
            # searched with finditer_guarded(..., _NOT_AFTER_WORD, text): the look-behind (?<![\w]) goes first
            self._countries = re.compile(rf"{trie_regex(names)}[ \t]{{1,2}}"
                                         r"(?P<zip>\d{4,6}(?:-\d{3,4})?)(?![\w\-])")
        return self._countries

    def streets(self, text: str) -> list[Span]:
        out: list[Span] = []
        for m in _NUM_NAME_NUM.finditer(text):
            if _NOT_ADDRESS_AFTER.match(text, m.end()) or not _has_cap_word(m.group("name")):
                continue
            if self.lang == "de" and _DE_DECIMAL_AFTER.match(text, m.end()):
                continue  # "Implantation von 1 DES 2,75 x 18 mm": a size with a decimal comma, not a house number
            after = text[m.end():m.end() + 12]
            tail_ok = _STREET_TAIL.match(after) is not None
            line = text[max(0, m.start() - 40):m.start()]
            ctx = _LINE_START_CUES.search(line) is not None or m.start() == 0
            if not tail_ok or _YEAR.fullmatch(m.group("house").rstrip(".")) or (_YEAR.fullmatch(m.group("num"))
                                                                               and not ctx):
                continue  # "During 1971 Spring 2019"
            out.append(Span(m.start(), _rstrip(text, m.start(), m.end()), "LOCATION.STREET",
                            f"{self.name}:num_name_num", 0.75 if ctx else 0.6))
        for m in _NUM_PREFIX_STREET.finditer(text):
            out.append(Span(m.start(), _rstrip(text, m.start(), m.end()), "LOCATION.STREET",
                            f"{self.name}:num_prefix_type", 0.75))
        if any(h in text for h in ("PSC", "CMR", "Unit", "PO")):  # what every _MILITARY match contains
            for m in (_MILITARY.finditer(text) if _MILITARY_SCAN is None
                      else finditer_word_start(_MILITARY_SCAN, _MILITARY, text)):
                out.append(Span(m.start(), m.end(), "LOCATION.STREET", f"{self.name}:military", 0.85))
        for m in finditer_guarded(_UNIT_BODY, _NOT_AFTER_WORD, text):  # = _UNIT.finditer(text)
            out.append(Span(m.start(), m.end(), "LOCATION.STREET", f"{self.name}:unit", 0.7))
        return out

    def after_streets(self, text: str, streets: list[Span]) -> list[Span]:
        """Towns on the line after an address's last street / unit line, or after ", " at its end; the region
        (two or three letters) and postcode after the town there, or on the lines below it (a region line, a
        postcode line, or a "Country 12345" line); postcodes after a country name."""
        out: list[Span] = []
        ends = sorted({s.end for s in streets})
        for e in ends:
            j = e
            while j < len(text) and text[j] in " \t":
                j += 1
            if text.startswith(",", j):  # "lives at 172 Maneeži 75, Saareküla"
                m = _TOWN_LINE.match(text, j + 1)
            elif j < len(text) and text[j] in "\r\n":
                k = text.find("\n", j) + 1
                while k and k < len(text) and text[k] in "\r\n \t" and k - j < 12:  # blank lines
                    k += 1
                m = _TOWN_LINE.match(text, k) if k else None
                if m and _UNIT.match(text, m.start("town")):
                    continue
            else:
                continue
            if m is None or any(c.isdigit() for c in m.group("town")):
                continue
            out.append(Span(m.start("town"), _rstrip(text, m.start("town"), m.end("town")), "LOCATION.CITY",
                            f"{self.name}:town_line", 0.7))
            if m.group("region") and m.group("zip"):
                out.append(Span(*m.span("region"), "LOCATION.STATE", f"{self.name}:region", 0.6))
            if m.group("zip"):
                out.append(Span(*m.span("zip"), "LOCATION.ZIP", f"{self.name}:region_zip", 0.75))
                continue
            # "LAPPEENRANTA\n  SK\n  53650": a region line and / or a postcode line below the town
            k = m.end()
            r = _REGION_ONLY.match(text, k) if not m.group("region") else None
            if r is not None:
                out.append(Span(*r.span("region"), "LOCATION.STATE", f"{self.name}:region_line", 0.6))
                k = r.end()
            z = _ZIP_ONLY.match(text, k)
            if z is not None:
                out.append(Span(*z.span("zip"), "LOCATION.ZIP", f"{self.name}:zip_line", 0.7))
                continue
            c = _COUNTRY_ZIP_LINE.match(text, k)
            if c is not None:
                out.append(Span(*c.span("country"), "LOCATION.COUNTRY", f"{self.name}:country_line", 0.6))
                out.append(Span(*c.span("zip"), "LOCATION.ZIP", f"{self.name}:country_line_zip", 0.7))
        for m in finditer_guarded(self._country_zip(), _NOT_AFTER_WORD, text):
            if _ZIP_TAIL.match(text[m.end():m.end() + 4]):
                out.append(Span(*m.span("zip"), "LOCATION.ZIP", f"{self.name}:country_zip", 0.75))
        return out


class _Intervals:
    """Overlap queries against a fixed set of spans in O(log n) each (sorted starts + running maximum end)."""

    def __init__(self, spans: list[Span]) -> None:
        ordered = sorted((s.start, s.end) for s in spans)
        self.starts = [a for a, _ in ordered]
        self.max_end: list[int] = []
        top = -1
        for _, b in ordered:
            top = max(top, b)
            self.max_end.append(top)

    def overlaps(self, start: int, end: int) -> bool:
        k = bisect.bisect_left(self.starts, end)  # spans starting before `end`
        return k > 0 and self.max_end[k - 1] > start


def _extend_left(text: str, spans: list[Span]) -> list[Span]:
    """A street span preceded on its line by a lone building number ("28245 Puruntie 82") takes it in."""
    out = []
    for s in spans:
        m = re.search(r"(?:^|(?<=[\s>:]))(\d{1,6})[ \t]{1,2}$", text[max(0, s.start - 12):s.start])
        if s.label == "LOCATION.STREET" and m and text[s.start:s.start + 1].isalnum():
            start = s.start - (len(text[max(0, s.start - 12):s.start]) - m.start(1))
            out.append(Span(start, s.end, s.label, s.source, s.score))
        else:
            out.append(s)
    return out


# --- address blocks (letters, envelopes, signatures) -------------------------------------------------------
#: characters that may start the lines of a quoted or bulleted block ("> ", "??? ", "* ")
_LINE_PREFIX = " \t>?*•"
_BLOCK_CONNECTORS = frozenset(("and", "&", "of", "the", "de", "del", "la", "van", "von", "der", "den", "y", "und",
                               "en", "och", "du", "des", "di", "da"))
#: "(the) corner of A and B": each side one to six words, the second ending at a sentence or line end
_CORNER = re.compile(r"(?<![\w])(?:[Tt]he[ \t])?[Cc]orner[ \t]of[ \t]{1,2}(?P<a>[^\n,;:!?&]{2,60}?)[ \t]{1,2}(?:and|&)"
                     r"[ \t]{1,2}(?P<b>[^\n,;:!?]{2,60}?)(?=[ \t]{0,3}(?:[\r\n,;:!?)]|\.(?:[ \t\r\n]|$)|$))")
#: a street typed in lower case ("255 hersnapvej 18", "2613 avenida praia 1 suite 463"): only in lines without
#: capital letters and after an address cue
_LOWER_STREET = re.compile(
    rf"(?<![\w\-.,/:])(?P<num>\d{{1,6}})[ \t]{{1,2}}(?P<name>[^\W\d_]{_TOWN_CHAR}{{1,30}}"
    rf"(?:[ \t]{{1,2}}{_TOWN_CHAR}{{1,30}}\.?){{0,3}})[ \t]{{1,2}}(?P<house>\d{{1,4}}[a-z]?)(?![\w\-/])"
    r"(?:,?[ \t]{1,2}(?:apt\.?|apartment|suite|ste\.?|unit|flat)[ \t]{0,2}#?\d{1,5}[a-z]?(?![\w]))?")
_LOWER_STREET_CUE = re.compile(r"(?:\b(?:at|address(?:es)?|is|lives|live|living|located|resides?|to|in|on)|:)"
                               r"[ \t]{0,3}$")
_LOWER_STREET_TAIL = re.compile(r"[ \t]{0,3}(?:$|[\r\n,;]|\.(?:[ \t]|$)|(?:st|rd|ave|str)\.?(?![\w]))")
_BLOCK_LANGS = frozenset({"en"})
_NEWLINE = re.compile(r"\n")
#: a line without capital letters (linear: a match can only start at a line's start)
_NO_CAPS_LINE = re.compile(rf"(?m)^[^\n{_UPX}]{{4,}}$")


#: the last text and its caseless lines, as one tuple (replaced whole: safe across threads)
_CASELESS_LAST: list[tuple[str, list[tuple[int, int]]]] = [("", [])]


def _caseless_lines(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the lines of ``text`` that have lower-case letters and no capital letter (remembered
    for the last text: the street and place recognizers ask in turn)."""
    last = _CASELESS_LAST[0]
    if last[0] is text:
        return last[1]
    out = [m.span() for m in _NO_CAPS_LINE.finditer(text) if any(c.islower() for c in m.group())]
    _CASELESS_LAST[0] = (text, out)
    return out


def _block_words(line: str) -> list[str] | None:
    """The words of a block header line (a person's or an organization's name: Title-case or ALL-CAPS words,
    initials, connectors, at most six words, no digits or field punctuation); None when it is not one."""
    if any(c.isdigit() or c in ":@/()[]=#;|" for c in line):
        return None
    words = line.replace(",", " ").split()
    if not 1 <= len(words) <= 6:
        return None
    if words[0].casefold() in _BLOCK_CONNECTORS or words[-1].casefold() in _BLOCK_CONNECTORS:
        return None
    for w in words:
        if w.casefold() not in _BLOCK_CONNECTORS and not w[:1].isupper():
            return None
    return words


class AddressBlockRecognizer:
    """Layouts around the streets of a block of address lines (English; used by :class:`AddressRecognizer`,
    which passes it the streets it found):

    * the header lines right above a street line (a letter's or an envelope's recipient): in a header of two to
      four lines, the first line is the person's name (``NAME``, 0.65) when it has two to four words and no
      common word, and so is any later line equal to it; the other lines are organizations
      (``LOCATION.ORGANIZATION``, 0.6): "Julcsa Kárpáthy / Mhealthcoach / 50668 Kiannonkatu 98";
    * a town on the line above a line that is a country's name (``LOCATION.CITY``, 0.65): "ALFRICK / United
      Kingdom" (not when it starts with a known first name: "Jane Doe / Spain" is a person);
    * street corners ("the corner of Pachergasse 64 and Radolič Harbor", ``LOCATION.STREET``, 0.7; each side
      needs a capitalised word, a digit or a street-type word) and streets typed in lower case after an address
      cue ("lives at 255 hersnapvej 18", 0.65).
    """

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.name = f"address_block_{lang}"
        self._countries: re.Pattern[str] | None = None

    def _country_lines(self) -> re.Pattern[str]:
        if self._countries is None:
            names = {r[0] for r in load_rows(self.lang, "country") if len(r[0]) > 3}
            names |= {n.upper() for n in names}
            # searched without its line-start condition (checked per match): the scan skips to capital letters
            self._countries = re.compile(rf"(?m){trie_regex(names)}(?:[ \t]{{1,2}}\d{{3,6}})?[ \t]{{0,3}}\r?$")
        return self._countries

    def streets(self, text: str) -> list[Span]:
        out: list[Span] = []
        if "orner" in text:
            for m in _CORNER.finditer(text):
                sides = (m.group("a"), m.group("b"))
                if all(self._side_ok(x) for x in sides):
                    out.append(Span(m.start(), _rstrip(text, m.start(), m.end()), "LOCATION.STREET",
                                    f"{self.name}:corner", 0.7))
        common = common_words(self.lang)
        for ls, le in _caseless_lines(text):
            out += self._lower_streets(text, ls, le, common)
        return out

    def _lower_streets(self, text: str, ls: int, le: int, common: frozenset[str]) -> list[Span]:
        out: list[Span] = []
        for m in _LOWER_STREET.finditer(text, ls, le):
            if not _LOWER_STREET_CUE.search(text, max(ls, m.start() - 30), m.start()):
                continue
            if _NOT_ADDRESS_AFTER.match(text, m.end()) or not _LOWER_STREET_TAIL.match(text, m.end()):
                continue
            if all(w.casefold() in common or len(w) < 4 for w in m.group("name").split()):
                continue
            out.append(Span(m.start(), _rstrip(text, m.start(), m.end()), "LOCATION.STREET",
                            f"{self.name}:lower_street", 0.65))
        return out

    @staticmethod
    def _side_ok(side: str) -> bool:
        words = side.split()
        if not 1 <= len(words) <= 6:
            return False
        return any(w[:1].isupper() or any(c.isdigit() for c in w) or _EN_HIT.fullmatch(w[:1].upper() + w[1:])
                   is not None for w in words)

    def around(self, text: str, streets: list[Span]) -> list[Span]:
        """Header lines above the street lines and towns above a country line (see the class docstring)."""
        if "\n" not in text:
            return []
        common = common_words(self.lang)
        out: list[Span] = []
        done: set[int] = set()
        newlines = [m.start() for m in _NEWLINE.finditer(text)]
        for st in streets:
            k = bisect.bisect_left(newlines, st.start)
            ls = newlines[k - 1] + 1 if k else 0  # the start of the street's line
            if ls in done or ls == 0 or text[ls:st.start].strip(_LINE_PREFIX):
                continue
            done.add(ls)
            lines = self._header(text, ls, common)
            if len(lines) < 2:
                continue
            top = lines[0]
            top_words = [w for w in top[2] if len(w.rstrip(".")) > 1]
            person = 2 <= len(top_words) <= 4 and not any(w.casefold() in common for w in top[2])
            for a, b, _words in lines:
                if person and (a == top[0] or text[a:b] == text[top[0]:top[1]]):
                    out.append(Span(a, b, "NAME", f"{self.name}:header_name", 0.65))
                else:
                    out.append(Span(a, b, "LOCATION.ORGANIZATION", f"{self.name}:header_org", 0.6))
        if newlines:
            first = name_sets(self.lang)[0]
            for m in self._country_lines().finditer(text):
                k = bisect.bisect_left(newlines, m.start())
                ls = newlines[k - 1] + 1 if k else 0
                if m.start() - ls > 8 or text[ls:m.start()].strip(_LINE_PREFIX):
                    continue
                lines = self._header(text, ls, common, limit=1, blank=1)
                if not lines:
                    continue
                a, b, words = lines[0]
                if len(words) > 4 or (len(words) >= 2 and fold(words[0]) in first):
                    continue
                out.append(Span(a, b, "LOCATION.CITY", f"{self.name}:town_above_country", 0.65))
        return out

    @staticmethod
    def _header(text: str, ls: int, common: frozenset[str], limit: int = 4,
                blank: int = 0) -> list[tuple[int, int, list[str]]]:
        """Up to ``limit`` header lines right above the line starting at ``ls`` (top first), after at most
        ``blank`` empty lines; stops at a line that is not a header line or has only common words."""
        out: list[tuple[int, int, list[str]]] = []
        end = ls - 1
        while end > 0 and len(out) < limit:
            start = text.rfind("\n", 0, end) + 1
            raw = text[start:end].rstrip("\r")
            content = raw.strip(_LINE_PREFIX)
            if not content:
                if blank and not out:
                    blank -= 1
                    end = start - 1
                    continue
                break
            words = _block_words(content)
            if words is None or all(w.casefold() in common or w.casefold() in _BLOCK_CONNECTORS for w in words):
                break
            a = start + len(raw) - len(raw.lstrip(_LINE_PREFIX))
            out.append((a, a + len(content), words))
            end = start - 1
        return out[::-1]


class AddressRecognizer:
    """Streets and postcodes in one pass (the postcode rules reuse the streets found), plus the international
    layouts of :class:`InternationalAddressRecognizer` and, in English, the block layouts of
    :class:`AddressBlockRecognizer`."""

    def __init__(self, lang: str) -> None:
        self.street = StreetRecognizer(lang)
        self.postcode = PostcodeRecognizer(lang, self.street)
        self.intl = InternationalAddressRecognizer(lang)
        self.blocks = AddressBlockRecognizer(lang) if lang in _BLOCK_LANGS else None
        self.name = f"address_{lang}"

    def analyze(self, text: str) -> list[Span]:
        pcs = self.street.postcodes.find(text)
        streets = self.street.analyze(text, pcs)
        hits = _Intervals(streets)
        extra = [s for s in self.intl.streets(text) if not hits.overlaps(s.start, s.end)
                 or s.source.endswith(":military")]
        if self.blocks is not None:
            extra += self.blocks.streets(text)
        streets = _extend_left(text, streets + extra)
        out = streets + self.postcode.analyze(text, streets, pcs)
        out += self.intl.after_streets(text, streets)
        if self.blocks is not None:
            out += self.blocks.around(text, streets)
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


# --- places named after a residence / travel cue ----------------------------------------------------------
#: cues after which capitalised words name a town or country ("grew up in Oulu", "vive en Tudela")
_PLACE_CUES: dict[str, str] = {
    "en": r"(?:lives|lived|living|live|resides|resided|residing|reside|grew[ \t]up|born|raised|based|located|"
          r"headquartered|settled|stationed|hospitali[sz]ed|vacationing|holidaying)[ \t](?:in|near)"
          r"|(?:moved|relocated|emigrated|immigrated|flew|travel(?:l?ed|l?ing)|trip|returned|travels|went|"
          r"drove|commutes|deployed)(?:[ \t](?:here|back|over))?[ \t](?:to|from)"
          r"|(?:originally|comes|came|is|are|am|I'm|hails)[ \t]from|native[ \t]of|resident[ \t]of"
          r"|(?:I|we)[ \t]am[ \t]in|I'm[ \t]in|(?:home[ \t])?(?:city|town|village)[ \t]of|arrived[ \t](?:at|in)"
          r"|home[ \t]city",
    "es": r"(?:vive|vivía|residente|reside|resid[ií]a|nacid[oa]|natural|procedente|originari[oa]|trasladad[oa]|"
          r"viaj[óo]|viajar|regres[óo]|afincad[oa]|domiciliad[oa])[ \t](?:en|de|a|desde)",
    "nl": r"(?:woont|woonde|wonend|geboren|opgegroeid|verhuisd|verhuisde|afkomstig|gevestigd|vertrokken|"
          r"teruggekeerd)[ \t](?:in|te|naar|uit|van)",
    "sv": r"(?:bor|bodde|boende|född|uppvuxen|flyttade|flyttat|kommer|kom|reste|bosatt)[ \t](?:i|till|från)",
    "de": r"(?:wohnt|wohnte|wohnhaft|geboren|aufgewachsen|umgezogen|zugezogen|stammt|stammend|kommt|"
          r"zurückgekehrt|gereist)[ \t](?:in|nach|aus|von)",
}
_PLACE_WORD = rf"[{_UPX}](?:['’][{_UPX}])?{_LX}{{1,30}}(?:-{_LX}{{1,30}})?"
_PLACE_CONN = r"(?:de|del|la|le|am|an|der|upon|on|sur|nad|pod|op|aan|de[ \t]la|do|da|dos|das|di)"


class PlaceContextRecognizer:
    """One to three capitalised words after a residence or travel cue of the language (``LOCATION.CITY``,
    score 0.7): "grew up in Oulu", "flew to STAXROITH", "originally from Marindia", "vive en Tudela",
    "woont in Assen". Words that are common or clinical ("moved to ICU", "lives in Assisted Living") and
    ALL-CAPS words of four letters or fewer ("transferred to MICU") are not places. In lines typed without
    capital letters, one or two lower-case words after the cue that name a city, region or country of the
    language's gazetteer ("returned to kiel", "originally from switzerland"), score 0.65."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.name = f"place_context_{lang}"
        self._rx = re.compile(
            rf"(?<![\w])(?i:{_PLACE_CUES[lang]})[ \t]{{1,2}}(?P<place>{_PLACE_WORD}(?:[ \t](?:{_PLACE_CONN}[ \t])?"
            rf"{_PLACE_WORD}){{0,2}})(?![\w\-])")
        # the cues are case-insensitive words after (?<![\w]): only word starts whose first letters pass their
        # prefixes are tried (finditer_word_start(self._scan, self._rx, text) = self._rx.finditer(text))
        self._scan = word_start_scan(self._rx.pattern, self._rx.flags)
        # most notes have no cue word at all: a test on the note's folded words skips both scans then
        self._cues = cue_words(_PLACE_CUES[lang])
        self._rx_lower = re.compile(
            rf"(?<![\w])(?:{_PLACE_CUES[lang]})[ \t]{{1,2}}(?P<place>[^\W\d_A-Z]{_TOWN_CHAR}{{2,30}}"
            rf"(?:[ \t]{_TOWN_CHAR}{{2,30}})?)(?![\w\-])")

    def _lower(self, text: str) -> list[Span]:
        """Lower-case gazetteer places after a cue, in lines without capital letters."""
        out: list[Span] = []
        lines = _caseless_lines(text)
        if not lines:
            return out
        places = _lower_places(self.lang)
        for m in (m for ls, le in lines for m in self._rx_lower.finditer(text, ls, le)):
            place = m.group("place")
            if fold(place) in places:
                out.append(Span(*m.span("place"), "LOCATION.CITY", f"{self.name}:lower", 0.65))
            elif " " in place and fold(place.split()[0]) in places:
                a = m.start("place")
                out.append(Span(a, a + len(place.split()[0]), "LOCATION.CITY", f"{self.name}:lower", 0.65))
        return out

    def analyze(self, text: str, tokens: TokenTable | None = None) -> list[Span]:
        """The places of ``text``; ``tokens``: its token table when the caller has it (else it is computed)."""
        if self._cues is not None and self._cues.absent_from(text, tokens):
            return []  # no cue word: neither pattern can match (both start with a cue)
        common = common_words(self.lang)
        out = []
        matches = self._rx.finditer(text) if self._scan is None else finditer_word_start(self._scan, self._rx, text)
        for m in matches:
            base = m.start("place")
            words = [(base + w.start(), base + w.end()) for w in _NON_SPACE.finditer(m.group("place"))]

            def bad(k: tuple[int, int]) -> bool:
                w = text[k[0]:k[1]].casefold()
                return w in common or w in _PLACE_STOP

            while words and bad(words[-1]):
                words.pop()
            if self.lang == "en" and len(words) > 1 and text[words[-1][0]:words[-1][1]] in _US_STATES:
                words.pop()  # "lives in Scranton PA": the state (no Safe Harbor identifier) is no part of the town
            if not words or bad(words[0]):
                continue
            first = text[words[0][0]:words[0][1]]
            if len(words) == 1 and first.isupper() and len(first) <= 4:
                continue
            label = "LOCATION.CITY"
            if self.lang == "en" and fold(text[words[0][0]:words[-1][1]]) in _countries("en"):
                label = "LOCATION.COUNTRY"  # "came from Ireland": a country (kept under hipaa), not a town
            out.append(Span(words[0][0], words[-1][1], label, f"{self.name}:cue", 0.7))
        return out + self._lower(text)

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


@memo
def _countries(lang: str) -> frozenset[str]:
    """Folded country names of ``lang``'s gazetteer."""
    return frozenset(fold(r[0]) for r in load_rows(lang, "country"))


@memo
def _lower_places(lang: str) -> frozenset[str]:
    """Folded city, region and country names of ``lang`` of one or two words and four letters or more, without
    the language's common words ("home", "bath")."""
    common = common_words(lang)
    out = set()
    for kind in ("city", "region", "country"):
        for row in load_rows(lang, kind):
            name = row[0]
            if len(name) >= 4 and name.count(" ") <= 1 and name.casefold() not in common:
                out.add(fold(name))
    return frozenset(out - _PLACE_STOP)


#: capitalised words after a place cue that are not places (care settings, institutions)
_PLACE_STOP = frozenset((
    "icu", "micu", "sicu", "ccu", "nicu", "picu", "er", "ed", "or", "pacu", "rehab", "rehabilitation", "hospice",
    "assisted", "nursing", "home", "floor", "ward", "unit", "hospital", "clinic", "surgery", "radiology", "the",
    "a", "an", "his", "her", "their", "our", "my", "this", "that", "here", "there", "bed", "room", "hospitalet",
    "urgencias", "uci", "planta", "domicilio", "residencia", "quirófano", "intensivos", "ic", "spoedeisende",
    "afdeling", "iva", "akuten", "avdelning", "intensivstation", "station", "notaufnahme", "reha", "hause",
    "pflegeheim", "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
    "sunday",
))


@memo
def _build(lang: str) -> tuple[Detector, ...]:
    return (AddressRecognizer(lang), PlaceContextRecognizer(lang), *letters.recognizers(lang), *us_town_lines(lang))


def recognizers(lang: str) -> list[Detector]:
    """The street + postcode recognizer for ``lang``, the place-cue recognizer and, for German, Dutch and Swedish,
    the letter-layout recognizer (:mod:`clinanon.detect.rules.letters`), for English the US town lines
    (:mod:`clinanon.detect.rules.us_address`) (built once per language)."""
    return list(_build(check_language(lang, exact=True)))
