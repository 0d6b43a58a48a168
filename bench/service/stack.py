"""Issue 28's shared use on the real stack: matches in flight with 1, 2 and 3 worker
containers, and how long the stack takes to start.

`scripts/stack up --scale worker=3` brings up a stack of its own (docker-compose.yml:
PostgreSQL, Redis and nginx containers, the app image for web, workers, tables and beat;
project name and loopback ports of its own; images already built, so the start-up time is
the stack's, not the images'); it is timed from the command to the site answering through
the proxy with every worker ready. Then the workers are scaled down to one and issue 28's
flood is queued once, through the stack's own database and broker (this process runs the
service's code against them, as bench/bench_fairness.py does against its own): a flooder's
slow checks and quick matches and three organisers' round robins of 23 bots. For one,
two, then three worker containers (each of WORKER_CONCURRENCY 2 processes, as compose runs
them), for ``--minutes`` each: the tournaments' matches in flight (sampled every 0.5 s:
mean and most), their matches finished a minute, and a newcomer's check (upload to
verdict) and one-game quick match (ask to start), p50 / p95. The baseline is one worker,
in the same run: the ratios say what each added worker container brings on this machine.
The stack and its volumes are removed at the end.

Run: ``python -m bench.service.stack [--minutes 3] [--every 20]`` (about 3.5 x ``--minutes``
plus two minutes). Needs the engine, docker-compose and the images (scripts/stack builds
what is missing the first time).
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from typing import Any

import django

from bench._stack import Stack, wait_for
from bench._timing import quantiles

WORKER_PROCESSES = 2  # docker-compose.yml's WORKER_CONCURRENCY
SCALES = (1, 2, 3)


def load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def configure(stack: Stack) -> None:
    """This process on the stack's database and broker, with its quotas out of the way."""
    settings = stack.settings
    os.environ["DATABASE_URL"] = (
        f"postgres://judge:{settings['POSTGRES_PASSWORD']}@127.0.0.1:"
        f"{settings['STACK_POSTGRES_PORT']}/judge"
    )
    os.environ["CELERY_BROKER_URL"] = f"redis://127.0.0.1:{settings['STACK_REDIS_PORT']}/0"
    os.environ["DJANGO_SETTINGS_MODULE"] = "tournaments.config.settings"
    os.environ["QUOTA_UPLOADS_PER_HOUR"] = os.environ["QUOTA_QUICK_MATCHES_PER_HOUR"] = "1000"
    os.environ["LADDER_ENABLED"] = "false"
    django.setup()


class InFlight(threading.Thread):
    """Samples the tournaments' running matches every 0.5 s until stopped."""

    def __init__(self, cups: list[int]) -> None:
        super().__init__(daemon=True)
        self.cups = cups
        self.samples: list[int] = []
        self.stopped = threading.Event()

    def run(self) -> None:
        from django.db import connection

        from tournaments.models import Match

        running = Match.objects.filter(tournament_id__in=self.cups, status="running")
        while not self.stopped.wait(0.5):
            self.samples.append(running.count())
        connection.close()


def phase(cups: list[int], newcomer: Any, seat: Any, options: argparse.Namespace) -> dict[str, Any]:
    """One window of ``options.minutes`` with the workers as they are now."""
    from bench.scheduler.fairness import probe
    from tournaments.models import Match

    watch = InFlight(cups)
    watch.start()
    began = time.monotonic()
    done = Match.objects.filter(tournament_id__in=cups, status="done")
    before = done.count()
    checks, quicks = probe(newcomer, seat, options.every, options.minutes)
    played = done.count() - before
    minutes = (time.monotonic() - began) / 60
    watch.stopped.set()
    watch.join()
    return {
        "mean": statistics.fmean(watch.samples) if watch.samples else 0.0,
        "most": max(watch.samples, default=0),
        "per_minute": played / minutes,
        "check": checks,
        "quick": quicks,
        "load": load(),
    }


