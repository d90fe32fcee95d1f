"""Leak regression suite: hand-written notes in the five languages (``tests/data/leaks/notes.json``; invented people,
places and numbers) go through the first command a newcomer types, ``clinanon deidentify notes/ --out deid/``: no
language, no config. Not one of the PHI strings listed with a note may be left in its output, and each note must be
read in its own language (the output's replacement log says which)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinanon.cli import app

DATA = Path(__file__).parent / "data" / "leaks" / "notes.json"
NOTES = json.loads(DATA.read_text(encoding="utf-8"))["notes"]


@pytest.fixture(scope="module")
def deidentified(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    src = tmp_path_factory.mktemp("notes")
    out = tmp_path_factory.mktemp("deid") / "out"
    for note in NOTES:
        (src / f"{note['id']}.txt").write_text(note["text"], encoding="utf-8")
    result = CliRunner().invoke(app, ["deidentify", str(src), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return {p.stem: p.read_text(encoding="utf-8") for p in out.glob("*.txt")}


def test_every_note_comes_out(deidentified: dict[str, str]) -> None:
    assert len(deidentified) == len(NOTES)


@pytest.mark.parametrize("note", NOTES, ids=[n["id"] for n in NOTES])
def test_no_listed_phi_is_left_in_the_output(note: dict, deidentified: dict[str, str]) -> None:
    # the output files are renamed (metadata policy): find this note's output by its untouched clinical words
    text = _output_of(note, deidentified)
    left = [phi for phi in note["phi"] if re.search(rf"(?<!\w){re.escape(phi)}(?!\w)", text)]
    assert not left, f"{note['id']}: {len(left)} of {len(note['phi'])} PHI strings left: {left}"


def _output_of(note: dict, outputs: dict[str, str]) -> str:
    """The output whose first line starts like the note's (the first words of every note here are not PHI)."""
    head = note["text"].split()[0]
    matches = [t for t in outputs.values() if t.split() and t.split()[0] == head]
    if len(matches) == 1:
        return matches[0]
    second = " ".join(note["text"].split()[:2])
    matches = [t for t in matches if t.startswith(second)] or matches
    assert len(matches) == 1, f"{note['id']}: cannot tell its output apart"
    return matches[0]
