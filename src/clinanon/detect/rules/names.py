"""Person names from context (label ``NAME``, ``NAME.DOCTOR`` where the context says clinician).

Two recognizers per language (three in English):

* :func:`name_patterns` (one-pass :class:`~clinanon.detect.rules.dates.RuleRecognizer`): a name after an
  honorific (``Mr.``, ``Mrs.``, ``Ms.``, ``Prof.``, ``Sr.``, ``Sra.``, ``Dña.``, ``Dhr.``, ``Mevr.``,
  ``Herr``, ``Frau``, ``Hr.``, ``Fr.``, ``Fru`` ... — the honorific itself is never part of the span, and an
  honorific alone is never tagged), after "my name is" / "named" / "me llamo" / "heet" / "heter" / "namens",
  on the line after a letter closing (``Sincerely,``, ``Met collegiale groet,``, ``Mit freundlichen Grüßen``,
  ``Med vänliga hälsningar``, ``Atentamente``), before a clinical degree (``Jane Roe, MD``), and initials +
  surname (``J. Smith``, ``P. van den Berg``). Doctor titles (``Dr.``) are the field recognizer's
  (:mod:`clinanon.detect.rules.fields`); here they may only precede another title (``Prof. Dr. med. X``).
* :class:`NameNeighbourRecognizer`: a run of two to four capitalised words, one of which is a first name or
  surname of the language's gazetteer and none of which is a common word, is one name (``Krisztián
  Szöllösy``: a known first name and an unknown surname; ``Szabina J Gelencsér``). An unknown word only joins
  in Title case (an ALL-CAPS unknown word is more often an acronym); a run that starts a sentence needs its
  first word to be a known first name.

* :class:`CaselessCueRecognizer` (English): names in any case after a title, a role or a kinship word ("dr.
  murray", "np grace", "son jonathan", "wife, mary", "SON ROB"), signature lines ("irene snell, rn", "Jane Doe,
  RN") and names before "aware" / "notified" at a sentence's start ("grace dudak aware"): what nursing notes typed
  in lower case or in capitals need, where capitals say nothing.

Every word of a span is checked against the language's common words (stop words, field labels, honorifics,
degrees, month and weekday names, allow-list words); spans are trimmed of them at both ends and dropped when
nothing is left. All quantifiers are bounded and name words are separated by required spaces, so matching is
linear in the text length (``tests/test_rules_names.py`` times 100 k capitalised words and 1 MB lines).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from clinanon.caches import memo
from clinanon.detect.allowlist import AllowList, allowlist_for, is_latin_anatomy
from clinanon.detect.base import Detector
from clinanon.detect.gazetteer import EN_KIN_WORDS, census_names
from clinanon.detect.rules.dates import RulePattern, RuleRecognizer
from clinanon.detect.rules.lexicon import trie_regex
from clinanon.document import Document, Span
from clinanon.lang import LANGUAGES, check_language
from clinanon.lang.fold import fold
from clinanon.lang.lexicon import (
    COMMON_COLLISIONS,
    HONORIFICS,
    MORE_TITLES,
    common_lexicon,
    common_words,
    name_sets,
    name_words,
)
from clinanon.lang.wordlists import load_rows
from clinanon.text import stop_words

__all__ = ["CaselessCueRecognizer", "NameNeighbourRecognizer", "name_patterns", "recognizers"]

# --- character classes ----------------------------------------------------------------------------------

#: upper-case letters: Latin (with Latin-1 / Extended-A / Extended-B), Greek and Cyrillic
UPPER = "A-Z" + "".join(c for c in map(chr, range(0xC0, 0x250)) if c.isupper()) + "\u0386-\u03ab\u0400-\u042f"
_U = f"[{UPPER}]"
_L = r"[^\W\d_ºª]"
#: a capitalised word of two letters or more ("O'Brien", "Jean-Paul", "McDonald", "SMITH")
CAPW = rf"{_U}(?:['’]{_U})?{_L}{{1,30}}(?:-{_U}{_L}{{1,30}})?"
#: a capitalised word or a lower-case one (only after the strongest cues: "my name is eva kleist")
ANYW = rf"{_L}(?:['’]{_L})?{_L}{{1,30}}(?:-{_L}{{2,30}})?"
_INIT = rf"{_U}\.?"
_PART = r"(?:van|von|de|der|den|del|della|di|da|das|dos|du|la|le|ten|ter|af|av|zu|bin|ibn|al|el|y|op|'t)"
_PARTICLE_SET = frozenset(_PART[3:-1].split("|"))
_SP = r"[ \t]{1,2}"
#: one to four name words, with middle initials and particles between them
NAME_SEQ = rf"{CAPW}(?:{_SP}(?:{_INIT}{_SP}){{0,2}}(?:{_PART}{_SP}){{0,3}}{CAPW}){{0,3}}"
_LEAD_INITIALS = rf"(?:{_INIT}{_SP}){{0,3}}(?:{_PART}{_SP}){{0,3}}"

# --- vocabulary per language ----------------------------------------------------------------------------
# (the honorifics, titles and common words of every language are in :mod:`clinanon.lang.lexicon`)

#: honorifics that introduce a clinician
_DOCTOR_HONORIFICS = frozenset({"prof", "professor", "profa", "profesor", "profesora"})
_NAME_IS: dict[str, tuple[str, str]] = {  # (strong cues: lower-case names too, weaker cues)
    "en": (r"[Mm]y[ \t](?:(?:full|first|last|sur|given|family|maiden)[ \t]?)?name[ \t]is|[Cc]all[ \t]me",
           r"(?:[Hh]is|[Hh]er|[Tt]heir|[Tt]he[ \t]patient'?s?|[Pp]atient'?s)[ \t](?:(?:full|first|last|sur|given|"
           r"family|maiden)[ \t]?)?name[ \t](?:is|was)|[Nn]amed(?:[ \t](?:him|her|them|it))?"
           r"|(?:(?:last|first|full|sur)[ \t]?)?name[ \t]?\?"
           r"|(?:was|is|were|are)[ \t]called|goes[ \t]by"),
    "es": (r"[Mm]e[ \t]llamo|[Mm]i[ \t]nombre[ \t]es",
           r"[Ss]e[ \t]llama(?:ba)?|[Ll]lamad[oa]|[Dd]e[ \t]nombre|[Ss]u[ \t]nombre[ \t](?:es|era)"),
    "nl": (r"[Mm]ijn[ \t]naam[ \t]is|[Ii]k[ \t]heet",
           r"(?:[Zz]ijn|[Hh]aar)[ \t]naam[ \t](?:is|was)|heet|genaamd|[Gg]enaamd"),
    "sv": (r"[Mm]itt[ \t]namn[ \t]är|[Jj]ag[ \t]heter",
           r"(?:[Hh]ans|[Hh]ennes)[ \t]namn[ \t](?:är|var)|heter|vid[ \t]namn"),
    "de": (r"[Mm]ein[ \t]Name[ \t]ist|[Ii]ch[ \t]hei(?:ße|sse)",
           r"(?:[Ss]ein|[Ii]hr)[ \t]Name[ \t](?:ist|war)|namens"),
}
_CLOSINGS: dict[str, str] = {
    "en": r"(?:[Yy]ours[ \t](?:sincerely|faithfully|truly)|[Ss]incerely(?:[ \t]yours)?|(?:[Kk]ind|[Bb]est|[Ww]arm)"
          r"[ \t]regards|[Rr]egards|[Bb]est[ \t]wishes|[Rr]espectfully)",
    "es": r"(?:[Aa]tentamente|[Uu]n[ \t]saludo(?:[ \t]cordial)?|[Ss]aludos(?:[ \t]cordiales)?|[Cc]ordialmente"
          r"|[Rr]eciba[ \t]un[ \t]cordial[ \t]saludo)",
    "nl": r"(?:[Mm]et[ \t](?:vriendelijke|collegiale|hartelijke)[ \t]groet(?:en)?|[Hh]oogachtend|[Gg]roeten)",
    "sv": r"(?:[Mm]ed[ \t]vänliga?[ \t]hälsningar?|[Vv]änliga[ \t]hälsningar|[Hh]älsningar|[Mm]vh)",
    "de": r"(?:[Mm]it[ \t](?:freundlichen|kollegialen|besten)[ \t]Grüßen|[Mm]it[ \t]freundlichem[ \t]Gruß"
          r"|[Ff]reundliche[ \t]Grüße|[Hh]ochachtungsvoll|[Vv]iele[ \t]Grüße)",
}
#: clinical degrees after a name ("Jane Roe, MD", "Jan de Vries, arts")
_DEGREES = (r"(?:M\.?D\.?|Ph\.?D\.?|D\.?O\.?|RN|NP|PA-C|FRCPC?|FRCS|MBBS|MBChB|DDS|DMD|PharmD|MRCP|FACP|FACS"
            r"|DNP|CNM|CRNA|LPN|MSW|LCSW)")
#: words before an initial that make "B. Smith" something else ("hepatitis B. Patient", "vitamin D. Level")
_INITIAL_NEG = ("vitamin", "hepatitis", "type", "group", "class", "stage", "grade", "phase", "factor", "lead",
                "fig", "figure", "section", "appendix", "table", "plan", "option", "zone", "level", "step", "part",
                "protein", "complex", "unit", "ward", "bed", "room", "wing", "floor", "building", "block", "apt",
                "suite", "no", "nr", "tipo", "grupo", "clase", "estadio", "grado", "fase", "vitamina", "hepatitis",
                "cama", "habitación", "planta", "bloque", "groep", "klasse", "typ", "gruppe", "stadium", "grad")


def _split(words: str) -> tuple[str, ...]:
    return tuple(words.split())


#: the kind of nurse or clinician a word before a credential names ("Stoma RN", "Charge RN", "Wound NP"): no name
_ROLE_BEFORE_DEGREE = frozenset(_split(
    "stoma ostomy wound charge float triage case iv picc resource night day evening staff primary covering icu ccu "
    "micu sicu or er ed home hospice school travel travelling traveling agency admitting discharging team unit "
    "floor nursery psych rehab dialysis cath endo infusion pacu clinic office research transplant flight transport "
    "trauma burn neuro cardiac surgical sedation vascular wound-care school-based"))


def _degree_adjust(text: str, start: int, end: int) -> float:
    """A name before a credential is a kind of nurse when its one word says what kind ("Stoma RN")."""
    word = text[start:end]
    return -1.0 if " " not in word and word.casefold() in _ROLE_BEFORE_DEGREE else 0.0


#: genus initial + species / organism words: "H. pylori", "E. Coli" are not names
_ORGANISMS = frozenset(_split(
    "pylori coli aureus epidermidis difficile aeruginosa pneumoniae tuberculosis albicans meningitidis "
    "monocytogenes faecalis faecium influenzae pyogenes agalactiae gonorrhoeae trachomatis jirovecii carinii "
    "fumigatus neoformans burgdorferi pallidum vaginalis lamblia histolytica falciparum vivax typhi enteritidis "
    "jejuni cloacae marcescens mirabilis baumannii maltophilia catarrhalis pertussis vulgaris"
))

_WORD = re.compile(rf"{_L}(?:['’]{_L})?{_L}{{0,30}}(?:-{_L}{{1,30}})?|{_L}")


#: German and Austrian role nouns and titles that follow "Herr"/"Frau" or stand in a signature line before the name
#: ("Herr Oberarzt", "Frau Kollegin", "Herr Primar", "Chefärztin Prof. X"): a role, never a name (case-folded)
_DE_ROLE_WORDS = frozenset(_split(
    "primar primaria primarius prim primarärztin primararzt doktor doktorin professor professorin dozent dozentin "
    "privatdozent privatdozentin direktor direktorin kollege kollegin kollegen magister magistra ingenieur "
    "ingenieurin hofrat hofrätin pfarrer pfarrerin schwester oberschwester krankenschwester pfleger pflegerin "
    "hebamme therapeut therapeutin psychologe psychologin apotheker apothekerin patient patientin nachbar "
    "nachbarin oa oä ca cä fa fä foa ass dgks dgkp mag ddr dres univ doz"))
#: role nouns by their ending: "Oberarzt", "Assistenzärztin", "Stationsärzte"
_DE_ROLE_END = ("arzt", "ärztin", "ärzte", "ärztinnen")
#: German titles that may stand between an honorific or a closing and the name ("Herr Prim. Dr. X",
#: "Mit freundlichen Grüßen / Chefärztin Prof. X")
_DE_MORE_TITLES = ("Prim", "Primar", "Primaria", "Primarius", "OA", "OÄ", "Mag", "DDr", "Dres", "Univ.-Prof",
                   "Oberarzt", "Oberärztin", "Chefarzt", "Chefärztin", "Facharzt", "Fachärztin")


def _de_role(word: str) -> bool:
    """A German role noun or title ("Oberarzt", "Kollegin", "Primar", "OA"), not a name."""
    w = word.casefold()
    return w in _DE_ROLE_WORDS or (len(w) > 4 and w.endswith(_DE_ROLE_END)) or w == "arzt"


@memo
def _context_common(lang: str) -> frozenset[str]:
    """Common words minus the allow-list's name-like words ("Frank", "Mark", "Will"): after "named" or an
    honorific these are names."""
    return common_words(lang) - {w.casefold() for w in COMMON_COLLISIONS.get(lang, ())}


def _trim(text: str, spans: list[Span], lang: str) -> list[Span]:
    """Spans trimmed of common words (and trailing dots / hyphens) at both ends; dropped when none is left.
    Initials + surname spans also go when the surname is an organism ("H. pylori"), an allowed term or in an
    eponym context ("técnica de T. Millin")."""
    allow = allowlist_for(lang)
    out = []
    for s in spans:
        if s.source.endswith(":lower_honorific"):  # "j. mulder vandaag": a second word needs a particle or a list
            s = _nl_lower_trim(text, s)
        if s.source.endswith(":person_word") and not _nl_name_like(text[s.start:s.end]):
            continue  # "huisarts Gebeld", "Verpleegkundige Rapportage" (a heading in capitals, re-cased): words
        if s.source.endswith(":name_suffix"):
            # checked by _suffix_adjust; the suffix ("Jr", "III") belongs to the name, the words before the first
            # name do not ("Pt Mark Jr")
            keep = len(_suffix_name_words(text, s.start, s.end))
            starts = [m.start() for m in _SUFFIX_WORD.finditer(text, s.start, s.end)]
            if keep:
                out.append(Span(starts[len(starts) - keep], s.end, s.label, s.source, s.score))
            continue
        common = (common_words(lang) if s.source.endswith(":initials_surname") and lang != "nl"
                  else _context_common(lang))  # Dutch "R. Bos", "A. Post": a surname after initials
        parts = _NL_PARTICLE_SET if lang == "nl" else _PARTICLE_SET  # Dutch "K. in 't Veld", "J. op de Beek"
        if s.source.endswith(":initials_surname"):
            last = text[s.start:s.end].split()[-1].split(".")[-1]
            if (last.casefold() in _ORGANISMS
                    or (allow.is_allowed(last)  # (Dutch "A. Post": a listed surname after initials stays a name)
                        and not (lang == "nl" and fold(last) in _listed_names("nl") and not last.isupper()))
                    or allow.in_eponym_context(text, s.start, s.end)
                    or (last.isupper() and len(last) <= 3)  # "S. SBP", "R. IJ": an abbreviation, not a surname
                    # a unit's or an abbreviation's letter: "37,2 °C. Kostaufbau", "(z. B. Multigen-Assay)"
                    or (_UNIT_OR_ABBR_BEFORE.search(text, max(0, s.start - 4), s.start) is not None
                        and fold(last) not in _listed_names(lang))  # (not "i. A. Kerstin Schneider")
                    or (lang in ("nl", "sv") and is_latin_anatomy(text[s.start:s.end]))  # "V. Cava", "N. Suralis"
                    or (lang == "de" and _de_roman_grade(text, s.start, last))):  # "AV-Block I. Grades"
                continue
        words = [(m.start(), m.end()) for m in _WORD.finditer(text, s.start, s.end)]

        initials = lang == "en" and s.source.endswith(":initials_surname")

        def lead_junk(a: int, b: int, n: int, common: frozenset[str] = common, initials: bool = initials,
                      parts: frozenset[str] = parts) -> bool:
            if initials and b - a == 1 and n > 1 and text[b:b + 1] == ".":
                return False  # "K. ABRAMS": an initial, even one that is also a common letter ("k", "i")
            w = text[a:b].casefold()
            if w in common and w not in parts:
                return True
            if lang == "de" and _de_role(w):  # "Herr Oberarzt", "Frau Kollegin", "Herr Primar Dr. X"
                return True
            return b - a == 1 and n > 1 and text[b:b + 1] != "."  # a stray letter, not an initial

        if lang == "en" and s.source.endswith(":honorific") and words and (
                text[words[0][0]:words[0][1]].casefold() in stop_words("en")
                or (len(words) == 1 and _en_word_not_name(text[words[0][0]:words[0][1]]))):
            continue  # "IV MS FOR INCISIONAL PAIN", "monitor MS. Restart on ...": morphine, mental status
        while words and lead_junk(*words[0], len(words)):
            words.pop(0)
        for k in range(1, len(words)):  # "MR. SMITH WAS SEEN": the name ends before a common word
            w = text[words[k][0]:words[k][1]].casefold()
            if w in common and w not in parts:
                words = words[:k]
                break
        while words and (text[words[-1][0]:words[-1][1]].casefold() in common
                         or (lang == "de" and _de_role(text[words[-1][0]:words[-1][1]]))
                         or len(text[words[-1][0]:words[-1][1]]) == 1):
            words.pop()
        if not words:
            continue
        start, end = words[0][0], words[-1][1]
        if not any(len(text[a:b]) > 1 and text[a:b].casefold() not in common for a, b in words):
            continue
        out.append(Span(start, end, s.label, s.source, s.score) if (start, end) != (s.start, s.end) else s)
    return out


def _en_word_not_name(w: str) -> bool:
    """An English word of the lexicon (or a plural or verb form of one) that no name list holds: after an
    honorific alone it is an abbreviation's next word ("MS. Restart"), not a surname."""
    g = fold(w)
    return (g in common_lexicon("en") or _inflected(w, "en")) and g not in _listed_names("en")


