"""``clinanon train CONFIG``: one TOML file per model -> a model directory.

A training config names the detector type, language, label scheme, tagging scheme, training and dev data (any
reader's format), the hyper-parameters and a seed::

    detector = "crf"
    language = "es"
    label_scheme = "meddocan"
    tagging = "BIO"
    seed = 0
    output = "models/crf-meddocan"          # relative paths are relative to the config file

    [data]
    train = "../../shared/data/meddocan/train/brat"
    train_format = "brat"                  # optional: detected from the path
    dev = "../../shared/data/meddocan/dev/brat"
    license = "../../shared/data/meddocan/LICENSE"     # copied into the model directory
    attribution = "Trained on MEDDOCAN (Marimon et al., 2019), CC-BY 4.0."

    [crf]
    c1 = 0.05
    c2 = 0.01
    max_iterations = 100

``detector = "spacy"`` trains a spaCy NER pipeline (:mod:`clinanon.detect.spacy_ner`) through spaCy's own
training loop instead; its ``[spacy]`` table names a spaCy config (default: spaCy's CPU-efficiency ``ner``
preset) and the loop's limits::

    [spacy]
    config = "spacy_ner_meddocan.cfg"      # relative to this file
    max_steps = 6000
    eval_frequency = 500
    keep = "last"                          # or "best": spaCy's best checkpoint by our dev F1 (dev-selected)

:func:`train` writes ``<output>/model.crfsuite`` and ``<output>/meta.json`` -- labels, schemes, a digest of the
training and dev data, scores on dev (subtask 1 = exact span + label, subtask 2 = exact span, token-level
binary, per label; all on character offsets), the clinanon version, training time, the alignment report of the
gold spans -- plus ``LICENSE`` and ``ATTRIBUTION.txt`` when the data has a licence (found next to the data when
not configured). The same config (and seed) gives a byte-identical ``model.crfsuite``. For ``detector =
"spacy"`` the model directory is a spaCy pipeline directory (``spacy.load`` reads it once
:mod:`clinanon.detect.spacy_ner` is imported) whose ``meta.json`` holds the same clinanon keys next to spaCy's;
the same config and seed give the same weights and predictions.

``detector = "transformer"`` fine-tunes a local Hugging Face checkpoint (:mod:`clinanon.detect.neural.transformer`;
the ``neural`` extra); its ``[transformer]`` table names the checkpoint folder and the loop's settings (the
progress bar shows the steps, the loss and the dev span F1 of each epoch)::

    [transformer]
    base_model = "checkpoints/all-MiniLM-L6-v2"   # a local folder, never a hub id
    epochs = 3
    lr = 5e-5
    patience = 2                           # early stopping on the dev span F1
    onnx = true                            # also write model.onnx and model.int8.onnx

``detector = "bilstm_crf"`` trains a BiLSTM-CRF from scratch (:mod:`clinanon.detect.neural.bilstm_crf`; the
``neural`` extra), on CPU or, when present, a GPU; its ``[bilstm_crf]`` table holds the word vectors and the
network's settings (the progress bar shows the epochs, the loss and the exact-span dev F1 of each epoch; the
best epoch's weights are kept)::

    [bilstm_crf]
    vectors = "vectors.vec"                # `clinanon embeddings train NOTES --out vectors.vec`, or
    vectors_from = "train+dev"             # fastText trained here on the (unlabelled) train (+ dev) texts
    hidden = 128
    layers = 1
    max_epochs = 30
    patience = 4
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
import tomllib
from collections.abc import Callable, Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from clinanon.config import resolve_path
from clinanon.document import Document
from clinanon.errors import ConfigError, InputError
from clinanon.lang import Language

__all__ = ["CRFSection", "DataSection", "SpacySection", "TrainConfig", "TrainResult", "TransformerSection",
           "brat_config", "choose_labels", "data_digest", "dev_scores", "guess_category", "make_crf", "relabel",
           "train", "use_config"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DataSection(_Strict):
    """Training and dev data: a path and (optionally) a reader format of :mod:`clinanon.io`."""

    train: Path
    train_format: str | None = None
    dev: Path | None = None
    dev_format: str | None = None
    #: read at most this many training documents (first ones by id; ``None`` = all)
    limit: int | None = Field(None, ge=1)
    #: the data's licence file, copied into the model directory as LICENSE (default: a LICENSE file next to the
    #: data, in the data folder or up to three folders above it)
    license: Path | None = None
    #: one line written to ATTRIBUTION.txt in the model directory
    attribution: str | None = None
    #: gold labels renamed before training and scoring: the corpus' own label -> a label of ``label_scheme``
    #: (with ``label_scheme = "canonical"``: a canonical category such as ``NAME.DOCTOR``); ``"-"`` drops the
    #: label's spans (an annotation that is not PHI). Labels not listed stay as they are.
    label_map: dict[str, str] = Field(default_factory=dict)


class CRFSection(_Strict):
    """Hyper-parameters of :class:`clinanon.detect.crf.CRFDetector`."""

    c1: float = Field(0.05, ge=0.0)
    c2: float = Field(0.01, ge=0.0)
    max_iterations: int = Field(100, ge=1)
    min_freq: int = Field(0, ge=0)
    #: rule-detector matches as features
    rules: bool = True
    #: distributional word clusters learned (without labels) from the training texts, as features
    clusters: bool = False
    #: trigger words near a token (kinship, institution / hospital heads: clinanon/data/lexicons/<lang>.tsv)
    triggers: bool = False
    #: parenthetical-field and next-number features
    structure: bool = False
    #: fraction of the training documents added again in upper case (robustness to all-caps notes)
    case_augment: float = Field(0.0, ge=0.0, le=1.0)
    #: span score = mean or min of the token marginals
    score: Literal["mean", "min"] = "mean"
    #: tag the dev data after every iteration (token-level dev score in the progress bar; costs time)
    dev_each_iteration: bool = True


class SpacySection(_Strict):
    """The spaCy NER detector (:class:`clinanon.detect.spacy_ner.SpacyNERDetector`): a spaCy config and the
    limits of spaCy's training loop (``None``: what the spaCy config says)."""

    #: a spaCy ``.cfg`` file (relative paths: to the training config); default: spaCy's ``init config`` preset for
    #: ``ner`` optimised for CPU efficiency. The tokenizer, NER scorer, logger and seed are always clinanon's.
    config: Path | None = None
    max_steps: int | None = Field(None, ge=0)
    max_epochs: int | None = Field(None, ge=0)
    eval_frequency: int | None = Field(None, ge=1)
    #: stop after this many steps without a better dev score (0 = never; uses the dev data to stop)
    patience: int | None = Field(None, ge=0)
    #: "last": the weights after the last step; "best": spaCy's best checkpoint by our dev F1 (dev-selected)
    keep: Literal["last", "best"] = "last"
    #: documents per ``nlp.pipe`` batch when predicting
    batch_size: int = Field(64, ge=1)
    #: dotted spaCy config keys -> values, applied last (``"training.dropout" = 0.2``)
    overrides: dict[str, Any] = Field(default_factory=dict)
    #: "clinanon" (our tokens, aligned with the annotations) or "spacy" (spaCy's default tokenizer: a baseline)
    tokenizer: Literal["clinanon", "spacy"] = "clinanon"


