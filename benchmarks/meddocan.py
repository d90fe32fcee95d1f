"""MEDDOCAN benchmark of one detector: models trained on train only, scored on dev.

``python benchmarks/meddocan.py --detector {rules,crf,spacy,bilstm_crf,ensemble} [--crf-model DIR] [--spacy-model DIR]
[--bilstm-model DIR] [--with-bilstm] [--recall-study] [--out FILE]``

* ``rules``: the rules detector resolved, propagated and mapped to MEDDOCAN labels (what ``Pipeline`` does);
* ``crf``: :class:`CRFDetector` (trained here on train with ``--max-iterations``, or loaded from ``--crf-model``,
  which must have been trained on train only);
* ``spacy``: :class:`SpacyNERDetector` loaded from ``--spacy-model`` (train it with
  ``clinanon train configs/train_spacy_meddocan.toml``: ~17 min, too long to do here);
* ``bilstm_crf``: :class:`BiLSTMCRFDetector` loaded from ``--bilstm-model`` (train it with
  ``clinanon train configs/train_bilstm_crf_meddocan.toml``; the ``neural`` extra); its inference is measured with
  ``torch.set_num_threads(1)`` (one core);
* ``ensemble``: rules + CRF (+ spaCy with ``--with-spacy``, + the BiLSTM-CRF with ``--with-bilstm``) combined per
  label by
  :class:`clinanon.ensemble.Ensemble`. The per-label strategy table is chosen on dev by
  :func:`choose_strategies` (so its dev score is optimistic: model selection on the scored data) and also
  estimated honestly by 2-fold cross-selection on dev (strategies chosen on one half, scored on the other,
  both ways, counts summed): ``cross_selected``. The table is written to ``--strategies-out``.
  The ensemble is also run inside a :class:`~clinanon.pipeline.Pipeline` (MEDDOCAN labels), the way the
  ``default`` detector runs: ``pipeline`` scores and throughput. ``--recall-study`` adds where the token recall is
  lost (per gold label, for the ensemble, each member and the members together) and recall-first combinations,
  fixed a priori or chosen on one half of dev and scored on the other (:func:`recall_study`).

The BiLSTM-CRF's options are training options, saved with the model: e.g. the rules' spans as an input feature,
``clinanon train configs/train_bilstm_crf_meddocan.toml --set bilstm_crf.rule_features=true --out DIR``, then
``--bilstm-model DIR --out benchmarks/results/meddocan_bilstm_crf_rulefeat.json`` (the params are in the JSON).

Measured: subtask 1 (exact span + label) and subtask 2 (exact span) P/R/F1, token-binary P/R/F1 (also on an
upper-cased copy of dev: ``scores_upper_cased_dev``, robustness to all-caps notes), per-label
P/R/F1 (and labels with >= 50 dev mentions below F1 0.90), training time, throughput (chars/s, single
process, after a warm-up pass, median of ``--repeat`` passes), peak RSS of a fresh inference process (load +
warm-up + runs), model size. Writes ``benchmarks/results/meddocan_<detector>.json`` and refreshes the Markdown
table ``benchmarks/results/meddocan.md`` from every ``meddocan_*.json`` there.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import rss_mb

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"




def _read(data: Path, split: str) -> list[Any]:
    from clinanon import io as cio

    return sorted(cio.read(data / "meddocan" / split / "brat", "brat"), key=lambda d: d.id)


def _dir_size(p: Path | None) -> int:
    if p is None:
        return 0
    return sum(f.stat().st_size for f in p.rglob("*") if f.is_file())


def build(detector: str, crf_model: Path | None, spacy_model: Path | None, strategies: Path | None,
          with_spacy: bool, extra_crf: Path | None = None, bilstm_model: list[Path] | None = None) -> Any:
    """The detector to measure (labels: MEDDOCAN). Several BiLSTM-CRF models (other seeds) become the ensemble
    members ``bilstm_crf``, ``bilstm_crf2``, ..."""
    from clinanon.detect.rules.detector import RulesDetector
    from clinanon.ensemble import Ensemble, StrategyTable

    if detector == "rules":
        return Ensemble({"rules": RulesDetector("es")}, scheme="meddocan", lang="es")
    if detector == "crf":
        from clinanon.detect.crf import CRFDetector

        return CRFDetector.load(crf_model)  # type: ignore[arg-type]
    if detector == "spacy":
        from clinanon.detect.spacy_ner import SpacyNERDetector

        return SpacyNERDetector.load(spacy_model)  # type: ignore[arg-type]
    if detector == "bilstm_crf":
        from clinanon.detect.neural.bilstm_crf import BiLSTMCRFDetector

        return BiLSTMCRFDetector.load(bilstm_model[0])  # type: ignore[index]
    from clinanon.detect.crf import CRFDetector

    members: dict[str, Any] = {"crf": CRFDetector.load(crf_model)}  # type: ignore[arg-type]
    if extra_crf is not None:
        members["crf2"] = CRFDetector.load(extra_crf)
    if with_spacy:
        from clinanon.detect.spacy_ner import SpacyNERDetector

        members["spacy"] = SpacyNERDetector.load(spacy_model)  # type: ignore[arg-type]
    if bilstm_model:
        from clinanon.detect.neural.bilstm_crf import BiLSTMCRFDetector

        for i, path in enumerate(bilstm_model):
            members["bilstm_crf" + (str(i + 1) if i else "")] = BiLSTMCRFDetector.load(path)
    members["rules"] = RulesDetector("es")
    table = StrategyTable.load(strategies) if strategies is not None else StrategyTable()
    return Ensemble(members, scheme="meddocan", table=table, tiebreak="crf", lang="es")


def pipeline_of(det: Any) -> Any:
    from clinanon.config import Config
    from clinanon.pipeline import Pipeline

    return Pipeline(Config.from_dict({"language": "es", "label_scheme": "meddocan"}), detectors=[det])


def inference(args: argparse.Namespace) -> dict[str, Any]:
    """Run in a fresh process: load, warm up, measure; report this process's peak RSS.

    For an ensemble, the passes of the CRF alone, the ensemble and the pipeline are interleaved (one of each per
    round), so that a busy machine slows them alike and their ratios stay meaningful."""
    docs = _read(args.data, "dev")
    if args.bilstm_model is not None:  # one core, as the other detectors (single process, single thread)
        import torch

        torch.set_num_threads(1)
    t0 = time.perf_counter()
    det = build(args.detector, args.crf_model, args.spacy_model, args.strategies, args.with_spacy, args.extra_crf,
                args.bilstm_model)
    load_s = time.perf_counter() - t0
    fns: dict[str, Any] = {"detector": det.detect}
    if args.detector in ("ensemble", "rules"):
        fns["pipeline"] = pipeline_of(det).detect_spans
    if args.detector == "ensemble":
        fns["crf_alone"] = det.detectors["crf"].detect
    for fn in fns.values():  # warm-up
        for d in docs:
            fn(d)
    chars = sum(len(d.text) for d in docs)
    runs: dict[str, list[float]] = {k: [] for k in fns}
    cpu: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(args.repeat):
        for k, fn in fns.items():
            t = time.perf_counter()
            c = time.process_time()
            for d in docs:
                fn(d)
            runs[k].append(time.perf_counter() - t)
            cpu[k].append(time.process_time() - c)
    out: dict[str, Any] = {"load_seconds": round(load_s, 2)}
    for k, rs in runs.items():
        med = statistics.median(rs)
        cpu_med = statistics.median(cpu[k])
        # CPU seconds of this process too: on a shared machine, wall time also counts other people's work
        out[k] = {"chars": chars, "runs_s": [round(r, 3) for r in rs], "median_s": round(med, 3),
                  "chars_per_s": round(chars / med), "docs_per_s": round(len(docs) / med, 1),
                  "cpu_median_s": round(cpu_med, 3), "chars_per_cpu_s": round(chars / cpu_med) if cpu_med else None}
    if "crf_alone" in out:
        out["relative_to_crf_alone"] = {k: round(out["crf_alone"]["median_s"] / out[k]["median_s"], 3)
                                        for k in ("detector", "pipeline")}
    out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    out["peak_rss_mb"] = rss_mb()
    return out


def _sum_scores(parts: list[dict[str, Any]]) -> dict[str, Any]:
    tp = sum(p["tp"] for p in parts)
    fp = sum(p["fp"] for p in parts)
    fn = sum(p["fn"] for p in parts)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4), "tp": tp, "fp": fp, "fn": fn}


def _token_phi(text: str, spans: Any, lang: str = "es") -> tuple[list[Any], list[set[int]]]:
    """The tokens of ``text`` and, per span, the indices of the tokens it shares a character with (the
    ``token_binary`` rule of :mod:`clinanon.evaluate.metrics`)."""
    import bisect

    from clinanon.text import tokenize

    toks = tokenize(text, lang)
    starts = [t.start for t in toks]
    out = []
    for s in spans:
        i = max(bisect.bisect_right(starts, s.start) - 1, 0)
        hit = set()
        while i < len(toks) and toks[i].start < s.end:
            if toks[i].end > s.start:
                hit.add(i)
            i += 1
        out.append(hit)
    return toks, out


def token_recall_by_label(gold: list[Any], preds: dict[str, list[Any]]) -> dict[str, Any]:
    """Token-binary recall per gold label of each prediction set (``preds``: name -> spans per document): a gold
    token of label L is found when any predicted span, whatever its label, shares a character with it (so the
    sum over labels of the missed tokens is the ``token_binary`` fn, up to tokens two gold labels share)."""
    gold_n: dict[str, int] = {}
    missed: dict[str, dict[str, int]] = {k: {} for k in preds}
    for i, d in enumerate(gold):
        _, gsets = _token_phi(d.text, d.spans)
        covered = {k: set().union(*_token_phi(d.text, v[i])[1]) for k, v in preds.items()}
        by_label: dict[str, set[int]] = {}
        for s, toks in zip(d.spans, gsets, strict=True):
            by_label.setdefault(s.label, set()).update(toks)
        for lab, toks in by_label.items():
            gold_n[lab] = gold_n.get(lab, 0) + len(toks)
            for k, cov in covered.items():
                missed[k][lab] = missed[k].get(lab, 0) + len(toks - cov)
    rows: dict[str, Any] = {}
    for lab in sorted(gold_n, key=lambda x: -missed[next(iter(preds))].get(x, 0)):
        n = gold_n[lab]
        rows[lab] = {"gold_tokens": n, **{f"missed_{k}": missed[k].get(lab, 0) for k in preds},
                     **{f"recall_{k}": round(1 - missed[k].get(lab, 0) / n, 4) if n else None for k in preds}}
    total = sum(gold_n.values())
    return {"gold_tokens": total,
            "recall": {k: round(1 - sum(missed[k].values()) / total, 4) if total else None for k in preds},
            "per_label": rows}


def recall_study(det: Any, dev: list[Any], prepared: list[Any], chosen: Any) -> dict[str, Any]:
    """Where the ensemble's token recall is lost, and recall-first combinations scored honestly.

    Fixed a priori (no choice on dev, so each one's dev score is fair; picking the best of them on dev is not):
    ``union`` everywhere; the ``recall-first`` combination profile (union everywhere + the rules' names, IDs,
    contacts and dates protected: what the ``default`` detector runs); ``vote`` everywhere; one member everywhere
    (``<member>_everywhere``: its spans with name propagation and repairs). Chosen on one half of dev and scored
    on the other (both ways, counts summed): per-label strategies maximising exact-span F2 (``beta=2``: recall
    weighs twice), with and without the protection. ``members_union``: every member's prepared spans together,
    before selection (a ceiling on the token recall of any selection, name propagation and repairs aside)."""
    from clinanon.ensemble import Ensemble, Protection, StrategyTable, choose_strategies

    protected = Ensemble(det.detectors, scheme=det.scheme, table=det.table, tiebreak=det.tiebreak,
                         lang=det.lang, protect=Protection())
    union = StrategyTable({}, "union")
    halves = [list(range(0, len(dev), 2)), list(range(1, len(dev), 2))]
    out: dict[str, Any] = {}

    def scored(ens: Any, table: Any) -> list[Any]:
        return [d.with_spans(ens.combine(d, p, table)) for d, p in zip(dev, prepared, strict=True)]

    def cross(ens: Any, beta: float) -> tuple[dict[str, Any], list[Any]]:
        parts: dict[str, list[dict[str, Any]]] = {"subtask1": [], "subtask2": [], "token_binary": []}
        spans: list[Any] = [None] * len(dev)
        tables = []
        for a, b in ((0, 1), (1, 0)):
            t_a = choose_strategies([dev[i] for i in halves[a]], {m: [prepared[i][m] for i in halves[a]]
                                                                  for m in det.members}, ensemble=ens, beta=beta)
            tables.append(t_a.strategies)
            for i in halves[b]:
                spans[i] = ens.combine(dev[i], prepared[i], t_a)
            sc = score([dev[i] for i in halves[b]], [dev[i].with_spans(spans[i]) for i in halves[b]])
            for k in parts:
                parts[k].append(sc[k])
        return {**{k: _sum_scores(v) for k, v in parts.items()}, "tables_even_odd_half": tables}, spans

    t0 = time.perf_counter()
    preds: dict[str, list[Any]] = {"ensemble_f1_chosen_on_dev": scored(det, chosen)}
    for m in det.members:
        preds[f"member_{m}"] = [p[m] for p in prepared]
    preds["members_union"] = [[s for m in det.members for s in p[m]] for p in prepared]
    fixed = [("union", det, union), ("recall_first", protected, union), ("vote", det, StrategyTable({}, "vote")),
             *((f"{m}_everywhere", det, StrategyTable({}, m)) for m in det.members)]
    for name, ens, table in fixed:
        docs = scored(ens, table)
        preds[name] = [d.spans for d in docs]
        sc = score(dev, docs)
        out[name] = {k: sc[k] for k in ("subtask1", "subtask2", "token_binary")}
    for name, ens in (("f2_cross_selected", det), ("f2_protected_cross_selected", protected)):
        out[name], spans = cross(ens, 2.0)
        preds[name] = spans
    preds["ensemble_f1_chosen_on_dev"] = [d.spans for d in preds["ensemble_f1_chosen_on_dev"]]
    out["token_recall"] = token_recall_by_label(dev, preds)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


def score(gold: list[Any], pred: list[Any]) -> dict[str, Any]:
    from clinanon.train import dev_scores

    sc = dev_scores(gold, pred, "es")
    weak = {lab: m for lab, m in sc["per_label"].items() if m["gold"] >= 50 and m["f1"] < 0.90}
    return {**sc, "labels_50plus_below_0.90": weak}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--detector", choices=["rules", "crf", "spacy", "bilstm_crf", "ensemble"], required=True)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--crf-model", type=Path, default=None, help="a CRF trained on MEDDOCAN train only")
    ap.add_argument("--spacy-model", type=Path, default=None, help="a spaCy model trained on MEDDOCAN train only")
    ap.add_argument("--with-spacy", action="store_true", help="ensemble: add the spaCy model as a member")
    ap.add_argument("--bilstm-model", type=Path, nargs="+", default=None,
                    help="a BiLSTM-CRF trained on MEDDOCAN train only (clinanon train "
                         "configs/train_bilstm_crf_meddocan.toml); several (other seeds): ensemble members "
                         "bilstm_crf, bilstm_crf2, ...")
    ap.add_argument("--with-bilstm", action="store_true", help="ensemble: add the BiLSTM-CRF as a member")
    ap.add_argument("--extra-crf", type=Path, default=None,
                    help="ensemble: a second CRF (trained on train only, other settings) as member 'crf2'")
    ap.add_argument("--max-iterations", type=int, default=100, help="CRF iterations when training here")
    ap.add_argument("--crf-param", action="append", default=[], metavar="KEY=JSON",
                    help="a CRFDetector parameter when training here, e.g. --crf-param clusters=true")
    ap.add_argument("--strategies", type=Path, default=None, help="(inference) a strategy table")
    ap.add_argument("--strategies-out", type=Path, default=None)
    ap.add_argument("--recall-study", action="store_true",
                    help="ensemble: token recall per label (ensemble, each member, members together) and "
                         "recall-first combinations (union, recall-first profile a priori; F2 strategies chosen "
                         "on one half of dev, scored on the other)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--inference-only", action="store_true")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    if args.inference_only:
        print(json.dumps(inference(args)))
        return

    from clinanon import __version__

    train_docs, dev = _read(args.data, "train"), _read(args.data, "dev")
    tmp = Path(tempfile.mkdtemp(prefix="clinanon-meddocan-bench-"))
    training: dict[str, Any] = {}
    if args.detector in ("crf", "ensemble") and args.crf_model is None:
        from clinanon.detect.crf import CRFDetector

        t0 = time.perf_counter()
        params: dict[str, Any] = {}
        for item in args.crf_param:
            key, _, value = item.partition("=")
            params[key] = json.loads(value)
        crf = CRFDetector("es", max_iterations=args.max_iterations, label_scheme="meddocan", **params
                          ).fit(train_docs)
        training["crf_seconds"] = round(time.perf_counter() - t0, 1)
        training["crf_params"] = params
        args.crf_model = crf.save(tmp / "crf")
    elif args.crf_model is not None:
        meta = json.loads((args.crf_model / "meta.json").read_text(encoding="utf-8"))
        training["crf_seconds"] = meta.get("train_seconds") or (meta.get("training") or {}).get("total_seconds")
    if args.detector == "spacy" or args.with_spacy:
        if args.spacy_model is None:
            ap.error("spacy needs --spacy-model (trained on train only)")
        meta = json.loads((args.spacy_model / "meta.json").read_text(encoding="utf-8"))
        tr = (meta.get("clinanon") or meta).get("training") or {}
        training["spacy_seconds"] = tr.get("total_seconds")
    if args.extra_crf is not None:
        meta = json.loads((args.extra_crf / "meta.json").read_text(encoding="utf-8"))
        training["crf2_seconds"] = meta.get("train_seconds")
    if args.detector == "bilstm_crf" or args.with_bilstm:
        if args.bilstm_model is None:
            ap.error("bilstm_crf needs --bilstm-model (trained on train only)")
        import torch

        torch.set_num_threads(1)  # one core (and no spinning thread pool on a shared machine)
        meta = json.loads((args.bilstm_model[0] / "meta.json").read_text(encoding="utf-8"))
        tr = meta.get("training") or {}
        training["bilstm_crf_seconds"] = tr.get("total_seconds")
        training["bilstm_crf_epochs"] = tr.get("epochs")
        training["bilstm_crf_best_epoch"] = tr.get("best_epoch")
        training["bilstm_crf_stopped"] = tr.get("stopped")
        training["bilstm_crf_dev_span_f1_per_epoch"] = tr.get("dev_span_f1_per_epoch")
        training["bilstm_crf_params"] = meta.get("params")
        if len(args.bilstm_model) > 1:
            training["bilstm_crf_more_models"] = [
                {k: (json.loads((p / "meta.json").read_text(encoding="utf-8")).get("training") or {}).get(k)
                 for k in ("total_seconds", "epochs", "best_epoch")}
                | {"seed": json.loads((p / "meta.json").read_text(encoding="utf-8"))["params"].get("seed")}
                for p in args.bilstm_model[1:]]
    else:
        args.bilstm_model = None
    training["peak_rss_mb"] = rss_mb()

    det = build(args.detector, args.crf_model, args.spacy_model, None, args.with_spacy, args.extra_crf,
                args.bilstm_model)
    result: dict[str, Any] = {"benchmark": "meddocan", "detector": args.detector,
                              "members": list(getattr(det, "members", [args.detector])), "clinanon": __version__,
                              "python": platform.python_version(), "machine": platform.machine(),
                              "train_documents": len(train_docs), "dev_documents": len(dev), "training": training}
    strategies_path = args.strategies
    if args.detector == "ensemble":
        from clinanon.ensemble import choose_strategies

        t0 = time.perf_counter()
        prepared = [det.prepare(d) for d in dev]
        preds = {m: [p[m] for p in prepared] for m in det.members}
        table = choose_strategies(dev, preds, ensemble=det)
        result["strategy_seconds"] = round(time.perf_counter() - t0, 1)
        result["strategies"] = table.to_dict()
        strategies_path = args.strategies_out or (tmp / "strategies.json")
        table.save(strategies_path)
        det.table = table
        # honest estimate: choose on one half of dev, score on the other (both ways)
        halves = [list(range(0, len(dev), 2)), list(range(1, len(dev), 2))]
        parts: dict[str, list[dict[str, Any]]] = {"subtask1": [], "subtask2": [], "token_binary": []}
        for a, b in ((0, 1), (1, 0)):
            t_a = choose_strategies([dev[i] for i in halves[a]], {m: [preds[m][i] for i in halves[a]]
                                                                  for m in det.members}, ensemble=det)
            gold_b = [dev[i] for i in halves[b]]
            pred_b = [dev[i].with_spans(det.combine(dev[i], prepared[i], t_a)) for i in halves[b]]
            sc = score(gold_b, pred_b)
            for k in parts:
                parts[k].append(sc[k])
        result["cross_selected"] = {k: _sum_scores(v) for k, v in parts.items()}
        pred = [d.with_spans(det.combine(d, p)) for d, p in zip(dev, prepared, strict=True)]
        result["scores"] = score(dev, pred)
        if args.recall_study:
            result["recall_study"] = recall_study(det, dev, prepared, table)
        nlp = pipeline_of(det)
        result["pipeline_scores"] = score(dev, [d.with_spans(nlp.detect_spans(d)) for d in dev])
    else:
        result["scores"] = score(dev, [d.with_spans(det.detect(d)) for d in dev])
    from clinanon.detect.crf import upper_same_length

    # robustness: the same dev notes in capitals (all-caps notes exist: nursing notes, older systems)
    upper = [replace(d, text=upper_same_length(d.text)) for d in dev]
    result["scores_upper_cased_dev"] = score(upper, [d.with_spans(det.detect(d)) for d in upper])

    cmd = [sys.executable, __file__, "--inference-only", "--detector", args.detector, "--data", str(args.data),
           "--repeat", str(args.repeat)]
    for flag, val in (("--crf-model", args.crf_model), ("--spacy-model", args.spacy_model),
                      ("--strategies", strategies_path), ("--extra-crf", args.extra_crf),
                      ("--bilstm-model", args.bilstm_model)):
        if isinstance(val, list):
            cmd += [flag, *map(str, val)]
        elif val is not None:
            cmd += [flag, str(val)]
    if args.with_spacy:
        cmd.append("--with-spacy")
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    result["inference"] = json.loads(proc.stdout.strip().splitlines()[-1])
    result["model_bytes"] = {"crf": _dir_size(args.crf_model) if args.detector in ("crf", "ensemble") else 0,
                             "crf2": _dir_size(args.extra_crf),
                             "spacy": (_dir_size(args.spacy_model)
                                       if args.detector == "spacy" or args.with_spacy else 0),
                             "bilstm_crf": sum(_dir_size(p) for p in args.bilstm_model or [])}
    name = (args.detector + ("_crf2" if args.extra_crf else "") + ("_spacy" if args.with_spacy else "")
            + ("_bilstm" if args.with_bilstm else "")
            + (f"x{len(args.bilstm_model)}" if args.with_bilstm and len(args.bilstm_model or []) > 1 else ""))
    out = args.out or RESULTS / f"meddocan_{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    s = result["scores"]
    print(f"{name}: subtask1 F {s['subtask1']['f1']:.4f}  subtask2 F {s['subtask2']['f1']:.4f}  token-binary "
          f"R {s['token_binary']['recall']:.4f}  {result['inference']['detector']['chars_per_s']:,} chars/s  "
          f"RSS {result['inference']['peak_rss_mb']} MB")
    write_table(out.parent)
    print(f"wrote {out}")


def write_table(folder: Path) -> Path:
    """``meddocan.md``: one row per ``meddocan_*.json`` in ``folder``."""
    rows = ["| detector | S1 P | S1 R | S1 F1 | S2 F1 | token R | token F1 | weak labels (>=50, F1<0.90) | train s | "
            "chars/s (detector) | chars/s (pipeline) | peak RSS MB | model MB | S1 F1 upper-cased dev |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for f in sorted(folder.glob("meddocan_*.json")):
        r = json.loads(f.read_text(encoding="utf-8"))
        if r.get("benchmark") != "meddocan":
            continue
        s = r["scores"]
        inf = r["inference"]
        train_s = sum(v for k, v in r["training"].items() if k.endswith("_seconds") and v)
        weak = ", ".join(f"{k} {v['f1']:.2f}" for k, v in s["labels_50plus_below_0.90"].items()) or "none"
        pipe = inf.get("pipeline", {}).get("chars_per_s")
        size = sum(r["model_bytes"].values()) / 2**20
        label = f.stem.removeprefix("meddocan_")
        up = r.get("scores_upper_cased_dev")
        upper_f1 = f"{up['subtask1']['f1']:.4f}" if up else "-"
        rows.append(f"| {label} | {s['subtask1']['precision']:.4f} | {s['subtask1']['recall']:.4f} | "
                    f"{s['subtask1']['f1']:.4f} | {s['subtask2']['f1']:.4f} | {s['token_binary']['recall']:.4f} | "
                    f"{s['token_binary']['f1']:.4f} | {weak} | {train_s:.0f} | "
                    f"{inf['detector']['chars_per_s']:,} | {f'{pipe:,}' if pipe else '-'} | {inf['peak_rss_mb']} | "
                    f"{size:.2f} | {upper_f1} |")
        if "cross_selected" in r:
            c = r["cross_selected"]
            rows.append(f"| {label} (strategies cross-selected on dev halves) | {c['subtask1']['precision']:.4f} | "
                        f"{c['subtask1']['recall']:.4f} | {c['subtask1']['f1']:.4f} | {c['subtask2']['f1']:.4f} | "
                        f"{c['token_binary']['recall']:.4f} | {c['token_binary']['f1']:.4f} | | | | | | | |")
    text = ("MEDDOCAN dev (250 documents); models trained on train only. Written by benchmarks/meddocan.py.\n\n"
            + "\n".join(rows) + "\n")
    p = folder / "meddocan.md"
    p.write_text(text, encoding="utf-8")
    return p


if __name__ == "__main__":
    main()
