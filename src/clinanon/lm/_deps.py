"""The optional packages of :mod:`clinanon.lm` (torch, transformers, tokenizers), imported only when used."""

from __future__ import annotations

from typing import Any

from clinanon.errors import ConfigError

__all__ = ["INSTALL_HINT", "require_lm", "require_tokenizers"]

INSTALL_HINT = 'pip install "clinanon[lm]"'


def require_tokenizers() -> Any:
    """The ``tokenizers`` module, or a :class:`ConfigError` naming the ``lm`` extra."""
    try:
        import tokenizers
    except ImportError:
        raise ConfigError(f"training a tokenizer needs the 'tokenizers' package: {INSTALL_HINT}") from None
    return tokenizers


def require_lm(what: str = "this language-model step") -> tuple[Any, Any]:
    """``(torch, transformers)``, or a :class:`ConfigError` naming the ``lm`` extra."""
    try:
        import torch
        import transformers
    except ImportError as e:
        raise ConfigError(f"{what} needs torch and transformers ({e.name} is not installed): {INSTALL_HINT}"
                          ) from None
    return torch, transformers
