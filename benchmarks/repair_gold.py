"""How many gold spans the ensemble's repairs would change: ``clinanon.steps.repair`` applied to MEDDOCAN's gold.

``python benchmarks/repair_gold.py [--data ../shared/data]``

The repairs fix spans of trained models that no annotator would accept. Applied to the annotators' own spans they
should change almost nothing; every change is a place where a repair disagrees with the annotation convention
(written with what it removed and added, labels only: no text). Writes ``benchmarks/results/repair_gold.json``.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def changes(data: Path, split: str) -> dict[str, Any]:
    import clinanon.io as cio
    from clinanon.steps.repair import repair_spans
    from clinanon.taxonomy import get_scheme

    scheme = get_scheme("meddocan")
    docs = list(cio.read(data / "meddocan" / split / "brat", "brat"))
    removed: Counter[str] = Counter()
    added: Counter[str] = Counter()
    total = 0
    for d in docs:
        gold = sorted(d.spans, key=lambda s: (s.start, s.end, s.label))
        out = repair_spans(d.text, gold, "es", scheme.category, scheme.native)
        before = {(s.start, s.end, s.label) for s in gold}
        after = {(s.start, s.end, s.label) for s in out}
        total += len(before)
        removed.update(label for _, _, label in before - after)
        added.update(label for _, _, label in after - before)
    return {"documents": len(docs), "gold_spans": total, "changed": sum(removed.values()),
            "removed_by_label": dict(sorted(removed.items())), "added_by_label": dict(sorted(added.items()))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "repair_gold.json")
    args = ap.parse_args()
    result = {"benchmark": "repair_gold", "splits": {s: changes(args.data, s) for s in ("train", "dev")}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for split, r in result["splits"].items():
        print(f"{split}: {r['changed']} of {r['gold_spans']} gold spans changed {r['removed_by_label']}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
