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
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.taxonomy import parent
from clinanon.transform.surrogate._text import normalize
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
        """The string mixed into every HMAC (``"patient:123"``)."""
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


@dataclass
class GenContext:
    """What a generator sees: keyed randomness for the scope, language, settings, and the document's spans.

    ``memo`` is a per-document cache (derived data only: the same document always yields the same memo).
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

    @classmethod
    def simple(cls, key: SurrogateKey, scope: str = "corpus", lang: str = "es",
               settings: Settings | None = None) -> GenContext:
        """A context without a document (for direct use of the generators and tests)."""
        return cls(KeyedRandom(key, scope), lang, settings or Settings())

    def __repr__(self) -> str:
        return f"GenContext(lang={self.lang!r}, category={self.category!r}, spans={len(self.spans)})"

    def span_text(self, span: Span) -> str:
        return self.doc.text[span.start:span.end] if self.doc is not None else ""

    def spans_of(self, type_: str) -> list[Span]:
        """This document's spans whose canonical category has type ``type_`` (``"NAME"``), in order (cached)."""
        by_type = self.memo.get("by_type")
        if by_type is None:
            by_type = {}
            for s in self.spans:
                by_type.setdefault(parent(self.categories.get(s, s.label)), []).append(s)
            self.memo["by_type"] = by_type
        return by_type.get(type_, [])  # type: ignore[no-any-return]

    def original_words(self, type_: str) -> frozenset[str]:
        """Normalized words of this document's spans of type ``type_`` (cached): surrogates avoid them."""
        key = f"words:{type_}"
        cached = self.memo.get(key)
        if cached is None:
            words = set()
            for s in self.spans_of(type_):
                words.update(normalize(w) for w in _WORD.findall(self.span_text(s)))
            cached = self.memo[key] = frozenset(words)
        return cached  # type: ignore[no-any-return]

    def original_strings(self) -> frozenset[str]:
        """Normalized texts of all of this document's spans (cached)."""
        cached = self.memo.get("strings")
        if cached is None:
            cached = self.memo["strings"] = frozenset(normalize(self.span_text(s)) for s in self.spans)
        return cached  # type: ignore[no-any-return]

    def avoid_words(self) -> frozenset[str]:
        """What a one-word surrogate part must not be: words of names/places and every whole original (cached)."""
        cached = self.memo.get("avoid_words")
        if cached is None:
            cached = self.original_words("NAME") | self.original_words("LOCATION") | self.original_strings()
            self.memo["avoid_words"] = cached
        return cached  # type: ignore[no-any-return]

    def leaks(self, candidate: str) -> bool:
        """True when an original of this document (not ``SEX``/``OTHER``, at least 2 characters) occurs as a whole
        word sequence in ``candidate`` (case- and accent-insensitively): such a candidate must be re-drawn."""
        pattern = self.memo.get("leak_re", False)
        if pattern is False:
            forms = sorted({normalize(self.span_text(s)) for s in self.spans
                            if parent(self.categories.get(s, s.label)) not in ("SEX", "OTHER")}, key=len,
                           reverse=True)
            forms = [f for f in forms if len(f) >= 2]
            pattern = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(f) for f in forms) + r")(?!\w)") if forms \
                else None
            self.memo["leak_re"] = pattern
        return pattern is not None and pattern.search(normalize(candidate)) is not None  # type: ignore[union-attr]
