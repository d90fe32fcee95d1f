"""A spaCy NER detector: train a blank pipeline on clinanon tokens, or run any installed spaCy pipeline.

>>> det = SpacyNERDetector(lang="es", label_scheme="meddocan", seed=0, max_steps=2000)   # doctest: +SKIP
>>> det.fit(train_docs, dev_docs)          # spaCy's own training loop (spacy.training.loop.train)  # doctest: +SKIP
>>> det.detect(doc)                        # [Span(start, end, "FECHAS", "spacy", 1.0), ...]        # doctest: +SKIP
>>> det.save("models/spacy-meddocan"); SpacyNERDetector.load("models/spacy-meddocan")              # doctest: +SKIP
>>> SpacyNERDetector.load("es_core_news_sm", label_scheme="ontonotes", canonical=True)            # doctest: +SKIP

Training
--------
* The pipeline is built from a spaCy config: by default spaCy's ``init config`` preset for ``ner`` optimised for
  CPU efficiency (``tok2vec`` = MultiHashEmbed + MaxoutWindowEncoder CNN, transition-based ``ner``), or a config
  file (``configs/spacy_ner_meddocan.cfg``). Whatever the file says, :func:`build_config` puts in: the
  tokenizer ``clinanon.Tokenizer.v1`` (:class:`ClinanonTokenizer`, :func:`clinanon.text.tokenize`'s tokens,
  which align with MEDDOCAN's annotations; spaCy's default Spanish tokenizer misaligns 8.7 % of the gold spans;
  ``tokenizer="spacy"`` keeps spaCy's as a baseline), the NER scorer ``clinanon.ner_scorer.v1`` (spaCy's
  token-level scores plus ours on character offsets), the training logger ``clinanon.TrainLogger.v1`` and the
  ``before_update`` callback ``clinanon.TrackEpochs.v1`` (progress), score weights in which our F1 decides, and
  the caller's seed (``[system] seed`` and ``[training] seed``).
* Documents become a spaCy ``DocBin`` in a temporary folder (deleted afterwards). A gold span whose start or end
  is not a token boundary is *expanded* to the tokens it overlaps (as :func:`clinanon.bio.encode_bio` does) and
  reported; a span that overlaps a longer one is left out and reported; neither is lost silently
  (:class:`SpacyTrainingReport`, offsets and labels only).
* spaCy's own loop (:func:`spacy.training.loop.train`) trains the model, on one CPU process. Every
  ``eval_frequency`` steps it scores the dev data twice: spaCy's ``ents_f`` (on its tokens, against the gold as
  the tokens could encode it) and ours (``clinanon_ents_f``: exact ``(start, end, label)`` on the character
  offsets of the original gold spans = MEDDOCAN subtask 1; ``clinanon_spans_f``: subtask 2). The two agree only
  when every gold span aligns with a token; ours is the one that counts, and it is the ``score`` spaCy uses to
  pick its best checkpoint.
* ``keep="last"`` (default) keeps the weights after the last step, so the dev data never chooses the model and
  dev scores are honest; ``keep="best"`` keeps spaCy's best checkpoint by our dev score (dev-selected).
* The same data, config and seed give the same weights and the same predictions (checked by the tests, one
  process). The weight files are byte-identical once both pipelines have predicted (spaCy saves the ``ner``
  model's dropout attribute, which the first prediction sets to 0; ``clinanon train`` always predicts dev
  before saving); ``meta.json`` differs (timings).

Prediction
----------
Spans carry the pipeline's native labels (MEDDOCAN labels for a MEDDOCAN model; ``PERSON``/``GPE``/``ORG``... for
an OntoNotes pipeline; ``PER``/``LOC``/``ORG``/``MISC`` for a WikiNER one), ``source="spacy"`` and score 1.0. A
``label_scheme`` maps them to canonical categories (``canonical=True``); labels the scheme does not know are
dropped and counted in :attr:`SpacyNERDetector.unmapped`. For the ``ontonotes`` scheme only the labels that can
identify a person are kept by default (:data:`ONTONOTES_PHI_LABELS`: PERSON, PER, GPE, LOC, ORG, DATE) -- the
way a published Dutch clinical language model's pretraining corpus was anonymized with a Dutch spaCy model.
Texts longer than ``max_chars`` are cut at line breaks (or whitespace) and the spans shifted back.

Saved pipelines reload with ``spacy.load(model_dir)`` once this module is imported (it registers the tokenizer,
scorer, logger and callback in spaCy's registry). A fitted detector pickles (through spaCy's serialization).
"""

from __future__ import annotations

import io
import json
import os
import re
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import spacy
from spacy.language import Language
from spacy.tokens import Doc, DocBin
from spacy.vocab import Vocab
from thinc.api import Config

from clinanon.detect.base import GoldDataReport
from clinanon.document import Document, Span
from clinanon.errors import ConfigError, InputError
from clinanon.text import SUPPORTED_LANGUAGES, check_language, to_spacy_doc

