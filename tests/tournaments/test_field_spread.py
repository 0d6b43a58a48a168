"""How spread a field is (tournaments.rating.model.field_spread), and the deviations that
count it (field_deviations.with_spread): a well-measured field's spread is its own, a field
with nothing to go on keeps the prior's, and every way of reading a deviation (all at once,
bot by bot, exact or probed, a difference) gives the same figure."""

from __future__ import annotations

import math
import random
import statistics

import numpy as np
import pytest

from tests.tournaments.test_field_deviations import played
from tests.tournaments.test_field_dispersion import sparse_field
from tournaments.rating.model import field, field_deviations, field_dispersion, field_spread
from tournaments.rating.model.global_rating import Skill, rate_units
from tournaments.rating.model.skill import FIELD_PRIOR_DEVIATION
from tournaments.rating.model.tournament_fit import SCALE, Placing

S = math.log(10.0) / SCALE


def round_robins(truth: dict[int, float], rounds: int, seed: int) -> dict[int, Skill]:
    """Rating states after ``rounds`` round robins of two-player games among bots of the
    ratings ``truth``."""
    rng = random.Random(seed)
    skills: dict[int, Skill] = {}
    bots = sorted(truth)
    for _ in range(rounds):
        for i, a in enumerate(bots):
            for b in bots[i + 1 :]:
                p = 1.0 / (1.0 + math.exp(-S * (truth[a] - truth[b])))
                places = (1, 2) if rng.random() < p else (2, 1)
                skills.update(rate_units(skills, [Placing((a, b), places)]))
    return skills


def test_a_well_measured_fields_spread_is_its_own() -> None:
    truth = {k: 1500.0 + 20.0 * (k - 9.5) for k in range(20)}  # 20 bots over 380 Elo
    found = field_deviations.with_spread(field.field_of(round_robins(truth, 12, 1)))
    # Its own spread (115 Elo) with the prior's counted as PRIOR_BOTS bots more: 186.
    squares = sum((t - 1500.0) ** 2 for t in truth.values())
    bots = field_spread.PRIOR_BOTS
    own = math.sqrt((bots * FIELD_PRIOR_DEVIATION**2 + squares) / (bots + len(truth)))
    assert found.spread is not None
    assert found.spread == pytest.approx(own, rel=0.1)
    assert found.shrink > 0.0  # narrower than the prior: the deviations lose its excess


def test_a_field_with_nothing_to_go_on_keeps_the_priors_spread() -> None:
    found = field_deviations.with_spread(field.field_of({k: Skill() for k in range(5)}))
    assert found.spread == pytest.approx(FIELD_PRIOR_DEVIATION)
    assert found.shrink == pytest.approx(0.0, abs=1e-12)
    unmeasured = field.field_of({k: Skill() for k in range(5)})
    for bot in range(5):
        assert found.deviation(bot) == pytest.approx(unmeasured.deviation(bot))


def test_a_field_wider_than_the_prior_widens_its_intervals() -> None:
    assert field_spread.shrink(FIELD_PRIOR_DEVIATION * 1.4) < 0.0 < field_spread.shrink(200.0)
    assert field_spread.shrink(None) == 0.0


def test_every_reading_of_a_deviation_counts_the_spread_alike() -> None:
    """against_mean (from the pass's kept covariance), Field.deviation (one solve), a
    fresh dense covariance, differences and Field.difference agree; each is narrower than
    the prior's own deviation where the field is narrower than the prior."""
    chain = [(k, k + 1) for k in range(11)] * 3 + [(0, 11)]
    plain = field.field_of(played(chain, 4))
    found = field_deviations.with_spread(plain)
    assert found.spread is not None and found.spread < FIELD_PRIOR_DEVIATION
    kept = field_deviations.against_mean(found)
    fresh = field_deviations.against_mean(found, exact=True)
    before = field_deviations.against_mean(plain)
    for bot, deviation in kept.items():
        assert deviation == pytest.approx(found.deviation(bot), rel=1e-6)
        assert deviation == pytest.approx(fresh[bot], rel=1e-6)
        assert deviation < before[bot]
    pairs = [(0, 1), (0, 11), (3, 7)]
    for (a, b), deviation in zip(pairs, field_deviations.differences(found, pairs), strict=True):
        assert deviation == pytest.approx(found.difference(a, b).deviation, rel=1e-6)
        assert deviation < plain.difference(a, b).deviation


def test_probed_deviations_count_the_spread_as_the_exact_ones_do() -> None:
    """Above DENSE_BOTS the spread's share comes off the probed variances
    (``Probed.variances``): on a ladder of neighbours with a few games at random, within
    15% of the exact one for every bot and 5% on average."""
    rng = random.Random(5)
    bots = 300
    pairs = [(k, k + d) for k in range(bots) for d in (1, 2, 3) if k + d < bots] * 2
    pairs += [(rng.randrange(bots), rng.randrange(bots)) for _ in range(300)]
    plain = field.field_of(played([(a, b) for a, b in pairs if a != b], 8), whole=False)
    found = field_deviations.with_spread(plain)
    assert found.shrink > 0.0
    exact = field_deviations.against_mean(found, exact=True)
    probed = field_deviations.against_mean(found, exact=False)
    relative = [abs(probed[k] - exact[k]) / exact[k] for k in exact]
    assert max(relative) < 0.15
    assert sum(relative) / len(relative) < 0.05
    unshrunk = field_deviations.against_mean(plain, exact=True)
    assert statistics.fmean(exact.values()) < statistics.fmean(unshrunk.values())


def test_a_large_fields_one_step_spread_is_never_narrower_than_the_fitted_one() -> None:
    truth = {k: 1500.0 + 25.0 * (k - 7.5) for k in range(16)}
    found = field.field_of(round_robins(truth, 3, 2))
    elo = [found.elo[k] for k in found.keys]
    values, vectors = field_spread.spectrum(found.csr.toarray())
    fitted = field_spread.fitted_spread(values, vectors, np.asarray(elo))
    variances = field_deviations.covariance(found, exact=True).variances()
    assert field_spread.one_step_spread(np.asarray(elo), variances) >= fitted


def test_a_field_fitted_at_another_prior_uses_it() -> None:
    found = field.field_of({k: Skill() for k in range(3)}, prior=200.0)
    assert found.matrix[0][0] == pytest.approx(1.0 / 200.0**2)


def test_the_pass_counting_the_spread_measures_the_dispersion_where_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The experiment ``COUNT_SPREAD``: the measured field carries its spread, and with
    ``MEASURE_AT_SPREAD`` its dispersion is measured at a fit under that spread (a
    different fit, so a different dispersion), its ratings still the prior 500's."""
    skills, units = sparse_field(16, 4, 30, 6)
    monkeypatch.setattr(field_dispersion, "COUNT_SPREAD", True)
    counted = field_dispersion.measured_field(skills, units)
    monkeypatch.setattr(field_dispersion, "MEASURE_AT_SPREAD", True)
    measured_at = field_dispersion.measured_field(skills, units)
    assert counted.spread is not None and measured_at.spread is not None
    assert counted.spread < FIELD_PRIOR_DEVIATION
    assert counted.dispersion is not None and measured_at.dispersion is not None
    assert measured_at.dispersion != pytest.approx(counted.dispersion)
    plain = field_dispersion.measured_field
    monkeypatch.setattr(field_dispersion, "COUNT_SPREAD", False)
    assert plain(skills, units).spread is None
