"""Firth's bias-reduced field fit (tournaments.rating.model.field_bias): on one binomial
record its answer is known in closed form, and on a sparse field it pulls the ratings in
toward the centre, never past it. With the information moved where the truth likely is
(field_dispersion.CURVED), the dispersion measured at a few units a bot is the results'
own, where the plain pass reads it a sixth or more high."""

from __future__ import annotations

import dataclasses
import math
import statistics

import numpy as np
import pytest

from tests.tournaments.test_field_dispersion import sparse_field
from tests.tournaments.test_field_spread import round_robins
from tournaments.rating.model import field, field_bias, field_deviations, field_dispersion
from tournaments.rating.model import field_system as system
from tournaments.rating.model.field_covariance import Dense
from tournaments.rating.model.global_rating import _S, CONVERGED, NEWTON_STEPS
from tournaments.rating.model.results import START_ELO


def one_record(won: float, results: float) -> system.Links[str]:
    """One bot's record against an opponent outside the field, met at the start's
    rating, under a prior too wide to count."""
    return system.Links(
        ["a"],
        np.array([0]),
        np.array([-1]),
        np.array([results]),
        np.array([won]),
        np.array([START_ELO]),
        np.array([1.0]),
        prior=1e7,
    )


def test_one_binomial_record_gets_firths_closed_form() -> None:
    """Firth's estimate of one binomial probability is (y + 1/2) / (n + 1): 4 wins of 5
    give odds 3, where the plain fit's are 4."""
    links = one_record(4.0, 5.0)
    plain = system.refit(links, np.array([START_ELO]), NEWTON_STEPS, CONVERGED)
    assert abs(plain[0] - START_ELO - math.log(4.0) / _S) < 0.01
    reduced = field_bias.refit(links, plain, NEWTON_STEPS, CONVERGED)[0]
    assert abs(reduced[0] - START_ELO - math.log(3.0) / _S) < 0.01


def test_one_binomial_records_posteriors_are_n_over_n_plus_one_and_its_square() -> None:
    """One record of n results: Firth's pseudo-results are one result more, so the
    penalised posterior reads n / (n + 1) of the plain fit's variance, and the noise with
    the penalty held fixed (``Dense.sandwich``, the experiment ``field_bias.SANDWICH``)
    (n / (n + 1))², the variance of Firth's (y + 1/2) / (n + 1) to first order."""
    links = one_record(4.0, 5.0)
    plain = system.refit(links, np.array([START_ELO]), NEWTON_STEPS, CONVERGED)
    reduced = field_bias.refit(links, plain, NEWTON_STEPS, CONVERGED)[0]
    records = system.gradient_and_precision(links, reduced)[1]
    penalised = field_bias.penalised(links, reduced, records)
    variance = 1.0 / records.toarray()[0, 0]
    assert Dense.penalised(penalised, 0.0).matrix[0, 0] == pytest.approx(variance * 5 / 6)
    sandwich = Dense.sandwich(penalised, records, 0.0).matrix[0, 0]
    assert sandwich == pytest.approx(variance * (5 / 6) ** 2)


def test_a_sparse_field_is_pulled_in_toward_its_centre() -> None:
    """Eight bots 60 Elo apart after two round robins: the bias-reduced ratings are
    nearer the field's mean than the plain fit's, bot by bot, in the same order."""
    truth = {b: START_ELO + 60.0 * (b - 3.5) for b in range(8)}
    skills = round_robins(truth, 2, seed=5)
    plain = field.field_of(skills, dispersion=dict.fromkeys(skills, 1.0))
    reduced = field.field_of(skills, dispersion=dict.fromkeys(skills, 1.0), reduce_bias=True)
    centre = np.mean(list(plain.elo.values()))
    for bot in skills:
        assert abs(reduced.elo[bot] - centre) < abs(plain.elo[bot] - centre)
        assert (reduced.elo[bot] - centre) * (plain.elo[bot] - centre) > 0.0
    assert sorted(skills, key=plain.elo.get) == sorted(skills, key=reduced.elo.get)