__all__ = [
    "GOLD_KEY",
    "ONTONOTES_PHI_LABELS",
    "ClinanonTokenizer",
    "EvalRecord",
    "SpacyNERDetector",
    "SpacyTrainingReport",
    "build_config",
    "default_config",
    "make_clinanon_ner_scorer",
]

#: The labels of an OntoNotes (or WikiNER) pipeline kept by default: those that can identify a person.
ONTONOTES_PHI_LABELS: tuple[str, ...] = ("PERSON", "PER", "GPE", "LOC", "ORG", "DATE")

#: ``Doc.user_data`` key of the original gold spans ``[[start, end, label], ...]`` in the training DocBins.
GOLD_KEY = "clinanon_gold"

TOKENIZER_NAME = "clinanon.Tokenizer.v1"
SCORER_NAME = "clinanon.ner_scorer.v1"
LOGGER_NAME = "clinanon.TrainLogger.v1"
STEP_CALLBACK_NAME = "clinanon.TrackEpochs.v1"

#: score weights put into every training config: our subtask-1 F1 on character offsets picks the best checkpoint
SCORE_WEIGHTS: dict[str, float | None] = {
    "clinanon_ents_f": 1.0, "clinanon_ents_p": 0.0, "clinanon_ents_r": 0.0, "clinanon_spans_f": 0.0,
    "ents_f": 0.0, "ents_p": 0.0, "ents_r": 0.0, "ents_per_type": None,
}

_NON_NER_PIPES = ("parser", "lemmatizer", "morphologizer", "tagger", "attribute_ruler", "senter",
                  "trainable_lemmatizer")

Keep = Literal["last", "best"]
Tokenizer = Literal["clinanon", "spacy"]
_TOKENIZERS = {"clinanon": TOKENIZER_NAME, "spacy": "spacy.Tokenizer.v1"}


# --- tokenizer ------------------------------------------------------------------------------------------------

class ClinanonTokenizer:
    """A spaCy tokenizer that produces :func:`clinanon.text.tokenize`'s tokens (via :func:`to_spacy_doc`).

    The ``Doc`` text is exactly the input; whitespace other than one space after a token becomes a whitespace
    token, as spaCy does. Linear time. It has no state to save: ``to_disk`` writes a small JSON marker so that
    ``nlp.to_disk`` / ``spacy.load`` round-trip (the config names ``clinanon.Tokenizer.v1``).
    """

    def __init__(self, vocab: Vocab, lang: str = "es") -> None:
        self.vocab = vocab
        # our tokens are the same in every language; the language code only has to be one we know
        self.lang = lang if lang in SUPPORTED_LANGUAGES else "es"

    def __repr__(self) -> str:
        return f"ClinanonTokenizer(lang={self.lang!r})"

    def __call__(self, text: str) -> Doc:
        return to_spacy_doc(text, self.lang, vocab=self.vocab)

    def pipe(self, texts: Iterable[str], batch_size: int = 1000) -> Iterator[Doc]:
        for text in texts:
            yield self(text)

    # serialization: nothing to keep but a marker
    def to_bytes(self, *, exclude: Iterable[str] = ()) -> bytes:
        return json.dumps({"tokenizer": TOKENIZER_NAME, "lang": self.lang}).encode("utf-8")

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = ()) -> ClinanonTokenizer:
        return self

    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> None:
        Path(path).write_bytes(self.to_bytes())

    def from_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> ClinanonTokenizer:
        return self


@spacy.registry.tokenizers(TOKENIZER_NAME)
def create_tokenizer() -> Callable[[Language], ClinanonTokenizer]:
    """spaCy registry entry ``clinanon.Tokenizer.v1`` (``[nlp.tokenizer] @tokenizers = "clinanon.Tokenizer.v1"``)."""

    def make(nlp: Language) -> ClinanonTokenizer:
        return ClinanonTokenizer(nlp.vocab, nlp.lang)

    return make


# --- scorer ---------------------------------------------------------------------------------------------------

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


# --- training log ---------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class EvalRecord:
    """One evaluation of spaCy's training loop: step, epoch, the losses since the previous one, spaCy's NER
    scores on its tokens and ours on character offsets (subtask 1 and 2)."""

    step: int
    epoch: int
    seconds: int
    words: int
    losses: dict[str, float]
    score: float
    ents_f: float | None
    spans_f: float | None
    spacy_ents_p: float | None
    spacy_ents_r: float | None
    spacy_ents_f: float | None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for k, v in d.items():
            if isinstance(v, float):
                d[k] = round(v, 4)
        d["losses"] = {k: round(v, 3) for k, v in self.losses.items()}
        return d


