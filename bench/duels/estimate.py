"""The duel's Elo estimate and 95% interval after its sequential test, by simulation.

At each true Elo difference and pair shape it plays DUELS simulated duels the way the
service does (the default test [0, 20], alpha = beta = 0.05, the 4,000-game cap, rounds of
25 pairs as the server's DUEL_PAIRS_PER_ROUND, the LLR looked at after every pair): numpy
draws each round's pairs for every running duel at once, and each duel folds its round in
with the service's own code
(``DuelState.record_pairs``: the LLR of ``judge.duel.sprt`` after each pair, the stop at
the first that reaches a bound, the round's later pairs set aside as its overshoot). When
a duel ends it is estimated twice:

- plain: the Elo of B's mean score with m ± 1.96 sd / sqrt(pairs) (``sprt.estimate``, what
  the duel showed before issue 47);
- stopping-aware: ``DuelState.estimate`` (``judge.duel.stopped``), what it shows now.

For each it prints the interval's coverage (the share of duels whose interval holds the
true Elo, with its standard error; the goal 0.93-0.97), the estimate's bias (mean of
estimate - truth; the goal under 3 Elo at 0, 10 and 20), the bias among the duels that
accepted H1, and the interval's mean width; and the ratio of the two coverages' misses.
"games" are those the test counted; "overshoot" the games played after the decision in
its round on average (counted by neither estimate).

Shapes (the law of the pair categories 0, ½, 1, 1½, 2 points at Elo 0, exponentially
tilted to each point's mean score):
- ``oceans``: measured, a duel of two Oceans 11 house bots (bench/duels/sprt.py);
- ``bigtwo``: measured, 4-player Big Two duplicate pairs with the house greedy panel
  (``python -m judge duel bigtwo house:random house:random --seed 47 --max-games 600
  --pairs-per-round 50 --elo0 -1 --elo1 1 --alpha 0.001 --beta 0.001``: 45, 26, 149, 35
  and 45 of 300 pairs);
- ``fishtest``: fishtest-like, chess pairs with few pairs won twice (made up in the
  proportions of published fishtest runs: most pairs split or drawn twice).

Run: ``python -m bench.duels.estimate [--duels N] [--jobs J] [--shapes ...]
[--points ELO ...] [--pairs-per-round N] [--max-games N]``; ``--shapes`` and ``--points``
select cells. At the default 1,000 duels a cell, the 21 cells take about 3 minutes of CPU
(9 to 10 minutes of wall on two cores at load 11; docs/duels.md has the figures).
"""

from __future__ import annotations

import argparse
import math
import os
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from bench.duels.sprt import tilted
from judge.duel.sprt import Decision, Estimate, Sprt, estimate, logistic_score
from judge.duel.state import DuelState

SHAPES = {
    "oceans": (0.05, 0.0, 0.67, 0.02, 0.26),
    "bigtwo": (0.150, 0.087, 0.497, 0.117, 0.150),
    "fishtest": (0.01, 0.22, 0.54, 0.22, 0.01),
}
POINTS = (-10.0, 0.0, 5.0, 10.0, 15.0, 20.0, 30.0)
#: The service's default pairs per round (DUEL_PAIRS_PER_ROUND since issue 45; 10 before).
PAIRS_PER_ROUND = 25


@dataclass(frozen=True)
class Ended:
    """One simulated duel's end: its decision and both estimates."""

    decision: Decision
    games: int
    overshoot: int
    plain: Estimate
    aware: Estimate


def play(
    law: Sequence[float],
    duels: int,
    seed: int,
    per_round: int = PAIRS_PER_ROUND,
    test: Sprt | None = None,
) -> list[DuelState]:
    """``duels`` duels to their end, every running one's round drawn at once by numpy (in
    the order its pairs are played: the test looks after each)."""
    rng = np.random.default_rng(seed)
    states = [DuelState(test or Sprt()) for _ in range(duels)]
    running = list(range(duels))
    while running:
        drawn = rng.choice(5, size=(len(running), per_round), p=law) / 2.0
        for i, points in zip(running, drawn.tolist(), strict=True):
            states[i] = states[i].record_pairs(points[: states[i].pairs_next(per_round)])
        running = [i for i in running if states[i].decision is Decision.RUNNING]
    return states


def cell(shape: str, elo: float, duels: int, seed: int, per_round: int, cap: int) -> list[Ended]:
    """The duels of one shape at one true Elo, ended and estimated both ways."""
    law = tilted(SHAPES[shape], logistic_score(elo))
    ended = play(law, duels, seed, per_round, Sprt(max_games=cap))
    return [
        Ended(s.decision, s.penta.games, s.overshoot.games, estimate(s.penta), s.estimate())
        for s in ended
    ]


