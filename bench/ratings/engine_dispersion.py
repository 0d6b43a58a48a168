"""Why the real Oceans 11 ladder's one rating is a few percent narrow (issue 47).

Two parts, each against a baseline measured in the same run:

- ``pairs``: every pair of bots of a real-games library (bench/_engine_results.py) against
  the same pairs played by the calibration benches' game model (bench.ratings.calibration's
  ``SHAPES``, the bots ``calibration_ladder.STEP`` apart): the share of duplicate deals
  drawn, the score against the logistic model's at the field's fitted ratings (z), and
  the pair's dispersion (its units' squared scores over the model's p(1 - p): 1 is the
  model's coin flip). A pair's two-seat unit scores 1, 1/2 or 0, so its dispersion is
  1 - D / (4 p (1 - p)) with D its draw share: a game that draws often, and more often
  between some bots than others, has a dispersion well below 1 that differs by pair.
- ``--sites N``: N sites of the real ladder cell (``calibration_ladder.site``, the
  service's exploring ladder on the one rating), each checkpoint's field refitted as the
  field pass refits it (``field_dispersion.measured_field``: each bot's measured ratio
  shrunk towards the pooled one) and again with each bot's dispersion known (the oracle:
  the library's pair dispersions at the true ratings, averaged over the bot's records at
  that checkpoint, weighted by their information) and with every bot given the field's
  true mean dispersion (known, but one for all): coverage of each bot against the mean
  and of adjacent differences, and z sd. Where the oracle is in band and the measured
  one is not, the deviation is narrow because the dispersion is mis-measured.

``python -m bench.ratings.engine_dispersion [--game oceans11] [--sites 200] [--seed 3]``
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from bench import _engine_results
from bench.ratings import calibration_ladder as ladder
from bench.ratings.calibration import SHAPES
from bench.ratings.ladder_schedule import simulate
from tournaments.rating.model import (
    field_deviations,
    field_dispersion,
    field_system,
    tournament_fit,
)
from tournaments.rating.model.field import Field, field_of, stored_of
from tournaments.rating.model.global_rating import _S, CONVERGED, NEWTON_STEPS, Skill
from tournaments.rating.model.results import Z95, pairwise
from tournaments.rating.model.units import match_units

BOTS = 8
#: Deals per pair the model plays for the baseline (the library holds 300 per table).
MODEL_DEALS = 300

Pair = tuple[int, int]


def expected(true: Mapping[int, float], a: int, b: int) -> float:
    """The logistic model's expected score of a against b at the ratings ``true``."""
    return 1.0 / (1.0 + math.exp(-_S * (true[a] - true[b])))


def pair_scores(units: Sequence[tournament_fit.Placing[int]]) -> dict[Pair, list[float]]:
    """Each ordered pair's pairwise scores (both orders: a's score and b's)."""
    found: dict[Pair, list[float]] = {}
    for unit in units:
        for a, b, score in pairwise(unit.seats, unit.places):
            found.setdefault((a, b), []).append(score)
            found.setdefault((b, a), []).append(1.0 - score)
    return found


def dispersions(scores: Mapping[Pair, list[float]], true: Mapping[int, float]) -> dict[Pair, float]:
    """Each ordered pair's dispersion at the ratings ``true``."""
    found = {}
    for (a, b), values in scores.items():
        p = expected(true, a, b)
        found[a, b] = sum((s - p) ** 2 for s in values) / (len(values) * p * (1.0 - p))
    return found


def model_units(game: str, seats: int, rng: random.Random) -> list[tournament_fit.Placing[int]]:
    """MODEL_DEALS duplicate deals of every table of the model's field of BOTS bots."""
    units = []
    for table in itertools.combinations(range(BOTS), seats):
        skills = [ladder.STEP[BOTS] * bot for bot in table]
        for _ in range(MODEL_DEALS):
            result = simulate(SHAPES[game], skills, rng)
            units += [
                tournament_fit.Placing(table, places)
                for places in match_units(seats, result, duplicate=True, deals=1)
            ]
    return units


def fitted(units: Sequence[tournament_fit.Placing[int]]) -> dict[int, float]:
    return {b: f.elo for b, f in tournament_fit.fit_units(list(units), list(range(BOTS))).items()}


def print_pairs(game: str, seats: int, seed: int) -> dict[Pair, float]:
    """The per-pair table, the library beside the model; the library's dispersions."""
    library = _engine_results.library(game, seats, BOTS).units()
    sources = {"real": library, "model": model_units(game, seats, random.Random(seed))}
    found: dict[str, tuple[dict[Pair, list[float]], dict[int, float]]] = {}
    for name, units in sources.items():
        true = fitted(units)
        found[name] = (pair_scores(units), true)
        spread = max(true.values()) - min(true.values())
        print(f"{name}: {len(units):,} units, the field spans {spread:.0f} Elo")
    print(f"{'pair':<6} | real: draws  z     disp | model: draws  z     disp")
    totals = {name: [0.0, 0.0, 0.0] for name in sources}
    for a, b in itertools.combinations(range(BOTS), 2):
        cells = [f"{a}-{b:<4}"]
        for name, (scores, true) in found.items():
            values, p = scores[a, b], expected(true, a, b)
            draws = sum(s == 0.5 for s in values) / len(values)
            z = (statistics.fmean(values) - p) / math.sqrt(p * (1.0 - p) / len(values))
            spread = sum((s - p) ** 2 for s in values)
            totals[name][0] += z * z
            totals[name][1] += spread
            totals[name][2] += len(values) * p * (1.0 - p)
            cells.append(f"{draws:5.2f} {z:+5.2f} {spread / (len(values) * p * (1 - p)):5.2f}")
        print(" | ".join(cells))
    pairs = math.comb(BOTS, 2)
    for name, (chi, spread, information) in totals.items():
        print(
            f"{name}: sum of z^2 {chi:.1f} over {pairs} pairs ({pairs - BOTS + 1} degrees of "
            f"freedom: the logistic fit's misfit), pooled dispersion {spread / information:.3f}"
        )
    scores, true = found["real"]
    return dispersions(scores, true)


