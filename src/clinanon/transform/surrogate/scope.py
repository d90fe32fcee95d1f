"""Consistency scopes and the context a surrogate generator works in.

A **scope** decides which mentions share surrogates and a date offset:

* ``document`` — one document (the scope id is the document id);
* ``patient`` — every document of one patient (the id comes from ``doc.meta[patient_field]``, default
  ``"patient_id"``); a document without a patient id falls back to its own document scope (``missing_patient =
  "document"``, the default: the fallback is counted in :attr:`ResolvedScope.fallback` and by the operator) or is
  refused (``missing_patient = "error"``: :class:`~clinanon.errors.ConfigError` naming the document id);
* ``corpus`` — everything processed with the same key.

Every keyed choice mixes in the scope string (``"patient:123"``), so the same original gets the same surrogate
within a scope and (almost surely) different ones across scopes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from clinanon.caches import memo
from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.taxonomy import parent
from clinanon.transform.surrogate._text import _normalize_unicode, normalize
from clinanon.transform.surrogate.keys import KeyedRandom, SurrogateKey

__all__ = ["GenContext", "ResolvedScope", "ScopeName", "Settings", "resolve_scope"]

ScopeName = Literal["document", "patient", "corpus"]


@dataclass(frozen=True, slots=True)
class ResolvedScope:
    """The effective scope of a document: ``kind`` (``document``/``patient``/``corpus``), ``id`` and whether a
    requested patient scope fell back to the document scope."""

    kind: str
    id: str
    fallback: bool = False

    @property
    def label(self) -> str:
        """The string mixed into every keyed digest (``"patient:123"``)."""
        return f"{self.kind}:{self.id}" if self.kind != "corpus" else "corpus"

    def __repr__(self) -> str:  # ids may be pseudonymous but are not shown in full
        return f"ResolvedScope(kind={self.kind!r}, fallback={self.fallback})"


def resolve_scope(doc: Document, scope: str, *, patient_field: str = "patient_id",
                  missing_patient: str = "document") -> ResolvedScope:
    """The scope of ``doc`` (see the module docstring)."""
    if scope == "corpus":
        return ResolvedScope("corpus", "")
    if scope == "document":
        return ResolvedScope("document", doc.id)
    if scope == "patient":
        pid = doc.meta.get(patient_field)
        if pid is not None and str(pid).strip():
            return ResolvedScope("patient", str(pid).strip())
        if missing_patient == "error":
            raise ConfigError(f"document {doc.id!r}: scope 'patient' needs metadata {patient_field!r} "
                              "(set missing_patient = 'document' to fall back to the document scope)")
        return ResolvedScope("document", doc.id, fallback=True)
    raise ConfigError(f"unknown surrogate scope {scope!r}; expected document, patient or corpus")


@dataclass(frozen=True)
class Settings:
    """Generator settings (validated by the operator)."""

    date_shift: tuple[int, int] = (7, 14)
    month_shift: tuple[int, int] = (1, 2)
    year_shift: tuple[int, int] = (1, 2)
    age_shift: tuple[int, int] = (1, 2)
    age_cap: int | None = 90
    keep_sex: bool = True
    #: choose, per document, the scope's first date/age offset that makes no surrogate reproduce an original
    avoid_collisions: bool = True


_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
_WORD_RUN = re.compile(r"\w+")
_NOT_LEAKS = frozenset({"SEX", "OTHER"})  # types whose originals may appear in surrogates (kept or generic words)


class _DocTables:
    """Everything a generator derives from the document's spans, computed in one pass per document."""

    __slots__ = ("by_type", "cats", "leak_forms", "leak_other", "leak_words", "norms", "strings", "words")

    def __init__(self, ctx: GenContext) -> None:
        spans = ctx.spans
        text = ctx.doc.text if ctx.doc is not None else None
        by_index = getattr(ctx.categories, "by_index", None)  # the engine's SpanCategories: no span hashing
        if by_index is not None and getattr(ctx.categories, "spans", None) is spans:
            self.cats: tuple[str, ...] = by_index
        else:
            get = ctx.categories.get
            self.cats = tuple(get(s, s.label) for s in spans)
        if text is not None:  # normalize of every span text, its ASCII case inlined
            norms = [" ".join(t.lower().split()) if t.isascii() else _normalize_unicode(t)
                     for t in [text[s.start:s.end] for s in spans]]
        else:
            norms = [""] * len(spans)
        by_type: dict[str, list[int]] = {}
        types = list(map(_type, self.cats))
        for i, typ in enumerate(types):
            group = by_type.get(typ)
            if group is None:
                by_type[typ] = [i]
            else:
                group.append(i)
        forms: set[str]
        if "SEX" in by_type or "OTHER" in by_type:
            forms = {f for f, typ in zip(norms, types, strict=True) if typ not in _NOT_LEAKS and len(f) >= 2}
        else:
            forms = {f for f in norms if len(f) >= 2}
        by_word: dict[str, list[str]] = {}
        other: list[str] = []
        for f in forms:
            first = f.partition(" ")[0]  # normalized: words are separated by one space
            if not first.isalnum():
                m = _WORD_RUN.match(f)
                if m is None:
                    other.append(f)
                    continue
                first = m.group()
            group = by_word.get(first)
            if group is None:
                by_word[first] = [f]
            else:
                group.append(f)
        self.norms = tuple(norms)
        self.by_type = by_type
        self.strings = frozenset(norms)
        self.words: dict[str, frozenset[str]] = {}
        self.leak_words = by_word
        self.leak_other = tuple(sorted(other))
        self.leak_forms = frozenset(forms)

    def words_of(self, type_: str) -> frozenset[str]:
        cached = self.words.get(type_)
        if cached is None:
            norms = self.norms
            joined = " ".join([norms[i] for i in self.by_type.get(type_, ())])
            cached = self.words[type_] = frozenset(_WORD.findall(joined))
        return cached


