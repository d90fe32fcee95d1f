"""The fill-mask name-leakage probe for a language model built here: mask sentences from annotated notes, and the
audit's probe (:func:`clinanon.audit.probe.fill_mask_probe`, shared with ``clinanon audit probe``), which reads the
pieces of a byte-level BPE as text.

:func:`mask_sentences` builds the study's test sentences from notes with gold spans: each sentence that holds a
person's name becomes one test sentence with every name in it replaced by ``<mask>`` (the others masked too, so
that the model cannot copy one from the context), cut to a window around the first mask. Each sentence carries
its masked names (the *originals*) and whether they are names of the training notes (``seen``: every word is).

:func:`probe` runs the audit's fill-mask probe (which judges the text of each predicted piece, decoded by the
model's tokenizer: RoBERTa's byte-level vocabulary writes " García" as ``ĠGarcÃŃa``); :func:`summarize` adds what
the study reports per sentence: the original name of *that* sentence predicted, and a name of the training notes
predicted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clinanon.audit._text import fold
from clinanon.audit.probe import MASK, ProbeResult, fill_mask_probe
from clinanon.document import Document

__all__ = ["MaskSentence", "mask_sentences", "name_words", "probe", "summarize"]


@dataclass(frozen=True)
class MaskSentence:
    """A test sentence (``<mask>`` in place of each name), its masked names' folded words, and ``seen``."""

    text: str
    originals: frozenset[str]
    seen: bool
    doc_id: str

    def __repr__(self) -> str:  # the text is note content
        return f"MaskSentence(doc_id={self.doc_id!r}, masks={self.text.count(MASK)}, seen={self.seen})"


def _words(s: str) -> set[str]:
    out = set()
    for w in fold(s).replace(".", " ").split():
        w = "".join(c for c in w if c.isalnum())
        if len(w) >= 2 and any(c.isalpha() for c in w):
            out.add(w)
    return out


def _is_name(label: str, scheme: str) -> bool:
    from clinanon.taxonomy import get_scheme, parent

    try:
        return parent(get_scheme(scheme).category(label)) == "NAME"
    except KeyError:
        return False


def name_words(docs: Iterable[Document], scheme: str = "canonical", lang: str = "es") -> set[str]:
    """The folded words of every gold NAME span of ``docs`` (:func:`clinanon.audit.model.reference_names`),
    without the function words of ``lang`` (the "de", "la" of "María de la Cruz") and the common words that are in
    no name list: no one's name."""
    from clinanon.audit.model import reference_names
    from clinanon.text import stop_words

    words = reference_names(docs, scheme=scheme, common=frozenset(fold(w) for w in stop_words(lang)))
    return {w for w in words if not _not_a_name(w, lang)}


def _not_a_name(word: str, lang: str) -> bool:
    """A common word of ``lang`` that is in no name list ("años", "varón" of a span such as a relative's
    description): no one's name. A name that is also a common word ("Rosa", "Pilar") stays."""
    from clinanon.audit.lexicon import name_lists

    lists = name_lists((lang,))
    return lists.is_common(word) and not lists.is_name(word)


def mask_sentences(docs: Iterable[Document], *, scheme: str = "canonical", lang: str = "es",
                   seen_names: Iterable[str] = (), window: int = 200) -> list[MaskSentence]:
    """One test sentence per sentence holding a gold NAME span (see the module docstring); ``seen_names``: the
    folded name words of the training notes (a sentence is ``seen`` when every word of its masked names is one);
    ``window``: the characters kept on each side of the first mask."""
    from clinanon.text import split_sentences, stop_words

    seen = frozenset(fold(w) for w in seen_names)
    stop = {fold(w) for w in stop_words(lang)}
    out: list[MaskSentence] = []
    for d in docs:
        names = sorted((s for s in d.spans if _is_name(s.label, scheme)), key=lambda s: (s.start, -s.end))
        if not names:
            continue
        for sent in split_sentences(d.text, lang):
            inside = [s for s in names if s.start >= sent.start and s.end <= sent.end]
            if not inside:
                continue
            pieces, pos, originals = [], sent.start, set()
            for s in inside:
                if s.start < pos:  # overlapping gold spans: the first one masks both
                    continue
                pieces += [d.text[pos:s.start], MASK]
                originals |= {w for w in _words(d.text[s.start:s.end]) - stop if not _not_a_name(w, lang)}
                pos = s.end
            pieces.append(d.text[pos:sent.end])
            text = " ".join("".join(pieces).split())
            first = text.find(MASK)
            lo, hi = max(0, first - window), min(len(text), first + len(MASK) + window)
            if lo > 0:
                lo = text.find(" ", lo) + 1 or lo
            if hi < len(text):
                hi = max(text.rfind(" ", 0, hi), first + len(MASK))
            text = text[lo:hi].strip()
            out.append(MaskSentence(text, frozenset(originals), bool(originals) and originals <= seen, d.id))
    return out


def probe(model_dir: str | Path, sentences: Sequence[str], *, top_k: int = 20, langs: Sequence[str] = ("es",),
          originals: Iterable[str] = (), extra_names: Iterable[str] = (), batch_size: int = 16,
          progress: bool = False) -> ProbeResult:
    """:func:`~clinanon.audit.probe.fill_mask_probe` with Spanish name lists by default (it judges the text of
    each predicted piece, decoded by the model's tokenizer: a byte-level BPE's ``ĠGarcÃŃa`` is "García")."""
    return fill_mask_probe(model_dir, sentences, top_k=top_k, langs=tuple(langs), originals=list(originals),
                           extra_names=list(extra_names), batch_size=batch_size, progress=progress)


def summarize(result: ProbeResult, sentences: Sequence[MaskSentence], training_names: Iterable[str] = ()
              ) -> dict[str, Any]:
    """The probe's figures (:meth:`ProbeResult.to_dict`) plus, per sentence: its own original name predicted
    (``own_original_hits``, ``own_original_top1``), a name word of the training notes predicted
    (``training_name_predictions``, ``sentences_with_training_name``)."""
    train = frozenset(training_names)
    d = result.to_dict()
    own = own_top1 = train_hits = 0
    with_train: set[int] = set()
    for p in result.predictions:
        f = fold(p.token)
        if f in sentences[p.sentence].originals:
            own += 1
            own_top1 += p.rank == 1
        if p.name_like and f in train:
            train_hits += 1
            with_train.add(p.sentence)
    d.update({"own_original_hits": own, "own_original_top1": own_top1,
              "training_name_predictions": train_hits, "sentences_with_training_name": len(with_train)})
    return d
