"""A configured pipeline over a corpus, through the batch runner: what ``clinanon deidentify`` / ``detect`` do,
for any front end (the CLI, an HTTP service, a Spark job).

:func:`prepare_batch` detects the input format, chooses the output format, registers the configuration's own
label schemes and builds the pipeline once, so that a bad configuration or a missing model fails before anything
is written; the :class:`BatchJob` it returns runs :func:`clinanon.batch.run_batch` (journal, resume, errors report,
worker processes), reporting progress through a callback. :func:`run_pipeline` does both.

Each note is processed in its language (``meta.lang``, else the configuration's ``language``, else -- ``auto`` --
identified from its text); a note in an unsupported language, or too short to tell, is not processed: it becomes
a record of the errors report (:class:`~clinanon.lang.identify.LanguageRefused`: the reason, never the text).

De-identification applies the configuration's metadata policy (:mod:`clinanon.metadata`, ``[metadata]``): the
outputs keep the sanitized text, a replaced document id, ``lang`` and the fields the policy lists; the errors
report names documents by record number, file and line and by their output id. ``detect`` writes the original
texts with their ids and metadata (for evaluation). When no detector reads the input's own spans (``gold``), a
BRAT ``.ann`` file that cannot be read does not stop its document: it is read without spans, with a warning, and
counted (:attr:`clinanon.io.ReadStats.bad_annotations`, in :attr:`BatchResult.read_stats`).

>>> from clinanon.runner import run_pipeline                               # doctest: +SKIP
>>> run_pipeline("notes.jsonl", "deid.jsonl", Config.load("clinanon.toml"))  # doctest: +SKIP
BatchResult(out=..., processed=..., resumed=0, errors=0)

Layering: above :mod:`clinanon.pipeline` and :mod:`clinanon.batch`, below :mod:`clinanon.cli`. Nothing here prints.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinanon.batch import BatchResult, run_batch
from clinanon.config import Config
from clinanon.document import Document, SanitizedDocument
from clinanon.errors import ConfigError
from clinanon.metadata import MetadataPolicy

__all__ = ["BatchJob", "PipelineFactory", "PipelineProcessor", "count_inputs", "output_format", "prepare_batch",
           "run_pipeline", "uses_gold"]


class PipelineProcessor:
    """One document (``__call__``) or a batch (``many``: each detection step over the whole batch) through a
    pipeline: de-identified (a :class:`~clinanon.document.SanitizedDocument` whose metadata is what ``policy``
    keeps, when there is one) or detected only (the document with the predicted spans)."""

    def __init__(self, nlp: Any, deidentify: bool, policy: MetadataPolicy | None = None) -> None:
        self.nlp = nlp
        self.deidentify = deidentify
        self.policy = policy

    def __call__(self, doc: Document) -> Document | SanitizedDocument:
        if not self.deidentify:
            return self.nlp.detect(doc)  # type: ignore[no-any-return]
        out = self.nlp.deidentify(doc)
        return out if self.policy is None else self.policy.apply([doc], [out], self._deidentify_many)[0]

    def many(self, docs: Sequence[Document]) -> list[Document | SanitizedDocument]:
        if not self.deidentify:
            return list(self.nlp.pipe(docs, deidentify=False, batch_size=max(1, len(docs))))
        outs = self._deidentify_many(docs)
        return list(outs if self.policy is None else self.policy.apply(docs, outs, self._deidentify_many))

    def _deidentify_many(self, docs: Sequence[Document]) -> list[SanitizedDocument]:
        return list(self.nlp.pipe(docs, deidentify=True, batch_size=max(1, len(docs))))


@dataclass(frozen=True)
class PipelineFactory:
    """Picklable: builds the pipeline's processor inside each worker process (the configuration's own label
    schemes registered there too). De-identification applies the configuration's metadata policy unless
    ``metadata`` is false (then outputs keep the input's ids and metadata: for callers that filter them
    themselves)."""

    config: Config
    deidentify: bool
    metadata: bool = True

    def __call__(self) -> PipelineProcessor:
        from clinanon.pipeline import Pipeline

        nlp = Pipeline(self.config.register_schemes())  # first: an insecure random key is made here
        return PipelineProcessor(nlp, self.deidentify, self.policy())

    def policy(self) -> MetadataPolicy | None:
        """The metadata policy of a de-identification run (``None`` for detection or ``metadata=False``)."""
        return MetadataPolicy.from_config(self.config) if self.deidentify and self.metadata else None


def uses_gold(config: Config) -> bool:
    """Whether a detector of ``config`` reads the documents' own spans (the ``gold`` detector)."""
    d = config.detectors
    return "gold" in d.use or ("ensemble" in d.use and "gold" in d.ensemble.members)


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
    #: the metadata policy (its output ids) of a de-identification run
    policy: MetadataPolicy | None = None
    #: options of the output format's writer (``bom="keep"`` where it takes one: see :func:`prepare_batch`)
    write_options: dict[str, Any] = field(default_factory=dict)

    @property
    def description(self) -> str:
        """``"de-identifying (jsonl → brat)"``: what the job does, for a progress bar."""
        verb = "de-identifying" if self.factory.deidentify else "detecting"
        return f"{verb} ({self.in_format} → {self.out_format})"

    def count_inputs(self) -> int | None:
        """The number of input documents, when cheap to count (:func:`count_inputs`)."""
        return count_inputs(self.input_path, self.in_format)

    def run(self, *, resume: bool = False, overwrite: bool = False, workers: int = 1,
            errors_path: str | Path | None = None, progress: Callable[[int], None] | None = None,
            **batch_options: Any) -> BatchResult:
        """Read, process and write every document (:func:`clinanon.batch.run_batch`); ``progress`` is called with
        the number of records handled so far; ``batch_options`` go to :func:`~clinanon.batch.run_batch`
        (``chunk_size``, ``max_pending``)."""
        from clinanon import io as cio

        stats = cio.ReadStats()
        records = cio.iter_records(self.input_path, self.in_format, **{"stats": stats, **self.read_options})
        policy = self.policy
        result = run_batch(records, self.factory, self.out, self.out_format, resume=resume, overwrite=overwrite,
                           errors_path=errors_path, workers=workers, progress=progress,
                           output_id=policy.output_id if policy is not None and policy.hides_ids else None,
                           locate=lambda: (stats.last_path, stats.last_line),
                           **{"write_options": self.write_options, **batch_options})
        return dataclasses.replace(result, read_stats=stats)


