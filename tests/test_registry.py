"""The detector registry: typed parameters validated once from the configuration, user factories that take the
whole configuration, and the spaCy factory's explicit choice between a model directory and a package."""

from __future__ import annotations

from pathlib import Path

import pytest

from clinanon.config import Config
from clinanon.document import Document, Span
from clinanon.errors import ConfigError
from clinanon.registry import (
    CrfParams,
    DefaultParams,
    EnsembleParams,
    GoldDetector,
    RulesParams,
    SpacyParams,
    TypedDetectorFactory,
    get_detector_factory,
    list_detectors,
    register_detector,
)


def test_builtins_are_typed_factories() -> None:
    assert {"default", "rules", "crf", "spacy", "ensemble", "gold"} <= set(list_detectors())
    expected = {"rules": RulesParams, "crf": CrfParams, "spacy": SpacyParams, "ensemble": EnsembleParams,
                "default": DefaultParams}
    for name, params in expected.items():
        factory = get_detector_factory(name)
        assert isinstance(factory, TypedDetectorFactory) and factory.params is params


def test_rules_params_come_from_the_config_once(tmp_path: Path) -> None:
    (tmp_path / "deny.txt").write_text("# names\nWhitaker\n", encoding="utf-8")
    (tmp_path / "c.toml").write_text(
        'language = "en"\n[detectors]\nuse = ["rules"]\ngazetteers = { surname = "s.txt" }\n'
        '[allow]\nwords = ["Foley"]\n[deny]\nfiles = ["deny.txt"]\n', encoding="utf-8")
    cfg = Config.load(tmp_path / "c.toml")
    params = RulesParams.from_config(cfg)
    assert params.language == "en" and params.user_lists == {"surname": tmp_path.resolve() / "s.txt"}
    assert params.allow == ("Foley",) and params.deny == ("Whitaker",)
    assert "Whitaker" not in repr(params) and "Foley" not in repr(params)  # sizes only
    det = get_detector_factory("rules")(cfg)
    assert det.lang == "en" and det.deny == ("Whitaker",) and det.allow == ("Foley",)


def test_invalid_params_are_config_errors_naming_detector_and_parameter() -> None:
    with pytest.raises(ConfigError, match=r"detector 'rules': parameter 'colour': Extra inputs"):
        RulesParams(language="es", colour="red")
    with pytest.raises(ConfigError, match="detector 'crf': parameter 'model'"):
        CrfParams()
    with pytest.raises(ConfigError, match=r"needs a trained model: set detectors\.models\.crf"):
        CrfParams.from_config(Config())


def test_a_user_factory_taking_the_config_still_works() -> None:
    class Everything:
        def __init__(self, label: str) -> None:
            self.label = label

        def detect(self, doc: Document) -> list[Span]:
            return [Span(0, len(doc.text), self.label)]

    seen: list[Config] = []

    @register_detector("test-registry-everything")
    def make(config: Config) -> Everything:
        seen.append(config)
        return Everything("NAME" if config.language == "en" else "DATE")

    from clinanon.pipeline import Pipeline

    cfg = Config.from_dict({"language": "en", "detectors": {"use": ["test-registry-everything"],
                                                            "propagate_names": False}})
    assert get_detector_factory("test-registry-everything") is make
    [det] = Pipeline(cfg).detectors
    assert isinstance(det, Everything) and det.label == "NAME" and seen == [cfg]


def test_a_user_factory_with_typed_params() -> None:
    from typing import ClassVar, Self

    class MinParams(RulesParams):
        detector: ClassVar[str] = "test-registry-typed"

        @classmethod
        def from_config(cls, config: Config) -> Self:
            return cls(language=config.language)

    built: list[MinParams] = []

    def make(params: MinParams) -> GoldDetector:
        built.append(params)
        return GoldDetector()

    assert register_detector("test-registry-typed", params=MinParams)(make) is make
    det = get_detector_factory("test-registry-typed")(Config.from_dict({"language": "de"}))
    assert isinstance(det, GoldDetector) and built == [MinParams(language="de")]


