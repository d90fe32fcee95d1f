"""spaCy entry points (pyproject.toml): spaCy finds clinanon's registered functions without importing clinanon."""

from __future__ import annotations

import importlib
import subprocess
import sys
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import pytest

spacy = pytest.importorskip("spacy")

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
GROUPS = ("tokenizers", "scorers", "loggers", "callbacks", "factories")


def declared() -> dict[str, dict[str, str]]:
    eps = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"].get("entry-points", {})
    return {g: dict(eps.get(f"spacy_{g}", {})) for g in GROUPS}


def test_every_clinanon_registry_entry_has_an_entry_point_to_itself() -> None:
    import clinanon.detect.spacy_ner  # noqa: F401  (registers clinanon's functions)

    eps = declared()
    for group in GROUPS:
        reg = getattr(spacy.registry, "_entry_point_factories" if group == "factories" else group)
        ours = sorted(n for n in reg.get_all() if n.startswith("clinanon"))
        assert sorted(eps[group]) == ours, group
        for name, target in eps[group].items():
            module, _, attr = target.partition(":")
            assert reg.get(name) is getattr(importlib.import_module(module), attr), name
    assert {g: sorted(v) for g, v in eps.items()} == {
        "tokenizers": ["clinanon.Tokenizer.v1"], "scorers": ["clinanon.ner_scorer.v1"],
        "loggers": ["clinanon.TrainLogger.v1"], "callbacks": ["clinanon.TrackEpochs.v1"], "factories": []}


def test_spacy_load_without_importing_clinanon(tmp_path: Path) -> None:
    """A pipeline saved with clinanon's tokenizer and NER scorer loads in a fresh interpreter that never imports
    clinanon itself (spaCy imports it through the entry points). Needs clinanon installed from this checkout."""
    installed = {ep.name for ep in entry_points(group="spacy_tokenizers")}
    if "clinanon.Tokenizer.v1" not in installed:
        pytest.skip("the installed clinanon has no spaCy entry points (reinstall: pip install -e .)")
    from clinanon.detect import spacy_ner

    nlp = spacy.blank("es", config={"nlp": {"tokenizer": {"@tokenizers": spacy_ner.TOKENIZER_NAME}}})
    ner = nlp.add_pipe("ner", config={"scorer": {"@scorers": spacy_ner.SCORER_NAME}})
    ner.add_label("NAME")
    nlp.initialize()
    nlp.to_disk(tmp_path / "model")
    code = ("import sys, spacy\n"
            "nlp = spacy.load(sys.argv[1])\n"
            "print(type(nlp.tokenizer).__module__, type(nlp.tokenizer).__name__, nlp.pipe_names)\n"
            "print([t.text for t in nlp('Dr. García, 3/4/2020.')])\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "model")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    first, second = done.stdout.splitlines()
    assert first == "clinanon.detect.spacy_ner.tokenizer ClinanonTokenizer ['ner']"
    assert second == str([t.text for t in nlp("Dr. García, 3/4/2020.")])
