"""The networks of the privacy-preserving representation (PyTorch; imported once torch is known to be installed).

* :class:`Representation`: ``R = N_out + BiLSTM(E + N_in)``: the fixed word embedding ``E`` (plus the 7-way casing
  one-hot), per-dimension Gaussian noise with a learned scale before and after a BiLSTM whose output has ``dim``
  dimensions (50 in the study).
* :class:`DeidHead`: a BiLSTM-CRF over ``R`` (the BiLSTM and CRF of :mod:`clinanon.detect.neural`).
* :class:`Adversaries`: two BiLSTM classifiers whose probabilities are averaged: one reads ``R`` of a sentence
  beside the embeddings of a candidate sentence, the other ``R`` beside a second representation of the candidate;
  each says whether the two come from the same sentence.
* :func:`grad_reverse`: the gradient reversal layer of DANN.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn

from clinanon.detect.neural._bilstm_net import BiLSTM
from clinanon.detect.neural.crf_layer import CRF, bio_constraints
from clinanon.detect.neural.vocab import CASINGS

__all__ = ["Adversaries", "DeidHead", "LearnedNoise", "Representation", "grad_reverse", "pooled_max"]


class LearnedNoise(nn.Module):
    """``x + sigma * eps`` with ``eps ~ N(0, 1)`` and a learned ``sigma`` per dimension (reparameterized, so the
    losses move ``sigma``). Drawn in training and in inference alike: the noise is part of the representation."""

    def __init__(self, dim: int, init: float, floor: float = 0.0) -> None:
        super().__init__()
        self.log_sigma = nn.Parameter(torch.full((dim,), math.log(max(init, 1e-6))))
        self.floor = float(floor)  # the minimum sigma (0: none); set from the model's config, not saved

    @property
    def sigma(self) -> torch.Tensor:
        s = self.log_sigma.exp()
        return s.clamp(min=self.floor) if self.floor > 0 else s

    def forward(self, x: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        eps = torch.randn(x.shape, generator=generator, device=x.device, dtype=x.dtype) if generator is not None \
            else torch.randn_like(x)
        return x + self.sigma * eps


class Representation(nn.Module):
    def __init__(self, matrix: Any, dim: int, noise_init: float) -> None:
        super().__init__()
        if dim < 2 or dim % 2:
            raise ValueError("the representation dimension must be even and >= 2")
        weights = torch.as_tensor(matrix, dtype=torch.float32)
        self.embed = nn.Embedding(weights.shape[0], weights.shape[1], padding_idx=0)
        with torch.no_grad():
            self.embed.weight.copy_(weights)
        self.embed.weight.requires_grad_(False)
        onehot = torch.eye(len(CASINGS))
        onehot[0].zero_()
        self.register_buffer("casing_onehot", onehot, persistent=False)
        in_dim = weights.shape[1] + len(CASINGS)
        self.noise_in = LearnedNoise(in_dim, noise_init)
        self.lstm = BiLSTM(in_dim, dim // 2, 1, 0.0)
        self.noise_out = LearnedNoise(dim, noise_init)
        self.dim = dim

    def embeddings(self, words: torch.Tensor) -> torch.Tensor:
        """``E``: the fixed word embeddings ``[B, L, D]`` (what an attacker can compute for a guessed sentence)."""
        return self.embed(words)

    def forward(self, words: torch.Tensor, casings: torch.Tensor, lengths: torch.Tensor,
                generator: torch.Generator | None = None) -> torch.Tensor:
        x = torch.cat([self.embed(words), self.casing_onehot[casings]], dim=2)
        r = self.lstm(self.noise_in(x, generator), lengths)
        return self.noise_out(r, generator)


class DeidHead(nn.Module):
    """BiLSTM -> dropout -> linear -> CRF over the representation (tags BIO, ``O -> I-X`` forbidden)."""

    def __init__(self, dim: int, hidden: int, tags: list[str], dropout: float) -> None:
        super().__init__()
        self.lstm = BiLSTM(dim, hidden, 1, 0.0)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(2 * hidden, len(tags))
        allowed, start = bio_constraints(tags)
        self.crf = CRF(len(tags), allowed, start)

    def emissions(self, r: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return self.out(self.dropout(self.lstm(r, lengths)))

    def loss(self, r: torch.Tensor, lengths: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The CRF negative log-likelihood, mean per sentence."""
        return self.crf.neg_log_likelihood(self.emissions(r, lengths), tags, mask) / r.shape[0]

    def decode(self, r: torch.Tensor, lengths: torch.Tensor, mask: torch.Tensor) -> list[list[int]]:
        return self.crf.viterbi(self.emissions(r, lengths), mask)


def pooled_max(h: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The maximum over the real positions of each sequence ``[B, L, H] -> [B, H]``."""
    return h.masked_fill(~mask.unsqueeze(2), -1e4).max(dim=1).values


class _PairClassifier(nn.Module):
    def __init__(self, in_dim: int, hidden: int) -> None:
        super().__init__()
        self.lstm = BiLSTM(in_dim, hidden, 1, 0.0)
        self.out = nn.Linear(2 * hidden, 1)

    def forward(self, a: torch.Tensor, b: torch.Tensor, lengths: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = self.lstm(torch.cat([a, b], dim=2), lengths)
        return self.out(pooled_max(h, mask)).squeeze(1)


class Adversaries(nn.Module):
    """Two "same sentence?" classifiers (representation + embeddings; representation + representation), averaged."""

    def __init__(self, dim: int, emb_dim: int, hidden: int) -> None:
        super().__init__()
        self.with_embeddings = _PairClassifier(dim + emb_dim, hidden)
        self.with_representation = _PairClassifier(2 * dim, hidden)

    def forward(self, r: torch.Tensor, e_cand: torch.Tensor, r_cand: torch.Tensor, lengths: torch.Tensor,
                mask: torch.Tensor) -> torch.Tensor:
        """The averaged probability that ``r`` and the candidate come from the same sentence ``[B]``."""
        p1 = torch.sigmoid(self.with_embeddings(r, e_cand, lengths, mask))
        p2 = torch.sigmoid(self.with_representation(r, r_cand, lengths, mask))
        return (p1 + p2) / 2

    @staticmethod
    def loss(p: torch.Tensor, same: torch.Tensor) -> torch.Tensor:
        return nn.functional.binary_cross_entropy(p.clamp(1e-6, 1 - 1e-6), same)


class _GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, lam: float) -> torch.Tensor:  # type: ignore[override]
        ctx.lam = lam
        return x.view_as(x)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:  # type: ignore[override]
        return -ctx.lam * grad, None


def grad_reverse(x: torch.Tensor, lam: float = 1.0) -> torch.Tensor:
    """Identity forward; the gradient multiplied by ``-lam`` backward (Ganin & Lempitsky's DANN)."""
    return _GradReverse.apply(x, lam)  # type: ignore[no-any-return]
