"""Recording a result (lease.finish_match of a rated match) at 5,000 and 500,000 matches.

Issue 32: the write side must cost the same at any history size (every statement on an
index with a bound; tests/tournaments/test_record_queries.py checks the plans). This
bench seeds two scratch PostgreSQL databases with the tables the record path reads and
writes (bots with two versions, finished rated matches with their seats and rating
history, rating rows and records: COPY, about a minute for 500,000 here), the same
bots and records at both sizes, one bot (the "popular" one) in half of all matches, so
that its history grows with the site. Then it records a result of that bot in turns on
the two databases (so that a change in the machine's load touches both alike) and
prints p50 and p95 of the wall clock, the median time in queries and the ratio
big/small; the same with ``--workers`` processes (3) recording results at once (each
its own pair of bots, worker 0 the popular one); and, for reference, the join that
found a version's first rated match before the flag (BotVersion.ever_rated) replaced it.

Run: ``python -m bench.service.record [--matches N] [--baseline N] [--runs R]
[--workers W]``; the databases are dropped at the end.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

from psycopg.types.json import Jsonb

from bench._service import configure

#: What the issue asks of the ratio big/small (p50 and p95).
GOAL_RATIO = 1.3
BOTS = 200
START = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)


def pair(match: int) -> tuple[int, int]:
    """The two bots (ids) of seeded match ``match``: bot 1 in every other one."""
    first = 1 if match % 2 == 0 else 2 + match % (BOTS - 1)
    second = 2 + (match * 7919 + 1) % (BOTS - 1)
    return first, second if second != first else 1 + second % BOTS


def version(bot: int, match: int) -> int:
    """The version (id) a bot plays a match with: both of its versions play."""
    return 2 * (bot - 1) + 1 + match % 2


def seed(matches: int) -> None:
    """Fill the current (migrated, empty) database: BOTS bots, their versions, ratings
    and records (each bot against every other bot's first version), and ``matches``
    rated matches with their seats and rating history."""
    from bench.service._seeded_site import copy_rows
    from tournaments.models import (
        Bot,
        BotVersion,
        Match,
        Rating,
        RatingHistory,
        RatingRecord,
        Seat,
    )
    from tournaments.rating.stored.recompute import mark_rated_versions

    bots = range(1, BOTS + 1)
    copy_rows(
        Bot,
        ({"id": b, "game": "oceans11", "name": f"bot{b}", "created_at": START} for b in bots),
        BOTS,
    )
    copy_rows(BotVersion, _versions(), 2 * BOTS)
    copy_rows(Match, _matches(matches), matches)
    copy_rows(Seat, _seats(matches), 2 * matches)
    copy_rows(RatingHistory, _history(matches), 2 * matches)
    copy_rows(
        Rating,
        (
            {"id": b, "bot_id": b, "game": "oceans11", "elo": 1500.0, "updated_at": START}
            for b in bots
        ),
        BOTS,
    )
    records = (
        {"id": i, "bot_id": b, "opponent_id": o, "results": 4.0, "score": 2.0, "seen": 1500.0}
        for i, (b, o) in enumerate(
            ((b, version(o, 0)) for b in bots for o in bots if o != b), start=1
        )
    )
    copy_rows(RatingRecord, records, BOTS * (BOTS - 1))
    mark_rated_versions()
    _vacuum()


def _versions() -> Iterator[dict[str, Any]]:
    for b in range(1, BOTS + 1):
        for n in (1, 2):
            yield {
                "id": 2 * (b - 1) + n,
                "bot_id": b,
                "number": n,
                "content_hash": f"{b}-{n}",
                "status": "accepted",
                "created_at": START,
            }


def _matches(matches: int) -> Iterator[dict[str, Any]]:
    for m in range(1, matches + 1):
        yield {
            "id": m,
            "game": "oceans11",
            "status": "done",
            "attempt": 1,
            "result": Jsonb({"scores": [1, 0], "places": [1, 2], "games": []}),
            "rating_seq": m,
            "finished_at": START,
        }


def _seats(matches: int) -> Iterator[dict[str, Any]]:
    for m in range(1, matches + 1):
        for index, bot in enumerate(pair(m)):
            yield {
                "id": 2 * m - 1 + index,
                "match_id": m,
                "index": index,
                "version_id": version(bot, m),
                "bot_id": bot,
            }


def _history(matches: int) -> Iterator[dict[str, Any]]:
    for m in range(1, matches + 1):
        for index, bot in enumerate(pair(m)):
            yield {
                "id": 2 * m - 1 + index,
                "bot_id": bot,
                "match_id": m,
                "game": "oceans11",
                "seq": m // 2,
                "before": 1500.0,
                "after": 1500.0,
                "created_at": START,
            }


def _vacuum() -> None:
    """Statistics and visibility maps, as a long-running site's autovacuum keeps them."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def record_once(bots: tuple[int, int] = (1, 2)) -> tuple[float, float]:
    """Record one result of these bots (the popular one and bot 2 unless told, their
    first versions), as a worker does; (wall ms, ms in queries) of finish_match alone."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tournaments.models import Match, Seat
    from tournaments.play import lease

    match = Match.objects.create(game="oceans11", rated=True, status=Match.Status.QUEUED)
    Seat.objects.bulk_create(
        Seat(match=match, index=i, version_id=version(bot, 0), bot_id=bot)
        for i, bot in enumerate(bots)
    )
    attempt = lease.claim_match(match.pk, "bench")
    assert attempt is not None
    outcome = {"scores": [1, 0], "places": [1, 2], "games": [], "logs": ["", ""]}
    with CaptureQueriesContext(connection) as captured:
        start = time.perf_counter()
        assert lease.finish_match(match.pk, attempt, outcome)
        wall = time.perf_counter() - start
    return wall * 1000, sum(float(q["time"]) for q in captured.captured_queries) * 1000


def old_join_once() -> tuple[float, float]:
    """The join of seats and matches that told a version's first rated match before
    issue 32 (match_rating.first_rated then), for the popular bot's version: its ms."""
    from tournaments.models import Match, Seat

    start = time.perf_counter()
    list(
        Seat.objects.filter(
            version__in=[version(1, 0), version(2, 0)],
            match__status=Match.Status.DONE,
            match__rating_seq__isnull=False,
        ).values_list("version_id", flat=True)
    )
    wall = (time.perf_counter() - start) * 1000
    return wall, wall


def in_turns(
    names: list[str], call: Callable[[], tuple[float, float]], runs: int
) -> list[tuple[float, float, float]]:
    """(p50, p95, median query ms) of ``call`` on each database, taking turns."""
    from bench.service.scale import use_database

    found: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    for name in names:
        use_database(name)
        call()  # warm: the connection, the caches
    for _ in range(runs):
        for name in names:
            use_database(name)
            found[name].append(call())
    return [_figures(found[name]) for name in names]


def _worker(job: tuple[str, int, int]) -> list[tuple[float, float]]:
    """One of the concurrent workers (a forked process): ``count`` results on database
    ``name``, worker 0 with the popular bot, worker k with bots 2k+1 and 2k+2."""
    from bench.service.scale import use_database

    name, k, count = job
    use_database(name)
    return [record_once((2 * k + 1, 2 * k + 2)) for _ in range(count)]


def concurrently(
    names: list[str], workers: int, runs: int, rounds: int = 6
) -> list[tuple[float, float, float]]:
    """(p50, p95, median query ms) of results recorded by ``workers`` processes at once,
    ``runs`` each per database, in ``rounds`` that take turns between the databases."""
    import multiprocessing

    from django.db import connections

    found: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    per_round = max(1, runs // rounds)
    for _ in range(rounds):
        for name in names:
            connections.close_all()  # a forked process opens its own
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                jobs = [(name, k, per_round) for k in range(workers)]
                for times in pool.map(_worker, jobs):
                    found[name].extend(times)
    return [_figures(found[name]) for name in names]


def _figures(times: list[tuple[float, float]]) -> tuple[float, float, float]:
    walls = sorted(wall for wall, _ in times)
    p95 = walls[min(len(walls) - 1, round(0.95 * (len(walls) - 1)))]
    return statistics.median(walls), p95, statistics.median(s for _, s in times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=500_000)
    parser.add_argument("--baseline", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--workers", type=int, default=3, help="recording at once (0: skip)")
    args = parser.parse_args()
    configure("bench_record", broker="", sandbox="local")
    from django.conf import settings

    from bench.service.scale import load_average, scratch_databases, use_database

    settings.DEBUG = False
    sizes = (args.baseline, args.matches)
    print(f"load average at the start: {load_average()}", flush=True)
    with scratch_databases(sizes) as names:
        for name, size in zip(names, sizes, strict=True):
            use_database(name)
            started = time.perf_counter()
            seed(size)
            print(f"seeded {size} matches in {time.perf_counter() - started:.0f} s", flush=True)
        rows = {
            "record a result (finish_match)": in_turns(names, record_once, args.runs),
            "the join it no longer runs": in_turns(names, old_join_once, max(5, args.runs // 6)),
        }
        if args.workers:
            label = f"{args.workers} workers recording at once"
            rows[label] = concurrently(names, args.workers, args.runs)
    print(f"load average at the end: {load_average()}")
    print(
        f"\n{'':32} {'p50/p95 ms at ' + str(sizes[0]):>20} {'at ' + str(sizes[1]):>18}"
        f" {'sql ms':>13} {'p50 ratio':>9} {'p95 ratio':>9}"
    )
    for what, (small, big) in rows.items():
        r50, r95 = big[0] / small[0], big[1] / small[1]
        met = "met" if max(r50, r95) <= GOAL_RATIO else "NOT MET"
        print(
            f"{what:32} {small[0]:9.1f} / {small[1]:7.1f} {big[0]:8.1f} / {big[1]:7.1f}"
            f" {small[2]:6.1f}/{big[2]:<6.1f} {r50:9.2f} {r95:9.2f}"
            + (f"  goal {GOAL_RATIO}: {met}" if "record" in what else "")
        )


if __name__ == "__main__":
    main()
