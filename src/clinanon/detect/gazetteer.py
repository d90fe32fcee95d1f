"""Gazetteer detection: token-aware look-up of names, places and hospitals in word lists.

The lists ship inside the package (``clinanon/data/gazetteers/<lang>/*.txt``, built by
``scripts/build_gazetteers.py`` from Faker's locale providers, Babel/CLDR and a few hand-written tables) and are
loaded at first use, cached per ``(lang, kind, accent folding)``.

Matching works on tokens (:func:`clinanon.text.tokenize`): every entry is tokenized with the same tokenizer and
stored under its tuple of folded tokens in a dict (a :class:`PhraseIndex`); a text is scanned once, and at each
token whose folded form starts an entry the few possible entry lengths are looked up. No per-entry regex, so
the cost is linear in the text length (times the longest entry, a handful of tokens).

Case policy (``case``): ``"exact"`` needs the entry's own case (a capitalised first letter is also accepted on
the first token); ``"upper_ok"`` (default) also accepts ALL-CAPS tokens (``GARCÍA``); ``"fold"`` ignores
case. Accent policy (``accents``): ``"fold"`` (default) lets ``Garcia`` match ``García``; ``"exact"`` does not.

Labels: first names and surnames -> ``NAME``; cities and regions -> ``LOCATION.CITY``; countries ->
``LOCATION.COUNTRY``; hospitals (list entries and the "hospital word + name" pattern) -> ``LOCATION.HOSPITAL``.
The span's ``source`` says which list matched (``gazetteer:first_name:F``, ``gazetteer:surname``,
``gazetteer:city``, ``gazetteer:hospital_pattern`` ...), so later steps (name assembly, surrogates) can use the
gender or kind. The detector returns every candidate, overlapping ones included; :mod:`clinanon.detect.resolve`
chooses among them.

Places that are also words: a one-word city or region entry that is a common word of the language
(:func:`common_places`: "Hoorn" ~ "hoorn", "Puno" ~ "puño", compared folded) is reported only with place context
(:func:`place_context`: a place preposition, a postcode, an address line, a comma, a line of its own), as
:mod:`clinanon.detect.caseless` does for such words in text typed in capitals; a city or region right after a
word that heads an organisation's name ("AOK Hessen", a health insurer) is not reported. Listed hospitals are
reported in capitals too ("OLVG", "UKE"); the pattern takes lower-case Swedish heads after a name ("Sundsvalls
sjukhus") and German ``-klinik`` compounds before one ("Fachklinik Bad Rodach").
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

from clinanon.caches import memo
from clinanon.document import Document, Span
from clinanon.errors import ConfigError, InputError
from clinanon.text import SUPPORTED_LANGUAGES, Token, TokenTable, token_table, tokenize

__all__ = [
    "BUILTIN_KINDS",
    "DEFAULT_KINDS",
    "DEFAULT_LABELS",
    "DEFAULT_SCORES",
    "GazetteerDetector",
    "PhraseIndex",
    "common_places",
    "fold",
    "fold_uncached",
    "load_rows",
    "place_context",
]

CaseMode = Literal["fold", "exact", "upper_ok"]
AccentMode = Literal["fold", "exact"]

#: kinds with a built-in list, and the file each one is read from
_FILES: dict[str, str] = {
    "first_name": "first_names.txt",
    "surname": "surnames.txt",
    "city": "cities.txt",
    "region": "regions.txt",
    "country": "countries.txt",
    "hospital": "hospitals.txt",
}
BUILTIN_KINDS: tuple[str, ...] = (*_FILES, "hospital_pattern")
DEFAULT_KINDS: tuple[str, ...] = BUILTIN_KINDS

DEFAULT_LABELS: Mapping[str, str] = {
    "first_name": "NAME",
    "surname": "NAME",
    "city": "LOCATION.CITY",
    "region": "LOCATION.CITY",
    "country": "LOCATION.COUNTRY",
    "hospital": "LOCATION.HOSPITAL",
    "hospital_pattern": "LOCATION.HOSPITAL",
}
#: base confidence of a hit of each kind (a lone surname is weaker evidence than a country name)
DEFAULT_SCORES: Mapping[str, float] = {
    "first_name": 0.7,
    "surname": 0.6,
    "city": 0.75,
    "region": 0.72,
    "country": 0.85,
    "hospital": 0.95,
    "hospital_pattern": 0.85,
}
_NAME_KINDS = frozenset({"first_name", "surname"})
_PLACE_KINDS = frozenset({"city", "region"})


# --- normalisation ---------------------------------------------------------------------------------------

def _strip_accents(s: str) -> str:
    if s.isascii():
        return s
    return "".join(c for c in unicodedata.normalize("NFD", s) if not unicodedata.combining(c))


def _fold_accents(s: str) -> str:
    return _strip_accents(s.casefold())


class _Memo(dict[str, str]):
    """``memo[s]`` = ``fn(s)``, remembered for up to ``limit`` distinct strings (words repeat a lot)."""

    def __init__(self, fn: Callable[[str], str], limit: int = 200_000) -> None:
        super().__init__()
        self.fn = fn
        self.limit = limit

    def __missing__(self, key: str) -> str:
        value = self.fn(key)
        if len(self) >= self.limit:
            self.clear()
        self[key] = value
        return value


_STRIPPED = _Memo(_strip_accents)
_FOLDED = _Memo(_fold_accents)


def strip_accents(s: str) -> str:
    """Remove combining marks (``García`` -> ``Garcia``); case is kept."""
    return _STRIPPED[s]


def fold(s: str, accents: bool = True) -> str:
    """Case-fold ``s`` and, when ``accents``, strip its accents: the key under which phrases are indexed."""
    return _FOLDED[s] if accents else s.casefold()


def fold_uncached(s: str, accents: bool = True) -> str:
    """:func:`fold` without remembering the result: for bulk loads of word lists, which would flush the memo of
    the words of the texts being read."""
    return _fold_accents(s) if accents else s.casefold()


def folded_words(table: TokenTable, accents: bool = True) -> tuple[str, ...]:
    """``fold(w, accents)`` for every word of ``table`` (computed once per table and shared)."""
    return table.map_words(_FOLDED.__getitem__ if accents else str.casefold)


def folded_word_set(table: TokenTable) -> frozenset[str]:
    """The set of :func:`folded_words` (accents stripped) of ``table`` (computed once per table and shared)."""
    return table.word_set(_FOLDED.__getitem__)


@memo(maxsize=1)
def _allowlist_filter() -> object:
    from clinanon.detect.allowlist import AllowList

    return AllowList.filter


def _as_table(text: str, tokens: Sequence[Token] | TokenTable | None) -> TokenTable:
    if tokens is None:
        return token_table(text)
    if isinstance(tokens, TokenTable):
        return tokens
    return TokenTable.from_tokens(text, tokens)


def _gap_kind(gap: str) -> int | None:
    """0 = tokens touch, 1 = separated by spaces/tabs, None = anything else (a newline, other characters)."""
    if not gap:
        return 0
    if gap.isspace() and "\n" not in gap and "\r" not in gap and len(gap) <= 3:
        return 1
    return None


# --- the phrase index -----------------------------------------------------------------------------------

#: a match as a plain tuple: (i, j, start, end, kind, attr) as in :class:`PhraseMatch`
_RawMatch = tuple[int, int, int, int, str, str]
#: per first word: its one-word entries (or None) and, per second word, the lengths of longer entries (descending)
_Plan = tuple["list[_Entry] | None", "dict[str, tuple[int, ...]] | None"]

@dataclass(frozen=True, slots=True)
class _Entry:
    kind: str
    attr: str
    surface: tuple[str, ...]  # the entry's tokens, accent-folded when accents are folded, case kept
    gaps: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PhraseMatch:
    """A phrase found in a text: tokens ``[i, j)``, characters ``[start, end)``."""

    i: int
    j: int
    start: int
    end: int
    kind: str
    attr: str


class PhraseIndex:
    """Multi-token phrases keyed by their folded token tuples; a text is matched in one pass over its tokens.

    ``add`` tokenizes a phrase with :func:`clinanon.text.tokenize`; ``match`` returns every occurrence of every
    phrase (overlapping and nested ones included) whose tokens are equal after folding, whose inter-token gaps
    have the same shape (touching vs. spaces; never across a line break) and whose case passes ``case``.
    """

    def __init__(self, lang: str, *, accents: AccentMode = "fold") -> None:
        self.lang = lang
        self.fold_accents = accents == "fold"
        self._index: dict[tuple[str, ...], list[_Entry]] = {}
        self._lengths: dict[str, tuple[int, ...]] = {}
        self._plan: dict[str, _Plan] | None = None

    def __len__(self) -> int:
        return sum(len(v) for v in self._index.values())

    def add(self, phrase: str, kind: str, attr: str = "") -> bool:
        """Index ``phrase``; returns False (and indexes nothing) when it has no token or contains a newline."""
        if "\n" in phrase:
            return False
        toks = tokenize(phrase, self.lang)
        if not toks:
            return False
        words = [phrase[t.start:t.end] for t in toks]
        gaps = []
        for a, b in itertools.pairwise(toks):
            g = _gap_kind(phrase[a.end:b.start])
            if g is None:
                return False
            gaps.append(g)
        key = tuple(fold(w, self.fold_accents) for w in words)
        surface = tuple(strip_accents(w) if self.fold_accents else w for w in words)
        entry = _Entry(kind, attr, surface, tuple(gaps))
        bucket = self._index.setdefault(key, [])
        if entry not in bucket:
            bucket.append(entry)
            self._plan = None
            lens = set(self._lengths.get(key[0], ()))
            lens.add(len(key))
            self._lengths[key[0]] = tuple(sorted(lens, reverse=True))
        return True

    def add_all(self, phrases: Iterable[tuple[str, str, str]]) -> None:
        for phrase, kind, attr in phrases:
            self.add(phrase, kind, attr)

    def match(self, text: str, tokens: Sequence[Token] | TokenTable, *, case: CaseMode = "upper_ok",
              norm: Sequence[str] | None = None) -> list[PhraseMatch]:
        """All occurrences, in token order (longest first at a position). ``norm`` = pre-folded tokens."""
        table = _as_table(text, tokens)
        if norm is None:
            norm = folded_words(table, self.fold_accents)
        return [PhraseMatch(*m) for m in self._match(text, table, norm, case)]

    def _get_plan(self) -> dict[str, _Plan]:
        """Entries by first word: the one-word entries, and the lengths of the longer ones by second word."""
        if self._plan is None:
            multi: dict[str, dict[str, set[int]]] = {}
            single: dict[str, list[_Entry]] = {}
            for key, entries in self._index.items():
                if len(key) == 1:
                    single[key[0]] = entries
                else:
                    multi.setdefault(key[0], {}).setdefault(key[1], set()).add(len(key))
            self._plan = {
                first: (single.get(first),
                        {w: tuple(sorted(sizes, reverse=True)) for w, sizes in multi[first].items()}
                        if first in multi else None)
                for first in (*single, *multi)
            }
        return self._plan

    def _match(self, text: str, table: TokenTable, norm: Sequence[str], case: CaseMode) -> list[_RawMatch]:
        """:meth:`match` as plain tuples ``(i, j, start, end, kind, attr)``."""
        if not isinstance(norm, tuple):
            norm = tuple(norm)
        out: list[_RawMatch] = []
        n = len(norm)
        plan = self._get_plan()
        index = self._index
        starts, ends, words = table.starts, table.ends, table.words
        fold_case = case == "fold"
        # only the positions whose folded word starts an entry (found without a Python step per token); at a
        # position the longer entries come first (as their lengths decrease), then the one-word ones
        for i in itertools.compress(itertools.count(), map(plan.__contains__, norm)):
            single, multi = plan[norm[i]]
            if multi is not None and i + 1 < n:
                for size in multi.get(norm[i + 1], ()):
                    j = i + size
                    if j > n:
                        continue
                    entries = index.get(norm[i:j])
                    if not entries:
                        continue
                    tgaps = tuple(_gap_kind(text[ends[k]:starts[k + 1]]) for k in range(i, j - 1))
                    for e in entries:
                        if e.gaps != tgaps:
                            continue
                        if not fold_case and not self._case_ok(e, words, i, case):
                            continue
                        out.append((i, j, starts[i], ends[j - 1], e.kind, e.attr))
            if single is not None:
                for e in single:
                    if not fold_case and not self._case_ok(e, words, i, case):
                        continue
                    out.append((i, i + 1, starts[i], ends[i], e.kind, e.attr))
        return out

    def _case_ok(self, e: _Entry, words: Sequence[str], i: int, case: CaseMode) -> bool:
        for k, s in enumerate(e.surface):
            raw = words[i + k]
            t = _STRIPPED[raw] if self.fold_accents else raw
            if t == s:
                continue
            if case == "upper_ok" and t.isupper() and t == s.upper():
                continue
            if k == 0 and t == s[:1].upper() + s[1:]:
                continue
            return False
        return True


# --- data files -----------------------------------------------------------------------------------------

def _data_dir(lang: str) -> Path:
    return Path(str(resources.files("clinanon") / "data" / "gazetteers" / lang))


def _read_lines(path: Path) -> list[tuple[int, list[str]]]:
    try:
        raw = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text (byte {e.start})", path=path) from None
    except OSError as e:
        raise InputError(f"cannot read list file ({type(e).__name__})", path=path) from None
    rows = []
    for n, line in enumerate(raw.splitlines(), 1):
        line = line.strip("\ufeff").rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        rows.append((n, [c.strip() for c in line.split("\t")]))
    return rows


@memo(maxsize=64)
def load_rows(lang: str, kind: str) -> tuple[tuple[str, ...], ...]:
    """The built-in list of ``kind`` for ``lang`` as tuples of columns (cached; empty when none ships)."""
    if kind not in _FILES:
        raise ConfigError(f"no built-in gazetteer kind {kind!r}; expected one of: {', '.join(_FILES)}")
    path = _data_dir(lang) / _FILES[kind]
    if not path.is_file():
        return ()
    return tuple(tuple(cols) for _, cols in _read_lines(path))


def _attr_of(kind: str, cols: Sequence[str]) -> str:
    if kind == "first_name" and len(cols) > 1 and cols[1] in ("F", "M", "N"):
        return cols[1]
    return ""


@memo(maxsize=32)
def _builtin_index(lang: str, kinds: tuple[str, ...], accents: AccentMode) -> PhraseIndex:
    idx = PhraseIndex(lang, accents=accents)
    for kind in kinds:
        if kind in _FILES:
            for cols in load_rows(lang, kind):
                idx.add(cols[0], kind, _attr_of(kind, cols))
    return idx


def read_user_list(path: str | Path, kind: str) -> list[tuple[str, str, str]]:
    """A user list: one entry per line (``#`` comments and blank lines skipped); first names may carry a
    second column ``F``/``M``/``N``. Raises :class:`InputError` naming the file and line on a bad line."""
    p = Path(path)
    out = []
    for n, cols in _read_lines(p):
        if not cols[0]:
            raise InputError("expected an entry before the first tab", path=p, line=n)
        attr = ""
        if kind == "first_name" and len(cols) > 1 and cols[1]:
            if cols[1] not in ("F", "M", "N"):
                raise InputError("expected gender F, M or N in the second column", path=p, line=n)
            attr = cols[1]
        out.append((cols[0], kind, attr))
    return out


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
    (:func:`clinanon.detect.caseless.common_lexicon`: the shipped lexicon, spaCy's stop words, the names module's
    common words) whose usual form is lower case; the comparison is made on folded forms (case and accents
    stripped on both sides), so ``Puno`` clashes with Spanish ``puño``. German nouns (capitalised in the lexicon,
    which lists some place names the same way) do not count. Empty when the language has no lexicon."""
    from clinanon.detect.caseless import common_lexicon

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


def _org_before(text: str, table: TokenTable, norm: Sequence[str], i: int, lang: str) -> bool:
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
    return norm[k] in heads and _gap_kind(gap) is not None


# --- hospital names by pattern ----------------------------------------------------------------------------

_PARTICLES: dict[str, frozenset[str]] = {
    "es": frozenset({"de", "del", "la", "las", "los", "el", "y", "i", "d", "d'", "l'", "l", "san", "sant", "a", "o"}),
    "en": frozenset({"of", "and", "the", "st", "st.", "s", "'s", "&"}),
    "nl": frozenset({"van", "de", "der", "den", "het", "'t", "s", "'s", "-", "en"}),
    "sv": frozenset({"s", "och", "s:t", "i"}),
    "de": frozenset({"der", "die", "des", "am", "an", "im", "in", "zu", "zum", "zur", "von", "und", "rechts",
                     "links"}),
}
#: capitalised words that never belong to a hospital's name (units, field labels, sentence words)
_HOSPITAL_STOP: dict[str, frozenset[str]] = {
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
                     "mdl", "nefrologie", "endocrinologie", "hematologie", "anesthesiologie", "revalidatie"}),
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
_STREET_WORDS = frozenset({"calle", "avenida", "paseo", "plaza", "carretera", "camino", "ronda", "travesía",
                           "glorieta", "rambla"})
