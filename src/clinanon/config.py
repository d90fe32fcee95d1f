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
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from clinanon.errors import ConfigError
from clinanon.lang import Language
from clinanon.profiles import DEFAULT_PROFILE, get_profile
from clinanon.taxonomy import CANONICAL_CATEGORIES, LabelScheme, get_scheme, list_schemes, register_scheme

__all__ = ["DEFAULT_CONFIG_TOML", "Config", "DetectorsConfig", "ListsConfig", "MetadataConfig", "OperatorConfig",
           "SchemeConfig", "read_toml", "resolve_path"]



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
    """Members (registered detector names, in priority order) combined per label (see clinanon.ensemble), and the
    combination profile (``profile``: how the members' spans are combined) of both the ``ensemble`` detector and
    the ``default`` detector's ensembles (rules + CRF). Not to be confused with the top-level ``profile``
    (:attr:`Config.profile`), the legal profile that decides which categories are PHI."""

    members: list[str] = Field(default_factory=lambda: ["crf", "rules"])
    #: union | vote | intersection | <member name>, for labels without an entry in ``strategies``
    default: str = "union"
    #: label (in the config's scheme) -> strategy
    strategies: dict[str, str] = Field(default_factory=dict)
    #: a strategy table written by Ensemble.choose (overrides the two keys above)
    strategies_file: Path | None = None
    tiebreak: str | None = None
    #: how the members are combined (not the legal ``profile`` at the top level, which decides what is PHI):
    #: ``recall-first``: what the ``rules`` member found of the ``protect`` categories is never dropped, whatever
    #: the strategies say (the ``default`` detector: union everywhere); ``meddocan-f1``: the strategies alone
    #: decide (the ``default`` detector: the per-label table chosen for F1 on MEDDOCAN dev, shipped with the model)
    profile: Literal["recall-first", "meddocan-f1"] = "recall-first"
    #: recall-first: the canonical categories (a type covers its subtypes) whose rule spans are kept
    protect: list[str] = Field(default_factory=lambda: ["NAME", "ID", "CONTACT", "DATE"])
    #: recall-first: rule spans scoring below this are not protected
    protect_min_score: float = Field(0.5, ge=0.0, le=1.0)

    @field_validator("protect")
    @classmethod
    def _check_protect(cls, v: list[str]) -> list[str]:
        for category in v:
            if category not in CANONICAL_CATEGORIES:
                raise ValueError(f"{category!r} is not a canonical category; use some of "
                                 f"{', '.join(CANONICAL_CATEGORIES)}")
        return v


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


class MetadataConfig(_Strict):
    """What ``clinanon deidentify`` keeps of each note's metadata (CSV columns, JSONL ``meta`` and other keys):
    by default only the document id, replaced, and ``lang`` — see :mod:`clinanon.metadata`. A field may be named
    in one list only."""

    #: the output document id: auto (pseudonym with a surrogate key, else sequence) | pseudonym (keyed HMAC of the
    #: input id) | sequence (``record-<n>``, the record's number in the input) | keep (the input id: not PHI)
    ids: Literal["auto", "pseudonym", "sequence", "keep"] = "auto"
    #: fields copied as they are
    keep_fields: list[str] = Field(default_factory=list)
    #: free-text fields run through the pipeline, like the note
    deidentify_fields: list[str] = Field(default_factory=list)
    #: identifier fields (patient, encounter) replaced by their keyed pseudonym (needs a surrogate key)
    pseudonymize_fields: list[str] = Field(default_factory=list)
    #: date fields (date of birth) shifted or generalised to the year, see ``date_method``
    date_fields: list[str] = Field(default_factory=list)
    #: auto (shift when the DATE operator is ``surrogate`` in patient or corpus scope, else year) | shift | year
    date_method: Literal["auto", "shift", "year"] = "auto"
    #: the patient id field for ``date_method = "shift"`` when no surrogate operator names one
    patient_field: str = "patient_id"
    #: the key of the pseudonyms (else the surrogate operator's key, else $CLINANON_SURROGATE_KEY)
    key_file: Path | None = None

    @model_validator(mode="after")
    def _one_list_per_field(self) -> MetadataConfig:
        seen: dict[str, str] = {}
        for what in ("keep_fields", "deidentify_fields", "pseudonymize_fields", "date_fields"):
            for name in getattr(self, what):
                if not name:
                    raise ValueError(f"{what}: empty field name")
                if name == "replacements":
                    raise ValueError(f"{what}: 'replacements' is written by clinanon itself (the replacement log)")
                if name in seen and seen[name] != what:
                    raise ValueError(f"field {name!r} is listed in both {seen[name]} and {what}")
                seen[name] = what
        return self


