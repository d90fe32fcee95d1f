"""The mapping ledger: original -> surrogate per document and span, for the people allowed to re-identify.

The ledger is **optional**: surrogates are keyed functions (:mod:`clinanon.transform.surrogate`), so nothing
needs it for consistency. It exists for authorised reversal (``clinanon ledger lookup``) and audits.

* :class:`SQLiteLedger` — a file path (default). A new file is created with mode 0600 (owner only); an existing
  file that the group or others can read is tightened to 0600 with a warning. WAL mode and a busy timeout let
  several worker processes append at once.
* :class:`PostgresLedger` — a ``postgresql://`` URL (needs ``psycopg``, the ``ledger-pg`` extra). The table is
  created if missing and ``PUBLIC`` loses every privilege on it.

:func:`open_ledger` picks the back-end from the target. Entries are keyed by ``(doc_id, start, end, operator,
key_fingerprint)``: re-running a document replaces its rows. The ledger holds PHI: ``repr`` of entries and
ledgers never shows originals, surrogates or passwords, and errors name the table or file only.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import sqlite3
import stat
import threading
import warnings
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from clinanon.errors import ClinanonError, ConfigError

__all__ = ["Ledger", "LedgerEntry", "LedgerError", "PostgresLedger", "SQLiteLedger", "open_ledger", "redact_url"]

_COLUMNS = ("doc_id", "start", "end", "label", "category", "scope", "original", "surrogate", "operator",
            "key_fingerprint", "created_at")
_TABLE_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")


class LedgerError(ClinanonError):
    """The ledger cannot be opened, written or read."""


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One replaced span. ``repr`` shows the document id, offsets and category, never the two texts."""

    doc_id: str
    start: int
    end: int
    label: str
    category: str
    scope: str
    original: str = field(repr=False)
    surrogate: str = field(repr=False)
    operator: str = "surrogate"
    key_fingerprint: str = ""
    created_at: str = ""

    def __repr__(self) -> str:
        return (f"LedgerEntry(doc_id={self.doc_id!r}, start={self.start}, end={self.end}, "
                f"category={self.category!r}, operator={self.operator!r})")

    def as_row(self) -> tuple[Any, ...]:
        created = self.created_at or dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        return (self.doc_id, self.start, self.end, self.label, self.category, self.scope, self.original,
                self.surrogate, self.operator, self.key_fingerprint, created)

    def to_dict(self) -> dict[str, Any]:
        return dict(zip(_COLUMNS, (self.doc_id, self.start, self.end, self.label, self.category, self.scope,
                                   self.original, self.surrogate, self.operator, self.key_fingerprint,
                                   self.created_at), strict=True))