class TransformerSection(_Strict):
    """Fine-tuning of a local Hugging Face checkpoint (:class:`clinanon.detect.neural.transformer.
    TransformerDetector`): ``base_model`` is a folder (relative paths: to the training config), never a hub id."""

    base_model: Path
    from_scratch: bool = False
    max_length: int = Field(256, ge=8)
    stride: int = Field(64, ge=0)
    batch_size: int = Field(16, ge=1)
    epochs: int = Field(3, ge=1)
    lr: float = Field(5e-5, gt=0.0)
    weight_decay: float = Field(0.01, ge=0.0)
    warmup: float = Field(0.1, ge=0.0, lt=1.0)
    clip: float = Field(1.0, ge=0.0)
    #: epochs without a better dev span F1 before stopping (0 = never)
    patience: int = Field(2, ge=0)
    class_weights: Literal["none", "balanced"] = "none"
    #: share of the training windows without a gold entity used per epoch (drawn anew each epoch)
    empty_windows: float = Field(1.0, gt=0.0, le=1.0)
    #: a CRF layer over the words (Viterbi decoding)
    crf: bool = False
    device: Literal["auto", "cpu", "cuda"] = "auto"
    #: torch CPU threads (0: torch's default)
    threads: int = Field(0, ge=0)
    #: also export ONNX (and int8) into the model directory
    onnx: bool = False


