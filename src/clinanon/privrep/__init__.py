"""Privacy-preserving representations: hospitals pool de-identification training data without sharing notes.

After Friedrich et al. (2019), "Adversarial learning of privacy-preserving text representations for
de-identification of medical records": a representation ``R = N_out + LSTM(E + N_in)`` with learned Gaussian noise,
a de-identification BiLSTM-CRF on ``R`` and two adversaries that try to tell a sentence from its N-neighbour
pseudonymization; trained with gradient reversal (``dann``) or Feutry et al.'s three phases (``three_phase``).
Sites export representations (:func:`~clinanon.privrep.share.export_representations`: no text, no vocabulary) and
a de-identification head is trained on the pooled files (:func:`~clinanon.privrep.share.train_pooled`).

* :mod:`clinanon.privrep.data` -- sentences, word space, N-neighbour pseudonymization (no PyTorch)
* :mod:`clinanon.privrep.model` -- :class:`PrivRepModel`, :class:`PrivRepConfig` (PyTorch: the ``neural`` extra)
* :mod:`clinanon.privrep.baselines` -- the plain BiLSTM-CRF and the "pseudonymized notes" baselines
* :mod:`clinanon.privrep.share` -- export, read, pooled training
* :mod:`clinanon.privrep.cli` -- ``clinanon privrep train | evaluate | export | train-pooled``

Importing this package does not import PyTorch. What it protects and what it does not: ``docs/privrep.md``.
"""

from __future__ import annotations
