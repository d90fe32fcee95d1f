"""Context heuristics of the gazetteer detector: places that are also words, and hospital-name vocabulary.

* Places that are also words: :func:`common_places` (one-word city and region entries that are common words of
  the language: "Hoorn" ~ "hoorn", "Puno" ~ "puño", compared folded) are reported only with place context
  (:func:`place_context`: a place preposition, a postcode, an address line, a comma, a line of its own);
  :func:`org_before_place` tells a city or region that ends an organisation's name ("AOK Hessen").
* Hospital names by pattern: :func:`hospital_heads` (the head words of ``hospital_words.txt`` as a phrase index
  and the compound suffixes such as German ``-klinik``), and the words a hospital's name may hold or stops at
  (:data:`HOSPITAL_PARTICLES`, :data:`HOSPITAL_STOP`, :data:`HOSPITAL_STREET_WORDS`, :data:`HOSPITAL_NO_FIRST`,
  :data:`HOSPITAL_GENERIC_PREFIX`), used by :class:`clinanon.detect.gazetteer.GazetteerDetector`.
"""

from __future__ import annotations

from collections.abc import Sequence

from clinanon.caches import memo
from clinanon.lang.fold import fold, fold_uncached
from clinanon.lang.lexicon import common_lexicon
from clinanon.lang.phrases import AccentMode, PhraseIndex, gap_kind
from clinanon.lang.wordlists import context_cities, data_dir, load_rows, read_rows
from clinanon.text import TokenTable

__all__ = [
    "HOSPITAL_GENERIC_PREFIX",
    "HOSPITAL_NO_FIRST",
    "HOSPITAL_PARTICLES",
    "HOSPITAL_STOP",
    "HOSPITAL_STREET_WORDS",
    "common_places",
    "hospital_heads",
    "org_before_place",
    "place_context",
    "strict_place_context",
]

# --- places that are also common words --------------------------------------------------------------------

#: words right before a place name that make it one ("in Hoorn", "aus Moers", "från Lund", "vive en Puno"), folded
_PLACE_PREPS: dict[str, frozenset[str]] = {
    "es": frozenset({"en", "de", "desde", "a", "hacia", "hasta", "para"}),
    "en": frozenset({"in", "from", "to", "at", "near", "of", "into", "outside", "toward", "towards", "via"}),
    "nl": frozenset({"in", "te", "uit", "naar", "nabij", "bij", "vanuit", "van", "richting", "via"}),
    "sv": frozenset({"i", "fran", "till", "utanfor", "nara", "vid", "mot", "via"}),
    "de": frozenset({"in", "aus", "nach", "bei", "von", "nahe", "richtung", "bis", "via"}),
}
#: separators of address lines and place lists before a place ("Kerkstraat 5, Hoorn", "Utrecht · Hoorn")
_PLACE_SEP_BEFORE = frozenset({",", ";", "·", "•", "|", "/", "(", "–", "—"})
#: organisations named after a region or town (health insurers: "AOK Hessen", "BKK Nordwest", "IKK Südwest"),
#: folded: a place right after one is part of the organisation's name, not a place of its own
_ORG_BEFORE_PLACE: dict[str, frozenset[str]] = {
    "de": frozenset({"aok", "bkk", "ikk", "dak", "tk", "kkh", "hek", "hkk", "lkk", "barmer", "knappschaft", "ogk",
                     "gkk", "svs", "bva", "krankenkasse", "betriebskrankenkasse", "innungskrankenkasse"}),
}


@memo(maxsize=16)
def common_places(lang: str, accents: bool = True) -> frozenset[str]:
    """Folded one-word city and region entries of ``lang`` that are also common words of the language.

    A common word here is a word of the language's common-word lexicon
    (:func:`clinanon.lang.lexicon.common_lexicon`: the shipped lexicon, spaCy's stop words and
    :func:`clinanon.lang.lexicon.common_words`) whose usual form is lower case; the comparison is made on folded
    forms (case and accents stripped on both sides), so ``Puno`` clashes with Spanish ``puño``. German nouns
    (capitalised in the lexicon, which lists some place names the same way) do not count. Empty when the language
    has no lexicon. Also the one-word cities that are people's names as well
    (:func:`clinanon.lang.wordlists.context_cities`: "Boston", "Dallas")."""
    lex = common_lexicon(lang)
    out: set[str] = set()
    for kind in ("city", "region"):
        for cols in load_rows(lang, kind):
            name = cols[0]
            if not name.isalpha():
                continue  # several words, a hyphen or an apostrophe: not one word
            f = fold_uncached(name)
            if lex.get(f) is False:
                out.add(fold_uncached(name, accents))
    out.update(fold_uncached(name, accents) for name in context_cities(lang) if name.isalpha())
    return frozenset(out)


def _same_line(text: str, table: TokenTable, a: int, b: int) -> bool:
    """Tokens ``a`` < ``b`` are on the same line."""
    return "\n" not in text[table.ends[a]:table.starts[b]]


