"""Every bot's joint deviation at once (tournaments.rating.model.field_deviations) is the one
``Field.deviation`` gives bot by bot, on fields whose joint view matters: a ladder of
neighbours joined by few games, and a closed round robin."""

from __future__ import annotations

import math
import random

import pytest

from tournaments.rating.model import field, field_covariance, field_deviations
from tournaments.rating.model.global_rating import Skill, rate_units
from tournaments.rating.model.tournament_fit import SCALE, Placing

S = math.log(10.0) / SCALE


def played(pairs: list[tuple[int, int]], seed: int) -> dict[int, Skill]:
    """Rating states after two-player games between ``pairs``, bot k of strength 40 k."""
    rng = random.Random(seed)
    skills: dict[int, Skill] = {}
    for a, b in pairs:
        p = 1.0 / (1.0 + math.exp(-S * 40.0 * (a - b)))
        places = (1, 2) if rng.random() < p else (2, 1)
        skills.update(rate_units(skills, [Placing((a, b), places)]))
    return skills


def test_each_deviation_is_the_fields_own_on_a_chain_of_neighbours() -> None:
    chain = [(k, k + 1) for k in range(11)] * 6 + [(0, 11)]
    found = field.field_of(played(chain, 1))
    every = field_deviations.against_mean(found)
    assert set(every) == set(found.elo)
    for bot, deviation in every.items():
        assert deviation == pytest.approx(found.deviation(bot), rel=1e-6)
    # The chain's ends are the least placed against the field's mean.
    assert every[0] > every[6] and every[11] > every[6]


def test_each_deviation_is_the_fields_own_in_a_round_robin() -> None:
    pairs = [(a, b) for _ in range(4) for a in range(6) for b in range(a + 1, 6)]
    found = field.field_of(played(pairs, 2))
    every = field_deviations.against_mean(found)
    for bot, deviation in every.items():
        assert deviation == pytest.approx(found.deviation(bot), rel=1e-6)


def test_an_empty_field_has_no_deviations() -> None:
    assert field_deviations.against_mean(field.field_of({})) == {}


def test_each_difference_is_the_fields_own() -> None:
    chain = [(k, k + 1) for k in range(7)] * 5
    found = field.field_of(played(chain, 3))
    pairs = [(0, 1), (3, 2), (0, 7), (5, 5)]
    deviations = field_deviations.differences(found, pairs)
    for (a, b), deviation in zip(pairs[:3], deviations, strict=False):
        assert deviation == pytest.approx(found.difference(a, b).deviation, rel=1e-6)
    # Ends of the chain are further apart in what is known than neighbours.
    assert deviations[2] > deviations[0] > 0.0
    assert deviations[3] == 0.0


def test_probed_deviations_are_near_the_exact_ones_on_a_ladder_that_explores() -> None:
    """Above DENSE_BOTS the deviations are probed (field_deviations.Probed): on a ladder
    of neighbours with a few games at random, each is within 15% of the exact one and
    within 5% on average (3.2% here), and never below the floor of its own records."""
    rng = random.Random(5)
    bots = 300
    pairs = [(k, k + d) for k in range(bots) for d in (1, 2, 3) if k + d < bots] * 6
    pairs += [(rng.randrange(bots), rng.randrange(bots)) for _ in range(600)]
    found = field.field_of(played([(a, b) for a, b in pairs if a != b], 8), whole=False)
    exact = field_deviations.against_mean(found, exact=True)
    probed = field_deviations.against_mean(found, exact=False)
    relative = [abs(probed[k] - exact[k]) / exact[k] for k in exact]
    assert max(relative) < 0.15
    assert sum(relative) / len(relative) < 0.05
    floor = field_covariance.lower_bound(found.csr)
    for i, k in enumerate(found.keys):
        assert probed[k] ** 2 >= floor[i] * (1 - 1e-9)
