"""Calibration of the global rating's intervals on the schedules the service plays (issue 30).

bench.ratings.calibration checks the global rating on open sites (random round robins drawn from a
larger population). This bench adds the schedules that gave dishonest intervals:

- ``ladder``: the ladder's own matchmaking (``matchmaking.choose`` fed through
  ``ladder.uncertainty`` exactly as the ladder feeds it, SLOTS tables chosen before their
  results are rated; bench.ratings.ladder_schedule's League), 2, 4 and 6 seats, 8 and 50 bots;
  ``linked``, the service's (exploring), reads the one rating as the ladder does: the
  field pass's view, a pass every ``pass_tables`` tables;
- ``closed``: round robins of the same 8 (or 50) bots, round after round (a closed field:
  one tournament of every bot; at 50 bots its balanced set of tables, a round far longer
  than 20 plays a bot);
- ``open``: each round a round robin of 6 bots drawn from 12 (bench.ratings.calibration's
  sites), or from 50.

Every match is one duplicate deal rated as the service rates it
(``global_rating.rate_units`` on the units of ``units.match_units``); the results come
from bench.ratings.calibration's game models (card luck per seat shared by the rotations, integer
scores, one draw placing a table). At average plays per bot of 5, 10 and 20 it checks,
over SITES simulated sites per cell:

- **bot**: each bot against the field, its rating less the field's mean against the
  truth less the truth's mean (games measure differences only), with the stored
  deviation (``Skill.deviation``, "stored"), with the joint one at the stored ratings
  (``field_deviations``: the curvature of the whole field, opponents' uncertainty
  included, "joint"), and in the field pass's view ("refit": the whole field refitted
  with the dispersion the site's units show, ``field_dispersion.measured_field``);
- **diff**: each adjacent pair by true strength, the difference's interval from the two
  stored deviations (independent) and from ``field.difference``;
- z sd (the spread of error / deviation; 1 is exact), the centred MAE (Elo) and Kendall tau.

The truth is each bot's rating fitted (``tournament_fit.fit_units``) to a pool of random
tables far larger than a site (the value the fit converges to). Goal: coverage within
0.93-0.97 in every cell at 5+ plays. ``--sites`` (default 200), ``--only SCHEDULE``,
``--bots``, ``--seats``, ``--game``; ``--results engine``: every match drawn from real
games of house bots of graded strength (bench/_engine_results.py), the truth their fit
(Big Two 4p and Fifteen Thirty-Five 6p of 50 bots: played as drawn and the truth fitted
to 40,000 and 16,000 random tables of them, bench/_engine_fresh.py). The pass runs as
the service's does (its one rating, issue 47: ``field_dispersion``'s switches);
``--pool-units U``, ``--own-weight-cap W``, ``--prior-bots B``, ``--firth-scales
FIT,POSTERIOR`` and each switch's ``--X`` / ``--no-X`` (``--count-spread``,
``--reduce-bias``, ``--residual-information``, ``--curved``, ``--measure-at-spread``;
``--firth-sandwich W``) are experiments, not settings: ``field_dispersion.POOL_UNITS``
(inf: every bot the pooled ratio; 8 before), ``OWN_WEIGHT_MAX`` (0.5),
``field_spread.PRIOR_BOTS`` (2) and the switches in this process only (docs/ratings.md,
"The one rating switched on", and the tries before it).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import itertools
import math
import random
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from bench import _engine_results
from bench.ratings.calibration import SHAPES, kendall_tau
from bench.ratings.ladder_schedule import SLOTS, Cell, League, ladder_tables, simulate
from tournaments.competitions import matchmaking
from tournaments.competitions.schedule import schedule
from tournaments.rating.model import field as joint
from tournaments.rating.model import field_bias, field_dispersion, field_spread, tournament_fit
from tournaments.rating.model import field_deviations as deviations
from tournaments.rating.model.global_rating import Skill
from tournaments.rating.model.tournament_fit import Z95
from tournaments.rating.model.units import match_units

#: Bots' skill steps (performance units) by field size: adjacent bots about 55 Elo apart in
#: a field of 8, about 15 in a field of 50 (its span about 800 Elo).
STEP = {8: 0.15, 12: 0.15, 50: 0.04}
CHECKPOINTS = (5, 10, 20)
OPEN_POPULATION = 12
#: The schedules whose tables a matchmaker chooses.
MATCHMADE = ("ladder", "linked")
OPEN_TABLE = 6


@dataclass(frozen=True)
class Setting:
    """One cell: a schedule, a game model, seats per table and the field's size."""

    schedule: str
    game: str
    seats: int
    bots: int
    results: str = "model"  # or "engine": real games (bench/_engine_results.py)
    truth: str = "random"  # or "schedule": the fit to the schedule's own tables

    def label(self) -> str:
        return f"{self.schedule} {self.game} {self.seats}p {self.bots} bots"


