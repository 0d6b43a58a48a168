"""Calibration of the tournament Elo and the global rating: do their 95% intervals cover 95%?

Bots of known strength play many simulated round robins; every tournament goes through
the project's own code exactly as the service runs it: the schedule
(``tournaments.competitions.schedule``), the comparison units stored with a result
(``tournaments.rating.model.units.match_units``: games, or duplicate deals summed over their
rotations) and the standings fit (``tournaments.rating.model.tournament_fit.standings``). For each
game and table size (2, 4, 6 players; plain and duplicate) and each number of plays per table it
prints:

- coverage: the share of (tournament, bot) intervals containing the bot's true rating,
  for the intervals the service shows now (sandwich, unit as cluster, model floor) and,
  as the baseline measured in the same run, the old model-only intervals;
- Kendall tau between the fitted order and the true order;
- for the 2-player cells, the games needed for the interval of two adjacent bots'
  difference to exclude zero, plain vs duplicate (from the per-unit spread).

The games are models shaped like the real ones (their speed makes hundreds of thousands
of real games a matter of hours: Fifteen Thirty-Five at six players plays about one game
a second in process): a bot's score in a game is round(G x (skill + the luck of its
seat's cards + its own noise)). The cards' luck is shared by the rotations of a duplicate
deal (and cancels over them), the rounding gives the draws real scores give, and a table
of n places every seat from one draw (so its n(n-1)/2 pairs are correlated, as in a real
placing). Each game's luck and granularity are set so that duplicate deals save about
what engines.house_ladder measures on the real engines. The true rating of each bot is the fit to
a pool of many times more units than a tournament has (the value the fit converges to).

The global rating (``--part global``; rating.model.global_rating) is checked on simulated
sites: a population of POPULATION bots of known strength, each site SITE_TOURNAMENTS round robins
of BOTS of them drawn at random, every match's units rated in turn as match_rating.rate_match
rates them, the ratings carried across; then the coverage of every rated bot's interval
(of the truth seen from the level of the bots rated, and raw) and Kendall tau.

Goal: coverage within 0.93-0.97 in every cell at 5 or more plays per table.
``--quick`` (a few minutes on a loaded machine): fewer tournaments and cells.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tournaments.competitions.schedule import schedule
from tournaments.rating.model import global_rating, tournament_fit
from tournaments.rating.model.units import match_units

BOTS = 6
#: Skill of bot k in performance units (adjacent bots about 50-90 Elo apart).
SKILL_STEP = 0.18


@dataclass(frozen=True)
class Shape:
    """How a game decides its results: the cards' luck per seat, the score granularity."""

    luck: float
    granularity: float


SHAPES = {
    "oceans11": Shape(luck=1.6, granularity=1.5),
    "bigtwo": Shape(luck=0.8, granularity=1.2),
    "fifteen35": Shape(luck=0.6, granularity=3.0),
}


@dataclass(frozen=True)
class Cell:
    game: str
    players: int
    duplicate: bool

    def label(self) -> str:
        return f"{self.game} {self.players}p {'duplicate' if self.duplicate else 'plain'}"


CELLS = [
    Cell(game, players, duplicate)
    for game, players in (
        ("oceans11", 2),
        ("bigtwo", 2),
        ("bigtwo", 4),
        ("fifteen35", 2),
        ("fifteen35", 6),
    )
    for duplicate in (False, True)
]
QUICK_CELLS = [c for c in CELLS if (c.game, c.players) in {("oceans11", 2), ("bigtwo", 4)}]


