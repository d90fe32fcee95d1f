"""The spaCy NER detector on MEDDOCAN: train on train only (``configs/train_spacy_meddocan.toml``), score on dev.

Writes ``benchmarks/results/spacy_meddocan.json`` (or ``--out``) and prints a summary. Measures, all on character
offsets (:func:`clinanon.evaluate.evaluate`) unless marked as spaCy's:

* subtask 1 (exact span + label) and subtask 2 (exact span) P/R/F1, token-level binary P/R/F1, per-label P/R/F1;
* spaCy's own training-log NER score (``ents_p/r/f``: on spaCy's tokens, against the gold as the tokens could
  encode it) next to ours at every evaluation of the loop, and at the last one;
* training: wall-clock time (conversion, initialisation, spaCy's loop), steps, epochs, the limits used;
* the gold spans that do not align with the tokens (counts per label) -- reported, trained expanded;
* throughput of ``SpacyNERDetector.predict`` (``nlp.pipe``, batches of 64 documents) loaded from the model
  directory, single process, after a warm-up pass: median of ``--repeat`` passes over dev, in chars/s;
* model size on disk; peak RSS of the training process and, separately, of a fresh inference process.

One CPU process: BLAS / OpenMP threads are set to 1 before numpy is imported (the machine has 2 cores).

Usage: ``python benchmarks/spacy_meddocan.py [--data ../shared/data] [--max-steps N] [--model-dir DIR]``.
``--tokenizer spacy`` trains with spaCy's default Spanish tokenizer instead (a baseline; writes
``spacy_meddocan_spacy_tokenizer.json`` unless ``--out`` is given). The inference part alone:
``python benchmarks/spacy_meddocan.py --inference-only --model-dir DIR [--out RESULT.json]`` (with ``--out``, the
``inference`` part of that result file is replaced by the new measurement).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import rss_mb  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]




def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def inference(model_dir: Path, data: Path, repeat: int) -> dict[str, Any]:
    """Throughput of a loaded model on MEDDOCAN dev (single process, after warm-up) and this process's RSS."""
    from clinanon import io as cio
    from clinanon.detect.spacy_ner import SpacyNERDetector

    docs = sorted(cio.read(data / "meddocan" / "dev" / "brat", "brat"), key=lambda d: d.id)
    t0 = time.perf_counter()
    det = SpacyNERDetector.load(model_dir)
    load_s = time.perf_counter() - t0
    det.predict(docs)  # warm-up
    chars = sum(len(d.text) for d in docs)
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        det.predict(docs)
        runs.append(time.perf_counter() - t0)
    med = statistics.median(runs)
    # the tokenizer's share
    nlp = det.nlp
    assert nlp is not None
    t0 = time.perf_counter()
    for d in docs:
        nlp.make_doc(d.text)
    t_tok = time.perf_counter() - t0
    return {
        "documents": len(docs), "chars": chars, "batch_size": det.batch_size, "load_s": round(load_s, 3),
        "runs_s": [round(t, 4) for t in runs], "median_s": round(med, 4), "chars_per_s": round(chars / med),
        "docs_per_s": round(len(docs) / med, 1), "tokenizer_chars_per_s": round(chars / t_tok),
        "peak_rss_mb": rss_mb(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--config", type=Path, default=ROOT / "configs" / "train_spacy_meddocan.toml")
    ap.add_argument("--max-steps", type=int, default=None, help="override spacy.max_steps")
    ap.add_argument("--tokenizer", choices=("clinanon", "spacy"), default="clinanon")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=JSON",
                    help="override a config key, e.g. --set spacy.eval_frequency=200")
    ap.add_argument("--model-dir", type=Path, default=None, help="where to write the model (default: temporary)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--inference-only", action="store_true", help="only measure a model in --model-dir")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()

    if args.inference_only:
        if args.model_dir is None:
            ap.error("--inference-only needs --model-dir")
        infer = inference(args.model_dir, args.data, args.repeat)
        if args.out is not None and args.out.is_file():  # re-measure: replace the "inference" part of a result
            result = json.loads(args.out.read_text(encoding="utf-8"))
            result["inference"] = infer
            args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(json.dumps(infer))
        return
    if args.out is None:
        name = "spacy_meddocan" if args.tokenizer == "clinanon" else "spacy_meddocan_spacy_tokenizer"
        args.out = ROOT / "benchmarks" / "results" / f"{name}.json"

    from clinanon import __version__
    from clinanon.train import TrainConfig, train

    overrides: dict[str, Any] = {
        "data.train": str(args.data / "meddocan" / "train" / "brat"),
        "data.dev": str(args.data / "meddocan" / "dev" / "brat"),
        "data.license": str(args.data / "meddocan" / "LICENSE"),
        "spacy.tokenizer": args.tokenizer,
    }
    if args.max_steps is not None:
        overrides["spacy.max_steps"] = args.max_steps
    for item in args.set:
        key, _, value = item.partition("=")
        overrides[key] = json.loads(value)
    cfg = TrainConfig.load(args.config, overrides)

    def log(line: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {line}", file=sys.stderr, flush=True)

    import spacy

    with tempfile.TemporaryDirectory(prefix="clinanon-spacy-bench-") as tmp:
        model_dir = args.model_dir or Path(tmp) / "model"
        result = train(cfg, output=model_dir, progress=False, log=log)
        train_rss = rss_mb()
        meta = result.meta
        model_size = _dir_bytes(model_dir)
        weights = {name: (model_dir / name / "model").stat().st_size for name in ("tok2vec", "ner")
                   if (model_dir / name / "model").is_file()}
        proc = subprocess.run(
            [sys.executable, __file__, "--inference-only", "--model-dir", str(model_dir), "--data", str(args.data),
             "--repeat", str(args.repeat)], capture_output=True, text=True, check=True)
        infer = json.loads(proc.stdout.strip().splitlines()[-1])

    training = meta["training"]
    dev = meta["scores"]["dev"]
    evals = training["evaluations"]
    last = evals[-1] if evals else {}
    spacy_cfg = result.detector.nlp.config
    out = {
        "benchmark": "spacy_meddocan",
        "clinanon": __version__,
        "spacy": spacy.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "threads": {v: os.environ.get(v) for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")},
        "config": meta["config"],
        "tokenizer": args.tokenizer,
        "limits_used": {k: spacy_cfg["training"][k] for k in ("max_steps", "max_epochs", "eval_frequency",
                                                             "patience", "dropout")},
        "architecture": {
            "tok2vec": spacy_cfg["components"]["tok2vec"]["model"]["@architectures"],
            "embed": spacy_cfg["components"]["tok2vec"]["model"]["embed"]["@architectures"],
            "encode": spacy_cfg["components"]["tok2vec"]["model"]["encode"]["@architectures"],
            "width": spacy_cfg["components"]["tok2vec"]["model"]["encode"]["width"],
            "depth": spacy_cfg["components"]["tok2vec"]["model"]["encode"]["depth"],
            "ner": spacy_cfg["components"]["ner"]["model"]["@architectures"],
        },
        "train": {"documents": meta["data"]["train"]["documents"], "chars": meta["data"]["train"]["chars"],
                  "spacy_tokens": training["tokens"], "gold_spans": training["gold_spans"],
                  "digest": meta["data"]["train"]["digest"]},
        "dev": {"documents": meta["data"]["dev"]["documents"], "chars": meta["data"]["dev"]["chars"],
                "digest": meta["data"]["dev"]["digest"], "misaligned_gold_spans": training["dev_misaligned_count"]},
        "subtask1": dev["subtask1"],
        "subtask2": dev["subtask2"],
        "token_binary": dev["token_binary"],
        "per_label": dev["per_label"],
        "spacy_log_score_vs_ours": {
            "note": "spaCy's ents_* are computed on spaCy tokens against the gold spans as those tokens encode "
                    "them (misaligned spans expanded); ours compare exact character offsets with the original "
                    "gold. At the last evaluation of the training loop (the kept model when keep = 'last').",
            "step": last.get("step"),
            "spacy_ents_p": last.get("spacy_ents_p"), "spacy_ents_r": last.get("spacy_ents_r"),
            "spacy_ents_f": last.get("spacy_ents_f"),
            "clinanon_subtask1_f": last.get("ents_f"), "clinanon_subtask2_f": last.get("spans_f"),
        },
        "evaluations": [{"step": e["step"], "epoch": e["epoch"], "seconds": e["seconds"],
                         "loss_ner": e["losses"].get("ner"), "dev_subtask1_f": e["ents_f"],
                         "dev_subtask2_f": e["spans_f"], "spacy_ents_f": e["spacy_ents_f"]} for e in evals],
        "training": {
            "steps": training["steps"], "epochs": training["epochs"], "keep": training["keep"],
            "kept_step": training["kept_step"],
            "convert_seconds": training["convert_seconds"], "init_seconds": training["init_seconds"],
            "loop_seconds": training["train_seconds"], "total_seconds": training["total_seconds"],
            "misaligned_gold_spans": training["misaligned_count"],
            "misaligned_by_label": dict(Counter(m["label"] for m in training["misaligned"])),
            "overlapping_gold_spans": training["overlapping_count"],
            "peak_rss_mb": train_rss,
        },
        "model_bytes": model_size,
        "model_mb": round(model_size / 2**20, 2),
        "weights_bytes": weights,
        "inference": infer,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    s1, s2, tb = out["subtask1"], out["subtask2"], out["token_binary"]
    cmp_ = out["spacy_log_score_vs_ours"]
    print(f"MEDDOCAN dev  subtask1 P/R/F {s1['precision']:.4f}/{s1['recall']:.4f}/{s1['f1']:.4f}  "
          f"subtask2 F {s2['f1']:.4f}  token-binary F {tb['f1']:.4f}")
    print(f"spaCy's own log score ents_f {cmp_['spacy_ents_f']} vs ours {cmp_['clinanon_subtask1_f']} "
          f"(step {cmp_['step']})")
    print(f"training {training['total_seconds']:.0f} s ({training['steps']} steps, {training['epochs']} epochs), "
          f"model {out['model_mb']} MB, {infer['chars_per_s']:,} chars/s, "
          f"RSS train {train_rss} MB / inference {infer['peak_rss_mb']} MB")
    for label, m in dev["per_label"].items():
        print(f"  {label:36s} F1 {m['f1']:.4f}  (P {m['precision']:.4f} R {m['recall']:.4f}, gold {m['gold']})")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
