"""Shares by person under a hostile flood: a newcomer's check and a tournament beside three
accounts of one person (issue 42).

On the main job's shape (one worker of 3 processes; ``--sandbox docker`` as in
production, the local sandbox by default):

- three *hostile* accounts, registered and acting from one address, each at its hourly
  upload quota (``--uploads``, 30 by default), upload a bot that takes 0.85 s a move:
  each check then holds a process for about a minute;
- an *organiser* runs a round robin of 23 bots;
- every ``--every`` seconds for ``--minutes``, a *first-time author* (a new account from
  a network of its own, no accepted bot yet: in the newcomers' pool with the hostile
  accounts) uploads its first bot, and an *author* with an accepted bot uploads a new
  version.

Printed: the waits from upload to verdict of both authors' checks, p50 and p95; the
hostile person's checks in flight at most; the tournament's samples (every 0.2 s) with no
match running and its longest stretch with none. Two phases in one run: the service's
shares, and the baseline, the same accounts seen as three people (three networks, the
newcomers' pool unbounded, no process kept for batch work: what sharing by account did).

Run: ``python -m bench.scheduler.shares [--sandbox docker] [--minutes 4]`` (about twice
``--minutes`` plus two minutes). It makes its own PostgreSQL database (dropped at the
end) and empties Redis db 10 (``--broker`` names another).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from bench._service import ROOT, configure, scratch_database, worker
from bench.scheduler.fairness import (
    BROKER,
    ENTRANTS,
    GAME,
    SLOW_MOVE_S,
    quantiles,
    upload,
    version,
    wind_down,
)

HOSTILE = 3
#: The hostile accounts' networks: one address for the shares, three for the baseline.
ONE_PERSON = ["198.51.100.7"] * HOSTILE
THREE_PEOPLE = ["198.51.100.7", "203.0.113.7", "192.0.2.7"]


def accounts(tag: str, addresses: list[str], uploads: int) -> list[Any]:
    """The hostile accounts, their addresses recorded as registration records them, each
    with ``uploads`` slow versions waiting for their checks."""
    from django.contrib.auth.models import User

    from tournaments.guard import addresses as where

    made = []
    for n, address in enumerate(addresses):
        user = User.objects.create(username=f"hostile{n}-{tag}")
        where.remember(user, address)
        for _ in range(uploads):
            upload(user, f"slow{n}", SLOW_MOVE_S)
        made.append(user)
    return made


def tournament(tag: str) -> int:
    from django.contrib.auth.models import User
    from django.db import transaction

    from tournaments.competitions import competition_actions

    owner = User.objects.create(username=f"organiser-{tag}")
    entrants = [version(owner, f"entrant{i}", 0.01) for i in range(ENTRANTS)]
    cup = competition_actions.create_tournament(owner, "cup", GAME, entrants, table_size=2)
    with transaction.atomic():
        competition_actions.start_tournament(cup.pk)
    return int(cup.pk)


class Watch(threading.Thread):
    """Samples the tournament's running matches and the hostile checks in flight."""

    def __init__(self, cup: int, hostile: list[Any]) -> None:
        super().__init__(daemon=True)
        self.cup, self.hostile = cup, hostile
        self.samples = self.idle = 0
        self.longest_idle = 0.0
        self.most_hostile = 0
        self.least_capacity = 1 << 30
        self.stopped = threading.Event()

    def run(self) -> None:
        from django.db import connection

        from tournaments.models import BotVersion, Match
        from tournaments.play import dispatch

        running = Match.objects.filter(tournament_id=self.cup, status="running")
        flight = BotVersion.objects.filter(dispatch.CHECK_IN_FLIGHT, bot__owner__in=self.hostile)
        idle_since: float | None = None
        while not self.stopped.wait(0.2):
            self.samples += 1
            self.most_hostile = max(self.most_hostile, flight.count())
            self.least_capacity = min(self.least_capacity, dispatch.capacity())
            if running.exists():
                idle_since = None
                continue
            self.idle += 1
            now = time.monotonic()
            idle_since = idle_since or now
            self.longest_idle = max(self.longest_idle, now - idle_since)
        connection.close()