class BiLSTMCRFSection(_Strict):
    """The BiLSTM-CRF detector (:class:`clinanon.detect.neural.bilstm_crf.BiLSTMCRFDetector`)."""

    #: a word-vectors file (word2vec / fastText text format, GloVe; relative paths: to the training config)
    vectors: Path | None = None
    #: without ``vectors``: fastText vectors trained here with gensim on the training texts ("train"), on the
    #: training and dev texts ("train+dev"; unlabelled), or none (embeddings learned with the tagger)
    vectors_from: Literal["none", "train", "train+dev"] = "none"
    vectors_method: Literal["fasttext", "word2vec"] = "fasttext"
    vectors_epochs: int = Field(10, ge=1)
    word_dim: int = Field(100, ge=1)
    train_embeddings: bool | None = None
    char_cnn: bool = True
    char_filters: int = Field(50, ge=1)
    hidden: int = Field(128, ge=1)
    layers: int = Field(1, ge=1)
    dropout_input: float = Field(0.1, ge=0.0, lt=1.0)
    dropout_lstm: float = Field(0.25, ge=0.0, lt=1.0)
    dropout_output: float = Field(0.5, ge=0.0, lt=1.0)
    word_dropout: float = Field(0.05, ge=0.0, lt=1.0)
    lr: float = Field(0.002, gt=0.0)
    batch_size: int = Field(32, ge=1)
    max_epochs: int = Field(30, ge=1)
    #: epochs without a better dev span F1 before stopping (0 = never; needs dev data)
    patience: int = Field(4, ge=0)
    #: stop after the epoch that passes this many seconds (``None``: no limit)
    max_seconds: float | None = Field(None, gt=0.0)
    clip: float = Field(1.0, ge=0.0)
    max_len: int = Field(100, ge=1)
    #: an epoch is at least this many batches (a small training set is cycled; 0 = one pass over the data)
    min_batches: int = Field(0, ge=0)
    #: add the rule detector's B/I label of each token to the input (the CRF's rule feature)
    rule_features: bool = False
    device: Literal["auto", "cpu", "cuda"] = "auto"
    #: torch CPU threads (0: torch's default)
    threads: int = Field(0, ge=0)


class TrainConfig(_Strict):
    detector: Literal["crf", "spacy", "transformer", "bilstm_crf"] = "crf"
    language: Language = "es"
    #: the native labels of the data (a registered scheme; gold labels must belong to it)
    label_scheme: str = "meddocan"
    tagging: Literal["BIO", "BIOES"] = "BIO"
    seed: int = 0
    output: Path = Path("model")
    data: DataSection
    crf: CRFSection = Field(default_factory=CRFSection)
    spacy: SpacySection = Field(default_factory=SpacySection)
    transformer: TransformerSection | None = None
    bilstm_crf: BiLSTMCRFSection = Field(default_factory=BiLSTMCRFSection)
    #: the folder relative paths are resolved against (set by ``load``)
    base_dir: Path | None = Field(default=None, exclude=True)

    @model_validator(mode="after")
    def _check_scheme(self) -> TrainConfig:
        from clinanon.taxonomy import get_scheme

        try:
            get_scheme(self.label_scheme)
        except ConfigError as e:
            raise ValueError(f"label_scheme: {e}") from None
        return self

    def resolve(self, p: Path) -> Path:
        """``p`` against the config file's folder (absolute paths unchanged)."""
        return resolve_path(p, self.base_dir)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "<train config>",
                  base_dir: Path | None = None) -> TrainConfig:
        try:
            cfg = cls.model_validate(dict(data))
        except ValidationError as e:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(top level)'}: {err['msg']}" for err in e.errors()
            )
            raise ConfigError(f"{source}: invalid training configuration: {problems}") from None
        return cfg.model_copy(update={"base_dir": base_dir}) if base_dir is not None else cfg

    @classmethod
    def load(cls, path: str | Path, overrides: Mapping[str, Any] | None = None) -> TrainConfig:
        """Read and validate a TOML file; ``overrides`` maps dotted keys (``"crf.max_iterations"``) to values.

        Errors name the file and the key (:class:`ConfigError`)."""
        path = Path(path)
        try:
            raw = path.read_bytes()
        except OSError as e:
            raise ConfigError(f"{path}: cannot read the training configuration ({e.strerror})") from None
        try:
            data = tomllib.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as e:
            raise ConfigError(f"{path}: not UTF-8 (byte offset {e.start})") from None
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{path}: invalid TOML: {e}") from None
        for key, value in (overrides or {}).items():
            _set_dotted(data, key, value)
        return cls.from_dict(data, source=str(path), base_dir=path.resolve().parent)


def _set_dotted(data: dict[str, Any], key: str, value: Any) -> None:
    parts = key.split(".")
    node = data
    for p in parts[:-1]:
        nxt = node.setdefault(p, {})
        if not isinstance(nxt, dict):
            raise ConfigError(f"override {key!r}: {p!r} is not a table")
        node = nxt
    node[parts[-1]] = value


# --- data -------------------------------------------------------------------------------------------------------

def data_digest(docs: Iterable[Document]) -> str:
    """SHA-256 over the documents in id order: id, text and gold spans (start, end, label)."""
    h = hashlib.sha256()
    for d in sorted(docs, key=lambda d: d.id):
        h.update(d.id.encode("utf-8") + b"\0")
        h.update(d.text.encode("utf-8") + b"\0")
        for s in d.spans:
            h.update(f"{s.start}\t{s.end}\t{s.label}\n".encode())
        h.update(b"\1")
    return "sha256:" + h.hexdigest()


