"""The dispersion's information read from the results (field_dispersion.RESIDUAL_INFORMATION):
a pairwise result of 0, 1/2 or 1 with mean p varies by p(1-p) less a quarter of its chance
of a draw, so p(1-p) is its squared residual plus a quarter for a draw, whatever the fit.
On fields of a few units a bot, whose fit is spread wider than the truth, the dispersion
so read is the results' own, where the plain pass reads it high; and the pairs' own
dispersion is 1 less the draws' share."""

from __future__ import annotations

import random
import statistics

import pytest

from tests.tournaments.test_field_dispersion import sparse_field
from tournaments.rating.model import field, field_dispersion
from tournaments.rating.model.results import Placing, pairwise

#: Each bot's performance in a unit is one of this many values: two bots draw a third of
#: the time.
LEVELS = 3


def tied_placing(seats: tuple[int, ...], rng: random.Random) -> Placing[int]:
    """Bots of equal strength placed by one performance each of LEVELS values, equal
    performances sharing a place."""
    scores = {bot: rng.randrange(LEVELS) for bot in seats}
    return Placing(seats, tuple(1 + sum(s > scores[bot] for s in scores.values()) for bot in seats))


def results_dispersion(seats: int) -> float:
    """The units' own dispersion at the truth (every pair an even match): each bot's
    squared score over its information, over many units."""
    rng = random.Random(0)
    squares = []
    for _ in range(20_000):
        unit = tied_placing(tuple(range(seats)), rng)
        score = sum(y - 0.5 for a, _, y in pairwise(unit.seats, unit.places) if a == 0)
        squares.append(score * score)
    return statistics.fmean(squares) / ((seats - 1) / 4)


@pytest.mark.parametrize(("seats", "bots"), [(2, 8), (4, 8), (6, 12)])
def test_few_units_a_bot_read_the_results_dispersion(
    seats: int, bots: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """3 to 5 units a bot, 40 fields, at the plain fit: the information read from the
    results gives the units' own dispersion within 8% (1.5-5% low), where p(1-p) at the
    fit reads it 12-24% high; and the pairs' own dispersion is 1 less the chance of a
    draw within 8%."""
    truth = results_dispersion(seats)
    pass_read, residual_read, pairs_read = [], [], []
    for seed in range(40):
        skills, units = sparse_field(bots, seats, 20 // (seats // 2), seed, tied_placing)
        plain = field.field_of(skills, dispersion=dict.fromkeys(skills, 1.0))
        pass_read.append(field_dispersion.unit_sums(plain, units).pooled() or 0.0)
        monkeypatch.setattr(field_dispersion, "RESIDUAL_INFORMATION", True)
        residual_read.append(field_dispersion.unit_sums(plain, units).pooled() or 0.0)
        pairs_read.append(field_dispersion.pair_dispersion(plain, units, unit=truth) or 0.0)
        monkeypatch.setattr(field_dispersion, "RESIDUAL_INFORMATION", False)
    assert statistics.fmean(pass_read) > 1.1 * truth
    assert statistics.fmean(residual_read) == pytest.approx(truth, rel=0.08)
    assert statistics.fmean(pairs_read) == pytest.approx(1.0 - 1.0 / LEVELS, rel=0.08)


def test_the_ratio_solves_for_what_the_fit_absorbed() -> None:
    """d = (spread + d leverage) / (residual + d pair leverage), and without leverage the
    plain ratio of the squared scores to the residuals."""
    found = field_dispersion._residual_ratio(3.0, 0.5, 4.0, 0.25)
    assert found is not None
    assert found == pytest.approx((3.0 + found * 0.5) / (4.0 + found * 0.25))
    assert field_dispersion._residual_ratio(3.0, 0.0, 4.0, 0.0) == pytest.approx(0.75)
    assert field_dispersion._residual_ratio(0.0, 0.0, 0.0, 0.0) is None
