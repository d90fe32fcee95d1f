"""Scale: one long note (time and peak memory against its length) and the local engine (1 vs N workers).

Every measurement runs in a child process of its own (``python benchmarks/scale.py --child ...``), so that its
peak memory is its own: ``VmHWM`` of the process, and for the engine also the largest worker's
(``RUSAGE_CHILDREN``). Inputs are synthetic, made here from the development corpora in ``../shared/data`` and
never written into the repository:

* **long notes**: the notes of MEDDOCAN dev (``es``, the default pipeline: rules + CRF) or of the PhysioNet
  nursing notes (``en``, rules), joined by blank lines and repeated up to 1, 5, 50 MB; ``nlp.deidentify(doc)`` of
  one document, timed after the pipeline is built and warmed up on a short note. ``--whole`` also runs the sizes
  listed there in one piece (``Pipeline.long_note_chars = None``: the behaviour before windows) for comparison;
* **local engine**: a JSONL corpus of ``--notes`` notes of about 1 kB (the same notes cut at paragraph breaks,
  cycled), de-identified by :func:`clinanon.engines.local.run_local` with each worker count of ``--workers``.

    nice -n 10 python benchmarks/scale.py --lang en --sizes 1 5 50 --whole 1 --notes 10000 --workers 1 2

``--spark 2`` adds the Spark engine on ``local[2]`` (:func:`clinanon.spark.run_spark`, the same corpus and
configuration; the session's start-up timed apart).

On a shared machine the speed-up of N workers is a lower bound (the cores are not the run's alone).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import rss_mb

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"


def _texts(lang: str, data: Path) -> list[str]:
    folder = data / ("meddocan/dev/brat" if lang == "es" else "physionet-deid-dev/brat")
    return [p.read_text(encoding="utf-8-sig") for p in sorted(folder.glob("*.txt"))]


def long_text(lang: str, chars: int, data: Path) -> str:
    """The notes joined by blank lines, repeated and cut to ``chars`` characters (at a line end)."""
    base = "\n\n".join(_texts(lang, data)) + "\n\n"
    text = base * (chars // len(base) + 1)
    cut = text.rfind("\n", 0, chars)
    return text[:cut if cut > 0 else chars]


def short_notes(lang: str, n: int, data: Path, size: int = 1000) -> list[str]:
    """``n`` notes of about ``size`` characters: the corpus's notes cut at paragraph (else line) breaks, cycled."""
    pieces: list[str] = []
    for text in _texts(lang, data):
        start = 0
        while start < len(text):
            end = len(text) if len(text) - start <= 1.5 * size else max(
                text.rfind("\n", start + size // 2, start + size), start + size)
            piece = text[start:end].strip()
            if len(piece) > 50:
                pieces.append(piece)
            start = end
    return [pieces[i % len(pieces)] for i in range(n)]


# --- children -------------------------------------------------------------------------------------------------
def child_long(lang: str, mb: float, whole: bool, data: Path) -> dict[str, Any]:
    from clinanon.config import Config
    from clinanon.document import Document
    from clinanon.pipeline import Pipeline

    nlp = Pipeline(Config.from_dict({"language": lang}))
    if whole:
        nlp.long_note_chars = None
    nlp.deidentify(Document("warm", "Paciente Juan García, 45 años, Madrid." if lang == "es"
                            else "Pt John Smith seen 4/16 at Holy Cross, 555-1234."))
    base = rss_mb()
    text = long_text(lang, int(mb * 1_000_000), data)
    doc = Document("long", text)
    del text
    t, c = time.perf_counter(), time.process_time()
    out = nlp.deidentify(doc)
    return {"lang": lang, "mb": mb, "chars": len(doc.text), "windows": not whole,
            "seconds": round(time.perf_counter() - t, 1), "cpu_seconds": round(time.process_time() - c, 1),
            "replacements": len(out.replacements), "rss_after_load_mb": base, "peak_rss_mb": rss_mb()}


def child_engine(lang: str, corpus: Path, workers: int) -> dict[str, Any]:
    from clinanon.config import Config
    from clinanon.engines.local import run_local

    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        res = run_local(corpus, Path(tmp) / "out.jsonl", Config.from_dict({"language": lang}), workers=workers)
        seconds = time.perf_counter() - t
    notes = res.processed + res.errors
    chars = sum(len(json.loads(line)["text"]) for line in corpus.open(encoding="utf-8"))
    worker_peak = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1) if workers > 1 else None
    return {"lang": lang, "workers": workers, "notes": notes, "errors": res.errors, "chars": chars,
            "seconds": round(seconds, 1), "notes_per_s": round(notes / seconds, 1),
            "chars_per_s": round(chars / seconds), "parent_peak_rss_mb": rss_mb(), "worker_peak_rss_mb": worker_peak}


def child_spark(lang: str, corpus: Path, cores: int) -> dict[str, Any]:
    """The same corpus through the Spark engine (:func:`clinanon.spark.run_spark`) on ``local[cores]``: the start-up
    of the session apart, then JSONL in, Parquet out. Memory: the driver's peak only (the JVM and the Python
    workers are other processes)."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    t = time.perf_counter()
    from pyspark.sql import SparkSession

    from clinanon.config import Config
    from clinanon.spark import run_spark

    spark = (SparkSession.builder.master(f"local[{cores}]").config("spark.driver.host", "127.0.0.1")
             .config("spark.driver.bindAddress", "127.0.0.1").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    startup = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        res = run_spark(corpus, Path(tmp) / "out.parquet", Config.from_dict({"language": lang}), spark=spark,
                        partitions=4 * cores)
        seconds = time.perf_counter() - t
    spark.stop()
    notes = res.processed + res.errors
    chars = sum(len(json.loads(line)["text"]) for line in corpus.open(encoding="utf-8"))
    return {"lang": lang, "engine": f"spark local[{cores}]", "notes": notes, "errors": res.errors, "chars": chars,
            "startup_seconds": round(startup, 1), "seconds": round(seconds, 1),
            "notes_per_s": round(notes / seconds, 1), "chars_per_s": round(chars / seconds),
            "driver_peak_rss_mb": rss_mb()}


def _run_child(args: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", *args]
    print("  $", " ".join(cmd[1:]), file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return {"error": f"exit {proc.returncode}", "stderr_tail": proc.stderr[-2000:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", default="en", choices=["en", "es"])
    ap.add_argument("--sizes", nargs="*", type=float, default=[1, 5, 50], help="long notes, MB (characters / 1e6)")
    ap.add_argument("--whole", nargs="*", type=float, default=[1], help="sizes also run in one piece (before)")
    ap.add_argument("--notes", type=int, default=10_000, help="notes of the engine corpus (0: no engine run)")
    ap.add_argument("--engine-lang", default=None, help="language of the engine corpus (default: --lang)")
    ap.add_argument("--workers", nargs="*", type=int, default=[1, 2])
    ap.add_argument("--spark", nargs="*", type=int, default=[],
                    help="also the Spark engine on local[N] for each N given (needs the spark extra and Java)")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "scale.json")
    ap.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, *rest = args.child
        if kind == "long":
            result = child_long(rest[0], float(rest[1]), rest[2] == "whole", args.data)
        elif kind == "spark":
            result = child_spark(rest[0], Path(rest[1]), int(rest[2]))
        else:
            result = child_engine(rest[0], Path(rest[1]), int(rest[2]))
        print(json.dumps(result))
        return

    result: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "note": "a shared machine (other processes ran at the same time): speed-ups are lower bounds"},
        "command": "python benchmarks/scale.py " + " ".join(sys.argv[1:]), "long_notes": [], "engine": []}
    for mb in args.sizes:
        for whole in ([False, True] if mb in args.whole else [False]):
            r = _run_child(["long", args.lang, str(mb), "whole" if whole else "windows"])
            print(json.dumps(r), file=sys.stderr)
            result["long_notes"].append(r)
    runs = {(r.get("mb"), r.get("windows")): r for r in result["long_notes"] if "seconds" in r}
    one = runs.get((1.0, True))
    if one is not None:
        result["linearity"] = {f"{mb:g} MB / (size x 1 MB)": round(r["seconds"] / (mb * one["seconds"]), 2)
                               for (mb, w), r in runs.items() if w and mb != 1.0}
    if args.notes:
        lang = args.engine_lang or args.lang
        with tempfile.TemporaryDirectory() as tmp:
            corpus = Path(tmp) / "corpus.jsonl"
            with corpus.open("w", encoding="utf-8") as fh:
                for i, text in enumerate(short_notes(lang, args.notes, args.data)):
                    fh.write(json.dumps({"id": f"n{i:07d}", "text": text, "meta": {"patient": f"p{i // 10}"}},
                                        ensure_ascii=False) + "\n")
            for w in args.workers:
                r = _run_child(["engine", lang, str(corpus), str(w)])
                print(json.dumps(r), file=sys.stderr)
                result["engine"].append(r)
            for cores in args.spark:
                r = _run_child(["spark", lang, str(corpus), str(cores)])
                print(json.dumps(r), file=sys.stderr)
                result.setdefault("spark", []).append(r)
        base = next((r for r in result["engine"] if r.get("workers") == 1 and "seconds" in r), None)
        if base is not None:
            result["speedup"] = {str(r["workers"]): round(base["seconds"] / r["seconds"], 2)
                                 for r in result["engine"] if "seconds" in r}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "machine"}, indent=1))


if __name__ == "__main__":
    main()
