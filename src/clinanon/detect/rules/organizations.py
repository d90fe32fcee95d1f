"""Organizations (label ``LOCATION.ORGANIZATION``): companies by their legal or corporate suffix, and employers
after a work cue.

* ``suffix``: one to four capitalised words (``&`` and particles may join them) followed by a corporate suffix:
  ``Civic Impulse LLC``, ``Streetcred Software Inc.``, ``Siemens AG``, ``Philips B.V.``, ``Volvo AB``,
  ``Telefónica S.A.``, ``Allstate Insurance Group``, ``Loveland Technologies``. Suffixes that are also common
  nouns of clinical text (``Group``, ``Bank``, ``Systems``, ``Partners``) count only when the words before
  them are not common words ("Blood Bank", "Support Group" are not companies).
* ``employer``: one to four capitalised words after a work cue of the language: ``works at Citigroup``,
  ``employed by Rapid Cycle Solutions``, ``trabaja en Renfe``, ``werkt bij Philips``, ``arbetar på Volvo``,
  ``arbeitet bei Siemens``.

Spans are trimmed of common words at both ends (:func:`clinanon.detect.rules.names.common_words`). All
quantifiers are bounded and words are separated by required spaces (linear matching).
"""

from __future__ import annotations

import re
from functools import cache

from clinanon.detect.base import Detector
from clinanon.detect.rules.dates import LANGUAGES, RulePattern, RuleRecognizer
from clinanon.detect.rules.lexicon import trie_regex
from clinanon.detect.rules.names import CAPW, common_words
from clinanon.document import Span

__all__ = ["LABEL", "organization_patterns", "recognizers"]

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
              "Investments", "Brands", "Resources", "Publishing", "Entertainment")
_CONN = r"(?:&|and|und|en|och|y|of|de|del|für|voor|för)"
_SEQ = rf"{CAPW}(?:[ \t]{{1,2}}(?:{_CONN}[ \t]{{1,2}})?{CAPW}){{0,3}}"

_EMPLOYER_CUES: dict[str, str] = {
    "en": r"(?:[Ww]ork(?:s|ed|ing)?|[Jj]ob|[Ii]ntern(?:ed|ing)?|[Ee]mployed|[Vv]olunteer(?:s|ed|ing)?)"
          r"[ \t](?:at|for|by|with)"
          r"|[Ee]mployee[ \t]of|[Ee]mployer(?:[ \t]is)?:?|[Rr]etired[ \t]from|[Cc]ontractor[ \t](?:for|at)"
          r"|[Jj]oined",
    "es": r"(?:[Tt]rabaja(?:ba)?|[Tt]rabajó|[Ee]mplead[oa]|[Cc]ontratad[oa])[ \t](?:en|para|por|de)"
          r"|[Ee]mpresa:?",
    "nl": r"(?:[Ww]erkt|[Ww]erkte|[Ww]erkzaam|[Ii]n[ \t]dienst)[ \t](?:bij|voor)|[Ww]erkgever:?",
    "sv": r"(?:[Aa]rbetar|[Aa]rbetade|[Aa]nställd|[Jj]obbar|[Jj]obbade)[ \t](?:på|för|vid|hos)|[Aa]rbetsgivare:?",
    "de": r"(?:[Aa]rbeitet|[Aa]rbeitete|[Tt]ätig|[Bb]eschäftigt|[Aa]ngestellt)[ \t](?:bei|für)|[Aa]rbeitgeber:?",
}


@cache
def organization_patterns(lang: str) -> tuple[RulePattern, ...]:
    """The organization patterns of ``lang``, most specific first (the PHI group is the name)."""
    if lang not in _EMPLOYER_CUES:
        raise ValueError(f"unsupported language {lang!r}; expected one of: {', '.join(LANGUAGES)}")
    corporate = "|".join(sorted(_CORPORATE, key=len, reverse=True))
    return (
        # the triggers (the suffix / corporate word) let most texts skip these two patterns, which start with any
        # capitalised word
        RulePattern("legal_suffix", first="letter", score=0.85,
                    regex=rf"(?<![\w.])({_SEQ},?[ \t]{{1,2}}(?:{_LEGAL}))(?![\w])(?<!,)", group=1,
                    trigger=(rf"[ \t]{_LEGAL_START}", rf"[ \t](?:{_LEGAL})(?![\w])")),
        RulePattern("corporate_word", first="letter", score=0.7,
                    regex=rf"(?<![\w.])({_SEQ}[ \t]{{1,2}}(?:{corporate}))(?![\w])", group=1,
                    trigger=rf"(?:{corporate})(?![\w])"),
        RulePattern("employer", first="letter", score=0.75,
                    regex=rf"(?<![\w])(?:{_EMPLOYER_CUES[lang]})[ \t]{{1,2}}(?:the[ \t])?({_SEQ}"
                          rf"(?:,?[ \t]{{1,2}}(?:{_LEGAL}))?)(?![\w])", group=1),
    )


_CORPORATE_SET = frozenset(w.casefold() for w in _CORPORATE)
_LEGAL_RX = re.compile(rf"(?:{_LEGAL})$")
_WORD = re.compile(r"[^\s,]+")


def _trim(text: str, spans: list[Span], lang: str) -> list[Span]:
    """Spans without common words at their start (and, for employers, at their end); a corporate-word match
    needs a word before the corporate word that is not a common word."""
    common = common_words(lang)
    out = []
    for s in spans:
        words = [(m.start(), m.end()) for m in _WORD.finditer(text, s.start, s.end)]
        while words and text[words[0][0]:words[0][1]].casefold() in common:
            words.pop(0)
        if s.source.endswith(":employer"):
            while words and text[words[-1][0]:words[-1][1]].casefold() in common:
                words.pop()
        if not words:
            continue
        kept = [text[a:b] for a, b in words]
        if s.source.endswith(":corporate_word"):
            if len(kept) < 2 or all(w.casefold() in common or w.casefold() in _CORPORATE_SET for w in kept[:-1]):
                continue
        elif s.source.endswith(":legal_suffix") and (len(kept) < 2 or _LEGAL_RX.fullmatch(kept[0])):
            continue
        start, end = words[0][0], words[-1][1]
        out.append(s if (start, end) == (s.start, s.end) else Span(start, end, s.label, s.source, s.score))
    return out


@cache
def _build(lang: str) -> tuple[Detector, ...]:
    return (RuleRecognizer("org", LABEL, organization_patterns(lang),
                           postprocess=lambda text, spans: _trim(text, spans, lang)),)


def recognizers(lang: str) -> list[Detector]:
    """The organization recognizer of ``lang`` (built once per language)."""
    from clinanon.detect.rules.contacts import check_language

    return list(_build(check_language(lang)))
