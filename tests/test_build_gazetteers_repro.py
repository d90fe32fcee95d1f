"""scripts/build_gazetteers.py reproduces the shipped gazetteers: source versions pinned in the build-data extra,
--check / --out / --lang, and the hand-written files equal to the script's data."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "build_gazetteers.py"
SHIPPED = ROOT / "src" / "clinanon" / "data" / "gazetteers"


@pytest.fixture(scope="module")
def build():
    spec = importlib.util.spec_from_file_location("build_gazetteers_repro", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_source_is_pinned_in_the_build_data_extra(build) -> None:
    pins = build.pinned_versions()
    assert set(build.SOURCE_PACKAGES) <= set(pins), "a source package of the gazetteers lacks an == pin"
    # the pins found to reproduce the shipped files (see the script's docstring); change them only with a rebuild
    assert pins["babel"] == "2.18.0"
    assert pins["english-words"] == "2.0.2"
    assert build.version_problems(pins, dict(pins)) == []


def test_version_problems_name_each_mismatch(build) -> None:
    pins = {p: "1.0" for p in build.SOURCE_PACKAGES}
    installed = dict(pins, babel="2.19.0", **{"english-words": None})
    problems = build.version_problems(pins, installed)
    assert problems == ["babel: 2.19.0 (pinned: 1.0)", "english-words: not installed (pinned: 1.0)"]
    del pins["faker"]
    assert any(p.startswith("faker: no 'faker==<version>' pin") for p in build.version_problems(pins, installed))


def test_refuses_other_versions_without_writing(build, monkeypatch, tmp_path, capsys) -> None:
    pins = build.pinned_versions()
    monkeypatch.setattr(build, "installed_versions", lambda: dict(pins, babel="0.0.1"))
    out = tmp_path / "gz"
    assert build.main(["--out", str(out), "--lang", "sv"]) == 2
    err = capsys.readouterr().err
    assert "build-data" in err and "babel: 0.0.1 (pinned: " in err and "--any-versions" in err
    assert not out.exists()


def test_lang_option(build) -> None:
    assert build.parse_args(["--lang", "nl,sv", "--lang", "nl"]).langs == ["nl", "sv"]
    assert build.parse_args([]).langs == list(build.LANGS)
    with pytest.raises(SystemExit):
        build.parse_args(["--lang", "fr"])


def test_diff_files_counts_lines_added_and_removed(build, tmp_path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for d, text in ((old, "Belem\tBR\nLima\tPE\n"), (new, "Belém\tBR\nLima\tPE\nQuito\tEC\n")):
        (d / "xx").mkdir(parents=True)
        (d / "xx" / "cities.txt").write_text(text, encoding="utf-8")
        (d / "xx" / "same.txt").write_text("a\n", encoding="utf-8")
    (new / "xx" / "new_file.txt").write_text("b\n", encoding="utf-8")
    assert build.diff_files(old, new, ["xx"]) == {
        "xx/cities.txt": (["Belém\tBR", "Quito\tEC"], ["Belem\tBR"]),
        "xx/new_file.txt": (["b"], []),
    }


@pytest.mark.parametrize("lang", ["es", "en", "nl", "sv", "de"])
def test_hand_written_files_equal_the_scripts_data(build, tmp_path, lang) -> None:
    """hospitals.txt / hospital_words.txt come only from the script's tables (no Faker, no Babel): a hand edit of
    the shipped file, or a table edit without a rebuild, fails here."""
    for name, rows, whole in (("hospitals.txt", build.HOSPITALS.get(lang, ()), False),
                              ("hospital_words.txt", build.HOSPITAL_WORDS.get(lang, ()), True)):
        build.write(tmp_path / name, rows, whole_row=whole)
        assert (tmp_path / name).read_bytes() == (SHIPPED / lang / name).read_bytes(), f"{lang}/{name}"


@pytest.mark.slow
def test_check_reproduces_every_shipped_file(build) -> None:
    """The whole build (all languages, ~50 s) with the pinned sources gives the shipped files byte for byte."""
    problems = build.version_problems(build.pinned_versions(), build.installed_versions())
    if problems:
        pytest.skip("needs the pinned sources of the build-data extra (pip install -e '.[build-data]' in an "
                    "environment of its own): " + "; ".join(problems))
    r = subprocess.run([sys.executable, str(SCRIPT), "--check", "--show", "5"], cwd=ROOT, capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "identical to" in r.stdout
