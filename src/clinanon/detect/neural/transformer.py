"""Token classification with any local Hugging Face checkpoint (``AutoModelForTokenClassification``).

>>> det = TransformerDetector("en", base_model="path/to/checkpoint", epochs=3)      # doctest: +SKIP
>>> det.fit(train_docs, dev_docs)                                                 # doctest: +SKIP
>>> det.detect(doc)        # [Span(start, end, "Date", "transformer", 0.99), ...] # doctest: +SKIP
>>> det.save("models/minilm-deid"); TransformerDetector.load("models/minilm-deid")  # doctest: +SKIP

* **Words are clinanon's tokens** (:func:`clinanon.text.token_table`): gold spans become BIO tags on them
  (:func:`clinanon.bio.encode_bio`, misaligned spans reported, never dropped silently), each word is split into
  sub-words by the checkpoint's (fast) tokenizer as a pre-tokenized sequence, and the tag of a word is read at its
  **first sub-word** (the others are ignored in the loss). Predicted tags go back to words, words to character
  offsets on the original text: accents, CRLF and the tokenizer's normalisation never move an offset. A word the
  tokenizer turns into nothing (a lone control character) continues the entity around it, or is ``O``.
* **Long notes**: sliding windows of at most ``max_length`` sub-words (special tokens included), cut at word
  boundaries, overlapping by ``stride`` sub-words; a word's tag comes from the window in which it lies farthest
  from an edge. The same windows are used to train.
* **BIO repair**: ill-formed sequences (``O I-X``) are read as :func:`clinanon.bio.repair_bio` does; with
  ``crf=True`` a linear-chain CRF over the words of each window (a transition matrix learned with the network;
  Viterbi decoding at inference) replaces the per-word argmax.
* **Training**: AdamW, a linear warm-up (``warmup`` of the steps) then linear decay, gradient clipping, early
  stopping on the dev span F1 (``patience`` epochs; the best epoch's weights are kept), optional class weighting
  (``class_weights="balanced"``: inverse square-root tag frequencies), everything seeded. ``callback`` gets a
  :class:`StepInfo` per step and per finished epoch (with dev scores), which ``clinanon train`` shows in its
  progress bar. The device is CUDA when present (``device="auto"``), else the CPU.
* **Persistence**: a model directory with ``meta.json`` (``detector = "transformer"``, parameters, labels, tags)
  and ``hf/`` (the fine-tuned checkpoint and its tokenizer, ``save_pretrained``); loads from local folders only.
  :mod:`clinanon.detect.neural.onnx_export` exports it to ONNX (and int8) and runs it with onnxruntime.

PyTorch and transformers are the optional ``neural`` extra: importing this module needs neither; building or
loading a detector without them raises :class:`~clinanon.errors.ConfigError` naming the extra. No log line or
error holds note text.
"""

from __future__ import annotations

import copy
import importlib
import math
import random
import time
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from clinanon.analysis import Analysis
from clinanon.bio import decode_bio, encode_bio
from clinanon.detect import model_dir
from clinanon.detect.base import BaseDetector, GoldDataReport
from clinanon.document import Document, Span
from clinanon.errors import ConfigError, InputError
from clinanon.lang import check_language
from clinanon.text import TokenTable, token_table

__all__ = ["HF_DIR", "META_FILE", "EpochInfo", "StepInfo", "SubwordWindows", "TrainingReport",
           "TransformerDetector", "require"]

META_FILE = model_dir.META_FILE
#: the fine-tuned checkpoint (model + tokenizer) inside a model directory
HF_DIR = "hf"
EXTRA = "neural"
FORMAT = 1


def _torch() -> Any:
    from clinanon.detect.neural._torch import require_torch

    return require_torch("the transformer detector")


