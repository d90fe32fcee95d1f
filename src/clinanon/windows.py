"""Long notes in bounded memory and linear time: detection in overlapping windows.

A note longer than :attr:`Pipeline.long_note_chars <clinanon.pipeline.Pipeline.long_note_chars>` (a concatenated
export, a whole stay in one file) is not analysed in one piece: its tokens, features and candidates would be held
for the whole note at once (about 1.6 kB per character), and some steps grow faster than the text. Instead:

1. :func:`split_windows` cuts the note into consecutive **cores** of about ``size`` characters, each ending at a
   paragraph break, else a line break, else a sentence end, else a space; each core is read with ``overlap``
   characters of context on both sides (the **window**, its edges on line or word boundaries), so that a span
   crossing a core's border is seen whole;
2. **pass 1**, window by window: the plan's detectors, then the steps before ``propagate``; a window keeps the
   spans that *start in its core* (a span of the overlap belongs to the neighbour that owns it; where the two
   disagree at a border, the span that starts first wins, so the output never overlaps). The names found are
   collected for the whole note (distinct strings, their labels and best scores: small);
3. **pass 2**, window by window: ``propagate`` with every name of the **whole note** (a name found once anywhere
   is found everywhere, as on a short note), then the remaining steps (repair, profile, min_score, to_scheme),
   the same core rule.

Only one window's analysis lives at a time; what is kept for the note is its spans and its distinct names. The
detectors see the window's text as a note of their own (the note's id, metadata and language); a note without a
``propagate`` step needs pass 1 only. The result differs from a one-piece run only where context further than
``overlap`` characters away would have changed a decision.

Propagation in a window reads the note's names through a small appendix to the window's text: one line per
distinct name string whose words occur in the window, spanned with its label and best score, so that
:func:`clinanon.steps.propagate.propagate` itself runs unchanged; nothing found in the appendix is kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import pairwise
from typing import Protocol

from clinanon.analysis import AUTO, Analysis
from clinanon.detect.base import Detector, run_detector
from clinanon.document import Document, Span
from clinanon.lang.identify import identify_language
from clinanon.lang.normalize import detection_view
from clinanon.steps.base import Step, run_steps
from clinanon.steps.propagate import Propagate, propagate
from clinanon.text import check_language

__all__ = ["LONG_NOTE_CHARS", "OVERLAP_CHARS", "WINDOW_CHARS", "Window", "detect_windowed", "long_note_analysis",
           "split_windows"]

#: notes longer than this (characters) are analysed in windows by default
LONG_NOTE_CHARS = 100_000
#: the size of a window's core (characters)
WINDOW_CHARS = 40_000
#: the context read on each side of a core (characters): longer than any span and than the reach of any rule
OVERLAP_CHARS = 2_000
#: the language of a long note is identified from its first characters (identification needs far fewer)
_IDENTIFY_CHARS = 20_000

_SENTENCE_END = re.compile(r"[.!?;:][\"'»”)\]]*\s+")
_WORD = re.compile(r"\w+")


class _Plan(Protocol):
    """What :func:`detect_windowed` needs of :class:`clinanon.pipeline.Plan`."""

    detectors: tuple[tuple[str, Detector], ...]
    steps: tuple[Step, ...]


@dataclass(frozen=True, slots=True)
class Window:
    """``[start, end)``: the text read; ``[core_start, core_end)``: the part whose spans this window keeps."""

    start: int
    end: int
    core_start: int
    core_end: int


def _cut(text: str, lo: int, hi: int) -> int:
    """A position in ``(lo, hi]`` to end a core at: after the last paragraph break, else line break, else sentence
    end, else space in ``[lo, hi)``; ``hi`` when there is none (a very long word)."""
    for sep in ("\n\n", "\n"):
        k = text.rfind(sep, lo, hi)
        if k >= 0:
            return k + len(sep)
    last = None
    for last in _SENTENCE_END.finditer(text, lo, hi):  # noqa: B007 - the last one
        pass
    if last is not None:
        return last.end()
    k = text.rfind(" ", lo, hi)
    return k + 1 if k >= 0 else hi


def _left_edge(text: str, pos: int, limit: int) -> int:
    """A window's first character at or after ``pos`` and at most ``limit``: a line start, else a word start."""
    if pos <= 0:
        return 0
    k = text.find("\n", pos - 1, limit)
    if k >= 0:
        return k + 1
    k = text.find(" ", pos - 1, limit)
    return k + 1 if k >= 0 else pos


