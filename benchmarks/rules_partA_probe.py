"""Dev probe for the part-A rule detectors (dates, times, ages, sex, form fields) on MEDDOCAN.

Prints, per MEDDOCAN label, exact-match and overlap precision / recall of the rule spans mapped to that label,
and the throughput (chars/s) of each recognizer family on the concatenated texts. Never prints corpus text.

    python benchmarks/rules_partA_probe.py [--split dev] [--min-score 0.5] [--no-times] [--json out.json]
    python benchmarks/rules_partA_probe.py --adversarial     # seconds per ~1 MB adversarial input, per family
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

from clinanon.detect.rules import ages, dates, fields

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("CLINANON_SHARED_DATA", REPO.parent / "shared" / "data")) / "meddocan"

#: MEDDOCAN label -> canonical categories of rule spans that count for it
TARGETS: dict[str, tuple[str, ...]] = {
    "FECHAS": ("DATE",),
    "EDAD_SUJETO_ASISTENCIA": ("AGE",),
    "SEXO_SUJETO_ASISTENCIA": ("SEX",),
    "NOMBRE_SUJETO_ASISTENCIA": ("NAME.PATIENT",),
    "NOMBRE_PERSONAL_SANITARIO": ("NAME.DOCTOR",),
    "CALLE": ("LOCATION.STREET",),
    "TERRITORIO": ("LOCATION.CITY", "LOCATION.STATE", "LOCATION.ZIP"),
    "PAIS": ("LOCATION.COUNTRY",),
}


def load(split: str) -> list[tuple[str, str, list[tuple[int, int, str]]]]:
    folder = DATA / split / "brat"
    if not folder.is_dir():
        sys.exit(f"MEDDOCAN {split} not found at {folder} (set CLINANON_SHARED_DATA)")
    docs = []
    for txt in sorted(folder.glob("*.txt")):
        text = txt.read_text(encoding="utf-8")
        gold = []
        for line in txt.with_suffix(".ann").read_text(encoding="utf-8").splitlines():
            if line.startswith("T"):
                _, info, _ = line.split("\t", 2)
                label, start, end = info.split(" ")[:3]
                gold.append((int(start), int(end), label))
        docs.append((txt.stem, text, gold))
    return docs


def families(min_score: float, times: bool) -> dict[str, list]:
    return {
        "dates": dates.recognizers("es", min_score=min_score, times=times),
        "ages": ages.recognizers("es", min_score=min_score),
        "fields": fields.recognizers("es", min_score=min_score),
    }


def _best_of(n: int, fn) -> float:  # type: ignore[no-untyped-def]
    """The fastest of ``n`` runs of ``fn()``, in seconds (the machine may be shared)."""
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def prf(tp_p: int, n_pred: int, tp_g: int, n_gold: int) -> dict[str, float]:
    p = tp_p / n_pred if n_pred else 0.0
    r = tp_g / n_gold if n_gold else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(2 * p * r / (p + r), 4) if p + r else 0.0,
            "pred": n_pred, "gold": n_gold}


def adversarial() -> dict[str, dict[str, float]]:
    """Seconds each family (Spanish and English patterns) needs for ~1 MB adversarial inputs."""
    import random

    rng = random.Random(7)
    caps = ["Garcia", "Lopez", "Martinez", "Juan", "Maria", "Enero", "Mayo", "March", "Dr.", "Hospital"]
    inputs = {
        "100k capitalised words": " ".join(rng.choice(caps) for _ in range(100_000)),
        "1 MB line": ("a" * 60 + " ") * (1_000_000 // 61),
        "1 MB digit run": "1" * 1_000_000,
        "1/1/1 run": "1/" * 500_000,
        "1-1-1 run": "1-" * 500_000,
        "1.1.1 run": "1." * 500_000,
        "12:12 run": "12:" * 330_000,
        "month de month de": "enero de " * 110_000,
        "70 años y": "70 años y " * 100_000,
        "field labels on one line": "Nombre: Edad: Sexo: " * 50_000,
        "Dr. Dr. Dr.": "Dr. " * 250_000,
    }
    out: dict[str, dict[str, float]] = {}
    for name, text in inputs.items():
        row = {}
        for lang in ("es", "en"):
            for fam, recs in {"dates": dates.recognizers(lang), "ages": ages.recognizers(lang),
                              "fields": fields.recognizers(lang)}.items():
                t0 = time.perf_counter()
                for r in recs:
                    r.analyze(text)
                row[f"{fam}.{lang}"] = round(time.perf_counter() - t0, 3)
        out[name] = row
        print(f"{name:26} {len(text) / 1e6:5.2f} MB  " + "  ".join(f"{k}={v:.2f}s" for k, v in row.items()))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", default="dev")
    ap.add_argument("--min-score", type=float, default=0.5)
    ap.add_argument("--no-times", action="store_true", help="leave out the clock-time recognizer")
    ap.add_argument("--json", type=Path, help="also write the numbers to this JSON file")
    ap.add_argument("--adversarial", action="store_true", help="time ~1 MB adversarial inputs instead")
    args = ap.parse_args()
    if args.adversarial:
        res = adversarial()
        if args.json:
            args.json.write_text(json.dumps({"adversarial_seconds": res}, indent=2), encoding="utf-8")
        return

    docs = load(args.split)
    fams = families(args.min_score, not args.no_times)
    preds: list[list] = [[] for _ in docs]
    timing = {}
    total_chars = sum(len(t) for _, t, _ in docs)
    big = "\n".join(t for _, t, _ in docs)
    for fam, recs in fams.items():
        for i, (_, text, _) in enumerate(docs):
            for r in recs:
                preds[i].extend(r.analyze(text))
        timing[fam] = round(len(big) / _best_of(3, lambda recs=recs: [r.analyze(big) for r in recs]))
    every = [r for recs in fams.values() for r in recs]
    timing["all"] = round(len(big) / _best_of(3, lambda: [r.analyze(big) for r in every]))

    results: dict[str, dict] = {}
    for label, cats in TARGETS.items():
        n_gold = n_pred = ex_p = ex_g = ov_p = ov_g = 0
        by_source: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for (_, _, gold), pr in zip(docs, preds, strict=True):
            g = [(s, e) for s, e, lab in gold if lab == label]
            p = [sp for sp in pr if sp.label in cats]
            gset = set(g)
            pset = {(sp.start, sp.end) for sp in p}
            n_gold += len(g)
            n_pred += len(p)
            for sp in p:
                hit = (sp.start, sp.end) in gset
                ex_p += hit
                ov_p += any(sp.start < e and s < sp.end for s, e in g)
                by_source[sp.source][0] += 1
                by_source[sp.source][1] += hit
            ex_g += sum((s, e) in pset for s, e in g)
            ov_g += sum(any(sp.start < e and s < sp.end for sp in p) for s, e in g)
        results[label] = {"exact": prf(ex_p, n_pred, ex_g, n_gold), "overlap": prf(ov_p, n_pred, ov_g, n_gold),
                          "by_source": {k: {"pred": v[0], "exact_tp": v[1]} for k, v in sorted(by_source.items())}}

    print(f"MEDDOCAN {args.split}: {len(docs)} documents, {total_chars} chars, min_score={args.min_score}")
    print(f"{'label':28} {'gold':>5} {'pred':>5}  {'P exact':>7} {'R exact':>7}  {'P overl':>7} {'R overl':>7}")
    for label, res in results.items():
        ex, ov = res["exact"], res["overlap"]
        print(f"{label:28} {ex['gold']:5d} {ex['pred']:5d}  {ex['precision']:7.3f} {ex['recall']:7.3f}  "
              f"{ov['precision']:7.3f} {ov['recall']:7.3f}")
    print("throughput (chars/s): " + ", ".join(f"{k}={v:,}" for k, v in timing.items() if v))
    if args.json:
        args.json.write_text(json.dumps({"split": args.split, "min_score": args.min_score, "results": results,
                                         "chars_per_second": timing}, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
