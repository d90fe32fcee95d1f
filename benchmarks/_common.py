"""Helpers the benchmark scripts share (run them as ``python benchmarks/<name>.py``)."""

from __future__ import annotations

import resource
from pathlib import Path


def rss_mb() -> float:
    """Peak RSS of this process in MB: VmHWM (per address space, so a child started by exec does not inherit
    its parent's peak as ``ru_maxrss`` does), else ``ru_maxrss``."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
