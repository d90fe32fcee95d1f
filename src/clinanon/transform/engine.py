"""The anonymization engine: spans + an operator per category -> a :class:`~clinanon.document.SanitizedDocument`.

Steps, for one document:

1. Each span's label becomes a canonical category (``scheme.category(label)`` when a scheme is given; otherwise
   the label must already be canonical).
2. The operator is chosen by category: an entry for the exact category (``"NAME.PATIENT"``) beats one for its
   type (``"NAME"``), which beats the default (``"*"`` or the ``default`` argument).
3. Each operator returns an :class:`~clinanon.transform.base.Edit` of the original text, which must cover the span.
   Identity edits (``keep``, or any edit whose new text equals the original region) are dropped: they are not
   changes, so they are not logged and never shield text from another span's edit.
4. Overlapping edits are merged deterministically (spans should be resolved before, but the engine is robust):
   edits are ordered by ``(start, longest first, span)``; an edit that starts before the current group ends joins
   it; the group's **first** edit (the earliest-starting, then longest) wins: its text replaces the **union** of
   the group's regions, and its span's label, category and operator name go into the log. So a ``suppress`` edit
   covering tags absorbs them, and of two partly overlapping span edits the earlier one's text replaces both.
   Touching edits (one ends where the next starts) stay separate.
5. The output is built in one pass (a list of pieces, joined): linear in the text length plus ``O(k log k)`` for
   ``k`` spans. Every changed region gets a :class:`~clinanon.document.Replacement` with its offsets in both texts.

Guarantee: every character of every span whose operator is not an identity lies inside a replaced region, and
every character outside the replaced regions is copied unchanged, at an offset the log maps both ways.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from operator import attrgetter
from typing import Any

from clinanon.document import Document, Replacement, SanitizedDocument, Span
from clinanon.errors import ConfigError, SpanError
from clinanon.taxonomy import CANONICAL_CATEGORIES, LabelScheme, get_scheme, list_schemes, parent
from clinanon.transform.base import BatchOperator, Edit, Operator, OperatorContext, operator_from_config
from clinanon.transform.tag import TagOperator

__all__ = ["DEFAULT_KEY", "Anonymizer", "SpanCategories", "anonymize", "anonymize_many", "build_operators",
           "select_operator"]

#: the key of the default operator in an operator map
DEFAULT_KEY = "*"
_CANONICAL = frozenset(CANONICAL_CATEGORIES)


def _check_keys(operators: Mapping[str, Any]) -> None:
    for key in operators:
        if key != DEFAULT_KEY and key not in _CANONICAL:
            raise ConfigError(
                f"operator map key {key!r} is not a canonical category or type; use {DEFAULT_KEY!r} for the "
                f"default or one of: {', '.join(CANONICAL_CATEGORIES)}"
            )


def build_operators(config: Mapping[str, Any]) -> dict[str, Operator]:
    """An operator map from config entries: key (category, type or ``"*"``) -> operator, name or settings dict.

    ``{"NAME": {"operator": "tag", "template": "<PERSON>"}, "DATE": "redact", "*": {"operator": "redact"}}``.
    Keys and parameters are validated here, once (:class:`ConfigError` names the key or the operator/parameter).
    """
    _check_keys(config)
    out: dict[str, Operator] = {}
    for key, spec in config.items():
        try:
            out[key] = operator_from_config(spec)
        except ConfigError as e:
            raise ConfigError(f"operators[{key!r}]: {e}") from None
    return out


def select_operator(category: str, operators: Mapping[str, Operator],
                    default: Operator | None = None) -> Operator:
    """The operator for a canonical category: exact category, else its type, else ``"*"``, else ``default``."""
    for key in (category, parent(category), DEFAULT_KEY):
        op = operators.get(key)
        if op is not None:
            return op
    if default is None:
        raise ConfigError(
            f"no operator for category {category!r} (nor for its type {parent(category)!r}) and no default; "
            f"add a {DEFAULT_KEY!r} entry to the operator map"
        )
    return default


def _resolve_scheme(scheme: LabelScheme | str | None) -> LabelScheme | None:
    if scheme is None or isinstance(scheme, LabelScheme):
        return scheme
    return get_scheme(scheme)


def _category(label: str, scheme: LabelScheme | None, doc_id: str, span: Span) -> str:
    if scheme is not None:
        try:
            return scheme.category(label)
        except KeyError:
            raise ConfigError(
                f"document {doc_id!r}, span [{span.start}, {span.end}): label {label!r} is not in label scheme "
                f"{scheme.name!r} and is not a canonical category"
            ) from None
    if label in _CANONICAL:
        return label
    raise ConfigError(
        f"document {doc_id!r}, span [{span.start}, {span.end}): label {label!r} is not a canonical category; "
        f"pass the label scheme it belongs to (scheme=...; known: {', '.join(list_schemes())})"
    )


def _merge(edits: list[tuple[Edit, int, Span, str, str]]) -> Iterator[tuple[int, int, str, Span, str, str]]:
    """Merge overlapping edits (see the module docstring): ``(start, end, text, span, category, operator)``.

    Each edit carries the index of its span in the sorted span list, so ties sort in span order."""
    edits.sort(key=lambda t: (t[0].start, -t[0].end, t[1]))
    group: list[Any] | None = None
    for e, _, span, category, op_name in edits:
        if group is not None and e.start < group[1]:
            group[1] = max(group[1], e.end)
            continue
        if group is not None:
            yield tuple(group)  # type: ignore[misc]
        group = [e.start, e.end, e.text, span, category, op_name]
    if group is not None:
        yield tuple(group)  # type: ignore[misc]


_SPAN_ORDER = attrgetter("start", "end", "label", "source", "score")  # the order of Span (fields compared in C)


class SpanCategories(Mapping[Span, str]):
    """The canonical category of each span of one document: a read-only ``Span -> category`` mapping, also
    readable by index (``by_index[i]`` is the category of ``spans[i]``). The span-keyed dict is only built when
    a span is looked up (operators that walk ``spans`` with ``by_index`` never hash a span)."""

    __slots__ = ("_map", "by_index", "spans")

    def __init__(self, spans: tuple[Span, ...], by_index: Sequence[str]) -> None:
        if len(spans) != len(by_index):
            raise ValueError("one category per span is needed")
        self.spans = spans
        self.by_index = tuple(by_index)
        self._map: dict[Span, str] | None = None

    def _dict(self) -> dict[Span, str]:
        if self._map is None:
            self._map = dict(zip(self.spans, self.by_index, strict=True))
        return self._map

    def __getitem__(self, span: Span) -> str:
        return self._dict()[span]

    def get(self, span: Span, default: Any = None) -> Any:  # type: ignore[override]
        return self._dict().get(span, default)

    def __contains__(self, span: object) -> bool:
        return span in self._dict()

    def __iter__(self) -> Iterator[Span]:
        return iter(self._dict())

    def __len__(self) -> int:
        return len(self._dict())

    def __repr__(self) -> str:
        return f"SpanCategories(spans={len(self.spans)})"


def anonymize(
    doc: Document,
    spans: Sequence[Span] | None = None,
    *,
    operators: Mapping[str, Operator] | None = None,
    scheme: LabelScheme | str | None = None,
    lang: str = "es",
    default: Operator | None = None,
    state: dict[str, Any] | None = None,
) -> SanitizedDocument:
    """Apply an operator to every span of ``doc`` and return the new text with its replacement log.

    ``spans`` default to ``doc.spans``. ``operators`` maps canonical categories, types or ``"*"`` to operators
    (``None``: tag everything as ``[CATEGORY]``). ``scheme`` (a :class:`LabelScheme` or its name) maps native span
    labels to categories. ``state`` is the per-document dict operators share (a fresh one by default).
    ``lang`` is the default language; a document's ``meta["lang"]`` overrides it (multilingual corpora).

    Raises :class:`ConfigError` for a label that is neither in the scheme nor canonical, or a category with no
    operator; :class:`SpanError` when an operator returns an edit that does not cover its span. Messages name the
    document id, offsets and labels, never text.
    """
    operators, default = _operator_map(operators, default)
    return _apply(_plan(doc, spans, operators, _resolve_scheme(scheme), lang, default, state))


def anonymize_many(
    docs: Sequence[Document],
    spans: Sequence[Sequence[Span] | None] | None = None,
    *,
    operators: Mapping[str, Operator] | None = None,
    scheme: LabelScheme | str | None = None,
    lang: str = "es",
    default: Operator | None = None,
) -> list[SanitizedDocument]:
    """:func:`anonymize` for each document of a batch (``spans[i]`` for ``docs[i]``; ``None``: its own spans), with
    the same results.

    Every document is planned first (categories and operators of its spans); then each operator that has a
    ``prepare_many(items)`` method (:class:`~clinanon.transform.base.BatchOperator`) gets all the ``(span,
    context)`` pairs it will edit in the batch at once, so it can do its per-span work grouped (a surrogate
    generator's code and tables stay in the CPU caches); then the documents are edited one by one. An error is
    raised for the first document that fails, as one-by-one calls would raise it (the batch is redone one by one
    when planning or preparing fails).
    """
    if spans is not None and len(spans) != len(docs):
        raise ValueError("anonymize_many needs one span list (or None) per document")
    operators, default = _operator_map(operators, default)
    resolved = _resolve_scheme(scheme)
    try:
        plans = [_plan(doc, None if spans is None else spans[i], operators, resolved, lang, default, None)
                 for i, doc in enumerate(docs)]
        _prepare(plans)
    except Exception:
        plans = None  # find the failing document: one by one, as without a batch
    if plans is None:
        return [_apply(_plan(doc, None if spans is None else spans[i], operators, resolved, lang, default, None))
                for i, doc in enumerate(docs)]
    return [_apply(p) for p in plans]


def _operator_map(operators: Mapping[str, Operator] | None,
                  default: Operator | None) -> tuple[Mapping[str, Operator], Operator | None]:
    """The operator map and default of :func:`anonymize` (``None``: tag everything), the map's keys checked."""
    if operators is None:
        return {}, default or TagOperator()
    _check_keys(operators)
    return operators, default


class _Plan:
    """One document ready to be edited: its sorted spans, their categories, and each span's operator and context."""

    __slots__ = ("doc", "ops", "spans")

    def __init__(self, doc: Document, spans: tuple[Span, ...],
                 ops: list[tuple[Operator, OperatorContext, str]]) -> None:
        self.doc = doc
        self.spans = spans
        self.ops = ops  # per span: (operator, its context for the span's category, the category)


def _plan(doc: Document, spans: Sequence[Span] | None, operators: Mapping[str, Operator],
          resolved: LabelScheme | None, lang: str, default: Operator | None,
          state: dict[str, Any] | None) -> _Plan:
    """Steps 1 and 2 of the module docstring for one document (the checks of :func:`anonymize`)."""
    text = doc.text
    n = len(text)
    if spans is not None and not all(t is Span or issubclass(t, Span) for t in set(map(type, spans))):
        raise SpanError(f"document {doc.id!r}: spans must be Span objects")
    span_list = tuple(doc.spans if spans is None else sorted(spans, key=_SPAN_ORDER))
    for s in span_list:
        if s.end > n:
            raise SpanError(f"document {doc.id!r}: span [{s.start}, {s.end}) ends past the text (length {n})")
    by_label: dict[str, str] = {}
    cats: list[str] = []
    for s in span_list:
        category = by_label.get(s.label)
        if category is None:
            category = by_label[s.label] = _category(s.label, resolved, doc.id, s)
        cats.append(category)
    categories = SpanCategories(span_list, cats)
    doc_lang = str(doc.meta.get("lang") or lang)
    base = OperatorContext(doc, lang=doc_lang, scheme=resolved, spans=span_list, categories=categories,
                           state={} if state is None else state)
    chosen: dict[str, tuple[Operator, OperatorContext, str]] = {}
    ops: list[tuple[Operator, OperatorContext, str]] = []
    for category in cats:
        triple = chosen.get(category)
        if triple is None:
            triple = chosen[category] = (select_operator(category, operators, default), base.for_category(category),
                                         category)
        ops.append(triple)
    return _Plan(doc, span_list, ops)


def _prepare(plans: Sequence[_Plan]) -> None:
    """Give each batch operator (one with ``prepare_many``) every ``(span, context)`` pair it will edit."""
    items: dict[int, tuple[Any, list[tuple[Span, OperatorContext]]]] = {}
    for plan in plans:
        for s, (op, ctx, _) in zip(plan.spans, plan.ops, strict=True):
            entry = items.get(id(op))
            if entry is None:
                prepare = op.prepare_many if isinstance(op, BatchOperator) else None
                entry = items[id(op)] = (prepare, [])
            if entry[0] is not None:
                entry[1].append((s, ctx))
    for prepare, pairs in items.values():
        if prepare is not None and pairs:
            prepare(pairs)


def _apply(plan: _Plan) -> SanitizedDocument:
    """Steps 3 to 5 of the module docstring for one planned document."""
    doc = plan.doc
    text = doc.text
    n = len(text)
    edits: list[tuple[Edit, int, Span, str, str]] = []
    # ``in_order``: every kept edit starts after the previous one's start and at or after its end — then the
    # sort and merge of step 4 would leave them as they are (the usual case: one edit per resolved span)
    in_order = True
    last_start = last_end = -1
    for i, (s, (op, ctx, category)) in enumerate(zip(plan.spans, plan.ops, strict=True)):
        e = op.edit(s, ctx)
        if type(e) is not Edit and not isinstance(e, Edit):
            raise SpanError(f"operator {op.name!r} returned a {type(e).__name__}, not an Edit")
        start, end = e.start, e.end
        if start > s.start or s.end > end or end > n:
            raise SpanError(
                f"document {doc.id!r}: operator {op.name!r} returned edit [{start}, {end}) that does not "
                f"cover span [{s.start}, {s.end}) inside the text (length {n})"
            )
        if e.text != text[start:end]:  # identity edits (keep) are not changes
            edits.append((e, i, s, category, op.name))
            if in_order:
                if start <= last_start or start < last_end:
                    in_order = False
                last_start, last_end = start, end

    pieces: list[str] = []
    replacements: list[Replacement] = []
    pos = out = 0
    merged = ((e.start, e.end, e.text, s, category, op_name) for e, _, s, category, op_name in edits) if in_order \
        else _merge(edits)
    for start, end, new, s, category, op_name in merged:
        pieces.append(text[pos:start])
        out += start - pos
        pieces.append(new)
        replacements.append(Replacement(start, end, out, out + len(new), s.label, category, op_name))
        out += len(new)
        pos = end
    pieces.append(text[pos:])
    return SanitizedDocument(doc.id, "".join(pieces), n, tuple(replacements), doc.meta)


class Anonymizer:
    """An operator map built and validated once, applied to many documents.

    ``operators`` maps canonical categories, types or ``"*"`` to operators, operator names, or settings dicts
    (``{"NAME": {"operator": "tag", "template": "<PERSON>"}, "*": {"operator": "redact"}}``) or
    ``clinanon.config.OperatorConfig`` objects.
    """

    def __init__(
        self,
        operators: Mapping[str, Any] | None = None,
        *,
        scheme: LabelScheme | str | None = None,
        lang: str = "es",
        default: Operator | str | Mapping[str, Any] | None = None,
    ) -> None:
        self.operators: dict[str, Operator] = build_operators(operators or {})
        self.default: Operator | None = None if default is None else operator_from_config(default)
        if not self.operators and self.default is None:
            self.default = operator_from_config("tag")
        self.scheme: LabelScheme | None = _resolve_scheme(scheme)
        self.lang = lang

    def __repr__(self) -> str:
        ops = ", ".join(f"{k}={op.name}" for k, op in self.operators.items())
        return f"Anonymizer({ops}, scheme={self.scheme.name if self.scheme else None!r}, lang={self.lang!r})"

    def operator_for(self, category: str) -> Operator:
        """The operator that a span of this canonical category gets."""
        return select_operator(category, self.operators, self.default)

    def anonymize(self, doc: Document, spans: Sequence[Span] | None = None, *,
                  state: dict[str, Any] | None = None) -> SanitizedDocument:
        """:func:`anonymize` with this anonymizer's operators, scheme and language."""
        return anonymize(doc, spans, operators=self.operators, scheme=self.scheme, lang=self.lang,
                         default=self.default, state=state)

    def anonymize_many(self, docs: Sequence[Document],
                       spans: Sequence[Sequence[Span] | None] | None = None) -> list[SanitizedDocument]:
        """:func:`anonymize_many` with this anonymizer's operators, scheme and language: a batch of documents, the
        same results as one by one (batch operators prepare their work for the whole batch first)."""
        return anonymize_many(docs, spans, operators=self.operators, scheme=self.scheme, lang=self.lang,
                              default=self.default)

    def anonymize_all(self, docs: Iterable[Document]) -> Iterator[SanitizedDocument]:
        """Anonymize documents one by one (lazily), each with its own spans."""
        for doc in docs:
            yield self.anonymize(doc)
