"""A big site's history in PostgreSQL in minutes: PostgreSQL COPY of generated rows.

Users, bots (two versions each, across the three games), tournaments, and ``matches``
finished rated matches with their seats, rating history (numbered per bot), the rating
rows that the service keeps (Elo, matches, W/D/L) and the rating records, as
``lease.finish_match`` would leave them. Rows are streamed to COPY (never all in
memory); a progress bar shows each table.
The shape stays the same at every size (the same users, bots and tournaments), so two
sizes differ only in the length of the history.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import Model
from psycopg.types.json import Jsonb
from tqdm import tqdm

from tournaments.rating.global_rating import Skill, rate_units

#: (game, seats at a table) of the seeded matches.
TABLES = (("oceans11", 2), ("bigtwo", 4), ("fifteen35", 3))


@dataclass(frozen=True)
class Shape:
    """How many of each row; only ``matches`` changes between sizes."""

    matches: int
    users: int = 2000
    bots: int = 2500  # two versions each: 5,000 versions
    tournaments: int = 200


@dataclass
class Standing:
    """A bot's rating row as the service keeps it."""

    skill: Skill = field(default_factory=Skill)
    matches: int = 0
    record: list[int] = field(default_factory=lambda: [0, 0, 0])  # wins, draws, losses


def copy_rows(model: type[Model], rows: Iterator[dict[str, Any]], total: int) -> None:
    """COPY ``rows`` (column name -> value) into the model's table; missing columns take
    the field's default (prepared once)."""
    fields = [f for f in model._meta.concrete_fields]
    columns = [f.column for f in fields]
    defaults = {
        f.column: _prepared(f.get_default(), f) for f in fields if f.has_default() or f.null
    }
    table = model._meta.db_table
    names = ", ".join(f'"{c}"' for c in columns)
    with connection.cursor() as wrapper:
        raw = wrapper.cursor
        with raw.copy(f'COPY "{table}" ({names}) FROM STDIN') as copy:
            for row in tqdm(rows, total=total, desc=table, unit=" rows", mininterval=2):
                copy.write_row([row[c] if c in row else defaults[c] for c in columns])
    reset_sequence(table)


def _prepared(value: Any, model_field: Any) -> Any:
    if model_field.get_internal_type() == "JSONField":
        return None if value is None else Jsonb(value)
    return value


