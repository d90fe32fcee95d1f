"""Exceptions. Messages name the file, line or offset and what was expected; never document or span text."""

from __future__ import annotations

from pathlib import Path


class ClinanonError(Exception):
    """Base class of every error clinanon raises on purpose."""


class ConfigError(ClinanonError):
    """The configuration is invalid (a TOML file or keyword arguments)."""


class InputError(ClinanonError):
    """An input file (or one document in it) cannot be read.

    ``path`` and ``line`` / ``offset`` locate the problem; ``reason`` says what was expected.
    The message never quotes the document's text.
    """

    def __init__(
        self,
        reason: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        offset: int | None = None,
        doc_id: str | None = None,
    ) -> None:
        self.reason = reason
        self.path = str(path) if path is not None else None
        self.line = line
        self.offset = offset
        self.doc_id = doc_id
        super().__init__(self._format())

    def _format(self) -> str:
        where = []
        if self.path is not None:
            where.append(self.path)
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.offset is not None:
            where.append(f"offset {self.offset}")
        if self.doc_id is not None and self.path is None:
            where.append(f"document {self.doc_id!r}")
        prefix = ", ".join(where)
        return f"{prefix}: {self.reason}" if prefix else self.reason

    def to_record(self) -> dict[str, object]:
        """A JSON-safe record for an errors report (no document text)."""
        return {
            "path": self.path,
            "line": self.line,
            "offset": self.offset,
            "doc_id": self.doc_id,
            "error": type(self).__name__,
            "reason": self.reason,
        }


class SpanError(ClinanonError, ValueError):
    """A span does not fit its document (bounds, empty, or overlapping where that is not allowed)."""
