"""One validated configuration: a TOML file ⇄ a pydantic model.

``clinanon init-config`` writes :data:`DEFAULT_CONFIG_TOML` (commented); ``Config.load(path)`` reads and validates a
file and names the file, the line and the key when something is wrong.

Validation has no side effects. Three methods do what every user of a configuration needs:

* :meth:`Config.with_overrides` — the same configuration with top-level keys replaced (CLI flags, keyword
  arguments of :meth:`~clinanon.pipeline.Pipeline.from_config`), validated again, keeping ``base_dir``;
  :meth:`Config.from_options` loads a file (or takes the defaults) and applies them.
* :meth:`Config.resolve_path` — a path of the configuration, relative ones against the configuration's folder.
* :meth:`Config.register_schemes` — registers the configuration's own label schemes (``[[schemes]]``) in the
  process-wide registry of :mod:`clinanon.taxonomy`, so that components that look a scheme up by name find them.
  It is called where a pipeline or a command is built (``Pipeline.from_config``, :mod:`clinanon.runner`, the CLI),
  never by validation.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from clinanon.errors import ConfigError
from clinanon.lang import Language
from clinanon.taxonomy import CANONICAL_CATEGORIES, LabelScheme, get_scheme, list_schemes, register_scheme

__all__ = ["DEFAULT_CONFIG_TOML", "Config", "DetectorsConfig", "ListsConfig", "OperatorConfig", "SchemeConfig",
           "read_toml", "resolve_path"]



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


def resolve_path(path: str | Path, base: Path | None) -> Path:
    """``path`` as given when it is absolute or there is no ``base``, else ``base / path`` (neither made absolute
    nor normalised: what a relative entry of a configuration file has always meant)."""
    path = Path(path)
    return path if path.is_absolute() or base is None else base / path


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
    """Members (registered detector names, in priority order) combined per label (see clinanon.ensemble)."""

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
        """``words``, then the entries of each file (relative ``files`` against ``base``, see :func:`resolve_path`;
        blank lines and ``#`` comments skipped)."""
        out = list(self.words)
        for f in self.files:
            path = resolve_path(f, base)
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

    def to_scheme(self) -> LabelScheme:
        """The :class:`~clinanon.taxonomy.LabelScheme` (checks every category; raises ConfigError)."""
        return LabelScheme(self.name, self.description, self.labels)


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
    def _check_schemes(self) -> Config:
        """Every user scheme maps onto canonical categories, and ``label_scheme`` names one of this configuration's
        own schemes or a registered one. Nothing is registered here (see :meth:`register_schemes`)."""
        own: dict[str, LabelScheme] = {}
        for s in self.schemes:
            try:
                own[s.name.lower()] = s.to_scheme()
            except ConfigError as e:
                raise ValueError(f"schemes.{s.name}: {e}") from None
        if self.label_scheme.lower() not in own:
            try:
                get_scheme(self.label_scheme)
            except ConfigError:
                registered = list_schemes()
                known = registered + [u.name for u in own.values() if u.name not in registered]
                raise ValueError(f"label_scheme: unknown label scheme {self.label_scheme!r}; "
                                 f"known: {', '.join(known)}") from None
        return self

    def user_schemes(self) -> list[LabelScheme]:
        """This configuration's own label schemes (``[[schemes]]``), in order."""
        return [s.to_scheme() for s in self.schemes]

    def register_schemes(self) -> Config:
        """Register this configuration's own label schemes process-wide, replacing a scheme of the same name (the
        last one registered wins), so that components that look a scheme up by name find them; returns ``self``.

        Called where a pipeline or a command is built (``Pipeline.from_config``, :mod:`clinanon.runner`, the CLI),
        never by validation."""
        for scheme in self.user_schemes():
            register_scheme(scheme, overwrite=True)
        return self

    @property
    def scheme(self) -> LabelScheme:
        """The scheme ``label_scheme`` names: this configuration's own when it defines one of that name (the last
        such), else the registered one."""
        for s in reversed(self.schemes):
            if s.name.lower() == self.label_scheme.lower():
                return s.to_scheme()
        return get_scheme(self.label_scheme)

    def resolve_path(self, path: str | Path) -> Path:
        """A path of this configuration: an absolute one as given, a relative one against the configuration's folder
        (``base_dir``, set by :meth:`load`; as given when there is none)."""
        return resolve_path(path, self.base_dir)

    def with_overrides(self, overrides: Mapping[str, Any] | None = None, /, *, source: str = "<config>",
                       **kw: Any) -> Config:
        """This configuration with top-level keys replaced by ``overrides`` and ``kw`` (a section is replaced whole:
        ``detectors={...}``), validated again (errors name ``source``), keeping ``base_dir``. Without overrides,
        ``self``."""
        changes = {**(overrides or {}), **kw}
        if not changes:
            return self
        data = self.model_dump(exclude={"base_dir"})
        data.update(changes)
        return type(self).from_dict(data, source=source).model_copy(update={"base_dir": self.base_dir})

    @classmethod
    def from_options(cls, path: str | Path | None = None, overrides: Mapping[str, Any] | None = None, *,
                     source: str = "<config>") -> Config:
        """The file at ``path`` (:meth:`load`), or the defaults, with ``overrides`` applied (:meth:`with_overrides`;
        their errors name ``source``). Registers nothing."""
        base = cls.load(path) if path is not None else cls()
        return base.with_overrides(overrides, source=source)

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
