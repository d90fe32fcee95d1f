"""The operator protocol, the context an operator sees, and the operator registry.

An **operator** decides what one PHI span becomes. Unlike Presidio's ``operate(text, params) -> str``, it sees
the span, the whole document (metadata such as a patient id, every other span and its category), the span's
canonical category, the language and label scheme, and a per-document ``state`` dict; its parameters are typed
and validated once, when the operator is built from the configuration.

* :class:`Edit` — what an operator returns: a region ``[start, end)`` of the **original** text and its new text.
  The region must cover the span (it may be larger: ``suppress`` covers the whole sentence).
* :class:`OperatorContext` — what an operator sees besides the span.
* :class:`Operator` — the protocol: ``name`` and ``edit(span, ctx) -> Edit``.
* :class:`OperatorBase` — an optional pydantic base class: fields are the operator's parameters, frozen and
  validated on construction (errors are :class:`~clinanon.errors.ConfigError` naming operator and parameter).
* :func:`register_operator` / :func:`get_operator` / :func:`list_operators` / :func:`operator_from_config` —
  the registry that turns config entries such as ``{"operator": "tag", "template": "<PERSON>"}`` into operators.

Plugging in a new operator (a keyed surrogate, an embedding neighbour) needs no change to the engine: subclass
:class:`OperatorBase` (or write any class with ``name`` and ``edit``), decorate it with
``@register_operator("surrogate")``, read what it needs from the context (``ctx.doc.meta`` for the patient id,
``ctx.spans`` / ``ctx.categories`` for the other spans of the document) and keep per-document memory in
``ctx.state.setdefault(self.name, {})``.
"""

from __future__ import annotations

import bisect
import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, ValidationError

from clinanon.document import Document, Span
from clinanon.errors import ConfigError, SpanError
from clinanon.taxonomy import LabelScheme, parent
from clinanon.text import Sentence, split_sentences

__all__ = [
    "BatchOperator",
    "Edit",
    "Operator",
    "OperatorBase",
    "OperatorContext",
    "get_operator",
    "list_operators",
    "operator_from_config",
    "register_operator",
]


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace ``[start, end)`` of the original text with ``text``.

    ``repr`` shows offsets and the length of the new text, never the text itself.
    """

    start: int
    end: int
    text: str

    def __post_init__(self) -> None:
        if type(self.start) is int and type(self.end) is int and type(self.text) is str and 0 <= self.start <= self.end:
            return  # the usual case, checked without isinstance
        if not isinstance(self.start, int) or not isinstance(self.end, int):
            raise SpanError("edit offsets must be integers")
        if not 0 <= self.start <= self.end:
            raise SpanError(f"edit [{self.start}, {self.end}) is reversed or negative")
        if not isinstance(self.text, str):
            raise SpanError(f"edit [{self.start}, {self.end}): text must be a str, not {type(self.text).__name__}")

    def __repr__(self) -> str:
        return f"Edit(start={self.start}, end={self.end}, chars={len(self.text)})"

    __str__ = __repr__

    def covers(self, span: Span) -> bool:
        """True when the edited region contains the whole span."""
        return self.start <= span.start and span.end <= self.end


@dataclass(frozen=True)
class OperatorContext:
    """Everything an operator may look at besides the span itself.

    ``category`` is the span's canonical category (``"NAME.PATIENT"``); ``spans`` are all the spans being
    anonymized in this document and ``categories`` their canonical categories. ``state`` is one dict per
    document run, shared by every span of that document (operators keep memory there under their own name).
    Sentences are split once per document, on first use, and shared the same way.
    """

    doc: Document
    category: str = "OTHER"
    lang: str = "es"
    scheme: LabelScheme | None = None
    spans: tuple[Span, ...] = ()
    categories: Mapping[Span, str] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __repr__(self) -> str:
        return (f"OperatorContext(doc={self.doc.id!r}, category={self.category!r}, lang={self.lang!r}, "
                f"scheme={self.scheme.name if self.scheme else None!r}, spans={len(self.spans)})")

    @property
    def type(self) -> str:
        """The category's parent type (``"NAME"`` for ``"NAME.PATIENT"``)."""
        return parent(self.category)

    @property
    def sentences(self) -> tuple[Sentence, ...]:
        """The document's sentences (``clinanon.text.split_sentences``), computed once per document."""
        cached = self._cache.get("sentences")
        if cached is None:
            cached = self._cache["sentences"] = tuple(split_sentences(self.doc.text, self.lang))
        return cached  # type: ignore[no-any-return]

    def sentence_bounds(self, start: int, end: int) -> tuple[int, int]:
        """The union of ``[start, end)`` and every sentence that overlaps it (``O(log n)`` per call)."""
        ends = self._cache.get("sentence_ends")
        if ends is None:
            ends = self._cache["sentence_ends"] = [s.end for s in self.sentences]
        sentences = self.sentences
        i = bisect.bisect_right(ends, start)
        lo, hi = start, end
        while i < len(sentences) and sentences[i].start < end:
            lo, hi = min(lo, sentences[i].start), max(hi, sentences[i].end)
            i += 1
        return lo, hi

    def for_category(self, category: str) -> OperatorContext:
        """The same document context (same ``state``, same sentence cache) for a span of another category."""
        new = object.__new__(type(self))  # a field-for-field copy (the engine makes one per category)
        fields = new.__dict__
        fields.update(self.__dict__)
        fields["category"] = category
        return new


