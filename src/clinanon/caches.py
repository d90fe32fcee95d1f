"""The one registry of process-wide memos: every cached function of the package is made by :func:`memo`.

Two kinds of memo, both pure (an output never depends on what is cached):

* ``"tables"`` (the default): word lists, compiled patterns, tables built from shipped data, per language;
* ``"text"``: results keyed on span or document text (a surrogate of a name, a parsed date), which grow with a
  corpus.

:func:`clear` empties one kind or all; nothing keeps a hand-written list of functions to clear. The memo is
:func:`functools.cache` / :func:`functools.lru_cache` itself (C speed); registering it costs nothing per call.

>>> from clinanon.caches import memo, clear
>>> @memo(kind="text")
... def shape(s: str) -> str: ...
>>> clear("text")
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Literal, TypeVar, overload

__all__ = ["KINDS", "clear", "memo", "registered"]

Kind = Literal["tables", "text"]
KINDS: tuple[Kind, ...] = ("tables", "text")
F = TypeVar("F", bound=Callable[..., Any])

_REGISTRY: dict[Kind, list[Any]] = {k: [] for k in KINDS}


@overload
def memo(fn: F, /) -> F: ...


@overload
def memo(*, maxsize: int | None = None, kind: Kind = "tables") -> Callable[[F], F]: ...


def memo(fn: Any = None, /, *, maxsize: int | None = None, kind: Kind = "tables") -> Any:
    """A registered :func:`functools.cache` (``maxsize=None``) or :func:`functools.lru_cache` (``maxsize=n``).

    Use bare (``@memo``) for a table, ``@memo(kind="text")`` for a memo keyed on text, ``@memo(maxsize=8)`` to
    bound it."""
    if kind not in _REGISTRY:
        raise ValueError(f"unknown memo kind {kind!r}; known: {', '.join(KINDS)}")

    def deco(f: F) -> F:
        cached = functools.cache(f) if maxsize is None else functools.lru_cache(maxsize=maxsize)(f)
        _REGISTRY[kind].append(cached)
        return cached  # type: ignore[return-value]

    return deco(fn) if fn is not None else deco


def registered(kind: Kind | None = None) -> list[Any]:
    """The registered memos of ``kind`` (every kind when ``None``)."""
    kinds = KINDS if kind is None else (kind,)
    return [c for k in kinds for c in _REGISTRY[k]]


def clear(kind: Kind | None = None) -> int:
    """Empty the memos of ``kind`` (every kind when ``None``); returns how many were cleared. Tables are built
    again on next use, so clearing them costs time, never correctness."""
    found = registered(kind)
    for c in found:
        c.cache_clear()
    return len(found)
