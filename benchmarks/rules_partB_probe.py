"""Dev probe for the contact / identifier / address rules (rules part B).

Measures, per label, exact and overlap precision/recall of ``clinanon.detect.rules.{contacts,identifiers,
addresses}`` on MEDDOCAN dev (Spanish) and on the synthetic English PII dev set, plus the throughput (chars/s)
of each module on the MEDDOCAN dev texts (document by document, and all of them concatenated). Writes JSON (default
``benchmarks/results/rules_partB_probe.json``) and prints a table. No document text is printed.

    python benchmarks/rules_partB_probe.py [--data ../shared/data] [--split dev] [--min-score 0.5]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from clinanon.detect.rules import addresses, contacts, identifiers
from clinanon.document import Span

REPO = Path(__file__).resolve().parents[1]
MODULES = {"contacts": contacts, "identifiers": identifiers, "addresses": addresses}

# native label -> predicate over predicted spans
SpanPred = Callable[[Span], bool]


def _label(*labels: str) -> SpanPred:
    return lambda s: s.label in labels


MEDDOCAN_MAP: dict[str, SpanPred] = {
    "NUMERO_TELEFONO": _label("CONTACT.PHONE"),
    "NUMERO_FAX": _label("CONTACT.FAX"),
    "CORREO_ELECTRONICO": _label("CONTACT.EMAIL"),
    "ID_SUJETO_ASISTENCIA": _label("ID.MEDICALRECORD"),
    # MEDDOCAN also tags words such as "lactante" or "viudo" as ID_SUJETO_ASISTENCIA; this row scores the ids only
    "ID_SUJETO_ASISTENCIA[numeric]": _label("ID.MEDICALRECORD"),
    "ID_ASEGURAMIENTO": _label("ID.HEALTHPLAN", "ID.SSN"),
    "ID_TITULACION_PERSONAL_SANITARIO": _label("ID.LICENSE"),
    "ID_CONTACTO_ASISTENCIAL": _label("ID.ACCOUNT"),
    "CALLE": _label("LOCATION.STREET"),
    "TERRITORIO": _label("LOCATION.ZIP"),  # gold restricted to postcode-like spans (they contain a digit)
}
ENGLISH_MAP: dict[str, SpanPred] = {
    "EMAIL_ADDRESS": _label("CONTACT.EMAIL"),
    "PHONE_NUMBER": _label("CONTACT.PHONE", "CONTACT.FAX"),
    "IP_ADDRESS": _label("CONTACT.IPADDR"),
    "US_SSN": _label("ID.SSN"),
    "STREET_ADDRESS": _label("LOCATION.STREET"),
    "ZIP_CODE": _label("LOCATION.ZIP"),
    "CREDIT_CARD": lambda s: s.label == "ID.ACCOUNT" and ":credit_card" in s.source,
    "IBAN_CODE": lambda s: s.label == "ID.ACCOUNT" and ":iban" in s.source,
    "DOMAIN_NAME": _label("CONTACT.URL"),
}


def _has_digit(s: str) -> bool:
    return any(c.isdigit() for c in s)


def read_brat(folder: Path) -> list[tuple[str, str, list[tuple[int, int, str]]]]:
    docs = []
    for txt in sorted(folder.glob("*.txt")):
        text = txt.read_text(encoding="utf-8")
        gold = []
        ann = txt.with_suffix(".ann")
        for line in ann.read_text(encoding="utf-8").splitlines():
            if not line.startswith("T"):
                continue
            _, info, _ = line.split("\t", 2)
            parts = info.split()
            gold.append((int(parts[1]), int(parts[-1]), parts[0]))
        docs.append((txt.stem, text, gold))
    return docs


def read_english(path: Path) -> list[tuple[str, str, list[tuple[int, int, str]]]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [(str(i), d["full_text"], [(s["start_position"], s["end_position"], s["entity_type"])
                                      for s in d["spans"]]) for i, d in enumerate(data)]


def run(lang: str, text: str) -> list[Span]:
    out: list[Span] = []
    for mod in MODULES.values():
        for r in mod.recognizers(lang):
            out.extend(r.analyze(text))
    return out


def _prf(tp_p: int, n_p: int, tp_g: int, n_g: int) -> dict[str, float]:
    p = tp_p / n_p if n_p else 1.0
    r = tp_g / n_g if n_g else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4)}


def evaluate(docs: Iterable[tuple[str, str, list[tuple[int, int, str]]]], lang: str, mapping: dict[str, SpanPred],
             min_score: float, gold_filter: dict[str, Callable[[str], bool]] | None = None) -> dict[str, object]:
    counts = {lab: {"gold": 0, "pred": 0, "exact_tp": 0, "ov_pred": 0, "ov_gold": 0, "pred_any_gold": 0}
              for lab in mapping}
    for _id, text, gold in docs:
        preds = [s for s in run(lang, text) if s.score >= min_score]
        all_gold = [(a, b) for a, b, _ in gold]
        for lab, pred_fn in mapping.items():
            keep = (gold_filter or {}).get(lab)
            native = lab.split("[")[0]
            g = [(a, b) for a, b, lb in gold if lb == native and (keep is None or keep(text[a:b]))]
            g_all = [(a, b) for a, b, lb in gold if lb == native]
            p = sorted({(s.start, s.end) for s in preds if pred_fn(s)})
            c = counts[lab]
            c["gold"] += len(g)
            c["pred"] += len(p)
            gs = set(g_all)
            c["exact_tp"] += sum(1 for x in p if x in gs)
            c["ov_pred"] += sum(1 for a, b in p if any(a < gb and ga < b for ga, gb in g_all))
            c["ov_gold"] += sum(1 for ga, gb in g if any(a < gb and ga < b for a, b in p))
            c["pred_any_gold"] += sum(1 for a, b in p if any(a < gb and ga < b for ga, gb in all_gold))
    result: dict[str, object] = {}
    for lab, c in counts.items():
        exact_gold_tp = min(c["exact_tp"], c["gold"])
        result[lab] = {
            "gold": c["gold"], "pred": c["pred"],
            "exact": _prf(c["exact_tp"], c["pred"], exact_gold_tp, c["gold"]),
            "overlap": _prf(c["ov_pred"], c["pred"], c["ov_gold"], c["gold"]),
            "pred_overlapping_any_gold": c["pred_any_gold"],
        }
    return result


def throughput(texts: list[str], lang: str, repeat: int = 3) -> dict[str, float]:
    total = sum(len(t) for t in texts)
    out: dict[str, float] = {}
    for name, mod in MODULES.items():
        dets = mod.recognizers(lang)
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            for t in texts:
                for d in dets:
                    d.analyze(t)
            best = min(best, time.perf_counter() - t0)
        out[name] = round(total / best)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for t in texts:
            run(lang, t)
        best = min(best, time.perf_counter() - t0)
    out["all_partB"] = round(total / best)
    big = "\n".join(texts)  # one concatenated text: no per-document overhead
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        run(lang, big)
        best = min(best, time.perf_counter() - t0)
    out["all_partB_concatenated"] = round(len(big) / best)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--split", default="dev")
    ap.add_argument("--min-score", type=float, default=0.5)
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "rules_partB_probe.json")
    args = ap.parse_args()

    med = read_brat(args.data / "meddocan" / args.split / "brat")
    eng = read_english(args.data / "pii-synth-en" / "dev.json")
    report = {
        "min_score": args.min_score,
        "meddocan_split": args.split,
        "meddocan": evaluate(med, "es", MEDDOCAN_MAP, args.min_score,
                             gold_filter={"TERRITORIO": _has_digit, "ID_SUJETO_ASISTENCIA[numeric]": _has_digit}),
        "pii_synth_en": evaluate(eng, "en", ENGLISH_MAP, args.min_score),
        "chars_per_second_meddocan": throughput([t for _, t, _ in med], "es"),
        "meddocan_chars": sum(len(t) for _, t, _ in med),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    for corpus in ("meddocan", "pii_synth_en"):
        print(f"\n{corpus} ({args.split if corpus == 'meddocan' else 'dev'}, min_score={args.min_score})")
        print(f"{'label':34} {'gold':>5} {'pred':>5}   exact P   R    F1  | overlap P   R    F1")
        for lab, r in report[corpus].items():  # type: ignore[union-attr]
            e, o = r["exact"], r["overlap"]
            print(f"{lab:34} {r['gold']:5d} {r['pred']:5d}   {e['precision']:.3f} {e['recall']:.3f} {e['f1']:.3f}"
                  f" | {o['precision']:.3f} {o['recall']:.3f} {o['f1']:.3f}")
    print("\nchars/s on MEDDOCAN", args.split, report["chars_per_second_meddocan"])
    print("wrote", args.out)


if __name__ == "__main__":
    main()
