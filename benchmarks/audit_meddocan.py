"""Privacy audit of the five operators on MEDDOCAN dev, with the gold spans as detections.

For each operator (tag, redact, surrogate, neighbors, suppress) the 250 dev notes are sanitized with their gold
spans, then audited (``clinanon.audit``): residual PHI (exact / folded / partial; TAB entity recall, direct and quasi;
token recall), the similarity-search attack of an adversary who holds the 250 originals (Jaccard, BM25, MinHash-LSH,
multilingual sentence embeddings: found@1, found@5, MRR, a/o-sim, avg-sim), and linkage on quasi-identifiers (an
attacker's table built from the gold annotations of the originals: year of birth from the birth date, sex, the
first town, the month of the admission date; the original text as a reference row).

Then the corpus techniques of :mod:`clinanon.corpus` (issue 19), each applied to the original notes on its own as
in the study of Ben Cheikh Larbi, Burchardt and Roller (2022), seeded (``random.Random(0)``): number masking, sentence
shuffling (all sentences), random word swap of 30 % and 100 % of the words of each sentence, synonym replacement of
30 % of the non-stop words (the Spanish thesaurus built by ``scripts/build_thesauri.py``; skipped with a note when it
is not built), aggregation of 2, 3 and 4 notes, and ``tag`` followed by aggregation of 4 notes. An aggregated note
is a query whose own originals are its members (``aggregated_from``): found@1 counts a find when the first-ranked
original is one of its members (the attacker has put a name on the note); ``members`` ranks each member on its own
against the non-members (found@1 per member, and ``all_found@1``: the members are exactly the first ``size``
originals). The notes left over when 250 is not a multiple of the size (1 for 3, 2 for 4) are not released, so they
are neither queries nor counted in residual PHI; the attacker still holds all 250 originals. MEDDOCAN has no
document label, so every note has the same label and groups are random.

The ``neighbors`` operator needs word vectors and none can be downloaded: the script learns them from the raw texts
of MEDDOCAN train + dev (no labels: PPMI of ±2 co-occurrences, SVD to 100 dimensions, every word of the 25 000 most
frequent), written to a temporary ``.vec`` file. The surrogate operator uses a fixed key (document scope).

Writes ``benchmarks/results/audit_meddocan.json`` (``--out``; ``--html`` for the HTML report). Usage:
``python benchmarks/audit_meddocan.py [--data ../shared/data] [--limit N] [--methods jaccard,bm25,minhash,embedding]
[--techniques number_mask,...|none]``
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import rss_mb
from clinanon import Document, __version__
from clinanon import io as cio
from clinanon.audit._text import fold, parse_date
from clinanon.audit.corpus import audit_corpus, sanitize, summary_sentence
from clinanon.audit.linkage import link_quasi_identifiers
from clinanon.audit.report import write_report
from clinanon.corpus import Aggregation, Deidentification, make_technique
from clinanon.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
KEY = "6b" * 32
OPERATORS = ("tag", "redact", "surrogate", "neighbors", "suppress")
#: row name -> technique settings (``clinanon.corpus.make_technique``); ``tag + aggregate 4`` is built in main
TECHNIQUES: dict[str, dict[str, Any]] = {
    "number mask": {"technique": "number_mask"},
    "sentence shuffle": {"technique": "sentence_shuffle", "fraction": 1.0, "lang": "es"},
    "word swap 30 %": {"technique": "word_swap", "fraction": 0.3, "lang": "es"},
    "word swap 100 %": {"technique": "word_swap", "fraction": 1.0, "lang": "es"},
    "synonyms 30 %": {"technique": "synonyms", "fraction": 0.3, "lang": "es"},
    "aggregate 2": {"technique": "aggregate", "size": 2},
    "aggregate 3": {"technique": "aggregate", "size": 3},
    "aggregate 4": {"technique": "aggregate", "size": 4},
    "tag + aggregate 4": {"technique": "aggregate", "size": 4},
}
_WORD = re.compile(r"\w+")
#: MEDDOCAN's sex mentions (Spanish headers write "Sexo: H" for hombre, "Sexo: M" for mujer)
_SEX = {"h": "M", "v": "M", "varon": "M", "hombre": "M", "nino": "M", "masculino": "M",
        "m": "F", "mujer": "F", "nina": "F", "femenino": "F", "femenina": "F"}


def learn_vectors(texts: list[str], path: Path, vocab_size: int = 25_000, contexts: int = 1_500, dim: int = 100,
                  window: int = 2) -> int:
    """PPMI + SVD word vectors of the raw texts, written in word2vec text format; returns the vocabulary size."""
    toks = [[w.lower() for w in _WORD.findall(t)] for t in texts]
    freq = Counter(w for ts in toks for w in ts)
    vocab = [w for w, _ in freq.most_common(vocab_size)]
    vid = {w: i for i, w in enumerate(vocab)}
    cid = {w: i for i, w in enumerate(vocab[:contexts])}
    m = np.zeros((len(vocab), len(cid)), dtype=np.float32)
    for ts in toks:
        ids = [vid.get(w, -1) for w in ts]
        cids = [cid.get(w, -1) for w in ts]
        for i, a in enumerate(ids):
            if a < 0:
                continue
            for o in range(1, window + 1):
                for j in (i - o, i + o):
                    if 0 <= j < len(ts) and cids[j] >= 0:
                        m[a, cids[j]] += 1.0 / o
    total = m.sum()
    row = m.sum(axis=1, keepdims=True)
    col = m.sum(axis=0, keepdims=True) ** 0.75
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log((m * col.sum()) / (row * col) + 1e-12)
    pmi[~np.isfinite(pmi)] = 0.0
    ppmi = np.maximum(pmi, 0.0) * (total > 0)
    u, s, _ = np.linalg.svd(ppmi, full_matrices=False)
    vec = u[:, :dim] * np.sqrt(s[:dim])
    with path.open("w", encoding="utf-8") as fh:
        fh.write(f"{len(vocab)} {dim}\n")
        for w, v in zip(vocab, vec, strict=True):
            fh.write(w + " " + " ".join(f"{x:.4f}" for x in v) + "\n")
    return len(vocab)


def _line_before(text: str, start: int) -> str:
    return fold(text[text.rfind("\n", 0, start) + 1:start])


def qi_table(docs: list[Document]) -> list[dict[str, str]]:
    """What an attacker may know of each patient, taken from the gold annotations of the original notes."""
    rows = []
    for d in docs:
        row = {"id": d.id, "year_of_birth": "", "sex": "", "town": "", "admission_month": ""}
        for s in d.spans:
            text = d.text[s.start:s.end]
            if s.label == "SEXO_SUJETO_ASISTENCIA" and not row["sex"]:
                row["sex"] = _SEX.get(fold(text).strip(". "), "")
            elif s.label == "TERRITORIO" and not row["town"] and not any(c.isdigit() for c in text):
                row["town"] = text
            elif s.label == "FECHAS":
                ctx = _line_before(d.text, s.start)
                p = parse_date(text)
                if p is None or p[0] is None:
                    continue
                if "nacimiento" in ctx and not row["year_of_birth"]:
                    row["year_of_birth"] = str(p[0])
                elif "ingreso" in ctx and p[1] is not None and not row["admission_month"]:
                    row["admission_month"] = f"{p[0]:04d}-{p[1]:02d}"
        rows.append(row)
    return rows


def apply_technique(name: str, spec: dict[str, Any], docs: list[Document], seed: int = 0) -> list[Document]:
    """``docs`` rewritten by one technique (seeded); aggregation keeps only full groups (see the module text)."""
    rng = random.Random(seed)
    if spec["technique"] == "aggregate":
        docs = [d.with_meta(label="all") for d in docs]
        if name.startswith("tag + "):
            docs = Deidentification(operator="tag", scheme="meddocan", lang="es").transform(docs, rng)
        out = Aggregation(size=spec["size"]).transform(docs, rng)
        return [d for d in out if len(d.meta["aggregated_from"]) == spec["size"]]
    return make_technique(spec).transform(docs, rng)


def benchmark_summary(rows: list[dict[str, Any]]) -> str:
    """The quotable sentence about the operators (the techniques other than aggregation keep the PHI by design, so
    their residual PHI is not news), then one sentence per aggregation row (exact Jaccard)."""
    summary = summary_sentence([r for r in rows if r["name"] in OPERATORS])
    for r in rows:
        x = r["reid"].get("jaccard", {})
        if "aggregate" in r["name"] and x.get("members"):
            summary += (f" {r['name'].capitalize()} notes (Jaccard): the first-ranked original is one of the joined "
                        f"notes for {x['found@1']:.1%} of them, and {x['members']['found@1']:.1%} of the joined "
                        f"notes outrank every original that was not joined in.")
    return summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--methods", default="jaccard,bm25,minhash,embedding")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "audit_meddocan.json")
    ap.add_argument("--html", type=Path, default=None)
    ap.add_argument("--minhash-threshold", type=float, default=0.3)
    ap.add_argument("--techniques", default=",".join(TECHNIQUES),
                    help="comma-separated row names of TECHNIQUES, or 'none'")
    args = ap.parse_args()
    dev = args.data / "meddocan" / "dev" / "brat"
    if not dev.is_dir():
        sys.exit(f"MEDDOCAN dev not found at {dev}")
    docs = sorted(cio.read(dev, "brat"), key=lambda d: d.id)[: args.limit]
    methods = tuple(m for m in args.methods.split(",") if m)
    t0 = time.perf_counter()
    train_texts = [d.text for d in cio.read(args.data / "meddocan" / "train" / "brat", "brat")]
    versions: dict[str, Any] = {}
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        vec = Path(tmp) / "meddocan.vec"
        n_vocab = learn_vectors(train_texts + [d.text for d in docs], vec)
        timings["vectors"] = round(time.perf_counter() - t0, 1)
        for op in OPERATORS:
            params: dict[str, Any] = {}
            if op == "surrogate":
                params = {"key": KEY}
            elif op == "neighbors":
                params = {"embeddings": str(vec), "seed": 0, "n": 10}
            t = time.perf_counter()
            versions[op] = sanitize(docs, op, scheme="meddocan", lang="es", **params)
            timings[f"sanitize_{op}"] = round(time.perf_counter() - t, 1)
        skipped: dict[str, str] = {}
        for name in [x.strip() for x in args.techniques.split(",") if x.strip() and x.strip() != "none"]:
            if name not in TECHNIQUES:
                sys.exit(f"unknown technique row {name!r}; known: {', '.join(TECHNIQUES)}")
            t = time.perf_counter()
            try:
                versions[name] = apply_technique(name, TECHNIQUES[name], docs)
            except ConfigError as e:  # e.g. the thesaurus is not built
                skipped[name] = str(e)
                continue
            timings[f"technique_{name}"] = round(time.perf_counter() - t, 1)
        t = time.perf_counter()
        corpus = audit_corpus(docs, versions, scheme="meddocan", lang="es", methods=methods, progress=False,
                              method_params={"minhash": {"threshold": args.minhash_threshold}})
        timings["audit"] = round(time.perf_counter() - t, 1)
    table = qi_table(docs)
    known = {k: sum(1 for r in table if r[k]) for k in ("year_of_birth", "sex", "town", "admission_month")}
    linkage = {"original text": link_quasi_identifiers(table, docs, lang="es").to_dict()}
    for op, v in versions.items():
        if not any("aggregated_from" in getattr(d, "meta", {}) for d in v):  # linkage pairs a note with one patient
            linkage[op] = link_quasi_identifiers(table, v, lang="es").to_dict()
    summary = benchmark_summary(corpus["rows"])
    corpus["summary"] = summary
    report: dict[str, Any] = {
        "benchmark": "audit_meddocan",
        "data": "MEDDOCAN dev (gold spans as detections)",
        "documents": len(docs),
        "summary": summary,
        "corpus": corpus,
        "linkage": {"table_fields_known": known, "by_version": linkage,
                    "summary": "; ".join(f"{k}: {v['singled_out']} of {v['notes']} notes single out one patient"
                                         for k, v in linkage.items())},
        "settings": {"surrogate": "document scope, fixed key", "neighbors": f"PPMI-SVD vectors of MEDDOCAN train+dev "
                     f"texts, {n_vocab} words, 100 d, n=10, seed 0", "methods": list(methods),
                     "techniques": {k: v for k, v in TECHNIQUES.items() if k in versions}, "technique_seed": 0,
                     "techniques_skipped": skipped,
                     "aggregation": "applied to the original notes (tag first for 'tag + aggregate 4'); one label, "
                                    "random groups; incomplete last group not released; found@1: first original "
                                    "is a member; members: each member against the non-members",
                     "minhash": {"threshold": args.minhash_threshold, "num_perm": 128, "rerank": "exact"}},
        "timings_s": timings,
        "peak_rss_mb": rss_mb(),
        "clinanon_version": __version__,
        "python": platform.python_version(),
    }
    write_report(report, args.out, args.html)
    rows = corpus["rows"]
    print(f"{'version':18} {'resid.fold':>10} {'resid.part':>10} {'ER direct':>9} " +
          " ".join(f"{m + ' f@1':>14} {m + ' MRR':>12} {'a/o':>6} {'avg':>6} {'mem@1':>6} {'all@1':>6}"
                   for m in methods))
    for r in rows:
        res = r["residual"]
        line = (f"{r['name']:18} {res['overall']['folded']['rate']:>10.4f} {res['overall']['partial']['rate']:>10.4f} "
                f"{res['entity_recall']['direct']['folded']['recall']:>9.4f} ")
        for m in methods:
            x = r["reid"][m]
            mem = x.get("members") or {}
            line += (f"{x['found@1']:>14.3f} {x['mrr']:>12.3f} {x['ao_sim']:>6.3f} {x['avg_sim']:>6.3f} "
                     f"{mem.get('found@1', float('nan')):>6.3f} {mem.get('all_found@1', float('nan')):>6.3f} ")
        print(line)
    print(json.dumps({k: v["singled_out"] for k, v in linkage.items()}))
    print(corpus["summary"])
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