def _alt(words: Iterable[str]) -> str:
    """Alternation of ``words`` as written, in capitals and in lower case ("Mevr.", "MEVR.", "mevr.")."""
    forms = set()
    for w in words:
        forms.update((w, w.upper(), w.lower()) if w[:1].isupper() else (w,))
    return "|".join(re.escape(w) for w in sorted(forms, key=len, reverse=True))


_STREET_BEFORE = frozenset(_split(
    "avda avda. av av. avenida calle c/ rúa rua plaza pza paseo carrer via street st road avenue ave straat laan "
    "plein gatan vägen straße strasse allee platz hospital universitario clínica instituto colegio escuela "
    "school university college institute centro center centre"
))


def _place_adjust(text: str, start: int, end: int) -> float:
    """Lower an honorific match inside a place's name ("Avda. Prof. Martín Lagos", "Hospital Dr. X")."""
    before = text[max(0, start - 40):start].split()
    words = [w.casefold().strip(",;:(") for w in before[-4:]]
    return -0.5 if any(w in _STREET_BEFORE for w in words) else 0.0


def _de_roman_grade(text: str, start: int, last: str) -> bool:
    """A German grade or stage with a Roman numeral, not an initial and a surname: "Insuffizienz I. Grades",
    "AV-Block II. Grades", "Stadium III. Wahl" (the numeral I, V or X and a common noun after it)."""
    m = re.match(r"[IVX]{1,4}\.", text[start:start + 6])
    return m is not None and fold(last) in common_lexicon("de")


def _initial_adjust(text: str, start: int, end: int) -> float:
    """Lower an initials + surname match that is a sentence break ("type B. Smith") or follows a word such as
    "vitamin", "hepatitis", "grupo"."""
    before = text[max(0, start - 24):start].split()
    if before and before[-1].casefold().strip(".,:;(") in _INITIAL_NEG:
        return -0.4
    return 0.0


def _initial_adjust_en(text: str, start: int, end: int) -> float:
    """:func:`_initial_adjust`, and lower when a letter and a dot stand before a common English word that no name
    list holds: a side letter ("L. Pedal pulses", "R. Arm": a body side), or the end of an abbreviation or of a
    sentence ("D+I. Approximated", "S to S. Emotional support"), not a name."""
    adj = _initial_adjust(text, start, end)
    span = text[start:end]
    last = span.split()[-1].split(".")[-1]
    g = fold(last)
    if span[1:2] == "." and g in common_lexicon("en") and g not in _listed_names("en"):
        return adj - 0.4
    return adj


@memo
def _listed_names(lang: str) -> frozenset[str]:
    """Folded one-word entries of the first-name and surname lists of ``lang`` (common words included)."""
    return frozenset(fold(r[0]) for kind in ("first_name", "surname") for r in load_rows(lang, kind)
                     if " " not in r[0])


@memo
def _en_first_names() -> frozenset[str]:
    """Folded English first names (the name list and the SSA/Census first names)."""
    return frozenset(fold(r[0]) for r in load_rows("en", "first_name") if " " not in r[0]) | census_names("en")[0]


_SUFFIX_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def _suffix_adjust(text: str, start: int, end: int) -> float:
    """A name with a generational suffix ("Robert Lane Jr."): its first word is a listed first name and none of
    its words is a stop word."""
    words = _suffix_name_words(text, start, end)
    common = _context_common("en")
    if not words or any(w.casefold() in stop_words("en") or w.casefold() in common for w in words[1:-1]):
        return -0.6  # "Grace Class IV": a common word inside is no surname
    return 0.0


def _suffix_name_words(text: str, start: int, end: int) -> list[str]:
    """The words of a ``name_suffix`` match from its first listed first name on ("Pt Mark Jr" -> "Mark Jr")."""
    words = _SUFFIX_WORD.findall(text, start, end)
    first = _en_first_names()
    while words[:-1] and fold(words[0]) not in first:
        words.pop(0)
    return words if len(words) > 1 else []


@memo
def name_patterns(lang: str) -> tuple[RulePattern, ...]:
    """The context patterns of ``lang`` (the PHI group is the name only), most specific first."""
    if lang not in HONORIFICS:
        raise ValueError(f"unsupported language {lang!r}; expected one of: {', '.join(LANGUAGES)}")
    hon = _alt(HONORIFICS[lang])
    doc_hon = _alt(h for h in HONORIFICS[lang] if h.casefold() in _DOCTOR_HONORIFICS)
    person_hon = _alt(h for h in HONORIFICS[lang] if h.casefold() not in _DOCTOR_HONORIFICS)
    more = _alt(MORE_TITLES + (_DE_MORE_TITLES if lang == "de" else ()))
    titles = rf"(?:[ \t]{{1,3}}(?:{more})\.?){{0,3}}[ \t]{{1,3}}"
    strong, weak = _NAME_IS[lang]
    closing = _CLOSINGS[lang]
    all_hon = rf"(?:(?:{hon}|{more})\.?[ \t]{{1,3}}){{0,3}}"
    out = [
        RulePattern("closing", first="letter", label="NAME.DOCTOR", score=0.75,
                    regex=rf"(?<![\w])(?:{closing}),?[ \t]{{0,3}}\r?\n(?:[ \t]{{0,20}}\r?\n){{0,3}}[ \t]{{0,20}}"
                          rf"{all_hon}({_LEAD_INITIALS}{NAME_SEQ})(?![\w])", group=1),
        RulePattern("honorific_doctor", first="letter", label="NAME.DOCTOR", score=0.85, adjust=_place_adjust,
                    regex=rf"(?<![\w.])(?:{doc_hon})\.?{titles}({_LEAD_INITIALS}{NAME_SEQ})(?![\w])", group=1),
        RulePattern("honorific", first="letter", score=0.85, adjust=_place_adjust,
                    regex=rf"(?<![\w.])(?:{person_hon})\.?{titles}({_LEAD_INITIALS}{NAME_SEQ})(?![\w])",
                    group=1),
        RulePattern("name_is", first="letter", score=0.85,
                    regex=rf"(?<![\w])(?:{strong})[ \t]{{1,3}}(?::[ \t]{{0,2}})?({ANYW}(?:{_SP}(?:{_INIT}{_SP})?"
                          rf"(?:{_PART}{_SP}){{0,3}}{ANYW}){{0,2}})(?![\w])", group=1),
        RulePattern("name_is_weak", first="letter", score=0.75,
                    regex=rf"(?<![\w])(?:{weak})[ \t]{{1,3}}(?::[ \t]{{0,2}})?({_LEAD_INITIALS}{NAME_SEQ})"
                          rf"(?![\w])", group=1),
        # a capitalised word starts these two: the triggers (the degree; initials before a capital) let most texts
        # skip them instead of rejecting every capitalised word
        RulePattern("degree", first="letter", label="NAME.DOCTOR", score=0.8, adjust=_degree_adjust,
                    regex=rf"(?<![\w.])({_LEAD_INITIALS}{NAME_SEQ}),?[ \t]{{1,2}}{_DEGREES}(?![\w])", group=1,
                    trigger=rf"{_DEGREES}(?![\w])"),
        RulePattern("initials_surname", first="letter", score=0.65,
                    adjust=_initial_adjust_en if lang == "en" else _initial_adjust,
                    regex=rf"(?<![\w.'’/])((?:{_U}\.[ \t]?){{1,3}}(?:{_PART}{_SP}){{0,3}}{CAPW})(?![\w])", group=1,
                    trigger=rf"{_U}\.[ \t]?(?:{_U}\.[ \t]?){{0,2}}(?:{_PART}{_SP}){{0,3}}{_U}"),
    ]
    if lang == "en":
        # a name with its generational suffix, the suffix in the span ("Robert Lane Jr.", "ROBERT LANE JR", "John
        # Smith III", "ROBERT JR"): a listed first name first (:func:`_suffix_adjust`); a Roman numeral only after
        # two words ("Mobitz II", "Class III", "Type IV" are no names)
        out.append(RulePattern("name_suffix", first="letter", score=0.8, adjust=_suffix_adjust,
                               regex=r"(?<![\w.'’])([A-Z][A-Za-z'’-]{1,30}(?:[ \t]{1,2}[A-Z]\.?)?"
                                     r"(?:(?:[ \t]{1,2}[A-Z][A-Za-z'’-]{1,30}){0,2},?[ \t]{1,2}(?:Jr|JR|jr|Sr|SR|sr)"
                                     r"|(?:[ \t]{1,2}[A-Z][A-Za-z'’-]{1,30}){1,2},?[ \t]{1,2}(?:II|III|IV)))(?![\w])",
                               group=1, trigger=r"(?:Jr|JR|jr|Sr|SR|sr|II|III|IV)(?![\w])"))
    if lang == "nl":
        # a Dutch surname that starts with its particles after a title ("dr. de Jong", "mw. van der Wiel",
        # "zuster ter Horst"): the particles belong to the name
        out.append(RulePattern("title_particle", first="letter", label="NAME", score=0.85,
                               regex=rf"(?<![\w.])(?i:{_NL_TITLES})\.?[ \t]{{1,3}}((?:{_U}\.[ \t]?){{0,3}}"
                                     rf"{_NL_PARTICLES}{_SP}{CAPW}(?:{_SP}{CAPW})?)(?![\w])", group=1,
                               trigger=rf"(?i:{_NL_TITLES})\.?[ \t]{{1,3}}(?:{_U}\.[ \t]?){{0,3}}{_NL_PARTICLES}[ \t]"))
        dutch = _dutch_name_patterns()
        out[:0] = dutch[:2]  # before "honorific", which would take "Mulder" of "Mw. Mulder-van der Linden"
        out += dutch[2:]
    return tuple(out)


