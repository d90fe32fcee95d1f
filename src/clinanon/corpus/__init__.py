"""Corpus techniques: seeded, reproducible rewrites of a whole corpus, with gold spans and labels moved along.

>>> import random
>>> from clinanon import Document, Span
>>> from clinanon.corpus import make_technique
>>> mask = make_technique({"technique": "number_mask"})
>>> [d.text for d in mask.transform([Document("a", "Edad: 62 años")], random.Random(0))]
['Edad: XX años']

The techniques (:data:`TECHNIQUES`): ``original``, ``number_mask``, ``sentence_shuffle``, ``word_swap``,
``synonyms``, ``concepts``, ``aggregate``, ``deidentify`` — see :mod:`clinanon.corpus.techniques`; the protocol
and the span-moving helper in :mod:`clinanon.corpus.base`; synonym lexicons in :mod:`clinanon.corpus.thesaurus`.
``clinanon utility`` (:mod:`clinanon.utility`) measures what each costs a downstream model.
"""

from clinanon.corpus.base import Technique, TechniqueBase, TransformStats, assemble, doc_rng
from clinanon.corpus.techniques import (
    TECHNIQUES,
    Aggregation,
    ConceptReplacement,
    Deidentification,
    NumberMasking,
    Original,
    SentenceShuffle,
    SynonymReplacement,
    WordSwap,
    make_technique,
    map_spans,
    read_concepts,
)

__all__ = [
    "TECHNIQUES",
    "Aggregation",
    "ConceptReplacement",
    "Deidentification",
    "NumberMasking",
    "Original",
    "SentenceShuffle",
    "SynonymReplacement",
    "Technique",
    "TechniqueBase",
    "TransformStats",
    "WordSwap",
    "assemble",
    "doc_rng",
    "make_technique",
    "map_spans",
    "read_concepts",
]
