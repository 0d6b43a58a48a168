"""A big site whose rows are real: real matches re-seated onto seeded bots, by COPY.

Users, bots (two versions each, spread over every game), tournaments with entrants (each
at one of its game's table sizes, most at the default), and ``matches`` finished rated
matches. Each match is a real one from the match library (bench/_match_library.py:
played by the engines, cached under var/), sampled for its tournament's game and table
size and re-seated onto entrants of that tournament: its row carries the per-game
results, the units, faults and timings the worker stored, its seats the bots' logs, and
its replay is a gzip file in the configured replay storage (REPLAY_STORAGE) named in a
Replay row. Rows are streamed to PostgreSQL COPY; then the ratings, the rating history,
records and first-rated flags are computed by the service's own code in one streaming
pass over the history (tournaments.rating.stored.recompute.recompute_and_store, as
``manage.py recompute_ratings --write`` does) and each tournament's table is fitted and
cached (tournaments.competitions.standings.refresh_table), as the worker leaves them.

The shape stays the same at every size (the same users, bots and tournaments), so two
sizes differ only in the length of the history.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Model
from tqdm import tqdm

from bench._match_library import Cell, Entry, ReplayParts, default_players, library

START = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
#: Seconds between two seeded matches' ends, and a match's length.
SPACING = 20
LENGTH = 15


@dataclass(frozen=True)
class Shape:
    """How many of each row; only ``matches`` changes between sizes."""

    matches: int
    users: int = 2000
    bots: int = 2500  # two versions each: 5,000 versions
    tournaments: int = 200
    entrants: int = 24  # per tournament (at least its table size)
    per_cell: int = 4  # library matches per game and table size
    largest: int = 99  # the largest table in the library (a test's small site: 4)


@dataclass(frozen=True)
class Planned:
    """A seeded tournament: its game, table size and entrants (version ids)."""

    id: int
    cell: Cell
    entrants: tuple[int, ...]
    first_match: int  # id of its first match
    matches: int


def json_text(value: Any) -> str:
    """A JSON column's value as COPY reads it (text), serialized once."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def copy_rows(model: type[Model], rows: Iterable[dict[str, Any]], total: int) -> None:
    """COPY ``rows`` (column name -> value; JSON columns as text) into the model's table;
    missing columns take the field's default (prepared once)."""
    fields = list(model._meta.concrete_fields)
    columns = [f.column for f in fields]
    defaults = {f.column: _prepared(f) for f in fields if f.has_default() or f.null}
    table = model._meta.db_table
    names = ", ".join(f'"{c}"' for c in columns)
    with connection.cursor() as wrapper:
        raw = wrapper.cursor
        with raw.copy(f'COPY "{table}" ({names}) FROM STDIN') as copy:
            for row in tqdm(rows, total=total, desc=table, unit=" rows", mininterval=2):
                copy.write_row([row[c] if c in row else defaults[c] for c in columns])
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('\"{table}\"', 'id'), "
            f'COALESCE((SELECT MAX(id) FROM "{table}"), 1))'
            if any(f.column == "id" for f in fields)
            else "SELECT 1"
        )


def _prepared(model_field: Any) -> Any:
    value = model_field.get_default()
    if model_field.get_internal_type() == "JSONField":
        return None if value is None else json_text(value)
    return value


def seed(shape: Shape, seed: int = 7, processes: int = 1) -> dict[str, Any]:
    """Fill the (empty, migrated) database; returns facts the benchmarks ask for.

    ``processes`` > 1 (rows committed as they are copied: not inside a test's
    transaction) rates the games in that many worker processes (recompute_and_store's
    own option) while a thread of this process writes the replay files and their rows,
    then each tournament's table: none of those reads a rating, and each side waits on
    the database and the disk for much of its time."""
    rng = random.Random(seed)
    found = library(shape.per_cell, shape.largest)
    games = sorted({cell.game for cell in found})
    bot_games = [games[i % len(games)] for i in range(shape.bots)]
    _users(shape)
    _bots(bot_games, shape)
    plan = _tournaments(shape, bot_games, found, rng)
    tables = _matches(plan, found, rng)
    matches, seats = len(tables), sum(len(versions) for _, versions in tables)
    print(f"{matches} matches, {seats} seats copied", flush=True)
    _analyze()  # the ratings' streams read what COPY just wrote
    if processes > 1:
        with ThreadPoolExecutor(1) as beside:
            done = beside.submit(_replays_and_tables, tables, rng, plan, True)
            _ratings(matches, processes)
            done.result()  # its error, if any, raised here
    else:
        _replays_and_tables(tables, rng, plan)
        _ratings(matches, processes)
    _analyze()
    return _facts()


