"""The whole privrep benchmark (issue 22) in one command, on a fixed number of cores, timed end to end.

``python benchmarks/privrep_full.py [--workers 2] [--epochs 8] [--dry-run]`` runs every job of the full
configuration (both corpora; N in {1, 10, 100, 500} x {three-phase, DANN}; the plain and the pseudonymized
baselines; vectors and phase 1 trained from scratch in a fresh ``--work`` folder) as ``benchmarks/privrep.py``
processes, ``--workers`` at a time, each on one torch thread, and writes ``benchmarks/results/privrep_full_run.json``:
the schedule, each job's wall and CPU seconds, the total wall time (the figure the issue's "full benchmark
<= 90 minutes on 2 cores" is about), and per run the de-identification F1, its difference from the plain tagger on
the same notes, and the fresh adversary's final and highest accuracy.

Jobs of a corpus start after its first job (three-phase, N = 100), which trains the vectors and the phase-1 model
that the others load (``--phase1-cache``); the rest are ordered longest first (estimated CPU seconds from the
measured full runs, :data:`COST`) onto whichever worker is free. Each job writes its own
``privrep_<corpus>_fullrun_<job>.json`` under ``--out-dir``. ``--dry-run`` prints the jobs, their commands and the
estimated wall time of the schedule without running anything. Run it on an otherwise idle machine: the figure is
wall time.
"""

from __future__ import annotations

import argparse
import heapq
import json
import platform
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"

#: the options of the full configuration (README, issue 22 seventh pass), epochs of phase 3 and the attack apart
COMMON = ["--pretrain-epochs", "16", "--adv-warm-epochs", "1", "--deid-loss", "token", "--pretrain-loss", "sentence",
          "--adv-steps", "3", "--noise-lr", "0.05", "--noise-floor", "0.5", "--head-epochs", "12",
          "--phase3-clip", "0.11", "--phase1-cache", "--threads", "1"]
CORPUS_OPTIONS = {"meddocan": [], "physionet": ["--phi-oversample", "4"]}
#: estimated CPU seconds per job at 8 phase-3 epochs, from the full runs of the seventh pass
#: (privrep_meddocan_full*.json, privrep_physionet_full*.json): phase 3 + head + 30-epoch attack; the first job
#: of a corpus adds its vectors and phase 1; baselines: 20 epochs each
#: (privrep_*_full_plain20*.json: 250 / 146 CPU s for the plain tagger, the pseudonymized one alike), plus about
#: 40 s per process to read and encode the notes. They were measured on a loaded machine: the first full run on 2
#: free workers took 43.0 min of wall time against the 91 min these estimate (privrep_full_run.json, per-job CPU
#: seconds there), so the dry run is a conservative upper bound
COST = {("meddocan", "three_phase"): 1352, ("meddocan", "dann"): 730, ("meddocan", "first"): 235,
        ("meddocan", "baselines"): 540, ("physionet", "three_phase"): 695, ("physionet", "dann"): 360,
        ("physionet", "first"): 150, ("physionet", "baselines"): 330}
PHASE3_SHARE = {"meddocan": 1005 / 1352, "physionet": 589 / 695}  # the part of a three-phase job that is phase 3


@dataclass
class Job:
    name: str
    corpus: str
    args: list[str]
    cost: float
    first: bool = False
    result: dict[str, Any] = field(default_factory=dict)


def jobs(epochs: dict[str, int], attack_epochs: int, seed: int, out_dir: Path, work: Path,
         reduce: list[str] | None = None) -> list[Job]:
    """The jobs of the full benchmark (``reduce``: options that make every job smaller, for a smoke run)."""
    out: list[Job] = []
    for corpus in ("meddocan", "physionet"):
        scale = epochs[corpus] / 8
        base = ["--corpus", corpus, *CORPUS_OPTIONS[corpus], *COMMON, "--epochs", str(epochs[corpus]),
                "--attack-epochs", str(attack_epochs), "--seed", str(seed), "--work", str(work)]
        share = PHASE3_SHARE[corpus]
        for strategy in ("three_phase", "dann"):
            for n in (100, 1, 10, 500) if strategy == "three_phase" else (1, 10, 100, 500):
                name = f"{corpus}_{strategy}_N{n}"
                cost = COST[(corpus, strategy)] * (share * scale + (1 - share))
                first = strategy == "three_phase" and n == 100
                if first:
                    cost += COST[(corpus, "first")]
                out.append(Job(name, corpus, [*base, "--skip-baselines", "--n", str(n), "--strategies", strategy,
                                              "--variant", "fullrun", "--out",
                                              str(out_dir / f"privrep_{corpus}_fullrun_{strategy}_N{n}.json")],
                               cost, first))
        out.append(Job(f"{corpus}_baselines", corpus,
                       [*base, "--baselines", "plain", "pseudonymized", "--baselines-only", "--baseline-epochs", "20",
                        "--out", str(out_dir / f"privrep_{corpus}_fullrun_baselines.json")],
                       COST[(corpus, "baselines")]))
    for j in out:  # later options win: a smoke run's come last
        j.args += reduce or []
    return out


