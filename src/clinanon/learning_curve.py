"""Learning curve: train each detector on 1, 5, 10, 25, 50 and 100 % of the training documents, score on dev.

>>> result = learning_curve(train_docs, dev_docs, ["rules", "crf"])        # doctest: +SKIP
>>> write_json(result, "lc.json"); write_plot(result, "lc.png")            # doctest: +SKIP

* Subsets are nested and deterministic (:func:`nested_subsets`): the documents sorted by id are shuffled once
  with ``seed`` and each fraction takes a prefix of that order (at least one document), so 1 % ⊂ 5 % ⊂ ... and
  every detector is trained on the same documents at each fraction.
* Detectors: ``rules`` (nothing to learn: the same score at every fraction, the baseline), ``crf``
  (:class:`~clinanon.detect.crf.CRFDetector`, ``crf_iterations`` L-BFGS iterations), ``spacy``
  (:class:`~clinanon.detect.spacy_ner.SpacyNERDetector`, ``spacy_steps`` steps), ``bilstm_crf``
  (:class:`~clinanon.detect.neural.bilstm_crf.BiLSTMCRFDetector`, the ``neural`` extra: embeddings learned from the
  subset, epochs of at least 100 batches, early stopping on dev; pass ``trainers`` for word vectors),
  ``ensemble`` (rules + the CRF of the same fraction, + spaCy / the BiLSTM-CRF when listed before it; union by
  default; needs ``crf``).
* Scores: :func:`clinanon.train.dev_scores` (subtask 1 and 2 P/R/F1, token-binary, per label).
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from clinanon.document import Document
from clinanon.errors import ConfigError

__all__ = ["DETECTORS", "FRACTIONS", "learning_curve", "main", "nested_subsets", "run", "write_json", "write_plot"]

FRACTIONS: tuple[float, ...] = (0.01, 0.05, 0.10, 0.25, 0.50, 1.0)
DETECTORS: tuple[str, ...] = ("rules", "crf", "spacy", "bilstm_crf", "ensemble")


def nested_subsets(docs: Sequence[Document], fractions: Sequence[float] = FRACTIONS, seed: int = 0
                   ) -> dict[float, list[Document]]:
    """fraction -> documents: prefixes of one seeded shuffle of the documents sorted by id.

    Guarantees: ``ceil(f * n)`` documents (at least 1) for each fraction ``f`` in (0, 1]; a smaller fraction's
    subset is a subset of a larger one's; the same ``docs`` (in any order) and ``seed`` give the same subsets.
    """
    if not docs:
        raise ConfigError("no training documents")
    for f in fractions:
        if not 0.0 < f <= 1.0:
            raise ConfigError(f"fraction {f} is not in (0, 1]")
    order = sorted(docs, key=lambda d: d.id)
    random.Random(seed).shuffle(order)
    n = len(order)
    return {f: order[:max(1, math.ceil(round(f * n, 9)))] for f in fractions}


def _fit(name: str, subset: list[Document], dev: list[Document], lang: str, scheme: str, crf_iterations: int,
         spacy_steps: int, fitted: Mapping[str, Any]) -> Any:
    if name == "rules":
        from clinanon.detect.rules.detector import RulesDetector
        from clinanon.ensemble import Ensemble

        return Ensemble({"rules": RulesDetector(lang)}, scheme=scheme, lang=lang)
    if name == "crf":
        from clinanon.detect.crf import CRFDetector

        return CRFDetector(lang, max_iterations=crf_iterations, label_scheme=scheme).fit(subset)
    if name == "spacy":
        from clinanon.detect.spacy_ner import SpacyNERDetector

        return SpacyNERDetector(lang=lang, label_scheme=scheme, max_steps=spacy_steps).fit(subset)
    if name == "bilstm_crf":  # the neural extra; embeddings learned from the subset, early stopping on dev
        from clinanon.detect.neural.bilstm_crf import BiLSTMCRFDetector

        # an epoch of at least 100 batches: with 1 % of the notes one pass is a few updates, and early stopping
        # (patience in epochs) would end the training before the tagger has learnt anything
        return BiLSTMCRFDetector(lang, label_scheme=scheme, min_batches=100).fit(subset, dev)
    if name == "ensemble":
        from clinanon.detect.rules.detector import RulesDetector
        from clinanon.ensemble import Ensemble

        if "crf" not in fitted:
            raise ConfigError("the ensemble's learning curve needs 'crf' in the detectors (listed before it)")
        members: dict[str, Any] = {"crf": fitted["crf"]}
        for other in ("spacy", "bilstm_crf"):
            if other in fitted:
                members[other] = fitted[other]
        members["rules"] = RulesDetector(lang)
        return Ensemble(members, scheme=scheme, lang=lang, tiebreak="crf")
    raise ConfigError(f"unknown detector {name!r}; expected some of: {', '.join(DETECTORS)}")


def learning_curve(
    train_docs: Sequence[Document],
    dev_docs: Sequence[Document],
    detectors: Sequence[str] = ("rules", "crf"),
    *,
    fractions: Sequence[float] = FRACTIONS,
    seed: int = 0,
    lang: str = "es",
    scheme: str = "meddocan",
    crf_iterations: int = 50,
    spacy_steps: int = 2000,
    trainers: Mapping[str, Callable[[list[Document]], Any]] | None = None,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Train and score every detector at every fraction; returns a JSON-safe table (see :func:`write_json`).

    ``rules`` is evaluated once (it learns nothing) and reported at every fraction. ``trainers``: extra (or
    replacement) detectors by name, each a function from the training subset to a fitted detector (anything
    with ``detect(doc)`` predicting labels of ``scheme``). Status lines go to ``log`` (counts and seconds only,
    no text)."""
    say = log or (lambda _m: None)
    subsets = nested_subsets(train_docs, fractions, seed)
    dev = list(dev_docs)
    from clinanon.train import dev_scores

    rows: list[dict[str, Any]] = []
    rules_row: dict[str, Any] | None = None
    for f in sorted(subsets):
        subset = subsets[f]
        fitted: dict[str, Any] = {}
        for name in detectors:
            if name == "rules" and rules_row is not None:
                rows.append({**rules_row, "fraction": f, "train_documents": len(subset)})
                continue
            t0 = time.perf_counter()
            if trainers is not None and name in trainers:
                det = trainers[name](subset)
            else:
                det = _fit(name, subset, dev, lang, scheme, crf_iterations, spacy_steps, fitted)
            train_s = time.perf_counter() - t0
            fitted[name] = det
            t1 = time.perf_counter()
            pred = [d.with_spans(det.detect(d)) for d in dev]
            pred_s = time.perf_counter() - t1
            sc = dev_scores(dev, pred, lang)
            row = {"detector": name, "fraction": f, "train_documents": len(subset),
                   "train_seconds": round(train_s, 2), "predict_seconds": round(pred_s, 2),
                   "subtask1": sc["subtask1"], "subtask2": sc["subtask2"], "token_binary": sc["token_binary"],
                   "per_label": sc["per_label"]}
            if name == "rules":
                rules_row = row
            rows.append(row)
            say(f"{name} {f:.0%} ({len(subset)} docs): subtask-1 F1 {sc['subtask1']['f1']:.4f} "
                f"[{train_s:.0f} s training]")
    return {"fractions": sorted(subsets), "detectors": list(detectors), "seed": seed, "language": lang,
            "label_scheme": scheme, "train_documents": len(train_docs), "dev_documents": len(dev),
            "crf_iterations": crf_iterations, "spacy_steps": spacy_steps if "spacy" in detectors else None,
            "subsets": {str(f): sorted(d.id for d in s) for f, s in sorted(subsets.items())}, "rows": rows}


