"""The note as the detectors read it: invisible characters removed, look-alike characters folded, and a map back.

A name typed (or pasted, or forged) as ``"Gar\\u200bcía"`` -- a zero-width space inside it -- is no longer the
word ``García`` for a pattern, a gazetteer or a tagger; nor is ``"Garc\\u00adía"`` (a soft hyphen), ``"Ana\\u00a0
Ruiz"`` (a non-breaking space, where the name patterns expect a space), ``"Gаrcía"`` (a Cyrillic ``а``) or
``"Ｇａｒｃíａ"`` (fullwidth letters). :func:`detection_view` returns the :class:`DetectionView` of a text:

* **removed**: the invisible format characters -- zero-width space, joiners (ZWJ, ZWNJ, word joiner, combining
  grapheme joiner), soft hyphen, byte-order marks inside the text, bidirectional controls (LRM, RLM, embeddings,
  overrides, isolates, the Arabic letter mark), variation selectors, tag characters, the invisible operators and
  the Hangul and Mongolian fillers;
* **folded, one character for one**: the Unicode spaces (no-break, narrow no-break, en/em/thin/hair ...,
  ideographic) to ``" "``, the line and paragraph separators to ``"\\n"``; fullwidth ASCII forms and the
  mathematical alphanumeric letters to ASCII; the Cyrillic and Greek letters that look like Latin ones, inside a
  word that has a Latin letter or is made of such look-alikes only (``"Иванов"`` stays Cyrillic); a letter with
  combining accents to its composed form (``"i\\u0301"`` -> ``"í"``, the accent removed) where Unicode has one.

Only characters are removed or replaced one for one, so the map between the two texts is a list of removed
positions: :meth:`DetectionView.to_original` turns a span of the view into the span of the original text that
covers the same characters **and the invisible ones between them** (a name's span covers the zero-width space
inside it, so an operator that replaces the span replaces it too; combining marks that follow the span's last
letter are covered as well). A text with none of these characters is its own view (``view.text is text``), found
by one scan of a compiled character class; nothing else is computed for it.

Layering: ground floor (no clinanon imports).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

__all__ = ["CONFUSABLES", "INVISIBLE", "DetectionView", "detection_view"]

#: invisible characters that the view drops (ranges, inclusive)
INVISIBLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul choseong / jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels (invisible)
    (0x180B, 0x180F),  # Mongolian free variation selectors, vowel separator
    (0x200B, 0x200F),  # zero-width space, ZWNJ, ZWJ, LRM, RLM
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x2064),  # word joiner, invisible operators
    (0x2066, 0x206F),  # bidi isolates, deprecated format characters
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),  # byte-order mark / zero-width no-break space
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xE0000, 0xE007F),  # tag characters
    (0xE0100, 0xE01EF),  # variation selectors supplement
)
#: Unicode spaces and separators -> their ASCII stand-in
_SPACES: dict[int, str] = {
    **{c: " " for c in (0x00A0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000)},
    0x0085: "\n", 0x2028: "\n", 0x2029: "\n",
}
#: Cyrillic and Greek letters that look like Latin ones (Unicode's confusables, the unambiguous ones) -> Latin
CONFUSABLES: dict[str, str] = {
    # Cyrillic capitals and small letters
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T",
    "Х": "X", "У": "Y", "Ү": "Y", "І": "I", "Ј": "J", "Ѕ": "S", "Ԛ": "Q", "Ԝ": "W", "Ӏ": "I", "Һ": "H",
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s",
    "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l", "ү": "y", "ѵ": "v", "ɡ": "g",
    # Greek capitals that are Latin letters in every font, omicron, lunate sigma, yot
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "ο": "o", "ϲ": "c", "Ϲ": "C", "ϳ": "j",
}

_INVISIBLE_CLASS = "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in INVISIBLE)
_SPACE_CLASS = "".join(f"\\U{c:08x}" for c in _SPACES)
# everything that can make the view differ from the text: one scan of this class decides "no view needed"
_TRIGGER = re.compile(
    f"[{_INVISIBLE_CLASS}{_SPACE_CLASS}"
    "\\u0300-\\u036f"  # combining diacritical marks (decomposed accents)
    "\\u0370-\\u03ff\\u0400-\\u052f\\u0261"  # Greek, Cyrillic (look-alikes), Latin script small g
    "\\uff01-\\uff5e"  # fullwidth ASCII forms
    "\\U0001d400-\\U0001d7ff"  # mathematical alphanumeric symbols
    "]"
)
_INVISIBLE_RE = re.compile(f"[{_INVISIBLE_CLASS}]+")
_ONE_FOR_ONE = re.compile(f"[{_SPACE_CLASS}\\uff01-\\uff5e\\U0001d400-\\U0001d7ff]")
_COMBINING = re.compile("[\\u0300-\\u036f]+")
_LOOKALIKE = re.compile("[" + "".join(CONFUSABLES) + "]")
_LETTERS = re.compile(r"[^\W\d_]+")


def _is_latin(ch: str) -> bool:
    """A Latin letter (Basic Latin to Latin Extended-B, Latin Extended Additional)."""
    o = ord(ch)
    return ch.isalpha() and (o < 0x250 or 0x1E00 <= o <= 0x1EFF)


@dataclass(frozen=True, slots=True)
class DetectionView:
    """A text as the detectors read it (``text``) and the map back to the ``original`` (see the module docstring).

    ``removed``: the original positions dropped from the view (sorted); ``folded``: how many characters were
    replaced (counts, for logs). Offsets of the view map back with :meth:`to_original`, offsets of the original
    map forward with :meth:`to_view`."""

    text: str
    original: str
    removed: tuple[int, ...] = ()
    folded: int = 0
    # view position from which the shift (removed characters before it) holds, and that shift
    _bp_view: tuple[int, ...] = field(default=(), repr=False)
    _bp_shift: tuple[int, ...] = field(default=(), repr=False)
    # removed positions that belong to the character before them (combining marks, variation selectors)
    _attached: frozenset[int] = field(default=frozenset(), repr=False)

    def __repr__(self) -> str:  # counts only, never the text
        return (f"DetectionView(chars={len(self.original)}, removed={len(self.removed)}, folded={self.folded}, "
                f"identity={self.identity})")

    @property
    def identity(self) -> bool:
        """Whether the view is the text itself (no character removed or folded)."""
        return self.text is self.original

    def _orig(self, v: int) -> int:
        """The original position of the view's character at ``v``."""
        i = bisect_right(self._bp_view, v) - 1
        return v + (self._bp_shift[i] if i >= 0 else 0)

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the view's span ``[start, end)`` (``start < end``): from the original position of
        its first character to after its last one, with the removed characters between them, and the combining
        marks attached to its last one."""
        if self.identity or not self.removed:
            return start, end
        s = self._orig(start)
        e = self._orig(end - 1) + 1
        attached = self._attached
        while e in attached:
            e += 1
        return s, e

    def to_view(self, start: int, end: int) -> tuple[int, int]:
        """The view's span of the original span ``[start, end)`` (empty when it held removed characters only)."""
        if self.identity or not self.removed:
            return start, end
        removed = self.removed
        return start - bisect_left(removed, start), end - bisect_left(removed, end)


