"""Match results played by the real engines, for the calibration benches (issue 30).

bench.ratings.calibration's models draw a score as round(G x (skill + seat luck + noise)); whether
the rating's intervals hold on real games is another question. Real games are too slow
to play inside a bench that rates hundreds of thousands of matches, so they are played
once here and kept: a field of house bots of graded strength (``MixedPolicy``: each move
the strong house bot's with probability q, the weak one's otherwise, q rising in even
steps from bot 0 to the last), and for every table of the field many duplicate deals,
each played at every rotation as the service's duplicate matches play it, stored as the
match result the service stores (per game: deal, seating, scores and places; the totals).

A bench then draws each match it schedules from its table's deals (with replacement), and
takes as the truth each bot's rating fitted to the whole library, the value a site's
fit converges to. The library is cached under var/engine-results/, one file per table,
named for a hash of what decides play (the engines and house bots, as
bench/_match_library.py hashes them, the field and the deals per table): a build that
stops is resumed where it stopped, and an engine's change plays it again.

``python -m bench._engine_results GAME [--seats N] [--bots B] [--jobs J]`` builds (or
checks) a library and prints each bot's fitted rating: ``fifteen35 --seats 6 --bots 8``
the Fifteen Thirty-Five field (``--bots 12`` its open population, OPEN_FIELDS), ``bigtwo
--bots 50`` the 50-bot one (WIDE_FIELDS).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import itertools
import json
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import judge.games
from bench._match_library import ROOT, engine_sources
from judge.bots import Policy, house_policy
from judge.engine import Action
from judge.players import PolicyChannel, house_seed
from judge.referee import BotInfo, MatchSpec, play_match
from judge.rng import derive_seed
from tournaments.rating.model import tournament_fit
from tournaments.rating.model.units import match_units

if TYPE_CHECKING:
    from bench._engine_fresh import Fresh

CACHE = ROOT / "var" / "engine-results"
#: Changed when a stored deal's form changes (a library of another form is played again).
FORM = 1
#: The bots of every field: q of bot k is k / (LADDER - 1); a field of fewer bots takes
#: the first ones (so a field of 8 and the open population of 12 share their deals).
LADDER = 12


class MixedPolicy:
    """The strong policy's move with probability ``q``, the weak one's otherwise.

    Both house bots are stateless between moves (each reads only the observation), so
    mixing them move by move gives a bot whose strength rises with q between theirs.
    """

    def __init__(self, strong: Policy, weak: Policy, q: float, seed: int) -> None:
        self.strong, self.weak, self.q = strong, weak, q
        self.rng = random.Random(seed)

    def act(self, observation: dict[str, Any], legal: list[Action]) -> Action:
        chosen = self.strong if self.rng.random() < self.q else self.weak
        return chosen.act(observation, legal)


def even_steps(bots: int = LADDER) -> tuple[float, ...]:
    """q rising in even steps from 0 to 1 (Big Two: about 60 Elo a step of a field of 12,
    nearly even; about 13 a step of a field of 50)."""
    return tuple(k / (bots - 1) for k in range(bots))


def random_mistakes_costly(rate: float = 6.0, bots: int = LADDER) -> tuple[float, ...]:
    """q for a game where a few random moves cost most of the strong bot's edge.

    In Oceans 11 one random concession loses a hand the greedy bot would have fought for:
    measured (30 deals a table), the edge over random fell roughly as exp(-6 (1 - q)),
    and bots of q below 0.5 were all level. q_k = 1 + ln(k / 11) / 6 puts the field's
    strengths about evenly apart (bot 0 stays random; of ``bots`` bots, q_k = 1 +
    ln(k / (bots - 1)) / 6)."""
    last = bots - 1
    return tuple(max(0.0, 1.0 + math.log(k / last) / rate) if k else 0.0 for k in range(bots))


@dataclass(frozen=True)
class Field:
    """A game at a table size, its two house bots, each bot's q, the deals kept per
    table and how many tables a library of a larger table size samples."""

    game: str
    seats: int
    strong: str = "greedy"
    weak: str = "random"
    deals: int = 400
    tables: int = 0  # 0: every table of the field
    qs: tuple[float, ...] = even_steps()

    def q(self, bot: int) -> float:
        return self.qs[bot]

    def label(self) -> str:
        return f"{self.game} {self.seats}p"


#: The fields that are cheap enough to play (per duplicate deal, in process, at load 5:
#: Big Two 21 ms at 2 seats and 59 ms at 4, Oceans 11 82 ms). Fifteen Thirty-Five at 6
#: seats cost 0.7 s a deal at load 2 (1.35 s at load 5): a third greedy's expected gap
#: after a draw, a third the engine's observation (a deep copy of the last hand's record
#: on every move), the rest the referee; both cut since (160 ms of CPU a deal against
#: 382, bench.engines.fifteen35_deals). Its field of 8 bots is the 28 tables, 60 deals
#: each; the open population's 924 tables are OPEN_FIELDS'.
FIELDS = {
    ("bigtwo", 2): Field("bigtwo", 2),
    ("oceans11", 2): Field("oceans11", 2, deals=300, qs=random_mistakes_costly()),
    ("bigtwo", 4): Field("bigtwo", 4, deals=200, tables=70),
    ("fifteen35", 6): Field("fifteen35", 6, deals=60, tables=28),
}

#: Fields of more bots than LADDER (the 50-bot cells), by game and seats: ``qs`` over WIDE
#: bots spaced as the 12-bot field's, every table (a ladder seats any pair), fewer deals a table
#: (the ladder's neighbour tables are drawn often, but each draw is one of the table's
#: deals with replacement, so a site's results follow the library's fit, the truth, however
#: few). Big Two 2p: 1,225 tables, 40 deals each (built in 9.5 min at load 10, 12 ms a
#: deal; it spans 600 Elo, about 12 a step); Oceans 11 2p: 12 deals each (built in 17
#: min at load 3-12; it spans 543 Elo).
WIDE = 50
WIDE_FIELDS = {
    ("bigtwo", 2): Field("bigtwo", 2, deals=40, qs=even_steps(WIDE)),
    ("oceans11", 2): Field("oceans11", 2, deals=12, qs=random_mistakes_costly(bots=WIDE)),
}


#: Fields of the open population (LADDER bots) where FIELDS' one samples its tables: every
#: table, fewer deals each (as the wide fields: a site draws each match from its table's
#: deals with replacement, and the truth is this library's fit). Fifteen Thirty-Five 6p:
#: the 924 tables of 6 among 12, 6 deals each (``fifteen35 --seats 6 --bots 12``); Big Two
#: 4p: the 495 tables of 4 among 12, 30 deals each (``bigtwo --seats 4 --bots 12``).
OPEN_FIELDS = {
    ("fifteen35", 6): Field("fifteen35", 6, deals=6),
    ("bigtwo", 4): Field("bigtwo", 4, deals=30),
}


def field_of(game: str, seats: int, bots: int) -> Field | None:
    """The field whose library stands for a cell of ``bots`` at ``seats``, if any."""
    if bots <= LADDER:
        found = FIELDS.get((game, seats))
        if found is not None and 0 < found.tables < math.comb(bots, seats):
            return OPEN_FIELDS.get((game, seats), found)
        return found
    found = WIDE_FIELDS.get((game, seats))
    return found if found is not None and bots <= len(found.qs) else None


def mixed_player(field: Field, bot: int, seed: int) -> MixedPolicy:
    strong = house_policy(field.game, field.strong, derive_seed(seed, "strong"))
    weak = house_policy(field.game, field.weak, derive_seed(seed, "weak"))
    return MixedPolicy(strong, weak, field.q(bot), derive_seed(seed, "mix"))


def play_deal(field: Field, table: Sequence[int], seed: int) -> dict[str, Any]:
    """One duplicate deal of ``table`` (bot per seat), stored as the service stores a
    match's result, reduced to what the units read."""
    spec = MatchSpec(game=field.game, seed=seed, players=len(table), games=1, duplicate=True)
    bots = [BotInfo(f"mixed:{field.q(bot):.3f}") for bot in table]

    def start(index: int) -> PolicyChannel:
        return PolicyChannel(mixed_player(field, table[index], house_seed(seed, index)))

    stored = play_match(spec, bots, start).to_json()
    if stored["faults"]:
        raise RuntimeError(f"a house bot faulted: {stored['faults']}")
    games = [
        {"deal": g["deal"], "seating": g["seating"], "result": _scores(g["result"])}
        for g in stored["games"]
    ]
    return {"scores": stored["scores"], "places": stored["places"], "games": games}


