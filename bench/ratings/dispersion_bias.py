"""How far the field pass's pooled dispersion reads from the units' own at few plays
(issue 47).

On one calibration cell (``calibration_ladder.site``: its schedule, model or real games),
at each checkpoint of 5, 10 and 20 plays a bot, the pooled ratio of the site's units
(squared unit scores over their expected values, ``field_dispersion.unit_sums``) three
ways, summed over the sites:

- ``pass``: as the field pass measured it before issue 47's one rating, at the plain fit
  (prior 500, dispersion 1), its leverage from that fit's covariance;
- ``truth``: the same units scored at the true ratings, no leverage: the baseline, what the
  dispersion is;
- ``at spread``: at a plain fit under the field's own spread (``field_spread``; the
  experiment ``field_dispersion.MEASURE_AT_SPREAD``);
- ``curved``: as the pass, but each pair's expected p(1-p) moved from the fit's place
  toward the truth's, to second order: f(d) = f(d_hat) - f''(d_hat) var(d_hat) / 2, the
  fitted difference's variance from the field's covariance counting its spread
  (``field_deviations.with_spread``). The fit's ratings are spread wider than the truth's
  at few plays, so their p(1-p) is smaller: the information at the truth over the
  information at the fit is what ``pass`` over-reads (1.165 against 1.156 at 5 plays on
  the closed Big Two 4p of 8). Averaging p(1-p) over the fitted difference's uncertainty
  instead goes the other way (1.79 there): the fit is wide, not merely noisy.
- ``firth``: as the pass, at the plain fit with its small-sample bias taken away
  (``field_bias``; the experiment ``field_dispersion.REDUCE_BIAS``);
- ``firth curved``: at that fit, curved, the fitted differences' variance the plain
  covariance's times the dispersion being measured (a unit of four or six seats varies
  1.5-2 times its pairs' information, and so do the ratings fitted to it).

- ``residual`` and ``firth residual``: at the plain fit and at Firth's, the information
  read from the results rather than from p(1-p) at the fit (a pair's squared residual plus
  a quarter for a draw; the experiment ``field_dispersion.RESIDUAL_INFORMATION``), what
  the fit absorbed added back at the dispersion being measured.

The ratio pass / truth is the bias the deviations carry (their width goes with its square
root). docs/ratings.md, "The deviation counting the field's own spread, tried".

``python -m bench.ratings.dispersion_bias [--schedule closed] [--game bigtwo] [--seats 4]
[--bots 8] [--sites 30] [--results model]``
"""

from __future__ import annotations

import argparse
import random

import numpy as np

from bench.ratings import calibration_ladder as ladder
from tournaments.rating.model import field, field_deviations, field_dispersion
from tournaments.rating.model.global_rating import _S
from tournaments.rating.model.results import pairwise
from tournaments.rating.model.tournament_fit import Placing


def sums(found: field.Field[int], units: list[Placing[int]]) -> tuple[float, float]:
    """The units' squared scores and expected ones at ``found`` (its leverage included)."""
    measured = field_dispersion.unit_sums(found, units)
    return sum(measured.spread.values()), sum(measured.information.values())


def residual_sums(found: field.Field[int], units: list[Placing[int]]) -> np.ndarray:
    """The four sums ``field_dispersion.RESIDUAL_INFORMATION`` reads the dispersion from."""
    saved = field_dispersion.RESIDUAL_INFORMATION
    field_dispersion.RESIDUAL_INFORMATION = True
    try:
        measured = field_dispersion.unit_sums(found, units)
    finally:
        field_dispersion.RESIDUAL_INFORMATION = saved
    kept = (measured.spread, measured.leverage, measured.residual, measured.pair_leverage)
    return np.array([sum(k.values()) for k in kept])


def at_truth(plain: field.Field[int], true: dict[int, float], units: list) -> tuple[float, float]:
    """The same sums with every rating at its truth (shifted to the fit's mean) and no
    leverage: each (unit, bot) row's squared score over its information."""
    keys = plain.keys
    shift = np.mean([plain.elo[k] for k in keys]) - np.mean([true[k] for k in keys])
    truth = field.Field({k: true[k] + shift for k in keys}, keys, plain.csr)
    rows = field_dispersion._unit_rows(truth, field_dispersion._pairs(truth, units))
    if rows is None:
        return 0.0, 0.0
    _, _, value, score, own = rows
    return float(np.sum(score**2)), float(np.sum(value[own]))


