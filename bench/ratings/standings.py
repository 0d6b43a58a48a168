"""Tournament standings and rating recomputation at the size of a real site (PostgreSQL).

Seeds a scratch database with three finished tournaments of 2,500 matches each (Oceans 11
at 2 seats, Big Two at 4, Fifteen Thirty-Five at 6; duplicate deals, results in the
referee's format with a replay each) and measures, p50 / p95 over repeated requests:

- the tournament page, its live part (polled every 1.5 s while a tournament runs) and
  ``GET /api/tournaments/ID/standings/``, with the cached fit (steady polling);
- the same after a result arrives (the first request refits: the worst case while
  results arrive faster than the polls);
- baseline, in the same run: the table derived the old way, every game of every stored
  result re-read and re-grouped on each request (the ratio says what storing units saves).

Then ``manage.py recompute_ratings`` in a child process over a rated history of
``--history`` matches (default 500,000; ``--quick``: 100,000) and a quarter of it: time,
peak memory (max RSS), and the time ratio (4.0 is linear).

Goals: page and live part p95 under 200 ms; recompute under 150 MB and linear.
Run: ``python -m bench.ratings.standings [--quick] [--keep] [--pages | --recompute]``
(PostgreSQL as for the tests). ``--keep`` keeps the database (``bench_standings_keep``)
and a later ``--keep`` run reuses its tournaments and history instead of seeding again
(seeding Fifteen Thirty-Five's 2,500 six-seat matches takes minutes); ``--pages`` or
``--recompute`` measures only that part.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from bench._service import ROOT, configure, scratch_database

MATCHES = 2500
DEALS = 4
TABLES = (("oceans11", 2, 50), ("bigtwo", 4, 40), ("fifteen35", 6, 30))
REQUESTS = 30


def seed_tournament(game: str, size: int, bots: int, rng: random.Random) -> Any:
    """A finished tournament of MATCHES matches, stored as the service stores them."""
    from bench.ratings.calibration import Cell, play_match
    from tournaments.competitions.schedule import schedule
    from tournaments.models import Bot, BotVersion, Match, Seat, Tournament
    from tournaments.rating.model.units import stored_units

    made = Bot.objects.bulk_create(Bot(game=game, name=f"{game}-{i}") for i in range(bots))
    versions = BotVersion.objects.bulk_create(
        BotVersion(bot=b, number=1, content_hash=f"h{b.pk}", status="accepted") for b in made
    )
    tables: list[tuple[int, ...]] = []
    rounds = 1
    while len(tables) < MATCHES:
        tables = schedule(bots, size, rounds, seed=1)
        rounds += 1
    tournament = Tournament.objects.create(  # running: its pages are being polled
        name=f"{game} big", game=game, table_size=size, duplicate=True, status="running",
        games_per_pairing=DEALS, matches_total=MATCHES, matches_done=MATCHES,
    )  # fmt: skip
    tournament.participants.set(versions)
    cell = Cell(game, size, True)
    matches = []
    for number, table in enumerate(tables[:MATCHES]):
        result = play_match(cell, tuple(t % 6 for t in table), DEALS, rng)
        match = Match(
            tournament=tournament, number=number, game=game, games=DEALS, duplicate=True,
            status="done", result=result,
        )  # fmt: skip
        match.units = stored_units(match)
        matches.append(match)
    Match.objects.bulk_create(matches, batch_size=500)
    Seat.objects.bulk_create(
        (
            Seat(match=m, index=i, version=versions[p])
            for m, table in zip(matches, tables, strict=False)
            for i, p in enumerate(table)
        ),
        batch_size=2000,
    )
    return tournament


def old_table(tournament: Any) -> Any:
    """The baseline: units derived again from every stored result, then the same fit."""
    from tournaments.models import Match
    from tournaments.rating.model import tournament_fit
    from tournaments.rating.model.units import match_units

    per_match, per_unit = [], []
    for match in (
        tournament.matches.filter(status=Match.Status.DONE)
        .prefetch_related("seats")
        .order_by("number")
    ):
        seats = tuple(seat.version_id for seat in match.seats.all())
        per_match.append(tournament_fit.Placing(seats, tuple(match.result["places"])))
        per_unit += [
            tournament_fit.Placing(seats, places)
            for places in match_units(
                len(seats), match.result, duplicate=match.duplicate, deals=match.games
            )
        ]
    participants = list(tournament.participants.values_list("pk", flat=True))
    return tournament_fit.standings(per_match, participants, games=per_unit)


def timed(
    call: Callable[[], Any], before: Callable[[], Any] = lambda: None, runs: int = REQUESTS
) -> tuple[float, float, float]:
    """p50 and p95 of ``call`` in milliseconds over ``runs`` runs (``before`` untimed), and
    the median CPU time of this process per call (the wall clock on a loaded machine also
    counts the turns waited for a core)."""
    times, used = [], []
    for _ in range(runs):
        before()
        began, cpu = time.perf_counter(), time.process_time()
        call()
        times.append(1000 * (time.perf_counter() - began))
        used.append(1000 * (time.process_time() - cpu))
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))], statistics.median(used)


def kept_tournament(game: str, size: int, bots: int, rng: random.Random) -> Any:
    """The tournament of this game a kept database holds, else a newly seeded one."""
    from tournaments.models import Tournament

    found = Tournament.objects.filter(name=f"{game} big").first()
    if found is not None:
        print(f"{game} {size} seats, {MATCHES} matches: kept")
        return found
    from django.db import connection

    began = time.perf_counter()
    tournament = seed_tournament(game, size, bots, rng)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # as autovacuum would: the planner knows the tables' sizes
    print(f"{game} {size} seats, {MATCHES} matches: seeded in "
          f"{time.perf_counter() - began:.0f} s")  # fmt: skip
    return tournament


def measure_pages(tournament: Any) -> None:
    from django.test import Client

    from tournaments.competitions.standings import refresh_table

    client = Client(HTTP_HOST="localhost")
    page = f"/tournaments/{tournament.pk}/"
    print(f"{tournament.game} {tournament.table_size} seats, {MATCHES} matches:")

    def get(url: str) -> Callable[[], None]:
        def call() -> None:
            response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)

        return call

    requests = {
        "page": get(page),
        "live part": get(page + "?part=live"),
        "standings API": get(f"/api/tournaments/{tournament.pk}/standings/"),
    }
    old = timed(lambda: old_table(tournament), runs=5)
    refit = timed(lambda: refresh_table(tournament.pk), runs=10)
    live = (1.0, 1.0, 1.0)
    for name, call in requests.items():
        figures = timed(call)
        live = figures if name == "live part" else live
        print(
            f"  {name:<14} p50 {figures[0]:6.1f} p95 {figures[1]:6.1f} ms "
            f"(cpu p50 {figures[2]:5.1f} ms; this process {resident_mb():.0f} MB)"
        )
    print(f"  refit after a result (in the worker) p50 {refit[0]:6.0f} p95 {refit[1]:6.0f} ms")
    print(
        f"  baseline, the table re-derived from every stored result on each request: "
        f"p50 {old[0]:6.0f} ms ({old[0] / live[0]:.0f}x the live part now)"
    )


def resident_mb() -> float:
    """This process's resident memory now (MB)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def seed_history(count: int, rng: random.Random) -> None:
    """``count`` rated two-player matches among 200 bots, and the ratings they give."""
    from tournaments.models import Bot, BotVersion, Match, Rating, Seat
    from tournaments.rating.model import global_rating, tournament_fit
    from tournaments.rating.stored import match_rating

    made = Bot.objects.bulk_create(Bot(game="bigtwo", name=f"rated-{i}") for i in range(200))
    versions = BotVersion.objects.bulk_create(
        BotVersion(bot=b, number=1, content_hash=f"r{b.pk}", status="accepted") for b in made
    )
    current: dict[int, global_rating.Skill] = {}
    for start in range(0, count, 5000):
        batch, pairs = [], []
        for seq in range(start, min(count, start + 5000)):
            a, b = rng.sample(range(200), 2)
            places = [1, 2] if rng.random() < 0.5 else [2, 1]
            result = {"scores": [1, -1] if places[0] == 1 else [-1, 1], "places": places}
            units = "".join(map(str, places))
            batch.append(
                Match(game="bigtwo", status="done", result=result, rating_seq=seq + 1, units=units)
            )
            pairs.append((a, b))
            placing = tournament_fit.Placing((made[a].pk, made[b].pk), tuple(places))
            by_bot = {made[p].pk: versions[p].pk for p in (a, b)}
            current.update(global_rating.rate_units(current, [placing], versions=by_bot))
        Match.objects.bulk_create(batch)
        Seat.objects.bulk_create(
            Seat(match=m, index=i, version=versions[p])
            for m, pair in zip(batch, pairs, strict=True)
            for i, p in enumerate(pair)
        )
    rows = [Rating(bot_id=pk, game="bigtwo", elo=0.0, matches=0) for pk in current]
    for row in rows:
        row.set_skill(current[row.bot_id])
    Rating.objects.bulk_create(rows)
    match_rating.store_records({pk: global_rating.Skill() for pk in current}, current)


