"""Shared fixtures. Corpora live in ../shared/data next to the repository (see ../shared/data/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(
    __import__("os").environ.get("CLINANON_SHARED_DATA", REPO.parent / "shared" / "data")
)
MEDDOCAN = SHARED_DATA / "meddocan"


@pytest.fixture(scope="session")
def meddocan_dir() -> Path:
    if not (MEDDOCAN / "train" / "brat").is_dir():
        pytest.skip(f"MEDDOCAN not found at {MEDDOCAN} (set CLINANON_SHARED_DATA)")
    return MEDDOCAN


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA} (set CLINANON_SHARED_DATA)")
    return SHARED_DATA
