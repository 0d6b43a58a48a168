"""Choosing the global rating's drift: order noise against the speed of following a change.

The global rating (tournaments.skill) moves once per comparison unit; its one free
parameter is the drift (``skill.DRIFT``, Elo per unit), which keeps a bot's variance
from shrinking to nothing so that the rating follows a bot whose later versions play
better. More drift follows faster and costs noise: the final rating then depends more on
the order in which the same results came. This prints, for several drifts and, as the
baseline measured in the same run, the old per-match Elo with K = 32
(``ratings.elo_update``):

- order noise: six bots of known strength play the same matches (each pair 20 games,
  as 20 matches of 1 game or 4 matches of 5 games); the matches are replayed in many
  random orders, and the noise is the standard deviation of a bot's final rating across
  orders (mean over bots);
- scale: the spread of the final ratings with 5 games per match over their spread with
  1 game per match (1.00: a rating does not depend on games per pairing);
- following: after every bot is well rated, one bot gets stronger (about +180 Elo); the
  units (its games, one per match) until its rating, averaged over many runs, has closed
  50% and 90% of the gap.

The games are bench_calibration's models (Big Two shaped, two players, no duplicate
deals); every result goes through the project's own code (tournaments.units,
tournaments.skill, tournaments.ratings). ``--quick``: fewer orders and runs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bench.bench_calibration import BOTS, SKILL_STEP, Cell, play_match
from tournaments import ratings, skill
from tournaments.units import match_units

CELL = Cell("bigtwo", 2, False)
GAMES_PER_PAIR = 20
#: Round robins (fresh games) the scale is averaged over.
REALIZATIONS = 6
DRIFTS = (0.0, 1.0, 2.0, 4.0, 8.0, 16.0)
#: The bot that gets stronger, and by how much (performance units: about +180 Elo).
JUMPER = 2
JUMP = 1.5
WARM_MATCHES = 3000
AFTER_MATCHES = 2400

Match = tuple[tuple[int, int], tuple[int, ...], list[tuple[int, ...]]]  # table, places, units


@dataclass(frozen=True)
class Method:
    """A way of rating: per match with K = 32, or per unit with a drift."""

    label: str
    drift: float | None  # None: the old per-match Elo

    def rate(self, state: dict[int, object], match: Match) -> None:
        table, places, units = match
        if self.drift is None:
            elos = {b: float(v) for b, v in state.items()}  # type: ignore[arg-type]
            state.update(ratings.elo_update(elos, ratings.Placing(table, places)))
        else:
            skills = {b: v for b, v in state.items() if isinstance(v, skill.Skill)}
            placings = [ratings.Placing(table, u) for u in units]
            state.update(skill.rate_units(skills, placings, self.drift))

    def elo(self, state: dict[int, object], bot: int) -> float:
        value = state.get(bot)
        if value is None:
            return ratings.START_ELO
        return value.elo if isinstance(value, skill.Skill) else float(value)  # type: ignore[arg-type]


METHODS = [Method("K=32 per match", None)] + [Method(f"per unit, drift {d:g}", d) for d in DRIFTS]


def played(
    table: tuple[int, int], games: int, rng: random.Random, strength: Callable[[int], float]
) -> Match:
    result = play_match(CELL, table, games, rng, strength)
    units = match_units(2, result, duplicate=False, deals=games)
    return table, tuple(result["places"]), units


def base(bot: int) -> float:
    return SKILL_STEP * bot


def round_robin(games_per_match: int, rng: random.Random) -> list[Match]:
    """Every pair plays GAMES_PER_PAIR games, in matches of ``games_per_match``."""
    matches = []
    for a in range(BOTS):
        for b in range(a + 1, BOTS):
            for m in range(GAMES_PER_PAIR // games_per_match):
                table = (a, b) if m % 2 == 0 else (b, a)
                matches.append(played(table, games_per_match, rng, base))
    return matches


def final(method: Method, matches: Sequence[Match]) -> list[float]:
    state: dict[int, object] = {}
    for match in matches:
        method.rate(state, match)
    return [method.elo(state, bot) for bot in range(BOTS)]


def order_noise(method: Method, matches: list[Match], orders: int, seed: int) -> float:
    """Mean over bots of the sd of its final rating across random orders of ``matches``."""
    rng = random.Random(seed)
    finals = []
    for _ in range(orders):
        shuffled = matches[:]
        rng.shuffle(shuffled)
        finals.append(final(method, shuffled))
    return statistics.fmean(statistics.stdev(f[bot] for f in finals) for bot in range(BOTS))


def scale(method: Method, seed: int) -> float:
    """The spread (sd over bots) of the final ratings with 5 games per match over that
    with 1, each averaged over REALIZATIONS round robins of fresh games."""
    rng = random.Random(seed)
    spreads = {
        games: statistics.fmean(
            statistics.pstdev(final(method, round_robin(games, rng))) for _ in range(REALIZATIONS)
        )
        for games in (1, 5)
    }
    return spreads[5] / spreads[1]


def following(methods: Sequence[Method], runs: int, seed: int) -> dict[str, list[float]]:
    """Per method, the jumper's rating after each of its units following the jump,
    averaged over ``runs`` runs (the same games for every method), minus its rating
    at the jump."""
    traces: dict[str, list[list[float]]] = {m.label: [] for m in methods}
    for run in range(runs):
        rng = random.Random(seed + run)
        before = [_pair_match(rng, base) for _ in range(WARM_MATCHES)]
        stronger = lambda bot: base(bot) + (JUMP if bot == JUMPER else 0.0)  # noqa: E731
        after = [_pair_match(rng, stronger) for _ in range(AFTER_MATCHES)]
        for method in methods:
            state: dict[int, object] = {}
            for match in before:
                method.rate(state, match)
            start = method.elo(state, JUMPER)
            trace = []
            for match in after:
                method.rate(state, match)
                if JUMPER in match[0]:
                    trace.append(method.elo(state, JUMPER) - start)
            traces[method.label].append(trace)
    return {
        label: [statistics.fmean(t[i] for t in runs_) for i in range(min(map(len, runs_)))]
        for label, runs_ in traces.items()
    }


def _pair_match(rng: random.Random, strength: Callable[[int], float]) -> Match:
    table = tuple(rng.sample(range(BOTS), 2))
    return played((table[0], table[1]), 1, rng, strength)


def true_gap(seed: int, pool: int) -> float:
    """The jumper's true gain in Elo: the fit to a large pool before and after the jump."""
    gains = []
    for jump in (0.0, JUMP):
        rng = random.Random(seed)
        strength = lambda bot, j=jump: base(bot) + (j if bot == JUMPER else 0.0)  # noqa: E731
        units = []
        for _ in range(pool):
            table, _, match = _pair_match(rng, strength)
            units += [ratings.Placing(table, u) for u in match]
        gains.append(ratings.fit_units(units, range(BOTS))[JUMPER].elo)
    return gains[1] - gains[0]


