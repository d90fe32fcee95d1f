"""One note as the detectors and the post-detection steps see it: built once per note by the pipeline.

An :class:`Analysis` holds the document, its language, what is derived from its text once and shared by every
detector and step (tokens, sentences), and the candidates found so far by each detector (``candidates["rules"]``:
the rules' raw spans, which the CRF reads as features).

**Its language** (:meth:`Analysis.of`): ``meta["lang"]`` when set, else the language the pipeline was given, else
(``"auto"``, the default) the language identified from the note's text (:func:`clinanon.lang.identify.
identify_language`). A note whose language is not supported, or cannot be told, is refused: :meth:`Analysis.of`
raises :class:`~clinanon.lang.identify.LanguageRefused` (an :class:`~clinanon.errors.InputError` naming the note's
id and the reason, never its text), which a batch run writes to its errors report.

**Its text** is a view for detection (:mod:`clinanon.lang.normalize`): without invisible characters (a zero-width
space inside a name, soft hyphens, bidi controls ...) and with look-alike characters folded (no-break spaces,
Cyrillic and Greek homoglyphs inside Latin words, fullwidth letters). Detectors and steps read ``analysis.text``,
``analysis.doc`` (the view as a document: same id and metadata, its spans on the view), ``tokens`` and
``sentences``, all in the view's offsets; :meth:`Analysis.to_source` maps the spans they found back to the
original text, which is what the pipeline returns and what the operators replace (so the invisible character inside
a name is replaced with it). ``analysis.source`` is the original document. A note with none of these characters
is its own view (``analysis.doc is analysis.source``) and nothing is mapped.

Everything derived is computed on first use and kept on the object, so a note is tokenized once however many
detectors and steps read its tokens, with no process-wide cache. It reads like a :class:`~clinanon.document.Document`
(``id``, ``text``, ``meta``), so code that only needs the text takes either.

>>> from clinanon import Document
>>> a = Analysis.of(Document("n1", "Seen by Dr. Ruiz."), "es")
>>> a.lang, len(a.tokens)
('es', 6)
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from typing import Any

from clinanon.document import Document, Span
from clinanon.lang.casing import caseless_regions
from clinanon.lang.identify import LanguageGuess, identify_language
from clinanon.lang.normalize import DetectionView, detection_view
from clinanon.text import Sentence, TokenTable, check_language, split_sentences, token_table

__all__ = ["AUTO", "Analysis", "as_analysis"]

#: the language setting that means "each note's own" (``meta.lang``, else identified from its text)
AUTO = "auto"


class Analysis:
    """A note, its language, its view for detection, its tokens and sentences (computed once), and each
    detector's candidates (see the module docstring)."""

    def __init__(self, doc: Document, lang: str, *, view: DetectionView | None = None,
                 guess: LanguageGuess | None = None) -> None:
        #: the original document (offsets of the pipeline's output)
        self.source = doc
        #: the note's text as the detectors read it, and the map back (:mod:`clinanon.lang.normalize`)
        self.view: DetectionView = view if view is not None and view.original is doc.text else DetectionView(
            doc.text, doc.text)
        #: the document the detectors and steps read: ``source`` itself, or the view with the same id and metadata
        self.doc: Document = doc if self.view.identity else _view_document(doc, self.view)
        #: the supported language code of the note (``"es"``, never ``"es-ES"``)
        self.lang = lang
        #: how the language was identified from the text (``None``: it was given)
        self.guess = guess
        #: detector (or ensemble member) name -> its raw candidates (offsets on the view), in the order they ran
        self.candidates: dict[str, list[Span]] = {}

    @classmethod
    def of(cls, doc: Document, default_lang: str | None = AUTO, *, normalize: bool = True) -> Analysis:
        """The analysis of ``doc``. Its language: ``doc.meta["lang"]`` when set, else ``default_lang``, else (``None``
        or ``"auto"``) identified from the text (:func:`~clinanon.lang.identify.identify_language`);
        :func:`~clinanon.text.check_language` normalizes a given code and names an unsupported one, never text.

        Raises :class:`~clinanon.lang.identify.LanguageRefused` (with the note's id) when the identified language is
        not supported or cannot be told. ``normalize``: read the note through its view for detection (the
        pipeline); ``False`` reads the text as it is (a detector called directly on a document: its spans must be
        on the document's text, and nothing maps them back)."""
        view = detection_view(doc.text) if normalize else None
        lang = doc.meta.get("lang")
        if lang:
            return cls(doc, check_language(str(lang)), view=view)
        if default_lang and default_lang != AUTO:
            return cls(doc, check_language(default_lang), view=view)
        guess = identify_language(view.text if view is not None else doc.text)
        if guess.lang is None:
            raise guess.refusal(doc.id)
        return cls(doc, guess.lang, view=view, guess=guess)

    def __repr__(self) -> str:  # never the text
        return (f"Analysis(id={self.doc.id!r}, lang={self.lang!r}, chars={len(self.source.text)}, "
                f"normalized={not self.view.identity}, "
                f"candidates={ {k: len(v) for k, v in self.candidates.items()} })")

    @property
    def id(self) -> str:
        return self.doc.id

    @property
    def text(self) -> str:
        """The text the detectors read (the view; the original text when nothing in it needed normalizing)."""
        return self.doc.text

    @property
    def meta(self) -> dict[str, Any]:
        return self.doc.meta

    @property
    def identified(self) -> bool:
        """Whether the note's language was identified from its text (not given)."""
        return self.guess is not None

    def to_source(self, spans: Iterable[Span]) -> list[Span]:
        """``spans`` (on the view) as spans of the original text: each covers the same characters and the invisible
        ones between them (:meth:`DetectionView.to_original <clinanon.lang.normalize.DetectionView.to_original>`).
        The spans themselves when the view is the text."""
        if self.view.identity:
            return spans if isinstance(spans, list) else list(spans)
        to_original = self.view.to_original
        out = []
        for s in spans:
            start, end = to_original(s.start, s.end)
            out.append(Span.trusted(start, end, s.label, s.source, s.score))
        return out

    @cached_property
    def tokens(self) -> TokenTable:
        """The note's tokens (:func:`clinanon.text.token_table`), computed once."""
        return token_table(self.doc.text)

    @cached_property
    def caseless_regions(self) -> list[tuple[int, int]]:
        """The parts of the note typed in capitals (:func:`clinanon.lang.casing.caseless_regions`), computed once."""
        return caseless_regions(self.doc.text)

    @cached_property
    def sentences(self) -> list[Sentence]:
        """The note's sentences in its language (:func:`clinanon.text.split_sentences`), computed once."""
        return split_sentences(self.doc.text, self.lang)


def _view_document(doc: Document, view: DetectionView) -> Document:
    """``doc`` with the view's text, its spans moved onto the view (a span of invisible characters only is dropped)."""
    spans = []
    for s in doc.spans:
        start, end = view.to_view(s.start, s.end)
        if start < end:
            spans.append(Span.trusted(start, end, s.label, s.source, s.score))
    return Document(doc.id, view.text, tuple(spans), doc.meta)


def as_analysis(target: Analysis | Document, default_lang: str) -> Analysis:
    """``target`` itself when it is an :class:`Analysis`, else the analysis of the document as it is (a detector
    called directly on a :class:`~clinanon.document.Document`, outside a pipeline: its spans are on the document's
    text, which is read without a view for detection)."""
    return target if isinstance(target, Analysis) else Analysis.of(target, default_lang, normalize=False)