#: Dutch words for a patient, a relative or a carer right before a surname ("Patiënt Bos", "huisarts Post",
#: "supervisor R. Bos", "zoon Mark"): a capitalised word there is a name even where it is also a noun (Dutch
#: capitalises no common noun inside a sentence)
_NL_PERSON_WORDS = (r"pati[ëe]nte?|cli[ëe]nte?|pt|pat|huisarts|supervisor|collega|verpleegkundige|arts|specialist|"
                    r"internist|chirurg|cardioloog|neuroloog|kinderarts|psychiater|casemanager|verloskundige|"
                    r"fysiotherapeut|zoon|dochter|broer|zus|vader|moeder|partner|echtgeno(?:o)?te?|buurvrouw|"
                    r"buurman|kleinzoon|kleindochter|schoonzoon|schoondochter|neef|nicht|juf|zuster|"
                    # more relatives and carers ("Oom Abdi", "AIOS Jorien", "SPV Dekkers", "Diëtist Fatima Bouzid")
                    r"oom|tante|opa|oma|ex-partner|ex-man|ex-vrouw|zwager|schoonzus|schoonmoeder|schoonvader|"
                    r"stiefvader|stiefmoeder|vriend|vriendin|mentor|meester|aios|anios|coassistent|di[ëe]tist[e]?|"
                    r"spv|ergotherapeut|logopedist[e]?|psycholoog|orthopedagoog|apotheker|tandarts|bedrijfsarts|"
                    r"jeugdarts|wijkverpleegkundige|praktijkondersteuner|poh|begeleider|gezinsvoogd|"
                    r"jeugdbeschermer|anesthesioloog|uroloog|longarts|geriater|dermatoloog|oogarts|kno-arts|"
                    r"gynaecoloog|radioloog|patholoog|intensivist|assistent|arts-assistent|verzorgende")
#: heads of Dutch institutions: after a person word and "van (de)" they start no surname ("psychiater van de
#: Crisisdienst X", "mentor van Stichting Y")
_NL_INSTITUTION_HEADS = (r"Stichting|Gemeente|Zorggroep|Praktijk|Afdeling|GGZ|GGD|Crisisdienst|Ambulancezorg|Thuiszorg|"
                         r"Kliniek|Polikliniek|Huisartsenpraktijk|Huisartsenpost|Apotheek|Rechtbank|Jeugdbescherming|"
                         r"Buurtzorg|Arbodienst|Hogeschool|Universiteit|Politie|Meldkamer|Reclassering|Veilig")
#: Dutch particles in lower case after a hyphen of a double surname ("Mulder-van der Linden", "Claessens-de Jong")
_NL_LOWER_PARTICLES = r"(?:van(?:[ \t](?:de|der|den|het|'t))?|de|den|der|ten|ter|te|in[ \t]'t|in[ \t]de|op[ \t]de|'t)"
#: an honorific before a Dutch name typed in lower case ("mw. bets van der meer", "pt. j. mulder")
_NL_LOWER_HONORIFIC = r"dhr|mevr|mw|mevrouw|meneer|pt|pat"
_LOW = r"[a-zà-öø-ÿ]"


def _dutch_name_patterns() -> list[RulePattern]:
    """Dutch name shapes: a double surname whose second part starts with a particle ("Mulder-van der Linden"), a
    nickname in brackets after an honorific ("dhr. G.J. (Gert) Lubbers"), a surname after a person word (the
    patient, a relative, a carer: "Patiënt Bos", "huisarts Post"; a common noun that is also a surname stays a
    name there, :func:`_trim`), and a name in lower case after an honorific ("mw. bets van der meer", "pt. j.
    mulder"; :func:`_nl_lower_adjust` wants an initial, a particle or a listed name)."""
    name = rf"(?:{_NL_PARTICLES}{_SP})?{CAPW}"
    return [
        RulePattern("double_particle", first="letter", label="NAME", score=0.75,
                    regex=rf"(?<![\w.'’-])(?:(?i:dhr|mevr|mw|mevrouw|meneer|de[ \t]heer)\.?[ \t]{{1,3}})?"
                          rf"((?:(?:{_U}\.[ \t]?){{1,3}}|{CAPW}{_SP})?(?:{_NL_PARTICLES}{_SP})?{CAPW}-"
                          rf"{_NL_LOWER_PARTICLES}[ \t]{CAPW})(?![\w])",
                    group=1,
                    trigger=rf"-{_NL_LOWER_PARTICLES}[ \t]{_U}"),
        RulePattern("nickname", first="letter", label="NAME", score=0.85,
                    regex=rf"(?<![\w.])(?i:dhr|mevr|mw|mevrouw|meneer|de[ \t]heer)\.?[ \t]{{1,3}}"
                          rf"((?:{_U}\.[ \t]?){{0,4}}(?:{CAPW}[ \t]{{1,2}}){{0,3}}\([ \t]?{CAPW}[ \t]?\)[ \t]{{1,2}}"
                          rf"{name})(?![\w])", group=1, trigger=r"\)[ \t]{1,2}"),
        # a nickname after "roepnaam" ("(roepnaam Jopie)", "roepnaam: Trees", "roepnaam KJ")
        RulePattern("roepnaam", first="letter", label="NAME", score=0.8,
                    regex=rf"(?<![\w])(?i:roepnaam)[ \t]{{0,2}}:?[ \t]{{1,2}}({CAPW})(?![\w])", group=1),
        RulePattern("person_word", first="letter", label="NAME", score=0.7, adjust=_not_caps,
                    # (not "kinder-MDL-arts van het Erasmus MC": "van het" after a role is "of the")
                    # (nor "mentor van Stichting X": an organisation's head after "van")
                    regex=rf"(?<![\w.-])(?i:{_NL_PERSON_WORDS})\.?[ \t]{{1,2}}(?![Vv]an[ \t]het[ \t]|[Hh]et[ \t]"
                          rf"|[Vv]an[ \t](?:de[ \t]|het[ \t])?(?:{_NL_INSTITUTION_HEADS})(?![\w]))"
                          rf"((?:{_U}\.[ \t]?){{0,3}}{name}(?:{_SP}{CAPW})?)(?![\w])", group=1),
        RulePattern("lower_honorific", first="letter", label="NAME", score=0.4, adjust=_nl_lower_adjust,
                    regex=rf"(?<![\w.])(?i:{_NL_LOWER_HONORIFIC})\.[ \t]{{1,2}}((?:{_LOW}\.[ \t]?){{0,3}}"
                          rf"(?:{_NL_LOWER_PARTICLES}[ \t])?{_LOW}{{2,30}}(?:[ \t](?:{_NL_LOWER_PARTICLES}[ \t])?"
                          rf"{_LOW}{{2,30}})?)(?![\w])", group=1),
    ]


_NL_PARTICLE_SET = frozenset((*_PARTICLE_SET, "in", "op"))


def _not_caps(text: str, start: int, end: int) -> float:
    """-1 for a span in capitals: a heading ("VERPLEEGKUNDIGE RAPPORTAGE"), not a name after a person word."""
    return -1.0 if text[start:end].isupper() else 0.0
_NL_LOWER_PARTICLE_RX = re.compile(rf"(?:^|[ \t]){_NL_LOWER_PARTICLES}[ \t]")


def _nl_name_like(span: str) -> bool:
    """A Dutch name after a person word has a word that a name list holds or that no lexicon holds."""
    lex = common_lexicon("nl")
    return any(len(w) > 1 and (fold(w) in _listed_names("nl") or fold(w) not in lex)
               for w in re.findall(r"[^\W\d_][\w'’-]*", span) if w.casefold() not in _NL_PARTICLE_SET)


def _nl_lower_trim(text: str, s: Span) -> Span:
    """A lower-case Dutch name without its last word when that word follows no particle and no name list holds
    it, or a lexicon does ("j. mulder vandaag" -> "j. mulder"; "bets van der meer" stays)."""
    words = list(re.finditer(r"[^\W\d_][\w'’-]*", text[s.start:s.end]))
    if len(words) < 2 or words[-2].group().casefold() in _NL_PARTICLE_SET:
        return s
    last = words[-1].group()
    if len(words[-2].group()) > 1 and fold(last) in _listed_names("nl") and last not in _context_common("nl"):
        return s
    return Span(s.start, s.start + words[-2].end(), s.label, s.source, s.score)


def _nl_lower_adjust(text: str, start: int, end: int) -> float:
    """+0.4 for a Dutch name in lower case after an honorific with an initial ("j. mulder"), a particle ("bets van
    der meer") or a first word that a name list holds and no lexicon does; its words may not be stop words."""
    span = text[start:end]
    words = [w for w in re.findall(r"[^\W\d_]{2,}", span) if w not in _NL_PARTICLE_SET]
    if not words or words[0] in stop_words("nl"):
        return 0.0
    if re.match(r"[^\W\d_]\.", span) or _NL_LOWER_PARTICLE_RX.search(span):
        return 0.4
    common = _context_common("nl")
    return 0.4 if fold(words[0]) in _listed_names("nl") and words[0] not in common else 0.0


#: titles and forms of address before a Dutch name
_NL_TITLES = r"dr|drs|dhr|mevr|mw|mevrouw|meneer|mr|ir|prof|zr|zuster|broeder|collega|de[ \t]heer"
#: Dutch surname particles, as they start a surname ("van der", "in 't", "ter")
_NL_PARTICLES = (r"(?:[Vv]an(?:[ \t](?:de|der|den|het|'t))?|[Dd]e|[Dd]en|[Dd]er|[Tt]en|[Tt]er|[Tt]e|[Hh]et|'t"
                 r"|[Ii]n[ \t]'t|[Oo]p[ \t]de|[Oo]p[ \t]den|[Ii]n[ \t]de|Oude)")  # (Twente's "Oude Elberink")


# --- the neighbour recognizer -----------------------------------------------------------------------------

#: ``CAPW`` after its first character: the scans below start with the capital (a character class, which the regex
#: engine skips to directly) and test the character before it afterwards, ``(?<![...].)``, the same condition as a
#: look-behind in front, which would make the engine try every position
_CAPW_REST = CAPW[len(_U):]
_RUN = re.compile(
    rf"{_U}(?<![\w.\-'’].){_CAPW_REST}(?:{_SP}(?:{_INIT}{_SP})?(?:{_PART}{_SP}){{0,3}}{CAPW}){{1,3}}(?![\w\-])"
)
_CAPW_RX = re.compile(CAPW)
_MIDDLE_INITIAL = re.compile(rf"{_SP}{_U}\.?{_SP}")
#: endings of German nouns of roles and abstractions (folded) that no list holds ("Stationsleitung",
#: "Studienkoordinatorin", "Berufsbetreuer")
_DE_ROLE_NOUN = re.compile(r"(?:ung|ungen|heit|keit|schaft|leiter|leiterin|koordinator|koordinatorin|betreuer"
                           r"|betreuerin|pfleger|pflegerin|arzt|arztin|kraft|assistent|assistentin|pfarrer|pfarrerin"
                           r"|seelsorger|seelsorgerin|hebamme|therapeut|therapeutin|ehemann|ehefrau|gatte|gattin"
                           r"|tochter|sohn|enkel|enkelin|nichte|neffe|nachbar|nachbarin|partner|partnerin"
                           r"|gefahrte|gefahrtin|kollege|kollegin)$")
_SENTENCE_END = frozenset(".!?:;\n\r\"“”'«»()[]>*•-–")
#: German month and weekday names and times of day, never a surname after a first name ("bis Max Juni" is no name)
_DE_NOT_NOUN_SURNAME = frozenset(("januar", "februar", "marz", "april", "mai", "juni", "juli", "august",
                                  "september", "oktober", "november", "dezember", "montag", "dienstag", "mittwoch",
                                  "donnerstag", "freitag", "samstag", "sonntag", "morgen", "abend", "nacht", "tag",
                                  "mittag"))


@memo
def _de_noun_surnames() -> frozenset[str]:
    """Folded German surnames of the list that the name sets leave out because they are also common words
    (``COMMON_COLLISIONS``, the noun lexicon, the allow-list: "Wolf", "Vogel", "Koch", "Sommer"): a surname only
    right after a known first name ("Ehefrau Ingrid Wolf")."""
    _first, sur = name_sets("de")
    rows = (fold(r[0]) for r in load_rows("de", "surname"))
    return frozenset(f for f in rows if len(f) >= 3 and f not in sur and f not in _DE_NOT_NOUN_SURNAME)


@memo
def _place_set(lang: str) -> frozenset[str]:
    """Folded one-word city, region and country names of ``lang`` that are not also first names or surnames."""
    first, sur = name_sets(lang)
    out = set()
    for kind in ("city", "region", "country"):
        for row in load_rows(lang, kind):
            if " " not in row[0]:
                out.add(fold(row[0]))
    return frozenset(out - first - sur)


