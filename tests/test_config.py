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
    assert cfg.scheme.category("DOB") == "DATE"
    cfg.register_schemes()  # explicit: validating a configuration registers nothing
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


_USER_SCHEME = """
label_scheme = "{name}"
[[schemes]]
name = "{name}"
labels = {{ PAT = "NAME.PATIENT", DOB = "DATE" }}
"""


def test_validating_a_user_scheme_registers_nothing(tmp_path: Path) -> None:
    from clinanon.taxonomy import list_schemes

    path = tmp_path / "c.toml"
    path.write_text(_USER_SCHEME.format(name="test-config-unregistered"), encoding="utf-8")
    cfg = Config.load(path)
    assert "test-config-unregistered" not in list_schemes()
    with pytest.raises(ConfigError, match="unknown label scheme"):
        get_scheme("test-config-unregistered")
    assert cfg.scheme.name == "test-config-unregistered" and cfg.scheme.category("PAT") == "NAME.PATIENT"
    assert [s.name for s in cfg.user_schemes()] == ["test-config-unregistered"]
    assert cfg.register_schemes() is cfg
    assert get_scheme("test-config-unregistered").category("DOB") == "DATE"


def test_a_bad_user_scheme_and_an_unknown_label_scheme_are_named() -> None:
    with pytest.raises(ConfigError, match=r"schemes\.mine: .*unknown canonical category 'NOPE'"):
        Config.from_dict({"schemes": [{"name": "mine", "labels": {"X": "NOPE"}}]})
    with pytest.raises(ConfigError, match=r"label_scheme: unknown label scheme 'nope'; known: canonical, .*, mine"):
        Config.from_dict({"label_scheme": "nope", "schemes": [{"name": "mine", "labels": {"X": "DATE"}}]})


def test_with_overrides_keeps_base_dir_and_validates(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('language = "nl"\n[detectors]\nmodels = { crf = "models/crf" }\n', encoding="utf-8")
    cfg = Config.load(path)
    assert cfg.with_overrides() is cfg and cfg.with_overrides({}) is cfg
    en = cfg.with_overrides(language="en", label_scheme="meddocan")
    assert (en.language, en.label_scheme, en.base_dir) == ("en", "meddocan", tmp_path.resolve())
    assert en.detectors == cfg.detectors and cfg.language == "nl"
    assert cfg.with_overrides({"language": "de"}, language="sv").language == "sv"  # keywords win
    with pytest.raises(ConfigError, match=r"^command line: invalid configuration: language"):
        cfg.with_overrides(language="fr", source="command line")
    same = Config.from_options(path, {"language": "en"})
    assert same == en.with_overrides(label_scheme="canonical") and same.base_dir == tmp_path.resolve()
    assert Config.from_options() == Config() and Config.from_options(None, {"language": "en"}).base_dir is None


def test_resolve_path_against_the_config_folder(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("", encoding="utf-8")
    cfg = Config.load(path)
    assert cfg.resolve_path("models/crf") == tmp_path.resolve() / "models" / "crf"
    assert cfg.resolve_path(Path("/abs/crf")) == Path("/abs/crf")
    assert Config().resolve_path("models/crf") == Path("models/crf")  # no folder: as given