class SchemeConfig(_Strict):
    """A user label scheme: native label -> canonical category."""

    name: str
    description: str = "user-defined label scheme"
    labels: dict[str, str]

    def to_scheme(self) -> LabelScheme:
        """The :class:`~clinanon.taxonomy.LabelScheme` (checks every category; raises ConfigError)."""
        return LabelScheme(self.name, self.description, self.labels)


class Config(_Strict):
    #: the language of every note (``en``, ``es``, ``nl``, ``sv``, ``de``), or ``auto`` (the default): each note's own,
    #: its ``meta.lang`` when set, else identified from its text (:mod:`clinanon.lang.identify`); a note in another
    #: language, or whose language cannot be told, is refused (an error naming the note, never processed silently)
    language: Language | Literal["auto"] = "auto"
    #: the native labels predictions carry (``canonical`` keeps clinanon's categories)
    label_scheme: str = "canonical"
    #: the legal profile: which detected categories are PHI and replaced (:mod:`clinanon.profiles`;
    #: ``clinanon profiles``): ``gdpr-strict`` (the default: everything detected), ``hipaa`` (Safe Harbor: ages up
    #: to 89, clock times, sex, professions, states and countries are kept) or ``meddocan`` (that corpus's
    #: convention). Not ``detectors.ensemble.profile``, which says how an ensemble combines its members.
    profile: str = DEFAULT_PROFILE
    #: notes longer than this (characters) are detected in windows of ``window_chars`` (:mod:`clinanon.windows`:
    #: bounded memory, linear time; names still propagated over the whole note); ``0``: every note in one piece.
    #: The defaults are :data:`clinanon.windows.LONG_NOTE_CHARS` and :data:`~clinanon.windows.WINDOW_CHARS`.
    long_note_chars: int = Field(100_000, ge=0)
    #: the size of a window's core (characters; each window also reads 2 000 characters on each side)
    window_chars: int = Field(40_000, ge=100)
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
    #: what de-identified outputs keep of the notes' metadata (ids, columns, meta fields)
    metadata: MetadataConfig = Field(default_factory=MetadataConfig)
    #: the folder relative paths in this config are resolved against (set by ``load``)
    base_dir: Path | None = Field(default=None, exclude=True)

    @field_validator("profile")
    @classmethod
    def _check_profile(cls, v: str) -> str:
        try:
            return get_profile(v).name
        except ConfigError as e:
            raise ValueError(str(e)) from None

    @field_validator("language", mode="before")
    @classmethod
    def _language_auto(cls, v: Any) -> Any:
        """``None`` (no language given) means ``auto``."""
        return "auto" if v is None else v

    @property
    def given_language(self) -> str | None:
        """The language every note is in (``language`` when given), ``None`` for ``auto``."""
        return None if self.language == "auto" else str(self.language)

    @property
    def default_language(self) -> str:
        """The language of what is built before a note is read: a detector's fallback when it is called outside a
        pipeline on a document without ``meta.lang``, the ``default`` detector's first build, the operators'
        default locale. ``language`` when given; with ``auto``, ``es``: the language of the shipped model, which
        so loads (and fails on a broken install) before the first note. A pipeline never gives a note this
        language in ``auto`` mode: each note's language is its own (:meth:`clinanon.analysis.Analysis.of`)."""
        return self.given_language or "es"

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
                f"{'.'.join(str(p) for p in err['loc']) or '(top level)'}: "
                f"{str(err['msg']).removeprefix('Value error, ')}" for err in e.errors()
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

