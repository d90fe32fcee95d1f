"""Compare predicted spans with gold spans: every measure the de-identification literature reports.

:func:`evaluate` pairs gold and predicted documents by id and computes, micro-averaged over the corpus:

* ``char_binary`` — non-whitespace characters, PHI or not (tokenizer-independent);
* ``token_binary`` — tokens, PHI or not: a token is PHI when any of its characters is inside a span (the
  "binary HIPAA token" measure of the i2b2 evaluations; "detection" in the Spanish clinical BERT study), on the
  tokens of :func:`clinanon.text.tokenize`, where a punctuation mark is a token of its own;
* ``token_binary_alnum`` — the same on the tokens the official i2b2 2014 evaluation script counts: runs of
  letters and digits (Unicode letters here; the script's ``[a-zA-Z0-9]+`` for ASCII text), so punctuation is never
  a token. A gold standard that annotates "K" and "ABRAMS" apart while a prediction covers "K. ABRAMS" loses
  no precision on the full stop here; it does in ``token_binary``;
* ``token_relaxed`` — token label = label of the span covering it, B/I ignored ("relaxed classification");
* ``token_strict`` — BIO tag (B-/I- + label) per token ("strict classification");
* ``entity_exact`` — exact ``(start, end, label)`` (MEDDOCAN subtask 1);
* ``entity_span`` — exact ``(start, end)``, label ignored (MEDDOCAN subtask 2, strict);
* ``entity_overlap`` — a gold span is found (recall) when a prediction with the same label overlaps it; a
  prediction is correct (precision) when it overlaps a gold span with the same label (i2b2 "relaxed"). So
  ``tp`` (found gold spans) and ``tp_pred`` (correct predictions) are counted separately;
* ``entity_overlap_unlabeled`` — the same, labels ignored;

per label for the labelled measures (micro and macro averages), a confusion matrix over labels, and the leak
(gold PHI characters no prediction covers). Score conventions are in :mod:`clinanon.evaluate.results`.

Labels in two schemes. When predicted spans overlap gold spans but no predicted label is a gold label, and no
registered label scheme holds both label sets (a pipeline that writes canonical labels scored against MEDDOCAN
gold), every labelled score would be 0.0 and mean nothing:
:func:`evaluate` raises :class:`EvaluationConfigError` naming the scheme the gold labels look like and the fix
(predict in that scheme, or compare canonical categories); ``check_labels=False`` scores anyway.

Tokens come from :func:`clinanon.text.tokenize` (once per document). ``token_binary``: a token is PHI when a
span of that side shares a character with it (a span starting or ending inside a token marks the whole token).
``token_relaxed`` / ``token_strict`` read the BIO view of :func:`clinanon.bio.encode_bio`, the one NER training
sees: a misaligned span is tagged on the tokens it overlaps; of two spans sharing a token the longer one is
tagged and the other dropped (so with overlapping spans on one side, a token can be PHI for ``token_binary``
and ``O`` for the labelled token measures). Entity matching uses multisets: two identical gold spans need two
identical predictions.

Counting. Token measures count, for every token that is PHI on either side: equal (non-O) tags → ``tp`` of
that label; otherwise ``fn`` for the gold label (if any) and ``fp`` for the predicted label (if any) — a label
confusion is one FN and one FP.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Literal

from clinanon.bio import encode_bio, span_token_range
from clinanon.document import Document, Span
from clinanon.errors import ConfigError, InputError
from clinanon.evaluate.intervals import CharCounter, Coverage, intersect, merge, overlap_pairs
from clinanon.evaluate.results import (
    NONE,
    PRF,
    Confusion,
    EvaluationReport,
    Leakage,
    Measure,
)
from clinanon.taxonomy import CANONICAL_CATEGORIES, LabelScheme, get_scheme, list_schemes, parent
from clinanon.text import tokenize

__all__ = ["EvaluationConfigError", "EvaluationInputError", "LabelMap", "evaluate", "guess_scheme"]

LabelMap = Literal["native", "canonical", "type"]
_UNLABELED = ""
#: a token of ``token_binary_alnum``: a run of letters and digits
_ALNUM = re.compile(r"[^\W_]+")


class EvaluationInputError(InputError, ValueError):
    """Gold and prediction cannot be compared (unknown or duplicate document, different texts, unknown label).

    A :class:`ValueError` (and an :class:`~clinanon.errors.InputError`) whose message names the document id and,
    for differing texts, the first differing offset — never any text.
    """


class EvaluationConfigError(ConfigError, ValueError):
    """Invalid evaluation options (unknown ``label_map``, a label mapping without a scheme)."""


class _Acc:
    """Per-label tp / tp_pred / fp / fn counters of one measure."""

    __slots__ = ("fn", "fp", "labeled", "name", "tp", "tp_pred")

    def __init__(self, name: str, labeled: bool) -> None:
        self.name = name
        self.labeled = labeled
        self.tp: Counter[str] = Counter()
        self.tp_pred: Counter[str] = Counter()
        self.fp: Counter[str] = Counter()
        self.fn: Counter[str] = Counter()

    def measure(self, *, separate_tp_pred: bool = False) -> Measure:
        labels = set(self.tp) | set(self.tp_pred) | set(self.fp) | set(self.fn)
        per_label = {
            lab: PRF(self.tp[lab], self.fp[lab], self.fn[lab], self.tp_pred[lab] if separate_tp_pred else None)
            for lab in labels
        }
        micro = PRF(sum(self.tp.values()), sum(self.fp.values()), sum(self.fn.values()),
                    sum(self.tp_pred.values()) if separate_tp_pred else None)
        return Measure(self.name, micro, per_label if self.labeled else {}, self.labeled)


def _phi_tokens(spans: Sequence[Span], tok_starts: Sequence[int], tok_ends: Sequence[int]) -> set[int]:
    """Indices of the tokens that share at least one character with some span (via the union of the spans)."""
    out: set[int] = set()
    for start, end in merge((s.start, s.end) for s in spans):
        i, j, _ = span_token_range(tok_starts, tok_ends, start, end)
        out.update(range(i, j))
    return out


def _first_difference(a: str, b: str) -> int:
    """Offset of the first character where ``a`` and ``b`` differ (the shorter length if one is a prefix)."""
    lo, hi = 0, min(len(a), len(b))  # invariant: a[:lo] == b[:lo]; binary search on block equality
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


class _Mapper:
    """Maps span labels as ``label_map`` says (cached per label); returns sorted span lists."""

    def __init__(self, label_map: str, scheme: LabelScheme | None) -> None:
        label_map = str(label_map)
        if label_map not in ("native", "canonical", "type"):
            raise EvaluationConfigError(f"label_map must be 'native', 'canonical' or 'type', not {label_map!r}")
        if label_map != "native" and scheme is None:
            raise EvaluationConfigError(f"label_map={label_map!r} needs a label scheme (scheme=...)")
        self.label_map = label_map
        self.scheme = scheme
        self._cache: dict[str, str] = {}

    def __call__(self, doc_id: str, spans: Sequence[Span]) -> list[Span]:
        if self.label_map == "native":
            return list(spans)
        out = []
        for s in spans:
            lab = self._cache.get(s.label)
            if lab is None:
                assert self.scheme is not None
                try:
                    lab = self.scheme.category(s.label)
                except KeyError:
                    raise EvaluationInputError(
                        f"label {s.label!r} is neither in scheme {self.scheme.name!r} nor canonical",
                        doc_id=doc_id, offset=s.start) from None
                if self.label_map == "type":
                    lab = parent(lab)
                self._cache[s.label] = lab
            out.append(s if lab == s.label else s.with_label(lab))
        out.sort()
        return out


class _Scorer:
    """Accumulates the counts of every measure, one document pair at a time."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.acc = {name: _Acc(name, labeled) for name, labeled in (
            ("char_binary", False), ("token_binary", False), ("token_binary_alnum", False),
            ("token_relaxed", True), ("token_strict", True),
            ("entity_exact", True), ("entity_span", False), ("entity_overlap", True),
            ("entity_overlap_unlabeled", False))}
        self.confusion: Counter[tuple[str, str]] = Counter()
        self.confusion_labels: set[str] = set()
        self.leak_total = [0, 0, 0, 0, 0]  # gold_chars, leak_chars, gold_spans, leaked_spans, fully_leaked_spans
        self.leak_label: dict[str, list[int]] = {}
        self.tokens = 0

    def add(self, text: str, gspans: Sequence[Span], pspans: Sequence[Span]) -> None:
        """Count one document; both span lists must be sorted."""
        self._chars(text, gspans, pspans)
        self._tokens(text, gspans, pspans)
        self._exact(gspans, pspans)
        self._overlap(gspans, pspans)

    def _chars(self, text: str, gspans: Sequence[Span], pspans: Sequence[Span]) -> None:
        # a prefix sum only when gold spans overlap enough that per-span counting could exceed the text
        chars = CharCounter(text, dense=sum(len(s) for s in gspans) > len(text))
        gu = merge((s.start, s.end) for s in gspans)
        pu = merge((s.start, s.end) for s in pspans)
        both = chars.count_in(intersect(gu, pu))
        g_chars = chars.count_in(gu)
        p_chars = chars.count_in(pu)
        a = self.acc["char_binary"]
        a.tp[_UNLABELED] += both
        a.fn[_UNLABELED] += g_chars - both
        a.fp[_UNLABELED] += p_chars - both
        total = self.leak_total
        total[0] += g_chars
        total[1] += g_chars - both
        coverage = Coverage(pu, chars)
        by_label: dict[str, list[tuple[int, int]]] = {}
        for s in gspans:
            by_label.setdefault(s.label, []).append((s.start, s.end))
            n = chars.count(s.start, s.end)
            covered = coverage.covered(s.start, s.end)
            row = self.leak_label.setdefault(s.label, [0, 0, 0, 0, 0])
            leaked = covered < n
            fully = n > 0 and covered == 0
            for r in (row, total):
                r[2] += 1
                r[3] += leaked
                r[4] += fully
        for lab, ivs in by_label.items():
            lu = merge(ivs)
            lc = chars.count_in(lu)
            row = self.leak_label[lab]
            row[0] += lc
            row[1] += lc - chars.count_in(intersect(lu, pu))

    def _tokens(self, text: str, gspans: Sequence[Span], pspans: Sequence[Span]) -> None:
        toks = tokenize(text, self.lang)
        self.tokens += len(toks)
        if not gspans and not pspans:
            return
        starts = [t.start for t in toks]
        ends = [t.end for t in toks]
        # binary: coverage by any span
        gb = _phi_tokens(gspans, starts, ends)
        pb = _phi_tokens(pspans, starts, ends)
        ab = self.acc["token_binary"]
        both = len(gb & pb)
        ab.tp[_UNLABELED] += both
        ab.fn[_UNLABELED] += len(gb) - both
        ab.fp[_UNLABELED] += len(pb) - both
        # binary on runs of letters and digits (the i2b2 2014 script's tokens)
        a_starts, a_ends = [], []
        for m in _ALNUM.finditer(text):
            a_starts.append(m.start())
            a_ends.append(m.end())
        ga = _phi_tokens(gspans, a_starts, a_ends)
        pa = _phi_tokens(pspans, a_starts, a_ends)
        aa = self.acc["token_binary_alnum"]
        both = len(ga & pa)
        aa.tp[_UNLABELED] += both
        aa.fn[_UNLABELED] += len(ga) - both
        aa.fp[_UNLABELED] += len(pa) - both
        # relaxed / strict: the BIO view (clinanon.bio.encode_bio)
        ar, ast = self.acc["token_relaxed"], self.acc["token_strict"]
        gtags = encode_bio(toks, gspans, "BIO").tags
        ptags = encode_bio(toks, pspans, "BIO").tags
        for gt, pt in zip(gtags, ptags, strict=True):
            if gt == pt:
                if gt != "O":
                    ar.tp[gt[2:]] += 1
                    ast.tp[gt[2:]] += 1
                continue
            gl, pl = gt[2:], pt[2:]  # "" for O
            if gl == pl:  # same label, B/I differ
                ar.tp[gl] += 1
            else:
                if gl:
                    ar.fn[gl] += 1
                if pl:
                    ar.fp[pl] += 1
            if gl:
                ast.fn[gl] += 1
            if pl:
                ast.fp[pl] += 1

    def _exact(self, gspans: Sequence[Span], pspans: Sequence[Span]) -> None:
        a = self.acc["entity_exact"]
        gc = Counter(s.key for s in gspans)
        pc = Counter(s.key for s in pspans)
        for key in gc.keys() | pc.keys():
            m = min(gc[key], pc[key])
            a.tp[key[2]] += m
            a.fn[key[2]] += gc[key] - m
            a.fp[key[2]] += pc[key] - m
        a = self.acc["entity_span"]
        gc2 = Counter((s.start, s.end) for s in gspans)
        pc2 = Counter((s.start, s.end) for s in pspans)
        for key2 in gc2.keys() | pc2.keys():
            m = min(gc2[key2], pc2[key2])
            a.tp[_UNLABELED] += m
            a.fn[_UNLABELED] += gc2[key2] - m
            a.fp[_UNLABELED] += pc2[key2] - m

    def _overlap(self, gspans: Sequence[Span], pspans: Sequence[Span]) -> None:
        pairs = overlap_pairs(gspans, pspans)
        hit_labeled = [False] * len(pspans)
        hit_any = [False] * len(pspans)
        ao, au = self.acc["entity_overlap"], self.acc["entity_overlap_unlabeled"]
        for gs, js in zip(gspans, pairs, strict=True):
            found = False
            best_key: tuple[int, bool, int] | None = None
            best_label = NONE
            for j in js:
                ps = pspans[j]
                hit_any[j] = True
                same = ps.label == gs.label
                if same:
                    hit_labeled[j] = found = True
                # best match: most shared characters, then same label, then the earliest prediction
                key = (min(gs.end, ps.end) - max(gs.start, ps.start), same, -j)
                if best_key is None or key > best_key:
                    best_key, best_label = key, ps.label
            (ao.tp if found else ao.fn)[gs.label] += 1
            (au.tp if js else au.fn)[_UNLABELED] += 1
            self.confusion[gs.label, best_label] += 1
            self.confusion_labels.update((gs.label, best_label))
        for ps, hit_l, hit_a in zip(pspans, hit_labeled, hit_any, strict=True):
            (ao.tp_pred if hit_l else ao.fp)[ps.label] += 1
            (au.tp_pred if hit_a else au.fp)[_UNLABELED] += 1
            if not hit_a:
                self.confusion[NONE, ps.label] += 1
                self.confusion_labels.add(ps.label)

    def measures(self) -> dict[str, Measure]:
        return {name: a.measure(separate_tp_pred=name.startswith("entity_overlap")) for name, a in self.acc.items()}

    def confusion_matrix(self) -> Confusion:
        labels = sorted(self.confusion_labels - {NONE})
        return Confusion((*labels, NONE), dict(self.confusion))

    def leakage(self) -> Leakage:
        return Leakage(*self.leak_total, per_label={lab: Leakage(*row) for lab, row in self.leak_label.items()})