class _Monitor:
    """Receives spaCy's per-step log calls during :meth:`SpacyNERDetector.fit`: a rich progress bar on stderr
    (steps, loss, our dev F1 and spaCy's) and the evaluation history."""

    def __init__(self, total: int | None, progress: bool, on_eval: Callable[[EvalRecord], None] | None) -> None:
        self.total = total
        self.progress = progress
        self.on_eval = on_eval
        self.records: list[EvalRecord] = []
        self.steps = 0
        self.epochs = 0  # the highest epoch index seen (spaCy counts completed passes from 0)
        self._bar: Any = None
        self._task: Any = None

    def setup(self, nlp: Language, stdout: Any, stderr: Any) -> tuple[Callable[[dict[str, Any] | None], None],
                                                                      Callable[[], None]]:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                             TextColumn("epoch {task.fields[epoch]}"), TextColumn("loss {task.fields[loss]}"),
                             TextColumn("dev F1 {task.fields[dev]} (spaCy {task.fields[spacy]})"),
                             TimeElapsedColumn(), console=Console(stderr=True), disable=not self.progress,
                             transient=False)
        self._bar.start()
        self._task = self._bar.add_task("training", total=self.total, epoch=0, loss="-", dev="-", spacy="-")
        return self.log_step, self.finalize

    def log_step(self, info: dict[str, Any] | None) -> None:
        self.steps += 1
        if info is None:
            self._bar.update(self._task, advance=1, epoch=self.epochs)
            return
        other = info.get("other_scores") or {}
        losses = {k: float(v) for k, v in (info.get("losses") or {}).items()}

        def num(key: str) -> float | None:
            v = other.get(key)
            return float(v) if isinstance(v, int | float) else None

        rec = EvalRecord(step=int(info["step"]), epoch=int(info["epoch"]), seconds=int(info.get("seconds", 0)),
                         words=int(info.get("words", 0)), losses=losses, score=float(info.get("score") or 0.0),
                         ents_f=num("clinanon_ents_f"), spans_f=num("clinanon_spans_f"),
                         spacy_ents_p=num("ents_p"), spacy_ents_r=num("ents_r"), spacy_ents_f=num("ents_f"))
        self.records.append(rec)
        self.epochs = max(self.epochs, rec.epoch)
        loss = losses.get("ner")
        self._bar.update(self._task, completed=rec.step + 1, epoch=rec.epoch,
                         loss=f"{loss:.1f}" if loss is not None else "-",
                         dev=f"{rec.ents_f:.4f}" if rec.ents_f is not None else "-",
                         spacy=f"{rec.spacy_ents_f:.4f}" if rec.spacy_ents_f is not None else "-")
        if self.on_eval is not None:
            self.on_eval(rec)

    def finalize(self) -> None:
        if self._bar is not None:
            self._bar.stop()


_MONITOR: ContextVar[_Monitor | None] = ContextVar("clinanon_spacy_monitor", default=None)


@spacy.registry.callbacks(STEP_CALLBACK_NAME)
def create_epoch_tracker() -> Callable[[Language, dict[str, Any]], None]:
    """spaCy registry entry ``clinanon.TrackEpochs.v1`` (``[training] before_update``): tells the progress bar of
    :meth:`SpacyNERDetector.fit` which epoch every step belongs to (does nothing elsewhere)."""

    def before_update(nlp: Language, args: dict[str, Any]) -> None:
        monitor = _MONITOR.get()
        if monitor is not None:
            monitor.epochs = max(monitor.epochs, int(args.get("epoch", 0)))

    return before_update


@spacy.registry.loggers(LOGGER_NAME)
def create_train_logger() -> Callable[..., Any]:
    """spaCy registry entry ``clinanon.TrainLogger.v1``: inside :meth:`SpacyNERDetector.fit` a progress bar with
    our dev F1 per evaluation; elsewhere (``spacy train`` on a saved config) spaCy's console logger."""

    def setup(nlp: Language, stdout: Any = None, stderr: Any = None) -> Any:
        monitor = _MONITOR.get()
        if monitor is None:
            console = spacy.registry.loggers.get("spacy.ConsoleLogger.v1")(progress_bar=False)
            return console(nlp, stdout, stderr)
        return monitor.setup(nlp, stdout, stderr)

    return setup


# --- config ---------------------------------------------------------------------------------------------------

def default_config(lang: str = "es") -> Config:
    """spaCy's ``init config --pipeline ner --optimize efficiency`` preset for ``lang`` (CPU, no vectors), with
    our tokenizer, scorer, logger and score weights (see :func:`build_config`) and ``[nlp] batch_size = 64``."""
    from spacy.cli.init_config import init_config

    cfg = init_config(lang=check_language(lang), pipeline=["ner"], optimize="efficiency", gpu=False, silent=True)
    # documents per batch when the loop scores dev data: the preset's 1000 holds a whole dev set of long clinical
    # notes at once (MEDDOCAN: 2.5 GB peak instead of 1.0 GB); predictions do not depend on it
    cfg["nlp"]["batch_size"] = 64
    return build_config(cfg)


def _set_dotted(cfg: dict[str, Any], key: str, value: Any) -> None:
    node = cfg
    parts = key.split(".")
    for p in parts[:-1]:
        nxt = node.setdefault(p, {})
        if not isinstance(nxt, dict):
            raise ConfigError(f"spaCy config override {key!r}: {p!r} is not a section")
        node = nxt
    node[parts[-1]] = value