@pytest.mark.parametrize(("seats", "bots"), [(2, 8), (4, 8), (6, 12)])
def test_few_units_a_bot_read_the_results_dispersion(
    seats: int, bots: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Equal bots, 3 to 5 units each, placed by independent performances: the results'
    dispersion is (seats + 1) / 3. Over 40 fields the pass before issue 47's one rating
    (the information read at the plain fit) reads it more than 15% high; the bias-reduced
    fit with the curved information within 6%, and the one rating's (the information read
    from the residuals, at Firth's fit) within 6%."""
    truth = (seats + 1) / 3
    monkeypatch.setattr(field_dispersion, "RESIDUAL_INFORMATION", False)
    plain, curved, residual = [], [], []
    for seed in range(40):
        skills, units = sparse_field(bots, seats, 20 // (seats // 2), seed)
        ones = dict.fromkeys(skills, 1.0)
        plain.append(field_dispersion.unit_sums(field.field_of(skills, dispersion=ones), units))
        reduced = field.field_of(skills, dispersion=ones, reduce_bias=True)
        monkeypatch.setattr(field_dispersion, "CURVED", True)
        curved.append(field_dispersion.unit_sums(reduced, units).pooled())
        monkeypatch.setattr(field_dispersion, "CURVED", False)
        monkeypatch.setattr(field_dispersion, "RESIDUAL_INFORMATION", True)
        residual.append(field_dispersion.unit_sums(reduced, units).pooled())
        monkeypatch.setattr(field_dispersion, "RESIDUAL_INFORMATION", False)
    assert statistics.mean(s.pooled() or 0.0 for s in plain) > 1.15 * truth
    assert statistics.mean(r or 0.0 for r in curved) == pytest.approx(truth, rel=0.06)
    assert statistics.mean(r or 0.0 for r in residual) == pytest.approx(truth, rel=0.06)


@pytest.mark.parametrize(("seats", "bots"), [(2, 8), (4, 8), (6, 12)])
def test_the_pairs_own_dispersion_leaves_out_their_going_together(
    seats: int, bots: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same fields: each pair of equal bots is a fair coin, so the pairs' own
    dispersion (``pair_dispersion``, which scales Firth's pseudo-results under
    FIRTH_SCALES) reads 1 within 6% on every seat count, where the units' reads (seats + 1)
    / 3; a pair of two seats is its unit, so there the two are one figure."""
    monkeypatch.setattr(field_dispersion, "CURVED", True)
    pairs, units_read = [], []
    for seed in range(40):
        skills, units = sparse_field(bots, seats, 20 // (seats // 2), seed)
        reduced = field.field_of(skills, dispersion=dict.fromkeys(skills, 1.0), reduce_bias=True)
        pairs.append(field_dispersion.pair_dispersion(reduced, units) or 0.0)
        units_read.append(field_dispersion.unit_sums(reduced, units).pooled() or 0.0)
        if seats == 2:
            assert pairs[-1] == pytest.approx(units_read[-1], rel=1e-9)
    assert statistics.mean(pairs) == pytest.approx(1.0, rel=0.06)
    assert statistics.mean(units_read) == pytest.approx((seats + 1) / 3, rel=0.06)


def test_a_field_above_dense_bots_probes_its_leverages(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ladder-like field of 300 bots at 5 units a bot, its records' variances probed as a
    field above DENSE_BOTS probes them: each pair's within a fifth of the exact inverse's
    on average; the bias-reduced ratings' gap to the exact ones on average under a fifth
    of what Firth's correction moves them, and nowhere a third of a deviation (a probe's
    noise on a bot of five results: 0.25 of its deviation here)."""
    skills, _ = sparse_field(300, 2, 1500, 4)
    ones = dict.fromkeys(skills, 1.0)
    exact = field.field_of(skills, dispersion=ones, reduce_bias=True)
    plain = field.field_of(skills, dispersion=ones)
    deviation = field_deviations.against_mean(exact)
    links = field.stored_of(skills, None).links(ones, field.FIELD_PRIOR_DEVIATION)
    elo = np.fromiter((exact.elo[k] for k in links.keys), float, len(links.keys))
    matrix = system.gradient_and_precision(links, elo)[1]
    dense = field_bias.record_variances(links, matrix)
    monkeypatch.setattr(field_bias, "DENSE_BOTS", 100)
    probed = field_bias.record_variances(links, matrix)
    assert np.mean(np.abs(probed - dense) / dense) < 0.2
    reduced = field.field_of(skills, dispersion=ones, reduce_bias=True)
    gaps = {k: abs(reduced.elo[k] - exact.elo[k]) for k in skills}
    moved = statistics.mean(abs(plain.elo[k] - exact.elo[k]) for k in skills)
    assert statistics.mean(gaps.values()) < moved / 5
    assert max(gaps[k] / deviation[k] for k in skills) < 1 / 3


def small_field(share: float) -> field.Field[int]:
    """A bias-reduced field of 8 bots 30 Elo apart after one round robin, at its own
    spread, its deviations weighing in ``share`` of the penalty-fixed noise."""
    truth = {b: START_ELO + 30.0 * (b - 3.5) for b in range(8)}
    skills = round_robins(truth, 1, seed=3)
    reduced = field.field_of(skills, dispersion=dict.fromkeys(skills, 1.0), reduce_bias=True)
    return field_deviations.with_spread(dataclasses.replace(reduced, sandwich=share))


def test_a_share_of_firths_noise_reads_between_the_posterior_and_the_noise() -> None:
    """The deviations at the small field's share lie between the penalised posterior's
    and the penalty-fixed noise's, bot by bot; a page's one-bot reading
    (``Field.deviation``) gives the pass's (``field_deviations.against_mean``)."""
    variances = {
        w: field_deviations.covariance(small_field(w)).variances() for w in (0.0, 0.6, 1.0)
    }
    assert np.all(variances[1.0] < variances[0.6]) and np.all(variances[0.6] < variances[0.0])
    found = small_field(0.6)
    joint = field_deviations.against_mean(found)
    for bot in found.keys:
        assert found.deviation(bot) == pytest.approx(joint[bot], rel=1e-9)


def test_the_share_falls_with_the_field_and_with_the_matchmakers_part(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A two-seat field of up to SANDWICH_FROM bots no matchmaker seated takes
    SANDWICH_SMALL of the noise; the share falls to none at SANDWICH_TO bots, with the
    share of the units the ladder seated (a ladder keeps the posterior's width) and with
    the share of tables of more seats."""
    monkeypatch.setattr(field_bias, "SANDWICH_SMALL", 0.6)
    share = field_bias.sandwich_share
    assert share(2) == share(8) == share(field_bias.SANDWICH_FROM) == 0.6
    assert 0.0 < share(31) < 0.6 and share(field_bias.SANDWICH_TO) == share(500) == 0.0
    assert share(8, chosen=0.5) == pytest.approx(0.3) and share(8, chosen=1.0) == 0.0
    assert share(8, paired=0.5) == pytest.approx(0.3) and share(8, paired=0.0) == 0.0