class NameNeighbourRecognizer:
    """Runs of capitalised words around a gazetteer first name or surname (see the module docstring).

    Scores: a known first name followed by unknown words 0.7 (0.75 with a middle initial); unknown words
    before a known surname 0.6 (only inside a sentence).
    """

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.name = "name_neighbour"
        self.first, self.surnames = name_sets(lang)
        self.places = _place_set(lang)
        self.common = common_words(lang)
        self.allow = AllowList(lang)
        self._kinds: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"NameNeighbourRecognizer(lang={self.lang!r})"

    def _kind(self, w: str) -> str:
        """``"C"`` (common or allowed word or place), ``"F"`` (first name), ``"S"`` (surname) or ``"U"`` (unknown);
        a function of the word only, remembered for the words seen last."""
        kind = self._kinds.get(w)
        if kind is None:
            if len(self._kinds) >= 65536:
                self._kinds.clear()
            kind = self._kinds[w] = self._kind_of(w)
        return kind

    def _kind_of(self, w: str) -> str:
        f = w.casefold()
        if f in self.common or self.allow.is_allowed(w):
            return "C"
        g = fold(w)
        if g in self.first:
            return "F"
        if g in self.surnames:
            return "S"
        if g in self.places:
            return "C"
        if self.lang == "de" and (g in common_lexicon("de") or _DE_ROLE_NOUN.search(g)):
            return "C"  # a German noun ("kleinen Patienten X", "Bruder X", "Stationsleitung X"), not a name
        return "U"

    def analyze(self, text: str) -> list[Span]:
        out: list[Span] = []
        for m in _RUN.finditer(text):
            words = [(w.start(), w.end()) for w in _CAPW_RX.finditer(m.group())]
            words = [(a + m.start(), b + m.start()) for a, b in words]
            if len(words) < 2:
                continue
            kinds = [self._kind(text[a:b]) for a, b in words]
            if self.lang == "de":  # "Ingrid Wolf": a surname that is also a noun, right after a known first name
                k = next((k for k in range(1, len(kinds)) if kinds[k] == "C" and kinds[k - 1] == "F"
                          and fold(text[slice(*words[k])]) in _de_noun_surnames()), 0)
                if k:
                    out.append(Span(words[k - 1][0], words[k][1], "NAME", f"{self.name}:FN", 0.7))
                    continue
            # after a known surname the name ends: "Eduardo Hernández NºCol", "Ana Ruiz Residente"
            for k in range(1, len(kinds)):
                if kinds[k - 1] == "S" and kinds[k] != "S" and k >= 1:
                    words, kinds = words[:k], kinds[:k]
                    break
            while kinds and kinds[0] == "C":  # "Dear Krisztián Szöllösy"
                words, kinds = words[1:], kinds[1:]
            while kinds and kinds[-1] == "C":
                words, kinds = words[:-1], kinds[:-1]
            if len(words) < 2:
                continue
            shape = (kinds == ["U", "U"] and self.lang in _CUE_LANGS
                     and _MIDDLE_INITIAL.search(m.group()) is not None)
            if "C" in kinds or "U" not in kinds or not ({"F", "S"} & set(kinds) or shape):
                continue  # all known: the gazetteer has them; a common word: not a name
            if any(k == "U" and text[a:b].isupper() for k, (a, b) in zip(kinds, words, strict=True)):
                continue
            j = m.start()
            while j > 0 and text[j - 1] in " \t":
                j -= 1
            sentence_start = j == 0 or text[j - 1] in _SENTENCE_END
            initial = shape or _MIDDLE_INITIAL.search(m.group()) is not None
            if kinds[0] == "F":
                score = 0.75 if initial else 0.7
            elif (kinds[-1] == "S" or "F" in kinds) and not sentence_start:
                score = 0.6
            elif (shape and all(b - a >= 3 for a, b in words)
                  and text[words[0][0]:words[0][1]].casefold() not in _SHAPE_NEG):
                score = 0.65  # "Szabina J Gelencsér": two unknown words around a middle initial
            else:
                continue
            out.append(Span(words[0][0], words[-1][1], "NAME", f"{self.name}:{''.join(kinds)}", score))
        out += self.lists(text)
        if self.lang in _CUE_LANGS:
            out += self.cues(text) + self.speakers(text) + self.caseless(text)
        return out

    def lists(self, text: str) -> list[Span]:
        """Unknown Title-case words in a list of single capitalised words of which at least two are known
        first names or surnames ("They had 6: Gaetane, Hannah, Anthony" -> "Gaetane"), score 0.6. In the
        languages of :data:`_PAIR_LANGS` a pair of one known and one unknown name is enough ("Usamov and
        Bowers"; the unknown word needs four letters or more)."""
        out: list[Span] = []
        pairs = self.lang in _PAIR_LANGS
        for m in _LIST.finditer(text):
            items = [(w.start() + m.start(), w.end() + m.start()) for w in _CAPW_RX.finditer(m.group())]
            kinds = [self._kind(text[a:b]) for a, b in items]
            known = sum(k in ("F", "S") for k in kinds)
            if "C" in kinds:
                continue
            if known < 2 and not (pairs and known == 1 and len(items) == 2
                                  and all(b - a >= 4 for (a, b), k in zip(items, kinds, strict=True) if k == "U")):
                continue
            for (a, b), k in zip(items, kinds, strict=True):
                if k == "U" and not text[a:b].isupper():
                    out.append(Span(a, b, "NAME", f"{self.name}:list", 0.6))
        return out

    def _name_words(self, text: str, words: list[tuple[int, int]], *, tail: bool = False) -> list[tuple[int, int]]:
        """The name in ``words`` (Title-case words after or before a cue): leading common words, allowed words,
        places and role words dropped, cut before the first other such word or unknown ALL-CAPS word (an
        acronym); ``tail`` keeps the last words instead (a name right before its verb: none when the word
        before the verb is such a word). Empty when no word of two
        letters or more is left."""
        if tail:
            words = words[::-1]
        kept: list[tuple[int, int]] = []
        for a, b in words:
            w = text[a:b]
            kind = self._kind(w) if len(w) > 1 else "I"
            bad = (kind == "C" or _service_word(w.casefold()) or (kind == "U" and w.isupper() and len(w) > 1)
                   or (kind == "U" and self.lang in _CUE_LANGS and _inflected(w, self.lang))
                   or (self.lang == "en" and (w.casefold() in _EN_KIN_ABBREVIATIONS
                                              or (w.casefold() in _EN_DOTTED_TITLES and text[b:b + 1] == "."))))
            # (English: "Dtr lives on ...", "chaplain Br. Anselm": a kinship abbreviation, a title with its dot)
            if kind == "I" or w in _PARTICLE_SET:  # initials and particles only inside a name
                if kept:
                    kept.append((a, b))
                continue
            if bad:
                if kept or tail:
                    break
                continue
            kept.append((a, b))

        def junk(k: tuple[int, int]) -> bool:  # an initial or a particle cannot end (or start) a name
            return k[1] - k[0] == 1 or text[k[0]:k[1]] in _PARTICLE_SET

        while kept and junk(kept[-1]):
            kept.pop()
        if tail:
            kept = kept[::-1]
        while kept and junk(kept[0]):
            kept.pop(0)
        return kept if any(b - a > 1 for a, b in kept) else []

    def cues(self, text: str) -> list[Span]:
        """Names after a person cue of the language (a role noun: "wife Vinka", "producer Liviana Palerma";
        a greeting: "Dear Liisa"; an agent "by" after a verb of persons or a "By:" label: "seen by Asya Godina",
        "Directed By: Johannes Varvio"; a speech verb: 'says Hartvigsson'), score 0.7 (after a capitalised role
        word, which often heads a title, only with a known first name or surname); names before a verb that only
        persons do ("Tomomi Nishiyama lives at", "Mehrudin shouted", "Alvir spent a year"), score 0.65; two or
        three Title-case words before a possessive and a lower-case word ("Wisława Szczepańska's killers"),
        score 0.6. Unknown ALL-CAPS words, common words, allowed words (eponyms: "Lou Gehrig's disease"), places,
        role words, clinical services and payers ("seen by Cardiology", "covered by Medicare") are never part of
        these names."""
        out: list[Span] = []
        rx = _cue_regexes(self.lang)
        if rx is None:
            return out
        before, after = rx
        for m in before.finditer(text):
            base = m.start(1)
            words = [(base + w.start(), base + w.end()) for w in _WORD.finditer(m.group(1))]
            kept = self._name_words(text, words)
            if not kept:
                continue
            cue = text[m.start():base].split()[0]
            if cue[:1].isupper() and cue.casefold() in _CUE_STOP and not any(
                    self._kind(text[a:b]) in ("F", "S") for a, b in kept):
                continue  # a capitalised role word heads a title ("Patient Education", "Nurse Manager Rounds")
            out.append(Span(kept[0][0], kept[-1][1], "NAME", f"{self.name}:cue", 0.7))
        for m in after.finditer(text):
            lo = max(0, m.start() - 80)
            k = _BEFORE_VERB.search(text, lo, m.start())
            if k is None:
                continue
            base = k.start(1)
            words = [(base + w.start(), base + w.end()) for w in _WORD.finditer(k.group(1))]
            kept = self._name_words(text, words, tail=True)
            if kept:
                out.append(Span(kept[0][0], kept[-1][1], "NAME", f"{self.name}:subject", 0.65))
        if "'s " in text or "’s " in text:
            for p in _POSSESSIVE_MARK.finditer(text):
                if p.start() == 0 or not text[p.start() - 1].isalpha():
                    continue
                m = _POSSESSIVE.search(text, max(0, p.start() - 64), p.start())
                if m is None:
                    continue
                words = [(m.start(1) + w.start(), m.start(1) + w.end()) for w in _WORD.finditer(m.group(1))]
                kept = self._name_words(text, words, tail=True)
                if (len(kept) >= 2 and kept[0][0] == words[0][0]
                        and not self.allow.in_eponym_context(text, kept[0][0], kept[-1][1])):
                    out.append(Span(kept[0][0], kept[-1][1], "NAME", f"{self.name}:possessive", 0.6))
        return out

    def speakers(self, text: str) -> list[Span]:
        """Speaker labels of a dialogue ("Ubul: What a wife.\nNicole: Remember me?"): when two or more lines start
        with a known first name and a colon, the unknown Title-case words that start other lines the same way
        are names too (score 0.65)."""
        if text.count(":") < 2:
            return []
        labels = [(m.start(1), m.end(1)) for m in _SPEAKER.finditer(text)]
        if len(labels) < 3:
            return []
        kinds = [self._kind(text[a:b]) for a, b in labels]
        if sum(k == "F" for k in kinds) < 2:
            return []
        return [Span(a, b, "NAME", f"{self.name}:speaker", 0.65) for (a, b), k in zip(labels, kinds, strict=True)
                if k == "U" and not text[a:b].isupper()]

    def caseless(self, text: str) -> list[Span]:
        """Names in lines without any capital letter (texts typed in lower case): a known first name and a known
        surname, with an optional middle initial between them ("patricia desrosiers", "codey m ross"), or an
        unknown word of three letters or more, a middle initial and a known surname ("emidio p lombardo"), or a
        known first name and an unknown word before a verb of persons ("eva kleist lives at"), score 0.6."""
        out: list[Span] = []
        verbs = _person_verb_words(self.lang)
        for line in _LOWER_LINE.finditer(text):
            words = [(w.start(), w.end()) for w in _LOWER_WORD.finditer(text, line.start(), line.end())]
            kinds = [self._kind(text[a:b]) if b - a > 1 else "I" for a, b in words]
            if self.lang == "en":  # "son okonkwo": the kin before a name, not a first name ("Son")
                kinds = ["C" if k == "F" and fold(text[a:b]) in EN_KIN_WORDS else k
                         for k, (a, b) in zip(kinds, words, strict=True)]
            i = 0
            while i + 1 < len(words):
                k0 = kinds[i]
                j = i + 1
                initial = kinds[j] == "I" and j + 1 < len(words)
                if initial:
                    j += 1
                gap_ok = all(_SP_ONLY.fullmatch(text[words[x][1]:words[x + 1][0]].replace(".", "", 1))
                             for x in range(i, j))
                k1 = kinds[j]
                ok = gap_ok and ((k0 == "F" and k1 == "S") or (initial and k0 == "F" and k1 in ("S", "U"))
                                 or (initial and k0 == "U" and k1 == "S" and words[i][1] - words[i][0] >= 3))
                if ok and k1 == "U" and words[j][1] - words[j][0] < 3:
                    ok = False
                if (not ok and gap_ok and k0 == "F" and k1 == "U" and words[j][1] - words[j][0] >= 3
                        and j + 1 < len(words) and text[words[j + 1][0]:words[j + 1][1]] in verbs):
                    ok = True  # "eva kleist lives at"
                if ok:
                    out.append(Span(words[i][0], words[j][1], "NAME", f"{self.name}:caseless", 0.6))
                    i = j + 1
                else:
                    i += 1
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


#: languages whose cue patterns (:meth:`NameNeighbourRecognizer.cues`) and one-known-name pairs are used
_CUE_LANGS = frozenset({"en"})
_PAIR_LANGS = frozenset({"en"})
#: plural and verb endings of English words, longest first
_INFLECTIONS = ("ies", "es", "s", "ed", "d", "ing")


def _inflected(w: str, lang: str) -> bool:
    """An English word that no list holds but that is a plural or a verb form of a word of the lexicon ("BOLUSES",
    "EXTUBATED", "Weaning"; "SON PRESNT" is a misspelling, not this), or that ends like a past participle or a
    gerund and is long ("Reintubated"): the word of a note in capitals re-cased, not a name no list holds."""
    f = fold(w)
    if len(f) < 5 or not f.isalpha():
        return False
    lexicon = common_lexicon(lang)
    for end in _INFLECTIONS:
        if f.endswith(end) and len(f) - len(end) >= 3:
            stem = f[:-len(end)]
            if stem in lexicon or (end == "ies" and stem + "y" in lexicon) or (
                    end in ("ed", "ing") and stem + "e" in lexicon):
                return True
    return len(f) >= 8 and f.endswith(("ated", "ized", "izing", "ating"))


