"""The BiLSTM-CRF network (PyTorch; imported by :mod:`clinanon.detect.neural.bilstm_crf` once torch is known to
be installed): word embedding + 7-way casing one-hot + optional character CNN + optional one-hot of the rule
detector's B/I label of the token -> BiLSTM -> linear -> CRF."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from clinanon.detect.neural.crf_layer import CRF, bio_constraints
from clinanon.detect.neural.vocab import CASINGS

__all__ = ["Batch", "BiLSTMCRFNet"]


class CharCNN(nn.Module):
    """Character embeddings -> one convolution -> max over the word's characters. Computed once per distinct word
    of a batch (``chars`` ``[U, C]``, row 0 empty: padding) and spread to the positions by ``index`` ``[B, L]``."""

    def __init__(self, num_chars: int, dim: int, filters: int, width: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(num_chars, dim, padding_idx=0)
        self.conv = nn.Conv1d(dim, filters, width, padding=width // 2)

    def forward(self, chars: torch.Tensor, index: torch.Tensor) -> torch.Tensor:  # -> [B, L, F]
        x = self.embed(chars).transpose(1, 2)  # [U, D, C]
        h = self.conv(x)
        h = h.masked_fill((chars == 0).unsqueeze(1), -1e4)
        h = h.max(dim=2).values
        h = torch.where(h <= -1e3, torch.zeros_like(h), h)  # the empty row (padding positions)
        return torch.relu(h)[index]


def reverse_index(lengths: torch.Tensor, length: int) -> torch.Tensor:
    """``[B, L]`` positions that reverse each sequence within its own length (padding stays in place)."""
    pos = torch.arange(length).unsqueeze(0)
    n = lengths.unsqueeze(1)
    return torch.where(pos < n, n - 1 - pos, pos)


class BiLSTM(nn.Module):
    """A bidirectional LSTM over padded sequences, exact for every length: the backward direction reads each
    sequence reversed within its own length, so padding never reaches a real position. (Two unidirectional LSTMs
    on padded input rather than a packed sequence: the packed path's backward pass on CPU fills a gradient of the
    whole batch at every time step, quadratic in the length.)"""

    def __init__(self, in_dim: int, hidden: int, layers: int, dropout: float) -> None:
        super().__init__()
        self.fwd = nn.ModuleList()
        self.bwd = nn.ModuleList()
        for k in range(layers):
            d = in_dim if k == 0 else 2 * hidden
            self.fwd.append(nn.LSTM(d, hidden, batch_first=True))
            self.bwd.append(nn.LSTM(d, hidden, batch_first=True))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        idx = reverse_index(lengths, x.shape[1]).to(x.device)
        for k, (f, b) in enumerate(zip(self.fwd, self.bwd, strict=True)):
            if k:
                x = self.dropout(x)
            gather = idx.unsqueeze(2).expand(-1, -1, x.shape[2])
            hf, _ = f(x)
            hb, _ = b(x.gather(1, gather))
            hb = hb.gather(1, idx.unsqueeze(2).expand(-1, -1, hb.shape[2]))
            x = torch.cat([hf, hb], dim=2)
        return x


class Batch:
    """Padded tensors of a batch of sequences (words, casings, characters, tags, mask, lengths, and the rule
    feature ids ``rules`` when the model has the rule feature)."""

    __slots__ = ("casings", "char_index", "chars", "lengths", "mask", "rules", "tags", "words")

    def __init__(self, words: torch.Tensor, casings: torch.Tensor, chars: torch.Tensor | None,
                 char_index: torch.Tensor | None, tags: torch.Tensor | None, lengths: torch.Tensor,
                 rules: torch.Tensor | None = None) -> None:
        self.words = words
        self.rules = rules
        self.casings = casings
        self.chars = chars
        self.char_index = char_index
        self.tags = tags
        self.lengths = lengths
        self.mask = words != 0

    def to(self, device: Any) -> Batch:
        if device.type == "cpu":
            return self

        def move(t: torch.Tensor | None) -> torch.Tensor | None:
            return t.to(device) if t is not None else None

        return Batch(self.words.to(device), self.casings.to(device), move(self.chars), move(self.char_index),
                     move(self.tags), self.lengths, move(self.rules))


class BiLSTMCRFNet(nn.Module):
    def __init__(self, *, num_words: int, word_dim: int, num_chars: int, tags: list[str], hidden: int,
                 layers: int, char_cnn: bool, char_dim: int, char_filters: int, char_width: int,
                 dropout_input: float, dropout_lstm: float, dropout_output: float,
                 train_embeddings: bool, pretrained: Any = None, num_rule_tags: int = 0) -> None:
        super().__init__()
        self.word_embed = nn.Embedding(num_words, word_dim, padding_idx=0)
        if pretrained is not None:
            with torch.no_grad():
                self.word_embed.weight.copy_(torch.as_tensor(pretrained))
        self.word_embed.weight.requires_grad_(train_embeddings)
        self.num_casings = len(CASINGS)
        self.register_buffer("casing_onehot", torch.eye(self.num_casings)[:, :], persistent=False)
        self.casing_onehot[0].zero_()
        self.char_cnn = CharCNN(num_chars, char_dim, char_filters, char_width) if char_cnn else None
        # the rule detector's label of each token (B-/I- + label; id 0: no rule span or a value unseen in training)
        self.num_rule_tags = int(num_rule_tags)
        if self.num_rule_tags:
            self.register_buffer("rule_onehot", torch.eye(self.num_rule_tags), persistent=False)
            self.rule_onehot[0].zero_()
        in_dim = word_dim + self.num_casings + (char_filters if char_cnn else 0) + self.num_rule_tags
        self.dropout_input = nn.Dropout(dropout_input)
        self.lstm = BiLSTM(in_dim, hidden, layers, dropout_lstm)
        self.dropout_output = nn.Dropout(dropout_output)
        self.out = nn.Linear(2 * hidden, len(tags))
        allowed, start = bio_constraints(tags)
        self.crf = CRF(len(tags), allowed, start)

    def emissions(self, batch: Batch) -> torch.Tensor:
        parts = [self.word_embed(batch.words), self.casing_onehot[batch.casings]]
        if self.char_cnn is not None:
            assert batch.chars is not None and batch.char_index is not None
            parts.append(self.char_cnn(batch.chars, batch.char_index))
        if self.num_rule_tags:
            assert batch.rules is not None
            parts.append(self.rule_onehot[batch.rules])
        x = self.dropout_input(torch.cat(parts, dim=2))
        return self.out(self.dropout_output(self.lstm(x, batch.lengths)))

    def loss(self, batch: Batch) -> torch.Tensor:
        assert batch.tags is not None
        return self.crf.neg_log_likelihood(self.emissions(batch), batch.tags, batch.mask)
