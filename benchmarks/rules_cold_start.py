"""Cold start and warm CPU time of the rules pipeline, this rule engine against a baseline one, same rules.

The rule engine (``clinanon.detect.engine``) compiles shared scans of the rule families; this benchmark measures
what that costs on the first pass over a corpus in a new process (cold) and after it (warm), and checks that the
spans do not change. Other engineers edit the rules while it runs, so both versions run from **one snapshot** of
``src/`` taken at the start: the snapshot as it is (new) and the snapshot with only ``detect/engine.py`` replaced
by the baseline (default: the engine of commit ``01c033c``, before the shared scans were compiled once per tuple
of recognizers: ``git show 01c033c:src/clinanon/detect/engine.py``; ``--baseline-commit`` / ``--baseline-engine``).

Per corpus (MEDDOCAN dev, Spanish; the PhysioNet nursing notes, English; GraSCCo dev, German) and per version,
``--repeat`` child processes, old and new alternately (a busy machine slows both alike); each child builds the
rules pipeline (``Pipeline.from_config(language=..., detectors={"use": ["rules"]})``), times the first
``Pipeline.pipe`` pass over the corpus (cold) and ``--warm`` more passes (warm, their median) in CPU time
(``time.process_time``), and reports its peak RSS, the digest of the spans (sha256 over document id, start, end,
label, source and score of every span), and what the engine compiled. The JSON holds the medians over the
children, the cold and warm throughput (UTF-8 MB per CPU second) and whether the digests of old and new agree;
``engine_only``: the shared scans alone (``analyze_many``), both engines in one process (see ``ENGINE_CHILD``).

Usage: ``nice -n 10 python benchmarks/rules_cold_start.py [--data ../shared/data] [--repeat 3] [--warm 3]
[--baseline-commit REV | --baseline-engine FILE] [--only es,en,de] [--out benchmarks/results/rules_cold_start.json]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: the last commit with the engine that compiled a shared scan per set of absent triggers
BASELINE_COMMIT = "01c033c"
#: language -> (corpus folder under --data, format)
CORPORA = {
    "es": ("meddocan/dev/brat", "brat"),
    "en": ("physionet-deid-dev/brat", "brat"),
    "de": ("grascco-dev/brat", "brat"),
}

CHILD = r"""
import hashlib, json, statistics, sys, time
sys.path.insert(0, sys.argv[4])
from _common import rss_mb
import clinanon
from clinanon import io as cio
from clinanon.pipeline import Pipeline
import clinanon.detect.engine as engine
lang, path, warm = sys.argv[1], sys.argv[2], int(sys.argv[3])
docs = sorted(cio.read(path, "brat"), key=lambda d: d.id)
t = time.process_time()
nlp = Pipeline.from_config(language=lang, detectors={"use": ["rules"]})
build = time.process_time() - t
t = time.process_time()
spans = [d.spans for d in nlp.pipe(docs, deidentify=False)]
cold = time.process_time() - t
times = []
for _ in range(warm):
    t = time.process_time()
    again = [d.spans for d in nlp.pipe(docs, deidentify=False)]
    times.append(time.process_time() - t)
h = hashlib.sha256()
for d, ss in zip(docs, spans):
    h.update(repr((d.id, [(s.start, s.end, s.label, s.source, s.score) for s in ss])).encode())
compiled = engine.compile_counts() if hasattr(engine, "compile_counts") else {"unions": len(engine._UNIONS)}
print(json.dumps({"build_s": build, "cold_s": cold, "warm_s": statistics.median(times) if times else None,
                  "same_spans_warm": again == spans if times else None, "digest": h.hexdigest(),
                  "spans": sum(map(len, spans)), "docs": len(docs),
                  "mb": sum(len(d.text.encode("utf-8")) for d in docs) / 1e6,
                  "peak_rss_mb": rss_mb(), "compiled": compiled, "module": clinanon.__file__}))
"""

#: the rule engine alone, both versions in one process: ``analyze_many`` over the corpus's texts with the shared
#: recognizers of the language (the baseline module loaded from its file, the recognizers built by the new one;
#: the baseline's per-set variants are all kept, as it did), first pass then alternating warm passes
ENGINE_CHILD = r"""
import importlib.util, json, statistics, sys, time
from clinanon import io as cio
import clinanon.detect.engine as new
from clinanon.detect.rules.detector import FAMILIES, _scan_groups
lang, path, baseline, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
spec = importlib.util.spec_from_file_location("engine_baseline", baseline)
old = importlib.util.module_from_spec(spec)
sys.modules["engine_baseline"] = old
spec.loader.exec_module(old)
new._MAX_SUBSETS = 1 << 30  # (only the baseline calls _without: let it keep every variant, as it did)
texts = [d.text for d in sorted(cio.read(path, "brat"), key=lambda d: d.id)]
shared = _scan_groups(lang, FAMILIES)[0]
def run(f):
    t = time.process_time()
    out = [f(shared, x) for x in texts]
    return time.process_time() - t, out
first_new, out_new = run(new.analyze_many)
first_old, out_old = run(old.analyze_many)
warm = {"old": [], "new": []}
for _ in range(rounds):
    warm["old"].append(run(old.analyze_many)[0])
    warm["new"].append(run(new.analyze_many)[0])
print(json.dumps({"identical_spans": out_old == out_new, "first_pass_cpu_s": {"old": first_old, "new": first_new},
                  "warm_cpu_s": {k: statistics.median(v) for k, v in warm.items()},
                  "unions_compiled": {"old": len(old._UNIONS), "new": new.compile_counts()["unions"]}}))
