"""A BiLSTM-CRF PHI tagger (PyTorch, CPU or GPU) with an estimator API, trainable from scratch on CPU.

>>> det = BiLSTMCRFDetector("es", vectors="vectors.vec", label_scheme="meddocan")    # doctest: +SKIP
>>> det.fit(train_docs, dev_docs)                      # early stopping on dev        # doctest: +SKIP
>>> det.detect(doc)          # [Span(start, end, "FECHAS", "bilstm_crf", 0.99), ...]  # doctest: +SKIP
>>> det.save("models/bilstm-meddocan"); BiLSTMCRFDetector.load("models/bilstm-meddocan")  # doctest: +SKIP

* Tokens are :func:`clinanon.text.token_table`'s (the CRF's, aligned with MEDDOCAN's annotations); tags are BIO
  (or BIOES) over the gold labels (:func:`clinanon.bio.encode_bio`, misaligned gold spans reported, never dropped
  silently); predicted tags go back to character offsets on the note's text (:func:`clinanon.bio.decode_bio`).
* Sequences: the note's sentences (:func:`clinanon.text.split_sentences`), consecutive ones packed together up to
  ``max_len`` tokens (a form's lines keep their neighbours as context; a longer sentence is cut).
* Input per token: a word embedding (looked up case-folded with digits as ``0``; from a vectors file --
  ``clinanon embeddings train`` trains one with gensim on the user's unlabelled notes -- frozen by default, or
  learned from scratch without one), the 7-way casing one-hot, (``char_cnn``) a character CNN, and
  (``rule_features``) a one-hot of the rule detector's label of the token with its B/I position -- the same
  ``R=B-<label>`` / ``R=I-<label>`` value the CRF's features give it (:mod:`clinanon.detect.features`; the rules
  run once per note per ``fit``/``pipe`` call, or come from ``Analysis.candidates["rules"]``). Then a
  ``layers``-deep BiLSTM, a linear layer and a CRF (:mod:`clinanon.detect.neural.crf_layer`) whose BIO
  constraints forbid ``O -> I-X``.
* Training: NAdam, gradient clipping, dropout on input / between LSTM layers / output, word dropout; seeded; each
  epoch the dev notes are tagged and the weights with the best exact-span dev F1 are kept (early stopping after
  ``patience`` epochs without a better one, or at ``max_seconds``).
* Inference: sequences of a batch of notes are sorted by length and padded per batch (length buckets); the device
  is chosen automatically (``device="auto"``: CUDA when present). Spans get ``source="bilstm_crf"`` and a score =
  the mean CRF marginal probability of their tokens' tags.

``save``/``load`` use a model directory: ``model.pt`` (the weights, a PyTorch ``state_dict``), ``vocab.json``
(words, characters, tags) and ``meta.json`` (the same conventions as :class:`~clinanon.detect.crf.CRFDetector`).
PyTorch is the optional extra ``neural``; without it, building this detector raises a
:class:`~clinanon.errors.ConfigError` naming ``pip install "clinanon[neural]"``.
"""

from __future__ import annotations

import copy
import io
import json
import random
import time
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from clinanon.analysis import Analysis
from clinanon.bio import decode_bio, encode_bio, span_token_range
from clinanon.detect import model_dir
from clinanon.detect.base import BaseDetector, GoldDataReport
from clinanon.detect.neural._torch import choose_device, require_torch, seed_everything
from clinanon.detect.neural.vocab import Vocab, casing
from clinanon.document import Document, Span
from clinanon.errors import ConfigError, InputError
from clinanon.lang import check_language
from clinanon.text import split_sentences, token_table

__all__ = ["META_FILE", "MODEL_FILE", "VOCAB_FILE", "BiLSTMCRFDetector", "EpochInfo", "TrainingReport",
           "chunk_ranges"]

MODEL_FILE = "model.pt"
VOCAB_FILE = "vocab.json"
META_FILE = model_dir.META_FILE
FORMAT = 1

ScoreMode = Literal["mean", "min"]


@dataclass(frozen=True, slots=True)
class EpochInfo:
    """One epoch: mean loss per sequence, seconds, and (with dev data) the exact-span micro P/R/F1 on dev."""

    epoch: int
    max_epochs: int
    loss: float
    seconds: float
    dev_precision: float | None = None
    dev_recall: float | None = None
    dev_f1: float | None = None
    best_epoch: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class TrainingReport(GoldDataReport):
    """What :meth:`BiLSTMCRFDetector.fit` saw and did (offsets, labels and counts only, never text)."""

    sequences: int = 0
    #: optimizer steps taken (batches over all epochs)
    updates: int = 0
    epochs: list[EpochInfo] = field(default_factory=list)
    best_epoch: int | None = None
    best_dev_f1: float | None = None
    stopped: str = ""
    train_seconds: float = 0.0
    device: str = "cpu"
    vocab_words: int = 0
    vectors_words: int = 0
    parameters: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "sequences": self.sequences, "updates": self.updates,
                "epochs": len(self.epochs),
                "best_epoch": self.best_epoch, "best_dev_f1": self.best_dev_f1, "stopped": self.stopped,
                "train_seconds": round(self.train_seconds, 3), "device": self.device,
                "vocab_words": self.vocab_words, "vectors_words": self.vectors_words, "parameters": self.parameters,
                "per_epoch": [e.to_dict() for e in self.epochs]}


