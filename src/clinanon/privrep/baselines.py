"""The study's two baselines on the same sentences and word vectors as the representation model.

* ``plain``: the BiLSTM-CRF of :mod:`clinanon.detect.neural` (:class:`~clinanon.detect.neural._bilstm_net.
  BiLSTMCRFNet`: frozen word vectors + casing -> BiLSTM -> CRF; no character CNN, as the representation model
  has none) trained on the notes themselves: de-identification without any privacy.
* ``pseudonymized``: the same tagger trained on N-neighbour pseudonymized notes (every PHI token replaced by a
  random pick among its N nearest embedding neighbours, as the ``neighbors`` operator does), scored on real notes.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from clinanon.detect.neural._torch import choose_device, require_torch, seed_everything
from clinanon.privrep.data import Corpus, WordSpace, pseudonymize_all
from clinanon.privrep.model import by_length, length_batches, pad

__all__ = ["PlainTagger"]


class PlainTagger:
    """A BiLSTM-CRF over the fixed word vectors (``fit(train, n_pseudonymize=None)``, ``predict(corpus)``)."""

    def __init__(self, space: WordSpace, tags: list[str], *, hidden: int = 64, dropout: float = 0.3,
                 lr: float = 0.002, batch_size: int = 32, seed: int = 0, device: str = "cpu") -> None:
        require_torch("the baseline tagger")
        from clinanon.detect.neural._bilstm_net import BiLSTMCRFNet

        seed_everything(seed)
        self.space, self.tags = space, list(tags)
        self.lr, self.batch_size, self.seed = lr, batch_size, seed
        self.device = choose_device(device)
        self.net = BiLSTMCRFNet(num_words=len(space), word_dim=space.dim, num_chars=2, tags=self.tags, hidden=hidden,
                                layers=1, char_cnn=False, char_dim=1, char_filters=1, char_width=1,
                                dropout_input=0.0, dropout_lstm=0.0, dropout_output=dropout,
                                train_embeddings=False, pretrained=space.matrix).to(self.device)
        self.history: list[dict[str, Any]] = []

    def _batch(self, words: list[list[int]], casings: list[list[int]], tags: list[list[int]] | None) -> Any:
        from clinanon.detect.neural._bilstm_net import Batch

        w, c, t, lengths, _ = pad(words, casings, tags)
        return Batch(w, c, None, None, t, lengths).to(self.device)

    def fit(self, train: Corpus, epochs: int, *, n_pseudonymize: int | None = None, dev: Corpus | None = None,
            lang: str = "es", callback: Callable[[dict[str, Any]], None] | None = None) -> PlainTagger:
        """Train ``epochs`` epochs; with ``n_pseudonymize``, on N-neighbour pseudonymized sentences (drawn once,
        seeded); with ``dev``, token-binary P/R/F1 on it after every epoch (reported, not used to select)."""
        from clinanon.privrep.model import score_tags

        torch = require_torch()
        rng = random.Random(self.seed)
        sents = train.sentences
        words = ([pseudonymize_all(s, self.space, n_pseudonymize, rng) for s in sents] if n_pseudonymize
                 else [s.words for s in sents])
        params = [p for p in self.net.parameters() if p.requires_grad]
        opt = torch.optim.Adam(params, lr=self.lr)
        lengths = [len(s.words) for s in sents]
        for epoch in range(1, epochs + 1):
            t0, total = time.perf_counter(), 0.0
            self.net.train()
            for idx in length_batches(list(range(len(sents))), self.batch_size, lengths, rng):
                batch = self._batch([words[k] for k in idx], [sents[k].casings for k in idx],
                                    [sents[k].tags for k in idx])
                loss = self.net.loss(batch) / len(idx)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(params, 5.0)
                opt.step()
                total += float(loss.detach()) * len(idx)
            info: dict[str, Any] = {"epoch": epoch, "loss": round(total / len(sents), 4),
                                    "seconds": round(time.perf_counter() - t0, 2)}
            if dev is not None:
                info["dev"] = score_tags(dev, self.predict(dev), lang=lang)
            self.history.append(info)
            if callback is not None:
                callback(info)
        return self

    def predict(self, corpus: Corpus, batch: int = 128) -> list[list[int]]:
        torch = require_torch()
        self.net.eval()
        out: list[list[int]] = [[] for _ in corpus.sentences]
        with torch.inference_mode():
            for idx in by_length(corpus, batch):
                sents = [corpus.sentences[k] for k in idx]
                bt = self._batch([s.words for s in sents], [s.casings for s in sents], None)
                for k, path in zip(idx, self.net.crf.viterbi(self.net.emissions(bt), bt.mask), strict=True):
                    out[k] = path
        self.net.train()
        return out
