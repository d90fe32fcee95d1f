"""The spaCy NER scorer ``clinanon.ner_scorer.v1``: spaCy's token-level NER scores plus ours on character offsets.

Ours compare exact ``(start, end, label)`` (MEDDOCAN subtask 1) and ``(start, end)`` (subtask 2) against the
original gold spans that the training DocBins keep in ``Doc.user_data[GOLD_KEY]``; they are the ones that pick a
checkpoint (see :data:`clinanon.detect.spacy_ner.config.SCORE_WEIGHTS`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import spacy

__all__ = ["GOLD_KEY", "SCORER_NAME", "make_clinanon_ner_scorer"]

#: ``Doc.user_data`` key of the original gold spans ``[[start, end, label], ...]`` in the training DocBins.
GOLD_KEY = "clinanon_gold"

SCORER_NAME = "clinanon.ner_scorer.v1"


def _prf(tp: int, n_pred: int, n_gold: int) -> tuple[float, float, float]:
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def _char_scores(examples: Iterable[Any]) -> dict[str, float]:
    """Micro P/R/F1 of exact ``(start, end, label)`` (subtask 1) and ``(start, end)`` (subtask 2) on character
    offsets. Gold = the original spans kept in ``reference.user_data[GOLD_KEY]`` (else the reference ents)."""
    tp1 = tp2 = n_pred = n_gold = 0
    for eg in examples:
        raw = eg.reference.user_data.get(GOLD_KEY)
        if raw is not None:
            gold = {(int(a), int(b), str(lab)) for a, b, lab in raw}
        else:
            gold = {(e.start_char, e.end_char, e.label_) for e in eg.reference.ents}
        pred = {(e.start_char, e.end_char, e.label_) for e in eg.predicted.ents}
        tp1 += len(gold & pred)
        tp2 += len({(a, b) for a, b, _ in gold} & {(a, b) for a, b, _ in pred})
        n_pred += len(pred)
        n_gold += len(gold)
    p1, r1, f1 = _prf(tp1, n_pred, n_gold)
    p2, r2, f2 = _prf(tp2, n_pred, n_gold)
    return {"clinanon_ents_p": p1, "clinanon_ents_r": r1, "clinanon_ents_f": f1,
            "clinanon_spans_p": p2, "clinanon_spans_r": r2, "clinanon_spans_f": f2}


@spacy.registry.scorers(SCORER_NAME)
def make_clinanon_ner_scorer() -> Callable[..., dict[str, Any]]:
    """spaCy registry entry ``clinanon.ner_scorer.v1``: spaCy's NER scores (``ents_p/r/f``, ``ents_per_type``,
    on spaCy tokens) plus ours on character offsets (``clinanon_ents_p/r/f`` = exact span + label,
    ``clinanon_spans_p/r/f`` = exact span)."""
    from spacy.scorer import get_ner_prf

    def score(examples: Iterable[Any], **kwargs: Any) -> dict[str, Any]:
        examples = list(examples)
        return {**get_ner_prf(examples, **kwargs), **_char_scores(examples)}

    return score