_NO_FIRST = frozenset({"y", "i", "e", "o", "and", "en", "och", "und", "-"})
_DE_GENERIC_PREFIX = frozenset({"kreis", "stadt", "kinder", "land", "landes", "universitäts", "uni", "fach",
                                "akut", "privat", "bezirks", "kranken", "tages", "reha", "allgemein"})
#: prefixes of a compound hospital word that make it generic when no name follows ("Polikliniek", "Fachklinik")
_GENERIC_PREFIX: dict[str, frozenset[str]] = {
    "de": _DE_GENERIC_PREFIX,
    "nl": frozenset({"poli", "dag", "buiten", "kinder", "privé", "prive", "revalidatie", "psychiatrische"}),
}


@memo(maxsize=16)
def _hospital_heads(lang: str, accents: AccentMode) -> tuple[PhraseIndex, tuple[tuple[str, str], ...]]:
    idx = PhraseIndex(lang, accents=accents)
    suffixes = []
    path = _data_dir(lang) / "hospital_words.txt"
    if path.is_file():
        for _, cols in _read_lines(path):
            direction = cols[1] if len(cols) > 1 else "R"
            if direction in ("C", "CR"):
                suffixes.append((fold(cols[0], accents == "fold"), direction))
            else:
                idx.add(cols[0], "hospital_word", direction)
    return idx, tuple(suffixes)


