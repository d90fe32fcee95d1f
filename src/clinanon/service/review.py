"""The review state of a corpus: what a person decided about each predicted span, and what they added.

A :class:`ReviewStore` holds the documents of ``clinanon review FOLDER_OR_JSONL``. Each document's spans are its own
spans when the input has some (the output of ``clinanon detect``), else the pipeline's predictions, made the first
time the document is opened. Every span is ``pending`` (predicted, not yet looked at), ``accepted`` or ``rejected``;
spans that are not rejected never overlap.

Every change is appended to the review log (``review_log.jsonl`` in the output folder): who, when, the document id,
the action and the offsets and labels before and after — never the text of a span or a note. Saving writes the
documents with their kept (pending or accepted) spans as BRAT or JSONL; exporting writes the reviewed documents as
a BRAT folder that ``clinanon train --brat`` trains on. The allow- and deny-lists are written to the configuration
file (``allow.words`` / ``deny.words``, comments kept) and used by the pipeline from the next detection on.

Nothing here needs FastAPI: the routes are in :mod:`clinanon.service.review_routes`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from clinanon import io as cio
from clinanon.config import Config
from clinanon.document import Document, Span
from clinanon.errors import ClinanonError, ConfigError, InputError
from clinanon.io.base import atomic_write_text
from clinanon.pipeline import Pipeline

__all__ = ["ReviewError", "ReviewSpan", "ReviewStore", "source_kind"]

Status = Literal["pending", "accepted", "rejected"]


class ReviewError(ClinanonError):
    """A review action that cannot be done (unknown span, overlap, offsets outside the text)."""


def source_kind(source: str) -> str:
    """How a span was found, for the page: ``rules``, ``model`` (CRF, spaCy, ...), ``propagated`` (a name found
    elsewhere in the note), ``review`` (added by a person) or ``input`` (the input's own spans)."""
    if source.startswith("rules"):
        return "rules"
    if source.startswith("propagat"):
        return "propagated"
    if source in ("review", "gold", "input"):
        return "review" if source == "review" else "input"
    return "model"


@dataclass
class ReviewSpan:
    id: int
    start: int
    end: int
    label: str
    source: str
    score: float
    status: Status = "pending"

    @property
    def kept(self) -> bool:
        return self.status != "rejected"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "start": self.start, "end": self.end, "label": self.label, "source": self.source,
                "kind": source_kind(self.source), "score": round(self.score, 4), "status": self.status}


@dataclass
class ReviewDoc:
    doc: Document
    spans: list[ReviewSpan] | None = None  # None: not detected yet
    reviewed: bool = False
    next_id: int = 1

    def status(self) -> str:
        if self.reviewed:
            return "reviewed"
        if self.spans is None:
            return "new"
        return "in review" if any(s.status != "pending" for s in self.spans) else "detected"

    def kept(self) -> list[ReviewSpan]:
        return sorted((s for s in self.spans or () if s.kept), key=lambda s: (s.start, s.end))


_WORD = re.compile(r"\w", re.UNICODE)


def _mentions(text: str, needle: str) -> Iterable[tuple[int, int]]:
    """Whole-word occurrences of ``needle`` in ``text`` (case-sensitive)."""
    if not needle.strip():
        return
    start = 0
    while True:
        i = text.find(needle, start)
        if i < 0:
            return
        j = i + len(needle)
        before = i > 0 and _WORD.match(text[i - 1]) and _WORD.match(needle[0])
        after = j < len(text) and _WORD.match(text[j]) and _WORD.match(needle[-1])
        if not before and not after:
            yield i, j
        start = i + 1


