"""Behaviour digest: a fingerprint of everything the pipelines output on the development corpora.

A change of structure must leave these digests as they are: run this script before and after it, and compare the
JSON files (``--compare OLD.json``). It uses only the public API (``Pipeline``, ``Config``), so it runs the same on
any version of the package:

* ``rules`` on MEDDOCAN dev (Spanish), the English nursing notes, the German letters and the English PII snippets:
  the spans of ``Pipeline.pipe`` (batches) and of ``Pipeline.detect`` (one note at a time);
* ``default`` (rules + shipped CRF ensemble for Spanish, MEDDOCAN labels) on MEDDOCAN dev, both paths;
* the texts of ``surrogate`` (document scope, a fixed key) and of ``tag`` over the default pipeline's spans.

    python benchmarks/equivalence.py --out /tmp/after.json --compare benchmarks/results/equivalence_before.json

Each digest is a SHA-256 over (document id, sorted spans as start/end/label/source/score) or over output texts;
document text never leaves the process.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
KEY = "6b" * 32


def _docs(data: Path, corpus: str) -> tuple[str, list[Any]]:
    from clinanon import io as cio
    from clinanon.document import Document

    if corpus == "meddocan":
        return "es", sorted(cio.read(data / "meddocan" / "dev" / "brat", "brat"), key=lambda d: d.id)
    if corpus == "physionet":
        return "en", sorted(cio.read(data / "physionet-deid-dev" / "brat", "brat"), key=lambda d: d.id)
    if corpus == "grascco":
        return "de", sorted(cio.read(data / "grascco-dev" / "brat", "brat"), key=lambda d: d.id)
    rows = json.loads((data / "pii-synth-en" / "dev.json").read_text(encoding="utf-8"))
    return "en", [Document(f"pii-{i:04d}", r["full_text"]) for i, r in enumerate(rows)]


def _span_digest(ids: list[str], spans: list[list[Any]]) -> tuple[str, int, dict[str, str]]:
    """The digest of all spans, their number, and a short digest per document (to find which ones differ)."""
    h = hashlib.sha256()
    n = 0
    per_doc: dict[str, str] = {}
    for i, ss in zip(ids, spans, strict=True):
        d = hashlib.sha256()
        for s in sorted(ss, key=lambda s: (s.start, s.end, s.label, s.source, s.score)):
            d.update(f"|{s.start},{s.end},{s.label},{s.source},{s.score!r}".encode())
            n += 1
        h.update(i.encode() + d.digest())
        per_doc[i] = d.hexdigest()[:12]
    return h.hexdigest(), n, per_doc


def _text_digest(texts: list[str]) -> str:
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode())
        h.update(b"\x00")
    return h.hexdigest()


def _pipeline(lang: str, use: str, scheme: str, operator: dict[str, Any] | None = None) -> Any:
    from clinanon.config import Config
    from clinanon.pipeline import Pipeline

    data: dict[str, Any] = {"language": lang, "label_scheme": scheme, "detectors": {"use": [use]}}
    if operator is not None:
        data["operators"] = {"*": operator}
    return Pipeline(Config.from_dict(data))


def run(data: Path, corpora: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    plan = [("rules", c, "canonical") for c in corpora] + [("default", "meddocan", "meddocan")]
    for use, corpus, scheme in plan:
        lang, docs = _docs(data, corpus)
        nlp = _pipeline(lang, use, scheme)
        ids = [d.id for d in docs]
        t = time.perf_counter()
        batch = [list(d.spans) for d in nlp.pipe(docs, deidentify=False)]
        single = [nlp.detect_spans(d) for d in docs]
        digest, n, per_doc = _span_digest(ids, batch)
        out[f"{use}/{corpus}"] = {"spans": n, "pipe": digest, "detect": _span_digest(ids, single)[0],
                                  "seconds": round(time.perf_counter() - t, 1), "per_doc": per_doc}
        print(f"{use}/{corpus}: {n} spans", file=sys.stderr)
        if use == "default":
            for name, op in [("surrogate", {"operator": "surrogate", "key": KEY, "scope": "document"}),
                             ("tag", {"operator": "tag", "template": "[{type}]"})]:
                anon = _pipeline(lang, use, scheme, op)
                texts = [r.text for r in anon.pipe(docs)]
                one = [anon.deidentify(d, s).text for d, s in zip(docs, single, strict=True)]
                out[f"{use}/{corpus}/{name}"] = {"pipe": _text_digest(texts), "deidentify": _text_digest(one)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--corpora", nargs="+", default=["meddocan", "physionet", "grascco", "pii"])
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "equivalence.json")
    ap.add_argument("--compare", type=Path, help="an earlier output: exit 1 when a digest differs")
    args = ap.parse_args()
    result = run(args.data, args.corpora)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if args.compare is not None:
        old = json.loads(args.compare.read_text(encoding="utf-8"))
        bad = [f"{k}.{f}" for k, v in result.items() for f, x in v.items()
               if f not in ("seconds", "per_doc") and k in old and old[k].get(f) != x]
        print("identical" if not bad else "DIFFERENT: " + ", ".join(bad))
        for k, v in result.items():
            before = old.get(k, {}).get("per_doc")
            if before and "per_doc" in v:
                docs = sorted(i for i, x in v["per_doc"].items() if before.get(i) != x)
                if docs:
                    print(f"  {k}: {len(docs)} documents differ: {', '.join(docs[:10])}")
        sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
