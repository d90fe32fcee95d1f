"""Recall first: the default Spanish pipeline against the rules alone, before (profile ``meddocan-f1``, the
per-label strategies chosen for F1 on MEDDOCAN dev) and after (profile ``recall-first``, the default).

``python benchmarks/recall_first.py [--data ../shared/data] [--crf-model DIR] [--train-crf] [--out FILE]``

Measured, each through a :class:`~clinanon.pipeline.Pipeline` (labels: MEDDOCAN):

* on the invented varied Spanish notes of ``tests/data/es-varied`` (referral letters, nursing notes, discharge
  summaries, one-line sentences; CC0): token-level binary P/R/F of every PHI token, the token recall of the name
  tokens alone (patients, clinicians, relatives) and the name tokens left in clear (``name_tokens_leaked``), for
  (a) the rules alone (``detectors.use = ["rules"]``), (b) the default pipeline with the old strategy table
  (``detectors.ensemble.profile = "meddocan-f1"``) and (c) the default pipeline as it is now (``recall-first``);
* MEDDOCAN dev (250 documents): subtask 1 (exact span + label), subtask 2 (exact span) and token-binary P/R/F of
  (b) and (c) with the **shipped** CRF, which was trained on train + dev (so these dev figures are optimistic), and,
  with ``--crf-model DIR`` (a CRF trained on MEDDOCAN train only) or ``--train-crf`` (trains one here, about
  5 minutes), the same with that model: the honest dev figures.

Writes ``benchmarks/results/recall_first.json`` (or ``--out``) and prints a summary. No text of any note is
written or printed: counts and scores only.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from clinanon import __version__
from clinanon import io as cio
from clinanon.config import Config
from clinanon.document import Document, Span
from clinanon.evaluate import evaluate
from clinanon.pipeline import Pipeline
from clinanon.taxonomy import category_matches, get_scheme

ROOT = Path(__file__).resolve().parents[1]
VARIED = ROOT / "tests" / "data" / "es-varied"
PROFILES = ("meddocan-f1", "recall-first")


def read(folder: Path) -> list[Document]:
    return sorted(cio.read(folder, "brat"), key=lambda d: d.id)


def _prf(measure: dict[str, Any]) -> dict[str, Any]:
    m = measure["micro"]
    return {k: (round(m[k], 4) if isinstance(m[k], float) else m[k])
            for k in ("precision", "recall", "f1", "tp", "fp", "fn")}


def pipeline(profile: str | None, crf_model: Path | None = None) -> Pipeline:
    """The rules alone (``profile=None``) or the default detector with ``profile`` (the shipped CRF, or
    ``crf_model``), labels in MEDDOCAN's scheme."""
    if profile is None:
        return Pipeline(Config.from_dict({"language": "es", "label_scheme": "meddocan",
                                          "detectors": {"use": ["rules"]}}))
    cfg = Config.from_dict({"language": "es", "label_scheme": "meddocan",
                            "detectors": {"ensemble": {"profile": profile}}})
    if crf_model is None:
        return Pipeline(cfg)
    from clinanon.models import default_detector

    return Pipeline(cfg, detectors=[default_detector("es", label_scheme="meddocan", model=crf_model,
                                                     profile=profile)])


def predict(nlp: Pipeline, docs: list[Document]) -> list[Document]:
    return [d.with_spans(nlp.detect_spans(d)) for d in docs]


def is_name(label: str) -> bool:
    return category_matches(get_scheme("meddocan").category(label), "NAME")


def unlabelled(docs: list[Document]) -> list[Document]:
    """The same documents with every span labelled ``PHI``: token-binary scores do not depend on labels, and a
    name labelled as a clinician in one and a patient in the other must not read as a label mismatch."""
    return [d.with_spans([Span(s.start, s.end, "PHI", s.source, s.score) for s in d.spans]) for d in docs]


def varied_scores(gold: list[Document], pred: list[Document]) -> dict[str, Any]:
    """Token-binary P/R/F of all PHI; recall and leaked tokens of the names alone."""
    pred = unlabelled(pred)
    m = evaluate(unlabelled(gold), pred, lang="es").to_dict()["measures"]
    names_gold = unlabelled([d.with_spans([s for s in d.spans if is_name(s.label)]) for d in gold])
    n = evaluate(names_gold, pred, lang="es").to_dict()["measures"]["token_binary"]["micro"]
    return {"token_binary": _prf(m["token_binary"]),
            "name_tokens": n["tp"] + n["fn"], "name_token_recall": round(n["recall"], 4),
            "name_tokens_leaked": n["fn"],
            "docs_with_a_leaked_name": sum(
                1 for g, p in zip(names_gold, pred, strict=True)
                if evaluate([g], [p], lang="es").token_binary.micro.fn)}