def scale(stack: Stack, workers: int) -> float:
    """The workers scaled to ``workers``, their capacity announced; the seconds it took."""
    from tournaments.play import dispatch

    took = stack.up(workers)
    wait_for(
        lambda: dispatch.capacity() == workers * WORKER_PROCESSES,
        120,
        f"the capacity of {workers} workers",
    )
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="each worker count's window")
    parser.add_argument("--every", type=float, default=20.0, help="seconds between probes")
    parser.add_argument("--slow-checks", type=int, default=27)
    parser.add_argument("--quick", type=int, default=59)
    options = parser.parse_args()
    stack = Stack.make(
        f"cardjudge-bench-{os.getpid()}",
        POSTGRES_PASSWORD="bench",
        LADDER_ENABLED="false",
        QUOTA_UPLOADS_PER_HOUR="1000",
        QUOTA_QUICK_MATCHES_PER_HOUR="1000",
    )
    results: dict[int, dict[str, Any]] = {}
    scaled: dict[int, float] = {}
    print(f"load average before: {load()}", flush=True)
    try:
        startup = stack.up(max(SCALES))
        print(f"stack up with {max(SCALES)} workers in {startup:.0f} s (load {load()})", flush=True)
        stack.manage("load_seeds", "--game", "bigtwo")
        configure(stack)
        scaled[min(SCALES)] = scale(stack, min(SCALES))
        results = play(stack, options, scaled)
    finally:
        from django.db import connections

        connections.close_all()
        stack.down()
    report(options, startup, scaled, results)


def play(
    stack: Stack, options: argparse.Namespace, scaled: dict[int, float]
) -> dict[int, dict[str, Any]]:
    """The flood, queued once; then a window per worker count, scaling up between them."""
    from django.contrib.auth.models import User

    from bench.scheduler.fairness import flood, version
    from tournaments.models import Match

    _, cups = flood("stack", options.slow_checks, options.quick)
    options.cup_matches = Match.objects.filter(tournament_id=cups[0]).count()
    newcomer = User.objects.create(username="newcomer-stack")
    seat = version(newcomer, "newcomer", 0.0)
    results = {}
    for workers in SCALES:
        if workers not in scaled:
            scaled[workers] = scale(stack, workers)
        results[workers] = r = phase(cups, newcomer, seat, options)
        print(
            f"  {workers} worker(s): {r['mean']:.1f} matches in flight on average (at most "
            f"{r['most']}), {r['per_minute']:.1f} a minute (load {r['load']})",
            flush=True,
        )
    return results


def report(
    options: argparse.Namespace,
    startup: float,
    scaled: dict[int, float],
    results: dict[int, dict[str, Any]],
) -> None:
    base = results[min(SCALES)]
    print(
        f"bigtwo, issue 28's flood ({options.slow_checks} slow checks, {options.quick} quick "
        f"matches, 3 round robins of {options.cup_matches} matches); {options.minutes:g} min "
        "per worker count, "
        f"{WORKER_PROCESSES} processes a worker container, {os.cpu_count()} cores"
    )
    command = f"scripts/stack up --scale worker={max(SCALES)}"
    print(f"  start-up, {command} with the images built: {startup:.0f} s")
    for workers in SCALES:
        r = results[workers]
        print(
            f"  {workers} worker(s) (scaled in {scaled[workers]:.0f} s): tournaments' matches in "
            f"flight {r['mean']:.2f} on average, x{r['mean'] / max(base['mean'], 0.01):.2f} of "
            f"1 worker (at most {r['most']}); {r['per_minute']:.1f} finished a minute, "
            f"x{r['per_minute'] / max(base['per_minute'], 0.01):.2f}; load {r['load']}"
        )
        print(
            f"      newcomer's check {quantiles(r['check'])}; "
            f"quick match, ask to start {quantiles(r['quick'])}"
        )
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
