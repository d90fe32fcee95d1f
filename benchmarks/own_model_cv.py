"""What a hospital gets from annotating its own notes: ``clinanon train --brat`` on the English nursing notes.

Patient-grouped k-fold cross-validation on ``physionet-deid-dev/brat`` (984 notes of 81 patients, file names
``p<patient>_n<note>``; HIPAA Safe Harbor conventions): the notes of one patient are never both in training and in
test. For each fold, the notes of the other folds train a CRF exactly as ``clinanon train --brat DIR --lang en``
does (:func:`clinanon.train.brat_config`: the corpus' labels mapped to canonical categories, the English rules
as features, ``CRFSection``'s defaults), and the ``default`` pipeline with that model (the English rules + the
CRF, combined ``recall-first``, as ``detectors.models.crf`` makes it) tags the held-out fold. It is compared with
the rules alone (the English default). A small learning curve trains on nested, patient-grouped subsets of the
training folds (25 %, 50 %, 100 % by default).

Scores: the ``hipaa`` profile on both sides (:func:`clinanon.profiles.filter_documents`; the pipelines also run
with ``profile = "hipaa"``), token-binary P/R/F1 (and entity-overlap recall) pooled over every held-out note of
the folds run, plus each fold's.

    nice -n 10 python benchmarks/own_model_cv.py                                    # 5 folds, the full run
    nice -n 10 python benchmarks/own_model_cv.py --patients 15 --run-folds 2 --max-iterations 20 --out /tmp/x.json

Cost: the rules' candidates of each note are computed once and reused (a subclass of the rules detector that
memoizes per text: the same spans, the rules are deterministic), in training features and in prediction.
Nothing of the notes' text is written: the JSON holds ids, counts and scores.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from clinanon.analysis import Analysis
from clinanon.config import Config
from clinanon.detect.rules.detector import RulesDetector
from clinanon.document import Document, Span
from clinanon.evaluate import evaluate
from clinanon.models import default_detector
from clinanon.pipeline import Pipeline
from clinanon.profiles import filter_documents
from clinanon.train import brat_config, make_crf, relabel
from real_notes import PHYSIONET_LABELS, load_physionet, patient_of

ROOT = Path(__file__).resolve().parents[1]
LANG = "en"
PROFILE = "hipaa"


class MemoRules(RulesDetector):
    """The English rules, each note's candidates computed once (per text and language) and reused."""

    def __init__(self, lang: str) -> None:
        super().__init__(lang)
        self._seen: dict[tuple[str, str], list[Span]] = {}
        self._analyzed: dict[tuple[str, str], list[Span]] = {}

    def pipe(self, analyses: Sequence[Analysis]) -> list[list[Span]]:
        todo = [a for a in analyses if (a.lang, a.text) not in self._seen]
        if todo:
            for a, spans in zip(todo, super().pipe(todo), strict=True):
                self._seen[(a.lang, a.text)] = spans
        return [list(self._seen[(a.lang, a.text)]) for a in analyses]

    def analyze(self, text: str, lang: str | None = None, tokens: Any = None) -> list[Span]:
        key = (lang or self.lang, text)
        if key not in self._analyzed:
            self._analyzed[key] = super().analyze(text, lang, tokens)
        return list(self._analyzed[key])


def folds_of(docs: Sequence[Document], k: int, seed: int) -> list[list[int]]:
    """``k`` folds of patients (shuffled with ``seed``, dealt round-robin): each fold a sorted list of patients."""
    patients = sorted({patient_of(d.id) for d in docs})
    random.Random(seed).shuffle(patients)
    return [sorted(patients[i::k]) for i in range(k)]


def _config() -> Config:
    return Config.from_dict({"language": LANG, "label_scheme": "canonical", "profile": PROFILE})


def predict(nlp: Pipeline, docs: Sequence[Document]) -> list[Document]:
    return [d for d in nlp.pipe(docs, deidentify=False) if isinstance(d, Document)]


def score(gold: Sequence[Document], pred: Sequence[Document]) -> dict[str, Any]:
    """Token-binary P/R/F1 and the recall of gold entities overlapped by a prediction of any label, under the
    profile (gold labels canonical already)."""
    g = filter_documents(gold, PROFILE)
    p = filter_documents(pred, PROFILE)
    m = evaluate(g, p, lang=LANG).to_dict()["measures"]
    tb = m["token_binary"]["micro"]
    out = {k: (round(tb[k], 4) if isinstance(tb[k], float) else tb[k])
           for k in ("precision", "recall", "f1", "tp", "fp", "fn")}
    out["entity_overlap_recall"] = round(m["entity_overlap_unlabeled"]["micro"]["recall"], 4)  # any label
    return out