#: role nouns after which a capitalised word is a person's name ("wife Vinka", "producer Liviana Palerma")
_ROLES: dict[str, tuple[str, ...]] = {
    "en": ("patient", "husband", "wife", "son", "daughter", "mother", "father", "mom", "mum", "dad", "brother",
           "sister", "grandson", "granddaughter", "grandmother", "grandfather", "grandma", "grandpa", "uncle",
           "aunt", "nephew", "niece", "cousin", "stepson", "stepdaughter", "stepfather", "stepmother", "friend",
           "boyfriend", "girlfriend", "fiance", "fiancé", "fiancee", "fiancée", "partner", "spouse", "neighbor",
           "neighbour", "caregiver", "carer", "guardian", "roommate", "colleague", "coworker", "co-worker", "boss",
           "landlord", "landlady", "pastor", "priest", "rabbi", "imam", "chaplain", "therapist", "counselor",
           "counsellor", "interpreter", "translator", "attorney", "lawyer", "producer", "songwriter", "singer",
           "writer", "author", "director", "player", "actor", "actress", "artist", "coach", "teacher", "student",
           "nurse", "physician", "surgeon", "pharmacist", "dietitian", "physiotherapist", "midwife", "paramedic",
           "sitter", "social worker", "case manager", "care manager", "home aide"),
}
#: verbs (past participles and the like) whose agent after "by" is a person ("seen by", "sung by")
_BY_VERBS: dict[str, tuple[str, ...]] = {
    "en": ("seen", "examined", "evaluated", "assessed", "referred", "reviewed", "dictated", "transcribed",
           "signed", "cosigned", "co-signed", "written", "authored", "directed", "produced", "performed", "sung",
           "recorded", "composed", "arranged", "accompanied", "brought", "visited", "called", "contacted",
           "treated", "attended", "interviewed", "followed", "managed", "operated", "covered", "supervised",
           "painted", "played", "founded", "edited", "translated", "adopted", "raised", "escorted", "driven",
           "paged", "notified", "informed", "consulted", "admitted", "discharged", "prescribed", "ordered",
           "approved", "verified", "witnessed", "prepared", "entered", "taken", "collected", "read", "dictated"),
}
_GREETING_CUES: dict[str, tuple[str, ...]] = {"en": ("Dear", "Dearest", "Hi", "Hello", "Hey", "DEAR")}
#: speech verbs before a speaker's name ('"...," says Hartvigsson')
_SAYS: dict[str, tuple[str, ...]] = {"en": ("says", "said", "asks", "asked", "adds", "added", "writes", "wrote",
                                            "according to")}
#: first words of a "Name I Name" shape that make it something else ("Hepatitis B Surface", "Troponin I Level")
_SHAPE_NEG = frozenset(_INITIAL_NEG) | frozenset(_split(
    "troponin hemoglobin haemoglobin immunoglobulin complement antigen coenzyme lipoprotein apolipoprotein "
    "interleukin tumor tumour cluster lymphocyte cell cells natural killer serotype strain clade genotype "
    "subtype blood rhesus"))
#: verbs that only persons do, after a name at a sentence's start ("Tomomi Nishiyama lives at")
_PERSON_VERBS: dict[str, tuple[str, ...]] = {
    "en": ("lives", "lived", "resides", "resided", "shouted", "yelled", "screamed", "whispered", "spent",
           "grew up", "was born", "were born", "married", "divorced", "passed away", "smokes", "retired",
           "emigrated", "immigrated"),
}
#: Title-case words after a role noun or a greeting that are not a name ("Nurse Practitioner", "Dear Colleague")
_CUE_STOP = frozenset(_split(
    "practitioner practitioners manager managers worker workers assistant assistants aide aides educator "
    "coordinator advocate navigator technician tech liaison representative rep supervisor services support "
    "team program visit colleague colleagues friends all everyone sir madam madame customer member members "
    "valued editor parents family families there everybody folks guys reader readers committee board "
    "dept department ward unit floor home"
)) | frozenset(w for ws in _ROLES.values() for w in ws)


#: clinical services and payers that follow "seen by", "said", "per" ... and are not persons
_SERVICES = frozenset(_split(
    "cardiology neurology oncology dermatology nephrology urology gastroenterology gi pulmonology pulmonary "
    "rheumatology endocrinology hematology psychiatry psychology pediatrics paediatrics orthopedics orthopaedics "
    "ortho anesthesia anaesthesia anesthesiology radiology pathology ophthalmology otolaryngology ent obstetrics "
    "gynecology ob gyn obgyn infectious hospitalist hospitalists hospice palliative physical occupational speech "
    "nutrition dietary social pharmacy wound respiratory podiatry optometry audiology chaplaincy neurosurgery "
    "interventional vascular transplant trauma geriatrics immunology allergy genetics hepatology toxicology "
    "surgical medical critical intensive urgent primary psych rehab physiotherapy cardiothoracic neonatology "
    "medicare medicaid tricare insurance staff security police ambulance paramedics ems"
))
_SERVICE_ENDINGS = ("ology", "ologist", "ologists", "iatry", "iatrist", "iatrics", "pedics", "paedics", "surgery",
                    "therapy", "therapist")


def _service_word(folded: str) -> bool:
    """A role word, a clinical service or a payer ("Cardiology", "Physical", "Medicare"), never a name."""
    return folded in _CUE_STOP or folded in _SERVICES or folded.endswith(_SERVICE_ENDINGS)


@memo
def _cue_regexes(lang: str) -> tuple[re.Pattern[str], re.Pattern[str]] | None:
    """(cue then name, person verb) regexes of ``lang``; None when the language has no cues."""
    if lang not in _ROLES:
        return None

    def forms(words: Iterable[str]) -> set[str]:
        return {f for w in words for f in (w, w[:1].upper() + w[1:])}

    roles = trie_regex(forms(_ROLES[lang])).replace("\\ ", "[ \t]")  # trie_regex escapes the space
    by = trie_regex(forms(_BY_VERBS[lang]))
    greet = trie_regex(_GREETING_CUES[lang])
    says = trie_regex(_SAYS[lang]).replace("\\ ", "[ \t]")
    name = rf"({_LEAD_INITIALS}{NAME_SEQ})"
    before = re.compile(rf"(?<![\w\-])(?:{roles}|{greet}|{says}|(?:{by})[ \t]{{1,2}}by|[Bb][Yy]:)[ \t]{{1,6}}{name}"
                        rf"(?![\w\-])")
    verbs = trie_regex(_PERSON_VERBS[lang]).replace("\\ ", "[ \t]")
    after = re.compile(rf"(?<=[ \t])(?:{verbs})(?![\w\-])")
    return before, after


#: one to four name words (initials and particles inside) right before a person verb (searched backwards)
_BEFORE_VERB = re.compile(rf"({_U}(?<![\w\-'’.].){_CAPW_REST}"
                          rf"(?:{_SP}(?:{_INIT}{_SP})?(?:{_PART}{_SP}){{0,3}}{CAPW}){{0,3}})[ \t]{{1,2}}\Z")
#: two or three Title-case words (a middle initial between them) before "'s" and a lower-case word
_POSSESSIVE = re.compile(rf"({_U}(?<![\w\-'’.].){_CAPW_REST}{_SP}(?:{_INIT}\.?{_SP})?{CAPW}(?:{_SP}{CAPW})?)\Z")
_POSSESSIVE_MARK = re.compile(r"['’]s[ \t]{1,2}[a-z]")


@memo
def _person_verb_words(lang: str) -> frozenset[str]:
    """The one-word verbs of :data:`_PERSON_VERBS` (and the first words of the longer ones) of ``lang``."""
    return frozenset(v.split()[0] for v in _PERSON_VERBS.get(lang, ()) if " " not in v)


#: a dialogue speaker label: a capitalised word at a line's start, then a colon
_SPEAKER = re.compile(rf"(?m)^[ \t>]{{0,4}}({CAPW})[ \t]?:(?!//)")
_LOWER = "a-zß-öø-ÿ" + "".join(c for c in map(chr, range(0x100, 0x250)) if c.islower())
#: a line without capital letters (linear: the match can only start at a line's start)
_LOWER_LINE = re.compile(rf"(?m)^[^\n{UPPER}]*$")
_LOWER_WORD = re.compile(rf"(?<![\w\-'’])[{_LOWER}][{_LOWER}'’\-]{{0,30}}(?![\w\-])")
_SP_ONLY = re.compile(r"[ \t]{1,2}")


#: a list of capitalised words ("A, B, C and D") or a pair ("A and B"). Written with the first word taken out of the
#: two branches, so that the regex starts with a character class, which the engine skips to: the same matches as
#: ``{W}(?:,...)|{W}[ \t]...`` because each branch goes on with "," or a space, which can only follow the whole
#: first word (a shorter match of it is followed by a letter or "-"), so both try the same first word
_LIST = re.compile(rf"{_U}(?<![\w\-'’].){_CAPW_REST}(?:(?:,[ \t]{{1,2}}{CAPW}){{1,8}}(?:,?[ \t]{{1,2}}"
                   rf"(?:and|or|y|en|och|und|e)[ \t]{{1,2}}{CAPW})?(?![\w\-])"
                   rf"|[ \t]{{1,2}}(?:and|y|en|och|und)[ \t]{{1,2}}{CAPW}(?![\w\-]))")


# --- names in any case after a title, a role or a kinship word (English clinical notes) --------------------------

#: cue words (folded) and the label of the name after them: clinicians' titles and roles, relatives
_CASELESS_CUES: dict[str, dict[str, str]] = {
    "en": {
        **dict.fromkeys(("dr", "drs", "doctor", "np", "rn", "pa", "ho", "nurse", "resident", "intern", "fellow",
                         "attending", "physician", "surgeon", "cardiologist", "nephrologist", "neurologist",
                         "pharmacist", "therapist", "rt", "rrt", "sw", "cm", "chaplain", "nutritionist",
                         "dietitian", "md", "specialist", "coordinator", "manager", "worker", "liaison",
                         "educator", "consultant", "hospitalist", "intensivist", "anesthesiologist", "pcp",
                         "crna", "mgr", "interpreter", "paramedic", "midwife", "res", "ot", "tech", "technician",
                         "aide", "staff", "charge"),
                      "NAME.DOCTOR"),
        **dict.fromkeys(("wife", "husband", "son", "daughter", "dtr", "dau", "sister", "brother", "sis", "bro",
                         "mother", "father", "mom", "dad", "mum", "friend", "neighbor", "neighbour", "niece",
                         "nephew", "grandson", "granddaughter", "grandmother", "grandfather", "aunt", "uncle",
                         "cousin", "partner", "fiance", "fiancé", "fiancee", "girlfriend", "boyfriend", "spouse",
                         "stepson", "stepdaughter", "sil", "dil", "hcp", "proxy", "poa", "guardian", "caregiver",
                         "lawyer", "attorney", "daughters", "sons", "sisters", "brothers", "nieces", "nephews",
                         "grandsons", "granddaughters", "friends", "cousins", "sibling", "siblings", "stepmother",
                         "stepfather", "stepmom", "stepdad", "grandma", "grandpa", "caller", "counselor",
                         "counsellor", "teacher", "pastor", "officer", "trooper", "sgt", "supervisor", "adjuster",
                         "roommate", "landlord", "det", "detective", "foreman", "boss", "parents", "grandparents",
                         "gma", "gpa", "nana"), "NAME.RELATIVE"),
        # a newborn's surname ("Twins Adeyemi-Grant"; "baby boy pham", "BB GIRL OKAFOR": two-word cues below)
        "twins": "NAME.PATIENT",
        "thx": "NAME", "thanks": "NAME",
        "mr": "NAME", "mrs": "NAME", "ms": "NAME", "miss": "NAME", "pt": "NAME.PATIENT", "patient": "NAME.PATIENT",
    },
}
#: cues written with an abbreviation's dot before a name ("Dr. murray", "dtr. jane"); after the other cues a dot
#: ends a sentence ("... power of attorney. Legal work")
_DOT_CUES = frozenset(("dr", "drs", "mr", "mrs", "ms", "dtr", "dau", "sis", "bro", "sgt", "mgr", "det"))
#: cues after which a listed first name or surname must be among the words ("md aware" is no name)
_WEAK_CUES = frozenset(("pt", "patient", "md", "rn", "pa", "ho", "rt", "sw", "cm", "fellow", "resident", "intern",
                        "attending", "friend", "partner", "proxy", "hcp", "poa", "guardian", "caregiver", "pcp",
                        "mgr", "caller", "thx", "thanks", "officer", "supervisor", "teacher", "counselor",
                        "counsellor", "interpreter", "paramedic", "sibling", "siblings", "res", "ot", "tech",
                        "technician", "aide", "staff", "charge", "foreman", "boss"))
#: verbs of calling before a name and its role ("pls page Anneliese (SW)"): no part of the name
_CALL_VERBS = frozenset(("page", "paged", "call", "called", "ask", "asked", "tell", "told", "notify", "notified",
                         "contact", "contacted", "pls", "please", "per", "with", "to", "by"))
#: words of a note's routine that follow "dr" and are no surname ("dr aware", "DR. HERE", "dr team")
_NOT_AFTER_TITLE = frozenset((
    "aware", "here", "there", "present", "team", "teams", "office", "note", "notes", "order", "orders", "rounds",
    "said", "says", "told", "wants", "feels", "thinks", "states", "knows", "saw", "came", "spoke", "gave", "took",
    "made", "put", "ok", "okay", "also", "re", "regarding", "to", "on", "off", "in", "out", "at", "with", "via",
    "called", "paged", "notified", "informed", "visit", "visited", "saw", "see", "sees", "seen", "consult", "plan",
    "plans", "service", "services", "group", "appt", "appointment", "unavailable", "available", "busy", "now",
    "today", "tomorrow", "tonight", "yesterday", "again", "too", "only", "will", "would", "should", "may", "might",
    "can", "could", "does", "did", "has", "had", "was", "were", "is", "are", "be", "been", "not", "no", "yes"))
