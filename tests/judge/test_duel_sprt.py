"""The duel's statistic, checked against values worked out from the theory, not the code."""

from __future__ import annotations

import math

import pytest

from judge.duel.pairs import pair_points, seatings, seed_slots
from judge.duel.sprt import (
    Decision,
    Pentanomial,
    Sprt,
    estimate,
    fit_mean,
    log_likelihood_ratio,
    logistic_elo,
    logistic_score,
)
from judge.duel.theory import expected

SCORES = [0.0, 0.25, 0.5, 0.75, 1.0]


def test_wald_bounds_for_five_percent_errors_are_plus_minus_ln_19() -> None:
    test = Sprt(alpha=0.05, beta=0.05)
    assert test.lower == pytest.approx(-math.log(19)) and test.upper == pytest.approx(math.log(19))


def test_logistic_elo_of_known_scores() -> None:
    assert logistic_score(0) == 0.5
    assert logistic_score(400) == pytest.approx(10 / 11)  # 10 to 1 odds
    assert logistic_elo(0.75) == pytest.approx(400 * math.log10(3))
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        logistic_elo(1.0)


def test_only_whole_wins_and_losses_give_the_binomial_sprt() -> None:
    # Pairs all lost (0) or all won (2): the fitted laws are Bernoulli(s), so the LLR is
    # wins ln(s1 / s0) + losses ln((1 - s1) / (1 - s0)).
    llr = log_likelihood_ratio([40, 0, 0, 0, 60], 0.5, 0.6)
    assert llr == pytest.approx(60 * math.log(1.2) + 40 * math.log(0.8))
    assert llr == pytest.approx(2.01355, abs=1e-5)


def test_the_fitted_law_has_the_mean_asked_and_the_largest_likelihood() -> None:
    counts = [3.0, 10.0, 50.0, 14.0, 5.0]
    law = fit_mean(counts, SCORES, 0.56)
    assert sum(law) == pytest.approx(1.0)
    assert sum(p * s for p, s in zip(law, SCORES, strict=True)) == pytest.approx(0.56)

    def likelihood(probs: list[float]) -> float:
        return sum(n * math.log(p) for n, p in zip(counts, probs, strict=True))

    # Any move that keeps the sum and the mean (orthogonal to 1 and to the scores) is worse.
    for move in ([1, -2, 1, 0, 0], [0, 1, -2, 1, 0], [1, -1, -1, 1, 0], [0, 0, 1, -2, 1]):
        for step in (1e-3, -1e-3):
            moved = [p + step * m for p, m in zip(law, move, strict=True)]
            assert likelihood(moved) < likelihood(law)


def test_a_mean_equal_to_the_observed_one_returns_the_observed_frequencies() -> None:
    counts = [1.0, 2.0, 4.0, 2.0, 1.0]
    assert fit_mean(counts, SCORES, 0.5) == pytest.approx([0.1, 0.2, 0.4, 0.2, 0.1])


def test_a_mean_outside_the_observed_values_is_refused() -> None:
    with pytest.raises(ValueError, match="not strictly inside"):
        fit_mean([0, 0, 5, 5, 0], SCORES, 0.8)


def test_many_pairs_give_the_normal_approximation() -> None:
    # For n pairs of mean x and variance v, LLR ~ n (s1 - s0)(2x - s0 - s1) / (2 v).
    counts = [200, 1000, 6000, 1400, 400]
    penta = Pentanomial((200, 1000, 6000, 1400, 400))
    s0, s1 = logistic_score(0), logistic_score(20)
    approx = penta.pairs * (s1 - s0) * (2 * penta.mean() - s0 - s1) / (2 * penta.variance())
    assert log_likelihood_ratio(counts, s0, s1) == pytest.approx(approx, rel=0.02)


