"""Trained models: the ones shipped inside the package and the user's own.

A model is a directory with a ``meta.json`` (written by ``clinanon train`` or ``scripts/build_shipped_model.py``):
``language``, ``label_scheme``, ``labels``, ``detector`` (``crf`` / ``spacy``), ``scores``, licence files.

* shipped models: ``clinanon/data/models/<name>/`` (package data);
* user models: every sub-directory with a ``meta.json`` of the folder given as ``user_dir`` (the configuration's
  models folder) or, when none is given, of the ``CLINANON_MODELS`` environment variable.

:func:`default_detector` is what the ``default`` detector (the configuration's default) means for one language:
for Spanish, the rules and the shipped CRF combined by an :class:`~clinanon.ensemble.Ensemble`; for every
other language, the rules alone.

How the Spanish ensemble combines its members is a **profile** (configuration: ``detectors.ensemble.profile``):

* ``recall-first`` (the default): every label is the union of both members, and what the rules found of the
  protected categories (names, IDs, contacts, dates, with a score of at least 0.5) is never dropped: where the
  CRF disagrees on its extent, the union of both extents is replaced (:class:`~clinanon.steps.combine.Protection`).
  A privacy tool's default should not need a model's agreement to hide a name that a rule found.
* ``meddocan-f1``: the per-label strategy table shipped next to the model (``strategies.json``, chosen for F1 on
  MEDDOCAN dev by a model trained on train only) and no protection: names need the CRF's vote. Best on notes in
  MEDDOCAN's style, it leaks names the rules found in other styles (``benchmarks/recall_first.py`` measures both).

The pipeline picks the detector per document (``meta["lang"]``, else the configured language) through
:class:`clinanon.pipeline.LanguageDispatch`, building each language's detector once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from clinanon.errors import ConfigError, InputError

__all__ = ["DEFAULT_MODELS", "DEFAULT_PROFILE", "ENV_VAR", "PROFILES", "ModelInfo", "default_detector",
           "default_model", "find_model", "list_models", "profile_selection", "shipped_dir"]

ENV_VAR = "CLINANON_MODELS"
#: language -> the shipped model the ``default`` detector uses
DEFAULT_MODELS: dict[str, str] = {"es": "es-meddocan-crf"}
STRATEGY_FILE = "strategies.json"
#: the profiles of the default ensemble (see the module docstring); the first is the default
PROFILES: tuple[str, ...] = ("recall-first", "meddocan-f1")
DEFAULT_PROFILE = "recall-first"


@dataclass(frozen=True)
class ModelInfo:
    """One model directory and what its ``meta.json`` says (no corpus text)."""

    name: str
    path: Path
    origin: Literal["shipped", "user"]
    detector: str | None
    language: str | None
    label_scheme: str | None
    labels: tuple[str, ...] = ()
    scores: Mapping[str, Any] = field(default_factory=dict)
    size_bytes: int = 0
    license: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "path": str(self.path), "origin": self.origin, "detector": self.detector,
                "language": self.language, "label_scheme": self.label_scheme, "labels": list(self.labels),
                "scores": dict(self.scores), "size_bytes": self.size_bytes, "license": self.license}

    def summary_scores(self) -> dict[str, float]:
        """Dev subtask-1/2 F1 when the meta has them (``{}`` for the shipped model, trained on train + dev)."""
        dev = self.scores.get("dev") if isinstance(self.scores, Mapping) else None
        out: dict[str, float] = {}
        if isinstance(dev, Mapping):
            for key in ("subtask1", "subtask2"):
                m = dev.get(key)
                if isinstance(m, Mapping) and isinstance(m.get("f1"), int | float):
                    out[key] = float(m["f1"])
        return out


def shipped_dir() -> Path:
    """The folder of the shipped models (inside the installed package)."""
    return Path(str(resources.files("clinanon"))) / "data" / "models"


def _info(path: Path, origin: Literal["shipped", "user"]) -> ModelInfo:
    meta_path = path / "meta.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"cannot read the model metadata ({type(e).__name__})", path=meta_path) from None
    if not isinstance(meta, dict):
        raise InputError("expected a JSON object", path=meta_path)
    size = sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    lic = meta.get("license_name") or meta.get("license")
    return ModelInfo(
        name=str(meta.get("name") or path.name), path=path, origin=origin,
        detector=meta.get("detector"), language=meta.get("language") or (meta.get("params") or {}).get("lang"),
        label_scheme=meta.get("label_scheme") or (meta.get("params") or {}).get("label_scheme"),
        labels=tuple(meta.get("labels") or ()), scores=meta.get("scores") or {}, size_bytes=size,
        license=str(lic) if lic else None)


def _scan(folder: Path, origin: Literal["shipped", "user"]) -> list[ModelInfo]:
    if not folder.is_dir():
        return []
    return [_info(p, origin) for p in sorted(folder.iterdir()) if (p / "meta.json").is_file()]


def _user_dir(user_dir: str | Path | None) -> Path | None:
    if user_dir is not None:
        return Path(user_dir)
    env = os.environ.get(ENV_VAR)
    return Path(env) if env else None


def list_models(user_dir: str | Path | None = None) -> list[ModelInfo]:
    """Shipped models, then user models (``user_dir``, else ``$CLINANON_MODELS``), each sorted by folder name.

    A user folder that does not exist raises :class:`ConfigError`; an unreadable meta.json raises
    :class:`InputError` naming it."""
    out = _scan(shipped_dir(), "shipped")
    udir = _user_dir(user_dir)
    if udir is not None:
        if not udir.is_dir():
            raise ConfigError(f"models folder {udir} does not exist (from "
                              f"{'the configuration' if user_dir is not None else ENV_VAR})")
        out.extend(_scan(udir, "user"))
    return out


def find_model(name: str, user_dir: str | Path | None = None) -> ModelInfo:
    """A model by name (a user model shadows a shipped one of the same name) or by directory path."""
    p = Path(name)
    if (p / "meta.json").is_file():
        return _info(p, "user")
    found = {m.name: m for m in list_models(user_dir)}  # user models come last: they win
    if name not in found:
        raise ConfigError(f"no model named {name!r}; known: {', '.join(sorted(found)) or '(none)'}")
    return found[name]


def default_model(lang: str) -> ModelInfo | None:
    """The shipped model the ``default`` detector uses for ``lang`` (``None``: rules only)."""
    name = DEFAULT_MODELS.get(lang)
    if name is None:
        return None
    path = shipped_dir() / name
    return _info(path, "shipped") if (path / "meta.json").is_file() else None


def profile_selection(profile: str, model_dir: Path | None = None, *,
                      protect: Any = None) -> tuple[Any, Any]:
    """The strategy table and the protection of a profile (see the module docstring), as
    ``(StrategyTable, Protection | None)``.

    ``model_dir``: where ``meddocan-f1`` reads its table (``strategies.json``; missing: ``union`` everywhere).
    ``protect``: the :class:`~clinanon.steps.combine.Protection` of ``recall-first`` (default: names, IDs,
    contacts and dates of the ``rules`` member scoring at least 0.5)."""
    from clinanon.ensemble import Protection, StrategyTable

    if profile == "recall-first":
        return StrategyTable(default="union"), (protect if protect is not None else Protection())
    if profile == "meddocan-f1":
        table_path = model_dir / STRATEGY_FILE if model_dir is not None else None
        table = StrategyTable.load(table_path) if table_path is not None and table_path.is_file() else StrategyTable()
        return table, None
    raise ConfigError(f"unknown ensemble profile {profile!r}; expected one of: {', '.join(PROFILES)}")


def default_detector(lang: str, *, label_scheme: str = "canonical", rules: Any = None,
                     model: str | Path | None = None, strategies: Any = None, profile: str = DEFAULT_PROFILE,
                     protect: Any = None) -> Any:
    """The ``default`` detector for ``lang``: rules + the shipped CRF ensemble where a model ships (Spanish),
    else the rules alone.

    ``label_scheme``: the scheme of the output labels (the pipeline's); the members vote in the model's own
    labels (MEDDOCAN for the shipped model), as in ``benchmarks/meddocan.py``.
    ``rules``: a configured :class:`RulesDetector` (default: ``RulesDetector(lang)``).
    ``model``: another CRF model directory. ``profile``: ``recall-first`` (default) or ``meddocan-f1``
    (:func:`profile_selection`); ``strategies``: a :class:`StrategyTable` that replaces the profile's table (its
    protection stays); ``protect``: the protection of ``recall-first``."""
    from clinanon.detect.crf import CRFDetector
    from clinanon.detect.rules.detector import RulesDetector
    from clinanon.ensemble import Ensemble

    if profile not in PROFILES:
        raise ConfigError(f"unknown ensemble profile {profile!r}; expected one of: {', '.join(PROFILES)}")
    rules = rules if rules is not None else RulesDetector(lang)
    if model is not None:
        model_dir: Path | None = Path(model)
    else:
        info = default_model(lang)
        model_dir = info.path if info is not None else None
    if model_dir is None:
        return rules
    crf = CRFDetector.load(model_dir)
    native = str(crf.label_scheme or label_scheme)  # members vote in the model's labels (as benchmarked)
    table, protection = profile_selection(profile, model_dir, protect=protect)
    if strategies is not None:
        table = strategies
    return Ensemble({"crf": crf, "rules": rules}, scheme=native, table=table, tiebreak="crf", lang=lang,
                    output_scheme=label_scheme, protect=protection)
