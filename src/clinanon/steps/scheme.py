"""Labels and label schemes in the steps: what a label means in a scheme (looked up once per label), the
``to_scheme`` step that writes labels in the pipeline's scheme, and the ``min_score`` filter."""

from __future__ import annotations

from collections.abc import Callable

from clinanon.analysis import Analysis
from clinanon.document import Span
from clinanon.errors import ConfigError
from clinanon.taxonomy import LabelScheme, category_matches

__all__ = ["MinScore", "SchemeLabels", "ToScheme"]


class SchemeLabels:
    """What depends on a label only, in one scheme, looked up once per label: its canonical category, the
    scheme's label for a category, whether it names a person, and the label in the scheme.

    A label the scheme does not know is its own category; a category the scheme has no label for has ``None``.
    """

    def __init__(self, scheme: LabelScheme) -> None:
        self.scheme = scheme
        self._category: dict[str, str] = {}
        self._native: dict[str, str | None] = {}
        self._is_name: dict[str, bool] = {}
        self._in_scheme: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"SchemeLabels({self.scheme.name!r})"

    def category(self, label: str) -> str:
        got = self._category.get(label)
        if got is None:
            try:
                got = self.scheme.category(label)
            except KeyError:
                got = label
            self._category[label] = got
        return got

    def native(self, category: str) -> str | None:
        """The scheme's label for ``category`` (a category or a label), ``None`` when it has none."""
        if category in self._native:
            return self._native[category]
        try:
            got = self.scheme.native(category)
        except (KeyError, ConfigError):
            got = None
        self._native[category] = got
        return got

    def is_name(self, label: str) -> bool:
        """Whether ``label`` is a name (its category is NAME or one of its types)."""
        got = self._is_name.get(label)
        if got is None:
            got = self._is_name[label] = category_matches(self.category(label), "NAME") or label == "NAME"
        return got

    def in_scheme(self, label: str) -> str:
        """``label`` in the scheme: itself when the scheme has it, else the scheme's label for it, else itself."""
        got = self._in_scheme.get(label)
        if got is None:
            got = self._in_scheme[label] = label if label in self.scheme else self.native(label) or label
        return got


def relabel(spans: list[Span], label_of: Callable[[str], str]) -> list[Span]:
    """``spans`` with each label replaced by ``label_of(label)`` (the same span object when it is unchanged)."""
    out = []
    for s in spans:
        target = label_of(s.label)
        if target == s.label:
            out.append(s)
        elif type(s) is Span and target:  # what with_label gives, without dataclasses.replace (s is valid)
            out.append(Span.trusted(s.start, s.end, target, s.source, s.score))
        else:
            out.append(s.with_label(target))
    return out


class ToScheme:
    """The ``to_scheme`` step: labels into ``scheme`` (a label the scheme has stays, another becomes the scheme's
    label for it, else stays). With ``via`` (the scheme the spans' labels are in, when it is not ``scheme``), a
    label becomes its canonical category in ``via``, then ``scheme``'s label for that category (an ensemble votes in
    a model's labels and writes another scheme's)."""

    name = "to_scheme"

    def __init__(self, scheme: LabelScheme, via: LabelScheme | None = None) -> None:
        self.target = SchemeLabels(scheme)
        self.via = SchemeLabels(via) if via is not None and via.name != scheme.name else None
        self._memo: dict[str, str] = {}

    def label(self, label: str) -> str:
        got = self._memo.get(label)
        if got is None:
            if self.via is None:
                got = self.target.in_scheme(label)
            else:
                cat = self.via.category(label)
                target = self.target.scheme
                got = cat if target.name == "canonical" else (target.native(cat) or label)
            self._memo[label] = got
        return got

    def process(self, analysis: Analysis, spans: list[Span]) -> list[Span]:
        return relabel(spans, self.label)


class MinScore:
    """The ``min_score`` step: drops spans scoring below ``min_score``."""

    name = "min_score"

    def __init__(self, min_score: float) -> None:
        self.min_score = float(min_score)

    def process(self, analysis: Analysis, spans: list[Span]) -> list[Span]:
        m = self.min_score
        return spans if all(s.score >= m for s in spans) else [s for s in spans if s.score >= m]
