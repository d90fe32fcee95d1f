"""Adversarial inputs for the date / time rules: every pattern family must stay linear (no catastrophic
backtracking). Bounds are generous (5 s per input of 0.2-1 MB); timings at 1 MB are measured by
benchmarks/rules_partA_probe.py --adversarial."""

from __future__ import annotations

import random
import time

import pytest

from clinanon.detect.rules import dates

_RNG = random.Random(7)
_CAPS = ["Garcia", "Lopez", "Martinez", "Juan", "Maria", "Enero", "Mayo", "March", "Dr.", "Hospital"]

INPUTS = {
    "100k capitalised words": " ".join(_RNG.choice(_CAPS) for _ in range(100_000)),
    "1 MB line": ("a" * 60 + " ") * (1_000_000 // 61),
    "1 MB digit run": "1" * 1_000_000,
    "1/1/1 run": "1/" * 100_000,
    "1-1-1 run": "1-" * 100_000,
    "1.1.1 run": "1." * 100_000,
    "12:12:12 run": "12:" * 70_000,
    "glued dates": "12/03/2016" * 20_000,
    "month de month de": "enero de " * 20_000,
}


CASES = [("es", name) for name in INPUTS] + [("en", "100k capitalised words"), ("en", "1/1/1 run"),
                                              ("de", "1.1.1 run")]


@pytest.mark.parametrize(("lang", "name"), CASES)
def test_dates_linear_on_adversarial_input(lang: str, name: str) -> None:
    text = INPUTS[name]
    t0 = time.process_time()
    for r in dates.recognizers(lang):
        r.analyze(text)
    assert time.process_time() - t0 < 5.0
