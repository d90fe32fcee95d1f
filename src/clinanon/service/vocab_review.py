"""The review state of a language model's vocabulary: which tokens of the fill-mask probe are people's names.

The manual step of the language-model anonymization (docs/lm.md): ``clinanon lm probe --review review.csv`` writes
one row per prediction (the predicted token, its rank and probability, the automatic judgement and its reasons, the
masked sentence when known) and an empty ``manual_verdict`` column; ``clinanon lm scrub-vocab --review`` renames the
vocabulary entries of the rows whose verdict is ``name``. A :class:`VocabReviewStore` reads that CSV, groups its rows
by token (the text ``scrub-vocab`` compares: the piece decoded, word-piece marks removed, case and accents folded,
so "García" and "garcía" are one decision, as they are one scrubbing target), and keeps one decision per token:

* ``name`` — a person's name: scrub it (the page's ``a``);
* ``keep`` — not a name: keep it (``r``);
* undecided.

:meth:`VocabReviewStore.save` writes the CSV exactly as read (same columns, rows, order and quoting; the
``manual_verdict`` column added when missing) with ``name`` or ``keep`` in every row of a decided token and an empty
verdict for the undecided ones: what ``scrub-vocab`` then scrubs is what the page shows as accepted. (Without any
verdict in the file, ``scrub-vocab`` falls back to the automatic judgement; with one, an undecided token is kept.)
A CSV that already has verdicts opens with them: a token is ``name`` when any of its rows says so — what
``scrub-vocab`` would do — else ``keep`` when any row has another verdict.

Every decision is appended to the review log (``<out>.log.jsonl``): time, reviewer, the token's number on the page
(its order of first appearance in the CSV) and the decision before and after — never the token's text or a sentence.

Nothing here needs FastAPI: the routes are in :mod:`clinanon.service.vocab_review_routes`.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from clinanon.audit._text import fold
from clinanon.audit.pieces import piece_text
from clinanon.errors import ClinanonError, InputError
from clinanon.io.base import atomic_write_text

__all__ = ["KEEP", "NAME", "VERDICT_COLUMN", "Decision", "TokenGroup", "VocabReviewError", "VocabReviewStore",
           "token_key"]

#: the verdict written for an accepted token (``scrub-vocab`` scrubs it) and for a rejected one (kept)
NAME = "name"
KEEP = "keep"
#: the review CSV's column for the human decision (``clinanon.audit.probe.ProbeResult.write_review``)
VERDICT_COLUMN = "manual_verdict"
#: the verdicts ``scrub-vocab`` reads as "scrub this token" (``clinanon.lm.scrub``)
_YES = frozenset({"name", "yes", "y", "1", "x", "true"})
_FLAGS = ("capitalised", "in_name_list", "common_word", "eponym", "original")

Decision = Literal["name", "keep"] | None
Filter = Literal["undecided", "name-like", "all"]


class VocabReviewError(ClinanonError):
    """A vocabulary review action that cannot be done (unknown token, nothing to undo)."""


def token_key(prediction: str) -> str:
    """The text ``scrub-vocab`` compares for a predicted token: a byte-level piece decoded, a leading word-piece
    mark and spaces removed, case and accents folded."""
    return fold(piece_text(prediction))  # as clinanon.lm.scrub.tokens_from_review reads it


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes")


def _int(value: str | None) -> int | None:
    try:
        return int((value or "").strip())
    except ValueError:
        return None


def _float(value: str | None) -> float | None:
    try:
        return float((value or "").strip())
    except ValueError:
        return None


@dataclass
class TokenGroup:
    """The rows of one token: how it was written, how often and how well it was predicted, the automatic
    judgement, an example sentence, and the decision."""

    id: int
    key: str
    rows: list[int] = field(default_factory=list)
    forms: dict[str, int] = field(default_factory=dict)
    best_rank: int | None = None
    best_probability: float | None = None
    name_like: int = 0
    flags: dict[str, bool] = field(default_factory=lambda: dict.fromkeys(_FLAGS, False))
    example: str = ""
    example_rank: int | None = None
    decision: Decision = None

    def __repr__(self) -> str:  # the token is model vocabulary: not in reprs
        return f"TokenGroup(id={self.id}, rows={len(self.rows)}, decision={self.decision!r})"

    @property
    def count(self) -> int:
        return len(self.rows)

    @property
    def token(self) -> str:
        """The form predicted most often (the first one on a tie)."""
        return max(self.forms.items(), key=lambda kv: kv[1])[0] if self.forms else ""

    def reasons(self) -> list[str]:
        names = {"capitalised": "capitalised", "in_name_list": "in a name list", "common_word": "common word",
                 "eponym": "medical eponym", "original": "an original name"}
        return [names[f] for f in _FLAGS if self.flags.get(f)]

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "token": self.token, "forms": sorted(self.forms, key=lambda f: -self.forms[f]),
                "count": self.count, "best_rank": self.best_rank, "best_probability": self.best_probability,
                "name_like": self.name_like, "automatic": "name-like" if self.name_like else "not name-like",
                "reasons": self.reasons(), "example": self.example, "decision": self.decision}


class VocabReviewStore:
    """A probe review CSV under review: its rows, the token groups and their decisions, the log (thread-safe)."""

    def __init__(self, path: str | Path, *, out: str | Path | None = None, reviewer: str = "reviewer") -> None:
        self.path = Path(path)
        self.out = Path(out) if out is not None else _default_out(self.path)
        self.log_path = self.out.with_name(self.out.name.removesuffix(".csv") + ".log.jsonl")
        self.reviewer = reviewer
        self.lock = threading.RLock()
        self._undo: list[tuple[int, Decision]] = []
        try:
            raw = self.path.read_bytes().decode("utf-8")
        except OSError as e:
            raise InputError(f"cannot read ({e.strerror})", path=self.path) from None
        except UnicodeDecodeError as e:
            raise InputError(f"not UTF-8 (byte {e.start})", path=self.path) from None
        raw = raw.removeprefix("\ufeff")
        rows = list(csv.reader(io.StringIO(raw, newline="")))
        if not rows or "prediction" not in rows[0]:
            raise InputError("not a probe review file (no 'prediction' column)", path=self.path)
        self.header = rows[0]
        self.rows = [r for r in rows[1:] if any(c.strip() for c in r)]
        if VERDICT_COLUMN not in self.header:
            self.header.append(VERDICT_COLUMN)
        width = len(self.header)
        self.rows = [r + [""] * (width - len(r)) for r in self.rows]
        self._col = {name: i for i, name in enumerate(self.header)}
        self.groups: dict[int, TokenGroup] = {}
        by_key: dict[str, TokenGroup] = {}
        verdicts: dict[int, list[str]] = {}
        for i, r in enumerate(self.rows):
            pred = self._get(r, "prediction")
            key = token_key(pred)
            g = by_key.get(key)
            if g is None:
                g = TokenGroup(len(by_key) + 1, key)
                by_key[key] = g
                self.groups[g.id] = g
            g.rows.append(i)
            form = pred.strip() or pred
            g.forms[form] = g.forms.get(form, 0) + 1
            rank = _int(self._get(r, "rank"))
            if rank is not None and (g.best_rank is None or rank < g.best_rank):
                g.best_rank = rank
            prob = _float(self._get(r, "probability"))
            if prob is not None and (g.best_probability is None or prob > g.best_probability):
                g.best_probability = prob
            g.name_like += _flag(self._get(r, "name_like"))
            for f in _FLAGS:
                g.flags[f] = g.flags[f] or _flag(self._get(r, f))
            text = self._get(r, "text").strip()
            if text and (not g.example or (rank is not None and (g.example_rank is None or rank < g.example_rank))):
                g.example, g.example_rank = text, rank
            verdict = self._get(r, VERDICT_COLUMN).strip().lower()
            if verdict:
                verdicts.setdefault(g.id, []).append(verdict)
        for gid, vs in verdicts.items():  # what scrub-vocab would do with the file as it is
            self.groups[gid].decision = NAME if any(v in _YES for v in vs) else KEEP
        self._log("open", tokens=len(self.groups), rows=len(self.rows), decided=self.progress()["decided"])

    def __repr__(self) -> str:
        return f"VocabReviewStore(tokens={len(self.groups)}, rows={len(self.rows)})"

    def _get(self, row: list[str], column: str) -> str:
        i = self._col.get(column)
        return row[i] if i is not None and i < len(row) else ""

    # --- reading ------------------------------------------------------------------------------------------------
    def ordered(self, which: Filter = "all") -> list[TokenGroup]:
        """The tokens as the page lists them: the name-like ones first, then by how often they were predicted,
        best rank and order in the file; ``which``: ``undecided``, ``name-like`` or ``all``."""
        gs = sorted(self.groups.values(),
                    key=lambda g: (not g.name_like, -g.count, g.best_rank if g.best_rank is not None else 10**9,
                                   g.id))
        if which == "undecided":
            return [g for g in gs if g.decision is None]
        if which == "name-like":
            return [g for g in gs if g.name_like]
        return gs

    def get(self, token_id: int) -> TokenGroup:
        g = self.groups.get(token_id)
        if g is None:
            raise VocabReviewError(f"no token {token_id}")
        return g

    def progress(self) -> dict[str, int]:
        names = sum(g.decision == NAME for g in self.groups.values())
        keep = sum(g.decision == KEEP for g in self.groups.values())
        return {"tokens": len(self.groups), "decided": names + keep, "names": names, "kept": keep,
                "undecided": len(self.groups) - names - keep,
                "name_like": sum(bool(g.name_like) for g in self.groups.values())}

    # --- actions ------------------------------------------------------------------------------------------------
    def decide(self, token_id: int, decision: Decision) -> TokenGroup:
        """Set a token's decision (``name``, ``keep`` or ``None``: undecided); :meth:`undo` takes it back."""
        if decision not in (NAME, KEEP, None):
            raise VocabReviewError("a decision is 'name', 'keep' or none")
        with self.lock:
            g = self.get(token_id)
            before = g.decision
            g.decision = decision
            self._undo.append((g.id, before))
            self._log("decide", token=g.id, before=before, after=decision)
            return g

    def undo(self) -> TokenGroup:
        """Take back the last decision (of this session)."""
        with self.lock:
            if not self._undo:
                raise VocabReviewError("nothing to undo")
            gid, before = self._undo.pop()
            g = self.groups[gid]
            after, g.decision = g.decision, before
            self._log("undo", token=g.id, before=after, after=before)
            return g

    # --- output -------------------------------------------------------------------------------------------------
    def csv_text(self) -> str:
        """The CSV with the decisions in ``manual_verdict`` (see the module docstring)."""
        col = self._col[VERDICT_COLUMN]
        rows = [list(r) for r in self.rows]
        for g in self.groups.values():
            for i in g.rows:
                rows[i][col] = g.decision or ""
        buf = io.StringIO(newline="")
        w = csv.writer(buf)
        w.writerow(self.header)
        w.writerows(rows)
        return buf.getvalue()

    def save(self) -> dict[str, Any]:
        """Write the reviewed CSV to ``self.out`` (atomically); returns where, the counts and how ``scrub-vocab``
        will read it (``manual``: the accepted tokens; ``automatic``: no decision yet, the automatic judgement)."""
        with self.lock:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.out, self.csv_text())
            p = self.progress()
            mode = "manual" if p["decided"] else "automatic"
            self._log("save", names=p["names"], kept=p["kept"], undecided=p["undecided"], mode=mode)
            return {"path": str(self.out), "log": str(self.log_path), "mode": mode, **p}

    def _log(self, action: str, **extra: Any) -> None:
        entry = {"time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "reviewer": self.reviewer,
                 "file": self.path.name, "action": action, **extra}
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")

    def log_entries(self) -> list[dict[str, Any]]:
        if not self.log_path.exists():
            return []
        return [json.loads(line) for line in self.log_path.read_text(encoding="utf-8").splitlines() if line]


def _default_out(path: Path) -> Path:
    """``review.csv`` -> ``review.reviewed.csv`` beside it (a file already named ``*.reviewed.csv``: itself)."""
    if path.name.endswith(".reviewed.csv"):
        return path
    return path.with_name(path.name.removesuffix(".csv") + ".reviewed.csv")
