"""Sharing representations instead of notes: ``export`` and pooled training of a de-identification head.

:func:`export_representations` writes a NumPy ``.npz`` file (uncompressed, no pickled objects) with

* ``representations``: ``float16 [tokens, dim]``, the noisy representation of every token, sentence after sentence;
* ``lengths``: ``int32 [sentences]``; the sentences are shuffled (seeded) so that their order does not rebuild
  the notes; ``tags``: ``int16 [tokens]`` gold tag ids (``--no-labels`` leaves them out);
* ``meta``: UTF-8 JSON bytes: format, the representation model's fingerprint (``model_id``), ``dim``, the tag names
  (label names such as ``B-FECHAS``), counts.

No token, word id, vocabulary, document id or character offset is written. :func:`train_pooled` reads the files
of several sites (they must come from the same representation model: same ``model_id``), maps their tag names
onto one list and trains a :class:`~clinanon.privrep.nets.DeidHead` on the pooled representations.
"""

from __future__ import annotations

import io
import json
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinanon.detect.neural._torch import choose_device, require_torch, seed_everything
from clinanon.errors import ConfigError, InputError
from clinanon.privrep.data import Corpus
from clinanon.privrep.model import PrivRepModel, token_prf

__all__ = ["EXPORT_FORMAT", "PooledHead", "SharedRepresentations", "export_representations", "read_representations",
           "train_pooled"]

EXPORT_FORMAT = 1
_KEYS = {"representations", "lengths", "meta", "tags"}


@dataclass
class SharedRepresentations:
    """One exported file, read back: per-sentence arrays, tag ids (or ``None``), tag names, metadata."""

    reps: list[Any]
    tags: list[list[int]] | None
    tag_names: list[str]
    meta: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"SharedRepresentations(sentences={len(self.reps)}, model_id={self.meta.get('model_id')!r})"


