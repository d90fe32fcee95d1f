"""Rules-only pipeline on MEDDOCAN dev (Spanish) and on the English synthetic PII dev set.

Writes ``benchmarks/results/rules_meddocan.json`` (or ``--out``) and prints a summary. Measures:

* MEDDOCAN dev: token-level binary P/R/F, subtask 1 (exact span + label) and subtask 2 (exact span) P/R/F,
  overlap P/R/F, per-label recall (exact and overlap);
* English synth dev: overlap P/R/F, labelled (canonical categories) and unlabelled;
* upper-cased copies of both dev sets (every character upper-cased where that keeps its length, so the gold
  offsets hold; text typed in capitals, as in nursing notes): token binary and overlap (unlabelled) P/R/F, the
  time of the first pass (cold: it compiles what mixed-case text did not need) and of a warm batched pass
  (``meddocan_dev_upper``, ``english_synth_dev_upper``);
* throughput of the full rules pipeline (detectors + resolver + propagation), single process, after a warm-up
  run: median of ``--repeat`` runs, in chars/s, UTF-8 MB/s and docs/s; one document at a time
  (``Pipeline.detect``, ``throughput``) and in batches (``Pipeline.pipe``, the path of ``clinanon deidentify``
  over a corpus: each step runs over 32 documents before the next, ``throughput_pipe``; checked to give the
  same spans);
* peak RSS of this process (``ru_maxrss``);
* with ``--deduce-python PY`` (a Python with deduce, e.g. ``.venv-deduce/bin/python`` from
  ``bash benchmarks/setup_deduce.sh``): deduce and this rules pipeline on the same texts (MEDDOCAN dev; the Dutch
  fill-mask sentences with the Dutch rules), timed alternately in the same minutes (process CPU time, medians),
  and the ratios (``reference_deduce``; deduce has no batch API, it runs one text at a time). Machine speed
  drifts from day to day on shared machines; the ratio is what carries over.

Usage: ``python benchmarks/rules_meddocan.py [--data ../shared/data] [--repeat 3] [--deduce-python PY]``
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from clinanon import __version__
from clinanon import io as cio
from clinanon.config import Config
from clinanon.detect.crf import upper_same_length
from clinanon.document import Document
from clinanon.evaluate import evaluate
from clinanon.pipeline import Pipeline

ROOT = Path(__file__).resolve().parents[1]


def _prf(measure: dict) -> dict:
    m = measure["micro"]
    return {k: m[k] for k in ("precision", "recall", "f1", "tp", "fp", "fn")}


def _runs(nlp: Pipeline, docs: list[Document], repeat: int, clock: Callable[[], float] = time.perf_counter,
          mode: str = "doc") -> list[float]:
    """Seconds (by ``clock``) of ``repeat`` detection passes over ``docs``: one document at a time (``doc``) or
    in batches (``pipe``)."""
    out = []
    for _ in range(repeat):
        t0 = clock()
        if mode == "pipe":
            for _d in nlp.pipe(docs, deidentify=False):
                pass
        else:
            for d in docs:
                nlp.detect(d)
        out.append(clock() - t0)
    return out


def _rates(times: list[float], docs: list[Document]) -> dict:
    chars = sum(len(d.text) for d in docs)
    nbytes = sum(len(d.text.encode("utf-8")) for d in docs)
    med = statistics.median(times)
    return {"runs_s": [round(t, 4) for t in times], "median_s": round(med, 4), "chars": chars, "bytes": nbytes,
            "chars_per_s": round(chars / med), "mb_per_s": round(nbytes / med / 1e6, 3),
            "docs_per_s": round(len(docs) / med, 1)}


def _timed(nlp: Pipeline, docs: list[Document], repeat: int) -> dict[str, dict]:
    """``throughput`` (one document at a time) and ``throughput_pipe`` (batches), runs interleaved."""
    one = [nlp.detect(d).spans for d in docs]  # warm-up: lazy loading of gazetteers, regex compilation
    same = one == [d.spans for d in nlp.pipe(docs, deidentify=False)]
    doc_runs: list[float] = []
    pipe_runs: list[float] = []
    for _ in range(repeat):
        doc_runs += _runs(nlp, docs, 1)
        pipe_runs += _runs(nlp, docs, 1, mode="pipe")
    return {"throughput": _rates(doc_runs, docs), "throughput_pipe": {**_rates(pipe_runs, docs),
                                                                      "same_spans_as_one_by_one": same}}

def _upper(gold: list[Document], cfg: dict, **kw: object) -> dict:
    """Token binary and overlap (unlabelled) P/R/F of the rules on the upper-cased copies of ``gold``."""
    docs = [dataclasses.replace(d, text=upper_same_length(d.text)) for d in gold]
    nlp = Pipeline(Config.from_dict(cfg))
    t0 = time.perf_counter()
    pred = [nlp.detect(d) for d in docs]
    seconds = time.perf_counter() - t0
    # the first pass compiles the shared scans of pattern combinations that mixed-case text did not need
    warm = min(_runs(nlp, docs, 2, mode="pipe"))
    measures = evaluate(docs, pred, **kw).to_dict()["measures"]  # type: ignore[arg-type]
    chars = sum(len(d.text) for d in docs)
    return {"documents": len(docs), "token_binary": _prf(measures["token_binary"]),
            "overlap_unlabeled": _prf(measures["entity_overlap_unlabeled"]),
            "one_pass_s": round(seconds, 3), "chars_per_s": round(chars / seconds),
            "warm_pipe_s": round(warm, 3), "warm_pipe_chars_per_s": round(chars / warm)}


def meddocan_upper(data: Path) -> dict:
    gold = list(cio.read(data / "meddocan" / "dev" / "brat", "brat"))
    return _upper(gold, {"language": "es", "label_scheme": "meddocan", "detectors": {"use": ["rules"]}}, lang="es")


def english_upper(data: Path) -> dict:
    gold = list(cio.read(data / "pii-synth-en" / "dev.json", "presidio"))
    return _upper(gold, {"language": "en", "label_scheme": "canonical", "detectors": {"use": ["rules"]}},
                  lang="en", scheme="presidio", label_map="type")


def meddocan(data: Path, repeat: int) -> dict:
    gold = list(cio.read(data / "meddocan" / "dev" / "brat", "brat"))
    nlp = Pipeline(Config.from_dict({"language": "es", "label_scheme": "meddocan",
                                  "detectors": {"use": ["rules"]}}))
    pred = [nlp.detect(d) for d in gold]
    rep = evaluate(gold, pred, lang="es").to_dict()
    measures = rep["measures"]
    per_label = {}
    for label, m in sorted(measures["entity_exact"]["per_label"].items()):
        ov = measures["entity_overlap"]["per_label"].get(label, {})
        per_label[label] = {"gold": m["tp"] + m["fn"], "recall_exact": round(m["recall"], 4),
                            "precision_exact": round(m["precision"], 4),
                            "recall_overlap": round(ov.get("recall", 0.0), 4)}
    return {
        "documents": len(gold),
        "gold_spans": rep["gold_spans"],
        "pred_spans": rep["pred_spans"],
        "token_binary": _prf(measures["token_binary"]),
        "subtask1_exact": _prf(measures["entity_exact"]),
        "subtask2_span": _prf(measures["entity_span"]),
        "overlap": _prf(measures["entity_overlap"]),
        "overlap_unlabeled": _prf(measures["entity_overlap_unlabeled"]),
        "leak_chars": rep["leakage"]["all"]["leaked_chars"] if "all" in rep["leakage"] else rep["leakage"],
        "per_label": per_label,
        **_timed(nlp, gold, repeat),
    }


def english(data: Path, repeat: int) -> dict:
    gold = list(cio.read(data / "pii-synth-en" / "dev.json", "presidio"))
    nlp = Pipeline(Config.from_dict({"language": "en", "label_scheme": "canonical",
                                     "detectors": {"use": ["rules"]}}))
    pred = [nlp.detect(d) for d in gold]
    rep = evaluate(gold, pred, lang="en", scheme="presidio", label_map="type").to_dict()
    measures = rep["measures"]
    per_label = {label: {"gold": m["tp"] + m["fn"], "recall_overlap": round(m["recall"], 4)}
                 for label, m in sorted(measures["entity_overlap"]["per_label"].items())}
    return {
        "documents": len(gold),
        "gold_spans": rep["gold_spans"],
        "pred_spans": rep["pred_spans"],
        "overlap_unlabeled": _prf(measures["entity_overlap_unlabeled"]),
        "overlap_by_type": _prf(measures["entity_overlap"]),
        "token_binary": _prf(measures["token_binary"]),
        "per_type": per_label,
        **_timed(nlp, gold, repeat),
    }


def deduce_reference(data: Path, python: str, repeat: int, rounds: int = 2) -> dict:
    """deduce vs. the rules pipeline on the same texts, alternating ``rounds`` times (process CPU, medians)."""
    dev = data / "meddocan" / "dev" / "brat"
    lines = data / "nl-mask-sentences" / "anon_testset_public.csv"
    sets = {"meddocan_dev": ("es", list(cio.read(dev, "brat")), ["--dir", str(dev)])}
    if lines.exists():
        texts = [t for t in lines.read_text(encoding="utf-8").splitlines()[1:] if t.strip()]
        sets["nl_mask_sentences"] = ("nl", [Document(text=t, id=str(i)) for i, t in enumerate(texts)],
                                     ["--lines", str(lines)])
    out: dict = {"design": f"{rounds} rounds; each round times this pipeline one document at a time ({repeat} runs),"
                           f" in batches (Pipeline.pipe, {repeat} runs) and then deduce ({repeat} runs, a subprocess)"
                           " on the same texts; medians of process CPU time", "sets": {}}
    for name, (lang, docs, argv) in sets.items():
        nlp = Pipeline(Config.from_dict({"language": lang, "detectors": {"use": ["rules"]}}))
        for d in docs:  # warm-up
            nlp.detect(d)
        ours: list[float] = []
        ours_pipe: list[float] = []
        theirs: list[float] = []
        info: dict = {}
        for _ in range(rounds):
            ours += _runs(nlp, docs, repeat, time.process_time)
            ours_pipe += _runs(nlp, docs, repeat, time.process_time, mode="pipe")
            proc = subprocess.run([python, str(ROOT / "benchmarks" / "deduce_reference.py"), *argv,
                                   "--repeat", str(repeat)], capture_output=True, text=True, check=True)
            # the last line is the JSON (deduce may print progress while it builds its lookup cache the first time)
            info = json.loads(proc.stdout.strip().splitlines()[-1])
            theirs += next(iter(info["sets"].values()))["runs_cpu_s"]
        nbytes = sum(len(d.text.encode("utf-8")) for d in docs)
        mine, batched, ref = statistics.median(ours), statistics.median(ours_pipe), statistics.median(theirs)
        out["deduce"] = info.get("deduce")
        out["sets"][name] = {"texts": len(docs), "bytes": nbytes, "clinanon_mb_per_s": round(nbytes / mine / 1e6, 3),
                             "clinanon_pipe_mb_per_s": round(nbytes / batched / 1e6, 3),
                             "deduce_mb_per_s": round(nbytes / ref / 1e6, 3), "ratio": round(ref / mine, 2),
                             "ratio_pipe": round(ref / batched, 2),
                             "clinanon_runs_cpu_s": [round(x, 4) for x in ours],
                             "clinanon_pipe_runs_cpu_s": [round(x, 4) for x in ours_pipe],
                             "deduce_runs_cpu_s": [round(x, 4) for x in theirs]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "rules_meddocan.json")
    ap.add_argument("--deduce-python", help="a Python with deduce installed: time deduce on the same texts")
    args = ap.parse_args()
    t0 = time.perf_counter()
    result = {
        "benchmark": "rules_meddocan",
        "clinanon": __version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "meddocan_dev": meddocan(args.data, args.repeat),
        "english_synth_dev": english(args.data, args.repeat),
        "meddocan_dev_upper": meddocan_upper(args.data),
        "english_synth_dev_upper": english_upper(args.data),
    }
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if args.deduce_python:  # after the RSS reading: the Dutch pipeline of the comparison loads more lists
        result["reference_deduce"] = deduce_reference(args.data, args.deduce_python, args.repeat)
    result["wall_s"] = round(time.perf_counter() - t0, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    m, e = result["meddocan_dev"], result["english_synth_dev"]
    print(f"MEDDOCAN dev  token binary P/R/F {m['token_binary']['precision']:.3f} / "
          f"{m['token_binary']['recall']:.3f} / {m['token_binary']['f1']:.3f}")
    for key in ("subtask1_exact", "subtask2_span", "overlap"):
        print(f"              {key:<16} P/R/F {m[key]['precision']:.3f} / {m[key]['recall']:.3f} / {m[key]['f1']:.3f}")
    for key in ("throughput", "throughput_pipe"):
        print(f"              {key:<16} {m[key]['chars_per_s']:,} chars/s, {m[key]['mb_per_s']} MB/s, "
              f"{m[key]['docs_per_s']} docs/s")
    for label, r in m["per_label"].items():
        print(f"    {label:<34} n={r['gold']:<5} R exact {r['recall_exact']:.3f}  R overlap {r['recall_overlap']:.3f}"
              f"  P exact {r['precision_exact']:.3f}")
    ou = e["overlap_unlabeled"]
    print(f"English synth overlap (unlabelled) P/R/F {ou['precision']:.3f} / {ou['recall']:.3f} / {ou['f1']:.3f}; "
          f"{e['throughput']['chars_per_s']:,} chars/s")
    for label, r in e["per_type"].items():
        print(f"    {label:<34} n={r['gold']:<5} R overlap {r['recall_overlap']:.3f}")
    for key, name in (("meddocan_dev_upper", "MEDDOCAN dev"), ("english_synth_dev_upper", "English synth")):
        u = result[key]
        tb, ov = u["token_binary"], u["overlap_unlabeled"]
        print(f"{name} UPPER-CASED  token binary P/R {tb['precision']:.3f} / {tb['recall']:.3f}; overlap (unlabelled)"
              f" P/R {ov['precision']:.3f} / {ov['recall']:.3f}; {u['chars_per_s']:,} chars/s (first pass), "
              f"{u['warm_pipe_chars_per_s']:,} chars/s (warm)")
    for name, r in result.get("reference_deduce", {}).get("sets", {}).items():
        print(f"vs deduce {result['reference_deduce']['deduce']} on {name}: clinanon {r['clinanon_mb_per_s']} MB/s, "
              f"batched {r['clinanon_pipe_mb_per_s']} MB/s, deduce {r['deduce_mb_per_s']} MB/s (CPU) -> {r['ratio']}x,"
              f" batched {r['ratio_pipe']}x")
    print(f"peak RSS {result['peak_rss_mb']} MB -> {args.out}")


if __name__ == "__main__":
    sys.exit(main())
