"""Writes on a seeded site: results recorded by workers at once, and the bytes a match keeps.

bench.service.scale measures every read at two sizes; a site also writes. Each worker records
its results with lease.finish_match (the result, the units, the seats' logs, the rating
update under the bots' locks, and the replay file), so recording is timed here as the
workers do it: ``workers`` processes at once on the same database, each recording real
library matches (bench/_match_library.py, the oceans11 ones) between its own pair of
the site's busiest bots. The storage a match costs is read from the database (every
table whose rows grow with the history, indexes included) and from the replay files
(their bytes, and the disk they take in blocks).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._match_library import Cell, library

#: The tables whose rows grow with the history (one or more per match).
HISTORY_TABLES = ("match", "seat", "ratinghistory", "replay")
#: And those that grow with the bots and the pairs that met.
FIELD_TABLES = ("rating", "ratingrecord", "bot", "botversion", "tournament_participants")


def real_outcome(game: str = "oceans11", players: int = 2) -> tuple[dict[str, Any], int]:
    """A library match's outcome as a worker hands it to finish_match (its record
    included); and its deals."""
    entry = library()[Cell(game, players)][0]
    bots = [{"name": f"bot{i}", "hash": ""} for i in range(players)]
    record = json.loads(entry.before_bots + json.dumps(bots) + entry.after_bots)
    return {**entry.outcome, "record": record}, entry.deals


def busy_pairs(count: int, game: str = "oceans11") -> list[tuple[int, int]]:
    """``count`` pairs of bots with no bot in two pairs, from the latest matches of
    ``game`` (the site's busiest bots play most of them)."""
    from tournaments.models import Seat

    pairs: list[tuple[int, int]] = []
    taken: set[int] = set()
    seats = Seat.objects.filter(match__game=game).order_by("-match_id", "index")
    rows = seats.values_list("match_id", "bot_id")[: 400 * count]
    by_match: dict[int, list[int]] = {}
    for match_id, bot in rows:
        by_match.setdefault(match_id, []).append(bot)
    for bots in by_match.values():
        if len(bots) == 2 and not taken & set(bots) and len(pairs) < count:
            pairs.append((bots[0], bots[1]))
            taken.update(bots)
    return pairs


def recorder(pair: tuple[int, int]) -> Callable[[], float]:
    """A call that records one real result of ``pair`` (their first versions) as a
    worker does (claim, then finish_match); its wall ms of finish_match."""
    from tournaments.models import Match, Seat
    from tournaments.play import lease

    outcome, deals = real_outcome()

    def call() -> float:
        match = Match.objects.create(
            game="oceans11", rated=True, games=deals, duplicate=True, status=Match.Status.QUEUED
        )
        Seat.objects.bulk_create(
            Seat(match=match, index=i, version_id=2 * bot - 1, bot_id=bot)
            for i, bot in enumerate(pair)
        )
        attempt = lease.claim_match(match.pk, "bench")
        assert attempt is not None
        start = time.perf_counter()
        assert lease.finish_match(match.pk, attempt, outcome)
        return (time.perf_counter() - start) * 1000

    return call


@dataclass(frozen=True)
class Job:
    """One worker's share: its database and replay folder, its pair, how many results."""

    database: str
    replays: Path
    pair: tuple[int, int]
    count: int


def _worker(job: Job) -> list[float]:
    """A forked worker process: record ``job.count`` results; their ms."""
    from django.conf import settings
    from django.db import connection

    connection.settings_dict["NAME"] = job.database
    settings.REPLAY_ROOT = job.replays
    call = recorder(job.pair)
    call()  # warm: the connection, the caches
    return [call() for _ in range(job.count)]


def concurrently(
    sites: Sequence[tuple[str, Path, list[tuple[int, int]]]], runs: int, rounds: int = 5
) -> list[tuple[float, float]]:
    """(p50, p95) ms of finish_match on each site (database, replay folder, one pair per
    worker) with its workers recording at once, ``runs`` results per worker, in
    ``rounds`` that take turns between the sites (so that the machine's load touches
    them alike)."""
    from django.db import connections

    found: list[list[float]] = [[] for _ in sites]
    for _ in range(rounds):
        for i, (database, replays, pairs) in enumerate(sites):
            connections.close_all()  # each forked process opens its own
            jobs = [Job(database, replays, pair, max(1, runs // rounds)) for pair in pairs]
            with multiprocessing.get_context("fork").Pool(len(jobs)) as pool:
                for times in pool.map(_worker, jobs):
                    found[i].extend(times)
    return [_percentiles(times) for times in found]


def _percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered), ordered[round(0.95 * (len(ordered) - 1))]


@dataclass(frozen=True)
class Storage:
    """Bytes per match: in the tables that grow with the history, in those that grow
    with the field (bots and pairs), the replay files' bytes and the disk they take."""

    history: float
    field: float
    files: float
    disk: float
    per_game: dict[str, float]  # replay bytes per game (gzipped), by game


def storage(replays: Path) -> Storage:
    """The current database's and ``replays``' bytes per finished match."""
    from django.db import connection
    from django.db.models import Count, Sum

    from tournaments.models import Replay

    matches = Replay.objects.count() or 1
    with connection.cursor() as cursor:
        sizes = []
        for tables in (HISTORY_TABLES, FIELD_TABLES):
            cursor.execute(
                "SELECT SUM(pg_total_relation_size(t)) FROM unnest(%s::text[]) AS t",
                [[f"tournaments_{t}" for t in tables]],
            )
            sizes.append(float(cursor.fetchone()[0] or 0) / matches)
    games = Replay.objects.values("match__game").annotate(
        bytes=Sum("size"), games=Sum("games"), n=Count("pk")
    )
    per_game = {g["match__game"]: g["bytes"] / max(g["games"], 1) for g in games}
    files = float(Replay.objects.aggregate(total=Sum("size"))["total"] or 0) / matches
    return Storage(sizes[0], sizes[1], files, _disk(replays) / matches, per_game)


def _disk(folder: Path) -> float:
    """Bytes the folder's files take on disk (whole blocks)."""
    total = 0
    for root, _, names in os.walk(folder):
        for name in names:
            total += os.stat(os.path.join(root, name)).st_blocks * 512
    return float(total)