def export_representations(model: PrivRepModel, corpus: Corpus, out: str | Path, *, seed: int = 0,
                           labels: bool = True, site: str | None = None) -> dict[str, Any]:
    """Write the representations of ``corpus`` (and its gold tag ids) to ``out`` (``.npz``); returns the metadata.
    The noise and the sentence order come from ``seed``."""
    import numpy as np

    reps = model.represent(corpus, seed=seed)
    order = list(range(len(reps)))
    random.Random(seed).shuffle(order)
    dim = model.config.dim
    arrays: dict[str, Any] = {
        "representations": (np.concatenate([reps[k] for k in order]).astype(np.float16) if order
                            else np.zeros((0, dim), dtype=np.float16)),
        "lengths": np.asarray([len(reps[k]) for k in order], dtype=np.int32),
    }
    if labels:
        arrays["tags"] = np.asarray([t for k in order for t in corpus.sentences[k].tags], dtype=np.int16)
    meta = {"format": EXPORT_FORMAT, "kind": "clinanon-privrep-representations", "model_id": model.model_id(),
            "dim": dim, "tag_names": list(model.tags) if labels else [], "sentences": len(order),
            "tokens": int(arrays["lengths"].sum()), "labels": labels, "site": site,
            "strategy": model.config.strategy, "n_neighbors": model.config.n_neighbors}
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    p = Path(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_bytes(buf.getvalue())
    os.replace(tmp, p)
    return meta


def read_representations(path: str | Path) -> SharedRepresentations:
    """An exported file (:class:`InputError` naming the file when it is not one)."""
    import numpy as np

    p = Path(path)
    try:
        with np.load(p, allow_pickle=False) as z:
            keys = set(z.files)
            if not {"representations", "lengths", "meta"} <= keys or keys - _KEYS:
                raise InputError("not a clinanon representations file (unexpected arrays)", path=p)
            meta = json.loads(bytes(z["meta"].tobytes()).decode("utf-8"))
            reps_all = np.asarray(z["representations"], dtype=np.float32)
            lengths = z["lengths"].astype(np.int64)
            tags_all = z["tags"].astype(np.int64) if "tags" in keys else None
    except (OSError, ValueError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"cannot read the representations file ({type(e).__name__})", path=p) from None
    if meta.get("format") != EXPORT_FORMAT or int(lengths.sum()) != reps_all.shape[0]:
        raise InputError("representations file: wrong format or lengths that do not add up", path=p)
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    reps = [reps_all[bounds[k]:bounds[k + 1]] for k in range(len(lengths))]
    tags = ([tags_all[bounds[k]:bounds[k + 1]].tolist() for k in range(len(lengths))]
            if tags_all is not None else None)
    return SharedRepresentations(reps, tags, list(meta.get("tag_names") or []), meta)


class PooledHead:
    """A de-identification head trained on pooled representations (``predict`` takes representations)."""

    def __init__(self, dim: int, tags: Sequence[str], model_id: str, *, hidden: int = 64, dropout: float = 0.3,
                 device: str = "cpu") -> None:
        require_torch("pooled training")
        from clinanon.privrep.nets import DeidHead

        self.tags = list(tags)
        self.dim = dim
        self.model_id = model_id
        self.hidden = hidden
        self.dropout = dropout
        self.device = choose_device(device)
        self.head = DeidHead(dim, hidden, self.tags, dropout).to(self.device)
        self.history: list[dict[str, Any]] = []

    def _batch(self, reps: Sequence[Any], tags: Sequence[Sequence[int]] | None) -> tuple[Any, Any, Any, Any]:
        torch = require_torch()
        n, length = len(reps), max(len(r) for r in reps)
        x = torch.zeros(n, length, self.dim)
        t = torch.zeros(n, length, dtype=torch.long)
        for k, r in enumerate(reps):
            x[k, :len(r)] = torch.as_tensor(r)
            if tags is not None:
                t[k, :len(r)] = torch.tensor(tags[k], dtype=torch.long)
        lengths = torch.tensor([len(r) for r in reps], dtype=torch.long)
        mask = torch.arange(length).unsqueeze(0) < lengths.unsqueeze(1)
        return x.to(self.device), t.to(self.device), lengths, mask.to(self.device)

    def predict(self, reps: Sequence[Any], batch: int = 128) -> list[list[int]]:
        torch = require_torch()
        self.head.eval()
        out: list[list[int]] = []
        with torch.inference_mode():
            for b in range(0, len(reps), batch):
                x, _, lengths, mask = self._batch(reps[b:b + batch], None)
                out.extend(self.head.decode(x, lengths, mask))
        self.head.train()
        return out

    def save(self, path: str | Path) -> Path:
        from clinanon.io import atomic_write_text

        torch = require_torch()
        out = Path(path)
        out.mkdir(parents=True, exist_ok=True)
        buf = io.BytesIO()
        torch.save({k: v.detach().cpu() for k, v in self.head.state_dict().items()}, buf)
        (out / "head.pt").write_bytes(buf.getvalue())
        meta = {"model": "privrep-pooled-head", "format": EXPORT_FORMAT, "dim": self.dim, "tags": self.tags,
                "model_id": self.model_id, "hidden": self.hidden, "dropout": self.dropout, "history": self.history}
        atomic_write_text(out / "meta.json", json.dumps(meta, indent=2) + "\n")
        return out


def _remap(shared: SharedRepresentations, tags: list[str]) -> list[list[int]]:
    assert shared.tags is not None
    index = {t: i for i, t in enumerate(tags)}
    table = [index.get(t, 0) for t in shared.tag_names]
    return [[table[t] if 0 <= t < len(table) else 0 for t in seq] for seq in shared.tags]


def train_pooled(files: Sequence[str | Path], *, dev: str | Path | None = None, epochs: int = 10,
                 hidden: int = 64, dropout: float = 0.3, lr: float = 0.002, batch_size: int = 32, seed: int = 0,
                 device: str = "cpu", callback: Callable[[dict[str, Any]], None] | None = None) -> PooledHead:
    """A :class:`PooledHead` trained on the labelled representations of several sites' files; ``dev``: a file
    scored (token-binary P/R/F1) after every epoch."""
    torch = require_torch("pooled training")
    if not files:
        raise ConfigError("train-pooled needs at least one representations file")
    shared = [read_representations(f) for f in files]
    for f, s in zip(files, shared, strict=True):
        if s.tags is None:
            raise InputError("this file holds no labels: export it with labels to train on it", path=Path(f))
    ids = {s.meta.get("model_id") for s in shared}
    dims = {s.meta.get("dim") for s in shared}
    if len(ids) != 1 or len(dims) != 1:
        raise ConfigError("the files come from different representation models (model_id / dim differ): "
                          "every site must export with the same shared model")
    tags = ["O", *sorted({t for s in shared for t in s.tag_names} - {"O"}, key=lambda t: (t[2:], t[:2]))]
    reps = [r for s in shared for r in s.reps]
    gold = [t for s in shared for t in _remap(s, tags)]
    dev_data = read_representations(dev) if dev is not None else None
    if dev_data is not None and dev_data.meta.get("model_id") not in ids:
        raise ConfigError("the dev file comes from another representation model")
    seed_everything(seed)
    model = PooledHead(int(dims.pop()), tags, str(ids.pop()), hidden=hidden, dropout=dropout, device=device)
    opt = torch.optim.Adam(model.head.parameters(), lr=lr)
    rng = random.Random(seed)
    for epoch in range(1, epochs + 1):
        t0, total = time.perf_counter(), 0.0
        order = list(range(len(reps)))
        rng.shuffle(order)
        order.sort(key=lambda k: len(reps[k]) // 4)
        batches = [order[k:k + batch_size] for k in range(0, len(order), batch_size)]
        rng.shuffle(batches)
        for idx in batches:
            x, t, lengths, mask = model._batch([reps[k] for k in idx], [gold[k] for k in idx])
            loss = model.head.loss(x, lengths, t, mask)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.head.parameters(), 5.0)
            opt.step()
            total += float(loss.detach()) * len(idx)
        info: dict[str, Any] = {"epoch": epoch, "loss": round(total / max(1, len(reps)), 4),
                                "seconds": round(time.perf_counter() - t0, 2)}
        if dev_data is not None and dev_data.tags is not None:
            info["dev_token_binary"] = token_prf(_remap(dev_data, tags), model.predict(dev_data.reps))
        model.history.append(info)
        if callback is not None:
            callback(info)
    return model
