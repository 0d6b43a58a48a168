"""The global rating (tournaments.skill): one update per comparison unit, by hand.

With s = ln 10 / 400, g(v) = 1 / sqrt(1 + 3 s^2 v / pi^2) (Glicko's attenuation, taken
over both players' variances) and E the expected score, one unit gives a bot the score
s g (y - E) and the information s^2 g^2 E (1 - E) per opponent; its variance becomes
1 / (1 / v + information / t) and its rating r + variance score / t, where t (the
tempering) is the dispersion the bot has shown so far, shrunk towards that of a placing
by independent performances, (n + 1) / 3 for n bots, while it has few units: exactly
that before its first unit (1 for two players, 5/3 for four). The squared score kept
for the dispersion has the part the estimates' own errors add, h^2 v per rating, taken
out.
"""

from __future__ import annotations

import math
import random

import pytest

from tournaments import skill
from tournaments.ratings import ELO_MAX, ELO_MIN, SCALE, START_ELO, Placing
from tournaments.skill import START_DEVIATION, Skill, rate_unit, rate_units, replay
from tournaments.units import match_units

S = math.log(10.0) / SCALE
V0 = START_DEVIATION**2


def g(variance: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * S * S * variance / math.pi**2)


def test_a_win_between_two_new_bots_moves_both_by_the_same_hand_computed_amount() -> None:
    after = rate_unit({}, Placing(("a", "b"), (1, 2)))
    attenuation = g(2 * V0)
    variance = 1.0 / (1.0 / V0 + S * S * attenuation**2 * 0.25)
    gain = variance * S * attenuation * 0.5
    assert after["a"].elo == pytest.approx(START_ELO + gain, rel=1e-12)
    assert after["b"].elo == pytest.approx(START_ELO - gain, rel=1e-12)
    assert after["a"].variance == pytest.approx(variance, rel=1e-12)
    assert 100 < gain < 200  # a new bot's first result says a lot
    assert after["a"].units == after["b"].units == 1
    h = S * S * attenuation**2 * 0.25
    assert after["a"].information == pytest.approx(h)
    assert after["a"].spread == pytest.approx((S * attenuation * 0.5) ** 2 - 2 * h * h * V0)


def test_a_draw_moves_the_favourite_down_and_the_underdog_up() -> None:
    # Dispersion 1 and no draws before: the tempering is 1.
    known = Skill(1600.0, 50.0**2, information=1e-3, spread=1e-3, units=100, decisive=100)
    other = Skill(1400.0, 50.0**2, information=1e-3, spread=1e-3, units=100, decisive=100)
    after = rate_unit({"a": known, "b": other}, Placing(("a", "b"), (1, 1)), drift=0.0)
    attenuation = g(2 * 50.0**2)
    expected = 1.0 / (1.0 + math.exp(-S * attenuation * 200.0))
    variance = 1.0 / (1.0 / 50.0**2 + S * S * attenuation**2 * expected * (1 - expected))
    loss = variance * S * attenuation * (0.5 - expected)
    assert after["a"].elo == pytest.approx(1600.0 + loss, rel=1e-12)
    assert after["b"].elo == pytest.approx(1400.0 - loss, rel=1e-12)
    assert -10 < loss < 0


def test_a_four_seat_placing_is_three_pairs_per_bot_in_one_unit() -> None:
    # Places 1, 2, 2, 4: a beat three, b and c beat d and drew each other (score 0),
    # d lost three times.
    after = rate_unit({}, Placing(("a", "b", "c", "d"), (1, 2, 2, 4)))
    attenuation = g(2 * V0)
    tempering = skill.expected_dispersion(4)
    assert tempering == pytest.approx(5 / 3)
    variance = 1.0 / (1.0 / V0 + 3 * S * S * attenuation**2 * 0.25 / tempering)
    gain = variance * S * attenuation * 1.5 / tempering
    assert after["a"].elo == pytest.approx(START_ELO + gain, rel=1e-12)
    assert after["d"].elo == pytest.approx(START_ELO - gain, rel=1e-12)
    assert after["b"].elo == after["c"].elo == START_ELO
    assert all(s.variance == pytest.approx(variance) for s in after.values())
    assert {s.units for s in after.values()} == {1}


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
    assert rate_units({}, units) == rate_unit({}, Placing(("x", "y"), (1, 2)))


def test_same_bot_in_two_seats_is_no_pair_and_a_bot_alone_is_not_rated() -> None:
    after = rate_unit({}, Placing(("a", "a", "b"), (1, 3, 2)))
    assert after["a"].units == after["b"].units == 1
    assert after["a"].elo == pytest.approx(START_ELO, abs=1e-9)  # one win, one loss vs b
    assert rate_unit({}, Placing(("a", "a"), (1, 2))) == {}


def test_without_drift_the_deviation_only_shrinks_and_a_drift_keeps_it_open() -> None:
    assert skill.DRIFT == 0.0
    rng = random.Random(3)
    bots = "abcdef"
    still: dict[str, Skill] = {}
    drifting: dict[str, Skill] = {}
    for _ in range(600):
        seats = tuple(rng.sample(bots, 4))
        unit = Placing(seats, tuple(rng.randint(1, 4) for _ in seats))
        before = dict(still)
        still.update(rate_unit(still, unit))
        drifting.update(rate_unit(drifting, unit, drift=2.0))
        for bot in seats:
            was = before.get(bot, Skill()).deviation
            assert 0.0 < still[bot].deviation < was or still[bot].deviation < 1e-3
            assert 0.0 < drifting[bot].deviation <= START_DEVIATION
    assert all(drifting[b].deviation > still[b].deviation for b in bots)
    assert all(
        ELO_MIN <= s.interval()[0] < s.elo < s.interval()[1] <= ELO_MAX for s in still.values()
    )


