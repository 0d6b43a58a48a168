"""The field's joint view of the global rating (tournaments.rating.model.field), by hand.

The stored deviation of each bot takes its opponents as known; the field's precision
matrix is the curvature of all the bots' records together, so a contrast's variance is
c' H^-1 c. These tests check that view against cases worked out by hand: a pair that
only met each other, a closed round robin, two clusters joined by one game, and that the
whole-field refit is the maximum of the field's posterior.
"""

from __future__ import annotations

import math
import random

import pytest

from tournaments.rating.model import field
from tournaments.rating.model.global_rating import Skill, rate_units
from tournaments.rating.model.skill import FIELD_PRIOR_DEVIATION
from tournaments.rating.model.tournament_fit import SCALE, START_ELO, Placing

S = math.log(10.0) / SCALE


def played(pairs: list[tuple[int, int]], strength: float, seed: int) -> dict[int, Skill]:
    """The global rating after games between ``pairs`` (in order), bot k of skill
    ``strength`` x k in Elo (two players, plain games)."""
    rng = random.Random(seed)
    skills: dict[int, Skill] = {}
    for a, b in pairs:
        p = 1.0 / (1.0 + math.exp(-S * strength * (a - b)))
        places = (1, 2) if rng.random() < p else (2, 1)
        skills.update(rate_units(skills, [Placing((a, b), places)]))
    return skills


def round_robin(bots: int, rounds: int) -> list[tuple[int, int]]:
    return [
        (a, b) if r % 2 else (b, a)
        for r in range(rounds)
        for a in range(bots)
        for b in range(a + 1, bots)
    ]


def test_the_precision_is_symmetric_and_its_rows_sum_to_the_prior() -> None:
    skills = played(round_robin(5, 4), 60.0, 1)
    matrix = field.precision(skills)
    for a, row in matrix.items():
        for b, value in row.items():
            assert matrix[b][a] == pytest.approx(value)
        # Results only move differences: every row sums to the prior's precision.
        assert sum(row.values()) == pytest.approx(1.0 / FIELD_PRIOR_DEVIATION**2, rel=1e-6)


def test_a_lone_pair_knows_its_difference_as_the_model_says() -> None:
    skills = played([(0, 1)] * 40, 0.0, 2)
    found = field.field_of(skills)
    record = skills[0].records[1]
    p = 1.0 / (1.0 + math.exp(-S * (found.elo[0] - found.elo[1])))
    tempering = field._tempering(skills[0])
    information = S * S * record.results * p * (1.0 - p) / tempering
    prior = 1.0 / FIELD_PRIOR_DEVIATION**2
    # Two bots: the difference's precision is prior / 2 plus the pair's information.
    expected = 1.0 / (prior / 2.0 + information)
    assert found.difference(0, 1).deviation ** 2 == pytest.approx(expected, rel=0.02)


def test_a_closed_round_robin_is_narrower_against_the_field_than_stored() -> None:
    """n bots that met only each other: a bot's place against the field's mean is known
    ((n - 1) / n)^2 times the variance against fixed opponents (the Laplacian of a
    complete graph: each difference is read through every third bot too)."""
    skills = played(round_robin(6, 6), 50.0, 3)
    found = field.field_of(skills)
    for bot, skill in skills.items():
        assert found.deviation(bot) < skill.deviation
        assert found.deviation(bot) ** 2 == pytest.approx(skill.variance * (5 / 6) ** 2, rel=0.15)


def test_two_clusters_joined_by_one_game_are_uncertain_across_it() -> None:
    """Bots 0-2 and 3-5 play within their cluster; one game joins them. A difference
    within a cluster is known far better than one across, which the stored deviations
    (each bot against its own, well-known neighbours) cannot tell."""
    within = round_robin(3, 10)
    pairs = within + [(a + 3, b + 3) for a, b in within] + [(2, 3)]
    skills = played(pairs, 30.0, 4)
    found = field.field_of(skills)
    same = found.difference(0, 1).deviation
    across = found.difference(0, 5).deviation
    assert across > 2.0 * same
    stored = math.hypot(skills[0].deviation, skills[5].deviation)
    assert across > 1.5 * stored


def test_the_refit_is_the_maximum_of_the_field_posterior() -> None:
    skills = played(round_robin(5, 3) + [(0, 4)] * 5, 80.0, 5)
    elo = field.refit(skills)
    gradient, _ = field._gradient_and_precision(skills, None, elo)
    assert max(map(abs, gradient.values())) < 1e-6
    assert sum(elo.values()) / len(elo) == pytest.approx(START_ELO, abs=1.0)


def test_is_a_better_than_b() -> None:
    skills = played(round_robin(4, 15), 120.0, 6)
    top_vs_bottom = field.difference(3, 0, skills)
    assert top_vs_bottom.low <= top_vs_bottom.estimate <= top_vs_bottom.high
    assert top_vs_bottom.probability > 0.95
    reverse = field.difference(0, 3, skills)
    assert reverse.probability == pytest.approx(1.0 - top_vs_bottom.probability)
    assert reverse.estimate == pytest.approx(-top_vs_bottom.estimate)


def test_opponents_outside_the_field_stay_fixed_where_they_were_met() -> None:
    """A record of a bot outside the field (or of a version not mapped to one) informs
    its bot alone, at the rating it was last met at: the row's sum is the prior plus
    that record's information."""
    skills = played(round_robin(3, 8), 40.0, 7)
    inside = {bot: skills[bot] for bot in (0, 1)}
    matrix = field.precision(inside)
    assert set(matrix) == {0, 1}
    record = skills[0].records[2]
    p = 1.0 / (1.0 + math.exp(-S * (skills[0].elo - record.seen)))
    fixed = S * S * record.results * p * (1.0 - p) / field._tempering(skills[0])
    assert sum(matrix[0].values()) == pytest.approx(1.0 / FIELD_PRIOR_DEVIATION**2 + fixed)
    # The same through ``keys``: a record keyed by a version no bot of the field is now.
    renamed = {0: skills[0], 1: skills[1]}
    keyed = field.precision(renamed, {0: 0, 1: 1, 2: 7})
    assert keyed == matrix