def schedule(all_jobs: list[Job], workers: int) -> float:
    """The estimated wall seconds of the order :func:`run` uses (a first job of each corpus, then longest first)."""
    free = [0.0] * workers
    ready_at = {}
    for j in sorted((j for j in all_jobs if j.first), key=lambda j: -j.cost):
        t = heapq.heappop(free)
        ready_at[j.corpus] = t + j.cost
        heapq.heappush(free, t + j.cost)
    for j in sorted((j for j in all_jobs if not j.first), key=lambda j: -j.cost):
        t = max(heapq.heappop(free), ready_at[j.corpus])
        heapq.heappush(free, t + j.cost)
    return max(free)


def _cpu_of(path: Path) -> float | None:
    try:
        return float(json.loads(path.read_text(encoding="utf-8")).get("timing", {}).get("total_cpu_s"))
    except (OSError, ValueError, TypeError):
        return None


def run(all_jobs: list[Job], workers: int, log_dir: Path) -> float:
    """Run the jobs, ``workers`` at a time; returns the total wall seconds."""
    t0 = time.perf_counter()
    pending = sorted((j for j in all_jobs if not j.first), key=lambda j: -j.cost)
    firsts = sorted((j for j in all_jobs if j.first), key=lambda j: -j.cost)
    done_first: set[str] = set()
    running: list[tuple[subprocess.Popen[bytes], Job, float]] = []
    while firsts or pending or running:
        while len(running) < workers:
            nxt = firsts.pop(0) if firsts else next((j for j in pending if j.corpus in done_first), None)
            if nxt is None:
                break
            if not nxt.first:
                pending.remove(nxt)
            cmd = [sys.executable, str(ROOT / "benchmarks" / "privrep.py"), *nxt.args]
            log = (log_dir / f"{nxt.name}.log").open("wb")
            print(f"[{time.strftime('%H:%M:%S')}] start {nxt.name}", flush=True)
            running.append((subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT), nxt,
                            time.perf_counter()))
        time.sleep(2)
        for proc, job, started in list(running):
            if proc.poll() is None:
                continue
            running.remove((proc, job, started))
            job.result["wall_s"] = round(time.perf_counter() - started, 1)
            job.result["returncode"] = proc.returncode
            print(f"[{time.strftime('%H:%M:%S')}] done {job.name} rc={proc.returncode} "
                  f"({job.result['wall_s']} s)", flush=True)
            if proc.returncode != 0:
                for p, _, _ in running:
                    p.terminate()
                raise SystemExit(f"job {job.name} failed; see {log_dir / (job.name + '.log')}")
            if job.first:
                done_first.add(job.corpus)
    return time.perf_counter() - t0


