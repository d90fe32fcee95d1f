"""Throughput of two versions of clinanon timed in one run: this checkout against another source tree.

For a change that must not slow the pipelines (issue 14: not more than 5 % slower), both versions run the same
passes over MEDDOCAN dev in alternating child processes (old, new, old, new ...), so that a busy machine slows them
alike; each child loads the pipeline, makes one warm-up pass, then times ``--passes`` passes in CPU time
(``time.process_time``: what other processes on a shared machine do counts less than in wall time). The ratio is
new / old throughput of the medians.

    git worktree add /tmp/baseline <commit>          # the version to compare against
    python benchmarks/compare_versions.py --old-src /tmp/baseline/src --out benchmarks/results/compare_versions.json
    git worktree add /tmp/after <commit>             # or compare two commits, neither of them this working tree
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
from clinanon import io as cio
from clinanon.config import Config
from clinanon.pipeline import Pipeline
data, use, passes = sys.argv[1], sys.argv[2], int(sys.argv[3])
docs = sorted(cio.read(data + "/meddocan/dev/brat", "brat"), key=lambda d: d.id)
cfg = {"language": "es", "label_scheme": "meddocan", "detectors": {"use": [use]}}
nlp = Pipeline(Config.from_dict(cfg))
for _ in nlp.pipe(docs, deidentify=False):
    pass
times = []
for _ in range(passes):
    t = time.process_time()
    for _ in nlp.pipe(docs, deidentify=False):
        pass
    times.append(time.process_time() - t)
import clinanon
print(json.dumps({"times": times, "chars": sum(len(d.text) for d in docs), "module": clinanon.__file__}))
"""


def _child(src: Path, data: Path, use: str, passes: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(data), use, str(passes)], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old-src", type=Path, required=True, help="the src/ folder of the version to compare with")
    ap.add_argument("--new-src", type=Path, default=ROOT / "src",
                    help="the src/ folder of the new version (default: this checkout's)")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--rounds", type=int, default=3, help="child processes per version and pipeline")
    ap.add_argument("--passes", type=int, default=3, help="timed passes per child")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "compare_versions.json")
    args = ap.parse_args()
    result: dict[str, Any] = {"old_src": str(args.old_src), "new_src": str(args.new_src), "rounds": args.rounds,
                              "passes": args.passes}
    for use in ("rules", "default"):
        runs: dict[str, list[float]] = {"old": [], "new": []}
        chars = 0
        for _ in range(args.rounds):
            for version, src in (("old", args.old_src), ("new", args.new_src)):
                got = _child(src, args.data, use, args.passes)
                assert Path(got["module"]).resolve().is_relative_to(src.resolve()), got["module"]
                runs[version].extend(got["times"])
                chars = got["chars"]
        med = {v: statistics.median(t) for v, t in runs.items()}
        result[use] = {v: {"median_cpu_s": round(m, 3), "chars_per_cpu_s": round(chars / m),
                           "runs_s": [round(t, 3) for t in runs[v]]} for v, m in med.items()}
        result[use]["new_over_old_throughput"] = round(med["old"] / med["new"], 3)
        print(f"{use}: new/old throughput {result[use]['new_over_old_throughput']}", file=sys.stderr)
    result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
