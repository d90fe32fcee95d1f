"""Residual PHI: which gold mentions of the original notes can still be read in the sanitized ones.

Input: the original documents with their gold spans, and the sanitized documents (any operator, any tool: only
their text is read; documents are paired by id). For each gold mention, three levels, each including the one
before:

* ``exact`` — the mention's text occurs in the sanitized note as whole words, as written;
* ``folded`` — the same, case- and accent-folded (``GARCÍA`` for ``García``);
* ``partial`` — a part of it survives: a word of a name, place or profession, or of the local part of an e-mail
  address (three letters or more, not a common word of the language), the digits of an ID, phone or fax without
  their separators (four digits or more; inside a longer run from six), a date in any other format (day and
  month, or month and year, agree).

A surrogate that equals the original, or that happens to be another mention's original, is a leak like any other.
Because the search is over the whole note, a mention also "survives" when the same string occurs in the original
outside every gold span (an unannotated repetition, or a common word such as a sex or a country): each level
is also counted ``beyond_unannotated`` — the string occurs in the output more often than in the original's
unannotated text (for parts, dates and digits: it occurs in the output and nowhere in the original's unannotated
text) — which isolates what the operator (or the detector) left behind from what the annotation missed.

Entity-level recall follows the Text Anonymization Benchmark (TAB, Pilán et al. 2022): an entity is protected only
when every mention of it is masked; here an entity is the set of mentions of one document with the same canonical
type and the same folded text (MEDDOCAN has no co-reference layer), and "masked" means "does not survive at that
level". Direct and quasi identifiers are reported apart (:data:`DIRECT_CATEGORIES`). Token-level figures count the
words of the gold mentions (common words of the language left out, numbers kept) whose folded form survives
beyond the unannotated text.

Nothing in the report holds text: counts, rates, categories, document ids and offsets only.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from clinanon.audit._text import count_word, date_matches, date_triples, digit_runs, digits_of, fold, parse_date
from clinanon.audit.lexicon import common_words
from clinanon.document import Document, SanitizedDocument
from clinanon.errors import ConfigError
from clinanon.taxonomy import get_scheme, parent

__all__ = ["DIRECT_CATEGORIES", "LEVELS", "MentionCheck", "ResidualReport", "identifier_kind", "residual_phi"]

LEVELS = ("exact", "folded", "partial")

#: canonical categories (or types) that are direct identifiers: they name or address a person on their own. Every
#: other category (AGE, DATE, SEX, PROFESSION, LOCATION but streets, OTHER) is a quasi-identifier: it singles a
#: person out only in combination. TAB's DIRECT/QUASI distinction, mapped onto clinanon's canonical taxonomy.
DIRECT_CATEGORIES: tuple[str, ...] = ("NAME", "ID", "CONTACT", "LOCATION.STREET")

_DIGIT_TYPES = ("ID", "CONTACT.PHONE", "CONTACT.FAX", "CONTACT.IPADDR")
_WORD_TYPES = ("NAME", "LOCATION", "PROFESSION", "OTHER", "CONTACT.EMAIL", "CONTACT.URL")


def identifier_kind(category: str) -> str:
    """``"direct"`` or ``"quasi"`` for a canonical category (see :data:`DIRECT_CATEGORIES`)."""
    for sel in DIRECT_CATEGORIES:
        if category == sel or parent(category) == sel:
            return "direct"
    return "quasi"


@dataclass(frozen=True, slots=True)
class MentionCheck:
    """The verdict for one gold mention (offsets on the original, no text)."""

    doc_id: str
    start: int
    end: int
    label: str
    category: str
    kind: str
    entity: int
    leaked: tuple[bool, bool, bool]
    beyond: tuple[bool, bool, bool]


def _matches(category: str, *selectors: str) -> bool:
    return any(category == s or parent(category) == s for s in selectors)


def _parts(text: str, lang: str) -> list[str]:
    """Folded words of a mention that identify on their own (3+ letters, not a common word)."""
    common = common_words(lang)
    out = []
    for w in fold(text).replace("@", " ").replace(".", " ").split():
        w = "".join(c for c in w if c.isalnum())
        if len(w) >= 3 and any(c.isalpha() for c in w) and w not in common:
            out.append(w)
    return out


class _DocView:
    """One pair of texts, with the folded forms and the original's unannotated text computed once."""

    def __init__(self, original: Document, output: str, lang: str) -> None:
        text = original.text
        chars = list(text)
        for s in original.spans:
            for i in range(s.start, s.end):
                if not chars[i].isspace():
                    chars[i] = "\x00"  # a non-word character: occurrences never cross a span
        self.free = "".join(chars)
        self.free_folded = fold(self.free)
        self.out = output
        self.out_folded = fold(output)
        self.lang = lang
        self._out_dates: set[Any] | None = None
        self._free_dates: set[Any] | None = None
        self._out_digits: list[str] | None = None
        self._free_digits: list[str] | None = None

    @property
    def out_dates(self) -> set[Any]:
        if self._out_dates is None:
            self._out_dates = date_triples(self.out, self.lang)
        return self._out_dates

    @property
    def free_dates(self) -> set[Any]:
        if self._free_dates is None:
            self._free_dates = date_triples(self.free.replace("\x00", " "), self.lang)
        return self._free_dates

    @property
    def out_digits(self) -> list[str]:
        if self._out_digits is None:
            self._out_digits = digit_runs(self.out)
        return self._out_digits

    @property
    def free_digits(self) -> list[str]:
        if self._free_digits is None:
            self._free_digits = digit_runs(self.free)
        return self._free_digits