def _plain(text: str) -> bool:
    """Whether nothing in ``text`` needs removing or folding. Cheap for most notes: an ASCII text (a flag of the
    string) has none of the characters; a Latin-1 text (its encoding is a copy) can hold only the no-break space,
    the soft hyphen and NEL, found by substring search; any other text is scanned by the character class."""
    if text.isascii():
        return True
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return _TRIGGER.search(text) is None
    return "\xa0" not in text and "\xad" not in text and "\x85" not in text


def detection_view(text: str) -> DetectionView:
    """The :class:`DetectionView` of ``text`` (``text`` itself when nothing in it needs removing or folding)."""
    if _plain(text):
        return DetectionView(text, text)
    edits: dict[int, str] = {}  # original position -> replacement ("" removes)
    attached: set[int] = set()
    for m in _INVISIBLE_RE.finditer(text):
        for i in range(m.start(), m.end()):
            edits[i] = ""
            if 0xFE00 <= ord(text[i]) <= 0xFE0F or 0xE0100 <= ord(text[i]) <= 0xE01EF or text[i] == "\u034f":
                attached.add(i)
    for m in _ONE_FOR_ONE.finditer(text):
        i, ch = m.start(), m.group()
        o = ord(ch)
        if o in _SPACES:
            edits[i] = _SPACES[o]
        elif 0xFF01 <= o <= 0xFF5E:
            edits[i] = chr(o - 0xFEE0)
        elif 0x1D400 <= o <= 0x1D7FF:
            folded = unicodedata.normalize("NFKC", ch)
            if len(folded) == 1:
                edits[i] = folded
    if _COMBINING.search(text) is not None:
        _compose(text, edits, attached)
    if _LOOKALIKE.search(text) is not None:
        _fold_lookalikes(text, edits)
    edits = {i: r for i, r in edits.items() if r != text[i]}
    if not edits:
        return DetectionView(text, text)
    parts: list[str] = []
    removed: list[int] = []
    bp_view: list[int] = []
    bp_shift: list[int] = []
    last = 0
    for i in sorted(edits):
        parts.append(text[last:i])
        rep = edits[i]
        if rep:
            parts.append(rep)
        else:
            removed.append(i)
            shift = len(removed)
            v = i - (shift - 1)  # the view position of the next kept character
            if bp_view and bp_view[-1] == v:
                bp_shift[-1] = shift
            else:
                bp_view.append(v)
                bp_shift.append(shift)
        last = i + 1
    parts.append(text[last:])
    folded = sum(1 for r in edits.values() if r)
    return DetectionView("".join(parts), text, tuple(removed), folded, tuple(bp_view), tuple(bp_shift),
                         frozenset(attached & set(removed)))


def _compose(text: str, edits: dict[int, str], attached: set[int]) -> None:
    """A letter followed by combining accents -> its composed form (NFC) when that is one character; the accents
    are removed (and attached to the letter, for :meth:`DetectionView.to_original`)."""
    for m in _COMBINING.finditer(text):
        base = m.start() - 1
        # the letter the marks sit on (skipping invisible characters removed between them)
        while base >= 0 and edits.get(base) == "":
            base -= 1
        if base < 0 or not text[base].isalpha():
            continue
        composed = unicodedata.normalize("NFC", edits.get(base, text[base]) + m.group())
        if len(composed) != 1:
            continue
        edits[base] = composed
        for i in range(m.start(), m.end()):
            edits[i] = ""
            attached.add(i)


def _fold_lookalikes(text: str, edits: dict[int, str]) -> None:
    """Cyrillic and Greek look-alikes -> Latin, inside words with a Latin letter or made of look-alikes only."""
    for m in _LETTERS.finditer(text):
        word = m.group()
        if _LOOKALIKE.search(word) is None:
            continue
        if not (any(_is_latin(c) for c in word) or all(c in CONFUSABLES for c in word)):
            continue
        base = m.start()
        for k, c in enumerate(word):
            latin = CONFUSABLES.get(c)
            if latin is not None:
                edits[base + k] = latin