def build_config(base: Config | Mapping[str, Any] | str | Path, *, seed: int | None = None,
                 overrides: Mapping[str, Any] | None = None, tokenizer: Tokenizer = "clinanon") -> Config:
    """A copy of ``base`` (a spaCy ``Config``, a dict or a ``.cfg`` path) ready for :meth:`SpacyNERDetector.fit`.

    Puts in the clinanon tokenizer, the clinanon NER scorer, the clinanon training logger and score weights in
    which our character-offset F1 decides; ``seed`` sets ``[system] seed`` and ``[training] seed``;
    ``overrides`` maps dotted keys (``"training.max_steps"``) to values, applied last. Raises
    :class:`ConfigError` for an unreadable file or a pipeline without an ``ner`` component.
    ``tokenizer="spacy"`` puts in spaCy's default tokenizer instead of ours (to measure what it costs: gold spans
    that do not align with its tokens are trained expanded, and our scores still compare the original offsets).
    """
    if isinstance(base, str | Path):
        path = Path(base)
        try:
            cfg = Config().from_str(path.read_text(encoding="utf-8"), interpolate=False)
        except OSError as e:
            raise ConfigError(f"{path}: cannot read the spaCy config ({e.strerror})") from None
        except Exception as e:  # thinc raises several kinds of parse errors
            raise ConfigError(f"{path}: invalid spaCy config ({type(e).__name__})") from None
    else:
        cfg = Config(json.loads(json.dumps(dict(base))))  # deep copy; configs hold JSON-able values only
    if "ner" not in (cfg.get("nlp", {}).get("pipeline") or []):
        raise ConfigError("the spaCy config has no 'ner' component in [nlp] pipeline")
    cfg.setdefault("paths", {})
    cfg["nlp"]["tokenizer"] = {"@tokenizers": _TOKENIZERS[tokenizer]}
    cfg.setdefault("components", {}).setdefault("ner", {})["scorer"] = {"@scorers": SCORER_NAME}
    cfg.setdefault("training", {})["logger"] = {"@loggers": LOGGER_NAME}
    cfg["training"]["score_weights"] = dict(SCORE_WEIGHTS)
    if not cfg["training"].get("before_update"):  # keep a callback of the config's own
        cfg["training"]["before_update"] = {"@callbacks": STEP_CALLBACK_NAME}
    if seed is not None:
        cfg.setdefault("system", {})["seed"] = int(seed)
        cfg["training"]["seed"] = int(seed)
    for key, value in (overrides or {}).items():
        _set_dotted(cfg, key, value)
    return cfg


# --- training report ------------------------------------------------------------------------------------------

@dataclass
class SpacyTrainingReport(GoldDataReport):
    """What :meth:`SpacyNERDetector.fit` saw and did. Offsets and labels only, never text.

    ``misaligned``: gold spans whose start or end is not a token boundary (trained on the tokens they overlap,
    ``reason="misaligned"``; or not trained at all when they overlap no token, ``reason="no_token"``).
    ``overlapping``: gold spans left out because a longer one holds one of their tokens.
    ``tokens`` counts spaCy tokens (clinanon's plus the whitespace tokens between them); ``steps`` counts the
    updates (``0 .. max_steps``), ``epochs`` the passes over the data begun.
    """

    dev_documents: int = 0
    dev_misaligned: int = 0
    evaluations: list[EvalRecord] = field(default_factory=list)
    steps: int = 0
    epochs: int = 0
    keep: str = "last"
    kept_step: int | None = None
    convert_seconds: float = 0.0
    init_seconds: float = 0.0
    train_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            **super().to_dict(), "dev_documents": self.dev_documents,
            "dev_misaligned_count": self.dev_misaligned, "steps": self.steps, "epochs": self.epochs,
            "keep": self.keep, "kept_step": self.kept_step,
            "evaluations": [r.to_dict() for r in self.evaluations],
            "convert_seconds": round(self.convert_seconds, 3), "init_seconds": round(self.init_seconds, 3),
            "train_seconds": round(self.train_seconds, 3),
        }


