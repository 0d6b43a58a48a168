"""Timing helpers shared by the benchmarks."""

from __future__ import annotations

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
