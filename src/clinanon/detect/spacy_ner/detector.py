"""The spaCy NER detector: wraps a loaded spaCy pipeline, or trains one (:mod:`.training`), and turns its entities
into clinanon spans (see the package docstring for labels, chunking of long texts and persistence)."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import spacy
from spacy.language import Language
from spacy.tokens import Doc
from thinc.api import Config

from clinanon.analysis import Analysis
from clinanon.detect.base import BaseDetector
from clinanon.detect.spacy_ner.config import TOKENIZERS, Tokenizer, build_config, default_config
from clinanon.detect.spacy_ner.training import Keep, SpacyTrainingReport, train_pipeline
from clinanon.document import Document, Span
from clinanon.errors import ConfigError, InputError
from clinanon.lang import check_language

__all__ = ["ONTONOTES_PHI_LABELS", "SpacyNERDetector"]

#: The labels of an OntoNotes (or WikiNER) pipeline kept by default: those that can identify a person.
ONTONOTES_PHI_LABELS: tuple[str, ...] = ("PERSON", "PER", "GPE", "LOC", "ORG", "DATE")

_NON_NER_PIPES = ("parser", "lemmatizer", "morphologizer", "tagger", "attribute_ruler", "senter",
                  "trainable_lemmatizer")


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


class SpacyNERDetector(BaseDetector):
    """Named-entity recognition with a spaCy pipeline (see the package docstring).

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
    #: one label per token: the decoded spans never overlap
    overlapping: ClassVar[bool] = False

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
        if tokenizer not in TOKENIZERS:
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
        docs = list(docs)
        dev_docs = list(dev) if dev is not None else []
        self._check_labels(docs)
        if not any(d.spans for d in docs):
            raise ConfigError("no training document has a gold span")
        nlp, report = train_pipeline(self.training_config(), docs, dev_docs, lang=self.lang, tokenizer=self.tokenizer,
                                     keep=self.keep, progress=progress, log=log)
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

    def detect(self, analysis: Analysis | Document) -> list[Span]:
        """Spans on the note's text with native labels (canonical categories when ``canonical``),
        ``source="spacy"`` and score 1.0, sorted; the document's own spans are ignored."""
        return self.analyze(analysis.text)

    def pipe(self, analyses: Sequence[Analysis]) -> list[list[Span]]:
        """:meth:`detect` of each note, through ``nlp.pipe`` in batches of ``batch_size``."""
        return self._run([a.text for a in analyses])

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
