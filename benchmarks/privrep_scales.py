"""How far apart are a PHI word and its N-neighbour pseudonym, in the phase-1 representation of privrep?

The measurement behind the noise floor of ``docs/privrep.md`` (issue 22): for the first ``--sentences`` training
sentences with PHI, one PHI word is replaced by a random pick among its ``--n`` nearest embedding neighbours (the
pseudonymization the adversaries are trained on); reported are the per-dimension RMS distance of the two word
vectors, the mean absolute change of the phase-1 representation ``R`` (before noise) at that token and over the
whole sentence, the mean ``|R|``, and the model's learned noise scales. Medians over sentences; no text is written.

Needs the vectors and the cached phase-1 model that ``benchmarks/privrep.py --phase1-cache`` leaves in ``--work``
(defaults: the reduced MEDDOCAN run of the fifth and sixth passes, 120 train notes, 50 dev, dimension 100, phase 1
16 epochs on the per-sentence loss, seed 0; the cache name is built by ``privrep.phase1_cache_name``, as
``privrep.py`` builds it, so it follows any change of the cache key. ``privrep_scales.json`` of the third pass was
measured on the older ``phase1_meddocan_120_50_100_6_50_0_token`` model: pass ``--phase1`` to name a cache).

Usage::

    python benchmarks/privrep_scales.py [--work /tmp/clinanon-privrep] [--out benchmarks/results/privrep_scales.json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/clinanon-privrep"))
    ap.add_argument("--vectors", default=None, help="default: meddocan_<train>_<dev>_100.vec, as privrep.py names it")
    ap.add_argument("--phase1", default=None,
                    help="the cached phase-1 folder under --work (default: the name privrep.py gives the cache of "
                         "--train-docs / --dev-docs / --pretrain-epochs / --pretrain-loss / --seed)")
    ap.add_argument("--train-docs", type=int, default=120)
    ap.add_argument("--dev-docs", type=int, default=50)
    ap.add_argument("--pretrain-epochs", type=int, default=16)
    ap.add_argument("--pretrain-loss", choices=["sentence", "token"], default="sentence")
    ap.add_argument("--sentences", type=int, default=200)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "privrep_scales.json")
    args = ap.parse_args()

    import numpy as np
    import torch

    from clinanon.privrep.data import WordSpace, encode_corpus, phi_sentences, pseudonymize_one
    from clinanon.privrep.model import PrivRepModel
    from privrep import load, phase1_cache_name

    torch.set_num_threads(1)
    args.vectors = args.vectors or f"meddocan_{args.train_docs}_{args.dev_docs}_100.vec"
    args.phase1 = args.phase1 or phase1_cache_name("meddocan", args.train_docs, args.dev_docs, 100,
                                                   args.pretrain_epochs, 50, args.seed, args.pretrain_loss)
    if not (args.work / args.phase1 / "meta.json").is_file():
        sys.exit(f"no cached phase-1 model in {args.work / args.phase1}: run benchmarks/privrep.py --phase1-cache")
    train_docs, _dev, lang = load("meddocan")
    space = WordSpace.from_file(args.work / args.vectors)
    train = encode_corpus(train_docs[:args.train_docs], space, lang=lang)
    model = PrivRepModel.load(args.work / args.phase1)
    rng = random.Random(args.seed)
    word_rms, at_token, sentence, r_abs = [], [], [], []
    with torch.no_grad():
        for k in phi_sentences(train, space)[:args.sentences]:
            s = train.sentences[k]
            fake = pseudonymize_one(s, space, args.n, rng)
            changed = [i for i, (a, b) in enumerate(zip(s.words, fake, strict=True)) if a != b]
            if not changed:
                continue
            i = changed[0]
            word_rms.append(float(np.linalg.norm(space.matrix[s.words[i]] - space.matrix[fake[i]])
                                  / np.sqrt(space.dim)))
            w, c, _, lengths, _ = model._tensors([s], with_tags=False)
            wf, _, _, _, _ = model._tensors([s], [fake], with_tags=False)
            r1 = model.rep.lstm(torch.cat([model.rep.embed(w), model.rep.casing_onehot[c]], 2), lengths)
            r2 = model.rep.lstm(torch.cat([model.rep.embed(wf), model.rep.casing_onehot[c]], 2), lengths)
            d = (r1 - r2).abs()[0]
            at_token.append(float(d[i].mean()))
            sentence.append(float(d.mean()))
            r_abs.append(float(r1.abs().mean()))
    report = {
        "benchmark": "privrep_scales", "command": " ".join(sys.argv), "phase1_model": args.phase1,
        "n": args.n, "seed": args.seed, "sentences": len(at_token),
        "word_vector_rms_distance_median": round(float(np.median(word_rms)), 4),
        "r_change_at_token_median": round(float(np.median(at_token)), 4),
        "r_change_sentence_median": round(float(np.median(sentence)), 4),
        "r_abs_mean": round(float(np.mean(r_abs)), 4),
        "noise_levels": model.noise_levels(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, default=float), encoding="utf-8")
    print(json.dumps(report, indent=1, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
