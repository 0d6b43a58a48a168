"""The match service end to end: matches per minute with one worker, and where the time goes.

A round robin of 8 house bots in Oceans 11 and of 6 in Big Two (tables of 4) is played by
one real Celery worker (prefork, one process, prefetch 1) through Redis and PostgreSQL,
every bot in the sandbox (Docker by default). Each match records the seconds it spent
starting bots (containers), in the referee, and in the database; the rest of the wall
time is the broker, Celery and waiting.

Baseline, measured in the same run: matches spread over the same schedule, played
directly in this process with the same sandbox (``tournaments.play.runner.play``: no broker,
no database). The ratio service/direct is the service's overhead beyond playing.

Run: ``python -m bench.service.end_to_end [--sandbox docker|local] [--games G] [--direct N]``
(about a minute with Docker). It makes its own PostgreSQL database (dropped at the end)
and uses Redis db 14 (emptied).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import redis
from tqdm import tqdm

from bench._service import configure, scratch_database, worker

if TYPE_CHECKING:
    from tournaments.models import BotVersion

BROKER = "redis://127.0.0.1:6379/14"


@dataclass(frozen=True)
class Event:
    game: str
    policies: tuple[str, ...]
    table: int
    duplicate: bool


# Light bots, so that what the service adds to playing stays visible. Big Two plays each
# deal once (duplicate would start 4 x 4 containers per match).
EVENTS = [
    Event("oceans11", ("random", "greedy") * 4, 2, True),
    Event("bigtwo", ("random", "greedy") * 3, 4, False),
]


def entrants(event: Event) -> list[BotVersion]:
    from tournaments.bots import bot_actions
    from tournaments.models import Bot, BotVersion

    versions: list[BotVersion] = []
    for i, policy in enumerate(event.policies):
        bot = Bot.objects.create(game=event.game, name=f"{policy}-{i}", house_policy=policy)
        versions.append(
            bot_actions.add_version(bot, b"", f"house:{policy}:{i}", BotVersion.Status.ACCEPTED)
        )
    return versions


def through_service(event: Event, games: int) -> tuple[int, float, dict[str, float]]:
    """Matches played, wall seconds, and the summed timings of the matches."""
    from django.db import transaction

    from tournaments.competitions import competition_actions
    from tournaments.models import Match, Tournament

    tournament = competition_actions.create_tournament(
        None, f"bench {event.game}", event.game, entrants(event),
        table_size=event.table, games_per_pairing=games, duplicate=event.duplicate, seed=7,
    )  # fmt: skip
    began = time.perf_counter()
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
    total = Tournament.objects.get(pk=tournament.pk).matches_total
    quiet = not sys.stderr.isatty()
    with tqdm(total=total, desc=event.game, unit="match", leave=False, disable=quiet) as bar:
        while True:
            done = Tournament.objects.values_list("matches_done", flat=True).get(pk=tournament.pk)
            bar.update(done - bar.n)
            if done >= total:
                break
            time.sleep(0.05)
    wall = time.perf_counter() - began
    matches = Match.objects.filter(tournament=tournament)
    failed = matches.exclude(status=Match.Status.DONE).count()
    if failed:
        sys.exit(f"{failed} matches did not finish; see the worker log")
    sums: dict[str, float] = {"sandbox_start": 0.0, "referee": 0.0, "database": 0.0}
    for timings in matches.values_list("timings", flat=True):
        for key in sums:
            sums[key] += timings.get(key, 0.0)
    return total, wall, sums


def direct(event: Event, count: int) -> tuple[int, float, dict[str, float]]:
    """``count`` matches spread over the same schedule, played again in this process."""
    from django.conf import settings

    from tournaments.models import Match
    from tournaments.play import runner, tasks

    every = list(
        Match.objects.filter(game=event.game).order_by("number").values_list("id", flat=True)
    )
    ids = every[:: max(1, len(every) // count)][:count]  # spread over the schedule
    plans = [tasks.load_plan(match_id) for match_id in ids]
    backend = runner.make_backend(settings.JUDGE_SANDBOX)
    sums = {"sandbox_start": 0.0, "referee": 0.0}
    began = time.perf_counter()
    for plan in plans:
        _, timings = runner.play(plan, lambda: backend)
        sums["sandbox_start"] += timings.sandbox_start
        sums["referee"] += timings.referee
    return len(plans), time.perf_counter() - began, sums


def report(event: Event, service: tuple[int, float, dict[str, float]],
           baseline: tuple[int, float, dict[str, float]]) -> None:  # fmt: skip
    n, wall, sums = service
    m, direct_wall, direct_sums = baseline
    rate, direct_rate = 60 * n / wall, 60 * m / direct_wall
    other = wall - sum(sums.values())
    kind = "duplicate" if event.duplicate else "single"
    print(f"{event.game}: {n} matches, {len(event.policies)} house bots, tables of "
          f"{event.table}, {kind} deals")  # fmt: skip
    print(f"  matches per minute: service {rate:6.1f}   direct {direct_rate:6.1f} "
          f"({m} matches)   ratio {rate / direct_rate:.2f}")  # fmt: skip
    for key, label in (("sandbox_start", "starting bots"), ("referee", "referee")):
        share, base = sums[key] / wall, direct_sums[key] / direct_wall
        print(f"  {label:>16}: {share:6.1%} of wall   direct {base:6.1%}   "
              f"per match {sums[key] / n:.3f} s vs {direct_sums[key] / m:.3f} s")  # fmt: skip
    print(f"  {'database':>16}: {sums['database'] / wall:6.1%} of wall "
          f"({1000 * sums['database'] / n:.1f} ms per match)")  # fmt: skip
    print(f"  {'broker, Celery':>16}: {other / wall:6.1%} of wall "
          f"({1000 * other / n:.1f} ms per match)")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", choices=("docker", "local"), default="docker")
    parser.add_argument("--games", type=int, default=1, help="deals per match (duplicated)")
    parser.add_argument("--direct", type=int, default=5, help="matches in the baseline")
    args = parser.parse_args(argv)
    configure("bench_service", BROKER, args.sandbox)
    client = redis.Redis.from_url(BROKER)
    client.flushdb()
    print(f"bench service: one worker, sandbox {args.sandbox}, PostgreSQL, Redis; "
          f"{args.games} deal(s) per match")  # fmt: skip
    with tempfile.TemporaryDirectory() as folder, scratch_database() as url:
        with worker("worker", url, Path(folder), {"CELERY_SKIP_CHECKS": "1"}):
            results = [(event, through_service(event, args.games)) for event in EVENTS]
        for event, service in results:
            report(event, service, direct(event, args.direct))
    client.flushdb()
    return 0


if __name__ == "__main__":
    sys.exit(main())
