"""The transformer token-classification detector (clinanon.detect.neural.transformer) and its ONNX export.

Every model here is a tiny randomly initialised BERT (2 layers, hidden 32) with a WordPiece vocabulary built in the
test from the training text: nothing is downloaded (HF_HUB_OFFLINE=1), and the tests skip without torch.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import pytest

from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.text import token_table

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

try:
    import torch
    import transformers  # noqa: F401

    HAVE_TORCH = True
except ImportError:  # pragma: no cover - the neural extra is not installed
    HAVE_TORCH = False

needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="the 'neural' extra (torch, transformers) is not installed")

# invented names (none from any corpus), some with accents
FIRST = ["Alba", "Bruno", "Cléo", "Dario", "Elke", "Fenna", "Göran", "Hilde", "Ivo", "Jorunn", "Kasimir", "Lotte",
         "Renée", "Søren"]
LAST = ["Abernathy", "Brightwell", "Castellan", "Dunmore", "Eversley", "Fairbairn", "Gallardo", "Hollister",
        "Núñez", "Østergård"]
MONTHS = ["March", "April", "June", "Sept"]
TEMPLATES = ["Pt seen by Dr. {n} on {d}. BP stable.", "Spoke with son {n} at bedside on {d}.",
             "Plan discussed with {n}. Next visit {d}.", "No events overnight. Lasix given.",
             "Family ({n}) called on {d}, updated.", "Sats 94% on RA. Afebrile."]


def _value(kind: str, rng: random.Random) -> str:
    """A name ("First Last" or "First") or a date ("D Month YYYY"): what a word is (B-, I- or O) follows from the
    word and its neighbours, which a 2-layer model of width 32 learns in seconds."""
    if kind == "n":
        return f"{rng.choice(FIRST)} {rng.choice(LAST)}" if rng.random() < 0.6 else rng.choice(FIRST)
    return f"{rng.randint(1, 28)} {rng.choice(MONTHS)} 20{rng.randint(10, 24)}"


def make_notes(n: int, seed: int = 0) -> list[Document]:
    """Short synthetic notes with NAME and DATE spans; lines end in LF or CRLF."""
    rng = random.Random(seed)
    docs = []
    for k in range(n):
        text, spans = "", []
        for _ in range(rng.randint(4, 10)):
            for piece in TEMPLATES[rng.randrange(len(TEMPLATES))].replace("{", "\0{").replace("}", "}\0").split("\0"):
                if piece in ("{n}", "{d}"):
                    v = _value(piece[1], rng)
                    spans.append(Span(len(text), len(text) + len(v), "NAME" if piece == "{n}" else "DATE"))
                    text += v
                else:
                    text += piece
            text += rng.choice([" ", "\n", "\r\n"])
        docs.append(Document(f"d{k}", text, tuple(spans)))
    return docs


def build_tiny_checkpoint(folder: Path, texts: list[str]) -> Path:
    """A randomly initialised 2-layer BERT (hidden 32) with a WordPiece vocabulary of the texts' words and
    characters, saved as a local checkpoint folder (weights + fast tokenizer)."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import BertConfig, BertForTokenClassification, PreTrainedTokenizerFast

    words = sorted({w for t in texts for w in token_table(t).words})
    chars = sorted({c for w in words for c in w})
    vocab = list(dict.fromkeys(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words, *chars,
                                *("##" + c for c in chars)]))
    ids = {t: i for i, t in enumerate(vocab)}
    tk = Tokenizer(models.WordPiece(ids, unk_token="[UNK]", max_input_chars_per_word=100))
    tk.normalizer = normalizers.BertNormalizer(clean_text=True, lowercase=False, strip_accents=False)
    tk.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tk.post_processor = processors.BertProcessing(("[SEP]", ids["[SEP]"]), ("[CLS]", ids["[CLS]"]))
    tk.decoder = decoders.WordPiece()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                  sep_token="[SEP]", mask_token="[MASK]")
    folder.mkdir(parents=True, exist_ok=True)
    tok.save_pretrained(str(folder))
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=64, hidden_dropout_prob=0.0,
                     attention_probs_dropout_prob=0.0)
    torch.manual_seed(0)
    BertForTokenClassification(cfg).save_pretrained(str(folder))
    return folder


def span_set(docs_or_spans) -> set:
    out = set()
    for k, item in enumerate(docs_or_spans):
        spans = item.spans if isinstance(item, Document) else item
        out |= {(k, s.start, s.end, s.label) for s in spans}
    return out


