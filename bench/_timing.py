"""Timing helpers shared by the benchmarks."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def rate(work: Callable[[], int], seconds: float) -> float:
    """Units of ``work`` per second, repeating it for about ``seconds``.

    ``work`` returns how many units one call did, so a call may do a batch.
    """
    done, start = 0, time.perf_counter()
    while True:
        done += work()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def quantiles(waits: list[float]) -> str:
    """Waits as their median and 95th percentile, the figures the fairness benches print."""
    if not waits:
        return "no sample"
    ordered = sorted(waits)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered):6.2f} s  p95 {p95:6.2f} s  (n={len(ordered)})"
