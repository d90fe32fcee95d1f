"""Text views: tokens and sentences with character offsets on the original text (en, es, nl, sv, de).

Tokens and sentences are *derived views*: they hold offsets only (``Token(start, end)``,
``Sentence(start, end)``), never text; slice the original string to read them.

Tokens
------
One rule for all five languages: a token is

* a run of decimal digits (``"28029"``),
* a run of letters, combining marks included (``"años"``, ``"Jose\u0301"``),
* a run of three or more identical punctuation characters other than ``.`` (``"-----"``, ``"___"``, ``"+++"``),
* otherwise a single punctuation or symbol character (``"."``, ``":"``, ``"-"``, ``"/"``, ``"@"``).

So letter/digit boundaries split (``"25yo"`` -> ``25`` ``yo``, ``"70años"`` -> ``70`` ``años``,
``"11A"`` -> ``11`` ``A``) and punctuation always splits off (``"H."``, ``"CP:28029"``, ``"Edad:62"``,
``"nhc-150679"``). E-mail addresses, URLs, dates and decimal numbers are *not* kept whole: on MEDDOCAN train
keeping e-mails whole adds 3 misaligned gold spans (``"ms." + address`` annotated without the prefix), and
dates/decimals/URLs gain nothing while whole-token dates break date ranges such as ``"12/03-12/05"`` (two
DATE spans). Runs of identical punctuation are merged only from three characters on and never for ``.``: merging
``".."`` or ``"))"`` misaligns 6 more spans (``"4 Der.."``-style abbreviations before a sentence period).

A *glued-word* split also cuts a letter run where a lower-case letter (three in a row) meets an upper-case
letter followed by a lower-case one (``"MartínezNºCol"``, ``"DominguezCorreo"``), or where two capitals meet a
capitalised word (``"DRAlberto"``): text extracted from forms loses newlines and glues PHI to the next field
label. Units such as ``"mmHg"``, ``"mEq"``, ``"IgG"``, ``"pH"`` and acronym plurals (``"UCIs"``) stay whole.
On MEDDOCAN train this rule moves misaligned gold spans from 7 to 3 (dev: 3 to 2) and splits 16 words in
750 documents. ``benchmarks/alignment.py`` measures all of this.

Whitespace (``str.isspace``) and the invisible format characters in :data:`IGNORABLE_CHARS` (BOM, zero-width
space/joiners, word joiner, soft hyphen) are never part of a token: they separate tokens. Every other character
belongs to exactly one token.

Why a regular expression rather than a spaCy tokenizer: the spec asked for spaCy blank tokenizers with extended
prefix/suffix/infix rules. Configured with these rules (``benchmarks/alignment.py``, ``spacy_extended_es``),
spaCy gives the same alignment but (a) it is 1.5-2 times slower than this module on MEDDOCAN train (both
including the conversion to :class:`Token`; spaCy's default Spanish tokenizer is 7-10 times slower and
misaligns 8.7 % of the gold spans), (b) it cannot split a leading punctuation character through infixes, and
its prefix/suffix loop copies the remaining string for each stripped character, so 20 000 dashes take about 5 s
and 40 000 about 18 s (quadratic) - one form line or corrupted file would stall a batch job. This module is
linear time; :func:`to_spacy_doc` builds a spaCy ``Doc`` from our tokens for NER training.

Sentences
---------
Clinical-note rules (as in published i2b2 de-identification preprocessing), applied in this order:

* A line break ends a sentence. Clinical notes are mostly line-broken forms (``"Nombre: X\\nApellidos: Y"``);
  with ``newline_ends_sentence=False`` (hard-wrapped prose) only a blank line, a line that starts with a
  bullet or a numbered item, or sentence-final punctuation ends a sentence.
* Blank lines always end sentences; a line starting with a bullet (``- * • ·`` ...) or a numbered item
  (``"1."``, ``"2)"``, ``"a)"``, ``"IV."``) starts a new one.
* ``. ! ? …`` (optionally followed by closing quotes/brackets), then whitespace, then an upper-case letter, a
  digit, ``¿``/``¡`` or a bullet ends a sentence - except after a single letter (initials, ``"p. ej."``,
  ``"e.g."``, ``"C/."``), after an abbreviation of the language (``Dr.``, ``Dra.``, ``Sr.``, ``Nº``, ``Prof.``,
  ``dhr.``, ``bzw.``, street types such as ``Ctra.``, ``Avda.`` ...), after a number abbreviation or a number
  before a digit (``"No. 5"``, ``"km. 12"``, ``"Mayor 19. 4 Izq"``), after a line-initial item number
  (``"1. Paciente"``), and in German after a 1-3 digit number (ordinals: ``"am 3. Mai"``). Periods inside
  numbers and dates (``"1.5"``, ``"12.03.2005"``) are never followed by whitespace, so never split. On MEDDOCAN
  train 8 of 11 333 gold spans cross a sentence boundary (dev: 11 of 5 801), mostly addresses such as
  ``"C/ X, 24. Residencia Y"``.

A sentence runs from its first token's start to its last token's end: it is stripped of surrounding whitespace,
and the sentences cover every token, in order.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain, pairwise
from typing import TYPE_CHECKING

from clinanon.caches import memo
from clinanon.lang import LANGUAGES, check_language

if TYPE_CHECKING:  # pragma: no cover
    from spacy.tokens import Doc
    from spacy.vocab import Vocab

__all__ = [
    "IGNORABLE_CHARS",
    "SUPPORTED_LANGUAGES",
    "Sentence",
    "TextView",
    "Token",
    "TokenTable",
    "check_language",
    "split_sentences",
    "stop_words",
    "to_spacy_doc",
    "token_table",
    "tokenize",
]

#: the supported languages: :data:`clinanon.lang.LANGUAGES` (also re-exported here with :func:`check_language`)
SUPPORTED_LANGUAGES: tuple[str, ...] = LANGUAGES


@memo
def stop_words(lang: str) -> frozenset[str]:
    """spaCy's stop words of ``lang`` (function words), empty when spaCy or its list is missing.

    The list is read from ``spacy/lang/<lang>/stop_words.py`` without importing the ``spacy`` package: importing it
    pulls in thinc and, when installed, PyTorch (about 200 MB of memory and 1.5 s), which the rules never use.
    Falls back to the import when the file cannot be run on its own.
    """
    import importlib
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("spacy")
    if spec is None or not spec.submodule_search_locations:
        return frozenset()
    path = Path(next(iter(spec.submodule_search_locations))) / "lang" / lang / "stop_words.py"
    namespace: dict[str, object] = {"__name__": f"clinanon._spacy_stop_words_{lang}"}
    try:
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)  # a module of literals
        words = namespace["STOP_WORDS"]
    except Exception:  # not a standalone file in this spaCy version: import it after all
        try:
            words = importlib.import_module(f"spacy.lang.{lang}.stop_words").STOP_WORDS
        except ImportError:
            return frozenset()
    return frozenset(words)  # type: ignore[arg-type]

#: Invisible format characters that separate tokens like whitespace but are not whitespace for ``str.isspace``.
IGNORABLE_CHARS: str = "\u00ad\u200b\u200c\u200d\u2060\ufeff"


@dataclass(frozen=True, slots=True)
class Token:
    """A token ``[start, end)`` of the original text (``text[start:end]`` is never empty nor whitespace)."""

    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence ``[start, end)``: from its first token's start to its last token's end."""

    start: int
    end: int


