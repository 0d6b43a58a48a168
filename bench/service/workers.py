"""Scaling out: matches per minute with one Celery worker, then with two, on one tournament.

One round robin (Big Two, the seed bots, tables of two, each pairing's deals played in both
seatings) is queued through Redis; one worker (one process, prefetch 1) plays it for a
window, then a second worker joins and both play it for another window. The figure is
matches finished per minute in each window; the baseline is the single worker, measured in
the same run, and the ratio says how much a second worker adds on this machine (on two
cores the bots, the engine and Docker share the same CPUs, so expect well under 2).

Run: ``python -m bench.service.workers [--sandbox docker|local] [--window S]`` (about a
minute). It makes its own PostgreSQL database (dropped at the end) and empties Redis db 13.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import redis

from bench._service import ROOT, configure, scratch_database, worker

BROKER = "redis://127.0.0.1:6379/13"
GAME = "bigtwo"
#: Rounds of the round robin (6 matches each), by sandbox: more matches than two workers
#: can finish in two windows of 30 s.
ROUNDS = {"docker": 40, "local": 120}


def docker_answers() -> bool:
    done = subprocess.run(["docker", "info"], capture_output=True, check=False)
    return done.returncode == 0


def queue_tournament(sandbox: str) -> int:
    """The round robin of the seed bots, started (its matches sent to the broker)."""
    from django.db import transaction

    from tournaments.competitions import competition_actions
    from tournaments.management.commands import _seeds

    entrants = _seeds.current_versions(GAME)
    tournament = competition_actions.create_tournament(
        None, "bench workers", GAME, entrants, table_size=2, rounds=ROUNDS[sandbox], seed=11
    )
    with transaction.atomic():
        competition_actions.start_tournament(tournament.pk)
    return tournament.pk


def done_count(tournament_id: int) -> int:
    from tournaments.models import Tournament

    done: int = Tournament.objects.values_list("matches_done", flat=True).get(pk=tournament_id)
    return done


def wait_for_next_match(tournament_id: int, timeout: float = 120) -> None:
    """Returns once one more match is finished: the new worker is warm and playing."""
    start = done_count(tournament_id)
    deadline = time.monotonic() + timeout
    while done_count(tournament_id) == start:
        if time.monotonic() > deadline:
            sys.exit("no match finished in time; see the worker logs")
        time.sleep(0.05)


def rate(tournament_id: int, window: float) -> float:
    """Matches finished per minute over the next ``window`` seconds."""
    began, start = time.perf_counter(), done_count(tournament_id)
    time.sleep(window)
    return 60 * (done_count(tournament_id) - start) / (time.perf_counter() - began)


def measure(sandbox: str, window: float) -> tuple[float, float, int]:
    from tournaments.models import Match, Tournament

    redis.Redis.from_url(BROKER).flushdb()
    with tempfile.TemporaryDirectory(prefix="bench-workers-") as folder, scratch_database() as db:
        tournament_id = queue_tournament(sandbox)
        with ExitStack() as workers:
            workers.enter_context(worker("one", db, Path(folder)))
            wait_for_next_match(tournament_id)
            one = rate(tournament_id, window)
            workers.enter_context(worker("two", db, Path(folder)))
            wait_for_next_match(tournament_id)
            two = rate(tournament_id, window)
            left = Tournament.objects.get(pk=tournament_id).matches_total
            if done_count(tournament_id) >= left:
                sys.exit("the tournament ran out of matches: raise ROUNDS")
            Match.objects.filter(tournament_id=tournament_id, status="queued").update(
                status="cancelled"
            )
        failed = Match.objects.filter(tournament_id=tournament_id, status="failed").count()
    redis.Redis.from_url(BROKER).flushdb()
    if failed:
        sys.exit(f"{failed} matches failed: the figures would not be comparable")
    return one, two, left


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", choices=("docker", "local"), default=None)
    parser.add_argument("--window", type=float, default=20.0, help="seconds per measurement")
    options = parser.parse_args()
    sandbox = options.sandbox or ("docker" if docker_answers() else "local")
    if sandbox == "docker":  # as docker-compose.yml runs workers: the bots' pipes on the host
        os.environ.setdefault("JUDGE_PIPE_ROOT", str(ROOT / "var" / "pipes"))
    configure("bench_workers", BROKER, sandbox)
    one, two, total = measure(sandbox, options.window)
    pipes = " (named pipes)" if os.environ.get("JUDGE_PIPE_ROOT") and sandbox == "docker" else ""
    print(
        f"{GAME} round robin of the seed bots ({total} matches queued), tables of 2, "
        f"{sandbox} sandbox{pipes}, windows of {options.window:.0f} s, {os.cpu_count()} cores"
    )
    print(f"  one worker   {one:6.1f} matches/min   (baseline)")
    print(f"  two workers  {two:6.1f} matches/min   ratio {two / one:.2f}")


if __name__ == "__main__":
    main()
