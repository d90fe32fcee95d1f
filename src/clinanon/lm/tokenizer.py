"""A byte-level BPE vocabulary (RoBERTa's kind), trained with the ``tokenizers`` library on a (sanitized) corpus.

:func:`train_tokenizer` writes a folder that ``transformers.AutoTokenizer.from_pretrained`` loads with no clinanon
import: ``tokenizer.json`` (the whole tokenizer: byte-level pre-tokenizer, BPE vocabulary and merges, RoBERTa's
``<s> … </s>`` post-processor) and ``tokenizer_config.json``. Special tokens are RoBERTa's: ``<s>`` (0), ``<pad>``
(1), ``</s>`` (2), ``<unk>`` (3), ``<mask>`` (4).

A vocabulary entry of a byte-level BPE is written in the byte-to-character alphabet of GPT-2 (``"ĠGarcÃŃa"`` is
" García"): :func:`decode_piece` (the audit's, :func:`clinanon.audit.pieces.decode_piece`) turns it back into text,
which is what a name check must read.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from clinanon.audit.pieces import decode_piece
from clinanon.lm._deps import require_tokenizers

__all__ = ["SPECIAL_TOKENS", "decode_piece", "is_byte_level", "load_tokenizer", "train_tokenizer"]

SPECIAL_TOKENS = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")


def is_byte_level(model_dir: str | Path) -> bool:
    """Whether the tokenizer of ``model_dir`` (its ``tokenizer.json``) pre-tokenizes at the byte level."""
    import json

    from clinanon.audit.pieces import BYTE_LEVEL, tokenizer_kind

    p = Path(model_dir) / "tokenizer.json"
    if not p.is_file():
        return False
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and tokenizer_kind(data) == BYTE_LEVEL


def _MASK() -> Any:
    """The mask token; it takes the space before it, as RoBERTa's does: "Nombre: <mask>." masks the piece
    " María" that the model was trained to predict."""
    from tokenizers import AddedToken

    return AddedToken("<mask>", lstrip=True, rstrip=False, normalized=False, special=True)


def _wrap(tok: Any, max_length: int) -> Any:
    from transformers import PreTrainedTokenizerFast

    mask = _MASK()
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
                                   sep_token="</s>", cls_token="<s>", pad_token="<pad>", mask_token=mask,
                                   model_max_length=max_length)


def train_tokenizer(texts: Iterable[str], out_dir: str | Path, *, vocab_size: int = 52_000, min_frequency: int = 2,
                    max_length: int = 512) -> Path:
    """Train a byte-level BPE of ``vocab_size`` entries (special tokens included) on ``texts`` and write it to
    ``out_dir`` in the Hugging Face format. ``max_length`` is the model's maximum sequence length (the
    tokenizer truncates to it). Returns ``out_dir``."""
    tk = require_tokenizers()
    from tokenizers import decoders, models, pre_tokenizers, processors, trainers

    if vocab_size < len(SPECIAL_TOKENS) + 256:
        from clinanon.errors import ConfigError

        raise ConfigError(f"vocab_size must be at least {len(SPECIAL_TOKENS) + 256} (the special tokens and the "
                          "256 bytes)")
    tok = tk.Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency,
                                  special_tokens=[_MASK() if t == "<mask>" else t for t in SPECIAL_TOKENS],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(texts, trainer=trainer)
    tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")),
                                                      ("<s>", tok.token_to_id("<s>")), trim_offsets=True,
                                                      add_prefix_space=False)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _wrap(tok, max_length).save_pretrained(str(out))
    return out


def load_tokenizer(model_dir: str | Path) -> Any:
    """The ``transformers`` fast tokenizer of ``model_dir`` (local files only)."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