def prepare_batch(input_path: str | Path, out: str | Path, config: Config, *, deidentify: bool = True,
                  in_format: str | None = None, out_format: str | None = None,
                  read_options: dict[str, Any] | None = None) -> BatchJob:
    """A :class:`BatchJob`: the input format (``in_format`` or detected), the output format (:func:`output_format`)
    and the pipeline, built once here so that a bad configuration or a missing model fails before the output is
    touched. ``read_options`` go to the reader (``control_chars="strip"``, see ``clinanon formats``).

    Offsets are true to the files: a reader that takes the option ``bom`` (text, brat, xml) keeps a byte-order mark
    in the text (``bom="keep"``, unless ``read_options`` say otherwise), so that every span and replacement offset
    counts it as the file does, and a writer that takes it writes the text as it is (a BRAT ``.ann`` written for a
    ``.txt`` that starts with a BOM counts the mark, as MEDDOCAN's do). CRLF is kept by every reader; control
    characters are refused unless ``control_chars="keep"`` (kept: offsets unchanged) or ``"strip"`` (the output
    text lacks them, and its offsets are those of the output)."""
    from clinanon import io as cio

    input_path, out = Path(input_path), Path(out)
    fmt = in_format or cio.detect_format(input_path)
    ofmt = output_format(out, out_format, fmt)
    options = dict(read_options or {})
    known = [o.name for o in cio.reader_options(fmt)]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ConfigError(f"reader option {unknown[0]!r} is not one the {cio.get_format(fmt).name} reader takes; it "
                          f"takes: {', '.join(known)} (see `clinanon formats`)")
    if "bom" in known:
        options.setdefault("bom", "keep")
    if cio.get_format(fmt).name == "brat" and not uses_gold(config):
        options.setdefault("bad_ann", "warn")  # the texts are what is needed; a bad .ann must not block them
    cio.get_format(fmt).reader(input_path, **options)  # checks the option values (reads nothing yet)
    factory = PipelineFactory(config, deidentify)
    factory()  # fail early (bad config, missing model, a policy without its key) before touching the output
    writer = inspect.signature(cio.get_format(ofmt).writer).parameters
    write_options = {"bom": "keep"} if "bom" in writer else {}
    return BatchJob(input_path, out, fmt, ofmt, factory, options, factory.policy(), write_options)


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