def _examples(labels: Counter[str]) -> str:
    common = [lab for lab, _ in labels.most_common(3)]
    return f"{len(labels)} label{'s' if len(labels) != 1 else ''}, e.g. {', '.join(common)}"


def guess_scheme(labels: Iterable[str]) -> str | None:
    """The registered label scheme that holds every one of ``labels`` (the smallest such scheme), ``"canonical"``
    when they are all canonical categories, else ``None``."""
    wanted = set(labels)
    if wanted and wanted <= set(CANONICAL_CATEGORIES):
        return "canonical"
    fits = [(len(sch.labels), name) for name in list_schemes()
            if wanted <= set((sch := get_scheme(name)).labels)]
    return min(fits)[1] if fits else None


def _one_scheme(labels: set[str]) -> bool:
    """Whether some registered label scheme (or the canonical categories) holds all of ``labels``: then disjoint
    gold and predicted labels are wrong predictions, not two schemes."""
    if labels <= set(CANONICAL_CATEGORIES):
        return True
    return any(labels <= set(get_scheme(name).labels) for name in list_schemes())


def _disjoint_labels_message(gold: Counter[str], pred: Counter[str], overlapping: int, label_map: str) -> str:
    """What to say when predictions overlap gold spans but share no label with them (see :func:`evaluate`)."""
    name = guess_scheme(gold)
    head = (f"the predicted labels ({_examples(pred)}) and the gold labels ({_examples(gold)}) have none in common, "
            f"although {overlapping} predicted span(s) overlap gold spans: every labelled score would be 0.0")
    if label_map != "native":
        return head + "; check that --scheme names the scheme of both label sets"
    if name is None:
        return (head + ". Predict in the gold's label scheme (clinanon evaluate --scheme NAME, or label_scheme in the "
                "configuration; see `clinanon labels`), or compare categories with --labels canonical --scheme NAME")
    return (head + f". The gold labels are those of scheme {name!r}: predict in it (clinanon evaluate --scheme "
            f"{name}, or label_scheme = \"{name}\" in the configuration), or compare categories (--labels canonical "
            f"--scheme {name})")