def place_context(text: str, table: TokenTable, norm: Sequence[str], i: int, lang: str) -> bool:
    """Whether token ``i`` (a one-word place name) stands where a place stands, on its line: after a place
    preposition of ``lang`` ("in", "te", "aus", "från", "en"), after a postcode and at most two capitalised words
    ("24001 León", "1621 HB Hoorn", "24411 Ponferrada León"), after an address or list separator ("Kerkstraat 5,
    Hoorn", "(Hoorn)"), before a comma ("Hoorn, 12 maart 2023", "León, España"), or alone on its line (a line of
    an address block). ``norm``: the folded tokens."""
    n = len(norm)
    words = table.words
    prev = i - 1 if i > 0 and _same_line(text, table, i - 1, i) else None
    nxt = i + 1 if i + 1 < n and _same_line(text, table, i, i + 1) else None
    if prev is None and nxt is None:
        return True  # alone on its line
    if nxt is not None and words[nxt] == ",":
        return True
    if prev is None:
        return False
    p = words[prev]
    if norm[prev] in _PLACE_PREPS.get(lang, ()) or p in _PLACE_SEP_BEFORE:
        return True
    # a postcode up to three words before, on the line: "24001 León", "1621 HB Hoorn", "24411 Ponferrada León"
    for k in range(prev, max(-1, prev - 3), -1):
        if k < prev and not _same_line(text, table, k, k + 1):
            break
        w = words[k]
        if w.isdigit() and 4 <= len(w) <= 6:
            return True
        if not w.isalpha() or not w[:1].isupper():
            break
    return False


#: the prepositions after which a city that is also a person's name is the city ("lives in Dallas", "flew in
#: from Rome"; not "spoke to Logan", "shouted at Gary", "Hawkins, Richardson and Santana")
_STRICT_PLACE_PREPS: dict[str, frozenset[str]] = {"en": frozenset({"in", "from", "near", "outside", "into"}),
                                                   # "wohnt in Singen", "aus Kiel"; a noun takes an article
                                                   # ("beim Singen", "in der Halle"); not "nach": "Klassifikation
                                                   # nach Kiel" is an eponym (allowlist)
                                                   "de": frozenset({"in", "aus"})}


def strict_place_context(table: TokenTable, norm: Sequence[str], i: int, lang: str) -> bool:
    """Whether token ``i`` follows one of :data:`_STRICT_PLACE_PREPS` directly (a city that is also a person's
    name needs more than :func:`place_context`)."""
    return i > 0 and norm[i - 1] in _STRICT_PLACE_PREPS.get(lang, frozenset())


def org_before_place(text: str, table: TokenTable, norm: Sequence[str], i: int, lang: str) -> bool:
    """Token ``i`` follows, on its line (a space or a hyphen between), a word that heads an organisation's name
    with a place in it (:data:`_ORG_BEFORE_PLACE`: "AOK Hessen", "BKK-Nordwest")."""
    heads = _ORG_BEFORE_PLACE.get(lang)
    if not heads:
        return False
    k = i - 1
    gap = text[table.ends[k]:table.starts[i]]
    if table.words[k] == "-" and not gap and k > 0:
        k -= 1
        gap = text[table.ends[k]:table.starts[k + 1]]
    return norm[k] in heads and gap_kind(gap) is not None


# --- hospital names by pattern ----------------------------------------------------------------------------