#: an oxygen flow right before "NP" (nasal prongs): "4L NP", "2 l np", "O2 NP"
_FLOW_BEFORE = re.compile(r"(?i:\d[ \t]?(?:l|lpm|l/min|liters?)|o2)[ \t]{1,2}\Z")
#: cue phrases of two words (the second word is the one in the table above, the first one is checked here)
#: ("contact person (X)", "EMERGENCY CONTACT: X": the person the family named to be called, a relative or a friend)
_TWO_WORD_CUES = {"other": ("significant",), "law": ("in",), "person": ("contact",),
                  "contact": ("emergency", "primary", "family"), "boy": ("baby", "bb"), "girl": ("baby", "bb")}
#: a newborn's chart abbreviations after its name: day of life, (corrected / postmenstrual) gestational age,
#: birth weight, hour of life
_NEONATAL_TERMS = frozenset(("dol", "cga", "ga", "pma", "bw", "hol", "ex", "apgars", "twin", "twins"))
#: two-word cues that name the patient (a newborn: "baby boy pham", "Baby girl Whitfield")
_PATIENT_TWO_WORD_CUES = frozenset(("boy", "girl"))
#: clinical credentials at the end of a signature line ("irene snell, rn", "J. Doe RN", "jane roe bsn/rn")
_CREDENTIALS = (r"(?:rn|bsn|msn|lpn|lvn|np|cnp|fnp|aprn|crna|rrt|crt|rt|pt|ot|slp|msw|lcsw|licsw|md|do|pa|pa-c|"
                r"phd|pharmd|rd|ccrn|cns|sn|lmhc|lpc|lcpc|lmft|lsw|cnm|psyd|dpm|dnp|cma|emt|emt-p)")
_CREDENTIAL_RX = re.compile(rf"(?i:{_CREDENTIALS})\Z")
_SIGNATURE = re.compile(  # at a line's start, or after the last sentence of the line ("... tomorrow. s. roe rrt")
    rf"(?im)(?:^|(?<=[.!?][ \t]))[ \t]{{0,20}}((?:[^\W\d_]{{2,30}}|[^\W\d_]\.?)"
    rf"(?:[ \t]{{1,2}}(?:[^\W\d_][\w'’\-]{{0,30}}|[^\W\d_]\.)){{1,3}})"
    rf"[ \t]{{0,2}},?(?:[ \t]{{1,3}}|[ \t]{{0,3}}\n[ \t]{{0,20}})"  # the credential may be on the next line
    rf"{_CREDENTIALS}(?:[ \t]?/[ \t]?{_CREDENTIALS}){{0,3}}\.?"
    r"(?:,?[ \t]{1,2}(?i:cm|ccm|va-bc|rn))?"  # a second credential after a blank ("A. Roe RN CM")
    # a number after it: "..., LICSW   x6620", "..., RRT  beeper 2-6614"
    r"(?:[ \t]{1,20}(?:x|ext\.?|pager|pgr|p|beeper|bpr)[ \t]?#?[ \t]?\d[\d\-]{2,7})?[ \t]{0,20}$")
#: one to three words, then a clinician's role in brackets ("DICK ROE (RESIDENT)", "jane (sw)"), a service word
#: before the role too ("... (cardiology fellow)", "... (renal attending)")
_ROLE_AFTER = re.compile(
    r"(?<![\w'’\-])((?:[^\W\d_][\w'’\-]{0,30}\.?[ \t]{1,2}){0,2}[^\W\d_][\w'’\-]{1,30})[ \t]{0,2}\("
    r"(?:[^\W\d_]{2,20}[ \t]{1,2})?"
    r"(?i:resident|intern|attending|fellow|np|pa|md|rn|rrt|rt|sw|cm|case[ \t]manager|social[ \t]worker|nurse"
    r"|pcp|surgeon|cardiologist|hospitalist|consultant|chaplain|pharmacist|dietitian|nutritionist|pt|ot|slp"
    r"|respiratory[ \t]therapist|physical[ \t]therapist|charge[ \t]nurse|nurse[ \t]practitioner|house[ \t]officer"
    r"|ho|md[ \t]on[ \t]call|covering)\)")
#: the same with a relative's role ("JANE (SIGNIFICANT OTHER)", "bob (son)")
_KIN_AFTER = re.compile(
    r"(?<![\w'’\-])((?:[^\W\d_][\w'’\-]{0,30}\.?[ \t]{1,2}){0,2}[^\W\d_][\w'’\-]{1,30})[ \t]{0,2}\("
    r"(?i:significant[ \t]other|so|wife|husband|son|daughter|dtr|sister|brother|mother|father|friend|partner|"
    r"niece|nephew|hcp|health[ \t]care[ \t]proxy|poa|guardian|fiance|fiancee|girlfriend|boyfriend)\)")
#: verbs of talking to someone, after which a listed first name is a person ("spoke with sarah", "updated john")
_TALKED = re.compile(r"(?<![\w'’])(?i:(?:spoke|spoken|speaking|talked|talking|met|discussed|conferred)[ \t]{1,2}"
                     r"(?:with|to)|updated|called|phoned|paged|notified|informed)[ \t]{1,2}(?=[^\W\d_])")
#: a name list after a cue: ", " or " and " / " & " then more name words ("daughters sarah and emily")
_AND_MORE = re.compile(r"(?:,[ \t]{1,2}(?:(?i:and)[ \t]{1,2})?|[ \t]{1,2}(?i:and|&)[ \t]{1,2})(?=[^\W\d_])")
@memo
def _cue_word_regex(lang: str) -> re.Pattern[str]:
    """A cue word of :data:`_CASELESS_CUES` (any case; "per", "by" and the second words of two-word cues too),
    then a dot or spaces, commas, a colon or a parenthesis before a letter."""
    words = {*_CASELESS_CUES.get(lang, {}), "per", "by", *_TWO_WORD_CUES}
    forms = {f for w in words for f in (w, w.upper(), w[:1].upper() + w[1:])}
    return re.compile(rf"(?<![\w'’])({trie_regex(forms)})(?:\.[ \t,:(\"“]{{0,4}}|(?<=[Dd][Rr][Ss])['’][ \t]{{1,2}}"
                      rf"|[ \t,:(\"“]{{1,4}})(?=[^\W\d_])")
#: religious and civil titles written with a dot after a role word, skipped before the name ("Chaplain Br. Anselm")
_EN_DOTTED_TITLES = frozenset(("br", "fr", "sr", "rev", "revd", "msgr", "mr", "mrs", "ms", "mx", "dr"))
#: kinship words as nurses abbreviate them, never a name ("Dtr lives on ...", "SIL called")
_EN_KIN_ABBREVIATIONS = frozenset(("dtr", "dau", "sil", "dil", "gd", "gs", "gdtr", "stepdtr", "hcp", "poa"))
_ANY_WORD = re.compile(r"[^\W\d_](?:['’]?[^\W\d_]){0,30}(?:-[^\W\d_]{2,30})?(?![\w\-])|[^\W\d_]\.?(?![\w\-])")