def chunk_ranges(token_starts: Sequence[int], sentences: Sequence[Any], n_tokens: int, max_len: int
                 ) -> list[tuple[int, int]]:
    """Token ranges ``[i, j)`` covering all ``n_tokens`` tokens in order: consecutive sentences packed up to
    ``max_len`` tokens, a longer sentence cut into ``max_len``-token pieces."""
    out: list[tuple[int, int]] = []
    cur_i = cur_j = 0
    pos = 0
    ranges = []
    for s in sentences:
        i = bisect_left(token_starts, s.start, lo=pos)
        j = bisect_left(token_starts, s.end, lo=i)
        if j > i:
            ranges.append((i, j))
            pos = j
    if not ranges or ranges[-1][1] < n_tokens or ranges[0][0] > 0:  # sentences must cover every token
        ranges = [(0, n_tokens)] if n_tokens else []
    for i, j in ranges:
        if j - i > max_len:
            if cur_j > cur_i:
                out.append((cur_i, cur_j))
            out.extend((k, min(j, k + max_len)) for k in range(i, j, max_len))
            cur_i = cur_j = j
        elif cur_j > cur_i and j - cur_i > max_len:
            out.append((cur_i, cur_j))
            cur_i, cur_j = i, j
        else:
            if cur_j == cur_i:
                cur_i = i
            cur_j = j
    if cur_j > cur_i:
        out.append((cur_i, cur_j))
    return out


@dataclass(slots=True)
class _Seq:
    words: list[int]
    casings: list[int]
    chars: list[tuple[int, ...]]
    tags: list[int] | None
    rules: list[int] | None = None


def _span_prf(gold: Iterable[set[tuple[int, int, str]]], pred: Iterable[set[tuple[int, int, str]]]
              ) -> tuple[float, float, float]:
    tp = fp = fn = 0
    for g, p in zip(gold, pred, strict=True):
        hit = len(g & p)
        tp += hit
        fp += len(p) - hit
        fn += len(g) - hit
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    return prec, rec, (2 * prec * rec / (prec + rec) if prec + rec else 0.0)