def _scores(result: dict[str, Any]) -> dict[str, Any]:
    return {"scores": result["scores"], "places": result["places"]}


def tables_of(field: Field, bots: int) -> list[tuple[int, ...]]:
    """The tables of a field of ``bots`` (bot numbers in increasing order): every one,
    or a fixed sample of ``field.tables`` when the field has more."""
    every = list(itertools.combinations(range(bots), field.seats))
    if not field.tables or field.tables >= len(every):
        return every
    return sorted(random.Random(f"{field.label()}:{bots}").sample(every, field.tables))


@cache
def key(field: Field) -> str:
    """A hash of what decides the library's play: its form, the field and the engines."""
    digest = hashlib.sha256(f"{FORM}:{field}:{LADDER}".encode())
    for path in game_sources(field.game):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def game_sources(game: str) -> list[Path]:
    """The engine sources that decide how ``game`` plays: every shared one, and of
    judge/games/ only the game's own package, so a change to one game's engine or house
    bots does not play the other games' libraries again (each costs up to half an hour)."""
    games = Path(judge.games.__file__).parent
    own = games / game
    return [
        path
        for path in engine_sources()
        if not path.is_relative_to(games) or path.parent == games or path.is_relative_to(own)
    ]


def table_path(field: Field, table: Sequence[int]) -> Path:
    name = "-".join(map(str, table))
    return CACHE / f"{field.game}-{field.seats}p-{key(field)}" / f"{name}.json.gz"