def known_field(skills: Mapping[int, Skill], tempering: Callable[[int], float]) -> Field[int]:
    """The field refitted as the pass refits it, each bot's records tempered by
    ``tempering(bot)`` instead of a measured dispersion."""
    stored = stored_of(skills, None)
    base = stored.links(None)
    given = np.fromiter((tempering(stored.keys[b]) for b in base.bot), float, len(base.bot))
    links = field_system.Links(
        base.keys, base.bot, base.other, base.results, base.score, base.seen, given,
        stored.structure,
    )  # fmt: skip
    plain = field_of(skills, None, dispersion=dict.fromkeys(skills, 1.0))
    elo = field_system.refit(links, links.vector(plain.elo), NEWTON_STEPS, CONVERGED)
    matrix = field_system.gradient_and_precision(links, elo)[1]
    return Field(dict(zip(links.keys, elo.tolist(), strict=True)), links.keys, matrix)


def oracle(
    skills: Mapping[int, Skill], true: Mapping[int, float], pairs: Mapping[Pair, float]
) -> tuple[dict[int, float], float]:
    """Each bot's true dispersion over its records (their information's weighted mean
    of its pairs' dispersions), and the field's (every record's)."""
    own, weights = {}, {}
    for bot, skill in skills.items():
        weight = {
            o: r.results * expected(true, bot, o) * (1.0 - expected(true, bot, o))
            for o, r in skill.records.items()
        }
        weights[bot] = sum(weight.values())
        own[bot] = sum(w * pairs[bot, o] for o, w in weight.items()) / weights[bot]
    pooled = sum(own[b] * weights[b] for b in own) / sum(weights.values())
    return own, pooled


METHODS = ("measured", "known mean", "known per bot")


def print_sites(game: str, seats: int, sites: int, seed: int, pairs: Mapping[Pair, float]) -> None:
    """Coverage of the ladder cell's one rating with the dispersion measured, known for
    the field as a whole, and known for each bot."""
    setting = ladder.Setting("linked", game, seats, BOTS, results="engine")
    true = _engine_results.library(game, seats, BOTS).truth()
    rng = random.Random(seed)
    skills = {b: ladder.STEP[BOTS] * b for b in range(BOTS)}
    z: dict[tuple[int, str, str], list[float]] = {}
    began = time.perf_counter()
    for _ in range(sites):
        snapshots, _tables = ladder.site(setting, skills, rng)
        for plays, snapshot in snapshots.items():
            own, pooled = oracle(snapshot.skills, true, pairs)
            fields = {
                "measured": field_dispersion.measured_field(
                    snapshot.skills, snapshot.units, chosen=snapshot.chosen
                ),
                "known mean": known_field(snapshot.skills, dict.fromkeys(own, pooled).__getitem__),
                "known per bot": known_field(snapshot.skills, own.__getitem__),
            }
            for method, found in fields.items():
                for kind, values in errors(found, true).items():
                    z.setdefault((plays, method, kind), []).extend(values)
    seconds = time.perf_counter() - began
    print(f"\nthe real ladder cell, {sites} sites, seed {seed} ({seconds:.0f} s)")
    print(f"{'plays':>5} | " + " | ".join(f"{m + ': bot  diff zsd':<27}" for m in METHODS))
    for plays in ladder.CHECKPOINTS:
        cells = []
        for method in METHODS:
            bot, diff = z[plays, method, "bot"], z[plays, method, "diff"]
            cells.append(
                f"{' ' * (len(method) - 3)}{covered(bot):.3f} {covered(diff):.3f} "
                f"{statistics.pstdev(bot):4.2f}"
            )
        print(f"{plays:>5} | " + " | ".join(cells))


def errors(found: Field[int], true: Mapping[int, float]) -> dict[str, list[float]]:
    """Each bot's error against the field's mean, and each adjacent pair's, in deviations."""
    rated = sorted(found.elo)
    mean, true_mean = (statistics.fmean(v[b] for b in rated) for v in (found.elo, true))
    deviations = field_deviations.against_mean(found)
    adjacent = list(itertools.pairwise(sorted(rated, key=true.__getitem__)))
    pair_deviations = field_deviations.differences(found, [(b, a) for a, b in adjacent])
    bot = [((found.elo[b] - mean) - (true[b] - true_mean)) / deviations[b] for b in rated]
    diff = [
        ((found.elo[b] - found.elo[a]) - (true[b] - true[a])) / d
        for (a, b), d in zip(adjacent, pair_deviations, strict=True)
    ]
    return {"bot": bot, "diff": diff}


def covered(z: Sequence[float]) -> float:
    return sum(abs(v) <= Z95 for v in z) / max(len(z), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="oceans11", choices=sorted(SHAPES))
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--sites", type=int, default=0, help="also run the ladder cell")
    parser.add_argument("--seed", type=int, default=1, help="as calibration_ladder's --seed")
    args = parser.parse_args()
    pairs = print_pairs(args.game, args.seats, args.seed)
    if args.sites:  # calibration_ladder's seed for its first cell
        print_sites(args.game, args.seats, args.sites, args.seed * 1000, pairs)


if __name__ == "__main__":
    main()
