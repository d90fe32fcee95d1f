"""Organizations (label ``LOCATION.ORGANIZATION``): companies by their legal or corporate suffix, and employers
after a work cue.

* ``suffix``: one to four capitalised words (``&`` and particles may join them) followed by a corporate suffix:
  ``Civic Impulse LLC``, ``Streetcred Software Inc.``, ``Siemens AG``, ``Philips B.V.``, ``Volvo AB``,
  ``Telefónica S.A.``, ``Allstate Insurance Group``, ``Loveland Technologies``. Suffixes that are also common
  nouns of clinical text (``Group``, ``Bank``, ``Systems``, ``Partners``) count only when the words before
  them are not common words ("Blood Bank", "Support Group" are not companies).
* ``institution_of``: "University of Michigan", "Bank of America" (the part after "of" not a common word);
* :class:`AmpersandRecognizer`: "Johnson & Johnson", "Marks & Spencer" (one side a known first name or surname);
* ``address_of`` (English): capitalised words after "the address of" ("The address of Persint is ...");
* ``employer``: one to four capitalised words after a work cue of the language (also "N years at"):
  ``works at Citigroup``, ``employed by Rapid Cycle Solutions``, ``trabaja en Renfe``, ``werkt bij Philips``,
  ``arbetar på Volvo``, ``arbeitet bei Siemens``.

Spans are trimmed of common words at both ends (:func:`clinanon.lang.lexicon.common_words`). All
quantifiers are bounded and words are separated by required spaces (linear matching).
"""

from __future__ import annotations

import re

from clinanon.caches import memo
from clinanon.detect.base import Detector
from clinanon.detect.rules.dates import RulePattern, RuleRecognizer
from clinanon.detect.rules.lexicon import trie_regex
from clinanon.detect.rules.names import CAPW
from clinanon.document import Document, Span
from clinanon.lang import LANGUAGES, check_language
from clinanon.lang.fold import fold
from clinanon.lang.lexicon import common_lexicon, common_words, name_sets, trigger_words

__all__ = ["LABEL", "AmpersandRecognizer", "organization_patterns", "recognizers"]

LABEL = "LOCATION.ORGANIZATION"

#: legal-form suffixes: never common words
_LEGAL = (r"Inc\.?|INC\.?|Incorporated|LLC|L\.L\.C\.|LLP|Ltd\.?|LTD\.?|Limited|PLC|plc|Corp\.?|Corporation|Co\."
          r"|GmbH|AG|KG|OHG|e\.V\.|gGmbH|B\.V\.|BV|N\.V\.|NV|AB|Oy|Oyj|A/S|ApS|AS|ASA|S\.A\.|S\.L\.|S\.A\.U\."
          r"|SpA|S\.p\.A\.|S\.r\.l\.|Srl|SRL|SARL|SAS|Pty(?:[ \t]Ltd\.?)?|Sp\.[ \t]z[ \t]o\.o\.")
#: what each legal form starts with, as a trie (a quick first test before the exact one)
_LEGAL_START = trie_regex(("Inc", "INC", "LLC", "L.L", "LLP", "Ltd", "LTD", "Limited", "PLC", "plc", "Corp", "Co.",
                           "GmbH", "AG", "KG", "OHG", "e.V", "gGmbH", "B.V", "BV", "N.V", "NV", "AB", "Oy", "A/S",
                           "ApS", "AS", "S.A", "S.L", "SpA", "S.p", "S.r", "Srl", "SRL", "SARL", "SAS", "Pty", "Sp."))
#: corporate words that end a company name; weak ones need a non-common word before them
_CORPORATE = ("Technologies", "Technology", "Solutions", "Software", "Systems", "Holdings", "Holding", "Group",
              "Partners", "Associates", "Insurance", "Capital", "Consulting", "Industries", "Enterprises",
              "Networks", "Analytics", "Pharmaceuticals", "Pharma", "Therapeutics", "Biosciences", "Bioscience",
              "Ventures", "Logistics", "Foods", "Motors", "Airlines", "Bank", "Bancorp", "Markets", "Media",
              "Energy", "Telecom", "Communications", "Electronics", "Robotics", "Dynamics", "Semiconductor",
              "Investments", "Brands", "Resources", "Publishing", "Entertainment", "International",
              "Worldwide", "Labs", "Laboratories", "Studios", "Agency", "Consultants", "Airways", "Trust", "Orchestra",
              "Philharmonic")