def meddocan_scores(gold: list[Document], pred: list[Document]) -> dict[str, Any]:
    m = evaluate(gold, pred, lang="es").to_dict()["measures"]
    return {"subtask1": _prf(m["entity_exact"]), "subtask2": _prf(m["entity_span"]),
            "token_binary": _prf(m["token_binary"])}


def train_crf(data: Path, out: Path) -> Path:
    from clinanon.detect.crf import CRFDetector

    train = read(data / "meddocan" / "train" / "brat")
    meta = json.loads((ROOT / "src/clinanon/data/models/es-meddocan-crf/meta.json").read_text(encoding="utf-8"))
    keep = ("c1", "c2", "max_iterations", "clusters", "triggers", "structure", "case_augment")
    params = {k: v for k, v in meta["params"].items() if k in keep}
    crf = CRFDetector("es", label_scheme="meddocan", **params).fit(train)
    return crf.save(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--crf-model", type=Path, default=None, help="a CRF trained on MEDDOCAN train only")
    ap.add_argument("--train-crf", action="store_true", help="train that CRF here (MEDDOCAN train, ~5 min)")
    ap.add_argument("--skip-meddocan", action="store_true", help="only the varied notes")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "recall_first.json")
    args = ap.parse_args()

    result: dict[str, Any] = {"benchmark": "recall_first", "clinanon": __version__,
                              "python": platform.python_version(), "machine": platform.machine()}
    varied = read(VARIED)
    result["varied_notes"] = {"documents": len(varied), "gold_spans": sum(len(d.spans) for d in varied)}
    t0 = time.perf_counter()
    for key, profile in (("rules_alone", None), ("default_before_meddocan_f1", "meddocan-f1"),
                         ("default_after_recall_first", "recall-first")):
        result["varied_notes"][key] = varied_scores(varied, predict(pipeline(profile), varied))
    result["varied_notes"]["seconds"] = round(time.perf_counter() - t0, 1)

    if not args.skip_meddocan:
        dev = read(args.data / "meddocan" / "dev" / "brat")
        crf_model = args.crf_model
        if crf_model is None and args.train_crf:
            t0 = time.perf_counter()
            crf_model = train_crf(args.data, Path(tempfile.mkdtemp(prefix="clinanon-recall-first-")) / "crf")
            result["crf_train_seconds"] = round(time.perf_counter() - t0, 1)
        med: dict[str, Any] = {"documents": len(dev)}
        for profile in PROFILES:
            med[f"shipped_crf_{profile}"] = meddocan_scores(dev, predict(pipeline(profile), dev))
        if crf_model is not None:
            meta = json.loads((crf_model / "meta.json").read_text(encoding="utf-8"))
            med["train_only_crf"] = {
                "params": meta.get("params"), "model_bytes": meta.get("model_bytes"),
                "source": ("trained here on MEDDOCAN train" if args.crf_model is None
                           else "--crf-model: a CRF of the shipped recipe trained on MEDDOCAN train only")}
            for profile in PROFILES:
                med[f"train_only_crf_{profile}"] = meddocan_scores(dev, predict(pipeline(profile, crf_model), dev))
        med["note"] = ("shipped_crf_*: the shipped CRF was trained on MEDDOCAN train + dev, so its dev scores are "
                       "optimistic; train_only_crf_*: the same recipe trained on train only (honest dev scores)")
        result["meddocan_dev"] = med

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    v = result["varied_notes"]
    for key in ("rules_alone", "default_before_meddocan_f1", "default_after_recall_first"):
        s = v[key]
        tb = s["token_binary"]
        print(f"varied {key:28s} token P {tb['precision']:.4f} R {tb['recall']:.4f} F {tb['f1']:.4f}  "
              f"name R {s['name_token_recall']:.4f} ({s['name_tokens_leaked']}/{s['name_tokens']} name tokens "
              f"leaked, {s['docs_with_a_leaked_name']} documents)")
    for key, s in result.get("meddocan_dev", {}).items():
        if isinstance(s, dict) and "subtask1" in s:
            print(f"meddocan dev {key:32s} S1 P {s['subtask1']['precision']:.4f} R {s['subtask1']['recall']:.4f} "
                  f"F {s['subtask1']['f1']:.4f}  S2 F {s['subtask2']['f1']:.4f}  "
                  f"token R {s['token_binary']['recall']:.4f}")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