class CaselessCueRecognizer:
    """Names in any case (lower case, capitals) after a title, a role or a kinship word, and signatures: "dr.
    murray", "np grace", "psych nurse leslie kiezulas", "son jonathan", "wife, mary", "SON ROB", "irene snell, rn".

    Mixed-case text has Title-case names, which other recognizers find; these notes carry no case signal, so a word
    is a name here when it is not a stop word, a common word or a clinical abbreviation of the language, and
    either no lexicon lists it as an ordinary word or a name list lists it ("rose", "rob", "grace"). One or two
    such words (an initial between them) make the name; after "per" or "by" only an initial and a surname do
    ("per d ross"). Words before "aware" / "notified" ("grace dudak aware", a role between them too: "... np
    aware") make a name when one of them is a listed first name or surname.

    Where a weak cue, "per" / "by", a signature, "spoke with", "aware" or a kinship list would need a listed name,
    words that no list holds and that are shaped like a surname do as well (:meth:`_unlisted`: two of them, an
    initial and one, or one where the context is strong — a word of being told after it, a capital on a line in
    mixed case): held-back notes bring names no list has ("md zelinsky aware", "j. okonkwo rrt"). Also: the
    patient's name before "is a 70 yo" at a sentence's start, and a relative's name before a relative's role in
    brackets ("JANE (SIGNIFICANT OTHER)"). Scores 0.7 (cue), 0.75 (signature), 0.6 (told), 0.65 (aged).
    """

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.name = "name_cue"
        self.cues = _CASELESS_CUES.get(lang, {})
        self.common = common_words(lang)
        self.stop = stop_words(lang)
        self.lexicon = common_lexicon(lang)
        self.names, _ = name_words(lang)
        self.first = frozenset(fold(r[0]) for r in load_rows(lang, "first_name") if " " not in r[0])
        if lang == "en":  # the US Census names (none of them a common word): "per d kowalski", "j. nguyen rn"
            census_first, census_surnames = census_names(lang)
            self.names = self.names | census_first | census_surnames
            self.first = self.first | census_first
        self.allow = allowlist_for(lang)

    def __repr__(self) -> str:
        return f"CaselessCueRecognizer(lang={self.lang!r})"

    def _name_like(self, w: str, cased: bool | Callable[[], bool] = False) -> bool:
        """Whether ``w`` can be a name word; ``cased``: its line is typed in mixed case, so a capital is a sign
        (a callable: computed only when needed)."""
        if "-" in w:
            return all(self._name_like(p, cased) for p in w.split("-"))
        f = w.casefold()
        if _service_word(f) or f in _NEONATAL_TERMS:
            return False  # "Nurse Practitioner", "seen by Cardiology", "baby boy Pham DOL 4"
        if cased and w[:1].isupper() and len(w) > 1 and f not in self.stop and f not in self.common \
                and f not in self.cues and not self.allow.is_allowed(w) and (cased() if callable(cased) else cased) \
                and (fold(w) in self.names or not _inflected(w, self.lang)):
            # a capital on a mixed-case line, but not on a plural or a verb form of a word of the lexicon that no
            # name list holds ("Daughter Lives in ...", "Wife Trelisa Visited Today": a heading, or a note in
            # capitals that clinanon.detect.caseless title-cased)
            return True
        if len(w) < 2 or f in self.stop or f in self.common or f in self.cues or self.allow.is_allowed(w):
            # a common word that is also a name ("rose", "pat", "green") is one after a cue
            return f in _COLLISION_NAMES and f not in self.stop and f not in _NOT_NAMES
        g = fold(w)
        return g not in self.lexicon or g in self.first  # "grace", "rob": a first name; "hand", "good": a word

    def _known(self, w: str) -> bool:
        return fold(w) in self.names and w.casefold() not in self.common

    def _unlisted(self, words: Sequence[str], *, single: bool = False) -> bool:
        """Words that no list holds and that are shaped like a surname, not like a word of a note's routine: each
        at least three letters, in no lexicon of the language (nor a stop word, a clinical abbreviation or a
        service), not ending like a verb or an adverb (a misspelt "notifed" stays out). A name
        nobody listed ("md zelinsky aware", "j. okonkwo rrt") is found by its context alone; two such words are
        needed, or an initial with one, unless ``single`` (the context is strong enough for one word)."""
        full = [w for w in words if len(w.rstrip(".")) > 1]
        if not full or (len(full) < 2 and not single and len(full) == len(words)):
            return False
        for w in full:
            f = w.casefold()
            if (len(f) < 3 or not f.replace("'", "").replace("’", "").replace("-", "").isalpha()
                    or f in self.stop or f in self.common or f in self.cues or fold(w) in self.lexicon
                    or _service_word(f) or f in _NOT_AFTER_TITLE or f.endswith(_VERB_ENDINGS)
                    or self.allow.is_allowed(w)):
                return False
        return True

    def _words_before_bracket(self, text: str, m: re.Match[str]) -> list[tuple[int, int]]:
        """The words of ``m.group(1)`` (the words before a role or kinship word in brackets) from the first that can
        be part of a name: no word before the name ("... TAP...DICK ROE": "TAP") and no verb of calling ("pls
        page Anneliese (SW)")."""
        words = [(m.start(1) + w.start(), m.start(1) + w.end()) for w in _ANY_WORD.finditer(m.group(1))]
        while words and (not self._role_name_word(text[words[0][0]:words[0][1]])
                         or text[words[0][0]:words[0][1]].casefold() in _CALL_VERBS):
            words.pop(0)
        return words

    def _role_name_word(self, w: str) -> bool:
        """A word of a name before a role in brackets: name-like, or a listed first name that is no stop word."""
        return len(w.rstrip(".")) == 1 or self._name_like(w) or (
            fold(w) in self.first and w.casefold() not in self.stop and not _service_word(w.casefold()))

    def _after_title(self, w: str, cased: Callable[[], bool] | None = None, *, listed_only: bool = False) -> bool:
        """After "dr" / "doctor", a word of the big lexicon may still be a surname ("dr. chung", "DR. MAHN"): one
        that is no frequent word, no word of a note's clinical routine and not shaped like a verb or an adverb.
        English: a listed surname that is also a frequent word, written with a capital on a mixed-case line, is one
        too ("Dr. Young", "Dr. Hall")."""
        f = w.casefold()
        if self.lang == "en" and "-" in w and w.count("-") == 1 and not listed_only:
            # "dr vasquez-moll": a double-barrelled surname, its first part a surname after a title
            head, tail = w.split("-")
            return (len(tail) >= 2 and tail.isalpha() and self._after_title(head, cased)
                    and (self._after_title(tail) or fold(tail) in self.names))  # not "Dr. Rockwood-thinking"
        if (self.lang == "en" and cased is not None and len(f) >= 3 and w[:1].isupper() and w[1:].islower()
                and fold(w) in self.names and f not in self.stop and f not in _NOT_AFTER_TITLE
                and not _service_word(f) and cased()):
            return True
        if listed_only:
            return False
        return (len(f) >= 3 and f.isalpha() and f not in self.stop and f not in self.common and f not in self.cues
                and f not in _NOT_AFTER_TITLE and not f.endswith(("ed", "ing", "ly")) and not _service_word(f)
                and not self.allow.is_allowed(w))

    def _take(self, text: str, pos: int, *, initial_first: bool = False,
              title: bool = False, listed_title: bool = False) -> list[tuple[int, int]]:
        """The name words from ``pos`` (after a cue): up to three words, initials inside, stopping at the first
        word that is not name-like."""
        out: list[tuple[int, int]] = []
        def cased() -> bool:
            return _mixed_case_line(text, pos)

        i = pos
        while len(out) < 4:
            m = _ANY_WORD.match(text, i)
            if m is None:
                break
            w = m.group()
            initial = len(w.rstrip(".")) == 1
            if not out and self.lang == "en" and w.casefold() in _EN_DOTTED_TITLES and text[m.end():m.end() + 1] == ".":
                gap = re.match(r"\.[ \t]{1,2}", text[m.end():m.end() + 4])
                if gap is None:
                    break
                i = m.end() + gap.end()  # "Chaplain Br. Anselm", "chaplain fr. joe": the title is no name word
                continue
            if initial:
                if not out and not initial_first and text[m.end():m.end() + 1] not in ". ":
                    break
                out.append((m.start(), m.end()))
            elif self._name_like(w, cased) or (title and not out and self._after_title(w, cased)) or (
                    listed_title and not out and self._after_title(w, cased, listed_only=True)):
                # (after "NP" only a listed surname in Title case on a mixed-case line: "NP Winters", not "np cough")
                out.append((m.start(), m.end()))
            else:
                break
            gap = re.match(r"[ \t]{1,2}", text[m.end():m.end() + 3])
            if gap is None:
                break
            i = m.end() + gap.end()
        while out and len(text[out[-1][0]:out[-1][1]].rstrip(".")) == 1:
            out.pop()
        return out

    def analyze(self, text: str) -> list[Span]:
        if not self.cues:
            return []
        out: list[Span] = []
        for m in _cue_word_regex(self.lang).finditer(text):
            cue = m.group(1).casefold()
            label = self.cues.get(cue)
            if label is None and cue in ("per", "by"):
                label = "NAME"
            elif label is None and cue in _TWO_WORD_CUES:
                before = text[max(0, m.start() - 14):m.start()].casefold()
                if not any(first in before for first in _TWO_WORD_CUES[cue]):
                    continue
                if cue in _PATIENT_TWO_WORD_CUES and re.search(r"(?:baby|bb)[ \t]{1,2}\Z", before) is None:
                    continue  # "baby boy X", not "boy" somewhere after "baby"
                label = "NAME.PATIENT" if cue in _PATIENT_TWO_WORD_CUES else "NAME.RELATIVE"
            if label is None:
                continue
            punct = text[m.end(1):m.end()]
            if cue == "np" and _FLOW_BEFORE.search(text, max(0, m.start() - 12), m.start()):
                continue  # "O2 4L NP GOOD": nasal prongs, not a nurse practitioner
            if "." in punct and cue not in _DOT_CUES:
                continue  # "attorney. Legal work", "np. Instructed": a sentence's end, not an abbreviation's dot
            comma_listed = "," in punct and label != "NAME.RELATIVE"  # "MR , AI" (mitral regurgitation): a list
            if label == "NAME" and cue not in ("per", "by") and text[m.end():m.end() + 2].istitle():
                continue  # "Mrs. Lennox": the honorific pattern's (a lower-case "mr.renzi" is this one's)
            words = self._take(text, m.end(), initial_first=True, title=cue in ("dr", "drs", "doctor"),
                               listed_title=self.lang == "en" and cue == "np")
            if not words and label == "NAME.RELATIVE" and self.lang == "en":
                words = self._modal_name(text, m.end())  # "wife hope called", "Son Will agrees"
            if not words:
                continue
            first = text[words[0][0]:words[0][1]]
            if label == "NAME" and cue not in ("per", "by") and first[:1].isupper() and not first.isupper():
                continue  # "Mrs. Lennox": the honorific pattern's (a lower-case "mr.renzi" is this one's)
            if cue in ("per", "by"):
                # only "per d ross" / "per K. Abrams": an initial and a listed surname, or an initial and a
                # surname no list holds ("per d okonkwo"), or two such words ("per anneli okonkwo")
                said = [text[a:b] for a, b in words]
                if first.casefold() in ("a", "i"):
                    continue  # "by a creatnine", "per i": an article or a pronoun, not an initial
                if len(words) < 2 or not (
                        (len(first.rstrip(".")) == 1 and (self._known(said[1]) or self._unlisted(said[:2])))
                        or self._unlisted(said)):
                    continue
            elif cue in ("pt", "patient") and any(fold(text[a:b]) in self.lexicon for a, b in words):
                continue  # "pt fed today": after "pt" a word of the lexicon is a verb
            elif (cue in _WEAK_CUES or comma_listed) and not any(self._known(text[a:b]) for a, b in words) and (
                    cue in ("pt", "patient") or not self._unlisted([text[a:b] for a, b in words],
                                                                   single=self._told_after(text, words[-1][1]) or (
                                                                       first.istitle() and len(first) > 3
                                                                       and _mixed_case_line(text, m.end())))):
                # weak cues ("pt alert", "md aware", "rn at bedside"): a listed name must be among the words, or
                # words no list holds ("ho zelinsky notified", "rn, anneli okonkwo")
                continue
            elif cue == "rt" and not any(fold(text[a:b]) in self.first or fold(text[a:b]) not in self.lexicon
                                         for a, b in words):
                continue  # "RT HAND", "rt arm": "rt" is also "right", and a word of the lexicon is a body part
            if all(len(text[a:b].rstrip(".")) == 1 for a, b in words):
                continue
            out.append(Span(words[0][0], words[-1][1], label, f"{self.name}:cue", 0.7))
            out += self._more(text, words[-1][1], label)
        for m in _TALKED.finditer(text):  # "spoke with sarah", "updated john smith": a listed first name
            words = self._take(text, m.end())
            first = text[words[0][0]:words[0][1]] if words else ""
            said = [text[a:b] for a, b in words]
            if words and ((fold(first) in self.first and first.casefold() not in self.common
                           and not (first.isupper() and len(words) == 1)) or self._unlisted(said)):
                out.append(Span(words[0][0], words[-1][1], "NAME", f"{self.name}:talked", 0.6))
                out += self._more(text, words[-1][1], "NAME")
        if "(" in text:
            for m in _ROLE_AFTER.finditer(text):  # "DICK ROE (RESIDENT)", "spoke with jane (sw)"
                words = self._words_before_bracket(text, m)
                full = [text[a:b] for a, b in words if len(text[a:b].rstrip(".")) > 1]
                if full and all(self._role_name_word(w) for w in full):
                    out.append(Span(words[0][0], words[-1][1], "NAME.DOCTOR", f"{self.name}:role", 0.7))
        if "(" in text:
            for m in _KIN_AFTER.finditer(text):  # "JANE (SIGNIFICANT OTHER)"
                words = self._words_before_bracket(text, m)
                said = [text[a:b] for a, b in words]
                if said and ((any(self._known(w) for w in said) and all(self._role_name_word(w) for w in said))
                             or self._unlisted(said, single=True)):
                    out.append(Span(words[0][0], words[-1][1], "NAME.RELATIVE", f"{self.name}:kin", 0.7))
        for m in _SIGNATURE.finditer(text):
            words = [(m.start(1) + w.start(), m.start(1) + w.end()) for w in _ANY_WORD.finditer(m.group(1))]
            full = [text[a:b] for a, b in words if len(text[a:b].rstrip(".")) > 1]
            # a name line with a credential: Title-case words are names ("Jane Doe, RN")
            titled = all(w[:1].isupper() and not w.isupper() for w in full)
            ok = (all(w.casefold() not in self.stop for w in full) if titled
                  else all(self._name_like(w) for w in full))
            said = [text[a:b] for a, b in words]
            # an initial, then Title-case surnames, then the credential ("J. Wood RN", "M. Hope, RN"): a signature
            # even when the surname is a common word
            initialled = titled and len(said) > len(full) and len(said[0].rstrip(".")) == 1 and said[0][:1].isupper()
            # a line of its own, a listed first name first ("ROSEMARY STREET, RN", re-cased "Rosemary street"): a
            # surname that is also a word stays a surname
            if (not ok and self.lang == "en" and 2 <= len(full) == len(said) <= 3 and full[0][:1].isupper()
                    and not text[text.rfind("\n", 0, m.start(1)) + 1:m.start(1)].strip()
                    and fold(full[0]) in _en_first_names() and full[0].casefold() not in self.stop
                    and not any(w.casefold() in self.stop for w in full)):
                ok = True
            if full and ok and (initialled or any(self._known(w) or fold(w) in self.names for w in full)
                                or self._unlisted(said)):
                out.append(Span(words[0][0], words[-1][1], "NAME.DOCTOR", f"{self.name}:signature", 0.75))
        if self.lang == "en":
            out += self._end_signature(text)
            for m in _FIRST_THEN_RN.finditer(text):  # "report called to nadia rn on ...": a listed first name
                w = m.group(1)
                f = w.casefold()
                if (fold(w) in self.first and f not in self.stop and f not in self.common and f not in self.cues
                        and not self.allow.is_allowed(w) and not _service_word(f)):
                    out.append(Span(m.start(1), m.end(1), "NAME.DOCTOR", f"{self.name}:credential", 0.65))
        out += self._told(text)
        for m in _AGED.finditer(text):  # "anneli okonkwo is a 70 yr old female": the patient, by their age
            words = [(m.start(1) + w.start(), m.start(1) + w.end()) for w in _ANY_WORD.finditer(m.group(1))]
            said = [text[a:b] for a, b in words]
            j = words[0][0] if words else 0
            while j > 0 and text[j - 1] in " \t":
                j -= 1
            if said and (j == 0 or text[j - 1] in ".;:!?\n") and (
                    (any(self._known(w) for w in said) and all(self._name_like(w) for w in said))
                    or self._unlisted(said)):
                out.append(Span(words[0][0], words[-1][1], "NAME.PATIENT", f"{self.name}:aged", 0.65))
        if self.lang == "en" and _BED_LIST_HINT.search(text):
            out += self._bed_list(text)
        if "(" in text:
            for m in _QUOTED_NICKNAME.finditer(text):  # 'husband Ignatius ("Iggy")', 'WIFE PATRICIA ("PATTY")'
                if fold(m.group(1)) in self.names and self._name_like(m.group(2), True):
                    out.append(Span(*m.span(2), "NAME", f"{self.name}:nickname", 0.7))
        return out

    def _bed_list(self, text: str) -> list[Span]:
        """A sign-out or census list line: a room or bed number at the line's start, then the patient's surname
        (a first name before it, or an initial after it) and a colon, comma, dash or bracket ("Rm 12 - Lane: CHF",
        "Bed 4 Lane, R. on heparin", "RM 7: OKAFOR (FULL CODE)"). The number is the room, the words the patient,
        when a name list holds one of them or they are shaped like a surname no list holds; "Bed 3 - Empty",
        "Rm 2 - Isolation: ..." stay."""
        out: list[Span] = []
        for m in _BED_LIST.finditer(text):
            words = [(m.start("name") + w.start(), m.start("name") + w.end())
                     for w in _ANY_WORD.finditer(m.group("name"))]
            said = [text[a:b] for a, b in words if b - a > 1]
            if not said or not (all(self._bed_list_word(w) for w in said)
                                and not any(w.casefold() in self.stop for w in said)):
                continue
            if m.group("kind").casefold() in ("rm", "room"):  # a room's number; a bed's is none (care_sites)
                out.append(Span(m.start("room"), m.end("room"), "LOCATION.ROOM", f"{self.name}:bed_list", 0.7))
            out.append(Span(words[0][0], words[-1][1], "NAME.PATIENT", f"{self.name}:bed_list", 0.7))
        return out

    def _bed_list_word(self, w: str) -> bool:
        """A word of a list line's patient name; in lower case ("bed 4 - mcnulty - trach") only a listed name that
        is no word of the lexicon ("bed 3 - empty") or a word shaped like a surname that no list holds."""
        if w[:1].islower():
            return (fold(w) in self.names and fold(w) not in self.lexicon) or self._unlisted(w.split("-"), single=True)
        return self._known(w) or fold(w) in self.names or self._unlisted([w], single=True)

    def _end_signature(self, text: str) -> list[Span]:
        """The writer's name or initials that end a note, on a line of their own or after its last sentence: after
        a dash ("-- ellie", "--kp", "-ruth o.") one to three name words or initials, and without a dash initials
        alone ("... at 0600. jm": two letters), or one word and a credential ("GJ RN"). Initials are two or three
        letters that no lexicon, stop-word list or clinical allow-list holds; a word is name-like or a listed first
        name."""
        m = _END_SIGN.search(text, max(0, len(text) - 80))
        if m is None:
            return []
        words = [(m.start("name") + w.start(), m.start("name") + w.end()) for w in _ANY_WORD.finditer(m.group("name"))]
        said = [text[a:b] for a, b in words]
        full = [w for w in said if len(w.rstrip(".")) > 1]
        if not full:
            return []

        # initials after "--" or a dash written on them ("--kp", "-jm"; not a bullet "- abx") or before a credential
        # may be letters that a big lexicon holds ("kp", "bk"): no lexicon lists a person's initials
        dash = m.group("dash") or ""
        loose = dash.startswith("--") or (dash == "-") or bool(m.group("cred"))

        def initials(w: str) -> bool:
            f = w.casefold()
            return (2 <= len(f) <= 3 and f.isalpha() and (loose or fold(w) not in self.lexicon)
                    and f not in self.stop and f not in self.common and f not in self.cues
                    and not self.allow.is_allowed(w))

        if dash:
            ok = all(initials(w) or self._name_like(w) or (fold(w) in self.first and w.casefold() not in self.stop)
                     for w in full)
        elif m.group("cred"):
            ok = len(said) == 1 and (initials(said[0]) or fold(said[0]) in self.first)
        else:  # two letters alone, no dot ("... at 0600. jm"; not "... stable. VSS.")
            ok = len(said) == 1 and len(said[0]) == 2 and initials(said[0])
        if not ok:
            return []
        return [Span(words[0][0], words[-1][1], "NAME.DOCTOR", f"{self.name}:signature", 0.75)]

    def _modal_name(self, text: str, pos: int) -> list[tuple[int, int]]:
        """After a kinship word, a name that is also a modal verb or a verb of wishing ("may", "will", "hope"):
        a name only where the word after it cannot follow a modal verb: a finite verb ("wife hope called",
        "Son Will agrees", "son will is here"), a place or a state ("wife Hope at bedside", "son will aware"),
        or, a capital on a mixed-case line, the end of a clause ("son Will.").
        "son will call", "wife hope to", "daughter may come" stay words."""
        m = _ANY_WORD.match(text, pos)
        if m is None or m.group().casefold() not in _MODAL_NAMES:
            return []
        w = m.group()
        words = [(m.start(), m.end())]
        rest = self._take(text, m.end() + 1) if text[m.end():m.end() + 1] in (" ", "\t") else []
        if rest and all(text[a:a + 1].isupper() for a, _ in rest) and w[:1].isupper():
            words += rest  # "son Will Lane agrees"
        end = words[-1][1]
        if _FINITE_NEXT.match(text, end) is not None or _PLACE_NEXT.match(text, end) is not None:
            return words
        if (w[:1].isupper() and not w.isupper() and _CLAUSE_END.match(text, end) is not None
                and _mixed_case_line(text, pos)):
            return words
        return []

    @staticmethod
    def _told_after(text: str, end: int) -> bool:
        """Whether a word of being told follows ``end`` ("... aware", "... notified"): one unlisted word after a
        role is then enough ("md zelinsky aware")."""
        return _TOLD_NEXT.match(text, end) is not None

    def _more(self, text: str, end: int, label: str) -> list[Span]:
        """The further names of a list after a cue's name ("daughters sarah and emily", "Drs Smith and Jones"):
        each a listed first name or surname that is not a common word."""
        out: list[Span] = []
        for _ in range(4):
            m = _AND_MORE.match(text, end)
            if m is None:
                break
            words = self._take(text, m.end())
            if words and _CREDENTIAL_RX.match(text, words[0][0], words[0][1]):
                break  # "therapist Ruby Kwan, LMHC": a credential, not a further name
            if not words or not (any(self._known(text[a:b]) or (
                    text[a:a + 1].isupper() and text[a + 1:b].islower() and fold(text[a:b]) not in self.lexicon)
                    for a, b in words) or self._unlisted([text[a:b] for a, b in words], single=True)):
                # a listed name, a capitalised word that no lexicon holds ("Drs Pemberton and Ostrowski"), or
                # words no list holds ("daughters anneli and okonkwo")
                break
            if (self.lang == "en" and "," in m.group() and not re.search(r"(?i:and|&)", m.group()) and len(words) == 1
                    and not self._known(text[words[0][0]:words[0][1]])
                    and _LIST_ITEM_END.match(text, words[0][1]) is None):
                break  # "fellow dr. roe, hemostasis w/", "SON TERRENCE, ROSC AFTER": one unlisted word after a
                # comma is a list's name only where the list goes on or the clause ends ("Drs Roe, Okafor and Li")
            out.append(Span(words[0][0], words[-1][1], label, f"{self.name}:list", 0.65))
            end = words[-1][1]
        return out

    def _told(self, text: str) -> list[Span]:
        """One or two name words (an initial before them) right before a word of being told or coming ("grace
        dudak aware", "Z. MILLER AWARE"), at a sentence's start; one of them a listed name."""
        out: list[Span] = []
        for m in _TOLD_RX.finditer(text):
            k = m.start()
            before = _NAME_BEFORE.search(text, max(0, k - 50), k)
            if before is None:
                continue
            words = [(before.start(1) + w.start(), before.start(1) + w.end())
                     for w in _ANY_WORD.finditer(before.group(1))]
            full = [(a, b) for a, b in words if len(text[a:b].rstrip(".")) > 1]
            if not full or not all(self._name_like(text[a:b]) for a, b in full):
                continue
            if not any(self._known(text[a:b]) for a, b in full) and not self._unlisted(
                    [text[a:b] for a, b in words]):
                continue
            j = words[0][0]
            while j > 0 and text[j - 1] in " \t" and words[0][0] - j < 20:
                j -= 1
            if j > 0 and text[j - 1] not in ".;:!?\n-(":
                continue  # inside a sentence: "pt and family aware"
            out.append(Span(words[0][0], words[-1][1], "NAME", f"{self.name}:told", 0.6))
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


