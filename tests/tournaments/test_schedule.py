"""Round robins for 3 to 12 participants: every pair as even as the numbers allow."""

import itertools
import math
from collections import Counter

import pytest

from tournaments.competitions.schedule import ScheduleError, schedule


def pair_counts(tables: list[tuple[int, ...]], n: int) -> list[int]:
    met = Counter(tuple(sorted(p)) for t in tables for p in itertools.combinations(t, 2))
    return [met[pair] for pair in itertools.combinations(range(n), 2)]


def level_prefix_spread(tables: list[tuple[int, ...]], n: int) -> int:
    """The largest gap in matches played between two participants at any moment."""
    played, worst = [0] * n, 0
    for table in tables:
        for p in table:
            played[p] += 1
        worst = max(worst, max(played) - min(played))
    return worst


@pytest.mark.parametrize("n", range(3, 13))
@pytest.mark.parametrize("rounds", [1, 2])
def test_every_pair_meets_equally_often_in_a_two_player_round_robin(n: int, rounds: int) -> None:
    tables = schedule(n, 2, rounds)
    assert len(tables) == rounds * math.comb(n, 2)
    assert set(pair_counts(tables, n)) == {rounds}
    assert level_prefix_spread(tables, n) <= 2
    first_seats = Counter(t[0] for t in tables)
    assert max(first_seats.values()) - min(first_seats.values()) <= 2


@pytest.mark.parametrize("n", range(3, 13))
@pytest.mark.parametrize("size", [3, 4, 6])
def test_larger_tables_seat_everyone_equally_and_pairs_as_evenly_as_possible(
    n: int, size: int
) -> None:
    if n < size:
        with pytest.raises(ScheduleError, match="cannot fill a table"):
            schedule(n, size)
        return
    tables = schedule(n, size, seed=3)
    assert all(len(set(t)) == size for t in tables)
    appearances = Counter(p for t in tables for p in t)
    assert len(set(appearances.values())) == 1 and len(appearances) == n
    counts = pair_counts(tables, n)
    assert min(counts) >= 1
    if math.comb(n, size) <= 70:  # every combination: perfectly even
        assert len(set(counts)) == 1
    else:
        assert max(counts) - min(counts) <= 2
    assert level_prefix_spread(tables, n) <= 3


def test_seats_rotate_so_everyone_sits_in_each_seat_of_the_big_two_table() -> None:
    tables = schedule(8, 4)
    for p in range(8):
        seats = Counter(t.index(p) for t in tables if p in t)
        assert set(seats) == {0, 1, 2, 3}
        assert max(seats.values()) - min(seats.values()) <= 2


def test_it_is_the_same_schedule_for_the_same_seed() -> None:
    assert schedule(11, 4, seed=9) == schedule(11, 4, seed=9)


def test_it_refuses_a_one_seat_table() -> None:
    with pytest.raises(ScheduleError, match="at least 2 seats"):
        schedule(5, 1)