def test_symmetric_pairs_between_symmetric_bounds_weigh_nothing() -> None:
    penta = Pentanomial((3, 7, 20, 7, 3))
    assert Sprt(elo0=-10, elo1=10).llr(penta) == pytest.approx(0.0, abs=1e-9)
    assert Sprt().llr(Pentanomial()) == 0.0


def test_pairs_are_counted_in_five_categories() -> None:
    penta = Pentanomial().add(2).add(1.5).add(1).add(1).add(0)
    assert penta.counts == (1, 0, 2, 1, 1) and penta.games == 10
    assert penta.mean() == pytest.approx((1 + 0.75 + 0.5 + 0.5) / 5)
    with pytest.raises(ValueError, match=r"0, 0\.5, 1, 1\.5 or 2 points"):
        penta.add(0.3)


def test_the_estimate_is_the_elo_of_the_mean_with_a_normal_interval() -> None:
    # Two split pairs and two won: mean 0.75, pair variance 1/16, standard error 1/8.
    found = estimate(Pentanomial((0, 0, 2, 0, 2)))
    assert found.elo == pytest.approx(400 * math.log10(3))
    assert found.low == pytest.approx(logistic_elo(0.75 - 1.959964 / 8))
    assert found.high == pytest.approx(logistic_elo(0.75 + 1.959964 / 8))
    unbounded = estimate(Pentanomial((0, 0, 0, 0, 3)))
    assert unbounded.elo is None and unbounded.high is None


def test_decisions_at_the_bounds_and_the_cap() -> None:
    test = Sprt(max_games=100)
    assert test.decide(3.0, 10) is Decision.H1
    assert test.decide(-3.0, 10) is Decision.H0
    assert test.decide(0.0, 100) is Decision.CAP
    assert test.decide(0.0, 98) is Decision.RUNNING


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ({"elo0": 10, "elo1": 0}, "elo0 < elo1"),
        ({"alpha": 0.0}, "above 0 and below 0.5"),
        ({"max_games": 7}, "even number"),
    ],
)
def test_bad_settings_are_refused(settings: dict[str, float], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        Sprt(**settings)  # type: ignore[arg-type]


def test_the_operating_characteristic_meets_alpha_and_beta_at_the_bounds() -> None:
    test = Sprt(elo0=0, elo1=20)
    s0, s1 = test.scores
    assert expected(test, s0, 0.125).p_h1 == pytest.approx(0.05)
    assert expected(test, s1, 0.125).p_h1 == pytest.approx(0.95)
    middle = expected(test, (s0 + s1) / 2, 0.125)
    assert middle.p_h1 == pytest.approx(0.5)
    # Wald: between symmetric bounds +-b with no drift, b^2 / v pairs (v = d^2 / var).
    assert middle.pairs == pytest.approx(math.log(19) ** 2 * 0.125 / (s1 - s0) ** 2)
    # At s0: (0.05 b - 0.95 b) / m with m = -d^2 / (2 var).
    at_h0 = expected(test, s0, 0.125).pairs
    assert at_h0 == pytest.approx(0.9 * math.log(19) * 2 * 0.125 / (s1 - s0) ** 2)


def test_b_and_a_swap_symmetric_seats_and_the_panel_stays() -> None:
    assert seatings(4, "B", "A", "P") == (["B", "P", "A", "P"], ["A", "P", "B", "P"])
    assert seatings(2, "B", "A", "P") == (["B", "A"], ["A", "B"])
    # First game B (seat 0) beats A (seat 2); second game A (now seat 0) and B tie.
    assert pair_points([5, -1, -4, 0], [2, 0, 2, -4]) == 1.5


def test_each_bot_keeps_the_seed_of_its_first_seat_in_the_second_game() -> None:
    assert seed_slots(4, 0) == [0, 1, 2, 3]
    assert seed_slots(4, 1) == [2, 1, 0, 3]  # B (seat 2 now) keeps seat 0's seed, A seat 2's
    assert seed_slots(2, 1) == [1, 0]
