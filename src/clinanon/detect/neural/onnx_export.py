"""A transformer model directory to ONNX (+ int8 dynamic quantization), and a detector that runs it with onnxruntime.

>>> export_onnx("models/minilm-deid")              # writes model.onnx and model.int8.onnx   # doctest: +SKIP
>>> det = OnnxTransformerDetector.load("models/minilm-deid")      # int8 by default, no torch  # doctest: +SKIP
>>> det.detect(doc)                                                                           # doctest: +SKIP

* :func:`export_onnx` (needs torch) traces the fine-tuned checkpoint of a
  :class:`~clinanon.detect.neural.transformer.TransformerDetector` directory (inputs ``input_ids`` and
  ``attention_mask``, ``[batch, sequence]``, both dynamic; output ``logits``) with PyTorch's TorchScript-based
  exporter, then quantizes its weights to int8 with ``onnxruntime.quantization.quantize_dynamic`` (activations are
  quantized on the fly; :func:`quantize_int8`): one scale per output channel, the token-classification head and the
  feed-forward output projections kept in float. That is the best of the settings ``benchmarks/onnx_quant.py``
  measured that keeps most of the size gain (MiniLM fine-tuned on 20 MEDDOCAN notes, 20 dev notes: token tag
  agreement with the float model 0.9945, span agreement 0.9407, 33.6 MB for 90.4 MB in float; one scale per matrix,
  the first default: 0.9846 / 0.8023, 22.9 MB; per channel alone: 0.9913 / 0.8996). Both files go into the model
  directory and ``meta.json`` records them and the settings.
* :class:`OnnxTransformerDetector` needs onnxruntime, NumPy and the checkpoint's tokenizer (``transformers``
  without torch): the same words, windows, merging, BIO repair and CRF decoding as the PyTorch detector (the code
  is shared), so the only difference is the network's arithmetic. ``threads`` sets onnxruntime's intra-op threads
  (1: one core).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

from clinanon.analysis import Analysis
from clinanon.detect.base import BaseDetector
from clinanon.detect.model_dir import write_meta
from clinanon.detect.neural.transformer import (
    HF_DIR,
    SubwordWindows,
    TaggerCore,
    TransformerDetector,
    load_tokenizer,
    require,
)
from clinanon.document import Document, Span
from clinanon.errors import ConfigError, InputError
from clinanon.lang import check_language
from clinanon.text import token_table

__all__ = ["DEFAULT_KEEP_FLOAT", "DEFAULT_OP_TYPES", "FLOAT_GROUPS", "INT8_FILE", "ONNX_FILE",
           "OnnxTransformerDetector", "export_onnx", "float_node_names", "quantize_int8"]

ONNX_FILE = "model.onnx"
INT8_FILE = "model.int8.onnx"


#: the nodes :func:`export_onnx` keeps in float by default (see :func:`float_node_names`)
DEFAULT_KEEP_FLOAT: tuple[str, ...] = ("classifier", "ffn_out")
#: the node types it quantizes by default (``None``: every type onnxruntime's dynamic quantizer knows, the
#: embedding tables' ``Gather`` included)
DEFAULT_OP_TYPES: tuple[str, ...] | None = None
#: the groups of nodes :func:`float_node_names` knows
FLOAT_GROUPS = ("classifier", "ffn_out", "first_last")


def float_node_names(onnx_path: str | Path, groups: Iterable[str]) -> list[str]:
    """The names of the MatMul/Gemm nodes of an exported transformer that belong to ``groups`` (read from the
    node names the exporter writes after the PyTorch modules): ``"classifier"``, the token-classification head;
    ``"ffn_out"``, the feed-forward output projections (``layer.N/output/dense`` in BERT-like models, ``ffn/lin2``
    in DistilBERT), whose input is the GELU output with its outliers; ``"first_last"``, every MatMul of the first
    and the last layer. A group whose names a model does not use matches nothing there (its nodes are quantized)."""
    onnx = require("onnx")
    groups = set(groups)
    unknown = groups - set(FLOAT_GROUPS)
    if unknown:
        raise ConfigError(f"unknown node groups {sorted(unknown)}; expected some of {list(FLOAT_GROUPS)}")
    model = onnx.load(str(onnx_path), load_external_data=False)
    names = [n.name for n in model.graph.node if n.op_type in ("MatMul", "Gemm")]
    layers = sorted({int(part.split(".")[1]) for n in names for part in n.split("/")
                     if part.startswith("layer.") and part.split(".")[1].isdigit()})
    edge = {f"layer.{layers[0]}", f"layer.{layers[-1]}"} if layers else set()
    out = []
    for n in names:
        parts = set(n.split("/"))
        hit = {"classifier": any("classifier" in p for p in parts),
               "ffn_out": ({"output", "dense"} <= parts and "attention" not in parts) or {"ffn", "lin2"} <= parts,
               "first_last": bool(parts & edge)}
        if any(hit[g] for g in groups):
            out.append(n)
    return out


def quantize_int8(fp32_path: str | Path, out_path: str | Path, *, per_channel: bool = True,
                  reduce_range: bool = False, keep_float: Iterable[str] = DEFAULT_KEEP_FLOAT,
                  op_types: Sequence[str] | None = DEFAULT_OP_TYPES) -> dict[str, Any]:
    """Dynamic int8 quantization (``onnxruntime.quantization.quantize_dynamic``: int8 weights, activations
    quantized on the fly) of ``fp32_path`` into ``out_path``; ``keep_float``: node groups left in float
    (:func:`float_node_names`); ``op_types``: the node types quantized (``None``: all). Returns the settings."""
    quant = require("onnxruntime.quantization")
    keep = list(keep_float)
    exclude = float_node_names(fp32_path, keep) if keep else []
    kw: dict[str, Any] = {}
    if op_types is not None:
        kw["op_types_to_quantize"] = list(op_types)
    quant.quantize_dynamic(str(fp32_path), str(out_path), weight_type=quant.QuantType.QInt8,
                           per_channel=per_channel, reduce_range=reduce_range, nodes_to_exclude=exclude, **kw)
    return {"per_channel": per_channel, "reduce_range": reduce_range, "keep_float": keep,
            "float_nodes": len(exclude), "op_types": list(op_types) if op_types is not None else "all"}


def export_onnx(model_dir: str | Path, *, quantize: bool = True, per_channel: bool = True, opset: int = 17,
                reduce_range: bool = False, keep_float: Iterable[str] = DEFAULT_KEEP_FLOAT,
                op_types: Sequence[str] | None = DEFAULT_OP_TYPES) -> dict[str, Any]:
    """Write ``model.onnx`` (and, with ``quantize``, ``model.int8.onnx``) into a transformer model directory and
    record them in its ``meta.json`` (``"onnx"``); returns that record (file names and sizes in bytes).

    ``per_channel``: one int8 scale per output channel of each weight matrix (default) rather than one per matrix;
    on MiniLM fine-tuned on the English nursing notes it moved the int8/PyTorch span agreement from 0.749 to 0.928
    (fold 0 of ``benchmarks/transformer_notes.py``). ``reduce_range``, ``keep_float`` and ``op_types``: see
    :func:`quantize_int8`; the defaults are the setting ``benchmarks/onnx_quant.py`` measured best for its size
    (``op_types=("MatMul",)`` also keeps the embedding tables in float: a little closer to the float model, at twice
    the size)."""
    torch = require("torch")
    transformers = require("transformers")
    require("onnx")
    p = Path(model_dir)
    meta = TransformerDetector.read_meta(p)
    hf = p / str(meta.get("checkpoint", HF_DIR))
    try:  # eager attention traces into plain ONNX ops (no fused SDPA kernel)
        model = transformers.AutoModelForTokenClassification.from_pretrained(
            str(hf), local_files_only=True, attn_implementation="eager")
    except (OSError, ValueError) as e:
        raise InputError(f"cannot load the fine-tuned checkpoint ({type(e).__name__})", path=hf) from None
    model.eval()

    class _Logits(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            return self.inner(input_ids=input_ids, attention_mask=attention_mask).logits

    ids = torch.ones((2, 16), dtype=torch.long)
    mask = torch.ones((2, 16), dtype=torch.long)
    mask[1, 12:] = 0
    out = p / ONNX_FILE
    tmp = p / (ONNX_FILE + ".tmp")
    with torch.inference_mode(False), torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the legacy exporter's deprecation and tracer notes (shapes are dynamic)
        torch.onnx.export(_Logits(model), (ids, mask), str(tmp), input_names=["input_ids", "attention_mask"],
                          output_names=["logits"], opset_version=opset, dynamo=False,
                          dynamic_axes={"input_ids": {0: "batch", 1: "sequence"},
                                        "attention_mask": {0: "batch", 1: "sequence"},
                                        "logits": {0: "batch", 1: "sequence"}})
    os.replace(tmp, out)
    record: dict[str, Any] = {"fp32": ONNX_FILE, "fp32_bytes": out.stat().st_size, "opset": opset}
    if quantize:
        q_out = p / INT8_FILE
        q_tmp = p / ("tmp-" + INT8_FILE)
        how = quantize_int8(out, q_tmp, per_channel=per_channel, reduce_range=reduce_range, keep_float=keep_float,
                            op_types=op_types)
        os.replace(q_tmp, q_out)
        record.update({"int8": INT8_FILE, "int8_bytes": q_out.stat().st_size, **how})
    for name in (ONNX_FILE, INT8_FILE):
        if (p / name).is_file():
            os.chmod(p / name, 0o644)
    meta["onnx"] = record
    write_meta(p, meta)
    return record


class OnnxTransformerDetector(TaggerCore, BaseDetector):
    """A :class:`~clinanon.detect.neural.transformer.TransformerDetector` model run by onnxruntime (see the module
    docstring). Build it with :meth:`load`."""

    name = "transformer"
    overlapping: ClassVar[bool] = False

    def __init__(self, session: Any, tokenizer: Any, meta: dict[str, Any], *, canonical: bool | None = None,
                 batch_size: int | None = None) -> None:
        params = dict(meta.get("params") or {})
        self.lang = check_language(str(params.get("lang", "en")))
        self.session = session
        self.meta_ = meta
        self.labels_ = list(meta.get("labels") or [])
        self.tags_ = list(meta.get("tags") or [])
        self.crf_params_ = meta.get("crf")
        self.crf = bool(params.get("crf")) and self.crf_params_ is not None
        self.batch_size = int(batch_size or params.get("batch_size", 16))
        self.label_scheme = params.get("label_scheme")
        self.canonical = bool(params.get("canonical")) if canonical is None else canonical
        self._category = None
        if self.canonical:
            if self.label_scheme is None:
                raise ConfigError("canonical=True needs the model's label_scheme")
            from clinanon.taxonomy import get_scheme

            self._category = get_scheme(self.label_scheme).category
        self.encoder = SubwordWindows(tokenizer, int(params.get("max_length", 256)), int(params.get("stride", 64)))
        names = {i.name for i in session.get_inputs()}
        if names != {"input_ids", "attention_mask"}:
            raise ConfigError("the ONNX model's inputs are not input_ids and attention_mask")

    def __repr__(self) -> str:
        return f"OnnxTransformerDetector(lang={self.lang!r}, labels={len(self.labels_)}, crf={self.crf})"

    @classmethod
    def load(cls, path: str | Path, *, quantized: bool = True, threads: int = 0, canonical: bool | None = None,
             batch_size: int | None = None, which: Literal["int8", "fp32"] | None = None
             ) -> OnnxTransformerDetector:
        """The detector of a model directory that :func:`export_onnx` has written to (``quantized``: the int8
        file; ``threads``: onnxruntime's intra-op threads, 0 = its default)."""
        ort = require("onnxruntime")
        p = Path(path)
        meta = TransformerDetector.read_meta(p)
        record = meta.get("onnx") or {}
        key = which or ("int8" if quantized else "fp32")
        name = record.get(key)
        if not name or not (p / str(name)).is_file():
            raise InputError(f"no {key} ONNX model in the model directory (run export_onnx first)", path=p)
        opts = ort.SessionOptions()
        if threads:
            opts.intra_op_num_threads = threads
            opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        try:
            session = ort.InferenceSession(str(p / str(name)), sess_options=opts, providers=["CPUExecutionProvider"])
        except Exception as e:  # onnxruntime raises its own exception types
            raise InputError(f"cannot load the ONNX model ({type(e).__name__})", path=p / str(name)) from None
        tokenizer = load_tokenizer(p / str(meta.get("checkpoint", HF_DIR)))
        return cls(session, tokenizer, meta, canonical=canonical, batch_size=batch_size)

    def _run(self, ids: list[list[int]], mask: list[list[int]]) -> Any:
        import numpy as np

        return self.session.run(["logits"], {"input_ids": np.asarray(ids, dtype=np.int64),
                                             "attention_mask": np.asarray(mask, dtype=np.int64)})[0]

    def detect(self, analysis: Analysis | Document) -> list[Span]:
        return self.pipe([self.analysis(analysis)])[0]

    def pipe(self, analyses: Sequence[Analysis]) -> list[list[Span]]:
        tables = self._tables([self.analysis(a) if isinstance(a, Document) else a for a in analyses])
        return self._run_tables(tables, self.encoder, self.batch_size, self._run)

    def predict(self, docs: Iterable[Document]) -> list[Document]:
        docs = list(docs)
        spans = self._run_tables([token_table(d.text) for d in docs], self.encoder, self.batch_size, self._run)
        return [d.with_spans(s) for d, s in zip(docs, spans, strict=True)]
