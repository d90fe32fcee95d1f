"""Shared fixtures. Corpora live in ../shared/data next to the repository (see ../shared/data/README.md)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(
    __import__("os").environ.get("CLINANON_SHARED_DATA", REPO.parent / "shared" / "data")
)
MEDDOCAN = SHARED_DATA / "meddocan"


@pytest.fixture(autouse=True)
def _collector_as_before() -> Iterator[None]:
    """``clinanon.batch.run_batch`` freezes what the process holds after its first batch (for speed); the tests
    share one process, so each test gives the garbage collector back as it found it."""
    yield
    from clinanon import batch

    if batch._FROZEN:
        gc.unfreeze()
        batch._FROZEN = False


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


def exact_label_scores(meddocan_dir: Path, split: str, label: str, recognizers: list) -> tuple[float, float, int]:
    """Exact-match (precision, recall, gold count) of ``recognizers`` for one MEDDOCAN label on ``split``."""
    from clinanon import io as cio

    tp = n_pred = n_gold = 0
    for doc in cio.read(meddocan_dir / split / "brat", "brat"):
        gold = {(s.start, s.end) for s in doc.spans if s.label == label}
        pred = {(s.start, s.end) for r in recognizers for s in r.analyze(doc.text)}
        tp += len(pred & gold)
        n_pred += len(pred)
        n_gold += len(gold)
    return (tp / n_pred if n_pred else 0.0, tp / n_gold if n_gold else 0.0, n_gold)
