"""The local engine (issue 17): N worker processes give the outputs of one, in input order, with error records in
place of bad inputs; the input is read only a bounded distance ahead of the output."""

from __future__ import annotations

import json
import threading
from multiprocessing.pool import ThreadPool
from pathlib import Path

import pytest

from clinanon import io as cio
from clinanon.batch import bounded_imap
from clinanon.config import Config
from clinanon.engines.local import Throughput, run_local
from clinanon.errors import ConfigError

CONFIG = Config.from_dict({"language": "en", "detectors": {"use": ["rules"]},
                           "operators": {"*": {"operator": "tag", "template": "[{type}]"}}})


def _corpus(path: Path, n: int) -> list[str]:
    lines = []
    for i in range(n):
        lines.append(json.dumps({"id": f"n{i:03d}", "text": f"Seen by Dr. Margaret Whitfield on 3/{1 + i % 28}/2019, "
                                 f"call 617-555-{1000 + i:04d}. Note {i}."}))
    lines.insert(7, "{not json")  # a bad record: an error record, the run goes on
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lines


def test_two_workers_give_the_output_of_one_in_order(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    _corpus(src, 40)
    one = run_local(src, tmp_path / "one.jsonl", CONFIG, workers=1)
    two = run_local(src, tmp_path / "two.jsonl", CONFIG, workers=2, chunk_size=3, max_pending=2)
    assert (one.processed, one.errors) == (two.processed, two.errors) == (40, 1)
    assert (tmp_path / "one.jsonl").read_text() == (tmp_path / "two.jsonl").read_text()
    docs = list(cio.read(tmp_path / "two.jsonl"))
    # in input order (the default metadata policy names outputs by record number)
    assert [d.id for d in docs] == [f"record-{n:06d}" for n in range(1, 42) if n != 8]
    assert all("Whitfield" not in d.text and "617-555" not in d.text for d in docs)
    errors = [json.loads(line) for line in two.errors_path.read_text().splitlines()]
    assert [e["record"] for e in errors] == [8]


def test_bad_options_fail_before_anything_is_written(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    _corpus(src, 3)
    with pytest.raises(ConfigError):
        run_local(src, tmp_path / "out.jsonl", CONFIG, workers=0)
    assert not (tmp_path / "out.jsonl").exists()


def test_bounded_imap_reads_a_bounded_distance_ahead() -> None:
    read = 0
    lock = threading.Lock()

    def tasks():
        nonlocal read
        for i in range(1_000):
            with lock:
                read += 1
            yield i

    ahead = []
    with ThreadPool(2) as pool:
        for k, result in enumerate(bounded_imap(pool, lambda x: x * x, tasks(), max_pending=5)):
            assert result == k * k  # in order
            ahead.append(read - k)
    assert max(ahead) <= 6  # Pool.imap would have read all 1 000 at once
    with pytest.raises(ValueError), ThreadPool(1) as pool:
        list(bounded_imap(pool, abs, [1], 0))


def test_throughput_rate_and_eta() -> None:
    seen = []
    tp = Throughput(total=100, on_update=seen.append)
    tp.started -= 10.0  # ten seconds ago
    tp(25)
    assert seen == [tp]
    assert 2.0 < tp.rate <= 2.5
    assert tp.eta is not None and 29.0 < tp.eta < 31.0
    assert Throughput()(1) is None and Throughput().eta is None
