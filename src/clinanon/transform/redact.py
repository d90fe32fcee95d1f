"""``redact``: replace a span with a fixed string (``"XXXX"``) or with a same-length mask (``"*****"``)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from clinanon.document import Span
from clinanon.transform.base import Edit, OperatorBase, OperatorContext, register_operator

__all__ = ["RedactOperator"]


@register_operator("redact")
class RedactOperator(OperatorBase):
    """Replace the span with ``text`` (default ``"XXXX"``), or, when ``mask_char`` is set, with that character
    repeated once per character of the span (a same-length mask, so the layout is kept).

    With a mask, ``keep_whitespace`` (default ``False``) leaves whitespace inside the span as it is (line breaks
    survive; word lengths become visible). ``text`` and ``mask_char`` exclude each other.
    """

    text: str = "XXXX"
    mask_char: str | None = Field(default=None, min_length=1, max_length=1)
    keep_whitespace: bool = False

    @model_validator(mode="before")
    @classmethod
    def _one_mode(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("mask_char") is not None and "text" in data:
            raise ValueError("set either 'text' (a fixed string) or 'mask_char' (a same-length mask), not both")
        return data

    def replacement(self, original: str) -> str:
        """The new text for a span whose original text is ``original``."""
        if self.mask_char is None:
            return self.text
        if self.keep_whitespace:
            return "".join(c if c.isspace() else self.mask_char for c in original)
        return self.mask_char * len(original)

    def edit(self, span: Span, ctx: OperatorContext) -> Edit:
        """An edit of exactly the span."""
        original = ctx.doc.text[span.start:span.end] if self.mask_char is not None else ""
        return Edit(span.start, span.end, self.replacement(original))
