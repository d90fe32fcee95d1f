"""``long_note_chars`` / ``window_chars`` are configuration keys (issue 17): set in a configuration file, they decide
which notes are detected in windows (:mod:`clinanon.windows`), through the pipeline and the batch runner alike."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

import clinanon.pipeline as pipeline_module
from clinanon import windows
from clinanon.config import DEFAULT_CONFIG_TOML, Config
from clinanon.document import Document
from clinanon.errors import ConfigError
from clinanon.pipeline import Pipeline
from clinanon.runner import run_pipeline

PARAGRAPH = ("Paciente: Juan García López, de 45 años, natural de Madrid.\n"
             "Ingresa el 12/03/2019 en el Hospital Universitario La Paz; contacto juan.garcia@gmail.com.\n\n")
NOTE = PARAGRAPH * 40  # about 6 000 characters


@pytest.fixture
def windowed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of windows of each note the pipeline detected in windows."""
    calls: list[int] = []
    real = pipeline_module.detect_windowed

    def spy(plan, note, *, size=windows.WINDOW_CHARS, **kw):  # type: ignore[no-untyped-def]
        calls.append(len(windows.split_windows(note.source.text, size)))
        return real(plan, note, size=size, **kw)

    monkeypatch.setattr(pipeline_module, "detect_windowed", spy)
    return calls


def _config(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "clinanon.toml"
    path.write_text(f'language = "es"\n{extra}\n[detectors]\nuse = ["rules"]\n', encoding="utf-8")
    return path


def test_defaults_are_the_windows_module_s_and_in_the_default_toml() -> None:
    assert (Config().long_note_chars, Config().window_chars) == (windows.LONG_NOTE_CHARS, windows.WINDOW_CHARS)
    template = tomllib.loads(DEFAULT_CONFIG_TOML)
    assert (template["long_note_chars"], template["window_chars"]) == (windows.LONG_NOTE_CHARS, windows.WINDOW_CHARS)
    nlp = Pipeline(Config.from_dict({"language": "es", "detectors": {"use": ["rules"]}}))
    assert (nlp.long_note_chars, nlp.window_chars) == (windows.LONG_NOTE_CHARS, windows.WINDOW_CHARS)


def test_a_small_value_in_the_config_file_makes_a_note_run_in_windows(tmp_path: Path, windowed: list[int]) -> None:
    whole = Pipeline(Config.load(_config(tmp_path))).detect(Document("n", NOTE))
    assert windowed == []  # 6 000 characters: one piece by default
    small = Config.load(_config(tmp_path, "long_note_chars = 2000\nwindow_chars = 800"))
    nlp = Pipeline(small)
    assert (nlp.long_note_chars, nlp.window_chars) == (2000, 800)
    in_windows = nlp.detect(Document("n", NOTE))
    assert len(windowed) == 1 and windowed[0] >= 6  # about 6 000 / 800
    # the same spans as in one piece (every span is far nearer than the overlap)
    assert [s.key for s in in_windows.spans] == [s.key for s in whole.spans]
    assert sum(s.label.startswith("NAME") for s in in_windows.spans) == 40
    # a short note stays in one piece
    nlp.detect(Document("s", PARAGRAPH))
    assert len(windowed) == 1


def test_zero_means_every_note_in_one_piece(tmp_path: Path, windowed: list[int]) -> None:
    nlp = Pipeline(Config.load(_config(tmp_path, "long_note_chars = 0\nwindow_chars = 800")))
    assert nlp.long_note_chars is None
    nlp.detect(Document("n", NOTE * 2))
    assert windowed == []


def test_the_batch_runner_uses_the_configured_windows(tmp_path: Path, windowed: list[int]) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "a", "text": NOTE}) + "\n" + json.dumps({"id": "b", "text": PARAGRAPH}) + "\n",
                   encoding="utf-8")
    cfg = Config.load(_config(tmp_path, "long_note_chars = 3000\nwindow_chars = 1000"))
    result = run_pipeline(src, tmp_path / "out.jsonl", cfg)
    assert (result.processed, result.errors) == (2, 0)
    assert len(windowed) == 1 and windowed[0] >= 5  # the long note only
    out = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all("García" not in d["text"] and "gmail" not in d["text"] for d in out)


@pytest.mark.parametrize("extra", ["long_note_chars = -1", "window_chars = 10", 'window_chars = "big"'])
def test_bad_values_name_the_key(tmp_path: Path, extra: str) -> None:
    key = extra.split(" ")[0]
    with pytest.raises(ConfigError, match=key):
        Config.load(_config(tmp_path, extra))
