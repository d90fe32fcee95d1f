"""Scale of the re-identification search: MinHash-LSH over N synthetic notes, and its agreement with exact Jaccard.

Synthetic notes (about 1 kB each) are made from the lines of MEDDOCAN train: each note takes random lines (seeded)
with their gold spans until it has 900 characters or more; clinanon's surrogate generator (the ``surrogate``
operator, document scope, a fixed key, one document id per note) then replaces every PHI span, so each note carries
PHI of its own; that is the *original*. The attacker's query is the original sanitized by ``--operator`` (``tag``
by default) on the surrogate spans. Notes are generated in a separate process and kept zlib-compressed, so the
peak memory of this process is that of the search.

Measured: the time of the whole search (``reidentify(method="minhash")``: tokenising and signing the N originals,
the band index, tokenising and signing the N queries, candidates and their exact re-ranking) on one core, its peak
memory (VmHWM of this process), found@1 / found@5 / MRR; and, on the first ``--sample`` notes alone (a corpus of that
size), found@1 of MinHash-LSH against exact Jaccard (target: within 0.01).

Writes ``benchmarks/results/audit_scale.json`` (``--out``). Usage:
``python benchmarks/audit_scale.py [--n 100000] [--sample 2000] [--threshold 0.5] [--data ../shared/data]``
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import pickle
import platform
import random
import sys
import tempfile
import time
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, overload

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import rss_mb
from clinanon import Document, Span, __version__
from clinanon import io as cio
from clinanon.audit.reid import reidentify

ROOT = Path(__file__).resolve().parents[1]
KEY = "5c" * 32


def line_pool(train: Path) -> list[tuple[str, tuple[tuple[int, int, str], ...]]]:
    """Every line of 20 characters or more of the training notes, with the gold spans inside it."""
    pool = []
    for doc in cio.read(train, "brat"):
        pos = 0
        for line in doc.text.split("\n"):
            start, end = pos, pos + len(line)
            pos = end + 1
            if len(line.strip()) < 20:
                continue
            spans = tuple((s.start - start, s.end - start, s.label) for s in doc.spans
                          if s.start >= start and s.end <= end)
            if any(s.start < end and s.end > start and not (s.start >= start and s.end <= end) for s in doc.spans):
                continue  # a span crosses the line
            pool.append((line, spans))
    return pool


def make_note(i: int, pool: Sequence[tuple[str, tuple[tuple[int, int, str], ...]]], rng: random.Random) -> Document:
    text, spans = "", []
    while len(text) < 900:
        line, sp = pool[rng.randrange(len(pool))]
        off = len(text)
        text += line + "\n"
        spans += [Span(a + off, b + off, lab) for a, b, lab in sp]
    return Document(f"syn-{i:06d}", text, tuple(spans))


def generate(args: tuple[str, int, int, str, str]) -> dict[str, Any]:
    """(train folder, n, seed, operator, output file) -> writes [(original, query)] zlib-compressed; timings."""
    from clinanon.audit.corpus import sanitize

    train, n, seed, operator, out = args
    t0 = time.perf_counter()
    pool = line_pool(Path(train))
    rng = random.Random(seed)
    notes: list[tuple[bytes, bytes]] = []
    chars = 0
    for b in range(0, n, 256):
        batch = [make_note(i, pool, rng) for i in range(b, min(n, b + 256))]
        originals = sanitize(batch, "surrogate", scheme="meddocan", lang="es", key=KEY)
        syn = [Document(o.id, o.text, tuple(Span(r.out_start, r.out_end, r.label) for r in o.replacements
                                              if r.out_end > r.out_start)) for o in originals]
        queries = sanitize(syn, operator, scheme="meddocan", lang="es")
        for o, q in zip(syn, queries, strict=True):
            chars += len(o.text)
            notes.append((zlib.compress(o.text.encode("utf-8")), zlib.compress(q.text.encode("utf-8"))))
    with open(out, "wb") as fh:
        pickle.dump(notes, fh, protocol=pickle.HIGHEST_PROTOCOL)
    return {"seconds": round(time.perf_counter() - t0, 1), "notes": n, "mean_chars": round(chars / max(n, 1), 1),
            "pool_lines": len(pool), "peak_rss_mb": rss_mb()}


class Lazy(Sequence[str]):
    """Compressed texts, decompressed one at a time (what ``reidentify`` reads)."""

    def __init__(self, blobs: list[bytes]) -> None:
        self.blobs = blobs

    def __len__(self) -> int:
        return len(self.blobs)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> Lazy: ...

    def __getitem__(self, i: int | slice) -> str | Lazy:
        if isinstance(i, slice):
            return Lazy(self.blobs[i])
        return zlib.decompress(self.blobs[i]).decode("utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--sample", type=int, default=2_000)
    ap.add_argument("--threshold", type=float, default=0.3)
    ap.add_argument("--num-perm", type=int, default=128)
    ap.add_argument("--operator", default="tag")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "audit_scale.json")
    args = ap.parse_args()
    train = args.data / "meddocan" / "train" / "brat"
    if not train.is_dir():
        sys.exit(f"MEDDOCAN train not found at {train}")
    with tempfile.TemporaryDirectory() as tmp:
        blob = Path(tmp) / "notes.pkl"
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(1) as pool:
            gen = pool.apply(generate, ((str(train), args.n, args.seed, args.operator, str(blob)),))
        with blob.open("rb") as fh:
            notes = pickle.load(fh)
    originals = Lazy([o for o, _ in notes])
    queries = Lazy([q for _, q in notes])
    del notes
    params = {"num_perm": args.num_perm, "threshold": args.threshold}
    cpu0 = time.process_time()
    full = reidentify(originals, queries, method="minhash", progress=args.progress, **params)
    cpu_full = time.process_time() - cpu0
    peak_search = rss_mb()
    k = min(args.sample, args.n)
    sample_exact = reidentify(originals[:k], queries[:k], method="jaccard")
    sample_mh = reidentify(originals[:k], queries[:k], method="minhash", **params)
    diff = abs((sample_mh.found_at(1) or 0) - (sample_exact.found_at(1) or 0))
    result = {
        "benchmark": "audit_scale",
        "notes": args.n,
        "operator": args.operator,
        "generation": gen,
        "search": {**full.to_dict(), "cpu_seconds": round(cpu_full, 1), "peak_rss_mb": peak_search},
        "sample": {"notes": k, "jaccard": sample_exact.to_dict(), "minhash": sample_mh.to_dict(),
                   "found@1_difference": round(diff, 4), "target_within": 0.01, "met": diff <= 0.01},
        "targets": {"search_seconds_max": 900, "peak_rss_mb_max": 2048,
                    "met_time": full.seconds <= 900, "met_memory": peak_search <= 2048},
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "note": "shared 2-core machine"},
        "clinanon_version": __version__,
    }
    for r in (result["search"], result["sample"]["jaccard"], result["sample"]["minhash"]):
        r.pop("histogram", None)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    s = result["search"]
    print(f"{args.n} notes (mean {gen['mean_chars']} chars; generated in {gen['seconds']} s): minhash search "
          f"{s['seconds']} s wall, {s['cpu_seconds']} s CPU, peak RSS {peak_search} MB; found@1 {s['found@1']}, "
          f"found@5 {s['found@5']}, MRR {s['mrr']}, mean candidates {s['params']['mean_candidates']}")
    print(f"sample of {k}: found@1 jaccard {sample_exact.found_at(1)} vs minhash {sample_mh.found_at(1)} "
          f"(difference {diff:.4f})")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
