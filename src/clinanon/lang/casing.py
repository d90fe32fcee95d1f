"""Text typed in capitals: where a note has no case signal (:func:`caseless_regions`).

A pure function of the text, language-independent, shared by the note's analysis
(:attr:`clinanon.analysis.Analysis.caseless_regions`) and the rules (:mod:`clinanon.detect.caseless`, which re-cases
those regions before matching).
"""

from __future__ import annotations

import itertools
import re

__all__ = ["MIN_LETTERS", "MIN_LETTERS_WHOLE", "UPPER_SHARE", "caseless_regions"]

#: share of upper-case letters among the cased letters of a caseless line
UPPER_SHARE = 0.9
#: cased letters a caseless run of lines needs inside a text that also has mixed-case lines
MIN_LETTERS = 40
#: cased letters a text needs to be caseless as a whole
MIN_LETTERS_WHOLE = 6

_UPPER_CHARS = "A-Z" + "".join(c for c in map(chr, range(0xC0, 0x250)) if c.isupper() and len(c.lower()) == 1)
_LOWER_CHARS = "a-z" + "".join(c for c in map(chr, range(0xC0, 0x250)) if c.islower() and len(c.upper()) == 1)
_GREEK_CYR_UP = "\u0391-\u03a9\u0410-\u042f"
_GREEK_CYR_LO = "\u03b1-\u03c9\u0430-\u044f"
_UPPER_RX = re.compile(f"[{_UPPER_CHARS}{_GREEK_CYR_UP}]")
_LOWER_RX = re.compile(f"[{_LOWER_CHARS}{_GREEK_CYR_LO}]")
_LINE_RX = re.compile(r"[^\n]*\n?")
#: five / eight capitals on one line with no letter of the other case between them (a quick test that most
#: mixed-case texts fail; the gaps exclude capitals, so the match is linear)
_UP = f"[{_UPPER_CHARS}{_GREEK_CYR_UP}]"
_NOT_CASED = f"[^{_UPPER_CHARS}{_GREEK_CYR_UP}{_LOWER_CHARS}{_GREEK_CYR_LO}\\n]*"
_CAPS5 = re.compile(f"{_UP}(?:{_NOT_CASED}{_UP}){{4}}")
_CAPS8 = re.compile(f"{_UP}(?:{_NOT_CASED}{_UP}){{7}}")


def caseless_regions(text: str) -> list[tuple[int, int]]:
    """The caseless regions of ``text`` as sorted, disjoint ``(start, end)`` character ranges (line-aligned).

    Guarantees: ``[]`` for a text in which no run of lines has at least :data:`UPPER_SHARE` upper-case letters
    among its cased letters and :data:`MIN_LETTERS` cased letters (:data:`MIN_LETTERS_WHOLE` when the run is the
    whole text); lines without cased letters join the run around them but never start or end one. A run is found
    when one of its lines has eight capitals with no lower-case letter between them (five for a text caseless as
    a whole), which every caseless line of 40 letters has: a run of short lines only (``DR. X``) inside mixed-case
    text is not a region.

    Cost: most mixed-case texts are rejected by one regex search (no eight capitals in a row); otherwise, per line,
    a count of its capitals and a search for a few lower-case letters (a mixed-case line stops it at once).
    """
    first = _CAPS5.search(text)
    if first is None:  # no caseless line of 6 letters (at most 1 lower-case letter cuts 9 capitals: 5 in a row)
        return []
    if _CAPS8.search(text, first.start()) is None:
        # no line has eight capitals without a lower-case letter between them, so no caseless line has 40 letters
        # (at most 4 lower-case letters cut 36 capitals into groups, one of 8 or more); only a text caseless as a
        # whole may be left
        up = len(_UPPER_RX.findall(text))
        allowed = int(up * (1.0 - UPPER_SHARE) / UPPER_SHARE + 1e-9)
        if sum(1 for _ in itertools.islice(_LOWER_RX.finditer(text), allowed + 1)) > allowed:
            return []
    runs: list[tuple[int, int, int]] = []  # (start, end, cased letters)
    cur: list[int] | None = None  # [start, end, letters]
    mixed = False
    for m in _LINE_RX.finditer(text):
        a, b = m.span()
        if a == b:
            break
        up = len(_UPPER_RX.findall(text, a, b))
        if not up:
            if _LOWER_RX.search(text, a, b) is None:
                continue  # neutral: joins the run around it
            low = 1
        else:
            # the line is mixed as soon as it has more than `allowed` lower-case letters: count no further
            allowed = int(up * (1.0 - UPPER_SHARE) / UPPER_SHARE + 1e-9)
            low = sum(1 for _ in itertools.islice(_LOWER_RX.finditer(text, a, b), allowed + 1))
        if low * UPPER_SHARE <= up * (1.0 - UPPER_SHARE) + 1e-9:
            if cur is None:
                cur = [a, b, up + low]
            else:
                cur[1] = b
                cur[2] += up + low
        else:
            mixed = True
            if cur is not None:
                runs.append((cur[0], cur[1], cur[2]))
                cur = None
    if cur is not None:
        runs.append((cur[0], cur[1], cur[2]))
    if not mixed and len(runs) == 1:
        return [(runs[0][0], runs[0][1])] if runs[0][2] >= MIN_LETTERS_WHOLE else []
    return [(a, b) for a, b, n in runs if n >= MIN_LETTERS]