def f1(gold: set, pred: set) -> float:
    tp = len(gold & pred)
    return 2 * tp / (len(gold) + len(pred)) if gold or pred else 1.0


TRAIN = make_notes(40)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    return build_tiny_checkpoint(tmp_path_factory.mktemp("tiny-bert"), [d.text for d in TRAIN])


def _detector(checkpoint: Path, **kw):
    from clinanon.detect.neural.transformer import TransformerDetector

    params = {"base_model": checkpoint, "max_length": 32, "stride": 8, "epochs": 12, "lr": 5e-3, "batch_size": 8,
              "patience": 0, "seed": 0, "device": "cpu", "threads": 1}
    params.update(kw)
    return TransformerDetector("en", **params)


@pytest.fixture(scope="module")
def trained(checkpoint):
    return _detector(checkpoint).fit(TRAIN)


# --- no torch -----------------------------------------------------------------------------------------------

def test_without_torch_the_error_names_the_extra(monkeypatch, tmp_path):
    from clinanon.detect.neural import transformer as tr

    monkeypatch.setitem(sys.modules, "torch", None)
    det = tr.TransformerDetector("en", base_model=tmp_path)
    with pytest.raises(ConfigError, match="neural"):
        det.fit(TRAIN[:2])


# --- alignment, windows, decoding (an oracle instead of a network: exact, deterministic) -------------------

@needs_torch
@pytest.mark.parametrize("max_length, stride", [(8, 2), (12, 5), (64, 16)])
def test_windows_and_offsets_are_exact_with_an_oracle(checkpoint, max_length, stride):
    """Tags read off the gold at each window's first sub-words go back to exactly the gold spans: accents, CRLF,
    and entities that cross a window edge (max_length 8 = 6 sub-words per window)."""
    import numpy as np

    from clinanon.bio import encode_bio
    from clinanon.detect.neural.transformer import SubwordWindows, TaggerCore, load_tokenizer

    docs = [*TRAIN[:12], Document("long", "\r\n".join(d.text for d in TRAIN[:20]), ())]
    long_spans, off = [], 0
    for d in TRAIN[:20]:
        long_spans += [Span(s.start + off, s.end + off, s.label) for s in d.spans]
        off += len(d.text) + 2
    docs[-1] = docs[-1].with_spans(long_spans)
    assert any(not c.isascii() for d in docs for c in d.text) and any("\r\n" in d.text for d in docs)
    core = TaggerCore()
    core.tags_ = ["O", "B-DATE", "I-DATE", "B-NAME", "I-NAME"]
    core.crf, core.crf_params_, core._category = False, None, None
    enc = SubwordWindows(load_tokenizer(checkpoint), max_length, stride)
    tables = [token_table(d.text) for d in docs]
    gold_tags = [encode_bio(t.tokens, d.spans).tags for t, d in zip(tables, docs, strict=True)]
    windows = {}  # (doc, first word) -> the window, to answer the oracle's calls
    for k, t in enumerate(tables):
        for w in enc.windows(k, t.words):
            assert len(w.ids) <= max_length
            windows[(k, tuple(w.ids))] = w

    def oracle(ids, mask):
        out = np.zeros((len(ids), len(ids[0]), len(core.tags_)), dtype="float32")
        for r, row in enumerate(ids):
            n = sum(mask[r])
            hits = [w for (k, key), w in windows.items() if list(key) == row[:n]]
            w = hits[0]
            for word, pos in zip(w.words, w.positions, strict=True):
                out[r, pos, core.tags_.index(gold_tags[w.doc][word])] = 5.0
        return out

    pred = core._run_tables(tables, enc, 4, oracle)
    assert span_set(pred) == span_set(docs)
    for d, spans in zip(docs, pred, strict=True):
        assert all(s.source == "transformer" and 0 < s.score <= 1 for s in spans)
        assert all(d.text[s.start:s.end] == d.text[s.start:s.end].strip() for s in spans)


@needs_torch
def test_a_word_the_tokenizer_drops_continues_the_entity(checkpoint):
    from clinanon.detect.neural.transformer import SubwordWindows, TaggerCore, _DocState, load_tokenizer

    enc = SubwordWindows(load_tokenizer(checkpoint), 16, 4)
    _ids, starts, ends = enc.subwords(["Alba", "\u0007", "Dunmore"])
    assert starts[1] == ends[1] == starts[2]  # nothing for the control character: a zero-width range
    assert ends[0] > starts[0] and ends[2] > starts[2]
    core = TaggerCore()
    core.tags_, core._category = ["O", "B-NAME", "I-NAME"], None
    table = token_table("Alba \u0007 Dunmore said")
    state = _DocState(table, [1.0] * 4, [1, -1, 2, 0], [0.9, 0.0, 0.7, 0.99])
    assert [(s.start, s.end, s.label) for s in core._decode(state)] == [(0, 14, "NAME")]
    state = _DocState(table, [1.0] * 4, [1, -1, 1, 0], [0.9, 0.0, 0.7, 0.99])  # a new entity after it: O
    assert [(s.start, s.end) for s in core._decode(state)] == [(0, 4), (7, 14)]


