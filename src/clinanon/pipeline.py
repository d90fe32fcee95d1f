"""The one object users hold: configuration → detectors → resolver → (propagation) → operator.

>>> from clinanon.pipeline import Pipeline
>>> nlp = Pipeline.from_config(language="es")            # doctest: +SKIP
>>> nlp.detect(doc).spans                                  # doctest: +SKIP
>>> nlp.deidentify(doc).text                               # doctest: +SKIP

Detectors are looked up by name in a registry (:func:`register_detector`), like spaCy's factories: a factory
gets the validated :class:`~clinanon.config.Config` and returns an object with ``detect(doc) -> list[Span]``.
The default, ``default``, is a :class:`LanguageDispatch`: per document language, the rules and the shipped CRF
for Spanish (:func:`clinanon.models.default_detector`), the rules of the language elsewhere; ``rules`` is the
rules alone for every language.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from clinanon.config import Config
from clinanon.detect.base import Detector, detect_batch
from clinanon.detect.dispatch import LanguageDispatch
from clinanon.document import Document, SanitizedDocument, Span
from clinanon.errors import ConfigError
from clinanon.registry import get_detector_factory, list_detectors, register_detector
from clinanon.taxonomy import LabelScheme, category_matches, get_scheme
from clinanon.text import keep_token_tables

__all__ = ["LanguageDispatch", "Pipeline", "get_detector_factory", "list_detectors", "register_detector"]  # re-exported

class Pipeline:
    """Detects PHI and replaces it, as configured.

    ``detect`` returns the document with its spans replaced by the predictions (labels in the configured scheme);
    ``deidentify`` returns a :class:`~clinanon.document.SanitizedDocument` with the replacement log.
    """

    def __init__(self, config: Config | None = None, *, detectors: Sequence[Detector] | None = None) -> None:
        from clinanon.detect.resolve import Resolver
        from clinanon.transform.engine import Anonymizer

        self.config = config or Config()
        self.scheme: LabelScheme = get_scheme(self.config.label_scheme)
        if detectors is None:
            detectors = [get_detector_factory(name)(self.config) for name in self.config.detectors.use]
        self.detectors: list[Detector] = list(detectors)
        self.resolver = Resolver(min_score=self.config.detectors.min_score)
        self.anonymizer = Anonymizer(self.config.operators, scheme=self.scheme, lang=self.config.language)

    @classmethod
    def from_config(cls, path: str | Path | None = None, **overrides: Any) -> Pipeline:
        """Build from a TOML file (or the defaults), with top-level keys overridden by keyword arguments."""
        base = Config.load(path) if path is not None else Config()
        if overrides:
            data = base.model_dump(exclude={"base_dir"})
            data.update(overrides)
            base = Config.from_dict(data).model_copy(update={"base_dir": base.base_dir})
        return cls(base)

    @property
    def lang(self) -> str:
        return self.config.language

    # --- detection ------------------------------------------------------------------------------------------
    def candidates(self, doc: Document) -> list[Span]:
        """Every detector's raw candidates (overlapping, canonical or native labels)."""
        out: list[Span] = []
        for d in self.detectors:
            out.extend(d.detect(doc))
        return out

    def _category(self, label: str) -> str:
        try:
            return self.scheme.category(label)
        except KeyError:
            return label

    def _is_name(self, label: str) -> bool:
        return category_matches(self._category(label), "NAME")

    def _doc_lang(self, doc: Document) -> str:
        """A document's language: ``meta["lang"]`` when set, else the configured one."""
        lang = doc.meta.get("lang")
        return str(lang) if lang else self.config.language

    def candidates_many(self, docs: Sequence[Document]) -> list[list[Span]]:
        """``[self.candidates(d) for d in docs]``; detectors with a ``detect_many`` (the rules) run over the
        whole batch at once."""
        out: list[list[Span]] = [[] for _ in docs]
        for d in self.detectors:
            for spans, f in zip(out, detect_batch(d, docs), strict=True):
                spans.extend(f)
        return out

    def detect_spans(self, doc: Document) -> list[Span]:
        """Resolved, propagated predictions with labels in the configured scheme."""
        return self._finish(doc, self.candidates(doc))

    def detect_spans_many(self, docs: Sequence[Document]) -> list[list[Span]]:
        """``[self.detect_spans(d) for d in docs]`` (the same spans), each step run over the whole batch (see
        :meth:`pipe`)."""
        with keep_token_tables(len(docs)):
            return self._finish_many(docs, self.candidates_many(docs))

    def _finish(self, doc: Document, candidates: list[Span]) -> list[Span]:
        return self._finish_many([doc], [candidates])[0]

    def _finish_many(self, docs: Sequence[Document], candidates: Sequence[list[Span]]) -> list[list[Span]]:
        """Resolve, propagate names and map labels to the scheme, each step over all ``docs``."""
        resolved = [self.resolver.resolve(doc, c) for doc, c in zip(docs, candidates, strict=True)]
        if self.config.detectors.propagate_names:
            from clinanon.detect.propagate import propagate

            name_label = self._label_memo()[2]
            # the rules detector's tokens of doc.text are cached (clinanon.text.token_table): not tokenized again
            resolved = [propagate(doc, spans, labels=name_label, lang=self._doc_lang(doc))
                        for doc, spans in zip(docs, resolved, strict=True)]
        return [self._to_scheme_all(spans) for spans in resolved]

    def _label_memo(self) -> tuple[LabelScheme, dict[str, str], Callable[[str], bool]]:
        """What depends on the label only (its label in the scheme; name or not), looked up once per label."""
        memo = self.__dict__.get("_label_memo_")
        if memo is None or memo[0] is not self.scheme:
            is_name: dict[str, bool] = {}

            def name_label(label: str) -> bool:
                known = is_name.get(label)
                if known is None:
                    known = is_name[label] = self._is_name(label)
                return known

            memo = self.__dict__["_label_memo_"] = (self.scheme, {}, name_label)
        return memo

    def _to_scheme_all(self, spans: list[Span]) -> list[Span]:
        to_scheme = self._label_memo()[1]
        out = []
        for s in spans:
            target = to_scheme.get(s.label)
            if target is None:
                target = to_scheme[s.label] = self._to_scheme(s).label
            if target == s.label:
                out.append(s)
            elif type(s) is Span and target:  # what with_label gives, without dataclasses.replace (s is valid)
                out.append(Span.trusted(s.start, s.end, target, s.source, s.score))
            else:
                out.append(s.with_label(target))
        return out

    def _to_scheme(self, span: Span) -> Span:
        if span.label in self.scheme:
            return span
        native = self.scheme.native(span.label)
        return span if native is None else span.with_label(native)

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
        raised for the first document that fails, as one-by-one processing would.
        """
        if batch_size < 1 or batch_chars < 1:
            raise ConfigError(f"batch_size and batch_chars must be at least 1 (got {batch_size}, {batch_chars})")
        for batch in _batches(docs, batch_size, batch_chars):
            try:
                found = self.detect_spans_many(batch)
            except Exception:
                found = None  # find the failing document: one by one, as without batches
            if found is not None and deidentify:
                try:
                    outs = self.anonymizer.anonymize_many(batch, found)
                except Exception:
                    outs = None  # one by one below: the documents before the failing one come out first
                if outs is not None:
                    yield from outs
                    continue
            for i, doc in enumerate(batch):
                spans = found[i] if found is not None else self.detect_spans(doc)
                yield self.anonymizer.anonymize(doc, spans) if deidentify else doc.with_spans(spans)


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