#: The estimates checked: the stored ratings with their stored deviations, the stored
#: ratings with the joint deviations, and the whole field refitted with its joint ones.
METHODS = ("stored", "joint", "refit")


@dataclass
class Counts:
    """Intervals checked and covered, errors in deviations, absolute errors (Elo)."""

    intervals: int = 0
    covered: int = 0
    z: list[float] = field(default_factory=list)
    errors: list[float] = field(default_factory=list)

    def add(self, error: float, deviation: float) -> None:
        self.intervals += 1
        self.covered += abs(error) <= Z95 * deviation
        self.z.append(error / deviation)
        self.errors.append(abs(error))

    def coverage(self) -> float:
        return self.covered / max(self.intervals, 1)


@dataclass
class Tally:
    """Per checkpoint and method: each bot against the field, adjacent differences, tau."""

    bot: dict[str, Counts] = field(default_factory=lambda: {m: Counts() for m in METHODS})
    diff: dict[str, Counts] = field(default_factory=lambda: {m: Counts() for m in METHODS})
    taus: dict[str, list[float]] = field(default_factory=lambda: {m: [] for m in METHODS})


def truth(
    setting: Setting, skills: dict[int, float], rng: random.Random, units: int
) -> dict[int, float]:
    """Each bot's rating fitted to ``units`` units of random tables of the setting's size."""
    if setting.results == "engine":  # the fit to every deal a site may draw (or a sample)
        return _engine_results.library(setting.game, setting.seats, len(skills)).truth()
    bots = sorted(skills)
    return pool_fit(setting, skills, lambda: tuple(rng.sample(bots, setting.seats)), rng, units)


def pool_fit(
    setting: Setting,
    skills: dict[int, float],
    table: Callable[[], tuple[int, ...]],
    rng: random.Random,
    units: int,
) -> dict[int, float]:
    """Each bot's rating fitted to ``units`` units of the tables ``table`` draws, each
    result from the setting's source (the model, or the real games' library)."""
    draw = _engine_results.results(setting.results, setting.game, setting.seats, len(skills))
    pool: list[tournament_fit.Placing[int]] = []
    while len(pool) < units:
        seats = table()
        if draw is None:
            result = simulate(SHAPES[setting.game], [skills[b] for b in seats], rng)
        else:
            result = draw(None, seats, rng)
        pool += [
            tournament_fit.Placing(seats, places)
            for places in match_units(setting.seats, result, duplicate=True, deals=1)
        ]
    return {b: f.elo for b, f in tournament_fit.fit_units(pool, sorted(skills)).items()}


def linked_tables(
    setting: Setting, league: League, rng: random.Random
) -> Iterator[tuple[int, ...]]:
    """The ladder's matchmaking exploring, as the ladder now runs it (``explore``: each
    player's rating drawn from its interval before the tables are chosen), on the one
    rating: the field pass's view (``League.pass_field``), passed again after every
    ``pass_tables`` tables (about one match per bot: the service passes every few
    minutes while rated matches come)."""
    since = 0
    while True:
        if since >= pass_tables(setting):
            league.pass_field()
            since = 0
        players = league.players()
        picks = matchmaking.choose(
            players, setting.seats, SLOTS, units=1, met=league.met, explore=rng
        )
        if not picks:
            return
        since += len(picks)
        yield from (tuple(p.key for p in pick.seats) for pick in picks)


