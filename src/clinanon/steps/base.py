"""The step protocol: what runs after the detectors, once per note, in a fixed order.

A step takes a note's :class:`~clinanon.analysis.Analysis` (its text, language, tokens and every detector's
candidates) and the spans the previous step returned, and returns the next spans. The pipeline hands the first
step all detectors' candidates together; a step that combines detectors per label
(:class:`~clinanon.steps.combine.Select`) reads them per detector from ``analysis.candidates`` instead. Like
docdeid's processor group, the steps of a pipeline are named and ordered (:meth:`clinanon.pipeline.Pipeline.plan`),
and each is small and testable alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from clinanon.analysis import Analysis
from clinanon.document import Span

__all__ = ["Step", "run_steps"]


@runtime_checkable
class Step(Protocol):
    """One post-detection step (resolve, select, propagate, repair, to_scheme ...)."""

    name: str

    def process(self, analysis: Analysis, spans: list[Span]) -> list[Span]:
        """The spans after this step (``spans``: those of the previous step)."""
        ...


def run_steps(steps: Sequence[Step], analyses: Sequence[Analysis], spans: Sequence[list[Span]]) -> list[list[Span]]:
    """Each step over every note of a batch before the next step starts (its tables stay in the CPU caches);
    the same spans as running the steps note by note."""
    out = list(spans)
    for step in steps:
        process = step.process
        out = [process(a, s) for a, s in zip(analyses, out, strict=True)]
    return out
