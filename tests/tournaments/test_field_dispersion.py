"""The field's own dispersion (tournaments.rating.model.field_dispersion): measured from units
with the exact leverage it comes nearer the results' dispersion than the per-match sums
(leverage with every other rating fixed) on a sparse multi-seat field;
a bot's own ratio is shrunk towards the pooled one where the pass does not pool every
bot (the pass before issue 47's one rating, ``information_at_the_fit``); too few units
leave each bot its stored dispersion; bots outside the field are left out."""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable

import pytest

from tournaments.rating.model import field, field_dispersion
from tournaments.rating.model.global_rating import Skill, rate_units
from tournaments.rating.model.tournament_fit import Placing


@pytest.fixture
def information_at_the_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pass as it was before issue 47's one rating, which the experiments still reach
    (``calibration_ladder --pool-units 8 --no-residual-information``): each bot's own ratio
    shrunk towards the pooled one, the information read at the fit."""
    monkeypatch.setattr(field_dispersion, "POOL_UNITS", 8.0)
    monkeypatch.setattr(field_dispersion, "RESIDUAL_INFORMATION", False)


def placing(seats: tuple[int, ...], rng: random.Random) -> Placing[int]:
    """Bots of equal strength placed by one independent performance each: the unit's
    dispersion is then (n + 1) / 3 (expected_dispersion)."""
    scores = {bot: rng.random() for bot in seats}
    order = sorted(seats, key=scores.__getitem__, reverse=True)
    return Placing(seats, tuple(order.index(bot) + 1 for bot in seats))


def sparse_field(
    bots: int,
    seats: int,
    matches: int,
    seed: int,
    place: Callable[[tuple[int, ...], random.Random], Placing[int]] = placing,
) -> tuple[dict[int, Skill], list[Placing[int]]]:
    """A ladder-like field: each table of ``seats`` near neighbours in a ring of
    ``bots``, placed by ``place``, a few units per bot; the rating states and the units."""
    rng = random.Random(seed)
    skills: dict[int, Skill] = {}
    units: list[Placing[int]] = []
    for _ in range(matches):
        first = rng.randrange(bots)
        table = tuple((first + k + rng.randrange(2)) % bots for k in range(0, 2 * seats, 2))
        unit = place(table, rng)
        units.append(unit)
        skills.update(rate_units(skills, [unit]))
    return skills, units


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_exact_leverage_measures_a_sparse_six_seat_fields_dispersion(seed: int) -> None:
    skills, units = sparse_field(60, 6, 200, seed)  # 20 units a bot, near neighbours
    truth = 7.0 / 3.0
    plain = field.field_of(skills, dispersion=dict.fromkeys(skills, 1.0))
    pooled = field_dispersion.unit_sums(plain, units).pooled()
    per_match = sum(s.spread for s in skills.values()) / sum(
        s.information for s in skills.values()
    )  # the sums taken as each match is rated (every other rating fixed)
    assert pooled is not None
    assert pooled == pytest.approx(truth, rel=0.08)
    assert abs(pooled - truth) < abs(per_match - truth)


@pytest.mark.usefixtures("information_at_the_fit")
def test_a_bots_own_ratio_is_shrunk_towards_the_pooled_one() -> None:
    sums = field_dispersion.Sums()
    for _ in range(30):
        sums.add("a", 1.0, 1.0)  # ratio 1
        sums.add("b", 2.0, 1.0)  # ratio 4
    pooled = sums.pooled()
    assert pooled == pytest.approx(2.5)
    found = field_dispersion.temperings(sums, ["a", "b", "c"])
    assert found is not None
    w = min(30 / (30 + field_dispersion.POOL_UNITS), field_dispersion.OWN_WEIGHT_MAX)
    assert found["a"] == pytest.approx(w * 1.0 + (1 - w) * 2.5)
    assert found["b"] == pytest.approx(w * 4.0 + (1 - w) * 2.5)
    assert found["c"] == pytest.approx(2.5)  # no unit sampled: the field's


@pytest.mark.usefixtures("information_at_the_fit")
def test_a_bot_of_many_units_weighs_its_own_ratio_no_more_than_the_fields() -> None:
    sums = field_dispersion.Sums()
    for _ in range(100):
        sums.add("a", 1.0, 1.0)  # ratio 1
        sums.add("b", 2.0, 1.0)  # ratio 4
    sums.add("c", 2.0, 1.0)  # one unit: ratio 4
    found = field_dispersion.temperings(sums, ["a", "b", "c"])
    pooled = sums.pooled()
    assert found is not None and pooled is not None
    assert field_dispersion.OWN_WEIGHT_MAX == 0.5
    assert found["a"] == pytest.approx(0.5 * 1.0 + 0.5 * pooled)  # 100 / 108 capped
    assert found["b"] == pytest.approx(0.5 * 4.0 + 0.5 * pooled)
    w = 1 / (1 + field_dispersion.POOL_UNITS)  # under the cap: shrunk as before
    assert found["c"] == pytest.approx(w * 4.0 + (1 - w) * pooled)


def test_too_few_units_leave_each_bot_its_stored_dispersion() -> None:
    skills, units = sparse_field(12, 4, 6, 2)
    few = units[: field_dispersion.MIN_UNITS // 4 - 1]
    assert (
        field_dispersion.temperings(field_dispersion.unit_sums(field.field_of(skills), few), skills)
        is None
    )
    measured = field_dispersion.measured_field(skills, few)
    stored = field.field_of(skills, reduce_bias=field_dispersion.REDUCE_BIAS)
    assert measured.elo == pytest.approx(stored.elo)
    assert measured.matrix == stored.matrix


def test_the_measured_field_is_refitted_with_the_measured_dispersion() -> None:
    """As the service measures it (issue 47's one rating): Firth's fit at dispersion 1,
    the dispersion read there, Firth's fit again with it, its pseudo-results scaled by
    the pairs' own dispersion in the fit and not in its posterior."""
    skills, units = sparse_field(30, 4, 60, 3)
    plain = field.field_of(skills, dispersion=dict.fromkeys(skills, 1.0), reduce_bias=True)
    dispersion = field_dispersion.temperings(field_dispersion.unit_sums(plain, units), skills)
    assert dispersion is not None
    assert len(set(dispersion.values())) == 1  # every bot the pooled ratio
    measured = field_dispersion.measured_field(skills, units)
    unit = statistics.fmean(dispersion.values())
    pairs = field_dispersion.pair_dispersion(plain, units, unit=unit)
    assert pairs is not None and measured.scales == pytest.approx((pairs, 1.0))
    expected = field.field_of(
        skills, dispersion=dispersion, reduce_bias=True, bias_scale=pairs, posterior_scale=1.0
    )
    assert measured.elo == pytest.approx(expected.elo, abs=1e-3)
    # The precision is the information over each bot's dispersion (4 seats: above 1).
    assert statistics.fmean(dispersion.values()) > 1.2
    for bot in skills:
        assert measured.matrix[bot][bot] < plain.matrix[bot][bot]


def test_pairs_with_a_bot_outside_the_field_are_left_out() -> None:
    skills, units = sparse_field(12, 2, 40, 4)
    plain = field.field_of(skills, dispersion=dict.fromkeys(skills, 1.0))
    alone = field_dispersion.unit_sums(plain, units)
    stranger = field_dispersion.unit_sums(plain, [*units, Placing((0, 99), (1, 2))])
    assert stranger.spread == alone.spread
    assert stranger.units == alone.units
