"""The rules and the default pipeline on clinanon's own invented Dutch, Swedish and English notes.

No real Dutch or Swedish clinical notes are shipped, so ``tests/data/nl-notes`` (27 notes) and
``tests/data/sv-notes`` (15 notes) were written by hand for this purpose (see their READMEs: invented text, BRAT,
canonical labels, annotated before any rule output was looked at); ``tests/data/nl-notes-2`` (120 short snippets in
the shape of a regression suite and 8 longer notes, written and annotated blind: by someone who had read neither
the first set nor the Dutch rules) is a second Dutch estimate, row ``dutch_notes_2``, the same code path.
``tests/data/en-notes`` (40 invented US clinical notes, written and annotated blind under the HIPAA Safe Harbor
convention) is a second unseen estimate
next to the PhysioNet nursing notes of ``benchmarks/real_notes.py``; ``tests/data/en-notes-2`` (40 more, of other
note types: ED, H&P, operative, radiology and pathology reports, letters, portal messages, psychiatry, pediatrics,
obstetrics, EMS, home health, forms) is a third, scored as its own row ``english_notes_2`` by the same code path;
``tests/data/en-notes-3`` (50 ICU and step-down nursing progress notes, PhysioNet span boundaries) is a fourth,
row ``english_notes_3``, the same code path; ``tests/data/en-notes-4`` (60 ICU notes of several hospitals, dense in
dates, transfers and places, the same convention) is a fifth, row ``english_notes_4``; ``tests/data/en-notes-5``
(60 ICU notes by writers of the South, Midwest, Mountain West and Pacific Northwest) a sixth, ``english_notes_5``.
This script scores on them:

* ``rules`` (``detectors.use = ["rules"]``) and ``default`` (the configuration's default detector for the
  language) pipelines;
* token-binary P/R/F (a token is PHI when a span covers any of its characters), token recall per gold label,
  entity overlap P/R/F (unlabelled, and by canonical type with per-type rows) and exact-span P/R/F.

The Dutch and Swedish notes' convention leaves out sex words, professions and clock times; predictions of those
(``SEX``, ``PROFESSION``, a ``DATE`` that is only a clock time) are dropped before scoring, as a profile would drop
them. The English notes are scored under the ``hipaa`` profile: gold and predictions both go through
:func:`clinanon.profiles.filter_documents` (ages up to 89, clock times, weekdays alone, sex, professions, states
and countries dropped), as ``benchmarks/real_notes.py`` scores the PhysioNet notes.
``tests/data/de-notes`` (20 invented German, Austrian and Swiss letters, written and annotated blind under
GraSCCo's convention) is the unseen estimate next to the GraSCCo dev letters, row ``german_notes``, scored as
``benchmarks/real_notes.py`` scores those: ``gdpr-strict``, clock-time predictions left out; ``tests/data/de-notes-2``
(25 more, of other document types: rehabilitation, referral, emergency, nursing, anaesthesia, pathology, laboratory,
ambulance, assessment, paediatric, obstetric and psychotherapy reports, more Austrian and Swiss) is a second, row
``german_notes_2``, scored by the same code path; ``tests/data/de-notes-3`` (30 discharge letters and reports of
many specialties with full letter heads, the kind GraSCCo holds) is a third, row ``german_notes_3``.
No note text is written or printed.

Usage: ``python benchmarks/own_notes.py [--out benchmarks/results/own_notes.json]``
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from collections.abc import Sequence
from pathlib import Path

from clinanon import __version__
from clinanon import io as cio
from clinanon.config import Config
from clinanon.document import Document
from clinanon.evaluate import evaluate
from clinanon.pipeline import Pipeline
from clinanon.profiles import is_time_of_day
from clinanon.taxonomy import get_scheme
from real_notes import _prf, token_recall_by_label, without_clock_times  # the real-notes benchmark's scoring
from real_notes import score as score_profile

ROOT = Path(__file__).resolve().parents[1]
CORPORA = {"nl": ROOT / "tests" / "data" / "nl-notes", "sv": ROOT / "tests" / "data" / "sv-notes",
           "nl2": ROOT / "tests" / "data" / "nl-notes-2", "nl3": ROOT / "tests" / "data" / "nl-notes-3",
           "nl4": ROOT / "tests" / "data" / "nl-notes-4", "nl5": ROOT / "tests" / "data" / "nl-notes-5",
           "en": ROOT / "tests" / "data" / "en-notes", "en2": ROOT / "tests" / "data" / "en-notes-2",
           "en3": ROOT / "tests" / "data" / "en-notes-3", "en4": ROOT / "tests" / "data" / "en-notes-4",
           "en5": ROOT / "tests" / "data" / "en-notes-5", "en6": ROOT / "tests" / "data" / "en-notes-6",
           "en7": ROOT / "tests" / "data" / "en-notes-7", "en8": ROOT / "tests" / "data" / "en-notes-8",
           "en9": ROOT / "tests" / "data" / "en-notes-9",
           "de": ROOT / "tests" / "data" / "de-notes", "de2": ROOT / "tests" / "data" / "de-notes-2",
           "de3": ROOT / "tests" / "data" / "de-notes-3", "de4": ROOT / "tests" / "data" / "de-notes-4",
           "de5": ROOT / "tests" / "data" / "de-notes-5"}
#: the language of each corpus key (a key is its language unless listed here)
LANGUAGE = {"nl2": "nl", "nl3": "nl", "nl4": "nl", "nl5": "nl", "en2": "en", "en3": "en", "en4": "en", "en5": "en",
            "en6": "en", "en7": "en", "en8": "en", "en9": "en", "de2": "de", "de3": "de", "de4": "de", "de5": "de"}
#: corpora scored under a legal profile (both sides filtered) instead of the NOT_ANNOTATED convention; the
#: invented German letters are scored as real_notes.py scores the GraSCCo letters: ``gdpr-strict`` (professions,
#: ages and weekdays with dates are PHI) with GraSCCo's own convention for clock times (PRED_CONVENTIONS)
PROFILES = {"en": "hipaa", "en2": "hipaa", "en3": "hipaa", "en4": "hipaa", "en5": "hipaa", "en6": "hipaa",
            "en7": "hipaa", "en8": "hipaa", "en9": "hipaa", "de": "gdpr-strict", "de2": "gdpr-strict",
            "de3": "gdpr-strict", "de4": "gdpr-strict", "de5": "gdpr-strict"}
#: result row of each corpus key, in output order
ROWS = {"nl": "dutch_notes", "nl2": "dutch_notes_2", "nl3": "dutch_notes_3", "nl4": "dutch_notes_4",
        "nl5": "dutch_notes_5", "sv": "swedish_notes",
        "en": "english_notes", "en2": "english_notes_2", "en3": "english_notes_3", "en4": "english_notes_4",
        "en5": "english_notes_5", "en6": "english_notes_6", "en7": "english_notes_7", "en8": "english_notes_8",
        "en9": "english_notes_9",
        "de": "german_notes",
        "de2": "german_notes_2", "de3": "german_notes_3", "de4": "german_notes_4",
        "de5": "german_notes_5"}
#: a corpus's own convention applied to the predictions before its profile scores them
PRED_CONVENTIONS = {"de": without_clock_times, "de2": without_clock_times, "de3": without_clock_times,
                    "de4": without_clock_times, "de5": without_clock_times}
#: categories the notes do not annotate (dropped from the predictions before scoring)
NOT_ANNOTATED = ("SEX", "PROFESSION")


def load(corpus: str) -> list[Document]:
    return sorted(cio.read(CORPORA[corpus], "brat", scheme="canonical"), key=lambda d: d.id)


def pipeline(lang: str, use: str) -> Pipeline:
    detectors = {"use": [use]} if use != "default" else {}
    return Pipeline(Config.from_dict({"language": lang, "label_scheme": "canonical", "detectors": detectors}))


def convention(doc: Document) -> Document:
    """``doc`` without the spans the notes' convention does not annotate."""
    keep = []
    for s in doc.spans:
        if s.label.split(".", 1)[0] in NOT_ANNOTATED:
            continue
        if s.label == "DATE" and is_time_of_day(doc.text[s.start:s.end]):
            continue
        keep.append(s)
    return doc.with_spans(keep)