def curved(
    found: field.Field[int], units: list[Placing[int]], scaled: bool = False
) -> tuple[float, float]:
    """The pass's sums with each pair's information moved from the fit's p(1-p) to its
    second-order value at the truth (``f - f'' var / 2``), the leverage kept. ``scaled``:
    the fitted differences' variance is the dispersion times the plain fit's, so the
    dispersion solves d = spread / (expected + d moved): the sums returned give it."""
    spread, expected = sums(found, units)
    index = found.index
    pairs = [
        (index[a], index[b])
        for unit in units
        for a, b, _ in pairwise(unit.seats, unit.places)
        if a in index and b in index
    ]
    if not pairs:
        return spread, expected
    left, right = (np.asarray(c) for c in zip(*pairs, strict=True))
    covariance = field_deviations.covariance(field_deviations.with_spread(found))
    variance = (
        covariance.entries(left, left)
        + covariance.entries(right, right)
        - 2.0 * covariance.entries(left, right)
    )
    elo = np.fromiter((found.elo[k] for k in found.keys), float, len(found.keys))
    p = 1.0 / (1.0 + np.exp(-_S * (elo[left] - elo[right])))
    f = p * (1.0 - p)
    second = _S * _S * f * (1.0 - 6.0 * f)
    moved = 2.0 * _S * _S * float(np.sum(-0.5 * second * variance))  # both sides' rows
    if scaled and moved > 0.0:
        dispersion = (-expected + np.sqrt(expected**2 + 4.0 * moved * spread)) / (2.0 * moved)
        return spread, spread / dispersion
    return spread, expected + moved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schedule", default="closed", choices=("linked", "closed", "open"))
    parser.add_argument("--game", default="bigtwo")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--sites", type=int, default=30)
    parser.add_argument("--results", default="model", choices=("model", "engine"))
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    setting = ladder.Setting(args.schedule, args.game, args.seats, args.bots, args.results)
    rng = random.Random(args.seed)
    skills = {b: ladder.STEP[args.bots] * b for b in range(args.bots)}
    true = ladder.truth(setting, skills, random.Random(args.seed + 1), 5000 * args.bots)
    ways = ("pass", "truth", "at spread", "curved", "firth", "firth curved")
    totals = {c: {w: np.zeros(2) for w in ways} for c in ladder.CHECKPOINTS}
    residual_ways = ("residual", "firth residual")
    residuals = {c: {w: np.zeros(4) for w in residual_ways} for c in ladder.CHECKPOINTS}
    for number in range(1, args.sites + 1):
        snapshots, _ = ladder.site(setting, skills, rng)
        for plays, snap in snapshots.items():
            ones = dict.fromkeys(snap.skills, 1.0)
            plain = field.field_of(snap.skills, dispersion=ones)
            spread = field_deviations.with_spread(plain).spread
            under = field.field_of(snap.skills, dispersion=ones, start=plain.elo, prior=spread)
            firth = field.field_of(snap.skills, dispersion=ones, reduce_bias=True)
            found = {
                "pass": sums(plain, snap.units),
                "truth": at_truth(plain, true, snap.units),
                "at spread": sums(under, snap.units),
                "curved": curved(plain, snap.units),
                "firth": sums(firth, snap.units),
                "firth curved": curved(firth, snap.units, scaled=True),
            }
            for way, pair in found.items():
                totals[plays][way] += pair
            residuals[plays]["residual"] += residual_sums(plain, snap.units)
            residuals[plays]["firth residual"] += residual_sums(firth, snap.units)
        if number % 10 == 0:
            print(f"{number}/{args.sites} sites", flush=True)
    print(f"pooled dispersion of {setting.label()}, {args.results}, {args.sites} sites")
    for plays, by in totals.items():
        ratios = {w: s / max(e, 1e-12) for w, (s, e) in by.items()}
        for way, kept in residuals[plays].items():
            ratios[way] = field_dispersion._residual_ratio(*kept) or float("nan")
        cells = " ".join(f"{w} {r:.3f}" for w, r in ratios.items())
        print(f"{plays:>3} plays: {cells}  pass / truth {ratios['pass'] / ratios['truth']:.3f}")


if __name__ == "__main__":
    main()
