"""The tournament fit's interval: the cluster-robust sandwich, its floor, clipping, labels.

Two bots and two-player units make the sandwich computable by hand: with d = r_a - r_b,
s = ln 10 / 400 and p the fitted chance that a beats b, the model's variance of d is
1 / (s^2 N p (1 - p)) over N units, the sandwich's is sum (y - p)^2 / (s^2 (N p (1-p))^2)
times N / (N - 1), and each rating measured from the field's mean moves by d / 2
(up to the weak prior, which narrows both by a fraction of a percent). The sandwich's
half-width uses Student's t with N - 1 degrees of freedom, the model floor's 1.96.
"""

import math

import pytest

from tournaments.rating.model.tournament_fit import (
    CLIP_HALF,
    ELO_MAX,
    ELO_MIN,
    SCALE,
    START_ELO,
    Z95,
    Placing,
    fit_elo,
    fit_units,
    t95,
)

S = math.log(10.0) / SCALE
WIN, LOSS, DRAW = (1, 2), (2, 1), (1, 1)


def units(wins: int, losses: int, draws: int) -> list[Placing[str]]:
    seats = ("a", "b")
    return (
        [Placing(seats, WIN)] * wins
        + [Placing(seats, LOSS)] * losses
        + [Placing(seats, DRAW)] * draws
    )


def half_width(variance_of_gap: float, units: int) -> float:
    """The 95% half-width of one of two ratings whose gap has this variance, measured
    from ``units`` units (Student's t with units - 1 degrees of freedom)."""
    return t95(units - 1) * math.sqrt(variance_of_gap / 4.0)


def test_wins_and_losses_only_give_the_model_variance_times_the_cluster_correction() -> None:
    n, p = 40, 0.75
    fit = fit_units(units(30, 10, 0))
    model = 1.0 / (S * S * n * p * (1 - p))
    assert fit["a"].half_width == pytest.approx(half_width(model * n / (n - 1), n), rel=1e-2)
    assert fit["a"].elo - fit["b"].elo == pytest.approx(400 * math.log10(3), abs=1.0)


def test_common_draws_make_the_sandwich_narrower_than_the_model() -> None:
    # 20 wins, 20 losses, 40 draws: p = 1/2, the model sees 80 coin flips, but the
    # outcomes vary half as much: sum (y - p)^2 = 40 * 1/4 = 10.
    n = 80
    fit = fit_units(units(20, 20, 40))
    model = 1.0 / (S * S * n * 0.25)
    sandwich = 10.0 / (S * S * (n * 0.25) ** 2) * n / (n - 1)
    assert sandwich < model / 1.9
    assert fit["a"].half_width == pytest.approx(half_width(sandwich, n), rel=1e-2)
    assert fit["a"].elo == pytest.approx(START_ELO, abs=1e-6)


def test_the_model_variance_floors_the_sandwich_by_ten_units_over_the_units() -> None:
    # All draws: the sandwich sees no variation at all (zero); the floor keeps
    # 10 / 200 of the model's variance.
    n = 200
    fit = fit_units(units(0, 0, n))
    model = 1.0 / (S * S * n * 0.25)
    assert fit["a"].half_width == pytest.approx(Z95 * math.sqrt(model * 10 / n / 4.0), rel=1e-2)


def test_few_units_keep_the_whole_model_variance() -> None:
    n, p = 8, 0.5
    fit = fit_units(units(4, 4, 0))
    model = 1.0 / (S * S * n * p * (1 - p))
    assert fit["a"].half_width == pytest.approx(half_width(model * n / (n - 1), n), rel=1e-2)
    fit = fit_units(units(2, 2, 4))  # the sandwich alone would be half as wide
    assert fit["a"].half_width == pytest.approx(Z95 * math.sqrt(model / 4.0), rel=1e-2)


def test_an_unbeaten_record_keeps_the_model_variance_and_is_clipped() -> None:
    fit = fit_units(units(60, 0, 0))
    for name in "ab":
        f = fit[name]
        assert ELO_MIN <= f.low <= f.elo <= f.high <= ELO_MAX
        assert f.high - f.elo <= CLIP_HALF and f.elo - f.low <= CLIP_HALF
    assert fit["a"].half_width > 200  # never "certain" about a bot that never lost
    assert fit["a"].elo > fit["b"].elo + 400


def test_a_participant_without_results_gets_the_clipped_interval_around_the_mean() -> None:
    fit = fit_units(units(5, 5, 0), participants=["a", "b", "idle"])
    idle = fit["idle"]
    assert (idle.units, idle.provisional) == (0, True)
    assert idle.elo == pytest.approx(START_ELO, abs=1.0)
    assert idle.low == pytest.approx(START_ELO - CLIP_HALF, abs=1.0)
    assert idle.high == pytest.approx(START_ELO + CLIP_HALF, abs=1.0)


def test_the_quantile_is_students_t_for_the_units_a_bot_has() -> None:
    # Tables of Student's t, two-sided 95%.
    for df, quantile in ((1, 12.706), (2, 4.303), (3, 3.182), (4, 2.776), (9, 2.262), (29, 2.045)):
        assert t95(df) == pytest.approx(quantile, abs=5e-3)
    assert t95(10**6) == pytest.approx(Z95, abs=1e-4)


def test_fewer_than_ten_units_are_provisional() -> None:
    assert fit_units(units(5, 4, 0))["a"].provisional
    ten = fit_units(units(5, 4, 1))["a"]
    assert (ten.units, ten.provisional) == (10, False)


def test_pairs_decided_together_at_a_table_widen_the_interval() -> None:
    # Four bots, always placed in one of two orders: each 4-player placing is six pairs
    # decided together. Counted as independent pairs, the interval is too narrow.
    seats = ("a", "b", "c", "d")
    tables = [Placing(seats, (1, 2, 3, 4))] * 30 + [Placing(seats, (4, 3, 2, 1))] * 20
    as_tables = fit_units(tables)
    as_pairs = fit_elo(
        (a, b, score) for table in tables for a, b, score in _pairs(table.seats, table.places)
    )
    assert as_tables["a"].elo == pytest.approx(as_pairs["a"][0], abs=1e-6)
    assert as_tables["a"].half_width > 1.3 * as_pairs["a"][1]


def _pairs(seats: tuple[str, ...], places: tuple[int, ...]) -> list[tuple[str, str, float]]:
    from tournaments.rating.model.tournament_fit import pairwise

    return pairwise(seats, places)