def train_crf(docs: Sequence[Document], rules: MemoRules, labels: dict[str, str], max_iterations: int,
              folder: Path) -> tuple[Path, float]:
    """A CRF trained as ``clinanon train --brat`` trains it, saved to ``folder``; its training seconds."""
    cfg = brat_config(folder, language=LANG, output=folder, labels=set(labels), max_iterations=max_iterations)
    assert cfg.data.label_map == labels, "the labels map as clinanon train --brat maps them"
    crf = make_crf(cfg)
    crf._rules = rules  # the rules' features from the memo (the same spans as RulesDetector("en").analyze)
    t = time.process_time()
    crf.fit(relabel(docs, cfg.data.label_map))
    seconds = time.process_time() - t
    crf.save(folder, {"language": LANG, "label_scheme": cfg.label_scheme})
    return folder, seconds  # CPU seconds, the rules' features of notes not seen before included


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--run-folds", type=int, default=None, help="run only the first N folds (a quick check)")
    ap.add_argument("--fractions", default="0.25,0.5,1.0", help="shares of the training folds' patients")
    ap.add_argument("--max-iterations", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--patients", type=int, default=None, help="use only the notes of the first N patients (a quick "
                                                                "check of the script)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "own_model_cv.json")
    args = ap.parse_args(argv)
    fractions = sorted(float(f) for f in args.fractions.split(",") if f.strip())

    docs = load_physionet(args.data)
    if args.patients:
        keep = set(sorted({patient_of(d.id) for d in docs})[: args.patients])
        docs = [d for d in docs if patient_of(d.id) in keep]
    from clinanon.train import choose_labels

    scheme, labels = choose_labels({s.label for d in docs for s in d.spans})
    # the label names map as in benchmarks/real_notes.py
    assert scheme == "canonical" and labels == {k: PHYSIONET_LABELS[k] for k in labels}
    gold = relabel(docs, labels)
    folds = folds_of(docs, args.folds, args.seed)
    run = folds[: args.run_folds] if args.run_folds else folds
    rules = MemoRules(LANG)

    t0 = time.process_time()
    rules_nlp = Pipeline(_config(), detectors=[rules])
    rules_pred = {d.id: d for d in predict(rules_nlp, gold)}
    rules_seconds = time.process_time() - t0
    print(f"rules on {len(gold)} notes: {rules_seconds:.0f} s CPU", file=sys.stderr)

    pooled: dict[str, list[Document]] = {"rules": [], **{f"crf@{f}": [] for f in fractions}}
    pooled_gold: list[Document] = []
    per_fold = []
    for k, test_patients in enumerate(run):
        held = set(test_patients)
        test = [d for d in gold if patient_of(d.id) in held]
        train_patients = sorted({patient_of(d.id) for d in gold} - held)
        random.Random(args.seed + 1000 + k).shuffle(train_patients)  # nested subsets: a prefix of one order
        row: dict[str, Any] = {"fold": k, "test_patients": len(test_patients), "test_notes": len(test),
                               "test_gold_spans": sum(len(d.spans) for d in filter_documents(test, PROFILE)),
                               "rules": score(test, [rules_pred[d.id] for d in test])}
        pooled_gold += test
        pooled["rules"] += [rules_pred[d.id] for d in test]
        for f in fractions:
            chosen = set(train_patients[: max(1, math.ceil(f * len(train_patients)))])
            train = [d for d in docs if patient_of(d.id) in chosen]  # the corpus' own labels, as a user has them
            with tempfile.TemporaryDirectory(prefix="own-crf-") as tmp:
                model, seconds = train_crf(train, rules, labels, args.max_iterations, Path(tmp))
                det = default_detector(LANG, label_scheme="canonical", rules=rules, model=model)
                nlp = Pipeline(_config(), detectors=[det])
                assert nlp.plan(LANG).describe()["detectors"] == ["rules", "crf"]
                pred = predict(nlp, test)
            pooled[f"crf@{f}"] += pred
            row[f"rules+crf@{f}"] = {"train_patients": len(chosen), "train_notes": len(train),
                                     "train_cpu_seconds": round(seconds, 1), **score(test, pred)}
            print(f"fold {k} ({len(test)} test notes), {f:.0%} of the training folds ({len(train)} notes): "
                  f"rules F1 {row['rules']['f1']:.3f}, rules+CRF F1 {row[f'rules+crf@{f}']['f1']:.3f}",
                  file=sys.stderr)
        per_fold.append(row)

    def notes_used(f: float) -> float:
        return round(sum(r[f"rules+crf@{f}"]["train_notes"] for r in per_fold) / len(per_fold), 1)

    result = {
        "what": "patient-grouped cross-validation on the PhysioNet deid English nursing notes (dev part): the "
                "English rules alone vs the rules + a CRF trained as `clinanon train --brat` on the other folds",
        "corpus": {"notes": len(docs), "patients": len({patient_of(d.id) for d in docs}),
                   "gold_spans": sum(len(d.spans) for d in docs)},
        "profile": PROFILE, "measure": "token-binary P/R/F1 (clinanon.evaluate), both sides through the profile",
        "folds": args.folds, "folds_run": len(run), "seed": args.seed, "max_iterations": args.max_iterations,
        "crf": "clinanon.train.brat_config defaults (rules features; no clusters, triggers, structure or "
               "case augmentation); combined with the rules by the default pipeline (recall-first)",
        "rules_cpu_seconds_all_notes": round(rules_seconds, 1),
        "pooled": {"notes": len(pooled_gold), "rules": score(pooled_gold, pooled["rules"]),
                   **{f"rules+crf@{f}": {"mean_train_notes": notes_used(f), **score(pooled_gold, pooled[f"crf@{f}"])}
                      for f in fractions}},
        "learning_curve": [{"fraction": f, "mean_train_notes": notes_used(f),
                            **{k: v for k, v in score(pooled_gold, pooled[f"crf@{f}"]).items()
                               if k in ("precision", "recall", "f1")}} for f in fractions],
        "per_fold": per_fold,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({"pooled": result["pooled"], "learning_curve": result["learning_curve"]}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
