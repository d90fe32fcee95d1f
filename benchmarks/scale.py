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
  cycled; one corpus per size given), de-identified by :func:`clinanon.engines.local.run_local` with each worker
  count of ``--workers``, ``--repeat`` times, the worker counts interleaved (1, 2, 1, 2, ...) so that a change of
  the machine's load falls on both; the JSON gives every run and the medians. ``--unordered`` writes results as
  they finish (``ordered=False``). Each run also reports its CPU time (the parent's and its workers'): notes per
  CPU-second is the rate of one core, which the load of a shared machine changes far less than the wall time.

    nice -n 10 python benchmarks/scale.py --lang en --sizes 1 5 50 --whole 1 --notes 10000 --workers 1 2

Every run records the machine's load average (1 min) before and after it (``load_before``, ``load_after``).

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
import statistics
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


def _cpu_seconds() -> float:
    """CPU time (user + system) of this process and of its children that have ended (the pool's workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def child_engine(lang: str, corpus: Path, workers: int, ordered: bool = True) -> dict[str, Any]:
    from clinanon.config import Config
    from clinanon.engines.local import run_local

    config = Config.from_dict({"language": lang})
    options: dict[str, Any] = {} if ordered else {"ordered": False}
    with tempfile.TemporaryDirectory() as tmp:
        c = _cpu_seconds()
        t = time.perf_counter()
        res = run_local(corpus, Path(tmp) / "out.jsonl", config, workers=workers, **options)
        seconds = time.perf_counter() - t
        cpu = _cpu_seconds() - c
    notes = res.processed + res.errors
    chars = sum(len(json.loads(line)["text"]) for line in corpus.open(encoding="utf-8"))
    worker_peak = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1) if workers > 1 else None
    return {"lang": lang, "workers": workers, "ordered": ordered, "notes": notes, "errors": res.errors,
            "chars": chars, "seconds": round(seconds, 1), "cpu_seconds": round(cpu, 1),
            "notes_per_s": round(notes / seconds, 1), "notes_per_cpu_s": round(notes / cpu, 1) if cpu else None,
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


def child_compare(lang: str, corpus: Path, cores: int) -> dict[str, Any]:
    """The local engine (two workers) and the Spark engine (``local[cores]``) on the same corpus with surrogates in
    patient scope and one key (made here, never written next to the outputs): every note's output id, sanitized
    text, language (the local engine writes none when the configuration fixes it) and pseudonymized patient id
    compared. The key is what makes two runs agree; nothing is shared between the engines."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    import pyarrow.parquet as pq
    from pyspark.sql import SparkSession

    from clinanon.config import Config
    from clinanon.engines.local import run_local
    from clinanon.spark import run_spark
    from clinanon.transform.surrogate.keys import generate_key

    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as secret:
        key = Path(secret) / "clinanon.key"
        key.write_text(generate_key(), encoding="ascii")
        key.chmod(0o600)
        config = Config.from_dict({
            "language": lang,
            "operators": {"*": {"operator": "surrogate", "scope": "patient", "patient_field": "patient",
                                "key_file": str(key)}},
            "metadata": {"pseudonymize_fields": ["patient"]}})
        local_out = Path(tmp) / "local.jsonl"
        res = run_local(corpus, local_out, config, workers=2)
        local = {}
        for line in local_out.open(encoding="utf-8"):
            r = json.loads(line)
            local[r["id"]] = (r["text"], r["meta"].get("lang", lang), r["meta"].get("patient"))
        spark = (SparkSession.builder.master(f"local[{cores}]").config("spark.driver.host", "127.0.0.1")
                 .config("spark.driver.bindAddress", "127.0.0.1").config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        sres = run_spark(corpus, Path(tmp) / "spark.parquet", config, spark=spark, patient_col="patient",
                         partitions=4 * cores)
        spark.stop()
        table = pq.read_table(str(Path(tmp) / "spark.parquet"), columns=["id", "text_deid", "lang", "patient"])
        theirs = {i: (t, la, pa) for i, t, la, pa in zip(*(table.column(c).to_pylist()
                                                           for c in ("id", "text_deid", "lang", "patient")),
                                                         strict=True)}
    same = sum(1 for i, v in local.items() if theirs.get(i) == v)
    parts = {name: sum(1 for i, v in local.items() if i in theirs and theirs[i][k] == v[k])
             for k, name in enumerate(("text", "lang", "patient"))}
    return {"lang": lang, "notes": len(local), "local_errors": res.errors, "spark_errors": sres.errors,
            "spark_notes": len(theirs), "same_ids": len(set(local) & set(theirs)), "same": parts,
            "identical_outputs": same,
            "identical": same == len(local) == len(theirs) and res.errors == sres.errors == 0}


def _load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def _ann_keys(folder: Path) -> set[tuple[str, int, int, str]]:
    """(file, start, end, label) of every ``T`` line of the ``.ann`` files, offsets as written: what the MEDDOCAN
    task's scorer compares (offsets into the ``.txt`` as decoded, a byte-order mark counted)."""
    keys = set()
    for ann in folder.glob("*.ann"):
        for line in ann.read_text(encoding="utf-8").splitlines():
            if line.startswith("T"):
                label, start, end = line.split("\t")[1].split(" ")[:3]
                keys.add((ann.stem, int(start), int(end), label))
    return keys


def _f1(gold: set[Any], pred: set[Any]) -> float:
    tp = len(gold & pred)
    return round(2 * tp / (len(gold) + len(pred)), 4) if gold or pred else 1.0


def child_offsets(data: Path) -> dict[str, Any]:
    """The MEDDOCAN dev notes whose ``.txt`` starts with a byte-order mark, through ``clinanon detect`` (the batch
    runner, default Spanish pipeline, MEDDOCAN labels) into BRAT, scored (subtask 1: exact start, end, label) by
    the task's convention and by clinanon's reader; ``bom=strip`` is the behaviour before issue 17."""
    from clinanon import io as cio
    from clinanon.config import Config
    from clinanon.runner import run_pipeline

    src = data / "meddocan/dev/brat"
    config = Config.from_dict({"language": "es", "label_scheme": "meddocan", "profile": "meddocan"})
    out: dict[str, Any] = {"corpus": "MEDDOCAN dev, the notes whose .txt starts with a BOM"}
    with tempfile.TemporaryDirectory() as tmp:
        notes = Path(tmp) / "in"
        notes.mkdir()
        for txt in sorted(src.glob("*.txt")):
            if txt.read_bytes().startswith(b"\xef\xbb\xbf"):
                for f in (txt, txt.with_suffix(".ann")):
                    (notes / f.name).write_bytes(f.read_bytes())
        out["notes"] = len(list(notes.glob("*.txt")))
        gold_task = _ann_keys(notes)
        gold_ours = {(d.id, *s.key) for d in cio.read(notes, "brat") for s in d.spans}
        for bom in ("strip", "keep"):
            pred = Path(tmp) / bom
            run_pipeline(notes, pred, config, deidentify=False, out_format="brat", read_options={"bom": bom})
            ours = {(d.id, *s.key) for d in cio.read(pred, "brat") for s in d.spans}
            out[f"bom={bom}"] = {"f1_task_convention": _f1(gold_task, _ann_keys(pred)),
                                 "f1_clinanon_reader": _f1(gold_ours, ours)}
    return out


def _run_child(args: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", *args]
    print("  $", " ".join(cmd[1:]), file=sys.stderr, flush=True)
    before = _load()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return {"error": f"exit {proc.returncode}", "child": args[:1] + args[2:] if args[0] == "engine" else args,
                "stderr_tail": proc.stderr[-2000:], "load_before": before, "load_after": _load()}
    return {**json.loads(proc.stdout.strip().splitlines()[-1]), "load_before": before, "load_after": _load()}


def _write_corpus(path: Path, lang: str, n_notes: int, data: Path) -> None:
    """The engine corpus: JSONL, ``n_notes`` notes of about 1 kB, ten notes per patient (``meta.patient``)."""
    with path.open("w", encoding="utf-8") as fh:
        for i, text in enumerate(short_notes(lang, n_notes, data)):
            fh.write(json.dumps({"id": f"n{i:07d}", "text": text, "meta": {"patient": f"p{i // 10}"}},
                                ensure_ascii=False) + "\n")


def _save(out: Path, result: dict[str, Any]) -> None:
    """The JSON so far (after each run: a run stopped half-way keeps what it measured, marked ``unfinished``)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


def _median(runs: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in runs if r.get(key) is not None]
    return round(statistics.median(values), 2) if values else None


def _engine_summary(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per corpus size and worker count: the medians of the runs, their peak memory (largest) and loads."""
    groups: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for r in runs:
        if "seconds" in r:
            groups.setdefault((r["notes"], r["workers"]), []).append(r)
    out = []
    for (notes, workers), rs in sorted(groups.items()):
        out.append({"notes": notes, "workers": workers, "runs": len(rs),
                    "median_seconds": _median(rs, "seconds"), "median_notes_per_s": _median(rs, "notes_per_s"),
                    "median_notes_per_cpu_s": _median(rs, "notes_per_cpu_s"),
                    "median_chars_per_s": _median(rs, "chars_per_s"),
                    "parent_peak_rss_mb": max(r["parent_peak_rss_mb"] for r in rs),
                    "worker_peak_rss_mb": max((r["worker_peak_rss_mb"] or 0) for r in rs) or None,
                    "loads": [[r.get("load_before"), r.get("load_after")] for r in rs]})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", default="en", choices=["en", "es"])
    ap.add_argument("--sizes", nargs="*", type=float, default=[1, 5, 50], help="long notes, MB (characters / 1e6)")
    ap.add_argument("--whole", nargs="*", type=float, default=[1], help="sizes also run in one piece (before)")
    ap.add_argument("--notes", nargs="*", type=int, default=[10_000],
                    help="notes of the engine corpus, one corpus per size (0 or none: no engine run)")
    ap.add_argument("--repeat", type=int, default=1, help="engine runs per corpus and worker count (interleaved)")
    ap.add_argument("--unordered", action="store_true", help="engine output written as results finish")
    ap.add_argument("--engine-lang", default=None, help="language of the engine corpus (default: --lang)")
    ap.add_argument("--workers", nargs="*", type=int, default=[1, 2])
    ap.add_argument("--spark", nargs="*", type=int, default=[],
                    help="also the Spark engine on local[N] for each N given (needs the spark extra and Java)")
    ap.add_argument("--compare", type=int, default=0, metavar="N",
                    help="also check on N notes that the Spark engine (local[2]) writes what the local engine "
                         "writes, with surrogates in patient scope and one key")
    ap.add_argument("--offsets", action="store_true",
                    help="also score MEDDOCAN dev's byte-order-mark notes by the task's offsets and by clinanon's")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "scale.json")
    ap.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, *rest = args.child
        if kind == "long":
            result = child_long(rest[0], float(rest[1]), rest[2] == "whole", args.data)
        elif kind == "offsets":
            result = child_offsets(args.data)
        elif kind == "spark":
            result = child_spark(rest[0], Path(rest[1]), int(rest[2]))
        elif kind == "compare":
            result = child_compare(rest[0], Path(rest[1]), int(rest[2]))
        else:
            result = child_engine(rest[0], Path(rest[1]), int(rest[2]), ordered=rest[3:] != ["unordered"])
        print(json.dumps(result))
        return

    result: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "note": "a shared machine (other processes ran at the same time): speed-ups are lower bounds"},
        "command": "python benchmarks/scale.py " + " ".join(sys.argv[1:]), "unfinished": True, "long_notes": [],
        "engine": []}
    for mb in args.sizes:
        for whole in ([False, True] if mb in args.whole else [False]):
            r = _run_child(["long", args.lang, str(mb), "whole" if whole else "windows"])
            print(json.dumps(r), file=sys.stderr)
            result["long_notes"].append(r)
            _save(args.out, result)
    if args.offsets:
        result["offsets"] = _run_child(["offsets"])
        _save(args.out, result)
    runs = {(r.get("mb"), r.get("windows")): r for r in result["long_notes"] if "seconds" in r}
    one = runs.get((1.0, True))
    if one is not None:
        result["linearity"] = {f"{mb:g} MB / (size x 1 MB)": round(r["seconds"] / (mb * one["seconds"]), 2)
                               for (mb, w), r in runs.items() if w and mb != 1.0}
        result["linearity_cpu"] = {f"{mb:g} MB / (size x 1 MB)": round(r["cpu_seconds"] / (mb * one["cpu_seconds"]), 2)
                                   for (mb, w), r in runs.items() if w and mb != 1.0}
    lang = args.engine_lang or args.lang
    for n_notes in [n for n in args.notes if n > 0]:
        with tempfile.TemporaryDirectory() as tmp:
            corpus = Path(tmp) / "corpus.jsonl"
            _write_corpus(corpus, lang, n_notes, args.data)
            for _ in range(args.repeat):
                for w in args.workers:
                    r = _run_child(["engine", lang, str(corpus), str(w), *(["unordered"] if args.unordered else [])])
                    print(json.dumps(r), file=sys.stderr)
                    result["engine"].append(r)
                    _save(args.out, result)
            for cores in args.spark:
                r = _run_child(["spark", lang, str(corpus), str(cores)])
                print(json.dumps(r), file=sys.stderr)
                result.setdefault("spark", []).append(r)
                _save(args.out, result)
    if args.compare:
        with tempfile.TemporaryDirectory() as tmp:
            corpus = Path(tmp) / "corpus.jsonl"
            _write_corpus(corpus, lang, args.compare, args.data)
            result["spark_vs_local"] = _run_child(["compare", lang, str(corpus), "2"])
            print(json.dumps(result["spark_vs_local"]), file=sys.stderr)
            _save(args.out, result)
    if result["engine"]:
        summary = result["engine_summary"] = _engine_summary(result["engine"])
        result["speedup"] = {}
        for row in summary:
            base = next((b for b in summary if b["notes"] == row["notes"] and b["workers"] == 1), None)
            if base is not None and row["median_seconds"]:
                result["speedup"][f"{row['notes']} notes, {row['workers']} workers"] = round(
                    base["median_seconds"] / row["median_seconds"], 2)
    result.pop("unfinished", None)
    _save(args.out, result)
    print(json.dumps({k: v for k, v in result.items() if k != "machine"}, indent=1))


if __name__ == "__main__":
    main()