def require(module: str) -> Any:
    """``importlib.import_module(module)``, or a :class:`ConfigError` naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ConfigError(f"the transformer detector needs {module.split('.')[0]!r}: install the {EXTRA!r} extra "
                          f"(pip install 'clinanon[{EXTRA}]'; torch is pinned to the CPU wheel)") from None


def load_tokenizer(path: str | Path) -> Any:
    """The fast tokenizer of a local checkpoint folder (never the hub)."""
    transformers = require("transformers")
    p = Path(path)
    if not p.is_dir():
        raise InputError("no such checkpoint folder (a local Hugging Face checkpoint is expected)", path=p)
    try:
        tok = transformers.AutoTokenizer.from_pretrained(str(p), local_files_only=True)
        if getattr(tok, "add_prefix_space", None) is False:  # byte-level BPE (RoBERTa) needs it for word input
            tok = transformers.AutoTokenizer.from_pretrained(str(p), local_files_only=True, add_prefix_space=True)
    except (OSError, ValueError) as e:
        raise InputError(f"cannot load the tokenizer ({type(e).__name__})", path=p) from None
    if not getattr(tok, "is_fast", False):
        raise InputError("the checkpoint has no fast tokenizer (tokenizer.json): word alignment needs one", path=p)
    return tok


# --- sub-words and windows (no torch) ---------------------------------------------------------------------------

def special_tokens(tokenizer: Any) -> tuple[list[int], list[int]]:
    """The ids the tokenizer puts before and after one sequence (``[CLS]`` / ``[SEP]``, ``<s>`` / ``</s>``)."""
    body = list(tokenizer("a", add_special_tokens=False)["input_ids"])
    full = list(tokenizer("a", add_special_tokens=True)["input_ids"])
    for i in range(len(full) - len(body) + 1):
        if full[i:i + len(body)] == body:
            return full[:i], full[i + len(body):]
    raise ConfigError("cannot tell where the tokenizer puts its special tokens")


@dataclass(frozen=True, slots=True)
class Window:
    """One model input: the words ``[first, last)`` of document ``doc``; ``ids`` with the special tokens;
    ``positions[k]`` the index in ``ids`` of the first sub-word of word ``words[k]``."""

    doc: int
    first: int
    last: int
    ids: list[int]
    words: list[int]
    positions: list[int]


class SubwordWindows:
    """Splits documents' words into sub-words and windows (see the module docstring); shared by the PyTorch and
    the onnxruntime detectors so that both see exactly the same inputs."""

    def __init__(self, tokenizer: Any, max_length: int = 256, stride: int = 64) -> None:
        self.tokenizer = tokenizer
        self.prefix, self.suffix = special_tokens(tokenizer)
        self.n_special = len(self.prefix) + len(self.suffix)
        self.offset = len(self.prefix)
        self.width = max_length - self.n_special
        if self.width < 2:
            raise ConfigError(f"max_length {max_length} leaves no room for sub-words")
        if not 0 <= stride < self.width:
            raise ConfigError(f"stride must be between 0 and {self.width - 1} (max_length minus special tokens)")
        self.max_length = max_length
        self.stride = stride
        pad = tokenizer.pad_token_id
        self.pad_id = int(pad) if pad is not None else 0

    def subwords(self, words: Sequence[str]) -> tuple[list[int], list[int], list[int]]:
        """The sub-word ids of ``words`` and, per word, the index of its first sub-word and one past its last
        (equal when the tokenizer produced nothing for it)."""
        n = len(words)
        if n == 0:
            return [], [], []
        enc = self.tokenizer(list(words), is_split_into_words=True, add_special_tokens=False, verbose=False)
        ids = list(enc["input_ids"])
        starts = [-1] * n
        ends = [0] * n
        for k, w in enumerate(enc.word_ids()):
            if w is None:
                continue
            if starts[w] < 0:
                starts[w] = k
            ends[w] = k + 1
        nxt = len(ids)  # empty words: a zero-width range where the next word starts
        for w in range(n - 1, -1, -1):
            if starts[w] < 0:
                starts[w] = ends[w] = nxt
            else:
                nxt = starts[w]
        return ids, starts, ends

    def windows(self, doc: int, words: Sequence[str]) -> list[Window]:
        """The windows of one document's words (``doc``: its index in the batch)."""
        ids, sub_start, sub_end = self.subwords(words)
        n = len(words)
        out: list[Window] = []
        width, step = self.width, max(1, self.width - self.stride)
        a = 0
        while a < n:
            s0 = sub_start[a]
            b = max(a + 1, bisect_right(sub_end, s0 + width, lo=a))
            limit = min(s0 + width, sub_end[b - 1])
            body = ids[s0:limit]
            built = self.prefix + body + self.suffix
            ws, ps = [], []
            for w in range(a, b):
                if sub_end[w] > sub_start[w] and sub_start[w] < limit:
                    ws.append(w)
                    ps.append(self.offset + sub_start[w] - s0)
            out.append(Window(doc, a, b, built, ws, ps))
            if b >= n:
                break
            na = bisect_left(sub_start, s0 + step, lo=a + 1)
            a = min(max(na, a + 1), b)
        return out


def pad_batch(windows: Sequence[Window], pad_id: int) -> tuple[list[list[int]], list[list[int]]]:
    """``input_ids`` and ``attention_mask`` of a batch, padded on the right to its longest window."""
    width = max(len(w.ids) for w in windows)
    ids = [w.ids + [pad_id] * (width - len(w.ids)) for w in windows]
    mask = [[1] * len(w.ids) + [0] * (width - len(w.ids)) for w in windows]
    return ids, mask


def _np() -> Any:
    import numpy

    return numpy


def viterbi(emissions: Any, transitions: Any, start: Any, end: Any) -> list[int]:
    """The best tag path of a linear-chain CRF (``emissions`` ``[n, L]``, ``transitions`` ``[L, L]`` from row to
    column, ``start`` / ``end`` ``[L]``; log space; NumPy, no torch)."""
    np = _np()
    em = np.asarray(emissions, dtype="float64")
    n = len(em)
    if n == 0:
        return []
    trans = np.asarray(transitions, dtype="float64")
    score = np.asarray(start, dtype="float64") + em[0]
    back = []
    for t in range(1, n):
        cand = score[:, None] + trans
        back.append(cand.argmax(axis=0))
        score = cand.max(axis=0) + em[t]
    last = int((score + np.asarray(end, dtype="float64")).argmax())
    path = [last]
    for ptr in reversed(back):
        path.append(int(ptr[path[-1]]))
    return path[::-1]


