"""Per document language, the detector of that language (built once per language)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from clinanon.analysis import Analysis
from clinanon.detect.base import BaseDetector, Detector, run_detector
from clinanon.document import Document, Span
from clinanon.lang import check_language

__all__ = ["LanguageDispatch"]


class LanguageDispatch(BaseDetector):
    """Per document, the detector of that document's language (``meta["lang"]`` when set, else ``lang``).

    ``build(lang)`` makes the detector of one language; it is called at most once per language and the result is
    kept (a worker process loads a model once, not per document). The detector of ``lang`` is built at once
    (``eager``), so a missing or broken model fails before the first document. A document whose language is not
    supported raises :class:`~clinanon.errors.ConfigError` (naming the code, never the text)."""

    name = "default"

    def __init__(self, build: Callable[[str], Detector], lang: str, *, eager: bool = True) -> None:
        self._build = build
        self.lang = check_language(lang)
        self._detectors: dict[str, Detector] = {}
        if eager:
            self.detector_for(self.lang)

    def __repr__(self) -> str:
        return f"LanguageDispatch(lang={self.lang!r}, built={sorted(self._detectors)!r})"

    def detector_for(self, lang: str) -> Detector:
        """The detector of ``lang`` (built on first use, then cached)."""
        det = self._detectors.get(lang)
        if det is None:
            code = check_language(lang)
            det = self._detectors.get(code)
            if det is None:
                det = self._detectors[code] = self._build(code)
            self._detectors[lang] = det
        return det

    @property
    def built(self) -> dict[str, Detector]:
        """The detectors built so far, by the language code asked for (``"es-ES"`` shares the one of ``"es"``)."""
        return dict(self._detectors)

    def detect(self, analysis: Analysis | Document) -> list[Span]:
        a = self.analysis(analysis)
        return run_detector(self.detector_for(a.lang), [a])[0]

    def pipe(self, analyses: Sequence[Analysis]) -> list[list[Span]]:
        """``[self.detect(a) for a in analyses]``: the notes of one language go to their detector together."""
        groups: dict[str, list[int]] = {}
        for i, a in enumerate(analyses):
            groups.setdefault(a.lang, []).append(i)
        out: list[list[Span]] = [[] for _ in analyses]
        for lang, idx in groups.items():
            found = run_detector(self.detector_for(lang), [analyses[i] for i in idx])
            for i, spans in zip(idx, found, strict=True):
                out[i] = spans
        return out
