"""The continuous ladder's matchmaking against a round robin of the same games.

A population of bots of known strength (50 by default) plays simulated games, in process,
through the service's own code: the ladder's choice of tables
(``tournaments.competitions.matchmaking.choose``, fed by
``tournaments.competitions.ladder.uncertainty`` exactly as the ladder feeds it), the global
rating's update of each finished match's comparison units
(``tournaments.rating.model.global_rating.rate_units``, as the service's ``_rate`` does) and the
units stored with a result (``tournaments.rating.model.units.match_units``). The same games and
match format (one duplicate deal a match) are scheduled in the baseline by round robins
(``tournaments.competitions.schedule.schedule``, round after round).

Printed, per game and table size:

- **games to order the field**: games played until every adjacent pair of bots (by true
  strength) is ordered correctly with 90% confidence by the fit of all units so far
  (``tournament_fit.fit_units``, the honest interval): the estimated difference is at least
  1.28 standard errors, the standard error from the two bots' intervals (their
  covariance ignored, which only makes the test stricter for the ladder, whose
  neighbours play each other most). Goal: the ladder needs at most half the games of
  the round robin.
- **a new strong bot**: once the field is ordered, a bot stronger than all but one joins;
  the games (all of them, and its own) until its fitted place is within one of its true
  place (second) and stays there at the next check, for the ladder and the round robin.

The games are the models of bench.ratings.calibration (card luck per seat shared by a duplicate
deal's rotations, integer scores, one draw placing a table), because real games are far
too slow for hundreds of thousands of them. ``--quick``: 20 bots, a minute or two.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.config.settings")
django.setup()

from bench.ratings.calibration import SHAPES, Shape  # noqa: E402
from tournaments.competitions import ladder, matchmaking  # noqa: E402
from tournaments.competitions.schedule import schedule  # noqa: E402
from tournaments.models import Rating  # noqa: E402
from tournaments.rating.model import (  # noqa: E402
    field_deviations,
    field_dispersion,
    global_rating,
    linear,
    tournament_fit,
)
from tournaments.rating.model.units import match_units  # noqa: E402
from tournaments.rating.stored import field_view  # noqa: E402

#: One-sided 90%: the estimated difference must be this many standard errors.
Z90 = 1.2815515655446004
#: Skill of bot k in performance units: adjacent bots about 40-75 Elo apart.
SKILL_STEP = 0.15
#: Ladder tables chosen at once (the slots in flight) before their results are rated.
SLOTS = 4
#: Refit and check every this many games (and at most every 2% more games).
CHECK_EVERY = 400
#: Checks of the newcomer's place, every this many games.
NEWCOMER_EVERY = 24
#: Give up (and say so) after this many games.
MAX_GAMES = 1_000_000


@dataclass(frozen=True)
class Cell:
    game: str
    players: int


#: Where a match's stored result comes from: (cell, bot per seat, rng) -> result. The
#: default is the game model (``simulate``); bench/_engine_results.py draws real games.
Results = Callable[[Cell, Sequence[int], random.Random], dict[str, Any]]


@dataclass
class League:
    """Everything played so far: the global ratings, matches and units of every bot."""

    skills: dict[int, float]
    results: Results | None = None
    skills_now: dict[int, global_rating.Skill] = field(default_factory=dict)
    matches: dict[int, int] = field(default_factory=dict)
    units: list[tournament_fit.Placing[int]] = field(default_factory=list)
    games: int = 0
    own: dict[int, int] = field(default_factory=dict)
    met: Counter[tuple[int, int]] = field(default_factory=Counter)
    #: The field pass's view (bot -> rating, joint deviation) as of the last pass
    #: (``pass_field``): what the ladder reads where a bot has one, as the service does.
    view: dict[int, tuple[float, float]] = field(default_factory=dict)

    def play(self, cell: Cell, table: Sequence[int], rng: random.Random) -> None:
        """One duplicate-deal match at ``table``, rated as the service rates it."""
        if self.results is None:
            result = simulate(SHAPES[cell.game], [self.skills[b] for b in table], rng)
        else:
            result = self.results(cell, table, rng)
        seats = tuple(table)
        units = [
            tournament_fit.Placing(seats, places)
            for places in match_units(len(seats), result, duplicate=True, deals=1)
        ]
        self.skills_now.update(global_rating.rate_units(self.skills_now, units))
        self.units += units
        for a, b in itertools.combinations(sorted(seats), 2):
            self.met[a, b] += 1
        for bot in seats:
            self.matches[bot] = self.matches.get(bot, 0) + 1
            self.own[bot] = self.own.get(bot, 0) + len(result["games"])
        self.games += len(result["games"])

    def players(self) -> list[matchmaking.Player[int]]:
        """The ladder's view, through the service's own ``uncertainty``: each bot's one
        rating (``field_view.Standing``: the last pass's view, else its stored own)."""
        found = []
        for bot in self.skills:
            played = self.matches.get(bot, 0)
            row = Rating(matches=played)
            row.set_skill(self.skills_now.get(bot, global_rating.Skill()))
            elo, deviation = self.view.get(bot, (row.elo, row.deviation))
            shown = field_view.Standing.of(elo, deviation, row.units, None)
            sigma = ladder.uncertainty(shown if played else None, played)
            found.append(matchmaking.Player(bot, elo, sigma, played))
        return found

    def pass_field(self) -> None:
        """A field pass as the service runs it (``field_view``): the whole field refitted
        with the dispersion its units show, every joint deviation against its mean."""
        rated = {b: s for b, s in self.skills_now.items() if self.matches.get(b)}
        if not rated:
            return
        found = field_dispersion.measured_field(rated, self.units, chosen=1.0)
        joint = field_deviations.against_mean(found)
        self.view = {b: (found.elo[b], joint[b]) for b in found.elo}

    def fit(self) -> dict[int, tournament_fit.Fit]:
        return tournament_fit.fit_units(self.units, list(self.skills))


def simulate(shape: Shape, skills: Sequence[float], rng: random.Random) -> dict[str, Any]:
    """A stored match result of one duplicate deal (bench.ratings.calibration's game model)."""
    n = len(skills)
    luck = [rng.gauss(0.0, shape.luck) for _ in range(n)]
    games = []
    for shift in range(n):
        seating = [(seat + shift) % n for seat in range(n)]
        scores = [
            round(shape.granularity * (skills[bot] + luck[seat] + rng.gauss(0.0, 1.0)))
            for seat, bot in enumerate(seating)
        ]
        places = [1 + sum(o > s for o in scores) for s in scores]
        result = {"scores": scores, "places": places}
        games.append({"deal": 0, "seating": seating, "result": result})
    totals = [0.0] * n
    for game in games:
        for seat, bot in enumerate(game["seating"]):
            totals[bot] += game["result"]["scores"][seat]
    return {
        "scores": totals,
        "places": [1 + sum(o > s for o in totals) for s in totals],
        "games": games,
    }


def ordered(league: League) -> bool:
    """Every adjacent pair (by true skill) ordered right with 90% confidence."""
    by_skill = sorted(league.skills, key=league.skills.__getitem__)
    pairs = list(itertools.pairwise(by_skill))
    return all(gap >= Z90 * error for gap, error in differences(league, pairs))


def differences(league: League, pairs: Sequence[tuple[int, int]]) -> list[tuple[float, float]]:
    """Each pair's fitted difference (second minus first) and its standard error.

    The fit is ``tournament_fit.fit_units``'s (its Newton solution, bread and meat, the same
    functions); the error is that of the difference itself, b' V b with V the sandwich
    (the unit as cluster), floored by the model's variance as the fit floors each
    interval: two neighbours that play each other often know their difference far better
    than either knows its place against the whole field.
    """
    bots = list(league.skills)
    index = {bot: i for i, bot in enumerate(bots)}
    counted = Counter((u.seats, u.places) for u in league.units)
    patterns = [
        (count, [(index[a], index[b], y) for a, b, y in tournament_fit.pairwise(seats, places)])
        for (seats, places), count in counted.items()
    ]
    r = tournament_fit._newton(len(bots), patterns)
    _, hessian = tournament_fit._gradient_and_hessian(r, *tournament_fit._totals(patterns))
    bread = linear.inverse(hessian)
    meat = tournament_fit._meat(r, patterns)
    evidence = tournament_fit._evidence(len(bots), patterns)
    found = []
    for a, b in pairs:
        i, j = index[a], index[b]
        contrast = [row[j] - row[i] for row in bread]
        sandwich = sum(
            ci * sum(m * cj for m, cj in zip(meat[k], contrast, strict=True))
            for k, ci in enumerate(contrast)
        )
        model = bread[i][i] + bread[j][j] - 2.0 * bread[i][j]
        weight = max(tournament_fit._floor_weight(*evidence[k]) for k in (i, j))
        variance = max(sandwich, model * weight)
        found.append((r[j] - r[i], math.sqrt(max(variance, 0.0))))
    return found


def place_of(bot: int, fit: dict[int, tournament_fit.Fit]) -> int:
    return 1 + sum(f.elo > fit[bot].elo for other, f in fit.items() if other != bot)


Schedule = Callable[[League], Iterator[tuple[int, ...]]]


def ladder_tables(cell: Cell, explore: random.Random | None = None) -> Schedule:
    """The ladder's choice of tables (``explore``: on ratings drawn from each interval,
    as the ladder plays them; None: on the ratings themselves)."""

    def tables(league: League) -> Iterator[tuple[int, ...]]:
        while True:
            players = league.players()
            picks = matchmaking.choose(
                players, cell.players, SLOTS, units=1, met=league.met, explore=explore
            )
            if not picks:
                return
            yield from (tuple(p.key for p in pick.seats) for pick in picks)

    return tables


def round_robin_tables(cell: Cell, rng: random.Random) -> Schedule:
    """Round after round of one round robin of the current bots (its seats rotate within
    each duplicate match; the schedule is made once, as a tournament makes it)."""

    def tables(league: League) -> Iterator[tuple[int, ...]]:
        bots = sorted(league.skills)
        one_round = schedule(len(bots), cell.players, 1, rng.randrange(2**31))
        while True:
            yield from (tuple(bots[i] for i in table) for table in one_round)

    return tables


def play_until(
    league: League,
    cell: Cell,
    tables: Schedule,
    rng: random.Random,
    done: Callable[[League], bool],
    every: int = CHECK_EVERY,
) -> int:
    """Play ``tables`` until ``done`` holds at a check (every ``every`` games, and at
    most every 2% more); the games played (this phase)."""
    start = league.games
    next_check = start + every
    source = tables(league)
    batch: list[tuple[int, ...]] = []
    while league.games - start < MAX_GAMES:
        if not batch:
            # The ladder sees results in batches of SLOTS tables, as its slots free.
            batch = [next(source) for _ in range(SLOTS)]
        league.play(cell, batch.pop(0), rng)
        if league.games >= next_check:
            if done(league):
                return league.games - start
            next_check = league.games + max(every, (league.games - start) // 50)
    return -1


@dataclass(frozen=True)
class Outcome:
    order_games: int
    newcomer_games: int
    newcomer_own: int
    seconds: float


def run(cell: Cell, bots: int, seed: int, ladder_first: bool, explore: bool = False) -> Outcome:
    rng = random.Random(seed)
    skills = {b: SKILL_STEP * b for b in range(bots)}
    league = League(skills)
    began = time.perf_counter()
    drawn = random.Random(seed + 7) if explore else None
    schedule_for = ladder_tables(cell, drawn) if ladder_first else round_robin_tables(cell, rng)
    order_games = play_until(league, cell, schedule_for, rng, ordered)
    newcomer = bots
    skills[newcomer] = SKILL_STEP * (bots - 1.5)  # second best of all
    schedule_for = ladder_tables(cell, drawn) if ladder_first else round_robin_tables(cell, rng)
    own_before = league.own.get(newcomer, 0)
    streak = {"n": 0}

    def placed(league: League) -> bool:
        place = place_of(newcomer, league.fit())
        streak["n"] = streak["n"] + 1 if abs(place - 2) <= 1 else 0
        return streak["n"] >= 2

    newcomer_games = play_until(league, cell, schedule_for, rng, placed, every=NEWCOMER_EVERY)
    own = league.own.get(newcomer, 0) - own_before
    return Outcome(order_games, newcomer_games, own, time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", type=int, default=50)
    parser.add_argument("--seeds", type=int, default=2, help="populations per cell")
    parser.add_argument("--first", type=int, default=0, help="the first population's seed")
    parser.add_argument("--quick", action="store_true", help="20 bots, one population")
    parser.add_argument(
        "--explore",
        action="store_true",
        help="the ladder chooses on ratings drawn from each interval (as the service does)",
    )
    parser.add_argument("--only", choices=["oceans11:2", "bigtwo:4", "fifteen35:6"])
    arguments = parser.parse_args()
    bots, seeds = (20, 1) if arguments.quick else (arguments.bots, arguments.seeds)
    cells = [Cell("oceans11", 2), Cell("bigtwo", 4)]
    if arguments.only:
        game, players = arguments.only.split(":")
        cells = [Cell(game, int(players))]
    print(f"{bots} bots, adjacent {SKILL_STEP} performance units apart; {SLOTS} ladder slots")
    for cell in cells:
        for seed in range(arguments.first, arguments.first + seeds):
            board = run(cell, bots, seed, ladder_first=True, explore=arguments.explore)
            baseline = run(cell, bots, seed, ladder_first=False)
            report(cell, seed, board, baseline)


def report(cell: Cell, seed: int, board: Outcome, baseline: Outcome) -> None:
    label = f"{cell.game} {cell.players}p, population {seed}"

    def ratio(a: int, b: int) -> str:
        return f"{a / b:.2f}" if a > 0 and b > 0 else "n/a (a run gave up)"

    order = ratio(board.order_games, baseline.order_games)
    print(
        f"{label}: games to order every adjacent pair (90%): ladder {board.order_games:,}, "
        f"round robin {baseline.order_games:,}, ratio {order}"
    )
    print(
        f"{label}: a new second-best bot placed within one: ladder {board.newcomer_games:,} "
        f"games ({board.newcomer_own:,} its own), round robin {baseline.newcomer_games:,} "
        f"({baseline.newcomer_own:,} its own), ratio "
        f"{ratio(board.newcomer_games, baseline.newcomer_games)}"
        f"  [{board.seconds:.0f} s + {baseline.seconds:.0f} s]"
    )


if __name__ == "__main__":
    main()
