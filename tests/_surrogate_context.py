"""A surrogate generator context over a small synthetic document (shared by the surrogate tests)."""

from __future__ import annotations

from clinanon.document import Document, Span
from clinanon.transform.engine import SpanCategories
from clinanon.transform.surrogate import GenContext, KeyedRandom, Settings, cities, parse_key
from clinanon.transform.surrogate._data import Place


def doc_context(originals: list[str], categories: list[str], key: str) -> GenContext:
    """A context for document ``"d"`` whose text holds ``originals`` separated by ``" | "``, one span each with
    its category as label, and the keyed randomness of ``key`` in document scope."""
    text, spans, pos = "", [], 0
    for o, c in zip(originals, categories, strict=True):
        spans.append(Span(pos, pos + len(o), c))
        text += o + " | "
        pos += len(o) + 3
    doc = Document("d", text, tuple(spans))
    cats = SpanCategories(doc.spans, [s.label for s in doc.spans])
    return GenContext(KeyedRandom(parse_key(key), "document:d"), "es", Settings(), doc, doc.spans, cats)


def city_pool(place: Place | None, lang: str) -> list[Place]:
    """The places a city or region may become, as a list: :func:`cities._city_source` with a ``(list, place)``
    source built (the list without the place)."""
    source = cities._city_source(place, lang)
    if isinstance(source, tuple):
        return [p for p in source[0].items if p != source[1]]
    return source
