"""The one object users hold: configuration → detectors → steps → operator.

>>> from clinanon.pipeline import Pipeline
>>> nlp = Pipeline.from_config(language="es")            # doctest: +SKIP
>>> nlp.detect(doc).spans                                  # doctest: +SKIP
>>> nlp.deidentify(doc).text                               # doctest: +SKIP

How one note goes through it (:meth:`Pipeline.detect_spans_many`, over a batch at a time):

1. an :class:`~clinanon.analysis.Analysis` of the note: its language (``meta["lang"]``, else the configured one,
   else -- ``language = "auto"``, the default -- identified from its text; a note in an unsupported language, or
   whose language cannot be told, is refused with :class:`~clinanon.lang.identify.LanguageRefused`), its view for
   detection (invisible characters removed, look-alikes folded: :mod:`clinanon.lang.normalize`), its tokens
   (computed once, shared by every detector and step);
2. the **detectors** of that language (:meth:`Pipeline.plan`) run in order, each over the whole batch
   (``pipe``), and leave their raw candidates in ``analysis.candidates`` (the CRF reads the rules' there);
3. the **steps** run in order, each once per note (:mod:`clinanon.steps`): for detectors listed in
   ``detectors.use``, ``resolve`` (overlaps, priorities, name merging) → ``propagate`` (names found once are
   found everywhere in the note) → ``profile`` → ``to_scheme``; for an ensemble (the Spanish default: rules + the
   shipped CRF), ``select`` (per label) → ``propagate`` → ``repair`` → ``profile`` → ``min_score`` →
   ``to_scheme``. ``profile`` (:class:`~clinanon.steps.profile.ApplyProfile`) keeps what the configuration's
   legal profile counts as PHI (``hipaa`` drops ages up to 89, clock times, sex ...); the default,
   ``gdpr-strict``, keeps everything, and its step is left out of the plan;
4. the spans go back from the view to the original text (:meth:`Analysis.to_source
   <clinanon.analysis.Analysis.to_source>`): every span the pipeline returns is on the original text;
5. the operators replace what was found (:class:`~clinanon.transform.engine.Anonymizer`), with the note's
   language (an identified language is written to the output's ``meta["lang"]``).

**A model of one language runs only on notes of that language.** A trained model (a detector with ``fit``: the
CRF, a spaCy NER; or any detector with a ``languages`` attribute) is left out of the plan of another language,
and that language's rules run in its place (the plan of an ensemble that loses a member is its remaining
members + rules, resolved and propagated as a ``detectors.use`` list). A :class:`ModelLanguageWarning` says so,
once per pipeline and language, with counts only; :attr:`Pipeline.language_counts` counts the notes per language
and :attr:`Pipeline.models_not_run` the notes each model was kept from.

Detectors are looked up by name in a registry (:mod:`clinanon.registry`), like spaCy's factories. The default,
``default``, is a :class:`~clinanon.detect.dispatch.LanguageDispatch`: per note language, the rules and the
shipped CRF for Spanish (:func:`clinanon.models.default_detector`), the rules of the language elsewhere.
"""

from __future__ import annotations

import warnings
from collections import Counter
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
from clinanon.profiles import Profile, get_profile
from clinanon.registry import get_detector_factory, list_detectors, register_detector
from clinanon.steps.base import Step, run_steps
from clinanon.steps.profile import ApplyProfile
from clinanon.steps.propagate import Propagate
from clinanon.steps.resolve import Resolve, Resolver
from clinanon.steps.scheme import SchemeLabels, ToScheme
from clinanon.taxonomy import LabelScheme, get_scheme
from clinanon.transform.engine import Anonymizer
from clinanon.windows import LONG_NOTE_CHARS, WINDOW_CHARS, detect_windowed, long_note_analysis

__all__ = ["LanguageDispatch", "ModelLanguageWarning", "Pipeline", "Plan", "get_detector_factory", "list_detectors",
           "model_languages", "register_detector"]


