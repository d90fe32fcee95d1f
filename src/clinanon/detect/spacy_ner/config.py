"""spaCy training configs for :class:`~clinanon.detect.spacy_ner.SpacyNERDetector`: spaCy's ``ner`` preset, or a
config file, with clinanon's tokenizer, scorer, training logger, epoch callback, score weights and seed put in.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from thinc.api import Config

from clinanon.detect.spacy_ner.scoring import SCORER_NAME
from clinanon.detect.spacy_ner.tokenizer import TOKENIZER_NAME
from clinanon.detect.spacy_ner.train_log import LOGGER_NAME, STEP_CALLBACK_NAME
from clinanon.errors import ConfigError
from clinanon.lang import check_language

__all__ = ["SCORE_WEIGHTS", "TOKENIZERS", "Tokenizer", "build_config", "default_config"]

#: score weights put into every training config: our subtask-1 F1 on character offsets picks the best checkpoint
SCORE_WEIGHTS: dict[str, float | None] = {
    "clinanon_ents_f": 1.0, "clinanon_ents_p": 0.0, "clinanon_ents_r": 0.0, "clinanon_spans_f": 0.0,
    "ents_f": 0.0, "ents_p": 0.0, "ents_r": 0.0, "ents_per_type": None,
}

Tokenizer = Literal["clinanon", "spacy"]
TOKENIZERS = {"clinanon": TOKENIZER_NAME, "spacy": "spacy.Tokenizer.v1"}


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
    cfg["nlp"]["tokenizer"] = {"@tokenizers": TOKENIZERS[tokenizer]}
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
