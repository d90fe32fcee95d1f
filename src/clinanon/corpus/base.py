"""The protocol of corpus techniques and the one helper that rebuilds a note from pieces, moving its spans.

A corpus technique rewrites a whole corpus (a list of :class:`~clinanon.document.Document`) with a seeded random
generator: ``technique.transform(docs, rng) -> docs``. Gold spans and labels follow every transform that keeps
them, as character offsets on the **new** text; metadata is copied.

Reproducibility: a technique draws one base seed from ``rng`` (``rng.getrandbits(64)``) and gives every note its
own generator seeded by ``(base seed, note id)`` (:func:`doc_rng`), so the output of a note depends on the seed and
on the note only — not on the order of the corpus nor on the other notes. The same ``rng`` state and the same
notes give the same output, on any machine and in any worker process.

:func:`assemble` builds a new text from *pieces*: slices ``(start, end)`` of the original text or literal strings.
A span that lies inside one slice moves with it; a span that no slice holds whole is dropped and counted in
:attr:`TransformStats.dropped_spans` (techniques keep spans whole by construction: they never cut inside a span).
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

from clinanon.document import Document, Span

__all__ = ["Piece", "Technique", "TechniqueBase", "TransformStats", "assemble", "doc_rng"]

#: a piece of a new text: a slice ``(start, end)`` of the original text, or a literal string
Piece = tuple[int, int] | str


@dataclass
class TransformStats:
    """What a technique did to a corpus (counts only, never text)."""

    documents_in: int = 0
    documents_out: int = 0
    changed: int = 0
    eligible: int = 0
    dropped_spans: int = 0
    extra: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"documents_in": self.documents_in, "documents_out": self.documents_out, "changed": self.changed,
                "eligible": self.eligible, "dropped_spans": self.dropped_spans, **self.extra}


@runtime_checkable
class Technique(Protocol):
    """A corpus technique: ``transform(docs, rng) -> docs`` (seeded, reproducible)."""

    name: str
    #: whether the output depends on the random generator (repeated runs with several seeds make sense)
    stochastic: bool

    def transform(self, docs: Sequence[Document], rng: random.Random) -> list[Document]: ...


def doc_rng(base: int, doc_id: str) -> random.Random:
    """The generator of one note: a function of the technique's base seed and the note id (stable across runs,
    processes and Python hash seeds: ``random.Random`` hashes a ``str`` seed with SHA-512)."""
    return random.Random(f"{base}:{doc_id}")


class TechniqueBase:
    """A technique that rewrites each note on its own (:meth:`transform_one`) with the note's own generator."""

    name: ClassVar[str] = "technique"
    stochastic: bool = True

    def __init__(self) -> None:
        self.stats = TransformStats()

    def params(self) -> dict[str, Any]:
        """The technique's parameters (for reports and cache keys)."""
        return {}

    def describe(self) -> dict[str, Any]:
        return {"technique": self.name, **self.params()}

    def transform(self, docs: Sequence[Document], rng: random.Random) -> list[Document]:
        base = rng.getrandbits(64)
        self.stats = TransformStats(documents_in=len(docs))
        out = [self.transform_one(doc, doc_rng(base, doc.id)) for doc in docs]
        self.stats.documents_out = len(out)
        self.stats.changed = sum(1 for a, b in zip(docs, out, strict=True) if a.text != b.text)
        return out

    def transform_one(self, doc: Document, rng: random.Random) -> Document:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({args})"


def assemble(doc: Document, pieces: Iterable[Piece], stats: TransformStats | None = None, *,
             doc_id: str | None = None, meta: dict[str, Any] | None = None) -> Document:
    """A new document whose text is the concatenation of ``pieces`` (slices of ``doc.text`` or strings).

    Every span of ``doc`` that lies inside one slice piece is moved with it (a slice may be used once: a span is
    carried by the first slice that holds it); the others are dropped and counted in ``stats.dropped_spans``.
    """
    spans = sorted(doc.spans, key=lambda s: (s.start, s.end))
    starts = [s.start for s in spans]
    out: list[str] = []
    new_spans: list[Span] = []
    carried: set[int] = set()
    pos = 0
    for piece in pieces:
        if isinstance(piece, str):
            out.append(piece)
            pos += len(piece)
            continue
        a, b = piece
        out.append(doc.text[a:b])
        i = bisect.bisect_left(starts, a)
        while i < len(spans) and spans[i].start < b:
            s = spans[i]
            if s.end <= b and i not in carried:
                carried.add(i)
                new_spans.append(Span.trusted(pos + s.start - a, pos + s.end - a, s.label, s.source, s.score))
            i += 1
        pos += b - a
    if stats is not None:
        stats.dropped_spans += len(spans) - len(carried)
    return Document(doc_id or doc.id, "".join(out), tuple(new_spans), doc.meta if meta is None else meta)
