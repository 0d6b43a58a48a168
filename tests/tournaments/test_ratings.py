"""Elo updates, pairwise results and the maximum-likelihood standings (no database)."""

import math
import random

import pytest

from tournaments.rating.model.results import RatingError
from tournaments.rating.model.tournament_fit import (
    K_FACTOR,
    START_ELO,
    Placing,
    elo_update,
    expected_score,
    fit_elo,
    head_to_head,
    pairwise,
    replay_ratings,
    standings,
)


def test_a_win_between_equals_moves_half_the_k_factor() -> None:
    after = elo_update({}, Placing(("a", "b"), (1, 2)))
    assert after == {"a": START_ELO + K_FACTOR / 2, "b": START_ELO - K_FACTOR / 2}


def test_a_draw_moves_the_lower_rated_player_up() -> None:
    after = elo_update({"a": 1600.0, "b": 1400.0}, Placing(("a", "b"), (1, 1)))
    gain = K_FACTOR * (0.5 - expected_score(1400.0, 1600.0))
    assert after["b"] == pytest.approx(1400.0 + gain)
    assert after["a"] == pytest.approx(1600.0 - gain)


def test_a_table_becomes_every_pair_with_ties_as_halves() -> None:
    assert pairwise(("a", "b", "c"), (1, 2, 1)) == [
        ("a", "b", 1.0),
        ("a", "c", 0.5),
        ("b", "c", 0.0),
    ]


def test_two_seats_of_one_participant_are_not_a_pair() -> None:
    assert pairwise(("a", "a", "b"), (1, 2, 3)) == [("a", "b", 1.0), ("a", "b", 1.0)]


def test_a_table_update_is_zero_sum_and_shares_k_among_opponents() -> None:
    after = elo_update({}, Placing(("a", "b", "c", "d"), (1, 2, 3, 4)))
    assert sum(after.values()) == pytest.approx(4 * START_ELO)
    # The winner beats three equals: each pair is worth K/3 * 0.5.
    assert after["a"] == pytest.approx(START_ELO + K_FACTOR / 2)
    assert after["b"] == pytest.approx(START_ELO + K_FACTOR / 6)


def test_it_refuses_a_result_whose_places_do_not_match_the_seats() -> None:
    with pytest.raises(RatingError, match="one place per seat"):
        elo_update({}, Placing(("a", "b"), (1,)))


def test_replaying_the_history_gives_the_same_numbers_as_incremental_updates() -> None:
    rng = random.Random(5)
    history = []
    for _ in range(300):
        seats = tuple(rng.sample("abcdef", rng.choice((2, 4))))
        history.append(Placing(seats, tuple(rng.randint(1, len(seats)) for _ in seats)))
    ratings: dict[str, float] = {}
    for placing in history:
        ratings.update(elo_update(ratings, placing))
    assert replay_ratings(history) == ratings


def test_the_fit_turns_three_wins_in_four_into_a_191_point_gap() -> None:
    outcomes = [("a", "b", 1.0)] * 30 + [("a", "b", 0.0)] * 10
    fit = fit_elo(outcomes)
    gap = fit["a"][0] - fit["b"][0]
    assert gap == pytest.approx(400 * math.log10(3), abs=1.0)
    assert (fit["a"][0] + fit["b"][0]) / 2 == pytest.approx(START_ELO)


def test_the_fit_interval_shrinks_with_more_games_and_covers_the_truth() -> None:
    truth = {"a": 200.0, "b": 0.0, "c": -200.0}
    rng = random.Random(11)

    def sample(count: int) -> list[tuple[str, str, float]]:
        games = []
        for _ in range(count):
            x, y = rng.sample(sorted(truth), 2)
            games.append((x, y, float(rng.random() < expected_score(truth[x], truth[y]))))
        return games

    small, large = fit_elo(sample(60)), fit_elo(sample(2400))
    assert large["a"][1] < small["a"][1] / 4
    for name, rating in truth.items():
        estimate, half = large[name]
        assert abs(estimate - START_ELO - rating) < half


def test_an_unbeaten_record_stays_finite() -> None:
    fit = fit_elo([("a", "b", 1.0)] * 20)
    assert math.isfinite(fit["a"][0]) and fit["a"][0] > fit["b"][0] + 400


def test_standings_share_places_on_equal_points_and_list_everyone() -> None:
    matches = [
        Placing(("a", "b"), (1, 2)),
        Placing(("b", "c"), (1, 2)),
        Placing(("c", "a"), (1, 2)),
    ]
    table = standings(matches, participants=["a", "b", "c", "idle"])
    assert [(row.points, row.place) for row in table][:3] == [(1.0, 1)] * 3
    idle = table[-1]
    assert (idle.participant, idle.points, idle.place, idle.matches) == ("idle", 0.0, 4, 0)
    assert all(row.elo_low < row.elo < row.elo_high for row in table)


def test_head_to_head_counts_points_both_ways() -> None:
    matches = [Placing(("a", "b"), (1, 2)), Placing(("b", "a"), (1, 1))]
    table = head_to_head(matches)
    assert (table["a"]["b"].points, table["a"]["b"].pairs) == (1.5, 2)
    assert (table["b"]["a"].points, table["b"]["a"].pairs) == (0.5, 2)