# --- tokens ---------------------------------------------------------------------------------------------------

_MARKS = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_TOKEN_RE = re.compile(
    r"\d+"
    rf"|[^\W\d_]+(?:[{_MARKS}]+[^\W\d_]*)*"
    rf"|([^\w\s.{IGNORABLE_CHARS}])\1{{2,}}"
    r"|_{3,}"
    rf"|[^\w\s{IGNORABLE_CHARS}]|_"
)


def _char_class(pred: Callable[[str], bool], ranges: Sequence[tuple[int, int]]) -> str:
    chars = [chr(c) for lo, hi in ranges for c in range(lo, hi + 1) if pred(chr(c))]
    return "".join(re.escape(c) for c in chars)


# Latin (+ Greek, Cyrillic) case classes: enough for the five languages, cheap to build at import.
_CASE_RANGES = ((0x41, 0x24F), (0x370, 0x4FF), (0x1E00, 0x1EFF))
_LOWER = _char_class(lambda c: c.isalpha() and c.islower(), _CASE_RANGES)
_UPPER = _char_class(lambda c: c.isalpha() and c.isupper(), _CASE_RANGES)
# A match starts exactly where a glued word starts: an upper-case letter after three lower-case ones and before a
# lower-case one, or after two upper-case ones and before two lower-case ones. Starting with the (rare) upper-case
# class lets the regex engine skip ahead quickly (about 200 M chars/s).
_GLUE_RE = re.compile(
    rf"[{_UPPER}](?:(?<=[{_LOWER}]{{3}}[{_UPPER}])(?=[{_LOWER}])|(?<=[{_UPPER}]{{3}})(?=[{_LOWER}]{{2}}))"
)


