"""``tag``: replace a span with a label made from a template (``[NAME]``, ``<PERSON>``, ``PERSON``...).

Placeholders (``str.format`` syntax, ``{{`` for a literal brace):

* ``{label}`` — the span's native label (``NOMBRE_SUJETO_ASISTENCIA``; the category when spans are canonical)
* ``{category}`` — the canonical category (``NAME.PATIENT``)
* ``{type}`` — its type (``NAME``); ``{subtype}`` — the part after the dot (``PATIENT``, empty for a bare type)
* ``{scheme_label}`` — the category's label in the operator's ``scheme`` (``get_scheme(scheme).native(category)``),
  else in the engine's scheme; falls back to ``{type}`` when that scheme has no label for it.

The preset ``"label"`` writes the bare OntoNotes label (``PERSON``, ``GPE``, ``DATE``), as used to anonymize a
language model's pretraining data; ``"type"`` writes ``[NAME]``, ``"category"`` ``[NAME.PATIENT]``, ``"angle"``
``<PERSON>``. ``templates`` overrides the template per category or type (a subtype beats its type).
"""

from __future__ import annotations

import re
import string
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from clinanon.document import Span
from clinanon.errors import ConfigError
from clinanon.lang.fold import fold
from clinanon.lang.lexicon import trigger_words
from clinanon.taxonomy import CANONICAL_CATEGORIES, get_scheme, parent
from clinanon.transform.base import Edit, OperatorBase, OperatorContext, register_operator

__all__ = ["PLACEHOLDERS", "PRESETS", "TagOperator"]

PLACEHOLDERS: tuple[str, ...] = ("label", "category", "type", "subtype", "scheme_label")

#: preset name -> (template, default scheme for ``{scheme_label}``)
PRESETS: dict[str, tuple[str, str | None]] = {
    "label": ("{scheme_label}", "ontonotes"),
    "angle": ("<{scheme_label}>", "ontonotes"),
    "type": ("[{type}]", None),
    "category": ("[{category}]", None),
}

_DEFAULT_TEMPLATE = "[{category}]"


def _check_template(template: str) -> str:
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as e:
        raise ValueError(f"template is not a valid format string ({e}); write '{{{{' for a literal brace") from None
    for _, field_name, spec, conversion in parsed:
        if field_name is None:
            continue
        if field_name not in PLACEHOLDERS:
            raise ValueError(f"unknown placeholder {{{field_name}}}; expected one of: "
                             + ", ".join(f"{{{p}}}" for p in PLACEHOLDERS))
        if conversion is not None or (spec and "{" in spec):
            raise ValueError(f"placeholder {{{field_name}}}: conversions and nested fields are not supported")
    return template


@register_operator("tag")
class TagOperator(OperatorBase):
    """Replace the span with ``template`` filled in for its category (see the module docstring)."""

    template: str = _DEFAULT_TEMPLATE
    templates: dict[str, str] = Field(default_factory=dict)
    preset: Literal["label", "angle", "type", "category"] | None = None
    scheme: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _apply_preset(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("preset") is not None:
            if "template" in data:
                raise ValueError("set either 'preset' or 'template', not both")
            preset = data["preset"]
            if preset in PRESETS:
                template, scheme = PRESETS[preset]
                data = {**data, "template": template}
                if data.get("scheme") is None and scheme is not None:
                    data["scheme"] = scheme
        return data

    @field_validator("template")
    @classmethod
    def _valid_template(cls, v: str) -> str:
        return _check_template(v)

    @field_validator("templates")
    @classmethod
    def _valid_templates(cls, v: dict[str, str]) -> dict[str, str]:
        for key, template in v.items():
            if key not in CANONICAL_CATEGORIES:
                raise ValueError(f"key {key!r} is not a canonical category or type")
            try:
                _check_template(template)
            except ValueError as e:
                raise ValueError(f"templates[{key!r}]: {e}") from None
        return v

    @field_validator("scheme")
    @classmethod
    def _known_scheme(cls, v: str | None) -> str | None:
        if v is not None:
            try:
                get_scheme(v)
            except ConfigError as e:
                raise ValueError(str(e)) from None
        return v

    def template_for(self, category: str) -> str:
        """The template for a category: its own entry, else its type's, else ``template``."""
        return self.templates.get(category) or self.templates.get(parent(category)) or self.template

    def render(self, span: Span, ctx: OperatorContext) -> str:
        """The tag for ``span`` (a function of its label and category only, never of its text)."""
        category = ctx.category
        typ = parent(category)
        scheme = get_scheme(self.scheme) if self.scheme is not None else ctx.scheme
        scheme_label = (scheme.native(category) if scheme is not None else None) or typ
        return self.template_for(category).format(
            label=span.label, category=category, type=typ,
            subtype=category.partition(".")[2], scheme_label=scheme_label,
        )

    def edit(self, span: Span, ctx: OperatorContext) -> Edit:
        """An edit of the span; a name's leading lower-case kinship words and possessives stay in the text ("su
        marido Julián" -> "su marido [NAME]"), as the surrogate operator keeps them."""
        keep = ""
        if ctx.category.startswith("NAME"):
            keep = ctx.doc.text[span.start:_after_kinship(ctx.doc.text, span.start, span.end, ctx.lang)]
        return Edit(span.start, span.end, keep + self.render(span, ctx))


_LEAD_WORD = re.compile(r"([^\W\d_]+)[ \t]+")
#: possessives before a kinship word ("su marido", "his wife", "ihr Ehemann", "haar man", "hennes man")
_POSSESSIVES = frozenset(("su", "sus", "mi", "his", "her", "their", "my", "the", "sein", "seine", "ihr", "ihre",
                          "zijn", "haar", "hun", "mijn", "hans", "hennes", "deras", "min", "mitt"))


def _after_kinship(text: str, start: int, end: int, lang: str) -> int:
    """Where the name proper starts in ``text[start:end]``: after leading lower-case possessives and kinship words
    (the ``kin`` trigger words of ``lang``) when a capitalised word follows them; else ``start``."""
    kin = trigger_words(lang, "kin")
    pos = start
    while True:
        m = _LEAD_WORD.match(text, pos, end)
        if m is None or not m.group(1).islower() or (fold(m.group(1)) not in kin
                                                     and m.group(1) not in _POSSESSIVES):
            break
        pos = m.end()
    return pos if pos < end and text[pos].isupper() else start
