"""Token features for sequence taggers (the CRF): cached per word type, plus per-position context.

A document becomes one feature list per token of :func:`clinanon.text.tokenize` (so tags align with the
tokenizer that MEDDOCAN's annotations fit). Each feature is a plain string (a binary CRFsuite attribute).

Word-type features (computed once per distinct word and cached, since words repeat):

* identity (lower-cased), prefixes and suffixes of 2 and 3 characters, length (capped), all-letters / number /
  punctuation / mixed, the token ``@``, casing class (lower / upper / title / mixed), a collapsed shape
  (``"Xx"``, ``"d"``, ``"X.X"``), ratios (in quarters) of upper-case letters, digits and punctuation;
* gazetteer membership from the lists that ship with clinanon: first name with gender, surname, city/region,
  country, hospital word (``clinanon/data/gazetteers/<lang>/``), plus small street-type and kinship word lists;
* the same, reduced, for the neighbours at -2..+2 (identity, shape, suffix, class, gazetteer flags at ±1;
  identity and shape at ±2) -- cached per word type too.

Position features (per token):

* sentence begin/end (:func:`clinanon.text.split_sentences` rules) and line begin/end, position in the line;
* the field label to the left on the same line (``"Nombre:"`` -> ``F=nombre``) and the distance to its colon;
  a line that ends with a field label (``"Remitido por:"``) passes it to the next line (``Fp=por``);
* the word bigram (previous word, this word), and runs of capitalised words joined by connectors
  (``"Hospital Virgen de la Arrixaca"``): begin / inside / last and the run's length;
* the shape of the whole line (collapsed classes of its first tokens, e.g. ``X:X``), its first word, its length;
* rule-detector matches mapped to tokens: ``R=B-NAME.PATIENT`` / ``R=I-...``, the parent type, the source
  family (``RS=gazetteer:first_name``), the rule label of the neighbours;
* document-level propagation: a word that a *field* rule labelled somewhere in the document
  (``Nombre: Ana``) carries ``D=<label>`` everywhere in it.

Optional families (off by default; a model records which it was trained with):

* ``clusters``: distributional word-cluster ids (:mod:`clinanon.detect.clusters`, learned without labels from
  the training texts) of the word (``k16=``, ``k64=``, ``k256=``; ``k=none`` when unknown), of the neighbours at
  ±1 (the two finer ids) and ±2 (the coarsest) -- cached per word type;
* ``triggers``: the lexicon categories (:func:`clinanon.lang.lexicon.trigger_lexicon`: kin, org, hosp, care, comp, dept)
  of the word (``tw=``) and of the trigger words within ``trigger_window`` tokens on the same line (``tL=`` on
  the left, ``tR=`` on the right, ``tL1=`` / ``tR1=`` when adjacent);
* ``structure``: inside a parenthesis (``pa``), its comma-separated field index (``pf=``), a ``®``/``™`` sign
  earlier in it (``pr``: "(Product®, Maker, City)"), and the distance (1-3) to the next number on the line
  (``nn=``).

Guarantees: the output is a deterministic function of (text, rule spans, language, options) -- no set or hash order
leaks into feature order (CRFsuite's attribute ids, and so the model file, depend on it); features never hold
more than a word's prefix/suffix/identity (the model stores its vocabulary, as any CRF does; feature strings are
never logged). Cost: linear in the number of tokens; the word cache is bounded (``cache_size``).
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources

from clinanon.caches import memo
from clinanon.detect.clusters import WordClusters
from clinanon.document import Span
from clinanon.lang import check_language
from clinanon.lang.lexicon import trigger_lexicon
from clinanon.lang.wordlists import load_rows
from clinanon.text import Token, split_sentences, tokenize

__all__ = ["FEATURE_VERSION", "DocFeatures", "FeatureExtractor", "word_shape"]

#: bump when features change: a model records it and refuses to load with another version
FEATURE_VERSION = 1

_STREET_WORDS: dict[str, tuple[str, ...]] = {
    "es": ("calle", "c", "cl", "avenida", "avda", "avd", "av", "plaza", "pza", "pl", "paseo", "pº", "po",
           "carretera", "ctra", "crta", "camino", "cno", "ronda", "rda", "travesia", "trav", "glorieta", "glta",
           "rambla", "rua", "via", "pasaje", "pje", "urbanizacion", "urb", "barrio", "bº", "poligono", "pol",
           "callejon", "cuesta", "alameda", "bulevar", "carrer", "avinguda", "placa", "passeig", "lugar", "partida",
           "diseminado", "costanilla", "piso", "portal", "escalera", "esc", "puerta", "pta", "bajo", "izq",
           "izda", "dcha", "dch", "derecha", "izquierda", "nº", "n", "num", "numero", "s/n", "sn", "apartado"),
    "en": ("street", "st", "road", "rd", "avenue", "ave", "lane", "ln", "drive", "dr", "boulevard", "blvd",
           "court", "ct", "place", "pl", "square", "sq", "way", "terrace", "highway", "hwy", "suite", "apt",
           "unit", "box"),
    "nl": ("straat", "str", "laan", "weg", "plein", "kade", "gracht", "singel", "dijk", "dreef", "hof",
           "steeg", "pad", "park", "markt"),
    "sv": ("gatan", "gata", "vägen", "väg", "torget", "torg", "gränd", "allén", "allé", "stigen", "backen",
           "plan", "vag"),
    "de": ("straße", "strasse", "str", "weg", "platz", "allee", "gasse", "ring", "damm", "ufer", "chaussee",
           "markt", "hausnummer"),
}
#: kinship words (MEDDOCAN annotates relatives: "su madre", "un hermano")
_KIN_WORDS: dict[str, tuple[str, ...]] = {
    "es": ("madre", "padre", "padres", "hijo", "hija", "hijos", "hijas", "hermano", "hermana", "hermanos",
           "hermanas", "abuelo", "abuela", "abuelos", "abuelas", "tio", "tia", "tios", "tias", "primo", "prima",
           "primos", "primas", "sobrino", "sobrina", "sobrinos", "sobrinas", "nieto", "nieta", "nietos", "nietas",
           "esposo", "esposa", "marido", "mujer", "pareja", "conyuge", "familia", "familiar", "familiares",
           "materno", "materna", "paterno", "paterna", "gemelo", "gemela", "gemelos", "cunado", "cunada", "suegro",
           "suegra", "novio", "novia", "progenitor", "progenitora", "progenitores", "bisabuelo", "bisabuela",
           "hermanastro", "hermanastra", "padrastro", "madrastra", "tutor", "tutora", "acompanante"),
    "en": ("mother", "father", "parents", "parent", "son", "daughter", "sons", "daughters", "brother", "sister",
           "brothers", "sisters", "sibling", "siblings", "grandmother", "grandfather", "grandparents", "aunt",
           "uncle", "cousin", "nephew", "niece", "grandson", "granddaughter", "wife", "husband", "spouse",
           "partner", "family", "twin", "mom", "dad", "maternal", "paternal", "guardian", "fiance", "fiancee"),
    "nl": ("moeder", "vader", "ouders", "zoon", "dochter", "broer", "zus", "zuster", "oma", "opa", "tante",
           "oom", "neef", "nicht", "echtgenoot", "echtgenote", "partner", "familie", "tweeling", "man", "vrouw"),
    "sv": ("mor", "far", "mamma", "pappa", "föräldrar", "son", "dotter", "bror", "syster", "syskon", "mormor",
           "morfar", "farmor", "farfar", "moster", "faster", "morbror", "farbror", "kusin", "make", "maka",
           "sambo", "partner", "familj", "tvilling"),
    "de": ("mutter", "vater", "eltern", "sohn", "tochter", "bruder", "schwester", "geschwister", "großmutter",
           "großvater", "oma", "opa", "tante", "onkel", "cousin", "cousine", "neffe", "nichte", "ehemann",
           "ehefrau", "partner", "partnerin", "familie", "zwilling", "lebensgefährte", "lebensgefährtin"),
}
#: lower-case words that may join the capitalised words of one name ("Hospital Virgen de la Arrixaca")
_CONNECTORS = frozenset({"de", "del", "la", "las", "los", "el", "y", "i", "e", "d", "da", "do", "dos", "das", "di",
                         "du", "van", "der", "den", "von", "zu", "of", "the", "and", "och", "san", "santa"})
_FIELD_SEPARATORS = frozenset({":", "="})


def _fold(s: str) -> str:
    s = s.casefold()
    if s.isascii():
        return s
    return "".join(c for c in unicodedata.normalize("NFD", s) if not unicodedata.combining(c))


def word_shape(word: str, limit: int = 8) -> str:
    """The collapsed character-class shape of ``word``: upper ``X``, lower ``x``, digit ``d``, other characters
    as themselves, runs of one class collapsed (``"García"`` -> ``"Xx"``, ``"28029"`` -> ``"d"``), cut at
    ``limit`` characters."""
    out: list[str] = []
    last = ""
    for c in word:
        if c.isalpha():
            k = "X" if c.isupper() else "x"
        elif c.isdigit():
            k = "d"
        else:
            k = c
        if k != last:
            out.append(k)
            last = k
            if len(out) >= limit:
                break
    return "".join(out)


def _case_class(word: str) -> str:
    if not any(c.isalpha() for c in word):
        return "none"
    if word.islower():
        return "lower"
    if word.isupper():
        return "upper"
    if word[0].isupper() and (len(word) == 1 or word[1:].islower()):
        return "title"
    return "mixed"


def _type_class(word: str) -> str:
    if word.isalpha():
        return "alpha"
    if word.isdigit():
        return "num"
    if not any(c.isalnum() for c in word):
        return "punct"
    return "mixed"


def _quarter(n: int, total: int) -> int:
    return (4 * n + total // 2) // total if total else 0


@memo(maxsize=8)
def _gazetteer_flags(lang: str) -> dict[str, tuple[str, ...]]:
    """Folded single word -> the gazetteer flags it carries (deterministic order), from the shipped lists."""
    flags: dict[str, list[str]] = {}

    def add(word: str, flag: str) -> None:
        lst = flags.setdefault(word, [])
        if flag not in lst:
            lst.append(flag)

    def words(entry: str) -> list[str]:
        text = _fold(entry)
        return [text[t.start:t.end] for t in tokenize(text, lang)]

    for kind, flag in (("first_name", "fn"), ("surname", "sn"), ("city", "city"), ("region", "city"),
                       ("country", "country"), ("hospital", "hosp")):
        try:
            rows = load_rows(lang, kind)
        except Exception:  # pragma: no cover - a missing or broken list only removes a feature
            rows = ()
        for cols in rows:
            if not cols or not cols[0]:
                continue
            ws = [w for w in words(cols[0]) if any(c.isalnum() for c in w)]
            if kind == "first_name":
                gender = cols[1] if len(cols) > 1 and cols[1] in ("F", "M", "N") else "N"
                if len(ws) == 1:
                    add(ws[0], f"fn:{gender}")
                continue
            if len(ws) == 1:
                add(ws[0], flag)
            else:
                for w in ws:
                    if len(w) > 2:
                        add(w, f"{flag}_part")
    path = resources.files("clinanon") / "data" / "gazetteers" / lang / "hospital_words.txt"
    try:
        raw = path.read_text(encoding="utf-8") if path.is_file() else ""
    except OSError:  # pragma: no cover
        raw = ""
    for line in raw.splitlines():
        entry = line.split("\t", 1)[0].strip()
        if entry and not entry.startswith("#"):
            for w in words(entry):
                if len(w) > 2:
                    add(w, "hospw")
    for w in _STREET_WORDS.get(lang, ()):
        add(_fold(w), "street")
    for w in _KIN_WORDS.get(lang, ()):
        add(_fold(w), "kin")
    return {w: tuple(f) for w, f in flags.items()}


@dataclass(frozen=True, slots=True)
class DocFeatures:
    """The tokens of a text and one feature list per token (``len(features) == len(tokens)``)."""

    tokens: list[Token]
    features: list[list[str]]


_ContextTuple = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]


class FeatureExtractor:
    """Features for one language (see the module docstring). Not thread-safe (its word cache is shared).

    ``rules``: add rule-detector features (the caller passes the rule spans). ``cache_size``: the word cache
    is cleared when it holds this many word types (memory stays bounded in long runs).
    """

    def __init__(self, lang: str = "es", *, rules: bool = True, cache_size: int = 200_000,
                 clusters: WordClusters | None = None, triggers: bool = False, structure: bool = False,
                 trigger_window: int = 4) -> None:
        self.lang = check_language(lang)
        self.rules = rules
        self.cache_size = cache_size
        self.clusters = clusters
        self.triggers = triggers
        self.structure = structure
        self.trigger_window = int(trigger_window)
        self._cache: dict[str, _ContextTuple] = {}
        self._trig_cache: dict[str, tuple[str, ...]] = {}
        self._gaz = _gazetteer_flags(self.lang)
        self._lex = trigger_lexicon(self.lang) if triggers else {}

    def __repr__(self) -> str:
        return (f"FeatureExtractor(lang={self.lang!r}, rules={self.rules}, clusters={self.clusters is not None}, "
                f"triggers={self.triggers}, structure={self.structure}, cached_words={len(self._cache)})")

    # --- word types -----------------------------------------------------------------------------------------
    def _word(self, w: str) -> _ContextTuple:
        lw = w.lower()
        n = len(w)
        shape = word_shape(w)
        case = _case_class(w)
        typ = _type_class(w)
        gaz = self._gaz.get(_fold(w), ()) if typ != "punct" else ()
        up = sum(c.isupper() for c in w)
        dig = sum(c.isdigit() for c in w)
        pun = n - sum(c.isalnum() for c in w)
        f0 = ["b", "w=" + lw, "p2=" + lw[:2], "p3=" + lw[:3], "s2=" + lw[-2:], "s3=" + lw[-3:],
              f"len={min(n, 12)}", "sh=" + shape, "c=" + case, "t=" + typ,
              f"ru={_quarter(up, n)}", f"rd={_quarter(dig, n)}", f"rp={_quarter(pun, n)}"]
        if w == "@":
            f0.append("at")
        if typ == "num":
            f0.append(f"nd={min(n, 12)}")
        f0.extend("g=" + g for g in gaz)
        near = ["w=" + lw, "sh=" + shape, "s3=" + lw[-3:], "c=" + case, *("g=" + g for g in gaz)]
        far = ["w=" + lw, "sh=" + shape]
        if self.clusters is not None and typ != "punct":
            ids = self.clusters.get(w)
            if ids is None:
                f0.append("k=none")
                near.append("k=none")
            else:
                sizes = self.clusters.sizes
                f0.extend(f"k{n}={k}" for n, k in zip(sizes, ids, strict=True))
                near.extend(f"k{n}={k}" for n, k in zip(sizes[1:], ids[1:], strict=True))
                far.append(f"k{sizes[0]}={ids[0]}")
        if self.triggers:
            trig = self._lex.get(_fold(w), ()) if typ == "alpha" else ()
            f0.extend("tw=" + t for t in trig)
        return (tuple(f0), tuple("-1" + f for f in near), tuple("+1" + f for f in near),
                tuple("-2" + f for f in far), tuple("+2" + f for f in far))

    def _lookup(self, words: Sequence[str]) -> list[_ContextTuple]:
        cache = self._cache
        if len(cache) > self.cache_size:
            cache.clear()
        out = []
        for w in words:
            t = cache.get(w)
            if t is None:
                t = cache[w] = self._word(w)
            out.append(t)
        return out

    # --- documents ------------------------------------------------------------------------------------------
    def extract(self, text: str, rule_spans: Iterable[Span] = (), tokens: Sequence[Token] | None = None
                ) -> DocFeatures:
        """Features for every token of ``text``; ``rule_spans`` are the rule detector's raw candidates."""
        if tokens is None:
            tokens = tokenize(text, self.lang)
        tokens = list(tokens)
        n = len(tokens)
        if n == 0:
            return DocFeatures([], [])
        words = [text[t.start:t.end] for t in tokens]
        wf = self._lookup(words)
        ctx: list[list[str]] = [[] for _ in range(n)]
        self._sentence_features(text, tokens, ctx)
        line_starts = self._line_features(text, tokens, words, ctx)
        if self.rules:
            self.rule_features(text, tokens, words, rule_spans, ctx)
        self._cap_runs(words, line_starts, ctx)
        if self.triggers:
            self._trigger_features(words, line_starts, ctx)
        if self.structure:
            self._structure_features(words, line_starts, ctx)
        lows = [w.lower() for w in words]
        feats: list[list[str]] = []
        for i in range(n):
            f = list(wf[i][0])
            f.append("bg=" + (lows[i - 1] if i else "<s>") + "|" + lows[i])
            if i >= 1:
                f.extend(wf[i - 1][1])
                if i >= 2:
                    f.extend(wf[i - 2][3])
            if i + 1 < n:
                f.extend(wf[i + 1][2])
                if i + 2 < n:
                    f.extend(wf[i + 2][4])
            f.extend(ctx[i])
            feats.append(f)
        return DocFeatures(tokens, feats)

    def _sentence_features(self, text: str, tokens: Sequence[Token], ctx: list[list[str]]) -> None:
        starts = [t.start for t in tokens]
        for s in split_sentences(text, self.lang, tokens=tokens):
            i = bisect_left(starts, s.start)
            j = bisect_right(starts, s.end - 1) - 1
            if i < len(ctx):
                ctx[i].append("BOS")
            if j >= 0:
                ctx[j].append("EOS")

    def _line_features(self, text: str, tokens: Sequence[Token], words: Sequence[str], ctx: list[list[str]]
                       ) -> set[int]:
        """Adds line features; returns the indices of the tokens that start a line."""
        n = len(tokens)
        starts = {0}
        line_start = 0
        carry = ""
        for i in range(1, n + 1):
            if i < n:
                gap = text[tokens[i - 1].end:tokens[i].start]
                if "\n" not in gap and "\r" not in gap:
                    continue
            carry = self._one_line(words, line_start, i, ctx, carry)
            line_start = i
            starts.add(i)
        return starts

    @staticmethod
    def _one_line(words: Sequence[str], a: int, b: int, ctx: list[list[str]], carry: str = "") -> str:
        """Line features of tokens ``[a, b)``; ``carry`` is the field label that ended the previous line
        (``"Remitido por:\n"``). Returns the field label this line ends with ("" when it ends otherwise)."""
        size = b - a
        shape = []
        for w in words[a:a + 5]:
            if w[0].isalpha():
                shape.append("X" if w[0].isupper() else "x")
            elif w[0].isdigit():
                shape.append("d")
            else:
                shape.append(w[0])
        first = words[a].lower() if words[a].isalpha() else "#"
        lsize = "1" if size == 1 else "2" if size == 2 else "3-5" if size <= 5 else "6-12" if size <= 12 else "13+"
        line = ("ls=" + "".join(shape), "l0=" + first, "ln=" + lsize)
        ctx[a].append("BOL")
        ctx[b - 1].append("EOL")
        field = ""
        dist = 0
        if carry:
            for k in range(a, b):
                ctx[k].append("Fp=" + carry)
        for k in range(a, b):
            c = ctx[k]
            c.extend(line)
            pos = k - a
            c.append(f"lp={pos if pos < 4 else '4+'}")
            if field:
                dist += 1
                c.append("F=" + field)
                c.append(f"Fd={dist if dist < 4 else '4+'}")
            w = words[k]
            if w in _FIELD_SEPARATORS and k > a:
                prev = words[k - 1]
                if prev.isalpha() or prev in (".", ")"):
                    # "Nombre:", "Nº Col.:", "(NHC):" -> the last word before the colon
                    p = k - 1
                    while p > a and not words[p].isalpha():
                        p -= 1
                    field = words[p].lower() if words[p].isalpha() else "#"
                    dist = 0
        return field if words[b - 1] in _FIELD_SEPARATORS else ""

    @staticmethod
    def _cap_runs(words: Sequence[str], line_starts: set[int], ctx: list[list[str]]) -> None:
        """Runs of capitalised words on one line, possibly joined by connectors (``de``, ``la`` ...): begin /
        inside / last and the run length (bucketed), so multi-word names get consistent boundaries."""
        n = len(words)
        k = 0
        while k < n:
            w = words[k]
            if not (w[0].isupper() and w.isalpha()):
                k += 1
                continue
            j = k + 1
            last = k
            while j < n and j not in line_starts:
                x = words[j]
                if x[0].isupper() and x.isalpha():
                    last = j
                elif x.lower() not in _CONNECTORS and x != ".":
                    break
                j += 1
            size = sum(1 for m in range(k, last + 1) if words[m][0].isupper())
            if size >= 2:
                bucket = "2" if size == 2 else "3" if size == 3 else "4+"
                for m in range(k, last + 1):
                    pos = "B" if m == k else "L" if m == last else "I"
                    ctx[m].append("cr=" + pos)
                    ctx[m].append("crn=" + bucket)
            k = last + 1

    def _trigger_categories(self, w: str) -> tuple[str, ...]:
        got = self._trig_cache.get(w)
        if got is None:
            if len(self._trig_cache) > self.cache_size:
                self._trig_cache.clear()
            got = self._lex.get(_fold(w), ()) if w.isalpha() else ()
            self._trig_cache[w] = got
        return got

    def _trigger_features(self, words: Sequence[str], line_starts: set[int], ctx: list[list[str]]) -> None:
        """Trigger words (lexicon categories: kin, org, hosp ...) within ``trigger_window`` tokens on the same
        line: ``tL=<cat>`` when on the left, ``tR=<cat>`` on the right, and ``tL1=`` / ``tR1=`` when adjacent."""
        n = len(words)
        win = self.trigger_window
        added: list[set[str]] = [set() for _ in range(n)]
        line_of = [0] * n
        line = -1
        for i in range(n):
            if i in line_starts:
                line += 1
            line_of[i] = line
        for j in range(n):
            cats = self._trigger_categories(words[j])
            if not cats:
                continue
            for i in range(max(0, j - win), min(n, j + win + 1)):
                if i == j or line_of[i] != line_of[j]:
                    continue
                side = "tL" if j < i else "tR"
                near = abs(i - j) == 1
                for c in cats:
                    for f in ((side + "=" + c, side + "1=" + c) if near else (side + "=" + c,)):
                        if f not in added[i]:
                            added[i].add(f)
                            ctx[i].append(f)

    @staticmethod
    def _structure_features(words: Sequence[str], line_starts: set[int], ctx: list[list[str]]) -> None:
        """Parenthetical structure: inside ``( ... )`` (``pa``), the comma-separated field index in it (``pf=``),
        a registered-mark sign earlier in it (``pr``: "(Product®, Maker, City)"); and the distance to the next
        number on the same line (``nn=``, up to 3 tokens)."""
        n = len(words)
        depth = 0
        field = 0
        mark = False
        for i, w in enumerate(words):
            if i in line_starts:
                depth, field, mark = 0, 0, False
            if w == "(":
                depth += 1
                field, mark = 0, False
                continue
            if w == ")":
                depth = max(0, depth - 1)
                field, mark = 0, False
                continue
            if depth:
                c = ctx[i]
                c.append("pa")
                c.append(f"pf={field if field < 3 else '3+'}")
                if mark:
                    c.append("pr")
                if w == ";" or (w == "," and not (i > 0 and words[i - 1][-1].isdigit() and i + 1 < n
                                                      and words[i + 1][0].isdigit())):
                    field += 1
                elif any(ch in "®™©" for ch in w):
                    mark = True
        next_num = -1  # the nearest number token on the right, on the same line (-1: none)
        for i in range(n - 1, -1, -1):
            if i + 1 in line_starts:
                next_num = -1
            if next_num > i and next_num - i <= 3:
                ctx[i].append(f"nn={next_num - i}")
            if words[i][0].isdigit():
                next_num = i

    def rule_features(self, text: str, tokens: Sequence[Token], words: Sequence[str], rule_spans: Iterable[Span],
                      ctx: list[list[str]]) -> None:
        """Append to each token's feature list ``ctx[k]`` what the rule spans over it say (``R=B-<label>`` /
        ``R=I-<label>``, the type, the rule family, ...): the CRF's rule features, which the BiLSTM-CRF reads too."""
        n = len(tokens)
        starts = [t.start for t in tokens]
        ends = [t.end for t in tokens]
        tok_label: list[str] = [""] * n
        doc_words: dict[str, str] = {}
        for s in sorted(rule_spans):
            i = bisect_right(ends, s.start)
            j = bisect_left(starts, s.end)
            if j <= i:
                continue
            label = s.label
            parts = s.source.split(":")
            family = ":".join(parts[:2])
            typ = label.split(".", 1)[0]
            for k in range(i, j):
                c = ctx[k]
                c.append(("R=B-" if k == i else "R=I-") + label)
                c.append("RT=" + typ)
                c.append("RS=" + family)
                if not tok_label[k] or len(label) > len(tok_label[k]):
                    tok_label[k] = label
            if parts[0] == "field" or parts[0].startswith("id_field"):
                for k in range(i, j):
                    w = words[k]
                    if len(w) > 1 and w[0].isupper() and w.isalpha():
                        doc_words.setdefault(w, label)
        for k in range(n):
            if k > 0 and tok_label[k - 1]:
                ctx[k].append("R-1=" + tok_label[k - 1])
            if k + 1 < n and tok_label[k + 1]:
                ctx[k].append("R+1=" + tok_label[k + 1])
            if doc_words:
                lab = doc_words.get(words[k])
                if lab is not None:
                    ctx[k].append("D=" + lab)
        for k in range(n):  # rule spans may overlap: keep each feature once, first occurrence first
            c = ctx[k]
            if len(c) > 1:
                ctx[k] = list(dict.fromkeys(c))
