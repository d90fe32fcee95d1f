"""Progress and history of a spaCy training run: the training logger ``clinanon.TrainLogger.v1``, the
``before_update`` callback ``clinanon.TrackEpochs.v1`` and the stream that hands spaCy's status lines to a log.

Inside :meth:`SpacyNERDetector.fit <clinanon.detect.spacy_ner.SpacyNERDetector.fit>` (which sets :data:`MONITOR`)
the logger draws a rich progress bar and records one :class:`EvalRecord` per evaluation; elsewhere (``spacy
train`` on a saved config) it is spaCy's console logger and the callback does nothing. No document text is
logged.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from typing import Any

import spacy
from spacy.language import Language

__all__ = ["LOGGER_NAME", "STEP_CALLBACK_NAME", "EvalRecord", "create_epoch_tracker", "create_train_logger"]

LOGGER_NAME = "clinanon.TrainLogger.v1"
STEP_CALLBACK_NAME = "clinanon.TrackEpochs.v1"


@dataclass(frozen=True, slots=True)
class EvalRecord:
    """One evaluation of spaCy's training loop: step, epoch, the losses since the previous one, spaCy's NER
    scores on its tokens and ours on character offsets (subtask 1 and 2)."""

    step: int
    epoch: int
    seconds: int
    words: int
    losses: dict[str, float]
    score: float
    ents_f: float | None
    spans_f: float | None
    spacy_ents_p: float | None
    spacy_ents_r: float | None
    spacy_ents_f: float | None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for k, v in d.items():
            if isinstance(v, float):
                d[k] = round(v, 4)
        d["losses"] = {k: round(v, 3) for k, v in self.losses.items()}
        return d


class Monitor:
    """Receives spaCy's per-step log calls during :meth:`SpacyNERDetector.fit`: a rich progress bar on stderr
    (steps, loss, our dev F1 and spaCy's) and the evaluation history."""

    def __init__(self, total: int | None, progress: bool, on_eval: Callable[[EvalRecord], None] | None) -> None:
        self.total = total
        self.progress = progress
        self.on_eval = on_eval
        self.records: list[EvalRecord] = []
        self.steps = 0
        self.epochs = 0  # the highest epoch index seen (spaCy counts completed passes from 0)
        self._bar: Any = None
        self._task: Any = None

    def setup(self, nlp: Language, stdout: Any, stderr: Any) -> tuple[Callable[[dict[str, Any] | None], None],
                                                                      Callable[[], None]]:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                             TextColumn("epoch {task.fields[epoch]}"), TextColumn("loss {task.fields[loss]}"),
                             TextColumn("dev F1 {task.fields[dev]} (spaCy {task.fields[spacy]})"),
                             TimeElapsedColumn(), console=Console(stderr=True), disable=not self.progress,
                             transient=False)
        self._bar.start()
        self._task = self._bar.add_task("training", total=self.total, epoch=0, loss="-", dev="-", spacy="-")
        return self.log_step, self.finalize

    def log_step(self, info: dict[str, Any] | None) -> None:
        self.steps += 1
        if info is None:
            self._bar.update(self._task, advance=1, epoch=self.epochs)
            return
        other = info.get("other_scores") or {}
        losses = {k: float(v) for k, v in (info.get("losses") or {}).items()}

        def num(key: str) -> float | None:
            v = other.get(key)
            return float(v) if isinstance(v, int | float) else None

        rec = EvalRecord(step=int(info["step"]), epoch=int(info["epoch"]), seconds=int(info.get("seconds", 0)),
                         words=int(info.get("words", 0)), losses=losses, score=float(info.get("score") or 0.0),
                         ents_f=num("clinanon_ents_f"), spans_f=num("clinanon_spans_f"),
                         spacy_ents_p=num("ents_p"), spacy_ents_r=num("ents_r"), spacy_ents_f=num("ents_f"))
        self.records.append(rec)
        self.epochs = max(self.epochs, rec.epoch)
        loss = losses.get("ner")
        self._bar.update(self._task, completed=rec.step + 1, epoch=rec.epoch,
                         loss=f"{loss:.1f}" if loss is not None else "-",
                         dev=f"{rec.ents_f:.4f}" if rec.ents_f is not None else "-",
                         spacy=f"{rec.spacy_ents_f:.4f}" if rec.spacy_ents_f is not None else "-")
        if self.on_eval is not None:
            self.on_eval(rec)

    def finalize(self) -> None:
        if self._bar is not None:
            self._bar.stop()


MONITOR: ContextVar[Monitor | None] = ContextVar("clinanon_spacy_monitor", default=None)


@spacy.registry.callbacks(STEP_CALLBACK_NAME)
def create_epoch_tracker() -> Callable[[Language, dict[str, Any]], None]:
    """spaCy registry entry ``clinanon.TrackEpochs.v1`` (``[training] before_update``): tells the progress bar of
    :meth:`SpacyNERDetector.fit` which epoch every step belongs to (does nothing elsewhere)."""

    def before_update(nlp: Language, args: dict[str, Any]) -> None:
        monitor = MONITOR.get()
        if monitor is not None:
            monitor.epochs = max(monitor.epochs, int(args.get("epoch", 0)))

    return before_update


@spacy.registry.loggers(LOGGER_NAME)
def create_train_logger() -> Callable[..., Any]:
    """spaCy registry entry ``clinanon.TrainLogger.v1``: inside :meth:`SpacyNERDetector.fit` a progress bar with
    our dev F1 per evaluation; elsewhere (``spacy train`` on a saved config) spaCy's console logger."""

    def setup(nlp: Language, stdout: Any = None, stderr: Any = None) -> Any:
        monitor = MONITOR.get()
        if monitor is None:
            console = spacy.registry.loggers.get("spacy.ConsoleLogger.v1")(progress_bar=False)
            return console(nlp, stdout, stderr)
        return monitor.setup(nlp, stdout, stderr)

    return setup


class LineWriter(io.TextIOBase):
    """A text stream that hands complete lines to a callback (spaCy's stdout messages -> our ``log``)."""

    _ANSI = re.compile(r"\x1b\[[0-9;]*m")

    def __init__(self, sink: Callable[[str], None] | None) -> None:
        self.sink = sink
        self._buf = ""

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        self._buf += s
        while "\n" in self._buf:
            line, self._buf = self._buf.split("\n", 1)
            line = self._ANSI.sub("", line).strip()
            if line and self.sink is not None:
                self.sink(line)
        return len(s)