def reset_sequence(table: str) -> None:
    """Set the id sequence past the copied ids (rows were copied with their ids)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('\"{table}\"', 'id'), "
            f'COALESCE((SELECT MAX(id) FROM "{table}"), 1))'
        )


def seed(shape: Shape, seed: int = 7) -> dict[str, Any]:
    """Fill the (empty, migrated) database; returns facts the benchmark asks for."""
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import User

    from tournaments.models import (
        Bot,
        BotVersion,
        Match,
        Rating,
        RatingHistory,
        RatingRecord,
        Seat,
        Tournament,
    )
    from tournaments.rating import tournament_fit
    from tournaments.rating.recompute import mark_rated_versions

    rng = random.Random(seed)
    start = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
    password = make_password("bench password")
    copy_rows(
        User,
        (
            {
                "id": i,
                "username": f"user{i}",
                "password": password,
                "email": "",
                "first_name": "",
                "last_name": "",
                "is_staff": False,
                "is_superuser": False,
                "is_active": True,
                "date_joined": start,
                "last_login": None,
            }
            for i in range(1, shape.users + 1)
        ),
        shape.users,
    )
    games = [TABLES[i % len(TABLES)][0] for i in range(shape.bots)]
    copy_rows(
        Bot,
        (
            {
                "id": i + 1,
                "owner_id": 1 + i % shape.users,
                "game": games[i],
                "name": f"bot{i + 1}",
                "house_policy": "",
                "created_at": start,
                "retired": False,
            }
            for i in range(shape.bots)
        ),
        shape.bots,
    )
    copy_rows(
        BotVersion,
        (
            {
                "id": 2 * b + n + 1,
                "bot_id": b + 1,
                "number": n + 1,
                "content_hash": f"{b:032x}{n:032x}",
                "code": b"",
                "status": "accepted",
                "check_report": Jsonb({}),
                "created_at": start,
                "retired": False,
            }
            for b in range(shape.bots)
            for n in range(2)
        ),
        2 * shape.bots,
    )
    copy_rows(
        Tournament,
        (
            {
                "id": t + 1,
                "owner_id": 1 + t % shape.users,
                "name": f"cup {t + 1}",
                "game": TABLES[t % len(TABLES)][0],
                "table_size": TABLES[t % len(TABLES)][1],
                "status": "finished",
                "created_at": start,
            }
            for t in range(shape.tournaments)
        ),
        shape.tournaments,
    )
    by_game: dict[str, list[int]] = {}
    for bot, game in enumerate(games, start=1):
        by_game.setdefault(game, []).append(bot)
    # A few popular bots play far more than the rest (as on a real site).
    weights = {g: [1.0 / (1 + i) ** 0.8 for i in range(len(b))] for g, b in by_game.items()}
    plan = [_planned(m, rng, shape, by_game, weights) for m in range(shape.matches)]
    standings: dict[int, Standing] = {}
    history: list[tuple[int, int, int, float, float]] = []  # match, bot, seq, before, after
    rated_versions: set[int] = set()
    for match_id, _, bots, places in tqdm(plan, desc="ratings", unit=" matches", mininterval=2):
        before = {b: standings.setdefault(b, Standing()).skill for b in bots}
        # A bot whose version (see _seats) is rated for the first time is widened first.
        versions = {b: _version(b, match_id) for b in bots}
        new = {b for b, v in versions.items() if v not in rated_versions}
        rated_versions.update(versions.values())
        # One unit per match: the matches have no games, so the service rates their places.
        unit = tournament_fit.Placing(tuple(bots), tuple(places))
        moved = rate_units(before, [unit], new, versions=versions)
        after = {b: moved.get(b, before[b]) for b in bots}
        for a, b, score in tournament_fit.pairwise(bots, places):
            for bot, mine in ((a, score), (b, 1.0 - score)):
                standings[bot].record[0 if mine == 1.0 else 2 if mine == 0.0 else 1] += 1
        for bot in bots:
            row = standings[bot]
            row.matches += 1
            history.append((match_id, bot, row.matches, before[bot].elo, after[bot].elo))
            row.skill = after[bot]
    copy_rows(Match, _matches(plan, shape, start), shape.matches)
    seats = sum(len(bots) for _, _, bots, _ in plan)
    copy_rows(Seat, _seats(plan), seats)
    copy_rows(
        RatingHistory,
        (
            {
                "id": i,
                "bot_id": bot,
                "match_id": match_id,
                "game": games[bot - 1],
                "seq": seq,
                "before": b,
                "after": a,
                "created_at": start,
            }
            for i, (match_id, bot, seq, b, a) in enumerate(history, start=1)
        ),
        len(history),
    )
    copy_rows(
        Rating,
        (
            {
                "id": bot,
                "bot_id": bot,
                "game": games[bot - 1],
                "elo": row.skill.elo,
                "deviation": row.skill.deviation,
                "units": row.skill.units,
                "variance": row.skill.variance,
                "information": row.skill.information,
                "spread": row.skill.spread,
                "decisive": row.skill.decisive,
                "matches": row.matches,
                "wins": row.record[0],
                "draws": row.record[1],
                "losses": row.record[2],
                "updated_at": start,
            }
            for bot, row in sorted(standings.items())
        ),
        len(standings),
    )
    records = [
        (bot, other, r) for bot, row in standings.items() for other, r in row.skill.records.items()
    ]
    copy_rows(
        RatingRecord,
        (
            {
                "id": i,
                "bot_id": bot,
                "opponent_id": other,
                "results": r.results,
                "score": r.score,
                "seen": r.seen,
            }
            for i, (bot, other, r) in enumerate(records, start=1)
        ),
        len(records),
    )
    mark_rated_versions()  # as match_rating.rate_match flags a version at its first rated match
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    busiest = max(standings, key=lambda b: standings[b].matches)
    return {"busiest_bot": busiest, "busiest_matches": standings[busiest].matches}


def _planned(
    match: int,
    rng: random.Random,
    shape: Shape,
    by_game: dict[str, list[int]],
    weights: dict[str, list[float]],
) -> tuple[int, int, list[int], list[int]]:
    """(match id, tournament id, bots in seat order, places) of one match."""
    tournament = match % shape.tournaments
    game, size = TABLES[tournament % len(TABLES)]
    bots: list[int] = []
    while len(bots) < size:
        [bot] = rng.choices(by_game[game], weights[game])
        if bot not in bots:
            bots.append(bot)
    scores = [rng.randint(0, 3) for _ in bots]
    places = [1 + sum(s > mine for s in scores) for mine in scores]
    return match + 1, tournament + 1, bots, places


def _matches(
    plan: Sequence[tuple[int, int, list[int], list[int]]], shape: Shape, start: dt.datetime
) -> Iterator[dict[str, Any]]:
    for match_id, tournament, _, places in plan:
        game = TABLES[(tournament - 1) % len(TABLES)][0]
        when = start + dt.timedelta(seconds=20 * match_id)
        yield {
            "id": match_id,
            "tournament_id": tournament,
            "number": match_id // shape.tournaments,
            "game": game,
            "games": 2,
            "status": "done",
            "attempt": 1,
            "worker": "bench@host",
            "result": Jsonb({"scores": [-p for p in places], "places": places, "games": []}),
            "rating_seq": match_id,
            "enqueued_at": when,
            "started_at": when,
            "finished_at": when + dt.timedelta(seconds=15),
            "seed": match_id,
            "rated": True,
            "duplicate": False,
        }


def _version(bot: int, match_id: int) -> int:
    """The version id a bot plays a match with: both versions of each bot play."""
    return 2 * (bot - 1) + 1 + match_id % 2


def _seats(plan: Sequence[tuple[int, int, list[int], list[int]]]) -> Iterator[dict[str, Any]]:
    seat_id = 0
    for match_id, _, bots, _ in plan:
        for index, bot in enumerate(bots):
            seat_id += 1
            version = _version(bot, match_id)
            yield {
                "id": seat_id,
                "match_id": match_id,
                "index": index,
                "version_id": version,
                "bot_id": bot,
                "log": "",
            }
