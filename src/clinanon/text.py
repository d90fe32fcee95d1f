"""Text views: tokens and sentences with character offsets on the original text.

PROVISIONAL baseline (word characters vs punctuation). The final implementation keeps this API:

* ``tokenize(text, lang) -> list[Token]``
* ``split_sentences(text, lang) -> list[Sentence]``
* ``TextView(text, lang)`` with cached ``.tokens`` and ``.sentences``
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SUPPORTED_LANGUAGES: tuple[str, ...] = ("en", "es", "nl", "sv", "de")

_TOKEN = re.compile(r"\d+|[^\W\d_]+|[^\w\s]|_", re.UNICODE)


@dataclass(frozen=True, slots=True)
class Token:
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Sentence:
    start: int
    end: int


def tokenize(text: str, lang: str = "es") -> list[Token]:
    return [Token(m.start(), m.end()) for m in _TOKEN.finditer(text)]


def split_sentences(text: str, lang: str = "es") -> list[Sentence]:
    out, start = [], 0
    for m in re.finditer(r"\n\s*|(?<=[.!?])\s+", text):
        if m.start() > start:
            out.append(Sentence(start, m.start()))
        start = m.end()
    if start < len(text) and text[start:].strip():
        out.append(Sentence(start, len(text)))
    return out
