"""The model directory that trained detectors save to and load from: ``meta.json`` plus the detector's own files.

Shared by :class:`~clinanon.detect.crf.CRFDetector`, :class:`~clinanon.detect.neural.bilstm_crf.BiLSTMCRFDetector`
and :class:`~clinanon.detect.neural.transformer.TransformerDetector`, so that every model directory follows the same
conventions:

* ``meta.json`` is a JSON object with at least ``"detector"`` (the detector's registry name) and a version key
  (``"format"``, or the CRF's ``"feature_version"``); :func:`read_meta` checks both and raises an
  :class:`~clinanon.errors.InputError` naming the file (never its content) when it is missing, unreadable, another
  detector's or another version's.
* every file is written to a temporary name and renamed (:func:`write_bytes`, :func:`write_meta`), so a reader
  never sees half a model; a model is meant to be shared, so its files are made readable like any data file
  (:func:`share`).
* the saved constructor parameters rebuild the detector (:func:`build`), with the caller's overrides (``canonical``,
  ``device``) on top.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from clinanon.errors import ConfigError, InputError

__all__ = ["META_FILE", "build", "read_meta", "share", "write_bytes", "write_meta"]

META_FILE = "meta.json"

T = TypeVar("T")


def read_meta(path: str | Path, detector: str, *, version_key: str = "format", version: Any = None,
              hint: str = "") -> dict[str, Any]:
    """``meta.json`` of the model directory ``path``, checked: a JSON object written for ``detector`` whose
    ``version_key`` equals ``version`` (not checked when ``version`` is ``None``). ``hint`` ends the version
    error (e.g. ``": retrain it"``). Raises :class:`InputError` with the file's path otherwise."""
    meta_path = Path(path) / META_FILE
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("no meta.json: not a clinanon model directory", path=meta_path) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"cannot read the model metadata ({type(e).__name__})", path=meta_path) from None
    if not isinstance(meta, dict) or meta.get("detector") != detector:
        raise InputError(f"expected a {detector!r} model", path=meta_path)
    if version is not None and meta.get(version_key) != version:
        what = "feature version" if version_key == "feature_version" else version_key.replace("_", " ")
        raise InputError(f"model {what} {meta.get(version_key)!r}; this clinanon reads {what} {version}{hint}",
                         path=meta_path)
    return meta


def build(factory: Callable[..., T], meta: Mapping[str, Any], path: str | Path, **overrides: Any) -> T:
    """``factory(**params)`` with the parameters saved in ``meta`` (``"params"``) and the ``overrides`` that are
    not ``None``; :class:`InputError` naming ``meta.json`` when they do not fit the constructor."""
    params = dict(meta.get("params") or {})
    params.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return factory(**params)
    except (TypeError, ConfigError):
        raise InputError("unexpected model parameters", path=Path(path) / META_FILE) from None


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (a temporary file next to it, then renamed)."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, p)


def write_meta(path: str | Path, data: Mapping[str, Any]) -> Path:
    """Write ``data`` as ``meta.json`` of the model directory ``path`` (indented, UTF-8, atomically)."""
    from clinanon.io import atomic_write_text

    out = Path(path) / META_FILE
    atomic_write_text(out, json.dumps(dict(data), indent=2, ensure_ascii=False) + "\n")
    return out


def share(path: str | Path, names: Iterable[str] | None = None) -> None:
    """Make the model files readable by all (mode 0644): ``names`` in the directory ``path``, or every file below
    it when ``names`` is ``None``."""
    p = Path(path)
    files = (p / n for n in names) if names is not None else (f for f in p.rglob("*") if f.is_file())
    for f in files:
        os.chmod(f, 0o644)
