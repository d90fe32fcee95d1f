"""A transformer model directory to ONNX (+ int8), and a detector that runs it with onnxruntime.

>>> export_onnx("models/minilm-deid")              # writes model.onnx and model.int8.onnx   # doctest: +SKIP
>>> det = OnnxTransformerDetector.load("models/minilm-deid")      # int8 by default, no torch  # doctest: +SKIP
>>> det.detect(doc)                                                                           # doctest: +SKIP

* :func:`export_onnx` (needs torch) traces the fine-tuned checkpoint of a
  :class:`~clinanon.detect.neural.transformer.TransformerDetector` directory (inputs ``input_ids`` and
  ``attention_mask``, ``[batch, sequence]``, both dynamic; output ``logits``) with PyTorch's TorchScript-based
  exporter, then writes an int8 copy by one of two methods (``method``):

  - ``"weight_only"`` (the default; :func:`quantize_weight_only`): int8 *weights* only, symmetric, one scale per
    block of ``block_size`` (32) weights along the input dimension; activations and arithmetic stay float. The
    MatMul weights go into onnxruntime's ``MatMulNBits`` operator (bits=8, made by its ``MatMulNBitsQuantizer``),
    the embedding tables into int8 tables read by plain ONNX ops (``Gather`` of the int8 rows and of their
    scales, ``Cast``, ``Mul``). ``benchmarks/onnx_quant.py``: MiniLM fine-tuned on 20 MEDDOCAN notes, 20 dev notes:
    span agreement with the float model 0.9942, token tags 0.9994, 25.6 MB for 90.4 MB in float.
  - ``"dynamic"`` (:func:`quantize_int8`): ``onnxruntime.quantization.quantize_dynamic`` (int8 weights,
    activations quantized on the fly), one scale per output channel, the token-classification head and the
    feed-forward output projections kept in float; the default until weight-only int8 was measured. Same model:
    span agreement 0.9407, token tags 0.9945, 33.6 MB; it runs faster on CPU (int8 arithmetic).

  Both files go into the model directory; ``meta.json`` records them and how the int8 file was made
  (``"method"``; a record without it is a ``"dynamic"`` file of an earlier version).
* :class:`OnnxTransformerDetector` needs onnxruntime, NumPy and the checkpoint's tokenizer (``transformers``
  without torch): the same words, windows, merging, BIO repair and CRF decoding as the PyTorch detector (the code
  is shared), so the only difference is the network's arithmetic. ``threads`` sets onnxruntime's intra-op threads
  (1: one core). It loads the int8 file of either method.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Callable, Iterable, Sequence
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

__all__ = ["DEFAULT_BLOCK_SIZE", "DEFAULT_KEEP_FLOAT", "DEFAULT_METHOD", "DEFAULT_OP_TYPES", "FLOAT_GROUPS",
           "INT8_FILE", "ONNX_FILE", "QUANT_METHODS", "WEIGHT_OPS", "OnnxTransformerDetector", "export_onnx",
           "float_node_names", "quantize_int8", "quantize_weight_only"]

ONNX_FILE = "model.onnx"
INT8_FILE = "model.int8.onnx"


#: how :func:`export_onnx` can make the int8 file, and how it does by default
QUANT_METHODS = ("weight_only", "dynamic")
DEFAULT_METHOD = "weight_only"
#: weights per int8 scale in :func:`quantize_weight_only` (along the input dimension of each weight matrix)
DEFAULT_BLOCK_SIZE = 32
#: the operators :func:`quantize_weight_only` can put the int8 MatMul weights into
WEIGHT_OPS = ("MatMulNBits", "DequantizeLinear")
#: the nodes the ``"dynamic"`` method keeps in float by default (see :func:`float_node_names`)
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


def _quiet_nbits_logger() -> tuple[logging.Logger, int]:
    log = logging.getLogger("onnxruntime.quantization.matmul_nbits_quantizer")
    level = log.level
    log.setLevel(logging.WARNING)  # it logs every node at INFO
    return log, level


def _float_matrices(graph: Any, reader_ok: Callable[[Any, int], bool]) -> dict[str, Any]:
    """The float 2-D initializers of ``graph`` that some node reads and every reader accepts (``reader_ok(node,
    input_index)``), by name: the tables the weight-only quantizers rewrite."""
    from onnx import TensorProto

    readers: dict[str, list[tuple[Any, int]]] = {}
    for n in graph.node:
        for k, x in enumerate(n.input):
            readers.setdefault(x, []).append((n, k))
    return {i.name: i for i in graph.initializer
            if readers.get(i.name) and len(i.dims) == 2 and i.data_type == TensorProto.FLOAT
            and all(reader_ok(n, k) for n, k in readers[i.name])}


def _int8_matmul_weights(model: Any, exclude: set[str]) -> int:
    """Plain ONNX weight-only int8: each float 2-D MatMul weight (every consumer a MatMul reading it as B) becomes
    an int8 initializer + one float scale per output channel + ``DequantizeLinear(axis=1)`` feeding the MatMul.
    Returns the number of weights replaced."""
    import numpy as np
    from onnx import helper, numpy_helper

    g = model.graph
    weights = _float_matrices(g, lambda n, k: n.op_type == "MatMul" and k == 1 and n.name not in exclude)
    new_nodes, done = [], 0
    for name, init in weights.items():
        w = numpy_helper.to_array(init)
        scale = np.abs(w).max(axis=0) / 127.0
        scale[scale == 0] = 1.0
        q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
        g.initializer.remove(init)
        g.initializer.extend([numpy_helper.from_array(q, name + "_int8"),
                              numpy_helper.from_array(scale.astype(np.float32), name + "_scale")])
        new_nodes.append(helper.make_node("DequantizeLinear", [name + "_int8", name + "_scale"], [name],
                                          name=name + "_DequantizeLinear", axis=1))
        done += 1
    nodes = list(g.node)
    del g.node[:]
    g.node.extend(new_nodes + nodes)  # they read initializers only: first is a topological order
    return done


def _int8_embeddings(model: Any, block_size: int) -> int:
    """The float 2-D tables that ``Gather`` nodes read (the embeddings) in int8, one float scale per block of
    ``block_size`` columns of a row (the whole row when ``block_size`` does not divide the width), read back by
    plain ONNX ops: ``Gather`` the int8 rows and their scales, ``Cast`` to float, ``Mul``. Returns the number of
    tables replaced."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    g = model.graph
    tables = _float_matrices(g, lambda n, k: n.op_type == "Gather" and k == 0)
    shapes: dict[str, tuple[str, str]] = {}
    for name in sorted(tables):
        w = numpy_helper.to_array(tables[name])
        rows, cols = w.shape
        block = block_size if cols % block_size == 0 else cols
        blocks = w.reshape(rows, cols // block, block)
        scale = np.abs(blocks).max(axis=2, keepdims=True) / 127.0
        scale[scale == 0] = 1.0
        q = np.clip(np.rint(blocks / scale), -127, 127).astype(np.int8).reshape(rows, cols)
        g.initializer.remove(tables[name])
        g.initializer.extend([
            numpy_helper.from_array(q, name + "_int8"), numpy_helper.from_array(scale.astype(np.float32),
                                                                                name + "_scale"),
            numpy_helper.from_array(np.array([-1, cols // block, block], dtype=np.int64), name + "_blocks"),
            numpy_helper.from_array(np.array([-1, cols // block, 1], dtype=np.int64), name + "_scale_blocks")])
        shapes[name] = (name + "_blocks", name + "_scale_blocks")
    nodes = []
    for n in g.node:
        if n.op_type != "Gather" or not n.input or n.input[0] not in tables:
            nodes.append(n)
            continue
        t, idx, o = n.input[0], n.input[1], n.output[0]
        axis = next((helper.get_attribute_value(a) for a in n.attribute if a.name == "axis"), 0)
        if axis != 0:
            raise ConfigError("an embedding Gather on another axis than 0")  # not written by the exporter
        nodes += [helper.make_node("Gather", [t + "_int8", idx], [o + "_int8"], axis=0),
                  helper.make_node("Shape", [o + "_int8"], [o + "_shape"]),
                  helper.make_node("Cast", [o + "_int8"], [o + "_float"], to=TensorProto.FLOAT),
                  helper.make_node("Reshape", [o + "_float", shapes[t][0]], [o + "_blocks"]),
                  helper.make_node("Gather", [t + "_scale", idx], [o + "_scale"], axis=0),
                  helper.make_node("Reshape", [o + "_scale", shapes[t][1]], [o + "_scale_blocks"]),
                  helper.make_node("Mul", [o + "_blocks", o + "_scale_blocks"], [o + "_scaled"]),
                  helper.make_node("Reshape", [o + "_scaled", o + "_shape"], [o], name=n.name)]
    del g.node[:]
    g.node.extend(nodes)
    return len(tables)


def quantize_weight_only(fp32_path: str | Path, out_path: str | Path, *,
                         block_size: int | None = DEFAULT_BLOCK_SIZE, embeddings: bool = True,
                         keep_float: Iterable[str] = (), op: str = "MatMulNBits",
                         accuracy_level: int | None = None) -> dict[str, Any]:
    """Weight-only int8 quantization of ``fp32_path`` into ``out_path``: int8 weights (symmetric), float
    activations and float arithmetic (the int8 weights are turned back into float inside the network).

    ``op="MatMulNBits"``: each MatMul with a constant weight becomes onnxruntime's ``MatMulNBits`` (bits=8; its
    ``MatMulNBitsQuantizer``, which needs the ``onnx-ir`` package), one scale per block of ``block_size`` weights
    along the input dimension (a power of two, >= 16). ``op="DequantizeLinear"``: plain ONNX, an int8 weight + one
    scale per output channel + ``DequantizeLinear`` feeding the unchanged MatMul (``block_size`` must be None).
    ``embeddings``: the embedding tables in int8 too (:func:`_int8_embeddings`, blocks of ``block_size`` or 32
    along each row); otherwise they stay float. ``keep_float``: node groups left in float
    (:func:`float_node_names`). ``accuracy_level``: ``MatMulNBits``'s attribute; None (default) computes in float,
    4 lets onnxruntime quantize the activations to int8 per block at run time (int8 arithmetic: no longer
    weight-only). Returns the settings."""
    onnx = require("onnx")
    keep = list(keep_float)
    exclude = float_node_names(fp32_path, keep) if keep else []
    if op == "MatMulNBits":
        if block_size is None or block_size < 16 or block_size & (block_size - 1):
            raise ConfigError(f"MatMulNBits needs a block_size that is a power of two >= 16, not {block_size}")
        require("onnx_ir")
        nbits = require("onnxruntime.quantization.matmul_nbits_quantizer")
        qformat = require("onnxruntime.quantization").QuantFormat
        log, level = _quiet_nbits_logger()
        try:
            quantizer = nbits.MatMulNBitsQuantizer(onnx.load(str(fp32_path)), bits=8, block_size=block_size,
                                                   is_symmetric=True, nodes_to_exclude=exclude,
                                                   accuracy_level=accuracy_level,
                                                   op_types_to_quantize=("MatMul",),
                                                   quant_format=qformat.QOperator)
            quantizer.process()
        finally:
            log.setLevel(level)
        model = quantizer.model.model
        matmuls = sum(n.op_type == "MatMulNBits" for n in model.graph.node)
    elif op == "DequantizeLinear":
        if block_size is not None:
            raise ConfigError("op='DequantizeLinear' quantizes per output channel: block_size must be None")
        model = onnx.load(str(fp32_path))
        matmuls = _int8_matmul_weights(model, set(exclude))
    else:
        raise ConfigError(f"unknown weight operator {op!r}; expected one of {list(WEIGHT_OPS)}")
    emb_block = block_size or DEFAULT_BLOCK_SIZE
    tables = _int8_embeddings(model, emb_block) if embeddings else 0
    onnx.save(model, str(out_path))
    return {"method": "weight_only", "op": op, "block_size": block_size, "symmetric": True,
            **({"accuracy_level": accuracy_level} if accuracy_level else {}),
            "embeddings": f"int8, {emb_block} per scale" if embeddings else "float", "quantized_matmuls": matmuls,
            "quantized_tables": tables, "keep_float": keep, "float_nodes": len(exclude)}


def export_onnx(model_dir: str | Path, *, quantize: bool = True, method: str = DEFAULT_METHOD,
                block_size: int = DEFAULT_BLOCK_SIZE, embeddings: bool = True, per_channel: bool = True,
                opset: int = 17, reduce_range: bool = False, keep_float: Iterable[str] | None = None,
                op_types: Sequence[str] | None = DEFAULT_OP_TYPES) -> dict[str, Any]:
    """Write ``model.onnx`` (and, with ``quantize``, ``model.int8.onnx``) into a transformer model directory and
    record them in its ``meta.json`` (``"onnx"``); returns that record (file names, sizes in bytes, the int8
    ``method`` and its settings).

    ``method="weight_only"`` (default; :func:`quantize_weight_only`): ``block_size`` weights per int8 scale,
    ``embeddings`` in int8 too; ``keep_float`` (default none) node groups left in float.

    ``method="dynamic"`` (:func:`quantize_int8`): ``per_channel``, one int8 scale per output channel of each weight
    matrix (default) rather than one per matrix; on MiniLM fine-tuned on the English nursing notes it moved the
    int8/PyTorch span agreement from 0.749 to 0.928 (fold 0 of ``benchmarks/transformer_notes.py``).
    ``reduce_range``, ``keep_float`` (default :data:`DEFAULT_KEEP_FLOAT`) and ``op_types``: see
    :func:`quantize_int8` (``op_types=("MatMul",)`` also keeps the embedding tables in float)."""
    if method not in QUANT_METHODS:
        raise ConfigError(f"unknown int8 method {method!r}; expected one of {list(QUANT_METHODS)}")
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
        if method == "weight_only":
            how = quantize_weight_only(out, q_tmp, block_size=block_size, embeddings=embeddings,
                                       keep_float=() if keep_float is None else keep_float)
        else:
            how = {"method": "dynamic", **quantize_int8(
                out, q_tmp, per_channel=per_channel, reduce_range=reduce_range, op_types=op_types,
                keep_float=DEFAULT_KEEP_FLOAT if keep_float is None else keep_float)}
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
