"""A configured pipeline over a corpus, through the batch runner: what ``clinanon deidentify`` / ``detect`` do,
for any front end (the CLI, an HTTP service, a Spark job).

:func:`prepare_batch` detects the input format, chooses the output format, registers the configuration's own
label schemes and builds the pipeline once, so that a bad configuration or a missing model fails before anything
is written; the :class:`BatchJob` it returns runs :func:`clinanon.batch.run_batch` (journal, resume, errors report,
worker processes), reporting progress through a callback. :func:`run_pipeline` does both.

>>> from clinanon.runner import run_pipeline                               # doctest: +SKIP
>>> run_pipeline("notes.jsonl", "deid.jsonl", Config.load("clinanon.toml"))  # doctest: +SKIP
BatchResult(out=..., processed=..., resumed=0, errors=0)

Layering: above :mod:`clinanon.pipeline` and :mod:`clinanon.batch`, below :mod:`clinanon.cli`. Nothing here prints.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinanon.batch import BatchResult, run_batch
from clinanon.config import Config
from clinanon.document import Document, SanitizedDocument

__all__ = ["BatchJob", "PipelineFactory", "PipelineProcessor", "count_inputs", "output_format", "prepare_batch",
           "run_pipeline"]


class PipelineProcessor:
    """One document (``__call__``) or a batch (``many``: each detection step over the whole batch) through a
    pipeline: de-identified (a :class:`~clinanon.document.SanitizedDocument`) or detected only (the document with
    the predicted spans)."""

    def __init__(self, nlp: Any, deidentify: bool) -> None:
        self.nlp = nlp
        self.deidentify = deidentify

    def __call__(self, doc: Document) -> Document | SanitizedDocument:
        return self.nlp.deidentify(doc) if self.deidentify else self.nlp.detect(doc)

    def many(self, docs: Sequence[Document]) -> list[Document | SanitizedDocument]:
        return list(self.nlp.pipe(docs, deidentify=self.deidentify, batch_size=max(1, len(docs))))


@dataclass(frozen=True)
class PipelineFactory:
    """Picklable: builds the pipeline's processor inside each worker process (the configuration's own label
    schemes registered there too)."""

    config: Config
    deidentify: bool

    def __call__(self) -> PipelineProcessor:
        from clinanon.pipeline import Pipeline

        return PipelineProcessor(Pipeline(self.config.register_schemes()), self.deidentify)


def output_format(out: Path, out_format: str | None, in_format: str) -> str:
    """``out_format`` when given, else the format of ``out``'s suffix, else the input's format."""
    from clinanon import io as cio

    if out_format:
        return out_format
    return cio.format_for_suffix(out.suffix) or in_format


def count_inputs(path: Path, fmt: str) -> int | None:
    """A cheap count of the input documents, for a progress bar (``None`` when it cannot be counted)."""
    from clinanon import io as cio

    try:
        return cio.count_documents(path, fmt)
    except Exception:
        return None


@dataclass(frozen=True)
class BatchJob:
    """A prepared run of a pipeline over ``input_path`` into ``out`` (see :func:`prepare_batch`)."""

    input_path: Path
    out: Path
    in_format: str
    out_format: str
    factory: PipelineFactory
    read_options: dict[str, Any] = field(default_factory=dict)

    @property
    def description(self) -> str:
        """``"de-identifying (jsonl → brat)"``: what the job does, for a progress bar."""
        verb = "de-identifying" if self.factory.deidentify else "detecting"
        return f"{verb} ({self.in_format} → {self.out_format})"

    def count_inputs(self) -> int | None:
        """The number of input documents, when cheap to count (:func:`count_inputs`)."""
        return count_inputs(self.input_path, self.in_format)

    def run(self, *, resume: bool = False, overwrite: bool = False, workers: int = 1,
            errors_path: str | Path | None = None, progress: Callable[[int], None] | None = None) -> BatchResult:
        """Read, process and write every document (:func:`clinanon.batch.run_batch`); ``progress`` is called with
        the number of records handled so far."""
        from clinanon import io as cio

        records = cio.iter_records(self.input_path, self.in_format, **self.read_options)
        return run_batch(records, self.factory, self.out, self.out_format, resume=resume, overwrite=overwrite,
                         errors_path=errors_path, workers=workers, progress=progress)


def prepare_batch(input_path: str | Path, out: str | Path, config: Config, *, deidentify: bool = True,
                  in_format: str | None = None, out_format: str | None = None,
                  read_options: dict[str, Any] | None = None) -> BatchJob:
    """A :class:`BatchJob`: the input format (``in_format`` or detected), the output format (:func:`output_format`)
    and the pipeline, built once here so that a bad configuration or a missing model fails before the output is
    touched. ``read_options`` go to the reader (``control_chars="strip"``, see ``clinanon formats``)."""
    from clinanon import io as cio

    input_path, out = Path(input_path), Path(out)
    fmt = in_format or cio.detect_format(input_path)
    ofmt = output_format(out, out_format, fmt)
    factory = PipelineFactory(config, deidentify)
    factory()  # fail early (bad config, missing model) before touching the output
    return BatchJob(input_path, out, fmt, ofmt, factory, dict(read_options or {}))


def run_pipeline(input_path: str | Path, out: str | Path, config: Config, *, deidentify: bool = True,
                 in_format: str | None = None, out_format: str | None = None,
                 read_options: dict[str, Any] | None = None, resume: bool = False, overwrite: bool = False,
                 workers: int = 1, errors_path: str | Path | None = None,
                 progress: Callable[[int], None] | None = None) -> BatchResult:
    """:func:`prepare_batch` then :meth:`BatchJob.run`: every document of ``input_path`` de-identified (or, with
    ``deidentify=False``, detected only) into ``out``; the result counts processed, resumed and failed records."""
    job = prepare_batch(input_path, out, config, deidentify=deidentify, in_format=in_format, out_format=out_format,
                        read_options=read_options)
    return job.run(resume=resume, overwrite=overwrite, workers=workers, errors_path=errors_path, progress=progress)
