"""Training a blank spaCy NER pipeline on clinanon documents with spaCy's own loop.

:func:`train_pipeline` turns the documents into ``DocBin`` s on the pipeline's tokens (a gold span that is not on
token boundaries is expanded to the tokens it overlaps, one that overlaps a longer one is left out; both are
reported in :class:`SpacyTrainingReport`, offsets and labels only), runs :func:`spacy.training.loop.train` on one
CPU process with the progress monitor of :mod:`.train_log`, and keeps the last step's weights or spaCy's best
checkpoint.
"""

from __future__ import annotations

import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import spacy
from spacy.language import Language
from spacy.tokens import DocBin
from thinc.api import Config

from clinanon.detect.base import GoldDataReport
from clinanon.detect.spacy_ner.config import TOKENIZERS, Tokenizer
from clinanon.detect.spacy_ner.scoring import GOLD_KEY
from clinanon.detect.spacy_ner.train_log import MONITOR, EvalRecord, LineWriter, Monitor
from clinanon.document import Document
from clinanon.errors import ConfigError

__all__ = ["Keep", "SpacyTrainingReport", "train_pipeline"]

Keep = Literal["last", "best"]


@dataclass
class SpacyTrainingReport(GoldDataReport):
    """What :meth:`SpacyNERDetector.fit` saw and did. Offsets and labels only, never text.

    ``misaligned``: gold spans whose start or end is not a token boundary (trained on the tokens they overlap,
    ``reason="misaligned"``; or not trained at all when they overlap no token, ``reason="no_token"``).
    ``overlapping``: gold spans left out because a longer one holds one of their tokens.
    ``tokens`` counts spaCy tokens (clinanon's plus the whitespace tokens between them); ``steps`` counts the
    updates (``0 .. max_steps``), ``epochs`` the passes over the data begun.
    """

    dev_documents: int = 0
    dev_misaligned: int = 0
    evaluations: list[EvalRecord] = field(default_factory=list)
    steps: int = 0
    epochs: int = 0
    keep: str = "last"
    kept_step: int | None = None
    convert_seconds: float = 0.0
    init_seconds: float = 0.0
    train_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            **super().to_dict(), "dev_documents": self.dev_documents,
            "dev_misaligned_count": self.dev_misaligned, "steps": self.steps, "epochs": self.epochs,
            "keep": self.keep, "kept_step": self.kept_step,
            "evaluations": [r.to_dict() for r in self.evaluations],
            "convert_seconds": round(self.convert_seconds, 3), "init_seconds": round(self.init_seconds, 3),
            "train_seconds": round(self.train_seconds, 3),
        }


def _docbin(nlp: Language, docs: Sequence[Document], report: SpacyTrainingReport | None) -> tuple[DocBin, int]:
    """Our documents as a DocBin of examples on clinanon tokens; the original gold spans go into user_data.
    Returns the DocBin and the number of misaligned gold spans (recorded in ``report`` when given)."""
    db = DocBin(store_user_data=True)
    n_misaligned = 0
    for d in docs:
        sdoc = nlp.make_doc(d.text)
        ents = []
        taken = bytearray(len(sdoc))
        # longest first, then earlier start, end, label: the order of clinanon.bio.encode_bio
        for s in sorted(d.spans, key=lambda s: (s.start - s.end, s.start, s.end, s.label)):
            span = sdoc.char_span(s.start, s.end, label=s.label, alignment_mode="strict")
            aligned = span is not None
            if span is None:
                span = sdoc.char_span(s.start, s.end, label=s.label, alignment_mode="expand")
            # a span on whitespace only overlaps no clinanon token (as in clinanon.bio.encode_bio)
            covers = span is not None and len(span) > 0 and not all(t.is_space for t in span)
            if not (aligned and covers):
                n_misaligned += 1
                if report is not None:
                    report.misaligned.append({"doc_id": d.id, "start": s.start, "end": s.end, "label": s.label,
                                              "reason": "misaligned" if covers else "no_token"})
            if span is None or not covers:
                continue
            if any(taken[span.start:span.end]):
                if report is not None:
                    report.overlapping.append({"doc_id": d.id, "start": s.start, "end": s.end, "label": s.label})
                continue
            taken[span.start:span.end] = b"\1" * (span.end - span.start)
            ents.append(span)
        sdoc.set_ents(sorted(ents, key=lambda e: e.start), default="outside")
        sdoc.user_data[GOLD_KEY] = [[s.start, s.end, s.label] for s in d.spans]
        db.add(sdoc)
        if report is not None:
            report.documents += 1
            report.tokens += len(sdoc)
            report.chars += len(d.text)
            report.gold_spans += len(d.spans)
    return db, n_misaligned


