"""Document-level propagation: a string found as a name once in a document is found everywhere in it.

:func:`propagate` takes the spans any detector (or a resolver) produced for one document, collects the token
sequences of those whose label is selected (names by default) — and, for a multi-word name, the sequences of
its later words (the surnames: "Navarro Cuéllar", "Navarro", "Cuéllar" from "Ignacio Navarro Cuéllar") — and
finds every other whole-token occurrence of them in the text in one pass over the tokens (a dict keyed by token
tuples). New spans get ``source="propagate"`` and never overlap an input span or each other.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from itertools import compress, count

from clinanon.analysis import Analysis
from clinanon.document import Document, Span
from clinanon.lang import check_language
from clinanon.lang.fold import FOLDED, STRIPPED
from clinanon.lang.phrases import as_table
from clinanon.steps.resolve import _SPAN_ORDER
from clinanon.text import Token, TokenTable, stop_words

__all__ = ["Propagate", "propagate"]

#: the longest run of a name's later words (in tokens) propagated on its own: the names of clinical text have
#: at most 8 tokens (MEDDOCAN, English synthetic data), and without a bound a "name" of n capitalised words (a
#: list of surnames, a corrupted line) would add n² keys of up to n tokens each
_MAX_PART_TOKENS = 12
_PARTICLES = frozenset({"de", "del", "la", "las", "los", "y", "i", "e", "van", "von", "der", "den", "ten", "ter",
                        "zu", "da", "das", "do", "dos", "di", "du", "le", "af", "av", "-", "'", "."})


#: words after a surname that make it a scale or sign named after someone ("Bishop score"): English
_EN_SCALE_WORDS = frozenset(("score", "scores", "scale", "criteria", "classification", "sign", "maneuver"))


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
    tokens: Sequence[Token] | TokenTable | None = None,
    lang: str | None = None,
    score_factor: float = 0.9,
) -> list[Span]:
    """``spans`` plus every further occurrence of the strings of the selected spans (sorted).

    ``labels``: label prefixes (``"NAME"`` covers ``NAME.PATIENT``; ``"NOMBRE"`` covers MEDDOCAN's native name
    labels) or a predicate on the label. ``min_len``: shortest string (in characters) that is propagated.
    ``case="fold"`` also finds ``GARCÍA`` for ``García`` (default ``"exact"``: case-sensitive);
    ``accents="fold"`` also finds ``Garcia``. ``surnames``: also propagate the later words of multi-word names
    (a single later word that is a stop word of ``lang``, such as "El" or "The", is not propagated alone).
    A new span takes the label of the span it came from (the most frequent one when a string had several;
    ties by label order) and ``score_factor`` × its highest score.
    Guarantees: the input spans are returned unchanged; new spans cover whole tokens, do not overlap any input
    span nor each other, and the output depends only on the set of input spans.
    """
    text = doc.text
    if tokens is None:
        check_language(lang or str(doc.meta.get("lang", "es")))
    table = as_table(text, tokens)
    t_starts, t_ends, words = table.starts, table.ends, table.words
    n = len(t_starts)
    select = _selector(labels)

    normfn: Callable[[str], str] | None
    if case == "fold":
        normfn = FOLDED.__getitem__ if accents == "fold" else str.casefold
    else:
        normfn = STRIPPED.__getitem__ if accents == "fold" else None
    normed = words if normfn is None else table.map_words(normfn)

    # later words that are function words of the language are not propagated alone
    stops = stop_words(lang or str(doc.meta.get("lang", "es"))) if surnames else frozenset()
    keys_labels: dict[tuple[str, ...], dict[str, int]] = {}  # key -> label -> count
    keys_score: dict[tuple[str, ...], float] = {}

    def add(key: tuple[str, ...], label: str, score: float) -> None:
        joined = "".join(key)
        if not key or len(joined) < min_len or not any(map(str.isalpha, joined)):
            return
        counts = keys_labels.setdefault(key, {})
        counts[label] = counts.get(label, 0) + 1
        keys_score[key] = max(keys_score.get(key, 0.0), score)

    # distinct input spans in order, keyed by their fields (hashing a tuple is cheaper than hashing a Span)
    out = {_SPAN_ORDER(s): s for s in spans}
    for s in [out[k] for k in sorted(out)]:
        if not select(s.label):
            continue
        # the tokens that start / end exactly at the span's ends
        i = bisect.bisect_left(t_starts, s.start)
        j = bisect.bisect_left(t_ends, s.end)
        if i >= n or t_starts[i] != s.start or j >= n or t_ends[j] != s.end or j < i:
            continue
        span_words = words[i:j + 1]
        key = normed[i:j + 1]
        add(key, s.label, s.score)
        if surnames:
            content = [k for k in range(len(span_words)) if span_words[k].casefold() not in _PARTICLES
                       and any(map(str.isalpha, span_words[k]))]
            if len(content) >= 2:
                first = content[0]
                later = [k for k in content if k > first]
                for x, a in enumerate(later):
                    for y in range(x, min(len(later), x + _MAX_PART_TOKENS)):
                        b = later[y]
                        if b - a >= _MAX_PART_TOKENS:
                            break
                        if b == a and span_words[a].casefold() in stops:
                            continue  # a function word alone ("El" of a name that ran into "Ofiplaza El Retiro")
                        add(tuple(key[a:b + 1]), s.label, s.score)
    if not keys_labels:
        return [out[k] for k in sorted(out)]

    lengths: dict[str, set[int]] = {}
    for key in keys_labels:
        lengths.setdefault(key[0], set()).add(len(key))
    lens_sorted = {k: sorted(v, reverse=True) for k, v in lengths.items()}

    english = (lang or str(doc.meta.get("lang", ""))) == "en"
    cover = [False] * n
    for a, b in sorted({(s.start, s.end) for s in out.values()}):
        k = bisect.bisect_right(t_ends, a)  # first token ending after a
        while k < n and t_starts[k] < b:
            cover[k] = True
            k += 1

    nxt = 0  # the scan resumes here after a hit (tokens of a hit are not searched again)
    for i in compress(count(), map(lens_sorted.__contains__, normed)):
        if i < nxt or cover[i]:
            continue
        for size in lens_sorted[normed[i]]:
            j = i + size
            if j > n or any(cover[i:j]):
                continue
            key = normed[i:j]
            if key not in keys_labels:
                continue
            if any("\n" in text[t_ends[k]:t_starts[k + 1]] for k in range(i, j - 1)):
                continue
            if english and j < n and words[j].casefold() in _EN_SCALE_WORDS:
                continue  # "Bishop score" in Mr. Bishop's note: the scale, not the patient
            counts = keys_labels[key]
            label = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
            score = round(min(1.0, keys_score[key] * score_factor), 4)
            new = Span(t_starts[i], t_ends[j - 1], label, "propagate", score)
            out.setdefault(_SPAN_ORDER(new), new)
            nxt = j
            break
    return [out[k] for k in sorted(out)]


class Propagate:
    """The ``propagate`` step: :func:`propagate` the spans whose label ``is_name`` over the note (its tokens and
    language from the analysis)."""

    name = "propagate"

    def __init__(self, is_name: Callable[[str], bool]) -> None:
        self.is_name = is_name

    def process(self, analysis: Analysis, spans: list[Span]) -> list[Span]:
        if not spans:
            return spans
        return propagate(analysis.doc, spans, labels=self.is_name, lang=analysis.lang, tokens=analysis.tokens)
