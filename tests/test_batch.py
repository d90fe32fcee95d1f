"""Batch runs: every input yields an output or an error record; atomic outputs; resume after kill -9."""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from clinanon import batch as batch_module
from clinanon import io as cio
from clinanon.batch import freeze_loaded, journal_path, run_batch
from clinanon.document import Document, Span
from clinanon.errors import ClinanonError, InputError
from clinanon.transform import anonymize

SECRET = "Wenceslao"


def _upper(doc: Document) -> Document:
    if "boom" in doc.text:
        raise RuntimeError(f"failure while handling {doc.text}")  # must not reach the errors report
    return doc.with_spans([Span(0, 1, "X")])


def _write_jsonl(path: Path, docs: list[Document]) -> None:
    path.write_text("".join(json.dumps(d.to_dict()) + "\n" for d in docs), encoding="utf-8")


def test_every_input_yields_output_or_error(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    good = [Document(f"d{i}", f"texto {i}") for i in range(3)]
    lines = [json.dumps(d.to_dict()) for d in good]
    lines.insert(1, '{"id": "bad", "text": ')  # malformed JSON on line 2
    lines.append(json.dumps(Document("crash", f"boom {SECRET}").to_dict()))
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    result = run_batch(cio.iter_records(src), lambda: _upper, out, "jsonl")
    assert (result.processed, result.errors, result.resumed) == (3, 2, 0)
    assert [d.id for d in cio.read(out)] == ["d0", "d1", "d2"]
    errors = [json.loads(line) for line in result.errors_path.read_text().splitlines()]
    assert len(errors) == 2
    assert errors[0]["line"] == 2 and errors[0]["path"] == str(src)
    assert errors[1]["doc_id"] == "crash" and "RuntimeError" in errors[1]["reason"]
    assert SECRET not in result.errors_path.read_text()
    assert not journal_path(out).exists()


def test_refuses_to_clobber_and_overwrites_on_request(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    _write_jsonl(src, [Document("a", "x")])
    out = tmp_path / "out"
    run_batch(cio.iter_records(src), lambda: _upper, out, "text")
    with pytest.raises(ClinanonError, match="already exists"):
        run_batch(cio.iter_records(src), lambda: _upper, out, "text")
    run_batch(cio.iter_records(src), lambda: _upper, out, "text", overwrite=True)
    assert sorted(p.name for p in out.iterdir()) == ["a.txt"]


def test_resume_skips_finished_and_cuts_half_written_line(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    docs = [Document(f"d{i}", f"nota {i}") for i in range(4)]
    _write_jsonl(src, docs)
    out = tmp_path / "out.jsonl"
    journal = journal_path(out)
    # simulate a run killed after two documents, in the middle of writing the third line
    done = [json.dumps({"key": f"rec:{i + 1}:d{i}", "ok": _upper(docs[i]).to_dict()}) for i in range(2)]
    journal.write_text("\n".join(done) + '\n{"key": "rec:3:d2", "ok": {"id"', encoding="utf-8")
    with pytest.raises(ClinanonError, match="--resume"):
        run_batch(cio.iter_records(src), lambda: _upper, out, "jsonl")
    calls: list[str] = []

    def counting(doc: Document) -> Document:
        calls.append(doc.id)
        return _upper(doc)

    result = run_batch(cio.iter_records(src), lambda: counting, out, "jsonl", resume=True)
    assert calls == ["d2", "d3"]
    assert (result.processed, result.resumed) == (2, 2)
    assert [d.id for d in cio.read(out)] == ["d0", "d1", "d2", "d3"]


def test_two_workers_give_the_same_output(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    docs = [Document(f"d{i}", f"Paciente {i} ingresa el 3/4/2020.", (Span(9, 10, "ID"),)) for i in range(20)]
    _write_jsonl(src, docs)

    def factory():
        return lambda d: anonymize(d)

    a = run_batch(cio.iter_records(src), factory, tmp_path / "a.jsonl", "jsonl")
    b = run_batch(cio.iter_records(src), factory, tmp_path / "b.jsonl", "jsonl", workers=2)
    assert a.processed == b.processed == 20
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()


_SLOW_RUN = textwrap.dedent(
    """
    import sys, time
    from clinanon import io as cio
    from clinanon.batch import run_batch

    def slow(doc):
        time.sleep(0.05)
        return doc

    run_batch(cio.iter_records(sys.argv[1]), lambda: slow, sys.argv[2], "text", resume=len(sys.argv) > 3)
    """
)


def test_kill_9_then_resume(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    _write_jsonl(src, [Document(f"d{i:03d}", f"nota {i}") for i in range(200)])
    out = tmp_path / "out"
    script = tmp_path / "run.py"
    script.write_text(_SLOW_RUN, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, str(script), str(src), str(out)])
    journal = journal_path(out)
    deadline = time.time() + 30
    while time.time() < deadline and (not journal.exists() or journal.stat().st_size < 2000):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not out.exists(), "no partial output may exist after a kill"
    finished = len(journal.read_text(encoding="utf-8").splitlines())
    assert 0 < finished < 200
    subprocess.run([sys.executable, str(script), str(src), str(out), "resume"], check=True)
    assert sorted(p.stem for p in out.iterdir()) == [f"d{i:03d}" for i in range(200)]
    assert not journal.exists()
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert leftovers == []


def test_input_error_records_are_json_safe() -> None:
    rec = InputError("bad offset", path="x.ann", line=3, offset=10).to_record()
    assert json.loads(json.dumps(rec))["line"] == 3


class _BatchingProcessor:
    """Records the batches it gets; fails a whole batch when one document in it is bad."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def __call__(self, doc: Document) -> Document:
        return _upper(doc)

    def many(self, docs: list[Document]) -> list[Document]:
        self.batches.append([d.id for d in docs])
        return [_upper(d) for d in docs]


def test_processors_with_many_get_batches_and_bad_documents_stay_alone(tmp_path: Path) -> None:
    from clinanon import batch

    docs = [Document(f"d{i}", f"texto {i}") for i in range(batch.BATCH_SIZE + 5)]
    docs[3] = Document("crash", f"boom {SECRET}")
    src = tmp_path / "in.jsonl"
    _write_jsonl(src, docs)
    proc = _BatchingProcessor()
    out = tmp_path / "out.jsonl"
    result = run_batch(cio.iter_records(src), lambda: proc, out, "jsonl")
    assert [len(b) for b in proc.batches] == [batch.BATCH_SIZE, 5]  # the first batch failed, then ran one by one
    assert (result.processed, result.errors) == (len(docs) - 1, 1)
    assert [d.id for d in cio.read(out)] == [d.id for d in docs if d.id != "crash"]
    assert SECRET not in result.errors_path.read_text()


def test_pipeline_processor_batches_give_the_same_output(tmp_path: Path) -> None:
    from clinanon.config import Config
    from clinanon.runner import PipelineFactory

    docs = [Document(f"n{i}", f"Paciente Juan García, {40 + i} años, vive en Tudela. NHC: 12345{i}.")
            for i in range(6)]
    src = tmp_path / "in.jsonl"
    _write_jsonl(src, docs)
    factory = PipelineFactory(Config.from_dict({"language": "es", "detectors": {"use": ["rules"]}}), False)
    proc = factory()
    assert hasattr(proc, "many")
    out = tmp_path / "out.jsonl"
    run_batch(cio.iter_records(src), factory, out, "jsonl")
    assert [d.spans for d in cio.read(out)] == [proc(d).spans for d in docs]
    assert all(d.spans for d in cio.read(out))


def test_a_run_freezes_what_the_process_has_loaded_after_its_first_batch(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": f"d{i}", "text": f"nota {i}"}) + "\n" for i in range(3)),
                   encoding="utf-8")
    assert gc.get_freeze_count() == 0
    run_batch(cio.iter_records(src), lambda: _upper, tmp_path / "a.jsonl", "jsonl", freeze=False)
    assert gc.get_freeze_count() == 0 and not batch_module._FROZEN
    result = run_batch(cio.iter_records(src), lambda: _upper, tmp_path / "b.jsonl", "jsonl")
    assert result.processed == 3
    assert batch_module._FROZEN and gc.get_freeze_count() > 1000  # the loaded modules, among others
    frozen = gc.get_freeze_count()
    freeze_loaded()  # once per process
    assert gc.get_freeze_count() == frozen