# The same tokens with the separator before each one as a group: ``findall`` then yields (gap, token, _) for every
# token, and the offsets follow from the running sum of the lengths, without a match object per token (about
# twice as fast as ``finditer``). Letter runs come first (the commonest token); the alternatives start with
# disjoint characters, except a punctuation run before a single punctuation character, as in :data:`_TOKEN_RE`.
# Nothing follows a token in the pattern, so possessive repeats (no backtracking state) match the same.
_GAP_TOKEN_RE = re.compile(
    rf"([\s{IGNORABLE_CHARS}]*+)"
    rf"([^\W\d_]++(?:[{_MARKS}]++[^\W\d_]*+)*+"
    r"|\d++"
    rf"|([^\w\s.{IGNORABLE_CHARS}])\3{{2,}}+"
    r"|_{3,}+"
    rf"|[^\w\s{IGNORABLE_CHARS}]|_)"
)


class TokenTable:
    """The tokens of one text as three parallel tuples: ``starts``, ``ends`` and ``words`` (the token strings).

    The same tokens as :func:`tokenize`; built by :func:`token_table`; a pipeline builds one per note
    (:attr:`clinanon.analysis.Analysis.tokens`) and every component shares it. Immutable. The ``repr`` holds the
    number of tokens only, never text.
    """

    __slots__ = ("_mapped", "_sets", "_tokens", "ends", "starts", "text", "words")

    def __init__(self, text: str, starts: tuple[int, ...], ends: tuple[int, ...], words: tuple[str, ...]) -> None:
        self.text = text
        self.starts = starts
        self.ends = ends
        self.words = words
        self._tokens: tuple[Token, ...] | None = None
        self._mapped: dict[Callable[[str], str], tuple[str, ...]] = {}
        self._sets: dict[Callable[[str], str], frozenset[str]] = {}

    def __repr__(self) -> str:
        return f"TokenTable(tokens={len(self.starts)})"

    def __len__(self) -> int:
        return len(self.starts)

    @property
    def tokens(self) -> tuple[Token, ...]:
        """The tokens as :class:`Token` objects (built on first use)."""
        if self._tokens is None:
            self._tokens = tuple(map(Token, self.starts, self.ends))
        return self._tokens

    def map_words(self, fn: Callable[[str], str]) -> tuple[str, ...]:
        """``tuple(map(fn, self.words))``, computed once per function and kept with the table (so that the
        normalised words, e.g. case-folded ones, are shared by the steps that need them). ``fn`` must be pure."""
        out = self._mapped.get(fn)
        if out is None:
            out = self._mapped[fn] = tuple(map(fn, self.words))
        return out

    def word_set(self, fn: Callable[[str], str]) -> frozenset[str]:
        """``frozenset(self.map_words(fn))``, computed once per function (for "does the text hold any of these
        words" tests)."""
        out = self._sets.get(fn)
        if out is None:
            out = self._sets[fn] = frozenset(self.map_words(fn))
        return out

    @classmethod
    def from_tokens(cls, text: str, tokens: Sequence[Token]) -> TokenTable:
        """A table for given tokens (any tokenizer's) of ``text``."""
        starts = tuple(t.start for t in tokens)
        ends = tuple(t.end for t in tokens)
        return cls(text, starts, ends, tuple(map(text.__getitem__, map(slice, starts, ends))))


def _token_arrays(text: str) -> tuple[list[int], list[int], list[str]]:
    flat = list(chain.from_iterable(_GAP_TOKEN_RE.findall(text)))  # gap, token, run char, gap, token ...
    words = flat[1::3]
    lengths = [0] * (2 * len(words))
    lengths[0::2] = map(len, flat[0::3])
    lengths[1::2] = map(len, words)
    offsets = list(accumulate(lengths))
    starts, ends = offsets[0::2], offsets[1::2]
    glue = [m.start() for m in _GLUE_RE.finditer(text)]
    if not glue:
        return starts, ends, words
    # one linear merge of the (sorted) glue points into the tokens; each point lies strictly inside a letter run
    first = bisect_right(starts, glue[0]) - 1
    out_s, out_e, out_w = starts[:first], ends[:first], words[:first]
    g, ng = 0, len(glue)
    for k in range(first, len(starts)):
        s, e = starts[k], ends[k]
        while g < ng and glue[g] < e:
            out_s.append(s)
            out_e.append(glue[g])
            out_w.append(text[s:glue[g]])
            s = glue[g]
            g += 1
        out_s.append(s)
        out_e.append(e)
        out_w.append(words[k] if s == starts[k] else text[s:e])
    return out_s, out_e, out_w


