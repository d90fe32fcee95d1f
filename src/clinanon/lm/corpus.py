"""Anonymize a pretraining corpus with any clinanon pipeline, and read a corpus's texts for tokenizer and model.

:func:`anonymize_corpus` runs a configured pipeline over a corpus of any size through the batch runner
(:mod:`clinanon.runner`: streaming, resumable with a journal, worker processes, an errors report) and writes JSONL
(one sanitized note per line, with its replacement log). :data:`STUDY_OPERATORS` is the operator profile of the
Dutch clinical language-model study: names become ``PERSON``, places ``GPE``, everything else is kept
(:func:`study_config` puts it into a configuration). The :class:`CorpusReport` counts what was replaced, by
category and by replacement, never the text.

:func:`iter_texts` yields the texts of any corpus clinanon reads (a BRAT folder, JSONL, CSV, plain text ...).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinanon.config import Config, OperatorConfig
from clinanon.errors import InputError

__all__ = ["STUDY_OPERATORS", "CorpusReport", "anonymize_corpus", "iter_texts", "study_config"]

#: names -> ``PERSON``, places (every ``LOCATION`` subtype) -> ``GPE``; every other category is kept as written
STUDY_OPERATORS: dict[str, dict[str, str]] = {
    "*": {"operator": "keep"},
    "NAME": {"operator": "tag", "template": "PERSON"},
    "LOCATION": {"operator": "tag", "template": "GPE"},
}


def study_config(base: Config | None = None) -> Config:
    """``base`` (default: clinanon's defaults) with the study's operators (:data:`STUDY_OPERATORS`)."""
    cfg = base or Config()
    ops = {k: OperatorConfig(**v) for k, v in STUDY_OPERATORS.items()}
    return cfg.model_copy(update={"operators": ops})


@dataclass
class CorpusReport:
    """What :func:`anonymize_corpus` did: documents and replacements (counts only)."""

    out: Path
    processed: int
    resumed: int
    errors: int
    documents: int = 0
    characters_in: int = 0
    characters_out: int = 0
    by_category: Counter[str] = field(default_factory=Counter)
    by_replacement: Counter[str] = field(default_factory=Counter)
    documents_changed: int = 0

    def __repr__(self) -> str:
        return f"CorpusReport(documents={self.documents}, replaced={sum(self.by_category.values())})"

    def to_dict(self) -> dict[str, Any]:
        n = sum(self.by_category.values())
        return {"out": str(self.out), "documents": self.documents, "processed": self.processed,
                "resumed": self.resumed, "errors": self.errors, "documents_changed": self.documents_changed,
                "characters_in": self.characters_in, "characters_out": self.characters_out, "replaced": n,
                "by_category": dict(self.by_category.most_common()),
                "by_replacement": dict(self.by_replacement.most_common()),
                "summary": f"{n} spans replaced in {self.documents_changed} of {self.documents} documents "
                           f"({self.errors} errors)"}


def _tally(report: CorpusReport) -> None:
    """Count the replacements of the JSONL output (so that a resumed run reports the whole corpus)."""
    with report.out.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            d = json.loads(line)
            text = d.get("text", "")
            reps = (d.get("meta") or {}).get("replacements") or d.get("replacements") or []
            report.documents += 1
            report.characters_out += len(text)
            report.characters_in += int(d.get("original_length") or (d.get("meta") or {}).get("original_length")
                                        or len(text) + sum((r["end"] - r["start"]) - (r["out_end"] - r["out_start"])
                                                           for r in reps))
            report.documents_changed += bool(reps)
            for r in reps:
                report.by_category[r["category"]] += 1
                report.by_replacement[text[r["out_start"]:r["out_end"]] if r["operator"] == "tag"
                                      else r["operator"]] += 1


def anonymize_corpus(input_path: str | Path, out: str | Path, config: Config | None = None, *,
                     in_format: str | None = None, workers: int = 1, resume: bool = False,
                     overwrite: bool = False, progress: Callable[[int], None] | None = None) -> CorpusReport:
    """Run ``config``'s pipeline (default: :func:`study_config` of the defaults) over ``input_path`` into the
    JSONL file ``out``; ``resume`` continues an interrupted run. Returns the report (counts, no text). The
    tag written for a replacement (``PERSON``, ``GPE``) is counted; the original text is not read back."""
    from clinanon.runner import run_pipeline

    cfg = config if config is not None else study_config()
    out = Path(out)
    res = run_pipeline(input_path, out, cfg, in_format=in_format, out_format="jsonl", resume=resume,
                       overwrite=overwrite, workers=workers, progress=progress)
    report = CorpusReport(out, res.processed, res.resumed, res.errors)
    _tally(report)
    return report


def iter_texts(path: str | Path, fmt: str | None = None) -> Iterator[str]:
    """The texts of every readable document of a corpus (a bad record is skipped, never printed)."""
    from clinanon import io as cio

    p = Path(path)
    if not p.exists():
        raise InputError("no such file or folder", path=p)
    fmt = fmt or cio.detect_format(p)
    for rec in cio.iter_records(p, fmt):
        if isinstance(rec, InputError):
            continue
        yield rec.text
