"""The ``surrogate`` operator on MEDDOCAN dev with the gold spans as detections.

Writes ``benchmarks/results/surrogates.json`` (or ``--out``) and prints a summary. Measures:

* **consistency** — the corpus run twice with the same key, serially and with 2 worker processes: identical
  outputs; with another key: the share of surrogates equal to the first key's, overall and per category (small
  choice spaces — an age moves by +-1..2, a date by +-7..14 days, a city stays in its province — coincide by
  design, so the share is also given for names, ids, contacts and streets);
* **leaks** — for every replaced span, whether its original (case- and accent-folded, as a whole word sequence)
  occurs in the output document: anywhere, inside any surrogate, and split into *reveals* (the span's own
  surrogate, or any surrogate of another kind) and *shift collisions* (a date/age surrogate that the
  interval-preserving shift moved onto another original date/age of the same document). Kept spans (sex,
  relation words, ``OTHER``, spans without a date/number) are counted apart;
* **date intervals** — documents paired into patients (``patient_id``), patient scope: for every pair of full
  dates of one patient (across its two documents too), is the interval in days unchanged?
* **realism** — names drawn from the note's locale lists; and, when the rules detector is importable
  (``clinanon.pipeline.Pipeline`` with ``detectors = ["rules"]``), the share of surrogates per category that the
  rules detector finds again with the same category (and the same share for the original spans, for reference);
* **throughput** — rules pipeline + ``tag`` vs. rules pipeline + ``surrogate`` (steady state, best of
  ``--repeat``), and the cold first pass (lists loaded lazily).

Usage: ``python benchmarks/surrogates.py [--data ../shared/data] [--limit N] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import os
import platform
import re
import sys
import time
from pathlib import Path
from typing import Any

from clinanon import __version__
from clinanon.document import Document, SanitizedDocument
from clinanon.io.brat import read_brat
from clinanon.taxonomy import get_scheme, parent
from clinanon.transform import Anonymizer
from clinanon.transform.surrogate import SurrogateOperator
from clinanon.transform.surrogate._data import given_names, surnames
from clinanon.transform.surrogate._text import normalize
from clinanon.transform.surrogate.dates import parse_date

ROOT = Path(__file__).resolve().parents[1]
KEY_A = "6b" * 32
KEY_B = "b6" * 32
SCHEME = get_scheme("meddocan")
LARGE_SPACES = ("NAME", "ID", "CONTACT")


def _anon(key: str, scope: str = "document", **kw: Any) -> Anonymizer:
    return Anonymizer({"*": SurrogateOperator(key=key, scope=scope, **kw)}, scheme="meddocan", lang="es")


def _run(key: str, docs: list[Document], scope: str = "document") -> list[SanitizedDocument]:
    anon = _anon(key, scope)
    return [anon.anonymize(d) for d in docs]


_WORKER: Anonymizer | None = None


def _init(key: str) -> None:
    global _WORKER
    _WORKER = _anon(key)


def _one(doc: Document) -> str:
    assert _WORKER is not None
    return _WORKER.anonymize(doc).text


def _category(label: str) -> str:
    return SCHEME.category(label)


def consistency(docs: list[Document]) -> dict[str, Any]:
    a = _run(KEY_A, docs)
    a2 = _run(KEY_A, docs)
    ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with ctx.Pool(2, initializer=_init, initargs=(KEY_A,)) as pool:
        par = pool.map(_one, docs, chunksize=4)
    b = _run(KEY_B, docs)
    per: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for x, y in zip(a, b, strict=True):
        for r, q in zip(x.replacements, y.replacements, strict=True):
            cat = r.category
            per[cat][1] += 1
            per[cat][0] += x.text[r.out_start:r.out_end] == y.text[q.out_start:q.out_end]
    total = [sum(v[0] for v in per.values()), sum(v[1] for v in per.values())]
    large = [sum(v[0] for c, v in per.items() if parent(c) in LARGE_SPACES or c == "LOCATION.STREET"),
             sum(v[1] for c, v in per.items() if parent(c) in LARGE_SPACES or c == "LOCATION.STREET")]
    return {
        "same_key_identical": [o.text for o in a] == [o.text for o in a2],
        "two_workers_identical": [o.text for o in a] == par,
        "other_key_equal_share": round(total[0] / max(total[1], 1), 4),
        "other_key_equal_share_names_ids_contacts_streets": round(large[0] / max(large[1], 1), 4),
        "other_key_equal_by_category": {c: {"equal": v[0], "total": v[1], "share": round(v[0] / v[1], 4)}
                                        for c, v in sorted(per.items())},
    }


def leaks(docs: list[Document], outs: list[SanitizedDocument]) -> dict[str, Any]:
    kept: collections.Counter[str] = collections.Counter()
    replaced: collections.Counter[str] = collections.Counter()
    own = collections.Counter()
    anywhere: collections.Counter[str] = collections.Counter()
    reveal: collections.Counter[str] = collections.Counter()
    shift: collections.Counter[str] = collections.Counter()
    for d, o in zip(docs, outs, strict=True):
        done = {(r.start, r.end): r for r in o.replacements}
        out_norm = normalize(o.text)
        regions = [(r, normalize(o.text[r.out_start:r.out_end])) for r in o.replacements]
        for s in d.spans:
            cat = _category(s.label)
            r = done.get((s.start, s.end))
            if r is None:
                kept[cat] += 1
                continue
            replaced[cat] += 1
            orig = normalize(d.text[s.start:s.end])
            if orig == normalize(o.text[r.out_start:r.out_end]):
                own[cat] += 1
            pat = re.compile(r"(?<!\w)" + re.escape(orig) + r"(?!\w)")
            if pat.search(out_norm):
                anywhere[cat] += 1
            hits = [q for q, text in regions if pat.search(text)]
            if not hits:
                continue
            series = parent(cat) in ("DATE", "AGE") and all(parent(q.category) in ("DATE", "AGE", "NAME")
                                                            and q is not r for q in hits)
            (shift if series else reveal)[cat] += 1
    n = sum(replaced.values())
    return {
        "replaced": n, "kept": sum(kept.values()), "kept_by_category": dict(sorted(kept.items())),
        "surrogate_equals_own_original": sum(own.values()),
        "reveals": sum(reveal.values()), "reveals_by_category": dict(sorted(reveal.items())),
        "shift_collisions": sum(shift.values()), "shift_collisions_by_category": dict(sorted(shift.items())),
        "original_anywhere_in_output": sum(anywhere.values()),
        "original_anywhere_by_category": dict(sorted(anywhere.items())),
        "note": "'anywhere' also counts unannotated mentions in the untouched text; 'reveals' must be 0",
    }


def intervals(docs: list[Document]) -> dict[str, Any]:
    paired = [d.with_meta(patient_id=f"P{i // 2}") for i, d in enumerate(docs)]
    outs = _run(KEY_A, paired, scope="patient")
    by_patient: dict[str, list[tuple[Any, Any]]] = collections.defaultdict(list)
    for d, o in zip(paired, outs, strict=True):
        for r in o.replacements:
            if r.category != "DATE":
                continue
            p0 = parse_date(d.text[r.start:r.end], "es")
            p1 = parse_date(o.text[r.out_start:r.out_end], "es")
            if p0 is not None and p1 is not None and p0.kind == "full" and p1.kind == "full":
                by_patient[d.meta["patient_id"]].append((p0.date, p1.date))
    pairs = same = 0
    for dates in by_patient.values():
        for i in range(len(dates)):
            for j in range(i + 1, len(dates)):
                pairs += 1
                same += (dates[j][0] - dates[i][0]) == (dates[j][1] - dates[i][1])
    return {"patients": len(by_patient), "full_date_pairs": pairs, "interval_kept": same,
            "share": round(same / max(pairs, 1), 4)}


def name_realism(docs: list[Document], outs: list[SanitizedDocument]) -> dict[str, Any]:
    lists = {normalize(n) for g in ("F", "M", "N") for n in given_names("es", g).items}
    lists |= {normalize(n) for n in surnames("es").items}
    words = found = 0
    for o in outs:
        for r in o.replacements:
            if parent(r.category) != "NAME":
                continue
            for w in re.findall(r"[^\W\d_]{2,}", o.text[r.out_start:r.out_end]):
                if w.lower() in ("de", "del", "la", "las", "los", "y", "dr", "dra", "años"):
                    continue
                words += 1
                found += normalize(w) in lists
    return {"name_words": words, "from_es_locale_lists": found, "share": round(found / max(words, 1), 4)}


def reparse(docs: list[Document], outs: list[SanitizedDocument]) -> dict[str, Any]:
    try:
        from clinanon.config import Config
        from clinanon.pipeline import Pipeline

        nlp = Pipeline(Config.from_dict({"language": "es", "detectors": {"use": ["rules"]}}))
    except Exception as e:  # the rules detector is optional here
        return {"measured": False, "reason": f"rules pipeline not available ({type(e).__name__})"}

    def share(pairs: list[tuple[Document, list[tuple[int, int, str]]]]) -> dict[str, dict[str, Any]]:
        per: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
        for doc, regions in pairs:
            pred = [(s.start, s.end, nlp._category(s.label)) for s in nlp.detect_spans(doc)]
            for a, b, cat in regions:
                over = [c for x, y, c in pred if x < b and a < y]
                per[cat][2] += 1
                per[cat][0] += any(c == cat for c in over)
                per[cat][1] += any(parent(c) == parent(cat) for c in over)
        return {c: {"total": v[2], "same_category": round(v[0] / v[2], 4), "same_type": round(v[1] / v[2], 4)}
                for c, v in sorted(per.items())}

    surrogate_pairs = [(Document(o.id, o.text), [(r.out_start, r.out_end, r.category) for r in o.replacements])
                       for o in outs]
    original_pairs = [(Document(d.id, d.text), [(s.start, s.end, _category(s.label)) for s in d.spans]) for d in docs]
    return {"measured": True, "surrogates": share(surrogate_pairs), "originals_for_reference": share(original_pairs)}


def throughput(docs: list[Document], repeat: int) -> dict[str, Any]:
    try:
        from clinanon.config import Config
        from clinanon.pipeline import Pipeline
    except Exception as e:  # pragma: no cover
        return {"measured": False, "reason": type(e).__name__}
    cfg = Config.from_dict({"language": "es", "detectors": {"use": ["rules"]}})
    nlp = Pipeline(cfg)
    spans = [nlp.detect_spans(d) for d in docs]  # warm-up and the spans both runs share
    tag = Anonymizer({"*": {"operator": "tag", "template": "[{type}]"}}, lang="es")
    cold_op = SurrogateOperator(key=KEY_A)
    cold = Anonymizer({"*": cold_op}, lang="es")
    t0 = time.perf_counter()
    for d, s in zip(docs, spans, strict=True):
        cold.anonymize(d, s)
    cold_s = time.perf_counter() - t0

    def best(fn: Any) -> float:
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return min(times)

    detect_s = best(lambda: [nlp.detect_spans(d) for d in docs])
    tag_s = best(lambda: [tag.anonymize(d, s) for d, s in zip(docs, spans, strict=True)])
    sur_s = best(lambda: [cold.anonymize(d, s) for d, s in zip(docs, spans, strict=True)])
    return {
        "docs": len(docs), "spans": sum(len(s) for s in spans),
        "rules_detect_s": round(detect_s, 4), "tag_s": round(tag_s, 4), "surrogate_s": round(sur_s, 4),
        "surrogate_first_pass_s": round(cold_s, 4),
        "overhead_vs_rules_pipeline": round((sur_s - tag_s) / (detect_s + tag_s), 4),
        "overhead_first_pass": round((cold_s - tag_s) / (detect_s + tag_s), 4),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default_data = Path(os.environ.get("CLINANON_SHARED_DATA", ROOT.parent / "shared" / "data"))
    ap.add_argument("--data", type=Path, default=default_data)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "surrogates.json")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    folder = args.data / "meddocan" / "dev" / "brat"
    if not folder.is_dir():
        print(f"MEDDOCAN dev not found at {folder}", file=sys.stderr)
        return 2
    docs = [d for d in read_brat(folder) if isinstance(d, Document)][: args.limit]
    outs = _run(KEY_A, docs)
    result = {
        "clinanon": __version__, "python": platform.python_version(), "corpus": "MEDDOCAN dev (gold spans)",
        "documents": len(docs), "spans": sum(len(d.spans) for d in docs),
        "consistency": consistency(docs),
        "leaks": leaks(docs, outs),
        "date_intervals_patient_scope": intervals(docs),
        "names_from_locale": name_realism(docs, outs),
        "reparse_with_rules": reparse(docs, outs),
        "throughput": throughput(docs, args.repeat),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    c, lk = result["consistency"], result["leaks"]
    iv, tp = result["date_intervals_patient_scope"], result["throughput"]
    print(f"consistency: same key identical={c['same_key_identical']}, "
          f"2 workers identical={c['two_workers_identical']}, "
          f"other key equal={c['other_key_equal_share']:.2%} (names/ids/contacts/streets "
          f"{c['other_key_equal_share_names_ids_contacts_streets']:.2%})")
    print(f"leaks: replaced={lk['replaced']} kept={lk['kept']} own={lk['surrogate_equals_own_original']} "
          f"reveals={lk['reveals']} shift-collisions={lk['shift_collisions']} "
          f"anywhere={lk['original_anywhere_in_output']}")
    print(f"date intervals (patient scope): {iv['interval_kept']}/{iv['full_date_pairs']} kept")
    rp = result["reparse_with_rules"]
    if rp.get("measured"):
        for cat in ("DATE", "CONTACT.PHONE", "CONTACT.EMAIL", "ID.MEDICALRECORD", "ID.HEALTHPLAN", "ID.LICENSE"):
            if cat in rp["surrogates"]:
                s, o = rp["surrogates"][cat], rp["originals_for_reference"].get(cat, {})
                print(f"re-parse {cat}: surrogates {s['same_category']:.3f} (type {s['same_type']:.3f}), "
                      f"originals {o.get('same_category', float('nan')):.3f}")
    else:
        print(f"re-parse with rules: not measured ({rp.get('reason')})")
    if "overhead_vs_rules_pipeline" in tp:
        print(f"throughput: rules {tp['rules_detect_s']}s, tag {tp['tag_s']}s, surrogate {tp['surrogate_s']}s "
              f"-> +{tp['overhead_vs_rules_pipeline']:.1%} (first pass +{tp['overhead_first_pass']:.1%})")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
