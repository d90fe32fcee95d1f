"""Neural PHI detectors (PyTorch, the optional extra ``neural``: ``pip install "clinanon[neural]"``).

* :class:`~clinanon.detect.neural.bilstm_crf.BiLSTMCRFDetector` (``bilstm_crf``): word embeddings + casing +
  character CNN -> BiLSTM -> CRF, trained from scratch on CPU; word vectors from
  :mod:`clinanon.detect.neural.embeddings` (``clinanon embeddings train``).
* :mod:`clinanon.detect.neural.transformer`: token classification with any local Hugging Face checkpoint.

Importing this package never imports PyTorch: the names below are loaded on first use, and building a detector
without PyTorch raises a :class:`~clinanon.errors.ConfigError` naming the extra.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BiLSTMCRFDetector", "TransformerDetector"]


def __getattr__(name: str) -> Any:
    if name == "BiLSTMCRFDetector":
        from clinanon.detect.neural.bilstm_crf import BiLSTMCRFDetector

        return BiLSTMCRFDetector
    if name == "TransformerDetector":
        from clinanon.detect.neural.transformer import TransformerDetector

        return TransformerDetector
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