def _read(path: Path, fmt: str | None, limit: int | None = None) -> list[Document]:
    from clinanon import io as cio

    if not path.exists():
        raise InputError("no such file or folder (training data)", path=path)
    docs = sorted(cio.read(path, fmt), key=lambda d: d.id)
    return docs[:limit] if limit is not None else docs


def relabel(docs: Iterable[Document], label_map: Mapping[str, str]) -> list[Document]:
    """``docs`` with their gold labels renamed by ``label_map`` (``"-"``: the span is dropped)."""
    out = []
    for d in docs:
        if label_map and any(s.label in label_map for s in d.spans):
            spans = [s if s.label not in label_map else s.with_label(label_map[s.label])
                     for s in d.spans if label_map.get(s.label) != DROP]
            d = d.with_spans(spans)
        out.append(d)
    return out


DROP = "-"

# Words of a corpus' own label (split at case changes, underscores, hyphens) -> a canonical category; the first
# rule whose words all occur wins, so the specific ones come first. Only what a label's name says plainly.
_GUESS_RULES: tuple[tuple[frozenset[str], str], ...] = tuple((frozenset(words.split()), cat) for words, cat in (
    ("hcp name", "NAME.DOCTOR"), ("doctor", "NAME.DOCTOR"), ("physician", "NAME.DOCTOR"), ("staff name", "NAME.DOCTOR"),
    ("clinician", "NAME.DOCTOR"), ("relative", "NAME.RELATIVE"), ("family", "NAME.RELATIVE"),
    ("proxy name", "NAME.RELATIVE"), ("username", "NAME.USERNAME"), ("user name", "NAME.USERNAME"),
    ("pt name", "NAME.PATIENT"), ("patient name", "NAME.PATIENT"), ("name", "NAME"), ("person", "NAME"),
    ("per", "NAME"), ("date", "DATE"), ("year", "DATE"), ("age", "AGE"), ("fax", "CONTACT.FAX"),
    ("phone", "CONTACT.PHONE"), ("telephone", "CONTACT.PHONE"), ("pager", "CONTACT.PHONE"),
    ("email", "CONTACT.EMAIL"), ("e mail", "CONTACT.EMAIL"), ("url", "CONTACT.URL"), ("ip", "CONTACT.IPADDR"),
    ("contact", "CONTACT"), ("street", "LOCATION.STREET"), ("city", "LOCATION.CITY"), ("town", "LOCATION.CITY"),
    ("zip", "LOCATION.ZIP"), ("postcode", "LOCATION.ZIP"), ("postal", "LOCATION.ZIP"), ("state", "LOCATION.STATE"),
    ("country", "LOCATION.COUNTRY"), ("hospital", "LOCATION.HOSPITAL"), ("department", "LOCATION.DEPARTMENT"),
    ("ward", "LOCATION.DEPARTMENT"), ("room", "LOCATION.ROOM"), ("organization", "LOCATION.ORGANIZATION"),
    ("organisation", "LOCATION.ORGANIZATION"), ("institution", "LOCATION.ORGANIZATION"), ("location", "LOCATION"),
    ("loc", "LOCATION"), ("address", "LOCATION.STREET"), ("ssn", "ID.SSN"), ("mrn", "ID.MEDICALRECORD"),
    ("medical record", "ID.MEDICALRECORD"), ("id", "ID"), ("identifier", "ID"), ("profession", "PROFESSION"),
    ("occupation", "PROFESSION"), ("sex", "SEX"), ("gender", "SEX"), ("other", "OTHER"),
))


#: words that make a label's category unclear (an academic title is a name's neighbour, not PHI in most laws)
_UNCLEAR = frozenset({"title", "titel"})


def _label_words(label: str) -> frozenset[str]:
    import re

    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", label)
    return frozenset(w for w in re.split(r"[\W_]+", spaced.casefold()) if w)


def guess_category(label: str) -> str | None:
    """The canonical category a corpus' own label plainly names (``HCPName`` -> ``NAME.DOCTOR``, ``DateYear`` ->
    ``DATE``, ``LOCATION_CITY`` -> ``LOCATION.CITY``), ``None`` when its name says nothing clear. A canonical
    category is itself."""
    from clinanon.taxonomy import CANONICAL_CATEGORIES

    if label in CANONICAL_CATEGORIES:
        return label
    words = _label_words(label)
    if words & _UNCLEAR:
        return None
    if "pt" in words or "patient" in words:
        words = words | {"pt"}
    for need, cat in _GUESS_RULES:
        if need <= words:
            return cat
    return None


