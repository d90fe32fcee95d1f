"""Detectors: anything with ``detect(doc) -> list[Span]``."""

from clinanon.detect.base import BaseDetector, Detector, Pattern

__all__ = ["BaseDetector", "Detector", "Pattern"]