# --- training ---------------------------------------------------------------------------------------------------

@needs_torch
def test_tiny_model_learns_its_training_slice(trained):
    pred = trained.predict(TRAIN)
    assert f1(span_set(TRAIN), span_set(pred)) > 0.9
    report = trained.training_report_
    assert report.documents == len(TRAIN) and report.windows > len(TRAIN)
    assert report.epochs[-1].train_loss < report.epochs[0].train_loss


@needs_torch
def test_long_note_across_many_windows(trained):
    """The training notes joined into one note (many windows of 30 sub-words) are tagged as well as one by one."""
    text = "\r\n".join(d.text for d in TRAIN[:25])
    gold, off = [], 0
    for d in TRAIN[:25]:
        gold += [Span(s.start + off, s.end + off, s.label) for s in d.spans]
        off += len(d.text) + 2
    pred = trained.analyze(text)
    assert len(trained.encoder.windows(0, token_table(text).words)) > 20
    assert f1(span_set([gold]), span_set([pred])) > 0.9


@needs_torch
def test_training_is_seeded_and_early_stopping_keeps_the_best_epoch(checkpoint):
    a = _detector(checkpoint, epochs=3).fit(TRAIN[:20], TRAIN[20:30])
    b = _detector(checkpoint, epochs=3).fit(TRAIN[:20], TRAIN[20:30])
    assert [e.train_loss for e in a.training_report_.epochs] == [e.train_loss for e in b.training_report_.epochs]
    assert span_set(a.predict(TRAIN[30:40])) == span_set(b.predict(TRAIN[30:40]))
    rep = a.training_report_
    assert all(e.dev_f1 is not None for e in rep.epochs)
    best = max(rep.epochs, key=lambda e: e.dev_f1)
    assert rep.best_epoch == best.epoch
    assert a.evaluate(TRAIN[20:30])[2] == pytest.approx(best.dev_f1)


@needs_torch
def test_crf_head_and_class_weights(checkpoint):
    det = _detector(checkpoint, crf=True, class_weights="balanced", epochs=8).fit(TRAIN)
    assert det.crf_params_ is not None and set(det.training_report_.class_weights) == set(det.tags_)
    assert f1(span_set(TRAIN), span_set(det.predict(TRAIN))) > 0.9


# --- persistence, registry, clinanon train ------------------------------------------------------------------------

@needs_torch
def test_save_load_round_trip(trained, tmp_path):
    from clinanon.detect.neural.transformer import TransformerDetector

    trained.save(tmp_path / "m", {"note": "x"})
    meta = json.loads((tmp_path / "m" / "meta.json").read_text())
    assert meta["detector"] == "transformer" and meta["labels"] == ["DATE", "NAME"] and meta["note"] == "x"
    loaded = TransformerDetector.load(tmp_path / "m")
    docs = TRAIN[:15]
    a, b = trained.predict(docs), loaded.predict(docs)
    assert span_set(a) == span_set(b)
    assert [s.score for d in a for s in d.spans] == pytest.approx([s.score for d in b for s in d.spans], abs=1e-4)