#: institutions named "X of Y" ("University of Michigan", "Bank of America"); Y must not be a common word
_OF_HEADS = ("University", "College", "Institute", "Academy", "Bank", "Universidad", "Universiteit", "Universität",
             "Universitet")
_CONN = r"(?:&|and|und|en|och|y|of|de|del|für|voor|för)"
_SEQ = rf"{CAPW}(?:[ \t]{{1,2}}(?:{_CONN}[ \t]{{1,2}})?{CAPW}){{0,3}}"

_EMPLOYER_CUES: dict[str, str] = {
    "en": r"(?:[Ww]ork(?:s|ed|ing)?|[Jj]ob|[Ii]ntern(?:ed|ing)?|[Ee]mployed|[Vv]olunteer(?:s|ed|ing)?)"
          r"[ \t](?:at|for|by|with)"
          r"|[Ee]mployee[ \t]of|[Ee]mployer(?:[ \t]is)?:?|[Rr]etired[ \t]from|[Cc]ontractor[ \t](?:for|at)"
          r"|[Jj]oined|(?:[Yy]ears?|[Mm]onths?)[ \t](?:working[ \t])?at",
    "es": r"(?:[Tt]rabaja(?:ba)?|[Tt]rabajó|[Ee]mplead[oa]|[Cc]ontratad[oa])[ \t](?:en|para|por|de)"
          r"|[Ee]mpresa:?",
    # ("werkt als monteur bij Tata Steel": a job between the verb and "bij")
    "nl": r"(?:[Ww]erkt|[Ww]erkte|[Ww]erkzaam|[Ii]n[ \t]dienst)(?:[ \t]als[ \t][^\W\d_]{2,30})?[ \t](?:bij|voor)"
          r"|[Ww]erkgever:?",
    "sv": r"(?:[Aa]rbetar|[Aa]rbetade|[Aa]nställd|[Jj]obbar|[Jj]obbade)[ \t](?:på|för|vid|hos)|[Aa]rbetsgivare:?",
    "de": r"(?:[Aa]rbeitet|[Aa]rbeitete|[Tt]ätig|[Bb]eschäftigt|[Aa]ngestellt)[ \t](?:bei|für)|[Aa]rbeitgeber:?",
}


#: "the address of X": X is the organization (or person) whose address follows
_ADDRESS_OF: dict[str, str] = {"en": r"[Aa]ddress(?:es)?[ \t]of(?:[ \t]the)?"}


@memo
def organization_patterns(lang: str) -> tuple[RulePattern, ...]:
    """The organization patterns of ``lang``, most specific first (the PHI group is the name)."""
    if lang not in _EMPLOYER_CUES:
        raise ValueError(f"unsupported language {lang!r}; expected one of: {', '.join(LANGUAGES)}")
    corporate = "|".join(sorted(_CORPORATE, key=len, reverse=True))
    address_of = (RulePattern("address_of", first="letter", score=0.6,
                              regex=rf"(?<![\w])(?:{_ADDRESS_OF[lang]})[ \t]{{1,2}}({_SEQ})(?![\w])", group=1),
                  ) if lang in _ADDRESS_OF else ()
    return (
        # the triggers (the suffix / corporate word) let most texts skip these two patterns, which start with any
        # capitalised word
        RulePattern("legal_suffix", first="letter", score=0.85,
                    regex=rf"(?<![\w.])({_SEQ},?[ \t]{{1,2}}(?:{_LEGAL}))(?![\w])(?<!,)", group=1,
                    trigger=(rf"[ \t]{_LEGAL_START}", rf"[ \t](?:{_LEGAL})(?![\w])")),
        RulePattern("corporate_word", first="letter", score=0.7,
                    regex=rf"(?<![\w.])({_SEQ}[ \t]{{1,2}}(?:{corporate}))(?![\w])", group=1,
                    # (the same words as a trie: the same texts have a match, found faster)
                    trigger=rf"{trie_regex(_CORPORATE)}(?![\w])"),
        RulePattern("institution_of", first="letter", score=0.75,
                    regex=rf"(?<![\w])((?:{'|'.join(_OF_HEADS)})[ \t]of[ \t](?:the[ \t])?{_SEQ})(?![\w])", group=1),
        *address_of,
        RulePattern("employer", first="letter", score=0.75,
                    regex=rf"(?<![\w])(?:{_EMPLOYER_CUES[lang]})[ \t]{{1,2}}(?:the[ \t])?({_SEQ}"
                          rf"(?:,?[ \t]{{1,2}}(?:{_LEGAL}))?)(?![\w])", group=1),
    )