def evaluate(
    gold: Iterable[Document],
    pred: Iterable[Document],
    *,
    lang: str = "es",
    scheme: str | LabelScheme | None = None,
    label_map: LabelMap | str = "native",
    check_labels: bool = True,
) -> EvaluationReport:
    """Score the spans of ``pred`` against the spans of ``gold``.

    Documents are paired by id. A gold document without a prediction counts as "nothing predicted" and is
    listed in ``report.missing_predictions``. A prediction whose id is not among the gold documents, a
    duplicate id on either side, or a pair whose texts differ raise :class:`EvaluationInputError` (a
    ``ValueError``) naming the document id (and the first differing offset) — never any text.

    ``label_map``: ``"native"`` compares labels as they are; ``"canonical"`` maps both sides to canonical
    categories with ``scheme.category`` (canonical labels pass through, so a rules detector emitting canonical
    categories can be scored against MEDDOCAN gold); ``"type"`` maps further to the parent type
    (``NAME.PATIENT`` → ``NAME``). Both mappings need ``scheme`` (a :class:`LabelScheme` or a registered name).

    ``check_labels``: when predictions overlap gold spans but the two share no label and no registered scheme
    holds both label sets, raise :class:`EvaluationConfigError` (the labels are in different schemes) instead of
    scoring every label 0.

    Cost: one tokenization per document, and otherwise linear in the number of spans and the characters they
    cover.
    """
    scheme_obj = get_scheme(scheme) if isinstance(scheme, str) else scheme
    mapper = _Mapper(label_map, scheme_obj)

    preds: dict[str, Document] = {}
    for d in pred:
        if d.id in preds:
            raise EvaluationInputError("duplicate document id in the predictions", doc_id=d.id)
        preds[d.id] = d

    scorer = _Scorer(lang)
    seen: set[str] = set()
    missing: list[str] = []
    n_gold = n_pred = 0
    gold_labels: Counter[str] = Counter()
    pred_labels: Counter[str] = Counter()
    for g in gold:
        if g.id in seen:
            raise EvaluationInputError("duplicate document id in the gold documents", doc_id=g.id)
        seen.add(g.id)
        p = preds.get(g.id)
        if p is None:
            missing.append(g.id)
            pspans: list[Span] = []
        else:
            if p.text != g.text:
                raise EvaluationInputError(
                    f"the predicted document's text differs from the gold text (gold length {len(g.text)}, "
                    f"predicted length {len(p.text)})", doc_id=g.id, offset=_first_difference(g.text, p.text))
            pspans = mapper(g.id, p.spans)
        gspans = mapper(g.id, g.spans)
        n_gold += len(gspans)
        n_pred += len(pspans)
        gold_labels.update(s.label for s in gspans)
        pred_labels.update(s.label for s in pspans)
        scorer.add(g.text, gspans, pspans)

    unknown = [pid for pid in preds if pid not in seen]
    if unknown:
        more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
        raise EvaluationInputError(f"a predicted document has no gold document{more}", doc_id=unknown[0])
    overlapping = sum(scorer.acc["entity_overlap_unlabeled"].tp_pred.values())
    if (check_labels and overlapping and gold_labels and pred_labels and not gold_labels.keys() & pred_labels.keys()
            and not _one_scheme(gold_labels.keys() | pred_labels.keys())):
        raise EvaluationConfigError(_disjoint_labels_message(gold_labels, pred_labels, overlapping,
                                                             mapper.label_map))

    return EvaluationReport(
        lang=lang,
        label_map=mapper.label_map,
        scheme=scheme_obj.name if scheme_obj is not None else None,
        documents=len(seen),
        gold_spans=n_gold,
        pred_spans=n_pred,
        tokens=scorer.tokens,
        missing_predictions=tuple(missing),
        **scorer.measures(),
        confusion=scorer.confusion_matrix(),
        leakage=scorer.leakage(),
    )