class ModelLanguageWarning(UserWarning):
    """A model of the configuration was not run on notes of another language (counts and codes only)."""


def model_languages(detector: Any) -> frozenset[str] | None:
    """The note languages ``detector`` may run on, ``None`` for any (it follows each note's language, as the rules).

    A detector's own ``languages`` attribute (a collection of codes) when it has one; else a trained model -- a
    detector with a ``fit`` method and a ``lang`` (the CRF, spaCy NER, a user's estimator) -- runs on its ``lang``
    only: its features, vocabulary and labels are those of one language's text (a spaCy model of ``xx``, spaCy's
    multi-language code, runs on any)."""
    declared = getattr(detector, "languages", None)
    if declared is not None and not isinstance(declared, str):
        return frozenset(str(code) for code in declared)
    lang = getattr(detector, "lang", None)
    if callable(getattr(detector, "fit", None)) and isinstance(lang, str) and lang != "xx":  # xx: spaCy's multi
        return frozenset({lang})
    return None


@dataclass(frozen=True)
class Plan:
    """What a pipeline runs on the notes of one language: named detectors in order, then the steps in order.

    ``not_run``: the configuration's models of other languages that this plan leaves out (name, languages), for
    the :class:`ModelLanguageWarning`."""

    detectors: tuple[tuple[str, Detector], ...]
    steps: tuple[Step, ...]
    not_run: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def describe(self) -> dict[str, list[str]]:
        """The names of the detectors and steps (for logs and docs; no text)."""
        return {"detectors": [n for n, _ in self.detectors], "steps": [s.name for s in self.steps]}


