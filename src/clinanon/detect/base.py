"""The detector protocol and a pattern recognizer (named, scored regex patterns with context words).

A detector is anything with a ``name`` and ``detect(doc) -> list[Span]``; spans carry character offsets on
``doc.text``, a label (a canonical category such as ``"DATE"`` or ``"ID.MEDICALRECORD"`` for the built-in
rules, native labels for models trained on a corpus), ``source`` = the detector/pattern name and a score.

:class:`PatternRecognizer` is the rules' building block, like Presidio's recognizers but lighter: each
:class:`Pattern` is named, scored and testable alone; context words near a match raise (or, for negative
context, lower) its score; an optional validator (a checksum) rejects false matches.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from clinanon.document import Document, Span

__all__ = ["Detector", "GoldDataReport", "Pattern", "PatternRecognizer", "detect_batch"]


@runtime_checkable
class Detector(Protocol):
    """Finds PHI candidates in a document. A detector may also have ``detect_many(docs)`` (the spans of each
    document, computed over the batch at once): see :func:`detect_batch`."""

    name: str

    def detect(self, doc: Document) -> list[Span]:
        """Spans on ``doc.text`` (the document's own spans are ignored)."""
        ...


def detect_batch(detector: Detector, docs: Sequence[Document]) -> list[list[Span]]:
    """``[detector.detect(d) for d in docs]``, through the detector's ``detect_many(docs)`` when it has one (an
    optional method: the same spans, computed step by step over the batch, as the rules detector does)."""
    many = getattr(detector, "detect_many", None)
    return list(many(docs)) if many is not None else [detector.detect(d) for d in docs]


@dataclass
class GoldDataReport:
    """What a trainable detector's ``fit`` saw of its gold data: counts, and the gold spans it could not encode
    exactly on its tokens (offsets and labels only, never text). Detectors extend it with their own fields."""

    documents: int = 0
    tokens: int = 0
    chars: int = 0
    gold_spans: int = 0
    labels: dict[str, int] = field(default_factory=dict)
    misaligned: list[dict[str, Any]] = field(default_factory=list)
    overlapping: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "documents": self.documents, "tokens": self.tokens, "chars": self.chars, "gold_spans": self.gold_spans,
            "labels": dict(self.labels), "misaligned_count": len(self.misaligned),
            "overlapping_count": len(self.overlapping), "misaligned": list(self.misaligned),
            "overlapping": list(self.overlapping),
        }


@dataclass(frozen=True)
class Pattern:
    """One named regular expression.

    ``group`` selects the part of the match that is PHI (so a field label such as ``NHC:`` can anchor the
    pattern without being part of the span). ``validator`` gets the PHI text and may reject it (checksums).
    ``label`` overrides the recognizer's label for this pattern.
    """

    name: str
    regex: str
    score: float = 0.6
    flags: int = 0
    group: int | str = 0
    label: str | None = None
    validator: Callable[[str], bool] | None = None
    compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", re.compile(self.regex, self.flags))


def _word_set(words: Iterable[str]) -> frozenset[str]:
    return frozenset(w.casefold() for w in words)


_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass
class PatternRecognizer:
    """A set of patterns for one label, with optional context words.

    Context: if one of ``context`` (case-folded whole words) occurs within ``context_chars`` characters
    before the match (or after, when ``context_after`` is set), the score rises by ``context_boost``;
    ``negative_context`` lowers it by the same amount. Matches scoring below ``min_score`` are dropped.
    """

    name: str
    label: str
    patterns: Sequence[Pattern]
    languages: Sequence[str] = ("en", "es", "nl", "sv", "de")
    context: Iterable[str] = ()
    negative_context: Iterable[str] = ()
    context_chars: int = 40
    context_after: bool = False
    context_boost: float = 0.3
    min_score: float = 0.0

    def __post_init__(self) -> None:
        self.context = _word_set(self.context)
        self.negative_context = _word_set(self.negative_context)

    def _context_words(self, text: str, start: int, end: int) -> set[str]:
        window = text[max(0, start - self.context_chars):start]
        if self.context_after:
            window += " " + text[end:end + self.context_chars]
        return {w.casefold() for w in _WORD.findall(window)}

    def score(self, base: float, text: str, start: int, end: int) -> float:
        if not self.context and not self.negative_context:
            return base
        words = self._context_words(text, start, end)
        s = base
        if words & self.context:  # type: ignore[operator]
            s += self.context_boost
        if words & self.negative_context:  # type: ignore[operator]
            s -= self.context_boost
        return min(1.0, max(0.0, s))

    def analyze(self, text: str) -> list[Span]:
        out: list[Span] = []
        for p in self.patterns:
            for m in p.compiled.finditer(text):
                start, end = m.span(p.group)
                if start < 0 or end <= start:
                    continue
                if p.validator is not None and not p.validator(text[start:end]):
                    continue
                s = self.score(p.score, text, start, end)
                if s >= self.min_score:
                    out.append(Span(start, end, p.label or self.label, f"{self.name}:{p.name}", round(s, 4)))
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)
