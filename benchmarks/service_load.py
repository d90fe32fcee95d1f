"""Load test of ``clinanon serve``: ``POST /deidentify`` with 1 kB notes at 1, 4 and 16 concurrent clients, and the
server's memory over many requests. 127.0.0.1 only; every loop is bounded in requests and seconds.

    python benchmarks/service_load.py --repeat 3                 # default Spanish pipeline, serve's default workers
    python benchmarks/service_load.py --workers 1 --repeat 3 --memory-requests 0 \
        --out benchmarks/results/service_load_workers1.json

The server runs in its own process (``clinanon serve`` with a token, as deployed); the clients are one asyncio loop
with httpx (keep-alive connections). Notes: MEDDOCAN dev notes (../shared/data) cut to about 1 000 characters at a
word boundary, else synthetic Spanish notes. Latency: from sending the request to the whole response, per request;
p50 / p90 / p99 per concurrency level. Memory: the resident set (VmRSS) of the server process and its workers, after
the warm-up and then every ``--sample-every`` requests; ``growth_mb`` compares the last sample with the first one
taken after ``--settle`` requests; with several workers the proportional set size (PSS: shared pages split among
the processes that share them) says what they cost together. The machine's load average (other work on a shared
machine) and the load generator's own CPU time are recorded with each phase; ``--repeat N`` runs the latency phases
N times on the same server and ``summary`` gives their medians (one run on a shared machine says little). Run it at
normal priority: under ``nice`` the server gets less CPU than the other work and the latencies measure that.
Writes ``benchmarks/results/service_load.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT.parent / "shared" / "data" / "meddocan" / "dev" / "brat"
TOKEN = "load-test-token"


def notes(n: int, size: int = 1000) -> list[str]:
    texts: list[str] = []
    if DEV.is_dir():
        for p in sorted(DEV.glob("*.txt"))[:n]:
            t = p.read_text(encoding="utf-8")
            if len(t) > size:
                t = t[:t.rfind(" ", 0, size)]
            texts.append(t)
    rng = random.Random(0)
    names = ["Ana Pérez", "Luis Gil", "María Soto", "Jorge Ruiz", "Elena Vidal"]
    while len(texts) < n:
        t = (f"Paciente: {rng.choice(names)}, {rng.randint(18, 95)} años, NHC {rng.randint(10**6, 10**7)}. "
             f"Ingresa el {rng.randint(1, 28)} de marzo de 20{rng.randint(10, 23)} en el Hospital Clínico de "
             "Valencia por disnea de esfuerzo y dolor torácico. ") * 4
        texts.append(t[:size])
    return texts


def _pids(pid: int) -> list[int]:
    pids = [pid]
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            children = (task / "children").read_text().split()
            pids.extend(int(c) for c in children)
    except OSError:
        pass
    return pids


def cpu_by_process(pid: int) -> dict[int, float]:
    """User + system CPU time (seconds) of ``pid`` and of each of its children."""
    out: dict[int, float] = {}
    for p in _pids(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            out[p] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            continue
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of ``pid`` and its children (seconds)."""
    return sum(cpu_by_process(pid).values())


def _memory_kb(path: str, key: str, pid: int) -> int:
    total = 0
    for p in _pids(pid):
        try:
            for line in Path(f"/proc/{p}/{path}").read_text().splitlines():
                if line.startswith(key):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


def rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and its children (MB; pages shared by forked workers counted in each)."""
    return round(_memory_kb("status", "VmRSS:", pid) / 1024, 1)


def pss_mb(pid: int) -> float:
    """Proportional set size of ``pid`` and its children (MB): a shared page counts 1/n in each of its n users."""
    return round(_memory_kb("smaps_rollup", "Pss:", pid) / 1024, 1)


async def run_phase(url: str, texts: list[str], clients: int, requests: int, max_seconds: float,
                    on_done: object = None) -> dict:
    lat: list[float] = []
    errors = 0
    count = 0
    deadline = time.monotonic() + max_seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {TOKEN}"}, limits=limits,
                                 timeout=60) as client:

        async def worker(k: int) -> None:
            nonlocal errors, count
            while count < requests and time.monotonic() < deadline:
                i = count
                count += 1
                t0 = time.perf_counter()
                r = await client.post("/deidentify", json={"id": f"n{i}", "text": texts[i % len(texts)],
                                                           "meta": {"lang": "es"}})
                lat.append(time.perf_counter() - t0)
                if r.status_code != 200:
                    errors += 1
                if on_done is not None:
                    on_done(len(lat))  # type: ignore[operator]

        t0 = time.perf_counter()
        await asyncio.gather(*(worker(k) for k in range(clients)))
        wall = time.perf_counter() - t0
    lat.sort()

    def q(p: float) -> float:
        return round(lat[min(len(lat) - 1, int(p * len(lat)))] * 1000, 1)

    return {"clients": clients, "requests": len(lat), "errors": errors, "seconds": round(wall, 2),
            "requests_per_s": round(len(lat) / wall, 1), "p50_ms": q(0.50), "p90_ms": q(0.90), "p99_ms": q(0.99),
            "max_ms": round(lat[-1] * 1000, 1), "mean_ms": round(statistics.fmean(lat) * 1000, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", help="clinanon.toml for the server (default: the default pipeline)")
    ap.add_argument("--workers", type=int, default=None, help="server worker processes (default: serve's default)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of the latency phases (medians in summary)")
    ap.add_argument("--levels", default="1,4,16", help="concurrent clients per phase")
    ap.add_argument("--requests", type=int, default=400, help="requests per concurrency level")
    ap.add_argument("--memory-requests", type=int, default=10_000, help="requests of the memory phase (4 clients)")
    ap.add_argument("--sample-every", type=int, default=1000)
    ap.add_argument("--settle", type=int, default=1000, help="requests before the memory baseline")
    ap.add_argument("--max-seconds", type=float, default=900, help="time bound of each phase")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "service_load.json"))
    args = ap.parse_args()

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "clinanon.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
           "--log-level", "warning"] + (["--workers", str(args.workers)] if args.workers else []) + (
        ["--config", args.config] if args.config else [])
    t_start = time.perf_counter()
    server = subprocess.Popen(cmd, env={**os.environ, "CLINANON_SERVICE_TOKEN": TOKEN},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        startup = round(time.perf_counter() - t_start, 1)
        texts = notes(200)
        workers = max(1, len(_pids(server.pid)) - 1)  # with several workers the parent only waits for them
        result: dict = {"workers": workers, "startup_s": startup, "cpus": os.cpu_count(), "repeat": args.repeat,
                        "note_chars_mean": round(statistics.fmean(len(t) for t in texts)),
                        "notes": "meddocan dev (cut to ~1 kB)" if DEV.is_dir() else "synthetic", "phases": []}
        asyncio.run(run_phase(url, texts, 2, 40, 120))  # warm-up
        levels = [int(c) for c in args.levels.split(",") if c]
        for run, clients in [(r, c) for r in range(args.repeat) for c in levels]:
            load0 = os.getloadavg()
            cpu0 = cpu_by_process(server.pid)
            client0 = time.process_time()
            phase = asyncio.run(run_phase(url, texts, clients, args.requests, args.max_seconds))
            client_cpu = time.process_time() - client0
            cpu1 = cpu_by_process(server.pid)
            # the server's own CPU time per request: what the latency would be on an idle core
            per_process = {p: cpu1[p] - cpu0.get(p, 0.0) for p in cpu1}
            phase["server_cpu_ms_per_request"] = round(sum(per_process.values()) * 1000 / phase["requests"], 1)
            phase["run"] = run
            if workers > 1:  # how evenly the keep-alive connections fell on the workers (the parent idles)
                phase["server_cpu_s_per_process"] = sorted((round(v, 2) for v in per_process.values()),
                                                           reverse=True)
            # the load generator shares the machine's cores with the server
            phase["client_cpu_ms_per_request"] = round(client_cpu * 1000 / phase["requests"], 1)
            phase["loadavg_before"] = [round(x, 2) for x in load0]
            phase["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
            result["phases"].append(phase)
            print(json.dumps(phase), flush=True)
        keys = ("p50_ms", "p90_ms", "p99_ms", "requests_per_s", "server_cpu_ms_per_request",
                "client_cpu_ms_per_request")
        result["summary"] = [{"clients": c, "runs": args.repeat, **{
            f"median_{k}": round(statistics.median(p[k] for p in result["phases"] if p["clients"] == c), 1)
            for k in keys}} for c in levels]
        print(json.dumps({"summary": result["summary"]}), flush=True)
        if args.memory_requests:
            samples = [{"requests": 0, "rss_mb": rss_mb(server.pid), "pss_mb": pss_mb(server.pid)}]

            def sample(n: int) -> None:
                if n % args.sample_every == 0:
                    samples.append({"requests": n, "rss_mb": rss_mb(server.pid), "pss_mb": pss_mb(server.pid)})

            load0 = os.getloadavg()
            mem = asyncio.run(run_phase(url, texts, 4, args.memory_requests, args.max_seconds * 4, on_done=sample))
            samples.append({"requests": mem["requests"], "rss_mb": rss_mb(server.pid), "pss_mb": pss_mb(server.pid)})
            base = next((s for s in samples if s["requests"] >= args.settle), samples[0])
            mem.update({"samples": samples, "baseline_after_requests": base["requests"],
                        "growth_mb": round(samples[-1]["rss_mb"] - base["rss_mb"], 1),
                        "pss_growth_mb": round(samples[-1]["pss_mb"] - base["pss_mb"], 1),
                        "loadavg_before": [round(x, 2) for x in load0],
                        "loadavg_after": [round(x, 2) for x in os.getloadavg()]})
            result["memory"] = mem
            print(json.dumps({k: v for k, v in mem.items() if k != "samples"}), flush=True)
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
