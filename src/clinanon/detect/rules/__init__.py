"""Rule-based detectors: named, scored regex patterns per language (dates, ages, sex and form fields, contacts,
identifiers, addresses). Each module exports ``recognizers(lang) -> list[Detector]``."""

__all__: list[str] = []
