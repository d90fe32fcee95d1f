"""One note as the detectors and the post-detection steps see it: built once per note by the pipeline.

An :class:`Analysis` holds the document, its language (``meta["lang"]`` when set, else the pipeline's), what is
derived from its text once and shared by every detector and step (tokens, sentences), and the candidates found
so far by each detector (``candidates["rules"]``: the rules' raw spans, which the CRF reads as features).

Everything derived is computed on first use and kept on the object, so a note is tokenized once however many
detectors and steps read its tokens, with no process-wide cache. It reads like a :class:`~clinanon.document.Document`
(``id``, ``text``, ``meta``), so code that only needs the text takes either.

>>> from clinanon import Document
>>> a = Analysis.of(Document("n1", "Seen by Dr. Ruiz."), "es")
>>> a.lang, len(a.tokens)
('es', 6)
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from clinanon.document import Document, Span
from clinanon.lang.casing import caseless_regions
from clinanon.text import Sentence, TokenTable, check_language, split_sentences, token_table

__all__ = ["Analysis", "as_analysis"]


class Analysis:
    """A note, its language, its tokens and sentences (computed once), and each detector's candidates."""

    def __init__(self, doc: Document, lang: str) -> None:
        self.doc = doc
        #: the supported language code of the note (``"es"``, never ``"es-ES"``)
        self.lang = lang
        #: detector (or ensemble member) name -> its raw candidates, in the order the detectors ran
        self.candidates: dict[str, list[Span]] = {}

    @classmethod
    def of(cls, doc: Document, default_lang: str) -> Analysis:
        """The analysis of ``doc``: its language is ``doc.meta["lang"]`` when set, else ``default_lang``
        (:func:`~clinanon.text.check_language` normalizes both, and names an unsupported code, never text)."""
        lang = doc.meta.get("lang")
        return cls(doc, check_language(str(lang) if lang else default_lang))

    def __repr__(self) -> str:  # never the text
        return (f"Analysis(id={self.doc.id!r}, lang={self.lang!r}, chars={len(self.doc.text)}, "
                f"candidates={ {k: len(v) for k, v in self.candidates.items()} })")

    @property
    def id(self) -> str:
        return self.doc.id

    @property
    def text(self) -> str:
        return self.doc.text

    @property
    def meta(self) -> dict[str, Any]:
        return self.doc.meta

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


def as_analysis(target: Analysis | Document, default_lang: str) -> Analysis:
    """``target`` itself when it is an :class:`Analysis`, else the analysis of the document (a detector called
    directly on a :class:`~clinanon.document.Document`, outside a pipeline)."""
    return target if isinstance(target, Analysis) else Analysis.of(target, default_lang)