def _is_title(w: str) -> bool:
    return len(w) > 1 and w[0].isupper() and w[1:].islower()


def _is_cap_word(w: str) -> bool:
    return bool(w) and w[0].isupper() and any(c.isalpha() for c in w)


@memo(maxsize=16)
def _suffix_tuple(suffixes: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    return tuple(suf for suf, _ in suffixes)


# --- the detector -----------------------------------------------------------------------------------------

class GazetteerDetector:
    """Finds names, places and hospitals listed in gazetteers (see the module docstring).

    ``kinds``: which lists to use (:data:`BUILTIN_KINDS`, plus any kind named in ``user_lists``).
    ``user_lists``: kind -> path of a UTF-8 file, one entry per line (added to the built-in list of that kind;
    a new kind needs a label in ``labels``). ``allowlist``: ``True`` = the language's :class:`AllowList`,
    an :class:`AllowList` instance, or ``None``/``False`` for none; allowed terms, eponym contexts
    ("enfermedad de Parkinson", "Morbus Crohn") and allowed phrases drop overlapping hits, denied terms are
    always reported. ``detect`` returns candidates that may overlap (resolve them with
    :class:`clinanon.detect.resolve.Resolver`).
    """

    def __init__(
        self,
        lang: str = "es",
        kinds: Sequence[str] = DEFAULT_KINDS,
        user_lists: Mapping[str, str | Path] | None = None,
        case: CaseMode = "upper_ok",
        accents: AccentMode = "fold",
        *,
        allowlist: object = True,
        labels: Mapping[str, str] | None = None,
        scores: Mapping[str, float] | None = None,
        name: str = "gazetteer",
    ) -> None:
        if lang not in SUPPORTED_LANGUAGES:
            raise ConfigError(f"unsupported language {lang!r}; expected one of: {', '.join(SUPPORTED_LANGUAGES)}")
        if case not in ("fold", "exact", "upper_ok"):
            raise ConfigError(f"case must be 'fold', 'exact' or 'upper_ok', not {case!r}")
        if accents not in ("fold", "exact"):
            raise ConfigError(f"accents must be 'fold' or 'exact', not {accents!r}")
        self.lang = lang
        self.name = name
        self.case: CaseMode = case
        self.accents: AccentMode = accents
        self.labels = {**DEFAULT_LABELS, **(labels or {})}
        self.scores = {**DEFAULT_SCORES, **(scores or {})}
        user_lists = dict(user_lists or {})
        self.kinds = tuple(dict.fromkeys([*kinds, *user_lists]))
        for k in self.kinds:
            if k not in self.labels:
                raise ConfigError(f"gazetteer kind {k!r} has no label; give one in labels={{{k!r}: ...}}")
            self.scores.setdefault(k, 0.7)
        builtin = tuple(sorted(k for k in self.kinds if k in _FILES))
        base = _builtin_index(lang, builtin, accents)
        if user_lists:
            idx = PhraseIndex(lang, accents=accents)
            idx._index = {k: list(v) for k, v in base._index.items()}
            idx._lengths = dict(base._lengths)
            idx._plan = None
            for kind, path in sorted(user_lists.items()):
                idx.add_all(read_user_list(path, kind))
            self.index = idx
        else:
            self.index = base
        self.use_hospital_pattern = "hospital_pattern" in self.kinds
        if allowlist is True:
            from clinanon.detect.allowlist import AllowList

            self.allowlist = AllowList(lang)
        elif allowlist is None or allowlist is False:
            self.allowlist = None
        else:
            self.allowlist = allowlist

    def __repr__(self) -> str:
        return f"GazetteerDetector(lang={self.lang!r}, kinds={self.kinds!r}, entries={len(self.index)})"

    def detect(self, doc: Document) -> list[Span]:
        """Candidate spans on ``doc.text`` (may overlap; sorted)."""
        return self.analyze(doc.text)

    def analyze(self, text: str, tokens: Sequence[Token] | TokenTable | None = None) -> list[Span]:
        """Candidate spans on ``text``; ``tokens`` (a token list or a :class:`~clinanon.text.TokenTable`) defaults
        to the tokens of ``text`` (:func:`clinanon.text.token_table`). Sorted, may overlap."""
        table = _as_table(text, tokens)
        norm = folded_words(table, self.accents == "fold")
        kinds = self.kinds
        hits = [m for m in self.index._match(text, table, norm, self.case)
                if m[4] in kinds and self._plausible(text, table, m)
                and (m[4] not in _PLACE_KINDS or self._place_ok(text, table, norm, m))]
        # spans as tuples in Span field order: the same set, the same sort order, one Span per distinct tuple
        found: set[tuple[int, int, str, str, float]] = set()
        if hits:
            name_extents = {(m[2], m[3]) for m in hits if m[4] == "first_name"}
            first_name_score = self.scores.get("first_name", 0.7) - 0.05
            sources: dict[tuple[str, str], str] = {}
            for _i, _j, start, end, kind, attr in hits:
                src = sources.get((kind, attr))
                if src is None:
                    src = sources[(kind, attr)] = f"{self.name}:{kind}" + (f":{attr}" if attr else "")
                score = self.scores[kind]
                if kind == "country" and (start, end) in name_extents:  # "Mauricio", "Israel"
                    score = min(score, first_name_score)
                found.add((start, end, self.labels[kind], src, round(score, 4)))
        if self.use_hospital_pattern:
            found.update((s.start, s.end, s.label, s.source, s.score) for s in self._hospitals(text, table, norm))
        rows = sorted(found)
        allowlist = self.allowlist
        # the rows hold token offsets (start < end) and this detector's labels and scores: when those are valid
        # (and no user-labelled denied term can be added), the spans skip the checks of Span.__post_init__
        make = (Span.trusted if all(self.labels.values()) and all(0.0 <= v <= 1.0 for v in self.scores.values())
                and self.scores.get("first_name", 0.7) >= 0.05 and not getattr(allowlist, "_deny", None) else Span)
        if allowlist is None:
            return [make(*r) for r in rows]
        if type(allowlist).filter is _allowlist_filter():  # the built-in filter, on tuples (fewer Span objects)
            return [make(*r) for r in allowlist._filter_rows(text, rows, table)]  # type: ignore[attr-defined]
        return allowlist.filter(text, [Span(*r) for r in rows], table)  # type: ignore[attr-defined]

    def _plausible(self, text: str, table: TokenTable, m: _RawMatch) -> bool:
        """Reject name hits that start in lower case (a particle: "de León"), single-token hits that are too
        short, and short ALL-CAPS ones outside an all-caps run (``ANA``, ``EVA`` as lab acronyms)."""
        i, j, start, end, kind, _attr = m
        w = text[start:end]
        if kind in _NAME_KINDS and self.case != "fold" and not w[:1].isupper():
            return False  # "de León" alone: the particle belongs to a name only after a first name
        if j - i != 1:
            return True
        if len(w) < 2 or not any(map(str.isalpha, w)):
            return False
        if kind == "hospital":
            return True  # a listed hospital acronym ("OLVG", "UKE") is no lab acronym
        short_caps = self.case != "fold" and w.isupper() and len(w) <= 4
        return not short_caps or self._caps_neighbour(text, table, i)

    def _place_ok(self, text: str, table: TokenTable, norm: Sequence[str], m: _RawMatch) -> bool:
        """A city or region hit is not the tail of an organisation's name ("AOK Hessen": a health insurer), and a
        one-word one that is also a common word of the language (:func:`common_places`: "Hoorn", "Puno" ~ "puño")
        needs place context (:func:`place_context`)."""
        i, j = m[0], m[1]
        if i > 0 and _org_before(text, table, norm, i, self.lang):
            return False
        if j - i == 1 and norm[i] in common_places(self.lang, self.accents == "fold"):
            return place_context(text, table, norm, i, self.lang)
        return True

    @staticmethod
    def _caps_neighbour(text: str, table: TokenTable, i: int) -> bool:
        starts, ends, words = table.starts, table.ends, table.words
        for k in (i - 1, i + 1):
            if 0 <= k < len(starts):
                gap = text[ends[min(i, k)]:starts[max(i, k)]]
                w = words[k]
                if "\n" not in gap and len(w) > 1 and w.isalpha() and w.isupper():
                    return True
        return False

    # hospital "head word + name" pattern
    def _hospitals(self, text: str, table: TokenTable, norm: Sequence[str]) -> list[Span]:
        heads, suffixes = _hospital_heads(self.lang, self.accents)
        particles = _PARTICLES.get(self.lang, frozenset())
        stop = _HOSPITAL_STOP.get(self.lang, frozenset())
        starts, ends, words = table.starts, table.ends, table.words
        out: list[Span] = []
        base = self.scores["hospital_pattern"]
        label = self.labels["hospital_pattern"]
        src = f"{self.name}:hospital_pattern"
        best: dict[int, PhraseMatch] = {}
        for raw in heads._match(text, table, norm, "fold"):
            if raw[0] not in best or raw[1] > best[raw[0]].j:
                best[raw[0]] = PhraseMatch(*raw)
        for i in sorted(best):
            m = best[i]
            head_cap = _is_cap_word(text[m.start:m.end])
            start_tok, end_tok = m.i, m.j
            if m.attr in ("R", "B"):
                end_tok = self._extend_right(text, table, norm, m.j, particles, stop)
            if m.attr in ("L", "B") and end_tok == m.j:
                start_tok = self._extend_left(text, table, norm, m.i, particles, stop)
            if start_tok == m.i and end_tok == m.j:
                continue
            score = base if head_cap else max(0.0, base - 0.25)
            if not head_cap and end_tok == m.j:
                # a lower-case head after the name ("Sundsvalls sjukhus", "Visby lasarett": Swedish writes it so)
                # needs a Title-case name word before it that is not a common word ("Inget sjukhus")
                from clinanon.detect.caseless import common_lexicon

                common = common_lexicon(self.lang)
                if not any(_is_title(words[k]) and norm[k] not in common for k in range(start_tok, m.i)):
                    continue
                score = base
            elif not head_cap and not any(_is_title(words[k]) for k in range(m.j, end_tok)):
                continue  # "clínica de la AR": a lower-case head needs a Title-case name word
            out.append(Span(starts[start_tok], ends[end_tok - 1], label, src, score))
        if suffixes:
            min_len = min(len(suf) for suf, _ in suffixes) + 3
            for i, low in enumerate(norm):
                if len(low) < min_len or not low.endswith(_suffix_tuple(suffixes)):
                    continue
                w = words[i]
                if not _is_cap_word(w):
                    continue
                for suf, direction in suffixes:
                    if len(low) > len(suf) + 2 and low.endswith(suf):
                        prefix = low[: -len(suf)]
                        end_tok = self._extend_right(text, table, norm, i + 1, particles, stop)
                        if end_tok == i + 1 and (direction == "CR"  # "Fachklinik", "Augenklinik" alone: generic
                                                 or prefix.rstrip("-s") in _GENERIC_PREFIX.get(self.lang, ())):
                            break
                        out.append(Span(starts[i], ends[end_tok - 1], label, src, base))
                        break
        return out

    def _extend_right(self, text: str, table: TokenTable, norm: Sequence[str], j: int,
                      particles: frozenset[str], stop: frozenset[str]) -> int:
        """Index after the last name token following token ``j - 1`` (``j`` when there is none)."""
        starts, ends, words = table.starts, table.ends, table.words
        end = j
        k = j
        n = len(starts)
        pending = 0  # particles / digits / quotes waiting for a capitalised word
        while k < n and k - j < 12:
            if _gap_kind(text[ends[k - 1]:starts[k]]) is None:
                break
            w = words[k]
            low = norm[k]
            if w.isdigit():
                if k + 1 >= n or norm[k + 1] not in particles:  # "12 de Octubre", not "31008 Pamplona"
                    break
                pending += 1
            elif k == j and low in _NO_FIRST:
                break  # "Clínica y Dietética": a name does not start with a conjunction
            elif w in ('"', "«", "»", "“", "”", "'", "’", "-") or low in particles:
                pending += 1
                if w in ('"', "»", "”", ")") and end == k:  # closing quote right after a name word
                    end = k + 1
                    pending = 0
            elif (_is_cap_word(w) and not self._abbreviation(text, table, k)
                  and (low not in stop or (low in _STREET_WORDS and norm[k - 1] in particles))):
                end = k + 1
                pending = 0
            else:
                break
            k += 1
        return end

    @staticmethod
    def _abbreviation(text: str, table: TokenTable, k: int) -> bool:
        """A one-letter word followed by a dot (``P.``, ``C.``): an address abbreviation, not a name word
        (longer ones, ``Avda.``, ``Ctra.``, are stop words)."""
        e = table.ends[k]
        return e - table.starts[k] == 1 and text[e:e + 1] == "."

    def _extend_left(self, text: str, table: TokenTable, norm: Sequence[str], i: int,
                     particles: frozenset[str], stop: frozenset[str]) -> int:
        starts, ends, words = table.starts, table.ends, table.words
        start = i
        k = i - 1
        while k >= 0 and i - k <= 8:
            if _gap_kind(text[ends[k]:starts[k + 1]]) is None:
                break
            w = words[k]
            low = norm[k]
            if _is_cap_word(w) and low not in stop:
                start = k
            elif w == "." and not (k > 0 and len(words[k - 1]) <= 3 and words[k - 1].isalpha()):
                break  # a sentence's end ("Psychiatrie. Marburger Klinik"), not an abbreviation's dot ("St.")
            elif low in particles or w in ("'", "’", "-", "."):
                pass
            else:
                break
            k -= 1
        return start