def units_to(trace: list[float], target: float) -> str:
    for i, value in enumerate(trace, start=1):
        if value >= target:
            return str(i)
    return f">{len(trace)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer orders and runs")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    orders, runs, pool = (30, 12, 20_000) if args.quick else (100, 40, 60_000)
    began = time.perf_counter()
    rng = random.Random(args.seed)
    one = round_robin(1, rng)
    five = round_robin(5, rng)
    gap = true_gap(args.seed, pool)
    trace = following(METHODS, runs, args.seed * 101)
    print(f"{BOTS} bots, {GAMES_PER_PAIR} games per pair; {orders} orders; {runs} runs")
    print(f"the stronger bot's true gain: {gap:.0f} Elo\n")
    head = f"{'method':<22} {'noise 1/m':>9} {'noise 5/m':>9} {'vs K=32':>8} {'scale':>6}"
    print(f"{head} {'50%':>6} {'90%':>6}  units to follow")
    baseline = 0.0
    for method in METHODS:
        noise1 = order_noise(method, one, orders, args.seed)
        noise5 = order_noise(method, five, orders, args.seed)
        stretch = scale(method, args.seed)
        baseline = baseline or noise1
        print(
            f"{method.label:<22} {noise1:>9.1f} {noise5:>9.1f} {noise1 / baseline:>7.2f}x "
            f"{stretch:>6.2f} {units_to(trace[method.label], 0.5 * gap):>6} "
            f"{units_to(trace[method.label], 0.9 * gap):>6}"
        )
    print(
        "\nnoise: sd of a final rating across match orders (Elo), 1 or 5 games per match;"
        "\nvs K=32: the 1-game noise over the old rating's; scale: spread of the final"
        "\nratings with 5 games per match over 1 (1.00: games per pairing do not matter);"
        f"\nunits to follow: games of the stronger bot (after {WARM_MATCHES} matches of"
        "\nwarm-up) until its mean rating closed 50% / 90% of its true gain."
    )
    print(f"\n{time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
