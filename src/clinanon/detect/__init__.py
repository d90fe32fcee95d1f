"""Detectors: anything with ``detect(doc) -> list[Span]``."""

from clinanon.detect.base import Detector, Pattern, PatternRecognizer

__all__ = ["Detector", "Pattern", "PatternRecognizer"]
