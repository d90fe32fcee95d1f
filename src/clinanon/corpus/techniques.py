"""The corpus techniques: number masking, sentence shuffling, random word swap, synonym replacement, concept
replacement, aggregation of notes with the same label, and de-identification by the existing operators.

Each is a small class with documented parameters and the protocol of :mod:`clinanon.corpus.base`
(``transform(docs, rng) -> docs``). Gold spans follow every technique that keeps them (character offsets on the
new text):

=====================  ============================================================================  ==========
technique              what it does (parameter)                                                      spans
=====================  ============================================================================  ==========
``number_mask``        every decimal digit becomes ``char`` (``"X"``); same length                   unchanged
``sentence_shuffle``   a random ``fraction`` of the sentences (1.0: all) trade places; the text      move
                       between sentences stays; sentences joined by a span move as one block
``word_swap``          in each sentence a random ``fraction`` of the words trade places (1.0: all);  move
                       a gold span is one word (moves whole); punctuation stays
``synonyms``           ``fraction`` of the non-stop words outside spans are replaced by a synonym     move
                       from ``thesaurus`` (a language's built thesaurus or a lexicon file)
``concepts``           mentions of a concept-synonym ``table`` (outside spans) are replaced by        move
                       another term of the same concept, each with ``probability``
``aggregate``          notes with the same ``label_field`` value are joined ``size`` at a time       move
``deidentify``         gold spans (or the pipeline's detections) replaced by ``operator``            mapped
=====================  ============================================================================  ==========

``original`` is the identity (the baseline row of an experiment).
"""

from __future__ import annotations

import bisect
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from clinanon.corpus.base import Piece, TechniqueBase, TransformStats, assemble, doc_rng
from clinanon.document import Document, SanitizedDocument, Span
from clinanon.errors import ConfigError, InputError
from clinanon.text import split_sentences, stop_words, tokenize

__all__ = ["TECHNIQUES", "Aggregation", "ConceptReplacement", "Deidentification", "NumberMasking", "Original",
           "SentenceShuffle", "SynonymReplacement", "WordSwap", "make_technique", "map_spans", "read_concepts"]


def _fraction(value: float, name: str = "fraction") -> float:
    value = float(value)
    if not 0.0 <= value <= 1.0:
        raise ConfigError(f"{name} must be between 0 and 1 (got {value})")
    return value


def _merged_spans(doc: Document) -> list[tuple[int, int]]:
    """The gold spans of ``doc`` as non-overlapping regions (overlapping spans merged)."""
    out: list[tuple[int, int]] = []
    for s in sorted(doc.spans, key=lambda s: (s.start, s.end)):
        if out and s.start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], s.end))
        else:
            out.append((s.start, s.end))
    return out


