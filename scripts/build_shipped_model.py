"""Build the Spanish model shipped inside the package: a CRF trained on MEDDOCAN train + dev.

Writes ``src/clinanon/data/models/es-meddocan-crf/`` (``model.crfsuite``, ``meta.json``, ``LICENSE`` copied from the
corpus, ``ATTRIBUTION.txt``, and ``strategies.json``: the ensemble's per-label strategy table when
``--strategies`` names one, chosen on dev with a model trained on train only, e.g. by ``benchmarks/meddocan.py``).
Re-runnable: the same data and parameters give the same model file (CRFsuite's L-BFGS is deterministic).

Its dev score is NOT an estimate of accuracy (dev is in its training data): the numbers to quote come from
``benchmarks/meddocan.py``, whose models are trained on train only.

The recipe (tagging, seed and the ``[crf]`` hyper-parameters) is read from ``configs/train_crf_meddocan.toml``
(``--config``), the same file ``clinanon train`` and ``benchmarks/crf_meddocan.py`` use, so the shipped model and the
benchmarked one differ only in their training data.

Usage: ``python scripts/build_shipped_model.py [--data ../shared/data] [--config F] [--strategies F]``
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "clinanon" / "data" / "models" / "es-meddocan-crf"
ATTRIBUTION = (
    "This model was trained on the MEDDOCAN corpus (Medical Document Anonymization shared task, IberLEF 2019):\n"
    "M. Marimon, A. Gonzalez-Agirre, A. Intxaurrondo, H. Rodríguez, J. A. López Martin, M. Villegas, M. Krallinger.\n"
    "Automatic De-Identification of Medical Texts in Spanish: the MEDDOCAN Track, Corpus, Guidelines, Methods and\n"
    "Evaluation of Results. IberLEF 2019. Plan de Impulso de las Tecnologías del Lenguaje (Plan TL) / Barcelona\n"
    "Supercomputing Center. The corpus is distributed under the Creative Commons Attribution 4.0 International\n"
    "licence (CC-BY 4.0, see LICENSE); the model is a derived work and is distributed under the same licence.\n"
    "Training data: MEDDOCAN train (500 documents) + dev (250 documents). No corpus text is stored in the model\n"
    "beyond the feature strings (word forms) that a CRF keeps as weights and the word list of clusters.tsv.\n"
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--config", type=Path, default=ROOT / "configs" / "train_crf_meddocan.toml")
    ap.add_argument("--max-iterations", type=int, default=None, help="override crf.max_iterations")
    ap.add_argument("--strategies", type=Path, default=None, help="a strategy table JSON to ship with the model")
    args = ap.parse_args(argv)

    from clinanon import __version__
    from clinanon import io as cio
    from clinanon.detect.crf import CRFDetector
    from clinanon.train import TrainConfig, data_digest

    config = TrainConfig.load(args.config)
    c = config.crf

    med = args.data / "meddocan"
    train = sorted(cio.read(med / "train" / "brat", "brat"), key=lambda d: d.id)
    dev = sorted(cio.read(med / "dev" / "brat", "brat"), key=lambda d: d.id)
    docs = train + dev
    t0 = time.perf_counter()
    det = CRFDetector("es", c1=c.c1, c2=c.c2, max_iterations=args.max_iterations or c.max_iterations,
                      min_freq=c.min_freq, tagging=config.tagging, seed=config.seed, rules=c.rules, score=c.score,
                      label_scheme="meddocan", clusters=c.clusters, triggers=c.triggers, structure=c.structure,
                      case_augment=c.case_augment)
    det.fit(docs)
    seconds = time.perf_counter() - t0
    report = det.training_report_
    meta = {
        "name": "es-meddocan-crf",
        "description": "Spanish clinical PHI detector: CRF with rule features, MEDDOCAN labels",
        "language": "es",
        "label_scheme": "meddocan",
        "data": {"train": {"corpus": "MEDDOCAN", "splits": ["train", "dev"], "documents": len(docs),
                           "chars": sum(len(d.text) for d in docs), "digest": data_digest(docs)}},
        "scores": {"note": "trained on train+dev: no held-out score; see benchmarks/results/meddocan_*.json for "
                           "the scores of the same recipe trained on train only and scored on dev"},
        "training": {"seconds": round(seconds, 1), **(report.to_dict() if report else {})},
        "license": "LICENSE",
        "license_name": "CC-BY-4.0",
        "attribution": "ATTRIBUTION.txt",
        "trained_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "clinanon_version": __version__,
    }
    for key in ("misaligned", "overlapping"):  # offsets into the corpus: not needed in a shipped model
        meta["training"].pop(key, None)
    if args.out.exists():
        shutil.rmtree(args.out)
    det.save(args.out, meta)
    shutil.copyfile(med / "LICENSE", args.out / "LICENSE")
    (args.out / "ATTRIBUTION.txt").write_text(ATTRIBUTION, encoding="utf-8")
    if args.strategies is not None:
        table = json.loads(args.strategies.read_text(encoding="utf-8"))
        (args.out / "strategies.json").write_text(json.dumps(table, indent=2, ensure_ascii=False) + "\n",
                                                  encoding="utf-8")
    size = sum(p.stat().st_size for p in args.out.iterdir())
    print(f"wrote {args.out} ({size / 1e6:.2f} MB, {seconds:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
