"""A linear-chain CRF PHI detector (CRFsuite through ``python-crfsuite``) with an estimator API.

>>> crf = CRFDetector("es", c1=0.05, c2=0.01, max_iterations=100)     # doctest: +SKIP
>>> crf.fit(train_docs)                                                # doctest: +SKIP
>>> crf.detect(doc)           # [Span(start, end, "FECHAS", "crf", 0.98), ...]   # doctest: +SKIP
>>> crf.save("models/crf-meddocan"); CRFDetector.load("models/crf-meddocan")      # doctest: +SKIP

* Tokens are :func:`clinanon.text.tokenize`'s (aligned with MEDDOCAN's annotations); one sequence per
  document; tags are BIO (or BIOES) over the gold labels, so the model predicts the *native* labels of its
  training data (MEDDOCAN labels for a MEDDOCAN model).
* Features: :class:`clinanon.detect.features.FeatureExtractor` (word-type features cached, context features,
  and -- with ``rules=True`` -- the matches of ONE run of the rules detector per document).
* Training: CRFsuite L-BFGS with ``c1`` (L1), ``c2`` (L2), ``max_iterations``; the document order is shuffled
  with ``seed``. L-BFGS is deterministic, and features are built in a deterministic order, so the same data,
  parameters and seed give a byte-identical model file.
* Gold spans that do not fall on token boundaries are encoded on the tokens they overlap and *reported*
  (:attr:`CRFDetector.training_report_`), never dropped silently.
* Predictions: spans with ``source="crf"`` and ``score`` = the mean (or min, ``score="min"``) of the marginal
  probabilities of the span's token tags.

A fitted detector pickles (the model bytes travel with it), and ``save``/``load`` use a model directory:
``model.crfsuite`` + ``meta.json``.
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, Literal

from clinanon.analysis import Analysis
from clinanon.bio import decode_bio, encode_bio, span_token_range
from clinanon.detect import model_dir
from clinanon.detect.base import BaseDetector, GoldDataReport
from clinanon.detect.clusters import CLUSTER_FILE, WordClusters, learn_clusters
from clinanon.detect.features import FEATURE_VERSION, DocFeatures, FeatureExtractor
from clinanon.document import Document, Span
from clinanon.errors import ConfigError, InputError
from clinanon.lang import check_language
from clinanon.text import Token

__all__ = ["META_FILE", "MODEL_FILE", "CRFDetector", "IterationInfo", "TrainingReport"]

MODEL_FILE = "model.crfsuite"
META_FILE = model_dir.META_FILE

ScoreMode = Literal["mean", "min"]


def _pycrfsuite() -> Any:
    try:
        import pycrfsuite
    except ImportError:  # pragma: no cover - depends on the environment
        raise ConfigError("the CRF detector needs python-crfsuite: pip install python-crfsuite") from None
    return pycrfsuite


@dataclass(frozen=True, slots=True)
class IterationInfo:
    """One L-BFGS iteration: loss, seconds, active features and, when dev data is held out, the token-level
    micro P/R/F of the dev tags (every tag but ``O``; computed by CRFsuite)."""

    iteration: int
    max_iterations: int
    loss: float
    seconds: float
    active_features: int
    dev_precision: float | None = None
    dev_recall: float | None = None
    dev_f1: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class TrainingReport(GoldDataReport):
    """What :meth:`CRFDetector.fit` saw and did. Offsets and labels only, never text.

    ``misaligned``: gold spans whose start or end is not a token boundary (encoded on the tokens they overlap;
    ``reason`` ``"misaligned"``, or ``"no_token"`` when they cover no token and could not be encoded).
    ``overlapping``: gold spans not encoded because a longer span holds one of their tokens.
    """

    features: int | None = None
    iterations: list[IterationInfo] = field(default_factory=list)
    feature_seconds: float = 0.0
    train_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            **super().to_dict(), "features": self.features,
            "iterations": len(self.iterations), "final_loss": self.iterations[-1].loss if self.iterations else None,
            "feature_seconds": round(self.feature_seconds, 3), "train_seconds": round(self.train_seconds, 3),
        }


def _tag_micro(scores: Mapping[str, Any]) -> tuple[float, float, float] | None:
    match = model = ref = 0
    for tag, s in scores.items():
        if tag == "O":
            continue
        match += s.match
        model += s.model
        ref += s.ref
    if not scores:
        return None
    p = match / model if model else 0.0
    r = match / ref if ref else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def upper_same_length(text: str) -> str:
    """``text`` in upper case, character by character; a character whose upper case is longer ("ß" -> "SS")
    is kept, so every offset of ``text`` stays valid."""
    up = text.upper()
    if len(up) == len(text):
        return up
    return "".join(u if len(u := c.upper()) == 1 else c for c in text)


def upper_case_copies(docs: Sequence[Document], fraction: float, seed: int) -> list[Document]:
    """Upper-case copies (same spans, same offsets) of ``round(fraction * len(docs))`` documents drawn with
    ``seed``: training data for all-caps notes (nursing notes, old systems), which a model trained on mixed case
    only tags poorly."""
    k = round(fraction * len(docs))
    if k <= 0:
        return []
    picked = sorted(random.Random(f"case-augment:{seed}").sample(range(len(docs)), k))
    return [replace(docs[i], id=f"{docs[i].id}#upper", text=upper_same_length(docs[i].text)) for i in picked]


def _make_trainer(pycrfsuite: Any, max_iterations: int, callback: Callable[[IterationInfo], None] | None,
                  sink: list[IterationInfo]) -> Any:
    class _Trainer(pycrfsuite.Trainer):  # type: ignore[misc, name-defined]
        """CRFsuite's trainer with its log turned into :class:`IterationInfo` events (nothing is printed)."""

        def on_start(self, log: str) -> None:
            pass

        on_featgen_end = on_prepared = on_prepare_error = on_optimization_end = on_end = on_start

        def on_featgen_progress(self, log: str, percent: int) -> None:
            pass

        def on_iteration(self, log: str, info: dict[str, Any]) -> None:
            micro = _tag_micro(info.get("scores") or {})
            it = IterationInfo(
                iteration=int(info.get("num", len(sink) + 1)), max_iterations=max_iterations,
                loss=float(info.get("loss", float("nan"))), seconds=float(info.get("time", 0.0)),
                active_features=int(info.get("active_features", 0)),
                dev_precision=micro[0] if micro else None, dev_recall=micro[1] if micro else None,
                dev_f1=micro[2] if micro else None)
            sink.append(it)
            if callback is not None:
                callback(it)

    return _Trainer(verbose=True)


