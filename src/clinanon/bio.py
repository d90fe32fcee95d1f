"""BIO / BIOES tags from spans and back, a repair step for ill-formed tag sequences, and alignment reports.

Spans are the source of truth (character offsets on the original text); tags are a view over the tokens of
:func:`clinanon.text.tokenize`.

* :func:`encode_bio` never drops a span silently: a span whose start or end falls inside a token (or between
  tokens) is *misaligned* - it is encoded on the tokens it overlaps and reported in ``misaligned``; of two
  spans that share a token the longer one is encoded and the other is reported in ``overlapping``; a span that
  overlaps no token at all (only whitespace) cannot be encoded and is reported in ``misaligned``.
* :func:`decode_bio` turns tags back into spans; with ``repair=True`` (default) it first applies
  :func:`repair_bio`, the conlleval reading of ill-formed sequences (an ``I-X`` that does not continue an
  ``X`` chunk starts one - BERT taggers produce these on MEDDOCAN); with ``repair=False`` it keeps only
  well-formed chunks and ignores stray ``I-``/``E-`` tags.
* :func:`alignment_report` counts, per label, the gold spans that do not fall on token boundaries; it reports
  offsets and character-class shapes only, never text.

Tags are ``"O"`` or ``"<P>-<LABEL>"`` with ``P`` in ``B I E S``; ``U``/``L`` (BILOU) are read as ``S``/``E``.
Labels may contain ``-`` (only the first one separates the prefix).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from clinanon.document import Document, Span
from clinanon.errors import ConfigError, SpanError
from clinanon.text import Token, check_language, tokenize

__all__ = [
    "SCHEMES",
    "AlignmentReport",
    "BioEncoding",
    "MisalignedSpan",
    "alignment_report",
    "decode_bio",
    "encode_bio",
    "is_well_formed",
    "repair_bio",
    "span_token_range",
]

SCHEMES: tuple[str, ...] = ("BIO", "BIOES")
_PREFIX_ALIASES = {"B": "B", "I": "I", "E": "E", "S": "S", "U": "S", "L": "E"}


def _scheme(scheme: str) -> str:
    s = scheme.upper() if isinstance(scheme, str) else scheme
    if s == "IOB2":
        s = "BIO"
    if s in ("BILOU", "IOBES"):
        s = "BIOES"
    if s not in SCHEMES:
        raise ConfigError(f"unknown tagging scheme {scheme!r}; expected one of: {', '.join(SCHEMES)}")
    return s


@dataclass(frozen=True, slots=True)
class BioEncoding:
    """Tags for a token sequence, and the spans that could not be encoded exactly.

    ``tags[i]`` is the tag of token ``i``. ``misaligned``: spans whose start or end is not a token boundary
    (encoded on the tokens they overlap, unless they overlap none). ``overlapping``: spans not encoded because a
    longer span (or an earlier one of equal length) holds one of their tokens. Both lists are sorted.
    """

    tags: list[str]
    misaligned: list[Span] = field(default_factory=list)
    overlapping: list[Span] = field(default_factory=list)
    scheme: str = "BIO"

    @property
    def exact(self) -> bool:
        """True when every span was encoded on exactly its own tokens."""
        return not self.misaligned and not self.overlapping


def _bounds(tokens: Sequence[Token]) -> tuple[list[int], list[int]]:
    starts = [t.start for t in tokens]
    ends = [t.end for t in tokens]
    for k in range(1, len(tokens)):
        if starts[k] < ends[k - 1]:
            raise SpanError(f"tokens {k - 1} and {k} are out of order or overlap")
    return starts, ends


def span_token_range(starts: Sequence[int], ends: Sequence[int], start: int, end: int) -> tuple[int, int, bool]:
    """``(i, j, aligned)``: the tokens ``[i, j)`` overlapping ``[start, end)``, and whether the span starts at
    ``starts[i]`` and ends at ``ends[j - 1]`` exactly. ``i == j`` (and ``aligned`` False) when none overlaps."""
    i = bisect_right(ends, start)
    j = bisect_left(starts, end)
    if j <= i:
        return i, i, False
    return i, j, starts[i] == start and ends[j - 1] == end


def _write(tags: list[str], i: int, j: int, label: str, scheme: str) -> None:
    if scheme == "BIOES" and j - i == 1:
        tags[i] = f"S-{label}"
        return
    tags[i] = f"B-{label}"
    for k in range(i + 1, j):
        tags[k] = f"I-{label}"
    if scheme == "BIOES":
        tags[j - 1] = f"E-{label}"


def encode_bio(tokens: Sequence[Token], spans: Sequence[Span], scheme: str = "BIO") -> BioEncoding:
    """Tags for ``tokens`` from ``spans`` (``scheme`` is ``"BIO"`` or ``"BIOES"``).

    Aligned, token-disjoint spans are encoded exactly, so ``decode_bio(tokens, enc.tags)`` returns them (with the
    decoder's ``source``). Conflicts: the longer span (in characters) wins; ties go to the earlier start, then
    the earlier end, then the label. Raises ``SpanError`` if the tokens are not ordered and disjoint.
    """
    scheme = _scheme(scheme)
    starts, ends = _bounds(tokens)
    tags = ["O"] * len(tokens)
    taken = [False] * len(tokens)
    misaligned: list[Span] = []
    overlapping: list[Span] = []
    for s in sorted(spans, key=lambda s: (s.start - s.end, s.start, s.end, s.label)):
        i, j, aligned = span_token_range(starts, ends, s.start, s.end)
        if not aligned:
            misaligned.append(s)
        if i == j:
            continue
        if any(taken[i:j]):
            overlapping.append(s)
            continue
        taken[i:j] = [True] * (j - i)
        _write(tags, i, j, s.label, scheme)
    return BioEncoding(tags, sorted(misaligned), sorted(overlapping), scheme)


def _parse(tag: str, k: int) -> tuple[str, str]:
    if tag == "O":
        return "O", ""
    if isinstance(tag, str) and len(tag) > 2 and tag[1] == "-" and tag[0] in _PREFIX_ALIASES:
        return _PREFIX_ALIASES[tag[0]], tag[2:]
    shown = repr(tag)[:40]
    raise SpanError(f"tag {k} is {shown}; expected 'O' or '<B|I|E|S>-LABEL'")


def _chunks(tags: Sequence[str], lenient: bool) -> list[tuple[int, int, str]]:
    """Chunks ``(i, j, label)``. Lenient: an I-/E- that does not continue a chunk of its label starts one."""
    out: list[tuple[int, int, str]] = []
    cur_start, cur_label = -1, ""
    for k, tag in enumerate(tags):
        p, label = _parse(tag, k)
        if p in ("I", "E") and cur_start >= 0 and label == cur_label:
            if p == "E":
                out.append((cur_start, k + 1, cur_label))
                cur_start = -1
            continue
        if cur_start >= 0:
            out.append((cur_start, k, cur_label))
            cur_start = -1
        if p == "O" or (p in ("I", "E") and not lenient):
            continue
        if p in ("S", "E"):
            out.append((k, k + 1, label))
        else:  # B, or a lenient I
            cur_start, cur_label = k, label
    if cur_start >= 0:
        out.append((cur_start, len(tags), cur_label))
    return out


def _uses_bioes(tags: Sequence[str]) -> bool:
    return any(t[:2] in ("E-", "S-", "U-", "L-") for t in tags)


def repair_bio(tags: Sequence[str]) -> list[str]:
    """A well-formed version of ``tags``: an ``I-X`` (or ``E-X``) that does not continue an ``X`` chunk starts a
    new chunk (``O I-X`` -> ``O B-X``; ``B-X I-Y`` -> ``B-X B-Y``).

    The output is BIOES when the input has an ``E-``/``S-`` (or BILOU ``L-``/``U-``) tag, BIO otherwise; a
    well-formed sequence comes back unchanged, and repairing twice equals repairing once.
    """
    tags = list(tags)
    scheme = "BIOES" if _uses_bioes(tags) else "BIO"
    out = ["O"] * len(tags)
    for i, j, label in _chunks(tags, lenient=True):
        _write(out, i, j, label, scheme)
    return out


def is_well_formed(tags: Sequence[str]) -> bool:
    """True when :func:`repair_bio` would leave ``tags`` unchanged (every chunk opened and, in BIOES, closed)."""
    return repair_bio(tags) == list(tags)


def decode_bio(tokens: Sequence[Token], tags: Sequence[str], *, repair: bool = True, source: str = "bio",
               text_len: int | None = None) -> list[Span]:
    """Spans (sorted, character offsets from the tokens) for a tag sequence in BIO or BIOES.

    ``repair=True`` reads ill-formed chunks as :func:`repair_bio` does; ``repair=False`` keeps only chunks
    opened by ``B-``/``S-``. ``text_len``, when given, is checked against the tokens. Raises ``SpanError`` when
    the lengths differ, a tag is malformed, or a token lies past ``text_len``.
    """
    if len(tags) != len(tokens):
        raise SpanError(f"{len(tags)} tags for {len(tokens)} tokens")
    if text_len is not None and tokens and tokens[-1].end > text_len:
        raise SpanError(f"token {len(tokens) - 1} ends at {tokens[-1].end}, past the text (length {text_len})")
    return [Span(tokens[i].start, tokens[j - 1].end, label, source)
            for i, j, label in _chunks(tags, lenient=repair)]


# --- alignment --------------------------------------------------------------------------------------------------

def _char_class(text: str, k: int) -> str:
    if k < 0:
        return "^"
    if k >= len(text):
        return "$"
    c = text[k]
    if c.isspace():
        return "s"
    if c.isdigit():
        return "d"
    if c.isalpha():
        return "X" if c.isupper() else "x"
    return "p"


@dataclass(frozen=True, slots=True)
class MisalignedSpan:
    """A gold span whose boundaries do not fall on token boundaries (offsets and shapes only, no text).

    ``shape`` names each bad boundary with the classes of the characters on its two sides
    (``X`` upper, ``x`` lower, ``d`` digit, ``p`` punctuation, ``s`` space, ``^``/``$`` text edges), e.g.
    ``"end:x|x"`` for an end inside a lower-case word; ``"none"`` when the span overlaps no token.
    """

    doc_id: str
    start: int
    end: int
    label: str
    shape: str

    def to_dict(self) -> dict[str, Any]:
        return {"doc_id": self.doc_id, "start": self.start, "end": self.end, "label": self.label,
                "shape": self.shape}


@dataclass(frozen=True)
class AlignmentReport:
    """How many gold spans fall on token boundaries, overall and per label."""

    lang: str
    documents: int
    total: int
    misaligned: int
    per_label: dict[str, dict[str, int]]
    cases: list[MisalignedSpan]

    @property
    def ratio(self) -> float:
        """Misaligned spans / all spans (0.0 when there is no span)."""
        return self.misaligned / self.total if self.total else 0.0

    def by_shape(self) -> dict[str, int]:
        """Misaligned spans per ``"LABEL shape"``, most frequent first."""
        return dict(Counter(f"{c.label} {c.shape}" for c in self.cases).most_common())

    def to_dict(self) -> dict[str, Any]:
        return {"lang": self.lang, "documents": self.documents, "total": self.total,
                "misaligned": self.misaligned, "ratio": self.ratio, "per_label": self.per_label,
                "by_shape": self.by_shape(), "cases": [c.to_dict() for c in self.cases]}


def alignment_report(docs: Iterable[Document], lang: str = "es", *,
                     tokenizer: Callable[[str], Sequence[Token]] | None = None) -> AlignmentReport:
    """Count the spans of ``docs`` whose start or end is not a token boundary.

    ``tokenizer`` defaults to :func:`clinanon.text.tokenize` for ``lang``; pass another (text -> ordered tokens)
    to compare tokenizers. Overlapping gold spans are each checked on their own.
    """
    lang = check_language(lang)
    tok = tokenizer if tokenizer is not None else (lambda text: tokenize(text, lang))
    n_docs = 0
    total: Counter[str] = Counter()
    bad: Counter[str] = Counter()
    cases: list[MisalignedSpan] = []
    for doc in docs:
        n_docs += 1
        if not doc.spans:
            continue
        tokens = tok(doc.text)
        starts = [t.start for t in tokens]
        ends = [t.end for t in tokens]
        start_set, end_set = set(starts), set(ends)
        for s in doc.spans:
            total[s.label] += 1
            ok_start, ok_end = s.start in start_set, s.end in end_set
            if ok_start and ok_end:
                continue
            bad[s.label] += 1
            i, j, _ = span_token_range(starts, ends, s.start, s.end)
            if i == j:
                shape = "none"
            else:
                parts = []
                if not ok_start:
                    parts.append(f"start:{_char_class(doc.text, s.start - 1)}|{_char_class(doc.text, s.start)}")
                if not ok_end:
                    parts.append(f"end:{_char_class(doc.text, s.end - 1)}|{_char_class(doc.text, s.end)}")
                shape = ",".join(parts)
            cases.append(MisalignedSpan(doc.id, s.start, s.end, s.label, shape))
    per_label = {lab: {"total": total[lab], "misaligned": bad[lab]} for lab in sorted(total)}
    return AlignmentReport(lang, n_docs, sum(total.values()), sum(bad.values()), per_label, cases)
