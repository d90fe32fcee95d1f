"""The local engine: ``N`` worker processes over a corpus of any input format, in memory that does not grow with it.

:func:`run_local` reads the records with the input format's reader (:func:`clinanon.io.iter_records`: a stream,
never the whole corpus), hands them in chunks of ``chunk_size`` documents to ``workers`` processes, each of which
builds its pipeline once (:class:`clinanon.runner.PipelineFactory`), and writes the results in input order (or,
``ordered=False``, as each chunk finishes: a very long note then holds back no other, and the workers never wait
for it; the journal, ``resume`` and the errors report work the same). At most ``max_pending`` chunks are read ahead
of the output (:func:`clinanon.batch.bounded_imap`), so the memory of
the parent is the same for 10 000 notes as for 10 million. Everything else is the batch runner's
(:func:`clinanon.batch.run_batch`): a journal flushed per document (``resume=True`` continues a killed run), an
error record in place of each document that cannot be read or processed (the run goes on), the output written
atomically at the end. A note longer than :attr:`Pipeline.long_note_chars
<clinanon.pipeline.Pipeline.long_note_chars>` is detected in windows in its worker (:mod:`clinanon.windows`).

>>> from clinanon.engines.local import run_local                                        # doctest: +SKIP
>>> run_local("notes.jsonl", "deid.jsonl", Config.load("clinanon.toml"), workers=4)       # doctest: +SKIP
BatchResult(out=..., processed=..., resumed=0, errors=0)

``Throughput`` turns the runner's progress callback (records handled) into notes per second and an ETA, for a
progress bar.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinanon.batch import BatchResult
from clinanon.config import Config
from clinanon.errors import ConfigError
from clinanon.runner import prepare_batch

__all__ = ["Throughput", "run_local"]


@dataclass
class Throughput:
    """Records handled, notes per second and the time left (``total``: the number of inputs, when known).

    Call it with the number of records handled so far (the runner's ``progress`` callback); ``on_update`` gets the
    object after each call."""

    total: int | None = None
    on_update: Callable[[Throughput], None] | None = None
    done: int = 0
    started: float = field(default_factory=time.monotonic)

    def __call__(self, done: int) -> None:
        self.done = done
        if self.on_update is not None:
            self.on_update(self)

    @property
    def rate(self) -> float:
        """Records per second since the start."""
        elapsed = time.monotonic() - self.started
        return self.done / elapsed if elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        """Seconds left at the rate so far (``None`` when the total or the rate is unknown)."""
        rate = self.rate
        if self.total is None or rate <= 0:
            return None
        return max(0.0, (self.total - self.done) / rate)


def run_local(input_path: str | Path, out: str | Path, config: Config, *, workers: int = 1,
              deidentify: bool = True, in_format: str | None = None, out_format: str | None = None,
              read_options: dict[str, Any] | None = None, resume: bool = False, overwrite: bool = False,
              errors_path: str | Path | None = None, progress: Callable[[int], None] | None = None,
              chunk_size: int = 8, max_pending: int | None = None, ordered: bool = True) -> BatchResult:
    """De-identify (or, ``deidentify=False``, detect) every document of ``input_path`` into ``out`` with
    ``workers`` processes (see the module docstring). ``chunk_size``: documents per task; ``max_pending``: chunks
    read ahead of the output (default ``4 * workers``); ``ordered=False``: outputs in the order they finish (with
    ``workers > 1``; one worker finishes them in input order). The pipeline is built here first, so that a bad
    configuration fails before the output is touched."""
    if workers < 1 or chunk_size < 1 or (max_pending is not None and max_pending < 1):
        raise ConfigError(f"workers, chunk_size and max_pending must be at least 1 (got {workers}, {chunk_size}, "
                          f"{max_pending})")
    job = prepare_batch(input_path, out, config, deidentify=deidentify, in_format=in_format, out_format=out_format,
                        read_options=read_options)
    return job.run(resume=resume, overwrite=overwrite, workers=workers, errors_path=errors_path, progress=progress,
                   chunk_size=chunk_size, max_pending=max_pending, ordered=ordered)