def _analyze() -> None:
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def _ratings(matches: int, processes: int) -> None:
    """The ratings, history, records and flags by the service's recompute (as
    ``manage.py recompute_ratings --write --processes N``), the history's table
    ``loading`` meanwhile (one row per seat)."""
    from tournaments.models import RatingHistory
    from tournaments.rating.stored.recompute import recompute_and_store

    with (
        loading(RatingHistory),
        tqdm(total=matches, desc="ratings", unit=" matches", mininterval=2) as bar,
    ):

        def rated(done: int) -> None:
            bar.update(done - bar.n)

        recompute_and_store(rated, every=1000, processes=processes)


def _replays_and_tables(
    tables: list[tuple[_Kept, tuple[int, ...]]],
    rng: random.Random,
    plan: Sequence[Planned],
    thread: bool = False,
) -> None:
    """Each match's replay (file and row), then each tournament's table fitted and
    cached, as the worker leaves them (in a thread: on its own connection, closed).
    ``tables`` is emptied once the replays are written (its half a million tuples would
    otherwise stay until the end, beside the ratings' states)."""
    from tournaments.competitions.standings import refresh_table
    from tournaments.models import Replay

    try:
        copy_rows(Replay, _replay_rows(tables, rng), len(tables))
        tables.clear()
        for tournament in tqdm(plan, desc="tournament tables", mininterval=2):
            refresh_table(tournament.id)
    finally:
        if thread:
            connection.close()


def _facts() -> dict[str, Any]:
    from tournaments.models import Rating

    busiest = Rating.objects.order_by("-matches", "bot_id").values_list("bot_id", "matches")[0]
    return {"busiest_bot": busiest[0], "busiest_matches": busiest[1]}


def _users(shape: Shape) -> None:
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import User

    password = make_password("bench password")
    rows = (
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
            "date_joined": START,
            "last_login": None,
        }
        for i in range(1, shape.users + 1)
    )
    copy_rows(User, rows, shape.users)


def version_id(bot: int, number: int) -> int:
    """The id of version ``number`` (1 or 2) of bot ``bot``."""
    return 2 * (bot - 1) + number


def bot_of(version: int) -> int:
    return (version - 1) // 2 + 1


def _bots(bot_games: Sequence[str], shape: Shape) -> None:
    from tournaments.models import Bot, BotVersion

    bots = (
        {
            "id": b,
            "owner_id": 1 + (b - 1) % shape.users,
            "game": bot_games[b - 1],
            "name": f"bot{b}",
            "house_policy": "",
            "created_at": START,
            "retired": False,
        }
        for b in range(1, shape.bots + 1)
    )
    copy_rows(Bot, bots, shape.bots)
    versions = (
        {
            "id": version_id(b, n),
            "bot_id": b,
            "number": n,
            "content_hash": f"{b:032x}{n:032x}",
            "code": b"",
            "status": "accepted",
            "check_report": json_text({"passed": True, "problems": []}),
            "created_at": START,
            "retired": False,
        }
        for b in range(1, shape.bots + 1)
        for n in (1, 2)
    )
    copy_rows(BotVersion, versions, 2 * shape.bots)