def play_match(
    cell: Cell,
    table: tuple[int, ...],
    deals: int,
    rng: random.Random,
    strength: Callable[[int], float] | None = None,
) -> dict[str, Any]:
    """A stored match result (the referee's format) of ``table`` (bot per seat).

    ``strength``: each bot's skill in performance units (default: SKILL_STEP x its number).
    """
    n = len(table)
    shape = SHAPES[cell.game]
    skill = [strength(bot) if strength else SKILL_STEP * bot for bot in table]
    games = []
    for deal in range(deals):
        luck = [rng.gauss(0.0, shape.luck) for _ in range(n)]
        rotations = range(n) if cell.duplicate else [deal % n]
        for shift in rotations:
            seating = [(seat + shift) % n for seat in range(n)]  # seating[seat] = bot index
            scores = [
                round(shape.granularity * (skill[bot] + luck[seat] + rng.gauss(0.0, 1.0)))
                for seat, bot in enumerate(seating)
            ]
            places = [1 + sum(o > s for o in scores) for s in scores]
            result = {"scores": scores, "places": places}
            games.append({"deal": deal, "seating": seating, "result": result})
    totals = [0.0] * n
    for game in games:
        for seat, bot in enumerate(game["seating"]):
            totals[bot] += game["result"]["scores"][seat]
    places = [1 + sum(o > s for o in totals) for s in totals]
    return {"scores": totals, "places": places, "games": games}


def tournament(
    cell: Cell, plays: int, rng: random.Random, entrants: Sequence[int] = range(BOTS)
) -> tuple[list[tournament_fit.Placing[int]], list[tournament_fit.Placing[int]]]:
    """Match placings and comparison units of one round robin of ``entrants`` (BOTS of
    them; bot k has skill SKILL_STEP x k), ``plays`` units per table, in match order."""
    played = tournament_matches(cell, plays, rng, entrants)
    return [match for match, _ in played], [unit for _, units in played for unit in units]