class BiLSTMCRFDetector(BaseDetector):
    """A BiLSTM-CRF tagger over clinanon tokens (see the module docstring).

    ``vectors``: a word-vectors file (word2vec/fastText text format or GloVe; :mod:`.embeddings`), read at
    :meth:`fit` (its vectors are saved inside the model); ``None``: embeddings of ``word_dim`` learned from the
    training notes. ``train_embeddings`` (default: only without vectors) fine-tunes them, at ``embeddings_lr``
    when given (e.g. a tenth of ``lr``: pretrained vectors move slowly on few notes). ``max_vectors``: read at
    most this many vectors. Architecture: ``hidden`` units per direction, ``layers``, ``char_cnn`` (``char_dim``,
    ``char_filters``, ``char_width``). Training: ``lr`` (NAdam), ``batch_size`` sequences, ``max_epochs``,
    ``patience`` (epochs without a better dev F1), ``max_seconds``, ``clip`` (gradient norm), dropouts,
    ``min_batches`` (an epoch is at least this many batches: a small training set is cycled, reshuffled on each
    pass, so that with 25 notes an epoch still means enough updates for early stopping to judge; 0 = one pass),
    ``word_dropout`` (a training word replaced by the unknown word, so the model also learns to tag words it has
    no vector for), ``max_len`` tokens per sequence, ``seed``. ``device``: ``"auto"``, ``"cpu"`` or ``"cuda"``.
    ``canonical``: predict canonical categories (needs ``label_scheme``). ``rule_features``: add the rule
    detector's B/I label of each token to the input (values seen in training; saved with the model).
    """

    name = "bilstm_crf"
    overlapping: ClassVar[bool] = False

    def __init__(
        self,
        lang: str = "es",
        *,
        label_scheme: str | None = None,
        canonical: bool = False,
        tagging: str = "BIO",
        seed: int = 0,
        vectors: str | Path | None = None,
        max_vectors: int | None = None,
        word_dim: int = 100,
        train_embeddings: bool | None = None,
        embeddings_lr: float | None = None,
        char_cnn: bool = True,
        char_dim: int = 25,
        char_filters: int = 50,
        char_width: int = 3,
        max_word_len: int = 20,
        hidden: int = 128,
        layers: int = 2,
        dropout_input: float = 0.1,
        dropout_lstm: float = 0.25,
        dropout_output: float = 0.5,
        word_dropout: float = 0.05,
        lr: float = 0.002,
        batch_size: int = 32,
        max_epochs: int = 30,
        patience: int = 4,
        max_seconds: float | None = None,
        clip: float = 1.0,
        max_len: int = 100,
        min_batches: int = 0,
        score: ScoreMode = "mean",
        device: str = "auto",
        infer_batch_size: int = 64,
        rule_features: bool = False,
    ) -> None:
        require_torch("the BiLSTM-CRF detector")
        self.lang = check_language(lang)
        tagging = tagging.upper()
        if tagging not in ("BIO", "BIOES"):
            raise ConfigError(f"tagging must be 'BIO' or 'BIOES', not {tagging!r}")
        if score not in ("mean", "min"):
            raise ConfigError(f"score must be 'mean' or 'min', not {score!r}")
        for nm, v in (("word_dim", word_dim), ("hidden", hidden), ("layers", layers), ("batch_size", batch_size),
                      ("max_epochs", max_epochs), ("max_len", max_len), ("char_dim", char_dim),
                      ("char_filters", char_filters), ("char_width", char_width), ("max_word_len", max_word_len),
                      ("infer_batch_size", infer_batch_size)):
            if int(v) < 1:
                raise ConfigError(f"{nm} must be >= 1")
        for nm, f in (("dropout_input", dropout_input), ("dropout_lstm", dropout_lstm),
                      ("dropout_output", dropout_output), ("word_dropout", word_dropout)):
            if not 0.0 <= f < 1.0:
                raise ConfigError(f"{nm} must be in [0, 1)")
        if embeddings_lr is not None and embeddings_lr <= 0:
            raise ConfigError("embeddings_lr must be > 0")
        if patience < 0 or lr <= 0 or clip < 0 or min_batches < 0:
            raise ConfigError("patience, clip and min_batches must be >= 0 and lr > 0")
        self.label_scheme = label_scheme
        self.canonical = bool(canonical)
        self.tagging = tagging
        self.seed = int(seed)
        self.vectors = str(vectors) if vectors is not None else None
        self.max_vectors = max_vectors
        self.word_dim = int(word_dim)
        self.train_embeddings = train_embeddings
        self.embeddings_lr = float(embeddings_lr) if embeddings_lr is not None else None
        self.char_cnn = bool(char_cnn)
        self.char_dim, self.char_filters, self.char_width = int(char_dim), int(char_filters), int(char_width)
        self.max_word_len = int(max_word_len)
        self.hidden, self.layers = int(hidden), int(layers)
        self.dropout_input, self.dropout_lstm = float(dropout_input), float(dropout_lstm)
        self.dropout_output, self.word_dropout = float(dropout_output), float(word_dropout)
        self.lr, self.batch_size, self.max_epochs = float(lr), int(batch_size), int(max_epochs)
        self.patience, self.max_seconds, self.clip = int(patience), max_seconds, float(clip)
        self.max_len = int(max_len)
        self.min_batches = int(min_batches)
        self.score = score
        self.device = device
        self.infer_batch_size = int(infer_batch_size)
        self.rule_features = bool(rule_features)
        #: the rule-feature values seen in training (index 0: none / unseen); empty without ``rule_features``
        self.rule_tags_: list[str] = []
        self._rule_index: dict[str, int] = {}
        self._rules: Any = None
        self._rule_extractor: Any = None
        self._category: Callable[[str], str] | None = None
        if self.canonical:
            if label_scheme is None:
                raise ConfigError("canonical=True needs a label_scheme to map native labels to categories")
            from clinanon.taxonomy import get_scheme

            self._category = get_scheme(label_scheme).category
        self.vocab: Vocab | None = None
        self.net: Any = None
        self.labels_: list[str] = []
        self.training_report_: TrainingReport | None = None
        self.meta_: dict[str, Any] | None = None
        self._device: Any = None
        self._feat_cache: dict[str, tuple[int, int, tuple[int, ...]]] = {}

    def __repr__(self) -> str:
        state = f"labels={len(self.labels_)}" if self.net is not None else "unfitted"
        return (f"BiLSTMCRFDetector(lang={self.lang!r}, hidden={self.hidden}, layers={self.layers}, "
                f"char_cnn={self.char_cnn}, rule_features={self.rule_features}, {state})")

    def get_params(self) -> dict[str, Any]:
        """The constructor arguments (JSON-safe)."""
        return {"lang": self.lang, "label_scheme": self.label_scheme, "canonical": self.canonical,
                "tagging": self.tagging, "seed": self.seed, "vectors": self.vectors, "max_vectors": self.max_vectors,
                "word_dim": self.word_dim, "train_embeddings": self.train_embeddings,
                "embeddings_lr": self.embeddings_lr, "char_cnn": self.char_cnn,
                "char_dim": self.char_dim, "char_filters": self.char_filters, "char_width": self.char_width,
                "max_word_len": self.max_word_len, "hidden": self.hidden, "layers": self.layers,
                "dropout_input": self.dropout_input, "dropout_lstm": self.dropout_lstm,
                "dropout_output": self.dropout_output, "word_dropout": self.word_dropout, "lr": self.lr,
                "batch_size": self.batch_size, "max_epochs": self.max_epochs, "patience": self.patience,
                "max_seconds": self.max_seconds, "clip": self.clip, "max_len": self.max_len,
                "min_batches": self.min_batches, "score": self.score,
                "device": self.device, "infer_batch_size": self.infer_batch_size,
                "rule_features": self.rule_features}

    @property
    def fitted(self) -> bool:
        return self.net is not None

    # --- sequences ------------------------------------------------------------------------------------------
    def _features(self, word: str) -> tuple[int, int, tuple[int, ...]]:
        f = self._feat_cache.get(word)
        if f is None:
            assert self.vocab is not None
            f = (self.vocab.word_ids((word,))[0], casing(word), tuple(self.vocab.char_ids(word, self.max_word_len)))
            if len(self._feat_cache) < 200_000:
                self._feat_cache[word] = f
        return f

    def _rule_spans(self, text: str, lang: str) -> list[Span]:
        """The rules detector's raw candidates on ``text`` (what the CRF's rule features are read from)."""
        if self._rules is None:
            from clinanon.detect.rules.detector import RulesDetector

            self._rules = RulesDetector(self.lang)
        return self._rules.analyze(text, lang)

    def _rule_values(self, text: str, table: Any, rule_spans: Sequence[Span]) -> list[str]:
        """Per token, the rule feature the CRF gets (``B-<label>`` / ``I-<label>``, its first ``R=`` feature), or
        ``""``. Computed by the CRF's own feature function, on these tokens."""
        if self._rule_extractor is None:
            from clinanon.detect.features import FeatureExtractor

            self._rule_extractor = FeatureExtractor(self.lang, rules=True)
        ctx: list[list[str]] = [[] for _ in table.words]
        if rule_spans:
            self._rule_extractor.rule_features(text, table.tokens, table.words, rule_spans, ctx)
        return [next((f[2:] for f in c if f.startswith("R=")), "") for c in ctx]

    def _rule_ids(self, text: str, table: Any, rule_spans: Sequence[Span]) -> list[int]:
        index = self._rule_index
        return [index.get(v, 0) if v else 0 for v in self._rule_values(text, table, rule_spans)]

    def _set_rule_tags(self, tags: Sequence[str]) -> None:
        self.rule_tags_ = list(tags)
        self._rule_index = {t: k for k, t in enumerate(self.rule_tags_) if k}

    def _sequences(self, text: str, table: Any, lang: str, sentences: Sequence[Any] | None = None,
                   tags: Sequence[str] | None = None, rule_ids: Sequence[int] | None = None
                   ) -> tuple[list[tuple[int, int]], list[_Seq]]:
        starts, words = table.starts, table.words
        if not words:
            return [], []
        if sentences is None:
            sentences = split_sentences(text, lang, tokens=table.tokens)
        ranges = chunk_ranges(starts, sentences, len(words), self.max_len)
        feats = [self._features(w) for w in words]
        tag_ids = self.vocab.tag_ids(tags) if tags is not None else None  # type: ignore[union-attr]
        seqs = []
        for i, j in ranges:
            part = feats[i:j]
            seqs.append(_Seq([f[0] for f in part], [f[1] for f in part], [f[2] for f in part],
                             tag_ids[i:j] if tag_ids is not None else None,
                             list(rule_ids[i:j]) if rule_ids is not None else None))
        return ranges, seqs

    def _batch(self, seqs: Sequence[_Seq], *, train: bool = False, rng: random.Random | None = None) -> Any:
        torch = require_torch()
        from clinanon.detect.neural._bilstm_net import Batch

        n = len(seqs)
        length = max(len(s.words) for s in seqs)
        words = torch.zeros(n, length, dtype=torch.long)
        cas = torch.zeros(n, length, dtype=torch.long)
        lengths = torch.tensor([len(s.words) for s in seqs], dtype=torch.long)
        for k, s in enumerate(seqs):
            w = s.words
            if train and self.word_dropout > 0 and rng is not None:
                w = [1 if rng.random() < self.word_dropout else x for x in w]
            words[k, :len(w)] = torch.tensor(w, dtype=torch.long)
            cas[k, :len(w)] = torch.tensor(s.casings, dtype=torch.long)
        chars = char_index = None
        if self.char_cnn:  # the character CNN runs once per distinct word of the batch
            uniq: dict[tuple[int, ...], int] = {(): 0}
            char_index = torch.zeros(n, length, dtype=torch.long)
            for k, s in enumerate(seqs):
                ids = []
                for c in s.chars:
                    u = uniq.get(c)
                    if u is None:
                        u = uniq[c] = len(uniq)
                    ids.append(u)
                char_index[k, :len(ids)] = torch.tensor(ids, dtype=torch.long)
            width = max(self.char_width, max(map(len, uniq)))
            chars = torch.tensor([[*c, *([0] * (width - len(c)))] for c in uniq], dtype=torch.long)
        tags = None
        if seqs[0].tags is not None:
            tags = torch.zeros(n, length, dtype=torch.long)
            for k, s in enumerate(seqs):
                tags[k, :len(s.tags)] = torch.tensor(s.tags, dtype=torch.long)  # type: ignore[arg-type]
        rules = None
        if self.rule_features:
            rules = torch.zeros(n, length, dtype=torch.long)
            for k, s in enumerate(seqs):
                if s.rules:
                    rules[k, :len(s.rules)] = torch.tensor(s.rules, dtype=torch.long)
        return Batch(words, cas, chars, char_index, tags, lengths, rules)

    # --- training -------------------------------------------------------------------------------------------
    def _check_labels(self, docs: Sequence[Document]) -> None:
        if self.label_scheme is None:
            return
        from clinanon.taxonomy import get_scheme

        scheme = get_scheme(self.label_scheme)
        unknown = sorted({s.label for d in docs for s in d.spans if s.label not in scheme})
        if unknown:
            raise ConfigError(f"gold labels not in the label scheme {self.label_scheme!r}: {', '.join(unknown)}")

    def fit(self, docs: Iterable[Document], dev: Iterable[Document] | None = None, *,
            callback: Callable[[EpochInfo], None] | None = None) -> BiLSTMCRFDetector:
        """Train on the gold spans of ``docs``; returns ``self``. ``dev``: notes tagged after every epoch (the best
        epoch's weights are kept: early stopping); ``callback`` gets an :class:`EpochInfo` per epoch."""
        torch = require_torch("the BiLSTM-CRF detector")
        from clinanon.detect.neural._bilstm_net import BiLSTMCRFNet

        docs = list(docs)
        dev_docs = list(dev) if dev is not None else []
        self._check_labels(docs)
        seed_everything(self.seed)
        rng = random.Random(self.seed)
        device = choose_device(self.device)
        report = TrainingReport(device=str(device))
        t_start = time.perf_counter()

        # tokens and tags
        encoded = []
        labels: Counter[str] = Counter()
        for doc in docs:
            table = token_table(doc.text)
            tokens = table.tokens
            enc = encode_bio(tokens, doc.spans, self.tagging)
            report.documents += 1
            report.tokens += len(tokens)
            report.chars += len(doc.text)
            report.gold_spans += len(doc.spans)
            labels.update(s.label for s in doc.spans)
            for s in enc.misaligned:
                i, j, _ = span_token_range(table.starts, table.ends, s.start, s.end)
                report.misaligned.append({"doc_id": doc.id, "start": s.start, "end": s.end, "label": s.label,
                                          "reason": "misaligned" if j > i else "no_token"})
            for s in enc.overlapping:
                report.overlapping.append({"doc_id": doc.id, "start": s.start, "end": s.end, "label": s.label})
            rule_vals = (self._rule_values(doc.text, table, self._rule_spans(doc.text, self.lang))
                         if self.rule_features else None)
            encoded.append((doc, table, enc.tags, rule_vals))
        if report.tokens == 0:
            raise ConfigError("no training document has a token")
        self._set_rule_tags(["", *sorted({v for *_, rv in encoded for v in (rv or ()) if v})]
                            if self.rule_features else [])
        report.labels = dict(sorted(labels.items()))

        # vocabulary and embeddings
        pretrained = None
        vec_words: list[str] = []
        if self.vectors is not None:
            from clinanon.detect.neural.embeddings import load_vectors

            vec_words, matrix = load_vectors(self.vectors, limit=self.max_vectors)
            word_dim = int(matrix.shape[1])
        else:
            word_dim = self.word_dim
        self.word_dim = word_dim
        vocab = Vocab.build((t.words for _, t, _, _ in encoded), (tags for _, _, tags, _ in encoded),
                            extra_words=vec_words)
        self.vocab = vocab
        self._feat_cache = {}
        if self.vectors is not None:
            import numpy as np

            gen = np.random.default_rng(self.seed)
            scale = float(matrix.std()) or 0.1
            pretrained = gen.normal(0.0, scale, size=(len(vocab.words), word_dim)).astype(np.float32)
            pretrained[0] = 0.0
            pretrained[1] = 0.0
            index = vocab.word_index()
            for w, row in zip(vec_words, matrix, strict=True):
                k = index.get(w)
                if k is not None:
                    pretrained[k] = row
            report.vectors_words = len(vec_words)
        report.vocab_words = len(vocab.words)
        train_emb = self.train_embeddings if self.train_embeddings is not None else self.vectors is None
        self.net = BiLSTMCRFNet(
            num_words=len(vocab.words), word_dim=word_dim, num_chars=len(vocab.chars), tags=vocab.tags,
            hidden=self.hidden, layers=self.layers, char_cnn=self.char_cnn, char_dim=self.char_dim,
            char_filters=self.char_filters, char_width=self.char_width, dropout_input=self.dropout_input,
            dropout_lstm=self.dropout_lstm, dropout_output=self.dropout_output, train_embeddings=train_emb,
            pretrained=pretrained, num_rule_tags=len(self.rule_tags_)).to(device)
        self._device = device
        self.labels_ = sorted({t[2:] for t in vocab.tags if t != "O"})
        report.parameters = sum(p.numel() for p in self.net.parameters() if p.requires_grad)

        seqs: list[_Seq] = []
        for doc, table, tags, rule_vals in encoded:
            rule_ids = [self._rule_index.get(v, 0) for v in rule_vals] if rule_vals is not None else None
            seqs.extend(self._sequences(doc.text, table, self.lang, tags=tags, rule_ids=rule_ids)[1])
        report.sequences = len(seqs)
        dev_gold = [{(s.start, s.end, s.label) for s in d.spans} for d in dev_docs]
        # the dev notes are tagged every epoch: their analyses (tokens, sentences) and rule spans once per fit
        dev_analyses = [self.analysis(d) for d in dev_docs]
        dev_rules = ([self._rule_spans(a.text, a.lang) for a in dev_analyses] if self.rule_features and dev_docs
                     else None)
        params = [p for p in self.net.parameters() if p.requires_grad]
        emb = self.net.word_embed.weight
        if self.embeddings_lr is not None and emb.requires_grad:  # the embedding table at its own learning rate
            opt = torch.optim.NAdam([{"params": [p for p in params if p is not emb]},
                                     {"params": [emb], "lr": self.embeddings_lr}], lr=self.lr)
        else:
            opt = torch.optim.NAdam(params, lr=self.lr)
        best_state: dict[str, Any] | None = None
        best_f1 = -1.0
        bad = 0
        report.stopped = "max_epochs"
        for epoch in range(1, self.max_epochs + 1):
            t0 = time.perf_counter()
            self.net.train()
            batches: list[list[int]] = []
            while True:  # one pass over the data; cycled (reshuffled) until there are min_batches
                order = list(range(len(seqs)))
                rng.shuffle(order)
                order.sort(key=lambda k: len(seqs[k].words) // 4)  # length buckets, shuffled inside each
                batches.extend(order[k:k + self.batch_size] for k in range(0, len(order), self.batch_size))
                if not seqs or len(batches) >= self.min_batches:
                    break
            rng.shuffle(batches)
            total = 0.0
            for idx in batches:
                batch = self._batch([seqs[k] for k in idx], train=True, rng=rng).to(device)
                loss = self.net.loss(batch) / len(idx)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                if self.clip > 0:
                    torch.nn.utils.clip_grad_norm_(params, self.clip)
                opt.step()
                report.updates += 1
                total += float(loss.detach()) * len(idx)
            info = EpochInfo(epoch, self.max_epochs, total / max(1, len(seqs)), time.perf_counter() - t0)
            if dev_docs:
                pred = self._pipe(dev_analyses, dev_rules)
                p, r, f = _span_prf(dev_gold, ({(s.start, s.end, s.label) for s in spans} for spans in pred))
                if f > best_f1:
                    best_f1, bad = f, 0
                    best_state = copy.deepcopy(self.net.state_dict())
                    report.best_epoch = epoch
                else:
                    bad += 1
                info = EpochInfo(epoch, self.max_epochs, info.loss, time.perf_counter() - t0, p, r, f,
                                 report.best_epoch)
            report.epochs.append(info)
            if callback is not None:
                callback(info)
            if dev_docs and bad >= self.patience > 0:
                report.stopped = "patience"
                break
            if self.max_seconds is not None and time.perf_counter() - t_start >= self.max_seconds:
                report.stopped = "max_seconds"
                break
        if best_state is not None:
            self.net.load_state_dict(best_state)
            report.best_dev_f1 = round(best_f1, 4)
        self.net.eval()
        report.train_seconds = time.perf_counter() - t_start
        self.training_report_ = report
        return self

    # --- prediction -----------------------------------------------------------------------------------------
    def _net_or_raise(self) -> Any:
        if self.net is None or self.vocab is None:
            raise ConfigError("the BiLSTM-CRF detector is not fitted: call fit() or BiLSTMCRFDetector.load()")
        return self.net

    def detect(self, analysis: Analysis | Document) -> list[Span]:
        """Spans with native labels (canonical categories with ``canonical``), ``source="bilstm_crf"``, sorted."""
        return self.pipe([self.analysis(analysis)])[0]

    def pipe(self, analyses: Sequence[Analysis]) -> list[list[Span]]:
        """The spans of each note; the notes' sequences are batched together, sorted by length.

        With ``rule_features``, the rules' spans come from ``analysis.candidates["rules"]`` when the rules ran
        before this detector on the note (they must be ``RulesDetector(lang)``'s raw candidates, as for the CRF),
        else the rules run here, once per note."""
        return self._pipe(analyses)

    def _pipe(self, analyses: Sequence[Analysis], rule_spans: Sequence[Sequence[Span]] | None = None
              ) -> list[list[Span]]:
        torch = require_torch()
        net = self._net_or_raise()
        device = self._device if self._device is not None else choose_device(self.device)
        items: list[tuple[int, int, int, _Seq]] = []  # (note, first token, last token + 1, sequence)
        tables = []
        for n, a in enumerate(analyses):
            table = a.tokens
            tables.append(table)
            if not table.words:
                continue
            cached = a.__dict__.get("sentences")  # Analysis.sentences, when a detector before this one asked
            rule_ids = None
            if self.rule_features:
                spans = rule_spans[n] if rule_spans is not None else a.candidates.get("rules")
                if spans is None:
                    spans = self._rule_spans(a.text, a.lang)
                rule_ids = self._rule_ids(a.text, table, spans)
            ranges, seqs = self._sequences(a.text, table, a.lang, sentences=cached, rule_ids=rule_ids)
            items.extend((n, i, j, s) for (i, j), s in zip(ranges, seqs, strict=True))
        tags_of: list[list[str]] = [["O"] * len(t.words) for t in tables]
        probs_of: list[list[float]] = [[0.0] * len(t.words) for t in tables]
        order = sorted(range(len(items)), key=lambda k: len(items[k][3].words))
        vocab_tags = self.vocab.tags  # type: ignore[union-attr]
        was_training = net.training
        net.eval()
        with torch.inference_mode():
            for b in range(0, len(order), self.infer_batch_size):
                chunk = [items[k] for k in order[b:b + self.infer_batch_size]]
                batch = self._batch([it[3] for it in chunk]).to(device)
                em = net.emissions(batch)
                paths = net.crf.viterbi(em, batch.mask)
                marg = net.crf.marginals(em, batch.mask).cpu()
                for (n, i, _, _), path, m in zip(chunk, paths, marg, strict=True):
                    picked = m[torch.arange(len(path)), torch.tensor(path)].tolist()
                    tags_of[n][i:i + len(path)] = [vocab_tags[t] for t in path]
                    probs_of[n][i:i + len(path)] = picked
        if was_training:
            net.train()
        out = []
        for table, tags, probs in zip(tables, tags_of, probs_of, strict=True):
            out.append(self._spans(table, tags, probs))
        return out

    def _spans(self, table: Any, tags: list[str], probs: list[float]) -> list[Span]:
        if not tags or all(t == "O" for t in tags):
            return []
        spans = decode_bio(table.tokens, tags, repair=True, source=self.name)
        starts = table.starts
        out = []
        for s in spans:
            i = bisect_left(starts, s.start)
            j = bisect_left(starts, s.end, lo=i)
            ps = probs[i:j] or [0.0]
            p = min(ps) if self.score == "min" else sum(ps) / len(ps)
            label = self._category(s.label) if self._category is not None else s.label
            out.append(Span(s.start, s.end, label, self.name, round(min(1.0, max(0.0, p)), 4)))
        return out

    def analyze(self, text: str) -> list[Span]:
        """:meth:`detect` on a bare text (in the detector's language)."""
        return self.detect(Document("text", text, (), {"lang": self.lang}))

    def predict(self, docs: Iterable[Document], batch_docs: int = 32) -> list[Document]:
        """Each document with its spans replaced by the predictions (notes batched ``batch_docs`` at a time)."""
        docs = list(docs)
        out: list[Document] = []
        for k in range(0, len(docs), batch_docs):
            part = docs[k:k + batch_docs]
            for d, spans in zip(part, self.pipe([self.analysis(d) for d in part]), strict=True):
                out.append(d.with_spans(spans))
        return out

    # --- persistence ----------------------------------------------------------------------------------------
    def meta(self) -> dict[str, Any]:
        """What ``save`` writes to ``meta.json`` (before the caller's extra keys)."""
        from clinanon import __version__

        self._net_or_raise()
        return {"detector": self.name, "format": FORMAT, "clinanon_version": __version__,
                "params": self.get_params(), "labels": list(self.labels_),
                "tags": list(self.vocab.tags), "model_file": MODEL_FILE,  # type: ignore[union-attr]
                "vocab_file": VOCAB_FILE, "word_dim": self.word_dim, "rule_tags": list(self.rule_tags_),
                "torch_version": require_torch().__version__}

    def save(self, path: str | Path, meta: Mapping[str, Any] | None = None) -> Path:
        """Write the model directory ``path`` (``model.pt`` + ``vocab.json`` + ``meta.json``; ``meta`` adds keys).
        Each file is written to a temporary name and renamed."""
        from clinanon.io import atomic_write_text

        torch = require_torch()
        net = self._net_or_raise()
        out = Path(path)
        out.mkdir(parents=True, exist_ok=True)
        data = {**self.meta(), **(dict(meta) if meta else {})}
        buf = io.BytesIO()
        torch.save({k: v.detach().cpu() for k, v in net.state_dict().items()}, buf)
        model_dir.write_bytes(out / MODEL_FILE, buf.getvalue())
        atomic_write_text(out / VOCAB_FILE, json.dumps(self.vocab.to_dict(), ensure_ascii=False))  # type: ignore
        model_dir.write_meta(out, data)
        model_dir.share(out, (MODEL_FILE, VOCAB_FILE, META_FILE))
        return out

    def _restore(self, vocab: Vocab, state: Mapping[str, Any], word_dim: int,
                 rule_tags: Sequence[str] = ()) -> None:
        from clinanon.detect.neural._bilstm_net import BiLSTMCRFNet

        if self.rule_features and not rule_tags:
            raise ValueError("rule_features without rule_tags")
        self._set_rule_tags(rule_tags if self.rule_features else [])
        self.vocab = vocab
        self.word_dim = word_dim
        self._feat_cache = {}
        device = choose_device(self.device)
        net = BiLSTMCRFNet(
            num_words=len(vocab.words), word_dim=word_dim, num_chars=len(vocab.chars), tags=vocab.tags,
            hidden=self.hidden, layers=self.layers, char_cnn=self.char_cnn, char_dim=self.char_dim,
            char_filters=self.char_filters, char_width=self.char_width, dropout_input=self.dropout_input,
            dropout_lstm=self.dropout_lstm, dropout_output=self.dropout_output, train_embeddings=False,
            num_rule_tags=len(self.rule_tags_))
        net.load_state_dict(state)
        net.eval()
        self.net = net.to(device)
        self._device = device
        self.labels_ = sorted({t[2:] for t in vocab.tags if t != "O"})

    @classmethod
    def load(cls, path: str | Path, *, canonical: bool | None = None, device: str | None = None
             ) -> BiLSTMCRFDetector:
        """A detector from a directory written by :meth:`save` (or ``clinanon train``); ``canonical`` and
        ``device`` override the saved settings. :class:`InputError` names the file that is missing or wrong."""
        torch = require_torch("the BiLSTM-CRF detector")
        p = Path(path)
        meta = model_dir.read_meta(p, cls.name, version=FORMAT, hint=": retrain it")
        det = model_dir.build(cls, meta, p, canonical=canonical, device=device)
        vocab_path = p / str(meta.get("vocab_file", VOCAB_FILE))
        try:
            vocab = Vocab.from_dict(json.loads(vocab_path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as e:
            raise InputError(f"cannot read the vocabulary ({type(e).__name__})", path=vocab_path) from None
        model_path = p / str(meta.get("model_file", MODEL_FILE))
        try:
            state = torch.load(model_path, map_location="cpu", weights_only=True)
            det._restore(vocab, state, int(meta.get("word_dim") or det.word_dim), meta.get("rule_tags") or ())
        except (OSError, RuntimeError, KeyError, ValueError, TypeError) as e:
            raise InputError(f"cannot read the model weights ({type(e).__name__})", path=model_path) from None
        det.meta_ = meta
        return det

    def __getstate__(self) -> dict[str, Any]:
        state = None
        if self.net is not None:
            state = {k: v.detach().cpu() for k, v in self.net.state_dict().items()}
        return {"params": self.get_params(), "vocab": self.vocab.to_dict() if self.vocab is not None else None,
                "state": state, "word_dim": self.word_dim, "rule_tags": list(self.rule_tags_),
                "report": self.training_report_, "meta": self.meta_}

    def __setstate__(self, st: dict[str, Any]) -> None:
        self.__init__(**st["params"])  # type: ignore[misc]
        if st.get("state") is not None and st.get("vocab") is not None:
            self._restore(Vocab.from_dict(st["vocab"]), st["state"], int(st["word_dim"]), st.get("rule_tags") or ())
        self.training_report_ = st.get("report")
        self.meta_ = st.get("meta")
