"""The duel's sequential test against its theory, by simulation (judge.duel).

At each of several true Elo differences it runs DUELS simulated duels (pairs drawn from a
pentanomial law of that mean, the LLR of ``judge.duel.sprt`` checked after every pair, as
the service does, no game cap) and prints, beside the theory's figures for the same point
(``judge.duel.theory``: Wald's operating characteristic and average sample number):
- how often H1 was accepted, with its standard error, and the theory's chance;
- the achieved error rate where one is defined (alpha at elo0, beta at elo1) and its
  ratio to the nominal one (the goal: at most 1, give or take two standard errors);
- the average number of games and its ratio to the theory's;
- the share of duels the default game cap would have cut short.

The pair law is a shape tilted to each point's mean. ``--shape oceans`` (the default) is
measured: the pairs of ``python -m judge duel oceans11 house:greedy house:montecarlo
--seed 7 --max-games 200`` (100 pairs: 5, 0, 67, 2, 26 from 0 to 2 points; duplicate
Oceans 11 splits two pairs in three). ``--shape draws`` is made up, with many half points
(a game drawn in one pair in four). Tilting multiplies category i by
exp(t * score_i), with t set so the mean is the point's expected score: the law nearest
the shape (in relative entropy) with that mean.

Run: ``python -m bench.duels.sprt [--duels N] [--jobs J] [--points ELO ...]`` (about 4
minutes of one core per shape at the default 1,000 duels per point).
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from judge.duel.sprt import PAIR_SCORES, Decision, Pentanomial, Sprt, logistic_score
from judge.duel.theory import expected

#: Pair laws at Elo 0 (categories 0 to 2 points): see the module's docstring.
SHAPES = {
    "oceans": (0.05, 0.0, 0.67, 0.02, 0.26),
    "draws": (0.08, 0.14, 0.56, 0.14, 0.08),
}
#: True Elo differences simulated, around the default bounds [0, 20].
POINTS = (-10.0, 0.0, 5.0, 10.0, 15.0, 20.0, 30.0)


def tilted(shape: Sequence[float], mean: float) -> list[float]:
    """``shape`` exponentially tilted to ``mean`` (bisection on the tilt)."""

    def law(tilt: float) -> list[float]:
        raw = [p * math.exp(tilt * s) for p, s in zip(shape, PAIR_SCORES, strict=True)]
        return [r / sum(raw) for r in raw]

    low, high = -50.0, 50.0
    for _ in range(100):
        middle = (low + high) / 2
        if sum(p * s for p, s in zip(law(middle), PAIR_SCORES, strict=True)) < mean:
            low = middle
        else:
            high = middle
    return law((low + high) / 2)


def variance(law: Sequence[float]) -> float:
    mean = sum(p * s for p, s in zip(law, PAIR_SCORES, strict=True))
    return sum(p * (s - mean) ** 2 for p, s in zip(law, PAIR_SCORES, strict=True))


def one_duel(test: Sprt, law: Sequence[float], rnd: random.Random) -> tuple[bool, int]:
    """(H1 accepted, pairs played) of one simulated duel."""
    penta, cumulative = Pentanomial(), _cumulative(law)
    while True:
        drawn = rnd.choices(range(5), cum_weights=cumulative)[0]
        penta = penta.add(drawn / 2)
        decision = test.decide(test.llr(penta), penta.games)
        if decision is not Decision.RUNNING:
            return decision is Decision.H1, penta.pairs


def _cumulative(law: Sequence[float]) -> list[float]:
    total, out = 0.0, []
    for p in law:
        total += p
        out.append(total)
    return out


@dataclass(frozen=True)
class Point:
    """What the duels at one true Elo achieved."""

    elo: float
    h1: int
    duels: int
    pairs: list[int]


def simulate(elo: float, shape: str, duels: int, seed: int) -> Point:
    test = Sprt(max_games=0)
    law = tilted(SHAPES[shape], logistic_score(elo))
    rnd = random.Random(f"{seed}/{elo}")
    results = [one_duel(test, law, rnd) for _ in range(duels)]
    return Point(elo, sum(h1 for h1, _ in results), duels, [pairs for _, pairs in results])


def row(point: Point, shape: str) -> str:
    test, cap_pairs = Sprt(max_games=0), Sprt().max_games // 2
    law = tilted(SHAPES[shape], logistic_score(point.elo))
    theory = expected(test, logistic_score(point.elo), variance(law))
    rate = point.h1 / point.duels
    error = math.sqrt(max(rate * (1 - rate), 1e-12) / point.duels)
    games = 2 * sum(point.pairs) / point.duels
    capped = sum(pairs > cap_pairs for pairs in point.pairs) / point.duels
    return (
        f"| {point.elo:+.0f} | {rate:.3f} ± {error:.3f} | {theory.p_h1:.3f} | "
        f"{_error_text(point.elo, rate, test)} | {games:.0f} | {2 * theory.pairs:.0f} | "
        f"{games / (2 * theory.pairs):.2f} | {100 * capped:.1f}% |"
    )


def _error_text(elo: float, rate: float, test: Sprt) -> str:
    if elo == test.elo0:
        return f"alpha {rate:.3f} ({rate / test.alpha:.2f} of {test.alpha:g})"
    if elo == test.elo1:
        return f"beta {1 - rate:.3f} ({(1 - rate) / test.beta:.2f} of {test.beta:g})"
    return "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duels", type=int, default=1000, help="duels per point (default 1000)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--shape", choices=sorted(SHAPES), default="oceans")
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument(
        "--points", type=float, nargs="+", default=list(POINTS), metavar="ELO",
        help="true Elo differences (default: -10 0 5 10 15 20 30)",
    )  # fmt: skip
    args = parser.parse_args()
    if not 1 <= args.duels <= 100_000 or not 1 <= args.jobs <= 64:
        parser.error(
            f"--duels must be 1 to 100000 and --jobs 1 to 64, not {args.duels}, {args.jobs}"
        )
    test = Sprt()
    print(
        f"SPRT elo [{test.elo0:g}, {test.elo1:g}] logistic, alpha {test.alpha:g}, beta "
        f"{test.beta:g}; {args.duels} duels per point, shape {args.shape} "
        f"{SHAPES[args.shape]}; no cap (cut short by the default {test.max_games}: last column)"
    )
    began = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        jobs = [pool.submit(simulate, e, args.shape, args.duels, args.seed) for e in args.points]
        points = [job.result() for job in jobs]
    print(
        "| true Elo | P(H1) achieved | P(H1) theory | error rate | games | theory | ratio |"
        " over cap |"
    )
    print("| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    for point in points:
        print(row(point, args.shape))
    print(f"took {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
