"""``suppress``: drop the whole sentence(s) that hold a span (sentences from ``clinanon.text.split_sentences``)."""

from __future__ import annotations

from clinanon.document import Span
from clinanon.transform.base import Edit, OperatorBase, OperatorContext, register_operator

__all__ = ["SuppressOperator"]

_HSPACE = " \t"
_NEWLINE = "\r\n"


def _tidy(text: str, start: int, end: int) -> tuple[int, int]:
    """Grow ``[start, end)`` over the whitespace that would be left dangling once the region is removed.

    Another sentence follows on the same line: take the spaces after the region (``"A. B. C."`` -> ``"A. C."``).
    The region ends its line: take the spaces before it (``"A. B.\\nC."`` -> ``"A.\\nC."``); if it is alone on its
    line, take the whole line with one line break (``"L1\\nL2\\nL3"`` -> ``"L1\\nL3"``).
    """
    n = len(text)
    j = end
    while j < n and text[j] in _HSPACE:
        j += 1
    if j < n and text[j] not in _NEWLINE:
        return start, j
    i = start
    while i > 0 and text[i - 1] in _HSPACE:
        i -= 1
    if i > 0 and text[i - 1] not in _NEWLINE:
        return i, j
    if j < n:  # alone on its line, a line break follows: remove the line and its break
        return i, j + (2 if text.startswith("\r\n", j) else 1)
    if i > 0:  # alone on the last line: remove the line break before it
        return i - (2 if i >= 2 and text.startswith("\r\n", i - 2) else 1), j
    return i, j


@register_operator("suppress")
class SuppressOperator(OperatorBase):
    """Replace every sentence that overlaps the span with ``placeholder`` (default ``""``: drop it).

    With ``tidy`` (default) and an empty placeholder, the whitespace around the dropped sentence that would be
    left dangling goes too (see :func:`_tidy`); with ``tidy=False`` exactly the sentence(s) are replaced.
    """

    placeholder: str = ""
    tidy: bool = True

    def edit(self, span: Span, ctx: OperatorContext) -> Edit:
        """An edit covering the span and every sentence it overlaps."""
        start, end = ctx.sentence_bounds(span.start, span.end)
        if self.tidy and not self.placeholder:
            start, end = _tidy(ctx.doc.text, start, end)
        return Edit(start, end, self.placeholder)
