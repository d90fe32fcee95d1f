"""Utility of sanitized training data: does a de-identification CRF trained on sanitized MEDDOCAN lose accuracy?

The CRF of :mod:`clinanon.detect.crf` (rule features on, c1 = 0.05, c2 = 0.01, ``--iterations`` L-BFGS iterations,
seed 0) is trained on MEDDOCAN **train** rewritten by each technique — the gold spans as detections for the four
operators (surrogate, tag, redact, neighbors) — and tested on the **original** dev notes (hold-out protocol of
:mod:`clinanon.utility`). Score: subtask 1 (exact span + label, micro F1); subtask 2 too. A stochastic technique
runs ``--seeds`` times; a deterministic one once, compared with the original-trained CRF by a paired bootstrap over
the dev notes (Holm-corrected); several runs against one: the bootstrap on the first run.

Techniques: ``original``; ``deidentify`` with ``surrogate`` (a key drawn from the run's seed), ``tag``
(``[CATEGORY]``), ``redact`` (``XXXX``), ``neighbors`` (10 nearest neighbours in PPMI-SVD word vectors learned from
the train texts only, as in ``benchmarks/audit_meddocan.py``); ``number_mask``; ``sentence_shuffle``;
``word_swap`` (30 % and 100 %); ``synonyms`` (30 % of non-stop words, Spanish MyThes thesaurus, when
``scripts/build_thesauri.py`` has built it; otherwise left out and said so in the JSON).

``--kfold K`` runs instead a K-fold cross-validation on train + dev of the techniques named by ``--techniques``
(the issue's target: 10 folds of one technique within 30 minutes on 2 cores).

Writes ``benchmarks/results/utility_meddocan.json`` (or ``--out``), the table and box plot next to it (``.md``,
``.png``), and the run folder of :mod:`clinanon.utility` (``--work``: per-run caches, so an interrupted run
resumes; ``table.md``; ``boxplot.png``).

Usage::

    python benchmarks/utility_meddocan.py [--data ../shared/data] [--workers 2] [--iterations 100] [--seeds 5]
    python benchmarks/utility_meddocan.py --limit 30 --test-limit 20 --iterations 10 --seeds 1 \\
        --techniques original,surrogate --out /tmp/utility_smoke.json --work /tmp/utility_smoke   # smoke run
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parents[1]


def techniques(vectors: Path | None, have_es_thesaurus: bool) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {
        "original": {"technique": "original"},
        "surrogate": {"technique": "deidentify", "operator": "surrogate"},
        "tag": {"technique": "deidentify", "operator": "tag"},
        "redact": {"technique": "deidentify", "operator": "redact"},
        "number_mask": {"technique": "number_mask"},
        "sentence_shuffle": {"technique": "sentence_shuffle", "fraction": 1.0},
        "word_swap_30": {"technique": "word_swap", "fraction": 0.3},
        "word_swap_100": {"technique": "word_swap", "fraction": 1.0},
    }
    if vectors is not None:
        out["neighbors"] = {"technique": "deidentify",
                            "operator": {"operator": "neighbors", "embeddings": str(vectors), "n": 10}}
    if have_es_thesaurus:
        out["synonyms_30"] = {"technique": "synonyms", "fraction": 0.3, "thesaurus": "es"}
    return out


def technique_inputs(spec: str, train: Path, work: Path, limit: int | None = None,
                     ) -> tuple[list[str] | None, Path | None, bool, list[str]]:
    """``--techniques`` parsed (None: all), the neighbour vectors (PPMI-SVD of the first ``limit`` train texts,
    learnt into ``work`` when ``neighbors`` runs), whether the Spanish thesaurus is built, and the remarks for the
    JSON. Shared with ``utility_classification.py``."""
    from clinanon import io as cio
    from clinanon.corpus.thesaurus import find_thesaurus
    from clinanon.errors import ConfigError

    try:
        find_thesaurus("es")
        have_es = True
    except ConfigError:
        have_es = False
    wanted = None if spec == "all" else [t for t in spec.split(",") if t]
    vectors: Path | None = None
    if wanted is None or "neighbors" in wanted:
        from audit_meddocan import learn_vectors

        work.mkdir(parents=True, exist_ok=True)
        vectors = work / "meddocan_train_ppmi.vec"
        if not vectors.is_file():
            docs = sorted(cio.read(train, "brat"), key=lambda d: d.id)[:limit]
            learn_vectors([d.text for d in docs], vectors)
    remarks = [] if have_es else ["synonyms left out: no Spanish thesaurus (run scripts/build_thesauri.py after "
                                  "apt-get install mythes-es)"]
    return wanted, vectors, have_es, remarks


def select(table_of: dict[str, dict[str, Any]], wanted: list[str] | None) -> list[str]:
    """The techniques to run: all of ``table_of`` or ``wanted`` (unknown names end the script), ``original``
    first (every comparison is against it). Shared with ``utility_classification.py``."""
    chosen = list(table_of) if wanted is None else list(wanted)
    unknown = [t for t in chosen if t not in table_of]
    if unknown:
        sys.exit(f"unknown technique(s) {unknown}; one of {list(table_of)}")
    if "original" not in chosen:
        chosen.insert(0, "original")
    return chosen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "utility_meddocan.json")
    ap.add_argument("--work", type=Path, default=ROOT / "out" / "utility_meddocan",
                    help="run folder: unit caches (resume), table.md, boxplot.png (default: out/utility_meddocan)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--seeds", type=int, default=5, help="runs of each stochastic technique")
    ap.add_argument("--limit", type=int, default=None, help="the first N training notes (smoke runs)")
    ap.add_argument("--test-limit", type=int, default=None, help="the first N dev notes (smoke runs)")
    ap.add_argument("--techniques", default="all", help="comma-separated names, or all")
    ap.add_argument("--kfold", type=int, default=None, help="K-fold on train + dev instead of train -> dev")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args()
    from clinanon.utility import markdown_table, run_utility

    train = args.data / "meddocan" / "train" / "brat"
    dev = args.data / "meddocan" / "dev" / "brat"
    if not train.is_dir() or not dev.is_dir():
        sys.exit(f"MEDDOCAN not found under {args.data}")
    t0 = time.perf_counter()
    wanted, vectors, have_es, notes = technique_inputs(args.techniques, train, args.work, args.limit)
    table_of = techniques(vectors, have_es)
    chosen = select(table_of, wanted)
    config: dict[str, Any] = {
        "name": "meddocan-crf-utility", "language": "es", "seed": 0, "output": str(args.work),
        "data": {"train": str(train), "train_format": "brat", "limit": args.limit},
        "task": {"type": "ner", "label_scheme": "meddocan",
                 "crf": {"max_iterations": args.iterations, "dev_each_iteration": False}},
        "protocol": {"technique_seeds": args.seeds, "workers": args.workers},
        "techniques": [{"name": n, **table_of[n]} for n in chosen],
    }
    if args.kfold:
        config["data"]["train"] = [str(train), str(dev)]
        config["protocol"]["folds"] = args.kfold
    else:
        config["data"].update({"test": str(dev), "test_format": "brat", "test_limit": args.test_limit})
    table = run_utility(config, progress=not args.no_progress)
    report = {
        "benchmark": "utility_meddocan", "python": platform.python_version(), "machine": platform.machine(),
        "command": " ".join(sys.argv), "corpus": "MEDDOCAN (CC-BY 4.0): train -> dev" if not args.kfold
        else f"MEDDOCAN train + dev, {args.kfold}-fold", "crf_iterations": args.iterations, "limit": args.limit,
        "test_limit": args.test_limit, "notes": notes, "seconds_total": round(time.perf_counter() - t0, 1),
        "table": table,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    for name, suffix in (("table.md", ".md"), ("boxplot.png", ".png")):  # the table and plot next to the JSON
        if (args.work / name).is_file():
            shutil.copyfile(args.work / name, args.out.with_suffix(suffix))
    print(markdown_table(table))
    print(f"wrote {args.out} ({report['seconds_total']} s)")


if __name__ == "__main__":
    main()