def _build_table(job: tuple[Field, tuple[int, ...]]) -> tuple[tuple[int, ...], float]:
    """Play one table's deals and write them (atomically); the seconds it took."""
    field, table = job
    began = time.perf_counter()
    seed = derive_seed(key(field), *table)
    deals = [play_deal(field, table, derive_seed(seed, i)) for i in range(field.deals)]
    path = table_path(field, table)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_bytes(gzip.compress(json.dumps(deals, separators=(",", ":")).encode()))
    partial.replace(path)
    return table, time.perf_counter() - began


def build(field: Field, bots: int, jobs: int = 1) -> None:
    """Play every table of the field not cached yet, saying how far it has got."""
    tables = tables_of(field, bots)
    missing = [t for t in tables if not table_path(field, t).exists()]
    if not missing:
        return
    done = len(tables) - len(missing)
    print(
        f"engine results: {field.label()}, {bots} bots: {len(missing)} of {len(tables)} "
        f"tables to play, {field.deals} deals each",
        file=sys.stderr,
        flush=True,
    )
    began = time.perf_counter()
    work = [(field, t) for t in missing]
    with multiprocessing.Pool(jobs) if jobs > 1 else _Serial() as pool:
        for count, (table, seconds) in enumerate(pool.imap_unordered(_build_table, work), 1):
            left = (time.perf_counter() - began) / count * (len(missing) - count)
            print(
                f"engine results: {field.label()} table {table} in {seconds:.0f} s; "
                f"{done + count}/{len(tables)}, about {left / 60:.0f} min left",
                file=sys.stderr,
                flush=True,
            )


class _Serial:
    """A one-process stand-in for a Pool (no process start when one job is asked)."""

    def __enter__(self) -> _Serial:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def imap_unordered(self, function: Any, work: list[Any], chunksize: int = 1) -> Any:
        return map(function, work)


