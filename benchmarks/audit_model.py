"""What the shipped Spanish CRF (``es-meddocan-crf``) remembers of its training notes.

The model was trained on MEDDOCAN train + dev. The script reads every string the model directory holds (the CRF's
active feature strings and the word-cluster table, :func:`clinanon.audit.model.audit_model`) and counts, by
category, those that look like PHI; then it takes the name words of the gold name mentions of train and dev
(patients, health professionals, relatives; folded; two letters or more), with and without the words that are also
common Spanish words, and counts how many of them the model holds, per source.

Writes ``benchmarks/results/audit_model.json`` (counts only: the names themselves are not written; ``clinanon audit
model DIR --gold ... --list FILE`` lists them). Usage: ``python benchmarks/audit_model.py [--data ../shared/data]``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from clinanon import __version__
from clinanon import io as cio
from clinanon.audit.lexicon import common_words
from clinanon.audit.model import audit_model, category_counts, reference_names

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "src" / "clinanon" / "data" / "models" / "es-meddocan-crf"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--model", type=Path, default=MODEL)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "audit_model.json")
    args = ap.parse_args()
    splits = [args.data / "meddocan" / s / "brat" for s in ("train", "dev")]
    if not all(p.is_dir() for p in splits):
        sys.exit(f"MEDDOCAN train/dev not found under {args.data}")
    t0 = time.perf_counter()
    docs = [d for p in splits for d in cio.read(p, "brat")]
    all_names = reference_names(docs, scheme="meddocan")
    distinct = reference_names(docs, scheme="meddocan", common=common_words("es"))
    audit_all = audit_model(args.model, langs=("es",), reference=all_names)
    audit = audit_model(args.model, langs=("es",), reference=distinct)
    d = audit.to_dict()
    result = {
        "benchmark": "audit_model",
        "model": args.model.name,
        "training_data": "MEDDOCAN train + dev (the shipped model's training data)",
        "sources": d["sources"],
        "phi_like_strings": d["counts"],
        "phi_like_strings_any_source": dict(category_counts(audit)),
        "reference_name_words": {
            "all": audit_all.to_dict()["reference"],
            "not_common_words": d["reference"],
        },
        "summary": d["summary"],
        "seconds": round(time.perf_counter() - t0, 1),
        "clinanon_version": __version__,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: result[k] for k in ("sources", "phi_like_strings_any_source", "reference_name_words")},
                     indent=1))
    print(result["summary"])
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
