"""The one data model: documents, spans on character offsets, and the replacement log.

* :class:`Span` — a labelled half-open interval ``[start, end)`` of character offsets on a document's
  **original** text, with the detector that produced it (``source``) and a confidence (``score``).
* :class:`Document` — id, text, metadata and spans; immutable, validated on construction.
* :class:`Replacement` / :class:`SanitizedDocument` — the output of an operator run: the new text and,
  for every changed region, its offsets in the original and in the output text, so either can be mapped
  to the other.

None of these classes put document text into their ``repr``: a stray ``print(doc)`` or a traceback
never leaks PHI.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from clinanon.errors import SpanError

__all__ = ["Document", "FrozenMeta", "Replacement", "SanitizedDocument", "Span"]


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A labelled region ``[start, end)`` of a document's original text.

    Ordering is by ``(start, end, label, source, score)``, which makes every sorted span list deterministic.
    """

    start: int
    end: int
    label: str
    source: str = "gold"
    score: float = 1.0

    def __post_init__(self) -> None:
        if not isinstance(self.start, int) or not isinstance(self.end, int):
            raise SpanError("span offsets must be integers")
        if self.start < 0:
            raise SpanError(f"span start {self.start} is negative")
        if self.end <= self.start:
            raise SpanError(f"span [{self.start}, {self.end}) is empty or reversed")
        if not self.label:
            raise SpanError(f"span [{self.start}, {self.end}) has an empty label")
        if not 0.0 <= float(self.score) <= 1.0:
            raise SpanError(f"span [{self.start}, {self.end}) score {self.score} is outside [0, 1]")

    def __len__(self) -> int:
        return self.end - self.start

    @staticmethod
    def trusted(start: int, end: int, label: str, source: str = "gold", score: float = 1.0) -> Span:
        """``Span(start, end, label, source, score)`` without the checks of ``__post_init__``: only for spans a
        component builds from offsets it found itself (int offsets with ``0 <= start < end``, a non-empty label,
        ``score`` in [0, 1]). Input from outside goes through ``Span(...)``; a :class:`Document` still checks
        every span against its text."""
        span = _NEW(Span)
        _SET_START(span, start)
        _SET_END(span, end)
        _SET_LABEL(span, label)
        _SET_SOURCE(span, source)
        _SET_SCORE(span, score)
        return span

    @property
    def key(self) -> tuple[int, int, str]:
        """``(start, end, label)``: what exact-match evaluation compares."""
        return (self.start, self.end, self.label)

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end

    def contains(self, other: Span) -> bool:
        return self.start <= other.start and other.end <= self.end

    def with_label(self, label: str) -> Span:
        return replace(self, label=label)

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "label": self.label, "source": self.source,
                "score": self.score}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Span:
        return cls(int(data["start"]), int(data["end"]), str(data["label"]),
                   str(data.get("source", "gold")), float(data.get("score", 1.0)))


# the slot setters Span.trusted uses (they bypass the frozen dataclass's __setattr__, as its __init__ does)
_NEW = object.__new__
_SET_START = Span.start.__set__  # type: ignore[attr-defined]
_SET_END = Span.end.__set__  # type: ignore[attr-defined]
_SET_LABEL = Span.label.__set__  # type: ignore[attr-defined]
_SET_SOURCE = Span.source.__set__  # type: ignore[attr-defined]
_SET_SCORE = Span.score.__set__  # type: ignore[attr-defined]


def _span_order(s: Span) -> tuple[int, int, str, str, float]:
    return (s.start, s.end, s.label, s.source, s.score)


class FrozenMeta(dict[str, Any]):
    """A read-only dict for document metadata (picklable, JSON-serialisable as a plain dict)."""

    def _readonly(self, *args: object, **kwargs: object) -> None:
        raise TypeError("document metadata is read-only; use Document.with_meta(...)")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _readonly  # type: ignore[assignment]
    __ior__ = _readonly  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenMeta, (dict(self),))

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted((k, repr(v)) for k, v in self.items())))


