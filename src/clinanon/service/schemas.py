"""The JSON the service takes and returns (pydantic models; they are the OpenAPI schema).

Validation messages never repeat the input (:func:`clinanon.service.app.create_app` strips pydantic's ``input``
and ``ctx`` from 422 bodies); a text with a lone surrogate (``"\\ud800"`` in JSON) or a NUL is refused here, since no
format could write it back.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["BatchIn", "DeidentifiedOut", "DetectedOut", "DocumentIn", "EvaluateIn", "SpanIn", "SpanOut"]

Label = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[^\s;]+$")]
MetaValue = str | int | float | bool | None


def _check_text(value: str, what: str) -> str:
    """``value`` when it can be written as UTF-8 and holds no NUL; the error names the offset, not the text."""
    for i, ch in enumerate(value):
        if ch == "\x00" or "\ud800" <= ch <= "\udfff":
            raise ValueError(f"{what}: a NUL or a lone surrogate at offset {i}")
    return value


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SpanIn(_In):
    """A gold span: ``[start, end)`` character offsets on the document's text."""

    start: int = Field(ge=0, le=2**31)
    end: int = Field(ge=1, le=2**31)
    label: Label


class DocumentIn(_In):
    """One note: its id, text, metadata (``lang`` sets its language: en, es, nl, sv, de) and, for ``/evaluate``,
    its gold spans."""

    id: str = Field(min_length=1, max_length=256)
    text: str
    meta: dict[Annotated[str, Field(max_length=100)], MetaValue] = Field(default_factory=dict)
    spans: list[SpanIn] = Field(default_factory=list)

    @field_validator("id", "text")
    @classmethod
    def _utf8(cls, v: str, info: Any) -> str:
        return _check_text(v, info.field_name)

    @field_validator("meta")
    @classmethod
    def _meta_utf8(cls, v: dict[str, MetaValue]) -> dict[str, MetaValue]:
        for key, value in v.items():
            _check_text(key, "meta key")
            if isinstance(value, str):
                _check_text(value, "meta value")
        return v


class BatchIn(_In):
    """Several notes (at most the service's ``max_documents``)."""

    documents: list[DocumentIn] = Field(min_length=1)


class EvaluateIn(BatchIn):
    """Notes with gold spans, scored against the service's pipeline; ``label_map``: compare native labels, canonical
    categories or types (``NAME.PATIENT`` -> ``NAME``); ``scheme``: the label scheme of the gold labels."""

    label_map: Literal["native", "canonical", "type"] = "native"
    scheme: str | None = Field(default=None, max_length=100)


class SpanOut(BaseModel):
    start: int
    end: int
    label: str
    source: str
    score: float


class ReplacementOut(BaseModel):
    start: int
    end: int
    out_start: int
    out_end: int
    label: str
    category: str
    operator: str


class DetectedOut(BaseModel):
    """The predicted spans of one note (offsets on the text that was sent; the text is not sent back)."""

    id: str
    meta: dict[str, Any]
    spans: list[SpanOut]


class DeidentifiedOut(BaseModel):
    """The de-identified note and its replacement log (offsets in both texts)."""

    id: str
    text: str
    meta: dict[str, Any]
    replacements: list[ReplacementOut]


class BatchDetectedOut(BaseModel):
    documents: list[DetectedOut]


class BatchDeidentifiedOut(BaseModel):
    documents: list[DeidentifiedOut]


class ErrorOut(BaseModel):
    """An error: what was wrong and where (field, offset, limit), never document or span text."""

    detail: Any