#: Runs manage.py in the child, then writes its peak memory (VmHWM: this program's own
#: high-water mark; the rusage of a child also counts the parent's pages it was forked
#: with, 500 MB after seeding) as the last line of its standard error.
MEASURED = (
    "import runpy, sys\n"
    "sys.argv = sys.argv[1:]\n"
    "try:\n"
    "    runpy.run_path('manage.py', run_name='__main__')\n"
    "finally:\n"
    "    peak = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')]\n"
    "    print(peak[0].split()[1], file=sys.stderr)\n"
)


def recompute(url: str) -> tuple[float, float, str]:
    """Seconds and peak MB of ``manage.py recompute_ratings`` in a child process."""
    env = {**os.environ, "DATABASE_URL": url}
    command = ["manage.py", "recompute_ratings", "--progress-every", "100000"]
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, *command],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        sys.exit(f"recompute_ratings failed:\n{done.stdout}\n{done.stderr}")
    peak = int(done.stderr.strip().splitlines()[-1]) / 1024
    return seconds, peak, done.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 100,000-match history")
    parser.add_argument("--history", type=int, help="rated matches for recompute_ratings")
    parser.add_argument("--keep", action="store_true", help="keep (or reuse) the database")
    part = parser.add_mutually_exclusive_group()
    part.add_argument("--pages", action="store_true", help="only the tournament pages")
    part.add_argument("--recompute", action="store_true", help="only recompute_ratings")
    args = parser.parse_args()
    history = args.history or (100_000 if args.quick else 500_000)
    configure("bench_standings", "memory://", "local")
    from tournaments.config.collector import tune_for_requests

    rng = random.Random(1)
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with scratch_database("bench_standings_keep" if args.keep else "") as url:
        if not args.recompute:
            tables = [kept_tournament(game, size, bots, rng) for game, size, bots in TABLES]
            tune_for_requests()  # as tournaments/config/wsgi.py does in a served process
            for tournament in tables:
                measure_pages(tournament)
        if not args.pages:
            measure_recompute(url, history, rng)
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def measure_recompute(url: str, history: int, rng: random.Random) -> None:
    """recompute_ratings over a quarter of the history, then over all of it (seeded here,
    a kept database's earlier history removed first)."""
    from tournaments.models import Bot, Match

    Match.objects.filter(rating_seq__isnull=False).delete()
    Bot.objects.filter(name__startswith="rated-").delete()  # and their ratings
    # The quarter first: its child's peak cannot hide the full run's.
    seed_history(history // 4, rng)
    small = recompute(url)
    seed_history(history - history // 4, rng)
    full = recompute(url)
    print(f"recompute_ratings, {history // 4} matches: {small[0]:.1f} s ({small[2]})")
    print(
        f"recompute_ratings, {history} matches: {full[0]:.1f} s, peak {full[1]:.0f} MB "
        f"({full[2]}); time ratio {full[0] / small[0]:.2f} (4.00 is linear)"
    )


if __name__ == "__main__":
    main()
