"""One validated configuration: a TOML file ⇄ a pydantic model.

``clinanon init-config`` writes :data:`DEFAULT_CONFIG_TOML` (commented); ``Config.load(path)`` reads and validates a
file and names the file, the line and the key when something is wrong.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from clinanon.errors import ConfigError
from clinanon.taxonomy import CANONICAL_CATEGORIES, LabelScheme, get_scheme, register_scheme
from clinanon.text import SUPPORTED_LANGUAGES

__all__ = ["DEFAULT_CONFIG_TOML", "Config", "DetectorsConfig", "ListsConfig", "OperatorConfig", "SchemeConfig",
           "read_toml"]

Language = Literal["en", "es", "nl", "sv", "de"]
assert set(Language.__args__) == set(SUPPORTED_LANGUAGES)  # type: ignore[attr-defined]


def read_toml(path: Path, what: str = "configuration") -> dict[str, Any]:
    """A TOML file as a dict; :class:`ConfigError` names the file (and TOML's line/column) when it cannot be read."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the {what} ({e.strerror})") from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8 (byte offset {e.start})") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class OperatorConfig(BaseModel):
    """``operator`` names a registered operator; every other key is a parameter of that operator."""

    model_config = ConfigDict(extra="allow", frozen=True)

    operator: str

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class EnsembleConfig(_Strict):
    """Members (registered detector names, in priority order) combined per label (see clinanon.detect.ensemble)."""

    members: list[str] = Field(default_factory=lambda: ["crf", "rules"])
    #: union | vote | intersection | <member name>, for labels without an entry in ``strategies``
    default: str = "union"
    #: label (in the config's scheme) -> strategy
    strategies: dict[str, str] = Field(default_factory=dict)
    #: a strategy table written by Ensemble.choose (overrides the two keys above)
    strategies_file: Path | None = None
    tiebreak: str | None = None


class DetectorsConfig(_Strict):
    #: registered detector names, run in this order: ``default`` (per document language: rules + the shipped CRF
    #: for Spanish, rules elsewhere), ``rules``, ``crf``, ``spacy``, ``ensemble``, ``gold``
    use: list[str] = Field(default_factory=lambda: ["default"])
    #: candidates scoring below this are dropped by the resolver
    min_score: float = Field(0.5, ge=0.0, le=1.0)
    #: a name found once in a document is found everywhere in it
    propagate_names: bool = True
    #: user gazetteers: kind (first_name, surname, city, country, hospital, ...) -> file with one entry per line
    gazetteers: dict[str, Path] = Field(default_factory=dict)
    #: trained model directories by detector name (``crf = "models/crf-meddocan"``), see ``clinanon train``
    models: dict[str, Path] = Field(default_factory=dict)
    #: the ``ensemble`` detector: members, per-label strategies
    ensemble: EnsembleConfig = Field(default_factory=lambda: EnsembleConfig())


class ListsConfig(_Strict):
    """Words/phrases (``words``) and files of them, one per line (``files``)."""

    words: list[str] = Field(default_factory=list)
    files: list[Path] = Field(default_factory=list)

    def load(self, base: Path | None = None) -> list[str]:
        out = list(self.words)
        for f in self.files:
            path = f if f.is_absolute() or base is None else base / f
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except OSError as e:
                raise ConfigError(f"{path}: cannot read list file ({e.strerror})") from None
            out.extend(s.strip() for s in lines if s.strip() and not s.lstrip().startswith("#"))
        return out


class SchemeConfig(_Strict):
    """A user label scheme: native label -> canonical category."""

    name: str
    description: str = "user-defined label scheme"
    labels: dict[str, str]


class Config(_Strict):
    language: Language = "es"
    #: the native labels predictions carry (``canonical`` keeps clinanon's categories)
    label_scheme: str = "canonical"
    detectors: DetectorsConfig = Field(default_factory=DetectorsConfig)
    #: canonical category or type (``NAME``, ``NAME.PATIENT``) or ``*`` for the default -> operator settings
    operators: dict[str, OperatorConfig] = Field(
        default_factory=lambda: {"*": OperatorConfig(operator="tag", template="[{type}]")}
    )
    #: never PHI (extends the built-in allow-lists of eponyms and field labels)
    allow: ListsConfig = Field(default_factory=ListsConfig)
    #: always PHI wherever it occurs (whole words)
    deny: ListsConfig = Field(default_factory=ListsConfig)
    schemes: list[SchemeConfig] = Field(default_factory=list)
    #: the folder relative paths in this config are resolved against (set by ``load``)
    base_dir: Path | None = Field(default=None, exclude=True)

    @field_validator("operators")
    @classmethod
    def _check_operator_keys(cls, v: dict[str, OperatorConfig]) -> dict[str, OperatorConfig]:
        for key in v:
            if key != "*" and key not in CANONICAL_CATEGORIES:
                raise ValueError(
                    f"operators.{key}: not a canonical category; use '*' or one of {', '.join(CANONICAL_CATEGORIES)}"
                )
        return v

    @model_validator(mode="after")
    def _register_schemes(self) -> Config:
        for s in self.schemes:
            try:
                register_scheme(LabelScheme(s.name, s.description, s.labels), overwrite=True)
            except ConfigError as e:
                raise ValueError(f"schemes.{s.name}: {e}") from None
        try:
            get_scheme(self.label_scheme)
        except ConfigError as e:
            raise ValueError(f"label_scheme: {e}") from None
        return self

    @property
    def scheme(self) -> LabelScheme:
        return get_scheme(self.label_scheme)

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "<config>") -> Config:
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(top level)'}: {err['msg']}" for err in e.errors()
            )
            raise ConfigError(f"{source}: invalid configuration: {problems}") from None

    @classmethod
    def load(cls, path: str | Path) -> Config:
        path = Path(path)
        cfg = cls.from_dict(read_toml(path), source=str(path))
        return cfg.model_copy(update={"base_dir": path.resolve().parent})

    def operator_settings(self) -> dict[str, OperatorConfig]:
        return dict(self.operators)


