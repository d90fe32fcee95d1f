"""Repairs of a trained model's spans that no clinician would accept, whatever corpus the model learned from.

A CRF or spaCy model labels what its training notes taught it; where those notes are silent it can make errors
that are wrong anywhere. :func:`repair_spans` fixes two such kinds, on character offsets of the original text
(nothing else changes):

* **a kinship word that names no person.** ``"familia"`` in ``"médico de familia"`` (the family physician),
  ``"familiares"`` in ``"antecedentes familiares"`` (family history), ``"family"`` in ``"family doctor"``: a span of
  category ``NAME.RELATIVE`` that lies inside such a phrase is dropped (Spanish and English; Dutch, German and
  Swedish write these as one word: "huisarts", "Familienanamnese", "familjeläkare");
* **an institution name that runs into the address after it.** A ``LOCATION.HOSPITAL`` or
  ``LOCATION.ORGANIZATION`` span that goes on past a street-type word (``"Hospital Virgen de la Arrixaca Ctra"``,
  before ``". Madrid - Cartagena s/n"``), a floor (``"Hospital Morales Meseguer 2ª planta"``) or a postcode label
  ends before it.

The ensemble applies it to every member but the rules (whose recognizers check this themselves), and once more
after name propagation (which copies a string to its other mentions, "familia" included).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cache

from clinanon.document import Span
from clinanon.taxonomy import category_matches

__all__ = ["repair_spans"]

#: phrases in which a kinship word names no person; group 1 is the kinship word
_NOT_A_RELATIVE: dict[str, tuple[str, ...]] = {
    "es": (
        r"\bm[ée]dic[oa]s?\s+(?:especialistas?\s+)?de\s+(familia)\b",
        r"\bmedicina\s+(familiar)\b",
        r"\bmedicina\s+de\s+(familia)\b",
        r"\bplanificaci[óo]n\s+(familiar)\b",
        r"\bantecedentes(?:\s+(?:personales|m[ée]dicos|psiqui[áa]tricos|patol[óo]gicos|oncol[óo]gicos|y|e))*"
        r"\s+(familiares)\b",
        r"\bhistoria\s+(familiar)\b",
    ),
    "en": (
        r"\b(family)\s+(?:doctor|physician|medicine|practice|practitioner|planning|history|practices)\b",
        r"\b(familial)\b",
    ),
}

#: a floor ("2ª planta", "4ª Planta", "planta 3") or a postcode label ("Código Postal", "C.P."), after a name
_FLOOR = (r"\d{1,2}\s?[ªº°]\s?(?i:planta|piso)\b|(?i:planta|piso)\s+\d{1,2}\b"
          r"|C[óo]digo\s+[Pp]ostal\b|C\.\s?P\.")


@cache
def _relative_rx(lang: str) -> re.Pattern[str] | None:
    parts = _NOT_A_RELATIVE.get(lang)
    return re.compile("|".join(f"(?:{p})" for p in parts), re.IGNORECASE) if parts else None


@cache
def _tail_rx() -> re.Pattern[str]:
    from clinanon.detect.rules.addresses import STRONG_STREET_TYPES

    types = "|".join(re.escape(t) for t in sorted(set(STRONG_STREET_TYPES), key=len, reverse=True))
    # a street type as a word of its own (not "Av" inside "Avila"), or a floor
    return re.compile(rf"(?<=\s)(?:(?:{types})(?![^\W\d_])|{_FLOOR})")


def _not_relative_regions(text: str, lang: str) -> list[tuple[int, int]]:
    rx = _relative_rx(lang)
    if rx is None:
        return []
    out = []
    for m in rx.finditer(text):
        g = next(i for i in range(1, (rx.groups or 0) + 1) if m.start(i) >= 0)
        out.append(m.span(g))
    return out


def repair_spans(text: str, spans: Iterable[Span], lang: str, category_of: Callable[[str], str]) -> list[Span]:
    """``spans`` (of ``text``) with the repairs of the module docstring; ``category_of`` maps a span label to its
    canonical category. Spans are returned in their input order; a trimmed span keeps its label, source, score."""
    spans = list(spans)
    relatives: list[tuple[int, int]] | None = None
    out: list[Span] = []
    for s in spans:
        cat = category_of(s.label)
        if category_matches(cat, "NAME.RELATIVE"):
            if relatives is None:
                relatives = _not_relative_regions(text, lang)
            if any(a <= s.start and s.end <= b for a, b in relatives):
                continue
        elif category_matches(cat, "LOCATION.HOSPITAL") or category_matches(cat, "LOCATION.ORGANIZATION"):
            m = _tail_rx().search(text, s.start + 1, min(len(text), s.end + 2))  # "Ctra." ends past the span
            if m is not None and m.start() < s.end:
                end = m.start()
                while end > s.start and (text[end - 1].isspace() or text[end - 1] in ",.;:-"):
                    end -= 1
                if end - s.start < 3 or " " not in text[s.start:end].strip():
                    out.append(s)  # nothing of a name would be left: keep the model's span
                    continue
                s = Span(s.start, end, s.label, s.source, s.score)
        out.append(s)
    return out
