from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from clinanon.config import DEFAULT_CONFIG_TOML, Config
from clinanon.errors import ConfigError
from clinanon.taxonomy import get_scheme


def test_default_template_parses_to_defaults() -> None:
    cfg = Config.from_dict(tomllib.loads(DEFAULT_CONFIG_TOML))
    assert cfg.model_dump() == Config().model_dump()


def test_load_file_with_operators_lists_and_user_scheme(tmp_path: Path) -> None:
    words = tmp_path / "allow.txt"
    words.write_text("# comment\nFoley\n\nApgar\n", encoding="utf-8")
    path = tmp_path / "c.toml"
    path.write_text(
        """
language = "nl"
label_scheme = "my-scheme"
[operators."*"]
operator = "redact"
text = "XXX"
[operators."NAME.PATIENT"]
operator = "tag"
template = "<PERSON>"
[allow]
files = ["allow.txt"]
[[schemes]]
name = "my-scheme"
labels = { PAT = "NAME.PATIENT", DOB = "DATE" }
""",
        encoding="utf-8",
    )
    cfg = Config.load(path)
    assert cfg.language == "nl"
    assert cfg.operators["NAME.PATIENT"].params == {"template": "<PERSON>"}
    assert cfg.allow.load(cfg.base_dir) == ["Foley", "Apgar"]
    assert get_scheme("my-scheme").category("DOB") == "DATE"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('language = "fr"', "language"),
        ("[operators.NOMBRE]\noperator = 'tag'", "operators"),
        ("[detectors]\nmin_score = 2", "detectors.min_score"),
        ("unknown_key = 1", "unknown_key"),
        ('label_scheme = "nope"', "label_scheme"),
        ("language = ", "invalid TOML"),
    ],
)
def test_invalid_config_names_file_and_key(tmp_path: Path, body: str, expected: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(body + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        Config.load(path)
    assert str(path) in str(e.value) and expected in str(e.value)