def choose_labels(labels: Iterable[str], *, scheme: str | None = None,
                  label_map: Mapping[str, str] | None = None) -> tuple[str, dict[str, str]]:
    """The label scheme a model of a corpus with gold ``labels`` is trained in, and the renaming of its labels.

    ``scheme`` given: that scheme, labels renamed by ``label_map`` only. Otherwise: ``canonical`` when every label
    is a canonical category; else a registered scheme holding every label (``meddocan`` for MEDDOCAN's BRAT files);
    else ``canonical``, each label renamed to the category ``label_map`` gives, or else the one its name plainly
    says (:func:`guess_category`). A label none of this maps raises :class:`ConfigError` naming it and the option
    that maps it."""
    from clinanon.taxonomy import CANONICAL_CATEGORIES, get_scheme, list_schemes

    given = dict(label_map or {})
    labels = sorted(set(labels) - set(given))
    if scheme is not None:
        get_scheme(scheme)
        return scheme, given
    if given and any(v != DROP and v not in CANONICAL_CATEGORIES for v in given.values()):
        bad = sorted(v for v in given.values() if v != DROP and v not in CANONICAL_CATEGORIES)
        raise ConfigError(f"label map: not canonical categories: {', '.join(bad)} (use one of "
                          f"{', '.join(CANONICAL_CATEGORIES)}, or '-' to drop a label; or give the scheme)")
    if not given:
        if all(lab in CANONICAL_CATEGORIES for lab in labels):
            return "canonical", {}
        for name in list_schemes():
            if all(lab in get_scheme(name) for lab in labels):
                return get_scheme(name).name, {}
    mapping = dict(given)
    unknown = []
    for lab in labels:
        cat = guess_category(lab)
        if cat is None:
            unknown.append(lab)
        else:
            mapping[lab] = cat
    if unknown:
        raise ConfigError(f"cannot tell the category of the label(s) {', '.join(unknown)}: map each with "
                          "--label-map LABEL=CATEGORY (a canonical category, see `clinanon labels canonical`; "
                          "'-' drops it), or name the corpus' label scheme with --scheme")
    return "canonical", mapping


def brat_config(data: str | Path, *, language: str, output: str | Path, data_format: str | None = None,
                dev: str | Path | None = None, scheme: str | None = None,
                label_map: Mapping[str, str] | None = None, max_iterations: int = 100, seed: int = 0,
                attribution: str | None = None, labels: Iterable[str] | None = None) -> TrainConfig:
    """The training configuration of ``clinanon train --brat DIR --lang LANG --out DIR``: a CRF over a user's
    annotated notes (BRAT or any format clinanon reads), in any supported language, with the rules of that
    language as features; the labels' scheme and renaming from :func:`choose_labels` (the corpus is read once
    here for its labels, unless the caller gives them as ``labels``). Every other setting is
    :class:`CRFSection`'s default (no dev scoring per iteration)."""
    path = Path(data)
    labels = set(labels) if labels is not None else {s.label for d in _read(path, data_format) for s in d.spans}
    if not labels:
        raise InputError("no annotated spans in the training data (a model needs examples)", path=path)
    label_scheme, mapping = choose_labels(labels, scheme=scheme, label_map=label_map)
    return TrainConfig.from_dict({
        "detector": "crf", "language": language, "label_scheme": label_scheme, "seed": seed,
        "output": str(output),
        "data": {"train": str(path), "train_format": data_format, "dev": None if dev is None else str(dev),
                 "dev_format": data_format, "label_map": mapping, "attribution": attribution},
        "crf": {"max_iterations": max_iterations, "dev_each_iteration": False},
    }, source="command line")


def use_config(model_dir: Path, language: str) -> str:
    """A configuration (TOML) that runs the ``default`` pipeline with the CRF of ``model_dir`` for notes in
    ``language`` (written as ``clinanon.toml`` into the model directory by ``clinanon train --brat``)."""
    return ("# clinanon configuration that uses this model: the rules of its language + this CRF (recall-first)\n"
            "# clinanon deidentify NOTES --out OUT --config THIS_FILE  (relative paths: to this file's folder)\n"
            f'language = "{language}"\n'
            'profile = "gdpr-strict"          # or "hipaa": see `clinanon profiles`\n'
            "[detectors]\n"
            'use = ["default"]\n'
            'models = { crf = "." }\n')


def _find_license(path: Path) -> Path | None:
    p = path if path.is_dir() else path.parent
    for _ in range(4):
        for name in ("LICENSE", "LICENSE.txt", "LICENSE.md", "COPYING"):
            if (p / name).is_file():
                return p / name
        if p.parent == p:
            break
        p = p.parent
    return None