def covers(found: Estimate, truth: float) -> bool:
    low = -math.inf if found.low is None else found.low
    high = math.inf if found.high is None else found.high
    return low <= truth <= high


def summary(name: str, found: Sequence[Estimate], h1: Sequence[bool], truth: float) -> str:
    """One method's columns: coverage ± se, bias, bias given H1, mean width."""
    n = len(found)
    coverage = sum(covers(f, truth) for f in found) / n
    se = math.sqrt(coverage * (1 - coverage) / n) if 0 < coverage < 1 else 0.0
    elos = [f.elo - truth for f in found if f.elo is not None]
    given = [f.elo - truth for f, won in zip(found, h1, strict=True) if won and f.elo is not None]
    widths = [f.high - f.low for f in found if f.high is not None and f.low is not None]
    return (
        f"{coverage:.3f} ± {se:.3f} | {_mean(elos):+.1f} | {_mean(given):+.1f} | "
        f"{_mean(widths):.1f}"
    )


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def row(shape: str, elo: float, ended: list[Ended]) -> str:
    h1 = [e.decision is Decision.H1 for e in ended]
    plain = [e.plain for e in ended]
    aware = [e.aware for e in ended]
    missed = [sum(not covers(f, elo) for f in found) for found in (plain, aware)]
    ratio = missed[1] / missed[0] if missed[0] else math.nan
    games = sum(e.games for e in ended) / len(ended)
    overshoot = sum(e.overshoot for e in ended) / len(ended)
    return (
        f"| {shape} | {elo:+.0f} | {sum(h1) / len(ended):.3f} | {games:.0f} | {overshoot:.1f} | "
        f"{summary('plain', plain, h1, elo)} | {summary('aware', aware, h1, elo)} | "
        f"{ratio:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duels", type=int, default=1000, help="duels per cell (default 1000)")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--seed", type=int, default=47)
    parser.add_argument("--shapes", nargs="+", choices=sorted(SHAPES), default=list(SHAPES))
    parser.add_argument(
        "--pairs-per-round", type=int, default=PAIRS_PER_ROUND,
        help=f"pairs a round plays (default {PAIRS_PER_ROUND}, the service's; the test looks "
        "after every pair, so only the overshoot depends on it)",
    )  # fmt: skip
    parser.add_argument(
        "--max-games", type=int, default=Sprt().max_games, help="the game cap (default 4000)"
    )
    parser.add_argument(
        "--points", type=float, nargs="+", default=list(POINTS), metavar="ELO",
        help="true Elo differences (default: -10 0 5 10 15 20 30)",
    )  # fmt: skip
    args = parser.parse_args()
    if not 10 <= args.duels <= 100_000 or not 1 <= args.jobs <= 64:
        parser.error(
            f"--duels must be 10 to 100000 and --jobs 1 to 64, not {args.duels}, {args.jobs}"
        )
    if not 1 <= args.pairs_per_round <= 100 or not 0 <= args.max_games <= 100_000:
        parser.error(
            "--pairs-per-round must be 1 to 100 and --max-games 0 to 100000, not "
            f"{args.pairs_per_round}, {args.max_games}"
        )
    try:
        test = Sprt(max_games=args.max_games)
    except ValueError as error:
        parser.error(str(error))
    print(
        f"SPRT elo [{test.elo0:g}, {test.elo1:g}], alpha {test.alpha:g}, beta {test.beta:g}, "
        f"cap {test.max_games} games, rounds of {args.pairs_per_round} pairs; {args.duels} duels a "
        f"cell; load average {os.getloadavg()[0]:.1f}"
    )
    began = time.perf_counter()
    cells = [(shape, elo) for shape in args.shapes for elo in args.points]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        jobs = [
            pool.submit(
                cell,
                shape,
                elo,
                args.duels,
                args.seed + 1000 * i,
                args.pairs_per_round,
                args.max_games,
            )
            for i, (shape, elo) in enumerate(cells)
        ]
        print(
            "| shape | true Elo | P(H1) | games | overshoot | plain coverage | plain bias | plain"
            " bias given H1 | plain width | aware coverage | aware bias | aware bias given H1 |"
            " aware width | misses aware / plain |"
        )
        print("| --- " + "| ---: " * 13 + "|")
        for (shape, elo), job in zip(cells, jobs, strict=True):  # each row as it is ready
            print(row(shape, elo, job.result()), flush=True)
    print(
        f"took {time.perf_counter() - began:.0f} s; load average "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )


if __name__ == "__main__":
    main()