@memo(maxsize=256)
def _type(category: str) -> str:
    return parent(category)


@dataclass
class GenContext:
    """What a generator sees: keyed randomness for the scope, language, settings, and the document's spans.

    ``memo`` is a per-document cache (derived data only: the same document always yields the same memo). The
    tables derived from the spans (categories by index, normalized texts, words, leak forms) are computed once,
    on first use; ``doc``, ``spans`` and ``categories`` must not change after that.
    """

    rand: KeyedRandom
    lang: str
    settings: Settings = field(default_factory=Settings)
    doc: Document | None = None
    spans: tuple[Span, ...] = ()
    categories: Mapping[Span, str] = field(default_factory=dict)
    span: Span | None = None
    category: str = "OTHER"
    memo: dict[str, Any] = field(default_factory=dict)
    _tables: _DocTables | None = field(default=None, repr=False, compare=False)

    @classmethod
    def simple(cls, key: SurrogateKey, scope: str = "corpus", lang: str = "es",
               settings: Settings | None = None) -> GenContext:
        """A context without a document (for direct use of the generators and tests)."""
        return cls(KeyedRandom(key, scope), lang, settings or Settings())

    def __repr__(self) -> str:
        return f"GenContext(lang={self.lang!r}, category={self.category!r}, spans={len(self.spans)})"

    def _doc_tables(self) -> _DocTables:
        tables = self._tables
        if tables is None:
            tables = self._tables = _DocTables(self)
        return tables

    def span_text(self, span: Span) -> str:
        return self.doc.text[span.start:span.end] if self.doc is not None else ""

    def span_categories(self) -> tuple[str, ...]:
        """The canonical category of each of :attr:`spans`, by index (computed once per document)."""
        return self._doc_tables().cats

    def spans_of(self, type_: str) -> list[Span]:
        """This document's spans whose canonical category has type ``type_`` (``"NAME"``), in order (cached)."""
        spans = self.spans
        return [spans[i] for i in self._doc_tables().by_type.get(type_, ())]

    def original_words(self, type_: str) -> frozenset[str]:
        """Normalized words of this document's spans of type ``type_`` (cached): surrogates avoid them."""
        return self._doc_tables().words_of(type_)

    def place_words(self) -> frozenset[str]:
        """:meth:`original_words` of ``NAME`` and ``LOCATION`` together (cached)."""
        cached = self.memo.get("place_words")
        if cached is None:
            tables = self._tables or self._doc_tables()
            norms, by_type = tables.norms, tables.by_type
            # the same words as the union of the two original_words sets (_WORD.findall of the joined texts): a
            # space-separated word of letters only is one _WORD match; the regex runs on the other words only
            words: set[str] = set()
            for t in ("NAME", "LOCATION"):
                for i in by_type.get(t, ()):
                    for w in norms[i].split(" "):
                        if w.isalpha():
                            words.add(w)
                        elif w:
                            words.update(_WORD.findall(w))
            cached = self.memo["place_words"] = frozenset(words)
        return cached  # type: ignore[no-any-return]

    def original_strings(self) -> frozenset[str]:
        """Normalized texts of all of this document's spans (cached)."""
        return self._doc_tables().strings

    def avoid_words(self) -> frozenset[str]:
        """What a one-word surrogate part must not be: words of names/places and every whole original (cached)."""
        memo = self.memo
        cached = memo.get("avoid_words")
        if cached is None:
            cached = memo["avoid_words"] = self.place_words().union(self._doc_tables().strings)
        return cached  # type: ignore[no-any-return]

    def leaks(self, candidate: str, already: str | None = None) -> bool:
        """True when an original of this document (not ``SEX``/``OTHER``, at least 2 characters) occurs as a whole
        word sequence in ``candidate`` (case- and accent-insensitively): such a candidate must be re-drawn.

        With ``already`` (the text the candidate replaces), originals that also occur in ``already`` do not count:
        they are what the change kept (the unit word ``"meses"`` of ``"3 meses"`` -> ``"5 meses"``, when a bare
        ``"meses"`` is an original too), the same for every candidate, so they cannot tell candidates apart.

        "Whole word sequence": the characters just before and after the occurrence (if any) are not word
        characters (``\\w``). An original that starts with a word character can only occur where a word of the
        candidate equals its first word, so only those places are checked (a few dictionary lookups per call).
        """
        tables = self._tables or self._doc_tables()
        if not tables.leak_forms:  # no leak_words and no leak_other
            return False
        # normalize(candidate), its ASCII case inlined (one call less on this hot path)
        text = " ".join(candidate.lower().split()) if candidate.isascii() else _normalize_unicode(candidate)
        if text.isalnum():  # one word: only an original equal to it can occur in it as a whole word sequence
            if text not in tables.leak_forms:
                return False
            return already is None or text not in _forms_of(normalize(already), tables)
        words = _WORD_RUN.findall(text)
        if tables.leak_words.keys().isdisjoint(words) and (
                not tables.leak_other or next(_other_forms_in(text, tables), None) is None):
            return False  # the usual case: no word of the candidate starts an original (checked in C)
        return _leaks_slow(text, words, already, tables)

    def fresh(self, candidate: str, key: str) -> bool:
        """``normalize(candidate) != key and not self.leaks(candidate)`` (``key``: the normalized original), with
        the candidate normalized once: whether a generated candidate may be used."""
        text = " ".join(candidate.lower().split()) if candidate.isascii() else _normalize_unicode(candidate)
        if text == key:
            return False
        tables = self._tables or self._doc_tables()
        if not tables.leak_forms:
            return True
        if text.isalnum():
            return text not in tables.leak_forms
        words = _WORD_RUN.findall(text)
        if tables.leak_words.keys().isdisjoint(words) and (
                not tables.leak_other or next(_other_forms_in(text, tables), None) is None):
            return True
        return not _leaks_slow(text, words, None, tables)

    def nearest_spans(self, categories: frozenset[str]) -> list[tuple[int, int, Span]]:
        """``(start, end, span)`` of this document's spans of the given categories without digits (cached)."""
        key = _nearest_key(categories)
        cached = self.memo.get(key)
        if cached is None:
            tables = self._tables or self._doc_tables()
            cats, by_type, spans = tables.cats, tables.by_type, self.spans
            # the spans of the categories' types, in document order (instead of a pass over every span)
            types = {_type(c) for c in categories}
            idx = [i for t in types for i in by_type.get(t, ())]
            if len(types) > 1:
                idx.sort()
            doc = self.doc
            text = doc.text if doc is not None else ""
            cached = [(s.start, s.end, s) for s in (spans[i] for i in idx if cats[i] in categories)
                      if doc is None or not any(map(str.isdigit, text[s.start:s.end]))]
            self.memo[key] = cached
        return cached  # type: ignore[no-any-return]


