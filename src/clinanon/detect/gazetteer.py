"""Gazetteer detection: token-aware look-up of names, places and hospitals in word lists.

The lists ship inside the package (``clinanon/data/gazetteers/<lang>/*.txt``, built by
``scripts/build_gazetteers.py`` from Faker's locale providers, Babel/CLDR and a few hand-written tables) and are
loaded at first use, cached per ``(lang, kind, accent folding)``.

Matching works on tokens (:func:`clinanon.text.tokenize`): every entry is tokenized with the same tokenizer and
stored under its tuple of folded tokens in a dict (a :class:`clinanon.lang.phrases.PhraseIndex`); a text is
scanned once, and at each token whose folded form starts an entry the few possible entry lengths are looked up.
No per-entry regex, so the cost is linear in the text length (times the longest entry, a handful of tokens).

Case policy (``case``): ``"exact"`` needs the entry's own case (a capitalised first letter is also accepted on
the first token); ``"upper_ok"`` (default) also accepts ALL-CAPS tokens (``GARCÍA``); ``"fold"`` ignores
case. Accent policy (``accents``): ``"fold"`` (default) lets ``Garcia`` match ``García``; ``"exact"`` does not.

Labels: first names and surnames -> ``NAME``; cities -> ``LOCATION.CITY``; regions (states, provinces) ->
``LOCATION.STATE``; countries -> ``LOCATION.COUNTRY``; hospitals (list entries and the "hospital word + name"
pattern) -> ``LOCATION.HOSPITAL``.
The span's ``source`` says which list matched (``gazetteer:first_name:F``, ``gazetteer:surname``,
``gazetteer:city``, ``gazetteer:hospital_pattern`` ...), so later steps (name assembly, surrogates) can use the
gender or kind. The detector returns every candidate, overlapping ones included; :mod:`clinanon.steps.resolve`
chooses among them.

English names alone (:meth:`GazetteerDetector._bare_name_ok`): a one-word first name or surname in capitals
("MAE", "LE" in a note typed in capitals), or a common word capitalised at a sentence's start ("Will call"), is
reported only with name context (a title, role or kinship word, "spoke with" before it, a credential after it),
next to another name, or when it is specific: not a common word and frequent as a name in the 1990 US Census
(:func:`name_frequency`, ``gazetteers/en/name_frequency.txt``). English hospital names found by the pattern leave
out a generic last word ("St Mary hospital" -> "St Mary"), as the English care-site rules do.

Places that are also words (:mod:`clinanon.detect.gazetteer_context` holds these heuristics): a one-word city or
region entry that is a common word of the language (``common_places``: "Hoorn" ~ "hoorn", "Puno" ~ "puño",
compared folded) is reported only with place context (``place_context``: a place preposition, a postcode, an
address line, a comma, a line of its own), as :mod:`clinanon.detect.caseless` does for such words in text typed in
capitals; a city or region right after a word that heads an organisation's name ("AOK Hessen", a health insurer)
is not reported. Listed hospitals are reported in capitals too ("OLVG", "UKE"); the pattern takes lower-case
Swedish heads after a name ("Sundsvalls sjukhus") and German ``-klinik`` compounds before one ("Fachklinik Bad Rodach").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from clinanon.caches import memo
from clinanon.detect.allowlist import AllowList
from clinanon.detect.gazetteer_context import (
    HOSPITAL_GENERIC_PREFIX,
    HOSPITAL_NO_FIRST,
    HOSPITAL_PARTICLES,
    HOSPITAL_STOP,
    HOSPITAL_STREET_WORDS,
    common_places,
    hospital_heads,
    org_before_place,
    place_context,
    strict_place_context,
)
from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.lang import check_language
from clinanon.lang.fold import fold, fold_uncached, folded_words
from clinanon.lang.lexicon import common_lexicon
from clinanon.lang.phrases import AccentMode, CaseMode, PhraseIndex, PhraseMatch, RawMatch, as_table, gap_kind
from clinanon.lang.wordlists import LIST_FILES, context_cities, data_dir, load_rows, read_rows, read_user_list
from clinanon.text import Token, TokenTable

__all__ = [
    "BUILTIN_KINDS",
    "DEFAULT_KINDS",
    "DEFAULT_LABELS",
    "DEFAULT_SCORES",
    "GazetteerDetector",
    "census_names",
    "context_city_keys",
    "en_name_alone_ok",
    "name_frequency",
]

#: kinds with a built-in list (:data:`clinanon.lang.wordlists.LIST_FILES`) and the hospital name pattern
BUILTIN_KINDS: tuple[str, ...] = (*LIST_FILES, "hospital_pattern")
DEFAULT_KINDS: tuple[str, ...] = BUILTIN_KINDS

DEFAULT_LABELS: Mapping[str, str] = {
    "first_name": "NAME",
    "surname": "NAME",
    "city": "LOCATION.CITY",
    "region": "LOCATION.STATE",
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


def _words(words: str) -> frozenset[str]:
    return frozenset(words.split())


#: words right before a name in English notes: titles, roles, kinship, talking and paging verbs ("dr", "son",
#: "spoke with", "paged", "per")
_EN_NAME_BEFORE = _words(
    "dr drs doctor mr mrs ms miss mister madam sir prof professor np rn pa ho nurse resident intern fellow attending "
    "physician surgeon rt rrt sw chaplain md pt patient wife husband son daughter dtr dau sister brother sis bro "
    "mother father mom dad mum friend neighbor neighbour niece nephew grandson granddaughter grandmother "
    "grandfather aunt uncle cousin partner fiance fiancee girlfriend boyfriend spouse stepson stepdaughter sil "
    "dil hcp proxy poa guardian caregiver daughters sons sisters brothers with to per by called paged spoke "
    "talked updated notified informed aware named dear")
#: kinship words that name lists also hold as names ("Son", a Korean surname and a Vietnamese given name): alone,
#: in English notes, the kin before a name ("BY SON TERRENCE"), never the name
EN_KIN_WORDS = _words("son sons wife husband daughter daughters dtr mother father brother sister niece nephew aunt "
                       "uncle cousin friend partner neighbor neighbour grandson granddaughter boyfriend girlfriend")
#: credentials and roles right after a name ("irene, rn", "SMITH MD")
_EN_NAME_AFTER = _words(
    "rn bsn msn lpn np cnp fnp aprn crna rrt rt md do pa slp msw lcsw licsw phd pharmd rd ccrn sn jr sr ii iii "
    "aware notified paged called says said")
#: generic last words of an English hospital's name, left out of the span as the English care-site rules do
#: (:mod:`clinanon.detect.rules.care_sites`) and the PhysioNet gold has it: "Harbor hospital" -> "Harbor", "Kessler
#: Medical Center" -> "Kessler", "General Hospital" keeps "General"; a head that names a kind of care ("Cancer
#: Center", "Clinic") stays in. Folded token tuples, matched at the end of the head.
_EN_GENERIC_HEAD_ENDS = (("medical", "center"), ("medical", "centre"), ("health", "center"), ("health", "centre"),
                         ("infirmary",), ("hospital",), ("hospitals",), ("hosp",))
#: the English head "Clinic" after a specialty or a kind of care names a department, not a place of its own
#: ("Nephrology Clinic", "ORTHOPAEDIC CLINIC NOTE", "Memory Clinic"; not "Lahey Clinic")
EN_CLINIC_SPECIALTY = re.compile(
    r"[a-z]*(?:ology|ologic|ological|iatry|iatric|iatrics|pedic|pedics|paedic|paedics|ics|ical)|adult|pain|"
    r"memory|wound|diabetes|heart|lung|kidney|renal|liver|breast|eye|skin|sleep|travel|anticoagulation|coumadin|"
    r"warfarin|infusion|dialysis|transplant|fertility|urgent|prenatal|family|women's|womens|men's|children's|"
    r"vascular|spine|sports|hand|foot|headache|epilepsy|movement|stroke|asthma|allergy|hiv|std|vaccine|wellness|"
    r"primary|care|specialty|outpatient|inpatient|resident|residents|continuity|teaching|internal|general|"
    r"medicine|surgery|surgical|medical|walk-in|weight|bariatric|smoking|cessation|lipid|hypertension|ob|gyn|"
    r"ob/gyn|obgyn|ent|gi|id|pulmonary|cardiac|cancer|oncology|hepatitis|methadone|suboxone|addiction|behavioral|"
    r"mental|health|dental|vision|hearing|same-day|satellite|community|free")
#: a bare name that is specific enough alone (:meth:`GazetteerDetector._bare_name_ok`): the Census percent of a
#: first name, of a surname
_SPECIFIC_FIRST = 0.02
_SPECIFIC_SURNAME = 0.005


@memo(maxsize=8)
def name_frequency(lang: str) -> dict[str, tuple[float, float]]:
    """Folded first name or surname -> (percent as a first name, percent as a surname) in the population
    (``gazetteers/<lang>/name_frequency.txt``, built by ``scripts/build_name_frequency.py`` from the 1990 US
    Census; English only, empty for other languages). Names that are also common words are not in it."""
    path = data_dir(lang) / "name_frequency.txt"
    out: dict[str, tuple[float, float]] = {}
    if not path.is_file():
        return out
    for _n, cols in read_rows(path):
        if len(cols) < 3:
            continue
        key = fold(cols[0])
        first, sur = out.get(key, (0.0, 0.0))
        pct = float(cols[2])
        if cols[1] == "S":
            sur = max(sur, pct)
        else:
            first = max(first, pct)
        out[key] = (first, sur)
    return out


@memo(maxsize=8)
def census_names(lang: str) -> tuple[frozenset[str], frozenset[str]]:
    """The folded first names and surnames of :func:`name_frequency` (none are common words)."""
    freq = name_frequency(lang)
    return (frozenset(k for k, (f, _s) in freq.items() if f > 0 or _s == 0),
            frozenset(k for k, (_f, s) in freq.items() if s > 0 or _f == 0))


def en_name_alone_ok(text: str, start: int, end: int) -> bool:
    """English, for a one-word name whose capitals may be invented (a note typed in capitals, re-cased): a name
    word that is not a common word and is frequent in the Census (:data:`_SPECIFIC_FIRST`,
    :data:`_SPECIFIC_SURNAME`), or one after a title, role or kinship word (:data:`_EN_NAME_BEFORE`)."""
    w = text[start:end]
    low = fold(w)
    before = text[max(0, start - 24):start].replace(",", " ").replace(".", " ").split()
    if before and fold(before[-1]) in _EN_NAME_BEFORE:
        return True
    if low in common_lexicon("en") or len(w) < 4:
        return False
    first, sur = name_frequency("en").get(low, (0.0, 0.0))
    return first >= _SPECIFIC_FIRST or sur >= _SPECIFIC_SURNAME


def _loose_capitals(text: str, table: TokenTable, norm: Sequence[str], named: set[int]) -> bool:
    """Whether ``text`` capitalises ordinary words inside its sentences ("cont at .5, Levo cont", "L radial
    Aline"; nursing notes do, edited prose does not): two or more Title-case words of the common lexicon that no
    name list holds, not at a sentence's start. Then a capital inside a sentence is no evidence of a name."""
    lex = common_lexicon("en")
    words, starts, ends = table.words, table.starts, table.ends
    n = 0
    for k in range(1, len(words)):
        w = words[k]
        if len(w) < 2 or not _is_title(w) or k in named or norm[k] not in lex:
            continue
        gap = text[ends[k - 1]:starts[k]]
        if "\n" in gap or words[k - 1] in (".", "!", "?", ":", ";", "-", "*", "•", ")", '"'):
            continue
        n += 1
        if n >= 2:
            return True
    return False


def _attr_of(kind: str, cols: Sequence[str]) -> str:
    if kind == "first_name" and len(cols) > 1 and cols[1] in ("F", "M", "N"):
        return cols[1]
    return ""


@memo(maxsize=32)
def _builtin_index(lang: str, kinds: tuple[str, ...], accents: AccentMode) -> PhraseIndex:
    idx = PhraseIndex(lang, accents=accents)
    for kind in kinds:
        if kind in LIST_FILES:
            for cols in load_rows(lang, kind):
                idx.add(cols[0], kind, _attr_of(kind, cols))
    census = _census_entries(lang)
    for kind in kinds:
        for name in census.get(kind, ()):
            idx.add(name, kind, "")
    if "city" in kinds:
        for name in context_cities(lang):  # one-word ones need place context (common_places)
            idx.add(name, "city", "")
    return idx


@memo(maxsize=8)
def context_city_keys(lang: str, accents: bool) -> frozenset[str]:
    """The folded one-word :func:`~clinanon.lang.wordlists.context_cities` (people's names as well)."""
    return frozenset(fold_uncached(n, accents) for n in context_cities(lang) if n.isalpha())


def _census_entries(lang: str) -> dict[str, list[str]]:
    """English: the US Census first names and surnames (:func:`name_frequency`; none is a common word) that the
    shipped lists lack ("Pattison", "McCollum"), as entries of the ``first_name`` / ``surname`` lists."""
    freq = name_frequency(lang)
    if not freq:
        return {}
    listed = {kind: {fold(cols[0]) for cols in load_rows(lang, kind)} for kind in ("first_name", "surname")}
    places = {fold(cols[0]) for kind in ("country", "region") for cols in load_rows(lang, kind)}
    out: dict[str, list[str]] = {"first_name": [], "surname": []}
    for key, (first, sur) in sorted(freq.items()):
        if key in places:
            continue  # "France", "Georgia": a country or a state first
        if first > 0 and key not in listed["first_name"]:
            out["first_name"].append(key.title())
        if sur > 0 and key not in listed["surname"]:
            out["surname"].append(key.title())
    return out


def en_specialty_clinic(words: Iterable[str]) -> bool:
    """Whether the words before an English head "Clinic" all name a specialty or a kind of care, so that the
    clinic is a department, not a place of its own ("Nephrology Clinic", "Women's Health Clinic", "Walk-In
    Clinic", "Pain & Wound Clinic"; not "Lahey Clinic"). Words are surface words split on blanks; a word without a
    letter ("&", "/") says nothing either way. Shared by the gazetteer and the care-site rules."""
    seen = False
    for w in words:
        w = w.strip(".,;:()[]\"").casefold()
        if not any(c.isalpha() for c in w):
            continue
        if EN_CLINIC_SPECIALTY.fullmatch(w) is None:
            return False
        seen = True
    return seen


def _en_without_generic_head(norm: Sequence[str], words: Sequence[str], start: int, end: int) -> int:
    """The end of an English care site's name whose head ends at token ``end``, without a generic last part
    (:data:`_EN_GENERIC_HEAD_ENDS`) nor the punctuation before it, when name words remain before it."""
    for tail in _EN_GENERIC_HEAD_ENDS:
        cut = end - len(tail)
        if cut > start and tuple(norm[cut:end]) == tail:
            while cut > start and words[cut - 1] in ("'", "’", "-", "."):
                cut -= 1
            return cut
    return end


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
    :class:`clinanon.steps.resolve.Resolver`).
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
        check_language(lang, exact=True)
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
        builtin = tuple(sorted(k for k in self.kinds if k in LIST_FILES))
        base = _builtin_index(lang, builtin, accents)
        if user_lists:
            idx = base.copy()
            for kind, path in sorted(user_lists.items()):
                idx.add_all(read_user_list(path, kind))
            self.index = idx
        else:
            self.index = base
        self.use_hospital_pattern = "hospital_pattern" in self.kinds
        if allowlist is True:
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
        table = as_table(text, tokens)
        norm = folded_words(table, self.accents == "fold")
        kinds = self.kinds
        hits = [m for m in self.index.match_tuples(text, table, norm, self.case)
                if m[4] in kinds and self._plausible(text, table, m)
                and (m[4] not in _PLACE_KINDS or self._place_ok(text, table, norm, m))]
        if self.lang == "en" and hits:
            named = {m[0] for m in hits if m[4] in _NAME_KINDS} | {m[1] - 1 for m in hits if m[4] in _NAME_KINDS}
            loose = _loose_capitals(text, table, norm, named)
            hits = [m for m in hits if m[4] not in _NAME_KINDS or m[1] - m[0] != 1
                    or (norm[m[0]] not in EN_KIN_WORDS and self._bare_name_ok(text, table, norm, m, named, loose))]
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
        if type(allowlist).filter is AllowList.filter:  # the built-in filter, on tuples (fewer Span objects)
            return [make(*r) for r in allowlist._filter_rows(text, rows, table)]  # type: ignore[attr-defined]
        return allowlist.filter(text, [Span(*r) for r in rows], table)  # type: ignore[attr-defined]

    def _plausible(self, text: str, table: TokenTable, m: RawMatch) -> bool:
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

    def _bare_name_ok(self, text: str, table: TokenTable, norm: Sequence[str], m: RawMatch,
                      named: set[int], loose: bool = False) -> bool:
        """English: a one-word first name or surname in capitals ("MAE", "LE", "DOUGLAS" in a note typed in
        capitals) or one that is also a common word ("Will", "Grace") is a name only next to another name or
        with name context (a title, a role, a kinship word, "spoke with" before it, a credential after it), or
        when it is specific: not a common word, four letters or more, and frequent as a name in the Census
        (:func:`name_frequency`)."""
        i = m[0]
        w = text[m[2]:m[3]]
        low = norm[i]
        common = low in common_lexicon("en")
        starts, ends, words = table.starts, table.ends, table.words
        n = len(starts)
        if not w.isupper() and (not common or not (loose or self._sentence_start(text, table, i))):
            return True  # a capital inside a sentence of mixed-case text is a name's ("Why is Katrine so")
        for k in (i - 1, i + 1):  # another name word right next to it ("KOWALSKI BAKER"), not for a word ("SON")
            if (not common and 0 <= k < n and k in named
                    and "\n" not in text[ends[min(i, k)]:starts[max(i, k)]]):
                return True
        k = i - 1
        while k >= 0 and words[k] in (".", ",", ":"):
            k -= 1
        if k >= 0 and norm[k] in _EN_NAME_BEFORE and "\n" not in text[ends[k]:starts[i]]:
            return True
        k = i + 1
        while k < n and words[k] in (",", "-", "/"):
            k += 1
        if k < n and norm[k] in _EN_NAME_AFTER and "\n" not in text[ends[i]:starts[k]]:
            return True
        if common or len(w) < 4:
            return False
        first, sur = name_frequency("en").get(low, (0.0, 0.0))
        return first >= _SPECIFIC_FIRST or sur >= _SPECIFIC_SURNAME

    @staticmethod
    def _sentence_start(text: str, table: TokenTable, i: int) -> bool:
        """Whether token ``i`` starts a sentence or a line (where a common word is capitalised too)."""
        if i == 0:
            return True
        gap = text[table.ends[i - 1]:table.starts[i]]
        return "\n" in gap or table.words[i - 1] in (".", "!", "?", ":", ";", "-", "*", "•", ")", '"')

    def _place_ok(self, text: str, table: TokenTable, norm: Sequence[str], m: RawMatch) -> bool:
        """A city or region hit is not the tail of an organisation's name ("AOK Hessen": a health insurer), and a
        one-word one that is also a common word of the language (:func:`common_places`: "Hoorn", "Puno" ~ "puño")
        needs place context (:func:`place_context`)."""
        i, j = m[0], m[1]
        if i > 0 and org_before_place(text, table, norm, i, self.lang):
            return False
        if j - i == 1 and norm[i] in common_places(self.lang, self.accents == "fold"):
            if norm[i] in context_city_keys(self.lang, self.accents == "fold"):
                return strict_place_context(table, norm, i, self.lang)
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
        heads, suffixes = hospital_heads(self.lang, self.accents)
        particles = HOSPITAL_PARTICLES.get(self.lang, frozenset())
        stop = HOSPITAL_STOP.get(self.lang, frozenset())
        starts, ends, words = table.starts, table.ends, table.words
        out: list[Span] = []
        base = self.scores["hospital_pattern"]
        label = self.labels["hospital_pattern"]
        src = f"{self.name}:hospital_pattern"
        best: dict[int, PhraseMatch] = {}
        for raw in heads.match_tuples(text, table, norm, "fold"):
            if raw[0] not in best or raw[1] > best[raw[0]].j:
                best[raw[0]] = PhraseMatch(*raw)
        for i in sorted(best):
            m = best[i]
            head_cap = _is_cap_word(text[m.start:m.end])
            start_tok, end_tok = m.i, m.j
            if m.attr in ("R", "B"):
                end_tok = self._extend_right(text, table, norm, m.j, particles, stop)
                if self.lang == "en" and end_tok > m.j and all(
                        norm[k] in common_lexicon("en") or not any(map(str.isalpha, words[k]))
                        for k in range(m.j, end_tok)):
                    end_tok = m.j  # "HOSPITAL FOR", "Hospital Stay": common words, not a name
            if m.attr in ("L", "B") and end_tok == m.j:
                start_tok = self._extend_left(text, table, norm, m.i, particles, stop)
            if start_tok == m.i and end_tok == m.j:
                continue
            score = base if head_cap else max(0.0, base - 0.25)
            if not head_cap and end_tok == m.j:
                # a lower-case head after the name ("Sundsvalls sjukhus", "Visby lasarett": Swedish writes it so)
                # needs a Title-case name word before it that is not a common word ("Inget sjukhus")
                common = common_lexicon(self.lang)
                if not any(_is_title(words[k]) and norm[k] not in common for k in range(start_tok, m.i)):
                    continue
                score = base
            elif not head_cap and not any(_is_title(words[k]) for k in range(m.j, end_tok)):
                continue  # "clínica de la AR": a lower-case head needs a Title-case name word
            if (self.lang == "en" and end_tok == m.j and start_tok < m.i and norm[m.j - 1] == "clinic"
                    and en_specialty_clinic(text[starts[start_tok]:starts[m.i]].split())):
                continue  # "Nephrology Clinic", "ORTHOPAEDIC CLINIC NOTE": a specialty's clinic is a department
            if self.lang == "en" and end_tok == m.j:
                end_tok = _en_without_generic_head(norm, words, start_tok, m.j)
            if self.lang == "nl" and not head_cap and start_tok == m.i and end_tok > m.j:
                start_tok = m.j  # "verpleeghuis [De Koperhorst]": a lower-case head before the name stays out
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
                                                 or prefix.rstrip("-s") in HOSPITAL_GENERIC_PREFIX.get(self.lang, ())):
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
            if gap_kind(text[ends[k - 1]:starts[k]]) is None:
                break
            w = words[k]
            low = norm[k]
            if w.isdigit():
                if k + 1 >= n or norm[k + 1] not in particles:  # "12 de Octubre", not "31008 Pamplona"
                    break
                pending += 1
            elif k == j and low in HOSPITAL_NO_FIRST:
                break  # "Clínica y Dietética": a name does not start with a conjunction
            elif w in ('"', "«", "»", "“", "”", "'", "’", "-") or low in particles:
                pending += 1
                if w in ('"', "»", "”", ")") and end == k:  # closing quote right after a name word
                    end = k + 1
                    pending = 0
            elif (_is_cap_word(w) and not self._abbreviation(text, table, k)
                  and (low not in stop or (low in HOSPITAL_STREET_WORDS and norm[k - 1] in particles))):
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
            if gap_kind(text[ends[k]:starts[k + 1]]) is None:
                break
            w = words[k]
            low = norm[k]
            if _is_cap_word(w) and low not in stop:
                if self.lang == "en" and low in common_lexicon("en") and words[k + 1] in ("the", "a", "an"):
                    break  # "Called the Lahey Clinic": a word before a lower-case article starts no name
                if self.lang == "en" and len(w) > 1 and w.isupper() and _is_title(words[i]):
                    break  # "ED TRIAGE NOTE  Lakeview Regional Hospital": a title in capitals is no part of it
                start = k
            elif w == "." and not (k > 0 and len(words[k - 1]) <= 3 and words[k - 1].isalpha()):
                break  # a sentence's end ("Psychiatrie. Marburger Klinik"), not an abbreviation's dot ("St.")
            elif self.lang == "de" and w.isalpha() and low in particles:
                break  # "Behandlung im St.-Lukas-Klinikum": German particles follow the head ("Klinikum am X")
            elif low in particles or w in ("'", "’", "-", "."):
                pass
            else:
                break
            k -= 1
        return start
