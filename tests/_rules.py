"""Shared helpers of the rule tests (``from _rules import found, rules_pipeline``): one rules-only pipeline per
language and profile, built once per test run (building one loads every list of the language), and what it finds
in a text as ``(surface, label)`` pairs in document order."""

from __future__ import annotations

from functools import cache

from clinanon.config import Config
from clinanon.document import Document
from clinanon.pipeline import Pipeline


@cache
def rules_pipeline(lang: str = "en", profile: str | None = None) -> Pipeline:
    """The rules-only pipeline of ``lang`` with canonical labels (``profile``: e.g. ``"hipaa"``; None: the
    language's default)."""
    config: dict[str, object] = {"language": lang, "label_scheme": "canonical", "detectors": {"use": ["rules"]}}
    if profile is not None:
        config["profile"] = profile
    return Pipeline(Config.from_dict(config))


def found(nlp: Pipeline, text: str) -> list[tuple[str, str]]:
    """``(surface, label)`` of every span ``nlp`` finds in ``text``."""
    return [(text[s.start:s.end], s.label) for s in nlp.detect_spans(Document(id="t", text=text))]