def _inside_span(regions: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether ``[start, end)`` overlaps a region of ``regions`` (sorted, non-overlapping)."""
    i = bisect.bisect_right(regions, (start, float("inf"))) - 1
    if i >= 0 and regions[i][1] > start:
        return True
    return i + 1 < len(regions) and regions[i + 1][0] < end


def _case_like(word: str, new: str) -> str:
    """``new`` in the case pattern of ``word`` (``ABC`` -> upper, ``Abc`` -> first letter upper, else as is)."""
    if len(word) > 1 and word.isupper():
        return new.upper()
    if word[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


def _permute(slots: list[tuple[int, int]], fraction: float, rng: random.Random) -> list[tuple[int, int]]:
    """The contents of ``slots`` after ``round(fraction * n)`` of them (at random) traded places at random."""
    n = len(slots)
    k = round(fraction * n)
    if k < 2:
        return list(slots)
    chosen = sorted(rng.sample(range(n), k))
    moved = [slots[i] for i in chosen]
    rng.shuffle(moved)
    out = list(slots)
    for i, unit in zip(chosen, moved, strict=True):
        out[i] = unit
    return out


def _rebuild(doc: Document, slots: list[tuple[int, int]], contents: list[tuple[int, int]],
             stats: TransformStats) -> Document:
    """``doc`` with slot ``i`` (ordered, non-overlapping regions) holding region ``contents[i]``."""
    pieces: list[Piece] = []
    pos = 0
    for (a, b), unit in zip(slots, contents, strict=True):
        if a > pos:
            pieces.append((pos, a))
        pieces.append(unit)
        pos = b
    if pos < len(doc.text):
        pieces.append((pos, len(doc.text)))
    return assemble(doc, pieces, stats)


class Original(TechniqueBase):
    """The identity: the notes as they are (the baseline of an experiment)."""

    name: ClassVar[str] = "original"
    stochastic = False

    def transform(self, docs: Sequence[Document], rng: random.Random) -> list[Document]:
        self.stats = TransformStats(documents_in=len(docs), documents_out=len(docs))
        return list(docs)


class NumberMasking(TechniqueBase):
    """Every decimal digit (``str.isdecimal``) becomes ``char``, in spans too. The text keeps its length, so every
    span keeps its offsets and label. Deterministic."""

    name: ClassVar[str] = "number_mask"
    stochastic = False

    def __init__(self, *, char: str = "X") -> None:
        super().__init__()
        if len(char) != 1:
            raise ConfigError("number_mask: char must be one character")
        self.char = char

    def params(self) -> dict[str, Any]:
        return {"char": self.char}

    def transform_one(self, doc: Document, rng: random.Random) -> Document:
        text = "".join(self.char if c.isdecimal() else c for c in doc.text)
        self.stats.eligible += sum(1 for c in doc.text if c.isdecimal())
        return Document(doc.id, text, doc.spans, doc.meta)


class SentenceShuffle(TechniqueBase):
    """A random ``fraction`` of a note's sentences (:func:`clinanon.text.split_sentences`; 1.0 = all) trade
    places; the whitespace between sentences stays where it was. Sentences that a gold span joins move as one
    block, so every span moves whole with its sentence."""

    name: ClassVar[str] = "sentence_shuffle"

    def __init__(self, *, fraction: float = 1.0, lang: str = "es") -> None:
        super().__init__()
        self.fraction = _fraction(fraction)
        self.lang = lang

    def params(self) -> dict[str, Any]:
        return {"fraction": self.fraction, "lang": self.lang}

    def transform_one(self, doc: Document, rng: random.Random) -> Document:
        lang = str(doc.meta.get("lang") or self.lang)
        blocks: list[tuple[int, int]] = []
        for s in split_sentences(doc.text, lang):
            blocks.append((s.start, s.end))
        for a, b in _merged_spans(doc):  # join the blocks a span touches
            i = bisect.bisect_right(blocks, (a, float("inf"))) - 1
            i = max(i, 0)
            j = i
            while j + 1 < len(blocks) and blocks[j + 1][0] < b:
                j += 1
            if j > i:
                blocks[i:j + 1] = [(blocks[i][0], max(blocks[j][1], b))]
        self.stats.eligible += len(blocks)
        return _rebuild(doc, blocks, _permute(blocks, self.fraction, rng), self.stats)


class WordSwap(TechniqueBase):
    """In each sentence a random ``fraction`` of the words (letter or digit tokens; 1.0 = all) trade places at
    random; punctuation and whitespace stay. A gold span counts as one word and moves whole (its label with it);
    a token that a span covers in part stays where it is."""

    name: ClassVar[str] = "word_swap"

    def __init__(self, *, fraction: float = 0.3, lang: str = "es") -> None:
        super().__init__()
        self.fraction = _fraction(fraction)
        self.lang = lang

    def params(self) -> dict[str, Any]:
        return {"fraction": self.fraction, "lang": self.lang}

    def transform_one(self, doc: Document, rng: random.Random) -> Document:
        lang = str(doc.meta.get("lang") or self.lang)
        text = doc.text
        regions = _merged_spans(doc)
        units = list(regions)
        for t in tokenize(text, lang):
            if text[t.start].isalnum() and not _inside_span(regions, t.start, t.end):
                units.append((t.start, t.end))
        units.sort()
        sentences = [(s.start, s.end) for s in split_sentences(text, lang)]
        by_sentence: dict[int, list[int]] = defaultdict(list)
        for k, (a, _) in enumerate(units):
            by_sentence[bisect.bisect_right(sentences, (a, float("inf"))) - 1].append(k)
        contents = list(units)
        for idx in by_sentence.values():
            slots = [units[k] for k in idx]
            for k, unit in zip(idx, _permute(slots, self.fraction, rng), strict=True):
                contents[k] = unit
        self.stats.eligible += len(units)
        return _rebuild(doc, units, contents, self.stats)


class SynonymReplacement(TechniqueBase):
    """Replace ``fraction`` of a note's non-stop words by a synonym.

    Candidates: letter tokens of two or more letters, not stop words of the language (spaCy's list), outside every
    gold span. ``k = round(fraction * candidates)`` of them (capped by the number that have a synonym) are drawn at
    random among those that have a synonym in ``thesaurus``, and each gets a random synonym in its case pattern.
    ``thesaurus``: a language code (a thesaurus built by ``scripts/build_thesauri.py``; default: the note's
    language) or the path of a lexicon file (:mod:`clinanon.corpus.thesaurus`), or an in-memory ``lexicon``.
    """

    name: ClassVar[str] = "synonyms"

    def __init__(self, *, fraction: float = 0.3, lang: str = "es", thesaurus: str | Path | None = None,
                 lexicon: Mapping[str, Sequence[str]] | None = None) -> None:
        super().__init__()
        self.fraction = _fraction(fraction)
        self.lang = lang
        self.thesaurus = None if thesaurus is None else str(thesaurus)
        self._lexicon: dict[str, tuple[str, ...]] | None = (
            None if lexicon is None else {k.lower(): tuple(v) for k, v in lexicon.items() if v})
        if self._lexicon is None:
            from clinanon.corpus.thesaurus import find_thesaurus

            find_thesaurus(self.thesaurus or lang)  # fail early, with the build hint

    def params(self) -> dict[str, Any]:
        return {"fraction": self.fraction, "lang": self.lang, "thesaurus": self.thesaurus or self.lang}

    def lexicon(self) -> dict[str, tuple[str, ...]]:
        if self._lexicon is None:
            from clinanon.corpus.thesaurus import load_thesaurus

            self._lexicon = load_thesaurus(self.thesaurus or self.lang)
        return self._lexicon

    def transform_one(self, doc: Document, rng: random.Random) -> Document:
        lang = str(doc.meta.get("lang") or self.lang)
        lex = self.lexicon()
        stops = stop_words(lang)
        regions = _merged_spans(doc)
        text = doc.text
        candidates = 0
        with_syn: list[tuple[int, int]] = []
        for t in tokenize(text, lang):
            word = text[t.start:t.end]
            if len(word) < 2 or not word.isalpha() or word.lower() in stops:
                continue
            if _inside_span(regions, t.start, t.end):
                continue
            candidates += 1
            if word.lower() in lex:
                with_syn.append((t.start, t.end))
        k = min(round(self.fraction * candidates), len(with_syn))
        self.stats.eligible += candidates
        chosen = sorted(rng.sample(with_syn, k)) if k else []
        pieces: list[Piece] = []
        pos = 0
        for a, b in chosen:
            word = text[a:b]
            pieces += [(pos, a), _case_like(word, rng.choice(lex[word.lower()]))]
            pos = b
        pieces.append((pos, len(text)))
        self.stats.extra["replaced"] = self.stats.extra.get("replaced", 0) + k
        return assemble(doc, pieces, self.stats)


def read_concepts(path: str | Path, *, language: str | None = None) -> dict[str, list[str]]:
    """concept id -> its terms, from a concept-synonym table.

    Formats: ``concept<TAB>term`` per line (``#`` comments), or a UMLS ``MRCONSO.RRF`` subset (``|``-separated:
    CUI in field 1, language in field 2, string in field 15; ``language`` keeps only that language, e.g. ``SPA``).
    """
    path = Path(path)
    concepts: dict[str, list[str]] = defaultdict(list)
    rrf = path.suffix.upper() == ".RRF"
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            if rrf:
                f = line.split("|")
                if len(f) < 15:
                    raise InputError(f"{path}, line {lineno}: an MRCONSO row has at least 15 '|'-separated fields")
                if language and f[1] != language:
                    continue
                cid, term = f[0], f[14]
            else:
                f = line.split("\t")
                if len(f) != 2:
                    raise InputError(f"{path}, line {lineno}: expected concept<TAB>term")
                cid, term = f[0].strip(), f[1].strip()
            if term and term not in concepts[cid]:
                concepts[cid].append(term)
    return {c: t for c, t in concepts.items() if len(t) > 1}


class ConceptReplacement(TechniqueBase):
    """Replace mentions of concepts by another term of the same concept (a user-supplied concept-synonym table:
    :func:`read_concepts`, e.g. a UMLS MRCONSO subset for licensees).

    Mentions are found on tokens, case-insensitively, longest match first, left to right, outside gold spans;
    each is replaced with ``probability`` by a random *other* term of its concept (first letter upper-cased when
    the mention's was). ``table``: the file; ``concepts``: the same mapping in memory; ``language``: the MRCONSO
    language code to keep.
    """

    name: ClassVar[str] = "concepts"

    def __init__(self, *, table: str | Path | None = None, concepts: Mapping[str, Sequence[str]] | None = None,
                 probability: float = 1.0, lang: str = "es", language: str | None = None) -> None:
        super().__init__()
        if (table is None) == (concepts is None):
            raise ConfigError("concepts: give a table file or a concepts mapping (one of them)")
        self.table = None if table is None else str(table)
        self.probability = _fraction(probability, "probability")
        self.lang = lang
        data = read_concepts(table, language=language) if table is not None else dict(concepts or {})
        self._terms: dict[tuple[str, ...], list[str]] = {}
        for terms in data.values():
            terms = list(dict.fromkeys(terms))
            for term in terms:
                key = self._key(term)
                if key:
                    self._terms.setdefault(key, [t for t in terms if self._key(t) != key])
        self._max = max((len(k) for k in self._terms), default=0)

    def _key(self, term: str) -> tuple[str, ...]:
        return tuple(term[t.start:t.end].lower() for t in tokenize(term, self.lang))

    def params(self) -> dict[str, Any]:
        return {"table": self.table, "probability": self.probability, "lang": self.lang}

    def transform_one(self, doc: Document, rng: random.Random) -> Document:
        text = doc.text
        toks = tokenize(text, str(doc.meta.get("lang") or self.lang))
        low = [text[t.start:t.end].lower() for t in toks]
        regions = _merged_spans(doc)
        pieces: list[Piece] = []
        pos = i = 0
        while i < len(toks):
            for n in range(min(self._max, len(toks) - i), 0, -1):
                others = self._terms.get(tuple(low[i:i + n]))
                if others is None:
                    continue
                a, b = toks[i].start, toks[i + n - 1].end
                if _inside_span(regions, a, b):
                    continue
                self.stats.eligible += 1
                if others and rng.random() < self.probability:
                    new = rng.choice(others)
                    if text[a].isupper():
                        new = new[:1].upper() + new[1:]
                    pieces += [(pos, a), new]
                    pos = b
                    self.stats.extra["replaced"] = self.stats.extra.get("replaced", 0) + 1
                i += n - 1
                break
            i += 1
        pieces.append((pos, len(text)))
        return assemble(doc, pieces, self.stats)


class Aggregation(TechniqueBase):
    """Join the notes that share a label (metadata ``label_field``) ``size`` at a time: within each label the notes
    (sorted by id) are shuffled and cut into groups of ``size`` (the last group may be smaller); each group becomes
    one note, its texts joined by ``separator``, with the label, ``aggregated_from`` (the ids) and its spans moved.
    A note without the field raises :class:`ConfigError` (naming the note id)."""

    name: ClassVar[str] = "aggregate"

    def __init__(self, *, size: int = 4, label_field: str = "label", separator: str = "\n\n") -> None:
        super().__init__()
        if int(size) < 1:
            raise ConfigError("aggregate: size must be at least 1")
        self.size = int(size)
        self.label_field = label_field
        self.separator = separator

    def params(self) -> dict[str, Any]:
        return {"size": self.size, "label_field": self.label_field}

    def transform(self, docs: Sequence[Document], rng: random.Random) -> list[Document]:
        self.stats = TransformStats(documents_in=len(docs))
        base = rng.getrandbits(64)
        groups: dict[str, list[Document]] = defaultdict(list)
        for d in docs:
            if self.label_field not in d.meta:
                raise ConfigError(f"aggregate: document {d.id!r} has no metadata field {self.label_field!r}")
            groups[str(d.meta[self.label_field])].append(d)
        out: list[Document] = []
        for label in sorted(groups):
            members = sorted(groups[label], key=lambda d: d.id)
            doc_rng(base, f"label:{label}").shuffle(members)
            for g in range(0, len(members), self.size):
                out.append(self._join(members[g:g + self.size]))
        self.stats.documents_out = len(out)
        self.stats.changed = sum(1 for d in out if len(d.meta["aggregated_from"]) > 1)
        return out

    def _join(self, group: list[Document]) -> Document:
        texts: list[str] = []
        spans: list[Span] = []
        pos = 0
        for k, d in enumerate(group):
            if k:
                texts.append(self.separator)
                pos += len(self.separator)
            texts.append(d.text)
            spans += [Span.trusted(s.start + pos, s.end + pos, s.label, s.source, s.score) for s in d.spans]
            pos += len(d.text)
        first = group[0]
        doc_id = first.id if len(group) == 1 else f"{first.id}+{len(group) - 1}"
        meta = {**first.meta, "aggregated_from": [d.id for d in group]}
        return Document(doc_id, "".join(texts), tuple(spans), meta)


def map_spans(out: SanitizedDocument, spans: Sequence[Span]) -> list[Span]:
    """Spans of the original text moved onto the sanitized text through its replacement log.

    A span's start goes to :meth:`SanitizedDocument.to_output`; its end to the end of the replacement it falls in
    (or is mapped like the start when it is in unchanged text). A span replaced by nothing (suppression, empty
    redaction) is dropped. A gold span replaced by the operator becomes exactly its replacement's region.
    """
    reps = out.replacements
    starts = [r.start for r in reps]
    new: list[Span] = []
    for s in spans:
        a = out.to_output(s.start)
        i = bisect.bisect_left(starts, s.end) - 1
        b = reps[i].out_end if i >= 0 and reps[i].start < s.end <= reps[i].end else out.to_output(s.end)
        if b > a:
            new.append(Span.trusted(a, b, s.label, s.source, s.score))
    return new


class Deidentification(TechniqueBase):
    """De-identify with the existing operators, and move the gold spans onto the new text (:func:`map_spans`).

    ``operator``: an operator name (``surrogate``, ``tag``, ``redact``, ``neighbors``, ...) or its settings dict,
    applied to every category (``{"*": operator}``), or ``operators``: a full operator map. ``spans``: ``"gold"``
    (the gold spans are the detections: the operator's own effect) or ``"pipeline"`` (the pipeline of ``config`` —
    a clinanon TOML file, or the defaults, with ``detectors`` as its ``detectors.use`` when given — detects; what
    it misses stays in the text, and gold spans keep their place through the log). ``scheme``: the label scheme
    of the gold spans (e.g. ``meddocan``). A surrogate operator without a key gets one drawn from the technique's
    generator, and a neighbors operator without a seed one, so runs are reproducible.
    """

    name: ClassVar[str] = "deidentify"

    def __init__(self, *, operator: str | Mapping[str, Any] = "surrogate",
                 operators: Mapping[str, Any] | None = None, spans: str = "gold", scheme: str | None = None,
                 lang: str = "es", config: str | Path | None = None, detectors: Sequence[str] | None = None,
                 batch_size: int = 32) -> None:
        super().__init__()
        if spans not in ("gold", "pipeline"):
            raise ConfigError(f"deidentify: spans must be 'gold' or 'pipeline', not {spans!r}")
        op = {"operator": operator} if isinstance(operator, str) else dict(operator)
        self.operators: dict[str, dict[str, Any]] = (
            {k: ({"operator": v} if isinstance(v, str) else dict(v)) for k, v in operators.items()}
            if operators else {"*": op})
        self.spans = spans
        self.scheme = scheme
        self.lang = lang
        self.config = None if config is None else str(config)
        self.detectors = None if detectors is None else list(detectors)
        self.batch_size = batch_size
        names = {o.get("operator") for o in self.operators.values()}
        self.stochastic = bool(names & {"surrogate", "neighbors"})

    def params(self) -> dict[str, Any]:
        ops = {k: {p: v for p, v in o.items() if p != "key"} for k, o in self.operators.items()}
        return {"operators": ops, "spans": self.spans, "scheme": self.scheme, "lang": self.lang,
                "config": self.config, "detectors": self.detectors}

    def _operators(self, rng: random.Random) -> dict[str, dict[str, Any]]:
        key = f"{rng.getrandbits(256):064x}"
        seed = rng.getrandbits(31)
        ops = {}
        for k, o in self.operators.items():
            o = dict(o)
            if o.get("operator") == "surrogate" and not any(p in o for p in ("key", "key_file")):
                o["key"] = key
            if o.get("operator") == "neighbors" and o.get("seed") is None:
                o["seed"] = seed
            ops[k] = o
        return ops

    def transform(self, docs: Sequence[Document], rng: random.Random) -> list[Document]:
        self.stats = TransformStats(documents_in=len(docs))
        ops = self._operators(rng)
        if self.spans == "gold":
            from clinanon.transform import Anonymizer

            anon = Anonymizer(ops, scheme=self.scheme, lang=self.lang)
            outs: list[SanitizedDocument] = []
            for g in range(0, len(docs), self.batch_size):
                outs += anon.anonymize_many(list(docs[g:g + self.batch_size]))
        else:
            from clinanon.pipeline import Pipeline

            overrides: dict[str, Any] = {"operators": ops}
            if self.scheme:
                overrides["label_scheme"] = self.scheme
            if self.detectors is not None:
                overrides["detectors"] = {"use": self.detectors}
            pipe = Pipeline.from_config(self.config, **overrides)
            found = pipe.pipe([d.with_spans(()) for d in docs], batch_size=self.batch_size)
            outs = [o for o in found if isinstance(o, SanitizedDocument)]
        result = []
        for d, o in zip(docs, outs, strict=True):
            new = map_spans(o, d.spans)
            self.stats.dropped_spans += len(d.spans) - len(new)
            self.stats.extra["replacements"] = self.stats.extra.get("replacements", 0) + len(o.replacements)
            result.append(Document(d.id, o.text, tuple(new), d.meta))
        self.stats.documents_out = len(result)
        self.stats.changed = sum(1 for a, b in zip(docs, result, strict=True) if a.text != b.text)
        return result


TECHNIQUES: dict[str, type[TechniqueBase]] = {
    t.name: t for t in (Original, NumberMasking, SentenceShuffle, WordSwap, SynonymReplacement,
                        ConceptReplacement, Aggregation, Deidentification)
}


def make_technique(spec: Mapping[str, Any] | str) -> TechniqueBase:
    """A technique from its name or settings (``{"technique": "word_swap", "fraction": 0.5}``); unknown names or
    parameters raise :class:`ConfigError`."""
    if isinstance(spec, str):
        spec = {"technique": spec}
    spec = dict(spec)
    name = spec.pop("technique", None)
    spec.pop("name", None)
    cls = TECHNIQUES.get(str(name))
    if cls is None:
        raise ConfigError(f"unknown corpus technique {name!r}; one of: {', '.join(TECHNIQUES)}")
    try:
        return cls(**spec)
    except TypeError as e:
        raise ConfigError(f"technique {name!r}: {e}") from None