def train_pipeline(cfg: Config, docs: Sequence[Document], dev_docs: Sequence[Document], *, lang: str,
                   tokenizer: Tokenizer, keep: Keep, progress: bool = False,
                   log: Callable[[str], None] | None = None) -> tuple[Language, SpacyTrainingReport]:
    """The pipeline that spaCy's training loop makes from the training config ``cfg`` (before its data paths are
    filled in) on the gold spans of ``docs``, and what the training saw and did.

    ``dev_docs`` are scored at every evaluation (without them the first ten training documents stand in, for
    the log only); ``lang`` and ``tokenizer`` make the documents' tokens; ``keep``: the weights after the last
    step or spaCy's best checkpoint by our dev score. ``progress``: a rich progress bar on stderr. ``log``:
    spaCy's status lines and one line per evaluation (no document text). Raises :class:`ConfigError` when the
    spaCy config is invalid. The returned pipeline's config no longer points at the (deleted) training data.
    """
    from spacy.training.initialize import init_nlp
    from spacy.training.loop import train as spacy_train

    report = SpacyTrainingReport(keep=keep)
    say = log or (lambda _m: None)
    max_steps = int(cfg["training"].get("max_steps") or 0)
    total = max_steps + 1 if max_steps else None  # steps 0 .. max_steps
    monitor = Monitor(total, progress, lambda r: say(
        f"step {r.step} epoch {r.epoch}: loss {r.losses.get('ner', 0.0):.1f}, dev F1 "
        f"{(r.ents_f or 0.0):.4f} on character offsets (spaCy ents_f {(r.spacy_ents_f or 0.0):.4f})"))
    with tempfile.TemporaryDirectory(prefix="clinanon-spacy-") as tmp:
        t0 = time.perf_counter()
        maker = spacy.blank(lang, config={"nlp": {"tokenizer": {"@tokenizers": TOKENIZERS[tokenizer]}}})
        train_db, _ = _docbin(maker, docs, report)
        loop_dev = dev_docs or docs[:10]
        dev_db, report.dev_misaligned = _docbin(maker, loop_dev, None)
        report.dev_documents = len(dev_docs)
        report.labels = dict(sorted(Counter(s.label for d in docs for s in d.spans).items()))
        train_db.to_disk(Path(tmp) / "train.spacy")
        dev_db.to_disk(Path(tmp) / "dev.spacy")
        report.convert_seconds = time.perf_counter() - t0
        cfg["paths"]["train"] = str(Path(tmp) / "train.spacy")
        cfg["paths"]["dev"] = str(Path(tmp) / "dev.spacy")
        t1 = time.perf_counter()
        try:
            nlp = init_nlp(cfg, use_gpu=-1)
        except (ValueError, KeyError, TypeError) as e:  # thinc's ConfigValidationError is a ValueError
            raise ConfigError(f"invalid spaCy training config ({type(e).__name__}: "
                              f"{str(e).splitlines()[0][:200] if str(e) else ''})") from None
        report.init_seconds = time.perf_counter() - t1
        out = Path(tmp) / "out" if keep == "best" else None
        if out is not None:
            out.mkdir()
        token = MONITOR.set(monitor)
        t2 = time.perf_counter()
        try:
            with warnings.catch_warnings():
                # spaCy's alignment warning quotes the document text: never let it reach a log
                warnings.filterwarnings("ignore", message=r"\[W030\]")
                nlp, _ = spacy_train(nlp, out, use_gpu=-1, stdout=LineWriter(say), stderr=LineWriter(None))
        finally:
            MONITOR.reset(token)
        report.train_seconds = time.perf_counter() - t2
        report.evaluations = list(monitor.records)
        report.steps = monitor.steps
        report.epochs = monitor.epochs + 1 if monitor.steps else 0
        report.kept_step = report.steps - 1
        if out is not None and (out / "model-best").is_dir():
            nlp = spacy.load(out / "model-best")
            # spaCy copies model-best at every evaluation that equals the best score so far: the latest wins
            best = max(monitor.records, key=lambda r: (r.score, r.step), default=None)
            report.kept_step = best.step if best is not None else None
    # the saved config must not point at the deleted temporary corpus
    nlp.config["paths"]["train"] = None
    nlp.config["paths"]["dev"] = None
    return nlp, report
