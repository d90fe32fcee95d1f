"""Pretrain a RoBERTa masked language model from scratch on a (sanitized) corpus, with transformers and PyTorch.

The corpus is encoded once with the tokenizer (:mod:`clinanon.lm.tokenizer`), the notes joined with ``</s>`` and
cut into blocks of ``max_length`` tokens; each step draws a batch of blocks (an epoch is a seeded permutation) and
masks 15 % of their tokens (80 % ``<mask>``, 10 % a random token, 10 % unchanged), RoBERTa's dynamic masking.
AdamW with a linear warm-up and decay.

* **Seeded**: the block order and the masks of step ``n`` are functions of ``(seed, n)``, so a run that stops and
  resumes gives the same model as one that does not.
* **Resumable**: every ``save_every`` steps ``out/checkpoint/`` holds the model, the optimizer, the schedule, the
  random state (dropout) and the step (``state.pt``, written to a temporary file and renamed); :func:`pretrain`
  with ``resume=True`` goes on from there.
* **Progress**: a Rich bar with the running loss (the mean of the last ``log_every`` steps), or silence.

The trained model goes to ``out/model/`` (``config.json``, ``model.safetensors`` and the tokenizer), loadable by
``AutoModelForMaskedLM`` / ``AutoTokenizer``; the loss curve and the configuration to ``out/train_log.json``.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from clinanon.errors import ConfigError
from clinanon.lm._deps import require_lm

__all__ = ["PRESETS", "PretrainConfig", "PretrainResult", "encode_blocks", "pretrain"]


@dataclass(frozen=True)
class PretrainConfig:
    """The model's size and the training run (defaults: RoBERTa-base's shape, 52 000-entry vocabulary)."""

    layers: int = 12
    hidden_size: int = 768
    heads: int = 12
    intermediate_size: int = 3072
    max_length: int = 512
    steps: int = 100_000
    batch_size: int = 32
    learning_rate: float = 5e-4
    warmup_steps: int = 1_000
    weight_decay: float = 0.01
    mlm_probability: float = 0.15
    dropout: float = 0.1
    seed: int = 0
    save_every: int = 1_000
    log_every: int = 20
    device: str = "cpu"
    #: CPU threads of this run (``None``: PyTorch's default). On a shared machine one thread per run is often
    #: several times faster than two that wait on each other; run two trainings side by side instead
    threads: int | None = None

    def __post_init__(self) -> None:
        if self.hidden_size % self.heads:
            raise ConfigError(f"hidden_size ({self.hidden_size}) must be a multiple of heads ({self.heads})")
        for name in ("layers", "hidden_size", "heads", "steps", "batch_size", "save_every", "log_every"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1")
        if self.max_length < 8:
            raise ConfigError("max_length must be at least 8")
        if not 0 < self.mlm_probability < 1:
            raise ConfigError("mlm_probability must be between 0 and 1")

    def with_overrides(self, **kw: Any) -> PretrainConfig:
        """A copy with the keys that are not ``None`` replaced."""
        return replace(self, **{k: v for k, v in kw.items() if v is not None})


#: named sizes: ``tiny`` for tests (seconds), ``small`` for a CPU demonstration (minutes), ``base`` RoBERTa-base
PRESETS: dict[str, PretrainConfig] = {
    "tiny": PretrainConfig(layers=1, hidden_size=32, heads=2, intermediate_size=64, max_length=32, steps=20,
                           batch_size=8, learning_rate=1e-3, warmup_steps=2, save_every=10, log_every=5, threads=1),
    "small": PretrainConfig(layers=2, hidden_size=128, heads=2, intermediate_size=512, max_length=64,
                            steps=1_000, batch_size=32, learning_rate=1e-3, warmup_steps=100, save_every=250,
                            log_every=20, dropout=0.0, threads=1),
    "base": PretrainConfig(),
}


@dataclass
class PretrainResult:
    out: Path
    model_dir: Path
    steps: int
    resumed_from: int
    blocks: int
    tokens: int
    losses: list[tuple[int, float]] = field(default_factory=list)
    seconds: float = 0.0

    def __repr__(self) -> str:
        return f"PretrainResult(steps={self.steps}, resumed_from={self.resumed_from}, blocks={self.blocks})"

    def to_dict(self) -> dict[str, Any]:
        return {"model_dir": str(self.model_dir), "steps": self.steps, "resumed_from": self.resumed_from,
                "blocks": self.blocks, "tokens": self.tokens, "seconds": round(self.seconds, 1),
                "final_loss": self.losses[-1][1] if self.losses else None,
                "first_loss": self.losses[0][1] if self.losses else None}


def encode_blocks(texts: Iterable[str], tokenizer: Any, max_length: int) -> Any:
    """The corpus as a ``(blocks, max_length)`` LongTensor: ``<s>`` + ``max_length - 2`` tokens + ``</s>``; notes
    joined with ``</s>``, the last partial block padded."""
    import torch

    body = max_length - 2
    ids: list[int] = []
    eos, bos, pad = tokenizer.eos_token_id, tokenizer.bos_token_id, tokenizer.pad_token_id
    backend = tokenizer.backend_tokenizer  # the tokenizers object: no length warning, no special tokens
    for t in texts:
        if t.strip():
            ids.extend(backend.encode(t, add_special_tokens=False).ids)
            ids.append(eos)
    if not ids:
        raise ConfigError("the corpus holds no text")
    n = math.ceil(len(ids) / body)
    ids.extend([pad] * (n * body - len(ids)))
    t = torch.tensor(ids, dtype=torch.long).view(n, body)
    return torch.cat([torch.full((n, 1), bos), t, torch.full((n, 1), eos)], dim=1)


def _mask(batch: Any, tokenizer: Any, p: float, gen: Any, special: Any) -> tuple[Any, Any]:
    import torch

    labels = batch.clone()
    prob = torch.full(batch.shape, p)
    prob[special[batch]] = 0.0
    masked = torch.bernoulli(prob, generator=gen).bool()
    labels[~masked] = -100
    inputs = batch.clone()
    replace_ = torch.bernoulli(torch.full(batch.shape, 0.8), generator=gen).bool() & masked
    inputs[replace_] = tokenizer.mask_token_id
    rand = torch.bernoulli(torch.full(batch.shape, 0.5), generator=gen).bool() & masked & ~replace_
    inputs[rand] = torch.randint(len(tokenizer), batch.shape, generator=gen)[rand]
    return inputs, labels


def _mlm_loss(model: Any, inputs: Any, attn: Any, labels: Any) -> Any:
    """Cross-entropy over the masked positions only: the output layer (hidden x vocabulary) runs on ~15 % of the
    tokens instead of all of them, most of the cost of a small model with a large vocabulary."""
    import torch

    hidden = model.roberta(input_ids=inputs, attention_mask=attn).last_hidden_state
    sel = labels != -100
    logits = model.lm_head(hidden[sel])
    return torch.nn.functional.cross_entropy(logits, labels[sel])


def _batch_indices(step: int, n_blocks: int, batch_size: int, seed: int) -> Any:
    """The block indices of step ``step`` (0-based): consecutive slices of seeded per-epoch permutations."""
    import torch

    out = []
    start = step * batch_size
    while len(out) < batch_size:
        epoch, pos = divmod(start + len(out), n_blocks)
        perm = torch.randperm(n_blocks, generator=torch.Generator().manual_seed(seed * 100_003 + epoch))
        out.extend(perm[pos:pos + batch_size - len(out)].tolist())
    return torch.tensor(out, dtype=torch.long)


def _lr_lambda(cfg: PretrainConfig) -> Callable[[int], float]:
    def f(step: int) -> float:
        if step < cfg.warmup_steps:
            return (step + 1) / cfg.warmup_steps
        return max(0.0, (cfg.steps - step) / max(1, cfg.steps - cfg.warmup_steps))
    return f


def pretrain(texts: Iterable[str], tokenizer_dir: str | Path, out: str | Path, config: PretrainConfig, *,
             resume: bool = True, progress: bool = False) -> PretrainResult:
    """Pretrain a RoBERTa MLM from scratch on ``texts`` with the tokenizer of ``tokenizer_dir``; see the module
    docstring for what ``out`` holds. With ``resume`` (the default) a checkpoint in ``out/checkpoint`` is taken up
    (its configuration must match ``config`` but for ``steps``, ``save_every``, ``log_every`` and ``device``)."""
    torch, _ = require_lm("pretraining")
    from transformers import RobertaConfig, RobertaForMaskedLM

    from clinanon.detect.neural._torch import choose_device, seed_everything
    from clinanon.lm.tokenizer import load_tokenizer

    cfg = config
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    device = choose_device(cfg.device)
    out = Path(out)
    ckpt_dir = out / "checkpoint"
    tok = load_tokenizer(tokenizer_dir)
    if tok.mask_token_id is None or tok.pad_token_id is None:
        raise ConfigError("the tokenizer needs <mask> and <pad> tokens (train it with clinanon lm train-tokenizer)")
    blocks = encode_blocks(texts, tok, cfg.max_length)
    special = torch.zeros(len(tok), dtype=torch.bool)
    special[tok.all_special_ids] = True

    seed_everything(cfg.seed)
    mcfg = RobertaConfig(vocab_size=len(tok), hidden_size=cfg.hidden_size, num_hidden_layers=cfg.layers,
                         num_attention_heads=cfg.heads, intermediate_size=cfg.intermediate_size,
                         max_position_embeddings=cfg.max_length + 2, type_vocab_size=1,
                         hidden_dropout_prob=cfg.dropout, attention_probs_dropout_prob=cfg.dropout,
                         pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    model = RobertaForMaskedLM(mcfg).to(device)
    decay = [p for n, p in model.named_parameters() if p.ndim >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.ndim < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=cfg.learning_rate)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, _lr_lambda(cfg))
    step = 0
    losses: list[tuple[int, float]] = []
    state_file = ckpt_dir / "state.pt"
    if resume and state_file.is_file():
        state = torch.load(state_file, map_location=device, weights_only=False)
        saved = PretrainConfig(**state["config"])
        volatile = ("steps", "save_every", "log_every", "device", "threads")
        if {k: v for k, v in asdict(saved).items() if k not in volatile} != \
                {k: v for k, v in asdict(cfg).items() if k not in volatile}:
            raise ConfigError(f"{ckpt_dir}: the checkpoint was made with another configuration; start afresh "
                              "(--no-resume) or use the same settings")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        sched.load_state_dict(state["scheduler"])
        step, losses = int(state["step"]), [tuple(x) for x in state["losses"]]  # type: ignore[misc]
        torch.set_rng_state(state["rng"])  # dropout goes on as if the run had not stopped
        if state.get("cuda_rng") is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(state["cuda_rng"])
    resumed_from = step

    def save_checkpoint() -> None:
        ckpt_dir.mkdir(parents=True, exist_ok=True)
        tmp = ckpt_dir / "state.pt.tmp"
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
                    "step": step, "losses": losses, "config": asdict(cfg), "rng": torch.get_rng_state(),
                    "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None}, tmp)
        os.replace(tmp, state_file)

    t0 = time.perf_counter()
    model.train()
    window: list[float] = []
    with _bar(progress, cfg.steps, resumed_from) as update:
        while step < cfg.steps:
            idx = _batch_indices(step, len(blocks), cfg.batch_size, cfg.seed)
            gen = torch.Generator().manual_seed(cfg.seed * 1_000_003 + step)
            inputs, labels = _mask(blocks[idx], tok, cfg.mlm_probability, gen, special)
            attn = (inputs != tok.pad_token_id).long()
            loss = _mlm_loss(model, inputs.to(device), attn.to(device), labels.to(device))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            window.append(loss.item())
            if step % cfg.log_every == 0 or step == cfg.steps:
                losses.append((step, round(sum(window) / len(window), 4)))
                window = []
            update(step, losses[-1][1] if losses else window[-1])
            if step % cfg.save_every == 0 or step == cfg.steps:
                save_checkpoint()
    seconds = time.perf_counter() - t0

    model_dir = out / "model"
    if model_dir.exists():
        shutil.rmtree(model_dir)
    model.eval()
    model.to("cpu").save_pretrained(str(model_dir))
    tok.save_pretrained(str(model_dir))
    result = PretrainResult(out, model_dir, step, resumed_from, int(blocks.shape[0]), int(blocks.numel()), losses,
                            seconds)
    (out / "train_log.json").write_text(json.dumps({"config": asdict(cfg), **result.to_dict(),
                                                    "losses": losses}, indent=1), encoding="utf-8")
    return result


class _bar:
    """A Rich progress bar with the loss; a no-op when disabled."""

    def __init__(self, enabled: bool, total: int, done: int) -> None:
        self.enabled, self.total, self.done = enabled, total, done
        self.prog: Any = None

    def __enter__(self) -> Callable[[int, float], None]:
        if not self.enabled:
            return lambda step, loss: None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.prog = Progress(TextColumn("pretraining"), BarColumn(), MofNCompleteColumn(),
                             TextColumn("loss {task.fields[loss]:.3f}"), TimeElapsedColumn(),
                             console=Console(stderr=True), transient=True)
        self.prog.__enter__()
        task = self.prog.add_task("pretrain", total=self.total, completed=self.done, loss=float("nan"))
        return lambda step, loss: self.prog.update(task, completed=step, loss=loss)

    def __exit__(self, *exc: object) -> None:
        if self.prog is not None:
            self.prog.__exit__(*exc)
