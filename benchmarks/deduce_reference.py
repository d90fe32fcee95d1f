"""Throughput of deduce (the Dutch clinical rule system the rules issue compares against) on the same texts.

Run by a Python that has ``deduce`` installed (``bash benchmarks/setup_deduce.sh`` makes ``.venv-deduce`` with the
pinned version; deduce is never a dependency of clinanon). ``benchmarks/rules_meddocan.py --deduce-python
.venv-deduce/bin/python`` runs this script between its own timing runs, so both are measured on the same machine
in the same minutes, and reports the ratio.

Prints one JSON object: per text set, deduce's ``deidentify`` over every text after a warm-up pass, median of
``--repeat`` runs of process CPU time, in chars/s and UTF-8 MB/s. Texts are read from ``.txt`` files of a directory
(MEDDOCAN dev) or, for ``--lines``, one text per non-empty line of a file (the Dutch fill-mask sentences). No text is
printed.

Usage: ``.venv-deduce/bin/python benchmarks/deduce_reference.py --dir DIR [--lines FILE] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path


def _time(deduce: object, texts: list[str], repeat: int) -> dict:
    for t in texts:  # warm-up
        deduce.deidentify(t)  # type: ignore[attr-defined]
    runs = []
    for _ in range(repeat):
        c0 = time.process_time()
        for t in texts:
            deduce.deidentify(t)  # type: ignore[attr-defined]
        runs.append(time.process_time() - c0)
    med = statistics.median(runs)
    nbytes = sum(len(t.encode("utf-8")) for t in texts)
    return {"texts": len(texts), "chars": sum(map(len, texts)), "bytes": nbytes,
            "runs_cpu_s": [round(r, 4) for r in runs], "median_cpu_s": round(med, 4),
            "chars_per_s": round(sum(map(len, texts)) / med), "mb_per_s": round(nbytes / med / 1e6, 3)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", type=Path, action="append", default=[], help="a directory of .txt files (repeatable)")
    ap.add_argument("--lines", type=Path, action="append", default=[], help="a file with one text per line")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import deduce as deduce_pkg
    from deduce import Deduce

    c0 = time.process_time()
    model = Deduce()
    out: dict = {"deduce": getattr(deduce_pkg, "__version__", "?"), "python": sys.version.split()[0],
                 "load_cpu_s": round(time.process_time() - c0, 2), "sets": {}}
    for d in args.dir:
        texts = [p.read_text(encoding="utf-8") for p in sorted(d.glob("*.txt"))]
        out["sets"][str(d)] = _time(model, texts, args.repeat)
    for f in args.lines:
        texts = [line for line in f.read_text(encoding="utf-8").splitlines()[1:] if line.strip()]  # header row
        out["sets"][str(f)] = _time(model, texts, args.repeat)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
