"""The global rating (rating.model.global_rating): each bot fitted to its records, by hand.

With s = ln 10 / 400 and E = 1 / (1 + exp(-s (r - r_o))) the expected score against an
opponent rated r_o, a bot's rating after a match is the maximum of
-(r - 1500)^2 / (2 350^2) + sum over its records of [y log E + (n - y) log(1 - E)] / t
(n results against that opponent, y its score in them, t its tempering: the dispersion
it has shown so far, shrunk towards that of a placing by independent performances,
(n + 1) / 3 for n bots, while it has few units; exactly that before its first unit),
the match's bots fitted together; its variance is the inverse of the curvature there.
"""

from __future__ import annotations

import math
import random

import pytest

from tournaments.rating.model import global_rating
from tournaments.rating.model.global_rating import (
    START_DEVIATION,
    Record,
    Skill,
    rate_units,
    replay,
)
from tournaments.rating.model.tournament_fit import ELO_MAX, ELO_MIN, SCALE, START_ELO, Placing
from tournaments.rating.model.units import match_units

S = math.log(10.0) / SCALE
V0 = START_DEVIATION**2


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-S * x))


def bisect(f: object, low: float, high: float) -> float:
    """The root of an increasing function between ``low`` and ``high``."""
    for _ in range(200):
        middle = (low + high) / 2
        if f(middle) > 0:  # type: ignore[operator]
            high = middle
        else:
            low = middle
    return (low + high) / 2


def test_a_win_between_two_new_bots_is_the_hand_solved_fit() -> None:
    after = rate_units({}, [Placing(("a", "b"), (1, 2))])
    # By symmetry a = 1500 + d and b = 1500 - d, where the prior's pull d / V0 equals the
    # win's push s (1 - E(2d)) (tempering 1: two players, no draws yet).
    d = bisect(lambda x: x / V0 - S * (1.0 - sigmoid(2 * x)), 0.0, 400.0)
    assert after["a"].elo == pytest.approx(START_ELO + d, abs=0.01)
    assert after["b"].elo == pytest.approx(START_ELO - d, abs=0.01)
    assert 80 < d < 200  # a new bot's first result says a lot
    e = sigmoid(2 * d)
    assert after["a"].variance == pytest.approx(1.0 / (1.0 / V0 + S * S * e * (1 - e)), rel=1e-4)
    assert after["a"].units == after["b"].units == 1
    assert after["a"].records == {"b": Record(1.0, 1.0, pytest.approx(START_ELO - d, abs=0.01))}
    assert after["b"].records["a"][:2] == (1.0, 0.0)
    # The dispersion sums: the squared score at the new ratings, and its expected value
    # less the unit's leverage: its share of the bot's information and of the opponent's
    # (both fitted to it).
    h = S * S * e * (1 - e)
    assert after["a"].spread == pytest.approx((S * (1 - e)) ** 2, rel=1e-4)
    own, theirs = h * h * after["a"].variance, h * h * after["b"].variance
    assert after["a"].information == pytest.approx(h - own - theirs, rel=1e-4)


def test_a_draw_moves_the_favourite_down_and_the_underdog_up() -> None:
    # Both settled by many results against a third bot rated 1500.
    known = Skill(1600.0, 30.0**2, 1e-3, 1e-3, 100, 100, {"c": Record(200.0, 128.0, 1500.0)})
    other = Skill(1400.0, 30.0**2, 1e-3, 1e-3, 100, 100, {"c": Record(200.0, 72.0, 1500.0)})
    assert replay([[]]) == {}  # nothing to rate: nothing moves
    after = rate_units({"a": known, "b": other}, [Placing(("a", "b"), (1, 1))])
    assert after["a"].records["c"] == known.records["c"]  # c was not at the table
    assert -15 < after["a"].elo - fitted(known) < 0 < after["b"].elo - fitted(other) < 15
    assert after["a"].records["b"] == Record(1.0, 0.5, after["b"].elo)


def fitted(state: Skill) -> float:
    """The bot's rating fitted to its records alone (tempering 1)."""

    def slope(x: float) -> float:
        gradient = -(x - START_ELO) / V0
        for r in state.records.values():
            gradient += S * (r.score - r.results * sigmoid(x - r.seen))
        return -gradient

    return bisect(slope, 0.0, 3000.0)


def test_a_four_seat_placing_is_three_pairs_per_bot_in_one_unit() -> None:
    # Places 1, 2, 2, 4: a beat three, b and c beat d and drew each other (score 0),
    # d lost three times.
    after = rate_units({}, [Placing(("a", "b", "c", "d"), (1, 2, 2, 4))])
    assert global_rating.expected_dispersion(4) == pytest.approx(5 / 3)
    assert after["a"].elo - START_ELO == pytest.approx(START_ELO - after["d"].elo, abs=0.01)
    assert after["b"].elo == pytest.approx(after["c"].elo, abs=0.01)
    assert after["b"].elo == pytest.approx(START_ELO, abs=0.01)
    assert after["a"].elo > START_ELO + 50
    assert after["a"].records.keys() == {"b", "c", "d"}
    assert {s.units for s in after.values()} == {1}
    # Counted 3 / (5/3) results: less than three independent wins.
    three = rate_units({}, [Placing(("a", "x"), (1, 2))] * 3)["a"]
    assert after["a"].deviation > three.deviation