def _tournaments(
    shape: Shape, bot_games: Sequence[str], found: dict[Cell, list[Entry]], rng: random.Random
) -> list[Planned]:
    """Plan and COPY the tournaments and their entrants: a few popular bots enter far
    more than the rest (as on a real site); a bot's second version enters from a
    tournament of its own on."""
    from tournaments.models import Tournament

    by_game: dict[str, list[int]] = {}
    for bot, game in enumerate(bot_games, start=1):
        by_game.setdefault(game, []).append(bot)
    weights = {g: [1.0 / (1 + i) ** 0.8 for i in range(len(b))] for g, b in by_game.items()}
    switch = [rng.randrange(shape.tournaments) for _ in bot_games]
    sizes = {g: [c for c in found if c.game == g] for g in by_game}
    plan = []
    first = 1
    for t in range(shape.tournaments):
        game = sorted(by_game)[t % len(by_game)]
        default = Cell(game, default_players(game))
        cell = default if default in found and rng.random() < 0.5 else rng.choice(sizes[game])
        wanted = min(max(cell.players, shape.entrants), len(by_game[game]))
        chosen: dict[int, None] = {}
        while len(chosen) < wanted:
            chosen.update(dict.fromkeys(rng.choices(by_game[game], weights[game])))
        entrants = tuple(version_id(b, 2 if t >= switch[b - 1] else 1) for b in chosen)
        count = (
            t + 1
        ) * shape.matches // shape.tournaments - t * shape.matches // shape.tournaments
        plan.append(Planned(t + 1, cell, entrants, first, count))
        first += count
    copy_rows(Tournament, (_tournament_row(t, shape) for t in plan), len(plan))
    through = Tournament.participants.through
    rows = (
        {"id": None, "tournament_id": t.id, "botversion_id": v} for t in plan for v in t.entrants
    )
    _copy_without_id(through, rows, sum(len(t.entrants) for t in plan))
    return plan


def _copy_without_id(model: type[Model], rows: Iterable[dict[str, Any]], total: int) -> None:
    """COPY rows whose ids the table numbers itself."""
    columns = [f.column for f in model._meta.concrete_fields if f.column != "id"]
    names = ", ".join(f'"{c}"' for c in columns)
    statement = f'COPY "{model._meta.db_table}" ({names}) FROM STDIN'
    with connection.cursor() as wrapper, wrapper.cursor.copy(statement) as copy:
        for row in tqdm(rows, total=total, desc=model._meta.db_table, mininterval=2):
            copy.write_row([row[c] for c in columns])


def _when(match_id: int) -> dt.datetime:
    return START + dt.timedelta(seconds=SPACING * match_id)


def _tournament_row(t: Planned, shape: Shape) -> dict[str, Any]:
    last = t.first_match + t.matches - 1
    return {
        "id": t.id,
        "owner_id": 1 + (t.id - 1) % shape.users,
        "name": f"cup {t.id}",
        "game": t.cell.game,
        "table_size": t.cell.players,
        "games_per_pairing": 2,
        "status": "finished",
        "matches_total": t.matches,
        "matches_done": t.matches,
        "seed": t.id,
        "created_at": _when(t.first_match),
        "started_at": _when(t.first_match),
        "finished_at": _when(last) + dt.timedelta(seconds=LENGTH),
    }


@dataclass
class _Kept:
    """What every copy of one library entry shares, prepared once."""

    entry: Entry
    parts: ReplayParts
    result: str
    units: str
    faults: str
    timings: str
    log_games: list[str]
    games: int


def _kept(entry: Entry) -> _Kept:
    from tournaments.rating.model.units import encode, match_units

    outcome = entry.outcome
    result = {
        "scores": outcome["scores"],
        "places": outcome["places"],
        "games": [
            {"deal": g["deal"], "seating": g["seating"], "result": g["result"]}
            for g in outcome["games"]
        ],
    }
    units = encode(match_units(entry.players, result, duplicate=entry.duplicate, deals=entry.deals))
    return _Kept(
        entry,
        ReplayParts(entry),
        json_text(result),
        units,
        json_text(outcome["faults"]),
        json_text(entry.timings),
        [json_text(marks) for marks in outcome["log_games"]],
        len(outcome["games"]),
    )


def _matches(
    plan: Sequence[Planned], found: dict[Cell, list[Entry]], rng: random.Random
) -> list[tuple[_Kept, tuple[int, ...]]]:
    """COPY every match, then its seats; each match's library entry and seated versions."""
    from tournaments.models import Match, Seat

    kept = {cell: [_kept(e) for e in entries] for cell, entries in found.items()}
    tables: list[tuple[_Kept, tuple[int, ...]]] = []
    for t in plan:
        for _ in range(t.matches):
            tables.append((rng.choice(kept[t.cell]), tuple(rng.sample(t.entrants, t.cell.players))))
    with loading(Match, Seat):
        copy_rows(Match, _match_rows(plan, tables), len(tables))
        seats = sum(len(versions) for _, versions in tables)
        copy_rows(Seat, _seat_rows(tables), seats)
    return tables