_CORPORATE_SET = frozenset(w.casefold() for w in _CORPORATE)
_LEGAL_RX = re.compile(rf"(?:{_LEGAL})$")
#: legal forms that are also words or abbreviations in capitals ("AS NEEDED", "AB", "AG", "NV", "CO.")
_WORD_LIKE_LEGAL = frozenset(("AS", "AB", "AG", "KG", "NV", "BV", "SAS", "ASA", "CO.", "INC", "INC.", "OY"))
_WORD = re.compile(r"[^\s,]+")
#: a grade after "KG" in a German note ("KG 4/5", "KG 3-"): Kraftgrad
_DE_GRADE_AFTER = re.compile(r"[ \t]{0,2}\d")
#: a grade after an eponymous pair ("Hunt & Hess III", "Hunt & Hess 2"): a clinical scale, not a firm
_SCALE_GRADE_AFTER = re.compile(r"[ \t]{1,2}(?:[IV]{1,4}|\d{1,2})(?![\w])")


def _trim(text: str, spans: list[Span], lang: str) -> list[Span]:
    """Spans without common words at their start (and, for employers, "address of X" and "X of Y" institutions,
    at their end); a
    corporate-word match needs a word before the corporate word that is not a common word; "X of Y" needs a Y
    that is not a common word ("School of Medicine" is not kept)."""
    common = common_words(lang)
    out = []
    for s in spans:
        words = [(m.start(), m.end()) for m in _WORD.finditer(text, s.start, s.end)]
        institution = s.source.endswith(":institution_of")  # its head word ("University") is a common word
        while words and not institution and text[words[0][0]:words[0][1]].casefold() in common:
            words.pop(0)
        if s.source.endswith((":employer", ":address_of")):
            while words and text[words[-1][0]:words[-1][1]].casefold() in common:
                words.pop()
        if not words:
            continue
        kept = [text[a:b] for a, b in words]
        if institution:  # "University of Michigan Health": trailing common words go; one other word must stay
            while len(words) > 2 and text[words[-1][0]:words[-1][1]].casefold() in common:
                words.pop()
            kept = [text[a:b] for a, b in words]
            if len(kept) < 3 or kept[-1].casefold() in common:
                continue
        elif s.source.endswith(":corporate_word"):
            if len(kept) < 2 or all(w.casefold() in common or w.casefold() in _CORPORATE_SET for w in kept[:-1]):
                continue
        elif s.source.endswith(":legal_suffix") and (
                len(kept) < 2 or _LEGAL_RX.fullmatch(kept[0])
                or (kept[-1] in _WORD_LIKE_LEGAL and " ".join(kept).isupper())):
            continue  # "DIURESE AS NEEDED", "GTTS AS ABOVE": in text typed in capitals "AS" is the word
        elif lang == "en" and s.source.endswith(":legal_suffix") and kept[-1] in _WORD_LIKE_LEGAL | {"ASA"} \
                and all(fold(w) in common_lexicon(lang) for w in kept[:-1]):
            continue  # "Took ASA 324 mg": aspirin after a verb, not a Norwegian company
        if lang == "de" and kept[-1] == "KG" and _DE_GRADE_AFTER.match(text, words[-1][1]):
            continue  # "Fußheberschwäche KG 4/5": a muscle strength grade (Kraftgrad), not a limited partnership
        start, end = words[0][0], words[-1][1]
        out.append(s if (start, end) == (s.start, s.end) else Span(start, end, s.label, s.source, s.score))
    return out


def _known_name(word: str, lang: str) -> bool:
    """``word`` is a first name or surname of the gazetteer of ``lang`` (common words excluded)."""
    first, sur = name_sets(lang)
    w = fold(word)
    return w in first or w in sur


#: "Johnson & Johnson", "Marks & Spencer" (a capitalised word on each side of "&")
_AMPERSAND = re.compile(r"&")
_AMP_LEFT = re.compile(rf"(?<![\w.])({CAPW})[ \t]{{0,2}}\Z")
_AMP_RIGHT = re.compile(rf"[ \t]{{0,2}}({CAPW})(?![\w])")


