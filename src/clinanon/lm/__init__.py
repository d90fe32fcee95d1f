"""Anonymizing a language model (``clinanon lm``): the two steps of the Dutch clinical language-model study.

1. **The pretraining data**: :mod:`clinanon.lm.corpus` runs any clinanon pipeline over the corpus (names ->
   ``PERSON``, places -> ``GPE`` with :func:`~clinanon.lm.corpus.study_config`); :mod:`clinanon.lm.tokenizer` trains
   a byte-level BPE vocabulary; :mod:`clinanon.lm.pretrain` a RoBERTa masked LM from scratch.
2. **The vocabulary**: :mod:`clinanon.lm.probe` builds mask sentences from annotated notes and runs the audit's
   fill-mask probe; :mod:`clinanon.lm.scrub` renames the name-like vocabulary entries (``unk`` + a number, ids
   kept) and exports a model that plain transformers loads.

torch, transformers and tokenizers are the optional extra ``lm`` (``pip install "clinanon[lm]"``); importing this
package needs none of them. See ``docs/lm.md``.
"""

from __future__ import annotations

__all__ = ["corpus", "pretrain", "probe", "scrub", "tokenizer"]
