"""Where the value of a form field or an address ends, short of its line end: at a sentence end or at the next
field label of the line.

``"Adress: Storgatan 5, Stockholm. Inkom med bröstsmärta"``: the address is ``Storgatan 5, Stockholm``; the
clinical text after the sentence end is not part of it. ``"Domicilio: C/ Mayor 5 Teléfono: 612 345 678"``: the
address stops before ``Teléfono:``.

A **sentence end** is ``.``, ``!`` or ``?`` followed by blanks and a capital letter (or an opening ``¿`` ``¡``
``"`` ``(``), where the dot does not close an abbreviation that addresses and names use in the five languages
(``Avda.``, ``Pza.``, ``C.``, ``Dr.``, ``Sta.``, ``St.``, ``Str.``, ``Nr.``, ``izq.``, any single letter: an
initial or a door) and a number's dot is not a German ordinal floor (``3. OG``, ``2. Stock``). A dot before a
digit (``C/ Mayor, 12. 28001 Madrid``) or a lower-case word never ends the value.

A **field label** is a capitalised word (or ``Word de Word``) followed by ``:`` and no digit (``Teléfono:``,
``E-mail:``, ``Fecha de ingreso:``), the shape :mod:`clinanon.detect.rules.fields` cuts values at.

Both scans are single passes of bounded patterns over the value (linear; no nested repetition).
"""

from __future__ import annotations

import re

__all__ = ["ABBREVIATIONS", "FIELD_LABEL", "next_label", "sentence_end", "value_end"]

#: words whose final dot is an abbreviation's, not a sentence end (case-folded, without the dot)
ABBREVIATIONS: frozenset[str] = frozenset((
    # street types and address parts (es, ca, gl, pt, it, fr)
    "avda", "avd", "av", "avenida", "pza", "plza", "pl", "pç", "ctra", "cra", "crta", "urb", "pje", "pol", "pg",
    "pº", "bº", "bo", "cl", "cll", "c", "cº", "trav", "rda", "gta", "edif", "edf", "bl", "blq", "bloq", "esc",
    "izq", "izqda", "izda", "dcha", "dch", "der", "drcha", "pta", "ptal", "pral", "entlo", "bj", "apto", "apt",
    "dpto", "depto", "dto", "of", "km", "nº", "no", "núm", "num", "n", "s", "sn", "ref", "loc", "pgno", "parc",
    "mz", "manz", "lt", "int", "ext", "pa", "pso", "psje", "cno", "bda", "ptda", "lg", "parr", "res", "conj", "sect",
    "cdad", "nvo", "nva", "ntra", "nstra", "ntro", "col", "fracc", "prol", "mpio", "edo", "prov", "ada",
    # titles and saints in street and place names
    "dr", "dra", "dres", "sr", "sra", "srta", "sres", "d", "dña", "dn", "da", "prof", "profa", "ldo", "lda",
    "gral", "gen", "hnos", "hno", "sta", "sto", "st", "ste", "mr", "mrs", "ms", "jr", "sen",
    # en, de, nl, sv
    "rd", "ave", "ln", "blvd", "ct", "hwy", "pkwy", "sq", "ter", "cir", "fl", "rm", "bldg", "po", "str",
    "nr", "hs", "whg", "geb", "bzw", "ca", "app", "lgh", "tr", "vån", "bv", "jhr", "mw", "dhr", "mevr", "ir",
    "ing", "med", "dipl", "univ", "priv", "doz", "dir", "abt", "etc", "tel", "fax",
))
#: floor and door words after a house or floor number ("3. OG", "2. Stock", "1. Bajo A", "2. Izq."); a single
#: letter after a number is a door ("3, 2. A")
_FLOORS = frozenset(("og", "eg", "ug", "dg", "stock", "etage", "obergeschoss", "untergeschoss", "geschoss",
                     "bajo", "bj", "piso", "planta", "pl", "puerta", "pta", "escalera", "esc", "bloque", "blq",
                     "portal", "ático", "atico", "entlo", "entresuelo", "principal", "pral", "izq", "izda", "izqda",
                     "dcha", "dch", "derecha", "izquierda", "centro", "apt", "apto", "apartment", "suite", "unit",
                     "floor", "fl", "hoog", "verdieping", "tr", "trappor", "vån", "våning", "lgh"))
_END = re.compile(r"[.!?](?=[ \t]{1,3}[¿¡\"«(]?[A-ZÁÉÍÓÚÑÜÇÀÈÌÒÙÏÄÖÅÆØÂÊÎÔÛËŠŽČŘ])")
_NEXT_WORD = re.compile(r"[ \t]{1,3}[¿¡\"«(]?([^\W_]{1,20})")
FIELD_LABEL = re.compile(  # as fields._GENERIC_LABEL: the look-behind after the first letter skips to capitals
    r"(?-i:[A-ZÁÉÍÓÚÑÄÖÜÅÀÈÌÒÙÇ])(?<![\w/].)[\wº°ª.-]{0,24}"
    r"(?:\s{1,2}(?:de|del|of|van|för|der|des|von|la|el|do|da)\s{1,2}[\wº°ª.-]{1,20})?\s{0,2}:(?![\d/])")


def sentence_end(text: str, start: int, end: int) -> int:
    """The offset of the first sentence end (its punctuation) in ``text[start:end]``, else ``end``."""
    for m in _END.finditer(text, start, end):
        i = m.start()
        if text[i] == ".":
            j, lo = i, max(start, i - 40)
            while j > lo and text[j - 1].isalnum():
                j -= 1
            word = text[j:i]
            if word:
                if word.isdigit():
                    nxt = _NEXT_WORD.match(text, i + 1)
                    if nxt is not None and (len(nxt.group(1)) == 1 or nxt.group(1).casefold() in _FLOORS):
                        continue
                elif len(word) == 1 or word.casefold() in ABBREVIATIONS:
                    continue
        return i
    return end


def next_label(text: str, start: int, end: int) -> int:
    """The offset of the first field label (``Teléfono:``) in ``text[start:end]`` that is not the value's first
    word, else ``end``."""
    m = FIELD_LABEL.search(text, start + 1, end) if end > start + 1 else None
    return m.start() if m is not None else end


def value_end(text: str, start: int, end: int) -> int:
    """Where a value starting at ``start`` and running at most to ``end`` (its line end) stops: the first sentence
    end or next field label, else ``end``."""
    return min(sentence_end(text, start, end), next_label(text, start, end))