def test_a_duplicate_deal_is_one_unit_whatever_its_rotations() -> None:
    # One deal played twice with the seats swapped: bot 0 scores 3 then 2, bot 1 scores
    # 1 then 2, so bot 0 wins the deal 5 to 3 (one rotation each way would be 1-1).
    def game(seating: list[int], scores: list[int]) -> dict[str, object]:
        places = [1 + sum(o > s for o in scores) for s in scores]
        return {"deal": 0, "seating": seating, "result": {"scores": scores, "places": places}}

    result = {
        "places": [1, 2],
        "games": [game([0, 1], [3, 1]), game([1, 0], [2, 2])],
    }
    units = [Placing(("x", "y"), p) for p in match_units(2, result, duplicate=True, deals=1)]
    assert len(units) == 1
    assert rate_units({}, units) == rate_units({}, [Placing(("x", "y"), (1, 2))])


def test_same_bot_in_two_seats_is_no_pair_and_a_bot_alone_is_not_rated() -> None:
    after = rate_units({}, [Placing(("a", "a", "b"), (1, 3, 2))])
    assert after["a"].units == after["b"].units == 1
    assert after["a"].elo == pytest.approx(START_ELO, abs=1e-3)  # one win, one loss vs b
    assert after["a"].records == {"b": Record(2.0, 1.0, pytest.approx(START_ELO, abs=1e-3))}
    assert rate_units({}, [Placing(("a", "a"), (1, 2))]) == {}


def test_a_fixed_versions_deviation_only_shrinks() -> None:
    rng = random.Random(3)
    bots = "abcdef"
    skills: dict[str, Skill] = {}
    for _ in range(300):
        seats = tuple(rng.sample(bots, 4))
        units = [Placing(seats, tuple(rng.randint(1, 4) for _ in seats)) for _ in range(2)]
        before = dict(skills)
        skills.update(rate_units(skills, units))
        for bot in seats:
            was = before.get(bot, Skill()).deviation
            # Only the measured dispersion (its prior counts little: PRIOR_UNITS) and the
            # curvature at the new ratings widen it.
            assert 0.0 < skills[bot].deviation < was * 1.2
    assert all(s.deviation < 60 for s in skills.values())
    assert all(
        ELO_MIN <= s.interval()[0] < s.elo < s.interval()[1] <= ELO_MAX for s in skills.values()
    )


def test_old_results_are_read_again_against_an_opponents_better_rating() -> None:
    # a beats b once while b is new; b then proves strong against c; when a meets b
    # again (a draw), a's first win counts as a win over a strong bot.
    settled = Skill(1500.0, 20.0**2, 1e-3, 1e-3, 1000, 1000, {"z": Record(4000.0, 2000.0, 1500)})
    skills = {"c": settled, **replay([[Placing(("a", "b"), (1, 2))]])}
    first = skills["a"].elo
    for _ in range(30):
        skills.update(rate_units(skills, [Placing(("b", "c"), (1, 2))] * 2))
    assert skills["b"].elo > 1800
    skills.update(rate_units(skills, [Placing(("a", "b"), (1, 1))]))
    assert skills["a"].elo > first + 150
    assert skills["a"].records["b"] == Record(2.0, 1.5, skills["b"].elo)


def test_the_rating_does_not_depend_on_how_the_results_were_split_into_matches() -> None:
    # Against a settled opponent, ten one-unit matches and one ten-unit match give the
    # same record, hence (nearly) the same rating.
    settled = Skill(1500.0, 20.0**2, 1e-3, 1e-3, 1000, 1000, {"z": Record(4000.0, 2000.0, 1500)})
    places = [(1, 2), (2, 1), (1, 2), (1, 2), (1, 1)] * 2
    units = [Placing(("a", "o"), p) for p in places]
    together = rate_units({"o": settled}, units)["a"]
    apart: dict[str, Skill] = {"o": settled}
    for unit in units:
        apart.update(rate_units(apart, [unit]))
    assert together.records["o"][:2] == apart["a"].records["o"][:2] == (10.0, 7.0)
    assert together.elo == pytest.approx(apart["a"].elo, abs=3.0)
    assert together.elo > START_ELO + 50


def test_draws_make_a_bot_less_variable_than_coin_flips_and_shared_placings_more() -> None:
    draws = replay([[Placing(("a", "b"), (1, 1))]] * 30 + [[Placing(("a", "b"), (1, 2))]] * 2)
    assert draws["a"].dispersion < 0.5
    # Six bots of equal strength always placed in one of two fixed orders: every pair of
    # a unit is decided together, far more variable than independent coin flips.
    orders = [(1, 2, 3, 4, 5, 6), (6, 5, 4, 3, 2, 1)]
    table = replay([[Placing(tuple("abcdef"), orders[i % 2])] for i in range(40)])
    assert table["a"].dispersion > 2.0