@runtime_checkable
class Operator(Protocol):
    """Turns one span into an :class:`Edit` of the original text.

    The edit must cover the span (``edit.start <= span.start`` and ``span.end <= edit.end``) and lie inside the
    text; an edit whose new text equals the region's original text is an identity (``keep``) and is not logged.
    """

    name: str

    def edit(self, span: Span, ctx: OperatorContext) -> Edit:
        ...


@runtime_checkable
class BatchOperator(Operator, Protocol):
    """An :class:`Operator` that can prepare a batch of documents before their edits.

    :func:`~clinanon.transform.engine.anonymize_many` calls ``prepare_many`` once per batch with every ``(span,
    context)`` pair the operator will then ``edit`` (documents in order, each document's spans in order). It may
    compute and keep (in ``ctx.state``) what the edits need, in any order that suits it; the edits must come out
    exactly as without it.
    """

    def prepare_many(self, items: Sequence[tuple[Span, OperatorContext]]) -> None:
        ...


def _format_validation(operator: str, fields: list[str], err: ValidationError) -> str:
    """A ConfigError message from a pydantic error: operator, parameter and reason; never the input value."""
    problems = []
    for e in err.errors(include_input=False, include_url=False):
        loc = ".".join(str(p) for p in e["loc"])
        msg = str(e["msg"]).removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            problems.append(f"unknown parameter {loc!r}; expected one of: {', '.join(fields) or '(none)'}")
        elif loc:
            problems.append(f"parameter {loc!r}: {msg}")
        else:
            problems.append(msg)
    return f"operator {operator!r}: " + "; ".join(problems)


class OperatorBase(BaseModel):
    """Base class for operators whose parameters are pydantic fields (frozen, unknown parameters rejected).

    Construction validates the parameters and raises :class:`~clinanon.errors.ConfigError` naming the operator
    and the parameter. Subclasses set the class variable ``name`` (``register_operator`` does it for them) and
    implement :meth:`edit`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: ClassVar[str] = "operator"

    def __init__(self, **params: Any) -> None:
        try:
            super().__init__(**params)
        except ValidationError as e:
            raise ConfigError(_format_validation(type(self).name, list(type(self).model_fields), e)) from None

    def edit(self, span: Span, ctx: OperatorContext) -> Edit:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def parameters(cls) -> dict[str, Any]:
        """The operator's parameters and their defaults (for ``--help`` texts and config docs)."""
        return {k: f.default for k, f in cls.model_fields.items()}


_REGISTRY: dict[str, Callable[..., Operator]] = {}
_BUILTINS = ("keep", "redact", "suppress", "tag", "surrogate", "neighbors")
_T = TypeVar("_T")


def register_operator(name: str, *, overwrite: bool = False) -> Callable[[_T], _T]:
    """Class decorator: register an operator factory under ``name`` (and set its ``name`` class attribute).

    The factory is called with the configuration's parameters as keywords; an :class:`OperatorBase` subclass
    validates them. Registering a taken name raises :class:`ConfigError` unless ``overwrite``.
    """
    if not name or not name.replace("_", "").replace("-", "").isalnum():
        raise ConfigError(f"invalid operator name {name!r}: use letters, digits, '-' and '_'")

    def deco(factory: _T) -> _T:
        if name in _REGISTRY and not overwrite and _REGISTRY[name] is not factory:
            raise ConfigError(f"an operator named {name!r} is already registered")
        if isinstance(factory, type):
            factory.name = name  # type: ignore[attr-defined]
        _REGISTRY[name] = factory  # type: ignore[assignment]
        return factory

    return deco


def _load_builtins() -> None:
    for mod in _BUILTINS:
        importlib.import_module(f"clinanon.transform.{mod}")


def list_operators() -> list[str]:
    """Names of all registered operators, sorted."""
    _load_builtins()
    return sorted(_REGISTRY)


def get_operator(name: str, **params: Any) -> Operator:
    """Build the operator registered as ``name`` with validated ``params``.

    Raises :class:`ConfigError` for an unknown operator name or an unknown / invalid parameter; the message names
    the operator and the parameter.
    """
    _load_builtins()
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise ConfigError(f"unknown operator {name!r}; known: {', '.join(sorted(_REGISTRY))}") from None
    try:
        op = factory(**params)
    except ConfigError:
        raise
    except TypeError as e:  # a plain (non-pydantic) factory with a bad keyword
        raise ConfigError(f"operator {name!r}: invalid parameters ({e})") from None
    if not isinstance(op, Operator):
        raise ConfigError(f"operator {name!r}: factory did not return an operator (needs name and edit)")
    return op


def operator_from_config(spec: Operator | str | Mapping[str, Any] | Any) -> Operator:
    """An operator from a config entry.

    Accepts an operator instance (returned as is), a name (``"redact"``), a mapping
    ``{"operator": "tag", "template": "<PERSON>"}``, or an object with ``operator`` and ``params`` attributes
    (``clinanon.config.OperatorConfig``).
    """
    if isinstance(spec, str):
        return get_operator(spec)
    if isinstance(spec, Mapping):
        params = dict(spec)
        name = params.pop("operator", None)
        if not isinstance(name, str):
            raise ConfigError("operator settings need an 'operator' key naming a registered operator")
        return get_operator(name, **params)
    if isinstance(spec, Operator) and not isinstance(spec, type):
        return spec
    name = getattr(spec, "operator", None)
    if isinstance(name, str):
        return get_operator(name, **dict(getattr(spec, "params", {}) or {}))
    raise ConfigError(f"cannot build an operator from a {type(spec).__name__}; expected a name or a mapping")