def tournament_matches(
    cell: Cell, plays: int, rng: random.Random, entrants: Sequence[int] = range(BOTS)
) -> list[tuple[tournament_fit.Placing[int], list[tournament_fit.Placing[int]]]]:
    """Each match of one round robin: its placing and its comparison units."""
    rounds = 1 if cell.players == BOTS else 2
    deals = max(1, plays // rounds)
    matches = []
    for seats in schedule(BOTS, cell.players, rounds, rng.randrange(2**31)):
        table = tuple(entrants[i] for i in seats)
        result = play_match(cell, table, deals, rng)
        units = match_units(cell.players, result, duplicate=cell.duplicate, deals=deals)
        placing = tournament_fit.Placing(table, tuple(result["places"]))
        matches.append((placing, [tournament_fit.Placing(table, places) for places in units]))
    return matches


def truth(cell: Cell, rng: random.Random, pool_units: int) -> dict[int, float]:
    """Each bot's rating fitted to a pool far larger than a tournament."""
    units: list[tournament_fit.Placing[int]] = []
    while len(units) < pool_units:
        units += tournament(cell, 20, rng)[1]
    return {bot: fit.elo for bot, fit in tournament_fit.fit_units(units, range(BOTS)).items()}


def kendall_tau(estimates: dict[int, float]) -> float:
    """Agreement of the fitted order with the true one (bot k is stronger than k - 1)."""
    pairs = list(itertools.combinations(sorted(estimates), 2))
    concordant = sum(
        (estimates[b] > estimates[a]) - (estimates[b] < estimates[a]) for a, b in pairs
    )
    return concordant / len(pairs)


@dataclass
class Tally:
    covered: int = 0
    covered_old: int = 0
    intervals: int = 0
    taus: list[float] | None = None


def measure(cell: Cell, plays: int, runs: int, true: dict[int, float], seed: int) -> Tally:
    rng = random.Random(seed)
    tally = Tally(taus=[])
    for _ in range(runs):
        matches, units = tournament(cell, plays, rng)
        rows = tournament_fit.standings(matches, range(BOTS), games=units)
        old = tournament_fit.fit_units(units, range(BOTS), robust=False)
        for row in rows:
            tally.intervals += 1
            tally.covered += row.elo_low <= true[row.participant] <= row.elo_high
            tally.covered_old += (
                old[row.participant].low <= true[row.participant] <= (old[row.participant].high)
            )
        assert tally.taus is not None
        tally.taus.append(kendall_tau({row.participant: row.elo for row in rows}))
    return tally


#: The global rating's simulated site: a population of bots of known strength (bot k:
#: SKILL_STEP x k), tournaments of BOTS of them drawn at random, ratings carried across.
POPULATION = 12
SITE_TOURNAMENTS = 4


def site_truth(cell: Cell, rng: random.Random, pool_units: int) -> dict[int, float]:
    """Each bot's rating fitted to a pool of random round robins far larger than a site."""
    units: list[tournament_fit.Placing[int]] = []
    while len(units) < pool_units:
        units += tournament(cell, 20, rng, rng.sample(range(POPULATION), BOTS))[1]
    return {b: fit.elo for b, fit in tournament_fit.fit_units(units, range(POPULATION)).items()}


@dataclass
class SiteTally:
    covered: int = 0
    covered_raw: int = 0
    intervals: int = 0
    z: list[float] | None = None
    taus: list[float] | None = None


def measure_global(
    cell: Cell, plays: int, runs: int, true: dict[int, float], seed: int
) -> SiteTally:
    """Coverage of the global rating's interval, as the service computes it: every
    site plays SITE_TOURNAMENTS round robins, each match's units rated in turn
    (global_rating.rate_units, as match_rating.rate_match does), then every bot that played is
    checked."""
    rng = random.Random(seed)
    tally = SiteTally(z=[], taus=[])
    for _ in range(runs):
        skills: dict[int, global_rating.Skill] = {}
        for _ in range(SITE_TOURNAMENTS):
            entrants = rng.sample(range(POPULATION), BOTS)
            for _, units in tournament_matches(cell, plays, rng, entrants):
                skills.update(global_rating.rate_units(skills, units))
        # Games measure differences only: the level of the scale is where the first bots
        # started, so each rating is compared with the truth from the same level (the
        # mean of the bots rated); the raw coverage is counted too.
        shift = statistics.fmean(s.elo - true[b] for b, s in skills.items())
        for bot, state in skills.items():
            low, high = state.interval()
            tally.intervals += 1
            tally.covered += low <= true[bot] + shift <= high
            tally.covered_raw += low <= true[bot] <= high
            tally.z.append((state.elo - shift - true[bot]) / state.deviation)  # type: ignore[union-attr]
        tally.taus.append(kendall_tau({b: s.elo for b, s in skills.items()}))  # type: ignore[union-attr]
    return tally


def report_global(
    cells: Sequence[Cell], runs: int, pool: int, seed: int, levels: Sequence[int]
) -> float:
    """Print the global rating's coverage per cell; return the worst closeness to 0.95
    at 5 or more plays per table (as 1 - |coverage - 0.95|)."""
    print(
        f"\nglobal rating (tournaments.rating.model.global_rating): {runs} sites per cell,"
        f" each {SITE_TOURNAMENTS}"
        f" round robins of {BOTS} of {POPULATION} bots"
    )
    print(f"{'cell':<24} {'plays':>5} {'coverage':>9} {'raw':>6} {'z sd':>6} {'tau':>6}")
    worst = 1.0
    for number, cell in enumerate(cells):
        true = site_truth(cell, random.Random(seed * 1000 + number + 500), pool)
        for plays in levels:
            tally = measure_global(cell, plays, runs, true, seed * 7717 + number * 37 + plays)
            cover = tally.covered / tally.intervals
            if plays >= 5:
                worst = min(worst, 1.0 - abs(cover - 0.95))
            print(
                f"{cell.label():<24} {plays:>5} {cover:>9.3f} "
                f"{tally.covered_raw / tally.intervals:>6.3f} "
                f"{statistics.pstdev(tally.z or [0.0]):>6.2f} "
                f"{statistics.fmean(tally.taus or [0.0]):>6.3f}"
            )
    print(
        "coverage: of the truth from the level of the bots rated; raw: of the truth as it is"
        "\n(centred on the population); z sd: spread of (rating - truth) / deviation, from the"
        "\nsame level (1.00: the deviation is exact)"
    )
    return worst


def games_to_separate(cell: Cell, rng: random.Random, samples: int) -> float:
    """Games between two adjacent bots (middle of the field) for their 95% interval to
    exclude an even score, from the mean and spread of the per-unit score."""
    pair_cell = Cell(cell.game, 2, cell.duplicate)
    scores = []
    for index in range(samples):
        table = (3, 2) if index % 2 else (2, 3)
        result = play_match(pair_cell, table, 1, rng)
        (places,) = match_units(2, result, duplicate=cell.duplicate, deals=1)
        stronger = table.index(3)
        scores.append(
            1.0
            if places[stronger] < places[1 - stronger]
            else 0.5
            if places[0] == places[1]
            else 0.0
        )
    edge = statistics.fmean(scores) - 0.5
    spread = statistics.stdev(scores)
    if edge <= 0:
        return math.inf
    return (tournament_fit.Z95 * spread / edge) ** 2 * (2 if cell.duplicate else 1)


def report_tournament(
    cells: Sequence[Cell], runs: int, pool: int, seed: int, levels: Sequence[int]
) -> float:
    """Print the tournament fit's coverage per cell (new and old); return the worst
    closeness to 0.95 at 5 or more plays per table (as 1 - |coverage - 0.95|)."""
    print(f"tournament Elo: {BOTS} bots, {runs} round robins per cell")
    print(f"{'cell':<24} {'plays':>5} {'coverage':>9} {'old':>6} {'ratio':>6} {'tau':>6}")
    worst = 1.0
    for number, cell in enumerate(cells):
        true = truth(cell, random.Random(seed * 1000 + number), pool)
        for plays in levels:
            tally = measure(cell, plays, runs, true, seed * 7919 + number * 31 + plays)
            cover = tally.covered / tally.intervals
            old = tally.covered_old / tally.intervals
            if plays >= 5:
                worst = min(worst, 1.0 - abs(cover - 0.95))
            print(
                f"{cell.label():<24} {plays:>5} {cover:>9.3f} {old:>6.3f} "
                f"{abs(old - 0.95) / max(abs(cover - 0.95), 1e-3):>6.1f} "
                f"{statistics.fmean(tally.taus or [0.0]):>6.3f}"
            )
    print("ratio: |old - 0.95| / |new - 0.95| (above 1: the new interval is closer to 95%)")
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer cells and tournaments")
    parser.add_argument("--runs", type=int, help="tournaments per cell (default 400, quick 100)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=sorted(SHAPES), help="one game only")
    parser.add_argument(
        "--part",
        choices=("tournament", "global", "both"),
        default="both",
        help="the tournament Elo, the global rating, or both (default)",
    )
    args = parser.parse_args()
    runs = args.runs or (100 if args.quick else 400)
    cells = QUICK_CELLS if args.quick else CELLS
    if args.only:
        cells = [cell for cell in CELLS if cell.game == args.only]
    plays_levels = (5, 20) if args.quick else (2, 5, 10, 20)
    pool = 20_000 if args.quick else 100_000
    began = time.perf_counter()
    print("coverage of the 95% interval and Kendall tau against bots of known strength")
    worst = {}
    if args.part != "global":
        worst["tournament"] = report_tournament(cells, runs, pool, args.seed, plays_levels)
    if args.part != "tournament":
        sites = max(1, runs // 2)
        worst["global"] = report_global(cells, sites, pool, args.seed, plays_levels)
    if args.part != "global":
        print("\ngames to separate adjacent bots (plain vs duplicate)")
        samples = 4000 if args.quick else 20_000
        for game in dict.fromkeys(cell.game for cell in cells):
            plain = games_to_separate(Cell(game, 2, False), random.Random(args.seed), samples)
            dup = games_to_separate(Cell(game, 2, True), random.Random(args.seed), samples)
            print(f"  {game:<10} 2p: plain {plain:6.0f}, duplicate {dup:6.0f} ({plain / dup:.1f}x)")
    for part, closeness in worst.items():
        goal = "met" if closeness >= 0.98 else "NOT met"
        print(f"\n{part}: goal (0.93-0.97 in every cell at 5+ plays): {goal}")
    print(f"{time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