def test_ensemble_params_build_members_with_their_factories(tmp_path: Path) -> None:
    cfg = Config.from_dict({"detectors": {"use": ["ensemble"], "ensemble": {
        "members": ["gold", "rules"], "strategies": {"DATE": "gold"}, "tiebreak": "rules",
        "strategies_file": "table.json"}}})
    params = EnsembleParams.from_config(cfg)
    assert list(params.members) == ["gold", "rules"] and isinstance(params.members["gold"], GoldDetector)
    assert params.strategies == {"DATE": "gold"} and params.tiebreak == "rules"
    assert params.strategies_file == Path("table.json")  # no config folder: as given
    loaded = cfg.model_copy(update={"base_dir": tmp_path})
    assert EnsembleParams.from_config(loaded).strategies_file == tmp_path / "table.json"


def test_default_params_share_the_rules_lists_across_languages() -> None:
    cfg = Config.from_dict({"language": "en", "label_scheme": "canonical", "deny": {"words": ["Zork"]}})
    params = DefaultParams.from_config(cfg)
    assert params.label_scheme == "canonical" and params.rules.deny == ("Zork",)
    det = get_detector_factory("default")(cfg)
    assert det.lang == "en" and det.detector_for("nl").deny == ("Zork",)
    assert det.detector_for("nl").lang == "nl"


# --- the spaCy factory: model directory or installed package, explicitly --------------------------------------
def _spacy_config(tmp_path: Path | None, model: str) -> Config:
    cfg = Config.from_dict({"detectors": {"use": ["spacy"], "models": {"spacy": model}}})
    return cfg if tmp_path is None else cfg.model_copy(update={"base_dir": tmp_path})


def test_spacy_an_existing_directory_is_a_model_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "models" / "ner").mkdir(parents=True)
    (tmp_path / "plain").mkdir()
    p = SpacyParams.from_config(_spacy_config(tmp_path, "models/ner"))
    assert (p.model_dir, p.package, p.target) == (tmp_path / "models" / "ner", None, tmp_path / "models" / "ner")
    # a bare name is a directory too when that folder exists next to the configuration
    assert SpacyParams.from_config(_spacy_config(tmp_path, "plain")).model_dir == tmp_path / "plain"
    # an absolute directory, and a relative one without a config folder (against the working directory)
    assert SpacyParams.from_config(_spacy_config(None, str(tmp_path / "plain"))).model_dir == tmp_path / "plain"
    monkeypatch.chdir(tmp_path)
    assert SpacyParams.from_config(_spacy_config(None, "plain")).model_dir == Path("plain")
    assert SpacyParams.from_config(_spacy_config(None, "plain")).canonical is True


def test_spacy_otherwise_an_installed_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import clinanon.registry as registry

    monkeypatch.setattr(registry, "_is_installed_package", lambda name: name == "es_core_news_sm")
    p = SpacyParams.from_config(_spacy_config(tmp_path, "es_core_news_sm"))
    assert (p.model_dir, p.package, p.target) == (None, "es_core_news_sm", "es_core_news_sm")
    with pytest.raises(ConfigError) as e:
        SpacyParams.from_config(_spacy_config(tmp_path, "models/missing"))
    message = str(e.value)
    assert "detectors.models.spacy" in message and str(tmp_path / "models" / "missing") in message
    assert "installed spaCy package" in message


def test_spacy_package_check_uses_installed_distributions() -> None:
    from clinanon.registry import _is_installed_package

    assert _is_installed_package("spacy") and not _is_installed_package("no-such-spacy-model-xyz")
    assert not _is_installed_package("")


def test_spacy_params_need_exactly_one_target(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="exactly one of 'model_dir' and 'package'"):
        SpacyParams()
    with pytest.raises(ConfigError, match="exactly one"):
        SpacyParams(model_dir=tmp_path, package="x")
    with pytest.raises(ConfigError, match=r"detectors\.models\.spacy"):
        SpacyParams.from_config(Config())