# --- scores -----------------------------------------------------------------------------------------------------

def _prf(measure: Mapping[str, Any]) -> dict[str, Any]:
    m = measure["micro"]
    return {k: (round(m[k], 4) if isinstance(m[k], float) else m[k]) for k in ("precision", "recall", "f1", "tp",
                                                                                 "fp", "fn")}


def dev_scores(gold: list[Document], pred: list[Document], lang: str) -> dict[str, Any]:
    """Subtask 1 (exact span + label), subtask 2 (exact span), token-level binary and per-label exact P/R/F1,
    all computed on character offsets by :func:`clinanon.evaluate.evaluate`."""
    from clinanon.evaluate import evaluate

    measures = evaluate(gold, pred, lang=lang).to_dict()["measures"]
    per_label = {label: {"precision": round(m["precision"], 4), "recall": round(m["recall"], 4),
                         "f1": round(m["f1"], 4), "gold": m["tp"] + m["fn"]}
                 for label, m in sorted(measures["entity_exact"]["per_label"].items())}
    return {"documents": len(gold), "subtask1": _prf(measures["entity_exact"]),
            "subtask2": _prf(measures["entity_span"]), "token_binary": _prf(measures["token_binary"]),
            "per_label": per_label}


# --- training ---------------------------------------------------------------------------------------------------

@dataclass
class TrainResult:
    """The model directory, what was written to its meta.json, and the fitted detector."""

    model_dir: Path
    meta: dict[str, Any]
    detector: Any


def _progress(enabled: bool, total: int) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("loss {task.fields[loss]}"), TextColumn("dev tag F1 {task.fields[dev]}"),
                    TimeElapsedColumn(), console=Console(stderr=True), disable=not enabled, transient=False)


def make_crf(config: TrainConfig) -> Any:
    """The unfitted :class:`~clinanon.detect.crf.CRFDetector` that ``config`` trains."""
    from clinanon.detect.crf import CRFDetector

    c = config.crf
    return CRFDetector(config.language, c1=c.c1, c2=c.c2, max_iterations=c.max_iterations, min_freq=c.min_freq,
                       tagging=config.tagging, seed=config.seed, rules=c.rules, score=c.score,
                       label_scheme=config.label_scheme, clusters=c.clusters, triggers=c.triggers,
                       structure=c.structure, case_augment=c.case_augment)


def _fit_crf(config: TrainConfig, train_docs: list[Document], dev_docs: list[Document], bar: Any
             ) -> tuple[Any, dict[str, Any]]:
    c = config.crf
    det = make_crf(config)
    task = bar.add_task("features", total=c.max_iterations, loss="-", dev="-")

    def on_iteration(it: Any) -> None:
        dev = f"{it.dev_f1:.4f}" if it.dev_f1 is not None else "-"
        bar.update(task, description="training", completed=it.iteration, loss=f"{it.loss:.1f}", dev=dev)

    det.fit(train_docs, dev_docs if (dev_docs and c.dev_each_iteration) else None, callback=on_iteration)
    bar.update(task, description="scoring dev", completed=c.max_iterations)
    report = det.training_report_
    assert report is not None
    training = {**report.to_dict(), "dev_tag_f1_per_iteration": [round(i.dev_f1, 4) for i in report.iterations
                                                                  if i.dev_f1 is not None]}
    return det, training


def _fit_spacy(config: TrainConfig, train_docs: list[Document], dev_docs: list[Document], progress: bool,
               say: Callable[[str], None]) -> tuple[Any, dict[str, Any]]:
    from clinanon.detect.spacy_ner import SpacyNERDetector

    s = config.spacy
    det = SpacyNERDetector(lang=config.language, label_scheme=config.label_scheme, batch_size=s.batch_size,
                           config=config.resolve(s.config) if s.config is not None else None, seed=config.seed,
                           max_steps=s.max_steps, max_epochs=s.max_epochs, eval_frequency=s.eval_frequency,
                           patience=s.patience, keep=s.keep, overrides=s.overrides, tokenizer=s.tokenizer)
    det.fit(train_docs, dev_docs or None, progress=progress, log=say)
    say("scoring dev")
    report = det.training_report_
    assert report is not None and det.nlp is not None
    training = {**report.to_dict(),
                "dev_f1_per_evaluation": ([round(r.ents_f, 4) if r.ents_f is not None else None
                                           for r in report.evaluations] if dev_docs else []),
                "spacy_performance": {k: (round(v, 4) if isinstance(v, float) else v)
                                      for k, v in (det.nlp.meta.get("performance") or {}).items()}}
    return det, training