def _right_edge(text: str, pos: int, limit: int) -> int:
    """A window's end at or before ``pos`` and at least ``limit``: a line end, else a word end."""
    if pos >= len(text):
        return len(text)
    k = text.rfind("\n", limit, pos + 1)
    if k >= 0:
        return k
    k = text.rfind(" ", limit, pos + 1)
    return k if k >= 0 else pos


def split_windows(text: str, size: int = WINDOW_CHARS, overlap: int = OVERLAP_CHARS) -> list[Window]:
    """Consecutive cores of about ``size`` characters covering ``text`` (each at least ``size // 2`` but the
    last), read with up to ``overlap`` characters on each side (see the module docstring)."""
    if size < 2 or overlap < 0:
        raise ValueError(f"window size must be at least 2 and overlap at least 0 (got {size}, {overlap})")
    n = len(text)
    cuts = [0]
    while n - cuts[-1] > size:
        start = cuts[-1]
        cuts.append(_cut(text, start + size // 2, start + size))
    cuts.append(n)
    return [Window(_left_edge(text, a - overlap, a), _right_edge(text, b + overlap, b), a, b)
            for a, b in pairwise(cuts)]


def long_note_analysis(doc: Document, default_lang: str | None = AUTO) -> Analysis:
    """The analysis of a long note *as a whole*, without its view or tokens (each window has its own): its
    language as :meth:`Analysis.of <clinanon.analysis.Analysis.of>` gives it, identified from its first
    characters when neither the note nor the pipeline names it."""
    lang = doc.meta.get("lang")
    if lang:
        return Analysis(doc, check_language(str(lang)))
    if default_lang and default_lang != AUTO:
        return Analysis(doc, check_language(default_lang))
    guess = identify_language(detection_view(doc.text[:_IDENTIFY_CHARS]).text)
    if guess.lang is None:
        raise guess.refusal(doc.id)
    return Analysis(doc, guess.lang, guess=guess)


def _window_analysis(note: Analysis, w: Window) -> Analysis:
    doc = note.source
    return Analysis.of(Document(doc.id, doc.text[w.start:w.end], meta=doc.meta), note.lang)


class _Names:
    """The distinct name strings of a note (on the detection view), each with its labels and best score."""

    def __init__(self) -> None:
        self.best: dict[tuple[str, str], float] = {}
        self.by_word: dict[str, set[str]] = {}

    def add(self, name: str, label: str, score: float) -> None:
        key = (name, label)
        if key not in self.best:
            for word in _WORD.findall(name):
                self.by_word.setdefault(word, set()).add(name)
        self.best[key] = max(score, self.best.get(key, 0.0))

    def appendix(self, text: str) -> tuple[str, list[tuple[int, int, str, float]]]:
        """The lines to append to ``text`` (names with a word in it) and their spans (offsets in the appendix)."""
        names: set[str] = set()
        for word in set(_WORD.findall(text)):
            found = self.by_word.get(word)
            if found:
                names |= found
        if not names:
            return "", []
        lines: list[str] = []
        spans: list[tuple[int, int, str, float]] = []
        pos = 0
        for (name, label), score in sorted(self.best.items()):
            if name not in names:
                continue
            lines.append(name)
            spans.append((pos, pos + len(name), label, score))
            pos += len(name) + 1
        return "\n".join(lines), spans


def _propagate(step: Propagate, a: Analysis, spans: list[Span], names: _Names) -> list[Span]:
    """The ``propagate`` step on a window with the whole note's names (see the module docstring)."""
    text = a.text
    extra, extra_spans = names.appendix(text)
    if not extra_spans:
        return step.process(a, spans) if spans else spans
    base = len(text) + 2
    joined = Document(a.id, text + "\n\n" + extra, meta=a.meta)
    given = [*spans, *(Span.trusted(base + s, base + e, label, "propagate:note", score)
                       for s, e, label, score in extra_spans)]
    return [s for s in propagate(joined, given, labels=step.is_name, lang=a.lang) if s.end <= len(text)]


def _keep(spans: Iterable[Span], w: Window, after: int) -> list[Span]:
    """The spans (on the window's text) that start in the window's core and not before ``after`` (the end of the
    last span kept), as spans of the note."""
    out = []
    shift = w.start
    for s in sorted(spans, key=lambda s: (s.start, s.end)):
        start = s.start + shift
        if w.core_start <= start < w.core_end and start >= after:
            out.append(Span.trusted(start, s.end + shift, s.label, s.source, s.score))
            after = s.end + shift
    return out


def detect_windowed(plan: _Plan, note: Analysis, *, size: int = WINDOW_CHARS, overlap: int = OVERLAP_CHARS,
                    on_window: Callable[[int, int], None] | None = None) -> list[Span]:
    """The spans of a long note (on its original text), detected window by window with ``plan`` (the module
    docstring). ``on_window(done, total)`` is called after each window of each pass (progress)."""
    windows = split_windows(note.source.text, size, overlap)
    steps = list(plan.steps)
    k = next((i for i, s in enumerate(steps) if isinstance(s, Propagate)), None)
    before, after = (steps, []) if k is None else (steps[:k], steps[k + 1:])
    is_name = None if k is None else steps[k].is_name  # type: ignore[attr-defined]
    names = _Names()
    first: list[Span] = []
    total = len(windows) * (1 if k is None else 2)
    for i, w in enumerate(windows):
        a = _window_analysis(note, w)
        for name, det in plan.detectors:
            a.candidates[name] = list(run_detector(det, [a])[0])
        [spans] = run_steps(before, [a], [[s for name, _ in plan.detectors for s in a.candidates[name]]])
        source = a.to_source(spans)
        kept = _keep(source, w, first[-1].end if first else 0)
        if is_name is not None:  # the names this window keeps, as the detectors read them (the view)
            in_core = {(s.start - w.start, s.end - w.start) for s in kept}
            view_text = a.text
            for s, src in zip(spans, source, strict=True):
                if is_name(s.label) and (src.start, src.end) in in_core:
                    names.add(view_text[s.start:s.end], s.label, s.score)
        first.extend(kept)
        del a
        if on_window is not None:
            on_window(i + 1, total)
    if k is None:
        return first
    step = steps[k]
    out: list[Span] = []
    j = 0  # the first span of pass 1 not before the current window
    for i, w in enumerate(windows):
        a = _window_analysis(note, w)
        while j < len(first) and first[j].start < w.start:
            j += 1
        local = []
        m = j
        while m < len(first) and first[m].start < w.end:
            s = first[m]
            if s.end <= w.end:
                local.append(_to_view(a, s, w.start))
            m += 1
        spans = _propagate(step, a, [s for s in local if s is not None], names)  # type: ignore[arg-type]
        [spans] = run_steps(after, [a], [spans])
        out.extend(_keep(a.to_source(spans), w, out[-1].end if out else 0))
        if on_window is not None:
            on_window(len(windows) + i + 1, total)
    return out


def _to_view(a: Analysis, s: Span, shift: int) -> Span | None:
    """A span of the note as a span of the window's view (``None`` when it covers only invisible characters)."""
    start, end = s.start - shift, s.end - shift
    if not a.view.identity:
        start, end = a.view.to_view(start, end)
        if start >= end:
            return None
    return Span.trusted(start, end, s.label, s.source, s.score)