def _digits_in(d: str, runs: list[str]) -> bool:
    return any(d == r or (len(d) >= 6 and d in r) for r in runs)


def _check(text: str, category: str, view: _DocView) -> tuple[tuple[bool, bool, bool], tuple[bool, bool, bool]]:
    raw = text.strip()
    ex_out, ex_free = count_word(raw, view.out), count_word(raw, view.free)
    f = fold(raw)
    fo_out, fo_free = count_word(f, view.out_folded), count_word(f, view.free_folded)
    exact, exact_b = ex_out > 0, ex_out > ex_free
    folded, folded_b = exact or fo_out > 0, exact_b or fo_out > fo_free
    partial, partial_b = folded, folded_b
    if not partial_b:
        if _matches(category, "DATE"):
            g = parse_date(raw, view.lang)
            if g is not None and date_matches(g, view.out_dates):
                partial = True
                partial_b = partial_b or not date_matches(g, view.free_dates)
        elif _matches(category, *_DIGIT_TYPES) and len(digits_of(raw)) >= 4:
            d = digits_of(raw)
            if _digits_in(d, view.out_digits):
                partial = True
                partial_b = partial_b or not _digits_in(d, view.free_digits)
        if _matches(category, *_WORD_TYPES):
            words = raw.split("@", 1)[0] if _matches(category, "CONTACT.EMAIL") else raw
            for p in _parts(words.replace("_", " ").replace("-", " "), view.lang):
                n_out = count_word(p, view.out_folded)
                if n_out:
                    partial = True
                    if n_out > count_word(p, view.free_folded):
                        partial_b = True
                        break
    return (exact, folded, partial), (exact_b, folded_b, partial_b)


def _token_counts(text: str, view: _DocView) -> tuple[int, int]:
    """(tokens counted, tokens that survive beyond the unannotated text), folded."""
    common = common_words(view.lang)
    n = leaked = 0
    for w in fold(text).split():
        w = "".join(c for c in w if c.isalnum())
        if not w or (not w.isdigit() and (len(w) < 2 or w in common)):
            continue
        n += 1
        if count_word(w, view.out_folded) > count_word(w, view.free_folded):
            leaked += 1
    return n, leaked


def _rate(k: int, n: int) -> float | None:
    return round(k / n, 4) if n else None


def _level_block(checks: list[MentionCheck]) -> dict[str, Any]:
    n = len(checks)
    out: dict[str, Any] = {"mentions": n}
    for i, level in enumerate(LEVELS):
        k = sum(c.leaked[i] for c in checks)
        b = sum(c.beyond[i] for c in checks)
        out[level] = {"leaked": k, "rate": _rate(k, n), "beyond_unannotated": b, "beyond_rate": _rate(b, n)}
    return out


def _entity_block(checks: list[MentionCheck]) -> dict[str, Any]:
    ents: dict[int, list[MentionCheck]] = defaultdict(list)
    for c in checks:
        ents[c.entity].append(c)
    n = len(ents)
    out: dict[str, Any] = {"entities": n}
    for i, level in enumerate(LEVELS):
        protected = sum(1 for ms in ents.values() if not any(m.leaked[i] for m in ms))
        protected_b = sum(1 for ms in ents.values() if not any(m.beyond[i] for m in ms))
        out[level] = {"recall": _rate(protected, n), "recall_beyond_unannotated": _rate(protected_b, n)}
    return out