@dataclass
class _DocState:
    """Per-word predictions of one document being merged from its windows: the tag index (-1: none yet), its
    probability, and how far from a window's edge it was read."""

    tokens: TokenTable
    best: list[float]
    chosen: list[int]
    conf: list[float]


class TaggerCore:
    """Label/tag bookkeeping and the decoding of window outputs into spans (shared with the onnxruntime
    detector)."""

    name = "transformer"
    lang = "en"
    tags_: list[str]
    crf: bool
    crf_params_: dict[str, list[Any]] | None
    _category: Callable[[str], str] | None

    def _merge(self, state: _DocState, window: Window, n_words: int, rows: Any) -> None:
        """Keep, for each word of ``window``, its scores (``rows``: one row of logits per word) when it lies
        farther from an edge than in the windows seen before."""
        np = _np()
        a, b = window.first, window.last
        left_open = a == 0
        right_open = b >= n_words
        logp = rows - rows.max(axis=1, keepdims=True)
        logp = logp - np.log(np.exp(logp).sum(axis=1, keepdims=True))
        if self.crf and self.crf_params_ is not None:
            path = viterbi(logp, self.crf_params_["transitions"], self.crf_params_["start"], self.crf_params_["end"])
        else:
            path = logp.argmax(axis=1).tolist()
        probs = np.exp(logp[np.arange(len(path)), path]).tolist() if path else []
        for k, w in enumerate(window.words):
            centrality = min(math.inf if left_open else w - a, math.inf if right_open else b - 1 - w)
            if centrality > state.best[w]:
                state.best[w] = centrality
                state.chosen[w] = path[k]
                state.conf[w] = probs[k]

    def _decode(self, state: _DocState) -> list[Span]:
        n = len(state.tokens)
        tags = [self.tags_[j] if j >= 0 else "" for j in state.chosen]
        conf = state.conf
        if all(t == "O" or t == "" for t in tags):
            return []
        for w in range(n):  # words without sub-words continue the entity around them
            if tags[w] == "":
                nxt = next((tags[k] for k in range(w + 1, n) if tags[k] != ""), "O")
                prev = tags[w - 1] if w > 0 else "O"
                tags[w] = f"I-{nxt[2:]}" if nxt.startswith("I-") and prev != "O" and prev[2:] == nxt[2:] else "O"
                conf[w] = conf[w - 1] if w > 0 else 0.0
        tokens = state.tokens.tokens
        spans = decode_bio(tokens, tags, repair=True, source=self.name)
        starts = state.tokens.starts
        out = []
        for s in spans:
            i = bisect_left(starts, s.start)
            j = bisect_left(starts, s.end, lo=i)
            p = sum(conf[i:j]) / max(1, j - i)
            label = self._category(s.label) if self._category is not None else s.label
            out.append(Span(s.start, s.end, label, self.name, round(min(1.0, max(0.0, p)), 4)))
        return out

    def _tables(self, targets: Sequence[Analysis | Document | str]) -> list[TokenTable]:
        out = []
        for t in targets:
            if isinstance(t, str):
                out.append(token_table(t))
            elif isinstance(t, Analysis):
                out.append(t.tokens)
            else:
                out.append(token_table(t.text))
        return out

    def _run_tables(self, tables: Sequence[TokenTable], encoder: SubwordWindows, batch_size: int,
                    run: Callable[[list[list[int]], list[list[int]]], Any]) -> list[list[Span]]:
        """Windows of every document, batched by length, run through ``run(ids, mask) -> logits [B, T, L]``
        (nested sequences or an array), merged back per word and decoded."""
        windows: list[Window] = []
        states = []
        for d, table in enumerate(tables):
            n = len(table)
            states.append(_DocState(table, [-1.0] * n, [-1] * n, [0.0] * n))
            if n:
                windows.extend(encoder.windows(d, table.words))
        order = sorted(range(len(windows)), key=lambda k: len(windows[k].ids))
        for b in range(0, len(order), batch_size):
            batch = [windows[k] for k in order[b:b + batch_size]]
            ids, mask = pad_batch(batch, encoder.pad_id)
            logits = _np().asarray(run(ids, mask), dtype="float32")
            for r, win in enumerate(batch):
                self._merge(states[win.doc], win, len(tables[win.doc]), logits[r, win.positions])
        return [self._decode(s) for s in states]


# --- training data ------------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class StepInfo:
    """Progress of training: ``step`` of ``total_steps`` in ``epoch`` (1-based); ``dev_f1`` and friends are set on
    the last step of an epoch when dev data is given (``epoch_done``)."""

    epoch: int
    max_epochs: int
    step: int
    total_steps: int
    loss: float
    epoch_done: bool = False
    dev_f1: float | None = None
    dev_tag_f1: float | None = None


@dataclass(frozen=True, slots=True)
class EpochInfo:
    epoch: int
    train_loss: float
    seconds: float
    dev_precision: float | None = None
    dev_recall: float | None = None
    dev_f1: float | None = None
    dev_tag_f1: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in asdict(self).items()}


