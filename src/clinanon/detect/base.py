"""The detector protocol, and what every detector shares.

A detector has a ``name`` and ``detect(analysis) -> list[Span]``: it reads one note through its
:class:`~clinanon.analysis.Analysis` (text, language, tokens, the candidates of the detectors that ran before it)
and returns spans with character offsets on the note's text, a label (a canonical category such as ``"DATE"`` for
the built-in rules, native labels for models trained on a corpus), ``source`` = the detector/pattern name and a
score. ``pipe(analyses)`` does the same for a batch (spaCy's ``Pipe.pipe`` shape); :class:`BaseDetector` gives the
one-by-one default, and a detector that gains from seeing the whole batch (the rules) overrides it.

What happens after detection (overlaps, name propagation, repairs, label schemes) is not a detector's job: the
pipeline's steps (:mod:`clinanon.steps`) do it once per note.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

from clinanon.analysis import Analysis, as_analysis
from clinanon.document import Document, Span

__all__ = ["BaseDetector", "Detector", "GoldDataReport", "Pattern", "may_overlap", "run_detector"]


@runtime_checkable
class Detector(Protocol):
    """Finds PHI candidates in a note: a ``name`` and ``detect(analysis)``. Subclass :class:`BaseDetector` for
    the batch method ``pipe`` and a ``detect`` that also takes a plain Document."""

    name: str

    def detect(self, analysis: Analysis) -> list[Span]:
        """Spans on ``analysis.text`` (the document's own spans are ignored)."""
        ...


def run_detector(detector: Detector, analyses: Sequence[Analysis]) -> list[list[Span]]:
    """The spans of ``detector`` on each note: its ``pipe`` (a :class:`BaseDetector`), else ``detect`` one by one."""
    if isinstance(detector, BaseDetector):
        return detector.pipe(analyses)
    return [detector.detect(a) for a in analyses]


def may_overlap(detector: Detector) -> bool:
    """Whether the spans of ``detector`` may overlap (:attr:`BaseDetector.overlapping`; unknown detectors: yes)."""
    return detector.overlapping if isinstance(detector, BaseDetector) else True


class BaseDetector:
    """The shared part of a detector: ``pipe`` runs ``detect`` on each note, and :meth:`analysis` lets ``detect``
    also take a :class:`~clinanon.document.Document` (called directly, outside a pipeline).

    ``overlapping`` says whether the detector's spans may overlap (raw candidates, such as the rules'): a tagger
    that decodes one label per token (CRF, spaCy NER) returns resolved spans, which the ensemble does not resolve
    again."""

    name: str = "detector"
    #: the language of notes whose ``meta`` names none
    lang: str = "es"
    overlapping: ClassVar[bool] = True

    def detect(self, analysis: Analysis) -> list[Span]:  # pragma: no cover - the protocol's method
        raise NotImplementedError

    def pipe(self, analyses: Sequence[Analysis]) -> list[list[Span]]:
        return [self.detect(a) for a in analyses]

    def analysis(self, target: Analysis | Document) -> Analysis:
        """``target`` as an :class:`~clinanon.analysis.Analysis` (built with this detector's language)."""
        return as_analysis(target, self.lang)


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