@memo(maxsize=64)
def _nearest_key(categories: frozenset[str]) -> str:
    return "nearest:" + "|".join(sorted(categories))


def _leaks_slow(text: str, words: list[str], already: str | None, tables: _DocTables) -> bool:
    """:meth:`GenContext.leaks` for a normalized ``text`` of several words (``words``: its ``\\w+`` runs) some word
    of which starts an original (or with originals that start with a non-word character)."""
    found = _found_forms(text, words, tables)
    if already is None:
        return next(found, None) is not None
    first = next(found, None)
    if first is None:  # the usual case: no original at all, nothing kept to compute
        return False
    kept = _forms_of(normalize(already), tables)
    return first not in kept or any(f not in kept for f in found)


def _is_word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def _forms_of(text: str, tables: _DocTables) -> set[str]:
    """The leak forms (normalized originals) occurring in normalized ``text`` as whole word sequences."""
    return set(_found_forms(text, _WORD_RUN.findall(text), tables))


def _found_forms(text: str, words: list[str], tables: _DocTables) -> Iterator[str]:
    """The leak forms occurring in normalized ``text`` (``words``: its ``\\w+`` runs) as whole word sequences, each
    once (lazily).

    A form that starts with a word character starts with one of the words of ``text`` wherever it occurs with a
    non-word character (or nothing) before it, so only the forms filed under those words are looked for: a form
    that is that word occurs (the word is a maximal run of word characters); a longer one is searched for."""
    by_word = tables.leak_words
    for w in by_word.keys() & words:
        for f in by_word[w]:
            if f == w or _occurs(text, f):
                yield f
    yield from _other_forms_in(text, tables)


def _occurs(text: str, form: str) -> bool:
    """Whether ``form`` occurs in ``text`` with no word character just before or just after it."""
    n = len(text)
    i = text.find(form)
    while i >= 0:
        j = i + len(form)
        if (i == 0 or not _is_word_char(text[i - 1])) and (j == n or not _is_word_char(text[j])):
            return True
        i = text.find(form, i + 1)
    return False


def _other_forms_in(text: str, tables: _DocTables) -> Iterator[str]:
    """The leak forms that do not start with a word character occurring in ``text`` (whole word sequences)."""
    for f in tables.leak_other:
        if _occurs(text, f):
            yield f