#: lower-case words and particles inside a hospital's name ("Hospital Virgen de la Arrixaca")
HOSPITAL_PARTICLES: dict[str, frozenset[str]] = {
    "es": frozenset({"de", "del", "la", "las", "los", "el", "y", "i", "d", "d'", "l'", "l", "san", "sant", "a", "o"}),
    "en": frozenset({"of", "and", "the", "st", "st.", "s", "'s", "&"}),
    "nl": frozenset({"van", "de", "der", "den", "het", "'t", "s", "'s", "-", "en"}),
    "sv": frozenset({"s", "och", "s:t", "i"}),
    "de": frozenset({"der", "die", "des", "am", "an", "im", "in", "zu", "zum", "zur", "von", "und", "rechts",
                     "links"}),
}
#: capitalised words that never belong to a hospital's name (units, field labels, sentence words)
HOSPITAL_STOP: dict[str, frozenset[str]] = {
    "es": frozenset({"servicio", "unidad", "departamento", "planta", "urgencias", "consulta", "consultas",
                     "sección", "seccion", "area", "área", "uci", "el", "en", "con", "para", "por", "tras",
                     "desde", "médico", "medico", "fecha", "nhc", "tel",
                     "teléfono", "telefono", "fax", "email", "e", "día", "dia", "domicilio", "paciente",
                     "se", "no", "al", "ingresa", "ingresó", "calle", "c", "avenida", "avda", "av", "paseo",
                     "plaza", "pza", "carretera", "ctra", "camino", "ronda", "travesía", "glorieta", "rambla",
                     "tfno", "tlf", "correo", "cp", "s/n", "edificio", "pabellón", "bloque", "despacho"}),
    "en": frozenset({"the", "a", "at", "in", "to", "from", "department", "ward", "unit", "dr", "he", "she",
                     "was", "is", "on", "er", "icu", "patient"}),
    "nl": frozenset({"het", "de", "een", "in", "op", "naar", "afdeling", "dr", "patiënt", "patient", "hij",
                     "zij", "ze", "is", "werd",
                     # specialties: "Polikliniek Neurologie" is a department, not a hospital's name
                     "neurologie", "cardiologie", "interne", "geneeskunde", "chirurgie", "longziekten",
                     "reumatologie", "kindergeneeskunde", "psychiatrie", "gynaecologie", "verloskunde", "urologie",
                     "dermatologie", "orthopedie", "oncologie", "radiologie", "geriatrie", "oogheelkunde", "kno",
                     "mdl", "nefrologie", "endocrinologie", "hematologie", "anesthesiologie", "revalidatie",
                     # services and reports before a hospital's name ("Pathologie van het X Ziekenhuis")
                     "pathologie", "microbiologie", "laboratorium", "beeldvorming", "röntgen", "rontgen", "echo",
                     "verslag", "brief", "uitslag", "locatie", "via", "vanuit", "uit", "bij", "verwezen",
                     "opgenomen", "overgeplaatst"}),
    "sv": frozenset({"på", "i", "till", "från", "avdelning", "avd", "dr", "patienten", "han", "hon", "den",
                     "det", "en", "ett",
                     "neurologi", "kardiologi", "internmedicin", "medicin", "kirurgi", "ortopedi", "psykiatri",
                     "reumatologi", "onkologi", "radiologi", "geriatrik", "urologi", "gynekologi", "barnmedicin"}),
    "de": frozenset({"das", "dem", "den", "der", "die", "ein", "eine", "im", "ins", "am", "auf", "station",
                     "abteilung", "dr", "patient", "patientin", "er", "sie", "wurde", "ist",
                     # roles and specialty adjectives: "Oberärztin der Klinik", "Neurologische Klinik" name a
                     # department or a person, not a hospital
                     "oberärztin", "oberarzt", "chefarzt", "chefärztin", "assistenzarzt", "assistenzärztin",
                     "arzt", "ärztin", "oberarztin", "chefarztin", "assistenzarztin", "arztin", "padiatrische",
                     "gynakologische", "orthopadische", "direktor", "direktorin", "leiter", "leiterin",
                     "sekretariat", "innere",
                     "neurologische", "chirurgische", "medizinische", "psychiatrische", "kardiologische",
                     "urologische", "gynäkologische", "radiologische", "orthopädische", "pädiatrische",
                     "dermatologische", "geriatrische", "psychosomatische", "neurochirurgische", "onkologische",
                     "nephrologische", "gastroenterologische", "pneumologische", "unfallchirurgische"}),
}
#: street words stop a hospital name, except after a particle ("Hospital Virgen del Camino")
HOSPITAL_STREET_WORDS = frozenset({"calle", "avenida", "paseo", "plaza", "carretera", "camino", "ronda",
                                   "travesía", "glorieta", "rambla"})
#: words a hospital's name never starts with ("Clínica y Dietética")
HOSPITAL_NO_FIRST = frozenset({"y", "i", "e", "o", "and", "en", "och", "und", "-"})
_DE_GENERIC_PREFIX = frozenset({"kreis", "stadt", "kinder", "land", "landes", "universitäts", "uni", "fach",
                                "akut", "privat", "bezirks", "kranken", "tages", "reha", "allgemein"})
#: prefixes of a compound hospital word that make it generic when no name follows ("Polikliniek", "Fachklinik")
HOSPITAL_GENERIC_PREFIX: dict[str, frozenset[str]] = {
    "de": _DE_GENERIC_PREFIX,
    "nl": frozenset({"poli", "dag", "buiten", "kinder", "privé", "prive", "revalidatie", "psychiatrische"}),
}


@memo(maxsize=16)
def hospital_heads(lang: str, accents: AccentMode) -> tuple[PhraseIndex, tuple[tuple[str, str], ...]]:
    """The hospital head words of ``lang`` (``hospital_words.txt``): a phrase index of the words that head a name
    (attr: the side the name is on, ``R``, ``L`` or ``B``) and the folded compound suffixes with their direction
    (``C``: "Augenklinik Bad X"; ``CR``: the compound alone is generic)."""
    idx = PhraseIndex(lang, accents=accents)
    suffixes = []
    path = data_dir(lang) / "hospital_words.txt"
    if path.is_file():
        for _, cols in read_rows(path):
            direction = cols[1] if len(cols) > 1 else "R"
            if direction in ("C", "CR"):
                suffixes.append((fold(cols[0], accents == "fold"), direction))
            else:
                idx.add(cols[0], "hospital_word", direction)
    return idx, tuple(suffixes)
