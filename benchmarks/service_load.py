"""Load test of ``clinanon serve``: ``POST /deidentify`` with 1 kB notes at 1, 4 and 16 concurrent clients, and the
server's memory over many requests. 127.0.0.1 only; every loop is bounded in requests and seconds.

    nice -n 10 python benchmarks/service_load.py                       # default Spanish pipeline, 1 worker
    nice -n 10 python benchmarks/service_load.py --workers 2 --memory-requests 10000

The server runs in its own process (``clinanon serve`` with a token, as deployed); the clients are one asyncio loop
with httpx (keep-alive connections). Notes: MEDDOCAN dev notes (../shared/data) cut to about 1 000 characters at a
word boundary, else synthetic Spanish notes. Latency: from sending the request to the whole response, per request;
p50 / p90 / p99 per concurrency level. Memory: the resident set (VmRSS) of the server process and its workers, after
the warm-up and then every ``--sample-every`` requests; ``growth_mb`` compares the last sample with the first one
taken after ``--settle`` requests. The machine's load average (other work on a shared machine) is recorded with
each phase. Writes ``benchmarks/results/service_load.json``.
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


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of ``pid`` and its children (seconds)."""
    total = 0
    for p in _pids(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return total / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and its children (MB)."""
    total = 0
    for p in _pids(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return round(total / 1024, 1)


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
    ap.add_argument("--workers", type=int, default=1)
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
           "--workers", str(args.workers), "--log-level", "warning"] + (["--config", args.config] if args.config
                                                                        else [])
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
        result: dict = {"workers": args.workers, "startup_s": startup, "cpus": os.cpu_count(),
                        "note_chars_mean": round(statistics.fmean(len(t) for t in texts)),
                        "notes": "meddocan dev (cut to ~1 kB)" if DEV.is_dir() else "synthetic", "phases": []}
        asyncio.run(run_phase(url, texts, 2, 40, 120))  # warm-up
        for clients in [int(c) for c in args.levels.split(",") if c]:
            load0 = os.getloadavg()
            cpu0 = cpu_seconds(server.pid)
            phase = asyncio.run(run_phase(url, texts, clients, args.requests, args.max_seconds))
            # the server's own CPU time per request: what the latency would be on an idle core
            phase["server_cpu_ms_per_request"] = round((cpu_seconds(server.pid) - cpu0) * 1000 / phase["requests"], 1)
            phase["loadavg_before"] = [round(x, 2) for x in load0]
            phase["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
            result["phases"].append(phase)
            print(json.dumps(phase), flush=True)
        if args.memory_requests:
            samples = [{"requests": 0, "rss_mb": rss_mb(server.pid)}]

            def sample(n: int) -> None:
                if n % args.sample_every == 0:
                    samples.append({"requests": n, "rss_mb": rss_mb(server.pid)})

            load0 = os.getloadavg()
            mem = asyncio.run(run_phase(url, texts, 4, args.memory_requests, args.max_seconds * 4, on_done=sample))
            samples.append({"requests": mem["requests"], "rss_mb": rss_mb(server.pid)})
            base = next((s for s in samples if s["requests"] >= args.settle), samples[0])
            mem.update({"samples": samples, "baseline_after_requests": base["requests"],
                        "growth_mb": round(samples[-1]["rss_mb"] - base["rss_mb"], 1),
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
