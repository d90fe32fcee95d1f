"""The privacy-preserving representation model: training strategies, evaluation, persistence.

>>> space = WordSpace.from_file("vectors.vec")                                          # doctest: +SKIP
>>> train, dev = encode_corpus(train_docs, space), encode_corpus(dev_docs, space, tags=...)  # doctest: +SKIP
>>> m = PrivRepModel(space, train.tags, PrivRepConfig(strategy="three_phase", n_neighbors=100))  # doctest: +SKIP
>>> m.fit(train); m.evaluate_deid(dev); m.attack(train, dev, epochs=50)                  # doctest: +SKIP

Strategies (``PrivRepConfig.strategy``):

* ``three_phase`` (Feutry et al. 2018): (1) the representation and the de-identification head learn the
  de-identification loss alone; (2) the adversaries learn on the frozen representation; (3) alternately, an
  adversary step, then a representation step on ``l_deid + lam * |l_adv - l_rand|`` (``l_rand = ln 2``: the loss
  of a coin toss), which pushes the adversaries towards chance rather than towards being wrong.
* ``dann`` (Ganin & Lempitsky 2015): after the same phase (1), one joint loss ``l_deid + l_adv`` with the
  representation reaching the adversaries through a gradient reversal layer (scale ``lam``).
* ``none``: phase (1) only (the representation without privacy training).

The adversaries' data: sentences that hold PHI, shuffled every epoch; the real pair is a sentence with itself, the
fake pair the sentence with its N-neighbour pseudonymization (one PHI token replaced by a random pick among its
``n_neighbors`` nearest embedding neighbours; :func:`clinanon.privrep.data.pseudonymize_one`).

:meth:`PrivRepModel.attack` is the study's evaluation: a fresh pair of adversaries trained for a fixed number of
epochs on the frozen representation; accuracy per epoch on held-out pairs (0.5 = nothing recovered).
Everything is seeded (``seed``); nothing logged holds text.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import math
import os
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from clinanon.detect.neural._torch import choose_device, require_torch, seed_everything
from clinanon.errors import ConfigError, InputError
from clinanon.privrep.data import (
    Corpus,
    Sentence,
    WordSpace,
    phi_sentences,
    pseudonymize_one,
    tags_to_documents,
)

__all__ = ["MODEL_FILE", "PrivRepConfig", "PrivRepModel", "by_length", "length_batches", "pad", "score_tags",
           "token_prf"]

Strategy = Literal["three_phase", "dann", "none"]
DeidLoss = Literal["sentence", "token"]
MODEL_FILE = "privrep.pt"
META_FILE = "meta.json"
WORDS_FILE = "words.json"
FORMAT = 1
L_RAND = math.log(2.0)


@dataclass
class PrivRepConfig:
    """Sizes, strategy and schedule (epochs are passes over the training sentences).

    ``deid_loss``: the CRF negative log-likelihood averaged per ``"sentence"`` (summed over its tokens) or per
    ``"token"``; with ``"token"`` the de-identification term is on the scale of the adversarial term (at most
    ``ln 2`` from chance), so ``lam = 1`` weighs them as the study does. ``adv_steps`` / ``rep_steps``: in phase 3,
    ``adv_steps`` adversary steps before every ``rep_steps`` representation steps (Feutry et al.'s alternation).
    ``noise_lr``: the learning rate of the noise scales (``log sigma``) during the privacy training (``None``:
    ``lr``); phase 1 always uses ``lr``. ``noise_floor``: a minimum for the learned scale of the output noise
    ``N_out`` (0: none), in every phase and at export; the BiLSTM output lies in ``[-1, 1]``, so the floor bounds
    the signal-to-noise ratio of every dimension of ``R`` whatever the training does to ``sigma``.
    ``adv_reset``: in phase 3, every ``adv_reset`` epochs (0: never) the adversaries are re-initialised and
    trained ``max(1, adv_warm_epochs)`` epochs on the frozen representation before the alternation goes on, so the
    representation is trained against fresh attackers, not only against one that has followed it (Feutry et al.).
    ``head_epochs``: after the privacy training, the representation is frozen and the de-identification head trained
    up to ``head_epochs`` more epochs on it, with the noise drawn once per sentence as at export (floor included),
    as a head trained on exported files is (0: none); early stopping on the notes ``head_holdout`` (a fraction of
    the *training* notes, seeded) after ``head_patience`` epochs without gain, the best epoch's head kept;
    ``head_group`` (a regex on the note ids, its first group or match naming the group: ``"^(p\\d+)_"``) holds out
    whole groups (a patient's notes together), so the head is chosen on patients it has not seen.
    ``pretrain_loss``: the de-identification loss of the steps with no adversarial term to balance (phase 1 and the
    ``head_epochs``); ``None``: ``deid_loss``. ``"sentence"`` trains them as the plain tagger is trained: the
    gradient clipping (``clip``, a norm) is sized for that loss; with the per-token loss (gradients ≈ 45 times
    smaller on MEDDOCAN) it never acts, Adam's second-moment estimate (``beta2 = 0.999``: a memory of ≈ 1000 steps)
    keeps the large gradients of the first steps, and every later step is smaller: phase 1 learns about half as
    fast (issue 22, fifth pass).
    ``phase3_clip``: the gradient-norm clip of the representation's step in phase 3 (``three_phase``); ``None``:
    ``clip``, the earlier behaviour. With ``deid_loss="token"`` the clip of 5 never acts (the loss is ≈ 45 times
    smaller than per sentence); ≈ 5/45 = 0.11 sizes it for that loss (issue 22, sixth pass).
    """

    strategy: Strategy = "three_phase"
    n_neighbors: int = 100
    lam: float = 1.0
    dim: int = 50
    hidden: int = 64
    adv_hidden: int = 32
    noise_init: float = 0.05
    dropout: float = 0.3
    lr: float = 0.002
    batch_size: int = 32
    pretrain_epochs: int = 6
    adv_warm_epochs: int = 2
    epochs: int = 6
    clip: float = 5.0
    seed: int = 0
    device: str = "cpu"
    deid_loss: DeidLoss = "sentence"
    adv_steps: int = 1
    rep_steps: int = 1
    noise_lr: float | None = None
    noise_floor: float = 0.0
    adv_reset: int = 0
    head_epochs: int = 0
    head_holdout: float = 0.1
    head_patience: int = 3
    head_group: str | None = None
    pretrain_loss: DeidLoss | None = None
    phase3_clip: float | None = None

    def __post_init__(self) -> None:
        if self.strategy not in ("three_phase", "dann", "none"):
            raise ConfigError(f"unknown strategy {self.strategy!r}; expected 'three_phase', 'dann' or 'none'")
        if self.deid_loss not in ("sentence", "token"):
            raise ConfigError(f"unknown deid_loss {self.deid_loss!r}; expected 'sentence' or 'token'")
        if self.pretrain_loss not in (None, "sentence", "token"):
            raise ConfigError(f"unknown pretrain_loss {self.pretrain_loss!r}; expected 'sentence', 'token' or None")
        if self.phase3_clip is not None and not self.phase3_clip > 0:
            raise ConfigError("phase3_clip must be > 0 (a gradient norm) or None (use clip)")
        if not 0 <= self.noise_floor < 10:
            raise ConfigError("noise_floor must be in [0, 10) (0: no minimum noise scale)")
        if int(self.head_epochs) < 0:
            raise ConfigError("head_epochs must be >= 0 (0: no head training on the frozen representation)")
        if not 0 < self.head_holdout < 1 or int(self.head_patience) < 1:
            raise ConfigError("head_holdout must be in (0, 1) and head_patience >= 1")
        if self.head_group is not None:
            try:
                re.compile(self.head_group)
            except re.error as e:
                raise ConfigError(f"head_group is no regular expression: {e}") from None
        if int(self.adv_reset) < 0:
            raise ConfigError("adv_reset must be >= 0 (0: never re-initialise the adversaries)")
        if self.noise_lr is not None and self.noise_lr <= 0:
            raise ConfigError("noise_lr must be > 0 (or None: the same as lr)")
        for name in ("n_neighbors", "dim", "hidden", "adv_hidden", "batch_size", "adv_steps", "rep_steps"):
            if int(getattr(self, name)) < 1:
                raise ConfigError(f"{name} must be >= 1")
        if self.dim % 2:
            raise ConfigError("dim must be even (a BiLSTM: half per direction)")
        for name in ("pretrain_epochs", "adv_warm_epochs", "epochs"):
            if int(getattr(self, name)) < 0:
                raise ConfigError(f"{name} must be >= 0")
        if self.lam < 0 or self.lr <= 0 or self.noise_init <= 0 or not 0 <= self.dropout < 1:
            raise ConfigError("lam >= 0, lr > 0, noise_init > 0 and dropout in [0, 1) are required")


def pad(words: Sequence[Sequence[int]], casings: Sequence[Sequence[int]], tags: Sequence[Sequence[int]] | None
        ) -> tuple[Any, Any, Any, Any, Any]:
    """``(words, casings, tags or None, lengths, mask)`` tensors of a batch (padding 0)."""
    torch = require_torch()
    n, length = len(words), max(len(w) for w in words)
    w_t = torch.zeros(n, length, dtype=torch.long)
    c_t = torch.zeros(n, length, dtype=torch.long)
    t_t = torch.zeros(n, length, dtype=torch.long) if tags is not None else None
    for k, w in enumerate(words):
        w_t[k, :len(w)] = torch.tensor(w, dtype=torch.long)
        c_t[k, :len(w)] = torch.tensor(casings[k], dtype=torch.long)
        if t_t is not None:
            t_t[k, :len(w)] = torch.tensor(tags[k], dtype=torch.long)  # type: ignore[index]
    lengths = torch.tensor([len(w) for w in words], dtype=torch.long)
    return w_t, c_t, t_t, lengths, w_t != 0


def token_prf(gold: Sequence[Sequence[int]], pred: Sequence[Sequence[int]]) -> dict[str, float]:
    """Token-binary P/R/F1 of tag ids (0 = ``O``), for representations without their notes."""
    tp = fp = fn = 0
    for g, p in zip(gold, pred, strict=True):
        for a, b in zip(g, p, strict=True):
            tp += bool(a) and bool(b)
            fp += (not a) and bool(b)
            fn += bool(a) and not b
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    return {"precision": round(prec, 4), "recall": round(rec, 4), "f1": round(f1, 4), "tp": tp, "fp": fp, "fn": fn}


def length_batches(order: list[int], size: int, lengths: Sequence[int], rng: random.Random) -> list[list[int]]:
    rng.shuffle(order)
    order.sort(key=lambda k: lengths[k] // 4)  # length buckets, shuffled inside each
    out = [order[k:k + size] for k in range(0, len(order), size)]
    rng.shuffle(out)
    return out


def by_length(corpus: Corpus, batch: int) -> list[list[int]]:
    """Sentence indices in batches of similar length (for inference)."""
    order = sorted(range(len(corpus.sentences)), key=lambda k: len(corpus.sentences[k].words))
    return [order[b:b + batch] for b in range(0, len(order), batch)]


class PrivRepModel:
    """Representation + de-identification head (+ adversaries while training); see the module docstring."""

    def __init__(self, space: WordSpace, tags: Sequence[str], config: PrivRepConfig | None = None) -> None:
        torch = require_torch("privacy-preserving representations")
        from clinanon.privrep.nets import Adversaries, DeidHead, Representation

        self.space = space
        self.tags = list(tags)
        self.config = config or PrivRepConfig()
        c = self.config
        seed_everything(c.seed)
        self.device = choose_device(c.device)
        self.rep = Representation(space.matrix, c.dim, c.noise_init).to(self.device)
        self.rep.noise_out.floor = c.noise_floor
        self.head = DeidHead(c.dim, c.hidden, self.tags, c.dropout).to(self.device)
        self.adv = Adversaries(c.dim, space.dim, c.adv_hidden).to(self.device)
        self.history: list[dict[str, Any]] = []
        self._torch = torch

    def __repr__(self) -> str:
        c = self.config
        return f"PrivRepModel(strategy={c.strategy!r}, N={c.n_neighbors}, dim={c.dim}, tags={len(self.tags)})"

    def copy(self, **changes: Any) -> PrivRepModel:
        """A deep copy (weights and history) with config fields changed (e.g. ``strategy``, ``n_neighbors``)."""
        new = copy.copy(self)
        new.config = PrivRepConfig(**{**asdict(self.config), **changes})
        new.rep = copy.deepcopy(self.rep)
        new.head = copy.deepcopy(self.head)
        new.adv = copy.deepcopy(self.adv)
        new.rep.noise_out.floor = new.config.noise_floor
        new.history = list(self.history)
        return new

    # --- tensors ------------------------------------------------------------------------------------------
    def _tensors(self, sents: Sequence[Sentence], words: Sequence[Sequence[int]] | None = None,
                 with_tags: bool = True) -> tuple[Any, Any, Any, Any, Any]:
        w, c, t, lengths, mask = pad(words if words is not None else [s.words for s in sents],
                                     [s.casings for s in sents], [s.tags for s in sents] if with_tags else None)
        dev = self.device
        return w.to(dev), c.to(dev), (t.to(dev) if t is not None else None), lengths, mask.to(dev)

    def _adv_batch(self, sents: Sequence[Sentence], rng: random.Random, *, reverse: float | None = None,
                   detach: bool = False) -> Any:
        """The adversaries' averaged probabilities and loss on real/fake pairs of ``sents``."""
        torch = self._torch
        from clinanon.privrep.nets import grad_reverse

        fakes = [pseudonymize_one(s, self.space, self.config.n_neighbors, rng) for s in sents]
        w, c, _, lengths, mask = self._tensors(sents, with_tags=False)
        wf, _, _, _, _ = self._tensors(sents, fakes, with_tags=False)
        r_x = self.rep(w, c, lengths)
        r_f = self.rep(wf, c, lengths)
        r_x2 = self.rep(w, c, lengths)
        if detach:
            r_x, r_f, r_x2 = r_x.detach(), r_f.detach(), r_x2.detach()
        elif reverse is not None:
            r_x, r_f, r_x2 = (grad_reverse(t, reverse) for t in (r_x, r_f, r_x2))
        e_x = self.rep.embeddings(w)
        anchor = torch.cat([r_x, r_f])
        e = torch.cat([e_x, e_x])
        rc = torch.cat([r_x2, r_x2])
        same = torch.cat([torch.ones(len(sents)), torch.zeros(len(sents))]).to(self.device)
        lengths2 = torch.cat([lengths, lengths])
        mask2 = torch.cat([mask, mask])
        p = self.adv(anchor, e, rc, lengths2, mask2)
        return p, self.adv.loss(p, same), same

    @property
    def solo_loss(self) -> DeidLoss:
        """The de-identification loss of phase 1 and of the head epochs (``pretrain_loss``, else ``deid_loss``)."""
        return self.config.pretrain_loss or self.config.deid_loss

    def _deid(self, w: Any, cas: Any, ln: Any, t: Any, mask: Any, per: DeidLoss | None = None) -> Any:
        """The de-identification loss of a batch, per sentence or per token (``per``, default
        ``config.deid_loss``)."""
        loss = self.head.loss(self.rep(w, cas, ln), ln, t, mask)  # mean per sentence
        if (per or self.config.deid_loss) == "token":
            loss = loss * t.shape[0] / mask.sum().clamp(min=1)
        return loss

    def _rep_groups(self) -> list[dict[str, Any]]:
        """The representation's and head's trainable parameters; the noise scales in their own group
        (``config.noise_lr``)."""
        noise = [self.rep.noise_in.log_sigma, self.rep.noise_out.log_sigma]
        skip = {id(p) for p in noise}
        other = [p for p in (*self.rep.parameters(), *self.head.parameters()) if p.requires_grad and id(p) not in skip]
        return [{"params": other}, {"params": noise, "lr": self.config.noise_lr or self.config.lr}]

    # --- training ---------------------------------------------------------------------------------------------
    def fit(self, train: Corpus, *, callback: Callable[[dict[str, Any]], None] | None = None) -> PrivRepModel:
        """All phases of the configured strategy: :meth:`pretrain`, then :meth:`train_private`, then (with
        ``head_epochs``) :meth:`train_head`."""
        self.pretrain(train, callback=callback)
        if self.config.strategy != "none":
            self.train_private(train, callback=callback)
        if self.config.head_epochs:
            self.train_head(train, callback=callback)
        return self

    def _log(self, info: dict[str, Any], callback: Callable[[dict[str, Any]], None] | None) -> None:
        self.history.append(info)
        if callback is not None:
            callback(info)

    def pretrain(self, train: Corpus, *, epochs: int | None = None,
                 callback: Callable[[dict[str, Any]], None] | None = None) -> None:
        """Phase 1: representation + de-identification head on the de-identification loss alone."""
        torch = self._torch
        c = self.config
        rng = random.Random(c.seed)
        params = [p for p in (*self.rep.parameters(), *self.head.parameters()) if p.requires_grad]
        opt = torch.optim.Adam(params, lr=c.lr)
        lengths = [len(s.words) for s in train.sentences]
        self.rep.train()
        self.head.train()
        for epoch in range(1, (c.pretrain_epochs if epochs is None else epochs) + 1):
            t0, total = time.perf_counter(), 0.0
            for idx in length_batches(list(range(len(train.sentences))), c.batch_size, lengths, rng):
                sents = [train.sentences[k] for k in idx]
                w, cas, t, ln, mask = self._tensors(sents)
                loss = self._deid(w, cas, ln, t, mask, self.solo_loss)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(params, c.clip)
                opt.step()
                # the epoch's mean per sentence or per token (a batch's per-token mean weighted by its tokens)
                total += float(loss.detach()) * (int(mask.sum()) if self.solo_loss == "token" else len(idx))
            n = train.tokens if self.solo_loss == "token" else len(lengths)
            self._log({"phase": "pretrain", "epoch": epoch, "l_deid": round(total / n, 4),
                       "loss": self.solo_loss,
                       "seconds": round(time.perf_counter() - t0, 2), **self.noise_levels()}, callback)

    def _adv_params(self) -> list[Any]:
        return list(self.adv.parameters())

    def train_adversaries(self, train: Corpus, epochs: int, *, rng: random.Random, lr: float | None = None,
                          callback: Callable[[dict[str, Any]], None] | None = None, phase: str = "adversary",
                          dev: Corpus | None = None) -> list[dict[str, Any]]:
        """The adversaries alone on the frozen representation, ``epochs`` passes over the PHI sentences; with
        ``dev``, the accuracy on its pairs after every epoch."""
        torch = self._torch
        c = self.config
        opt = torch.optim.Adam(self._adv_params(), lr=lr or c.lr)
        phi = phi_sentences(train, self.space)
        if not phi:
            raise InputError("no training sentence holds a PHI token with a word vector: nothing to attack")
        lengths = [len(s.words) for s in train.sentences]
        out = []
        self.rep.eval()
        self.adv.train()
        dev_pairs = self._fixed_pairs(dev) if dev is not None else None
        for epoch in range(1, epochs + 1):
            t0, total, correct, seen = time.perf_counter(), 0.0, 0, 0
            for idx in length_batches(list(phi), c.batch_size, lengths, rng):
                sents = [train.sentences[k] for k in idx]
                p, loss, same = self._adv_batch(sents, rng, detach=True)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self._adv_params(), c.clip)
                opt.step()
                total += float(loss.detach()) * len(idx)
                correct += int(((p.detach() > 0.5).float() == same).sum())
                seen += 2 * len(idx)
            info = {"phase": phase, "epoch": epoch, "l_adv": round(total / len(phi), 4),
                    "train_accuracy": round(correct / seen, 4), "seconds": round(time.perf_counter() - t0, 2)}
            if dev_pairs is not None:
                info["dev_accuracy"] = self._accuracy(*dev_pairs)
            out.append(info)
            self._log(info, callback)
        self.rep.train()
        return out

    def train_private(self, train: Corpus, *, callback: Callable[[dict[str, Any]], None] | None = None) -> None:
        """Phases 2-3 (``three_phase``) or the joint gradient-reversal training (``dann``)."""
        torch = self._torch
        c = self.config
        rng = random.Random(c.seed + 1)
        if c.strategy == "three_phase" and c.adv_warm_epochs:
            self.train_adversaries(train, c.adv_warm_epochs, rng=rng, callback=callback, phase="three_phase:2")
        groups = self._rep_groups()
        rep_params = [p for g in groups for p in g["params"]]
        opt_rep = torch.optim.Adam(groups, lr=c.lr)
        opt_adv = torch.optim.Adam(self._adv_params(), lr=c.lr)
        phi = phi_sentences(train, self.space)
        if not phi:
            raise InputError("no training sentence holds a PHI token with a word vector: no adversarial training")
        lengths = [len(s.words) for s in train.sentences]
        phase = "three_phase:3" if c.strategy == "three_phase" else "dann"

        def next_adv(order: list[int]) -> list[Sentence]:
            if len(order) < c.batch_size:
                more = list(phi)
                rng.shuffle(more)  # the adversaries' sentences, shuffled
                order.extend(more)
            out = [train.sentences[k] for k in order[:c.batch_size]]
            del order[:c.batch_size]
            return out

        for epoch in range(1, c.epochs + 1):
            if c.strategy == "three_phase" and c.adv_reset and epoch > 1 and (epoch - 1) % c.adv_reset == 0:
                # a fresh pair of adversaries (seeded), warmed on the frozen representation, then the alternation
                self._reset_adversaries(c.seed + 1000 * epoch)
                self.train_adversaries(train, max(1, c.adv_warm_epochs), rng=rng, callback=callback,
                                       phase="three_phase:reset")
                opt_adv = torch.optim.Adam(self._adv_params(), lr=c.lr)
            t0 = time.perf_counter()
            sums = {"l_deid": 0.0, "l_adv": 0.0}
            correct = seen = 0
            adv_order: list[int] = []
            batches = length_batches(list(range(len(train.sentences))), c.batch_size, lengths, rng)
            self.rep.train()
            self.head.train()
            self.adv.train()
            for step, idx in enumerate(batches):
                adv_sents = next_adv(adv_order)
                sents = [train.sentences[k] for k in idx]
                w, cas, t, ln, mask = self._tensors(sents)
                if c.strategy == "three_phase":
                    # the adversaries' steps on the current (frozen) representation, before every rep_steps
                    # representation steps
                    for a in range(c.adv_steps if step % c.rep_steps == 0 else 0):
                        p, l_adv, same = self._adv_batch(adv_sents if a == 0 else next_adv(adv_order), rng, detach=True)
                        opt_adv.zero_grad(set_to_none=True)
                        l_adv.backward()
                        torch.nn.utils.clip_grad_norm_(self._adv_params(), c.clip)
                        opt_adv.step()
                    # the representation's step: de-identify, and keep the adversaries at chance
                    l_deid = self._deid(w, cas, ln, t, mask)
                    p, l_adv, same = self._adv_batch(adv_sents, rng)
                    loss = l_deid + c.lam * (l_adv - L_RAND).abs()
                    opt_rep.zero_grad(set_to_none=True)
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(rep_params, c.clip if c.phase3_clip is None else c.phase3_clip)
                    opt_rep.step()
                else:  # dann: one joint step through the gradient reversal layer
                    l_deid = self._deid(w, cas, ln, t, mask)
                    p, l_adv, same = self._adv_batch(adv_sents, rng, reverse=c.lam)
                    opt_rep.zero_grad(set_to_none=True)
                    opt_adv.zero_grad(set_to_none=True)
                    (l_deid + l_adv).backward()
                    torch.nn.utils.clip_grad_norm_(rep_params, c.clip)
                    torch.nn.utils.clip_grad_norm_(self._adv_params(), c.clip)
                    opt_rep.step()
                    opt_adv.step()
                sums["l_deid"] += float(l_deid.detach()) * len(idx)
                sums["l_adv"] += float(l_adv.detach()) * len(idx)
                correct += int(((p.detach() > 0.5).float() == same).sum())
                seen += len(same)
            n = len(lengths)
            self._log({"phase": phase, "epoch": epoch, "l_deid": round(sums["l_deid"] / n, 4),
                       "l_adv": round(sums["l_adv"] / n, 4), "adv_train_accuracy": round(correct / max(1, seen), 4),
                       "seconds": round(time.perf_counter() - t0, 2), **self.noise_levels()}, callback)

    def _head_split(self, train: Corpus) -> tuple[list[int], list[int]]:
        """Sentence indices ``(fit, held)``: ``head_holdout`` of the training notes held out (seeded; sentences
        when the corpus is a single note)."""
        c = self.config
        unit_of = self._head_units(train)
        units = sorted(set(unit_of))
        n_held = min(len(units) - 1, max(1, round(len(units) * c.head_holdout)))
        held = set(random.Random(c.seed + 2).sample(units, n_held)) if n_held > 0 else set()
        fit, out = [], []
        for k, unit in enumerate(unit_of):
            (out if unit in held else fit).append(k)
        return fit, out

    def _head_units(self, train: Corpus) -> list[str]:
        """The unit each training sentence is held out with: its note, or (``head_group``, a regex on the note ids
        whose first group or match names the group: ``"^(p\\d+)_"``) the notes of the same patient together, so
        that the head is chosen on patients it has not seen; the sentence itself when the corpus is one note."""
        c = self.config
        docs = {s.doc for s in train.sentences}
        if len(docs) <= 1:
            return [str(k) for k in range(len(train.sentences))]
        if c.head_group is None or not train.docs:
            return [str(s.doc) for s in train.sentences]
        rx = re.compile(c.head_group)

        def group(i: int) -> str:
            m = rx.search(train.docs[i].id)
            return (m.group(1) if m.groups() else m.group()) if m is not None else train.docs[i].id
        return [group(s.doc) for s in train.sentences]

    def _rep_tensors(self, reps: Sequence[Any], sents: Sequence[Sentence]) -> tuple[Any, Any, Any, Any]:
        """``(x, tags, lengths, mask)`` of fixed representations (NumPy ``[length, dim]`` each) of ``sents``."""
        torch = self._torch
        n, length = len(reps), max(len(r) for r in reps)
        x = torch.zeros(n, length, self.config.dim)
        t = torch.zeros(n, length, dtype=torch.long)
        for k, (r, s) in enumerate(zip(reps, sents, strict=True)):
            x[k, :len(r)] = torch.as_tensor(r)
            t[k, :len(r)] = torch.tensor(s.tags, dtype=torch.long)
        lengths = torch.tensor([len(r) for r in reps], dtype=torch.long)
        mask = torch.arange(length).unsqueeze(0) < lengths.unsqueeze(1)
        return x.to(self.device), t.to(self.device), lengths, mask.to(self.device)

    def _head_f1(self, reps: Sequence[Any], sents: Sequence[Sentence], batch: int = 128) -> float:
        torch = self._torch
        was = self.head.training
        self.head.eval()
        pred: list[list[int]] = []
        with torch.inference_mode():
            for b in range(0, len(sents), batch):
                x, _, lengths, mask = self._rep_tensors(reps[b:b + batch], sents[b:b + batch])
                pred.extend(self.head.decode(x, lengths, mask))
        self.head.train(was)
        return token_prf([s.tags for s in sents], pred)["f1"]

    def train_head(self, train: Corpus, *, epochs: int | None = None,
                   callback: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
        """The de-identification head alone on the frozen representation (``config.head_epochs`` epochs at most):
        the representation of every training sentence computed once, noise drawn as at export (seeded, floor
        included; the representation's parameters are not touched), the head trained on those fixed arrays as a
        head trained on exported files is. Early stopping on the held-out part of the *training* notes
        (``head_holdout``, token-binary F1, ``head_patience``); the best epoch's head is kept (epoch 0: the head as
        it was). Returns ``{"selected_epoch", "holdout_f1"}``."""
        torch = self._torch
        c = self.config
        n_epochs = c.head_epochs if epochs is None else epochs
        fit_idx, held_idx = self._head_split(train)
        if n_epochs <= 0 or not fit_idx or not held_idx:
            return {"selected_epoch": 0, "holdout_f1": None}
        reps = self.represent(train, seed=c.seed)
        held_s = [train.sentences[k] for k in held_idx]
        held_r = [reps[k] for k in held_idx]
        rng = random.Random(c.seed + 3)
        params = [p for p in self.head.parameters() if p.requires_grad]
        opt = torch.optim.Adam(params, lr=c.lr)
        lengths = [len(s.words) for s in train.sentences]
        best_f1, best_epoch = self._head_f1(held_r, held_s), 0
        best_state = copy.deepcopy(self.head.state_dict())
        self._log({"phase": "head", "epoch": 0, "holdout_f1": best_f1, "holdout_sentences": len(held_idx)}, callback)
        self.head.train()
        for epoch in range(1, n_epochs + 1):
            t0, total = time.perf_counter(), 0.0
            for idx in length_batches(list(fit_idx), c.batch_size, lengths, rng):
                x, t, ln, mask = self._rep_tensors([reps[k] for k in idx], [train.sentences[k] for k in idx])
                loss = self.head.loss(x, ln, t, mask)  # mean per sentence
                if self.solo_loss == "token":
                    loss = loss * t.shape[0] / mask.sum().clamp(min=1)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(params, c.clip)
                opt.step()
                total += float(loss.detach()) * len(idx)
            f1 = self._head_f1(held_r, held_s)
            self._log({"phase": "head", "epoch": epoch, "l_deid": round(total / len(fit_idx), 4), "holdout_f1": f1,
                       "seconds": round(time.perf_counter() - t0, 2)}, callback)
            if f1 > best_f1:
                best_f1, best_epoch = f1, epoch
                best_state = copy.deepcopy(self.head.state_dict())
            elif epoch - best_epoch >= c.head_patience:
                break
        self.head.load_state_dict(best_state)
        out = {"selected_epoch": best_epoch, "holdout_f1": best_f1}
        self._log({"phase": "head", **out}, callback)
        return out

    def _reset_adversaries(self, seed: int) -> None:
        """New adversaries with weights drawn from ``seed`` (the global torch generator is left as it was)."""
        from clinanon.privrep.nets import Adversaries

        torch = self._torch
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.adv = Adversaries(self.config.dim, self.space.dim, self.config.adv_hidden).to(self.device)

    def noise_levels(self) -> dict[str, float]:
        """The mean learned noise scale before and after the LSTM."""
        return {"sigma_in": round(float(self.rep.noise_in.sigma.detach().mean()), 4),
                "sigma_out": round(float(self.rep.noise_out.sigma.detach().mean()), 4)}

    # --- evaluation -------------------------------------------------------------------------------------------
    def _fixed_pairs(self, corpus: Corpus, seed: int = 12345) -> tuple[list[Sentence], list[list[int]]]:
        rng = random.Random(seed)
        sents = [corpus.sentences[k] for k in phi_sentences(corpus, self.space)]
        return sents, [pseudonymize_one(s, self.space, self.config.n_neighbors, rng) for s in sents]

    def _accuracy(self, sents: list[Sentence], fakes: list[list[int]]) -> float:
        """The adversaries' accuracy on real/fake pairs (fixed fakes), noise drawn from a fixed seed."""
        torch = self._torch
        if not sents:
            return float("nan")
        was = self.adv.training
        self.adv.eval()
        correct = seen = 0
        gen = torch.Generator(device=self.device).manual_seed(777)
        with torch.inference_mode():
            for b in range(0, len(sents), 128):
                part, fk = sents[b:b + 128], fakes[b:b + 128]
                w, c, _, lengths, mask = self._tensors(part, with_tags=False)
                wf, _, _, _, _ = self._tensors(part, fk, with_tags=False)
                r_x = self.rep(w, c, lengths, gen)
                r_f = self.rep(wf, c, lengths, gen)
                r_x2 = self.rep(w, c, lengths, gen)
                e_x = self.rep.embeddings(w)
                p = self.adv(torch.cat([r_x, r_f]), torch.cat([e_x, e_x]), torch.cat([r_x2, r_x2]),
                             torch.cat([lengths, lengths]), torch.cat([mask, mask]))
                same = torch.cat([torch.ones(len(part)), torch.zeros(len(part))]).to(self.device)
                correct += int(((p > 0.5).float() == same).sum())
                seen += len(same)
        self.adv.train(was)
        return round(correct / seen, 4)

    def attack(self, train: Corpus, dev: Corpus, *, epochs: int = 50, seed: int = 1,
               n_neighbors: int | None = None, callback: Callable[[dict[str, Any]], None] | None = None
               ) -> list[dict[str, Any]]:
        """The study's evaluation: fresh adversaries trained ``epochs`` epochs on the frozen representation (on
        ``train``'s PHI sentences), with their accuracy on ``dev``'s real/fake pairs after every epoch. The
        model's own adversaries are left as they were."""
        from clinanon.privrep.nets import Adversaries

        torch = self._torch
        saved, saved_cfg, saved_hist = self.adv, self.config, self.history
        torch.manual_seed(seed)
        self.adv = Adversaries(self.config.dim, self.space.dim, self.config.adv_hidden).to(self.device)
        if n_neighbors is not None:
            self.config = PrivRepConfig(**{**asdict(saved_cfg), "n_neighbors": n_neighbors})
        self.history = []
        try:
            for p in self.rep.parameters():
                p.requires_grad_(False)
            return self.train_adversaries(train, epochs, rng=random.Random(seed), callback=callback,
                                          phase="attack", dev=dev)
        finally:
            for name, p in self.rep.named_parameters():
                p.requires_grad_(name != "embed.weight")
            self.adv, self.config, self.history = saved, saved_cfg, saved_hist

    def represent(self, corpus: Corpus, *, seed: int = 0, batch: int = 128) -> list[Any]:
        """The representation of each sentence (``float32`` NumPy ``[length, dim]``), noise drawn from ``seed``."""
        torch = self._torch
        gen = torch.Generator(device=self.device).manual_seed(seed)
        self.rep.eval()
        out: list[Any] = [None] * len(corpus.sentences)
        with torch.inference_mode():
            for idx in by_length(corpus, batch):
                w, c, _, lengths, _ = self._tensors([corpus.sentences[k] for k in idx], with_tags=False)
                r = self.rep(w, c, lengths, gen).cpu().numpy()
                for row, k in enumerate(idx):
                    out[k] = r[row, :len(corpus.sentences[k].words)].copy()
        self.rep.train()
        return out

    def predict(self, corpus: Corpus, *, seed: int = 0, batch: int = 128) -> list[list[int]]:
        """Tag ids per sentence, decoded by the head from the (noisy) representation."""
        torch = self._torch
        gen = torch.Generator(device=self.device).manual_seed(seed)
        self.rep.eval()
        self.head.eval()
        out: list[list[int]] = [[] for _ in corpus.sentences]
        with torch.inference_mode():
            for idx in by_length(corpus, batch):
                w, c, _, lengths, mask = self._tensors([corpus.sentences[k] for k in idx], with_tags=False)
                paths = self.head.decode(self.rep(w, c, lengths, gen), lengths, mask)
                for k, path in zip(idx, paths, strict=True):
                    out[k] = path
        self.rep.train()
        self.head.train()
        return out

    def evaluate_deid(self, corpus: Corpus, *, lang: str = "es", seed: int = 0) -> dict[str, Any]:
        """De-identification on the representation: token-binary P/R/F1 (and exact-span F1) scored on the notes
        by :func:`clinanon.evaluate.evaluate`; by tag ids when the corpus has no notes."""
        pred = self.predict(corpus, seed=seed)
        return score_tags(corpus, pred, lang=lang)

    # --- persistence ------------------------------------------------------------------------------------------
    def model_id(self) -> str:
        """A fingerprint of the representation's weights (exports carry it; pooled training checks it)."""
        h = hashlib.sha256()
        for k, v in sorted(self.rep.state_dict().items()):
            h.update(k.encode())
            h.update(v.detach().cpu().numpy().tobytes())
        return h.hexdigest()[:16]

    def save(self, path: str | Path) -> Path:
        """A model directory: ``privrep.pt`` (representation + head weights), ``words.json`` (the embedding
        space's words: as sensitive as the notes the vectors were trained on) and ``meta.json``."""
        from clinanon import __version__
        from clinanon.io import atomic_write_text

        torch = self._torch
        out = Path(path)
        out.mkdir(parents=True, exist_ok=True)
        buf = io.BytesIO()
        torch.save({"rep": {k: v.detach().cpu() for k, v in self.rep.state_dict().items()},
                    "head": {k: v.detach().cpu() for k, v in self.head.state_dict().items()}}, buf)
        tmp = out / (MODEL_FILE + ".tmp")
        tmp.write_bytes(buf.getvalue())
        os.replace(tmp, out / MODEL_FILE)
        atomic_write_text(out / WORDS_FILE, json.dumps(self.space.vocab.words[2:], ensure_ascii=False))
        meta = {"model": "privrep", "format": FORMAT, "clinanon_version": __version__, "config": asdict(self.config),
                "tags": self.tags, "emb_dim": self.space.dim, "model_id": self.model_id(),
                "history": self.history}
        atomic_write_text(out / META_FILE, json.dumps(meta, indent=2) + "\n")
        return out

    @classmethod
    def load(cls, path: str | Path, *, device: str | None = None) -> PrivRepModel:
        torch = require_torch("privacy-preserving representations")
        import numpy as np

        p = Path(path)
        try:
            meta = json.loads((p / META_FILE).read_text(encoding="utf-8"))
            words = json.loads((p / WORDS_FILE).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise InputError(f"not a privrep model directory ({type(e).__name__})", path=p) from None
        if meta.get("model") != "privrep" or meta.get("format") != FORMAT:
            raise InputError("not a privrep model of this format", path=p / META_FILE)
        cfg = dict(meta["config"])
        if device is not None:
            cfg["device"] = device
        state = torch.load(p / MODEL_FILE, map_location="cpu", weights_only=True)
        space = WordSpace(words, np.asarray(state["rep"]["embed.weight"][2:].numpy()))
        model = cls(space, meta["tags"], PrivRepConfig(**cfg))
        model.rep.load_state_dict(state["rep"])
        model.head.load_state_dict(state["head"])
        model.history = list(meta.get("history") or [])
        return model


def score_tags(corpus: Corpus, pred: Sequence[Sequence[int]], *, lang: str = "es") -> dict[str, Any]:
    """Token-binary P/R/F1 (and exact-span P/R/F1) of predicted tag ids against the corpus's gold."""
    if not corpus.docs:
        return {"token_binary": token_prf([s.tags for s in corpus.sentences], pred)}
    from clinanon.evaluate import evaluate

    report = evaluate(corpus.docs, tags_to_documents(corpus, pred), lang=lang, check_labels=False)
    out: dict[str, Any] = {}
    for name, m in report.measures.items():
        if name in ("token_binary", "entity_exact", "entity_span"):
            mi = m.micro
            out[name] = {"precision": round(mi.precision, 4), "recall": round(mi.recall, 4), "f1": round(mi.f1, 4)}
    return out