def redact_url(url: str) -> str:
    """A database URL without its password (for messages)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<database url>"
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def _where(doc_id: str | None, surrogate: str | None, original: str | None, scope: str | None,
           placeholder: str) -> tuple[str, list[Any]]:
    clauses, args = [], []
    for col, val in (("doc_id", doc_id), ("surrogate", surrogate), ("original", original), ("scope", scope)):
        if val is not None:
            clauses.append(f"{col} = {placeholder}")
            args.append(val)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", args


class Ledger(ABC):
    """Append entries, look them up. Use as a context manager or call :meth:`close`."""

    table: str = "clinanon_ledger"

    @abstractmethod
    def record(self, entries: Iterable[LedgerEntry]) -> int:
        """Store ``entries`` (replacing rows with the same key); returns how many were written."""

    @abstractmethod
    def lookup(self, *, doc_id: str | None = None, surrogate: str | None = None, original: str | None = None,
               scope: str | None = None, limit: int | None = None) -> list[LedgerEntry]:
        """Entries matching every given criterion, ordered by document and offset."""

    @abstractmethod
    def close(self) -> None:
        """Release the connection."""

    def reverse(self, doc_id: str, surrogate: str) -> list[str]:
        """The originals that ``surrogate`` replaced in document ``doc_id`` (usually one)."""
        seen: list[str] = []
        for e in self.lookup(doc_id=doc_id, surrogate=surrogate):
            if e.original not in seen:
                seen.append(e.original)
        return seen

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    @staticmethod
    def _check_table(table: str) -> str:
        if not _TABLE_RE.fullmatch(table):
            raise ConfigError(f"ledger table name {table!r} is not a plain SQL identifier")
        return table


def _rows_to_entries(rows: Iterable[Sequence[Any]]) -> list[LedgerEntry]:
    return [LedgerEntry(str(r[0]), int(r[1]), int(r[2]), str(r[3]), str(r[4]), str(r[5]), str(r[6]), str(r[7]),
                        str(r[8]), str(r[9]), str(r[10])) for r in rows]


class SQLiteLedger(Ledger):
    """A ledger in an SQLite file created with mode 0600 (see the module docstring)."""

    def __init__(self, path: str | Path, *, table: str = "clinanon_ledger") -> None:
        self.path = Path(path)
        self.table = self._check_table(table)
        self._lock = threading.Lock()
        self._prepare_file()
        try:
            self._conn = sqlite3.connect(str(self.path), timeout=30.0, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute("PRAGMA busy_timeout=30000")
            with self._conn:
                self._conn.execute(
                    f'CREATE TABLE IF NOT EXISTS {self.table} (doc_id TEXT NOT NULL, start INTEGER NOT NULL, '
                    f'"end" INTEGER NOT NULL, label TEXT NOT NULL, category TEXT NOT NULL, scope TEXT NOT NULL, '
                    f'original TEXT NOT NULL, surrogate TEXT NOT NULL, operator TEXT NOT NULL, '
                    f'key_fingerprint TEXT NOT NULL, created_at TEXT NOT NULL, '
                    f'PRIMARY KEY (doc_id, start, "end", operator, key_fingerprint))'
                )
                self._conn.execute(f"CREATE INDEX IF NOT EXISTS {self.table}_surrogate ON {self.table}(surrogate)")
        except sqlite3.Error as e:
            raise LedgerError(f"{self.path}: cannot open the ledger ({type(e).__name__})") from None

    def __repr__(self) -> str:
        return f"SQLiteLedger(path={str(self.path)!r}, table={self.table!r})"

    def _prepare_file(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not self.path.exists():
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                os.close(fd)
            elif os.name == "posix":
                mode = stat.S_IMODE(self.path.stat().st_mode)
                if mode & 0o077:
                    os.chmod(self.path, 0o600)
                    warnings.warn(f"{self.path}: ledger file was readable by others (mode {mode:04o}); "
                                  "changed to 0600", stacklevel=3)
        except FileExistsError:  # created by another worker in between
            pass
        except OSError as e:
            raise LedgerError(f"{self.path}: cannot create the ledger file ({e.strerror or type(e).__name__})") \
                from None

    def record(self, entries: Iterable[LedgerEntry]) -> int:
        rows = [e.as_row() for e in entries]
        if not rows:
            return 0
        cols = ", ".join(f'"{c}"' for c in _COLUMNS)
        try:
            with self._lock, self._conn:
                self._conn.executemany(
                    f"INSERT OR REPLACE INTO {self.table} ({cols}) VALUES ({', '.join('?' * len(_COLUMNS))})", rows)
        except sqlite3.Error as e:
            raise LedgerError(f"{self.path}: cannot write to the ledger ({type(e).__name__})") from None
        return len(rows)

    def lookup(self, *, doc_id: str | None = None, surrogate: str | None = None, original: str | None = None,
               scope: str | None = None, limit: int | None = None) -> list[LedgerEntry]:
        where, args = _where(doc_id, surrogate, original, scope, "?")
        cols = ", ".join(f'"{c}"' for c in _COLUMNS)
        sql = f'SELECT {cols} FROM {self.table}{where} ORDER BY doc_id, start, "end"'
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        try:
            with self._lock:
                rows = self._conn.execute(sql, args).fetchall()
        except sqlite3.Error as e:
            raise LedgerError(f"{self.path}: cannot read the ledger ({type(e).__name__})") from None
        return _rows_to_entries(rows)

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._conn.close()


class PostgresLedger(Ledger):
    """A ledger table in PostgreSQL (``psycopg`` 3); ``PUBLIC`` has no privileges on it."""

    def __init__(self, url: str, *, table: str = "clinanon_ledger") -> None:
        self.url = url
        self.table = self._check_table(table)
        self._lock = threading.Lock()
        try:
            import psycopg
        except ImportError:
            raise ConfigError("a PostgreSQL ledger needs psycopg: pip install 'clinanon[ledger-pg]'") from None
        self._psycopg = psycopg
        try:
            self._conn = psycopg.connect(url, autocommit=True, connect_timeout=10)
            with self._conn.cursor() as cur:
                cur.execute(
                    f'CREATE TABLE IF NOT EXISTS {self.table} (doc_id TEXT NOT NULL, start INTEGER NOT NULL, '
                    f'"end" INTEGER NOT NULL, label TEXT NOT NULL, category TEXT NOT NULL, scope TEXT NOT NULL, '
                    f'original TEXT NOT NULL, surrogate TEXT NOT NULL, operator TEXT NOT NULL, '
                    f'key_fingerprint TEXT NOT NULL, created_at TEXT NOT NULL, '
                    f'PRIMARY KEY (doc_id, start, "end", operator, key_fingerprint))'
                )
                cur.execute(f"CREATE INDEX IF NOT EXISTS {self.table}_surrogate ON {self.table}(surrogate)")
                cur.execute(f"REVOKE ALL ON TABLE {self.table} FROM PUBLIC")
        except psycopg.Error as e:
            raise LedgerError(f"{redact_url(url)}: cannot open the ledger ({type(e).__name__})") from None

    def __repr__(self) -> str:
        return f"PostgresLedger(url={redact_url(self.url)!r}, table={self.table!r})"

    def record(self, entries: Iterable[LedgerEntry]) -> int:
        rows = [e.as_row() for e in entries]
        if not rows:
            return 0
        cols = ", ".join(f'"{c}"' for c in _COLUMNS)
        updates = ", ".join(f'"{c}" = EXCLUDED."{c}"' for c in ("label", "category", "scope", "original",
                                                                  "surrogate", "created_at"))
        sql = (f"INSERT INTO {self.table} ({cols}) VALUES ({', '.join(['%s'] * len(_COLUMNS))}) "
               f'ON CONFLICT (doc_id, start, "end", operator, key_fingerprint) DO UPDATE SET {updates}')
        try:
            with self._lock, self._conn.transaction(), self._conn.cursor() as cur:
                cur.executemany(sql, rows)
        except self._psycopg.Error as e:
            raise LedgerError(f"{redact_url(self.url)}: cannot write to the ledger ({type(e).__name__})") from None
        return len(rows)

    def lookup(self, *, doc_id: str | None = None, surrogate: str | None = None, original: str | None = None,
               scope: str | None = None, limit: int | None = None) -> list[LedgerEntry]:
        where, args = _where(doc_id, surrogate, original, scope, "%s")
        cols = ", ".join(f'"{c}"' for c in _COLUMNS)
        sql = f'SELECT {cols} FROM {self.table}{where} ORDER BY doc_id, start, "end"'
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        try:
            with self._lock, self._conn.cursor() as cur:
                cur.execute(sql, args)
                rows = cur.fetchall()
        except self._psycopg.Error as e:
            raise LedgerError(f"{redact_url(self.url)}: cannot read the ledger ({type(e).__name__})") from None
        return _rows_to_entries(rows)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._conn.close()


def is_database_url(target: str | Path) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def open_ledger(target: str | Path, *, table: str = "clinanon_ledger") -> Ledger:
    """A PostgreSQL ledger for a ``postgresql://`` URL, else an SQLite ledger at the path ``target``."""
    if is_database_url(target):
        return PostgresLedger(str(target), table=table)
    return SQLiteLedger(target, table=table)


def iter_entries(ledger: Ledger, **criteria: Any) -> Iterator[LedgerEntry]:
    """:meth:`Ledger.lookup` as an iterator."""
    yield from ledger.lookup(**criteria)
