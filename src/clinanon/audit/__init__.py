"""Privacy audit: after sanitizing, can anyone be found again?

* :mod:`~clinanon.audit.residual` — residual PHI: gold mentions still readable (exact, folded, partial), TAB
  entity-level recall for direct and quasi identifiers, token-level recall;
* :mod:`~clinanon.audit.reid` — re-identification by similarity search (Jaccard, BM25, MinHash-LSH, sentence
  embeddings): found@1, found@5, MRR, a/o-sim, avg-sim;
* :mod:`~clinanon.audit.linkage` — linkage on quasi-identifiers (k of the attributes that survive in the text);
* :mod:`~clinanon.audit.model` — the PHI-like strings a trained model holds (CRF features, word clusters, spaCy
  string store, tokenizer vocabularies);
* :mod:`~clinanon.audit.probe` — the fill-mask probe of a masked language model (needs torch + transformers);
* :mod:`~clinanon.audit.corpus` and :mod:`~clinanon.audit.report` — one audit over several sanitized versions,
  written as JSON and a self-contained HTML page.

Heavy dependencies (datasketch, the sentence encoder, matplotlib, torch) are imported only by the functions that
need them. Nothing here logs, prints or puts in a repr the text of a note or a span.
"""

from __future__ import annotations

from typing import Any

__all__ = ["audit_corpus", "audit_model", "fill_mask_probe", "link_quasi_identifiers", "reidentify", "render_html",
           "residual_phi", "sanitize", "write_report"]

_WHERE = {
    "audit_corpus": "clinanon.audit.corpus",
    "sanitize": "clinanon.audit.corpus",
    "audit_model": "clinanon.audit.model",
    "fill_mask_probe": "clinanon.audit.probe",
    "link_quasi_identifiers": "clinanon.audit.linkage",
    "reidentify": "clinanon.audit.reid",
    "render_html": "clinanon.audit.report",
    "write_report": "clinanon.audit.report",
    "residual_phi": "clinanon.audit.residual",
}


def __getattr__(name: str) -> Any:
    mod = _WHERE.get(name)
    if mod is None:
        raise AttributeError(f"module 'clinanon.audit' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(mod), name)