def _docbin(nlp: Language, docs: Sequence[Document], report: SpacyTrainingReport | None) -> tuple[DocBin, int]:
    """Our documents as a DocBin of examples on clinanon tokens; the original gold spans go into user_data.
    Returns the DocBin and the number of misaligned gold spans (recorded in ``report`` when given)."""
    db = DocBin(store_user_data=True)
    n_misaligned = 0
    for d in docs:
        sdoc = nlp.make_doc(d.text)
        ents = []
        taken = bytearray(len(sdoc))
        # longest first, then earlier start, end, label: the order of clinanon.bio.encode_bio
        for s in sorted(d.spans, key=lambda s: (s.start - s.end, s.start, s.end, s.label)):
            span = sdoc.char_span(s.start, s.end, label=s.label, alignment_mode="strict")
            aligned = span is not None
            if span is None:
                span = sdoc.char_span(s.start, s.end, label=s.label, alignment_mode="expand")
            # a span on whitespace only overlaps no clinanon token (as in clinanon.bio.encode_bio)
            covers = span is not None and len(span) > 0 and not all(t.is_space for t in span)
            if not (aligned and covers):
                n_misaligned += 1
                if report is not None:
                    report.misaligned.append({"doc_id": d.id, "start": s.start, "end": s.end, "label": s.label,
                                              "reason": "misaligned" if covers else "no_token"})
            if span is None or not covers:
                continue
            if any(taken[span.start:span.end]):
                if report is not None:
                    report.overlapping.append({"doc_id": d.id, "start": s.start, "end": s.end, "label": s.label})
                continue
            taken[span.start:span.end] = b"\1" * (span.end - span.start)
            ents.append(span)
        sdoc.set_ents(sorted(ents, key=lambda e: e.start), default="outside")
        sdoc.user_data[GOLD_KEY] = [[s.start, s.end, s.label] for s in d.spans]
        db.add(sdoc)
        if report is not None:
            report.documents += 1
            report.tokens += len(sdoc)
            report.chars += len(d.text)
            report.gold_spans += len(d.spans)
    return db, n_misaligned


class _LineWriter(io.TextIOBase):
    """A text stream that hands complete lines to a callback (spaCy's stdout messages -> our ``log``)."""

    _ANSI = re.compile(r"\x1b\[[0-9;]*m")

    def __init__(self, sink: Callable[[str], None] | None) -> None:
        self.sink = sink
        self._buf = ""

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        self._buf += s
        while "\n" in self._buf:
            line, self._buf = self._buf.split("\n", 1)
            line = self._ANSI.sub("", line).strip()
            if line and self.sink is not None:
                self.sink(line)
        return len(s)


# --- the detector ---------------------------------------------------------------------------------------------

