"""The CRF detector on MEDDOCAN: train on train only (``configs/train_crf_meddocan.toml``), score on dev.

Writes ``benchmarks/results/crf_meddocan.json`` (or ``--out``) and prints a summary. Measures, all on character
offsets (:func:`clinanon.evaluate.evaluate`):

* subtask 1 (exact span + label) and subtask 2 (exact span) P/R/F1, token-level binary P/R/F1, per-label P/R/F1;
* training time (features + L-BFGS), number of features, model size;
* the misaligned / overlapping gold spans reported by training (counts per label);
* throughput of ``CRFDetector.detect`` loaded from the model directory (rules features included), single
  process, after a warm-up pass: median of ``--repeat`` passes over dev, in chars/s; and the share of the
  rules detector, the features and the tagger in it;
* peak RSS of the training process and, separately, of a fresh inference process (load + warm-up + runs).

Usage: ``python benchmarks/crf_meddocan.py [--data ../shared/data] [--max-iterations N] [--model-dir DIR]``.
The inference part alone: ``python benchmarks/crf_meddocan.py --inference-only --model-dir DIR``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import rss_mb

ROOT = Path(__file__).resolve().parents[1]




def inference(model_dir: Path, data: Path, repeat: int) -> dict[str, Any]:
    """Throughput of a loaded model on MEDDOCAN dev (single process, after warm-up) and this process's RSS."""
    from clinanon import io as cio
    from clinanon.detect.crf import CRFDetector

    docs = sorted(cio.read(data / "meddocan" / "dev" / "brat", "brat"), key=lambda d: d.id)
    det = CRFDetector.load(model_dir)
    for d in docs:  # warm-up: gazetteers, regexes, the word-feature cache
        det.detect(d)
    chars = sum(len(d.text) for d in docs)
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for d in docs:
            det.detect(d)
        runs.append(time.perf_counter() - t0)
    med = statistics.median(runs)
    # where the time goes (one pass each)
    t0 = time.perf_counter()
    rule_spans = [det._rule_spans(d.text) for d in docs]
    t_rules = time.perf_counter() - t0
    t0 = time.perf_counter()
    feats = [det.extractor.extract(d.text, r) for d, r in zip(docs, rule_spans, strict=True)]
    t_feats = time.perf_counter() - t0
    tagger = det._tagger
    t0 = time.perf_counter()
    for f in feats:
        if f.tokens:
            tagger.tag(f.features)
    t_tag = time.perf_counter() - t0
    return {
        "documents": len(docs), "chars": chars, "runs_s": [round(t, 4) for t in runs], "median_s": round(med, 4),
        "chars_per_s": round(chars / med), "docs_per_s": round(len(docs) / med, 1),
        "parts_chars_per_s": {"rules": round(chars / t_rules), "features": round(chars / t_feats),
                              "tagger": round(chars / t_tag)},
        "peak_rss_mb": rss_mb(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--config", type=Path, default=ROOT / "configs" / "train_crf_meddocan.toml")
    ap.add_argument("--max-iterations", type=int, default=None, help="override crf.max_iterations")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=JSON",
                    help="override a config key, e.g. --set crf.c1=0.1 --set tagging='\"BIOES\"'")
    ap.add_argument("--model-dir", type=Path, default=None, help="where to write the model (default: temporary)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--inference-only", action="store_true", help="only measure a model in --model-dir")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "crf_meddocan.json")
    args = ap.parse_args()

    if args.inference_only:
        if args.model_dir is None:
            ap.error("--inference-only needs --model-dir")
        print(json.dumps(inference(args.model_dir, args.data, args.repeat)))
        return

    from clinanon import __version__
    from clinanon.train import TrainConfig, train

    overrides: dict[str, Any] = {
        "data.train": str(args.data / "meddocan" / "train" / "brat"),
        "data.dev": str(args.data / "meddocan" / "dev" / "brat"),
        "data.license": str(args.data / "meddocan" / "LICENSE"),
    }
    if args.max_iterations is not None:
        overrides["crf.max_iterations"] = args.max_iterations
    for item in args.set:
        key, _, value = item.partition("=")
        overrides[key] = json.loads(value)
    cfg = TrainConfig.load(args.config, overrides)

    with tempfile.TemporaryDirectory(prefix="clinanon-crf-bench-") as tmp:
        model_dir = args.model_dir or Path(tmp) / "model"
        result = train(cfg, output=model_dir, progress=sys.stderr.isatty())
        train_rss = rss_mb()
        meta = result.meta
        model_size = (model_dir / "model.crfsuite").stat().st_size
        proc = subprocess.run(
            [sys.executable, __file__, "--inference-only", "--model-dir", str(model_dir), "--data", str(args.data),
             "--repeat", str(args.repeat)], capture_output=True, text=True, check=True)
        infer = json.loads(proc.stdout.strip().splitlines()[-1])

    training = meta["training"]
    dev = meta["scores"]["dev"]
    out = {
        "benchmark": "crf_meddocan",
        "clinanon": __version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "config": meta["config"],
        "params": meta["params"],
        "train": {"documents": meta["data"]["train"]["documents"], "chars": meta["data"]["train"]["chars"],
                  "tokens": training["tokens"], "gold_spans": training["gold_spans"],
                  "digest": meta["data"]["train"]["digest"]},
        "dev": {"documents": meta["data"]["dev"]["documents"], "chars": meta["data"]["dev"]["chars"],
                "digest": meta["data"]["dev"]["digest"]},
        "subtask1": dev["subtask1"],
        "subtask2": dev["subtask2"],
        "token_binary": dev["token_binary"],
        "per_label": dev["per_label"],
        "training": {
            "feature_seconds": training["feature_seconds"], "lbfgs_seconds": training["train_seconds"],
            "total_seconds": training["total_seconds"], "iterations": training["iterations"],
            "final_loss": training["final_loss"], "features": training["features"],
            "dev_tag_f1_per_iteration": training["dev_tag_f1_per_iteration"],
            "misaligned_gold_spans": training["misaligned_count"],
            "misaligned_by_label": dict(Counter(m["label"] for m in training["misaligned"])),
            "overlapping_gold_spans": training["overlapping_count"],
            "peak_rss_mb": train_rss,
        },
        "model_bytes": model_size,
        "model_mb": round(model_size / 2**20, 2),
        "inference": infer,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    s1, s2, tb = out["subtask1"], out["subtask2"], out["token_binary"]
    print(f"MEDDOCAN dev  subtask1 P/R/F {s1['precision']:.4f}/{s1['recall']:.4f}/{s1['f1']:.4f}  "
          f"subtask2 F {s2['f1']:.4f}  token-binary F {tb['f1']:.4f}")
    print(f"training {training['total_seconds']:.0f} s ({training['iterations']} iterations), "
          f"model {out['model_mb']} MB, {infer['chars_per_s']:,} chars/s, "
          f"RSS train {train_rss} MB / inference {infer['peak_rss_mb']} MB")
    for label, m in dev["per_label"].items():
        print(f"  {label:36s} F1 {m['f1']:.4f}  (P {m['precision']:.4f} R {m['recall']:.4f}, gold {m['gold']})")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