@dataclass
class TrainingReport(GoldDataReport):
    """What :meth:`TransformerDetector.fit` saw and did (offsets and labels only, never text)."""

    windows: int = 0
    subwords: int = 0
    epochs: list[EpochInfo] = field(default_factory=list)
    best_epoch: int | None = None
    stopped_early: bool = False
    train_seconds: float = 0.0
    device: str = "cpu"
    class_weights: dict[str, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "windows": self.windows, "subwords": self.subwords,
                "epochs": [e.to_dict() for e in self.epochs], "best_epoch": self.best_epoch,
                "stopped_early": self.stopped_early, "train_seconds": round(self.train_seconds, 3),
                "device": self.device, "class_weights": self.class_weights}


def span_f1(gold: Sequence[Document], pred: Sequence[Sequence[Span]]) -> tuple[float, float, float]:
    """Micro P/R/F1 of exact (start, end, label) matches."""
    tp = fp = fn = 0
    for g, p in zip(gold, pred, strict=True):
        gs = {(s.start, s.end, s.label) for s in g.spans}
        ps = {(s.start, s.end, s.label) for s in p}
        tp += len(gs & ps)
        fp += len(ps - gs)
        fn += len(gs - ps)
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    return prec, rec, (2 * prec * rec / (prec + rec) if prec + rec else 0.0)


