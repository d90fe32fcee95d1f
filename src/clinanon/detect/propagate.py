"""Document-level propagation: a string found as a name once in a document is found everywhere in it.

:func:`propagate` takes the spans any detector (or a resolver) produced for one document, collects the token
sequences of those whose label is selected (names by default) — and, for a multi-word name, the sequences of
its later words (the surnames: "Navarro Cuéllar", "Navarro", "Cuéllar" from "Ignacio Navarro Cuéllar") — and
finds every other whole-token occurrence of them in the text in one pass over the tokens (a dict keyed by token
tuples). New spans get ``source="propagate"`` and never overlap an input span or each other.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Sequence

from clinanon.document import Document, Span
from clinanon.text import Token, tokenize

__all__ = ["propagate"]

_PARTICLES = frozenset({"de", "del", "la", "las", "los", "y", "i", "e", "van", "von", "der", "den", "ten", "ter",
                        "zu", "da", "das", "do", "dos", "di", "du", "le", "af", "av", "-", "'", "."})


def _selector(labels: Sequence[str] | Callable[[str], bool]) -> Callable[[str], bool]:
    if callable(labels):
        return labels
    prefixes = (labels,) if isinstance(labels, str) else tuple(labels)
    return lambda label: label.startswith(prefixes)


def propagate(
    doc: Document,
    spans: Sequence[Span],
    labels: Sequence[str] | Callable[[str], bool] = ("NAME",),
    min_len: int = 2,
    *,
    case: str = "exact",
    accents: str = "exact",
    surnames: bool = True,
    tokens: Sequence[Token] | None = None,
    lang: str | None = None,
    score_factor: float = 0.9,
) -> list[Span]:
    """``spans`` plus every further occurrence of the strings of the selected spans (sorted).

    ``labels``: label prefixes (``"NAME"`` covers ``NAME.PATIENT``; ``"NOMBRE"`` covers MEDDOCAN's native name
    labels) or a predicate on the label. ``min_len``: shortest string (in characters) that is propagated.
    ``case="fold"`` also finds ``GARCÍA`` for ``García`` (default ``"exact"``: case-sensitive);
    ``accents="fold"`` also finds ``Garcia``. ``surnames``: also propagate the later words of multi-word names.
    A new span takes the label of the span it came from (the most frequent one when a string had several;
    ties by label order) and ``score_factor`` × its highest score.
    Guarantees: the input spans are returned unchanged; new spans cover whole tokens, do not overlap any input
    span nor each other, and the output depends only on the set of input spans.
    """
    from clinanon.detect.gazetteer import fold, strip_accents

    text = doc.text
    if tokens is None:
        tokens = tokenize(text, lang or str(doc.meta.get("lang", "es")))
    select = _selector(labels)

    def norm(w: str) -> str:
        if case == "fold":
            return fold(w, accents == "fold")
        return strip_accents(w) if accents == "fold" else w

    starts = {t.start: i for i, t in enumerate(tokens)}
    ends = {t.end: i for i, t in enumerate(tokens)}
    keys_labels: dict[tuple[str, ...], Counter[str]] = {}
    keys_score: dict[tuple[str, ...], float] = {}

    def add(key: tuple[str, ...], label: str, score: float) -> None:
        if not key or len("".join(key)) < min_len:
            return
        if not any(c.isalpha() for c in "".join(key)):
            return
        keys_labels.setdefault(key, Counter())[label] += 1
        keys_score[key] = max(keys_score.get(key, 0.0), score)

    for s in sorted(set(spans)):
        if not select(s.label):
            continue
        i, j = starts.get(s.start), ends.get(s.end)
        if i is None or j is None or j < i:
            continue
        words = [text[tokens[k].start:tokens[k].end] for k in range(i, j + 1)]
        key = tuple(norm(w) for w in words)
        add(key, s.label, s.score)
        if surnames:
            content = [k for k in range(len(words)) if words[k].casefold() not in _PARTICLES
                       and any(c.isalpha() for c in words[k])]
            if len(content) >= 2:
                first = content[0]
                later = [k for k in content if k > first]
                for a in later:
                    for b in later:
                        if b >= a:
                            add(tuple(key[a:b + 1]), s.label, s.score)
    if not keys_labels:
        return sorted(set(spans))

    lengths: dict[str, set[int]] = {}
    for key in keys_labels:
        lengths.setdefault(key[0], set()).add(len(key))
    lens_sorted = {k: sorted(v, reverse=True) for k, v in lengths.items()}

    token_ends = [t.end for t in tokens]
    cover = [False] * len(tokens)
    for a, b in sorted({(s.start, s.end) for s in spans}):
        k = bisect.bisect_right(token_ends, a)  # first token ending after a
        while k < len(tokens) and tokens[k].start < b:
            cover[k] = True
            k += 1

    normed = [norm(text[t.start:t.end]) for t in tokens]
    out = set(spans)
    i = 0
    n = len(tokens)
    while i < n:
        lens = lens_sorted.get(normed[i])
        hit = 0
        if lens and not cover[i]:
            for size in lens:
                j = i + size
                if j > n or any(cover[i:j]):
                    continue
                key = tuple(normed[i:j])
                if key not in keys_labels:
                    continue
                if any("\n" in text[tokens[k].end:tokens[k + 1].start] for k in range(i, j - 1)):
                    continue
                counts = keys_labels[key]
                label = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
                score = round(min(1.0, keys_score[key] * score_factor), 4)
                out.add(Span(tokens[i].start, tokens[j - 1].end, label, "propagate", score))
                hit = size
                break
        i += hit or 1
    return sorted(out)