@dataclass
class ResidualReport:
    """Residual PHI of a sanitized corpus; :meth:`to_dict` is the JSON form (no text)."""

    checks: list[MentionCheck] = field(default_factory=list)
    documents: int = 0
    missing: list[str] = field(default_factory=list)
    tokens: int = 0
    tokens_leaked: int = 0

    def __repr__(self) -> str:
        return f"ResidualReport(documents={self.documents}, mentions={len(self.checks)}, missing={len(self.missing)})"

    def rate(self, level: str = "folded", *, beyond: bool = False) -> float | None:
        """The share of gold mentions that survive at ``level``."""
        i = LEVELS.index(level)
        n = len(self.checks)
        k = sum((c.beyond if beyond else c.leaked)[i] for c in self.checks)
        return _rate(k, n)

    def to_dict(self) -> dict[str, Any]:
        by_cat: dict[str, list[MentionCheck]] = defaultdict(list)
        by_kind: dict[str, list[MentionCheck]] = defaultdict(list)
        for c in self.checks:
            by_cat[c.category].append(c)
            by_kind[c.kind].append(c)
        return {
            "documents": self.documents,
            "missing_documents": len(self.missing),
            "levels": list(LEVELS),
            "overall": _level_block(self.checks),
            "by_category": {k: _level_block(v) for k, v in sorted(by_cat.items())},
            "by_identifier": {k: _level_block(by_kind.get(k, [])) for k in ("direct", "quasi")},
            "entity_recall": {"all": _entity_block(self.checks),
                              "direct": _entity_block(by_kind.get("direct", [])),
                              "quasi": _entity_block(by_kind.get("quasi", []))},
            "token_recall": {"tokens": self.tokens, "leaked": self.tokens_leaked,
                             "recall": _rate(self.tokens - self.tokens_leaked, self.tokens)},
            "identifier_mapping": {"direct": list(DIRECT_CATEGORIES), "quasi": "every other canonical category"},
        }


def _texts(sanitized: Iterable[Document | SanitizedDocument] | Mapping[str, str]) -> dict[str, str]:
    if isinstance(sanitized, Mapping):
        return {str(k): str(v) for k, v in sanitized.items()}
    return {d.id: d.text for d in sanitized}


def residual_phi(originals: Iterable[Document], sanitized: Iterable[Document | SanitizedDocument] | Mapping[str, str],
                 *, scheme: str = "canonical", lang: str = "es") -> ResidualReport:
    """Check every gold span of ``originals`` against the sanitized text of the same document id.

    ``scheme`` names the label scheme of the gold labels (their canonical categories decide the checks and the
    direct / quasi split); ``lang`` is the default language (``meta["lang"]`` of a document wins) for common words
    and month names. Originals without a sanitized counterpart are listed in ``missing`` and skipped.
    """
    label_scheme = get_scheme(scheme)
    outs = _texts(sanitized)
    report = ResidualReport()
    entity_ids: dict[tuple[str, str, str], int] = {}
    for doc in originals:
        out = outs.get(doc.id)
        if out is None:
            report.missing.append(doc.id)
            continue
        report.documents += 1
        view = _DocView(doc, out, str(doc.meta.get("lang") or lang))
        for s in doc.spans:
            try:
                category = label_scheme.category(s.label)
            except KeyError:
                raise ConfigError(f"document {doc.id!r}, span [{s.start}, {s.end}): label {s.label!r} is not in "
                                  f"label scheme {label_scheme.name!r}") from None
            text = doc.text[s.start:s.end]
            key = (doc.id, parent(category), fold(text.strip()))
            ent = entity_ids.setdefault(key, len(entity_ids))
            leaked, beyond = _check(text, category, view)
            report.checks.append(MentionCheck(doc.id, s.start, s.end, s.label, category, identifier_kind(category),
                                              ent, leaked, beyond))
            n, k = _token_counts(text, view)
            report.tokens += n
            report.tokens_leaked += k
    return report


def leak_counts(report: ResidualReport) -> Counter[str]:
    """Leaked mentions per category at the folded level (a small summary for plots)."""
    return Counter(c.category for c in report.checks if c.leaked[1])
