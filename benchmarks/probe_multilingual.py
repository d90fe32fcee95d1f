"""Rules pipeline on the hand-written German / Dutch / Swedish probes (``tests/data/probe_<lang>[_fresh].json``).

**A smoke test, not a benchmark.** The probes are short synthetic clinical texts that we wrote ourselves
(discharge letters, ward notes, reports; invented names, places and checksum-valid invented identifiers) and
annotated ourselves. They show which kinds of PHI the rules miss in the letter layouts of these languages; they do
not estimate performance on real clinical corpora. The ``main`` set (``probe_<lang>.json``) was used while
writing the rules; the ``fresh`` set (``probe_<lang>_fresh.json``) was written at the same time and kept out of
sight while the rules were changed, so its numbers are the closer (still tiny, still self-written) held-out view.

Measures, per language and set: overlap-unlabelled precision / recall / F1 (a predicted span counts when it
overlaps any gold span, a gold span when any predicted span overlaps it) and, per gold category, the recall
(overlap, any label) and the labelled recall (overlap with a prediction of the same top-level type, ``NAME``,
``DATE``, ``LOCATION``...). Writes ``benchmarks/results/probe_multilingual.json`` (or ``--out``).

Usage: ``python benchmarks/probe_multilingual.py [--sets main fresh] [--errors]`` (``--errors`` prints the missed
and the spurious spans; the probes are synthetic, so printing their text is fine).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from clinanon import io as cio
from clinanon.config import Config
from clinanon.document import Document, Span
from clinanon.pipeline import Pipeline

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
LANGS = ("de", "nl", "sv")


def probe_path(lang: str, which: str = "main") -> Path:
    """The probe file of ``lang`` (``which`` = ``main`` | ``fresh``)."""
    return DATA / (f"probe_{lang}.json" if which == "main" else f"probe_{lang}_fresh.json")


def load(lang: str, which: str = "main") -> list[Document]:
    """The probe documents of ``lang`` (gold spans with canonical labels)."""
    docs = []
    for rec in cio.read(probe_path(lang, which), "presidio"):
        if isinstance(rec, Exception):
            raise rec
        docs.append(rec)
    return docs


def _top(label: str) -> str:
    return label.split(".", 1)[0]


def _overlaps(a: Span, spans: list[Span]) -> list[Span]:
    return [b for b in spans if a.start < b.end and b.start < a.end]


def score(gold: list[Document], pred: list[list[Span]]) -> dict:
    """Overlap-unlabelled P/R/F1 and per-category recall (any label / same top-level type)."""
    tp_p = n_p = tp_g = n_g = 0
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # gold, found, found with the same type
    for doc, spans in zip(gold, pred, strict=True):
        n_p += len(spans)
        tp_p += sum(1 for s in spans if _overlaps(s, list(doc.spans)))
        for g in doc.spans:
            hits = _overlaps(g, spans)
            row = per[g.label]
            row[0] += 1
            n_g += 1
            if hits:
                tp_g += 1
                row[1] += 1
                row[2] += any(_top(h.label) == _top(g.label) for h in hits)
    p = tp_p / n_p if n_p else 1.0
    r = tp_g / n_g if n_g else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {
        "documents": len(gold), "gold_spans": n_g, "pred_spans": n_p,
        "overlap_unlabeled": {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4),
                              "fp": n_p - tp_p, "fn": n_g - tp_g},
        "per_category": {lab: {"gold": g, "recall": round(k / g, 4), "recall_same_type": round(t / g, 4)}
                         for lab, (g, k, t) in sorted(per.items())},
    }


def run(lang: str, which: str = "main", *, errors: bool = False) -> dict:
    """Detect with the default rules pipeline of ``lang`` and score against the probe."""
    gold = load(lang, which)
    nlp = Pipeline(Config.from_dict({"language": lang, "label_scheme": "canonical"}))
    pred = [list(nlp.detect(Document(d.id, d.text)).spans) for d in gold]
    if errors:
        for d, spans in zip(gold, pred, strict=True):
            for g in d.spans:
                if not _overlaps(g, spans):
                    print(f"  FN {d.id:<8} {g.label:<20} {d.text[g.start:g.end]!r}")
            for s in spans:
                if not _overlaps(s, list(d.spans)):
                    print(f"  FP {d.id:<8} {s.label:<20} {d.text[s.start:s.end]!r}  [{s.source}]")
    return score(gold, pred)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=["main", "fresh"], choices=["main", "fresh"])
    ap.add_argument("--langs", nargs="+", default=list(LANGS), choices=list(LANGS))
    ap.add_argument("--errors", action="store_true", help="print missed / spurious spans (synthetic text)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "probe_multilingual.json")
    args = ap.parse_args()
    result: dict = {"benchmark": "probe_multilingual",
                    "note": "hand-written synthetic probes, a smoke test; not a benchmark of real clinical data",
                    "detector": "rules (default pipeline, canonical labels)", "results": {}}
    for which in args.sets:
        for lang in args.langs:
            if args.errors:
                print(f"[{lang} {which}]")
            r = run(lang, which, errors=args.errors)
            result["results"][f"{lang}_{which}"] = r
            o = r["overlap_unlabeled"]
            print(f"{lang} {which:<5} docs={r['documents']:<3} gold={r['gold_spans']:<4} P/R/F "
                  f"{o['precision']:.3f} / {o['recall']:.3f} / {o['f1']:.3f}  (fp={o['fp']}, fn={o['fn']})")
            for lab, c in r["per_category"].items():
                print(f"      {lab:<22} n={c['gold']:<3} R {c['recall']:.3f}  R same type {c['recall_same_type']:.3f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
