"""Oceans 11 speed, and the house bots' strength.

Figures, each beside a baseline measured in the same run:
- random games per second for each variant through the engine (every action checked,
  observations not built), against the bare rules copy in judge.games.oceans11.bots.Playout
  playing whole games (sampled greedy on both sides, from the same deals); montecarlo
  itself only plays out the rest of the current hand;
- montecarlo's time per decision (mean, 95th percentile, worst) against its 50 ms budget;
- montecarlo's score against greedy over duplicate games (each deal from both seats),
  against the 50% of equal play, with a 95% interval.

Run: ``python -m bench.engines.oceans11 [--seconds S] [--games N]`` (about a minute).
"""

from __future__ import annotations

import argparse
import math
import random
import time

from bench._timing import rate
from judge.bots import Policy
from judge.games.oceans11 import VARIANTS, Oceans11
from judge.games.oceans11.bots import DEAL, GreedyPolicy, MonteCarloPolicy, Playout
from judge.hands import prepare

BUDGET_S = 0.05


def engine_rate(variant: str, seconds: float) -> float:
    rnd = random.Random(variant)
    seed = 0

    def work() -> int:
        nonlocal seed
        seed += 1
        game = Oceans11(seed, variant=variant)
        while not game.is_over():
            (seat,) = game.to_act()
            game.apply(seat, rnd.choice(game.legal_actions(seat)))
        return 1

    return rate(work, seconds)


def playout_rate(variant: str, seconds: float) -> float:
    spec = VARIANTS[variant]
    seed = 0

    def work() -> int:
        nonlocal seed
        seed += 1
        game = Oceans11(seed, variant=variant)  # for its decks; the playout plays them
        decks = [deck[1:] for deck in game.decks]
        rows = [[game.decks[0][0]], [game.decks[1][0]]]
        playout = Playout(spec, rows, decks, [0, 0])
        weaker = 0 if playout.rows[0].score < playout.rows[1].score else 1
        playout.finish(weaker, DEAL)
        return 1

    return rate(work, seconds)


def duplicate_match(games: int) -> tuple[float, list[float], int]:
    """Montecarlo's mean points against greedy, and every decision's time."""
    points, times = [], []
    for seed in range(games):
        for mc_seat in (0, 1):
            game = Oceans11(5000 + seed)
            bots: list[Policy] = [GreedyPolicy(), GreedyPolicy()]
            bots[mc_seat] = MonteCarloPolicy(seed)
            while not game.is_over():
                (seat,) = game.to_act()
                seen, legal = game.observation(seat), game.legal_actions(seat)
                start = time.perf_counter()
                action = bots[seat].act(seen, legal)
                if seat == mc_seat:
                    times.append(time.perf_counter() - start)
                game.apply(seat, action)
            mine, theirs = game.wins[mc_seat], game.wins[1 - mc_seat]
            points.append(1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
    return sum(points) / len(points), times, len(points)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per speed figure")
    parser.add_argument("--games", type=int, default=60, help="deals in the bot match")
    args = parser.parse_args()
    prepare()
    print("games per second: the engine with random play vs the bare playout with greedy play")
    for variant in VARIANTS:
        ours, bare = engine_rate(variant, args.seconds), playout_rate(variant, args.seconds)
        print(f"  {variant:12} {ours:8,.0f}/s   playout {bare:8,.0f}/s   ratio {ours / bare:5.2f}x")
    mean, times, played = duplicate_match(args.games)
    times.sort()
    p95 = times[int(0.95 * (len(times) - 1))]
    print(f"montecarlo per decision over {len(times)} decisions (budget {BUDGET_S * 1000:.0f} ms)")
    for label, value in (("mean", sum(times) / len(times)), ("p95", p95), ("worst", times[-1])):
        print(f"  {label:5} {value * 1000:6.1f} ms   ratio to budget {value / BUDGET_S:4.2f}x")
    half = 1.96 * math.sqrt(max(mean * (1 - mean), 1e-9) / played)
    print(
        f"montecarlo vs greedy: {mean:.1%} of points over {played} games "
        f"(95% interval {mean - half:.1%} to {mean + half:.1%}; equal play is 50%, "
        f"ratio {mean / 0.5:4.2f}x)"
    )


if __name__ == "__main__":
    main()