def _fit_transformer(config: TrainConfig, train_docs: list[Document], dev_docs: list[Document], progress: bool
                     ) -> tuple[Any, dict[str, Any]]:
    from clinanon.detect.neural.transformer import TransformerDetector

    t = config.transformer
    if t is None:
        raise ConfigError('detector = "transformer" needs a [transformer] table with base_model (a local folder)')
    det = TransformerDetector(config.language, base_model=config.resolve(t.base_model), from_scratch=t.from_scratch,
                              max_length=t.max_length, stride=t.stride, batch_size=t.batch_size, epochs=t.epochs,
                              lr=t.lr, weight_decay=t.weight_decay, warmup=t.warmup, clip=t.clip,
                              patience=t.patience, class_weights=t.class_weights, crf=t.crf, seed=config.seed,
                              device=t.device, label_scheme=config.label_scheme, threads=t.threads,
                              empty_windows=t.empty_windows)
    with _progress(progress, 1) as bar:
        task = bar.add_task("fine-tuning", total=None, loss="-", dev="-")
        last_dev = ["-"]

        def on_step(info: Any) -> None:
            if info.epoch_done and info.dev_f1 is not None:
                last_dev[0] = f"{info.dev_f1:.4f} (epoch {info.epoch})"
            bar.update(task, description=f"epoch {info.epoch}/{info.max_epochs}", total=info.total_steps,
                       completed=info.step, loss=f"{info.loss:.3f}", dev=last_dev[0])

        det.fit(train_docs, dev_docs or None, callback=on_step)
        bar.update(task, description="scoring dev")
    report = det.training_report_
    assert report is not None
    training = {**report.to_dict(),
                "dev_span_f1_per_epoch": [round(e.dev_f1, 4) for e in report.epochs if e.dev_f1 is not None]}
    return det, training


def _fit_bilstm_crf(config: TrainConfig, train_docs: list[Document], dev_docs: list[Document], progress: bool,
                    say: Callable[[str], None]) -> tuple[Any, dict[str, Any]]:
    import tempfile

    from clinanon.detect.neural._torch import require_torch
    from clinanon.detect.neural.bilstm_crf import BiLSTMCRFDetector

    b = config.bilstm_crf
    torch = require_torch("the BiLSTM-CRF detector")
    if b.threads:
        torch.set_num_threads(b.threads)
    training: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="clinanon-vectors-") as tmp:
        vectors = config.resolve(b.vectors) if b.vectors is not None else None
        if vectors is None and b.vectors_from != "none":
            from clinanon.detect.neural.embeddings import train_vectors

            texts = [d.text for d in train_docs] + ([d.text for d in dev_docs] if b.vectors_from == "train+dev"
                                                    else [])
            say(f"training {b.vectors_method} word vectors on the {b.vectors_from} texts")
            vectors = Path(tmp) / "vectors.vec"
            training["vectors"] = dict(train_vectors(texts, config.language, vectors, method=b.vectors_method,
                                                     dim=b.word_dim, epochs=b.vectors_epochs, seed=config.seed),
                                       source=b.vectors_from)
        det = BiLSTMCRFDetector(
            config.language, label_scheme=config.label_scheme, tagging=config.tagging, seed=config.seed,
            vectors=vectors, word_dim=b.word_dim, train_embeddings=b.train_embeddings, char_cnn=b.char_cnn,
            char_filters=b.char_filters, hidden=b.hidden, layers=b.layers, dropout_input=b.dropout_input,
            dropout_lstm=b.dropout_lstm, dropout_output=b.dropout_output, word_dropout=b.word_dropout, lr=b.lr,
            batch_size=b.batch_size, max_epochs=b.max_epochs, patience=b.patience, max_seconds=b.max_seconds,
            clip=b.clip, max_len=b.max_len, min_batches=b.min_batches, rule_features=b.rule_features,
            device=b.device)
        with _progress(progress, b.max_epochs) as bar:
            task = bar.add_task("epochs", total=b.max_epochs, loss="-", dev="-")

            def on_epoch(e: Any) -> None:
                dev = f"{e.dev_f1:.4f} (best: epoch {e.best_epoch})" if e.dev_f1 is not None else "-"
                bar.update(task, description="training", completed=e.epoch, loss=f"{e.loss:.2f}", dev=dev)
                if not progress:  # a log line per epoch instead (no text of any note)
                    say(f"epoch {e.epoch}/{e.max_epochs}: loss {e.loss:.2f}, dev span F1 {dev}, {e.seconds:.0f} s")

            det.fit(train_docs, dev_docs or None, callback=on_epoch)
            bar.update(task, description="scoring dev", completed=b.max_epochs)
    # the vectors live in the model's embedding matrix; a path to a temporary file would mean nothing later
    det.vectors = str(b.vectors) if b.vectors is not None else (f"<{b.vectors_from}>" if b.vectors_from != "none"
                                                                 else None)
    report = det.training_report_
    assert report is not None
    training.update(report.to_dict())
    training["dev_span_f1_per_epoch"] = [round(e.dev_f1, 4) for e in report.epochs if e.dev_f1 is not None]
    return det, training