def token_table(text: str) -> TokenTable:
    """The :class:`TokenTable` of ``text`` (the tokens of :func:`tokenize`, which are the same in every language).

    Computed on each call: a pipeline computes it once per note and shares it through
    :attr:`clinanon.analysis.Analysis.tokens`, so there is no process-wide cache."""
    starts, ends, words = _token_arrays(text)
    return TokenTable(text, tuple(starts), tuple(ends), tuple(words))


def _tokenize(text: str) -> list[Token]:
    return list(token_table(text).tokens)


def tokenize(text: str, lang: str = "es") -> list[Token]:
    """The tokens of ``text`` (see the module docstring for the rules).

    Guarantees: tokens are ordered, non-overlapping, non-empty and within ``[0, len(text)]``; no token holds a
    whitespace or :data:`IGNORABLE_CHARS` character; every other character is in a token. Linear time; each call
    returns a new list (a pipeline tokenizes a note once: :attr:`clinanon.analysis.Analysis.tokens`).
    Raises :class:`~clinanon.errors.ConfigError` for an unsupported ``lang``.
    """
    check_language(lang)
    return _tokenize(text)


# --- sentences ------------------------------------------------------------------------------------------------

_LINEBREAK_CHARS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_LINEBREAK_RE = re.compile(rf"[{_LINEBREAK_CHARS}]\s*+")
_LINEBREAK_COUNT_RE = re.compile(rf"\r\n|[{_LINEBREAK_CHARS}]")
_BULLETS = frozenset("-*•·–—‣◦▪▫●○■□►➢✓")
_ITEM_RE = re.compile(r"(?:\d{1,3}|[A-Za-z]|[IVXivx]{2,5})[.)](?=[\s-]|$)")
_ITEM_NUMBER_RE = re.compile(r"\d{1,3}|[IVXivx]{2,5}")
_FINAL_RE = re.compile(r"(?<![.!?…])[.!?…]++[\"'»”’)\]]*+(?=\s)")
_NEXT_RE = re.compile(r"\s*+[\"'«“‘(\[]*+(\S)")

_COMMON_ABBREV = frozenset({
    "dr", "dra", "drs", "prof", "profa", "sr", "sra", "srta", "st", "mr", "mrs", "ms", "jr", "nº", "vs",
    "ca", "tel", "fig", "approx", "aprox", "dipl", "ing",
})
_ABBREV: dict[str, frozenset[str]] = {
    "es": frozenset({
        "dña", "dª", "dn", "ud", "uds", "lic", "ldo", "lda", "arq", "excmo", "excma", "ilmo", "ilma", "hosp",
        "serv", "dpto", "dep", "depto", "av", "avda", "avd", "pza", "pl", "urb", "bl", "blq", "esc", "izq",
        "izqda", "izda", "dcha", "dch", "der", "pta", "núm", "num", "tfno", "telf", "tlf", "ej", "pág", "págs",
        "vol", "cap", "art", "col", "gral", "hna", "sta", "sto", "sres", "sras", "dres", "dras", "pac",
        # addresses
        "ctra", "carr", "cra", "crta", "edf", "edif", "nnal", "pº", "bº", "pol", "pje", "trav", "glta", "rda", "cl",
        "ptal", "prov", "provª", "crt", "hno", "hnos", "ee", "uu", "pso", "cdad", "apto",
    }),
    "en": frozenset({
        "messrs", "rev", "hon", "gen", "col", "capt", "lt", "sgt", "mt", "ave", "rd", "blvd", "dept", "univ",
        "inc", "ltd", "co", "corp", "no", "nos", "figs", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
        "sep", "sept", "oct", "nov", "dec", "pt", "pts", "hosp",
    }),
    "de": frozenset({
        "hr", "fr", "frl", "nr", "str", "bzw", "vgl", "ggf", "evtl", "inkl", "exkl", "abs", "jh", "mio", "mrd",
        "geb", "gest", "med", "dent", "phil", "rer", "nat", "univ", "priv", "doz", "sog", "allg", "bspw", "lt",
        "pat", "std", "tel", "ärztl",
    }),
    "nl": frozenset({
        "dhr", "mevr", "mw", "mej", "drs", "ir", "nr", "bijv", "evt", "incl", "excl", "resp", "zgn", "pt", "ptn",
        "zr", "br", "afd", "mr", "pat",
    }),
    "sv": frozenset({
        "nr", "bl", "ex", "resp", "jfr", "obs", "kl", "ang", "enl", "avd", "leg", "läk", "spec", "dvs", "pga",
        "tfn", "st", "pat",
    }),
}
_NUMBER_ABBREV = frozenset({"no", "nos", "nr", "nº", "núm", "num", "n", "art", "pág", "p", "fig", "tel", "tfno",
                            "telf", "tlf", "tfn", "vol", "cap", "kl", "ref", "km"})