def tag_f1(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> float:
    """Micro F1 of word tags other than ``O``."""
    match = model = ref = 0
    for g, p in zip(gold, pred, strict=True):
        for a, b in zip(g, p, strict=True):
            ref += a != "O"
            model += b != "O"
            match += a != "O" and a == b
    prec = match / model if model else 0.0
    rec = match / ref if ref else 0.0
    return 2 * prec * rec / (prec + rec) if prec + rec else 0.0


# --- the detector ------------------------------------------------------------------------------------------------

class TransformerDetector(TaggerCore, BaseDetector):
    """A fine-tuned Hugging Face token classifier over clinanon tokens (see the module docstring).

    ``base_model``: a local checkpoint folder (weights + fast tokenizer); ``from_scratch=True`` builds the
    architecture of its ``config.json`` with random weights (only the tokenizer is reused). Hyper-parameters:
    ``max_length`` / ``stride`` (windows, in sub-words), ``batch_size``, ``epochs`` (at most), ``lr``,
    ``weight_decay``, ``warmup`` (fraction of the steps), ``clip`` (gradient norm), ``empty_windows`` (the share of
    the training windows without any gold entity used in each epoch, drawn anew per epoch: notes with little PHI
    train faster), ``patience`` (epochs without a
    better dev F1 before stopping; 0 = never), ``class_weights`` (``"none"`` or ``"balanced"``), ``crf`` (a CRF
    layer over the words), ``seed``, ``device`` (``"auto"``, ``"cpu"``, ``"cuda"``), ``label_scheme`` (gold labels
    must belong to it), ``canonical`` (predict canonical categories), ``threads`` (torch CPU threads; 0 = torch's
    default).
    """

    name = "transformer"
    overlapping: ClassVar[bool] = False

    def __init__(
        self,
        lang: str = "en",
        *,
        base_model: str | Path | None = None,
        from_scratch: bool = False,
        max_length: int = 256,
        stride: int = 64,
        batch_size: int = 16,
        epochs: int = 3,
        lr: float = 5e-5,
        weight_decay: float = 0.01,
        warmup: float = 0.1,
        clip: float = 1.0,
        patience: int = 2,
        class_weights: Literal["none", "balanced"] = "none",
        crf: bool = False,
        seed: int = 0,
        device: str = "auto",
        label_scheme: str | None = None,
        canonical: bool = False,
        threads: int = 0,
        empty_windows: float = 1.0,
    ) -> None:
        self.lang = check_language(lang)
        if max_length < 8:
            raise ConfigError("max_length must be >= 8")
        if batch_size < 1 or epochs < 1:
            raise ConfigError("batch_size and epochs must be >= 1")
        if not 0.0 <= warmup < 1.0:
            raise ConfigError("warmup must be in [0, 1)")
        if class_weights not in ("none", "balanced"):
            raise ConfigError(f"class_weights must be 'none' or 'balanced', not {class_weights!r}")
        if not 0.0 < empty_windows <= 1.0:
            raise ConfigError("empty_windows must be in (0, 1]")
        if device not in ("auto", "cpu", "cuda"):
            raise ConfigError(f"device must be 'auto', 'cpu' or 'cuda', not {device!r}")
        self.base_model = str(base_model) if base_model is not None else None
        self.from_scratch = bool(from_scratch)
        self.max_length = int(max_length)
        self.stride = int(stride)
        self.batch_size = int(batch_size)
        self.epochs = int(epochs)
        self.lr = float(lr)
        self.weight_decay = float(weight_decay)
        self.warmup = float(warmup)
        self.clip = float(clip)
        self.patience = int(patience)
        self.class_weights = class_weights
        self.crf = bool(crf)
        self.seed = int(seed)
        self.device = device
        self.label_scheme = label_scheme
        self.canonical = bool(canonical)
        self.threads = int(threads)
        self.empty_windows = float(empty_windows)
        self._category = None
        if self.canonical:
            if label_scheme is None:
                raise ConfigError("canonical=True needs a label_scheme to map native labels to categories")
            from clinanon.taxonomy import get_scheme

            self._category = get_scheme(label_scheme).category
        self.labels_: list[str] = []
        self.tags_ = []
        self.crf_params_ = None
        self.training_report_: TrainingReport | None = None
        self.meta_: dict[str, Any] | None = None
        self._model: Any = None
        self._tokenizer: Any = None
        self._encoder: SubwordWindows | None = None
        self._crf_module: Any = None

    def __repr__(self) -> str:
        state = f"labels={len(self.labels_)}" if self._model is not None else "unfitted"
        return (f"TransformerDetector(lang={self.lang!r}, max_length={self.max_length}, stride={self.stride}, "
                f"crf={self.crf}, {state})")

    def get_params(self) -> dict[str, Any]:
        """The constructor arguments (JSON-safe)."""
        return {"lang": self.lang, "base_model": self.base_model, "from_scratch": self.from_scratch,
                "max_length": self.max_length, "stride": self.stride, "batch_size": self.batch_size,
                "epochs": self.epochs, "lr": self.lr, "weight_decay": self.weight_decay, "warmup": self.warmup,
                "clip": self.clip, "patience": self.patience, "class_weights": self.class_weights, "crf": self.crf,
                "seed": self.seed, "device": self.device, "label_scheme": self.label_scheme,
                "canonical": self.canonical, "threads": self.threads, "empty_windows": self.empty_windows}

    @property
    def fitted(self) -> bool:
        return self._model is not None

    @property
    def encoder(self) -> SubwordWindows:
        if self._encoder is None:
            if self._tokenizer is None:
                raise ConfigError("the transformer detector is not fitted: call fit() or TransformerDetector.load()")
            self._encoder = SubwordWindows(self._tokenizer, self.max_length, self.stride)
        return self._encoder

    def _torch_device(self) -> Any:
        torch = _torch()
        if self.device == "cuda" or (self.device == "auto" and torch.cuda.is_available()):
            return torch.device("cuda")
        return torch.device("cpu")

    # --- training -----------------------------------------------------------------------------------------------
    def _check_labels(self, docs: Sequence[Document]) -> None:
        if self.label_scheme is None:
            return
        from clinanon.taxonomy import get_scheme

        scheme = get_scheme(self.label_scheme)
        unknown = sorted({s.label for d in docs for s in d.spans if s.label not in scheme})
        if unknown:
            raise ConfigError(f"gold labels not in the label scheme {self.label_scheme!r}: {', '.join(unknown)}")

    def _encode_docs(self, docs: Sequence[Document], report: TrainingReport | None
                     ) -> tuple[list[Window], list[list[int]], list[list[str]]]:
        """Windows of ``docs`` and, per window, the tag id of each of its words; the gold word tags per doc."""
        index = {t: k for k, t in enumerate(self.tags_)}
        windows: list[Window] = []
        labels: list[list[int]] = []
        gold_tags: list[list[str]] = []
        for d, doc in enumerate(docs):
            table = token_table(doc.text)
            enc = encode_bio(table.tokens, doc.spans, "BIO")
            gold_tags.append(enc.tags)
            if report is not None:
                report.documents += 1
                report.tokens += len(table)
                report.chars += len(doc.text)
                report.gold_spans += len(doc.spans)
                for s in enc.misaligned:
                    report.misaligned.append({"doc_id": doc.id, "start": s.start, "end": s.end, "label": s.label})
                for s in enc.overlapping:
                    report.overlapping.append({"doc_id": doc.id, "start": s.start, "end": s.end, "label": s.label})
            if not len(table):
                continue
            for win in self.encoder.windows(d, table.words):
                windows.append(win)
                labels.append([index.get(enc.tags[w], 0) for w in win.words])
        return windows, labels, gold_tags

    def _build_model(self, n_labels: int) -> Any:
        transformers = require("transformers")
        assert self.base_model is not None
        path = Path(self.base_model)
        id2label = dict(enumerate(self.tags_))
        label2id = {t: k for k, t in id2label.items()}
        try:
            if self.from_scratch:
                cfg = transformers.AutoConfig.from_pretrained(str(path), local_files_only=True, num_labels=n_labels,
                                                              id2label=id2label, label2id=label2id)
                return transformers.AutoModelForTokenClassification.from_config(cfg)
            return transformers.AutoModelForTokenClassification.from_pretrained(
                str(path), local_files_only=True, num_labels=n_labels, id2label=id2label, label2id=label2id,
                ignore_mismatched_sizes=True)
        except (OSError, ValueError) as e:
            raise InputError(f"cannot load the checkpoint ({type(e).__name__})", path=path) from None

    def fit(self, docs: Iterable[Document], dev: Iterable[Document] | None = None, *,
            callback: Callable[[StepInfo], None] | None = None) -> TransformerDetector:
        """Fine-tune ``base_model`` on the gold spans of ``docs``; returns ``self`` (see the class docstring).

        ``dev``: scored after every epoch (span F1 decides early stopping and the epoch kept)."""
        torch = _torch()
        transformers = require("transformers")
        if self.base_model is None:
            raise ConfigError("the transformer detector needs base_model: a local checkpoint folder")
        docs = list(docs)
        dev_docs = list(dev) if dev is not None else []
        self._check_labels(docs)
        labels = sorted({s.label for d in docs for s in d.spans})
        if not labels:
            raise ConfigError("no gold spans in the training documents")
        self.labels_ = labels
        self.tags_ = ["O"] + [f"{p}-{lab}" for lab in labels for p in ("B", "I")]
        self._tokenizer = load_tokenizer(self.base_model)
        self._encoder = None
        random.seed(self.seed)
        torch.manual_seed(self.seed)
        transformers.set_seed(self.seed)
        if self.threads:
            torch.set_num_threads(self.threads)
        device = self._torch_device()
        report = TrainingReport(device=device.type)
        report.labels = dict(sorted(Counter(s.label for d in docs for s in d.spans).items()))
        windows, win_labels, _ = self._encode_docs(docs, report)
        if not windows:
            raise ConfigError("no training document has a token")
        report.windows = len(windows)
        report.subwords = sum(len(w.ids) for w in windows)
        model = self._build_model(len(self.tags_)).to(device)
        self._model = model
        self._crf_module = _make_crf(torch, len(self.tags_), self.tags_).to(device) if self.crf else None
        weight = None
        if self.class_weights == "balanced":
            counts = Counter(t for row in win_labels for t in row)
            total = sum(counts.values())
            w = [math.sqrt(total / (len(self.tags_) * max(1, counts.get(k, 0)))) for k in range(len(self.tags_))]
            mean_w = sum(w) / len(w)
            w = [x / mean_w for x in w]
            report.class_weights = {t: round(x, 4) for t, x in zip(self.tags_, w, strict=True)}
            weight = torch.tensor(w, dtype=torch.float32, device=device)
        loss_fn = torch.nn.CrossEntropyLoss(weight=weight, ignore_index=-100)
        params = list(model.parameters()) + (list(self._crf_module.parameters()) if self._crf_module else [])
        no_decay = {id(p) for n, p in model.named_parameters() if "bias" in n or "LayerNorm" in n or "norm" in n}
        groups = [{"params": [p for p in params if id(p) not in no_decay], "weight_decay": self.weight_decay},
                  {"params": [p for p in params if id(p) in no_decay], "weight_decay": 0.0}]
        optim = torch.optim.AdamW(groups, lr=self.lr)
        gen = random.Random(self.seed)
        orders = []  # each epoch's windows, shuffled; windows without an entity sampled at ``empty_windows``
        for _ in range(self.epochs):
            order = [k for k, row in enumerate(win_labels)
                     if self.empty_windows >= 1.0 or any(row) or gen.random() < self.empty_windows]
            gen.shuffle(order)
            orders.append(order)
        total = sum(math.ceil(len(o) / self.batch_size) for o in orders)
        sched = transformers.get_linear_schedule_with_warmup(optim, int(self.warmup * total), total)
        best_f1, best_state, best_epoch, bad = -1.0, None, None, 0
        t0 = time.perf_counter()
        step = 0
        for epoch in range(1, self.epochs + 1):
            model.train()
            te = time.perf_counter()
            order = orders[epoch - 1]
            losses = []
            for b in range(0, len(order), self.batch_size):
                idx = order[b:b + self.batch_size]
                loss = self._batch_loss(torch, [windows[k] for k in idx], [win_labels[k] for k in idx], loss_fn,
                                        device)
                optim.zero_grad(set_to_none=True)
                loss.backward()
                if self.clip > 0:
                    torch.nn.utils.clip_grad_norm_(params, self.clip)
                optim.step()
                sched.step()
                step += 1
                losses.append(float(loss.detach()))
                if callback is not None:
                    callback(StepInfo(epoch, self.epochs, step, total, losses[-1]))
            info = EpochInfo(epoch, sum(losses) / max(1, len(losses)), time.perf_counter() - te)
            if dev_docs:
                self._export_crf()  # the CRF's current transitions decode the dev notes
                p, r, f, tf = self.evaluate(dev_docs)
                info = EpochInfo(info.epoch, info.train_loss, info.seconds, p, r, f, tf)
            report.epochs.append(info)
            if callback is not None:
                callback(StepInfo(epoch, self.epochs, step, total, info.train_loss, True, info.dev_f1,
                                  info.dev_tag_f1))
            if dev_docs:
                assert info.dev_f1 is not None
                if info.dev_f1 > best_f1:
                    best_f1, best_epoch, bad = info.dev_f1, epoch, 0
                    best_state = self._state_copy()
                else:
                    bad += 1
                    if self.patience and bad >= self.patience:
                        report.stopped_early = epoch < self.epochs
                        break
        if best_state is not None and best_epoch != len(report.epochs):
            self._load_state(best_state)
        report.best_epoch = best_epoch if dev_docs else len(report.epochs)
        report.train_seconds = time.perf_counter() - t0
        model.eval()
        self._export_crf()
        self.training_report_ = report
        return self

    def _state_copy(self) -> dict[str, Any]:
        state = {"model": {k: v.detach().cpu().clone() for k, v in self._model.state_dict().items()}}
        if self._crf_module is not None:
            state["crf"] = copy.deepcopy(self._crf_module.state_dict())
        return state

    def _load_state(self, state: Mapping[str, Any]) -> None:
        self._model.load_state_dict(state["model"])
        if self._crf_module is not None and "crf" in state:
            self._crf_module.load_state_dict(state["crf"])

    def _tensors(self, torch: Any, batch: Sequence[Window], device: Any) -> tuple[Any, Any]:
        ids, mask = pad_batch(batch, self.encoder.pad_id)
        return (torch.tensor(ids, dtype=torch.long, device=device),
                torch.tensor(mask, dtype=torch.long, device=device))

    def _batch_loss(self, torch: Any, batch: Sequence[Window], labels: Sequence[Sequence[int]], loss_fn: Any,
                    device: Any) -> Any:
        ids, mask = self._tensors(torch, batch, device)
        logits = self._model(input_ids=ids, attention_mask=mask).logits
        if self._crf_module is None:
            target = torch.full(ids.shape, -100, dtype=torch.long, device=device)
            for r, (win, row) in enumerate(zip(batch, labels, strict=True)):
                if win.positions:
                    target[r, torch.tensor(win.positions, device=device)] = torch.tensor(row, device=device)
            return loss_fn(logits.reshape(-1, logits.shape[-1]), target.reshape(-1))
        # CRF: the first-sub-word emissions of each window's words, as one padded word sequence per window
        width = max(1, max(len(w.positions) for w in batch))
        em = logits.new_zeros((len(batch), width, logits.shape[-1]))
        tags = torch.zeros((len(batch), width), dtype=torch.long, device=device)
        wmask = torch.zeros((len(batch), width), dtype=torch.bool, device=device)
        for r, (win, row) in enumerate(zip(batch, labels, strict=True)):
            n = len(win.positions)
            if n:
                em[r, :n] = torch.log_softmax(logits[r, torch.tensor(win.positions, device=device)], dim=-1)
                tags[r, :n] = torch.tensor(row, device=device)
                wmask[r, :n] = True
        keep = wmask[:, 0]
        if not bool(keep.any()):
            return logits.sum() * 0.0
        return self._crf_module.nll(em[keep], tags[keep], wmask[keep])

    def _export_crf(self) -> None:
        if self._crf_module is None:
            self.crf_params_ = None
            return
        c = self._crf_module
        self.crf_params_ = {"transitions": c.transitions.detach().cpu().tolist(),
                            "start": c.start.detach().cpu().tolist(), "end": c.end.detach().cpu().tolist()}

    # --- prediction ---------------------------------------------------------------------------------------------
    def _run_torch(self, ids: list[list[int]], mask: list[list[int]]) -> Any:
        torch = _torch()
        device = next(self._model.parameters()).device
        with torch.inference_mode():
            t_ids, t_mask = (torch.tensor(ids, dtype=torch.long, device=device),
                             torch.tensor(mask, dtype=torch.long, device=device))
            return self._model(input_ids=t_ids, attention_mask=t_mask).logits.float().cpu().numpy()

    def _predict_tables(self, tables: Sequence[TokenTable]) -> list[list[Span]]:
        if self._model is None:
            raise ConfigError("the transformer detector is not fitted: call fit() or TransformerDetector.load()")
        was_training = self._model.training
        self._model.eval()
        try:
            return self._run_tables(tables, self.encoder, self.batch_size, self._run_torch)
        finally:
            if was_training:
                self._model.train()

    def detect(self, analysis: Analysis | Document) -> list[Span]:
        """Spans with native labels (canonical categories with ``canonical=True``), ``source="transformer"`` and
        the mean probability of the words' tags as score."""
        return self.pipe([self.analysis(analysis)])[0]

    def pipe(self, analyses: Sequence[Analysis]) -> list[list[Span]]:
        """:meth:`detect` for a batch: the windows of all the notes are batched together, by length."""
        return self._predict_tables(self._tables([self.analysis(a) if isinstance(a, Document) else a
                                                  for a in analyses]))

    def analyze(self, text: str) -> list[Span]:
        """:meth:`detect` on a bare text."""
        return self._predict_tables([token_table(text)])[0]

    def predict(self, docs: Iterable[Document]) -> list[Document]:
        """Each document with its spans replaced by the predictions."""
        docs = list(docs)
        spans = self._predict_tables([token_table(d.text) for d in docs])
        return [d.with_spans(s) for d, s in zip(docs, spans, strict=True)]

    def evaluate(self, docs: Sequence[Document]) -> tuple[float, float, float, float]:
        """Span P/R/F1 (exact, native labels) and word-tag F1 of the predictions on ``docs``."""
        saved, self._category = self._category, None
        try:
            pred = self._predict_tables([token_table(d.text) for d in docs])
        finally:
            self._category = saved
        p, r, f = span_f1(docs, pred)
        gold_tags, pred_tags = [], []
        for d, spans in zip(docs, pred, strict=True):
            table = token_table(d.text)
            gold_tags.append(encode_bio(table.tokens, d.spans, "BIO").tags)
            pred_tags.append(encode_bio(table.tokens, spans, "BIO").tags)
        return p, r, f, tag_f1(gold_tags, pred_tags)

    # --- persistence --------------------------------------------------------------------------------------------
    def meta(self) -> dict[str, Any]:
        from clinanon import __version__

        return {"detector": self.name, "format": FORMAT, "clinanon_version": __version__,
                "language": self.lang, "label_scheme": self.label_scheme, "params": self.get_params(),
                "labels": list(self.labels_), "tags": list(self.tags_), "checkpoint": HF_DIR,
                "crf": self.crf_params_}

    def save(self, path: str | Path, meta: Mapping[str, Any] | None = None) -> Path:
        """Write the model directory (``meta.json`` + ``hf/``); ``meta`` adds keys to meta.json."""

        if self._model is None:
            raise ConfigError("the transformer detector is not fitted: call fit() or TransformerDetector.load()")
        out = Path(path)
        out.mkdir(parents=True, exist_ok=True)
        self._model.save_pretrained(str(out / HF_DIR))
        self._tokenizer.save_pretrained(str(out / HF_DIR))
        data = {**self.meta(), **(dict(meta) if meta else {})}
        model_dir.write_meta(out, data)
        model_dir.share(out)
        self.meta_ = data
        return out

    @classmethod
    def read_meta(cls, path: str | Path) -> dict[str, Any]:
        """``meta.json`` of a transformer model directory (:class:`InputError` naming the file when it is missing,
        unreadable, another detector's or another format's)."""
        return model_dir.read_meta(path, cls.name, version=FORMAT)

    @classmethod
    def load(cls, path: str | Path, *, canonical: bool | None = None, device: str | None = None
             ) -> TransformerDetector:
        """A detector from a directory written by :meth:`save` / ``clinanon train`` (local files only)."""
        transformers = require("transformers")
        p = Path(path)
        meta = cls.read_meta(p)
        det = model_dir.build(cls, meta, p, canonical=canonical, device=device)
        det.labels_ = list(meta.get("labels") or [])
        det.tags_ = list(meta.get("tags") or [])
        det.crf_params_ = meta.get("crf")
        hf = p / str(meta.get("checkpoint", HF_DIR))
        det._tokenizer = load_tokenizer(hf)
        try:
            model = transformers.AutoModelForTokenClassification.from_pretrained(str(hf), local_files_only=True)
        except (OSError, ValueError) as e:
            raise InputError(f"cannot load the fine-tuned checkpoint ({type(e).__name__})", path=hf) from None
        if model.config.num_labels != len(det.tags_):
            raise InputError("the checkpoint's label count does not match meta.json", path=hf)
        det._model = model.to(det._torch_device()).eval()
        det.meta_ = meta
        return det


def _make_crf(torch: Any, n: int, tags: Sequence[str]) -> Any:
    """A linear-chain CRF over word tags: learned transition, start and end scores, and the NLL of a batch
    (``nll``). Moves that BIO forbids (``O -> I-X``, ``B-X -> I-Y``) get a fixed score of -10 000, so Viterbi never
    takes them; a window may start inside an entity (windows are cut at words, not entities), so ``I-X`` may
    start one."""
    nn = torch.nn

    class CRF(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            forbid = torch.zeros(n, n)
            for j, t in enumerate(tags):
                if t.startswith("I-"):
                    for i, s in enumerate(tags):
                        if s == "O" or s[2:] != t[2:]:
                            forbid[i, j] = -1e4
            self.register_buffer("forbid", forbid)
            self.trans = nn.Parameter(torch.zeros(n, n))
            self.start = nn.Parameter(torch.zeros(n))
            self.end = nn.Parameter(torch.zeros(n))

        @property
        def transitions(self) -> Any:
            return self.trans + self.forbid

        def nll(self, em: Any, tags: Any, mask: Any) -> Any:
            B, T, _ = em.shape
            trans = self.transitions
            idx = torch.arange(B, device=em.device)
            score = self.start[tags[:, 0]] + em[idx, 0, tags[:, 0]]
            alpha = self.start.unsqueeze(0) + em[:, 0]
            for t in range(1, T):
                m = mask[:, t]
                step = trans[tags[:, t - 1], tags[:, t]] + em[idx, t, tags[:, t]]
                score = score + step * m
                nxt = torch.logsumexp(alpha.unsqueeze(2) + trans.unsqueeze(0), dim=1) + em[:, t]
                alpha = torch.where(m.unsqueeze(1), nxt, alpha)
            lengths = mask.sum(1) - 1
            score = score + self.end[tags[idx, lengths]]
            log_z = torch.logsumexp(alpha + self.end.unsqueeze(0), dim=1)
            return (log_z - score).mean()

    return CRF()
