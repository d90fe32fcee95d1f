"""One audit of a corpus: sanitize it with each operator (or take sanitized versions made elsewhere), then measure
residual PHI and the similarity-search attack for each version, and say in one sentence what it means.

>>> from clinanon import io
>>> from clinanon.audit import audit_corpus, sanitize
>>> docs = list(io.read("gold/", "brat"))                                       # doctest: +SKIP
>>> versions = {op: sanitize(docs, op, scheme="meddocan", lang="es") for op in ("tag", "redact")}  # doctest: +SKIP
>>> result = audit_corpus(docs, versions, scheme="meddocan", lang="es")       # doctest: +SKIP
>>> result["summary"]                                                         # doctest: +SKIP

The result is a plain JSON-ready dict (no text of any note): ``rows`` (one per version: residual PHI and one
entry per re-identification method), ``summary`` and the settings.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from clinanon.audit.reid import encode_notes, reidentify
from clinanon.audit.residual import residual_phi
from clinanon.document import Document, SanitizedDocument
from clinanon.errors import ConfigError

__all__ = ["DEFAULT_METHODS", "OPERATORS", "audit_corpus", "operator_spec", "sanitize", "summary_sentence"]

#: the operators :func:`sanitize` knows by name (any registered operator works through a settings dict)
OPERATORS = ("tag", "redact", "surrogate", "neighbors", "suppress")
DEFAULT_METHODS = ("jaccard", "bm25", "minhash")


def operator_spec(name: str, **params: Any) -> dict[str, Any]:
    """The operator settings for ``name`` (``neighbors`` needs ``embeddings=``; ``surrogate`` takes ``key=`` or
    ``key_file=``, else the key from the environment)."""
    return {"operator": name, **params}


def sanitize(docs: Sequence[Document], operator: str | Mapping[str, Any], *, scheme: str = "canonical",
             lang: str = "es", batch_size: int = 64, **params: Any) -> list[SanitizedDocument]:
    """The documents with their own spans (gold or detected) replaced by ``operator`` for every category."""
    from clinanon.transform import Anonymizer

    spec = operator_spec(operator, **params) if isinstance(operator, str) else dict(operator)
    anon = Anonymizer({"*": spec}, scheme=scheme, lang=lang)
    out: list[SanitizedDocument] = []
    for i in range(0, len(docs), batch_size):
        batch = list(docs[i:i + batch_size])
        out.extend(anon.anonymize_many(batch, [list(d.spans) for d in batch]))
    return out


def _members(doc: Document | SanitizedDocument) -> list[str]:
    """The ids of the originals an aggregated note was made of (``aggregated_from`` metadata), else ``[]``."""
    members = doc.meta.get("aggregated_from") if doc.meta else None
    return [str(m) for m in members] if isinstance(members, (list, tuple)) and len(members) > 0 else []


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f} %"


def summary_sentence(rows: Sequence[Mapping[str, Any]]) -> str:
    """One sentence a data office can quote, from the audit rows (the worst case over versions and methods)."""
    if not rows:
        return "Nothing was audited."
    parts = []
    best_attack: tuple[float, str, str] = (-1.0, "", "")
    for row in rows:
        for method, r in row.get("reid", {}).items():
            f1 = r.get("found@1")
            if f1 is not None and f1 > best_attack[0]:
                best_attack = (f1, row["name"], method)
    worst_leak = max(rows, key=lambda r: (r.get("residual", {}).get("overall", {}).get("folded", {}).get("rate")
                                          or 0.0))
    leak = worst_leak.get("residual", {}).get("overall", {}).get("folded", {})
    if leak and not leak.get("rate"):
        parts.append(f"none of the {worst_leak['residual']['overall']['mentions']} annotated PHI mentions can be read "
                     f"in any sanitized version")
    elif leak:
        parts.append(f"at worst ({worst_leak['name']}) {_pct(leak.get('rate'))} of the "
                     f"{worst_leak['residual']['overall']['mentions']} annotated PHI mentions can still be read in the "
                     f"sanitized notes")
    if best_attack[0] >= 0:
        parts.append(f"an attacker who holds the original notes finds the original of {_pct(best_attack[0])} of the "
                     f"sanitized notes at the first try ({best_attack[1]}, {best_attack[2]} similarity)")
    n_docs = rows[0].get("documents", 0)
    text = f"Of {n_docs} notes, " + "; yet ".join(parts) + "."
    if best_attack[0] >= 0.5:
        text += (" Masking PHI does not stop linkage when the attacker holds the originals: release sanitized notes "
                 "only to people who do not.")
    return text


def audit_corpus(originals: Sequence[Document], versions: Mapping[str, Sequence[Document | SanitizedDocument]], *,
                 scheme: str = "canonical", lang: str = "es", methods: Sequence[str] = DEFAULT_METHODS,
                 progress: bool = False, method_params: Mapping[str, Mapping[str, Any]] | None = None
                 ) -> dict[str, Any]:
    """Residual PHI and the similarity-search attack for each sanitized version of ``originals``.

    ``versions`` maps a name (an operator, a tool) to the sanitized documents (paired with the originals by id;
    missing ones are counted; a note whose ``aggregated_from`` metadata names several originals is a query whose
    own originals are those, and its text is searched for the PHI of each). ``method_params`` gives keyword
    arguments per re-identification method.
    """
    if not originals:
        raise ConfigError("no original documents to audit")
    method_params = method_params or {}
    vectors = None
    rows: list[dict[str, Any]] = []
    ids = {o.id for o in originals}
    for name, sanitized in versions.items():
        t0 = time.perf_counter()
        by_id = {d.id: d for d in sanitized}
        queries: list[Document | SanitizedDocument] = [by_id[o.id] for o in originals if o.id in by_id]
        # a note aggregated from several originals (corpus technique ``aggregate``): a query of its own, searched for
        # the PHI of each of its members
        joined = [d for d in sanitized if d.id not in ids and _members(d) and all(m in ids for m in _members(d))]
        texts: Sequence[Document | SanitizedDocument] | dict[str, str] = sanitized
        if joined:
            queries += joined
            texts = {d.id: d.text for d in sanitized if d.id in ids}
            texts.update({m: d.text for d in joined for m in _members(d)})
        residual = residual_phi(originals, texts, scheme=scheme, lang=lang)
        row: dict[str, Any] = {"name": name, "documents": residual.documents, "residual": residual.to_dict(),
                               "reid": {}}
        if joined:
            row["aggregated_queries"] = len(joined)
        for method in methods:
            params = dict(method_params.get(method, {}))
            if method == "embedding":
                if vectors is None:
                    vectors = encode_notes(originals, progress=progress, what="originals")
                params["original_vectors"] = vectors
            res = reidentify(originals, queries, method=method, progress=progress, lang=lang, **params)
            params.pop("original_vectors", None)
            row["reid"][method] = res.to_dict()
        row["seconds"] = round(time.perf_counter() - t0, 2)
        rows.append(row)
    return {"documents": len(originals), "scheme": scheme, "lang": lang, "methods": list(methods), "rows": rows,
            "summary": summary_sentence(rows)}