class Pipeline:
    """Detects PHI and replaces it, as configured.

    ``detect`` returns the document with its spans replaced by the predictions (labels in the configured scheme);
    ``deidentify`` returns a :class:`~clinanon.document.SanitizedDocument` with the replacement log.
    """

    #: notes longer than this (characters) are detected in windows of ``window_chars`` (:mod:`clinanon.windows`:
    #: bounded memory, linear time); ``None``: every note in one piece
    long_note_chars: int | None = LONG_NOTE_CHARS
    window_chars: int = WINDOW_CHARS

    def __init__(self, config: Config | None = None, *, detectors: Sequence[Detector] | None = None) -> None:
        # the configuration's own label schemes are registered (process-wide) where a pipeline is built
        self.config = (config or Config()).register_schemes()
        # long notes in windows, as configured (0: never); the class attributes stay the defaults
        self.long_note_chars = self.config.long_note_chars or None
        self.window_chars = self.config.window_chars
        self.scheme: LabelScheme = get_scheme(self.config.label_scheme)
        #: the legal profile: what counts as PHI (``profile`` step; ``gdpr-strict``, the default, keeps all)
        self.profile: Profile = get_profile(self.config.profile)
        if detectors is None:
            detectors = [get_detector_factory(name)(self.config) for name in self.config.detectors.use]
        self.detectors: list[Detector] = list(detectors)
        self.resolver = Resolver(min_score=self.config.detectors.min_score)
        # a note whose language was not given gets its identified language in meta["lang"] before the operators
        self.anonymizer = Anonymizer(self.config.operators, scheme=self.scheme, lang=self.config.default_language)
        self._plans: dict[str, Plan] = {}
        #: notes analysed, per language (given or identified)
        self.language_counts: Counter[str] = Counter()
        #: notes each model of another language was kept from: (model, note language) -> count
        self.models_not_run: Counter[tuple[str, str]] = Counter()
        self._warned: set[str] = set()

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
        not_run: dict[str, tuple[str, ...]] = {}
        if isinstance(only, LanguageDispatch):
            dispatch = only
            only = dispatch.detector_for(lang)
            # the models the configuration has for other languages (built so far: the default language's at least)
            for other in {id(d): d for d in dispatch.built.values()}.values():
                if other is not only:
                    not_run.update(_foreign_models(_members(other), lang))
        if isinstance(only, Ensemble):
            members = [(m, only.detectors[m]) for m in only.run_order]
            foreign = _foreign_models(members, lang)
            if not foreign:
                return Plan(tuple(members), tuple(only.steps(self.scheme, cfg.min_score, self.profile)),
                            tuple(sorted(not_run.items())))
            not_run.update(foreign)
            dets = [d for m, d in members if m not in foreign]
        else:
            dets = [only] if only is not None else list(self.detectors)
            named = [(f"{getattr(d, 'name', type(d).__name__)}#{i}", d) for i, d in enumerate(dets)]
            foreign = _foreign_models(named, lang)
            not_run.update({name.split("#")[0]: langs for name, langs in foreign.items()})
            dets = [d for name, d in named if name not in foreign]
        if foreign and not any(getattr(d, "name", None) == "rules" for d in dets):
            # the rules of the note's language stand in for the models left out
            dets.append(get_detector_factory("rules")(self.config.with_overrides(language=lang)))
        names: list[str] = []
        for d in dets:
            name = str(getattr(d, "name", type(d).__name__))
            names.append(name if name not in names else f"{name}#{len(names)}")
        steps: list[Step] = [Resolve(self.resolver)]
        labels = SchemeLabels(self.scheme)
        if cfg.propagate_names:
            steps.append(Propagate(labels.is_name))
        if not self.profile.keeps_everything:
            steps.append(ApplyProfile(self.profile, labels.category))
        steps.append(ToScheme(self.scheme))
        return Plan(tuple(zip(names, dets, strict=True)), tuple(steps), tuple(sorted(not_run.items())))

    # --- detection ------------------------------------------------------------------------------------------
    def analysis(self, doc: Document) -> Analysis:
        """The :class:`~clinanon.analysis.Analysis` of ``doc``: its language ``meta["lang"]``, else the configured
        one, else (``auto``) identified from its text (raises :class:`~clinanon.lang.identify.LanguageRefused` for
        a note in an unsupported language or too short to tell); its view for detection."""
        return Analysis.of(doc, self.config.language)

    def candidates(self, doc: Document) -> list[Span]:
        """Every detector's raw candidates (overlapping, canonical or native labels; on the original text)."""
        return self.candidates_many([doc])[0]

    def candidates_many(self, docs: Sequence[Document]) -> list[list[Span]]:
        """``[self.candidates(d) for d in docs]``, each detector over the whole batch."""
        analyses = [self.analysis(d) for d in docs]
        out: list[list[Span]] = [[] for _ in docs]
        for d in self.detectors:
            for spans, found in zip(out, run_detector(d, analyses), strict=True):
                spans.extend(found)
        return [a.to_source(spans) for a, spans in zip(analyses, out, strict=True)]

    def detect_spans(self, doc: Document) -> list[Span]:
        """Resolved, propagated predictions with labels in the configured scheme."""
        return self.detect_spans_many([doc])[0]

    def detect_spans_many(self, docs: Sequence[Document]) -> list[list[Span]]:
        """``[self.detect_spans(d) for d in docs]`` (the same spans): per language, each detector runs over the
        batch, then each step (see the module docstring)."""
        return self._detect(docs)[1]

    def _detect(self, docs: Sequence[Document]) -> tuple[list[Analysis], list[list[Span]]]:
        """The analyses of ``docs`` and their spans on the original texts (a note longer than
        :attr:`long_note_chars`: in windows, :mod:`clinanon.windows`)."""
        long = self.long_note_chars
        analyses = [self.analysis(d) if long is None or len(d.text) <= long
                    else long_note_analysis(d, self.config.language) for d in docs]
        groups: dict[str, list[int]] = {}
        out: list[list[Span]] = [[] for _ in docs]
        for i, a in enumerate(analyses):
            if long is not None and len(a.source.text) > long:
                out[i] = detect_windowed(self.plan(a.lang), a, size=self.window_chars)
                self._count(self.plan(a.lang), a.lang, 1)
            else:
                groups.setdefault(a.lang, []).append(i)
        for lang, idx in groups.items():
            plan = self.plan(lang)
            group = [analyses[i] for i in idx]
            for name, det in plan.detectors:
                for a, spans in zip(group, run_detector(det, group), strict=True):
                    a.candidates[name] = list(spans)
            first = [[s for name, _ in plan.detectors for s in a.candidates[name]] for a in group]
            for i, a, spans in zip(idx, group, run_steps(plan.steps, group, first), strict=True):
                out[i] = a.to_source(spans)
        for lang, idx in groups.items():  # once the batch went through (a batch redone one by one counts once)
            self._count(self.plan(lang), lang, len(idx))
        return analyses, out

    def _count(self, plan: Plan, lang: str, notes: int) -> None:
        """Count the notes of ``lang`` and the models kept from them; warn once per language (counts only)."""
        self.language_counts[lang] += notes
        for name, _ in plan.not_run:
            self.models_not_run[(name, lang)] += notes
        # the ``default`` detector picks each language's detectors by design (the shipped model for its language,
        # the rules elsewhere, as documented): counted, not warned; a model the user configured is warned about
        by_design = len(self.detectors) == 1 and isinstance(self.detectors[0], LanguageDispatch)
        if plan.not_run and not by_design and lang not in self._warned:
            self._warned.add(lang)
            models = ", ".join(f"{name} ({'/'.join(langs)})" for name, langs in plan.not_run)
            warnings.warn(ModelLanguageWarning(
                f"model(s) {models} not run on notes in {lang!r} (a model runs only on notes of its language): "
                f"the {lang} rules were used for them ({notes} note(s) in the first batch)"), stacklevel=2)

    def detect(self, doc: Document) -> Document:
        [a], [spans] = self._detect([doc])
        return _with_language(doc, a).with_spans(spans)

    # --- de-identification ----------------------------------------------------------------------------------
    def deidentify(self, doc: Document, spans: Sequence[Span] | None = None) -> SanitizedDocument:
        """Replace PHI; ``spans`` (e.g. gold annotations, on the document's text) skip detection (the note's
        language is still needed: the operators write in it)."""
        if spans is None:
            [a], [found] = self._detect([doc])
            spans = found
        else:
            a = self.analysis(doc)
        return self.anonymizer.anonymize(_with_language(doc, a), spans)

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
        analyses, found = self._detect(batch)
        docs = [_with_language(doc, a) for doc, a in zip(batch, analyses, strict=True)]
        if deidentify:
            return list(self.anonymizer.anonymize_many(docs, found))
        return [doc.with_spans(spans) for doc, spans in zip(docs, found, strict=True)]


def _with_language(doc: Document, analysis: Analysis) -> Document:
    """``doc`` with its identified language in ``meta["lang"]`` (the operators write in it, and the output records
    it); ``doc`` itself when the language was given."""
    return doc.with_meta(lang=analysis.lang) if analysis.identified else doc


def _members(detector: Detector) -> list[tuple[str, Detector]]:
    """``(name, detector)`` of an ensemble's members, or of the detector itself."""
    if isinstance(detector, Ensemble):
        return [(m, detector.detectors[m]) for m in detector.run_order]
    return [(str(getattr(detector, "name", type(detector).__name__)), detector)]


def _foreign_models(named: Iterable[tuple[str, Detector]], lang: str) -> dict[str, tuple[str, ...]]:
    """The models among ``named`` that do not run on notes of ``lang``: name -> their languages."""
    out: dict[str, tuple[str, ...]] = {}
    for name, det in named:
        langs = model_languages(det)
        if langs is not None and lang not in langs:
            out[name] = tuple(sorted(langs))
    return out


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
