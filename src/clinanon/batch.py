"""Batch runs that survive bad documents and ``kill -9``.

Every input record yields either an output document or an error record. Results are appended to a journal
(``.<out>.clinanon-part``, one JSON line per document, flushed after each) next to the output; when every input is
done the journal is turned into the requested output format atomically (temp file or folder + rename) and removed.
An interrupted run resumes with ``resume=True``: finished documents are read back from the journal, a half-written
last line is cut off, and only the rest is processed. The final output never exists half-written. ``overwrite=True``
starts again: it removes the journal of an unfinished run and the temporary files a killed run left next to the
output, and replaces the output at the end.

Records are numbered in input order from 1 (documents and error records alike): the journal keys a record by its
number and its output id (so two input documents with the same id are two records), and every entry of the errors
report carries ``record`` (that number) besides ``path``, ``line`` and ``offset``. With ``output_id`` (the
metadata policy of :mod:`clinanon.metadata`: a keyed pseudonym or ``record-<n>``) the outputs, the journal and the
errors report name a document by its output id only, never by its input id; ``locate`` (the reader's
:attr:`~clinanon.io.base.ReadStats.last_path` / ``last_line``) lets an error found while a document is processed
name the file and line it came from. An output that cannot be written (a lone surrogate in a text that a reader
let through) becomes an error record; the run goes on.

A processor with a ``many(docs)`` method (the pipeline's, see :meth:`clinanon.pipeline.Pipeline.pipe`) gets the
documents in batches of :data:`BATCH_SIZE` (each detection step runs over the whole batch: faster); when a batch
fails, its documents are processed one by one, so that only the bad ones become error records.

The errors report (JSONL: path, line, offset, doc id, error type, reason — never document text) is written
atomically at the end, also when there are no errors, so a run always accounts for every input.

After the first batch, each process exempts what it has loaded from the cyclic garbage collector
(:func:`freeze_loaded`): models, word lists and indexes are hundreds of thousands of long-lived objects that every
full collection would walk again.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import queue
import re
import shutil
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import IO, Any

from clinanon.document import Document, SanitizedDocument
from clinanon.errors import ClinanonError, InputError

__all__ = ["BATCH_SIZE", "BatchResult", "Locate", "OutputId", "Processor", "bounded_imap",
           "bounded_imap_unordered", "freeze_loaded", "journal_path", "run_batch"]

Processor = Callable[[Document], Document | SanitizedDocument]
Record = Document | InputError
#: ``(record number, input id) -> output id``
OutputId = Callable[[int, str], str]
#: ``() -> (path, line)`` of the record read last
Locate = Callable[[], tuple[str | None, int | None]]
#: documents handed at once to a processor that has a ``many(docs)`` method (per worker process)
BATCH_SIZE = 32
_Result = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class BatchResult:
    out: Path
    errors_path: Path
    processed: int
    resumed: int
    errors: int
    #: the reader's counters (:class:`clinanon.io.ReadStats`) when the caller passed them on, else ``None``
    read_stats: Any = None

    @property
    def total(self) -> int:
        return self.processed + self.resumed + self.errors


def journal_path(out: Path) -> Path:
    return out.parent / f".{out.name}.clinanon-part"


def default_errors_path(out: Path) -> Path:
    return out.parent / f"{out.name}.errors.jsonl"


def _record_key(n: int, out_id: str | None) -> str:
    """The journal key of record ``n``: its number and output id (``error`` for a record that is an error)."""
    return f"rec:{n}:{out_id if out_id is not None else 'error'}"


@dataclass(frozen=True)
class _Item:
    """A document on its way through the processor: its record number, ids and input location."""

    n: int
    key: str
    in_id: str
    out_id: str
    where: tuple[str | None, int | None]


def _as_output(result: Document | SanitizedDocument) -> Document:
    if isinstance(result, SanitizedDocument):
        doc = result.to_document()
        return doc.with_meta(replacements=[r.to_dict() for r in result.replacements])
    return result


def _error_record(exc: BaseException, doc: Document | None) -> InputError:
    if isinstance(exc, InputError):
        return exc
    reason = str(exc) if isinstance(exc, ClinanonError) else f"internal error ({type(exc).__name__})"
    return InputError(reason, doc_id=doc.id if doc is not None else None)


def _read_journal(path: Path) -> set[str]:
    """Keys of finished records; a half-written last line (interrupted write) is cut off."""
    done: set[str] = set()
    if not path.exists():
        return done
    good_end = 0
    with path.open("rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                break
            try:
                entry = json.loads(raw)
            except json.JSONDecodeError:
                break
            if not str(entry.get("key", "")).startswith("rec:"):
                raise ClinanonError(f"{path}: written by an older version of clinanon, which keyed records "
                                    "differently; rerun with --overwrite to start again")
            done.add(entry["key"])
            good_end += len(raw)
    if good_end != path.stat().st_size:
        with path.open("r+b") as fh:
            fh.truncate(good_end)
    return done


def _journal_entries(path: Path) -> Iterator[dict[str, Any]]:
    with path.open("r", encoding="utf-8") as fh:
        for line in fh:
            yield json.loads(line)


_FROZEN = False


def freeze_loaded() -> None:
    """Exempt every object the process holds now from the cyclic garbage collector (``gc.freeze()`` after a
    collection), once per process.

    :func:`run_batch` calls it after the first batch, when the pipeline has loaded what it loads lazily (models,
    word lists, gazetteer indexes, compiled patterns, the surrogate generators' tables). Otherwise every full
    collection walks them all again: about 40 ms each with the Spanish rules pipeline, which made a run over
    MEDDOCAN dev 3 % slower and its timings vary by 5 %. Frozen objects are still freed by reference counting as
    usual; only garbage cycles among them would stay (the pipeline holds none)."""
    global _FROZEN
    if not _FROZEN:
        _FROZEN = True
        gc.collect()
        gc.freeze()


# --- worker processes --------------------------------------------------------------------------------------
_WORKER: Processor | None = None
_WORKER_FREEZE = False


def _init_worker(factory: Callable[[], Processor], freeze: bool = False) -> None:
    global _WORKER, _WORKER_FREEZE
    _WORKER = factory()
    _WORKER_FREEZE = freeze


def _run_many(docs: list[Document]) -> list[_Result]:
    assert _WORKER is not None
    results = _process_docs(_WORKER, docs)
    if _WORKER_FREEZE:
        freeze_loaded()
    return results


def _run_numbered(task: tuple[int, list[Document]]) -> tuple[int, list[_Result]]:
    """:func:`_run_many` of a numbered chunk, with its number (results that may come back out of order)."""
    k, docs = task
    return k, _run_many(docs)


def _process_docs(processor: Processor, docs: list[Document]) -> list[_Result]:
    """``("ok", output)`` or ``("error", error record)`` for each document, in order: in one batch when the
    processor has a ``many`` method, else (or when the batch fails) one by one."""
    many = getattr(processor, "many", None)
    if many is not None and len(docs) > 1:
        try:
            results = list(many(docs))
        except Exception:
            pass  # one by one: only the documents that fail become errors
        else:
            if len(results) == len(docs):
                return [("ok", _as_output(r).to_dict()) for r in results]
    out: list[_Result] = []
    for doc in docs:
        try:
            out.append(("ok", _as_output(processor(doc)).to_dict()))
        except Exception as exc:
            out.append(("error", _error_record(exc, doc).to_record()))
    return out


def _chunks(docs: Iterable[Any], size: int) -> Iterator[list[Any]]:
    it = iter(docs)
    while chunk := list(islice(it, size)):
        yield chunk


def _process_serial(processor: Processor, docs: Iterable[Document], freeze: bool = False) -> Iterator[_Result]:
    size = BATCH_SIZE if getattr(processor, "many", None) is not None else 1
    for chunk in _chunks(docs, size):
        yield from _process_docs(processor, chunk)
        if freeze:
            freeze_loaded()


def run_batch(
    records: Iterable[Record],
    processor_factory: Callable[[], Processor],
    out: str | Path,
    out_format: str,
    *,
    resume: bool = False,
    overwrite: bool = False,
    errors_path: str | Path | None = None,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    write_options: dict[str, Any] | None = None,
    freeze: bool = True,
    output_id: OutputId | None = None,
    locate: Locate | None = None,
    chunk_size: int = 8,
    max_pending: int | None = None,
    ordered: bool = True,
) -> BatchResult:
    """Process every record and write the outputs to ``out`` in ``out_format``.

    ``records`` come from :func:`clinanon.io.iter_records` (documents, or errors in place of bad ones).
    ``processor_factory`` builds the per-process function (called once per worker). ``progress`` is called
    with the number of records handled so far. ``freeze``: call :func:`freeze_loaded` in each process after its
    first batch. ``output_id(n, input_id)`` names the output of record ``n`` (default: its input id) and hides the
    input ids from the journal and the errors report; ``locate()`` says where the record read last comes from.
    With ``workers > 1``, documents go to the workers in chunks of ``chunk_size``, at most ``max_pending`` chunks
    (default ``4 * workers``) read ahead of the output: memory does not grow with the corpus; outputs stay in
    input order, unless ``ordered=False``: then each chunk's results are journaled as soon as it is done, and the
    output is in the order the chunks finished (a slow note no longer holds back the chunks after it, so the
    workers never wait on it; the errors report stays in input order, and ``resume`` works the same, since the
    journal keys each record by its number).
    """
    from clinanon import io as cio

    out = Path(out)
    errors_file = Path(errors_path) if errors_path is not None else default_errors_path(out)
    journal = journal_path(out)
    if journal.exists() and not resume:
        if not overwrite:
            raise ClinanonError(
                f"{journal}: an earlier run into {out} did not finish; rerun with --resume to continue it, "
                "or with --overwrite to start again"
            )
        journal.unlink()
    if out.exists() and not overwrite:
        raise ClinanonError(f"{out} already exists; pass --overwrite to replace it")
    if overwrite and not resume:
        _remove_leftovers(out, errors_file)
    done = _read_journal(journal) if resume else set()
    out.parent.mkdir(parents=True, exist_ok=True)

    processed = resumed = errors = 0
    handled = 0
    with journal.open("ab") as jf:

        def log(key: str, kind: str, payload: dict[str, Any], item: _Item | None = None) -> str:
            """Append one entry; an output that cannot be encoded (a lone surrogate) is logged as an error."""
            try:
                line = json.dumps({"key": key, kind: payload}, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:
                if kind == "ok":
                    err = InputError("the output cannot be written: it holds a lone surrogate (not valid Unicode "
                                     "text); reader option errors=replace (command line: -O errors=replace) reads "
                                     "it as U+FFFD",
                                     doc_id=item.in_id if item is not None else None)
                    kind, payload = "error", _report(err.to_record(), item.n if item else None,
                                                     item.where if item else (None, None),
                                                     item.out_id if item else None, output_id)
                line = json.dumps({"key": key, kind: payload}).encode("ascii")  # \\u-escaped: always encodable
            jf.write(line + b"\n")
            jf.flush()
            return kind

        def step() -> None:
            nonlocal handled
            handled += 1
            if progress:
                progress(handled)

        def pending_docs() -> Iterator[tuple[_Item, Document]]:
            # a key names its record number, so it comes once: nothing is remembered of the records read (the
            # memory of a run does not grow with the corpus), and a resumed key is forgotten once matched
            nonlocal resumed, errors
            for n, rec in enumerate(records, 1):
                where = locate() if locate is not None else (None, None)
                if isinstance(rec, InputError):
                    key = _record_key(n, None)
                    if key in done:
                        done.discard(key)
                        resumed += 1
                    else:
                        log(key, "error", _report(rec.to_record(), n, where, None, output_id))
                        errors += 1
                    step()
                    continue
                out_id = output_id(n, rec.id) if output_id is not None else rec.id
                key = _record_key(n, out_id)
                if key in done:
                    done.discard(key)
                    resumed += 1
                    step()
                    continue
                yield _Item(n, key, rec.id, out_id, where), rec

        items: deque[_Item] = deque()  # read, not yet accounted for (bounded with the chunks in flight)

        def tracked() -> Iterator[Document]:
            for item, doc in pending_docs():
                items.append(item)
                yield doc

        def account(kind: str, payload: dict[str, Any], item: _Item | None = None) -> None:
            nonlocal processed, errors
            if item is None:
                item = items.popleft()  # results come in input order
            if kind == "ok":
                payload["id"] = item.out_id
            else:
                payload = _report(payload, item.n, item.where, item.out_id, output_id)
            kind = log(item.key, kind, payload, item)
            processed, errors = _account(kind, processed, errors)
            step()

        if workers > 1:
            ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
            limit = max_pending if max_pending is not None else 4 * workers
            with ctx.Pool(workers, initializer=_init_worker, initargs=(processor_factory, freeze)) as pool:
                # batches of a few documents per task: each worker gets the batch path and the load stays even
                if ordered:
                    for batch in bounded_imap(pool, _run_many, _chunks(tracked(), chunk_size), limit):
                        for kind, payload in batch:
                            account(kind, payload)
                else:
                    in_flight: dict[int, list[_Item]] = {}  # chunk number -> its items (at most ``limit``)

                    def numbered() -> Iterator[tuple[int, list[Document]]]:
                        for k, chunk in enumerate(_chunks(pending_docs(), chunk_size)):
                            in_flight[k] = [item for item, _ in chunk]
                            yield k, [doc for _, doc in chunk]

                    for k, batch in bounded_imap_unordered(pool, _run_numbered, numbered(), limit):
                        for chunk_item, (kind, payload) in zip(in_flight.pop(k), batch, strict=True):
                            account(kind, payload, chunk_item)
        else:
            for kind, payload in _process_serial(processor_factory(), tracked(), freeze):
                account(kind, payload)

    _finish(journal, out, out_format, errors_file, overwrite=overwrite, write_options=write_options or {},
            cio_write=cio.write)
    return BatchResult(out, errors_file, processed, resumed, errors)


def bounded_imap(pool: Any, fn: Callable[[Any], Any], tasks: Iterable[Any], max_pending: int) -> Iterator[Any]:
    """``pool.imap(fn, tasks)`` (results in order) with at most ``max_pending`` tasks submitted and not yet
    returned: ``tasks`` is read only as fast as results are taken (``Pool.imap`` reads its whole input at once)."""
    if max_pending < 1:
        raise ValueError(f"max_pending must be at least 1 (got {max_pending})")
    pending: deque[Any] = deque()
    for task in tasks:
        if len(pending) >= max_pending:
            yield pending.popleft().get()
        pending.append(pool.apply_async(fn, (task,)))
    while pending:
        yield pending.popleft().get()


def bounded_imap_unordered(pool: Any, fn: Callable[[Any], Any], tasks: Iterable[Any],
                           max_pending: int) -> Iterator[Any]:
    """``pool.imap_unordered(fn, tasks)`` (results as they finish) with at most ``max_pending`` tasks submitted
    and not yet returned (``tasks`` read only as fast as results are taken). An exception of ``fn`` is raised
    here, when its result would have been yielded."""
    if max_pending < 1:
        raise ValueError(f"max_pending must be at least 1 (got {max_pending})")
    done: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()
    pending = 0
    it = iter(tasks)
    exhausted = False
    while True:
        while not exhausted and pending < max_pending:
            try:
                task = next(it)
            except StopIteration:
                exhausted = True
                break
            pool.apply_async(fn, (task,), callback=lambda r: done.put((True, r)),
                             error_callback=lambda e: done.put((False, e)))
            pending += 1
        if pending == 0:
            return
        ok, value = done.get()
        pending -= 1
        if not ok:
            raise value
        yield value


def _report(record: dict[str, Any], n: int | None, where: tuple[str | None, int | None], out_id: str | None,
            output_id: OutputId | None) -> dict[str, Any]:
    """An errors-report entry: the record number ``n``, the input location ``where`` when the error itself has
    none and, when ``output_id`` hides input ids, the output id in place of the input id (also where the reason
    quotes it)."""
    entry = dict(record)
    entry["record"] = n
    if entry.get("path") is None and where[0] is not None:
        entry["path"], entry["line"] = where
    doc_id = entry.get("doc_id")
    if output_id is not None and doc_id is not None:
        new = out_id if out_id is not None else output_id(n or 0, str(doc_id))
        entry["doc_id"] = new
        if isinstance(entry.get("reason"), str):
            entry["reason"] = entry["reason"].replace(repr(str(doc_id)), repr(new))
    return entry


#: names of the temporary files and folders :func:`tempfile.mkstemp` / ``mkdtemp`` give (8 random characters)
_TEMP_NAME = r"\.{name}\.[a-z0-9_]{{8}}(?:\.tmp)?"


def _remove_leftovers(out: Path, errors_file: Path) -> None:
    """The temporary files and folders that a run killed while writing ``out`` or ``errors_file`` left next to
    them (only names of the exact shape this module and :func:`clinanon.io.atomic_open` create)."""
    for target in (out, errors_file):
        pattern = re.compile(_TEMP_NAME.format(name=re.escape(target.name)))
        try:
            entries = list(target.parent.iterdir())
        except OSError:
            continue
        for entry in entries:
            if pattern.fullmatch(entry.name):
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink(missing_ok=True)


def _account(kind: str, processed: int, errors: int) -> tuple[int, int]:
    return (processed + 1, errors) if kind == "ok" else (processed, errors + 1)


def _finish(journal: Path, out: Path, out_format: str, errors_file: Path, *, overwrite: bool,
            write_options: dict[str, Any], cio_write: Callable[..., None]) -> None:
    """Turn the journal into the final output and the errors report, atomically, then drop the journal."""
    docs = (Document.from_dict(e["ok"]) for e in _journal_entries(journal) if "ok" in e)
    tmp_dir = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        tmp_out = tmp_dir / out.name
        cio_write(docs, tmp_out, out_format, **write_options)
        if out.exists() and overwrite:
            if out.is_dir():
                shutil.rmtree(out)
            else:
                out.unlink()
        os.replace(tmp_out, out)
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)
    _write_errors(journal, errors_file)
    journal.unlink()


def _write_errors(journal: Path, errors_file: Path) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{errors_file.name}.", dir=errors_file.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        _dump_errors(journal, fh)
    os.replace(tmp, errors_file)


def _dump_errors(journal: Path, fh: IO[str]) -> None:
    """The error entries of the journal, in input order (bad records are logged as soon as they are read, the
    documents that fail only once their batch is processed)."""
    found = [e["error"] for e in _journal_entries(journal) if "error" in e]
    found.sort(key=lambda err: err.get("record") or 0)
    for err in found:
        fh.write(json.dumps(err, ensure_ascii=False) + "\n")