class AmpersandRecognizer:
    """Two capitalised words joined by ``&`` (``LOCATION.ORGANIZATION``, score 0.7) when neither is a common word
    and one is a known first name or surname of the language: "Johnson & Johnson", "Marks & Spencer"; not
    "Nose & Throat", "Sodium & Potassium". Texts without "&" cost one ``in`` test."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.name = "org"

    def analyze(self, text: str) -> list[Span]:
        if "&" not in text:
            return []
        common = common_words(self.lang)
        kin = trigger_words(self.lang, "kin")
        out = []
        for m in _AMPERSAND.finditer(text):
            left = _AMP_LEFT.search(text, max(0, m.start() - 40), m.start())
            right = _AMP_RIGHT.match(text, m.end())
            if left is None or right is None:
                continue
            pair = (left.group(1), right.group(1))
            if (any(w.casefold() in common or fold(w) in kin for w in pair)
                    or not any(_known_name(w, self.lang) for w in pair)):
                continue  # "Nose & Throat"; "SISTER & CHARLIE" (a relative and a name, not a firm)
            if self.lang == "de" and _SCALE_GRADE_AFTER.match(text, right.end()):
                continue  # "Subarachnoidalblutung Hunt & Hess III": a scale and its grade
            out.append(Span(left.start(1), right.end(1), LABEL, f"{self.name}:ampersand", 0.7))
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


#: the last words of an English organisation's name that say what it is ("Northfield Family Medicine", "Greenbriar
#: Pharmacy", "Crestview Manor", "Riverbend OB/GYN", "Hollis & Baird Funeral Home"): Title case or capitals
_ORG_HEADS = (
    "Home Care", "Homecare", "Home Health", "Home Health Care", "Home Dialysis", "Institute", "Orthopaedics",
    "Orthopedics", "Imaging", "Radiology", "Pediatrics", "Paediatrics", "Family Medicine", "Internal Medicine",
    "Adult Medicine", "Family Practice", "Primary Care", "Urgent Care", "Dental", "Dentistry", "Transport",
    "Transportation", "Transit", "Pharmacy", "Drugs", "Apothecary", "School", "Academy", "Manor", "Assisted Living",
    "Senior Living", "Nursing Center", "Nursing Home", "Funeral Home", "Funeral Services", "Heart & Vascular",
    "Savings Bank", "Bank", "Credit Union", "YMCA", "YWCA", "OB/GYN", "OBGYN", "Women's Health", "Dialysis Center",
    "Dialysis", "Infusion Services", "Cancer Center", "Cancer Institute", "Breast Center", "Lung Center",
    "Heart Center", "Kidney Center", "Wellness Center", "Surgery Center", "Surgical Center", "Health Center",
    "Medical Group", "Medical Associates", "Lumber", "Freight Lines", "Maternal-Fetal Medicine", "Church",
    "Nursing & Rehabilitation", "Rehabilitation & Nursing Center", "Care Center", "Physical Therapy",
    "Counseling", "Counselling", "Counseling Center", "Counseling Services", "Behavioral Health", "Medical Supply",
    "Medical Supplies", "Medical Equipment", "Freight", "Trucking", "Oncology", "& Sons",
    # employers and suppliers by their trade ("Red Earth Drilling", "Northstar Plastics", "Heartland Oxygen",
    # "Big Sky Air", "Meridian Staffing"), written from the trades of rural and industrial patients
    "Drilling", "Well Service", "Well Services", "Oilfield Services", "Marine", "Plastics", "Packing", "Oxygen",
    "Staffing", "Home Medical", "Coal", "Beef", "Orchards", "Roofing", "Electric", "Masonry", "Paving",
    "Poultry", "Mining", "Energy", "Logistics", "Construction", "Builders", "Contracting", "Landscaping",
    "Plumbing", "Excavating", "Foods", "Dairy", "Manufacturing", "Industries", "Steel", "Concrete", "Tool & Die",
    "Welding", "Timber", "Air Ambulance", "Air Medical", "Wings")
_ORG_HEAD_RX = re.compile(
    r"(?<=[ \t])(?:" + "|".join(sorted({re.escape(h).replace("\\ ", "[ \t]") for h in _ORG_HEADS}
                                         | {re.escape(h.upper()).replace("\\ ", "[ \t]") for h in _ORG_HEADS},
                                         key=len, reverse=True)) + r")(?![\w\-/'’])")
#: heads written in capitals in any note ("Amherst YMCA")
_ORG_ACRONYMS = frozenset(("YMCA", "YWCA", "OB/GYN", "OBGYN"))
#: the word before a head or before another name word (Title case or capitals; "Tri-County", "O'Neil", "St.")
_ORG_LAST_WORD = re.compile(r"(?<![\w'’\-./])([A-Z](?:['’]?[A-Za-z]){0,30}(?:-[A-Z][A-Za-z]{1,30})?\.?)"
                            r"(?:[ \t]{1,2}&)?[ \t]{1,2}\Z")
#: words that name a kind of care or a specialty, not a place or a person ("Adult", "Pediatric", "Outpatient")
_ORG_GENERIC = re.compile(
    r"[a-z]*(?:ology|ologic|iatric|iatrics|pedic|paedic|pedics|paedics)|adult|general|outpatient|inpatient|"
    r"community|local|regional|the|our|your|his|her|their|a|an|and|or|of|at|to|from|for|by|with|in|on|per|via|"
    r"family|primary|urgent|internal|medical|surgical|public|private|state|county|city|national|elementary|"
    r"middle|high|charter|catholic|christian|new|old|this|that|same|any|home|nursing|senior|women's|pcp|dr|"
    r"dr.|mr|mrs|ms|seen|sent|called|call|per|labs|lab|refer|referred|referral|pharmacy|school|clinic|"
    r"transport|transfer|discharge|discharged|admit|admitted|followed|follow|f/u|fu|appt|appointment|visit|"
    r"agency|facility|site|from|to|note|report|attends|attending|works|worked|employer|ordering|location|"
    r"sending|receiving|pt|patient|retired|daily")


class OrgHeadRecognizer:
    """English organisations named by one to four words before a head that says what they are: "Northfield
    Family Medicine", "Greenbriar Pharmacy", "Crestview Manor", "Amherst YMCA", "GULF COAST IMAGING"
    (``LOCATION.ORGANIZATION``, score 0.7). The words are Title case before a Title-case head, capitals before a
    head in capitals (a title in capitals before a Title-case name is not part of it); words that name a kind of
    care or a specialty ("Adult Urgent Care", "Pediatric Dental") or a cue ("seen at", "PCP") start no name, and
    a name needs at least one word outside the common lexicon or two Title-case words ("Maple Grove"). Matching
    finds the heads and looks back a bounded window from each (linear in the text length)."""

    def __init__(self) -> None:
        self.name = "org"

    def analyze(self, text: str) -> list[Span]:
        out: list[Span] = []
        lexicon = common_lexicon("en")
        for h in _ORG_HEAD_RX.finditer(text):
            caps = None if h.group() in _ORG_ACRONYMS else h.group().isupper()  # "Amherst YMCA", "ALBANY YMCA"
            back: list[tuple[int, int]] = []
            i = h.start()
            while len(back) < 4:
                m = _ORG_LAST_WORD.search(text, max(0, i - 40), i)
                if m is None:
                    break
                w = m.group(1).rstrip(".")
                if caps is None:
                    caps = w.isupper()
                if (not w.isupper()) if caps else (w.isupper() and len(w) > 2):
                    break  # "ED NOTE  Maple Grove Urgent Care": a title in capitals is no part of the name
                back.insert(0, (m.start(1), m.end(1)))
                i = m.start(1)
            while back and _ORG_GENERIC.fullmatch(text[back[0][0]:back[0][1]].casefold().rstrip(".")):
                back.pop(0)
            if not back:
                continue
            said = [text[a:b].rstrip(".") for a, b in back]
            if not any(fold(w) not in lexicon or _known_name(w, "en") for w in said) and len(said) < 2:
                continue  # "Bright Dental": one word of the lexicon is no name
            if all(_ORG_GENERIC.fullmatch(w.casefold()) for w in said):
                continue
            out.append(Span(back[0][0], h.end(), LABEL, f"{self.name}:head", 0.7))
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


@memo
def _build(lang: str) -> tuple[Detector, ...]:
    heads = (OrgHeadRecognizer(),) if lang == "en" else ()
    return (RuleRecognizer("org", LABEL, organization_patterns(lang),
                           postprocess=lambda text, spans: _trim(text, spans, lang)), AmpersandRecognizer(lang),
            *heads)


def recognizers(lang: str) -> list[Detector]:
    """The organization recognizer of ``lang`` (built once per language)."""
    return list(_build(check_language(lang, exact=True)))