def predict(nlp: Pipeline, docs: Sequence[Document]) -> list[Document]:
    return [convention(d) for d in nlp.pipe(docs, deidentify=False) if isinstance(d, Document)]


def score(gold: Sequence[Document], pred: Sequence[Document], lang: str) -> dict:
    rep = evaluate(gold, pred, lang=lang, scheme=get_scheme("canonical"), label_map="type").to_dict()
    m = rep["measures"]
    per_type = {lab: {k: round(v[k], 4) if isinstance(v[k], float) else v[k]
                      for k in ("precision", "recall", "f1", "tp", "fp", "fn")}
                for lab, v in sorted(m["entity_overlap"]["per_label"].items())}
    return {"documents": len(gold), "gold_spans": rep["gold_spans"], "pred_spans": rep["pred_spans"],
            "token_binary": _prf(m["token_binary"]),
            "token_recall_by_gold_label": token_recall_by_label(gold, pred, lang),
            "entity_overlap_unlabeled": _prf(m["entity_overlap_unlabeled"]),
            "entity_overlap_by_type": _prf(m["entity_overlap"]), "entity_overlap_per_type": per_type,
            "entity_span_exact": _prf(m["entity_span"])}


def run(corpus: str) -> dict:
    lang = LANGUAGE.get(corpus, corpus)
    docs = load(corpus)
    profile = PROFILES.get(corpus)
    out: dict = {"corpus": str(CORPORA[corpus].relative_to(ROOT))}
    if profile:
        out["profile"] = profile
    else:
        out["dropped_from_predictions"] = [*NOT_ANNOTATED, "DATE (clock time only)"]
    for use in ("rules", "default"):
        nlp = pipeline(lang, use)
        if profile:
            pred = [d for d in nlp.pipe(docs, deidentify=False) if isinstance(d, Document)]
            if corpus in PRED_CONVENTIONS:
                pred = PRED_CONVENTIONS[corpus](pred)
            row = score_profile(docs, pred, lang, get_scheme("canonical"), profile)
        else:
            row = score(docs, predict(nlp, docs), lang)
        out[use] = {"all": row, "plan": nlp.plan(lang).describe()}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "own_notes.json")
    ap.add_argument("--only", nargs="+", choices=sorted(ROWS), default=None,
                    help="score only these corpora (keys of CORPORA; write --out elsewhere than the full result)")
    args = ap.parse_args(argv)
    rows = {c: r for c, r in ROWS.items() if args.only is None or c in args.only}
    result = {"clinanon": __version__, "python": platform.python_version(),
              **{row: run(corpus) for corpus, row in rows.items()}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    for corpus in rows.values():
        for use in ("rules", "default"):
            tb = result[corpus][use]["all"]["token_binary"]
            eo = result[corpus][use]["all"]["entity_overlap_unlabeled"]
            print(f"{corpus:15s} {use:8s} token binary P/R/F {tb['precision']:.3f}/{tb['recall']:.3f}/"
                  f"{tb['f1']:.3f}  entity overlap P/R {eo['precision']:.3f}/{eo['recall']:.3f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