class Library:
    """The deals of every table of a field of ``bots``: drawn from, and fitted."""

    def __init__(self, field: Field, bots: int, jobs: int = 1) -> None:
        build(field, bots, jobs)
        self.field, self.bots = field, bots
        self.deals = {
            t: json.loads(gzip.decompress(table_path(field, t).read_bytes()))
            for t in tables_of(field, bots)
        }

    def draw(self, table: Sequence[int], rng: random.Random) -> dict[str, Any]:
        """A stored result of ``table`` (bot per seat, in the order asked): one of its
        deals at random, its bot indices renumbered from the stored order to the asked."""
        stored = tuple(sorted(table))
        deal = rng.choice(self.deals[stored])
        return relabel(deal, [stored.index(bot) for bot in table])

    def units(self) -> list[tournament_fit.Placing[int]]:
        """Every deal's comparison unit, as match_units reads the stored result."""
        return [
            tournament_fit.Placing(table, places)
            for table, deals in self.deals.items()
            for deal in deals
            for places in match_units(len(table), deal, duplicate=True, deals=1)
        ]

    def truth(self) -> dict[int, float]:
        """Each bot's rating fitted to the whole library (what a site's fit tends to)."""
        fits = tournament_fit.fit_units(self.units(), list(range(self.bots)))
        return {bot: fit.elo for bot, fit in fits.items()}


def relabel(result: dict[str, Any], order: Sequence[int]) -> dict[str, Any]:
    """``result`` with bot index ``order[i]`` renamed ``i`` (seatings, totals, places)."""
    new = {old: i for i, old in enumerate(order)}
    games = [{**g, "seating": [new[bot] for bot in g["seating"]]} for g in result["games"]]
    return {
        "scores": [result["scores"][old] for old in order],
        "places": [result["places"][old] for old in order],
        "games": games,
    }


@cache
def library(game: str, seats: int, bots: int) -> Library | Fresh:
    """The library of a game's field at ``seats`` of ``bots`` (built if missing), or the
    wide field played as drawn where no library can hold every table (bench/_engine_fresh.py)."""
    found = field_of(game, seats, bots)
    wide = fresh(game, seats, bots) if found is None else None
    if wide is not None:
        return wide
    if found is None:
        there = [*FIELDS, *(f"{g} {n}p, {WIDE} bots" for g, n in WIDE_FIELDS)]
        raise ValueError(
            f"no engine field for {game} at {seats} seats of {bots}; there are {there}"
        )
    return Library(found, bots)


#: A bench's source of match results: (cell, bot per seat, rng) -> the stored result.
Results = Callable[[Any, Sequence[int], random.Random], dict[str, Any]]


def results(kind: str, game: str, seats: int, bots: int) -> Results | None:
    """The calibration benches' ``--results``: None for ``model`` (the bench's own game
    model), for ``engine`` a draw from this library's deals of the table asked."""
    if kind == "model":
        return None
    found = library(game, seats, bots)
    return lambda _cell, table, rng: found.draw(table, rng)


def engine_ready(game: str, seats: int, bots: int) -> bool:
    """Whether real games can stand for a cell: a field of that game and size, of
    ``bots`` (at most LADDER, or a wide field's), whose library holds every table a site
    may seat."""
    found = field_of(game, seats, bots)
    if found is None:
        return fresh(game, seats, bots) is not None
    return not found.tables or found.tables >= math.comb(bots, seats)


def fresh(game: str, seats: int, bots: int) -> Fresh | None:
    """The wide field of bench/_engine_fresh.py for a cell, if any (imported here: it
    builds on this module)."""
    from bench import _engine_fresh

    return _engine_fresh.fresh(game, seats, bots)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=sorted({g for g, _ in FIELDS}))
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--bots", type=int, default=LADDER, help=f"up to {LADDER}, or {WIDE}")
    parser.add_argument("--jobs", type=int, default=1, help="processes playing tables")
    args = parser.parse_args()
    field = field_of(args.game, args.seats, args.bots)
    if field is None:
        parser.error(f"no field of {args.game} at {args.seats} seats of {args.bots} bots")
    found = Library(field, args.bots, args.jobs)
    truth = found.truth()
    low = truth[0]
    for bot, elo in truth.items():
        print(f"bot {bot} (q {found.field.q(bot):.3f}): {elo - low:+.0f} Elo over bot 0")


if __name__ == "__main__":
    main()