# Language of the notes: en, es, nl, sv, de (tokenizer, rules, gazetteers, month names), or "auto": each note's
# own, its meta.lang when set, else identified from its text; a note in another language, or too short to tell,
# is refused (the errors report names it) instead of being processed in the wrong language.
language = "auto"

# Labels of the spans clinanon writes and evaluates: a registered scheme
# (canonical, i2b2-2014, meddocan, hipaa, nubes-phi, stockholm-epr, tab, ontonotes, presidio: see `clinanon labels`)
# or one defined below under [[schemes]].
label_scheme = "canonical"

# What counts as PHI (`clinanon profiles` lists them; docs/profiles.md has the table with the legal references):
#   gdpr-strict: everything detected is replaced: names, places, dates and clock times, ages, sex, professions,
#                contacts, ids (GDPR Art. 4(1), Recital 26) -- the default
#   hipaa:       HIPAA Safe Harbor, the 18 identifiers: ages up to 89, clock times ("4PM"), sex, professions,
#                states and countries are kept
#   meddocan:    the MEDDOCAN corpus convention (everything but clock times)
# The same flag of `clinanon evaluate --profile` scores a corpus by its own convention.
# (Not detectors.ensemble.profile below, which only says how an ensemble combines its members.)
profile = "gdpr-strict"

# Long notes (a concatenated export, a whole stay in one file): a note longer than long_note_chars characters is
# detected in windows of about window_chars characters (cut at paragraph, line or sentence ends, each read with
# 2 000 characters of context on both sides; a name found anywhere is still propagated over the whole note), so
# that memory stays bounded and time linear. 0 = every note in one piece (memory then grows by about 1.6 kB per
# character). Smaller windows: less memory, a little more time (the overlaps are read twice).
long_note_chars = 100000
window_chars = 40000

[detectors]
# Detectors run in this order; their candidates are merged by the resolver.
#   default:  per document (its language, see above): for Spanish the rules + the shipped CRF model
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
# Trained models (`clinanon train`, listed by `clinanon models`). A CRF here is also used by `default` for the
# notes in its language, with that language's rules (it replaces the shipped model for Spanish):
# models = { crf = "models/my-crf" }

# [detectors.ensemble]
# How the default's ensembles (rules + CRF) and the `ensemble` detector combine their members (a combination
# profile; what counts as PHI is the top-level `profile` above):
#   recall-first: what the rules found of the `protect` categories is never dropped (where the CRF disagrees on
#                 its extent, the union of both is replaced)
#   meddocan-f1:  the per-label strategies chosen for F1 on MEDDOCAN dev; names need the CRF's vote (fewer false
#                 positives on MEDDOCAN-style case reports, names leak in other styles)
# profile = "recall-first"
# protect = ["NAME", "ID", "CONTACT", "DATE"]
# protect_min_score = 0.5

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

# What `clinanon deidentify` writes besides the sanitized text. Safe by default: CSV columns and JSONL meta
# fields are DROPPED unless listed below (only `lang` and the replacement log are kept), and the document id
# is replaced. `clinanon detect` (original text + spans) keeps ids and metadata as they are.
[metadata]
# Output ids: "auto" = "pseudonym" when a surrogate key is given (--key-file, the surrogate operator's key or
# $CLINANON_SURROGATE_KEY; keyed HMAC of the input id: the same in every run with that key) else "sequence"
# (record-<n>: the record's number in the input, as in the errors report); "keep" only for ids that are not PHI.
ids = "auto"
# Fields copied as they are (e.g. ward, note type).
keep_fields = []
# Free-text fields run through the pipeline like the note (same surrogates and date shift as the note).
deidentify_fields = []
# Patient / encounter ids replaced by their keyed pseudonym (needs a key; equal values stay equal: tables join).
pseudonymize_fields = []
# Structured dates (date of birth): shifted by the note's surrogate date offset, or kept as the year only.
date_fields = []
# "auto": "shift" when the DATE operator is surrogate in patient or corpus scope, else "year".
date_method = "auto"
# patient_field = "patient_id"     # whose offset "shift" uses when no surrogate operator names the field
# key_file = "secret.key"          # the pseudonyms' key, when no surrogate operator has one
"""
