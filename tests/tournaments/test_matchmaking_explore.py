"""The ladder's exploration (matchmaking.explored): tables chosen on ratings drawn from each
player's interval, so that pairs whose order is uncertain meet in proportion to that
uncertainty while settled players stay near their rating."""

from __future__ import annotations

import random
import statistics
from collections import Counter

from tournaments.competitions import matchmaking

Player = matchmaking.Player[str]


def test_a_drawn_rating_is_normal_around_the_rating_with_its_sigma_widened() -> None:
    rng = random.Random(1)
    players = [Player("wide", 1500, 200), Player("narrow", 1600, 10)]
    draws = [matchmaking.explored(players, rng) for _ in range(4000)]
    wide = [d[0].mu for d in draws]
    narrow = [d[1].mu for d in draws]
    spread = matchmaking.EXPLORE_SPREAD
    assert spread >= 1.0
    assert abs(statistics.fmean(wide) - 1500) < 4 * spread * 200 / 4000**0.5
    assert 0.9 * spread * 200 < statistics.pstdev(wide) < 1.1 * spread * 200
    assert 0.9 * spread * 10 < statistics.pstdev(narrow) < 1.1 * spread * 10
    assert all(d[0].key == "wide" and d[0].sigma == 200 for d in draws)


def test_a_large_two_seat_field_draws_wider_than_a_small_one() -> None:
    """The more players at two seats, the wider the draw (``explore_spread``): a field of
    LARGE_FIELD draws each rating EXPLORE_SPREAD_LARGE sigmas wide, a field of
    SMALL_FIELD EXPLORE_SPREAD, and one between them between, rising with the players.
    Tables of four and six keep EXPLORE_SPREAD however many play."""
    rng = random.Random(4)
    large = [Player(f"p{i}", 1500 + 10 * i, 100) for i in range(matchmaking.LARGE_FIELD)]

    def spread_drawn(size: int) -> float:
        """The drawn ratings' spread around the given ones, over 100 draws, in sigmas."""
        draws = (matchmaking.explored(large, rng, size) for _ in range(100))
        errors = [d.mu - p.mu for drawn in draws for d, p in zip(drawn, large, strict=True)]
        return statistics.pstdev(errors) / 100

    assert matchmaking.EXPLORE_SPREAD_LARGE > matchmaking.EXPLORE_SPREAD
    assert abs(spread_drawn(2) / matchmaking.EXPLORE_SPREAD_LARGE - 1.0) < 0.05
    assert abs(spread_drawn(4) / matchmaking.EXPLORE_SPREAD - 1.0) < 0.05
    assert matchmaking.explore_spread(10_000, 6) == matchmaking.EXPLORE_SPREAD
    sizes = range(2, matchmaking.LARGE_FIELD + 30)
    spreads = [matchmaking.explore_spread(n) for n in sizes]
    assert spreads == sorted(spreads)
    assert matchmaking.explore_spread(matchmaking.SMALL_FIELD) == matchmaking.EXPLORE_SPREAD
    assert matchmaking.explore_spread(10_000) == matchmaking.EXPLORE_SPREAD_LARGE
    middle = (matchmaking.SMALL_FIELD + matchmaking.LARGE_FIELD) // 2
    assert matchmaking.explore_spread(middle) > matchmaking.EXPLORE_SPREAD
    assert matchmaking.explore_spread(middle) < matchmaking.EXPLORE_SPREAD_LARGE


def test_the_picks_hold_the_players_given_not_their_draws() -> None:
    players = [Player(f"p{i}", 1400 + 30 * i, 80, games=i) for i in range(6)]
    picks = matchmaking.choose(players, 2, tables=3, explore=random.Random(2))
    assert len(picks) == 3
    for pick in picks:
        assert all(any(seat is p for p in players) for seat in pick.seats)


def test_uncertain_orders_are_explored_and_settled_neighbours_still_meet_most() -> None:
    """Two settled neighbours and two uncertain players: on the point ratings one table
    is always the same; drawn, the uncertain players meet various opponents, while the
    most played table stays a near one."""
    players = [
        Player("a", 1500, 40, 50),
        Player("b", 1520, 40, 50),
        Player("c", 1700, 160, 5),
        Player("d", 1350, 160, 5),
    ]
    fixed = {tuple(sorted(p.key for p in matchmaking.choose(players, 2, 1)[0].seats))}
    rng = random.Random(3)
    seen: Counter[tuple[str, ...]] = Counter()
    for _ in range(300):
        (pick,) = matchmaking.choose(players, 2, 1, explore=rng)
        seen[tuple(sorted(p.key for p in pick.seats))] += 1
    assert len(fixed) == 1
    assert len(seen) >= 3
    assert any("c" in pair or "d" in pair for pair in seen)
    assert seen.most_common(1)[0][1] < 300
