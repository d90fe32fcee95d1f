"""The one object users hold: configuration → detectors → steps → operator.

>>> from clinanon.pipeline import Pipeline
>>> nlp = Pipeline.from_config(language="es")            # doctest: +SKIP
>>> nlp.detect(doc).spans                                  # doctest: +SKIP
>>> nlp.deidentify(doc).text                               # doctest: +SKIP

How one note goes through it (:meth:`Pipeline.detect_spans_many`, over a batch at a time):

1. an :class:`~clinanon.analysis.Analysis` of the note: its language (``meta["lang"]``, else the configured one),
   its tokens (computed once, shared by every detector and step);
2. the **detectors** of that language (:meth:`Pipeline.plan`) run in order, each over the whole batch
   (``pipe``), and leave their raw candidates in ``analysis.candidates`` (the CRF reads the rules' there);
3. the **steps** run in order, each once per note (:mod:`clinanon.steps`): for detectors listed in
   ``detectors.use``, ``resolve`` (overlaps, priorities, name merging) → ``propagate`` (names found once are
   found everywhere in the note) → ``to_scheme``; for an ensemble (the Spanish default: rules + the shipped CRF),
   ``select`` (per label) → ``propagate`` → ``repair`` → ``min_score`` → ``to_scheme``;
4. the operators replace what was found (:class:`~clinanon.transform.engine.Anonymizer`).

Detectors are looked up by name in a registry (:mod:`clinanon.registry`), like spaCy's factories. The default,
``default``, is a :class:`~clinanon.detect.dispatch.LanguageDispatch`: per note language, the rules and the
shipped CRF for Spanish (:func:`clinanon.models.default_detector`), the rules of the language elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clinanon.analysis import Analysis
from clinanon.config import Config
from clinanon.detect.base import Detector, run_detector
from clinanon.detect.dispatch import LanguageDispatch
from clinanon.document import Document, SanitizedDocument, Span
from clinanon.ensemble import Ensemble
from clinanon.errors import ConfigError
from clinanon.registry import get_detector_factory, list_detectors, register_detector
from clinanon.steps.base import Step, run_steps
from clinanon.steps.propagate import Propagate
from clinanon.steps.resolve import Resolve, Resolver
from clinanon.steps.scheme import SchemeLabels, ToScheme
from clinanon.taxonomy import LabelScheme, get_scheme
from clinanon.transform.engine import Anonymizer

__all__ = ["LanguageDispatch", "Pipeline", "Plan", "get_detector_factory", "list_detectors", "register_detector"]


@dataclass(frozen=True)
class Plan:
    """What a pipeline runs on the notes of one language: named detectors in order, then the steps in order."""

    detectors: tuple[tuple[str, Detector], ...]
    steps: tuple[Step, ...]

    def describe(self) -> dict[str, list[str]]:
        """The names of the detectors and steps (for logs and docs; no text)."""
        return {"detectors": [n for n, _ in self.detectors], "steps": [s.name for s in self.steps]}


class Pipeline:
    """Detects PHI and replaces it, as configured.

    ``detect`` returns the document with its spans replaced by the predictions (labels in the configured scheme);
    ``deidentify`` returns a :class:`~clinanon.document.SanitizedDocument` with the replacement log.
    """

    def __init__(self, config: Config | None = None, *, detectors: Sequence[Detector] | None = None) -> None:
        # the configuration's own label schemes are registered (process-wide) where a pipeline is built
        self.config = (config or Config()).register_schemes()
        self.scheme: LabelScheme = get_scheme(self.config.label_scheme)
        if detectors is None:
            detectors = [get_detector_factory(name)(self.config) for name in self.config.detectors.use]
        self.detectors: list[Detector] = list(detectors)
        self.resolver = Resolver(min_score=self.config.detectors.min_score)
        self.anonymizer = Anonymizer(self.config.operators, scheme=self.scheme, lang=self.config.language)
        self._plans: dict[str, Plan] = {}

    @classmethod
    def from_config(cls, path: str | Path | None = None, **overrides: Any) -> Pipeline:
        """Build from a TOML file (or the defaults), with top-level keys overridden by keyword arguments
        (:meth:`Config.from_options`); the configuration's own label schemes are registered first
        (:meth:`Config.register_schemes`)."""
        return cls(Config.from_options(path, overrides).register_schemes())

    @property
    def lang(self) -> str:
        return self.config.language

    # --- the plan of one language ---------------------------------------------------------------------------
    def plan(self, lang: str) -> Plan:
        """The detectors and steps run on the notes of ``lang`` (built once per language).

        One ensemble (directly, or as the ``default`` detector's choice for ``lang``) brings its members and its
        steps; any other detectors run side by side, and their candidates are resolved, propagated and mapped to
        the scheme."""
        plan = self._plans.get(lang)
        if plan is None:
            plan = self._plans[lang] = self._make_plan(lang)
        return plan

    def _make_plan(self, lang: str) -> Plan:
        cfg = self.config.detectors
        only = self.detectors[0] if len(self.detectors) == 1 else None
        if isinstance(only, LanguageDispatch):
            only = only.detector_for(lang)
        if isinstance(only, Ensemble):
            return Plan(tuple((m, only.detectors[m]) for m in only.run_order),
                        tuple(only.steps(self.scheme, cfg.min_score)))
        dets = [only] if only is not None else self.detectors
        names: list[str] = []
        for d in dets:
            name = str(getattr(d, "name", type(d).__name__))
            names.append(name if name not in names else f"{name}#{len(names)}")
        steps: list[Step] = [Resolve(self.resolver)]
        if cfg.propagate_names:
            steps.append(Propagate(SchemeLabels(self.scheme).is_name))
        steps.append(ToScheme(self.scheme))
        return Plan(tuple(zip(names, dets, strict=True)), tuple(steps))

    # --- detection ------------------------------------------------------------------------------------------
    def analysis(self, doc: Document) -> Analysis:
        """The :class:`~clinanon.analysis.Analysis` of ``doc`` (its language: ``meta["lang"]``, else the
        configured one)."""
        return Analysis.of(doc, self.config.language)

    def candidates(self, doc: Document) -> list[Span]:
        """Every detector's raw candidates (overlapping, canonical or native labels)."""
        return self.candidates_many([doc])[0]

    def candidates_many(self, docs: Sequence[Document]) -> list[list[Span]]:
        """``[self.candidates(d) for d in docs]``, each detector over the whole batch."""
        analyses = [self.analysis(d) for d in docs]
        out: list[list[Span]] = [[] for _ in docs]
        for d in self.detectors:
            for spans, found in zip(out, run_detector(d, analyses), strict=True):
                spans.extend(found)
        return out

    def detect_spans(self, doc: Document) -> list[Span]:
        """Resolved, propagated predictions with labels in the configured scheme."""
        return self.detect_spans_many([doc])[0]

    def detect_spans_many(self, docs: Sequence[Document]) -> list[list[Span]]:
        """``[self.detect_spans(d) for d in docs]`` (the same spans): per language, each detector runs over the
        batch, then each step (see the module docstring)."""
        analyses = [self.analysis(d) for d in docs]
        groups: dict[str, list[int]] = {}
        for i, a in enumerate(analyses):
            groups.setdefault(a.lang, []).append(i)
        out: list[list[Span]] = [[] for _ in docs]
        for lang, idx in groups.items():
            plan = self.plan(lang)
            group = [analyses[i] for i in idx]
            for name, det in plan.detectors:
                for a, spans in zip(group, run_detector(det, group), strict=True):
                    a.candidates[name] = list(spans)
            first = [[s for name, _ in plan.detectors for s in a.candidates[name]] for a in group]
            for i, spans in zip(idx, run_steps(plan.steps, group, first), strict=True):
                out[i] = spans
        return out

    def detect(self, doc: Document) -> Document:
        return doc.with_spans(self.detect_spans(doc))

    # --- de-identification ----------------------------------------------------------------------------------
    def deidentify(self, doc: Document, spans: Sequence[Span] | None = None) -> SanitizedDocument:
        """Replace PHI; ``spans`` (e.g. gold annotations) skip detection."""
        if spans is None:
            spans = self.detect_spans(doc)
        return self.anonymizer.anonymize(doc, spans)

    def pipe(self, docs: Iterable[Document], *, deidentify: bool = True, batch_size: int = 32,
             batch_chars: int = 400_000) -> Iterator[Document | SanitizedDocument]:
        """:meth:`deidentify` (or :meth:`detect`) for each document, in order, the same results.

        Documents are taken in batches of up to ``batch_size`` documents and ``batch_chars`` characters, and each
        detection step runs over a whole batch before the next one starts (faster on a corpus: the step's
        patterns and tables stay in the CPU caches); so does de-identification (:meth:`Anonymizer.anonymize_many
        <clinanon.transform.engine.Anonymizer.anonymize_many>`: a surrogate operator generates the batch's
        surrogates category by category). ``batch_size=1`` processes one document at a time. An error in a batch is
        raised for the first document that fails, as one-by-one processing would: the batch is run again one
        document at a time (the one error handler).
        """
        if batch_size < 1 or batch_chars < 1:
            raise ConfigError(f"batch_size and batch_chars must be at least 1 (got {batch_size}, {batch_chars})")
        for batch in _batches(docs, batch_size, batch_chars):
            try:
                outs = self._batch(batch, deidentify)
            except Exception:
                outs = None  # one by one: the documents before the failing one come out first
            if outs is not None:
                yield from outs
                continue
            for doc in batch:
                yield from self._batch([doc], deidentify)

    def _batch(self, batch: Sequence[Document], deidentify: bool) -> list[Document | SanitizedDocument]:
        found = self.detect_spans_many(batch)
        if deidentify:
            return list(self.anonymizer.anonymize_many(batch, found))
        return [doc.with_spans(spans) for doc, spans in zip(batch, found, strict=True)]


def _batches(docs: Iterable[Document], size: int, chars: int) -> Iterator[list[Document]]:
    """Consecutive batches of at most ``size`` documents and (unless one document is longer) ``chars`` characters."""
    batch: list[Document] = []
    n = 0
    for doc in docs:
        if batch and (len(batch) >= size or n + len(doc.text) > chars):
            yield batch
            batch, n = [], 0
        batch.append(doc)
        n += len(doc.text)
    if batch:
        yield batch
