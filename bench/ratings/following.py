"""Following a new version, raw: how many of its games until its rating shows its change.

bench.ratings.skill measures following against a gain centred among the six bots (the fit's
ratings sum to a constant, so the jumper's centred gain is 5/6 of its real one). This
bench measures it raw, as an author reads the rating: the new version's rating less the
mean of its opponents' ratings, against the same quantity's true change (the fit of a
large pool before and after the change: ``tournament_fit.fit_units``). Six bots of known
strength (bench.ratings.calibration's models, two players, one game a match, random pairs)
warm up for WARM_MATCHES matches; then one bot gets stronger by JUMP performance units
(about +190 Elo) with a new version (``global_rating.rate_units``' ``new_versions``,
records keyed per version as the service keys them). Printed per game and version
deviation (``global_rating.VERSION_DEVIATION`` is the service's): the new version's
games until its mean rating (over RUNS runs) closed 50% and 90% of its true change; the
tracking error (root mean square over runs and its first TRACKED games) for that change
and for a new version that plays exactly as the last one (the cost of following fast).
The baseline in the same run is the former deviation, 100. It also prints ratings.skill's order
noise raw and measured from the field's mean. ``--quick``: fewer runs.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable, Sequence

from bench.ratings import skill as bench_skill
from bench.ratings.calibration import BOTS, SKILL_STEP, Cell, play_match
from tournaments.rating.model import global_rating, tournament_fit
from tournaments.rating.model.units import match_units

JUMPER = bench_skill.JUMPER
JUMP = bench_skill.JUMP
WARM_MATCHES = 3000
AFTER_MATCHES = 1200
TRACKED = 100
#: Version deviations tried: the former 100 (the baseline) and the service's.
DEVIATIONS = (100.0, 125.0, global_rating.VERSION_DEVIATION, 200.0)
CELLS = (Cell("bigtwo", 2, False), Cell("oceans11", 2, False))

Units = tuple[tuple[int, int], list[tuple[int, ...]]]


def match(cell: Cell, rng: random.Random, strength: Callable[[int], float]) -> Units:
    """One game between two bots drawn at random: its table and comparison units."""
    a, b = rng.sample(range(BOTS), 2)
    result = play_match(cell, (a, b), 1, rng, strength)
    return (a, b), match_units(2, result, duplicate=False, deals=1)


def relative(elo: Callable[[int], float]) -> float:
    """The jumper's rating less the mean of the others'."""
    return elo(JUMPER) - statistics.fmean(elo(b) for b in range(BOTS) if b != JUMPER)


def true_change(cell: Cell, seed: int, pool: int, jump: float) -> float:
    """The jumper's raw true change: ``relative`` of the fit of a large pool, after less
    before."""
    found = []
    for step in (0.0, jump):
        rng = random.Random(seed)
        strength = lambda bot, s=step: SKILL_STEP * bot + (s if bot == JUMPER else 0.0)  # noqa: E731
        units = []
        for _ in range(pool):
            table, placings = match(cell, rng, strength)
            units += [tournament_fit.Placing(table, u) for u in placings]
        fit = tournament_fit.fit_units(units, range(BOTS))
        found.append(relative(lambda b, f=fit: f[b].elo))  # type: ignore[misc]
    return found[1] - found[0]


def base(bot: int) -> float:
    return SKILL_STEP * bot


def one_run(
    cell: Cell, deviation: float, rng: random.Random, jump: float
) -> tuple[list[float], list[float]]:
    """``relative`` after each of the new version's games, less at the change; and the
    same for its own rating alone."""
    skills: dict[int, global_rating.Skill] = {}

    def rate(units: Units, new: frozenset[int], version: int) -> None:
        table, placings = units
        rated = [tournament_fit.Placing(table, u) for u in placings]
        versions = {JUMPER: (JUMPER, version)}
        skills.update(global_rating.rate_units(skills, rated, new, deviation, versions))

    def elo(bot: int) -> float:
        return skills[bot].elo

    for _ in range(WARM_MATCHES):
        rate(match(cell, rng, base), frozenset(), 1)
    start, own_start = relative(elo), elo(JUMPER)
    trace, own, new = [], [], frozenset({JUMPER})

    def stronger(bot: int) -> float:
        return base(bot) + (jump if bot == JUMPER else 0.0)

    for _ in range(AFTER_MATCHES):
        units = match(cell, rng, stronger)
        if JUMPER in units[0]:
            rate(units, new, 2)
            new = frozenset()
            trace.append(relative(elo) - start)
            own.append(elo(JUMPER) - own_start)
        else:
            rate(units, frozenset(), 2)
    return trace, own


def traces(
    cell: Cell, deviation: float, runs: int, seed: int, jump: float
) -> tuple[list[list[float]], list[list[float]]]:
    """Per run, ``one_run``'s two traces (the same games for every deviation)."""
    found = [one_run(cell, deviation, random.Random(seed + run), jump) for run in range(runs)]
    return [t for t, _ in found], [o for _, o in found]