def train(config: TrainConfig, *, output: str | Path | None = None, progress: bool = True,
          log: Callable[[str], None] | None = None) -> TrainResult:
    """Train the configured detector, score it on the dev data, and write the model directory.

    ``output`` overrides ``config.output``. ``progress`` shows a rich progress bar on stderr (CRF: iterations,
    loss, the token-level dev score per iteration; spaCy: steps, loss, our dev F1 on character offsets and
    spaCy's own per evaluation). ``log`` receives short status lines (no document text).
    Raises :class:`ConfigError` / :class:`InputError` for a bad config or unreadable data.
    """
    from clinanon import __version__

    say = log or (lambda _msg: None)
    out = Path(output) if output is not None else config.resolve(config.output)
    train_path = config.resolve(config.data.train)
    t_start = time.perf_counter()
    train_docs = relabel(_read(train_path, config.data.train_format, config.data.limit), config.data.label_map)
    if not train_docs:
        raise InputError("no training documents", path=train_path)
    dev_docs: list[Document] = []
    dev_path = config.resolve(config.data.dev) if config.data.dev is not None else None
    if dev_path is not None:
        dev_docs = relabel(_read(dev_path, config.data.dev_format), config.data.label_map)
    say(f"read {len(train_docs)} training and {len(dev_docs)} dev documents")
    lic = config.resolve(config.data.license) if config.data.license is not None else _find_license(train_path)
    if lic is not None and not lic.is_file():
        raise ConfigError(f"data.license: no such file: {lic}")

    scores: dict[str, Any] = {}

    def score_dev(det: Any) -> None:
        if dev_docs:
            t0 = time.perf_counter()
            pred = det.predict(dev_docs)
            seconds = time.perf_counter() - t0
            scores.update(dev_scores(dev_docs, pred, config.language))
            scores["chars_per_s"] = round(sum(len(d.text) for d in dev_docs) / seconds) if seconds > 0 else None

    if config.detector == "spacy":
        det, training = _fit_spacy(config, train_docs, dev_docs, progress, say)
        score_dev(det)
        tagging = "BILUO"  # spaCy's transition-based NER
    elif config.detector == "transformer":
        det, training = _fit_transformer(config, train_docs, dev_docs, progress)
        score_dev(det)
        tagging = "BIO"
    elif config.detector == "bilstm_crf":
        det, training = _fit_bilstm_crf(config, train_docs, dev_docs, progress, say)
        score_dev(det)
        tagging = config.tagging
    else:
        with _progress(progress, config.crf.max_iterations) as bar:
            det, training = _fit_crf(config, train_docs, dev_docs, bar)
            score_dev(det)
            bar.update(bar.task_ids[0], description="done")
        tagging = config.tagging

    meta = {
        "language": config.language,
        "label_scheme": config.label_scheme,
        "tagging": tagging,
        "seed": config.seed,
        "data": {
            "train": {"path": str(config.data.train), "format": config.data.train_format,
                      "documents": len(train_docs), "chars": sum(len(d.text) for d in train_docs),
                      "digest": data_digest(train_docs)},
            "dev": ({"path": str(config.data.dev), "format": config.data.dev_format, "documents": len(dev_docs),
                     "chars": sum(len(d.text) for d in dev_docs), "digest": data_digest(dev_docs)}
                    if dev_docs else None),
        },
        "scores": {"dev": scores} if scores else {},
        "training": {**training, "total_seconds": round(time.perf_counter() - t_start, 3)},
        "license": "LICENSE" if lic is not None else None,
        "attribution": config.data.attribution,
        "config": config.model_dump(mode="json"),
        "trained_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "clinanon_version": __version__,
    }
    det.save(out, meta)
    if config.detector == "transformer" and config.transformer is not None and config.transformer.onnx:
        from clinanon.detect.neural.onnx_export import export_onnx

        say("exporting ONNX")
        export_onnx(out)
    if lic is not None:
        shutil.copyfile(lic, out / "LICENSE")
    if config.data.attribution or lic is not None:
        text = config.data.attribution or "Trained on data distributed under the licence in LICENSE."
        (out / "ATTRIBUTION.txt").write_text(text.strip() + "\n", encoding="utf-8")
    say(f"model written to {out}")
    with suppress(OSError, ValueError):  # what was written, as a reader sees it
        meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    return TrainResult(out, meta, det)
