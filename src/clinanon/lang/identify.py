"""Which language is a note in: one of :data:`~clinanon.lang.LANGUAGES`, another language, or undecidable.

The model is py3langid's (a fork of langid.py: a naive Bayes classifier over byte n-grams, trained on 97
languages' text, shipped inside the package; BSD-3-Clause): offline, about 0.2 ms for a short note, and it can say
that a note is in a language we do not support, which a vote over our five languages' word lists cannot.
:func:`identify_language` scores the note against the supported languages and :data:`OTHER_LANGUAGES` (the other
languages a hospital's notes are plausibly written in; py3langid's regional varieties such as Aragonese,
Extremaduran or Luxembourgish are left out: short Spanish or German notes score them as high as their own
language) and decides:

* **unsupported** (``refused``) when another language is at least :data:`OTHER_RATIO` times as likely as the best
  supported one (Galician and Portuguese look like Spanish, Danish and Norwegian like Swedish: a short Spanish or
  Swedish note often scores them a little higher; four times higher happens to 0.3 % of the 100-character windows
  of our corpora in ``benchmarks/language_id.py``, and those notes are refused, not mislabelled);
* **undecidable** (``refused``) when the note has fewer than :data:`MIN_LETTERS` letters (outside numbers, e-mail
  addresses and web addresses), or when the best supported language holds less than :data:`MIN_SHARE` of the
  supported languages' probability (an address block of foreign names);
* else the best supported language.

Before scoring, words typed in capitals are lower-cased (a shift note in capitals is n-grams the model never saw),
and numbers, e-mail and web addresses are dropped (they are no language's). ``benchmarks/language_id.py``
measures the accuracy on the corpora at hand, by length.

Nothing here logs or returns text: a :class:`LanguageGuess` holds codes, probabilities and a reason.

Layering: ground floor (imports only :mod:`clinanon.lang`, :mod:`clinanon.caches` and :mod:`clinanon.errors`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from clinanon.caches import memo
from clinanon.errors import InputError
from clinanon.lang import LANGUAGES

__all__ = ["MAX_CHARS", "MIN_LETTERS", "MIN_SHARE", "OTHER_LANGUAGES", "OTHER_RATIO", "LanguageGuess",
           "LanguageRefused", "identify_language"]

#: the other languages a note is scored against, to refuse notes in them (ISO 639-1, as py3langid names them)
OTHER_LANGUAGES: tuple[str, ...] = (
    "fr", "it", "pt", "ca", "gl", "eu", "da", "no", "nn", "is", "fi", "et", "lv", "lt", "pl", "cs", "sk", "sl",
    "hr", "bs", "sr", "hu", "ro", "bg", "mk", "sq", "el", "tr", "ru", "uk", "be", "ar", "fa", "he", "hi", "ur",
    "zh", "ja", "ko", "vi", "id", "ms", "tl", "af", "ga", "cy", "mt", "sw",
)
#: refuse as unsupported when another language is this many times as likely as the best supported one
OTHER_RATIO = 4.0
#: undecidable below this share of the supported languages' probability
MIN_SHARE = 0.5
#: undecidable with fewer letters than this (after numbers, e-mail and web addresses are dropped)
MIN_LETTERS = 20
#: at most this many characters of a note are scored (its start: a long note's first 1 000 characters decide)
MAX_CHARS = 1000

_DIGITS = re.compile(r"\d+")
_WORD = re.compile(r"[^\W\d_]{2,}")


class LanguageRefused(InputError):
    """A note whose language is not supported, or cannot be told (an :class:`~clinanon.errors.InputError`: a batch
    run writes it to the errors report with the note's id and this reason, never its text)."""


@dataclass(frozen=True, slots=True)
class LanguageGuess:
    """What :func:`identify_language` decided: ``lang`` (a supported code) or ``None`` with ``reason``
    (``"unsupported"`` or ``"undecidable"``); ``best``: the most likely supported language and its share of the
    supported languages' probability; ``other``: the most likely other language and how many times as likely it
    is as ``best``; ``letters``: the letters scored."""

    lang: str | None
    reason: str
    best: str | None = None
    share: float = 0.0
    other: str | None = None
    ratio: float = 0.0
    letters: int = 0

    def describe(self) -> str:
        """The decision in words, for an error report (codes and numbers only)."""
        if self.lang is not None:
            return f"language {self.lang} (share {self.share:.2f})"
        if self.reason == "unsupported":
            return (f"the note's language looks like {self.other!r}, which is not supported "
                    f"({self.ratio:.1f} times as likely as {self.best!r}; supported: {', '.join(LANGUAGES)})")
        if self.letters < MIN_LETTERS:
            return f"the note's language cannot be told ({self.letters} letters)"
        return (f"the note's language cannot be told (most likely {self.best!r} with a share of {self.share:.2f} "
                f"among {', '.join(LANGUAGES)})")

    def refusal(self, doc_id: str | None = None) -> LanguageRefused:
        """The error a pipeline raises for a note it refuses."""
        return LanguageRefused(self.describe() + "; give the language in the note's meta.lang or the "
                               "configuration's language (--lang)", doc_id=doc_id)


@memo
def _identifier() -> Any:
    """py3langid's identifier over the supported and the other languages (loaded once per process, ~2 s)."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    ident = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    ident.set_languages([*LANGUAGES, *OTHER_LANGUAGES])
    return ident


def _prepare(text: str) -> tuple[str, int]:
    """The text scored (numbers and addresses dropped, capitalised words lower-cased) and its number of letters."""
    words = (w for w in text[:MAX_CHARS].split() if "@" not in w and not w.lower().startswith(("http", "www.")))
    text = _DIGITS.sub(" ", " ".join(words))
    text = _WORD.sub(lambda m: m.group().lower() if m.group().isupper() else m.group(), text)
    return text, sum(map(str.isalpha, text))


def identify_language(text: str) -> LanguageGuess:
    """The language of ``text`` (see the module docstring): ``guess.lang`` is a supported code, or ``None`` when
    the note is refused (``guess.reason``: ``"unsupported"`` or ``"undecidable"``)."""
    scored, letters = _prepare(text)
    if letters < MIN_LETTERS:
        return LanguageGuess(None, "undecidable", letters=letters)
    probs = dict(_identifier().rank(scored))
    ours = {lang: probs.get(lang, 0.0) for lang in LANGUAGES}
    best = max(ours, key=ours.__getitem__)
    total = sum(ours.values())
    share = ours[best] / total if total > 0 else 0.0
    other = max(OTHER_LANGUAGES, key=lambda k: probs.get(k, 0.0))
    ratio = probs.get(other, 0.0) / ours[best] if ours[best] > 0 else float("inf")
    if ratio >= OTHER_RATIO:
        return LanguageGuess(None, "unsupported", best, share, other, ratio, letters)
    if share < MIN_SHARE:
        return LanguageGuess(None, "undecidable", best, share, other, ratio, letters)
    return LanguageGuess(best, "identified", best, share, other, ratio, letters)