def games_to(runs: Sequence[list[float]], target: float) -> str:
    """The new version's games until the mean over runs reaches ``target``."""
    length = min(map(len, runs))
    for i in range(length):
        if statistics.fmean(t[i] for t in runs) >= target:
            return str(i + 1)
    return f">{length}"


def tracking(runs: Sequence[list[float]], gain: float) -> float:
    return math.sqrt(statistics.fmean((x - gain) ** 2 for t in runs for x in t[:TRACKED]))


def order_noise(orders: int, seed: int) -> tuple[float, float]:
    """bench.ratings.skill's order noise (the same round robin replayed in ``orders`` random
    orders; the sd of a bot's final rating, mean over bots), raw and measured from the
    field's mean: how much of it is a shift of the whole scale."""
    rng = random.Random(seed)
    matches = bench_skill.round_robin(1, rng)
    finals = []
    for _ in range(orders):
        rng.shuffle(matches)
        finals.append(bench_skill.final(bench_skill.METHODS[1], matches))
    raw = statistics.fmean(statistics.stdev(f[b] for f in finals) for b in range(BOTS))
    centred = statistics.fmean(
        statistics.stdev(f[b] - statistics.fmean(f) for f in finals) for b in range(BOTS)
    )
    return raw, centred


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, help="runs per deviation (default 40, quick 10)")
    args = parser.parse_args()
    runs, pool = (10, 20_000) if args.quick else (40, 60_000)
    runs = args.runs or runs
    began = time.perf_counter()
    raw, centred = order_noise(30 if args.quick else 100, args.seed)
    print(f"order noise (bench_skill, 1 game a match): raw {raw:.1f} Elo, centred {centred:.1f}\n")
    print(f"{BOTS} bots, one game a match, {runs} runs; raw change (rating less opponents' mean)")
    print(
        f"{'cell':<16} {'deviation':>9} {'true':>5} {'50%':>5} {'90%':>5} {'err +':>6} "
        f"{'err 0':>6} {'own 90%':>8}"
    )
    for cell in CELLS:
        change = true_change(cell, args.seed, pool, JUMP)
        for deviation in DEVIATIONS:
            gained, own = traces(cell, deviation, runs, args.seed * 101, JUMP)
            same, _ = traces(cell, deviation, runs, args.seed * 101, 0.0)
            print(
                f"{cell.game + ' 2p':<16} {deviation:>9.0f} {change:>5.0f} "
                f"{games_to(gained, 0.5 * change):>5} {games_to(gained, 0.9 * change):>5} "
                f"{tracking(gained, change):>6.1f} {tracking(same, 0.0):>6.1f} "
                f"{games_to(own, 0.9 * change):>8}",
                flush=True,
            )
    print(
        "\n50% / 90%: the new version's games until its mean raw rating closed that share of"
        f"\nits true change; err +: root mean square of (gain - true) over its first {TRACKED}"
        "\ngames; err 0: the same for a new version that plays as the last one; own 90%:"
        "\nthe games until its own rating alone (not less its opponents') closed 90%."
        f"\n{time.perf_counter() - began:.0f} s"
    )


if __name__ == "__main__":
    main()