"""


def _engine_only(src: Path, baseline: Path, lang: str, path: Path, rounds: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run([sys.executable, "-c", ENGINE_CHILD, lang, str(path), str(baseline), str(rounds)],
                         env=env, check=True, capture_output=True, text=True).stdout
    res = json.loads(out.strip().splitlines()[-1])
    for k in ("first_pass_cpu_s", "warm_cpu_s"):
        res[k] = {v: round(x, 3) for v, x in res[k].items()}
    return res


def _snapshot(dest: Path, baseline: str | None) -> Path:
    """A copy of this checkout's ``src/`` under ``dest`` (engine replaced by ``baseline`` when given)."""
    src = dest / "src"
    shutil.copytree(ROOT / "src", src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    if baseline is not None:
        (src / "clinanon" / "detect" / "engine.py").write_text(baseline, encoding="utf-8")
    return src


def _child(src: Path, lang: str, path: Path, warm: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run([sys.executable, "-c", CHILD, lang, str(path), str(warm), str(ROOT / "benchmarks")],
                         env=env, check=True, capture_output=True, text=True).stdout
    res = json.loads(out.strip().splitlines()[-1])
    if not res["module"].startswith(str(src)):
        raise SystemExit(f"the child imported clinanon from {res['module']}, not from {src}")
    return res


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    mb = runs[0]["mb"]
    cold = statistics.median(r["cold_s"] for r in runs)
    warm = statistics.median(r["warm_s"] for r in runs)
    return {"cold_cpu_s": round(cold, 3), "warm_cpu_s": round(warm, 3),
            "cold_mb_per_cpu_s": round(mb / cold, 3), "warm_mb_per_cpu_s": round(mb / warm, 3),
            "build_cpu_s": round(statistics.median(r["build_s"] for r in runs), 3),
            "peak_rss_mb": statistics.median(r["peak_rss_mb"] for r in runs),
            "compiled": runs[-1]["compiled"], "digest": runs[0]["digest"],
            "digests_agree_across_runs": len({r["digest"] for r in runs}) == 1,
            "warm_spans_equal_cold": all(r["same_spans_warm"] for r in runs), "spans": runs[0]["spans"],
            "runs": [{k: (round(v, 3) if isinstance(v, float) else v) for k, v in r.items()
                      if k in ("cold_s", "warm_s", "build_s", "peak_rss_mb")} for r in runs]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--repeat", type=int, default=3, help="child processes per version and corpus")
    ap.add_argument("--warm", type=int, default=3, help="warm passes per child")
    ap.add_argument("--baseline-engine", type=Path, default=None, help="engine.py of the baseline")
    ap.add_argument("--baseline-commit", default=BASELINE_COMMIT,
                    help=f"the commit whose engine.py is the baseline (default {BASELINE_COMMIT})")
    ap.add_argument("--only", default=",".join(CORPORA), help="languages, comma-separated")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "rules_cold_start.json")
    args = ap.parse_args()
    if args.baseline_engine is not None:
        baseline, baseline_name = args.baseline_engine.read_text(encoding="utf-8"), str(args.baseline_engine)
    else:
        rev = f"{args.baseline_commit}:src/clinanon/detect/engine.py"
        baseline = subprocess.run(["git", "show", rev], cwd=ROOT, check=True, capture_output=True, text=True).stdout
        baseline_name = f"git show {rev}"
    result: dict[str, Any] = {"baseline_engine": baseline_name, "repeat": args.repeat, "warm_passes": args.warm,
                              "clock": "time.process_time (CPU seconds of the child process)",
                              "python": platform.python_version(), "machine": platform.machine(), "corpora": {}}
    with tempfile.TemporaryDirectory(prefix="rules_cold_start_") as tmp:
        new_src = _snapshot(Path(tmp) / "new", None)
        old_src = _snapshot(Path(tmp) / "old", baseline)
        for lang in args.only.split(","):
            rel, _fmt = CORPORA[lang]
            path = args.data / rel
            runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
            for _ in range(args.repeat):
                for version, src in (("old", old_src), ("new", new_src)):
                    runs[version].append(_child(src, lang, path, args.warm))
                    print(lang, version, {k: runs[version][-1][k] for k in ("cold_s", "warm_s", "peak_rss_mb")},
                          file=sys.stderr, flush=True)
            old, new = _summary(runs["old"]), _summary(runs["new"])
            result["corpora"][lang] = {
                "corpus": rel, "documents": runs["new"][0]["docs"], "mb_utf8": round(runs["new"][0]["mb"], 4),
                "old": old, "new": new, "identical_spans": old["digest"] == new["digest"],
                "cold_speedup": round(old["cold_cpu_s"] / new["cold_cpu_s"], 3),
                "warm_speedup": round(old["warm_cpu_s"] / new["warm_cpu_s"], 3),
                "engine_only": _engine_only(new_src, old_src / "clinanon" / "detect" / "engine.py", lang, path, 5)}
            print(lang, "engine only", result["corpora"][lang]["engine_only"], file=sys.stderr, flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    for lang, r in result["corpora"].items():
        print(f"{lang}: cold {r['old']['cold_cpu_s']} -> {r['new']['cold_cpu_s']} s, warm {r['old']['warm_cpu_s']} -> "
              f"{r['new']['warm_cpu_s']} s ({r['old']['warm_mb_per_cpu_s']} -> {r['new']['warm_mb_per_cpu_s']} MB/s), "
              f"peak RSS {r['old']['peak_rss_mb']} -> {r['new']['peak_rss_mb']} MB, identical spans: "
              f"{r['identical_spans']}")


if __name__ == "__main__":
    main()