def _chunks(text: str, max_chars: int) -> list[tuple[int, str]]:
    """``text`` as ``(offset, piece)`` pieces of at most ``max_chars`` characters, cut after a line break (else
    after whitespace) in the second half of the window, else hard."""
    if len(text) <= max_chars:
        return [(0, text)]
    out = []
    pos, n = 0, len(text)
    while pos < n:
        end = min(n, pos + max_chars)
        if end < n:
            window = text[pos + max_chars // 2:end]
            cut = window.rfind("\n")
            if cut < 0:
                cut = max(window.rfind(" "), window.rfind("\t"))
            if cut >= 0:
                end = pos + max_chars // 2 + cut + 1
        out.append((pos, text[pos:end]))
        pos = end
    return out


class SpacyNERDetector:
    """Named-entity recognition with a spaCy pipeline (see the module docstring).

    Construct it with an ``nlp`` to wrap a loaded pipeline, or without one and call :meth:`fit` to train.
    ``label_scheme``: the scheme of the native labels (a registered name; for a loaded model directory the one it
    was trained with). ``canonical``: emit canonical categories instead of native labels. ``labels``: native
    labels to keep (default: all of the scheme, :data:`ONTONOTES_PHI_LABELS` for ``"ontonotes"``).
    ``batch_size``: documents per ``nlp.pipe`` batch. ``max_chars``: longer texts are cut into pieces.
    Training: ``config`` (a spaCy config path or object; default :func:`default_config`), ``seed``,
    ``max_steps`` / ``max_epochs`` / ``eval_frequency`` / ``patience`` (``None``: the config's), ``keep``
    (``"last"`` or ``"best"``), ``overrides`` (dotted spaCy config keys), ``tokenizer`` (``"clinanon"``, or
    ``"spacy"`` for spaCy's default tokenizer of the language: a baseline, it misaligns gold spans).
    """

    name = "spacy"

    def __init__(
        self,
        nlp: Language | None = None,
        *,
        lang: str = "es",
        label_scheme: str | None = None,
        canonical: bool = False,
        labels: Iterable[str] | None = None,
        batch_size: int = 64,
        max_chars: int = 100_000,
        config: str | Path | Config | Mapping[str, Any] | None = None,
        seed: int = 0,
        max_steps: int | None = None,
        max_epochs: int | None = None,
        eval_frequency: int | None = None,
        patience: int | None = None,
        keep: Keep = "last",
        overrides: Mapping[str, Any] | None = None,
        tokenizer: Tokenizer = "clinanon",
    ) -> None:
        if batch_size < 1:
            raise ConfigError("batch_size must be >= 1")
        if max_chars < 100:
            raise ConfigError("max_chars must be >= 100")
        if keep not in ("last", "best"):
            raise ConfigError(f"keep must be 'last' or 'best', not {keep!r}")
        if tokenizer not in _TOKENIZERS:
            raise ConfigError(f"tokenizer must be 'clinanon' or 'spacy', not {tokenizer!r}")
        for k, v in (("max_steps", max_steps), ("max_epochs", max_epochs), ("patience", patience)):
            if v is not None and v < 0:
                raise ConfigError(f"{k} must be >= 0")
        if eval_frequency is not None and eval_frequency < 1:
            raise ConfigError("eval_frequency must be >= 1")
        self.lang = nlp.lang if nlp is not None else check_language(lang)
        self.label_scheme = label_scheme
        self.canonical = bool(canonical)
        self.batch_size = int(batch_size)
        self.max_chars = int(max_chars)
        self.config = config
        self.seed = int(seed)
        self.max_steps = max_steps
        self.max_epochs = max_epochs
        self.eval_frequency = eval_frequency
        self.patience = patience
        self.keep: Keep = keep
        self.overrides = dict(overrides or {})
        self.tokenizer: Tokenizer = tokenizer
        self._scheme: Any = None
        if label_scheme is not None:
            from clinanon.taxonomy import get_scheme

            self._scheme = get_scheme(label_scheme)
        elif self.canonical:
            raise ConfigError("canonical=True needs a label_scheme to map native labels to categories")
        if labels is None and label_scheme is not None and label_scheme.lower() == "ontonotes":
            labels = ONTONOTES_PHI_LABELS
        self.labels = tuple(labels) if labels is not None else None
        self._keep_labels = frozenset(self.labels) if self.labels is not None else None
        #: labels predicted but dropped because the label scheme does not know them (label -> count)
        self.unmapped: Counter[str] = Counter()
        self.training_report_: SpacyTrainingReport | None = None
        self.meta_: dict[str, Any] | None = None
        self.nlp: Language | None = None
        self._disable: list[str] = []
        if nlp is not None:
            self._set_nlp(nlp)

    def __repr__(self) -> str:
        state = f"labels={len(self.labels_)}" if self.nlp is not None else "unfitted"
        return (f"SpacyNERDetector(lang={self.lang!r}, label_scheme={self.label_scheme!r}, "
                f"canonical={self.canonical}, {state})")

    def _set_nlp(self, nlp: Language) -> None:
        if "ner" not in nlp.pipe_names:
            raise ConfigError("the spaCy pipeline has no 'ner' component")
        self.nlp = nlp
        self.lang = nlp.lang
        self._disable = [p for p in nlp.pipe_names if p in _NON_NER_PIPES]

    @property
    def fitted(self) -> bool:
        return self.nlp is not None

    @property
    def labels_(self) -> list[str]:
        """The NER labels of the pipeline (sorted)."""
        return sorted(self._nlp_or_raise().get_pipe("ner").labels)

    def get_params(self) -> dict[str, Any]:
        """The prediction parameters (JSON-safe); training parameters live in the training config."""
        return {"lang": self.lang, "label_scheme": self.label_scheme, "canonical": self.canonical,
                "labels": list(self.labels) if self.labels is not None else None, "batch_size": self.batch_size,
                "max_chars": self.max_chars, "seed": self.seed, "keep": self.keep}

    def _nlp_or_raise(self) -> Language:
        if self.nlp is None:
            raise ConfigError("the spaCy detector has no pipeline: call fit() or SpacyNERDetector.load()")
        return self.nlp

    # --- training -------------------------------------------------------------------------------------------
    def training_config(self) -> Config:
        """The spaCy config :meth:`fit` trains with (before the data paths are filled in)."""
        base = self.config if self.config is not None else default_config(self.lang)
        over: dict[str, Any] = {}
        for key, value in (("training.max_steps", self.max_steps), ("training.max_epochs", self.max_epochs),
                           ("training.eval_frequency", self.eval_frequency), ("training.patience", self.patience)):
            if value is not None:
                over[key] = value
        over.update(self.overrides)
        cfg = build_config(base, seed=self.seed, overrides=over, tokenizer=self.tokenizer)
        cfg["nlp"]["lang"] = self.lang
        return cfg

    def fit(self, docs: Iterable[Document], dev: Iterable[Document] | None = None, *, progress: bool = False,
            log: Callable[[str], None] | None = None) -> SpacyNERDetector:
        """Train a blank pipeline on the gold spans of ``docs`` with spaCy's training loop; returns ``self``.

        ``dev``: documents scored at every evaluation (ours and spaCy's scores in
        :attr:`training_report_`); without them the first ten training documents stand in, for the log only.
        ``progress``: a rich progress bar on stderr. ``log``: spaCy's status lines and one line per evaluation
        (no document text). Raises :class:`ConfigError` when no document has a gold span, a label is outside
        ``label_scheme``, or the spaCy config is invalid.
        """
        from spacy.training.initialize import init_nlp
        from spacy.training.loop import train as spacy_train

        docs = list(docs)
        dev_docs = list(dev) if dev is not None else []
        self._check_labels(docs)
        if not any(d.spans for d in docs):
            raise ConfigError("no training document has a gold span")
        cfg = self.training_config()
        report = SpacyTrainingReport(keep=self.keep)
        say = log or (lambda _m: None)
        max_steps = int(cfg["training"].get("max_steps") or 0)
        total = max_steps + 1 if max_steps else None  # steps 0 .. max_steps
        monitor = _Monitor(total, progress, lambda r: say(
            f"step {r.step} epoch {r.epoch}: loss {r.losses.get('ner', 0.0):.1f}, dev F1 "
            f"{(r.ents_f or 0.0):.4f} on character offsets (spaCy ents_f {(r.spacy_ents_f or 0.0):.4f})"))
        with tempfile.TemporaryDirectory(prefix="clinanon-spacy-") as tmp:
            t0 = time.perf_counter()
            maker = spacy.blank(self.lang, config={"nlp": {"tokenizer": {"@tokenizers": _TOKENIZERS[self.tokenizer]}}})
            train_db, _ = _docbin(maker, docs, report)
            loop_dev = dev_docs or docs[:10]
            dev_db, report.dev_misaligned = _docbin(maker, loop_dev, None)
            report.dev_documents = len(dev_docs)
            report.labels = dict(sorted(Counter(s.label for d in docs for s in d.spans).items()))
            train_db.to_disk(Path(tmp) / "train.spacy")
            dev_db.to_disk(Path(tmp) / "dev.spacy")
            report.convert_seconds = time.perf_counter() - t0
            cfg["paths"]["train"] = str(Path(tmp) / "train.spacy")
            cfg["paths"]["dev"] = str(Path(tmp) / "dev.spacy")
            t1 = time.perf_counter()
            try:
                nlp = init_nlp(cfg, use_gpu=-1)
            except (ValueError, KeyError, TypeError) as e:  # thinc's ConfigValidationError is a ValueError
                raise ConfigError(f"invalid spaCy training config ({type(e).__name__}: "
                                  f"{str(e).splitlines()[0][:200] if str(e) else ''})") from None
            report.init_seconds = time.perf_counter() - t1
            out = Path(tmp) / "out" if self.keep == "best" else None
            if out is not None:
                out.mkdir()
            token = _MONITOR.set(monitor)
            t2 = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    # spaCy's alignment warning quotes the document text: never let it reach a log
                    warnings.filterwarnings("ignore", message=r"\[W030\]")
                    nlp, _ = spacy_train(nlp, out, use_gpu=-1, stdout=_LineWriter(say), stderr=_LineWriter(None))
            finally:
                _MONITOR.reset(token)
            report.train_seconds = time.perf_counter() - t2
            report.evaluations = list(monitor.records)
            report.steps = monitor.steps
            report.epochs = monitor.epochs + 1 if monitor.steps else 0
            report.kept_step = report.steps - 1
            if out is not None and (out / "model-best").is_dir():
                nlp = spacy.load(out / "model-best")
                # spaCy copies model-best at every evaluation that equals the best score so far: the latest wins
                best = max(monitor.records, key=lambda r: (r.score, r.step), default=None)
                report.kept_step = best.step if best is not None else None
        # the saved config must not point at the deleted temporary corpus
        nlp.config["paths"]["train"] = None
        nlp.config["paths"]["dev"] = None
        self._set_nlp(nlp)
        self.training_report_ = report
        return self

    def _check_labels(self, docs: Sequence[Document]) -> None:
        if self._scheme is None:
            return
        unknown = sorted({s.label for d in docs for s in d.spans if s.label not in self._scheme})
        if unknown:
            raise ConfigError(f"gold labels not in the label scheme {self.label_scheme!r}: {', '.join(unknown)}")

    # --- prediction -----------------------------------------------------------------------------------------
    def _spans(self, sdoc: Doc, offset: int, text: str) -> list[Span]:
        out = []
        for ent in sdoc.ents:
            label = ent.label_
            if self._keep_labels is not None and label not in self._keep_labels:
                continue
            if self._scheme is not None:
                if label not in self._scheme:
                    self.unmapped[label] += 1
                    continue
                if self.canonical:
                    label = self._scheme.category(label)
            start, end = ent.start_char, ent.end_char
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            if start < end:
                out.append(Span(start + offset, end + offset, label, self.name, 1.0))
        return out

    def _run(self, texts: Sequence[str]) -> list[list[Span]]:
        nlp = self._nlp_or_raise()
        pieces: list[tuple[int, int, str]] = []  # (text index, offset, piece)
        for k, text in enumerate(texts):
            pieces.extend((k, off, piece) for off, piece in _chunks(text, self.max_chars))
        out: list[list[Span]] = [[] for _ in texts]
        sdocs = nlp.pipe((p for _, _, p in pieces), batch_size=self.batch_size, disable=self._disable)
        for (k, off, piece), sdoc in zip(pieces, sdocs, strict=True):
            out[k].extend(self._spans(sdoc, off, piece))
        return [sorted(s) for s in out]

    def analyze(self, text: str) -> list[Span]:
        """Spans (sorted) on a bare text."""
        return self._run([text])[0]

    def detect(self, doc: Document) -> list[Span]:
        """Spans on ``doc.text`` with native labels (canonical categories when ``canonical``), ``source="spacy"``
        and score 1.0, sorted; the document's own spans are ignored."""
        return self.analyze(doc.text)

    def predict(self, docs: Iterable[Document]) -> list[Document]:
        """Each document with its spans replaced by the predictions (``nlp.pipe`` in batches of ``batch_size``)."""
        docs = list(docs)
        spans = self._run([d.text for d in docs])
        return [d.with_spans(s) for d, s in zip(docs, spans, strict=True)]

    # --- persistence ----------------------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """Pickling (for worker processes): the prediction parameters and the pipeline (spaCy pickles it)."""
        params = {k: v for k, v in self.get_params().items() if k not in ("lang",)}
        params.update(lang=self.lang, tokenizer=self.tokenizer)
        nlp = None
        if self.nlp is not None:  # a trained pipeline holds training closures: go through spaCy's serialization
            nlp = (self.nlp.config.to_str(), self.nlp.to_bytes())
        return {"params": params, "nlp": nlp, "report": self.training_report_, "meta": self.meta_}

    def __setstate__(self, state: dict[str, Any]) -> None:
        nlp = None
        if state.get("nlp") is not None:
            from spacy.util import load_model_from_config

            config_str, data = state["nlp"]
            nlp = load_model_from_config(Config().from_str(config_str, interpolate=False), auto_fill=False)
            nlp.from_bytes(data)
        self.__init__(nlp, **state["params"])  # type: ignore[misc]
        self.training_report_ = state.get("report")
        self.meta_ = state.get("meta")

    def meta(self) -> dict[str, Any]:
        """The clinanon keys :meth:`save` adds to the pipeline's ``meta.json`` (spaCy keeps its own there too;
        the NER labels are ``meta["labels"]["ner"]``)."""
        from clinanon import __version__

        return {"detector": self.name, "format": 1, "clinanon_version": __version__, "params": self.get_params(),
                "label_scheme": self.label_scheme, "entity_labels": self.labels_}

    def save(self, path: str | Path, meta: Mapping[str, Any] | None = None) -> Path:
        """Write the pipeline to the directory ``path`` (``nlp.to_disk``: config.cfg, meta.json, tokenizer,
        vocab/, tok2vec/, ner/); ``meta.json`` also holds :meth:`meta` and the caller's ``meta`` keys.
        ``spacy.load(path)`` reloads it once this module is imported."""
        nlp = self._nlp_or_raise()
        out = Path(path)
        extra = {**self.meta(), **(dict(meta) if meta else {})}
        extra.pop("labels", None)  # spaCy owns "labels" ({component: [labels]})
        nlp.meta.update(extra)
        nlp.meta["name"] = nlp.meta.get("name") if nlp.meta.get("name") not in (None, "pipeline") else "clinanon_ner"
        nlp.to_disk(out)
        for p in out.rglob("*"):
            if p.is_file():
                os.chmod(p, 0o644)
        return out

    @classmethod
    def load(cls, model: str | Path, *, label_scheme: str | None = None, canonical: bool | None = None,
             labels: Iterable[str] | None = None, batch_size: int | None = None,
             max_chars: int | None = None) -> SpacyNERDetector:
        """A detector from a model directory written by :meth:`save` / ``clinanon train``, any spaCy pipeline
        directory, or an installed spaCy package name (nothing is downloaded).

        ``label_scheme`` defaults to the one saved with a clinanon model, else ``"ontonotes"``; ``canonical``,
        ``labels``, ``batch_size`` and ``max_chars`` override the saved settings. Raises :class:`InputError`
        naming the path when it is not a loadable pipeline with an ``ner`` component.
        """
        p = Path(model)
        is_dir = p.is_dir()
        try:
            nlp = spacy.load(p if is_dir else str(model))
        except OSError:
            raise InputError("not a spaCy pipeline directory nor an installed spaCy package "
                             "(clinanon never downloads models)", path=p) from None
        except Exception as e:  # a broken directory: config / weights that do not match
            raise InputError(f"cannot load the spaCy pipeline ({type(e).__name__})", path=p) from None
        meta = dict(nlp.meta)
        saved = meta.get("params") if meta.get("detector") == cls.name else None
        params: dict[str, Any] = dict(saved) if isinstance(saved, dict) else {}
        scheme = label_scheme or params.get("label_scheme") or meta.get("label_scheme") or "ontonotes"
        kwargs: dict[str, Any] = {
            "label_scheme": scheme,
            "canonical": canonical if canonical is not None else bool(params.get("canonical", False)),
            "labels": labels if labels is not None else (params.get("labels") if scheme == params.get(
                "label_scheme") else None),
            "batch_size": batch_size or int(params.get("batch_size", 64)),
            "max_chars": max_chars or int(params.get("max_chars", 100_000)),
            "seed": int(params.get("seed", 0)),
        }
        try:
            det = cls(nlp, **kwargs)
        except ConfigError as e:
            raise InputError(str(e), path=p) from None
        det.meta_ = meta
        return det