_NO_BREAK = {lang: _COMMON_ABBREV | extra for lang, extra in _ABBREV.items()}


def _line_initial(text: str, pos: int) -> bool:
    """True when only spaces/tabs separate ``pos`` from the start of its line."""
    k = pos - 1
    while k >= 0 and text[k] in " \t":
        k -= 1
    return k < 0 or text[k] in _LINEBREAK_CHARS


def _starts_item(text: str, pos: int) -> bool:
    """True when a bullet or a numbered item starts at ``pos``."""
    return text[pos] in _BULLETS or _ITEM_RE.match(text, pos) is not None


def _sentence_breaks(text: str, tokens: Sequence[Token], starts: Sequence[int], lang: str,
                     newline_ends_sentence: bool) -> set[int]:
    """Indices of the tokens that start a sentence (besides token 0)."""
    n = len(tokens)
    breaks: set[int] = set()
    for m in _LINEBREAK_RE.finditer(text):
        i = bisect_left(starts, m.end())
        if i == 0 or i >= n:
            continue
        if newline_ends_sentence or len(_LINEBREAK_COUNT_RE.findall(m.group())) >= 2 \
                or _starts_item(text, tokens[i].start):
            breaks.add(i)
    no_break = _NO_BREAK[lang]
    for m in _FINAL_RE.finditer(text):
        i = bisect_left(starts, m.end())
        if i >= n or i in breaks:
            continue
        nxt = _NEXT_RE.match(text, m.end())
        if nxt is None:  # pragma: no cover - a token follows, so a non-space character does
            continue
        c = nxt.group(1)
        if not (c.isupper() or c.isdigit() or c in "¿¡" or c in _BULLETS):
            continue
        if text[m.start():m.end()].rstrip("\"'»”’)]") == ".":
            p = bisect_left(starts, m.start()) - 1
            if p >= 0 and tokens[p].end == m.start():
                word = text[tokens[p].start:tokens[p].end]
                low = word.casefold()
                if (len(word) == 1 and (word.isalpha() or word == "/")) or low in no_break:  # "C/."
                    continue
                if c.isdigit() and (low in _NUMBER_ABBREV or word.isdigit()):  # "núm. 5", "Mayor 19. 4 Izq"
                    continue
                if _ITEM_NUMBER_RE.fullmatch(word) and _line_initial(text, tokens[p].start):
                    continue
                if lang == "de" and word.isdigit() and len(word) <= 3:
                    continue
        breaks.add(i)
    return breaks


def _sentences(text: str, tokens: Sequence[Token], starts: Sequence[int], lang: str,
               newline_ends_sentence: bool) -> list[Sentence]:
    if not tokens:
        return []
    cuts = sorted(_sentence_breaks(text, tokens, starts, lang, newline_ends_sentence))
    bounds = [0, *cuts, len(tokens)]
    return [Sentence(tokens[a].start, tokens[b - 1].end) for a, b in pairwise(bounds)]


def split_sentences(text: str, lang: str = "es", *, newline_ends_sentence: bool = True,
                    tokens: Sequence[Token] | None = None) -> list[Sentence]:
    """The sentences of ``text`` (see the module docstring for the rules); ``tokens``: the tokens of ``text``
    (:func:`tokenize`) when the caller has them.

    Guarantees: sentences are ordered and non-overlapping; each starts at a token start and ends at a token
    end (so it is stripped of whitespace); together they cover every token of :func:`tokenize`.
    """
    lang = check_language(lang)
    tokens = _tokenize(text) if tokens is None else tokens
    return _sentences(text, tokens, [t.start for t in tokens], lang, newline_ends_sentence)


# --- a cached view ----------------------------------------------------------------------------------------------

