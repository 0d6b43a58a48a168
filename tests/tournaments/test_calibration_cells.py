"""The calibration bench's closed and open cells of 50 bots (bench.ratings.calibration_ladder)."""

from __future__ import annotations

import random
from collections import Counter

from bench.ratings import calibration_ladder as bench


def test_every_closed_and_open_cell_has_a_50_bot_twin() -> None:
    """Closed and open fields are checked at 8 (open: 12) and at 50 bots, at 2, 4 and 6
    seats, as the ladder is."""
    cells = {(s.schedule, s.seats, s.bots) for s in bench.SETTINGS}
    for kind, small in (("closed", 8), ("open", bench.OPEN_POPULATION)):
        for seats in (2, 4, 6):
            assert {(kind, seats, small), (kind, seats, 50)} <= cells


def test_a_50_bot_closed_site_plays_the_one_design_with_its_bots_shuffled() -> None:
    """Each site seats the cell's one balanced set (built once: it takes seconds) with
    its bots placed at random, so every bot still plays as often as every other."""
    bots = list(range(50))
    design = bench.balanced_set(50, 4)
    first = bench.closed_round(bots, 4, random.Random(1))
    second = bench.closed_round(bots, 4, random.Random(2))
    assert len(first) == len(second) == len(design)
    assert first != second
    for played in (first, second):
        plays = Counter(b for table in played for b in table)
        assert set(plays) == set(bots)
        assert len(set(plays.values())) == 1
        assert all(len(set(table)) == 4 for table in played)