def _mixed_case_line(text: str, pos: int) -> bool:
    """Whether the line around ``pos`` is typed in mixed case (at least a third of its letters are lower case)."""
    lo = max(0, pos - 200)
    a = text.rfind("\n", lo, pos)
    a = a + 1 if a >= 0 else lo
    b = text.find("\n", pos, pos + 200)
    line = text[a:b if b >= 0 else min(len(text), pos + 200)]
    lower = len(_LOWER_CH.findall(line))
    return lower >= 3 and lower * 2 >= len(_UPPER_CH.findall(line))


_LOWER_CH = re.compile(r"[^\W\d_A-Z]")
_UPPER_CH = re.compile(rf"[{UPPER}]")


#: right before an "initial": the degree sign of "°C." or the first letter of an abbreviation ("z. B.", "u. a.")
_UNIT_OR_ABBR_BEFORE = re.compile(r"(?:°|(?<![\w.])[a-zäöü]\.[ \t]?)\Z")
#: names that collide with common words but are names after a cue ("son rob", "wife rose", "daughter pat")
_COLLISION_NAMES = frozenset(w.casefold() for w in COMMON_COLLISIONS.get("en", ()))
#: collisions that after a kinship word are still not a name ("daughter may come", "son will call")
_NOT_NAMES = frozenset(("may", "will", "june", "april", "august", "hope", "baby", "day", "doctor", "nurse",
                        "patient", "hospital", "care", "plan", "case", "head", "english", "monday", "tuesday",
                        "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february", "march",
                        "july", "september", "october", "november", "december", "general", "major", "chief",
                        "press", "carry", "long", "little", "small", "strong", "short", "best", "young"))
#: names that are also modal verbs or a verb of wishing, names after a kinship word only before a finite verb
_MODAL_NAMES = frozenset(("will", "may", "hope", "june", "april", "august"))  # months too: "wife june called"
#: a finite verb after a name (no modal verb comes before it): "is", "was", "has", a past tense, a third person
_FINITE_NEXT = re.compile(
    r"[ \t]{1,2}(?!(?i:this|his|hers|its|us|as|yes|thus|plus|less|unless|always|perhaps|towards|afterwards|"
    r"besides|across|news|needs|means)(?![\w'’]))"
    r"(?i:is|was|has|had|does|did|says|said|agreed|made|came|went|left|brought|took|gave|got|felt|told|knew|saw|"
    r"spoke|[a-z]{2,}[^e\W\d_]ed|[a-z]{2,}[^s\W\d_]s)(?![\w'’])")
_CLAUSE_END = re.compile(r"[ \t]{0,2}(?:[.;:,)]|\r?\n|\Z)")
#: a word after a name that no modal verb takes ("wife Hope at bedside", "son will here", "daughter may from Ohio")
_PLACE_NEXT = re.compile(r"[ \t]{1,2}(?i:at|in|from|here|present|aware|updated|@|w/)(?![\w'’])")
#: one to three words at a sentence's start, then "is a 70 yo", "was a 45 year old": the patient's name
_AGED = re.compile(r"(?<![\w'’.\-])((?:[^\W\d_][\w'’\-]{0,30}\.?[ \t]{1,2}){0,2}[^\W\d_][\w'’\-]{1,30})"
                   r"[ \t]{1,2}(?i:is|was)[ \t]{1,2}(?i:an?)[ \t]{1,2}\d{1,3}[ \t]?(?:-[ \t]?)?"
                   r"(?i:y/?o|y\.o\.|yo|yr|yrs|year|years)(?![\w])")
#: a sign-out or census list line: "Rm 12 - Lane: ...", "Bed 4 Lane, R. ...", "RM 7: OKAFOR (FULL CODE)"
#: a name, then a nickname in quotes in brackets ('Ignatius ("Iggy")', 'Whitfield ("Juniper" per parents)')
_QUOTED_NICKNAME = re.compile(r"(?<![\w'’])([^\W\d_][\w'’\-]{1,30})[ \t]{0,2}\([ \t]{0,2}[\"“']"
                              r"([^\W\d_][\w'’\-]{1,20})[\"”']")
_BED_LIST_HINT = re.compile(r"(?im)^[ \t]{0,4}(?:rm|room|bed|bd)\b")
_BED_LIST = re.compile(
    r"(?m)^[ \t]{0,4}(?P<kind>(?i:rm|room|bed|bd))\.?[ \t]{0,2}#?[ \t]{0,2}(?P<room>\d{1,4}[A-Da-d]?)"
    r"(?:[ \t]{0,2}[-–:][ \t]{0,2}|[ \t]{1,2})"
    r"(?P<name>[A-Za-z][A-Za-z'’]{1,30}(?:-[A-Za-z][A-Za-z'’]{1,30})?(?:[ \t]{1,2}[A-Z][A-Za-z'’]{1,30}"
    r"(?:-[A-Z][A-Za-z'’]{1,30})?)?(?:,[ \t]{0,2}[A-Z]\.(?=[ \t]))?)"
    # (then a colon, comma, dash or bracket, a word in lower case, or the age and sex: "bed 2 - Sun 45F SLE")
    r"(?=[ \t]{0,2}(?:[:,(\-–]|\r?$)|[ \t]{1,2}[a-z]|[ \t]{1,2}\d{1,3}[ \t]?(?:[MFmf]|yo|y/o)(?![\w/]))")
#: a word right before a nurse's credential inside a sentence ("report called to nadia rn on 4")
_FIRST_THEN_RN = re.compile(r"(?<![\w'’\-./])([^\W\d_]{3,30})[ \t]{1,2},?[ \t]{0,2}(?i:rn|lpn)(?![\w\-/])")
#: what follows the last word of a name in a list: a comma, a clause's end or "and" ("Drs Roe, Okafor and Li")
_LIST_ITEM_END = re.compile(r"[ \t]{0,2}(?:[,;.)]|\r?\n|\Z|(?i:and|&)(?![\w]))")
#: the last line or sentence of a note: a dash and name words, or initials alone, or a word and a credential
_END_SIGN = re.compile(r"(?:(?<=\n)|(?<=[.!?;][ \t]))[ \t]{0,20}(?P<dash>-{1,2}[ \t]{0,2})?"
                       r"(?P<name>[^\W\d_]{1,30}\.?(?:[ \t]{1,2}[^\W\d_]{1,30}\.?){0,2}?)"
                       rf"(?P<cred>,?[ \t]{{1,2}}(?i:{_CREDENTIALS}))?[ \t\r\n]{{0,20}}\Z")
_TOLD_NEXT = re.compile(r"[ \t]{1,2}(?:(?i:is|was|made|now|already)[ \t]{1,2})?"
                        r"(?i:aware|notified|paged|informed|called|updated|here|in|at[ \t]bedside|present|spoke|"
                        r"came|saw|ok'?d|agrees?|wants)(?![\w])")
#: endings of verbs and adverbs, not of surnames ("notifed" is a misspelt word, not a name)
_VERB_ENDINGS = ("ed", "ing", "ly", "tion", "ment", "ness")
_TOLD_RX = re.compile(r"(?<=[ \t])(?i:aware|notified|paged|informed)(?![\w])")
_NAME_BEFORE = re.compile(r"(?<![\w'’.\-])((?:[^\W\d_]\.?[ \t]{1,2})?[^\W\d_](?:['’][^\W\d_])?[^\W\d_'’]{1,30}"
                          r"(?:[ \t]{1,2}[^\W\d_](?:['’][^\W\d_])?[^\W\d_'’]{1,30})?)"
                          r"[ \t]{1,2}(?:,?[ \t]{0,2}(?i:md|np|pa|rn|ho|resident|intern|fellow|attending|rrt|rt)"
                          r"[ \t]{1,2})?(?:(?i:is|was|made|now|already)[ \t]{1,2})?\Z")


@memo
def _build(lang: str) -> tuple[Detector, ...]:
    pats = name_patterns(lang)
    rec = RuleRecognizer("names", "NAME", pats, postprocess=lambda text, spans: _trim(text, spans, lang))
    if lang in _CASELESS_CUES:
        return (rec, NameNeighbourRecognizer(lang), CaselessCueRecognizer(lang))
    return (rec, NameNeighbourRecognizer(lang))


def recognizers(lang: str) -> list[Detector]:
    """The context-pattern recognizer and the gazetteer-neighbour recognizer of ``lang`` (built once)."""
    return list(_build(check_language(lang, exact=True)))