@contextmanager
def loading(*models: type[Model]) -> Iterator[None]:
    """The tables' non-unique indexes dropped and their triggers (the foreign keys'
    checks) off while COPY fills them, as pg_restore loads a dump: each index is then
    built once, from sorted rows, instead of kept up row by row (the match table has
    16), and no check is queued per row (the rows are valid by construction; the primary
    keys and unique constraints stay and check them). Made again as they were."""
    tables = [model._meta.db_table for model in models]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_get_indexdef(indexrelid), indexrelid::regclass::text FROM pg_index"
            " WHERE indrelid = ANY(%s::text[]::regclass[]) AND NOT indisunique",
            [tables],
        )
        dropped = cursor.fetchall()
        for _, name in dropped:
            cursor.execute(f"DROP INDEX {name}")
        for table in tables:
            cursor.execute(f'ALTER TABLE "{table}" DISABLE TRIGGER ALL')
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SET maintenance_work_mem = '256MB'")
            for table in tables:
                cursor.execute(f'ALTER TABLE "{table}" ENABLE TRIGGER ALL')
            for definition, _ in dropped:
                cursor.execute(definition)


def _match_rows(
    plan: Sequence[Planned], tables: Sequence[tuple[_Kept, tuple[int, ...]]]
) -> Iterator[dict[str, Any]]:
    for t in plan:
        for number in range(t.matches):
            match_id = t.first_match + number
            shared, _ = tables[match_id - 1]
            entry = shared.entry
            ended = _when(match_id)
            yield {
                "id": match_id,
                "tournament_id": t.id,
                "number": number,
                "game": entry.game,
                "variant": entry.variant,
                "games": entry.deals,
                "duplicate": entry.duplicate,
                "rated": True,
                "seed": entry.seed,
                "time_control": json_text(entry.time_control),
                "status": "done",
                "attempt": 1,
                "worker": "celery@worker-1",
                "result": shared.result,
                "units": shared.units,
                "faults": shared.faults,
                "timings": shared.timings,
                "rating_seq": match_id,
                "enqueued_at": ended - dt.timedelta(seconds=LENGTH + 1),
                "created_at": _when(t.first_match),
                "started_at": ended - dt.timedelta(seconds=LENGTH),
                "finished_at": ended,
            }


def _seat_rows(tables: Sequence[tuple[_Kept, tuple[int, ...]]]) -> Iterator[dict[str, Any]]:
    seat_id = 0
    for match_id, (shared, versions) in enumerate(tables, start=1):
        logs = shared.entry.outcome["logs"]
        for index, version in enumerate(versions):
            seat_id += 1
            yield {
                "id": seat_id,
                "match_id": match_id,
                "index": index,
                "version_id": version,
                "bot_id": bot_of(version),
                "log": logs[index],
                "log_games": shared.log_games[index],
            }


def _replay_rows(
    tables: Sequence[tuple[_Kept, tuple[int, ...]]], rng: random.Random
) -> Iterator[dict[str, Any]]:
    """Write each match's replay file into the replay storage; its Replay row."""
    write = _writer()
    for match_id, (shared, versions) in enumerate(tables, start=1):
        names = [
            (f"bot{bot_of(v)} v{2 - v % 2}", f"{bot_of(v):032x}{2 - v % 2:032x}") for v in versions
        ]
        data = shared.parts.file(names)
        name = write(f"{match_id // 1000:06d}/{match_id}-{rng.getrandbits(48):012x}.json.gz", data)
        yield {
            "match_id": match_id,
            "name": name,
            "size": len(data),
            "games": shared.games,
            "players": len(versions),
            "created_at": _when(match_id),
        }


def _writer() -> Callable[[str, bytes], str]:
    """Write a file into the replay storage under a name; the name it was kept under.
    The filesystem storage is written directly (a folder made once per thousand
    matches); any other goes through the storage API."""
    from django.core.files.base import ContentFile
    from django.core.files.storage import FileSystemStorage

    from tournaments.play.replay_store import replay_storage

    storage = replay_storage()
    if not isinstance(storage, FileSystemStorage):
        return lambda name, data: storage.save(name, ContentFile(data))
    made: set[str] = set()

    def write(name: str, data: bytes) -> str:
        path = storage.path(name)
        folder = path.rsplit("/", 1)[0]
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        with open(path, "wb") as file:
            file.write(data)
        return name

    return write
