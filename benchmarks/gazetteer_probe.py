"""Gazetteer-only detection on MEDDOCAN: overlap recall/precision, throughput and memory.

Pipeline per document: ``GazetteerDetector("es").analyze`` -> ``Resolver().resolve`` -> ``propagate`` (names).
Canonical predictions are compared with gold by character overlap: ``NAME*`` with any of the three MEDDOCAN
name labels, ``LOCATION.CITY`` with TERRITORIO, ``LOCATION.COUNTRY`` with PAIS, ``LOCATION.HOSPITAL`` with
HOSPITAL. Writes JSON (default ``benchmarks/results/gazetteer_probe_<split>.json``).

    python benchmarks/gazetteer_probe.py --split dev
    python benchmarks/gazetteer_probe.py --split train --collisions 60   # design aid: non-PHI hits by word

``--collisions`` prints gazetteer words (list entries, not document text) that most often hit outside gold PHI.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections import Counter
from pathlib import Path

from clinanon.detect.gazetteer import GazetteerDetector
from clinanon.document import Document, Span
from clinanon.steps.propagate import propagate
from clinanon.steps.resolve import Resolver
from clinanon.text import tokenize

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("CLINANON_SHARED_DATA", REPO.parent / "shared" / "data")) / "meddocan"

GOLD_GROUPS = {
    "NAME": ("NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO", "FAMILIARES_SUJETO_ASISTENCIA"),
    "LOCATION.CITY": ("TERRITORIO",),
    "LOCATION.COUNTRY": ("PAIS",),
    "LOCATION.HOSPITAL": ("HOSPITAL",),
}
REPORT_LABELS = ("NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO", "FAMILIARES_SUJETO_ASISTENCIA",
                 "TERRITORIO", "PAIS", "HOSPITAL")


def group_of(label: str) -> str | None:
    if label == "NAME" or label.startswith("NAME."):
        return "NAME"
    return label if label in GOLD_GROUPS else None


def read_brat(folder: Path) -> list[Document]:
    docs = []
    for txt in sorted(folder.glob("*.txt")):
        text = txt.read_text(encoding="utf-8")
        spans = []
        for line in txt.with_suffix(".ann").read_text(encoding="utf-8").splitlines():
            if not line.startswith("T"):
                continue
            _, info, _ = line.split("\t", 2)
            label, rest = info.split(" ", 1)
            if ";" in rest:
                continue
            a, b = rest.split()
            spans.append(Span(int(a), int(b), label))
        docs.append(Document(txt.stem, text, tuple(spans), {"lang": "es"}))
    return docs


def overlaps(s: Span, others: list[Span]) -> bool:
    return any(s.start < o.end and o.start < s.end for o in others)


def run(split: str, use_propagate: bool, collisions: int) -> dict[str, object]:
    docs = read_brat(DATA / split / "brat")
    t0 = time.perf_counter()
    det = GazetteerDetector("es")
    det.analyze("Hospital Universitario La Paz, Madrid, España. Juan García.")  # load the lists
    load_s = time.perf_counter() - t0
    resolver = Resolver()
    chars = sum(len(d.text) for d in docs)

    t_tok = t_det = t_res = t_prop = 0.0
    recall_hit: Counter[str] = Counter()
    recall_all: Counter[str] = Counter()
    prec_hit: Counter[str] = Counter()
    prec_all: Counter[str] = Counter()
    prec_any: Counter[str] = Counter()
    coll_bad: Counter[str] = Counter()
    coll_good: Counter[str] = Counter()
    for doc in docs:
        a = time.perf_counter()
        tokens = tokenize(doc.text, "es")
        b = time.perf_counter()
        cands = det.analyze(doc.text, tokens)
        c = time.perf_counter()
        spans = resolver.resolve(doc, cands)
        d = time.perf_counter()
        if use_propagate:
            spans = propagate(doc, spans, labels=("NAME",), tokens=tokens)
        e = time.perf_counter()
        t_tok += b - a
        t_det += c - b
        t_res += d - c
        t_prop += e - d
        gold = list(doc.spans)
        for g in gold:
            if g.label not in REPORT_LABELS:
                continue
            grp = next(k for k, v in GOLD_GROUPS.items() if g.label in v)
            hit = any(group_of(s.label) == grp and s.start < g.end and g.start < s.end for s in spans)
            keys = [g.label]
            if g.label == "TERRITORIO" and not any(c.isdigit() for c in doc.text[g.start:g.end]):
                keys.append("TERRITORIO (no digits)")  # postcodes are the pattern rules' job
            for key in keys:
                recall_all[key] += 1
                recall_hit[key] += hit
        for s in spans:
            grp = group_of(s.label)
            if grp is None:
                continue
            prec_all[grp] += 1
            compatible = [g for g in gold if g.label in GOLD_GROUPS[grp]]
            if overlaps(s, compatible):
                prec_hit[grp] += 1
            if overlaps(s, gold):
                prec_any[grp] += 1
        if collisions:
            for s in cands:
                word = doc.text[s.start:s.end]
                (coll_good if overlaps(s, gold) else coll_bad)[f"{word}\t{s.source}"] += 1

    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result: dict[str, object] = {
        "split": split,
        "documents": len(docs),
        "characters": chars,
        "propagation": use_propagate,
        "recall_overlap": {lab: {"gold": recall_all[lab], "found": recall_hit[lab],
                                 "recall": round(recall_hit[lab] / max(1, recall_all[lab]), 4)}
                           for lab in (*REPORT_LABELS, "TERRITORIO (no digits)")},
        "precision_overlap": {grp: {"predicted": prec_all[grp], "correct": prec_hit[grp],
                                    "precision": round(prec_hit[grp] / max(1, prec_all[grp]), 4),
                                    "precision_any_phi": round(prec_any[grp] / max(1, prec_all[grp]), 4)}
                              for grp in GOLD_GROUPS},
        "seconds": {"load_lists": round(load_s, 3), "tokenize": round(t_tok, 3), "detect": round(t_det, 3),
                    "resolve": round(t_res, 3), "propagate": round(t_prop, 3)},
        "chars_per_second": {
            "detect": round(chars / max(t_det, 1e-9)),
            "detect+resolve+propagate": round(chars / max(t_det + t_res + t_prop, 1e-9)),
            "with_tokenize": round(chars / max(t_tok + t_det + t_res + t_prop, 1e-9)),
        },
        "max_rss_mb": round(rss_mb, 1),
    }
    if collisions:
        rows = sorted(coll_bad, key=lambda k: (-coll_bad[k], k))[:collisions]
        for k in rows:
            print(f"{coll_bad[k]:4d} bad {coll_good[k]:4d} good  {k}", file=sys.stderr)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--split", default="dev", choices=("train", "dev"))
    ap.add_argument("--no-propagate", action="store_true")
    ap.add_argument("--collisions", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    if not (DATA / args.split / "brat").is_dir():
        sys.exit(f"MEDDOCAN {args.split} not found under {DATA} (set CLINANON_SHARED_DATA)")
    result = run(args.split, not args.no_propagate, args.collisions)
    out = args.out or REPO / "benchmarks" / "results" / f"gazetteer_probe_{args.split}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
