"""The garbage collector of a served process, tuned for short requests.

A web process holds about 130,000 objects made at start-up (modules, settings, URL
patterns, serializers). Python's collector walks all of them in every full collection,
which a request that makes a few thousand objects (a page of 100 matches) triggers now and
then: 30 to 70 ms more of CPU for that request, the whole of its p95 (bench/service/scale.py;
docs/deploy.md, sizing). Frozen after start-up they are never walked again, and a larger
first threshold lets a request finish before the collector runs; reference counting frees
everything that is not a cycle at once, as before.
"""

from __future__ import annotations

import gc

#: Allocations (less deallocations) before the youngest generation is collected (700 by
#: default), and the two older generations' thresholds (Python's defaults).
THRESHOLDS = (20_000, 10, 10)


def tune_for_requests() -> None:
    """Freeze what exists now (call it once everything is loaded) and raise the first
    threshold."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