def summarize(all_jobs: list[Job]) -> list[dict[str, Any]]:
    """One row per run: F1, its difference from the plain tagger of the same corpus, the adversary."""
    plain: dict[str, float] = {}
    rows = []
    for j in all_jobs:
        out = Path(j.args[j.args.index("--out") + 1])
        if not out.exists():
            continue
        res = json.loads(out.read_text(encoding="utf-8"))
        j.result["cpu_s"] = _cpu_of(out)
        for name, b in res.get("baselines", {}).items():
            f1 = b["deid"]["token_binary"]["f1"]
            if name == "plain":
                plain[j.corpus] = f1
            rows.append({"corpus": j.corpus, "model": f"baseline:{name}", "f1": f1})
        for r in res.get("runs", []):
            acc = [a["dev_accuracy"] for a in r.get("attack", [])]
            rows.append({"corpus": j.corpus, "model": r["strategy"], "n": r["n_neighbors"],
                         "f1": r["deid"]["token_binary"]["f1"], "adversary_final": acc[-1] if acc else None,
                         "adversary_max": max(acc) if acc else None,
                         "dev_token_f1_per_epoch": [h["dev_token_f1"] for h in r.get("history", [])
                                                    if "dev_token_f1" in h]})
    for row in rows:
        ref = plain.get(row["corpus"])
        if ref is not None and not row["model"].startswith("baseline"):
            row["f1_minus_plain_points"] = round(100 * (row["f1"] - ref), 2)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=2, help="processes at a time (one torch thread each)")
    ap.add_argument("--epochs", type=int, default=8, help="phase-3 / DANN epochs")
    ap.add_argument("--epochs-meddocan", type=int, default=None, help="phase-3 / DANN epochs on MEDDOCAN "
                    "(default --epochs; its dev F1 curve is within 0.4 points of epoch 8 from epoch 3 on: "
                    "privrep_meddocan_full_curve.json)")
    ap.add_argument("--epochs-physionet", type=int, default=None,
                    help="the same on the English notes (default --epochs; still rising at epoch 6: "
                         "privrep_physionet_full_curve.json)")
    ap.add_argument("--attack-epochs", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", type=Path, default=None,
                    help="vectors and phase-1 cache (default: a fresh folder under /tmp, so nothing is reused)")
    ap.add_argument("--out-dir", type=Path, default=RESULTS)
    ap.add_argument("--out", type=Path, default=RESULTS / "privrep_full_run.json")
    ap.add_argument("--dry-run", action="store_true", help="print the jobs and the estimated wall time only")
    ap.add_argument("--smoke", action="store_true",
                    help="a few notes and one epoch everywhere (checks the runner; its times mean nothing)")
    args = ap.parse_args(argv)
    if args.workers < 1 or min(args.epochs, args.epochs_meddocan or 1, args.epochs_physionet or 1,
                               args.attack_epochs) < 1:
        ap.error("--workers, --epochs and --attack-epochs must be >= 1")
    work = args.work or Path(f"/tmp/clinanon-privrep-fullrun-{time.strftime('%Y%m%d-%H%M%S')}")
    reduce = (["--train-docs", "12", "--dev-docs", "6", "--pretrain-epochs", "1", "--baseline-epochs", "1"]
              if args.smoke else None)
    epochs = {"meddocan": args.epochs_meddocan or args.epochs, "physionet": args.epochs_physionet or args.epochs}
    all_jobs = jobs(epochs, args.attack_epochs, args.seed, args.out_dir, work, reduce)
    estimate = schedule(all_jobs, args.workers)
    print(f"{len(all_jobs)} jobs, {sum(j.cost for j in all_jobs):.0f} CPU s estimated; on {args.workers} "
          f"workers about {estimate / 60:.0f} min of wall time")
    if args.dry_run:
        for j in all_jobs:
            print(f"  {j.name:28s} ~{j.cost:6.0f} s  python benchmarks/privrep.py {shlex.join(j.args)}")
        return 0
    work.mkdir(parents=True, exist_ok=True)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    total = run(all_jobs, args.workers, work)
    rows = summarize(all_jobs)
    out = {"benchmark": "privrep_full", "python": platform.python_version(), "machine": platform.machine(),
           "reduced": args.smoke, "workers": args.workers, "epochs": epochs,
           "attack_epochs": args.attack_epochs, "seed": args.seed,
           "total_wall_s": round(total, 1), "total_wall_min": round(total / 60, 1),
           "estimated_wall_s": round(estimate, 1),
           "jobs": [{"name": j.name, "estimated_cpu_s": round(j.cost), **j.result} for j in all_jobs],
           "table": rows,
           "command": f"python benchmarks/privrep_full.py --workers {args.workers} --epochs-meddocan "
                      f"{epochs['meddocan']} --epochs-physionet {epochs['physionet']} "
                      f"--attack-epochs {args.attack_epochs} --seed {args.seed}"}
    args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"total wall {total / 60:.1f} min -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