@dataclass(frozen=True, slots=True)
class Document:
    """A text with an id, metadata and spans (gold annotations or detections).

    Spans are validated against the text (``0 <= start < end <= len(text)``) and stored sorted.
    """

    id: str
    text: str
    spans: tuple[Span, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=FrozenMeta)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise SpanError("a document needs a non-empty string id")
        if not isinstance(self.text, str):
            raise SpanError(f"document {self.id!r}: text must be a str, not {type(self.text).__name__}")
        n = len(self.text)
        # the dataclass order, compared as key tuples (cheaper) when all are plain Spans
        raw = tuple(self.spans)
        spans = tuple(sorted(raw, key=_span_order) if all(type(s) is Span for s in raw) else sorted(raw))
        for s in spans:
            if not isinstance(s, Span):
                raise SpanError(f"document {self.id!r}: spans must be Span objects")
            if s.end > n:
                raise SpanError(
                    f"document {self.id!r}: span [{s.start}, {s.end}) ends past the text (length {n})"
                )
        object.__setattr__(self, "spans", spans)
        if not isinstance(self.meta, FrozenMeta):
            object.__setattr__(self, "meta", FrozenMeta(self.meta or {}))

    def __repr__(self) -> str:
        return (f"Document(id={self.id!r}, chars={len(self.text)}, spans={len(self.spans)}, "
                f"meta_keys={sorted(self.meta)})")

    __str__ = __repr__

    def __len__(self) -> int:
        return len(self.text)

    def span_text(self, span: Span) -> str:
        return self.text[span.start:span.end]

    def with_spans(self, spans: Iterable[Span]) -> Document:
        return Document(self.id, self.text, tuple(spans), self.meta)

    def with_meta(self, **meta: Any) -> Document:
        return Document(self.id, self.text, self.spans, {**self.meta, **meta})

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "meta": dict(self.meta),
                "spans": [s.to_dict() for s in self.spans]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Document:
        return cls(str(data["id"]), data["text"], tuple(Span.from_dict(s) for s in data.get("spans", ())),
                   data.get("meta") or {})


@dataclass(frozen=True, slots=True)
class Replacement:
    """One changed region: ``[start, end)`` in the original text became ``[out_start, out_end)`` in the output.

    ``label`` / ``category`` / ``operator`` say why. A suppressed sentence is one replacement covering the
    sentence (``label`` is that of the span that caused it). The replacement holds no text: the original is in
    the input document, the new text is ``output.text[out_start:out_end]``.
    """

    start: int
    end: int
    out_start: int
    out_end: int
    label: str
    category: str
    operator: str

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "out_start": self.out_start, "out_end": self.out_end,
                "label": self.label, "category": self.category, "operator": self.operator}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Replacement:
        return cls(int(data["start"]), int(data["end"]), int(data["out_start"]), int(data["out_end"]),
                   str(data["label"]), str(data["category"]), str(data["operator"]))


@dataclass(frozen=True, slots=True)
class SanitizedDocument:
    """The output of de-identification: new text plus the log that maps it back to the original.

    ``replacements`` are sorted, non-overlapping, in the order they occur in both texts.
    """

    id: str
    text: str
    original_length: int
    replacements: tuple[Replacement, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=FrozenMeta)

    def __post_init__(self) -> None:
        reps = tuple(sorted(self.replacements, key=lambda r: (r.start, r.end)))
        prev_end = prev_out = 0
        for r in reps:
            if r.start < prev_end or r.out_start < prev_out or r.end < r.start or r.out_end < r.out_start:
                raise SpanError(f"document {self.id!r}: replacement log is not ordered or overlaps")
            if r.start - prev_end != r.out_start - prev_out:
                raise SpanError(f"document {self.id!r}: replacement log does not align the unchanged text")
            prev_end, prev_out = r.end, r.out_end
        if self.original_length - prev_end != len(self.text) - prev_out:
            raise SpanError(f"document {self.id!r}: replacement log does not match the output length")
        object.__setattr__(self, "replacements", reps)
        if not isinstance(self.meta, FrozenMeta):
            object.__setattr__(self, "meta", FrozenMeta(self.meta or {}))

    def __repr__(self) -> str:
        return (f"SanitizedDocument(id={self.id!r}, chars={len(self.text)}, "
                f"replacements={len(self.replacements)})")

    __str__ = __repr__

    def __iter__(self) -> Iterator[Replacement]:
        return iter(self.replacements)

    def to_output(self, offset: int) -> int:
        """Map an offset of the original text to the output text.

        Offsets inside a replaced region map to the start of its replacement.
        """
        if not 0 <= offset <= self.original_length:
            raise SpanError(f"offset {offset} is outside the original text (length {self.original_length})")
        i = bisect.bisect_right([r.start for r in self.replacements], offset) - 1
        if i < 0:
            return offset
        r = self.replacements[i]
        if offset < r.end:
            return r.out_start
        return r.out_end + (offset - r.end)

    def to_original(self, offset: int) -> int:
        """Map an offset of the output text to the original text.

        Offsets inside a replacement map to the start of the region it replaced.
        """
        if not 0 <= offset <= len(self.text):
            raise SpanError(f"offset {offset} is outside the output text (length {len(self.text)})")
        i = bisect.bisect_right([r.out_start for r in self.replacements], offset) - 1
        if i < 0:
            return offset
        r = self.replacements[i]
        if offset < r.out_end:
            return r.start
        return r.end + (offset - r.out_end)

    def output_spans(self) -> list[Span]:
        """The replacements as spans on the output text (empty replacements, e.g. suppressions, are skipped)."""
        return [Span(r.out_start, r.out_end, r.label, r.operator) for r in self.replacements
                if r.out_end > r.out_start]

    def to_document(self) -> Document:
        """The output as a :class:`Document` whose spans mark the replaced regions."""
        return Document(self.id, self.text, tuple(self.output_spans()), self.meta)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "original_length": self.original_length,
                "meta": dict(self.meta), "replacements": [r.to_dict() for r in self.replacements]}