def test_provisional_until_enough_units_and_a_narrow_enough_interval() -> None:
    assert Skill().provisional
    assert global_rating.is_provisional(global_rating.PROVISIONAL_UNITS - 1, 10.0)
    assert not global_rating.is_provisional(
        global_rating.PROVISIONAL_UNITS, global_rating.PROVISIONAL_DEVIATION
    )
    assert global_rating.is_provisional(500, global_rating.PROVISIONAL_DEVIATION + 1.0)
    played = replay([[Placing(("a", "b"), (1 + i % 2, 2 - i % 2))] for i in range(60)])
    assert not played["a"].provisional


def test_the_interval_is_clipped_to_the_scale() -> None:
    assert global_rating.interval(100.0, 200.0) == (
        ELO_MIN,
        pytest.approx(100.0 + 1.96 * 200.0, 1e-3),
    )
    assert global_rating.interval(2900.0, 200.0)[1] == ELO_MAX
    assert global_rating.interval(1500.0, -5.0) == (1500.0, 1500.0)
    assert global_rating.interval(3200.0, 50.0) == (ELO_MAX, ELO_MAX)
    assert global_rating.interval(-300.0, 50.0) == (ELO_MIN, ELO_MIN)


def test_a_new_version_widens_the_variance_by_exactly_the_version_deviation() -> None:
    records = {"o": Record(40.0, 30.0, 1500.0)}
    known = Skill(1620.0, 40.0**2, 2e-3, 1e-3, 300, 300.0, records)
    widened = global_rating.new_version(known)
    assert widened.variance == 40.0**2 + global_rating.VERSION_DEVIATION**2
    assert widened.deviation == pytest.approx(math.hypot(40.0, global_rating.VERSION_DEVIATION))
    assert (widened.elo, widened.information, widened.spread, widened.units) == (
        1620.0,
        2e-3,
        1e-3,
        300,
    )
    # The earlier results count by the share of the information the wider variance keeps.
    keep = (1 / widened.variance - 1 / V0) / (1 / known.variance - 1 / V0)
    assert widened.records["o"] == Record(40.0 * keep, 30.0 * keep, 1500.0)
    assert 0.04 < keep < 0.07  # a bot known to +-40 keeps about 5% of its past (150 wide)
    assert global_rating.new_version(known, deviation=30.0).deviation == pytest.approx(50.0)
    # Never wider than a new bot: a bot's first version starts as any new bot does.
    assert global_rating.new_version(Skill()) == Skill()
    assert global_rating.new_version(Skill(variance=349.0**2)).variance == V0


def test_a_new_version_is_widened_once_before_its_match_is_fitted() -> None:
    one = replay([[Placing(("a", "b"), (1, 2)), Placing(("a", "b"), (1, 1))]] * 20)
    units = [Placing(("a", "b"), (1, 2)), Placing(("a", "b"), (2, 1)), Placing(("b", "a"), (1, 2))]
    after = rate_units(one, units, new_versions={"a"})
    assert after == rate_units({**one, "a": global_rating.new_version(one["a"])}, units)
    assert after == rate_units(one, units, new_versions=["a", "nobody"])
    # The same units in the same order give the same rating; no new version, no widening.
    assert rate_units(one, units) == rate_units(dict(one), list(units))
    assert after["a"].deviation > rate_units(one, units)["a"].deviation
    # The new version's three losses weigh more against its discounted past.
    assert after["a"].elo < rate_units(one, units)["a"].elo
    # A bot whose new version has no opponent in the match is still widened.
    alone = rate_units(one, [Placing(("a", "a"), (1, 2))], new_versions={"a"})
    assert alone == {"a": global_rating.new_version(one["a"])}


def test_draws_lower_a_two_player_bots_expected_dispersion_to_one_less_their_share() -> None:
    assert global_rating.expected_dispersion(2) == 1.0
    assert global_rating.expected_dispersion(2, draws=0.25) == 0.75
    assert global_rating.expected_dispersion(6, draws=0.25) == pytest.approx(7 / 3)
    # 9 units, 3 of them draws: draw share 3 / (9 + 1); no dispersion measured yet.
    drawn = Skill(units=9, decisive=6.0)
    assert drawn.draw_share == pytest.approx(0.3)
    prior = global_rating.PRIOR_UNITS
    assert drawn.tempering(2) == pytest.approx((9 * 1.0 + prior * 0.7) / (9 + prior))
    assert Skill().draw_share == 0.0 and Skill().tempering(2) == 1.0
    # Each unit adds the share of the bot's pairs there that were not draws.
    after = rate_units({}, [Placing(("a", "b", "c"), (1, 1, 3))])
    assert after["a"].decisive == pytest.approx(0.5)
    assert after["c"].decisive == 1.0
    assert replay([[Placing(("a", "b"), (1, 1))]] * 4)["a"].decisive == 0.0
