"""Utility of sanitized training data for document classification: which journal (medical specialty) published a
MEDDOCAN clinical case, learned from sanitized notes and tested on the original ones.

**The task and where its labels come from.** MEDDOCAN's notes are clinical case reports from Spanish medical journals
(SciELO) to which the corpus authors added synthetic PHI. Every note's id is the SciELO article id (PID) with a case
number: ``S0004-06142005000500011-1`` = ``S`` + the journal's ISSN ``0004-0614`` + year ``2005`` + issue and article
+ ``-1``. The label is that ISSN: the journal the case was published in, hence its specialty (ophthalmology,
digestive diseases, urology, paediatrics, maxillofacial surgery, nephrology, ...). No label is written by hand: it
is read from the id by :func:`journal_of`, and the note's text never contains the id. Only journals with at least
``--min-notes`` notes in MEDDOCAN train + dev are kept (default 30: 10 journals, 548 notes), so that each of 10
folds holds about 3 or more notes of every class. Notes from one article (``-1``, ``-2``, ...) are a group that never
spans two folds (``protocol.group_field``); the folds are stratified by journal.

**Why it is fair.** The label is a property of the clinical content (the specialty), not of the PHI: the names,
dates, addresses and ids are synthetic and were added independently of the journal; 7 of the 17 134 gold PHI spans
of train + dev name a specialty (an e-mail address ``urología...``, an ``Instituto de Oftalmología``). So
de-identification removes almost no label cue, while the strong techniques (word swap, synonyms, aggregation)
change the clinical wording itself: the experiment measures what the issue asks — what each technique costs a
downstream model — rather than a label that a technique trivially deletes or leaks. One exception, a finding rather
than a flaw: the regional journal ``1137-6627`` (of the health service of Navarra) has ``Navarra``/``Pamplona`` in
26 of its 41 notes, always inside PHI spans (places, hospitals), against 13 of the other 507 notes; a model trained
on the original notes uses that geographic cue, one trained on de-identified notes cannot. Two of the journals
(``0004-0614`` and ``0210-4806``) are both urology journals; telling them apart from the text is near impossible,
which caps the macro F1 below 1 for every technique alike.

``--label sex`` runs the other document label that the gold annotations give: the patient's sex, from the note's
``SEXO_SUJETO_ASISTENCIA`` spans (``H``/``varón``/``hombre``/``niño``/``masculino`` vs ``M``/``mujer``/``niña``/
``femenino``/``F``...; a note without one, or with both, is left out). Here de-identification *does* remove the
label's most direct cue (the sex spans become surrogates, tags or ``XXXX``), which is a finding in itself: Spanish
grammatical agreement (``intervenido``/``intervenida``) still carries it.

**Protocol** (:mod:`clinanon.utility`): 10-fold cross-validation on train + dev; the training folds only are
rewritten by each technique, TF-IDF (1-2-grams in at least ``--min-df`` = 2 training notes, sublinear tf) + logistic
regression (C = 10) is trained on them and
tested on the original held-out fold; a stochastic technique runs ``--seeds`` times per fold (5: 50 scores), a
deterministic one once (10 scores); macro F1 per run; two-sided Mann-Whitney U of each technique's scores against the
original's, Holm-corrected over the techniques; effect size: rank-biserial correlation (Cliff's delta).

Techniques: ``original``; ``deidentify`` on the gold spans with ``surrogate``, ``tag``, ``redact`` and
``neighbors`` (10 nearest neighbours in PPMI-SVD vectors learned from MEDDOCAN train texts, as in
``benchmarks/utility_meddocan.py``); ``number_mask``; ``sentence_shuffle``; ``word_swap`` 30 % and 100 %;
``synonyms`` 30 % (the Spanish MyThes thesaurus, when ``scripts/build_thesauri.py`` has built it); ``aggregate``
of 2, 3 and 4 training notes of the same journal (the German study: -37 F1 for 4 notes).

Writes ``benchmarks/results/utility_classification.json`` (or ``--out``: the table of :mod:`clinanon.utility`, the
data's classes, and each technique's per-class F1 over its pooled runs) and the box plot next to it (``.png``); the
run folder (``--work``, default ``out/utility_classification``, git-ignored) holds the per-run cache, so a re-run
with the same arguments recomputes nothing and gives the same numbers.

Usage::

    nice -n 10 python benchmarks/utility_classification.py [--data ../shared/data] [--workers 1] [--seeds 5]
    python benchmarks/utility_classification.py --folds 3 --seeds 1 --techniques original,tag,aggregate_4 \\
        --out /tmp/ucls.json --work /tmp/ucls      # smoke run
    nice -n 10 python benchmarks/utility_classification.py --label sex
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    # one BLAS thread per worker: the folds are the parallelism (several threads per fit made it 3x slower on 2 cores)
    os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parents[1]

#: a SciELO article id: "S", the journal's ISSN (NNNN-NNNC), then year, issue and article digits
_PID = re.compile(r"^S(\d{4}-\d{3}[\dXx])\d{4}")
_CASE = re.compile(r"-\d+$")
_MALE = {"h", "hombre", "varón", "varon", "niño", "n iño", "masculino", "v"}
_FEMALE = {"m", "mujer", "niña", "femenino", "femenina", "f", "hembra", "anciana"}


def journal_of(doc_id: str) -> str | None:
    """The ISSN of the journal of a SciELO-id'd note (``S0004-06142005000500011-1`` -> ``0004-0614``); None if the
    id is not a SciELO PID."""
    m = _PID.match(doc_id)
    return m.group(1).upper() if m else None


def article_of(doc_id: str) -> str:
    """The article of a note: its id without the case number (``...00011-2`` -> ``...00011``)."""
    return _CASE.sub("", doc_id)


def sex_of(text: str, spans: Sequence[Any], label: str = "SEXO_SUJETO_ASISTENCIA") -> str | None:
    """``"male"`` / ``"female"`` from a note's gold sex spans (normalised words); None when it has none, only words
    of neither list, or both sexes."""
    seen = set()
    for s in spans:
        if s.label != label:
            continue
        word = " ".join(text[s.start:s.end].lower().split()).strip(".")
        if word in _MALE:
            seen.add("male")
        elif word in _FEMALE:
            seen.add("female")
    return seen.pop() if len(seen) == 1 else None


def labelled_notes(docs: Sequence[Any], label: str, min_notes: int) -> tuple[list[Any], dict[str, Any]]:
    """The notes that get a label (``meta.label``; ``meta.article`` for the folds), and what was left out."""
    out = []
    unlabelled = 0
    for d in docs:
        value = journal_of(d.id) if label == "journal" else sex_of(d.text, d.spans)
        if value is None:
            unlabelled += 1
            continue
        out.append(d.with_meta(label=value, article=article_of(d.id)))
    counts = Counter(d.meta["label"] for d in out)
    kept = {k for k, n in counts.items() if n >= min_notes}
    small = sorted(k for k in counts if k not in kept)
    out = [d for d in out if d.meta["label"] in kept]
    info = {"notes": len(out), "classes": dict(sorted(Counter(d.meta["label"] for d in out).items())),
            "unlabelled_notes": unlabelled, "classes_below_min_notes": len(small),
            "notes_in_classes_below_min_notes": sum(counts[k] for k in small), "min_notes": min_notes,
            "articles": len({d.meta["article"] for d in out})}
    return out, info


#: the order techniques run in (the issue's strongest ones early: a run cut short still has them)
_ORDER = ("original", "surrogate", "tag", "redact", "aggregate_2", "aggregate_3", "aggregate_4", "word_swap_100",
          "word_swap_30", "synonyms_30", "number_mask", "sentence_shuffle", "neighbors")


def techniques(vectors: Path | None, have_es_thesaurus: bool) -> dict[str, dict[str, Any]]:
    """The techniques of ``utility_meddocan.py`` and aggregation of 2, 3, 4 notes of one label, in :data:`_ORDER`."""
    from utility_meddocan import techniques as ner_techniques

    table = {**ner_techniques(vectors, have_es_thesaurus),
             **{f"aggregate_{n}": {"technique": "aggregate", "size": n} for n in (2, 3, 4)}}
    return {name: table[name] for name in _ORDER if name in table}


def per_class_f1(work: Path, names: Sequence[str]) -> dict[str, dict[str, float]]:
    """Per technique, each class's F1 over all its runs' test predictions pooled (from the run folder's unit files):
    where a technique loses, by class."""
    out: dict[str, dict[str, float]] = {}
    for name in names:
        pairs = [tuple(p) for f in sorted((work / "units" / name).glob("*.json"))
                 for p in json.loads(f.read_text(encoding="utf-8"))["per_doc"]]
        scores = {}
        for lab in sorted({g for g, _ in pairs}):
            tp = sum(1 for g, p in pairs if g == lab and p == lab)
            wrong = sum(1 for g, p in pairs if (g == lab) != (p == lab))
            scores[lab] = round(2 * tp / (2 * tp + wrong), 4) if tp else 0.0
        out[name] = scores
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--label", choices=("journal", "sex"), default="journal")
    ap.add_argument("--min-notes", type=int, default=30, help="classes with fewer notes in train + dev are left out")
    ap.add_argument("--out", type=Path, default=None,
                    help="default: benchmarks/results/utility_classification[_sex].json")
    ap.add_argument("--work", type=Path, default=None, help="default: out/utility_classification[_sex]")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--min-df", type=int, default=2, help="TF-IDF: n-grams in fewer training notes are dropped")
    ap.add_argument("--seeds", type=int, default=5, help="runs of each stochastic technique per fold")
    ap.add_argument("--techniques", default="all", help="comma-separated names, or all")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args()
    suffix = "" if args.label == "journal" else f"_{args.label}"
    out_path: Path = args.out or ROOT / "benchmarks" / "results" / f"utility_classification{suffix}.json"
    work: Path = args.work or ROOT / "out" / f"utility_classification{suffix}"
    from clinanon import io as cio
    from clinanon.utility import markdown_table, run_utility
    from utility_meddocan import select, technique_inputs

    train = args.data / "meddocan" / "train" / "brat"
    dev = args.data / "meddocan" / "dev" / "brat"
    if not train.is_dir() or not dev.is_dir():
        sys.exit(f"MEDDOCAN not found under {args.data}")
    t0 = time.perf_counter()
    docs = sorted([*cio.read(train, "brat"), *cio.read(dev, "brat")], key=lambda d: d.id)
    notes, info = labelled_notes(docs, args.label, args.min_notes)
    work.mkdir(parents=True, exist_ok=True)
    data_path = work / "notes.jsonl"
    cio.write(notes, data_path, "jsonl")

    wanted, vectors, have_es, remarks = technique_inputs(args.techniques, train, work)
    table_of = techniques(vectors, have_es)
    chosen = select(table_of, wanted)
    config: dict[str, Any] = {
        "name": f"meddocan-{args.label}-classification", "language": "es", "seed": 0, "output": str(work),
        "data": {"train": str(data_path), "train_format": "jsonl"},
        "task": {"type": "classification", "label_field": "label", "label_scheme": "meddocan",
                 "classifier": {"min_df": args.min_df}},
        "protocol": {"folds": args.folds, "technique_seeds": args.seeds, "workers": args.workers,
                     "group_field": "article"},
        "techniques": [{"name": n, **table_of[n]} for n in chosen],
    }
    table = run_utility(config, progress=not args.no_progress)
    plot = work / "boxplot.png"
    plot_out = out_path.with_suffix(".png")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    if plot.is_file():
        shutil.copyfile(plot, plot_out)
    label_source = ("the journal's ISSN in the note's SciELO id (S<ISSN><year>...)" if args.label == "journal"
                    else "the note's gold SEXO_SUJETO_ASISTENCIA spans (male/female; none or both: left out)")
    report = {
        "benchmark": "utility_classification", "python": platform.python_version(), "machine": platform.machine(),
        "command": " ".join(sys.argv), "corpus": "MEDDOCAN train + dev (CC-BY 4.0)", "label": args.label,
        "label_source": label_source, "data": info, "classifier": "TF-IDF (1-2-grams in at least "
        f"{args.min_df} training notes, sublinear tf) + logistic regression (C = 10)", "notes": remarks,
        "seconds_total": round(time.perf_counter() - t0, 1), "plot": plot_out.name if plot.is_file() else None,
        "per_class_f1_pooled": per_class_f1(work, [r["technique"] for r in table["rows"]]),
        "table": table,
    }
    out_path.write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(markdown_table(table))
    print(f"wrote {out_path} ({report['seconds_total']} s)")


if __name__ == "__main__":
    main()
