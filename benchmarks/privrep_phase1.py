"""Phase 1 of privrep against the plain tagger, one difference at a time (issue 22, fifth pass).

The representation model's phase 1 (representation + de-identification head, no privacy term, no noise floor)
and the plain BiLSTM-CRF (``clinanon.privrep.baselines.PlainTagger``) on the reduced MEDDOCAN run of
``benchmarks/privrep.py`` (first 120 train -> first 50 dev notes, its cached fastText vectors), trained the same
number of epochs; after every epoch: the training loss as logged, the CRF negative log-likelihood of the training
notes per token in eval mode (no dropout; the representation's noise drawn as in inference), and token-binary F1
on dev (fixed epochs, nothing selected). Each variant changes one thing against ``p1_token`` (phase 1 as the
fourth pass ran it: ``deid_loss="token"``) or against the plain tagger:

* ``plain``: the plain tagger (per-sentence loss, clip 5, Adam 0.002, batch 32, dropout 0.3);
* ``p1_token`` / ``p1_sentence``: phase 1 with the per-token / per-sentence loss (``--pretrain-loss``);
* ``p1_token_clip011``: per-token loss, gradient clipping at 5 / 45 (45: the mean sentence length, so the clip acts
  as it does on the per-sentence loss); ``p1_sentence_noclip``: per-sentence loss, no clipping;
* ``p1_token_lr005``: learning rate 0.005; ``p1_token_drop0``: no dropout in the head; ``p1_token_noise0``: no
  noise (``sigma`` fixed at ~0); ``p1_token_dim128``: a 128-d representation instead of 50.

Usage (``--variants`` a subset; results merged into the file by name)::

    nice -n 19 python benchmarks/privrep_phase1.py --epochs 16 --threads 1 \
        [--variants plain p1_token ...] [--out benchmarks/results/privrep_phase1.json]

No text is written: losses and scores only.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parents[1]

VARIANTS: dict[str, dict[str, Any]] = {
    "plain": {"plain": True},
    "p1_token": {"deid_loss": "token"},
    "p1_sentence": {"deid_loss": "sentence"},
    "p1_token_clip011": {"deid_loss": "token", "clip": 0.11},
    "p1_sentence_noclip": {"deid_loss": "sentence", "clip": 1e9},
    "p1_token_lr005": {"deid_loss": "token", "lr": 0.005},
    "p1_token_drop0": {"deid_loss": "token", "dropout": 0.0},
    "p1_token_noise0": {"deid_loss": "token", "noise": False},
    "p1_token_dim128": {"deid_loss": "token", "dim": 128},
}


def run_variant(name: str, spec: dict[str, Any], epochs: int, seed: int, space: Any, train: Any, dev: Any
                ) -> dict[str, Any]:
    import torch

    from clinanon.privrep.baselines import PlainTagger
    from clinanon.privrep.model import PrivRepConfig, PrivRepModel, score_tags

    spec = dict(spec)
    out: dict[str, Any] = {"variant": name, "change": {k: v for k, v in spec.items() if k != "plain"},
                           "seed": seed, "epochs": []}
    t0 = time.process_time()

    def nll_per_token(loss_of: Any) -> float:
        with torch.no_grad():
            total = sum(loss_of(train.sentences[b:b + 128]) for b in range(0, len(train.sentences), 128))
        return round(total / train.tokens, 4)

    if spec.pop("plain", False):
        tagger = PlainTagger(space, train.tags, hidden=64, seed=seed)

        def plain_loss(sents: list[Any]) -> float:
            bt = tagger._batch([s.words for s in sents], [s.casings for s in sents], [s.tags for s in sents])
            return float(tagger.net.loss(bt))

        def plain_cb(info: dict[str, Any]) -> None:
            tagger.net.eval()
            nll = nll_per_token(plain_loss)
            tagger.net.train()
            out["epochs"].append({"epoch": info["epoch"], "train_loss_logged": info["loss"], "eval_nll_per_token": nll,
                                  "dev_f1": info["dev"]["token_binary"]["f1"],
                                  "cpu_s": round(time.process_time() - t0, 1)})
            print(json.dumps({"variant": name, **out["epochs"][-1]}), flush=True)

        tagger.fit(train, epochs, dev=dev, callback=plain_cb)
        return out
    noise = spec.pop("noise", True)
    cfg = PrivRepConfig(strategy="none", pretrain_epochs=epochs, seed=seed, **spec)
    m = PrivRepModel(space, train.tags, cfg)
    if not noise:
        for nz in (m.rep.noise_in, m.rep.noise_out):
            nz.log_sigma.data.fill_(-30.0)
            nz.log_sigma.requires_grad_(False)

    def rep_loss(sents: list[Any]) -> float:
        w, c, t, ln, mask = m._tensors(sents)
        return float(m.head.crf.neg_log_likelihood(m.head.emissions(m.rep(w, c, ln), ln), t, mask))

    def rep_cb(info: dict[str, Any]) -> None:
        m.rep.eval()
        m.head.eval()
        nll = nll_per_token(rep_loss)
        m.rep.train()
        m.head.train()
        out["epochs"].append({"epoch": info["epoch"], "train_loss_logged": info["l_deid"], "eval_nll_per_token": nll,
                              "dev_f1": score_tags(dev, m.predict(dev))["token_binary"]["f1"],
                              "sigma_out": info["sigma_out"], "cpu_s": round(time.process_time() - t0, 1)})
        print(json.dumps({"variant": name, **out["epochs"][-1]}), flush=True)

    m.pretrain(train, callback=rep_cb)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", nargs="+", choices=sorted(VARIANTS), default=list(VARIANTS))
    ap.add_argument("--epochs", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--work", type=Path, default=Path("/tmp/clinanon-privrep"),
                    help="where benchmarks/privrep.py left the vectors (meddocan_120_50_100.vec)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "privrep_phase1.json")
    args = ap.parse_args()

    import torch

    from clinanon.privrep.data import WordSpace, encode_corpus
    from privrep import load

    torch.set_num_threads(args.threads)
    train_docs, dev_docs, lang = load("meddocan")
    train_docs, dev_docs = train_docs[:120], dev_docs[:50]
    space = WordSpace.from_file(args.work / "meddocan_120_50_100.vec")
    train = encode_corpus(train_docs, space, lang=lang)
    dev = encode_corpus(dev_docs, space, lang=lang, tags=train.tags)
    res: dict[str, Any] = json.loads(args.out.read_text(encoding="utf-8")) if args.out.exists() else {}
    res.update({"benchmark": "privrep_phase1", "corpus": "meddocan", "train_documents": len(train_docs),
                "dev_documents": len(dev_docs), "train_sentences": len(train.sentences),
                "train_tokens": train.tokens, "torch": torch.__version__, "threads": args.threads,
                "command": "nice -n 19 python benchmarks/privrep_phase1.py --epochs 16 --threads 1"})
    runs = res.setdefault("runs", {})
    for name in args.variants:
        runs[f"{name}_s{args.seed}_e{args.epochs}"] = run_variant(name, VARIANTS[name], args.epochs, args.seed,
                                                                 space, train, dev)
        args.out.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
