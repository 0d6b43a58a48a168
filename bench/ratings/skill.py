"""Following a new version: order noise against the speed of following.

The global rating (rating.model.global_rating) fits each bot to its records after every rated
match. A bot version is a fixed program, so the rating follows a bot that gets stronger
only when a new version of it is first rated: its earlier results then count less, as
if its variance widened by ``global_rating.VERSION_DEVIATION``. This prints, for the rating and
several version deviations and, as the baseline measured in the same run, the old
per-match Elo with K = 32 (``tournament_fit.elo_update``):

- order noise: six bots of known strength play the same matches (each pair 20 games,
  as 20 matches of 1 game or 4 matches of 5 games); the matches are replayed in many
  random orders, and the noise is the standard deviation of a bot's final rating across
  orders (mean over bots);
- scale: the spread of the final ratings with 5 games per match over their spread with
  1 game per match (1.00: a rating does not depend on games per pairing);
- following: after every bot is well rated, one bot gets stronger (about +180 Elo) with
  a new version (rated with ``new_versions``); the units (its games, one per match)
  until its rating, averaged over many runs, has closed 50% and 90% of the gap; and the
  tracking error (root mean square over runs and over its first 100 units after the
  change, of its rating's gain less the true gain), both for that gain and for a new
  version that plays exactly as the last one (gain 0): a wide version deviation follows
  a real gain fast, and costs noise when nothing changed.

The games are bench.ratings.calibration's models (Big Two shaped, two players, no duplicate
deals); every result goes through the project's own code (tournaments.rating.model:
units, global_rating, tournament_fit). ``--quick``: fewer orders and runs.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bench.ratings.calibration import BOTS, SKILL_STEP, Cell, play_match
from tournaments.rating.model import global_rating, tournament_fit
from tournaments.rating.model.units import match_units

CELL = Cell("bigtwo", 2, False)
GAMES_PER_PAIR = 20
#: Round robins (fresh games) the scale is averaged over.
REALIZATIONS = 6
#: Version deviations tried, Elo.
VERSIONS = (0.0, 50.0, 75.0, 100.0, 125.0, 150.0, 200.0, 300.0)
#: Units after the change over which the tracking error is taken.
TRACKED = 100
#: The bot that gets stronger, and by how much (performance units: about +180 Elo).
JUMPER = 2
JUMP = 1.5
WARM_MATCHES = 3000
AFTER_MATCHES = 2400

Match = tuple[tuple[int, int], tuple[int, ...], list[tuple[int, ...]]]  # table, places, units


@dataclass(frozen=True)
class Method:
    """A way of rating: per match with K = 32, or fitted to the records with a version
    deviation."""

    label: str
    fitted: bool  # False: the old per-match Elo
    version: float = global_rating.VERSION_DEVIATION

    def rate(
        self,
        state: dict[int, object],
        match: Match,
        new: frozenset[int] = frozenset(),
        versions: dict[int, object] | None = None,
    ) -> None:
        table, places, units = match
        if not self.fitted:
            elos = {b: float(v) for b, v in state.items()}  # type: ignore[arg-type]
            state.update(tournament_fit.elo_update(elos, tournament_fit.Placing(table, places)))
        else:
            skills = {b: v for b, v in state.items() if isinstance(v, global_rating.Skill)}
            placings = [tournament_fit.Placing(table, u) for u in units]
            state.update(global_rating.rate_units(skills, placings, new, self.version, versions))

    def elo(self, state: dict[int, object], bot: int) -> float:
        value = state.get(bot)
        if value is None:
            return tournament_fit.START_ELO
        return value.elo if isinstance(value, global_rating.Skill) else float(value)  # type: ignore[arg-type]


METHODS = [Method("K=32 per match", False), Method("fitted to records", True)]
FOLLOWERS = [Method(f"version {v:g}", True, v) for v in VERSIONS]


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


def following(
    methods: Sequence[Method], runs: int, seed: int, jump: float = JUMP
) -> dict[str, list[list[float]]]:
    """Per method and run, the jumper's rating after each of its units following the
    jump (which comes with a new version), minus its rating at the jump (the same games
    for every method)."""
    traces: dict[str, list[list[float]]] = {m.label: [] for m in methods}
    for run in range(runs):
        rng = random.Random(seed + run)
        before = [_pair_match(rng, base) for _ in range(WARM_MATCHES)]
        stronger = lambda bot: base(bot) + (jump if bot == JUMPER else 0.0)  # noqa: E731
        after = [_pair_match(rng, stronger) for _ in range(AFTER_MATCHES)]
        for method in methods:
            state: dict[int, object] = {}
            for match in before:
                method.rate(state, match)
            start = method.elo(state, JUMPER)
            trace = []
            new = frozenset({JUMPER})
            second = {JUMPER: (JUMPER, 2)}  # the others' records of it: a new version's
            for match in after:
                if JUMPER in match[0]:
                    method.rate(state, match, new, second)
                    new = frozenset()
                    trace.append(method.elo(state, JUMPER) - start)
                else:
                    method.rate(state, match)
            traces[method.label].append(trace)
    return traces


def mean_trace(runs: list[list[float]]) -> list[float]:
    return [statistics.fmean(t[i] for t in runs) for i in range(min(map(len, runs)))]


def tracking_error(runs: list[list[float]], gain: float) -> float:
    """Root mean square, over runs and the first TRACKED units, of the gain's error."""
    return math.sqrt(statistics.fmean((x - gain) ** 2 for t in runs for x in t[:TRACKED]))


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
            units += [tournament_fit.Placing(table, u) for u in match]
        gains.append(tournament_fit.fit_units(units, range(BOTS))[JUMPER].elo)
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
    gained = following(FOLLOWERS, runs, args.seed * 101)
    same = following(FOLLOWERS, runs, args.seed * 101, jump=0.0)
    print(f"{BOTS} bots, {GAMES_PER_PAIR} games per pair; {orders} orders; {runs} runs")
    print(f"the stronger bot's true gain: {gap:.0f} Elo\n")
    print(f"{'method':<22} {'noise 1/m':>9} {'noise 5/m':>9} {'vs K=32':>8} {'scale':>6}")
    baseline = 0.0
    for method in METHODS:
        noise1 = order_noise(method, one, orders, args.seed)
        noise5 = order_noise(method, five, orders, args.seed)
        stretch = scale(method, args.seed)
        baseline = baseline or noise1
        print(
            f"{method.label:<22} {noise1:>9.1f} {noise5:>9.1f} {noise1 / baseline:>7.2f}x "
            f"{stretch:>6.2f}"
        )
    print(
        "\nnoise: sd of a final rating across match orders (Elo), 1 or 5 games per match;"
        "\nvs K=32: the 1-game noise over the old rating's; scale: spread of the final"
        "\nratings with 5 games per match over 1 (1.00: games per pairing do not matter)."
    )
    print(
        f"\n{'a new version':<22} {'50%':>6} {'90%':>6} {'err +gain':>10} {'err same':>9}"
        f" {'mean':>6}"
    )
    for method in FOLLOWERS:
        trace = mean_trace(gained[method.label])
        up = tracking_error(gained[method.label], gap)
        flat = tracking_error(same[method.label], 0.0)
        print(
            f"{method.label:<22} {units_to(trace, 0.5 * gap):>6} {units_to(trace, 0.9 * gap):>6}"
            f" {up:>10.1f} {flat:>9.1f} {(up + flat) / 2:>6.1f}"
        )
    print(
        f"\n50% / 90%: games of the new version (after {WARM_MATCHES} matches of warm-up)"
        "\nuntil its mean rating closed that share of its true gain; err: root mean square"
        f"\nof its rating's gain less the true one over its first {TRACKED} games, for the"
        "\ngain and for a new version that plays as the last one; mean: of the two."
    )
    print(f"\n{time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