class CRFDetector(BaseDetector):
    """A CRF tagger over clinanon tokens (see the module docstring).

    Hyper-parameters: ``c1`` / ``c2`` (L1 / L2 regularisation), ``max_iterations``, ``min_freq`` (drop
    attribute-label pairs seen fewer times), ``tagging`` (``"BIO"`` or ``"BIOES"``), ``seed`` (order of the
    training documents), ``rules`` (rule-detector features), ``score`` (``"mean"`` or ``"min"`` of the token
    marginals), ``label_scheme`` (when set, every gold label must belong to that registered scheme),
    ``canonical`` (predict canonical categories, ``NAME.PATIENT``, instead of the native labels; needs
    ``label_scheme``; training always uses the native labels).

    Optional feature families (off by default, so older models keep their meaning): ``clusters`` (distributional
    word clusters learned without labels from the training texts at :meth:`fit`, saved as ``clusters.tsv`` in
    the model directory; :mod:`clinanon.detect.clusters`), ``triggers`` (trigger words of
    ``clinanon/data/lexicons/<lang>.tsv`` -- kinship, institution, hospital heads -- near a token) and
    ``structure`` (parenthetical fields, distance to the next number).

    ``case_augment``: the fraction of training documents added again in upper case (same spans), so that the
    model also tags all-caps notes; 0 (default) trains on the documents as given.
    """

    name = "crf"
    #: the candidates the rule features are read from (``Analysis.candidates``)
    rules_source = "rules"
    #: one label per token: the decoded spans never overlap
    overlapping: ClassVar[bool] = False

    def __init__(
        self,
        lang: str = "es",
        *,
        c1: float = 0.05,
        c2: float = 0.01,
        max_iterations: int = 100,
        min_freq: int = 0,
        tagging: str = "BIO",
        seed: int = 0,
        rules: bool = True,
        score: ScoreMode = "mean",
        label_scheme: str | None = None,
        canonical: bool = False,
        clusters: bool = False,
        triggers: bool = False,
        structure: bool = False,
        case_augment: float = 0.0,
    ) -> None:
        self.lang = check_language(lang)
        if c1 < 0 or c2 < 0:
            raise ConfigError("c1 and c2 must be >= 0")
        if max_iterations < 1:
            raise ConfigError("max_iterations must be >= 1")
        if min_freq < 0:
            raise ConfigError("min_freq must be >= 0")
        if not 0.0 <= case_augment <= 1.0:
            raise ConfigError("case_augment must be between 0 and 1")
        tagging = tagging.upper()
        if tagging not in ("BIO", "BIOES"):
            raise ConfigError(f"tagging must be 'BIO' or 'BIOES', not {tagging!r}")
        if score not in ("mean", "min"):
            raise ConfigError(f"score must be 'mean' or 'min', not {score!r}")
        self.c1 = float(c1)
        self.c2 = float(c2)
        self.max_iterations = int(max_iterations)
        self.min_freq = int(min_freq)
        self.tagging = tagging
        self.seed = int(seed)
        self.rules = bool(rules)
        self.score = score
        self.label_scheme = label_scheme
        self.canonical = bool(canonical)
        self.clusters = bool(clusters)
        self.triggers = bool(triggers)
        self.structure = bool(structure)
        self.case_augment = float(case_augment)
        self.word_clusters_: WordClusters | None = None
        self._category: Callable[[str], str] | None = None
        if self.canonical:
            if label_scheme is None:
                raise ConfigError("canonical=True needs a label_scheme to map native labels to categories")
            from clinanon.taxonomy import get_scheme

            self._category = get_scheme(label_scheme).category
        self.labels_: list[str] = []
        self.training_report_: TrainingReport | None = None
        self._model: bytes | None = None
        self._tagger: Any = None
        self._extractor: FeatureExtractor | None = None
        self._rules: Any = None

    def __repr__(self) -> str:
        state = f"labels={len(self.labels_)}" if self._model is not None else "unfitted"
        return (f"CRFDetector(lang={self.lang!r}, c1={self.c1}, c2={self.c2}, max_iterations={self.max_iterations}, "
                f"tagging={self.tagging!r}, rules={self.rules}, {state})")

    # --- parameters -----------------------------------------------------------------------------------------
    def get_params(self) -> dict[str, Any]:
        """The constructor arguments (JSON-safe)."""
        return {"lang": self.lang, "c1": self.c1, "c2": self.c2, "max_iterations": self.max_iterations,
                "min_freq": self.min_freq, "tagging": self.tagging, "seed": self.seed, "rules": self.rules,
                "score": self.score, "label_scheme": self.label_scheme, "canonical": self.canonical,
                "clusters": self.clusters, "triggers": self.triggers, "structure": self.structure,
                "case_augment": self.case_augment}

    @property
    def fitted(self) -> bool:
        return self._model is not None

    @property
    def model_bytes(self) -> bytes:
        """The CRFsuite model file's content."""
        if self._model is None:
            raise ConfigError("the CRF detector is not fitted: call fit() or CRFDetector.load()")
        return self._model

    # --- features -------------------------------------------------------------------------------------------
    @property
    def extractor(self) -> FeatureExtractor:
        if self._extractor is None:
            if self.clusters and self.word_clusters_ is None:
                raise ConfigError("this CRF uses word clusters: fit() it or load it from its model directory")
            self._extractor = FeatureExtractor(self.lang, rules=self.rules,
                                               clusters=self.word_clusters_ if self.clusters else None,
                                               triggers=self.triggers, structure=self.structure)
        return self._extractor

    def set_word_clusters(self, clusters: WordClusters | None) -> None:
        """Use ``clusters`` (``None``: none) in the features from now on (resets the feature extractor)."""
        self.word_clusters_ = clusters
        self._extractor = None

    def _rule_spans(self, text: str) -> list[Span]:
        if not self.rules:
            return []
        if self._rules is None:
            from clinanon.detect.rules.detector import RulesDetector

            self._rules = RulesDetector(self.lang)
        return self._rules.analyze(text, self.lang)

    def features(self, text: str, rule_spans: Sequence[Span] | None = None,
                 tokens: Sequence[Token] | None = None) -> DocFeatures:
        """Tokens and per-token feature strings of ``text``. ``rule_spans``: the rules detector's raw candidates
        for ``text`` when the caller already has them (else the rules run here, once, when ``rules`` is on);
        ``tokens``: its tokens, when the caller has them."""
        if rule_spans is None:
            rule_spans = self._rule_spans(text)
        return self.extractor.extract(text, rule_spans if self.rules else (), tokens)

    # --- training -------------------------------------------------------------------------------------------
    def fit(
        self,
        docs: Iterable[Document],
        dev: Iterable[Document] | None = None,
        *,
        callback: Callable[[IterationInfo], None] | None = None,
    ) -> CRFDetector:
        """Train on the gold spans of ``docs``; returns ``self``.

        ``dev``: documents held out and tagged by CRFsuite after every iteration (token-level scores in the
        :class:`IterationInfo` passed to ``callback``); they never change the weights. Raises
        :class:`ConfigError` when no document has a token, or a gold label is outside ``label_scheme``.
        """
        pycrfsuite = _pycrfsuite()
        docs = list(docs)
        self._check_labels(docs)
        if self.clusters:  # learned from the training texts only (never from dev), without their labels
            self.set_word_clusters(learn_clusters([d.text for d in docs], self.lang, seed=self.seed))
        docs += upper_case_copies(docs, self.case_augment, self.seed)
        order = list(range(len(docs)))
        random.Random(self.seed).shuffle(order)
        report = TrainingReport()
        t0 = time.perf_counter()
        trainer = _make_trainer(pycrfsuite, self.max_iterations, callback, report.iterations)
        labels: Counter[str] = Counter()
        for k in order:
            doc = docs[k]
            df = self.features(doc.text)
            enc = encode_bio(df.tokens, doc.spans, self.tagging)
            report.documents += 1
            report.tokens += len(df.tokens)
            report.chars += len(doc.text)
            report.gold_spans += len(doc.spans)
            labels.update(s.label for s in doc.spans)
            if enc.misaligned:
                starts = [t.start for t in df.tokens]
                ends = [t.end for t in df.tokens]
            for s in enc.misaligned:
                i, j, _ = span_token_range(starts, ends, s.start, s.end)
                covers = j > i
                report.misaligned.append({"doc_id": doc.id, "start": s.start, "end": s.end, "label": s.label,
                                          "reason": "misaligned" if covers else "no_token"})
            for s in enc.overlapping:
                report.overlapping.append({"doc_id": doc.id, "start": s.start, "end": s.end, "label": s.label})
            if df.tokens:
                trainer.append(df.features, enc.tags, 0)
        if report.tokens == 0:
            raise ConfigError("no training document has a token")
        holdout = -1
        if dev is not None:
            for doc in dev:
                df = self.features(doc.text)
                if df.tokens:
                    trainer.append(df.features, encode_bio(df.tokens, doc.spans, self.tagging).tags, 1)
                    holdout = 1
        report.feature_seconds = time.perf_counter() - t0
        report.labels = dict(sorted(labels.items()))
        trainer.set_params({
            "c1": self.c1, "c2": self.c2, "max_iterations": self.max_iterations,
            "feature.minfreq": float(self.min_freq), "feature.possible_transitions": True,
            "feature.possible_states": False,
        })
        t1 = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="clinanon-crf-") as tmp:
            path = os.path.join(tmp, MODEL_FILE)
            trainer.train(path, holdout)
            model = Path(path).read_bytes()
        report.train_seconds = time.perf_counter() - t1
        report.features = trainer.logparser.featgen_num_features if trainer.logparser else None
        self._set_model(model)
        self.training_report_ = report
        return self

    def _check_labels(self, docs: Sequence[Document]) -> None:
        if self.label_scheme is None:
            return
        from clinanon.taxonomy import get_scheme

        scheme = get_scheme(self.label_scheme)
        unknown = sorted({s.label for d in docs for s in d.spans if s.label not in scheme})
        if unknown:
            raise ConfigError(f"gold labels not in the label scheme {self.label_scheme!r}: {', '.join(unknown)}")

    def _set_model(self, model: bytes) -> None:
        pycrfsuite = _pycrfsuite()
        tagger = pycrfsuite.Tagger()
        try:
            tagger.open_inmemory(model)
        except (ValueError, OSError) as e:
            raise ConfigError(f"not a CRFsuite model ({type(e).__name__})") from None
        self._model = model  # CRFsuite reads the buffer in place: keep it alive with the tagger
        self._tagger = tagger
        tags = tagger.labels()
        self.labels_ = sorted({t[2:] for t in tags if t != "O" and len(t) > 2 and t[1] == "-"})

    # --- prediction -----------------------------------------------------------------------------------------
    def _tagger_or_raise(self) -> Any:
        if self._tagger is None:
            raise ConfigError("the CRF detector is not fitted: call fit() or CRFDetector.load()")
        return self._tagger

    def predict_tags(self, text: str, rule_spans: Sequence[Span] | None = None,
                     tokens: Sequence[Token] | None = None) -> tuple[DocFeatures, list[str]]:
        """The features and the Viterbi tag sequence of ``text``."""
        tagger = self._tagger_or_raise()
        df = self.features(text, rule_spans, tokens)
        if not df.tokens:
            return df, []
        return df, list(tagger.tag(df.features))

    def detect(self, analysis: Analysis | Document) -> list[Span]:
        """Spans with native labels, ``source="crf"`` and the marginal-probability score (sorted).

        The rules' features come from ``analysis.candidates[rules_source]`` when the rules ran before this
        detector on the note (they must be ``RulesDetector(lang)``'s raw candidates for the model's features to mean
        what they meant in training), else the rules run here."""
        a = self.analysis(analysis)
        return self.analyze(a.text, a.candidates.get(self.rules_source), a.tokens.tokens)

    def analyze(self, text: str, rule_spans: Sequence[Span] | None = None,
                tokens: Sequence[Token] | None = None) -> list[Span]:
        """:meth:`detect` on a bare text (``rule_spans``, ``tokens``: see :meth:`features`)."""
        tagger = self._tagger_or_raise()
        df, tags = self.predict_tags(text, rule_spans, tokens)
        if not tags:
            return []
        spans = decode_bio(df.tokens, tags, repair=True, source=self.name)
        if not spans:
            return []
        starts = [t.start for t in df.tokens]
        out = []
        for s in spans:
            i = bisect_left(starts, s.start)
            j = bisect_left(starts, s.end, lo=i)
            probs = [tagger.marginal(tags[k], k) if tags[k] != "O" else 0.0 for k in range(i, j)]
            p = min(probs) if self.score == "min" else sum(probs) / len(probs)
            label = self._category(s.label) if self._category is not None else s.label
            out.append(Span(s.start, s.end, label, self.name, round(min(1.0, max(0.0, p)), 4)))
        return out

    def predict(self, docs: Iterable[Document]) -> list[Document]:
        """Each document with its spans replaced by the predictions."""
        return [d.with_spans(self.detect(d)) for d in docs]

    # --- persistence ----------------------------------------------------------------------------------------
    def meta(self) -> dict[str, Any]:
        """What ``save`` writes to ``meta.json`` (before the caller's extra keys)."""
        from clinanon import __version__

        return {"detector": self.name, "format": 1, "feature_version": FEATURE_VERSION,
                "clinanon_version": __version__, "params": self.get_params(), "labels": list(self.labels_),
                "tags": list(self._tagger_or_raise().labels()), "model_file": MODEL_FILE,
                "model_bytes": len(self.model_bytes),
                **({"cluster_file": CLUSTER_FILE} if self.clusters else {})}

    def save(self, path: str | Path, meta: Mapping[str, Any] | None = None) -> Path:
        """Write the model directory ``path`` (``model.crfsuite`` + ``meta.json``; ``meta`` adds keys).

        Files are written to a temporary name and renamed, so a reader never sees half a model.
        """
        from clinanon.io import atomic_write_text

        out = Path(path)
        out.mkdir(parents=True, exist_ok=True)
        data = {**self.meta(), **(dict(meta) if meta else {})}
        model_dir.write_bytes(out / MODEL_FILE, self.model_bytes)
        names = [MODEL_FILE, META_FILE]
        if self.clusters and self.word_clusters_ is not None:
            atomic_write_text(out / CLUSTER_FILE, self.word_clusters_.dumps())
            names.append(CLUSTER_FILE)
        model_dir.write_meta(out, data)
        model_dir.share(out, names)
        return out

    @classmethod
    def load(cls, path: str | Path, *, canonical: bool | None = None) -> CRFDetector:
        """A detector from a directory written by :meth:`save` (or by ``clinanon train``); ``canonical``
        overrides the saved setting (canonical categories instead of native labels in predictions).

        Raises :class:`InputError` naming the file when it is missing or not a CRF model of this version.
        """
        p = Path(path)
        meta = model_dir.read_meta(p, cls.name, version_key="feature_version", version=FEATURE_VERSION,
                                   hint=": retrain it")
        det = model_dir.build(cls, meta, p, canonical=canonical)
        model_path = p / str(meta.get("model_file", MODEL_FILE))
        try:
            model = model_path.read_bytes()
        except OSError as e:
            raise InputError(f"cannot read the model file ({type(e).__name__})", path=model_path) from None
        try:
            det._set_model(model)
        except ConfigError:
            raise InputError("not a CRFsuite model file", path=model_path) from None
        if det.clusters:
            det.set_word_clusters(WordClusters.load(p / str(meta.get("cluster_file", CLUSTER_FILE))))
        det.meta_ = meta
        return det

    meta_: dict[str, Any] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"params": self.get_params(), "model": self._model, "report": self.training_report_,
                "meta": self.meta_, "clusters": self.word_clusters_.dumps() if self.word_clusters_ else None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state["params"])  # type: ignore[misc]
        if state.get("model") is not None:
            self._set_model(state["model"])
        self.training_report_ = state.get("report")
        self.meta_ = state.get("meta")
        if state.get("clusters"):
            self.set_word_clusters(WordClusters.loads(state["clusters"]))
