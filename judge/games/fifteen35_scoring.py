"""Until the service reads the narration from the game (issue 33): the scoring's old name."""

from judge.games.fifteen35.scoring import (
    TARGET_15,
    TARGET_35,
    best_total,
    is_natural,
    reachable_totals,
    standing,
    sweeps,
)

__all__ = [
    "TARGET_15",
    "TARGET_35",
    "best_total",
    "is_natural",
    "reachable_totals",
    "standing",
    "sweeps",
]