class TextView:
    """Tokens and sentences of one text, computed once on first use.

    Index helpers: :meth:`sentence_of_token`, :meth:`sentence_tokens`, :meth:`token_range`, :meth:`token_at`.
    The ``repr`` holds sizes only, never text.
    """

    __slots__ = ("_ends", "_sent_first", "_sentences", "_starts", "_tokens", "lang", "newline_ends_sentence",
                 "text")

    def __init__(self, text: str, lang: str = "es", *, newline_ends_sentence: bool = True) -> None:
        self.text = text
        self.lang = check_language(lang)
        self.newline_ends_sentence = newline_ends_sentence
        self._tokens: list[Token] | None = None
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._sentences: list[Sentence] | None = None
        self._sent_first: list[int] = []

    def __repr__(self) -> str:
        return f"TextView(lang={self.lang!r}, chars={len(self.text)})"

    @property
    def tokens(self) -> list[Token]:
        if self._tokens is None:
            self._tokens = _tokenize(self.text)
            self._starts = [t.start for t in self._tokens]
            self._ends = [t.end for t in self._tokens]
        return self._tokens

    @property
    def sentences(self) -> list[Sentence]:
        if self._sentences is None:
            tokens = self.tokens
            self._sentences = _sentences(self.text, tokens, self._starts, self.lang, self.newline_ends_sentence)
            self._sent_first = [bisect_left(self._starts, s.start) for s in self._sentences]
        return self._sentences

    def token_text(self, i: int) -> str:
        t = self.tokens[i]
        return self.text[t.start:t.end]

    def sentence_of_token(self, i: int) -> int:
        """Index of the sentence that holds token ``i`` (``IndexError`` if there is no token ``i``)."""
        n = len(self.tokens)
        if not -n <= i < n:
            raise IndexError(f"token index {i} out of range ({n} tokens)")
        self.sentences  # noqa: B018 - fills the cache
        return bisect_right(self._sent_first, i % n) - 1

    def sentence_tokens(self, k: int) -> tuple[int, int]:
        """Token index range ``(i, j)`` (half-open) of sentence ``k``."""
        sents = self.sentences
        n = len(sents)
        if not -n <= k < n:
            raise IndexError(f"sentence index {k} out of range ({n} sentences)")
        k %= n
        return self._sent_first[k], (self._sent_first[k + 1] if k + 1 < n else len(self.tokens))

    def token_range(self, start: int, end: int) -> tuple[int, int]:
        """Token index range ``(i, j)`` (half-open) of the tokens overlapping ``[start, end)``.

        ``i == j`` when no token overlaps (the range holds only whitespace, or is empty).
        """
        self.tokens  # noqa: B018 - fills the cache
        i = bisect_right(self._ends, start)
        j = bisect_left(self._starts, end)
        return (i, max(i, j))

    def token_at(self, offset: int) -> int | None:
        """Index of the token that holds character ``offset``, or ``None`` (whitespace, out of range)."""
        self.tokens  # noqa: B018
        i = bisect_right(self._starts, offset) - 1
        return i if i >= 0 and offset < self._ends[i] else None


# --- spaCy ------------------------------------------------------------------------------------------------------

@memo
def _spacy_vocab(lang: str) -> Vocab:
    import spacy

    return spacy.blank(lang).vocab


def to_spacy_doc(text: str, lang: str = "es", *, tokens: Sequence[Token] | None = None,
                 vocab: Vocab | None = None) -> Doc:
    """A spaCy ``Doc`` whose text is exactly ``text`` and whose non-space tokens are our tokens.

    Gaps between tokens that are not a single space become extra whitespace tokens (as spaCy does itself), so
    ``doc.char_span(t.start, t.end)`` finds each of our tokens. ``vocab`` defaults to the cached vocabulary of
    ``spacy.blank(lang)`` (no download).
    """
    from spacy.tokens import Doc

    lang = check_language(lang)
    if tokens is None:
        tokens = _tokenize(text)
    if vocab is None:
        vocab = _spacy_vocab(lang)
    words: list[str] = []
    spaces: list[bool] = []
    prev = 0
    for t in tokens:
        gap = text[prev:t.start]
        if gap:
            if words and gap[0] == " ":
                spaces[-1] = True
                gap = gap[1:]
            if gap:
                words.append(gap)
                spaces.append(False)
        words.append(text[t.start:t.end])
        spaces.append(False)
        prev = t.end
    tail = text[prev:]
    if tail:
        if words and tail[0] == " ":
            spaces[-1] = True
            tail = tail[1:]
        if tail:
            words.append(tail)
            spaces.append(False)
    return Doc(vocab, words=words, spaces=spaces)
