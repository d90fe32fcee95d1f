"""A progress bar on stderr that counts items (never shows their text); silent when not asked for."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

__all__ = ["Advance", "progress_bar"]


class Advance(Protocol):
    def __call__(self, n: int = 1) -> None: ...


@contextmanager
def progress_bar(description: str, total: int | None, enabled: bool) -> Iterator[Advance]:
    """``with progress_bar("jaccard", n, True) as advance: ... advance()``; a no-op when ``enabled`` is false."""
    if not enabled:
        yield lambda n=1: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as prog:
        task = prog.add_task(description, total=total)
        yield lambda n=1: prog.advance(task, n)