class ReviewStore:
    """The documents under review, their spans and decisions, the review log; thread-safe (one lock)."""

    def __init__(self, docs: Iterable[Document], *, out_dir: str | Path, config_path: str | Path | None = None,
                 pipeline: Pipeline | None = None, reviewer: str = "reviewer", use_input_spans: bool = True,
                 lang: str | None = None) -> None:
        self.docs: dict[str, ReviewDoc] = {}
        for d in docs:
            if d.id in self.docs:
                raise InputError(f"document id {d.id!r} occurs twice in the input")
            rd = ReviewDoc(d.with_spans(()))
            if use_input_spans and d.spans:
                rd.spans = [ReviewSpan(i, s.start, s.end, s.label, s.source, s.score)
                            for i, s in enumerate(d.spans, 1)]
                rd.next_id = len(d.spans) + 1
            self.docs[d.id] = rd
        self.out_dir = Path(out_dir)
        self.config_path = Path(config_path) if config_path is not None else None
        self.reviewer = reviewer
        self.lang = lang
        self._pipeline = pipeline
        self._stale = False
        self.lock = threading.RLock()
        self.log_path = self.out_dir / "review_log.jsonl"

    @classmethod
    def from_path(cls, path: str | Path, *, out_dir: str | Path | None = None, fmt: str | None = None,
                  **kwargs: Any) -> ReviewStore:
        """The documents of a folder or file (any format clinanon reads); the output folder defaults to
        ``<path>.review`` beside it."""
        p = Path(path)
        docs = list(cio.read(p, fmt))
        return cls(docs, out_dir=out_dir or p.with_name(p.name + ".review"), **kwargs)

    # --- the pipeline -------------------------------------------------------------------------------------------
    def config(self) -> Config:
        cfg = Config.from_options(self.config_path)
        return cfg.with_overrides(language=self.lang) if self.lang else cfg

    @property
    def pipeline(self) -> Pipeline:
        if self._pipeline is None or self._stale:
            self._pipeline = Pipeline(self.config().register_schemes())
            self._stale = False
        return self._pipeline

    @property
    def scheme(self) -> Any:
        return self.pipeline.scheme

    # --- reading ------------------------------------------------------------------------------------------------
    def get(self, doc_id: str) -> ReviewDoc:
        rd = self.docs.get(doc_id)
        if rd is None:
            raise ReviewError("no document with that id")
        with self.lock:
            if rd.spans is None:
                found = self.pipeline.detect(rd.doc)
                rd.spans = [ReviewSpan(i, s.start, s.end, s.label, s.source, s.score)
                            for i, s in enumerate(found.spans, 1)]
                rd.next_id = len(rd.spans) + 1
                if "lang" in found.meta and "lang" not in rd.doc.meta:
                    rd.doc = rd.doc.with_meta(lang=found.meta["lang"])
        return rd

    def summary(self) -> list[dict[str, Any]]:
        return [{"id": k, "chars": len(v.doc.text), "status": v.status(),
                 "spans": None if v.spans is None else len(v.kept())} for k, v in self.docs.items()]

    def _span(self, rd: ReviewDoc, span_id: int) -> ReviewSpan:
        for s in rd.spans or ():
            if s.id == span_id:
                return s
        raise ReviewError(f"no span {span_id} in this document")

    def _check_free(self, rd: ReviewDoc, start: int, end: int, ignore: int | None = None) -> None:
        if not 0 <= start < end <= len(rd.doc.text):
            raise ReviewError(f"offsets [{start}, {end}) are not inside the text (length {len(rd.doc.text)})")
        for s in rd.spans or ():
            if s.kept and s.id != ignore and s.start < end and start < s.end:
                raise ReviewError(f"[{start}, {end}) overlaps span {s.id} [{s.start}, {s.end}); reject or "
                                  "adjust it first")

    # --- the log ------------------------------------------------------------------------------------------------
    def _log(self, rd: ReviewDoc, action: str, before: ReviewSpan | None = None,
             after: ReviewSpan | None = None, **extra: Any) -> None:
        def pos(s: ReviewSpan | None) -> dict[str, Any] | None:
            return None if s is None else {"id": s.id, "start": s.start, "end": s.end, "label": s.label,
                                           "status": s.status}

        entry = {"time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "reviewer": self.reviewer,
                 "doc": rd.doc.id, "action": action, "before": pos(before), "after": pos(after), **extra}
        self.out_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry, ensure_ascii=False) + "\n")

    def log_entries(self) -> list[dict[str, Any]]:
        if not self.log_path.exists():
            return []
        return [json.loads(line) for line in self.log_path.read_text(encoding="utf-8").splitlines() if line]

    # --- actions ------------------------------------------------------------------------------------------------
    def set_status(self, doc_id: str, span_id: int, status: Status) -> ReviewSpan:
        with self.lock:
            rd = self.get(doc_id)
            s = self._span(rd, span_id)
            if status != "rejected" and not s.kept:
                self._check_free(rd, s.start, s.end, ignore=s.id)
            before = ReviewSpan(**vars(s))
            s.status = status
            self._log(rd, "accept" if status == "accepted" else "reject" if status == "rejected" else "reset",
                      before, s)
            rd.reviewed = False
            return s

    def relabel(self, doc_id: str, span_id: int, label: str) -> ReviewSpan:
        with self.lock:
            rd = self.get(doc_id)
            self._check_label(label)
            s = self._span(rd, span_id)
            before = ReviewSpan(**vars(s))
            if not s.kept:
                self._check_free(rd, s.start, s.end, ignore=s.id)
            s.label, s.status = label, "accepted"
            self._log(rd, "relabel", before, s)
            return s

    def adjust(self, doc_id: str, span_id: int, start: int, end: int) -> ReviewSpan:
        with self.lock:
            rd = self.get(doc_id)
            s = self._span(rd, span_id)
            self._check_free(rd, start, end, ignore=s.id)
            before = ReviewSpan(**vars(s))
            s.start, s.end, s.status = start, end, "accepted"
            self._log(rd, "adjust", before, s)
            return s

    def add(self, doc_id: str, start: int, end: int, label: str) -> ReviewSpan:
        with self.lock:
            rd = self.get(doc_id)
            self._check_label(label)
            self._check_free(rd, start, end)
            s = ReviewSpan(rd.next_id, start, end, label, "review", 1.0, "accepted")
            rd.next_id += 1
            assert rd.spans is not None
            rd.spans.append(s)
            self._log(rd, "add", None, s)
            return s

    def apply_everywhere(self, doc_id: str, span_id: int, scope: Literal["document", "corpus"]) -> int:
        """The decision on a span applied to every whole-word mention of its text in the document or the corpus:
        a rejected span rejects them; a kept one gives them its label (accepted), adding the mentions no span
        covers yet. Returns how many spans changed or were added (the log records their offsets, not the text)."""
        with self.lock:
            rd = self.get(doc_id)
            s = self._span(rd, span_id)
            needle = rd.doc.text[s.start:s.end]
            targets = [rd] if scope == "document" else [self.get(k) for k in self.docs]
            changed = 0
            for t in targets:
                for start, end in _mentions(t.doc.text, needle):
                    changed += self._apply_one(t, s, start, end)
            self._log(rd, f"apply-{scope}", None, s, changed=changed)
            return changed

    def _apply_one(self, t: ReviewDoc, model: ReviewSpan, start: int, end: int) -> int:
        same = [x for x in t.spans or () if x.start == start and x.end == end]
        if not model.kept:
            n = 0
            for x in same:
                if x.kept:
                    before = ReviewSpan(**vars(x))
                    x.status = "rejected"
                    self._log(t, "reject", before, x, via=model.id)
                    n += 1
            return n
        for x in same:
            if x is model:
                return 0
            if x.label != model.label or x.status != "accepted":
                before = ReviewSpan(**vars(x))
                if not x.kept:
                    try:
                        self._check_free(t, start, end, ignore=x.id)
                    except ReviewError:
                        return 0
                x.label, x.status = model.label, "accepted"
                self._log(t, "relabel", before, x, via=model.id)
                return 1
            return 0
        try:
            self._check_free(t, start, end)
        except ReviewError:
            return 0  # another span covers part of it: left for the reviewer
        assert t.spans is not None
        new = ReviewSpan(t.next_id, start, end, model.label, "review", 1.0, "accepted")
        t.next_id += 1
        t.spans.append(new)
        self._log(t, "add", None, new, via=model.id)
        return 1

    def mark_reviewed(self, doc_id: str, reviewed: bool = True) -> None:
        with self.lock:
            rd = self.get(doc_id)
            if reviewed:  # what was not rejected stays PHI: a pending span counts as accepted
                for s in rd.spans or ():
                    if s.status == "pending":
                        s.status = "accepted"
            rd.reviewed = reviewed
            self._log(rd, "reviewed" if reviewed else "reopened", spans=len(rd.kept()))

    def _check_label(self, label: str) -> None:
        if not label or re.search(r"[\s;]", label):
            raise ReviewError("a label is one word without ';'")
        if label not in self.labels():
            raise ReviewError(f"label {label!r} is not in the label scheme {self.scheme.name!r}")

    def labels(self) -> dict[str, str]:
        """The labels a span may get (the configured scheme's) -> canonical category."""
        return dict(self.scheme.labels)

    # --- output -------------------------------------------------------------------------------------------------
    def final_document(self, doc_id: str) -> Document:
        rd = self.get(doc_id)
        return rd.doc.with_spans(Span(s.start, s.end, s.label, s.source, s.score) for s in rd.kept())

    def preview(self, doc_id: str, operator: str | None = None) -> dict[str, Any]:
        """The note de-identified with the kept spans: the configured operators, or one ``operator`` for every
        category (``tag``, ``redact``, ``surrogate`` ...)."""
        from clinanon.transform.engine import Anonymizer

        doc = self.final_document(doc_id)
        nlp = self.pipeline
        anonymizer = nlp.anonymizer
        if operator:
            ops = {k: v.model_dump() for k, v in nlp.config.operators.items()}
            params = {k: v for k, v in ops.get("*", {}).items() if k != "operator"} if (
                ops.get("*", {}).get("operator") == operator) else {}
            anonymizer = Anonymizer({"*": {"operator": operator, **params}}, scheme=nlp.scheme,
                                    lang=doc.meta.get("lang") or nlp.config.default_language)
        out = anonymizer.anonymize(doc, doc.spans)
        return {"text": out.text, "replacements": [r.to_dict() for r in out.replacements]}

    def save(self, fmt: Literal["brat", "jsonl"] = "brat", *, only_reviewed: bool = False) -> Path:
        """Write every document (or the reviewed ones) with its kept spans: ``<out>/brat/`` or
        ``<out>/reviewed.jsonl``."""
        with self.lock:
            docs = [self.final_document(k) for k, v in self.docs.items()
                    if v.spans is not None and (v.reviewed or not only_reviewed)]
            target = self.out_dir / ("brat" if fmt == "brat" else "reviewed.jsonl")
            if fmt == "jsonl":
                docs = [d.with_meta(review_status=self.docs[d.id].status()) for d in docs]
            cio.write(docs, target, fmt)
            self._log_global("save", format=fmt, documents=len(docs))
            return target

    def export_training(self) -> Path:
        """The reviewed documents as a BRAT folder for ``clinanon train --brat <out>/training --lang ...``."""
        with self.lock:
            docs = [self.final_document(k) for k, v in self.docs.items() if v.reviewed]
            if not docs:
                raise ReviewError("no document is marked reviewed yet: only reviewed documents are training data")
            target = self.out_dir / "training"
            cio.write(docs, target, "brat")
            langs = sorted({str(d.meta.get("lang")) for d in docs if d.meta.get("lang")})
            lang = langs[0] if langs else "LANG"
            atomic_write_text(self.out_dir / "training.README.txt",
                              f"{len(docs)} reviewed documents (BRAT, labels of the scheme {self.scheme.name!r}).\n"
                              f"Train a CRF on them: clinanon train --brat {target} --lang {lang} "
                              "--out models/my-crf\n")
            self._log_global("export-training", documents=len(docs))
            return target

    def _log_global(self, action: str, **extra: Any) -> None:
        entry = {"time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "reviewer": self.reviewer,
                 "action": action, **extra}
        self.out_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")

    # --- allow / deny lists -------------------------------------------------------------------------------------
    def lists(self) -> dict[str, list[str]]:
        cfg = self.config()
        return {"allow": list(cfg.allow.words), "deny": list(cfg.deny.words)}

    def add_to_list(self, which: Literal["allow", "deny"], word: str) -> dict[str, list[str]]:
        """Add ``word`` to ``allow.words`` or ``deny.words`` of the configuration file (written in place, its
        comments and layout kept; created when there is none); the pipeline is rebuilt before the next detection.
        The log records which list changed, not the word."""
        import tomlkit

        word = word.strip()
        if not word or len(word) > 200 or "\n" in word:
            raise ReviewError("a list entry is one line of 1 to 200 characters")
        if self.config_path is None:
            raise ConfigError("the review was started without --config: there is no configuration file to write "
                              "the list to")
        with self.lock:
            path = self.config_path
            doc = tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
            table = doc.get(which)
            if table is None:
                table = tomlkit.table()
                doc[which] = table
            words = table.get("words")
            if words is None:
                words = tomlkit.array()
                table["words"] = words
            if word not in [str(w) for w in words]:
                words.append(word)
            text = tomlkit.dumps(doc)
            Config.from_dict(tomlkit.parse(text).unwrap(), source=str(path))  # still a valid configuration
            atomic_write_text(path, text)
            self._stale = True
            self._log_global(f"{which}-list-add", entries=len(words))
            return self.lists()