@needs_torch
def test_onnx_int8_agrees_with_pytorch(trained, tmp_path):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    from clinanon.detect.neural.onnx_export import OnnxTransformerDetector, export_onnx

    trained.save(tmp_path / "m")
    record = export_onnx(tmp_path / "m")
    assert record["int8_bytes"] > 0 and (tmp_path / "m" / "model.int8.onnx").is_file()
    assert record["method"] == "weight_only"
    assert json.loads((tmp_path / "m" / "meta.json").read_text())["onnx"]["method"] == "weight_only"
    docs = make_notes(40, seed=7)
    ref = span_set(trained.predict(docs))
    fp32 = span_set(OnnxTransformerDetector.load(tmp_path / "m", quantized=False).predict(docs))
    assert fp32 == ref
    int8 = span_set(OnnxTransformerDetector.load(tmp_path / "m", threads=1).predict(docs))
    assert len(ref & int8) >= 0.99 * max(len(ref), len(int8))

    # inference without torch: a fresh interpreter in which `import torch` fails
    import subprocess

    probe = "Seen by Dr. Alba Dunmore on 3 March 2019."
    here = OnnxTransformerDetector.load(tmp_path / "m", threads=1).detect(Document("x", probe))
    code = ("import sys; sys.modules['torch'] = None\n"
            "from clinanon.detect.neural.onnx_export import OnnxTransformerDetector\n"
            "from clinanon.document import Document\n"
            f"det = OnnxTransformerDetector.load({str(tmp_path / 'm')!r}, threads=1)\n"
            f"print(sorted((s.start, s.end, s.label) for s in det.detect(Document('x', {probe!r}))))\n"
            "assert 'torch' not in sys.modules or sys.modules['torch'] is None\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == str(sorted((s.start, s.end, s.label) for s in here))


def _initializer_bytes(path: Path) -> dict[str, int]:
    """Bytes of the ONNX file's initializers by element type name (FLOAT, INT8, UINT8, ...)."""
    import onnx
    from onnx import numpy_helper

    out: dict[str, int] = {}
    for init in onnx.load(str(path)).graph.initializer:
        kind = onnx.TensorProto.DataType.Name(init.data_type)
        out[kind] = out.get(kind, 0) + numpy_helper.to_array(init).nbytes
    return out


@needs_torch
def test_onnx_weight_only_int8_is_int8_and_gives_the_float_spans(trained, tmp_path):
    """The default int8 export: every MatMul weight in MatMulNBits with 8 bits, the embedding tables in int8,
    activations in float; on the tiny model it gives exactly the spans of the float model."""
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx_ir")
    from onnx import helper

    from clinanon.detect.neural.onnx_export import OnnxTransformerDetector, export_onnx

    trained.save(tmp_path / "m")
    record = export_onnx(tmp_path / "m")
    assert record["method"] == "weight_only" and record["op"] == "MatMulNBits" and record["block_size"] == 32
    fp32 = onnx.load(str(tmp_path / "m" / "model.onnx"))
    weights = {i.name for i in fp32.graph.initializer}
    matmuls = [n for n in fp32.graph.node if n.op_type == "MatMul" and n.input[1] in weights]
    tables = {n.input[0] for n in fp32.graph.node if n.op_type == "Gather" and n.input[0] in weights}
    assert len(matmuls) >= 13 and len(tables) == 3  # 2 layers x 6 + the head; word, position, token type
    q = onnx.load(str(tmp_path / "m" / "model.int8.onnx"))
    nbits = [n for n in q.graph.node if n.op_type == "MatMulNBits"]
    assert len(nbits) == len(matmuls) == record["quantized_matmuls"] and record["quantized_tables"] == 3
    assert all(helper.get_attribute_value(a) == 8 for n in nbits for a in n.attribute if a.name == "bits")
    assert not any(n.op_type in ("MatMul", "DynamicQuantizeLinear", "MatMulInteger") and n.input[1] in weights
                   for n in q.graph.node)
    q_names = {i.name for i in q.graph.initializer}
    assert not tables & q_names and all(t + "_int8" in q_names for t in tables)
    by_type = _initializer_bytes(tmp_path / "m" / "model.int8.onnx")
    assert by_type["INT8"] + by_type["UINT8"] > 2 * by_type["FLOAT"]  # the weights are int8, scales and biases float
    assert sum(by_type.values()) < 0.5 * sum(_initializer_bytes(tmp_path / "m" / "model.onnx").values())
    assert record["int8_bytes"] < record["fp32_bytes"]
    docs = make_notes(40, seed=11)
    ref = span_set(OnnxTransformerDetector.load(tmp_path / "m", quantized=False, threads=1).predict(docs))
    int8 = span_set(OnnxTransformerDetector.load(tmp_path / "m", threads=1).predict(docs))
    assert ref and int8 == ref


@needs_torch
def test_onnx_weight_only_dequantize_linear_route(trained, tmp_path):
    """The plain-ONNX weight-only int8 (int8 weight + per-channel scale + DequantizeLinear feeding the MatMul)."""
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    import onnxruntime as ort

    from clinanon.detect.neural.onnx_export import (
        OnnxTransformerDetector,
        export_onnx,
        quantize_weight_only,
    )
    from clinanon.detect.neural.transformer import HF_DIR, TransformerDetector, load_tokenizer

    trained.save(tmp_path / "m")
    record = export_onnx(tmp_path / "m", quantize=False)
    out = tmp_path / "m" / "dq.onnx"
    how = quantize_weight_only(tmp_path / "m" / record["fp32"], out, block_size=None, op="DequantizeLinear",
                               keep_float=["classifier"])
    q = onnx.load(str(out))
    dq = [n for n in q.graph.node if n.op_type == "DequantizeLinear"]
    assert len(dq) == how["quantized_matmuls"] >= 12 and how["float_nodes"] == 1
    inits = {i.name: i for i in q.graph.initializer}
    assert all(inits[n.input[0]].data_type == onnx.TensorProto.INT8 for n in dq)
    assert all(len(inits[n.input[1]].dims) == 1 for n in dq)  # one scale per output channel
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    det = OnnxTransformerDetector(session, load_tokenizer(tmp_path / "m" / HF_DIR),
                                  TransformerDetector.read_meta(tmp_path / "m"))
    docs = make_notes(40, seed=11)
    ref = span_set(OnnxTransformerDetector.load(tmp_path / "m", quantized=False, which="fp32").predict(docs))
    assert ref and span_set(det.predict(docs)) == ref
    with pytest.raises(ConfigError, match="block_size"):
        quantize_weight_only(tmp_path / "m" / record["fp32"], out, block_size=32, op="DequantizeLinear")
    with pytest.raises(ConfigError, match="power of two"):
        quantize_weight_only(tmp_path / "m" / record["fp32"], out, block_size=48)
    with pytest.raises(ConfigError, match="unknown int8 method"):
        export_onnx(tmp_path / "m", method="int4")


@needs_torch
def test_onnx_dynamic_int8_and_old_records_still_load(trained, tmp_path):
    """``method="dynamic"`` (the earlier default) stays available, and a model directory exported by an earlier
    version (an ``onnx`` record without ``method``) loads as before."""
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from clinanon.detect.neural.onnx_export import DEFAULT_KEEP_FLOAT, OnnxTransformerDetector, export_onnx

    trained.save(tmp_path / "m")
    record = export_onnx(tmp_path / "m", method="dynamic")
    assert record["method"] == "dynamic" and record["keep_float"] == list(DEFAULT_KEEP_FLOAT)
    assert _initializer_bytes(tmp_path / "m" / "model.int8.onnx").get("INT8", 0) > 0
    meta_path = tmp_path / "m" / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["onnx"] = {k: v for k, v in meta["onnx"].items() if k not in ("method",)}  # as an older version wrote it
    meta_path.write_text(json.dumps(meta))
    docs = make_notes(40, seed=11)
    ref = span_set(OnnxTransformerDetector.load(tmp_path / "m", quantized=False).predict(docs))
    int8 = span_set(OnnxTransformerDetector.load(tmp_path / "m", threads=1).predict(docs))
    assert len(ref & int8) >= 0.9 * max(len(ref), len(int8))


@needs_torch
def test_registered_and_trainable_with_clinanon_train(checkpoint, tmp_path):
    from clinanon.config import Config
    from clinanon.io import write
    from clinanon.models import list_models
    from clinanon.pipeline import Pipeline
    from clinanon.registry import list_detectors
    from clinanon.train import TrainConfig, train

    assert {"transformer", "transformer_onnx"} <= set(list_detectors())
    write(TRAIN[:30], tmp_path / "train", "brat")
    write(TRAIN[30:40], tmp_path / "dev", "brat")
    cfg = TrainConfig.from_dict({
        "detector": "transformer", "language": "en", "label_scheme": "canonical", "seed": 0,
        "output": str(tmp_path / "models" / "tiny"),
        "data": {"train": str(tmp_path / "train"), "dev": str(tmp_path / "dev")},
        "transformer": {"base_model": str(checkpoint), "max_length": 32, "stride": 8, "epochs": 2, "lr": 5e-3,
                        "batch_size": 8, "device": "cpu", "onnx": True},
    })
    result = train(cfg, progress=False)
    meta = result.meta
    assert meta["detector"] == "transformer" and meta["language"] == "en"
    assert len(meta["training"]["epochs"]) == 2 and "subtask1" in meta["scores"]["dev"]
    assert meta["onnx"]["int8"] == "model.int8.onnx"
    listed = {m.name: m for m in list_models(tmp_path / "models")}
    assert listed["tiny"].detector == "transformer"
    for use in ("transformer", "transformer_onnx"):
        models = {"transformer": str(result.model_dir)}
        nlp = Pipeline(Config.from_dict({"language": "en", "label_scheme": "canonical",
                                         "detectors": {"use": [use], "models": models}}))
        out = list(nlp.pipe(TRAIN[:3], deidentify=False))
        assert all(isinstance(d, Document) for d in out)
