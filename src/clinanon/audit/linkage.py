"""Linkage on quasi-identifiers: which sanitized notes single out one patient of the original corpus?

The attacker holds a table of what may be known about every patient of the corpus — year of birth, sex, town,
admission month (``YYYY-MM``), or any other column — and one sanitized note. For each column, the values of the
table's domain that the note still reveals are found in its text (whole words, case- and accent-folded; a sex from
the sex words of the five languages; an admission month from any date of that month in any format; a year of
birth as a four-digit word). A patient is *consistent* with the note when, for every column the note reveals, the
patient's value is among the revealed ones; ``k`` is the number of consistent patients (every patient when the note
reveals nothing). A note with ``k = 1`` singles one patient out (k-anonymity of the quasi-identifiers that survive
in the text is ``k``); the result says how many notes do, and for how many the one patient is the right one.
"""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinanon.audit._text import count_word, date_triples, fold
from clinanon.document import Document, SanitizedDocument
from clinanon.errors import ConfigError, InputError

__all__ = ["QI_FIELDS", "SEX_WORDS", "LinkageResult", "link_quasi_identifiers", "read_qi_table"]

QI_FIELDS = ("year_of_birth", "sex", "town", "admission_month")

#: sex words per language -> F / M
SEX_WORDS: dict[str, dict[str, str]] = {
    "es": {"mujer": "F", "femenino": "F", "femenina": "F", "nina": "F", "varon": "M", "hombre": "M", "masculino": "M",
           "nino": "M"},
    "en": {"female": "F", "woman": "F", "male": "M", "man": "M"},
    "nl": {"vrouw": "F", "vrouwelijk": "F", "man": "M", "mannelijk": "M"},
    "sv": {"kvinna": "F", "kvinnlig": "F", "man": "M", "manlig": "M"},
    "de": {"frau": "F", "weiblich": "F", "mann": "M", "mannlich": "M"},
}
_SEX_VALUES = {"f": "F", "female": "F", "mujer": "F", "w": "F", "k": "F", "v": "F", "m": "M", "male": "M",
               "h": "M", "varon": "M", "hombre": "M"}


def read_qi_table(path: str | Path, id_field: str = "id") -> list[dict[str, str]]:
    """The attacker's table: a CSV with a header, an ``id_field`` column (the note / patient id) and QI columns."""
    p = Path(path)
    try:
        with p.open(encoding="utf-8", newline="") as fh:
            rows = [dict(r) for r in csv.DictReader(fh)]
    except OSError as e:
        raise InputError(f"cannot read ({e.strerror})", path=p) from None
    if not rows:
        raise InputError("no rows", path=p)
    if id_field not in rows[0]:
        raise InputError(f"no {id_field!r} column", path=p)
    return rows


def _norm(field_name: str, value: str) -> str:
    v = fold(value.strip())
    if field_name == "sex":
        return _SEX_VALUES.get(v, v.upper())
    return v


def _revealed(field_name: str, domain: set[str], text: str, folded: str, lang: str) -> set[str]:
    if field_name == "sex":
        words = SEX_WORDS.get(lang, {})
        return {sex for w, sex in words.items() if count_word(w, folded)} & domain
    if field_name == "admission_month":
        months = {f"{y:04d}-{m:02d}" for y, m, _ in date_triples(text, lang) if y is not None and m is not None}
        return months & domain
    return {v for v in domain if v and count_word(v, folded)}


@dataclass
class LinkageResult:
    notes: int
    k: list[int] = field(default_factory=list)
    correct: list[bool] = field(default_factory=list)
    revealed: Counter[str] = field(default_factory=Counter)
    patients: int = 0

    def __repr__(self) -> str:
        return f"LinkageResult(notes={self.notes}, patients={self.patients})"

    def to_dict(self) -> dict[str, Any]:
        n = len(self.k)
        single = sum(1 for k in self.k if k == 1)
        right = sum(1 for k, c in zip(self.k, self.correct, strict=True) if k == 1 and c)
        buckets = Counter("1" if k == 1 else "2-5" if k <= 5 else "6-20" if k <= 20 else ">20" for k in self.k)
        share = round(single / n, 4) if n else None
        return {"notes": n, "patients": self.patients, "singled_out": single, "singled_out_share": share,
                "singled_out_correct": right, "k_buckets": dict(buckets),
                "median_k": sorted(self.k)[n // 2] if n else None, "revealed_fields": dict(self.revealed),
                "summary": f"{single} of {n} sanitized notes ({100 * (share or 0):.1f} %) single out one patient of "
                           f"the {self.patients} in the attacker's table ({right} correctly)."}


def link_quasi_identifiers(table: Sequence[Mapping[str, str]], sanitized: Sequence[Document | SanitizedDocument],
                           *, id_field: str = "id", fields: Sequence[str] | None = None, lang: str = "es"
                           ) -> LinkageResult:
    """Count the sanitized notes whose surviving quasi-identifiers single out one row of ``table``."""
    if not table:
        raise ConfigError("the quasi-identifier table is empty")
    cols = [f for f in (fields or QI_FIELDS) if f in table[0]]
    if not cols:
        raise ConfigError(f"the table has none of the columns {', '.join(fields or QI_FIELDS)}")
    rows = [(str(r[id_field]), {c: _norm(c, str(r.get(c) or "")) for c in cols}) for r in table]
    domains = {c: {v[c] for _, v in rows if v[c]} for c in cols}
    result = LinkageResult(len(sanitized), patients=len(rows))
    for doc in sanitized:
        text = doc.text
        folded = fold(text)
        doc_lang = str(doc.meta.get("lang") or lang)
        shown = {c: _revealed(c, domains[c], text, folded, doc_lang) for c in cols}
        for c, vals in shown.items():
            if vals:
                result.revealed[c] += 1
        consistent = [rid for rid, v in rows if all(not vals or v[c] in vals for c, vals in shown.items())]
        result.k.append(len(consistent))
        result.correct.append(len(consistent) == 1 and consistent[0] == doc.id)
    return result