DEFAULT_CONFIG_TOML = """\
# clinanon configuration (TOML). Every key is optional; these are the defaults.
# Validate with: clinanon deidentify --config clinanon.toml ...  (errors name the key)

# Language of the notes: en, es, nl, sv, de (tokenizer, rules, gazetteers, month names).
language = "es"

# Labels of the spans clinanon writes and evaluates: a registered scheme
# (canonical, i2b2-2014, meddocan, hipaa, nubes-phi, stockholm-epr, tab, ontonotes, presidio: see `clinanon labels`)
# or one defined below under [[schemes]].
label_scheme = "canonical"

[detectors]
# Detectors run in this order; their candidates are merged by the resolver.
#   default:  per document (its meta.lang, else `language`): for Spanish the rules + the shipped CRF model
#             (es-meddocan-crf, see `clinanon models`), for the other languages the rules alone
#   rules:    patterns + gazetteers only (no model)
#   crf, spacy, ensemble: your own models (below), gold: the documents' own spans
use = ["default"]
# Candidates scoring below this are dropped.
min_score = 0.5
# A name found once in a document is also found everywhere else in it.
propagate_names = true
# Extra gazetteers, one entry per line: first_name, surname, city, country, hospital.
# gazetteers = { surname = "my_surnames.txt" }
# Trained models (`clinanon train`), used when their detector is in `use`.
# models = { crf = "models/crf-meddocan" }

# What to do with each canonical category (`clinanon labels canonical`): the most specific key wins
# (NAME.PATIENT beats NAME beats "*"). Operators: redact, tag, suppress, keep.
#   redact:   text = "XXXX"  or  mask_char = "*"  (same length)
#   tag:      template = "[{type}]"  ({label}, {category}, {type} are filled in), or preset = "label"
#   suppress: drops the whole sentence that holds the span (placeholder = "" by default)
#   keep:     leaves the span as it is
[operators."*"]
operator = "tag"
template = "[{type}]"

# [operators.DATE]
# operator = "redact"
# text = "XXXX"

# [operators.SEX]
# operator = "keep"

# Never PHI (added to the built-in allow-lists of medical eponyms and field labels).
[allow]
words = []
files = []

# Always PHI, wherever they occur as whole words.
[deny]
words = []
files = []

# Your own label scheme: native label -> canonical category.
# [[schemes]]
# name = "my-corpus"
# labels = { PATIENT_NAME = "NAME.PATIENT", DOB = "DATE" }
"""
