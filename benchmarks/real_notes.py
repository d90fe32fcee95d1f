"""The rules and the default pipeline on real-style clinical notes: English ICU nursing notes and German letters.

Writes ``benchmarks/results/real_notes.json`` (or ``--out``) and prints a summary.

* **English nursing notes** (``physionet-deid-dev/brat``: PhysioNet deid gold standard, the even-numbered
  patients; HIPAA Safe Harbor conventions): gold and predictions both go through the ``hipaa`` profile
  (:func:`clinanon.profiles.filter_documents`: ages up to 89, clock times, sex, professions, states and countries
  are not PHI). Scored on all notes and on two patient-grouped halves: ``half_a`` (patients whose number is
  2 mod 4; the half the English rules were developed on) and ``half_b`` (0 mod 4; only checked). The notes of
  the odd-numbered patients are held back and never read here.
* **German letters** (``grascco-dev/brat``, GraSCCo, CC BY 4.0): ``NAME_TITLE`` (academic titles, not PHI) is
  left out of the gold; scored under ``gdpr-strict`` (every category GraSCCo annotates is PHI there) with the
  corpus's own convention for clock times (``all``: GraSCCo annotates none, so the clock-time recognizer's
  predictions are left out, :func:`without_clock_times`) and without it (``all_gdpr-strict``).

For each corpus and pipeline (``rules``: ``detectors.use = ["rules"]``; ``default``: the configuration's default
detector for the language): token-binary P/R/F (a token is PHI when a span covers any of its characters; the
i2b2 "binary HIPAA token" measure) on clinanon's tokens (a punctuation mark is a token) and, as
``token_binary_alnum``, on the tokens of the official i2b2 2014 script (runs of letters and digits), token
recall per gold label, entity overlap P/R/F (unlabelled and per canonical type) and exact-span P/R/F, and the
throughput of ``Pipeline.pipe`` (process CPU time, median of ``--repeat`` runs after a warm-up).
No note text is written or printed.

Usage: ``python benchmarks/real_notes.py [--data ../shared/data] [--repeat 3] [--out PATH]``
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from clinanon import __version__
from clinanon import io as cio
from clinanon.config import Config
from clinanon.document import Document, Span
from clinanon.evaluate import evaluate
from clinanon.lang.fold import fold
from clinanon.lang.lexicon import common_lexicon
from clinanon.pipeline import Pipeline
from clinanon.profiles import filter_documents, get_profile
from clinanon.taxonomy import LabelScheme, get_scheme, register_scheme
from clinanon.text import stop_words, tokenize

ROOT = Path(__file__).resolve().parents[1]

#: the PhysioNet deid corpus's labels (Neamatullah et al. 2008) as canonical categories
PHYSIONET_LABELS = {"HCPName": "NAME.DOCTOR", "PTName": "NAME.PATIENT", "PTNameInitial": "NAME.PATIENT",
                    "RelativeProxyName": "NAME.RELATIVE", "Date": "DATE", "DateYear": "DATE",
                    "Location": "LOCATION", "Phone": "CONTACT.PHONE", "Age": "AGE", "Other": "OTHER"}
#: GraSCCo_PHI's labels (GeMTeX guideline); NAME_TITLE is left out of the gold before scoring
GRASCCO_LABELS = {"NAME_PATIENT": "NAME.PATIENT", "NAME_DOCTOR": "NAME.DOCTOR", "NAME_RELATIVE": "NAME.RELATIVE",
                  "NAME_EXT": "NAME", "NAME_USERNAME": "NAME.USERNAME", "NAME_TITLE": "OTHER", "DATE": "DATE",
                  "AGE": "AGE", "ID": "ID", "LOCATION_CITY": "LOCATION.CITY", "LOCATION_ZIP": "LOCATION.ZIP",
                  "LOCATION_STREET": "LOCATION.STREET", "LOCATION_HOSPITAL": "LOCATION.HOSPITAL",
                  "LOCATION_ORGANIZATION": "LOCATION.ORGANIZATION", "LOCATION_COUNTRY": "LOCATION.COUNTRY",
                  "LOCATION_OTHER": "LOCATION.OTHER", "CONTACT_PHONE": "CONTACT.PHONE", "CONTACT_FAX": "CONTACT.FAX",
                  "CONTACT_EMAIL": "CONTACT.EMAIL", "CONTACT_URL": "CONTACT.URL", "PROFESSION": "PROFESSION"}


def _scheme(name: str, description: str, labels: dict[str, str]) -> LabelScheme:
    try:
        return get_scheme(name)
    except Exception:  # not registered yet (clinanon.taxonomy may register it one day)
        return register_scheme(LabelScheme(name, description, labels))


def physionet_scheme() -> LabelScheme:
    return _scheme("physionet-deid", "PhysioNet deid gold standard (English ICU nursing notes)", PHYSIONET_LABELS)


def without_clock_times(docs: Sequence[Document]) -> list[Document]:
    """GraSCCo's own convention (GeMTeX guideline): clock times are not annotated ("um 9.30 Uhr" stays), so the
    predictions of the clock-time recognizer (source ``time:...``) are left out before scoring. (Not
    ``Profile(times=False)``: :func:`clinanon.profiles.is_time_of_day` reads a German date ``21.07.22`` as the
    time 21:07:22.)"""
    return [d.with_spans([s for s in d.spans if not s.source.startswith("time:")]) for d in docs]


def grascco_scheme() -> LabelScheme:
    return _scheme("grascco", "GraSCCo_PHI (German synthetic clinical letters)", GRASCCO_LABELS)


def patient_of(doc_id: str) -> int:
    """The patient number of a PhysioNet note id ``p<patient>_n<note>``."""
    return int(doc_id.split("_", 1)[0].lstrip("p"))


def halves(docs: Sequence[Document]) -> dict[str, list[Document]]:
    """The patient-grouped halves: ``half_a`` (patient 2 mod 4, developed on) and ``half_b`` (0 mod 4), and
    ``half_b``'s two quarters: ``quarter_b_dev`` (0 mod 8; read for the fourth round of English rules, once
    ``half_a`` was at 0.977 recall and ``half_b`` at 0.896 showed how far that did not carry over) and
    ``quarter_b_check`` (4 mod 8; only checked, the unseen-patient estimate from then on)."""
    return {"half_a": [d for d in docs if patient_of(d.id) % 4 == 2],
            "half_b": [d for d in docs if patient_of(d.id) % 4 == 0],
            "quarter_b_dev": [d for d in docs if patient_of(d.id) % 8 == 0],
            "quarter_b_check": [d for d in docs if patient_of(d.id) % 8 == 4]}


def load_physionet(data: Path) -> list[Document]:
    return sorted(cio.read(data / "physionet-deid-dev" / "brat", "brat"), key=lambda d: d.id)


def load_grascco(data: Path) -> list[Document]:
    docs = sorted(cio.read(data / "grascco-dev" / "brat", "brat"), key=lambda d: d.id)
    return [d.with_spans([s for s in d.spans if s.label != "NAME_TITLE"]) for d in docs]


def pipeline(lang: str, use: str) -> Pipeline:
    return Pipeline(Config.from_dict({"language": lang, "label_scheme": "canonical", "detectors": {"use": [use]}}))


def predict(nlp: Pipeline, docs: Sequence[Document]) -> list[Document]:
    out = list(nlp.pipe(docs, deidentify=False))
    return [d for d in out if isinstance(d, Document)]


def _prf(measure: dict) -> dict:
    m = measure["micro"]
    return {k: (round(m[k], 4) if isinstance(m[k], float) else m[k])
            for k in ("precision", "recall", "f1", "tp", "fp", "fn")}


def token_recall_by_label(gold: Sequence[Document], pred: Sequence[Document], lang: str) -> dict[str, dict]:
    """For each gold label: its tokens, and the share of them that some prediction covers (any label)."""
    found: Counter[str] = Counter()
    total: Counter[str] = Counter()
    preds = {d.id: d for d in pred}
    for g in gold:
        toks = tokenize(g.text, lang)
        ps = preds[g.id].spans if g.id in preds else ()
        for s in g.spans:
            for t in toks:
                if t.end <= s.start or t.start >= s.end:
                    continue
                total[s.label] += 1
                found[s.label] += any(p.start < t.end and t.start < p.end for p in ps)
    return {lab: {"tokens": total[lab], "recall": round(found[lab] / total[lab], 4)} for lab in sorted(total)}


def score(gold: Sequence[Document], pred: Sequence[Document], lang: str, scheme: LabelScheme,
          profile: str) -> dict:
    """Both sides through ``profile``, then token-binary, per-label token recall and entity measures."""
    category_of: Callable[[str], str] = scheme.category
    g = filter_documents(gold, profile, category_of)
    p = filter_documents(pred, profile)
    rep = evaluate(g, p, lang=lang, scheme=scheme, label_map="type").to_dict()
    m = rep["measures"]
    per_type = {lab: {k: round(v[k], 4) if isinstance(v[k], float) else v[k]
                      for k in ("precision", "recall", "f1", "tp", "fp", "fn")}
                for lab, v in sorted(m["entity_overlap"]["per_label"].items())}
    return {"documents": len(g), "gold_spans": rep["gold_spans"], "pred_spans": rep["pred_spans"],
            "token_binary": _prf(m["token_binary"]),
            "token_binary_alnum": _prf(m["token_binary_alnum"]),
            "token_recall_by_gold_label": token_recall_by_label(g, p, lang),
            "entity_overlap_unlabeled": _prf(m["entity_overlap_unlabeled"]),
            "entity_overlap_by_type": _prf(m["entity_overlap"]), "entity_overlap_per_type": per_type,
            "entity_span_exact": _prf(m["entity_span"])}


def throughput(nlp: Pipeline, docs: Sequence[Document], repeat: int) -> dict:
    """CPU seconds of ``Pipeline.pipe`` over ``docs`` (after the warm-up the scoring run was), median of
    ``repeat``."""
    runs = []
    for _ in range(repeat):
        t0 = time.process_time()
        for _d in nlp.pipe(docs, deidentify=False):
            pass
        runs.append(time.process_time() - t0)
    med = statistics.median(runs)
    chars = sum(len(d.text) for d in docs)
    nbytes = sum(len(d.text.encode("utf-8")) for d in docs)
    return {"runs_cpu_s": [round(r, 3) for r in runs], "median_cpu_s": round(med, 3), "chars": chars,
            "chars_per_s": round(chars / med), "mb_per_s": round(nbytes / med / 1e6, 3)}


_ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "br", "cr",
           "dr", "gr", "pr", "st", "tr", "ch", "sh", "th"]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "ie"]
_ENDINGS = ["", "n", "r", "s", "ll", "tt", "son", "ley"]
_LETTERS = re.compile(r"[^\W\d_]{2,}")


def _invented(rng: random.Random) -> str:
    return "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(rng.choice((2, 2, 3)))) + rng.choice(
        _ENDINGS)


def invent_surfaces(docs: Sequence[Document], seed: int, labels: frozenset[str], lang: str) -> list[Document]:
    """The notes with every proper-name word of a gold span of ``labels`` (names, places) replaced by an invented,
    pronounceable word in the same case style (``QUARTERMAIN`` -> ``BRAITOULEY``, ``murray`` -> ``drousett``):
    names and places that no list holds, as the held-back patients bring. Words of the language's common
    lexicon and stop words stay ("Klinikum", "Hospital", "of"): a hospital keeps its head word. Gold spans move
    with the text."""
    rng = random.Random(seed)
    keep = common_lexicon(lang)
    stop = stop_words(lang)

    def styled(word: str) -> str:
        if fold(word) in keep or word.casefold() in stop:
            return word
        new = _invented(rng)
        return new.upper() if word.isupper() else new.capitalize() if word[:1].isupper() else new

    out = []
    for d in docs:
        pieces: list[str] = []
        spans: list[Span] = []
        pos = length = 0
        for sp in sorted(d.spans, key=lambda x: (x.start, x.end)):
            if sp.start < pos:
                continue
            seg = d.text[sp.start:sp.end]
            new = _LETTERS.sub(lambda m: styled(m.group()), seg) if sp.label in labels else seg
            pieces += [d.text[pos:sp.start], new]
            length += sp.start - pos
            spans.append(Span(length, length + len(new), sp.label))
            length += len(new)
            pos = sp.end
        pieces.append(d.text[pos:])
        out.append(Document(d.id, "".join(pieces), tuple(spans), d.meta))
    return out


def unseen_surface(docs: list[Document], lang: str, scheme: LabelScheme, profile: str, labels: frozenset[str],
                   seeds: int = 3,
                   convention: Callable[[Sequence[Document]], list[Document]] | None = None) -> dict:
    """The rules on the notes with invented names and places (:func:`invent_surfaces`, ``seeds`` draws): what
    context alone finds. Token-binary P/R per draw and their mean; token recall per gold label, mean."""
    nlp = pipeline(lang, "rules")
    runs = []
    for seed in range(seeds):
        rewritten = invent_surfaces(docs, seed, labels, lang)
        pred = predict(nlp, rewritten)
        runs.append(score(rewritten, convention(pred) if convention else pred, lang, scheme, profile))
    by_label = {lab: round(statistics.mean(r["token_recall_by_gold_label"][lab]["recall"] for r in runs), 4)
                for lab in runs[0]["token_recall_by_gold_label"]}
    return {"documents": len(docs), "labels_rewritten": sorted(labels), "seeds": seeds,
            "token_binary_runs": [r["token_binary"] for r in runs],
            "token_binary_mean": {k: round(statistics.mean(r["token_binary"][k] for r in runs), 4)
                                  for k in ("precision", "recall", "f1")},
            "token_recall_by_gold_label_mean": by_label}


def run_corpus(docs: list[Document], lang: str, scheme: LabelScheme, profile: str, repeat: int,
               split: Callable[[Sequence[Document]], dict[str, list[Document]]] | None = None,
               convention: Callable[[Sequence[Document]], list[Document]] | None = None) -> dict:
    """``convention``: the corpus's own convention applied to the predictions for the ``all`` row; the row
    ``all_<profile>`` then scores them under ``profile`` alone."""
    out: dict = {}
    for use in ("rules", "default"):
        nlp = pipeline(lang, use)
        pred = predict(nlp, docs)
        row = {"all": score(docs, convention(pred) if convention else pred, lang, scheme, profile),
               **({f"all_{profile}": score(docs, pred, lang, scheme, profile)} if convention else {}),
               "throughput_pipe": throughput(nlp, docs, repeat)}
        if split is not None:
            by_id = {d.id: d for d in pred}
            for name, part in split(docs).items():
                row[name] = score(part, [by_id[d.id] for d in part], lang, scheme, profile)
        row["plan"] = nlp.plan(lang).describe()
        out[use] = row
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "real_notes.json")
    ap.add_argument("--only", choices=("en", "de"), default=None,
                    help="run one corpus only (en: English nursing notes, de: German letters)")
    args = ap.parse_args(argv)
    result: dict = {"clinanon": __version__, "python": platform.python_version(), "machine": platform.machine()}
    if args.only in (None, "en"):
        result["english_nursing_notes"] = {
            "profile": "hipaa", "profile_description": get_profile("hipaa").description,
            **run_corpus(load_physionet(args.data), "en", physionet_scheme(), "hipaa", args.repeat, halves)}
        parts = halves(load_physionet(args.data))
        read = parts["half_a"] + parts["quarter_b_dev"]  # the parts read while writing rules; never the check part
        result["english_nursing_notes"]["unseen_surface"] = {
            "notes": "half_a + quarter_b_dev with every name and place word replaced by an invented word",
            **unseen_surface(read, "en", physionet_scheme(), "hipaa",
                             frozenset(("HCPName", "PTName", "PTNameInitial", "RelativeProxyName", "Location")))}
    if args.only in (None, "de"):
        result["german_letters"] = {
            "profile": "gdpr-strict", "left_out": ["NAME_TITLE"],
            "convention": "all: clock-time predictions left out (GraSCCo annotates none); "
                          "all_gdpr-strict: every prediction",
            **run_corpus(load_grascco(args.data), "de", grascco_scheme(), "gdpr-strict", args.repeat,
                         convention=without_clock_times)}
        result["german_letters"]["unseen_surface"] = {
            "notes": "every letter with every name and place word replaced by an invented word (clock-time "
                     "predictions left out, as in the all row)",
            **unseen_surface(load_grascco(args.data), "de", grascco_scheme(), "gdpr-strict",
                             frozenset(("NAME_PATIENT", "NAME_DOCTOR", "NAME_RELATIVE", "NAME_EXT",
                                        "LOCATION_CITY", "LOCATION_STREET", "LOCATION_HOSPITAL",
                                        "LOCATION_ORGANIZATION")), convention=without_clock_times)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    for corpus in [c for c in ("english_nursing_notes", "german_letters") if c in result]:
        for use in ("rules", "default"):
            row = result[corpus][use]
            parts = [k for k in ("all", "all_gdpr-strict", "half_a", "half_b") if k in row]
            cells = "  ".join(f"{k} P/R {row[k]['token_binary']['precision']:.3f}/"
                              f"{row[k]['token_binary']['recall']:.3f}" for k in parts)
            print(f"{corpus:22s} {use:8s} token binary {cells}  "
                  f"{row['throughput_pipe']['mb_per_s']:.3f} MB/s", file=sys.stderr)
        u = result[corpus]["unseen_surface"]["token_binary_mean"]
        print(f"{corpus:22s} rules    unseen surfaces P/R {u['precision']:.3f}/{u['recall']:.3f}", file=sys.stderr)
    if "english_nursing_notes" in result:  # the i2b2 script's tokens (no punctuation), the check part included
        row = result["english_nursing_notes"]["rules"]
        cells = "  ".join(f"{k} P/R {row[k]['token_binary_alnum']['precision']:.3f}/"
                          f"{row[k]['token_binary_alnum']['recall']:.3f}"
                          for k in ("all", "half_a", "quarter_b_dev", "quarter_b_check") if k in row)
        print(f"{'english_nursing_notes':22s} rules    i2b2 tokens (alnum) {cells}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