def pass_tables(setting: Setting) -> int:
    """Tables between two field passes of a site: about one match per bot, at least one
    batch of the ladder's tables."""
    return max(SLOTS, setting.bots // setting.seats)


def tables(setting: Setting, league: League, rng: random.Random) -> Iterator[tuple[int, ...]]:
    """The setting's schedule, table after table."""
    if setting.schedule == "linked":
        yield from linked_tables(setting, league, rng)
        return
    if setting.schedule == "ladder":
        source = ladder_tables(Cell(setting.game, setting.seats))(league)
        while True:
            batch = [next(source) for _ in range(SLOTS)]
            yield from batch
    bots = sorted(league.skills)
    if setting.schedule == "closed":
        one_round = closed_round(bots, setting.seats, rng)
        while True:
            yield from (tuple(bots[i] for i in t) for t in one_round)
    while True:  # open: a round robin of OPEN_TABLE drawn at random, again and again
        entrants = rng.sample(bots, OPEN_TABLE)
        for t in schedule(OPEN_TABLE, setting.seats, 1, rng.randrange(2**31)):
            yield tuple(entrants[i] for i in t)


def closed_round(bots: list[int], seats: int, rng: random.Random) -> list[tuple[int, ...]]:
    """One round of a closed field's tournament, seats given as places in ``bots``. A
    balanced set of 50 bots takes seconds to build, so every site of such a cell plays the
    cell's one design with its bots shuffled (the same tables, other bots at each place)."""
    if len(bots) <= OPEN_POPULATION:
        return schedule(len(bots), seats, 1, rng.randrange(2**31))
    place = rng.sample(range(len(bots)), len(bots))
    return [tuple(place[i] for i in t) for t in balanced_set(len(bots), seats)]


@functools.cache
def balanced_set(bots: int, seats: int) -> list[tuple[int, ...]]:
    """The service's round robin of ``bots`` at ``seats`` (one fixed seed)."""
    return schedule(bots, seats, 1, 0)


def check(snapshot: Snapshot, true: dict[int, float], tally: Tally) -> None:
    """Count the intervals of one site at one checkpoint, for each method ("refit": the
    field pass's view, its dispersion measured from the site's units)."""
    skills = {b: s for b, s in snapshot.skills.items() if b in true}
    rated = sorted(skills)
    fields = {
        "joint": joint.field_of(skills, whole=False),
        "refit": field_dispersion.measured_field(skills, snapshot.units, chosen=snapshot.chosen),
    }
    estimates = {
        "stored": {b: skills[b].elo for b in rated},
        **{m: dict(f.elo) for m, f in fields.items()},
    }
    true_mean = statistics.fmean(true[b] for b in rated)
    adjacent = list(itertools.pairwise(sorted(rated, key=true.__getitem__)))
    for method, elo in estimates.items():
        mean = statistics.fmean(elo[b] for b in rated)
        found = fields.get(method)
        if found:  # the joint deviations, all from one inversion (a 50-bot site's seconds)
            bots = deviations.against_mean(found)
            pairs = deviations.differences(found, [(b, a) for a, b in adjacent])
        else:
            bots = {b: skills[b].deviation for b in rated}
            pairs = [math.hypot(skills[a].deviation, skills[b].deviation) for a, b in adjacent]
        for b in rated:
            tally.bot[method].add((elo[b] - mean) - (true[b] - true_mean), bots[b])
        for (a, b), deviation in zip(adjacent, pairs, strict=True):
            tally.diff[method].add((elo[b] - elo[a]) - (true[b] - true[a]), deviation)
        tally.taus[method].append(tau(elo, true))


def tau(elo: dict[int, float], true: dict[int, float]) -> float:
    """bench.ratings.calibration's Kendall tau, the bots numbered by true order."""
    rank = {bot: i for i, bot in enumerate(sorted(elo, key=true.__getitem__))}
    return kendall_tau({rank[b]: e for b, e in elo.items()})


@dataclass(frozen=True)
class Snapshot:
    """A site at one checkpoint: its rating states and every unit rated so far, and the
    share of them a matchmaker seated (the service's pass reads it from the ladder's
    matches: ``field_store.recent_units``)."""

    skills: dict[int, Skill]
    units: list[tournament_fit.Placing[int]]
    chosen: float = 0.0


def site(
    setting: Setting, skills: dict[int, float], rng: random.Random
) -> tuple[dict[int, Snapshot], list[tuple[int, ...]]]:
    """Play one site: its rating states at each checkpoint of average plays per bot, and
    every table it played."""
    draw = _engine_results.results(setting.results, setting.game, setting.seats, len(skills))
    league = League(dict(skills), results=draw)
    source = tables(setting, league, rng)
    cell = Cell(setting.game, setting.seats)
    pending = list(CHECKPOINTS)
    chosen = 1.0 if setting.schedule in MATCHMADE else 0.0
    snapshots: dict[int, Snapshot] = {}
    played: list[tuple[int, ...]] = []
    while pending:
        played.append(next(source))
        league.play(cell, played[-1], rng)
        plays = sum(league.matches.values()) / len(skills)
        if plays >= pending[0]:
            units = list(league.units)
            snapshots[pending.pop(0)] = Snapshot(dict(league.skills_now), units, chosen)
    return snapshots, played


def measure(setting: Setting, sites: int, seed: int, every: int = 0) -> dict[int, Tally]:
    """Play ``sites`` sites, then check every checkpoint's intervals against the truth
    (``every``: report the sites so far after each ``every`` sites, truth "random" only).

    The truth is the rating each bot converges to: by default the fit to many random
    tables. The model is not exactly the rating's (a logistic curve), so on a wide field
    the fit depends a little on who meets whom: with 50 bots, the fit to near neighbours'
    tables spans 9% less than the fit to random ones (507 against 555 Elo, the ends 22-24
    Elo apart). ``setting.truth == "schedule"``: the fit to the tables the sites themselves
    played, drawn as often as they were, which is what the ratings on this schedule
    estimate."""
    began = time.perf_counter()
    rng = random.Random(seed)
    skills = {b: STEP[setting.bots] * b for b in range(setting.bots)}
    truth_rng = random.Random(seed + 1)
    true = truth(setting, skills, truth_rng, 5000 * setting.bots)
    tallies = {c: Tally() for c in CHECKPOINTS}
    played = []
    for number in range(1, sites + 1):
        snapshots, tables_of = site(setting, skills, rng)
        if setting.truth == "schedule":  # checked once every site has played
            played.append((snapshots, tables_of))
            continue
        for plays, snapshot in snapshots.items():  # counted as it goes: a stopped run
            check(snapshot, true, tallies[plays])  # still reports
        if every and number % every == 0 and number < sites:
            report(setting, tallies, time.perf_counter() - began, number)
    if setting.truth == "schedule":
        design = [t for _, tables_of in played for t in tables_of]
        true = pool_fit(
            setting, skills, lambda: truth_rng.choice(design), truth_rng, 5000 * setting.bots
        )
        for snapshots, _ in played:
            for plays, snapshot in snapshots.items():
                check(snapshot, true, tallies[plays])
        spread = max(true.values()) - min(true.values())
        print(f"{'':<30} (truth from {len(design):,} tables played: spans {spread:.0f} Elo)")
    return tallies


def report(
    setting: Setting, tallies: dict[int, Tally], seconds: float, sites: int | None = None
) -> None:
    """One line a checkpoint (``sites``: a partial report, after that many sites)."""
    if sites is not None:
        print(f"{'':<30} after {sites} sites:")
    for plays, t in tallies.items():
        cells = [f"{setting.label():<30} {plays:>3}"]
        for method in METHODS:
            bot, diff = t.bot[method], t.diff[method]
            cells.append(
                f"{bot.coverage():.3f} {diff.coverage():.3f} {statistics.pstdev(bot.z):4.2f} "
                f"{statistics.fmean(bot.errors):3.0f} {statistics.fmean(t.taus[method]):.3f}"
            )
        print(" | ".join(cells))
    print(f"{'':<30} ({seconds:.0f} s)", flush=True)


SETTINGS = [
    *(
        Setting("ladder", g, n, b)
        for b in (8, 50)
        for g, n in (("bigtwo", 2), ("oceans11", 2), ("bigtwo", 4), ("fifteen35", 6))
    ),
    *(
        Setting("linked", g, n, b)
        for b in (8, 50)
        for g, n in (("bigtwo", 2), ("oceans11", 2), ("bigtwo", 4), ("fifteen35", 6))
    ),
    *(
        Setting(kind, g, n, b)
        for kind, b in (("closed", 8), ("open", OPEN_POPULATION), ("closed", 50), ("open", 50))
        for g, n in (("bigtwo", 2), ("bigtwo", 4), ("fifteen35", 6))
    ),
]


#: Each on/off switch of the pass a flag may set (``--X`` / ``--no-X``; left out: the
#: service's own setting).
SWITCHES = {
    "count_spread": (field_dispersion, "COUNT_SPREAD"),
    "measure_at_spread": (field_dispersion, "MEASURE_AT_SPREAD"),
    "reduce_bias": (field_dispersion, "REDUCE_BIAS"),
    "curved": (field_dispersion, "CURVED"),
    "residual_information": (field_dispersion, "RESIDUAL_INFORMATION"),
}


def _set_switches(args: argparse.Namespace) -> None:
    """The switches and scales the flags name, in this process only; the rest as the
    service has them."""
    for name, (module, constant) in SWITCHES.items():
        if getattr(args, name) is not None:
            setattr(module, constant, getattr(args, name))
    if args.firth_sandwich is not None:
        field_bias.SANDWICH = args.firth_sandwich
    if args.firth_sandwich_small is not None:
        field_bias.SANDWICH_SMALL = args.firth_sandwich_small
    if args.firth_scales is not None:
        fit, posterior = args.firth_scales.split(",")
        field_dispersion.FIRTH_SCALES = (fit, posterior)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", type=int, default=200, help="simulated sites per cell")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--seeds",
        type=int,
        default=1,
        help="run each cell on this many seeds from --seed on (each as --seed S would), "
        "then report the seeds pooled",
    )
    parser.add_argument("--only", choices=("ladder", "linked", "closed", "open"))
    parser.add_argument(
        "--bots", type=int, choices=(8, 50), help="8: the small fields (open: 12), or 50"
    )
    parser.add_argument("--seats", type=int, choices=(2, 4, 6))
    parser.add_argument("--game", choices=sorted(SHAPES))
    parser.add_argument(
        "--results",
        choices=("model", "engine"),
        default="model",
        help="engine: each match drawn from real games of house bots of mixed policies",
    )
    parser.add_argument(
        "--truth",
        choices=("random", "schedule"),
        default="random",
        help="schedule: the truth is the fit to the tables the sites played (see measure)",
    )
    parser.add_argument(
        "--report-every",
        type=int,
        default=0,
        help="also report each cell's sites so far after every this many sites",
    )
    parser.add_argument(
        "--pool-units", type=float, help="experiment: field_dispersion.POOL_UNITS, not 8"
    )
    parser.add_argument(
        "--count-spread",
        action=argparse.BooleanOptionalAction,
        help="experiment: field_dispersion.COUNT_SPREAD (the deviations count the field's spread)",
    )
    parser.add_argument(
        "--reduce-bias",
        action=argparse.BooleanOptionalAction,
        help="experiment: field_dispersion.REDUCE_BIAS (Firth's adjusted score in every fit)",
    )
    parser.add_argument(
        "--curved",
        action=argparse.BooleanOptionalAction,
        help="experiment: field_dispersion.CURVED (information where the truth likely is)",
    )
    parser.add_argument(
        "--firth-sandwich",
        type=float,
        help="experiment: field_bias.SANDWICH, the share of Firth's noise with its penalty"
        " held fixed in the deviations (0 the penalised posterior, 1 the sandwich alone)",
    )
    parser.add_argument(
        "--firth-sandwich-small",
        type=float,
        help="experiment: field_bias.SANDWICH_SMALL, that share in a field of up to"
        " SANDWICH_FROM bots, falling to none at SANDWICH_TO",
    )
    parser.add_argument(
        "--residual-information",
        action=argparse.BooleanOptionalAction,
        help="experiment: field_dispersion.RESIDUAL_INFORMATION (the information from the"
        " pairs' residuals and draws)",
    )
    parser.add_argument(
        "--firth-scales",
        help="experiment, with --reduce-bias: field_dispersion.FIRTH_SCALES (fit,posterior:"
        " one, pair or unit)",
    )
    parser.add_argument(
        "--prior-bots", type=float, help="experiment: field_spread.PRIOR_BOTS, not 2"
    )
    parser.add_argument(
        "--measure-at-spread",
        action=argparse.BooleanOptionalAction,
        help="experiment, with --count-spread: field_dispersion.MEASURE_AT_SPREAD",
    )
    parser.add_argument(
        "--own-weight-cap", type=float, help="experiment: field_dispersion.OWN_WEIGHT_MAX"
    )
    args = parser.parse_args()
    if args.pool_units is not None:
        field_dispersion.POOL_UNITS = args.pool_units
    if args.own_weight_cap is not None:
        field_dispersion.OWN_WEIGHT_MAX = args.own_weight_cap
    if args.prior_bots is not None:
        field_spread.PRIOR_BOTS = args.prior_bots
    _set_switches(args)
    chosen = [
        dataclasses.replace(s, results=args.results, truth=args.truth)
        for s in SETTINGS
        if args.results == "model" or _engine_results.engine_ready(s.game, s.seats, s.bots)
        if (args.only is None or s.schedule == args.only)
        and (args.bots is None or (s.bots > OPEN_POPULATION) == (args.bots > OPEN_POPULATION))
        and (args.seats is None or s.seats == args.seats)
        and (args.game is None or s.game == args.game)
    ]
    print(
        f"coverage of the global rating's 95% intervals, {args.sites} sites per cell, "
        f"results: {args.results}, truth: {args.truth} tables"
    )
    head = " | ".join(f"{m + ': bot  diff zsd MAE  tau':<27}" for m in METHODS)
    print(f"{'cell':<30} {'pl':>3} | {head}")
    for number, setting in enumerate(chosen):
        began = time.perf_counter()
        pooled: dict[int, Tally] = {c: Tally() for c in CHECKPOINTS}
        for seed in range(args.seed, args.seed + args.seeds):
            if args.seeds > 1:
                print(f"{'':<30} seed {seed}:")
            tallies = measure(setting, args.sites, seed * 1000 + number, args.report_every)
            report(setting, tallies, time.perf_counter() - began)
            for plays, tally in tallies.items():
                merge(pooled[plays], tally)
        if args.seeds > 1:
            print(f"{'':<30} seeds {args.seed}-{seed} pooled, {args.seeds * args.sites} sites:")
            report(setting, pooled, time.perf_counter() - began)


def merge(into: Tally, tally: Tally) -> None:
    """Add one seed's intervals to ``into`` (the cell's pooled tally over seeds)."""
    for kind in ("bot", "diff"):
        for method, counts in getattr(tally, kind).items():
            pooled = getattr(into, kind)[method]
            pooled.intervals += counts.intervals
            pooled.covered += counts.covered
            pooled.z += counts.z
            pooled.errors += counts.errors
    for method, taus in tally.taus.items():
        into.taus[method] += taus


if __name__ == "__main__":
    main()
