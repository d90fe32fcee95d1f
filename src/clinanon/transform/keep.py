"""``keep``: leave the span as it is (for categories a use case does not need removed, e.g. ``SEX``)."""

from __future__ import annotations

from clinanon.document import Span
from clinanon.transform.base import Edit, OperatorBase, OperatorContext, register_operator

__all__ = ["KeepOperator"]


@register_operator("keep")
class KeepOperator(OperatorBase):
    """Return the span's own text: an identity edit.

    The engine does not log identity edits (the log lists changed regions only), so a kept span has no
    :class:`~clinanon.document.Replacement`, and a kept span never protects text that an overlapping span's
    operator replaces.
    """

    def edit(self, span: Span, ctx: OperatorContext) -> Edit:
        return Edit(span.start, span.end, ctx.doc.text[span.start:span.end])
