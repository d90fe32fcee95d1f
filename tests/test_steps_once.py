"""Each post-detection step runs once per note, and a note is tokenized once (issue 14's architecture).

The default Spanish pipeline (rules + the shipped CRF, combined per label) used to resolve a note three times,
propagate its names twice and repair it twice; these tests count the calls, so that a step run again somewhere
fails here."""

from __future__ import annotations

from collections import Counter

import pytest

import clinanon.steps.propagate as propagate_module
import clinanon.steps.repair as repair_module
import clinanon.text as text_module
from clinanon.config import Config
from clinanon.document import Document
from clinanon.models import default_model
from clinanon.pipeline import Pipeline
from clinanon.steps.resolve import Resolver

NOTES = [
    Document("n1", "Paciente: Juan García López, 45 años, natural de Soria. Juan refiere dolor desde el 12/03/2019. "
                   "Su madre, Carmen López, le acompaña. Ingresa en el Hospital General de Segovia.",
             meta={"lang": "es"}),
    Document("n2", "Remitido por la Dra. Isabel Martín (Centro de Salud Delicias, C/ Mayor 3, 28013 Madrid). "
                   "Tel. 912 345 678. NHC 1234567.", meta={"lang": "es"}),
    Document("n3", "Varón de 70 años sin antecedentes de interés.", meta={"lang": "es"}),
]


@pytest.fixture()
def calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts, per note text, the calls of Resolver.resolve, propagate, repair_spans and the tokenizer."""
    counts: Counter[str] = Counter()
    by_text = {d.text: d.id for d in NOTES}
    resolve, prop, repair, tokens = (Resolver.resolve, propagate_module.propagate, repair_module.repair_spans,
                                     text_module._token_arrays)

    def key(text: object) -> str:
        text = getattr(text, "text", text)
        return by_text.get(text, "other") if isinstance(text, str) else "other"

    def count_resolve(self: Resolver, doc: object, spans: object) -> object:
        counts[f"resolve:{key(doc)}"] += 1
        return resolve(self, doc, spans)  # type: ignore[arg-type]

    def count_propagate(doc: Document, *a: object, **kw: object) -> object:
        counts[f"propagate:{key(doc)}"] += 1
        return prop(doc, *a, **kw)  # type: ignore[arg-type]

    def count_repair(text: str, *a: object, **kw: object) -> object:
        counts[f"repair:{key(text)}"] += 1
        return repair(text, *a, **kw)  # type: ignore[arg-type]

    def count_tokens(text: str) -> object:
        counts[f"tokenize:{key(text)}"] += 1
        return tokens(text)

    monkeypatch.setattr(Resolver, "resolve", count_resolve)
    monkeypatch.setattr(propagate_module, "propagate", count_propagate)
    monkeypatch.setattr(repair_module, "repair_spans", count_repair)
    monkeypatch.setattr(text_module, "_token_arrays", count_tokens)
    return counts


@pytest.mark.parametrize("batch_size", [1, 3])
def test_default_spanish_pipeline_runs_each_step_once_per_note(calls: Counter[str], batch_size: int) -> None:
    if default_model("es") is None:
        pytest.skip("the Spanish model is not built (scripts/build_shipped_model.py)")
    nlp = Pipeline(Config.from_dict({"language": "es"}))
    assert nlp.plan("es").describe()["steps"][:3] == ["select", "propagate", "repair"]
    out = list(nlp.pipe(NOTES, deidentify=False, batch_size=batch_size))
    assert sum(len(d.spans) for d in out) >= 8  # the notes hold PHI: the steps had work to do
    for d in NOTES:
        assert calls[f"resolve:{d.id}"] == 1, d.id
        assert calls[f"propagate:{d.id}"] == 1, d.id
        assert calls[f"repair:{d.id}"] == 1, d.id
        assert calls[f"tokenize:{d.id}"] == 1, d.id  # rules, CRF features, propagation share the note's tokens


def test_rules_pipeline_resolves_and_propagates_once_and_never_repairs(calls: Counter[str]) -> None:
    nlp = Pipeline(Config.from_dict({"language": "es", "detectors": {"use": ["rules"]}}))
    assert nlp.plan("es").describe() == {"detectors": ["rules"], "steps": ["resolve", "propagate", "to_scheme"]}
    nlp.detect_spans_many(NOTES)
    for d in NOTES:
        assert (calls[f"resolve:{d.id}"], calls[f"propagate:{d.id}"], calls[f"repair:{d.id}"]) == (1, 1, 0)
        assert calls[f"tokenize:{d.id}"] == 1, d.id
