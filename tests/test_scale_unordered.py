"""Unordered output of the local engine (issue 17): results are journaled as their chunk finishes, so a slow note
holds back no other; every record is written once, errors stay in input order, and a stopped run resumes."""

from __future__ import annotations

import json
import threading
import time
from multiprocessing.pool import ThreadPool
from pathlib import Path

import pytest

from clinanon.batch import bounded_imap_unordered, journal_path
from clinanon.config import Config
from clinanon.engines.local import run_local

CONFIG = Config.from_dict({"language": "en", "detectors": {"use": ["rules"]},
                           "operators": {"*": {"operator": "tag", "template": "[{type}]"}}})


def _corpus(path: Path, n: int) -> None:
    lines = [json.dumps({"id": f"n{i:03d}", "text": f"Seen by Dr. Margaret Whitfield on 3/{1 + i % 28}/2019, "
                         f"call 617-555-{1000 + i:04d}. Note {i}."}) for i in range(n)]
    lines.insert(7, "{not json")  # a bad record
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_a_slow_task_does_not_hold_back_the_others() -> None:
    release = threading.Event()
    read = 0

    def tasks():
        nonlocal read
        for i in range(20):
            read += 1
            yield i

    def fn(x: int) -> int:
        if x == 0:
            assert release.wait(10)  # finishes only once later results have been taken
        return x

    got = []
    with ThreadPool(3) as pool:
        for r in bounded_imap_unordered(pool, fn, tasks(), max_pending=4):
            got.append(r)
            assert read - len(got) <= 4  # never more than max_pending in flight
            if len(got) == 5:
                release.set()
    assert sorted(got) == list(range(20)) and got[0] != 0 and got.index(0) >= 5
    with pytest.raises(ValueError), ThreadPool(1) as pool:
        list(bounded_imap_unordered(pool, abs, [1], 0))


def test_an_exception_of_a_task_is_raised() -> None:
    def fn(x: int) -> int:
        if x == 3:
            raise KeyError(x)
        time.sleep(0.001)
        return x

    with ThreadPool(2) as pool, pytest.raises(KeyError):
        list(bounded_imap_unordered(pool, fn, range(10), max_pending=2))


def test_unordered_output_holds_every_record_once_and_a_stopped_run_resumes(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    _corpus(src, 40)
    ordered = run_local(src, tmp_path / "ordered.jsonl", CONFIG, workers=1)
    out = tmp_path / "loose.jsonl"

    def stop(done: int) -> None:
        if done >= 15:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_local(src, out, CONFIG, workers=2, chunk_size=3, max_pending=2, ordered=False, progress=stop)
    assert not out.exists()
    journaled = len(_lines(journal_path(out)))
    assert 15 <= journaled < 41
    loose = run_local(src, out, CONFIG, workers=2, chunk_size=3, max_pending=2, ordered=False, resume=True)
    assert loose.resumed == journaled and loose.total == 41
    assert (ordered.processed, ordered.errors) == (40, 1)
    assert sorted(_lines(out)) == sorted(_lines(tmp_path / "ordered.jsonl"))  # each record once
    assert loose.errors_path.read_text() == ordered.errors_path.read_text()  # in input order
    assert [json.loads(line)["record"] for line in _lines(loose.errors_path)] == [8]


def test_cli_unordered_flag_writes_every_record_once(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from clinanon.cli import app

    src = tmp_path / "notes.jsonl"
    notes = [{"id": f"n{i:03d}", "text": f"Seen by Dr. Margaret Whitfield on 3/{1 + i}/2019."} for i in range(24)]
    src.write_text("\n".join(json.dumps(n) for n in notes) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(app, ["deidentify", str(src), "--out", str(out), "--lang", "en", "--workers", "2",
                                   "--unordered", "--ids", "keep"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in _lines(out)]
    assert sorted(r["id"] for r in rows) == [f"n{i:03d}" for i in range(24)]
    assert not any("Whitfield" in r["text"] for r in rows)
