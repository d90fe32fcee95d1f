"""PyTorch, imported only when a neural detector is used, and the device it runs on.

PyTorch is the optional extra ``neural`` (``pip install "clinanon[neural]"``, pinned to the CPU wheel).
:func:`require_torch` imports it or raises a :class:`~clinanon.errors.ConfigError` that names the extra, so
``import clinanon`` and the default pipeline never need it.
"""

from __future__ import annotations

import random
from typing import Any

from clinanon.errors import ConfigError

__all__ = ["INSTALL_HINT", "choose_device", "require_torch", "seed_everything", "torch_available"]

INSTALL_HINT = 'pip install "clinanon[neural]"'


def require_torch(what: str = "the neural detectors") -> Any:
    """The ``torch`` module; :class:`ConfigError` naming the ``neural`` extra when it is not installed."""
    try:
        import torch
    except ImportError:
        raise ConfigError(f"{what} need PyTorch, which is not installed: {INSTALL_HINT} "
                          "(the 'neural' extra: torch, transformers, onnxruntime, gensim)") from None
    return torch


def torch_available() -> bool:
    """Whether ``torch`` can be imported."""
    try:
        require_torch()
    except ConfigError:
        return False
    return True


def choose_device(device: str | None = "auto") -> Any:
    """A ``torch.device``: ``"auto"`` (or ``None``) picks CUDA when a GPU is visible, else the CPU; ``"cpu"``,
    ``"cuda"``, ``"cuda:1"`` ... are taken as given (:class:`ConfigError` when CUDA is asked for and absent)."""
    torch = require_torch()
    if device is None or device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError):
        raise ConfigError(f"unknown device {device!r}; expected 'auto', 'cpu' or 'cuda[:N]'") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ConfigError(f"device {device!r} asked for, but no CUDA device is available")
    return dev


def seed_everything(seed: int) -> None:
    """Seed Python's, NumPy's and PyTorch's generators (CPU and CUDA)."""
    torch = require_torch()
    random.seed(seed)
    try:
        import numpy as np

        np.random.seed(seed % 2**32)
    except ImportError:  # pragma: no cover - numpy comes with torch
        pass
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
