"""A linear-chain CRF layer in PyTorch: log-likelihood (forward algorithm), Viterbi decoding and marginals.

Imports ``torch`` at module level: import it through :func:`clinanon.detect.neural._torch.require_torch` first
(the detectors do). Batched over sequences of different lengths with a ``mask`` (``True`` on real positions;
every sequence starts at position 0 and has at least one position). ``allowed`` (optional ``[T, T]`` boolean
matrix, plus ``allowed_start`` ``[T]``) forbids transitions, e.g. ``O -> I-X`` in BIO: forbidden transitions
get a score of ``-1e4`` in training and decoding, so the decoder never outputs them.
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["CRF", "bio_constraints"]

_FORBIDDEN = -1e4


def bio_constraints(tags: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
    """``(allowed [T, T], allowed_start [T])`` for BIO / BIOES tags: an ``I-X`` / ``E-X`` follows only ``B-X`` or
    ``I-X``; after ``B-X`` / ``I-X`` in BIOES only ``I-X`` / ``E-X``; a sequence does not start with ``I-`` /
    ``E-``."""
    n = len(tags)
    bioes = any(t[:2] in ("E-", "S-") for t in tags)
    allowed = torch.ones(n, n, dtype=torch.bool)
    start = torch.ones(n, dtype=torch.bool)
    for j, t in enumerate(tags):
        if t[:2] in ("I-", "E-"):
            start[j] = False
            for i, s in enumerate(tags):
                allowed[i, j] = s[:2] in ("B-", "I-") and s[2:] == t[2:]
        elif bioes:  # O, B-, S- may only follow O, E-, S-
            for i, s in enumerate(tags):
                allowed[i, j] = s[:2] not in ("B-", "I-")
    return allowed, start


class CRF(nn.Module):
    """Transition scores ``transitions[i, j]`` (tag ``i`` then tag ``j``), start and end scores."""

    def __init__(self, num_tags: int, allowed: torch.Tensor | None = None,
                 allowed_start: torch.Tensor | None = None) -> None:
        super().__init__()
        self.num_tags = num_tags
        self.transitions = nn.Parameter(torch.zeros(num_tags, num_tags))
        self.start = nn.Parameter(torch.zeros(num_tags))
        self.end = nn.Parameter(torch.zeros(num_tags))
        penalty = torch.zeros(num_tags, num_tags)
        start_penalty = torch.zeros(num_tags)
        if allowed is not None:
            penalty[~allowed] = _FORBIDDEN
        if allowed_start is not None:
            start_penalty[~allowed_start] = _FORBIDDEN
        self.register_buffer("penalty", penalty, persistent=False)
        self.register_buffer("start_penalty", start_penalty, persistent=False)

    def _scores(self) -> tuple[torch.Tensor, torch.Tensor]:
        return self.transitions + self.penalty, self.start + self.start_penalty

    def neg_log_likelihood(self, emissions: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The summed negative log-likelihood of ``tags`` ``[B, L]`` given ``emissions`` ``[B, L, T]``."""
        trans, start = self._scores()
        mask_f = mask.to(emissions.dtype)
        # the gold path's score, vectorized (indexing inside a loop over positions would make the backward pass
        # fill a full-size gradient per position: quadratic in the length)
        emitted = emissions.gather(2, tags.unsqueeze(2)).squeeze(2)  # [B, L]
        gold = start[tags[:, 0]] + (emitted * mask_f).sum(1)
        if tags.shape[1] > 1:
            gold = gold + (trans[tags[:, :-1], tags[:, 1:]] * mask_f[:, 1:]).sum(1)
        b = emissions.shape[0]
        last = tags[torch.arange(b, device=emissions.device), mask.sum(1).long() - 1]
        gold = gold + self.end[last]
        return (self._log_partition(emissions, mask, trans, start) - gold.double()).sum().to(emissions.dtype)

    def _log_partition(self, emissions: torch.Tensor, mask: torch.Tensor, trans: torch.Tensor,
                       start: torch.Tensor) -> torch.Tensor:
        """log Z by the forward algorithm in scaled probability space (a matrix product per position instead of a
        log-sum-exp over ``[B, T, T]``; float64, rescaled at every position)."""
        log_z, _ = self._forward(emissions, mask, trans, start, keep=False)
        return log_z

    def _forward(self, emissions: torch.Tensor, mask: torch.Tensor, trans: torch.Tensor, start: torch.Tensor,
                 *, keep: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
        ems = emissions.double().unbind(1)  # one view per position; its backward is a single stack
        masks = mask.unbind(1)
        t_max = trans.max().double()
        exp_trans = torch.exp(trans.double() - t_max)
        first = start.double() + ems[0]
        log_z = torch.logsumexp(first, dim=1)
        alpha = torch.softmax(first, dim=1)
        alphas = [alpha]
        for t in range(1, len(ems)):
            e_max = ems[t].max(dim=1, keepdim=True).values
            v = (alpha @ exp_trans) * torch.exp(ems[t] - e_max)
            total = v.sum(dim=1, keepdim=True)
            m = masks[t]
            alpha = torch.where(m.unsqueeze(1), v / total, alpha)
            step = (torch.log(total) + e_max + t_max).squeeze(1)
            log_z = log_z + torch.where(m, step, torch.zeros_like(step))
            if keep:
                alphas.append(alpha)
        log_z = log_z + torch.logsumexp(torch.log(alpha.clamp_min(1e-300)) + self.end.double(), dim=1)
        return log_z, (torch.stack(alphas, 1) if keep else None)

    def marginals(self, emissions: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """``[B, L, T]``: the probability of each tag at each position (scaled forward-backward; 0 on padding)."""
        trans, start = self._scores()
        b, length, n = emissions.shape
        _, alpha = self._forward(emissions, mask, trans, start, keep=True)
        assert alpha is not None
        ems = emissions.double().unbind(1)
        exp_trans_t = torch.exp(trans.double() - trans.max().double()).t()
        end = torch.exp(self.end.double() - self.end.double().max()).expand(b, n)
        lengths = mask.sum(1)
        # scaled beta: beta_t(i) ~ sum_j T[i, j] e_{t+1}(j) beta_{t+1}(j); at each sequence's last position: end
        betas: list[torch.Tensor] = [end] * length
        beta = end
        for t in range(length - 2, -1, -1):
            e_max = ems[t + 1].max(dim=1, keepdim=True).values
            v = (torch.exp(ems[t + 1] - e_max) * beta) @ exp_trans_t
            v = v / v.sum(dim=1, keepdim=True)
            beta = torch.where((t + 1 < lengths).unsqueeze(1), v, end)
            betas[t] = beta
        probs = alpha * torch.stack(betas, 1)
        probs = probs / probs.sum(dim=2, keepdim=True).clamp_min(1e-300)
        return (probs * mask.unsqueeze(2)).to(emissions.dtype)

    def viterbi(self, emissions: torch.Tensor, mask: torch.Tensor) -> list[list[int]]:
        """The best tag sequence of each sequence (its own length)."""
        trans, start = self._scores()
        b, length, _ = emissions.shape
        score = start + emissions[:, 0]
        history = []
        for t in range(1, length):
            best, idx = (score.unsqueeze(2) + trans.unsqueeze(0)).max(dim=1)
            nxt = best + emissions[:, t]
            m = mask[:, t].unsqueeze(1)
            score = torch.where(m, nxt, score)
            history.append(idx)
        score = score + self.end
        lengths = mask.sum(1).tolist()
        best_last = score.argmax(1).tolist()
        hist = torch.stack(history, 1).tolist() if history else []
        out = []
        for k in range(b):
            n = int(lengths[k])
            tag = best_last[k]
            path = [tag]
            for t in range(n - 2, -1, -1):
                tag = hist[k][t][tag]
                path.append(tag)
            path.reverse()
            out.append(path)
        return out