def test_draws_make_a_bot_less_variable_than_coin_flips_and_shared_placings_more() -> None:
    draws = replay([Placing(("a", "b"), (1, 1))] * 30 + [Placing(("a", "b"), (1, 2))] * 2)
    assert draws["a"].dispersion < 0.5
    # Six bots of equal strength always placed in one of two fixed orders: every pair of
    # a unit is decided together, far more variable than independent coin flips.
    orders = [(1, 2, 3, 4, 5, 6), (6, 5, 4, 3, 2, 1)]
    table = replay([Placing(tuple("abcdef"), orders[i % 2]) for i in range(40)])
    assert table["a"].dispersion > 2.0


def test_provisional_until_enough_units_and_a_narrow_enough_interval() -> None:
    assert Skill().provisional
    assert skill.is_provisional(skill.PROVISIONAL_UNITS - 1, 10.0)
    assert not skill.is_provisional(skill.PROVISIONAL_UNITS, skill.PROVISIONAL_DEVIATION)
    assert skill.is_provisional(500, skill.PROVISIONAL_DEVIATION + 1.0)
    played = replay([Placing(("a", "b"), (1 + i % 2, 2 - i % 2)) for i in range(60)])
    assert not played["a"].provisional


def test_the_interval_is_clipped_to_the_scale() -> None:
    assert skill.interval(100.0, 200.0) == (ELO_MIN, pytest.approx(100.0 + 1.96 * 200.0, 1e-3))
    assert skill.interval(2900.0, 200.0)[1] == ELO_MAX
    assert skill.interval(1500.0, -5.0) == (1500.0, 1500.0)
    assert skill.interval(3200.0, 50.0) == (ELO_MAX, ELO_MAX)
    assert skill.interval(-300.0, 50.0) == (ELO_MIN, ELO_MIN)


def test_a_match_of_many_units_is_its_units_one_after_another() -> None:
    units = [Placing(("a", "b", "c"), p) for p in [(1, 2, 3), (3, 1, 2), (2, 2, 1)]]
    one_by_one: dict[str, Skill] = {}
    for unit in units:
        one_by_one.update(rate_unit(one_by_one, unit))
    assert rate_units({}, units) == one_by_one == replay(units)


def test_a_new_version_widens_the_variance_by_exactly_the_version_deviation() -> None:
    known = Skill(elo=1620.0, variance=40.0**2, information=2e-3, spread=1e-3, units=300)
    widened = skill.new_version(known)
    assert widened.variance == 40.0**2 + skill.VERSION_DEVIATION**2
    assert widened.deviation == pytest.approx(math.hypot(40.0, skill.VERSION_DEVIATION))
    assert (widened.elo, widened.information, widened.spread, widened.units) == (
        1620.0,
        2e-3,
        1e-3,
        300,
    )
    assert skill.new_version(known, deviation=30.0).deviation == pytest.approx(50.0)
    # Never wider than a new bot: a bot's first version starts as any new bot does.
    assert skill.new_version(Skill()) == Skill()
    assert skill.new_version(Skill(variance=349.0**2)).variance == V0


def test_a_new_version_is_widened_once_before_its_matchs_first_unit() -> None:
    known = Skill(elo=1620.0, variance=40.0**2, information=2e-3, spread=1e-3, units=300)
    other = Skill(elo=1500.0, variance=60.0**2, information=2e-3, spread=2e-3, units=300)
    units = [Placing(("a", "b"), (1, 2)), Placing(("a", "b"), (2, 1)), Placing(("b", "a"), (1, 2))]
    skills = {"a": known, "b": other}
    after = rate_units(skills, units, new_versions={"a"})
    assert after == rate_units({"a": skill.new_version(known), "b": other}, units)
    assert after == rate_units(skills, units, new_versions=["a", "nobody"])
    # The same units in the same order give the same rating; no new version, no widening.
    assert rate_units(skills, units) == rate_units(dict(skills), list(units))
    assert after["a"].deviation > rate_units(skills, units)["a"].deviation
    assert after["b"] != rate_units(skills, units)["b"]  # b met a less certain a
    # A bot whose new version has no opponent in the match is still widened.
    alone = rate_units(skills, [Placing(("a", "a"), (1, 2))], new_versions={"a"})
    assert alone == {"a": skill.new_version(known)}


def test_draws_lower_a_two_player_bots_expected_dispersion_to_one_less_their_share() -> None:
    assert skill.expected_dispersion(2) == 1.0
    assert skill.expected_dispersion(2, draws=0.25) == 0.75
    assert skill.expected_dispersion(6, draws=0.25) == pytest.approx(7 / 3)
    # 9 units, 3 of them draws: draw share 3 / (9 + 1); no dispersion measured yet.
    drawn = Skill(units=9, decisive=6.0)
    assert drawn.draw_share == pytest.approx(0.3)
    assert drawn.tempering(2) == pytest.approx((9 * 1.0 + 10 * 0.7) / 19)
    assert Skill().draw_share == 0.0 and Skill().tempering(2) == 1.0
    # Each unit adds the share of the bot's pairs there that were not draws.
    after = rate_unit({}, Placing(("a", "b", "c"), (1, 1, 3)))
    assert after["a"].decisive == pytest.approx(0.5)
    assert after["c"].decisive == 1.0
    assert replay([Placing(("a", "b"), (1, 1))] * 4)["a"].decisive == 0.0
