"""The ``profile`` step: keeps only what the chosen profile treats as PHI (:mod:`clinanon.profiles`).

It runs after the spans are resolved (and names propagated) and **before** ``to_scheme``, while labels still tell
an age from a date (a scheme such as ``hipaa`` writes both as ``DATES``): under ``hipaa`` it drops ages up to 89,
clock times, sex, professions, states and countries; under ``gdpr-strict`` nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from clinanon.analysis import Analysis
from clinanon.document import Span
from clinanon.profiles import Profile, get_profile

__all__ = ["ApplyProfile"]


class ApplyProfile:
    """The ``profile`` step. ``category_of`` gives a span label's canonical category (default: labels are
    canonical, as the rules emit them; for a trained model's native labels pass
    ``SchemeLabels(model_scheme).category``)."""

    name = "profile"

    def __init__(self, profile: str | Profile, category_of: Callable[[str], str] | None = None) -> None:
        self.profile = get_profile(profile)
        self.category_of = category_of

    def __repr__(self) -> str:
        return f"ApplyProfile({self.profile.name!r})"

    def process(self, analysis: Analysis, spans: list[Span]) -> list[Span]:
        return self.profile.filter(analysis.text, spans, self.category_of)