def write_json(result: Mapping[str, Any], path: str | Path) -> Path:
    """The table as JSON (document ids of the subsets included, no text)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return p


def write_plot(result: Mapping[str, Any], path: str | Path, measure: str = "subtask1") -> Path:
    """A PNG with three panels (precision, recall, F1 of ``measure``) against the training fraction (log
    scale), one line per detector. Needs matplotlib (the ``plot`` extra)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ConfigError("the learning-curve plot needs matplotlib: pip install 'clinanon[plot]'") from None
    fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
    for ax, key in zip(axes, ("precision", "recall", "f1"), strict=True):
        for name in result["detectors"]:
            rows = sorted((r for r in result["rows"] if r["detector"] == name), key=lambda r: r["fraction"])
            if not rows:
                continue
            ax.plot([100 * r["fraction"] for r in rows], [r[measure][key] for r in rows], marker="o", label=name,
                    linestyle="--" if name == "rules" else "-")
        ax.set_xscale("log")
        ax.set_xticks([100 * f for f in result["fractions"]])
        ax.set_xticklabels([f"{100 * f:g}%" for f in result["fractions"]])
        ax.set_xlabel("training documents")
        ax.set_title(f"{measure} {key}")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("score on dev")
    axes[-1].legend(loc="lower right")
    fig.suptitle(f"Learning curve ({result['label_scheme']}, {result['train_documents']} training documents = 100%)")
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, dpi=110)
    plt.close(fig)
    return p


def run(train: str | Path, dev: str | Path, out_dir: str | Path, detectors: Sequence[str] = ("rules", "crf"), *,
        fmt: str | None = None, fractions: Sequence[float] = FRACTIONS, seed: int = 0, lang: str = "es",
        scheme: str = "meddocan", crf_iterations: int = 50, spacy_steps: int = 2000, plot: bool = True,
        log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Read the data, run :func:`learning_curve`, write ``learning_curve.json`` (and ``learning_curve.png``
    when ``plot``) in ``out_dir``; returns the table. What ``clinanon learning-curve`` calls."""
    from clinanon import io as cio

    train_docs = list(cio.read(Path(train), fmt))
    dev_docs = sorted(cio.read(Path(dev), fmt), key=lambda d: d.id)
    result = learning_curve(train_docs, dev_docs, detectors, fractions=fractions, seed=seed, lang=lang,
                            scheme=scheme, crf_iterations=crf_iterations, spacy_steps=spacy_steps, log=log)
    out = Path(out_dir)
    write_json(result, out / "learning_curve.json")
    if plot:
        write_plot(result, out / "learning_curve.png")
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m clinanon.learning_curve TRAIN DEV OUT_DIR [--detectors rules,crf] ...``"""
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog="python -m clinanon.learning_curve", description=__doc__.splitlines()[0])
    ap.add_argument("train")
    ap.add_argument("dev")
    ap.add_argument("out_dir")
    ap.add_argument("--detectors", default="rules,crf")
    ap.add_argument("--format", default=None)
    ap.add_argument("--fractions", default=",".join(f"{f:g}" for f in FRACTIONS))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lang", default="es")
    ap.add_argument("--scheme", default="meddocan")
    ap.add_argument("--crf-iterations", type=int, default=50)
    ap.add_argument("--spacy-steps", type=int, default=2000)
    a = ap.parse_args(argv)
    run(a.train, a.dev, a.out_dir, [d.strip() for d in a.detectors.split(",") if d.strip()], fmt=a.format,
        fractions=[float(f) for f in a.fractions.split(",")], seed=a.seed, lang=a.lang, scheme=a.scheme,
        crf_iterations=a.crf_iterations, spacy_steps=a.spacy_steps, log=lambda m: print(m, file=sys.stderr))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