def probe(tag: str, every: float, minutes: float) -> tuple[list[float], list[float]]:
    """The first-time authors' and the author's check waits (upload to verdict)."""
    from django.contrib.auth.models import User

    from tournaments.guard import addresses as where
    from tournaments.models import BotVersion

    author = User.objects.create(username=f"author-{tag}")
    where.remember(author, "100.64.0.1")
    version(author, "accepted", 0.0)
    first: list[float] = []
    known: list[float] = []
    pending: list[tuple[Any, float, list[float]]] = []
    end = time.monotonic() + minutes * 60
    n = 0
    while time.monotonic() < end:
        n += 1
        fresh = User.objects.create(username=f"first{n}-{tag}")
        where.remember(fresh, f"100.65.{n}.1")
        pending.append((upload(fresh, "first", 0.0), time.monotonic(), first))
        pending.append((upload(author, "author", 0.0), time.monotonic(), known))
        step = time.monotonic() + every
        while time.monotonic() < step:
            for made, since, into in list(pending):
                status = BotVersion.objects.filter(pk=made.pk).values_list("status", flat=True)
                if status[0] in (BotVersion.Status.ACCEPTED, BotVersion.Status.REJECTED):
                    into.append(time.monotonic() - since)
                    pending.remove((made, since, into))
            time.sleep(0.2)
    for _, since, into in pending:  # still waiting: counted as waiting until now
        into.append(time.monotonic() - since)
    return first, known


def phase(tag: str, db: str, folder: Path, options: argparse.Namespace) -> dict[str, Any]:
    from django.conf import settings

    from tournaments.play import dispatch

    env = {"CELERY_SKIP_CHECKS": "1"}
    # The service's shares, or the baseline's: three people, no pool bound, no batch share.
    shares = {"INTERACTIVE_RESERVE": 1, "SHARE_NEWCOMER_SLOTS": 0, "BATCH_SHARE": 1}
    if tag == "baseline":
        shares |= {"SHARE_NEWCOMER_SLOTS": 1000, "BATCH_SHARE": 0}
    env |= {name: str(value) for name, value in shares.items()}
    for name, value in shares.items():
        setattr(settings, name, value)
    with ExitStack() as workers:
        workers.enter_context(worker(f"{tag}-0", db, folder, env, options.processes, True))
        while dispatch.capacity() < options.processes:
            time.sleep(0.1)
        cup = tournament(tag)
        addresses = THREE_PEOPLE if tag == "baseline" else ONE_PERSON
        hostile = accounts(tag, addresses, options.uploads)
        watch = Watch(cup, hostile)
        watch.start()
        first, known = probe(tag, options.every, options.minutes)
        watch.stopped.set()
        watch.join()
        played = outcomes(cup)
    wind_down(tag, options.broker)
    return {"first": first, "known": known, "watch": watch, "played": played}


def outcomes(cup: int) -> str:
    """The tournament's matches by status, and how many were voided or lost at least once."""
    from django.db.models import Count

    from tournaments.models import Match

    mine = Match.objects.filter(tournament_id=cup)
    counts = dict(mine.values_list("status").annotate(n=Count("id")).order_by())
    voided = mine.filter(failure__contains="voided").count()
    again = mine.filter(attempt__gt=1).count()
    states = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    return f"{states}; {voided} voided, {again} played more than once"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", choices=("docker", "local"), default="local")
    parser.add_argument("--minutes", type=float, default=4.0)
    parser.add_argument("--every", type=float, default=20.0, help="seconds between probes")
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--uploads", type=int, default=30, help="each hostile account's")
    parser.add_argument("--logs", default="", help="keep the workers' logs in this folder")
    parser.add_argument(
        "--broker", default=BROKER, help="a Redis database no one else uses (it is emptied)"
    )
    options = parser.parse_args()
    if options.sandbox == "docker":
        os.environ.setdefault("JUDGE_PIPE_ROOT", str(ROOT / "var" / "pipes"))
    configure("bench_shares", options.broker, options.sandbox)
    results = {}
    with ExitStack() as stack:
        tmp = options.logs or stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-"))
        db = stack.enter_context(scratch_database())
        for tag in ("shares", "baseline"):
            results[tag] = phase(tag, db, Path(tmp), options)
    load = os.getloadavg()[0]
    print(
        f"{GAME}: {HOSTILE} hostile accounts x {options.uploads} slow uploads ({SLOW_MOVE_S} s "
        f"a move), a round robin of {ENTRANTS} bots; authors probe "
        f"every {options.every:g} s for {options.minutes:g} min; 1 worker of "
        f"{options.processes} processes, {options.sandbox} sandbox, {os.cpu_count()} cores, "
        f"load {load:.1f}"
    )
    labels = {"shares": "shares by person", "baseline": "baseline (three people, no pool bound)"}
    for tag, label in labels.items():
        r, watch = results[tag], results[tag]["watch"]
        idle = 100 * watch.idle / max(1, watch.samples)
        print(f"  {label}")
        print(f"    first-time author's check, upload to verdict: {quantiles(r['first'])}")
        print(f"    author's new version, upload to verdict:      {quantiles(r['known'])}")
        print(f"    hostile person's checks in flight at most:    {watch.most_hostile}")
        print(f"    the workers' processes seen, at least:        {watch.least_capacity}")
        print(
            f"    tournament: no match running in {idle:.0f}% of samples, longest "
            f"{watch.longest_idle:.1f} s"
        )
        print(f"    tournament's matches: {r['played']}")


if __name__ == "__main__":
    main()
